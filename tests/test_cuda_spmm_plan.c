/*
 * test_cuda_spmm_plan.c — SpMM's plan on the device (issue 22), as
 * test_cuda_plan.c does for SpMV: smv_spmm_plan on uploaded matrices of
 * each class gives the rung the rule (smv_spmm_choose, tested on the CPU
 * in test_spmm_cpu.c) gives on the host statistics, with its reason;
 * AUTO runs exactly that rung (the same bits); smv_spmm_tune measures,
 * returns a rung that accepts the shape and says the times, that rung
 * verifies against the reference, and the plan then names it. SKIPs
 * without a device.
 */
#include "test_spmm_common.h"

/* want[f32]: the rung for f64 and for f32 (they differ where the X row
 * crosses SMV_SPMM_ROWPIPE_BYTES). */
static const struct {
  const char *spec;
  int k;
  smv_layout layout;
  smv_spmm_alg want[2];
} cases[] = {
    {"lap3d:12", 1, SMV_LAYOUT_COL_MAJOR, {SMV_SPMM_SPMV, SMV_SPMM_SPMV}},
    {"rmat:11:8", 1, SMV_LAYOUT_ROW_MAJOR, {SMV_SPMM_SPMV, SMV_SPMM_SPMV}},
    {"lap3d:12",
     32,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWPIPE, SMV_SPMM_ROWPIPE}},
    {"lap3d:12",
     16,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWPIPE, SMV_SPMM_ROWPIPE}},
    {"lap3d:12", 128, SMV_LAYOUT_ROW_MAJOR, {SMV_SPMM_ROWVEC, SMV_SPMM_ROWVEC}},
    {"lap3d:12", 24, SMV_LAYOUT_ROW_MAJOR, {SMV_SPMM_ROWVEC, SMV_SPMM_ROWVEC}},
    {"rmat:11:8",
     32,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWPIPE, SMV_SPMM_ROWPIPE}},
    {"rmat:11:8",
     64,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWSTREAM, SMV_SPMM_ROWPIPE}},
    {"rmat:11:8",
     128,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWSTREAM, SMV_SPMM_ROWSTREAM}},
    {"rmat:11:8",
     256,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWSPLIT, SMV_SPMM_ROWSTREAM}},
    {"rmat:11:8",
     40,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWSPLIT, SMV_SPMM_ROWSPLIT}},
    {"denserow:500:4,cols=800",
     8,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWPIPE, SMV_SPMM_ROWPIPE}},
    {"denserow:500:4,cols=800",
     7,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWGATHER, SMV_SPMM_ROWGATHER}},
    {"plaw:4000:8",
     16,
     SMV_LAYOUT_COL_MAJOR,
     {SMV_SPMM_COLTRANS, SMV_SPMM_COLTRANS}},
    {"plaw:4000:16",
     5,
     SMV_LAYOUT_COL_MAJOR,
     {SMV_SPMM_COLTRANS, SMV_SPMM_COLTRANS}},
    {"plaw:4000:16",
     3,
     SMV_LAYOUT_ROW_MAJOR,
     {SMV_SPMM_ROWGATHER, SMV_SPMM_ROWGATHER}},
    {"lap3d:12",
     8,
     SMV_LAYOUT_COL_MAJOR,
     {SMV_SPMM_COLTRANS, SMV_SPMM_COLTRANS}},
    {"lap3d:12",
     4,
     SMV_LAYOUT_COL_MAJOR,
     {SMV_SPMM_COLSPLIT, SMV_SPMM_COLSPLIT}},
};
#define NCASES (sizeof cases / sizeof cases[0])

