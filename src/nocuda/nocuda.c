/* nocuda.c — the engine's API when smv is built without CUDA (CUDA=0):
 * everything links, and every device call answers SMV_ERR_NO_DEVICE so
 * callers (the CLI's --backend auto) fall back to the CPU path. */
#include "smv_lab.h"

#include <string.h>

smv_status smv_context_create(int device, smv_context **ctx) {
  (void)device;
  if (ctx)
    *ctx = NULL;
  return SMV_ERR_NO_DEVICE;
}
void smv_context_free(smv_context *ctx) { (void)ctx; }
const char *smv_context_error(const smv_context *ctx) {
  (void)ctx;
  return "smv was built without CUDA";
}
smv_status smv_context_set_stream(smv_context *ctx, void *s) {
  (void)ctx, (void)s;
  return SMV_ERR_NO_DEVICE;
}
void *smv_context_stream(const smv_context *ctx) {
  (void)ctx;
  return NULL;
}
smv_status smv_context_set_block_size(smv_context *ctx, int block) {
  (void)ctx, (void)block;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_device_props_get(smv_context *ctx, smv_device_props *p) {
  (void)ctx;
  if (p)
    memset(p, 0, sizeof *p);
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_matrix_create(smv_context *ctx, const smv_csr *A,
                             smv_precision prec, smv_matrix **dA) {
  (void)ctx, (void)A, (void)prec;
  if (dA)
    *dA = NULL;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_matrix_create_ex(smv_context *ctx, const smv_csr *A,
                                smv_precision prec,
                                const smv_matrix_options *opt,
                                smv_matrix **dA) {
  (void)opt;
  return smv_matrix_create(ctx, A, prec, dA);
}
smv_status smv_matrix_prepare(smv_context *ctx, smv_matrix *dA, smv_alg alg) {
  (void)ctx, (void)dA, (void)alg;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_matrix_tune(smv_context *ctx, smv_matrix *dA, int runs) {
  (void)ctx, (void)dA, (void)runs;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_matrix_plan(const smv_matrix *dA, smv_matrix_plan_info *p) {
  (void)dA;
  if (p)
    memset(p, 0, sizeof *p);
  return SMV_ERR_NO_DEVICE;
}
size_t smv_matrix_device_bytes(const smv_matrix *dA) {
  (void)dA;
  return 0;
}
void smv_matrix_free(smv_matrix *dA) { (void)dA; }
smv_precision smv_matrix_precision(const smv_matrix *dA) {
  (void)dA;
  return SMV_F64;
}
void smv_matrix_dims(const smv_matrix *dA, int64_t *rows, int64_t *cols,
                     int64_t *nnz) {
  (void)dA;
  if (rows)
    *rows = 0;
  if (cols)
    *cols = 0;
  if (nnz)
    *nnz = 0;
}
smv_status smv_spmv(smv_context *ctx, smv_alg alg, double alpha, smv_matrix *dA,
                    const void *x, double beta, void *y) {
  (void)ctx, (void)alg, (void)alpha, (void)dA, (void)x, (void)beta, (void)y;
  return SMV_ERR_NO_DEVICE;
}
/* The other SpMV and SpMM forms answer as smv_spmv and smv_spmm do. */
smv_status smv_spmv_host_vectors(smv_context *ctx, smv_alg alg, double alpha,
                                 smv_matrix *dA, const double *x, double beta,
                                 double *y) {
  return smv_spmv(ctx, alg, alpha, dA, x, beta, y);
}
smv_status smv_spmv_host(smv_context *ctx, smv_alg alg, double alpha,
                         smv_matrix *dA, const double *x, double beta,
                         double *y) {
  return smv_spmv(ctx, alg, alpha, dA, x, beta, y);
}
smv_status smv_device_malloc(smv_context *ctx, size_t bytes, void **p) {
  (void)ctx, (void)bytes;
  if (p)
    *p = NULL;
  return SMV_ERR_NO_DEVICE;
}
void smv_device_free(smv_context *ctx, void *p) { (void)ctx, (void)p; }
smv_status smv_memcpy_h2d(smv_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  (void)ctx, (void)dst, (void)src, (void)bytes;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_memcpy_d2h(smv_context *ctx, void *dst, const void *src,
                          size_t bytes) {
  (void)ctx, (void)dst, (void)src, (void)bytes;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_synchronize(smv_context *ctx) {
  (void)ctx;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_kernel_attributes(smv_context *ctx, smv_alg alg,
                                 smv_precision prec, int block,
                                 smv_kernel_attrs *out) {
  (void)ctx, (void)alg, (void)prec, (void)block;
  if (out)
    memset(out, 0, sizeof *out);
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_kernel_occupancy_cuda(smv_context *ctx, smv_alg alg,
                                     smv_precision prec, int block,
                                     int *blocks_per_sm) {
  (void)ctx, (void)alg, (void)prec, (void)block;
  if (blocks_per_sm)
    *blocks_per_sm = 0;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_kernel_default_block(smv_context *ctx, smv_alg alg,
                                    smv_precision prec, int *block) {
  (void)ctx, (void)alg, (void)prec;
  if (block)
    *block = 0;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_matrix_launch_block(smv_context *ctx, const smv_matrix *dA,
                                   smv_alg alg, int *block) {
  (void)ctx, (void)dA, (void)alg;
  if (block)
    *block = 0;
  return SMV_ERR_NO_DEVICE;
}
/* Transposed SpMV and SpMM (src/cuda/engine/transpose.cu, spmm_*.cu). */
smv_status smv_matrix_prepare_transpose(smv_context *ctx, smv_matrix *dA) {
  (void)ctx, (void)dA;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_spmv_t(smv_context *ctx, smv_alg alg, double alpha,
                      smv_matrix *dA, const void *x, double beta, void *y) {
  return smv_spmv(ctx, alg, alpha, dA, x, beta, y);
}
smv_status smv_spmv_t_host(smv_context *ctx, smv_alg alg, double alpha,
                           smv_matrix *dA, const double *x, double beta,
                           double *y) {
  return smv_spmv(ctx, alg, alpha, dA, x, beta, y);
}
smv_status smv_spmm(smv_context *ctx, smv_spmm_alg alg, double alpha,
                    smv_matrix *dA, const void *X, int64_t ldx, double beta,
                    void *Y, int64_t ldy, int k, smv_layout layout) {
  (void)ctx, (void)alg, (void)alpha, (void)dA, (void)X, (void)ldx;
  (void)beta, (void)Y, (void)ldy, (void)k, (void)layout;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_spmm_host(smv_context *ctx, smv_spmm_alg alg, double alpha,
                         smv_matrix *dA, const double *X, int64_t ldx,
                         double beta, double *Y, int64_t ldy, int k,
                         smv_layout layout) {
  return smv_spmm(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k, layout);
}
smv_status smv_spmm_plan(smv_context *ctx, const smv_matrix *dA, int k,
                         smv_layout layout, int64_t ldx, int64_t ldy,
                         smv_spmm_choice *c) {
  (void)ctx, (void)dA, (void)k, (void)layout, (void)ldx, (void)ldy, (void)c;
  return SMV_ERR_NO_DEVICE;
}
smv_status smv_spmm_tune(smv_context *ctx, smv_matrix *dA, int k,
                         smv_layout layout, int runs, smv_spmm_choice *c) {
  (void)ctx, (void)dA, (void)k, (void)layout, (void)runs, (void)c;
  return SMV_ERR_NO_DEVICE;
}
