/*
 * test_mm_read.c — the Matrix Market reader and writer on valid input.
 *
 *  - every file of tests/data/valid against a dense matrix written out by
 *    hand in tests/data/valid/EXPECT.tsv ("." = no stored entry; stored
 *    zeros are "0" or "-0"), read by path and from a FILE*; banner fields
 *    and sortedness checked;
 *  - random coordinate files (general, symmetric, skew, pattern, integer,
 *    duplicates, empty rows, rectangular, nnz = 0) against a dense
 *    reference accumulated in file order, bit for bit;
 *  - write/read round trips through .mtx, .mtx.gz and FILE*, exact to the
 *    bit (subnormals, -0, huge and tiny exponents, random bit patterns);
 *  - progress reports, the overflow check after symmetric expansion, long
 *    lines in a plain file, vectors, writer and open errors, arguments.
 */
#include "mm_internal.h"
#include "smv_lab.h"
#include "test.h"
#include "test_dir.h"

#include <dirent.h>
#include <float.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#define DIR_VALID "tests/data/valid/"

/* ---- helpers ------------------------------------------------------------ */

static smv_rng rng_state = {0x9e3779b97f4a7c15ull};
static uint64_t rnd(void) { return smv_rng_next(&rng_state); }
static int64_t rnd_below(int64_t n) {
  return n > 0 ? (int64_t)(rnd() % (uint64_t)n) : 0;
}

static int same_bits(double a, double b) {
  return memcmp(&a, &b, sizeof a) == 0;
}
static int same_value(double a, double b) {
  return (isnan(a) && isnan(b)) || same_bits(a, b);
}

/* A temporary path with the given suffix (removed by the caller). */
static void temp_path(char *buf, size_t n, const char *suffix) {
  const char *dir = getenv("TMPDIR");
  snprintf(buf, n, "%s/smv_mm_XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(buf);
  if (fd >= 0) {
    close(fd);
    unlink(buf);
  }
  strncat(buf, suffix, n - strlen(buf) - 1);
}

/* What was written to the temporary file f, as a string (at most n - 1
 * bytes); closes f. */
static void read_back(FILE *f, char *text, size_t n) {
  rewind(f);
  size_t got = fread(text, 1, n - 1, f);
  text[got] = '\0';
  fclose(f);
}

/* Dense picture of a CSR: value and presence per position; checks the CSR
 * invariants (sorted, unique) on the way. */
typedef struct {
  int rows, cols;
  double *v;
  char *has;
} dense;

static int to_dense(const smv_csr *A, dense *d) {
  smv_error err;
  smv_status st = smv_csr_check(A, &err);
  CHECKF(st == SMV_OK, "smv_csr_check: %s", err.message);
  CHECK(A->sorted == 1);
  d->rows = A->rows;
  d->cols = A->cols;
  size_t n = (size_t)A->rows * (size_t)A->cols;
  d->v = calloc(n ? n : 1, sizeof *d->v);
  d->has = calloc(n ? n : 1, 1);
  if (!d->v || !d->has || st != SMV_OK)
    return -1;
  for (int i = 0; i < A->rows; i++)
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      size_t at = (size_t)i * A->cols + A->col_idx[k];
      CHECK(!d->has[at]);
      d->has[at] = 1;
      d->v[at] = A->values[k];
    }
  return 0;
}

static void dense_free(dense *d) {
  free(d->v);
  free(d->has);
}

/* Compare A with a hand-written matrix: rows separated by ';', entries by
 * blanks, '.' for "not stored"; numbers as strtod reads them (hex floats
 * for the exact ones). */
static void check_against(const char *what, const smv_csr *A, int rows,
                          int cols, const char *spec) {
  CHECKF(A->rows == rows && A->cols == cols, "%s: %d x %d, want %d x %d", what,
         A->rows, A->cols, rows, cols);
  if (A->rows != rows || A->cols != cols)
    return;
  dense d;
  if (to_dense(A, &d) != 0) {
    dense_free(&d);
    return;
  }
  const char *p = spec;
  int64_t stored = 0;
  for (int i = 0; i < rows; i++) {
    for (int j = 0; j < cols; j++) {
      while (*p == ' ' || *p == ';')
        p++;
      size_t at = (size_t)i * cols + j;
      if (*p == '.') {
        p++;
        CHECKF(!d.has[at], "%s: (%d,%d) = %g is stored, want nothing", what,
               i + 1, j + 1, d.v[at]);
        continue;
      }
      char *end;
      double want = strtod(p, &end);
      CHECKF(end != p, "%s: bad spec at \"%s\"", what, p);
      if (end == p)
        return;
      p = end;
      stored++;
      CHECKF(d.has[at], "%s: (%d,%d) missing, want %.17g", what, i + 1, j + 1,
             want);
      CHECKF(!d.has[at] || same_value(d.v[at], want),
             "%s: (%d,%d) = %.17g, want %.17g", what, i + 1, j + 1, d.v[at],
             want);
    }
  }
  CHECK_INT(A->nnz, stored);
  dense_free(&d);
}

