/*
 * context.cu — smv_context: device, stream, cuSPARSE handle, error text,
 * device properties, memory helpers.
 *
 * "No device" is any failure of cudaGetDeviceCount (no driver gives error
 * 35, cudaErrorInsufficientDriver; a driver without GPUs gives 100) or a
 * count of zero: smv_context_create then returns SMV_ERR_NO_DEVICE at once,
 * having allocated nothing. The reason is kept per thread and readable
 * through smv_context_error(NULL), since there is no context to hold it.
 */
#include "engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why the last smv_context_create on this thread failed. */
static thread_local char create_err[SMV_ERROR_TEXT];

static void vset(char *buf, const char *fmt, va_list ap, const char *tail) {
  int n = vsnprintf(buf, SMV_ERROR_TEXT, fmt, ap);
  if (tail && n >= 0 && n < SMV_ERROR_TEXT)
    snprintf(buf + n, SMV_ERROR_TEXT - (size_t)n, ": %s", tail);
}

smv_status smv_cu_fail(smv_context *ctx, cudaError_t e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(ctx ? ctx->err : create_err, fmt, ap, cudaGetErrorString(e));
  va_end(ap);
  /* Leave no stale error behind for the caller's next cudaGetLastError
   * (sticky errors stay, which is what they are for). */
  (void)cudaGetLastError();
  return e == cudaErrorMemoryAllocation ? SMV_ERR_NOMEM : SMV_ERR_CUDA;
}

static const char *sparse_text(cusparseStatus_t s) {
  switch (s) {
  case CUSPARSE_STATUS_NOT_INITIALIZED:
    return "cuSPARSE not initialized";
  case CUSPARSE_STATUS_ALLOC_FAILED:
    return "cuSPARSE allocation failed";
  case CUSPARSE_STATUS_INVALID_VALUE:
    return "cuSPARSE invalid value";
  case CUSPARSE_STATUS_ARCH_MISMATCH:
    return "cuSPARSE architecture mismatch";
  case CUSPARSE_STATUS_EXECUTION_FAILED:
    return "cuSPARSE execution failed";
  case CUSPARSE_STATUS_INTERNAL_ERROR:
    return "cuSPARSE internal error";
  case CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED:
    return "cuSPARSE matrix type not supported";
  case CUSPARSE_STATUS_NOT_SUPPORTED:
    return "cuSPARSE operation not supported";
  case CUSPARSE_STATUS_INSUFFICIENT_RESOURCES:
    return "cuSPARSE insufficient resources";
  default:
    return "cuSPARSE error";
  }
}

smv_status smv_sparse_fail(smv_context *ctx, cusparseStatus_t s,
                           const char *fmt, ...) {
  char tail[96];
  snprintf(tail, sizeof tail, "%s (status %d)", sparse_text(s), (int)s);
  va_list ap;
  va_start(ap, fmt);
  vset(ctx ? ctx->err : create_err, fmt, ap, tail);
  va_end(ap);
  return s == CUSPARSE_STATUS_ALLOC_FAILED ? SMV_ERR_NOMEM : SMV_ERR_CUSPARSE;
}

smv_status smv_ctx_set(smv_context *ctx, smv_status st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vset(ctx ? ctx->err : create_err, fmt, ap, NULL);
  va_end(ap);
  return st;
}

smv_status smv_device_enter(smv_context *ctx, struct smv_device_guard *g) {
  g->changed = 0;
  cudaError_t e = cudaGetDevice(&g->prev);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaGetDevice");
  if (g->prev != ctx->device) {
    e = cudaSetDevice(ctx->device);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "cudaSetDevice(%d)", ctx->device);
    g->changed = 1;
  }
  return SMV_OK;
}

void smv_device_leave(struct smv_device_guard *g) {
  if (g->changed)
    (void)cudaSetDevice(g->prev);
}

smv_status smv_device_enter_uncaptured(smv_context *ctx,
                                       struct smv_device_guard *g,
                                       const char *who, smv_status code,
                                       const char *refusal) {
  smv_status st = smv_device_enter(ctx, g);
  if (st != SMV_OK)
    return st;
  cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(ctx->stream, &cap);
  if (e != cudaSuccess)
    st = smv_cu_fail(ctx, e, "%scudaStreamIsCapturing", who);
  else if (cap != cudaStreamCaptureStatusNone)
    st = smv_ctx_set(ctx, code, "%s", refusal);
  if (st != SMV_OK)
    smv_device_leave(g);
  return st;
}

int smv_env_int(const char *name, int lo, int hi, int dflt) {
  const char *s = getenv(name);
  if (!s || !*s)
    return dflt;
  const long v = strtol(s, NULL, 10);
  return v >= lo && v <= hi ? (int)v : dflt;
}

unsigned smv_grid_for(int64_t work, int block) {
  int64_t g = (work + block - 1) / block;
  if (g < 1)
    g = 1;
  if (g > INT32_MAX) /* gridDim.x limit since CC 3.0; kernels loop */
    g = INT32_MAX;
  return (unsigned)g;
}

/* smv_context's dram_per_sm_clk (engine.h), read once here. A fact for
 * a rule, not a requirement: a device that does not say gets 0 and no
 * error is left behind. */
