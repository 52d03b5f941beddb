/*
 * test_bench_gpu.c — smv_bench_spmv and smv_device_copy_bandwidth on a
 * device (SKIP without one): every mode reports the runs it was asked
 * for, ordered statistics, the options are validated, max_seconds caps,
 * the timed SpMVs leave y = alpha*A*x correct (so the bench times real
 * work), and graph capture works for every rung. No speed is asserted
 * (speed lives in the benchmark, not in tests).
 */
#include "lab.h"
#include "test_cuda_common.h" /* the one device guard */

#include "test.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check_timing(const smv_timing *t, int runs, const char *what) {
  CHECKF(t->runs == runs, "%s: %d runs, want %d", what, t->runs, runs);
  CHECKF(t->min_ms > 0 && t->min_ms <= t->p10_ms && t->p10_ms <= t->median_ms &&
             t->median_ms <= t->p90_ms && t->p90_ms <= t->max_ms,
         "%s: min %g p10 %g median %g p90 %g max %g", what, t->min_ms,
         t->p10_ms, t->median_ms, t->p90_ms, t->max_ms);
}

typedef struct {
  smv_csr *A;
  smv_matrix *dA;
  void *dx, *dy;
  double *x, *y;
  bench_expect e;
} fixture;

static int setup(fixture *f, const char *spec) {
  memset(f, 0, sizeof *f);
  if (smv_generate(spec, &f->A, NULL) != SMV_OK)
    return -1;
  int64_t n = f->A->cols, m = f->A->rows;
  f->x = malloc((size_t)n * sizeof(double));
  f->y = malloc((size_t)m * sizeof(double));
  if (!f->x || !f->y)
    return -1;
  smv_rng g = {11};
  for (int64_t i = 0; i < n; i++)
    f->x[i] = bench_rng_value(&g);
  if (smv_matrix_create(tc_ctx, f->A, SMV_F64, &f->dA) != SMV_OK ||
      smv_device_malloc(tc_ctx, (size_t)n * 8, &f->dx) != SMV_OK ||
      smv_device_malloc(tc_ctx, (size_t)m * 8, &f->dy) != SMV_OK ||
      smv_memcpy_h2d(tc_ctx, f->dx, f->x, (size_t)n * 8) != SMV_OK)
    return -1;
  for (int64_t i = 0; i < m; i++)
    f->y[i] = NAN;
  if (smv_memcpy_h2d(tc_ctx, f->dy, f->y, (size_t)m * 8) != SMV_OK)
    return -1;
  return bench_expect_compute(f->A, 1.0, f->x, 0.0, NULL, DBL_EPSILON, &f->e) ==
                 SMV_OK
             ? 0
             : -1;
}

static void teardown(fixture *f);

/* setup, or fail the test and free what was built: the test body must not
 * run on a half-built fixture. */
#define SETUP(f, spec)                                                         \
  do {                                                                         \
    if (setup(f, spec) != 0) {                                                 \
      CHECKF(0, "setting up %s failed", spec);                                 \
      teardown(f);                                                             \
      return;                                                                  \
    }                                                                          \
  } while (0)

static void teardown(fixture *f) {
  smv_device_free(tc_ctx, f->dx);
  smv_device_free(tc_ctx, f->dy);
  smv_matrix_free(f->dA);
  smv_csr_free(f->A);
  free(f->x);
  free(f->y);
  bench_expect_free(&f->e);
}

/* y on the device must be A*x (beta = 0 runs). */
static void check_y(fixture *f, const char *what) {
  CHECK_OK(smv_memcpy_d2h(tc_ctx, f->y, f->dy, (size_t)f->A->rows * 8));
  double worst;
  int64_t first;
  int64_t bad = bench_check(&f->e, f->y, &worst, &first);
  CHECKF(bad == 0, "%s: %lld rows wrong after timing (first %lld)", what,
         (long long)bad, (long long)first);
}

static void test_all_modes_every_rung(void) {
  TC_NEED_DEVICE();
  fixture f;
  SETUP(&f, "lap2d:64");
  smv_device_props p;
  CHECK_OK(smv_device_props_get(tc_ctx, &p));
  smv_bench_options o;
  smv_bench_options_init(&o);
  o.warmup = 2;
  o.runs = 40; /* more than one hold batch of 32 */
  o.flush_l2 = 1;
  o.graph_batch = 5;
  o.graph_replays = 4;
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    smv_bench_result r;
    smv_status st =
        smv_bench_spmv(tc_ctx, (smv_alg)a, f.dA, f.dx, f.dy, &o, &r);
    CHECKF(st == SMV_OK, "%s: %s: %s", smv_alg_name((smv_alg)a),
           smv_status_string(st), r.error);
    CHECK(r.error[0] == '\0');
    check_timing(&r.warm, 40, "warm");
    check_timing(&r.flushed, 40, "flushed");
    check_timing(&r.graph, 4, "graph");
    CHECK(r.flush_bytes >= 4 * (size_t)p.l2_bytes);
    check_y(&f, smv_alg_name((smv_alg)a));
  }
  teardown(&f);
}

/* cuSPARSE on tiny matrices (27..402 rows on the H100): 20 replays of a
 * 100-SpMV graph queued behind one hold kernel blocked the host until the
 * hold timed out, so the graph mode must hold one replay at a time (or
 * time them unheld) and still report every replay. */
