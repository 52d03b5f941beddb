/*
 * test_cuda_mixed.c — precision f64-f32v (SMV_F64_F32V: the matrix's
 * values stored as f32, x, y, alpha, beta and every sum in f64) on the
 * device. SKIPs without a device.
 *
 *   - rungs 2, 9, 10 and AUTO against the serial f64 reference on the
 *     matrix as given, within twice smv_spmv_f32v_bound per row (the
 *     mode's distance to the exact product, plus the reference's own,
 *     which the bound also covers: bench_expect_compute_f32v, the bench's
 *     check): local and random columns, power-law rows, one huge row,
 *     empty rows, one entry per row, rectangular shapes, nnz = 0, two
 *     matrices past the L2 (the evict-first loads and AUTO's past-L2
 *     lines); x random and never zero, y poisoned with NaN when beta = 0,
 *     alpha and beta never 0 or 1; AUTO runs rung 9 or 10;
 *   - the values really are f32: on values no float holds, the result
 *     differs from rung 9's in f64; on float-representable values it is
 *     the f64 rung's (within f64 rounding, and bit for bit on a matrix
 *     inside the L2, where both precisions make the same plan: the only
 *     difference left is where each value is widened);
 *   - a finite value past FLT_MAX refused at smv_matrix_create and
 *     smv_matrix_create_device (SMV_ERR_OVERFLOW naming row and column);
 *     NaN and Inf accepted; create_device's conversion gives the host
 *     upload's bits;
 *   - every other rung, smv_matrix_prepare of one, smv_spmv_t, SpMM, CG
 *     and the cuSPARSE creation flag refused with SMV_ERR_UNSUPPORTED and
 *     a message naming the precision, y left as it was; the tuner times
 *     only rungs that run the mode.
 */
#include "test_cuda_common.h"

#include "smv_solve.h"

/* alpha, beta: never 0 or 1 (those take shortcuts of their own). */
static const double mx_ab[][2] = {{1.5, 0.0}, {-0.75, 0.5}, {2.0, -1.25}};
#define MX_NAB ((int)(sizeof mx_ab / sizeof mx_ab[0]))

/* Values no float holds (53 random bits, both signs, |v| in [1/64, 4]). */
static void random_values(smv_csr *A) {
  for (int64_t k = 0; k < A->nnz; k++)
    A->values[k] = tc_uniform() * 4.0;
}

/* One checked case; returns the bad rows (1 for a failed call). */
static int64_t mx_case(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                       smv_alg alg, double alpha, double beta, int use_host,
                       const char *label) {
  const int64_t m = A->rows, n = A->cols;
  double *x = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *y0 = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *y = (double *)malloc(((size_t)m + 1) * sizeof(double));
  int64_t bad = 1;
  char what[300];
  snprintf(what, sizeof what, "%s alg=%s f64-f32v alpha=%g beta=%g %s", label,
           smv_alg_name(alg), alpha, beta, use_host ? "host" : "device");
  if (!x || !y0 || !y) {
    fprintf(stderr, "%s: out of host memory\n", what);
    goto out;
  }
  tc_fill(x, n); /* never zero */
  if (beta == 0.0)
    tc_fill_nan(y0, m);
  else
    tc_fill(y0, m);
  smv_status st =
      tc_run(ctx, dA, alg, alpha, x, n, beta, y0, y, m, use_host, 3);
  if (st != SMV_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, smv_status_string(st),
            smv_context_error(ctx));
    goto out;
  }
  bench_expect e;
  st = bench_expect_compute_f32v(A, alpha, x, beta, beta != 0 ? y0 : NULL, &e);
  if (st != SMV_OK) {
    fprintf(stderr, "%s: reference: %s\n", what, smv_status_string(st));
    goto out;
  }
  double worst;
  int64_t first;
  bad = bench_check(&e, y, &worst, &first);
  if (bad > 0)
    fprintf(stderr,
            "%s: %lld rows outside twice the f64-f32v bound; first row %lld: "
            "got %.17g, want %.17g, bound %.3g; worst |diff|/bound %.3g\n",
            what, (long long)bad, (long long)first, y[first], e.ref[first],
            e.bound[first], worst);
  bench_expect_free(&e);
