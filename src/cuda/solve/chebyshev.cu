/*
 * chebyshev.cu — the Chebyshev polynomial preconditioner on the device
 * (SMV_PRECOND_CHEBYSHEV, CG's graph path): z = p(D^-1 A) D^-1 r with the
 * coefficients of smv_solve_cheb_coeffs (src/solve/solve_common.c, the
 * CPU's too). One application is a first kernel (d = D^-1 r / theta,
 * z = d) and `degree` steps of an SpMV w = A z (smv_spmv, captured with
 * the rest of the iteration) and a kernel d = c1 d + c2 D^-1 (r - w),
 * z += d; then cheb_rz_kernel sums r.z for CG's rho and beta. Per step
 * the kernel reads r, w, d, z, dinv and writes d, z: 7 n sizeof T bytes.
 */
#include "solver.h"

namespace smv_solve {
namespace {

/* max_i sum_j |a_ij| / |a_ii| as the bits of a non-negative double
 * (atomicMax on them is the maximum: exact, any order). */
template <typename T>
__global__ void cheb_bound_kernel(int64_t n, const int32_t *rp,
                                  const int32_t *ci, const T *val,
                                  unsigned long long *out) {
  double m = 0.0;
  GRID_STRIDE(i, n) {
    double row = 0.0, d = 0.0;
    for (int32_t k = rp[i]; k < rp[i + 1]; k++) {
      const double v = (double)val[k];
      row += fabs(v);
      if (ci[k] == i)
        d += v;
    }
    if (d != 0.0)
      m = fmax(m, row / fabs(d));
  }
  if (m > 0.0)
    atomicMax(out, (unsigned long long)__double_as_longlong(m));
}

template <typename T>
__global__ void cheb_first_kernel(int64_t n, const T *r, T *z, T *d,
                                  const T *dinv, double inv_theta,
                                  const solve_state *st) {
  smv_pdl_wait();
  if (st->s.done)
    return;
  GRID_STRIDE(i, n) {
    const T di = (T)((double)r[i] * (double)dinv[i] * inv_theta);
    d[i] = di;
    z[i] = di;
  }
}

template <typename T>
__global__ void cheb_step_kernel(int64_t n, const T *r, const T *w, T *z, T *d,
                                 const T *dinv, double c1, double c2,
                                 const solve_state *st) {
  smv_pdl_wait();
  if (st->s.done)
    return;
  GRID_STRIDE(i, n) {
    const T di =
        (T)(c1 * (double)d[i] + c2 * (double)dinv[i] * (double)(r[i] - w[i]));
    d[i] = di;
    z[i] += di;
  }
}

/* r.z: at the start rho = r.z and p = z; in the loop beta = r.z / rho,
 * rho = r.z (cg_update left rho alone). */
template <typename T>
__global__ void cheb_rz_kernel(int64_t n, const T *r, const T *z, T *p,
                               bool start, solve_state *st, double *part) {
  smv_pdl_wait();
  if (st->s.done)
    return;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) {
    acc[0] += (double)r[i] * (double)z[i];
    if (start)
      p[i] = z[i];
  }
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0) {
    if (!start)
      st->beta = acc[0] / st->rho;
    st->rho = acc[0];
  }
}

} // namespace

template <typename T> smv_status cheb_setup(solver &S) {
  smv_status s = S.setup_jacobi<T>(); /* dinv, and the diagonal checked */
  if (s != SMV_OK)
    return s;
  unsigned long long *d = (unsigned long long *)S.part; /* scratch */
  unsigned long long h = 0ull;
  cudaError_t e;
  if ((e = cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice,
                           S.stream)) != cudaSuccess)
    return S.fail(e, "cudaMemcpyAsync (Chebyshev bound)");
  cheb_bound_kernel<T><<<S.grid, RB, 0, S.stream>>>(
      S.n, S.dA->row_ptr, S.dA->col_idx, (const T *)S.dA->values, d);
  if ((s = S.launched("cheb_bound_kernel")) != SMV_OK)
    return s;
  if ((e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost,
                           S.stream)) != cudaSuccess ||
      (e = cudaStreamSynchronize(S.stream)) != cudaSuccess)
    return S.fail(e, "Chebyshev bound (copy back)");
  double lmax;
  memcpy(&lmax, &h, sizeof lmax);
  smv_solve_cheb_coeffs(lmax, S.o.cheb_degree, &S.cheb);
  return SMV_OK;
}

template <typename T> smv_status cheb_apply(solver &S, bool start) {
  smv_status s;
  const T *r = S.V<T>(V_R), *dinv = S.V<T>(V_DINV);
  T *z = S.V<T>(V_Z), *d = S.V<T>(V_CD), *w = S.V<T>(V_CW);
  S.go(cheb_first_kernel<T>, S.grid, S.n, r, z, d, dinv, S.cheb.inv_theta,
       S.st);
  if ((s = S.launched("cheb_first_kernel")) != SMV_OK)
    return s;
  for (int j = 0; j < S.cheb.degree; j++) {
    if ((s = S.spmv(z, w)) != SMV_OK)
      return s;
    S.go(cheb_step_kernel<T>, S.grid, S.n, r, (const T *)w, z, d, dinv,
         S.cheb.c1[j], S.cheb.c2[j], S.st);
    if ((s = S.launched("cheb_step_kernel")) != SMV_OK)
      return s;
  }
  S.go(cheb_rz_kernel<T>, S.grid, S.n, r, (const T *)z, S.V<T>(V_P), start,
       S.st, S.part);
  return S.launched("cheb_rz_kernel");
}

template smv_status cheb_setup<float>(solver &);
template smv_status cheb_setup<double>(solver &);
template smv_status cheb_apply<float>(solver &, bool);
template smv_status cheb_apply<double>(solver &, bool);

} // namespace smv_solve
