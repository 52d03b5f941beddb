/* test_stats.c — smv_csr_stats on hand-made matrices whose statistics are
 * worked out by hand in the comments. */
#include "smv.h"
#include "test.h"

/* A matrix with the given row lengths; row i holds columns
 * first_col(i) .. first_col(i) + len - 1 where first_col = max(0, i - 1),
 * so diagonal and bandwidth are predictable (values 1, 2, ...). */
static smv_csr *with_lengths(const int *len, int rows, int cols) {
  return tst_csr_lengths(rows, cols, len, NULL);
}

/* Rows of lengths 0 1 2 3 4 5 8 0 in an 8 x 13 matrix (see test_lengths),
 * checked, with their stats in *s; NULL if it could not be made. */
static smv_csr *eight_rows(smv_stats *s) {
  const int len[] = {0, 1, 2, 3, 4, 5, 8, 0};
  smv_csr *A = with_lengths(len, 8, 13);
  CHECK(A != NULL);
  if (A) {
    CHECK_OK(smv_csr_check(A, NULL));
    CHECK_OK(smv_csr_stats(A, s));
  }
  return A;
}

static void test_lengths(void) {
  /* lengths 0 1 2 3 4 5 8 0 in an 8 x 13 matrix:
   *   nnz 23, min 0, max 8, mean 23/8 = 2.875,
   *   squares: 8.265625 3.515625 0.765625 0.015625 1.265625 4.515625
   *            26.265625 8.265625 -> sum 52.875, variance 6.609375,
   *   stddev sqrt(6.609375); empty 2;
   *   hist: bin0 = 2 (two zeros), bin1 = {1}, bin2 = {2,3}, bin3 = {4,5},
   *   bin4 = {8}. */
  smv_stats s;
  smv_csr *A = eight_rows(&s);
  if (!A)
    return;
  CHECK_INT(s.rows, 8);
  CHECK_INT(s.cols, 13);
  CHECK_INT(s.nnz, 23);
  CHECK_INT(s.row_min, 0);
  CHECK_INT(s.row_max, 8);
  CHECK_NEAR(s.row_mean, 2.875, 1e-15);
  CHECK_NEAR(s.row_stddev, sqrt(6.609375), 1e-14);
  CHECK_INT(s.empty_rows, 2);
  CHECK_INT(s.hist[0], 2);
  CHECK_INT(s.hist[1], 1);
  CHECK_INT(s.hist[2], 2);
  CHECK_INT(s.hist[3], 2);
  CHECK_INT(s.hist[4], 1);
  int64_t total = 0;
  for (int b = 0; b < SMV_HIST_BINS; b++)
    total += s.hist[b];
  CHECK_INT(total, 8);
  smv_csr_free(A);
}

static void test_diag_bandwidth(void) {
  smv_stats s;
  smv_csr *A = eight_rows(&s);
  if (!A)
    return;
  /* Row i covers i-1 .. i-2+len (row 0 from 0): the diagonal is stored in
   * rows with len >= 2 (i >= 1) -> rows 2,3,4,5,6 = 5; row 1 has only
   * column 0 (no diagonal); rows 0 and 7 empty. */
  CHECK_INT(s.diag_entries, 5);
  /* max |i-j|: row 6 reaches column 5 + 7 = 12 -> 6; row 5: 4..8 -> 3. */
  CHECK_INT(s.bandwidth, 6);
  smv_csr_free(A);
}

static void test_generated(void) {
  smv_csr *A = NULL;
  smv_stats s;
  /* lap2d:10: rows 100, 4 corners of 3, 32 edges of 4, 64 interior of 5. */
  CHECK_OK(smv_generate("lap2d:10", &A, NULL));
  CHECK_OK(smv_csr_stats(A, &s));
  CHECK_INT(s.nnz, 460);
  CHECK_INT(s.row_min, 3);
  CHECK_INT(s.row_max, 5);
  CHECK_NEAR(s.row_mean, 4.6, 1e-15);
  CHECK_INT(s.hist[2], 4);  /* length 3 */
  CHECK_INT(s.hist[3], 96); /* lengths 4..7 */
  CHECK_INT(s.diag_entries, 100);
  CHECK_INT(s.bandwidth, 10);
  CHECK_INT(s.empty_rows, 0);
  smv_csr_free(A);
  CHECK_OK(smv_generate("denserow:101:3", &A, NULL));
  CHECK_OK(smv_csr_stats(A, &s));
  CHECK_INT(s.row_max, 101);
  CHECK_INT(s.row_min, 3);
  CHECK_INT(s.hist[7], 1); /* 101 in [64, 128) */
  CHECK_INT(s.hist[2], 100);
  smv_csr_free(A);
}

static void test_degenerate(void) {
  smv_csr *A = NULL;
  smv_stats s;
  CHECK_OK(smv_csr_create(0, 5, 0, &A));
  CHECK_OK(smv_csr_stats(A, &s));
  CHECK_INT(s.rows, 0);
  CHECK_INT(s.cols, 5);
  CHECK_INT(s.nnz, 0);
  CHECK_INT(s.row_min, 0);
  CHECK_INT(s.row_max, 0);
  CHECK(s.row_mean == 0.0 && s.row_stddev == 0.0);
  smv_csr_free(A);
  CHECK_OK(smv_generate("empty:6:3", &A, NULL));
  CHECK_OK(smv_csr_stats(A, &s));
  CHECK_INT(s.empty_rows, 6);
  CHECK_INT(s.hist[0], 6);
  CHECK_INT(s.row_max, 0);
  CHECK_INT(s.bandwidth, 0);
  CHECK_INT(s.diag_entries, 0);
  smv_csr_free(A);
  CHECK_OK(smv_generate("diag:1", &A, NULL)); /* 1 x 1 */
  CHECK_OK(smv_csr_stats(A, &s));
  CHECK_INT(s.nnz, 1);
  CHECK_INT(s.row_min, 1);
  CHECK_INT(s.diag_entries, 1);
  CHECK_INT(s.hist[1], 1);
  CHECK_STATUS(smv_csr_stats(NULL, &s), SMV_ERR_ARG);
  CHECK_STATUS(smv_csr_stats(A, NULL), SMV_ERR_ARG);
  smv_csr_free(A);
}

static void test_inconsistent(void) {
  smv_csr *A = NULL;
  smv_stats s;
  CHECK_OK(smv_csr_create(2, 2, 2, &A));
  A->row_ptr[1] = 2;
  A->row_ptr[2] = 1; /* decreasing */
  A->col_idx[0] = 0;
  A->col_idx[1] = 1;
  CHECK_STATUS(smv_csr_stats(A, &s), SMV_ERR_INVALID_MATRIX);
  smv_csr_free(A);
  /* row_ptr shifted by -1: the one row's length still sums to nnz, but its
   * entries would start at col_idx[-1]. */
  CHECK_OK(smv_csr_create(1, 2, 2, &A));
  A->row_ptr[0] = -1;
  A->row_ptr[1] = 1;
  A->col_idx[0] = 0;
  A->col_idx[1] = 1;
  CHECK_STATUS(smv_csr_stats(A, &s), SMV_ERR_INVALID_MATRIX);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_lengths);
  RUN(test_diag_bandwidth);
  RUN(test_generated);
  RUN(test_degenerate);
  RUN(test_inconsistent);
  return TEST_END();
}
