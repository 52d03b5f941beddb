/*
 * spmv_1_scalar.cu — rung 1: one thread per row (Bell & Garland's CSR
 * "scalar" kernel), the baseline of the ladder.
 *
 * Thread t walks row t's entries one by one. Neighbouring threads read
 * entries that are a whole row apart, so a warp's loads of values and
 * column indices hit up to 32 different cache lines per step (uncoalesced),
 * and a warp runs as long as its longest row. It wins only where rows are
 * very short (1-3 entries: a diagonal, lap-like stencils on very thin
 * matrices), where a warp per row would leave most lanes idle.
 *
 * Block size: 32 registers in f64 (40 in f32, where the compiler unrolls
 * the row loop 4x) and no shared memory: 64, 128, 256, 512 and 1024
 * threads all reach the highest occupancy on sm_90 (64 of 64 warps in
 * f64). Tie settled by a block sweep on lap3d:160 f64 (ladder.md's rung
 * notes): all within 3%, 128 kept for consistency with the vector rungs.
 */
#include "kernel_common.h"

template <typename T>
__global__ void spmv_scalar(int64_t rows, const int32_t *row_ptr,
                            const int32_t *col_idx, const T *val, const T *x,
                            T alpha, T beta, T *y) {
  for (int64_t row = smv_tid(); row < rows; row += smv_nthreads()) {
    const unsigned begin = (unsigned)row_ptr[row];
    const unsigned end = (unsigned)row_ptr[row + 1];
    T sum = T(0);
    for (unsigned k = begin; k < end; k++)
      sum += val[k] * x[col_idx[k]];
    y[row] = smv_combine(alpha, sum, beta, &y[row]);
  }
}

const struct smv_rung smv_rung_scalar =
    SMV_SIMPLE_RUNG(SMV_ALG_SCALAR, spmv_scalar, 1, 0, 128);
