/*
 * test_cuda_reuse.c — declaring reuse at creation (SMV_MATRIX_REUSE,
 * smv_matrix_options.expected_calls; issue 23 item 3), on the device
 * (SKIP without one):
 *   - with reuse declared, where rung 13 qualifies (entries, past the
 *     L2, at most 1% of the entries farther than 30000 columns from the
 *     diagonal: recomputed here from the host CSR and the device's L2),
 *     the plan is
 *     measured among the short list: the rule's pick, rung 13, cuSPARSE
 *     ALG1 and ALG2; AUTO becomes one of them, the reason says "reuse
 *     declared", and AUTO's result matches the CPU reference; where it
 *     does not qualify, no measurement: the rule's plan and bytes, and
 *     the reason says so;
 *   - the losers' set-up is released: the matrix holds its CSR arrays
 *     and the winner's state, nothing more (rung 13's packed arrays
 *     included), measured with smv_matrix_device_bytes against a matrix
 *     where only the winner was set up;
 *   - without reuse declared (no options, or expected_calls below the
 *     threshold) AUTO never runs rung 13 and the matrix holds no packed
 *     arrays; SMV_MATRIX_TUNE times rung 13 too;
 *   - bad options are refused;
 *   - CG on a reuse matrix converges as on a plain one: the same
 *     iteration count when both plans run the same rung (rung 13 and
 *     rung 10 sum alike only at the same block size), within 2 otherwise,
 *     and the persistent kernel still runs where it did (the reuse plan
 *     is AUTO).
 */
#include "test_cuda_common.h"

#include "smv_solve.h"

static int is_sparse(smv_alg a) {
  return a == SMV_ALG_CUSPARSE_ALG1 || a == SMV_ALG_CUSPARSE_ALG2;
}

static size_t l2_bytes(smv_context *ctx) {
  smv_device_props p;
  if (smv_device_props_get(ctx, &p) != SMV_OK)
    return 0;
  return (size_t)p.l2_bytes;
}

/* Rung 13's reuse test (spmv_13_packed.cu, reuse_ok) from the host CSR. */
static int packed_qualifies(const smv_csr *A, int f32, size_t l2) {
  if (A->nnz == 0 || A->rows == 0)
    return 0;
  const int past = (double)A->nnz * (f32 ? 8.0 : 12.0) > (double)l2;
  const double scale = (double)A->cols / (double)A->rows;
  int64_t far = 0;
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      far += fabs((double)A->col_idx[k] - (double)i * scale) > 30000.0;
  return past && far * 100 <= A->nnz;
}

/* Device bytes of rung alg's state alone: on a plain matrix (the rule's
 * rung set up), what preparing alg adds, or, when alg is the rule's own
 * rung, what the matrix holds beyond its CSR. SIZE_MAX on failure. */
static size_t state_bytes(smv_context *ctx, const smv_csr *A, int f32,
                          smv_alg alg) {
  smv_matrix *dA = NULL;
  if (smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA) != SMV_OK)
    return SIZE_MAX;
  smv_matrix_plan_info p;
  size_t out = SIZE_MAX;
  if (smv_matrix_plan(dA, &p) == SMV_OK) {
    const size_t before = smv_matrix_device_bytes(dA);
    if (p.alg == alg)
      out = before - tc_csr_bytes(A, f32);
    else if (smv_matrix_prepare(ctx, dA, alg) == SMV_OK)
      out = smv_matrix_device_bytes(dA) - before;
  }
  smv_matrix_free(dA);
  return out;
}

