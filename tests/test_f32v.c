/*
 * test_f32v.c — the host side of precision f64-f32v (SMV_F64_F32V: f32
 * values, f64 vectors and sums), which runs without a device: the
 * precision names, which rungs run it, the range check smv_matrix_create
 * applies, and the error bound (smv_spmv_f32v_bound) on hand cases, plus
 * the bound against the mode's CPU equivalent (the f64 product of the
 * float-rounded values) on random matrices. The device side:
 * tests/test_cuda_mixed.c.
 */
#include "test.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* g(k) = k u / (1 - k u), u = 2^-53: written out again here, so the test
 * checks the library's formula rather than sharing its code. */
static double g53(double k) { return k * 0x1p-53 / (1.0 - k * 0x1p-53); }

static void test_names(void) {
  CHECK(strcmp(smv_precision_name(SMV_F64), "f64") == 0);
  CHECK(strcmp(smv_precision_name(SMV_F32), "f32") == 0);
  CHECK(strcmp(smv_precision_name(SMV_F64_F32V), "f64-f32v") == 0);
  CHECK(smv_precision_name((smv_precision)3) == NULL);
  CHECK(smv_precision_name((smv_precision)-1) == NULL);
  smv_precision p = SMV_F32;
  CHECK_STATUS(smv_precision_parse("f64-f32v", &p), SMV_OK);
  CHECK_INT(p, SMV_F64_F32V);
  CHECK_STATUS(smv_precision_parse("F64", &p), SMV_OK);
  CHECK_INT(p, SMV_F64);
  CHECK_STATUS(smv_precision_parse("f32", &p), SMV_OK);
  CHECK_INT(p, SMV_F32);
  CHECK_STATUS(smv_precision_parse("both", &p), SMV_ERR_PARSE);
  CHECK_STATUS(smv_precision_parse("f64f32v", &p), SMV_ERR_PARSE);
  CHECK_STATUS(smv_precision_parse("", &p), SMV_ERR_PARSE);
  CHECK_STATUS(smv_precision_parse(NULL, &p), SMV_ERR_ARG);
  CHECK_STATUS(smv_precision_parse("f64", NULL), SMV_ERR_ARG);
}

static void test_rungs(void) {
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    const smv_alg alg = (smv_alg)a;
    CHECK(smv_alg_runs_precision(alg, SMV_F64));
    CHECK(smv_alg_runs_precision(alg, SMV_F32));
    const int want = alg == SMV_ALG_AUTO || alg == SMV_ALG_VECTOR ||
                     alg == SMV_ALG_ADAPTIVE || alg == SMV_ALG_TILED;
    CHECKF(smv_alg_runs_precision(alg, SMV_F64_F32V) == want, "rung %d", a);
  }
  CHECK(!smv_alg_runs_precision(SMV_ALG_COUNT, SMV_F64));
  CHECK(!smv_alg_runs_precision(SMV_ALG_ADAPTIVE, (smv_precision)3));
}

/* A 2 x 3 matrix with one value v at (1, 2) beside ordinary ones. */
static smv_csr *with_value(double v) {
  const smv_offset ptr[] = {0, 2, 4};
  const smv_index idx[] = {0, 1, 0, 2};
  const double val[] = {1.0, -2.5, 3.0, v};
  return tst_csr(2, 3, 4, ptr, idx, val);
}

static void test_range(void) {
  const double ok[] = {FLT_MAX, -FLT_MAX, FLT_MIN,  0x1p-160,
                       0.0,     NAN,      INFINITY, -INFINITY};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    smv_csr *A = with_value(ok[i]);
    smv_error err;
    CHECKF(smv_csr_check_f32_range(A, &err) == SMV_OK, "%g: %s", ok[i],
           err.message);
    smv_csr_free(A);
  }
  const double bad[] = {1e39, -1e39, DBL_MAX, nextafter((double)FLT_MAX, 1e300),
                        -nextafter((double)FLT_MAX, 1e300)};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    smv_csr *A = with_value(bad[i]);
    smv_error err;
    memset(&err, 0, sizeof err);
    CHECK_STATUS(smv_csr_check_f32_range(A, &err), SMV_ERR_OVERFLOW);
    CHECKF(strstr(err.message, "row 1, column 2") != NULL, "%s", err.message);
    CHECKF(strstr(err.message, "f64-f32v") != NULL, "%s", err.message);
    smv_csr_free(A);
  }
  CHECK_STATUS(smv_csr_check_f32_range(NULL, NULL), SMV_ERR_ARG);
}

