/*
 * mm_number.c — decimal numbers of a Matrix Market file, exactly.
 *
 * Values must come out bit for bit as strtod gives them (correctly rounded,
 * round-half-even), yet a file of hundreds of MB holds tens of millions of
 * them, and glibc's strtod costs ~100 ns a call. So the token is scanned
 * once into a decimal significand m (at most 19 digits, < 10^19 < 2^64) and
 * a power of ten e, value = m * 10^e, and one of three exact paths runs:
 *
 *  1. m <= 2^53 and |e| <= 22: m and 10^|e| are both exact doubles, so one
 *     IEEE multiply or divide rounds correctly (Clinger's fast path).
 *     Needs FLT_EVAL_METHOD == 0 (SSE2, every x86-64 and AArch64 build).
 *  2. |e| <= 27 (5^27 < 2^63): exact 128-bit integer arithmetic.
 *     value = m * 5^e * 2^e; for e >= 0 the product m*5^e is exact in 128
 *     bits; for e < 0, q = (m << s) / 5^-e with the remainder as a sticky
 *     bit, and q keeps >= 65 significant bits. Rounding q to 53 bits with
 *     round/sticky bits is then exact. This covers the 17-digit values that
 *     %.17g writers produce (e.g. 0.12345678901234567 -> m = 12345678901234567,
 *     e = -17) in the range 1e-27 .. 1e45 or so.
 *  3. other exponents (x86-64): m times or divided by 10^27 (exact in the
 *     x87 80-bit long double, 64-bit significand) as often as needed, then
 *     10^rest. Each of the n operations rounds once, so the long double x
 *     is within n units in its last place (ulp) of the true value. The
 *     decision to round x to 53 bits only depends on its 11 extra bits; if
 *     they sit more than n + 1 ulps away from the midpoint pattern 1024,
 *     the true value rounds the same way and (double)x is exact.
 *     Otherwise (about (2n+5) in 2048 cases) fall through to 4.
 *  4. anything else (more than 19 significant digits, results near a
 *     rounding midpoint, subnormal or near overflow, other platforms):
 *     strtod on the token, which the caller runs in the "C" locale. Its grammar
 * is a superset of ours (hex floats, nan(...)) but the token was validated here
 * first and the delimiter after it stops strtod where we stopped.
 */
#include "mm_internal.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local uint64_t slow_count;
uint64_t smv__mm_slow_count(void) { return slow_count; }

