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
#include "smv_lab.h"

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
  G_STENCIL27,
  G_ELASTIC3D,
  G_RMAT,
  G_COUNT
} gkind;

#define OPT_COLS 1u
#define OPT_SEED 2u
#define OPT_PERM 4u /* every kind: perm=rand|none */

static const struct {
  const char *name;
  int nargs;
  const char *usage; /* the full form, for error messages */
  unsigned opts;     /* OPT_* accepted */
} kinds[G_COUNT] = {
    [G_LAP2D] = {"lap2d", 1, "lap2d:N[,perm=rand[,seed=S]]",
                 OPT_PERM | OPT_SEED},
    [G_LAP3D] = {"lap3d", 1, "lap3d:N[,perm=rand[,seed=S]]",
                 OPT_PERM | OPT_SEED},
    [G_RAND] = {"rand", 2, "rand:ROWS:K[,cols=C][,seed=S][,perm=rand]",
                OPT_COLS | OPT_SEED | OPT_PERM},
    [G_PLAW] = {"plaw", 2, "plaw:ROWS:AVG[,cols=C][,seed=S][,perm=rand]",
                OPT_COLS | OPT_SEED | OPT_PERM},
    [G_BAND] = {"band", 2, "band:ROWS:W[,cols=C][,seed=S][,perm=rand]",
                OPT_COLS | OPT_SEED | OPT_PERM},
    [G_DENSEROW] = {"denserow", 2,
                    "denserow:ROWS:K[,cols=C][,seed=S][,perm=rand]",
                    OPT_COLS | OPT_SEED | OPT_PERM},
    [G_DIAG] = {"diag", 1, "diag:N[,cols=C][,seed=S][,perm=rand]",
                OPT_COLS | OPT_SEED | OPT_PERM},
    [G_EMPTY] = {"empty", 2, "empty:ROWS:COLS[,perm=rand[,seed=S]]",
                 OPT_PERM | OPT_SEED},
    [G_STENCIL27] = {"stencil27", 1, "stencil27:N[,perm=rand[,seed=S]]",
                     OPT_PERM | OPT_SEED},
    [G_ELASTIC3D] = {"elastic3d", 1, "elastic3d:N[,perm=rand[,seed=S]]",
                     OPT_PERM | OPT_SEED},
    [G_RMAT] = {"rmat", 2, "rmat:SCALE:EDGEFACTOR[,seed=S][,perm=rand]",
                OPT_SEED | OPT_PERM},
};

/* Kinds whose matrix does not depend on the seed: there seed= only picks
 * perm=rand's permutation, so it is refused without it. */
static int seedless(int k) {
  return k == G_LAP2D || k == G_LAP3D || k == G_EMPTY || k == G_STENCIL27 ||
         k == G_ELASTIC3D;
}

#define KNOWN_KINDS                                                            \
  "lap2d, lap3d, stencil27, elastic3d, rand, plaw, band, denserow, diag, "     \
  "empty, rmat"

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
    "  stencil27:N       27-point stencil of an N x N x N grid (HPCG): N^3 "
    "rows,\n"
    "                    26 on the diagonal, -1 for each neighbour "
    "(nnz (3N-2)^3)\n"
    "  elastic3d:N       3-D elasticity-like: N^3 nodes x 3 unknowns, a 3x3 "
    "block\n"
    "                    per 27-point neighbour (81 per interior row; nnz\n"
    "                    9(3N-2)^3); symmetric, diagonally dominant, SPD\n"
    "  rmat:SCALE:EF     Graph500 Kronecker graph (a,b,c,d = "
    ".57,.19,.19,.05):\n"
    "                    2^SCALE vertices, EF*2^SCALE edges stored both "
    "ways,\n"
    "                    self loops dropped, duplicates merged (nnz <=\n"
    "                    2*EF*2^SCALE); Kronecker labels unless perm=rand\n"
    "Options (after commas, in any order):\n"
    "  cols=C            number of columns (rand, plaw, band, denserow, "
    "diag;\n"
    "                    default: ROWS, square)\n"
    "  seed=S            random stream, 0..2^64-1 (default 1); on lap2d, "
    "lap3d,\n"
    "                    stencil27, elastic3d and empty only with perm=rand\n"
    "  perm=rand         every kind: relabel at random, B = P A P^T (rows "
    "and\n"
    "                    columns independently if not square); "
    "perm=none: as is\n"
    "Values: the Laplacians and stencils carry their stencil; every other "
    "kind draws "
    "each\n"
    "value uniformly from [-1.5,-0.5) U [0.5,1.5) (never zero).\n"
    "Columns are sorted and distinct in every row. The same spec gives the "
    "same\n"
    "matrix on every run, machine and thread count.\n"
    "Limits: ROWS, N^2, N^3 and COLS <= 2147483647; nnz <= 2147483647 "
    "(int32\n"
    "offsets); larger sizes are refused with SMV_ERR_OVERFLOW.\n"
    "Examples: lap3d:160  rand:2000000:16  plaw:2000000:16  "
    "rand:1000:8,cols=200,seed=7\n"
    "          stencil27:100  elastic3d:60  rmat:22:16  "
    "lap3d:160,perm=rand\n";

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

