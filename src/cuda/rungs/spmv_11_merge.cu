/*
 * spmv_11_merge.cu — rung 11: rung 10's tiles, each summed along its merge
 * path (after Merrill and Garland's merge-based SpMV, SC'16: the rows'
 * ends and the entries are one sequence of work items, cut evenly).
 *
 * What changed from rung 10 (tiles of whole rows, P threads per row):
 *   1. The reduction. Rung 10 gives each of a tile's R rows P threads
 *      (the largest power of two <= blockDim / R), so a tile whose rows
 *      differ in length waits on its longest row: a power-law tile of 60
 *      rows, one of them 1500 entries long, has 4 threads on that row,
 *      375 additions in a row, where loading the tile took 16. Here the
 *      tile's R row ends and n entries are R + n work items, and thread t
 *      takes items [t*E, (t+1)*E), E = ceil((R + n) / blockDim): it finds
 *      where its share starts by a binary search over the rows' ends in
 *      shared memory (the merge path's diagonal), adds the entries of its
 *      share, and at each row end writes the row (or, for its first row,
 *      keeps the sum to add what the threads before it carried). What a
 *      share leaves unfinished (its last row's partial) is passed on by a
 *      segmented scan over the block (warp shuffles, then one value per
 *      warp in shared memory), and the thread that ends that row adds it.
 *      Every thread does the same work whatever the row lengths.
 *   2. The tiles. Since any mix of rows sums evenly, rung 10's rule that
 *      ends a tile before a long row (so that P threads can keep up) is
 *      gone: a tile takes whole rows while rows + entries fit in TILE work
 *      items (and at most TILE / 2 rows, the size of the row-end array).
 *      A row of TILE entries or more is cut into pieces of TILE entries,
 *      as in rung 10 (partials added by the block that finishes last).
 *   3. The loads are rung 10's (tile_common.h): the tile's entries as
 *      16-byte vectors, fully coalesced, up to 8 gathers of x in flight
 *      per thread, evict-first past the L2.
 * Why it should help: power-law rows (plaw, R-MAT graphs), where rung 10
 * ran 2-17% behind cuSPARSE ALG1 because of the tiles it ended early and
 * the long rows inside tiles.
 * Where it loses: the merge-path search and the scan cost a few hundred
 * cycles per tile that rung 10's fixed row groups do not pay, so on
 * even rows it should be no faster than rung 10; the row-end array takes
 * shared memory (TILE / 2 ints).
 * Order of the sums: fixed by the tile list and blockDim, so results are
 * bit-reproducible run to run (not equal to rung 10's).
 *
 * Shapes: TILE = 2048 work items (rows + entries) in both precisions:
 * products 16 KiB (f64) or 8 KiB (f32) + row ends 4 KiB of shared memory;
 * 8 blocks of 256 threads per sm_90 SM, 8 items per thread. At 4096 in f32
 * (16 + 8 KiB) it ran slower: the shared memory that 8 such blocks take
 * leaves the L1 too little room for x.
 *
 * Measured a LOSS against rung 10 (ladder.md's rung notes, with the
 * figures): level with it in f32 on scattered columns, behind it in f64
 * and on local columns. Balancing the reduction bought nothing because the
 * reduction was not what limited rung 10 on power-law rows: ncu showed
 * both kernels moving the same L2 sectors at the same rate; the limit is
 * the L2's tag lookups for the gathers of x, which rung 10's change 7 then
 * cut. The search, the scan and the extra barrier cost the rest. AUTO
 * never picks it; the tuner times it.
 */
#include "tile_common.h"

/* Segmented scan over the block of (key, v), keys nondecreasing in thread
 * order (a run of equal keys is contiguous): returns, for the previous
 * thread, the sum of v over the threads up to it whose key equals its key
 * (0 for thread 0). wkey/wfirst/wval: 32 slots each of shared memory, free
 * on entry. Ends with every lane having read the warp slots (the caller's
 * next barrier frees them). */
template <typename T>
__device__ __forceinline__ T seg_scan_prev(unsigned key, T v, unsigned *wkey,
                                           unsigned *wfirst, T *wval) {
  const unsigned t = threadIdx.x, lane = t & 31u, w = t >> 5;
  for (unsigned off = 1; off < 32; off <<= 1) {
    const T pv = __shfl_up_sync(SMV_FULL_MASK, v, off);
    const unsigned pk = __shfl_up_sync(SMV_FULL_MASK, key, off);
    if (lane >= off && pk == key)
      v += pv;
  }
  if (lane == 31) {
    wkey[w] = key;
    wval[w] = v;
  }
  if (lane == 0)
    wfirst[w] = key;
  __syncthreads();
  /* What earlier warps carry into key k: their last values, back while
   * each warp ended on k, stopping at the first warp that began before
   * it. */
  auto carried = [&](unsigned k) {
    T c = T(0);
    for (int u = (int)w - 1; u >= 0; u--) {
      if (wkey[u] != k)
        break;
      c += wval[u];
      if (wfirst[u] != k)
        break;
    }
    return c;
  };
  v += carried(key); /* this thread's inclusive sum */
  const T up = __shfl_up_sync(SMV_FULL_MASK, v, 1);
  return lane > 0 ? up : (w > 0 ? carried(wkey[w - 1]) : T(0));
}

