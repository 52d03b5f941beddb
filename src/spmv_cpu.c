/* spmv_cpu.c — y = alpha*A*x + beta*y on the CPU.
 *
 * smv_spmv_ref is the oracle every other kernel is checked against: serial,
 * one row at a time, accumulating in double, validating the whole matrix
 * first. It is meant to be read and believed, not to be fast.
 *
 * smv_spmv_cpu / smv_spmv_cpu_f32 are the fast path: OpenMP with a static
 * schedule where each thread gets an equal share of the merge path of
 * (row ends, entries) — rows + nnz items split evenly (Merrill and
 * Garland's merge-based CSR decomposition). A thread's range may start or
 * end inside a row, so even a matrix with one row holding half of the
 * entries (denserow, power-law graphs) keeps every thread busy. The partial
 * sum of a row a thread leaves unfinished is a "carry", added in after the
 * parallel region; the thread that finishes the row applies beta, so beta is
 * applied exactly once per row.
 *
 * BLAS semantics everywhere: beta == 0 overwrites y without reading it (NaN
 * or Inf in y never leak); alpha == 0 computes beta*y without touching A or
 * x (NaN in x never leaks). */
#include "internal.h"

#include <math.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Argument checks shared by every entry point: pointers that must exist
 * for the sizes given, and the cheap structural invariant that row_ptr ends
 * at nnz. Column indices are validated only by the reference (O(nnz)). */
static smv_status spmv_args(const smv_csr *A, const void *x, const void *y) {
  smv_status st = smv_csr_cheap_check(A);
  if (st != SMV_OK)
    return st;
  if ((A->cols > 0 && !x) || (A->rows > 0 && !y))
    return SMV_ERR_ARG;
  return SMV_OK;
}

smv_status smv_spmv_ref(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y) {
  smv_status st = spmv_args(A, x, y);
  if (st != SMV_OK)
    return st;
  st = smv_csr_check(A, NULL);
  if (st != SMV_OK)
    return st;
  if (alpha == 0.0) {
    for (int64_t i = 0; i < A->rows; i++)
      y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    return SMV_OK;
  }
  for (int64_t i = 0; i < A->rows; i++) {
    double sum = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      sum += A->values[k] * x[A->col_idx[k]];
    y[i] = beta == 0.0 ? alpha * sum : alpha * sum + beta * y[i];
  }
  return SMV_OK;
}

smv_status smv_spmv_ref_abs(const smv_csr *A, const double *x, double *absax) {
  smv_status st = spmv_args(A, x, absax ? absax : (const void *)A);
  if (st != SMV_OK)
    return st;
  st = smv_csr_check(A, NULL);
  if (st != SMV_OK || !absax)
    return st;
  for (int64_t i = 0; i < A->rows; i++) {
    double sum = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      sum += fabs(A->values[k]) * fabs(x[A->col_idx[k]]);
    absax[i] = sum;
  }
  return SMV_OK;
}

/* ---- fast path --------------------------------------------------------- */

/* Below this many merge items (rows + nnz) one thread does it all: waking a
 * team costs a few microseconds, about what 64K items take on one core. */
#define PAR_MIN_ITEMS 65536
/* Carries are kept on the stack: 12 bytes per part. */
#define MAX_PARTS 1024

/* The merge-path coordinate for diagonal d: how many rows r have been
 * completed when d items (row ends + entries) have been consumed; the
 * entries consumed are d - r. Row r's end is consumed once all its entries
 * are, i.e. before entry row_ptr[r+1]. Binary search over r. */
static int64_t merge_row(const smv_offset *row_ptr, int64_t rows, int64_t nnz,
                         int64_t d) {
  int64_t lo = d > nnz ? d - nnz : 0, hi = d < rows ? d : rows;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if ((int64_t)row_ptr[mid + 1] <= d - 1 - mid)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int parts_for(int64_t items) {
  int parts = 1;
#ifdef _OPENMP
  if (items >= PAR_MIN_ITEMS)
    parts = omp_get_max_threads();
#else
  (void)items;
#endif
  if (parts > MAX_PARTS)
    parts = MAX_PARTS;
  if (parts < 1)
    parts = 1;
  return parts;
}

/* One body, two precisions: T is the value/vector type, S the accumulator.
 * Part p walks merge diagonals [d0, d1): every row it completes it writes;
 * the row it leaves open goes to carry_row/carry_val (carry_row = rows when
 * it consumed no entry of an open row). */
#define SPMV_MERGE_PART(T, S)                                                  \
  do {                                                                         \
    const int64_t items = A->rows + A->nnz;                                    \
    int64_t d0 = items * p / parts, d1 = items * (p + 1) / parts;              \
    int64_t r = merge_row(A->row_ptr, A->rows, A->nnz, d0);                    \
    int64_t r1 = merge_row(A->row_ptr, A->rows, A->nnz, d1);                   \
    int64_t e = d0 - r, e1 = d1 - r1;                                          \
    for (; r < r1; r++) {                                                      \
      S sum = 0;                                                               \
      for (; e < A->row_ptr[r + 1]; e++)                                       \
        sum += (S)(T)A->values[e] * (S)x[A->col_idx[e]];                       \
      y[r] = beta == 0 ? (T)(alpha * sum) : (T)(alpha * sum + beta * y[r]);    \
    }                                                                          \
    S part = 0;                                                                \
    int64_t from = e;                                                          \
    for (; e < e1; e++)                                                        \
      part += (S)(T)A->values[e] * (S)x[A->col_idx[e]];                        \
    carry_row[p] = e1 > from ? r1 : A->rows;                                   \
    carry_val[p] = part;                                                       \
  } while (0)

smv_status smv_spmv_cpu(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y) {
  smv_status st = spmv_args(A, x, y);
  if (st != SMV_OK)
    return st;
  const int64_t rows = A->rows;
  if (alpha == 0.0) {
#pragma omp parallel for schedule(static) if (rows >= PAR_MIN_ITEMS)
    for (int64_t i = 0; i < rows; i++)
      y[i] = beta == 0.0 ? 0.0 : beta * y[i];
    return SMV_OK;
  }
  const int parts = parts_for(rows + A->nnz);
  int64_t carry_row[MAX_PARTS];
  double carry_val[MAX_PARTS];
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
  for (int p = 0; p < parts; p++)
    SPMV_MERGE_PART(double, double);
  /* Carries in part order: deterministic for a given thread count. */
  for (int p = 0; p < parts; p++)
    if (carry_row[p] < rows)
      y[carry_row[p]] += alpha * carry_val[p];
  return SMV_OK;
}

smv_status smv_spmv_cpu_f32(const smv_csr *A, float alpha, const float *x,
                            float beta, float *y) {
  smv_status st = spmv_args(A, x, y);
  if (st != SMV_OK)
    return st;
  const int64_t rows = A->rows;
  if (alpha == 0.0f) {
#pragma omp parallel for schedule(static) if (rows >= PAR_MIN_ITEMS)
    for (int64_t i = 0; i < rows; i++)
      y[i] = beta == 0.0f ? 0.0f : beta * y[i];
    return SMV_OK;
  }
  const int parts = parts_for(rows + A->nnz);
  int64_t carry_row[MAX_PARTS];
  float carry_val[MAX_PARTS];
#pragma omp parallel for schedule(static, 1) num_threads(parts) if (parts > 1)
  for (int p = 0; p < parts; p++)
    SPMV_MERGE_PART(float, float);
  for (int p = 0; p < parts; p++)
    if (carry_row[p] < rows)
      y[carry_row[p]] += alpha * carry_val[p];
  return SMV_OK;
}