static void test_plan_matches_rule(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  for (size_t i = 0; i < NCASES; i++)
    for (int f32 = 0; f32 < 2; f32++) {
      smv_csr *A = tst_generate(cases[i].spec);
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
      if (!dA) {
        smv_csr_free(A);
        continue;
      }
      smv_stats s;
      CHECK_OK(smv_csr_stats(A, &s));
      const int k = cases[i].k, row = cases[i].layout == SMV_LAYOUT_ROW_MAJOR;
      const int64_t ldx = row ? k : A->cols, ldy = row ? k : A->rows;
      smv_spmm_choice dev, host;
      smv_spmm_shape sh;
      smv_spmm_shape_of(&s, k, cases[i].layout, f32, ldx, ldy, &sh);
      CHECK_OK(smv_spmm_plan(ctx, dA, k, cases[i].layout, ldx, ldy, &dev));
      CHECK_OK(smv_spmm_choose(&sh, &host));
      const smv_spmm_alg want = cases[i].want[f32];
      CHECK_INT(host.alg, want);
      CHECKF(dev.alg == want, "%s k=%d f32=%d: plan %s, want %s", cases[i].spec,
             k, f32, smv_spmm_alg_name(dev.alg), smv_spmm_alg_name(want));
      CHECK_INT(dev.chunk, host.chunk);
      CHECK_INT(dev.vec, host.vec);
      CHECK(strlen(dev.why) > 10);
      /* AUTO runs the planned rung: the same bits. */
      int uns = 0;
      CHECK_INT(spmm_case(ctx, dA, A, SMV_SPMM_AUTO, k, cases[i].layout, 0, 1.0,
                          0.0, 0, &uns),
                0);
      CHECK(!uns);
      const size_t es = f32 ? 4 : 8;
      const size_t nx = tc_dense_len(A->cols, k, ldx, cases[i].layout);
      const size_t ny = tc_dense_len(A->rows, k, ldy, cases[i].layout);
      double *X = malloc(nx * sizeof *X);
      void *dX = NULL, *dY = NULL;
      char *y1 = malloc(ny * es), *y2 = malloc(ny * es);
      tc_fill(X, (int64_t)nx);
      CHECK_OK(smv_device_malloc(ctx, nx * es, &dX));
      CHECK_OK(smv_device_malloc(ctx, ny * es, &dY));
      CHECK_OK(tc_upload(ctx, f32, X, (int64_t)nx, dX));
      CHECK_OK(smv_spmm(ctx, SMV_SPMM_AUTO, 1.0, dA, dX, ldx, 0.0, dY, ldy, k,
                        cases[i].layout));
      CHECK_OK(smv_memcpy_d2h(ctx, y1, dY, ny * es));
      CHECK_OK(smv_spmm(ctx, dev.alg, 1.0, dA, dX, ldx, 0.0, dY, ldy, k,
                        cases[i].layout));
      CHECK_OK(smv_memcpy_d2h(ctx, y2, dY, ny * es));
      CHECKF(memcmp(y1, y2, ny * es) == 0, "%s: AUTO differs from %s",
             cases[i].spec, smv_spmm_alg_name(dev.alg));
      smv_device_free(ctx, dX), smv_device_free(ctx, dY);
      free(X), free(y1), free(y2);
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

static void test_tune(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"rmat:11:8", "lap3d:12"};
  for (int i = 0; i < 2; i++)
    for (int lay = 0; lay < 2; lay++) {
      smv_csr *A = tst_generate(specs[i]);
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_matrix_create(ctx, A, SMV_F32, &dA));
      if (!dA) {
        smv_csr_free(A);
        continue;
      }
      smv_spmm_choice c;
      CHECK_OK(smv_spmm_tune(ctx, dA, 24, (smv_layout)lay, 5, &c));
      CHECK(c.alg != SMV_SPMM_AUTO && c.alg != SMV_SPMM_CUSPARSE_ALG1 &&
            c.alg != SMV_SPMM_CUSPARSE_ALG2 && c.alg != SMV_SPMM_CUSPARSE_ALG3);
      CHECK_STR_HAS(c.why, "measured");
      /* AUTO runs the measured rung from now on. */
      smv_spmm_choice p;
      const int64_t ld = lay ? A->cols : 24, ly = lay ? A->rows : 24;
      CHECK_OK(smv_spmm_plan(ctx, dA, 24, (smv_layout)lay, ld, ly, &p));
      CHECK_INT(p.alg, c.alg);
      int uns = 0;
      CHECK_INT(spmm_case(ctx, dA, A, c.alg, 24, (smv_layout)lay, 0, 1.0, 0.0,
                          0, &uns),
                0);
      CHECK(!uns);
      CHECK_STATUS(smv_spmm_tune(ctx, dA, 24, (smv_layout)lay, 0, &c),
                   SMV_ERR_ARG);
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

int main(void) {
  RUN(test_plan_matches_rule);
  RUN(test_tune);
  smv_context_free(tc_ctx);
  return TEST_END();
}
