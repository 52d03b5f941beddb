"""Arrays in and out: numpy on the host, and device arrays of any library
that exposes ``__cuda_array_interface__`` (CuPy, Numba, PyTorch) or
``__dlpack__`` (PyTorch, JAX, CuPy; numpy's on the host).

One ``Kind`` per array library says, for an array of it: its device
pointer, length, dtype, device, whether it is contiguous, the stream its
producer works on, and how to make a new array of the same library (the
result) or a contiguous copy. The kinds of CuPy and PyTorch read the
attributes directly (no interface dict built per call); any other object
goes through its ``__cuda_array_interface__`` or its DLPack capsule.

Streams. A product runs on the stream of its input: CuPy's current
stream, PyTorch's current stream of the array's device, the ``stream``
field of ``__cuda_array_interface__`` (None, 1 = legacy default, 2 =
per-thread default, else a ``cudaStream_t``), or, for DLPack, the stream
passed to ``__dlpack__(stream=...)`` (the legacy default stream, or the
``stream=`` argument of the product). Work queued before on that stream
(a kernel that wrote x) is therefore finished before smv reads x, and work
queued after it (on the same stream) sees y: no synchronisation per call.
"""

import ctypes
import sys

import numpy as np

# cudaStreamLegacy: the legacy default stream as a handle that
# smv_context_set_stream takes (NULL there means the context's own stream).
STREAM_LEGACY = 1
STREAM_PER_THREAD = 2

_DTYPES = {"<f8": np.dtype(np.float64), "<f4": np.dtype(np.float32),
           "<i4": np.dtype(np.int32), "<i8": np.dtype(np.int64)}


def stream_handle(s):
    """A stream as the integer smv_context_set_stream takes: an int
    (0 and None mean the legacy default stream, as CUDA's 0 does), or an
    object with .ptr (CuPy), .cuda_stream (PyTorch) or .handle (Numba)."""
    if s is None:
        return STREAM_LEGACY
    for a in ("ptr", "cuda_stream", "handle"):
        v = getattr(s, a, None)
        if v is not None:
            s = v.value if isinstance(v, ctypes.c_void_p) else v
            break
    if isinstance(s, ctypes.c_void_p):
        s = s.value or 0
    if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
        raise TypeError("smv: stream must be an int or a CuPy/PyTorch/Numba "
                        "stream, not %r" % (s,))
    s = int(s)
    if s < 0 or s >= 2**64:
        raise ValueError("smv: stream %d is not a CUDA stream handle" % s)
    return s or STREAM_LEGACY


class Vec:
    """What a product needs of one device array."""

    __slots__ = ("obj", "ptr", "shape", "dtype", "device", "contig",
                 "stream", "kind", "keep", "fortran")

    def __init__(self, obj, ptr, shape, dtype, device, contig, stream, kind,
                 keep=None, fortran=False):
        self.obj, self.ptr, self.shape, self.dtype = obj, ptr, shape, dtype
        self.device, self.contig, self.stream = device, contig, stream
        self.kind, self.keep, self.fortran = kind, keep, fortran


class Kind:
    """An array library: read(x) -> Vec, empty(shape, dtype, like) ->
    new array, contiguous(x) -> a C-contiguous copy, name."""

    name = "array"

    def read(self, x):
        raise NotImplementedError

    def empty(self, shape, dtype, like):
        raise NotImplementedError

    def contiguous(self, x, order="C"):
        raise NotImplementedError


class CupyKind(Kind):
    name = "cupy"

    def __init__(self):
        import cupy

        self.cp = cupy
        self._stream = cupy.cuda.get_current_stream

    def read(self, x):
        f = x.flags
        return Vec(x, x.data.ptr, x.shape, x.dtype, x.device.id,
                   f.c_contiguous, self._stream().ptr or STREAM_LEGACY, self,
                   fortran=f.f_contiguous and not f.c_contiguous)

    def empty(self, shape, dtype, like, order="C"):
        with like.device:
            return self.cp.empty(shape, dtype=dtype, order=order)

    def contiguous(self, x, order="C"):
        with x.device:
            return (self.cp.ascontiguousarray(x) if order == "C"
                    else self.cp.asfortranarray(x))


