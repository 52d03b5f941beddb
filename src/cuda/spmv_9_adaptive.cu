/*
 * spmv_9_adaptive.cu — rung 9: a kernel that adapts to the matrix (past
 * the seed).
 *
 * What changed from rung 5 (warp per row, shuffle reduction):
 *   1. L lanes per row instead of 32, L in {1, 2, 4, 8, 16, 32} chosen
 *      once per matrix at upload from its mean row length (rule in
 *      choose_lanes below). A warp then works on 32 / L rows at once, so
 *      short rows no longer leave most lanes idle, and the reduction takes
 *      log2(L) shuffles within the group (__shfl_xor_sync on the group's
 *      own lane mask: groups of one warp may run different numbers of
 *      rows, so the mask names only the lanes that share the row).
 *   2. Every lane issues four independent loads of values, column indices
 *      and then x before the first multiply (4-way unroll), so each thread
 *      keeps several gathers in flight; the measurements of rungs 1-5
 *      showed these kernels are latency-bound, not bandwidth-bound, when a
 *      thread has one load in flight (rung 1 in f64 vs f32 on rand).
 *   3. Rows longer than long_threshold (64 L entries, at least 256) would
 *      hold their warp for a long time (a power-law matrix has rows of
 *      10^4 entries): the main kernel only writes beta * y for them, and a
 *      second kernel adds their entries in chunks of SMV_CHUNK (512), one
 *      warp per chunk, each adding alpha * its partial sum with atomicAdd.
 *      The chunk list ({row, first entry}, 8 bytes per chunk) is built at
 *      upload. Only those rows' sums are order-dependent (not
 *      bit-reproducible); every other row is.
 * Why it should help: lanes match the rows' work, more loads in flight,
 * and no warp stuck on one huge row.
 * Where it loses: matrices whose row lengths vary a lot around the mean
 * (one L for all rows); rows just under the threshold still take 16
 * rounds of their group; the second launch costs a few microseconds on
 * matrices with long rows.
 *
 * Attributes and default block: the rung reports its L = 8 instance (all
 * instances use the same registers within a few, see gpu-test logs); the
 * long-row kernel runs with the same block size.
 */
#include "kernel_common.h"

#include <stdlib.h>
#include <string.h>

#define SMV_CHUNK 512

/* Sum of val[k] * x[col[k]] for k = first, first + step, ... < end, four
 * independent loads at a time. */
template <typename T, int STEP>
__device__ __forceinline__ T strided_dot(unsigned k, unsigned end,
                                         const int32_t *__restrict__ col,
                                         const T *__restrict__ val,
                                         const T *__restrict__ x) {
  T sum = T(0);
  for (; k + 3 * STEP < end; k += 4 * STEP) {
    const int32_t c0 = __ldg(&col[k]), c1 = __ldg(&col[k + STEP]),
                  c2 = __ldg(&col[k + 2 * STEP]),
                  c3 = __ldg(&col[k + 3 * STEP]);
    const T v0 = __ldg(&val[k]), v1 = __ldg(&val[k + STEP]),
            v2 = __ldg(&val[k + 2 * STEP]), v3 = __ldg(&val[k + 3 * STEP]);
    const T x0 = __ldg(&x[c0]), x1 = __ldg(&x[c1]), x2 = __ldg(&x[c2]),
            x3 = __ldg(&x[c3]);
    sum += v0 * x0;
    sum += v1 * x1;
    sum += v2 * x2;
    sum += v3 * x3;
  }
  for (; k < end; k += STEP)
    sum += __ldg(&val[k]) * __ldg(&x[__ldg(&col[k])]);
  return sum;
}

template <typename T, int L>
__global__ void spmv_adaptive(int64_t rows, const int32_t *__restrict__ row_ptr,
                              const int32_t *__restrict__ col_idx,
                              const T *__restrict__ val,
                              const T *__restrict__ x, T alpha, T beta,
                              T *__restrict__ y, unsigned long_threshold) {
  const unsigned lane = threadIdx.x & (L - 1);
  const unsigned mask = L == 32 ? SMV_FULL_MASK
                                : ((1u << (L & 31)) - 1u)
                                      << ((threadIdx.x & 31u) & ~(L - 1u));
  const int64_t ngroups = smv_nthreads() / L;
  for (int64_t row = smv_tid() / L; row < rows; row += ngroups) {
    const unsigned begin = (unsigned)__ldg(&row_ptr[row]);
    const unsigned end = (unsigned)__ldg(&row_ptr[row + 1]);
    if (end - begin > long_threshold) {
      /* Long row: the long-row kernel adds alpha * A(row,:) x later. */
      if (lane == 0)
        y[row] = beta == T(0) ? T(0) : beta * y[row];
      continue;
    }
    T sum = strided_dot<T, L>(begin + lane, end, col_idx, val, x);
    for (int off = L / 2; off > 0; off >>= 1)
      sum += __shfl_xor_sync(mask, sum, off);
    if (lane == 0)
      y[row] = smv_combine(alpha, sum, beta, &y[row]);
  }
}

