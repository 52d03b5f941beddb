/*
 * solve_smv.c — times smv's solvers (smv_solve.h) for the solvers report
 * (bench/results/<device>/solvers.md), on the device or the CPU.
 *
 *   solve_smv MATRIX [--method cg|bicgstab|pagerank] [--precond none|jacobi]
 *             [--backend cuda|cpu] [--precision f64|f32] [--tol T]
 *             [--maxit N] [--runs R] [--fixed N] [--graph 0|1]
 *             [--check-every K] [--persistent -1|0|1] [--pattern]
 *
 * --persistent: smv_solve_options.persistent (CG: 0 = the persistent
 * kernel when the matrix fits the L2, 1 = always, -1 = the graph path).
 * The line's impl is smv-cuda, smv-cuda-graphpath (persistent -1) or
 * smv-cuda-graphpath-nograph (plain launches); persistent= says which path
 * ran (0 the graph path, else smv_persistent_kernel's value: 4 the resident
 * CG, 5 the resident CG with the pr recurrence, 1 cg1, 2 cg2, 3 BiCGStab).
 *
 * CG / BiCGStab: b = A * ones, x0 = 0; the matrix is uploaded once
 * (smv_matrix_create, outside the timing) and b and x stay on the device;
 * each timed call is one smv_cg_cuda / smv_bicgstab_cuda (work vectors,
 * graph capture and every convergence check included). PageRank: one
 * smv_pagerank_cuda call (host transposition and upload included: wall_ms)
 * and its iterations alone (tts_ms). Median of R runs after one warm-up.
 * fixed_iter_us: N iterations with tol = 0, per iteration. The answer is
 * checked: the true residual ||b - A x|| / ||b|| (recomputed in double on
 * the host) must be <= 10 tol (f64) or 1e-3 (f32); PageRank on the device
 * must match the CPU's to 1e-9 (f64). Prints one "RESULT key=value ..."
 * line with check=PASS or check=FAIL.
 */
#define _POSIX_C_SOURCE 200809L
#include "smv_solve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "timing.h"

static void die(const char *what, smv_status st, const char *why) {
  fprintf(stderr, "solve_smv: %s: %s: %s\n", what, smv_status_string(st),
          why ? why : "");
  exit(1);
}

int main(int argc, char **argv) {
  const char *matrix = NULL, *method = "cg", *backend = "cuda", *prec = "f64";
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.maxit = 20000;
  int runs = 5, fixed = 1000, pattern = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--method") && v)
      method = v, i++;
    else if (!strcmp(a, "--precond") && v)
      o.precond = strcmp(v, "jacobi") ? SMV_PRECOND_NONE : SMV_PRECOND_JACOBI,
      i++;
    else if (!strcmp(a, "--backend") && v)
      backend = v, i++;
    else if (!strcmp(a, "--precision") && v)
      prec = v, i++;
    else if (!strcmp(a, "--tol") && v)
      o.tol = atof(v), i++;
    else if (!strcmp(a, "--maxit") && v)
      o.maxit = atoi(v), i++;
    else if (!strcmp(a, "--runs") && v)
      runs = atoi(v), i++;
    else if (!strcmp(a, "--fixed") && v)
      fixed = atoi(v), i++;
    else if (!strcmp(a, "--graph") && v)
      o.use_graph = atoi(v), i++;
    else if (!strcmp(a, "--persistent") && v)
      o.persistent = atoi(v), i++;
    else if (!strcmp(a, "--check-every") && v)
      o.check_every = atoi(v), i++;
    else if (!strcmp(a, "--pattern"))
      pattern = 1;
    else if (a[0] != '-' && !matrix)
      matrix = a;
    else {
      fprintf(stderr,
              "solve_smv: bad argument '%s' (see the file's "
              "comment)\n",
              a);
      return 2;
    }
  }
  if (!matrix || runs < 1 || runs > 100)
    return fprintf(stderr, "usage: solve_smv MATRIX [options]\n"), 2;
  const int pr = !strcmp(method, "pagerank"), bi = !strcmp(method, "bicgstab");
  const int cuda = !strcmp(backend, "cuda"), f32 = !strcmp(prec, "f32");
  if (pr && o.tol == 1e-8)
    o.tol = 1e-10;
  smv_csr *A = NULL;
  smv_error err;
  smv_status st = smv_load(matrix, NULL, &A, &err);
  if (st != SMV_OK)
    die(matrix, st, err.message);
  if (pattern)
    for (int64_t k = 0; k < A->nnz; k++)
      A->values[k] = 1.0;
  const int64_t n = A->rows;
  double *b = malloc(n * sizeof *b), *x = malloc(n * sizeof *x);
  double *ax = malloc(n * sizeof *ax), *xc = malloc(n * sizeof *xc);
  float *bf = malloc(n * sizeof *bf), *xf = malloc(n * sizeof *xf);
  for (int64_t i = 0; i < n; i++)
    x[i] = 1.0;
  smv_spmv_ref(A, 1.0, x, 0.0, b);
  for (int64_t i = 0; i < n; i++)
    bf[i] = (float)b[i];
  smv_context *ctx = NULL;
  smv_matrix *dA = NULL;
  void *db = NULL, *dx = NULL;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  char devname[256] = "cpu";
  if (cuda) {
    if ((st = smv_context_create(0, &ctx)) != SMV_OK)
      die("context", st, smv_context_error(NULL));
    smv_device_props p;
    smv_device_props_get(ctx, &p);
    snprintf(devname, sizeof devname, "%s", p.name);
    if (!pr) {
      if ((st = smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA)) ||
          (st = smv_device_malloc(ctx, n * es, &db)) ||
          (st = smv_device_malloc(ctx, n * es, &dx)) ||
          (st = smv_memcpy_h2d(ctx, db, f32 ? (void *)bf : (void *)b, n * es)))
        die("upload", st, smv_context_error(ctx));
    }
  }
  smv_solve_result res;
  double t[100], its_t[100];
  /* One solve: returns its status; res filled. */
