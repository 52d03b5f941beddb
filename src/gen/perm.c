/* perm.c — perm=rand on every kind: B = P A Q^T. */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

/* ---- perm=rand: B = P A Q^T ----------------------------------------------
 *
 * p maps old row i to new row p[i], q old column j to new column q[j]:
 * B(p[i], q[j]) = A(i, j). Square matrices use q = p (a symmetric
 * permutation: B = P A P^T keeps the diagonal on the diagonal and a
 * symmetric matrix symmetric; y = A x becomes (P y) = B (P x)). A
 * rectangular matrix gets independent row and column permutations. Both
 * are Fisher-Yates shuffles of the identity driven by their own streams of
 * the spec's seed (serial: 2^31 steps at most, a few ns each). */
static void random_perm(uint64_t seed, uint64_t tag, int64_t n, smv_index *p) {
  rng r = {mix64(seed ^ tag)};
  for (int64_t i = 0; i < n; i++)
    p[i] = (smv_index)i;
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = rng_below(&r, i + 1);
    smv_index t = p[i];
    p[i] = p[j];
    p[j] = t;
  }
}

#define PERM_ROWS 0x7065726d2d726f77ull /* "perm-row" */
#define PERM_COLS 0x7065726d2d636f6cull /* "perm-col" */

/* The permutations a parsed spec applies (the identity without perm). */
void gen_spec_perms(const gspec *g, smv_index *p, smv_index *q) {
  if (p && !g->perm)
    for (int64_t i = 0; i < g->rows; i++)
      p[i] = (smv_index)i;
  else if (p)
    random_perm(g->seed, PERM_ROWS, g->rows, p);
  if (!q)
    return;
  if (g->perm && g->rows == g->cols && p)
    memcpy(q, p, (size_t)g->cols * sizeof *q);
  else if (g->perm)
    random_perm(g->seed, g->rows == g->cols ? PERM_ROWS : PERM_COLS, g->cols,
                q);
  else
    for (int64_t j = 0; j < g->cols; j++)
      q[j] = (smv_index)j;
}

smv_status gen_permute(const gspec *g, const char *spec, smv_csr **A,
                       smv_error *err) {
  smv_csr *a = *A, *b = NULL;
  const int64_t rows = a->rows;
  smv_index *p = malloc((size_t)(rows > 0 ? rows : 1) * sizeof *p);
  smv_index *q = malloc((size_t)(a->cols > 0 ? a->cols : 1) * sizeof *q);
  int64_t max_len = 0;
  for (int64_t i = 0; i < rows; i++)
    if (a->row_ptr[i + 1] - a->row_ptr[i] > max_len)
      max_len = a->row_ptr[i + 1] - a->row_ptr[i];
  int nomem = !p || !q || smv_csr_create(a->rows, a->cols, a->nnz, &b);
  if (!nomem) {
    gen_spec_perms(g, p, q);
#pragma omp parallel for schedule(static) if (rows > 100000)
    for (int64_t i = 0; i < rows; i++)
      b->row_ptr[p[i] + 1] = a->row_ptr[i + 1] - a->row_ptr[i];
    for (int64_t i = 0; i < rows; i++)
      b->row_ptr[i + 1] += b->row_ptr[i];
      /* Row i lands in row p[i], columns renamed, then sorted in place
       * (radix scratch: one longest row per thread). */
#pragma omp parallel reduction(| : nomem) if (a->nnz > 100000)
    {
      smv_index *kt = malloc((size_t)(max_len + 1) * sizeof *kt);
      double *vt = malloc((size_t)(max_len + 1) * sizeof *vt);
      nomem = !kt || !vt;
#pragma omp for schedule(dynamic, 256)
      for (int64_t i = 0; i < rows; i++) {
        const int64_t k0 = a->row_ptr[i], len = a->row_ptr[i + 1] - k0;
        if (len == 0) /* an empty row: no arrays to offset into when nnz = 0
                         (NULL + 0 is undefined: tests/fuzz/fuzz_gen found
                         it on empty:45:4,perm=rand) */
          continue;
        smv_index *c = b->col_idx + b->row_ptr[p[i]];
        double *v = b->values + b->row_ptr[p[i]];
        for (int64_t k = 0; k < len; k++) {
          c[k] = q[a->col_idx[k0 + k]];
          v[k] = a->values[k0 + k];
        }
        if (kt && vt)
          gen_sort_keys(c, v, len, kt, vt);
      }
      free(kt);
      free(vt);
    }
  }
  free(p);
  free(q);
  if (nomem)
    return gen_out_of_memory(b, spec, "the permuted copy", err);
  smv_csr_free(a);
  return gen_finish(b, A);
}
