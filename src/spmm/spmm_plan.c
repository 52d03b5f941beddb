/* spmm_plan.c — SpMM's AUTO: which rung of the SpMM ladder runs a product,
 * from the matrix's statistics and the product's shape alone (host C, so
 * the CLI can explain a plan without a device, and the rule is tested on
 * the CPU). The rungs are in src/cuda/spmm/spmm_N_*.cu.
 *
 * The rule, in order:
 *   k = 1 with contiguous columns (column-major, or ldx = ldy = 1): rung 2,
 *     smv_spmv on the one column. The SpMV engine's AUTO already picks
 *     the best SpMV kernel for the matrix; an SpMM kernel at k = 1 reads
 *     the same bytes and can only match it.
 *   row-major k < SMV_SPMM_COLTRANS_K (k = 2..7, or 1 with a stride):
 *     rung 9, rung 5's shape (a lane keeps the k columns in registers; a
 *     16-byte vector across lanes would leave most of them idle) with each
 *     entry's X row one vector load and 4-8 entries a lane. It beat rung 5
 *     at k = 2 and 4 on power-law, R-MAT, random, stencil and Laplacian
 *     rows (bench/results/h200/spmm.md, rung 9).
 *   column-major k < SMV_SPMM_COLTRANS_K with at least
 *     SMV_SPMM_NARROW_MEAN entries per row and per column on the mean
 *     (nnz / max(rows, cols)): rung 6 (X transposed, rung 9, Y transposed
 *     back); else rung 5. The transposes move 2 (rows + cols) k elements
 *     whatever the matrix holds, and what they buy is per entry (one
 *     vector gather for k scattered ones), so they pay once rows and
 *     columns carry enough entries: lap3d's 7 a row lost to rung 5.
 *   (Rung 7, rung 4 per slice of columns sized to the L2, is never
 *   chosen: it lost to rung 4 at every slice width on R-MAT and power-law
 *   graphs, its A re-reads costing more than the gathers it kept in the
 *   L2; bench/results/h200/spmm.md.)
 *   row-major, k x sizeof(value) <= SMV_SPMM_ROWPIPE_BYTES = 256 (f32
 *     k <= 64, f64 k <= 32) and k one full pass of the vector width
 *     (smv_spmm_full_pass: a power of two, so 8..64 f32, 8..32 f64):
 *     rung 8, rung 4 software-pipelined across rows. At these widths a
 *     row of a sparse graph gathers its X rows in about one round, so
 *     rung 4's warp waits on three dependent trips per row (offsets,
 *     pairs, gathers); rung 8 has the next row's offsets and pairs in
 *     flight during this row's gathers. Past 256 bytes it lost to rung 4
 *     on R-MAT (f32 k = 128, f64 k = 64: below cuSPARSE there) and
 *     gained a few percent at best elsewhere: a wider X row is already
 *     several loads in flight per lane, and rung 8's extra registers cost
 *     occupancy
 *     (bench/results/h200/spmm.md, rung 8). Other k are not a full pass
 *     and would run rung 4 inside rung 8 anyway: rung 4 (or 3) below.
 *   row-major with rows longer than a chunk and at least half the rows
 *     shorter than SMV_SPMM_SHORT_ROW = 16 entries (a graph: hubs and
 *     many short rows; a stencil has none), and k = 32 or 64 x a 16-byte
 *     vector (X rows of 512 or 1024 bytes, one or two vectors a lane
 *     across a whole warp: f32 k = 128 and 256, f64 k = 64 and 128):
 *     rung 10, a warp streams 32 rows' entries as one sequence. There
 *     rung 4 waits three dependent memory trips per short row; rung 10
 *     keeps X loads in flight across row ends. On a stencil's rows (27 a
 *     row) it loses to rung 3: each row's gathers are already a long
 *     stream, and a window is one warp's 864
 *     entries. A stencil with one dense row has a long row but no short
 *     ones, so the short rows, not the hubs, decide. At two vectors a
 *     lane its lead over rung 4 on the graphs is smaller (a row's gathers
 *     are already twice the loads in flight), but it leads
 *     (bench/results/h200/spmm.md, rung 10); wider X rows run rung 4.
 *   other row-major k >= 8: rung 4 (rung 3 when no row is longer than a
 *     chunk, which is the same launch without the split): each X row j is
 *     k contiguous elements, read as 16-byte vectors by 1..32 lanes, and
 *     every (col, val) pair is loaded once per warp for all k columns.
 *     Rows longer than SMV_SPMM_CHUNK (power-law hubs) would serialise
 *     one warp, so they are cut into chunks that all warps share.
 *   column-major: X(j, c) for one j and c = 0..k-1 are ldx apart, so a
 *     gather of k columns touches k sectors. From SMV_SPMM_COLTRANS_K = 8
 *     columns on, rung 6: X transposed once into a row-major workspace
 *     (bandwidth-bound, 2 x cols x k elements moved), the rung this
 *     rule picks for the row-major product on it (8, 10 or 4), Y
 *     transposed back; below that, as above.
 *
 * The vector width along k (rungs 3, 4, 8 and 10): 16 bytes (4 floats,
 * 2 doubles) when ldx and ldy are multiples of it and k is at least that
 * wide, else the largest power of two that is; the launcher drops to
 * narrower loads when X or Y itself is not aligned, which the plan cannot
 * see (it has no pointers). A full pass at 16 bytes stays one at any
 * narrower width for k <= 64; rung 10 is planned at 16-byte vectors only,
 * and its rows at a narrower width (X not aligned) are more vectors a
 * lane or not a whole-warp pass (rung 4 runs), so the plan's `vec` and
 * rung then describe the aligned case. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* The widest vector along k (4 floats, 2 doubles) no wider than k whose
 * element count divides ldx and ldy (0: that side does not constrain). */
