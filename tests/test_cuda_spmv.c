/*
 * test_cuda_spmv.c — every rung of the ladder (and AUTO), fp64 and fp32,
 * on generated matrices of every awkward kind, against the serial
 * reference (bound in test_cuda_common.h). SKIPs without a device.
 *
 * Rungs 9, 10, 11 and 13 are also checked for bit-identical results across
 * repeated calls (test_adaptive_reproducible).
 *
 * Alpha/beta cases: (1, 0) with y poisoned by NaN; (-1.75, 0.5); (0, -2)
 * with x all NaN (must not be read); (0, 0) with y NaN (must become 0);
 * (2.5, 1). Odd cases go through smv_spmv_host_vectors, even ones through
 * device pointers with x three elements into its buffer (rung 3's offset
 * binding).
 */
#include "test_cuda_common.h"

#define NCASES TC_NAB

/* Every alg x case on one matrix (tc_both_precisions' fn). */
static void every_rung(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                       int ncases, const char *label) {
  int64_t r, c, z;
  smv_matrix_dims(dA, &r, &c, &z);
  CHECK_INT(r, A->rows);
  CHECK_INT(c, A->cols);
  CHECK_INT(z, A->nnz);
  for (int a = 0; a < SMV_ALG_COUNT; a++)
    tc_ab_run(ctx, dA, A, (smv_alg)a, ncases, label);
}

/* Run every alg x precision x case on A (A's values get float-rounded in
 * place for the f32 half, so A is consumed). */
static void ladder(smv_csr *A, const char *label, int ncases) {
  tc_both_precisions(A, label, ncases, every_rung);
}

static void gen_ladder(const char *spec, int ncases) {
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  ladder(A, spec, ncases);
  smv_csr_free(A);
}

/* rows x cols with row i holding len[i] (<= cols) consecutive entries at
 * a random start, values in [0, 4). */
static smv_csr *with_lengths(int rows, int cols, const int *len) {
  int *first = (int *)malloc((size_t)rows * sizeof(int));
  if (!first)
    return NULL;
  for (int i = 0; i < rows; i++)
    first[i] = (int)(tc_next() % (uint64_t)(cols - len[i] + 1));
  smv_csr *A = tst_csr_lengths(rows, cols, len, first);
  free(first);
  for (int64_t k = 0; A && k < A->nnz; k++)
    A->values[k] = tc_uniform() * 4.0;
  return A;
}

/* rows x cols with row i holding (i % period == 0 ? 0 : len) entries:
 * lots of empty rows between short ones. */
static smv_csr *with_empty_rows(int rows, int cols, int period, int len) {
  int *l = (int *)malloc((size_t)rows * sizeof(int));
  if (!l)
    return NULL;
  for (int i = 0; i < rows; i++)
    l[i] = (i % period == 0) ? 0 : (len < cols ? len : cols);
  smv_csr *A = with_lengths(rows, cols, l);
  free(l);
  return A;
}

/* The ladder on a matrix just made (NULL: a failure), which it frees. */
static void ladder_free(smv_csr *A, const char *label) {
  CHECK(A != NULL);
  if (A) {
    ladder(A, label, NCASES);
    smv_csr_free(A);
  }
}

static void test_empty_rows(void) {
  TC_NEED_DEVICE();
  ladder_free(with_empty_rows(3000, 700, 3, 40), "empty-rows 3000x700");
  ladder_free(with_empty_rows(500, 64, 2, 1), "empty-rows 500x64 len 1");
}

static void test_degenerate_shapes(void) {
  TC_NEED_DEVICE();
  /* 0 x 5, 5 x 0, 0 x 0: nothing to compute, but every rung must accept
   * them (and 5 x 0 must still give y = beta*y). */
  const int shapes[][2] = {{0, 5}, {5, 0}, {0, 0}};
  for (int s = 0; s < 3; s++) {
    smv_csr *A = NULL;
    CHECK_OK(smv_csr_create(shapes[s][0], shapes[s][1], 0, &A));
    if (!A)
      continue;
    A->sorted = 1;
    char label[64];
    snprintf(label, sizeof label, "%dx%d", shapes[s][0], shapes[s][1]);
    ladder(A, label, NCASES);
    smv_csr_free(A);
  }
}

