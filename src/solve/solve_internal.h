/*
 * solve_internal.h — what the CPU solvers (solve_cpu.c) and the CUDA
 * solvers (src/cuda/solve/solve.cu) share: option checking, the Jacobi diagonal
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

/* Host matrix checks shared by every solver: not NULL, valid CSR
 * (smv_csr_check), square (SMV_ERR_DIM). `who` names the function. */
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
