/*
 * spmm_4_rowsplit.cu — SpMM rung 4, row-major: rung 3 for the rows of up
 * to SMV_SPMM_CHUNK entries, and rows longer than that (power-law hubs)
 * cut into chunks of SMV_SPMM_CHUNK entries that all warps share, their
 * partial sums added in chunk order by a second kernel (deterministic: no
 * atomics, the same bits on every run).
 *
 * What changed from rung 3: there, one group of lanes walks a whole row,
 * so an R-MAT hub of 10^4..10^5 entries keeps one warp busy for
 * thousands of rounds after the rest of the matrix is done. Here that
 * row is 40..400 independent chunks, one warp each (the whole warp on one
 * chunk: L lanes along k, 32 / L sub-groups over the chunk's entries).
 *
 * Three launches on the stream, in order: rung 3's kernel skipping the
 * long rows; the chunk kernel writing each chunk's unscaled partial sums
 * (k per chunk) to the workspace; the fix-up, one thread per (long row,
 * column), adding the row's partials in chunk order and applying alpha
 * and beta. The chunk kernel does not depend on the first, but one
 * stream keeps the code simple and the first kernel's tail is short.
 * The chunk kernel's warps take the chunks by their place in their rows
 * (every long row's first tenth, then its second, ...), not row by row:
 * the chunks in flight then gather from one band of columns and the L2
 * keeps that band's X rows (R-MAT's hubs share one skewed column law).
 * Each chunk still writes its own slot, so the bits are row order's.
 *
 * The chunk list and order are built once per matrix (the row offsets
 * copied to the host: (rows + 1) x 4 bytes; the order, nchunks x 4
 * bytes, sorted there), kept with the matrix. Chunks hold
 * SMV_SPMM_CHUNK entries, fewer (down to 64) when that would leave SMs
 * without chunks (the device's SM count x 16): a small matrix's few hubs.
 * The workspace holds
 * nchunks x k partials (nchunks x k x 4 or 8 bytes: rmat:20:16 at k =
 * 128 f32, about 10^4 chunks, 5 MB) and grows with k. Both allocate and
 * synchronise, so they are refused while the stream is captured.
 *
 * Where it loses: the extra pass writes and reads the partials (chunks x
 * k x 2 accesses, small next to the chunks' X gathers); a matrix whose
 * long rows hold few entries pays two extra launches (a few µs) for
 * nothing, which is why the plan keeps rung 3 when no row is long.
 */
#include "spmm_rowvec.cuh"

#include <stdlib.h>

#define SPLIT_BLOCK 256
/* Chunks of at least this many entries (two rounds of a warp), and the
 * chunks per SM below which they are shortened. */
#define SPLIT_MIN_CHUNK 64
#define SPLIT_CHUNKS_PER_SM 16

static int64_t sms_of(const smv_context *ctx) {
  return ctx->prop.multiProcessorCount > 0 ? ctx->prop.multiProcessorCount : 1;
}

void smv_spmm_split_free(smv_matrix *m) {
  struct smv_spmm_split *sp = m->spmm_split;
  if (!sp)
    return;
  cudaFree(sp->list);
  cudaFree(sp->order);
  cudaFree(sp->ws);
  cudaFree(sp->tws);
  smv_spmm_bands_free(sp->bands);
  free(sp);
  m->spmm_split = NULL;
}

/* A chunk's place in its row, for chunk_order. */
struct chunk_place {
  double f;
  int32_t id;
};

