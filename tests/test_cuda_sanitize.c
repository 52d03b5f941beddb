/*
 * test_cuda_sanitize.c — a small set that runs every rung, fp64 and fp32,
 * on the shapes most likely to expose out-of-bounds or racy accesses:
 * empty rows, tall and wide rectangular matrices, a row longer than a
 * block, nnz = 0. Quick enough to run under compute-sanitizer's memcheck,
 * racecheck and synccheck (scripts/gpu/test.sh does), and a normal device
 * test otherwise. SKIPs without a device.
 */
#include "test_cuda_common.h"

static void run_all(const char *spec) {
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  for (int p = 0; p < 2; p++) {
    if (p)
      tc_round_values(A);
    smv_matrix *dA = NULL;
    smv_status st = smv_matrix_create(ctx, A, p ? SMV_F32 : SMV_F64, &dA);
    CHECKF(st == SMV_OK, "%s: %s", spec, smv_context_error(ctx));
    for (int a = 0; dA && a < SMV_ALG_COUNT; a++) {
      int64_t b1 = tc_case(ctx, dA, A, (smv_alg)a, 1.0, 0.0, 0, 1, spec);
      int64_t b2 = tc_case(ctx, dA, A, (smv_alg)a, -2.0, 0.5, 0, 0, spec);
      CHECKF(b1 == 0 && b2 == 0, "%s alg %s %s: %lld + %lld bad rows", spec,
             smv_alg_name((smv_alg)a), p ? "f32" : "f64", (long long)b1,
             (long long)b2);
    }
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

static void test_small_set(void) {
  TC_NEED_DEVICE();
  run_all("plaw:1500:6");              /* uneven rows, a few long */
  run_all("rand:700:9,cols=90");       /* tall */
  run_all("rand:60:50,cols=4000");     /* wide */
  run_all("denserow:300:3,cols=2500"); /* one row of 2500 entries */
  run_all("band:600:8");               /* 17 per row: rows packed in tiles */
  run_all("empty:40:30");              /* nnz = 0 */
}

/* Empty rows between short ones (generators make none). */
static void test_empty_rows(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(200, 150, 300, &A));
  if (!A)
    return;
  int64_t k = 0;
  for (int i = 0; i < 200; i++) {
    int len = (i % 4 == 1) ? 6 : 0; /* 3 of 4 rows empty */
    for (int j = 0; j < len; j++, k++) {
      A->col_idx[k] = (i % 20) + 20 * j; /* sorted, distinct, < 150 */
      A->values[k] = tc_uniform();
    }
    A->row_ptr[i + 1] = (smv_offset)k;
  }
  A->nnz = k;
  A->sorted = 1;
  for (int p = 0; p < 2; p++) {
    if (p)
      tc_round_values(A);
    smv_matrix *dA = NULL;
    smv_status st = smv_matrix_create(ctx, A, p ? SMV_F32 : SMV_F64, &dA);
    CHECKF(st == SMV_OK, "empty rows: %s", smv_context_error(ctx));
    for (int a = 0; dA && a < SMV_ALG_COUNT; a++) {
      int64_t bad = tc_case(ctx, dA, A, (smv_alg)a, 1.5, 0.0, 0, 0, "empty");
      CHECKF(bad == 0, "empty rows alg %s: %lld bad rows",
             smv_alg_name((smv_alg)a), (long long)bad);
    }
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

int main(void) {
  RUN(test_small_set);
  RUN(test_empty_rows);
  smv_context_free(tc_ctx);
  return TEST_END();
}
