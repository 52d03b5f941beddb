/* cusparse_common.h — what the two cuSPARSE + cuBLAS CG programs share
 * (cg_cusparse.c, the host loop; cg_graph.cu, the graph-captured anchor):
 * error checks that exit with file and line, their command line, the
 * matrix on the device, the true residual of b = A*ones, the timed runs
 * and the RESULT line. Valid C11 and
 * C++ (nvcc compiles cg_graph.cu as C++). Include after smv.h and the
 * CUDA headers. The checks exit: these are benchmark programs. */
#ifndef SMV_SOLVERS_CUSPARSE_COMMON_H
#define SMV_SOLVERS_CUSPARSE_COMMON_H

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
/* cuBLAS errors print as their status number. */
static inline const char *cublas_text(cublasStatus_t s) {
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

/* MATRIX [--tol T] [--maxit N] [--runs R] [--fixed N]: 0, or 2 after the
 * usage line (the caller returns it). */
static inline int cg_args(int argc, char **argv, const char *prog,
                          const char **matrix, double *tol, int *maxit,
                          int *runs, int *fixed) {
  *matrix = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tol") && i + 1 < argc)
      *tol = atof(argv[++i]);
    else if (!strcmp(argv[i], "--maxit") && i + 1 < argc)
      *maxit = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
      *runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--fixed") && i + 1 < argc)
      *fixed = atoi(argv[++i]);
    else if (argv[i][0] != '-' && !*matrix)
      *matrix = argv[i];
    else {
      *matrix = NULL;
      break;
    }
  }
  if (!*matrix || *runs < 1 || *runs > 100 || *fixed < 1) {
    fprintf(stderr,
            "usage: %s MATRIX [--tol T] [--maxit N] [--runs R<=100] "
            "[--fixed N>=1]\n",
            prog);
    return 2;
  }
  return 0;
}

/* The problem both programs solve: A (read or generated), b = A*ones on
 * the host, A's CSR arrays on the device and the cuSPARSE descriptors of
 * q = A p (vectors in and out given by the program), with their buffer.
 * hx and hax: n host doubles for x and A x (the true residual). */
struct cg_problem {
  smv_csr *A;
  int n;
  double *hb, *hx, *hax;
  int *rp, *ci;
  double *v;
  cusparseSpMatDescr_t dA;
  cusparseDnVecDescr_t din, dout;
  void *buf;
};

/* Read MATRIX, check it is square, b = A*ones, upload A. 0, or 1 after a
 * message. */
