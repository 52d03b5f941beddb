/*
 * spmv_10_stream.cu — rung 10: tile-staged CSR-stream (after Greathouse and
 * Daga's CSR-adaptive, SC'14): rows packed into tiles of a fixed number of
 * entries, the tile's products staged in shared memory, then reduced per row.
 *
 * What changed from rung 9 (L lanes per row, L a power of two):
 *   1. The work unit is a TILE of at most TILE entries (256..4096, chosen
 *      per matrix at upload), not a row: at analysis the rows are cut into
 *      tiles of whole rows (greedy, in order: a tile takes rows while their
 *      entries fit), listed as {first row, -1}. A block takes one tile.
 *      Row lengths no longer have to match a lane count: a band of 9, 17 or
 *      33 entries per row wastes no lanes, where rung 9 at L = 8, 16 or 32
 *      left most of its second round's slots idle (band:8000000:4, 9 per
 *      row, ran at 70% of the copy bandwidth, 0.64x ALG1 in f32).
 *   2. Loading: the block reads the tile's column indices and values as
 *      16-byte vectors (int4 + 2 x double2 or int4 + float4: 4 entries per
 *      load per thread), fully coalesced whatever the row boundaries, in
 *      rounds of two quads per thread (up to 8 x gathers in flight per
 *      thread); only the unaligned head and tail of a tile (< 4 entries
 *      each) are loaded one by one. Each product val * x[col] goes to
 *      shared memory at its position in the tile. More bytes in flight per
 *      load instruction than rung 9's one value per lane, which matters
 *      most for f32 (4-byte values).
 *   3. Reduction: with R rows in the tile, P = the largest power of two <=
 *      blockDim / R threads per row (1..32) sum the row's products from
 *      shared memory (strided by P, then log2 P shuffles in the group);
 *      a tile of one row is summed by the whole block. Each row is added in
 *      a fixed order: results are bit-reproducible run to run.
 *   4. Rows longer than a tile are cut into tiles of TILE entries, listed
 *      as {row, first entry}; each block stores its tile's sum in
 *      `partials`, fences and counts itself in on the row's counter (at its
 *      first tile); the block that arrives last adds the partials in tile
 *      order and writes y (rung 9's scheme, with blocks instead of warps).
 *   5. Past the L2 the matrix stream is loaded with __ldcs (ld.global.cs:
 *      evict-first), so the stream, read once, does not push x out of L2.
 *      Every sector of the stream is read exactly once per SpMV here
 *      (unlike rung 9 at L = 1, where the hint cost 2x on lap3d).
 *   6. At most 32 registers (__maxnreg__): the first version let the
 *      compiler take 50 in f64, which left 36 of 64 warps per SM resident;
 *      capped, it compiles without spills and runs 64 of 64, and f64 went
 *      from 74-77% to 93-95% of the copy bandwidth on bands of 9-33 per
 *      row (band:8000000:4 442.6 -> 356.9 us; H100, 2026-11-24, commits
 *      e207e05 -> d42aa2a). f32 took 32 registers from the start.
 * Why it should help: no lanes wasted on any row length, 16-byte loads,
 * a fixed amount of work per block.
 * Where it loses: the staging round trip through shared memory and the
 * block barrier cost latency on tiny (launch-bound) matrices; the tile
 * list costs 8 bytes per tile (0.03% of an f64 matrix at TILE = 2048);
 * like rung 9, two SpMVs of this rung on the SAME matrix must not run
 * concurrently when it has rows longer than a tile (shared partials).
 *
 * Measured (H100, 2026-11-24, commit 507252b, L2-warm; full table in
 * bench/results/h100-80gb-hbm3/kernels-issue8.md): bands of 9-81 entries
 * per row past the L2 at 91-95% of the copy bandwidth in f64, 93-100% in
 * f32, 1.02-1.28x the faster cuSPARSE algorithm; 7 per row level with
 * rung 9 in f64, 5-9% behind in f32; 129 per row 9% behind rung 9 (f64);
 * rand:2000000:16 level with ALG1; plaw:2000000:16 3% (f64) and 4%
 * (f32) behind ALG1; every real matrix 0.2-2.5 us behind rung 9.
 *
 * Attributes and default block: the rung reports its large-matrix instance
 * (TILE = 2048 in f64, 4096 in f32).
 */
