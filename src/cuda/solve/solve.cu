/*
 * solve.cu — CG, BiCGStab and PageRank on the device (smv_solve.h).
 *
 * Where the time goes. On matrices under ~1M entries one SpMV is a few
 * microseconds, about what a kernel launch costs, so a solver written the
 * usual way (NVIDIA's conjugateGradient sample: cusparseSpMV, cublasDdot
 * with its result copied to the host, cublasDaxpy, ... six launches and
 * two host round trips per iteration) is bound by launches and syncs, not
 * by bytes. Here:
 *   - every scalar (alpha, beta, rho, omega, the residual) lives on the
 *     device and is computed there: no host round trip inside the loop;
 *   - the vector work around each SpMV is one fused kernel that also
 *     produces its dot products: CG is SpMV + 3 kernels per iteration,
 *     BiCGStab 2 SpMVs + 4 kernels, PageRank SpMV + 1 (+1 with dangling
 *     nodes);
 *   - the loop's kernels, like rung 9's SpMV, are launched with
 *     programmatic dependent launch (sm_90+): each starts while the one
 *     before it finishes and waits for its results first (solver::go);
 *   - check_every iterations are captured once into a CUDA graph (stream
 *     capture of exactly the launches the loop makes, smv_spmv included)
 *     and replayed; after each replay one 32-byte device-to-host copy says
 *     whether to stop. Once the last block of a reduction has set `done`,
 *     every later kernel returns at once, so iterations past convergence
 *     inside a replay change nothing (their SpMVs still run: at most
 *     check_every - 1 wasted SpMVs at the end).
 *
 * Deterministic reductions, no floating-point atomics: each block reduces
 * its grid-stride share (fixed order: warp shuffles then shared memory) to
 * one partial per dot product, written to `part`; the block that finishes
 * last (an integer atomic counter) adds the partials in a fixed order (each
 * thread a fixed stride of them, then the same block tree) and computes the
 * scalars. The grid depends only on n and the device, so a solve gives the
 * same bits on every run. Dot products and norms accumulate in double, f32
 * included.
 */
#include "engine.h"
#include "kernel_common.h"
#include "solve_internal.h"

#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace {

constexpr int RB = 256; /* threads per block of every solver kernel */

/* What the host reads after each replay (one small copy). */
struct solve_status {
  int iter;      /* completed iterations                            */
  int done;      /* stop: converged, breakdown or maxit              */
  int converged; /* relres <= tol                                   */
  int breakdown; /* zero or non-finite denominator                  */
  int zero_rhs;  /* b = 0: the answer is x = 0                       */
  double relres; /* after `iter` iterations                          */
};

/* Device-resident state of one solve. */
struct solve_state {
  solve_status s;
  double rho, alpha, beta, omega, bnorm, rr, dang;
  int half;         /* BiCGStab: converged at the half step (s)         */
  unsigned counter; /* blocks finished in the current reduction         */
  /* constants */
  double tol, damping, inv_n;
  int maxit, hist_len;
};

/* ---- reductions -------------------------------------------------------- */

/* Sum v[] over the block; the totals end in thread 0's v[]. */
template <int NV>
__device__ __forceinline__ void block_sum(double (&v)[NV], double *sh) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < NV; j++)
    for (int off = 16; off > 0; off >>= 1)
      v[j] += __shfl_down_sync(0xffffffffu, v[j], off);
  if (lane == 0)
#pragma unroll
    for (int j = 0; j < NV; j++)
      sh[j * 32 + warp] = v[j];
  __syncthreads();
  if (warp == 0) {
    const int nw = blockDim.x >> 5;
#pragma unroll
    for (int j = 0; j < NV; j++) {
      v[j] = lane < nw ? sh[j * 32 + lane] : 0.0;
      for (int off = 16; off > 0; off >>= 1)
        v[j] += __shfl_down_sync(0xffffffffu, v[j], off);
    }
  }
  __syncthreads(); /* sh may be reused */
}

/* Grid-wide deterministic sum of v[]: true in the last block to finish,
 * where thread 0's v[] then holds the totals (the order of the additions
 * does not depend on which block is last). */
template <int NV>
__device__ bool grid_sum(double (&v)[NV], double *part, unsigned *counter) {
  __shared__ double sh[NV * 32];
  __shared__ bool last;
  block_sum<NV>(v, sh);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int j = 0; j < NV; j++)
      part[blockIdx.x * NV + j] = v[j];
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last)
    return false;
  __threadfence();
#pragma unroll
  for (int j = 0; j < NV; j++) {
    v[j] = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
      v[j] += __ldcg(&part[b * NV + j]);
  }
  block_sum<NV>(v, sh);
  if (threadIdx.x == 0)
    *counter = 0;
  return true;
}

__device__ __forceinline__ bool finite(double v) { return isfinite(v); }

/* After iteration `it`'s residual: history, stop conditions. Thread 0 of
 * the last block only. */
