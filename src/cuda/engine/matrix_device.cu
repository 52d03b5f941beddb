/*
 * matrix_device.cu — smv_matrix_create_device: a matrix from CSR arrays
 * that are already on the GPU (CuPy, PyTorch, another library's buffers),
 * with no host round trip of the entries.
 *
 * Steps, all on the context's stream:
 *   1. check the pointers (device memory of the context's device);
 *   2. copy the three arrays into the matrix's own allocations (device to
 *      device; values converted to the matrix's precision by a kernel when
 *      they come in the other one), so the caller may free or change its
 *      arrays as soon as the call returns;
 *   3. one pass over the copy (a warp per row, a fixed grid, per-block
 *      partials summed on the host in block order: the same statistics on
 *      every run) checks the offsets (row_ptr[0] = 0, non-decreasing,
 *      row_ptr[rows] = nnz) and the columns (0 <= j < cols), and computes
 *      the statistics of struct smv_matrix_stats: row_max, long_rows,
 *      short_rows, col_spread and far_entries (engine.h);
 *   4. the row offsets, rows + 1 int32 (4 bytes a row, never the entries),
 *      are copied to the host: the rung plans (rung 9's chunk list, rungs
 *      10-11's tiles) are cut on the host from them, as for a host matrix;
 *   5. smv_matrix_analyse (matrix.cu): rung set-up, plan, cuSPARSE, tuning.
 * Columns need not be sorted within a row (SpMV does not care); duplicates
 * are summed by every product, as scipy does.
 *
 * Device memory: the matrix's arrays as smv_matrix_create's, plus a scratch
 * of 48 bytes per block of the statistics pass (at most 1024 blocks) freed
 * before returning. Host memory: (rows + 1) * 4 bytes, freed before
 * returning. Synchronises (the statistics are needed on the host).
 */
#include "analyse.h"
#include "engine.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one block of the statistics pass found. */
struct dev_stats {
  double spread;        /* sum over its entries of |j - i * cols / rows| */
  long long row_max;    /* longest row                                   */
  long long long_rows;  /* rows longer than 4 x the mean                 */
  long long short_rows; /* rows under SMV_SPMM_SHORT_ROW entries        */
  long long far;        /* entries past SMV_NEAR_COLS of the diagonal    */
  long long bad_row;    /* first row whose offsets are wrong (or -1)     */
  long long bad_entry;  /* first entry whose column is out of range (-1) */
  long long bad_col;    /* that column                                   */
};

#define STATS_BLOCK 256
#define STATS_MAX_GRID 1024

__device__ static long long min_bad(long long a, long long b) {
  if (a < 0)
    return b;
  if (b < 0)
    return a;
  return a < b ? a : b;
}

/* A warp per row (grid-stride over rows): lane 0 checks the row's offsets,
 * the lanes check and measure its entries; rows whose offsets are wrong
 * are not entered (no read outside the arrays). */
