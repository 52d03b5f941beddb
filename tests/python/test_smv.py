"""Tests of the Python package (python/smv) against scipy: SpMV, transposed
SpMV, SpMM (both orders), on the CPU backend and, where there is a GPU, the
CUDA backend in float64 and float32; LinearOperator with scipy's cg and
gmres; errors. Run by `make test` through tests/python/run.sh."""

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from smv_testing import BACKENDS, HAS_CUDA, PRECISIONS, smv


def rng(seed=0):
    return np.random.default_rng(seed)


def random_matrix(m, n, density, seed=0, fmt="csr"):
    r = rng(seed)
    A = sp.random(m, n, density=density, format="coo", random_state=seed,
                  data_rvs=lambda k: r.uniform(-1, 1, k))
    return A.asformat(fmt)


def bound(A, x, prec):
    """|A| |x| per row times a generous multiple of the rounding unit and
    the row length: the usual forward error bound of a dot product."""
    eps = np.finfo(np.float32 if prec == "float32" else np.float64).eps
    absA = abs(sp.csr_matrix(A))
    rowlen = np.diff(sp.csr_matrix(A).indptr)
    ax = absA @ np.abs(x)
    if ax.ndim == 2:
        rowlen = rowlen[:, None]
    return 4 * eps * (rowlen + 2) * ax + 1e-300


def assert_close(got, want, b):
    assert got.shape == want.shape
    assert np.all(np.isfinite(got))
    err = np.abs(got.astype(np.float64) - want)
    assert np.all(err <= b), "max err/bound %g" % np.max(err / b)


def as_prec(A, x, prec):
    """The reference's inputs rounded like the engine rounds them."""
    if prec == "float32":
        A = sp.csr_matrix(A, dtype=np.float32).astype(np.float64)
        x = x.astype(np.float32).astype(np.float64)
    return A, x


