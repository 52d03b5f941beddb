/*
 * test_mm_number.c — the hand-written number scanner of the Matrix Market
 * reader must give exactly strtod's correctly rounded double, bit for bit,
 * on every input it accepts, and refuse what the documented grammar
 * refuses.
 *
 * Random strings: %.17g / %.16g / %.15g / %.6g / %.3e of random doubles
 * (every exponent), random digit strings of 1..25 significant digits with
 * a point anywhere and exponents from -360 to +360, and strings just
 * below, at and above the exact midpoint between two neighbouring doubles
 * (the hard cases of rounding). Also checks that the fast paths (not the
 * strtod fallback) handle the common 17-digit values.
 */
#include "mm_internal.h"
#include "smv_lab.h"
#include "test.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

static smv_rng rng_state = {0x243f6a8885a308d3ull};
static uint64_t rnd(void) { return smv_rng_next(&rng_state); }

static double random_double(void) {
  for (;;) {
    uint64_t b = rnd();
    double d;
    memcpy(&d, &b, sizeof d);
    if (isfinite(d))
      return d;
  }
}

static long mismatches;

/* Scan s (a whole token) and compare with strtod. */
static void check_one(const char *s) {
  double want;
  char *wend;
  want = strtod(s, &wend);
  double got = -12345.678;
  const char *end;
  mm_num_status st = smv__mm_scan_real(s, 1, &got, &end);
  int ok;
  if (isinf(want) &&
      !(strstr(s, "inf") || strstr(s, "INF") || strstr(s, "Inf")))
    ok = st == MM_NUM_OVERFLOW; /* finite text beyond double: refused */
  else
    ok = st == MM_NUM_OK && *end == '\0' && *wend == '\0' &&
         memcmp(&got, &want, sizeof got) == 0;
  if (!ok && mismatches++ < 10)
    CHECKF(0, "\"%s\": got %a (status %d, stopped at \"%s\"), strtod %a", s,
           got, st, st == MM_NUM_SYNTAX ? end : "", want);
}

static void test_printf_forms(void) {
  static const char *fmts[] = {"%.17g", "%.16g", "%.15g", "%.6g",
                               "%.3e",  "%.17e", "%.20g", "%.1f"};
  char buf[512];
  mismatches = 0;
  for (int i = 0; i < 400000; i++) {
    double d = random_double();
    const char *fmt = fmts[i % 8];
    if (i % 8 == 7 && fabs(d) > 1e30) /* %f of huge values is long */
      continue;
    snprintf(buf, sizeof buf, fmt, d);
    check_one(buf);
  }
  CHECK_INT(mismatches, 0);
}

/* check_one on each of the n strings of a list. */
static void check_list(const char *const *list, size_t n) {
  mismatches = 0;
  for (size_t i = 0; i < n; i++)
    check_one(list[i]);
  CHECK_INT(mismatches, 0);
}

/* Random decimal strings: 1..25 digits, point anywhere, sign, exponent. */
static void test_random_digits(void) {
  char buf[128];
  mismatches = 0;
  for (int i = 0; i < 400000; i++) {
    int nd = 1 + (int)(rnd() % 25);
    int point = (int)(rnd() % (nd + 2)) - 1; /* -1: none */
    size_t o = 0;
    if (rnd() % 3 == 0)
      buf[o++] = rnd() % 2 ? '-' : '+';
    for (int k = 0; k < nd; k++) {
      if (k == point)
        buf[o++] = '.';
      int digit = (int)(rnd() % 10);
      if (k == 0 && rnd() % 4 == 0)
        digit = 0; /* leading zeros */
      buf[o++] = (char)('0' + digit);
    }
    if (point == nd)
      buf[o++] = '.';
    if (point == -1 || rnd() % 2) {
      int range = (int)(rnd() % 4);
      int e = range == 0   ? (int)(rnd() % 45) - 22
              : range == 1 ? (int)(rnd() % 61) - 30
              : range == 2 ? (int)(rnd() % 721) - 360
                           : (int)(rnd() % 41) - 345; /* subnormal edge */
      o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%d",
                            rnd() % 2 ? "e" : "E", e);
    }
    buf[o] = '\0';
    check_one(buf);
  }
  CHECK_INT(mismatches, 0);
}

