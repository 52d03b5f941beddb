/*
 * spmm_11_colband.cu — SpMM rung 11, row-major: A split once into nb bands
 * of columns, each band's X rows sized to a share of the device's L2, and
 * the product run band by band (Y = alpha A_0 X + beta Y, then Y += alpha
 * A_b X), each band by the rung the plan's rule picks for it.
 *
 * What changed from rungs 4, 8 and 10: there every entry gathers its X row
 * from anywhere in X (cols x k x es bytes). On a graph whose columns are
 * spread evenly (no hot columns) and whose X is several L2s (f32 k = 32 on
 * a million columns: 128 MB against a 50 MB L2), an X row is evicted
 * between its gathers and most gathers come from DRAM, a 128-byte row at
 * a time (Nsight Compute on plaw:1000000:16 f32 k = 32, rung 8: 31% L2
 * hits, DRAM 61% of peak, the L2's request rate at 84%). Here a band
 * touches only cols / nb X rows, which stay in the L2 while the band runs,
 * so X comes from DRAM about once.
 *
 * Bytes (the minimal model's A once, X once): A once (its bands are a
 * partition of its entries) plus nb row-offset arrays ((rows + 1) x 4
 * each); X about once; Y written nb times and read nb - 1 times (2 nb - 1
 * passes over rows x k x es bytes), against rung 4's X gathered from DRAM
 * for every miss (nnz x k x es x the miss rate). So it pays where the
 * gathers' misses cost more than the extra passes over Y: X past the L2,
 * spread columns, entries per row well above 2 nb.
 *
 * The bands: nb = ceil(cols x k x es / (share x L2)), at most SMV_SPMM_
 * BANDS_MAX, share SMV_SPMM_BAND_SHARE percent of cudaDeviceProp::
 * l2CacheSize (the device's, not a constant); column c is in band
 * c x nb / cols. They are built once per matrix and band count, on the
 * host (A copied back, smv_matrix_download: (rows + 1) x 4 + nnz x (4 +
 * es) bytes; each band a matrix of its own, created as smv_matrix_create
 * does, so each has its own statistics and plan), kept with the matrix (freed
 * with it), and rebuilt when another k asks for another count. Building
 * synchronises, so the first product of a band count is refused while the
 * stream is captured (run it once before capturing). Device memory: A's entries
 * a second time, plus the bands' offsets.
 *
 * Deterministic: each band's rung sums in its fixed order and the bands
 * add in band order. The sums are not rung 4's bits (a row's entries are
 * added band by band); verified against the CPU reference.
 *
 * Where it loses: everywhere it was measured (bench/results/h200/spmm.md,
 * "Rung 11"), so the plan never picks it; it stays as the ladder's record
 * of the idea. On the power-law and R-MAT graphs past the L2 (row-major,
 * f32 k = 16..64, f64 k = 16, 32) every band count lost to AUTO, by more
 * the more bands: a band is a full pass over all rows, and on graphs of
 * short rows the row kernels' cost is per row (a short row's dependent
 * trips to memory, rung 8's premise), not per gathered byte, so nb bands
 * cost about nb such passes while the gathers they save were not the
 * bound. Also: X inside the L2 (one band: the row-major rung on A itself,
 * the same bits); hot columns, where the gathers already hit; wide X rows,
 * where nb grows with k.
 */
#include "spmm_ladder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct smv_spmm_bands {
  int nb;
  smv_matrix *m[SMV_SPMM_BANDS_MAX]; /* NULL: no entries in that band */
};

void smv_spmm_bands_free(struct smv_spmm_bands *b) {
  if (!b)
    return;
  for (int i = 0; i < b->nb; i++)
    smv_matrix_free(b->m[i]);
  free(b);
}

/* Percent of the L2 one band's X rows may take; SMV_SPMM_BAND_SHARE
 * (1..100) overrides it for experiments. The rest holds the band's A and
 * Y streams passing through. */
static double band_share(void) {
  const char *e = getenv("SMV_SPMM_BAND_SHARE");
  const int p = e ? atoi(e) : 0;
  return p >= 1 && p <= 100 ? p / 100.0 : 0.6;
}

int smv_spmm_band_count(int64_t l2_bytes, int64_t cols, int k, int f32) {
  /* Test and tuning hook: SMV_SPMM_BANDS forces the count. */
  const char *f = getenv("SMV_SPMM_BANDS");
  int nb = f ? atoi(f) : 0;
  if (nb < 1) {
    const double x = (double)cols * k * (f32 ? 4 : 8);
    const double l2 = (double)l2_bytes * band_share();
    const double want = l2 > 0 ? ceil(x / l2) : 1.0;
    nb = want > SMV_SPMM_BANDS_MAX ? SMV_SPMM_BANDS_MAX : (int)want;
  }
  return nb < 1 ? 1 : nb > SMV_SPMM_BANDS_MAX ? SMV_SPMM_BANDS_MAX : nb;
}

