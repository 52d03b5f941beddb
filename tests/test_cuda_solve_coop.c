/*
 * test_cuda_solve_coop.c — the persistent cooperative CG (cg_coop.cu) and
 * its fallbacks, and the device solvers' hardening (issue 25 items 10 and
 * 12): iteration counts against the CPU's textbook CG within 1%, the true
 * residual, the same bits run to run, history and progress chunks; the
 * graph path taken when asked (persistent = -1), when SMV_SOLVE_COOP=0
 * says the device cannot, and when the cooperative launch itself is
 * refused (a grid past co-residency, SMV_SOLVE_COOP_GRID); breakdown on
 * matrices that are not SPD, on both paths; aliased b and x; b of 1e-200
 * and 1e160; NaN in the matrix; f32 tolerances below float's reach.
 * Every test that runs the persistent kernel runs for each of its
 * variants (SMV_SOLVE_COOP_VARIANT=cg2, two barriers an iteration; cg1,
 * one: cg_coop1.cu; res, cg1 with the slices resident; pr, res with the
 * predict-and-recompute recurrence), and test_shapes for each block size
 * and fewer blocks per SM (SMV_SOLVE_COOP_BLOCK, SMV_SOLVE_COOP_PER_SM).
 *
 * The persistent BiCGStab (bicgstab_coop.cu), the default: off with
 * SMV_SOLVE_COOP_BICGSTAB=0 (the graph path), then by default the
 * graph path's and the CPU's iteration counts within BiCGStab's slack,
 * 2 + 5% (lap2d, lap3d, a nonsymmetric convection-diffusion matrix; f64
 * and f32, Jacobi and none), the true residual, the same bits run to run
 * and across progress chunks, breakdown on a skew-symmetric matrix, and
 * the fallbacks.
 * The grid-wide sums both ways (SMV_SOLVE_COOP_SUM=all, the default, and
 * last) for cg2, cg1 and BiCGStab: the same iterations and bits.
 * SKIPs without a device.
 */
#include "test_cuda_common.h"

#include "smv_solve.h"
#include "test_solve_common.h"

#include <stdlib.h>

/* The persistent kernel's variant under test (SMV_SOLVE_COOP_VARIANT) and
 * the smv_solve_result.persistent it reports where it ran. */
static const char *variant = "cg2";
static int variant_id = SMV_PERSISTENT_CG2;
/* The resident kernel's recurrence under test in test_resident_slices,
 * _map and _plan_kept (run_resident: "res", then "pr", the default) and
 * what a solve that ran it reports. */
static const char *res_variant = "res";
static int res_id = SMV_PERSISTENT_CG_RESIDENT;

/* CG on the device through smv_solve_cuda_host with options o. */
static smv_status gpu_cg(smv_matrix *dA, const double *b, double *x,
                         const smv_solve_options *o, smv_solve_result *r) {
  return smv_solve_cuda_host(tc_context(), dA, SMV_METHOD_CG, b, x, o, r);
}

/* A generated matrix on the device (f64), b = A*ones and two x. */
typedef struct {
  smv_csr *A;
  smv_matrix *dA;
  double *b, *x, *x2;
  int64_t n;
} fixture;

static void fixture_close(fixture *F) {
  smv_matrix_free(F->dA);
  free(F->b), free(F->x), free(F->x2);
  smv_csr_free(F->A);
}

/* 1 when everything is there; else 0, with the failure recorded and
 * nothing left to free. */
static int fixture_open(fixture *F, const char *spec) {
  memset(F, 0, sizeof *F);
  F->A = tst_generate(spec);
  if (!F->A)
    return 0;
  F->n = F->A->rows;
  F->b = rhs_ones(F->A);
  F->x = malloc(F->n * sizeof *F->x);
  F->x2 = malloc(F->n * sizeof *F->x2);
  CHECK_OK(smv_matrix_create(tc_context(), F->A, SMV_F64, &F->dA));
  if (F->dA && F->x && F->x2)
    return 1;
  fixture_close(F);
  return 0;
}

/* The persistent solvers' options in these tests: tolerance tol, at most
 * 5000 iterations, preconditioner pc, the persistent path asked for. */
static void coop_options(smv_solve_options *o, double tol, smv_precond pc) {
  smv_solve_options_init(o);
  o->tol = tol;
  o->maxit = 5000;
  o->precond = pc;
  o->persistent = 1;
}

/* Persistent CG against the CPU: f64 and f32, none and Jacobi; twice for
 * the bits; history. (Progress chunks: test_auto_and_progress.) */
static void check_persistent(const char *name, const smv_csr *A, int f32,
                             smv_precond pc) {
  smv_context *ctx = tc_context();
  const int64_t n = A->rows;
  const double tol = f32 ? 1e-5 : 1e-10;
  double *b = rhs_ones(A), *x = malloc(n * sizeof *x);
  double *x2 = malloc(n * sizeof *x2), *xc = malloc(n * sizeof *xc);
  float *bf = malloc(n * sizeof *bf), *xf = malloc(n * sizeof *xf);
  double *hist = malloc(5001 * sizeof *hist);
  smv_matrix *dA = NULL;
  char what[160];
  snprintf(what, sizeof what, "%s %s %s %s", variant, name, f32 ? "f32" : "f64",
           pc ? "jacobi" : "none");
  CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
  if (!dA)
    goto out;
  smv_solve_options o;
  coop_options(&o, tol, pc);
  o.history = hist;
  o.history_len = 5001;
  smv_solve_result r, r2, rc;
  tc_fill_nan(x, n);
  smv_status st = gpu_cg(dA, b, x, &o, &r);
  CHECKF(st == SMV_OK, "%s: %s", what, smv_context_error(ctx));
  CHECKF(r.persistent == variant_id && !r.graph_used,
         "%s: persistent %d (want %d) graph %d", what, r.persistent, variant_id,
         r.graph_used);
  CHECKF(r.converged && !r.breakdown, "%s: converged %d after %d (%g)", what,
         r.converged, r.iterations, r.relres);
  CHECK_INT(r.history_count, r.iterations + 1);
  CHECK_NEAR(hist[r.iterations], r.relres, 0.0);
  CHECKF(hist[0] == 1.0 || fabs(hist[0] - 1.0) < 1e-12, "hist[0] %g", hist[0]);
  const double tr = true_relres(A, b, x);
  CHECKF(tr <= (f32 ? 1e-3 : 10 * tol), "%s: true residual %g", what, tr);
  o.history = NULL;
  o.history_len = 0;
  smv_error err;
  if (f32) {
    for (int64_t i = 0; i < n; i++)
      bf[i] = (float)b[i];
    CHECK_OK(smv_cg_f32(A, bf, xf, &o, &rc, &err));
  } else {
    CHECK_OK(smv_cg(A, b, xc, &o, &rc, &err));
  }
  CHECKF(within_1pct(r.iterations, rc.iterations),
         "%s: %d iterations on the device, %d textbook (CPU)", what,
         r.iterations, rc.iterations);
  /* The same bits again. */
  tc_fill_nan(x2, n);
  CHECK_OK(gpu_cg(dA, b, x2, &o, &r2));
  CHECK_INT(r2.iterations, r.iterations);
  CHECKF(memcmp(x, x2, n * sizeof *x) == 0, "%s: run-to-run bits", what);
  CHECK(memcmp(&r.relres, &r2.relres, sizeof r.relres) == 0);
out:
  smv_matrix_free(dA);
  free(b), free(x), free(x2), free(xc), free(bf), free(xf), free(hist);
}