static double dram_per_sm_clock(int device, const cudaDeviceProp *p) {
  int mem_khz = 0, bus_bits = 0, sm_khz = 0;
  if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) !=
          cudaSuccess ||
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth,
                             device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, device) !=
          cudaSuccess) {
    (void)cudaGetLastError();
    return 0.0;
  }
  if (sm_khz <= 0 || p->multiProcessorCount <= 0)
    return 0.0;
  return 2.0 * mem_khz * (bus_bits / 8.0) /
         ((double)p->multiProcessorCount * sm_khz);
}

extern "C" smv_status smv_context_create(int device, smv_context **out) {
  if (!out)
    return SMV_ERR_ARG;
  *out = NULL;
  create_err[0] = '\0';
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) { /* smv_cu_fail also clears the (non-sticky) error */
    smv_cu_fail(NULL, e, "cudaGetDeviceCount failed");
    return SMV_ERR_NO_DEVICE;
  }
  if (count == 0)
    return smv_ctx_set(NULL, SMV_ERR_NO_DEVICE, "no CUDA device found");
  if (device < 0)
    return smv_ctx_set(NULL, SMV_ERR_ARG, "device %d: negative device number",
                       device);
  if (device >= count)
    return smv_ctx_set(NULL, SMV_ERR_NO_DEVICE,
                       "device %d: only %d CUDA device%s", device, count,
                       count == 1 ? "" : "s");

  smv_context *ctx = (smv_context *)calloc(1, sizeof *ctx);
  if (!ctx)
    return smv_ctx_set(NULL, SMV_ERR_NOMEM, "context: out of host memory");
  ctx->device = device;

  int prev = -1;
  (void)cudaGetDevice(&prev);
  smv_status st = SMV_OK;
  cusparseStatus_t ss;
  if ((e = cudaSetDevice(device)) != cudaSuccess) {
    st = smv_cu_fail(NULL, e, "cudaSetDevice(%d)", device);
    goto fail;
  }
  if ((e = cudaGetDeviceProperties(&ctx->prop, device)) != cudaSuccess) {
    st = smv_cu_fail(NULL, e, "cudaGetDeviceProperties(%d)", device);
    goto fail;
  }
  if ((e = cudaDeviceGetAttribute(&ctx->max_tex1d_linear,
                                  cudaDevAttrMaxTexture1DLinearWidth,
                                  device)) != cudaSuccess) {
    st = smv_cu_fail(NULL, e, "cudaDeviceGetAttribute(MaxTexture1DLinear)");
    goto fail;
  }
  ctx->dram_per_sm_clk = dram_per_sm_clock(device, &ctx->prop);
  ctx->tex_align = ctx->prop.textureAlignment;
  if (ctx->tex_align == 0)
    ctx->tex_align = 1;
  /* A blocking stream: it waits for work the caller put on the legacy
   * default stream (e.g. a cudaMemcpy still being DMA'd into x). */
  if ((e = cudaStreamCreate(&ctx->own_stream)) != cudaSuccess) {
    st = smv_cu_fail(NULL, e, "cudaStreamCreate");
    goto fail;
  }
  ctx->stream = ctx->own_stream;
  if ((ss = cusparseCreate(&ctx->sparse)) != CUSPARSE_STATUS_SUCCESS) {
    ctx->sparse = NULL;
    st = smv_sparse_fail(NULL, ss, "cusparseCreate");
    goto fail;
  }
  if ((ss = cusparseSetStream(ctx->sparse, ctx->stream)) !=
      CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(NULL, ss, "cusparseSetStream");
    goto fail;
  }
  /* alpha and beta are passed by value from the host: pointer mode host
   * (the default, set explicitly so nothing outside can change it). */
  if ((ss = cusparseSetPointerMode(ctx->sparse, CUSPARSE_POINTER_MODE_HOST)) !=
      CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(NULL, ss, "cusparseSetPointerMode");
    goto fail;
  }
  if ((st = smv_blocks_init(ctx)) != SMV_OK) {
    memcpy(create_err, ctx->err, sizeof create_err);
    goto fail;
  }
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  *out = ctx;
  return SMV_OK;

fail:
  if (ctx->sparse)
    cusparseDestroy(ctx->sparse);
  if (ctx->own_stream)
    cudaStreamDestroy(ctx->own_stream);
  free(ctx);
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  return st;
}

extern "C" void smv_context_free(smv_context *ctx) {
  if (!ctx)
    return;
  struct smv_device_guard g;
  int entered = smv_device_enter(ctx, &g) == SMV_OK;
  smv_tex_cache_clear(ctx);
  smv_workspace_free(ctx);
  if (ctx->sparse)
    cusparseDestroy(ctx->sparse);
  if (ctx->own_stream)
    cudaStreamDestroy(ctx->own_stream);
  if (entered)
    smv_device_leave(&g);
  free(ctx);
}

extern "C" const char *smv_context_error(const smv_context *ctx) {
  return ctx ? ctx->err : create_err;
}

