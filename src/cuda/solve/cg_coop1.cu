/*
 * cg_coop1.cu — the persistent CG with one grid barrier per iteration
 * (SMV_SOLVE_COOP_VARIANT=cg1; cg_coop.cu has the plan, the launch and
 * the two-barrier kernel, cg2).
 *
 * What changed. The Chronopoulos–Gear form of preconditioned CG: with
 * u = M^-1 r (dinv r with Jacobi, else r), w = A u, gamma = (r, u) and
 * delta = (w, u), both dot products of one iteration come from the same
 * vectors, so they are summed together:
 *
 *   beta  = gamma / gamma_old            (first iteration: 0)
 *   alpha = gamma / (delta - beta gamma / alpha_old)   (first: gamma/delta)
 *   p = u + beta p      s = w + beta s   (s = A p by recurrence)
 *   x += alpha p        r -= alpha s     u = M^-1 r     w = A u
 *
 * One phase per iteration: a row group of LANES threads forms w_new[i] =
 * sum_j a_ij u_new[j], where u_new[j] is not read but recomputed by the
 * gathering thread from the OLD r, w, s at j,
 *
 *   s_new = fma(beta, s, w);  r_new = fma(-alpha, s_new, r);
 *   u_new = dinv r_new (Jacobi) or r_new,
 *
 * through the same function (madd, cg_coop.h) as the row's owner, which
 * stores s_new, r_new and w_new (and p, x) for its row and adds r_new
 * u_new, w_new u_new and r_new r_new to the block's partials. Then the
 * one grid-wide sum, which is also the grid barrier (cg_coop.h,
 * coop_sum): by default the last block to arrive sums the G partials and
 * publishes the three sums (grid_sum_sync, SMV_SOLVE_COOP_SUM=last); with
 * SMV_SOLVE_COOP_SUM=all, grid.sync and every block sums them (all_sum).
 * Both add in the same fixed order (all_sum), so every block holds the
 * same gamma, delta and residual, the same bits on both paths, and takes
 * the same stop decision. cg2 needs a second barrier
 * because q = A p must be complete before alpha, and alpha before r and z.
 *
 * Buffers. r, w and s are read at neighbour rows while their owners write
 * the new values, so each is double-buffered by the iteration's parity
 * (r0/r1 in R/Z, w0/w1 in Q/P2, s0/s1 in S/T); p is read only by its
 * owner and u is never stored. The partials are double-buffered too: a
 * block that has summed iteration k's partials may write iteration k+1's
 * while another still reads iteration k's. The first launch of a solve
 * begins with one extra pass and barrier: w0 = A u0, s0 = 0, gamma and
 * delta (the start kernel left r0, and p = u0).
 *
 * Bytes per iteration (es = sizeof T): the matrix once, nnz (4 + es) +
 * 4 (n + 1); the owner's reads of r, w, s, p, x (+ dinv) and writes of r,
 * w, s, p, x: about 10 n es (11 with Jacobi); the gathers read r, w, s
 * (+ dinv) at every neighbour, from the L2 (__ldcg: other blocks wrote
 * them). Where it loses: each gathered entry costs three vector loads
 * (four with Jacobi) and two fma (and a multiply with Jacobi) before its
 * product, against cg2's two loads and one fma, and two more vectors must
 * stay in the L2 (footprint: 9 vectors, 10 with Jacobi, against
 * cg2's 6 and 8); on a matrix whose SpMV is bound by its gathers rather
 * than by the barriers the extra loads can cost more than the barrier
 * saves. With SMV_SOLVE_COOP_SUM=all the sum after the barrier reads
 * G x 3 doubles in every block, G^2 x 24 bytes of L2 traffic per
 * iteration (fewer, larger blocks, SMV_SOLVE_COOP_BLOCK=1024 or
 * SMV_SOLVE_COOP_PER_SM, cut it and the barrier's cost together); the
 * default, last, reads them once, in the last block to arrive: G x 24
 * bytes, and 24 bytes read back by each other block.
 *
 * Rounding: the recurrence s = w + beta s differs from A p by rounding,
 * so the residual drifts from b - A x a little more than in textbook CG;
 * the iteration counts agree with it within 1% on the tests' matrices
 * (tests/test_solve_cg1.c checks the recurrence on the CPU).
 *
 * Determinism: every value a thread recomputes is the owner's bits (one
 * function, explicit fma); the partials and their sums follow the grid,
 * fixed by the device and the knobs: the same bits on every run (not
 * cg2's bits, nor the graph path's).
 */
