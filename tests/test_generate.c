/* test_generate.c — every generator: shape, exact nnz, sorted distinct
 * columns (smv_csr_check), its specific structure, determinism (across
 * calls, thread counts and — through pinned checksums — machines), the
 * seed and cols options, and every kind of bad spec. Also smv_is_spec,
 * smv_generate_help and smv_load. */
#include "smv.h"
#include "test.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* tst_generate, and the matrix passes smv_csr_check and is flagged sorted. */
static smv_csr *gen(const char *spec) {
  smv_csr *A = tst_generate(spec);
  if (A) {
    smv_error cerr;
    smv_status cs = smv_csr_check(A, &cerr);
    CHECKF(cs == SMV_OK, "%s: %s", spec, cerr.message);
    CHECKF(A->sorted == 1, "%s: not flagged sorted", spec);
  }
  return A;
}

static int64_t row_len(const smv_csr *A, int64_t i) {
  return (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
}

/* FNV-1a over the three arrays, fed numbers byte by byte from the least
 * significant end so the hash is the same on any byte order: identical
 * matrices hash identically everywhere. */
static uint64_t fnv(uint64_t h, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++, v >>= 8)
    h = (h ^ (v & 0xff)) * 0x100000001b3ull;
  return h;
}
static uint64_t csr_hash(const smv_csr *A) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (int64_t i = 0; i <= A->rows; i++)
    h = fnv(h, (uint32_t)A->row_ptr[i], 4);
  for (int64_t k = 0; k < A->nnz; k++) {
    uint64_t bits;
    memcpy(&bits, &A->values[k], 8);
    h = fnv(h, (uint32_t)A->col_idx[k], 4);
    h = fnv(h, bits, 8);
  }
  return h;
}

static int same(const smv_csr *A, const smv_csr *B) {
  return A && B && A->rows == B->rows && A->cols == B->cols &&
         A->nnz == B->nnz && csr_hash(A) == csr_hash(B);
}

/* Random kinds: every value nonzero with magnitude in [0.5, 1.5). */
static void check_values(const smv_csr *A, const char *spec) {
  int64_t bad = 0, neg = 0;
  for (int64_t k = 0; k < A->nnz; k++) {
    double m = fabs(A->values[k]);
    bad += !(m >= 0.5 && m < 1.5);
    neg += A->values[k] < 0;
  }
  CHECKF(bad == 0, "%s: %lld values outside +-[0.5,1.5)", spec, (long long)bad);
  if (A->nnz >= 100) /* both signs, roughly half each */
    CHECKF(neg > A->nnz / 4 && neg < 3 * A->nnz / 4,
           "%s: %lld of %lld negative", spec, (long long)neg,
           (long long)A->nnz);
}

static void test_lap2d(void) {
  const int Ns[] = {1, 2, 3, 17};
  for (int t = 0; t < 4; t++) {
    int n = Ns[t];
    char spec[32];
    snprintf(spec, sizeof spec, "lap2d:%d", n);
    smv_csr *A = gen(spec);
    if (!A)
      continue;
    CHECK_INT(A->rows, n * n);
    CHECK_INT(A->cols, n * n);
    CHECK_INT(A->nnz, 5 * n * n - 4 * n);
    for (int64_t i = 0; i < A->rows; i++) {
      int64_t x = i % n, y = i / n;
      int nb = (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1);
      CHECK_INT(row_len(A, i), 1 + nb);
      double sum = 0;
      int diag = 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int64_t j = A->col_idx[k];
        sum += A->values[k];
        if (j == i) {
          diag = 1;
          CHECK(A->values[k] == 4.0);
        } else {
          CHECK(A->values[k] == -1.0);
          /* A neighbour: same row of the grid one apart, or one grid
           * row up/down. */
          int64_t d = j > i ? j - i : i - j;
          CHECK(d == n || (d == 1 && j / n == y));
        }
      }
      CHECK(diag);
      /* Row sum = 4 - neighbours: 0 inside, 1 on an edge, 2 at a corner. */
      CHECK_NEAR(sum, 4.0 - nb, 0.0);
    }
    smv_csr_free(A);
  }
}

