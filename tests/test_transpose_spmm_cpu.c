/* test_transpose_spmm_cpu.c — the host CSR transpose, y = alpha*A^T*x +
 * beta*y on the CPU (reference and OpenMP path) and the CPU SpMM
 * (reference and OpenMP path), row- and column-major, with leading
 * dimensions wider than the data. Every result is checked against the
 * serial SpMV reference (bench/verify.c's bound) column by column. */
#include "test_spmm_common.h"

static const char *const shapes[] = {"diag:1",
                                     "empty:5:7",
                                     "empty:0:3",
                                     "band:200:3",
                                     "rand:300:7",
                                     "plaw:3000:6",
                                     "denserow:300:3,cols=2500",
                                     "rand:500:9,cols=70",
                                     "rand:40:20,cols=900",
                                     "lap3d:12"};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

/* A^T^T == A exactly, A^T's shape, and A^T(j, i) == A(i, j). */
static void test_transpose_structure(void) {
  for (size_t s = 0; s < NSHAPES; s++) {
    smv_csr *A = NULL, *T = NULL, *TT = NULL;
    CHECK_OK(smv_generate(shapes[s], &A, NULL));
    if (!A)
      continue;
    CHECK_OK(smv_csr_transpose(A, &T));
    CHECK_OK(smv_csr_transpose(T, &TT));
    if (T && TT) {
      CHECK_INT(T->rows, A->cols);
      CHECK_INT(T->cols, A->rows);
      CHECK_INT(T->nnz, A->nnz);
      CHECK_OK(smv_csr_check(T, NULL));
      CHECK(T->sorted == A->sorted);
      CHECK_INT(TT->rows, A->rows);
      CHECK(memcmp(TT->row_ptr, A->row_ptr,
                   ((size_t)A->rows + 1) * sizeof *A->row_ptr) == 0);
      CHECK(A->nnz == 0 || memcmp(TT->col_idx, A->col_idx,
                                  (size_t)A->nnz * sizeof *A->col_idx) == 0);
      CHECK(A->nnz == 0 || memcmp(TT->values, A->values,
                                  (size_t)A->nnz * sizeof *A->values) == 0);
      /* Spot-check entries: A(i, j) appears in row j of A^T as column i. */
      for (int64_t i = 0; i < A->rows; i += 7)
        for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
          int64_t j = A->col_idx[e], found = 0;
          for (int64_t f = T->row_ptr[j]; f < T->row_ptr[j + 1]; f++)
            if (T->col_idx[f] == i && T->values[f] == A->values[e])
              found = 1;
          CHECKF(found, "%s: A(%lld,%lld) missing in A^T", shapes[s],
                 (long long)i, (long long)j);
        }
    }
    smv_csr_free(A), smv_csr_free(T), smv_csr_free(TT);
  }
}

static void test_transpose_bad(void) {
  smv_csr *A = NULL, *T = (smv_csr *)1;
  CHECK_STATUS(smv_csr_transpose(NULL, &T), SMV_ERR_ARG);
  CHECK(T == NULL);
  CHECK_OK(smv_generate("rand:20:3", &A, NULL));
  CHECK_STATUS(smv_csr_transpose(A, NULL), SMV_ERR_ARG);
  A->col_idx[5] = A->cols; /* out of range: refused, never written past */
  CHECK_STATUS(smv_csr_transpose(A, &T), SMV_ERR_INVALID_MATRIX);
  CHECK(T == NULL);
  double x[20], y[20];
  tc_fill(x, 20), tc_fill(y, 20);
  CHECK_STATUS(smv_spmv_cpu_t(A, 1.0, x, 0.0, y), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_ref_t(A, 1.0, x, 0.0, y), SMV_ERR_INVALID_MATRIX);
  A->col_idx[5] = 0;
  CHECK_STATUS(smv_spmv_cpu_t(A, 1.0, NULL, 0.0, y), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu_t(A, 1.0, x, 0.0, NULL), SMV_ERR_ARG);
  smv_csr_free(A);
}

/* y = alpha*A^T*x + beta*y: the reference is bit-identical to the SpMV
 * reference on A^T; the OpenMP path is within the bound, and the same on
 * a second run (deterministic). */