static int progress_calls, progress_last;
static void on_progress(void *user, int it, double relres) {
  (void)user, (void)relres;
  progress_calls++;
  progress_last = it;
}

/* Row lengths 5, 7, 11, 27 and 81 entries: every LANES of the kernel
 * (4, 8, 16, 32). */
static void test_persistent_matches_cpu(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:60", "lap3d:16", "band", "stencil27:12",
                         "elastic3d:5"};
  for (int s = 0; s < 5; s++) {
    smv_csr *A = s == 2 ? spd_band(4000, 5) : tst_generate(specs[s]);
    if (!A)
      continue;
    for (int f32 = 0; f32 < 2; f32++)
      for (int pc = 0; pc < 2; pc++)
        check_persistent(specs[s], A, f32,
                         pc ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE);
    smv_csr_free(A);
  }
}

/* AUTO picks the persistent kernel on a small matrix; the progress
 * callback is called at each multiple (the kernel paused there); the
 * graph path and the persistent kernel agree on the iteration count
 * within 1%. */
static void test_auto_and_progress(void) {
  TC_NEED_DEVICE();
  fixture F;
  if (!fixture_open(&F, "lap2d:80"))
    return;
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = 1e-9;
  smv_solve_result r, rp, rg;
  CHECK_OK(gpu_cg(F.dA, F.b, F.x, &o, &r));
  CHECK(r.persistent && r.converged);
  CHECKF(r.checks <= 2, "%d host checks for one launch", r.checks);
  o.progress = on_progress;
  o.progress_every = 10;
  progress_calls = 0;
  CHECK_OK(gpu_cg(F.dA, F.b, F.x2, &o, &rp));
  CHECK(rp.persistent);
  CHECK_INT(rp.iterations, r.iterations);
  CHECKF(progress_calls == r.iterations / 10, "%d calls for %d iterations",
         progress_calls, r.iterations);
  CHECK(memcmp(F.x, F.x2, F.n * sizeof *F.x) == 0);
  o.progress = NULL;
  o.progress_every = 0;
  o.persistent = -1;
  CHECK_OK(gpu_cg(F.dA, F.b, F.x2, &o, &rg));
  CHECK(!rg.persistent && rg.graph_used && rg.converged);
  CHECKF(within_1pct(rg.iterations, r.iterations), "graph %d, persistent %d",
         rg.iterations, r.iterations);
  fixture_close(&F);
}

/* The fallbacks, each taken and giving the graph path's answer: the
 * device said to have no cooperative launch (SMV_SOLVE_COOP=0); the
 * cooperative launch refused at run time (a grid of 1,000,000 blocks
 * cannot be co-resident: cudaErrorCooperativeLaunchTooLarge, as under
 * MPS); a rung asked for by name. */
static void test_fallbacks(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  fixture F;
  if (!fixture_open(&F, "lap2d:50"))
    return;
  const size_t bytes = F.n * sizeof *F.x;
  double *xg = F.x2, *x = F.x;
  smv_solve_options o;
  smv_solve_options_init(&o);
  smv_solve_result rg, r;
  o.persistent = -1;
  CHECK_OK(gpu_cg(F.dA, F.b, xg, &o, &rg));
  CHECK(!rg.persistent && rg.graph_used && rg.converged);
  o.persistent = 1;
  setenv("SMV_SOLVE_COOP", "0", 1);
  CHECK_OK(gpu_cg(F.dA, F.b, x, &o, &r));
  unsetenv("SMV_SOLVE_COOP");
  CHECK(!r.persistent && r.graph_used && r.converged);
  CHECK_INT(r.iterations, rg.iterations);
  CHECK(memcmp(x, xg, bytes) == 0);
  setenv("SMV_SOLVE_COOP_GRID", "1000000", 1);
  smv_status st = gpu_cg(F.dA, F.b, x, &o, &r);
  unsetenv("SMV_SOLVE_COOP_GRID");
  CHECKF(st == SMV_OK, "refused launch: %s", smv_context_error(ctx));
  CHECKF(!r.persistent && r.graph_used && r.converged,
         "refused launch: persistent %d graph %d converged %d", r.persistent,
         r.graph_used, r.converged);
  CHECK_INT(r.iterations, rg.iterations);
  CHECK(memcmp(x, xg, bytes) == 0);
  /* The context still works after the refused launch. */
  CHECK_OK(gpu_cg(F.dA, F.b, x, &o, &r));
  CHECK(r.persistent && r.converged);
  o.alg = SMV_ALG_VECTOR_SHFL;
  CHECK_OK(gpu_cg(F.dA, F.b, x, &o, &r));
  CHECK(!r.persistent && r.graph_used && r.converged);
  fixture_close(&F);
}

/* -lap2d (negative definite) and diag:N (both signs): breakdown within a
 * few iterations on both paths, never maxit of nonsense or a hang. */
static void test_not_spd(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *Ms[2];
  if (!not_spd_pair(30, Ms))
    return;
  for (int m = 0; m < 2; m++) {
    smv_matrix *dA = NULL;
    CHECK_OK(smv_matrix_create(ctx, Ms[m], SMV_F64, &dA));
    double *b = rhs_ones(Ms[m]), *x = malloc(Ms[m]->rows * sizeof *x);
    for (int path = 0; dA && path < 2; path++) {
      smv_solve_options o;
      smv_solve_options_init(&o);
      o.persistent = path ? 1 : -1;
      o.maxit = 100000;
      smv_solve_result r;
      CHECK_OK(gpu_cg(dA, b, x, &o, &r));
      CHECKF(r.breakdown && !r.converged && r.iterations < 5,
             "%s, %s (%s): breakdown %d converged %d after %d",
             m ? "diag" : "-lap2d", path ? "persistent" : "graph", variant,
             r.breakdown, r.converged, r.iterations);
      CHECK((r.persistent != 0) == path);
    }
    free(b), free(x);
    smv_matrix_free(dA);
    smv_csr_free(Ms[m]);
  }
}

