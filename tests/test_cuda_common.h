/*
 * test_cuda_common.h — what the device tests (tests/test_cuda_*.c) share:
 * a context that SKIPs without a device, random vectors, and the check of
 * one SpMV against the serial reference.
 *
 * The reference, the bound and the check are the benchmark's own
 * (lab/verify.c: bench_expect_compute, bench_check), so a test and
 * `smv bench` accept exactly the same results. Per row i (eps =
 * DBL_EPSILON or FLT_EPSILON):
 *
 *   |y_i - ref_i| <= C * eps * (len_i + 2) * (|alpha| (|A||x|)_i + |beta y0_i|)
 *
 * the classical error bound of a sum of len_i + 2 rounded terms (len_i
 * products, beta*y0, the final alpha scaling), whatever the order of the
 * additions (tree, shuffle, atomics), with C = BENCH_BOUND_C = 2 for the
 * reference's own rounding. For f32 the reference is computed in double
 * from the values, x, y0, alpha and beta rounded to float, so only the
 * kernel's float arithmetic is measured. NaN never passes, and every
 * output element is checked: y is poisoned with NaN before every run whose
 * beta is 0.
 */
#ifndef SMV_TEST_CUDA_COMMON_H
#define SMV_TEST_CUDA_COMMON_H

#include "lab.h"

#include "smv.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One context for the whole test binary; NULL (and the reason printed
 * once) when there is no device: every device test then SKIPs. */
static smv_context *tc_ctx;
static int tc_ctx_tried;
static smv_status tc_ctx_status; /* of the one smv_context_create */
static inline smv_context *tc_context(void) {
  if (!tc_ctx_tried) {
    tc_ctx_tried = 1;
    smv_status st = tc_ctx_status = smv_context_create(0, &tc_ctx);
    if (st != SMV_OK) {
      fprintf(stderr, "no device: %s: %s\n", smv_status_string(st),
              smv_context_error(NULL));
      tc_ctx = NULL;
    }
  }
  return tc_ctx;
}
/* The matrix of a Matrix Market file, or NULL with the failure recorded. */
static inline smv_csr *tc_read(const char *path) {
  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_mm_read(path, NULL, &A, &err);
  CHECKF(st == SMV_OK, "%s: %s", path, err.message);
  return st == SMV_OK ? A : NULL;
}

#define TC_NEED_DEVICE()                                                       \
  do {                                                                         \
    if (!tc_context())                                                         \
      SKIP("no CUDA device");                                                  \
  } while (0)

/* Fresh, reproducible random numbers for every case (the bench's
 * splitmix64 stream, one for the whole test binary). */
static smv_rng tc_rng = {0x5eed5eedULL};
static inline uint64_t tc_next(void) { return smv_rng_next(&tc_rng); }
/* Both signs, magnitudes in [1/64, 1]: never zero. */
static inline double tc_uniform(void) { return bench_rng_value(&tc_rng); }
static inline void tc_fill(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    v[i] = tc_uniform();
}
static inline void tc_fill_nan(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    v[i] = NAN;
}
/* Fresh inputs of y = alpha*op(A)*x + beta*y0: x random, or NaN when
 * alpha = 0 (it must not be read); y0 random, or NaN when beta = 0. */
static inline void tc_fill_inputs(double *x, int64_t nx, double alpha,
                                  double *y0, int64_t ny, double beta) {
  if (alpha == 0.0)
    tc_fill_nan(x, nx);
  else
    tc_fill(x, nx);
  if (beta == 0.0)
    tc_fill_nan(y0, ny);
  else
    tc_fill(y0, ny);
}

static inline double tc_round(int f32, double v) {
  return f32 ? (double)(float)v : v;
}

/* Check y against the reference on A (for f32, A's values must already be
 * float-rounded; x, y0, alpha and beta are rounded here). Returns the
 * number of bad rows, printing the first and the worst ratio with `what`. */
