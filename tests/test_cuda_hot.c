/*
 * test_cuda_hot.c — rung 12 (hot columns of x in shared memory).
 *
 * Rung 12 runs rung 10's tile code on rung 10's tile list, reading x at the
 * hot columns from shared memory (their entries carry ~slot in rung 12's
 * own column array). The value read is the same and so is the order of
 * the sums: at the same block size its result must equal rung 10's bit for
 * bit, and both must pass the reference check. On:
 *   - "hubs": 8 columns in every non-empty row, every ninth row empty, one
 *     row of 10000 entries (pieces of a long row: partials and counters),
 *     the rest of the columns used a few times each (not hot);
 *   - rmat:16:16, a power-law graph (on an H100 137 columns in 1584 or
 *     more entries: 17% of them);
 *   - rand:20000:16, columns used evenly: no hot columns, the rung runs
 *     without a second column array.
 * Whether a hot column array was made shows in smv_matrix_device_bytes: it
 * adds 4 bytes per entry, more than all the other set-up together. It is
 * made only with SMV_MATRIX_HOT; without, rung 12 runs without hot
 * columns, with the same bits.
 * f64 and f32, beta 0 (y poisoned with NaN) and beta 0.5, blocks of 1024
 * and 256 threads (bits against rung 10 at the same size) and rung 12's
 * default block (the reference check alone).
 */
#include "test_cuda_common.h"

/* Hubs: n rows (n >= 20000), n + 10000 columns. */
static smv_csr *hubs(int64_t n) {
  const int64_t cols = n + 10000, longrow = 10000;
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++)
    nnz += i % 9 == 0 ? 0 : i == 7 ? longrow : 15;
  smv_csr *A = NULL;
  if (smv_csr_create((smv_index)n, (smv_index)cols, nnz, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    A->row_ptr[i] = (smv_offset)k;
    if (i % 9 == 0)
      continue;
    if (i == 7) { /* columns 0, 1, 2, ...: the hubs and 9992 others */
      for (int64_t j = 0; j < longrow; j++, k++) {
        A->col_idx[k] = (smv_index)j;
        A->values[k] = tc_uniform();
      }
      continue;
    }
    /* 8 hubs, one of 3000 warm columns, 6 columns spread over the rest
     * (sorted, distinct: 3008 + i % 1000 + 1000 * j, j < 6, stays below
     * cols since n >= 20000). */
    for (int64_t j = 0; j < 8; j++)
      A->col_idx[k + j] = (smv_index)j;
    A->col_idx[k + 8] = (smv_index)(8 + (i * 13) % 3000);
    for (int64_t j = 0; j < 6; j++)
      A->col_idx[k + 9 + j] =
          (smv_index)(3008 + (i * 7) % 1000 + 1000 * j + (j * n) / 8);
    for (int64_t j = 0; j < 15; j++)
      A->values[k + j] = tc_uniform();
    k += 15;
  }
  A->row_ptr[n] = (smv_offset)k;
  return A;
}

/* y of alg at beta = 0 on x (device), downloaded into h. */
static void run_alg(smv_context *ctx, smv_alg alg, smv_matrix *dA, int f32,
                    const void *dx, void *dy, int64_t m, double *nan,
                    double *h) {
  CHECK_OK(tc_upload(ctx, f32, nan, m, dy));
  CHECKF(smv_spmv(ctx, alg, 1.0, dA, dx, 0.0, dy) == SMV_OK, "%s: %s",
         smv_alg_name(alg), smv_context_error(ctx));
  CHECK_OK(smv_synchronize(ctx));
  CHECK_OK(tc_download(ctx, f32, dy, m, h));
}

