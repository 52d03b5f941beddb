/*
 * test.h — the smallest test harness that does the job.
 *
 * A test binary defines `static void test_xxx(void)` functions and runs
 * them from main with RUN(test_xxx); main ends with `return TEST_END();`.
 * Any failed CHECK marks the current test failed (the test keeps going, so
 * one run shows every broken assertion). SKIP(reason) ends the current test
 * as skipped. The last line printed is "RESULT <passed> <failed> <skipped>",
 * which tests/run.sh adds up.
 */
#ifndef SMV_TEST_H
#define SMV_TEST_H

#include "smv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tst_pass, tst_fail, tst_skip;
static int tst_cur_failed, tst_cur_skipped;
static const char *tst_cur = "";

#define CHECK(c)                                                               \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__,     \
              tst_cur, #c);                                                    \
      tst_cur_failed = 1;                                                      \
    }                                                                          \
  } while (0)

/* CHECK with a printf-style explanation. */
#define CHECKF(c, ...)                                                         \
  do {                                                                         \
    if (!(c)) {                                                                \
      fprintf(stderr, "%s:%d: %s: CHECK failed: %s: ", __FILE__, __LINE__,     \
              tst_cur, #c);                                                    \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      tst_cur_failed = 1;                                                      \
    }                                                                          \
  } while (0)

#define CHECK_INT(a, b)                                                        \
  do {                                                                         \
    long long tst_a = (long long)(a), tst_b = (long long)(b);                  \
    CHECKF(tst_a == tst_b, "%lld != %lld", tst_a, tst_b);                      \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                  \
  do {                                                                         \
    double tst_a = (double)(a), tst_b = (double)(b);                           \
    CHECKF(fabs(tst_a - tst_b) <= (tol), "%.17g vs %.17g (tol %g)", tst_a,     \
           tst_b, (double)(tol));                                              \
  } while (0)

#define CHECK_STATUS(st, want)                                                 \
  do {                                                                         \
    smv_status tst_s = (st);                                                   \
    CHECKF(tst_s == (want), "got %s, want %s", smv_status_string(tst_s),       \
           smv_status_string(want));                                           \
  } while (0)

#define CHECK_OK(st) CHECK_STATUS(st, SMV_OK)

#define CHECK_STR_HAS(hay, needle)                                             \
  do {                                                                         \
    const char *tst_h = (hay), *tst_n = (needle);                              \
    CHECKF(tst_h &&strstr(tst_h, tst_n), "\"%s\" does not contain \"%s\"",     \
           tst_h ? tst_h : "(null)", tst_n);                                   \
  } while (0)

#define SKIP(reason)                                                           \
  do {                                                                         \
    fprintf(stderr, "skip: %s: %s\n", tst_cur, (reason));                      \
    tst_cur_skipped = 1;                                                       \
    return;                                                                    \
  } while (0)

/* SMV_TEST_ONLY=TEXT runs only the tests whose name contains TEXT (the
 * others are not counted): one test under a sanitizer, say. */
static void tst_run(const char *name, void (*fn)(void)) {
  const char *only = getenv("SMV_TEST_ONLY");
  if (only && *only && !strstr(name, only))
    return;
  tst_cur = name;
  tst_cur_failed = tst_cur_skipped = 0;
  fn();
  if (tst_cur_failed) {
    tst_fail++;
    fprintf(stderr, "FAIL %s\n", name);
  } else if (tst_cur_skipped) {
    tst_skip++;
  } else {
    tst_pass++;
  }
}

#define RUN(fn) tst_run(#fn, fn)

static int tst_end(void) {
  const char *only = getenv("SMV_TEST_ONLY");
  printf("RESULT %d %d %d\n", tst_pass, tst_fail, tst_skip);
  fflush(stdout);
  if (only && *only && tst_pass + tst_fail + tst_skip == 0) {
    /* A filter that names no test is a mistake, not a pass. */
    fprintf(stderr, "SMV_TEST_ONLY=%s: no test's name contains it\n", only);
    return 1;
  }
  return tst_fail ? 1 : 0;
}
#define TEST_END() tst_end()

/* The matrix of a generator spec, or NULL with the failure (spec and
 * reason) recorded. */
static inline smv_csr *tst_generate(const char *spec) {
  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_generate(spec, &A, &err);
  CHECKF(st == SMV_OK, "%s: %s", spec, err.message);
  return st == SMV_OK ? A : NULL;
}

/* A sorted CSR matrix of nnz entries copied from literal arrays, or NULL
 * when it cannot be made. */
static inline smv_csr *tst_csr(smv_index rows, smv_index cols, int64_t nnz,
                               const smv_offset *ptr, const smv_index *idx,
                               const double *val) {
  smv_csr *A = NULL;
  if (smv_csr_create(rows, cols, nnz, &A) != SMV_OK)
    return NULL;
  memcpy(A->row_ptr, ptr, ((size_t)rows + 1) * sizeof *ptr);
  memcpy(A->col_idx, idx, (size_t)nnz * sizeof *idx);
  memcpy(A->values, val, (size_t)nnz * sizeof *val);
  A->sorted = 1;
  return A;
}

/* A sorted rows x cols CSR matrix whose row i holds len[i] consecutive
 * columns from first[i] (first NULL: max(0, i - 1)), values 1, 2, ...
 * along the row; NULL when it cannot be made. */
static inline smv_csr *tst_csr_lengths(smv_index rows, smv_index cols,
                                       const int *len, const int *first) {
  int64_t nnz = 0;
  for (smv_index i = 0; i < rows; i++)
    nnz += len[i];
  smv_csr *A = NULL;
  if (smv_csr_create(rows, cols, nnz, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (smv_index i = 0; i < rows; i++) {
    const int c0 = first ? first[i] : (i > 0 ? i - 1 : 0);
    for (int j = 0; j < len[i]; j++, k++) {
      A->col_idx[k] = c0 + j;
      A->values[k] = 1.0 + j;
    }
    A->row_ptr[i + 1] = (smv_offset)k;
  }
  A->sorted = 1;
  return A;
}

#endif