static void test_spmv_t(void) {
  const double ab[][2] = {{1, 0}, {-0.75, 1.5}, {0, 2}, {2, 1}};
  for (size_t s = 0; s < NSHAPES; s++) {
    smv_csr *A = NULL, *T = NULL;
    CHECK_OK(smv_generate(shapes[s], &A, NULL));
    CHECK_OK(smv_csr_transpose(A, &T));
    if (!A || !T) {
      smv_csr_free(A), smv_csr_free(T);
      continue;
    }
    const int64_t m = A->rows, n = A->cols;
    double *x = malloc((m + 1) * sizeof *x), *y0 = malloc((n + 1) * sizeof *x);
    double *y1 = malloc((n + 1) * sizeof *x), *y2 = malloc((n + 1) * sizeof *x);
    double *y3 = malloc((n + 1) * sizeof *x);
    for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
      const double alpha = ab[c][0], beta = ab[c][1];
      tc_fill_inputs(x, m, alpha, y0, n, beta);
      memcpy(y1, y0, n * sizeof *x), memcpy(y2, y0, n * sizeof *x);
      memcpy(y3, y0, n * sizeof *x);
      CHECK_OK(smv_spmv_ref_t(A, alpha, x, beta, y1));
      CHECK_OK(smv_spmv_ref(T, alpha, x, beta, y2));
      CHECKF(n == 0 || memcmp(y1, y2, n * sizeof *x) == 0,
             "%s: ref_t differs from ref on A^T", shapes[s]);
      memcpy(y2, y0, n * sizeof *x);
      CHECK_OK(smv_spmv_cpu_t(A, alpha, x, beta, y2));
      CHECK_OK(smv_spmv_cpu_t(A, alpha, x, beta, y3));
      CHECK(n == 0 || memcmp(y2, y3, n * sizeof *x) == 0);
      char what[128];
      snprintf(what, sizeof what, "%s cpu_t alpha=%g beta=%g", shapes[s], alpha,
               beta);
      CHECK_INT(tc_verify(T, 0, alpha, x, beta, y0, y2, what), 0);
    }
    free(x), free(y0), free(y1), free(y2), free(y3);
    smv_csr_free(A), smv_csr_free(T);
  }
}

/* The parallel path of the scatter (several parts) on a matrix large
 * enough, with a row spanning parts. */
static void test_spmv_t_parallel(void) {
  smv_csr *A = NULL, *T = NULL;
  CHECK_OK(smv_generate("plaw:200000:6", &A, NULL));
  CHECK_OK(smv_csr_transpose(A, &T));
  if (A && T) {
    double *x = malloc(A->rows * sizeof *x), *y0 = malloc(A->cols * sizeof *x);
    double *y = malloc(A->cols * sizeof *x);
    tc_fill(x, A->rows), tc_fill(y0, A->cols);
    memcpy(y, y0, A->cols * sizeof *x);
    CHECK_OK(smv_spmv_cpu_t(A, 1.25, x, -0.5, y));
    CHECK_INT(tc_verify(T, 0, 1.25, x, -0.5, y0, y, "plaw cpu_t"), 0);
    free(x), free(y0), free(y);
  }
  smv_csr_free(A), smv_csr_free(T);
}

