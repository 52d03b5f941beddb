/* rows.c — every kind but rmat: row lengths written, prefix-summed once,
 * then rows filled in parallel, each from its own PRNG stream (seed, kind,
 * row), so the thread count never changes the matrix. Columns come out
 * sorted per row: stencils and bands by construction, random rows by
 * selection sampling (dense rows) or by drawing, sorting the K draws and
 * topping up duplicates (sparse rows). Peak memory: the CSR plus one
 * scratch of the longest row per thread. */
#include "gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Exact nnz of a band row: columns max(0, i-W) .. min(C-1, i+W). */
static int64_t band_len(int64_t i, int64_t w, int64_t cols) {
  int64_t lo = i - w > 0 ? i - w : 0;
  int64_t hi = i + w < cols - 1 ? i + w : cols - 1;
  return hi >= lo ? hi - lo + 1 : 0;
}

/* ---- row lengths ----------------------------------------------------------
 */

static int64_t lap_len(const gspec *g, int64_t i) {
  const int64_t n = g->n;
  int64_t len = 1;
  int64_t c = i;
  int dims = g->kind == G_LAP2D ? 2 : 3;
  for (int d = 0; d < dims; d++, c /= n) {
    int64_t x = c % n;
    len += (x > 0) + (x < n - 1);
  }
  return len;
}

/* plaw: Pareto with tail exponent 2, P(len > L) = (xm/L)^2, xm = AVG/2, so
 * the mean is 2*xm = AVG. Instead of random draws (whose mean wanders with
 * an infinite-variance tail) the rows take the stratified quantiles
 * u_k = (k + 0.5)/ROWS, len = floor(xm / sqrt(u_k)), capped at the
 * columns; stratum k goes to row pi(k) = (a*k + b) mod ROWS with
 * gcd(a, ROWS) = 1, which scatters the long rows. The rounding and the cap
 * leave the total a little off ROWS*AVG; it is made exact by adding one to
 * the shortest rows (removing one from the longest) in stratum order. */
