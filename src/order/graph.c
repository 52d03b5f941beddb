/* graph.c — the symmetrised pattern of a square CSR (order_graph.h).
 *
 * A^T's pattern comes from a counting sort by column (as smv_csr_transpose,
 * without the values); row i of A + A^T is then row i of A followed by row
 * i of A^T, each column kept once by a marker array (marker[j] == i: j is
 * already in row i), the diagonal skipped. Two passes: count, then fill. */
#include "order_graph.h"

#include <stdlib.h>

void smv__graph_free(smv__graph *g) {
  if (!g)
    return;
  free(g->ptr);
  free(g->adj);
  g->ptr = NULL;
  g->adj = NULL;
  g->n = 0;
}

/* One pass over row i of A and of A^T (tptr/tidx): count (adj NULL) or
 * write the new neighbours from adj[at]. Returns how many there were. */
static int64_t row_pass(const smv_csr *A, const int64_t *tptr,
                        const smv_index *tidx, smv_index *marker, int64_t i,
                        smv_index *adj, int64_t at) {
  int64_t c = 0;
  marker[i] = (smv_index)i; /* no self-loops */
  for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
    smv_index j = A->col_idx[k];
    if (marker[j] != (smv_index)i) {
      marker[j] = (smv_index)i;
      if (adj)
        adj[at + c] = j;
      c++;
    }
  }
  for (int64_t k = tptr[i]; k < tptr[i + 1]; k++) {
    smv_index j = tidx[k];
    if (marker[j] != (smv_index)i) {
      marker[j] = (smv_index)i;
      if (adj)
        adj[at + c] = j;
      c++;
    }
  }
  return c;
}

static void marker_reset(smv_index *marker, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    marker[i] = -1;
}

smv_status smv__graph_build(const smv_csr *A, const char *who, smv__graph *g,
                            smv_error *err) {
  if (!g)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: graph is NULL", who);
  g->n = 0;
  g->ptr = NULL;
  g->adj = NULL;
  smv_status st = smv_csr_check(A, err);
  if (st != SMV_OK)
    return st;
  if (A->rows != A->cols)
    return smv_err_set(err, SMV_ERR_DIM, NULL, 0,
                       "%s needs a square matrix, not %lld x %lld", who,
                       (long long)A->rows, (long long)A->cols);
  const int64_t n = A->rows, nnz = A->nnz;
  int64_t *tptr = calloc((size_t)n + 1, sizeof *tptr);
  smv_index *tidx = malloc(((size_t)nnz + 1) * sizeof *tidx);
  smv_index *marker = malloc(((size_t)n + 1) * sizeof *marker);
  int64_t *ptr = calloc((size_t)n + 1, sizeof *ptr);
  smv_index *adj = NULL;
  if (!tptr || !tidx || !marker || !ptr) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "%s: out of memory for the graph of a %lld x %lld "
                     "matrix with %lld entries",
                     who, (long long)n, (long long)n, (long long)nnz);
    goto fail;
  }
  /* A^T's pattern: counts, offsets, then entries in A's row order, so each
   * of its rows lists A's row indices in increasing order. */
  for (int64_t k = 0; k < nnz; k++)
    tptr[A->col_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++)
    tptr[j + 1] += tptr[j];
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      tidx[tptr[A->col_idx[k]]++] = (smv_index)i;
  for (int64_t j = n; j > 0; j--) /* the fill moved each start to the end */
    tptr[j] = tptr[j - 1];
  tptr[0] = 0;

  marker_reset(marker, n);
  for (int64_t i = 0; i < n; i++)
    ptr[i + 1] = ptr[i] + row_pass(A, tptr, tidx, marker, i, NULL, 0);
  adj = malloc(((size_t)ptr[n] + 1) * sizeof *adj);
  if (!adj) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "%s: out of memory for the graph's %lld edges", who,
                     (long long)ptr[n]);
    goto fail;
  }
  marker_reset(marker, n);
  for (int64_t i = 0; i < n; i++)
    row_pass(A, tptr, tidx, marker, i, adj, ptr[i]);
  free(tptr);
  free(tidx);
  free(marker);
  g->n = n;
  g->ptr = ptr;
  g->adj = adj;
  return SMV_OK;
fail:
  free(tptr);
  free(tidx);
  free(marker);
  free(ptr);
  free(adj);
  return st;
}
