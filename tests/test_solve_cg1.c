/*
 * test_solve_cg1.c — the Chronopoulos–Gear recurrence of the
 * single-barrier persistent CG (src/cuda/solve/cg_coop1.cu) checked on
 * the CPU, in double, where CI has no GPU: the same operations in the
 * same order (explicit fma where the kernel has them; only the order of
 * the dot products' additions differs), on generated SPD matrices with
 * and without Jacobi. Its iteration counts must agree with the library's
 * textbook CG (smv_cg) within 1%, its answer must meet the tolerance in
 * the true residual, and a matrix that is not SPD must break down at
 * once, as the textbook's does.
 */
#include "test.h"

#include "smv_solve.h"
#include "test_solve_common.h"

#include <math.h>
#include <stdlib.h>

typedef struct {
  int iterations, converged, breakdown;
  double relres;
} gear_result;

static double dot(const double *a, const double *b, int64_t n) {
  double s = 0.0;
  for (int64_t i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* u = dinv r (Jacobi) or r, as the kernel forms it from r_new. */
static void precondition(const double *r, const double *dinv, double *u,
                         int64_t n) {
  for (int64_t i = 0; i < n; i++)
    u[i] = dinv ? r[i] * dinv[i] : r[i];
}

/* x from 0: the kernel's iteration (cg_coop1.cu) with its stop rules:
 * relres = ||r|| / ||b|| from the recurrence after every iteration;
 * breakdown on gamma <= 0 or delta - beta gamma / alpha_old <= 0 (that
 * is p.Ap) or a non-finite residual. */
static gear_result cg_gear(const smv_csr *A, const double *b, double *x,
                           const double *dinv, double tol, int maxit) {
  const int64_t n = A->rows;
  gear_result res = {0, 0, 0, 0.0};
  double *r = malloc(n * sizeof *r), *u = calloc(n, sizeof *u);
  double *w = malloc(n * sizeof *w), *p = calloc(n, sizeof *p);
  double *s = calloc(n, sizeof *s);
  CHECK(r && u && w && p && s);
  if (!r || !u || !w || !p || !s)
    goto out;
  for (int64_t i = 0; i < n; i++)
    x[i] = 0.0, r[i] = b[i];
  const double bnorm = sqrt(dot(b, b, n));
  precondition(r, dinv, u, n);
  CHECK_OK(smv_spmv_ref(A, 1.0, u, 0.0, w));
  double gam = dot(r, u, n), del = dot(w, u, n), gam_old = 0.0;
  double alpha_old = 0.0, relres = sqrt(dot(r, r, n)) / bnorm;
  int it = 0;
  while (!(relres <= tol) && it < maxit) {
    double beta = 0.0, den = del;
    if (it > 0) {
      beta = gam / gam_old;
      den = del - beta * gam / alpha_old;
    }
    if (!(gam > 0.0) || !isfinite(gam) || !(den > 0.0) || !isfinite(den)) {
      res.breakdown = 1;
      break;
    }
    const double alpha = gam / den;
    for (int64_t i = 0; i < n; i++) {
      p[i] = fma(beta, p[i], u[i]);
      s[i] = fma(beta, s[i], w[i]);
      x[i] = fma(alpha, p[i], x[i]);
      r[i] = fma(-alpha, s[i], r[i]);
    }
    precondition(r, dinv, u, n);
    CHECK_OK(smv_spmv_ref(A, 1.0, u, 0.0, w));
    gam_old = gam;
    alpha_old = alpha;
    gam = dot(r, u, n);
    del = dot(w, u, n);
    relres = sqrt(dot(r, r, n)) / bnorm;
    it++;
    if (!isfinite(relres)) {
      res.breakdown = 1;
      break;
    }
  }
  res.iterations = it;
  res.relres = relres;
  res.converged = relres <= tol && !res.breakdown;
out:
  free(r), free(u), free(w), free(p), free(s);
  return res;
}

/* 1 / A(i,i) for every row (the matrices here have their diagonal). */
static double *jacobi(const smv_csr *A) {
  double *d = malloc(A->rows * sizeof *d);
  for (int64_t i = 0; d && i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (A->col_idx[k] == i)
        d[i] = 1.0 / A->values[k];
  return d;
}

/* b_i in [1, 2), uneven: no eigenvector of A by accident (A * ones is one
 * for the periodic band). */
static double *rhs_uneven(int64_t n) {
  double *b = malloc(n * sizeof *b);
  for (int64_t i = 0; b && i < n; i++)
    b[i] = 1.0 + (double)((i * 7919) % 1000) / 1000.0;
  return b;
}

static void check_against_textbook(const char *name, const smv_csr *A,
                                   int jac) {
  const double tol = 1e-10;
  const int64_t n = A->rows;
  double *b = rhs_uneven(n), *x = malloc(n * sizeof *x);
  double *xc = malloc(n * sizeof *xc), *dinv = jac ? jacobi(A) : NULL;
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = tol;
  o.maxit = 5000;
  o.precond = jac ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE;
  smv_solve_result rc;
  smv_error err;
  CHECK_OK(smv_cg(A, b, xc, &o, &rc, &err));
  const gear_result g = cg_gear(A, b, x, dinv, tol, o.maxit);
  CHECKF(g.converged && !g.breakdown && rc.converged,
         "%s %s: Chronopoulos-Gear converged %d breakdown %d after %d (%g); "
         "textbook converged %d",
         name, jac ? "jacobi" : "none", g.converged, g.breakdown, g.iterations,
         g.relres, rc.converged);
  CHECKF(within_1pct(g.iterations, rc.iterations),
         "%s %s: %d iterations Chronopoulos-Gear, %d textbook", name,
         jac ? "jacobi" : "none", g.iterations, rc.iterations);
  const double tr = true_relres(A, b, x);
  CHECKF(tr <= 10 * tol, "%s %s: true residual %g", name,
         jac ? "jacobi" : "none", tr);
  printf("  %-12s %-6s %4d iterations (textbook %4d), true residual %.2e\n",
         name, jac ? "jacobi" : "none", g.iterations, rc.iterations, tr);
  free(b), free(x), free(xc), free(dinv);
}

/* lap2d and lap3d (5 and 7 points), the 27-point stencil, 3-D elasticity
 * (3x3 blocks), a band of uneven values (Jacobi changes its count) and
 * lap2d:300, the matrix the persistent kernel is timed on (without
 * Jacobi: its diagonal is constant); with and without Jacobi. */
static void test_matches_textbook(void) {
  const char *specs[] = {"lap2d:30",    "lap3d:10",    "band",
                         "stencil27:8", "elastic3d:4", "lap2d:300"};
  for (int m = 0; m < 6; m++) {
    smv_csr *A = m == 2 ? spd_band(3000, 5) : tst_generate(specs[m]);
    if (!A)
      continue;
    for (int jac = 0; jac < (m == 5 ? 1 : 2); jac++) /* 5: diagonal 4 */
      check_against_textbook(specs[m], A, jac);
    smv_csr_free(A);
  }
}

/* -lap2d (negative definite) and diag:40 (both signs): breakdown within
 * a few iterations, as smv_cg. */
static void test_not_spd(void) {
  smv_csr *Ms[2];
  if (!not_spd_pair(20, Ms))
    return;
  for (int m = 0; m < 2; m++) {
    double *b = rhs_ones(Ms[m]), *x = malloc(Ms[m]->rows * sizeof *x);
    const gear_result g = cg_gear(Ms[m], b, x, NULL, 1e-10, 100000);
    CHECKF(g.breakdown && !g.converged && g.iterations < 5,
           "%s: breakdown %d converged %d after %d", m ? "diag" : "-lap2d",
           g.breakdown, g.converged, g.iterations);
    free(b), free(x);
    smv_csr_free(Ms[m]);
  }
}

int main(void) {
  RUN(test_matches_textbook);
  RUN(test_not_spd);
  return TEST_END();
}