__device__ void finish_iteration(solve_state *st, double *hist, double relres) {
  const int it = ++st->s.iter;
  st->s.relres = relres;
  if (hist && it < st->hist_len)
    hist[it] = relres;
  if (relres <= st->tol) {
    st->s.converged = 1;
    st->s.done = 1;
  } else if (!finite(relres)) {
    st->s.breakdown = 1;
    st->s.done = 1;
  } else if (it >= st->maxit) {
    st->s.done = 1;
  }
}

#define GRID_STRIDE(i, n)                                                      \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);    \
       i += (int64_t)gridDim.x * blockDim.x)

/* ---- set-up kernels ------------------------------------------------------ */

template <typename T>
__global__ void diag_inv_kernel(int64_t n, const int32_t *rp, const int32_t *ci,
                                const T *val, T *dinv, int *bad) {
  GRID_STRIDE(i, n) {
    double d = 0.0;
    for (int32_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] == i)
        d += (double)val[k];
    if (d == 0.0 || !finite(d))
      atomicMin(bad, (int)i);
    dinv[i] = (T)(1.0 / d);
  }
}

/* r = b - q (use_x0: q = A x0) or b; z = dinv r (JAC); p = z; rhat = r
 * (BiCGStab, when rh is set; then p = 0 and v = 0). Sums b.b, r.r, r.z. */
template <typename T, bool JAC>
__global__ void start_kernel(int64_t n, const T *b, const T *q, T *r, T *z,
                             T *p, T *rh, T *v, const T *dinv, solve_state *st,
                             double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  double acc[3] = {0.0, 0.0, 0.0};
  GRID_STRIDE(i, n) {
    const T bi = b[i];
    const T ri = q ? bi - q[i] : bi;
    r[i] = ri;
    T zi = ri;
    if (JAC) {
      zi = ri * dinv[i];
      z[i] = zi;
    }
    if (rh) {
      rh[i] = ri;
      p[i] = 0;
      v[i] = 0;
    } else {
      p[i] = zi;
    }
    acc[0] += (double)bi * (double)bi;
    acc[1] += (double)ri * (double)ri;
    acc[2] += (double)ri * (double)zi;
  }
  if (grid_sum<3>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->bnorm = sqrt(acc[0]);
    st->rr = acc[1];
    const double relres = acc[0] > 0.0 ? sqrt(acc[1]) / st->bnorm : 0.0;
    st->s.relres = relres;
    if (hist && st->hist_len > 0)
      hist[0] = relres;
    st->s.zero_rhs = acc[0] == 0.0;
    if (acc[0] == 0.0 || relres <= st->tol) {
      st->s.converged = 1;
      st->s.done = 1;
    } else if (st->maxit == 0 || !finite(relres)) {
      st->s.breakdown = !finite(relres);
      st->s.done = 1;
    }
    if (rh) { /* BiCGStab: rho = alpha = omega = 1, so beta = rho_new */
      st->rho = acc[1];
      st->beta = acc[1];
      st->alpha = st->omega = 1.0;
      st->half = 0;
    } else {
      st->rho = acc[2];
    }
  }
}

/* ---- CG ------------------------------------------------------------------ */

/* alpha = rho / (a . b): CG's rho / p.q after q = A p, BiCGStab's
 * rho / rhat.v after v = A phat. A zero or non-finite rho or dot stops the
 * method (breakdown). */
template <typename T>
__global__ void alpha_kernel(int64_t n, const T *a, const T *b, solve_state *st,
                             double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) acc[0] += (double)a[i] * (double)b[i];
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0) {
    if (acc[0] == 0.0 || !finite(acc[0]) || st->rho == 0.0 ||
        !finite(st->rho)) {
      st->s.breakdown = 1;
      st->s.done = 1;
    } else {
      st->alpha = st->rho / acc[0];
    }
  }
}

/* x += alpha p, r -= alpha q, z = dinv r; r.z and r.r; beta, rho. */
template <typename T, bool JAC>
__global__ void cg_update_kernel(int64_t n, T *x, T *r, T *z, const T *p,
                                 const T *q, const T *dinv, solve_state *st,
                                 double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha;
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    x[i] += alpha * p[i];
    const T ri = r[i] - alpha * q[i];
    r[i] = ri;
    T zi = ri;
    if (JAC) {
      zi = ri * dinv[i];
      z[i] = zi;
    }
    acc[0] += (double)ri * (double)zi;
    acc[1] += (double)ri * (double)ri;
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->rr = acc[1];
    finish_iteration(st, hist, sqrt(acc[1]) / st->bnorm);
    st->beta = acc[0] / st->rho;
    st->rho = acc[0];
  }
}

/* p = z + beta p. */
template <typename T>
__global__ void cg_p_kernel(int64_t n, T *p, const T *z,
                            const solve_state *st) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T beta = (T)st->beta;
  GRID_STRIDE(i, n) p[i] = z[i] + beta * p[i];
}

