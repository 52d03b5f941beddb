/*
 * spmv_12_hot.cu — rung 12: rung 10's tiles with the most used entries of x
 * held in shared memory (power-law columns: graphs).
 *
 * What changed from rung 10 (tile-staged CSR-stream):
 *   1. Hot columns (hot_build below): the columns' entries are counted
 *      on the device; the k most used, each in at least two entries per
 *      block of the grid, become "hot": slots 0..k-1, most used first. A
 *      second column array holds ~slot (negative) for every entry of a hot
 *      column. k is at most 3072 in f32 and 1024 in f64 (hot_bytes). They
 *      are made at analysis where AUTO may run the rung (f32 past the L2
 *      with scattered columns and x in the L2) and kept if it does, with
 *      SMV_MATRIX_HOT, or by the tuner; without them the rung runs on the
 *      matrix's own column array.
 *   2. A persistent grid: as many blocks as fit on the device at once (6 of
 *      256 threads per sm_90 SM at 40 registers). Each block loads x at the
 *      k hot columns into shared memory (k gathers, once per block), then
 *      takes tiles of rung 10's list one at a time from a counter and runs
 *      rung 10's tile code on them (tile_common.h's tiled_tile).
 *   3. A gather is two predicated loads (x_hot): ld.shared from the hot set
 *      when the column array says ~slot, else ld.global.nc from x; no
 *      branch, always in entry order (stage_tg). A branch per gather and
 *      then one generic load were each 0.93-0.96x cuSPARSE on rmat with
 *      perm=rand in f32 and 0.40-0.57x in f64 (raw/hot/explore/run1-3).
 *   4. Tiles from a counter (ctr[0], reset by the last block out), not a
 *      fixed share per block: with a fixed share, rung 12 without hot
 *      columns was 6% (f64) to 12% (f32) slower than rung 10 on rmat:22:16.
 * Why it should help: on power-law graphs a few columns take many entries
 * (rmat:22:16: its 3072 most used columns of 4.2M hold 20% of the 128M
 * entries). ncu showed that the L2's tag lookups limit these matrices, for
 * rung 10 and cuSPARSE alike: one per gather that misses the L1. A gather
 * from shared memory asks the L2 nothing.
 * Measured (ladder.md's rung notes, with the table): ahead of the faster
 * cuSPARSE algorithm in f32 on R-MAT graphs (1.05x, 1.12x with
 * perm=rand), behind it in f64 (0.84-0.97x). AUTO runs it in f32 when the
 * hot columns hold 10% of the entries or more; f64 stays on cuSPARSE:
 * there even small hot sets lose (not understood; ncu showed MIO and
 * LSU-queue throttle stalls doubled and tripled).
 * Where it loses: a second column array (4 bytes per entry) and k gathers
 * per block; f64 (above); at its 40 registers f32 holds one 4-byte spill
 * and f64 8 bytes (the staging slots' index arithmetic, tile_common.h's
 * stage_slots; f64 had none before them).
 * With columns used evenly (rand, plaw) no column qualifies and it is rung
 * 10 on a persistent grid, 0-7% slower (AUTO does not pick it there).
 * The sums are rung 10's, in the same order, at the same block size: the
 * bits are rung 10's (tests/test_cuda_hot.c compares them). Rung 12 writes
 * its tile counters on every call, and shares rung 10's partials: two
 * SpMVs of rungs 10 or 12 on one matrix must not run concurrently (rung
 * 10 alone: only with rows longer than a tile).
 */
#include "tile_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The rung's state on one matrix (setup below; it runs on rung 10's tile
 * list, m->state[SMV_ALG_TILED], which the registry sets up first): the k
 * most used columns (each in `threshold` or more entries), whose x every
 * block keeps in shared memory. `col` (device) is the column array with
 * ~slot in place of a hot column; `list` (same allocation, after it) the k
 * columns by slot: nnz * 4 + k * 4 bytes, only `col` is freed. k = 0: no
 * hot columns, col and list NULL. block and grid: the default launch
 * (persistent: the blocks that fit on the device; 0 without tiles), sms
 * the device's SM count for other block sizes. The rung takes its tiles
 * from the tile list's `next` counters. */
