/*
 * test_reuse.c — declaring reuse (SMV_MATRIX_REUSE, expected_calls;
 * src/core/reuse.c) on the host, no device needed: the threshold's
 * arithmetic, when reuse counts as declared, the options check both
 * matrix constructors run, and the struct's layout (Python's ctypes
 * mirror, python/smv/_lib.py MatrixOptions, relies on it). The plan made
 * with reuse declared is checked on the device (test_cuda_reuse.c).
 */
#include "internal.h"
#include "smv.h"
#include "test.h"

#include <stddef.h>
#include <string.h>

static void test_threshold(void) {
  /* 20 x 4 candidates x (2 warm-up + runs), runs 0 meaning 10. */
  CHECK(smv_matrix_reuse_threshold(0) == 960);
  CHECK(smv_matrix_reuse_threshold(10) == 960);
  CHECK(smv_matrix_reuse_threshold(1) == 240);
  CHECK(smv_matrix_reuse_threshold(3) == 400);
  CHECK(smv_matrix_reuse_threshold(-5) == 960);
  CHECK(smv_matrix_reuse_threshold(100000) == (int64_t)80 * 100002);
  CHECK_INT(SMV_REUSE_CANDIDATES_MAX, 4);
}

static void test_declared(void) {
  smv_matrix_options o;
  memset(&o, 0, sizeof o);
  CHECK_INT(smv_matrix_reuse_declared(NULL), 0);
  CHECK_INT(smv_matrix_reuse_declared(&o), 0); /* zero: the old meaning */
  o.flags = SMV_MATRIX_CUSPARSE | SMV_MATRIX_TUNE | SMV_MATRIX_HOT;
  CHECK_INT(smv_matrix_reuse_declared(&o), 0);
  o.flags = SMV_MATRIX_REUSE;
  CHECK_INT(smv_matrix_reuse_declared(&o), 1);
  o.flags = 0;
  o.expected_calls = 959;
  CHECK_INT(smv_matrix_reuse_declared(&o), 0);
  o.expected_calls = 960;
  CHECK_INT(smv_matrix_reuse_declared(&o), 1);
  o.tune_runs = 3; /* a cheaper measurement repays sooner */
  o.expected_calls = 400;
  CHECK_INT(smv_matrix_reuse_declared(&o), 1);
  o.expected_calls = 399;
  CHECK_INT(smv_matrix_reuse_declared(&o), 0);
  o.expected_calls = -1;
  CHECK_INT(smv_matrix_reuse_declared(&o), 0);
  o.flags = SMV_MATRIX_REUSE; /* the flag says "many" whatever the count */
  o.expected_calls = 5;
  CHECK_INT(smv_matrix_reuse_declared(&o), 1);
}

static void test_options_check(void) {
  char why[128];
  smv_matrix_options o;
  memset(&o, 0, sizeof o);
  CHECK_INT(smv__matrix_options_bad(NULL, "f", why, sizeof why), 0);
  CHECK_INT(smv__matrix_options_bad(&o, "f", why, sizeof why), 0);
  o.flags =
      SMV_MATRIX_CUSPARSE | SMV_MATRIX_TUNE | SMV_MATRIX_HOT | SMV_MATRIX_REUSE;
  o.tune_runs = 100000;
  o.expected_calls = INT64_MAX;
  CHECK_INT(smv__matrix_options_bad(&o, "f", why, sizeof why), 0);
  o.flags = 0x10;
  CHECK_INT(smv__matrix_options_bad(&o, "f", why, sizeof why), 1);
  CHECK_STR_HAS(why, "f: unknown flags 0x10");
  o.flags = 0;
  o.tune_runs = -1;
  CHECK_INT(smv__matrix_options_bad(&o, "g", why, sizeof why), 1);
  CHECK_STR_HAS(why, "tune_runs -1");
  o.tune_runs = 100001;
  CHECK_INT(smv__matrix_options_bad(&o, "g", why, sizeof why), 1);
  o.tune_runs = 0;
  o.expected_calls = -7;
  CHECK_INT(smv__matrix_options_bad(&o, "h", why, sizeof why), 1);
  CHECK_STR_HAS(why, "expected_calls -7 < 0");
}

static void test_words(void) {
  char b[96];
  smv_matrix_options o;
  memset(&o, 0, sizeof o);
  o.flags = SMV_MATRIX_REUSE;
  smv__reuse_words(&o, b, sizeof b);
  CHECK(strcmp(b, "SMV_MATRIX_REUSE") == 0);
  o.expected_calls = 1000;
  smv__reuse_words(&o, b, sizeof b);
  CHECK(strcmp(b, "SMV_MATRIX_REUSE, 1000 expected calls") == 0);
  o.flags = 0;
  smv__reuse_words(&o, b, sizeof b);
  CHECK(strcmp(b, "1000 expected calls >= 960") == 0);
}

/* Python's ctypes struct: flags, tune_runs, then the int64 at byte 8. */
static void test_layout(void) {
  CHECK_INT((int)offsetof(smv_matrix_options, flags), 0);
  CHECK_INT((int)offsetof(smv_matrix_options, tune_runs), 4);
  CHECK_INT((int)offsetof(smv_matrix_options, expected_calls), 8);
  CHECK_INT((int)sizeof(smv_matrix_options), 16);
}

int main(void) {
  RUN(test_threshold);
  RUN(test_declared);
  RUN(test_options_check);
  RUN(test_words);
  RUN(test_layout);
  return TEST_END();
}
