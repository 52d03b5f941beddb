"""smv.Matrix: a sparse matrix prepared once for repeated products on the
GPU (the CUDA engine: uploaded and analysed once) or the CPU (OpenMP), on
numpy arrays or on device arrays (CuPy, PyTorch, JAX, Numba: _array.py)."""

import ctypes
import threading

import numpy as np

from . import _array
from . import _fast
from . import _lib as L
from . import _solve

_PREC = {"float64": L.SMV_F64, "double": L.SMV_F64, "f64": L.SMV_F64,
         "float32": L.SMV_F32, "single": L.SMV_F32, "f32": L.SMV_F32,
         "f64-f32v": L.SMV_F64_F32V}
# Matrix.precision by smv_precision: the package's names, and the library's
# for the mode that has no numpy dtype of its own.
PREC_NAME = ("float64", "float32", "f64-f32v")

# SpMV algorithms (include/smv.h smv_alg, the registry src/rungs.def) and
# SpMM algorithms (smv_spmm_alg) by name, as the library names them; "auto"
# lets the engine choose.
SPMV_ALGS = L.SPMV_ALGS
SPMM_ALGS = L.SPMM_ALGS


def _precision(p):
    if isinstance(p, np.dtype) or isinstance(p, type):
        p = np.dtype(p).name
    try:
        return _PREC[str(p)]
    except KeyError:
        raise ValueError("precision must be 'float64', 'float32' or "
                         "'f64-f32v', not %r" % (p,)) from None


def check_int(v, name, lo=0, hi=L.INT32_MAX):
    """v as a Python int in lo..hi, or TypeError/OverflowError/ValueError
    naming the argument (never wrapped silently to a C int)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError("smv: %s must be an integer, not %r" % (name, v))
    v = int(v)
    if v > hi:
        raise OverflowError("smv: %s = %d exceeds %d (a C int)" % (name, v,
                                                                   hi))
    if v < lo:
        raise ValueError("smv: %s = %d is below %d" % (name, v, lo))
    return v


def _matrix_options(reuse):
    """smv_matrix_options for Matrix(reuse=...): None (or False, or 0)
    declares nothing (NULL: the defaults); True sets SMV_MATRIX_REUSE; an
    int N > 0 sets expected_calls = N (the library plans by measurement
    from smv_matrix_reuse_threshold, 960 by default). Anything else is a
    TypeError, a negative count a ValueError."""
    if reuse is None or reuse is False:
        return None
    o = L.MatrixOptions()
    if reuse is True:
        o.flags = L.SMV_MATRIX_REUSE
        return o
    n = check_int(reuse, "reuse", 0, 2**63 - 1)
    if n == 0:
        return None
    o.expected_calls = n
    return o


def _fit_int32(a, name):
    """Refuse (OverflowError) an index or offset array whose values do not
    fit int32, before anything casts it: index 2**32 + 1 must not become
    column 1."""
    a = np.asarray(a)
    if a.dtype.kind not in "iu":
        raise TypeError("smv: %s has dtype %s, expected integers"
                        % (name, a.dtype))
    if a.size and a.dtype.itemsize >= 4 and a.dtype != np.int32:
        lo, hi = int(a.min()), int(a.max())
        if hi > L.INT32_MAX or lo < -L.INT32_MAX - 1:
            raise OverflowError(
                "smv: %s holds %d, beyond smv's int32 indices and offsets "
                "(at most %d); refused before casting" % (
                    name, hi if hi > L.INT32_MAX else lo, L.INT32_MAX))


def _host_sparse(A):
    """A device sparse matrix (cupyx.scipy.sparse, torch sparse) as a scipy
    one (a copy to the host), anything else as it is."""
    mod = type(A).__module__.split(".")[0]
    if mod == "cupyx":
        return A.get()
    if mod == "torch" and getattr(A, "layout", None) is not None:
        import scipy.sparse as sp
        import torch

        t = A.detach().cpu()
        if t.layout == torch.sparse_coo:
            t = t.coalesce()
            i = t.indices().numpy()
            return sp.coo_matrix((t.values().numpy(), (i[0], i[1])),
                                 shape=tuple(t.shape))
        if t.layout == torch.sparse_csr:
            return sp.csr_matrix((t.values().numpy(), t.col_indices().numpy(),
                                  t.crow_indices().numpy()),
                                 shape=tuple(t.shape))
    return A


def _to_csr(A):
    """A scipy.sparse matrix (csr, csc, coo, ... or array) as a canonical
    CSR with int32 indices and float64 values (duplicates summed, columns
    sorted). Refuses sizes beyond int32 and complex values; index arrays
    wider than int32 are checked (OverflowError) before any cast."""
    import scipy.sparse as sp

    A = _host_sparse(A)
    if not sp.issparse(A):
        raise TypeError("smv: expected a scipy.sparse matrix, got %s"
                        % type(A).__name__)
    if A.ndim != 2:
        raise ValueError("smv: expected a 2-D matrix")
    if np.iscomplexobj(A.data if hasattr(A, "data") else A):
        raise TypeError("smv: complex matrices are not supported")
    rows, cols = A.shape
    if rows > L.INT32_MAX or cols > L.INT32_MAX or A.nnz > L.INT32_MAX:
        raise OverflowError(
            "smv: a %d x %d matrix with %d stored entries exceeds smv's "
            "int32 indices and offsets (at most %d each)"
            % (rows, cols, A.nnz, L.INT32_MAX))
    for name in ("indices", "indptr", "row", "col", "offsets"):
        a = getattr(A, name, None)
        if a is not None and not callable(a):
            _fit_int32(a, "the matrix's " + name)
    for i, a in enumerate(getattr(A, "coords", None) or ()):
        _fit_int32(a, "the matrix's coords[%d]" % i)
    C = sp.csr_matrix(A, dtype=np.float64, copy=True)
    C.sum_duplicates()  # also sorts the column indices
    indptr = np.ascontiguousarray(C.indptr, dtype=np.int32)
    indices = np.ascontiguousarray(C.indices, dtype=np.int32)
    data = np.ascontiguousarray(C.data, dtype=np.float64)
    return (rows, cols), indptr, indices, data


def _csr_struct(shape, indptr, indices, data):
    s = L.Csr()
    s.rows, s.cols = shape
    s.nnz = len(data)
    s.row_ptr = indptr.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    s.col_idx = indices.ctypes.data_as(ctypes.POINTER(ctypes.c_int32))
    s.values = data.ctypes.data_as(L.c_double_p)
    s.sorted = 1
    return s


def open_context(backend, device=0):
    device = check_int(device, "device")
    return _open_context(backend, device)


def _open_context(backend, device):
    """A context on `device` for backend 'cuda' (an SmvError if there is
    none) or 'auto' (None without a GPU); None for 'cpu'. The caller frees
    it with context_free."""
    if backend not in ("auto", "cpu", "cuda"):
        raise ValueError("backend must be 'auto', 'cpu' or 'cuda', not %r"
                         % (backend,))
    if backend == "cpu":
        return None
    ctx = ctypes.c_void_p()
    st = L.context_create(device, ctypes.byref(ctx))
    if st == L.SMV_OK:
        return ctx
    if backend == "cuda" or st != L.SMV_ERR_NO_DEVICE:
        L.check(st, "smv_context_create(device %d)" % device, L.CREATE)
    return None


def pagerank_csr(shape, indptr, indices, data, ctx, prec, pattern, *args):
    """PageRank of the CSR arrays (from _to_csr) on ctx's GPU or, with
    ctx None, the CPU; pattern=True gives every stored entry weight 1, as
    `smv pagerank --pattern` does. *args: _solve.pagerank's options."""
    if pattern:
        data = np.ones_like(data)
    csr = _csr_struct(shape, indptr, indices, data)
    return _solve.pagerank(csr, shape, ctx, prec, *args)