struct smv_hot {
  int k;
  double mass; /* share of the entries in the hot columns */
  int64_t threshold;
  int32_t *col, *list;
  int block, sms;
  unsigned grid;
};

/* Rung 10's tile list, which this rung runs on. */
static const struct smv_tiles *tiles_of(const smv_matrix *m) {
  return (const struct smv_tiles *)m->state[SMV_ALG_TILED];
}

/* Hot columns at most: 12 KB of x in f32 (3072 columns), 8 KB in f64
 * (1024), in blocks of 256 threads: 16 KB of products + the hot set per
 * block, 6 blocks per sm_90 SM (40 registers). The best of a sweep of 4-48
 * KB at 256 and 512 threads on rmat:22:16 (ladder.md's rung notes): more
 * than 12 KB fits fewer blocks and loses; in f64 every size loses. */
static size_t hot_bytes(smv_precision prec) {
  return prec == SMV_F64 ? 8 * 1024 : 12 * 1024;
}
#define SMV_HOT_BLOCK 256
/* Least share of the entries in the hot columns for them to be used. */
#define SMV_HOT_MIN_MASS 0.05

extern __shared__ __align__(16) unsigned char smv_hot_raw[];

template <typename T, int TILE, int LD>
__global__ void __maxnreg__(40)
    spmv_hot(int64_t ntiles, const int2 *__restrict__ tiles,
             const tile_args<T> a, const int32_t *__restrict__ hot, int nhot,
             unsigned *ctr) {
  __shared__ T sm[TILE + 4]; /* + 4: stage_slots */
  __shared__ T red[32];
  __shared__ unsigned last_s, next_s;
  const unsigned t = threadIdx.x;
  T *hx = reinterpret_cast<T *>(smv_hot_raw);
  for (int i = (int)t; i < nhot; i += (int)blockDim.x)
    hx[i] = __ldg(&a.x[__ldg(&hot[i])]);
  const x_hot<T> xs = {a.x, (unsigned)__cvta_generic_to_shared(hx)};
  /* Tiles are taken in turn from ctr[0] (the tile list's `next`; tiles
   * differ in cost: pieces of
   * long rows, rows per tile; a fixed share per block left some blocks
   * working long after the rest). */
  for (;;) {
    if (t == 0)
      next_s = atomicAdd(&ctr[0], 1u);
    __syncthreads(); /* next_s, and the first time hx, are in */
    const int64_t b = next_s;
    if (b >= ntiles)
      break;
    tiled_tile<T, TILE, LD>(b, tiles, a, xs, sm, red, &last_s);
  }
  /* The last block out resets the counters for the next call: every
   * other block has taken its last tile number by then. */
  if (t == 0 && atomicAdd(&ctr[1], 1u) == gridDim.x - 1)
    ctr[0] = 0, ctr[1] = 0;
}

/* For the occupancy model and the default block: the largest hot set. */
static size_t smem(smv_precision prec, int) { return hot_bytes(prec); }

/* The instance attribute and occupancy queries see (the large-matrix
 * one). */
static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_hot<double, 2048, SMV_TILE_EF>
                         : (const void *)spmv_hot<float, 4096, SMV_TILE_EF>;
}

/* Blocks of `block` threads with `dyn` bytes of x that fit on the device
 * at once (the persistent grid), at most ntiles; 0 on error. */
template <auto Fn>
static unsigned hot_grid(int block, size_t dyn, int sms, int64_t ntiles) {
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Fn, block, dyn) !=
      cudaSuccess)
    return 0;
  const int64_t g = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
  return (unsigned)(g < ntiles ? g : ntiles);
}

