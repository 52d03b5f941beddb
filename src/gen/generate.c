/* generate.c — the entry points of the generators: matrices from a spec string
 * ("lap3d:160", "rand:2000000:16", "plaw:1000:8,cols=500,seed=3"), usable
 * wherever a MATRIX is taken.
 *
 * Design:
 *   - Deterministic on every run and machine: our own PRNG (splitmix64), a
 *     fresh stream per row derived from (seed, kind, row), integer-only
 *     column sampling, and values built from the bits exactly. No rand(),
 *     no libm transcendental (plaw's quantile uses sqrt, which IEEE rounds
 *     correctly everywhere). The row streams also make generation trivially
 *     parallel: the thread count never changes the matrix.
 *   - Fast for large sizes: nnz is known in closed form before anything is
 *     allocated (so int32 overflow is refused up front), row lengths are
 *     written, prefix-summed once, then rows are filled in parallel.
 *     Columns come out sorted per row: stencils and bands by construction,
 *     random rows by selection sampling (dense rows) or by drawing, sorting
 *     the K draws and topping up duplicates (sparse rows). No global sort.
 *     Peak memory is the CSR itself (12 bytes per entry, 4 per row) plus a
 *     scratch of the longest row per thread.
 */
#include "gen.h"
#include "smv_lab.h"

#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- driver --------------------------------------------------------------
 */

/* Refuse, before allocating anything, a spec whose matrix does not fit in
 * memory (SMV_MEM_LIMIT or what the system has available, see memory.c):
 * the CSR, plus for the sampled kinds a scratch of the longest row per
 * thread (rand: K; plaw and denserow: at most min(cols, nnz)). Without this
 * an in-range spec such as rand:2000000000:1 was killed by the OOM killer
 * with no message. */
static smv_status memory_check(const char *spec, const gspec *g,
                               smv_error *err) {
  double bytes = smv__csr_bytes(g->rows, g->nnz);
  /* perm=rand: the row and column permutations and the permuted copy
   * (empty:11:872647045,perm=rand asked for 3.5 GB of column permutation
   * past the guard: found by tests/fuzz/fuzz_gen). */
  if (g->perm)
    bytes +=
        bytes + (double)sizeof(smv_index) * ((double)g->rows + (double)g->cols);
  if (g->kind == G_RAND || g->kind == G_PLAW || g->kind == G_DENSEROW) {
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const int64_t longest = g->kind == G_RAND  ? g->arg[1]
                            : g->cols < g->nnz ? g->cols
                                               : g->nnz;
    bytes += (double)threads * sizeof(smv_index) * (double)longest;
  }
  char why[256];
  if (smv__memory_fits(bytes, why, sizeof why))
    return SMV_OK;
  return gen_spec_error(err, SMV_ERR_NOMEM, spec, G_COUNT,
                        "%lld x %lld with %lld entries %s", (long long)g->rows,
                        (long long)g->cols, (long long)g->nnz, why);
}

/* A generator that ran out of memory for `what`: frees its matrix m. */
smv_status gen_out_of_memory(smv_csr *m, const char *spec, const char *what,
                             smv_error *err) {
  smv_csr_free(m);
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "generator spec '%.120s': out of memory for %s", spec,
                     what);
}

/* A finished generated matrix: sorted rows, real general coordinate. */
smv_status gen_finish(smv_csr *m, smv_csr **A) {
  m->sorted = 1;
  m->field = SMV_FIELD_REAL;
  m->symmetry = SMV_SYM_GENERAL;
  m->format = SMV_FORMAT_COORDINATE;
  *A = m;
  return SMV_OK;
}

/* ---- entry points -------------------------------------------------------- */

smv_status smv_generate(const char *spec, smv_csr **A, smv_error *err) {
  smv_err_clear(err);
  if (A)
    *A = NULL;
  if (!spec || !A)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_generate: NULL spec or result pointer");
  gspec g;
  smv_status st = gen_parse_spec(spec, &g, err);
  if (st == SMV_OK)
    st = memory_check(spec, &g, err);
  if (st != SMV_OK)
    return st;
  smv_csr *m = NULL;
  st = g.kind == G_RMAT ? gen_rmat(&g, spec, &m, err)
                        : gen_rows(&g, spec, &m, err);
  if (st == SMV_OK && g.perm)
    st = gen_permute(&g, spec, &m, err);
  if (st != SMV_OK) {
    smv_csr_free(m);
    return st;
  }
  *A = m;
  return SMV_OK;
}

/* parse_spec for the public entry points that only read a spec. */
static smv_status parse_public(const char *fn, const char *spec, gspec *g,
                               smv_error *err) {
  smv_err_clear(err);
  if (!spec)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: NULL spec", fn);
  return gen_parse_spec(spec, g, err);
}

smv_status smv_generate_perm(const char *spec, smv_index *row_perm,
                             smv_index *col_perm, smv_error *err) {
  gspec g;
  smv_status st = parse_public("smv_generate_perm", spec, &g, err);
  if (st != SMV_OK)
    return st;
  gen_spec_perms(&g, row_perm, col_perm);
  return SMV_OK;
}

smv_status smv_generate_shape(const char *spec, int64_t *rows, int64_t *cols,
                              int64_t *nnz, int *exact, smv_error *err) {
  gspec g;
  smv_status st = parse_public("smv_generate_shape", spec, &g, err);
  if (st != SMV_OK)
    return st;
  if (rows)
    *rows = g.rows;
  if (cols)
    *cols = g.cols;
  if (nnz)
    *nnz = g.nnz;
  if (exact)
    *exact = g.kind != G_RMAT;
  return SMV_OK;
}
