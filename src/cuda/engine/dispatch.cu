/*
 * dispatch.cu — smv_spmv and friends: picks the rung, checks arguments,
 * handles the cases no kernel needs to see, launches.
 *
 * ==========================================================================
 * THE LADDER (table of contents; numbers are stable, never renumbered).
 * One line per rung: what changed / why / where it loses. The registry of
 * names, descriptions and descriptors is src/core/rungs.def; the
 * measurements (dated, with commits) are in
 * bench/results/h100-80gb-hbm3/ladder.md, sections "Rung notes (moved from
 * dispatch.cu)" and "Rung notes (moved from the rung files)". The tuner
 * times every rung but 2, 3, 4 and 6 (rungs.def's `tuned`): 2 and 4 are
 * superseded by 5 (the same loads, a slower reduction), 3 and 6 are
 * losses; 11, a loss AUTO never picks, is still timed, and so is 13; 14
 * is a loss by a wide margin and is not.
 * ==========================================================================
 * 1 scalar: thread per row / no setup, short rows busy / waits on longest row
 * 2 vector: warp per row, smem reduction / coalesced rows / idle lanes <32
 * 3 vector-tex: x via texture / Kepler's tex cache / LOSS on sm_90 (latency)
 * 4 vector-ldg: x via __ldg / read-only path / same as 2 on sm_90
 * 5 vector-shfl: shuffle reduction / no smem / short and power-law rows
 * 6 vector-atomic: atomicAdd into y / the seed's test / LOSS: serial atomics
 * 7 cusparse-alg1: cusparseSpMV ALG1 / the yardstick / 6.7+ us tiny calls
 * 8 cusparse-alg2: ALG2 / bit-reproducible / a little slower than ALG1
 * 9 adaptive: lanes per row from the matrix, long rows in chunks (small
 *   matrices: one round per row, long rows by whole blocks; one entry per
 *   row: no offsets, 16-byte loads), one launch / fits the rows /
 *   plaw-like rows; launched with PDL (its start overlaps the kernel
 *   before it) / concurrent rung-9 SpMVs on one matrix with
 *   multi-chunk rows must not overlap
 * 10 tiled: rows in fixed-size tiles staged in shared memory, 16-byte
 *   loads, 1-32 threads per row / no lane waste at any row length, f32
 *   past the L2 / small matrices (staging and barriers), 5-7 per row f32
 * 11 merge: rung 10's tiles summed along the merge path (each thread an
 *   equal share of row ends + entries, segmented scan between threads) /
 *   power-law rows in one tile cost the same as even ones, no tile ended
 *   early / LOSS: level with rung 10 in f32 on scattered columns, 3-16%
 *   behind in f64 and on local columns (the reduction was never the limit)
 * 12 hot: rung 10's tiles on a persistent grid taking tiles from a
 *   counter; x at the most used columns (12 KB f32, 8 KB f64) in each
 *   block's shared memory / power-law columns: those gathers skip the L2,
 *   whose tag lookups limit graphs / f64 (0.82-0.97x ALG1 on R-MAT),
 *   4 bytes more per entry; AUTO's pick for f32 graphs (rmat:22:16 1.05x,
 *   perm=rand 1.11x ALG1)
 * 13 packed: rung 10's tiles and sums on column indices packed per tile
 *   (16-bit offsets from the tile's smallest column, 32-bit where its
 *   columns span more than 65535) and 16-bit row ends / 10 bytes per entry
 *   in f64, 6 in f32 on local columns (CSR 12, 8): past CSR's copy limit /
 *   scattered columns (all tiles 32-bit: CSR's bytes), set-up reads the
 *   columns on the host; on the H200 faster than rung 10 in f32, slower in
 *   f64 (too few bytes in flight): AUTO's rule never picks it, the tuner
 *   and the reuse plan (SMV_MATRIX_REUSE) time it
 * 14 pipe: rung 10's tiles copied global -> shared by cp.async into a ring
 *   of stages, tiles ahead of the arithmetic, persistent grid / bytes in
 *   flight that do not follow the block's phases (f64 on the H200) /
 *   LOSS: slower than rung 10 on the H200 in f64 and f32: the per-tile
 *   arithmetic, not the bytes in flight, limits it
 * 0 auto: smv_auto_choose below (src/core/auto.def), once per matrix at
 *   analysis
 *
 * Block sizes: every rung with a kernel gets the block size with the
 * highest occupancy for its real registers and shared memory on the actual
 * device (smv_occupancy on the device's smv_arch row; the runtime's
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor for a GPU the table
 * lacks); among sizes tied at the highest occupancy the one nearest the
 * rung's preferred_block wins (measured, see each rung's comment).
 * smv_context_set_block_size overrides it for every rung.
 * ==========================================================================
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- block sizes ----------------------------------------------------------
 */

