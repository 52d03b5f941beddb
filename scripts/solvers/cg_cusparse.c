/*
 * cg_cusparse.c — the yardstick for smv's GPU CG: conjugate gradients
 * written the usual way with cuSPARSE + cuBLAS, step for step as NVIDIA's
 * conjugateGradient CUDA sample does it (cusparseSpMV with the default
 * algorithm, cublasDdot in host pointer mode, i.e. each dot product's
 * result comes back to the host before the next call, cublasDaxpy /
 * Dscal / Dcopy), no preconditioner, stopping on the relative residual
 * ||r|| / ||b|| <= tol. smv is used only to read or generate the matrix.
 *
 *   cg_cusparse MATRIX [--tol T] [--maxit N] [--runs R] [--fixed N]
 *
 * b = A * ones. Prints one "RESULT key=value ..." line: iterations, the
 * recurrence's and the true relative residual, the median time to solution
 * over R runs (vectors and descriptors allocated outside the timing, as in
 * the sample), and the time per iteration of N iterations run without a
 * convergence test (median of R runs).
 *
 * Build (device machine):
 *   gcc -O2 -std=c11 -fopenmp -Iinclude -I/usr/local/cuda/include \
 *     scripts/solvers/cg_cusparse.c build/libsmv.a \
 *     -L/usr/local/cuda/lib64 -lcusparse -lcublas -lcudart -lstdc++ -lz -lm
 */
#define _POSIX_C_SOURCE 200809L
#include "smv.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
/* cuBLAS errors print as their status number. */
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

struct cg {
  int n;
  cusparseHandle_t sp;
  cublasHandle_t bl;
  cusparseSpMatDescr_t A;
  cusparseDnVecDescr_t vp, vax;
  double *b, *x, *r, *p, *ax;
  void *buf;
};

/* The sample's loop. fixed > 0: exactly `fixed` iterations, no test.
 * Returns the iterations done; *relres the recurrence's ||r||/||b||. */
static int cg_run(struct cg *c, double tol, int maxit, int fixed,
                  double *relres) {
  const int n = c->n;
  const double one = 1.0, zero = 0.0;
  double r0 = 0.0, r1, bb, a, na, bt, dot;
  CK(cudaMemset(c->x, 0, n * sizeof(double)));
  CK(cudaMemcpy(c->r, c->b, n * sizeof(double), cudaMemcpyDeviceToDevice));
  CKB(cublasDdot(c->bl, n, c->b, 1, c->b, 1, &bb));
  CKB(cublasDdot(c->bl, n, c->r, 1, c->r, 1, &r1));
  int k = 1;
  while (fixed > 0 ? k <= fixed : (r1 > tol * tol * bb && k <= maxit)) {
    if (k > 1) {
      bt = r1 / r0;
      CKB(cublasDscal(c->bl, n, &bt, c->p, 1));
      CKB(cublasDaxpy(c->bl, n, &one, c->r, 1, c->p, 1));
    } else {
      CKB(cublasDcopy(c->bl, n, c->r, 1, c->p, 1));
    }
    CKS(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->A, c->vp,
                     &zero, c->vax, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT,
                     c->buf));
    CKB(cublasDdot(c->bl, n, c->p, 1, c->ax, 1, &dot));
    a = r1 / dot;
    CKB(cublasDaxpy(c->bl, n, &a, c->p, 1, c->x, 1));
    na = -a;
    CKB(cublasDaxpy(c->bl, n, &na, c->ax, 1, c->r, 1));
    r0 = r1;
    CKB(cublasDdot(c->bl, n, c->r, 1, c->r, 1, &r1));
    k++;
  }
  CK(cudaDeviceSynchronize());
  *relres = sqrt(r1 / bb);
  return k - 1;
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
    else {
      fprintf(stderr, "usage: cg_cusparse MATRIX [--tol T] [--maxit N] "
                      "[--runs R] [--fixed N]\n");
      return 2;
    }
  }
  if (!matrix || runs < 1 || runs > 100) {
    fprintf(stderr, "usage: cg_cusparse MATRIX [--tol T] [--maxit N] "
                    "[--runs R<=100] [--fixed N]\n");
    return 2;
  }
  smv_csr *A = NULL;
  smv_error err;
  if (smv_load(matrix, NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  const int n = A->rows;
  const int64_t nnz = A->nnz;
  double *hb = malloc(n * sizeof *hb), *hx = malloc(n * sizeof *hx);
  double *ones = malloc(n * sizeof *ones), *hax = malloc(n * sizeof *hax);
  for (int i = 0; i < n; i++)
    ones[i] = 1.0;
  smv_spmv_ref(A, 1.0, ones, 0.0, hb);

  struct cg c;
  memset(&c, 0, sizeof c);
  c.n = n;
  int *drp, *dci;
  double *dv;
  CK(cudaMalloc((void **)&drp, (n + 1) * sizeof(int)));
  CK(cudaMalloc((void **)&dci, nnz * sizeof(int)));
  CK(cudaMalloc((void **)&dv, nnz * sizeof(double)));
  CK(cudaMemcpy(drp, A->row_ptr, (n + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dci, A->col_idx, nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, A->values, nnz * sizeof(double), cudaMemcpyHostToDevice));
  double **vecs[5] = {&c.b, &c.x, &c.r, &c.p, &c.ax};
  for (int k = 0; k < 5; k++)
    CK(cudaMalloc((void **)vecs[k], n * sizeof(double)));
  CK(cudaMemcpy(c.b, hb, n * sizeof(double), cudaMemcpyHostToDevice));
  CKS(cusparseCreate(&c.sp));
  CKB(cublasCreate(&c.bl));
  CKS(cusparseCreateCsr(&c.A, n, n, nnz, drp, dci, dv, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                        CUDA_R_64F));
  CKS(cusparseCreateDnVec(&c.vp, n, c.p, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&c.vax, n, c.ax, CUDA_R_64F));
  const double one = 1.0, zero = 0.0;
  size_t bytes = 0;
  CKS(cusparseSpMV_bufferSize(c.sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A,
                              c.vp, &zero, c.vax, CUDA_R_64F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  CK(cudaMalloc(&c.buf, bytes ? bytes : 1));

  /* Warm-up, then timed runs to tolerance. */
  double relres = 0.0, t[100];
  int its = cg_run(&c, tol, maxit, 0, &relres);
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
  /* Fixed iteration count: the cost of one iteration. */
  double fr;
  for (int k = 0; k < runs; k++) {
    double t0 = now_s();
    cg_run(&c, tol, maxit, fixed, &fr);
    t[k] = now_s() - t0;
  }
  qsort(t, runs, sizeof t[0], cmp_d);
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("RESULT impl=cusparse+cublas matrix=%s n=%d nnz=%lld its=%d "
         "relres=%.3e true=%.3e tts_ms=%.4f iter_us=%.3f fixed_iter_us=%.3f "
         "device=\"%s\"\n",
         matrix, n, (long long)nnz, its, relres, sqrt(rr / bb), tts * 1e3,
         its ? tts * 1e6 / its : 0.0, t[runs / 2] * 1e6 / fixed, prop.name);
  cusparseDestroySpMat(c.A);
  cusparseDestroyDnVec(c.vp);
  cusparseDestroyDnVec(c.vax);
  cusparseDestroy(c.sp);
  cublasDestroy(c.bl);
  for (int k = 0; k < 5; k++)
    cudaFree(*vecs[k]);
  cudaFree(c.buf);
  cudaFree(drp), cudaFree(dci), cudaFree(dv);
  free(hb), free(hx), free(ones), free(hax);
  smv_csr_free(A);
  return 0;
}