__global__ static void stats_kernel(int64_t rows, int64_t cols, int64_t nnz,
                                    double mean, const int32_t *row_ptr,
                                    const int32_t *col_idx,
                                    struct dev_stats *out) {
  __shared__ struct dev_stats part[STATS_BLOCK / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
  const double scale = rows > 0 ? (double)cols / (double)rows : 0.0;
  double spread = 0;
  long long row_max = 0, long_rows = 0, short_rows = 0, far = 0, bad_row = -1,
            bad_entry = -1;
  long long bad_col = 0;
  for (int64_t i = (int64_t)blockIdx.x * (blockDim.x >> 5) + warp; i < rows;
       i += warps) {
    const int64_t beg = row_ptr[i], end = row_ptr[i + 1];
    const int ok = beg >= 0 && end >= beg && end <= nnz &&
                   (i != 0 || beg == 0) && (i != rows - 1 || end == nnz);
    if (!ok) {
      if (lane == 0 && bad_row < 0)
        bad_row = i;
      continue;
    }
    const long long len = end - beg;
    if (lane == 0) { /* the row's own figures, counted once */
      if (len > row_max)
        row_max = len;
      if ((double)len > 4.0 * mean)
        long_rows++;
      if (len < SMV_SPMM_SHORT_ROW)
        short_rows++;
    }
    const double diag = (double)i * scale;
    for (int64_t k = beg + lane; k < end; k += 32) {
      const int32_t j = col_idx[k];
      if (j < 0 || j >= cols) {
        if (bad_entry < 0 || k < bad_entry) {
          bad_entry = k;
          bad_col = j;
        }
      } else {
        const double d = fabs((double)j - diag);
        spread += d;
        far += d > SMV_NEAR_COLS;
      }
    }
  }
  /* Warp reduction (fixed order), then the block's warps in order. */
  for (int o = 16; o > 0; o >>= 1) {
    spread += __shfl_down_sync(0xffffffffu, spread, o);
    long long rm = __shfl_down_sync(0xffffffffu, row_max, o);
    row_max = rm > row_max ? rm : row_max;
    long_rows += __shfl_down_sync(0xffffffffu, long_rows, o);
    short_rows += __shfl_down_sync(0xffffffffu, short_rows, o);
    far += __shfl_down_sync(0xffffffffu, far, o);
    bad_row = min_bad(bad_row, __shfl_down_sync(0xffffffffu, bad_row, o));
    long long be = __shfl_down_sync(0xffffffffu, bad_entry, o);
    long long bc = __shfl_down_sync(0xffffffffu, bad_col, o);
    if (be >= 0 && (bad_entry < 0 || be < bad_entry)) {
      bad_entry = be;
      bad_col = bc;
    }
  }
  if (lane == 0) {
    part[warp].spread = spread;
    part[warp].row_max = row_max;
    part[warp].long_rows = long_rows;
    part[warp].short_rows = short_rows;
    part[warp].far = far;
    part[warp].bad_row = bad_row;
    part[warp].bad_entry = bad_entry;
    part[warp].bad_col = bad_col;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    struct dev_stats b = part[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); w++) {
      b.spread += part[w].spread;
      b.row_max = part[w].row_max > b.row_max ? part[w].row_max : b.row_max;
      b.long_rows += part[w].long_rows;
      b.short_rows += part[w].short_rows;
      b.far += part[w].far;
      b.bad_row = min_bad(b.bad_row, part[w].bad_row);
      if (part[w].bad_entry >= 0 &&
          (b.bad_entry < 0 || part[w].bad_entry < b.bad_entry)) {
        b.bad_entry = part[w].bad_entry;
        b.bad_col = part[w].bad_col;
      }
    }
    out[blockIdx.x] = b;
  }
}

__global__ static void f64_to_f32(int64_t n, const double *src, float *dst) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = (float)src[i];
}

__global__ static void f32_to_f64(int64_t n, const float *src, double *dst) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    dst[i] = (double)src[i];
}

/* p must be device (or managed) memory of the context's device. */
static smv_status check_pointer(smv_context *ctx, const void *p,
                                const char *what) {
  cudaPointerAttributes a;
  cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: %s (%p) is not a CUDA "
                       "pointer: %s",
                       what, p, cudaGetErrorString(e));
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: %s (%p) is host memory; "
                       "expected device memory of device %d",
                       what, p, ctx->device);
  if (a.type == cudaMemoryTypeDevice && a.device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: %s is on device %d; the "
                       "context is on device %d",
                       what, a.device, ctx->device);
  return SMV_OK;
}

static smv_status dev_alloc(smv_context *ctx, void **p, size_t bytes,
                            const char *what) {
  *p = NULL;
  if (bytes == 0)
    return SMV_OK;
  cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (%s)", bytes, what);
  }
  return SMV_OK;
}

/* The first entry (lowest index) of n doubles whose value is finite and
 * beyond FLT_MAX in magnitude, into *bad (ULLONG_MAX: none): f64-f32v
 * refuses such values, as smv_csr_check_f32_range does on the host. */
