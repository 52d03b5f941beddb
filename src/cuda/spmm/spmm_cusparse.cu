/*
 * spmm_cusparse.cu — cuSPARSE's SpMM (cusparseSpMM on the CSR matrix) as
 * the yardstick for smv's own SpMM kernel: CUSPARSE_SPMM_CSR_ALG1, ALG2
 * and ALG3, whichever the library accepts for a layout (a refused
 * combination comes back as SMV_ERR_UNSUPPORTED with cuSPARSE's text).
 *
 * Per matrix: one CSR descriptor (created on first use, separate from the
 * SpMV rungs' so their preprocessing stays untouched) and one workspace,
 * grown to the largest cusparseSpMM_bufferSize asked for. Per call: two
 * dense-matrix descriptors (host objects only), and cusparseSpMM_preprocess
 * when the (algorithm, k, layout, ldx, ldy) differs from the last call's,
 * so a loop of identical calls preprocesses once, as NVIDIA advises.
 * alpha and beta are host scalars (the handle's pointer mode).
 */
#include "spmm_ladder.h"

#include <stdint.h>
#include <string.h>

static cusparseSpMMAlg_t alg_of(smv_spmm_alg a) {
  switch (a) {
  case SMV_SPMM_CUSPARSE_ALG2:
    return CUSPARSE_SPMM_CSR_ALG2;
  case SMV_SPMM_CUSPARSE_ALG3:
    return CUSPARSE_SPMM_CSR_ALG3;
  default:
    return CUSPARSE_SPMM_CSR_ALG1;
  }
}

void smv_spmm_release(smv_matrix *m) {
  if (m->spmm_mat)
    cusparseDestroySpMat(m->spmm_mat);
  if (m->spmm_buffer)
    cudaFree(m->spmm_buffer);
  m->spmm_mat = NULL;
  m->spmm_buffer = NULL;
  m->spmm_buffer_bytes = 0;
  smv_spmm_split_free(m); /* rungs 4 and 5 (spmm_4_rowsplit.cu) */
}

static smv_status fail(smv_context *ctx, cusparseStatus_t ss, smv_spmm_alg a,
                       const char *what) {
  if (ss == CUSPARSE_STATUS_NOT_SUPPORTED) {
    smv_sparse_fail(ctx, ss, "%s (%s)", what, smv_spmm_alg_name(a));
    return SMV_ERR_UNSUPPORTED;
  }
  return smv_sparse_fail(ctx, ss, "%s (%s)", what, smv_spmm_alg_name(a));
}

