/*
 * cg_coop.cu — CG as one persistent cooperative kernel: whole iterations,
 * SpMV included, in one launch, with grid-wide synchronisation
 * (cooperative groups) between the phases instead of kernel boundaries.
 *
 * Why. On a matrix that sits in the L2 an iteration's work is a few
 * microseconds; on the graph path (cg.cu) it is four kernels, each with a
 * launch and a drain, and three of them end in a reduction finished by the
 * last block. Here the grid stays resident and an iteration is two phases
 * separated by two grid barriers:
 *
 *   phase 1  p_new = z + beta p_old and q = A p_new, row by row: a group
 *            of LANES threads per row gathers z[j] and p_old[j] and forms
 *            p_new[j] itself (fma, so every thread that forms p_new[j]
 *            gets the same bits as the row's owner, which stores it);
 *            the owner writes p_new[i], q[i] and adds p_new[i] q[i] to
 *            the block's partial.                             -> barrier
 *            every block sums the G partials in the same fixed order:
 *            alpha = rho / p.q (the same bits in every block)
 *   phase 2  x += alpha p, r -= alpha q, z = dinv r; partials of r.z, r.r
 *                                                             -> barrier
 *            every block: rho, beta, the residual, the stop test
 *
 * p is double-buffered (p0, p1 by the iteration's parity) because phase 1
 * gathers p_old from every row while it writes p_new. Per iteration the
 * kernel reads the matrix once (nnz (4 + sizeof T) + 4 (n + 1) bytes) and
 * about 8 n sizeof T bytes of vectors (gathers of z and p counted once).
 *
 * Determinism: the rows, the partials and their sums follow the grid, and
 * the grid is fixed by the device's occupancy: the same bits on every run
 * (not the graph path's bits: its grid and its SpMV differ).
 *
 * Stopping is decided on the device after every iteration, from the same
 * values in every block, so all blocks leave the loop together and the
 * iteration count is exact; the host reads the status once at the end (or
 * at each progress report: the kernel is then relaunched per chunk, state
 * in solve_state).
 *
 * Data written by other blocks inside the kernel (z, p, q, the partials)
 * is read with __ldcg (L2, never a stale L1 line); the matrix with __ldg.
 */
#include "solver.h"

#include <cooperative_groups.h>

#include <cstdlib>

