/*
 * tune.cu — the plan by measurement (smv_matrix_tune, SMV_MATRIX_TUNE):
 * time every candidate rung on this matrix and make the fastest AUTO's.
 *
 * Why: the heuristic (smv_auto_choose) decides from a few statistics and
 * was tuned on a handful of matrices; a user who runs many SpMVs on one
 * matrix (an iterative solver) can afford a few hundred microseconds to
 * milliseconds of measurement at analysis to be sure AUTO is the fastest
 * rung here, on this GPU, like an autotuner.
 *
 * Candidates come from the registry (src/core/rungs.def): every rung whose
 * line says `tuned` (all but 2, 3, 4 and 6, which dispatch.cu's table of
 * contents shows superseded by rung 5 or lost on sm_90; cuSPARSE ALG1 and
 * ALG2 included), so a new rung joins with its line. Each candidate is set
 * up for the measurement (rung 12 with its hot columns) and, unless it
 * wins, was asked for before, or a rung kept needs it, released again
 * after (smv_rungs_settle).
 *
 * Method: scratch x (cols, values in [0.5, 1.5) from a hash of the index:
 * never zero, no cancellation) and y (rows), alpha 1, beta 0; per
 * candidate 2 untimed warm-up runs, then `runs` launches each between its
 * own pair of CUDA events, median (L2-warm: the matrix state a solver's
 * loop sees when the matrix fits, and the first-touch cost is in the
 * warm-up). A candidate that fails (launch error) is recorded with a
 * negative time and skipped; the context's error text is cleared so the
 * failure does not leak into the caller's next message. Cost: about
 * (2 + runs) * candidates SpMVs plus the cuSPARSE preprocesses.
 * The result is not verified here (every rung is checked against the CPU
 * reference by the device tests and the bench); ties (within 1%) go to
 * the heuristic's choice, so noise does not flip a plan for nothing.
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

template <typename T> __global__ void tune_fill(T *x, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u;
    h ^= h >> 15;
    x[i] = (T)(0.5 + (double)h * 0x1p-32);
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median time of `runs` SpMVs of alg, in ms, or a status. */
static smv_status time_alg(smv_context *ctx, smv_matrix *m, smv_alg alg,
                           const void *x, void *y, int runs, cudaEvent_t *ev,
                           double *times, double *median) {
  for (int w = 0; w < 2; w++) {
    smv_status st = smv_spmv(ctx, alg, 1.0, m, x, 0.0, y);
    if (st != SMV_OK)
      return st;
  }
  for (int r = 0; r < runs; r++) {
    cudaError_t e = cudaEventRecord(ev[0], ctx->stream);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "cudaEventRecord");
    smv_status st = smv_spmv(ctx, alg, 1.0, m, x, 0.0, y);
    if (st != SMV_OK)
      return st;
    float ms = 0;
    if ((e = cudaEventRecord(ev[1], ctx->stream)) != cudaSuccess ||
        (e = cudaEventSynchronize(ev[1])) != cudaSuccess ||
        (e = cudaEventElapsedTime(&ms, ev[0], ev[1])) != cudaSuccess)
      return smv_cu_fail(ctx, e, "timing %s", smv_alg_name(alg));
    times[r] = ms;
  }
  qsort(times, (size_t)runs, sizeof *times, cmp_double);
  *median = runs % 2 ? times[runs / 2]
                     : 0.5 * (times[runs / 2 - 1] + times[runs / 2]);
  return SMV_OK;
}

unsigned smv_tuned_candidates(const smv_matrix *m) {
  unsigned among = 0;
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (smv_alg_tuned((smv_alg)a) && r && (r->precisions & (1u << m->prec)))
      among |= 1u << a;
  }
  return among;
}