SHAPES = [(1, 1, 1.0), (50, 50, 0.2), (400, 300, 0.02), (300, 2000, 0.01),
          (3000, 3000, 0.002)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_matvec_rmatvec(backend, prec, shape, fmt):
    m, n, d = shape
    A = random_matrix(m, n, d, seed=m + n, fmt=fmt)
    x = rng(1).uniform(-1, 1, n)
    u = rng(2).uniform(-1, 1, m)
    with smv.Matrix(A, backend=backend, precision=prec) as M:
        assert M.backend == backend and M.shape == (m, n)
        y = M.matvec(x)
        assert y.dtype == np.dtype(prec)
        Ar, xr = as_prec(A, x, prec)
        assert_close(y, Ar @ xr, bound(Ar, xr, prec))
        z = M.rmatvec(u)
        Ar, ur = as_prec(A, u, prec)
        assert_close(z, Ar.T @ ur, bound(Ar.T, ur, prec))
        z2 = M.rmatvec(u)  # the transpose is reused
        assert np.array_equal(z, z2)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
@pytest.mark.parametrize("k", [1, 3, 4, 16, 33, 64])
@pytest.mark.parametrize("order", ["C", "F"])
def test_matmat(backend, prec, k, order):
    A = random_matrix(700, 500, 0.01, seed=k)
    X = np.asarray(rng(k).uniform(-1, 1, (500, k)), order=order)
    with smv.Matrix(A, backend=backend, precision=prec) as M:
        Y = M.matmat(X)
        assert Y.shape == (700, k)
        # SpMM on the GPU computes in the precision; on the CPU in float64,
        # rounded to the precision at the end (within the float32 bound).
        Ar, Xr = as_prec(A, X, prec) if backend == "cuda" else (A, X)
        assert_close(Y, Ar @ Xr, bound(Ar, Xr, prec))
        assert np.allclose(M @ X, Y)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")
@pytest.mark.parametrize("alg", list(smv.SPMM_ALGS))
def test_matmat_algorithms(alg):
    A = random_matrix(600, 600, 0.01, seed=5)
    X = rng(5).uniform(-1, 1, (600, 16))
    with smv.Matrix(A, backend="cuda") as M:
        try:
            Y = M.matmat(X, alg=alg)
        except smv.SmvError as e:  # cuSPARSE may refuse a layout
            assert e.name == "SMV_ERR_UNSUPPORTED", str(e)
            pytest.skip("cuSPARSE refuses %s row-major: %s" % (alg, e))
        assert_close(Y, A @ X, bound(A, X, "float64"))


@pytest.mark.parametrize("backend", BACKENDS)
def test_alpha_beta_and_alg(backend):
    A = random_matrix(200, 150, 0.05, seed=3)
    x = rng(3).uniform(-1, 1, 150)
    y0 = rng(4).uniform(-1, 1, 200)
    with smv.Matrix(A, backend=backend) as M:
        y = M.spmv(x, y0, alpha=-0.5, beta=2.0)
        assert_close(y, -0.5 * (A @ x) + 2 * y0,
                     bound(A, x, "float64") + 8e-16 * np.abs(y0))
        if backend == "cuda":
            for alg in smv.SPMV_ALGS:
                assert_close(M.spmv(x, alg=alg), A @ x, bound(A, x, "float64"))


def tol(solver):
    """Relative tolerance 1e-10, absolute 0, by the names this scipy uses
    (rtol since 1.12, tol before)."""
    name = "rtol" if "rtol" in inspect.signature(solver).parameters else "tol"
    return {name: 1e-10, "atol": 0.0}


@pytest.mark.parametrize("backend", BACKENDS)
def test_linear_operator_cg_gmres(backend):
    n = 400
    # SPD: 1-D Laplacian plus a diagonal shift.
    A = sp.diags([-1, 2.5, -1], [-1, 0, 1], shape=(n, n), format="csr")
    b = rng(7).uniform(-1, 1, n)
    op = smv.aslinearoperator(A, backend=backend)
    assert op.shape == (n, n)
    x, info = spla.cg(op, b, maxiter=2000, **tol(spla.cg))
    assert info == 0
    assert np.linalg.norm(A @ x - b) <= 1e-8 * np.linalg.norm(b)
    N = A + sp.diags([0.3], [2], shape=(n, n))  # nonsymmetric
    opn = smv.aslinearoperator(N, backend=backend)
    x, info = spla.gmres(opn, b, restart=50, maxiter=200, **tol(spla.gmres))
    assert info == 0
    assert np.linalg.norm(N @ x - b) <= 1e-8 * np.linalg.norm(b)
    # rmatvec and matmat through the operator
    u = rng(8).uniform(-1, 1, n)
    assert_close(opn.rmatvec(u), N.T @ u, bound(N.T, u, "float64"))
    X = rng(9).uniform(-1, 1, (n, 5))
    assert_close(opn.matmat(X), N @ X, bound(N, X, "float64"))


def test_one_shot_functions():
    A = random_matrix(100, 80, 0.1, seed=11)
    x = rng(11).uniform(-1, 1, 80)
    assert_close(smv.spmv(A, x), A @ x, bound(A, x, "float64"))
    u = rng(12).uniform(-1, 1, 100)
    assert_close(smv.spmv(A, u, transpose=True), A.T @ u,
                 bound(A.T, u, "float64"))
    X = rng(13).uniform(-1, 1, (80, 6))
    assert_close(smv.spmm(A, X), A @ X, bound(A, X, "float64"))
    assert smv.version().count(".") == 2


def test_empty_and_degenerate():
    for backend in ["cpu"] + (["cuda"] if HAS_CUDA else []):
        A = sp.csr_matrix((5, 7))
        with smv.Matrix(A, backend=backend) as M:
            assert np.array_equal(M.matvec(np.ones(7)), np.zeros(5))
            assert np.array_equal(M.rmatvec(np.ones(5)), np.zeros(7))
            assert M.matmat(np.ones((7, 3))).shape == (5, 3)
            assert M.matmat(np.ones((7, 0))).shape == (5, 0)
        # duplicates in COO are summed, as scipy does
        C = sp.coo_matrix(([1.0, 2.0, 3.0], ([0, 0, 1], [1, 1, 0])),
                          shape=(2, 2))
        with smv.Matrix(C, backend=backend) as M:
            assert np.allclose(M.matvec([1.0, 1.0]), [3.0, 3.0])


def test_errors():
    A = random_matrix(20, 10, 0.3, seed=1)
    with smv.Matrix(A, backend="cpu") as M:
        with pytest.raises(ValueError, match="expected"):
            M.matvec(np.ones(11))
        with pytest.raises(ValueError, match="expected"):
            M.rmatvec(np.ones(10))
        with pytest.raises(ValueError):
            M.matmat(np.ones((9, 2)))
        with pytest.raises(ValueError, match="beta"):
            M.spmv(np.ones(10), beta=1.0)
        with pytest.raises(TypeError):
            M.matvec(np.ones(10) * 1j)
    with pytest.raises(TypeError, match="scipy.sparse"):
        smv.Matrix(np.ones((3, 3)))
    with pytest.raises(ValueError, match="backend"):
        smv.Matrix(A, backend="tpu")
    with pytest.raises(ValueError, match="precision"):
        smv.Matrix(A, precision="float16")
    with pytest.raises(TypeError, match="complex"):
        smv.Matrix(sp.csr_matrix(np.eye(3) * 1j))
    # Beyond int32: refused with a clear error before anything is built.
    big = sp.csr_matrix((1, 2**31))
    with pytest.raises(OverflowError, match="int32"):
        smv.Matrix(big)
    if not HAS_CUDA:
        with pytest.raises(smv.SmvError) as e:
            smv.Matrix(A, backend="cuda")
        assert e.value.name == "SMV_ERR_NO_DEVICE"
        assert "smv_context_create" in str(e.value)


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")
def test_cuda_errors_carry_smv_message():
    A = random_matrix(20, 10, 0.3, seed=1)
    M = smv.Matrix(A, backend="cuda")
    with pytest.raises(ValueError, match="unknown SpMM algorithm"):
        M.matmat(np.ones((10, 4)), alg="cusparse-alg9")
    M.close()
    with pytest.raises(ValueError, match="close"):
        M.matvec(np.ones(10))
    # An invalid algorithm number through the C API names the call.
    from smv import _lib as L
    import ctypes
    ctx = ctypes.c_void_p()
    assert L.context_create(0, ctypes.byref(ctx)) == 0
    y = np.zeros(3)
    st = L.spmv_host(ctx, 99, 1.0, None, y.ctypes.data_as(L.c_double_p), 0.0,
                     y.ctypes.data_as(L.c_double_p))
    with pytest.raises(smv.SmvError, match="NULL matrix"):
        L.check(st, "smv_spmv_host", ctx)
    L.context_free(ctx)


def test_alg_names_as_the_library_reads_them():
    """Python takes algorithm names through the library's parser, so rung
    10's former name 'stream' (documented as kept) still selects it."""
    A = sp.random(50, 40, density=0.1, format="csr", random_state=5)
    x = np.random.default_rng(5).standard_normal(40)
    M = smv.Matrix(A, backend="cpu")
    assert_close(M.spmv(x, alg="stream"), A @ x, bound(A, x, "float64"))
    with pytest.raises(ValueError, match="unknown SpMV algorithm"):
        M.spmv(x, alg="nope")
