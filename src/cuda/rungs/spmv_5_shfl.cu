/*
 * spmv_5_shfl.cu — rung 5: rung 4 with a warp-shuffle reduction (the
 * seed's final Kepler kernel).
 *
 * What changed: the 32 partial sums are added in registers with
 * __shfl_down_sync (5 steps, 16..1) instead of through shared memory, so
 * the kernel needs no shared memory at all (occupancy is then limited by
 * registers and warps only) and saves 5 store/load round trips per row.
 * The `_sync` form names the lanes taking part (all 32: the row loop is
 * warp-uniform), which is what keeps it correct under Volta's independent
 * thread scheduling; the seed's mask-less __shfl_xor no longer exists.
 * Where it loses: like every warp-per-row kernel, on rows much shorter
 * than 32 entries most lanes idle.
 *
 * Block size: 32 registers, no shared memory: 64, 128, 256, 512 and 1024
 * threads all reach 64 of 64 warps per SM on sm_90. Tie settled by a block
 * sweep on lap3d:160 f64, one warp per row (ladder.md's rung notes): 128
 * threads fastest, each doubling slower; 64 threads also reach
 * full occupancy but were 50% slower (2M blocks of two warps: block launch
 * rate, not occupancy, limits). On the small cage10 every size from 128 up is
 * within 5%. So 128.
 */
#include "kernel_common.h"

template <typename T>
__global__ void
spmv_vector_shfl(int64_t rows, const int32_t *__restrict__ row_ptr,
                 const int32_t *__restrict__ col_idx, const T *__restrict__ val,
                 const T *__restrict__ x, T alpha, T beta, T *__restrict__ y) {
  /* Rung 4's loads; the reduction in registers instead of smv_reduce_smem. */
  auto reduce_shfl = [=](int64_t row, T sum, unsigned lane, unsigned,
                         unsigned) {
    for (int s = 16; s > 0; s >>= 1)
      sum += __shfl_down_sync(SMV_FULL_MASK, sum, s);
    if (lane == 0)
      y[row] = smv_combine(alpha, sum, beta, &y[row]);
  };
  smv_warp_per_row<T>(
      rows, [=](int64_t i) { return __ldg(&row_ptr[i]); },
      [=](unsigned k) {
        return __ldg(&val[k]) * __ldg(&x[__ldg(&col_idx[k])]);
      },
      reduce_shfl);
}

const struct smv_rung smv_rung_vector_shfl =
    SMV_SIMPLE_RUNG(SMV_ALG_VECTOR_SHFL, spmv_vector_shfl, 32, 0, 128);
