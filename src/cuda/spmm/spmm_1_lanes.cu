/*
 * spmm_1_lanes.cu — SpMM rung 1 (SMV_SPMM_OURS, "ours"), smv's first SpMM
 * kernels: Y = alpha*A*X + beta*Y, k dense columns, every entry of A
 * loaded once per tile of columns and applied to all of them. Two
 * kernels; the launcher picks by layout and k. Kept as the ladder's base:
 * it lost to cuSPARSE 6-25x on graphs (issue 22), for the reasons under
 * "Where it loses" below, which rungs 2-5 address.
 *
 * lanes (row-major X and Y, k >= 8): a group of G = min(32, next power of
 * two >= k) lanes per row, the columns across the lanes, C = 1 or 2
 * columns per lane (register tile of G * C <= 64 columns; wider k loops
 * over tiles). The group walks the row's entries together: each (value,
 * column) pair is one broadcast load for the group, and X's row j is read
 * as G * C contiguous elements (coalesced: 8 B * 32 lanes = 256 B for f64),
 * as is Y's row. Four entries in flight per round for ILP. Where it loses:
 * long rows serialise on one group (no split of a row across groups).
 *
 * gather (column-major, and row-major with k < 8): like an SpMV vector
 * kernel, G lanes per row (a power of two <= the mean row length, 1..32)
 * split the row's entries; each lane keeps C accumulators (C = 1, 2, 4, 8:
 * a register tile of C columns) and per entry loads the value and index
 * once and gathers X(j, c) for the C columns; the partial sums are reduced
 * across the G lanes with shuffles in a fixed order (deterministic). k > C
 * loops over tiles of C columns: A's row is reloaded per tile (from L1/L2:
 * it was just read), so A streams from DRAM once for k <= 8 and about once
 * in practice beyond. Where it loses: rows much shorter than G; X gathers
 * in column-major are as scattered as in SpMV, C of them per entry.
 *
 * Bytes (the bench's model): A once (values + indices + row offsets), X
 * once (cols * k), Y once (rows * k, twice when beta != 0).
 */
#include "spmm_gather.cuh"

#include <stdint.h>

#define SPMM_BLOCK 256

/* ---- lanes: columns across a group of lanes (row-major) ---------------- */

template <typename T, int C>
__global__ void __launch_bounds__(SPMM_BLOCK)
    spmm_lanes(int64_t rows, const int32_t *__restrict__ row_ptr,
               const int32_t *__restrict__ col_idx,
               const T *__restrict__ values, const T *__restrict__ X,
               int64_t ldx, T *__restrict__ Y, int64_t ldy, int k, int G,
               T alpha, T beta) {
  const int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  const int64_t groups = (int64_t)gridDim.x * blockDim.x / G;
  const int lane = (int)(tid % G);
  for (int64_t row = tid / G; row < rows; row += groups) {
    const int32_t e0 = row_ptr[row], e1 = row_ptr[row + 1];
    for (int c0 = 0; c0 < k; c0 += G * C) {
      T acc[C];
#pragma unroll
      for (int t = 0; t < C; t++)
        acc[t] = 0;
      bool on[C];
#pragma unroll
      for (int t = 0; t < C; t++)
        on[t] = c0 + lane + t * G < k;
      const T *xc = X + c0 + lane;
      int32_t e = e0;
      for (; e + 4 <= e1; e += 4) {
        T a[4];
        int64_t j[4];
#pragma unroll
        for (int u = 0; u < 4; u++) {
          a[u] = values[e + u];
          j[u] = (int64_t)col_idx[e + u] * ldx;
        }
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
          for (int t = 0; t < C; t++)
            if (on[t])
              acc[t] += a[u] * xc[j[u] + t * G];
      }
      for (; e < e1; e++) {
        const T a = values[e];
        const int64_t j = (int64_t)col_idx[e] * ldx;
#pragma unroll
        for (int t = 0; t < C; t++)
          if (on[t])
            acc[t] += a * xc[j + t * G];
      }
      T *y = Y + row * ldy + c0 + lane;
#pragma unroll
      for (int t = 0; t < C; t++)
        if (on[t])
          y[t * G] =
              beta == T(0) ? alpha * acc[t] : alpha * acc[t] + beta * y[t * G];
    }
  }
}

/* ---- gather: lanes split the row, register tile of C columns ------------ */
/* The kernel is spmm_gather (spmm_gather.cuh), shared with rung 5, which
 * launches it with a row-length cut; here every row is summed (thr = -1). */

/* ---- Y = beta*Y (alpha = 0 or no entries): every (i, c), strided -------- */

