/*
 * cg_coop.h — what the two persistent CG kernels share (src/cuda/solve
 * only): their arguments, the block sizes they come in, the fused
 * multiply-add every recomputation of a gathered value goes through, the
 * block's partial and the sum of the G partials, the grid-wide sum that
 * is also the barrier (coop_sum: grid.sync then every block sums, or the
 * last block to arrive sums and broadcasts, grid_sum_sync), and the table
 * from (precision, Jacobi, lanes, block size, sum) to one kernel of a
 * variant.
 *
 *   cg_coop.cu   the plan, the launch and the two-barrier kernel (cg2)
 *   cg_coop1.cu  the single-barrier kernel (cg1, Chronopoulos–Gear)
 *   cg_res_kernel.h  each block's slice of the matrix and of its vectors
 *                resident in shared memory, with the predict-and-recompute
 *                recurrence (the default) or cg1's (=res); instantiated in
 *                cg_coop_res.cu (res, and the plan) and cg_coop_res_pr.cu
 *   bicgstab_coop.cu  BiCGStab's three-barrier kernel (the default where
 *                it fits; SMV_SOLVE_COOP_BICGSTAB=0 turns it off)
 */
#ifndef SMV_CUDA_CG_COOP_H
#define SMV_CUDA_CG_COOP_H

#include "coop_phases.h"
#include "solver.h"

#include <cooperative_groups.h>

