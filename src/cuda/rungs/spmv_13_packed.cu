/*
 * spmv_13_packed.cu — rung 13, packed: rung 10 reading fewer bytes. Rungs
 * 9 and 10 stream local-column matrices near the copy bandwidth by the
 * minimal-bytes model of CSR (12 bytes per entry in f64, 8 in f32); what
 * is left is to read fewer bytes. At set-up the CSR's column indices are
 * packed per tile (src/pack/pack.h, format and byte counts there):
 *   1. The tiles are rung 10's (smv_tiled_end: whole rows of at most TILE
 *      entries, a row longer than a tile cut into pieces of TILE), one
 *      block per tile, the same tile size (smv_tile_size) and load mode
 *      (evict-first past the L2).
 *   2. A tile whose columns span at most 65535 ("narrow": every tile of a
 *      band, stencil or elastic3d matrix whose rows are not wider than
 *      that, whatever the number of columns) keeps each column as a
 *      16-bit offset from its smallest column: 8 indices per 16-byte load
 *      (uint4) instead of 4. Other tiles ("wide") keep 32-bit columns in a
 *      second array, two int4 loads per 8 entries. The branch is per tile,
 *      so block-uniform.
 *   3. The row bounds of a tile of whole rows come from 16-bit row ends
 *      relative to the tile's first entry (2 bytes per row, not the 4 of
 *      CSR's offsets); its first entry from the tile's 16-byte descriptor.
 *      A piece of a long row reads its row's bounds from the CSR offsets,
 *      as rung 10 does.
 *   4. The values are the CSR's own array, in CSR order: nothing is copied.
 *      Each thread loads 8 entries per round (rung 10: two quads), values
 *      as 16-byte vectors, then gathers x; products go to shared memory at
 *      their place in the tile and are summed per row by rung 10's code
 *      (tile_common.h's rows_sum, piece_finish), in the same order: at the
 *      same block size the sums, and their bits, are rung 10's.
 * Bytes per entry read (narrow tiles): value + 2, plus 2 per row and 16
 * per tile: 10 in f64 (CSR 12, -17%) and 6 in f32 (CSR 8, -25%), so a
 * copy-bound kernel can reach about 1.2x / 1.33x CSR's limit.
 * Why it should help: local-column matrices past the L2 are copy-bound in
 * rungs 9 and 10; fewer bytes is the only way past that limit.
 * Later changes (experiments packed/p2, h200f64/e12-e13):
 *   - The octets are staged into swizzled slots (stage_slots<T, 8>): a
 *     thread's 8 consecutive entries are 32 (f32) or 64 (f64) bytes apart
 *     across lanes, so in plain order one warp store hit 8- or 16-way bank
 *     conflicts. This made rung 13 in f32 faster than rung 10 on the H200.
 *   - Entry-order staging of the offsets (SMV_PACK_EO=1, rung 10's
 *     stage_eo with 2-byte columns): a loss in f64, off by default.
 * Where it wins and loses (H200: bench/results/h200/suite.md): in f32 it
 * is at least as fast as rung 10 on the local-column matrices past the L2
 * that were timed. In f64 it loses to rung 10, tying on rows of 33: its
 * reads wait (Nsight Compute: long-scoreboard stalls, half the DRAM's
 * throughput at full occupancy), so 10 bytes an entry staged 8 a thread
 * in rung 10's tile (load, barrier, reduce) keep too few bytes in flight.
 * AUTO's rule never runs it (its set-up packs on the host, far more than
 * an SpMV); the tuner times it, and so does the reuse plan
 * (SMV_MATRIX_REUSE: many calls repay the set-up) where reuse_ok below
 * accepts the matrix, so a device or a matrix where it wins gets it by
 * measurement. Scattered columns lose too (every tile wide: the
 * same bytes as CSR plus the set-up); gathers of x, not the stream, limit
 * those anyway.
 * The set-up packs the columns on the host (the engine copies them back
 * from the device when the host CSR is gone: 4 bytes per entry, host_cols)
 * and holds on the device
 * 2 bytes per entry (c16) plus 4 per entry of a wide tile, 2 per row, 16
 * per tile (+ 12 per tile with pieces). The gathers are in quad order
 * only (no entry-order mode, which rung 10 uses for scattered columns).
 * Like rung 10, two SpMVs of this rung on the SAME matrix must not run
 * concurrently when it has rows longer than a tile (shared partials).
 *
 * Attributes and default block: the rung reports its large-matrix instance
 * (TILE = 2048 in f64, 4096 in f32, evict-first).
 */
