/*
 * test_solve.c — the CPU solvers (smv_solve.h): CG and BiCGStab converge
 * on SPD Laplacians and bands to the tolerance asked, checked with the
 * true residual ||b - A x|| / ||b|| recomputed here; BiCGStab on a
 * nonsymmetric convection-diffusion matrix; the iteration limit; zero
 * right-hand sides; bad input; PageRank against a hand computation and a
 * dense reference; f32; history and progress; bit-identical results for 1
 * and 2 threads.
 */
#include "smv_solve.h"
#include "test.h"
#include "test_solve_common.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef smv_status (*solver64)(const smv_csr *, const double *, double *,
                               const smv_solve_options *, smv_solve_result *,
                               smv_error *);

/* Solve A x = A*ones to tol; check convergence, the reported and the true
 * residual, and x against ones. */
static void converge(solver64 f, const char *name, smv_csr *A, smv_precond pc,
                     double tol) {
  if (!A)
    return;
  double *b = rhs_ones(A);
  double *x = malloc((size_t)A->rows * sizeof *x);
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = tol;
  o.maxit = 5000;
  o.precond = pc;
  smv_solve_result r;
  smv_error err;
  smv_status st = f(A, b, x, &o, &r, &err);
  CHECKF(st == SMV_OK, "%s: %s", name, err.message);
  CHECKF(r.converged, "%s (%s): not converged after %d, relres %g", name,
         pc ? "jacobi" : "none", r.iterations, r.relres);
  CHECKF(r.relres <= tol, "%s: relres %g > tol %g", name, r.relres, tol);
  CHECKF(r.iterations > 0 && r.iterations < 5000, "%s: %d iterations", name,
         r.iterations);
  CHECK(!r.breakdown);
  const double tr = true_relres(A, b, x);
  /* The recurrence drifts from the true residual by O(eps * cond). */
  CHECKF(tr <= 10 * tol, "%s (%s): true residual %g, recurrence %g", name,
         pc ? "jacobi" : "none", tr, r.relres);
  double err_max = 0.0;
  for (int64_t i = 0; i < A->rows; i++)
    err_max = fmax(err_max, fabs(x[i] - 1.0));
  CHECKF(err_max < 1e-3, "%s: max |x - 1| = %g", name, err_max);
  free(b);
  free(x);
}

/* converge() without and with Jacobi, then A freed. */
static void converge_both(solver64 f, const char *name, smv_csr *A,
                          double tol) {
  converge(f, name, A, SMV_PRECOND_NONE, tol);
  converge(f, name, A, SMV_PRECOND_JACOBI, tol);
  smv_csr_free(A);
}

static void test_cg_converges(void) {
  const char *specs[] = {"lap2d:40", "lap3d:12"};
  for (int s = 0; s < 2; s++)
    converge_both(smv_cg, specs[s], tst_generate(specs[s]), 1e-10);
  /* diag:N's values have both signs (not SPD: test_solve_harden.c); made
   * positive, one step with Jacobi. */
  smv_csr *D = tst_generate("diag:50");
  for (int64_t k = 0; D && k < D->nnz; k++)
    D->values[k] = fabs(D->values[k]) + 0.5;
  converge_both(smv_cg, "diag:50 (positive)", D, 1e-10);
  converge_both(smv_cg, "spd band", spd_band(3000, 4), 1e-9);
}

static void test_bicgstab_converges(void) {
  const char *specs[] = {"lap2d:40", "lap3d:12"};
  for (int s = 0; s < 2; s++)
    converge_both(smv_bicgstab, specs[s], tst_generate(specs[s]), 1e-10);
  smv_csr *B = spd_band(3000, 4);
  converge(smv_bicgstab, "spd band", B, SMV_PRECOND_JACOBI, 1e-9);
  smv_csr_free(B);
  converge_both(smv_bicgstab, "convdiff", convdiff(50, 0.4), 1e-10);
}

/* The hand-checkable case: CG on a diagonal matrix converges in one step
 * per distinct eigenvalue; diag(2,2,2) in exactly one. */
