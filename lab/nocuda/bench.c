/* nocuda/bench.c — the lab's timing API without CUDA: every call answers
 * SMV_ERR_NO_DEVICE, so the CLI and tests link and run CPU-only. */
#include "smv_lab.h"

#include <string.h>

smv_status smv_bench_spmv(smv_context *ctx, smv_alg alg, smv_matrix *dA,
                          const void *x, void *y, const smv_bench_options *opt,
                          smv_bench_result *r) {
  (void)ctx, (void)alg, (void)dA, (void)x, (void)y, (void)opt;
  if (r)
    memset(r, 0, sizeof *r);
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_device_copy_bandwidth(smv_context *ctx, size_t bytes,
                                     double *gbps) {
  (void)ctx, (void)bytes;
  if (gbps)
    *gbps = 0;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_bench_spmm(smv_context *ctx, smv_spmm_alg alg, smv_matrix *dA,
                          const void *X, int64_t ldx, void *Y, int64_t ldy,
                          int k, smv_layout layout,
                          const smv_bench_options *opt, smv_bench_result *r) {
  (void)ctx, (void)alg, (void)dA, (void)X, (void)ldx, (void)Y, (void)ldy;
  (void)k, (void)layout, (void)opt;
  if (r) {
    memset(r, 0, sizeof *r);
    strcpy(r->error, "smv was built without CUDA");
  }
  return SMV_ERR_NO_DEVICE;
}
