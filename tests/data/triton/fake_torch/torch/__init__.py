# A stand-in for the few parts of PyTorch that a Triton bundle's bench.py
# uses, over numpy, so that its GPU path (device copies, CUDA events,
# baselines, the results file) runs on a CPU under Triton's interpreter in
# the suite: a rehearsal of the run a lent GPU gets. "cuda" memory is host
# memory, an event is the host's clock. Nothing here is PyTorch's code.
import time

import numpy

__version__ = "0.0 (LEGO Studio's test stand-in over numpy)"


class dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name  # what Triton's interpreter reads


float16, float32, float64, int32, int64 = (dtype(n) for n in ("float16", "float32", "float64", "int32", "int64"))


class _Storage:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address

    def cpu(self):
        return self

    def copy_(self, other):
        pass


class Tensor:
    def __init__(self, array):
        self.array = array
        self.dtype = dtype(array.dtype.name)
        self.shape = array.shape

    # What Triton's interpreter asks of an argument.
    def data_ptr(self):
        return self.array.ctypes.data

    def untyped_storage(self):
        return _Storage(self.array.ctypes.data)

    def storage_offset(self):
        return 0

    def new_empty(self, *args, **kwargs):
        return self

    def set_(self, *args):
        return self

    def size(self):
        return self.array.shape

    def stride(self, *args):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def element_size(self):
        return self.array.itemsize

    def numel(self):
        return self.array.size

    # What bench.py asks.
    def to(self, device):
        return Tensor(self.array.copy())  # a "device" copy

    def cpu(self):
        return Tensor(self.array.copy())

    def numpy(self):
        return self.array

    def float(self):
        return Tensor(self.array.astype(numpy.float32))

    def copy_(self, other):
        self.array[...] = other.array
        return self


def from_numpy(array):
    return Tensor(array)


def empty(count, dtype=float32, device=None):
    return Tensor(numpy.empty(count, dtype=dtype.name))


def as_strided(tensor, size, stride):
    item = tensor.array.itemsize
    return Tensor(numpy.lib.stride_tricks.as_strided(tensor.array, shape=tuple(size), strides=tuple(s * item for s in stride)))


def matmul(a, b):
    return Tensor((a.array.astype(numpy.float32) @ b.array.astype(numpy.float32)).astype(a.array.dtype))


def softmax(x, dim):
    e = numpy.exp(x.array - x.array.max(axis=dim, keepdims=True))
    return Tensor(e / e.sum(axis=dim, keepdims=True))


class _Functional:
    @staticmethod
    def layer_norm(x, shape, weight, bias, eps=1e-5):
        a = x.array
        centred = a - a.mean(axis=-1, keepdims=True)
        return Tensor(centred / numpy.sqrt((centred * centred).mean(axis=-1, keepdims=True) + eps) * weight.array + bias.array)


class nn:
    functional = _Functional


class _Properties:
    name, major, minor, L2_cache_size = "stand-in device (host memory)", 0, 0, 1 << 20


class _Event:
    def __init__(self, enable_timing=False):
        self.at = None

    def record(self):
        self.at = time.perf_counter()

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return (end.at - self.at) * 1e3


class cuda:
    Event = _Event

    @staticmethod
    def is_available():
        return True

    @staticmethod
    def synchronize():
        pass

    @staticmethod
    def get_device_properties(index):
        return _Properties()