/* Warps per SM of `k` at `block` threads, by the occupancy model when the
 * device's architecture is in the table, else by the runtime. -1 if the
 * size cannot launch. */
static int warps_at(const smv_arch *arch, const struct smv_rung *r,
                    smv_precision prec, const cudaFuncAttributes *fa,
                    int block) {
  if (block > fa->maxThreadsPerBlock)
    return -1;
  size_t smem = fa->sharedSizeBytes + r->smem(prec, block);
  if (arch) {
    smv_occupancy_result o;
    if (smv_occupancy(arch, block, fa->numRegs, smem, &o) != SMV_OK)
      return -1;
    return o.blocks_per_sm > 0 ? o.warps_per_sm : -1;
  }
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &n, r->kernel(prec), block, r->smem(prec, block)) != cudaSuccess) {
    (void)cudaGetLastError();
    return -1;
  }
  return n > 0 ? n * (block / 32) : -1;
}

smv_status smv_blocks_init(smv_context *ctx) {
  const smv_arch *arch = smv_arch_find(ctx->prop.major, ctx->prop.minor);
  memset(ctx->default_block, 0, sizeof ctx->default_block);
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (r && r->alg != (smv_alg)a) /* a descriptor on the wrong line */
      return smv_ctx_set(ctx, SMV_ERR_ARG,
                         "src/core/rungs.def: line %d names the descriptor "
                         "of rung %d",
                         a, (int)r->alg);
    for (int p = 0; r && p < SMV_PRECISION_COUNT; p++)
      if (!(r->precisions & (1u << p)) !=
          !smv_alg_runs_precision((smv_alg)a, (smv_precision)p))
        return smv_ctx_set(ctx, SMV_ERR_ARG,
                           "rung %d's descriptor and smv_alg_runs_precision "
                           "(src/core/alg.c) disagree on precision %s",
                           a, smv_precision_name((smv_precision)p));
    r = smv_kernel_rung_of((smv_alg)a);
    if (!r)
      continue;
    for (int p = 0; p < SMV_PRECISION_COUNT; p++) {
      smv_precision prec = (smv_precision)p;
      if (!(r->precisions & (1u << p))) /* no kernel: stays 0 */
        continue;
      cudaFuncAttributes fa;
      cudaError_t e = cudaFuncGetAttributes(&fa, r->kernel(prec));
      if (e != cudaSuccess)
        return smv_cu_fail(ctx, e, "cudaFuncGetAttributes(%s, %s)",
                           smv_kernel_name((smv_alg)a),
                           smv_precision_name(prec));
      int best = 0, best_w = -1;
      for (int b = 32; b <= 1024; b += 32) {
        int w = warps_at(arch, r, prec, &fa, b);
        if (w < 0)
          continue;
        int d = abs(b - r->preferred_block),
            bd = abs(best - r->preferred_block);
        if (w > best_w || (w == best_w && d < bd)) {
          best = b;
          best_w = w;
        }
      }
      if (best == 0)
        return smv_ctx_set(ctx, SMV_ERR_CUDA,
                           "%s (%s): no block size can launch on this device",
                           smv_kernel_name((smv_alg)a),
                           smv_precision_name(prec));
      ctx->default_block[a][p] = best;
    }
  }
  return SMV_OK;
}

/* ---- AUTO -----------------------------------------------------------------
 */

/* The rung AUTO runs for a matrix: the first line of its rule
 * (src/core/auto.def, written out in docs/engine.md and checked against it
 * by tests/test_rungs.c) that holds for the facts smv_auto_facts_of
 * gathered. */
smv_alg smv_auto_choose(const struct smv_auto_facts *f) {
#define SMV_AUTO_RULE(cond, alg, why)                                          \
  if (cond)                                                                    \
    return alg;
#include "auto.def"
#undef SMV_AUTO_RULE
  return SMV_ALG_ADAPTIVE; /* the rule's last line always holds */
}

/* ---- smv_spmv -------------------------------------------------------------
 */

/* alpha and beta as the kernels see them: float in f32, double in f64
 * and f64-f32v. */