static void test_small_kinds(void) {
  TC_NEED_DEVICE();
  gen_ladder("diag:1", NCASES);    /* 1 x 1 */
  gen_ladder("empty:5:7", NCASES); /* nnz = 0: y = beta*y */
  gen_ladder("empty:1:1", NCASES);
  gen_ladder("diag:300,cols=1000", NCASES);
  gen_ladder("band:2000:3", NCASES);
  gen_ladder("lap2d:60", NCASES);
  gen_ladder("lap3d:14", NCASES);
  gen_ladder("rand:5000:33", NCASES); /* rows just over a warp */
  gen_ladder("rand:2000:100", NCASES);
  gen_ladder("plaw:20000:8", NCASES); /* a few very long rows */
  /* Rows of 17, 33 and 65 entries (just past a power of two: rung 10's
   * tiles hold whole rows, several per tile, or one row per tile). */
  gen_ladder("band:3000:8", NCASES);
  gen_ladder("band:2000:16", NCASES);
  gen_ladder("band:1000:32", NCASES);
}

static void test_rectangular(void) {
  TC_NEED_DEVICE();
  gen_ladder("rand:3000:10,cols=500", NCASES);  /* tall */
  gen_ladder("rand:300:40,cols=20000", NCASES); /* wide */
  gen_ladder("band:1000:4,cols=1300", NCASES);
  gen_ladder("plaw:4000:12,cols=900", NCASES);
}

/* Rung 9's one-round plan (small matrices): rows of 3 entries but for a
 * few at every boundary of its long-row tiers: 40 (one warp), 128 and
 * 129 (last warp row, first block row), 2048 and 2049 (last block row,
 * first multi-chunk row) and 5000 (many chunks). 6000 rows, so the long
 * rows' warps and blocks (3168 threads) stay under the row groups' 6000
 * threads and the plan applies (the plan line says so). */
static const int tier_len[][2] = {{10, 40},   {20, 128},    {30, 129},
                                  {40, 500},  {50, 2048},   {60, 2049},
                                  {70, 5000}, {5999, 2048}, {0, 129}};
#define NTIER ((int)(sizeof tier_len / sizeof tier_len[0]))

static smv_csr *tiers_matrix(void) {
  enum { rows = 6000, cols = 6000 };
  static int len[rows];
  for (int i = 0; i < rows; i++)
    len[i] = 3;
  for (int t = 0; t < NTIER; t++)
    len[tier_len[t][0]] = tier_len[t][1];
  return with_lengths(rows, cols, len);
}

/* Whether the plan smv makes for A (f64) names `phrase` is `want`. */
static void check_plan(smv_context *ctx, const smv_csr *A, const char *label,
                       const char *phrase, int want) {
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  smv_matrix_plan_info info;
  if (dA && smv_matrix_plan(dA, &info) == SMV_OK)
    CHECKF((strstr(info.reason, phrase) != NULL) == want, "%s: plan: %s", label,
           info.reason);
  smv_matrix_free(dA);
}