static void test_lap3d(void) {
  smv_csr *A = gen("lap3d:9");
  if (A) {
    const int n = 9;
    CHECK_INT(A->rows, 729);
    CHECK_INT(A->nnz, 7 * 729 - 6 * 81);
    for (int64_t i = 0; i < A->rows; i++) {
      int64_t x = i % n, y = (i / n) % n, z = i / (n * n);
      int nb =
          (x > 0) + (x < n - 1) + (y > 0) + (y < n - 1) + (z > 0) + (z < n - 1);
      CHECK_INT(row_len(A, i), 1 + nb);
      double sum = 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        sum += A->values[k];
        CHECK(A->values[k] == (A->col_idx[k] == i ? 6.0 : -1.0));
      }
      CHECK_NEAR(sum, 6.0 - nb, 0.0);
    }
    /* Symmetric: entry (i, j) implies (j, i). Check via a dense 729^2
     * bitmap (66 KB). */
    unsigned char *bits = calloc(729 * 729 / 8 + 1, 1);
    if (bits) {
      for (int64_t i = 0; i < 729; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
          int64_t b = i * 729 + A->col_idx[k];
          bits[b / 8] |= (unsigned char)(1u << (b % 8));
        }
      int asym = 0;
      for (int64_t i = 0; i < 729; i++)
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
          int64_t b = (int64_t)A->col_idx[k] * 729 + i;
          asym += !(bits[b / 8] & (1u << (b % 8)));
        }
      CHECK_INT(asym, 0);
      free(bits);
    }
    smv_csr_free(A);
  }
  /* The size the benchmarks use: 160^3 = 4,096,000 rows, 28,518,400 nnz
   * (about 360 MB while it lives). */
  A = gen("lap3d:160");
  if (A) {
    CHECK_INT(A->rows, 4096000);
    CHECK_INT(A->nnz, 28518400);
    CHECK_INT(row_len(A, 0), 4);
    CHECK_INT(row_len(A, 160 * 160 * 80 + 160 * 80 + 80), 7);
  }
  smv_csr_free(A);
}

static void test_rand(void) {
  /* Sparse rows (draw, sort, top up) and dense-ish rows (selection
   * sampling, cols <= 4K), square and rectangular both ways. */
  const char *specs[] = {"rand:500:8",          "rand:300:40,cols=100",
                         "rand:50:7,cols=9000", "rand:400:3,cols=20",
                         "rand:64:64",          "rand:10:0"};
  const int64_t rows[] = {500, 300, 50, 400, 64, 10};
  const int64_t cols[] = {500, 100, 9000, 20, 64, 10};
  const int64_t k[] = {8, 40, 7, 3, 64, 0};
  for (int t = 0; t < 6; t++) {
    smv_csr *A = gen(specs[t]);
    if (!A)
      continue;
    CHECK_INT(A->rows, rows[t]);
    CHECK_INT(A->cols, cols[t]);
    CHECK_INT(A->nnz, rows[t] * k[t]);
    for (int64_t i = 0; i < A->rows; i++)
      CHECK_INT(row_len(A, i), k[t]);
    check_values(A, specs[t]);
    smv_csr_free(A);
  }
  /* Columns are uniform: 20000 rows x 4 of 50 columns, each column
   * expected 1600 times (binomial sd about 39); allow 6 sd. */
  smv_csr *A = gen("rand:20000:4,cols=50");
  if (A) {
    int64_t count[50] = {0};
    for (int64_t e = 0; e < A->nnz; e++)
      count[A->col_idx[e]]++;
    for (int c = 0; c < 50; c++)
      CHECKF(llabs(count[c] - 1600) < 240, "column %d drawn %lld times", c,
             (long long)count[c]);
    smv_csr_free(A);
  }
  /* The same with the sparse path (cols > 4K): 5000 rows x 2 of 40. */
  A = gen("rand:8000:2,cols=40");
  if (A) {
    int64_t count[40] = {0};
    for (int64_t e = 0; e < A->nnz; e++)
      count[A->col_idx[e]]++;
    for (int c = 0; c < 40; c++) /* expected 400, sd about 19.7 */
      CHECKF(llabs(count[c] - 400) < 120, "column %d drawn %lld times", c,
             (long long)count[c]);
    smv_csr_free(A);
  }
}

static void test_plaw(void) {
  smv_csr *A = gen("plaw:20000:16");
  if (A) {
    smv_stats s;
    CHECK_OK(smv_csr_stats(A, &s));
    CHECK_INT(s.nnz, 20000 * 16); /* the mean is exactly AVG */
    /* Pareto tail exponent 2 with xm = 8: the longest row is about
     * 8*sqrt(40000) = 1600, 100x the mean; the shortest about 8. */
    CHECKF(s.row_max >= 1000 && s.row_max <= 2000, "row_max %lld",
           (long long)s.row_max);
    CHECKF(s.row_min >= 7 && s.row_min <= 9, "row_min %lld",
           (long long)s.row_min);
    CHECK(s.row_stddev > 16.0);
    /* Few long rows: under 1% of the rows hold over 10x the mean. */
    int64_t longrows = 0;
    for (int64_t i = 0; i < A->rows; i++)
      longrows += row_len(A, i) > 160;
    CHECKF(longrows > 0 && longrows < 200, "%lld long rows",
           (long long)longrows);
    check_values(A, "plaw:20000:16");
    smv_csr_free(A);
  }
  /* Capped by the columns (rectangular), mean still exact. */
  A = gen("plaw:3000:10,cols=40");
  if (A) {
    CHECK_INT(A->cols, 40);
    CHECK_INT(A->nnz, 30000);
    int64_t maxl = 0;
    for (int64_t i = 0; i < A->rows; i++)
      if (row_len(A, i) > maxl)
        maxl = row_len(A, i);
    CHECK_INT(maxl, 40);
    smv_csr_free(A);
  }
  /* AVG == cols: every row full. */
  A = gen("plaw:50:6,cols=6");
  if (A) {
    for (int64_t i = 0; i < A->rows; i++)
      CHECK_INT(row_len(A, i), 6);
    smv_csr_free(A);
  }
  /* Small and many-column: AVG = 1 gives some empty rows. */
  A = gen("plaw:1000:1,cols=100000");
  if (A) {
    smv_stats s;
    CHECK_OK(smv_csr_stats(A, &s));
    CHECK_INT(s.nnz, 1000);
    CHECK(s.empty_rows > 0);
    smv_csr_free(A);
  }
}

