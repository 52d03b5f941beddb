/*
 * spmv_7_cusparse.cu — rung 7: cuSPARSE's generic SpMV (cusparseSpMV) with
 * CUSPARSE_SPMV_CSR_ALG1, the yardstick every rung of ours is measured
 * against; and what it shares with rung 8 (spmv_8_cusparse_alg2.cu, the
 * same call with CUSPARSE_SPMV_CSR_ALG2): set-up, release, bytes and run,
 * declared in cusparse_rung.h.
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
 * graph test, every tc_case) on the device.
 *   - index types: our row offsets and column indices are int32, so the
 *     descriptor is CUSPARSE_INDEX_32I for both (64-bit indices are only
 *     needed past 2^31-1 entries, which smv_offset cannot express);
 *     zero-based; value and compute type CUDA_R_64F or CUDA_R_32F (uniform
 *     precision, like our kernels: f32 accumulates in float).
 *   - set-up (smv_cusparse_setup: the rung's state), per algorithm and
 *     only when needed, like every rung's (src/cuda/engine/rungs.cu): at
 *     smv_matrix_create for the algorithm AUTO chose, for both with
 *     SMV_MATRIX_CUSPARSE, by smv_matrix_prepare, by smv_matrix_tune
 *     (released again unless kept), or on the rung's first call outside a
 *     stream capture (inside one: SMV_ERR_UNSUPPORTED, nothing allocated).
 *     One sparse-matrix descriptor, two dense-vector descriptors and one
 *     external buffer per algorithm (the preprocessing data belongs to the
 *     pair), sized by
 *     cusparseSpMV_bufferSize, allocated, then cusparseSpMV_preprocess run
 *     once. It needs valid vector descriptors, so it gets temporary x and
 *     y allocated for the occasion and freed after. Why lazy: the two
 *     buffers and preprocesses cost analysis time and memory that a
 *     matrix AUTO runs with our own rungs never uses.
 *   - run (smv_cusparse_run, inside smv_spmv): set the state's dense-vector
 *     descriptors to the caller's x and y (cusparseDnVecSetValues: no
 *     allocation) and call cusparseSpMV on the context's stream. alpha and
 *     beta are host scalars (CUSPARSE_POINTER_MODE_HOST, set on the handle
 *     at context creation) of the compute type, read at call time, so a
 *     captured graph keeps the values of capture time, the same as our own
 *     kernels' arguments. With its buffer preallocated, cusparseSpMV
 *     captures into a CUDA graph: the graph test captures both rungs
 *     (global capture mode, which refuses unsafe calls) and checks two
 *     replays on the device.
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
#include "cusparse_rung.h"

#include <stdlib.h>
#include <string.h>

static const cusparseSpMVAlg_t algs[2] = {CUSPARSE_SPMV_CSR_ALG1,
                                          CUSPARSE_SPMV_CSR_ALG2};
static const char *const alg_label[2] = {"CSR_ALG1", "CSR_ALG2"};

/* One algorithm's state: the pair of matrix descriptor and buffer that
 * its preprocess filled, and the vector descriptors its calls point at x
 * and y. */
struct smv_sparse_state {
  int i; /* 0: ALG1, 1: ALG2 */
  cusparseSpMatDescr_t mat;
  cusparseDnVecDescr_t vx, vy;
  void *buffer;
  size_t buffer_bytes;
};

void smv_cusparse_release(void *state) {
  struct smv_sparse_state *s = (struct smv_sparse_state *)state;
  if (!s)
    return;
  if (s->mat)
    cusparseDestroySpMat(s->mat);
  if (s->vx)
    cusparseDestroyDnVec(s->vx);
  if (s->vy)
    cusparseDestroyDnVec(s->vy);
  cudaFree(s->buffer); /* cudaFree(NULL) does nothing */
  free(s);
}

size_t smv_cusparse_device_bytes(const smv_matrix *, const void *state) {
  const struct smv_sparse_state *s = (const struct smv_sparse_state *)state;
  return s ? s->buffer_bytes : 0;
}

/* Point a vector descriptor at p, creating it on first use. */
static smv_status dnvec(smv_context *ctx, cusparseDnVecDescr_t *d, int64_t n,
                        void *p, cudaDataType vt, const char *what) {
  cusparseStatus_t ss =
      *d ? cusparseDnVecSetValues(*d, p) : cusparseCreateDnVec(d, n, p, vt);
  if (ss == CUSPARSE_STATUS_SUCCESS)
    return SMV_OK;
  return smv_sparse_fail(ctx, ss, "cusparseCreateDnVec/SetValues (%s)", what);
}

