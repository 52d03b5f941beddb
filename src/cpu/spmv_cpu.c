/* spmv_cpu.c — y = alpha*A*x + beta*y on the CPU.
 *
 * smv_spmv_ref is the oracle every other kernel is checked against: serial,
 * one row at a time, accumulating in double, validating the whole matrix
 * first. It is meant to be read and believed, not to be fast.
 *
 * smv_spmv_cpu / smv_spmv_cpu_f32 are the fast path, built on the merge path
 * of (row ends, entries): rows + nnz "items" in order (Merrill and Garland's
 * merge-based CSR decomposition). The items are cut into PIECES of a fixed
 * size that depends only on the matrix (never on the thread count), so a
 * piece may start or end inside a row and even a matrix with one row holding
 * half of the entries (denserow, power-law graphs) keeps every thread busy.
 * OpenMP hands each thread a contiguous run of pieces (static schedule).
 *
 * Bit-identical for any thread count (and without OpenMP): every sum is
 * formed in an order fixed by the pieces alone.
 *   - A row that starts and ends inside one piece is summed left to right
 *     and written by that piece: y = alpha*sum + beta*y, exactly as the
 *     reference does (so a matrix of one piece gives the reference's bits).
 *   - A row that crosses pieces leaves a partial sum per piece: the "tail"
 *     of the piece it starts in and of every piece it runs through, and the
 *     "head" of the piece that ends it. After the parallel region those
 *     partials are added serially in piece order, and only then is the row
 *     written, alpha and beta applied once. At most one head and one tail per
 *     piece, so this fix-up costs O(pieces).
 *
 * BLAS semantics everywhere: beta == 0 overwrites y without reading it (NaN
 * or Inf in y never leak); alpha == 0 computes beta*y without touching A's
 * values or x (NaN in x never leaks).
 *
 * What is checked before anything is written (the fast path, O(rows)):
 * pointers, row_ptr[0] == 0, row_ptr[rows] == nnz, row_ptr non-decreasing
 * (so every offset is in [0, nnz] and no loop leaves the arrays), and that
 * x and y do not overlap. Column indices are trusted (O(nnz) to check): the
 * reference, smv_csr_check and the GPU upload check them. */
#include "internal.h"

#include <float.h>
#include <math.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Argument checks shared by every entry point: pointers that must exist
 * for the sizes given, the structural invariants of smv_csr_cheap_check
 * (row_ptr from 0 to nnz, non-decreasing: O(rows)), and no overlap between
 * x (cols elements) and y (rows elements) of `esize` bytes each. y may be
 * NULL only for smv_spmv_ref_abs. */
static smv_status spmv_args(const smv_csr *A, const void *x, const void *y,
                            size_t esize) {
  smv_status st = smv_csr_cheap_check(A);
  if (st != SMV_OK)
    return st;
  if ((A->cols > 0 && !x) || (A->rows > 0 && !y))
    return SMV_ERR_ARG;
  if (smv_overlap(x, (size_t)A->cols * esize, y, (size_t)A->rows * esize))
    return SMV_ERR_ARG;
  return SMV_OK;
}

smv_status smv_spmv_ref(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y) {
  smv_status st = spmv_args(A, x, y, sizeof *x);
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
  /* absax == NULL: validation only (A stands in for the missing pointer). */
  smv_status st = absax ? spmv_args(A, x, absax, sizeof *x)
                        : spmv_args(A, x, (const void *)A, 0);
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

/* ---- SMV_F64_F32V: the value range and the error bound ------------------
 * The bound (smv.h, smv_precision; derived in docs/engine.md, "f64 vectors,
 * f32 values"), per row of n entries, u = 2^-53, g(k) = k u / (1 - k u):
 *   |alpha| sum_j (2^-24 |a_j| + 2^-150) |x_j|          (values to f32)
 *   + g(n + 2) (|alpha| sum_j |fl32(a_j)| |x_j| + |beta y0|)  (f64 sums)
 * with |fl32(a)| <= (1 + 2^-24) |a| + 2^-150. */
static double gamma_u53(double k) {
  const double ku = k * 0x1p-53;
  return ku / (1.0 - ku);
}

smv_status smv_spmv_f32v_bound(const smv_csr *A, double alpha, const double *x,
                               double beta, const double *y0, double *bound) {
  smv_status st = spmv_args(A, x, bound, sizeof *x);
  if (st != SMV_OK)
    return st;
  if (beta != 0.0 && A->rows > 0 && !y0)
    return SMV_ERR_ARG;
  st = smv_csr_check(A, NULL);
  if (st != SMV_OK)
    return st;
  const double aa = fabs(alpha);
  for (int64_t i = 0; i < A->rows; i++) {
    double rnd = 0.0, mag = 0.0; /* the two sums over the row */
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const double a = fabs(A->values[k]), xa = fabs(x[A->col_idx[k]]);
      rnd += (0x1p-24 * a + 0x1p-150) * xa;
      mag += ((1.0 + 0x1p-24) * a + 0x1p-150) * xa;
    }
    const double n = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
    const double y0a = beta != 0.0 ? fabs(beta) * fabs(y0[i]) : 0.0;
    const double b = aa * rnd + gamma_u53(n + 2.0) * (aa * mag + y0a);
    /* This evaluation's own rounding (sums of n non-negative terms of a
     * few factors each): at most a relative g(n + 4); allow twice it. */
    bound[i] = b * (1.0 + 2.0 * gamma_u53(n + 4.0));
  }
  return SMV_OK;
}