static int64_t gcd64(int64_t x, int64_t y) {
  while (y) {
    int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

static void plaw_lengths(const gspec *g, smv_offset *len) {
  const int64_t rows = g->rows, cols = g->cols, avg = g->arg[1];
  rng r = {mix64(g->seed ^ 0x706c6177ull)};
  int64_t a = rows > 1 ? 1 + rng_below(&r, rows - 1) : 1;
  while (gcd64(a, rows) != 1)
    a++;
  const int64_t b = rows > 1 ? rng_below(&r, rows) : 0;
  const double xm = 0.5 * (double)avg;
  int64_t total = 0;
  for (int64_t k = 0; k < rows; k++) {
    double u = ((double)k + 0.5) / (double)rows;
    double l = floor(xm / sqrt(u));
    int64_t li = l > (double)cols ? cols : (int64_t)l;
    len[(a * k + b) % rows] = (smv_offset)li;
    total += li;
  }
  int64_t diff = rows * avg - total;
  while (diff > 0) /* terminates: AVG <= cols, so some row is below cols */
    for (int64_t k = rows - 1; k >= 0 && diff > 0; k--) {
      smv_offset *l = &len[(a * k + b) % rows];
      if (*l < cols)
        (*l)++, diff--;
    }
  while (diff < 0)
    for (int64_t k = 0; k < rows && diff < 0; k++) {
      smv_offset *l = &len[(a * k + b) % rows];
      if (*l > 0)
        (*l)--, diff++;
    }
}

/* Nodes of the 27-point neighbourhood of grid node `node` (N^3 grid)
 * that lie inside the grid: the product over the axes of 1 + (has a lower
 * neighbour) + (has an upper one). */
static int64_t nbhd27_len(int64_t n, int64_t node) {
  int64_t len = 1;
  for (int d = 0; d < 3; d++, node /= n) {
    int64_t x = node % n;
    len *= 1 + (x > 0) + (x < n - 1);
  }
  return len;
}

/* elastic3d's 3x3 block coupling grid nodes `d` apart (d in {-1,0,1}^3,
 * m = |d|_1 > 0 nonzero components), entry (r, s):
 *   -(1 + d_r^2 / (2m))          on the block diagonal (r == s),
 *   -(1/10 + d_r d_s / (2m))     off it,
 * a shifted "I + d d^T / |d|^2" like an isotropic stiffness: symmetric and
 * even in d, so A(i,j) = A(j,i); never zero (|d_r d_s / (2m)| is 0, 1/4 or
 * 1/6). The node's own block is 40 on its diagonal and 1/2 off it: the 26
 * neighbours' absolute row sums are at most 37.8, plus 1 within the node,
 * so every row is strictly diagonally dominant with a positive diagonal,
 * and the symmetric matrix is positive definite. */
static double elastic_entry(const int d[3], int r, int s) {
  const int m = (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
  if (m == 0)
    return r == s ? 40.0 : 0.5;
  const double dd = (double)(d[r] * d[s]) / (double)(2 * m);
  return r == s ? -(1.0 + dd) : -(0.1 + dd);
}

/* Row i of stencil27 (26 on the diagonal, -1 for each of the up to 26
 * neighbours) or elastic3d (row 3*node + r). Neighbours are visited z,
 * then y, then x ascending, so columns come out sorted. */
static void stencil_fill(const gspec *g, int64_t i, smv_index *c, double *v) {
  const int64_t n = g->n, nn = n * n;
  const int el = g->kind == G_ELASTIC3D;
  const int64_t node = el ? i / 3 : i;
  const int r = el ? (int)(i % 3) : 0;
  const int64_t x = node % n, y = (node / n) % n, z = node / nn;
  int64_t k = 0;
  for (int dz = -1; dz <= 1; dz++) {
    if (z + dz < 0 || z + dz >= n)
      continue;
    for (int dy = -1; dy <= 1; dy++) {
      if (y + dy < 0 || y + dy >= n)
        continue;
      for (int dx = -1; dx <= 1; dx++) {
        if (x + dx < 0 || x + dx >= n)
          continue;
        const int64_t nb = node + dz * nn + dy * n + dx;
        if (!el) {
          c[k] = (smv_index)nb;
          v[k++] = nb == node ? 26.0 : -1.0;
          continue;
        }
        const int d[3] = {dx, dy, dz};
        for (int s = 0; s < 3; s++) {
          c[k] = (smv_index)(3 * nb + s);
          v[k++] = elastic_entry(d, r, s);
        }
      }
    }
  }
}

static int64_t row_len(const gspec *g, int64_t i) {
  switch (g->kind) {
  case G_STENCIL27:
    return nbhd27_len(g->n, i);
  case G_ELASTIC3D:
    return 3 * nbhd27_len(g->n, i / 3);
  case G_LAP2D:
  case G_LAP3D:
    return lap_len(g, i);
  case G_RAND:
    return g->arg[1];
  case G_BAND:
    return band_len(i, g->arg[1], g->cols);
  case G_DENSEROW:
    return i == g->dense_row ? g->cols : g->arg[1];
  case G_DIAG:
    return i < g->cols;
  default:
    return 0;
  }
}

/* ---- row fill --------------------------------------------------------------
 */

static int cmp_idx(const void *pa, const void *pb) {
  smv_index a = *(const smv_index *)pa, b = *(const smv_index *)pb;
  return (a > b) - (a < b);
}

static void sort_idx(smv_index *v, int64_t n) {
  if (n > 32) {
    qsort(v, (size_t)n, sizeof *v, cmp_idx);
    return;
  }
  for (int64_t i = 1; i < n; i++) {
    smv_index t = v[i];
    int64_t j = i;
    for (; j > 0 && v[j - 1] > t; j--)
      v[j] = v[j - 1];
    v[j] = t;
  }
}

/* L distinct columns of 0..C-1, sorted, into out. scratch holds L entries.
 *   L == C: all of them.
 *   C <= 4L: selection sampling (Knuth's Algorithm S), one pass over the
 *     columns, output already sorted, exactly L chosen.
 *   otherwise: draw L, sort, drop duplicates, draw the missing ones again,
 *     merge; each draw collides with probability < 1/4, so the expected
 *     number of rounds is small and the cost O(L log L). */
static void sample_columns(rng *r, int64_t cols, int64_t L, smv_index *out,
                           smv_index *scratch) {
  if (L == cols) {
    for (int64_t c = 0; c < cols; c++)
      out[c] = (smv_index)c;
    return;
  }
  if (cols <= 4 * L) {
    int64_t need = L, k = 0;
    for (int64_t c = 0; c < cols && need > 0; c++)
      if (rng_below(r, cols - c) < need) {
        out[k++] = (smv_index)c;
        need--;
      }
    return;
  }
  int64_t have = 0;
  while (have < L) {
    for (int64_t k = have; k < L; k++)
      out[k] = (smv_index)rng_below(r, cols);
    sort_idx(out + have, L - have);
    /* Merge the sorted unique head [0, have) with the sorted new tail,
     * keeping one of each value. */
    int64_t i = 0, j = have, n = 0;
    while (i < have || j < L) {
      smv_index v;
      if (j >= L || (i < have && out[i] <= out[j]))
        v = out[i++];
      else
        v = out[j++];
      if (n == 0 || scratch[n - 1] != v)
        scratch[n++] = v;
    }
    memcpy(out, scratch, (size_t)n * sizeof *out);
    have = n;
  }
}

static void fill_row(const gspec *g, int64_t i, smv_index *c, double *v,
                     int64_t len, smv_index *scratch) {
  rng r = {mix64(mix64(g->seed + (uint64_t)g->kind * 0x100000001b3ull) +
                 (uint64_t)i)};
  int64_t k = 0;
  switch (g->kind) {
  case G_STENCIL27:
  case G_ELASTIC3D:
    stencil_fill(g, i, c, v);
    return;
  case G_LAP2D:
  case G_LAP3D: {
    const int64_t n = g->n, nn = n * n;
    const int64_t x = i % n, y = (i / n) % n, z = i / nn;
    const int three = g->kind == G_LAP3D;
    if (three && z > 0)
      c[k] = (smv_index)(i - nn), v[k++] = -1.0;
    if (y > 0)
      c[k] = (smv_index)(i - n), v[k++] = -1.0;
    if (x > 0)
      c[k] = (smv_index)(i - 1), v[k++] = -1.0;
    c[k] = (smv_index)i, v[k++] = three ? 6.0 : 4.0;
    if (x < n - 1)
      c[k] = (smv_index)(i + 1), v[k++] = -1.0;
    if (y < n - 1)
      c[k] = (smv_index)(i + n), v[k++] = -1.0;
    if (three && z < n - 1)
      c[k] = (smv_index)(i + nn), v[k++] = -1.0;
    return;
  }
  case G_BAND: {
    int64_t lo = i - g->arg[1] > 0 ? i - g->arg[1] : 0;
    for (k = 0; k < len; k++)
      c[k] = (smv_index)(lo + k);
    break;
  }
  case G_DIAG:
    if (len)
      c[0] = (smv_index)i;
    break;
  case G_RAND:
  case G_PLAW:
  case G_DENSEROW:
    sample_columns(&r, g->cols, len, c, scratch);
    break;
  default:
    return;
  }
  for (k = 0; k < len; k++)
    v[k] = rng_value(&r);
}

/* Every kind but rmat: row lengths, prefix sum, rows filled in parallel. */
smv_status gen_rows(const gspec *gp, const char *spec, smv_csr **A,
                    smv_error *err) {
  const gspec g = *gp;
  smv_csr *m;
  smv_status st =
      smv_csr_create((smv_index)g.rows, (smv_index)g.cols, g.nnz, &m);
  if (st != SMV_OK)
    return smv_err_set(err, st, NULL, 0,
                       "generator spec '%.120s': cannot allocate %lld x %lld "
                       "with %lld entries (%.1f MB)",
                       spec, (long long)g.rows, (long long)g.cols,
                       (long long)g.nnz,
                       ((double)g.nnz * 12.0 + (double)g.rows * 4.0) / 1e6);
  const int64_t rows = g.rows;
  /* Row lengths into row_ptr[i + 1], then one prefix sum. */
  if (g.kind == G_PLAW) {
    plaw_lengths(&g, m->row_ptr + 1);
  } else {
#pragma omp parallel for schedule(static) if (rows > 100000)
    for (int64_t i = 0; i < rows; i++)
      m->row_ptr[i + 1] = (smv_offset)row_len(&g, i);
  }
  int64_t max_len = 0, run = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t l = m->row_ptr[i + 1];
    if (l > max_len)
      max_len = l;
    run += l;
    m->row_ptr[i + 1] = (smv_offset)run;
  }
  if (run != g.nnz) { /* the closed form and the rows disagree: a bug */
    smv_csr_free(m);
    return smv_err_set(err, SMV_ERR_INVALID_MATRIX, NULL, 0,
                       "generator spec '%.120s': internal error: rows hold "
                       "%lld entries, expected %lld",
                       spec, (long long)run, (long long)g.nnz);
  }

  /* One scratch row per thread, only where rows are sampled sparsely. */
  int nthreads = 1;
#ifdef _OPENMP
  nthreads = omp_get_max_threads();
#endif
  const int sampled =
      g.kind == G_RAND || g.kind == G_PLAW || g.kind == G_DENSEROW;
  smv_index **scratch = calloc((size_t)nthreads, sizeof *scratch);
  int nomem = !scratch;
  for (int t = 0; !nomem && sampled && t < nthreads; t++) {
    scratch[t] = malloc((size_t)(max_len > 0 ? max_len : 1) * sizeof **scratch);
    nomem = !scratch[t];
  }
  if (!nomem && g.nnz > 0) { /* no arrays to offset into otherwise: NULL + 0
                                is undefined (found by tests/fuzz/fuzz_gen) */
#pragma omp parallel for schedule(dynamic, 256) if (g.nnz > 100000)
    for (int64_t i = 0; i < rows; i++) {
      int t = 0;
#ifdef _OPENMP
      t = omp_get_thread_num();
#endif
      int64_t k0 = m->row_ptr[i];
      fill_row(&g, i, m->col_idx + k0, m->values + k0, m->row_ptr[i + 1] - k0,
               scratch[t]);
    }
  }
  for (int t = 0; scratch && t < nthreads; t++)
    free(scratch[t]);
  free(scratch);
  if (nomem)
    return gen_out_of_memory(m, spec, "the row scratch", err);
  return gen_finish(m, A);
}
