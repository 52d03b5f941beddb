/*
 * test_cuda_transpose_spmm.c — on the device: y = alpha*A^T*x + beta*y
 * (smv_spmv_t, smv_spmv_t_host; A^T built lazily and by
 * smv_matrix_prepare_transpose) and Y = alpha*A*X + beta*Y (smv_spmm,
 * smv_spmm_host; ours and cuSPARSE's algorithms, row- and column-major,
 * leading dimensions wider than the data, k = 1..70), f64 and f32, checked
 * column by column against the serial reference with the bench's bound.
 * Outputs are NaN-poisoned when beta = 0; the gaps between columns hold a
 * sentinel that must survive. Graph capture: smv_spmm (ours) and
 * smv_spmv_t on a prepared matrix are captured and replayed; a transposed
 * product on an unprepared matrix inside a capture is refused. SKIPs
 * without a device.
 */
#include "test_spmm_common.h"

#include "test_cuda_runtime.h"

static const char *const shapes[] = {
    "diag:1",
    "empty:5:7",
    "band:300:3",
    "rand:2000:7",
    "plaw:5000:6",
    "rand:700:40",
    "rand:900:9,cols=130",
    "rand:60:20,cols=3000",
    "lap3d:14",
    "denserow:300:3,cols=2500" /* one huge row: skewed, a warp per row */};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static smv_csr *gen(const char *spec, int f32) {
  smv_csr *A = tst_generate(spec);
  if (A && f32)
    tc_round_values(A);
  return A;
}

static void test_spmv_t(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const smv_alg algs[] = {SMV_ALG_AUTO, SMV_ALG_SCALAR, SMV_ALG_VECTOR_SHFL,
                          SMV_ALG_ADAPTIVE, SMV_ALG_CUSPARSE_ALG1};
  const double ab[][2] = {{1, 0}, {-0.5, 2}, {0, 1.5}};
  for (int f32 = 0; f32 < 2; f32++)
    for (size_t s = 0; s < NSHAPES; s++) {
      smv_csr *A = gen(shapes[s], f32), *T = NULL;
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_csr_transpose(A, &T));
      if (T)
        CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
      if (!dA) {
        smv_csr_free(A), smv_csr_free(T);
        continue;
      }
      /* Half the matrices build A^T ahead, half on the first product. */
      if (s % 2)
        CHECK_OK(smv_matrix_prepare_transpose(ctx, dA));
      for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
        for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++)
          for (int host = 0; host < 2; host++) {
            /* tc_case runs smv_spmv on a matrix: run it on A^T's device
             * matrix through smv_spmv_t by checking the same numbers. */
            const int64_t m = A->rows, n = A->cols;
            double *x = malloc((m + 1) * sizeof *x);
            double *y0 = malloc((n + 1) * sizeof *x);
            double *y = malloc((n + 1) * sizeof *x);
            const double alpha = ab[c][0], beta = ab[c][1];
            tc_fill_inputs(x, m, alpha, y0, n, beta);
            memcpy(y, y0, n * sizeof *x);
            smv_status st;
            if (host) {
              st = smv_spmv_t_host(ctx, algs[a], alpha, dA, x, beta, y);
            } else {
              const size_t es = f32 ? 4 : 8;
              void *dx = NULL, *dy = NULL;
              st = smv_device_malloc(ctx, (m + 1) * es, &dx);
              if (st == SMV_OK)
                st = smv_device_malloc(ctx, (n + 1) * es, &dy);
              if (st == SMV_OK)
                st = tc_upload(ctx, f32, x, m, dx);
              if (st == SMV_OK)
                st = tc_upload(ctx, f32, y0, n, dy);
              if (st == SMV_OK)
                st = smv_spmv_t(ctx, algs[a], alpha, dA, dx, beta, dy);
              if (st == SMV_OK)
                st = smv_synchronize(ctx);
              tc_fill_nan(y, n);
              if (st == SMV_OK)
                st = tc_download(ctx, f32, dy, n, y);
              smv_device_free(ctx, dx), smv_device_free(ctx, dy);
            }
            char what[200];
            snprintf(what, sizeof what, "%s^T %s %s a=%g b=%g %s", shapes[s],
                     smv_alg_name(algs[a]), f32 ? "f32" : "f64", alpha, beta,
                     host ? "host" : "device");
            CHECKF(st == SMV_OK, "%s: %s: %s", what, smv_status_string(st),
                   smv_context_error(ctx));
            if (st == SMV_OK)
              CHECK_INT(tc_verify(T, f32, alpha, x, beta, y0, y, what), 0);
            free(x), free(y0), free(y);
          }
      smv_matrix_free(dA);
      smv_csr_free(A), smv_csr_free(T);
    }
}