out:
  free(x), free(y0), free(y);
  return bad;
}

/* Rungs 2, 9, 10 and AUTO, every alpha/beta case, on A (values made
 * non-representable first); AUTO must run rung 9 or 10. */
static void mode_on(smv_csr *A, const char *label) {
  smv_context *ctx = tc_context();
  random_values(A);
  smv_matrix *dA = NULL;
  smv_status st = smv_matrix_create(ctx, A, SMV_F64_F32V, &dA);
  CHECKF(st == SMV_OK, "%s: create: %s", label, smv_context_error(ctx));
  if (st != SMV_OK)
    return;
  CHECK_INT(smv_matrix_precision(dA), SMV_F64_F32V);
  smv_matrix_plan_info p;
  CHECK_OK(smv_matrix_plan(dA, &p));
  CHECKF(p.alg == SMV_ALG_ADAPTIVE || p.alg == SMV_ALG_TILED,
         "%s: AUTO runs %s", label, smv_alg_name(p.alg));
  /* The matrix holds 4-byte values: CSR bytes = (rows + 1) 4 + nnz 8. */
  CHECK(smv_matrix_device_bytes(dA) >=
        ((size_t)A->rows + 1) * 4 + (size_t)A->nnz * 8);
  static const smv_alg algs[] = {SMV_ALG_AUTO, SMV_ALG_VECTOR, SMV_ALG_ADAPTIVE,
                                 SMV_ALG_TILED};
  int c = 0;
  for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
    for (int k = 0; k < MX_NAB; k++, c++)
      CHECK_INT(
          mx_case(ctx, dA, A, algs[a], mx_ab[k][0], mx_ab[k][1], c & 1, label),
          0);
  smv_matrix_free(dA);
}

static void gen_mode(const char *spec) {
  smv_csr *A = tst_generate(spec);
  if (A)
    mode_on(A, spec);
  smv_csr_free(A);
}

/* rows x cols, row i of len(i) consecutive entries at a random start. */
static smv_csr *lengths(int rows, int cols, int period, int len, int huge_row,
                        int huge_len) {
  int *l = (int *)malloc((size_t)rows * sizeof(int));
  int *f = (int *)malloc((size_t)rows * sizeof(int));
  smv_csr *A = NULL;
  if (l && f) {
    for (int i = 0; i < rows; i++) {
      l[i] = i == huge_row ? huge_len : period && i % period == 0 ? 0 : len;
      f[i] = (int)(tc_next() % (uint64_t)(cols - l[i] + 1));
    }
    A = tst_csr_lengths(rows, cols, l, f);
  }
  free(l);
  free(f);
  return A;
}

static void test_local(void) {
  TC_NEED_DEVICE();
  gen_mode("band:20000:9");
  gen_mode("lap3d:24");
  gen_mode("band:3000:48");
}

static void test_random_powerlaw(void) {
  TC_NEED_DEVICE();
  gen_mode("rand:20000:12");
  gen_mode("plaw:30000:10");
  gen_mode("rmat:14:8");
}

static void test_huge_row_empty_rows(void) {
  TC_NEED_DEVICE();
  gen_mode("denserow:30000:4"); /* row 15000 holds every column */
  smv_csr *A = lengths(5000, 200000, 0, 3, 2500, 150000);
  CHECK(A != NULL);
  if (A)
    mode_on(A, "one row of 150000 among rows of 3");
  smv_csr_free(A);
  A = lengths(7000, 7000, 3, 21, -1, 0); /* a third of the rows empty */
  CHECK(A != NULL);
  if (A)
    mode_on(A, "empty rows");
  smv_csr_free(A);
}

static void test_shapes(void) {
  TC_NEED_DEVICE();
  gen_mode("rand:3000:8,cols=11000"); /* wide */
  gen_mode("rand:12000:5,cols=700");  /* tall */
  gen_mode("diag:4099");              /* rung 9's one-entry-per-row kernel */
  gen_mode("empty:9:4");              /* nnz = 0: y = beta y */
  gen_mode("empty:0:6");
}

