/*
 * test_cuda_pdl.c — rung 9's programmatic dependent launch (its change 6)
 * keeps stream order. Rung 9 is launched so that it may start while the
 * kernel before it still runs, reads only matrix arrays until
 * griddepcontrol.wait, and (small matrices) lets the kernel after it
 * launch early. A wait in the wrong place shows up as a wrong answer in
 * chains of SpMVs where each call's x is the previous call's y:
 *   - distinct buffers: v_k = alpha A v_{k-1} + beta v_k for k = 1..STEPS,
 *     queued back to back with no synchronisation, then every step checked
 *     against the serial reference on the v_{k-1} the device produced
 *     (v_k starts as NaN when beta = 0, so an early read of it poisons the
 *     next step);
 *   - ping-pong (two buffers, beta = 0): step k + 1 overwrites the x that
 *     step k reads, so an early write of y shows too; the result must be
 *     bit-identical to the distinct chain's last step (rung 9 is
 *     bit-reproducible);
 *   - the ping-pong chain captured in a CUDA graph (PDL edges), replayed
 *     twice, bit-identical again.
 * On matrices that take each of rung 9's paths: the one-round plan with
 * warp chunks, block rows and a row of several chunks (partials and
 * counters), empty rows, and the default plan of a larger matrix; f64 and
 * f32. The plan line must name PDL where the device has it (cc >= 9.0),
 * with the early trigger exactly when nnz <= 2 x resident threads.
 */
#include "test_cuda_common.h"

#include "test_cuda_runtime.h"

#define STEPS 8

/* A square n x n matrix (n >= 8192) with every fourth row empty, rows of
 * 1..23 entries, one row of 1000 entries (a block row in the one-round
 * plan) and one of 3000 (three warp chunks: partials and counters).
 * Columns spread evenly, so every row is sorted and duplicate-free. */
static int64_t gappy_len(int64_t i) {
  return i == 5 ? 1000 : i == 6 ? 3000 : i % 4 == 0 ? 0 : 1 + (i * 7) % 23;
}
static smv_csr *gappy(int64_t n) {
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++)
    nnz += gappy_len(i);
  smv_csr *A = NULL;
  if (smv_csr_create((smv_index)n, (smv_index)n, nnz, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t len = gappy_len(i);
    A->row_ptr[i] = (smv_offset)k;
    const int64_t gap = n / (len > 0 ? len : 1);
    for (int64_t j = 0; j < len; j++, k++) {
      A->col_idx[k] = (smv_index)(j * gap + i % gap);
      A->values[k] = tc_uniform();
    }
  }
  A->row_ptr[n] = (smv_offset)k;
  return A;
}

/* 1 / sqrt(longest row): values stay within range over STEPS products. */
static double chain_alpha(const smv_csr *A) {
  smv_stats s;
  memset(&s, 0, sizeof s);
  CHECK_OK(smv_csr_stats(A, &s));
  return 1.0 / sqrt((double)(s.row_max > 1 ? s.row_max : 1));
}

/* The plan line names PDL as the device and the size call for. */
static void check_plan_line(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                            const char *what) {
  smv_matrix_plan_info p;
  smv_device_props d;
  CHECK_OK(smv_matrix_plan(dA, &p));
  CHECK_OK(smv_device_props_get(ctx, &d));
  if (p.alg != SMV_ALG_ADAPTIVE)
    return; /* the rung 9 line is in the reason only when AUTO runs it */
  const int64_t resident = (int64_t)d.sm_count * d.max_threads_per_sm;
  if (d.cc_major < 9)
    CHECKF(!strstr(p.reason, "PDL"), "%s: %s", what, p.reason);
  else if (A->nnz <= 2 * resident)
    CHECKF(strstr(p.reason, "PDL (overlaps the kernels before and after)"),
           "%s: %s", what, p.reason);
  else
    CHECKF(strstr(p.reason, "PDL (overlaps the kernel before)"), "%s: %s", what,
           p.reason);
}