namespace smv_solve {

/* Blocks per SM asked of the compiler (__launch_bounds__): 1024 threads
 * an SM at 64 registers in every shape (256 threads, 4 blocks; 512, 2;
 * 1024, 1), so the shapes are timed against each other at one register
 * budget. 512 threads at 2 (not 3, the 40-register shape cg2 was first
 * measured at, with heavy spills): the resident kernel runs one such
 * block an SM by default. At 64 registers most kernels still spill a few
 * words (16-40 bytes a thread, ptxas -v); a 512-thread block alone on an
 * SM could have 128, a shape not yet measured. */
constexpr int coop_min_blocks(int bs) {
  return bs >= 1024 ? 1 : bs >= 512 ? 2 : 4;
}

/* The vectors of every variant; a variant leaves the others NULL.
 *   cg2: r, z (= r without Jacobi), p0 / p1 (p by parity), q = A p;
 *   cg1: r0 / r1, w0 / w1 (w = A u), s0 / s1 (s = A p), each by parity,
 *        and p (read and written by its row's owner only); the resident
 *        kernel's pr recurrence: w0 / w1 hold p by parity, s = A p
 *        computed, and part holds 2 x NV G (NV = 4, 5 with Jacobi);
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
  double *part;    /* cg2: 3 G; cg1: 2 x 3 G (by parity); bicgstab: 6 G */
  coop_sync *sync; /* the fused reduction (grid_sum_sync); zeroed       */
  double *hist;
  int it_end; /* pause (not done) after this iteration            */
  /* The partials are written to `copies` copies of that layout, copy c
   * at part + c * copy_stride doubles; block b sums copy b % copies
   * (all_sum). 1 = one copy. */
  int copies;
  int64_t copy_stride;
  /* The resident kernel (cg_coop_res.cu): block b owns rows
   * [bounds[b], bounds[b + 1]); its entries' columns in the slice's
   * numbering at rci[rp[bounds[b]] + k] and its halo's columns at
   * rhcol[rp[bounds[b]] + h] (the plan's map, res_halo_map_kernel). NULL
   * for the others. */
  const int32_t *bounds, *rci, *rhcol;
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

/* The least power of two >= n (n <= 32): the width of warp_scatter_sum's
 * butterfly. */
__host__ __device__ constexpr int coop_pow2_at_least(int n) {
  return n <= 1 ? 1 : 2 * coop_pow2_at_least((n + 1) / 2);
}
__host__ __device__ constexpr int coop_log2(int p) {
  return p <= 1 ? 0 : 1 + coop_log2(p / 2);
}

/* The warp's sum of v[e] at e = lane >> (5 - log2 P), P =
 * coop_pow2_at_least(NV) (0 where e >= NV): a transposed butterfly. At
 * offset 16 each lane keeps half of its P values (the upper half where
 * its bit 4 is set), sends its partner the other half and adds what it
 * gets; then halves again at 8, 4, ... until one value is left, and plain
 * xor steps for the offsets left. Shuffles a lane (doubles): P - 1 + 5 -
 * log2 P (NV = 3: 6, NV = 5: 9) against 5 NV for a butterfly of every
 * value (15, 25); a block's warps issue them all at once, and a shuffle
 * is one warp instruction a clock an SM, so their count, not their
 * depth, sets the time. Partners add the same two values (in either
 * order), so the lanes of one e hold the same bits. */
template <int NV>
__device__ __forceinline__ double warp_scatter_sum(const double (&v)[NV]) {
  constexpr int P = coop_pow2_at_least(NV);
  double t[P];
#pragma unroll
  for (int i = 0; i < P; i++)
    t[i] = i < NV ? v[i] : 0.0;
  const unsigned lane = threadIdx.x & 31u;
#pragma unroll
  for (int L = P, off = 16; L > 1; L >>= 1, off >>= 1) {
    const bool hi = (lane & (unsigned)off) != 0;
#pragma unroll
    for (int i = 0; i < L / 2; i++) {
      const double send = hi ? t[i] : t[i + L / 2];
      const double keep = hi ? t[i + L / 2] : t[i];
      t[i] = keep + __shfl_xor_sync(0xffffffffu, send, off);
    }
  }
  double s = t[0];
#pragma unroll
  for (int off = 16 >> coop_log2(P); off > 0; off >>= 1)
    s += __shfl_xor_sync(0xffffffffu, s, off);
  return s;
}

/* Each warp's sum of v[] into sh[j * 32 + warp] (one lane per j writes),
 * then a __syncthreads. Warps at or past `warps` hold only zeros and skip
 * the shuffles (they still reach the barrier). */
template <int NV>
__device__ __forceinline__ void warps_to_shared(const double (&v)[NV],
                                                double *sh, int warps) {
  constexpr int SH = 5 - coop_log2(coop_pow2_at_least(NV));
  const int w = (int)(threadIdx.x >> 5);
  if (w < warps) {
    const double s = warp_scatter_sum<NV>(v);
    const int lane = (int)(threadIdx.x & 31u), e = lane >> SH;
    if ((lane & ((1 << SH) - 1)) == 0 && e < NV)
      sh[e * 32 + w] = s;
  }
  __syncthreads();
}

/* Thread j < NV: sh[j * 32 + w] added over the first `warps` warps in
 * warp order (a fixed order: the same bits wherever it runs). */
template <int NV>
__device__ __forceinline__ double warps_total(const double *sh, int j,
                                              int warps) {
  double s = 0.0;
  for (int w = 0; w < warps; w++)
    s += sh[j * 32 + w];
  return s;
}

/* The block's sum of v[] into part[j * G + blockIdx.x] of each of the
 * `copies` copies (copy c at part + c * stride): the warps
 * (warps_to_shared), then thread j adds the warps' totals of sum j and
 * writes it. j-major, so a reader's warp loads 32 consecutive doubles of
 * one j (256 bytes, 8 full sectors), where block-major [b * NV + j]
 * spread them over NV times the sectors. sh (NV * 32 doubles) is this
 * call's own: a grid barrier (or grid_sum_sync's __syncthreads)
 * separates it from its next use. v is left as it came. */
template <int NV>
__device__ __forceinline__ void
block_partial(const double (&v)[NV], double *part, double *sh, int copies = 1,
              int64_t stride = 0) {
  const int nw = (int)(blockDim.x >> 5);
  warps_to_shared<NV>(v, sh, nw);
  if (threadIdx.x < (unsigned)NV) {
    const int j = (int)threadIdx.x;
    const double s = warps_total<NV>(sh, j, nw);
    for (int c = 0; c < copies; c++)
      part[(int64_t)c * stride + (int64_t)j * gridDim.x + blockIdx.x] = s;
  }
}

/* After the grid barrier: the sum of part[j * G + b] over the G blocks,
 * in every thread of every block, with the same bits everywhere. Every
 * thread loads a fixed stride of the partials (G <= blockDim.x: one load
 * each); the warps that hold any (the first ceil(G / 32)) add theirs
 * (warps_to_shared); thread j adds those warps' totals of sum j in warp
 * order and leaves it in sh[j * 32]; a second __syncthreads, and every
 * thread reads the NV sums. No thread loops over the G partials alone,
 * and warps past the partials skip the shuffles. sh (NV * 32 doubles) is this
 * call's own: a grid barrier separates it from its next use. */
template <int NV>
__device__ __forceinline__ void all_sum(double (&v)[NV], const double *part,
                                        int G, double *sh) {
  /* Every load of a pass over the NV sums and two strides of blocks is
   * issued before the first add: one L2 round trip for G <= 2 x the block
   * size (each thread's sums in the order b, b + blockDim.x, ..., as
   * before). A loop over j outside the loop over b would put NV (or 2 NV)
   * round trips of lines every SM reads at once on the critical path. */
  const int B = (int)blockDim.x;
#pragma unroll
  for (int j = 0; j < NV; j++)
    v[j] = 0.0;
  int b = (int)threadIdx.x;
  for (; b + B < G; b += 2 * B) {
    double t0[NV], t1[NV];
#pragma unroll
    for (int j = 0; j < NV; j++) {
      t0[j] = __ldcg(&part[j * G + b]);
      t1[j] = __ldcg(&part[j * G + b + B]);
    }
#pragma unroll
    for (int j = 0; j < NV; j++)
      v[j] = v[j] + t0[j] + t1[j];
  }
  if (b < G) {
    double t0[NV];
#pragma unroll
    for (int j = 0; j < NV; j++)
      t0[j] = __ldcg(&part[j * G + b]);
#pragma unroll
    for (int j = 0; j < NV; j++)
      v[j] += t0[j];
  }
  SMV_PH(8);
  const int nw = (int)(blockDim.x >> 5), held = (G + 31) / 32;
  const int W = held < nw ? held : nw;
  warps_to_shared<NV>(v, sh, W);
  if (threadIdx.x < (unsigned)NV) /* its own row of sh: no other reader */
    sh[threadIdx.x * 32] = warps_total<NV>(sh, (int)threadIdx.x, W);
  __syncthreads();
#pragma unroll
  for (int j = 0; j < NV; j++)
    v[j] = sh[j * 32];
}

/* Round r's flag and counter, acquire and release at gpu scope. */
__device__ __forceinline__ unsigned long long
ld_acquire_gpu(const unsigned long long *p) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
               : "=l"(v)
               : "l"(p)
               : "memory");
  return v;
}
__device__ __forceinline__ void st_release_gpu(unsigned long long *p,
                                               unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v)
               : "memory");
}

