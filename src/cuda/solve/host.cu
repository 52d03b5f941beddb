/*
 * host.cu — the device solvers on host vectors: smv_solve_cuda_host
 * (b and x as host doubles, whatever the matrix's precision) and the
 * vector copies it and smv_pagerank_cuda use (f32 through a host buffer
 * of floats: 4 bytes per entry each way).
 */
#include "solver.h"

#include <cstdlib>
#include <cstring>

namespace smv_solve {

/* Host double vector <-> device vector of the given precision, one shared
 * body for both directions (to_device picks it); f32 goes through a host
 * buffer of floats. Callers use upload_vector / download_vector. */
namespace {
smv_status move_vector(smv_context *ctx, smv_precision prec, bool to_device,
                       double *h, void *d, int64_t n) {
  if (prec == SMV_F64)
    return to_device ? smv_memcpy_h2d(ctx, d, h, (size_t)n * sizeof(double))
                     : smv_memcpy_d2h(ctx, h, d, (size_t)n * sizeof(double));
  float *t = (float *)malloc(((size_t)n + 1) * sizeof(float));
  if (!t)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "out of host memory (%lld floats)",
                       (long long)n);
  smv_status s;
  if (to_device) {
    for (int64_t i = 0; i < n; i++)
      t[i] = (float)h[i];
    s = smv_memcpy_h2d(ctx, d, t, (size_t)n * sizeof(float));
  } else {
    s = smv_memcpy_d2h(ctx, t, d, (size_t)n * sizeof(float));
    for (int64_t i = 0; s == SMV_OK && i < n; i++)
      h[i] = (double)t[i];
  }
  free(t);
  return s;
}

} // namespace

/* Host doubles `in` -> device vector `d` (n entries, in d's precision). */
smv_status upload_vector(smv_context *ctx, smv_precision prec, const double *in,
                         void *d, int64_t n) {
  return move_vector(ctx, prec, true, (double *)in, d, n); /* only read */
}

/* Device vector `d` -> host doubles `out`. */
smv_status download_vector(smv_context *ctx, smv_precision prec, const void *d,
                           double *out, int64_t n) {
  return move_vector(ctx, prec, false, out, (void *)d, n); /* only read */
}

} // namespace smv_solve

using namespace smv_solve;

extern "C" smv_status smv_solve_cuda_host(smv_context *ctx, smv_matrix *dA,
                                          smv_method method, const double *b,
                                          double *x,
                                          const smv_solve_options *opt,
                                          smv_solve_result *res) {
  if (!host_entry(ctx, res))
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_solve_cuda_host: NULL matrix");
  if (dA->prec == SMV_F64_F32V) /* before any copy: the solvers refuse it */
    return smv_prec_refuse(ctx, dA->prec, "smv_solve_cuda_host");
  if (method != SMV_METHOD_CG && method != SMV_METHOD_BICGSTAB)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_solve_cuda_host: method must be CG or BiCGStab "
                       "(PageRank: smv_pagerank_cuda)");
  const int64_t n = dA->st.rows;
  if (n > 0 && (!b || !x))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_solve_cuda_host: NULL vector");
  /* Aliased b and x would be refused by smv_cg_cuda only after b had
   * been copied over x's device copy's source; refuse them here. Non-finite
   * entries of A and b are found by the solver's pre-pass (A first). */
  if (n > 0 && smv_solve_overlap(b, x, (size_t)n * sizeof(double)))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_solve_cuda_host: b and x overlap (x must be a "
                       "separate array)");
  const size_t es = dA->prec == SMV_F32 ? sizeof(float) : sizeof(double);
  void *db = nullptr, *dx = nullptr;
  smv_status s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &db);
  if (s == SMV_OK)
    s = smv_device_malloc(ctx, ((size_t)n + 1) * es, &dx);
  if (s == SMV_OK)
    s = upload_vector(ctx, dA->prec, b, db, n);
  if (s == SMV_OK && opt && opt->use_x0)
    s = upload_vector(ctx, dA->prec, x, dx, n);
  if (s == SMV_OK)
    s = method == SMV_METHOD_CG ? smv_cg_cuda(ctx, dA, db, dx, opt, res)
                                : smv_bicgstab_cuda(ctx, dA, db, dx, opt, res);
  if (s == SMV_OK)
    s = download_vector(ctx, dA->prec, dx, x, n);
  smv_device_free(ctx, db);
  smv_device_free(ctx, dx);
  return s;
}