#include "kernel_common.h"

#include <stdlib.h>
#include <string.h>

/* ---- loads ------------------------------------------------------------------
 * Four consecutive entries k = 4q .. 4q+3 (16-byte aligned: the arrays come
 * from cudaMalloc). EF: ld.global.cs (evict-first), else the read-only
 * path. */
template <bool EF> __device__ __forceinline__ int4 ld_col4(const int32_t *p) {
  if constexpr (EF)
    return __ldcs((const int4 *)p);
  else
    return __ldg((const int4 *)p);
}
template <bool EF>
__device__ __forceinline__ void ld_val4(const double *p, double v[4]) {
  double2 a, b;
  if constexpr (EF) {
    a = __ldcs((const double2 *)p);
    b = __ldcs((const double2 *)p + 1);
  } else {
    a = __ldg((const double2 *)p);
    b = __ldg((const double2 *)p + 1);
  }
  v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
}
template <bool EF>
__device__ __forceinline__ void ld_val4(const float *p, float v[4]) {
  float4 a;
  if constexpr (EF)
    a = __ldcs((const float4 *)p);
  else
    a = __ldg((const float4 *)p);
  v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
}

/* Quad q of the tile (entries 4q..4q+3, all inside it) -> 4 products at
 * sm[4q - k0 ...]. Loads of two quads are issued before either's gathers
 * (the caller's round of two). */
template <typename T, bool EF>
__device__ __forceinline__ void
quad_load(unsigned q, bool p, const int32_t *__restrict__ col,
          const T *__restrict__ val, int c[4], T v[4]) {
  if (p) {
    const int4 c4 = ld_col4<EF>(&col[4 * q]);
    c[0] = c4.x, c[1] = c4.y, c[2] = c4.z, c[3] = c4.w;
    ld_val4<EF>(&val[4 * q], v);
  }
}