smv_status smv_csr_check_f32_range(const smv_csr *A, smv_error *err) {
  smv_status st = smv_csr_offsets_check(A);
  if (st != SMV_OK)
    return smv_err_set(err, st, NULL, 0, "CSR: invalid row offsets");
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const double v = A->values[k];
      if (isfinite(v) && fabs(v) > (double)FLT_MAX)
        return smv_err_set(err, SMV_ERR_OVERFLOW, NULL, 0,
                           "row %lld, column %lld: value %.17g is beyond the "
                           "f32 range (|v| > FLT_MAX = %.9g), so precision "
                           "f64-f32v cannot store it",
                           (long long)i, (long long)A->col_idx[k], v,
                           (double)FLT_MAX);
    }
  return SMV_OK;
}

/* ---- fast path --------------------------------------------------------- */

/* Below this many merge items (rows + nnz) one thread does it all: waking a
 * team costs more than the work when the threads sleep (passive waits) or
 * share their cores with another job; the measurement behind the bound is
 * in bench/results/amd-epyc-2-cores/shared-cores.md. The pieces are the
 * same either way, so is the result. */
#define PAR_MIN_ITEMS 131072
/* A piece is at least PIECE_MIN items (its record and fix-up step are then
 * noise; a thread walks its pieces in a row after one binary search), and
 * there are at most MAX_PIECES of them (records on the stack: 32 bytes
 * each). Both depend on the matrix only. */
#define PIECE_MIN 16384
#define MAX_PIECES 1024

/* What a piece leaves for the serial fix-up: the row it finished that began
 * in an earlier piece (head_row, -1 if none) and the row it leaves open
 * after consuming some of its entries (tail_row, -1 if none), with their
 * partial sums. Partial sums of the f32 path are floats, held exactly. */
struct piece {
  int64_t head_row, tail_row;
  double head_val, tail_val;
};

/* The merge-path coordinate for diagonal d: how many rows r have been
 * completed when d items (row ends + entries) have been consumed; the
 * entries consumed are d - r. Row r's end is consumed once all its entries
 * are, i.e. before entry row_ptr[r+1]. Binary search over r; every index it
 * reads is in [0, rows] whatever row_ptr holds. */
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

/* Items per piece for a matrix of `items` merge items (>= 1). */
static int64_t piece_size(int64_t items) {
  int64_t per = (items + MAX_PIECES - 1) / MAX_PIECES;
  return per < PIECE_MIN ? PIECE_MIN : per;
}

/* Threads for `pieces` pieces of `items` items in all. */
static int team_size(int64_t items, int64_t pieces) {
  int t = 1;
#ifdef _OPENMP
  if (items >= PAR_MIN_ITEMS)
    t = omp_get_max_threads();
#else
  (void)items;
#endif
  if (t > pieces)
    t = (int)pieces;
  return t < 1 ? 1 : t;
}

/* The pieces of a matrix: a function of rows and nnz only. */
struct plan {
  int64_t items, per, pieces;
  int threads;
};

static void plan_for(const smv_csr *A, struct plan *pl) {
  pl->items = A->rows + A->nnz;
  pl->per = piece_size(pl->items);
  pl->pieces = (pl->items + pl->per - 1) / pl->per;
  pl->threads = team_size(pl->items, pl->pieces);
}

