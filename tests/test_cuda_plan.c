/*
 * test_cuda_plan.c — the plan and what analysis prepares (issue 8, parts
 * 3 and 4), on the device (SKIP without one):
 *   - a plain smv_matrix_create prepares cuSPARSE only for an algorithm
 *     AUTO chose: the other has no buffer and no preprocess time, and the
 *     device bytes are the CSR arrays plus rung set-up; ALG1 and ALG2
 *     still give verified results when called (prepared on first use),
 *     and then show up in the record;
 *   - SMV_MATRIX_CUSPARSE prepares both at analysis;
 *   - SMV_MATRIX_TUNE (and smv_matrix_tune after creation) measures the
 *     candidates: every rung of ours but the documented losers (2, 3, 4,
 *     6) plus ALG1 and ALG2; AUTO becomes one of them and gives a verified
 *     result, f64 and f32; cuSPARSE state made only for the measurement
 *     is released again;
 *   - smv_matrix_prepare sets a rung up once (its state then counts in the
 *     device bytes, rung 12 brings rung 10's tile list), the tuner keeps
 *     what was prepared, and bad arguments are refused;
 *   - the plan record (reason, times) and bad arguments.
 * The capture rule for a cuSPARSE rung never prepared is in
 * test_cuda_graph.c (it needs the CUDA runtime's header).
 */
#include "test_cuda_common.h"

static int is_sparse(smv_alg a) {
  return a == SMV_ALG_CUSPARSE_ALG1 || a == SMV_ALG_CUSPARSE_ALG2;
}

static void lazy_check(const char *spec, const smv_csr *A, int f32) {
  smv_context *ctx = tc_context();
  {
    smv_matrix *dA = NULL;
    CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
    if (!dA)
      return;
    smv_matrix_plan_info p;
    CHECK_OK(smv_matrix_plan(dA, &p));
    CHECK(p.measured == 0);
    CHECK_STR_HAS(p.reason, "heuristic:");
    CHECK_STR_HAS(p.reason, smv_alg_name(p.alg));
    CHECK(p.alg != SMV_ALG_AUTO);
    CHECK(p.upload_ms > 0);
    CHECK(p.device_bytes == smv_matrix_device_bytes(dA));
    CHECK(p.device_bytes >= tc_csr_bytes(A, f32));
    size_t sparse_held = 0;
    for (int i = 0; i < 2; i++) {
      smv_alg a = i ? SMV_ALG_CUSPARSE_ALG2 : SMV_ALG_CUSPARSE_ALG1;
      if (p.alg != a) { /* not needed: nothing prepared */
        CHECKF(p.cusparse_bytes[i] == 0 && p.cusparse_ms[i] == 0,
               "%s: %s prepared although AUTO runs %s", spec, smv_alg_name(a),
               smv_alg_name(p.alg));
      } else {
        CHECK(p.cusparse_ms[i] > 0);
      }
      sparse_held += p.cusparse_bytes[i];
    }
    /* Without cuSPARSE the bytes are the CSR and rung 9's chunks only. */
    if (!is_sparse(p.alg))
      CHECK(sparse_held == 0);
    /* Both cuSPARSE rungs still work, prepared on first use. */
    for (int a = SMV_ALG_CUSPARSE_ALG1; a <= SMV_ALG_CUSPARSE_ALG2; a++)
      CHECK_INT(tc_case(ctx, dA, A, (smv_alg)a, 1.5, 0.0, 0, 1, spec), 0);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, -1.0, 0.5, 0, 0, spec), 0);
    smv_matrix_plan_info q;
    CHECK_OK(smv_matrix_plan(dA, &q));
    CHECK(q.cusparse_ms[0] > 0 && q.cusparse_ms[1] > 0);
    CHECK(q.device_bytes == p.device_bytes - sparse_held + q.cusparse_bytes[0] +
                                q.cusparse_bytes[1]);
    smv_matrix_free(dA);

    /* SMV_MATRIX_CUSPARSE: both at analysis. */
    smv_matrix_options o = {.flags = SMV_MATRIX_CUSPARSE, .tune_runs = 0};
    CHECK_OK(smv_matrix_create_ex(ctx, A, f32 ? SMV_F32 : SMV_F64, &o, &dA));
    if (dA) {
      CHECK_OK(smv_matrix_plan(dA, &q));
      CHECK(q.cusparse_ms[0] > 0 && q.cusparse_ms[1] > 0);
      CHECK(q.device_bytes ==
            tc_csr_bytes(A, f32) +
                (p.device_bytes - tc_csr_bytes(A, f32) - sparse_held) +
                q.cusparse_bytes[0] + q.cusparse_bytes[1]);
      CHECK_INT(
          tc_case(ctx, dA, A, SMV_ALG_CUSPARSE_ALG2, 1.0, 0.0, 1, 0, spec), 0);
      smv_matrix_free(dA);
    }
  }
}