/* The fused grid reduction, in place of block_partial; grid.sync();
 * all_sum: arrive, the last block to arrive sums, it broadcasts.
 *
 * Why. After grid.sync every block reads all G partials (G x NV doubles
 * each: G^2 x NV x 8 bytes of L2 reads a round, every SM on the same
 * lines; G = 528 blocks, NV = 3: 6.7 MB), which costs more than the
 * barrier at the grids the persistent kernels run. Here the G x NV
 * doubles are read once a round, by the last block to arrive (G x NV x 8
 * bytes), and each other block reads the NV sums back (NV x 8 bytes).
 *
 * Steps, for round r of this launch (every block counts its rounds, the
 * same in all: the kernels call it at the same places):
 *   1. the block's partials into part[j * G + blockIdx.x] (block_partial),
 *      __syncthreads (every thread's writes of the round, vectors
 *      included, precede thread 0's fence);
 *   2. thread 0: __threadfence, atomicAdd(arrived, 1) -> t. No block
 *      arrives at round r + 1 before round r is published, and that needs
 *      all G arrivals of round r, so round r's arrivals are exactly
 *      r G .. r G + G - 1: t == r G + G - 1 marks the last block;
 *   3. the last block: __threadfence, then all_sum over part (the same
 *      function, so the same order and bits as the `all` path, whichever
 *      block is last), thread 0 stores the NV sums in res[(r & 1) NV + j],
 *      __threadfence, then flag = r + 1 (st.release);
 *   4. the others: thread 0 spins on ld.acquire(flag) until it reaches
 *      r + 1, __threadfence, __syncthreads, then every thread reads the
 *      NV sums (__ldcg).
 *
 * Memory order (a full grid barrier, as grid.sync, whose implementation
 * is the same arrive-fence pattern): block B's writes -> bar.sync -> B's
 * fence -> B's arrival; the last block's atomic reads the counter after
 * every other arrival of the round (one location, one modification
 * order), then fences, so B's writes precede the last block's reads of
 * the partials, its stores of the sums and its release of the flag; a
 * waiter's acquire of the flag, fence and bar.sync make
 * all of it visible to every thread of the waiter. Data other blocks wrote
 * is read with __ldcg after it (as after grid.sync). Spinning is safe
 * because the cooperative launch keeps all G blocks co-resident.
 *
 * Reuse. res is double-buffered by round parity: res[r & 1] is rewritten
 * in round r + 2, whose last arrival needs every block past round r + 1,
 * so past its read of round r's sums. part needs no parity for this
 * function (its one reader, the last block, is done before the flag lets
 * anyone write the next round's) but the callers keep theirs, which the
 * `all` path needs. sh_blk and sh_all are this call's own (the
 * __syncthreads of step 1 separates two calls). */
