/*
 * solver.h — what the device solvers' files share (src/cuda/solve only;
 * C++): the device-resident state, the deterministic grid reductions, the
 * driver's `solver` (work vectors, launches, the graph loop) and the entry
 * points of each method's iteration.
 *
 *   driver.cu    solve_device: checks, the workspace, the graph / launch loop
 *                (and the choice of the persistent kernel for CG)
 *   setup.cu     the Jacobi diagonal, the pre-pass over A and b, the start
 *   cg.cu        CG's three fused kernels (graph path)
 *   cg_coop.cu   CG as one persistent cooperative kernel: the plan, the
 *                launch, the two-barrier kernel (cg_coop.h: what the
 *                variants share)
 *   cg_coop1.cu  its single-barrier variant (Chronopoulos–Gear)
 *   cg_coop_res.cu  cg1 with each block's slice resident in shared memory
 *   bicgstab_coop.cu  BiCGStab as a persistent kernel (the default where
 *                it fits; SMV_SOLVE_COOP_BICGSTAB=0: the graph path)
 *   chebyshev.cu the Chebyshev polynomial preconditioner (CG)
 *   bicgstab.cu  BiCGStab's four fused kernels
 *   pagerank.cu  PageRank's kernels and smv_pagerank_cuda
 *   host.cu      smv_solve_cuda_host (host vectors in and out)
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
#ifndef SMV_CUDA_SOLVER_H
#define SMV_CUDA_SOLVER_H

#include "engine.h"
#include "kernel_common.h"
#include "solve_internal.h"

#include <cmath>
#include <cstring>

namespace smv_solve {

constexpr int RB = 256; /* threads per block of every graph-path kernel */

/* What the host reads after each replay (one small copy). */
struct solve_status {
  int iter;      /* completed iterations                            */
  int done;      /* stop: converged, breakdown or maxit              */
  int converged; /* relres <= tol                                   */
  int breakdown; /* zero or non-finite denominator                  */
  int zero_rhs;  /* b = 0: the answer is x = 0                       */
  double relres; /* after `iter` iterations                          */
};

/* Device-resident state of one solve (256 bytes at most). */
struct solve_state {
  solve_status s;
  double rho, alpha, beta, omega, bnorm, rr, dang;
  /* the single-barrier persistent CG (cg_coop1.cu): delta = (w, u) and
   * the rho (gamma) of the iteration before */
  double delta, rho_old;
  int half;         /* BiCGStab: converged at the half step (s)         */
  unsigned counter; /* blocks finished in the current reduction         */
  /* constants */
  double tol, damping, inv_n;
  int maxit, hist_len;
};
static_assert(sizeof(solve_state) <= 256, "state fits its slot");

/* The persistent kernels' fused grid reduction (cg_coop.h,
 * grid_sum_sync), in the workspace after the partials. arrived and flag
 * are zeroed before every cooperative launch (cg_coop_launch), so each
 * launch's rounds count from 0: round r's arrivals are r G .. r G + G - 1
 * and flag = r + 1 once round r's sums are in res[(r & 1) NV + j]. */
struct coop_sync {
  unsigned long long arrived; /* blocks arrived, all rounds of the launch */
  unsigned long long flag;    /* rounds whose sums are published          */
  double res[2 * 5];          /* by round parity, NV <= 5 each            */
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
__device__ inline void finish_iteration(solve_state *st, double *hist,
                                        double relres) {
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

/* ---- the kernel both Krylov methods share ------------------------------ */

/* alpha = rho / (a . b): CG's rho / p.q after q = A p, BiCGStab's
 * rho / rhat.v after v = A phat. A zero or non-finite rho or dot stops the
 * method (breakdown); with SPD (CG) so does a negative one: p.Ap <= 0 or
 * r.z <= 0 proves A (or the preconditioner) is not positive definite, and
 * CG would go on without converging. */
template <typename T, bool SPD>
__global__ void alpha_kernel(int64_t n, const T *a, const T *b, solve_state *st,
                             double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) acc[0] += (double)a[i] * (double)b[i];
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0) {
    if (acc[0] == 0.0 || !finite(acc[0]) || st->rho == 0.0 ||
        !finite(st->rho) || (SPD && (acc[0] < 0.0 || st->rho < 0.0))) {
      st->s.breakdown = 1;
      st->s.done = 1;
    } else {
      st->alpha = st->rho / acc[0];
    }
  }
}

/* ---- the driver ---------------------------------------------------------- */

/* Work vectors. P2 is the persistent CG kernel's second p buffer; CD and
 * CW the Chebyshev preconditioner's d and w. The single-barrier persistent
 * CG keeps r in R and Z, w in Q and P2, s in S and T; the persistent
 * BiCGStab p in P and P2, v in Q and Z (cg_coop.cu, args_of). */
enum {
  V_R,
  V_Z,
  V_P,
  V_Q,
  V_RH,
  V_S,
  V_T,
  V_PH,
  V_SH,
  V_DINV,
  V_P2,
  V_CD,
  V_CW,
  V_COUNT
};