static void reuse_check(const char *spec, const smv_csr *A, int f32,
                        const smv_matrix_options *o) {
  smv_context *ctx = tc_context();
  const smv_precision prec = f32 ? SMV_F32 : SMV_F64;
  smv_matrix *plain = NULL, *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, prec, &plain));
  smv_status st = smv_matrix_create_ex(ctx, A, prec, o, &dA);
  CHECKF(st == SMV_OK, "%s: %s", spec, smv_context_error(ctx));
  if (!plain || !dA) {
    smv_matrix_free(plain);
    smv_matrix_free(dA);
    return;
  }
  smv_matrix_plan_info h, p;
  CHECK_OK(smv_matrix_plan(plain, &h));
  CHECK_OK(smv_matrix_plan(dA, &p));
  const int want13 = packed_qualifies(A, f32, l2_bytes(ctx));
  if (!want13) {
    /* No compressed rung qualifies: no measurement, the rule's plan and
     * nothing more held than without reuse; the reason says why. */
    CHECK(p.measured == 0);
    CHECK_STR_HAS(p.reason, "reuse declared (");
    CHECK_STR_HAS(p.reason, "no compressed rung qualifies");
    CHECKF(p.alg == h.alg, "%s %s: reuse plan %s, rule %s", spec,
           f32 ? "f32" : "f64", smv_alg_name(p.alg), smv_alg_name(h.alg));
    CHECK(smv_matrix_device_bytes(dA) == smv_matrix_device_bytes(plain));
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.5, -0.5, 0, 1, spec), 0);
    printf("  %s %s: rule %s kept (rung 13 not eligible): %s\n", spec,
           f32 ? "f32" : "f64", smv_alg_name(h.alg), p.reason);
    smv_matrix_free(plain);
    smv_matrix_free(dA);
    return;
  }
  CHECK(p.measured == 1);
  CHECK_STR_HAS(p.reason, "reuse declared (");
  CHECK_STR_HAS(p.reason, "planned by measurement among");
  CHECK(p.tune_ms > 0);
  /* The short list: the rule's pick, rung 13 (it qualifies here),
   * cuSPARSE ALG1 and ALG2, each once. */
  int found = 0, rule = 0, packed = 0, sparse = 0;
  CHECK(p.ncandidates >= 1 && p.ncandidates <= SMV_REUSE_CANDIDATES_MAX);
  for (int c = 0; c < p.ncandidates; c++) {
    const smv_alg a = p.candidates[c].alg;
    CHECKF(a == h.alg || a == SMV_ALG_PACKED || is_sparse(a),
           "%s %s: %s is not on the reuse list (rule's pick %s)", spec,
           f32 ? "f32" : "f64", smv_alg_name(a), smv_alg_name(h.alg));
    CHECKF(p.candidates[c].ms > 0, "%s: %s failed or took no time", spec,
           smv_alg_name(a));
    found += a == p.alg;
    rule += a == h.alg;
    packed += a == SMV_ALG_PACKED;
    sparse += is_sparse(a);
  }
  CHECKF(found == 1, "%s: AUTO's %s is not a candidate", spec,
         smv_alg_name(p.alg));
  CHECK_INT(rule, 1);
  CHECK_INT(sparse, 2);
  CHECKF(packed == want13, "%s %s: rung 13 %s, but the matrix %s", spec,
         f32 ? "f32" : "f64", packed ? "timed" : "not timed",
         want13 ? "qualifies" : "does not qualify");
  /* AUTO's result against the CPU reference, device and host vectors. */
  CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.5, -0.5, 0, 1, spec), 0);
  CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 1, 0, spec), 0);
  /* The losers' state is gone: CSR plus the winner's state (rung 12
   * brings rung 10's tile list, which its state alone does not count:
   * there only a bound). cuSPARSE buffers only for a cuSPARSE winner. */
  const size_t held = smv_matrix_device_bytes(dA);
  const size_t win = state_bytes(ctx, A, f32, p.alg);
  CHECK(win != SIZE_MAX);
  if (p.alg == SMV_ALG_HOT)
    CHECK(held >= tc_csr_bytes(A, f32) + win);
  else
    CHECKF(held == tc_csr_bytes(A, f32) + win,
           "%s %s: the reuse matrix holds %zu bytes, its CSR and %s's state "
           "%zu (a loser's state kept?)",
           spec, f32 ? "f32" : "f64", held, smv_alg_name(p.alg),
           tc_csr_bytes(A, f32) + win);
  if (packed && p.alg != SMV_ALG_PACKED) {
    const size_t s13 = state_bytes(ctx, A, f32, SMV_ALG_PACKED);
    CHECKF(s13 != SIZE_MAX && s13 > 0 &&
               held < tc_csr_bytes(A, f32) + win + s13,
           "%s: rung 13 lost but its %zu bytes stay", spec, s13);
  }
  for (int i = 0; i < 2; i++) {
    const smv_alg a = i ? SMV_ALG_CUSPARSE_ALG2 : SMV_ALG_CUSPARSE_ALG1;
    if (a != p.alg)
      CHECKF(p.cusparse_bytes[i] == 0, "%s: %s lost but its buffer stays", spec,
             smv_alg_name(a));
  }
  printf("  %s %s: rule %s, reuse plan %s of %d (rung 13 %s): %s\n", spec,
         f32 ? "f32" : "f64", smv_alg_name(h.alg), smv_alg_name(p.alg),
         p.ncandidates, packed ? "timed" : "not eligible", p.reason);
  smv_matrix_free(plain);
  smv_matrix_free(dA);
}

