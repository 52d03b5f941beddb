/*
 * dispatch.cu — smv_spmv and friends: picks the rung, checks arguments,
 * handles the cases no kernel needs to see, launches.
 *
 * ==========================================================================
 * THE LADDER (table of contents; numbers are stable, never renumbered)
 * ==========================================================================
 * Measured: H100 80GB HBM3 (132 SMs), CUDA 13.0, cuSPARSE 12.6,
 * 2026-11-22T14:35Z, commit 80fd6badd242 (the final run of
 * scripts/gpu-check.sh bench: bench/results/h100-80gb-hbm3/ladder.md,
 * 620 of 620 verified and timed; device copy 3009 GB/s); `smv bench`,
 * L2-warm median of 200 runs, alpha 1, beta 0. Times in us for
 * lap3d:160 (4.1M rows, 28.5M nnz, 7/row, local columns),
 * rand:2000000:16 and plaw:2000000:16 (32M nnz, random columns; plaw's
 * rows 8..~16000), f64 / f32, with the speed-up over cuSPARSE ALG1 of the
 * same run; then the geometric mean of the speed-up over ALG1 on the 28
 * real SuiteSparse matrices (f64, all < 1M nnz, i.e. L2-resident and
 * mostly launch-bound: 4-30 us). Full tables: bench/results/. Every
 * rung and AUTO below is from that run; rung 9 keeps a short history.
 *
 * 1 scalar (spmv_1_scalar.cu)
 *   changed:  baseline — one thread per row.
 *   helps:    nothing to set up; short rows keep every lane busy, and
 *             neighbouring threads' rows share cache lines.
 *   loses:    a warp waits for its longest row; one thread per huge row.
 *   measured: lap3d 152/99 (1.30x/1.21x: faster than cuSPARSE!), rand
 *             1257/313 (0.24x/0.89x), plaw 3208/1200 (0.09x/0.23x);
 *             real 0.60x (1.9x on Pd, 1.6x on luxembourg_osm, 0.06x on
 *             rajat01).
 *             f64 is 4x slower than f32 on rand because the compiler
 *             unrolled only the f32 loop: one gather in flight per thread.
 * 2 vector (spmv_2_vector.cu)
 *   changed:  one warp per row, partials reduced in shared memory in 5
 *             steps with __syncwarp() between them (the seed's volatile
 *             lock-step reduction is wrong since Volta: see the file).
 *   helps:    coalesced loads of values and column indices along the row.
 *   loses:    rows much shorter than 32 leave lanes idle; 5 smem round
 *             trips per row.
 *   measured: lap3d 826/792 (0.24x/0.15x: 7 of 32 lanes busy), rand
 *             418/402 (0.72x/0.69x), plaw 466/431 (0.65x/0.65x);
 *             real 1.10x (1.27x inside a CUDA graph).
 * 3 vector-tex (spmv_3_tex.cu)
 *   changed:  rung 2 with x read through a texture object (int2 +
 *             __hiloint2double for doubles), cached per x in the context.
 *   helps:    on Kepler a separate texture cache served the x gather
 *             (seed: 0.3045 -> 0.2712 ms on K20).
 *   loses:    sm_90 unifies L1 and texture cache: only the texture path's
 *             extra latency remains; x longer than maxTexture1DLinear
 *             (2^28) falls back to rung 4's load.
 *   measured: a LOSS on sm_90: lap3d 875/848, rand 450/432, plaw 507/464,
 *             6-9% slower than rung 2 on these; real 1.08x (2% slower
 *             than rung 2 L2-warm, 9% with L2 flushed).
 * 4 vector-ldg (spmv_4_ldg.cu)
 *   changed:  rung 2 with const __restrict__ everywhere and __ldg(x):
 *             ld.global.nc, no texture object.
 *   helps:    read-only path without setup (seed: 0.2581 ms on K20).
 *   loses:    same idle-lane problem as rung 2.
 *   measured: identical to rung 2 (827/792, 418/402, 467/431; real
 *             1.10x): on sm_90 plain loads of data the kernel never
 *             writes already take the same path.
 * 5 vector-shfl (spmv_5_shfl.cu)
 *   changed:  rung 4 with __shfl_down_sync reduction, no shared memory
 *             (the seed's final Kepler kernel).
 *   helps:    no smem traffic, occupancy limited only by registers/warps.
 *   loses:    short rows (lanes idle) and power-law rows (one warp per
 *             huge row serialises it).
 *   measured: best of the warp-per-row rungs, 3-4% over rung 2: lap3d
 *             798/759 (0.25x/0.16x), rand 405/389 (0.74x/0.71x), plaw
 *             446/421 (0.68x/0.66x); real 1.13x. On K20 the seed had
 *             cuSPARSE at 0.1484 ms against this kernel's 0.2264 on
 *             mark3jac140 (0.66x, about ours on plaw), and
 *             2.1-5.6x ahead on its irregular matrices.
 * 6 vector-atomic (spmv_6_atomic.cu)
 *   changed:  no reduction: lane 0 scales y[row] by beta, each lane
 *             atomicAdds alpha * its partial (native fp64 atomics, sm_60+).
 *   helps:    the seed's experiment: shows what atomics cost vs shuffles.
 *   loses:    up to 32 serialised L2 atomics per row; not bit-reproducible.
 *   measured: a LOSS, as in the seed: lap3d 903/1067, rand 856/931, plaw
 *             820/863 (1.1-2.4x rung 5); real 0.97x (on these small,
 *             L2-resident matrices the atomics cost little more than the
 *             launch).
 * 7 cusparse-alg1 (spmv_7_cusparse.cu)
 *   changed:  cusparseSpMV, CUSPARSE_SPMV_CSR_ALG1, preprocessed at upload.
 *   helps:    NVIDIA's tuned kernel: the yardstick.
 *   loses:    opaque; on the smallest matrices a call costs 6.7-7.8 us
 *             where one of our kernels takes 4.5.
 *   measured: lap3d 199/120, rand 301/277, plaw 302/279 (70%, 46%, 45%
 *             of the 3009 GB/s device copy in f64 by the minimal-bytes
 *             model, L2 flushed); inside a CUDA graph still 4.6-5.9 us
 *             per SpMV on the five smallest matrices (f64), where rungs
 *             2-6 take 1.6-2.9.
 * 8 cusparse-alg2 (spmv_7_cusparse.cu)
 *   changed:  cusparseSpMV, CUSPARSE_SPMV_CSR_ALG2 (deterministic).
 *   helps:    bit-reproducible results.
 *   loses:    a little speed: lap3d 217/147 (0.91x/0.81x), rand 315/288
 *             (0.95x/0.96x), plaw 315/287 (0.96x/0.97x); real 0.75x.
 *   measured: as above.
 * 9 adaptive (spmv_9_adaptive.cu) — past the seed
 *   changed:  L = 1..32 lanes per row (mean < 8: 1; matrix past the L2:
 *             the largest power of two <= mean, one entry per lane; else
 *             <= mean / 2), rounds of four predicated loads per lane; rows
 *             longer than 16 L entries (4 L on tiny SpMVs: row groups plus
 *             chunk warps within a quarter of the resident threads) summed
 *             by whole warps in 128-entry chunks IN THE SAME LAUNCH (chunk
 *             blocks first; a row of several chunks combined in chunk
 *             order by the last warp to finish: bit-reproducible); past
 *             the L2 with L >= 8, values and indices loaded L2
 *             evict-first so x stays in L2.
 *   helps:    lanes match the rows; several gathers in flight per
 *             thread; no warp stuck on a long row; one launch per SpMV.
 *   loses:    one L for all short rows; plaw-like rows (8-16000, random
 *             columns), where ALG1 stays 8-9% ahead; a fixed ~0.2 us on a
 *             few tiny matrices (below); two rung-9 SpMVs on one matrix
 *             with multi-chunk rows must not run concurrently (shared
 *             partials and counters).
 *   measured: lap3d 152/97 (1.31x/1.24x; 90% of the copy bandwidth
 *             flushed), rand 300/284 (1.01x/0.98x), plaw 326/307
 *             (0.92x/0.91x); real 1.51x f64 (1.53x f32), faster than
 *             ALG1 on 28 of 28, 2.01x inside a CUDA graph (the engine's
 *             run at bf79ab0, 14:22Z, agreed within 1%). Fastest rung of
 *             the run on 24 of 31 (f64); a warp-per-row rung is
 *             0.03-0.18 us ahead on six small matrices (karate, lp_afiro,
 *             west0067, lp_ship04l, bcsstk13, PGPgiantcompo), ALG1 8% on
 *             plaw. rand f64 (ncu, cd510af run; bf79ab0 kept rand's
 *             path): 408 MB of DRAM reads (the stream, offsets and x once:
 *             x stays in L2; ALG1 415 MB), so DRAM is at 1.4 TB/s and the
 *             cost is the 32M random x sectors served by the L2 (micro:
 *             ~135 G scattered sectors/s at 16 MiB, i.e. >= 237 us for
 *             the gathers alone); plaw likewise (bf79ab0 run: 411 MB, 330
 *             us under ncu; ALG1 413 MB, 298 us).
 *   history:  before the rework (ladder run 1, c370ff6, 13:54Z; second
 *             kernel for long rows, no cache hints): lap3d 149/96, rand
 *             333/288, plaw 343/305, real 1.31x (24 of 28), graph 1.70x.
 *             The second launch is gone: karate 7.71 -> 4.64 us (rung 5
 *             4.58), lp_ship04l 9.62 -> 5.06 (4.99), delaunay_n16 9.25 ->
 *             6.53 (ALG1 9.34), wiki-Vote 10.24 -> 7.07, ct2010 10.24 ->
 *             7.62 (ALG1 9.89), PGPgiantcompo 8.80 -> 6.45; in a graph
 *             karate 3.69 -> 1.74, lp_ship04l 5.71 -> 2.13 (f64). Lost a
 *             little: crack 5.09 -> 5.26 us (graph 2.18 -> 2.37), west0067
 *             4.45 -> 4.67 (1.53 -> 1.81), Pd 4.48 -> 4.67 (1.59 ->
 *             1.75), bcsstk33 6.75 -> 6.91, lap3d f64 149 -> 152: a fixed
 *             ~0.2 us on tiny SpMVs, not explained yet (crack has no
 *             chunk at all; candidates: the larger kernel, the chunk path
 *             of west0067/Pd's 5-6-entry rows). First try of this version
 *             (cd510af) had the evict-first loads on every matrix: lap3d
 *             288/108 us, see the rung's file. Raw runs:
 *             bench/results/h100-80gb-hbm3/raw/rung9-rework/.
 *
 * AUTO (SMV_ALG_AUTO = 0): chosen once per matrix at upload from its
 * statistics, by smv_auto_choose below (the rule and its reasons are
 * there).
 *   measured: PASS on all 31 matrices, f64 and f32; rung 9 everywhere but
 *             rand and plaw (ALG1: 301.1/277.4 and 301.4/278.9 us).
 *             Against the fastest of all ten rungs per matrix: within 3%
 *             on 28 of 31 L2-warm f64 (real-set geomean 1.006; worst
 *             lp_afiro and west0067, 1.04) and on 31 of 31 f32; in a
 *             graph within 5% on 27 of 31 f64 (worst PGPgiantcompo 3.58
 *             vs rung 5's 3.11 us). Before the rework (c370ff6): 10%
 *             behind the fastest rung (geomean), up to 1.9x. On rand f64
 *             rung 9 and ALG1 are level (299.5 vs 301.1 us, inside the
 *             run-to-run spread), so the rule keeps ALG1 there.
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

#include <stdlib.h>
#include <string.h>

const struct smv_rung *smv_rung_of(smv_alg alg) {
  switch (alg) {
  case SMV_ALG_SCALAR:
    return &smv_rung_scalar;
  case SMV_ALG_VECTOR:
    return &smv_rung_vector;
  case SMV_ALG_VECTOR_TEX:
    return &smv_rung_vector_tex;
  case SMV_ALG_VECTOR_LDG:
    return &smv_rung_vector_ldg;
  case SMV_ALG_VECTOR_SHFL:
    return &smv_rung_vector_shfl;
  case SMV_ALG_VECTOR_ATOMIC:
    return &smv_rung_vector_atomic;
  case SMV_ALG_ADAPTIVE:
    return &smv_rung_adaptive;
  default:
    return NULL; /* AUTO and the cuSPARSE rungs have no kernel of ours */
  }
}

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
  for (int a = 0; a < SMV_RUNGS; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (!r)
      continue;
    for (int p = 0; p < 2; p++) {
      smv_precision prec = (smv_precision)p;
      cudaFuncAttributes fa;
      cudaError_t e = cudaFuncGetAttributes(&fa, r->kernel(prec));
      if (e != cudaSuccess)
        return smv_cu_fail(ctx, e, "cudaFuncGetAttributes(%s, %s)",
                           smv_kernel_name((smv_alg)a),
                           prec == SMV_F64 ? "f64" : "f32");
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
                           prec == SMV_F64 ? "f64" : "f32");
      ctx->default_block[a][p] = best;
    }
  }
  return SMV_OK;
}

