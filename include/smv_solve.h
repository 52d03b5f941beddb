/*
 * smv_solve.h — iterative solvers on top of smv's SpMV: conjugate
 * gradients (CG) and BiCGStab for A x = b, and PageRank, on the CPU
 * (OpenMP, bit-reproducible whatever the thread count) and on a CUDA
 * device (the iteration captured in a CUDA graph and replayed, vector
 * operations fused, reductions deterministic). docs/solvers.md has the
 * algorithms, the kernels and the measurements.
 *
 * Conventions are smv.h's: every function returns smv_status (SMV_OK = 0,
 * errors negative); the CPU functions fill an smv_error (may be NULL) with
 * the reason, the CUDA functions leave it in smv_context_error(ctx).
 * Failing to converge is not an error: the call returns SMV_OK with
 * result.converged = 0.
 *
 * Stopping: CG and BiCGStab stop when the relative residual of the
 * recurrence, ||r_k||_2 / ||b||_2, is <= tol, or after maxit iterations.
 * b = 0 gives x = 0 at once (converged, 0 iterations). In f32, converged
 * also needs the true residual, recomputed in double, to meet tol
 * (precision_limited says when only the recurrence did). b is scaled by a
 * power of two internally, so b of any finite magnitude (1e-200, 1e160)
 * works. x and b must not overlap (SMV_ERR_ARG), and a non-finite entry
 * of A or b is SMV_ERR_ARG naming it. CG stops with breakdown when p.Ap
 * or r.z is <= 0: A (or the preconditioner) is not positive definite. PageRank
 * stops when the change of the rank vector, ||r_k - r_(k-1)||_1 (the vector
 * sums to 1), is <= tol.
 *
 * Precision: the f64 functions work in double throughout. The f32 ones keep
 * the matrix values and every vector in float (SpMV accumulates in float,
 * as smv_spmv_cpu_f32 and smv_matrix_create(SMV_F32) do) but accumulate
 * dot products and norms in double, so only the vectors' rounding is
 * float's.
 */
#ifndef SMV_SOLVE_H
#define SMV_SOLVE_H

#include "smv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SMV_PRECOND_NONE = 0,     /* plain CG / BiCGStab                       */
  SMV_PRECOND_JACOBI = 1,   /* M = diag(A): every diagonal entry must
                               exist and be nonzero (SMV_ERR_ARG names
                               the row)                                  */
  SMV_PRECOND_CHEBYSHEV = 2 /* CG only: M^-1 = p(D^-1 A) D^-1, p the
                               Chebyshev polynomial of degree cheb_degree
                               that approximates 1/t on [lmax / 30, lmax],
                               lmax the Gershgorin bound of D^-1 A (D =
                               diag(A), nonzero as for Jacobi). Products
                               with A only (cheb_degree SpMVs per
                               application), no triangular solves; SPD
                               whenever A is.                            */
} smv_precond;

typedef enum {
  SMV_METHOD_CG = 0,       /* A symmetric positive definite              */
  SMV_METHOD_BICGSTAB = 1, /* any square nonsingular A                   */
  SMV_METHOD_PAGERANK = 2  /* power iteration (smv_pagerank)              */
} smv_method;

/* Called every progress_every iterations (on the device: at the first
 * convergence check at or past each multiple) with the iteration count and
 * the current relative residual. */
typedef void (*smv_solve_progress_fn)(void *user, int iteration, double relres);

typedef struct {
  double tol;          /* stopping threshold (default 1e-8)              */
  int maxit;           /* iteration limit (default 1000)                 */
  smv_precond precond; /* default SMV_PRECOND_NONE                       */
  int use_x0;          /* 0 (default): start from x = 0, x is only
                          written; 1: x holds the initial guess           */
  /* Residual history (optional): history[k] = relative residual after k
   * iterations (history[0]: the start), for k < history_len. */
  double *history;
  int history_len;
  smv_solve_progress_fn progress; /* may be NULL                        */
  void *progress_user;
  int progress_every; /* default 0 = never                              */
  /* CUDA only. */
  smv_alg alg;     /* SpMV rung (default SMV_ALG_AUTO)                   */
  int check_every; /* iterations per graph replay, i.e. between two host
                      convergence checks (default 0 = 8)                 */
  int use_graph;   /* 1 (default): replay a captured graph; 0: launch
                      every kernel each iteration (for comparison)       */
  int persistent;  /* CG: 0 (default) the persistent cooperative kernel
                      (whole iterations in one launch, stopping decided
                      on the device) when the matrix and vectors fit the
                      L2, the rung is AUTO and the device can launch
                      cooperatively, else the graph path; 1: the
                      persistent kernel whatever the size; -1: never.
                      A cooperative launch the device refuses (MPS, too
                      many blocks) falls back to the graph path.        */
  int cheb_degree; /* SMV_PRECOND_CHEBYSHEV: the polynomial's degree, 0..16
                      (default 0 = 2)                                   */
  /* PageRank only. */
  double damping; /* probability of following a link (default 0.85)    */
  const double *personalization; /* NULL = uniform teleport; else n
                                    entries >= 0, not all 0, normalised
                                    to sum 1 by the library            */
} smv_solve_options;