static void test_band(void) {
  const char *specs[] = {"band:50:3", "band:40:2,cols=60", "band:60:4,cols=30",
                         "band:10:0", "band:5:100"};
  const int64_t R[] = {50, 40, 60, 10, 5}, C[] = {50, 60, 30, 10, 5},
                W[] = {3, 2, 4, 0, 100};
  for (int t = 0; t < 5; t++) {
    smv_csr *A = gen(specs[t]);
    if (!A)
      continue;
    CHECK_INT(A->rows, R[t]);
    CHECK_INT(A->cols, C[t]);
    int64_t empty = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      int64_t lo = i - W[t] > 0 ? i - W[t] : 0;
      int64_t hi = i + W[t] < C[t] - 1 ? i + W[t] : C[t] - 1;
      int64_t want = hi >= lo ? hi - lo + 1 : 0;
      CHECK_INT(row_len(A, i), want);
      empty += want == 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        CHECK_INT(A->col_idx[k], lo + (k - A->row_ptr[i]));
    }
    if (t == 2) /* rows 34..59 lie past the band's end in 30 columns */
      CHECK_INT(empty, 26);
    check_values(A, specs[t]);
    smv_csr_free(A);
  }
}

static void test_denserow(void) {
  smv_csr *A = gen("denserow:1001:5");
  if (A) {
    CHECK_INT(A->nnz, 1000 * 5 + 1001);
    for (int64_t i = 0; i < A->rows; i++)
      CHECK_INT(row_len(A, i), i == 500 ? 1001 : 5);
    for (int64_t k = A->row_ptr[500]; k < A->row_ptr[501]; k++)
      CHECK_INT(A->col_idx[k], k - A->row_ptr[500]);
    check_values(A, "denserow:1001:5");
    smv_csr_free(A);
  }
  A = gen("denserow:10:2,cols=300"); /* wide: the dense row has 300 */
  if (A) {
    CHECK_INT(row_len(A, 5), 300);
    CHECK_INT(A->nnz, 9 * 2 + 300);
    smv_csr_free(A);
  }
}

/* gen(spec), checked to be rows x cols with nnz entries (NULL if it could
 * not be generated). */
static smv_csr *gen_shaped(const char *spec, int64_t rows, int64_t cols,
                           int64_t nnz) {
  smv_csr *A = gen(spec);
  if (!A)
    return NULL;
  CHECKF(A->rows == rows && A->cols == cols && A->nnz == nnz,
         "%s: %lld x %lld, %lld entries; want %lld x %lld, %lld", spec,
         (long long)A->rows, (long long)A->cols, (long long)A->nnz,
         (long long)rows, (long long)cols, (long long)nnz);
  return A;
}

/* gen(spec) is rows x cols with nnz entries. */
static void check_shape(const char *spec, int64_t rows, int64_t cols,
                        int64_t nnz) {
  smv_csr_free(gen_shaped(spec, rows, cols, nnz));
}

static void test_diag_empty(void) {
  smv_csr *A = gen("diag:7");
  if (A) {
    CHECK_INT(A->nnz, 7);
    for (int64_t i = 0; i < 7; i++) {
      CHECK_INT(row_len(A, i), 1);
      CHECK_INT(A->col_idx[A->row_ptr[i]], i);
    }
    check_values(A, "diag:7");
    smv_csr_free(A);
  }
  A = gen("diag:6,cols=4"); /* rows 4 and 5 empty */
  if (A) {
    CHECK_INT(A->nnz, 4);
    CHECK_INT(row_len(A, 4), 0);
    CHECK_INT(row_len(A, 5), 0);
    smv_csr_free(A);
  }
  check_shape("diag:3,cols=10", 3, 10, 3);
  A = gen("empty:5:7");
  if (A) {
    CHECK_INT(A->rows, 5);
    CHECK_INT(A->cols, 7);
    CHECK_INT(A->nnz, 0);
    for (int i = 0; i <= 5; i++)
      CHECK_INT(A->row_ptr[i], 0);
    smv_csr_free(A);
  }
  check_shape("empty:0:0", 0, 0, 0);
  check_shape("diag:1", 1, 1, 1);
}

