/*
 * matrix.cu — smv_matrix: the analysis phase. smv_matrix_create checks the
 * host CSR (smv_csr_check), computes the statistics AUTO and the rungs
 * decide from, uploads the arrays once, makes the plan (AUTO's rung, by
 * the rule of src/core/auto.def, with the statistics that decided as its
 * reason) and sets up what the plan needs: AUTO's rung (unless the tuner
 * follows: it sets up what it times and keeps the winner), the rungs AUTO's
 * rule reads (rung 12's hot columns, only where it considers rung 12:
 * released again unless it picks it), and the rungs a flag asks for
 * (SMV_MATRIX_CUSPARSE: 7 and 8; SMV_MATRIX_HOT: 12). Any other rung is set
 * up on its first call or by smv_matrix_prepare (rungs.cu, dispatch.cu), so
 * smv_spmv of a prepared rung does not allocate.
 * Each step is timed (host clock, synchronised) into the plan record that
 * smv_matrix_plan returns; SMV_MATRIX_TUNE then plans by measurement
 * among every tuned rung, and reuse declared (SMV_MATRIX_REUSE, or
 * expected_calls past smv_matrix_reuse_threshold) among a short list that
 * adds the compressed rungs (tune.cu).
 *
 * Device footprint: (rows + 1) * 4 bytes of row offsets, nnz * 4 of column
 * indices, nnz * 8 (f64) or nnz * 4 (f32, f64-f32v) of values, plus the state
 * of the rungs set up (each rung's device_bytes: its file gives the sizes).
 * smv_matrix_device_bytes adds these up. f32 values are rounded on the host
 * in chunks of 1 Mi entries (4 MiB of host staging), never a full copy of
 * the matrix.
 */
#include "analyse.h"
#include "engine.h"

#include <atomic>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void compute_stats(const smv_csr *A, struct smv_matrix_stats *s) {
  memset(s, 0, sizeof *s);
  s->rows = A->rows;
  s->cols = A->cols;
  s->nnz = A->nnz;
  if (A->rows > 0)
    s->row_mean = (double)A->nnz / (double)A->rows;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
    if (len > s->row_max)
      s->row_max = len;
    if ((double)len > 4.0 * s->row_mean)
      s->long_rows++;
    if (len < SMV_SPMM_SHORT_ROW)
      s->short_rows++;
  }
  if (A->nnz > 0 && A->cols > 0) {
    const double scale = (double)A->cols / (double)A->rows;
    double spread = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      const double diag = (double)i * scale;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        const double d = fabs((double)A->col_idx[k] - diag);
        spread += d;
        s->far_entries += d > SMV_NEAR_COLS;
      }
    }
    s->col_spread = spread / (double)A->nnz / (double)A->cols;
  }
}

static smv_status upload(smv_context *ctx, void **dst, const void *src,
                         size_t bytes, const char *what) {
  *dst = NULL;
  if (bytes == 0)
    return SMV_OK;
  cudaError_t e = cudaMalloc(dst, bytes);
  if (e != cudaSuccess) {
    *dst = NULL;
    return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (%s)", bytes, what);
  }
  if (!src)
    return SMV_OK;
  e = cudaMemcpyAsync(*dst, src, bytes, cudaMemcpyHostToDevice, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaMemcpy of %zu bytes (%s)", bytes, what);
  return SMV_OK;
}

/* Round doubles to float on the host, a chunk at a time, into dst. */
static smv_status upload_f32(smv_context *ctx, float *dst, const double *src,
                             int64_t n) {
  const int64_t chunk = (int64_t)1 << 20;
  float *stage = (float *)malloc((size_t)(n < chunk ? n : chunk) * 4);
  if (!stage)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %lld bytes (f32 staging): out of memory",
                       (long long)((n < chunk ? n : chunk) * 4));
  smv_status st = SMV_OK;
  for (int64_t off = 0; off < n; off += chunk) {
    int64_t c = n - off < chunk ? n - off : chunk;
    for (int64_t i = 0; i < c; i++)
      stage[i] = (float)src[off + i];
    cudaError_t e = cudaMemcpyAsync(dst + off, stage, (size_t)c * 4,
                                    cudaMemcpyHostToDevice, ctx->stream);
    if (e == cudaSuccess) /* the stage is reused: wait before refilling */
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of %lld bytes (values)",
                       (long long)c * 4);
      break;
    }
  }
  free(stage);
  return st;
}

