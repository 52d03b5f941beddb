/*
 * tile_common.h — the tile machinery rungs 10 (tiled), 11 (merge) and 12
 * (hot) share (C++ templates, src/cuda only): 16-byte loads of a tile's
 * entries, where x comes from (x_plain, x_hot), the staging of its
 * products in shared memory, block sums, the pieces of a row longer than a
 * tile (partials added by the last block to finish), and rung 10's work on
 * one tile (tiled_tile, which rung 12 runs too).
 *
 * A tile list (struct smv_tiles, built by smv_tiles_build in tiles.cu) has
 * ntiles + 1 entries of int2: {first row, -1} for a tile of whole rows (its
 * rows run up to the next entry's row), {row, first entry} for a piece of
 * a row too long for one tile; it ends with {rows, -1}.
 */
#ifndef SMV_CUDA_TILE_COMMON_H
#define SMV_CUDA_TILE_COMMON_H

#include "kernel_common.h"
#include "tiles.h"

#include <atomic>
#include <type_traits>

/* ---- loads ------------------------------------------------------------------
 * How a tile's entries are loaded: enum smv_tile_load (engine.h). */
/* Four consecutive entries k = 4q .. 4q+3 (16-byte aligned: the arrays come
 * from cudaMalloc). */
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

/* Where a tile rung reads x[c] for a column index c from its column array.
 * x_plain: x itself, through the read-only path (rungs 10 and 11).
 * x_hot (rung 12): the column array holds ~slot for the columns whose x
 * the block keeps in shared memory (hx[slot], loaded at its start), the
 * column itself for the others. Both give the same value, so the sums,
 * and their bits, are rung 10's. */
template <typename T> struct x_plain {
  static constexpr bool entry_order = false; /* as the load mode says */
  const T *__restrict__ x;
  __device__ __forceinline__ T operator()(int c) const { return __ldg(&x[c]); }
};
template <typename T> struct x_hot {
  /* Always stage_tg (one quad per thread per round). */
  static constexpr bool entry_order = true;
  const T *x;
  unsigned hs; /* hx's shared-memory address (__cvta_generic_to_shared) */
  /* Two predicated loads, no branch and no generic load: ld.shared from
   * hx[~c] when c < 0, else ld.global.nc from x[c]. */
  __device__ __forceinline__ T operator()(int c) const {
    const T *g = x + (c < 0 ? 0 : c);
    const unsigned s = hs + (unsigned)(~c) * (unsigned)sizeof(T);
    T v;
    if constexpr (sizeof(T) == 8)
      asm volatile("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, 0;\n\t"
                   "@p ld.shared.f64 %0, [%2];\n\t"
                   "@!p ld.global.nc.f64 %0, [%3];\n\t}"
                   : "=d"(v)
                   : "r"(c), "r"(s), "l"(g)
                   : "memory");
    else
      asm volatile("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, 0;\n\t"
                   "@p ld.shared.f32 %0, [%2];\n\t"
                   "@!p ld.global.nc.f32 %0, [%3];\n\t}"
                   : "=f"(v)
                   : "r"(c), "r"(s), "l"(g)
                   : "memory");
    return v;
  }
};

/* Where a tile's product i (its entry k0 + i) is staged in sm (rungs 10 and
 * 12, and rung 11's pieces, in f64: quad_slots below; rung 13's octets with
 * W = 8 in both precisions; rung 11's whole-row tiles, rung 14, f32 quads and
 * entry-order staging into plain slots use slot i). A thread stages its quad (4
 * consecutive entries) with four scalar stores, lane l at quad l: in plain
 * order the lanes of one store are 32 bytes apart in f64 (16 in f32), so 32
 * lanes hit 4 (8) of the 16 (32) bank groups: 8 (4) wavefronts where 2 (1)
 * would do. Swizzled, entry e = i + (k0 & 3) (quads counted
 * from the aligned entry below k0) lives at slot e ^ ((e >> G) & 3),
 * G = log2(128 / sizeof(T)): each quad's four entries are permuted among
 * themselves by its quad number, so one store of 32 lanes covers every
 * bank group equally. Accesses to consecutive entries (stage_tg's and
 * stage_eo's stores, rows_sum, block_sum) are permuted within 4-aligned
 * groups; where such a run starts off a group boundary its two end groups
 * have different keys and can share banks, and rows_sum's one-thread-a-row
 * reads are more conflicted than in plain order (Nsight Compute in
 * bench/results/h200/suite.md, e6): the stores' gain is the larger. The
 * same products, sums and bits as plain order. Slots run up to TILE + 3: sm has
 * TILE + 4. W = 8 (rung 13's octets, a thread's 8 consecutive entries,
 * 64 bytes apart across lanes in f64: 16-way conflicts in plain order)
 * permutes each 8-aligned group the same way; slots up to TILE + 7, sm
 * TILE + 8. Why it matters: in f64 on the H200 the L1's wavefronts, not
 * the DRAM, bound rung 10 (Nsight Compute, bench/results/h200/suite.md,
 * experiment h200f64/e6). */
