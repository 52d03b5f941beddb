/* stats.c — per-matrix statistics: shape, row-length distribution (what
 * decides which SpMV kernel wins), diagonal entries and bandwidth. Two
 * passes over row_ptr (lengths, then the exact variance) and one over
 * col_idx. */
#include "internal.h"

#include <math.h>
#include <string.h>

/* Histogram bin of a row length: 0 for empty rows, b > 0 for lengths in
 * [2^(b-1), 2^b). Lengths fit 31 bits, so b <= 32 < SMV_HIST_BINS. */
static int hist_bin(int64_t len) {
  int b = 0;
  while (len > 0) {
    b++;
    len >>= 1;
  }
  return b;
}

smv_status smv_csr_stats(const smv_csr *A, smv_stats *s) {
  if (!A || !s || !A->row_ptr || A->rows < 0 || A->cols < 0 ||
      (A->nnz > 0 && !A->col_idx))
    return SMV_ERR_ARG;
  memset(s, 0, sizeof *s);
  s->rows = A->rows;
  s->cols = A->cols;
  s->nnz = A->nnz;
  /* With row_ptr[0] = 0, non-negative lengths summing to nnz keep every
   * entry index below in [0, nnz). */
  if (A->row_ptr[0] != 0 || A->nnz < 0)
    return SMV_ERR_INVALID_MATRIX;
  if (A->rows == 0)
    return A->nnz == 0 ? SMV_OK : SMV_ERR_INVALID_MATRIX;
  s->row_min = INT64_MAX;
  /* The row lengths are integers: their sum is exact in int64. */
  int64_t total = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
    if (len < 0)
      return SMV_ERR_INVALID_MATRIX;
    total += len;
    if (len < s->row_min)
      s->row_min = len;
    if (len > s->row_max)
      s->row_max = len;
    if (len == 0)
      s->empty_rows++;
    s->hist[hist_bin(len)]++;
  }
  if (total != A->nnz)
    return SMV_ERR_INVALID_MATRIX;
  s->row_mean = (double)total / (double)A->rows;
  /* Variance from integers, exact up to the final roundings: with
   * q = total / rows, r = total % rows, mean = q + r/rows, and
   *   sum (L - mean)^2 = sum (L - q)^2 - r^2 / rows.
   * sum (L - q)^2 <= sum L^2 + rows q^2 <= 2 * 2^31 * nnz <= 2^63 fits in
   * uint64. A floating-point pass would lose ~1e-12 relative over millions
   * of rows. */
  const int64_t q = total / A->rows, r = total % A->rows;
  uint64_t ssq = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t d = (int64_t)(A->row_ptr[i + 1] - A->row_ptr[i]) - q;
    ssq += (uint64_t)(d * d);
  }
  double ss = (double)ssq - (double)r * ((double)r / (double)A->rows);
  /* Population standard deviation: the rows are the whole matrix, not a
   * sample of it. */
  s->row_stddev = ss > 0 ? sqrt(ss / (double)A->rows) : 0.0;
  for (int64_t i = 0; i < A->rows; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int64_t d = (int64_t)A->col_idx[k] - i;
      if (d == 0)
        s->diag_entries++;
      if (d < 0)
        d = -d;
      if (d > s->bandwidth)
        s->bandwidth = d;
    }
  }
  return SMV_OK;
}
