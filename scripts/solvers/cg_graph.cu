/*
 * cg_graph.cu — the fair anchor for smv's GPU CG: conjugate gradients with
 * cuSPARSE + cuBLAS in the scheme of NVIDIA's conjugateGradientCudaGraphs
 * sample, written here from its description: every scalar stays on the
 * device (cuBLAS in device pointer mode, two one-thread kernels for
 * alpha = r1 / p.Ap, -alpha and beta = r1 / r0), and one CG iteration is
 * captured once into a CUDA graph and replayed. No preconditioner;
 * stopping on ||r|| / ||b|| <= tol. smv is used only to read or generate
 * the matrix and for the host reference SpMV of the true residual.
 *
 *   cg_graph MATRIX [--tol T] [--maxit N] [--runs R] [--fixed N]
 *
 * One iteration (the graph, 10 nodes):
 *   beta = r1 / r0 (kernel); p = beta p (cublasDscal); p += r (Daxpy)
 *   q = A p (cusparseSpMV, default algorithm)
 *   dot = p.q (cublasDdot); alpha = r1 / dot, nalpha = -alpha (kernel)
 *   x += alpha p; r += nalpha q (Daxpy, Daxpy)
 *   r0 = r1 (8-byte device copy); r1 = r.r (Ddot)
 *   r1 -> pinned host memory (8-byte copy)
 * The first iteration is the same graph: p starts at 0 and r0 at 1, so
 * p = beta 0 + r = r exactly. Every cuBLAS scalar is a device pointer
 * (the constant 1 of p += r included).
 *
 * Two timings, each the median of R runs after a warm-up:
 *   tts_ms / iter_us   to tolerance, the host checking r1 after every
 *                      replay, as the sample's loop does (one
 *                      cudaGraphLaunch + cudaStreamSynchronize per
 *                      iteration);
 *   fixed_iter_us      N replays queued back to back, one synchronisation
 *                      at the end: the graph alone, no host round trip
 *                      (the anchor at its fastest; smv is compared
 *                      against this one first).
 * Prints one "RESULT impl=anchor-graph ..." line (scripts/gpu/solvers.sh,
 * scripts/solvers/tables.py).
 *
 * Build (device machine; scripts/gpu/solvers.sh does it):
 *   nvcc -O2 -arch=sm_90 -Iinclude scripts/solvers/cg_graph.cu \
 *     build/libsmv.a -lcusparse -lcublas -Xcompiler -fopenmp -lz
 */
#include "smv.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/* Exit with file, line, the call as written and its error text unless the
 * call (of status type T) returned `ok`. */
