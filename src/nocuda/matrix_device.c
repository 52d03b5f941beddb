/*
 * matrix_device.c — smv_matrix_create_device without CUDA (the engine's
 * matrix_device.cu): there is no device, so no device arrays to read.
 */
#include "smv.h"

#include <stddef.h>

smv_status
smv_matrix_create_device(smv_context *ctx, int64_t rows, int64_t cols,
                         int64_t nnz, const int32_t *row_ptr,
                         const int32_t *col_idx, const void *values,
                         smv_precision values_prec, smv_precision prec,
                         const smv_matrix_options *opt, smv_matrix **dA) {
  (void)ctx, (void)rows, (void)cols, (void)nnz, (void)row_ptr, (void)col_idx;
  (void)values, (void)values_prec, (void)prec, (void)opt;
  if (dA)
    *dA = NULL;
  return SMV_ERR_NO_DEVICE;
}