/* ---- AUTO -----------------------------------------------------------------
 */

/* The rung AUTO runs for a matrix with these statistics.
 *
 * Rule: cuSPARSE ALG1 for large matrices (nnz >= 4M: values and indices
 * no longer fit the 50 MB L2) whose rows average 8 entries or more and
 * whose columns are scattered (col_spread > 0.05: x gathered from all
 * over); the adaptive rung (9) for everything else.
 *
 * Why (H100, 2026-11-22, commit bf79ab0, rungs 5, 9 and ALG1, f64 and
 * f32): rung 9 beat ALG1 on lap3d:160 (152 vs 199 us f64, 97 vs 120 f32:
 * local columns, 7 per row) and on all 28 real matrices (geometric mean
 * 1.52x, all under 1M entries; the long-row matrices that ALG1 won before,
 * karate, lp_ship04l, wiki-Vote and ct2010, lost only to rung 9's second
 * launch, now gone). On the random-column rand:2000000:16 rung 9 is level
 * with ALG1 in f64 (300 vs 301 us) and 2% behind in f32 (284 vs 278), and
 * on plaw:2000000:16 8-9% behind (327 vs 302, 307 vs 279): there the 16
 * random x gathers per row, served by the L2, are the cost, and cuSPARSE's
 * kernel keeps an edge on uneven rows. So ALG1 for that kind, rung 9 for
 * the rest: within 3% of the fastest of the three on all 31 matrices
 * (L2-warm). */
