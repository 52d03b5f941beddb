/*
 * bicgstab_coop.cu — BiCGStab as one persistent cooperative kernel (issue
 * 24): whole iterations, both SpMVs included, in one launch, with grid
 * barriers between the phases instead of the graph path's six launches
 * (bicgstab.cu). cg_coop_plan (cg_coop.cu) chooses it as for CG, under
 * the same refusals and knobs (SMV_SOLVE_COOP, _BLOCK, _PER_SM, _GRID,
 * _LANES; SMV_SOLVE_COOP_BICGSTAB=0 keeps BiCGStab on the graph path),
 * and the driver falls back to the graph path when the launch is
 * refused.
 *
 * The same steps and scalars as bicgstab.cu and the CPU version
 * (src/solve/solve_cpu_body.h): right Jacobi preconditioning (phat =
 * dinv p, shat = dinv s), the half step (||s|| / ||b|| <= tol: omega = 0,
 * x += alpha phat, r = s), breakdown when rhat.v, rho or rhat.r is zero
 * or not finite or omega is zero. Three phases, three grid barriers an
 * iteration:
 *
 *   phase A  p_new = r + beta (p_old - omega v_old) and v_new = A phat,
 *            phat = dinv p_new: a row group of LANES threads gathers
 *            r, p_old, v_old at every neighbour j and forms phat[j]
 *            itself (madd, the owner's bits); the owner stores p_new and
 *            v_new and adds rhat.v_new to the block's partial.
 *                                                  -> barrier: alpha
 *   phase B  s = r - alpha v_new and t = A shat, shat = dinv s, gathered
 *            the same way from r and v_new; the owner stores s and t and
 *            adds s.s, t.s, t.t.                 -> barrier: the half
 *            step test on s.s, omega = t.s / t.t (0 at the half step)
 *   phase C  x += alpha phat + omega shat, r = s - omega t (the owner's
 *            row only: no gather); r.r, rhat.r   -> barrier: the residual,
 *            the stop test, breakdown, beta, rho
 *
 * Why three. Each SpMV needs the barrier before it (its input is formed
 * from vectors other blocks write), and beta needs rhat.r of the r that
 * phase C writes, so C cannot run inside the next A. Two barriers are
 * possible by summing rhat.s, rhat.t, s.s, t.s, t.t in phase B and taking
 * rho_new = rhat.s - omega rhat.t and r.r = s.s - 2 omega t.s + omega^2
 * t.t, then running C inside the next A (r gathered as s - omega t): that
 * changes the rounding of rho and of the stop test (r.r by cancellation)
 * and so the iteration counts, hence not the first version.
 *
 * Buffers. p and v are read at neighbour rows in phase A while their
 * owners write the new ones, so each is double-buffered by the
 * iteration's parity (p0 / p1 in P / P2, v0 / v1 in Q / Z: cg_coop.cu,
 * args_of); s and t are written in phase B and read in phase C only;
 * phat and shat are never stored (recomputed: dinv p, dinv s). The
 * partials are one set per phase (1 + 3 + 2 doubles a block): a block
 * writes phase B's while another still sums phase A's.
 *
 * Bytes per iteration (es = sizeof T): the matrix twice, 2 (nnz (4 + es)
 * + 4 (n + 1)); the owners' vector traffic about 14 n es (16 with
 * Jacobi); the gathers read r, p_old, v_old (phase A) and r, v_new
 * (phase B) at every neighbour (+ dinv), from the L2 (__ldcg: other
 * blocks wrote them). Footprint that must sit in the L2: the matrix and
 * x b r rhat p0 p1 v0 v1 s t (+ dinv), 10 (11) vectors.
 *
 * Where it loses: three grid-wide sums an iteration, each a grid
 * barrier (cg1 has one; cg_coop.h, coop_sum: the last block to arrive
 * sums, or with SMV_SOLVE_COOP_SUM=all every block after grid.sync); the
 * gathers cost three vector loads and two fma per entry in phase A (two and one
 * in B) against the graph path's one; at the half step t = A shat is formed
 * though unused (every block learns of the half step only after the barrier).
 * On a matrix past the L2 the graph path's tuned SpMV wins: the plan refuses it
 * there unless persistent = 1.
 *
 * Determinism: every gathered value is the owner's bits (one function,
 * explicit fma); the partials and their fixed-order sums follow the
 * grid, fixed by the device and the knobs: the same bits on every run
 * (not the graph path's bits: its SpMV and its grid differ).
 */
#include "cg_coop.h"

