/*
 * spmv_7_cusparse.cu — rungs 7 and 8: cuSPARSE's generic SpMV
 * (cusparseSpMV) with CUSPARSE_SPMV_CSR_ALG1 and CUSPARSE_SPMV_CSR_ALG2,
 * the yardstick every rung of ours is measured against.
 *
 * How we use it (cuSPARSE 12.6). From the documentation and release notes:
 * cusparseSpMV_bufferSize sizes the workspace of both preprocess and SpMV;
 * preprocessing is optional and pays off when SpMV is called many times
 * with the same sparsity pattern (matA); since 12.6 the SAME external
 * buffer must be passed to every cusparseSpMV after a preprocess (release
 * notes, CUSPARSE-1897). What preprocess does NOT bind — the x and y
 * pointers, alpha and beta — we verified rather than read: the device
 * tests call it after one preprocess with fresh x and y buffers and
 * several alpha/beta pairs and check every row (test_vector_reuse, the
 * graph test, every tc_case), on the H100.
 *   - index types: our row offsets and column indices are int32, so the
 *     descriptor is CUSPARSE_INDEX_32I for both (64-bit indices are only
 *     needed past 2^31-1 entries, which smv_offset cannot express);
 *     zero-based; value and compute type CUDA_R_64F or CUDA_R_32F (uniform
 *     precision, like our kernels: f32 accumulates in float).
 *   - preparation (smv_sparse_prepare), per algorithm and only when
 *     needed: at smv_matrix_create for the algorithm AUTO chose, for both
 *     with SMV_MATRIX_CUSPARSE, by smv_matrix_tune (released again unless
 *     kept), or lazily on the rung's first call outside a stream capture
 *     (inside one: SMV_ERR_UNSUPPORTED, nothing allocated). One
 *     sparse-matrix descriptor and one external buffer per algorithm (the
 *     preprocessing data belongs to the pair), sized by
 *     cusparseSpMV_bufferSize, allocated, then cusparseSpMV_preprocess run
 *     once. It needs valid vector descriptors, so it gets temporary x and
 *     y allocated for the occasion and freed after. Why lazy: the two
 *     buffers and preprocesses cost analysis time and memory that a
 *     matrix AUTO runs with our own rungs never uses (issue 8).
 *   - run (smv_sparse_run, inside smv_spmv): set the shared dense-vector
 *     descriptors to the caller's x and y (cusparseDnVecSetValues: no
 *     allocation) and call cusparseSpMV on the context's stream. alpha and
 *     beta are host scalars (CUSPARSE_POINTER_MODE_HOST, set on the handle
 *     at context creation) of the compute type, read at call time, so a
 *     captured graph keeps the values of capture time, the same as our own
 *     kernels' arguments. With its buffer preallocated, cusparseSpMV
 *     captures into a CUDA graph: the graph test captures both rungs
 *     (global capture mode, which refuses unsafe calls) and checks two
 *     replays on the H100.
 *   - ALG1 is cuSPARSE's default CSR algorithm; ALG2 is documented as
 *     giving bit-identical results run to run (deterministic). How each
 *     splits the work is not documented; the bench times both.
 *   - The dispatcher never calls cuSPARSE for alpha = 0 or an empty matrix
 *     (y = beta*y by our scale kernel), so x is never read there and a
 *     matrix with no rows, columns or entries needs no descriptor at all.
 *
 * Thread safety: the dense-vector descriptors belong to the matrix, so two
 * host threads must not run cuSPARSE rungs on one matrix at once (use one
 * context, stream and matrix per thread).
 */
#include "engine.h"

#include <string.h>

static const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1,
                                          CUSPARSE_SPMV_CSR_ALG2};
static const char *const alg_label[2] = {"CSR_ALG1", "CSR_ALG2"};

static int index_of(smv_alg alg) {
  return alg == SMV_ALG_CUSPARSE_ALG2 ? 1 : 0;
}

