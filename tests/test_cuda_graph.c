/*
 * test_cuda_graph.c — smv_spmv is capturable: for every rung (and AUTO),
 * fp64 and fp32, three dependent SpMV calls are captured into a CUDA graph
 * on a caller's stream (smv_context_set_stream), the graph is replayed
 * twice, and the results are checked against the reference. The x vectors
 * are fresh buffers, so rung 3 creates its texture objects during the
 * capture itself (see spmv_3_tex.cu).
 *
 * Needs the CUDA runtime's header: built against it when the compiler can
 * find <cuda_runtime_api.h> (the Makefile puts $(CUDA_HOME)/include on the
 * device tests' include path), otherwise the test SKIPs saying so.
 */
#include "test_cuda_common.h"

#include "test_cuda_runtime.h"

#ifdef TC_HAVE_RUNTIME

/* The sequence captured (x1, x2 fresh random; y2 starts as y2_0):
 *   y1 = 1.25 A x1              (beta 0: y1 starts as NaN)
 *   y2 = 0.5 A x2 + 2 y2        (reads y2_0)
 *   y1 = -1 A x2 + 1 y1         (depends on the first call)
 * so y1 = 1.25 A x1 - A x2 and y2 = 0.5 A x2 + 2 y2_0. */
static void check_graph(smv_csr *A, smv_precision prec) {
  smv_context *ctx = tc_context();
  const int f32 = prec == SMV_F32;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  const int64_t m = A->rows, n = A->cols;
  smv_matrix *dA = NULL;
  /* Every rung is captured below, cuSPARSE's too: set them all up now (a
   * rung never set up on the matrix cannot be captured, test_graph_lazy). */
  CHECK_OK(smv_matrix_create(ctx, A, prec, &dA));
  for (int alg = 0; dA && alg < SMV_ALG_COUNT; alg++)
    CHECKF(smv_matrix_prepare(ctx, dA, (smv_alg)alg) == SMV_OK,
           "prepare %s: %s", smv_alg_name((smv_alg)alg),
           smv_context_error(ctx));
  cudaStream_t s = NULL;
  CUDA_OK(cudaStreamCreate(&s));
  if (!dA || !s)
    goto done0;
  CHECK_OK(smv_context_set_stream(ctx, (void *)s));
  CHECK(smv_context_stream(ctx) == (void *)s);

  double *x1 = malloc((size_t)n * sizeof(double));
  double *x2 = malloc((size_t)n * sizeof(double));
  double *y20 = malloc((size_t)m * sizeof(double));
  double *nan1 = malloc((size_t)m * sizeof(double));
  double *y1 = malloc((size_t)m * sizeof(double));
  double *y2 = malloc((size_t)m * sizeof(double));
  double *r1 = malloc((size_t)m * sizeof(double));
  double *r2 = malloc((size_t)m * sizeof(double));
  double *a1 = malloc((size_t)m * sizeof(double));
  double *a2 = malloc((size_t)m * sizeof(double));
  double *xr = malloc((size_t)n * sizeof(double));
  CHECK(x1 && x2 && y20 && nan1 && y1 && y2 && r1 && r2 && a1 && a2 && xr);
  if (!(x1 && x2 && y20 && nan1 && y1 && y2 && r1 && r2 && a1 && a2 && xr))
    goto done1;

  for (int alg = 0; alg < SMV_ALG_COUNT; alg++) {
    tc_fill(x1, n);
    tc_fill(x2, n);
    tc_fill(y20, m);
    tc_fill_nan(nan1, m);
    /* x starts `alg` elements into its buffer: pointers no earlier call
     * has seen, so rung 3 binds its textures during the capture. */
    void *bx1 = NULL, *bx2 = NULL, *dy1 = NULL, *dy2 = NULL;
    CHECK_OK(smv_device_malloc(ctx, (size_t)(n + alg) * es, &bx1));
    CHECK_OK(smv_device_malloc(ctx, (size_t)(n + alg) * es, &bx2));
    CHECK_OK(smv_device_malloc(ctx, (size_t)m * es, &dy1));
    CHECK_OK(smv_device_malloc(ctx, (size_t)m * es, &dy2));
    void *dx1 = (char *)bx1 + (size_t)alg * es;
    void *dx2 = (char *)bx2 + (size_t)alg * es;
    CHECK_OK(tc_upload(ctx, f32, x1, n, dx1));
    CHECK_OK(tc_upload(ctx, f32, x2, n, dx2));

    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    smv_status s1 = smv_spmv(ctx, (smv_alg)alg, 1.25, dA, dx1, 0.0, dy1);
    smv_status s2 = smv_spmv(ctx, (smv_alg)alg, 0.5, dA, dx2, 2.0, dy2);
    smv_status s3 = smv_spmv(ctx, (smv_alg)alg, -1.0, dA, dx2, 1.0, dy1);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    CHECKF(s1 == SMV_OK && s2 == SMV_OK && s3 == SMV_OK, "alg %s: capture: %s",
           smv_alg_name((smv_alg)alg), smv_context_error(ctx));
    if (g)
      CUDA_OK(cudaGraphInstantiate(&ge, g, 0));

    /* Two replays from the same starting state must both be right. */
    for (int rep = 0; ge && rep < 2; rep++) {
      CHECK_OK(tc_upload(ctx, f32, nan1, m, dy1));
      CHECK_OK(tc_upload(ctx, f32, y20, m, dy2));
      CUDA_OK(cudaGraphLaunch(ge, s));
      CUDA_OK(cudaStreamSynchronize(s));
      CHECK_OK(tc_download(ctx, f32, dy1, m, y1));
      CHECK_OK(tc_download(ctx, f32, dy2, m, y2));

      /* Reference, in the rounded inputs' precision. */
      const double eps = f32 ? FLT_EPSILON : DBL_EPSILON;
      for (int64_t j = 0; j < n; j++)
        xr[j] = tc_round(f32, x1[j]);
      CHECK_OK(smv_spmv_ref(A, 1.25, xr, 0.0, r1));
      CHECK_OK(smv_spmv_ref_abs(A, xr, a1));
      for (int64_t j = 0; j < n; j++)
        xr[j] = tc_round(f32, x2[j]);
      for (int64_t i = 0; i < m; i++)
        r2[i] = tc_round(f32, y20[i]);
      CHECK_OK(smv_spmv_ref(A, 0.5, xr, 2.0, r2));
      CHECK_OK(smv_spmv_ref(A, -1.0, xr, 1.0, r1));
      CHECK_OK(smv_spmv_ref_abs(A, xr, a2));
      int64_t bad = 0;
      for (int64_t i = 0; i < m; i++) {
        double len = (double)A->row_ptr[i + 1] - A->row_ptr[i];
        /* Two chained sums for y1: both bounds added. */
        double b1 =
            2 * BENCH_BOUND_C * eps * (len + 2) * (1.25 * a1[i] + a2[i]);
        double b2 = BENCH_BOUND_C * eps * (len + 2) *
                    (0.5 * a2[i] + fabs(2.0 * tc_round(f32, y20[i])));
        double d1 = fabs(y1[i] - r1[i]), d2 = fabs(y2[i] - r2[i]);
        if (!(d1 <= b1) || !(d2 <= b2)) {
          if (bad < 5)
            fprintf(stderr,
                    "graph alg %s %s rep %d row %lld: y1 %.17g vs %.17g, y2 "
                    "%.17g vs %.17g\n",
                    smv_alg_name((smv_alg)alg), f32 ? "f32" : "f64", rep,
                    (long long)i, y1[i], r1[i], y2[i], r2[i]);
          bad++;
        }
      }
      CHECKF(bad == 0, "graph alg %s %s rep %d: %lld bad rows",
             smv_alg_name((smv_alg)alg), f32 ? "f32" : "f64", rep,
             (long long)bad);
    }
    if (ge)
      cudaGraphExecDestroy(ge);
    if (g)
      cudaGraphDestroy(g);
    smv_device_free(ctx, bx1);
    smv_device_free(ctx, bx2);
    smv_device_free(ctx, dy1);
    smv_device_free(ctx, dy2);
  }
done1:
  free(x1), free(x2), free(y20), free(nan1), free(y1), free(y2);
  free(r1), free(r2), free(a1), free(a2), free(xr);
done0:
  CHECK_OK(smv_context_set_stream(ctx, NULL));
  if (s) {
    CUDA_OK(cudaStreamSynchronize(s));
    CUDA_OK(cudaStreamDestroy(s));
  }
  smv_matrix_free(dA);
}