static void test_spmm_ours(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const int ks[] = {1, 2, 3, 5, 8, 13, 16, 31, 33, 64, 70, 1};
  const double ab[][2] = {{1, 0}, {-0.5, 2}, {0, 1.5}};
  for (int f32 = 0; f32 < 2; f32++)
    for (size_t s = 0; s < NSHAPES; s++) {
      smv_csr *A = gen(shapes[s], f32);
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
      for (int lay = 0; dA && lay < 2; lay++)
        for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
          for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
            int uns = 0;
            const int host = (int)((ki + c) % 2), pad = (int)(ki % 3);
            CHECK_INT(spmm_case(ctx, dA, A,
                                ki % 2 ? SMV_SPMM_AUTO : SMV_SPMM_OURS, ks[ki],
                                (smv_layout)lay, pad, ab[c][0], ab[c][1], host,
                                &uns),
                      0);
            CHECK(!uns);
          }
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

static void test_spmm_cusparse(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const int ks[] = {1, 4, 7, 16, 64};
  int ran = 0, refused = 0;
  for (int f32 = 0; f32 < 2; f32++)
    for (size_t s = 2; s < NSHAPES; s += 2) {
      smv_csr *A = gen(shapes[s], f32);
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
      for (int alg = SMV_SPMM_CUSPARSE_ALG1;
           dA && alg <= SMV_SPMM_CUSPARSE_ALG3; alg++)
        for (int lay = 0; lay < 2; lay++)
          for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++) {
            int uns = 0;
            CHECK_INT(spmm_case(ctx, dA, A, (smv_spmm_alg)alg, ks[ki],
                                (smv_layout)lay, (int)(ki % 2), 1.5,
                                ki % 2 ? 0.5 : 0.0, 0, &uns),
                      0);
            ran += !uns, refused += uns;
          }
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
  fprintf(stderr, "cuSPARSE SpMM: %d cases checked, %d refused by cuSPARSE\n",
          ran, refused);
  CHECK(ran > 0);
}

static void test_spmm_bad(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = gen("rand:30:4,cols=20", 0);
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  double X[80], Y[120];
  tc_fill(X, 80), tc_fill(Y, 120);
  CHECK_STATUS(smv_spmm_host(ctx, SMV_SPMM_OURS, 1, dA, X, 3, 0, Y, 4, 4,
                             SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_DIM);
  CHECK_STR_HAS(smv_context_error(ctx), "leading dimensions");
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_ALG_COUNT, 1, dA, X, 4, 0, Y, 4, 4,
                        SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_OURS, 1, NULL, X, 4, 0, Y, 4, 4,
                        SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_OURS, 1, dA, NULL, 4, 0, Y, 4, 4,
                        SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_t(ctx, SMV_ALG_AUTO, 1, NULL, X, 0, Y), SMV_ERR_ARG);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

#ifdef TC_HAVE_RUNTIME
/* Captured: Y = 1.5 A X (k = 5, row-major) and y = -A^T x. */
static void test_graph(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = gen("rand:3000:9,cols=2000", 0), *T = NULL;
  smv_matrix *dA = NULL;
  cudaStream_t s = NULL;
  const int k = 5;
  void *dX = NULL, *dY = NULL, *dx = NULL, *dy = NULL;
  if (A)
    CHECK_OK(smv_csr_transpose(A, &T));
  if (T)
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  CUDA_OK(cudaStreamCreate(&s));
  if (!dA || !s)
    goto out;
  const int64_t m = A->rows, n = A->cols;
  double *X = malloc(n * k * sizeof *X), *Y0 = malloc(m * k * sizeof *X);
  double *Y = malloc(m * k * sizeof *X), *x = malloc(m * sizeof *X);
  double *y0 = malloc(n * sizeof *X), *y = malloc(n * sizeof *X);
  tc_fill(X, n * k), tc_fill_nan(Y0, m * k), tc_fill(x, m), tc_fill_nan(y0, n);
  CHECK_OK(smv_context_set_stream(ctx, (void *)s));
  CHECK_OK(smv_device_malloc(ctx, n * k * 8, &dX));
  CHECK_OK(smv_device_malloc(ctx, m * k * 8, &dY));
  CHECK_OK(smv_device_malloc(ctx, m * 8, &dx));
  CHECK_OK(smv_device_malloc(ctx, n * 8, &dy));
  CHECK_OK(tc_upload(ctx, 0, X, n * k, dX));
  CHECK_OK(tc_upload(ctx, 0, Y0, m * k, dY));
  CHECK_OK(tc_upload(ctx, 0, x, m, dx));
  CHECK_OK(tc_upload(ctx, 0, y0, n, dy));
  cudaGraph_t g = NULL;
  cudaGraphExec_t ge = NULL;
  /* Unprepared A^T inside a capture: refused, the capture ends cleanly. */
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CHECK_STATUS(smv_spmv_t(ctx, SMV_ALG_AUTO, -1.0, dA, dx, 0.0, dy),
               SMV_ERR_ARG);
  CUDA_OK(cudaStreamEndCapture(s, &g));
  CHECK_STR_HAS(smv_context_error(ctx), "smv_matrix_prepare_transpose");
  if (g)
    cudaGraphDestroy(g), g = NULL;
  CHECK_OK(smv_matrix_prepare_transpose(ctx, dA));
  /* What is captured is set up (AUTO's rung is at analysis; on A^T too). */
  CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_AUTO));
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_OK(smv_spmm(ctx, SMV_SPMM_OURS, 1.5, dA, dX, k, 0.0, dY, k, k,
                    SMV_LAYOUT_ROW_MAJOR));
  CHECK_OK(smv_spmv_t(ctx, SMV_ALG_AUTO, -1.0, dA, dx, 0.0, dy));
  CUDA_OK(cudaStreamEndCapture(s, &g));
  if (g)
    CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
  for (int rep = 0; ge && rep < 2; rep++) {
    CUDA_OK(cudaGraphLaunch(ge, s));
    CUDA_OK(cudaStreamSynchronize(s));
    tc_fill_nan(Y, m * k), tc_fill_nan(y, n);
    CHECK_OK(tc_download(ctx, 0, dY, m * k, Y));
    CHECK_OK(tc_download(ctx, 0, dy, n, y));
    CHECK_INT(check_spmm(A, 0, 1.5, X, k, 0.0, Y0, Y, k, k,
                         SMV_LAYOUT_ROW_MAJOR, "graph spmm"),
              0);
    CHECK_INT(tc_verify(T, 0, -1.0, x, 0.0, y0, y, "graph spmv_t"), 0);
  }
  if (ge)
    cudaGraphExecDestroy(ge);
  if (g)
    cudaGraphDestroy(g);
  CHECK_OK(smv_context_set_stream(ctx, NULL));
  free(X), free(Y0), free(Y), free(x), free(y0), free(y);
out:
  smv_device_free(ctx, dX), smv_device_free(ctx, dY);
  smv_device_free(ctx, dx), smv_device_free(ctx, dy);
  if (s)
    cudaStreamDestroy(s);
  smv_matrix_free(dA);
  smv_csr_free(A), smv_csr_free(T);
}
#else
static void test_graph(void) { SKIP("built without the CUDA runtime header"); }
#endif

int main(void) {
  RUN(test_spmv_t);
  RUN(test_spmm_ours);
  RUN(test_spmm_cusparse);
  RUN(test_spmm_bad);
  RUN(test_graph);
  smv_context_free(tc_ctx);
  return TEST_END();
}