template <typename T, unsigned W = 4> struct stage_slots {
  T *sm;
  unsigned off; /* k0 & (W - 1) */
  __device__ __forceinline__ T &operator[](unsigned i) const {
    constexpr unsigned G = sizeof(T) == 8 ? 4u : 5u;
    const unsigned e = i + off;
    return sm[e ^ ((e >> G) & (W - 1))];
  }
};

/* The slots of a tile's quad-order staging (rung 10's tiled_tile and
 * tile_piece, so rungs 10-12): swizzled (stage_slots) for 8-byte products,
 * plain (slot i) for floats. In f32 plain order costs 4 wavefronts a
 * quad-order store where the swizzle takes 1, but the one-thread-a-row
 * sums read rows of odd length conflict-free in plain order and conflicted
 * when swizzled, and the swizzle adds three integer operations to every
 * staged and summed entry: f32 rung 10 ran 5-9% slower swizzled on the
 * H200 (bench/results/h200/suite.md, e9 and e12), f64 faster (e6). */
template <typename T> struct quad_slots {
  using type = stage_slots<T>;
  static __device__ __forceinline__ type of(T *sm, unsigned k0) {
    return {sm, k0 & 3u};
  }
};
template <> struct quad_slots<float> {
  using type = float *;
  static __device__ __forceinline__ type of(float *sm, unsigned) { return sm; }
};

/* Quad q of the tile (entries 4q..4q+3, all inside it) -> its columns and
 * values, when p. */
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

/* Columns of entries 4 w0 + 32 j + lane, j = 0..3, from the quads the
 * warp's lanes hold (lane l holds quad w0 + l, entries 4 w0 + 4 l ..
 * 4 w0 + 4 l + 3, in c[0..3]): lane l takes element l % 4 of lane
 * 8 j + l / 4 (16 shuffles). */
__device__ __forceinline__ void transpose_cols(const int c[4], int out[4]) {
  const unsigned lane = threadIdx.x & 31u, e = lane & 3u;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const int src = 8 * j + (int)(lane >> 2);
    const int a0 = __shfl_sync(SMV_FULL_MASK, c[0], src);
    const int a1 = __shfl_sync(SMV_FULL_MASK, c[1], src);
    const int a2 = __shfl_sync(SMV_FULL_MASK, c[2], src);
    const int a3 = __shfl_sync(SMV_FULL_MASK, c[3], src);
    out[j] = e == 0 ? a0 : e == 1 ? a1 : e == 2 ? a2 : a3;
  }
}

/* Full quads [qa, qb) with the gathers in entry order: after the 16-byte
 * loads, lane l gathers x for entries 4 w0 + 32 j + l (j = 0..3), so one
 * gather instruction reads 32 consecutive entries' columns. Where a row's
 * columns lie close together (the sorted columns of a power-law graph's
 * hot vertices) several lanes fall in one 128-byte line and share one L2
 * request; the L2's tag lookups are what limits these matrices (ncu on
 * rmat:22:16 f32: lts__t_tag_requests near their peak, cuSPARSE ALG1
 * fewer requests than rung 10's quad-order gathers). The values go to
 * sm at their entries' places; the products are made there once the
 * gathers are in (one quad per thread per round: 32 registers). Whole
 * warps iterate (blockDim is a multiple of 32). V: the stored values'
 * type (float in f64-f32v, widened to T when staged), else T. */