__global__ static void f32_range_kernel(int64_t n, const double *v,
                                        unsigned long long *bad) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const double a = fabs(v[i]);
    if (isfinite(a) && a > (double)FLT_MAX)
      atomicMin(bad, (unsigned long long)i);
  }
}

/* f64-f32v from f64 values: SMV_ERR_OVERFLOW naming the first value past
 * FLT_MAX (row, column, value), once the offsets are checked and on the
 * host (host_ptr, rows + 1 entries). One more read of the caller's values
 * (nnz * 8 bytes) and three small copies back. */
static smv_status f32_range(smv_context *ctx, const smv_matrix *m,
                            const int32_t *host_ptr, int64_t rows, int64_t nnz,
                            const double *values) {
  unsigned long long *d = NULL, bad = ~0ull;
  smv_status st = dev_alloc(ctx, (void **)&d, sizeof *d, "range check flag");
  if (st != SMV_OK)
    return st;
  cudaError_t e =
      cudaMemcpyAsync(d, &bad, sizeof bad, cudaMemcpyHostToDevice, ctx->stream);
  if (e == cudaSuccess) {
    f32_range_kernel<<<smv_grid_for(nnz, 256), 256, 0, ctx->stream>>>(
        nnz, values, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&bad, d, sizeof bad, cudaMemcpyDeviceToHost,
                        ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  cudaFree(d);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "smv_matrix_create_device: f32 range check");
  if (bad == ~0ull)
    return SMV_OK;
  /* The row holding entry `bad`: the last row whose offset is <= bad. */
  int64_t lo = 0, hi = rows; /* host_ptr[lo] <= bad < host_ptr[hi] */
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    if ((unsigned long long)host_ptr[mid] <= bad)
      lo = mid;
    else
      hi = mid;
  }
  int32_t col = -1;
  double v = 0;
  e = cudaMemcpyAsync(&col, m->col_idx + bad, sizeof col,
                      cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(&v, values + bad, sizeof v, cudaMemcpyDeviceToHost,
                        ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "smv_matrix_create_device: f32 range check");
  return smv_ctx_set(ctx, SMV_ERR_OVERFLOW,
                     "smv_matrix_create_device: row %lld, column %d: value "
                     "%.17g is beyond the f32 range (|v| > FLT_MAX = %.9g), "
                     "so precision f64-f32v cannot store it",
                     (long long)lo, (int)col, v, (double)FLT_MAX);
}

/* Copy (and convert) the caller's arrays into m's own. */
static smv_status copy_arrays(smv_context *ctx, smv_matrix *m, int64_t rows,
                              int64_t nnz, const int32_t *row_ptr,
                              const int32_t *col_idx, const void *values,
                              smv_precision vprec) {
  const size_t es = smv_prec_value_bytes(m->prec);
  smv_status st = dev_alloc(ctx, (void **)&m->row_ptr, (size_t)(rows + 1) * 4,
                            "row offsets");
  if (st == SMV_OK)
    st =
        dev_alloc(ctx, (void **)&m->col_idx, (size_t)nnz * 4, "column indices");
  if (st == SMV_OK)
    st = dev_alloc(ctx, &m->values, (size_t)nnz * es, "values");
  if (st != SMV_OK)
    return st;
  cudaError_t e = cudaMemcpyAsync(m->row_ptr, row_ptr, (size_t)(rows + 1) * 4,
                                  cudaMemcpyDeviceToDevice, ctx->stream);
  if (e == cudaSuccess && nnz > 0)
    e = cudaMemcpyAsync(m->col_idx, col_idx, (size_t)nnz * 4,
                        cudaMemcpyDeviceToDevice, ctx->stream);
  if (e == cudaSuccess && nnz > 0) {
    /* Stored as floats in f32 and f64-f32v. */
    if (smv_prec_value_bytes(vprec) == es) {
      e = cudaMemcpyAsync(m->values, values, (size_t)nnz * es,
                          cudaMemcpyDeviceToDevice, ctx->stream);
    } else {
      const unsigned grid = smv_grid_for(nnz, 256);
      if (es == sizeof(float))
        f64_to_f32<<<grid, 256, 0, ctx->stream>>>(nnz, (const double *)values,
                                                  (float *)m->values);
      else
        f32_to_f64<<<grid, 256, 0, ctx->stream>>>(nnz, (const float *)values,
                                                  (double *)m->values);
      e = cudaGetLastError();
    }
  }
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "smv_matrix_create_device: copying the arrays");
  return SMV_OK;
}