static void release(smv_matrix *m) {
  smv_matrix_free(m->transpose); /* A^T, if it was built (transpose.cu) */
  smv_spmm_release(m);
  smv_rungs_release(m);
  cudaFree(m->row_ptr); /* cudaFree(NULL) does nothing */
  cudaFree(m->col_idx);
  cudaFree(m->values);
  free(m);
}

int smv_matrix_past_l2(const smv_context *ctx, const smv_matrix *m) {
  const double vbytes = (double)smv_prec_value_bytes(m->prec);
  return (double)m->st.nnz * (vbytes + 4.0) > (double)ctx->prop.l2CacheSize;
}

int smv_matrix_scattered(const smv_matrix *m) {
  return m->st.col_spread > 0.05;
}

double smv_now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* The heuristic's reason: the statistics it decides from, beside the L2. */
/* Append to the plan's reason (truncated at its size, as snprintf does). */
static void reason_add(smv_matrix *m, const char *fmt, ...) {
  const size_t used = strlen(m->plan.reason);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->plan.reason + used, sizeof m->plan.reason - used, fmt, ap);
  va_end(ap);
}

static void heuristic_reason(const smv_context *ctx, smv_matrix *m) {
  const struct smv_matrix_stats *s = &m->st;
  const double esize = (double)smv_prec_value_bytes(m->prec);
  const double mb =
      ((double)s->nnz * (4.0 + esize) + (double)(s->rows + 1) * 4.0) / 1e6;
  snprintf(m->plan.reason, sizeof m->plan.reason,
           "heuristic: %lld rows, %lld nnz, %.1f per row (max %lld), column "
           "spread %.3f, CSR %.1f MB vs L2 %.1f MB -> %s",
           (long long)s->rows, (long long)s->nnz, s->row_mean,
           (long long)s->row_max, s->col_spread, mb,
           (double)ctx->prop.l2CacheSize / 1e6, smv_alg_name(m->auto_alg));
}

/* AUTO's rung: the rule's line, or rung 9 where the rung of that line does
 * not run the matrix's precision. Only f64-f32v meets that (rungs 2, 9
 * and 10 run it): the rule's lines for cuSPARSE and rung 12 then give
 * rung 9, so AUTO chooses between rungs 9 and 10 by f64's rule. */
static smv_alg auto_for(const smv_matrix *m, smv_alg rule) {
  return smv_rung_runs(rule, m->prec) ? rule : SMV_ALG_ADAPTIVE;
}

/* Rungs a creation flag asks for, set up at analysis and kept. */
static const struct {
  unsigned flag;
  smv_alg alg;
} flag_rungs[] = {{SMV_MATRIX_CUSPARSE, SMV_ALG_CUSPARSE_ALG1},
                  {SMV_MATRIX_CUSPARSE, SMV_ALG_CUSPARSE_ALG2},
                  {SMV_MATRIX_HOT, SMV_ALG_HOT}};

/* The analysis after the arrays are on the device and m->st is filled
 * (analyse.h): what AUTO's rule reads, the rungs a flag asks for, the
 * plan, AUTO's rung set up, tuning. Shared by smv_matrix_create_ex and
 * smv_matrix_create_device (matrix_device.cu); A is read for rows, cols,
 * nnz and the host row offsets only. Runs inside the caller's device
 * guard; on failure it releases m. */