static void test_lazy_cusparse(void) {
  TC_NEED_DEVICE();
  tc_spec_both("lap3d:20", lazy_check);
  tc_spec_both("rand:20000:24,cols=15000", lazy_check);
  tc_spec_both("plaw:5000:10,perm=rand", lazy_check);
}

static void tune_check(const char *spec, const smv_csr *A, int f32) {
  smv_context *ctx = tc_context();
  {
    smv_matrix *dA = NULL;
    smv_matrix_options o = {.flags = SMV_MATRIX_TUNE, .tune_runs = 5};
    smv_status st =
        smv_matrix_create_ex(ctx, A, f32 ? SMV_F32 : SMV_F64, &o, &dA);
    CHECKF(st == SMV_OK, "%s: %s", spec, smv_context_error(ctx));
    if (!dA)
      return;
    smv_matrix_plan_info p;
    CHECK_OK(smv_matrix_plan(dA, &p));
    CHECK(p.measured == 1);
    CHECK_STR_HAS(p.reason, "measured:");
    CHECK(p.tune_ms > 0);
    int found = 0, sparse = 0, ours = 0;
    for (int c = 0; c < p.ncandidates; c++) {
      smv_alg a = p.candidates[c].alg;
      CHECKF(a != SMV_ALG_AUTO && a != SMV_ALG_VECTOR &&
                 a != SMV_ALG_VECTOR_TEX && a != SMV_ALG_VECTOR_LDG &&
                 a != SMV_ALG_VECTOR_ATOMIC,
             "%s: %s is not a candidate", spec, smv_alg_name(a));
      CHECKF(p.candidates[c].ms > 0, "%s: %s failed or took no time", spec,
             smv_alg_name(a));
      found += a == p.alg;
      sparse += is_sparse(a);
      ours += a == SMV_ALG_ADAPTIVE || a == SMV_ALG_VECTOR_SHFL ||
              a == SMV_ALG_SCALAR;
    }
    CHECKF(found == 1, "%s: AUTO's %s is not among the candidates", spec,
           smv_alg_name(p.alg));
    CHECK_INT(sparse, 2);
    CHECK_INT(ours, 3);
    /* cuSPARSE made only for the measurement is gone again. */
    for (int i = 0; i < 2; i++)
      if (p.alg != (i ? SMV_ALG_CUSPARSE_ALG2 : SMV_ALG_CUSPARSE_ALG1))
        CHECK(p.cusparse_bytes[i] == 0);
    /* The tuned AUTO gives a verified result, on device and host paths. */
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 0, 0, spec), 0);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 0.75, -2.0, 1, 0, spec), 0);
    /* Tuning again after creation works the same way. */
    CHECK_OK(smv_matrix_tune(ctx, dA, 3));
    CHECK_OK(smv_matrix_plan(dA, &p));
    CHECK(p.measured == 1 && p.ncandidates >= 5);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 1.0, 0, 2, spec), 0);
    smv_matrix_free(dA);
  }
}

static void test_tune(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap3d:24",      "rand:30000:16",
                         "plaw:20000:12", "denserow:5000:6",
                         "elastic3d:8",   "stencil27:12,perm=rand",
                         "rmat:12:8",     "rand:300:8,cols=2000"};
  for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
    tc_spec_both(specs[i], tune_check);
}