smv_status smv_cusparse_setup(smv_context *ctx, smv_matrix *m, int i,
                              void **state) {
  *state = NULL;
  if (m->st.rows == 0 || m->st.cols == 0 || m->st.nnz == 0)
    return SMV_OK; /* the dispatcher never calls cuSPARSE for these */

  const cudaDataType vt = m->prec == SMV_F64 ? CUDA_R_64F : CUDA_R_32F;
  const size_t esize = m->prec == SMV_F64 ? sizeof(double) : sizeof(float);
  void *tx = NULL, *ty = NULL;
  smv_status st = SMV_OK;
  cusparseStatus_t ss;
  cudaError_t e;
  const double one64 = 1.0, zero64 = 0.0;
  const float one32 = 1.0f, zero32 = 0.0f;
  const void *alpha = m->prec == SMV_F64 ? (const void *)&one64 : &one32;
  const void *beta = m->prec == SMV_F64 ? (const void *)&zero64 : &zero32;
  struct smv_sparse_state *s = (struct smv_sparse_state *)calloc(1, sizeof *s);
  if (!s)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "cuSPARSE %s state: out of host memory", alg_label[i]);
  s->i = i;

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
  ss = cusparseCreateCsr(&s->mat, m->st.rows, m->st.cols, m->st.nnz, m->row_ptr,
                         m->col_idx, m->values, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, vt);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    s->mat = NULL;
    st = smv_sparse_fail(ctx, ss, "cusparseCreateCsr (%s)", alg_label[i]);
    goto out;
  }
  ss = cusparseSpMV_bufferSize(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               alpha, s->mat, s->vx, beta, s->vy, vt, algs[i],
                               &s->buffer_bytes);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(ctx, ss, "cusparseSpMV_bufferSize (%s)", alg_label[i]);
    goto out;
  }
  if (s->buffer_bytes > 0 &&
      (e = cudaMalloc(&s->buffer, s->buffer_bytes)) != cudaSuccess) {
    s->buffer = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (cuSPARSE %s buffer)",
                     s->buffer_bytes, alg_label[i]);
    goto out;
  }
  ss = cusparseSpMV_preprocess(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                               alpha, s->mat, s->vx, beta, s->vy, vt, algs[i],
                               s->buffer);
  if (ss != CUSPARSE_STATUS_SUCCESS) {
    st = smv_sparse_fail(ctx, ss, "cusparseSpMV_preprocess (%s)", alg_label[i]);
    goto out;
  }
  /* Preprocess runs on the stream: finish before the temporaries go. */
  if ((e = cudaStreamSynchronize(ctx->stream)) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "cudaStreamSynchronize after preprocess");
    goto out;
  }
out:
  if (st != SMV_OK) {
    (void)cudaStreamSynchronize(ctx->stream);
    smv_cusparse_release(s);
  } else {
    *state = s;
  }
  if (tx)
    cudaFree(tx);
  if (ty)
    cudaFree(ty);
  return st;
}

smv_status smv_cusparse_run(smv_context *ctx, smv_matrix *m, void *state,
                            double alpha, const void *x, double beta, void *y) {
  struct smv_sparse_state *s = (struct smv_sparse_state *)state;
  if (!s) /* set up without entries: the dispatcher never gets here */
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "cuSPARSE rung on a matrix without entries");
  const int i = s->i;
  const cudaDataType vt = m->prec == SMV_F64 ? CUDA_R_64F : CUDA_R_32F;
  const float a32 = (float)alpha, b32 = (float)beta;
  const void *pa = m->prec == SMV_F64 ? (const void *)&alpha : &a32;
  const void *pb = m->prec == SMV_F64 ? (const void *)&beta : &b32;
  cusparseStatus_t ss = cusparseDnVecSetValues(s->vx, (void *)x);
  if (ss == CUSPARSE_STATUS_SUCCESS)
    ss = cusparseDnVecSetValues(s->vy, y);
  if (ss != CUSPARSE_STATUS_SUCCESS)
    return smv_sparse_fail(ctx, ss, "cusparseDnVecSetValues");
  ss = cusparseSpMV(ctx->sparse, CUSPARSE_OPERATION_NON_TRANSPOSE, pa, s->mat,
                    s->vx, pb, s->vy, vt, algs[i], s->buffer);
  if (ss != CUSPARSE_STATUS_SUCCESS)
    return smv_sparse_fail(ctx, ss, "cusparseSpMV (%s)", alg_label[i]);
  return SMV_OK;
}

static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *,
                        void **state) {
  return smv_cusparse_setup(ctx, m, 0, state);
}

const struct smv_rung smv_rung_cusparse_alg1 =
    smv_cusparse_rung(SMV_ALG_CUSPARSE_ALG1, setup);