static void test_determinism(void) {
  const char *specs[] = {"rand:3000:9",    "plaw:3000:12", "band:500:4",
                         "denserow:800:6", "diag:100",     "rand:200000:4"};
  for (int t = 0; t < 6; t++) {
    smv_csr *A = gen(specs[t]), *B = gen(specs[t]);
    CHECKF(same(A, B), "%s differs between two calls", specs[t]);
    smv_csr_free(B);
#ifdef _OPENMP
    /* The thread count never changes the matrix. */
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    B = gen(specs[t]);
    CHECKF(same(A, B), "%s differs with 1 thread", specs[t]);
    smv_csr_free(B);
    omp_set_num_threads(5);
    B = gen(specs[t]);
    CHECKF(same(A, B), "%s differs with 5 threads", specs[t]);
    smv_csr_free(B);
    omp_set_num_threads(saved);
#endif
    smv_csr_free(A);
  }
  /* seed= changes random kinds; the default seed is 1. */
  smv_csr *A = gen("rand:300:5"), *B = gen("rand:300:5,seed=1"),
          *C = gen("rand:300:5,seed=2");
  CHECK(same(A, B));
  CHECK(A && C && csr_hash(A) != csr_hash(C));
  smv_csr_free(A);
  smv_csr_free(B);
  smv_csr_free(C);
  A = gen("plaw:2000:8,seed=18446744073709551615");
  B = gen("plaw:2000:8,seed=3");
  CHECK(A && B && csr_hash(A) != csr_hash(B));
  smv_csr_free(A);
  smv_csr_free(B);
  /* Option order does not matter. */
  A = gen("rand:100:3,cols=50,seed=9");
  B = gen("rand:100:3,seed=9,cols=50");
  CHECK(same(A, B));
  smv_csr_free(A);
  smv_csr_free(B);
}

/* Pinned checksums: the generators promise the same matrix on every
 * machine, compiler and thread count. If a deliberate change to a
 * generator alters these, update them and say so in the commit. */
static void test_pinned(void) {
  static const struct {
    const char *spec;
    uint64_t hash;
  } pins[] = {
      {"rand:1000:8,seed=42", 0xdb4790526d28debeull},
      {"plaw:1000:8", 0x92c028d07dc38808ull},
      {"band:100:3,cols=80", 0xbbf78506cbb63453ull},
      {"denserow:100:3", 0x220111495e0e26d2ull},
      {"lap3d:6", 0xb5be29677833a4c1ull},
      {"rand:200:60", 0xb77d5b62605f3898ull},
      /* issue 8 */
      {"stencil27:4", 0x186b0d567f31bc25ull},
      {"elastic3d:3", 0x739e0ec712576caeull},
      {"rmat:8:4", 0xd6970b426a2e25feull},
      {"lap2d:5,perm=rand", 0xc6577a5408a55be2ull},
  };
  for (size_t t = 0; t < sizeof pins / sizeof pins[0]; t++) {
    smv_csr *A = gen(pins[t].spec);
    if (!A)
      continue;
    uint64_t h = csr_hash(A);
    CHECKF(h == pins[t].hash, "%s: hash 0x%016llx, pinned 0x%016llx",
           pins[t].spec, (unsigned long long)h,
           (unsigned long long)pins[t].hash);
    smv_csr_free(A);
  }
}

static void expect_bad(const char *spec, smv_status want, const char *text) {
  smv_csr *A = (smv_csr *)1;
  smv_error err;
  smv_status st = smv_generate(spec, &A, &err);
  CHECKF(st == want, "%s: got %s, want %s", spec, smv_status_string(st),
         smv_status_string(want));
  CHECKF(A == NULL, "%s: result not NULL on error", spec);
  CHECKF(strstr(err.message, text) != NULL, "%s: message \"%s\" lacks \"%s\"",
         spec, err.message, text);
  CHECKF(err.status == want, "%s: err.status %d", spec, (int)err.status);
}