static int by_place(const void *a, const void *b) {
  const struct chunk_place *x = (const struct chunk_place *)a,
                           *y = (const struct chunk_place *)b;
  if (x->f != y->f)
    return x->f < y->f ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* sp->order from the long rows' first chunks hl (host; rows' chunks
 * are contiguous, in row order): chunk i of a row of n
 * chunks has place (i + 1/2) / n, its columns' quantile in the row (a
 * row's columns are sorted). Sorted by place, the chunks the device runs
 * at once hold the same quantile of every long row: on R-MAT (whose long
 * rows' columns follow one skewed law) one band of X rows at a time, which
 * an LRU model of the L2 says it keeps far better than row order
 * (scripts/experiments/chunkorder/lru.c). */
static smv_status chunk_order(smv_context *ctx, struct smv_spmm_split *sp,
                              const int2 *hl) {
  const int64_t n = sp->nchunks;
  struct chunk_place *p = (struct chunk_place *)malloc((size_t)n * sizeof *p);
  int32_t *o = (int32_t *)malloc((size_t)n * sizeof *o);
  if (!p || !o) {
    free(p), free(o);
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "SpMM split: malloc of %lld chunk places", (long long)n);
  }
  for (int64_t l = 0; l < sp->nlong; l++) {
    const int64_t c0 = hl[l].y, c1 = hl[l + 1].y;
    for (int64_t c = c0; c < c1; c++) {
      p[c].f = ((double)(c - c0) + 0.5) / (double)(c1 - c0);
      p[c].id = (int32_t)c;
    }
  }
  qsort(p, (size_t)n, sizeof *p, by_place);
  for (int64_t c = 0; c < n; c++)
    o[c] = p[c].id;
  free(p);
  cudaError_t e = cudaMalloc(&sp->order, (size_t)n * sizeof *o);
  if (e != cudaSuccess) {
    sp->order = NULL;
    free(o);
    return smv_cu_fail(ctx, e, "SpMM split: cudaMalloc of the chunk order");
  }
  e = cudaMemcpyAsync(sp->order, o, (size_t)n * sizeof *o,
                      cudaMemcpyHostToDevice, ctx->stream);
  if (e == cudaSuccess) /* o is freed next */
    e = cudaStreamSynchronize(ctx->stream);
  free(o);
  if (e != cudaSuccess) { /* never left half uploaded for the next call */
    cudaFree(sp->order);
    sp->order = NULL;
    return smv_cu_fail(ctx, e, "SpMM split: upload of the chunk order");
  }
  return SMV_OK;
}

/* The chunk list from the host copy of the row offsets. */
static smv_status split_build(smv_context *ctx, smv_matrix *m,
                              struct smv_spmm_split *sp) {
  const int64_t rows = m->st.rows;
  int32_t *rp = (int32_t *)malloc(((size_t)rows + 1) * sizeof *rp);
  if (!rp)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "SpMM split: malloc of %lld row offsets",
                       (long long)rows + 1);
  cudaError_t e = cudaMemcpyAsync(rp, m->row_ptr, ((size_t)rows + 1) * 4,
                                  cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    free(rp);
    return smv_cu_fail(ctx, e, "SpMM split: copy of the row offsets");
  }
  /* The chunk size: SMV_SPMM_CHUNK, halved (down to SPLIT_MIN_CHUNK)
   * while the chunks would not give every SM SPLIT_CHUNKS_PER_SM warps of
   * work (a small matrix with a few hubs: the hubs are then the critical
   * path, and shorter chunks spread them over the device). */
  const int64_t want = (int64_t)SPLIT_CHUNKS_PER_SM * sms_of(ctx);
  int64_t chunk = sp->chunk, nlong, nchunks;
  for (;;) {
    nlong = 0, nchunks = 0;
    for (int64_t r = 0; r < rows; r++) {
      const int64_t len = (int64_t)rp[r + 1] - rp[r];
      if (len > chunk) {
        nlong++;
        nchunks += (len + chunk - 1) / chunk;
      }
    }
    if (nchunks >= want || chunk / 2 < SPLIT_MIN_CHUNK)
      break;
    chunk /= 2;
  }
  sp->chunk = chunk;
  sp->nlong = nlong;
  sp->nchunks = nchunks;
  if (nchunks == 0) {
    free(rp);
    return SMV_OK;
  }
  /* Chunk ids and entries fit in int32 (nchunks <= nnz <= INT32_MAX). */
  const size_t n = (size_t)nchunks + (size_t)nlong + 1;
  int2 *h = (int2 *)malloc(n * sizeof *h);
  if (!h) {
    free(rp);
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "SpMM split: malloc of %zu bytes",
                       n * sizeof *h);
  }
  int2 *hc = h, *hl = h + nchunks;
  int64_t c = 0, l = 0;
  for (int64_t r = 0; r < rows; r++) {
    const int64_t b = rp[r], end = rp[r + 1];
    if (end - b <= chunk)
      continue;
    hl[l++] = make_int2((int)r, (int)c);
    for (int64_t s = b; s < end; s += chunk)
      hc[c++] = make_int2((int)s, (int)(s + chunk < end ? s + chunk : end));
  }
  hl[l] = make_int2((int)rows, (int)c);
  free(rp);
  e = cudaMalloc(&sp->list, n * sizeof *h);
  if (e != cudaSuccess) {
    sp->list = NULL;
    free(h);
    return smv_cu_fail(ctx, e, "SpMM split: cudaMalloc of %zu bytes",
                       n * sizeof *h);
  }
  e = cudaMemcpyAsync(sp->list, h, n * sizeof *h, cudaMemcpyHostToDevice,
                      ctx->stream);
  if (e == cudaSuccess) /* h is freed next */
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    free(h);
    return smv_cu_fail(ctx, e, "SpMM split: upload of the chunk list");
  }
  sp->chunks = sp->list;
  sp->longs = sp->list + nchunks;
  /* The chunk order, from the same host list (nchunks x 4 bytes): built
   * with the split, so a product that finds the split built (the one a
   * CUDA graph captures) never has to build anything. */
  smv_status st = chunk_order(ctx, sp, hl);
  free(h);
  return st;
}