def f32v_bound_csr(csr, shape, x, alpha, beta, y0):
    """smv_spmv_f32v_bound on a host CSR struct: per row, the bound on
    |y - y_exact| of y = alpha A x + beta y0 computed in f64-f32v."""
    m, n = shape
    x = np.ascontiguousarray(_array.to_host(x), dtype=np.float64)
    if x.ndim != 1 or x.shape[0] != n:
        raise ValueError("smv: x has shape %s, expected (%d,)"
                         % (x.shape, n))
    alpha, beta = float(alpha), float(beta)
    yp = None
    if y0 is not None:
        y0 = np.ascontiguousarray(_array.to_host(y0), dtype=np.float64)
        if y0.ndim != 1 or y0.shape[0] != m:
            raise ValueError("smv: y0 has shape %s, expected (%d,)"
                             % (y0.shape, m))
        yp = _dptr(y0)
    elif beta != 0.0:
        raise ValueError("smv: beta != 0 needs y0")
    out = np.empty(m)
    L.check(L.spmv_f32v_bound(ctypes.byref(csr), alpha, _dptr(x), beta, yp,
                              _dptr(out)), "smv_spmv_f32v_bound")
    return out


def _dptr(a):
    return a.ctypes.data_as(L.c_double_p)


def _fptr(a):
    return a.ctypes.data_as(L.c_float_p)


def _device_sparse(A):
    """('cupy' | 'torch', the CSR pieces) for a sparse matrix on the GPU,
    else None. Pieces: shape, indptr, indices, data (arrays of the
    caller's library, still on the device), device, stream, the library's
    Kind and the diagonal (a numpy array, for the Python solvers' Jacobi)."""
    mod = type(A).__module__.split(".")[0]
    if mod == "cupyx":
        import cupy

        if A.format not in ("csr", "csc", "coo"):
            A = A.tocsr()
        if cupy.iscomplexobj(A.data):
            raise TypeError("smv: complex matrices are not supported")
        C = A.tocsr() if A.format != "csr" else A
        return dict(lib="cupy", shape=tuple(C.shape), indptr=C.indptr,
                    indices=C.indices, data=C.data,
                    device=C.data.device.id,
                    stream=cupy.cuda.get_current_stream().ptr,
                    diag=lambda: cupy.asnumpy(C.diagonal()))
    if mod == "torch" and hasattr(A, "layout"):
        import torch

        if A.layout not in (torch.sparse_csr, torch.sparse_coo):
            return None
        if not A.is_cuda:
            return None
        if A.is_complex():
            raise TypeError("smv: complex matrices are not supported")
        T = A.detach()
        if T.layout == torch.sparse_coo:
            T = T.coalesce().to_sparse_csr()
        crow, col, val = T.crow_indices(), T.col_indices(), T.values()
        if not val.dtype.is_floating_point:
            val = val.to(torch.float64)

        def diag():
            rows = torch.repeat_interleave(
                torch.arange(T.shape[0], device=crow.device), crow.diff())
            d = torch.zeros(min(T.shape), dtype=torch.float64,
                            device=crow.device)
            on = rows == col
            d.index_add_(0, rows[on], val[on].to(torch.float64))
            return d.cpu().numpy()

        dev = val.device.index
        return dict(lib="torch", shape=tuple(T.shape), indptr=crow,
                    indices=col, data=val, device=dev,
                    stream=torch.cuda.current_stream(dev).cuda_stream,
                    diag=diag)
    return None


def _ndim(X):
    """The number of dimensions of a host or device array."""
    v = None if type(X) is np.ndarray else _array.read_device(X)
    return len(v.shape) if v is not None else np.ndim(_array.to_host(X))


_TRIPLE = ("data", "indices", "indptr")


