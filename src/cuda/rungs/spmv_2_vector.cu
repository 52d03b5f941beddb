/*
 * spmv_2_vector.cu — rung 2: one warp per row, shared-memory tree
 * reduction (Bell & Garland's CSR "vector" kernel; the seed's first rung).
 *
 * What changed from rung 1: the 32 lanes of a warp stride through one row
 * together, so a warp's loads of values and column indices are contiguous
 * (coalesced: 32 x 8 bytes of values = two 128-byte lines per step in f64)
 * instead of 32 rows apart. Each lane keeps a partial sum; the 32 partials
 * are added in shared memory in 5 steps (16, 8, 4, 2, 1) and lane 0 writes
 * y[row]. Loses where rows are much shorter than 32 (lanes idle: a 7-entry
 * stencil row uses 7 of 32 lanes) and pays 5 shared-memory round trips per
 * row.
 *
 * Why the seed's reduction is no longer enough: the seed declared the
 * buffer `volatile` and relied on the 32 lanes of a warp running in lock
 * step, so no barrier was needed between the steps. Since Volta (sm_70)
 * threads of a warp are scheduled independently: lanes may diverge and
 * reconverge anywhere, and nothing makes lane i + s's write of the
 * previous step visible to lane i before lane i reads it in step s (nor
 * keeps lane i + s from overwriting it early). `volatile` only stops the
 * compiler from caching the value in a register; it orders nothing between
 * lanes. So every step is followed by __syncwarp(), which both reconverges
 * the warp and orders its shared-memory accesses (CUDA Programming Guide,
 * "Independent Thread Scheduling" and "Warp Synchronous" notes). Within one
 * step there is no race: lanes [0, s) write their own slots and read slots
 * [s, 2s), which nobody writes in that step. compute-sanitizer racecheck
 * checks exactly this (scripts/gpu-test.sh).
 *
 * Dynamic shared memory: one partial per thread, block * sizeof(T) bytes
 * (2 KiB at 256 threads in f64). The row loop is warp-uniform (every lane
 * of a warp has the same `row`), so the whole warp reaches each
 * __syncwarp().
 *
 * Block size: 32 registers and block * sizeof(T) bytes of shared memory: 64,
 * 128, 256, 512 and 1024 threads all reach 64 of 64 warps per SM on sm_90. Tie
 * settled by a block sweep on lap3d:160 f64, one warp per row (ladder.md's
 * rung notes): 128 threads fastest, each doubling slower; 64
 * threads also reach full occupancy but were 50% slower (2M blocks of two
 * warps: block launch rate, not occupancy, limits). On the small cage10
 * every size from 128 up is within 5%. So 128.
 */
#include "kernel_common.h"

/* V: the stored values' type, T the vectors' and sums' (V = float, T =
 * double for f64-f32v: each value widened before its product). */
template <typename T, typename V = T>
__global__ void spmv_vector(int64_t rows, const int32_t *row_ptr,
                            const int32_t *col_idx, const V *val, const T *x,
                            T alpha, T beta, T *y) {
  /* Plain loads; the shared-memory reduction (smv_reduce_smem,
   * kernel_common.h). The loop over rows: smv_warp_per_row. */
  smv_warp_per_row<T>(
      rows, [=](int64_t i) { return row_ptr[i]; },
      [=](unsigned k) { return T(val[k]) * x[col_idx[k]]; },
      smv_reduce_smem<T>{alpha, beta, y});
}

/* Rung 2 also runs f64-f32v: the simple reference for rungs 9 and 10 in
 * that precision (same loads as f64 with 4-byte values). */
static constexpr struct smv_rung descriptor() {
  struct smv_rung r = smv_kernel_rung(
      SMV_ALG_VECTOR,
      smv_kernel_pick3<spmv_vector<double>, spmv_vector<float>,
                       spmv_vector<double, float>>,
      smv_smem_per_thread<1>, 128,
      smv_simple_glue<spmv_vector<double>, spmv_vector<float>, 32, 1,
                      spmv_vector<double, float>>::launch);
  r.precisions |= SMV_PREC_F32V;
  return r;
}
const struct smv_rung smv_rung_vector = descriptor();