static void test_cg_one_step(void) {
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(3, 3, 3, &A));
  for (int i = 0; i < 3; i++) {
    A->row_ptr[i + 1] = i + 1;
    A->col_idx[i] = i;
    A->values[i] = 2.0;
  }
  A->sorted = 1;
  double b[3] = {2, 4, -6}, x[3];
  smv_solve_result r;
  CHECK_OK(smv_cg(A, b, x, NULL, &r, NULL));
  CHECK_INT(r.iterations, 1);
  CHECK(r.converged);
  CHECK_NEAR(x[0], 1.0, 1e-15);
  CHECK_NEAR(x[1], 2.0, 1e-15);
  CHECK_NEAR(x[2], -3.0, 1e-15);
  smv_csr_free(A);
}

static void test_maxit(void) {
  smv_csr *A = tst_generate("lap2d:30");
  if (!A)
    return;
  double *b = rhs_ones(A), *x = malloc((size_t)A->rows * sizeof *x);
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.maxit = 5;
  smv_solve_result r;
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK(!r.converged);
  CHECK_INT(r.iterations, 5);
  CHECK(r.relres > o.tol);
  CHECK_OK(smv_bicgstab(A, b, x, &o, &r, NULL));
  CHECK(!r.converged);
  CHECK_INT(r.iterations, 5);
  o.maxit = 0; /* no iteration at all: the start's residual, 1 */
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK(!r.converged);
  CHECK_INT(r.iterations, 0);
  CHECK_NEAR(r.relres, 1.0, 0.0);
  free(b), free(x);
  smv_csr_free(A);
}

static void test_zero_rhs(void) {
  smv_csr *A = tst_generate("lap2d:10");
  if (!A)
    return;
  double *b = calloc((size_t)A->rows, sizeof *b);
  double *x = malloc((size_t)A->rows * sizeof *x);
  for (int64_t i = 0; i < A->rows; i++)
    x[i] = 3.0; /* an initial guess is ignored: the answer is 0 */
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.use_x0 = 1;
  smv_solve_result r;
  solver64 fs[2] = {smv_cg, smv_bicgstab};
  for (int f = 0; f < 2; f++) {
    CHECK_OK(fs[f](A, b, x, &o, &r, NULL));
    CHECK(r.converged);
    CHECK_INT(r.iterations, 0);
    CHECK_NEAR(r.relres, 0.0, 0.0);
    int zeros = 1;
    for (int64_t i = 0; i < A->rows; i++)
      zeros &= x[i] == 0.0;
    CHECK(zeros);
  }
  free(b), free(x);
  smv_csr_free(A);
}

/* A good initial guess: converged at iteration 0. */
static void test_initial_guess(void) {
  smv_csr *A = tst_generate("lap2d:20");
  if (!A)
    return;
  double *b = rhs_ones(A), *x = malloc((size_t)A->rows * sizeof *x);
  for (int64_t i = 0; i < A->rows; i++)
    x[i] = 1.0;
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.use_x0 = 1;
  smv_solve_result r;
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK(r.converged);
  CHECK_INT(r.iterations, 0);
  /* A perturbed guess converges in fewer iterations than from zero. */
  for (int64_t i = 0; i < A->rows; i++)
    x[i] = 1.0 + 1e-3 * (double)(i % 7);
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  int from_guess = r.iterations;
  o.use_x0 = 0;
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK(r.converged);
  CHECKF(from_guess < r.iterations, "%d vs %d", from_guess, r.iterations);
  free(b), free(x);
  smv_csr_free(A);
}

