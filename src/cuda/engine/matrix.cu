/*
 * matrix.cu — smv_matrix: the analysis phase. smv_matrix_create checks the
 * host CSR (smv_csr_check), computes the statistics AUTO and the adaptive
 * rung decide from, uploads the arrays once, makes the plan (AUTO's rung,
 * by the heuristic, with the statistics that decided as its reason) and
 * runs the set-up of what the plan and our rungs need (the adaptive rung's
 * long-row list; cuSPARSE only for an algorithm AUTO chose, or both with
 * SMV_MATRIX_CUSPARSE), so smv_spmv itself does not allocate (the one
 * exception, a cuSPARSE rung never prepared, is in spmv_7_cusparse.cu).
 * Each step is timed (host clock, synchronised) into the plan record that
 * smv_matrix_plan returns; SMV_MATRIX_TUNE then plans by measurement
 * (tune.cu).
 *
 * Device footprint: (rows + 1) * 4 bytes of row offsets, nnz * 4 of column
 * indices, nnz * 8 (f64) or nnz * 4 (f32) of values, plus the cuSPARSE
 * buffers prepared (sizes from cusparseSpMV_bufferSize) and 28 bytes per
 * 128-entry chunk of the adaptive rung's long rows (the chunk, its partial
 * sum and a counter) and 16 per block row of its one-round plan, 8 bytes per
 * tile of the stream and merge rungs (20 with rows longer than a tile; 8
 * more per list for rung 12's tile counters), and with SMV_MATRIX_HOT (or a
 * tuner that kept rung 12) rung 12's column array: 4 bytes per entry plus 4 per
 * hot column.
 * smv_matrix_device_bytes adds these up: a rung whose set-up allocates device
 * memory adds its bytes there. f32 values are rounded on the host in chunks of
 * 1 Mi entries (4 MiB of host staging), never a full copy of the matrix.
 */
#include "analyse.h"
#include "engine.h"