template <typename T> static cudaError_t run(const smv_launch *P) {
  const struct smv_tiles *tl = tiles_of(P->m);
  const struct smv_hot *h = (const struct smv_hot *)P->state;
  /* eo 0: x_hot stages in entry order already (stage_tg) */
  const tile_args<T> a = tile_args_of<T>(P, tl, h->k ? h->col : P->col_idx, 0);
  const size_t dyn = (size_t)h->k * sizeof(T);
  return tile_dispatch(tl, [&](auto tile, auto ld) {
    constexpr auto fn = spmv_hot<T, decltype(tile)::value, decltype(ld)::value>;
    const unsigned grid = P->block == h->block && h->grid
                              ? h->grid
                              : hot_grid<fn>(P->block, dyn, h->sms, tl->ntiles);
    if (grid == 0) {
      const cudaError_t e = cudaGetLastError();
      return e != cudaSuccess ? e : cudaErrorInvalidConfiguration;
    }
    return smv_launch_k(fn, grid, P->block, dyn, P->stream, tl->ntiles,
                        (const int2 *)tl->list, a, (const int32_t *)h->list,
                        h->k, tl->next);
  });
}

static cudaError_t launch(const struct smv_launch *P) {
  return P->prec == SMV_F64 ? run<double>(P) : run<float>(P);
}

/* ---- analysis --------------------------------------------------------------
 */

/* f[c] += 1 for every entry's column. */
__global__ void hot_count(int64_t nnz, const int32_t *__restrict__ col,
                          int32_t *f) {
  for (int64_t k = smv_tid(); k < nnz; k += smv_nthreads())
    atomicAdd(&f[__ldg(&col[k])], 1);
}

/* out[k] = ~slot[col[k]] for a hot column, col[k] otherwise. */
__global__ void hot_encode(int64_t nnz, const int32_t *__restrict__ col,
                           const int32_t *__restrict__ slot, int32_t *out) {
  for (int64_t k = smv_tid(); k < nnz; k += smv_nthreads()) {
    const int32_t c = __ldg(&col[k]);
    const int32_t s = __ldg(&slot[c]);
    out[k] = s >= 0 ? ~s : c;
  }
}

struct hot_cand {
  int32_t col, n;
};
static int by_use(const void *pa, const void *pb) {
  const struct hot_cand *a = (const struct hot_cand *)pa,
                        *b = (const struct hot_cand *)pb;
  if (a->n != b->n)
    return a->n > b->n ? -1 : 1;
  return a->col < b->col ? -1 : a->col > b->col;
}

/* The default launch (block, grid) for the matrix's tile list, with the
 * largest hot set: what the threshold below is sized for. */
static unsigned default_grid(const smv_context *ctx, const smv_matrix *m,
                             int block) {
  const struct smv_tiles *tl = tiles_of(m);
  unsigned g = 0;
  (void)tile_dispatch(tl, [&](auto tile, auto ld) {
    auto go = [&](auto t) {
      using T = decltype(t);
      constexpr auto fn =
          spmv_hot<T, decltype(tile)::value, decltype(ld)::value>;
      g = hot_grid<fn>(block, hot_bytes(m->prec), ctx->prop.multiProcessorCount,
                       tl->ntiles);
    };
    if (m->prec == SMV_F64)
      go(0.0);
    else
      go(0.0f);
    return cudaSuccess;
  });
  return g;
}

/* Where AUTO's rule considers rung 12 (then with hot columns holding 10%
 * of the entries or more: src/core/auto.def): f32, the matrix past the
 * L2, scattered columns, x inside the L2. The hot columns are built
 * (plan_setup) only there, for the tuner, or with SMV_MATRIX_HOT. */
static int probe(const smv_context *ctx, const smv_matrix *m) {
  return m->prec == SMV_F32 && smv_matrix_past_l2(ctx, m) &&
         smv_matrix_scattered(m) &&
         (double)m->st.cols * 4.0 <= (double)ctx->prop.l2CacheSize;
}

static void facts(const smv_matrix *, const void *state,
                  struct smv_auto_facts *f) {
  const struct smv_hot *h = (const struct smv_hot *)state;
  f->hot_candidate = 1;
  f->hot_mass = h && h->k > 0 ? h->mass : 0.0;
}

