/* transpose.c — A^T on the host: the CSR of A^T (= the CSC of A), and
 * y = alpha*A^T*x + beta*y on the CPU without forming it.
 *
 * smv_csr_transpose is a counting sort by column: one pass counts the
 * entries of each column, a prefix sum gives A^T's row offsets, a second
 * pass in A's row order drops every entry into its column's next slot, so
 * the rows of A^T come out with increasing column (= A's row) indices.
 * Memory: (cols + 1) * 4 + nnz * 12 bytes, the size of the result.
 *
 * smv_spmv_ref_t is the serial oracle: it adds each column's products in
 * increasing row order, exactly the order smv_spmv_ref uses on
 * smv_csr_transpose(A), so the two agree bit for bit.
 *
 * smv_spmv_cpu_t scatters without atomics: the rows are split into P parts
 * of about equal entries, part p accumulates into its own buffer of cols
 * sums, and the buffers are added per column in part order. P depends only
 * on the matrix's size (never on the thread count), so the result is the
 * same on every run and every machine. Extra memory: P * cols * 8 bytes,
 * with P <= 16, one part per 64K entries, and P * cols <= 2 * nnz + cols
 * (a wide, sparse matrix gets fewer parts rather than huge buffers). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

smv_status smv_csr_transpose(const smv_csr *A, smv_csr **AT) {
  if (!AT)
    return SMV_ERR_ARG;
  *AT = NULL;
  smv_status st = smv_csr_offsets_check(A);
  if (st != SMV_OK)
    return st;
  smv_csr *T = NULL;
  st = smv_csr_create(A->cols, A->rows, A->nnz, &T);
  if (st != SMV_OK)
    return st;
  /* Count, into row_ptr[c + 1]; indices are checked as they are counted. */
  for (int64_t k = 0; k < A->nnz; k++) {
    smv_index c = A->col_idx[k];
    if (c < 0 || c >= A->cols) {
      smv_csr_free(T);
      return SMV_ERR_INVALID_MATRIX;
    }
    T->row_ptr[c + 1]++;
  }
  for (int64_t c = 0; c < A->cols; c++)
    T->row_ptr[c + 1] += T->row_ptr[c];
  /* Scatter in row order; next[c] walks column c's slots. */
  smv_offset *next = malloc(((size_t)A->cols + 1) * sizeof *next);
  if (!next) {
    smv_csr_free(T);
    return SMV_ERR_NOMEM;
  }
  memcpy(next, T->row_ptr, ((size_t)A->cols + 1) * sizeof *next);
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      smv_offset dst = next[A->col_idx[k]]++;
      T->col_idx[dst] = (smv_index)i;
      T->values[dst] = A->values[k];
    }
  free(next);
  /* Rows of A^T list A's row indices in increasing order; they are unique
   * when A's rows had unique columns. */
  T->sorted = A->sorted;
  T->field = A->field;
  T->symmetry = A->symmetry;
  T->format = A->format;
  *AT = T;
  return SMV_OK;
}

/* Pointers, offsets and no x/y overlap, as smv_spmv_cpu checks:
 * x has rows entries and y cols for A^T. */
static smv_status spmv_t_args(const smv_csr *A, const void *x, const void *y) {
  smv_status st = smv_csr_offsets_check(A);
  if (st != SMV_OK)
    return st;
  if ((A->rows > 0 && !x) || (A->cols > 0 && !y))
    return SMV_ERR_ARG;
  if (smv_overlap(x, (size_t)A->rows * sizeof(double), y,
                  (size_t)A->cols * sizeof(double)))
    return SMV_ERR_ARG;
  return SMV_OK;
}

static void scale_y(int64_t n, double beta, double *y) {
  for (int64_t j = 0; j < n; j++)
    y[j] = beta == 0.0 ? 0.0 : beta * y[j];
}

smv_status smv_spmv_ref_t(const smv_csr *A, double alpha, const double *x,
                          double beta, double *y) {
  smv_status st = spmv_t_args(A, x, y);
  if (st != SMV_OK)
    return st;
  if ((st = smv_csr_check(A, NULL)) != SMV_OK)
    return st;
  if (alpha == 0.0) {
    scale_y(A->cols, beta, y);
    return SMV_OK;
  }
  double *sum = calloc((size_t)A->cols + 1, sizeof *sum);
  if (!sum)
    return SMV_ERR_NOMEM;
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      sum[A->col_idx[k]] += A->values[k] * x[i];
  for (int64_t j = 0; j < A->cols; j++)
    y[j] = beta == 0.0 ? alpha * sum[j] : alpha * sum[j] + beta * y[j];
  free(sum);
  return SMV_OK;
}

/* Parts of the scatter: one per 64K entries, at most 16, and only as many
 * as keep the buffers (parts * cols doubles) within 2 * nnz + cols. */
static int t_parts(const smv_csr *A) {
  int64_t p = A->nnz / 65536;
  if (p > 16)
    p = 16;
  while (p > 1 && p * A->cols > 2 * A->nnz + A->cols)
    p--;
  return p < 1 ? 1 : (int)p;
}

/* First row of part p: the row holding entry nnz * p / parts. */
static int64_t part_row(const smv_csr *A, int p, int parts) {
  int64_t target = A->nnz * p / parts, lo = 0, hi = A->rows;
  while (lo < hi) { /* first row whose end passes target */
    int64_t mid = lo + (hi - lo) / 2;
    if ((int64_t)A->row_ptr[mid + 1] <= target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return p == 0 ? 0 : lo;
}

smv_status smv_spmv_cpu_t(const smv_csr *A, double alpha, const double *x,
                          double beta, double *y) {
  smv_status st = spmv_t_args(A, x, y);
  if (st != SMV_OK)
    return st;
  const int64_t cols = A->cols;
  if (alpha == 0.0 || A->nnz == 0) { /* nothing to add: y = beta*y */
    scale_y(cols, beta, y);
    return SMV_OK;
  }
  const int parts = t_parts(A);
  double *buf = calloc((size_t)parts * (size_t)cols, sizeof *buf);
  if (!buf)
    return SMV_ERR_NOMEM;
  int bad = 0;
#pragma omp parallel for schedule(static, 1) if (parts > 1) reduction(| : bad)
  for (int p = 0; p < parts; p++) {
    double *s = buf + (size_t)p * (size_t)cols;
    int64_t r0 = part_row(A, p, parts);
    int64_t r1 = p + 1 == parts ? A->rows : part_row(A, p + 1, parts);
    for (int64_t i = r0; i < r1; i++)
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        smv_index c = A->col_idx[k];
        if (c < 0 || c >= cols) { /* a scatter must never write outside */
          bad = 1;
          continue;
        }
        s[c] += A->values[k] * x[i];
      }
  }
  if (bad) {
    free(buf);
    return SMV_ERR_INVALID_MATRIX;
  }
#pragma omp parallel for schedule(static) if (cols * parts >= 65536)
  for (int64_t j = 0; j < cols; j++) {
    double sum = buf[j];
    for (int p = 1; p < parts; p++)
      sum += buf[(size_t)p * (size_t)cols + (size_t)j];
    y[j] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[j];
  }
  free(buf);
  return SMV_OK;
}