static void test_bad_input(void) {
  smv_error err;
  double b[8] = {1, 1, 1, 1, 1, 1, 1, 1}, x[8];
  smv_csr *R = tst_generate("rand:4:2,cols=5");
  if (R) {
    CHECK_STATUS(smv_cg(R, b, x, NULL, NULL, &err), SMV_ERR_DIM);
    CHECK_STR_HAS(err.message, "4 x 5");
    CHECK_STATUS(smv_bicgstab(R, b, x, NULL, NULL, &err), SMV_ERR_DIM);
    CHECK_STATUS(smv_pagerank(R, x, NULL, NULL, &err), SMV_ERR_DIM);
  }
  smv_csr_free(R);
  /* Row 2 (1-based) has no diagonal entry. */
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(3, 3, 4, &A));
  int32_t rp[4] = {0, 2, 3, 4}, ci[4] = {0, 1, 0, 2};
  double va[4] = {2, 1, 1, 2};
  memcpy(A->row_ptr, rp, sizeof rp);
  memcpy(A->col_idx, ci, sizeof ci);
  memcpy(A->values, va, sizeof va);
  A->sorted = 1;
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.precond = SMV_PRECOND_JACOBI;
  CHECK_STATUS(smv_cg(A, b, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "row 2");
  CHECK_STR_HAS(err.message, "Jacobi");
  CHECK_STATUS(smv_bicgstab(A, b, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "row 2");
  /* An explicit zero on the diagonal is refused the same way. */
  A->col_idx[2] = 1;
  A->values[2] = 0.0;
  CHECK_STATUS(smv_cg(A, b, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "zero");
  smv_csr_free(A);
  /* Bad options and vectors. */
  smv_csr *L = tst_generate("lap2d:2");
  if (!L)
    return;
  smv_solve_options_init(&o);
  o.tol = -1;
  CHECK_STATUS(smv_cg(L, b, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "tol");
  smv_solve_options_init(&o);
  o.maxit = -2;
  CHECK_STATUS(smv_cg(L, b, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "maxit");
  smv_solve_options_init(&o);
  o.history_len = 3;
  CHECK_STATUS(smv_cg(L, b, x, &o, NULL, &err), SMV_ERR_ARG);
  smv_solve_options_init(&o);
  o.damping = 1.0;
  CHECK_STATUS(smv_pagerank(L, x, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "damping");
  CHECK_STATUS(smv_cg(L, NULL, x, NULL, NULL, &err), SMV_ERR_ARG);
  CHECK_STATUS(smv_cg(NULL, b, x, NULL, NULL, &err), SMV_ERR_ARG);
  b[1] = NAN;
  CHECK_STATUS(smv_cg(L, b, x, NULL, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "b[1]");
  smv_csr_free(L);
}

static smv_csr *from_triplets(int n, int nnz, const int *ri, const int *cj,
                              const double *v) {
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(n, n, nnz, &A));
  if (!A)
    return NULL;
  /* Triplets are given row by row, columns ascending. */
  for (int k = 0; k < nnz; k++) {
    A->row_ptr[ri[k] + 1]++;
    A->col_idx[k] = cj[k];
    A->values[k] = v[k];
  }
  for (int i = 0; i < n; i++)
    A->row_ptr[i + 1] += A->row_ptr[i];
  A->sorted = 1;
  return A;
}

/* 0 -> 1, 1 -> 0, 1 -> 2; node 2 dangling. With d = 1/2 by hand:
 *   r0 = r1/4 + r2/6 + 1/6, r1 = r0/2 + r2/6 + 1/6, r2 = r1/4 + r2/6 + 1/6
 * gives r0 = r2 = 5/16, r1 = 3/8. */
static void test_pagerank_hand(void) {
  const int ri[3] = {0, 1, 1}, cj[3] = {1, 0, 2};
  const double v[3] = {1, 1, 1};
  smv_csr *A = from_triplets(3, 3, ri, cj, v);
  if (!A)
    return;
  smv_solve_options o = pagerank_half();
  double r[3];
  smv_solve_result res;
  smv_error err;
  CHECKF(smv_pagerank(A, r, &o, &res, &err) == SMV_OK, "%s", err.message);
  CHECK(res.converged);
  CHECK_NEAR(r[0], 5.0 / 16, 1e-13);
  CHECK_NEAR(r[1], 3.0 / 8, 1e-13);
  CHECK_NEAR(r[2], 5.0 / 16, 1e-13);
  float rf[3];
  CHECK_OK(smv_pagerank_f32(A, rf, &o, &res, &err) == SMV_OK ? SMV_OK
                                                             : err.status);
  CHECK_NEAR(rf[1], 3.0 / 8, 1e-6);
  /* Weights count: 1 -> 0 three times as heavy as 1 -> 2 changes it; a
   * negative weight is refused. */
  A->values[1] = 3.0;
  CHECK_OK(smv_pagerank(A, r, &o, &res, NULL));
  CHECK(r[0] > r[2]);
  CHECK_NEAR(r[0] + r[1] + r[2], 1.0, 1e-13);
  A->values[1] = -1.0;
  CHECK_STATUS(smv_pagerank(A, r, &o, &res, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "(2, 1)");
  smv_csr_free(A);
}

/* A dense reference, written independently: the Google matrix G with
 * G(j,i) = d/out_i for links i->j, d/n for dangling i, plus (1-d) v_j,
 * applied until the change is below 1e-15. */
static void dense_pagerank(const smv_csr *A, double d, const double *pers,
                           double *r) {
  const int n = A->rows;
  double *G = calloc((size_t)n * n, sizeof *G), *t = malloc(n * sizeof *t);
  double *v = malloc(n * sizeof *v), vs = 0.0;
  for (int i = 0; i < n; i++)
    vs += pers ? pers[i] : 1.0;
  for (int i = 0; i < n; i++)
    v[i] = (pers ? pers[i] : 1.0) / vs;
  for (int i = 0; i < n; i++) {
    double out = 0.0;
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      out += A->values[k];
    for (int j = 0; j < n; j++)
      G[(size_t)j * n + i] = out == 0.0 ? d / n : 0.0;
    for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      G[(size_t)A->col_idx[k] * n + i] += d * A->values[k] / out;
  }
  for (int i = 0; i < n; i++)
    r[i] = v[i];
  for (int it = 0; it < 10000; it++) {
    double ch = 0.0;
    for (int j = 0; j < n; j++) {
      double s = (1 - d) * v[j];
      for (int i = 0; i < n; i++)
        s += G[(size_t)j * n + i] * r[i];
      t[j] = s;
    }
    for (int j = 0; j < n; j++) {
      ch += fabs(t[j] - r[j]);
      r[j] = t[j];
    }
    if (ch < 1e-15)
      break;
  }
  free(G), free(t), free(v);
}

static void test_pagerank_reference(void) {
  /* A random graph with weights, some rows emptied (dangling). */
  smv_csr *A = tst_generate("rand:300:4,seed=7");
  if (!A)
    return;
  for (int64_t k = 0; k < A->nnz; k++)
    A->values[k] = fabs(A->values[k]);
  for (int64_t i = 0; i < A->rows; i += 17) /* zero weights: dangling */
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      A->values[k] = 0.0;
  double pers[300];
  for (int i = 0; i < 300; i++)
    pers[i] = (double)(i % 5);
  const double *ps[2] = {NULL, pers};
  for (int p = 0; p < 2; p++) {
    double want[300], got[300];
    dense_pagerank(A, 0.85, ps[p], want);
    smv_solve_options o;
    smv_solve_options_init(&o);
    o.tol = 1e-13;
    o.personalization = ps[p];
    smv_solve_result res;
    CHECK_OK(smv_pagerank(A, got, &o, &res, NULL));
    CHECK(res.converged);
    CHECK(res.iterations > 5);
    double worst = 0.0, sum = 0.0;
    for (int i = 0; i < 300; i++) {
      worst = fmax(worst, fabs(got[i] - want[i]));
      sum += got[i];
    }
    CHECKF(worst < 1e-12, "personalized %d: max diff %g", p, worst);
    CHECK_NEAR(sum, 1.0, 1e-12);
  }
  /* Bad personalization vectors. */
  smv_solve_options o;
  smv_solve_options_init(&o);
  double zero[300] = {0}, r[300];
  o.personalization = zero;
  smv_error err;
  CHECK_STATUS(smv_pagerank(A, r, &o, NULL, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "personalization");
  pers[3] = -1;
  o.personalization = pers;
  CHECK_STATUS(smv_pagerank(A, r, &o, NULL, &err), SMV_ERR_ARG);
  smv_csr_free(A);
}

static void test_f32(void) {
  smv_csr *A = tst_generate("lap2d:30");
  smv_csr *C = convdiff(30, 0.3);
  if (!A || !C)
    goto out;
  const int64_t n = A->rows;
  double *b = rhs_ones(A), *bc = rhs_ones(C);
  float *bf = malloc(n * sizeof *bf), *xf = malloc(n * sizeof *xf);
  double *xd = malloc(n * sizeof *xd);
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = 1e-5;
  o.precond = SMV_PRECOND_JACOBI;
  smv_solve_result r;
  for (int m = 0; m < 2; m++) {
    const smv_csr *M = m ? C : A;
    const double *bm = m ? bc : b;
    for (int64_t i = 0; i < n; i++)
      bf[i] = (float)bm[i];
    smv_error err;
    smv_status st = m ? smv_bicgstab_f32(M, bf, xf, &o, &r, &err)
                      : smv_cg_f32(M, bf, xf, &o, &r, &err);
    CHECKF(st == SMV_OK, "%s", err.message);
    CHECKF(r.converged, "f32 %d: %d its, relres %g", m, r.iterations, r.relres);
    for (int64_t i = 0; i < n; i++)
      xd[i] = xf[i];
    double tr = true_relres(M, bm, xd);
    CHECKF(tr < 1e-4, "f32 %s true residual %g", m ? "bicgstab" : "cg", tr);
  }
  free(b), free(bc), free(bf), free(xf), free(xd);
out:
  smv_csr_free(A);
  smv_csr_free(C);
}

struct prog {
  int calls, last;
};
static void on_progress(void *user, int it, double relres) {
  struct prog *p = user;
  p->calls++;
  p->last = it;
  (void)relres;
}

static void test_history_progress(void) {
  smv_csr *A = tst_generate("lap2d:20");
  if (!A)
    return;
  double *b = rhs_ones(A), *x = malloc((size_t)A->rows * sizeof *x);
  double hist[1000];
  struct prog pr = {0, 0};
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.history = hist;
  o.history_len = 1000;
  o.progress = on_progress;
  o.progress_user = &pr;
  o.progress_every = 10;
  smv_solve_result r;
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK(r.converged);
  CHECK_INT(r.history_count, r.iterations + 1);
  CHECK_NEAR(hist[0], 1.0, 1e-15); /* x0 = 0: r0 = b */
  CHECK_NEAR(hist[r.iterations], r.relres, 0.0);
  CHECK_INT(pr.calls, r.iterations / 10);
  CHECK_INT(pr.last, r.iterations / 10 * 10);
  /* A short array: only its entries are written. */
  hist[3] = -1;
  o.history_len = 3;
  CHECK_OK(smv_cg(A, b, x, &o, &r, NULL));
  CHECK_INT(r.history_count, 3);
  CHECK(hist[3] == -1);
  free(b), free(x);
  smv_csr_free(A);
}

/* Same bits with 1 and 2 threads (and 3): a matrix with several chunks. */
static void test_determinism(void) {
#ifdef _OPENMP
  smv_csr *A = tst_generate("lap3d:24"); /* 13824 rows: 7 chunks */
  smv_csr *C = convdiff(90, 0.3);
  smv_csr *G = tst_generate("rand:20000:5,seed=3");
  if (!A || !C || !G)
    goto out;
  for (int64_t k = 0; k < G->nnz; k++) /* weights >= 0, a few dangling */
    G->values[k] = k % 97 == 0 ? 0.0 : fabs(G->values[k]);
  for (int m = 0; m < 3; m++) {
    const smv_csr *M = m == 0 ? A : m == 1 ? C : G;
    const int64_t n = M->rows;
    double *b = rhs_ones(M);
    double *x1 = malloc(n * sizeof *x1), *x2 = malloc(n * sizeof *x2);
    smv_solve_options o;
    smv_solve_options_init(&o);
    o.precond = SMV_PRECOND_JACOBI;
    smv_solve_result r1, r2;
    int saved = omp_get_max_threads();
    for (int t = 0; t < 2; t++) {
      omp_set_num_threads(t ? 3 : 1);
      double *x = t ? x2 : x1;
      smv_solve_result *r = t ? &r2 : &r1;
      if (m == 0)
        CHECK_OK(smv_cg(M, b, x, &o, r, NULL));
      else if (m == 1)
        CHECK_OK(smv_bicgstab(M, b, x, &o, r, NULL));
      else
        CHECK_OK(smv_pagerank(M, x, &o, r, NULL));
    }
    omp_set_num_threads(2);
    double *x3 = malloc(n * sizeof *x3);
    smv_solve_result r3;
    if (m == 0)
      CHECK_OK(smv_cg(M, b, x3, &o, &r3, NULL));
    else if (m == 1)
      CHECK_OK(smv_bicgstab(M, b, x3, &o, &r3, NULL));
    else
      CHECK_OK(smv_pagerank(M, x3, &o, &r3, NULL));
    omp_set_num_threads(saved);
    CHECK(r1.converged);
    CHECK_INT(r1.iterations, r2.iterations);
    CHECK_INT(r1.iterations, r3.iterations);
    CHECK(memcmp(&r1.relres, &r2.relres, sizeof r1.relres) == 0);
    CHECKF(memcmp(x1, x2, n * sizeof *x1) == 0, "method %d: 1 vs 3 threads", m);
    CHECKF(memcmp(x1, x3, n * sizeof *x1) == 0, "method %d: 1 vs 2 threads", m);
    free(b), free(x1), free(x2), free(x3);
  }
out:
  smv_csr_free(A);
  smv_csr_free(C);
  smv_csr_free(G);
#else
  SKIP("built without OpenMP");
#endif
}

/* Chebyshev preconditioning: degrees 1, 2 and 4 converge, to the true
 * residual asked, each in fewer iterations than the one before and than
 * Jacobi (each iteration costs `degree` more SpMVs); f32 too; the same
 * bits on a second run. BiCGStab refuses it; so does a degree past 16. */
static void test_chebyshev(void) {
  smv_csr *A = tst_generate("lap2d:50");
  if (!A)
    return;
  const int64_t n = A->rows;
  double *b = rhs_ones(A), *x = malloc((size_t)n * sizeof *x);
  float *bf = malloc((size_t)n * sizeof *bf),
        *xf = malloc((size_t)n * sizeof *xf);
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = 1e-10;
  o.maxit = 5000;
  smv_solve_result rj, r;
  smv_error err;
  o.precond = SMV_PRECOND_JACOBI;
  CHECK_OK(smv_cg(A, b, x, &o, &rj, &err));
  CHECK(rj.converged);
  o.precond = SMV_PRECOND_CHEBYSHEV;
  const int degrees[] = {1, 2, 4};
  int prev = rj.iterations;
  for (int d = 0; d < 3; d++) {
    o.cheb_degree = degrees[d];
    CHECK_OK(smv_cg(A, b, x, &o, &r, &err));
    CHECKF(r.converged && !r.breakdown, "degree %d: converged %d after %d",
           degrees[d], r.converged, r.iterations);
    CHECKF(true_relres(A, b, x) <= 10 * o.tol, "degree %d: true %g", degrees[d],
           true_relres(A, b, x));
    CHECKF(r.iterations < prev, "degree %d: %d iterations, not fewer than %d",
           degrees[d], r.iterations, prev);
    prev = r.iterations;
  }
  double *x2 = malloc((size_t)n * sizeof *x2);
  smv_solve_result r2;
  CHECK_OK(smv_cg(A, b, x2, &o, &r2, &err));
  CHECK_INT(r2.iterations, r.iterations);
  CHECK(memcmp(x, x2, (size_t)n * sizeof *x) == 0);
  free(x2);
  for (int64_t i = 0; i < n; i++)
    bf[i] = (float)b[i];
  o.tol = 1e-5;
  o.cheb_degree = 2;
  CHECK_OK(smv_cg_f32(A, bf, xf, &o, &r, &err));
  CHECK(r.converged);
  o.cheb_degree = 17;
  CHECK_STATUS(smv_cg(A, b, x, &o, &r, &err), SMV_ERR_ARG);
  o.cheb_degree = 2;
  CHECK_STATUS(smv_bicgstab(A, b, x, &o, &r, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "Chebyshev");
  free(b), free(x), free(bf), free(xf);
  smv_csr_free(A);
}

/* The CUDA entry points link everywhere: without CUDA they answer
 * SMV_ERR_NO_DEVICE; with it, a NULL context is SMV_ERR_ARG. */
static void test_no_device_path(void) {
#ifdef SMV_HAVE_CUDA
  const smv_status want = SMV_ERR_ARG;
#else
  const smv_status want = SMV_ERR_NO_DEVICE;
#endif
  double r[4] = {1, 1, 1, 1};
  smv_csr *A = tst_generate("lap2d:2");
  smv_solve_result res;
  res.iterations = 7;
  CHECK_STATUS(smv_pagerank_cuda(NULL, A, SMV_F64, r, NULL, &res), want);
  CHECK_INT(res.iterations, 0);
  CHECK_STATUS(smv_cg_cuda(NULL, NULL, NULL, NULL, NULL, NULL), want);
  CHECK_STATUS(smv_bicgstab_cuda(NULL, NULL, NULL, NULL, NULL, NULL), want);
  CHECK_STATUS(smv_solve_cuda_host(NULL, NULL, SMV_METHOD_CG, r, r, NULL, NULL),
               want);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_cg_converges);
  RUN(test_bicgstab_converges);
  RUN(test_cg_one_step);
  RUN(test_maxit);
  RUN(test_zero_rhs);
  RUN(test_initial_guess);
  RUN(test_bad_input);
  RUN(test_pagerank_hand);
  RUN(test_pagerank_reference);
  RUN(test_f32);
  RUN(test_history_progress);
  RUN(test_determinism);
  RUN(test_chebyshev);
  RUN(test_no_device_path);
  return TEST_END();
}
