/* permute.c — permutations (check, inverse), B = P A Q^T, vectors into and
 * out of a permuted order, bandwidth and profile (smv.h, "Reordering").
 *
 * smv_csr_permute sorts by new column without comparisons: the entries are
 * first dropped into buckets by new column (visiting A row by row, so each
 * bucket lists its entries in A's order), then the buckets are emptied in
 * column order into B's rows. Each row of B thus receives its columns in
 * increasing order, and entries that share a column (a matrix with
 * duplicates) keep A's order: the sort is stable. Scratch: 12 bytes per
 * entry (row and value per bucket slot) and 4 per column and per row. */
#include "internal.h"

#include <stdlib.h>

smv_status smv_perm_check(int64_t n, const smv_index *perm, const char *what,
                          smv_error *err) {
  smv_err_clear(err);
  if (!what)
    what = "perm";
  if (n < 0)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: negative length %lld",
                       what, (long long)n);
  if (n > 0 && !perm)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s is NULL", what);
  /* first[v]: the first index i with perm[i] == v, -1 if none yet. */
  smv_index *first = malloc(((size_t)n + 1) * sizeof *first);
  if (!first)
    return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "%s: out of memory to check %lld entries", what,
                       (long long)n);
  for (int64_t v = 0; v < n; v++)
    first[v] = -1;
  smv_status st = SMV_OK;
  for (int64_t i = 0; i < n; i++) {
    const smv_index v = perm[i];
    if (v < 0 || v >= n) {
      st = smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "%s[%lld] = %lld is outside 0..%lld (not a "
                       "permutation)",
                       what, (long long)i, (long long)v, (long long)n - 1);
      break;
    }
    if (first[v] >= 0) {
      st = smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "%s[%lld] = %lld repeats %s[%lld] (not a permutation)",
                       what, (long long)i, (long long)v, what,
                       (long long)first[v]);
      break;
    }
    first[v] = (smv_index)i;
  }
  free(first);
  return st;
}

smv_status smv_perm_invert(int64_t n, const smv_index *perm, smv_index *inv,
                           smv_error *err) {
  smv_status st = smv_perm_check(n, perm, "perm", err);
  if (st != SMV_OK)
    return st;
  if (n > 0 && !inv)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "inv is NULL");
  for (int64_t i = 0; i < n; i++)
    inv[perm[i]] = (smv_index)i;
  return SMV_OK;
}

/* Checks shared by the two vector moves. */
static smv_status vec_args(int64_t n, const smv_index *perm, const double *x,
                           const double *y, smv_error *err) {
  smv_status st = smv_perm_check(n, perm, "perm", err);
  if (st != SMV_OK)
    return st;
  if (n > 0 && (!x || !y))
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "vector %s is NULL",
                       !x ? "x" : "y");
  if (smv_overlap(x, (size_t)n * sizeof *x, y, (size_t)n * sizeof *y))
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "x and y overlap (the permutation is not in place)");
  return SMV_OK;
}

/* y[perm[i]] = x[i] (into the new order), or back when `back`. */
static smv_status vec_move(int64_t n, const smv_index *perm, const double *x,
                           double *y, int back, smv_error *err) {
  smv_status st = vec_args(n, perm, x, y, err);
  if (st != SMV_OK)
    return st;
  for (int64_t i = 0; i < n; i++)
    if (back)
      y[i] = x[perm[i]];
    else
      y[perm[i]] = x[i];
  return SMV_OK;
}

smv_status smv_vec_permute(int64_t n, const smv_index *perm, const double *x,
                           double *y, smv_error *err) {
  return vec_move(n, perm, x, y, 0, err);
}

smv_status smv_vec_unpermute(int64_t n, const smv_index *perm, const double *x,
                             double *y, smv_error *err) {
  return vec_move(n, perm, x, y, 1, err);
}

/* The new index of old index i: the identity when perm is NULL. */
static smv_index to(const smv_index *perm, int64_t i) {
  return perm ? perm[i] : (smv_index)i;
}