/* AUTO past the L2 with scattered columns (dispatch.cu's rule): even
 * rows with x inside the L2 -> rung 10, power-law rows (many longer than
 * 4 x mean) -> ALG1, f64 and f32. */
static void auto_is_ex(const char *spec, smv_alg want64, smv_alg want32,
                       int scattered) {
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  for (int f32 = 0; f32 < 2; f32++) {
    smv_matrix *dA = NULL;
    CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
    smv_matrix_plan_info p;
    if (dA && smv_matrix_plan(dA, &p) == SMV_OK) {
      CHECKF(p.alg == (f32 ? want32 : want64), "%s %s: AUTO %s: %s", spec,
             f32 ? "f32" : "f64", smv_alg_name(p.alg), p.reason);
      /* Rung 10's plan line: scattered columns past the L2 gather in
       * entry order, local ones do not. */
      if (p.alg == SMV_ALG_TILED)
        CHECKF(strstr(p.reason, "rung 10 plan: ") &&
                   !strstr(p.reason, "gathers in entry order") == !scattered,
               "%s: plan: %s", spec, p.reason);
      /* Rung 12's hot column array (4 bytes per entry) is kept exactly
       * when AUTO runs rung 12, and its plan line names it. */
      const int held = tc_hot_held(A, f32, p.device_bytes);
      if (p.alg == SMV_ALG_HOT)
        CHECKF(strstr(p.reason, "rung 12 plan: ") && held,
               "%s: plan: %s; %zu bytes", spec, p.reason, p.device_bytes);
      else
        CHECKF(!held, "%s %s: %zu bytes held", spec, f32 ? "f32" : "f64",
               p.device_bytes);
    }
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}
static void auto_is(const char *spec, smv_alg want64, smv_alg want32) {
  auto_is_ex(spec, want64, want32, 1);
}

static void test_auto_scattered(void) {
  TC_NEED_DEVICE();
  /* 40M entries: 320 MB f32 past the L2; x 4 MB inside it. */
  auto_is("rand:5000000:8,cols=1000000", SMV_ALG_TILED, SMV_ALG_TILED);
  auto_is("plaw:3000000:16,cols=1000000", SMV_ALG_CUSPARSE_ALG1,
          SMV_ALG_CUSPARSE_ALG1);
  /* A power-law graph, 31.4M entries: in f32 its hot columns (on an
   * H100 the 1351 of 1584 or more entries) hold 22% of them, so AUTO runs
   * rung 12; f64: ALG1. */
  auto_is("rmat:20:16", SMV_ALG_CUSPARSE_ALG1, SMV_ALG_HOT);
}

/* Local columns past the L2 (auto.def's rule 7): in f64, rows of 81
 * entries go to rung 9 on any device (the boundary is 72), rows of 49 and
 * 65 to rung 10 (65 went to rung 9 on the H200 class before rung 10's
 * entry-order staging); f32 keeps rung 10 below 96. 24M, 26M and 32M
 * entries: 290, 310 and 390 MB in f64, past any L2 here. */
static void test_auto_local_f64_rows(void) {
  TC_NEED_DEVICE();
  auto_is_ex("band:300000:40", SMV_ALG_ADAPTIVE, SMV_ALG_TILED, 0);
  auto_is_ex("band:400000:32", SMV_ALG_TILED, SMV_ALG_TILED, 0);
  auto_is_ex("band:650000:24", SMV_ALG_TILED, SMV_ALG_TILED, 0);
}

/* Lazy set-up made explicit: on lap3d:20 (AUTO runs rung 9) rungs 10-12
 * hold nothing until prepared; prepared twice they hold the same; rung 12
 * needs rung 10's tiles and sets them up; what the matrix holds before
 * smv_matrix_tune stays after it; each prepared rung is right. */
static void prepare_check(const char *spec, const smv_csr *A, int f32) {
  smv_context *ctx = tc_context();
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
  smv_matrix_plan_info p;
  if (!dA || smv_matrix_plan(dA, &p) != SMV_OK) {
    smv_matrix_free(dA);
    return;
  }
  CHECKF(p.alg == SMV_ALG_ADAPTIVE, "%s: AUTO %s", spec, smv_alg_name(p.alg));
  const size_t b0 = smv_matrix_device_bytes(dA);
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_HOT));
  const size_t b1 = smv_matrix_device_bytes(dA);
  CHECKF(b1 > b0, "%s: rung 12 (and rung 10's tiles): %zu bytes, before %zu",
         spec, b1, b0);
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_TILED)); /* set up already */
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_HOT));
  CHECK(smv_matrix_device_bytes(dA) == b1);
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_MERGE));
  const size_t b2 = smv_matrix_device_bytes(dA);
  CHECKF(b2 > b1, "%s: rung 11: %zu bytes, before %zu", spec, b2, b1);
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_AUTO)); /* rung 9: set up */
  CHECK(smv_matrix_device_bytes(dA) == b2);
  const smv_alg algs[] = {SMV_ALG_TILED, SMV_ALG_MERGE, SMV_ALG_HOT};
  for (int i = 0; i < 3; i++)
    CHECK_INT(tc_case(ctx, dA, A, algs[i], 1.5, -0.5, 0, 1, spec), 0);
  CHECK(smv_matrix_device_bytes(dA) == b2);
  CHECK_OK(smv_matrix_tune(ctx, dA, 3));
  CHECKF(smv_matrix_device_bytes(dA) >= b2,
         "%s: %zu bytes after tuning, %zu "
         "before",
         spec, smv_matrix_device_bytes(dA), b2);
  /* Bad arguments. */
  CHECK_STATUS(smv_matrix_prepare(ctx, NULL, SMV_ALG_TILED), SMV_ERR_ARG);
  CHECK_STATUS(smv_matrix_prepare(ctx, dA, SMV_ALG_COUNT), SMV_ERR_ARG);
  CHECK_STATUS(smv_matrix_prepare(NULL, dA, SMV_ALG_TILED), SMV_ERR_ARG);
  smv_matrix_free(dA);
}