static inline int64_t tc_verify(const smv_csr *A, int f32, double alpha,
                                const double *x, double beta, const double *y0,
                                const double *y, const char *what) {
  const int64_t m = A->rows, n = A->cols;
  const double a = tc_round(f32, alpha), b = tc_round(f32, beta);
  double *xr = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *y0r = (double *)malloc(((size_t)m + 1) * sizeof(double));
  bench_expect e;
  smv_status st = SMV_ERR_NOMEM;
  if (xr && y0r) {
    /* x is NaN when alpha = 0 and y0 NaN when beta = 0 (neither may be
     * read): zeros keep the NaN out of the reference and of |A||x|. */
    for (int64_t j = 0; j < n; j++)
      xr[j] = x && a != 0.0 ? tc_round(f32, x[j]) : 0.0;
    for (int64_t i = 0; i < m; i++)
      y0r[i] = b == 0.0 ? 0.0 : tc_round(f32, y0[i]);
    st = bench_expect_compute(A, a, xr, b, y0r, f32 ? FLT_EPSILON : DBL_EPSILON,
                              &e);
  }
  free(xr), free(y0r);
  if (st != SMV_OK) {
    fprintf(stderr, "%s: reference failed: %s\n", what, smv_status_string(st));
    return m > 0 ? m : 1;
  }
  double worst;
  int64_t first;
  const int64_t bad = bench_check(&e, y, &worst, &first); /* NaN fails */
  if (bad > 0)
    fprintf(stderr,
            "%s: %lld bad rows; first row %lld (len %lld): got %.17g, want "
            "%.17g, |diff| %.3g > bound %.3g; worst |diff|/bound %.3g\n",
            what, (long long)bad, (long long)first,
            (long long)(A->row_ptr[first + 1] - A->row_ptr[first]), y[first],
            e.ref[first], fabs(y[first] - e.ref[first]), e.bound[first], worst);
  bench_expect_free(&e);
  return bad;
}

/* Bytes of A's CSR arrays on the device: int32 offsets and columns,
 * double or float values. */
static inline size_t tc_csr_bytes(const smv_csr *A, int f32) {
  return ((size_t)A->rows + 1) * 4 + (size_t)A->nnz * (f32 ? 8 : 12);
}
/* Whether a matrix holding `bytes` on the device holds rung 12's second
 * column array (4 bytes per entry: more than all other set-up together). */