/* The defaults listed above (tol 1e-8, maxit 1000, no preconditioner,
 * x0 = 0, no history, no progress, AUTO rung, check every 8, graph on,
 * damping 0.85, uniform teleport). NULL-safe. */
void smv_solve_options_init(smv_solve_options *o);

/* smv_solve_result.persistent: the persistent cooperative kernel that ran
 * a device solve's iterations (nonzero: one did). */
typedef enum {
  SMV_PERSISTENT_NONE = 0,        /* the graph path (or the CPU)          */
  SMV_PERSISTENT_CG1 = 1,         /* CG, one grid barrier an iteration
                                     (Chronopoulos–Gear; the default where
                                     the resident kernel's slices do not
                                     fit)                                 */
  SMV_PERSISTENT_CG2 = 2,         /* CG, two grid barriers an iteration   */
  SMV_PERSISTENT_BICGSTAB = 3,    /* BiCGStab                             */
  SMV_PERSISTENT_CG_RESIDENT = 4, /* CG1's recurrence with each block's
                                     slice of the matrix and vectors in
                                     shared memory
                                     (SMV_SOLVE_COOP_VARIANT=res)        */
  SMV_PERSISTENT_CG_PR = 5        /* the same resident kernel with the
                                     predict-and-recompute recurrence (s
                                     = A p computed, iteration counts of
                                     textbook CG): the default CG where
                                     the slices fit                      */
} smv_persistent_kernel;

typedef struct {
  int iterations;        /* completed iterations                            */
  double relres;         /* final ||r||/||b|| of the recurrence (PageRank:
                            the last change, L1)                           */
  int converged;         /* relres <= tol within maxit                      */
  int breakdown;         /* a zero (or non-finite) denominator stopped the
                            method: rho or p.Ap (CG), rho, rhat.v or omega
                            (BiCGStab); converged is 0                      */
  int history_count;     /* entries written to options.history              */
  int graph_used;        /* CUDA: iterations ran as CUDA-graph replays      */
  int checks;            /* CUDA: host convergence checks (each one small
                            device-to-host copy)                           */
  int persistent;        /* CUDA: 0, or which persistent kernel ran the
                            iterations (smv_persistent_kernel)           */
  int precision_limited; /* f32: the recurrence met tol but the true
                        residual ||b - A x|| / ||b||, recomputed in
                        double, did not: tol is below what float
                        vectors reach. converged is then 0.            */
  double seconds;        /* wall time of the iterations (set-up excluded)   */
} smv_solve_result;

/* ---- CPU ------------------------------------------------------------------
 * A square; b and x have A->rows entries. opt may be NULL (defaults);
 * res may be NULL. Deterministic: the same bits for any OMP_NUM_THREADS
 * (rows are summed in order by one thread, dot products over fixed chunks
 * of 2048 entries added in chunk order). smv_solve_cpu_fn and _f32_fn: the
 * Krylov solvers' signature in double and in float (function types; a
 * pointer to one is smv_solve_cpu_fn *). */
typedef smv_status smv_solve_cpu_fn(const smv_csr *A, const double *b,
                                    double *x, const smv_solve_options *opt,
                                    smv_solve_result *res, smv_error *err);
typedef smv_status smv_solve_cpu_f32_fn(const smv_csr *A, const float *b,
                                        float *x, const smv_solve_options *opt,
                                        smv_solve_result *res, smv_error *err);
/* CG (A symmetric positive definite) and BiCGStab (any square nonsingular
 * A), in double and in float (_f32), e.g. smv_cg(A, b, x, &opt, &res, &err). */
smv_solve_cpu_fn smv_cg, smv_bicgstab;
smv_solve_cpu_f32_fn smv_cg_f32, smv_bicgstab_f32;