template <int NV>
__device__ __forceinline__ void
grid_sum_sync(double (&v)[NV], double *part, coop_sync *sy, unsigned round,
              int G, double *sh_blk, double *sh_all) {
  static_assert(NV >= 1 && NV <= 5, "coop_sync holds 5 sums a round");
  __shared__ int last;
  block_partial<NV>(v, part, sh_blk);
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned long long t = atomicAdd(&sy->arrived, 1ull);
    last = t == (unsigned long long)round * (unsigned)G + (unsigned)(G - 1);
    if (last)
      __threadfence();
  }
  __syncthreads();
  double *res = sy->res + (round & 1u) * NV;
  if (last) {
    all_sum<NV>(v, part, G, sh_all);
    if (threadIdx.x == 0) {
#pragma unroll
      for (int j = 0; j < NV; j++)
        res[j] = v[j];
      __threadfence();
      st_release_gpu(&sy->flag, (unsigned long long)round + 1ull);
    }
    return;
  }
  if (threadIdx.x == 0) {
    while (ld_acquire_gpu(&sy->flag) <= (unsigned long long)round) {
    }
    __threadfence();
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < NV; j++)
    v[j] = __ldcg(&res[j]);
}

/* An iteration's grid-wide sums, the one place the kernels choose how
 * (SMV_SOLVE_COOP_SUM, a template bool so the other path costs nothing):
 * LAST, grid_sum_sync; else block_partial, grid.sync(), all_sum. v[] in:
 * the thread's terms; out: the G blocks' sums, the same bits in every
 * thread of every block, and the same bits either way. */
template <bool LAST> struct coop_sum {
  cooperative_groups::grid_group grid;
  coop_sync *sy;
  unsigned round; /* this launch's rounds so far (LAST) */
  int G, copies;
  int64_t stride;
  template <typename T>
  __device__ explicit coop_sum(const coop_args<T> &a)
      : grid(cooperative_groups::this_grid()), sy(a.sync), round(0),
        G((int)gridDim.x), copies(a.copies), stride(a.copy_stride) {}
  template <int NV>
  __device__ __forceinline__ void operator()(double (&v)[NV], double *part,
                                             double *sh_blk, double *sh_all) {
    if (LAST) {
      grid_sum_sync<NV>(v, part, sy, round++, G, sh_blk, sh_all);
      SMV_PH(4);
    } else {
      /* Copies (SMV_SOLVE_COOP_COPIES, default 1): after the barrier
       * every block reads all G partials, all SMs the same G x NV doubles
       * at once; block b reads copy b % copies, so each line has copies
       * x fewer readers. With the partials j-major this measured no
       * faster (micro/gridsync, sync_sum_copies): the sum's cost is its
       * G x NV loads a block, not the queue at the lines. A knob, kept
       * as a measured non-gain. The same values in the same order: the
       * same bits with any count. */
      block_partial<NV>(v, part, sh_blk, copies, stride);
      SMV_PH(2);
      grid.sync();
      SMV_PH(3);
      all_sum<NV>(v, part + (int64_t)(blockIdx.x % (unsigned)copies) * stride,
                  G, sh_all);
      SMV_PH(4);
    }
  }
};

/* The loop's bookkeeping, the same in both kernels and in every thread:
 * the constants of the solve, the iteration, the residual, the flags.
 * rr_hi: a residual r.r above it is certainly not converged (relres =
 * sqrt(rr) / bnorm > tol), so coop_step skips the square root and the
 * division there; it0: the iteration the launch began at. */