/* Specs that must be refused: the status and a piece of the message. */
static const struct {
  const char *spec;
  smv_status status;
  const char *text;
} bad_specs[] = {
    {"rand:100", SMV_ERR_PARSE, "expected rand:ROWS:K"},
    {"rand:100", SMV_ERR_PARSE, "missing argument K"},
    {"rand:100:", SMV_ERR_PARSE, "K must be a non-negative"},
    {"rand:abc:4", SMV_ERR_PARSE, "ROWS must be a non-negative"},
    {"rand:-5:4", SMV_ERR_PARSE, "got '-5'"},
    {"rand:10:2:3", SMV_ERR_PARSE, "too many arguments"},
    {"rand:10:20", SMV_ERR_PARSE, "K = 20 exceeds the 10 columns"},
    {"rand:10:5,cols=3", SMV_ERR_PARSE, "exceeds the 3 columns"},
    {"rand:0:0", SMV_ERR_PARSE, "ROWS must be at least 1"},
    {"rand:10:2,seed", SMV_ERR_PARSE, "not KEY=VALUE"},
    {"rand:10:2,seed=x", SMV_ERR_PARSE, "seed must be"},
    {"rand:10:2,seed=18446744073709551616", SMV_ERR_PARSE, "seed must be"},
    {"rand:10:2,seed=1,seed=2", SMV_ERR_PARSE, "given twice"},
    {"rand:10:2,cols=0", SMV_ERR_PARSE, "cols must be a positive"},
    {"rand:10:2,color=3", SMV_ERR_PARSE, "unknown option 'color'"},
    {"rand:10:2,", SMV_ERR_PARSE, "not KEY=VALUE"},
    {"lap2d:10,seed=3", SMV_ERR_PARSE, "give perm=rand too"},
    {"lap2d:0", SMV_ERR_PARSE, "N must be at least 1"},
    {"lap2d: 5", SMV_ERR_PARSE, "N must be"},
    {"empty:3:4,cols=5", SMV_ERR_PARSE, "unknown option"},
    {"plaw:10:0", SMV_ERR_PARSE, "AVG must be at least 1"},
    {"diag:0", SMV_ERR_PARSE, "N must be at least 1"},
    {"lapx:3", SMV_ERR_NOT_FOUND, "unknown generator 'lapx'"},
    {"nocolon", SMV_ERR_PARSE, "expected NAME:ARGS"},
    {"", SMV_ERR_PARSE, "expected NAME:ARGS"},
    /* Overflow of the int32 types, refused before allocating anything. */
    {"lap2d:46341", SMV_ERR_OVERFLOW, "int32 index limit"},
    {"lap3d:1291", SMV_ERR_OVERFLOW, "int32 index limit"},
    {"lap3d:1000", SMV_ERR_OVERFLOW, "int32 offset limit"},
    {"rand:3000000000:1", SMV_ERR_OVERFLOW, "int32 index limit"},
    {"rand:100000000:30", SMV_ERR_OVERFLOW, "3000000000 entries"},
    {"empty:5:99999999999999999999999", SMV_ERR_OVERFLOW, "int32 index limit"},
    {"band:2000000000:5", SMV_ERR_OVERFLOW, "offset limit"},
    {"rand:10:2,cols=2147483648", SMV_ERR_OVERFLOW, "index limit"},
};

static void test_bad_specs(void) {
  for (size_t i = 0; i < sizeof bad_specs / sizeof bad_specs[0]; i++)
    expect_bad(bad_specs[i].spec, bad_specs[i].status, bad_specs[i].text);
  CHECK_STATUS(smv_generate(NULL, NULL, NULL), SMV_ERR_ARG);
  smv_csr *A = NULL;
  CHECK_STATUS(smv_generate("rand:4", &A, NULL), SMV_ERR_PARSE); /* no err */
  CHECK(A == NULL);
}

static void test_is_spec_and_help(void) {
  CHECK(smv_is_spec("lap2d:10"));
  CHECK(smv_is_spec("rand:anything")); /* looks like one; generate judges */
  CHECK(smv_is_spec("empty:1:1"));
  CHECK(!smv_is_spec("lap2d"));
  CHECK(!smv_is_spec("matrix.mtx"));
  CHECK(!smv_is_spec("dir/lap2d:10"));
  CHECK(!smv_is_spec("foo:3"));
  CHECK(!smv_is_spec(""));
  CHECK(!smv_is_spec(NULL));
  const char *h = smv_generate_help();
  const char *names[] = {"lap2d:N",       "lap3d:N",         "rand:ROWS:K",
                         "plaw:ROWS:AVG", "band:ROWS:W",     "denserow:ROWS:K",
                         "diag:N",        "empty:ROWS:COLS", "cols=C",
                         "seed=S"};
  for (int i = 0; i < 10; i++)
    CHECK_STR_HAS(h, names[i]);
}

static void test_load(void) {
  smv_csr *A = NULL;
  smv_error err;
  /* A spec. */
  CHECK_OK(smv_load("diag:4", NULL, &A, &err));
  CHECK(A && A->nnz == 4);
  smv_csr_free(A);
  /* A missing file that is not a spec. */
  A = (smv_csr *)1;
  CHECK_STATUS(smv_load("/nonexistent/m.mtx", NULL, &A, &err), SMV_ERR_IO);
  CHECK(A == NULL);
  CHECK_STR_HAS(err.message,
                "/nonexistent/m.mtx: no such file (and not a generator spec)");
  /* A bad spec reports the spec problem, not "no such file". */
  CHECK_STATUS(smv_load("rand:5", NULL, &A, &err), SMV_ERR_PARSE);
  CHECK_STR_HAS(err.message, "missing argument K");
  CHECK_STATUS(smv_load("", NULL, &A, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_load(NULL, NULL, &A, &err), SMV_ERR_ARG);
  /* An existing file wins over a spec of the same spelling: a file named
   * "diag:3" holding a 2 x 2 matrix. */
  char dir[] = "/tmp/smv_test_load_XXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    return;
  }
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(dir) == 0);
  FILE *f = fopen("diag:3", "w");
  CHECK(f != NULL);
  if (f) {
    fputs("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 5.0\n", f);
    fclose(f);
    smv_status st = smv_load("diag:3", NULL, &A, &err);
    CHECKF(st == SMV_OK, "%s", err.message);
    CHECK(A && A->rows == 2 && A->nnz == 1 && A->col_idx[0] == 1 &&
          A->values[0] == 5.0);
    smv_csr_free(A);
    A = NULL;
    remove("diag:3");
  }
  CHECK(chdir(cwd) == 0);
  rmdir(dir);
}

