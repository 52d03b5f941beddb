/*
 * record.c — bench records: the field table that drives CSV, JSON and the
 * CSV reader; the minimal-bytes model; derived rates; timing summaries.
 */
#include "lab.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The field table: one row per CSV column / JSON key, in output order.      */
/* ------------------------------------------------------------------------ */

typedef enum { F_STR, F_INT, F_I64, F_DBL } field_kind;

typedef struct {
  const char *name;
  field_kind kind;
  size_t off;
  size_t size; /* of the char array, for F_STR */
} field;

#define FSTR(n, m)                                                             \
  { n, F_STR, offsetof(bench_record, m), sizeof(((bench_record *)0)->m) }
#define FINT(n, m)                                                             \
  { n, F_INT, offsetof(bench_record, m), 0 }
#define FI64(n, m)                                                             \
  { n, F_I64, offsetof(bench_record, m), 0 }
#define FDBL(n, m)                                                             \
  { n, F_DBL, offsetof(bench_record, m), 0 }
#define FTIMING(p, m)                                                          \
  FINT(p "_runs", m.runs), FDBL(p "_median_ms", m.median_ms),                  \
      FDBL(p "_min_ms", m.min_ms), FDBL(p "_p10_ms", m.p10_ms),                \
      FDBL(p "_p90_ms", m.p90_ms), FDBL(p "_max_ms", m.max_ms)

static const field fields[] = {
    FSTR("label", label),
    FSTR("device", device),
    FSTR("commit", commit),
    FSTR("date", date),
    FSTR("backend", backend),
    FSTR("matrix", matrix),
    FI64("rows", rows),
    FI64("cols", cols),
    FI64("nnz", nnz),
    FSTR("precision", precision),
    FSTR("alg", alg),
    FINT("block", block),
    FINT("sweep", sweep),
    FSTR("verify", verify),
    FDBL("err_ratio", err_ratio),
    FDBL("alpha", alpha),
    FDBL("beta", beta),
    FDBL("bytes", bytes),
    FTIMING("warm", warm),
    FTIMING("flushed", flushed),
    FTIMING("graph", graph),
    FINT("graph_batch", graph_batch),
    FDBL("flush_bytes", flush_bytes),
    FDBL("copy_gbps", copy_gbps),
    FDBL("warm_gbps", warm_gbps),
    FDBL("flushed_gbps", flushed_gbps),
    FDBL("graph_gbps", graph_gbps),
    FDBL("warm_pct_copy", warm_pct_copy),
    FDBL("flushed_pct_copy", flushed_pct_copy),
    FDBL("graph_pct_copy", graph_pct_copy),
    FDBL("warm_gflops", warm_gflops),
    FDBL("flushed_gflops", flushed_gflops),
    FDBL("graph_gflops", graph_gflops),
    FDBL("warm_speedup_alg1", warm_speedup_alg1),
    FDBL("flushed_speedup_alg1", flushed_speedup_alg1),
    FDBL("graph_speedup_alg1", graph_speedup_alg1),
    FINT("regs", regs),
    FI64("smem_bytes", smem_bytes),
    FINT("occ_blocks_per_sm", occ_blocks_per_sm),
    FINT("occ_warps_per_sm", occ_warps_per_sm),
    FINT("occ_max_warps", occ_max_warps),
    FDBL("occupancy", occupancy),
    FSTR("occ_limited_by", occ_limited_by),
    FINT("cuda_blocks_per_sm", cuda_blocks_per_sm),
    FSTR("note", note),
};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* Integers use -1 for "unset" except where 0 is the natural "none" (runs,
 * sweep); timings' runs = 0 means the mode was not timed. */