#include "pack.h"
#include "tile_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Everything the kernel reads: the common tile arguments (row_ptr for the
 * pieces' rows, values, x, y, partials, counters; col is unused) and the
 * packed arrays. */
template <typename T> struct packed_args {
  tile_args<T> a;
  const int4 *__restrict__ tiles;    /* smv_pack_tile: {row, entry, base,
                                        flags}, ntiles + 1 */
  const uint16_t *__restrict__ roff; /* rows */
  const uint16_t *__restrict__ c16;  /* nnz (or none: every tile wide) */
  const int32_t *__restrict__ c32;   /* the wide tiles' columns */
};

/* The columns of entries 8 o .. 8 o + 7 (all in the tile). Narrow: one
 * uint4 of 8 offsets at c16 + 8 o (byte 16 o: aligned); wide: two int4 at
 * c32 + 8 o + base (the encoder puts a wide tile's run at a position
 * equal to its first entry mod 4, so 8 o + base is a multiple of 4:
 * aligned). */
template <bool EF>
__device__ __forceinline__ void
cols8(unsigned o, bool wide, int base, const uint16_t *__restrict__ c16,
      const int32_t *__restrict__ c32, int c[8]) {
  if (wide) {
    const int32_t *p = c32 + ((int64_t)8 * o + base);
    const int4 u = ld_col4<EF>(p), v = ld_col4<EF>(p + 4);
    c[0] = u.x, c[1] = u.y, c[2] = u.z, c[3] = u.w;
    c[4] = v.x, c[5] = v.y, c[6] = v.z, c[7] = v.w;
  } else {
    uint4 u;
    if constexpr (EF)
      u = __ldcs((const uint4 *)(c16 + 8 * (size_t)o));
    else
      u = __ldg((const uint4 *)(c16 + 8 * (size_t)o));
    const unsigned w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int j = 0; j < 4; j++) { /* little-endian: entry 2j low */
      c[2 * j] = base + (int)(w[j] & 0xffffu);
      c[2 * j + 1] = base + (int)(w[j] >> 16);
    }
  }
}

/* The column of one entry k of the tile (the head and tail; every entry
 * in the entry-order staging): a 2-byte offset (narrow) or the 4-byte
 * column (wide), evict-first when EF. */
template <bool EF = false>
__device__ __forceinline__ int col1(unsigned k, bool wide, int base,
                                    const uint16_t *__restrict__ c16,
                                    const int32_t *__restrict__ c32) {
  return wide ? ld1<EF>(&c32[(int64_t)k + base]) : base + (int)ld1<EF>(&c16[k]);
}

/* Stage the products of entries [k0, k1) (k1 - k0 <= TILE) into sm:
 * whole octets [oa, ob) one per thread per round, then the head and tail
 * (< 8 entries each: stage_ends). */
template <typename T, bool EF, typename SM>
__device__ __forceinline__ void
stage_packed(unsigned k0, unsigned k1, bool wide, int base,
             const packed_args<T> &p, const SM &sm) {
  const unsigned t = threadIdx.x, B = blockDim.x;
  const T *__restrict__ val = p.a.val;
  const T *__restrict__ x = p.a.x;
  const unsigned oa = (k0 + 7) >> 3, ob = k1 >> 3;
  for (unsigned o = oa + t; o < ob; o += B) {
    int c[8];
    T v[8];
    cols8<EF>(o, wide, base, p.c16, p.c32, c);
    ld_val4<EF>(&val[8 * o], v);
    ld_val4<EF>(&val[8 * o + 4], v + 4);
    const unsigned s = 8 * o - k0;
#pragma unroll
    for (int j = 0; j < 8; j++)
      sm[s + j] = v[j] * __ldg(&x[c[j]]);
  }
  stage_ends<8>(k0, k1, oa, ob, sm, [&](unsigned k) {
    return __ldg(&val[k]) * __ldg(&x[col1(k, wide, base, p.c16, p.c32)]);
  });
}