/* Near-halfway strings: the exact midpoint between d and its successor
 * (in long double: 64-bit significand holds it), printed with 17..25
 * significant digits, and nudged one unit in the last digit each way. */
static void test_halfway(void) {
#if LDBL_MANT_DIG >= 64
  char buf[128];
  mismatches = 0;
  for (int i = 0; i < 100000; i++) {
    double d = fabs(random_double());
    if (rnd() % 2) /* the ranges where the 128-bit path is used */
      d = ldexp(1.0 + (double)(rnd() >> 12) / 4503599627370496.0,
                (int)(rnd() % 180) - 90);
    double up = nextafter(d, INFINITY);
    if (!isfinite(up) || d < DBL_MIN)
      continue;
    long double mid = ((long double)d + (long double)up) / 2;
    int digits = 17 + (int)(rnd() % 9);
    snprintf(buf, sizeof buf, "%.*Le", digits - 1, mid);
    check_one(buf);
    /* nudge the last significant digit (before the 'e') */
    char *e = strchr(buf, 'e');
    for (int dir = -1; dir <= 1; dir += 2) {
      char t[128];
      strcpy(t, buf);
      char *p = t + (e - buf) - 1;
      if (dir > 0 && *p != '9')
        (*p)++;
      else if (dir < 0 && *p != '0')
        (*p)--;
      check_one(t);
    }
  }
  CHECK_INT(mismatches, 0);
#else
  SKIP("long double too narrow to hold midpoints");
#endif
}

/* Exact ties that the fast paths must round to even. */
static void test_ties(void) {
  static const char *cases[] = {
      "9007199254740993",      /* 2^53 + 1 -> 2^53 */
      "9007199254740995",      /* 2^53 + 3 -> 2^53 + 4 */
      "90071992547409930e-1",  /* the same tie through the division path */
      "900719925474099300e-2", /*   and with a larger divisor */
      "9007199254740993000",   /* multiplied */
      "18014398509481986",     /* 2^54 + 2: tie at twice the scale */
      "0.5",
      "2.5e-1",
      "1e23",
      "8.5e-323",
      "2.2250738585072011e-308",
      "2.2250738585072014e-308",
      "4.9406564584124654e-324",
      "2.4703282292062328e-324",
      "2.4703282292062327e-324",
      "1.7976931348623157e308",
      "1.7976931348623158e308",
      "0.1000000000000000055511151231257827021181583404541015625",
      "123456789012345678901234567890e-30",
      "1e-400",
      "-1e-400",
      "0e999999999",
      "0.0000000000000000000000000000000000000001e40"};
  check_list(cases, sizeof cases / sizeof cases[0]);
}