template <typename T, bool EF, typename XS, typename V, typename SM>
__device__ __forceinline__ void
stage_tg(unsigned qa, unsigned qb, unsigned k0, const int32_t *__restrict__ col,
         const V *__restrict__ val, const XS &x, const SM &sm) {
  const unsigned t = threadIdx.x, B = blockDim.x, lane = t & 31u;
  for (unsigned w0 = qa + (t & ~31u); w0 < qb; w0 += B) {
    const unsigned q = w0 + lane;
    const bool p = q < qb;
    int c[4] = {0, 0, 0, 0};
    V v[4];
    quad_load<V, EF>(q, p, col, val, c, v);
    int g[4];
    transpose_cols(c, g);
    T xg[4];
#pragma unroll
    for (int j = 0; j < 4;
         j++) /* entry 4 w0 + 32 j + lane: quad w0 + 8 j + lane / 4 */
      xg[j] = w0 + 8 * j + (lane >> 2) < qb ? x(g[j]) : T(0);
    if (p) {
      const unsigned s = 4 * q - k0;
#pragma unroll
      for (int j = 0; j < 4; j++)
        sm[s + j] = T(v[j]);
    }
    __syncwarp(); /* the warp's values are in sm */
    const unsigned b = 4 * w0 - k0;
#pragma unroll
    for (int j = 0; j < 4; j++)
      if (w0 + 8 * j + (lane >> 2) < qb)
        sm[b + 32 * j + lane] *= xg[j];
    __syncwarp(); /* before the next round's stores */
  }
}

/* The entries of [k0, k1) outside the whole groups [ga, gb) of W entries
 * the block staged (W = 4 for rungs 10-12's quads, 8 for rung 13's
 * octets): the head [k0, min(W ga, k1)) and the tail [W max(ga, gb), k1),
 * fewer than W entries each, one per thread of threads 0..2W-1
 * (blockDim >= 32 >= 2W); sm[k - k0] = product(k) (sm maps the index to
 * its slot: stage_slots). */
template <unsigned W, typename SM, typename F>
__device__ __forceinline__ void stage_ends(unsigned k0, unsigned k1,
                                           unsigned ga, unsigned gb,
                                           const SM &sm, const F &product) {
  const unsigned t = threadIdx.x;
  if (t < 2 * W) {
    const unsigned head_end = W * ga < k1 ? W * ga : k1;
    const unsigned tail = W * (ga > gb ? ga : gb);
    const unsigned k = t < W ? k0 + t : tail + (t - W);
    const bool ok = t < W ? k < head_end : k < k1;
    if (ok)
      sm[k - k0] = product(k);
  }
}

/* One entry's column or value (a scalar load, evict-first when EF). */
template <bool EF, typename V> __device__ __forceinline__ V ld1(const V *p) {
  if constexpr (EF)
    return __ldcs(p);
  else
    return __ldg(p);
}

/* Entries [k0, k1) in entry order with scalar loads (tile_args' eo: f64
 * past the L2 on local columns where the DRAM outruns the L1, spmv_10's
 * tiled_eo): thread t takes entries k0 + t + B j, j = 0..3 a round, all
 * loaded before their gathers. A warp's load covers 32 consecutive
 * entries (128 bytes of columns, 256 of f64 values: as many L1 wavefronts
 * as the 16-byte quads where it starts on a line, one more each where it
 * does not: k0 + t is not aligned), its gathers read 32 consecutive
 * entries' columns (local columns: 2 lines of f64 x where a quad-order
 * gather reads 8) and its stores 32 consecutive entries' slots; no head
 * or tail pass. Four times the load instructions of the quads and fewer bytes
 * in flight a thread: in f32 (and f64 on the H100 class, where the quads stream
 * near copy) the quads are faster. Four entries a round: eight spilled under
 * rung 10's 32 registers. */
template <typename T, bool EF, typename CF, typename XS, typename V,
          typename SM>
__device__ __forceinline__ void
stage_eo_by(unsigned k0, unsigned k1, const CF &col_of,
            const V *__restrict__ val, const XS &x, const SM &sm) {
  const unsigned t = threadIdx.x, B = blockDim.x;
  for (unsigned k = k0 + t; k < k1; k += 4 * B) {
    int c[4];
    V v[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const bool p = k + j * B < k1;
      c[j] = p ? col_of(k + j * B) : 0;
      v[j] = p ? ld1<EF>(&val[k + j * B]) : V(0);
    }
    T xx[4];
#pragma unroll
    for (int j = 0; j < 4; j++)
      xx[j] = k + j * B < k1 ? x(c[j]) : T(0);
#pragma unroll
    for (int j = 0; j < 4; j++)
      if (k + j * B < k1)
        sm[k + j * B - k0] = T(v[j]) * xx[j];
  }
}
/* stage_eo_by with the CSR's columns (col_of(k): entry k's column; rung 13
 * gives its packed offsets). */
