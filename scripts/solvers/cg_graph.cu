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

#include "cusparse_common.h"

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
  struct cg_problem *P;          /* A, its descriptors (in: p, out: q) */
  double *b, *x, *r, *p, *q, *s; /* s: S_COUNT device scalars */
  double *h_r1;                  /* pinned: r1 after each replay */
  void *ws;
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
  CKS(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->P->dA,
                   c->P->din, &zero, c->P->dout, CUDA_R_64F,
                   CUSPARSE_SPMV_ALG_DEFAULT, c->P->buf));
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

/* cg_run behind cusparse_common.h's cg_solve_fn. */
static int solve(void *c, double tol, int maxit, int fixed, double *relres) {
  return cg_run((struct cg *)c, tol, maxit, fixed, relres);
}

int main(int argc, char **argv) {
  const char *matrix;
  double tol = 1e-8;
  int maxit = 20000, runs = 5, fixed = 1000;
  if (cg_args(argc, argv, "cg_graph", &matrix, &tol, &maxit, &runs, &fixed) !=
      0)
    return 2;
  struct cg_problem P;
  if (cg_problem_load(&P, matrix) != 0)
    return 1;
  const int n = P.n;
  struct cg c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.P = &P;
  CK(cudaStreamCreateWithFlags(&c.stream, cudaStreamNonBlocking));
  double **vecs[5] = {&c.b, &c.x, &c.r, &c.p, &c.q};
  for (int k = 0; k < 5; k++)
    CK(cudaMalloc((void **)vecs[k], ((size_t)n + 1) * sizeof(double)));
  CK(cudaMalloc((void **)&c.s, S_COUNT * sizeof(double)));
  CK(cudaMallocHost((void **)&c.h_r1, sizeof(double)));
  const double h_one = 1.0;
  CK(cudaMemcpy(c.s + S_ONE, &h_one, sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(c.b, P.hb, n * sizeof(double), cudaMemcpyHostToDevice));
  CKS(cusparseCreate(&c.sp));
  CKS(cusparseSetStream(c.sp, c.stream));
  CKB(cublasCreate(&c.bl));
  CKB(cublasSetStream(c.bl, c.stream));
  /* A workspace of our own, so that nothing is allocated while capturing. */
  const size_t ws_bytes = (size_t)4 << 20;
  CK(cudaMalloc(&c.ws, ws_bytes));
  CKB(cublasSetWorkspace(c.bl, c.ws, ws_bytes));
  CKB(cublasSetPointerMode(c.bl, CUBLAS_POINTER_MODE_DEVICE));
  cg_problem_spmv(&P, c.sp, c.p, c.q);

  /* One iteration run eagerly first (cuSPARSE and cuBLAS do their lazy
   * set-up outside the capture), then captured. */
  reset(&c);
  iteration(&c);
  CK(cudaStreamSynchronize(c.stream));
  CK(cudaStreamBeginCapture(c.stream, cudaStreamCaptureModeThreadLocal));
  iteration(&c);
  CK(cudaStreamEndCapture(c.stream, &c.graph));
  CK(cudaGraphInstantiate(&c.exec, c.graph, 0));

  const int rc = cg_measure("anchor-graph", matrix, &P, solve, &c, &c.x, tol,
                            maxit, runs, fixed);
  cudaGraphExecDestroy(c.exec);
  cudaGraphDestroy(c.graph);
  cusparseDestroy(c.sp);
  cublasDestroy(c.bl);
  for (int k = 0; k < 5; k++)
    cudaFree(*vecs[k]);
  cudaFree(c.s);
  cudaFreeHost(c.h_r1);
  cudaFree(c.ws);
  cudaStreamDestroy(c.stream);
  cg_problem_free(&P);
  return rc;
}