template <typename T, int TILE, int LD>
__global__ void __maxnreg__(32)
    spmv_merge(int64_t ntiles, const int2 *__restrict__ tiles,
               const tile_args<T> a) {
  __shared__ T sm[TILE + 4]; /* + 4: stage_slots */
  __shared__ int32_t ends[TILE / 2];
  __shared__ T red[32];
  __shared__ unsigned wkey[32], wfirst[32];
  __shared__ unsigned last_s;
  const unsigned t = threadIdx.x, B = blockDim.x;
  const x_plain<T> xs = {a.x};
  for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x) {
    const int2 d = __ldg(&tiles[b]);
    const int64_t r0 = d.x;
    if (d.y >= 0) { /* a piece of a long row */
      tile_piece<T, TILE, LD>(b, r0, (unsigned)d.y, a, xs, sm, red, &last_s);
      continue;
    }
    const unsigned R = (unsigned)(__ldg(&tiles[b + 1]).x - r0);
    const unsigned k0 = (unsigned)__ldg(&a.row_ptr[r0]);
    const unsigned k1 = (unsigned)__ldg(&a.row_ptr[r0 + R]);
    const unsigned n = k1 - k0;
    stage<T, LD>(k0, k1, a.col, a.val, xs, &sm[0]); /* plain order */
    for (unsigned i = t; i < R; i += B) /* row i ends before entry ends[i] */
      ends[i] = __ldg(&a.row_ptr[r0 + i + 1]) - (int32_t)k0;
    __syncthreads();

    /* This thread's share of the R + n items: [d0, d1). Its start on the
     * merge path: i0 row ends and d0 - i0 entries precede item d0, i0 the
     * least i with ends[i] + i >= d0 (row end i is item ends[i] + i). */
    const unsigned items = R + n, per = (items + B - 1) / B;
    const unsigned d0 = min(t * per, items), d1 = min(d0 + per, items);
    unsigned lo = d0 > n ? d0 - n : 0, hi = min(d0, R);
    while (lo < hi) {
      const unsigned mid = (lo + hi) >> 1;
      if ((unsigned)ends[mid] + mid >= d0)
        hi = mid;
      else
        lo = mid + 1;
    }
    const unsigned i0 = lo;
    unsigned i = i0, j = d0 - i0;
    T s = T(0), first = T(0);
    bool closed = false; /* ended a row yet (the first is row i0) */
    for (unsigned k = d0; k < d1; k++) {
      if (i < R && (unsigned)ends[i] <= j) { /* row i ends here */
        if (closed) {
          const int64_t r = r0 + i;
          a.y[r] = smv_combine(a.alpha, s, a.beta, &a.y[r]);
        } else {
          first = s;
          closed = true;
        }
        s = T(0);
        i++;
      } else {
        s += sm[j++];
      }
    }
    /* Row i is open at the end of the share with partial s; row i0 was
     * open at its start with what the shares before carried. */
    const T before = seg_scan_prev(i, s, wkey, wfirst, red);
    if (closed) {
      const int64_t r = r0 + i0;
      a.y[r] = smv_combine(a.alpha, before + first, a.beta, &a.y[r]);
    }
    __syncthreads(); /* sm, ends and the scan's slots are reused */
  }
}

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_merge<double, 2048, SMV_TILE_EF>
                         : (const void *)spmv_merge<float, 2048, SMV_TILE_EF>;
}

static size_t smem(smv_precision, int) { return 0; } /* all static */

/* The kernel for a tile size and load mode (tile_run's K). */
template <typename T, int TILE, int LD> struct merge_kernel {
  static constexpr auto fn = spmv_merge<T, TILE, LD>;
  static constexpr int smem_pct = 0; /* the driver's choice */
};

static cudaError_t launch(const struct smv_launch *P) {
  return tile_run<merge_kernel>(P, (const struct smv_tiles *)P->state);
}

/* ---- analysis --------------------------------------------------------------
 */

/* The tile of whole rows starting at `start`: rows are added while rows +
 * entries fit in `tile` items and there are at most tile / 2 rows. A
 * first row of tile entries or more does not fit (returns start: pieces). */
static int64_t tile_end(const smv_csr *A, int64_t start, int64_t tile) {
  const int64_t k0 = A->row_ptr[start];
  int64_t i = start;
  while (i < A->rows && i - start < tile / 2 &&
         (i + 1 - start) + ((int64_t)A->row_ptr[i + 1] - k0) <= tile)
    i++;
  return i;
}

/* The rung's state: its own tile list (tiles.h). */
static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  const int tile = smv_tile_size(ctx, m->st.rows + m->st.nnz, 2048);
  return smv_tiles_setup(ctx, A, tile, smv_tile_load(ctx, m), tile_end, "merge",
                         state);
}

const struct smv_rung smv_rung_merge =
    smv_tile_rung<SMV_ALG_MERGE>(kernel, smem, 256, launch, setup);
