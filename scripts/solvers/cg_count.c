/*
 * cg_count.c — how far CG's iteration count moves with the summation order
 * alone (CPU, double; no GPU). Issue 24 asks for iteration counts within 1%
 * of textbook CG. On an ill-conditioned matrix the count to a relative
 * residual of tol depends on rounding, so this runs the same two
 * recurrences the library has, each under several summation orders, and
 * prints the count of each:
 *   hs  textbook (Hestenes-Stiefel) CG: q = A p, alpha = r.r / p.q,
 *       x += alpha p, r -= alpha q, beta = r.r_new / r.r;
 *   cg  Chronopoulos-Gear CG, cg1's recurrences (src/cuda/solve/
 *       cg_coop.h: one reduction of r.u, w.u, r.r an iteration, s = w +
 *       beta s, r -= alpha s, w = A u).
 * Orders: a row's sum by L lanes (lane l takes entries l, l + L, ...,
 * then the lanes add pairwise as a shuffle-down tree), and the dot
 * products as G partial sums over G contiguous blocks of rows added in
 * block order (G = 1: left to right). No preconditioner, x0 = 0, b =
 * A * ones, stop at ||r|| / ||b|| <= tol (the recurrence's r, as the
 * solvers do).
 * The counts are the same on any IEEE machine (double, no contraction
 * but the explicit fma), so no GPU is needed:
 *   make solver-bench (or make CUDA=0 BUILD=build-cpu build-cpu/cg_count)
 *   build/cg_count MATRIX [tol] [maxit]
 */
#include "smv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const smv_csr *A;

/* Row i of A times v, L lanes then a shuffle-down tree. */
static double row_dot(int64_t i, const double *v, int L) {
  double s[32] = {0};
  for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
    s[(k - A->row_ptr[i]) % L] += A->values[k] * v[A->col_idx[k]];
  for (int off = L / 2; off > 0; off /= 2)
    for (int l = 0; l < off; l++)
      s[l] += s[l + off];
  return s[0];
}

static void spmv(const double *v, double *out, int L) {
  for (int64_t i = 0; i < A->rows; i++)
    out[i] = row_dot(i, v, L);
}

/* a.b as G block partials added in order. */
static double dot(const double *a, const double *b, int64_t n, int G) {
  double t = 0.0;
  for (int g = 0; g < G; g++) {
    double p = 0.0;
    for (int64_t i = n * g / G; i < n * (g + 1) / G; i++)
      p += a[i] * b[i];
    t += p;
  }
  return t;
}

/* The iterations to tol, or -1 when the work vectors do not fit. */
static int run(int cgcg, int L, int G, const double *b, double tol, int maxit) {
  const int64_t n = A->rows;
  double *x = calloc(n, 8), *r = malloc(n * 8), *p = calloc(n, 8);
  double *q = malloc(n * 8), *s = calloc(n, 8), *w = malloc(n * 8);
  int it = -1;
  if (!x || !r || !p || !q || !s || !w)
    goto out;
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i];
  const double bb = dot(b, b, n, G);
  if (!cgcg) {
    double rr = dot(r, r, n, G), rr_old = 0.0;
    for (it = 0; it < maxit && sqrt(rr / bb) > tol; it++) {
      const double beta = it ? rr / rr_old : 0.0;
      for (int64_t i = 0; i < n; i++)
        p[i] = r[i] + beta * p[i];
      spmv(p, q, L);
      const double alpha = rr / dot(p, q, n, G);
      for (int64_t i = 0; i < n; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
      }
      rr_old = rr;
      rr = dot(r, r, n, G);
    }
  } else {
    /* u = r (no preconditioner); w = A u. */
    spmv(r, w, L);
    double gam = dot(r, r, n, G), del = dot(w, r, n, G), rr = gam;
    double gam_old = 0.0, alpha_old = 0.0;
    for (it = 0; it < maxit && sqrt(rr / bb) > tol; it++) {
      double beta = 0.0, den = del;
      if (it > 0) {
        beta = gam / gam_old;
        den = fma(-beta, gam / alpha_old, del);
      }
      const double alpha = gam / den;
      for (int64_t i = 0; i < n; i++) {
        p[i] = fma(beta, p[i], r[i]);
        s[i] = fma(beta, s[i], w[i]);
        x[i] = fma(alpha, p[i], x[i]);
        r[i] = fma(-alpha, s[i], r[i]);
      }
      spmv(r, w, L);
      gam_old = gam;
      alpha_old = alpha;
      gam = dot(r, r, n, G);
      del = dot(w, r, n, G);
      rr = gam;
    }
  }
out:
  free(x), free(r), free(p), free(q), free(s), free(w);
  return it;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MATRIX [tol] [maxit]\n", argv[0]);
    return 2;
  }
  smv_csr *M = NULL;
  smv_error err;
  if (smv_load(argv[1], NULL, &M, &err) != SMV_OK) {
    fprintf(stderr, "%s: %s\n", argv[1], err.message);
    return 1;
  }
  A = M;
  const double tol = argc > 2 ? atof(argv[2]) : 1e-8;
  const int maxit = argc > 3 ? atoi(argv[3]) : 20000;
  double *ones = malloc(A->rows * 8), *b = malloc(A->rows * 8);
  if (!ones || !b) {
    fprintf(stderr, "%s: out of memory for two vectors of %lld\n", argv[1],
            (long long)A->rows);
    free(ones), free(b);
    smv_csr_free(M);
    return 1;
  }
  for (int64_t i = 0; i < A->rows; i++)
    ones[i] = 1.0;
  spmv(ones, b, 1);
  const int Ls[] = {1, 2, 4, 16}, Gs[] = {1, 132};
  printf("matrix=%s n=%lld nnz=%lld tol=%g\n", argv[1], (long long)A->rows,
         (long long)A->nnz, tol);
  for (int cgcg = 0; cgcg < 2; cgcg++)
    for (int gi = 0; gi < 2; gi++)
      for (int li = 0; li < 4; li++)
        printf("%s lanes=%d blocks=%d its=%d\n", cgcg ? "cg" : "hs", Ls[li],
               Gs[gi], run(cgcg, Ls[li], Gs[gi], b, tol, maxit));
  free(ones), free(b);
  smv_csr_free(M);
  return 0;
}