static void test_graph_cusparse_tiny(void) {
  TC_NEED_DEVICE();
  fixture f;
  SETUP(&f, "lap2d:8");
  smv_bench_options o;
  smv_bench_options_init(&o);
  o.warmup = 2;
  o.runs = 10;
  o.graph_batch = 100;
  o.graph_replays = 20;
  const smv_alg algs[] = {SMV_ALG_CUSPARSE_ALG1, SMV_ALG_CUSPARSE_ALG2,
                          SMV_ALG_VECTOR_SHFL};
  for (size_t k = 0; k < sizeof algs / sizeof algs[0]; k++) {
    smv_bench_result r;
    smv_status st = smv_bench_spmv(tc_ctx, algs[k], f.dA, f.dx, f.dy, &o, &r);
    CHECKF(st == SMV_OK, "%s: %s: %s", smv_alg_name(algs[k]),
           smv_status_string(st), r.error);
    check_timing(&r.graph, 20, "graph (tiny, 100 per graph)");
    check_y(&f, smv_alg_name(algs[k]));
  }
  teardown(&f);
}

static void test_defaults_and_cap(void) {
  TC_NEED_DEVICE();
  fixture f;
  SETUP(&f, "rand:20000:16");
  smv_bench_result r;
  /* NULL options: defaults (200 warm runs, nothing else) */
  CHECK_OK(
      smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR_SHFL, f.dA, f.dx, f.dy, NULL, &r));
  check_timing(&r.warm, 200, "defaults");
  CHECK_INT(r.flushed.runs, 0);
  CHECK_INT(r.graph.runs, 0);
  CHECK(r.flush_bytes == 0);
  /* a cap far below runs * t: fewer runs, never fewer than 5 */
  smv_bench_options o;
  smv_bench_options_init(&o);
  o.runs = 100000;
  o.max_seconds = 1e-4;
  o.graph_batch = 10;
  o.graph_replays = 1000;
  CHECK_OK(smv_bench_spmv(tc_ctx, SMV_ALG_SCALAR, f.dA, f.dx, f.dy, &o, &r));
  CHECKF(r.warm.runs >= 5 && r.warm.runs < 100000, "capped runs %d",
         r.warm.runs);
  CHECKF(r.graph.runs >= 3 && r.graph.runs < 1000, "capped replays %d",
         r.graph.runs);
  check_y(&f, "capped");
  /* alpha, beta as given: y = 2*A*x + 0 (beta 0 overwrites) */
  o.runs = 10;
  o.alpha = 2.0;
  CHECK_OK(smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, &r));
  CHECK_OK(smv_memcpy_d2h(tc_ctx, f.y, f.dy, (size_t)f.A->rows * 8));
  int wrong = 0;
  for (int64_t i = 0; i < f.A->rows; i++)
    wrong += !(fabs(f.y[i] - 2 * f.e.ref[i]) <= 2 * f.e.bound[i] + 1e-300);
  CHECK_INT(wrong, 0);
  teardown(&f);
}

static void test_bad_arguments(void) {
  TC_NEED_DEVICE();
  fixture f;
  SETUP(&f, "lap2d:8");
  smv_bench_result r;
  smv_bench_options o;
  smv_bench_options_init(&o);
  CHECK_STATUS(
      smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, NULL),
      SMV_ERR_ARG);
  CHECK_STATUS(smv_bench_spmv(NULL, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, &r),
               SMV_ERR_ARG);
  CHECK_STR_HAS(r.error, "ctx");
  o.runs = 0;
  CHECK_STATUS(smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, &r),
               SMV_ERR_ARG);
  CHECK_STR_HAS(r.error, "runs 0");
  smv_bench_options_init(&o);
  o.max_seconds = NAN;
  CHECK_STATUS(smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, &r),
               SMV_ERR_ARG);
  /* an error from smv_spmv comes back with its text */
  smv_bench_options_init(&o);
  smv_status st =
      smv_bench_spmv(tc_ctx, (smv_alg)SMV_ALG_COUNT, f.dA, f.dx, f.dy, &o, &r);
  CHECK(st != SMV_OK);
  CHECK_STR_HAS(r.error, "smv_spmv");
  CHECK_INT(r.warm.runs, 0);
  /* the context still works afterwards */
  CHECK_OK(smv_bench_spmv(tc_ctx, SMV_ALG_VECTOR, f.dA, f.dx, f.dy, &o, &r));
  teardown(&f);
}

static void test_copy_bandwidth(void) {
  TC_NEED_DEVICE();
  double g = -1;
  CHECK_OK(smv_device_copy_bandwidth(tc_ctx, (size_t)256 << 20, &g));
  /* any real GPU of the last decade copies at 50 GB/s .. 100 TB/s */
  CHECKF(g > 50 && g < 100000, "copy bandwidth %g GB/s", g);
  CHECK_STATUS(smv_device_copy_bandwidth(tc_ctx, 0, &g), SMV_ERR_ARG);
  CHECK_STATUS(smv_device_copy_bandwidth(tc_ctx, 1024, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_device_copy_bandwidth(NULL, 1024, &g), SMV_ERR_ARG);
}

static void test_no_device_stub(void) {
  if (tc_context())
    SKIP("a device answered: the no-device answers are not reachable");
  smv_bench_result r;
  double g = 1;
  CHECK(smv_bench_spmv(NULL, SMV_ALG_VECTOR, NULL, NULL, NULL, NULL, &r) !=
        SMV_OK);
  CHECK(smv_device_copy_bandwidth(NULL, 1024, &g) != SMV_OK);
}

int main(void) {
  RUN(test_all_modes_every_rung);
  RUN(test_graph_cusparse_tiny);
  RUN(test_defaults_and_cap);
  RUN(test_bad_arguments);
  RUN(test_copy_bandwidth);
  RUN(test_no_device_stub);
  int rc = TEST_END();
  smv_context_free(tc_ctx);
  return rc;
}