/* ---- BiCGStab -------------------------------------------------------------
 * Right-preconditioned (M^-1 = dinv), the same steps as the CPU version in
 * solve_cpu_body.h. */

/* p = r + beta (p - omega v); phat = dinv p. */
template <typename T, bool JAC>
__global__ void bi_p_kernel(int64_t n, T *p, T *ph, const T *r, const T *v,
                            const T *dinv, const solve_state *st) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T beta = (T)st->beta, omega = (T)st->omega;
  GRID_STRIDE(i, n) {
    const T pi = r[i] + beta * (p[i] - omega * v[i]);
    p[i] = pi;
    if (JAC)
      ph[i] = pi * dinv[i];
  }
}

/* s = r - alpha v, shat = dinv s; s.s decides the half step. */
template <typename T, bool JAC>
__global__ void bi_s_kernel(int64_t n, T *s, T *sh, const T *r, const T *v,
                            const T *dinv, solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) {
    const T si = r[i] - alpha * v[i];
    s[i] = si;
    if (JAC)
      sh[i] = si * dinv[i];
    acc[0] += (double)si * (double)si;
  }
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    st->half = sqrt(acc[0]) / st->bnorm <= st->tol;
}

/* After t = A shat: omega = t.s / t.t (0 at a converged half step). */
template <typename T>
__global__ void bi_omega_kernel(int64_t n, const T *t, const T *s,
                                solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done || st->half) {
    if (!st->s.done && blockIdx.x == 0 && threadIdx.x == 0)
      st->omega = 0.0;
    return;
  }
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    acc[0] += (double)t[i] * (double)s[i];
    acc[1] += (double)t[i] * (double)t[i];
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0)
    st->omega = acc[1] != 0.0 ? acc[0] / acc[1] : 0.0;
}

/* x += alpha phat + omega shat, r = s - omega t; r.r, rhat.r; beta. */
template <typename T>
__global__ void bi_update_kernel(int64_t n, T *x, T *r, const T *ph,
                                 const T *sh, const T *s, const T *t,
                                 const T *rh, solve_state *st, double *part,
                                 double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha, w = (T)st->omega;
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    const T ri = w != (T)0 ? s[i] - w * t[i] : s[i];
    x[i] += alpha * ph[i] + (w != (T)0 ? w * sh[i] : (T)0);
    r[i] = ri;
    acc[0] += (double)ri * (double)ri;
    acc[1] += (double)rh[i] * (double)ri;
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->rr = acc[0];
    finish_iteration(st, hist, sqrt(acc[0]) / st->bnorm);
    if (!st->s.done && (acc[1] == 0.0 || !finite(acc[1]) || st->omega == 0.0)) {
      st->s.breakdown = 1;
      st->s.done = 1;
    }
    st->beta = (acc[1] / st->rho) * (st->alpha / st->omega);
    st->rho = acc[1];
    st->half = 0;
  }
}

/* ---- PageRank ------------------------------------------------------------ */

/* r = v; the dangling mass of the start. */
template <typename T>
__global__ void pr_start_kernel(int64_t n, T *r, const T *v, solve_state *st,
                                double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  GRID_STRIDE(i, n) r[i] = v[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->s.relres = 1.0;
    if (hist && st->hist_len > 0)
      hist[0] = 1.0;
    if (st->maxit == 0)
      st->s.done = 1;
  }
}

/* dang = sum of r over the dangling rows. */
template <typename T>
__global__ void pr_dangling_kernel(int64_t nd, const int32_t *dl, const T *r,
                                   solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  double acc[1] = {0.0};
  GRID_STRIDE(i, nd) acc[0] += (double)r[dl[i]];
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    st->dang = acc[0];
}

/* After y = PT r: r' = d y + d dang / n + (1 - d) v in place; ||r' - r||_1. */
template <typename T>
__global__ void pr_update_kernel(int64_t n, T *r, const T *y, const T *v,
                                 solve_state *st, double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const double d = st->damping, shift = d * st->dang * st->inv_n;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) {
    const T ri = (T)(d * (double)y[i] + shift + (1.0 - d) * (double)v[i]);
    acc[0] += fabs((double)ri - (double)r[i]);
    r[i] = ri;
  }
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    finish_iteration(st, hist, acc[0]);
}

/* ---- the driver ---------------------------------------------------------- */

enum { V_R, V_Z, V_P, V_Q, V_RH, V_S, V_T, V_PH, V_SH, V_DINV, V_COUNT };

/* The work vectors a method uses (bit k = vector k): CG r, p, q (+ z and
 * the inverse diagonal with Jacobi); BiCGStab r, p, v (in Q), rhat, s, t
 * (+ phat, shat, the inverse diagonal); PageRank y (in Q). The others stay
 * NULL: no kernel of that method reads them. */
