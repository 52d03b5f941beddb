/*
 * cg_coop_res.cu — the resident persistent CG (the default persistent CG
 * where its slices fit; SMV_SOLVE_COOP_VARIANT=cg1 or cg2 asks for those):
 * cg1's algebra (cg_coop1.cu: one grid barrier an iteration, u, w and s
 * recomputed at every gathered neighbour) with each block's slice of the
 * matrix and of its own vectors held in shared memory for the whole
 * launch.
 *
 * What changed. cg1 reads the matrix from the L2 every iteration: a row's
 * chain is offsets, then (index, value) pairs, then the gathered r, w, s,
 * three dependent L2 round trips before its product, and every byte of
 * the matrix, nnz (4 + es) + 4 (n + 1), crosses the L2 once an iteration.
 * Here block b owns the contiguous rows [bounds[b], bounds[b + 1]) (the
 * plan balances them by the bytes they hold in shared memory,
 * res_bounds_kernel) and copies, once a launch:
 *
 *   val[ne] (es)  r, w, s by parity [2][nb] (es)  p, x [nb] (es)
 *   dinv [nb] (es, Jacobi)  row offsets [nb + 1] (int32)  ci[ne] (int32)
 *
 * ne (4 + es) + nb es (8 + Jacobi) + 4 (nb + 1) bytes (cg_res_bytes). The
 * iteration then reads offsets and pairs from shared memory, gathers r, w,
 * s at a neighbour from shared memory when the neighbour is the block's
 * own row and from the L2 (__ldcg, as cg1) only when it is another
 * block's (the halo: on a banded or mesh matrix, the rows within a
 * bandwidth of the block's ends). The owner keeps p and x in shared memory
 * only (no other block reads them) and writes them back at the end of the
 * launch; r, w and s go to shared memory and to global memory, where the
 * other blocks' halo gathers read them after the barrier.
 *
 * Why it should help: a row's chain is one L2 round trip (the halo) or
 * none, and the L2 carries the halo and the vectors' stores, not the
 * matrix, so the iteration is closer to the grid barrier's own cost.
 *
 * Where it loses / when it is not used: the slice must fit. The plan asks
 * for the largest blocks per SM whose slices fit the device's opt-in
 * shared memory per block (sharedMemPerBlockOptin) and the SM's
 * (occupancy with that dynamic size), and takes cg1 where none does (a
 * matrix past a few million entries, or one row longer than a block's
 * share). Scattered columns make most gathers halo gathers (cg1's cost for
 * those, plus the copy at launch). The copy in costs one pass over the
 * matrix per launch (the solve's launches: one, or one per progress
 * report).
 *
 * Bits: each row's sum is cg1's (the same lanes, order and recurrences,
 * next_at); the block partials follow the rows each block owns, so the
 * sums, and the iterates, are not cg1's bits but are the same run to run
 * for a device, a matrix and the knobs.
 */
#include "cg_coop.h"

