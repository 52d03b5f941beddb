/* generate.c — matrices from a spec string ("lap3d:160", "rand:2000000:16",
 * "plaw:1000:8,cols=500,seed=3"), usable wherever a MATRIX is taken.
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
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ---- the kinds --------------------------------------------------------- */

typedef enum {
  G_LAP2D,
  G_LAP3D,
  G_RAND,
  G_PLAW,
  G_BAND,
  G_DENSEROW,
  G_DIAG,
  G_EMPTY,
  G_COUNT
} gkind;

#define OPT_COLS 1u
#define OPT_SEED 2u

static const struct {
  const char *name;
  int nargs;
  const char *usage; /* the full form, for error messages */
  unsigned opts;     /* OPT_* accepted */
} kinds[G_COUNT] = {
    [G_LAP2D] = {"lap2d", 1, "lap2d:N", 0},
    [G_LAP3D] = {"lap3d", 1, "lap3d:N", 0},
    [G_RAND] = {"rand", 2, "rand:ROWS:K[,cols=C][,seed=S]",
                OPT_COLS | OPT_SEED},
    [G_PLAW] = {"plaw", 2, "plaw:ROWS:AVG[,cols=C][,seed=S]",
                OPT_COLS | OPT_SEED},
    [G_BAND] = {"band", 2, "band:ROWS:W[,cols=C][,seed=S]",
                OPT_COLS | OPT_SEED},
    [G_DENSEROW] = {"denserow", 2, "denserow:ROWS:K[,cols=C][,seed=S]",
                    OPT_COLS | OPT_SEED},
    [G_DIAG] = {"diag", 1, "diag:N[,cols=C][,seed=S]", OPT_COLS | OPT_SEED},
    [G_EMPTY] = {"empty", 2, "empty:ROWS:COLS", 0},
};

static const char help_text[] =
    "Generator specs: NAME:ARG[:ARG][,OPTION=VALUE]...  (decimal integers)\n"
    "  lap2d:N           5-point Laplacian of an N x N grid: N^2 rows, 4 on "
    "the\n"
    "                    diagonal, -1 for each grid neighbour (nnz 5N^2-4N)\n"
    "  lap3d:N           7-point Laplacian of an N x N x N grid: N^3 rows, 6 "
    "and -1\n"
    "                    (nnz 7N^3-6N^2; lap3d:160 has 4.1M rows, 28.5M "
    "nnz)\n"
    "  rand:ROWS:K       K distinct uniformly random columns in every row\n"
    "  plaw:ROWS:AVG     power-law row lengths (Pareto tail, exponent 2): "
    "mean\n"
    "                    exactly AVG, shortest about AVG/2, a few rows up to\n"
    "                    about AVG/2*sqrt(2*ROWS) long (capped at the "
    "columns)\n"
    "  band:ROWS:W       every column within W of the diagonal (2W+1 per "
    "row)\n"
    "  denserow:ROWS:K   K random columns per row, except row ROWS/2 which "
    "is full\n"
    "  diag:N            N x N diagonal\n"
    "  empty:ROWS:COLS   ROWS x COLS with no entries (nnz = 0)\n"
    "Options (after commas, in any order):\n"
    "  cols=C            number of columns (rand, plaw, band, denserow, "
    "diag;\n"
    "                    default: ROWS, square)\n"
    "  seed=S            random stream, 0..2^64-1 (same kinds; default 1)\n"
    "Values: the Laplacians carry their stencil; every other kind draws "
    "each\n"
    "value uniformly from [-1.5,-0.5) U [0.5,1.5) (never zero).\n"
    "Columns are sorted and distinct in every row. The same spec gives the "
    "same\n"
    "matrix on every run, machine and thread count.\n"
    "Limits: ROWS, N^2, N^3 and COLS <= 2147483647; nnz <= 2147483647 "
    "(int32\n"
    "offsets); larger sizes are refused with SMV_ERR_OVERFLOW.\n"
    "Examples: lap3d:160  rand:2000000:16  plaw:2000000:16  "
    "rand:1000:8,cols=200,seed=7\n";

const char *smv_generate_help(void) { return help_text; }

/* Kind whose name is the `len` characters at s, or G_COUNT. */
static gkind kind_lookup(const char *s, size_t len) {
  for (int k = 0; k < G_COUNT; k++)
    if (strlen(kinds[k].name) == len && memcmp(s, kinds[k].name, len) == 0)
      return (gkind)k;
  return G_COUNT;
}