/* Issue 25 items 10 and 12 on the device. */
static void test_hardening(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap2d:40");
  if (!A)
    return;
  const int64_t n = A->rows;
  double *b1 = rhs_ones(A), *b = malloc(n * sizeof *b);
  double *x = malloc(n * sizeof *x);
  smv_matrix *dA = NULL, *dF = NULL, *dN = NULL;
  void *db = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F32, &dF));
  CHECK_OK(smv_device_malloc(ctx, n * sizeof(double), &db));
  if (!dA || !dF || !db)
    goto out;
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.tol = 1e-10;
  smv_solve_result r, r1;
  /* Aliased: device pointers and host vectors. */
  CHECK_OK(smv_memcpy_h2d(ctx, db, b1, n * sizeof(double)));
  CHECK_STATUS(smv_cg_cuda(ctx, dA, db, db, &o, &r), SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "overlap");
  CHECK_STATUS(smv_bicgstab_cuda(ctx, dA, db, db, &o, &r), SMV_ERR_ARG);
  memcpy(b, b1, n * sizeof *b);
  CHECK_STATUS(smv_solve_cuda_host(ctx, dA, SMV_METHOD_CG, b, b, &o, &r),
               SMV_ERR_ARG);
  /* Scaled right-hand sides, both paths and BiCGStab. */
  CHECK_OK(gpu_cg(dA, b1, x, &o, &r1));
  const double scales[] = {1e-200, 1e160};
  for (int s = 0; s < 2; s++) {
    for (int64_t i = 0; i < n; i++)
      b[i] = b1[i] * scales[s];
    for (int path = 0; path < 3; path++) {
      o.persistent = path == 1 ? 1 : -1;
      smv_status st = smv_solve_cuda_host(
          ctx, dA, path == 2 ? SMV_METHOD_BICGSTAB : SMV_METHOD_CG, b, x, &o,
          &r);
      CHECKF(st == SMV_OK, "%s", smv_context_error(ctx));
      CHECKF(r.converged && r.iterations > 0 && isfinite(r.relres),
             "scale %g path %d: converged %d after %d (%g)", scales[s], path,
             r.converged, r.iterations, r.relres);
      if (path < 2)
        CHECKF(within_1pct(r.iterations, r1.iterations), "%d vs %d",
               r.iterations, r1.iterations);
      double e = 0.0;
      for (int64_t i = 0; i < n; i++)
        e = fmax(e, fabs(x[i] / scales[s] - 1.0));
      CHECKF(e < 1e-6, "scale %g path %d: max |x/s - 1| %g", scales[s], path,
             e);
    }
  }
  o.persistent = 0;
  /* NaN in the matrix: named as the matrix's, before b's. */
  const double a11 = A->values[11];
  A->values[11] = NAN;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dN));
  A->values[11] = a11; /* A again: the f32 check below recomputes A x - b */
  if (dN) {
    for (int64_t i = 0; i < n; i++)
      b[i] = NAN;
    CHECK_STATUS(gpu_cg(dN, b, x, &o, &r), SMV_ERR_ARG);
    CHECK_STR_HAS(smv_context_error(ctx), "of the matrix");
    CHECK_STATUS(
        smv_solve_cuda_host(ctx, dN, SMV_METHOD_BICGSTAB, b, x, &o, &r),
        SMV_ERR_ARG);
    CHECK_STR_HAS(smv_context_error(ctx), "not finite");
  }
  /* A NaN in b alone. */
  memcpy(b, b1, n * sizeof *b);
  b[17] = INFINITY;
  CHECK_STATUS(gpu_cg(dA, b, x, &o, &r), SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "b[17]");
  /* f32 below its reach: not converged, precision_limited; both paths. */
  for (int path = 0; path < 2; path++) {
    o.persistent = path ? 1 : -1;
    o.tol = 1e-10;
    o.maxit = 3000;
    CHECK_OK(gpu_cg(dF, b1, x, &o, &r));
    CHECKF(!r.converged && r.precision_limited && r.relres <= o.tol,
           "f32 tol 1e-10 (path %d): converged %d limited %d relres %g", path,
           r.converged, r.precision_limited, r.relres);
    o.tol = 1e-4;
    CHECK_OK(gpu_cg(dF, b1, x, &o, &r));
    CHECK(r.converged && !r.precision_limited);
    CHECK(true_relres(A, b1, x) <= 2e-4);
  }
out:
  smv_device_free(ctx, db);
  smv_matrix_free(dA);
  smv_matrix_free(dF);
  smv_matrix_free(dN);
  free(b1), free(b), free(x);
  smv_csr_free(A);
}

/* Each block size, default and one block per SM (the resident kernel,
 * whose default is one: two, clamped to what its occupancy allows at 1024
 * threads), for every variant on lap2d:60 (LANES 4) and stencil27:10
 * (LANES 16), f64, none and Jacobi: the CPU's iteration count within 1%,
 * the true residual, the same bits run to run. */
static void test_shapes(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:60", "stencil27:10"};
  const char *blocks[] = {"256", "512", "1024"};
  for (int m = 0; m < 2; m++) {
    fixture F;
    if (!fixture_open(&F, specs[m]))
      continue;
    for (int pc = 0; pc < 2; pc++) {
      smv_solve_options o;
      coop_options(&o, 1e-10, pc ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE);
      smv_solve_result rc, r, r2;
      smv_error err;
      CHECK_OK(smv_cg(F.A, F.b, F.x, &o, &rc, &err));
      for (int shape = 0; shape < 6; shape++) {
        setenv("SMV_SOLVE_COOP_BLOCK", blocks[shape % 3], 1);
        const char *per_sm = variant_id == SMV_PERSISTENT_CG_RESIDENT ||
                                     variant_id == SMV_PERSISTENT_CG_PR
                                 ? "2"
                                 : "1";
        if (shape >= 3)
          setenv("SMV_SOLVE_COOP_PER_SM", per_sm, 1);
        tc_fill_nan(F.x, F.n);
        CHECK_OK(gpu_cg(F.dA, F.b, F.x, &o, &r));
        tc_fill_nan(F.x2, F.n);
        CHECK_OK(gpu_cg(F.dA, F.b, F.x2, &o, &r2));
        unsetenv("SMV_SOLVE_COOP_BLOCK");
        unsetenv("SMV_SOLVE_COOP_PER_SM");
        CHECKF(r.persistent == variant_id && r.converged &&
                   within_1pct(r.iterations, rc.iterations),
               "%s %s %s block %s%s%s: persistent %d converged %d after %d "
               "(CPU %d)",
               variant, specs[m], pc ? "jacobi" : "none", blocks[shape % 3],
               shape >= 3 ? " per SM " : "", shape >= 3 ? per_sm : "",
               r.persistent, r.converged, r.iterations, rc.iterations);
        CHECKF(true_relres(F.A, F.b, F.x) <= 1e-9, "%s %s block %s: %g",
               variant, specs[m], blocks[shape % 3],
               true_relres(F.A, F.b, F.x));
        CHECK_INT(r2.iterations, r.iterations);
        CHECKF(memcmp(F.x, F.x2, F.n * sizeof *F.x) == 0,
               "%s %s block %s: run-to-run bits", variant, specs[m],
               blocks[shape % 3]);
      }
    }
    fixture_close(&F);
  }
}

