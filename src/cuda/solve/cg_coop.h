/*
 * cg_coop.h — what the two persistent CG kernels share (src/cuda/solve
 * only): their arguments, the block sizes they come in, the fused
 * multiply-add every recomputation of a gathered value goes through, the
 * block's partial before a grid barrier and the sum of the G partials
 * after it, and the table from (precision, Jacobi, lanes, block size) to
 * one kernel of a variant.
 *
 *   cg_coop.cu   the plan, the launch and the two-barrier kernel (cg2)
 *   cg_coop1.cu  the single-barrier kernel (cg1, Chronopoulos–Gear)
 *   bicgstab_coop.cu  BiCGStab's three-barrier kernel (off by default:
 *                SMV_SOLVE_COOP_BICGSTAB=1)
 */
#ifndef SMV_CUDA_CG_COOP_H
#define SMV_CUDA_CG_COOP_H

#include "solver.h"

namespace smv_solve {

/* Blocks per SM asked of the compiler (__launch_bounds__), so three
 * shapes can be timed against each other: 512 threads, 3 blocks (1536
 * threads an SM at 40 registers, with spills: the shape cg2 was first
 * measured at); 256 threads, 4 blocks and 1024 threads, 1 block (1024
 * threads an SM at 64 registers, no spills; 4 or 1 blocks an SM, so the
 * grid barrier and the all-blocks sum see 4x fewer blocks with 1024). */
constexpr int coop_min_blocks(int bs) {
  return bs >= 1024 ? 1 : bs >= 512 ? 3 : 4;
}

/* The vectors of every variant; a variant leaves the others NULL.
 *   cg2: r, z (= r without Jacobi), p0 / p1 (p by parity), q = A p;
 *   cg1: r0 / r1, w0 / w1 (w = A u), s0 / s1 (s = A p), each by parity,
 *        and p (read and written by its row's owner only);
 *   bicgstab: r, rh (rhat), p0 / p1 and v0 / v1 (v = A phat) by parity,
 *        sv (s) and t (= A shat). */
template <typename T> struct coop_args {
  int64_t n;
  const int32_t *rp, *ci;
  const T *val;
  T *x;
  const T *dinv;
  T *r, *z, *p0, *p1, *q;
  T *r0, *r1, *w0, *w1, *s0, *s1, *p;
  T *rh, *v0, *v1, *sv, *t;
  solve_state *st;
  double *part; /* cg2: 3 G; cg1: 2 x 3 G (by parity); bicgstab: 6 G */
  double *hist;
  int it_end; /* pause (not done) after this iteration            */
};

/* a * b + c rounded once: every thread that recomputes a value another
 * thread stores goes through this, so the bits agree (the compiler's own
 * contraction may differ between two call sites). */
__device__ __forceinline__ double madd(double a, double b, double c) {
  return fma(a, b, c);
}
__device__ __forceinline__ float madd(float a, float b, float c) {
  return fmaf(a, b, c);
}

/* Sum v[] over the warp with xor shuffles: every lane ends with the same
 * bits (each step adds the same two values, in either order). */
template <int NV> __device__ __forceinline__ void warp_allsum(double (&v)[NV]) {
#pragma unroll
  for (int j = 0; j < NV; j++)
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
      v[j] += __shfl_xor_sync(0xffffffffu, v[j], off);
}

/* Each warp's sum of v[] into sh[j * 32 + warp], then a __syncthreads. */
template <int NV>
__device__ __forceinline__ void warps_to_shared(double (&v)[NV], double *sh) {
  warp_allsum<NV>(v);
  if ((threadIdx.x & 31) == 0)
#pragma unroll
    for (int j = 0; j < NV; j++)
      sh[j * 32 + (threadIdx.x >> 5)] = v[j];
  __syncthreads();
}

/* The warps' totals from sh added in the calling warp, in warp order
 * (every lane the same bits). */
template <int NV>
__device__ __forceinline__ void sum_of_warps(double (&v)[NV],
                                             const double *sh) {
  const int lane = threadIdx.x & 31, nw = blockDim.x >> 5;
#pragma unroll
  for (int j = 0; j < NV; j++)
    v[j] = lane < nw ? sh[j * 32 + lane] : 0.0;
  warp_allsum<NV>(v);
}

/* The block's sum of v[] into part[blockIdx.x * NV + j]: warps, then warp
 * 0 over the warps' totals (one __syncthreads). sh (NV * 32 doubles) is
 * this call's own: a grid barrier separates it from its next use. */
template <int NV>
__device__ __forceinline__ void block_partial(double (&v)[NV], double *part,
                                              double *sh) {
  warps_to_shared<NV>(v, sh);
  if (threadIdx.x < 32) {
    sum_of_warps<NV>(v, sh);
    if (threadIdx.x == 0)
#pragma unroll
      for (int j = 0; j < NV; j++)
        part[blockIdx.x * NV + j] = v[j];
  }
}

/* After the grid barrier: the sum of part[b * NV + j] over the G blocks,
 * in every thread of every block, with the same bits everywhere. Every
 * thread loads a fixed stride of the partials (G <= blockDim.x: one load
 * each), the warps add theirs (xor shuffles), one __syncthreads, then
 * every warp adds the warps' totals in the same order. No thread loops
 * over the G partials alone and nothing is broadcast. sh (NV * 32
 * doubles) is this call's own: a grid barrier separates it from its next
 * use. */
template <int NV>
__device__ __forceinline__ void all_sum(double (&v)[NV], const double *part,
                                        int G, double *sh) {
#pragma unroll
  for (int j = 0; j < NV; j++) {
    v[j] = 0.0;
    for (int b = threadIdx.x; b < G; b += blockDim.x)
      v[j] += __ldcg(&part[b * NV + j]);
  }
  warps_to_shared<NV>(v, sh);
  sum_of_warps<NV>(v, sh);
}

/* The loop's bookkeeping, the same in both kernels and in every thread:
 * the constants of the solve, the iteration, the residual, the flags. */
struct coop_run {
  double bnorm, tol, relres, rr; /* rr = r.r after iteration it */
  int maxit, hist_len, it, converged, breakdown, done;
};

/* done is set when the solve had already stopped (the kernel returns at
 * once). Every block reads the state before the first barrier; block 0
 * writes it only after its last one (coop_end). */
__device__ __forceinline__ coop_run coop_begin(const solve_state *st) {
  coop_run c;
  c.bnorm = st->bnorm;
  c.tol = st->tol;
  c.relres = st->s.relres;
  c.rr = st->rr;
  c.maxit = st->maxit;
  c.hist_len = st->hist_len;
  c.it = st->s.iter;
  c.converged = c.breakdown = 0;
  c.done = st->s.done;
  return c;
}

/* After an iteration's sums: relres = sqrt(rr) / bnorm, the history (one
 * thread), the stop test (converged; a non-finite residual: breakdown;
 * maxit). True when the loop ends. */
__device__ __forceinline__ bool coop_step(coop_run &c, double rr,
                                          double *hist) {
  c.rr = rr;
  c.relres = sqrt(rr) / c.bnorm;
  c.it++;
  if (blockIdx.x == 0 && threadIdx.x == 0 && hist && c.it < c.hist_len)
    hist[c.it] = c.relres;
  if (c.relres <= c.tol)
    c.converged = c.done = 1;
  else if (!finite(c.relres))
    c.breakdown = c.done = 1;
  else if (c.it >= c.maxit)
    c.done = 1;
  return c.done != 0;
}

/* The status back into the state (thread 0 of block 0, after the last
 * barrier; every block read the state before its first). */
__device__ __forceinline__ void coop_end(solve_state *st, const coop_run &c) {
  if (blockIdx.x != 0 || threadIdx.x != 0)
    return;
  st->s.iter = c.it;
  st->s.relres = c.relres;
  st->s.converged = c.converged;
  st->s.breakdown = c.breakdown;
  st->s.done = c.done;
  st->rr = c.rr;
}

/* The lanes' mask of a row group of LANES threads. */
template <int LANES> __device__ __forceinline__ unsigned group_mask() {
  return LANES == 32
             ? 0xffffffffu
             : ((1u << LANES) - 1u) << ((threadIdx.x & 31u) & ~(LANES - 1u));
}

/* A thread's place in the row loop: its lane in a group of LANES threads
 * per row, the group's mask, its first row and the rows per grid pass. */
template <int LANES, int BS> struct coop_rows {
  unsigned lane, gmask;
  int64_t first, step;
  __device__ coop_rows()
      : lane(threadIdx.x & (LANES - 1)), gmask(group_mask<LANES>()),
        first(((int64_t)blockIdx.x * BS + threadIdx.x) / LANES),
        step((int64_t)gridDim.x * BS / LANES) {}

  /* Row `row`'s sum of val[k] * at(ci[k]) over its entries, by the group
   * (each lane every LANES-th entry, then shuffles): the total in lane 0. */
  template <typename T, class F>
  __device__ __forceinline__ T row_sum(const coop_args<T> &a, int64_t row,
                                       F at) const {
    const unsigned k0 = (unsigned)__ldg(&a.rp[row]);
    const unsigned k1 = (unsigned)__ldg(&a.rp[row + 1]);
    T s = T(0);
    for (unsigned k = k0 + lane; k < k1; k += LANES)
      s += __ldg(&a.val[k]) * at(__ldg(&a.ci[k]));
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1)
      s += __shfl_down_sync(gmask, s, off, LANES);
    return s;
  }
};

