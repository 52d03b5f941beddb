/* solve_cpu.c — CG, BiCGStab and PageRank on the CPU (smv_solve.h): the
 * argument checks and the f64 / f32 entry points around the iteration
 * bodies in solve_cpu_body.h. */
#include "solve_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Dot products are sums of per-chunk partials added in chunk order: the
 * chunk, not the thread, is the unit, so the result is the same for every
 * thread count. 2048 entries keep a chunk's vectors in L1/L2. */
#define SOLVE_CHUNK 2048
/* Below 32 chunks (65536 entries) a loop runs on one thread: a parallel
 * region's fork and barrier cost more than the work (and much more on a
 * busy machine, where sleeping threads take tens of microseconds to wake:
 * an axpy of 64K doubles is about that). The chunks, hence the bits, are
 * the same either way. */
#define SOLVE_PAR_CHUNKS 32

static int64_t nchunks(int64_t n) {
  return (n + SOLVE_CHUNK - 1) / SOLVE_CHUNK;
}
static int64_t chunk_end(int64_t c, int64_t n) {
  int64_t e = (c + 1) * SOLVE_CHUNK;
  return e < n ? e : n;
}
/* part[c * stride + off] for c = 0..nc-1, in order. */
static double sum_parts(const double *part, int64_t nc, int stride, int off) {
  double s = 0.0;
  for (int64_t c = 0; c < nc; c++)
    s += part[c * stride + off];
  return s;
}

/* History, progress callback and the result's counters for iteration k. */
static void record(const smv_solve_options *o, smv_solve_result *res, int k,
                   double relres) {
  res->iterations = k;
  res->relres = relres;
  if (k < o->history_len) {
    o->history[k] = relres;
    res->history_count = k + 1;
  }
  if (o->progress && o->progress_every > 0 && k > 0 &&
      k % o->progress_every == 0)
    o->progress(o->progress_user, k, relres);
}

/* A solver's work vectors (`count` of n entries) could not all be had. */
static smv_status no_vectors(const char *who, int count, int64_t n,
                             smv_error *err) {
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                     "%s: out of memory for %d vectors of %lld entries", who,
                     count, (long long)n);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define REAL double
#define SFX f64
#include "solve_cpu_body.h"
#undef REAL
#undef SFX
#define REAL float
#define SFX f32
#include "solve_cpu_body.h"
#undef REAL
#undef SFX

/* f32: converged only if ||b - A x|| / ||b||, recomputed in double with
 * A's double values (what `smv solve` prints), meets tol too. */
static void true_check_f32(const smv_csr *A, const float *b, const float *x,
                           double tol, smv_solve_result *res) {
  double rr = 0.0, bb = 0.0;
  for (int64_t i = 0; i < A->rows; i++) {
    double s = 0.0;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      s += A->values[k] * (double)x[A->col_idx[k]];
    const double d = (double)b[i] - s;
    rr += d * d;
    bb += (double)b[i] * (double)b[i];
  }
  smv_solve_true_check(res, rr, bb, tol);
}

typedef enum { RUN_CG, RUN_BICGSTAB, RUN_PAGERANK } run_kind;
static const char *const run_name[] = {"cg", "bicgstab", "pagerank"};

/* Everything the entry points share: checks, the Jacobi diagonal or
 * PageRank's transition matrix, float values for f32, timing. Exactly one
 * of (b64, x64) and (b32, x32) is set; b is NULL for PageRank. */