smv_alg smv_auto_choose(const smv_context *ctx,
                        const struct smv_matrix_stats *s) {
  (void)ctx;
  if (s->nnz >= ((int64_t)4 << 20) && s->row_mean >= 8.0 &&
      s->col_spread > 0.05)
    return SMV_ALG_CUSPARSE_ALG1;
  return SMV_ALG_ADAPTIVE;
}

/* ---- smv_spmv -------------------------------------------------------------
 */

static int is_zero(smv_precision prec, double v) {
  return prec == SMV_F64 ? v == 0.0 : (float)v == 0.0f;
}
static int is_one(smv_precision prec, double v) {
  return prec == SMV_F64 ? v == 1.0 : (float)v == 1.0f;
}

static smv_status check_common(smv_context *ctx, smv_alg alg,
                               const smv_matrix *dA) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv: NULL matrix");
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv: unknown alg %d", (int)alg);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmv: matrix lives on device %d, context on %d",
                       dA->device, ctx->device);
  return SMV_OK;
}

static smv_status spmv_device(smv_context *ctx, smv_alg alg, double alpha,
                              const smv_matrix *dA, const void *x, double beta,
                              void *y) {
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
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv: x is NULL");
  if (alg == SMV_ALG_AUTO)
    alg = dA->auto_alg;
  if (alg == SMV_ALG_CUSPARSE_ALG1 || alg == SMV_ALG_CUSPARSE_ALG2)
    return smv_sparse_run(ctx, alg, dA, alpha, x, beta, y);

  const struct smv_rung *r = smv_rung_of(alg);
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
  if (alg == SMV_ALG_VECTOR_TEX) {
    smv_status st =
        smv_tex_lookup(ctx, dA->prec, x, s->cols, &L.tex, &L.tex_offset);
    if (st != SMV_OK)
      return st;
    if (!L.tex) /* cannot bind x: the read-only path computes the same */
      r = &smv_rung_vector_ldg, alg = SMV_ALG_VECTOR_LDG;
  }
  L.block = ctx->block_override ? ctx->block_override
                                : ctx->default_block[alg][dA->prec];
  e = r->launch(&L);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "launch of %s (%lld rows, block %d)",
                       smv_kernel_name(alg), (long long)s->rows, L.block);
  return SMV_OK;
}

