/*
 * test_cuda_common.h — what the device tests (tests/test_cuda_*.c) share:
 * a context that SKIPs without a device, random vectors, and the check of
 * one SpMV against the serial reference.
 *
 * The bound, per row i (eps = DBL_EPSILON or FLT_EPSILON):
 *
 *   |y_i - ref_i| <= C * eps * (len_i + 2) * (|alpha| (|A||x|)_i + |beta y0_i|)
 *
 * the classical error bound of a sum of len_i + 2 rounded terms (len_i
 * products, beta*y0, the final alpha scaling), whatever the order of the
 * additions (tree, shuffle, atomics), with C = 2 for the reference's own
 * rounding. For f32 the reference is computed in double from the values,
 * x, y0, alpha and beta rounded to float, so only the kernel's float
 * arithmetic is measured. NaN never passes (the comparison is written so
 * that NaN fails), and every output element is checked: y is poisoned with
 * NaN before every run whose beta is 0.
 */
#ifndef SMV_TEST_CUDA_COMMON_H
#define SMV_TEST_CUDA_COMMON_H

#include "smv.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_BOUND_C 2.0

/* One context for the whole test binary; NULL (and the reason printed
 * once) when there is no device: every device test then SKIPs. */
static smv_context *tc_ctx;
static int tc_ctx_tried;
static inline smv_context *tc_context(void) {
  if (!tc_ctx_tried) {
    tc_ctx_tried = 1;
    smv_status st = smv_context_create(0, &tc_ctx);
    if (st != SMV_OK) {
      fprintf(stderr, "no device: %s: %s\n", smv_status_string(st),
              smv_context_error(NULL));
      tc_ctx = NULL;
    }
  }
  return tc_ctx;
}
#define TC_NEED_DEVICE()                                                       \
  do {                                                                         \
    if (!tc_context())                                                         \
      SKIP("no CUDA device");                                                  \
  } while (0)