/* Past the H100's and H200's L2 at 8 bytes per entry (72 and 128 MB):
 * rung 9's evict-first loads and rung 10's evict-first load modes, with
 * and without gathers in entry order, and AUTO's past-L2 lines. */
static void test_past_l2(void) {
  TC_NEED_DEVICE();
  gen_mode("band:1000000:9");
  gen_mode("rand:1000000:16");
}

/* One SpMV of alg with fixed x, y0 on dA into y (device pointers). */
static smv_status fixed_run(smv_matrix *dA, smv_alg alg, const smv_csr *A,
                            const double *x, const double *y0, double *y) {
  return tc_run(tc_context(), dA, alg, -1.25, x, A->cols, 0.5, y0, y, A->rows,
                0, 0);
}

/* The values really are f32 in this mode, and only they are. */
static void test_values_are_f32(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("rand:4000:24"); /* inside the L2 */
  if (!A)
    return;
  random_values(A);
  const int64_t m = A->rows, n = A->cols;
  double *x = malloc((size_t)n * sizeof *x), *y0 = malloc((size_t)m * 8);
  double *ym = malloc((size_t)m * 8), *yd = malloc((size_t)m * 8);
  tc_fill(x, n);
  tc_fill(y0, m);
  smv_matrix *dm = NULL, *dd = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64_F32V, &dm));
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dd));
  static const smv_alg algs[] = {SMV_ALG_ADAPTIVE, SMV_ALG_TILED};
  for (size_t a = 0; dm && dd && a < 2; a++) {
    /* Non-representable values: most rows differ from f64's, by more
     * than f64 rounding could explain. */
    CHECK_OK(fixed_run(dm, algs[a], A, x, y0, ym));
    CHECK_OK(fixed_run(dd, algs[a], A, x, y0, yd));
    int64_t differ = 0;
    for (int64_t i = 0; i < m; i++)
      differ += fabs(ym[i] - yd[i]) > 1e-12 * (fabs(yd[i]) + 1.0);
    CHECKF(differ > m / 2, "%s: only %lld of %lld rows differ from f64",
           smv_alg_name(algs[a]), (long long)differ, (long long)m);
  }
  smv_matrix_free(dm);
  smv_matrix_free(dd);
  dm = dd = NULL;
  /* Float-representable values: the f64 rung's result, within f64
   * rounding, and bit for bit (same plan inside the L2 in both
   * precisions: only where each value is widened differs). */
  tc_round_values(A);
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64_F32V, &dm));
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dd));
  for (size_t a = 0; dm && dd && a < 2; a++) {
    CHECK_OK(fixed_run(dm, algs[a], A, x, y0, ym));
    CHECK_OK(fixed_run(dd, algs[a], A, x, y0, yd));
    CHECK_INT(tc_verify(A, 0, -1.25, x, 0.5, y0, ym, "f32-exact values"), 0);
    int64_t same = 0;
    for (int64_t i = 0; i < m; i++)
      same += memcmp(&ym[i], &yd[i], sizeof(double)) == 0;
    CHECKF(same == m, "%s: %lld of %lld rows bit-identical to f64",
           smv_alg_name(algs[a]), (long long)same, (long long)m);
  }
  smv_matrix_free(dm);
  smv_matrix_free(dd);
  free(x), free(y0), free(ym), free(yd);
  smv_csr_free(A);
}

/* Rungs 9 and 10 give the same bits on every call (their long rows'
 * partials are summed in a fixed order). */
static void test_reproducible(void) {
  TC_NEED_DEVICE();
  smv_csr *A = lengths(3000, 90000, 7, 40, 1500, 60000);
  if (!A)
    return;
  random_values(A);
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(tc_context(), A, SMV_F64_F32V, &dA));
  double *x = malloc((size_t)A->cols * 8), *y0 = malloc((size_t)A->rows * 8);
  double *y1 = malloc((size_t)A->rows * 8), *y2 = malloc((size_t)A->rows * 8);
  tc_fill(x, A->cols);
  tc_fill(y0, A->rows);
  static const smv_alg algs[] = {SMV_ALG_ADAPTIVE, SMV_ALG_TILED};
  for (size_t a = 0; dA && a < 2; a++) {
    CHECK_OK(fixed_run(dA, algs[a], A, x, y0, y1));
    for (int r = 0; r < 3; r++) {
      CHECK_OK(fixed_run(dA, algs[a], A, x, y0, y2));
      CHECK(memcmp(y1, y2, (size_t)A->rows * 8) == 0);
    }
  }
  smv_matrix_free(dA);
  free(x), free(y0), free(y1), free(y2);
  smv_csr_free(A);
}