namespace smv_solve {
namespace {

namespace cgr = cooperative_groups;

constexpr int CB = 512;      /* threads per block                     */
constexpr int CB_MIN = 3;    /* blocks per SM asked of the compiler    */
constexpr int CB_PER_SM = 4; /* at most this many blocks per SM        */

template <typename T> struct coop_args {
  int64_t n;
  const int32_t *rp, *ci;
  const T *val;
  T *x, *r, *z, *p0, *p1, *q;
  const T *dinv;
  solve_state *st;
  double *part; /* 3 G doubles: p.q per block, then r.z and r.r   */
  double *hist;
  int it_end; /* pause (not done) after this iteration            */
};

__device__ __forceinline__ double pdir(double z, double beta, double p) {
  return fma(beta, p, z);
}
__device__ __forceinline__ float pdir(float z, float beta, float p) {
  return fmaf(beta, p, z);
}

/* The sum of part[b * NV + j] over the G blocks, in the same order in
 * every block (each thread a fixed stride, then the block tree); the
 * totals are broadcast to every thread through shared memory. */
template <int NV>
__device__ __forceinline__ void all_sum(double (&v)[NV], const double *part,
                                        int G, double *sh, double *bc) {
#pragma unroll
  for (int j = 0; j < NV; j++) {
    v[j] = 0.0;
    for (int b = threadIdx.x; b < G; b += blockDim.x)
      v[j] += __ldcg(&part[b * NV + j]);
  }
  block_sum<NV>(v, sh);
  if (threadIdx.x == 0)
#pragma unroll
    for (int j = 0; j < NV; j++)
      bc[j] = v[j];
  __syncthreads();
#pragma unroll
  for (int j = 0; j < NV; j++)
    v[j] = bc[j];
  __syncthreads(); /* bc may be reused */
}

template <typename T, int LANES, bool JAC>
__global__ void __launch_bounds__(CB, CB_MIN) cg_coop_kernel(coop_args<T> a) {
  __shared__ double sh[2 * 32];
  __shared__ double bc[2];
  cgr::grid_group grid = cgr::this_grid();
  solve_state *st = a.st;
  /* Every block reads the state before the first barrier; block 0 writes
   * it only after its last one. */
  if (st->s.done)
    return;
  const int64_t n = a.n;
  const int G = (int)gridDim.x;
  const double bnorm = st->bnorm, tol = st->tol;
  const int maxit = st->maxit, hist_len = st->hist_len;
  int it = st->s.iter;
  double rho = st->rho, beta = st->beta, relres = st->s.relres, rr = st->rr;
  int converged = 0, breakdown = 0, done = 0;
  const T *z = JAC ? a.z : a.r;
  const unsigned lane = threadIdx.x & (LANES - 1);
  const unsigned gmask = LANES == 32
                             ? 0xffffffffu
                             : ((1u << LANES) - 1u)
                                   << ((threadIdx.x & 31u) & ~(LANES - 1u));
  const int64_t tid = (int64_t)blockIdx.x * CB + threadIdx.x;
  const int64_t nthreads = (int64_t)G * CB;
  double *partA = a.part, *partB = a.part + G;
  while (it < a.it_end) {
    const T *po = (it & 1) ? a.p1 : a.p0;
    T *pn = (it & 1) ? a.p0 : a.p1;
    const T bt = (T)beta;
    /* phase 1: p_new, q = A p_new, p.q */
    double acc[2] = {0.0, 0.0};
    for (int64_t row = tid / LANES; row < n; row += nthreads / LANES) {
      const unsigned k0 = (unsigned)__ldg(&a.rp[row]);
      const unsigned k1 = (unsigned)__ldg(&a.rp[row + 1]);
      T s = T(0);
      for (unsigned k = k0 + lane; k < k1; k += LANES) {
        const int32_t j = __ldg(&a.ci[k]);
        s += __ldg(&a.val[k]) * pdir(__ldcg(&z[j]), bt, __ldcg(&po[j]));
      }
#pragma unroll
      for (int off = LANES / 2; off > 0; off >>= 1)
        s += __shfl_down_sync(gmask, s, off, LANES);
      if (lane == 0) {
        const T pi = pdir(__ldcg(&z[row]), bt, __ldcg(&po[row]));
        pn[row] = pi;
        a.q[row] = s;
        acc[0] += (double)pi * (double)s;
      }
    }
    {
      double v[1] = {acc[0]};
      block_sum<1>(v, sh);
      if (threadIdx.x == 0)
        partA[blockIdx.x] = v[0];
    }
    grid.sync();
    double pq[1];
    all_sum<1>(pq, partA, G, sh, bc);
    if (pq[0] <= 0.0 || !finite(pq[0]) || rho <= 0.0 || !finite(rho)) {
      breakdown = done = 1; /* A or M not positive definite, or p = 0 */
      break;
    }
    const double alpha = rho / pq[0];
    /* phase 2: x, r, z; r.z and r.r */
    const T al = (T)alpha;
    acc[0] = acc[1] = 0.0;
    for (int64_t i = tid; i < n; i += nthreads) {
      const T pi = __ldcg(&pn[i]);
      a.x[i] += al * pi;
      const T ri = a.r[i] - al * __ldcg(&a.q[i]);
      a.r[i] = ri;
      T zi = ri;
      if (JAC) {
        zi = ri * __ldg(&a.dinv[i]);
        a.z[i] = zi;
      }
      acc[0] += (double)ri * (double)zi;
      acc[1] += (double)ri * (double)ri;
    }
    block_sum<2>(acc, sh);
    if (threadIdx.x == 0) {
      partB[2 * blockIdx.x] = acc[0];
      partB[2 * blockIdx.x + 1] = acc[1];
    }
    grid.sync();
    double rz[2];
    all_sum<2>(rz, partB, G, sh, bc);
    rr = rz[1];
    relres = sqrt(rr) / bnorm;
    it++;
    if (blockIdx.x == 0 && threadIdx.x == 0 && a.hist && it < hist_len)
      a.hist[it] = relres;
    beta = rz[0] / rho;
    rho = rz[0];
    if (relres <= tol) {
      converged = done = 1;
      break;
    }
    if (!finite(relres)) {
      breakdown = done = 1;
      break;
    }
    if (it >= maxit) {
      done = 1;
      break;
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->s.iter = it;
    st->s.relres = relres;
    st->s.converged = converged;
    st->s.breakdown = breakdown;
    st->s.done = done;
    st->rho = rho;
    st->beta = beta;
    st->rr = rr;
  }
}

/* Rows of more entries get more lanes: LANES, a power of two in [4, 32],
 * at least half the mean row length (a lane then sums about two entries,
 * two independent loads in flight, and short rows leave few lanes idle). */
int lanes_for(double row_mean) {
  int l = 4;
  while (l < 32 && l < row_mean / 2.0)
    l *= 2;
  return l;
}

template <typename T, bool JAC> const void *kernel_for(int lanes) {
  switch (lanes) {
  case 4:
    return (const void *)cg_coop_kernel<T, 4, JAC>;
  case 8:
    return (const void *)cg_coop_kernel<T, 8, JAC>;
  case 16:
    return (const void *)cg_coop_kernel<T, 16, JAC>;
  default:
    return (const void *)cg_coop_kernel<T, 32, JAC>;
  }
}

const void *coop_kernel(const solver &S) {
  const int l = lanes_for(S.dA->st.row_mean);
  if (S.prec == SMV_F32)
    return S.jac ? kernel_for<float, true>(l) : kernel_for<float, false>(l);
  return S.jac ? kernel_for<double, true>(l) : kernel_for<double, false>(l);
}

/* Work vectors (T each) and the matrix, in bytes: what must stay in the
 * L2 for the persistent kernel to beat the graph path's tuned SpMV. */
double footprint(const solver &S) {
  const double es = S.prec == SMV_F32 ? 4.0 : 8.0;
  const double vecs = S.jac ? 8.0 : 6.0; /* x r p0 p1 q b (+ z dinv) */
  return (double)S.dA->st.nnz * (4.0 + es) + 4.0 * (double)(S.n + 1) +
         vecs * es * (double)S.n;
}

template <typename T> coop_args<T> args_of(solver &S, int it_end) {
  coop_args<T> a;
  a.n = S.n;
  a.rp = S.dA->row_ptr;
  a.ci = S.dA->col_idx;
  a.val = (const T *)S.dA->values;
  a.x = (T *)S.x;
  a.r = S.V<T>(V_R);
  a.z = S.jac ? S.V<T>(V_Z) : S.V<T>(V_R);
  a.p0 = S.V<T>(V_P);
  a.p1 = S.V<T>(V_P2);
  a.q = S.V<T>(V_Q);
  a.dinv = S.V<T>(V_DINV);
  a.st = S.st;
  a.part = S.part;
  a.hist = S.hist;
  a.it_end = it_end;
  return a;
}

} // namespace

bool cg_coop_plan(solver &S, const char **why) {
  const smv_context *ctx = S.ctx;
  const int want = S.o.persistent;
  *why = nullptr;
  if (want < 0) {
    *why = "persistent = -1";
    return false;
  }
  const char *env = getenv("SMV_SOLVE_COOP");
  if (env && env[0] == '0' && env[1] == '\0') {
    *why = "SMV_SOLVE_COOP=0";
    return false;
  }
  if (S.chebyshev) {
    *why = "Chebyshev preconditioning runs on the graph path";
    return false;
  }
  if (S.o.alg != SMV_ALG_AUTO) {
    *why = "an SpMV rung was asked for by name";
    return false;
  }
  int coop = 0;
  if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
                             ctx->device) != cudaSuccess ||
      !coop) {
    cudaGetLastError();
    *why = "the device has no cooperative launch";
    return false;
  }
  if (want == 0 && footprint(S) > (double)ctx->prop.l2CacheSize) {
    *why = "the matrix and vectors outgrow the L2";
    return false;
  }
  int occ = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, coop_kernel(S), CB,
                                                    0) != cudaSuccess ||
      occ < 1) {
    cudaGetLastError();
    *why = "no block of the persistent kernel fits on an SM";
    return false;
  }
  const int per_sm = occ < CB_PER_SM ? occ : CB_PER_SM;
  int64_t g = (int64_t)per_sm * ctx->prop.multiProcessorCount;
  /* No more blocks than rows need (but the grid stays co-resident). */
  const int64_t need = (S.n * lanes_for(S.dA->st.row_mean) + CB - 1) / CB;
  if (need < g)
    g = need > 0 ? need : 1;
  /* Test hook: a grid larger than co-residency allows makes the launch
   * fail (cudaErrorCooperativeLaunchTooLarge), which the driver must
   * survive by falling back to the graph path (tests/test_cuda_solve.c). */
  const char *force = getenv("SMV_SOLVE_COOP_GRID");
  if (force && atoi(force) > 0)
    g = atoi(force);
  S.coop_grid = (unsigned)g;
  return true;
}

cudaError_t cg_coop_launch(solver &S, int it_end) {
  const void *k = coop_kernel(S);
  const dim3 grid(S.coop_grid), block(CB);
  if (S.prec == SMV_F32) {
    coop_args<float> a = args_of<float>(S, it_end);
    void *p[] = {&a};
    return cudaLaunchCooperativeKernel(k, grid, block, p, 0, S.stream);
  }
  coop_args<double> a = args_of<double>(S, it_end);
  void *p[] = {&a};
  return cudaLaunchCooperativeKernel(k, grid, block, p, 0, S.stream);
}

} // namespace smv_solve