class TorchKind(Kind):
    name = "torch"

    def __init__(self):
        import torch

        self.torch = torch
        self._dt = {torch.float64: np.dtype(np.float64),
                    torch.float32: np.dtype(np.float32),
                    torch.int32: np.dtype(np.int32),
                    torch.int64: np.dtype(np.int64)}
        self._back = {v: k for k, v in self._dt.items()}
        self._streams = {}

    def read(self, x):
        if not x.is_cuda:
            return None  # a CPU tensor: the host path (DLPack to numpy)
        dt = self._dt.get(x.dtype)
        if dt is None:
            dt = np.dtype("V%d" % x.element_size())  # named in the error
        dev = x.device.index
        s = self.torch.cuda.current_stream(dev).cuda_stream
        contig = x.is_contiguous()
        fortran = (not contig and x.dim() == 2 and
                   x.t().is_contiguous())
        return Vec(x, x.data_ptr(), tuple(x.shape), dt, dev, contig,
                   s or STREAM_LEGACY, self, fortran=fortran)

    def empty(self, shape, dtype, like, order="C"):
        t = self.torch.empty(shape if order == "C" else shape[::-1],
                             dtype=self._back[np.dtype(dtype)],
                             device=like.device)
        return t if order == "C" else t.t()

    def contiguous(self, x, order="C"):
        if order == "C":
            return x.contiguous()
        return x.t().contiguous().t()


class CaiKind(Kind):
    """Any object with __cuda_array_interface__ (Numba, ...). Results are
    made with Numba when the object is Numba's, else with CuPy or PyTorch
    (whichever is installed), wrapped back by the caller's own library
    when it can."""

    name = "cuda_array_interface"

    def read(self, x):
        cai = x.__cuda_array_interface__
        shape = tuple(cai["shape"])
        dt = _DTYPES.get(cai["typestr"]) or np.dtype(cai["typestr"])
        ptr = cai["data"][0] or 0
        strides = cai.get("strides")
        isz = dt.itemsize
        contig = strides is None or _c_strides(shape, isz) == tuple(strides)
        fortran = (not contig and strides is not None and len(shape) == 2 and
                   tuple(strides) == (isz, isz * shape[0]))
        s = cai.get("stream", None)
        dev = _pointer_device(ptr) if ptr else None
        return Vec(x, ptr, shape, dt, dev, contig,
                   STREAM_LEGACY if s is None else int(s), self,
                   fortran=fortran)

    def _lib(self, x):
        mod = type(x).__module__.split(".")[0]
        if mod == "numba":
            return "numba"
        for m in ("cupy", "torch"):
            try:
                __import__(m)
                return m
            except ImportError:
                pass
        raise TypeError("smv: a result for a %s array needs Numba, CuPy or "
                        "PyTorch to allocate it" % type(x).__name__)

    def empty(self, shape, dtype, like, order="C"):
        lib = self._lib(like)
        if lib == "numba":
            from numba import cuda

            return cuda.device_array(shape, dtype=dtype, order=order)
        return kind_of_module(lib).empty(shape, dtype, _OnDevice(like),
                                         order)

    def contiguous(self, x, order="C"):
        lib = self._lib(x)
        if lib == "numba":
            from numba import cuda

            y = cuda.device_array(x.shape, dtype=x.dtype, order=order)
            y[...] = x  # a device-to-device copy
            return y
        if lib == "cupy":
            import cupy

            a = cupy.asarray(x)
            return (cupy.ascontiguousarray(a) if order == "C"
                    else cupy.asfortranarray(a))
        import torch

        t = torch.as_tensor(x, device="cuda")
        return t.contiguous() if order == "C" else t.t().contiguous().t()