/* The plan's shape knobs (cg_coop.cu): copies of the partials
 * (SMV_SOLVE_COOP_COPIES, block b sums copy b % copies: the same values in
 * the same order, so the same bits with 1, 4 or 32 copies) and lanes per
 * row (SMV_SOLVE_COOP_LANES 1 .. 32: a different order of each row's
 * sum, so other bits, but CG's iteration count within 1% of the CPU's,
 * the true residual, and the same bits run to run). lap2d:60 (5 entries
 * a row) and stencil27:10 (27), f64, Jacobi. */
static void test_copies_lanes(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:60", "stencil27:10"};
  const char *copies[] = {"1", "4", "32"};
  const char *lanes[] = {"1", "2", "4", "8", "32"};
  for (int m = 0; m < 2; m++) {
    fixture F;
    if (!fixture_open(&F, specs[m]))
      continue;
    smv_solve_options o;
    coop_options(&o, 1e-10, SMV_PRECOND_JACOBI);
    smv_solve_result rc, r0, r, r2;
    smv_error err;
    CHECK_OK(smv_cg(F.A, F.b, F.x, &o, &rc, &err));
    double *x0 = malloc(F.n * sizeof *x0);
    if (!x0) {
      fixture_close(&F);
      CHECK(0);
      return;
    }
    for (int c = 0; c < 3; c++) {
      setenv("SMV_SOLVE_COOP_COPIES", copies[c], 1);
      tc_fill_nan(c ? F.x : x0, F.n);
      CHECK_OK(gpu_cg(F.dA, F.b, c ? F.x : x0, &o, c ? &r : &r0));
      unsetenv("SMV_SOLVE_COOP_COPIES");
      if (!c) {
        CHECKF(r0.persistent && r0.converged &&
                   within_1pct(r0.iterations, rc.iterations),
               "%s %s one copy: persistent %d converged %d after %d (CPU %d)",
               variant, specs[m], r0.persistent, r0.converged, r0.iterations,
               rc.iterations);
        continue;
      }
      CHECKF(r.persistent && r.iterations == r0.iterations,
             "%s %s %s copies: persistent %d, %d iterations (one copy %d)",
             variant, specs[m], copies[c], r.persistent, r.iterations,
             r0.iterations);
      CHECKF(memcmp(F.x, x0, F.n * sizeof *x0) == 0,
             "%s %s %s copies: x differs from one copy's", variant, specs[m],
             copies[c]);
    }
    for (int l = 0; l < 5; l++) {
      setenv("SMV_SOLVE_COOP_LANES", lanes[l], 1);
      tc_fill_nan(F.x, F.n);
      CHECK_OK(gpu_cg(F.dA, F.b, F.x, &o, &r));
      tc_fill_nan(F.x2, F.n);
      CHECK_OK(gpu_cg(F.dA, F.b, F.x2, &o, &r2));
      unsetenv("SMV_SOLVE_COOP_LANES");
      CHECKF(r.persistent && r.converged &&
                 within_1pct(r.iterations, rc.iterations),
             "%s %s %s lanes: persistent %d converged %d after %d (CPU %d)",
             variant, specs[m], lanes[l], r.persistent, r.converged,
             r.iterations, rc.iterations);
      CHECKF(true_relres(F.A, F.b, F.x) <= 1e-9, "%s %s %s lanes: %g", variant,
             specs[m], lanes[l], true_relres(F.A, F.b, F.x));
      CHECK_INT(r2.iterations, r.iterations);
      CHECKF(memcmp(F.x, F.x2, F.n * sizeof *F.x) == 0,
             "%s %s %s lanes: run-to-run bits", variant, specs[m], lanes[l]);
    }
    free(x0);
    fixture_close(&F);
  }
}

/* BiCGStab on the device through smv_solve_cuda_host. */
static smv_status gpu_bi(smv_matrix *dA, const double *b, double *x,
                         const smv_solve_options *o, smv_solve_result *r) {
  return smv_solve_cuda_host(tc_context(), dA, SMV_METHOD_BICGSTAB, b, x, o, r);
}

/* One matrix, precision and preconditioner: the knob unset (the graph
 * path, even with persistent = 1), then set: the persistent kernel, the
 * graph path's and the CPU's counts within 2 + 5% (the slack
 * test_cuda_solve.c allows BiCGStab between the graph path and the CPU), the
 * true residual, the
 * history, the same bits again and across progress chunks. */
static void check_bicgstab_coop(const char *name, const smv_csr *A, int f32,
                                smv_precond pc) {
  smv_context *ctx = tc_context();
  const int64_t n = A->rows;
  const double tol = f32 ? 1e-4 : 1e-10;
  double *b = rhs_ones(A), *x = malloc(n * sizeof *x);
  double *x2 = malloc(n * sizeof *x2), *xc = malloc(n * sizeof *xc);
  float *bf = malloc(n * sizeof *bf), *xf = malloc(n * sizeof *xf);
  double *hist = malloc(5001 * sizeof *hist);
  smv_matrix *dA = NULL;
  char what[160];
  snprintf(what, sizeof what, "bicgstab %s %s %s", name, f32 ? "f32" : "f64",
           pc ? "jacobi" : "none");
  CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
  if (!dA || !x || !x2 || !xc || !bf || !xf || !hist)
    goto out;
  smv_solve_options o;
  coop_options(&o, tol, pc);
  smv_solve_result rg, r, r2, rc;
  setenv("SMV_SOLVE_COOP_BICGSTAB", "0", 1);
  CHECK_OK(gpu_bi(dA, b, x, &o, &rg));
  CHECKF(!rg.persistent && rg.graph_used && rg.converged,
         "%s, knob 0: persistent %d graph %d converged %d", what, rg.persistent,
         rg.graph_used, rg.converged);
  smv_error err;
  if (f32) {
    for (int64_t i = 0; i < n; i++)
      bf[i] = (float)b[i];
    CHECK_OK(smv_bicgstab_f32(A, bf, xf, &o, &rc, &err));
  } else {
    CHECK_OK(smv_bicgstab(A, b, xc, &o, &rc, &err));
  }
  unsetenv("SMV_SOLVE_COOP_BICGSTAB"); /* the default: persistent */
  o.history = hist;
  o.history_len = 5001;
  tc_fill_nan(x, n);
  smv_status st = gpu_bi(dA, b, x, &o, &r);
  CHECKF(st == SMV_OK, "%s: %s", what, smv_context_error(ctx));
  CHECKF(r.persistent && !r.graph_used && r.converged && !r.breakdown,
         "%s: persistent %d graph %d converged %d after %d (%g)", what,
         r.persistent, r.graph_used, r.converged, r.iterations, r.relres);
  /* BiCGStab's documented slack (tests/test_cuda_solve.c, compare): its
   * non-monotone residual amplifies different summation orders, so the
   * graph path and the CPU already differ by a few percent. */
  CHECKF(abs(r.iterations - rg.iterations) <= 2 + rg.iterations / 20 &&
             abs(r.iterations - rc.iterations) <= 2 + rc.iterations / 20,
         "%s: %d iterations persistent, %d graph, %d CPU", what, r.iterations,
         rg.iterations, rc.iterations);
  CHECK_INT(r.history_count, r.iterations + 1);
  CHECK_NEAR(hist[r.iterations], r.relres, 0.0);
  const double tr = true_relres(A, b, x);
  CHECKF(tr <= (f32 ? 1e-3 : 10 * tol), "%s: true residual %g", what, tr);
  o.history = NULL;
  o.history_len = 0;
  tc_fill_nan(x2, n);
  CHECK_OK(gpu_bi(dA, b, x2, &o, &r2));
  CHECK_INT(r2.iterations, r.iterations);
  CHECKF(memcmp(x, x2, n * sizeof *x) == 0, "%s: run-to-run bits", what);
  CHECK(memcmp(&r.relres, &r2.relres, sizeof r.relres) == 0);
  /* Paused every 7 iterations and relaunched: the same bits. */
  o.progress = on_progress;
  o.progress_every = 7;
  progress_calls = 0;
  tc_fill_nan(x2, n);
  CHECK_OK(gpu_bi(dA, b, x2, &o, &r2));
  CHECK(r2.persistent);
  CHECK_INT(r2.iterations, r.iterations);
  CHECKF(progress_calls == r.iterations / 7, "%s: %d calls for %d", what,
         progress_calls, r.iterations);
  CHECKF(memcmp(x, x2, n * sizeof *x) == 0, "%s: progress chunks' bits", what);
out:
  unsetenv("SMV_SOLVE_COOP_BICGSTAB");
  smv_matrix_free(dA);
  free(b), free(x), free(x2), free(xc), free(bf), free(xf), free(hist);
}

