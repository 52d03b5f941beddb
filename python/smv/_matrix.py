"""smv.Matrix: a sparse matrix prepared once for repeated products on the
GPU (the CUDA engine: uploaded and analysed once) or the CPU (OpenMP)."""

import ctypes

import numpy as np

from . import _lib as L
from . import _solve

_PREC = {"float64": L.SMV_F64, "double": L.SMV_F64, "f64": L.SMV_F64,
         "float32": L.SMV_F32, "single": L.SMV_F32, "f32": L.SMV_F32}

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
        raise ValueError("precision must be 'float64' or 'float32', not %r"
                         % (p,)) from None


def _to_csr(A):
    """A scipy.sparse matrix (csr, csc, coo, ... or array) as a canonical
    CSR with int32 indices and float64 values (duplicates summed, columns
    sorted). Refuses sizes beyond int32 and complex values."""
    import scipy.sparse as sp

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


def _dptr(a):
    return a.ctypes.data_as(L.c_double_p)


def _fptr(a):
    return a.ctypes.data_as(L.c_float_p)


class Matrix:
    """A sparse matrix ready for y = A x, y = A^T x and Y = A X.

    Matrix(A, backend='auto', precision='float64', device=0)
      A          a scipy.sparse matrix (csr, csc, coo, ...); converted once
                 to CSR with int32 indices and float64 values.
      backend    'cuda' (the GPU; an error if there is none), 'cpu'
                 (OpenMP), or 'auto' (the GPU if there is one, else the CPU).
      precision  'float64' or 'float32': the values and arithmetic on the
                 GPU; on the CPU float32 applies to matvec/rmatvec (SpMM on
                 the CPU computes in float64). Results come back in this
                 dtype.

    The device copy (or the CPU's CSR) is kept until close() (or the end of
    a `with` block) so repeated products pay only for the vectors.
    """

    def __init__(self, A, backend="auto", precision="float64", device=0):
        if backend not in ("auto", "cpu", "cuda"):
            raise ValueError("backend must be 'auto', 'cpu' or 'cuda', not %r"
                             % (backend,))
        self._prec = _precision(precision)
        self.dtype = np.dtype(np.float64 if self._prec == L.SMV_F64
                              else np.float32)
        self._ctx = None
        self._dA = None
        self._AT = None  # CPU float32: the CSR of A^T (library-allocated)
        shape, self._indptr, self._indices, self._data = _to_csr(A)
        self.shape = shape
        self.nnz = len(self._data)
        self._csr = _csr_struct(shape, self._indptr, self._indices,
                                self._data)
        self._ctx = open_context(backend, device)
        if self._ctx:
            dA = ctypes.c_void_p()
            st = L.matrix_create(self._ctx, ctypes.byref(self._csr),
                                 self._prec, ctypes.byref(dA))
            if st != L.SMV_OK:
                try:
                    L.check(st, "smv_matrix_create", self._ctx)
                finally:
                    self.close()
            self._dA = dA
            self.backend = "cuda"
        else:
            L.check(L.csr_check(ctypes.byref(self._csr), None),
                    "smv_csr_check")
            self.backend = "cpu"

    # ---- life cycle -----------------------------------------------------
    def close(self):
        """Free the device matrix and context (idempotent)."""
        if getattr(self, "_dA", None):
            L.matrix_free(self._dA)
            self._dA = None
        if getattr(self, "_ctx", None):
            L.context_free(self._ctx)
            self._ctx = None
        if getattr(self, "_AT", None):
            L.csr_free(self._AT)
            self._AT = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __repr__(self):
        return "<smv.Matrix %dx%d, %d entries, %s, %s>" % (
            self.shape[0], self.shape[1], self.nnz, self.dtype.name,
            self.backend)

    def _live(self):
        if self.backend == "cuda" and not self._dA:
            raise ValueError("smv.Matrix: used after close()")

    # ---- products -------------------------------------------------------
    def _vector(self, x, n, name):
        x = np.asarray(x)
        if np.iscomplexobj(x):
            raise TypeError("smv: complex vectors are not supported")
        if x.ndim == 2 and 1 in x.shape:
            x = x.reshape(-1)
        if x.ndim != 1 or x.shape[0] != n:
            raise ValueError("smv: %s has shape %s, expected (%d,)"
                             % (name, x.shape, n))
        return x

    def spmv(self, x, y=None, alpha=1.0, beta=0.0, transpose=False,
             alg="auto"):
        """alpha * op(A) x + beta * y (op(A) = A, or A^T with
        transpose=True); returns a new array (y is not modified)."""
        self._live()
        m, n = self.shape
        if transpose:
            m, n = n, m
        x = self._vector(x, n, "x")
        if beta != 0.0 and y is None:
            raise ValueError("smv: beta != 0 needs y")
        out = (np.zeros(m) if y is None else
               np.array(self._vector(y, m, "y"), dtype=np.float64))
        if self.backend == "cuda":
            xd = np.ascontiguousarray(x, dtype=np.float64)
            a = SPMV_ALGS.get(alg)
            if a is None:
                raise ValueError("smv: unknown SpMV algorithm %r (one of %s)"
                                 % (alg, ", ".join(SPMV_ALGS)))
            f = L.spmv_t_host if transpose else L.spmv_host
            L.check(f(self._ctx, a, alpha, self._dA, _dptr(xd), beta,
                      _dptr(out)),
                    "smv_spmv%s_host" % ("_t" if transpose else ""),
                    self._ctx)
            return out.astype(self.dtype, copy=False)
        if self._prec == L.SMV_F32:
            A = ctypes.byref(self._csr)
            if transpose:
                A = self._transposed()
            xf = np.ascontiguousarray(x, dtype=np.float32)
            yf = out.astype(np.float32)
            L.check(L.spmv_cpu_f32(A, alpha, _fptr(xf), beta, _fptr(yf)),
                    "smv_spmv_cpu_f32")
            return yf
        xd = np.ascontiguousarray(x, dtype=np.float64)
        f = L.spmv_cpu_t if transpose else L.spmv_cpu
        L.check(f(ctypes.byref(self._csr), alpha, _dptr(xd), beta,
                  _dptr(out)),
                "smv_spmv_cpu%s" % ("_t" if transpose else ""))
        return out

    def _transposed(self):
        if not self._AT:
            p = L.CSR_P()
            L.check(L.csr_transpose(ctypes.byref(self._csr), ctypes.byref(p)),
                    "smv_csr_transpose")
            self._AT = p
        return self._AT

    def matvec(self, x):
        """A x."""
        return self.spmv(x)

    def rmatvec(self, x):
        """A^T x (the transpose is built once, on first use)."""
        return self.spmv(x, transpose=True)

    def matmat(self, X, alg="auto"):
        """A X for a dense X of shape (cols, k): row-major (C-ordered) X
        runs smv's row-major kernel, Fortran-ordered X the column-major
        one; the result has X's order."""
        self._live()
        m, n = self.shape
        X = np.asarray(X)
        if np.iscomplexobj(X):
            raise TypeError("smv: complex matrices are not supported")
        if X.ndim == 1:
            return self.matvec(X)
        if X.ndim != 2 or X.shape[0] != n:
            raise ValueError("smv: X has shape %s, expected (%d, k)"
                             % (X.shape, n))
        k = X.shape[1]
        if k == 0:
            return np.zeros((m, 0), dtype=self.dtype)
        fortran = X.flags.f_contiguous and not X.flags.c_contiguous
        order = "F" if fortran else "C"
        layout = L.SMV_LAYOUT_COL_MAJOR if fortran else L.SMV_LAYOUT_ROW_MAJOR
        Xd = np.asarray(X, dtype=np.float64, order=order)
        Y = np.zeros((m, k), dtype=np.float64, order=order)
        ldx = max(n, 1) if fortran else k
        ldy = max(m, 1) if fortran else k
        if self.backend == "cuda":
            a = SPMM_ALGS.get(alg)
            if a is None:
                raise ValueError("smv: unknown SpMM algorithm %r (one of %s)"
                                 % (alg, ", ".join(SPMM_ALGS)))
            L.check(L.spmm_host(self._ctx, a, 1.0, self._dA, _dptr(Xd), ldx,
                                0.0, _dptr(Y), ldy, k, layout),
                    "smv_spmm_host", self._ctx)
        else:
            L.check(L.spmm_cpu(ctypes.byref(self._csr), 1.0, _dptr(Xd), ldx,
                               0.0, _dptr(Y), ldy, k, layout),
                    "smv_spmm_cpu")
        return Y.astype(self.dtype, copy=False)

    # ---- solvers (include/smv_solve.h) ------------------------------------
    def solve(self, b, method="cg", x0=None, tol=1e-8, maxiter=1000,
              precond="jacobi", history=False, alg="auto"):
        """Solve A x = b with CG (A symmetric positive definite) or
        BiCGStab (method='bicgstab') on this matrix's backend and
        precision, reusing its device copy; returns (x, info). See
        smv.cg for the arguments; `alg` picks the GPU's SpMV rung."""
        self._live()
        return _solve.solve(self, method, b, x0, tol, maxiter, precond,
                            history, alg)

    def pagerank(self, damping=0.85, tol=1e-10, maxiter=1000,
                 personalization=None, pattern=False, history=False,
                 alg="auto"):
        """PageRank of the graph with links i -> j weighted by A[i, j]
        (pattern=True: weight 1 for every stored entry); returns
        (r, info). See smv.pagerank."""
        self._live()
        return pagerank_csr(self.shape, self._indptr, self._indices,
                            self._data, self._ctx, self._prec, pattern,
                            damping, tol, maxiter, personalization, history,
                            alg)

    def __matmul__(self, X):
        X = np.asarray(X)
        return self.matvec(X) if X.ndim == 1 else self.matmat(X)

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator backed by this matrix."""
        from scipy.sparse.linalg import LinearOperator

        return LinearOperator(self.shape, matvec=self.matvec,
                              rmatvec=self.rmatvec, matmat=self.matmat,
                              dtype=self.dtype)
