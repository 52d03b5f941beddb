/*
 * setup.cu — what every device solve does before and after its
 * iterations: the pre-pass over A and b (non-finite entries, the scale of
 * b), the Jacobi diagonal, the start (r = b - A x0, z, p, the norms) and
 * the finish (x unscaled; f32's true residual).
 */
#include "solver.h"

#include <climits>
#include <cstring>

namespace smv_solve {
namespace {

/* What the pre-pass finds: the first row with a non-finite entry, the
 * first non-finite b[i] (INT_MAX: none) and max |b[i]| as the bits of a
 * non-negative double (ordered like the value, so atomicMax on them is
 * the maximum). 16 bytes, in the `part` scratch before the start. */
struct prepass_out {
  int bad_row, bad_b;
  unsigned long long bmax_bits;
};

/* One thread per row (grid-stride): A's entries and b[i]. */
template <typename T>
__global__ void prepass_kernel(int64_t n, const int32_t *rp, const T *val,
                               const T *b, prepass_out *out) {
  double m = 0.0;
  GRID_STRIDE(i, n) {
    for (int32_t k = rp[i]; k < rp[i + 1]; k++)
      if (!finite((double)val[k])) {
        atomicMin(&out->bad_row, (int)i);
        break;
      }
    const double bi = (double)b[i];
    if (!finite(bi))
      atomicMin(&out->bad_b, (int)i);
    else
      m = fmax(m, fabs(bi));
  }
  if (m > 0.0)
    atomicMax(&out->bmax_bits, (unsigned long long)__double_as_longlong(m));
}

template <typename T>
__global__ void diag_inv_kernel(int64_t n, const int32_t *rp, const int32_t *ci,
                                const T *val, T *dinv, int *bad) {
  GRID_STRIDE(i, n) {
    double d = 0.0;
    for (int32_t k = rp[i]; k < rp[i + 1]; k++)
      if (ci[k] == i)
        d += (double)val[k];
    if (d == 0.0 || !finite(d))
      atomicMin(bad, (int)i);
    dinv[i] = (T)(1.0 / d);
  }
}

/* v *= s (s a power of two: exact). */
template <typename T> __global__ void scale_kernel(int64_t n, T *v, T s) {
  smv_pdl_wait();
  GRID_STRIDE(i, n) v[i] *= s;
}

/* r = bs b - q (use_x0: q = A x0, x0 already scaled by bs) or bs b;
 * z = dinv r (JAC); p = z; rhat = r (BiCGStab, when rh is set; then p = 0
 * and v = 0). Sums b.b, r.r, r.z. */
template <typename T, bool JAC>
__global__ void start_kernel(int64_t n, const T *b, T bs, const T *q, T *r,
                             T *z, T *p, T *rh, T *v, const T *dinv,
                             solve_state *st, double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  double acc[3] = {0.0, 0.0, 0.0};
  GRID_STRIDE(i, n) {
    const T bi = b[i] * bs;
    const T ri = q ? bi - q[i] : bi;
    r[i] = ri;
    T zi = ri;
    if (JAC) {
      zi = ri * dinv[i];
      z[i] = zi;
    }
    if (rh) {
      rh[i] = ri;
      p[i] = 0;
      v[i] = 0;
    } else {
      p[i] = zi;
    }
    acc[0] += (double)bi * (double)bi;
    acc[1] += (double)ri * (double)ri;
    acc[2] += (double)ri * (double)zi;
  }
  if (grid_sum<3>(acc, part, &st->counter) && threadIdx.x == 0) {
    st->bnorm = sqrt(acc[0]);
    st->rr = acc[1];
    const double relres = acc[0] > 0.0 ? sqrt(acc[1]) / st->bnorm : 0.0;
    st->s.relres = relres;
    if (hist && st->hist_len > 0)
      hist[0] = relres;
    st->s.zero_rhs = acc[0] == 0.0;
    if (acc[0] == 0.0 || relres <= st->tol) {
      st->s.converged = 1;
      st->s.done = 1;
    } else if (st->maxit == 0 || !finite(relres)) {
      st->s.breakdown = !finite(relres);
      st->s.done = 1;
    }
    if (rh) { /* BiCGStab: rho = alpha = omega = 1, so beta = rho_new */
      st->rho = acc[1];
      st->beta = acc[1];
      st->alpha = st->omega = 1.0;
      st->half = 0;
    } else {
      st->rho = acc[2];
      st->beta = 0.0; /* the persistent CG's first p = z + 0 p */
    }
  }
}

/* ||b - A x||^2 and ||b||^2 in double, one thread per row, into part[0]
 * and part[1] (the last block). */
template <typename T>
__global__ void true_residual_kernel(int64_t n, const int32_t *rp,
                                     const int32_t *ci, const T *val,
                                     const T *b, const T *x, solve_state *st,
                                     double *part, double *out) {
  smv_pdl_wait();
  double acc[2] = {0.0, 0.0};
  GRID_STRIDE(i, n) {
    double s = 0.0;
    for (int32_t k = rp[i]; k < rp[i + 1]; k++)
      s += (double)val[k] * (double)x[ci[k]];
    const double d = (double)b[i] - s;
    acc[0] += d * d;
    acc[1] += (double)b[i] * (double)b[i];
  }
  if (grid_sum<2>(acc, part, &st->counter) && threadIdx.x == 0) {
    out[0] = acc[0];
    out[1] = acc[1];
  }
}

} // namespace

template <typename T> smv_status solver::prepass() {
  prepass_out h = {INT_MAX, INT_MAX, 0ull};
  prepass_out *d = (prepass_out *)part; /* scratch until the start */
  cudaError_t e;
  if ((e = cudaMemcpyAsync(d, &h, sizeof h, cudaMemcpyHostToDevice, stream)) !=
      cudaSuccess)
    return fail(e, "cudaMemcpyAsync (input check)");
  prepass_kernel<T><<<grid, RB, 0, stream>>>(
      n, dA->row_ptr, (const T *)dA->values, (const T *)b, d);
  smv_status s = launched("the input check");
  if (s != SMV_OK)
    return s;
  if ((e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, stream)) !=
          cudaSuccess ||
      (e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return fail(e, "input check (copy back)");
  if (h.bad_row != INT_MAX)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "row %d of the matrix has an entry that is not finite "
                       "(NaN or Inf)",
                       h.bad_row + 1);
  if (h.bad_b != INT_MAX)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "b[%d] is not finite", h.bad_b);
  double bmax;
  memcpy(&bmax, &h.bmax_bits, sizeof bmax);
  bscale = smv_solve_rhs_scale(bmax);
  return SMV_OK;
}