unsigned vectors_used(smv_method m, bool jac) {
  const unsigned J = jac ? 1u << V_DINV : 0u;
  if (m == SMV_METHOD_CG)
    return 1u << V_R | 1u << V_P | 1u << V_Q | (jac ? 1u << V_Z : 0u) | J;
  if (m == SMV_METHOD_BICGSTAB)
    return 1u << V_R | 1u << V_P | 1u << V_Q | 1u << V_RH | 1u << V_S |
           1u << V_T | (jac ? 1u << V_PH | 1u << V_SH : 0u) | J;
  return 1u << V_Q;
}

struct solver {
  smv_context *ctx;
  smv_matrix *dA;
  cudaStream_t stream;
  smv_method method;
  smv_precision prec;
  bool jac;
  int64_t n;
  unsigned grid;
  smv_solve_options o;
  const void *b;
  void *x;
  void *vec[V_COUNT]; /* inside `buf` */
  void *buf;
  solve_state *st;
  double *part, *hist;
  solve_status *h_status; /* pinned */
  /* PageRank */
  const void *v;
  const int32_t *dl;
  int64_t nd;
  cudaGraph_t graph;
  cudaGraphExec_t exec;

  smv_status fail(cudaError_t e, const char *what) {
    return smv_cu_fail(ctx, e, "%s", what);
  }
  template <typename T> T *V(int k) const { return (T *)vec[k]; }

  template <typename T> smv_status setup_jacobi();
  template <typename T> smv_status start();
  template <typename T> smv_status iterate();
  smv_status spmv(const void *in, void *out) {
    smv_status s = smv_spmv(ctx, o.alg, 1.0, dA, in, 0.0, out);
    return s;
  }
  /* The loop's kernels are launched with programmatic stream serialization
   * where the device has it (sm_90+): each may start while the kernel
   * before it still runs and waits (smv_pdl_wait, its first statement)
   * for that kernel's results, so a launch's latency overlaps the end of
   * the kernel before. Rung 9's SpMV does the same (spmv_9_adaptive.cu,
   * change 6). The first failed launch is kept for launched(). */
  bool pdl;            /* zeroed with the struct (memset in solve_device) */
  cudaError_t pending; /* cudaSuccess == 0 */
  template <typename... Exp, typename... Act>
  void go(void (*k)(Exp...), unsigned g, Act &&...args) {
    const cudaError_t e =
        smv_launch_pdl(k, g, RB, 0, stream, pdl, std::forward<Act>(args)...);
    if (e != cudaSuccess && pending == cudaSuccess)
      pending = e;
  }
  smv_status launched(const char *what) {
    cudaError_t e = pending != cudaSuccess ? pending : cudaGetLastError();
    pending = cudaSuccess;
    return e == cudaSuccess ? SMV_OK
                            : smv_cu_fail(ctx, e, "launch of %s", what);
  }
  smv_status run(smv_solve_result *res);
  void release();
};

template <typename T> smv_status solver::setup_jacobi() {
  int *bad = nullptr;
  cudaError_t e = cudaMalloc(&bad, sizeof(int));
  if (e != cudaSuccess)
    return fail(e, "cudaMalloc (Jacobi check)");
  int h = INT_MAX;
  smv_status st = SMV_OK;
  if ((e = cudaMemcpyAsync(bad, &h, sizeof h, cudaMemcpyHostToDevice,
                           stream)) != cudaSuccess) {
    st = fail(e, "cudaMemcpyAsync (Jacobi check)");
  } else {
    diag_inv_kernel<T><<<grid, RB, 0, stream>>>(
        n, dA->row_ptr, dA->col_idx, (const T *)dA->values, V<T>(V_DINV), bad);
    if ((st = launched("the Jacobi diagonal")) == SMV_OK &&
        ((e = cudaMemcpyAsync(&h, bad, sizeof h, cudaMemcpyDeviceToHost,
                              stream)) != cudaSuccess ||
         (e = cudaStreamSynchronize(stream)) != cudaSuccess))
      st = fail(e, "Jacobi check (copy back)");
    if (st == SMV_OK && h != INT_MAX)
      st = smv_ctx_set(ctx, SMV_ERR_ARG,
                       "row %d: the diagonal entry is zero, missing or not "
                       "finite; Jacobi preconditioning divides by it (use no "
                       "preconditioner)",
                       h + 1);
  }
  cudaFree(bad);
  return st;
}