/* ---- valid corpus ---------------------------------------------------------
 */

#define MAX_VALID 64

typedef struct {
  char file[128];
  int rows, cols;
  smv_field field;
  smv_symmetry sym;
  smv_format format;
  char dense[512]; /* check_against's picture */
  int has_dense;   /* 0: checked by its own test */
} valid_case;

static valid_case valid[MAX_VALID];
static int nvalid;

/* The index of word in a NULL-terminated list (the banner's words, in
 * enum order), or -1. */
static int word_index(const char *word, const char *const *words) {
  for (int i = 0; words[i]; i++)
    if (strcmp(word, words[i]) == 0)
      return i;
  return -1;
}

/* One line of EXPECT.tsv: file, rows, cols, field, symmetry and format
 * (the banner's words), the matrix. */
static void add_valid(char *line) {
  static const char *const fields[] = {"real", "integer", "pattern", NULL};
  static const char *const syms[] = {"general", "symmetric", "skew-symmetric",
                                     NULL};
  static const char *const formats[] = {"coordinate", "array", NULL};
  char *t[7];
  t[0] = strtok(line, "\t");
  for (int k = 1; k < 7; k++)
    t[k] = strtok(NULL, k < 6 ? "\t" : "");
  int field = t[3] ? word_index(t[3], fields) : -1,
      sym = t[4] ? word_index(t[4], syms) : -1,
      format = t[5] ? word_index(t[5], formats) : -1;
  CHECKF(t[6] && field >= 0 && sym >= 0 && format >= 0,
         "malformed EXPECT.tsv line for %s", t[0] ? t[0] : "?");
  CHECKF(nvalid < MAX_VALID, "more than %d lines", MAX_VALID);
  if (!t[6] || field < 0 || sym < 0 || format < 0 || nvalid == MAX_VALID)
    return;
  valid_case *c = &valid[nvalid++];
  snprintf(c->file, sizeof c->file, "%s", t[0]);
  c->rows = atoi(t[1]);
  c->cols = atoi(t[2]);
  c->field = (smv_field)field;
  c->sym = (smv_symmetry)sym;
  c->format = (smv_format)format;
  c->has_dense = strcmp(t[6], "(test_unsorted)") != 0;
  snprintf(c->dense, sizeof c->dense, "%s",
           strcmp(t[6], "(empty)") == 0 ? "" : t[6]);
}

static void test_valid_table(void) {
  read_table(DIR_VALID "EXPECT.tsv", add_valid);
  CHECKF(nvalid > 0, "no lines in " DIR_VALID "EXPECT.tsv");
}

static void check_header(const valid_case *c, const smv_csr *A) {
  CHECKF(A->field == c->field, "%s: field %d", c->file, A->field);
  CHECKF(A->symmetry == c->sym, "%s: symmetry %d", c->file, A->symmetry);
  CHECKF(A->format == c->format, "%s: format %d", c->file, A->format);
}

static void test_valid_files(void) {
  for (int i = 0; i < nvalid; i++) {
    const valid_case *c = &valid[i];
    char path[256];
    snprintf(path, sizeof path, DIR_VALID "%s", c->file);
    smv_csr *A = NULL;
    smv_error err;
    smv_status st = smv_mm_read(path, NULL, &A, &err);
    CHECKF(st == SMV_OK, "%s: %s", path, err.message);
    if (st != SMV_OK)
      continue;
    CHECK_INT(err.status, SMV_OK);
    check_header(c, A);
    if (c->has_dense)
      check_against(path, A, c->rows, c->cols, c->dense);
    smv_csr_free(A);

    /* The same from an open stream. */
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
      continue;
    st = smv_mm_read_file(f, c->file, NULL, &A, &err);
    fclose(f);
    CHECKF(st == SMV_OK, "%s (FILE*): %s", path, err.message);
    if (st != SMV_OK)
      continue;
    check_header(c, A);
    if (c->has_dense)
      check_against(c->file, A, c->rows, c->cols, c->dense);
    smv_csr_free(A);
  }
}

/* Every file in valid/ has a line in EXPECT.tsv. */
static const char *valid_file(int i) { return valid[i].file; }

