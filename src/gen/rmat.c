/* rmat.c — Graph500's Kronecker generator (rmat:SCALE:EDGEFACTOR). */
#include "gen.h"

#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- rmat: Graph500's Kronecker generator --------------------------------
 *
 * Edge e (0 <= e < E 2^S) draws its own splitmix64 stream from (seed, e)
 * and descends S levels of the 2x2 initiator: at each level a 32-bit draw
 * u picks the quadrant (0,0) if u < a, (0,1) if u < a+b, (1,0) if
 * u < a+b+c, else (1,1), with Graph500's a = 0.57, b = c = 0.19,
 * d = 0.05 as integer thresholds of 2^32 (exact, so every machine agrees).
 * Graph500's reference also perturbs the probabilities per level ("noise");
 * we do not. The graph is undirected like Graph500's kernel 1 builds it:
 * edge (u, v) stores (u, v) and (v, u); self loops are dropped; duplicate
 * edges are merged into one entry, whose value is a function of the
 * unordered pair (and the seed), so the matrix is exactly symmetric.
 * Vertices keep their Kronecker labels (hubs at small indices: much more
 * locality than Graph500's graph); perm=rand relabels them at random, as
 * Graph500 does.
 *
 * Two passes over the regenerated edges (count the degrees, then place
 * each endpoint at an atomically claimed slot of its row), then every row
 * is sorted and deduplicated. The slots' order depends on the threads, the
 * sorted and merged rows do not. Scratch: the undeduplicated columns (4
 * bytes per stored endpoint) and two int32 arrays of 2^S. */
#define RMAT_A 2448131359u   /* floor(0.57 * 2^32) */
#define RMAT_AB 3264175145u  /* floor(0.76 * 2^32) */
#define RMAT_ABC 4080218931u /* floor(0.95 * 2^32) */

/* Edge e's endpoints; returns 0 for a self-loop (u == v, dropped). */
static int rmat_edge(uint64_t base, int scale, int64_t e, int64_t *u,
                     int64_t *v) {
  rng r = {mix64(base + (uint64_t)e)};
  int64_t uu = 0, vv = 0;
  uint64_t bits = 0;
  for (int l = 0; l < scale; l++) {
    if (l % 2 == 0)
      bits = rng_next(&r);
    uint32_t x = (uint32_t)(l % 2 == 0 ? bits >> 32 : bits);
    int ub = x >= RMAT_AB, vb = (x >= RMAT_A && x < RMAT_AB) || x >= RMAT_ABC;
    uu = uu << 1 | ub;
    vv = vv << 1 | vb;
  }
  *u = uu;
  *v = vv;
  return uu != vv;
}

static double pair_value(uint64_t seed, int64_t i, int64_t j) {
  int64_t lo = i < j ? i : j, hi = i < j ? j : i;
  rng r = {mix64(seed ^ 0x726d61742d76616cull) ^
           mix64((uint64_t)lo << 32 | (uint64_t)hi)};
  return rng_value(&r);
}

/* Sort n distinct non-negative keys in place, carrying vals along (vals
 * may be NULL): insertion sort for short rows, else LSD radix sort by
 * bytes through ktmp/vtmp (n entries each), skipping the bytes every key
 * shares (hub rows of a scale-24 graph hold ~10^5 entries). */
void gen_sort_keys(smv_index *keys, double *vals, int64_t n, smv_index *ktmp,
                   double *vtmp) {
  if (n <= 32) {
    for (int64_t i = 1; i < n; i++) {
      smv_index k = keys[i];
      double v = vals ? vals[i] : 0.0;
      int64_t j = i;
      for (; j > 0 && keys[j - 1] > k; j--) {
        keys[j] = keys[j - 1];
        if (vals)
          vals[j] = vals[j - 1];
      }
      keys[j] = k;
      if (vals)
        vals[j] = v;
    }
    return;
  }
  smv_index *ks = keys, *kd = ktmp;
  double *vs = vals, *vd = vtmp;
  for (int shift = 0; shift < 32; shift += 8) {
    int64_t count[257] = {0};
    for (int64_t i = 0; i < n; i++)
      count[((uint32_t)ks[i] >> shift & 0xff) + 1]++;
    if (count[((uint32_t)ks[0] >> shift & 0xff) + 1] == n)
      continue; /* one bucket: this byte is the same everywhere */
    for (int d = 0; d < 256; d++)
      count[d + 1] += count[d];
    for (int64_t i = 0; i < n; i++) {
      int64_t o = count[(uint32_t)ks[i] >> shift & 0xff]++;
      kd[o] = ks[i];
      if (vals)
        vd[o] = vs[i];
    }
    smv_index *kt = ks;
    ks = kd;
    kd = kt;
    double *vt = vs;
    vs = vd;
    vd = vt;
  }
  if (ks != keys) {
    memcpy(keys, ks, (size_t)n * sizeof *keys);
    if (vals)
      memcpy(vals, vs, (size_t)n * sizeof *vals);
  }
}

smv_status gen_rmat(const gspec *g, const char *spec, smv_csr **A,
                    smv_error *err) {
  const int scale = (int)g->arg[0];
  const int64_t n = g->rows, edges = g->arg[1] * n;
  const uint64_t base = mix64(g->seed + (uint64_t)G_RMAT * 0x100000001b3ull);
  smv_offset *start = calloc((size_t)n + 1, sizeof *start);
  smv_offset *fill = malloc((size_t)n * sizeof *fill);
  smv_index *tmp = NULL;
  smv_csr *m = NULL;
  smv_status st = SMV_OK;
  if (!start || !fill)
    goto nomem;
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < edges; e++) {
    int64_t u, v;
    if (!rmat_edge(base, scale, e, &u, &v))
      continue;
#pragma omp atomic
    start[u + 1]++;
#pragma omp atomic
    start[v + 1]++;
  }
  for (int64_t i = 0; i < n; i++)
    start[i + 1] += start[i];
  tmp = malloc((size_t)(start[n] > 0 ? start[n] : 1) * sizeof *tmp);
  if (!tmp)
    goto nomem;
  memcpy(fill, start, (size_t)n * sizeof *fill);
#pragma omp parallel for schedule(static)
  for (int64_t e = 0; e < edges; e++) {
    int64_t u, v;
    if (!rmat_edge(base, scale, e, &u, &v))
      continue;
    smv_offset su, sv;
#pragma omp atomic capture
    su = fill[u]++;
#pragma omp atomic capture
    sv = fill[v]++;
    tmp[su] = (smv_index)v;
    tmp[sv] = (smv_index)u;
  }
  /* Sort and merge each row in place; its distinct count goes to fill.
   * The radix scratch (the longest row) is one per thread. */
  int64_t max_len = 0;
  for (int64_t i = 0; i < n; i++)
    if (start[i + 1] - start[i] > max_len)
      max_len = start[i + 1] - start[i];
  int nomem = 0;
#pragma omp parallel reduction(| : nomem)
  {
    smv_index *scr = malloc((size_t)(max_len + 1) * sizeof *scr);
    nomem = !scr;
#pragma omp for schedule(dynamic, 1024)
    for (int64_t i = 0; i < n; i++) {
      smv_index *c = tmp + start[i];
      int64_t len = start[i + 1] - start[i], k = 0;
      if (!scr) {
        fill[i] = 0;
        continue;
      }
      gen_sort_keys(c, NULL, len, scr, NULL);
      for (int64_t j = 0; j < len; j++)
        if (k == 0 || c[k - 1] != c[j])
          c[k++] = c[j];
      fill[i] = (smv_offset)k;
    }
    free(scr);
  }
  if (nomem)
    goto nomem;
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++)
    nnz += fill[i];
  st = smv_csr_create((smv_index)n, (smv_index)n, nnz, &m);
  if (st != SMV_OK)
    goto nomem;
  for (int64_t i = 0; i < n; i++)
    m->row_ptr[i + 1] = m->row_ptr[i] + fill[i];
#pragma omp parallel for schedule(dynamic, 1024)
  for (int64_t i = 0; i < n; i++) {
    const smv_index *c = tmp + start[i];
    for (int64_t k = 0, o = m->row_ptr[i]; k < fill[i]; k++, o++) {
      m->col_idx[o] = c[k];
      m->values[o] = pair_value(g->seed, i, c[k]);
    }
  }
  free(start);
  free(fill);
  free(tmp);
  return gen_finish(m, A);
nomem:
  free(start);
  free(fill);
  free(tmp);
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "generator spec '%.120s': out of memory for %lld "
                     "vertices and %lld edges",
                     spec, (long long)n, (long long)edges);
}
