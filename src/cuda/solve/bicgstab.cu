/*
 * bicgstab.cu — BiCGStab on the graph path: right-preconditioned
 * (M^-1 = dinv), the same steps as the CPU version in
 * src/solve/solve_cpu_body.h. Per iteration two SpMVs (smv_spmv) and four
 * fused kernels:
 *   bi_p_kernel       p = r + beta (p - omega v), phat = dinv p
 *   (v = A phat)  alpha_kernel: rhat.v -> alpha
 *   bi_s_kernel       s = r - alpha v, shat = dinv s; s.s (half step)
 *   (t = A shat)  bi_omega_kernel: t.s, t.t -> omega
 *   bi_update_kernel  x += alpha phat + omega shat, r = s - omega t;
 *                     r.r, rhat.r -> beta, the residual, the stop test
 */
#include "solver.h"

namespace smv_solve {
namespace {

/* p = r + beta (p - omega v); phat = dinv p. */
template <typename T, bool JAC>
__global__ void bi_p_kernel(int64_t n, T *p, T *ph, const T *r, const T *v,
                            const T *dinv, const solve_state *st) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T beta = (T)st->beta, omega = (T)st->omega;
  GRID_STRIDE(i, n) {
    const T pi = r[i] + beta * (p[i] - omega * v[i]);
    p[i] = pi;
    if (JAC)
      ph[i] = pi * dinv[i];
  }
}

/* s = r - alpha v, shat = dinv s; s.s decides the half step. */
template <typename T, bool JAC>
__global__ void bi_s_kernel(int64_t n, T *s, T *sh, const T *r, const T *v,
                            const T *dinv, solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) {
    const T si = r[i] - alpha * v[i];
    s[i] = si;
    if (JAC)
      sh[i] = si * dinv[i];
    acc[0] += (double)si * (double)si;
  }
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    st->half = sqrt(acc[0]) / st->bnorm <= st->tol;
}

/* After t = A shat: omega = t.s / t.t (0 at a converged half step). */
template <typename T>
__global__ void bi_omega_kernel(int64_t n, const T *t, const T *s,
                                solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done || st->half) {
    if (!st->s.done && blockIdx.x == 0 && threadIdx.x == 0)
      st->omega = 0.0;
    return;
  }
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    acc[0] += (double)t[i] * (double)s[i];
    acc[1] += (double)t[i] * (double)t[i];
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0)
    st->omega = acc[1] != 0.0 ? acc[0] / acc[1] : 0.0;
}

/* x += alpha phat + omega shat, r = s - omega t; r.r, rhat.r; beta. */
template <typename T>
__global__ void bi_update_kernel(int64_t n, T *x, T *r, const T *ph,
                                 const T *sh, const T *s, const T *t,
                                 const T *rh, solve_state *st, double *part,
                                 double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha, w = (T)st->omega;
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    const T ri = w != (T)0 ? s[i] - w * t[i] : s[i];
    x[i] += alpha * ph[i] + (w != (T)0 ? w * sh[i] : (T)0);
    r[i] = ri;
    acc[0] += (double)ri * (double)ri;
    acc[1] += (double)rh[i] * (double)ri;
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->rr = acc[0];
    finish_iteration(st, hist, sqrt(acc[0]) / st->bnorm);
    if (!st->s.done && (acc[1] == 0.0 || !finite(acc[1]) || st->omega == 0.0)) {
      st->s.breakdown = 1;
      st->s.done = 1;
    }
    st->beta = (acc[1] / st->rho) * (st->alpha / st->omega);
    st->rho = acc[1];
    st->half = 0;
  }
}
} // namespace

template <typename T> smv_status bicgstab_iterate(solver &S) {
  smv_status s;
  const int64_t n = S.n;
  const unsigned grid = S.grid;
  T *r = S.V<T>(V_R), *p = S.V<T>(V_P);
  const T *dinv = S.V<T>(V_DINV);
  T *v = S.V<T>(V_Q), *rh = S.V<T>(V_RH), *sv = S.V<T>(V_S), *t = S.V<T>(V_T);
  T *ph = S.jac ? S.V<T>(V_PH) : p, *sh = S.jac ? S.V<T>(V_SH) : sv;
  if (S.jac)
    S.go(bi_p_kernel<T, true>, grid, n, p, ph, r, v, dinv, S.st);
  else
    S.go(bi_p_kernel<T, false>, grid, n, p, ph, r, v, dinv, S.st);
  if ((s = S.launched("bi_p_kernel")) != SMV_OK ||
      (s = S.spmv(ph, v)) != SMV_OK)
    return s;
  S.go(alpha_kernel<T, false>, grid, n, rh, v, S.st, S.part);
  if (S.jac)
    S.go(bi_s_kernel<T, true>, grid, n, sv, sh, r, v, dinv, S.st, S.part);
  else
    S.go(bi_s_kernel<T, false>, grid, n, sv, sh, r, v, dinv, S.st, S.part);
  if ((s = S.launched("the BiCGStab kernels")) != SMV_OK ||
      (s = S.spmv(sh, t)) != SMV_OK)
    return s;
  S.go(bi_omega_kernel<T>, grid, n, t, sv, S.st, S.part);
  S.go(bi_update_kernel<T>, grid, n, (T *)S.x, r, ph, sh, sv, t, rh, S.st,
       S.part, S.hist);
  return S.launched("the BiCGStab kernels");
}

template smv_status bicgstab_iterate<float>(solver &);
template smv_status bicgstab_iterate<double>(solver &);

} // namespace smv_solve