static int is_zero(smv_precision prec, double v) {
  return prec != SMV_F32 ? v == 0.0 : (float)v == 0.0f;
}
static int is_one(smv_precision prec, double v) {
  return prec != SMV_F32 ? v == 1.0 : (float)v == 1.0f;
}

/* The checks every entry point opens with; `fn` names it in the error. */
static smv_status check_common(smv_context *ctx, smv_alg alg,
                               const smv_matrix *dA, const char *fn) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL matrix", fn);
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: unknown alg %d", fn, (int)alg);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: matrix lives on device %d, context on %d", fn,
                       dA->device, ctx->device);
  /* A rung that does not run the matrix's precision (f64-f32v: all but
   * 2, 9 and 10) is refused whatever the data, before any shortcut. */
  if (alg != SMV_ALG_AUTO && !smv_rung_runs(alg, dA->prec)) {
    char what[80];
    snprintf(what, sizeof what, "%s: rung %d (%s)", fn, (int)alg,
             smv_alg_name(alg));
    return smv_prec_refuse(ctx, dA->prec, what);
  }
  return SMV_OK;
}

/* The block size a launch of rung `alg` (one with a kernel of ours) on m
 * uses: the caller's size for every rung, else the plan of the rung's
 * state where it has one (rung 9's one-round plan), else the rung's
 * default. */
static int launch_block(const smv_context *ctx, const smv_matrix *m,
                        smv_alg alg) {
  if (ctx->block_override)
    return ctx->block_override;
  const struct smv_rung *r = smv_rung_of(alg);
  const int planned = r && r->block && m->ready[alg] && m->state[alg]
                          ? r->block(m->state[alg])
                          : 0;
  return planned ? planned : ctx->default_block[alg][m->prec];
}

/* Rung alg set up on m, or set up now: refused inside a stream capture
 * (set-up allocates and synchronises; nothing is allocated then). `fn`
 * names the caller in the error. */
static smv_status ensure_ready(smv_context *ctx, smv_matrix *m, smv_alg alg,
                               const char *fn) {
  const struct smv_rung *r = smv_rung_of(alg);
  if (!r || !r->setup || m->ready[alg])
    return SMV_OK;
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(ctx->stream, &cs);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "%s: cudaStreamIsCapturing", fn);
  if (cs != cudaStreamCaptureStatusNone)
    return smv_ctx_set(
        ctx, SMV_ERR_UNSUPPORTED,
        "%s: rung %d (%s) is not set up for this matrix and cannot be set up "
        "inside a stream capture (set-up allocates and synchronises): call "
        "smv_matrix_prepare before capturing, or run the rung once",
        fn, (int)alg, smv_alg_name(alg));
  return smv_rung_prepare(ctx, m, alg, NULL, 1);
}

static smv_status spmv_device(smv_context *ctx, smv_alg alg, double alpha,
                              smv_matrix *dA, const void *x, double beta,
                              void *y, const char *fn) {
  const struct smv_matrix_stats *s = &dA->st;
  cudaError_t e;
  /* BLAS semantics: nothing to multiply -> y = beta*y, A and x unread. */
  if (is_zero(dA->prec, alpha) || s->nnz == 0) {
    if (is_one(dA->prec, beta))
      return SMV_OK;
    e = smv_launch_scale(dA->prec, s->rows, beta, y, ctx->stream);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "launch of the scale kernel (%lld rows)",
                         (long long)s->rows);
    return SMV_OK;
  }
  if (!x)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: x is NULL", fn);
  if (alg == SMV_ALG_AUTO)
    alg = dA->auto_alg;
  smv_status st = ensure_ready(ctx, dA, alg, fn);
  if (st != SMV_OK)
    return st;
  const struct smv_rung *r = smv_rung_of(alg);
  if (r->run) /* a library's SpMV (cuSPARSE) */
    return r->run(ctx, dA, dA->state[alg], alpha, x, beta, y);
  struct smv_launch L;
  memset(&L, 0, sizeof L);
  L.prec = dA->prec;
  L.rows = s->rows;
  L.row_ptr = dA->row_ptr;
  L.col_idx = dA->col_idx;
  L.values = dA->values;
  L.x = x;
  L.y = y;
  L.alpha = alpha;
  L.beta = beta;
  L.stream = ctx->stream;
  L.m = dA;
  L.state = dA->state[alg];
  if (alg == SMV_ALG_VECTOR_TEX) {
    st = smv_tex_lookup(ctx, dA->prec, x, s->cols, &L.tex, &L.tex_offset);
    if (st != SMV_OK)
      return st;
    if (!L.tex) /* cannot bind x: the read-only path computes the same */
      r = &smv_rung_vector_ldg, alg = SMV_ALG_VECTOR_LDG;
  }
  L.block = launch_block(ctx, dA, alg);
  e = r->launch(&L);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "launch of %s (%lld rows, block %d)",
                       smv_kernel_name(alg), (long long)s->rows, L.block);
  return SMV_OK;
}

