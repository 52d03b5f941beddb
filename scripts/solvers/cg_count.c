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
 *       beta s, r -= alpha s, w = A u);
 *   pr  predict-and-recompute CG (after Chen and Carson's pr-CG): s = A p
 *       computed, not recurred; one reduction of r.r, p.s, r.s and s.s an
 *       iteration; alpha from the recomputed r.r, beta from r.r of the next
 *       iteration predicted as r.r - 2 alpha r.s + alpha^2 s.s. One grid
 *       barrier an iteration, as cg1, where a block can form p at its halo
 *       columns from the r, s and p their owners published before it.
 * Orders: a row's sum by L lanes (lane l takes entries l, l + L, ...,
 * then the lanes add pairwise as a shuffle-down tree), and the dot
 * products as G partial sums over G contiguous blocks of rows added in
 * block order (G = 1: left to right). No preconditioner, x0 = 0, b =
 * A * ones, stop at ||r|| / ||b|| <= tol (the recurrence's r, as the
 * solvers do).
 * The counts are the same on any IEEE machine (double, no contraction
 * but the explicit fma), so no GPU is needed:
 *   make solver-bench (or make CUDA=0 BUILD=build-cpu build-cpu/cg_count)
 *   build/cg_count MATRIX [tol] [maxit] [dots]
 * With a fourth argument "dots", a second section follows the first (which
 * is unchanged) and asks whether the rounding of the reductions explains
 * the spread: the same runs with each dot product and row sum computed
 * one of these ways (the first section is dot=plain spmv=plain):
 *   dot=plain  as above: G block partials in double, added in block order;
 *   dot=dot2   compensated (Ogita, Rump, Oishi's Dot2: TwoProduct by fma,
 *              TwoSum) in each of the G blocks, each block's partial a
 *              (hi, lo) pair, the pairs added in block order with TwoSum,
 *              as a GPU kernel's grid would (blocks=1: Dot2 itself);
 *   dot=ref    the exact products summed three-fold cascaded (as if in
 *              triple precision) over the whole vector, then rounded once:
 *              the dot as good as correctly rounded, the same for every
 *              G, so printed once (blocks=1);
 *   spmv=plain a row's L lanes in double, as above;
 *   spmv=dd    each lane compensated as in Dot2, the lanes' (hi, lo)
 *              pairs added as the same shuffle-down tree with TwoSum.
 * b = A * ones is the same in every run (plain, one lane).
 */
#include "smv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* s + e = a + b exactly (Knuth's TwoSum, no branch). */
static inline void two_sum(double a, double b, double *s, double *e) {
  const double t = a + b, bv = t - a;
  *s = t;
  *e = (a - (t - bv)) + (b - bv);
}

/* Row i of A times v as row_dot, each lane a compensated (hi, lo) pair
 * (TwoProduct by fma, TwoSum), the lanes' pairs added by the same tree. */
static double row_dot2(int64_t i, const double *v, int L) {
  double h[32] = {0}, lo[32] = {0};
  for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
    const int l = (int)((k - A->row_ptr[i]) % L);
    const double a = A->values[k], x = v[A->col_idx[k]], p = a * x;
    const double pe = fma(a, x, -p);
    double e;
    two_sum(h[l], p, &h[l], &e);
    lo[l] += e + pe;
  }
  for (int off = L / 2; off > 0; off /= 2)
    for (int l = 0; l < off; l++) {
      double e;
      two_sum(h[l], h[l + off], &h[l], &e);
      lo[l] += e + lo[l + off];
    }
  return h[0] + lo[0];
}

static void spmv(const double *v, double *out, int L) {
  for (int64_t i = 0; i < A->rows; i++)
    out[i] = row_dot(i, v, L);
}

enum { SPMV_PLAIN, SPMV_DD };
static const char *const spmv_name[] = {"plain", "dd"};

static void spmv_k(int kind, const double *v, double *out, int L) {
  if (kind == SPMV_PLAIN) {
    spmv(v, out, L);
    return;
  }
  for (int64_t i = 0; i < A->rows; i++)
    out[i] = row_dot2(i, v, L);
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

/* a.b by Dot2 in each of G blocks, the blocks' (hi, lo) pairs added in
 * block order with TwoSum, then hi + lo rounded once. */
static double dot2(const double *a, const double *b, int64_t n, int G) {
  double th = 0.0, tl = 0.0;
  for (int g = 0; g < G; g++) {
    double h = 0.0, lo = 0.0;
    for (int64_t i = n * g / G; i < n * (g + 1) / G; i++) {
      const double p = a[i] * b[i], pe = fma(a[i], b[i], -p);
      double e;
      two_sum(h, p, &h, &e);
      lo += e + pe;
    }
    double e;
    two_sum(th, h, &th, &e);
    tl += e + lo;
  }
  return th + tl;
}

/* s1 + s2 + s3 += x, three-fold cascaded. */
static inline void add3(double x, double *s1, double *s2, double *s3) {
  double e, f;
  two_sum(*s1, x, s1, &e);
  two_sum(*s2, e, s2, &f);
  *s3 += f;
}

/* a.b with every product exact (TwoProduct) and summed three-fold
 * cascaded left to right over the whole vector, then renormalised and
 * rounded once: the reference, as if in triple precision. */
static double dot_ref(const double *a, const double *b, int64_t n) {
  double s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double p = a[i] * b[i];
    add3(p, &s1, &s2, &s3);
    add3(fma(a[i], b[i], -p), &s1, &s2, &s3);
  }
  double t, e, f;
  two_sum(s2, s3, &t, &e);
  two_sum(s1, t, &s1, &f);
  return s1 + (f + e);
}

