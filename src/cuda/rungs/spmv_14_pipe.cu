/*
 * spmv_14_pipe.cu — rung 14, pipe: rung 10's tiles streamed into shared
 * memory by asynchronous copies (cp.async), several tiles ahead of the
 * arithmetic, on a persistent grid.
 *
 * What changed from rung 10 (tiled):
 *   1. The loads. Rung 10's threads load a tile's column indices and
 *      values into registers, gather x, stage the products and wait at the
 *      block's barrier to sum the rows: while a block sums, it has no load
 *      in flight, and the bytes in flight per SM are what its resident
 *      blocks happen to be loading. Here every tile's column indices,
 *      values and row offsets go global -> shared by cp.async (16 bytes a
 *      copy, no register held while the copy is in flight) into a ring of
 *      S stages (S = 3 by default): while the block computes tile j, the
 *      copies of tiles j+1 .. j+S-1 are in flight. The bytes in flight per
 *      SM no longer depend on the arithmetic's phase: S-1 tiles of every
 *      resident block (f64, 2048 entries: 24 KB of indices and values a
 *      tile, 26.1 KiB a stage with its row offsets).
 *   2. A persistent grid (the blocks that fit at once, from the occupancy
 *      of this kernel at its shared memory), block b taking tiles b, b+G,
 *      b+2G...: a fixed order, so that each block knows which tile to copy
 *      next without asking a counter. The tiles are rung 10's (its rule,
 *      smv_tiled_end) at this rung's own size, at most 2048 entries in
 *      both precisions (a stage of f32 tiles of 4096 would leave room for
 *      one block an SM); their first and last entries are listed at
 *      set-up (`kr`: 8 bytes a tile, 0.03% of an f64 matrix at 2048).
 *   3. The products are made in place over the staged values (each thread
 *      its own entries, in entry order across the block), then summed by
 *      rung 10's code (tile_common.h: rows_sum, piece_finish) with the row
 *      offsets from the stage where they fit (TILE/4 + 8 of them), else
 *      from global memory: the same products, in the same order, so the
 *      bits are rung 10's at the same block size and tile size
 *      (test_cuda_pipe).
 *   4. Past the L2 the copies carry an evict-first L2 policy (rung 10's
 *      ld.global.cs: the matrix, read once, does not push x out).
 * Why it should help: on a device whose DRAM delivers more bytes per SM
 * per clock (the H200 against the H100), rung 10 in f64 streams well
 * short of the copy bandwidth (bench/results/h200/suite.md): its bytes in
 * flight follow its phases. Copies that need no registers and run ahead
 * by whole tiles should keep the DRAM busy while the arithmetic waits on
 * x and on the barrier.
 * Measured: a LOSS (bench/results/h200/suite.md, experiments pipe/q1 and
 * q2): slower than rung 10 on every matrix timed on the H200, f64 and
 * f32, at every setting of its knobs. Fewer stages and smaller tiles were
 * faster, but tiles of 512 slower again: neither the bytes in flight (more
 * stages lost) nor the blocks per SM alone limit it; each block's arithmetic on
 * its tile (the gathers of x, the barrier, the row sums), done by 2-6 blocks an
 * SM where rung 10 runs 8, does. It stays in the ladder as the measured answer
 * to "is f64 on the H200 short of bytes in flight?": no. Neither AUTO nor the
 * tuner runs it.
 * Where it loses: the shared memory of S stages (tiles of 2048: 3 x 26.1
 * KiB in f64, 3 x 18.1 KiB in f32) fits fewer blocks per SM than rung 10
 * (2 and 4 of 256 threads against 8), so each SM has fewer warps to hide
 * the gathers of x with:
 * scattered columns and small (launch-bound) matrices should stay on rung
 * 10 or 9. f64-f32v is not in this rung.
 * Knobs for experiments, read at set-up: SMV_PIPE_STAGES (2..4),
 * SMV_PIPE_TILE (256..4096, the largest tile), SMV_PIPE_L2PF (0 or 256:
 * the L2 prefetch size of each copy).
 */
