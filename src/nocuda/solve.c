/* solve.c (nocuda) — the CUDA solvers' entry points when smv is built
 * without CUDA: they link, and answer SMV_ERR_NO_DEVICE. */
#include "smv_solve.h"

#include <string.h>

static smv_status no_device(smv_solve_result *res) {
  if (res)
    memset(res, 0, sizeof *res);
  return SMV_ERR_NO_DEVICE;
}

smv_status smv_cg_cuda(smv_context *ctx, smv_matrix *dA, const void *b, void *x,
                       const smv_solve_options *opt, smv_solve_result *res) {
  (void)ctx, (void)dA, (void)b, (void)x, (void)opt;
  return no_device(res);
}
smv_status smv_bicgstab_cuda(smv_context *ctx, smv_matrix *dA, const void *b,
                             void *x, const smv_solve_options *opt,
                             smv_solve_result *res) {
  (void)ctx, (void)dA, (void)b, (void)x, (void)opt;
  return no_device(res);
}
smv_status smv_pagerank_cuda(smv_context *ctx, const smv_csr *A,
                             smv_precision prec, double *r,
                             const smv_solve_options *opt,
                             smv_solve_result *res) {
  (void)ctx, (void)A, (void)prec, (void)r, (void)opt;
  return no_device(res);
}
smv_status smv_solve_cuda_host(smv_context *ctx, smv_matrix *dA,
                               smv_method method, const double *b, double *x,
                               const smv_solve_options *opt,
                               smv_solve_result *res) {
  (void)ctx, (void)dA, (void)method, (void)b, (void)x, (void)opt;
  return no_device(res);
}
