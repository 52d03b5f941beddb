"""Precision 'f64-f32v' from Python (float64 vectors and sums, the matrix's
values stored as float32; include/smv.h SMV_F64_F32V): the arguments, the
refusals that need no GPU (the CPU backend, the solvers), Matrix.precision,
and smv.f32v_bound against the documented formula and against the mode's
product emulated on the host. Products on the GPU: test_device.py."""

import numpy as np
import pytest
import scipy.sparse as sp

from smv_testing import HAS_CUDA, smv

U = 2.0**-53
E32 = 2.0**-24
TINY = 2.0**-150


def mat(m=80, n=60, seed=0):
    r = np.random.default_rng(seed)
    A = sp.random(m, n, density=0.1, format="csr", random_state=seed,
                  data_rvs=lambda k: r.uniform(-3, 3, k) * 10.0**r.integers(
                      -4, 5, k))
    keep = np.ones(m)
    keep[3] = 0.0  # an empty row
    A = sp.csr_matrix(sp.diags(keep) @ A)
    A.eliminate_zeros()
    return A


def formula(A, x, alpha, beta, y0):
    """include/smv.h's bound, row by row, in float64."""
    A = sp.csr_matrix(A)
    a = np.abs(A.data)
    ni = np.diff(A.indptr)
    k = ni + 2.0
    g = k * U / (1 - k * U)
    absA = sp.csr_matrix((E32 * a + TINY, A.indices, A.indptr), A.shape)
    absA1 = sp.csr_matrix(((1 + E32) * a + TINY, A.indices, A.indptr),
                          A.shape)
    ax = np.abs(x)
    yb = abs(beta) * np.abs(y0) if y0 is not None else 0.0
    return abs(alpha) * (absA @ ax) + g * (abs(alpha) * (absA1 @ ax) + yb)


def test_precision_names_and_dtype():
    A = mat()
    with smv.Matrix(A, backend="cpu") as M:
        assert M.precision == "float64" and "float64" in repr(M)
    with smv.Matrix(A, backend="cpu", precision="f32") as M:
        assert M.precision == "float32" and M.dtype == np.float32
    with pytest.raises(ValueError, match="f64-f32v"):
        smv.Matrix(A, precision="float16")  # the message lists the modes


def test_rungs_that_run_f32v():
    # smv_alg_runs_precision needs no device: the rungs named in smv.h.
    L = smv._lib
    runs = {a for a, v in smv.SPMV_ALGS.items()
            if L.alg_runs_precision(v, L.SMV_F64_F32V)}
    assert runs == {"auto", "vector", "adaptive", "tiled"}
    assert all(L.alg_runs_precision(v, L.SMV_F64)
               for v in smv.SPMV_ALGS.values())


def test_cpu_backend_refuses_f32v():
    A = mat()
    with pytest.raises(ValueError, match="f64-f32v.*GPU only"):
        smv.Matrix(A, backend="cpu", precision="f64-f32v")
    with pytest.raises(ValueError, match="GPU only"):
        smv.spmv(A, np.ones(60), backend="cpu", precision="f64-f32v")


@pytest.mark.skipif(HAS_CUDA, reason="a GPU is usable here")
@pytest.mark.parametrize("backend", ["auto", "cuda"])
def test_f32v_without_gpu_never_falls_back(backend):
    # 'auto' would mean the CPU here, which has no such product: an error,
    # never an f64 product under the f64-f32v name.
    with pytest.raises(smv.SmvError) as e:
        smv.Matrix(mat(), backend=backend, precision="f64-f32v")
    assert e.value.name == "SMV_ERR_NO_DEVICE"
    assert "f64-f32v" in str(e.value)


def test_solvers_refuse_f32v():
    n = 50
    L = sp.csr_matrix(sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n)))
    b = np.ones(n)
    for fn in (smv.cg, smv.bicgstab):
        with pytest.raises(smv.SmvError, match="f64-f32v") as e:
            fn(L, b, precision="f64-f32v", backend="cpu")
        assert e.value.name == "SMV_ERR_UNSUPPORTED"
    with pytest.raises(smv.SmvError, match="f64-f32v") as e:
        smv.pagerank(abs(L), precision="f64-f32v", backend="cpu")
    assert e.value.name == "SMV_ERR_UNSUPPORTED"
    with smv.Matrix(L, backend="cpu") as M:
        with pytest.raises(ValueError, match="disagrees"):
            smv.cg(M, b, precision="float32")


@pytest.mark.parametrize("alpha,beta", [(1.0, 0.0), (-2.5, 0.0), (0.5, 3.0),
                                        (0.0, -1.0)])
def test_bound_is_the_documented_formula(alpha, beta):
    A = mat()
    r = np.random.default_rng(4)
    x = r.uniform(-2, 2, 60)
    y0 = r.uniform(-5, 5, 80) if beta else None
    b = smv.f32v_bound(A, x, alpha=alpha, beta=beta, y0=y0)
    f = formula(A, x, alpha, beta, y0)
    assert b.shape == (80,) and b.dtype == np.float64
    # The library rounds its evaluation up (by a relative 2 g(n_i + 4)):
    # never below the formula, and only that far above it.
    assert np.all(b >= f * (1 - 1e-14))
    assert np.all(b <= f * (1 + 1e-12))
    if beta == 0.0:
        assert b[3] == 0.0  # an empty row is exact
    with smv.Matrix(A, backend="cpu") as M:
        np.testing.assert_array_equal(
            M.f32v_bound(x, alpha=alpha, beta=beta, y0=y0), b)


def test_bound_covers_the_mode_emulated_on_the_host():
    # The mode's product is an f64 product with the values rounded to
    # f32; scipy computes that in f64 (left to right), which the bound's
    # summation term covers: against an f64 result, twice the bound.
    A = mat(200, 150, seed=7)
    x = np.random.default_rng(8).uniform(-1, 1, 150)
    A32 = sp.csr_matrix((A.data.astype(np.float32).astype(np.float64),
                         A.indices, A.indptr), A.shape)
    b = smv.f32v_bound(A, x)
    err = np.abs(A32 @ x - A @ x)
    assert np.all(err <= 2 * b)
    assert np.max(err) > 0  # the rounding of the values is seen
    # ... and the bound is not vacuous: within a few hundred times the
    # error actually made on some row.
    assert np.max(err / np.where(b > 0, b, 1)) > 1e-3


def test_bound_arguments():
    A = mat()
    x = np.ones(60)
    with pytest.raises(ValueError, match="x has shape"):
        smv.f32v_bound(A, np.ones(61))
    with pytest.raises(ValueError, match="needs y0"):
        smv.f32v_bound(A, x, beta=1.0)
    with pytest.raises(ValueError, match="y0 has shape"):
        smv.f32v_bound(A, x, beta=1.0, y0=np.ones(3))
    x[5] = np.nan
    b = smv.f32v_bound(A, x)
    touches = (A[:, 5] != 0).toarray().ravel()
    assert np.all(np.isnan(b[touches])) and np.all(np.isfinite(b[~touches]))