#include "tile_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMV_PIPE_BLOCK 256
#define SMV_PIPE_STAGES 3

/* ---- shared-memory layout of one stage ----------------------------------
 * A tile's entries [k0, k1) are copied from the 4-aligned a0 = k0 & ~3 to
 * (k1 + 3) & ~3: at most TILE + 6 entries. cols: (TILE + 8) int32; vals:
 * (TILE + 8) T; rows: the tile's row offsets row_ptr[r0 .. r1] from the
 * 4-aligned r0 & ~3, at most TILE / 4 + 8 of them (a tile of more rows, a
 * run of short or empty ones, reads its offsets from global memory). */
static constexpr unsigned pipe_al16(unsigned b) { return (b + 15u) & ~15u; }
template <typename T, int TILE> struct pipe_layout {
  static constexpr unsigned cols = 0;
  static constexpr unsigned vals = pipe_al16((TILE + 8) * 4);
  static constexpr unsigned rows_n = TILE / 4 + 8;
  static constexpr unsigned rows = vals + pipe_al16((TILE + 8) * sizeof(T));
  static constexpr unsigned bytes = rows + pipe_al16(rows_n * 4);
};

/* The per-tile entry ranges {k0, k1}: rung 10's tile list made explicit
 * (a piece of a long row: TILE entries from its first, or to the row's
 * end). */
template <int TILE>
__global__ void pipe_ranges(int64_t ntiles, const int2 *__restrict__ tiles,
                            const int32_t *__restrict__ row_ptr, int2 *kr) {
  for (int64_t b = smv_tid(); b < ntiles; b += smv_nthreads()) {
    const int2 d = tiles[b], dn = tiles[b + 1];
    int2 r;
    if (d.y >= 0) {
      const int re = row_ptr[d.x + 1];
      r.x = d.y;
      r.y = re - d.y < TILE ? re : d.y + TILE;
    } else {
      r.x = row_ptr[d.x];
      r.y = row_ptr[dn.x];
    }
    kr[b] = r;
  }
}

/* One 16-byte copy global -> shared, all of it inside the array. PF: the
 * L2 prefetch size hint (0 or 256); EF: with the evict-first policy pol. */
template <bool EF, int PF>
__device__ __forceinline__ void pipe_cp16(unsigned dst, const void *src,
                                          uint64_t pol) {
  if constexpr (EF && PF == 256)
    asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], "
                 "[%1], 16, %2;" ::"r"(dst),
                 "l"(src), "l"(pol)
                 : "memory");
  else if constexpr (EF)
    asm volatile(
        "cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(
            dst),
        "l"(src), "l"(pol)
        : "memory");
  else if constexpr (PF == 256)
    asm volatile(
        "cp.async.cg.shared.global.L2::256B [%0], [%1], 16;" ::"r"(dst),
        "l"(src)
        : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst),
                 "l"(src)
                 : "memory");
}
/* One 4-byte copy global -> shared: the words of a 16-byte piece that
 * runs past an array's end (a 16-byte copy with fewer source bytes still
 * reads all 16, compute-sanitizer's memcheck showed). */
__device__ __forceinline__ void pipe_cp4(unsigned dst, const void *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(src)
               : "memory");
}
__device__ __forceinline__ void pipe_commit() {
  asm volatile("cp.async.commit_group;" ::: "memory");
}
/* Wait until at most n of this thread's groups are pending (n: S - 2). */
__device__ __forceinline__ void pipe_wait(int n) {
  if (n <= 0)
    asm volatile("cp.async.wait_group 0;" ::: "memory");
  else if (n == 1)
    asm volatile("cp.async.wait_group 1;" ::: "memory");
  else
    asm volatile("cp.async.wait_group 2;" ::: "memory");
}

/* Bytes of a 16-byte copy at element e of an array of `end` elements of
 * `size` bytes that lie inside it. */
