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
 * plan balances them by the bytes of their rows and entries in shared
 * memory, res_bounds_kernel, not by their halo slots, which are counted
 * after: on scattered columns the largest slice can be well above the
 * mean) and copies, once a launch:
 *
 *   val[ne] (es)  r, w, s by parity [2][nb] (es)  p, x [nb] (es)
 *   dinv [nb] (es, Jacobi)  u [nb + nh] (es)  row offsets [nb + 1]
 *   (int32)  ci[ne] (int32, renumbered)  hcol[nh] (int32)
 *
 * ne (4 + es) + nb es (9 + Jacobi) + nh (es + 4) + 4 (nb + 1) bytes
 * (cg_res_bytes), nh = the block's halo: its distinct off-block columns.
 * The plan renumbers the column indices once (res_halo_map_kernel, into
 * its own array, copied in with the slice): an own row's column j becomes
 * j - lo, an off-block column the h-th of the block's distinct off-block
 * columns, ascending, becomes nb + h with hcol[h] = j. An iteration is
 * then three passes:
 *   1. the own rows' u, r and s of the iteration (next_at, a thread a
 *      row) into u[0, nb) and the other parity, r and s also to global
 *      memory (other blocks' halo reads them after the barrier);
 *   2. the halo: u at each halo column from the r, w and s its owner
 *      published before the barrier (__ldcg), into u[nb + h]; all of the
 *      block's halo loads in flight at once, a warp's on ascending
 *      columns (runs of columns share sectors);
 *   3. the rows: sum val[k] u[ci[k]] from shared memory alone, then w, p,
 *      x and the partials.
 * The owner keeps p and x in shared memory only (no other block reads
 * them) and writes them back at the end of the launch.
 *
 * Why it should help: no row waits on the L2 (the halo's round trip is
 * one, for the whole block, before the rows), u is formed once a row
 * instead of once an entry, and the L2 carries the halo and the vectors'
 * stores, not the matrix, so the iteration is closer to the grid
 * barrier's own cost. The first form of this kernel gathered r, w and s
 * inside each row's sum (up to one L2 round trip per entry in a lane's
 * chain); coop/c9-c11 found its rows the largest phase of the iteration
 * and its slowest block's far above the mean (solvers.md).
 *
 * Where it loses / when it is not used: the slice must fit. The plan
 * asks for one block an SM (cg_coop.cu) whose slice fits the device's
 * opt-in shared memory per block (sharedMemPerBlockOptin), and takes cg1
 * where none does (a matrix past about a million entries, or one row
 * longer than a block's share). Scattered columns make most distinct
 * columns halo slots (4 + es bytes more each, and a gather each
 * iteration). The copy in costs one pass over the
 * matrix per launch (the solve's launches: one, or one per progress
 * report).
 *
 * The pr recurrence (SMV_SOLVE_COOP_VARIANT=pr, template PR, an
 * experiment; res_pr_loop below): the same slices and passes, with s = A
 * p computed instead of cg1's recurred s, so the halo carries p (from the
 * r, s and p its owner published) and the slice's w arrays hold p by
 * parity; five sums an iteration instead of three. Why: cg1's recurrence
 * costs ill-conditioned matrices iterations against textbook CG (gyro_m),
 * and this one does much less (scripts/solvers/cg_count.c).
 *
 * Bits: each row sums in a fixed order (its lanes, res_lanes_for's, each
 * every LANES-th entry, then shuffles down) with cg1's recurrences
 * (next_at: u at a column is the same bits whether its owner or a halo
 * gather forms it, and whatever slot holds it); the block partials follow
 * the rows each block owns, so the sums, and the iterates, are not cg1's
 * bits but are the same run to run for a device, a matrix and the knobs.
 */
#include "cg_coop.h"

#include <climits>