/* The library's one stream (src/core/rng.c). */
typedef smv_rng rng;
static uint64_t mix64(uint64_t z) { return smv_mix64(z); }
static uint64_t rng_next(rng *r) { return smv_rng_next(r); }

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
  int64_t nnz;       /* known before allocation (rmat: an upper bound) */
  int perm;          /* perm=rand: P A P^T (see permute below) */
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

/* Shapes and nnz of the kinds added for the issue-8 suite (int64: every
 * product stays below 2^62).
 *   stencil27:N  27-point stencil: along each axis a node has itself and
 *                up to two neighbours, 3N-2 (i, i') pairs with |i-i'| <= 1
 *                per axis, so nnz = (3N-2)^3 exactly.
 *   elastic3d:N  the same node graph with a 3x3 block per pair:
 *                rows 3N^3, nnz = 9 (3N-2)^3.
 *   rmat:S:E     2^S vertices, E 2^S generated edges, each stored both
 *                ways: nnz <= 2 E 2^S (self loops and duplicates dropped),
 *                and the bound must fit int32 before anything is drawn. */
static smv_status parse_new_shapes(const char *spec, gspec *g, smv_error *err) {
  const gkind k = g->kind;
  const int64_t a = g->arg[0], b = g->arg[1];
  if (k == G_RMAT) {
    if (a < 1 || a > 30)
      return spec_error(err, a > 30 ? SMV_ERR_OVERFLOW : SMV_ERR_PARSE, spec, k,
                        "SCALE must be 1..30 (2^SCALE vertices within the "
                        "int32 index limit), got %lld",
                        (long long)a);
    if (b < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "EDGEFACTOR must be at least 1");
    g->rows = g->cols = (int64_t)1 << a;
    g->nnz = 2 * b * g->rows; /* the bound; the exact count comes later */
  } else {
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "N must be at least 1");
    if (a > 1290)
      return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                        "N = %lld gives N^3 grid nodes, beyond the int32 "
                        "index limit %d",
                        (long long)a, SMV_INDEX_MAX);
    const int64_t line = 3 * a - 2;
    g->n = a;
    g->rows = g->cols = (k == G_ELASTIC3D ? 3 : 1) * a * a * a;
    g->nnz = (k == G_ELASTIC3D ? 9 : 1) * line * line * line;
    if (g->rows > (int64_t)SMV_INDEX_MAX)
      return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                        "N = %lld gives %lld rows, beyond the int32 index "
                        "limit %d",
                        (long long)a, (long long)g->rows, SMV_INDEX_MAX);
  }
  if (g->nnz > (int64_t)SMV_OFFSET_MAX)
    return spec_error(
        err, SMV_ERR_OVERFLOW, spec, k,
        "%lld entries%s exceed the int32 offset limit %d", (long long)g->nnz,
        k == G_RMAT ? " (2 EDGEFACTOR 2^SCALE)" : "", SMV_OFFSET_MAX);
  return SMV_OK;
}