struct coop_run {
  double bnorm, tol, relres, rr; /* rr = r.r after iteration it */
  double rr_hi;
  int maxit, hist_len, it, it0, converged, breakdown, done;
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
  c.it = c.it0 = st->s.iter;
  c.converged = c.breakdown = 0;
  c.done = st->s.done;
  /* (tol bnorm)^2 with a margin of 1e-6 (far above the roundings of the
   * square root, the division and this product), so that rr > rr_hi
   * implies relres > tol. tol = 0 (fixed iterations): only rr = 0 can
   * converge. Where the square underflows or overflows, every rr takes
   * the exact test. */
  const double t = c.tol * c.bnorm, t2 = t * t * (1.0 + 1e-6);
  c.rr_hi = c.tol == 0.0 ? 0.0 : (t2 > 0.0 && t2 < HUGE_VAL) ? t2 : HUGE_VAL;
  /* With bnorm below 1e-150, sqrt(rr) / bnorm can overflow to infinity
   * for a finite rr (a breakdown by the exact test): take the exact test
   * always there (the solvers scale b so that bnorm >= 2^-300). */
  if (!(c.bnorm >= 1e-150))
    c.rr_hi = HUGE_VAL;
  return c;
}

/* After an iteration's sums: the history (one thread: r.r, which coop_end
 * turns into relres), the stop test (converged; a non-finite residual:
 * breakdown; maxit). True when the loop ends.
 *
 * Why r.r and not relres here: the square root and the division by bnorm
 * are two dependent double-precision sequences on every block's critical
 * path between the grid sum and the next iteration, in every iteration.
 * Far from convergence (rr > rr_hi, finite) the decision needs neither;
 * near it the exact test below decides, as before, so the stopping
 * iteration is unchanged. relres itself is formed once, in coop_end. */
__device__ __forceinline__ bool coop_step(coop_run &c, double rr,
                                          double *hist) {
  c.rr = rr;
  c.it++;
  if (blockIdx.x == 0 && threadIdx.x == 0 && hist && c.it < c.hist_len)
    hist[c.it] = rr;
  if (rr > c.rr_hi && rr < HUGE_VAL) {
    if (c.it >= c.maxit)
      c.done = 1;
    return c.done != 0;
  }
  const double relres = sqrt(rr) / c.bnorm;
  if (relres <= c.tol)
    c.converged = c.done = 1;
  else if (!finite(relres))
    c.breakdown = c.done = 1;
  else if (c.it >= c.maxit)
    c.done = 1;
  return c.done != 0;
}

/* The status back into the state (thread 0 of block 0, after the last
 * barrier; every block read the state before its first), relres from the
 * last r.r, and this launch's history entries from r.r to relres (block
 * 0's threads; the same sqrt(rr) / bnorm as relres). Every thread of
 * block 0 calls it. */
__device__ __forceinline__ void coop_end(solve_state *st, coop_run &c,
                                         double *hist) {
  if (blockIdx.x != 0)
    return;
  if (c.it != c.it0)
    c.relres = sqrt(c.rr) / c.bnorm;
  if (hist) {
    __syncthreads(); /* thread 0's history stores, before the others read */
    const int end = c.it < c.hist_len - 1 ? c.it : c.hist_len - 1;
    for (int i = c.it0 + 1 + (int)threadIdx.x; i <= end; i += blockDim.x)
      hist[i] = sqrt(hist[i]) / c.bnorm;
  }
  if (threadIdx.x != 0)
    return;
  st->s.iter = c.it;
  st->s.relres = c.relres;
  st->s.converged = c.converged;
  st->s.breakdown = c.breakdown;
  st->s.done = c.done;
  st->rr = c.rr;
}

/* cg1's recurrences (cg_coop1.cu; the resident kernel, cg_coop_res.cu,
 * uses the same): iteration k's values at one row from the old r, w, s
 * there. */
template <typename T> struct cg1_next { T s, r, u; };
template <typename T, bool JAC>
__device__ __forceinline__ cg1_next<T> next_at(T r, T w, T s, T d, T bt,
                                               T nal) {
  cg1_next<T> o;
  o.s = madd(bt, s, w);
  o.r = madd(nal, o.s, r);
  o.u = JAC ? o.r * d : o.r;
  return o;
}

/* u at row j from the r stored there (the start's r0, or an owner's
 * r_new: the same bits as next_at's u). */
template <typename T, bool JAC>
__device__ __forceinline__ T u_at(const T *r, const T *dinv, int64_t j) {
  const T rj = __ldcg(&r[j]);
  return JAC ? rj * __ldg(&dinv[j]) : rj;
}