/* Stage the products of entries [k0, k1) (k1 - k0 <= TILE) into sm. */
template <typename T, bool EF>
__device__ __forceinline__ void
stage(unsigned k0, unsigned k1, const int32_t *__restrict__ col,
      const T *__restrict__ val, const T *__restrict__ x, T *sm) {
  const unsigned t = threadIdx.x, B = blockDim.x;
  const unsigned qa = (k0 + 3) >> 2, qb = k1 >> 2; /* full quads [qa, qb) */
  for (unsigned q = qa + t; q < qb; q += 2 * B) {
    const bool p1 = q + B < qb;
    int c0[4] = {0, 0, 0, 0}, c1[4] = {0, 0, 0, 0};
    T v0[4], v1[4] = {T(0), T(0), T(0), T(0)};
    quad_load<T, EF>(q, true, col, val, c0, v0);
    quad_load<T, EF>(q + B, p1, col, val, c1, v1);
    T x0[4], x1[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
      x0[j] = __ldg(&x[c0[j]]);
#pragma unroll
    for (int j = 0; j < 4; j++)
      x1[j] = p1 ? __ldg(&x[c1[j]]) : T(0);
    const unsigned s0 = 4 * q - k0, s1 = 4 * (q + B) - k0;
#pragma unroll
    for (int j = 0; j < 4; j++)
      sm[s0 + j] = v0[j] * x0[j];
    if (p1) {
#pragma unroll
      for (int j = 0; j < 4; j++)
        sm[s1 + j] = v1[j] * x1[j];
    }
  }
  /* Head [k0, min(4 qa, k1)) and tail [4 max(qa, qb), k1): < 4 each. */
  if (t < 8) {
    const unsigned head_end = 4 * qa < k1 ? 4 * qa : k1;
    const unsigned tail = 4 * (qa > qb ? qa : qb);
    const unsigned k = t < 4 ? k0 + t : tail + (t - 4);
    const bool ok = t < 4 ? k < head_end : k < k1;
    if (ok)
      sm[k - k0] = __ldg(&val[k]) * __ldg(&x[__ldg(&col[k])]);
  }
}

/* Sum of every thread's s over the block, in a fixed order (a function
 * of blockDim only); the result is valid in thread 0. red: 32 slots of
 * shared memory, free on entry (a barrier since its last reader). */
template <typename T> __device__ __forceinline__ T block_reduce(T s, T *red) {
  const unsigned t = threadIdx.x;
  for (int off = 16; off > 0; off >>= 1)
    s += __shfl_xor_sync(SMV_FULL_MASK, s, off);
  if ((t & 31u) == 0)
    red[t >> 5] = s;
  __syncthreads();
  T total = T(0);
  if (t < 32) {
    total = t < (blockDim.x >> 5) ? red[t] : T(0);
    for (int off = 16; off > 0; off >>= 1)
      total += __shfl_xor_sync(SMV_FULL_MASK, total, off);
  }
  return total;
}

/* Sum of sm[0..n) over the block (valid in thread 0). */
template <typename T>
__device__ __forceinline__ T block_sum(const T *sm, unsigned n, T *red) {
  T s = T(0);
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    s += sm[i];
  return block_reduce(s, red);
}

/* Tile list entry: {first row, -1} for a tile of whole rows (rows up to
 * the next entry's row), {row, first entry} for a piece of a long row.
 * The list ends with {rows, -1}. */
template <typename T, int TILE, bool EF>
__global__ void __maxnreg__(32)
    spmv_stream(int64_t ntiles, const int2 *__restrict__ tiles,
                const int32_t *__restrict__ row_ptr,
                const int32_t *__restrict__ col, const T *__restrict__ val,
                const T *__restrict__ x, T alpha, T beta, T *__restrict__ y,
                T *partial, unsigned *count) {
  __shared__ T sm[TILE];
  __shared__ T red[32];
  __shared__ unsigned last_s;
  const unsigned t = threadIdx.x, B = blockDim.x;
  for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
    const int2 d = __ldg(&tiles[b]);
    const int2 dn = __ldg(&tiles[b + 1]);
    const int64_t r0 = d.x;
    if (d.y >= 0) { /* a piece of a long row */
      const unsigned rb = (unsigned)__ldg(&row_ptr[r0]);
      const unsigned re = (unsigned)__ldg(&row_ptr[r0 + 1]);
      const unsigned k0 = (unsigned)d.y;
      const unsigned k1 = re - k0 < (unsigned)TILE ? re : k0 + TILE;
      stage<T, EF>(k0, k1, col, val, x, sm);
      __syncthreads();
      const T s = block_sum(sm, k1 - k0, red);
      const unsigned n = (re - rb + TILE - 1) / TILE;
      const int64_t b0 = b - (int64_t)((k0 - rb) / TILE);
      if (t == 0) {
        partial[b] = s;
        __threadfence(); /* partial visible before we are counted */
        last_s = atomicAdd(&count[b0], 1u) == n - 1;
      }
      __syncthreads();
      if (last_s) { /* block-uniform */
        __threadfence();
        T s2 = T(0);
        for (unsigned i = t; i < n; i += B)
          s2 += __ldcg(&partial[b0 + i]);
        const T tot = block_reduce(s2, red);
        if (t == 0) {
          y[r0] = smv_combine(alpha, tot, beta, &y[r0]);
          count[b0] = 0; /* ready for the next call (stream order) */
        }
      }
      __syncthreads(); /* sm, red and last_s are reused by the next tile */
      continue;
    }
    const int64_t r1 = dn.x;
    const unsigned k0 = (unsigned)__ldg(&row_ptr[r0]);
    const unsigned k1 = (unsigned)__ldg(&row_ptr[r1]);
    stage<T, EF>(k0, k1, col, val, x, sm);
    __syncthreads();
    const unsigned R = (unsigned)(r1 - r0);
    if (R == 1) {
      const T s = block_sum(sm, k1 - k0, red);
      if (t == 0)
        y[r0] = smv_combine(alpha, s, beta, &y[r0]);
    } else {
      /* P threads per row: the largest power of two <= B / R, 1..32. */
      unsigned P = 1;
      while (P < 32 && 2 * P * R <= B)
        P *= 2;
      const unsigned lane = t & (P - 1);
      const unsigned mask =
          P == 32 ? SMV_FULL_MASK : ((1u << P) - 1u) << ((t & 31u) & ~(P - 1));
      for (unsigned i = t / P; i < R; i += B / P) {
        const unsigned b_ = (unsigned)__ldg(&row_ptr[r0 + i]) - k0;
        const unsigned e_ = (unsigned)__ldg(&row_ptr[r0 + i + 1]) - k0;
        T s = T(0);
        for (unsigned k = b_ + lane; k < e_; k += P)
          s += sm[k];
        for (unsigned off = P / 2; off > 0; off >>= 1)
          s += __shfl_xor_sync(mask, s, off);
        if (lane == 0)
          y[r0 + i] = smv_combine(alpha, s, beta, &y[r0 + i]);
      }
    }
    __syncthreads(); /* sm and red are reused by the next tile */
  }
}