static void test_bicgstab_coop_matches(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:60", "lap3d:16", "convdiff"};
  for (int s = 0; s < 3; s++) {
    smv_csr *A = s == 2 ? convdiff(70, 0.4) : tst_generate(specs[s]);
    if (!A)
      continue;
    for (int pc = 0; pc < 2; pc++)
      check_bicgstab_coop(specs[s], A, 0,
                          pc ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE);
    check_bicgstab_coop(specs[s], A, 1, SMV_PRECOND_JACOBI);
    smv_csr_free(A);
  }
}

/* n / 2 blocks [0 1; -1 0]: skew-symmetric, so rhat.v = r0' A r0 = 0 at
 * the first step: breakdown on both paths, never a hang or maxit. Then
 * the fallbacks with the knob set: persistent = -1, SMV_SOLVE_COOP=0 and
 * a refused launch (SMV_SOLVE_COOP_GRID) give the graph path's bits. */
static void test_bicgstab_coop_breakdown_fallbacks(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const int n = 200;
  smv_csr *K = NULL;
  if (smv_csr_create(n, n, n, &K) != SMV_OK)
    return;
  for (int i = 0; i < n; i++) {
    K->row_ptr[i + 1] = i + 1;
    K->col_idx[i] = i ^ 1;
    K->values[i] = i & 1 ? -1.0 : 1.0;
  }
  K->sorted = 1;
  smv_matrix *dK = NULL;
  CHECK_OK(smv_matrix_create(ctx, K, SMV_F64, &dK));
  double *b = rhs_ones(K), *x = malloc(n * sizeof *x);
  setenv("SMV_SOLVE_COOP_BICGSTAB", "1", 1);
  for (int path = 0; dK && path < 2; path++) {
    smv_solve_options o;
    smv_solve_options_init(&o);
    o.persistent = path ? 1 : -1;
    o.maxit = 100000;
    smv_solve_result r;
    CHECK_OK(gpu_bi(dK, b, x, &o, &r));
    CHECKF(r.breakdown && !r.converged && r.iterations < 5,
           "skew, %s: breakdown %d converged %d after %d",
           path ? "persistent" : "graph", r.breakdown, r.converged,
           r.iterations);
    CHECK((r.persistent != 0) == path);
  }
  unsetenv("SMV_SOLVE_COOP_BICGSTAB");
  free(b), free(x);
  smv_matrix_free(dK);
  smv_csr_free(K);

  fixture F;
  if (!fixture_open(&F, "lap2d:50"))
    return;
  const size_t bytes = F.n * sizeof *F.x;
  smv_solve_options o;
  smv_solve_options_init(&o);
  smv_solve_result rg, r;
  o.persistent = -1;
  CHECK_OK(gpu_bi(F.dA, F.b, F.x2, &o, &rg));
  CHECK(!rg.persistent && rg.graph_used && rg.converged);
  setenv("SMV_SOLVE_COOP_BICGSTAB", "1", 1);
  CHECK_OK(gpu_bi(F.dA, F.b, F.x, &o, &r));
  CHECK(!r.persistent && r.graph_used);
  o.persistent = 1;
  setenv("SMV_SOLVE_COOP", "0", 1);
  CHECK_OK(gpu_bi(F.dA, F.b, F.x, &o, &r));
  unsetenv("SMV_SOLVE_COOP");
  CHECK(!r.persistent && r.graph_used && r.converged);
  CHECK_INT(r.iterations, rg.iterations);
  CHECK(memcmp(F.x, F.x2, bytes) == 0);
  setenv("SMV_SOLVE_COOP_GRID", "1000000", 1);
  smv_status st = gpu_bi(F.dA, F.b, F.x, &o, &r);
  unsetenv("SMV_SOLVE_COOP_GRID");
  CHECKF(st == SMV_OK, "refused launch: %s", smv_context_error(ctx));
  CHECKF(!r.persistent && r.graph_used && r.converged,
         "refused launch: persistent %d graph %d converged %d", r.persistent,
         r.graph_used, r.converged);
  CHECK_INT(r.iterations, rg.iterations);
  CHECK(memcmp(F.x, F.x2, bytes) == 0);
  /* The context still works after the refused launch. */
  CHECK_OK(gpu_bi(F.dA, F.b, F.x, &o, &r));
  CHECK(r.persistent && r.converged);
  unsetenv("SMV_SOLVE_COOP_BICGSTAB");
  fixture_close(&F);
}

/* One solve with SMV_SOLVE_COOP_SUM=sum (NULL: unset, the default),
 * progress reports every `every` iterations (0: none). */
static smv_status coop_sum_run(const char *sum, smv_method m, smv_matrix *dA,
                               const double *b, double *x, int every,
                               smv_solve_result *r) {
  smv_solve_options o;
  coop_options(&o, 1e-10, SMV_PRECOND_JACOBI);
  o.progress = every ? on_progress : NULL;
  o.progress_every = every;
  if (sum)
    setenv("SMV_SOLVE_COOP_SUM", sum, 1);
  else
    unsetenv("SMV_SOLVE_COOP_SUM");
  const smv_status st = smv_solve_cuda_host(tc_context(), dA, m, b, x, &o, r);
  unsetenv("SMV_SOLVE_COOP_SUM");
  return st;
}

