"""The scipy-shaped surface (shape, dtype, nnz, .T, .dot, M @ x, x @ M,
aslinearoperator, the solvers' scipy keywords, __version__), numpy's DLPack,
and issue 25's hardening (close under threads, int64 indices, misaligned
buffers, integer ranges). On the CPU backend, and on the GPU's where there
is one (host arrays there; device arrays: test_device.py)."""

import subprocess
import sys
import threading

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from smv_testing import BACKENDS, HAS_CUDA, smv


def mat(m=60, n=40, seed=0):
    r = np.random.default_rng(seed)
    A = sp.random(m, n, density=0.1, format="csr", random_state=seed,
                  data_rvs=lambda k: r.uniform(-1, 1, k))
    return A


def spd(n=200):
    T = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n))
    return sp.csr_matrix(T)


def test_version():
    assert smv.__version__ == smv.version()
    assert smv.__version__.count(".") == 2


def test_python_dash_m():
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(smv.__path__[0]), env.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-m", "smv"], capture_output=True,
                         text=True, check=True, env=env).stdout
    assert "smv %s" % smv.__version__ in out
    assert "library: " in out and "gpu: " in out


@pytest.mark.parametrize("backend", BACKENDS)
def test_shape_dtype_T_dot_matmul(backend):
    A = mat()
    x, u = np.arange(40.0), np.linspace(-1, 1, 60)
    X, U = np.ones((40, 3)) * np.arange(3), np.ones((5, 60))
    with smv.Matrix(A, backend=backend) as M:
        assert M.shape == (60, 40) and M.ndim == 2
        assert M.dtype == np.float64 and M.nnz == A.nnz
        assert M.T.shape == (40, 60) and M.T.T is M and M.T.nnz == A.nnz
        np.testing.assert_allclose(M.dot(x), A @ x, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(M @ X, A @ X, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(M.T @ u, A.T @ u, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(M.T.dot(u), A.T @ u, rtol=1e-13,
                                   atol=1e-13)
        np.testing.assert_allclose(u @ M, u @ A, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(U @ M, U @ A, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(M.T @ np.ones((60, 2)),
                                   A.T @ np.ones((60, 2)), rtol=1e-13,
                                   atol=1e-13)
        np.testing.assert_allclose(x @ M.T, A @ x, rtol=1e-13, atol=1e-13)
        op = M.T.aslinearoperator()
        assert op.shape == (40, 60)
        np.testing.assert_allclose(op @ u, A.T @ u, rtol=1e-13, atol=1e-13)


def test_numpy_dlpack_in_numpy_out():
    """An object known only by its __dlpack__ (numpy's DLPack on the
    CPU) is read through it; the result is numpy."""

    class Only:
        def __init__(self, a):
            self.a = a

        def __dlpack__(self, stream=None):
            return self.a.__dlpack__()

        def __dlpack_device__(self):
            return self.a.__dlpack_device__()

    A = mat()
    x = np.random.default_rng(1).uniform(-1, 1, 40)
    with smv.Matrix(A, backend="cpu") as M:
        y = M.matvec(Only(x))
        assert type(y) is np.ndarray
        np.testing.assert_allclose(y, A @ x, rtol=1e-13, atol=1e-13)
        Y = M.matmat(Only(np.ones((40, 2))))
        np.testing.assert_allclose(Y, A @ np.ones((40, 2)), rtol=1e-13)


def test_aslinearoperator_module():
    A = mat()
    op = smv.aslinearoperator(A, backend="cpu", module="scipy")
    assert isinstance(op, spla.LinearOperator)
    with pytest.raises(ValueError, match="module"):
        smv.aslinearoperator(A, backend="cpu", module="jax")


@pytest.mark.parametrize("backend", BACKENDS)
def test_solver_scipy_keywords(backend):
    A = spd()
    b = np.ones(200)
    x, info = smv.cg(A, b, rtol=1e-10, atol=0.0, maxiter=500,
                     backend=backend)
    assert info.converged
    np.testing.assert_allclose(A @ x, b, atol=1e-8)
    x2, _ = smv.cg(A, b, tol=1e-10, backend=backend)  # former name
    np.testing.assert_array_equal(x, x2)
    with pytest.raises(TypeError, match="rtol or tol"):
        smv.cg(A, b, rtol=1e-3, tol=1e-3, backend=backend)
    # atol: scipy's max(rtol ||b||, atol): a loose atol stops earlier.
    _, loose = smv.cg(A, b, rtol=0.0, atol=1e-2, backend=backend)
    _, tight = smv.cg(A, b, rtol=0.0, atol=1e-9, backend=backend)
    assert loose.converged and tight.converged
    assert loose.iterations < tight.iterations
    x, info = smv.bicgstab(A, b, rtol=1e-10, M="none", backend=backend)
    assert info.converged
    np.testing.assert_allclose(A @ x, b, atol=1e-8)


@pytest.mark.parametrize("method", ["cg", "bicgstab"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_solver_M_operator_and_callback(method, backend):
    A = spd()
    b = np.random.default_rng(3).uniform(-1, 1, 200)
    d = A.diagonal()
    Minv = spla.LinearOperator(A.shape, matvec=lambda r: r / d,
                               dtype=np.float64)
    seen = []
    solver = getattr(smv, method)
    x, info = solver(A, b, rtol=1e-10, M=Minv, callback=seen.append,
                     backend=backend)
    assert info.converged and info.iterations == len(seen) > 0
    assert np.allclose(seen[-1], x)
    np.testing.assert_allclose(A @ x, b, atol=1e-8)
    # A callback alone runs the Python iteration with smv's Jacobi.
    x2, info2 = solver(A, b, rtol=1e-10, callback=lambda xk: None,
                       backend=backend, history=True)
    assert info2.converged and len(info2.history) == info2.iterations + 1
    np.testing.assert_allclose(A @ x2, b, atol=1e-8)
    # A plain callable is a preconditioner too.
    x3, info3 = solver(A, b, rtol=1e-10, M=lambda r: r / d, backend=backend)
    assert info3.converged


# ---- issue 25, item 1: close() and threads --------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", ["float64", "float32"])
def test_close_during_products(backend, prec):
    """close() while other threads run products (rmatvec in float32 on
    the CPU was a use-after-free): products either finish or raise
    ValueError('used after close'), never crash; the matrix is freed
    once."""
    A = sp.random(3000, 3000, density=0.003, format="csr", random_state=1)
    x = np.ones(3000)
    for _ in range(5):
        M = smv.Matrix(A, backend=backend, precision=prec)
        errors, done = [], []
        start = threading.Barrier(5)

        def work():
            start.wait()
            try:
                for _ in range(200):
                    M.rmatvec(x)
                    M.matvec(x)
                done.append(1)
            except ValueError as e:
                if "after close" not in str(e):
                    errors.append(e)
            except Exception as e:  # pragma: no cover - the failure
                errors.append(e)

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        start.wait()
        M.close()
        for t in ts:
            t.join()
        assert not errors, errors
        with pytest.raises(ValueError, match="after close"):
            M.matvec(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_concurrent_close_is_idempotent(backend):
    for _ in range(20):
        M = smv.Matrix(mat(), backend=backend)
        b = threading.Barrier(8)

        def shut():
            b.wait()
            M.close()

        ts = [threading.Thread(target=shut) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        M.close()
        assert M._dA is None and M._ctx is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_products_from_threads_agree(backend):
    A = mat(500, 400)
    x = np.random.default_rng(4).uniform(-1, 1, 400)
    want = A @ x
    with smv.Matrix(A, backend=backend) as M:
        got = []

        def run():
            for _ in range(50):
                got.append(M.matvec(x))

        ts = [threading.Thread(target=run) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert len(got) == 200
    for y in got:
        np.testing.assert_allclose(y, want, rtol=1e-12, atol=1e-12)


# ---- issue 25, item 2: int64 indices that do not fit ------------------------
def test_int64_indices_refused_before_cast():
    indptr = np.array([0, 1, 2], dtype=np.int64)
    A = sp.csr_matrix((np.ones(2), np.array([1, 0]), indptr), shape=(2, 3))
    # Set after construction (as a hand-built or corrupted matrix has
    # them): scipy does not look again, smv must.
    A.indices = np.array([2**32 + 1, 0], dtype=np.int64)
    A.indptr = indptr
    with pytest.raises(OverflowError, match="4294967297"):
        smv.Matrix(A, backend="cpu")
    C = sp.coo_matrix((np.ones(1), (np.array([0]), np.array([1]))),
                      shape=(1, 2))
    C.col = np.array([2**31], dtype=np.int64)  # scipy does not look again
    if C.col.dtype == np.int64:
        with pytest.raises(OverflowError, match="refused before casting"):
            smv.Matrix(C, backend="cpu")
    else:  # a scipy that casts on assignment (1.18): still refused
        with pytest.raises((OverflowError, smv.SmvError)):
            smv.Matrix(C, backend="cpu")
    # int64 indices that fit are fine.
    B = sp.csr_matrix((np.ones(2), np.array([2, 0], dtype=np.int64),
                       indptr), shape=(2, 3))
    with smv.Matrix(B, backend="cpu") as M:
        np.testing.assert_array_equal(M.matvec(np.array([1.0, 2, 3])),
                                      [3.0, 1.0])


# ---- issue 25, item 3: misaligned buffers, integer ranges --------------------
def misaligned(n, dtype=np.float64):
    raw = np.zeros(n * np.dtype(dtype).itemsize + 1, dtype=np.uint8)
    a = raw[1:].view(dtype)
    assert not a.flags.aligned
    a[:] = np.arange(n, dtype=dtype) + 1
    return a


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("prec", ["float64", "float32"])
def test_misaligned_numpy_copied(backend, prec):
    A = mat()
    x = misaligned(40, np.dtype(prec))
    with smv.Matrix(A, backend=backend, precision=prec) as M:
        y = M.matvec(x)
        tol = 1e-5 if prec == "float32" else 1e-13
        np.testing.assert_allclose(y, A @ x.astype(np.float64), rtol=tol,
                                   atol=tol)
        Y = M.matmat(misaligned(80).reshape(40, 2))
        np.testing.assert_allclose(Y, A @ (np.arange(80.0) + 1)
                                   .reshape(40, 2), rtol=tol, atol=tol)
    x, info = smv.cg(spd(), misaligned(200), rtol=1e-10, backend=backend)
    assert info.converged


def test_integer_arguments_named():
    A = spd(10)
    b = np.ones(10)
    with pytest.raises(OverflowError, match="maxiter.*history"):
        smv.cg(A, b, maxiter=2**31 - 1, history=True, backend="cpu")
    with pytest.raises(OverflowError, match="maxiter"):
        smv.cg(A, b, maxiter=2**31, backend="cpu")
    with pytest.raises(TypeError, match="maxiter"):
        smv.cg(A, b, maxiter=1.5, backend="cpu")
    with pytest.raises(OverflowError, match="device"):
        smv.Matrix(A, device=2**31)
    with pytest.raises(ValueError, match="device"):
        smv.Matrix(A, device=-1)
    with pytest.raises(TypeError, match="device"):
        smv.has_cuda("0")
    with smv.Matrix(mat(), backend="cpu") as M:
        X = np.lib.stride_tricks.as_strided(np.zeros(1), (40, 2**31),
                                            (0, 0))
        with pytest.raises(OverflowError, match="k"):
            M.matmat(X)


def test_matrix_repr_and_closed_errors():
    M = smv.Matrix(mat(), backend="cpu")
    assert "60x40" in repr(M)
    M.close()
    M.close()
    with pytest.raises(ValueError, match="after close"):
        M.matvec(np.ones(40))
    with pytest.raises(ValueError, match="after close"):
        M.solve(np.ones(60))


@pytest.mark.skipif(HAS_CUDA, reason="checks the CPU-only library")
def test_device_matrix_needs_cuda_message():
    with pytest.raises(smv.SmvError) as e:
        smv.Matrix(mat(), backend="cuda")
    assert e.value.name == "SMV_ERR_NO_DEVICE"


def test_csr_triple_on_the_host():
    A = mat()
    with smv.Matrix((A.data, A.indices, A.indptr), shape=A.shape,
                    backend="cpu") as M:
        assert M.shape == A.shape and M.nnz == A.nnz
        x = np.arange(40.0)
        np.testing.assert_allclose(M @ x, A @ x, rtol=1e-13, atol=1e-13)
    with pytest.raises(ValueError, match="shape"):
        smv.Matrix((A.data, A.indices, A.indptr), backend="cpu")
    big = A.indices.astype(np.int64)
    big[0] = 2**32 + 1
    with pytest.raises(OverflowError, match="indices"):
        smv.Matrix((A.data, big, A.indptr), shape=A.shape, backend="cpu")


def test_omp_waits_passive_by_default():
    """Issue 25 item 15: importing smv makes OpenMP's waits passive (set
    before libsmv, and with it libgomp, is loaded) unless the user chose a
    policy; a child process shows the import's effect on its own."""
    import os
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(smv.__file__)))
    code = ("import os, sys; sys.path.insert(0, %r); import smv; "
            "print(os.environ.get('OMP_WAIT_POLICY'))" % pkg)
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[-1] == "PASSIVE"
    env["OMP_WAIT_POLICY"] = "ACTIVE"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    assert out[-1] == "ACTIVE"