namespace smv_solve {
namespace {

/* One block's slice in shared memory, carved in the order of the header
 * (T arrays first: the base is 16-byte aligned, so every T array is). */
template <typename T, bool JAC> struct res_slice {
  T *val, *r[2], *w[2], *s[2], *p, *x, *d, *u;
  int32_t *rp, *ci, *hcol;
  __device__ res_slice(unsigned char *base, int nb, int ne, int nh) {
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
    u = t;
    t += nb + nh;
    rp = (int32_t *)t;
    ci = rp + nb + 1;
    hcol = ci + ne;
  }
  /* By a run-time parity without indexing the arrays with it (an indexed
   * member array would live in local memory). */
  __device__ T *rv(int k) const { return k ? r[1] : r[0]; }
  __device__ T *wv(int k) const { return k ? w[1] : w[0]; }
  __device__ T *sv(int k) const { return k ? s[1] : s[0]; }
};

/* r, w and s of parity par (this iteration's: c) and of the other (the
 * next iteration's: n), in global memory (where the other blocks' halos
 * read them) and in the slice (s); the pr recurrence keeps p in w's. */
template <typename T> struct res_par {
  const T *rc, *wc, *sc;
  T *rn, *wn, *sn;
  T *rcs, *wcs, *scs; /* written at the copy-in, read in the loop */
  T *rns, *wns, *sns;
  template <bool JAC>
  __device__ res_par(const coop_args<T> &a, const res_slice<T, JAC> &m, int par)
      : rc(par ? a.r1 : a.r0), wc(par ? a.w1 : a.w0), sc(par ? a.s1 : a.s0),
        rn(par ? a.r0 : a.r1), wn(par ? a.w0 : a.w1), sn(par ? a.s0 : a.s1),
        rcs(m.rv(par)), wcs(m.wv(par)), scs(m.sv(par)), rns(m.rv(par ^ 1)),
        wns(m.wv(par ^ 1)), sns(m.sv(par ^ 1)) {}
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

/* True when column j is not one of the block's own rows [lo, lo + nb):
 * the one off-block test (res_halo_map_kernel). */
__device__ __forceinline__ bool res_off_block(int32_t j, int lo, int nb) {
  return (unsigned)(j - lo) >= (unsigned)nb;
}

/* The pr recurrence's five sums of one row (lane 0): nu += r.z, mu +=
 * p.s, sig += s.z, tau += s.Ms, rr += r.r (z = M r; d the row's Jacobi
 * scale, 1 without). */
template <typename T, bool JAC>
__device__ __forceinline__ void pr_terms(double (&acc)[5], T r, T p, T s, T d) {
  const T z = JAC ? r * d : r, ms = JAC ? s * d : s;
  acc[0] += (double)r * (double)z;
  acc[1] += (double)p * (double)s;
  acc[2] += (double)s * (double)z;
  acc[3] += (double)s * (double)ms;
  acc[4] += (double)r * (double)r;
}

/* The resident kernel's loop with the predict-and-recompute recurrence
 * (PR; cg_count's `pr`, bench/results/h200/solvers.md): s = A p
 * computed each iteration, one grid sum (five sums) an iteration. The
 * slice's w arrays (and the global w0 / w1) hold p by parity, m.p is not
 * used. An iteration, after the sums of the current iterate:
 *   alpha = nu / mu, beta = (nu - 2 alpha sig + alpha^2 tau) / nu;
 *   own rows: r' = r - alpha s, z' = M r', p' = z' + beta p, x += alpha
 *     p; r' and p' to the other parity, here and globally; u = p';
 *   halo: u = p' at each halo column from the r, s and p its owner
 *     published before the barrier (the same madd chain: the same bits);
 *   rows: s' = A u from shared memory, to the other parity, and the
 *     sums of (r', p', s').
 * Returns the scalars for the state (stored after coop_end). */
template <typename T, int LANES, bool JAC, int BS, bool LAST>
__device__ __forceinline__ pr_scalars
res_pr_loop(const coop_args<T> &a, const res_slice<T, JAC> &m, coop_run &c,
            coop_sum<LAST> &gsum, int lo, int nb, int nh, double *sh_blk,
            double *sh_all) {
  const int G = (int)gridDim.x;
  const T *dinv = a.dinv;
  const unsigned lane = threadIdx.x & (LANES - 1);
  const unsigned gmask = group_mask<LANES>();
  const int first = (int)threadIdx.x / LANES;
  constexpr int STEP = BS / LANES;
  pr_scalars ps(a.st);
  if (c.it == 0) {
    /* The start: p0 = z0 = M r0 (own rows and halo), s0 = A p0, and the
     * sums of iteration 0 (partials of parity 1, as if iteration -1). */
    for (int i = threadIdx.x; i < nb; i += BS) {
      const T ri = m.r[0][i];
      const T zi = JAC ? ri * m.d[i] : ri;
      m.u[i] = zi;
      m.w[0][i] = zi;
      a.w0[lo + i] = zi;
    }
    for (int h = threadIdx.x; h < nh; h += BS)
      m.u[nb + h] = u_at<T, JAC>(a.r0, dinv, m.hcol[h]);
    __syncthreads();
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int li = first; li < nb; li += STEP) {
      const T sum = res_row_sum<T, LANES, JAC>(
          m, li, lane, gmask, [&](int32_t q) { return m.u[q]; });
      if (lane == 0) {
        m.s[0][li] = sum;
        a.s0[lo + li] = sum;
        pr_terms<T, JAC>(acc, m.r[0][li], m.u[li], sum, JAC ? m.d[li] : T(1));
      }
    }
    gsum(acc, a.part + 5 * G, sh_blk, sh_all);
    ps.next(acc);
  }
  SMV_PH(7);
  while (c.it < a.it_end) {
    const int par = c.it & 1;
    const res_par<T> v(a, m, par); /* p in w's arrays */
    if (!ps.step()) {
      c.breakdown = c.done = 1;
      break;
    }
    const T bt = (T)ps.beta, al = (T)ps.alpha, nal = (T)(-ps.alpha);
    SMV_PH(0);
    for (int i = threadIdx.x; i < nb; i += BS) {
      const T r = madd(nal, v.scs[i], v.rcs[i]);
      const T z = JAC ? r * m.d[i] : r;
      const T p = madd(bt, v.wcs[i], z);
      m.x[i] = madd(al, v.wcs[i], m.x[i]);
      v.rns[i] = r;
      v.rn[lo + i] = r;
      v.wns[i] = p;
      v.wn[lo + i] = p;
      m.u[i] = p;
    }
#pragma unroll 4
    for (int h = threadIdx.x; h < nh; h += BS) {
      const int32_t j = m.hcol[h];
      const T dj = JAC ? __ldg(&dinv[j]) : T(1);
      const T r = madd(nal, __ldcg(&v.sc[j]), __ldcg(&v.rc[j]));
      const T z = JAC ? r * dj : r;
      m.u[nb + h] = madd(bt, __ldcg(&v.wc[j]), z);
    }
    __syncthreads();
    SMV_PH(9);
    double acc[5] = {0.0, 0.0, 0.0, 0.0, 0.0};
    for (int li = first; li < nb; li += STEP) {
      const T sum = res_row_sum<T, LANES, JAC>(
          m, li, lane, gmask, [&](int32_t q) { return m.u[q]; });
      if (lane == 0) {
        v.sns[li] = sum;
        v.sn[lo + li] = sum;
        pr_terms<T, JAC>(acc, v.rns[li], m.u[li], sum, JAC ? m.d[li] : T(1));
      }
    }
    SMV_PH_SYNC(1);
    gsum(acc, a.part + 5 * G * par, sh_blk, sh_all);
    ps.next(acc);
    const bool stop = coop_step(c, acc[4], a.hist);
    SMV_PH(5);
    if (stop)
      break;
  }
  return ps;
}

/* PR: the predict-and-recompute recurrence (res_pr_loop), a separate
 * instantiation so that the default kernel (cg1's recurrence) keeps its
 * registers and its three sums' shared memory. */
template <typename T, int LANES, bool JAC, int BS, bool LAST, bool PR>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    cgres_kernel(coop_args<T> a) {
  extern __shared__ __align__(16) unsigned char res_sm[];
  __shared__ double sh_blk[(PR ? 5 : 3) * 32], sh_all[(PR ? 5 : 3) * 32];
  coop_sum<LAST> gsum(a);
  coop_run c = coop_begin(a.st);
  if (c.done)
    return;
  SMV_PH_BEGIN();
  const int G = (int)gridDim.x;
  cg1_scalars cs(a.st);
  const int lo = a.bounds[blockIdx.x], hi = a.bounds[blockIdx.x + 1];
  const int nb = hi - lo;
  const int kb = __ldg(&a.rp[lo]), ne = __ldg(&a.rp[hi]) - kb;
  const int nh = a.bounds[2 * (G + 1) + blockIdx.x];
  const res_slice<T, JAC> m(res_sm, nb, ne, nh);
  const T *dinv = a.dinv;
  /* The copy in: the slice of the matrix, the vectors at the current
   * parity (r only at the start: w and s are the start pass's), p, x. */
  {
    const res_par<T> v(a, m, c.it & 1);
    for (int k = threadIdx.x; k < ne; k += BS) {
      m.val[k] = __ldg(&a.val[kb + k]);
      m.ci[k] = __ldg(&a.rci[kb + k]);
    }
    for (int h = threadIdx.x; h < nh; h += BS)
      m.hcol[h] = __ldg(&a.rhcol[kb + h]);
    for (int i = threadIdx.x; i <= nb; i += BS)
      m.rp[i] = __ldg(&a.rp[lo + i]) - kb;
    for (int i = threadIdx.x; i < nb; i += BS) {
      v.rcs[i] = __ldcg(&v.rc[lo + i]);
      if (c.it > 0) {
        v.wcs[i] = __ldcg(&v.wc[lo + i]);
        v.scs[i] = __ldcg(&v.sc[lo + i]);
      }
      m.p[i] = a.p[lo + i];
      m.x[i] = a.x[lo + i];
      if (JAC)
        m.d[i] = __ldg(&dinv[lo + i]);
    }
    __syncthreads();
  }
  SMV_PH(6);
  if constexpr (PR) {
    const pr_scalars ps = res_pr_loop<T, LANES, JAC, BS, LAST>(
        a, m, c, gsum, lo, nb, nh, sh_blk, sh_all);
    SMV_PH_END(c.it - c.it0);
    __syncthreads();
    for (int i = threadIdx.x; i < nb; i += BS)
      a.x[lo + i] = m.x[i];
    coop_end(a.st, c, a.hist);
    ps.store(a.st);
    return;
  }
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
          res_row_sum<T, LANES, JAC>(m, li, lane, gmask, [&](int32_t q) {
            if (q < nb)
              return JAC ? m.r[0][q] * m.d[q] : m.r[0][q];
            return u_at<T, JAC>(a.r0, dinv, m.hcol[q - nb]);
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
    const res_par<T> v(a, m, par);
    if (!cs.step(c.it)) {
      c.breakdown = c.done = 1;
      break;
    }
    const T bt = (T)cs.beta, al = (T)cs.alpha, nal = (T)(-cs.alpha);
    SMV_PH(0);
    /* u, r and s of the iteration at the block's own rows (a thread a
     * row: every one once, not once per entry that names it), and u at
     * the halo (each halo column, from the r, w and s the
     * owner published before the barrier: the loads of 4 entries in
     * flight a thread, every thread's at once). */
    for (int i = threadIdx.x; i < nb; i += BS) {
      const cg1_next<T> nx = next_at<T, JAC>(v.rcs[i], v.wcs[i], v.scs[i],
                                             JAC ? m.d[i] : T(1), bt, nal);
      m.u[i] = nx.u;
      v.rns[i] = nx.r;
      v.sns[i] = nx.s;
      v.rn[lo + i] = nx.r;
      v.sn[lo + i] = nx.s;
    }
#pragma unroll 4
    for (int h = threadIdx.x; h < nh; h += BS) {
      const int32_t j = m.hcol[h];
      const T dj = JAC ? __ldg(&dinv[j]) : T(1);
      m.u[nb + h] = next_at<T, JAC>(__ldcg(&v.rc[j]), __ldcg(&v.wc[j]),
                                    __ldcg(&v.sc[j]), dj, bt, nal)
                        .u;
    }
    __syncthreads();
    SMV_PH(9);
    double acc[3] = {0.0, 0.0, 0.0};
    for (int li = first; li < nb; li += STEP) {
      const T sum = res_row_sum<T, LANES, JAC>(
          m, li, lane, gmask, [&](int32_t q) { return m.u[q]; });
      if (lane == 0) {
        const T ri = v.rcs[li];
        const T ui = JAC ? ri * m.d[li] : ri;
        const T pi = madd(bt, m.p[li], ui);
        const T rnew = v.rns[li], unew = m.u[li];
        m.p[li] = pi;
        m.x[li] = madd(al, pi, m.x[li]);
        v.wns[li] = sum;
        v.wn[lo + li] = sum;
        acc[0] += (double)rnew * (double)unew;
        acc[1] += (double)sum * (double)unew;
        acc[2] += (double)rnew * (double)rnew;
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
  SMV_PH_END(c.it - c.it0);
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

template <bool PR> struct cgres_k {
  template <typename T, int LANES, bool JAC, int BS, bool LAST>
  static const void *get() {
    return (const void *)cgres_kernel<T, LANES, JAC, BS, LAST, PR>;
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
  return pr ? coop_pick<cgres_k<true>>(f32, jac, lanes, bs, last)
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