#define SMV_STREAM_TILE_MAX 4096

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_stream<double, 2048, false>
                         : (const void *)spmv_stream<float, 4096, false>;
}

static size_t smem(smv_precision, int) { return 0; } /* all static */

template <typename T, int TILE, bool EF>
static cudaError_t run_t(const smv_launch *P) {
  const smv_matrix *m = P->m;
  const int64_t nt = m->stream_ntiles;
  const unsigned grid =
      (unsigned)(nt < (int64_t)INT32_MAX ? nt : (int64_t)INT32_MAX);
  return smv_launch_k(spmv_stream<T, TILE, EF>, grid, P->block, 0, P->stream,
                      nt, (const int2 *)m->stream_tiles, P->row_ptr, P->col_idx,
                      (const T *)P->values, (const T *)P->x, (T)P->alpha,
                      (T)P->beta, (T *)P->y, (T *)m->stream_partials,
                      m->stream_counts);
}

template <typename T, bool EF> static cudaError_t run_ef(const smv_launch *P) {
  switch (P->m->stream_tile) {
  case 256:
    return run_t<T, 256, EF>(P);
  case 512:
    return run_t<T, 512, EF>(P);
  case 1024:
    return run_t<T, 1024, EF>(P);
  case 2048:
    return run_t<T, 2048, EF>(P);
  default:
    return run_t<T, 4096, EF>(P);
  }
}

template <typename T> static cudaError_t run(const smv_launch *P) {
  return P->m->stream_ef ? run_ef<T, true>(P) : run_ef<T, false>(P);
}

static cudaError_t launch(const struct smv_launch *P) {
  return P->prec == SMV_F64 ? run<double>(P) : run<float>(P);
}

const struct smv_rung smv_rung_stream = {kernel, smem, launch, 256};

/* ---- analysis --------------------------------------------------------------
 */

/* Entries per tile.
 *
 * Large matrices: 2048 in f64, 4096 in f32 (16 KiB of products either
 * way: 8 resident blocks of 256 threads on an H100 SM fit its 228 KiB of
 * shared memory; each thread loads 8 or 16 entries per tile).
 * Small ones: the largest tile that still gives every SM four tiles (a
 * matrix of 100k entries on 132 SMs: 256-entry tiles, one entry per
 * thread), since there the time is the longest chain of dependent loads,
 * not bandwidth. */
static int choose_tile(const smv_context *ctx, const smv_matrix *m) {
  const int top = m->prec == SMV_F64 ? 2048 : SMV_STREAM_TILE_MAX;
  const int64_t want = (int64_t)ctx->prop.multiProcessorCount * 4;
  int tile = top;
  while (tile > 256 && m->st.nnz / tile < want)
    tile /= 2;
  return tile;
}

/* Rows per tile are sized for this many threads per block (the default;
 * another block size changes only the speed). */
#define SMV_STREAM_PLAN_BLOCK 256

/* The tile of whole rows starting at row `start` (whose length is <= tile):
 * rows are added while their entries fit in `tile` and the tile holds at
 * most `tile` rows (runs of empty rows). Then the reduction's balance: with
 * R rows, P = the largest power of two <= 256 / R threads sum each row, so
 * a row of len entries costs len / P steps where the loading costs tile /
 * 256 per thread; a row longer than twice that and than tile / 8 entries
 * (power-law rows among short ones: plaw:2000000:16 has rows of thousands
 * in tiles where P = 2) ends the tile before it, or, as the tile's first
 * row, gets a tile of its own (summed by the whole block). Returns the row
 * after the tile's last.
 * Measured (H100, 2026-11-24, plaw:2000000:16, L2-warm): no split 322 /
 * 315 us (f64 / f32); split at twice the load alone (commit d42aa2a: a
 * third of the rows, mostly of 33-200 entries, got tiles of their own, one
 * 256-thread block each) 1705 / 673 us; hence the floor of tile / 8. */