/* One thread's share: pieces [p0, p1), i.e. merge diagonals [d0, d1), and
 * the rows [r0, r1) those complete (r0 = merge_row(d0), r1 = merge_row(d1):
 * the shares' row ranges tile [0, rows)). */
struct share {
  int64_t p0, p1, d0, d1, r0, r1;
};

static void share_of(const smv_csr *A, const struct plan *pl,
                     struct share *sh) {
  int t = 0, nt = 1;
#ifdef _OPENMP
  t = omp_get_thread_num();
  nt = omp_get_num_threads();
#endif
  sh->p0 = pl->pieces * t / nt;
  sh->p1 = pl->pieces * (t + 1) / nt;
  sh->d0 = sh->p0 * pl->per;
  sh->d1 = sh->p1 * pl->per < pl->items ? sh->p1 * pl->per : pl->items;
  sh->r0 = merge_row(A->row_ptr, A->rows, A->nnz, sh->d0);
  sh->r1 = merge_row(A->row_ptr, A->rows, A->nnz, sh->d1);
}

/* 1 if row_ptr decreases anywhere between rows r0 and r1 of the share
 * (inclusive: the row left open too). With row_ptr[0] == 0 and
 * row_ptr[rows] == nnz checked, a decrease is the last thing that could
 * send a loop outside the arrays. On such a row_ptr the binary searches
 * may return anything in [0, rows], so the range is taken in either order:
 * consecutive shares still chain from row 0 to row `rows` and every pair of
 * neighbours is looked at by some share. */
static int share_invalid(const smv_csr *A, const struct share *sh) {
  int64_t lo = sh->r0 < sh->r1 ? sh->r0 : sh->r1;
  int64_t hi = sh->r0 < sh->r1 ? sh->r1 : sh->r0;
  if (hi > A->rows - 1)
    hi = A->rows - 1;
  /* omp simd: GCC 12 at -O2 does not vectorize this reduction by itself,
   * and scalar it took 0.55 ms per million rows (4x the vector loop; 7% of
   * an SpMV of lap3d:100). */
  const smv_offset *rp = A->row_ptr;
  int bad = 0;
#pragma omp simd reduction(| : bad)
  for (int64_t i = lo; i <= hi; i++)
    bad |= rp[i + 1] < rp[i];
  return bad;
}

/* One SpMV call: the matrix, its plan, the piece records, and the vectors
 * and scalars (float vectors and scalars for the f32 path; a float held in
 * a double is exact). */
struct job {
  const smv_csr *A;
  const struct plan *pl;
  struct piece *pc;
  const void *x;
  void *y;
  double alpha, beta;
};

/* One body, two precisions: T is the value/vector type, S the accumulator.
 * alpha == 0: y = beta*y on the share's rows. Otherwise walk the share's
 * pieces in order, carrying the merge position (r, e) from one to the next;
 * in each piece: the head (a row begun by an earlier piece, ended here), the
 * rows begun and ended here (written at once), the tail (a row left open).
 * Row r ends at merge item r + row_ptr[r+1]. */
#define SPMV_SHARE_FN(NAME, T, S)                                              \
  static void NAME(const struct job *j, const struct share *sh) {              \
    const smv_csr *A = j->A;                                                   \
    const smv_offset *rp = A->row_ptr;                                         \
    const int64_t rows = A->rows, per = j->pl->per, items = j->pl->items;      \
    const T *x = (const T *)j->x;                                              \
    T *y = (T *)j->y;                                                          \
    const T alpha = (T)j->alpha, beta = (T)j->beta;                            \
    if (alpha == 0) {                                                          \
      for (int64_t i = sh->r0; i < sh->r1; i++)                                \
        y[i] = beta == 0 ? (T)0 : beta * y[i];                                 \
      return;                                                                  \
    }                                                                          \
    int64_t r = sh->r0, e = sh->d0 - sh->r0;                                   \
    for (int64_t p = sh->p0; p < sh->p1; p++) {                                \
      const int64_t d1 = (p + 1) * per < items ? (p + 1) * per : items;        \
      struct piece *o = &j->pc[p];                                             \
      o->head_row = o->tail_row = -1;                                          \
      if (e > rp[r] && r + rp[r + 1] < d1) {                                   \
        S sum = 0;                                                             \
        for (; e < rp[r + 1]; e++)                                             \
          sum += (S)(T)A->values[e] * (S)x[A->col_idx[e]];                     \
        o->head_row = r++;                                                     \
        o->head_val = sum;                                                     \
      }                                                                        \
      for (; r < rows && r + rp[r + 1] < d1; r++) {                            \
        S sum = 0;                                                             \
        for (; e < rp[r + 1]; e++)                                             \
          sum += (S)(T)A->values[e] * (S)x[A->col_idx[e]];                     \
        y[r] = beta == 0 ? (T)(alpha * sum) : (T)(alpha * sum + beta * y[r]);  \
      }                                                                        \
      const int64_t e1 = d1 - r;                                               \
      if (e < e1) {                                                            \
        S sum = 0;                                                             \
        for (; e < e1; e++)                                                    \
          sum += (S)(T)A->values[e] * (S)x[A->col_idx[e]];                     \
        o->tail_row = r;                                                       \
        o->tail_val = sum;                                                     \
      }                                                                        \
    }                                                                          \
  }