static void test_prepare(void) {
  TC_NEED_DEVICE();
  tc_spec_both("lap3d:20", prepare_check);
}

static void test_plan_edges(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  /* A matrix without entries: nothing to tune, no cuSPARSE at all. */
  smv_csr *A = tst_generate("empty:7:5");
  smv_matrix *dA = NULL;
  smv_matrix_options o = {.flags = SMV_MATRIX_TUNE | SMV_MATRIX_CUSPARSE,
                          .tune_runs = 0};
  if (A)
    CHECK_OK(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA));
  if (dA) {
    smv_matrix_plan_info p;
    CHECK_OK(smv_matrix_plan(dA, &p));
    CHECK(p.measured == 1 && p.ncandidates == 0);
    CHECK_STR_HAS(p.reason, "no entries");
    CHECK(p.cusparse_bytes[0] == 0 && p.cusparse_bytes[1] == 0);
    CHECK(smv_matrix_device_bytes(dA) == 8 * 4);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.5, 0, 0, "empty"), 0);
    smv_matrix_free(dA);
    dA = NULL;
  }
  /* Bad arguments. */
  smv_matrix_options bad = {.flags = 0x80, .tune_runs = 0};
  if (A) {
    CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64, &bad, &dA), SMV_ERR_ARG);
    CHECK(dA == NULL);
    bad.flags = SMV_MATRIX_TUNE;
    bad.tune_runs = -1;
    CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64, &bad, &dA), SMV_ERR_ARG);
  }
  CHECK_STATUS(smv_matrix_tune(ctx, NULL, 0), SMV_ERR_ARG);
  CHECK_STATUS(smv_matrix_tune(NULL, NULL, 0), SMV_ERR_ARG);
  smv_matrix_plan_info p;
  CHECK_STATUS(smv_matrix_plan(NULL, &p), SMV_ERR_ARG);
  CHECK(smv_matrix_device_bytes(NULL) == 0);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_lazy_cusparse);
  RUN(test_tune);
  RUN(test_prepare);
  RUN(test_plan_edges);
  RUN(test_auto_scattered);
  RUN(test_auto_local_f64_rows);
  smv_context_free(tc_ctx);
  return TEST_END();
}