enum { DOT_PLAIN, DOT_DOT2, DOT_REF };
enum { ALG_HS, ALG_CG, ALG_PR };
static const char *const alg_name[] = {"hs", "cg", "pr"};
static const char *const dot_name[] = {"plain", "dot2", "ref"};

static double dot_k(int kind, const double *a, const double *b, int64_t n,
                    int G) {
  return kind == DOT_PLAIN  ? dot(a, b, n, G)
         : kind == DOT_DOT2 ? dot2(a, b, n, G)
                            : dot_ref(a, b, n);
}

/* The iterations to tol, or -1 when the work vectors do not fit; dk and
 * sk choose the dot products' and the row sums' kinds. */
static int run(int alg, int L, int G, int dk, int sk, const double *b,
               double tol, int maxit) {
  const int64_t n = A->rows;
  double *x = calloc(n, 8), *r = malloc(n * 8), *p = calloc(n, 8);
  double *q = malloc(n * 8), *s = calloc(n, 8), *w = malloc(n * 8);
  int it = -1;
  if (!x || !r || !p || !q || !s || !w)
    goto out;
  for (int64_t i = 0; i < n; i++)
    r[i] = b[i];
  const double bb = dot_k(dk, b, b, n, G);
  if (alg == ALG_PR) {
    /* Predict and recompute: s = A p computed (not recurred), alpha from
     * the recomputed r.r, beta from r.r predicted by the same reduction's
     * p.s, r.s and s.s: one reduction (four dots) an iteration. */
    for (int64_t i = 0; i < n; i++)
      p[i] = r[i];
    spmv_k(sk, p, s, L);
    double nu = dot_k(dk, r, r, n, G), mu = dot_k(dk, p, s, n, G);
    double sig = dot_k(dk, r, s, n, G), tau = dot_k(dk, s, s, n, G);
    for (it = 0; it < maxit && sqrt(nu / bb) > tol; it++) {
      const double alpha = nu / mu;
      const double nup = fma(alpha, fma(alpha, tau, -2.0 * sig), nu);
      const double beta = nup / nu;
      for (int64_t i = 0; i < n; i++) {
        x[i] = fma(alpha, p[i], x[i]);
        r[i] = fma(-alpha, s[i], r[i]);
        p[i] = fma(beta, p[i], r[i]);
      }
      spmv_k(sk, p, s, L);
      nu = dot_k(dk, r, r, n, G);
      mu = dot_k(dk, p, s, n, G);
      sig = dot_k(dk, r, s, n, G);
      tau = dot_k(dk, s, s, n, G);
    }
  } else if (alg == ALG_HS) {
    double rr = dot_k(dk, r, r, n, G), rr_old = 0.0;
    for (it = 0; it < maxit && sqrt(rr / bb) > tol; it++) {
      const double beta = it ? rr / rr_old : 0.0;
      for (int64_t i = 0; i < n; i++)
        p[i] = r[i] + beta * p[i];
      spmv_k(sk, p, q, L);
      const double alpha = rr / dot_k(dk, p, q, n, G);
      for (int64_t i = 0; i < n; i++) {
        x[i] += alpha * p[i];
        r[i] -= alpha * q[i];
      }
      rr_old = rr;
      rr = dot_k(dk, r, r, n, G);
    }
  } else {
    /* u = r (no preconditioner); w = A u. */
    spmv_k(sk, r, w, L);
    double gam = dot_k(dk, r, r, n, G), del = dot_k(dk, w, r, n, G), rr = gam;
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
      spmv_k(sk, r, w, L);
      gam_old = gam;
      alpha_old = alpha;
      gam = dot_k(dk, r, r, n, G);
      del = dot_k(dk, w, r, n, G);
      rr = gam;
    }
  }
out:
  free(x), free(r), free(p), free(q), free(s), free(w);
  return it;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s MATRIX [tol] [maxit] [dots]\n", argv[0]);
    return 2;
  }
  int dots = 0;
  if (argc > 4) {
    if (strcmp(argv[4], "dots") != 0) {
      fprintf(stderr, "%s: unknown fourth argument '%s' (expected 'dots')\n",
              argv[0], argv[4]);
      return 2;
    }
    dots = 1;
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
  for (int alg = ALG_HS; alg <= ALG_PR; alg++)
    for (int gi = 0; gi < 2; gi++)
      for (int li = 0; li < 4; li++) {
        printf("%s lanes=%d blocks=%d its=%d\n", alg_name[alg], Ls[li], Gs[gi],
               run(alg, Ls[li], Gs[gi], DOT_PLAIN, SPMV_PLAIN, b, tol, maxit));
        fflush(stdout);
      }
  /* The second section: every other (dot, spmv) pair; dot=ref does not
   * depend on G, so it runs with blocks=1 only. */
  for (int alg = ALG_HS; dots && alg <= ALG_PR; alg++)
    for (int sk = SPMV_PLAIN; sk <= SPMV_DD; sk++)
      for (int dk = DOT_PLAIN; dk <= DOT_REF; dk++)
        for (int gi = 0; gi < (dk == DOT_REF ? 1 : 2); gi++)
          for (int li = 0; li < 4; li++) {
            if (dk == DOT_PLAIN && sk == SPMV_PLAIN)
              continue;
            printf("%s lanes=%d blocks=%d dot=%s spmv=%s its=%d\n",
                   alg_name[alg], Ls[li], Gs[gi], dot_name[dk], spmv_name[sk],
                   run(alg, Ls[li], Gs[gi], dk, sk, b, tol, maxit));
            fflush(stdout);
          }
  free(ones), free(b);
  smv_csr_free(M);
  return 0;
}