smv_status smv_matrix_analyse(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                              const smv_matrix_options *opt) {
  smv_status st = SMV_OK;
  double t;
  /* What AUTO's rule reads (rung 12's hot columns where it considers
   * rung 12) and the rungs a flag asks for. */
  struct smv_auto_facts facts;
  memset(&facts, 0, sizeof facts);
  t = smv_now_ms();
  st = smv_auto_facts_of(ctx, m, A, &facts);
  for (size_t i = 0; i < sizeof flag_rungs / sizeof flag_rungs[0]; i++)
    if (st == SMV_OK && (m->opts & flag_rungs[i].flag))
      st = smv_rung_prepare(ctx, m, flag_rungs[i].alg, A, 1);
  m->plan.prep_ms = smv_now_ms() - t;
  /* The plan: AUTO's rung from the facts. */
  t = smv_now_ms();
  const smv_alg rule = smv_auto_choose(&facts);
  m->auto_alg = m->heuristic_alg = auto_for(m, rule);
  m->plan.plan_ms = smv_now_ms() - t;
  m->plan.alg = m->auto_alg;
  heuristic_reason(ctx, m);
  if (rule != m->auto_alg) /* say why the rule's rung did not run */
    reason_add(m, " (the rule's %s does not run %s)", smv_alg_name(rule),
               smv_precision_name(m->prec));
  /* Planned by measurement: every tuned rung (SMV_MATRIX_TUNE), or with
   * reuse declared the short list (tune.cu, smv_reuse_candidates). */
  const int tune = (m->opts & SMV_MATRIX_TUNE) != 0;
  const int declared = !tune && smv_matrix_reuse_declared(opt);
  /* Reuse is measured only where a compressed rung qualifies. Without
   * one the short list is the rule's pick against cuSPARSE, which the
   * rule decides already; inside the L2 (where rung 13 never qualifies)
   * the persistent solvers run their own SpMV and never the plan's, so
   * a solve would pay tens of SpMVs of measurement for nothing. */
  const unsigned among = declared ? smv_reuse_candidates(ctx, m) : 0u;
  const int reuse = declared && smv_reuse_compressed(among);
  char how[96] = "";
  if (declared)
    smv__reuse_words(opt, how, sizeof how);
  /* AUTO's rung, unless the tuner follows (it sets up what it times).
   * A library rung's time is its own record (cusparse_ms). */
  if (st == SMV_OK && !tune && !reuse) {
    t = smv_now_ms();
    st = smv_rung_prepare(ctx, m, m->auto_alg, A, 1);
    if (smv_kernel_rung_of(m->auto_alg))
      m->plan.prep_ms += smv_now_ms() - t;
  }
  /* What was set up only for the rule goes again unless AUTO runs it. */
  smv_rungs_settle(m);
  if (st == SMV_OK) {
    char line[256];
    smv_rung_describe(m, m->auto_alg, line, sizeof line);
    if (line[0])
      reason_add(m, "; %s", line);
  }
  if (st == SMV_OK && (tune || reuse)) {
    /* Inside the caller's device guard, outside any capture (creation
     * synchronises throughout). */
    st = smv_matrix_measure(ctx, m, opt->tune_runs, A,
                            tune ? smv_tuned_candidates(m) : among, 1,
                            tune ? NULL : how);
  } else if (st == SMV_OK && declared) {
    reason_add(m,
               "; reuse declared (%s): no compressed rung qualifies, the "
               "rule's plan stands (no measurement)",
               how);
  } else if (st == SMV_OK && opt && opt->expected_calls > 0) {
    /* Too few calls to repay a measurement: the rule's plan, and why. */
    reason_add(m,
               "; %lld expected calls, below the reuse threshold %lld: no "
               "measurement",
               (long long)opt->expected_calls,
               (long long)smv_matrix_reuse_threshold(opt->tune_runs));
  }
  if (st != SMV_OK) {
    (void)cudaStreamSynchronize(ctx->stream);
    release(m);
  }
  return st;
}

extern "C" smv_status smv_matrix_create(smv_context *ctx, const smv_csr *A,
                                        smv_precision prec, smv_matrix **out) {
  return smv_matrix_create_ex(ctx, A, prec, NULL, out);
}