#include "cg_coop.h"

namespace smv_solve {
namespace {

template <typename T, int LANES, bool JAC, int BS, bool LAST>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    cg1_kernel(coop_args<T> a) {
  __shared__ double sh_blk[3 * 32], sh_all[3 * 32];
  coop_sum<LAST> gsum(a);
  coop_run c = coop_begin(a.st);
  if (c.done)
    return;
  SMV_PH_BEGIN();
  const int G = (int)gridDim.x;
  cg1_scalars cs(a.st);
  const coop_rows<LANES, BS> g;
  const T *dinv = a.dinv;
  if (c.it == 0) {
    /* The start: w0 = A u0, s0 = 0; gamma, delta (partials of parity 1,
     * as if iteration -1). */
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t row = g.first; row < a.n; row += g.step) {
      const T sum = g.row_sum(
          a, row, [&](int32_t j) { return u_at<T, JAC>(a.r0, dinv, j); });
      if (g.lane == 0) {
        const T ri = __ldcg(&a.r0[row]);
        const T ui = u_at<T, JAC>(a.r0, dinv, row);
        a.w0[row] = sum;
        a.s0[row] = T(0);
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
    if (!cs.step(c.it)) {
      c.breakdown = c.done = 1;
      break;
    }
    const T bt = (T)cs.beta, al = (T)cs.alpha, nal = (T)(-cs.alpha);
    SMV_PH(0);
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t row = g.first; row < a.n; row += g.step) {
      /* The owner's own values first: their loads then travel with the
       * row's offsets, not after the row's sum (one L2 round trip less
       * in the row's chain of dependent loads). */
      T di = T(1), ri = T(0), wi = T(0), si = T(0), po = T(0), xo = T(0);
      if (g.lane == 0) {
        if (JAC)
          di = __ldg(&dinv[row]);
        ri = __ldcg(&rc[row]);
        wi = __ldcg(&wc[row]);
        si = __ldcg(&sc[row]);
        po = a.p[row];
        xo = a.x[row];
      }
      /* u_new at every neighbour j, formed from the old r, w, s there. */
      const T sum = g.row_sum(a, row, [&](int32_t j) {
        const T dj = JAC ? __ldg(&dinv[j]) : T(1);
        return next_at<T, JAC>(__ldcg(&rc[j]), __ldcg(&wc[j]), __ldcg(&sc[j]),
                               dj, bt, nal)
            .u;
      });
      if (g.lane == 0) {
        const cg1_next<T> nx = next_at<T, JAC>(ri, wi, si, di, bt, nal);
        const T ui = JAC ? ri * di : ri;
        const T pi = madd(bt, po, ui);
        a.p[row] = pi;
        a.x[row] = madd(al, pi, xo);
        sn[row] = nx.s;
        rn[row] = nx.r;
        wn[row] = sum;
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
  SMV_PH_END(c.it - c.it0);
  coop_end(a.st, c, a.hist);
  cs.store(a.st);
}

struct cg1_k {
  template <typename T, int LANES, bool JAC, int BS, bool LAST>
  static const void *get() {
    return (const void *)cg1_kernel<T, LANES, JAC, BS, LAST>;
  }
};

} // namespace

const void *cg1_kernel_for(bool f32, bool jac, int lanes, int bs, bool last) {
  return coop_pick<cg1_k>(f32, jac, lanes, bs, last);
}

} // namespace smv_solve