/* The tile in entry order with scalar loads (tile_common.h's stage_eo_by
 * with the packed columns): a warp's column load is 64 bytes of offsets
 * (narrow), its gather 32 consecutive entries' columns, its stores 32
 * consecutive slots. */
template <typename T, bool EF, typename SM>
__device__ __forceinline__ void
stage_packed_eo(unsigned k0, unsigned k1, bool wide, int base,
                const packed_args<T> &p, const SM &sm) {
  stage_eo_by<T, EF>(
      k0, k1, [&](unsigned k) { return col1<EF>(k, wide, base, p.c16, p.c32); },
      p.a.val, x_plain<T>{p.a.x}, sm);
}

/* Tile b: stage its products, then rung 10's sums (a piece: its row's
 * partials; whole rows: rows_sum with the 16-bit row ends). Ends on a
 * barrier. */
template <typename T, int TILE, int LD>
__device__ __forceinline__ void packed_tile(int64_t b, const packed_args<T> &p,
                                            T *sm, T *red, unsigned *last_s) {
  const int4 d = __ldg(&p.tiles[b]);
  const int4 dn = __ldg(&p.tiles[b + 1]);
  const int64_t r0 = d.x;
  const unsigned k0 = (unsigned)d.y, k1 = (unsigned)dn.y;
  const unsigned flags = (unsigned)d.w;
  const stage_slots<T, 8> v = {sm, k0 & 7u};
  if (p.a.eo) /* grid-uniform */
    stage_packed_eo<T, LD != SMV_TILE_RO>(k0, k1, (flags & SMV_PACK_WIDE) != 0,
                                          d.z, p, v);
  else
    stage_packed<T, LD != SMV_TILE_RO>(k0, k1, (flags & SMV_PACK_WIDE) != 0,
                                       d.z, p, v);
  __syncthreads();
  if (flags & SMV_PACK_PIECE) {
    const unsigned rb = (unsigned)__ldg(&p.a.row_ptr[r0]);
    const unsigned re = (unsigned)__ldg(&p.a.row_ptr[r0 + 1]);
    piece_finish<T, TILE>(b, r0, rb, re, k0, k1, p.a, v, red, last_s);
    return;
  }
  const uint16_t *__restrict__ roff = p.roff;
  rows_sum<T>(
      r0, (unsigned)(dn.x - d.x), k1 - k0,
      [&](unsigned i) {
        return make_uint2(i ? (unsigned)__ldg(&roff[r0 + i - 1]) : 0u,
                          (unsigned)__ldg(&roff[r0 + i]));
      },
      p.a, v, red);
  __syncthreads(); /* sm and red are reused by the next tile */
}

/* At most 32 registers, as rung 10 (change 6 there): 64 warps per SM. */
template <typename T, int TILE, int LD>
__global__ void __maxnreg__(32)
    spmv_packed(int64_t ntiles, const packed_args<T> p) {
  __shared__ T sm[TILE + 8]; /* + 8: stage_slots<T, 8> */
  __shared__ T red[32];
  __shared__ unsigned last_s;
  for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x)
    packed_tile<T, TILE, LD>(b, p, sm, red, &last_s);
}

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_packed<double, 2048, SMV_TILE_EF>
                         : (const void *)spmv_packed<float, 4096, SMV_TILE_EF>;
}

static size_t smem(smv_precision, int) { return 0; } /* all static */

/* ---- state -----------------------------------------------------------------
 * One device allocation: the descriptors, roff, c16, c32 and, with pieces,
 * partials (8 bytes per tile) and counters (4 per tile, 0 between calls),
 * each section starting 16-byte aligned. */
