# A stand-in for the few parts of PyTorch that a Triton bundle's bench.py
# uses, over numpy, so that its GPU path (device copies, CUDA events,
# baselines, the results file) runs on a CPU under Triton's interpreter in
# the suite: a rehearsal of the run a lent GPU gets. "cuda" memory is host
# memory, an event is the host's clock. Nothing here is PyTorch's code.
import importlib.util
import os
import time

import numpy

__version__ = "0.0 (LEGO Studio's test stand-in over numpy)"


# The interpreter's side of a tensor is the engine's own shim, the one the
# worker's runner and the bundle's harness use.
_shim = importlib.util.spec_from_file_location(
    "lego_host_tensor_for_stand_in", os.path.join(os.path.dirname(__file__), "../../../../../engine/run/triton_host_tensor.py"))
_host = importlib.util.module_from_spec(_shim)
_shim.loader.exec_module(_host)
dtype = _host.LegoHostDType
float16, float32, float64, int32, int64 = (dtype(n) for n in ("float16", "float32", "float64", "int32", "int64"))


class Tensor(_host.LegoHostTensor):
    def __init__(self, array):
        super().__init__(array, "tensor")

    def stride(self, *args):
        return tuple(s // self.array.itemsize for s in self.array.strides)

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