static int64_t tile_end(const smv_csr *A, int64_t start, int64_t tile) {
  const int64_t k0 = A->row_ptr[start];
  int64_t i = start;
  while (i < A->rows && i - start < tile &&
         (int64_t)A->row_ptr[i + 1] - k0 <= tile)
    i++;
  const int64_t R = i - start;
  if (R < 2)
    return i;
  int64_t P = 1;
  while (P < 32 && 2 * P * R <= SMV_STREAM_PLAN_BLOCK)
    P *= 2;
  int64_t lim = 2 * P * tile / SMV_STREAM_PLAN_BLOCK;
  if (lim < tile / 8)
    lim = tile / 8;
  for (int64_t j = start; j < i; j++)
    if ((int64_t)A->row_ptr[j + 1] - A->row_ptr[j] > lim)
      return j == start ? start + 1 : j;
  return i;
}

smv_status smv_stream_setup(smv_context *ctx, smv_matrix *m, const smv_csr *A) {
  const int64_t tile = choose_tile(ctx, m);
  m->stream_tile = (int)tile;
  const double vbytes = m->prec == SMV_F64 ? 8.0 : 4.0;
  m->stream_ef =
      (double)m->st.nnz * (vbytes + 4.0) > (double)ctx->prop.l2CacheSize;
  if (A->rows == 0 || A->nnz == 0)
    return SMV_OK; /* the dispatcher never launches a kernel then */

  /* Count, then fill: a tile of whole rows takes rows while their entries
   * fit in `tile` and at most `tile` rows (runs of empty rows); a longer
   * row is cut into pieces of `tile` entries. */
  int64_t nt = 0, pieces = 0;
  for (int pass = 0; pass < 2; pass++) {
    int2 *h = NULL;
    if (pass == 1) {
      h = (int2 *)malloc((size_t)(nt + 1) * sizeof(int2));
      if (!h)
        return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                           "malloc of %zu bytes (stream tiles): out of memory",
                           (size_t)(nt + 1) * sizeof(int2));
    }
    int64_t n = 0, i = 0;
    while (i < A->rows) {
      const int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
      if (len > tile) {
        for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k += tile) {
          if (h)
            h[n] = make_int2((int)i, (int)k);
          n++;
          if (!h)
            pieces++;
        }
        i++;
        continue;
      }
      const int64_t start = i;
      i = tile_end(A, i, tile);
      if (h)
        h[n] = make_int2((int)start, -1);
      n++;
    }
    if (!h) {
      nt = n;
      continue;
    }
    h[n] = make_int2((int)A->rows, -1);
    /* One allocation: the list (nt + 1 entries), then, only with long
     * rows, nt partials (8 bytes) and nt counters (4 bytes), indexed by
     * tile (only a long row's first piece's counter is used). */
    const size_t list = (size_t)(nt + 1) * sizeof(int2);
    const size_t bytes = list + (pieces ? (size_t)nt * 12 : 0);
    void *d = NULL;
    cudaError_t e = cudaMalloc(&d, bytes);
    if (e != cudaSuccess) {
      free(h);
      return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (stream tiles)",
                         bytes);
    }
    m->stream_tiles = (int2 *)d;
    const char *what = "cudaMemcpy of the stream tile list";
    e = cudaMemcpyAsync(d, h, list, cudaMemcpyHostToDevice, ctx->stream);
    if (pieces) {
      m->stream_partials = (char *)d + list;
      m->stream_counts = (unsigned *)((char *)d + list + (size_t)nt * 8);
      if (e == cudaSuccess) {
        what = "cudaMemset of the stream counters";
        e = cudaMemsetAsync(m->stream_counts, 0, (size_t)nt * 4, ctx->stream);
      }
    }
    if (e == cudaSuccess) {
      what = "cudaStreamSynchronize after the stream set-up";
      e = cudaStreamSynchronize(ctx->stream);
    }
    free(h);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "%s (%zu bytes)", what, bytes);
    m->stream_ntiles = nt;
    m->stream_bytes = bytes;
  }
  return SMV_OK;
}