smv_status smv_csr_permute(const smv_csr *A, const smv_index *row_perm,
                           const smv_index *col_perm, smv_csr **B,
                           smv_error *err) {
  smv_err_clear(err);
  if (!B)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "permute: B is NULL");
  *B = NULL;
  smv_status st = smv_csr_check(A, err);
  if (st != SMV_OK)
    return st;
  if (row_perm &&
      (st = smv_perm_check(A->rows, row_perm, "row_perm", err)) != SMV_OK)
    return st;
  if (col_perm &&
      (st = smv_perm_check(A->cols, col_perm, "col_perm", err)) != SMV_OK)
    return st;
  const int64_t rows = A->rows, cols = A->cols, nnz = A->nnz;
  smv_csr *M = NULL;
  if ((st = smv_csr_create(A->rows, A->cols, nnz, &M)) != SMV_OK)
    return smv_err_set(err, st, NULL, 0,
                       "permute: no memory for the %lld x %lld result with "
                       "%lld entries",
                       (long long)rows, (long long)cols, (long long)nnz);
  smv_offset *cptr = calloc((size_t)cols + 1, sizeof *cptr);
  smv_offset *rnext = malloc(((size_t)rows + 1) * sizeof *rnext);
  smv_index *brow = malloc(((size_t)nnz + 1) * sizeof *brow);
  double *bval = malloc(((size_t)nnz + 1) * sizeof *bval);
  if (!cptr || !rnext || !brow || !bval) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "permute: out of memory for the sort of %lld entries",
                     (long long)nnz);
    smv_csr_free(M);
    goto out;
  }
  /* B's row offsets: row to(i) has row i's length. */
  for (int64_t i = 0; i < rows; i++)
    M->row_ptr[to(row_perm, i) + 1] = A->row_ptr[i + 1] - A->row_ptr[i];
  for (int64_t r = 0; r < rows; r++)
    M->row_ptr[r + 1] += M->row_ptr[r];
  /* Buckets by new column: count, offsets, fill (cptr[c] ends at the
   * bucket's end, so the bucket is [end of c - 1, cptr[c])). */
  for (int64_t k = 0; k < nnz; k++)
    cptr[to(col_perm, A->col_idx[k]) + 1]++;
  for (int64_t c = 0; c < cols; c++)
    cptr[c + 1] += cptr[c];
  for (int64_t i = 0; i < rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      smv_offset s = cptr[to(col_perm, A->col_idx[k])]++;
      brow[s] = to(row_perm, i);
      bval[s] = A->values[k];
    }
  /* Empty the buckets in column order into the rows. */
  for (int64_t r = 0; r < rows; r++)
    rnext[r] = M->row_ptr[r];
  for (int64_t c = 0, s = 0; c < cols; c++)
    for (; s < cptr[c]; s++) {
      smv_offset d = rnext[brow[s]]++;
      M->col_idx[d] = (smv_index)c;
      M->values[d] = bval[s];
    }
  /* Sorted; unique unless A repeated a column within a row. */
  M->sorted = 1;
  for (int64_t r = 0; r < rows && M->sorted; r++)
    for (int64_t k = M->row_ptr[r] + 1; k < M->row_ptr[r + 1]; k++)
      if (M->col_idx[k] == M->col_idx[k - 1]) {
        M->sorted = 0;
        break;
      }
  M->field = A->field;
  M->symmetry = A->symmetry;
  M->format = A->format;
  *B = M;
out:
  free(cptr);
  free(rnext);
  free(brow);
  free(bval);
  return st;
}

smv_status smv_csr_bandwidth(const smv_csr *A, int64_t *bandwidth,
                             int64_t *profile, smv_error *err) {
  smv_status st = smv_csr_check(A, err);
  if (st != SMV_OK)
    return st;
  int64_t bw = 0, prof = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t lo = i; /* the least column <= i in row i */
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      const int64_t j = A->col_idx[k], d = i > j ? i - j : j - i;
      if (d > bw)
        bw = d;
      if (j < lo)
        lo = j;
    }
    prof += i - lo;
  }
  if (bandwidth)
    *bandwidth = bw;
  if (profile)
    *profile = prof;
  return SMV_OK;
}
