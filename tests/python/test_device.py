"""Device arrays in and out (issue 21): CuPy and PyTorch (JAX where it has
a GPU) vectors and matrices, matrices built from device CSR, the caller's
stream, y= outputs, errors. Skipped without a GPU or without the library;
run on the GPU machine by scripts/gpu/python.sh (or
`SMV_LIB=build/libsmv.so python3 -m pytest tests/python`)."""

import numpy as np
import pytest
import scipy.sparse as sp

from smv_testing import HAS_CUDA, smv

pytestmark = pytest.mark.skipif(not HAS_CUDA, reason="no CUDA device")


def _imp(name):
    try:
        return __import__(name)
    except Exception:  # ImportError, or a CUDA library that fails to load
        return None


cupy = _imp("cupy") if HAS_CUDA else None
torch = _imp("torch") if HAS_CUDA else None
if torch is not None and not torch.cuda.is_available():
    torch = None
need_cupy = pytest.mark.skipif(cupy is None, reason="no CuPy")
need_torch = pytest.mark.skipif(torch is None, reason="no PyTorch with CUDA")
PRECS = ["float64", "float32"]
TOL = {"float64": 1e-12, "float32": 2e-5}


def host_matrix(m=700, n=500, density=0.02, seed=0):
    r = np.random.default_rng(seed)
    return sp.random(m, n, density=density, format="csr", random_state=seed,
                     data_rvs=lambda k: r.uniform(-1, 1, k))


def close(got, want, prec):
    got = np.asarray(got, dtype=np.float64)
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=TOL[prec],
                               atol=TOL[prec] * scale * 10)


# ---- CuPy ----------------------------------------------------------------
@need_cupy
@pytest.mark.parametrize("prec", PRECS)
def test_cupy_products(prec):
    A = host_matrix()
    x = np.random.default_rng(1).uniform(-1, 1, 500)
    u = np.random.default_rng(2).uniform(-1, 1, 700)
    X = np.random.default_rng(3).uniform(-1, 1, (500, 4))
    dt = np.dtype(prec)
    with smv.Matrix(A, backend="cuda", precision=prec) as M:
        y = M.matvec(cupy.asarray(x, dtype=dt))
        assert isinstance(y, cupy.ndarray) and y.dtype == dt
        close(y.get(), A @ x.astype(dt), prec)
        z = M.rmatvec(cupy.asarray(u, dtype=dt))
        close(z.get(), A.T @ u.astype(dt), prec)
        Y = M @ cupy.asarray(X, dtype=dt)
        assert isinstance(Y, cupy.ndarray) and Y.shape == (700, 4)
        close(Y.get(), A @ X.astype(dt), prec)
        YF = M @ cupy.asfortranarray(cupy.asarray(X, dtype=dt))
        assert YF.flags.f_contiguous
        close(YF.get(), A @ X.astype(dt), prec)
        close((cupy.asarray(u, dtype=dt) @ M).get(), u.astype(dt) @ A, prec)
        close((M.T @ cupy.asarray(u, dtype=dt)).get(), A.T @ u.astype(dt),
              prec)
        U = np.random.default_rng(4).uniform(-1, 1, (3, 700))
        close((cupy.asarray(U, dtype=dt) @ M).get(), U.astype(dt) @ A, prec)
        # y= in place: the same array comes back, nothing allocated.
        out = cupy.full(700, cupy.nan, dtype=dt)
        r = M.matvec(cupy.asarray(x, dtype=dt), y=out)
        assert r is out
        close(out.get(), A @ x.astype(dt), prec)
        # alpha, beta with a device y.
        y0 = cupy.asarray(u, dtype=dt)
        M.spmv(cupy.asarray(x, dtype=dt), y=y0, alpha=2.0, beta=-1.0)
        close(y0.get(), 2 * (A @ x.astype(dt)) - u.astype(dt), prec)


