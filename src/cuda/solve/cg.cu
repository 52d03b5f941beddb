/*
 * cg.cu — CG on the graph path: per iteration the SpMV q = A p (smv_spmv,
 * the AUTO rung) and three fused kernels, each ending in a deterministic
 * grid reduction (solver.h):
 *   alpha_kernel      p.q -> alpha = rho / p.q
 *   cg_update_kernel  x += alpha p, r -= alpha q, z = dinv r; r.z, r.r
 *                     -> beta, rho, the residual and the stop test
 *   cg_p_kernel       p = z + beta p
 * Preconditioned CG is Saad's Algorithm 9.1 with z = M^-1 r (M = diag(A)
 * for Jacobi, fused into the update; Chebyshev's polynomial runs between
 * the update and the p kernel, chebyshev.cu); without a preconditioner z
 * aliases r. Vectors are n T
 * (8 or 4 bytes); the update reads x, r, p, q (and dinv) and writes x, r
 * (and z).
 */
#include "solver.h"

namespace smv_solve {
namespace {

/* x += alpha p, r -= alpha q, z = dinv r; r.z and r.r; beta, rho (BETA:
 * with Chebyshev z comes later, and cheb_rz_kernel sets beta and rho). */
template <typename T, bool JAC, bool BETA>
__global__ void cg_update_kernel(int64_t n, T *x, T *r, T *z, const T *p,
                                 const T *q, const T *dinv, solve_state *st,
                                 double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T alpha = (T)st->alpha;
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    x[i] += alpha * p[i];
    const T ri = r[i] - alpha * q[i];
    r[i] = ri;
    T zi = ri;
    if (JAC) {
      zi = ri * dinv[i];
      z[i] = zi;
    }
    acc[0] += (double)ri * (double)zi;
    acc[1] += (double)ri * (double)ri;
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->rr = acc[1];
    finish_iteration(st, hist, sqrt(acc[1]) / st->bnorm);
    if (BETA) {
      st->beta = acc[0] / st->rho;
      st->rho = acc[0];
    }
  }
}

/* p = z + beta p. */
template <typename T>
__global__ void cg_p_kernel(int64_t n, T *p, const T *z,
                            const solve_state *st) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const T beta = (T)st->beta;
  GRID_STRIDE(i, n) p[i] = z[i] + beta * p[i];
}

} // namespace

template <typename T> smv_status cg_iterate(solver &S) {
  smv_status s;
  T *r = S.V<T>(V_R), *p = S.V<T>(V_P), *q = S.V<T>(V_Q);
  const T *dinv = S.V<T>(V_DINV);
  T *z = S.jac || S.chebyshev ? S.V<T>(V_Z) : r;
  if ((s = S.spmv(p, q)) != SMV_OK)
    return s;
  S.go(alpha_kernel<T, true>, S.grid, S.n, p, q, S.st, S.part);
  if (S.jac)
    S.go(cg_update_kernel<T, true, true>, S.grid, S.n, (T *)S.x, r, z, p, q,
         dinv, S.st, S.part, S.hist);
  else if (S.chebyshev)
    S.go(cg_update_kernel<T, false, false>, S.grid, S.n, (T *)S.x, r, r, p, q,
         dinv, S.st, S.part, S.hist);
  else
    S.go(cg_update_kernel<T, false, true>, S.grid, S.n, (T *)S.x, r, z, p, q,
         dinv, S.st, S.part, S.hist);
  if (S.chebyshev) {
    if ((s = S.launched("the CG kernels")) != SMV_OK ||
        (s = cheb_apply<T>(S, false)) != SMV_OK)
      return s;
  }
  S.go(cg_p_kernel<T>, S.grid, S.n, p, (const T *)z, S.st);
  return S.launched("the CG kernels");
}

template smv_status cg_iterate<float>(solver &);
template smv_status cg_iterate<double>(solver &);

} // namespace smv_solve
