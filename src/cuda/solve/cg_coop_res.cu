/*
 * cg_coop_res.cu — the resident persistent CG (cg_res_kernel.h: the
 * kernel, why it should help and where it loses): its instantiations with
 * cg1's recurrence (cg_coop_res_pr.cu has pr's), and its plan: the slices'
 * row bounds, each block's halo map, the second partition.
 */
#include "cg_res_kernel.h"

#include <climits>

namespace smv_solve {
namespace {

/* True when column j is not one of the block's own rows [lo, lo + nb):
 * the one off-block test (res_halo_map_kernel). */
__device__ __forceinline__ bool res_off_block(int32_t j, int lo, int nb) {
  return (unsigned)(j - lo) >= (unsigned)nb;
}

/* bounds[b], b = 0..G: the least row r with wr r + we rp[r] >= W b / G,
 * W = wr n + we nnz (the slice's bytes: wr a row, we an entry), so block
 * b's rows [bounds[b], bounds[b + 1]) hold about W / G bytes;
 * bounds[G + 1 + b] = rp[bounds[b]] (the host sizes the slices from
 * them). */
__global__ void res_bounds_kernel(const int32_t *rp, int64_t n, int G,
                                  int64_t wr, int64_t we, int32_t *bounds) {
  const int64_t W = wr * n + we * (int64_t)rp[n];
  for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b <= G;
       b += (int64_t)gridDim.x * blockDim.x) {
    /* W b / G without forming W b (past int64 for a large forced grid):
     * W = q G + m, so W b / G = q b + m b / G, m b < G^2. */
    const int64_t t = W / G * b + W % G * b / G;
    int64_t l = 0, h = n;
    while (l < h) {
      const int64_t mid = l + (h - l) / 2;
      if (wr * mid + we * (int64_t)rp[mid] >= t)
        h = mid;
      else
        l = mid + 1;
    }
    bounds[b] = (int32_t)l;
    bounds[G + 1 + b] = rp[l];
  }
}

/* Block-wide stable compaction, a chunk of BS indices at a time: the k
 * in [0, n) with keep(k) get positions 0, 1, ... in k's order, passed to
 * emit(k, pos); returns their count (every thread). A warp ballot gives
 * each kept index its rank in the warp, the warps' counts in shared
 * memory give the warp's base. Every thread of the block calls it; it
 * ends with a __syncthreads. */
template <int BS, class K, class E>
__device__ int block_compact(int n, K keep, E emit) {
  __shared__ int wcount[BS / 32];
  const int lane = (int)(threadIdx.x & 31), w = (int)(threadIdx.x >> 5);
  int base = 0; /* kept indices before this chunk (every thread) */
  for (int k0 = 0; k0 < n; k0 += BS) {
    const int k = k0 + (int)threadIdx.x;
    const bool kp = k < n && keep(k);
    const unsigned bal = __ballot_sync(0xffffffffu, kp);
    if (lane == 0)
      wcount[w] = __popc(bal);
    __syncthreads();
    int before = base, total = base;
    for (int q = 0; q < BS / 32; q++) {
      before += q < w ? wcount[q] : 0;
      total += wcount[q];
    }
    if (kp)
      emit(k, before + __popc(bal & ((1u << lane) - 1u)));
    base = total;
    __syncthreads(); /* wcount is rewritten by the next chunk */
  }
  return base;
}

/* The slices' map (once a plan), a block of BS threads per slice b, rows
 * [lo, lo + nb), entries [kb, kb + ne):
 *   - bounds[2 (G + 1) + b] = nh, the block's halo slots: its distinct
 *     off-block columns;
 *   - rhcol[kb + h], h < nh: those columns, ascending (neighbouring halo
 *     slots are neighbouring columns where the matrix has runs of them,
 *     so a warp's gathers share sectors);
 *   - rci[kb + k]: entry k's column in the slice's numbering: j - lo for
 *     an own row j, nb + h for the halo's h-th column.
 * Repeats share a slot: a column named by several of the block's rows is
 * gathered once an iteration (on FEM matrices most off-block entries are
 * repeats). The off-block columns are gathered into shared memory
 * (keys[pmax], then uniq[pmax]: 8 pmax bytes), sorted (bitonic, padded to
 * a power of two with INT_MAX, never a column: n < INT_MAX) and
 * compacted; each off-block entry then finds its slot by binary search.
 * A block of more than pmax off-block entries (its slice cannot fit a
 * block's shared memory then: each entry and slot takes at least 2 (4 +
 * es) >= 16 bytes, and pmax >= the room / 16) gets one slot per entry,
 * in entry order, so the map is always complete. */
template <int BS>
__global__ void __launch_bounds__(BS)
    res_halo_map_kernel(const int32_t *rp, const int32_t *ci, int G, int pmax,
                        int32_t *bounds, int32_t *rci, int32_t *rhcol) {
  extern __shared__ int32_t res_keys[];
  int32_t *keys = res_keys, *uniq = res_keys + pmax;
  const int b = (int)blockIdx.x;
  const int lo = bounds[b], nb = bounds[b + 1] - lo;
  const int kb = rp[lo], ne = rp[lo + nb] - kb;
  const int32_t *bci = ci + kb;
  int32_t *sci = rci + kb, *hcol = rhcol + kb;
  auto off = [&](int k) { return res_off_block(bci[k], lo, nb); };
  const int noff = block_compact<BS>(ne, off, [&](int k, int h) {
    if (h < pmax)
      keys[h] = bci[k];
  });
  int nh = noff;
  const bool sorted = noff <= pmax;
  if (!sorted) {
    block_compact<BS>(ne, off, [&](int k, int h) {
      sci[k] = nb + h;
      hcol[h] = bci[k];
    });
  } else {
    int P = 1;
    while (P < noff)
      P <<= 1;
    for (int i = noff + (int)threadIdx.x; i < P; i += BS)
      keys[i] = INT_MAX;
    __syncthreads();
    for (int k = 2; k <= P; k <<= 1)
      for (int j = k >> 1; j > 0; j >>= 1) {
        for (int i = threadIdx.x; i < P; i += BS) {
          const int l = i ^ j;
          if (l > i) {
            const int32_t x = keys[i], y = keys[l];
            if ((x > y) == ((i & k) == 0)) {
              keys[i] = y;
              keys[l] = x;
            }
          }
        }
        __syncthreads();
      }
    nh = block_compact<BS>(
        noff, [&](int i) { return i == 0 || keys[i] != keys[i - 1]; },
        [&](int i, int h) {
          uniq[h] = keys[i];
          hcol[h] = keys[i];
        });
  }
  /* The own rows' columns, and (sorted) each off-block entry's slot; the
   * one-slot-an-entry map wrote its off-block entries above. */
  for (int k = threadIdx.x; k < ne; k += BS) {
    const int32_t j = bci[k];
    if (!res_off_block(j, lo, nb)) {
      sci[k] = j - lo;
    } else if (sorted) {
      int l = 0, h = nh - 1; /* j is one of uniq[0, nh) */
      while (l < h) {
        const int mid = (l + h) / 2;
        if (uniq[mid] < j)
          l = mid + 1;
        else
          h = mid;
      }
      sci[k] = nb + l;
    }
  }
  if (threadIdx.x == 0) {
    bounds[2 * (G + 1) + b] = nh;
    if (b == 0) /* the array's last word, copied with the rest */
      bounds[3 * (G + 1) - 1] = 0;
  }
}

/* The second partition: block b's share of W = sum over rows of wr +
 * (we + wh f) x entries, where f is the halo slots (distinct off-block
 * columns) per entry of the first partition's block holding the row
 * (old: its bounds, row offsets and halo slots, cg_res_bounds's layout;
 * wb[c] = W over the old blocks before c, wb[G] = W). W(r) is linear
 * inside an old block, so each new bound is a binary search over rows
 * with W(r) found by a binary search over the old blocks. */
__device__ double res_w(const int32_t *rp, int G, const int32_t *old,
                        const double *wb, double wr, double we, double wh,
                        int64_t r) {
  int l = 0, h = G - 1;
  while (l < h) { /* the last old block starting at or before r */
    const int mid = (l + h + 1) / 2;
    if (old[mid] <= r)
      l = mid;
    else
      h = mid - 1;
  }
  const int ne = old[G + 2 + l] - old[G + 1 + l];
  const double f = ne > 0 ? (double)old[2 * (G + 1) + l] / ne : 0.0;
  return wb[l] + wr * (double)(r - old[l]) +
         (we + wh * f) * (double)(rp[r] - old[G + 1 + l]);
}

__global__ void res_rebalance_kernel(const int32_t *rp, int64_t n, int G,
                                     const int32_t *old, const double *wb,
                                     double wr, double we, double wh,
                                     int32_t *bounds) {
  for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b <= G;
       b += (int64_t)gridDim.x * blockDim.x) {
    int64_t l = 0;
    if (b == G) {
      l = n;
    } else if (b > 0) {
      const double t = wb[G] * (double)b / (double)G;
      int64_t h = n;
      while (l < h) {
        const int64_t mid = l + (h - l) / 2;
        if (res_w(rp, G, old, wb, wr, we, wh, mid) >= t)
          h = mid;
        else
          l = mid + 1;
      }
    }
    bounds[b] = (int32_t)l;
    bounds[G + 1 + b] = rp[l];
  }
}

} // namespace