static void test_spmm(void) {
  const int ks[] = {1, 2, 3, 4, 7, 16, 33, 64, 70};
  const double ab[][2] = {{1, 0}, {-0.5, 2}, {0, 1.5}};
  for (size_t s = 0; s < NSHAPES; s++) {
    smv_csr *A = tst_generate(shapes[s]);
    if (!A)
      continue;
    for (int lay = 0; lay < 2; lay++)
      for (size_t ki = 0; ki < sizeof ks / sizeof ks[0]; ki++)
        for (size_t c = 0; c < sizeof ab / sizeof ab[0]; c++) {
          const smv_layout L = (smv_layout)lay;
          const int k = ks[ki];
          const double alpha = ab[c][0], beta = ab[c][1];
          const int pad = (int)(ki % 3); /* ld wider than the data */
          const int64_t ldx =
              (L == SMV_LAYOUT_ROW_MAJOR ? k : (A->cols ? A->cols : 1)) + pad;
          const int64_t ldy =
              (L == SMV_LAYOUT_ROW_MAJOR ? k : (A->rows ? A->rows : 1)) + pad;
          const size_t nx = tc_dense_len(A->cols, k, ldx, L);
          const size_t ny = tc_dense_len(A->rows, k, ldy, L);
          double *X = malloc(nx * sizeof *X), *Y0 = malloc(ny * sizeof *X);
          double *Y1 = malloc(ny * sizeof *X), *Y2 = malloc(ny * sizeof *X);
          tc_fill_inputs(X, nx, alpha, Y0, ny, beta);
          /* The gaps between columns hold a sentinel that must survive. */
          if (pad)
            for (size_t i = 0; i < ny; i++) {
              int64_t in = (int64_t)i % ldy; /* column (row-major) or row */
              int64_t lim = L == SMV_LAYOUT_ROW_MAJOR ? k : A->rows;
              if (in >= lim)
                Y0[i] = 12345.0;
            }
          memcpy(Y1, Y0, ny * sizeof *X), memcpy(Y2, Y0, ny * sizeof *X);
          char label[160];
          snprintf(label, sizeof label, "%s k=%d %s ld+%d alpha=%g beta=%g",
                   shapes[s], k, lay ? "col" : "row", pad, alpha, beta);
          CHECK_OK(smv_spmm_ref(A, alpha, X, ldx, beta, Y1, ldy, k, L));
          CHECK_OK(smv_spmm_cpu(A, alpha, X, ldx, beta, Y2, ldy, k, L));
          /* Same order of additions as the reference: identical. */
          CHECKF(memcmp(Y1, Y2, ny * sizeof *X) == 0, "%s: cpu != ref", label);
          CHECK_INT(
              check_spmm(A, 0, alpha, X, ldx, beta, Y0, Y2, ldy, k, L, label),
              0);
          for (size_t i = 0; pad && i < ny; i++)
            if (Y0[i] == 12345.0)
              CHECKF(Y2[i] == 12345.0, "%s: gap %zu overwritten", label, i);
          free(X), free(Y0), free(Y1), free(Y2);
        }
    smv_csr_free(A);
  }
}

static void test_spmm_bad(void) {
  smv_csr *A = tst_generate("rand:30:4,cols=20");
  double X[20 * 4], Y[30 * 4];
  tc_fill(X, 80), tc_fill(Y, 120);
  CHECK_STATUS(smv_spmm_cpu(A, 1, X, 3, 0, Y, 4, 4, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_DIM);
  CHECK_STATUS(smv_spmm_cpu(A, 1, X, 20, 0, Y, 29, 4, SMV_LAYOUT_COL_MAJOR),
               SMV_ERR_DIM);
  CHECK_STATUS(smv_spmm_cpu(A, 1, X, 4, 0, Y, 4, -1, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_cpu(A, 1, X, 4, 0, Y, 4, 4, (smv_layout)7),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_cpu(A, 1, NULL, 4, 0, Y, 4, 4, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_ref(A, 1, X, 4, 0, NULL, 4, 4, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_cpu(NULL, 1, X, 4, 0, Y, 4, 4, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  /* k = 0 is a no-op that touches nothing. */
  CHECK_OK(smv_spmm_cpu(A, 1, NULL, 1, 0, Y, 1, 0, SMV_LAYOUT_ROW_MAJOR));
  smv_spmm_alg a = SMV_SPMM_AUTO;
  CHECK_OK(smv_spmm_alg_parse("cusparse-alg2", &a));
  CHECK_INT(a, SMV_SPMM_CUSPARSE_ALG2);
  CHECK_STATUS(smv_spmm_alg_parse("nope", &a), SMV_ERR_NOT_FOUND);
  CHECK(smv_spmm_alg_name(SMV_SPMM_ALG_COUNT) == NULL);
  CHECK(strcmp(smv_spmm_alg_name(SMV_SPMM_OURS), "ours") == 0);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_transpose_structure);
  RUN(test_transpose_bad);
  RUN(test_spmv_t);
  RUN(test_spmv_t_parallel);
  RUN(test_spmm);
  RUN(test_spmm_bad);
  return TEST_END();
}