smv_status smv_spmm_refuse_in_capture(smv_context *ctx, const char *what) {
  cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
  cudaError_t e = cudaStreamIsCapturing(ctx->stream, &cs);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "SpMM split: cudaStreamIsCapturing");
  if (cs != cudaStreamCaptureStatusNone)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "SpMM: %s would synchronise inside a CUDA graph "
                       "capture; run the product once (with the largest k) "
                       "before capturing",
                       what);
  return SMV_OK;
}

/* Free *p and allocate `bytes` there, after the stream's work that may
 * still use the old buffer. */
static smv_status grow(smv_context *ctx, void **p, size_t *have, size_t bytes,
                       const char *what) {
  smv_status st = smv_spmm_refuse_in_capture(ctx, "growing the workspace");
  if (st != SMV_OK)
    return st;
  cudaError_t e = cudaStreamSynchronize(ctx->stream);
  if (e == cudaSuccess && *p)
    e = cudaFree(*p);
  *p = NULL;
  *have = 0;
  if (e == cudaSuccess)
    e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    *p = NULL;
    return smv_cu_fail(ctx, e, "SpMM: cudaMalloc of %zu bytes (%s)", bytes,
                       what);
  }
  *have = bytes;
  return SMV_OK;
}

smv_status smv_spmm_workspace(smv_context *ctx, struct smv_spmm_split *sp,
                              size_t bytes) {
  if (bytes <= sp->tws_bytes)
    return SMV_OK;
  return grow(ctx, &sp->tws, &sp->tws_bytes, bytes,
              "row-major copies of X and Y");
}

smv_status smv_spmm_state_get(smv_context *ctx, smv_matrix *m,
                              struct smv_spmm_split **out) {
  if (!m->spmm_split) {
    struct smv_spmm_split *sp = (struct smv_spmm_split *)calloc(1, sizeof *sp);
    if (!sp)
      return smv_ctx_set(ctx, SMV_ERR_NOMEM, "SpMM split: out of memory");
    sp->chunk = SMV_SPMM_CHUNK;
    m->spmm_split = sp;
  }
  *out = m->spmm_split;
  return SMV_OK;
}

smv_status smv_spmm_split_get(const struct spmm_args *a,
                              struct smv_spmm_split **out) {
  smv_context *ctx = a->ctx;
  smv_matrix *m = a->m;
  smv_status st;
  struct smv_spmm_split *sp = NULL;
  *out = NULL;
  if ((st = smv_spmm_state_get(ctx, m, &sp)) != SMV_OK)
    return st;
  if (!sp->listed) {
    if ((st = smv_spmm_refuse_in_capture(ctx, "listing the long rows")) !=
        SMV_OK)
      return st;
    if (m->st.row_max > sp->chunk && (st = split_build(ctx, m, sp)) != SMV_OK) {
      smv_spmm_split_free(m);
      return st;
    }
    sp->listed = 1;
  }
  const size_t es = m->prec == SMV_F64 ? 8 : 4;
  const size_t need = (size_t)sp->nchunks * (size_t)a->k * es;
  if (need > sp->ws_bytes && (st = grow(ctx, &sp->ws, &sp->ws_bytes, need,
                                        "chunk partials")) != SMV_OK)
    return st;
  *out = sp;
  return SMV_OK;
}

/* ---- the chunks: one warp per chunk, row-major X ------------------------ */