/* One row [a] times x = [xv]: the bound by hand, against the library's. */
static double one_by_one(double a, double xv, double alpha, double beta,
                         double y0) {
  const smv_offset ptr[] = {0, 1};
  const smv_index idx[] = {0};
  smv_csr *A = tst_csr(1, 1, 1, ptr, idx, &a);
  double b = NAN;
  CHECK_OK(smv_spmv_f32v_bound(A, alpha, &xv, beta, &y0, &b));
  smv_csr_free(A);
  return b;
}

static void test_bound_hand(void) {
  /* a = 1, x = 1, alpha = 1, beta = 0, n = 1:
   * (2^-24 + 2^-150) + g(3) (1 + 2^-24 + 2^-150), times (1 + 2 g(5)). */
  double want = (0x1p-24 + 0x1p-150) + g53(3) * (1 + 0x1p-24 + 0x1p-150);
  want *= 1 + 2 * g53(5);
  double got = one_by_one(1.0, 1.0, 1.0, 0.0, 0.0);
  CHECK_NEAR(got, want, 1e-15 * want);
  /* alpha = -2, beta = 3, y0 = -5, a = 0.75, x = 4: |alpha| = 2,
   * |a x| = 3, |beta y0| = 15. */
  want = 2 * (0x1p-24 * 0.75 + 0x1p-150) * 4 +
         g53(3) * (2 * ((1 + 0x1p-24) * 0.75 + 0x1p-150) * 4 + 15);
  want *= 1 + 2 * g53(5);
  got = one_by_one(0.75, 4.0, -2.0, 3.0, -5.0);
  CHECK_NEAR(got, want, 1e-15 * want);
  /* beta = 0: y0 is not read (NaN there changes nothing). */
  CHECK_NEAR(one_by_one(0.75, 4.0, -2.0, 0.0, NAN),
             (2 * (0x1p-24 * 0.75 + 0x1p-150) * 4 +
              g53(3) * 2 * ((1 + 0x1p-24) * 0.75 + 0x1p-150) * 4) *
                 (1 + 2 * g53(5)),
             1e-22);
  /* Non-finite input: the bound says so. */
  CHECK(isinf(one_by_one(INFINITY, 1.0, 1.0, 0.0, 0.0)));
  CHECK(isnan(one_by_one(1.0, NAN, 1.0, 0.0, 0.0)));

  /* Rows of several entries and an empty row: 3 x 4, row 1 empty. */
  const smv_offset ptr[] = {0, 3, 3, 4};
  const smv_index idx[] = {0, 2, 3, 1};
  const double val[] = {1.5, -0.25, 8.0, -3.0};
  smv_csr *A = tst_csr(3, 4, 4, ptr, idx, val);
  const double x[] = {2.0, -1.0, 0.5, -0.125};
  const double y0[] = {1.0, -7.0, 0.25};
  double b[3];
  CHECK_OK(smv_spmv_f32v_bound(A, 0.5, x, -2.0, y0, b));
  double s_rnd = 0, s_mag = 0; /* row 0: |a| and |x| of its entries */
  const double av[] = {1.5, 0.25, 8.0}, xv[] = {2.0, 0.5, 0.125};
  for (int k = 0; k < 3; k++) {
    s_rnd += (0x1p-24 * av[k] + 0x1p-150) * xv[k];
    s_mag += ((1 + 0x1p-24) * av[k] + 0x1p-150) * xv[k];
  }
  want = (0.5 * s_rnd + g53(5) * (0.5 * s_mag + 2.0)) * (1 + 2 * g53(7));
  CHECK_NEAR(b[0], want, 1e-15 * want);
  /* The empty row: only beta y0's rounding, g(2) |beta y0|. */
  want = g53(2) * 14.0 * (1 + 2 * g53(4));
  CHECK_NEAR(b[1], want, 1e-15 * want);
  CHECK_STATUS(smv_spmv_f32v_bound(A, 0.5, x, -2.0, NULL, b), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_f32v_bound(A, 0.5, NULL, 0.0, NULL, b), SMV_ERR_ARG);
  smv_csr_free(A);
}