namespace smv_solve {
namespace {

/* One block's slice in shared memory, carved in the order of the header
 * (T arrays first: the base is 16-byte aligned, so every T array is). */
template <typename T, bool JAC> struct res_slice {
  T *val, *r[2], *w[2], *s[2], *p, *x, *d;
  int32_t *rp, *ci;
  __device__ res_slice(unsigned char *base, int nb, int ne) {
    T *t = (T *)base;
    val = t;
    t += ne;
    for (int k = 0; k < 2; k++) {
      r[k] = t;
      w[k] = t + nb;
      s[k] = t + 2 * nb;
      t += 3 * nb;
    }
    p = t;
    x = t + nb;
    t += 2 * nb;
    d = t;
    if (JAC)
      t += nb;
    rp = (int32_t *)t;
    ci = rp + nb + 1;
  }
  /* By a run-time parity without indexing the arrays with it (an indexed
   * member array would live in local memory). */
  __device__ T *rv(int k) const { return k ? r[1] : r[0]; }
  __device__ T *wv(int k) const { return k ? w[1] : w[0]; }
  __device__ T *sv(int k) const { return k ? s[1] : s[0]; }
};

/* Local row li's sum of val[k] * at(ci[k]) by a group of LANES threads
 * (cg_coop.h, coop_rows::row_sum's order: each lane every LANES-th entry,
 * then shuffles down), from the slice; the total in lane 0. */
template <typename T, int LANES, bool JAC, class F>
__device__ __forceinline__ T res_row_sum(const res_slice<T, JAC> &m, int li,
                                         unsigned lane, unsigned gmask, F at) {
  const int k0 = m.rp[li], k1 = m.rp[li + 1];
  T s = T(0);
#pragma unroll 4
  for (int k = k0 + (int)lane; k < k1; k += LANES)
    s += m.val[k] * at(m.ci[k]);
#pragma unroll
  for (int off = LANES / 2; off > 0; off >>= 1)
    s += __shfl_down_sync(gmask, s, off, LANES);
  return s;
}

template <typename T, int LANES, bool JAC, int BS, bool LAST>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    cgres_kernel(coop_args<T> a) {
  extern __shared__ __align__(16) unsigned char res_sm[];
  __shared__ double sh_blk[3 * 32], sh_all[3 * 32];
  coop_sum<LAST> gsum(a);
  coop_run c = coop_begin(a.st);
  if (c.done)
    return;
  SMV_PH_BEGIN();
  const int it0 = c.it;
  const int G = (int)gridDim.x;
  cg1_scalars cs(a.st);
  const int lo = a.bounds[blockIdx.x], hi = a.bounds[blockIdx.x + 1];
  const int nb = hi - lo;
  const int kb = __ldg(&a.rp[lo]), ne = __ldg(&a.rp[hi]) - kb;
  const res_slice<T, JAC> m(res_sm, nb, ne);
  const T *dinv = a.dinv;
  /* The copy in: the slice of the matrix, the vectors at the current
   * parity (r only at the start: w and s are the start pass's), p, x. */
  {
    const int par = c.it & 1;
    const T *rc = par ? a.r1 : a.r0, *wc = par ? a.w1 : a.w0;
    const T *sc = par ? a.s1 : a.s0;
    for (int k = threadIdx.x; k < ne; k += BS) {
      m.val[k] = __ldg(&a.val[kb + k]);
      m.ci[k] = __ldg(&a.ci[kb + k]);
    }
    for (int i = threadIdx.x; i <= nb; i += BS)
      m.rp[i] = __ldg(&a.rp[lo + i]) - kb;
    for (int i = threadIdx.x; i < nb; i += BS) {
      m.rv(par)[i] = __ldcg(&rc[lo + i]);
      if (c.it > 0) {
        m.wv(par)[i] = __ldcg(&wc[lo + i]);
        m.sv(par)[i] = __ldcg(&sc[lo + i]);
      }
      m.p[i] = a.p[lo + i];
      m.x[i] = a.x[lo + i];
      if (JAC)
        m.d[i] = __ldg(&dinv[lo + i]);
    }
    __syncthreads();
  }
  SMV_PH(6);
  const unsigned lane = threadIdx.x & (LANES - 1);
  const unsigned gmask = group_mask<LANES>();
  const int first = (int)threadIdx.x / LANES;
  constexpr int STEP = BS / LANES;
  if (c.it == 0) {
    /* The start: w0 = A u0, s0 = 0; gamma, delta (partials of parity 1,
     * as if iteration -1). */
    double acc[3] = {0.0, 0.0, 0.0};
    for (int li = first; li < nb; li += STEP) {
      const T sum =
          res_row_sum<T, LANES, JAC>(m, li, lane, gmask, [&](int32_t j) {
            const unsigned lj = (unsigned)(j - lo);
            if (lj < (unsigned)nb)
              return JAC ? m.r[0][lj] * m.d[lj] : m.r[0][lj];
            return u_at<T, JAC>(a.r0, dinv, j);
          });
      if (lane == 0) {
        const T ri = m.r[0][li];
        const T ui = JAC ? ri * m.d[li] : ri;
        m.w[0][li] = sum;
        m.s[0][li] = T(0);
        a.w0[lo + li] = sum;
        a.s0[lo + li] = T(0);
        acc[0] += (double)ri * (double)ui;
        acc[1] += (double)sum * (double)ui;
      }
    }
    gsum(acc, a.part + 3 * G, sh_blk, sh_all);
    cs.gam = acc[0];
    cs.del = acc[1];
  }
  SMV_PH(7);
  while (c.it < a.it_end) {
    const int par = c.it & 1;
    const T *rc = par ? a.r1 : a.r0, *wc = par ? a.w1 : a.w0;
    const T *sc = par ? a.s1 : a.s0;
    T *rn = par ? a.r0 : a.r1, *wn = par ? a.w0 : a.w1;
    T *sn = par ? a.s0 : a.s1;
    const T *rcs = m.rv(par), *wcs = m.wv(par), *scs = m.sv(par);
    T *rns = m.rv(par ^ 1), *wns = m.wv(par ^ 1), *sns = m.sv(par ^ 1);
    if (!cs.step(c.it)) {
      c.breakdown = c.done = 1;
      break;
    }
    const T bt = (T)cs.beta, al = (T)cs.alpha, nal = (T)(-cs.alpha);
    SMV_PH(0);
    double acc[3] = {0.0, 0.0, 0.0};
    for (int li = first; li < nb; li += STEP) {
      const T sum =
          res_row_sum<T, LANES, JAC>(m, li, lane, gmask, [&](int32_t j) {
            const unsigned lj = (unsigned)(j - lo);
            T rj, wj, sj, dj = T(1);
            if (lj < (unsigned)nb) {
              rj = rcs[lj];
              wj = wcs[lj];
              sj = scs[lj];
              if (JAC)
                dj = m.d[lj];
            } else {
              rj = __ldcg(&rc[j]);
              wj = __ldcg(&wc[j]);
              sj = __ldcg(&sc[j]);
              if (JAC)
                dj = __ldg(&dinv[j]);
            }
            return next_at<T, JAC>(rj, wj, sj, dj, bt, nal).u;
          });
      if (lane == 0) {
        const T di = JAC ? m.d[li] : T(1), ri = rcs[li];
        const cg1_next<T> nx =
            next_at<T, JAC>(ri, wcs[li], scs[li], di, bt, nal);
        const T ui = JAC ? ri * di : ri;
        const T pi = madd(bt, m.p[li], ui);
        m.p[li] = pi;
        m.x[li] = madd(al, pi, m.x[li]);
        sns[li] = nx.s;
        rns[li] = nx.r;
        wns[li] = sum;
        sn[lo + li] = nx.s;
        rn[lo + li] = nx.r;
        wn[lo + li] = sum;
        acc[0] += (double)nx.r * (double)nx.u;
        acc[1] += (double)sum * (double)nx.u;
        acc[2] += (double)nx.r * (double)nx.r;
      }
    }
    SMV_PH_SYNC(1);
    gsum(acc, a.part + 3 * G * par, sh_blk, sh_all);
    cs.next(acc[0], acc[1]);
    const bool stop = coop_step(c, acc[2], a.hist);
    SMV_PH(5);
    if (stop)
      break;
  }
  SMV_PH_END(c.it - it0);
  /* The copy out: p and x (every block leaves the loop at the same
   * iteration: the stop test reads the same sums everywhere). */
  __syncthreads();
  for (int i = threadIdx.x; i < nb; i += BS) {
    a.p[lo + i] = m.p[i];
    a.x[lo + i] = m.x[i];
  }
  coop_end(a.st, c, a.hist);
  cs.store(a.st);
}

struct cgres_k {
  template <typename T, int LANES, bool JAC, int BS, bool LAST>
  static const void *get() {
    return (const void *)cgres_kernel<T, LANES, JAC, BS, LAST>;
  }
};

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

} // namespace

size_t cg_res_bytes(int64_t nb, int64_t ne, int es, bool jac) {
  return (size_t)(ne * (es + 4) + nb * es * (8 + (jac ? 1 : 0)) + 4 * (nb + 1));
}

const void *cgres_kernel_for(bool f32, bool jac, int lanes, int bs, bool last) {
  return coop_pick<cgres_k>(f32, jac, lanes, bs, last);
}

cudaError_t cg_res_bounds(const solver &S, int G, int32_t *d_bounds,
                          int32_t *h_bounds) {
  const int es = S.prec == SMV_F32 ? 4 : 8;
  const int64_t wr = (int64_t)es * (8 + (S.jac ? 1 : 0)) + 4, we = es + 4;
  const unsigned blocks = (unsigned)((G + 1 + 255) / 256);
  res_bounds_kernel<<<blocks, 256, 0, S.stream>>>(S.dA->row_ptr, S.n, G, wr, we,
                                                  d_bounds);
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(h_bounds, d_bounds,
                        2 * ((size_t)G + 1) * sizeof *h_bounds,
                        cudaMemcpyDeviceToHost, S.stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(S.stream);
  return e;
}

} // namespace smv_solve