#include <math.h>
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
  }
  if (A->nnz > 0 && A->cols > 0) {
    const double scale = (double)A->cols / (double)A->rows;
    double spread = 0;
    for (int64_t i = 0; i < A->rows; i++) {
      const double diag = (double)i * scale;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        spread += fabs((double)A->col_idx[k] - diag);
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
  smv_sparse_release(m);
  cudaFree(m->row_ptr); /* cudaFree(NULL) does nothing */
  cudaFree(m->col_idx);
  cudaFree(m->values);
  cudaFree(m->long_alloc);
  cudaFree(m->stream.list);
  cudaFree(m->merge.list);
  smv_hot_release(m);
  free(m);
}

int smv_matrix_past_l2(const smv_context *ctx, const smv_matrix *m) {
  const double vbytes = m->prec == SMV_F64 ? 8.0 : 4.0;
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
static void heuristic_reason(const smv_context *ctx, smv_matrix *m) {
  const struct smv_matrix_stats *s = &m->st;
  const double esize = m->prec == SMV_F64 ? 8.0 : 4.0;
  const double mb =
      ((double)s->nnz * (4.0 + esize) + (double)(s->rows + 1) * 4.0) / 1e6;
  snprintf(m->plan.reason, sizeof m->plan.reason,
           "heuristic: %lld rows, %lld nnz, %.1f per row (max %lld), column "
           "spread %.3f, CSR %.1f MB vs L2 %.1f MB -> %s",
           (long long)s->rows, (long long)s->nnz, s->row_mean,
           (long long)s->row_max, s->col_spread, mb,
           (double)ctx->prop.l2CacheSize / 1e6, smv_alg_name(m->auto_alg));
}

/* The analysis after the arrays are on the device and m->st is filled:
 * our rungs' set-up, the plan, cuSPARSE, tuning (see the file's comment).
 * Shared by smv_matrix_create_ex and smv_matrix_create_device
 * (matrix_device.cu, analyse.h); A is read for rows, nnz and row_ptr only
 * (host row offsets). Runs inside the caller's device guard; on failure
 * it releases m. */
smv_status smv_matrix_analyse(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                              const smv_matrix_options *opt) {
  smv_status st = SMV_OK;
  double t;
  /* Our rungs' set-up (rung 12's hot columns with SMV_MATRIX_HOT, or
   * where the heuristic may pick rung 12). */
  t = smv_now_ms();
  st = smv_adaptive_setup(ctx, m, A);
  if (st == SMV_OK)
    st = smv_stream_setup(ctx, m, A);
  if (st == SMV_OK)
    st = smv_merge_setup(ctx, m, A);
  if (st == SMV_OK)
    st = smv_hot_setup(ctx, m, (m->opts & SMV_MATRIX_HOT) != 0);
  m->plan.prep_ms = smv_now_ms() - t;
  /* The plan: AUTO's rung from the statistics. */
  t = smv_now_ms();
  m->auto_alg = smv_auto_choose(ctx, m);
  m->plan.plan_ms = smv_now_ms() - t;
  m->plan.alg = m->auto_alg;
  heuristic_reason(ctx, m);
  /* Rung 12's hot columns, built for the heuristic, go again unless it
   * picked rung 12 or they were asked for. */
  smv_hot_settle(m);
  if (st == SMV_OK &&
      (m->auto_alg == SMV_ALG_ADAPTIVE || m->auto_alg == SMV_ALG_STREAM ||
       m->auto_alg == SMV_ALG_MERGE || m->auto_alg == SMV_ALG_HOT)) {
    const size_t used = strlen(m->plan.reason);
    char line[256];
    if (m->auto_alg == SMV_ALG_ADAPTIVE)
      smv_adaptive_describe(m, line, sizeof line);
    else if (m->auto_alg == SMV_ALG_STREAM)
      smv_tiles_describe(&m->stream, 10, line, sizeof line);
    else if (m->auto_alg == SMV_ALG_HOT)
      smv_hot_describe(m, line, sizeof line);
    else
      smv_tiles_describe(&m->merge, 11, line, sizeof line);
    snprintf(m->plan.reason + used, sizeof m->plan.reason - used, "; %s", line);
  }
  /* cuSPARSE: what the plan runs, or both when asked (timed inside).
   * When tuning follows, the tuner prepares what it times and keeps only
   * the winner. */
  for (int a = SMV_ALG_CUSPARSE_ALG1; a <= SMV_ALG_CUSPARSE_ALG2; a++)
    if (st == SMV_OK &&
        ((m->opts & SMV_MATRIX_CUSPARSE) ||
         (m->auto_alg == (smv_alg)a && !(m->opts & SMV_MATRIX_TUNE))))
      st = smv_sparse_prepare(ctx, m, (smv_alg)a);
  if (st == SMV_OK && (m->opts & SMV_MATRIX_TUNE))
    st = smv_matrix_tune(ctx, m, opt->tune_runs);
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
  if (prec != SMV_F64 && prec != SMV_F32)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_create: precision %d",
                       (int)prec);
  const unsigned known = SMV_MATRIX_CUSPARSE | SMV_MATRIX_TUNE | SMV_MATRIX_HOT;
  if (opt && ((opt->flags & ~known) || opt->tune_runs < 0))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_ex: unknown flags 0x%x or "
                       "tune_runs %d < 0",
                       opt->flags & ~known, opt->tune_runs);
  smv_error err;
  memset(&err, 0, sizeof err);
  if (smv_csr_check(A, &err) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_INVALID_MATRIX, "invalid CSR matrix: %s",
                       err.message[0] ? err.message : "check failed");

  smv_matrix *m = (smv_matrix *)calloc(1, sizeof *m);
  if (!m)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "matrix: out of host memory");
  m->device = ctx->device;
  m->prec = prec;
  m->opts = opt ? opt->flags : 0;
  double t = smv_now_ms();
  compute_stats(A, &m->st);
  m->plan.stats_ms = smv_now_ms() - t;

  struct smv_device_guard g;
  smv_status st = smv_device_enter(ctx, &g);
  if (st != SMV_OK) {
    free(m);
    return st;
  }
  const size_t esize = prec == SMV_F64 ? sizeof(double) : sizeof(float);
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
  if (st == SMV_OK && prec == SMV_F32 && nnz > 0)
    st = upload_f32(ctx, (float *)m->values, A->values, A->nnz);
  m->plan.upload_ms = smv_now_ms() - t;
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
  const size_t esize = m->prec == SMV_F64 ? sizeof(double) : sizeof(float);
  size_t b = ((size_t)m->st.rows + 1) * 4 + (size_t)m->st.nnz * (4 + esize);
  b += m->chunk_bytes;  /* rung 9's chunk list, partials and counters */
  b += m->stream.bytes; /* rung 10's tile list, partials and counters */
  b += m->merge.bytes;  /* rung 11's */
  if (m->hot.col)       /* rung 12's column array and hot list */
    b += (size_t)m->st.nnz * 4 + (size_t)m->hot.k * 4;
  for (int i = 0; i < 2; i++)
    b += m->sp.buffer_bytes[i];
  return b;
}

extern "C" smv_status smv_matrix_plan(const smv_matrix *m,
                                      smv_matrix_plan_info *p) {
  if (!m || !p)
    return SMV_ERR_ARG;
  *p = m->plan;
  p->alg = m->auto_alg;
  for (int i = 0; i < 2; i++) {
    p->cusparse_ms[i] = m->sp.prep_ms[i];
    p->cusparse_bytes[i] = m->sp.buffer_bytes[i];
  }
  p->device_bytes = smv_matrix_device_bytes(m);
  return SMV_OK;
}