@need_cupy
def test_cupy_strided_input_copied_once():
    A = host_matrix()
    xs = cupy.arange(1000, dtype=cupy.float64)[::2]  # stride 16 bytes
    assert not xs.flags.c_contiguous
    with smv.Matrix(A, backend="cuda") as M:
        y = M @ xs
        close(y.get(), A @ xs.get(), "float64")
        Xs = cupy.ones((500, 8))[:, ::2]
        close((M @ Xs).get(), A @ Xs.get(), "float64")


@need_cupy
def test_cupy_errors():
    A = host_matrix()
    with smv.Matrix(A, backend="cuda") as M:
        with pytest.raises(TypeError, match="float32.*float64"):
            M @ cupy.ones(500, dtype=cupy.float32)
        with pytest.raises(ValueError, match=r"\(500,\)"):
            M @ cupy.ones(499)
        with pytest.raises(ValueError, match="contiguous"):
            M.matvec(cupy.ones(500), y=cupy.ones(1400)[::2])
        with pytest.raises(ValueError, match=r"\(700,\)"):
            M.matvec(cupy.ones(500), y=cupy.ones(500))
        with pytest.raises(TypeError, match="int64"):
            M @ cupy.ones(500, dtype=cupy.int64)
    with smv.Matrix(A, backend="cpu") as C:
        with pytest.raises(ValueError, match="on the CPU"):
            C @ cupy.ones(500)


@need_cupy
def test_cupy_stream_ordering():
    """A product launched on a CuPy stream right after a kernel that
    writes x (behind a ~20 ms spin) must read the new x: smv runs on the
    caller's stream, not its own."""
    spin = cupy.RawKernel(r'''
    extern "C" __global__ void spin(long long cycles, double *x, int n,
                                    double v) {
      long long t0 = clock64();
      while (clock64() - t0 < cycles) { }
      for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] = v;
    }''', "spin")
    A = host_matrix()
    with smv.Matrix(A, backend="cuda") as M:
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            x = cupy.zeros(500)
            s.synchronize()
            for v in (1.0, 2.0, 3.0):
                spin((1,), (256,), (np.int64(40_000_000), x, np.int32(500),
                                    np.float64(v)))
                y = M @ x
                s.synchronize()
                close(y.get(), A @ np.full(500, v), "float64")
            # An explicit stream= is honoured too.
            spin((1,), (256,), (np.int64(40_000_000), x, np.int32(500),
                                np.float64(5.0)))
        y = M.matvec(x, stream=s)
        s.synchronize()
        close(y.get(), A @ np.full(500, 5.0), "float64")


@need_cupy
def test_cupy_results_recycled_only_when_dropped():
    """`M @ x` recycles a result only once the caller holds no reference
    to it (_fast.py): results still held, a view's base, a torch tensor
    made from one, keep their values; a dropped one comes back on the
    same stream only; A x and A^T x have rings of their own."""
    A = host_matrix()
    rng = np.random.default_rng(7)
    xs = [rng.uniform(-1, 1, 500) for _ in range(8)]
    with smv.Matrix(A, backend="cuda") as M:
        first = M @ cupy.asarray(xs[2])
        fid, fptr = id(first), first.data.ptr
        del first  # dropped: comes back, rewritten
        again = [M @ cupy.asarray(x) for x in xs[3:6]]
        assert any(id(y) == fid and y.data.ptr == fptr for y in again)
        for y, x in zip(again, xs[3:6]):
            close(y.get(), A @ x, "float64")
        del again
        view = (M @ cupy.asarray(xs[0]))[3:]  # only the view holds it
        keep = None
        if torch is not None:
            keep = torch.as_tensor(M @ cupy.asarray(xs[1]), device="cuda")
        held = [M @ cupy.asarray(x) for x in xs]  # more than the ring
        assert len({y.data.ptr for y in held}) == len(held)
        assert all(y.data.ptr != view.data.ptr - 3 * 8 for y in held)
        for y, x in zip(held, xs):
            close(y.get(), A @ x, "float64")
        close(view.get(), (A @ xs[0])[3:], "float64")
        if keep is not None:
            close(keep.cpu().numpy(), A @ xs[1], "float64")
        # The transposed product's ring is its own.
        u = cupy.asarray(rng.uniform(-1, 1, 700))
        t = M.T @ u
        assert t.shape == (500,)
        close(t.get(), A.T @ u.get(), "float64")
        del held, view, keep
        # Another stream: a result dropped on the default stream is not
        # recycled there (CuPy's pool keeps freed memory per stream too).
        y0 = M @ cupy.asarray(xs[0])
        p0 = y0.data.ptr
        del y0
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            ys = [M @ cupy.asarray(xs[1]) for _ in range(2)]
            s.synchronize()
        assert all(y.data.ptr != p0 for y in ys)
        for y in ys:
            close(y.get(), A @ xs[1], "float64")
    # close() drops the ring: the matrix holds no result vectors.
    assert M._yring == ([], [])