class _OnDevice:
    """Stands in for an array of another library when only its device
    matters (CaiKind and DLPack results)."""

    def __init__(self, x, dev=None):
        if dev is None:
            dev = _pointer_device(x.__cuda_array_interface__["data"][0])
        self.dev = dev or 0

    @property
    def device(self):
        for m in ("cupy", "torch"):
            if m in sys.modules:
                if m == "cupy":
                    return sys.modules["cupy"].cuda.Device(self.dev)
                return sys.modules["torch"].device("cuda", self.dev)
        return self.dev


def _c_strides(shape, isz):
    out, s = [], isz
    for d in reversed(shape):
        out.append(s)
        s *= max(d, 1)
    return tuple(reversed(out))


_driver = None


def _pointer_device(ptr):
    """The device ordinal of a CUDA pointer, asked of the driver
    (cuPointerGetAttribute, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL); None
    when it cannot be told (no driver, a host pointer)."""
    global _driver
    if _driver is None:
        try:
            _driver = ctypes.CDLL("libcuda.so.1")
            _driver.cuPointerGetAttribute.restype = ctypes.c_int
            _driver.cuPointerGetAttribute.argtypes = [
                ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        except (OSError, AttributeError):
            _driver = False
    if not _driver:
        return None
    dev = ctypes.c_int(-1)
    if _driver.cuPointerGetAttribute(ctypes.byref(dev), 9,
                                     ctypes.c_void_p(ptr)) != 0:
        return None
    return dev.value


# ---- DLPack ---------------------------------------------------------------
class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


class DlpackKind(Kind):
    """A device array known only by its __dlpack__ (JAX, ...). The capsule
    is kept (not consumed) for the duration of the call, so the producer
    keeps the memory alive; results are made by CuPy or PyTorch and handed
    back through the caller's library's from_dlpack when it has one."""

    name = "dlpack"

    def __init__(self, stream=STREAM_LEGACY):
        self.stream = stream

    def read(self, x):
        dev_type, dev_id = x.__dlpack_device__()
        if int(dev_type) not in (_DL_CUDA, _DL_CUDA_MANAGED):
            return None
        try:
            cap = x.__dlpack__(stream=self.stream)
        except TypeError:
            cap = x.__dlpack__()
        t = _DLTensor.from_address(_capsule_pointer(cap, b"dltensor"))
        shape = tuple(t.shape[i] for i in range(t.ndim))
        codes = {(2, 64): np.float64, (2, 32): np.float32,
                 (0, 32): np.int32, (0, 64): np.int64}
        dt = np.dtype(codes.get((t.code, t.bits), "V%d" % (t.bits // 8)))
        contig = True
        fortran = False
        if t.strides:
            st = tuple(t.strides[i] * dt.itemsize for i in range(t.ndim))
            contig = st == _c_strides(shape, dt.itemsize) or 0 in shape
            fortran = (not contig and len(shape) == 2 and
                       st == (dt.itemsize, dt.itemsize * shape[0]))
        return Vec(x, (t.data or 0) + t.byte_offset, shape, dt, int(dev_id),
                   contig, self.stream, self, keep=cap, fortran=fortran)

    def _wrap(self, like, arr):
        root = type(like).__module__.split(".")[0]
        mod = sys.modules.get(root)
        if root in ("jax", "jaxlib"):
            import jax.dlpack

            return jax.dlpack.from_dlpack(arr)
        fd = getattr(mod, "from_dlpack", None)
        return fd(arr) if fd else arr

    def empty(self, shape, dtype, like, order="C"):
        raise TypeError("smv: y= must be a CuPy, PyTorch or "
                        "__cuda_array_interface__ array (a %s array is "
                        "read-only here)" % type(like).__name__)

    def contiguous(self, x, order="C"):
        for m in ("cupy", "torch"):
            try:
                lib = __import__(m)
            except ImportError:
                continue
            a = lib.from_dlpack(x)
            return kind_of_module(m).contiguous(a, order)
        raise TypeError("smv: copying a strided %s array needs CuPy or "
                        "PyTorch" % type(x).__name__)

    def result_empty(self, shape, dtype, dev, order="C"):
        for m in ("cupy", "torch"):
            try:
                __import__(m)
            except ImportError:
                continue
            return kind_of_module(m).empty(shape, dtype, _OnDevice(None, dev),
                                           order)
        raise TypeError("smv: a result for a DLPack device array needs CuPy "
                        "or PyTorch to allocate it")


_MODULE_KINDS = {}


def kind_of_module(name):
    k = _MODULE_KINDS.get(name)
    if k is None:
        k = CupyKind() if name == "cupy" else TorchKind()
        _MODULE_KINDS[name] = k
    return k


_KINDS = {np.ndarray: None}  # type -> Kind (None: host numpy)
_CAI = CaiKind()


def kind_of(x):
    """The Kind for x's type (cached per type), None for host arrays."""
    t = type(x)
    try:
        return _KINDS[t]
    except KeyError:
        pass
    mod = t.__module__.split(".")[0]
    if mod in ("jax", "jaxlib") and hasattr(x, "__dlpack__"):
        k = DlpackKind()  # results go back to JAX through DLPack
    elif mod == "cupy" and hasattr(x, "__cuda_array_interface__"):
        k = kind_of_module("cupy")
    elif mod == "torch" and hasattr(x, "data_ptr"):
        k = kind_of_module("torch")
    elif hasattr(t, "__cuda_array_interface__"):
        k = _CAI
    elif hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__"):
        k = DlpackKind()
    else:
        k = None
    _KINDS[t] = k
    return k


def read_device(x, stream=None):
    """A Vec for a device array, or None when x lives on the host (numpy,
    a list, a CPU tensor, a CPU DLPack object)."""
    k = kind_of(x)
    if k is None:
        return None
    if stream is not None and isinstance(k, DlpackKind):
        k = DlpackKind(stream_handle(stream))
    if isinstance(k, DlpackKind):
        dt, _ = x.__dlpack_device__()
        if int(dt) not in (_DL_CUDA, _DL_CUDA_MANAGED):
            return None
    v = k.read(x)
    if v is not None and stream is not None:
        v.stream = stream_handle(stream)
    return v


def to_host(x):
    """x as a numpy array (numpy as is; CPU DLPack objects and CPU
    tensors through DLPack, without a copy where it can; a CuPy array or
    a CUDA torch tensor copied to the host, for the host-side helpers
    such as f32v_bound)."""
    if isinstance(x, np.ndarray):
        return x
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy" and hasattr(x, "get"):
        return x.get()
    if mod == "torch" and getattr(x, "is_cuda", False):
        return x.detach().cpu().numpy()
    if hasattr(x, "__dlpack__") and not isinstance(x, (list, tuple)):
        try:
            return np.from_dlpack(x)
        except (TypeError, RuntimeError, BufferError, AttributeError):
            pass
    return np.asarray(x)


def host_result(like, y):
    """y (numpy) as the caller's host kind: a CPU torch tensor for one,
    else numpy."""
    if type(like).__module__.split(".")[0] == "torch":
        import torch

        return torch.from_numpy(y)
    return y


def aligned(a, dtype, name, order="C", write=False):
    """a as a numpy array of dtype that C may read: contiguous in `order`,
    aligned (a misaligned view, e.g. float64 at an odd byte offset, is
    copied) and, with write, writable. Never a view C would misread."""
    req = [order, "A"] + (["W"] if write else [])
    return np.require(a, dtype=dtype, requirements=req)


def host_copy(x):
    """A device array's values as a numpy array (a copy to the host)."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        return x.get()
    if mod == "torch":
        return x.detach().cpu().numpy()
    return np.asarray(x)


def device_like(like, host):
    """The numpy array `host` on the GPU, in the library of `like` (an
    array or sparse matrix of CuPy/cupyx or PyTorch; others: numpy)."""
    mod = type(like).__module__.split(".")[0]
    if mod in ("cupy", "cupyx"):
        import cupy

        return cupy.asarray(host)
    if mod == "torch":
        import torch

        return torch.as_tensor(host, device=like.device)
    return host