/* A 3 x 4 matrix with value v at (2, 3). */
static smv_csr *small_with(double v) {
  const smv_offset ptr[] = {0, 2, 3, 5};
  const smv_index idx[] = {0, 2, 1, 0, 3};
  const double val[] = {1.0, 0.1, -2.0, 0.3, v};
  return tst_csr(3, 4, 5, ptr, idx, val);
}

/* The matrix's arrays in device memory (freed by the caller). */
static int to_device(smv_context *ctx, const smv_csr *A, int f32, void **rp,
                     void **cp, void **vp) {
  *rp = *cp = *vp = NULL;
  const size_t vb = f32 ? 4 : 8;
  if (smv_device_malloc(ctx, ((size_t)A->rows + 1) * 4, rp) != SMV_OK ||
      smv_device_malloc(ctx, (size_t)A->nnz * 4, cp) != SMV_OK ||
      smv_device_malloc(ctx, (size_t)A->nnz * vb, vp) != SMV_OK)
    return -1;
  float *f = malloc((size_t)A->nnz * sizeof *f);
  for (int64_t k = 0; f && k < A->nnz; k++)
    f[k] = (float)A->values[k];
  int ok = f &&
           smv_memcpy_h2d(ctx, *rp, A->row_ptr, ((size_t)A->rows + 1) * 4) ==
               SMV_OK &&
           smv_memcpy_h2d(ctx, *cp, A->col_idx, (size_t)A->nnz * 4) == SMV_OK &&
           smv_memcpy_h2d(ctx, *vp, f32 ? (void *)f : (void *)A->values,
                          (size_t)A->nnz * vb) == SMV_OK;
  free(f);
  return ok ? 0 : -1;
}

static void device_free3(smv_context *ctx, void *a, void *b, void *c) {
  smv_device_free(ctx, a);
  smv_device_free(ctx, b);
  smv_device_free(ctx, c);
}