@need_cupy
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("prec", PRECS)
def test_matrix_from_cupyx(fmt, prec):
    import cupyx.scipy.sparse as csp

    A = host_matrix(900, 600, 0.01, seed=5)
    dA = csp.csr_matrix(A).asformat(fmt)
    x = np.random.default_rng(6).uniform(-1, 1, 600)
    M = smv.Matrix(dA, precision=prec)
    assert M.backend == "cuda" and M.shape == (900, 600)
    assert M.nnz == A.nnz
    # The matrix owns its arrays: free the source and reuse its memory.
    del dA
    cupy.get_default_memory_pool().free_all_blocks()
    junk = [cupy.full(100_000, 7.0) for _ in range(4)]
    y = M @ cupy.asarray(x, dtype=prec)
    close(y.get(), A @ x.astype(prec), prec)
    close((M.T @ cupy.ones(900, dtype=prec)).get(),
          A.T @ np.ones(900, dtype=prec), prec)
    del junk
    M.close()


@need_cupy
def test_matrix_from_device_csr_triple():
    """(data, indices, indptr) device arrays of any library, with shape=,
    as scipy's csr_matrix takes them."""
    A = host_matrix(300, 200, 0.05, seed=11)
    x = np.random.default_rng(12).uniform(-1, 1, 200)
    d, i, p = (cupy.asarray(a) for a in (A.data, A.indices, A.indptr))
    M = smv.Matrix((d, i, p), shape=A.shape)
    del d, i, p
    close((M @ cupy.asarray(x)).get(), A @ x, "float64")
    # Strided data (every other entry of a longer array) is copied once.
    d2 = cupy.zeros(2 * A.nnz)
    d2[::2] = cupy.asarray(A.data)
    M2 = smv.Matrix((d2[::2], cupy.asarray(A.indices), cupy.asarray(A.indptr)),
                    shape=A.shape, precision="float32")
    close((M2 @ cupy.asarray(x, dtype=np.float32)).get(),
          A.astype(np.float32) @ x.astype(np.float32), "float32")
    with pytest.raises(TypeError, match="int32"):
        smv.Matrix((cupy.asarray(A.data), cupy.asarray(A.indices, dtype=cupy.int64),
                    cupy.asarray(A.indptr)), shape=A.shape)
    with pytest.raises(ValueError, match="rows \\+ 1"):
        smv.Matrix((cupy.asarray(A.data), cupy.asarray(A.indices),
                    cupy.asarray(A.indptr)), shape=(299, 200))
    with pytest.raises(TypeError, match="host array"):
        smv.Matrix((A.data, cupy.asarray(A.indices), cupy.asarray(A.indptr)),
                   shape=A.shape)
    if torch is not None:
        t = [torch.as_tensor(a, device="cuda") for a in
             (A.data, A.indices.astype(np.int32), A.indptr.astype(np.int32))]
        Mt = smv.Matrix(tuple(t), shape=A.shape)
        y = Mt @ torch.as_tensor(x, device="cuda")
        assert isinstance(y, torch.Tensor)
        close(y.cpu().numpy(), A @ x, "float64")