__device__ __forceinline__ unsigned pipe_inside(unsigned e, unsigned end,
                                                unsigned size) {
  if (e >= end)
    return 0;
  /* Elements left, compared before they are turned into bytes: (end - e)
   * * size overflows 32 bits from 2^29 f64 values on. */
  const unsigned left = end - e;
  return left >= 16u / size ? 16u : left * size;
}

/* What a kernel needs besides tile_args. */
struct pipe_args {
  int64_t ntiles;
  const int2 *__restrict__ tiles;
  const int2 *__restrict__ kr;
  unsigned nnz, rows; /* the CSR's entries and rows (int32 indices) */
  int stages;
};

/* Tile b of the list: its entries {k0, k1} and its descriptor and the
 * next one (rung 10's list); zeros past the last tile. */
struct pipe_desc {
  int2 kr, d, dn;
};
__device__ __forceinline__ pipe_desc pipe_desc_of(const pipe_args &p,
                                                  int64_t b) {
  const int2 z = make_int2(0, 0);
  if (b >= p.ntiles)
    return {z, z, z};
  return {__ldg(&p.kr[b]), __ldg(&p.tiles[b]), __ldg(&p.tiles[b + 1])};
}

/* The row offsets row_ptr[r0 .. r1] of a tile of whole rows, staged from
 * the 4-aligned *ra0 where they fit (ROWS_N of them): how many 16-byte
 * copies they take; 0 for a piece of a long row and for a tile of more
 * rows (a run of short or empty ones), whose offsets are read from
 * global memory. The copies and the sums decide it here alike. */
template <unsigned ROWS_N>
__device__ __forceinline__ unsigned pipe_rows(const pipe_desc &t,
                                              unsigned *ra0) {
  *ra0 = (unsigned)t.d.x & ~3u;
  if (t.d.y >= 0)
    return 0;
  const unsigned ra1 = ((unsigned)t.dn.x + 1u + 3u) & ~3u;
  return ra1 - *ra0 <= ROWS_N ? (ra1 - *ra0) / 4 : 0;
}

/* Issue the copies of tile t into stage st (shared address), every thread
 * its share; then commit (always: an empty group keeps the count of
 * groups the same in every thread). */
template <typename T, int TILE, bool EF, int PF>
__device__ __forceinline__ void pipe_issue(unsigned st, const pipe_desc &t,
                                           bool any, const tile_args<T> &a,
                                           const pipe_args &p, uint64_t pol) {
  using L = pipe_layout<T, TILE>;
  if (any) {
    const unsigned B = blockDim.x;
    const unsigned a0 = (unsigned)t.kr.x & ~3u;
    const unsigned a1 = ((unsigned)t.kr.y + 3u) & ~3u;
    constexpr unsigned per = 16 / sizeof(T); /* values per copy */
    const unsigned nc = (a1 - a0) / 4, nv = (a1 - a0) / per;
    unsigned ra0;
    const unsigned nr = pipe_rows<L::rows_n>(t, &ra0);
    for (unsigned i = threadIdx.x; i < nc + nv + nr; i += B) {
      /* A piece that runs past an array's end is copied word by word,
       * only its words inside the array (what lies past it in the stage
       * is never read). */
      unsigned dst, n;
      const void *src;
      if (i < nc) {
        const unsigned e = a0 + 4 * i;
        n = pipe_inside(e, p.nnz, 4);
        dst = st + L::cols + 16 * i, src = a.col + e;
      } else if (i < nc + nv) {
        const unsigned j = i - nc, e = a0 + per * j;
        n = pipe_inside(e, p.nnz, sizeof(T));
        dst = st + L::vals + 16 * j, src = a.val + e;
      } else {
        const unsigned j = i - nc - nv, e = ra0 + 4 * j;
        n = pipe_inside(e, p.rows + 1, 4);
        dst = st + L::rows + 16 * j, src = a.row_ptr + e;
      }
      if (n == 16)
        pipe_cp16<EF, PF>(dst, src, pol);
      else
        for (unsigned w = 0; w < n / 4; w++)
          pipe_cp4(dst + 4 * w, (const char *)src + 4 * w);
    }
  }
  pipe_commit();
}

