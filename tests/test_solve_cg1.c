/*
 * test_solve_cg1.c — the one-barrier recurrences of the persistent CG
 * checked on the CPU, in double, where CI has no GPU: Chronopoulos–Gear
 * (cg1's, src/cuda/solve/cg_coop1.cu and the resident kernel's default)
 * and predict-and-recompute (the resident kernel's pr variant,
 * cg_coop_res.cu's res_pr_loop), each with the kernel's operations in the
 * kernel's order (explicit fma where the kernel has them; only the order
 * of the dot products' additions differs), on generated SPD matrices with
 * and without Jacobi. Their iteration counts must agree with the
 * library's textbook CG (smv_cg) within 1%, their answers must meet the
 * tolerance in the true residual, and a matrix that is not SPD must break
 * down at once, as the textbook's does.
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

/* x from 0: the resident kernel's pr iteration (res_pr_loop, pr_scalars):
 * z = M r, p0 = z0, s = A p computed each iteration; one reduction of
 * nu = r.z, mu = p.s, sig = s.z, tau = s.Ms and r.r; alpha = nu / mu,
 * beta = (nu - 2 alpha sig + alpha^2 tau) / nu; breakdown on nu <= 0,
 * mu <= 0 or a non-finite scalar or residual. */
static gear_result cg_pr(const smv_csr *A, const double *b, double *x,
                         const double *dinv, double tol, int maxit) {
  const int64_t n = A->rows;
  gear_result res = {0, 0, 0, 0.0};
  double *r = malloc(n * sizeof *r), *z = malloc(n * sizeof *z);
  double *p = calloc(n, sizeof *p), *s = calloc(n, sizeof *s);
  double *ms = calloc(n, sizeof *ms);
  CHECK(r && z && p && s && ms);
  if (!r || !z || !p || !s || !ms)
    goto out;
  for (int64_t i = 0; i < n; i++)
    x[i] = 0.0, r[i] = b[i];
  const double bnorm = sqrt(dot(b, b, n));
  precondition(r, dinv, z, n);
  for (int64_t i = 0; i < n; i++)
    p[i] = z[i];
  CHECK_OK(smv_spmv_ref(A, 1.0, p, 0.0, s));
  precondition(s, dinv, ms, n);
  double nu = dot(r, z, n), mu = dot(p, s, n), sig = dot(s, z, n);
  double tau = dot(s, ms, n), relres = sqrt(dot(r, r, n)) / bnorm;
  int it = 0;
  while (!(relres <= tol) && it < maxit) {
    if (!(nu > 0.0) || !isfinite(nu) || !(mu > 0.0) || !isfinite(mu)) {
      res.breakdown = 1;
      break;
    }
    const double alpha = nu / mu;
    const double beta = fma(alpha, fma(alpha, tau, -2.0 * sig), nu) / nu;
    if (!isfinite(alpha) || !isfinite(beta)) {
      res.breakdown = 1;
      break;
    }
    for (int64_t i = 0; i < n; i++) {
      const double ri = fma(-alpha, s[i], r[i]);
      const double zi = dinv ? ri * dinv[i] : ri;
      x[i] = fma(alpha, p[i], x[i]);
      p[i] = fma(beta, p[i], zi);
      r[i] = ri;
      z[i] = zi;
    }
    CHECK_OK(smv_spmv_ref(A, 1.0, p, 0.0, s));
    precondition(s, dinv, ms, n);
    nu = dot(r, z, n);
    mu = dot(p, s, n);
    sig = dot(s, z, n);
    tau = dot(s, ms, n);
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
  free(r), free(z), free(p), free(s), free(ms);
  return res;
}

typedef gear_result (*recurrence)(const smv_csr *, const double *, double *,
                                  const double *, double, int);
static const recurrence recs[2] = {cg_gear, cg_pr};
static const char *const rec_names[2] = {"Chronopoulos-Gear",
                                         "predict-and-recompute"};

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
  for (int k = 0; k < 2; k++) {
    const gear_result g = recs[k](A, b, x, dinv, tol, o.maxit);
    CHECKF(g.converged && !g.breakdown && rc.converged,
           "%s %s: %s converged %d breakdown %d after %d (%g); textbook "
           "converged %d",
           name, jac ? "jacobi" : "none", rec_names[k], g.converged,
           g.breakdown, g.iterations, g.relres, rc.converged);
    CHECKF(within_1pct(g.iterations, rc.iterations),
           "%s %s: %d iterations %s, %d textbook", name,
           jac ? "jacobi" : "none", g.iterations, rec_names[k], rc.iterations);
    const double tr = true_relres(A, b, x);
    CHECKF(tr <= 10 * tol, "%s %s %s: true residual %g", name,
           jac ? "jacobi" : "none", rec_names[k], tr);
    printf("  %-12s %-6s %-22s %4d iterations (textbook %4d), true residual "
           "%.2e\n",
           name, jac ? "jacobi" : "none", rec_names[k], g.iterations,
           rc.iterations, tr);
  }
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
    for (int k = 0; k < 2; k++) {
      const gear_result g = recs[k](Ms[m], b, x, NULL, 1e-10, 100000);
      CHECKF(g.breakdown && !g.converged && g.iterations < 5,
             "%s %s: breakdown %d converged %d after %d", m ? "diag" : "-lap2d",
             rec_names[k], g.breakdown, g.converged, g.iterations);
    }
    free(b), free(x);
    smv_csr_free(Ms[m]);
  }
}

int main(void) {
  RUN(test_matches_textbook);
  RUN(test_not_spd);
  return TEST_END();
}
