/* test_cuda_harden.c — the device side of issue 9 (SKIPs without a GPU):
 *   - smv_matrix_create refuses a CSR whose interior row_ptr is not
 *     monotone (rows = 2, nnz = 2, row_ptr {0,5,2} and {0,-3,2});
 *   - smv_spmv and smv_spmv_host_vectors refuse x and y that overlap;
 *   - the rungs documented as deterministic (docs/engine.md,
 *     "Determinism") give the same bits on every call. */
#include "test_cuda_common.h"
#include "test_harden.h"

static void test_upload_not_monotone(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const smv_offset mids[] = {5, -3};
  for (int m = 0; m < 2; m++) {
    smv_csr *A = harden_two_rows(mids[m]);
    CHECK(A != NULL);
    for (int p = 0; A && p < 2; p++) {
      static int sentinel;
      smv_matrix *dA = (smv_matrix *)&sentinel; /* must come back NULL */
      CHECK_STATUS(smv_matrix_create(ctx, A, p ? SMV_F32 : SMV_F64, &dA),
                   SMV_ERR_INVALID_MATRIX);
      CHECK(dA == NULL);
      CHECK_STR_HAS(smv_context_error(ctx), "row_ptr");
    }
    smv_csr_free(A);
  }
}

/* y = A*y, or y one element into x: SMV_ERR_ARG before any launch; x and y
 * side by side are fine. */
static void test_aliasing(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("rand:1000:5");
  if (!A)
    return;
  for (int p = 0; p < 2; p++) {
    const smv_precision prec = p ? SMV_F32 : SMV_F64;
    const size_t es = p ? sizeof(float) : sizeof(double);
    smv_matrix *dA = NULL;
    void *buf = NULL;
    CHECK_OK(smv_matrix_create(ctx, A, prec, &dA));
    CHECK_OK(smv_device_malloc(ctx, 3000 * es, &buf));
    if (dA && buf) {
      char *x = (char *)buf + 1000 * es;
      const long shift[] = {0, 1, 999, -999, -1};
      for (int s = 0; s < 5; s++) {
        char *y = x + shift[s] * (long)es;
        for (int a = 1; a < SMV_ALG_COUNT; a++)
          CHECKF(smv_spmv(ctx, (smv_alg)a, 1.0, dA, x, 0.0, y) == SMV_ERR_ARG,
                 "alg %d shift %ld", a, shift[s]);
        CHECK_STATUS(smv_spmv(ctx, SMV_ALG_AUTO, 0.0, dA, x, 2.0, y),
                     SMV_ERR_ARG);
      }
      CHECK_STR_HAS(smv_context_error(ctx), "overlap");
      CHECK_OK(smv_spmv(ctx, SMV_ALG_AUTO, 1.0, dA, x, 0.0, x + 1000 * es));
      CHECK_OK(smv_spmv(ctx, SMV_ALG_AUTO, 1.0, dA, x, 0.0, buf));
      CHECK_OK(smv_synchronize(ctx));
    }
    /* Host vectors (always double). */
    double *h = (double *)calloc(3000, sizeof(double));
    if (dA && h) {
      for (int i = 0; i < 3000; i++)
        h[i] = 1.0 + (double)(i % 7);
      CHECK_STATUS(smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1.0, dA, h + 1000,
                                         0.0, h + 1000),
                   SMV_ERR_ARG);
      CHECK_STATUS(smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1.0, dA, h + 1000,
                                         0.0, h + 1500),
                   SMV_ERR_ARG);
      CHECK_OK(smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1.0, dA, h + 1000, 0.0,
                                     h + 2000));
    }
    free(h);
    smv_device_free(ctx, buf);
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

/* Rungs 1-5, 8 (cuSPARSE ALG2), 9-13: three calls on the same x
 * and y0, identical bits. Rung 6 (atomics) and 7 (ALG1) promise no such
 * thing. The matrices are made with SMV_MATRIX_HOT (rung 12's hot columns
 * where they qualify; test_cuda_hot.c has matrices where they do). */
static void test_deterministic_rungs(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"plaw:20000:8", "denserow:2000:4,cols=100000"};
  const smv_alg algs[] = {
      SMV_ALG_SCALAR,     SMV_ALG_VECTOR,      SMV_ALG_VECTOR_TEX,
      SMV_ALG_VECTOR_LDG, SMV_ALG_VECTOR_SHFL, SMV_ALG_CUSPARSE_ALG2,
      SMV_ALG_ADAPTIVE,   SMV_ALG_TILED,       SMV_ALG_MERGE,
      SMV_ALG_HOT,        SMV_ALG_PACKED};
  for (int s = 0; s < 2; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    const int64_t m = A->rows, n = A->cols;
    double *x = (double *)malloc((size_t)n * sizeof(double));
    double *y0 = (double *)malloc((size_t)m * sizeof(double));
    double *y1 = (double *)malloc((size_t)m * sizeof(double));
    double *y = (double *)malloc((size_t)m * sizeof(double));
    for (int p = 0; x && y0 && y1 && y && p < 2; p++) {
      if (p)
        tc_round_values(A);
      smv_matrix *dA = NULL;
      const smv_matrix_options o = {.flags = SMV_MATRIX_HOT, .tune_runs = 0};
      CHECK_OK(smv_matrix_create_ex(ctx, A, p ? SMV_F32 : SMV_F64, &o, &dA));
      tc_fill(x, n);
      tc_fill(y0, m);
      for (int a = 0; dA && a < (int)(sizeof algs / sizeof algs[0]); a++) {
        int64_t differ = 0;
        for (int rep = 0; rep < 3; rep++) {
          double *out = rep == 0 ? y1 : y;
          memcpy(out, y0, (size_t)m * sizeof(double));
          CHECK_OK(smv_spmv_host_vectors(ctx, algs[a], 1.5, dA, x, -0.25, out));
          if (rep > 0)
            for (int64_t i = 0; i < m; i++)
              differ += memcmp(&y1[i], &y[i], sizeof(double)) != 0;
        }
        CHECKF(differ == 0, "%s %s alg %s: %lld rows differ between calls",
               specs[s], p ? "f32" : "f64", smv_alg_name(algs[a]),
               (long long)differ);
      }
      smv_matrix_free(dA);
    }
    free(x), free(y0), free(y1), free(y);
    smv_csr_free(A);
  }
}

int main(void) {
  RUN(test_upload_not_monotone);
  RUN(test_aliasing);
  RUN(test_deterministic_rungs);
  return TEST_END();
}