/* Tile b (tl), staged at generic pointer sp: products in place over the
 * values, then rung 10's sums (the same order: rung 10's bits). Ends on a
 * barrier only for pieces (piece_finish); the next iteration's barrier
 * frees the stage and red. */
template <typename T, int TILE>
__device__ __forceinline__ void
pipe_tile(int64_t b, const pipe_desc &tl, unsigned char *sp,
          const tile_args<T> &a, T *red, unsigned *last_s) {
  using L = pipe_layout<T, TILE>;
  const int2 d = tl.d;
  const unsigned t = threadIdx.x, B = blockDim.x;
  const unsigned k0 = (unsigned)tl.kr.x, k1 = (unsigned)tl.kr.y, n = k1 - k0;
  const unsigned off = k0 - (k0 & ~3u);
  const int32_t *c = reinterpret_cast<const int32_t *>(sp + L::cols) + off;
  T *v = reinterpret_cast<T *>(sp + L::vals) + off;
  /* Entries i = t + j B, four per round: their columns from shared memory,
   * four gathers of x in flight, then the products in place. */
  for (unsigned i0 = t; i0 < n; i0 += 4 * B) {
    int cc[4];
    T xx[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned i = i0 + j * B;
      cc[j] = i < n ? c[i] : 0;
    }
#pragma unroll
    for (int j = 0; j < 4; j++)
      xx[j] = i0 + j * B < n ? __ldg(&a.x[cc[j]]) : T(0);
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned i = i0 + j * B;
      if (i < n)
        v[i] = v[i] * xx[j];
    }
  }
  __syncthreads(); /* the products are in */
  if (d.y >= 0) {  /* a piece of a row too long for one tile */
    const unsigned rb = (unsigned)__ldg(&a.row_ptr[d.x]);
    const unsigned re = (unsigned)__ldg(&a.row_ptr[d.x + 1]);
    piece_finish<T, TILE>(b, d.x, rb, re, k0, k1, a, v, red, last_s);
    return;
  }
  const int64_t r0 = d.x;
  const unsigned R = (unsigned)(tl.dn.x - d.x);
  unsigned ra0;
  if (pipe_rows<L::rows_n>(tl, &ra0)) {
    const int32_t *rp =
        reinterpret_cast<const int32_t *>(sp + L::rows) + ((unsigned)r0 - ra0);
    rows_sum<T>(
        r0, R, n,
        [&](unsigned i) {
          return make_uint2((unsigned)rp[i] - k0, (unsigned)rp[i + 1] - k0);
        },
        a, v, red);
  } else {
    rows_sum<T>(
        r0, R, n,
        [&](unsigned i) {
          return make_uint2((unsigned)__ldg(&a.row_ptr[r0 + i]) - k0,
                            (unsigned)__ldg(&a.row_ptr[r0 + i + 1]) - k0);
        },
        a, v, red);
  }
}

extern __shared__ __align__(16) unsigned char smv_pipe_raw[];

/* The persistent kernel: block b takes tiles b, b + G, b + 2G, ...; the
 * copies of the next S - 1 of them are in flight while it computes one. */