static void flag_check(const char *spec, const smv_csr *A, int f32) {
  const smv_matrix_options o = {.flags = SMV_MATRIX_REUSE, .tune_runs = 3};
  reuse_check(spec, A, f32, &o);
}

static void calls_check(const char *spec, const smv_csr *A, int f32) {
  smv_matrix_options o = {.flags = 0, .tune_runs = 0, .expected_calls = 0};
  o.expected_calls = smv_matrix_reuse_threshold(0);
  reuse_check(spec, A, f32, &o);
}

static void test_reuse_plan(void) {
  TC_NEED_DEVICE();
  /* Inside the L2 (rung 13 never qualifies), past it with local columns
   * (lap3d:100: 6.9 M entries, 83 MB in f64, 55 MB in f32; farthest entry
   * 10101 columns from the diagonal: qualifies where the L2 is smaller),
   * stencil27:120 (46.7 M entries, past any L2 here; mean distance 9600
   * columns, farthest 14521: every tile narrow, qualifies), past it with
   * scattered columns (never qualifies). */
  tc_spec_both("lap3d:30", flag_check);
  tc_spec_both("lap3d:100", flag_check);
  tc_spec_both("stencil27:120", flag_check);
  tc_spec_both("rand:300000:16", calls_check);
}

/* Without reuse declared AUTO never runs rung 13 and nothing packed is
 * held: no options, zero options, too few expected calls (the reason says
 * so), cuSPARSE or hot flags. */
static void no_reuse_check(const char *spec, const smv_csr *A, int f32) {
  smv_context *ctx = tc_context();
  const smv_precision prec = f32 ? SMV_F32 : SMV_F64;
  const int64_t below = smv_matrix_reuse_threshold(0) - 1;
  const smv_matrix_options opts[] = {
      {.flags = 0, .tune_runs = 0, .expected_calls = 0},
      {.flags = 0, .tune_runs = 0, .expected_calls = below},
      {.flags = SMV_MATRIX_CUSPARSE, .tune_runs = 0, .expected_calls = 10},
      {.flags = SMV_MATRIX_HOT, .tune_runs = 0, .expected_calls = 0}};
  size_t plain_bytes = 0;
  smv_alg plain_alg = SMV_ALG_AUTO;
  for (int i = -1; i < (int)(sizeof opts / sizeof opts[0]); i++) {
    smv_matrix *dA = NULL;
    smv_status st = i < 0 ? smv_matrix_create(ctx, A, prec, &dA)
                          : smv_matrix_create_ex(ctx, A, prec, &opts[i], &dA);
    CHECKF(st == SMV_OK, "%s: %s", spec, smv_context_error(ctx));
    if (!dA)
      continue;
    smv_matrix_plan_info p;
    CHECK_OK(smv_matrix_plan(dA, &p));
    CHECKF(p.alg != SMV_ALG_PACKED, "%s: AUTO runs rung 13 without reuse",
           spec);
    CHECK(p.measured == 0 && p.ncandidates == 0);
    if (i < 0) {
      plain_bytes = smv_matrix_device_bytes(dA);
      plain_alg = p.alg;
    } else {
      CHECK(p.alg == plain_alg);
    }
    if (i == 0 || i == 1) /* what the flags add aside, the same bytes */
      CHECK(smv_matrix_device_bytes(dA) == plain_bytes);
    if (i == 1) {
      CHECK_STR_HAS(p.reason, "below the reuse threshold");
      CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 0, 0, spec), 0);
    }
    smv_matrix_free(dA);
  }
}

static void test_no_reuse(void) {
  TC_NEED_DEVICE();
  tc_spec_both("lap3d:30", no_reuse_check);
  tc_spec_both("lap3d:100", no_reuse_check);
}

/* SMV_MATRIX_TUNE (and smv_matrix_tune) time rung 13 with the rest, and
 * a tuned matrix still holds only its winner's set-up. */
