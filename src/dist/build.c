/*
 * build.c — split this rank's rows into the local block (owned columns)
 * and the remote block (compressed ghost columns and compressed rows: only
 * the rows with off-rank entries, as PETSc's off-diagonal block does, so
 * the remote pass touches a few rows of y, not all), and build the halo plan
 * once: ghost counts per owner go out with MPI_Alltoall, the ghost indices
 * themselves with MPI_Alltoallv, so each owner learns which of its x
 * entries to send to whom.
 */
#include "dist.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int smv_dist_row_owner(const int64_t *off, int n, int64_t v) {
  if (!off || n < 1 || v < off[0] || v >= off[n])
    return -1;
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo + 1) / 2;
    if (off[mid] <= v)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Position of v in the sorted array a[0..n) (it is there). */
static int32_t find_ghost(const int64_t *a, int32_t n, int64_t v) {
  int32_t lo = 0, hi = n - 1;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (a[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Mark a block sorted when every row's columns strictly increase (the
 * engine's statistics and smv_csr_check rely on the flag being true). */
static void mark_sorted(smv_csr *A) {
  int sorted = 1;
  for (smv_index i = 0; sorted && i < A->rows; i++)
    for (smv_offset k = A->row_ptr[i] + 1; sorted && k < A->row_ptr[i + 1]; k++)
      sorted = A->col_idx[k] > A->col_idx[k - 1];
  A->sorted = sorted;
}

/* Split the rows. Returns a local status (not agreed). */
static smv_status split(smv_dist *D, const int32_t *row_ptr,
                        const int64_t *col_idx, const double *values,
                        smv_error *err) {
  int64_t c0 = D->col_off[D->rank], c1 = D->col_off[D->rank + 1];
  int32_t n = D->nrows;
  int64_t nnz = row_ptr[n], nloc = 0;
  for (int64_t k = 0; k < nnz; k++) {
    if (col_idx[k] < 0 || col_idx[k] >= D->gcols) {
      int32_t i = 0;
      while (row_ptr[i + 1] <= k)
        i++;
      return dist_fail(D, err, SMV_ERR_INVALID_MATRIX, __FILE__, __LINE__,
                       "global row %lld: column %lld out of range 0..%lld",
                       (long long)(D->row_off[D->rank] + i),
                       (long long)col_idx[k], (long long)D->gcols - 1);
    }
    nloc += col_idx[k] >= c0 && col_idx[k] < c1;
  }
  int32_t nremrows = 0; /* rows with at least one off-rank entry */
  for (int32_t i = 0; i < n; i++) {
    int any = 0;
    for (int32_t k = row_ptr[i]; !any && k < row_ptr[i + 1]; k++)
      any = col_idx[k] < c0 || col_idx[k] >= c1;
    nremrows += any;
  }
  int64_t nrem = nnz - nloc;
  int64_t *g = malloc(((size_t)nrem + 1) * sizeof *g);
  smv_status st = g ? SMV_OK : SMV_ERR_NOMEM;
  if (st == SMV_OK)
    st = smv_csr_create(n, D->ncols, nloc, &D->loc);
  if (st != SMV_OK) {
    free(g);
    return dist_fail(D, err, st, __FILE__, __LINE__,
                     "cannot allocate the local block (%d rows, %lld "
                     "entries)",
                     (int)n, (long long)nloc);
  }
  int64_t m = 0;
  for (int64_t k = 0; k < nnz; k++)
    if (col_idx[k] < c0 || col_idx[k] >= c1)
      g[m++] = col_idx[k];
  qsort(g, (size_t)nrem, sizeof *g, cmp_i64);
  int32_t ng = 0;
  for (int64_t k = 0; k < nrem; k++)
    if (ng == 0 || g[k] != g[ng - 1])
      g[ng++] = g[k];
  D->ghost_col = g;
  D->nghost = ng;
  st = smv_csr_create(nremrows, ng, nrem, &D->rem);
  D->rem_rows = malloc(((size_t)nremrows + 1) * sizeof *D->rem_rows);
  D->rem_y = malloc(((size_t)nremrows + 1) * sizeof *D->rem_y);
  if (st == SMV_OK && (!D->rem_rows || !D->rem_y))
    st = SMV_ERR_NOMEM;
  if (st != SMV_OK)
    return dist_fail(D, err, st, __FILE__, __LINE__,
                     "cannot allocate the remote block (%d rows, %lld "
                     "entries)",
                     (int)n, (long long)nrem);
  smv_csr *L = D->loc, *R = D->rem;
  int32_t pl = 0, pr = 0, ir = 0;
  for (int32_t i = 0; i < n; i++) {
    int32_t pr0 = pr;
    for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
      int64_t c = col_idx[k];
      if (c >= c0 && c < c1) {
        L->col_idx[pl] = (smv_index)(c - c0);
        L->values[pl++] = values[k];
      } else {
        R->col_idx[pr] = find_ghost(g, ng, c);
        R->values[pr++] = values[k];
      }
    }
    L->row_ptr[i + 1] = pl;
    if (pr > pr0) {
      D->rem_rows[ir] = i;
      R->row_ptr[++ir] = pr;
    }
  }
  D->nremrows = nremrows;
  mark_sorted(L);
  mark_sorted(R);
  return SMV_OK;
}

/* Who owns each ghost, how many each owner sends us, and what we send. */
static smv_status plan(smv_dist *D, smv_error *err) {
  int P = D->size;
  int *rcnt = calloc((size_t)P, sizeof *rcnt);
  int *scnt = calloc((size_t)P, sizeof *scnt);
  int *rdsp = calloc((size_t)P, sizeof *rdsp);
  int *sdsp = calloc((size_t)P, sizeof *sdsp);
  int64_t *want = NULL;
  smv_status st = SMV_OK;
  if (!rcnt || !scnt || !rdsp || !sdsp)
    st = dist_fail(D, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                   "out of memory for the halo plan of %d ranks", P);
  for (int32_t k = 0; st == SMV_OK && k < D->nghost; k++)
    rcnt[smv_dist_row_owner(D->col_off, P, D->ghost_col[k])]++;
  st = dist_agree(D, st, err);
  int rc = MPI_SUCCESS;
  if (st == SMV_OK && (rc = MPI_Alltoall(rcnt, 1, MPI_INT, scnt, 1, MPI_INT,
                                         D->comm)) != MPI_SUCCESS)
    st = dist_mpi_fail(D, err, rc, "MPI_Alltoall", __FILE__, __LINE__);
  int64_t stotal = 0;
  for (int r = 0; st == SMV_OK && r < P; r++) {
    rdsp[r] = r ? rdsp[r - 1] + rcnt[r - 1] : 0;
    sdsp[r] = (int)(r ? stotal : 0);
    stotal += scnt[r];
    if (stotal > INT_MAX)
      st = dist_fail(D, err, SMV_ERR_OVERFLOW, __FILE__, __LINE__,
                     "rank %d would send %lld x entries per product (int32)",
                     D->rank, (long long)stotal);
  }
  if (st == SMV_OK) {
    want = malloc(((size_t)stotal + 1) * sizeof *want);
    D->send_idx = malloc(((size_t)stotal + 1) * sizeof *D->send_idx);
    D->send_buf = malloc(((size_t)stotal + 1) * sizeof *D->send_buf);
    D->recv_buf = malloc(((size_t)D->nghost + 1) * sizeof *D->recv_buf);
    if (!want || !D->send_idx || !D->send_buf || !D->recv_buf)
      st = dist_fail(D, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                     "out of memory for %lld halo entries", (long long)stotal);
  }
  st = dist_agree(D, st, err);
  if (st == SMV_OK &&
      (rc = MPI_Alltoallv(D->ghost_col, rcnt, rdsp, MPI_INT64_T, want, scnt,
                          sdsp, MPI_INT64_T, D->comm)) != MPI_SUCCESS)
    st = dist_mpi_fail(D, err, rc, "MPI_Alltoallv", __FILE__, __LINE__);
  if (st == SMV_OK) {
    D->nsend_total = (int32_t)stotal;
    int64_t c0 = D->col_off[D->rank];
    for (int64_t k = 0; k < stotal; k++)
      D->send_idx[k] = (int32_t)(want[k] - c0); /* in range by ownership */
    for (int r = 0; r < P; r++) {
      D->nrecv += rcnt[r] > 0;
      D->nsend += scnt[r] > 0;
    }
    D->recv_rank = malloc(((size_t)D->nrecv + 1) * sizeof *D->recv_rank);
    D->recv_start = malloc(((size_t)D->nrecv + 1) * sizeof *D->recv_start);
    D->send_rank = malloc(((size_t)D->nsend + 1) * sizeof *D->send_rank);
    D->send_start = malloc(((size_t)D->nsend + 1) * sizeof *D->send_start);
    D->reqs = malloc(((size_t)D->nrecv + D->nsend + 1) * sizeof *D->reqs);
    if (!D->recv_rank || !D->recv_start || !D->send_rank || !D->send_start ||
        !D->reqs)
      st = dist_fail(D, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                     "out of memory for the halo plan");
  }
  if (st == SMV_OK) {
    int a = 0, b = 0;
    for (int r = 0; r < P; r++) {
      if (rcnt[r] > 0) {
        D->recv_rank[a] = r;
        D->recv_start[a++] = rdsp[r];
      }
      if (scnt[r] > 0) {
        D->send_rank[b] = r;
        D->send_start[b++] = sdsp[r];
      }
    }
    D->recv_start[a] = D->nghost;
    D->send_start[b] = D->nsend_total;
  }
  free(rcnt);
  free(scnt);
  free(rdsp);
  free(sdsp);
  free(want);
  return dist_agree(D, st, err);
}

smv_status dist_build(smv_dist *D, const int32_t *row_ptr,
                      const int64_t *col_idx, const double *values,
                      smv_error *err) {
  smv_status st = split(D, row_ptr, col_idx, values, err);
  st = dist_agree(D, st, err);
  if (st != SMV_OK)
    return st;
  return plan(D, err);
}
