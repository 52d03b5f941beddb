/* spmm.c — Y = alpha*A*X + beta*Y for k dense right-hand sides on the CPU,
 * the names of the device SpMM algorithms, and the shape checks the host
 * and device paths share.
 *
 * Shapes (A is rows x cols, X cols x k, Y rows x k):
 *   row-major    X(j, c) = X[j * ldx + c], ldx >= k;
 *   column-major X(j, c) = X[c * ldx + j], ldx >= max(1, cols),
 *                Y(i, c) = Y[c * ldy + i], ldy >= max(1, rows).
 *
 * smv_spmm_cpu reads each entry of A once and applies it to all k columns:
 * per row, k running sums (k <= SPMM_TILE at a time on the stack; wider k
 * takes several passes over the row, each still reading X's row j
 * contiguously in row-major). Each sum accumulates in entry order, as
 * smv_spmv_ref does, so column c of the result is bit-identical to the
 * reference SpMV of column c, for any thread count. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const spmm_names[SMV_SPMM_ALG_COUNT] = {
    "auto",   "ours",    "cusparse-alg1", "cusparse-alg2", "cusparse-alg3",
    "spmv",   "rowvec",  "rowsplit",      "colsplit",      "coltrans",
    "kslice", "rowpipe", "rowgather",     "rowstream",     "colband"};

const char *smv_spmm_alg_name(smv_spmm_alg alg) {
  if ((int)alg < 0 || alg >= SMV_SPMM_ALG_COUNT)
    return NULL;
  return spmm_names[alg];
}

smv_status smv_spmm_alg_parse(const char *name, smv_spmm_alg *alg) {
  if (!name || !alg)
    return SMV_ERR_ARG;
  for (int a = 0; a < SMV_SPMM_ALG_COUNT; a++)
    if (strcmp(name, spmm_names[a]) == 0) {
      *alg = (smv_spmm_alg)a;
      return SMV_OK;
    }
  return SMV_ERR_NOT_FOUND;
}

/* Elements from the first to one past the last element of an n x k
 * operand with leading dimension ld: (n - 1) * ld + k row-major, (k - 1)
 * * ld + n column-major (0 when n = 0 or k = 0). 0 when that, or the
 * extent times 8 bytes, does not fit in int64_t. */
static int spmm_extent(int64_t n, int64_t ld, int k, int row, int64_t *out) {
  *out = 0;
  if (n <= 0 || k <= 0)
    return 1;
  int64_t p, e;
  if (row ? __builtin_mul_overflow(n - 1, ld, &p) ||
                __builtin_add_overflow(p, (int64_t)k, &e)
          : __builtin_mul_overflow((int64_t)k - 1, ld, &p) ||
                __builtin_add_overflow(p, n, &e))
    return 0;
  if (e > INT64_MAX / 8)
    return 0;
  *out = e;
  return 1;
}

smv_status smv_spmm_shape_check(int64_t rows, int64_t cols, int64_t nnz,
                                double alpha, const void *X, int64_t ldx,
                                double beta, const void *Y, int64_t ldy, int k,
                                smv_layout layout, char *why, size_t why_len) {
  (void)beta;
  if (why && why_len)
    why[0] = '\0';
  if (layout != SMV_LAYOUT_ROW_MAJOR && layout != SMV_LAYOUT_COL_MAJOR) {
    if (why)
      snprintf(why, why_len, "unknown layout %d", (int)layout);
    return SMV_ERR_ARG;
  }
  if (k < 0) {
    if (why)
      snprintf(why, why_len, "k = %d columns (must be >= 0)", k);
    return SMV_ERR_ARG;
  }
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  const int64_t needx = row ? k : (cols > 1 ? cols : 1);
  const int64_t needy = row ? k : (rows > 1 ? rows : 1);
  if (ldx < needx || ldy < needy) {
    if (why)
      snprintf(why, why_len,
               "leading dimensions ldx = %lld, ldy = %lld too small for a "
               "%lld x %lld matrix, k = %d, %s-major (need >= %lld, %lld)",
               (long long)ldx, (long long)ldy, (long long)rows, (long long)cols,
               k, row ? "row" : "column", (long long)needx, (long long)needy);
    return SMV_ERR_DIM;
  }
  /* Every size product checked (issue 25, item 11): the last element of
   * X and Y, and their extents in bytes (8 per element at most), must fit
   * in int64_t, or the overlap checks and the kernels' index arithmetic
   * wrap. */
  int64_t ex, ey;
  if (k > 0 && (!spmm_extent(cols, ldx, k, row, &ex) ||
                !spmm_extent(rows, ldy, k, row, &ey))) {
    if (why)
      snprintf(why, why_len,
               "X (%lld x %d, ldx = %lld) or Y (%lld x %d, ldy = %lld) spans "
               "more than 2^63 bytes",
               (long long)cols, k, (long long)ldx, (long long)rows, k,
               (long long)ldy);
    return SMV_ERR_DIM;
  }
  if (k > 0 && rows > 0 && !Y) {
    if (why)
      snprintf(why, why_len, "Y is NULL");
    return SMV_ERR_ARG;
  }
  if (k > 0 && cols > 0 && nnz > 0 && alpha != 0.0 && !X) {
    if (why)
      snprintf(why, why_len, "X is NULL");
    return SMV_ERR_ARG;
  }
  return SMV_OK;
}