static void test_valid_all_listed(void) {
  check_dir_listed(DIR_VALID, "EXPECT.tsv", valid_file, nvalid,
                   "is not checked by test_valid_files");
}

/* unsorted.mtx: rows out of order, row 2 holds columns 40..1 in reverse
 * (beyond the insertion-sort cutoff) and a duplicate of column 7 at the
 * end: 7 + 0.5, summed in file order. */
static void test_unsorted(void) {
  char spec[2048];
  size_t o = 0;
  o += (size_t)snprintf(spec + o, sizeof spec - o, "4 2");
  for (int j = 3; j <= 50; j++)
    o += (size_t)snprintf(spec + o, sizeof spec - o, " .");
  o += (size_t)snprintf(spec + o, sizeof spec - o, " ;");
  for (int j = 1; j <= 50; j++)
    o += (size_t)snprintf(spec + o, sizeof spec - o,
                          j == 7    ? " 7.5"
                          : j <= 40 ? " %d"
                                    : " .",
                          j);
  o += (size_t)snprintf(spec + o, sizeof spec - o, " ; 3 . 1");
  for (int j = 4; j <= 50; j++)
    o += (size_t)snprintf(spec + o, sizeof spec - o, " .");
  smv_csr *A;
  smv_error err;
  smv_status st = smv_mm_read(DIR_VALID "unsorted.mtx", NULL, &A, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  if (st != SMV_OK)
    return;
  check_against("unsorted.mtx", A, 3, 50, spec);
  smv_csr_free(A);
}

/* ---- random files against a dense reference ------------------------------ */

static void write_value(FILE *f, double v, int field) {
  if (field == 1) { /* integer */
    fprintf(f, " %s%lld", v >= 0 && rnd() % 4 == 0 ? "+" : "", (long long)v);
    return;
  }
  switch (rnd() % 4) {
  case 0:
    fprintf(f, " %.17g", v);
    break;
  case 1:
    fprintf(f, "\t%.17e", v);
    break;
  case 2:
    fprintf(f, "  %.6g", v); /* rounded: the reference reads it back */
    break;
  default:
    fprintf(f, " %.17G ", v);
  }
}

/* One random coordinate file: rows x cols, sym 0 general, 1 symmetric,
 * 2 skew; field 0 real, 1 integer, 2 pattern. The reference adds every
 * value in file order, mirrored as the reader must. */
static void random_case(int rows, int cols, int sym, int field, int64_t n) {
  char path[256];
  temp_path(path, sizeof path, ".mtx");
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f)
    return;
  static const char *syms[] = {"general", "symmetric", "skew-symmetric"};
  static const char *fields[] = {"real", "integer", "pattern"};
  fprintf(f, "%%%%MatrixMarket matrix coordinate %s %s\n%% random\n",
          fields[field], syms[sym]);
  fprintf(f, "%d %d %lld\n", rows, cols, (long long)n);
  size_t cells = (size_t)rows * cols;
  double *ref = calloc(cells ? cells : 1, sizeof *ref);
  char *has = calloc(cells ? cells : 1, 1);
  for (int64_t k = 0; k < n; k++) {
    int i, j;
    do {
      i = (int)rnd_below(rows);
      j = (int)rnd_below(cols);
    } while (sym == 2 && i == j && rows > 1);
    if (sym == 2 && i == j)
      break; /* a 1 x 1 skew matrix has no place for an entry */
    if (sym && i < j && rnd() % 8) { /* mostly the lower triangle */
      int t = i;
      i = j;
      j = t;
    }
    double v;
    if (field == 1)
      v = (double)((int64_t)rnd_below(2001) - 1000);
    else if (field == 2)
      v = 1.0;
    else
      v = ldexp((double)(int64_t)(rnd() >> 11) - (double)(1ll << 52),
                (int)rnd_below(40) - 70);
    if (rnd() % 16 == 0)
      v = 0.0; /* explicit zeros */
    fprintf(f, "%s%d %d", rnd() % 8 == 0 ? "  " : "", i + 1, j + 1);
    if (field != 2)
      write_value(f, v, field);
    fputc('\n', f);
    if (rnd() % 32 == 0)
      fputs(rnd() % 2 ? "% a comment\n" : "\n", f);
  }
  fclose(f);

  /* Reference from the text itself (so rounded %.6g values count as
   * written), read with strtod. */
  f = fopen(path, "r");
  char line[512];
  int64_t seen = 0;
  int header = 0;
  while (f && fgets(line, sizeof line, f)) {
    if (line[0] == '%' || line[0] == '\n')
      continue;
    if (!header) {
      header = 1;
      continue;
    }
    char *p = line, *e;
    long i = strtol(p, &e, 10) - 1;
    p = e;
    long j = strtol(p, &e, 10) - 1;
    p = e;
    double v = field == 2 ? 1.0 : strtod(p, &e);
    /* The first value is taken as is (so -0 stays -0), later ones add. */
    size_t a = (size_t)i * cols + j, b = (size_t)j * cols + i;
    ref[a] = has[a] ? ref[a] + v : v;
    has[a] = 1;
    if (sym && i != j) {
      double m = sym == 2 ? -v : v;
      ref[b] = has[b] ? ref[b] + m : m;
      has[b] = 1;
    }
    seen++;
  }
  if (f)
    fclose(f);

  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_mm_read(path, NULL, &A, &err);
  if (seen != n) { /* a skew 1x1 cannot hold entries: the count is short */
    CHECK(st == SMV_ERR_PARSE);
    smv_csr_free(A);
  } else {
    CHECKF(st == SMV_OK, "%s", err.message);
    dense d;
    if (st == SMV_OK && to_dense(A, &d) == 0) {
      int64_t stored = 0;
      for (size_t c = 0; c < cells; c++) {
        stored += has[c];
        CHECKF(has[c] == d.has[c], "presence differs at %zu (%dx%d sym %d)", c,
               rows, cols, sym);
        if (has[c] && d.has[c])
          CHECKF(same_bits(ref[c], d.v[c]),
                 "value at %zu: %.17g vs reference %.17g", c, d.v[c], ref[c]);
      }
      CHECK_INT(A->nnz, stored);
    }
    if (st == SMV_OK)
      dense_free(&d);
    smv_csr_free(A);
  }
  free(ref);
  free(has);
  remove(path);
}