void bench_record_init(bench_record *r) {
  memset(r, 0, sizeof *r);
  for (size_t i = 0; i < NFIELDS; i++) {
    char *p = (char *)r + fields[i].off;
    switch (fields[i].kind) {
    case F_DBL:
      *(double *)p = NAN;
      break;
    case F_INT:
      *(int *)p = -1;
      break;
    case F_I64:
      *(int64_t *)p = -1;
      break;
    case F_STR:
      break;
    }
  }
  r->warm.runs = r->flushed.runs = r->graph.runs = 0;
  r->sweep = 0;
  r->graph_batch = 0;
  r->block = 0;
}

int bench_records_push(bench_records *rs, const bench_record *r) {
  if (rs->n == rs->cap) {
    size_t cap = rs->cap ? 2 * rs->cap : 64;
    bench_record *v = realloc(rs->v, cap * sizeof *v);
    if (!v)
      return -1;
    rs->v = v;
    rs->cap = cap;
  }
  rs->v[rs->n++] = *r;
  return 0;
}

void bench_records_free(bench_records *rs) {
  free(rs->v);
  rs->v = NULL;
  rs->n = rs->cap = 0;
}

int bench_distinct(const bench_records *rs, size_t off, int sweep,
                   const char *matrix, const char *prec, const char **out,
                   int max) {
  int n = 0;
  for (size_t i = 0; i < rs->n; i++) {
    const bench_record *r = &rs->v[i];
    if (r->sweep != sweep || (matrix && strcmp(r->matrix, matrix) != 0) ||
        (prec && strcmp(r->precision, prec) != 0))
      continue;
    const char *s = (const char *)r + off;
    int seen = 0;
    for (int k = 0; k < n && !seen; k++)
      seen = strcmp(out[k], s) == 0;
    if (!seen && n < max)
      out[n++] = s;
  }
  return n;
}

const bench_record *bench_find(const bench_records *rs, int sweep,
                               const char *matrix, const char *prec,
                               const char *alg, int block) {
  for (size_t i = 0; i < rs->n; i++) {
    const bench_record *r = &rs->v[i];
    if (r->sweep == sweep && strcmp(r->matrix, matrix) == 0 &&
        strcmp(r->precision, prec) == 0 && strcmp(r->alg, alg) == 0 &&
        (block < 0 || r->block == block))
      return r;
  }
  return NULL;
}

/* ------------------------------------------------------------------------ */
/* Bytes, rates, statistics                                                  */
/* ------------------------------------------------------------------------ */

const char bench_model_text[] =
    "bytes      minimal model per SpMV: values + column indices once "
    "(nnz*(V+4)),\n"
    "           row pointers once ((rows+1)*4), x once (cols*V), y once "
    "(rows*V,\n"
    "           2*rows*V when beta != 0); V = 8 (f64) or 4 (f32). GB/s = "
    "bytes / median.\n"
    "           f64-f32v: 4-byte values, x and y of 8 (nnz*8 + (rows+1)*4 "
    "+ 8*(cols+rows)).\n"
    "           GFLOP/s = 2*nnz / median. %copy = GB/s / device copy "
    "bandwidth.\n"
    "modes      warm: L2-warm, runs back to back, one event pair each;\n"
    "           flushed: a buffer of 4x L2 written before each run (not "
    "timed);\n"
    "           graph: N SpMVs captured in one CUDA graph, time per SpMV.\n"
    "verify     |y - ref| <= 2 eps (len_i + 2) (|alpha| (|A||x|)_i + |beta "
    "y0_i|) per row,\n"
    "           fresh random x, y poisoned with NaN (beta = 0); FAIL is never "
    "timed.\n"
    "           f64-f32v: against the f64 reference on the matrix as given, "
    "within\n"
    "           twice smv_spmv_f32v_bound per row (the values' rounding to "
    "f32 included).\n";

double bench_min_bytes_vx(int64_t rows, int64_t cols, int64_t nnz,
                          int value_bytes, int vector_bytes, int beta_nonzero) {
  const double v = (double)value_bytes, xb = (double)vector_bytes;
  return (double)nnz * (v + (double)sizeof(smv_index)) +
         (double)(rows + 1) * (double)sizeof(smv_offset) + (double)cols * xb +
         (double)rows * xb * (beta_nonzero ? 2.0 : 1.0);
}