def _csr_triple(A, shape):
    """A CSR given as (data, indices, indptr) with shape=(rows, cols), as
    scipy's csr_matrix takes it: for device arrays (any library with
    __cuda_array_interface__ or a CUDA __dlpack__) _device_sparse's dict
    (lib 'raw'), for host arrays a scipy matrix (index arrays checked to
    fit int32 first); None when A is not such a tuple."""
    if not (isinstance(A, tuple) and len(A) == 3):
        return None
    if shape is None or len(shape) != 2:
        raise ValueError("smv: a CSR given as (data, indices, indptr) needs "
                         "shape=(rows, cols)")
    rows = check_int(shape[0], "shape[0] (rows)")
    cols = check_int(shape[1], "shape[1] (cols)")
    vs = [_array.read_device(a) for a in A]
    if all(v is None for v in vs):
        import scipy.sparse as sp

        data, indices, indptr = (_array.to_host(a) for a in A)
        _fit_int32(indices, "indices")
        _fit_int32(indptr, "indptr")
        return sp.csr_matrix((data, indices, indptr), shape=(rows, cols))
    for v, name in zip(vs, _TRIPLE):
        if v is None:
            raise TypeError("smv: %s is a host array while the other CSR "
                            "arrays are on the GPU" % name)
    for i, (v, name) in enumerate(zip(vs, _TRIPLE)):
        if len(v.shape) != 1:
            raise ValueError("smv: %s must be 1-D, not of shape %s"
                             % (name, tuple(v.shape)))
        if not v.contig:  # copied once, never read with its strides
            st = v.stream
            vs[i] = v.kind.read(v.kind.contiguous(v.obj))
            vs[i].stream = st
    vd, vi, vp = vs
    for v, name in ((vi, "indices"), (vp, "indptr")):
        if v.dtype != np.int32:
            raise TypeError(
                "smv: %s is %s; device CSR arrays need int32 indices and "
                "offsets (cast them with their library once you know the "
                "values fit)" % (name, v.dtype))
    if vd.dtype.name not in ("float64", "float32"):
        raise TypeError("smv: data is %s; expected float64 or float32"
                        % vd.dtype)
    if vp.shape[0] != rows + 1:
        raise ValueError("smv: indptr has %d entries, expected rows + 1 = %d"
                         % (vp.shape[0], rows + 1))
    if vi.shape[0] != vd.shape[0]:
        raise ValueError("smv: indices has %d entries and data %d"
                         % (vi.shape[0], vd.shape[0]))
    devs = sorted({v.device for v in vs if v.device is not None})
    if len(devs) > 1:
        raise ValueError("smv: the CSR arrays are on different GPUs %s"
                         % devs)

    def diag():
        d_, i_, p_ = (_array.host_copy(v.obj) for v in vs)
        return np.asarray(__import__("scipy.sparse").sparse.csr_matrix(
            (d_, i_, p_), shape=(rows, cols)).diagonal(), dtype=np.float64)

    return dict(lib="raw", shape=(rows, cols), nnz=int(vd.shape[0]),
                ptrs=[vp.ptr, vi.ptr, vd.ptr], vdt=vd.dtype.name,
                device=devs[0] if devs else 0, stream=vp.stream, keep=vs,
                diag=diag)


def _int32_device(a, name, lib):
    """A device index array as int32 (checked to fit before the cast)."""
    if str(a.dtype) in ("int32", "torch.int32"):
        return a
    if a.numel() if lib == "torch" else a.size:
        hi, lo = int(a.max()), int(a.min())
        if hi > L.INT32_MAX or lo < -L.INT32_MAX - 1:
            raise OverflowError(
                "smv: the matrix's %s holds %d, beyond smv's int32 indices "
                "and offsets; refused before casting" % (name, hi))
    if lib == "torch":
        import torch

        return a.to(torch.int32).contiguous()
    return a.astype("int32")