/* splitmix64: fresh, reproducible random numbers for every case. */
static uint64_t tc_seed = 0x5eed5eedULL;
static inline uint64_t tc_next(void) {
  uint64_t z = (tc_seed += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
/* Uniform in [-1, 1) with both signs, never exactly zero. */
static inline double tc_uniform(void) {
  double u = (double)(tc_next() >> 11) * (1.0 / 9007199254740992.0);
  double v = 2.0 * u - 1.0;
  return v == 0.0 ? 0.25 : v;
}
static inline void tc_fill(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    v[i] = tc_uniform();
}
static inline void tc_fill_nan(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    v[i] = NAN;
}

static inline double tc_round(int f32, double v) {
  return f32 ? (double)(float)v : v;
}

/* Check y against the reference on A (for f32, A's values must already be
 * float-rounded and x, y0 are rounded here). Returns the number of bad
 * rows, printing the first few with `what`. */
static inline int64_t tc_verify(const smv_csr *A, int f32, double alpha,
                                const double *x, double beta, const double *y0,
                                const double *y, const char *what) {
  const int64_t m = A->rows, n = A->cols;
  double *xr = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *ref = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *absax = (double *)malloc(((size_t)m + 1) * sizeof(double));
  if (!xr || !ref || !absax) {
    free(xr), free(ref), free(absax);
    fprintf(stderr, "%s: out of host memory for the reference\n", what);
    return m > 0 ? m : 1;
  }
  for (int64_t j = 0; j < n; j++)
    xr[j] = x ? tc_round(f32, x[j]) : 0.0;
  const double a = tc_round(f32, alpha), b = tc_round(f32, beta);
  for (int64_t i = 0; i < m; i++)
    ref[i] = b == 0.0 ? 0.0 : tc_round(f32, y0[i]);
  int64_t bad = 0;
  /* x is NaN when alpha = 0: the reference must not read it either. */
  if (smv_spmv_ref(A, a, xr, b, ref) != SMV_OK ||
      smv_spmv_ref_abs(A, xr, absax) != SMV_OK) {
    fprintf(stderr, "%s: reference failed\n", what);
    free(xr), free(ref), free(absax);
    return m > 0 ? m : 1;
  }
  const double eps = f32 ? FLT_EPSILON : DBL_EPSILON;
  for (int64_t i = 0; i < m; i++) {
    double len = (double)A->row_ptr[i + 1] - (double)A->row_ptr[i];
    double y0i = b == 0.0 ? 0.0 : tc_round(f32, y0[i]);
    double bound = TC_BOUND_C * eps * (len + 2.0) *
                   (fabs(a) * (a == 0.0 ? 0.0 : absax[i]) + fabs(b * y0i));
    double d = fabs(y[i] - ref[i]);
    if (!(d <= bound)) { /* NaN fails here */
      if (bad < 5)
        fprintf(stderr,
                "%s: row %lld (len %.0f): got %.17g, want %.17g, |diff| %.3g "
                "> bound %.3g\n",
                what, (long long)i, len, y[i], ref[i], d, bound);
      bad++;
    }
  }
  free(xr), free(ref), free(absax);
  return bad;
}

/* Round a host matrix's values to float in place (for the f32 reference;
 * smv_matrix_create(SMV_F32) rounds the same way). */
static inline void tc_round_values(smv_csr *A) {
  for (int64_t k = 0; k < A->nnz; k++)
    A->values[k] = (double)(float)A->values[k];
}

/* Vectors on the device in the matrix's precision. */
static inline smv_status tc_upload(smv_context *ctx, int f32, const double *h,
                                   int64_t n, void *d) {
  if (n == 0)
    return SMV_OK;
  if (!f32)
    return smv_memcpy_h2d(ctx, d, h, (size_t)n * sizeof(double));
  float *t = (float *)malloc((size_t)n * sizeof(float));
  if (!t)
    return SMV_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++)
    t[i] = (float)h[i];
  smv_status st = smv_memcpy_h2d(ctx, d, t, (size_t)n * sizeof(float));
  free(t);
  return st;
}
static inline smv_status tc_download(smv_context *ctx, int f32, const void *d,
                                     int64_t n, double *h) {
  if (n == 0)
    return SMV_OK;
  if (!f32)
    return smv_memcpy_d2h(ctx, h, d, (size_t)n * sizeof(double));
  float *t = (float *)malloc((size_t)n * sizeof(float));
  if (!t)
    return SMV_ERR_NOMEM;
  smv_status st = smv_memcpy_d2h(ctx, t, d, (size_t)n * sizeof(float));
  for (int64_t i = 0; st == SMV_OK && i < n; i++)
    h[i] = (double)t[i];
  free(t);
  return st;
}

/* One SpMV case: fresh random x (NaN when alpha = 0: it must not be
 * read), y0 random (NaN when beta = 0: it must be overwritten), run on the
 * device (device pointers, x `x_shift` elements into its buffer so rung 3's
 * offset binding is exercised) or through smv_spmv_host, check every row.
 * A must be float-rounded already for SMV_F32. Returns bad rows (or 1 for a
 * failed call). */
static inline int64_t tc_case(smv_context *ctx, const smv_matrix *dA,
                              const smv_csr *A, smv_alg alg, double alpha,
                              double beta, int use_host, int x_shift,
                              const char *label) {
  const int f32 = smv_matrix_precision(dA) == SMV_F32;
  const int64_t m = A->rows, n = A->cols;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  char what[400];
  snprintf(what, sizeof what, "%s alg=%s %s alpha=%g beta=%g %s", label,
           smv_alg_name(alg), f32 ? "f32" : "f64", alpha, beta,
           use_host ? "host" : "device");
  double *x = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *y0 = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *y = (double *)malloc(((size_t)m + 1) * sizeof(double));
  int64_t bad = 0;
  void *dx = NULL, *dy = NULL;
  smv_status st = SMV_OK;
  if (!x || !y0 || !y) {
    fprintf(stderr, "%s: out of host memory\n", what);
    bad = 1;
    goto out;
  }
  if (alpha == 0.0)
    tc_fill_nan(x, n);
  else
    tc_fill(x, n);
  if (beta == 0.0)
    tc_fill_nan(y0, m);
  else
    tc_fill(y0, m);
  memcpy(y, y0, (size_t)m * sizeof(double));
  if (use_host) {
    st = smv_spmv_host(ctx, alg, alpha, dA, x, beta, y);
  } else {
    st = smv_device_malloc(ctx, ((size_t)n + (size_t)x_shift) * es, &dx);
    if (st == SMV_OK)
      st = smv_device_malloc(ctx, (size_t)m * es, &dy);
    void *xp = dx ? (char *)dx + (size_t)x_shift * es : NULL;
    if (st == SMV_OK)
      st = tc_upload(ctx, f32, x, n, xp);
    if (st == SMV_OK)
      st = tc_upload(ctx, f32, y0, m, dy); /* NaN poison when beta = 0 */
    if (st == SMV_OK)
      st = smv_spmv(ctx, alg, alpha, dA, xp, beta, dy);
    if (st == SMV_OK)
      st = smv_synchronize(ctx);
    for (int64_t i = 0; i < m; i++)
      y[i] = NAN; /* whatever the download misses fails the check */
    if (st == SMV_OK)
      st = tc_download(ctx, f32, dy, m, y);
  }
  if (st != SMV_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, smv_status_string(st),
            smv_context_error(ctx));
    bad = 1;
    goto out;
  }
  bad = tc_verify(A, f32, alpha, x, beta, y0, y, what);
out:
  smv_device_free(ctx, dx);
  smv_device_free(ctx, dy);
  free(x), free(y0), free(y);
  return bad;
}

#endif
