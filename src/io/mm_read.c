/*
 * mm_read.c — Matrix Market reader: banner, size line, entries, and the
 * assembly of a sorted, duplicate-free CSR.
 *
 * Flow and memory for a coordinate file claiming K entries (E stored after
 * symmetric expansion, E <= 2K):
 *   1. entries are parsed straight out of the input window (mm_input.c)
 *      into triplets: row and column int32, value double = 16 bytes each
 *      (8 for pattern). The triplet arrays grow geometrically, capped by K;
 *      for a plain file of known size they start at min(K, bytes left / 4
 *      or 6), the most entries the rest of the file can hold, so a size
 *      line that lies never buys a giant allocation.
 *   2. a counting sort by row scatters them into the CSR (12 bytes per
 *      entry); mirrored entries of symmetric files go to the other row.
 *      Input in column-major or row-major order comes out with sorted rows;
 *      other rows get a stable sort (so duplicates add up in file order).
 *   3. duplicates are summed in place; if any were, the column and value
 *      arrays are shrunk (realloc) to the exact size.
 * Array files: the values (8 bytes each) are collected the same way, then
 * laid out as a dense CSR (every stored value kept, zeros included).
 */
#include "mm_input.h"

#include <errno.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* A token ends at a blank or the end of its line. */
#define ENDS_TOKEN(c) (MM_IS_BLANK(c) || (c) == '\n')

/* Index digits are accumulated up to this, then saturate (any larger value
 * is out of range anyway). */
#define INDEX_SATURATE ((uint64_t)1 << 40)

typedef struct {
  mm_input in;
  const char *name;
  smv_error *err;
  long line; /* lines consumed so far; the current line is line + 1 */
  int64_t max_entries, max_dim;
  smv_format format;
  smv_field field;
  smv_symmetry sym;
  int64_t rows, cols, claim; /* claim: entries the file must hold */
  /* triplets (coordinate) or values (array) */
  int32_t *ri, *ci;
  double *vv;
  int64_t n, cap;
  int64_t offdiag; /* off-diagonal entries of a symmetric file */
  int64_t vec;     /* -2: a matrix; -1: a vector (n x 1 or 1 x n); n >= 0: a
                      vector of exactly n values */
} mm_reader;

static smv_status rd_err(mm_reader *r, smv_status st, long line,
                         const char *fmt, ...) SMV_PRINTF(4, 5);