int smv_is_spec(const char *s) {
  if (!s)
    return 0;
  const char *colon = strchr(s, ':');
  return colon && kind_lookup(s, (size_t)(colon - s)) != G_COUNT;
}

/* ---- PRNG: splitmix64 ---------------------------------------------------- */

typedef struct {
  uint64_t s;
} rng;

static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t rng_next(rng *r) {
  r->s += 0x9e3779b97f4a7c15ull;
  return mix64(r->s);
}

/* Uniform in [0, n) for 1 <= n < 2^32 (Lemire's multiply-shift; the bias
 * is below 2^-32 per draw, irrelevant for test matrices). */
static int64_t rng_below(rng *r, int64_t n) {
  return (int64_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* A value in [-1.5,-0.5) U [0.5,1.5): magnitude from the top 52 bits (the
 * product is exact, so the result is bit-identical everywhere), sign from
 * the lowest. */
static double rng_value(rng *r) {
  uint64_t b = rng_next(r);
  double mag = 0.5 + (double)(b >> 12) * 0x1p-52;
  return (b & 1) ? -mag : mag;
}

/* ---- parsed spec ----------------------------------------------------------
 */

typedef struct {
  gkind kind;
  int64_t arg[2];
  int64_t rows, cols;
  uint64_t seed;
  int64_t n;         /* grid side (lap2d, lap3d) */
  int64_t dense_row; /* denserow */
  int64_t nnz;       /* known before allocation */
} gspec;

static smv_status spec_error(smv_error *err, smv_status st, const char *spec,
                             gkind k, const char *fmt, ...) SMV_PRINTF(5, 6);
static smv_status spec_error(smv_error *err, smv_status st, const char *spec,
                             gkind k, const char *fmt, ...) {
  char reason[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  if (k == G_COUNT)
    return smv_err_set(err, st, NULL, 0, "generator spec '%.120s': %s", spec,
                       reason);
  return smv_err_set(err, st, NULL, 0,
                     "generator spec '%.120s': %s (expected %s)", spec, reason,
                     kinds[k].usage);
}

/* A decimal integer occupying exactly [s, s+len): digits only. Values past
 * 2^62 are reported as such (*v = -1 marks "too large"), so callers can say
 * "overflow" rather than "not a number". Returns 0, or -1 if not a number. */
static int parse_count(const char *s, size_t len, int64_t *v) {
  if (len == 0)
    return -1;
  uint64_t x = 0;
  int big = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    if (x > (UINT64_C(1) << 62) / 10)
      big = 1;
    else
      x = x * 10 + (uint64_t)(s[i] - '0');
  }
  *v = big || x > (UINT64_C(1) << 62) ? -1 : (int64_t)x;
  return 0;
}

static int parse_u64(const char *s, size_t len, uint64_t *v) {
  if (len == 0)
    return -1;
  uint64_t x = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] < '0' || s[i] > '9')
      return -1;
    unsigned d = (unsigned)(s[i] - '0');
    if (x > (UINT64_MAX - d) / 10)
      return -1;
    x = x * 10 + d;
  }
  *v = x;
  return 0;
}

/* Exact nnz of a band row: columns max(0, i-W) .. min(C-1, i+W). */
static int64_t band_len(int64_t i, int64_t w, int64_t cols) {
  int64_t lo = i - w > 0 ? i - w : 0;
  int64_t hi = i + w < cols - 1 ? i + w : cols - 1;
  return hi >= lo ? hi - lo + 1 : 0;
}

/* Sum of i over [lo, hi), without overflow for hi <= 2^32: halve the even
 * factor first, so the product stays below 2^62. */
static int64_t sum_range(int64_t lo, int64_t hi) {
  if (hi <= lo)
    return 0;
  int64_t n = hi - lo, s = lo + hi - 1;
  return n % 2 == 0 ? (n / 2) * s : n * (s / 2);
}

/* Total of band_len over rows 0..R-1 in O(1): rows i >= C + W are empty;
 * for the others len = min(C-1, i+W) - max(0, i-W) + 1, summed piecewise
 * (rows below C-W reach i+W, the rest stop at C-1; rows from W on start at
 * i-W, the ones before at 0). A loop would take seconds for 2^31 rows. */
static int64_t band_nnz(int64_t rows, int64_t w, int64_t cols) {
  int64_t m = rows < cols + w ? rows : cols + w;
  int64_t t = cols - w < 0 ? 0 : (cols - w > m ? m : cols - w);
  int64_t hi_sum = sum_range(0, t) + t * w + (m - t) * (cols - 1);
  int64_t s = w < m ? w : m;
  int64_t lo_sum = sum_range(s, m) - (m - s) * w;
  return hi_sum - lo_sum + m;
}

