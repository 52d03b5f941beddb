/*
 * test_spmm_common.h — what the SpMM tests (CPU and device) share: the
 * check of a k-column result, column by column, against the SpMV reference
 * with bench/verify.c's bound (tc_verify), and the length of a dense
 * operand with a leading dimension.
 */
#ifndef SMV_TEST_SPMM_COMMON_H
#define SMV_TEST_SPMM_COMMON_H

#include "test_cuda_common.h"

/* Column c of an SpMM result against the SpMV reference of column c. */
static inline int64_t check_spmm(const smv_csr *A, int f32, double alpha,
                                 const double *X, int64_t ldx, double beta,
                                 const double *Y0, const double *Y, int64_t ldy,
                                 int k, smv_layout lay, const char *label) {
  const int64_t m = A->rows, n = A->cols;
  const int row = lay == SMV_LAYOUT_ROW_MAJOR;
  double *x = malloc((n + 1) * sizeof *x), *y0 = malloc((m + 1) * sizeof *x);
  double *y = malloc((m + 1) * sizeof *x);
  int64_t bad = 0;
  for (int c = 0; c < k && !bad; c++) {
    for (int64_t j = 0; j < n; j++)
      x[j] = X[row ? j * ldx + c : c * ldx + j];
    for (int64_t i = 0; i < m; i++) {
      y0[i] = Y0[row ? i * ldy + c : c * ldy + i];
      y[i] = Y[row ? i * ldy + c : c * ldy + i];
    }
    char what[300];
    snprintf(what, sizeof what, "%.200s column %d of %d", label, c, k);
    bad += tc_verify(A, f32, alpha, x, beta, y0, y, what);
  }
  free(x), free(y0), free(y);
  return bad;
}

/* Size of a dense operand of `r` rows, k columns, leading dimension ld. */
static inline size_t tc_dense_len(int64_t r, int k, int64_t ld,
                                  smv_layout lay) {
  if (r == 0 || k == 0)
    return 1;
  return lay == SMV_LAYOUT_ROW_MAJOR ? (size_t)((r - 1) * ld + k)
                                     : (size_t)((k - 1) * ld + r);
}

#endif