/* The band of column c of `cols`, of nb. */
static inline int band_of(int32_t c, int64_t cols, int nb) {
  return (int)((int64_t)c * nb / cols);
}

/* Split A (m's arrays back on the host) into nb column bands, each made a
 * device matrix of m's precision. */
static smv_status split_bands(smv_context *ctx, const smv_matrix *m,
                              const smv_csr *A, struct smv_spmm_bands *b) {
  const int64_t rows = m->st.rows, cols = m->st.cols, nnz = m->st.nnz;
  const smv_offset *rp = A->row_ptr;
  const smv_index *ci = A->col_idx;
  const double *v = A->values;
  const int nb = b->nb;
  int64_t cnt[SMV_SPMM_BANDS_MAX] = {0}, pos[SMV_SPMM_BANDS_MAX] = {0};
  for (int64_t k = 0; k < nnz; k++)
    cnt[band_of(ci[k], cols, nb)]++;
  smv_csr *c[SMV_SPMM_BANDS_MAX] = {NULL};
  smv_status st = SMV_OK;
  for (int i = 0; i < nb && st == SMV_OK; i++)
    if (cnt[i] > 0)
      st = smv_csr_create((smv_index)rows, (smv_index)cols, cnt[i], &c[i]);
  if (st != SMV_OK) {
    for (int i = 0; i < nb; i++)
      smv_csr_free(c[i]);
    return smv_ctx_set(ctx, st, "SpMM bands: host CSR of a band (%s)",
                       smv_status_string(st));
  }
  for (int i = 0; i < nb; i++)
    if (c[i])
      c[i]->row_ptr[0] = 0;
  for (int64_t r = 0; r < rows; r++) {
    for (int64_t k = rp[r]; k < rp[r + 1]; k++) {
      const int i = band_of(ci[k], cols, nb);
      c[i]->col_idx[pos[i]] = ci[k];
      c[i]->values[pos[i]] = v[k];
      pos[i]++;
    }
    for (int i = 0; i < nb; i++)
      if (c[i])
        c[i]->row_ptr[r + 1] = (smv_offset)pos[i];
  }
  for (int i = 0; i < nb && st == SMV_OK; i++)
    if (c[i])
      st = smv_matrix_create(ctx, c[i], m->prec, &b->m[i]);
  for (int i = 0; i < nb; i++)
    smv_csr_free(c[i]);
  return st;
}

static smv_status bands_build(smv_context *ctx, const smv_matrix *m, int nb,
                              struct smv_spmm_bands **out) {
  *out = NULL;
  smv_status st = smv_spmm_refuse_in_capture(ctx, "splitting A into bands");
  if (st != SMV_OK)
    return st;
  struct smv_spmm_bands *b = (struct smv_spmm_bands *)calloc(1, sizeof *b);
  if (!b)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "SpMM bands: out of memory");
  b->nb = nb;
  smv_csr *A = NULL;
  st = smv_matrix_download(ctx, m, "SpMM bands", &A);
  if (st == SMV_OK)
    st = split_bands(ctx, m, A, b);
  smv_csr_free(A);
  if (st != SMV_OK) {
    smv_spmm_bands_free(b);
    return st;
  }
  *out = b;
  return SMV_OK;
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  const smv_matrix *m = a->m;
  const int nb = smv_spmm_band_count(a->ctx->prop.l2CacheSize, m->st.cols, a->k,
                                     m->prec == SMV_F32);
  if (nb <= 1) /* X fits: the row-major rung on A itself */
    return smv_spmm_row_rung(a)->run(a);
  struct smv_spmm_split *sp = NULL;
  smv_status st = smv_spmm_state_get(a->ctx, a->m, &sp);
  if (st != SMV_OK)
    return st;
  if (!sp->bands || sp->bands->nb != nb) {
    smv_spmm_bands_free(sp->bands);
    sp->bands = NULL;
    if ((st = bands_build(a->ctx, m, nb, &sp->bands)) != SMV_OK)
      return st;
  }
  /* beta applies once, in the first band that has entries (there is one:
   * nnz > 0); the others add to Y. A failed band leaves Y partly updated
   * (as any failed launch leaves Y undefined). */
  int first = 1;
  for (int i = 0; i < nb; i++) {
    if (!sp->bands->m[i])
      continue;
    struct spmm_args ab = *a;
    ab.m = sp->bands->m[i];
    ab.beta = first ? a->beta : 1.0;
    first = 0;
    if ((st = smv_spmm_row_rung(&ab)->run(&ab)) != SMV_OK)
      return st;
  }
  return SMV_OK;
}

/* no_tune: smv_spmm_tune would copy A and keep the bands for a loss. */
const struct spmm_rung smv_spmm_rung_colband = {
    SMV_SPMM_COLBAND, 11, accepts, run, "row-major X (ld >= k)", 1};