static void test_create_checks(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const double bad[] = {1e39, -DBL_MAX, nextafter((double)FLT_MAX, 1e300)};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    smv_csr *A = small_with(bad[i]);
    smv_matrix *dA = (smv_matrix *)&dA; /* must become NULL */
    CHECK_STATUS(smv_matrix_create(ctx, A, SMV_F64_F32V, &dA),
                 SMV_ERR_OVERFLOW);
    CHECK(dA == NULL);
    CHECKF(strstr(smv_context_error(ctx), "row 2, column 3") != NULL, "%s",
           smv_context_error(ctx));
    /* The same values are fine in f64. */
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
    smv_matrix_free(dA);
    dA = NULL;
    void *rp, *cp, *vp;
    CHECK(to_device(ctx, A, 0, &rp, &cp, &vp) == 0);
    CHECK_STATUS(smv_matrix_create_device(ctx, 3, 4, 5, rp, cp, vp, SMV_F64,
                                          SMV_F64_F32V, NULL, &dA),
                 SMV_ERR_OVERFLOW);
    CHECK(dA == NULL);
    CHECKF(strstr(smv_context_error(ctx), "row 2, column 3") != NULL, "%s",
           smv_context_error(ctx));
    device_free3(ctx, rp, cp, vp);
    smv_csr_free(A);
  }
  /* NaN, Inf, FLT_MAX and subnormal-to-be values are accepted. */
  const double good[] = {NAN, INFINITY, FLT_MAX, 0x1p-140, 0x1.8p-149};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    smv_csr *A = small_with(good[i]);
    smv_matrix *dA = NULL;
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F64_F32V, &dA));
    smv_matrix_free(dA);
    smv_csr_free(A);
  }
  /* create_device from f64 and from f32 values gives the host upload's
   * bits (the same rounding to float). */
  smv_csr *A = tst_generate("rand:2000:9");
  if (!A)
    return;
  random_values(A);
  smv_matrix *dh = NULL, *d64 = NULL, *d32 = NULL;
  void *r1, *c1, *v1, *r2, *c2, *v2;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64_F32V, &dh));
  CHECK(to_device(ctx, A, 0, &r1, &c1, &v1) == 0);
  CHECK(to_device(ctx, A, 1, &r2, &c2, &v2) == 0);
  CHECK_OK(smv_matrix_create_device(ctx, A->rows, A->cols, A->nnz, r1, c1, v1,
                                    SMV_F64, SMV_F64_F32V, NULL, &d64));
  CHECK_OK(smv_matrix_create_device(ctx, A->rows, A->cols, A->nnz, r2, c2, v2,
                                    SMV_F32, SMV_F64_F32V, NULL, &d32));
  double *x = malloc((size_t)A->cols * 8), *y0 = malloc((size_t)A->rows * 8);
  double *ya = malloc((size_t)A->rows * 8), *yb = malloc((size_t)A->rows * 8);
  tc_fill(x, A->cols);
  tc_fill(y0, A->rows);
  if (dh && d64 && d32) {
    CHECK_INT(smv_matrix_precision(d64), SMV_F64_F32V);
    CHECK_OK(fixed_run(dh, SMV_ALG_ADAPTIVE, A, x, y0, ya));
    CHECK_OK(fixed_run(d64, SMV_ALG_ADAPTIVE, A, x, y0, yb));
    CHECK(memcmp(ya, yb, (size_t)A->rows * 8) == 0);
    CHECK_OK(fixed_run(d32, SMV_ALG_ADAPTIVE, A, x, y0, yb));
    CHECK(memcmp(ya, yb, (size_t)A->rows * 8) == 0);
  }
  smv_matrix_free(dh);
  smv_matrix_free(d64);
  smv_matrix_free(d32);
  device_free3(ctx, r1, c1, v1);
  device_free3(ctx, r2, c2, v2);
  free(x), free(y0), free(ya), free(yb);
  smv_csr_free(A);
}

/* Every refusal: SMV_ERR_UNSUPPORTED naming the precision, nothing
 * written. */