static void test_one_round_tiers(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tiers_matrix();
  CHECK(A != NULL);
  if (!A)
    return;
  /* The plan line names the one-round plan, one lane (the 99th percentile
   * is 3 entries), 5 block rows (129 twice, 500, 2048 twice) and 59
   * chunks (40 and 128 one each; 2049: 17; 5000: 40). */
  check_plan(ctx, A, "one-round tiers",
             "one-round, 1 lanes per row, rows over 4 entries to 59 warp "
             "chunks and 5 block rows",
             1);
  /* The block it launches (what smv bench reports): the plan's 256, the
   * context's default for another rung, a caller's size over both. */
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  int b = 0, d = 0;
  CHECK_OK(smv_matrix_launch_block(ctx, dA, SMV_ALG_ADAPTIVE, &b));
  CHECK_INT(b, 256);
  CHECK_OK(smv_matrix_launch_block(ctx, dA, SMV_ALG_TILED, &b));
  CHECK_OK(smv_kernel_default_block(ctx, SMV_ALG_TILED, SMV_F64, &d));
  CHECK_INT(b, d);
  CHECK_OK(smv_context_set_block_size(ctx, 96));
  CHECK_OK(smv_matrix_launch_block(ctx, dA, SMV_ALG_ADAPTIVE, &b));
  CHECK_INT(b, 96);
  CHECK_OK(smv_context_set_block_size(ctx, 0));
  CHECK_INT(smv_matrix_launch_block(ctx, dA, SMV_ALG_AUTO, &b),
            SMV_ERR_NOT_FOUND);
  CHECK_INT(smv_matrix_launch_block(ctx, NULL, SMV_ALG_ADAPTIVE, &b),
            SMV_ERR_ARG);
  smv_matrix_free(dA);
  ladder(A, "one-round tiers", NCASES);
  smv_csr_free(A);
}

/* Rung 9's kernel for exactly one entry per row (four rows per thread,
 * 16-byte loads): a tail of 3 rows, random columns, the plan line; and a
 * diagonal narrower than its rows (empty rows: not this kernel). The
 * ladder's device cases put y 3 elements into its buffer (unaligned: the
 * scalar stores) and the others at the buffer's start (16-byte stores). */
static void test_one_per_row(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"diag:1003,perm=rand", "diag:4096",
                         "diag:1000,cols=500"};
  for (int i = 0; i < 3; i++) {
    smv_csr *A = tst_generate(specs[i]);
    if (!A)
      continue;
    check_plan(ctx, A, specs[i], "one entry per row", i < 2);
    ladder(A, specs[i], NCASES);
    smv_csr_free(A);
  }
}

/* Rung 11's tiles: at this size (rows + entries about 170k) a tile is 256
 * work items (rows + entries) and at most 128 rows. Rows of 255 entries
 * fill a tile with their own end, 256 and 257 are one and two pieces,
 * 1000 four; runs of 300 empty rows are longer than a tile's 128 rows; the
 * last row is empty; other rows have 0..40 entries at random (so the
 * shares of a tile's threads start and end anywhere in a row). */
static smv_csr *merge_tiles_matrix(void) {
  enum { rows = 8000, cols = 3000 };
  static int len[rows];
  for (int i = 0; i < rows; i++)
    len[i] = (int)(tc_next() % 41);
  for (int i = 1000; i < 1300; i++)
    len[i] = len[i + 4000] = 0;
  const int special[][2] = {{0, 255},    {10, 256},    {11, 257},   {2000, 255},
                            {2001, 255}, {3000, 1000}, {7998, 511}, {7999, 0}};
  for (int s = 0; s < (int)(sizeof special / sizeof special[0]); s++)
    len[special[s][0]] = special[s][1];
  return with_lengths(rows, cols, len);
}

static void test_merge_tiles(void) {
  TC_NEED_DEVICE();
  smv_csr *A = merge_tiles_matrix();
  CHECK(A != NULL);
  if (!A)
    return;
  ladder(A, "merge tiles", NCASES);
  smv_csr_free(A);
}

static void test_long_row(void) {
  TC_NEED_DEVICE();
  /* One row of 150000 entries among rows of 4. */
  gen_ladder("denserow:1000:4,cols=150000", NCASES);
}

