/*
 * pagerank.cu — PageRank on the device: the power iteration on the
 * transposed transition matrix PT (built on the host, solve_common.c).
 * Per iteration the dangling mass (one kernel, when there are dangling
 * rows), the SpMV y = PT r (smv_spmv) and pr_update_kernel:
 * r' = d y + d dang / n + (1 - d) v in place, with ||r' - r||_1 as the
 * stop test. smv_pagerank_cuda is the entry point (host CSR in, host
 * vector out).
 */
#include "solver.h"

#include <cstdlib>

namespace smv_solve {
namespace {

/* r = v; the dangling mass of the start. */
template <typename T>
__global__ void pr_start_kernel(int64_t n, T *r, const T *v, solve_state *st,
                                double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  GRID_STRIDE(i, n) r[i] = v[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    st->s.relres = 1.0;
    if (hist && st->hist_len > 0)
      hist[0] = 1.0;
    if (st->maxit == 0)
      st->s.done = 1;
  }
}

/* dang = sum of r over the dangling rows. */
template <typename T>
__global__ void pr_dangling_kernel(int64_t nd, const int32_t *dl, const T *r,
                                   solve_state *st, double *part) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  double acc[1] = {0.0};
  GRID_STRIDE(i, nd) acc[0] += (double)r[dl[i]];
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    st->dang = acc[0];
}

/* After y = PT r: r' = d y + d dang / n + (1 - d) v in place; ||r' - r||_1. */
template <typename T>
__global__ void pr_update_kernel(int64_t n, T *r, const T *y, const T *v,
                                 solve_state *st, double *part, double *hist) {
  smv_pdl_wait(); /* PDL: nothing of the kernel before is read earlier */
  if (st->s.done)
    return;
  const double d = st->damping, shift = d * st->dang * st->inv_n;
  double acc[1] = {0.0};
  GRID_STRIDE(i, n) {
    const T ri = (T)(d * (double)y[i] + shift + (1.0 - d) * (double)v[i]);
    acc[0] += fabs((double)ri - (double)r[i]);
    r[i] = ri;
  }
  if (grid_sum<1>(acc, part, &st->counter) && threadIdx.x == 0)
    finish_iteration(st, hist, acc[0]);
}
} // namespace

template <typename T> smv_status pagerank_start(solver &S) {
  S.go(pr_start_kernel<T>, S.grid, S.n, (T *)S.x, (const T *)S.v, S.st, S.hist);
  return S.launched("pr_start_kernel");
}

/* y in Q. */
template <typename T> smv_status pagerank_iterate(solver &S) {
  smv_status s;
  T *rk = (T *)S.x, *q = S.V<T>(V_Q);
  if (S.nd > 0) {
    const unsigned gd = smv_grid_for(S.nd, RB), g = gd < S.grid ? gd : S.grid;
    S.go(pr_dangling_kernel<T>, g, S.nd, S.dl, rk, S.st, S.part);
  }
  if ((s = S.launched("pr_dangling_kernel")) != SMV_OK ||
      (s = S.spmv(rk, q)) != SMV_OK)
    return s;
  S.go(pr_update_kernel<T>, S.grid, S.n, rk, q, (const T *)S.v, S.st, S.part,
       S.hist);
  return S.launched("pr_update_kernel");
}

template smv_status pagerank_start<float>(solver &);
template smv_status pagerank_start<double>(solver &);
template smv_status pagerank_iterate<float>(solver &);
template smv_status pagerank_iterate<double>(solver &);

} // namespace smv_solve

using namespace smv_solve;

extern "C" smv_status smv_pagerank_cuda(smv_context *ctx, const smv_csr *A,
                                        smv_precision prec, double *r,
                                        const smv_solve_options *opt,
                                        smv_solve_result *res) {
  if (!host_entry(ctx, res))
    return SMV_ERR_ARG;
  smv_solve_options o;
  char why[160];
  if (smv_solve_opts_check(opt, &o, why, sizeof why) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: %s", why);
  if (prec == SMV_F64_F32V) /* its kernels read f64 or f32 values */
    return smv_prec_refuse(ctx, prec, "smv_pagerank_cuda");
  if (prec != SMV_F64 && prec != SMV_F32)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: bad precision");
  smv_error err;
  smv_status s = smv_solve_check_matrix(A, "smv_pagerank_cuda", &err);
  if (s != SMV_OK)
    return smv_ctx_set(ctx, s, "%s", err.message);
  const int64_t n = A->rows;
  if (n > 0 && !r)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_pagerank_cuda: NULL vector");
  smv_csr *PT = nullptr;
  int32_t *dl = nullptr;
  int64_t nd = 0;
  double *v = (double *)malloc(((size_t)n + 1) * sizeof(double));
  if (!v)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "smv_pagerank_cuda: out of memory");
  smv_matrix *dPT = nullptr;
  /* The transition matrix is ours and runs up to maxit SpMVs: reuse is
   * declared, so its plan is measured among the reuse plan's rungs
   * (include/smv.h, SMV_MATRIX_REUSE). */
  smv_matrix_options mo = {};
  mo.flags = SMV_MATRIX_REUSE;
  mo.expected_calls = o.maxit;
  void *dv = nullptr, *dr = nullptr, *ddl = nullptr;
  const size_t es = prec == SMV_F32 ? sizeof(float) : sizeof(double);
  s = smv_pagerank_setup(A, &o, &PT, v, &dl, &nd, &err);
  if (s != SMV_OK) {
    smv_ctx_set(ctx, s, "smv_pagerank_cuda: %s", err.message);
    goto out;
  }
  if ((s = smv_matrix_create_ex(ctx, PT, prec, &mo, &dPT)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dv)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dr)) != SMV_OK ||
      (s = smv_device_malloc(ctx, ((size_t)nd + 1) * sizeof(int32_t), &ddl)) !=
          SMV_OK ||
      (s = upload_vector(ctx, prec, v, dv, n)) != SMV_OK ||
      (nd > 0 && (s = smv_memcpy_h2d(ctx, ddl, dl,
                                     (size_t)nd * sizeof(int32_t))) != SMV_OK))
    goto out;
  s = solve_device(ctx, dPT, SMV_METHOD_PAGERANK, nullptr, dr, dv,
                   (const int32_t *)ddl, nd, &o, res);
  if (s == SMV_OK)
    s = download_vector(ctx, prec, dr, r, n);
out:
  smv_matrix_free(dPT);
  smv_device_free(ctx, dv);
  smv_device_free(ctx, dr);
  smv_device_free(ctx, ddl);
  smv_csr_free(PT);
  free(dl);
  free(v);
  return s;
}
