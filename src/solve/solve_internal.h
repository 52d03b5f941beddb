/*
 * solve_internal.h — what the CPU solvers (solve_cpu.c) and the CUDA
 * solvers (src/cuda/solve/) share: option checking, the Jacobi diagonal
 * and PageRank's transition matrix. Not installed.
 */
#ifndef SMV_SOLVE_INTERNAL_H
#define SMV_SOLVE_INTERNAL_H

#include "internal.h"
#include "smv_solve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copy *in (or the defaults when in is NULL) into *out and check it:
 * SMV_ERR_ARG with the reason in why[0..n) for a tol that is negative or
 * not finite, a negative maxit / history_len / progress_every /
 * check_every, history_len > 0 with a NULL history, damping outside
 * [0, 1). */
smv_status smv_solve_opts_check(const smv_solve_options *in,
                                smv_solve_options *out, char *why, size_t n);

/* Whether [a, a + bytes) and [b, b + bytes) overlap: aliased b and x
 * are refused (SMV_ERR_ARG), as smv_spmv refuses aliased x and y. */
int smv_solve_overlap(const void *a, const void *b, size_t bytes);

/* The power of two b is multiplied by before a Krylov solve (and x
 * divided by after it), given bmax = max |b_i|: 1 while bmax lies in
 * [2^-300, 2^300], so ||b||^2 (n * bmax^2 at most) and the residuals
 * tol^2 below it stay normal doubles; else 2^-e with bmax = m 2^e, which
 * brings bmax into [1/2, 1). Exact: only exponents change. */
double smv_solve_rhs_scale(double bmax);

/* f32 solves: when res->converged, rr = ||b - A x||^2 and bb = ||b||^2
 * (recomputed in double) must meet tol too; else converged = 0 and
 * precision_limited = 1. */
void smv_solve_true_check(smv_solve_result *res, double rr, double bb,
                          double tol);

/* Chebyshev preconditioning (SMV_PRECOND_CHEBYSHEV): the polynomial's
 * interval is [lmax / SMV_CHEB_RATIO, lmax]; at most SMV_CHEB_MAX steps
 * after the first. */
#define SMV_CHEB_RATIO 30.0
#define SMV_CHEB_MAX 16
typedef struct {
  int degree;       /* SpMVs per application                   */
  double inv_theta; /* first step: d = D^-1 r / theta            */
  double c1[SMV_CHEB_MAX], c2[SMV_CHEB_MAX]; /* step j: d = c1 d +
                       c2 D^-1 (r - A z), z += d                */
} smv_cheb;
/* Gershgorin's bound of D^-1 A's eigenvalues: max_i sum_j |a_ij| / |a_ii|
 * over the rows with a nonzero diagonal (the caller has checked it). */
double smv_solve_cheb_lmax(const smv_csr *A);
/* The step coefficients for lmax and degree (CPU and GPU use these). */
void smv_solve_cheb_coeffs(double lmax, int degree, smv_cheb *c);

/* Host matrix checks shared by every solver: not NULL, valid CSR
 * (smv_csr_check), square (SMV_ERR_DIM), every value finite (SMV_ERR_ARG
 * naming the entry). `who` names the function. */
smv_status smv_solve_check_matrix(const smv_csr *A, const char *who,
                                  smv_error *err);

/* dinv[i] = 1 / A(i,i); SMV_ERR_ARG naming the first row whose diagonal
 * entry is missing, zero or not finite. */
smv_status smv_solve_jacobi(const smv_csr *A, double *dinv, smv_error *err);

/* PageRank's ingredients (see smv_pagerank in smv_solve.h), n = A->rows:
 *   *PT  the transposed transition matrix, PT(j,i) = A(i,j) / out_i, so
 *        that one step's link term is the SpMV PT * r (rows in column
 *        order, columns sorted: built by a counting sort, deterministic);
 *   v    the teleport vector (n entries, sums to 1);
 *   *dangling / *ndangling: the rows with out_i = 0, ascending.
 * Negative weights and a personalization that is negative, not finite or
 * all zero are SMV_ERR_ARG. Free *PT with smv_csr_free, *dangling with
 * free. */
smv_status smv_pagerank_setup(const smv_csr *A, const smv_solve_options *o,
                              smv_csr **PT, double *v, int32_t **dangling,
                              int64_t *ndangling, smv_error *err);

#ifdef __cplusplus
}
#endif
#endif