struct packed_state {
  int tile, load; /* load: SMV_TILE_RO or SMV_TILE_EF */
  int eo;         /* entry-order staging (stage_packed_eo) */
  int64_t ntiles, nwide, npieces;
  size_t bytes;      /* the allocation */
  double read_bytes; /* index bytes one SpMV reads (smv_pack_read_bytes) */
  int64_t nnz;
  void *d;
  const int4 *tiles;
  const uint16_t *roff, *c16;
  const int32_t *c32;
  void *partials;
  unsigned *counts;
};

static void release(void *state) {
  struct packed_state *s = (struct packed_state *)state;
  if (!s)
    return;
  cudaFree(s->d); /* cudaFree(NULL) does nothing */
  free(s);
}

static size_t device_bytes(const smv_matrix *, const void *state) {
  const struct packed_state *s = (const struct packed_state *)state;
  return s ? s->bytes : 0;
}

static void describe(const smv_matrix *, const void *state, char *buf,
                     size_t n) {
  const struct packed_state *s = (const struct packed_state *)state;
  snprintf(buf, n,
           "rung 13 plan: %lld tiles of %d entries, %lld wide (32-bit "
           "indices), %lld pieces of long rows, %.2f index bytes per entry, "
           "%s",
           (long long)s->ntiles, s->tile, (long long)s->nwide,
           (long long)s->npieces,
           s->nnz > 0 ? s->read_bytes / (double)s->nnz : 0.0,
           s->load == SMV_TILE_RO ? "read-only path" : "evict-first");
}

static size_t up16(size_t b) { return (b + 15) & ~(size_t)15; }

/* Upload pk into one allocation (s->d and the section pointers). */
static smv_status upload(smv_context *ctx, const smv_packed *pk,
                         struct packed_state *s) {
  const size_t nt = (size_t)pk->ntiles;
  const size_t b_tiles = up16((nt + 1) * sizeof(smv_pack_tile));
  const size_t b_roff = up16((size_t)pk->rows * 2);
  const size_t b_c16 = up16((size_t)pk->n16 * 2);
  const size_t b_c32 = up16((size_t)pk->n32 * 4);
  const size_t b_part = pk->npieces ? up16(nt * 8) : 0;
  const size_t b_cnt = pk->npieces ? up16(nt * 4) : 0;
  const size_t bytes = b_tiles + b_roff + b_c16 + b_c32 + b_part + b_cnt;
  char *d = NULL;
  cudaError_t e = cudaMalloc((void **)&d, bytes);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (packed CSR)", bytes);
  s->d = d;
  s->bytes = bytes;
  char *at = d;
  const struct {
    const void *src;
    size_t n, room;
  } parts[] = {{pk->tiles, (nt + 1) * sizeof(smv_pack_tile), b_tiles},
               {pk->roff, (size_t)pk->rows * 2, b_roff},
               {pk->c16, (size_t)pk->n16 * 2, b_c16},
               {pk->c32, (size_t)pk->n32 * 4, b_c32}};
  for (int i = 0; i < 4 && e == cudaSuccess; i++) {
    if (parts[i].n)
      e = cudaMemcpyAsync(at, parts[i].src, parts[i].n, cudaMemcpyHostToDevice,
                          ctx->stream);
    at += parts[i].room;
  }
  s->tiles = (const int4 *)d;
  s->roff = (const uint16_t *)(d + b_tiles);
  s->c16 = (const uint16_t *)(d + b_tiles + b_roff);
  s->c32 = (const int32_t *)(d + b_tiles + b_roff + b_c16);
  s->partials = pk->npieces ? at : NULL;
  s->counts = pk->npieces ? (unsigned *)(at + b_part) : NULL;
  if (e == cudaSuccess && s->counts) /* every counter starts at 0 */
    e = cudaMemsetAsync(s->counts, 0, b_cnt, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "uploading the packed CSR (%zu bytes)", bytes);
  return SMV_OK;
}