/* cg1's scalar recurrence (cg_coop1.cu, cg_coop_res.cu), the same bits in
 * every thread: gamma, gamma_old, delta and alpha_old from the solve's
 * state, each iteration's beta and alpha from them, the next sums, and
 * back into the state after the last barrier. */
struct cg1_scalars {
  double gam, gam_old, del, alpha_old, alpha, beta;
  __device__ explicit cg1_scalars(const solve_state *st)
      : gam(st->rho), gam_old(st->rho_old), del(st->delta),
        alpha_old(st->alpha), alpha(0.0), beta(0.0) {}
  /* beta and alpha of iteration it; false when gamma <= 0 (M not positive
   * definite) or p.Ap <= 0 (A not), or either is not finite. */
  __device__ __forceinline__ bool step(int it) {
    double den = del;
    beta = 0.0;
    if (it > 0) {
      /* beta and gamma / alpha_old are independent divisions (issued
       * together), so alpha's chain is two divisions deep, not three. */
      beta = gam / gam_old;
      const double q = gam / alpha_old;
      den = fma(-beta, q, del);
    }
    if (!(gam > 0.0) || !finite(gam) || !(den > 0.0) || !finite(den))
      return false;
    alpha = gam / den;
    return true;
  }
  /* After the iteration's sums: gamma and delta of the next. */
  __device__ __forceinline__ void next(double g, double d) {
    gam_old = gam;
    alpha_old = alpha;
    gam = g;
    del = d;
  }
  /* Thread 0 of block 0, after the last barrier (coop_end's rule). */
  __device__ __forceinline__ void store(solve_state *st) const {
    if (blockIdx.x != 0 || threadIdx.x != 0)
      return;
    st->rho = gam;
    st->rho_old = gam_old;
    st->delta = del;
    st->alpha = alpha_old;
  }
};

/* The predict-and-recompute CG's scalars (the resident kernel's pr
 * recurrence, cg_coop_res.cu), the same bits in every thread: nu = r.z,
 * mu = p.s, sig = s.z and tau = s.Ms of the current iterate (z = M r, s =
 * A p computed, not recurred). alpha = nu / mu from the recomputed nu;
 * beta from the next nu predicted, nu - 2 alpha sig + alpha^2 tau (the
 * expansion of r_new.M r_new for r_new = r - alpha s, M symmetric). Kept
 * in the solve's state between launches in rho, delta, rho_old and alpha
 * (cg1's fields; the two recurrences never share a solve). */
struct pr_scalars {
  double nu, mu, sig, tau, alpha, beta;
  __device__ explicit pr_scalars(const solve_state *st)
      : nu(st->rho), mu(st->delta), sig(st->rho_old), tau(st->alpha),
        alpha(0.0), beta(0.0) {}
  /* alpha and beta of this iteration; false when nu <= 0 (M not positive
   * definite), p.Ap <= 0 (A not), or a scalar is not finite. */
  __device__ __forceinline__ bool step() {
    if (!(nu > 0.0) || !finite(nu) || !(mu > 0.0) || !finite(mu))
      return false;
    alpha = nu / mu;
    const double nup = fma(alpha, fma(alpha, tau, -2.0 * sig), nu);
    beta = nup / nu;
    return finite(alpha) && finite(beta);
  }
  /* After the iteration's sums (nu, mu, sig, tau; r.r after them with
   * Jacobi). */
  template <int NV>
  __device__ __forceinline__ void next(const double (&v)[NV]) {
    static_assert(NV >= 4, "pr sums four values at least");
    nu = v[0];
    mu = v[1];
    sig = v[2];
    tau = v[3];
  }
  /* Thread 0 of block 0, after the last barrier (coop_end's rule). */
  __device__ __forceinline__ void store(solve_state *st) const {
    if (blockIdx.x != 0 || threadIdx.x != 0)
      return;
    st->rho = nu;
    st->delta = mu;
    st->rho_old = sig;
    st->alpha = tau;
  }
};

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
    /* Unrolled so a lane's next entries' index, value and gathered loads
     * are in flight together (the sum's order is unchanged: the same
     * bits); with one or two lanes a row this is where the latency
     * hides. */
#pragma unroll 4
    for (unsigned k = k0 + lane; k < k1; k += LANES)
      s += __ldg(&a.val[k]) * at(__ldg(&a.ci[k]));