static void test_large(void) {
  TC_NEED_DEVICE();
  /* 3.2M rows x 16 = 51.2M nonzeros: int32 offsets near 2^26 entries,
   * grids of 100k+ blocks; two cases per rung to keep the CPU reference's
   * time reasonable. */
  gen_ladder("rand:3200000:16", 2);
  /* 9.6M entries (115 MB f64, 77 MB f32: past the H100's 50 MB L2, so
   * rung 9 takes its large-matrix lane rule) with power-law rows up to
   * 8763 entries: rows of many chunks combined in the same launch. */
  gen_ladder("plaw:600000:16", 2);
  /* Rung 10's middle tile sizes (it picks 512 and 1024 entries per tile
   * at these sizes) and long rows cut into pieces of them. */
  gen_ladder("band:40000:4", 2);
  gen_ladder("band:60000:8", 2);
  gen_ladder("denserow:60000:8,cols=300000", 2);
}

/* Rung 9 adds every row in a fixed order (long rows: chunk partials summed
 * in chunk order by the last warp to finish), so repeated calls on the
 * same x and y0 must give the same bits, whichever warps finish first. */
static void reproducible_matrix(smv_csr *A, const char *spec, smv_alg alg) {
  smv_context *ctx = tc_context();
  const int64_t m = A->rows, n = A->cols;
  double *x = (double *)malloc((size_t)n * sizeof(double));
  double *y0 = (double *)malloc((size_t)m * sizeof(double));
  double *y1 = (double *)malloc((size_t)m * sizeof(double));
  double *y2 = (double *)malloc((size_t)m * sizeof(double));
  CHECK(x && y0 && y1 && y2);
  for (int p = 0; x && y0 && y1 && y2 && p < 2; p++) {
    const int f32 = p == 1;
    const size_t es = f32 ? sizeof(float) : sizeof(double);
    if (f32)
      tc_round_values(A);
    tc_fill(x, n);
    tc_fill(y0, m);
    smv_matrix *dA = NULL;
    void *dx = NULL, *dy = NULL;
    smv_status st = smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA);
    if (st == SMV_OK)
      st = smv_device_malloc(ctx, (size_t)n * es, &dx);
    if (st == SMV_OK)
      st = smv_device_malloc(ctx, (size_t)m * es, &dy);
    if (st == SMV_OK)
      st = tc_upload(ctx, f32, x, n, dx);
    int64_t bad = 0, differ = 0;
    for (int rep = 0; st == SMV_OK && rep < 5; rep++) {
      double *y = rep == 0 ? y1 : y2;
      st = tc_upload(ctx, f32, y0, m, dy);
      if (st == SMV_OK)
        st = smv_spmv(ctx, alg, 1.25, dA, dx, -0.5, dy);
      if (st == SMV_OK)
        st = smv_synchronize(ctx);
      if (st == SMV_OK)
        st = tc_download(ctx, f32, dy, m, y);
      if (st != SMV_OK)
        break;
      if (rep == 0)
        bad = tc_verify(A, f32, 1.25, x, -0.5, y0, y1, spec);
      else
        for (int64_t i = 0; i < m; i++)
          differ += memcmp(&y1[i], &y2[i], sizeof(double)) != 0;
    }
    const char *an = smv_alg_name(alg);
    CHECKF(st == SMV_OK, "%s %s %s: %s: %s", spec, an, f32 ? "f32" : "f64",
           smv_status_string(st), smv_context_error(ctx));
    CHECKF(bad == 0, "%s %s %s: %lld bad rows", spec, an, f32 ? "f32" : "f64",
           (long long)bad);
    CHECKF(differ == 0, "%s %s %s: %lld row results differ between calls", spec,
           an, f32 ? "f32" : "f64", (long long)differ);
    smv_device_free(ctx, dx);
    smv_device_free(ctx, dy);
    smv_matrix_free(dA);
  }
  free(x), free(y0), free(y1), free(y2);
}

static void reproducible_on(const char *spec, smv_alg alg) {
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  reproducible_matrix(A, spec, alg);
  smv_csr_free(A);
}