double bench_min_bytes(int64_t rows, int64_t cols, int64_t nnz, int value_bytes,
                       int beta_nonzero) {
  return bench_min_bytes_vx(rows, cols, nnz, value_bytes, value_bytes,
                            beta_nonzero);
}

static void rates(const smv_timing *t, double bytes, double nnz,
                  double copy_gbps, double *gbps, double *pct, double *gflops) {
  *gbps = *pct = *gflops = NAN;
  if (t->runs <= 0 || !(t->median_ms > 0))
    return;
  double s = t->median_ms * 1e-3;
  *gbps = bytes / s / 1e9;
  *gflops = 2.0 * nnz / s / 1e9;
  if (copy_gbps > 0)
    *pct = 100.0 * *gbps / copy_gbps;
}

void bench_derive(bench_record *r) {
  double nnz = (double)r->nnz;
  rates(&r->warm, r->bytes, nnz, r->copy_gbps, &r->warm_gbps, &r->warm_pct_copy,
        &r->warm_gflops);
  rates(&r->flushed, r->bytes, nnz, r->copy_gbps, &r->flushed_gbps,
        &r->flushed_pct_copy, &r->flushed_gflops);
  rates(&r->graph, r->bytes, nnz, r->copy_gbps, &r->graph_gbps,
        &r->graph_pct_copy, &r->graph_gflops);
}

static double ratio(const smv_timing *base, const smv_timing *t) {
  if (base->runs <= 0 || t->runs <= 0 || !(t->median_ms > 0))
    return NAN;
  return base->median_ms / t->median_ms;
}

