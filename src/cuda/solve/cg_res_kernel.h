/*
 * cg_res_kernel.h — the resident persistent CG (the default persistent CG
 * where its slices fit, with the pr recurrence below; =res gives it cg1's,
 * SMV_SOLVE_COOP_VARIANT=cg1 or cg2 asks for those kernels): as first
 * written, cg1's algebra (cg_coop1.cu: one grid barrier an iteration, u, w and
 * s recomputed at every gathered neighbour) with each block's slice of the
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
 * The pr recurrence (the default; template PR, res_pr_loop below): the
 * same slices and passes, with s = A p computed instead of cg1's
 * recurred s, so the halo carries p (from the r, s and p its owner
 * published) and the slice's w arrays hold p by parity; four sums an
 * iteration instead of two (five and three with Jacobi: res_nv). Why:
 * cg1's recurrence drifts from A p on ill-conditioned matrices and costs
 * them iterations against textbook CG (gyro_m), and this one does much
 * less (scripts/solvers/cg_count.c, bench/results/h200/solvers.md).
 *
 * Bits: each row sums in a fixed order (its lanes, res_lanes_for's, each
 * every LANES-th entry, then shuffles down) with cg1's recurrences
 * (next_at: u at a column is the same bits whether its owner or a halo
 * gather forms it, and whatever slot holds it); the block partials follow
 * the rows each block owns, so the sums, and the iterates, are not cg1's
 * bits but are the same run to run for a device, a matrix and the knobs.
 *
 * The kernel's templates live here, included by two files so that their
 * instantiations (precision x Jacobi x lanes x block size x sum, 144
 * kernels each) compile in parallel: cg_coop_res.cu (cg1's recurrence,
 * and the plan) and cg_coop_res_pr.cu (pr).
 */
#ifndef SMV_CG_RES_KERNEL_H
#define SMV_CG_RES_KERNEL_H

#include "cg_coop.h"

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

/* A row pass over the block's slice: each group of LANES threads sums
 * its rows (res_row_sum, the value at a slot from at), then its lane 0
 * calls done(li, sum). Every row pass of both recurrences, their starts
 * included. */
template <typename T, int LANES, bool JAC, int BS, class F, class D>
__device__ __forceinline__ void res_rows(const res_slice<T, JAC> &m, int nb,
                                         F at, D done) {
  const unsigned lane = threadIdx.x & (LANES - 1);
  const unsigned gmask = group_mask<LANES>();
  for (int li = (int)threadIdx.x / LANES; li < nb; li += BS / LANES) {
    const T sum = res_row_sum<T, LANES, JAC>(m, li, lane, gmask, at);
    if (lane == 0)
      done(li, sum);
  }
}

/* The pr recurrence's sums of one row (lane 0): nu += r.z, mu += p.s,
 * sig += s.z, tau += s.Ms, and with Jacobi rr += r.r (z = M r; d the
 * row's Jacobi scale). Without Jacobi z = r, so nu is r.r to the bit and
 * the grid sums four values, not five (res_nv). */
template <typename T, bool JAC, int NV>
__device__ __forceinline__ void pr_terms(double (&acc)[NV], T r, T p, T s,
                                         T d) {
  const T z = JAC ? r * d : r, ms = JAC ? s * d : s;
  acc[0] += (double)r * (double)z;
  acc[1] += (double)p * (double)s;
  acc[2] += (double)s * (double)z;
  acc[3] += (double)s * (double)ms;
  if constexpr (NV == 5)
    acc[4] += (double)r * (double)r;
}

/* The grid sums an iteration of the resident kernel: cg1's recurrence
 * gamma = r.u, delta = w.u and r.r; pr's five (pr_terms). Without Jacobi
 * u = z = r, so r.r is gamma (nu) to the bit and is not summed again:
 * each sum dropped is a partial per block, G loads per block after the
 * barrier and a share of the block's shuffles. rr_at: where r.r is. */