/* Check the copy and fill m->st (step 3 of the file's comment). */
static smv_status device_stats(smv_context *ctx, smv_matrix *m, int64_t rows,
                               int64_t cols, int64_t nnz) {
  struct smv_matrix_stats *s = &m->st;
  memset(s, 0, sizeof *s);
  s->rows = rows;
  s->cols = cols;
  s->nnz = nnz;
  if (rows == 0)
    return SMV_OK;
  s->row_mean = (double)nnz / (double)rows;
  int64_t grid = (rows + STATS_BLOCK / 32 - 1) / (STATS_BLOCK / 32);
  const int64_t cap = (int64_t)ctx->prop.multiProcessorCount * 8;
  if (grid > cap)
    grid = cap;
  if (grid > STATS_MAX_GRID)
    grid = STATS_MAX_GRID;
  struct dev_stats *d = NULL;
  smv_status st = dev_alloc(ctx, (void **)&d, (size_t)grid * sizeof *d,
                            "statistics scratch");
  if (st != SMV_OK)
    return st;
  struct dev_stats *h = (struct dev_stats *)malloc((size_t)grid * sizeof *h);
  if (!h) {
    cudaFree(d);
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "statistics: out of host memory");
  }
  cudaError_t e = cudaSuccess;
  {
    stats_kernel<<<(unsigned)grid, STATS_BLOCK, 0, ctx->stream>>>(
        rows, cols, nnz, s->row_mean, m->row_ptr, m->col_idx, d);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(h, d, (size_t)grid * sizeof *d, cudaMemcpyDeviceToHost,
                        ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  cudaFree(d);
  if (e != cudaSuccess) {
    free(h);
    return smv_cu_fail(ctx, e, "smv_matrix_create_device: statistics pass");
  }
  long long bad_row = -1, bad_entry = -1, bad_col = 0;
  double spread = 0;
  for (int64_t b = 0; b < grid; b++) {
    spread += h[b].spread;
    if (h[b].row_max > s->row_max)
      s->row_max = h[b].row_max;
    s->long_rows += h[b].long_rows;
    s->short_rows += h[b].short_rows;
    s->far_entries += h[b].far;
    if (h[b].bad_row >= 0 && (bad_row < 0 || h[b].bad_row < bad_row))
      bad_row = h[b].bad_row;
    if (h[b].bad_entry >= 0 && (bad_entry < 0 || h[b].bad_entry < bad_entry)) {
      bad_entry = h[b].bad_entry;
      bad_col = h[b].bad_col;
    }
  }
  free(h);
  if (bad_row >= 0)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: invalid row offsets at row "
                       "%lld (expected row_ptr[0] = 0, non-decreasing, "
                       "row_ptr[%lld] = nnz = %lld)",
                       bad_row, (long long)rows, (long long)nnz);
  if (bad_entry >= 0)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: column index %lld of entry "
                       "%lld out of range 0..%lld",
                       bad_col, bad_entry, (long long)cols - 1);
  if (nnz > 0 && cols > 0)
    s->col_spread = spread / (double)nnz / (double)cols;
  return SMV_OK;
}