struct chain {
  smv_context *ctx;
  smv_matrix *dA;
  const smv_csr *A;
  int f32;
  size_t es;
  double alpha;
  void *v[STEPS + 1]; /* distinct buffers */
  void *pp[2];        /* ping-pong */
  double *h[STEPS + 1], *y0[STEPS + 1];
};

/* Distinct chain with this beta: queue, then check every step. */
static void distinct_chain(struct chain *c, smv_alg alg, double beta,
                           const char *label) {
  const int64_t n = c->A->rows;
  tc_fill(c->h[0], n);
  CHECK_OK(tc_upload(c->ctx, c->f32, c->h[0], n, c->v[0]));
  for (int k = 1; k <= STEPS; k++) {
    if (beta == 0.0)
      tc_fill_nan(c->y0[k], n);
    else
      tc_fill(c->y0[k], n);
    CHECK_OK(tc_upload(c->ctx, c->f32, c->y0[k], n, c->v[k]));
  }
  CHECK_OK(smv_synchronize(c->ctx));
  for (int k = 1; k <= STEPS; k++)
    CHECK_OK(
        smv_spmv(c->ctx, alg, c->alpha, c->dA, c->v[k - 1], beta, c->v[k]));
  CHECK_OK(smv_synchronize(c->ctx));
  for (int k = 1; k <= STEPS; k++) {
    CHECK_OK(tc_download(c->ctx, c->f32, c->v[k], n, c->h[k]));
    char what[300];
    snprintf(what, sizeof what, "%s %s %s beta=%g step %d", label,
             smv_alg_name(alg), c->f32 ? "f32" : "f64", beta, k);
    CHECKF(tc_verify(c->A, c->f32, c->alpha, c->h[k - 1], beta, c->y0[k],
                     c->h[k], what) == 0,
           "%s", what);
  }
}

/* Ping-pong from h[0] (beta 0): the last step must equal h[STEPS] bit for
 * bit. Returns the device buffer holding the result. */
static void *ping_pong(struct chain *c, smv_alg alg) {
  for (int k = 1; k <= STEPS; k++)
    if (smv_spmv(c->ctx, alg, c->alpha, c->dA, c->pp[(k - 1) & 1], 0.0,
                 c->pp[k & 1]) != SMV_OK)
      return NULL;
  return c->pp[STEPS & 1];
}

static void check_same_bits(struct chain *c, void *d, const char *what) {
  const int64_t n = c->A->rows;
  void *got = malloc((size_t)n * c->es), *want = malloc((size_t)n * c->es);
  CHECK(got && want);
  if (got && want) {
    CHECK_OK(smv_memcpy_d2h(c->ctx, got, d, (size_t)n * c->es));
    CHECK_OK(smv_memcpy_d2h(c->ctx, want, c->v[STEPS], (size_t)n * c->es));
    CHECKF(memcmp(got, want, (size_t)n * c->es) == 0,
           "%s: ping-pong differs from the distinct chain", what);
  }
  free(got), free(want);
}

