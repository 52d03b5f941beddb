/* solve_common.c — option defaults and checks, the Jacobi diagonal and
 * PageRank's transition matrix: the host-side preparation the CPU and the
 * CUDA solvers share (smv_solve.h, solve_internal.h). */
#include "solve_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void smv_solve_options_init(smv_solve_options *o) {
  if (!o)
    return;
  memset(o, 0, sizeof *o);
  o->tol = 1e-8;
  o->maxit = 1000;
  o->precond = SMV_PRECOND_NONE;
  o->alg = SMV_ALG_AUTO;
  o->check_every = 0;
  o->use_graph = 1;
  o->damping = 0.85;
}

smv_status smv_solve_opts_check(const smv_solve_options *in,
                                smv_solve_options *out, char *why, size_t n) {
  if (in)
    *out = *in;
  else
    smv_solve_options_init(out);
  const char *bad = NULL;
  if (!(out->tol >= 0.0) || !isfinite(out->tol))
    bad = "tol must be a finite number >= 0";
  else if (out->maxit < 0)
    bad = "maxit must be >= 0";
  else if (out->history_len < 0 || (out->history_len > 0 && !out->history))
    bad = "history_len must be >= 0, with a history array when > 0";
  else if (out->progress_every < 0)
    bad = "progress_every must be >= 0";
  else if (out->check_every < 0)
    bad = "check_every must be >= 0";
  else if (out->persistent < -1 || out->persistent > 1)
    bad = "persistent must be -1, 0 or 1";
  else if (out->precond != SMV_PRECOND_NONE &&
           out->precond != SMV_PRECOND_JACOBI &&
           out->precond != SMV_PRECOND_CHEBYSHEV)
    bad = "unknown preconditioner";
  else if (out->cheb_degree < 0 || out->cheb_degree > SMV_CHEB_MAX)
    bad = "cheb_degree must be in 0..16";
  else if (!(out->damping >= 0.0 && out->damping < 1.0))
    bad = "damping must be in [0, 1)";
  if (bad) {
    snprintf(why, n, "%s", bad);
    return SMV_ERR_ARG;
  }
  if (out->check_every == 0)
    out->check_every = 8;
  if (out->cheb_degree == 0)
    out->cheb_degree = 2;
  if (!out->history)
    out->history_len = 0;
  return SMV_OK;
}

smv_status smv_solve_check_matrix(const smv_csr *A, const char *who,
                                  smv_error *err) {
  if (!A)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: NULL matrix", who);
  smv_error e;
  smv_status st = smv_csr_check(A, &e);
  if (st != SMV_OK)
    return smv_err_set(err, st, NULL, 0, "%s: %s", who, e.message);
  if (A->rows != A->cols)
    return smv_err_set(err, SMV_ERR_DIM, NULL, 0,
                       "%s: the matrix is %lld x %lld; a solver needs a "
                       "square one",
                       who, (long long)A->rows, (long long)A->cols);
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (!isfinite(A->values[k]))
        return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                           "%s: matrix entry (%lld, %lld) is %g; the "
                           "entries must be finite",
                           who, (long long)i + 1, (long long)A->col_idx[k] + 1,
                           A->values[k]);
  return SMV_OK;
}

int smv_solve_overlap(const void *a, const void *b, size_t bytes) {
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return a && b && x < y + bytes && y < x + bytes;
}

double smv_solve_rhs_scale(double bmax) {
  if (!(bmax > 0.0) || !isfinite(bmax) ||
      (bmax >= ldexp(1.0, -300) && bmax <= ldexp(1.0, 300)))
    return 1.0;
  int e;
  frexp(bmax, &e);
  return ldexp(1.0, -e);
}

void smv_solve_true_check(smv_solve_result *res, double rr, double bb,
                          double tol) {
  const double t = bb > 0.0 ? sqrt(rr) / sqrt(bb) : sqrt(rr);
  if (res->converged && !(t <= tol)) {
    res->converged = 0;
    res->precision_limited = 1;
  }
}

smv_status smv_solve_jacobi(const smv_csr *A, double *dinv, smv_error *err) {
  for (int64_t i = 0; i < A->rows; i++) {
    double d = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (A->col_idx[k] == i)
        d += A->values[k]; /* duplicates (unsorted input) add up */
    if (d == 0.0 || !isfinite(d))
      return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                         "row %lld: the diagonal entry is %s; Jacobi "
                         "preconditioning divides by it (use no "
                         "preconditioner)",
                         (long long)i + 1,
                         d == 0.0 ? "zero or missing" : "not finite");
    dinv[i] = 1.0 / d;
  }
  return SMV_OK;
}

