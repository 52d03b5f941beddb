"""Tests of the Python solvers (smv.cg, smv.bicgstab, smv.pagerank,
Matrix.solve, Matrix.pagerank) against scipy's spsolve and a numpy power
iteration, on the CPU backend and, where there is a GPU, the CUDA backend;
float64 and float32. Run by `make test` through tests/python/run.sh."""

import ctypes

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.linalg import spsolve

from smv_testing import BACKENDS, HAS_CUDA, PRECISIONS, smv
from smv import _lib as L  # after smv_testing: the source tree's smv

# Stopping threshold per precision, and the relative error of x against
# spsolve it must give on the matrices below (condition numbers ~ 1e3).
TOL = {"float64": 1e-10, "float32": 1e-5}
XERR = {"float64": 1e-6, "float32": 2e-2}


def laplacian2d(k):
    """The 5-point Laplacian on a k x k grid (n = k^2, SPD, diagonal 4)."""
    T = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))
    eye = sp.identity(k)
    return (sp.kron(T, eye) + sp.kron(eye, T)).tocsr()


def scaled_laplacian(k, seed=0):
    """S L S with S = diag(1..30 at random): SPD, badly scaled, so that
    Jacobi preconditioning pays."""
    s = np.random.default_rng(seed).uniform(1.0, 30.0, k * k)
    S = sp.diags(s)
    return (S @ laplacian2d(k) @ S).tocsr()


def nonsymmetric(n, seed=0):
    """A random nonsymmetric matrix made strictly diagonally dominant."""
    r = np.random.default_rng(seed)
    R = sp.random(n, n, density=8.0 / n, format="csr", random_state=seed,
                  data_rvs=lambda m: r.uniform(-1, 1, m))
    R = (R - sp.diags(R.diagonal())).tocsr()
    R.eliminate_zeros()
    d = np.asarray(abs(R).sum(axis=1)).ravel() + r.uniform(0.5, 2.0, n)
    return (R + sp.diags(d)).tocsr()


def rhs(n, seed=1):
    return np.random.default_rng(seed).uniform(-1, 1, n)


def relerr(x, ref):
    return np.linalg.norm(x.astype(np.float64) - ref) / np.linalg.norm(ref)


def true_relres(A, x, b):
    return np.linalg.norm(b - A @ x.astype(np.float64)) / np.linalg.norm(b)


