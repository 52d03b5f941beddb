/*
 * spmv_6_atomic.cu — rung 6: the warp's partial sums added into y with
 * atomicAdd instead of a reduction (the seed's atomic experiment).
 *
 * What changed from rung 5: no reduction at all. Lane 0 first scales
 * y[row] by beta (writing 0 when beta = 0, so NaN in y never survives),
 * __syncwarp() orders that store before the warp's atomics (it is a memory
 * barrier among the lanes taking part), then every lane that saw at least
 * one entry adds alpha * its partial with atomicAdd. A row belongs to one
 * warp only, so no other warp touches y[row] and one kernel suffices. fp64
 * atomicAdd is native since sm_60 (Kepler emulated it with a CAS loop,
 * which is why the seed measured 3.3 ms on K20 and 37 ms on C2075).
 * Should help: nothing on the arithmetic, it is the experiment of the
 * seed: it shows what 1..32 atomics per row cost against 5 shuffles.
 * Loses: every row becomes up to 32 read-modify-writes at L2 on one
 * address, serialised there; and the order of the additions varies from
 * run to run, so results are not bit-reproducible (they stay within the
 * verification bound).
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
spmv_vector_atomic(int64_t rows, const int32_t *__restrict__ row_ptr,
                   const int32_t *__restrict__ col_idx,
                   const T *__restrict__ val, const T *__restrict__ x, T alpha,
                   T beta, T *y) {
  /* Rung 5's loads; no reduction: each lane's partial goes to y[row]. */
  auto add_atomic = [=](int64_t row, T sum, unsigned lane, unsigned begin,
                        unsigned end) {
    if (lane == 0)
      y[row] = beta == T(0) ? T(0) : beta * y[row];
    __syncwarp();
    if (begin + lane < end)
      atomicAdd(&y[row], alpha * sum);
  };
  smv_warp_per_row<T>(
      rows, [=](int64_t i) { return __ldg(&row_ptr[i]); },
      [=](unsigned k) {
        return __ldg(&val[k]) * __ldg(&x[__ldg(&col_idx[k])]);
      },
      add_atomic);
}

const struct smv_rung smv_rung_vector_atomic =
    SMV_SIMPLE_RUNG(SMV_ALG_VECTOR_ATOMIC, spmv_vector_atomic, 32, 0, 128);