static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  *state = NULL;
  struct packed_state *s = (struct packed_state *)calloc(1, sizeof *s);
  if (!s)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "packed: out of host memory");
  s->tile = smv_tile_size(ctx, m->st.nnz,
                          m->prec == SMV_F64 ? 2048 : 4096); /* rung 10's */
  s->load = smv_matrix_past_l2(ctx, m) ? SMV_TILE_EF : SMV_TILE_RO;
  /* SMV_PACK_EO=1 (experiments packed/p2, h200f64/e13): entry-order
   * staging of the 2-byte offsets, a loss: in f64 on the H200 octets ran
   * 1.04-1.14x faster on every matrix timed (it is kept for experiments;
   * f32 was not timed with it). Off by default. */
  s->eo = smv_env_int("SMV_PACK_EO", 0, 1, 0);
  s->nnz = m->st.nnz;
  if (A->rows == 0 || A->nnz == 0) { /* never launched */
    *state = s;
    return SMV_OK;
  }
  smv_packed pk;
  smv_status st = smv_pack_build(A, s->tile, smv_tiled_end, &pk);
  if (st != SMV_OK)
    smv_ctx_set(ctx, st, "packed: packing %lld entries in tiles of %d: %s",
                (long long)A->nnz, s->tile, smv_status_string(st));
  if (st == SMV_OK) {
    s->ntiles = pk.ntiles;
    s->nwide = pk.nwide;
    s->npieces = pk.npieces;
    s->read_bytes = (double)smv_pack_read_bytes(&pk);
    st = upload(ctx, &pk, s);
  }
  smv_pack_free(&pk);
  if (st != SMV_OK) {
    release(s);
    return st;
  }
  *state = s;
  return SMV_OK;
}

/* ---- launch ---------------------------------------------------------------
 */

template <typename T>
static cudaError_t run_t(const smv_launch *P, const struct packed_state *s) {
  const packed_args<T> p = {{P->row_ptr, P->col_idx, (const T *)P->values,
                             (const T *)P->x, (T)P->alpha, (T)P->beta,
                             (T *)P->y, (T *)s->partials, s->counts,
                             (unsigned)s->eo},
                            s->tiles,
                            s->roff,
                            s->c16,
                            s->c32};
  auto f = [&](auto tile, auto ld) {
    return smv_launch_k(
        spmv_packed<T, decltype(tile)::value, decltype(ld)::value>,
        tile_grid(s->ntiles), P->block, 0, P->stream, s->ntiles, p);
  };
  return s->load == SMV_TILE_RO ? tile_sizes<SMV_TILE_RO>(s->tile, f)
                                : tile_sizes<SMV_TILE_EF>(s->tile, f);
}

static cudaError_t launch(const struct smv_launch *P) {
  const struct packed_state *s = (const struct packed_state *)P->state;
  return P->prec == SMV_F64 ? run_t<double>(P, s) : run_t<float>(P, s);
}

/* A candidate of the reuse plan (engine.h, `reuse`), from the statistics
 * alone: entries, past the L2 (the bytes packing saves are DRAM bytes;
 * inside the L2 an SpMV is launch-bound), and at most 1% of the entries
 * farther than SMV_NEAR_COLS from the diagonal, so nearly every tile packs
 * its indices in 16 bits. 3-D stencils of side s reach s^2 + s + 1
 * (lap3d and stencil27 up to s = 172 accepted; lap3d:200 refused: 2 of
 * its 7 entries a row lie 40000 away); elastic3d, 3 unknowns a node,
 * 3 (s^2 + s + 1) + 2. A mean distance (col_spread) cannot tell: lap3d
 * reaches 3.5 times its mean, stencil27 1.5 times. */
static int reuse_ok(const smv_context *ctx, const smv_matrix *m) {
  return m->st.nnz > 0 && smv_matrix_past_l2(ctx, m) &&
         m->st.far_entries * 100 <= m->st.nnz;
}

static constexpr struct smv_rung packed_rung() {
  struct smv_rung r =
      smv_kernel_rung(SMV_ALG_PACKED, kernel, smem, 256, launch);
  r.host_rows = 1;
  r.host_cols = 1; /* the engine copies them back when the host CSR is gone */
  r.setup = setup;
  r.release = release;
  r.device_bytes = device_bytes;
  r.describe = describe;
  r.reuse = reuse_ok;
  return r;
}

const struct smv_rung smv_rung_packed = packed_rung();