template <typename T, bool EF, typename XS, typename V, typename SM>
__device__ __forceinline__ void
stage_eo(unsigned k0, unsigned k1, const int32_t *__restrict__ col,
         const V *__restrict__ val, const XS &x, const SM &sm) {
  stage_eo_by<T, EF>(
      k0, k1, [&](unsigned k) { return ld1<EF>(&col[k]); }, val, x, sm);
}

/* Stage the products of entries [k0, k1) (k1 - k0 <= the tile) into sm
 * (SM: a T * in plain order, or stage_slots; sm[i] is entry k0 + i's);
 * x: where x[c] comes from (x_plain, x_hot); V: the stored values' type
 * (float in f64-f32v: 16-byte loads of four values, each widened to T
 * before its product), else T; eo: stage_eo instead of the quads (block-
 * uniform; honoured only for evict-first f64 loads with x_plain). */
template <typename T, int LD, typename XS, typename V, typename SM>
__device__ __forceinline__ void
stage(unsigned k0, unsigned k1, const int32_t *__restrict__ col,
      const V *__restrict__ val, const XS &x, const SM &sm, bool eo = false) {
  constexpr bool EF = LD != SMV_TILE_RO;
  const unsigned qa = (k0 + 3) >> 2, qb = k1 >> 2; /* full quads [qa, qb) */
  /* Compiled only where tiled_eo can set it: evict-first loads of f64
   * (and f64-f32v's) values, x read plainly. */
  if constexpr (LD == SMV_TILE_EF && sizeof(T) == 8 && !XS::entry_order) {
    if (eo) { /* block-uniform */
      stage_eo<T, EF>(k0, k1, col, val, x, sm);
      return;
    }
  }
  if constexpr (LD == SMV_TILE_EF_TG || XS::entry_order) {
    stage_tg<T, EF>(qa, qb, k0, col, val, x, sm);
  } else {
    const unsigned t = threadIdx.x, B = blockDim.x;
    /* Rounds of two quads per thread, both loaded before either's
     * gathers (up to 8 gathers in flight per thread). */
    for (unsigned q = qa + t; q < qb; q += 2 * B) {
      const bool p1 = q + B < qb;
      int c0[4] = {0, 0, 0, 0}, c1[4] = {0, 0, 0, 0};
      V v0[4], v1[4] = {V(0), V(0), V(0), V(0)};
      quad_load<V, EF>(q, true, col, val, c0, v0);
      quad_load<V, EF>(q + B, p1, col, val, c1, v1);
      T x0[4], x1[4];
#pragma unroll
      for (int j = 0; j < 4; j++)
        x0[j] = x(c0[j]);
#pragma unroll
      for (int j = 0; j < 4; j++)
        x1[j] = p1 ? x(c1[j]) : T(0);
      const unsigned s0 = 4 * q - k0, s1 = 4 * (q + B) - k0;
#pragma unroll
      for (int j = 0; j < 4; j++)
        sm[s0 + j] = T(v0[j]) * x0[j];
      if (p1) {
#pragma unroll
        for (int j = 0; j < 4; j++)
          sm[s1 + j] = T(v1[j]) * x1[j];
      }
    }
  }
  stage_ends<4>(k0, k1, qa, qb, sm, [&](unsigned k) {
    return T(__ldg(&val[k])) * x(__ldg(&col[k]));
  });
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
template <typename T, typename SM>
__device__ __forceinline__ T block_sum(const SM &sm, unsigned n, T *red) {
  T s = T(0);
  for (unsigned i = threadIdx.x; i < n; i += blockDim.x)
    s += sm[i];
  return block_reduce(s, red);
}

/* Everything a tile kernel reads and writes besides its own list. T: the
 * vectors' and sums' type; V: the stored values' (float in f64-f32v, run
 * by rung 10 only; else T). */
template <typename T, typename V = T> struct tile_args {
  const int32_t *__restrict__ row_ptr;
  const int32_t *__restrict__ col;
  const V *__restrict__ val;
  const T *__restrict__ x;
  T alpha, beta;
  T *__restrict__ y;
  T *partial;      /* one per tile, only with pieces */
  unsigned *count; /* one per tile, 0 between calls, only with pieces */
  unsigned eo;     /* stage_eo for the quads in tiled_tile and tile_piece */
};

/* A piece of a row too long for one tile (tile b: entries [k0, k1) of
 * row r0, whose entries are [rb, re), pieces of TILE entries), its
 * products already staged in sm: the block sums them and stores the sum
 * in partial[b]; the row's pieces count themselves in on the counter of
 * its first piece b0, and the block that arrives last adds the partials
 * in piece order and writes y. Ends on a barrier (shared memory is
 * free). Rung 13 runs it on its own staging. */
template <typename T, int TILE, typename V, typename SM>
__device__ __forceinline__ void
piece_finish(int64_t b, int64_t r0, unsigned rb, unsigned re, unsigned k0,
             unsigned k1, const tile_args<T, V> &a, const SM &sm, T *red,
             unsigned *last_s) {
  const unsigned t = threadIdx.x, B = blockDim.x;
  const T s = block_sum<T>(sm, k1 - k0, red);
  const unsigned n = (re - rb + TILE - 1) / TILE;
  const int64_t b0 = b - (int64_t)((k0 - rb) / TILE);
  if (t == 0) {
    a.partial[b] = s;
    __threadfence(); /* partial visible before we are counted */
    *last_s = atomicAdd(&a.count[b0], 1u) == n - 1;
  }
  __syncthreads();
  if (*last_s) { /* block-uniform */
    __threadfence();
    T s2 = T(0);
    for (unsigned i = t; i < n; i += B)
      s2 += __ldcg(&a.partial[b0 + i]);
    const T tot = block_reduce(s2, red);
    if (t == 0) {
      a.y[r0] = smv_combine(a.alpha, tot, a.beta, &a.y[r0]);
      a.count[b0] = 0; /* ready for the next call (stream order) */
    }
  }
  __syncthreads(); /* sm, red and last_s are reused by the next tile */
}

/* Tile b = {row r0, first entry k0}: a piece of TILE entries of a row too
 * long for one tile: staged here, then piece_finish. */
template <typename T, int TILE, int LD, typename XS, typename V>
__device__ __forceinline__ void
tile_piece(int64_t b, int64_t r0, unsigned k0, const tile_args<T, V> &a,
           const XS &x, T *sm, T *red, unsigned *last_s) {
  const unsigned rb = (unsigned)__ldg(&a.row_ptr[r0]);
  const unsigned re = (unsigned)__ldg(&a.row_ptr[r0 + 1]);
  const unsigned k1 = re - k0 < (unsigned)TILE ? re : k0 + TILE;
  const auto v = quad_slots<T>::of(sm, k0);
  stage<T, LD>(k0, k1, a.col, a.val, x, v, a.eo != 0);
  __syncthreads();
  piece_finish<T, TILE>(b, r0, rb, re, k0, k1, a, v, red, last_s);
}

/* The rows [r0, r0 + R) of a tile of whole rows, their products staged in
 * sm (n of them): row r0 + i's are sm[bounds(i).x .. bounds(i).y). A tile
 * of one row is summed by the whole block; with R rows, P threads per row
 * (the largest power of two <= blockDim / R, 1..32) sum it strided by P,
 * then log2 P shuffles: a fixed order, so the bits depend only on
 * blockDim. Rung 10 gives the bounds from the CSR offsets, rung 13 from
 * its 16-bit row ends. */
template <typename T, typename BOUNDS, typename V, typename SM>
__device__ __forceinline__ void
rows_sum(int64_t r0, unsigned R, unsigned n, const BOUNDS &bounds,
         const tile_args<T, V> &a, const SM &sm, T *red) {
  const unsigned t = threadIdx.x, B = blockDim.x;
  T *__restrict__ y = a.y;
  const T alpha = a.alpha, beta = a.beta;
  if (R == 1) {
    const T s = block_sum<T>(sm, n, red);
    if (t == 0)
      y[r0] = smv_combine(alpha, s, beta, &y[r0]);
    return;
  }
  unsigned P = 1;
  while (P < 32 && 2 * P * R <= B)
    P *= 2;
  const unsigned lane = t & (P - 1);
  const unsigned mask =
      P == 32 ? SMV_FULL_MASK : ((1u << P) - 1u) << ((t & 31u) & ~(P - 1));
  for (unsigned i = t / P; i < R; i += B / P) {
    const uint2 be = bounds(i);
    T s = T(0);
    for (unsigned k = be.x + lane; k < be.y; k += P)
      s += sm[k];
    for (unsigned off = P / 2; off > 0; off >>= 1)
      s += __shfl_xor_sync(mask, s, off);
    if (lane == 0)
      y[r0 + i] = smv_combine(alpha, s, beta, &y[r0 + i]);
  }
}

/* Rung 10's work on tile b of a tile list (rung 12 does the same with
 * some of x in shared memory; x says where x[c] comes from): stage the
 * tile's products in sm, then sum each row (rows_sum). A piece of a long
 * row goes to tile_piece. Ends on a barrier (sm, red and last_s are free
 * for the next tile). */
template <typename T, int TILE, int LD, typename XS, typename V>
__device__ __forceinline__ void
tiled_tile(int64_t b, const int2 *__restrict__ tiles, const tile_args<T, V> &a,
           const XS &x, T *sm, T *red, unsigned *last_s) {
  const int32_t *__restrict__ row_ptr = a.row_ptr;
  const int2 d = __ldg(&tiles[b]);
  const int2 dn = __ldg(&tiles[b + 1]);
  const int64_t r0 = d.x;
  if (d.y >= 0) { /* a piece of a long row */
    tile_piece<T, TILE, LD>(b, r0, (unsigned)d.y, a, x, sm, red, last_s);
    return;
  }
  const int64_t r1 = dn.x;
  const unsigned k0 = (unsigned)__ldg(&row_ptr[r0]);
  const unsigned k1 = (unsigned)__ldg(&row_ptr[r1]);
  const auto bounds = [&](unsigned i) {
    return make_uint2((unsigned)__ldg(&row_ptr[r0 + i]) - k0,
                      (unsigned)__ldg(&row_ptr[r0 + i + 1]) - k0);
  };
  /* Stage into slots v, sum the rows from them. */
  const auto run = [&](const auto &v) {
    stage<T, LD>(k0, k1, a.col, a.val, x, v, a.eo != 0);
    __syncthreads();
    rows_sum<T>(r0, (unsigned)(r1 - r0), k1 - k0, bounds, a, v, red);
    __syncthreads(); /* sm and red are reused by the next tile */
  };
  if constexpr (LD == SMV_TILE_EF && sizeof(T) == 8 && !XS::entry_order) {
    /* eo 2: entry-order staging into plain slots. Its stores are 32
     * consecutive slots either way; the row sums' reads (one thread a row
     * at row starts L entries apart) spread over the banks in plain order
     * for odd L, where the swizzle scatters them (e6: 3.8- against 5.1-way
     * conflicts on stencil27:100). */
    if (a.eo == 2u) { /* grid-uniform */
      run(sm);
      return;
    }
  }
  run(quad_slots<T>::of(sm, k0));
}

/* Grid for a tile list: one block per tile, capped at gridDim.x's limit
 * (the kernels loop over tiles). */
static inline unsigned tile_grid(int64_t ntiles) {
  return (unsigned)(ntiles < (int64_t)INT32_MAX ? ntiles : (int64_t)INT32_MAX);
}

/* f(tile, ld) with the list's tile size and load mode as
 * std::integral_constant values, so that a rung's launch instantiates its
 * kernel for the sizes smv_tile_size gives (256..4096) and the three load
 * modes, and picks one at run time. */
template <int LD, typename F> static cudaError_t tile_sizes(int tile, F f) {
  using std::integral_constant;
  switch (tile) {
  case 256:
    return f(integral_constant<int, 256>{}, integral_constant<int, LD>{});
  case 512:
    return f(integral_constant<int, 512>{}, integral_constant<int, LD>{});
  case 1024:
    return f(integral_constant<int, 1024>{}, integral_constant<int, LD>{});
  case 2048:
    return f(integral_constant<int, 2048>{}, integral_constant<int, LD>{});
  default:
    return f(integral_constant<int, 4096>{}, integral_constant<int, LD>{});
  }
}
template <typename F>
static cudaError_t tile_dispatch(const struct smv_tiles *tl, F f) {
  switch (tl->load) {
  case SMV_TILE_EF:
    return tile_sizes<SMV_TILE_EF>(tl->tile, f);
  case SMV_TILE_EF_TG:
    return tile_sizes<SMV_TILE_EF_TG>(tl->tile, f);
  default:
    return tile_sizes<SMV_TILE_RO>(tl->tile, f);
  }
}

/* Set kernel Fn's preferred shared-memory carveout to pct percent of the
 * SM's largest shared-memory configuration, so the rest of the SM's 256 KB
 * unified L1/shared memory stays L1 (once per device; a hint the driver
 * rounds to one of its configurations). Without it the driver takes the
 * configuration that fits the most blocks. Why and where: K::smem_pct. */
template <auto Fn> static void smv_carveout(int pct) {
  static std::atomic<unsigned long long> done{0}; /* one bit per device */
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64)
    return;
  const unsigned long long bit = 1ull << dev;
  if (done.load(std::memory_order_relaxed) & bit)
    return;
  if (cudaFuncSetAttribute(Fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                           pct) != cudaSuccess)
    (void)cudaGetLastError(); /* only a hint: leave no error behind */
  done.fetch_or(bit, std::memory_order_relaxed);
}