/* The bound is tight where it should be: a value halfway between two
 * floats loses 2^-24 of itself (normal range) or 2^-150 (subnormal). */
static void test_bound_tight(void) {
  /* 1 + 2^-24 is a tie between 1 and 1 + 2^-23: rounds to 1 (even). */
  const double a = 1.0 + 0x1p-24;
  CHECK((double)(float)a == 1.0);
  double err = fabs((double)(float)a * 1.0 - a);
  double b = one_by_one(a, 1.0, 1.0, 0.0, 0.0);
  CHECKF(err <= b && err >= 0.99 * b, "err %g, bound %g", err, b);
  /* 1.5 x 2^-149, halfway between the two smallest subnormals: rounds to
   * 2^-148 (even), an error of 2^-150, the bound's absolute term. */
  const double s = 0x1.8p-149;
  CHECK((double)(float)s == 0x1p-148);
  err = fabs((double)(float)s - s);
  CHECK(err == 0x1p-150);
  b = one_by_one(s, 1.0, 1.0, 0.0, 0.0);
  CHECKF(err <= b && err >= 0.5 * b, "err %g, bound %g", err, b);
}

/* The mode's CPU equivalent (values rounded once to float, the f64
 * reference) stays within twice the bound of the f64 reference, on
 * random matrices with values far from float-representable. */
static void test_bound_random(void) {
  static const char *const specs[] = {"rand:500:12,seed=4", "plaw:400:9",
                                      "band:300:7", "denserow:200:3"};
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (size_t m = 0; m < sizeof specs / sizeof specs[0]; m++) {
    smv_csr *A = tst_generate(specs[m]);
    if (!A)
      continue;
    smv_csr *B = NULL;
    CHECK_OK(smv_csr_copy(A, &B));
    for (int64_t k = 0; k < A->nnz; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      A->values[k] = ((double)(s >> 11) * 0x1p-53 - 0.5) * 1e3;
      B->values[k] = (double)(float)A->values[k];
    }
    double *x = malloc((size_t)A->cols * sizeof *x);
    double *y0 = malloc((size_t)A->rows * sizeof *y0);
    double *ya = malloc((size_t)A->rows * sizeof *ya);
    double *yb = malloc((size_t)A->rows * sizeof *yb);
    double *bd = malloc((size_t)A->rows * sizeof *bd);
    for (int64_t j = 0; j < A->cols; j++)
      x[j] = 0.25 + (double)(j % 17) * 0.1171875 + 1e-9 * (double)j;
    for (int64_t i = 0; i < A->rows; i++)
      y0[i] = ya[i] = yb[i] = 1.0 - 0.01 * (double)(i % 50);
    CHECK_OK(smv_spmv_ref(A, -1.25, x, 0.75, ya));
    CHECK_OK(smv_spmv_ref(B, -1.25, x, 0.75, yb));
    CHECK_OK(smv_spmv_f32v_bound(A, -1.25, x, 0.75, y0, bd));
    int64_t bad = 0, differ = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      bad += !(fabs(ya[i] - yb[i]) <= 2.0 * bd[i]);
      differ += ya[i] != yb[i];
    }
    CHECKF(bad == 0, "%s: %lld rows outside twice the bound", specs[m],
           (long long)bad);
    CHECKF(differ > 0, "%s: the rounded values changed nothing", specs[m]);
    free(x);
    free(y0);
    free(ya);
    free(yb);
    free(bd);
    smv_csr_free(A);
    smv_csr_free(B);
  }
}

int main(void) {
  RUN(test_names);
  RUN(test_rungs);
  RUN(test_range);
  RUN(test_bound_hand);
  RUN(test_bound_tight);
  RUN(test_bound_random);
  return TEST_END();
}