@need_cupy
def test_matrix_from_cupyx_validated_on_device():
    import cupyx.scipy.sparse as csp

    data = cupy.ones(3)
    bad_col = csp.csr_matrix((data, cupy.array([0, 5, 1], dtype=cupy.int32),
                              cupy.array([0, 2, 3], dtype=cupy.int32)),
                             shape=(2, 3))
    with pytest.raises(smv.SmvError, match="column index 5 of entry 1") as e:
        smv.Matrix(bad_col)
    assert e.value.name == "SMV_ERR_ARG"
    bad_ptr = csp.csr_matrix((data, cupy.array([0, 1, 2], dtype=cupy.int32),
                              cupy.array([0, 2, 1, 3], dtype=cupy.int32)),
                             shape=(3, 3))
    with pytest.raises(smv.SmvError, match="row offsets at row 1"):
        smv.Matrix(bad_ptr)


@need_cupy
@pytest.mark.parametrize("method", ["cg", "bicgstab"])
def test_cupy_solvers(method):
    import cupyx.scipy.sparse as csp

    n = 400
    T = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    b = np.random.default_rng(7).uniform(-1, 1, n)
    dT = csp.csr_matrix(T)
    solver = getattr(smv, method)
    x, info = solver(dT, cupy.asarray(b), rtol=1e-10)
    assert isinstance(x, cupy.ndarray) and info.converged
    assert info.backend == "cuda"
    np.testing.assert_allclose(T @ x.get(), b, atol=1e-8)
    seen = []
    x2, info2 = solver(dT, cupy.asarray(b), rtol=1e-10,
                       M=lambda r: r / 2.5, callback=seen.append)
    assert isinstance(x2, cupy.ndarray) and info2.converged
    assert isinstance(seen[-1], cupy.ndarray)
    np.testing.assert_allclose(T @ x2.get(), b, atol=1e-8)
    r, _ = smv.pagerank(dT, rtol=1e-12, pattern=True)
    assert isinstance(r, cupy.ndarray)
    np.testing.assert_allclose(float(r.sum()), 1.0, rtol=1e-12)


@need_cupy
def test_cupy_linear_operator():
    import cupyx.scipy.sparse as csp
    import cupyx.scipy.sparse.linalg as cspla

    n = 300
    T = sp.diags([-1.0, 2.5, -1.0], [-1, 0, 1], shape=(n, n), format="csr")
    op = smv.aslinearoperator(csp.csr_matrix(T))
    assert isinstance(op, cspla.LinearOperator)
    b = cupy.ones(n)
    try:
        x, info = cspla.cg(op, b, rtol=1e-10)
    except TypeError:  # CuPy before 14 names it tol
        x, info = cspla.cg(op, b, tol=1e-10)
    assert info == 0
    np.testing.assert_allclose(T @ x.get(), np.ones(n), atol=1e-7)


@need_cupy
def test_cross_device_error():
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip("one GPU")
    A = host_matrix()
    with smv.Matrix(A, backend="cuda", device=0) as M:
        with cupy.cuda.Device(1):
            x = cupy.ones(500)
        with pytest.raises(ValueError, match="GPU 1.*GPU 0"):
            M @ x