static void chains_on(const smv_csr *A, smv_precision prec, const char *label) {
  smv_context *ctx = tc_context();
  struct chain c;
  memset(&c, 0, sizeof c);
  c.ctx = ctx, c.A = A, c.f32 = prec == SMV_F32;
  c.es = c.f32 ? sizeof(float) : sizeof(double);
  c.alpha = chain_alpha(A);
  const int64_t n = A->rows;
  CHECK_OK(smv_matrix_create(ctx, A, prec, &c.dA));
  int ok = c.dA != NULL;
  for (int k = 0; ok && k <= STEPS; k++) {
    ok = smv_device_malloc(ctx, (size_t)n * c.es, &c.v[k]) == SMV_OK &&
         (c.h[k] = malloc((size_t)n * sizeof(double))) &&
         (c.y0[k] = malloc((size_t)n * sizeof(double)));
  }
  for (int k = 0; ok && k < 2; k++)
    ok = smv_device_malloc(ctx, (size_t)n * c.es, &c.pp[k]) == SMV_OK;
  CHECKF(ok, "%s: set-up: %s", label, smv_context_error(ctx));
  if (!ok)
    goto out;
  check_plan_line(ctx, c.dA, A, label);

  const smv_alg algs[2] = {SMV_ALG_ADAPTIVE, SMV_ALG_AUTO};
  for (int a = 0; a < 2; a++) {
    char what[300];
    snprintf(what, sizeof what, "%s %s %s", label, smv_alg_name(algs[a]),
             c.f32 ? "f32" : "f64");
    distinct_chain(&c, algs[a], 0.5, label);
    distinct_chain(&c, algs[a], 0.0, label); /* h[0] and v[STEPS] kept */
    CHECK_OK(tc_upload(ctx, c.f32, c.h[0], n, c.pp[0]));
    void *r = ping_pong(&c, algs[a]);
    CHECKF(r != NULL, "%s: ping-pong: %s", what, smv_context_error(ctx));
    CHECK_OK(smv_synchronize(ctx));
    if (r)
      check_same_bits(&c, r, what);
#ifdef TC_HAVE_RUNTIME
    /* The same chain in a CUDA graph on a caller's stream. */
    cudaStream_t s = NULL;
    CUDA_OK(cudaStreamCreate(&s));
    if (!s)
      continue;
    CHECK_OK(smv_context_set_stream(ctx, (void *)s));
    /* What is captured must be set up first (it is: the chains above ran
     * it; prepared anyway, as a caller would). */
    CHECK_OK(smv_matrix_prepare(ctx, c.dA, algs[a]));
    cudaGraph_t g = NULL;
    cudaGraphExec_t ge = NULL;
    CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    r = ping_pong(&c, algs[a]);
    CUDA_OK(cudaStreamEndCapture(s, &g));
    CHECKF(r != NULL, "%s: capture: %s", what, smv_context_error(ctx));
    if (g && r)
      CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
    for (int rep = 0; ge && rep < 2; rep++) {
      CHECK_OK(tc_upload(ctx, c.f32, c.h[0], n, c.pp[0]));
      CUDA_OK(cudaGraphLaunch(ge, s));
      CUDA_OK(cudaStreamSynchronize(s));
      char w2[340];
      snprintf(w2, sizeof w2, "%s graph replay %d", what, rep);
      check_same_bits(&c, r, w2);
    }
    if (ge)
      cudaGraphExecDestroy(ge);
    if (g)
      cudaGraphDestroy(g);
    CHECK_OK(smv_context_set_stream(ctx, NULL));
    CUDA_OK(cudaStreamDestroy(s));
#endif
  }
out:
  for (int k = 0; k <= STEPS; k++) {
    smv_device_free(ctx, c.v[k]);
    free(c.h[k]), free(c.y0[k]);
  }
  smv_device_free(ctx, c.pp[0]);
  smv_device_free(ctx, c.pp[1]);
  smv_matrix_free(c.dA);
}

static void both(smv_csr *A, const char *label) {
  if (!A)
    return;
  chains_on(A, SMV_F64, label);
  tc_round_values(A);
  chains_on(A, SMV_F32, label);
  smv_csr_free(A);
}

/* One-round plan: power-law rows to warp chunks and block rows. */
static void test_pdl_one_round(void) {
  TC_NEED_DEVICE();
  both(tst_generate("plaw:20000:12"), "plaw:20000:12");
}

/* Empty rows, a block row and a row of three chunks. */
static void test_pdl_gappy(void) {
  TC_NEED_DEVICE();
  smv_csr *A = gappy(30000);
  CHECK(A != NULL);
  both(A, "gappy:30000");
}

/* Default plan, above the early-trigger size on an H100 (798k entries). */
static void test_pdl_default_plan(void) {
  TC_NEED_DEVICE();
  both(tst_generate("lap2d:400"), "lap2d:400");
}

int main(void) {
  RUN(test_pdl_one_round);
  RUN(test_pdl_gappy);
  RUN(test_pdl_default_plan);
  smv_context_free(tc_ctx);
  return TEST_END();
}