static smv_status rd_err(mm_reader *r, smv_status st, long line,
                         const char *fmt, ...) {
  char why[SMV_ERROR_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return smv_err_set(r->err, st, r->name, line, "%s", why);
}

/* The token at p as it may be shown in a message: up to its blank or end
 * of line, at most 24 bytes, non-printable bytes as \xNN. */
static const char *show(const char *p, char out[128]) {
  size_t o = 0;
  int k = 0;
  for (; !ENDS_TOKEN(*p) && k < 24; p++, k++) {
    unsigned char c = (unsigned char)*p;
    if (c >= 0x20 && c < 0x7f && c != '\\')
      out[o++] = (char)c;
    else
      o += (size_t)snprintf(out + o, 8, "\\x%02x", c);
  }
  if (!ENDS_TOKEN(*p)) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  out[o] = '\0';
  return out;
}

/* An error of the input layer: a line too long is reported at its line;
 * gzip and read errors concern the input as a whole (decoding runs ahead
 * of the parser), so they carry no line. */
static smv_status input_error(mm_reader *r, long line) {
  return rd_err(r, r->in.st, r->in.why_line ? line + 1 : 0, "%s", r->in.why);
}

/* Next line for the header phase: *lp points at it (it ends in '\n' inside
 * the window). Returns 1, 0 at the end of the input, -1 on an error
 * (already reported). */
static int next_line(mm_reader *r, const char **lp) {
  mm_input *in = &r->in;
  int f = smv__mm_input_fill(in, &r->line);
  if (f < 0) {
    input_error(r, r->line);
    return -1;
  }
  if (f == 0)
    return 0;
  const char *p = in->buf + in->pos;
  const char *nl = memchr(p, '\n', in->lim - in->pos);
  in->pos = (size_t)(nl + 1 - in->buf);
  r->line++;
  *lp = p;
  return 1;
}

static int lower(int c) { return (c >= 'A' && c <= 'Z') ? c + 32 : c; }

/* Case-insensitive: is the word [p, p+n) equal to lowercase w? */
static int word_is(const char *p, size_t n, const char *w) {
  if (strlen(w) != n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (lower((unsigned char)p[i]) != w[i])
      return 0;
  return 1;
}

/* The next blank-separated word of a line: *p advanced past it. */
static size_t next_word(const char **p, const char **w) {
  const char *q = *p;
  while (MM_IS_BLANK(*q))
    q++;
  *w = q;
  while (!ENDS_TOKEN(*q))
    q++;
  *p = q;
  return (size_t)(q - *w);
}

/* The next banner word, which must be one of names[] (NULL-terminated):
 * its index, or -1 after reporting it missing or unknown (SMV_ERR_PARSE),
 * `missing` and `known` listing what was expected in either message. */
static int banner_word(mm_reader *r, const char **p, long L, const char *what,
                       const char *const names[], const char *missing,
                       const char *known) {
  const char *w;
  char tok[128];
  size_t n = next_word(p, &w);
  if (n == 0) {
    rd_err(r, SMV_ERR_PARSE, L, "banner: missing %s (expected %s)", what,
           missing);
    return -1;
  }
  for (int k = 0; names[k]; k++)
    if (word_is(w, n, names[k]))
      return k;
  rd_err(r, SMV_ERR_PARSE, L, "banner: unknown %s '%s' (expected %s)", what,
         show(w, tok), known);
  return -1;
}

static smv_status parse_banner(mm_reader *r) {
  const char *p;
  int f = next_line(r, &p);
  if (f < 0)
    return r->in.st;
  if (f == 0)
    return rd_err(r, SMV_ERR_PARSE, 0,
                  "empty file (no %%%%MatrixMarket banner)");
  const long L = r->line;
  /* Binary input (an image, a gzip stream named .mtx, a core file) gets its
   * own message, not one about line endings or the banner. */
  const char *eol = strchr(p, '\n');
  const char *bin = mm_binary_byte(p, eol ? (size_t)(eol - p) : strlen(p));
  if (bin)
    return rd_err(r, SMV_ERR_PARSE, L,
                  "binary data (byte 0x%02x at offset %ld of the first line), "
                  "not a Matrix Market text file",
                  (unsigned char)*bin, (long)(bin - p));
  /* A bare CR followed by more text: lines end in CR alone (classic Mac
   * OS), so the whole file reads as one line. Say so rather than report
   * whatever the banner check stumbles on. (CRLF is fine: CR is a blank.) */
  for (const char *q = p; *q != '\n'; q++)
    if (*q == '\r' && q[1] != '\n' && q[1] != '\r' && !MM_IS_BLANK(q[1]))
      return rd_err(r, SMV_ERR_PARSE, L,
                    "the file uses CR line endings (no LF after the banner): "
                    "convert them to LF, e.g. tr '\\r' '\\n' < IN > OUT");
  if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb &&
      (unsigned char)p[2] == 0xbf)
    p += 3; /* UTF-8 byte order mark, as some editors write it */
  const char *w, *start = p;
  size_t n = next_word(&p, &w);
  if (w != start || !word_is(w, n, "%%matrixmarket"))
    return rd_err(r, SMV_ERR_PARSE, L,
                  "missing Matrix Market banner: the first line must start "
                  "with '%%%%MatrixMarket matrix'");
  char tok[128];
  static const char *const objects[] = {"matrix", NULL};
  static const char *const formats[] = {"coordinate", "array", NULL};
  static const char *const fields[] = {"real",    "double",  "integer",
                                       "pattern", "complex", NULL};
  static const char *const syms[] = {"general", "symmetric", "skew-symmetric",
                                     "hermitian", NULL};
  if (banner_word(r, &p, L, "object", objects, "'matrix'", "'matrix'") < 0)
    return SMV_ERR_PARSE;
  int k = banner_word(r, &p, L, "format", formats, "'coordinate' or 'array'",
                      "'coordinate' or 'array'");
  if (k < 0)
    return SMV_ERR_PARSE;
  r->format = k == 0 ? SMV_FORMAT_COORDINATE : SMV_FORMAT_ARRAY;
  k = banner_word(r, &p, L, "field", fields, "'real', 'integer' or 'pattern'",
                  "'real', 'integer', 'pattern' or 'complex'");
  if (k < 0)
    return SMV_ERR_PARSE;
  const int complex = k == 4;
  if (k <= 1)
    r->field = SMV_FIELD_REAL;
  else if (k == 2)
    r->field = SMV_FIELD_INTEGER;
  else if (k == 3)
    r->field = SMV_FIELD_PATTERN;
  k = banner_word(r, &p, L, "symmetry", syms,
                  "'general', 'symmetric' or 'skew-symmetric'",
                  "'general', 'symmetric', 'skew-symmetric' or 'hermitian'");
  if (k < 0)
    return SMV_ERR_PARSE;
  const int hermitian = k == 3;
  if (k == 0)
    r->sym = SMV_SYM_GENERAL;
  else if (k == 1)
    r->sym = SMV_SYM_SYMMETRIC;
  else if (k == 2)
    r->sym = SMV_SYM_SKEW;
  n = next_word(&p, &w);
  if (n != 0)
    return rd_err(r, SMV_ERR_PARSE, L,
                  "banner: unexpected '%s' after the symmetry", show(w, tok));
  if (complex)
    return rd_err(r, SMV_ERR_UNSUPPORTED, L,
                  "complex matrices are not supported (smv computes in "
                  "real arithmetic)");
  if (hermitian)
    return rd_err(r, SMV_ERR_UNSUPPORTED, L,
                  "hermitian matrices are not supported (they are complex)");
  if (r->format == SMV_FORMAT_ARRAY && r->field == SMV_FIELD_PATTERN)
    return rd_err(r, SMV_ERR_PARSE, L,
                  "banner: the pattern field is not allowed with the array "
                  "format");
  if (r->sym == SMV_SYM_SKEW && r->field == SMV_FIELD_PATTERN)
    return rd_err(r, SMV_ERR_PARSE, L,
                  "banner: a pattern matrix cannot be skew-symmetric");
  return SMV_OK;
}

/* A size-line number as written in the file, for messages: up to 80
 * characters, then "..." and how many digits there were in all (a value
 * past the saturation point is never shown as a number it is not). */
static const char *as_written(const char *t, char out[128]) {
  size_t n = 0;
  while (!ENDS_TOKEN(t[n]))
    n++;
  if (n <= 80)
    snprintf(out, 128, "%.*s", (int)n, t);
  else
    snprintf(out, 128, "%.40s...%.20s (%zu characters)", t, t + n - 20, n);
  return out;
}

/* One size-line integer: digits with an optional sign, saturating. Returns
 * 0 and the value, or -1 if the token is not an integer. */
static int size_int(const char **pp, int64_t *v) {
  const char *p = *pp;
  int neg = 0;
  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  if (!MM_IS_DIGIT(*p))
    return -1;
  uint64_t x = 0;
  for (; MM_IS_DIGIT(*p); p++)
    if (x < INDEX_SATURATE * 1000)
      x = x * 10 + (unsigned)(*p - '0');
  if (!ENDS_TOKEN(*p))
    return -1;
  *v = neg ? -(int64_t)x : (int64_t)x;
  *pp = p;
  return 0;
}

/* The CSR of r->rows rows with `entries` entries must fit in memory (see
 * memory.c): SMV_ERR_NOMEM saying how much it needs, at `line`. Row offsets
 * are allocated only once the entries are read, but a size line with 2^31
 * rows already says they will not fit. */
static smv_status memory_guard(mm_reader *r, long line, int64_t entries) {
  char why[256];
  if (smv__memory_fits(smv__csr_bytes(r->rows, entries), why, sizeof why))
    return SMV_OK;
  return rd_err(r, SMV_ERR_NOMEM, line,
                "a %lld x %lld matrix with %lld entries %s", (long long)r->rows,
                (long long)r->cols, (long long)entries, why);
}

static smv_status parse_size(mm_reader *r) {
  const char *p;
  for (;;) {
    int f = next_line(r, &p);
    if (f < 0)
      return r->in.st;
    if (f == 0)
      return rd_err(r, SMV_ERR_PARSE, r->line,
                    "missing size line (the file ends after the banner)");
    while (MM_IS_BLANK(*p))
      p++;
    if (*p != '\n' && *p != '%')
      break;
  }
  const long L = r->line;
  const int coo = r->format == SMV_FORMAT_COORDINATE;
  const char *what = coo ? "rows columns entries" : "rows columns";
  const char *names[3] = {"row count", "column count", "entry count"};
  int64_t v[3] = {0, 0, 0};
  const char *written[3] = {NULL, NULL, NULL}; /* the tokens, for messages */
  char tok[128];
  for (int k = 0; k < 2 + coo; k++) {
    while (MM_IS_BLANK(*p))
      p++;
    if (*p == '\n')
      return rd_err(r, SMV_ERR_PARSE, L,
                    "size line: missing %s (expected '%s')", names[k], what);
    const char *t = written[k] = p;
    if (size_int(&p, &v[k]) < 0)
      return rd_err(r, SMV_ERR_PARSE, L,
                    "size line: '%s' is not an integer (expected '%s')",
                    show(t, tok), what);
    if (v[k] < 0)
      return rd_err(r, SMV_ERR_PARSE, L, "size line: negative %s %s", names[k],
                    as_written(t, tok));
  }
  while (MM_IS_BLANK(*p))
    p++;
  if (*p != '\n')
    return rd_err(r, SMV_ERR_PARSE, L,
                  "size line: unexpected '%s' after the %s (expected '%s')",
                  show(p, tok), names[1 + coo], what);
  for (int k = 0; k < 2; k++)
    if (v[k] > r->max_dim)
      return rd_err(r, SMV_ERR_OVERFLOW, L,
                    "size line: %s %s exceeds the %s limit %lld", names[k],
                    as_written(written[k], tok),
                    r->max_dim == SMV_INDEX_MAX ? "int32 index" : "set",
                    (long long)r->max_dim);
  r->rows = v[0];
  r->cols = v[1];
  /* A vector read knows its shape, and often its length, from here on:
   * refuse before anything is allocated. */
  if (r->vec >= -1 && r->rows != 1 && r->cols != 1)
    return rd_err(r, SMV_ERR_DIM, L,
                  "not a vector: a %lld x %lld matrix (expected n x 1 or 1 x "
                  "n)",
                  (long long)r->rows, (long long)r->cols);
  if (r->vec >= 0 && (r->cols == 1 ? r->rows : r->cols) != r->vec)
    return rd_err(r, SMV_ERR_DIM, L, "vector has %lld entries, expected %lld",
                  (long long)(r->cols == 1 ? r->rows : r->cols),
                  (long long)r->vec);
  if (r->sym != SMV_SYM_GENERAL && r->rows != r->cols)
    return rd_err(r, SMV_ERR_PARSE, L,
                  "size line: a %s matrix must be square, not %lld x %lld",
                  r->sym == SMV_SYM_SKEW ? "skew-symmetric" : "symmetric",
                  (long long)r->rows, (long long)r->cols);
  if (coo) {
    r->claim = v[2];
    if (r->claim > r->max_entries)
      return rd_err(r, SMV_ERR_OVERFLOW, L,
                    "size line: %s entries exceed the limit of %lld "
                    "(int32 row offsets)",
                    as_written(written[2], tok), (long long)r->max_entries);
    return memory_guard(r, L, 0);
  }
  /* Array: the count is implied, and so is the expanded one. */
  int64_t m = r->rows, n = r->cols, stored;
  if (r->sym == SMV_SYM_GENERAL)
    r->claim = stored = m * n;
  else if (r->sym == SMV_SYM_SYMMETRIC)
    r->claim = m * (m + 1) / 2, stored = m * m;
  else
    r->claim = m * (m > 0 ? m - 1 : 0) / 2, stored = m * (m > 0 ? m - 1 : 0);
  if (stored > r->max_entries)
    return rd_err(r, SMV_ERR_OVERFLOW, L,
                  "size line: a %lld x %lld array holds %lld entries%s, more "
                  "than the limit of %lld (int32 row offsets)",
                  (long long)m, (long long)n, (long long)stored,
                  r->sym == SMV_SYM_GENERAL ? "" : " after symmetric expansion",
                  (long long)r->max_entries);
  return memory_guard(r, L, stored);
}

/* ---- entry storage ------------------------------------------------------- */

/* First capacity: all claimed entries if the rest of a plain file can hold
 * them (min_bytes per entry), else as many as it can hold; unknown size
 * (gzip, pipes, memory streams): start small and double. */
static int64_t first_capacity(mm_reader *r, int min_bytes) {
  mm_input *in = &r->in;
  int64_t cap = r->claim < 4096 ? r->claim : 4096;
  if (!in->gz && in->total > 0) {
    uint64_t unread = (uint64_t)(in->len - in->pos);
    uint64_t at = in->raw_done > unread ? in->raw_done - unread : 0;
    uint64_t left = in->total > at ? in->total - at : 0;
    int64_t fits = (int64_t)(left / (uint64_t)min_bytes) + 1;
    cap = r->claim < fits ? r->claim : fits;
  }
  return cap;
}

static int grow(mm_reader *r, int want_idx, int want_val) {
  int64_t cap = r->cap ? 2 * r->cap : 4096;
  if (cap > r->claim)
    cap = r->claim;
  if (cap <= r->n)
    return -1; /* cannot happen: n < claim is checked first */
  if (want_idx) {
    int32_t *a = realloc(r->ri, (size_t)cap * sizeof *a);
    if (!a)
      return -1;
    r->ri = a;
    int32_t *b = realloc(r->ci, (size_t)cap * sizeof *b);
    if (!b)
      return -1;
    r->ci = b;
  }
  if (want_val) {
    double *c = realloc(r->vv, (size_t)cap * sizeof *c);
    if (!c)
      return -1;
    r->vv = c;
  }
  r->cap = cap;
  return 0;
}

static smv_status nomem(mm_reader *r, long line) {
  return rd_err(r, SMV_ERR_NOMEM, line,
                "out of memory after %lld entries (the size line says %lld)",
                (long long)r->n, (long long)r->claim);
}

/* ---- entries ------------------------------------------------------------- */

/* Value at *pp for the file's field, the last token of its line: *pp is
 * left at the '\n'. Errors name the token, or what follows it (`why` ends
 * that message). */
static smv_status value_at(mm_reader *r, const char **pp, long L, double *v,
                           const char *why) {
  const char *t = *pp, *e;
  char tok[128];
  mm_num_status s = r->field == SMV_FIELD_INTEGER
                        ? smv__mm_scan_integer_value(t, v, &e)
                        : smv__mm_scan_real(t, 1, v, &e);
  if (s == MM_NUM_OK && !ENDS_TOKEN(*e))
    s = MM_NUM_SYNTAX;
  if (s == MM_NUM_OVERFLOW)
    return rd_err(r, SMV_ERR_PARSE, L, "value '%s' overflows double",
                  show(t, tok));
  if (s != MM_NUM_OK)
    return rd_err(r, SMV_ERR_PARSE, L, "bad %s value '%s'",
                  r->field == SMV_FIELD_INTEGER ? "integer" : "real",
                  show(t, tok));
  while (MM_IS_BLANK(*e))
    e++;
  if (*e != '\n')
    return rd_err(r, SMV_ERR_PARSE, L, "unexpected '%s' after the value%s",
                  show(e, tok), why);
  *pp = e;
  return SMV_OK;
}

/* An index that failed the fast path: say why. */
static smv_status bad_index(mm_reader *r, const char *t, long L, int col) {
  char tok[128];
  const char *what = col ? "column" : "row";
  if (*t == '\n')
    return rd_err(r, SMV_ERR_PARSE, L, "missing %s index", what);
  const char *p = t;
  uint64_t x = 0;
  while (MM_IS_DIGIT(*p)) {
    if (x < INDEX_SATURATE)
      x = x * 10 + (unsigned)(*p - '0');
    p++;
  }
  if (p == t || !ENDS_TOKEN(*p))
    return rd_err(r, SMV_ERR_PARSE, L,
                  "bad %s index '%s' (expected an integer from 1)", what,
                  show(t, tok));
  int64_t lim = col ? r->cols : r->rows;
  if (x >= INDEX_SATURATE)
    return rd_err(r, SMV_ERR_PARSE, L, "%s index %s out of range 1..%lld", what,
                  show(t, tok), (long long)lim);
  return rd_err(r, SMV_ERR_PARSE, L, "%s index %llu out of range 1..%lld", what,
                (unsigned long long)x, (long long)lim);
}

/* Parse one index at *pp: digits then a blank or end of line, in 1..lim.
 * Returns the zero-based index or -1 (caller reports with bad_index). */
static inline int64_t index_at(const char **pp, int64_t lim) {
  const char *p = *pp;
  uint64_t x = 0;
  if (!MM_IS_DIGIT(*p))
    return -1;
  do {
    if (x < INDEX_SATURATE)
      x = x * 10 + (unsigned)(*p - '0');
    p++;
  } while (MM_IS_DIGIT(*p));
  if (!ENDS_TOKEN(*p) || x == 0 || x > (uint64_t)lim)
    return -1;
  *pp = p;
  return (int64_t)x - 1;
}

/* The entry loops' step to the next line with content: refills the input
 * window once *pp reaches *limp (both updated), counts each line in *line
 * and skips blank and comment lines. Returns 1 with *pp at the first
 * non-blank byte of that line, 0 at the end of the input, -1 on an input
 * error (reported). */
static inline int next_entry_line(mm_reader *r, const char **pp,
                                  const char **limp, long *line) {
  mm_input *in = &r->in;
  const char *p = *pp, *lim = *limp;
  for (;;) {
    if (p >= lim) {
      in->pos = (size_t)(p - in->buf);
      int f = smv__mm_input_fill(in, line);
      if (f < 0) {
        input_error(r, *line);
        return -1;
      }
      if (f == 0)
        return 0;
      p = in->buf + in->pos;
      lim = in->buf + in->lim;
      *limp = lim;
    }
    ++*line; /* p is at the start of line *line */
    while (MM_IS_BLANK(*p))
      p++;
    if (*p == '\n') {
      p++;
      continue;
    }
    if (*p == '%') {
      p = (const char *)memchr(p, '\n', (size_t)(lim - p)) + 1;
      continue;
    }
    *pp = p;
    return 1;
  }
}

static smv_status read_coordinate(mm_reader *r) {
  mm_input *in = &r->in;
  const int pattern = r->field == SMV_FIELD_PATTERN;
  const int sym = r->sym != SMV_SYM_GENERAL;
  const int skew = r->sym == SMV_SYM_SKEW;
  const int64_t M = r->rows, N = r->cols, K = r->claim;
  char tok[128];
  smv_status st;

  r->cap = first_capacity(r, pattern ? 4 : 6);
  if (r->cap > 0) {
    r->ri = malloc((size_t)r->cap * sizeof *r->ri);
    r->ci = malloc((size_t)r->cap * sizeof *r->ci);
    r->vv = pattern ? NULL : malloc((size_t)r->cap * sizeof *r->vv);
    if (!r->ri || !r->ci || (!pattern && !r->vv))
      return nomem(r, r->line);
  }
  int64_t n = 0, offdiag = 0;
  long line = r->line;
  const char *p = in->buf + in->pos, *lim = in->buf + in->lim;
  int f;
  while ((f = next_entry_line(r, &p, &lim, &line)) > 0) {
    const char *t = p;
    int64_t i = index_at(&p, M);
    if (i < 0)
      return bad_index(r, t, line, 0);
    while (MM_IS_BLANK(*p))
      p++;
    t = p;
    int64_t j = index_at(&p, N);
    if (j < 0)
      return bad_index(r, t, line, 1);
    double v = 1.0;
    while (MM_IS_BLANK(*p))
      p++;
    if (!pattern) {
      if (*p == '\n')
        return rd_err(r, SMV_ERR_PARSE, line, "missing value");
      if ((st = value_at(r, &p, line, &v, "")) != SMV_OK)
        return st;
    } else if (*p != '\n') {
      return rd_err(r, SMV_ERR_PARSE, line,
                    "unexpected '%s' after the column index (a pattern entry "
                    "has no value)",
                    show(p, tok));
    }
    p++;
    if (n == K)
      return rd_err(r, SMV_ERR_PARSE, line,
                    "too many entries (the size line says %lld)", (long long)K);
    if (sym && i == j) {
      if (skew)
        return rd_err(r, SMV_ERR_PARSE, line,
                      "diagonal entry (%lld,%lld) in a skew-symmetric matrix "
                      "(its diagonal is zero and is not stored)",
                      (long long)i + 1, (long long)j + 1);
    } else if (sym) {
      offdiag++;
    }
    if (n == r->cap) {
      r->n = n;
      if (grow(r, 1, !pattern) < 0)
        return nomem(r, line);
    }
    r->ri[n] = (int32_t)i;
    r->ci[n] = (int32_t)j;
    if (!pattern)
      r->vv[n] = v;
    n++;
  }
  if (f < 0)
    return r->in.st;
  r->n = n;
  r->offdiag = offdiag;
  r->line = line;
  if (n < K)
    return rd_err(r, SMV_ERR_PARSE, line,
                  "the file ends after %lld of %lld entries (the size line "
                  "says %lld)",
                  (long long)n, (long long)K, (long long)K);
  return SMV_OK;
}

static smv_status read_array(mm_reader *r) {
  mm_input *in = &r->in;
  const int64_t K = r->claim;
  smv_status st;
  r->cap = first_capacity(r, 2);
  if (r->cap > 0) {
    r->vv = malloc((size_t)r->cap * sizeof *r->vv);
    if (!r->vv)
      return nomem(r, r->line);
  }
  int64_t n = 0;
  long line = r->line;
  const char *p = in->buf + in->pos, *lim = in->buf + in->lim;
  int f;
  while ((f = next_entry_line(r, &p, &lim, &line)) > 0) {
    double v;
    if ((st = value_at(r, &p, line, &v,
                       " (an array file has one value per line)")) != SMV_OK)
      return st;
    p++;
    if (n == K)
      return rd_err(r, SMV_ERR_PARSE, line,
                    "too many values (a %lld x %lld %s array holds %lld)",
                    (long long)r->rows, (long long)r->cols,
                    r->sym == SMV_SYM_GENERAL     ? "general"
                    : r->sym == SMV_SYM_SYMMETRIC ? "symmetric"
                                                  : "skew-symmetric",
                    (long long)K);
    if (n == r->cap) {
      r->n = n;
      if (grow(r, 0, 1) < 0)
        return nomem(r, line);
    }
    r->vv[n++] = v;
  }
  if (f < 0)
    return r->in.st;
  r->n = n;
  r->line = line;
  if (n < K)
    return rd_err(r, SMV_ERR_PARSE, line,
                  "the file ends after %lld of %lld values", (long long)n,
                  (long long)K);
  return SMV_OK;
}

/* ---- assembly ------------------------------------------------------------ */

/* Stable sort of (col, val) pairs by column: insertion sort for short
 * runs, merge sort through tmp buffers above that. */
static void sort_pairs(int32_t *c, double *v, int64_t n, int32_t *tc,
                       double *tv) {
  if (n <= 24) {
    for (int64_t k = 1; k < n; k++) {
      int32_t ck = c[k];
      double vk = v[k];
      int64_t m = k;
      for (; m > 0 && c[m - 1] > ck; m--) {
        c[m] = c[m - 1];
        v[m] = v[m - 1];
      }
      c[m] = ck;
      v[m] = vk;
    }
    return;
  }
  int64_t h = n / 2;
  sort_pairs(c, v, h, tc, tv);
  sort_pairs(c + h, v + h, n - h, tc, tv);
  if (c[h - 1] <= c[h])
    return; /* already in order */
  memcpy(tc, c, (size_t)h * sizeof *tc);
  memcpy(tv, v, (size_t)h * sizeof *tv);
  int64_t a = 0, b = h, o = 0;
  while (a < h && b < n) {
    if (c[b] < tc[a]) { /* strict: equal keys keep the left one first */
      c[o] = c[b];
      v[o++] = v[b++];
    } else {
      c[o] = tc[a];
      v[o++] = tv[a++];
    }
  }
  while (a < h) {
    c[o] = tc[a];
    v[o++] = tv[a++];
  }
}

/* Sort each row and sum duplicates in place; returns the new nnz or -1
 * when the sort buffer cannot be allocated. */
static int64_t sort_and_merge(smv_csr *A) {
  int32_t *col = A->col_idx, *tc = NULL;
  double *val = A->values, *tv = NULL;
  int64_t tcap = 0, w = 0, start = 0;
  for (int64_t r = 0; r < A->rows; r++) {
    int64_t end = A->row_ptr[r + 1];
    int ordered = 1;
    for (int64_t k = start + 1; k < end; k++)
      if (col[k] <= col[k - 1]) {
        ordered = 0;
        break;
      }
    if (ordered && w == start) {
      w = end; /* the common case: nothing to do */
    } else {
      if (!ordered) {
        int64_t len = end - start;
        if (len > 24 && len / 2 > tcap) {
          int64_t nc = len / 2 + 1;
          int32_t *a = realloc(tc, (size_t)nc * sizeof *a);
          double *b = a ? realloc(tv, (size_t)nc * sizeof *b) : NULL;
          if (a)
            tc = a;
          if (!a || !b) {
            free(tc);
            free(tv);
            return -1;
          }
          tv = b;
          tcap = nc;
        }
        sort_pairs(col + start, val + start, len, tc, tv);
      }
      int64_t row_w = w;
      for (int64_t k = start; k < end; k++) {
        if (w > row_w && col[w - 1] == col[k]) {
          val[w - 1] += val[k];
        } else {
          col[w] = col[k];
          val[w++] = val[k];
        }
      }
    }
    A->row_ptr[r + 1] = (smv_offset)w;
    start = end;
  }
  free(tc);
  free(tv);
  return w;
}

static smv_status build_coordinate(mm_reader *r, smv_csr **out) {
  const int sym = r->sym != SMV_SYM_GENERAL;
  const int skew = r->sym == SMV_SYM_SKEW;
  const int64_t n = r->n;
  int64_t E = n + (sym ? r->offdiag : 0);
  if (E > r->max_entries)
    return rd_err(r, SMV_ERR_OVERFLOW, 0,
                  "after symmetric expansion the matrix has %lld entries, "
                  "more than the limit of %lld (int32 row offsets)",
                  (long long)E, (long long)r->max_entries);
  smv_status st = memory_guard(r, 0, E);
  if (st != SMV_OK)
    return st;
  smv_csr *A;
  st = smv_csr_create((smv_index)r->rows, (smv_index)r->cols, E, &A);
  if (st != SMV_OK)
    return rd_err(r, st, 0,
                  "cannot allocate a %lld x %lld matrix with %lld "
                  "entries",
                  (long long)r->rows, (long long)r->cols, (long long)E);
  smv_offset *rp = A->row_ptr;
  const int32_t *ri = r->ri, *ci = r->ci;
  /* Counts in rp[row + 1], then exclusive starts in rp[row + 1]; the
   * scatter advances each to the row's end, leaving a valid row_ptr. */
  for (int64_t k = 0; k < n; k++) {
    rp[ri[k] + 1]++;
    if (sym && ri[k] != ci[k])
      rp[ci[k] + 1]++;
  }
  smv_offset run = 0;
  for (int64_t i = 0; i < r->rows; i++) {
    smv_offset t = rp[i + 1];
    rp[i + 1] = run;
    run += t;
  }
  int32_t *col = A->col_idx;
  double *val = A->values;
  const double *vv = r->vv;
  for (int64_t k = 0; k < n; k++) {
    int32_t i = ri[k], j = ci[k];
    double v = vv ? vv[k] : 1.0;
    smv_offset q = rp[i + 1]++;
    col[q] = j;
    val[q] = v;
    if (sym && i != j) {
      q = rp[j + 1]++;
      col[q] = i;
      val[q] = skew ? -v : v;
    }
  }
  free(r->ri);
  free(r->ci);
  free(r->vv);
  r->ri = r->ci = NULL;
  r->vv = NULL;
  int64_t nnz = sort_and_merge(A);
  if (nnz < 0) {
    smv_csr_free(A);
    return rd_err(r, SMV_ERR_NOMEM, 0, "out of memory sorting the rows");
  }
  if (nnz < E) {
    /* Duplicates were summed: shrink the arrays to the nnz used (nnz >= 1
     * here). A shrink that fails leaves the larger block, still valid. */
    int32_t *c = realloc(A->col_idx, (size_t)nnz * sizeof *c);
    if (c)
      A->col_idx = c;
    double *v = realloc(A->values, (size_t)nnz * sizeof *v);
    if (v)
      A->values = v;
    A->nnz = nnz;
  }
  *out = A;
  return SMV_OK;
}

static smv_status build_array(mm_reader *r, smv_csr **out) {
  const int64_t M = r->rows, N = r->cols;
  const double *vv = r->vv;
  int64_t E = r->sym == SMV_SYM_GENERAL     ? M * N
              : r->sym == SMV_SYM_SYMMETRIC ? M * M
                                            : M * (M > 0 ? M - 1 : 0);
  smv_csr *A;
  smv_status st = smv_csr_create((smv_index)M, (smv_index)N, E, &A);
  if (st != SMV_OK)
    return rd_err(r, st, 0, "cannot allocate a dense %lld x %lld matrix",
                  (long long)M, (long long)N);
  int32_t *col = A->col_idx;
  double *val = A->values;
  int64_t q = 0;
  for (int64_t i = 0; i < M; i++) {
    for (int64_t j = 0; j < N; j++) {
      double v;
      if (r->sym == SMV_SYM_GENERAL) {
        v = vv[j * M + i]; /* column-major */
      } else if (r->sym == SMV_SYM_SYMMETRIC) {
        /* lower triangle by columns: column c starts at c*M - c(c-1)/2 */
        int64_t a = i >= j ? i : j, c = i >= j ? j : i;
        v = vv[c * M - c * (c - 1) / 2 + (a - c)];
      } else {
        if (i == j)
          continue; /* not stored: the diagonal of a skew matrix */
        /* strictly lower by columns: column c starts at c(M-1) - c(c-1)/2 */
        int64_t a = i > j ? i : j, c = i > j ? j : i;
        v = vv[c * (M - 1) - c * (c - 1) / 2 + (a - c - 1)];
        if (i < j)
          v = -v;
      }
      col[q] = (int32_t)j;
      val[q++] = v;
    }
    A->row_ptr[i + 1] = (smv_offset)q;
  }
  *out = A;
  return SMV_OK;
}

/* ---- entry points -------------------------------------------------------- */

static smv_status read_stream(FILE *f, const char *name, uint64_t total,
                              const smv_read_options *opt, int64_t max_entries,
                              int64_t max_dim, int64_t vec, smv_csr **A,
                              smv_error *err) {
  mm_reader r;
  memset(&r, 0, sizeof r);
  r.vec = vec;
  r.name = name;
  r.err = err;
  r.max_entries = max_entries;
  r.max_dim = max_dim;
  /* strtod (the exact fallback) reads '.' only in the "C" locale. If the
   * locale cannot be made, a ',' locale makes strtod stop early, which the
   * scanner reports as a bad value: never a wrong one. */
  locale_t cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  locale_t old = cloc ? uselocale(cloc) : (locale_t)0;
  smv_status st = smv__mm_input_open(&r.in, f, name, total, opt);
  if (st != SMV_OK)
    rd_err(&r, st, 0, "%s", r.in.why);
  if (st == SMV_OK)
    st = parse_banner(&r);
  if (st == SMV_OK)
    st = parse_size(&r);
  if (st == SMV_OK)
    st = r.format == SMV_FORMAT_COORDINATE ? read_coordinate(&r)
                                           : read_array(&r);
  smv_csr *M = NULL;
  if (st == SMV_OK) {
    smv__mm_input_finish(&r.in);
    st = r.format == SMV_FORMAT_COORDINATE ? build_coordinate(&r, &M)
                                           : build_array(&r, &M);
  }
  smv__mm_input_close(&r.in);
  free(r.ri);
  free(r.ci);
  free(r.vv);
  if (cloc) {
    uselocale(old);
    freelocale(cloc);
  }
  if (st != SMV_OK)
    return st;
  M->sorted = 1;
  M->field = r.field;
  M->symmetry = r.sym;
  M->format = r.format;
  *A = M;
  smv_err_clear(err);
  return SMV_OK;
}

/* Bytes left in f from its position, 0 if it is not a regular file. */
static uint64_t bytes_left(FILE *f) {
  int fd = fileno(f);
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
    return 0;
  off_t at = ftello(f);
  if (at < 0 || at > sb.st_size)
    return 0;
  return (uint64_t)(sb.st_size - at);
}

smv_status smv__mm_open(const char *path, FILE **f, smv_error *err) {
  *f = fopen(path, "rb");
  if (!*f)
    return smv_err_set(err, SMV_ERR_IO, path, 0, "cannot open: %s",
                       strerror(errno));
  struct stat sb;
  if (fstat(fileno(*f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
    fclose(*f);
    *f = NULL;
    return smv_err_set(err, SMV_ERR_IO, path, 0,
                       "cannot read: it is a directory");
  }
  return SMV_OK;
}

smv_status smv__mm_read_stream(FILE *f, const char *name,
                               const smv_read_options *opt, int64_t max_entries,
                               int64_t max_dim, smv_csr **A, smv_error *err) {
  if (A)
    *A = NULL;
  if (!name)
    name = "(stream)";
  if (!f || !A)
    return smv_err_set(err, SMV_ERR_ARG, name, 0, "smv_mm_read_file: NULL %s",
                       f ? "result pointer" : "stream");
  if (max_entries < 0 || max_entries > SMV_OFFSET_MAX)
    max_entries = SMV_OFFSET_MAX;
  if (max_dim < 0 || max_dim > SMV_INDEX_MAX)
    max_dim = SMV_INDEX_MAX;
  return read_stream(f, name, bytes_left(f), opt, max_entries, max_dim, -2, A,
                     err);
}

smv_status smv__mm_read_vector_csr(FILE *f, const char *name, int64_t want,
                                   smv_csr **A, smv_error *err) {
  return read_stream(f, name, bytes_left(f), NULL, SMV_OFFSET_MAX,
                     SMV_INDEX_MAX, want < 0 ? -1 : want, A, err);
}

smv_status smv_mm_read_file(FILE *f, const char *name,
                            const smv_read_options *opt, smv_csr **A,
                            smv_error *err) {
  return smv__mm_read_stream(f, name, opt, SMV_OFFSET_MAX, SMV_INDEX_MAX, A,
                             err);
}

smv_status smv_mm_read(const char *path, const smv_read_options *opt,
                       smv_csr **A, smv_error *err) {
  if (A)
    *A = NULL;
  if (!path || !A)
    return smv_err_set(err, SMV_ERR_ARG, path, 0, "smv_mm_read: NULL %s",
                       path ? "result pointer" : "path");
  FILE *f;
  smv_status st = smv__mm_open(path, &f, err);
  if (st != SMV_OK)
    return st;
  st = read_stream(f, path, bytes_left(f), opt, SMV_OFFSET_MAX, SMV_INDEX_MAX,
                   -2, A, err);
  fclose(f);
  return st;
}