/* The hot columns alone (the rest of the state stays). */
static void hot_release(struct smv_hot *h) {
  cudaFree(h->col); /* cudaFree(NULL) does nothing */
  h->col = h->list = NULL;
  h->k = 0;
  h->mass = 0;
}

static void release(void *state) {
  struct smv_hot *h = (struct smv_hot *)state;
  if (!h)
    return;
  hot_release(h);
  free(h);
}

/* After a plan that did not choose this rung: the hot columns go again
 * unless they were asked for (SMV_MATRIX_HOT). */
static void plan_settle(smv_matrix *m, void *state) {
  struct smv_hot *h = (struct smv_hot *)state;
  if (h && m->auto_alg != SMV_ALG_HOT && !(m->opts & SMV_MATRIX_HOT))
    hot_release(h);
}

static size_t device_bytes(const smv_matrix *m, const void *state) {
  const struct smv_hot *h = (const struct smv_hot *)state;
  return h && h->col ? (size_t)m->st.nnz * 4 + (size_t)h->k * 4 : 0;
}

static smv_status hot_build(smv_context *ctx, smv_matrix *m, struct smv_hot *h);

static smv_status plan_setup(smv_context *ctx, smv_matrix *m, void *state) {
  return hot_build(ctx, m, (struct smv_hot *)state);
}

/* The rung's analysis: its launch (block, persistent grid) and, with
 * SMV_MATRIX_HOT, the hot columns (hot_build). */
static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *,
                        void **state) {
  *state = NULL;
  struct smv_hot *h = (struct smv_hot *)calloc(1, sizeof *h);
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "rung 12: out of host memory");
  h->sms = ctx->prop.multiProcessorCount;
  h->block = ctx->block_override ? ctx->block_override
                                 : ctx->default_block[SMV_ALG_HOT][m->prec];
  const struct smv_tiles *tl = tiles_of(m);
  smv_status st = SMV_OK;
  if (m->st.nnz > 0 && tl && tl->ntiles > 0) {
    h->grid = default_grid(ctx, m, h->block);
    if (h->grid == 0) {
      (void)cudaGetLastError();
      st = smv_ctx_set(ctx, SMV_ERR_CUDA,
                       "rung 12: no block of %d threads fits on the device",
                       h->block);
    } else if (m->opts & SMV_MATRIX_HOT) {
      st = hot_build(ctx, m, h);
    }
  }
  if (st != SMV_OK) {
    release(h);
    return st;
  }
  *state = h;
  return SMV_OK;
}

/* The hot columns: count the columns' entries on the device, choose the
 * hot ones and write the column array that names their slots. Nothing to
 * do when built, without tiles or with columns along the diagonal. */