/* Element (i, c) of an operand is at [i * r + c * c_] (r, c_ below). */
struct spmm_view {
  int64_t xr, xc, yr, yc;
};

/* The reference: one column at a time, each row's sum in entry order. */
static void spmm_ref_rows(const smv_csr *A, double alpha, const double *X,
                          double beta, double *Y, int k,
                          const struct spmm_view *v) {
  for (int c = 0; c < k; c++)
    for (int64_t i = 0; i < A->rows; i++) {
      double sum = 0.0;
      for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++)
        sum += A->values[e] * X[(int64_t)A->col_idx[e] * v->xr + c * v->xc];
      double *y = &Y[i * v->yr + c * v->yc];
      *y = beta == 0.0 ? alpha * sum : alpha * sum + beta * *y;
    }
}

/* Columns summed per pass over a row. */
#define SPMM_TILE 64
/* Rows per OpenMP chunk, and the fewest rows worth a team. */
#define SPMM_CHUNK 256
#define SPMM_PAR_MIN 4096

/* The fast path: all of a row's entries applied to up to SPMM_TILE columns
 * per pass, rows shared out to OpenMP threads. */
static void spmm_cpu_rows(const smv_csr *A, double alpha, const double *X,
                          double beta, double *Y, int k,
                          const struct spmm_view *v) {
  const int64_t rows = A->rows, xr = v->xr, xc = v->xc, yr = v->yr, yc = v->yc;
#pragma omp parallel for schedule(dynamic, SPMM_CHUNK) if (rows >= SPMM_PAR_MIN)
  for (int64_t i = 0; i < rows; i++) {
    double sum[SPMM_TILE];
    for (int c0 = 0; c0 < k; c0 += SPMM_TILE) {
      const int w = k - c0 < SPMM_TILE ? k - c0 : SPMM_TILE;
      for (int c = 0; c < w; c++)
        sum[c] = 0.0;
      for (int64_t e = A->row_ptr[i]; e < A->row_ptr[i + 1]; e++) {
        const double a = A->values[e];
        const double *x = &X[(int64_t)A->col_idx[e] * xr + c0 * xc];
        for (int c = 0; c < w; c++)
          sum[c] += a * x[c * xc];
      }
      for (int c = 0; c < w; c++) {
        double *y = &Y[i * yr + (c0 + c) * yc];
        *y = beta == 0.0 ? alpha * sum[c] : alpha * sum[c] + beta * *y;
      }
    }
  }
}

/* What the two entry points differ in: how they sum the rows. */
typedef void spmm_rows_fn(const smv_csr *A, double alpha, const double *X,
                          double beta, double *Y, int k,
                          const struct spmm_view *v);

/* Either entry point: the checks (the whole matrix for the reference, the
 * cheap ones for the fast path), the strides, the alpha = 0 case
 * (Y = beta*Y), else rows(). */
static smv_status spmm_run(const smv_csr *A, double alpha, const double *X,
                           int64_t ldx, double beta, double *Y, int64_t ldy,
                           int k, smv_layout layout, spmm_rows_fn *rows) {
  smv_status st = smv_csr_offsets_check(A);
  if (st == SMV_OK)
    st = smv_spmm_shape_check(A->rows, A->cols, A->nnz, alpha, X, ldx, beta, Y,
                              ldy, k, layout, NULL, 0);
  /* X and Y must not overlap: their extents, in elements, from the layout
   * (the last element is at (n - 1) * ld + k - 1 or (k - 1) * ld + n - 1). */
  if (st == SMV_OK && k > 0 && A->rows > 0 && A->cols > 0) {
    const int rm = layout == SMV_LAYOUT_ROW_MAJOR;
    int64_t nx, ny; /* the shape check proved both fit, times 8 bytes */
    (void)spmm_extent(A->cols, ldx, k, rm, &nx);
    (void)spmm_extent(A->rows, ldy, k, rm, &ny);
    if (smv_overlap(X, (size_t)nx * sizeof *X, Y, (size_t)ny * sizeof *Y))
      st = SMV_ERR_ARG;
  }
  if (st == SMV_OK && rows == spmm_ref_rows)
    st = smv_csr_check(A, NULL);
  if (st != SMV_OK)
    return st;
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  const struct spmm_view v = {.xr = row ? ldx : 1,
                              .xc = row ? 1 : ldx,
                              .yr = row ? ldy : 1,
                              .yc = row ? 1 : ldy};
  if (alpha == 0.0) { /* Y = beta*Y; X is not read */
    for (int64_t i = 0; i < A->rows; i++)
      for (int c = 0; c < k; c++) {
        double *y = &Y[i * v.yr + c * v.yc];
        *y = beta == 0.0 ? 0.0 : beta * *y;
      }
    return SMV_OK;
  }
  rows(A, alpha, X, beta, Y, k, &v);
  return SMV_OK;
}

smv_status smv_spmm_ref(const smv_csr *A, double alpha, const double *X,
                        int64_t ldx, double beta, double *Y, int64_t ldy, int k,
                        smv_layout layout) {
  return spmm_run(A, alpha, X, ldx, beta, Y, ldy, k, layout, spmm_ref_rows);
}

smv_status smv_spmm_cpu(const smv_csr *A, double alpha, const double *X,
                        int64_t ldx, double beta, double *Y, int64_t ldy, int k,
                        smv_layout layout) {
  return spmm_run(A, alpha, X, ldx, beta, Y, ldy, k, layout, spmm_cpu_rows);
}