# ---- PyTorch ---------------------------------------------------------------
@need_torch
@pytest.mark.parametrize("prec", PRECS)
def test_torch_products(prec):
    A = host_matrix()
    dt = getattr(torch, prec)
    x = np.random.default_rng(1).uniform(-1, 1, 500)
    with smv.Matrix(A, backend="cuda", precision=prec) as M:
        tx = torch.tensor(x, dtype=dt, device="cuda")
        y = M @ tx
        assert isinstance(y, torch.Tensor) and y.is_cuda and y.dtype == dt
        close(y.cpu().numpy(), A @ x.astype(prec), prec)
        out = torch.empty(700, dtype=dt, device="cuda")
        assert M.matvec(tx, y=out) is out
        close(out.cpu().numpy(), A @ x.astype(prec), prec)
        X = torch.rand(500, 3, dtype=dt, device="cuda")
        close((M @ X).cpu().numpy(), A @ X.cpu().numpy(), prec)
        close((M @ X.t().contiguous().t()).cpu().numpy(),
              A @ X.cpu().numpy(), prec)
        xs = torch.arange(1000, dtype=dt, device="cuda")[::2]
        close((M @ xs).cpu().numpy(), A @ xs.cpu().numpy(), prec)
        # A CPU tensor goes the host way and comes back a CPU tensor.
        yc = M @ torch.tensor(x, dtype=dt)
        assert isinstance(yc, torch.Tensor) and not yc.is_cuda


@need_torch
def test_torch_stream_ordering():
    A = host_matrix()
    with smv.Matrix(A, backend="cuda") as M:
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            x = torch.zeros(500, dtype=torch.float64, device="cuda")
            for v in (1.0, 2.0):
                torch.cuda._sleep(50_000_000)
                x.fill_(v)
                y = M @ x
                s.synchronize()
                close(y.cpu().numpy(), A @ np.full(500, v), "float64")


@need_torch
@pytest.mark.parametrize("layout", ["csr", "coo"])
def test_matrix_from_torch(layout):
    A = host_matrix(800, 640, 0.02, seed=8).tocoo()
    idx = torch.tensor(np.vstack([A.row, A.col]), dtype=torch.int64)
    t = torch.sparse_coo_tensor(idx, torch.tensor(A.data), A.shape).cuda()
    if layout == "csr":
        t = t.coalesce().to_sparse_csr()
        assert t.crow_indices().dtype == torch.int64
    M = smv.Matrix(t)
    del t
    torch.cuda.empty_cache()
    x = torch.rand(640, dtype=torch.float64, device="cuda")
    close((M @ x).cpu().numpy(), A @ x.cpu().numpy(), "float64")
    x32 = x.float()
    M32 = smv.Matrix(torch.sparse_coo_tensor(idx, torch.tensor(A.data),
                                             A.shape).cuda(),
                     precision="float32")
    close((M32 @ x32).cpu().numpy(), A.astype(np.float32) @
          x32.cpu().numpy(), "float32")
    b, info = smv.cg(sp.eye(5).tocsr(), torch.ones(5, dtype=torch.float64,
                                                   device="cuda"))
    assert isinstance(b, torch.Tensor) and b.is_cuda and info.converged


@need_torch
def test_torch_errors():
    A = host_matrix()
    with smv.Matrix(A, backend="cuda") as M:
        with pytest.raises(TypeError, match="float32"):
            M @ torch.ones(500, device="cuda")
        with pytest.raises(ValueError, match=r"\(500,\)"):
            M @ torch.ones(3, dtype=torch.float64, device="cuda")


# ---- JAX (DLPack only) -------------------------------------------------------
def _jax_gpu():
    jax = _imp("jax")
    try:
        return jax if jax and jax.devices("gpu") else None
    except Exception:
        return None


def test_jax_dlpack():
    jax = _jax_gpu()
    if jax is None or (cupy is None and torch is None):
        pytest.skip("no JAX with a GPU (or neither CuPy nor PyTorch)")
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    A = host_matrix()
    x = np.random.default_rng(9).uniform(-1, 1, 500)
    with smv.Matrix(A, backend="cuda") as M:
        y = M @ jnp.asarray(x, dtype=jnp.float64)
        assert type(y).__module__.split(".")[0] in ("jax", "jaxlib")
        close(np.asarray(y), A @ x, "float64")