static void graph_on(const char *spec) {
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  check_graph(A, SMV_F64);
  tc_round_values(A);
  check_graph(A, SMV_F32);
  smv_csr_free(A);
}

static void test_graph_square(void) {
  TC_NEED_DEVICE();
  graph_on("plaw:20000:12");
}

static void test_graph_rectangular(void) {
  TC_NEED_DEVICE();
  graph_on("rand:3000:20,cols=7000");
}

/* A rung analysis did not set up (cuSPARSE's and ours: here AUTO runs
 * rung 9) refuses a stream capture with a clear error, allocating nothing;
 * smv_matrix_prepare refuses it too; outside the capture the call sets the
 * rung up and is right; smv_matrix_prepare then makes a capture work. */
static void test_graph_lazy(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = NULL;
  smv_error err;
  CHECK_OK(smv_generate("lap2d:60", &A, &err));
  smv_matrix *dA = NULL;
  if (A)
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  smv_matrix_plan_info p;
  if (!dA || smv_matrix_plan(dA, &p) != SMV_OK)
    goto out;
  /* Rung 12 last: it sets up rung 10's tile list, which it runs on. */
  const smv_alg algs[] = {SMV_ALG_CUSPARSE_ALG1, SMV_ALG_CUSPARSE_ALG2,
                          SMV_ALG_MERGE, SMV_ALG_PACKED, SMV_ALG_HOT};
  for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++) {
    const smv_alg alg = algs[i];
    if (alg == p.alg)
      continue; /* AUTO's choice: set up at analysis */
    const int64_t m = A->rows, n = A->cols;
    void *dx = NULL, *dy = NULL;
    cudaStream_t s = NULL;
    CHECK_OK(smv_device_malloc(ctx, (size_t)n * 8, &dx));
    CHECK_OK(smv_device_malloc(ctx, (size_t)m * 8, &dy));
    CUDA_OK(cudaStreamCreate(&s));
    if (!dx || !dy || !s)
      goto next;
    CHECK_OK(smv_context_set_stream(ctx, (void *)s));
    const size_t before = smv_matrix_device_bytes(dA);
    cudaGraph_t g = NULL;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    smv_status st = smv_spmv(ctx, alg, 1.0, dA, dx, 0.0, dy);
    smv_status pst = smv_matrix_prepare(ctx, dA, alg);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    CHECKF(st == SMV_ERR_UNSUPPORTED, "%s: captured unprepared: %d",
           smv_alg_name(alg), (int)st);
    CHECKF(pst == SMV_ERR_UNSUPPORTED, "%s: prepared in a capture: %d",
           smv_alg_name(alg), (int)pst);
    CHECK(smv_matrix_device_bytes(dA) == before);
    if (g)
      cudaGraphDestroy(g), g = NULL;
    /* The refusal of the call itself names the way out. */
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    st = smv_spmv(ctx, alg, 1.0, dA, dx, 0.0, dy);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    CHECK_STATUS(st, SMV_ERR_UNSUPPORTED);
    CHECK_STR_HAS(smv_context_error(ctx), "smv_matrix_prepare");
    CHECK_STR_HAS(smv_context_error(ctx), "stream capture");
    CHECK_STR_HAS(smv_context_error(ctx), smv_alg_name(alg));
    if (g)
      cudaGraphDestroy(g), g = NULL;
    if (i % 2 == 0) {
      /* Outside the capture it sets itself up and is right. */
      CHECK_INT(tc_case(ctx, dA, A, alg, 1.0, 0.0, 0, 0, "lap2d:60 lazy"), 0);
    } else {
      /* Or prepared ahead: then the capture works. */
      CHECK_OK(smv_matrix_prepare(ctx, dA, alg));
      CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      st = smv_spmv(ctx, alg, 1.0, dA, dx, 0.0, dy);
      CUDA_OK(cudaStreamEndCapture(s, &g));
      CHECKF(st == SMV_OK, "%s: capture after prepare: %s", smv_alg_name(alg),
             smv_context_error(ctx));
      if (g)
        cudaGraphDestroy(g), g = NULL;
    }
    if (alg == SMV_ALG_CUSPARSE_ALG1 || alg == SMV_ALG_CUSPARSE_ALG2) {
      CHECK_OK(smv_matrix_plan(dA, &p));
      CHECK(p.cusparse_ms[alg == SMV_ALG_CUSPARSE_ALG2] > 0);
    }
    /* Set up: its state now counts (a tile list for rungs 11 and 12; a
     * cuSPARSE buffer may be empty). */
    if (smv_kernel_name(alg))
      CHECKF(smv_matrix_device_bytes(dA) > before, "%s: %zu bytes, before %zu",
             smv_alg_name(alg), smv_matrix_device_bytes(dA), before);
    CHECK_OK(smv_context_set_stream(ctx, NULL));
  next:
    smv_device_free(ctx, dx);
    smv_device_free(ctx, dy);
    if (s)
      CUDA_OK(cudaStreamDestroy(s));
  }
out:
  smv_matrix_free(dA);
  smv_csr_free(A);
}

#else

static void test_graph_lazy(void) {
  TC_NEED_DEVICE();
  SKIP("built without <cuda_runtime_api.h> on the include path");
}

static void test_graph_square(void) {
  TC_NEED_DEVICE();
  SKIP("built without <cuda_runtime_api.h> on the include path");
}
static void test_graph_rectangular(void) { test_graph_square(); }

#endif

int main(void) {
  RUN(test_graph_square);
  RUN(test_graph_rectangular);
  RUN(test_graph_lazy);
  smv_context_free(tc_ctx);
  return TEST_END();
}
