/*
 * kernel_common.h — device-side helpers shared by the rungs (C++ templates,
 * src/cuda only).
 *
 * Index arithmetic: rows may be up to 2^31-1 and a grid may hold more
 * threads than rows, so row and warp numbers are int64_t. Entry indices k
 * are `unsigned`: nnz <= INT32_MAX, so k + 32 (or k + blockDim.x) never
 * wraps, where a signed int could overflow on the last stride of a row
 * that ends near 2^31.
 */
#ifndef SMV_CUDA_KERNEL_COMMON_H
#define SMV_CUDA_KERNEL_COMMON_H

#include "engine.h"

#include <utility>

#define SMV_FULL_MASK 0xffffffffu

/* BLAS semantics for the final write: beta = 0 overwrites y without
 * reading it (NaN already in y never leaks). */
template <typename T>
__device__ __forceinline__ T smv_combine(T alpha, T sum, T beta,
                                         const T *y_at) {
  return beta == T(0) ? alpha * sum : alpha * sum + beta * *y_at;
}

/* Global thread number and thread count of the grid, in 64 bits. */
__device__ __forceinline__ int64_t smv_tid() {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t smv_nthreads() {
  return (int64_t)gridDim.x * blockDim.x;
}

/* Launch `k` and return THIS launch's status. cudaLaunchKernelEx reports
 * the launch's own error, unlike a <<<>>> launch followed by
 * cudaGetLastError(), which would also return a stale, unrelated error left
 * by an earlier failed call (a refused cudaMalloc, say) and make a good
 * SpMV look failed. */
template <typename... Exp, typename... Act>
static inline cudaError_t smv_launch_k(void (*k)(Exp...), unsigned grid,
                                       int block, size_t smem,
                                       cudaStream_t stream, Act &&...args) {
  cudaLaunchConfig_t cfg = {}; /* no attributes */
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3((unsigned)block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  return cudaLaunchKernelEx(&cfg, k, std::forward<Act>(args)...);
}

#endif
