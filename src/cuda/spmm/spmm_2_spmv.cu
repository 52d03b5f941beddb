/*
 * spmm_2_spmv.cu — SpMM rung 2: one smv_spmv (the SpMV engine's AUTO) per
 * column of X, for columns that are contiguous vectors: column-major
 * operands, or row-major with k = 1 and ldx = ldy = 1.
 *
 * Why: at k = 1 an SpMM kernel reads exactly the bytes of an SpMV (A
 * once, x once, y once), and the SpMV engine already picks, per matrix,
 * the best of twelve kernels (long-row chunks, tiles, hot columns in
 * shared memory); rung 1 at k = 1 ran 6-16x slower than that on the same
 * matrix. So the plan sends every k = 1 product here.
 *
 * Where it loses: k > 1 reads A once per column (k x the matrix bytes)
 * where rungs 1, 3-5 read it about once; kept for k > 1 as the
 * yardstick "k SpMVs" every SpMM kernel must beat, up to
 * SMV_SPMM_SPMV_KMAX columns: past that every other rung wins, and k
 * launches per call fill the device's launch queue when calls are queued
 * back to back (the host then blocks in the launch).
 */
#include "spmm_ladder.h"

static int accepts(const struct spmm_args *a) {
  return (a->layout == SMV_LAYOUT_COL_MAJOR && a->k <= SMV_SPMM_SPMV_KMAX) ||
         (a->k == 1 && a->ldx == 1 && a->ldy == 1);
}

static smv_status run(const struct spmm_args *a) {
  const size_t es = a->m->prec == SMV_F64 ? 8 : 4;
  /* Column c starts c * ld elements in (column-major; c = 0 for k = 1). */
  for (int c = 0; c < a->k; c++) {
    const char *x = (const char *)a->X + (size_t)c * (size_t)a->ldx * es;
    char *y = (char *)a->Y + (size_t)c * (size_t)a->ldy * es;
    smv_status st =
        smv_spmv(a->ctx, SMV_ALG_AUTO, a->alpha, a->m, x, a->beta, y);
    if (st != SMV_OK)
      return st; /* smv_spmv has said why on the context */
  }
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_spmv = {
    SMV_SPMM_SPMV,
    2,
    accepts,
    run,
    "contiguous columns: column-major with k <= 16, or k = 1 with ldx = "
    "ldy = 1",
    0};