/* ---- stencil27, elastic3d, rmat and perm=rand (issue 8) ---------------- */

/* Value of entry (i, j), or NAN if not stored (binary search: rows are
 * sorted). */
static double entry(const smv_csr *A, int64_t i, int64_t j) {
  int64_t lo = A->row_ptr[i], hi = A->row_ptr[i + 1];
  while (lo < hi) {
    int64_t mid = (lo + hi) / 2;
    if (A->col_idx[mid] < j)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < A->row_ptr[i + 1] && A->col_idx[lo] == j ? A->values[lo] : NAN;
}

/* Entries whose mirror (j, i) is missing or has another value. */
static int64_t asymmetric(const smv_csr *A) {
  int64_t bad = 0;
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      bad += !(entry(A, A->col_idx[k], i) == A->values[k]);
  return bad;
}

/* Grid neighbours (Chebyshev distance <= 1, itself included) of node c in
 * an n^3 grid. */
static int64_t nbhd(int64_t n, int64_t c) {
  int64_t len = 1;
  for (int d = 0; d < 3; d++, c /= n)
    len *= 1 + (c % n > 0) + (c % n < n - 1);
  return len;
}

static int cheb1(int64_t n, int64_t a, int64_t b) {
  for (int d = 0; d < 3; d++, a /= n, b /= n) {
    int64_t x = a % n - b % n;
    if (x < -1 || x > 1)
      return 0;
  }
  return 1;
}

static void test_stencil27(void) {
  const int Ns[] = {1, 2, 3, 6};
  for (int t = 0; t < 4; t++) {
    const int64_t n = Ns[t], line = 3 * n - 2;
    char spec[40];
    snprintf(spec, sizeof spec, "stencil27:%d", (int)n);
    smv_csr *A = gen_shaped(spec, n * n * n, n * n * n, line * line * line);
    if (!A)
      continue;
    int64_t bad = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      bad += row_len(A, i) != nbhd(n, i);
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int64_t j = A->col_idx[k];
        bad += A->values[k] != (j == i ? 26.0 : -1.0);
        bad += !cheb1(n, i, j);
      }
    }
    CHECKF(bad == 0, "%s: %lld wrong rows or entries", spec, (long long)bad);
    CHECK_INT(asymmetric(A), 0);
    if (n >= 3) /* an interior node has all 27 */
      CHECK_INT(row_len(A, 1 + n + n * n), 27);
    smv_csr_free(A);
  }
}

static void test_elastic3d(void) {
  const int Ns[] = {1, 2, 4};
  for (int t = 0; t < 3; t++) {
    const int64_t n = Ns[t], line = 3 * n - 2;
    char spec[40];
    snprintf(spec, sizeof spec, "elastic3d:%d", (int)n);
    smv_csr *A =
        gen_shaped(spec, 3 * n * n * n, 3 * n * n * n, 9 * line * line * line);
    if (!A)
      continue;
    int64_t bad = 0, not_dominant = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      bad += row_len(A, i) != 3 * nbhd(n, i / 3);
      double diag = 0, off = 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int64_t j = A->col_idx[k];
        bad += A->values[k] == 0.0 || !cheb1(n, i / 3, j / 3);
        if (j == i)
          diag = A->values[k];
        else
          off += fabs(A->values[k]);
      }
      not_dominant += !(diag > off);
    }
    CHECKF(bad == 0, "%s: %lld wrong rows or entries", spec, (long long)bad);
    CHECKF(not_dominant == 0, "%s: %lld rows not diagonally dominant", spec,
           (long long)not_dominant);
    CHECK_INT(asymmetric(A), 0);
    if (n >= 3) /* an interior node's rows have 27 blocks of 3 */
      CHECK_INT(row_len(A, 3 * (1 + n + n * n)), 81);
    smv_csr_free(A);
  }
}

static void test_rmat(void) {
  smv_csr *A = gen("rmat:12:8");
  if (!A)
    return;
  CHECK_INT(A->rows, 4096);
  CHECK_INT(A->cols, 4096);
  /* Both directions of at most 8 * 4096 edges, loops and duplicates gone:
   * even, bounded, and (a, b, c, d skewed) well below the bound. */
  CHECK(A->nnz <= 2 * 8 * 4096);
  CHECK(A->nnz > 8 * 4096);
  CHECK_INT(A->nnz % 2, 0);
  CHECK_INT(asymmetric(A), 0);
  int64_t loops = 0, max_len = 0, empty = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      loops += A->col_idx[k] == i;
    if (row_len(A, i) > max_len)
      max_len = row_len(A, i);
    empty += row_len(A, i) == 0;
  }
  CHECK_INT(loops, 0);
  /* Kronecker labels: vertex 0 is the hub (a = 0.57 on both bits). */
  CHECK_INT(row_len(A, 0), max_len);
  CHECK(max_len > 20 * (A->nnz / A->rows)); /* heavy-tailed degrees */
  CHECK(empty > 0);                         /* and isolated vertices */
  check_values(A, "rmat:12:8");
  smv_csr *B = gen("rmat:12:8,seed=2");
  CHECK(B && csr_hash(A) != csr_hash(B));
  smv_csr_free(B);
  smv_csr_free(A);
  /* The smallest graph: 2 vertices, one edge drawn, maybe a loop. */
  A = gen("rmat:1:1");
  if (A) {
    CHECK_INT(A->rows, 2);
    CHECK(A->nnz == 0 || A->nnz == 2);
    smv_csr_free(A);
  }
}