template <bool PR, bool JAC> struct res_nv {
  static constexpr int NV = (PR ? 4 : 2) + (JAC ? 1 : 0);
  static constexpr int rr_at = JAC ? NV - 1 : 0;
};

/* The resident kernel's loop with the predict-and-recompute recurrence
 * (PR; cg_count's `pr`, bench/results/h200/solvers.md): s = A p
 * computed each iteration, one grid sum (res_nv's four or five) an
 * iteration. The
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
  constexpr int NV = res_nv<true, JAC>::NV;
  const auto from_u = [&](int32_t q) { return m.u[q]; };
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
    double acc[NV] = {};
    res_rows<T, LANES, JAC, BS>(m, nb, from_u, [&](int li, T sum) {
      m.s[0][li] = sum;
      a.s0[lo + li] = sum;
      pr_terms<T, JAC, NV>(acc, m.r[0][li], m.u[li], sum, JAC ? m.d[li] : T(1));
    });
    gsum(acc, a.part + NV * G, sh_blk, sh_all);
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
    double acc[NV] = {};
    res_rows<T, LANES, JAC, BS>(m, nb, from_u, [&](int li, T sum) {
      v.sns[li] = sum;
      v.sn[lo + li] = sum;
      pr_terms<T, JAC, NV>(acc, v.rns[li], m.u[li], sum, JAC ? m.d[li] : T(1));
    });
    SMV_PH_SYNC(1);
    gsum(acc, a.part + NV * G * par, sh_blk, sh_all);
    ps.next(acc);
    const bool stop = coop_step(c, acc[res_nv<true, JAC>::rr_at], a.hist);
    SMV_PH(5);
    if (stop)
      break;
  }
  return ps;
}

/* PR: the predict-and-recompute recurrence (res_pr_loop, the default),
 * else cg1's (=res): separate instantiations, so that each keeps its own
 * registers and its sums' shared memory. */
template <typename T, int LANES, bool JAC, int BS, bool LAST, bool PR>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    cgres_kernel(coop_args<T> a) {
  extern __shared__ __align__(16) unsigned char res_sm[];
  constexpr int NV = res_nv<PR, JAC>::NV;
  __shared__ double sh_blk[NV * 32], sh_all[NV * 32];
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
  const auto from_u = [&](int32_t q) { return m.u[q]; };
  if (c.it == 0) {
    /* The start: w0 = A u0, s0 = 0; gamma, delta (partials of parity 1,
     * as if iteration -1). */
    double acc[NV] = {};
    const auto u0_at = [&](int32_t q) {
      if (q < nb)
        return JAC ? m.r[0][q] * m.d[q] : m.r[0][q];
      return u_at<T, JAC>(a.r0, dinv, m.hcol[q - nb]);
    };
    res_rows<T, LANES, JAC, BS>(m, nb, u0_at, [&](int li, T sum) {
      const T ri = m.r[0][li];
      const T ui = JAC ? ri * m.d[li] : ri;
      m.w[0][li] = sum;
      m.s[0][li] = T(0);
      a.w0[lo + li] = sum;
      a.s0[lo + li] = T(0);
      acc[0] += (double)ri * (double)ui;
      acc[1] += (double)sum * (double)ui;
    });
    gsum(acc, a.part + NV * G, sh_blk, sh_all);
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
    double acc[NV] = {};
    res_rows<T, LANES, JAC, BS>(m, nb, from_u, [&](int li, T sum) {
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
      if constexpr (NV == 3)
        acc[2] += (double)rnew * (double)rnew;
    });
    SMV_PH_SYNC(1);
    gsum(acc, a.part + NV * G * par, sh_blk, sh_all);
    cs.next(acc[0], acc[1]);
    const bool stop = coop_step(c, acc[res_nv<false, JAC>::rr_at], a.hist);
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

} // namespace
} // namespace smv_solve

#endif