extern "C" smv_status smv_spmv(smv_context *ctx, smv_alg alg, double alpha,
                               smv_matrix *dA, const void *x, double beta,
                               void *y) {
  smv_status st = check_common(ctx, alg, dA, "smv_spmv");
  if (st != SMV_OK)
    return st;
  if (dA->st.rows == 0)
    return SMV_OK; /* y has no entries */
  if (!y)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv: y is NULL");
  const size_t es = smv_prec_vector_bytes(dA->prec);
  if (smv_overlap(x, (size_t)dA->st.cols * es, y, (size_t)dA->st.rows * es))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmv: x and y overlap (in-place SpMV is not "
                       "supported: y must not share memory with x)");
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  st = spmv_device(ctx, alg, alpha, dA, x, beta, y, "smv_spmv");
  smv_device_leave(&g);
  return st;
}

extern "C" smv_status smv_matrix_prepare(smv_context *ctx, smv_matrix *dA,
                                         smv_alg alg) {
  smv_status st = check_common(ctx, alg, dA, "smv_matrix_prepare");
  if (st != SMV_OK)
    return st;
  struct smv_device_guard g;
  st = smv_device_enter_uncaptured(
      ctx, &g, "smv_matrix_prepare: ", SMV_ERR_UNSUPPORTED,
      "smv_matrix_prepare: the stream is being captured (set-up allocates "
      "and synchronises): prepare before capturing");
  if (st != SMV_OK)
    return st;
  const smv_alg a = alg == SMV_ALG_AUTO ? dA->auto_alg : alg;
  st = smv_rung_prepare(ctx, dA, a, NULL, 1);
  /* A^T, once built, runs the same rung (smv_spmv_t). */
  if (st == SMV_OK && dA->transpose) {
    const smv_alg t = alg == SMV_ALG_AUTO ? dA->transpose->auto_alg : alg;
    st = smv_rung_prepare(ctx, dA->transpose, t, NULL, 1);
  }
  smv_device_leave(&g);
  return st;
}

/* ---- smv_spmv_host_vectors -----------------------------------------------
 */

cudaError_t smv_workspace_grow(void **p, size_t *cap, size_t bytes) {
  if (*cap >= bytes)
    return cudaSuccess;
  /* The old buffer goes first: the peak is the new size, not both. */
  if (*p)
    cudaFree(*p);
  *p = NULL;
  *cap = 0;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    return e;
  }
  *cap = bytes;
  return cudaSuccess;
}

/* Device buffer *p of at least `bytes`, grown (never shrunk) in the
 * context's workspace: the previous call has synchronised, so the old one
 * is idle. */
static smv_status ws_device(smv_context *ctx, void **p, size_t *cap,
                            size_t bytes, const char *what) {
  cudaError_t e = smv_workspace_grow(p, cap, bytes);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (%s)", bytes, what);
  return SMV_OK;
}

void smv_workspace_free(smv_context *ctx) {
  cudaFree(ctx->ws_x); /* cudaFree(NULL) does nothing */
  cudaFree(ctx->ws_y);
  free(ctx->ws_stage);
  cudaFree(ctx->ws_solve);
  if (ctx->ws_solve_status)
    cudaFreeHost(ctx->ws_solve_status);
  ctx->ws_x = ctx->ws_y = NULL;
  ctx->ws_stage = NULL;
  ctx->ws_solve = ctx->ws_solve_status = NULL;
  ctx->ws_x_bytes = ctx->ws_y_bytes = ctx->ws_stage_n = 0;
  ctx->ws_solve_bytes = 0;
  cudaFree(ctx->res_plan.plan);
  memset(&ctx->res_plan, 0, sizeof ctx->res_plan);
}

/* n host doubles into device buffer d: as they are, or (stage not NULL) as
 * floats through the stage, waiting for the copy when the stage is reused
 * next. `what` names the vector in the error. */
