"""The fast path of a product on a CuPy or PyTorch vector: the common case
(1-D, contiguous, the Matrix's dtype, length and GPU, the caller's
current stream, y absent or just as good) read from the array's own
attributes with no intermediate objects, straight to smv_spmv. Anything
else answers None and the general path (_matrix.Matrix.spmv) handles it,
with its checks and messages. This is what keeps a product within a few
microseconds of the C API (bench/results/<device>/python.md).

Results (`M @ x` on CuPy vectors): a new CuPy array costs a few
microseconds of host time (the memory pool and the ndarray object), more
than the rest of the fast path. So each Matrix keeps up to RING of its
own results per direction and hands one back again once the caller holds
no reference to it (its reference count is the ring's alone): the object
and its memory are recycled as CuPy's pool would recycle the memory, with
the same rule about streams: a vector is recycled only on the stream it
was last written on here, and a caller who hands a result to another
stream must keep a reference (or synchronise) while that stream uses it,
as with any pooled CuPy array. A result still referenced anywhere (a
variable, a view's base, a DLPack capsule, a torch tensor made from it)
is never recycled. Matrix.close() drops the ring (RING vectors of the
longer dimension, per direction, at most)."""

import sys

from . import _lib as L

_STREAM_LEGACY = 1
RING = 3
_rc = sys.getrefcount


def _rc_alone():
    """The reference count _take sees for an object only the ring holds
    (measured, not assumed: it depends on the interpreter)."""
    slot = [object(), 0]
    y = slot[0]
    return _rc(y)


_ALONE = _rc_alone()


def _take(M, transpose, s, m, dt, new, devid):
    """A result vector for this call (caller holds M._ctx_lock): a free
    vector of the ring written last on stream s, else new((m,), dt) when
    the current device is the Matrix's (kept in the ring while it has room
    or a free slot of another stream), else None (the general path). A
    recycled vector is checked to be still 1-D of m elements of dt (its
    shape can be set in place)."""
    ring = M._yring[transpose]
    spare = -1
    for i, slot in enumerate(ring):
        y = slot[0]
        if _rc(y) == _ALONE:  # the ring's reference and this local one
            if (slot[1] == s and y.ndim == 1 and y.size == m and
                    (y.dtype is dt or y.dtype == dt)):
                return y
            spare = i
    if devid() != M.device:
        return None
    y = new((m,), dt)
    if spare >= 0:
        ring[spare] = [y, s]
    elif len(ring) < RING:
        ring.append([y, s])
    return y


def _spmv_locked(M, transpose, s, xp, yp):
    """smv_spmv[_t] (AUTO, y = A x) on stream s; the caller holds
    M._ctx_lock (close() waits for it; a closed Matrix raises)."""
    dA = M._dA
    if dA is None:
        raise ValueError("smv.Matrix: used after close()")
    if s != M._stream:
        M._set_stream(s)
    f = L.spmv_t if transpose else L.spmv
    st = f(M._ctx, 0, 1.0, dA, xp, 0.0, yp)
    if st:
        L.check(st, "smv_spmv%s" % ("_t" if transpose else ""), M._ctx)


def _launch(M, transpose, s, xp, yp):
    """The product into the caller's y."""
    with M._ctx_lock:
        _spmv_locked(M, transpose, s, xp, yp)


def _launch_new(M, transpose, s, xp, m, dt, new, devid):
    """The product into a result vector from the ring (_take), chosen
    under the same lock, so two threads never take the same one; None
    when _take found none and cannot allocate here (another current
    device)."""
    with M._ctx_lock:
        if M._dA is None:
            raise ValueError("smv.Matrix: used after close()")
        y = _take(M, transpose, s, m, dt, new, devid)
        if y is not None:
            _spmv_locked(M, transpose, s, xp, y.data.ptr)
    return y