static void test_random_against_dense(void) {
  static const int shapes[][2] = {{1, 1},   {1, 7},     {7, 1},   {5, 5},
                                  {13, 4},  {4, 13},    {30, 30}, {64, 17},
                                  {17, 64}, {100, 100}, {3, 200}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    int rows = shapes[s][0], cols = shapes[s][1];
    for (int field = 0; field < 3; field++)
      for (int sym = 0; sym < 3; sym++) {
        if (sym && rows != cols)
          continue;
        if (sym == 2 && field == 2)
          continue; /* refused by design */
        int64_t cells = (int64_t)rows * cols;
        /* nnz 0, sparse (empty rows likely), dense with duplicates */
        random_case(rows, cols, sym, field, 0);
        random_case(rows, cols, sym, field, 1 + cells / 5);
        random_case(rows, cols, sym, field, 2 * cells + 3);
      }
  }
}

/* ---- round trips -----------------------------------------------------------
 */

static double special_value(void) {
  static const double specials[] = {0.0,
                                    -0.0,
                                    0x1p-1074,
                                    -0x1p-1074,
                                    0x1.fffffffffffffp-1023, /* max subnormal */
                                    DBL_MIN,
                                    -DBL_MIN,
                                    DBL_MAX,
                                    -DBL_MAX,
                                    1e308,
                                    1e-308,
                                    0.1,
                                    1.0 / 3.0,
                                    123456789012345678.0,
                                    9007199254740993.0,
                                    INFINITY,
                                    -INFINITY,
                                    1.0};
  uint64_t k = rnd() % 24;
  if (k < sizeof specials / sizeof specials[0])
    return specials[k];
  for (;;) { /* any bit pattern but NaN */
    uint64_t b = rnd();
    double v;
    memcpy(&v, &b, sizeof v);
    if (!isnan(v))
      return v;
  }
}

static smv_csr *random_csr(int rows, int cols, int per_row) {
  int64_t nnz = 0;
  smv_csr *A;
  if (smv_csr_create(rows, cols, (int64_t)rows * per_row, &A) != SMV_OK)
    return NULL;
  for (int i = 0; i < rows; i++) {
    int c = (int)rnd_below(cols > 0 ? cols : 1);
    int len = cols ? (int)rnd_below(per_row + 1) : 0;
    for (int k = 0; k < len && c < cols; k++) {
      A->col_idx[nnz] = c;
      A->values[nnz++] = special_value();
      c += 1 + (int)rnd_below(3);
    }
    A->row_ptr[i + 1] = (smv_offset)nnz;
  }
  A->nnz = nnz;
  A->sorted = 1;
  return A;
}