/* Rows that crossed pieces: partials added in piece order, then written,
 * alpha and beta applied once. */
#define SPMV_FIXUP_FN(NAME, T, S)                                              \
  static void NAME(const struct job *j) {                                      \
    T *y = (T *)j->y;                                                          \
    const T alpha = (T)j->alpha, beta = (T)j->beta;                            \
    S acc = 0;                                                                 \
    for (int64_t p = 0; p < j->pl->pieces; p++) {                              \
      const int64_t h = j->pc[p].head_row;                                     \
      if (h >= 0) {                                                            \
        acc += (S)j->pc[p].head_val;                                           \
        y[h] = beta == 0 ? (T)(alpha * acc) : (T)(alpha * acc + beta * y[h]);  \
        acc = 0;                                                               \
      }                                                                        \
      if (j->pc[p].tail_row >= 0)                                              \
        acc += (S)j->pc[p].tail_val;                                           \
    }                                                                          \
  }

SPMV_SHARE_FN(share_f64, double, double)
SPMV_SHARE_FN(share_f32, float, float)
SPMV_FIXUP_FN(fixup_f64, double, double)
SPMV_FIXUP_FN(fixup_f32, float, float)

/* Both precisions: one parallel region in which every thread checks its
 * share's rows, waits for the others (nothing is written to y unless the
 * whole row_ptr passed), then computes its share; the fix-up follows. */
static smv_status run(const struct job *j,
                      void (*share)(const struct job *, const struct share *),
                      void (*fixup)(const struct job *)) {
  int bad = 0;
#pragma omp parallel num_threads(j->pl->threads) if (j->pl->threads > 1)
  {
    struct share sh;
    share_of(j->A, j->pl, &sh);
    if (share_invalid(j->A, &sh)) {
#pragma omp atomic write
      bad = 1;
    }
#pragma omp barrier
    int b;
#pragma omp atomic read
    b = bad;
    if (!b)
      share(j, &sh);
  }
  if (bad)
    return SMV_ERR_INVALID_MATRIX;
  if (j->alpha != 0.0)
    fixup(j);
  return SMV_OK;
}

/* Both precisions: x and y of `size`-byte values; alpha and beta as the
 * job carries them (a float widens to double exactly). */
static smv_status
spmv_any(const smv_csr *A, double alpha, const void *x, double beta, void *y,
         size_t size, void (*share)(const struct job *, const struct share *),
         void (*fix)(const struct job *)) {
  smv_status st = spmv_args(A, x, y, size);
  if (st != SMV_OK || A->rows == 0)
    return st;
  struct plan pl;
  plan_for(A, &pl);
  struct piece pc[MAX_PIECES];
  const struct job j = {A, &pl, pc, x, y, alpha, beta};
  return run(&j, share, fix);
}

smv_status smv_spmv_cpu(const smv_csr *A, double alpha, const double *x,
                        double beta, double *y) {
  return spmv_any(A, alpha, x, beta, y, sizeof *x, share_f64, fixup_f64);
}

smv_status smv_spmv_cpu_f32(const smv_csr *A, float alpha, const float *x,
                            float beta, float *y) {
  return spmv_any(A, alpha, x, beta, y, sizeof *x, share_f32, fixup_f32);
}