template <typename T>
__global__ void spmm_scale(int64_t rows, int k, T *__restrict__ Y, int64_t yr,
                           int64_t yc, T beta) {
  const int64_t n = rows * k;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < n;
       t += (int64_t)gridDim.x * blockDim.x) {
    const int64_t i = t / k, c = t % k;
    T *y = Y + i * yr + c * yc;
    *y = beta == T(0) ? T(0) : beta * *y;
  }
}

cudaError_t smv_spmm_launch_scale(smv_precision prec, int64_t rows, int k,
                                  double beta, void *Y, int64_t ldy,
                                  smv_layout layout, cudaStream_t s) {
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  const int64_t yr = row ? ldy : 1, yc = row ? 1 : ldy;
  const unsigned grid = smv_grid_for(rows * k, SPMM_BLOCK);
  if (prec == SMV_F64)
    spmm_scale<double>
        <<<grid, SPMM_BLOCK, 0, s>>>(rows, k, (double *)Y, yr, yc, beta);
  else
    spmm_scale<float>
        <<<grid, SPMM_BLOCK, 0, s>>>(rows, k, (float *)Y, yr, yc, (float)beta);
  return cudaGetLastError();
}

/* ---- launcher ------------------------------------------------------------ */

static int pow2_at_least(int v) {
  int p = 1;
  while (p < v)
    p *= 2;
  return p;
}

/* Lanes per row of the gather kernel: the largest power of two <= the
 * mean row length, 1..32 (as the SpMV vector rungs, scaled to the rows). */
static int gather_lanes(const smv_matrix *m) {
  int g = 1;
  while (g < 32 && 2.0 * g <= m->st.row_mean)
    g *= 2;
  return g;
}

template <typename T>
static cudaError_t launch_t(const smv_matrix *m, double alpha, const void *X,
                            int64_t ldx, double beta, void *Y, int64_t ldy,
                            int k, smv_layout layout, cudaStream_t s) {
  const int64_t rows = m->st.rows;
  const int32_t *rp = m->row_ptr, *ci = m->col_idx;
  const T *v = (const T *)m->values;
  const T *x = (const T *)X;
  T *y = (T *)Y;
  const T a = (T)alpha, b = (T)beta;
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  if (row && k >= 8) {
    const int G = pow2_at_least(k < 32 ? k : 32);
    const unsigned grid = smv_grid_for(rows * G, SPMM_BLOCK);
    if (k > G)
      spmm_lanes<T, 2><<<grid, SPMM_BLOCK, 0, s>>>(rows, rp, ci, v, x, ldx, y,
                                                   ldy, k, G, a, b);
    else
      spmm_lanes<T, 1><<<grid, SPMM_BLOCK, 0, s>>>(rows, rp, ci, v, x, ldx, y,
                                                   ldy, k, G, a, b);
    return cudaGetLastError();
  }
  const int G = gather_lanes(m);
  const int64_t xr = row ? ldx : 1, xc = row ? 1 : ldx;
  const int64_t yr = row ? ldy : 1, yc = row ? 1 : ldy;
  /* Whole warps: round the thread count up to a multiple of 32. */
  const int64_t threads = (rows * G + 31) / 32 * 32;
  const unsigned grid = smv_grid_for(threads, SPMM_GATHER_BLOCK);
  const int C = k >= 8 ? 8 : pow2_at_least(k);
#define SPMM_GATHER(CC)                                                        \
  spmm_gather<T, CC><<<grid, SPMM_GATHER_BLOCK, 0, s>>>(                       \
      rows, rp, ci, v, x, xr, xc, y, yr, yc, k, G, (int64_t)-1, a, b)
  switch (C) {
  case 1:
    SPMM_GATHER(1);
    break;
  case 2:
    SPMM_GATHER(2);
    break;
  case 4:
    SPMM_GATHER(4);
    break;
  default:
    SPMM_GATHER(8);
    break;
  }
#undef SPMM_GATHER
  return cudaGetLastError();
}

cudaError_t smv_spmm_launch_ours(const smv_matrix *m, double alpha,
                                 const void *X, int64_t ldx, double beta,
                                 void *Y, int64_t ldy, int k, smv_layout layout,
                                 cudaStream_t stream) {
  if (m->prec == SMV_F64)
    return launch_t<double>(m, alpha, X, ldx, beta, Y, ldy, k, layout, stream);
  return launch_t<float>(m, alpha, X, ldx, beta, Y, ldy, k, layout, stream);
}

static int accepts(const struct spmm_args *a) {
  (void)a;
  return 1;
}

static smv_status run(const struct spmm_args *a) {
  cudaError_t e =
      smv_spmm_launch_ours(a->m, a->alpha, a->X, a->ldx, a->beta, a->Y, a->ldy,
                           a->k, a->layout, a->ctx->stream);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 1 (%lld rows, k = %d)",
                       (long long)a->m->st.rows, a->k);
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_lanes = {SMV_SPMM_OURS, 1, accepts, run,
                                              "any layout",  0};