static void check_same_csr(const char *how, const smv_csr *A,
                           const smv_csr *B) {
  CHECKF(A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz,
         "%s: %d x %d nnz %lld vs %d x %d nnz %lld", how, A->rows, A->cols,
         (long long)A->nnz, B->rows, B->cols, (long long)B->nnz);
  if (A->rows != B->rows || A->nnz != B->nnz)
    return;
  CHECKF(memcmp(A->row_ptr, B->row_ptr, ((size_t)A->rows + 1) * 4) == 0,
         "%s: row_ptr differs", how);
  if (A->nnz == 0)
    return;
  CHECKF(memcmp(A->col_idx, B->col_idx, (size_t)A->nnz * 4) == 0,
         "%s: col_idx differs", how);
  int64_t diff = 0;
  for (int64_t k = 0; k < A->nnz; k++)
    if (!same_bits(A->values[k], B->values[k])) {
      if (diff++ < 3)
        CHECKF(0, "%s: value %lld: %a became %a", how, (long long)k,
               A->values[k], B->values[k]);
    }
  CHECK_INT(diff, 0);
  CHECK(B->field == SMV_FIELD_REAL && B->symmetry == SMV_SYM_GENERAL &&
        B->format == SMV_FORMAT_COORDINATE);
}

static void round_trip_path(const smv_csr *A, const char *suffix) {
  char path[256];
  temp_path(path, sizeof path, suffix);
  smv_error err;
  smv_status st = smv_mm_write(path, A, &err);
  CHECKF(st == SMV_OK, "write %s: %s", path, err.message);
  smv_csr *B = NULL;
  st = smv_mm_read(path, NULL, &B, &err);
  CHECKF(st == SMV_OK, "read %s: %s", path, err.message);
  if (st == SMV_OK) {
    check_same_csr(suffix, A, B);
    smv_csr_free(B);
  }
  if (strcmp(suffix, ".mtx.gz") == 0) { /* really gzip: magic bytes */
    FILE *f = fopen(path, "rb");
    unsigned char m[2] = {0, 0};
    CHECK(f && fread(m, 1, 2, f) == 2 && m[0] == 0x1f && m[1] == 0x8b);
    if (f)
      fclose(f);
  }
  remove(path);
}

static void round_trip_stream(const smv_csr *A) {
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (!f)
    return;
  smv_error err;
  smv_status st = smv_mm_write_file(f, A, &err);
  CHECKF(st == SMV_OK, "write_file: %s", err.message);
  rewind(f);
  smv_csr *B = NULL;
  st = smv_mm_read_file(f, "tmp", NULL, &B, &err);
  CHECKF(st == SMV_OK, "read_file: %s", err.message);
  if (st == SMV_OK) {
    check_same_csr("FILE*", A, B);
    smv_csr_free(B);
  }
  fclose(f);
}

static void test_round_trips(void) {
  static const int shapes[][3] = {{0, 0, 0},   {1, 1, 1},      {3, 0, 0},
                                  {0, 4, 0},   {50, 30, 6},    {7, 200, 40},
                                  {300, 5, 3}, {2000, 2000, 9}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    smv_csr *A = random_csr(shapes[s][0], shapes[s][1], shapes[s][2]);
    CHECK(A != NULL);
    if (!A)
      continue;
    round_trip_path(A, ".mtx");
    round_trip_path(A, ".mtx.gz");
    round_trip_stream(A);
    smv_csr_free(A);
  }
}

/* ---- progress
 * ---------------------------------------------------------------- */

typedef struct {
  int calls;
  uint64_t last_done, last_total;
  int monotonic;
} progress_log;

static void on_progress(void *user, uint64_t done, uint64_t total) {
  progress_log *p = user;
  if (p->calls && done < p->last_done)
    p->monotonic = 0;
  p->calls++;
  p->last_done = done;
  p->last_total = total;
}