static smv_status upload(smv_context *ctx, void *d, const double *h, int64_t n,
                         float *stage, int stage_reused, const char *what) {
  const size_t bytes = (size_t)n * (stage ? sizeof(float) : sizeof(double));
  const void *src = h;
  if (stage) {
    for (int64_t i = 0; i < n; i++)
      stage[i] = (float)h[i];
    src = stage;
  }
  cudaError_t e =
      cudaMemcpyAsync(d, src, bytes, cudaMemcpyHostToDevice, ctx->stream);
  if (e == cudaSuccess && stage && stage_reused)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaMemcpy of %s (%zu bytes)", what, bytes);
  return SMV_OK;
}

extern "C" smv_status smv_spmv_host_vectors(smv_context *ctx, smv_alg alg,
                                            double alpha, smv_matrix *dA,
                                            const double *x, double beta,
                                            double *y) {
  smv_status st = check_common(ctx, alg, dA, "smv_spmv_host_vectors");
  if (st != SMV_OK)
    return st;
  const int64_t rows = dA->st.rows, cols = dA->st.cols;
  if (rows == 0)
    return SMV_OK;
  if (!y)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv_host_vectors: y is NULL");
  if (smv_overlap(x, (size_t)cols * sizeof *x, y, (size_t)rows * sizeof *y))
    return smv_ctx_set(
        ctx, SMV_ERR_ARG,
        "smv_spmv_host_vectors: x and y overlap (in-place SpMV is not "
        "supported: y must not share memory with x)");
  const int need_x = dA->st.nnz > 0 && !is_zero(dA->prec, alpha);
  const int need_y = !is_zero(dA->prec, beta);
  if (need_x && !x)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv_host_vectors: x is NULL");
  const int f32 = dA->prec == SMV_F32;
  const size_t esize = f32 ? sizeof(float) : sizeof(double);

  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  void *dx = NULL, *dy = NULL;
  float *stage = NULL;
  cudaError_t e;
  if (need_x && (st = ws_device(ctx, &ctx->ws_x, &ctx->ws_x_bytes,
                                (size_t)cols * esize, "x")) != SMV_OK)
    goto out;
  if ((st = ws_device(ctx, &ctx->ws_y, &ctx->ws_y_bytes, (size_t)rows * esize,
                      "y")) != SMV_OK)
    goto out;
  dx = need_x ? ctx->ws_x : NULL;
  dy = ctx->ws_y;
  if (f32) {
    size_t n = (size_t)(rows > cols ? rows : cols);
    if (ctx->ws_stage_n < n) {
      float *s = (float *)realloc(ctx->ws_stage, n * sizeof(float));
      if (!s) {
        st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                         "malloc of %zu bytes (f32 staging): out of memory",
                         n * sizeof(float));
        goto out;
      }
      ctx->ws_stage = s;
      ctx->ws_stage_n = n;
    }
    stage = ctx->ws_stage;
  }
  /* x waits for its copy when f32: the stage is reused for y. beta = 0: y
   * is write-only, never copied in. */
  if (need_x && (st = upload(ctx, dx, x, cols, stage, 1, "x")) != SMV_OK)
    goto out;
  if (need_y && (st = upload(ctx, dy, y, rows, stage, 0, "y")) != SMV_OK)
    goto out;
  if ((st = spmv_device(ctx, alg, alpha, dA, dx, beta, dy,
                        "smv_spmv_host_vectors")) != SMV_OK)
    goto out;
  e = cudaMemcpyAsync(f32 ? (void *)stage : (void *)y, dy, (size_t)rows * esize,
                      cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "SpMV or copy of y back (%zu bytes)",
                     (size_t)rows * esize);
    goto out;
  }
  if (f32)
    for (int64_t i = 0; i < rows; i++)
      y[i] = (double)stage[i];
out:
  if (st != SMV_OK) /* the workspace is idle again before the next call */
    (void)cudaStreamSynchronize(ctx->stream);
  smv_device_leave(&g);
  return st;
}

extern "C" smv_status smv_spmv_host(smv_context *ctx, smv_alg alg, double alpha,
                                    smv_matrix *dA, const double *x,
                                    double beta, double *y) {
  return smv_spmv_host_vectors(ctx, alg, alpha, dA, x, beta, y);
}

/* ---- kernel introspection -------------------------------------------------
 */

/* The checks every introspection call opens with: a context, a precision,
 * a rung with a kernel of smv's own, then the caller's output pointer `out`
 * (NULL: `null_msg`). */