/* The grid-wide sums both ways (SMV_SOLVE_COOP_SUM, cg_coop.h): all
 * (grid.sync, then every block sums the G partials) and last (the last
 * block to arrive sums them and broadcasts; all is the default). The last block
 * sums with all_sum itself, so the order of the additions is the same
 * and so are the bits: the same iteration count, the same x and relres
 * bit for bit; last twice, the same bits; last across progress chunks
 * (a launch per chunk, each starting its rounds at 0: the counter and
 * flag are zeroed before every launch), the same bits again. Lap2d
 * (LANES 4) and stencil27 (LANES 16), Jacobi, f64; method m. The bits
 * also need the same grid: the two paths are two instantiations whose
 * occupancy could differ, but on these matrices the grid is the blocks
 * the rows need (57 and 63 blocks of 256), under what occupancy allows. */
static void check_coop_sum(const char *what, smv_method m) {
  const char *specs[] = {"lap2d:60", "stencil27:10"};
  for (int s = 0; s < 2; s++) {
    fixture F;
    if (!fixture_open(&F, specs[s]))
      continue;
    double *x3 = malloc(F.n * sizeof *x3), *x4 = malloc(F.n * sizeof *x4);
    if (!x3 || !x4) {
      free(x3), free(x4);
      fixture_close(&F);
      CHECK(0);
      return;
    }
    smv_solve_result ra, rl, rl2, rp;
    memset(&ra, 0, sizeof ra);
    rl = rl2 = rp = ra;
    tc_fill_nan(F.x, F.n);
    tc_fill_nan(F.x2, F.n);
    tc_fill_nan(x3, F.n);
    tc_fill_nan(x4, F.n);
    CHECK_OK(coop_sum_run("all", m, F.dA, F.b, F.x, 0, &ra));
    CHECK_OK(coop_sum_run("last", m, F.dA, F.b, F.x2, 0, &rl));
    CHECK_OK(coop_sum_run(NULL, m, F.dA, F.b, x3, 0, &rl2));
    progress_calls = 0;
    CHECK_OK(coop_sum_run("last", m, F.dA, F.b, x4, 7, &rp));
    CHECKF(ra.persistent && rl.persistent && rl2.persistent && rp.persistent,
           "%s %s: persistent all %d last %d default %d chunks %d", what,
           specs[s], ra.persistent, rl.persistent, rl2.persistent,
           rp.persistent);
    CHECKF(ra.converged && rl.converged, "%s %s: converged all %d last %d",
           what, specs[s], ra.converged, rl.converged);
    CHECKF(ra.iterations == rl.iterations && rl2.iterations == rl.iterations &&
               rp.iterations == rl.iterations,
           "%s %s: iterations all %d last %d default %d chunks %d", what,
           specs[s], ra.iterations, rl.iterations, rl2.iterations,
           rp.iterations);
    CHECKF(progress_calls == rp.iterations / 7, "%s %s: %d reports for %d",
           what, specs[s], progress_calls, rp.iterations);
    CHECKF(memcmp(F.x, F.x2, F.n * sizeof *F.x) == 0,
           "%s %s: x differs between all and last", what, specs[s]);
    CHECK(memcmp(&ra.relres, &rl.relres, sizeof ra.relres) == 0);
    CHECKF(memcmp(F.x2, x3, F.n * sizeof *x3) == 0,
           "%s %s: last run-to-run bits", what, specs[s]);
    CHECKF(memcmp(F.x2, x4, F.n * sizeof *x4) == 0,
           "%s %s: last across progress chunks", what, specs[s]);
    free(x3), free(x4);
    fixture_close(&F);
  }
}

/* CG, the variant under test (cg2, cg1). */
static void test_coop_sum(void) {
  TC_NEED_DEVICE();
  check_coop_sum(variant, SMV_METHOD_CG);
}

/* BiCGStab's persistent kernel, its three sums an iteration. */
static void test_bicgstab_coop_sum(void) {
  TC_NEED_DEVICE();
  setenv("SMV_SOLVE_COOP_BICGSTAB", "1", 1);
  check_coop_sum("bicgstab", SMV_METHOD_BICGSTAB);
  unsetenv("SMV_SOLVE_COOP_BICGSTAB");
}

/* An SPD arrow: row and column 0 dense (n entries), a tridiagonal below,
 * diagonally dominant. Row 0 alone is n x 12 bytes in f64. */