static void test_adaptive_reproducible(void) {
  TC_NEED_DEVICE();
  /* Rung 9 (chunks of 128), rungs 10, 11 and 13 (pieces of one tile,
   * 256-4096). */
  const smv_alg algs[] = {SMV_ALG_ADAPTIVE, SMV_ALG_TILED, SMV_ALG_MERGE,
                          SMV_ALG_PACKED};
  for (int a = 0; a < 4; a++) {
    reproducible_on("denserow:300:3,cols=2500", algs[a]);    /* 20 chunks */
    reproducible_on("denserow:1000:4,cols=150000", algs[a]); /* 1172 */
    reproducible_on("plaw:20000:8", algs[a]);   /* many multi-chunk rows */
    reproducible_on("plaw:600000:16", algs[a]); /* past the L2 */
  }
  /* Rung 9's one-round plan: block rows and chunks in one launch. */
  smv_csr *A = tiers_matrix();
  CHECK(A != NULL);
  if (A) {
    reproducible_matrix(A, "one-round tiers", SMV_ALG_ADAPTIVE);
    smv_csr_free(A);
  }
  /* Rung 11's scan between threads, at every block size's share. */
  A = merge_tiles_matrix();
  CHECK(A != NULL);
  if (A) {
    reproducible_matrix(A, "merge tiles", SMV_ALG_MERGE);
    smv_csr_free(A);
  }
}

/* The same matrix on many vectors: results must not depend on which
 * buffers the previous call used (cuSPARSE descriptors, texture cache). */
static void test_vector_reuse(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("rand:4000:20,cols=3000");
  if (!A)
    return;
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  for (int a = 1; dA && a < SMV_ALG_COUNT; a++)
    for (int rep = 0; rep < 4; rep++) {
      int64_t bad = tc_case(ctx, dA, A, (smv_alg)a, 1.5, rep % 2 ? 0.0 : -1.0,
                            0, rep, "reuse");
      CHECKF(bad == 0, "reuse alg %s rep %d: %lld bad rows",
             smv_alg_name((smv_alg)a), rep, (long long)bad);
    }
  smv_matrix_free(dA);
  smv_csr_free(A);
}

/* Block-size override: every multiple of 32 works for every rung. */
static void block_override_on(smv_csr *A) {
  smv_context *ctx = tc_context();
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  const int blocks[] = {32, 96, 128, 480, 1024};
  for (int b = 0; dA && b < 5; b++) {
    CHECK_OK(smv_context_set_block_size(ctx, blocks[b]));
    for (int a = 1; a < SMV_ALG_COUNT; a++) {
      char label[64];
      snprintf(label, sizeof label, "block %d", blocks[b]);
      int64_t bad = tc_case(ctx, dA, A, (smv_alg)a, 0.75, 0.25, 0, 0, label);
      CHECKF(bad == 0, "block %d alg %s: %lld bad rows", blocks[b],
             smv_alg_name((smv_alg)a), (long long)bad);
    }
  }
  CHECK_OK(smv_context_set_block_size(ctx, 0));
  smv_matrix_free(dA);
}

/* (rung 9's one-round plan has its own block size, 256, which a caller's
 * size replaces: block rows then run with 32 .. 1024 threads) */
static void test_block_override(void) {
  TC_NEED_DEVICE();
  smv_csr *A = tst_generate("plaw:3000:9");
  if (A)
    block_override_on(A);
  smv_csr_free(A);
  A = tiers_matrix();
  CHECK(A != NULL);
  if (A)
    block_override_on(A);
  smv_csr_free(A);
  /* (rung 11: shares of 1..8 items per thread at 1024..32 threads) */
  A = merge_tiles_matrix();
  CHECK(A != NULL);
  if (A)
    block_override_on(A);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_degenerate_shapes);
  RUN(test_small_kinds);
  RUN(test_empty_rows);
  RUN(test_rectangular);
  RUN(test_merge_tiles);
  RUN(test_long_row);
  RUN(test_one_round_tiers);
  RUN(test_one_per_row);
  RUN(test_vector_reuse);
  RUN(test_block_override);
  RUN(test_adaptive_reproducible);
  RUN(test_large);
  smv_context_free(tc_ctx);
  return TEST_END();
}