size_t cg_res_bytes(int64_t nb, int64_t ne, int64_t nh, int es, bool jac) {
  return (size_t)(ne * (es + 4) + nb * es * (9 + (jac ? 1 : 0)) +
                  nh * (es + 4) + 4 * (nb + 1));
}

const void *cgres_kernel_for(bool f32, bool jac, int lanes, int bs, bool last,
                             bool pr) {
  return pr ? cgres_pr_kernel_for(f32, jac, lanes, bs, last)
            : coop_pick<cgres_k<false>>(f32, jac, lanes, bs, last);
}

/* The partition by the slice's bytes (res_bounds_kernel) and its halo
 * map (res_halo_map_kernel); then, if asked, the partition again with
 * each halo slot weighted by what it moves each iteration (its r, w, s
 * and Jacobi's dinv from the L2, its slot and its column: wh bytes, on
 * top of the entries' own), so a block of many halo slots gets fewer rows
 * (the slowest block's halo pass sets the grid barrier's wait, coop/c12),
 * and the map again on those bounds. */
cudaError_t cg_res_bounds(const solver &S, int G, bool rebalance, int map_keys,
                          int32_t *d_bounds, int32_t *h_bounds) {
  constexpr int MAP_BS = 512;
  const int es = S.prec == SMV_F32 ? 4 : 8;
  int32_t *rci = d_bounds + cg_res_bounds_len(G);
  int32_t *rhcol = rci + S.dA->st.nnz;
  /* The map kernel's sort space: keys and distinct keys, pmax int32 each,
   * pmax the largest power of two that fits the opt-in shared memory
   * (less its own static words). */
  const size_t room = S.ctx->prop.sharedMemPerBlockOptin - 1024;
  int pmax = 1;
  while ((size_t)pmax * 2 * 2 * sizeof(int32_t) <= room && pmax < (1 << 24))
    pmax *= 2;
  /* The kernel's limit is always the uncapped size (the attribute is the
   * process's: a solve on another thread must not lower it under this
   * one's launch); a launch asks for its own map_smem. */
  {
    const cudaError_t e =
        cudaFuncSetAttribute(res_halo_map_kernel<MAP_BS>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)((size_t)pmax * 2 * sizeof(int32_t)));
    if (e != cudaSuccess)
      return e;
  }
  /* Test hook: SMV_SOLVE_COOP_MAP_KEYS=N (a power of two) caps pmax, so
   * blocks past it take the one-slot-an-entry map on any device. */
  if (map_keys > 0 && (map_keys & (map_keys - 1)) == 0 && map_keys < pmax)
    pmax = map_keys;
  const size_t map_smem = (size_t)pmax * 2 * sizeof(int32_t);
  const int64_t wr = (int64_t)es * (9 + (S.jac ? 1 : 0)) + 4, we = es + 4;
  const int64_t wh = (int64_t)es * (4 + (S.jac ? 1 : 0)) + 4;
  const size_t nbounds = cg_res_bounds_len(G);
  const unsigned blocks = (unsigned)((G + 1 + 255) / 256);
  auto pass = [&](bool second, const int32_t *old,
                  const double *wb) -> cudaError_t {
    if (second)
      res_rebalance_kernel<<<blocks, 256, 0, S.stream>>>(
          S.dA->row_ptr, S.n, G, old, wb, (double)wr, (double)we, (double)wh,
          d_bounds);
    else
      res_bounds_kernel<<<blocks, 256, 0, S.stream>>>(S.dA->row_ptr, S.n, G, wr,
                                                      we, d_bounds);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
      res_halo_map_kernel<MAP_BS><<<G, MAP_BS, map_smem, S.stream>>>(
          S.dA->row_ptr, S.dA->col_idx, G, pmax, d_bounds, rci, rhcol);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(h_bounds, d_bounds, nbounds * sizeof *h_bounds,
                          cudaMemcpyDeviceToHost, S.stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(S.stream);
    return e;
  };
  cudaError_t e = pass(false, nullptr, nullptr);
  /* The second partition only when asked (SMV_SOLVE_COOP_REBALANCE=1):
   * coop/c13 measured it mixed, 1.10x on G2_circuit and 0.90x on
   * s3rmt3m3 (bench/results/h200/solvers.md): the bytes model weighs a
   * halo entry as if its gather were bandwidth, but a block's halo pass is
   * one round of latency until its entries outnumber its loads in flight,
   * so moving entries off a block whose halo fits one round only lengthens
   * another block's rows. Kept as a knob, documented as a loss. */
  if (e != cudaSuccess || G < 2 || !rebalance)
    return e;
  /* W over the first partition's blocks, on the host (G + 1 doubles). */
  double *wb = (double *)malloc(((size_t)G + 1) * sizeof *wb);
  if (!wb)
    return cudaErrorMemoryAllocation;
  wb[0] = 0.0;
  for (int b = 0; b < G; b++) {
    const double nb = h_bounds[b + 1] - h_bounds[b];
    const double ne = h_bounds[G + 2 + b] - h_bounds[G + 1 + b];
    const double nh = h_bounds[2 * (G + 1) + b];
    wb[b + 1] = wb[b] + (double)wr * nb + (double)we * ne + (double)wh * nh;
  }
  void *d_tmp = nullptr;
  const size_t tmp_bytes = nbounds * sizeof(int32_t) + 8 /* align */ +
                           ((size_t)G + 1) * sizeof(double);
  e = cudaMalloc(&d_tmp, tmp_bytes);
  if (e == cudaSuccess) {
    int32_t *d_old = (int32_t *)d_tmp;
    double *d_wb = (double *)((char *)d_tmp +
                              ((nbounds * sizeof(int32_t) + 7) & ~(size_t)7));
    e = cudaMemcpyAsync(d_old, h_bounds, nbounds * sizeof *h_bounds,
                        cudaMemcpyHostToDevice, S.stream);
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(d_wb, wb, ((size_t)G + 1) * sizeof *wb,
                          cudaMemcpyHostToDevice, S.stream);
    if (e == cudaSuccess)
      e = pass(true, d_old, d_wb);
    const cudaError_t f = cudaFree(d_tmp);
    if (e == cudaSuccess)
      e = f;
  }
  free(wb);
  return e;
}

} // namespace smv_solve