static inline int cg_problem_load(struct cg_problem *P, const char *matrix) {
  memset(P, 0, sizeof *P);
  smv_error err;
  if (smv_load(matrix, NULL, &P->A, &err) != SMV_OK) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  if (P->A->rows != P->A->cols) {
    fprintf(stderr, "%s: not square\n", matrix);
    return 1;
  }
  const size_t n = (size_t)P->A->rows, nnz = (size_t)P->A->nnz;
  P->n = (int)n;
  P->hb = (double *)malloc((n + 1) * sizeof(double));
  P->hx = (double *)malloc((n + 1) * sizeof(double));
  P->hax = (double *)malloc((n + 1) * sizeof(double));
  if (!P->hb || !P->hx || !P->hax) {
    fprintf(stderr, "out of host memory\n");
    return 1;
  }
  for (size_t i = 0; i < n; i++)
    P->hx[i] = 1.0;
  smv_spmv_ref(P->A, 1.0, P->hx, 0.0, P->hb);
  CK(cudaMalloc((void **)&P->rp, (n + 1) * sizeof(int)));
  CK(cudaMalloc((void **)&P->ci, (nnz + 1) * sizeof(int)));
  CK(cudaMalloc((void **)&P->v, (nnz + 1) * sizeof(double)));
  CK(cudaMemcpy(P->rp, P->A->row_ptr, (n + 1) * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(P->ci, P->A->col_idx, nnz * sizeof(int),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(P->v, P->A->values, nnz * sizeof(double),
                cudaMemcpyHostToDevice));
  return 0;
}

/* The descriptors of out = A in (default algorithm) and its buffer. */
static inline void cg_problem_spmv(struct cg_problem *P, cusparseHandle_t sp,
                                   double *in, double *out) {
  const double one = 1.0, zero = 0.0;
  size_t bytes = 0;
  CKS(cusparseCreateCsr(&P->dA, P->n, P->n, P->A->nnz, P->rp, P->ci, P->v,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&P->din, P->n, in, CUDA_R_64F));
  CKS(cusparseCreateDnVec(&P->dout, P->n, out, CUDA_R_64F));
  CKS(cusparseSpMV_bufferSize(sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, P->dA,
                              P->din, &zero, P->dout, CUDA_R_64F,
                              CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  CK(cudaMalloc(&P->buf, bytes ? bytes : 1));
}

static inline void cg_problem_free(struct cg_problem *P) {
  cusparseDestroySpMat(P->dA);
  cusparseDestroyDnVec(P->din);
  cusparseDestroyDnVec(P->dout);
  cudaFree(P->buf);
  cudaFree(P->rp), cudaFree(P->ci), cudaFree(P->v);
  free(P->hb), free(P->hx), free(P->hax);
  smv_csr_free(P->A);
}

/* ||b - A x|| / ||b|| in double on the host for the device's x. */
static inline double cg_problem_true_relres(struct cg_problem *P,
                                            const double *dx) {
  const smv_csr *A = P->A;
  CK(cudaMemcpy(P->hx, dx, (size_t)P->n * sizeof(double),
                cudaMemcpyDeviceToHost));
  smv_spmv_ref(A, 1.0, P->hx, 0.0, P->hax);
  double rr = 0.0, bb = 0.0;
  for (int64_t i = 0; i < A->rows; i++) {
    rr += (P->hb[i] - P->hax[i]) * (P->hb[i] - P->hax[i]);
    bb += P->hb[i] * P->hb[i];
  }
  return sqrt(rr / bb);
}

/* One CG solve of a program: fixed = 0 to tolerance, else exactly `fixed`
 * iterations; returns the iterations, *relres the recurrence's residual;
 * x stays on the device for the caller. */
typedef int (*cg_solve_fn)(void *c, double tol, int maxit, int fixed,
                           double *relres);

/* The median wall time of `runs` calls of f(c, tol, maxit, fixed) (after
 * one untimed warm-up when warm); *its and *relres from the last call. */
static inline double cg_median(cg_solve_fn f, void *c, double tol, int maxit,
                               int fixed, int runs, int warm, int *its,
                               double *relres) {
  double t[100];
  if (warm)
    f(c, tol, maxit, fixed, relres);
  for (int k = 0; k < runs; k++) {
    const double t0 = now_s();
    *its = f(c, tol, maxit, fixed, relres);
    t[k] = now_s() - t0;
  }
  qsort(t, runs, sizeof t[0], cmp_d);
  return t[runs / 2];
}

/* The RESULT line of one program (impl) on one matrix: tts and tfix in
 * seconds (fixed iterations); check PASS when the solve converged within
 * maxit to a true residual of at most 10 tol. 0 or 3 (FAIL), the exit
 * status. */
static inline int cg_report(const char *impl, const char *matrix,
                            const smv_csr *A, int its, int maxit, double tol,
                            double relres, double true_res, double tts,
                            double tfix, int fixed) {
  struct cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int pass = its < maxit && true_res <= 10 * tol;
  printf("RESULT impl=%s matrix=%s n=%lld nnz=%lld its=%d relres=%.3e "
         "true=%.3e tts_ms=%.4f iter_us=%.3f fixed_iter_us=%.3f check=%s "
         "device=\"%s\"\n",
         impl, matrix, (long long)A->rows, (long long)A->nnz, its, relres,
         true_res, tts * 1e3, its ? tts * 1e6 / its : 0.0, tfix * 1e6 / fixed,
         pass ? "PASS" : "FAIL", prop.name);
  return pass ? 0 : 3;
}

/* What both programs measure, in one order: the median time to tolerance
 * (after a warm-up), the true residual of that x (*dx: the device x the
 * solves write), then the median of `fixed` iterations; the RESULT line
 * and its exit status (cg_report). */
static inline int cg_measure(const char *impl, const char *matrix,
                             struct cg_problem *P, cg_solve_fn f, void *c,
                             double *const *dx, double tol, int maxit, int runs,
                             int fixed) {
  double relres = 0.0, fr;
  int its = 0, fits;
  const double tts = cg_median(f, c, tol, maxit, 0, runs, 1, &its, &relres);
  const double true_res = cg_problem_true_relres(P, *dx);
  const double tfix = cg_median(f, c, tol, maxit, fixed, runs, 0, &fits, &fr);
  return cg_report(impl, matrix, P->A, its, maxit, tol, relres, true_res, tts,
                   tfix, fixed);
}

#endif