template <typename T, int TILE, bool EF, int PF>
__global__ void spmv_pipe(const pipe_args p, const tile_args<T> a) {
  using L = pipe_layout<T, TILE>;
  __shared__ T red[32];
  __shared__ unsigned last_s;
  const int S = p.stages;
  const int64_t G = gridDim.x;
  const unsigned base = (unsigned)__cvta_generic_to_shared(smv_pipe_raw);
  uint64_t pol = 0;
  if constexpr (EF)
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;"
                 : "=l"(pol));
  /* The next tile's range and descriptor are read one iteration ahead of
   * its copies; a tile's own are read again when it is computed (L2 hits:
   * read S - 1 iterations before), so no array indexed by stage is kept
   * (it would live in local memory). */
  for (int s = 0; s < S - 1; s++) {
    const int64_t tb = blockIdx.x + s * G;
    pipe_issue<T, TILE, EF, PF>(base + s * L::bytes, pipe_desc_of(p, tb),
                                tb < p.ntiles, a, p, pol);
  }
  int64_t tn = blockIdx.x + (int64_t)(S - 1) * G; /* the next to issue */
  pipe_desc next = pipe_desc_of(p, tn);
  int s = 0;
  for (int64_t b = blockIdx.x; b < p.ntiles; b += G) {
    pipe_wait(S - 2); /* this thread's copies of tile b are in */
    __syncthreads();  /* everyone's; and stage s - 1 is free */
    const int si = s == 0 ? S - 1 : s - 1; /* the stage tile tn goes to */
    pipe_issue<T, TILE, EF, PF>(base + si * L::bytes, next, tn < p.ntiles, a, p,
                                pol);
    tn += G;
    next = pipe_desc_of(p, tn);
    pipe_tile<T, TILE>(b, pipe_desc_of(p, b), smv_pipe_raw + s * L::bytes, a,
                       red, &last_s);
    s = s == S - 1 ? 0 : s + 1;
  }
  pipe_wait(0); /* no copy left in flight at exit */
}

/* ---- host side -------------------------------------------------------------
 */

/* The rung's state on one matrix: its own tile list (rung 10's rule,
 * smv_tiled_end, at this rung's tile size), the tiles' entry ranges
 * (device, 8 bytes a tile), its launch (block, persistent grid at that
 * block), stages and prefetch hint. */
struct smv_pipe {
  struct smv_tiles *tl;
  int2 *kr;
  int block, stages, pf, sms;
  unsigned grid;
};

/* The large-matrix instance's stages (for the occupancy table). */
static size_t smem(smv_precision prec, int) {
  return prec == SMV_F64 ? SMV_PIPE_STAGES * pipe_layout<double, 2048>::bytes
                         : SMV_PIPE_STAGES * pipe_layout<float, 2048>::bytes;
}

/* Let kernel Fn take 4 stages of `stage` bytes of dynamic shared memory
 * (past the 48 KB a launch gets without asking; the most any stage count
 * here needs), at most what the device lets a block opt in to (a stage
 * count that does not fit is then refused at set-up with the occupancy's
 * error), once per device. A device reset forgets the attribute but not
 * this bit: launches past 48 KB then fail with the runtime's error, not
 * silently. */
template <auto Fn> static cudaError_t pipe_allow(unsigned stage) {
  static std::atomic<unsigned long long> done{0}; /* one bit per device */
  int dev = 0;
  cudaError_t e = cudaGetDevice(&dev);
  if (e != cudaSuccess)
    return e;
  if (dev < 0 || dev >= 64)
    return cudaErrorInvalidDevice;
  const unsigned long long bit = 1ull << dev;
  if (done.load(std::memory_order_relaxed) & bit)
    return cudaSuccess;
  int optin = 0;
  e = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                             dev);
  if (e != cudaSuccess)
    return e;
  cudaFuncAttributes fa;
  e = cudaFuncGetAttributes(&fa, Fn);
  if (e != cudaSuccess)
    return e;
  optin -= (int)fa.sharedSizeBytes; /* red and last_s */
  const int want = (int)(4 * stage) < optin ? (int)(4 * stage) : optin;
  e = cudaFuncSetAttribute(Fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           want);
  if (e == cudaSuccess)
    done.fetch_or(bit, std::memory_order_relaxed);
  return e;
}

/* The instance the attribute and occupancy queries see (the large-matrix
 * one), allowed its stages' shared memory first, so that the runtime's
 * occupancy agrees with the model's (smv_blocks_init, the occupancy
 * tests). */
static const void *kernel(smv_precision prec) {
  if (prec == SMV_F64) {
    constexpr auto k = spmv_pipe<double, 2048, true, 0>;
    if (pipe_allow<k>(pipe_layout<double, 2048>::bytes) != cudaSuccess)
      (void)cudaGetLastError(); /* the queries then report it */
    return (const void *)k;
  }
  constexpr auto k = spmv_pipe<float, 2048, true, 0>;
  if (pipe_allow<k>(pipe_layout<float, 2048>::bytes) != cudaSuccess)
    (void)cudaGetLastError();
  return (const void *)k;
}

