/* spec.c — the generator spec grammar: NAME:ARG[:ARG][,OPTION=VALUE]...,
 * its help text, and the shape and nnz of each kind in closed form (so
 * int32 overflow and memory are refused before anything is allocated). */
#include "gen.h"
#include "smv_lab.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- parsed spec ----------------------------------------------------------
 */

smv_status gen_spec_error(smv_error *err, smv_status st, const char *spec,
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
      return gen_spec_error(err, a > 30 ? SMV_ERR_OVERFLOW : SMV_ERR_PARSE,
                            spec, k,
                            "SCALE must be 1..30 (2^SCALE vertices within the "
                            "int32 index limit), got %lld",
                            (long long)a);
    if (b < 1)
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "EDGEFACTOR must be at least 1");
    g->rows = g->cols = (int64_t)1 << a;
    g->nnz = 2 * b * g->rows; /* the bound; the exact count comes later */
  } else {
    if (a < 1)
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "N must be at least 1");
    if (a > 1290)
      return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                            "N = %lld gives N^3 grid nodes, beyond the int32 "
                            "index limit %d",
                            (long long)a, SMV_INDEX_MAX);
    const int64_t line = 3 * a - 2;
    g->n = a;
    g->rows = g->cols = (k == G_ELASTIC3D ? 3 : 1) * a * a * a;
    g->nnz = (k == G_ELASTIC3D ? 9 : 1) * line * line * line;
    if (g->rows > (int64_t)SMV_INDEX_MAX)
      return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                            "N = %lld gives %lld rows, beyond the int32 index "
                            "limit %d",
                            (long long)a, (long long)g->rows, SMV_INDEX_MAX);
  }
  if (g->nnz > (int64_t)SMV_OFFSET_MAX)
    return gen_spec_error(
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
    return gen_spec_error(err, SMV_ERR_PARSE, spec, G_COUNT,
                          "expected NAME:ARGS with NAME one of " KNOWN_KINDS
                          " (got '%.*s')",
                          (int)(nl > 60 ? 60 : nl), spec);
  }
  gkind k = kind_lookup(spec, (size_t)(colon - spec));
  if (k == G_COUNT)
    return gen_spec_error(err, SMV_ERR_NOT_FOUND, spec, G_COUNT,
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
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "too many arguments: %s takes %d", kinds[k].name,
                            kinds[k].nargs);
    int64_t v;
    if (parse_count(p, (size_t)(q - p), &v) != 0)
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "%s must be a non-negative decimal integer, got "
                            "'%.*s'",
                            arg_names[k][nargs], (int)(q - p > 40 ? 40 : q - p),
                            p);
    if (v < 0 || v > (int64_t)SMV_INDEX_MAX)
      return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                            "%s = %.*s exceeds the int32 index limit %d",
                            arg_names[k][nargs], (int)(q - p > 40 ? 40 : q - p),
                            p, SMV_INDEX_MAX);
    g->arg[nargs++] = v;
    if (q == end)
      break;
    p = q + 1;
  }
  if (nargs < kinds[k].nargs)
    return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                          "missing argument %s: %s takes %d",
                          arg_names[k][nargs], kinds[k].name, kinds[k].nargs);

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
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "option '%.*s' is not KEY=VALUE",
                            (int)(q - key > 40 ? 40 : q - key), key);
    size_t klen = (size_t)(eq - key), vlen = (size_t)(q - eq - 1);
    if (klen == 4 && memcmp(key, "cols", 4) == 0 &&
        (kinds[k].opts & OPT_COLS)) {
      if (have_cols++)
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k, "cols= given twice");
      if (parse_count(eq + 1, vlen, cols_opt) != 0 || *cols_opt == 0)
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                              "cols must be a positive decimal integer, got "
                              "'%.*s'",
                              (int)(vlen > 40 ? 40 : vlen), eq + 1);
      if (*cols_opt < 0 || *cols_opt > (int64_t)SMV_INDEX_MAX)
        return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                              "cols = %.*s exceeds the int32 index limit %d",
                              (int)(vlen > 40 ? 40 : vlen), eq + 1,
                              SMV_INDEX_MAX);
    } else if (klen == 4 && memcmp(key, "seed", 4) == 0 &&
               (kinds[k].opts & OPT_SEED)) {
      if (have_seed++)
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k, "seed= given twice");
      if (parse_u64(eq + 1, vlen, &g->seed) != 0)
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                              "seed must be a decimal integer 0..2^64-1, got "
                              "'%.*s'",
                              (int)(vlen > 40 ? 40 : vlen), eq + 1);
    } else if (klen == 4 && memcmp(key, "perm", 4) == 0 &&
               (kinds[k].opts & OPT_PERM)) {
      if (have_perm++)
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k, "perm= given twice");
      if (vlen == 4 && memcmp(eq + 1, "rand", 4) == 0)
        g->perm = 1;
      else if (!(vlen == 4 && memcmp(eq + 1, "none", 4) == 0))
        return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                              "perm must be rand or none, got '%.*s'",
                              (int)(vlen > 40 ? 40 : vlen), eq + 1);
    } else {
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "unknown option '%.*s' for %s (it takes %s)",
                            (int)(klen > 40 ? 40 : klen), key, kinds[k].name,
                            (kinds[k].opts & OPT_COLS)
                                ? "cols=, seed= and perm="
                                : "perm= and seed=");
    }
    p = q;
  }
  if (have_seed && seedless(k) && !g->perm)
    return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
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
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "N must be at least 1");
    g->n = a;
    /* 46341^2 and 1291^3 are the first to pass 2^31 - 1. */
    if (a > (k == G_LAP2D ? 46340 : 1290))
      return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
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
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "ROWS must be at least 1");
    if (b > g->cols)
      return gen_spec_error(
          err, SMV_ERR_PARSE, spec, k, "%s = %lld exceeds the %lld columns",
          k == G_PLAW ? "AVG" : "K", (long long)b, (long long)g->cols);
    if (k == G_PLAW && b < 1)
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "AVG must be at least 1");
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
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "ROWS must be at least 1");
    g->nnz = band_nnz(a, b, g->cols);
    break;
  case G_DIAG:
    if (a < 1)
      return gen_spec_error(err, SMV_ERR_PARSE, spec, k,
                            "N must be at least 1");
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
    return gen_spec_error(err, SMV_ERR_OVERFLOW, spec, k,
                          "%lld entries exceed the int32 offset limit %d",
                          (long long)g->nnz, SMV_OFFSET_MAX);
  return SMV_OK;
}

smv_status gen_parse_spec(const char *spec, gspec *g, smv_error *err) {
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