smv_status smv_pagerank_setup(const smv_csr *A, const smv_solve_options *o,
                              smv_csr **PT, double *v, int32_t **dangling,
                              int64_t *ndangling, smv_error *err) {
  const int64_t n = A->rows;
  *PT = NULL;
  *dangling = NULL;
  *ndangling = 0;
  /* Teleport vector. */
  if (o->personalization) {
    double sum = 0.0;
    for (int64_t i = 0; i < n; i++) {
      double p = o->personalization[i];
      if (!(p >= 0.0) || !isfinite(p))
        return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                           "personalization[%lld] = %g: entries must be "
                           "finite and >= 0",
                           (long long)i, p);
      sum += p;
    }
    if (!(sum > 0.0) || !isfinite(sum))
      return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                         "the personalization vector sums to %g; it needs a "
                         "positive finite sum",
                         sum);
    for (int64_t i = 0; i < n; i++)
      v[i] = o->personalization[i] / sum;
  } else {
    for (int64_t i = 0; i < n; i++)
      v[i] = 1.0 / (double)n;
  }
  /* Out-weights: row sums; negative or non-finite weights are refused. */
  double *inv_out = malloc(((size_t)n + 1) * sizeof *inv_out);
  int32_t *dl = NULL;
  smv_csr *T = NULL;
  smv_status st = SMV_OK;
  if (!inv_out) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "pagerank: out of memory (%lld doubles)", (long long)n);
    goto fail;
  }
  int64_t nd = 0;
  for (int64_t i = 0; i < n; i++) {
    double s = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      double w = A->values[k];
      if (!(w >= 0.0) || !isfinite(w)) {
        st = smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                         "pagerank: entry (%lld, %lld) = %g; link weights "
                         "must be finite and >= 0",
                         (long long)i + 1, (long long)A->col_idx[k] + 1, w);
        goto fail;
      }
      s += w;
    }
    if (!isfinite(s)) {
      st = smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "pagerank: row %lld's weights sum to infinity",
                       (long long)i + 1);
      goto fail;
    }
    inv_out[i] = s > 0.0 ? 1.0 / s : 0.0;
    nd += s > 0.0 ? 0 : 1;
  }
  dl = malloc(((size_t)nd + 1) * sizeof *dl);
  st = smv_csr_create((smv_index)n, (smv_index)n, A->nnz, &T);
  if (!dl || st != SMV_OK) {
    st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "pagerank: out of memory for the transition matrix "
                     "(%lld entries)",
                     (long long)A->nnz);
    goto fail;
  }
  nd = 0;
  for (int64_t i = 0; i < n; i++)
    if (inv_out[i] == 0.0)
      dl[nd++] = (int32_t)i;
  /* Counting sort by column: T's row j lists A's column j, rows of A in
   * ascending order (so T's columns come out sorted). */
  memset(T->row_ptr, 0, ((size_t)n + 1) * sizeof *T->row_ptr);
  for (int64_t k = 0; k < A->nnz; k++)
    T->row_ptr[A->col_idx[k] + 1]++;
  for (int64_t j = 0; j < n; j++)
    T->row_ptr[j + 1] += T->row_ptr[j];
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      int64_t dst = T->row_ptr[A->col_idx[k]]++;
      T->col_idx[dst] = (smv_index)i;
      T->values[dst] = A->values[k] * inv_out[i];
    }
  for (int64_t j = n; j > 0; j--)
    T->row_ptr[j] = T->row_ptr[j - 1];
  T->row_ptr[0] = 0;
  T->sorted = A->sorted;
  free(inv_out);
  *PT = T;
  *dangling = dl;
  *ndangling = nd;
  return SMV_OK;
fail:
  free(inv_out);
  free(dl);
  smv_csr_free(T);
  return st;
}

double smv_solve_cheb_lmax(const smv_csr *A) {
  double lmax = 0.0;
  for (int64_t i = 0; i < A->rows; i++) {
    double row = 0.0, d = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      row += fabs(A->values[k]);
      if (A->col_idx[k] == i)
        d += A->values[k];
    }
    if (d != 0.0)
      lmax = fmax(lmax, row / fabs(d));
  }
  return lmax;
}

void smv_solve_cheb_coeffs(double lmax, int degree, smv_cheb *c) {
  /* theta, delta: the interval's centre and half-width. The Chebyshev
   * iteration for B z = D^-1 r from z = 0 (Saad, Iterative Methods,
   * Algorithm 12.1): d = D^-1 r / theta, z = d; then per step
   * rho' = 1 / (2 sigma - rho), d = rho' rho d + (2 rho' / delta) D^-1
   * (r - A z), z += d. */
  const double lmin = lmax / SMV_CHEB_RATIO;
  const double theta = 0.5 * (lmax + lmin), delta = 0.5 * (lmax - lmin);
  const double sigma = theta / delta;
  double rho = 1.0 / sigma;
  c->degree = degree;
  c->inv_theta = 1.0 / theta;
  for (int j = 0; j < degree; j++) {
    const double rn = 1.0 / (2.0 * sigma - rho);
    c->c1[j] = rn * rho;
    c->c2[j] = 2.0 * rn / delta;
    rho = rn;
  }
}
