/*
 * scale.cu — y = beta*y, the whole SpMV when alpha = 0 or the matrix has
 * no entries (then A and x are never read, BLAS semantics). beta = 0 writes
 * zeros without reading y, so NaN in y does not survive; beta = 1 is
 * skipped by the dispatcher.
 */
#include "kernel_common.h"

template <typename T>
__global__ void smv_scale_kernel(int64_t n, T beta, T *__restrict__ y) {
  for (int64_t i = smv_tid(); i < n; i += smv_nthreads())
    y[i] = beta == T(0) ? T(0) : beta * y[i];
}

cudaError_t smv_launch_scale(smv_precision prec, int64_t n, double beta,
                             void *y, cudaStream_t stream) {
  if (n <= 0)
    return cudaSuccess;
  const int block = 256;
  /* A bounded grid that loops: 65536 blocks of 256 threads is 64 waves of
   * an H100 (132 SMs x 2048 threads) and keeps gridDim small for any n. */
  unsigned grid = smv_grid_for(n, block);
  if (grid > 65536)
    grid = 65536;
  if (prec != SMV_F32) /* y is double in f64 and f64-f32v */
    return smv_launch_k(smv_scale_kernel<double>, grid, block, 0, stream, n,
                        beta, (double *)y);
  return smv_launch_k(smv_scale_kernel<float>, grid, block, 0, stream, n,
                      (float)beta, (float *)y);
}