template <typename T, int V, int CV, int MINB>
__global__ void __launch_bounds__(SPLIT_BLOCK, MINB)
    spmm_rowsplit_chunks(int64_t nchunks, const int2 *__restrict__ chunks,
                         const int32_t *__restrict__ order,
                         const int32_t *__restrict__ ci,
                         const T *__restrict__ val, const T *__restrict__ X,
                         int64_t ldx, T *__restrict__ ws, int k, int L) {
  const int G = 32 / L, gl = threadIdx.x & 31, ln = gl % L, sub = gl / L;
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int TW = L * V * CV;
  for (int64_t i = warp; i < nchunks; i += warps) {
    /* The i-th chunk taken (warps start in about their order); its
     * partials go to its own slot, so the fix-up's order is unchanged. */
    const int64_t ch = order ? order[i] : i;
    const int2 c = chunks[ch];
    T *w = ws + ch * k;
    for (int c0 = 0; c0 < k; c0 += TW) {
      T acc[CV][V];
      spmm_rowvec_range<T, V, CV>((unsigned)c.x, (unsigned)c.y, ci, val, X, ldx,
                                  k, c0, L, G, gl, 0xffffffffu, acc);
      if (sub != 0)
        continue;
#pragma unroll
      for (int cv = 0; cv < CV; cv++) {
        const int col = c0 + (cv * L + ln) * V;
#pragma unroll
        for (int i = 0; i < V; i++)
          if (col + i < k)
            w[col + i] = acc[cv][i];
      }
    }
  }
}

/* ---- the fix-up: one thread per (long row, column) ---------------------- */

template <typename T>
__global__ void spmm_split_fixup(int64_t nlong, const int2 *__restrict__ longs,
                                 const T *__restrict__ ws, int k, T *Y,
                                 int64_t yr, int64_t yc, T alpha, T beta) {
  const int64_t n = nlong * k;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = t / k;
    const int c = (int)(t % k);
    const int2 lo = longs[i], hi = longs[i + 1];
    T sum = T(0);
    for (int64_t ch = lo.y; ch < hi.y; ch++)
      sum += ws[ch * k + c];
    T *y = Y + (int64_t)lo.x * yr + (int64_t)c * yc;
    *y = beta == T(0) ? alpha * sum : alpha * sum + beta * *y;
  }
}

cudaError_t smv_spmm_launch_fixup(const struct spmm_args *a,
                                  const struct smv_spmm_split *sp) {
  const int row = a->layout == SMV_LAYOUT_ROW_MAJOR;
  const int64_t yr = row ? a->ldy : 1, yc = row ? 1 : a->ldy;
  const unsigned grid = smv_grid_for(sp->nlong * a->k, SPLIT_BLOCK);
  cudaStream_t s = a->ctx->stream;
  if (a->m->prec == SMV_F64)
    spmm_split_fixup<double><<<grid, SPLIT_BLOCK, 0, s>>>(
        sp->nlong, sp->longs, (const double *)sp->ws, a->k, (double *)a->Y, yr,
        yc, a->alpha, a->beta);
  else
    spmm_split_fixup<float><<<grid, SPLIT_BLOCK, 0, s>>>(
        sp->nlong, sp->longs, (const float *)sp->ws, a->k, (float *)a->Y, yr,
        yc, (float)a->alpha, (float)a->beta);
  return cudaGetLastError();
}

/* Chunks by place in their rows (sp->order, built with the split) unless
 * SMV_SPMM_CHUNK_ORDER=0 asks for row order (the bits are the same either
 * way: each chunk writes its own slot). By place, the chunks in flight
 * share a band of columns of every long row and the L2 keeps that band's
 * X rows: the R-MAT hub rows' chunk kernel was L2-bound in row order
 * (bench/results/h200/spmm.md, "Chunk order"). */
static int chunk_order_on(void) {
  const char *s = getenv("SMV_SPMM_CHUNK_ORDER");
  return !(s && s[0] == '0');
}

/* The chunk kernel's blocks an SM asked of ptxas: 4 for doubles (64
 * registers a thread, against the compiler's 72-94, which fit two or
 * three 256-thread blocks an SM and leave the warps waiting on their
 * gathers; ptxas then spills 20-28 bytes in the one-vector kernels and
 * up to 184 loaded in the two-vector two-column one), the compiler's
 * choice for floats (four blocks measured no different there).
 * bench/results/h200/spmm.md, "The chunk kernel's registers", has the
 * measurements. SMV_SPMM_CHUNK_MINB=1 or 4 sets it for both. */