namespace smv_solve {
namespace {

/* p_new = r + beta (p - omega v) at one row. */
template <typename T>
__device__ __forceinline__ T p_next(T r, T p, T v, T bt, T nom) {
  return madd(bt, madd(nom, v, p), r);
}

template <typename T, bool JAC>
__device__ __forceinline__ T precond(T x, const T *dinv, int64_t j) {
  return JAC ? x * __ldg(&dinv[j]) : x;
}

template <typename T, int LANES, bool JAC, int BS, bool LAST>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    bicgstab_coop_kernel(coop_args<T> a) {
  __shared__ double sh_blk[3 * 32], sh_all[3 * 32];
  coop_sum<LAST> gsum(a);
  coop_run c = coop_begin(a.st);
  if (c.done)
    return;
  const int G = (int)gridDim.x;
  double rho = a.st->rho, beta = a.st->beta, omega = a.st->omega;
  double alpha = a.st->alpha;
  const coop_rows<LANES, BS> g;
  const T *dinv = a.dinv;
  const T *r = a.r, *rh = a.rh;
  double *partA = a.part, *partB = a.part + G, *partC = a.part + 4 * G;
  while (c.it < a.it_end) {
    const int par = c.it & 1;
    const T *po = par ? a.p1 : a.p0, *vo = par ? a.v1 : a.v0;
    T *pn = par ? a.p0 : a.p1, *vn = par ? a.v0 : a.v1;
    const T bt = (T)beta, nom = (T)(-omega);
    /* phase A: p_new, v = A phat, rhat.v */
    double acc[3] = {0.0, 0.0, 0.0};
    for (int64_t row = g.first; row < a.n; row += g.step) {
      const T sum = g.row_sum(a, row, [&](int32_t j) {
        return precond<T, JAC>(
            p_next(__ldcg(&r[j]), __ldcg(&po[j]), __ldcg(&vo[j]), bt, nom),
            dinv, j);
      });
      if (g.lane == 0) {
        pn[row] = p_next(__ldcg(&r[row]), __ldcg(&po[row]), __ldcg(&vo[row]),
                         bt, nom);
        vn[row] = sum;
        acc[0] += (double)__ldg(&rh[row]) * (double)sum;
      }
    }
    double rv[1] = {acc[0]};
    gsum(rv, partA, sh_blk, sh_all);
    if (rv[0] == 0.0 || !finite(rv[0]) || rho == 0.0 || !finite(rho)) {
      c.breakdown = c.done = 1;
      break;
    }
    alpha = rho / rv[0];
    const T nal = (T)(-alpha);
    /* phase B: s, t = A shat; s.s, t.s, t.t */
    acc[0] = acc[1] = acc[2] = 0.0;
    for (int64_t row = g.first; row < a.n; row += g.step) {
      const T sum = g.row_sum(a, row, [&](int32_t j) {
        return precond<T, JAC>(madd(nal, __ldcg(&vn[j]), __ldcg(&r[j])), dinv,
                               j);
      });
      if (g.lane == 0) {
        const T si = madd(nal, __ldcg(&vn[row]), __ldcg(&r[row]));
        a.sv[row] = si;
        a.t[row] = sum;
        acc[0] += (double)si * (double)si;
        acc[1] += (double)sum * (double)si;
        acc[2] += (double)sum * (double)sum;
      }
    }
    double stt[3] = {acc[0], acc[1], acc[2]};
    gsum(stt, partB, sh_blk, sh_all);
    if (sqrt(stt[0]) / c.bnorm <= c.tol)
      omega = 0.0; /* converged at the half step: x += alpha phat, r = s */
    else
      omega = stt[2] != 0.0 ? stt[1] / stt[2] : 0.0;
    /* phase C: x, r; r.r, rhat.r */
    const T al = (T)alpha, w = (T)omega;
    acc[0] = acc[1] = 0.0;
    GRID_STRIDE(i, a.n) {
      const T si = __ldcg(&a.sv[i]);
      const T ri = w != T(0) ? si - w * __ldcg(&a.t[i]) : si;
      const T phi = precond<T, JAC>(__ldcg(&pn[i]), dinv, i);
      const T shi = w != T(0) ? w * precond<T, JAC>(si, dinv, i) : T(0);
      a.x[i] += al * phi + shi;
      a.r[i] = ri;
      acc[0] += (double)ri * (double)ri;
      acc[1] += (double)__ldg(&rh[i]) * (double)ri;
    }
    double rr[2] = {acc[0], acc[1]};
    gsum(rr, partC, sh_blk, sh_all);
    const bool stop = coop_step(c, rr[0], a.hist);
    if (!stop && (rr[1] == 0.0 || !finite(rr[1]) || omega == 0.0))
      c.breakdown = c.done = 1;
    beta = (rr[1] / rho) * (alpha / omega);
    rho = rr[1];
    if (c.done)
      break;
  }
  coop_end(a.st, c, a.hist);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.st->rho = rho;
    a.st->beta = beta;
    a.st->omega = omega;
    a.st->alpha = alpha;
  }
}

struct bicgstab_k {
  template <typename T, int LANES, bool JAC, int BS, bool LAST>
  static const void *get() {
    return (const void *)bicgstab_coop_kernel<T, LANES, JAC, BS, LAST>;
  }
};

} // namespace

const void *bicgstab_coop_kernel_for(bool f32, bool jac, int lanes, int bs,
                                     bool last) {
  return coop_pick<bicgstab_k>(f32, jac, lanes, bs, last);
}

} // namespace smv_solve