template <typename T> smv_status solver::start() {
  smv_status s;
  if (method == SMV_METHOD_PAGERANK) {
    go(pr_start_kernel<T>, grid, n, (T *)x, (const T *)v, st, hist);
    return launched("pr_start_kernel");
  }
  const T *q = nullptr;
  if (o.use_x0) {
    if ((s = spmv(x, vec[V_Q])) != SMV_OK)
      return s;
    q = V<T>(V_Q);
  } else {
    cudaError_t e = cudaMemsetAsync(x, 0, (size_t)n * sizeof(T), stream);
    if (e != cudaSuccess)
      return fail(e, "cudaMemsetAsync (x = 0)");
  }
  const bool bi = method == SMV_METHOD_BICGSTAB;
  T *rh = bi ? V<T>(V_RH) : nullptr;
  T *vv = bi ? V<T>(V_Q) : nullptr; /* BiCGStab's v lives in Q */
  /* BiCGStab starts from r alone (no z: its preconditioner acts on p and
   * s inside the iteration). */
  if (jac && !bi)
    go(start_kernel<T, true>, grid, n, (const T *)b, q, V<T>(V_R), V<T>(V_Z),
       V<T>(V_P), rh, vv, V<T>(V_DINV), st, part, hist);
  else
    go(start_kernel<T, false>, grid, n, (const T *)b, q, V<T>(V_R), V<T>(V_R),
       V<T>(V_P), rh, vv, nullptr, st, part, hist);
  return launched("start_kernel");
}

/* One iteration's launches (captured into the graph). */
template <typename T> smv_status solver::iterate() {
  smv_status s;
  T *r = V<T>(V_R), *p = V<T>(V_P), *q = V<T>(V_Q);
  const T *dinv = V<T>(V_DINV);
  if (method == SMV_METHOD_CG) {
    T *z = jac ? V<T>(V_Z) : r;
    if ((s = spmv(p, q)) != SMV_OK)
      return s;
    go(alpha_kernel<T>, grid, n, p, q, st, part);
    if (jac)
      go(cg_update_kernel<T, true>, grid, n, (T *)x, r, z, p, q, dinv, st, part,
         hist);
    else
      go(cg_update_kernel<T, false>, grid, n, (T *)x, r, z, p, q, dinv, st,
         part, hist);
    go(cg_p_kernel<T>, grid, n, p, z, st);
    return launched("the CG kernels");
  }
  if (method == SMV_METHOD_BICGSTAB) {
    T *v = q, *rh = V<T>(V_RH), *sv = V<T>(V_S), *t = V<T>(V_T);
    T *ph = jac ? V<T>(V_PH) : p, *sh = jac ? V<T>(V_SH) : sv;
    if (jac)
      go(bi_p_kernel<T, true>, grid, n, p, ph, r, v, dinv, st);
    else
      go(bi_p_kernel<T, false>, grid, n, p, ph, r, v, dinv, st);
    if ((s = launched("bi_p_kernel")) != SMV_OK || (s = spmv(ph, v)) != SMV_OK)
      return s;
    go(alpha_kernel<T>, grid, n, rh, v, st, part);
    if (jac)
      go(bi_s_kernel<T, true>, grid, n, sv, sh, r, v, dinv, st, part);
    else
      go(bi_s_kernel<T, false>, grid, n, sv, sh, r, v, dinv, st, part);
    if ((s = launched("the BiCGStab kernels")) != SMV_OK ||
        (s = spmv(sh, t)) != SMV_OK)
      return s;
    go(bi_omega_kernel<T>, grid, n, t, sv, st, part);
    go(bi_update_kernel<T>, grid, n, (T *)x, r, ph, sh, sv, t, rh, st, part,
       hist);
    return launched("the BiCGStab kernels");
  }
  /* PageRank: y in Q. */
  T *rk = (T *)x;
  if (nd > 0) {
    const unsigned gd = smv_grid_for(nd, RB), g = gd < grid ? gd : grid;
    go(pr_dangling_kernel<T>, g, nd, dl, rk, st, part);
  }
  if ((s = launched("pr_dangling_kernel")) != SMV_OK ||
      (s = spmv(rk, q)) != SMV_OK)
    return s;
  go(pr_update_kernel<T>, grid, n, rk, q, (const T *)v, st, part, hist);
  return launched("pr_update_kernel");
}