def _cupy_fast():
    import cupy

    try:
        from cupy.cuda.stream import get_current_stream_ptr as cur
    except ImportError:  # older CuPy
        def cur():
            return cupy.cuda.get_current_stream().ptr
    try:
        from cupy.cuda.device import get_device_id as devid
    except ImportError:
        def devid():
            return cupy.cuda.Device().id
    nd = cupy.ndarray

    def run(M, x, y, transpose):
        dt = M.dtype
        if x.ndim != 1 or x.dtype != dt or not x._c_contiguous:
            return None
        m, n = M.shape
        if transpose:
            m, n = n, m
        dev = M.device
        if x.shape[0] != n or x.data.device_id != dev:
            return None
        if y is None:
            return _launch_new(M, transpose, cur() or _STREAM_LEGACY,
                               x.data.ptr, m, dt, nd, devid)
        elif (type(y) is not nd or y.ndim != 1 or y.shape[0] != m or
              y.dtype != dt or not y._c_contiguous or
              y.data.device_id != dev):
            return None
        _launch(M, transpose, cur() or _STREAM_LEGACY, x.data.ptr,
                y.data.ptr)
        return y

    return run


def _torch_fast(alloc=None):
    """The fast path for torch tensors. Its checks are the cheapest that
    keep the general path's guarantees (a plain CUDA tensor, 1-D,
    contiguous, the Matrix's dtype, length and GPU, no autograd history
    asked for); each is a getter or a method without arguments except
    is_contiguous(), and the length is numel() (1-D by then) rather than
    shape[0], which builds a torch.Size. The call into smv_spmv is inlined
    here: _launch and _spmv_locked are two Python frames per product.

    The result: torch.empty_like(x) for a square product, else
    x.new_empty(m) (the cheapest allocations the profiler found, in that
    order: bench/results/<device>/python.md), a tensor of x's dtype (x is
    contiguous and has no autograd history here) on x's device from
    torch's caching allocator, tied to that device's current stream, the
    stream the product is queued on (raw(dev)); torch results are never
    recycled (autograd may hold a tensor's storage with no Python
    reference). alloc(x, m, dt), when given, replaces it: the profiler
    (scripts/python/prof_fastpath.py) times each way of allocating inside
    the whole product with it."""
    import torch

    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        def raw(d):
            return torch.cuda.current_stream(d).cuda_stream
    # torch dtype by smv precision (smv_precision: f64, f32, f64-f32v).
    tdt = (torch.float64, torch.float32, torch.float64)
    T = torch.Tensor
    like = torch.empty_like
    spmv, spmv_t, check = L.spmv, L.spmv_t, L.check

    def run(M, x, y, transpose):
        if transpose:
            n, m = M.shape
        else:
            m, n = M.shape
        dev = M.device
        dt = tdt[M._prec]
        if (x.dtype is not dt or x.requires_grad or not x.is_cuda or
                x.get_device() != dev or x.ndim != 1 or x.numel() != n or
                not x.is_contiguous()):
            return None
        if y is None:
            if alloc is not None:
                y = alloc(x, m, dt)
            else:  # empty_like: the cheaper of the two where it fits
                y = like(x) if m == n else x.new_empty(m)
        elif (not isinstance(y, T) or y.dtype is not dt or y.requires_grad or
              y.get_device() != dev or y.ndim != 1 or y.numel() != m or
              not y.is_contiguous()):
            return None
        s = raw(dev) or _STREAM_LEGACY
        xp, yp = x.data_ptr(), y.data_ptr()
        with M._ctx_lock:  # close() waits for it; then _dA is None
            dA = M._dA
            if dA is None:
                raise ValueError("smv.Matrix: used after close()")
            if s != M._stream:
                M._set_stream(s)
            st = (spmv_t if transpose else spmv)(M._ctx, 0, 1.0, dA, xp,
                                                 0.0, yp)
            if st:
                check(st, "smv_spmv%s" % ("_t" if transpose else ""),
                      M._ctx)
        return y

    return run


FAST = {}  # type -> run(M, x, y, transpose) or None


def fast_for(t):
    """The fast path for arrays of type t (None: the general path)."""
    try:
        return FAST[t]
    except KeyError:
        pass
    mod = t.__module__.split(".")[0]
    f = None
    try:
        if mod == "cupy" and t.__name__ == "ndarray":
            f = _cupy_fast()
        elif mod == "torch" and t.__name__ in ("Tensor", "Parameter"):
            f = _torch_fast()
    except Exception:  # an unusual build of either: the general path
        f = None
    FAST[t] = f
    return f


UNSEEN = object()  # FAST.get's default: a type not looked at yet


def run(M, x, y, transpose):
    """The fast path's product for x's type, or None (the general path).
    Matrix.__matmul__ does the same inline (one Python frame less)."""
    f = FAST.get(type(x), UNSEEN)
    if f is UNSEEN:
        f = fast_for(type(x))
    return None if f is None else f(M, x, y, transpose)