/* NAME before the first colon: g->kind. */
static smv_status parse_name(const char *spec, gspec *g, smv_error *err) {
  const char *colon = strchr(spec, ':');
  size_t comma_at = strcspn(spec, ",");
  if (!colon || (size_t)(colon - spec) > comma_at) {
    size_t nl = colon ? (size_t)(colon - spec) : comma_at;
    return spec_error(err, SMV_ERR_PARSE, spec, G_COUNT,
                      "expected NAME:ARGS with NAME one of " KNOWN_KINDS
                      " (got '%.*s')",
                      (int)(nl > 60 ? 60 : nl), spec);
  }
  gkind k = kind_lookup(spec, (size_t)(colon - spec));
  if (k == G_COUNT)
    return spec_error(err, SMV_ERR_NOT_FOUND, spec, G_COUNT,
                      "unknown generator '%.*s' (known: " KNOWN_KINDS ")",
                      (int)((colon - spec) > 60 ? 60 : colon - spec), spec);
  g->kind = k;
  return SMV_OK;
}

/* Positional arguments, colon-separated up to `end` (the first comma):
 * g->arg. */
static smv_status parse_args(const char *spec, const char *end, gspec *g,
                             smv_error *err) {
  const gkind k = g->kind;
  const char *p = strchr(spec, ':') + 1;
  int nargs = 0;
  static const char *const arg_names[G_COUNT][2] = {
      [G_LAP2D] = {"N", NULL},
      [G_LAP3D] = {"N", NULL},
      [G_RAND] = {"ROWS", "K"},
      [G_PLAW] = {"ROWS", "AVG"},
      [G_BAND] = {"ROWS", "W"},
      [G_DENSEROW] = {"ROWS", "K"},
      [G_DIAG] = {"N", NULL},
      [G_EMPTY] = {"ROWS", "COLS"},
      [G_STENCIL27] = {"N", NULL},
      [G_ELASTIC3D] = {"N", NULL},
      [G_RMAT] = {"SCALE", "EDGEFACTOR"},
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

  return SMV_OK;
}

/* Options after `end`: ,key=value pairs. *cols_opt is 0 unless cols=
 * was given (a positive count). */
static smv_status parse_options(const char *spec, const char *end, gspec *g,
                                int64_t *cols_opt, smv_error *err) {
  const gkind k = g->kind;
  int have_cols = 0, have_seed = 0, have_perm = 0;
  const char *p = end;
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
      if (parse_count(eq + 1, vlen, cols_opt) != 0 || *cols_opt == 0)
        return spec_error(err, SMV_ERR_PARSE, spec, k,
                          "cols must be a positive decimal integer, got "
                          "'%.*s'",
                          (int)(vlen > 40 ? 40 : vlen), eq + 1);
      if (*cols_opt < 0 || *cols_opt > (int64_t)SMV_INDEX_MAX)
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
    } else if (klen == 4 && memcmp(key, "perm", 4) == 0 &&
               (kinds[k].opts & OPT_PERM)) {
      if (have_perm++)
        return spec_error(err, SMV_ERR_PARSE, spec, k, "perm= given twice");
      if (vlen == 4 && memcmp(eq + 1, "rand", 4) == 0)
        g->perm = 1;
      else if (!(vlen == 4 && memcmp(eq + 1, "none", 4) == 0))
        return spec_error(err, SMV_ERR_PARSE, spec, k,
                          "perm must be rand or none, got '%.*s'",
                          (int)(vlen > 40 ? 40 : vlen), eq + 1);
    } else {
      return spec_error(err, SMV_ERR_PARSE, spec, k,
                        "unknown option '%.*s' for %s (it takes %s)",
                        (int)(klen > 40 ? 40 : klen), key, kinds[k].name,
                        (kinds[k].opts & OPT_COLS) ? "cols=, seed= and perm="
                                                   : "perm= and seed=");
    }
    p = q;
  }
  if (have_seed && seedless(k) && !g->perm)
    return spec_error(err, SMV_ERR_PARSE, spec, k,
                      "seed= on %s only chooses the permutation: give "
                      "perm=rand too",
                      kinds[k].name);

  return SMV_OK;
}

/* Shapes, ranges and the exact nnz (int64: every product below is at
 * most 2^31 * 2^31 = 2^62). */