void smv_sparse_release_alg(smv_matrix *m, smv_alg alg) {
  struct smv_sparse_state *s = &m->sp;
  const int i = index_of(alg);
  if (s->mat[i])
    cusparseDestroySpMat(s->mat[i]);
  if (s->buffer[i])
    cudaFree(s->buffer[i]);
  s->mat[i] = NULL;
  s->buffer[i] = NULL;
  s->buffer_bytes[i] = 0;
  s->ready[i] = 0;
  if (s->mat[0] || s->mat[1])
    return;
  /* No algorithm left: the shared vector descriptors go too. */
  if (s->vx)
    cusparseDestroyDnVec(s->vx);
  if (s->vy)
    cusparseDestroyDnVec(s->vy);
  s->vx = s->vy = NULL;
}

void smv_sparse_release(smv_matrix *m) {
  smv_sparse_release_alg(m, SMV_ALG_CUSPARSE_ALG1);
  smv_sparse_release_alg(m, SMV_ALG_CUSPARSE_ALG2);
}

/* Point a shared vector descriptor at p, creating it on first use. */
static smv_status dnvec(smv_context *ctx, cusparseDnVecDescr_t *d, int64_t n,
                        void *p, cudaDataType vt, const char *what) {
  cusparseStatus_t ss =
      *d ? cusparseDnVecSetValues(*d, p) : cusparseCreateDnVec(d, n, p, vt);
  if (ss == CUSPARSE_STATUS_SUCCESS)
    return SMV_OK;
  return smv_sparse_fail(ctx, ss, "cusparseCreateDnVec/SetValues (%s)", what);
}

smv_status smv_sparse_prepare(smv_context *ctx, smv_matrix *m, smv_alg alg) {
  struct smv_sparse_state *s = &m->sp;
  const int i = index_of(alg);
  if (s->ready[i] || m->st.rows == 0 || m->st.cols == 0 || m->st.nnz == 0)
    return SMV_OK; /* the dispatcher never calls cuSPARSE for these */

  const cudaDataType vt = m->prec == SMV_F64 ? CUDA_R_64F : CUDA_R_32F;
  const size_t esize = m->prec == SMV_F64 ? sizeof(double) : sizeof(float);
  void *tx = NULL, *ty = NULL;
  smv_status st = SMV_OK;
  cusparseStatus_t ss;
  cudaError_t e;
  double t0;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const void *alpha = m->prec == SMV_F64 ? (const void *)&one64 : &one32;
  const void *beta = m->prec == SMV_F64 ? (const void *)&zero64 : &zero32;

  size_t xb = (size_t)m->st.cols * esize, yb = (size_t)m->st.rows * esize;
  if ((e = cudaMalloc(&tx, xb)) != cudaSuccess) {
    tx = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (x for preprocess)", xb);
    goto out;
  }
  if ((e = cudaMalloc(&ty, yb)) != cudaSuccess) {
    ty = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (y for preprocess)", yb);
    goto out;
  }
  /* Defined contents (preprocess should not read them, but never let
   * anything see uninitialised memory). */
  if ((e = cudaMemsetAsync(tx, 0, xb, ctx->stream)) != cudaSuccess ||
      (e = cudaMemsetAsync(ty, 0, yb, ctx->stream)) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "cudaMemsetAsync");
    goto out;
  }
  if ((st = dnvec(ctx, &s->vx, m->st.cols, tx, vt, "x")) != SMV_OK ||
      (st = dnvec(ctx, &s->vy, m->st.rows, ty, vt, "y")) != SMV_OK)
    goto out;
  if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "cudaStreamSynchronize before preprocess");
    goto out;
  }
  /* What the analysis record calls "cuSPARSE preprocess": descriptor,
   * buffer-size query, buffer allocation and preprocess, to completion. */
  t0 = smv_now_ms();
  ss = cusparseCreateCsr(&s->mat[i], m->st.rows, m->st.cols, m->st.nnz,
                         m->row_ptr, m->col_idx, m->values, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    s->mat[i] = NULL;
    st = smv_sparse_fail(ctx, ss, "cusparseCreateCsr (%s)", alg_label[i]);
    goto out;
  }
  ss = cusparseSpMV_bufferSize(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               alpha, s->mat[i], s->vx, beta, s->vy, vt,
                               algs[i], &s->buffer_bytes[i]);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(ctx, ss, "cusparseSpMV_bufferSize (%s)", alg_label[i]);
    goto out;
  }
  if (s->buffer_bytes[i] > 0 &&
      (e = cudaMalloc(&s->buffer[i], s->buffer_bytes[i])) != cudaSuccess) {
    s->buffer[i] = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (cuSPARSE %s buffer)",
                     s->buffer_bytes[i], alg_label[i]);
    goto out;
  }
  ss = cusparseSpMV_preprocess(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               alpha, s->mat[i], s->vx, beta, s->vy, vt,
                               algs[i], s->buffer[i]);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(ctx, ss, "cusparseSpMV_preprocess (%s)", alg_label[i]);
    goto out;
  }
  /* Preprocess runs on the stream: finish before the temporaries go. */
  if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "cudaStreamSynchronize after preprocess");
    goto out;
  }
  s->prep_ms[i] = smv_now_ms() - t0;
  s->ready[i] = 1;
