/*
 * spmv_3_tex.cu — rung 3: rung 2 with x read through a texture object
 * (the seed's second rung).
 *
 * What changed: the gather x[col_idx[k]] — the only irregular access of
 * CSR SpMV — goes through the texture unit, whose cache on Kepler was
 * separate from L1 and tolerant of scattered 4- and 8-byte reads. Doubles
 * cannot be texels, so x is bound as int2 and rebuilt with
 * __hiloint2double (the seed's trick); float is fetched directly.
 * Everything else, including the shared-memory reduction, is rung 2.
 * Since Maxwell, and on sm_90, the texture cache and L1 are one unified
 * on-chip store, so this mostly measures the cost of the texture path's
 * extra latency against rung 2's plain loads; bench results say which.
 *
 * Texture objects are created on the host, so never inside smv_spmv on
 * every call: the context caches one per (x pointer, length, precision)
 * the first time it sees them (smv_tex_lookup below). If that first time
 * happens while the stream is being captured into a CUDA graph, the
 * creation runs under cudaThreadExchangeStreamCaptureMode(relaxed), the
 * runtime's sanctioned way for a library to make such a call during
 * capture; later calls (and replays) only read the cache. Entries live
 * until the context is freed, so a captured graph never outlives its
 * texture object; the cache holds SMV_TEX_CACHE (64) vectors.
 *
 * Limits: a 1D texture over linear memory holds at most
 * cudaDevAttrMaxTexture1DLinearWidth texels (2^28 on sm_90, checked at
 * run time) and must start at a cudaDevAttrTextureAlignment boundary
 * (512 bytes); x is bound from the aligned address below it and the
 * kernel adds the offset. When x is longer than the limit, not aligned to
 * its element size, or the cache is full, rung 3 reads x through the
 * read-only path instead (rung 4's kernel) and the result is the same.
 *
 * Block size: 32 registers and block * sizeof(T) bytes of shared memory: 64,
 * 128, 256, 512 and 1024 threads all reach 64 of 64 warps per SM on sm_90. Tie
 * settled by a block sweep on lap3d:160 f64, one warp per row (ladder.md's
 * rung notes): 128 threads fastest, each doubling slower; 64
 * threads also reach full occupancy but were 50% slower (2M blocks of two
 * warps: block launch rate, not occupancy, limits). On the small cage10
 * every size from 128 up is within 5%. So 128.
 */
#include "kernel_common.h"

#include <string.h>

template <typename T>
__device__ __forceinline__ T fetch_x(cudaTextureObject_t t, int i);
template <>
__device__ __forceinline__ double fetch_x<double>(cudaTextureObject_t t,
                                                  int i) {
  int2 v = tex1Dfetch<int2>(t, i);
  return __hiloint2double(v.y, v.x); /* little endian: .x is the low word */
}
template <>
__device__ __forceinline__ float fetch_x<float>(cudaTextureObject_t t, int i) {
  return tex1Dfetch<float>(t, i);
}

template <typename T>
__global__ void spmv_vector_tex(int64_t rows, const int32_t *row_ptr,
                                const int32_t *col_idx, const T *val,
                                cudaTextureObject_t x, int x_offset, T alpha,
                                T beta, T *y) {
  /* Rung 2 but for the gather of x, fetched through the texture. */
  smv_warp_per_row<T>(
      rows, [=](int64_t i) { return row_ptr[i]; },
      [col_idx, val, x, x_offset](unsigned k) {
        return val[k] * fetch_x<T>(x, x_offset + col_idx[k]);
      },
      smv_reduce_smem<T>{alpha, beta, y});
}

template <typename T> static cudaError_t run(const struct smv_launch *L) {
  unsigned grid = smv_grid_for(L->rows * 32, L->block);
  return smv_launch_k(spmv_vector_tex<T>, grid, L->block,
                      smv_smem_per_thread<1>(L->prec, L->block), L->stream,
                      L->rows, L->row_ptr, L->col_idx, (const T *)L->values,
                      L->tex, (int)L->tex_offset, (T)L->alpha, (T)L->beta,
                      (T *)L->y);
}