static smv_status kernel_of(smv_context *ctx, smv_alg alg, smv_precision prec,
                            const void *out, const char *null_msg,
                            const struct smv_rung **r) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!smv_precision_name(prec))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "precision %d", (int)prec);
  *r = smv_kernel_rung_of(alg);
  if (!*r)
    return smv_ctx_set(ctx, SMV_ERR_NOT_FOUND,
                       "alg %d (%s) has no kernel of smv's own", (int)alg,
                       smv_alg_name(alg) ? smv_alg_name(alg) : "unknown");
  if (!((*r)->precisions & (1u << prec))) {
    char what[64];
    snprintf(what, sizeof what, "rung %d (%s)", (int)alg, smv_alg_name(alg));
    return smv_prec_refuse(ctx, prec, what);
  }
  if (!out)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s", null_msg);
  return SMV_OK;
}

/* Resolves block 0 to the rung's default, checks it, and enters the
 * context's device (the caller leaves `g`). */
static smv_status block_enter(smv_context *ctx, smv_alg alg, smv_precision prec,
                              int *block, struct smv_device_guard *g) {
  if (*block == 0)
    *block = ctx->default_block[alg][prec];
  if (*block < 1 || *block > 1024)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "block size %d outside 1..1024",
                       *block);
  return smv_device_enter(ctx, g);
}

extern "C" smv_status smv_kernel_attributes(smv_context *ctx, smv_alg alg,
                                            smv_precision prec, int block,
                                            smv_kernel_attrs *out) {
  const struct smv_rung *r = NULL;
  smv_status st =
      kernel_of(ctx, alg, prec, out, "smv_kernel_attributes: NULL out", &r);
  if (st != SMV_OK)
    return st;
  struct smv_device_guard g;
  if ((st = block_enter(ctx, alg, prec, &block, &g)) != SMV_OK)
    return st;
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes(&fa, r->kernel(prec));
  smv_device_leave(&g);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaFuncGetAttributes(%s)",
                       smv_kernel_name(alg));
  memset(out, 0, sizeof *out);
  out->regs_per_thread = fa.numRegs;
  out->static_smem_bytes = fa.sharedSizeBytes;
  out->dynamic_smem_bytes = r->smem(prec, block);
  out->local_bytes = fa.localSizeBytes;
  out->max_threads_per_block = fa.maxThreadsPerBlock;
  out->ptx_version = fa.ptxVersion;
  out->binary_version = fa.binaryVersion;
  return SMV_OK;
}

extern "C" smv_status smv_kernel_occupancy_cuda(smv_context *ctx, smv_alg alg,
                                                smv_precision prec, int block,
                                                int *blocks_per_sm) {
  const struct smv_rung *r = NULL;
  smv_status st = kernel_of(ctx, alg, prec, blocks_per_sm,
                            "smv_kernel_occupancy_cuda: NULL", &r);
  if (st != SMV_OK)
    return st;
  *blocks_per_sm = 0;
  struct smv_device_guard g;
  if ((st = block_enter(ctx, alg, prec, &block, &g)) != SMV_OK)
    return st;
  int n = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &n, r->kernel(prec), block, r->smem(prec, block));
  smv_device_leave(&g);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e,
                       "cudaOccupancyMaxActiveBlocksPerMultiprocessor(%s, "
                       "block %d)",
                       smv_kernel_name(alg), block);
  *blocks_per_sm = n;
  return SMV_OK;
}

extern "C" smv_status smv_matrix_launch_block(smv_context *ctx,
                                              const smv_matrix *dA, smv_alg alg,
                                              int *block) {
  if (!dA)
    return ctx ? smv_ctx_set(ctx, SMV_ERR_ARG,
                             "smv_matrix_launch_block: NULL matrix")
               : SMV_ERR_ARG;
  const struct smv_rung *r = NULL;
  smv_status st =
      kernel_of(ctx, alg, dA->prec, block, "smv_matrix_launch_block: NULL", &r);
  if (st != SMV_OK)
    return st;
  *block = launch_block(ctx, dA, alg);
  return SMV_OK;
}

extern "C" smv_status smv_kernel_default_block(smv_context *ctx, smv_alg alg,
                                               smv_precision prec, int *block) {
  const struct smv_rung *r = NULL;
  smv_status st =
      kernel_of(ctx, alg, prec, block, "smv_kernel_default_block: NULL", &r);
  if (st != SMV_OK)
    return st;
  *block = ctx->default_block[alg][prec];
  return SMV_OK;
}