/* The kernel of variant K for one solve's shape: K::get<T, LANES, JAC,
 * BS>() names the instantiation. Block sizes 256, 512 and 1024. */
template <class K, typename T, bool JAC, int BS>
const void *coop_pick_lanes(int lanes) {
  switch (lanes) {
  case 4:
    return K::template get<T, 4, JAC, BS>();
  case 8:
    return K::template get<T, 8, JAC, BS>();
  case 16:
    return K::template get<T, 16, JAC, BS>();
  default:
    return K::template get<T, 32, JAC, BS>();
  }
}

template <class K, typename T, bool JAC>
const void *coop_pick_block(int lanes, int bs) {
  if (bs == 256)
    return coop_pick_lanes<K, T, JAC, 256>(lanes);
  if (bs == 1024)
    return coop_pick_lanes<K, T, JAC, 1024>(lanes);
  return coop_pick_lanes<K, T, JAC, 512>(lanes);
}

template <class K>
const void *coop_pick(bool f32, bool jac, int lanes, int bs) {
  if (f32)
    return jac ? coop_pick_block<K, float, true>(lanes, bs)
               : coop_pick_block<K, float, false>(lanes, bs);
  return jac ? coop_pick_block<K, double, true>(lanes, bs)
             : coop_pick_block<K, double, false>(lanes, bs);
}

/* cg_coop1.cu: the single-barrier kernel for a shape. */
const void *cg1_kernel_for(bool f32, bool jac, int lanes, int bs);
/* bicgstab_coop.cu: the persistent BiCGStab kernel for a shape. */
const void *bicgstab_coop_kernel_for(bool f32, bool jac, int lanes, int bs);

} // namespace smv_solve

#endif