/* f(kernel, stage bytes) for the list's tile size and load mode and the
 * prefetch hint, the kernel allowed its shared memory first. */
template <typename T, typename F>
static cudaError_t pipe_pick(const struct smv_tiles *tl, int pf, F f) {
  return tile_dispatch(tl, [&](auto tile, auto ld) {
    constexpr int TILE = decltype(tile)::value;
    constexpr bool EF = decltype(ld)::value != SMV_TILE_RO;
    constexpr unsigned stage = pipe_layout<T, TILE>::bytes;
    constexpr auto k0 = spmv_pipe<T, TILE, EF, 0>;
    constexpr auto k2 = spmv_pipe<T, TILE, EF, 256>;
    const cudaError_t e =
        pf == 256 ? pipe_allow<k2>(stage) : pipe_allow<k0>(stage);
    if (e != cudaSuccess)
      return e;
    return pf == 256 ? f(k2, stage) : f(k0, stage);
  });
}

/* The persistent grid: blocks of `block` threads with their stages that
 * fit on the device at once, at most ntiles; 0 with the error in *err. */
template <typename T>
static unsigned pipe_grid(const struct smv_pipe *h, int block,
                          cudaError_t *err) {
  unsigned g = 0;
  *err = pipe_pick<T>(h->tl, h->pf, [&](auto fn, unsigned stage) {
    int per_sm = 0;
    const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, fn, block, (size_t)h->stages * stage);
    if (e != cudaSuccess)
      return e;
    const int64_t want = (int64_t)per_sm * h->sms;
    g = (unsigned)(want < h->tl->ntiles ? want : h->tl->ntiles);
    return g > 0 ? cudaSuccess : cudaErrorInvalidConfiguration;
  });
  return g;
}

template <typename T> static cudaError_t run(const smv_launch *P) {
  const struct smv_pipe *h = (const struct smv_pipe *)P->state;
  if (!h || !h->tl)
    return cudaErrorInvalidValue;
  const struct smv_tiles *tl = h->tl;
  cudaError_t e = cudaSuccess;
  const unsigned grid =
      P->block == h->block && h->grid ? h->grid : pipe_grid<T>(h, P->block, &e);
  if (grid == 0)
    return e != cudaSuccess ? e : cudaErrorInvalidConfiguration;
  /* eo 0: its own staging (plain order) */
  const tile_args<T> a = tile_args_of<T>(P, tl, P->col_idx, 0);
  const pipe_args p = {tl->ntiles,
                       (const int2 *)tl->list,
                       h->kr,
                       (unsigned)P->m->st.nnz,
                       (unsigned)P->m->st.rows,
                       h->stages};
  return pipe_pick<T>(tl, h->pf, [&](auto fn, unsigned stage) {
    return smv_launch_k(fn, grid, P->block, (size_t)h->stages * stage,
                        P->stream, p, a);
  });
}

static cudaError_t launch(const struct smv_launch *P) {
  return P->prec == SMV_F64 ? run<double>(P) : run<float>(P);
}

static void release(void *state) {
  struct smv_pipe *h = (struct smv_pipe *)state;
  if (!h)
    return;
  cudaFree(h->kr); /* cudaFree(NULL) does nothing */
  smv_tiles_release(h->tl);
  free(h);
}

static size_t device_bytes(const smv_matrix *m, const void *state) {
  const struct smv_pipe *h = (const struct smv_pipe *)state;
  if (!h || !h->tl)
    return 0;
  return smv_tiles_device_bytes(m, h->tl) +
         (h->kr ? (size_t)h->tl->ntiles * sizeof(int2) : 0);
}

static int plan_block(const void *state) {
  return ((const struct smv_pipe *)state)->block;
}