static int plan_vec(int f32, int k, int64_t ldx, int64_t ldy) {
  int v = f32 ? 4 : 2;
  while (v > 1 && (v > k || ldx % v || ldy % v))
    v /= 2;
  return v;
}

void smv_spmm_shape_of(const smv_stats *st, int k, smv_layout layout, int f32,
                       int64_t ldx, int64_t ldy, smv_spmm_shape *s) {
  memset(s, 0, sizeof *s);
  s->rows = st->rows;
  s->cols = st->cols;
  s->nnz = st->nnz;
  s->row_max = st->row_max;
  s->row_mean = st->row_mean;
  s->k = k;
  s->layout = layout;
  s->f32 = f32;
  s->ldx = ldx;
  s->ldy = ldy;
  /* Bin 0: empty rows; bin b > 0: lengths in [2^(b-1), 2^b), all short
   * while 2^b <= SMV_SPMM_SHORT_ROW (a power of two). */
  s->short_rows = st->hist[0];
  for (int b = 1; b < SMV_HIST_BINS && (1LL << b) <= SMV_SPMM_SHORT_ROW; b++)
    s->short_rows += st->hist[b];
}

smv_status smv_spmm_choose(const smv_spmm_shape *s, smv_spmm_choice *c) {
  if (!s || !c || s->k < 1 ||
      (s->layout != SMV_LAYOUT_ROW_MAJOR && s->layout != SMV_LAYOUT_COL_MAJOR))
    return SMV_ERR_ARG;
  const int row = s->layout == SMV_LAYOUT_ROW_MAJOR;
  c->chunk = s->row_max > SMV_SPMM_CHUNK ? SMV_SPMM_CHUNK : 0;
  c->vec = 1;
  c->why[0] = '\0';
  if (s->k == 1 && (!row || (s->ldx == 1 && s->ldy == 1))) {
    c->alg = SMV_SPMM_SPMV;
    c->chunk = 0;
    snprintf(c->why, sizeof c->why,
             "k = 1 with a contiguous column: one SpMV (the SpMV engine's "
             "AUTO reads the same bytes an SpMM kernel would)");
    return SMV_OK;
  }
  char split[96];
  if (c->chunk)
    snprintf(split, sizeof split,
             "rows up to %lld entries (> %d) cut into chunks of %lld",
             (long long)s->row_max, SMV_SPMM_CHUNK, (long long)c->chunk);
  else
    snprintf(split, sizeof split, "no row longer than %d entries: no split",
             SMV_SPMM_CHUNK);
  if (row && s->k >= SMV_SPMM_COLTRANS_K) {
    const int v = plan_vec(s->f32, s->k, s->ldx, s->ldy);
    c->vec = v;
    const long long bytes = (long long)s->k * (s->f32 ? 4 : 8);
    if (bytes <= SMV_SPMM_ROWPIPE_BYTES && smv_spmm_full_pass(s->k, v)) {
      c->alg = SMV_SPMM_ROWPIPE;
      snprintf(
          c->why, sizeof c->why,
          "row-major k = %d: %lld bytes along k (<= %d), full pass: rung 4 "
          "pipelined across rows, %d-element loads; %s",
          s->k, bytes, SMV_SPMM_ROWPIPE_BYTES, v, split);
      return SMV_OK;
    }
    const int lanes_full = v * (s->f32 ? 4 : 8) == 16; /* 16-byte vectors */
    if (c->chunk && lanes_full && (s->k == 32 * v || s->k == 64 * v) &&
        2 * s->short_rows >= s->rows) {
      c->alg = SMV_SPMM_ROWSTREAM;
      snprintf(c->why, sizeof c->why,
               "row-major k = %d: %lld-byte X rows (%d-element loads), "
               "%.0f%% under %d entries and hubs: a warp streams 32 rows "
               "at once; %s",
               s->k, bytes, v, 100.0 * (double)s->short_rows / (double)s->rows,
               SMV_SPMM_SHORT_ROW, split);
      return SMV_OK;
    }
    c->alg = c->chunk ? SMV_SPMM_ROWSPLIT : SMV_SPMM_ROWVEC;
    snprintf(c->why, sizeof c->why,
             "row-major k = %d (%s): %d-element loads along k, (col, val) "
             "pairs shared by the warp; %s",
             s->k,
             bytes > SMV_SPMM_ROWPIPE_BYTES
                 ? "X rows past rung 8's bytes: no pipeline"
                 : "not a full pass: no pipeline",
             v, split);
    return SMV_OK;
  }
  if (row) {
    /* Rung 9's loads: the widest vector k and ldx (and X's address,
     * checked at the launch) allow. */
    const int v = plan_vec(s->f32, s->k, s->ldx, 0);
    c->vec = v;
    c->alg = SMV_SPMM_ROWGATHER;
    snprintf(c->why, sizeof c->why,
             "row-major k = %d < %d: lanes split each row (mean %.1f "
             "entries), the %d columns in registers, %d-element loads; %s",
             s->k, SMV_SPMM_COLTRANS_K, s->row_mean, s->k, v, split);
    return SMV_OK;
  }
  /* Column-major. Below SMV_SPMM_COLTRANS_K columns the transposes (2
   * (rows + cols) k elements moved) pay only when what they buy, per
   * entry, is enough: entries per row and per column at least
   * NARROW_MEAN. */
  const int64_t side = s->rows > s->cols ? s->rows : s->cols;
  const double per = side > 0 ? (double)s->nnz / (double)side : 0.0;
  if (s->k >= SMV_SPMM_COLTRANS_K || per >= SMV_SPMM_NARROW_MEAN) {
    /* The workspaces' ld is a multiple of the vector: only k limits it. */
    const int v = plan_vec(s->f32, s->k, 0, 0);
    c->vec = v;
    c->alg = SMV_SPMM_COLTRANS;
    if (s->k >= SMV_SPMM_COLTRANS_K) {
      /* Rung 6 runs this rule's row-major rung on its workspaces (rows of
       * k rounded up to the vector; smv_spmm_row_rung at the launch). */
      smv_spmm_shape in = *s;
      smv_spmm_choice ic;
      in.layout = SMV_LAYOUT_ROW_MAJOR;
      in.ldx = in.ldy = (s->k + v - 1) / v * v;
      const char *inner = smv_spmm_choose(&in, &ic) == SMV_OK
                              ? smv_spmm_alg_name(ic.alg)
                              : "rowsplit";
      snprintf(c->why, sizeof c->why,
               "column-major k = %d >= %d: X transposed to row-major, %s on "
               "it with %d-element loads, Y transposed back; %s",
               s->k, SMV_SPMM_COLTRANS_K, inner, v, split);
    } else
      snprintf(c->why, sizeof c->why,
               "column-major k = %d < %d, %.1f entries a row/col (>= %d): X "
               "transposed, rung 9, Y transposed back; %s",
               s->k, SMV_SPMM_COLTRANS_K, per, SMV_SPMM_NARROW_MEAN, split);
    return SMV_OK;
  }
  c->alg = SMV_SPMM_COLSPLIT;
  snprintf(c->why, sizeof c->why,
           "column-major k = %d < %d, %.1f entries a row/col (< %d): lanes "
           "split rows, %d columns in registers; %s",
           s->k, SMV_SPMM_COLTRANS_K, per, SMV_SPMM_NARROW_MEAN, s->k, split);
  return SMV_OK;
}