static void test_refused(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap2d:40");
  if (!A)
    return;
  random_values(A);
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64_F32V, &dA));
  if (!dA) {
    smv_csr_free(A);
    return;
  }
  const int64_t n = A->rows;
  double *x = malloc((size_t)n * 8), *y = malloc((size_t)n * 8);
  tc_fill(x, n);
  void *dx = NULL, *dy = NULL;
  CHECK_OK(smv_device_malloc(ctx, (size_t)n * 8, &dx));
  CHECK_OK(smv_device_malloc(ctx, (size_t)n * 8, &dy));
  CHECK_OK(smv_memcpy_h2d(ctx, dx, x, (size_t)n * 8));
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const smv_alg alg = (smv_alg)a;
    if (smv_alg_runs_precision(alg, SMV_F64_F32V))
      continue;
    for (int64_t i = 0; i < n; i++)
      y[i] = 7.0;
    CHECK_OK(smv_memcpy_h2d(ctx, dy, y, (size_t)n * 8));
    CHECK_STATUS(smv_spmv(ctx, alg, 1.5, dA, dx, 0.5, dy), SMV_ERR_UNSUPPORTED);
    CHECKF(strstr(smv_context_error(ctx), "f64-f32v") != NULL, "%s",
           smv_context_error(ctx));
    /* With nothing to multiply too: refused whatever the data. */
    CHECK_STATUS(smv_spmv(ctx, alg, 0.0, dA, dx, 0.5, dy), SMV_ERR_UNSUPPORTED);
    CHECK_STATUS(smv_spmv_host_vectors(ctx, alg, 1.5, dA, x, 0.5, y),
                 SMV_ERR_UNSUPPORTED);
    CHECK_STATUS(smv_matrix_prepare(ctx, dA, alg), SMV_ERR_UNSUPPORTED);
    CHECK_OK(smv_synchronize(ctx));
    CHECK_OK(smv_memcpy_d2h(ctx, y, dy, (size_t)n * 8));
    int64_t kept = 0;
    for (int64_t i = 0; i < n; i++)
      kept += y[i] == 7.0;
    CHECKF(kept == n, "rung %d wrote y", a);
    smv_kernel_attrs ka;
    CHECK_STATUS(smv_kernel_attributes(ctx, alg, SMV_F64_F32V, 0, &ka),
                 smv_kernel_name(alg) ? SMV_ERR_UNSUPPORTED
                                      : SMV_ERR_NOT_FOUND);
  }
  smv_kernel_attrs ka;
  CHECK_OK(smv_kernel_attributes(ctx, SMV_ALG_ADAPTIVE, SMV_F64_F32V, 0, &ka));
  CHECK_OK(smv_kernel_attributes(ctx, SMV_ALG_TILED, SMV_F64_F32V, 0, &ka));
  CHECK_OK(smv_kernel_attributes(ctx, SMV_ALG_VECTOR, SMV_F64_F32V, 0, &ka));
  CHECK_STATUS(smv_spmv_t(ctx, SMV_ALG_ADAPTIVE, 1.5, dA, dx, 0.5, dy),
               SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_matrix_prepare_transpose(ctx, dA), SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_AUTO, 1.5, dA, dx, 1, 0.5, dy, 1, 1,
                        SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_spmm_host(ctx, SMV_SPMM_OURS, 1.5, dA, x, 1, 0.5, y, 1, 1,
                             SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_UNSUPPORTED);
  smv_solve_result res;
  CHECK_STATUS(smv_cg_cuda(ctx, dA, dx, dy, NULL, &res), SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_bicgstab_cuda(ctx, dA, dx, dy, NULL, &res),
               SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_solve_cuda_host(ctx, dA, SMV_METHOD_CG, x, y, NULL, &res),
               SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_pagerank_cuda(ctx, A, SMV_F64_F32V, y, NULL, &res),
               SMV_ERR_UNSUPPORTED);
  /* cuSPARSE asked for at creation: refused, nothing made. */
  smv_matrix_options o = {.flags = SMV_MATRIX_CUSPARSE};
  smv_matrix *dc = NULL;
  CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64_F32V, &o, &dc),
               SMV_ERR_UNSUPPORTED);
  CHECK(dc == NULL);
  /* The tuner times only rungs that run the mode. */
  o.flags = SMV_MATRIX_TUNE;
  o.tune_runs = 3;
  CHECK_OK(smv_matrix_create_ex(ctx, A, SMV_F64_F32V, &o, &dc));
  smv_matrix_plan_info p;
  if (dc && smv_matrix_plan(dc, &p) == SMV_OK) {
    CHECK(p.measured);
    CHECK(p.ncandidates > 0);
    for (int i = 0; i < p.ncandidates; i++)
      CHECKF(smv_alg_runs_precision(p.candidates[i].alg, SMV_F64_F32V) &&
                 p.candidates[i].ms >= 0,
             "candidate %s", smv_alg_name(p.candidates[i].alg));
    CHECK(smv_alg_runs_precision(p.alg, SMV_F64_F32V));
  }
  smv_matrix_free(dc);
  /* A matrix of 0 rows: nothing to compute, still refused. */
  smv_csr *E = tst_generate("empty:0:6");
  smv_matrix *de = NULL;
  if (E && smv_matrix_create(ctx, E, SMV_F64_F32V, &de) == SMV_OK) {
    CHECK_STATUS(smv_spmv(ctx, SMV_ALG_SCALAR, 1.5, de, dx, 0.5, dy),
                 SMV_ERR_UNSUPPORTED);
    CHECK_OK(smv_spmv(ctx, SMV_ALG_TILED, 1.5, de, dx, 0.5, dy));
  }
  smv_matrix_free(de);
  smv_csr_free(E);
  smv_device_free(ctx, dx);
  smv_device_free(ctx, dy);
  free(x), free(y);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_local);
  RUN(test_random_powerlaw);
  RUN(test_huge_row_empty_rows);
  RUN(test_shapes);
  RUN(test_past_l2);
  RUN(test_values_are_f32);
  RUN(test_reproducible);
  RUN(test_create_checks);
  RUN(test_refused);
  smv_context_free(tc_ctx);
  return TEST_END();
}