/* The tiles' entry ranges on the device (kr, ntiles of them). */
static smv_status pipe_ranges_build(smv_context *ctx, smv_matrix *m,
                                    struct smv_pipe *h) {
  const struct smv_tiles *tl = h->tl;
  cudaError_t e = cudaMalloc((void **)&h->kr, (size_t)tl->ntiles * 8);
  if (e != cudaSuccess) {
    h->kr = NULL;
    return smv_cu_fail(ctx, e, "rung 14: cudaMalloc of %lld tile ranges",
                       (long long)tl->ntiles);
  }
  (void)tile_dispatch(tl, [&](auto tile, auto) {
    pipe_ranges<decltype(tile)::value>
        <<<smv_grid_for(tl->ntiles, 256), 256, 0, ctx->stream>>>(
            tl->ntiles, (const int2 *)tl->list, m->row_ptr, h->kr);
    return cudaSuccess;
  });
  e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  return e == cudaSuccess ? SMV_OK
                          : smv_cu_fail(ctx, e, "rung 14: the tiles' ranges");
}

/* The rung's analysis: its tile list (rung 10's rule; tiles of at most
 * 2048 entries, or SMV_PIPE_TILE, smaller on small matrices: smv_tile_size,
 * where SMV_TILE_TOP overrides both rungs' alike), the tiles' ranges, the
 * block and the persistent grid at it. */
static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  *state = NULL;
  struct smv_pipe *h = (struct smv_pipe *)calloc(1, sizeof *h);
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "rung 14: out of host memory");
  h->sms = ctx->prop.multiProcessorCount;
  /* The rung's own block, not the caller's override in force now: the
   * override is applied at each launch (dispatch.cu's launch_block), which
   * recomputes the grid for it (run above). */
  h->block = SMV_PIPE_BLOCK;
  h->stages = smv_env_int("SMV_PIPE_STAGES", 2, 4, SMV_PIPE_STAGES);
  h->pf = smv_env_int("SMV_PIPE_L2PF", 0, 256, 0) == 256 ? 256 : 0;
  int top = smv_env_int("SMV_PIPE_TILE", 256, 4096, 2048);
  if (top & (top - 1))
    top = 2048;
  void *tl = NULL;
  smv_status st =
      smv_tiles_setup(ctx, A, smv_tile_size(ctx, m->st.nnz, top),
                      smv_tile_load(ctx, m), smv_tiled_end, "pipe", &tl);
  h->tl = (struct smv_tiles *)tl;
  if (st == SMV_OK && h->tl->ntiles > 0)
    st = pipe_ranges_build(ctx, m, h);
  if (st == SMV_OK && h->tl->ntiles > 0) {
    cudaError_t ge = cudaSuccess;
    h->grid = m->prec == SMV_F64 ? pipe_grid<double>(h, h->block, &ge)
                                 : pipe_grid<float>(h, h->block, &ge);
    if (h->grid == 0) {
      (void)cudaGetLastError();
      st = smv_ctx_set(ctx, SMV_ERR_CUDA,
                       "rung 14: no block of %d threads with %d stages of "
                       "shared memory fits on the device (%s)",
                       h->block, h->stages, cudaGetErrorString(ge));
    }
  }
  if (st != SMV_OK) {
    release(h);
    return st;
  }
  *state = h;
  return SMV_OK;
}

static void describe(const smv_matrix *, const void *state, char *buf,
                     size_t n) {
  const struct smv_pipe *h = (const struct smv_pipe *)state;
  snprintf(buf, n,
           "rung 14 plan: %lld tiles of %d entries (rung 10's rule), %d "
           "stages of shared memory, %u blocks of %d%s",
           (long long)h->tl->ntiles, h->tl->tile, h->stages, h->grid, h->block,
           h->pf == 256 ? ", L2 prefetch 256 B" : "");
}

static constexpr struct smv_rung descriptor() {
  struct smv_rung r =
      smv_kernel_rung(SMV_ALG_PIPE, kernel, smem, SMV_PIPE_BLOCK, launch);
  r.host_rows = 1;
  r.setup = setup;
  r.release = release;
  r.device_bytes = device_bytes;
  r.describe = describe;
  r.block = plan_block;
  return r;
}
const struct smv_rung smv_rung_pipe = descriptor();