template <typename T> smv_status solver::setup_jacobi() {
  /* The first bad row, in the `part` scratch (the pre-pass is over and
   * the start has not begun): no allocation of its own, whose cudaFree
   * would synchronise the device on every call. */
  int *bad = (int *)part;
  int h = INT_MAX;
  cudaError_t e;
  if ((e = cudaMemcpyAsync(bad, &h, sizeof h, cudaMemcpyHostToDevice,
                           stream)) != cudaSuccess)
    return fail(e, "cudaMemcpyAsync (Jacobi check)");
  diag_inv_kernel<T><<<grid, RB, 0, stream>>>(
      n, dA->row_ptr, dA->col_idx, (const T *)dA->values, V<T>(V_DINV), bad);
  smv_status st = launched("the Jacobi diagonal");
  if (st != SMV_OK)
    return st;
  if ((e = cudaMemcpyAsync(&h, bad, sizeof h, cudaMemcpyDeviceToHost,
                           stream)) != cudaSuccess ||
      (e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return fail(e, "Jacobi check (copy back)");
  if (h != INT_MAX)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "row %d: the diagonal entry is zero, missing or not "
                       "finite; Jacobi preconditioning divides by it (use no "
                       "preconditioner)",
                       h + 1);
  return SMV_OK;
}

template <typename T> smv_status solver::start() {
  smv_status s;
  if (method == SMV_METHOD_PAGERANK)
    return pagerank_start<T>(*this);
  const T *q = nullptr;
  if (o.use_x0) {
    if (bscale != 1.0) {
      go(scale_kernel<T>, grid, n, (T *)x, (T)bscale);
      if ((s = launched("scale_kernel")) != SMV_OK)
        return s;
    }
    if ((s = spmv(x, vec[V_Q])) != SMV_OK)
      return s;
    q = V<T>(V_Q);
  } else {
    cudaError_t e = cudaMemsetAsync(x, 0, (size_t)n * sizeof(T), stream);
    if (e != cudaSuccess)
      return fail(e, "cudaMemsetAsync (x = 0)");
  }
  const bool bi = method == SMV_METHOD_BICGSTAB;
  T *rh = bi ? V<T>(V_RH) : nullptr;
  T *vv = bi ? V<T>(V_Q) : nullptr; /* BiCGStab's v lives in Q */
  const T bs = (T)bscale;
  /* BiCGStab starts from r alone (no z: its preconditioner acts on p and
   * s inside the iteration). */
  if (jac && !bi)
    go(start_kernel<T, true>, grid, n, (const T *)b, bs, q, V<T>(V_R),
       V<T>(V_Z), V<T>(V_P), rh, vv, V<T>(V_DINV), st, part, hist);
  else
    go(start_kernel<T, false>, grid, n, (const T *)b, bs, q, V<T>(V_R),
       V<T>(V_R), V<T>(V_P), rh, vv, nullptr, st, part, hist);
  if ((s = launched("start_kernel")) != SMV_OK || !chebyshev)
    return s;
  return cheb_apply<T>(*this, true); /* z = M^-1 r, rho = r.z, p = z */
}

template <typename T> smv_status solver::finish(smv_solve_result *res) {
  smv_status s;
  if (method == SMV_METHOD_PAGERANK)
    return SMV_OK;
  if (bscale != 1.0) {
    go(scale_kernel<T>, grid, n, (T *)x, (T)(1.0 / bscale));
    if ((s = launched("scale_kernel")) != SMV_OK)
      return s;
  }
  /* f32: "converged" means the true residual, recomputed in double, meets
   * tol too; the float recurrence keeps shrinking past what float
   * vectors can hold (issue 25 item 12). */
  if (prec != SMV_F32 || !res->converged)
    return SMV_OK;
  go(true_residual_kernel<T>, grid, n, dA->row_ptr, dA->col_idx,
     (const T *)dA->values, (const T *)b, (const T *)x, st, part,
     part + 2 * grid);
  if ((s = launched("true_residual_kernel")) != SMV_OK)
    return s;
  double h[2];
  cudaError_t e;
  if ((e = cudaMemcpyAsync(h, part + 2 * grid, sizeof h, cudaMemcpyDeviceToHost,
                           stream)) != cudaSuccess ||
      (e = cudaStreamSynchronize(stream)) != cudaSuccess)
    return fail(e, "true residual (copy back)");
  smv_solve_true_check(res, h[0], h[1], o.tol);
  return SMV_OK;
}

template smv_status solver::prepass<float>();
template smv_status solver::prepass<double>();
template smv_status solver::setup_jacobi<float>();
template smv_status solver::setup_jacobi<double>();
template smv_status solver::start<float>();
template smv_status solver::start<double>();
template smv_status solver::finish<float>(smv_solve_result *);
template smv_status solver::finish<double>(smv_solve_result *);

} // namespace smv_solve