unsigned smv_reuse_candidates(const smv_context *ctx, const smv_matrix *m) {
  unsigned among = 1u << m->heuristic_alg;
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (!r || !(r->precisions & (1u << m->prec)))
      continue;
    const int sparse = a == SMV_ALG_CUSPARSE_ALG1 || a == SMV_ALG_CUSPARSE_ALG2;
    if ((sparse && smv_alg_tuned((smv_alg)a)) || (r->reuse && r->reuse(ctx, m)))
      among |= 1u << a;
  }
  return among;
}

int smv_reuse_compressed(unsigned among) {
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if ((among & (1u << a)) && r && r->reuse)
      return 1;
  }
  return 0;
}

/* "tiled, packed, cusparse-alg1" into buf: the rungs of a mask. */
static void mask_names(unsigned among, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 1; a < SMV_ALG_COUNT && used < n; a++)
    if (among & (1u << a))
      used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                               smv_alg_name((smv_alg)a));
}

smv_status smv_matrix_measure(smv_context *ctx, smv_matrix *m, int runs,
                              const smv_csr *A, unsigned among, int at_analysis,
                              const char *reuse) {
  if (runs == 0)
    runs = 10;
  const double t0 = smv_now_ms();
  const smv_alg heuristic = m->heuristic_alg;
  /* The tuner releases only what it sets up itself: what the matrix holds
   * now stays (smv_rungs_settle below). At analysis what is set up but
   * not kept was made only for AUTO's rule (rung 12's hot columns, and
   * rung 10 under them): it is one more candidate, kept only if it wins. */
  if (!at_analysis)
    for (int a = 1; a < SMV_ALG_COUNT; a++)
      if (m->ready[a])
        m->kept[a] = 1;
  smv_matrix_plan_info *p = &m->plan;
  p->ncandidates = 0;
  /* "reuse declared (HOW): planned by measurement among LIST: " */
  char lead[320] = "measured: ";
  if (reuse) {
    char names[192];
    mask_names(among, names, sizeof names);
    snprintf(lead, sizeof lead,
             "reuse declared (%s): planned by measurement among %s: ", reuse,
             names);
  }
  smv_status st = SMV_OK;
  if (m->st.rows == 0 || m->st.cols == 0 || m->st.nnz == 0) {
    /* Nothing to time: every rung writes y = beta y. */
    m->auto_alg = heuristic;
    p->measured = 1;
    snprintf(p->reason, sizeof p->reason,
             "%snothing to time (no entries), %s kept", lead,
             smv_alg_name(heuristic));
    p->tune_ms = smv_now_ms() - t0;
    return SMV_OK;
  }
  const size_t es = smv_prec_vector_bytes(m->prec); /* x, y elements */
  void *x = NULL, *y = NULL;
  cudaEvent_t ev[2] = {NULL, NULL};
  cudaError_t e = cudaSuccess;
  double *times = (double *)malloc((size_t)runs * sizeof(double));
  smv_alg best = SMV_ALG_AUTO;
  double best_ms = 0, heur_ms = -1;
  if (!times) {
    st = smv_ctx_set(ctx, SMV_ERR_NOMEM, "smv_matrix_tune: out of memory");
    goto out;
  }
  if ((e = cudaMalloc(&x, (size_t)m->st.cols * es)) != cudaSuccess ||
      (e = cudaMalloc(&y, (size_t)m->st.rows * es)) != cudaSuccess ||
      (e = cudaEventCreate(&ev[0])) != cudaSuccess ||
      (e = cudaEventCreate(&ev[1])) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "smv_matrix_tune: scratch vectors and events");
    goto out;
  }
  if (m->prec != SMV_F32)
    tune_fill<double><<<smv_grid_for(m->st.cols, 256), 256, 0, ctx->stream>>>(
        (double *)x, m->st.cols);
  else
    tune_fill<float><<<smv_grid_for(m->st.cols, 256), 256, 0, ctx->stream>>>(
        (float *)x, m->st.cols);
  if ((e = cudaGetLastError()) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "smv_matrix_tune: launch of the x fill");
    goto out;
  }
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const smv_alg alg = (smv_alg)a;
    if (!(among & (1u << a)))
      continue;
    if (!smv_rung_runs(alg, m->prec)) /* f64-f32v: rungs 9 and 10 only */
      continue;
    const struct smv_rung *r = smv_rung_of(alg);
    double ms = -1;
    /* Set up for the measurement (rung 12 with its hot columns), kept
     * below only if it wins or was asked for. The host CSR saves the
     * copy back of the offsets (and of the columns, where it has them). */
    const smv_csr *host = A && (!r->host_cols || A->col_idx) ? A : NULL;
    smv_status cst = smv_rung_prepare_plan(ctx, m, alg, host);
    if (cst == SMV_OK)
      cst = time_alg(ctx, m, alg, x, y, runs, ev, times, &ms);
    if (cst != SMV_OK) {
      /* One rung failing must not sink the plan: note it, go on. */
      (void)cudaStreamSynchronize(ctx->stream);
      (void)cudaGetLastError();
      ctx->err[0] = '\0';
      ms = -1;
    }
    p->candidates[p->ncandidates].alg = alg;
    p->candidates[p->ncandidates].ms = ms;
    p->ncandidates++;
    if (alg == heuristic)
      heur_ms = ms;
    if (ms >= 0 && (best == SMV_ALG_AUTO || ms < best_ms)) {
      best = alg;
      best_ms = ms;
    }
  }
  if (best == SMV_ALG_AUTO) {
    st = smv_ctx_set(ctx, SMV_ERR_CUDA,
                     "smv_matrix_tune: every candidate failed");
    goto out;
  }
  /* Within 1% of the heuristic's rung: keep the heuristic's. */
  if (heur_ms >= 0 && best != heuristic && heur_ms <= best_ms * 1.01) {
    best = heuristic;
    best_ms = heur_ms;
  }
  m->auto_alg = best;
  p->measured = 1;
  snprintf(p->reason, sizeof p->reason,
           "%s%s fastest of %d candidates, median %.2f us of %d L2-warm runs "
           "(heuristic's %s: %.2f us)",
           lead, smv_alg_name(best), p->ncandidates, best_ms * 1e3, runs,
           smv_alg_name(heuristic), heur_ms * 1e3);
