/*
 * spmm_7_kslice.cu — SpMM rung 7, row-major: rung 4 run once per slice of
 * kw columns of X and Y (X + c0 and Y + c0 with the same ld: a slice of a
 * row-major block is itself a row-major block), kw chosen so one slice of
 * X fits in half of the device's L2.
 *
 * What changed from rung 4: there, every entry gathers one whole X row of
 * k elements, so the gathers range over all of X (cols x k x es bytes).
 * When the columns are scattered and X is several times the L2, most
 * gathers miss and go to DRAM: a miss costs the whole row. Here a pass
 * gathers only kw columns, from an X slice that stays in the L2 while the
 * pass runs, so the gathers hit and DRAM sees X about once.
 *
 * Bytes: A (nnz x (4 + es) + offsets) once per slice, i.e. k / kw times;
 * X and Y once; the gathers (nnz x k x es) from the L2. The slice width:
 * the widest power of two kw with cols x kw x es <= L2 / 2, never below
 * one 32-byte sector (8 floats, 4 doubles) and never above k. The L2 size
 * is the device's (cudaDeviceProp::l2CacheSize), not a constant.
 *
 * Where it loses: everywhere it was measured, so the plan never picks it
 * (kept as the ladder's record of a lost idea). On R-MAT and power-law
 * graphs past the L2 (row-major, k 32..128, f32 and f64) every width lost
 * to rung 4 on the whole block, by up to 6x at one-sector slices: A is
 * read k / kw times, and rung 4's gathers already hit the L2 more than
 * the model of uniform misses assumed (hub columns, and the 16-byte loads
 * of one X row share its lines). Narrow slices also multiply the
 * launches (3 per slice), which fills the launch queue when products are
 * queued back to back. Local columns hit the L2 without slicing.
 * Deterministic, as rung 4: each slice's columns are summed as rung 4
 * sums them.
 */
#include "spmm_ladder.h"

#include <stdlib.h>

/* The slice width: the widest power of two kw whose X slice (cols x kw x
 * es) fits in half of l2_bytes, at least one 32-byte sector, at most k. */
static int64_t kslice_width(int64_t l2_bytes, int64_t cols, int k, int f32) {
  const int64_t es = f32 ? 4 : 8, sector = 32 / es;
  int64_t kw = sector;
  while (kw * 2 <= k && (cols > 0 ? cols : 1) * kw * 2 * es <= l2_bytes / 2)
    kw *= 2;
  /* Test and tuning hook: SMV_SPMM_KSLICE_W forces the width (a multiple
   * of the sector, so the slices keep 16-byte alignment). */
  const char *w = getenv("SMV_SPMM_KSLICE_W");
  if (w && atoi(w) >= (int)sector && atoi(w) % sector == 0)
    kw = atoi(w);
  return kw < k ? kw : k;
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  const smv_matrix *m = a->m;
  const int f32 = m->prec == SMV_F32;
  const size_t es = f32 ? 4 : 8;
  const int64_t kw =
      kslice_width(a->ctx->prop.l2CacheSize, m->st.cols, a->k, f32);
  for (int64_t c0 = 0; c0 < a->k; c0 += kw) {
    struct spmm_args s = *a;
    s.X = (const char *)a->X + (size_t)c0 * es;
    s.Y = (char *)a->Y + (size_t)c0 * es;
    s.k = (int)(a->k - c0 < kw ? a->k - c0 : kw);
    const smv_status st = smv_spmm_rung_rowsplit.run(&s);
    if (st != SMV_OK)
      return st;
  }
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_kslice = {
    SMV_SPMM_KSLICE, 7, accepts, run, "row-major X and Y", 0};
