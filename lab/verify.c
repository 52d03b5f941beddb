/*
 * verify.c — what every timed rung must pass first: random vectors, the
 * serial reference (smv_spmv_ref) with its error bound (smv_spmv_ref_abs),
 * and the element-wise check.
 */
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* 53 random bits -> [0, 1), then mapped to [1/64, 1] with a random sign:
 * both signs so cancellation happens, bounded away from 0 so |A||x| is not
 * dominated by a few entries. */
double bench_rng_value(smv_rng *g) {
  uint64_t b = smv_rng_next(g);
  double u = (double)(b >> 11) * 0x1.0p-53;
  double v = 1.0 / 64 + u * (1.0 - 1.0 / 64);
  return (b & 1) ? -v : v;
}

/* e's two arrays of A->rows doubles, ref holding beta y0 (0 for beta =
 * 0) for the reference to add to. */
static smv_status expect_alloc(const smv_csr *A, double beta, const double *y0,
                               bench_expect *e) {
  memset(e, 0, sizeof *e);
  if (!A || (beta != 0 && !y0 && A->rows > 0))
    return SMV_ERR_ARG;
  const int64_t n = A->rows;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
  e->n = n;
  e->ref = malloc(bytes);
  e->bound = malloc(bytes);
  if (!e->ref || !e->bound) {
    bench_expect_free(e);
    return SMV_ERR_NOMEM;
  }
  for (int64_t i = 0; i < n; i++)
    e->ref[i] = beta != 0 ? y0[i] : 0.0;
  return SMV_OK;
}

smv_status bench_expect_compute(const smv_csr *A, double alpha, const double *x,
                                double beta, const double *y0, double eps,
                                bench_expect *e) {
  smv_status st = expect_alloc(A, beta, y0, e);
  if (st != SMV_OK)
    return st;
  const int64_t n = A->rows;
  st = smv_spmv_ref(A, alpha, x, beta, e->ref);
  if (st == SMV_OK)
    st = smv_spmv_ref_abs(A, x, e->bound);
  if (st != SMV_OK) {
    bench_expect_free(e);
    return st;
  }
  for (int64_t i = 0; i < n; i++) {
    double len = (double)(A->row_ptr[i + 1] - A->row_ptr[i]);
    double scale = fabs(alpha) * e->bound[i];
    if (beta != 0)
      scale += fabs(beta * y0[i]);
    e->bound[i] = BENCH_BOUND_C * eps * (len + 2.0) * scale;
  }
  return SMV_OK;
}

smv_status bench_expect_compute_f32v(const smv_csr *A, double alpha,
                                     const double *x, double beta,
                                     const double *y0, bench_expect *e) {
  smv_status st = expect_alloc(A, beta, y0, e);
  if (st != SMV_OK)
    return st;
  const int64_t n = A->rows;
  st = smv_spmv_f32v_bound(A, alpha, x, beta, y0, e->bound);
  if (st == SMV_OK)
    st = smv_spmv_ref(A, alpha, x, beta, e->ref);
  if (st != SMV_OK) {
    bench_expect_free(e);
    return st;
  }
  for (int64_t i = 0; i < n; i++)
    e->bound[i] *= 2.0;
  return SMV_OK;
}

void bench_expect_free(bench_expect *e) {
  free(e->ref);
  free(e->bound);
  e->ref = e->bound = NULL;
  e->n = 0;
}

int64_t bench_check(const bench_expect *e, const double *y, double *worst,
                    int64_t *first_bad) {
  int64_t bad = 0;
  double w = 0;
  *first_bad = -1;
  for (int64_t i = 0; i < e->n; i++) {
    double d = fabs(y[i] - e->ref[i]);
    int ok = d <= e->bound[i]; /* false for NaN */
    double q;
    if (isnan(d))
      q = INFINITY;
    else if (e->bound[i] > 0)
      q = d / e->bound[i];
    else
      q = d == 0 ? 0 : INFINITY;
    if (q > w)
      w = q;
    if (!ok) {
      if (bad == 0)
        *first_bad = i;
      bad++;
    }
  }
  *worst = w;
  return bad;
}

int bench_judge(const bench_expect *e, const double *y, bench_record *r,
                const char *when) {
  double worst;
  int64_t first;
  int64_t bad = bench_check(e, y, &worst, &first);
  if (!(r->err_ratio >= worst)) /* keep the worst of both checks */
    r->err_ratio = worst;
  if (bad == 0) {
    snprintf(r->verify, sizeof r->verify, "PASS");
    return 1;
  }
  snprintf(r->verify, sizeof r->verify, "FAIL");
  snprintf(r->note, sizeof r->note,
           "%s%lld of %lld rows outside the bound; row %lld: y = %.17g, "
           "ref = %.17g, bound = %.3g",
           when, (long long)bad, (long long)e->n, (long long)first, y[first],
           e->ref[first], e->bound[first]);
  return 0;
}

smv_status bench_csr_round_f32(const smv_csr *A, smv_csr **B) {
  smv_status st = smv_csr_copy(A, B);
  if (st != SMV_OK)
    return st;
  for (int64_t k = 0; k < (*B)->nnz; k++)
    (*B)->values[k] = (double)(float)(*B)->values[k];
  return SMV_OK;
}