struct solver {
  smv_context *ctx;
  smv_matrix *dA;
  cudaStream_t stream;
  smv_method method;
  smv_precision prec;
  bool jac;           /* Jacobi (fused into the vector kernels)             */
  bool chebyshev;     /* CG with the Chebyshev preconditioner (chebyshev.cu) */
  smv_cheb cheb;      /* its coefficients                                 */
  bool coop;          /* CG runs as the persistent kernel (cg_coop.cu) */
  unsigned coop_grid; /* its co-resident grid (cg_coop_plan)            */
  int coop_variant;   /* 2: two barriers an iteration; 1: one (cg_coop1);
                         3: BiCGStab (bicgstab_coop.cu); 4: cg1 resident
                         in shared memory (cg_coop_res.cu)              */
  size_t coop_smem;   /* its dynamic shared memory a block (variant 4)  */
  int32_t *coop_bounds;     /* its blocks' row bounds, G + 1, the row
                               offsets there, G + 1, each block's halo
                               slots, G (+ 1 unused), then their columns'
                               map (cg_res_plan_len): the context's
                               res_plan (engine.h), not owned                */
  int coop_block;           /* its threads per block: 256, 512 or 1024        */
  int coop_lanes;           /* threads per row: 1, 2, 4, ..., 32              */
  int coop_copies;          /* copies of the partials (cg_coop.h, coop_sum)   */
  int64_t coop_copy_stride; /* doubles between two copies (driver.cu)   */
  bool coop_last;           /* sums: the last block to arrive sums and
                               broadcasts (SMV_SOLVE_COOP_SUM=last, a measured
                               loss); false: grid.sync, then every block sums
                               (all, the default)                              */
  bool coop_pr;             /* the resident kernel with the predict-and-
                               recompute recurrence (the default;
                               cg_res_kernel.h); false: cg1's (=res)        */
  coop_sync *sync;          /* the fused reduction's counter, flag, results   */
  int64_t n;
  unsigned grid;
  smv_solve_options o;
  const void *b;
  void *x;
  /* b is taken times bscale (a power of two, so exactly) and x is divided
   * by it at the end, so that ||b||^2 neither underflows (b ~ 1e-200) nor
   * overflows (b ~ 1e160): smv_solve_rhs_scale. 1 for ordinary b. */
  double bscale;
  void *vec[V_COUNT]; /* inside `buf` */
  void *buf;          /* the context's ws_solve (engine.h), not owned */
  solve_state *st;
  double *part, *hist;
  solve_status *h_status; /* pinned: the context's ws_solve_status */
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

  /* Refuse non-finite entries of A or b (naming the row or index) and
   * set bscale; one small copy back. */
  template <typename T> smv_status prepass();
  template <typename T> smv_status setup_jacobi();
  template <typename T> smv_status start();
  template <typename T> smv_status finish(smv_solve_result *res);
  template <typename T> smv_status iterate();
  smv_status spmv(const void *in, void *out) {
    return smv_spmv(ctx, o.alg, 1.0, dA, in, 0.0, out);
  }
  /* The loop's kernels are launched with programmatic stream serialization
   * where the device has it (sm_90+): each may start while the kernel
   * before it still runs and waits (smv_pdl_wait, its first statement)
   * for that kernel's results, so a launch's latency overlaps the end of
   * the kernel before. Rung 9's SpMV does the same. The first failed
   * launch is kept for launched(). */
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
  /* Destroy the graph; the workspace and coop_bounds stay with the
   * context. failed: wait for the stream first (driver.cu). */
  void release(bool failed);
};

/* One iteration's launches of each method (captured into the graph), for
 * T = float and double. */
template <typename T> smv_status cg_iterate(solver &S);
template <typename T> smv_status bicgstab_iterate(solver &S);
template <typename T> smv_status pagerank_iterate(solver &S);
template <typename T> smv_status pagerank_start(solver &S);
/* Chebyshev (chebyshev.cu): the inverse diagonal and the coefficients;
 * z = M^-1 r followed by r.z (start: rho and p = z; else beta and rho). */
template <typename T> smv_status cheb_setup(solver &S);
template <typename T> smv_status cheb_apply(solver &S, bool start);

/* The persistent cooperative CG (cg_coop.cu), and BiCGStab where
 * SMV_SOLVE_COOP_BICGSTAB=1 (bicgstab_coop.cu). cg_coop_plan: whether it
 * can run this solve (cooperative launch, co-resident grid, the size rule
 * of o.persistent), setting S.grid to its co-resident grid; *why says why
 * not. cg_coop_launch: iterations from the started state until done or
 * iteration it_end (a progress report); returns the launch's error
 * untouched (cudaErrorCooperativeLaunchTooLarge under MPS or with too
 * many blocks), so the caller can fall back before any iteration ran. */
bool cg_coop_plan(solver &S, const char **why);
cudaError_t cg_coop_launch(solver &S, int it_end);

/* What the host-vector entry points do first: clear *res, then need ctx
 * (without it there is nowhere to put a message). */
inline bool host_entry(const smv_context *ctx, smv_solve_result *res) {
  if (res)
    memset(res, 0, sizeof *res);
  return ctx != nullptr;
}

/* Device vector <-> host doubles (host.cu): f32 goes through a host
 * buffer of floats. */
smv_status upload_vector(smv_context *ctx, smv_precision prec, const double *in,
                         void *d, int64_t n);
smv_status download_vector(smv_context *ctx, smv_precision prec, const void *d,
                           double *out, int64_t n);

/* Allocate, initialise the state, run; everything the three methods share.
 * For PageRank dA is the transposed transition matrix, v the teleport
 * vector and x the rank vector (driver.cu). */
smv_status solve_device(smv_context *ctx, smv_matrix *dA, smv_method method,
                        const void *b, void *x, const void *v,
                        const int32_t *dl, int64_t nd,
                        const smv_solve_options *opt, smv_solve_result *res);

} // namespace smv_solve

#endif