static const double pow10_exact[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

#if defined(__SIZEOF_INT128__)
#define MM_HAVE_U128 1
__extension__ typedef unsigned __int128 mm_u128;

/* 5^k for k = 0..27, all below 2^63. */
static const uint64_t pow5[28] = {1ull,
                                  5ull,
                                  25ull,
                                  125ull,
                                  625ull,
                                  3125ull,
                                  15625ull,
                                  78125ull,
                                  390625ull,
                                  1953125ull,
                                  9765625ull,
                                  48828125ull,
                                  244140625ull,
                                  1220703125ull,
                                  6103515625ull,
                                  30517578125ull,
                                  152587890625ull,
                                  762939453125ull,
                                  3814697265625ull,
                                  19073486328125ull,
                                  95367431640625ull,
                                  476837158203125ull,
                                  2384185791015625ull,
                                  11920928955078125ull,
                                  59604644775390625ull,
                                  298023223876953125ull,
                                  1490116119384765625ull,
                                  7450580596923828125ull};

static int clz128(mm_u128 x) {
  uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
  return hi ? __builtin_clzll(hi) : 64 + __builtin_clzll(lo);
}

/* value = (q + f) * 2^b with 0 <= f < 1 and f > 0 iff sticky; q > 0.
 * Round to the nearest double, ties to even. Returns 0 when the result
 * would be subnormal or overflow (the caller then uses strtod) or when q is
 * too short to round with a sticky fraction (never happens by
 * construction). */
static int round_u128(mm_u128 q, int sticky, int b, int neg, double *out) {
  int n = 128 - clz128(q); /* significant bits of q */
  int shift = n - 53;
  uint64_t mant;
  if (shift > 0) {
    mm_u128 rem = q & (((mm_u128)1 << shift) - 1);
    mm_u128 half = (mm_u128)1 << (shift - 1);
    mant = (uint64_t)(q >> shift);
    if (rem > half || (rem == half && (sticky || (mant & 1))))
      mant++;
    if (mant == (1ull << 53)) {
      mant >>= 1;
      shift++;
    }
  } else {
    if (sticky)
      return 0;
    mant = (uint64_t)q << -shift;
  }
  /* mant in [2^52, 2^53): value = mant * 2^(b + shift) */
  int e2 = b + shift + 52;
  if (e2 < -1022 || e2 > 1023)
    return 0;
  uint64_t bits = ((uint64_t)(e2 + 1023) << 52) | (mant & ((1ull << 52) - 1));
  if (neg)
    bits |= 1ull << 63;
  memcpy(out, &bits, sizeof bits);
  return 1;
}
#endif

#if defined(__x86_64__) && LDBL_MANT_DIG == 64 && FLT_EVAL_METHOD == 0
#define MM_HAVE_X87 1
/* 10^k, k = 0..27: exact in a 64-bit significand (5^27 < 2^64). */
static const long double pow10_ld[28] = {
    1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
    1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L,
    1e20L, 1e21L, 1e22L, 1e23L, 1e24L, 1e25L, 1e26L, 1e27L};

/* Path 3 (see the top of the file); 0 when undecided. */
static int x87_value(uint64_t m, int e, int neg, double *v) {
  long double x = (long double)m; /* exact: m < 2^64 */
  int k = e < 0 ? -e : e, n = 0;
  while (k > 0) {
    int step = k > 27 ? 27 : k;
    x = e < 0 ? x / pow10_ld[step] : x * pow10_ld[step];
    k -= step;
    n++;
  }
  /* Normal doubles only (subnormals round at another bit), with a margin
   * for the error: 2^-1021 .. just below DBL_MAX. */
  if (!(x >= 0x1p-1021L && x <= 0x1.ffffffffffffp+1023L))
    return 0;
  uint64_t bits; /* x87 layout: the 64-bit significand comes first */
  memcpy(&bits, &x, sizeof bits);
  int d = (int)(bits & 0x7ff) - 1024;
  if (d < 0)
    d = -d;
  if (d <= n + 1)
    return 0;
  double r = (double)x;
  *v = neg ? -r : r;
  return 1;
}
#endif

/* m * 10^e exactly rounded without strtod, if one of the fast paths
 * applies. */
static int fast_value(uint64_t m, int e, int neg, double *v) {
#if FLT_EVAL_METHOD == 0
  if (m <= (1ull << 53) && e >= -22 && e <= 22) {
    double d = (double)m;
    d = e >= 0 ? d * pow10_exact[e] : d / pow10_exact[-e];
    *v = neg ? -d : d;
    return 1;
  }
#endif
#ifdef MM_HAVE_U128
  if (e >= 0 && e <= 27)
    return round_u128((mm_u128)m * pow5[e], 0, e, neg, v);
  if (e < 0 && e >= -27) {
    int s = __builtin_clzll(m) + 64; /* top bit of m << s is bit 127 */
    mm_u128 d = (mm_u128)m << s;
    mm_u128 q = d / pow5[-e];
    int sticky = (d % pow5[-e]) != 0;
    return round_u128(q, sticky, -s + e, neg, v);
  }
#endif
#ifdef MM_HAVE_X87
  return x87_value(m, e, neg, v);
#else
  return 0;
#endif
}

static int lower(int c) { return c | 0x20; }

/* Case-insensitive match of a lowercase word at p. */
static int word_at(const char *p, const char *w) {
  for (; *w; p++, w++)
    if (lower((unsigned char)*p) != *w)
      return 0;
  return 1;
}

/* The digits at *pp (advanced past them) into the mantissa m: leading
 * zeros skipped, at most 19 significant digits (*nd counts them), *slow
 * set when there are more. Returns how many digits there were. */
static inline int take_digits(const char **pp, uint64_t *m, int *nd,
                              int *slow) {
  const char *p = *pp;
  for (; MM_IS_DIGIT(*p); p++) {
    unsigned d = (unsigned)(*p - '0');
    if (*m == 0 && d == 0)
      continue;
    if (*nd < 19)
      *m = *m * 10 + d, ++*nd;
    else
      *slow = 1;
  }
  int k = (int)(p - *pp);
  *pp = p;
  return k;
}

mm_num_status smv__mm_scan_real(const char *p, int allow_special, double *v,
                                const char **end) {
  const char *s = p;
  int neg = 0;
  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  uint64_t m = 0;
  int nd = 0;   /* significant digits taken into m */
  int frac = 0; /* digits after the point (they scale by 10^-frac) */
  int slow = 0; /* more than 19 significant digits */
  int any = take_digits(&p, &m, &nd, &slow) > 0; /* saw at least one digit */
  if (*p == '.') {
    p++;
    frac = take_digits(&p, &m, &nd, &slow);
    any |= frac > 0;
    if (frac > 100000) /* absurd, but keep the int arithmetic safe */
      slow = 1;
  }
  if (!any) {
    if (allow_special) {
      size_t k = 0;
      double sv = 0;
      if (word_at(p, "infinity"))
        k = 8, sv = INFINITY;
      else if (word_at(p, "inf"))
        k = 3, sv = INFINITY;
      else if (word_at(p, "nan"))
        k = 3, sv = NAN;
      if (k) {
        *v = neg ? -sv : sv;
        *end = p + k;
        return MM_NUM_OK;
      }
    }
    *end = p;
    return MM_NUM_SYNTAX;
  }
  long ex = 0;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    int eneg = 0;
    if (*q == '+' || *q == '-')
      eneg = *q++ == '-';
    if (!MM_IS_DIGIT(*q)) {
      *end = q;
      return MM_NUM_SYNTAX;
    }
    for (; MM_IS_DIGIT(*q); q++)
      if (ex < 1000000)
        ex = ex * 10 + (*q - '0');
    p = q;
    ex = eneg ? -ex : ex;
  }
  *end = p;
  if (m == 0 && !slow) {
    *v = neg ? -0.0 : 0.0;
    return MM_NUM_OK;
  }
  if (!slow) {
    /* digits dropped from m never happen here, so value = m * 10^e with
     * e = ex - frac - (nothing): m holds every significant digit. */
    long e = ex - frac;
    if (e >= -400 && e <= 400 && fast_value(m, (int)e, neg, v))
      return MM_NUM_OK;
  }
  /* The exact fallback. strtod stops at the delimiter after the token,
   * which the grammar above guarantees is where we stopped. */
  slow_count++;
  char *q;
  errno = 0;
  double d = strtod(s, &q);
  if (q != p)
    return MM_NUM_SYNTAX; /* cannot happen; refuse rather than guess */
  if (isinf(d))
    return MM_NUM_OVERFLOW;
  *v = d;
  return MM_NUM_OK;
}

mm_num_status smv__mm_scan_integer_value(const char *p, double *v,
                                         const char **end) {
  const char *q = p;
  if (*q == '+' || *q == '-')
    q++;
  if (!MM_IS_DIGIT(*q)) {
    *end = q;
    return MM_NUM_SYNTAX;
  }
  while (MM_IS_DIGIT(*q))
    q++;
  /* The real scanner gives the same rounding for a plain integer; refuse
   * anything it would read past (a point or exponent). */
  mm_num_status st = smv__mm_scan_real(p, 0, v, end);
  if (st == MM_NUM_OK && *end != q) {
    *end = q;
    return MM_NUM_SYNTAX;
  }
  return st;
}