#pragma unroll
    for (int off = LANES / 2; off > 0; off >>= 1)
      s += __shfl_down_sync(gmask, s, off, LANES);
    return s;
  }
};

/* The kernel of variant K for one solve's shape: K::get<T, LANES, JAC,
 * BS, LAST>() names the instantiation. Block sizes 256, 512 and 1024;
 * LAST: the sums by grid_sum_sync (else grid.sync and all_sum). */
template <class K, typename T, bool JAC, int BS, bool LAST>
const void *coop_pick_lanes(int lanes) {
  switch (lanes) {
  case 1:
    return K::template get<T, 1, JAC, BS, LAST>();
  case 2:
    return K::template get<T, 2, JAC, BS, LAST>();
  case 4:
    return K::template get<T, 4, JAC, BS, LAST>();
  case 8:
    return K::template get<T, 8, JAC, BS, LAST>();
  case 16:
    return K::template get<T, 16, JAC, BS, LAST>();
  default:
    return K::template get<T, 32, JAC, BS, LAST>();
  }
}

template <class K, typename T, bool JAC, bool LAST>
const void *coop_pick_block(int lanes, int bs) {
  if (bs == 256)
    return coop_pick_lanes<K, T, JAC, 256, LAST>(lanes);
  if (bs == 1024)
    return coop_pick_lanes<K, T, JAC, 1024, LAST>(lanes);
  return coop_pick_lanes<K, T, JAC, 512, LAST>(lanes);
}

template <class K, bool LAST>
const void *coop_pick_prec(bool f32, bool jac, int lanes, int bs) {
  if (f32)
    return jac ? coop_pick_block<K, float, true, LAST>(lanes, bs)
               : coop_pick_block<K, float, false, LAST>(lanes, bs);
  return jac ? coop_pick_block<K, double, true, LAST>(lanes, bs)
             : coop_pick_block<K, double, false, LAST>(lanes, bs);
}

template <class K>
const void *coop_pick(bool f32, bool jac, int lanes, int bs, bool last) {
  return last ? coop_pick_prec<K, true>(f32, jac, lanes, bs)
              : coop_pick_prec<K, false>(f32, jac, lanes, bs);
}

/* cg_coop1.cu: the single-barrier kernel for a shape. */
const void *cg1_kernel_for(bool f32, bool jac, int lanes, int bs, bool last);
/* cg_coop_res.cu: the resident kernel for a shape (pr: the predict-and-
 * recompute recurrence); the shared-memory
 * bytes of a slice of nb rows, ne entries and nh halo slots (es bytes a
 * value); the length of the bounds array (3 (G + 1) int32: the bounds,
 * the row offsets there, then each block's halo slots and one unused
 * zero) and of the plan's whole array (the bounds, then the map: nnz
 * renumbered columns, then up to nnz halo columns, block b's at offset
 * rp[bounds[b]] of each). cg_res_bounds computes the slices' row bounds
 * for a grid of G blocks and their map on the device into d_plan
 * (cg_res_plan_len) and copies the bounds to h_bounds (cg_res_bounds_len;
 * S.stream is synchronised); rebalance and map_keys are the knobs
 * SMV_SOLVE_COOP_REBALANCE and SMV_SOLVE_COOP_MAP_KEYS as res_plan read
 * them (its plan's key). */
const void *cgres_kernel_for(bool f32, bool jac, int lanes, int bs, bool last,
                             bool pr);
/* cg_coop_res_pr.cu: the resident kernel's pr instantiations (through
 * cgres_kernel_for). */
const void *cgres_pr_kernel_for(bool f32, bool jac, int lanes, int bs,
                                bool last);
inline size_t cg_res_bounds_len(int G) { return 3 * ((size_t)G + 1); }
inline size_t cg_res_plan_len(int G, int64_t nnz) {
  return cg_res_bounds_len(G) + 2 * (size_t)nnz;
}
size_t cg_res_bytes(int64_t nb, int64_t ne, int64_t nh, int es, bool jac);
cudaError_t cg_res_bounds(const solver &S, int G, bool rebalance, int map_keys,
                          int32_t *d_plan, int32_t *h_bounds);
/* bicgstab_coop.cu: the persistent BiCGStab kernel for a shape. */
const void *bicgstab_coop_kernel_for(bool f32, bool jac, int lanes, int bs,
                                     bool last);

} // namespace smv_solve

#endif