@need_torch
def test_torch_fast_path_odd_inputs_take_the_general_path():
    # The fast path (_fast._torch_fast) takes only the plain case; every
    # other input must give what the general path gives.
    A = host_matrix()
    x = np.random.default_rng(12).uniform(-1, 1, 500)
    u = np.random.default_rng(13).uniform(-1, 1, 700)
    with smv.Matrix(A, backend="cuda") as M:
        tx = torch.as_tensor(x, device="cuda")
        y = M @ tx
        assert y.dtype == torch.float64 and y.is_cuda and y.is_contiguous()
        assert y.shape == (700,) and not y.requires_grad
        close(y.cpu().numpy(), A @ x, "float64")
        strided = torch.as_tensor(np.repeat(x, 2), device="cuda")[::2]
        close((M @ strided).cpu().numpy(), A @ x, "float64")
        g = tx.clone().requires_grad_(True)
        close((M @ g).detach().cpu().numpy(), A @ x, "float64")
        close((M.T @ torch.as_tensor(u, device="cuda")).cpu().numpy(),
              A.T @ u, "float64")
        ty = torch.empty(700, dtype=torch.float64, device="cuda")
        assert M.matvec(tx, y=ty) is ty
        close(ty.cpu().numpy(), A @ x, "float64")
        with pytest.raises(ValueError, match="contiguous"):
            M.matvec(tx, y=torch.empty(1400, dtype=torch.float64,
                                       device="cuda")[::2])
        with pytest.raises(ValueError, match=r"\(700,\)"):
            M.matvec(tx, y=torch.empty(699, dtype=torch.float64,
                                       device="cuda"))
        # A y that requires grad is refused (written in place, outside
        # autograd), by both paths alike.
        with pytest.raises(ValueError, match="requires grad"):
            M.matvec(tx, y=torch.zeros(700, dtype=torch.float64,
                                       device="cuda", requires_grad=True))
        with pytest.raises(TypeError, match="float64"):
            M @ tx.float()
        # A CPU tensor: the host path, a CPU tensor back.
        yc = M @ torch.as_tensor(x)
        assert not yc.is_cuda
        close(yc.numpy(), A @ x, "float64")
        # On a stream of the caller's: ordered there.
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            ys = M @ (tx * 1.0)
        s.synchronize()
        close(ys.cpu().numpy(), A @ x, "float64")
    with pytest.raises(ValueError, match="close"):
        M @ tx


# ---- precision f64-f32v --------------------------------------------------
F32V_ALGS = [a for a, v in smv.SPMV_ALGS.items()
             if smv._lib.alg_runs_precision(v, smv._lib.SMV_F64_F32V)]


def f32v_matrix(m=900, n=700, seed=11):
    """Random values (float32 cannot hold them: the rounding shows), rows
    of 0 to about 50 entries, one of them empty."""
    r = np.random.default_rng(seed)
    A = sp.random(m, n, density=0.03, format="csr", random_state=seed,
                  data_rvs=lambda k: r.uniform(-1, 1, k))
    keep = np.ones(m)
    keep[5] = 0.0
    A = sp.csr_matrix(sp.diags(keep) @ A)
    A.eliminate_zeros()
    return A


def within_f32v(got, A, x, alpha=1.0, beta=0.0, y0=None):
    """got against scipy's float64 product within twice the documented
    bound (smv.f32v_bound: the bound is on the exact product, scipy's
    own rounding the bound's summation term covers)."""
    want = alpha * (A @ x) + (beta * y0 if beta else 0.0)
    b = smv.f32v_bound(A, x, alpha=alpha, beta=beta, y0=y0)
    err = np.abs(np.asarray(got, dtype=np.float64) - want)
    assert np.all(err <= 2 * b), float(np.max(err - 2 * b))
    return err, want