/* perm=rand: B = P A Q^T (Q = P for square), checked entry by entry and
 * through y = A x. */
static void check_perm(const char *base, const char *permuted) {
  smv_csr *A = gen(base), *B = gen(permuted);
  smv_index *p = NULL, *q = NULL;
  if (!A || !B)
    goto out;
  CHECK_INT(B->rows, A->rows);
  CHECK_INT(B->cols, A->cols);
  CHECK_INT(B->nnz, A->nnz);
  p = malloc((size_t)A->rows * sizeof *p);
  q = malloc((size_t)A->cols * sizeof *q);
  if (!p || !q)
    goto out;
  smv_error err;
  CHECK_OK(smv_generate_perm(permuted, p, q, &err));
  /* Real permutations, and not the identity. */
  char *seen = calloc((size_t)A->rows + (size_t)A->cols, 1);
  int64_t bad = 0, moved = 0;
  for (int64_t i = 0; seen && i < A->rows; i++) {
    bad += p[i] < 0 || p[i] >= A->rows || seen[p[i]]++;
    moved += p[i] != i;
  }
  for (int64_t j = 0; seen && j < A->cols; j++)
    bad += q[j] < 0 || q[j] >= A->cols || seen[A->rows + q[j]]++;
  free(seen);
  CHECKF(bad == 0, "%s: not a permutation", permuted);
  if (A->rows > 1)
    CHECKF(moved > 0, "%s: identity row permutation", permuted);
  if (A->rows == A->cols)
    CHECK(memcmp(p, q, (size_t)A->rows * sizeof *p) == 0);
  /* Every entry moved to (p[i], q[j]) with its value; row lengths follow
   * (so the multiset of row lengths is the same). */
  bad = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    bad += row_len(B, p[i]) != row_len(A, i);
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      bad += !(entry(B, p[i], q[A->col_idx[k]]) == A->values[k]);
  }
  CHECKF(bad == 0, "%s: %lld rows or entries not where P A Q^T puts them",
         permuted, (long long)bad);
  /* y' = P y for x' = Q x. */
  double *x = malloc((size_t)A->cols * sizeof *x),
         *xp = malloc((size_t)A->cols * sizeof *xp),
         *y = malloc((size_t)A->rows * sizeof *y),
         *yp = malloc((size_t)A->rows * sizeof *yp);
  if (x && xp && y && yp) {
    for (int64_t j = 0; j < A->cols; j++) {
      x[j] = 1.0 + (double)((j * 7919) % 1000) / 1000.0;
      xp[q[j]] = x[j];
    }
    CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, y));
    CHECK_OK(smv_spmv_ref(B, 1.0, xp, 0.0, yp));
    int64_t off = 0;
    for (int64_t i = 0; i < A->rows; i++)
      off += !(fabs(yp[p[i]] - y[i]) <= 1e-12 * (1.0 + fabs(y[i])) * 100);
    CHECKF(off == 0, "%s: %lld rows of P y differ", permuted, (long long)off);
  }
  free(x);
  free(xp);
  free(y);
  free(yp);
out:
  free(p);
  free(q);
  smv_csr_free(A);
  smv_csr_free(B);
}

