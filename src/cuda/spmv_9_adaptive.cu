/*
 * spmv_9_adaptive.cu — rung 9: a kernel that adapts to the matrix (past
 * the seed).
 *
 * What changed from rung 5 (warp per row, shuffle reduction):
 *   1. L lanes per row instead of 32, L in {1, 2, 4, 8, 16, 32} chosen
 *      once per matrix at upload from its mean row length (choose_lanes
 *      below, with the measurements behind it). A warp works on 32 / L
 *      rows at once, so short rows no longer leave most lanes idle, and
 *      the reduction takes log2(L) shuffles within the group
 *      (__shfl_xor_sync on the group's own lane mask: groups of one warp
 *      may run different numbers of rows, so the mask names only the lanes
 *      that share the row).
 *   2. Rounds of four: each lane issues four index loads, four value loads,
 *      then four x gathers before its first multiply (slots past the row's
 *      end predicated off), so a thread keeps several gathers in flight.
 *      Rungs 1-5 are latency-bound with one load in flight per thread
 *      (rung 1 on rand:2000000:16: 1253 us in f64, where the compiler did
 *      not unroll, against 313 us in f32, where it did).
 *   3. Rows longer than 16 L entries (four rounds) would stretch the
 *      kernel's critical path: the main kernel only writes beta * y for
 *      them, and a second kernel adds their entries in chunks of
 *      SMV_CHUNK (128 = one round of a warp), one warp per chunk, each
 *      adding alpha * its partial with atomicAdd. The chunk list ({row,
 *      first entry}, 8 bytes per chunk) is built at upload. Only those
 *      rows' sums are order-dependent (not bit-reproducible).
 * Why it should help: lanes match the rows' work, more loads in flight,
 * and no warp waits on one long row.
 * Where it loses: one L for all rows, so rows far from the mean are
 * served less well; matrices with long rows pay a second launch (a few
 * microseconds, which small matrices notice) and atomics on those rows.
 *
 * Attributes and default block: the rung reports its L = 8 instance (the
 * instances use 32 registers, 40-48 for float at L = 1 and 32); the
 * long-row kernel runs with the same block size.
 */
#include "kernel_common.h"

#include <stdlib.h>
#include <string.h>

#define SMV_CHUNK 128 /* one round of a warp: 32 lanes x 4 entries */

/* Sum of val[k] * x[col[k]] for k = first, first + STEP, ... < end, in
 * rounds of four: every round issues its four column-index loads, four
 * value loads and then four x gathers before the first multiply (slots
 * past the end are predicated off), so a thread has up to four gathers in
 * flight even on rows shorter than 4 * STEP. */
template <typename T, int STEP>
__device__ __forceinline__ T strided_dot(unsigned k, unsigned end,
                                         const int32_t *__restrict__ col,
                                         const T *__restrict__ val,
                                         const T *__restrict__ x) {
  T sum = T(0);
  for (; k < end; k += 4 * STEP) {
    const bool p1 = k + STEP < end, p2 = k + 2 * STEP < end,
               p3 = k + 3 * STEP < end;
    const int32_t c0 = __ldg(&col[k]);
    const int32_t c1 = p1 ? __ldg(&col[k + STEP]) : 0;
    const int32_t c2 = p2 ? __ldg(&col[k + 2 * STEP]) : 0;
    const int32_t c3 = p3 ? __ldg(&col[k + 3 * STEP]) : 0;
    const T v0 = __ldg(&val[k]);
    const T v1 = p1 ? __ldg(&val[k + STEP]) : T(0);
    const T v2 = p2 ? __ldg(&val[k + 2 * STEP]) : T(0);
    const T v3 = p3 ? __ldg(&val[k + 3 * STEP]) : T(0);
    const T x0 = __ldg(&x[c0]);
    const T x1 = p1 ? __ldg(&x[c1]) : T(0);
    const T x2 = p2 ? __ldg(&x[c2]) : T(0);
    const T x3 = p3 ? __ldg(&x[c3]) : T(0);
    sum += v0 * x0;
    sum += v1 * x1;
    sum += v2 * x2;
    sum += v3 * x3;
  }
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

/* Lanes per row from the mean row length. Measured on the H100
 * (2026-11-22, every L on 3 large generated and 12 real matrices, see the
 * TOC in dispatch.cu): rows shorter than 8 on average go fastest with one
 * thread per row (a thread's unrolled loads cover its row, neighbouring
 * rows share cache lines: lap3d:160 150 us at L = 1 against 161, 171 and
 * 247 us at 2, 4, 8); longer rows want about two entries per lane (rand
 * and plaw with 16 per row: L = 8 best; bcsstk33, 68 per row: 16-32). So
 * L = 1 below a mean of 8, else the largest power of two <= mean / 2, at
 * most 32. */
static int choose_lanes(const struct smv_matrix_stats *s) {
  if (s->row_mean < 8.0)
    return 1;
  int L = 1;
  while (L < 32 && 2.0 * (2 * L) <= s->row_mean)
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
  /* At most four rounds (16 L entries) per row in the main kernel: the
   * longest row it keeps is the kernel's critical path, which is what
   * small matrices with a few long rows are made of (memplus, rajat01,
   * wiki-Vote ran 2-3x faster at L = 32 than at their mean's L with a
   * 64 L threshold). Longer rows go to the chunk kernel: one round each. */
  m->long_threshold = 16 * (int64_t)m->lanes;
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
