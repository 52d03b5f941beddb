/*
 * test_spmm_common.h — what the SpMM tests (CPU and device) share: the
 * check of a k-column result, column by column, against the SpMV reference
 * with bench/verify.c's bound (tc_verify), the length of a dense operand
 * with a leading dimension, and one SpMM case run on the device and
 * checked (spmm_case).
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

/* One SpMM case on the device (device pointers, or smv_spmm_host).
 * Returns 0 on success or when an algorithm refuses the combination with
 * SMV_ERR_UNSUPPORTED (*unsupported set), else the number of bad columns
 * / 1 for a failure. shift: X and Y start that many elements into their
 * device allocations (1: not 16-byte aligned; device pointers only). */
static inline int64_t spmm_case_at(smv_context *ctx, smv_matrix *dA,
                                   const smv_csr *A, smv_spmm_alg alg, int k,
                                   smv_layout L, int pad, double alpha,
                                   double beta, int host, int shift,
                                   int *unsupported) {
  const int f32 = smv_matrix_precision(dA) == SMV_F32;
  const size_t es = f32 ? 4 : 8;
  const int row = L == SMV_LAYOUT_ROW_MAJOR;
  const int64_t ldx = (row ? k : (A->cols ? A->cols : 1)) + pad;
  const int64_t ldy = (row ? k : (A->rows ? A->rows : 1)) + pad;
  const size_t nx = tc_dense_len(A->cols, k, ldx, L);
  const size_t ny = tc_dense_len(A->rows, k, ldy, L);
  double *X = malloc(nx * sizeof *X), *Y0 = malloc(ny * sizeof *X);
  double *Y = malloc(ny * sizeof *X);
  tc_fill_inputs(X, nx, alpha, Y0, ny, beta);
  for (size_t i = 0; pad && i < ny; i++)
    if ((int64_t)i % ldy >= (row ? k : A->rows))
      Y0[i] = 12345.0; /* a gap: never written */
  memcpy(Y, Y0, ny * sizeof *X);
  smv_status st;
  if (host) {
    st = smv_spmm_host(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k, L);
  } else {
    void *dx = NULL, *dy = NULL;
    st = smv_device_malloc(ctx, (nx + shift) * es, &dx);
    if (st == SMV_OK)
      st = smv_device_malloc(ctx, (ny + shift) * es, &dy);
    char *sx = dx ? (char *)dx + shift * es : NULL;
    char *sy = dy ? (char *)dy + shift * es : NULL;
    if (st == SMV_OK)
      st = tc_upload(ctx, f32, X, (int64_t)nx, sx);
    if (st == SMV_OK)
      st = tc_upload(ctx, f32, Y0, (int64_t)ny, sy);
    if (st == SMV_OK)
      st = smv_spmm(ctx, alg, alpha, dA, sx, ldx, beta, sy, ldy, k, L);
    if (st == SMV_OK)
      st = smv_synchronize(ctx);
    tc_fill_nan(Y, ny);
    if (st == SMV_OK)
      st = tc_download(ctx, f32, sy, (int64_t)ny, Y);
    smv_device_free(ctx, dx), smv_device_free(ctx, dy);
  }
  char label[200];
  snprintf(label, sizeof label,
           "%lldx%lld %s k=%d %s ld+%d %s a=%g b=%g %s shift %d",
           (long long)A->rows, (long long)A->cols, smv_spmm_alg_name(alg), k,
           row ? "row" : "col", pad, f32 ? "f32" : "f64", alpha, beta,
           host ? "host" : "device", shift);
  int64_t bad = 0;
  if (st == SMV_ERR_UNSUPPORTED && alg >= SMV_SPMM_CUSPARSE_ALG1) {
    *unsupported = 1;
  } else if (st != SMV_OK) {
    fprintf(stderr, "%s: %s: %s\n", label, smv_status_string(st),
            smv_context_error(ctx));
    bad = 1;
  } else {
    bad = check_spmm(A, f32, alpha, X, ldx, beta, Y0, Y, ldy, k, L, label);
    for (size_t i = 0; pad && i < ny; i++)
      if (Y0[i] == 12345.0 && Y[i] != 12345.0) {
        fprintf(stderr, "%s: gap %zu overwritten\n", label, i);
        bad++;
        break;
      }
  }
  free(X), free(Y0), free(Y);
  return bad;
}

static inline int64_t spmm_case(smv_context *ctx, smv_matrix *dA,
                                const smv_csr *A, smv_spmm_alg alg, int k,
                                smv_layout L, int pad, double alpha,
                                double beta, int host, int *unsupported) {
  return spmm_case_at(ctx, dA, A, alg, k, L, pad, alpha, beta, host, 0,
                      unsupported);
}

#endif