static void test_tune_times_packed(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap3d:30");
  if (!A)
    return;
  const smv_matrix_options o = {.flags = SMV_MATRIX_TUNE, .tune_runs = 3};
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA));
  if (dA) {
    smv_matrix_plan_info p;
    CHECK_OK(smv_matrix_plan(dA, &p));
    int packed = 0;
    for (int c = 0; c < p.ncandidates; c++)
      if (p.candidates[c].alg == SMV_ALG_PACKED) {
        packed = 1;
        CHECK(p.candidates[c].ms > 0);
      }
    CHECK(packed);
    CHECK_STR_HAS(p.reason, "measured:");
    if (p.alg != SMV_ALG_HOT)
      CHECK(smv_matrix_device_bytes(dA) ==
            tc_csr_bytes(A, 0) + state_bytes(ctx, A, 0, p.alg));
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 0, 0, "tune"), 0);
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

static void test_bad_options(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap2d:10");
  if (!A)
    return;
  smv_matrix *dA = NULL;
  smv_matrix_options o = {.flags = 0, .tune_runs = 0, .expected_calls = -1};
  CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA), SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "expected_calls");
  CHECK(dA == NULL);
  o.expected_calls = 0;
  o.flags = 0x100;
  CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA), SMV_ERR_ARG);
  o.flags = SMV_MATRIX_REUSE;
  o.tune_runs = -1;
  CHECK_STATUS(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA), SMV_ERR_ARG);
  CHECK(dA == NULL);
  smv_csr_free(A);
}

/* CG on a plain matrix and on a reuse one, the same options. */
static void cg_pair(const char *spec, int persistent) {
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate(spec);
  if (!A)
    return;
  const int64_t n = A->rows;
  double *b = (double *)malloc((size_t)n * sizeof *b);
  double *x = (double *)malloc((size_t)n * sizeof *x);
  smv_matrix *plain = NULL, *dA = NULL;
  const smv_matrix_options o = {
      .flags = SMV_MATRIX_REUSE, .tune_runs = 0, .expected_calls = 2000};
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &plain));
  CHECK_OK(smv_matrix_create_ex(ctx, A, SMV_F64, &o, &dA));
  if (b && x && plain && dA) {
    for (int64_t i = 0; i < n; i++)
      b[i] = 1.0;
    smv_solve_options so;
    smv_solve_options_init(&so);
    so.tol = 1e-8;
    so.maxit = 2000;
    so.persistent = persistent;
    smv_solve_result r0, r1;
    CHECK_OK(smv_solve_cuda_host(ctx, plain, SMV_METHOD_CG, b, x, &so, &r0));
    CHECK_OK(smv_solve_cuda_host(ctx, dA, SMV_METHOD_CG, b, x, &so, &r1));
    smv_matrix_plan_info p0, p1;
    CHECK_OK(smv_matrix_plan(plain, &p0));
    CHECK_OK(smv_matrix_plan(dA, &p1));
    CHECK(r0.converged && r1.converged);
    /* The persistent kernel does its own SpMV: the rung does not matter
     * there, and the reuse plan (AUTO) does not turn it off. */
    CHECK_INT(r1.persistent, r0.persistent);
    const int same = p0.alg == p1.alg || r0.persistent;
    if (same)
      CHECKF(r0.iterations == r1.iterations,
             "%s: %d iterations plain (%s), %d with reuse (%s)", spec,
             r0.iterations, smv_alg_name(p0.alg), r1.iterations,
             smv_alg_name(p1.alg));
    else
      CHECKF(abs(r0.iterations - r1.iterations) <= 2,
             "%s: %d iterations plain (%s), %d with reuse (%s)", spec,
             r0.iterations, smv_alg_name(p0.alg), r1.iterations,
             smv_alg_name(p1.alg));
    printf("  CG %s: %d iterations plain (%s), %d with reuse (%s)%s\n", spec,
           r0.iterations, smv_alg_name(p0.alg), r1.iterations,
           smv_alg_name(p1.alg), r1.persistent ? ", persistent" : "");
  }
  smv_matrix_free(plain);
  smv_matrix_free(dA);
  free(b);
  free(x);
  smv_csr_free(A);
}

static void test_solver_reuse(void) {
  TC_NEED_DEVICE();
  cg_pair("lap3d:30", 0);  /* inside the L2: the persistent kernel */
  cg_pair("lap3d:30", -1); /* the graph path */
  cg_pair("lap3d:100", 0); /* past the L2: the graph path, rung 13 timed */
}

int main(void) {
  RUN(test_bad_options);
  RUN(test_no_reuse);
  RUN(test_reuse_plan);
  RUN(test_tune_times_packed);
  RUN(test_solver_reuse);
  return TEST_END();
}