static cudaError_t launch(const struct smv_launch *L) {
  return L->prec == SMV_F64 ? run<double>(L) : run<float>(L);
}

const struct smv_rung smv_rung_vector_tex = smv_kernel_rung(
    SMV_ALG_VECTOR_TEX,
    smv_kernel_pick<spmv_vector_tex<double>, spmv_vector_tex<float>>,
    smv_smem_per_thread<1>, 128, launch);

/* ---- the texture cache --------------------------------------------------- */

static smv_status create_tex(smv_context *ctx, smv_precision prec,
                             const void *x, int64_t n,
                             struct smv_tex_entry *out) {
  const size_t esize = prec == SMV_F64 ? sizeof(double) : sizeof(float);
  uintptr_t addr = (uintptr_t)x;
  uintptr_t base = addr - addr % ctx->tex_align;
  out->tex = 0;
  out->offset = 0;
  if ((addr - base) % esize != 0)
    return SMV_OK; /* x not aligned to its element: read-only path */
  int64_t offset = (int64_t)((addr - base) / esize);
  if (offset + n > (int64_t)ctx->max_tex1d_linear)
    return SMV_OK; /* past maxTexture1DLinear: read-only path */

  cudaResourceDesc res;
  memset(&res, 0, sizeof res);
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = (void *)base;
  res.res.linear.desc = prec == SMV_F64 ? cudaCreateChannelDesc<int2>()
                                        : cudaCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = (size_t)(offset + n) * esize;
  cudaTextureDesc td;
  memset(&td, 0, sizeof td);
  td.readMode = cudaReadModeElementType;
  td.filterMode = cudaFilterModePoint;
  td.addressMode[0] = cudaAddressModeClamp;
  td.normalizedCoords = 0;

  /* During capture, switch this thread to relaxed mode around the one
   * creation (creation is not a stream operation, but global-mode capture
   * forbids "potentially unsafe" calls), then restore the caller's mode. */
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(ctx->stream, &cap);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaStreamIsCapturing");
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  if (cap == cudaStreamCaptureStatusActive) {
    e = cudaThreadExchangeStreamCaptureMode(&mode);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "cudaThreadExchangeStreamCaptureMode");
  }
  cudaTextureObject_t t = 0;
  e = cudaCreateTextureObject(&t, &res, &td, NULL);
  if (cap == cudaStreamCaptureStatusActive)
    (void)cudaThreadExchangeStreamCaptureMode(&mode);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e,
                       "cudaCreateTextureObject over %lld elements of x",
                       (long long)n);
  out->tex = t;
  out->offset = offset;
  return SMV_OK;
}

smv_status smv_tex_lookup(smv_context *ctx, smv_precision prec, const void *x,
                          int64_t n, cudaTextureObject_t *tex,
                          int64_t *offset) {
  *tex = 0;
  *offset = 0;
  for (int i = 0; i < ctx->ntex; i++) {
    const struct smv_tex_entry *t = &ctx->tex[i];
    if (t->ptr == x && t->n == n && t->prec == prec) {
      *tex = t->tex;
      *offset = t->offset;
      return SMV_OK;
    }
  }
  if (ctx->ntex == SMV_TEX_CACHE)
    return SMV_OK; /* full: read-only path, never evict (graphs use them) */
  struct smv_tex_entry e;
  smv_status st = create_tex(ctx, prec, x, n, &e);
  if (st != SMV_OK)
    return st;
  /* Remember "cannot bind" too (tex 0), so the checks are not repeated. */
  e.ptr = x;
  e.n = n;
  e.prec = prec;
  ctx->tex[ctx->ntex++] = e;
  *tex = e.tex;
  *offset = e.offset;
  return SMV_OK;
}

void smv_tex_cache_clear(smv_context *ctx) {
  for (int i = 0; i < ctx->ntex; i++)
    if (ctx->tex[i].tex)
      (void)cudaDestroyTextureObject(ctx->tex[i].tex);
  ctx->ntex = 0;
}