out:
  if (ev[0])
    cudaEventDestroy(ev[0]);
  if (ev[1])
    cudaEventDestroy(ev[1]);
  if (x)
    cudaFree(x);
  if (y)
    cudaFree(y);
  free(times);
  /* What was set up only for the measurement goes again (rung 12's hot
   * columns too, unless it won or they were asked for; rung 13's packed
   * arrays unless it won). */
  smv_rungs_settle(m);
  if (st == SMV_OK) { /* the winner's plan line, where the reason has room */
    char line[256];
    smv_rung_describe(m, m->auto_alg, line, sizeof line);
    const size_t used = strlen(p->reason);
    if (line[0] && used + 2 + strlen(line) < sizeof p->reason)
      snprintf(p->reason + used, sizeof p->reason - used, "; %s", line);
  }
  p->alg = m->auto_alg;
  p->tune_ms = smv_now_ms() - t0;
  return st;
}

extern "C" smv_status smv_matrix_tune(smv_context *ctx, smv_matrix *m,
                                      int runs) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!m)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_tune: NULL matrix");
  if (runs < 0 || runs > 100000)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_tune: runs = %d", runs);
  if (m->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_tune: matrix lives on device %d, context "
                       "on %d",
                       m->device, ctx->device);
  struct smv_device_guard g;
  smv_status st = smv_device_enter_uncaptured(
      ctx, &g, "", SMV_ERR_UNSUPPORTED,
      "smv_matrix_tune: the stream is being captured (tuning times runs and "
      "synchronises)");
  if (st != SMV_OK)
    return st;
  st = smv_matrix_measure(ctx, m, runs, NULL, smv_tuned_candidates(m), 0, NULL);
  smv_device_leave(&g);
  return st;
}