void bench_speedups(bench_records *rs, size_t from) {
  const char *alg1 = smv_alg_name(SMV_ALG_CUSPARSE_ALG1);
  for (size_t i = from; i < rs->n; i++) {
    bench_record *r = &rs->v[i];
    const bench_record *base = NULL;
    for (size_t j = from; j < rs->n && !base; j++) {
      const bench_record *b = &rs->v[j];
      if (strcmp(b->alg, alg1) == 0 && strcmp(b->matrix, r->matrix) == 0 &&
          strcmp(b->precision, r->precision) == 0 && b->sweep == 0 &&
          strcmp(b->verify, "PASS") == 0)
        base = b;
    }
    r->warm_speedup_alg1 = r->flushed_speedup_alg1 = r->graph_speedup_alg1 =
        NAN;
    if (!base || strcmp(r->verify, "PASS") != 0)
      continue;
    r->warm_speedup_alg1 = ratio(&base->warm, &r->warm);
    r->flushed_speedup_alg1 = ratio(&base->flushed, &r->flushed);
    r->graph_speedup_alg1 = ratio(&base->graph, &r->graph);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double quantile(const double *v, int n, double p) {
  double pos = p * (double)(n - 1);
  int lo = (int)pos;
  int hi = lo + 1 < n ? lo + 1 : lo;
  double f = pos - (double)lo;
  return v[lo] + f * (v[hi] - v[lo]);
}

void bench_summarise(double *ms, int n, smv_timing *t) {
  memset(t, 0, sizeof *t);
  if (n <= 0)
    return;
  qsort(ms, (size_t)n, sizeof *ms, cmp_double);
  t->min_ms = ms[0];
  t->max_ms = ms[n - 1];
  t->median_ms = quantile(ms, n, 0.5);
  t->p10_ms = quantile(ms, n, 0.1);
  t->p90_ms = quantile(ms, n, 0.9);
  t->runs = n;
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */
/* ------------------------------------------------------------------------ */

static void csv_string(FILE *f, const char *s) {
  if (!strpbrk(s, ",\"\n\r")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
  }
  fputc('"', f);
}

static void csv_value(FILE *f, const bench_record *r, const field *fd) {
  const char *p = (const char *)r + fd->off;
  switch (fd->kind) {
  case F_STR:
    csv_string(f, p);
    break;
  case F_INT:
    fprintf(f, "%d", *(const int *)p);
    break;
  case F_I64:
    fprintf(f, "%lld", (long long)*(const int64_t *)p);
    break;
  case F_DBL: {
    double d = *(const double *)p;
    if (isfinite(d))
      fprintf(f, "%.10g", d);
    else if (isinf(d))
      fputs(d > 0 ? "inf" : "-inf", f);
    break;
  }
  }
}

void bench_csv_header(FILE *f) {
  for (size_t i = 0; i < NFIELDS; i++)
    fprintf(f, "%s%s", i ? "," : "", fields[i].name);
  fputc('\n', f);
}

void bench_csv_row(FILE *f, const bench_record *r) {
  for (size_t i = 0; i < NFIELDS; i++) {
    if (i)
      fputc(',', f);
    csv_value(f, r, &fields[i]);
  }
  fputc('\n', f);
}

/* Split one CSV line in place: fields[] point into line (quotes removed,
 * doubled quotes undone). Returns the count, or -1 on an unterminated
 * quote. */
static int csv_split(char *line, char **out, int max) {
  int n = 0;
  char *w = line, *p = line;
  for (;;) {
    if (n == max)
      return n;
    out[n++] = w;
    if (*p == '"') {
      p++;
      for (;;) {
        if (*p == '\0')
          return -1;
        if (*p == '"' && p[1] == '"') {
          *w++ = '"';
          p += 2;
        } else if (*p == '"') {
          p++;
          break;
        } else {
          *w++ = *p++;
        }
      }
    } else {
      while (*p && *p != ',')
        *w++ = *p++;
    }
    if (*p == ',') {
      *w++ = '\0';
      p++;
      continue;
    }
    *w = '\0';
    return *p == '\0' ? n : -1;
  }
}

static int parse_value(bench_record *r, const field *fd, const char *s) {
  char *p = (char *)r + fd->off, *end;
  errno = 0;
  switch (fd->kind) {
  case F_STR:
    snprintf(p, fd->size, "%s", s);
    return 0;
  case F_INT: {
    if (!*s)
      return 0;
    long v = strtol(s, &end, 10);
    if (*end || errno || v < INT_MIN || v > INT_MAX)
      return -1;
    *(int *)p = (int)v;
    return 0;
  }
  case F_I64: {
    if (!*s)
      return 0;
    long long v = strtoll(s, &end, 10);
    if (*end || errno)
      return -1;
    *(int64_t *)p = (int64_t)v;
    return 0;
  }
  case F_DBL: {
    if (!*s)
      return 0; /* unset stays NaN */
    double v = strtod(s, &end);
    if (*end)
      return -1;
    *(double *)p = v;
    return 0;
  }
  }
  return -1;
}

#define CSV_MAX_FIELDS 256

int bench_csv_read(const char *path, bench_records *rs, char *err,
                   size_t errn) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errn, "%s: %s", path, strerror(errno));
    return -1;
  }
  char *line = NULL;
  size_t cap = 0;
  long lineno = 0;
  int map[CSV_MAX_FIELDS]; /* column -> field index or -1 */
  int ncols = -1, rc = 0;
  char *cols[CSV_MAX_FIELDS];
  while (getline(&line, &cap, f) != -1) {
    lineno++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = '\0';
    if (len == 0)
      continue;
    int n = csv_split(line, cols, CSV_MAX_FIELDS);
    if (n < 0) {
      snprintf(err, errn, "%s:%ld: unterminated quoted field", path, lineno);
      rc = -1;
      break;
    }
    if (ncols < 0) { /* header */
      int known = 0;
      for (int c = 0; c < n; c++) {
        map[c] = -1;
        for (size_t k = 0; k < NFIELDS; k++)
          if (strcmp(cols[c], fields[k].name) == 0) {
            map[c] = (int)k;
            known++;
          }
      }
      if (known == 0 || map[0] < 0) {
        snprintf(err, errn,
                 "%s:%ld: not an smv bench CSV (header should start with "
                 "'%s')",
                 path, lineno, fields[0].name);
        rc = -1;
        break;
      }
      ncols = n;
      continue;
    }
    if (n != ncols) {
      snprintf(err, errn, "%s:%ld: %d fields, the header has %d", path, lineno,
               n, ncols);
      rc = -1;
      break;
    }
    bench_record r;
    bench_record_init(&r);
    for (int c = 0; c < n && rc == 0; c++) {
      if (map[c] < 0)
        continue;
      if (parse_value(&r, &fields[map[c]], cols[c]) != 0) {
        snprintf(err, errn, "%s:%ld: column '%s': bad value '%s'", path, lineno,
                 fields[map[c]].name, cols[c]);
        rc = -1;
      }
    }
    if (rc == 0 && bench_records_push(rs, &r) != 0) {
      snprintf(err, errn, "%s: out of memory", path);
      rc = -1;
    }
    if (rc)
      break;
  }
  if (rc == 0 && ncols < 0) {
    snprintf(err, errn, "%s: empty file (no header)", path);
    rc = -1;
  }
  if (rc == 0 && ferror(f)) {
    snprintf(err, errn, "%s: read error", path);
    rc = -1;
  }
  free(line);
  fclose(f);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

/* Length of the well-formed UTF-8 character at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), 0 if it is not one. */
static int utf8_len(const unsigned char *p) {
  if (p[0] < 0x80)
    return 1;
  int n = p[0] >= 0xc2 && p[0] <= 0xdf   ? 2
          : p[0] >= 0xe0 && p[0] <= 0xef ? 3
          : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                         : 0;
  unsigned lo = 0x80, hi = 0xbf; /* the second byte's range */
  if (p[0] == 0xe0)
    lo = 0xa0;
  else if (p[0] == 0xed)
    hi = 0x9f;
  else if (p[0] == 0xf0)
    lo = 0x90;
  else if (p[0] == 0xf4)
    hi = 0x8f;
  if (n == 0 || p[1] < lo || p[1] > hi)
    return 0;
  for (int k = 2; k < n; k++)
    if ((p[k] & 0xc0) != 0x80)
      return 0;
  return n;
}

/* A JSON string: quotes, backslashes and control characters escaped, and
 * every byte that is not part of well-formed UTF-8 (a Latin-1 file name,
 * a cut sequence) written as U+FFFD, so the document stays valid JSON. */
void bench_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p >= 0x80) {
      int n = utf8_len(p);
      if (n == 0) {
        fputs("\\ufffd", f);
      } else {
        fwrite(p, 1, (size_t)n, f);
        p += n - 1;
      }
      continue;
    }
    /* Quote, backslash, newline and tab take a letter escape; other control
     * characters their number. *p is never NUL here, so strchr is safe. */
    static const char plain[] = "\"\\\n\t", letter[] = "\"\\nt";
    const char *hit = strchr(plain, *p);
    if (hit) {
      fputc('\\', f);
      fputc(letter[hit - plain], f);
    } else if (*p < 0x20) {
      fprintf(f, "\\u%04x", *p);
    } else {
      fputc(*p, f);
    }
  }
  fputc('"', f);
}

void bench_json_record(FILE *f, const bench_record *r, const char *indent) {
  fputs("{", f);
  for (size_t i = 0; i < NFIELDS; i++) {
    const field *fd = &fields[i];
    const char *p = (const char *)r + fd->off;
    fprintf(f, "%s\n%s  \"%s\": ", i ? "," : "", indent, fd->name);
    /* Only strings and non-finite numbers differ from CSV (JSON has no
     * NaN or Inf); every other number prints as in the CSV. */
    if (fd->kind == F_STR)
      bench_json_string(f, p);
    else if (fd->kind == F_DBL && !isfinite(*(const double *)p))
      fputs("null", f);
    else
      csv_value(f, r, fd);
  }
  fprintf(f, "\n%s}", indent);
}