static smv_csr *spd_arrow(int n) {
  smv_csr *A = NULL;
  const int64_t nnz = (int64_t)n + 4 * (int64_t)(n - 1) - 2;
  if (smv_csr_create(n, n, nnz, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (int i = 0; i < n; i++) {
    A->row_ptr[i] = k;
    if (i == 0) {
      for (int j = 0; j < n; j++) {
        A->col_idx[k] = j;
        A->values[k++] = j ? -0.5 : 0.5 * n + 2.0;
      }
      continue;
    }
    A->col_idx[k] = 0, A->values[k++] = -0.5;
    if (i > 1)
      A->col_idx[k] = i - 1, A->values[k++] = -0.5;
    A->col_idx[k] = i, A->values[k++] = 2.0;
    if (i < n - 1)
      A->col_idx[k] = i + 1, A->values[k++] = -0.5;
  }
  A->row_ptr[n] = k;
  A->nnz = k;
  A->sorted = 1;
  return A;
}

/* The resident kernel where no slice fits (one row of 40000 entries, 480
 * KB in f64, past any block's shared memory): cg1 runs instead, and says
 * so (persistent = SMV_PERSISTENT_CG1), with the CPU's iteration count. */
static void test_resident_fallback(void) {
  TC_NEED_DEVICE();
  smv_csr *A = spd_arrow(40000);
  CHECK(A != NULL);
  if (!A)
    return;
  smv_matrix *dA = NULL;
  double *b = rhs_ones(A), *x = malloc(A->rows * sizeof *x);
  CHECK_OK(smv_matrix_create(tc_context(), A, SMV_F64, &dA));
  if (dA && b && x) {
    smv_solve_options o;
    coop_options(&o, 1e-10, SMV_PRECOND_NONE);
    smv_solve_result r, rc;
    smv_error err;
    /* res, then the default (pr) with the knob unset: both fall back. */
    for (int v = 0; v < 2; v++) {
      if (v == 0)
        setenv("SMV_SOLVE_COOP_VARIANT", "res", 1);
      tc_fill_nan(x, A->rows);
      CHECK_OK(gpu_cg(dA, b, x, &o, &r));
      unsetenv("SMV_SOLVE_COOP_VARIANT");
      CHECKF(r.persistent == SMV_PERSISTENT_CG1 && r.converged,
             "arrow (%s): persistent %d converged %d", v ? "default" : "res",
             r.persistent, r.converged);
      CHECKF(true_relres(A, b, x) <= 1e-8, "arrow: true residual %g",
             true_relres(A, b, x));
      CHECK_OK(smv_cg(A, b, x, &o, &rc, &err));
      CHECKF(within_1pct(r.iterations, rc.iterations), "arrow: %d, CPU %d",
             r.iterations, rc.iterations);
    }
  }
  smv_matrix_free(dA);
  free(b), free(x);
  smv_csr_free(A);
}

/* The resident kernel on slices of a few rows each (most gathers are
 * another block's rows: the halo path) and of thousands (most are the
 * block's own): lap2d:40 (the default grid), lap2d:300 at one block per
 * SM, and lap2d:60 symmetrically permuted at random (scattered columns:
 * most entries off-block, columns repeated across a block's halo slots;
 * with the partition weighed by the halo, SMV_SOLVE_COOP_REBALANCE=1),
 * f64 and f32,
 * none and Jacobi; the CPU's iteration count within 1%, the true
 * residual, the same bits run to run and across a progress chunk
 * (the slices copied in again at each launch). */
static void test_resident_slices(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:40", "lap2d:300", "lap2d:60,perm=rand"};
  setenv("SMV_SOLVE_COOP_VARIANT", res_variant, 1);
  for (int m = 0; m < 3; m++) {
    smv_csr *A = tst_generate(specs[m]);
    if (!A)
      continue;
    const int64_t n = A->rows;
    double *b = rhs_ones(A), *x = malloc(n * sizeof *x);
    double *x2 = malloc(n * sizeof *x2);
    for (int f32 = 0; f32 < 2 && b && x && x2; f32++)
      for (int pc = 0; pc < 2; pc++) {
        smv_matrix *dA = NULL;
        CHECK_OK(
            smv_matrix_create(tc_context(), A, f32 ? SMV_F32 : SMV_F64, &dA));
        if (!dA)
          continue;
        smv_solve_options o;
        coop_options(&o, f32 ? 1e-4 : 1e-10,
                     pc ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE);
        smv_solve_result r, r2, rc;
        smv_error err;
        /* The residual history too: each launch stores r.r and converts
         * its own stretch to relative residuals at its end (coop_end), so
         * a solve cut into chunks of 7 must leave the same history. */
        static double h1[5001], h2[5001];
        for (int k = 0; k <= 5000; k++)
          h1[k] = h2[k] = NAN;
        if (m == 1)
          setenv("SMV_SOLVE_COOP_PER_SM", "1", 1);
        if (m == 2)
          setenv("SMV_SOLVE_COOP_REBALANCE", "1", 1);
        tc_fill_nan(x, n);
        o.history = h1;
        o.history_len = 5001;
        CHECK_OK(gpu_cg(dA, b, x, &o, &r));
        o.progress = on_progress;
        o.progress_every = 7;
        o.history = h2;
        tc_fill_nan(x2, n);
        CHECK_OK(gpu_cg(dA, b, x2, &o, &r2));
        unsetenv("SMV_SOLVE_COOP_PER_SM");
        unsetenv("SMV_SOLVE_COOP_REBALANCE");
        o.progress = NULL;
        o.progress_every = 0;
        o.history = NULL;
        o.history_len = 0;
        CHECKF(r.history_count == r.iterations + 1 &&
                   r2.history_count == r.history_count,
               "%s: history counts %d and %d after %d iterations", specs[m],
               r.history_count, r2.history_count, r.iterations);
        CHECKF(r.history_count > 0 &&
                   memcmp(h1, h2, r.history_count * sizeof *h1) == 0 &&
                   fabs(h1[0] - 1.0) < 1e-12 &&
                   h1[r.history_count - 1] == r.relres,
               "%s %s %s: history with and without progress chunks "
               "(h[0] %g, last %g, relres %g)",
               specs[m], f32 ? "f32" : "f64", pc ? "jacobi" : "none", h1[0],
               r.history_count > 0 ? h1[r.history_count - 1] : -1.0, r.relres);
        CHECKF(r.persistent == res_id && r.converged,
               "%s %s %s: persistent %d converged %d after %d", specs[m],
               f32 ? "f32" : "f64", pc ? "jacobi" : "none", r.persistent,
               r.converged, r.iterations);
        const double tr = true_relres(A, b, x);
        CHECKF(tr <= (f32 ? 1e-3 : 1e-9), "%s: true residual %g", specs[m], tr);
        CHECK_INT(r2.iterations, r.iterations);
        CHECKF(memcmp(x, x2, n * sizeof *x) == 0,
               "%s %s %s: bits with and without progress chunks", specs[m],
               f32 ? "f32" : "f64", pc ? "jacobi" : "none");
        if (!f32) {
          CHECK_OK(smv_cg(A, b, x2, &o, &rc, &err));
          CHECKF(within_1pct(r.iterations, rc.iterations), "%s: %d, CPU %d",
                 specs[m], r.iterations, rc.iterations);
        }
        smv_matrix_free(dA);
      }
    free(b), free(x), free(x2);
    smv_csr_free(A);
  }
  unsetenv("SMV_SOLVE_COOP_VARIANT");
}

/* The resident kernel's halo map (res_halo_map_kernel): each block's
 * distinct off-block columns, sorted, one slot each, against one slot per
 * off-block entry in entry order (SMV_SOLVE_COOP_MAP_KEYS=16 caps the
 * sort at 16 keys, so every block of more off-block entries takes that
 * form; blocks of fewer keep the sorted one). A slot holds the same u
 * whatever its place and each row sums its entries in the same order, so
 * the two maps must give the same bits; on randomly permuted meshes
 * (most entries off-block, columns repeated across a block's rows), f64
 * and f32, none and Jacobi, each also checked by its true residual. */
static void test_resident_map(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"lap2d:60,perm=rand", "lap3d:14,perm=rand"};
  setenv("SMV_SOLVE_COOP_VARIANT", res_variant, 1);
  for (int m = 0; m < 2; m++) {
    smv_csr *A = tst_generate(specs[m]);
    if (!A)
      continue;
    const int64_t n = A->rows;
    double *b = rhs_ones(A), *x = malloc(n * sizeof *x);
    double *x2 = malloc(n * sizeof *x2);
    for (int f32 = 0; f32 < 2 && b && x && x2; f32++)
      for (int pc = 0; pc < 2; pc++) {
        smv_matrix *dA = NULL;
        CHECK_OK(
            smv_matrix_create(tc_context(), A, f32 ? SMV_F32 : SMV_F64, &dA));
        if (!dA)
          continue;
        smv_solve_options o;
        coop_options(&o, f32 ? 1e-4 : 1e-10,
                     pc ? SMV_PRECOND_JACOBI : SMV_PRECOND_NONE);
        smv_solve_result r, r2;
        tc_fill_nan(x, n);
        CHECK_OK(gpu_cg(dA, b, x, &o, &r));
        setenv("SMV_SOLVE_COOP_MAP_KEYS", "16", 1);
        tc_fill_nan(x2, n);
        CHECK_OK(gpu_cg(dA, b, x2, &o, &r2));
        unsetenv("SMV_SOLVE_COOP_MAP_KEYS");
        CHECKF(r.persistent == res_id && r2.persistent == res_id && r.converged,
               "%s %s %s: persistent %d / %d converged %d", specs[m],
               f32 ? "f32" : "f64", pc ? "jacobi" : "none", r.persistent,
               r2.persistent, r.converged);
        const double tr = true_relres(A, b, x);
        CHECKF(tr <= (f32 ? 1e-3 : 1e-9), "%s: true residual %g", specs[m], tr);
        CHECK_INT(r2.iterations, r.iterations);
        CHECKF(memcmp(x, x2, n * sizeof *x) == 0,
               "%s %s %s: bits of the sorted map and the per-entry one",
               specs[m], f32 ? "f32" : "f64", pc ? "jacobi" : "none");
        smv_matrix_free(dA);
      }
    free(b), free(x), free(x2);
    smv_csr_free(A);
  }
  unsetenv("SMV_SOLVE_COOP_VARIANT");
}

/* The resident kernel's plan kept on the context (engine.h, res_plan):
 * the second solve of a matrix takes it and gives the first one's bits;
 * a matrix created after the first is freed (its address may be the old
 * one's: the cache is keyed by the matrix's serial) with the same size
 * and another structure gets its own plan, checked by its true residual
 * and by the bits of the same solve on a fresh context; a knob that
 * changes the plan (SMV_SOLVE_COOP_MAP_KEYS) plans again. */
static void test_resident_plan_kept(void) {
  TC_NEED_DEVICE();
  smv_csr *A = tst_generate("lap2d:50");
  smv_csr *B = tst_generate("lap2d:50,perm=rand");
  CHECK(A != NULL && B != NULL);
  const int64_t n = A ? A->rows : 0;
  double *bA = A ? rhs_ones(A) : NULL, *bB = B ? rhs_ones(B) : NULL;
  double *x = malloc(n * sizeof *x), *x2 = malloc(n * sizeof *x2);
  smv_context *fresh = NULL;
  CHECK_OK(smv_context_create(0, &fresh));
  setenv("SMV_SOLVE_COOP_VARIANT", res_variant, 1);
  if (A && B && bA && bB && x && x2 && fresh && B->rows == n) {
    smv_solve_options o;
    coop_options(&o, 1e-10, SMV_PRECOND_NONE);
    smv_solve_result r1, r2;
    smv_matrix *dA = NULL, *dB = NULL, *dF = NULL;
    CHECK_OK(smv_matrix_create(tc_context(), A, SMV_F64, &dA));
    if (dA) {
      tc_fill_nan(x, n);
      CHECK_OK(gpu_cg(dA, bA, x, &o, &r1));
      tc_fill_nan(x2, n);
      CHECK_OK(gpu_cg(dA, bA, x2, &o, &r2));
      CHECKF(r1.persistent == res_id && r2.persistent == res_id && r1.converged,
             "A: persistent %d / %d converged %d", r1.persistent, r2.persistent,
             r1.converged);
      CHECK_INT(r2.iterations, r1.iterations);
      CHECKF(memcmp(x, x2, n * sizeof *x) == 0, "A: bits of the kept plan");
    }
    smv_matrix_free(dA);
    CHECK_OK(smv_matrix_create(tc_context(), B, SMV_F64, &dB));
    CHECK_OK(smv_matrix_create(fresh, B, SMV_F64, &dF));
    if (dB && dF) {
      tc_fill_nan(x, n);
      CHECK_OK(gpu_cg(dB, bB, x, &o, &r1));
      tc_fill_nan(x2, n);
      CHECK_OK(smv_solve_cuda_host(fresh, dF, SMV_METHOD_CG, bB, x2, &o, &r2));
      CHECKF(r1.persistent == res_id && r1.converged,
             "B: persistent %d converged %d", r1.persistent, r1.converged);
      const double tr = true_relres(B, bB, x);
      CHECKF(tr <= 1e-9, "B after A freed: true residual %g", tr);
      CHECK_INT(r2.iterations, r1.iterations);
      CHECKF(memcmp(x, x2, n * sizeof *x) == 0,
             "B: bits against a fresh context");
      setenv("SMV_SOLVE_COOP_MAP_KEYS", "16", 1);
      tc_fill_nan(x2, n);
      CHECK_OK(gpu_cg(dB, bB, x2, &o, &r2));
      unsetenv("SMV_SOLVE_COOP_MAP_KEYS");
      CHECK_INT(r2.iterations, r1.iterations);
      CHECKF(memcmp(x, x2, n * sizeof *x) == 0,
             "B: bits of the per-entry map's plan");
    }
    smv_matrix_free(dB);
    smv_matrix_free(dF);
  }
  unsetenv("SMV_SOLVE_COOP_VARIANT");
  smv_context_free(fresh);
  free(bA), free(bB), free(x), free(x2);
  smv_csr_free(A);
  smv_csr_free(B);
}

/* Every test of the persistent kernel, once per variant. */
static void run_variant(const char *v, int id) {
  static char names[4][8][64];
  static int slot;
  void (*fns[])(void) = {test_persistent_matches_cpu,
                         test_auto_and_progress,
                         test_fallbacks,
                         test_not_spd,
                         test_hardening,
                         test_shapes,
                         test_coop_sum,
                         test_copies_lanes};
  const char *fn_names[] = {"test_persistent_matches_cpu",
                            "test_auto_and_progress",
                            "test_fallbacks",
                            "test_not_spd",
                            "test_hardening",
                            "test_shapes",
                            "test_coop_sum",
                            "test_copies_lanes"};
  variant = v;
  variant_id = id;
  setenv("SMV_SOLVE_COOP_VARIANT", v, 1);
  for (int t = 0; t < 8; t++) {
    snprintf(names[slot][t], sizeof names[slot][t], "%s [%s]", fn_names[t], v);
    tst_run(names[slot][t], fns[t]);
  }
  slot++;
  unsetenv("SMV_SOLVE_COOP_VARIANT");
}

/* The resident kernel's own tests, once per recurrence. */
static void run_resident(const char *v, int id) {
  static char names[2][3][64];
  static int slot;
  void (*fns[])(void) = {test_resident_slices, test_resident_map,
                         test_resident_plan_kept};
  const char *fn_names[] = {"test_resident_slices", "test_resident_map",
                            "test_resident_plan_kept"};
  res_variant = v;
  res_id = id;
  for (int t = 0; t < 3; t++) {
    snprintf(names[slot][t], sizeof names[slot][t], "%s [%s]", fn_names[t], v);
    tst_run(names[slot][t], fns[t]);
  }
  slot++;
}

int main(void) {
  run_variant("cg2", SMV_PERSISTENT_CG2);
  run_variant("cg1", SMV_PERSISTENT_CG1);
  run_variant("res", SMV_PERSISTENT_CG_RESIDENT);
  /* The resident kernel with the predict-and-recompute recurrence: the
   * same tests (counts within 1% of the CPU's textbook CG, bits run to
   * run and across progress chunks, breakdown, both sums, every shape). */
  run_variant("pr", SMV_PERSISTENT_CG_PR);
  RUN(test_resident_fallback);
  run_resident("res", SMV_PERSISTENT_CG_RESIDENT);
  run_resident("pr", SMV_PERSISTENT_CG_PR);
  RUN(test_bicgstab_coop_matches);
  RUN(test_bicgstab_coop_breakdown_fallbacks);
  RUN(test_bicgstab_coop_sum);
  smv_context_free(tc_ctx);
  return TEST_END();
}