static smv_status hot_build(smv_context *ctx, smv_matrix *m,
                            struct smv_hot *h) {
  /* Only columns scattered over x are worth it (local columns hit the
   * L1 already); nothing to do when built or without tiles. */
  if (h->col || h->grid == 0 || !smv_matrix_scattered(m))
    return SMV_OK;
  const int64_t cols = m->st.cols, nnz = m->st.nnz;
  const int esize = m->prec == SMV_F64 ? 8 : 4;
  int64_t kmax = (int64_t)hot_bytes(m->prec) / esize;
  if (kmax > cols)
    kmax = cols;
  /* A hot column costs one gather per block: it must save more. */
  h->threshold = 2 * (int64_t)h->grid;

  smv_status st = SMV_OK;
  cudaError_t e;
  int32_t *df = NULL, *hf = NULL;
  struct hot_cand *c = NULL;
  int64_t nc = 0, k = 0, used = 0;
  const size_t fbytes = (size_t)cols * 4;
  const unsigned grid = smv_grid_for(nnz, 256);
  if ((e = cudaMalloc(&df, fbytes)) != cudaSuccess) {
    st =
        smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (rung 12 counts)", fbytes);
    goto out;
  }
  hf = (int32_t *)malloc(fbytes);
  if (!hf) {
    st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                     "malloc of %zu bytes (rung 12 counts): out of memory",
                     fbytes);
    goto out;
  }
  e = cudaMemsetAsync(df, 0, fbytes, ctx->stream);
  if (e == cudaSuccess) {
    hot_count<<<grid, 256, 0, ctx->stream>>>(nnz, m->col_idx, df);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(hf, df, fbytes, cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "rung 12: counting the columns' entries");
    goto out;
  }
  for (int64_t j = 0; j < cols; j++)
    nc += hf[j] >= h->threshold;
  if (nc == 0)
    goto out;
  c = (struct hot_cand *)malloc((size_t)nc * sizeof *c);
  if (!c) {
    st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                     "malloc of %zu bytes (rung 12 columns): out of memory",
                     (size_t)nc * sizeof *c);
    goto out;
  }
  nc = 0;
  for (int64_t j = 0; j < cols; j++)
    if (hf[j] >= h->threshold)
      c[nc++] = {(int32_t)j, hf[j]};
  qsort(c, (size_t)nc, sizeof *c, by_use);
  k = nc < kmax ? nc : kmax;
  for (int64_t i = 0; i < k; i++)
    used += c[i].n;
  h->mass = (double)used / (double)nnz;
  /* Too few entries in the hot columns: not worth a second column array
   * (the rung runs without hot columns). */
  if (h->mass < SMV_HOT_MIN_MASS) {
    k = 0;
    goto out;
  }
  /* The slot of every column (-1: not hot), in hf, for the encoding. One
   * allocation: the new column array, then the k hot columns by slot. */
  for (int64_t j = 0; j < cols; j++)
    hf[j] = -1;
  for (int64_t i = 0; i < k; i++)
    hf[c[i].col] = (int32_t)i;
  {
    const size_t bytes = (size_t)nnz * 4 + (size_t)k * 4;
    void *d = NULL;
    if ((e = cudaMalloc(&d, bytes)) != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (rung 12 columns)",
                       bytes);
      goto out;
    }
    h->col = (int32_t *)d;
    h->list = h->col + nnz;
    h->k = (int)k; /* hot_release undoes it on an error below */
    /* The hot columns by slot, packed into c's own memory. */
    int32_t *list = (int32_t *)c;
    for (int64_t i = 0; i < k; i++)
      list[i] = c[i].col;
    e = cudaMemcpyAsync(df, hf, fbytes, cudaMemcpyHostToDevice, ctx->stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(h->list, list, (size_t)k * 4, cudaMemcpyHostToDevice,
                          ctx->stream);
    if (e == cudaSuccess) {
      hot_encode<<<grid, 256, 0, ctx->stream>>>(nnz, m->col_idx, df, h->col);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "rung 12: writing its column array");
      goto out;
    }
  }
out:
  if (st != SMV_OK)
    hot_release(h);
  cudaFree(df);
  free(hf);
  free(c);
  return st;
}

static void describe(const smv_matrix *m, const void *state, char *buf,
                     size_t n) {
  const struct smv_hot *h = (const struct smv_hot *)state;
  const struct smv_tiles *tl = tiles_of(m);
  snprintf(buf, n,
           "rung 12 plan: %d hot columns (%.1f%% of the entries, each in %lld "
           "or more) in shared memory, %u blocks of %d; rung 10's %lld tiles",
           h->k, 100.0 * h->mass, (long long)h->threshold, h->grid, h->block,
           (long long)(tl ? tl->ntiles : 0));
}

static constexpr struct smv_rung descriptor() {
  struct smv_rung r =
      smv_kernel_rung(SMV_ALG_HOT, kernel, smem, SMV_HOT_BLOCK, launch);
  r.needs = SMV_ALG_TILED;
  r.setup = setup;
  r.release = release;
  r.device_bytes = device_bytes;
  r.describe = describe;
  r.probe = probe;
  r.facts = facts;
  r.plan_setup = plan_setup;
  r.plan_settle = plan_settle;
  return r;
}
const struct smv_rung smv_rung_hot = descriptor();