static void check_on(const smv_csr *A, smv_precision prec, unsigned flags,
                     int want_hot, const char *label) {
  smv_context *ctx = tc_context();
  const int f32 = prec == SMV_F32;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  const int64_t m = A->rows, n = A->cols;
  smv_matrix *dA = NULL;
  void *dx = NULL, *dy = NULL;
  double *x = malloc((size_t)n * sizeof(double));
  double *y0 = malloc((size_t)m * sizeof(double));
  double *nan = malloc((size_t)m * sizeof(double));
  double *y10 = malloc((size_t)m * sizeof(double));
  double *y12 = malloc((size_t)m * sizeof(double));
  CHECK(x && y0 && nan && y10 && y12);
  const smv_matrix_options o = {.flags = flags, .tune_runs = 0};
  CHECK_OK(smv_matrix_create_ex(ctx, A, prec, &o, &dA));
  CHECK_OK(smv_device_malloc(ctx, (size_t)n * es, &dx));
  CHECK_OK(smv_device_malloc(ctx, (size_t)m * es, &dy));
  if (!(x && y0 && nan && y10 && y12 && dA && dx && dy))
    goto out;

  /* The hot column array (4 bytes per entry) exactly when expected. */
  const size_t bytes = smv_matrix_device_bytes(dA);
  CHECKF(tc_hot_held(A, f32, bytes) == want_hot,
         "%s %s flags %u: %zu device bytes, CSR %zu, hot array wanted %d",
         label, f32 ? "f32" : "f64", flags, bytes, tc_csr_bytes(A, f32),
         want_hot);

  tc_fill_nan(nan, m);
  /* Rung 10 and 12 at the same block size (their defaults differ), then
   * rung 12 at its default against the reference alone. */
  const int blocks[3] = {1024, 256, 0};
  for (int bi = 0; bi < 3; bi++) {
    CHECK_OK(smv_context_set_block_size(ctx, blocks[bi]));
    char what[200];
    snprintf(what, sizeof what, "%s %s flags %u block %d", label,
             f32 ? "f32" : "f64", flags, blocks[bi]);
    /* beta = 0 on fresh x: the reference, then the bits of rung 10. */
    tc_fill(x, n);
    CHECK_OK(tc_upload(ctx, f32, x, n, dx));
    run_alg(ctx, SMV_ALG_HOT, dA, f32, dx, dy, m, nan, y12);
    CHECKF(tc_verify(A, f32, 1.0, x, 0.0, nan, y12, what) == 0, "%s", what);
    if (blocks[bi]) {
      run_alg(ctx, SMV_ALG_TILED, dA, f32, dx, dy, m, nan, y10);
      int64_t diff = 0;
      for (int64_t i = 0; i < m; i++)
        diff += memcmp(&y10[i], &y12[i], sizeof(double)) != 0;
      CHECKF(diff == 0, "%s: %lld rows differ from rung 10's bits", what,
             (long long)diff);
    }
    /* beta = 0.5, alpha = -1.5 on fresh x and y0. */
    tc_fill(x, n);
    tc_fill(y0, m);
    CHECK_OK(tc_upload(ctx, f32, x, n, dx));
    CHECK_OK(tc_upload(ctx, f32, y0, m, dy));
    CHECK_OK(smv_spmv(ctx, SMV_ALG_HOT, -1.5, dA, dx, 0.5, dy));
    CHECK_OK(smv_synchronize(ctx));
    CHECK_OK(tc_download(ctx, f32, dy, m, y12));
    CHECKF(tc_verify(A, f32, -1.5, x, 0.5, y0, y12, what) == 0, "%s beta 0.5",
           what);
  }
  CHECK_OK(smv_context_set_block_size(ctx, 0));
out:
  smv_device_free(ctx, dx);
  smv_device_free(ctx, dy);
  smv_matrix_free(dA);
  free(x), free(y0), free(nan), free(y10), free(y12);
}

/* The tuner times rung 12 with hot columns and keeps them only if it won
 * (the plan's candidates list it with a time). */
static void check_tune(const smv_csr *A, const char *label) {
  smv_context *ctx = tc_context();
  smv_matrix *dA = NULL;
  const smv_matrix_options o = {.flags = SMV_MATRIX_TUNE, .tune_runs = 3};
  CHECK_OK(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA));
  if (!dA)
    return;
  smv_matrix_plan_info p;
  CHECK_OK(smv_matrix_plan(dA, &p));
  int seen = 0;
  for (int i = 0; i < p.ncandidates; i++)
    if (p.candidates[i].alg == SMV_ALG_HOT) {
      seen = 1;
      CHECKF(p.candidates[i].ms > 0, "%s: rung 12 timed %g ms", label,
             p.candidates[i].ms);
    }
  CHECKF(seen, "%s: rung 12 not among the tuner's candidates", label);
  const size_t bytes = smv_matrix_device_bytes(dA);
  CHECKF(tc_hot_held(A, 0, bytes) == (p.alg == SMV_ALG_HOT),
         "%s: AUTO %s after tuning, %zu bytes held", label, smv_alg_name(p.alg),
         bytes);
  smv_matrix_free(dA);
}

/* With SMV_MATRIX_HOT (hot columns where the matrix has them) and
 * without (never). */
static void both(smv_csr *A, int has_hot, const char *label) {
  CHECKF(A != NULL, "%s: no matrix", label);
  if (!A)
    return;
  for (int p = 0; p < 2; p++) {
    const smv_precision prec = p ? SMV_F32 : SMV_F64;
    if (p)
      tc_round_values(A);
    check_on(A, prec, SMV_MATRIX_HOT, has_hot, label);
    check_on(A, prec, 0, 0, label);
    if (!p)
      check_tune(A, label);
  }
  smv_csr_free(A);
}

static void test_hot_hubs(void) {
  TC_NEED_DEVICE();
  both(hubs(40000), 1, "hubs:40000");
}

static void test_hot_rmat(void) {
  TC_NEED_DEVICE();
  both(tst_generate("rmat:16:16"), 1, "rmat:16:16");
}

static void test_hot_even(void) {
  TC_NEED_DEVICE();
  both(tst_generate("rand:20000:16"), 0, "rand:20000:16");
}

int main(void) {
  RUN(test_hot_hubs);
  RUN(test_hot_rmat);
  RUN(test_hot_even);
  smv_context_free(tc_ctx);
  return TEST_END();
}