smv_status smv_spmm_cusparse(smv_context *ctx, smv_spmm_alg alg, double alpha,
                             const smv_matrix *cm, const void *X, int64_t ldx,
                             double beta, void *Y, int64_t ldy, int k,
                             smv_layout layout) {
  smv_matrix *m = (smv_matrix *)cm; /* only the workspace cache changes */
  const cudaDataType vt = m->prec == SMV_F64 ? CUDA_R_64F : CUDA_R_32F;
  const cusparseOrder_t order =
      layout == SMV_LAYOUT_ROW_MAJOR ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  const cusparseSpMMAlg_t ca = alg_of(alg);
  const cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const float a32 = (float)alpha, b32 = (float)beta;
  const void *pa = m->prec == SMV_F64 ? (const void *)&alpha : &a32;
  const void *pb = m->prec == SMV_F64 ? (const void *)&beta : &b32;
  cusparseStatus_t ss;
  /* CSR_ALG3 reads X and Y in 16-byte vectors: an unaligned leading
   * dimension or base made it fault with a misaligned address (H100,
   * cuSPARSE 12.6, 2026-11-24: k = 4 row-major, ldx = 5), which is sticky
   * and kills the context. Refuse instead (k = 1 takes another path). */
  const size_t es = m->prec == SMV_F64 ? 8 : 4;
  if (ca == CUSPARSE_SPMM_CSR_ALG3 && k > 1 &&
      (((size_t)ldx * es) % 16 || ((size_t)ldy * es) % 16 ||
       (uintptr_t)X % 16 || (uintptr_t)Y % 16))
    return smv_ctx_set(ctx, SMV_ERR_UNSUPPORTED,
                       "cusparse-alg3 needs X and Y 16-byte aligned with "
                       "leading dimensions of a multiple of 16 bytes "
                       "(ldx = %lld, ldy = %lld, %zu-byte elements)",
                       (long long)ldx, (long long)ldy, es);
  if (!m->spmm_mat) {
    ss =
        cusparseCreateCsr(&m->spmm_mat, m->st.rows, m->st.cols, m->st.nnz,
                          m->row_ptr, m->col_idx, m->values, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt);
    if (ss != CUSPARSE_STATUS_SUCCESS) {
      m->spmm_mat = NULL;
      return fail(ctx, ss, alg, "cusparseCreateCsr");
    }
    memset(m->spmm_key, 0, sizeof m->spmm_key);
  }
  /* Dense matrices: rows x k with the caller's leading dimension. */
  cusparseDnMatDescr_t dx = NULL, dy = NULL;
  smv_status st = SMV_OK;
  ss = cusparseCreateDnMat(&dx, m->st.cols, k, ldx, (void *)X, vt, order);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    dx = NULL;
    st = fail(ctx, ss, alg, "cusparseCreateDnMat (X)");
    goto out;
  }
  ss = cusparseCreateDnMat(&dy, m->st.rows, k, ldy, Y, vt, order);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    dy = NULL;
    st = fail(ctx, ss, alg, "cusparseCreateDnMat (Y)");
    goto out;
  }
  {
    size_t bytes = 0;
    ss = cusparseSpMM_bufferSize(ctx->sparse, N, N, pa, m->spmm_mat, dx, pb, dy,
                                 vt, ca, &bytes);
    if (ss != CUSPARSE_STATUS_SUCCESS) {
      st = fail(ctx, ss, alg, "cusparseSpMM_bufferSize");
      goto out;
    }
    if (bytes > m->spmm_buffer_bytes) {
      /* Growing the workspace: wait for work that may still use it. */
      cudaError_t e = cudaStreamSynchronize(ctx->stream);
      if (e == cudaSuccess && m->spmm_buffer)
        e = cudaFree(m->spmm_buffer);
      m->spmm_buffer = NULL;
      m->spmm_buffer_bytes = 0;
      if (e == cudaSuccess)
        e = cudaMalloc(&m->spmm_buffer, bytes);
      if (e != cudaSuccess) {
        m->spmm_buffer = NULL;
        st = smv_cu_fail(ctx, e,
                         "cudaMalloc of %zu bytes (cuSPARSE SpMM "
                         "workspace)",
                         bytes);
        goto out;
      }
      m->spmm_buffer_bytes = bytes;
      memset(m->spmm_key, 0, sizeof m->spmm_key);
    }
    const int64_t key[5] = {(int64_t)alg, k, (int64_t)layout, ldx, ldy};
    if (memcmp(key, m->spmm_key, sizeof key) != 0 &&
        (ca == CUSPARSE_SPMM_CSR_ALG1 || ca == CUSPARSE_SPMM_CSR_ALG3)) {
      ss = cusparseSpMM_preprocess(ctx->sparse, N, N, pa, m->spmm_mat, dx, pb,
                                   dy, vt, ca, m->spmm_buffer);
      if (ss != CUSPARSE_STATUS_SUCCESS) {
        st = fail(ctx, ss, alg, "cusparseSpMM_preprocess");
        goto out;
      }
      memcpy(m->spmm_key, key, sizeof key);
    }
    ss = cusparseSpMM(ctx->sparse, N, N, pa, m->spmm_mat, dx, pb, dy, vt, ca,
                      m->spmm_buffer);
    if (ss != CUSPARSE_STATUS_SUCCESS)
      st = fail(ctx, ss, alg, "cusparseSpMM");
  }
out:
  if (dx)
    cusparseDestroyDnMat(dx);
  if (dy)
    cusparseDestroyDnMat(dy);
  return st;
}