static void progress_case(const char *path) {
  struct stat sb;
  CHECK(stat(path, &sb) == 0);
  progress_log log = {0, 0, 0, 1};
  smv_read_options opt = {on_progress, &log};
  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_mm_read(path, &opt, &A, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  smv_csr_free(A);
  /* One report per 4 MiB of raw input on the way, then the end. */
  int want = 1 + (int)(sb.st_size / (4 << 20));
  CHECKF(log.calls >= want, "%s: %d progress calls for %lld bytes", path,
         log.calls, (long long)sb.st_size);
  CHECK(log.monotonic);
  CHECK_INT(log.last_done, (uint64_t)sb.st_size);
  CHECK_INT(log.last_total, (uint64_t)sb.st_size);
}

static void test_progress(void) {
  /* ~800k entries of %.17g values: about 30 MB of text. */
  smv_csr *A = random_csr(40000, 40000, 40);
  CHECK(A != NULL);
  if (!A)
    return;
  char plain[256], gzp[256];
  temp_path(plain, sizeof plain, ".mtx");
  temp_path(gzp, sizeof gzp, ".mtx.gz");
  smv_error err;
  CHECK_OK(smv_mm_write(plain, A, &err));
  CHECK_OK(smv_mm_write(gzp, A, &err));
  struct stat sb;
  CHECK(stat(plain, &sb) == 0 && sb.st_size > (12 << 20)); /* >= 3 reports */
  progress_case(plain);
  progress_case(gzp);
  /* The library calls back only when asked: no options, no calls (and no
   * crash). */
  smv_csr *B = NULL;
  CHECK_OK(smv_mm_read(plain, NULL, &B, &err));
  smv_csr_free(B);
  remove(plain);
  remove(gzp);
  smv_csr_free(A);
}

/* ---- limits -----------------------------------------------------------------
 */

/* The int32 offset check after symmetric expansion, with the limit turned
 * down so a small file crosses it. */
static void test_overflow_after_expansion(void) {
  const char *text = "%%MatrixMarket matrix coordinate real symmetric\n"
                     "4 4 4\n1 1 1\n2 1 1\n3 1 1\n4 2 1\n";
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  CHECK(f != NULL);
  if (!f)
    return;
  smv_csr *A = NULL;
  smv_error err;
  /* 4 stored, 3 off the diagonal: 7 after expansion. */
  smv_status st =
      smv__mm_read_stream(f, "sym.mtx", NULL, 6, SMV_INDEX_MAX, &A, &err);
  CHECK_STATUS(st, SMV_ERR_OVERFLOW);
  CHECK(A == NULL);
  CHECK_STR_HAS(err.message, "sym.mtx: after symmetric expansion the matrix "
                             "has 7 entries, more than the limit of 6");
  rewind(f);
  st = smv__mm_read_stream(f, "sym.mtx", NULL, 7, SMV_INDEX_MAX, &A, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  if (A)
    CHECK_INT(A->nnz, 7);
  smv_csr_free(A);
  /* The claim itself over the limit: refused at the size line. */
  rewind(f);
  st = smv__mm_read_stream(f, "sym.mtx", NULL, 3, SMV_INDEX_MAX, &A, &err);
  CHECK_STATUS(st, SMV_ERR_OVERFLOW);
  CHECK_INT(err.line, 2);
  fclose(f);
}

/* A size line that claims far more than the file holds must fail at the
 * end of the file without allocating for the claim: in a child process
 * limited to 512 MB of address space, files claiming 2e9 entries (32 GB
 * if believed) must give their parse error, not SMV_ERR_NOMEM. Skipped
 * under AddressSanitizer, whose shadow memory needs the address space. */
#if defined(__SANITIZE_ADDRESS__)
#define MM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MM_ASAN 1
#endif
#endif
static void test_no_giant_allocation(void) {
#ifdef MM_ASAN
  SKIP("address-space limit cannot be used with AddressSanitizer");
#else
  static const char *files[] = {"tests/data/bad/huge_claim.mtx",
                                "tests/data/bad/huge_claim.mtx.gz",
                                "tests/data/bad/array_too_few.mtx"};
  fflush(NULL);
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    struct rlimit rl = {(rlim_t)512 << 20, (rlim_t)512 << 20};
    if (setrlimit(RLIMIT_AS, &rl) != 0)
      _exit(3);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
      smv_csr *A = NULL;
      smv_error err;
      if (smv_mm_read(files[i], NULL, &A, &err) != SMV_ERR_PARSE) {
        fprintf(stderr, "%s\n", err.message);
        _exit(1);
      }
    }
    _exit(0);
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0,
         "child status %d (1: wrong error, 3: setrlimit failed)", status);
#endif
}

/* Long lines in a plain file (the gzip corpus file decompressed): a 5 MiB
 * comment straddling several 1 MiB reads and the 4 MiB window, and 5 MiB
 * of blanks before an entry. */