static smv_status parse_spec(const char *spec, gspec *g, smv_error *err) {
  memset(g, 0, sizeof *g);
  g->seed = 1;
  const char *colon = strchr(spec, ':');
  size_t comma_at = strcspn(spec, ",");
  if (!colon || (size_t)(colon - spec) > comma_at) {
    size_t nl = colon ? (size_t)(colon - spec) : comma_at;
    return spec_error(err, SMV_ERR_PARSE, spec, G_COUNT,
                      "expected NAME:ARGS with NAME one of lap2d, lap3d, "
                      "rand, plaw, band, denserow, diag, empty (got '%.*s')",
                      (int)(nl > 60 ? 60 : nl), spec);
  }
  gkind k = kind_lookup(spec, (size_t)(colon - spec));
  if (k == G_COUNT)
    return spec_error(err, SMV_ERR_NOT_FOUND, spec, G_COUNT,
                      "unknown generator '%.*s' (known: lap2d, lap3d, rand, "
                      "plaw, band, denserow, diag, empty)",
                      (int)((colon - spec) > 60 ? 60 : colon - spec), spec);
  g->kind = k;

  /* Positional arguments: colon-separated up to the first comma. */
  const char *p = colon + 1;
  const char *end = spec + comma_at;
  int nargs = 0;
  static const char *const arg_names[G_COUNT][2] = {
      [G_LAP2D] = {"N", NULL},  [G_LAP3D] = {"N", NULL},
      [G_RAND] = {"ROWS", "K"}, [G_PLAW] = {"ROWS", "AVG"},
      [G_BAND] = {"ROWS", "W"}, [G_DENSEROW] = {"ROWS", "K"},
      [G_DIAG] = {"N", NULL},   [G_EMPTY] = {"ROWS", "COLS"},
  };
  for (;;) {
    const char *q = p;
    while (q < end && *q != ':')
      q++;
    if (nargs == kinds[k].nargs)
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "too many arguments: %s takes %d", kinds[k].name,
                        kinds[k].nargs);
    int64_t v;
    if (parse_count(p, (size_t)(q - p), &v) != 0)
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "%s must be a non-negative decimal integer, got "
                        "'%.*s'",
                        arg_names[k][nargs], (int)(q - p > 40 ? 40 : q - p), p);
    if (v < 0 || v > (int64_t)SMV_INDEX_MAX)
      return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                        "%s = %.*s exceeds the int32 index limit %d",
                        arg_names[k][nargs], (int)(q - p > 40 ? 40 : q - p), p,
                        SMV_INDEX_MAX);
    g->arg[nargs++] = v;
    if (q == end)
      break;
    p = q + 1;
  }
  if (nargs < kinds[k].nargs)
    return spec_error(err, SMV_ERR_PARSE, spec, k,
                      "missing argument %s: %s takes %d", arg_names[k][nargs],
                      kinds[k].name, kinds[k].nargs);

  /* Options: ,key=value pairs. */
  int have_cols = 0, have_seed = 0;
  int64_t cols_opt = 0;
  p = end;
  while (*p == ',') {
    const char *key = p + 1;
    const char *q = key + strcspn(key, ",");
    const char *eq = memchr(key, '=', (size_t)(q - key));
    if (!eq)
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "option '%.*s' is not KEY=VALUE",
                        (int)(q - key > 40 ? 40 : q - key), key);
    size_t klen = (size_t)(eq - key), vlen = (size_t)(q - eq - 1);
    if (klen == 4 && memcmp(key, "cols", 4) == 0 &&
        (kinds[k].opts & OPT_COLS)) {
      if (have_cols++)
        return spec_error(err, SMV_ERR_PARSE, spec, k, "cols= given twice");
      if (parse_count(eq + 1, vlen, &cols_opt) != 0 || cols_opt == 0)
        return spec_error(err, SMV_ERR_PARSE, spec, k,
                          "cols must be a positive decimal integer, got "
                          "'%.*s'",
                          (int)(vlen > 40 ? 40 : vlen), eq + 1);
      if (cols_opt < 0 || cols_opt > (int64_t)SMV_INDEX_MAX)
        return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                          "cols = %.*s exceeds the int32 index limit %d",
                          (int)(vlen > 40 ? 40 : vlen), eq + 1, SMV_INDEX_MAX);
    } else if (klen == 4 && memcmp(key, "seed", 4) == 0 &&
               (kinds[k].opts & OPT_SEED)) {
      if (have_seed++)
        return spec_error(err, SMV_ERR_PARSE, spec, k, "seed= given twice");
      if (parse_u64(eq + 1, vlen, &g->seed) != 0)
        return spec_error(err, SMV_ERR_PARSE, spec, k,
                          "seed must be a decimal integer 0..2^64-1, got "
                          "'%.*s'",
                          (int)(vlen > 40 ? 40 : vlen), eq + 1);
    } else {
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "unknown option '%.*s' for %s (it takes %s)",
                        (int)(klen > 40 ? 40 : klen), key, kinds[k].name,
                        kinds[k].opts == 0          ? "no options"
                        : kinds[k].opts == OPT_SEED ? "seed="
                                                    : "cols= and seed=");
    }
    p = q;
  }

  /* Shapes, ranges and the exact nnz (int64: every product below is at
   * most 2^31 * 2^31 = 2^62). */
  const int64_t a = g->arg[0], b = g->arg[1];
  switch (k) {
  case G_LAP2D:
  case G_LAP3D:
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "N must be at least 1");
    g->n = a;
    /* 46341^2 and 1291^3 are the first to pass 2^31 - 1. */
    if (a > (k == G_LAP2D ? 46340 : 1290))
      return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                        "N = %lld gives N^%d rows, beyond the int32 index "
                        "limit %d",
                        (long long)a, k == G_LAP2D ? 2 : 3, SMV_INDEX_MAX);
    g->rows = k == G_LAP2D ? a * a : a * a * a;
    g->cols = g->rows;
    /* Each of the d axes has N-1 neighbour pairs per grid line, N^(d-1)
     * lines, and every pair gives two entries. */
    g->nnz = k == G_LAP2D ? 5 * a * a - 4 * a : 7 * a * a * a - 6 * a * a;
    break;
  case G_RAND:
  case G_PLAW:
  case G_DENSEROW:
    g->rows = a;
    g->cols = have_cols ? cols_opt : a;
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "ROWS must be at least 1");
    if (b > g->cols)
      return spec_error(
          err, SMV_ERR_PARSE, spec, k, "%s = %lld exceeds the %lld columns",
          k == G_PLAW ? "AVG" : "K", (long long)b, (long long)g->cols);
    if (k == G_PLAW && b < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "AVG must be at least 1");
    if (k == G_DENSEROW) {
      g->dense_row = a / 2;
      g->nnz = (a - 1) * b + g->cols;
    } else {
      g->nnz = a * b;
    }
    break;
  case G_BAND:
    g->rows = a;
    g->cols = have_cols ? cols_opt : a;
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "ROWS must be at least 1");
    g->nnz = band_nnz(a, b, g->cols);
    break;
  case G_DIAG:
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "N must be at least 1");
    g->rows = a;
    g->cols = have_cols ? cols_opt : a;
    g->nnz = a < g->cols ? a : g->cols;
    break;
  case G_EMPTY:
    g->rows = a;
    g->cols = b;
    g->nnz = 0;
    break;
  case G_COUNT:
    break;
  }
  if (g->nnz > (int64_t)SMV_OFFSET_MAX)
    return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                      "%lld entries exceed the int32 offset limit %d",
                      (long long)g->nnz, SMV_OFFSET_MAX);
  return SMV_OK;
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

static int64_t row_len(const gspec *g, int64_t i) {
  switch (g->kind) {
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
  return spec_error(err, SMV_ERR_NOMEM, spec, G_COUNT,
                    "%lld x %lld with %lld entries %s", (long long)g->rows,
                    (long long)g->cols, (long long)g->nnz, why);
}

smv_status smv_generate(const char *spec, smv_csr **A, smv_error *err) {
  smv_err_clear(err);
  if (A)
    *A = NULL;
  if (!spec || !A)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_generate: NULL spec or result pointer");
  gspec g;
  smv_status st = parse_spec(spec, &g, err);
  if (st == SMV_OK)
    st = memory_check(spec, &g, err);
  if (st != SMV_OK)
    return st;
  smv_csr *m;
  st = smv_csr_create((smv_index)g.rows, (smv_index)g.cols, g.nnz, &m);
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
  if (nomem) {
    smv_csr_free(m);
    return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "generator spec '%.120s': out of memory for the row "
                       "scratch",
                       spec);
  }
  m->sorted = 1;
  m->field = SMV_FIELD_REAL;
  m->symmetry = SMV_SYM_GENERAL;
  m->format = SMV_FORMAT_COORDINATE;
  *A = m;
  return SMV_OK;
}