extern "C" smv_status smv_matrix_create_ex(smv_context *ctx, const smv_csr *A,
                                           smv_precision prec,
                                           const smv_matrix_options *opt,
                                           smv_matrix **out) {
  if (!out)
    return ctx ? smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_create: NULL dA")
               : SMV_ERR_ARG;
  *out = NULL;
  if (!ctx)
    return SMV_ERR_ARG;
  if (!A)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_create: NULL matrix");
  if (!smv_precision_name(prec))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_create: precision %d",
                       (int)prec);
  char why[128];
  if (smv__matrix_options_bad(opt, "smv_matrix_create_ex", why, sizeof why))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s", why);
  smv_error err;
  memset(&err, 0, sizeof err);
  if (smv_csr_check(A, &err) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_INVALID_MATRIX, "invalid CSR matrix: %s",
                       err.message[0] ? err.message : "check failed");
  /* f64-f32v stores the values as float: a finite value past FLT_MAX
   * would become Inf, so it is refused, naming the entry. */
  if (prec == SMV_F64_F32V && smv_csr_check_f32_range(A, &err) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_OVERFLOW, "smv_matrix_create: %s",
                       err.message);

  smv_matrix *m = (smv_matrix *)calloc(1, sizeof *m);
  if (!m)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "matrix: out of host memory");
  m->device = ctx->device;
  m->prec = prec;
  m->opts = opt ? opt->flags : 0;
  m->serial = smv_matrix_serial_next();
  double t = smv_now_ms();
  compute_stats(A, &m->st);
  m->plan.stats_ms = smv_now_ms() - t;

  struct smv_device_guard g;
  smv_status st = smv_device_enter(ctx, &g);
  if (st != SMV_OK) {
    free(m);
    return st;
  }
  const size_t esize = smv_prec_value_bytes(prec);
  const size_t nnz = (size_t)A->nnz;
  t = smv_now_ms();
  st = upload(ctx, (void **)&m->row_ptr, A->row_ptr,
              ((size_t)A->rows + 1) * sizeof(int32_t), "row offsets");
  if (st == SMV_OK)
    st = upload(ctx, (void **)&m->col_idx, A->col_idx, nnz * sizeof(int32_t),
                "column indices");
  if (st == SMV_OK)
    st = upload(ctx, &m->values, prec == SMV_F64 ? A->values : NULL,
                nnz * esize, "values");
  if (st == SMV_OK && prec != SMV_F64 && nnz > 0) /* f32, f64-f32v */
    st = upload_f32(ctx, (float *)m->values, A->values, A->nnz);
  m->plan.upload_ms = smv_now_ms() - t;
  /* The analysis (shared with smv_matrix_create_device): releases m on
   * failure. */
  if (st == SMV_OK)
    st = smv_matrix_analyse(ctx, m, A, opt);
  else {
    (void)cudaStreamSynchronize(ctx->stream);
    release(m);
  }
  if (st != SMV_OK) {
    smv_device_leave(&g);
    return st;
  }
  smv_device_leave(&g);
  *out = m;
  return SMV_OK;
}

uint64_t smv_matrix_serial_next(void) {
  static std::atomic<uint64_t> next{0};
  return ++next;
}

extern "C" void smv_matrix_free(smv_matrix *m) {
  if (!m)
    return;
  /* The matrix remembers its device, not its context: freeing it after
   * the context is fine. */
  int prev = -1;
  int changed = cudaGetDevice(&prev) == cudaSuccess && prev != m->device &&
                cudaSetDevice(m->device) == cudaSuccess;
  release(m);
  if (changed)
    (void)cudaSetDevice(prev);
}

extern "C" smv_precision smv_matrix_precision(const smv_matrix *m) {
  return m ? m->prec : SMV_F64;
}

extern "C" void smv_matrix_dims(const smv_matrix *m, int64_t *rows,
                                int64_t *cols, int64_t *nnz) {
  if (rows)
    *rows = m ? m->st.rows : 0;
  if (cols)
    *cols = m ? m->st.cols : 0;
  if (nnz)
    *nnz = m ? m->st.nnz : 0;
}

extern "C" size_t smv_matrix_device_bytes(const smv_matrix *m) {
  if (!m)
    return 0;
  const size_t esize = smv_prec_value_bytes(m->prec);
  size_t b = ((size_t)m->st.rows + 1) * 4 + (size_t)m->st.nnz * (4 + esize);
  return b + smv_rungs_device_bytes(m); /* every rung's set-up */
}

extern "C" smv_status smv_matrix_plan(const smv_matrix *m,
                                      smv_matrix_plan_info *p) {
  if (!m || !p)
    return SMV_ERR_ARG;
  *p = m->plan;
  p->alg = m->auto_alg;
  for (int i = 0; i < 2; i++) {
    const smv_alg a = i ? SMV_ALG_CUSPARSE_ALG2 : SMV_ALG_CUSPARSE_ALG1;
    const struct smv_rung *r = smv_rung_of(a);
    /* No state: nothing was prepared (a matrix without entries). */
    p->cusparse_ms[i] = m->ready[a] && m->state[a] ? m->setup_ms[a] : 0;
    p->cusparse_bytes[i] =
        m->ready[a] && r->device_bytes ? r->device_bytes(m, m->state[a]) : 0;
  }
  p->device_bytes = smv_matrix_device_bytes(m);
  return SMV_OK;
}
