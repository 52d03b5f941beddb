/*
 * transpose.cu — y = alpha*A^T*x + beta*y on the device.
 *
 * A^T is kept as a second smv_matrix (the CSR of A^T, i.e. the CSC of A)
 * hanging off the first, so every SpMV rung (and AUTO's choice for the
 * transposed shape) runs on it unchanged: no atomics, and deterministic
 * whenever the rung is. Building it: A's arrays back to the host
 * ((rows + 1) * 4 + nnz * (4 + 8 or 4) bytes), the host counting sort
 * (smv_csr_transpose), and the ordinary analysis and upload of the result;
 * the device then holds A twice. Done once, on the first transposed product
 * or by smv_matrix_prepare_transpose (needed before graph capture: the
 * build copies and synchronises, which a capturing stream forbids).
 */
#include "engine.h"

#include <stdlib.h>
#include <string.h>

smv_status smv_matrix_download(smv_context *ctx, const smv_matrix *m,
                               const char *who, smv_csr **out) {
  smv_csr *A = NULL;
  smv_status st = smv_csr_create((smv_index)m->st.rows, (smv_index)m->st.cols,
                                 m->st.nnz, &A);
  if (st != SMV_OK)
    return smv_ctx_set(ctx, st, "%s: host copy of A (%lld entries): %s", who,
                       (long long)m->st.nnz, smv_status_string(st));
  const size_t nnz = (size_t)m->st.nnz;
  float *stage = NULL;
  cudaError_t e = cudaMemcpyAsync(A->row_ptr, m->row_ptr,
                                  ((size_t)m->st.rows + 1) * sizeof(int32_t),
                                  cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess && nnz > 0)
    e = cudaMemcpyAsync(A->col_idx, m->col_idx, nnz * sizeof(int32_t),
                        cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess && nnz > 0) {
    if (m->prec == SMV_F64) {
      e = cudaMemcpyAsync(A->values, m->values, nnz * sizeof(double),
                          cudaMemcpyDeviceToHost, ctx->stream);
    } else if (!(stage = (float *)malloc(nnz * sizeof(float)))) {
      smv_csr_free(A);
      return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                         "%s: malloc of %zu bytes (f32 values)", who,
                         nnz * sizeof(float));
    } else {
      e = cudaMemcpyAsync(stage, m->values, nnz * sizeof(float),
                          cudaMemcpyDeviceToHost, ctx->stream);
    }
  }
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    free(stage);
    smv_csr_free(A);
    return smv_cu_fail(ctx, e, "%s: copy of A back to the host", who);
  }
  for (size_t k = 0; stage && k < nnz; k++)
    A->values[k] = (double)stage[k];
  free(stage);
  A->sorted = 0; /* not needed by the callers, and not re-checked */
  *out = A;
  return SMV_OK;
}

extern "C" smv_status smv_matrix_prepare_transpose(smv_context *ctx,
                                                   smv_matrix *m) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!m)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "transpose: NULL matrix");
  if (m->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "transpose: matrix lives on device %d, context on %d",
                       m->device, ctx->device);
  /* f64-f32v runs smv_spmv only (rungs 2, 9, 10): refused here, before
   * A^T is built, so smv_spmv_t never runs a rung that would refuse it. */
  if (m->prec == SMV_F64_F32V)
    return smv_prec_refuse(ctx, m->prec, "smv_spmv_t (the transposed product)");
  if (m->transpose)
    return SMV_OK;
  /* Building A^T downloads A and synchronises: not during a capture. */
  static const char refusal[] =
      "transpose of A not built yet, and the stream is being captured: call "
      "smv_matrix_prepare_transpose before capturing";
  struct smv_device_guard g;
  smv_status st =
      smv_device_enter_uncaptured(ctx, &g, "transpose: ", SMV_ERR_ARG, refusal);
  if (st != SMV_OK)
    return st;
  smv_csr *A = NULL, *T = NULL;
  st = smv_matrix_download(ctx, m, "transpose", &A);
  if (st == SMV_OK) {
    st = smv_csr_transpose(A, &T);
    if (st != SMV_OK)
      st = smv_ctx_set(ctx, st, "transpose: building A^T on the host: %s",
                       smv_status_string(st));
  }
  if (st == SMV_OK)
    st = smv_matrix_create(ctx, T, m->prec, &m->transpose);
  smv_csr_free(A);
  smv_csr_free(T);
  smv_device_leave(&g);
  return st;
}

/* The transposed matrix, built if needed (A's values stay unchanged: only
 * its cache of A^T is filled). */
static smv_status transposed(smv_context *ctx, smv_matrix *dA, smv_matrix **T) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmv_t: NULL matrix");
  smv_status st = smv_matrix_prepare_transpose(ctx, dA);
  *T = dA->transpose;
  return st;
}

extern "C" smv_status smv_spmv_t(smv_context *ctx, smv_alg alg, double alpha,
                                 smv_matrix *dA, const void *x, double beta,
                                 void *y) {
  smv_matrix *T = NULL;
  smv_status st = transposed(ctx, dA, &T);
  return st != SMV_OK ? st : smv_spmv(ctx, alg, alpha, T, x, beta, y);
}

extern "C" smv_status smv_spmv_t_host(smv_context *ctx, smv_alg alg,
                                      double alpha, smv_matrix *dA,
                                      const double *x, double beta, double *y) {
  smv_matrix *T = NULL;
  smv_status st = transposed(ctx, dA, &T);
  return st != SMV_OK ? st
                      : smv_spmv_host_vectors(ctx, alg, alpha, T, x, beta, y);
}