class Matrix:
    """A sparse matrix ready for y = A x, y = A^T x and Y = A X, shaped
    like a scipy.sparse matrix (shape, dtype, nnz, ndim, .T, .dot, @).

    Matrix(A, backend='auto', precision='float64', device=0, reuse=None)
      A          a scipy.sparse matrix (csr, csc, coo, ...; converted once
                 to CSR with int32 indices and float64 values), or a
                 matrix already on the GPU: cupyx.scipy.sparse CSR/CSC/COO
                 or a torch sparse CSR/COO tensor on a CUDA device, built
                 into the smv matrix on that device with no host round
                 trip of its entries (smv_matrix_create_device: the arrays
                 are copied, so the source may be freed; int64 indices are
                 checked to fit int32, then cast on the device).
                 Also a tuple (data, indices, indptr) with shape=(rows,
                 cols), as scipy's csr_matrix takes it: numpy arrays, or
                 device arrays of any library with __cuda_array_interface__
                 or a CUDA __dlpack__ (int32 indices and offsets; float64
                 or float32 data; strided ones copied once), read on the
                 device like a CuPy matrix.
      backend    'cuda' (the GPU; an error if there is none), 'cpu'
                 (OpenMP), or 'auto' (the GPU if there is one, else the CPU).
      precision  'float64' or 'float32': the values and arithmetic on the
                 GPU; on the CPU float32 applies to matvec/rmatvec (SpMM on
                 the CPU computes in float64). Results come back in this
                 dtype. Or 'f64-f32v' (GPU only; lossy, never chosen unless
                 asked): float64 vectors, products and sums, the matrix's
                 values stored once rounded to float32 (8 bytes an entry
                 streamed instead of 12, for solvers that accept a relative
                 change of 2**-24 in each entry; M.f32v_bound(x) bounds the
                 error per row). It runs A x (matvec, @, spmv) only, on the
                 rungs 'vector', 'adaptive', 'tiled' and AUTO; A^T x,
                 SpMM, the solvers and other rungs raise SmvError
                 (SMV_ERR_UNSUPPORTED), a value past float32's range at
                 creation SmvError (SMV_ERR_OVERFLOW), backend='cpu'
                 ValueError (the CPU has no such product), and 'auto'
                 without a GPU SmvError (SMV_ERR_NO_DEVICE).
      device     the GPU (default 0; a device matrix's own GPU).
      reuse      how many products will run on the matrix: an int (the
                 expected calls, smv_matrix_options.expected_calls) or
                 True (many: SMV_MATRIX_REUSE); None (default) says
                 nothing. On the GPU, from smv_matrix_reuse_threshold
                 calls (960 by default) or with True, where compressed
                 storage qualifies (past the L2, columns near the
                 diagonal) the rung AUTO runs is planned by measurement
                 among a short list (the rule's pick, the compressed
                 rung, cuSPARSE ALG1 and ALG2) at creation, which costs
                 tens of products once; pass it for a matrix an
                 iterative solver will use (smv.cg, ...). Ignored on the
                 CPU.

    Products take numpy arrays (results are numpy) or device arrays
    (results are of the caller's library: CuPy in, CuPy out; torch in,
    torch out; JAX in, JAX out), see matvec. The device copy (or the CPU's
    CSR) is kept until close() (or the end of a `with` block).

    Threads: a Matrix may be shared by threads like a scipy matrix.
    Products from several threads are safe (on the GPU they take turns on
    the matrix's context for the microseconds of a launch); close() waits
    for the products in flight, then frees, once (later calls do nothing);
    a product after close() raises ValueError. On the GPU, products on
    different streams must not overlap on the device (the C API's rule at
    smv_spmv: some rungs keep partial sums in the matrix): use one stream
    per Matrix, or synchronise between streams.
    """

    ndim = 2
    format = "csr"
    # numpy defers `x @ M` to M.__rmatmul__ (as for scipy's matrices).
    __array_ufunc__ = None

    def __init__(self, A, backend="auto", precision="float64", device=0,
                 shape=None, reuse=None):
        self._cv = threading.Condition(threading.Lock())
        self._ctx_lock = threading.Lock()
        self._busy = 0
        self._closed = False
        self._ctx = None
        self._dA = None
        self._AT = None  # CPU float32: the CSR of A^T (library-allocated)
        self._csr = None
        self._diag = None
        self._stream = None  # the stream last set on the context
        self._cuda = False  # a live device matrix (the fast paths' test)
        self._yring = ([], [])  # _fast.py's recycled results, A x and A^T x
        if backend not in ("auto", "cpu", "cuda"):
            raise ValueError("backend must be 'auto', 'cpu' or 'cuda', not %r"
                             % (backend,))
        self._prec = _precision(precision)
        self.dtype = np.dtype(np.float32 if self._prec == L.SMV_F32
                              else np.float64)
        f32v = self._prec == L.SMV_F64_F32V
        if f32v:
            if backend == "cpu":
                raise ValueError(
                    "smv: precision 'f64-f32v' runs on the GPU only (the CPU "
                    "has no product with float32 values and float64 "
                    "vectors); use backend='cuda' (or 'auto' with a GPU), "
                    "or precision 'float64' or 'float32' on the CPU")
            backend = "cuda"  # 'auto' cannot fall back to the CPU
        device = check_int(device, "device")
        opts = _matrix_options(reuse)
        self._opts = opts  # kept alive while the library reads it
        t = _csr_triple(A, shape)
        if isinstance(t, dict) and backend == "cpu":
            raise ValueError("smv: the CSR arrays are on the GPU; "
                             "backend='cpu' needs host arrays")
        if t is not None and not isinstance(t, dict):
            A, t = t, None  # host arrays: a scipy matrix
        dev = t or (_device_sparse(A) if backend != "cpu" else None)
        if dev is not None:
            self._init_device(dev, backend, device, opts)
            return
        shape, self._indptr, self._indices, self._data = _to_csr(A)
        self.shape = shape
        self.nnz = len(self._data)
        self._csr = _csr_struct(shape, self._indptr, self._indices,
                                self._data)
        try:
            self._ctx = _open_context(backend, device)
        except L.SmvError as e:
            if not f32v:
                raise
            raise L.SmvError(e.status, "smv: precision 'f64-f32v' runs on "
                             "the GPU only, and none is usable: %s" % e) \
                from None
        self.device = device if self._ctx else None
        if self._ctx:
            dA = ctypes.c_void_p()
            st = L.matrix_create_ex(self._ctx, ctypes.byref(self._csr),
                                    self._prec,
                                    ctypes.byref(opts) if opts else None,
                                    ctypes.byref(dA))
            if st != L.SMV_OK:
                try:
                    L.check(st, "smv_matrix_create", self._ctx)
                finally:
                    self.close()
            self._dA = dA
            self.backend = "cuda"
            self._cuda = True
        else:
            L.check(L.csr_check(ctypes.byref(self._csr), None),
                    "smv_csr_check")
            self.backend = "cpu"

    def _init_device(self, d, backend, device, opts=None):
        """Build from CSR arrays on the GPU (smv_matrix_create_device), on
        the stream of the library that made them."""
        rows, cols = d["shape"]
        lib = d["lib"]
        nnz = d["nnz"] if lib == "raw" else int(
            d["indices"].numel() if lib == "torch" else d["indices"].size)
        if rows > L.INT32_MAX or cols > L.INT32_MAX or nnz > L.INT32_MAX:
            raise OverflowError(
                "smv: a %d x %d matrix with %d stored entries exceeds smv's "
                "int32 indices and offsets (at most %d each)"
                % (rows, cols, nnz, L.INT32_MAX))
        if device not in (0, d["device"]):
            raise ValueError("smv: the matrix is on GPU %d, device=%d asked"
                             % (d["device"], device))
        device = d["device"]
        if lib == "raw":
            ptrs, vdt = d["ptrs"], d["vdt"]
        else:
            ptrs, vdt = self._lib_arrays(d, lib)
        self._ctx = _open_context(backend, device)
        if not self._ctx:
            raise L.SmvError(L.SMV_ERR_NO_DEVICE,
                             "smv: a matrix on the GPU needs the CUDA "
                             "library and a GPU (smv.has_cuda() is False)")
        self.device = device
        self._set_stream(_array.stream_handle(d["stream"]))
        dA = ctypes.c_void_p()
        st = L.matrix_create_device(
            self._ctx, rows, cols, nnz, ptrs[0], ptrs[1], ptrs[2],
            L.SMV_F64 if vdt == "float64" else L.SMV_F32, self._prec,
            ctypes.byref(opts) if opts else None, ctypes.byref(dA))
        if st != L.SMV_OK:
            try:
                L.check(st, "smv_matrix_create_device", self._ctx)
            finally:
                self.close()
        self._dA = dA
        self.shape = (rows, cols)
        self.nnz = nnz
        self._diag_fn = d["diag"]
        self._keep = None  # the matrix owns copies: the sources may go
        self.backend = "cuda"
        self._cuda = True

    def _lib_arrays(self, d, lib):
        """CuPy/torch CSR arrays as int32 offsets and indices and float
        values, contiguous, on their device: the three pointers and the
        values' dtype name. The arrays are kept until the matrix is built
        (self._keep)."""
        indptr = _int32_device(d["indptr"], "row offsets", lib)
        indices = _int32_device(d["indices"], "column indices", lib)
        data = d["data"]
        vdt = str(data.dtype).replace("torch.", "")
        if vdt not in ("float64", "float32"):
            data = data.astype("float64") if lib == "cupy" else \
                data.to(__import__("torch").float64)
            vdt = "float64"
        if lib == "torch":
            data = data.contiguous()
            self._keep = (indptr, indices, data)
            return [indptr.data_ptr(), indices.data_ptr(),
                    data.data_ptr()], vdt
        import cupy

        indptr, indices, data = (cupy.ascontiguousarray(a) for a in
                                 (indptr, indices, data))
        self._keep = (indptr, indices, data)
        return [indptr.data.ptr, indices.data.ptr, data.data.ptr], vdt

    # ---- life cycle -----------------------------------------------------
    def close(self):
        """Free the device matrix and context. Waits for products in
        flight in other threads; idempotent (also when called from several
        threads at once: one of them frees)."""
        cv = getattr(self, "_cv", None)
        if cv is None:
            return
        with cv:
            if self._closed:
                return
            self._closed = True
            while self._busy:
                cv.wait()
        # Device products hold _ctx_lock for their launch: taking it waits
        # for the one in flight, and the next sees _dA None.
        with self._ctx_lock:
            dA, ctx, AT = self._dA, self._ctx, self._AT
            self._dA = self._ctx = self._AT = None
            self._cuda = False
            self._yring = ([], [])
        if dA:
            L.matrix_free(dA)
        if ctx:
            L.context_free(ctx)
        if AT:
            L.csr_free(AT)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self):
        return "<smv.Matrix %dx%d, %d entries, %s, %s>" % (
            self.shape[0], self.shape[1], self.nnz, self.precision,
            self.backend)

    @property
    def precision(self):
        """'float64', 'float32' or 'f64-f32v' (the precision asked for;
        f64-f32v's vectors are float64: self.dtype)."""
        return PREC_NAME[self._prec]

    def f32v_bound(self, x, alpha=1.0, beta=0.0, y0=None):
        """Per row i, a bound on |y_i - y_exact_i| for y = alpha A x +
        beta y0 computed in precision 'f64-f32v' (smv_spmv_f32v_bound,
        evaluated on the host in float64 from this Matrix's float64
        values, for any precision; docs/engine.md derives it). Against a
        float64 result rather than the exact one allow twice it. x and y0
        may be host or device arrays (read to the host); returns a numpy
        array of rows entries (NaN or Inf where A, x or y0 hold one)."""
        self._live()
        if self._csr is None:
            raise ValueError(
                "smv: this Matrix was built from device arrays and keeps no "
                "host CSR; call smv.f32v_bound on the matrix itself")
        return f32v_bound_csr(self._csr, self.shape, x, alpha, beta, y0)

    def _enter(self):
        with self._cv:
            if self._closed:
                raise ValueError("smv.Matrix: used after close()")
            self._busy += 1

    def _leave(self):
        with self._cv:
            self._busy -= 1
            if not self._busy:
                self._cv.notify_all()

    def _live(self):
        if self._closed:
            raise ValueError("smv.Matrix: used after close()")

    def _set_stream(self, s):
        """Set the context's stream (caller holds _ctx_lock or is alone)."""
        if s != self._stream:
            L.check(L.context_set_stream(self._ctx, s),
                    "smv_context_set_stream", self._ctx)
            self._stream = s

    @property
    def T(self):
        """The transpose as an operator (A^T products, no copy made here:
        on the GPU A^T is built on its first product)."""
        return _Transposed(self)

    # ---- products -------------------------------------------------------
    def _vector(self, x, n, name):
        x = _array.to_host(x)
        if np.iscomplexobj(x):
            raise TypeError("smv: complex vectors are not supported")
        if x.ndim == 2 and 1 in x.shape:
            x = x.reshape(-1)
        if x.ndim != 1 or x.shape[0] != n:
            raise ValueError("smv: %s has shape %s, expected (%d,)"
                             % (name, x.shape, n))
        return x

    def _check_dev(self, v, name, shape):
        """A device array's checks: backend, GPU, dtype, shape."""
        if self.backend != "cuda":
            raise ValueError(
                "smv: %s is a device array (%s) but this Matrix is on the "
                "CPU (backend='cpu'): pass a numpy array, or make the Matrix "
                "with backend='cuda'" % (name, v.kind.name))
        if v.device is not None and v.device != self.device:
            raise ValueError("smv: %s is on GPU %d; this Matrix is on GPU %d"
                             % (name, v.device, self.device))
        if v.dtype != self.dtype:
            raise TypeError(
                "smv: %s is %s; this Matrix computes in %s: convert it "
                "(x.astype('%s')) or make the Matrix with precision='%s'"
                % (name, v.dtype, self.dtype.name, self.dtype.name,
                   v.dtype if v.dtype.kind == "f" else self.dtype.name))
        if tuple(v.shape) != shape:
            if len(shape) == 1:
                raise ValueError("smv: %s has shape %s, expected (%d,)"
                                 % (name, tuple(v.shape), shape[0]))
            raise ValueError("smv: %s has shape %s, expected %s"
                             % (name, tuple(v.shape), shape))

    def spmv(self, x, y=None, alpha=1.0, beta=0.0, transpose=False,
             alg="auto", stream=None):
        """alpha * op(A) x + beta * y (op(A) = A, or A^T with
        transpose=True).

        numpy x: returns a new numpy array (y, if given, is read, not
        modified). Device x (CuPy, PyTorch, JAX, Numba, any
        __cuda_array_interface__ or CUDA __dlpack__ object) of the
        Matrix's dtype, length and GPU: no copy, the product runs on x's
        stream (the library's current stream, the interface's `stream`
        field, or `stream=`: an int handle or a CuPy/PyTorch stream) and
        returns without synchronising; the result is of x's library. A
        strided (non-contiguous) device x is copied once to a contiguous
        array first. With a device y (contiguous, of the Matrix's dtype),
        y is written in place and returned: no allocation per call.
        alg: an SpMV rung of smv.SPMV_ALGS (GPU)."""
        a = L.parse_alg(alg)
        if a is None:
            raise ValueError("smv: unknown SpMV algorithm %r (one of %s)"
                             % (alg, ", ".join(SPMV_ALGS)))
        v = None if type(x) is np.ndarray else _array.read_device(x, stream)
        if v is None:
            return self._spmv_host(x, y, alpha, beta, transpose, a)
        return self._spmv_dev(v, y, alpha, beta, transpose, a)

    def _spmv_dev(self, v, y, alpha, beta, transpose, a):
        m, n = self.shape
        if transpose:
            m, n = n, m
        self._check_dev(v, "x", (n,))
        if not v.contig:
            st = v.stream
            v = v.kind.read(v.kind.contiguous(v.obj))
            v.stream = st
        if y is None:
            if beta != 0.0:
                raise ValueError("smv: beta != 0 needs y")
            if isinstance(v.kind, _array.DlpackKind):
                out = v.kind.result_empty((m,), self.dtype, self.device)
                vy = _array.read_device(out)
            else:
                out = v.kind.empty((m,), self.dtype, v.obj)
                vy = v.kind.read(out)
        else:
            out = y
            vy = _array.read_device(y)
            if vy is None:
                raise TypeError("smv: y must be a device array like x (got "
                                "%s)" % type(y).__name__)
            self._check_dev(vy, "y", (m,))
            if getattr(y, "requires_grad", False):
                raise ValueError("smv: y requires grad: smv writes it in "
                                 "place, outside autograd (as torch refuses "
                                 "in-place writes to such a leaf); pass a "
                                 "tensor without requires_grad")
            if not vy.contig:
                raise ValueError("smv: y must be contiguous (it is written "
                                 "in place)")
        f = L.spmv_t if transpose else L.spmv
        with self._ctx_lock:
            if self._dA is None:
                raise ValueError("smv.Matrix: used after close()")
            if v.stream != self._stream:
                self._set_stream(v.stream)
            st = f(self._ctx, a, alpha, self._dA, v.ptr, beta, vy.ptr)
            if st:
                L.check(st, "smv_spmv%s" % ("_t" if transpose else ""),
                        self._ctx)
        if y is None and isinstance(v.kind, _array.DlpackKind):
            return v.kind._wrap(v.obj, out)
        return out

    def _spmv_host(self, x, y, alpha, beta, transpose, a):
        like = x
        m, n = self.shape
        if transpose:
            m, n = n, m
        x = self._vector(x, n, "x")
        if beta != 0.0 and y is None:
            raise ValueError("smv: beta != 0 needs y")
        out = (np.zeros(m) if y is None else
               np.array(self._vector(y, m, "y"), dtype=np.float64))
        self._enter()
        try:
            if self.backend == "cuda":
                xd = _array.aligned(x, np.float64, "x")
                f = L.spmv_t_host if transpose else L.spmv_host
                with self._ctx_lock:
                    L.check(f(self._ctx, a, alpha, self._dA, _dptr(xd), beta,
                              _dptr(out)),
                            "smv_spmv%s_host%s" % (
                                "_t" if transpose else "",
                                "" if transpose else "_vectors"),
                            self._ctx)
                r = out.astype(self.dtype, copy=False)
            elif self._prec == L.SMV_F32:
                A = ctypes.byref(self._csr)
                if transpose:
                    A = self._transposed()
                xf = _array.aligned(x, np.float32, "x")
                yf = out.astype(np.float32)
                L.check(L.spmv_cpu_f32(A, alpha, _fptr(xf), beta, _fptr(yf)),
                        "smv_spmv_cpu_f32")
                r = yf
            else:
                xd = _array.aligned(x, np.float64, "x")
                f = L.spmv_cpu_t if transpose else L.spmv_cpu
                L.check(f(ctypes.byref(self._csr), alpha, _dptr(xd), beta,
                          _dptr(out)),
                        "smv_spmv_cpu%s" % ("_t" if transpose else ""))
                r = out
        finally:
            self._leave()
        return _array.host_result(like, r)

    def _transposed(self):
        with self._cv:  # built once, whichever thread asks first
            if not self._AT:
                p = L.CSR_P()
                L.check(L.csr_transpose(ctypes.byref(self._csr),
                                        ctypes.byref(p)),
                        "smv_csr_transpose")
                self._AT = p
            return self._AT

    def matvec(self, x, y=None, stream=None):
        """A x (see spmv for device arrays, y= and streams)."""
        if stream is None and self._cuda:
            r = _fast.run(self, x, y, False)
            if r is not None:
                return r
        return self.spmv(x, y=y, stream=stream)

    def rmatvec(self, x, y=None, stream=None):
        """A^T x (the transpose is built once, on first use)."""
        if stream is None and self._cuda:
            r = _fast.run(self, x, y, True)
            if r is not None:
                return r
        return self.spmv(x, y=y, transpose=True, stream=stream)

    def matmat(self, X, alg="auto", Y=None, stream=None):
        """A X for a dense X of shape (cols, k): row-major (C-ordered) X
        runs smv's row-major kernel, Fortran-ordered X the column-major
        one; the result has X's order. X may be a device array (as for
        spmv: the caller's library, stream and GPU; a strided X is copied
        once); Y= a device output of shape (rows, k) in X's order."""
        a = L.parse_alg(alg, spmm=True)
        if a is None:
            raise ValueError("smv: unknown SpMM algorithm %r (one of %s)"
                             % (alg, ", ".join(SPMM_ALGS)))
        v = None if type(X) is np.ndarray else _array.read_device(X, stream)
        if v is not None:
            if len(v.shape) == 1:
                return self.spmv(X, y=Y, stream=stream)
            return self._matmat_dev(v, a, Y)
        like = X
        m, n = self.shape
        X = _array.to_host(X)
        if np.iscomplexobj(X):
            raise TypeError("smv: complex matrices are not supported")
        if X.ndim == 1:
            return self.matvec(like)
        if X.ndim != 2 or X.shape[0] != n:
            raise ValueError("smv: X has shape %s, expected (%d, k)"
                             % (X.shape, n))
        k = check_int(X.shape[1], "k (the columns of X)")
        if k == 0:
            return np.zeros((m, 0), dtype=self.dtype)
        fortran = X.flags.f_contiguous and not X.flags.c_contiguous
        order = "F" if fortran else "C"
        layout = L.SMV_LAYOUT_COL_MAJOR if fortran else L.SMV_LAYOUT_ROW_MAJOR
        Xd = _array.aligned(X, np.float64, "X", order=order)
        Y = np.zeros((m, k), dtype=np.float64, order=order)
        ldx = max(n, 1) if fortran else k
        ldy = max(m, 1) if fortran else k
        self._enter()
        try:
            if self.backend == "cuda":
                with self._ctx_lock:
                    L.check(L.spmm_host(self._ctx, a, 1.0, self._dA,
                                        _dptr(Xd), ldx, 0.0, _dptr(Y), ldy, k,
                                        layout),
                            "smv_spmm_host", self._ctx)
            else:
                L.check(L.spmm_cpu(ctypes.byref(self._csr), 1.0, _dptr(Xd),
                                   ldx, 0.0, _dptr(Y), ldy, k, layout),
                        "smv_spmm_cpu")
        finally:
            self._leave()
        return _array.host_result(like, Y.astype(self.dtype, copy=False))

    def _matmat_dev(self, v, a, Y):
        m, n = self.shape
        if len(v.shape) != 2:
            raise ValueError("smv: X has shape %s, expected (%d, k)"
                             % (tuple(v.shape), n))
        k = check_int(v.shape[1], "k (the columns of X)")
        self._check_dev(v, "X", (n, k))
        if not v.contig and not v.fortran:
            st = v.stream
            v = v.kind.read(v.kind.contiguous(v.obj))
            v.stream = st
        order = "F" if v.fortran else "C"
        layout = L.SMV_LAYOUT_COL_MAJOR if v.fortran else \
            L.SMV_LAYOUT_ROW_MAJOR
        if Y is None:
            if isinstance(v.kind, _array.DlpackKind):
                out = v.kind.result_empty((m, k), self.dtype, self.device,
                                          order)
            else:
                out = v.kind.empty((m, k), self.dtype, v.obj, order)
        else:
            out = Y
        vy = _array.read_device(out)
        if vy is None:
            raise TypeError("smv: Y must be a device array like X")
        self._check_dev(vy, "Y", (m, k))
        if (not vy.fortran) if v.fortran else (not vy.contig):
            raise ValueError("smv: Y must be contiguous in X's order (%s)"
                             % order)
        ldx = max(n, 1) if v.fortran else k
        ldy = max(m, 1) if v.fortran else k
        if k == 0:
            return out
        self._enter()
        try:
            with self._ctx_lock:
                if v.stream != self._stream:
                    self._set_stream(v.stream)
                L.check(L.spmm(self._ctx, a, 1.0, self._dA, v.ptr, ldx, 0.0,
                               vy.ptr, ldy, k, layout), "smv_spmm", self._ctx)
        finally:
            self._leave()
        if Y is None and isinstance(v.kind, _array.DlpackKind):
            return v.kind._wrap(v.obj, out)
        return out

    def _rmatmat(self, X):
        """A^T X, column by column (no transposed SpMM in the library)."""
        v = None if type(X) is np.ndarray else _array.read_device(X)
        if v is None:
            like = X
            X = _array.to_host(X)
            if X.ndim == 1:
                return self.rmatvec(like)
            cols = [self.rmatvec(np.ascontiguousarray(X[:, c]))
                    for c in range(X.shape[1])]
            m = self.shape[1]
            out = (np.stack(cols, axis=1) if cols else
                   np.zeros((m, 0), dtype=self.dtype))
            return _array.host_result(like, out)
        if len(v.shape) == 1:
            return self.rmatvec(X)
        m, n = self.shape
        self._check_dev(v, "X", (m, v.shape[1]))
        if not v.fortran:  # columns contiguous: one copy in Fortran order
            st = v.stream
            v = v.kind.read(v.kind.contiguous(v.obj, "F"))
            v.stream = st
        k = v.shape[1]
        if isinstance(v.kind, _array.DlpackKind):
            out = v.kind.result_empty((n, k), self.dtype, self.device, "F")
        else:
            out = v.kind.empty((n, k), self.dtype, v.obj, "F")
        vy = _array.read_device(out)
        es = self.dtype.itemsize
        self._enter()
        try:
            with self._ctx_lock:
                if v.stream != self._stream:
                    self._set_stream(v.stream)
                for c in range(k):
                    L.check(L.spmv_t(self._ctx, 0, 1.0, self._dA,
                                     v.ptr + c * m * es, 0.0,
                                     vy.ptr + c * n * es),
                            "smv_spmv_t", self._ctx)
        finally:
            self._leave()
        if isinstance(v.kind, _array.DlpackKind):
            return v.kind._wrap(v.obj, out)
        return out

    def dot(self, x):
        """A @ x (scipy's .dot): 1-D x gives A x, 2-D X gives A X."""
        return self.__matmul__(x)

    def __matmul__(self, X):
        if self._cuda:
            # _fast.run inline: the product's host cost is what `M @ x`
            # is about (bench/results/<device>/python.md).
            f = _fast.FAST.get(type(X), _fast.UNSEEN)
            if f is _fast.UNSEEN:
                f = _fast.fast_for(type(X))
            if f is not None:
                r = f(self, X, None, False)
                if r is not None:
                    return r
        nd = _ndim(X)
        return self.matvec(X) if nd == 1 else self.matmat(X)

    def __rmatmul__(self, X):
        """x @ A = (A^T x^T)^T: a 1-D x gives A^T x, a 2-D X (k, rows)
        gives (A^T X^T)^T of shape (k, cols)."""
        nd = _ndim(X)
        if nd == 1:
            return self.rmatvec(X)
        return self._rmatmat(X.T).T

    # ---- solvers (include/smv_solve.h) ------------------------------------
    def solve(self, b, method="cg", x0=None, tol=1e-8, maxiter=1000,
              precond="jacobi", history=False, alg="auto", atol=0.0,
              M=None, callback=None, rtol=None):
        """Solve A x = b with CG (A symmetric positive definite) or
        BiCGStab (method='bicgstab') on this matrix's backend and
        precision, reusing its device copy; returns (x, info). See
        smv.cg for the arguments; `alg` picks the GPU's SpMV rung."""
        self._live()
        return _solve.solve(self, method, b, x0, tol if rtol is None
                            else rtol, maxiter, precond, history, alg,
                            atol=atol, Mop=M, callback=callback)

    def pagerank(self, damping=0.85, tol=1e-10, maxiter=1000,
                 personalization=None, pattern=False, history=False,
                 alg="auto"):
        """PageRank of the graph with links i -> j weighted by A[i, j]
        (pattern=True: weight 1 for every stored entry); returns
        (r, info). See smv.pagerank."""
        self._live()
        if self._csr is None:
            raise ValueError(
                "smv: this Matrix was built from device arrays and keeps no "
                "host CSR; call smv.pagerank on the CuPy/torch matrix itself")
        return pagerank_csr(self.shape, self._indptr, self._indices,
                            self._data, self._ctx, self._prec, pattern,
                            damping, tol, maxiter, personalization, history,
                            alg)

    def diagonal(self):
        """The main diagonal as a float64 numpy array (computed once)."""
        if self._diag is None:
            if self._csr is not None:
                m, n = self.shape
                d = np.zeros(min(m, n))
                rows = np.repeat(np.arange(m), np.diff(self._indptr))
                on = rows == self._indices
                np.add.at(d, rows[on], self._data[on])
                self._diag = d
            else:
                self._diag = np.asarray(self._diag_fn(), dtype=np.float64)
        return self._diag

    def aslinearoperator(self, module="scipy"):
        """A LinearOperator backed by this matrix: module='scipy' gives a
        scipy.sparse.linalg.LinearOperator (numpy vectors), 'cupy' a
        cupyx.scipy.sparse.linalg.LinearOperator (CuPy vectors, products
        on the device without copies)."""
        if module == "scipy":
            from scipy.sparse.linalg import LinearOperator
        elif module == "cupy":
            from cupyx.scipy.sparse.linalg import LinearOperator
        else:
            raise ValueError("smv: module must be 'scipy' or 'cupy', not %r"
                             % (module,))
        return LinearOperator(self.shape, matvec=self.matvec,
                              rmatvec=self.rmatvec, matmat=self.matmat,
                              dtype=self.dtype)


class _Transposed:
    """M.T: the transposed product as an operator (shape reversed)."""

    ndim = 2
    __array_ufunc__ = None

    def __init__(self, M):
        self._M = M
        self.shape = (M.shape[1], M.shape[0])
        self.dtype = M.dtype
        self.nnz = M.nnz

    @property
    def T(self):
        return self._M

    def matvec(self, x, y=None, stream=None):
        return self._M.rmatvec(x, y=y, stream=stream)

    def rmatvec(self, x, y=None, stream=None):
        return self._M.matvec(x, y=y, stream=stream)

    def matmat(self, X):
        return self._M._rmatmat(X)

    def dot(self, x):
        return self @ x

    def __matmul__(self, X):
        if self._M._cuda:
            r = _fast.run(self._M, X, None, True)
            if r is not None:
                return r
        nd = _ndim(X)
        return self.matvec(X) if nd == 1 else self.matmat(X)

    def __rmatmul__(self, X):
        nd = _ndim(X)
        if nd == 1:
            return self._M.matvec(X)
        return self._M.matmat(X.T).T

    def aslinearoperator(self, module="scipy"):
        return self._M.aslinearoperator(module).T

    def __repr__(self):
        return "<transpose of %r>" % (self._M,)