extern "C" smv_status smv_spmv(smv_context *ctx, smv_alg alg, double alpha,
                               const smv_matrix *dA, const void *x, double beta,
                               void *y) {
  smv_status st = check_common(ctx, alg, dA);
  if (st != SMV_OK)
    return st;
  if (dA->st.rows == 0)
    return SMV_OK; /* y has no entries */
  if (!y)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv: y is NULL");
  const size_t es = dA->prec == SMV_F32 ? sizeof(float) : sizeof(double);
  if (smv_overlap(x, (size_t)dA->st.cols * es, y, (size_t)dA->st.rows * es))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmv: x and y overlap (in-place SpMV is not "
                       "supported: y must not share memory with x)");
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  st = spmv_device(ctx, alg, alpha, dA, x, beta, y);
  smv_device_leave(&g);
  return st;
}

/* ---- smv_spmv_host --------------------------------------------------------
 */

extern "C" smv_status smv_spmv_host(smv_context *ctx, smv_alg alg, double alpha,
                                    const smv_matrix *dA, const double *x,
                                    double beta, double *y) {
  smv_status st = check_common(ctx, alg, dA);
  if (st != SMV_OK)
    return st;
  const int64_t rows = dA->st.rows, cols = dA->st.cols;
  if (rows == 0)
    return SMV_OK;
  if (!y)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv_host: y is NULL");
  if (smv_overlap(x, (size_t)cols * sizeof *x, y, (size_t)rows * sizeof *y))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmv_host: x and y overlap (in-place SpMV is not "
                       "supported: y must not share memory with x)");
  const int need_x = dA->st.nnz > 0 && !is_zero(dA->prec, alpha);
  const int need_y = !is_zero(dA->prec, beta);
  if (need_x && !x)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv_host: x is NULL");
  const int f32 = dA->prec == SMV_F32;
  const size_t esize = f32 ? sizeof(float) : sizeof(double);

  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  void *dx = NULL, *dy = NULL;
  float *stage = NULL;
  cudaError_t e;
  if (need_x && (e = cudaMalloc(&dx, (size_t)cols * esize)) != cudaSuccess) {
    dx = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (x)",
                     (size_t)cols * esize);
    goto out;
  }
  if ((e = cudaMalloc(&dy, (size_t)rows * esize)) != cudaSuccess) {
    dy = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (y)",
                     (size_t)rows * esize);
    goto out;
  }
  if (f32) {
    size_t n = (size_t)(rows > cols ? rows : cols);
    stage = (float *)malloc(n * sizeof(float));
    if (!stage) {
      st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %zu bytes (f32 staging): out of memory",
                       n * sizeof(float));
      goto out;
    }
  }
  if (need_x) {
    const void *src = x;
    if (f32) {
      for (int64_t i = 0; i < cols; i++)
        stage[i] = (float)x[i];
      src = stage;
    }
    e = cudaMemcpyAsync(dx, src, (size_t)cols * esize, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e == cudaSuccess && f32) /* the stage is reused for y */
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of x (%zu bytes)",
                       (size_t)cols * esize);
      goto out;
    }
  }
  if (need_y) { /* beta = 0: y is write-only, never copied in */
    const void *src = y;
    if (f32) {
      for (int64_t i = 0; i < rows; i++)
        stage[i] = (float)y[i];
      src = stage;
    }
    e = cudaMemcpyAsync(dy, src, (size_t)rows * esize, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of y (%zu bytes)",
                       (size_t)rows * esize);
      goto out;
    }
  }
  if ((st = spmv_device(ctx, alg, alpha, dA, dx, beta, dy)) != SMV_OK)
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
  if (st != SMV_OK)
    (void)cudaStreamSynchronize(ctx->stream);
  if (dx)
    cudaFree(dx);
  if (dy)
    cudaFree(dy);
  free(stage);
  smv_device_leave(&g);
  return st;
}