static void test_perm(void) {
  check_perm("lap3d:7", "lap3d:7,perm=rand");
  check_perm("lap2d:9", "lap2d:9,perm=rand,seed=4");
  check_perm("stencil27:5", "stencil27:5,perm=rand");
  check_perm("elastic3d:3", "elastic3d:3,perm=rand");
  check_perm("rand:300:7,seed=3", "rand:300:7,seed=3,perm=rand");
  check_perm("rand:200:5,cols=90", "rand:200:5,perm=rand,cols=90"); /* tall */
  check_perm("band:50:3,cols=400", "band:50:3,cols=400,perm=rand"); /* wide */
  check_perm("plaw:2000:8", "plaw:2000:8,perm=rand");
  check_perm("denserow:300:4", "denserow:300:4,perm=rand");
  check_perm("diag:40", "diag:40,perm=rand");
  check_perm("rmat:10:8", "rmat:10:8,perm=rand");
  check_perm("empty:6:4", "empty:6:4,perm=rand");
  check_perm("lap2d:2", "lap2d:2,perm=rand");
  /* perm=none is the matrix itself; seed= moves the permutation. */
  smv_csr *A = gen("lap3d:5"), *B = gen("lap3d:5,perm=none"),
          *C = gen("lap3d:5,perm=rand,seed=1"),
          *D = gen("lap3d:5,perm=rand,seed=2");
  CHECK(same(A, B));
  CHECK(A && C && csr_hash(A) != csr_hash(C));
  CHECK(C && D && csr_hash(C) != csr_hash(D));
  /* A symmetric matrix stays symmetric, the diagonal stays diagonal. */
  if (C) {
    CHECK_INT(asymmetric(C), 0);
    smv_stats st;
    CHECK_OK(smv_csr_stats(C, &st));
    CHECK_INT(st.diag_entries, 125);
  }
  smv_csr_free(A);
  smv_csr_free(B);
  smv_csr_free(C);
  smv_csr_free(D);
  /* Without perm the permutation is the identity. */
  smv_index p[9], q[9];
  CHECK_OK(smv_generate_perm("lap2d:3", p, q, NULL));
  for (int i = 0; i < 9; i++)
    CHECK(p[i] == i && q[i] == i);
  CHECK_STATUS(smv_generate_perm(NULL, p, q, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_generate_perm("lap2d:3,perm=x", p, NULL, NULL),
               SMV_ERR_PARSE);
}

static void test_new_determinism(void) {
  const char *specs[] = {"stencil27:9",
                         "elastic3d:5",
                         "rmat:12:8",
                         "rmat:9:16,perm=rand,seed=5",
                         "lap3d:8,perm=rand",
                         "rand:500:7,cols=300,perm=rand",
                         "plaw:3000:12,perm=rand"};
  for (size_t t = 0; t < sizeof specs / sizeof specs[0]; t++) {
    smv_csr *A = gen(specs[t]), *B = gen(specs[t]);
    CHECKF(same(A, B), "%s differs between two calls", specs[t]);
    smv_csr_free(B);
#ifdef _OPENMP
    int saved = omp_get_max_threads();
    const int counts[] = {1, 3, 7};
    for (int c = 0; c < 3; c++) {
      omp_set_num_threads(counts[c]);
      B = gen(specs[t]);
      CHECKF(same(A, B), "%s differs with %d threads", specs[t], counts[c]);
      smv_csr_free(B);
    }
    omp_set_num_threads(saved);
#endif
    smv_csr_free(A);
  }
}

static void test_new_bad_specs(void) {
  expect_bad("lap2d:10,perm=x", SMV_ERR_PARSE, "perm must be rand or none");
  expect_bad("rand:10:2,perm=rand,perm=none", SMV_ERR_PARSE, "given twice");
  expect_bad("stencil27:0", SMV_ERR_PARSE, "N must be at least 1");
  expect_bad("stencil27:4,seed=2", SMV_ERR_PARSE, "give perm=rand too");
  expect_bad("stencil27:4,cols=2", SMV_ERR_PARSE, "unknown option 'cols'");
  expect_bad("stencil27:1291", SMV_ERR_OVERFLOW, "int32 index limit");
  expect_bad("stencil27:1000", SMV_ERR_OVERFLOW, "int32 offset limit");
  expect_bad("elastic3d:300", SMV_ERR_OVERFLOW, "int32 offset limit");
  expect_bad("elastic3d:3:3", SMV_ERR_PARSE, "too many arguments");
  expect_bad("rmat:0:4", SMV_ERR_PARSE, "SCALE must be 1..30");
  expect_bad("rmat:31:1", SMV_ERR_OVERFLOW, "SCALE must be 1..30");
  expect_bad("rmat:10:0", SMV_ERR_PARSE, "EDGEFACTOR must be at least 1");
  expect_bad("rmat:26:16", SMV_ERR_OVERFLOW, "int32 offset limit");
  expect_bad("rmat:10", SMV_ERR_PARSE, "missing argument EDGEFACTOR");
  expect_bad("rmat:10:4,cols=3", SMV_ERR_PARSE, "unknown option 'cols'");
  const char *h = smv_generate_help();
  CHECK_STR_HAS(h, "stencil27:N");
  CHECK_STR_HAS(h, "elastic3d:N");
  CHECK_STR_HAS(h, "rmat:SCALE:EF");
  CHECK_STR_HAS(h, "perm=rand");
  CHECK(smv_is_spec("rmat:22:16"));
}

int main(void) {
  RUN(test_lap2d);
  RUN(test_lap3d);
  RUN(test_rand);
  RUN(test_plaw);
  RUN(test_band);
  RUN(test_denserow);
  RUN(test_diag_empty);
  RUN(test_determinism);
  RUN(test_pinned);
  RUN(test_bad_specs);
  RUN(test_is_spec_and_help);
  RUN(test_load);
  RUN(test_stencil27);
  RUN(test_elastic3d);
  RUN(test_rmat);
  RUN(test_perm);
  RUN(test_new_determinism);
  RUN(test_new_bad_specs);
  return TEST_END();
}