#define SOLVE(opts)                                                            \
  (cuda  ? (pr   ? smv_pagerank_cuda(ctx, A, f32 ? SMV_F32 : SMV_F64, x, opts, \
                                     &res)                                     \
            : bi ? smv_bicgstab_cuda(ctx, dA, db, dx, opts, &res)              \
                 : smv_cg_cuda(ctx, dA, db, dx, opts, &res))                   \
   : f32 ? (pr   ? smv_pagerank_f32(A, xf, opts, &res, &err)                   \
            : bi ? smv_bicgstab_f32(A, bf, xf, opts, &res, &err)               \
                 : smv_cg_f32(A, bf, xf, opts, &res, &err))                    \
         : (pr   ? smv_pagerank(A, x, opts, &res, &err)                        \
            : bi ? smv_bicgstab(A, b, x, opts, &res, &err)                     \
                 : smv_cg(A, b, x, opts, &res, &err)))
  for (int k = -1; k < runs; k++) {
    double t0 = now_s();
    st = SOLVE(&o);
    double t1 = now_s();
    if (st != SMV_OK)
      die("solve", st, cuda ? smv_context_error(ctx) : err.message);
    if (k >= 0)
      t[k] = t1 - t0, its_t[k] = res.seconds;
  }
  const smv_solve_result final = res;
  qsort(t, runs, sizeof t[0], cmp_d);
  qsort(its_t, runs, sizeof its_t[0], cmp_d);
  /* The answer, in double on the host. */
  if (cuda && !pr &&
      (st = smv_memcpy_d2h(ctx, f32 ? (void *)xf : (void *)x, dx, n * es)))
    die("download", st, smv_context_error(ctx));
  if (f32 && !(cuda && pr))
    for (int64_t i = 0; i < n; i++)
      x[i] = xf[i];
  double check_val = 0.0;
  int pass;
  if (pr) {
    /* Against the CPU in double. */
    smv_solve_options oc = o;
    oc.tol = 1e-13;
    if ((st = smv_pagerank(A, xc, &oc, NULL, &err)) != SMV_OK)
      die("cpu pagerank", st, err.message);
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
      check_val = fmax(check_val, fabs(x[i] - xc[i])), s += x[i];
    pass = final.converged && check_val <= (f32 ? 1e-5 : 1e-9) &&
           fabs(s - 1.0) < (f32 ? 1e-3 : 1e-9);
  } else {
    smv_spmv_ref(A, 1.0, x, 0.0, ax);
    double rr = 0.0, bb = 0.0;
    for (int64_t i = 0; i < n; i++)
      rr += (b[i] - ax[i]) * (b[i] - ax[i]), bb += b[i] * b[i];
    check_val = sqrt(rr / bb);
    pass = final.converged && check_val <= (f32 ? 1e-3 : 10 * o.tol);
  }
  /* Fixed iteration count: tol = 0. */
  double fixed_us = 0.0;
  if (fixed > 0) {
    smv_solve_options of = o;
    of.tol = 0.0;
    of.maxit = fixed;
    double tf[100];
    int fits = 0;
    for (int k = 0; k < runs; k++) {
      double t0 = now_s();
      st = SOLVE(&of);
      tf[k] = now_s() - t0;
      if (st != SMV_OK)
        die("fixed solve", st, cuda ? smv_context_error(ctx) : err.message);
      fits = res.iterations;
    }
    qsort(tf, runs, sizeof tf[0], cmp_d);
    fixed_us = fits ? tf[runs / 2] * 1e6 / fits : 0.0;
    if (fits != fixed)
      fprintf(stderr,
              "solve_smv: fixed run stopped after %d iterations "
              "(breakdown %d)\n",
              fits, res.breakdown);
  }
  printf("RESULT impl=smv-%s%s%s matrix=%s method=%s precond=%s prec=%s "
         "n=%lld nnz=%lld its=%d converged=%d relres=%.3e %s=%.3e tts_ms=%.4f "
         "iter_us=%.3f fixed_iter_us=%.3f wall_ms=%.4f graph=%d "
         "persistent=%d checks=%d check=%s device=\"%s\"\n",
         cuda ? "cuda" : "cpu", cuda && o.persistent < 0 ? "-graphpath" : "",
         cuda && !o.use_graph ? "-nograph" : "", matrix, method,
         o.precond ? "jacobi" : "none", prec, (long long)n, (long long)A->nnz,
         final.iterations, final.converged, final.relres,
         pr ? "maxdiff_cpu" : "true", check_val, its_t[runs / 2] * 1e3,
         final.iterations ? its_t[runs / 2] * 1e6 / final.iterations : 0.0,
         fixed_us, t[runs / 2] * 1e3, final.graph_used, final.persistent,
         final.checks, pass ? "PASS" : "FAIL", devname);
  smv_device_free(ctx, db);
  smv_device_free(ctx, dx);
  smv_matrix_free(dA);
  smv_context_free(ctx);
  smv_csr_free(A);
  free(b), free(x), free(ax), free(xc), free(bf), free(xf);
  return pass ? 0 : 3;
}
