# Numpy arrays as Triton's interpreter takes tensors, without PyTorch: the
# interpreter reads a torch-like object's address, dtype and storage. Shared by
# the worker's runner (run/triton_runner.py) and the bench bundle's harness
# (run/triton_bench.py), which both run kernels on host memory.


class LegoHostStorage:
    # What Triton's interpreter asks of a tensor's storage: an address,
    # and a host copy, which memory already on the host is.
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address

    def cpu(self):
        return self

    def copy_(self, other):
        pass

class LegoHostDType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name  # the spelling Triton's type table reads

class LegoHostTensor:
    # A numpy array as Triton's interpreter sees a torch tensor on the
    # host: the interpreter loads and stores through its address.
    def __init__(self, array, name):
        self.array, self.name = array, name
        self.dtype = LegoHostDType(array.dtype.name)
        self.shape = array.shape

    def data_ptr(self):
        return self.array.ctypes.data

    def untyped_storage(self):
        return LegoHostStorage(self.array.ctypes.data)

    def storage_offset(self):
        return 0

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def size(self):
        return self.array.shape

    def stride(self, *args):
        return (1,)

    def element_size(self):
        return self.array.itemsize

    def numel(self):
        return self.array.size

    def copy_(self, other):
        pass

    def __repr__(self):
        return "<tensor %s: %d x %s>" % (self.name, self.array.size, self.array.dtype.name)


def lego_host_tensor(array, name):
    return LegoHostTensor(array, name)
