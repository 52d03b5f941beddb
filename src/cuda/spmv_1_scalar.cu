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
 * Block size: no shared memory and few registers, so every multiple of 32
 * from 64 up reaches full occupancy on sm_90; the tie goes to 256
 * (preferred_block below, see dispatch.cu for how ties are settled).
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

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_scalar<double>
                         : (const void *)spmv_scalar<float>;
}

static size_t smem(smv_precision, int) { return 0; }

template <typename T> static cudaError_t run(const struct smv_launch *L) {
  unsigned grid = smv_grid_for(L->rows, L->block);
  return smv_launch_k(spmv_scalar<T>, grid, L->block, 0, L->stream, L->rows,
                      L->row_ptr, L->col_idx, (const T *)L->values,
                      (const T *)L->x, (T)L->alpha, (T)L->beta, (T *)L->y);
}

static cudaError_t launch(const struct smv_launch *L) {
  return L->prec == SMV_F64 ? run<double>(L) : run<float>(L);
}

const struct smv_rung smv_rung_scalar = {kernel, smem, launch, 256};
