/*
 * test_solve_common.h — what the solver tests (test_solve.c, CPU, and
 * test_cuda_solve.c, device) share: generated matrices, the nonsymmetric
 * convection-diffusion matrix, two matrices that are not SPD, b = A*ones,
 * the true residual and the 1% rule for iteration counts. Include after
 * test.h.
 */
#ifndef SMV_TEST_SOLVE_COMMON_H
#define SMV_TEST_SOLVE_COMMON_H

#include "smv.h"
#include "smv_solve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The hand-checked PageRank case's options: damping 1/2, tolerance 1e-14. */
static inline smv_solve_options pagerank_half(void) {
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.damping = 0.5;
  o.tol = 1e-14;
  return o;
}

/* lap2d:N with an upwind convection term: east neighbour -1-c, west -1+c
 * (a nonsymmetric, diagonally dominant M-matrix). */
static inline smv_csr *convdiff(int n, double c) {
  char spec[64];
  snprintf(spec, sizeof spec, "lap2d:%d", n);
  smv_csr *A = tst_generate(spec);
  for (int64_t i = 0; A && i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      if (A->col_idx[k] == i + 1)
        A->values[k] = -1.0 - c;
      else if (A->col_idx[k] == i - 1)
        A->values[k] = -1.0 + c;
    }
  return A;
}

/* band:N:W with symmetric values and a dominant diagonal: SPD. */
static inline smv_csr *spd_band(int n, int w) {
  char spec[64];
  snprintf(spec, sizeof spec, "band:%d:%d", n, w);
  smv_csr *A = tst_generate(spec);
  if (!A)
    return NULL;
  for (int64_t i = 0; i < A->rows; i++) {
    double off = 0.0;
    int64_t dk = -1;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int64_t j = A->col_idx[k];
      if (j == i) {
        dk = k;
        continue;
      }
      int64_t lo = i < j ? i : j, hi = i < j ? j : i;
      double v = -0.5 - 0.5 * (double)((lo * 7 + hi * 13) % 11) / 11.0;
      A->values[k] = v;
      off += fabs(v);
    }
    A->values[dk] = off + 0.5;
  }
  return A;
}

/* Two matrices that are not SPD, for breakdown tests: Ms[0] = -lap2d:n
 * (negative definite), Ms[1] = diag:40 (entries of both signs). 1 when
 * both were made; else 0, with the failure recorded and nothing left to
 * free. */
static inline int not_spd_pair(int n, smv_csr *Ms[2]) {
  char spec[64];
  snprintf(spec, sizeof spec, "lap2d:%d", n);
  Ms[0] = tst_generate(spec);
  Ms[1] = tst_generate("diag:40");
  if (!Ms[0] || !Ms[1]) {
    smv_csr_free(Ms[0]);
    smv_csr_free(Ms[1]);
    return 0;
  }
  for (int64_t k = 0; k < Ms[0]->nnz; k++)
    Ms[0]->values[k] = -Ms[0]->values[k];
  return 1;
}

/* Iteration counts a and b agree within 1% (and one iteration). */
static inline int within_1pct(int a, int b) {
  return abs(a - b) <= 1 + (a > b ? a : b) / 100;
}

/* b = A * ones (the exact solution is all ones). */
static inline double *rhs_ones(const smv_csr *A) {
  double *one = malloc(((size_t)A->cols + 1) * sizeof *one);
  double *b = malloc(((size_t)A->rows + 1) * sizeof *b);
  for (int64_t j = 0; j < A->cols; j++)
    one[j] = 1.0;
  CHECK_OK(smv_spmv_ref(A, 1.0, one, 0.0, b));
  free(one);
  return b;
}

/* ||b - A x|| / ||b|| in double (||b - A x|| when b = 0). */
static inline double true_relres(const smv_csr *A, const double *b,
                                 const double *x) {
  double *ax = malloc(((size_t)A->rows + 1) * sizeof *ax);
  CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, ax));
  double rr = 0.0, bb = 0.0;
  for (int64_t i = 0; i < A->rows; i++) {
    rr += (b[i] - ax[i]) * (b[i] - ax[i]);
    bb += b[i] * b[i];
  }
  free(ax);
  return bb > 0 ? sqrt(rr) / sqrt(bb) : sqrt(rr);
}

#endif