def test_f32v_products_host_vectors():
    A = f32v_matrix()
    r = np.random.default_rng(14)
    x, y0 = r.uniform(-1, 1, 700), r.uniform(-1, 1, 900)
    assert set(F32V_ALGS) == {"auto", "vector", "adaptive", "tiled"}
    with smv.Matrix(A, backend="cuda", precision="f64-f32v") as M:
        assert M.precision == "f64-f32v" and M.dtype == np.float64
        for alg in F32V_ALGS:
            y = M.spmv(x, alg=alg)
            assert y.dtype == np.float64 and y.shape == (900,)
            err, want = within_f32v(y, A, x)
            # Stored as float32: an f64 product would be ~1e-16 off.
            assert np.max(err) > 1e-12 * np.max(np.abs(want))
            within_f32v(M.spmv(x, y=y0, alpha=-1.5, beta=0.5, alg=alg), A,
                        x, -1.5, 0.5, y0)
        within_f32v(M @ x, A, x)
        np.testing.assert_array_equal(M.f32v_bound(x),
                                      smv.f32v_bound(A, x))
    with smv.Matrix(A, backend="auto", precision="f64-f32v") as M:
        assert M.backend == "cuda"  # never the CPU


def test_f32v_refusals_are_exceptions():
    A = f32v_matrix()
    x = np.ones(700)
    with smv.Matrix(A, backend="cuda", precision="f64-f32v") as M:
        for alg in smv.SPMV_ALGS:
            if alg in F32V_ALGS:
                continue
            with pytest.raises(smv.SmvError) as e:
                M.spmv(x, alg=alg)
            assert e.value.name == "SMV_ERR_UNSUPPORTED", alg
        for fn in (lambda: M.rmatvec(np.ones(900)),
                   lambda: M.T @ np.ones(900),
                   lambda: M.matmat(np.ones((700, 3)))):
            with pytest.raises(smv.SmvError) as e:
                fn()
            assert e.value.name == "SMV_ERR_UNSUPPORTED"
        with pytest.raises(smv.SmvError, match="f64-f32v") as e:
            smv.cg(M, np.ones(900))
        assert e.value.name == "SMV_ERR_UNSUPPORTED"
    big = sp.csr_matrix(([1.0, 1e39], [0, 2], [0, 1, 2]), shape=(2, 3))
    with pytest.raises(smv.SmvError, match="beyond") as e:
        smv.Matrix(big, backend="cuda", precision="f64-f32v")
    assert e.value.name == "SMV_ERR_OVERFLOW"


@need_cupy
def test_f32v_cupy():
    import cupyx.scipy.sparse as csp

    A = f32v_matrix()
    x = np.random.default_rng(15).uniform(-1, 1, 700)
    xd = cupy.asarray(x)
    with smv.Matrix(A, backend="cuda", precision="f64-f32v") as M:
        y = M @ xd
        assert isinstance(y, cupy.ndarray) and y.dtype == cupy.float64
        within_f32v(y.get(), A, x)
        yd = cupy.empty(900)
        assert M.matvec(xd, y=yd) is yd
        within_f32v(yd.get(), A, x)
        with pytest.raises(TypeError, match="float64"):
            M @ xd.astype(cupy.float32)
    with smv.Matrix(csp.csr_matrix(A), precision="f64-f32v") as M:
        assert M.precision == "f64-f32v"
        within_f32v((M @ xd).get(), A, x)
        with pytest.raises(ValueError, match="host CSR"):
            M.f32v_bound(x)
    np.testing.assert_array_equal(smv.f32v_bound(csp.csr_matrix(A), xd),
                                  smv.f32v_bound(A, x))


@need_torch
def test_f32v_torch():
    A = f32v_matrix()
    x = np.random.default_rng(16).uniform(-1, 1, 700)
    tx = torch.as_tensor(x, device="cuda")
    with smv.Matrix(A, backend="cuda", precision="f64-f32v") as M:
        y = M @ tx
        assert y.dtype == torch.float64 and y.is_cuda
        within_f32v(y.cpu().numpy(), A, x)
        ty = torch.empty(900, dtype=torch.float64, device="cuda")
        assert M.matvec(tx, y=ty) is ty
        within_f32v(ty.cpu().numpy(), A, x)
        with pytest.raises(smv.SmvError) as e:  # A^T x: refused
            M.T @ torch.ones(900, dtype=torch.float64, device="cuda")
        assert e.value.name == "SMV_ERR_UNSUPPORTED"