static void test_specials_and_grammar(void) {
  double v;
  const char *end;
  CHECK(smv__mm_scan_real("inf", 1, &v, &end) == MM_NUM_OK && isinf(v) &&
        v > 0 && *end == '\0');
  CHECK(smv__mm_scan_real("-Infinity", 1, &v, &end) == MM_NUM_OK && isinf(v) &&
        v < 0 && *end == '\0');
  CHECK(smv__mm_scan_real("NaN", 1, &v, &end) == MM_NUM_OK && isnan(v));
  CHECK(smv__mm_scan_real("-nan", 1, &v, &end) == MM_NUM_OK && isnan(v) &&
        signbit(v));
  CHECK(smv__mm_scan_real("inf", 0, &v, &end) == MM_NUM_SYNTAX);
  CHECK(smv__mm_scan_real("1e999", 1, &v, &end) == MM_NUM_OVERFLOW);
  CHECK(smv__mm_scan_real("-1e999", 1, &v, &end) == MM_NUM_OVERFLOW);
  CHECK(smv__mm_scan_real("-0", 1, &v, &end) == MM_NUM_OK && v == 0 &&
        signbit(v));
  CHECK(smv__mm_scan_real("-0e-999", 1, &v, &end) == MM_NUM_OK && v == 0 &&
        signbit(v));
  /* Refused outright, or stopped before the end (the reader then reports
   * a bad value because the next byte is not a blank). */
  static const char *bad[] = {"",      "+",    "-",    ".",      "e5",
                              "1e",    "1e+",  "1e-",  "--1",    "+-1",
                              "0x10",  "1..2", "1.5.", "nan(1)", "infx",
                              "1e5.5", "1,5",  "1d5",  "1 2",    "\x01"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mm_num_status st = smv__mm_scan_real(bad[i], 1, &v, &end);
    CHECKF(st != MM_NUM_OK || *end != '\0', "\"%s\" accepted", bad[i]);
  }
  /* Accepted forms (value checked against strtod in check_one). */
  static const char *good[] = {"+3",    "-.5",   "1.5E+03", "1.",
                               ".25e1", "00012", "1e0005",  "+0.0e-0"};
  check_list(good, sizeof good / sizeof good[0]);
}

static void test_integer_values(void) {
  double v;
  const char *end;
  CHECK(smv__mm_scan_integer_value("+42", &v, &end) == MM_NUM_OK && v == 42 &&
        *end == '\0');
  CHECK(smv__mm_scan_integer_value("-7", &v, &end) == MM_NUM_OK && v == -7);
  /* Beyond 2^53: rounded as strtod rounds. */
  CHECK(smv__mm_scan_integer_value("9007199254740993", &v, &end) == MM_NUM_OK &&
        v == 9007199254740992.0);
  CHECK(smv__mm_scan_integer_value("123456789012345678901234567890", &v,
                                   &end) == MM_NUM_OK &&
        v == strtod("123456789012345678901234567890", NULL));
  static const char *bad[] = {"1.5", "1e3", "inf", "nan", "", "+", "0x1"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    mm_num_status st = smv__mm_scan_integer_value(bad[i], &v, &end);
    CHECKF(st != MM_NUM_OK || *end != '\0', "\"%s\" accepted as integer",
           bad[i]);
  }
}

/* The speed claim rests on the fast paths: %.17g values must almost never
 * need the strtod fallback: never between 1e-11 and 1e20 (exact integer
 * paths), and in under 2% of cases elsewhere (the long double path gives
 * up only next to a rounding midpoint). */
static void test_fast_path_coverage(void) {
  char buf[64];
  uint64_t before = smv__mm_slow_count();
  for (int i = 0; i < 100000; i++) {
    double d = ldexp((double)(rnd() >> 11), -53) *
               pow(10.0, (double)((int)(rnd() % 30) - 10));
    if (rnd() % 2)
      d = -d;
    snprintf(buf, sizeof buf, "%.17g", d);
    double v;
    const char *end;
    CHECK(smv__mm_scan_real(buf, 1, &v, &end) == MM_NUM_OK);
  }
  CHECK_INT(smv__mm_slow_count() - before, 0);
#if defined(__x86_64__)
  before = smv__mm_slow_count();
  for (int i = 0; i < 100000; i++) {
    double d = random_double();
    if (fabs(d) < 1e-300) /* subnormal range: strtod by design */
      continue;
    snprintf(buf, sizeof buf, "%.17g", d);
    double v;
    const char *end;
    CHECK(smv__mm_scan_real(buf, 1, &v, &end) == MM_NUM_OK);
  }
  uint64_t slow = smv__mm_slow_count() - before;
  CHECKF(slow < 2000, "%llu of 100000 took the strtod fallback",
         (unsigned long long)slow);
#endif
}

int main(void) {
  RUN(test_printf_forms);
  RUN(test_random_digits);
  RUN(test_halfway);
  RUN(test_ties);
  RUN(test_specials_and_grammar);
  RUN(test_integer_values);
  RUN(test_fast_path_coverage);
  return TEST_END();
}