extern "C" smv_status smv_context_set_stream(smv_context *ctx,
                                             void *cuda_stream) {
  if (!ctx)
    return SMV_ERR_ARG;
  cudaStream_t s = cuda_stream ? (cudaStream_t)cuda_stream : ctx->own_stream;
  cusparseStatus_t ss = cusparseSetStream(ctx->sparse, s);
  if (ss != CUSPARSE_STATUS_SUCCESS)
    return smv_sparse_fail(ctx, ss, "cusparseSetStream");
  ctx->stream = s;
  return SMV_OK;
}

extern "C" void *smv_context_stream(const smv_context *ctx) {
  return ctx ? (void *)ctx->stream : NULL;
}

extern "C" smv_status smv_context_set_block_size(smv_context *ctx, int block) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (block != 0 && (block < 32 || block > 1024 || block % 32 != 0))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "block size %d: must be 0 (default) or a multiple "
                       "of 32 in 32..1024",
                       block);
  ctx->block_override = block;
  return SMV_OK;
}

extern "C" smv_status smv_device_props_get(smv_context *ctx,
                                           smv_device_props *p) {
  if (!ctx || !p)
    return SMV_ERR_ARG;
  memset(p, 0, sizeof *p);
  const cudaDeviceProp *d = &ctx->prop;
  snprintf(p->name, sizeof p->name, "%s", d->name);
  p->cc_major = d->major;
  p->cc_minor = d->minor;
  p->sm_count = d->multiProcessorCount;
  p->global_mem_bytes = (int64_t)d->totalGlobalMem;
  p->l2_bytes = d->l2CacheSize;
  p->max_threads_per_sm = d->maxThreadsPerMultiProcessor;
  p->regs_per_sm = d->regsPerMultiprocessor;
  p->smem_per_sm = (int)d->sharedMemPerMultiprocessor;
  p->smem_per_block_optin = (int)d->sharedMemPerBlockOptin;
  /* Clock fields left cudaDeviceProp in CUDA 13; the attributes remain. */
  struct {
    cudaDeviceAttr a;
    int *dst;
    const char *name;
  } q[] = {{cudaDevAttrClockRate, &p->clock_khz, "ClockRate"},
           {cudaDevAttrMemoryClockRate, &p->mem_clock_khz, "MemoryClockRate"},
           {cudaDevAttrGlobalMemoryBusWidth, &p->mem_bus_bits,
            "GlobalMemoryBusWidth"},
           {cudaDevAttrEccEnabled, &p->ecc, "EccEnabled"}};
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
    cudaError_t e = cudaDeviceGetAttribute(q[i].dst, q[i].a, ctx->device);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "cudaDeviceGetAttribute(%s)", q[i].name);
  }
  cudaError_t e = cudaRuntimeGetVersion(&p->runtime_version);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaRuntimeGetVersion");
  e = cudaDriverGetVersion(&p->driver_version);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaDriverGetVersion");
  return SMV_OK;
}

/* ---- memory helpers ------------------------------------------------------ */

extern "C" smv_status smv_device_malloc(smv_context *ctx, size_t bytes,
                                        void **p) {
  if (!ctx || !p)
    return SMV_ERR_ARG;
  *p = NULL;
  if (bytes == 0)
    return SMV_OK; /* nothing to hold; smv_device_free(NULL) is fine */
  struct smv_device_guard g;
  smv_status st = smv_device_enter(ctx, &g);
  if (st != SMV_OK)
    return st;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes", bytes);
  }
  smv_device_leave(&g);
  return st;
}

extern "C" void smv_device_free(smv_context *ctx, void *p) {
  if (!p)
    return;
  struct smv_device_guard g;
  int entered = ctx && smv_device_enter(ctx, &g) == SMV_OK;
  (void)cudaFree(p);
  if (entered)
    smv_device_leave(&g);
}

static smv_status copy(smv_context *ctx, void *dst, const void *src,
                       size_t bytes, cudaMemcpyKind kind, const char *what) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (bytes == 0)
    return SMV_OK;
  if (!dst || !src)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s of %zu bytes: NULL pointer", what,
                       bytes);
  struct smv_device_guard g;
  smv_status st = smv_device_enter(ctx, &g);
  if (st != SMV_OK)
    return st;
  /* Ordered on the context's stream, then waited for: the helpers are
   * synchronous for callers without CUDA headers. */
  cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    st = smv_cu_fail(ctx, e, "%s of %zu bytes", what, bytes);
  smv_device_leave(&g);
  return st;
}

extern "C" smv_status smv_memcpy_h2d(smv_context *ctx, void *dst,
                                     const void *src, size_t bytes) {
  return copy(ctx, dst, src, bytes, cudaMemcpyHostToDevice,
              "cudaMemcpy host to device");
}

extern "C" smv_status smv_memcpy_d2h(smv_context *ctx, void *dst,
                                     const void *src, size_t bytes) {
  return copy(ctx, dst, src, bytes, cudaMemcpyDeviceToHost,
              "cudaMemcpy device to host");
}

extern "C" smv_status smv_synchronize(smv_context *ctx) {
  if (!ctx)
    return SMV_ERR_ARG;
  cudaError_t e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaStreamSynchronize");
  return SMV_OK;
}