smv_status solver::run(smv_solve_result *res) {
  cudaError_t e;
  smv_status s;
  const bool f32 = prec == SMV_F32;
  const int chunk = o.check_every;
  int next_progress = o.progress_every;
  /* The iteration is captured in a graph: a rung asked for by name (AUTO's
   * own choice is set up at analysis) must be set up now, outside the
   * capture, where it may allocate. */
  const smv_alg rung = o.alg == SMV_ALG_AUTO ? dA->auto_alg : o.alg;
  if ((s = smv_rung_prepare(ctx, dA, rung, NULL, 1)) != SMV_OK)
    return s;
  if ((s = f32 ? start<float>() : start<double>()) != SMV_OK)
    return s;
  if (o.use_graph) {
    if ((e = cudaStreamBeginCapture(
             stream, cudaStreamCaptureModeThreadLocal)) != cudaSuccess)
      return fail(e, "cudaStreamBeginCapture");
    s = SMV_OK;
    for (int k = 0; k < chunk && s == SMV_OK; k++)
      s = f32 ? iterate<float>() : iterate<double>();
    e = cudaStreamEndCapture(stream, &graph); /* always leave capture */
    if (s != SMV_OK)
      return s;
    if (e != cudaSuccess)
      return fail(e, "graph capture of the solver iteration");
    if ((e = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess) {
      exec = nullptr;
      return fail(e, "cudaGraphInstantiate");
    }
    res->graph_used = 1;
  }
  for (;;) {
    if ((e = cudaMemcpyAsync(h_status, st, sizeof *h_status,
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
      return fail(e, "convergence check (copy back)");
    res->checks++;
    const solve_status h = *h_status;
    if (o.progress && o.progress_every > 0 && h.iter >= next_progress &&
        h.iter > 0) {
      o.progress(o.progress_user, h.iter, h.relres);
      while (next_progress <= h.iter)
        next_progress += o.progress_every;
    }
    if (h.done)
      break;
    if (o.use_graph) {
      if ((e = cudaGraphLaunch(exec, stream)) != cudaSuccess)
        return fail(e, "cudaGraphLaunch");
    } else {
      for (int k = 0; k < chunk; k++)
        if ((s = f32 ? iterate<float>() : iterate<double>()) != SMV_OK)
          return s;
    }
  }
  const solve_status h = *h_status;
  if (h.zero_rhs && o.use_x0 &&
      (e = cudaMemsetAsync(x, 0, (size_t)n * (f32 ? 4 : 8), stream)) !=
          cudaSuccess)
    return fail(e, "cudaMemsetAsync (b = 0, so x = 0)");
  res->iterations = h.iter;
  res->relres = h.relres;
  res->converged = h.converged;
  res->breakdown = h.breakdown;
  int nh = h.iter + 1 < o.history_len ? h.iter + 1 : o.history_len;
  if (nh > 0) {
    if ((e = cudaMemcpyAsync(o.history, hist, (size_t)nh * sizeof(double),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
      return fail(e, "copy of the residual history");
    res->history_count = nh;
  }
  return SMV_OK;
}

void solver::release() {
  if (exec)
    cudaGraphExecDestroy(exec);
  if (graph)
    cudaGraphDestroy(graph);
  cudaFree(buf);
  cudaFreeHost(h_status);
  exec = nullptr;
  graph = nullptr;
  buf = nullptr;
  h_status = nullptr;
}

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Allocate, initialise the state, run; everything the three methods share.
 * For PageRank dA is the transposed transition matrix, v the teleport
 * vector and x the rank vector. */
smv_status solve_device(smv_context *ctx, smv_matrix *dA, smv_method method,
                        const void *b, void *x, const void *v,
                        const int32_t *dl, int64_t nd,
                        const smv_solve_options *opt, smv_solve_result *res) {
  smv_solve_result local;
  memset(&local, 0, sizeof local);
  if (res)
    memset(res, 0, sizeof *res);
  if (!ctx)
    return SMV_ERR_ARG;
  const char *who = method == SMV_METHOD_CG         ? "smv_cg_cuda"
                    : method == SMV_METHOD_BICGSTAB ? "smv_bicgstab_cuda"
                                                    : "smv_pagerank_cuda";
  solver S;
  memset(&S, 0, sizeof S);
  char why[160];
  if (smv_solve_opts_check(opt, &S.o, why, sizeof why) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: %s", who, why);
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL matrix", who);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: matrix lives on device %d, context on %d", who,
                       dA->device, ctx->device);
  if (dA->st.rows != dA->st.cols)
    return smv_ctx_set(ctx, SMV_ERR_DIM,
                       "%s: the matrix is %lld x %lld; a solver needs a "
                       "square one",
                       who, (long long)dA->st.rows, (long long)dA->st.cols);
  const int64_t n = dA->st.rows;
  if (n > 0 && (!x || (method != SMV_METHOD_PAGERANK && !b)))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL vector", who);
  if (n == 0) {
    local.converged = 1;
    if (S.o.history_len > 0) {
      S.o.history[0] = 0.0;
      local.history_count = 1;
    }
    if (res)
      *res = local;
    return SMV_OK;
  }
  struct smv_device_guard g;
  smv_status s = smv_device_enter(ctx, &g);
  if (s != SMV_OK)
    return s;
  S.ctx = ctx;
  S.dA = dA;
  S.stream = ctx->stream;
  S.method = method;
  S.prec = dA->prec;
  S.jac = method != SMV_METHOD_PAGERANK && S.o.precond == SMV_PRECOND_JACOBI;
  S.n = n;
  S.b = b;
  S.x = x;
  S.v = v;
  S.dl = dl;
  S.nd = nd;
  {
    /* A few blocks per SM: enough to stream the vectors, few partials. */
    unsigned cap = 4u * (unsigned)ctx->prop.multiProcessorCount;
    unsigned gg = smv_grid_for(n, RB);
    S.grid = gg < cap ? gg : cap;
  }
  /* PDL where the kernels carry their waits (kernel_common.h). */
  S.pdl = smv_pdl_capable((const void *)alpha_kernel<double>);
  const size_t es = S.prec == SMV_F32 ? sizeof(float) : sizeof(double);
  const size_t vbytes = ((size_t)n * es + 255) / 256 * 256;
  const int hist_n =
      S.o.history_len < S.o.maxit + 1 ? S.o.history_len : S.o.maxit + 1;
  const size_t state_bytes = 256;
  const size_t part_bytes =
      ((size_t)S.grid * 3 * sizeof(double) + 255) / 256 * 256;
  const unsigned used = vectors_used(method, S.jac);
  int nvec = 0;
  for (int k = 0; k < V_COUNT; k++)
    nvec += (used >> k) & 1u;
  const size_t total = (size_t)nvec * vbytes + state_bytes + part_bytes +
                       (size_t)hist_n * sizeof(double);
  cudaError_t e;
  solve_state h0;
  double t0 = 0.0;
  if ((e = cudaMalloc(&S.buf, total)) != cudaSuccess) {
    S.buf = nullptr;
    s = smv_cu_fail(ctx, e, "%s: cudaMalloc of %zu bytes (%d vectors of %lld)",
                    who, total, nvec, (long long)n);
    goto out;
  }
  if ((e = cudaMallocHost(&S.h_status, sizeof *S.h_status)) != cudaSuccess) {
    S.h_status = nullptr;
    s = smv_cu_fail(ctx, e, "%s: cudaMallocHost", who);
    goto out;
  }
  {
    char *next = (char *)S.buf;
    for (int k = 0; k < V_COUNT; k++)
      if ((used >> k) & 1u) {
        S.vec[k] = next;
        next += vbytes;
      }
    S.st = (solve_state *)next;
  }
  S.part = (double *)((char *)S.st + state_bytes);
  S.hist = hist_n > 0 ? (double *)((char *)S.part + part_bytes) : nullptr;
  memset(&h0, 0, sizeof h0);
  h0.tol = S.o.tol;
  h0.damping = S.o.damping;
  h0.inv_n = 1.0 / (double)n;
  h0.maxit = S.o.maxit;
  h0.hist_len = hist_n;
  static_assert(sizeof(solve_state) <= 256, "state fits its slot");
  if ((e = cudaMemcpyAsync(S.st, &h0, sizeof h0, cudaMemcpyHostToDevice,
                           S.stream)) != cudaSuccess) {
    s = smv_cu_fail(ctx, e, "%s: upload of the solver state", who);
    goto out;
  }
  if (S.jac && (s = S.prec == SMV_F32 ? S.setup_jacobi<float>()
                                      : S.setup_jacobi<double>()) != SMV_OK)
    goto out;
  t0 = now_s();
  s = S.run(&local);
  local.seconds = now_s() - t0;
out:
  S.release();
  smv_device_leave(&g);
  if (s == SMV_OK && res)
    *res = local;
  return s;
}

} // namespace

extern "C" smv_status smv_cg_cuda(smv_context *ctx, smv_matrix *dA,
                                  const void *b, void *x,
                                  const smv_solve_options *opt,
                                  smv_solve_result *res) {
  return solve_device(ctx, dA, SMV_METHOD_CG, b, x, nullptr, nullptr, 0, opt,
                      res);
}

extern "C" smv_status smv_bicgstab_cuda(smv_context *ctx, smv_matrix *dA,
                                        const void *b, void *x,
                                        const smv_solve_options *opt,
                                        smv_solve_result *res) {
  return solve_device(ctx, dA, SMV_METHOD_BICGSTAB, b, x, nullptr, nullptr, 0,
                      opt, res);
}

/* What the host-vector entry points do first: clear *res, then need ctx
 * (without it there is nowhere to put a message). */
static bool host_entry(const smv_context *ctx, smv_solve_result *res) {
  if (res)
    memset(res, 0, sizeof *res);
  return ctx != nullptr;
}

/* Host double vector <-> device vector of the given precision, one shared
 * body for both directions (to_device picks it); f32 goes through a host
 * buffer of floats. Callers use upload_vector / download_vector. */
static smv_status move_vector(smv_context *ctx, smv_precision prec,
                              bool to_device, double *h, void *d, int64_t n) {
  if (prec == SMV_F64)
    return to_device ? smv_memcpy_h2d(ctx, d, h, (size_t)n * sizeof(double))
                     : smv_memcpy_d2h(ctx, h, d, (size_t)n * sizeof(double));
  float *t = (float *)malloc(((size_t)n + 1) * sizeof(float));
  if (!t)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "out of host memory (%lld floats)",
                       (long long)n);
  smv_status s;
  if (to_device) {
    for (int64_t i = 0; i < n; i++)
      t[i] = (float)h[i];
    s = smv_memcpy_h2d(ctx, d, t, (size_t)n * sizeof(float));
  } else {
    s = smv_memcpy_d2h(ctx, t, d, (size_t)n * sizeof(float));
    for (int64_t i = 0; s == SMV_OK && i < n; i++)
      h[i] = (double)t[i];
  }
  free(t);
  return s;
}

/* Host doubles `in` -> device vector `d` (n entries, in d's precision). */
static smv_status upload_vector(smv_context *ctx, smv_precision prec,
                                const double *in, void *d, int64_t n) {
  return move_vector(ctx, prec, true, (double *)in, d, n); /* only read */
}

/* Device vector `d` -> host doubles `out`. */
static smv_status download_vector(smv_context *ctx, smv_precision prec,
                                  const void *d, double *out, int64_t n) {
  return move_vector(ctx, prec, false, out, (void *)d, n); /* only read */
}

extern "C" smv_status smv_solve_cuda_host(smv_context *ctx, smv_matrix *dA,
                                          smv_method method, const double *b,
                                          double *x,
                                          const smv_solve_options *opt,
                                          smv_solve_result *res) {
  if (!host_entry(ctx, res))
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_solve_cuda_host: NULL matrix");
  if (method != SMV_METHOD_CG && method != SMV_METHOD_BICGSTAB)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_solve_cuda_host: method must be CG or BiCGStab "
                       "(PageRank: smv_pagerank_cuda)");
  const int64_t n = dA->st.rows;
  if (n > 0 && (!b || !x))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_solve_cuda_host: NULL vector");
  for (int64_t i = 0; i < n; i++)
    if (!std::isfinite(b[i]))
      return smv_ctx_set(ctx, SMV_ERR_ARG,
                         "smv_solve_cuda_host: b[%lld] is not finite",
                         (long long)i);
  const size_t es = dA->prec == SMV_F32 ? sizeof(float) : sizeof(double);
  void *db = nullptr, *dx = nullptr;
  smv_status s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &db);
  if (s == SMV_OK)
    s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dx);
  if (s == SMV_OK)
    s = upload_vector(ctx, dA->prec, b, db, n);
  if (s == SMV_OK && opt && opt->use_x0)
    s = upload_vector(ctx, dA->prec, x, dx, n);
  if (s == SMV_OK)
    s = method == SMV_METHOD_CG ? smv_cg_cuda(ctx, dA, db, dx, opt, res)
                                : smv_bicgstab_cuda(ctx, dA, db, dx, opt, res);
  if (s == SMV_OK)
    s = download_vector(ctx, dA->prec, dx, x, n);
  smv_device_free(ctx, db);
  smv_device_free(ctx, dx);
  return s;
}

extern "C" smv_status smv_pagerank_cuda(smv_context *ctx, const smv_csr *A,
                                        smv_precision prec, double *r,
                                        const smv_solve_options *opt,
                                        smv_solve_result *res) {
  if (!host_entry(ctx, res))
    return SMV_ERR_ARG;
  smv_solve_options o;
  char why[160];
  if (smv_solve_opts_check(opt, &o, why, sizeof why) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: %s", why);
  if (prec != SMV_F64 && prec != SMV_F32)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: bad precision");
  smv_error err;
  smv_status s = smv_solve_check_matrix(A, "smv_pagerank_cuda", &err);
  if (s != SMV_OK)
    return smv_ctx_set(ctx, s, "%s", err.message);
  const int64_t n = A->rows;
  if (n > 0 && !r)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: NULL vector");
  smv_csr *PT = nullptr;
  int32_t *dl = nullptr;
  int64_t nd = 0;
  double *v = (double *)malloc(((size_t)n + 1) * sizeof(double));
  if (!v)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "smv_pagerank_cuda: out of memory");
  smv_matrix *dPT = nullptr;
  void *dv = nullptr, *dr = nullptr, *ddl = nullptr;
  const size_t es = prec == SMV_F32 ? sizeof(float) : sizeof(double);
  s = smv_pagerank_setup(A, &o, &PT, v, &dl, &nd, &err);
  if (s != SMV_OK) {
    smv_ctx_set(ctx, s, "smv_pagerank_cuda: %s", err.message);
    goto out;
  }
  if ((s = smv_matrix_create(ctx, PT, prec, &dPT)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dv)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dr)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)nd + 1) * sizeof(int32_t), &ddl)) !=
          SMV_OK ||
      (s = upload_vector(ctx, prec, v, dv, n)) != SMV_OK ||
      (nd > 0 && (s = smv_memcpy_h2d(ctx, ddl, dl,
                                     (size_t)nd * sizeof(int32_t))) != SMV_OK))
    goto out;
  s = solve_device(ctx, dPT, SMV_METHOD_PAGERANK, nullptr, dr, dv,
                   (const int32_t *)ddl, nd, &o, res);
  if (s == SMV_OK)
    s = download_vector(ctx, prec, dr, r, n);
out:
  smv_matrix_free(dPT);
  smv_device_free(ctx, dv);
  smv_device_free(ctx, dr);
  smv_device_free(ctx, ddl);
  smv_csr_free(PT);
  free(dl);
  free(v);
  return s;
}
