/*
 * spmm_gather.cuh — the column-gather kernel rungs 1 and 5 share (any
 * layout: X(j, c) at X[j * xr + c * xc], Y likewise), and its inner loops,
 * which rung 5's chunk kernel reuses.
 *
 * G lanes per row (a power of two, 1..32) split the row's entries; each
 * lane keeps C accumulators (a register tile of C columns) and per entry
 * loads (col, val) once and gathers X(j, c0 .. c0 + C - 1); the G partial
 * sums are added with xor shuffles in a fixed order (deterministic). k > C
 * loops over tiles of C columns, re-reading the row (from L1/L2). Whole
 * warps iterate together (the shuffles need every lane): rows past the end
 * and rows longer than thr (thr >= 0: rung 5 sums them in chunks) run as
 * empty rows and write nothing.
 */
#ifndef SMV_CUDA_SPMM_GATHER_CUH
#define SMV_CUDA_SPMM_GATHER_CUH

#include "spmm_ladder.h"

#define SPMM_GATHER_BLOCK 256

/* acc[t] = sum over e = e0, e0 + step, .. < e1 of val[e] * X(col[e], c0+t)
 * for t < w (xt points at column c0). */
template <typename T, int C>
__device__ __forceinline__ void
spmm_gather_tile(unsigned e0, unsigned e1, unsigned step,
                 const int32_t *__restrict__ ci, const T *__restrict__ val,
                 const T *__restrict__ xt, int64_t xr, int64_t xc, int w,
                 T (&acc)[C]) {
#pragma unroll
  for (int t = 0; t < C; t++)
    acc[t] = T(0);
  for (unsigned e = e0; e < e1; e += step) {
    const T a = __ldg(val + e);
    const int64_t j = (int64_t)__ldg(ci + e) * xr;
#pragma unroll
    for (int t = 0; t < C; t++)
      if (t < w)
        acc[t] += a * __ldg(xt + j + t * xc);
  }
}

/* Sum acc over aligned groups of G lanes (every lane ends with the total). */
template <typename T, int C>
__device__ __forceinline__ void spmm_gather_reduce(T (&acc)[C], int G) {
#pragma unroll
  for (int t = 0; t < C; t++)
    for (int off = G / 2; off > 0; off /= 2)
      acc[t] += __shfl_xor_sync(0xffffffffu, acc[t], off, G);
}

template <typename T, int C>
__global__ void __launch_bounds__(SPMM_GATHER_BLOCK)
    spmm_gather(int64_t rows, const int32_t *__restrict__ rp,
                const int32_t *__restrict__ ci, const T *__restrict__ val,
                const T *__restrict__ X, int64_t xr, int64_t xc,
                T *__restrict__ Y, int64_t yr, int64_t yc, int k, int G,
                int64_t thr, T alpha, T beta) {
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int wl = threadIdx.x & 31, lane = wl % G, per_warp = 32 / G;
  for (int64_t r0 = warp * per_warp; r0 < rows; r0 += warps * per_warp) {
    const int64_t row = r0 + wl / G;
    bool valid = row < rows;
    unsigned e0 = valid ? (unsigned)rp[row] : 0u;
    unsigned e1 = valid ? (unsigned)rp[row + 1] : 0u;
    if (thr >= 0 && (int64_t)(e1 - e0) > thr) {
      valid = false;
      e1 = e0;
    }
    for (int c0 = 0; c0 < k; c0 += C) {
      T acc[C];
      const int w = k - c0 < C ? k - c0 : C;
      spmm_gather_tile<T, C>(e0 + (unsigned)lane, e1, (unsigned)G, ci, val,
                             X + (int64_t)c0 * xc, xr, xc, w, acc);
      spmm_gather_reduce<T, C>(acc, G);
      if (valid) {
        T *y = Y + row * yr + (int64_t)c0 * yc;
#pragma unroll
        for (int t = 0; t < C; t++)
          if (t < w && t % G == lane)
            y[t * yc] = beta == T(0) ? alpha * acc[t]
                                     : alpha * acc[t] + beta * y[t * yc];
      }
    }
  }
}

#endif