#define CK_STATUS(T, ok, text, what, call)                                     \
  do {                                                                         \
    T s_ = (call);                                                             \
    if (s_ != (ok)) {                                                          \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, what, text(s_));  \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
static const char *cublas_text(cublasStatus_t s) {
  static char buf[32];
  snprintf(buf, sizeof buf, "cuBLAS status %d", (int)s);
  return buf;
}
#define CK(call)                                                               \
  CK_STATUS(cudaError_t, cudaSuccess, cudaGetErrorString, #call, call)
#define CKS(call)                                                              \
  CK_STATUS(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, cusparseGetErrorString, \
            #call, call)
#define CKB(call)                                                              \
  CK_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublas_text, #call, call)

/* The device scalars, one allocation: r0, r1, dot, alpha, -alpha, beta,
 * b.b and the constant 1. */
enum { S_R0, S_R1, S_DOT, S_A, S_NA, S_B, S_BB, S_ONE, S_COUNT };

__global__ void beta_kernel(double *s) { s[S_B] = s[S_R1] / s[S_R0]; }
__global__ void alpha_kernel(double *s) {
  s[S_A] = s[S_R1] / s[S_DOT];
  s[S_NA] = -s[S_A];
}

struct cg {
  int n;
  cudaStream_t stream;
  cusparseHandle_t sp;
  cublasHandle_t bl;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vp, vq;
  double *b, *x, *r, *p, *q, *s; /* s: S_COUNT device scalars */
  double *h_r1;                  /* pinned: r1 after each replay */
  void *buf, *ws;
  cudaGraph_t graph;
  cudaGraphExec_t exec;
};

/* One iteration on c->stream (captured once). */
static void iteration(struct cg *c) {
  const int n = c->n;
  const double one = 1.0, zero = 0.0;
  beta_kernel<<<1, 1, 0, c->stream>>>(c->s);
  CK(cudaGetLastError());
  CKB(cublasDscal(c->bl, n, c->s + S_B, c->p, 1));
  CKB(cublasDaxpy(c->bl, n, c->s + S_ONE, c->r, 1, c->p, 1));
  CKS(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, c->vp,
                   &zero, c->vq, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                   c->buf));
  CKB(cublasDdot(c->bl, n, c->p, 1, c->q, 1, c->s + S_DOT));
  alpha_kernel<<<1, 1, 0, c->stream>>>(c->s);
  CK(cudaGetLastError());
  CKB(cublasDaxpy(c->bl, n, c->s + S_A, c->p, 1, c->x, 1));
  CKB(cublasDaxpy(c->bl, n, c->s + S_NA, c->q, 1, c->r, 1));
  CK(cudaMemcpyAsync(c->s + S_R0, c->s + S_R1, sizeof(double),
                     cudaMemcpyDeviceToDevice, c->stream));
  CKB(cublasDdot(c->bl, n, c->r, 1, c->r, 1, c->s + S_R1));
  CK(cudaMemcpyAsync(c->h_r1, c->s + S_R1, sizeof(double),
                     cudaMemcpyDeviceToHost, c->stream));
}

/* x = 0, r = b, p = 0, r0 = 1, r1 = b.b; returns b.b. */
static double reset(struct cg *c) {
  const int n = c->n;
  CK(cudaMemsetAsync(c->x, 0, n * sizeof(double), c->stream));
  CK(cudaMemsetAsync(c->p, 0, n * sizeof(double), c->stream));
  CK(cudaMemcpyAsync(c->r, c->b, n * sizeof(double), cudaMemcpyDeviceToDevice,
                     c->stream));
  CKB(cublasDdot(c->bl, n, c->b, 1, c->b, 1, c->s + S_BB));
  CK(cudaMemcpyAsync(c->s + S_R1, c->s + S_BB, sizeof(double),
                     cudaMemcpyDeviceToDevice, c->stream));
  CK(cudaMemcpyAsync(c->s + S_R0, c->s + S_ONE, sizeof(double),
                     cudaMemcpyDeviceToDevice, c->stream));
  double bb;
  CK(cudaMemcpyAsync(&bb, c->s + S_BB, sizeof(double), cudaMemcpyDeviceToHost,
                     c->stream));
  CK(cudaStreamSynchronize(c->stream));
  *c->h_r1 = bb;
  return bb;
}

/* To tolerance (fixed = 0: one replay and one host check per iteration)
 * or exactly `fixed` replays with one synchronisation. Returns the
 * iterations; *relres the recurrence's ||r|| / ||b||. */
static int cg_run(struct cg *c, double tol, int maxit, int fixed,
                  double *relres) {
  const double bb = reset(c);
  int k = 0;
  if (fixed > 0) {
    for (k = 0; k < fixed; k++)
      CK(cudaGraphLaunch(c->exec, c->stream));
    CK(cudaStreamSynchronize(c->stream));
  } else {
    while (*c->h_r1 > tol * tol * bb && k < maxit) {
      CK(cudaGraphLaunch(c->exec, c->stream));
      CK(cudaStreamSynchronize(c->stream));
      k++;
    }
  }
  *relres = sqrt(*c->h_r1 / bb);
  return k;
}

int main(int argc, char **argv) {
  const char *matrix = NULL;
  double tol = 1e-8;
  int maxit = 20000, runs = 5, fixed = 1000;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--maxit") && i + 1 < argc)
      maxit = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fixed") && i + 1 < argc)
      fixed = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !matrix)
      matrix = argv[i];
    else
      matrix = NULL, i = argc;
  }
  if (!matrix || runs < 1 || runs > 100 || fixed < 1) {
    fprintf(stderr, "usage: cg_graph MATRIX [--tol T] [--maxit N] "
                    "[--runs R<=100] [--fixed N>=1]\n");
    return 2;
  }
  smv_csr *A = NULL;
  smv_error err;
  if (smv_load(matrix, NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  if (A->rows != A->cols) {
    fprintf(stderr, "%s: not square\n", matrix);
    return 1;
  }
  const int n = (int)A->rows;
  const int64_t nnz = A->nnz;
  double *hb = (double *)malloc(((size_t)n + 1) * sizeof *hb);
  double *hx = (double *)malloc(((size_t)n + 1) * sizeof *hx);
  double *ones = (double *)malloc(((size_t)n + 1) * sizeof *ones);
  double *hax = (double *)malloc(((size_t)n + 1) * sizeof *hax);
  if (!hb || !hx || !ones || !hax) {
    fprintf(stderr, "out of host memory\n");
    return 1;
  }
  for (int i = 0; i < n; i++)
    ones[i] = 1.0;
  smv_spmv_ref(A, 1.0, ones, 0.0, hb);

  struct cg c;
  memset(&c, 0, sizeof c);
  c.n = n;
  int *drp, *dci;
  double *dv;
  CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  CK(cudaMalloc((void **)&drp, (n + 1) * sizeof(int)));
  CK(cudaMalloc((void **)&dci, (nnz + 1) * sizeof(int)));
  CK(cudaMalloc((void **)&dv, (nnz + 1) * sizeof(double)));
  CK(cudaMemcpy(drp, A->row_ptr, (n + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, A->col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, A->values, nnz * sizeof(double), cudaMemcpyHostToDevice));
  double **vecs[5] = {&c.b, &c.x, &c.r, &c.p, &c.q};
  for (int k = 0; k < 5; k++)
    CK(cudaMalloc((void **)vecs[k], ((size_t)n + 1) * sizeof(double)));
  CK(cudaMalloc((void **)&c.s, S_COUNT * sizeof(double)));
  CK(cudaMallocHost((void **)&c.h_r1, sizeof(double)));
  const double h_one = 1.0;
  CK(cudaMemcpy(c.s + S_ONE, &h_one, sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(c.b, hb, n * sizeof(double), cudaMemcpyHostToDevice));
  CKS(cusparseCreate(&c.sp));
  CKS(cusparseSetStream(c.sp, c.stream));
  CKB(cublasCreate(&c.bl));
  CKB(cublasSetStream(c.bl, c.stream));
  /* A workspace of our own, so that nothing is allocated while capturing. */
  const size_t ws_bytes = (size_t)4 << 20;
  CK(cudaMalloc(&c.ws, ws_bytes));
  CKB(cublasSetWorkspace(c.bl, c.ws, ws_bytes));
  CKB(cublasSetPointerMode(c.bl, CUBLAS_POINTER_MODE_DEVICE));
  CKS(cusparseCreateCsr(&c.A, n, n, nnz, drp, dci, dv, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_64F));
  CKS(cusparseCreateDnVec(&c.vp, n, c.p, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&c.vq, n, c.q, CUDA_R_64F));
  const double one = 1.0, zero = 0.0;
  size_t bytes = 0;
  CKS(cusparseSpMV_bufferSize(c.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A,
                              c.vp, &zero, c.vq, CUDA_R_64F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  CK(cudaMalloc(&c.buf, bytes ? bytes : 1));

  /* One iteration run eagerly first (cuSPARSE and cuBLAS do their lazy
   * set-up outside the capture), then captured. */
  reset(&c);
  iteration(&c);
  CK(cudaStreamSynchronize(c.stream));
  CK(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal));
  iteration(&c);
  CK(cudaStreamEndCapture(c.stream, &c.graph));
  CK(cudaGraphInstantiate(&c.exec, c.graph, 0));

  double relres = 0.0, t[100];
  int its = cg_run(&c, tol, maxit, 0, &relres); /* warm-up */
  for (int k = 0; k < runs; k++) {
    double t0 = now_s();
    its = cg_run(&c, tol, maxit, 0, &relres);
    t[k] = now_s() - t0;
  }
  qsort(t, runs, sizeof t[0], cmp_d);
  const double tts = t[runs / 2];
  CK(cudaMemcpy(hx, c.x, n * sizeof(double), cudaMemcpyDeviceToHost));
  smv_spmv_ref(A, 1.0, hx, 0.0, hax);
  double rr = 0.0, bb = 0.0;
  for (int i = 0; i < n; i++) {
    rr += (hb[i] - hax[i]) * (hb[i] - hax[i]);
    bb += hb[i] * hb[i];
  }
  const double true_res = sqrt(rr / bb);
  const int pass = its < maxit && true_res <= 10 * tol;
  double fr;
  for (int k = 0; k < runs; k++) {
    double t0 = now_s();
    cg_run(&c, tol, maxit, fixed, &fr);
    t[k] = now_s() - t0;
  }
  qsort(t, runs, sizeof t[0], cmp_d);
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("RESULT impl=anchor-graph matrix=%s n=%d nnz=%lld its=%d "
         "relres=%.3e true=%.3e tts_ms=%.4f iter_us=%.3f fixed_iter_us=%.3f "
         "check=%s device=\"%s\"\n",
         matrix, n, (long long)nnz, its, relres, true_res, tts * 1e3,
         its ? tts * 1e6 / its : 0.0, t[runs / 2] * 1e6 / fixed,
         pass ? "PASS" : "FAIL", prop.name);
  cudaGraphExecDestroy(c.exec);
  cudaGraphDestroy(c.graph);
  cusparseDestroySpMat(c.A);
  cusparseDestroyDnVec(c.vp);
  cusparseDestroyDnVec(c.vq);
  cusparseDestroy(c.sp);
  cublasDestroy(c.bl);
  for (int k = 0; k < 5; k++)
    cudaFree(*vecs[k]);
  cudaFree(c.s);
  cudaFreeHost(c.h_r1);
  cudaFree(c.buf);
  cudaFree(c.ws);
  cudaFree(drp), cudaFree(dci), cudaFree(dv);
  cudaStreamDestroy(c.stream);
  free(hb), free(hx), free(ones), free(hax);
  smv_csr_free(A);
  return pass ? 0 : 3;
}