static void test_long_lines_plain(void) {
  gzFile g = gzopen(DIR_VALID "long_lines.mtx.gz", "rb");
  CHECK(g != NULL);
  if (!g)
    return;
  char path[256];
  temp_path(path, sizeof path, ".mtx");
  FILE *f = fopen(path, "wb");
  char buf[1 << 16];
  int n;
  while (f && (n = gzread(g, buf, sizeof buf)) > 0)
    fwrite(buf, 1, (size_t)n, f);
  gzclose(g);
  if (f)
    fclose(f);
  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_mm_read(path, NULL, &A, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  if (A)
    check_against("long_lines plain", A, 2, 2, "1 . ; . 2");
  smv_csr_free(A);
  remove(path);
}

/* ---- vectors ----------------------------------------------------------------
 */

static void check_vector(const char *file, int64_t n, const double *want) {
  char path[256];
  snprintf(path, sizeof path, DIR_VALID "%s", file);
  double *v = NULL;
  int64_t len = -1;
  smv_error err;
  smv_status st = smv_mm_read_vector(path, &v, &len, &err);
  CHECKF(st == SMV_OK, "%s: %s", file, err.message);
  CHECK_INT(len, n);
  for (int64_t i = 0; v && i < n && i < len; i++)
    CHECKF(same_bits(v[i], want[i]), "%s[%lld] = %g, want %g", file,
           (long long)i, v[i], want[i]);
  smv_free(v);
}

static void test_vectors(void) {
  const double col[] = {1.5, -2, 0};
  check_vector("vec_col.mtx", 3, col);
  check_vector("vec_row.mtx", 3, col);
  const double coord[] = {-1, 0, 7, 0};
  check_vector("vec_coord.mtx", 4, coord);
  const double coord_row[] = {0, 3, 0, 0};
  check_vector("vec_coord_row.mtx", 4, coord_row);
  const double one[] = {-7.5};
  check_vector("one_by_one.mtx", 1, one);

  /* Not a vector. */
  double *v = (double *)&v;
  int64_t n = 5;
  smv_error err;
  smv_status st =
      smv_mm_read_vector(DIR_VALID "real_general.mtx", &v, &n, &err);
  CHECK_STATUS(st, SMV_ERR_DIM);
  CHECK(v == NULL && n == 0);
  CHECK_STR_HAS(err.message, "real_general.mtx:");
  CHECK_STR_HAS(err.message, ": not a vector: a 3 x 4 matrix");
  /* The shape is refused at the size line, before the values are read
   * (a 3 x 3 array with too few values: SMV_ERR_DIM at line 2). */
  st = smv_mm_read_vector("tests/data/bad/array_too_few.mtx", &v, &n, &err);
  CHECK_STATUS(st, SMV_ERR_DIM);
  CHECK_INT(err.line, 2);
  /* Parse errors of a vector come through with their line. */
  {
    char bad[256];
    temp_path(bad, sizeof bad, ".mtx");
    FILE *bf = fopen(bad, "w");
    CHECK(bf != NULL);
    if (bf) {
      fputs("%%MatrixMarket matrix array real general\n3 1\n1\n2x\n3\n", bf);
      fclose(bf);
    }
    st = smv_mm_read_vector(bad, &v, &n, &err);
    CHECK_STATUS(st, SMV_ERR_PARSE);
    CHECK_INT(err.line, 4);
    /* The length the caller needs is checked at the size line too. */
    st = smv_mm_read_vector_n(bad, 4, &v, &err);
    CHECK_STATUS(st, SMV_ERR_DIM);
    CHECK_INT(err.line, 2);
    CHECK_STR_HAS(err.message, "vector has 3 entries, expected 4");
    remove(bad);
  }
  st = smv_mm_read_vector("tests/data/no/such/vector.mtx", &v, &n, &err);
  CHECK_STATUS(st, SMV_ERR_IO);

  /* Round trips, plain and gzip, with special values; and n = 0. */
  for (int gz = 0; gz < 2; gz++) {
    int64_t len = 1000;
    double *x = malloc((size_t)len * sizeof *x);
    for (int64_t i = 0; i < len; i++)
      x[i] = special_value();
    char path[256];
    temp_path(path, sizeof path, gz ? ".mtx.gz" : ".mtx");
    CHECK_OK(smv_mm_write_vector(path, x, len, &err));
    double *y = NULL;
    int64_t m = 0;
    st = smv_mm_read_vector(path, &y, &m, &err);
    CHECKF(st == SMV_OK, "%s", err.message);
    CHECK_INT(m, len);
    CHECK(y && memcmp(x, y, (size_t)len * sizeof *x) == 0);
    smv_free(y);
    CHECK_OK(smv_mm_write_vector(path, x, 0, &err));
    st = smv_mm_read_vector(path, &y, &m, &err);
    CHECK_OK(st);
    CHECK_INT(m, 0);
    CHECK(y != NULL); /* never NULL on success */
    smv_free(y);
    free(x);
    remove(path);
  }
  /* The written header is the documented one. */
  FILE *f = tmpfile();
  const double two[] = {0.5, -1};
  CHECK_OK(smv_mm_write_vector_file(f, two, 2, &err));
  char text[256];
  read_back(f, text, sizeof text);
  CHECK(strcmp(text, "%%MatrixMarket matrix array real general\n2 1\n0.5\n"
                     "-1\n") == 0);
}

/* ---- errors of opening and writing ------------------------------------------
 */

static void test_open_errors(void) {
  smv_csr *A = (smv_csr *)&A;
  smv_error err;
  smv_status st = smv_mm_read("tests/data/no/such/file.mtx", NULL, &A, &err);
  CHECK_STATUS(st, SMV_ERR_IO);
  CHECK(A == NULL);
  CHECK_STR_HAS(err.message, "tests/data/no/such/file.mtx: cannot open: ");
  CHECK_INT(err.line, 0);
  st = smv_mm_read("tests/data", NULL, &A, &err);
  CHECK_STATUS(st, SMV_ERR_IO);
  CHECK_STR_HAS(err.message, "tests/data: cannot read: it is a directory");
  CHECK_STATUS(smv_mm_read(NULL, NULL, &A, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_mm_read(DIR_VALID "nnz0.mtx", NULL, NULL, &err),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_mm_read_file(NULL, "x", NULL, &A, &err), SMV_ERR_ARG);
  CHECK(A == NULL);
}

static void test_write_errors(void) {
  smv_csr *A = random_csr(100, 100, 5);
  CHECK(A != NULL);
  if (!A)
    return;
  smv_error err;
  smv_status st = smv_mm_write("tests/data/no/such/dir/out.mtx", A, &err);
  CHECK_STATUS(st, SMV_ERR_IO);
  CHECK_STR_HAS(err.message,
                "tests/data/no/such/dir/out.mtx: cannot open for writing: ");
  st = smv_mm_write("tests/data/no/such/dir/out.mtx.gz", A, &err);
  CHECK_STATUS(st, SMV_ERR_IO);
  CHECK_STR_HAS(err.message, "out.mtx.gz: cannot open for writing");
  /* A full disk: /dev/full fails every write with ENOSPC. */
  if (access("/dev/full", W_OK) == 0) {
    st = smv_mm_write("/dev/full", A, &err);
    CHECK_STATUS(st, SMV_ERR_IO);
    CHECK_STR_HAS(err.message, "/dev/full: write error: ");
    const double x[3] = {1, 2, 3};
    st = smv_mm_write_vector("/dev/full", x, 3, &err);
    CHECK_STATUS(st, SMV_ERR_IO);
    CHECK_STR_HAS(err.message, "/dev/full: write error: ");
    FILE *f = fopen("/dev/full", "w");
    if (f) {
      st = smv_mm_write_file(f, A, &err);
      CHECK_STATUS(st, SMV_ERR_IO);
      CHECK_STR_HAS(err.message, "write error");
      fclose(f);
    }
  }
  /* An inconsistent CSR is refused before anything is written. */
  A->row_ptr[1] = A->row_ptr[2] + 1;
  FILE *f = tmpfile();
  st = smv_mm_write_file(f, A, &err);
  CHECK_STATUS(st, SMV_ERR_INVALID_MATRIX);
  CHECK(ftell(f) == 0);
  fclose(f);
  CHECK_STATUS(smv_mm_write(NULL, A, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_mm_write_file(NULL, A, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_mm_write_vector("x.mtx", NULL, 3, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_mm_write_vector("x.mtx", NULL, -1, &err), SMV_ERR_ARG);
  smv_csr_free(A);
}

/* The writer's format, exactly. */
static void test_writer_format(void) {
  smv_csr *A;
  CHECK_OK(smv_csr_create(2, 3, 3, &A));
  const smv_offset rp[] = {0, 2, 3};
  const smv_index ci[] = {0, 2, 1};
  const double v[] = {0.1, -2, 1e-300};
  memcpy(A->row_ptr, rp, sizeof rp);
  memcpy(A->col_idx, ci, sizeof ci);
  memcpy(A->values, v, sizeof v);
  A->sorted = 1;
  FILE *f = tmpfile();
  smv_error err;
  CHECK_OK(smv_mm_write_file(f, A, &err));
  char text[512];
  read_back(f, text, sizeof text);
  CHECKF(strcmp(text, "%%MatrixMarket matrix coordinate real general\n"
                      "2 3 3\n1 1 0.10000000000000001\n1 3 -2\n"
                      "2 2 1e-300\n") == 0,
         "got:\n%s", text);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_valid_table);
  RUN(test_valid_files);
  RUN(test_valid_all_listed);
  RUN(test_unsorted);
  RUN(test_random_against_dense);
  RUN(test_round_trips);
  RUN(test_progress);
  RUN(test_overflow_after_expansion);
  RUN(test_no_giant_allocation);
  RUN(test_long_lines_plain);
  RUN(test_vectors);
  RUN(test_open_errors);
  RUN(test_write_errors);
  RUN(test_writer_format);
  return TEST_END();
}