# ---- CG ------------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
@pytest.mark.parametrize("precond", ["jacobi", "none", "chebyshev"])
def test_cg_laplacian_matches_spsolve(backend, prec, precond):
    A = laplacian2d(24)
    b = rhs(A.shape[0])
    x, info = smv.cg(A, b, tol=TOL[prec], precond=precond, backend=backend,
                     precision=prec)
    assert x.dtype == np.dtype(prec) and x.shape == b.shape
    assert info.method == "cg" and info.backend == backend
    assert info.precision == prec
    assert info.converged and not info.breakdown
    assert 0 < info.iterations < 1000
    assert info.relres <= TOL[prec]
    assert info.seconds >= 0.0 and info.history is None
    assert relerr(x, spsolve(A.tocsc(), b)) <= XERR[prec]
    # The recurrence's residual follows the true one (f64 closely).
    assert true_relres(A, x, b) <= (1e-8 if prec == "float64" else 1e-3)
    if backend == "cuda":
        # CG runs as the persistent kernel on a matrix this small, except
        # with Chebyshev (the graph path).
        assert info.persistent == (precond != "chebyshev")
        assert info.graph_used == (precond == "chebyshev")
        assert info.checks >= 1
        # Which kernel: the resident one (predict-and-recompute) by default
        # on a matrix this small.
        assert info.kernel == (None if precond == "chebyshev"
                               else "cg-resident-pr")
    else:
        assert not info.persistent and not info.graph_used
        assert info.kernel is None
    assert not info.precision_limited


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
def test_cg_jacobi_on_badly_scaled(backend, prec):
    A = scaled_laplacian(16)
    b = rhs(A.shape[0], seed=2)
    ref = spsolve(A.tocsc(), b)
    xj, ij = smv.cg(A, b, tol=TOL[prec], maxiter=5000, precond="jacobi",
                    backend=backend, precision=prec)
    xn, inn = smv.cg(A, b, tol=TOL[prec], maxiter=5000, precond="none",
                     backend=backend, precision=prec)
    # float32 without a preconditioner may stop at what float vectors can
    # hold: then the true residual misses tol and it says so (issue 25
    # item 12) instead of claiming convergence.
    assert ij.converged
    assert inn.converged or (prec == "float32" and inn.precision_limited)
    # Jacobi undoes the scaling: far fewer iterations than plain CG.
    assert ij.iterations < inn.iterations
    assert relerr(xj, ref) <= XERR[prec]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cg_x0_honoured(backend):
    A = laplacian2d(20)
    b = rhs(A.shape[0], seed=3)
    ref = spsolve(A.tocsc(), b)
    # maxiter=0: x is the initial guess, untouched.
    x0 = rhs(A.shape[0], seed=4)
    x, info = smv.cg(A, b, x0=x0, maxiter=0, backend=backend)
    assert info.iterations == 0 and not info.converged
    assert np.array_equal(x, x0)
    # A start close to the solution converges in fewer iterations.
    _, cold = smv.cg(A, b, tol=1e-10, backend=backend)
    near = ref + 1e-6 * x0
    x, warm = smv.cg(A, b, x0=near, tol=1e-10, backend=backend,
                     history=True)
    assert warm.converged and warm.iterations < cold.iterations
    assert relerr(x, ref) <= 1e-6
    # history[0] is the start's residual ||b - A x0|| / ||b||, small here.
    assert warm.history[0] == pytest.approx(true_relres(A, near, b),
                                            rel=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_maxiter_and_history(backend, method):
    A = laplacian2d(20)
    b = rhs(A.shape[0], seed=5)
    solver = getattr(smv, method)
    x, info = solver(A, b, tol=1e-14, maxiter=5, backend=backend,
                     history=True)
    assert not info.converged and info.iterations == 5
    assert np.all(np.isfinite(x))
    # history[k]: relres after k iterations, k = 0..iterations.
    assert len(info.history) == info.iterations + 1
    assert info.history[0] == pytest.approx(1.0)  # x0 = 0: r = b
    assert info.history[-1] == info.relres
    x, info = solver(A, b, tol=1e-8, backend=backend, history=True)
    assert info.converged
    assert len(info.history) == info.iterations + 1
    assert info.history[-1] == info.relres <= 1e-8
    assert np.all(info.history[:-1] > 1e-8)  # it stopped at the first hit


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_rhs_and_maxiter_none(backend):
    A = laplacian2d(10)
    x, info = smv.cg(A, np.zeros(100), x0=np.ones(100), backend=backend)
    assert np.array_equal(x, np.zeros(100))
    assert info.converged and info.iterations == 0
    # maxiter=None: scipy's 10 n.
    x, info = smv.cg(A, rhs(100), maxiter=None, backend=backend)
    assert info.converged


@pytest.mark.parametrize("backend", BACKENDS)
def test_deterministic(backend):
    A = laplacian2d(20)
    b = rhs(A.shape[0], seed=6)
    x1, i1 = smv.cg(A, b, backend=backend)
    x2, i2 = smv.cg(A, b, backend=backend)
    assert np.array_equal(x1, x2) and i1.iterations == i2.iterations


# ---- BiCGStab ------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
@pytest.mark.parametrize("precond", ["jacobi", "none"])
def test_bicgstab_nonsymmetric(backend, prec, precond):
    A = nonsymmetric(600)
    assert abs(A - A.T).max() > 0.1  # really nonsymmetric
    b = rhs(600, seed=7)
    x, info = smv.bicgstab(A, b, tol=TOL[prec], precond=precond,
                           backend=backend, precision=prec)
    assert info.method == "bicgstab" and info.converged
    assert not info.breakdown and info.relres <= TOL[prec]
    assert x.dtype == np.dtype(prec)
    assert relerr(x, spsolve(A.tocsc(), b)) <= XERR[prec]
    assert true_relres(A, x, b) <= (1e-8 if prec == "float64" else 1e-3)


# ---- Matrix reuse --------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
def test_matrix_reuse(backend, prec):
    A = laplacian2d(16)
    b = rhs(A.shape[0], seed=8)
    with smv.Matrix(A, backend=backend, precision=prec) as M:
        x1, i1 = M.solve(b, tol=TOL[prec])
        x2, i2 = smv.cg(M, b, tol=TOL[prec])  # the same device matrix
        assert np.array_equal(x1, x2) and i1 == i2._replace(
            seconds=i1.seconds)
        assert i1.backend == backend and i1.precision == prec
        x3, i3 = M.solve(b, method="bicgstab", tol=TOL[prec])
        ref = spsolve(A.tocsc(), b)
        assert i3.converged and relerr(x3, ref) <= XERR[prec]
        # The products still work after a solve.
        assert np.allclose(M.matvec(x1), A @ x1.astype(np.float64),
                           rtol=1e-4 if prec == "float32" else 1e-12)
        other = "float32" if prec == "float64" else "float64"
        with pytest.raises(ValueError, match="precision"):
            smv.cg(M, b, precision=other)
        with pytest.raises(ValueError, match="backend"):
            smv.cg(M, b, backend="cpu" if backend == "cuda" else "cuda")
    if backend == "cuda":
        with pytest.raises(ValueError, match="close"):
            M.solve(b)
        with pytest.raises(ValueError, match="close"):
            M.pagerank()


@pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")
def test_cuda_matches_cpu_and_algs():
    A = nonsymmetric(500, seed=3)
    b = rhs(500, seed=9)
    xc, ic = smv.bicgstab(A, b, tol=1e-12, backend="cpu")
    for alg in ("auto", "adaptive", "tiled", "cusparse-alg1"):
        with smv.Matrix(A, backend="cuda") as M:
            xg, ig = M.solve(b, method="bicgstab", tol=1e-12, alg=alg)
        assert ig.converged and relerr(xg, xc) <= 1e-9
        assert abs(ig.iterations - ic.iterations) <= 2


# ---- errors --------------------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_solver_errors(backend):
    A = laplacian2d(6)
    b = rhs(36)
    rect = sp.random(6, 5, density=0.5, format="csr", random_state=1)
    for f in (smv.cg, smv.bicgstab):
        with pytest.raises(ValueError, match="square"):
            f(rect, np.ones(6), backend=backend)
    with pytest.raises(ValueError, match="square"):
        smv.pagerank(rect, backend=backend)
    with pytest.raises(ValueError, match="expected"):
        smv.cg(A, np.ones(35), backend=backend)
    with pytest.raises(ValueError, match="x0"):
        smv.cg(A, b, x0=np.ones(37), backend=backend)
    with pytest.raises(ValueError, match="finite"):
        smv.cg(A, b, x0=np.full(36, np.nan), backend=backend)
    with pytest.raises(ValueError, match="precond"):
        smv.cg(A, b, precond="ilu", backend=backend)
    with pytest.raises(ValueError, match="method"):
        smv.Matrix(A, backend=backend).solve(b, method="gmres")
    with pytest.raises(TypeError, match="maxiter"):
        smv.cg(A, b, maxiter=10.5, backend=backend)
    with pytest.raises(ValueError, match="algorithm"):
        smv.Matrix(A, backend=backend).solve(b, alg="nope")
    # The library's own checks come back as SmvError with smv's message.
    with pytest.raises(smv.SmvError, match="tol must be") as e:
        smv.cg(A, b, tol=-1.0, backend=backend)
    assert e.value.name == "SMV_ERR_ARG"
    with pytest.raises(smv.SmvError, match="maxit must be"):
        smv.cg(A, b, maxiter=-1, backend=backend)
    with pytest.raises(smv.SmvError, match="not finite"):
        smv.cg(A, np.r_[b[:-1], np.inf], backend=backend)
    Z = A.tolil()
    Z[3, 3] = 0.0
    Z = Z.tocsr()
    with pytest.raises(smv.SmvError, match="row 4") as e:
        smv.cg(Z, b, precond="jacobi", backend=backend)
    assert e.value.name == "SMV_ERR_ARG"


# ---- PageRank ------------------------------------------------------------


def pagerank_reference(W, d=0.85, v=None, steps=5000):
    """Power iteration of smv_solve.h's step, in numpy, dense:
    r' = d P^T r + d (sum of dangling r) / n + (1 - d) v, P = W / out."""
    W = np.asarray(W.todense() if sp.issparse(W) else W, dtype=np.float64)
    n = W.shape[0]
    out = W.sum(axis=1)
    dangling = out == 0
    P = np.zeros_like(W)
    P[~dangling] = W[~dangling] / out[~dangling, None]
    v = np.full(n, 1.0 / n) if v is None else np.asarray(v) / np.sum(v)
    r = v.copy()
    for _ in range(steps):
        new = d * (P.T @ r) + d * r[dangling].sum() / n + (1 - d) * v
        if np.abs(new - r).sum() <= 1e-15:
            return new
        r = new
    return r


# Five nodes; node 3 has no out-links (dangling); weighted links.
GRAPH = sp.csr_matrix(np.array([
    [0.0, 2.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 3.0, 0.0, 1.0],
    [1.0, 0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [0.5, 0.0, 0.0, 4.0, 0.0],
]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", PRECISIONS)
def test_pagerank_small_graph(backend, prec):
    ref = pagerank_reference(GRAPH)
    tol = 1e-12 if prec == "float64" else 1e-6
    r, info = smv.pagerank(GRAPH, tol=tol, backend=backend, precision=prec,
                           history=True)
    assert r.dtype == np.dtype(prec) and r.shape == (5,)
    assert info.method == "pagerank" and info.converged
    assert info.backend == backend and info.relres <= tol
    assert len(info.history) == info.iterations + 1
    assert np.all(r > 0) and abs(r.sum() - 1.0) <= 1e-6
    assert np.max(np.abs(r - ref)) <= (1e-10 if prec == "float64" else 1e-5)
    # damping and personalization
    v = np.array([1.0, 0.0, 0.0, 0.0, 3.0])
    r, info = smv.pagerank(GRAPH, damping=0.5, personalization=v, tol=tol,
                           backend=backend, precision=prec)
    ref = pagerank_reference(GRAPH, d=0.5, v=v)
    assert np.max(np.abs(r - ref)) <= (1e-10 if prec == "float64" else 1e-5)
    # pattern=True: every stored entry a link of weight 1.
    r, _ = smv.pagerank(GRAPH, pattern=True, tol=tol, backend=backend,
                        precision=prec)
    ref = pagerank_reference(GRAPH != 0)
    assert np.max(np.abs(r - ref)) <= (1e-10 if prec == "float64" else 1e-5)
    assert np.max(np.abs(ref - pagerank_reference(GRAPH))) > 1e-3


@pytest.mark.parametrize("backend", BACKENDS)
def test_pagerank_random_graph_and_matrix(backend):
    n = 300
    G = sp.random(n, n, density=0.02, format="csr", random_state=4)
    G = sp.lil_matrix(G.multiply(G > 0.3))
    G[5, :] = 0.0  # a dangling row, at least
    G = sp.csr_matrix(G)
    G.eliminate_zeros()
    assert np.diff(G.indptr)[5] == 0
    ref = pagerank_reference(G)
    with smv.Matrix(G, backend=backend) as M:
        r, info = M.pagerank(tol=1e-12)
        assert info.converged and np.max(np.abs(r - ref)) <= 1e-10
        r2, _ = smv.pagerank(M, tol=1e-12)
        assert np.array_equal(r, r2)
    # maxiter reached
    r, info = smv.pagerank(G, tol=0.0, maxiter=3, backend=backend)
    assert not info.converged and info.iterations == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_pagerank_errors(backend):
    neg = GRAPH.copy()
    neg[0, 1] = -1.0
    with pytest.raises(smv.SmvError, match="weights") as e:
        smv.pagerank(neg, backend=backend)
    assert e.value.name == "SMV_ERR_ARG"
    # pattern=True ignores the values, the negative one included.
    r, info = smv.pagerank(neg, pattern=True, backend=backend)
    assert info.converged
    with pytest.raises(smv.SmvError, match="damping"):
        smv.pagerank(GRAPH, damping=1.0, backend=backend)
    with pytest.raises(smv.SmvError, match="personalization"):
        smv.pagerank(GRAPH, personalization=np.zeros(5), backend=backend)
    with pytest.raises(ValueError, match="personalization"):
        smv.pagerank(GRAPH, personalization=np.ones(4), backend=backend)


# ---- bindings ------------------------------------------------------------


def test_struct_layout_matches_library():
    """smv_solve_options_init writes sizeof(smv_solve_options) bytes: a
    canary past ctypes' size stays intact only if the sizes agree, and the
    defaults read back through the right offsets."""
    size = ctypes.sizeof(L.SolveOptions)
    buf = (ctypes.c_ubyte * (size + 64))(*([0xAB] * (size + 64)))
    L.solve_options_init(ctypes.cast(buf, L.OPT_P))
    assert bytes(buf[size:]) == b"\xab" * 64
    o = L.SolveOptions.from_buffer(buf)
    assert (o.tol, o.maxit, o.precond, o.use_x0) == (1e-8, 1000, 0, 0)
    assert not o.history and o.history_len == 0 and not o.progress
    assert (o.progress_every, o.alg, o.check_every, o.use_graph) == (0, 0,
                                                                     0, 1)
    assert o.damping == 0.85 and not o.personalization
    # smv_cg clears sizeof(smv_solve_result) bytes of the result first.
    size = ctypes.sizeof(L.SolveResult)
    buf = (ctypes.c_ubyte * (size + 64))(*([0xAB] * (size + 64)))
    A = smv.Matrix(laplacian2d(4), backend="cpu")
    b, x = np.ones(16), np.zeros(16)
    err = L.Error()
    assert L.cg(ctypes.byref(A._csr), b.ctypes.data_as(L.c_double_p),
                x.ctypes.data_as(L.c_double_p), None,
                ctypes.cast(buf, L.RES_P), ctypes.byref(err)) == 0
    assert bytes(buf[size:]) == b"\xab" * 64
    res = L.SolveResult.from_buffer(buf)
    assert res.converged == 1 and 0 < res.iterations <= 16
    assert 0 <= res.relres <= 1e-8 and res.breakdown == 0
    assert res.history_count == 0 and res.graph_used == 0
    assert res.checks == 0 and 0 <= res.seconds < 10
    assert np.allclose(laplacian2d(4) @ x, b)


def test_alg_tables_come_from_the_library():
    assert smv.SPMV_ALGS["tiled"] == 10
    for name, i in smv.SPMV_ALGS.items():
        assert L.alg_name(i).decode() == name
    assert L.alg_name(len(smv.SPMV_ALGS)) is None
    assert smv.SPMM_ALGS["ours"] == 1