/* PageRank of the graph whose links are i -> j for every stored A(i,j) !=
 * 0, weighted by A(i,j) (pattern matrices: weight 1; negative weights are
 * SMV_ERR_ARG). With d = damping, v = the teleport vector (uniform 1/n or
 * the normalised personalization), out_i = sum_j A(i,j) and the dangling
 * rows D = { i : out_i = 0 }, one step is
 *
 *   r'_j = d * sum_i r_i A(i,j) / out_i  +  d * (sum_{i in D} r_i) / n
 *          + (1 - d) * v_j
 *
 * i.e. a dangling row's mass is spread uniformly over all n nodes, and r
 * stays a probability vector (sum 1). Starts from r = v; r (n entries) is
 * written. This is networkx's pagerank with dangling=uniform and the
 * matrix as the weighted adjacency matrix. */
smv_status smv_pagerank(const smv_csr *A, double *r,
                        const smv_solve_options *opt, smv_solve_result *res,
                        smv_error *err);
smv_status smv_pagerank_f32(const smv_csr *A, float *r,
                            const smv_solve_options *opt, smv_solve_result *res,
                            smv_error *err);

/* ---- CUDA ---------------------------------------------------------------
 * On device pointers of dA's precision (double* or float*), on the
 * context's stream; the call returns when the solve is over. The iteration
 * (SpMV through smv_spmv with opt->alg, plus three fused vector kernels for
 * CG, four for BiCGStab) is captured once into a CUDA graph of
 * check_every iterations and replayed; after each replay one small
 * device-to-host copy says whether to stop. Iterations past convergence
 * inside the last replay change nothing. Reductions are block partials
 * summed in a fixed order: the same bits on every run on one device.
 * SMV_ERR_NO_DEVICE when built without CUDA.
 *
 * Memory: the work vectors, state, partial sums and history are one
 * device buffer (with a 64-byte pinned status block) kept in the context,
 * grown when a solve needs more and freed by smv_context_free, so calls
 * on one context must not overlap (one thread at a time). It holds k
 * vectors of n entries (each rounded up to 256 bytes): k = 3 for CG (5
 * with Jacobi, 7 with Chebyshev; 7 or 8 on the persistent kernel), 6 for
 * BiCGStab (9 with Jacobi; 8 or 11 persistent), 1 for PageRank; plus a
 * few KB of state and partials and min(history_len, maxit + 1) doubles
 * (docs/solvers.md). CG's resident persistent kernel also keeps its last
 * plan in the context: 8 bytes an entry of the matrix (its columns'
 * renumbering and halo) and 12 bytes a block of its grid, until a solve
 * with another matrix or shape replaces it or smv_context_free.
 *
 * dA is the caller's matrix: a solver runs up to maxit SpMVs on it (two
 * an iteration for BiCGStab), so declare reuse when creating it
 * (smv_matrix_create_ex with SMV_MATRIX_REUSE, or expected_calls = those
 * SpMVs): AUTO's rung is then planned by measurement among the reuse
 * plan's short list, compressed storage included (include/smv.h). The
 * reuse plan is still AUTO, so the persistent CG (opt->persistent) is not
 * refused for it; that kernel does its own SpMV of the CSR arrays, and
 * the planned rung runs on the graph path. smv solve and
 * smv_pagerank_cuda (which builds its own matrix) declare reuse
 * themselves. */
smv_status smv_cg_cuda(smv_context *ctx, smv_matrix *dA, const void *b, void *x,
                       const smv_solve_options *opt, smv_solve_result *res);
smv_status smv_bicgstab_cuda(smv_context *ctx, smv_matrix *dA, const void *b,
                             void *x, const smv_solve_options *opt,
                             smv_solve_result *res);
/* PageRank of a host matrix on the device in precision prec (the weighted
 * transposed transition matrix is built on the host and uploaded); r is a
 * host vector of A->rows doubles. */
smv_status smv_pagerank_cuda(smv_context *ctx, const smv_csr *A,
                             smv_precision prec, double *r,
                             const smv_solve_options *opt,
                             smv_solve_result *res);
/* Convenience on host vectors (double whatever dA's precision): copies b
 * (and x when opt->use_x0) in, solves with `method` (CG or BiCGStab),
 * copies x out. */
smv_status smv_solve_cuda_host(smv_context *ctx, smv_matrix *dA,
                               smv_method method, const double *b, double *x,
                               const smv_solve_options *opt,
                               smv_solve_result *res);

#ifdef __cplusplus
}
#endif
#endif /* SMV_SOLVE_H */