out:
  if (st != SMV_OK) {
    (void)cudaStreamSynchronize(ctx->stream);
    smv_sparse_release_alg(m, alg);
  }
  if (tx)
    cudaFree(tx);
  if (ty)
    cudaFree(ty);
  return st;
}

smv_status smv_sparse_run(smv_context *ctx, smv_alg alg, smv_matrix *m,
                          double alpha, const void *x, double beta, void *y) {
  const struct smv_sparse_state *s = &m->sp;
  const int i = index_of(alg);
  if (!s->ready[i]) {
    /* Not prepared at analysis: prepare now, unless the stream is being
     * captured (preparing allocates and synchronises). */
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    cudaError_t e = cudaStreamIsCapturing(ctx->stream, &cs);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "cudaStreamIsCapturing");
    if (cs != cudaStreamCaptureStatusNone)
      return smv_ctx_set(
          ctx, SMV_ERR_UNSUPPORTED,
          "cuSPARSE %s is not prepared for this matrix and cannot be "
          "prepared inside a stream capture (it allocates a buffer): "
          "create the matrix with SMV_MATRIX_CUSPARSE, or run the rung "
          "once before capturing",
          alg_label[i]);
    /* The matrix is opaque and its cuSPARSE state a cache: filling it
     * does not change what the matrix computes. */
    smv_status st = smv_sparse_prepare(ctx, (smv_matrix *)m, alg);
    if (st != SMV_OK)
      return st;
    if (!s->ready[i])
      return smv_ctx_set(ctx, SMV_ERR_ARG,
                         "cuSPARSE rung on a matrix without entries");
  }
  const cudaDataType vt = m->prec == SMV_F64 ? CUDA_R_64F : CUDA_R_32F;
  const float a32 = (float)alpha, b32 = (float)beta;
  const void *pa = m->prec == SMV_F64 ? (const void *)&alpha : &a32;
  const void *pb = m->prec == SMV_F64 ? (const void *)&beta : &b32;
  cusparseStatus_t ss = cusparseDnVecSetValues(s->vx, (void *)x);
  if (ss == CUSPARSE_STATUS_SUCCESS)
    ss = cusparseDnVecSetValues(s->vy, y);
  if (ss != CUSPARSE_STATUS_SUCCESS)
    return smv_sparse_fail(ctx, ss, "cusparseDnVecSetValues");
  ss = cusparseSpMV(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, pa,
                    s->mat[i], s->vx, pb, s->vy, vt, algs[i], s->buffer[i]);
  if (ss != CUSPARSE_STATUS_SUCCESS)
    return smv_sparse_fail(ctx, ss, "cusparseSpMV (%s)", alg_label[i]);
  return SMV_OK;
}