/* The arguments of a launch P on tile list tl, its columns at col (rung
 * 12's hot-coded array, or P's) and stage_eo's switch eo. */
template <typename T, typename V = T>
static tile_args<T, V> tile_args_of(const smv_launch *P,
                                    const struct smv_tiles *tl,
                                    const int32_t *col, int eo) {
  return tile_args<T, V>{P->row_ptr,
                         col,
                         (const V *)P->values,
                         (const T *)P->x,
                         (T)P->alpha,
                         (T)P->beta,
                         (T *)P->y,
                         (T *)tl->partials,
                         tl->counts,
                         (unsigned)eo};
}

/* A tile rung's launch: K<T, TILE, LD>::fn is its kernel for a tile size
 * and load mode, launched one block per tile on the list tl;
 * K<...>::smem_pct > 0 sets its carveout (smv_carveout). V: the stored
 * values' type (rung 10's f64-f32v kernels take tile_args<double, float>). */
template <template <typename, int, int> class K, typename T, typename V = T>
static cudaError_t tile_run_t(const smv_launch *P, const struct smv_tiles *tl) {
  const tile_args<T, V> a = tile_args_of<T, V>(P, tl, P->col_idx, tl->eo);
  return tile_dispatch(tl, [&](auto tile, auto ld) {
    using Kern = K<T, decltype(tile)::value, decltype(ld)::value>;
    if constexpr (Kern::smem_pct > 0)
      smv_carveout<Kern::fn>(Kern::smem_pct);
    return smv_launch_k(Kern::fn, tile_grid(tl->ntiles), P->block, 0, P->stream,
                        tl->ntiles, (const int2 *)tl->list, a);
  });
}
template <template <typename, int, int> class K>
static cudaError_t tile_run(const smv_launch *P, const struct smv_tiles *tl) {
  return P->prec == SMV_F64 ? tile_run_t<K, double>(P, tl)
                            : tile_run_t<K, float>(P, tl);
}

/* The descriptor of a rung whose state is its own tile list (rungs 10
 * and 11): `setup` makes the list (smv_tiles_setup), the rest is common;
 * RUNG numbers its plan line. */
template <int RUNG>
static void smv_tiles_describe_state(const smv_matrix *, const void *state,
                                     char *buf, size_t n) {
  smv_tiles_describe((const struct smv_tiles *)state, RUNG, buf, n);
}
template <int RUNG>
static constexpr struct smv_rung
smv_tile_rung(const void *(*kernel)(smv_precision prec),
              size_t (*smem)(smv_precision prec, int block), int preferred,
              cudaError_t (*launch)(const struct smv_launch *L),
              smv_status (*setup)(smv_context *ctx, smv_matrix *m,
                                  const smv_csr *A, void **state)) {
  struct smv_rung r =
      smv_kernel_rung((smv_alg)RUNG, kernel, smem, preferred, launch);
  r.host_rows = 1;
  r.setup = setup;
  r.release = smv_tiles_release;
  r.device_bytes = smv_tiles_device_bytes;
  r.describe = smv_tiles_describe_state<RUNG>;
  return r;
}

#endif
