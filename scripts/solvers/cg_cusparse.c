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

#include "cusparse_common.h"

struct cg {
  int n;
  cusparseHandle_t sp;
  cublasHandle_t bl;
  struct cg_problem *P; /* A, its descriptors (in: p, out: ax) */
  double *b, *x, *r, *p, *ax;
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
    CKS(cusparseSpMV(c->sp, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c->P->dA,
                     c->P->din, &zero, c->P->dout, CUDA_R_64F,
                     CUSPARSE_SPMV_ALG_DEFAULT, c->P->buf));
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

/* cg_run behind cusparse_common.h's cg_solve_fn. */
static int solve(void *c, double tol, int maxit, int fixed, double *relres) {
  return cg_run((struct cg *)c, tol, maxit, fixed, relres);
}

int main(int argc, char **argv) {
  const char *matrix;
  double tol = 1e-8;
  int maxit = 20000, runs = 5, fixed = 1000;
  if (cg_args(argc, argv, "cg_cusparse", &matrix, &tol, &maxit, &runs,
              &fixed) != 0)
    return 2;
  struct cg_problem P;
  if (cg_problem_load(&P, matrix) != 0)
    return 1;
  const int n = P.n;
  struct cg c;
  memset(&c, 0, sizeof c);
  c.n = n;
  c.P = &P;
  double **vecs[5] = {&c.b, &c.x, &c.r, &c.p, &c.ax};
  for (int k = 0; k < 5; k++)
    CK(cudaMalloc((void **)vecs[k], ((size_t)n + 1) * sizeof(double)));
  CK(cudaMemcpy(c.b, P.hb, n * sizeof(double), cudaMemcpyHostToDevice));
  CKS(cusparseCreate(&c.sp));
  CKB(cublasCreate(&c.bl));
  cg_problem_spmv(&P, c.sp, c.p, c.ax);

  /* Warm-up, then timed runs to tolerance, then fixed iterations. */
  const int rc = cg_measure("cusparse+cublas", matrix, &P, solve, &c, &c.x, tol,
                            maxit, runs, fixed);
  cusparseDestroy(c.sp);
  cublasDestroy(c.bl);
  for (int k = 0; k < 5; k++)
    cudaFree(*vecs[k]);
  cg_problem_free(&P);
  return rc;
}