static inline int tc_hot_held(const smv_csr *A, int f32, size_t bytes) {
  return bytes >= tc_csr_bytes(A, f32) + (size_t)A->nnz * 4;
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

/* One SpMV of alg on dA, y = alpha A x + beta y0, into y (m doubles):
 * on the device (device pointers in dA's vector precision, x and y
 * `shift` elements into their buffers, so rung 3's offset binding and the
 * kernels' unaligned paths are exercised; y reads NaN wherever the
 * download misses) or through smv_spmv_host_vectors. Returns the calls'
 * status. */
static inline smv_status tc_run(smv_context *ctx, smv_matrix *dA, smv_alg alg,
                                double alpha, const double *x, int64_t n,
                                double beta, const double *y0, double *y,
                                int64_t m, int use_host, int shift) {
  memcpy(y, y0, (size_t)m * sizeof(double));
  if (use_host)
    return smv_spmv_host_vectors(ctx, alg, alpha, dA, x, beta, y);
  const int f32 = smv_matrix_precision(dA) == SMV_F32;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  void *dx = NULL, *dy = NULL;
  smv_status st = smv_device_malloc(ctx, ((size_t)n + (size_t)shift) * es, &dx);
  if (st == SMV_OK)
    st = smv_device_malloc(ctx, ((size_t)m + (size_t)shift) * es, &dy);
  void *xp = dx ? (char *)dx + (size_t)shift * es : NULL;
  void *yp = dy ? (char *)dy + (size_t)shift * es : NULL;
  if (st == SMV_OK)
    st = tc_upload(ctx, f32, x, n, xp);
  if (st == SMV_OK)
    st = tc_upload(ctx, f32, y0, m, yp); /* NaN poison when beta = 0 */
  if (st == SMV_OK)
    st = smv_spmv(ctx, alg, alpha, dA, xp, beta, yp);
  if (st == SMV_OK)
    st = smv_synchronize(ctx);
  for (int64_t i = 0; i < m; i++)
    y[i] = NAN; /* whatever the download misses fails the check */
  if (st == SMV_OK)
    st = tc_download(ctx, f32, yp, m, y);
  smv_device_free(ctx, dx);
  smv_device_free(ctx, dy);
  return st;
}

/* One SpMV case: fresh random x (NaN when alpha = 0: it must not be
 * read), y0 random (NaN when beta = 0: it must be overwritten), run by
 * tc_run (x and y `x_shift` elements into their device buffers) on the
 * device or through smv_spmv_host_vectors, check every row. A must be
 * float-rounded already for SMV_F32. Returns bad rows (or 1 for a failed
 * call). */
static inline int64_t tc_case(smv_context *ctx, smv_matrix *dA,
                              const smv_csr *A, smv_alg alg, double alpha,
                              double beta, int use_host, int x_shift,
                              const char *label) {
  const int f32 = smv_matrix_precision(dA) == SMV_F32;
  const int64_t m = A->rows, n = A->cols;
  char what[400];
  snprintf(what, sizeof what, "%s alg=%s %s alpha=%g beta=%g %s", label,
           smv_alg_name(alg), f32 ? "f32" : "f64", alpha, beta,
           use_host ? "host" : "device");
  double *x = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *y0 = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *y = (double *)malloc(((size_t)m + 1) * sizeof(double));
  int64_t bad = 0;
  smv_status st = SMV_OK;
  if (!x || !y0 || !y) {
    fprintf(stderr, "%s: out of host memory\n", what);
    bad = 1;
    goto out;
  }
  tc_fill_inputs(x, n, alpha, y0, m, beta);
  st = tc_run(ctx, dA, alg, alpha, x, n, beta, y0, y, m, use_host, x_shift);
  if (st != SMV_OK) {
    fprintf(stderr, "%s: %s: %s\n", what, smv_status_string(st),
            smv_context_error(ctx));
    bad = 1;
    goto out;
  }
  bad = tc_verify(A, f32, alpha, x, beta, y0, y, what);
out:
  free(x), free(y0), free(y);
  return bad;
}

/* The alpha/beta cases of the rung tests: (1, 0) with y poisoned by NaN;
 * (-1.75, 0.5); (0, -2) with x all NaN (must not be read); (0, 0) with y
 * NaN (must become 0); (2.5, 1). */
static const struct tc_ab_case {
  double alpha, beta;
} tc_ab[] = {{1.0, 0.0}, {-1.75, 0.5}, {0.0, -2.0}, {0.0, 0.0}, {2.5, 1.0}};
#define TC_NAB ((int)(sizeof tc_ab / sizeof tc_ab[0]))

/* Rung alg on dA against the reference for the first ncases of tc_ab: odd
 * ones through smv_spmv_host_vectors, even ones through device pointers
 * with x and y three elements into their buffers (rung 3's offset
 * binding). */
static inline void tc_ab_run(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                             smv_alg alg, int ncases, const char *label) {
  const char *prec = smv_matrix_precision(dA) == SMV_F32 ? "f32" : "f64";
  for (int k = 0; k < ncases; k++) {
    const int64_t bad = tc_case(ctx, dA, A, alg, tc_ab[k].alpha, tc_ab[k].beta,
                                k % 2, (k % 2) ? 0 : 3, label);
    CHECKF(bad == 0, "%s alg %s %s case %d: %lld bad rows", label,
           smv_alg_name(alg), prec, k, (long long)bad);
  }
}

/* A on the device in f64, then in f32 (A's values float-rounded in place
 * first, so A is consumed), each matrix handed to fn; a failed creation
 * is recorded. */
typedef void (*tc_matrix_fn)(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                             int ncases, const char *label);
static inline void tc_both_precisions(smv_csr *A, const char *label, int ncases,
                                      tc_matrix_fn fn) {
  smv_context *ctx = tc_context();
  for (int p = 0; p < 2; p++) {
    const smv_precision prec = p ? SMV_F32 : SMV_F64;
    if (prec == SMV_F32)
      tc_round_values(A);
    smv_matrix *dA = NULL;
    const smv_status st = smv_matrix_create(ctx, A, prec, &dA);
    CHECKF(st == SMV_OK, "%s: smv_matrix_create: %s: %s", label,
           smv_status_string(st), smv_context_error(ctx));
    if (st != SMV_OK)
      continue;
    CHECK_INT(smv_matrix_precision(dA), prec);
    fn(ctx, dA, A, ncases, label);
    smv_matrix_free(dA);
  }
}

/* Rung alg gives rung ref's bits on dA at blocks of 64, 256 and 1024 (x
 * random, y0 random, alpha 1.5, beta -0.25): the rungs that share rung
 * 10's tiles, products and order of the sums (13, 14) against rung 10. */
static inline void tc_same_bits(smv_matrix *dA, const smv_csr *A, smv_alg ref,
                                smv_alg alg, const char *label) {
  smv_context *ctx = tc_context();
  const int64_t m = A->rows, n = A->cols;
  double *x = (double *)malloc(((size_t)n + 1) * sizeof(double));
  double *y0 = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *yr = (double *)malloc(((size_t)m + 1) * sizeof(double));
  double *ya = (double *)malloc(((size_t)m + 1) * sizeof(double));
  CHECK(x && y0 && yr && ya);
  static const int blocks[] = {64, 256, 1024};
  for (int b = 0; x && y0 && yr && ya && b < 3; b++) {
    tc_fill(x, n);
    tc_fill(y0, m);
    CHECK_OK(smv_context_set_block_size(ctx, blocks[b]));
    memcpy(yr, y0, (size_t)m * sizeof(double));
    memcpy(ya, y0, (size_t)m * sizeof(double));
    CHECK_OK(smv_spmv_host_vectors(ctx, ref, 1.5, dA, x, -0.25, yr));
    CHECK_OK(smv_spmv_host_vectors(ctx, alg, 1.5, dA, x, -0.25, ya));
    int64_t differ = 0, first = -1;
    for (int64_t i = 0; i < m; i++)
      if (memcmp(&yr[i], &ya[i], sizeof(double)) != 0 && differ++ == 0)
        first = i;
    CHECKF(differ == 0,
           "%s %s block %d: %lld rows of rung %s differ from rung %s, first "
           "%lld: %.17g vs %.17g",
           label, smv_matrix_precision(dA) == SMV_F32 ? "f32" : "f64",
           blocks[b], (long long)differ, smv_alg_name(alg), smv_alg_name(ref),
           (long long)first, first >= 0 ? ya[first] : 0.0,
           first >= 0 ? yr[first] : 0.0);
  }
  CHECK_OK(smv_context_set_block_size(ctx, 0));
  free(x), free(y0), free(yr), free(ya);
}

/* smv_matrix_tune on dA (3 runs each), then how many of the plan's
 * measured candidates are rung alg with a time (0 or 1). */
static inline int tc_tune_timed(smv_context *ctx, smv_matrix *dA, smv_alg alg) {
  CHECK_OK(smv_matrix_tune(ctx, dA, 3));
  smv_matrix_plan_info p;
  CHECK_OK(smv_matrix_plan(dA, &p));
  int timed = 0;
  for (int i = 0; i < p.ncandidates; i++)
    timed += p.candidates[i].alg == alg && p.candidates[i].ms > 0;
  return timed;
}

/* tc_both_precisions on each generated spec of specs[0..n). */
static inline void tc_specs_both(const char *const *specs, int n, int ncases,
                                 tc_matrix_fn fn) {
  for (int s = 0; s < n; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    tc_both_precisions(A, specs[s], ncases, fn);
    smv_csr_free(A);
  }
}

/* Generate spec and run check(spec, A, f32) in f64, then in f32 (A
 * float-rounded for it); the check makes its own matrices. */
static inline void tc_spec_both(const char *spec,
                                void (*check)(const char *, const smv_csr *,
                                              int)) {
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  check(spec, A, 0);
  tc_round_values(A);
  check(spec, A, 1);
  smv_csr_free(A);
}

#endif