template <typename T>
__global__ void spmv_adaptive_long(int64_t nchunks,
                                   const int2 *__restrict__ chunks,
                                   const int32_t *__restrict__ row_ptr,
                                   const int32_t *__restrict__ col_idx,
                                   const T *__restrict__ val,
                                   const T *__restrict__ x, T alpha, T *y) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t nwarps = smv_nthreads() >> 5;
  for (int64_t c = smv_tid() >> 5; c < nchunks; c += nwarps) {
    const int2 ch = chunks[c];
    const unsigned begin = (unsigned)ch.y;
    const unsigned row_end = (unsigned)__ldg(&row_ptr[ch.x + 1]);
    const unsigned end =
        row_end - begin < SMV_CHUNK ? row_end : begin + SMV_CHUNK;
    T sum = strided_dot<T, 32>(begin + lane, end, col_idx, val, x);
    for (int off = 16; off > 0; off >>= 1)
      sum += __shfl_xor_sync(SMV_FULL_MASK, sum, off);
    if (lane == 0)
      atomicAdd(&y[ch.x], alpha * sum);
  }
}

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_adaptive<double, 8>
                         : (const void *)spmv_adaptive<float, 8>;
}

static size_t smem(smv_precision, int) { return 0; }

template <typename T, int L>
static cudaError_t main_kernel(const smv_launch *P) {
  const smv_matrix *m = P->m;
  unsigned grid = smv_grid_for(P->rows * L, P->block);
  return smv_launch_k(spmv_adaptive<T, L>, grid, P->block, 0, P->stream,
                      P->rows, P->row_ptr, P->col_idx, (const T *)P->values,
                      (const T *)P->x, (T)P->alpha, (T)P->beta, (T *)P->y,
                      (unsigned)m->long_threshold);
}

template <typename T> static cudaError_t run(const struct smv_launch *P) {
  const smv_matrix *m = P->m;
  cudaError_t e;
  switch (m->lanes) {
  case 1:
    e = main_kernel<T, 1>(P);
    break;
  case 2:
    e = main_kernel<T, 2>(P);
    break;
  case 4:
    e = main_kernel<T, 4>(P);
    break;
  case 8:
    e = main_kernel<T, 8>(P);
    break;
  case 16:
    e = main_kernel<T, 16>(P);
    break;
  default:
    e = main_kernel<T, 32>(P);
    break;
  }
  if (e != cudaSuccess || m->nchunks == 0)
    return e;
  unsigned grid = smv_grid_for(m->nchunks * 32, P->block);
  return smv_launch_k(spmv_adaptive_long<T>, grid, P->block, 0, P->stream,
                      m->nchunks, m->chunks, P->row_ptr, P->col_idx,
                      (const T *)P->values, (const T *)P->x, (T)P->alpha,
                      (T *)P->y);
}

static cudaError_t launch(const struct smv_launch *P) {
  return P->prec == SMV_F64 ? run<double>(P) : run<float>(P);
}

const struct smv_rung smv_rung_adaptive = {kernel, smem, launch, 128};

/* ---- analysis --------------------------------------------------------------
 */

/* Lanes per row from the mean row length (provisional rule, see the TOC in
 * dispatch.cu for the measurements behind it): about four entries per
 * lane, i.e. the smallest power of two >= mean / 4, in 1..32. */
static int choose_lanes(const struct smv_matrix_stats *s) {
  int L = 1;
  while (L < 32 && 4.0 * L < s->row_mean)
    L *= 2;
  return L;
}

smv_status smv_adaptive_setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                              int lanes) {
  if (m->chunks)
    cudaFree(m->chunks);
  m->chunks = NULL;
  m->nchunks = 0;
  m->st.long_rows = 0;
  m->lanes = lanes ? lanes : choose_lanes(&m->st);
  m->long_threshold = 64 * (int64_t)m->lanes;
  if (m->long_threshold < 256)
    m->long_threshold = 256;
  if (m->st.row_max <= m->long_threshold)
    return SMV_OK;

  int64_t n = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
    if (len > m->long_threshold) {
      m->st.long_rows++;
      n += (len + SMV_CHUNK - 1) / SMV_CHUNK;
    }
  }
  int2 *h = (int2 *)malloc((size_t)n * sizeof(int2));
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %zu bytes (long-row chunks): out of memory",
                       (size_t)n * sizeof(int2));
  int64_t c = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    int64_t b = A->row_ptr[i], e = A->row_ptr[i + 1];
    if (e - b > m->long_threshold)
      for (int64_t k = b; k < e; k += SMV_CHUNK)
        h[c++] = make_int2((int)i, (int)k);
  }
  smv_status st = SMV_OK;
  const size_t bytes = (size_t)n * sizeof(int2);
  cudaError_t err = cudaMalloc(&m->chunks, bytes);
  if (err != cudaSuccess) {
    m->chunks = NULL;
    st = smv_cu_fail(ctx, err, "cudaMalloc of %zu bytes (long-row chunks)",
                     bytes);
  } else {
    err = cudaMemcpyAsync(m->chunks, h, bytes, cudaMemcpyHostToDevice,
                          ctx->stream);
    if (err == cudaSuccess)
      err = cudaStreamSynchronize(ctx->stream);
    if (err != cudaSuccess)
      st = smv_cu_fail(ctx, err, "cudaMemcpy of %zu bytes (long-row chunks)",
                       bytes);
    else
      m->nchunks = n;
  }
  free(h);
  return st;
}