/* ---- kernel introspection -------------------------------------------------
 */

static smv_status kernel_of(smv_context *ctx, smv_alg alg, smv_precision prec,
                            const struct smv_rung **r) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (prec != SMV_F64 && prec != SMV_F32)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "precision %d", (int)prec);
  *r = smv_rung_of(alg);
  if (!*r)
    return smv_ctx_set(ctx, SMV_ERR_NOT_FOUND,
                       "alg %d (%s) has no kernel of smv's own", (int)alg,
                       smv_alg_name(alg) ? smv_alg_name(alg) : "unknown");
  return SMV_OK;
}

static smv_status block_of(smv_context *ctx, smv_alg alg, smv_precision prec,
                           int *block) {
  if (*block == 0)
    *block = ctx->default_block[alg][prec];
  if (*block < 1 || *block > 1024)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "block size %d outside 1..1024",
                       *block);
  return SMV_OK;
}

extern "C" smv_status smv_kernel_attributes(smv_context *ctx, smv_alg alg,
                                            smv_precision prec, int block,
                                            smv_kernel_attrs *out) {
  const struct smv_rung *r;
  smv_status st = kernel_of(ctx, alg, prec, &r);
  if (st != SMV_OK)
    return st;
  if (!out)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_kernel_attributes: NULL out");
  if ((st = block_of(ctx, alg, prec, &block)) != SMV_OK)
    return st;
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
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
  const struct smv_rung *r;
  smv_status st = kernel_of(ctx, alg, prec, &r);
  if (st != SMV_OK)
    return st;
  if (!blocks_per_sm)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_kernel_occupancy_cuda: NULL");
  *blocks_per_sm = 0;
  if ((st = block_of(ctx, alg, prec, &block)) != SMV_OK)
    return st;
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
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

extern "C" smv_status smv_kernel_default_block(smv_context *ctx, smv_alg alg,
                                               smv_precision prec, int *block) {
  const struct smv_rung *r;
  smv_status st = kernel_of(ctx, alg, prec, &r);
  if (st != SMV_OK)
    return st;
  if (!block)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_kernel_default_block: NULL");
  *block = ctx->default_block[alg][prec];
  return SMV_OK;
}