static smv_status spec_shape(const char *spec, gspec *g, int64_t cols_opt,
                             smv_error *err) {
  const gkind k = g->kind;
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
    g->cols = cols_opt ? cols_opt : a;
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
    g->cols = cols_opt ? cols_opt : a;
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "ROWS must be at least 1");
    g->nnz = band_nnz(a, b, g->cols);
    break;
  case G_DIAG:
    if (a < 1)
      return spec_error(err, SMV_ERR_PARSE, spec, k, "N must be at least 1");
    g->rows = a;
    g->cols = cols_opt ? cols_opt : a;
    g->nnz = a < g->cols ? a : g->cols;
    break;
  case G_EMPTY:
    g->rows = a;
    g->cols = b;
    g->nnz = 0;
    break;
  case G_STENCIL27:
  case G_ELASTIC3D:
  case G_RMAT:
    return parse_new_shapes(spec, g, err);
  case G_COUNT:
    break;
  }
  if (g->nnz > (int64_t)SMV_OFFSET_MAX)
    return spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                      "%lld entries exceed the int32 offset limit %d",
                      (long long)g->nnz, SMV_OFFSET_MAX);
  return SMV_OK;
}

static smv_status parse_spec(const char *spec, gspec *g, smv_error *err) {
  memset(g, 0, sizeof *g);
  g->seed = 1;
  const char *end = spec + strcspn(spec, ",");
  int64_t cols_opt = 0;
  smv_status st;
  if ((st = parse_name(spec, g, err)) != SMV_OK ||
      (st = parse_args(spec, end, g, err)) != SMV_OK ||
      (st = parse_options(spec, end, g, &cols_opt, err)) != SMV_OK)
    return st;
  return spec_shape(spec, g, cols_opt, err);
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
  return spec_error(err, SMV_ERR_NOMEM, spec, G_COUNT,
                    "%lld x %lld with %lld entries %s", (long long)g->rows,
                    (long long)g->cols, (long long)g->nnz, why);
}

/* A generator that ran out of memory for `what`: frees its matrix m. */
static smv_status out_of_memory(smv_csr *m, const char *spec, const char *what,
                                smv_error *err) {
  smv_csr_free(m);
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "generator spec '%.120s': out of memory for %s", spec,
                     what);
}

/* A finished generated matrix: sorted rows, real general coordinate. */
static smv_status generated(smv_csr *m, smv_csr **A) {
  m->sorted = 1;
  m->field = SMV_FIELD_REAL;
  m->symmetry = SMV_SYM_GENERAL;
  m->format = SMV_FORMAT_COORDINATE;
  *A = m;
  return SMV_OK;
}

/* Every kind but rmat: row lengths, prefix sum, rows filled in parallel. */
static smv_status generate_rows(const gspec *gp, const char *spec, smv_csr **A,
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
    return out_of_memory(m, spec, "the row scratch", err);
  return generated(m, A);
}

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
static void sort_keys(smv_index *keys, double *vals, int64_t n, smv_index *ktmp,
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

static smv_status rmat_build(const gspec *g, const char *spec, smv_csr **A,
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
      sort_keys(c, NULL, len, scr, NULL);
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
  return generated(m, A);
nomem:
  free(start);
  free(fill);
  free(tmp);
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "generator spec '%.120s': out of memory for %lld "
                     "vertices and %lld edges",
                     spec, (long long)n, (long long)edges);
}

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
static void spec_perms(const gspec *g, smv_index *p, smv_index *q) {
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

static smv_status permute(const gspec *g, const char *spec, smv_csr **A,
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
    spec_perms(g, p, q);
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
          sort_keys(c, v, len, kt, vt);
      }
      free(kt);
      free(vt);
    }
  }
  free(p);
  free(q);
  if (nomem)
    return out_of_memory(b, spec, "the permuted copy", err);
  smv_csr_free(a);
  return generated(b, A);
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
  smv_status st = parse_spec(spec, &g, err);
  if (st == SMV_OK)
    st = memory_check(spec, &g, err);
  if (st != SMV_OK)
    return st;
  smv_csr *m = NULL;
  st = g.kind == G_RMAT ? rmat_build(&g, spec, &m, err)
                        : generate_rows(&g, spec, &m, err);
  if (st == SMV_OK && g.perm)
    st = permute(&g, spec, &m, err);
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
  return parse_spec(spec, g, err);
}

smv_status smv_generate_perm(const char *spec, smv_index *row_perm,
                             smv_index *col_perm, smv_error *err) {
  gspec g;
  smv_status st = parse_public("smv_generate_perm", spec, &g, err);
  if (st != SMV_OK)
    return st;
  spec_perms(&g, row_perm, col_perm);
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
