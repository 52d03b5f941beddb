/*
 * spmm.cu — smv_spmm and smv_spmm_host: argument checks, the cases no
 * kernel needs to see (k = 0, no rows, alpha = 0 or no entries: Y =
 * beta*Y), then smv's kernel (spmm_ours.cu) or cuSPARSE's
 * (spmm_cusparse.cu).
 *
 * The SpMM family is separate from the SpMV ladder: its own alg enum
 * (smv_spmm_alg), its own kernels. AUTO runs ours (measured against
 * cuSPARSE in bench/results/h100-80gb-hbm3/spmm.md).
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

static smv_status check(smv_context *ctx, smv_spmm_alg alg,
                        const smv_matrix *dA, double alpha, const void *X,
                        int64_t ldx, double beta, const void *Y, int64_t ldy,
                        int k, smv_layout layout, const char *fn) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL matrix", fn);
  if ((int)alg < 0 || alg >= SMV_SPMM_ALG_COUNT)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: unknown algorithm %d", fn,
                       (int)alg);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: matrix lives on device %d, context on %d", fn,
                       dA->device, ctx->device);
  const double a = dA->prec == SMV_F32 ? (double)(float)alpha : alpha;
  char why[256];
  smv_status st =
      smv_spmm_shape_check(dA->st.rows, dA->st.cols, dA->st.nnz, a, X, ldx,
                           beta, Y, ldy, k, layout, why, sizeof why);
  if (st != SMV_OK)
    return smv_ctx_set(ctx, st, "%s: %s", fn, why);
  return SMV_OK;
}

static int is_zero(smv_precision p, double v) {
  return p == SMV_F64 ? v == 0.0 : (float)v == 0.0f;
}

/* After the checks, on the right device. */
static smv_status spmm_device(smv_context *ctx, smv_spmm_alg alg, double alpha,
                              const smv_matrix *dA, const void *X, int64_t ldx,
                              double beta, void *Y, int64_t ldy, int k,
                              smv_layout layout) {
  const struct smv_matrix_stats *s = &dA->st;
  cudaError_t e;
  if (is_zero(dA->prec, alpha) || s->nnz == 0) {
    const int one = dA->prec == SMV_F64 ? beta == 1.0 : (float)beta == 1.0f;
    if (one)
      return SMV_OK;
    e = smv_spmm_launch_scale(dA->prec, s->rows, k, beta, Y, ldy, layout,
                              ctx->stream);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "launch of the SpMM scale kernel");
    return SMV_OK;
  }
  if (alg == SMV_SPMM_AUTO || alg == SMV_SPMM_OURS) {
    e = smv_spmm_launch_ours(dA, alpha, X, ldx, beta, Y, ldy, k, layout,
                             ctx->stream);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e,
                         "launch of smv's SpMM kernel (%lld rows, "
                         "k = %d)",
                         (long long)s->rows, k);
    return SMV_OK;
  }
  return smv_spmm_cusparse(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k,
                           layout);
}

extern "C" smv_status smv_spmm(smv_context *ctx, smv_spmm_alg alg, double alpha,
                               smv_matrix *dA, const void *X, int64_t ldx,
                               double beta, void *Y, int64_t ldy, int k,
                               smv_layout layout) {
  smv_status st =
      check(ctx, alg, dA, alpha, X, ldx, beta, Y, ldy, k, layout, "smv_spmm");
  if (st != SMV_OK)
    return st;
  if (k == 0 || dA->st.rows == 0)
    return SMV_OK; /* Y has no entries */
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  st = spmm_device(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k, layout);
  smv_device_leave(&g);
  return st;
}

/* Host <-> packed device copy of an r x k operand with leading dimension
 * ld (host, doubles) into the device layout with ld = k (row-major) or r
 * (column-major), converting to float when f32. `stage` holds r * k
 * elements of the device type. */
static void pack(const double *h, int64_t r, int k, int64_t ld,
                 smv_layout layout, int f32, void *stage) {
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  for (int64_t i = 0; i < r; i++)
    for (int c = 0; c < k; c++) {
      const double v = h[row ? i * ld + c : c * ld + i];
      const int64_t d = row ? i * k + c : (int64_t)c * r + i;
      if (f32)
        ((float *)stage)[d] = (float)v;
      else
        ((double *)stage)[d] = v;
    }
}
static void unpack(const void *stage, int64_t r, int k, int64_t ld,
                   smv_layout layout, int f32, double *h) {
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  for (int64_t i = 0; i < r; i++)
    for (int c = 0; c < k; c++) {
      const int64_t d = row ? i * k + c : (int64_t)c * r + i;
      h[row ? i * ld + c : c * ld + i] =
          f32 ? (double)((const float *)stage)[d] : ((const double *)stage)[d];
    }
}

extern "C" smv_status smv_spmm_host(smv_context *ctx, smv_spmm_alg alg,
                                    double alpha, smv_matrix *dA,
                                    const double *X, int64_t ldx, double beta,
                                    double *Y, int64_t ldy, int k,
                                    smv_layout layout) {
  smv_status st = check(ctx, alg, dA, alpha, X, ldx, beta, Y, ldy, k, layout,
                        "smv_spmm_host");
  if (st != SMV_OK)
    return st;
  const int64_t rows = dA->st.rows, cols = dA->st.cols;
  if (k == 0 || rows == 0)
    return SMV_OK;
  const int f32 = dA->prec == SMV_F32;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  const int need_x = dA->st.nnz > 0 && cols > 0 && !is_zero(dA->prec, alpha);
  const int need_y = !is_zero(dA->prec, beta);
  const size_t nx = (size_t)cols * (size_t)k, ny = (size_t)rows * (size_t)k;
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  /* Packed device operands. */
  const int64_t dldx = row ? k : (cols > 0 ? cols : 1);
  const int64_t dldy = row ? k : rows;
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  void *dx = NULL, *dy = NULL, *stage = NULL;
  cudaError_t e;
  stage = malloc((nx > ny ? nx : ny) * es + 1);
  if (!stage) {
    st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                     "smv_spmm_host: malloc of %zu bytes (staging)",
                     (nx > ny ? nx : ny) * es);
    goto out;
  }
  if (need_x && (e = cudaMalloc(&dx, nx * es)) != cudaSuccess) {
    dx = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (X)", nx * es);
    goto out;
  }
  if ((e = cudaMalloc(&dy, ny * es)) != cudaSuccess) {
    dy = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (Y)", ny * es);
    goto out;
  }
  if (need_x) {
    pack(X, cols, k, ldx, layout, f32, stage);
    e = cudaMemcpyAsync(dx, stage, nx * es, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e == cudaSuccess) /* the stage is reused for Y */
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of X (%zu bytes)", nx * es);
      goto out;
    }
  }
  if (need_y) { /* beta = 0: Y is write-only, never copied in */
    pack(Y, rows, k, ldy, layout, f32, stage);
    e = cudaMemcpyAsync(dy, stage, ny * es, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of Y (%zu bytes)", ny * es);
      goto out;
    }
  }
  st = spmm_device(ctx, alg, alpha, dA, dx, dldx, beta, dy, dldy, k, layout);
  if (st != SMV_OK)
    goto out;
  e = cudaMemcpyAsync(stage, dy, ny * es, cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "SpMM or copy of Y back (%zu bytes)", ny * es);
    goto out;
  }
  unpack(stage, rows, k, ldy, layout, f32, Y);
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