static smv_status solve_cpu(run_kind kind, const smv_csr *A, const double *b64,
                            double *x64, const float *b32, float *x32,
                            const smv_solve_options *opt,
                            smv_solve_result *res_out, smv_error *err) {
  smv_err_clear(err);
  smv_solve_result res;
  memset(&res, 0, sizeof res);
  if (res_out)
    memset(res_out, 0, sizeof *res_out);
  const char *who = run_name[kind];
  smv_solve_options o;
  char why[160];
  smv_status st = smv_solve_opts_check(opt, &o, why, sizeof why);
  if (st != SMV_OK)
    return smv_err_set(err, st, NULL, 0, "%s: %s", who, why);
  st = smv_solve_check_matrix(A, who, err);
  if (st != SMV_OK)
    return st;
  const int f32 = x32 != NULL;
  const int64_t n = A->rows;
  if ((kind != RUN_PAGERANK && n > 0 && !(f32 ? (void *)b32 : (void *)b64)) ||
      (n > 0 && !(f32 ? (void *)x32 : (void *)x64)))
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: NULL vector", who);
  /* x is written from the start while b is still read: aliasing is
   * refused, as smv_spmv refuses aliased x and y. */
  if (kind != RUN_PAGERANK && n > 0 &&
      (f32 ? smv_solve_overlap(b32, x32, (size_t)n * sizeof *b32)
           : smv_solve_overlap(b64, x64, (size_t)n * sizeof *b64)))
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "%s: b and x overlap (x must be a separate array)", who);
  double bmax = 0.0;
  for (int64_t i = 0; kind != RUN_PAGERANK && i < n; i++) {
    const double bi = f32 ? (double)b32[i] : b64[i];
    if (!isfinite(bi))
      return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "%s: b[%lld] is not finite",
                         who, (long long)i);
    bmax = fmax(bmax, fabs(bi));
  }
  /* b of 1e-200 or 1e160: solve for b * bscale (exact), then divide x. */
  const double bscale = smv_solve_rhs_scale(bmax);
  if (n == 0) {
    record(&o, &res, 0, 0.0);
    res.converged = 1;
    goto done;
  }

  double *dinv = NULL, *v = NULL, *bs64 = NULL;
  int32_t *dl = NULL;
  int64_t nd = 0;
  smv_csr *PT = NULL;
  float *vals32 = NULL;
  const smv_csr *M = A;
  if (kind == RUN_BICGSTAB && o.precond == SMV_PRECOND_CHEBYSHEV) {
    st = smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                     "%s: Chebyshev preconditioning is for CG (its "
                     "polynomial needs A's eigenvalues real and positive)",
                     who);
    goto cleanup;
  }
  smv_cheb cheb;
  const smv_cheb *chp = NULL;
  if (kind != RUN_PAGERANK && o.precond != SMV_PRECOND_NONE) {
    dinv = malloc((size_t)n * sizeof *dinv);
    if (!dinv) {
      st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0, "%s: out of memory", who);
      goto cleanup;
    }
    st = smv_solve_jacobi(A, dinv, err);
    if (st != SMV_OK) {
      smv_err_set(err, st, NULL, 0, "%s: %s", who, err ? err->message : "");
      goto cleanup;
    }
    if (o.precond == SMV_PRECOND_CHEBYSHEV) {
      smv_solve_cheb_coeffs(smv_solve_cheb_lmax(A), o.cheb_degree, &cheb);
      chp = &cheb;
    }
  }
  if (kind == RUN_PAGERANK) {
    v = malloc((size_t)n * sizeof *v);
    if (!v) {
      st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0, "%s: out of memory", who);
      goto cleanup;
    }
    st = smv_pagerank_setup(A, &o, &PT, v, &dl, &nd, err);
    if (st != SMV_OK)
      goto cleanup;
    M = PT;
  }
  if (f32) {
    vals32 = malloc(((size_t)M->nnz + 1) * sizeof *vals32);
    if (!vals32) {
      st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "%s: out of memory for %lld float values", who,
                       (long long)M->nnz);
      goto cleanup;
    }
    for (int64_t k = 0; k < M->nnz; k++)
      vals32[k] = (float)M->values[k];
  }
  const double *bb64 = b64;
  if (bscale != 1.0) { /* f64 only: float b lies within 2^+-300 */
    bs64 = malloc(((size_t)n + 1) * sizeof *bs64);
    if (!bs64) {
      st = smv_err_set(err, SMV_ERR_NOMEM, NULL, 0, "%s: out of memory", who);
      goto cleanup;
    }
    for (int64_t i = 0; i < n; i++)
      bs64[i] = b64[i] * bscale;
    for (int64_t i = 0; o.use_x0 && i < n; i++)
      x64[i] *= bscale;
    bb64 = bs64;
  }
  const double t0 = now_s();
  switch (kind) {
  case RUN_CG:
    st = f32 ? cg_run_f32(A, vals32, b32, x32, dinv, chp, &o, &res, err)
             : cg_run_f64(A, A->values, bb64, x64, dinv, chp, &o, &res, err);
    break;
  case RUN_BICGSTAB:
    st = f32 ? bicgstab_run_f32(A, vals32, b32, x32, dinv, &o, &res, err)
             : bicgstab_run_f64(A, A->values, bb64, x64, dinv, &o, &res, err);
    break;
  case RUN_PAGERANK:
    st = f32 ? pagerank_run_f32(PT, vals32, v, dl, nd, x32, &o, &res, err)
             : pagerank_run_f64(PT, PT->values, v, dl, nd, x64, &o, &res, err);
    break;
  }
  res.seconds = now_s() - t0;
  for (int64_t i = 0; bs64 && i < n; i++)
    x64[i] /= bscale;
  if (f32 && kind != RUN_PAGERANK && st == SMV_OK && res.converged)
    true_check_f32(A, b32, x32, o.tol, &res);
cleanup:
  free(bs64);
  free(dinv);
  free(v);
  free(dl);
  free(vals32);
  smv_csr_free(PT);
  if (st != SMV_OK)
    return st;
done:
  if (res_out)
    *res_out = res;
  return SMV_OK;
}

/* smv_NAME (double) and smv_NAME_f32 (float) for the Krylov method KIND:
 * the definitions behind smv_solve.h's smv_solve_cpu_fn and _f32_fn. */
#define KRYLOV_ENTRY_POINTS(name, kind)                                        \
  smv_status smv_##name(const smv_csr *A, const double *b, double *x,          \
                        const smv_solve_options *opt, smv_solve_result *res,   \
                        smv_error *err) {                                      \
    return solve_cpu(kind, A, b, x, NULL, NULL, opt, res, err);                \
  }                                                                            \
  smv_status smv_##name##_f32(const smv_csr *A, const float *b, float *x,      \
                              const smv_solve_options *opt,                    \
                              smv_solve_result *res, smv_error *err) {         \
    return solve_cpu(kind, A, NULL, NULL, b, x, opt, res, err);                \
  }
KRYLOV_ENTRY_POINTS(cg, RUN_CG)
KRYLOV_ENTRY_POINTS(bicgstab, RUN_BICGSTAB)

smv_status smv_pagerank(const smv_csr *A, double *r,
                        const smv_solve_options *opt, smv_solve_result *res,
                        smv_error *err) {
  return solve_cpu(RUN_PAGERANK, A, NULL, r, NULL, NULL, opt, res, err);
}
smv_status smv_pagerank_f32(const smv_csr *A, float *r,
                            const smv_solve_options *opt, smv_solve_result *res,
                            smv_error *err) {
  return solve_cpu(RUN_PAGERANK, A, NULL, NULL, NULL, r, opt, res, err);
}