extern "C" smv_status
smv_matrix_create_device(smv_context *ctx, int64_t rows, int64_t cols,
                         int64_t nnz, const int32_t *row_ptr,
                         const int32_t *col_idx, const void *values,
                         smv_precision values_prec, smv_precision prec,
                         const smv_matrix_options *opt, smv_matrix **out) {
  if (!out)
    return ctx ? smv_ctx_set(ctx, SMV_ERR_ARG,
                             "smv_matrix_create_device: NULL dA")
               : SMV_ERR_ARG;
  *out = NULL;
  if (!ctx)
    return SMV_ERR_ARG;
  if (rows < 0 || cols < 0 || nnz < 0 || rows > SMV_INDEX_MAX ||
      cols > SMV_INDEX_MAX || nnz > SMV_OFFSET_MAX)
    return smv_ctx_set(
        ctx, rows < 0 || cols < 0 || nnz < 0 ? SMV_ERR_ARG : SMV_ERR_OVERFLOW,
        "smv_matrix_create_device: %lld x %lld with %lld "
        "entries (each must be in 0..%d)",
        (long long)rows, (long long)cols, (long long)nnz, SMV_INDEX_MAX);
  if (!smv_precision_name(prec) ||
      (values_prec != SMV_F64 && values_prec != SMV_F32))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_matrix_create_device: precision %d / values "
                       "precision %d",
                       (int)prec, (int)values_prec);
  char why[128];
  if (smv__matrix_options_bad(opt, "smv_matrix_create_device", why, sizeof why))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s", why);
  if (!row_ptr || (nnz > 0 && (!col_idx || !values)))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_matrix_create_device: NULL %s",
                       !row_ptr   ? "row_ptr"
                       : !col_idx ? "col_idx"
                                  : "values");
  struct smv_device_guard g;
  smv_status st = smv_device_enter(ctx, &g);
  if (st != SMV_OK)
    return st;
  st = check_pointer(ctx, row_ptr, "row_ptr");
  if (st == SMV_OK && nnz > 0)
    st = check_pointer(ctx, col_idx, "col_idx");
  if (st == SMV_OK && nnz > 0)
    st = check_pointer(ctx, values, "values");
  if (st != SMV_OK) {
    smv_device_leave(&g);
    return st;
  }
  smv_matrix *m = (smv_matrix *)calloc(1, sizeof *m);
  int32_t *host_ptr = (int32_t *)malloc((size_t)(rows + 1) * 4);
  if (!m || !host_ptr) {
    free(m);
    free(host_ptr);
    smv_device_leave(&g);
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "smv_matrix_create_device: out of host memory");
  }
  m->device = ctx->device;
  m->prec = prec;
  m->opts = opt ? opt->flags : 0;
  m->serial = smv_matrix_serial_next();
  double t = smv_now_ms();
  st = copy_arrays(ctx, m, rows, nnz, row_ptr, col_idx, values, values_prec);
  m->plan.upload_ms = smv_now_ms() - t;
  t = smv_now_ms();
  if (st == SMV_OK)
    st = device_stats(ctx, m, rows, cols, nnz);
  if (st == SMV_OK) {
    cudaError_t e =
        cudaMemcpyAsync(host_ptr, m->row_ptr, (size_t)(rows + 1) * 4,
                        cudaMemcpyDeviceToHost, ctx->stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess)
      st = smv_cu_fail(ctx, e, "smv_matrix_create_device: row offsets to host");
  }
  if (st == SMV_OK && prec == SMV_F64_F32V && values_prec == SMV_F64 && nnz > 0)
    st = f32_range(ctx, m, host_ptr, rows, nnz, (const double *)values);
  m->plan.stats_ms = smv_now_ms() - t;
  if (st == SMV_OK) {
    smv_csr A;
    memset(&A, 0, sizeof A);
    A.rows = (smv_index)rows;
    A.cols = (smv_index)cols;
    A.nnz = nnz;
    A.row_ptr = host_ptr;
    st = smv_matrix_analyse(ctx, m, &A, opt); /* releases m on failure */
  } else {
    (void)cudaStreamSynchronize(ctx->stream);
    smv_matrix_free(m);
  }
  free(host_ptr);
  smv_device_leave(&g);
  if (st != SMV_OK)
    return st;
  *out = m;
  return SMV_OK;
}