static int chunk_minb(bool f64) {
  const char *s = getenv("SMV_SPMM_CHUNK_MINB");
  if (s && (s[0] == '1' || s[0] == '4') && s[1] == '\0')
    return s[0] - '0';
  return f64 ? 4 : 1;
}

/* One launch of the chunk kernel at CV column vectors a lane and MINB
 * blocks an SM. */
template <typename T, int V, int CV, int MINB>
static void chunks_kernel(const struct spmm_args *a,
                          const struct smv_spmm_split *sp, const int32_t *order,
                          unsigned grid, int L) {
  const smv_matrix *m = a->m;
  spmm_rowsplit_chunks<T, V, CV, MINB>
      <<<grid, SPLIT_BLOCK, 0, a->ctx->stream>>>(
          sp->nchunks, sp->chunks, order, m->col_idx, (const T *)m->values,
          (const T *)a->X, a->ldx, (T *)sp->ws, a->k, L);
}

template <typename T, int V>
static cudaError_t chunks_launch(const struct spmm_args *a,
                                 const struct smv_spmm_split *sp,
                                 const int32_t *order) {
  int L, CV;
  smv_spmm_rowvec_shape(a->k, V, &L, &CV);
  const unsigned grid = smv_grid_for(sp->nchunks * 32, SPLIT_BLOCK);
  const bool four = chunk_minb(sizeof(T) == 8) == 4;
  if (CV == 2)
    four ? chunks_kernel<T, V, 2, 4>(a, sp, order, grid, L)
         : chunks_kernel<T, V, 2, 1>(a, sp, order, grid, L);
  else
    four ? chunks_kernel<T, V, 1, 4>(a, sp, order, grid, L)
         : chunks_kernel<T, V, 1, 1>(a, sp, order, grid, L);
  return cudaGetLastError();
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

smv_status smv_spmm_rowsplit_long(const struct spmm_args *a,
                                  struct smv_spmm_split *sp) {
  /* The vector width: the workspace (ws_k = k per chunk, cudaMalloc'd so
   * 256-byte aligned) does not limit it; X's alignment does. */
  const int v = spmm_rowvec_width(a);
  const int32_t *order = chunk_order_on() ? sp->order : NULL;
  cudaError_t e;
  if (a->m->prec == SMV_F32)
    e = v == 4   ? chunks_launch<float, 4>(a, sp, order)
        : v == 2 ? chunks_launch<float, 2>(a, sp, order)
                 : chunks_launch<float, 1>(a, sp, order);
  else
    e = v == 2 ? chunks_launch<double, 2>(a, sp, order)
               : chunks_launch<double, 1>(a, sp, order);
  if (e == cudaSuccess)
    e = smv_spmm_launch_fixup(a, sp);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e,
                       "launch of SpMM rung 4 (rowsplit, %lld chunks, k = %d)",
                       (long long)sp->nchunks, a->k);
  return SMV_OK;
}

smv_status smv_spmm_rowsplit_with(const struct spmm_args *a,
                                  smv_spmm_rows_fn rows, const char *name) {
  struct smv_spmm_split *sp = NULL;
  smv_status st;
  const int split = a->m->st.row_max > SMV_SPMM_CHUNK;
  if (split && (st = smv_spmm_split_get(a, &sp)) != SMV_OK)
    return st;
  const int64_t thr = split ? sp->chunk : -1;
  cudaError_t e = cudaSuccess;
  if (!rows(a, thr, &e)) {
    if ((st = smv_spmm_rowvec_run(a, thr)) != SMV_OK) /* rung 4's rows */
      return st;
  } else if (e != cudaSuccess) {
    return smv_cu_fail(a->ctx, e, "launch of SpMM %s (k = %d)", name, a->k);
  }
  return split ? smv_spmm_rowsplit_long(a, sp) : SMV_OK;
}

static smv_status run(const struct spmm_args *a) {
  if (a->m->st.row_max <= SMV_SPMM_CHUNK)
    return smv_spmm_rowvec_run(a, -1); /* no long rows: rung 3 alone */
  struct smv_spmm_split *sp;
  smv_status st = smv_spmm_split_get(a, &sp);
  if (st != SMV_OK)
    return st;
  if ((st = smv_spmm_rowvec_run(a, sp->chunk)) != SMV_OK)
    return st;
  return smv_spmm_rowsplit_long(a, sp);
}

const struct spmm_rung smv_spmm_rung_rowsplit = {
    SMV_SPMM_ROWSPLIT, 4, accepts, run, "row-major X and Y", 0};
