/*
 * spmm_9_rowgather.cu — SpMM rung 9, row-major X and Y with few columns
 * (k < 8, the GNN feature widths of 1-7 and the block-Krylov blocks of 2-4):
 * rung 5's shape (G lanes split each row, every lane keeps the row's k
 * columns in registers, long rows in chunks) with each entry's X row read
 * as 16-byte vectors instead of one load per column.
 *
 * What changed from rung 5: there an entry gathers X(j, 0 .. k-1) by k
 * scalar loads, each a separate request to L1 for the same 32-byte sector
 * (row-major: the k values are contiguous); here by ceil(k / V) vector
 * loads, V = 4 floats or 2 doubles where ldx and X's address allow it
 * (f32 k = 4: one float4 per entry instead of four loads). Each lane also
 * loads two entries' (col, val) pairs before either gather, and a row has
 * fewer lanes: G = the largest power of two (1..32) with 4G <= the mean
 * row length, 4-8 entries a lane where rung 5 has 1-2 (a quarter of the
 * shuffles a row, four times the gathers in flight a lane). At rung 5's G
 * (SMV_SPMM_GATHER_LANES) the order of additions is rung 5's: the same
 * bits (test_cuda_spmm).
 *
 * Why it should help: a scattered gather is one L1 request per lane per
 * load instruction whatever its width, so the requests per entry fall
 * from k to ceil(k / V); DRAM and L2 bytes are the same (one sector per
 * entry). Shapes: C = 1..8 columns in registers a lane (the least power
 * of two >= min(k, 8)); k >= 8 (never planned: rungs 8 and 4 take those)
 * loops over tiles of 8 columns, re-reading the row. Bytes: A once, X
 * once per entry (k x 4 or 8 bytes from one sector), Y once (twice if
 * beta != 0).
 *
 * Where it loses: ldx not a multiple of the vector or X not 16-byte
 * aligned (narrower loads, rung 5's count); at k = 1 the SpMV engine's
 * rungs (AUTO keeps k = 1 there); 4 entries a lane is not the best on
 * every class (stencil rows at k = 4 prefer 2 lanes, 7-entry Laplacian
 * rows 1): near, not always at, the best G measured
 * (bench/results/h200/spmm.md, rung 9).
 */
#include "spmm_gather.cuh"

#include <stdlib.h>

/* acc[t] (t < w) += the entries e0, e0 + step, .. < e1 of the row times
 * X(col, c0 + t): two entries' pairs loaded before their gathers. xt
 * points at column c0; the vector loads need xt + col * ldx aligned to V
 * elements, which the launcher checked. */
template <typename T, int V, int C>
__device__ __forceinline__ void
rg_tile(unsigned e0, unsigned e1, unsigned step, const int32_t *__restrict__ ci,
        const T *__restrict__ val, const T *__restrict__ xt, int64_t ldx, int w,
        T (&acc)[C]) {
#pragma unroll
  for (int t = 0; t < C; t++)
    acc[t] = T(0);
  unsigned e = e0;
  for (; e + step < e1; e += 2 * step) {
    const T a0 = __ldg(val + e), a1 = __ldg(val + e + step);
    const T *x0 = xt + (int64_t)__ldg(ci + e) * ldx;
    const T *x1 = xt + (int64_t)__ldg(ci + e + step) * ldx;
    T v0[C / V][V], v1[C / V][V];
#pragma unroll
    for (int q = 0; q < C / V; q++)
      if (q * V < w) {
        spmm_load_row<T, V>(x0 + q * V, q * V, w, v0[q]);
        spmm_load_row<T, V>(x1 + q * V, q * V, w, v1[q]);
      }
#pragma unroll
    for (int q = 0; q < C / V; q++)
      if (q * V < w) {
#pragma unroll
        for (int i = 0; i < V; i++)
          acc[q * V + i] += a0 * v0[q][i];
#pragma unroll
        for (int i = 0; i < V; i++)
          acc[q * V + i] += a1 * v1[q][i];
      }
  }
  if (e < e1) {
    const T a0 = __ldg(val + e);
    const T *x0 = xt + (int64_t)__ldg(ci + e) * ldx;
#pragma unroll
    for (int q = 0; q < C / V; q++)
      if (q * V < w) {
        T v0[V];
        spmm_load_row<T, V>(x0 + q * V, q * V, w, v0);
#pragma unroll
        for (int i = 0; i < V; i++)
          acc[q * V + i] += a0 * v0[i];
      }
  }
}

/* Rows of at most thr entries (thr < 0: all): G lanes a row, 32 / G rows
 * a warp; Y = alpha A X + beta Y (beta = 0 never reads Y). */
template <typename T, int V, int C>
__global__ void __launch_bounds__(SPMM_GATHER_BLOCK)
    spmm_rowgather_rows(int64_t rows, const int32_t *__restrict__ rp,
                        const int32_t *__restrict__ ci,
                        const T *__restrict__ val, const T *__restrict__ X,
                        int64_t ldx, T *__restrict__ Y, int64_t ldy, int k,
                        int G, int64_t thr, T alpha, T beta) {
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int wl = threadIdx.x & 31, lane = wl % G, per_warp = 32 / G;
  for (int64_t r0 = warp * per_warp; r0 < rows; r0 += warps * per_warp) {
    const int64_t row = r0 + wl / G;
    bool valid = row < rows;
    unsigned e0 = valid ? (unsigned)rp[row] : 0u;
    unsigned e1 = valid ? (unsigned)rp[row + 1] : 0u;
    if (thr >= 0 && (int64_t)(e1 - e0) > thr) {
      valid = false;
      e1 = e0;
    }
    for (int c0 = 0; c0 < k; c0 += C) {
      T acc[C];
      const int w = k - c0 < C ? k - c0 : C;
      rg_tile<T, V, C>(e0 + (unsigned)lane, e1, (unsigned)G, ci, val, X + c0,
                       ldx, w, acc);
      spmm_gather_reduce<T, C>(acc, G);
      if (valid) {
        T *y = Y + row * ldy + c0;
#pragma unroll
        for (int t = 0; t < C; t++)
          if (t < w && t % G == lane)
            y[t] = beta == T(0) ? alpha * acc[t] : alpha * acc[t] + beta * y[t];
      }
    }
  }
}

/* One warp per chunk of a long row, 32 lanes over its entries; the
 * unscaled partials to ws[chunk * k + c] for rung 4's fix-up. */
template <typename T, int V, int C>
__global__ void __launch_bounds__(SPMM_GATHER_BLOCK)
    spmm_rowgather_chunks(int64_t nchunks, const int2 *__restrict__ chunks,
                          const int32_t *__restrict__ ci,
                          const T *__restrict__ val, const T *__restrict__ X,
                          int64_t ldx, T *__restrict__ ws, int k) {
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int lane = threadIdx.x & 31;
  for (int64_t ch = warp; ch < nchunks; ch += warps) {
    const int2 cc = chunks[ch];
    for (int c0 = 0; c0 < k; c0 += C) {
      T acc[C];
      const int w = k - c0 < C ? k - c0 : C;
      rg_tile<T, V, C>((unsigned)cc.x + (unsigned)lane, (unsigned)cc.y, 32u, ci,
                       val, X + c0, ldx, w, acc);
      spmm_gather_reduce<T, C>(acc, 32);
#pragma unroll
      for (int t = 0; t < C; t++)
        if (lane == t && t < w)
          ws[ch * k + c0 + t] = acc[t];
    }
  }
}

/* Lanes a row: the largest power of two (1..32) with at least 4 entries
 * a lane on the mean row (rung 5 gives 1-2: fewer loads in flight a lane
 * and more shuffles a row), or SMV_SPMM_GATHER_LANES (a power of two
 * 1..32) for experiments and the bits test. */
static int gather_lanes(double row_mean) {
  const char *s = getenv("SMV_SPMM_GATHER_LANES");
  if (s) {
    const int g = atoi(s);
    if (g >= 1 && g <= 32 && (g & (g - 1)) == 0)
      return g;
  }
  int G = 1;
  while (G < 32 && 8.0 * G <= row_mean)
    G *= 2;
  return G;
}

template <typename T, int V, int C>
static cudaError_t rowgather_launch(const struct spmm_args *a,
                                    const struct smv_spmm_split *sp) {
  const smv_matrix *m = a->m;
  const int G = gather_lanes(m->st.row_mean);
  cudaStream_t s = a->ctx->stream;
  const int64_t threads = (m->st.rows * G + 31) / 32 * 32;
  unsigned grid = smv_grid_for(threads, SPMM_GATHER_BLOCK);
  spmm_rowgather_rows<T, V, C><<<grid, SPMM_GATHER_BLOCK, 0, s>>>(
      m->st.rows, m->row_ptr, m->col_idx, (const T *)m->values, (const T *)a->X,
      a->ldx, (T *)a->Y, a->ldy, a->k, G, sp ? sp->chunk : -1, (T)a->alpha,
      (T)a->beta);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sp)
    return e;
  grid = smv_grid_for(sp->nchunks * 32, SPMM_GATHER_BLOCK);
  spmm_rowgather_chunks<T, V, C><<<grid, SPMM_GATHER_BLOCK, 0, s>>>(
      sp->nchunks, sp->chunks, m->col_idx, (const T *)m->values,
      (const T *)a->X, a->ldx, (T *)sp->ws, a->k);
  if ((e = cudaGetLastError()) != cudaSuccess)
    return e;
  return smv_spmm_launch_fixup(a, sp);
}

/* The widest vector (elements) that k, ldx and X's address allow. */
static int vec_for(const struct spmm_args *a, int vmax) {
  const size_t es = a->m->prec == SMV_F64 ? 8 : 4;
  int v = vmax;
  while (v > 1 &&
         (v > a->k || a->ldx % v || (uintptr_t)a->X % ((uintptr_t)v * es) != 0))
    v /= 2;
  return v;
}

/* The tile: C = the least power of two >= min(k, 8) and >= V columns. */
template <typename T, int V>
static cudaError_t rowgather_c(const struct spmm_args *a,
                               const struct smv_spmm_split *sp) {
  const int k = a->k < 8 ? a->k : 8;
  if (k > 4)
    return rowgather_launch<T, V, 8>(a, sp);
  if (k > 2 || V == 4)
    return rowgather_launch<T, V, (V > 4 ? V : 4)>(a, sp);
  if (k > 1 || V == 2)
    return rowgather_launch<T, V, (V > 2 ? V : 2)>(a, sp);
  return rowgather_launch<T, V, V>(a, sp);
}

static cudaError_t rowgather_t(const struct spmm_args *a,
                               const struct smv_spmm_split *sp) {
  if (a->m->prec == SMV_F64)
    return vec_for(a, 2) == 2 ? rowgather_c<double, 2>(a, sp)
                              : rowgather_c<double, 1>(a, sp);
  switch (vec_for(a, 4)) {
  case 4:
    return rowgather_c<float, 4>(a, sp);
  case 2:
    return rowgather_c<float, 2>(a, sp);
  default:
    return rowgather_c<float, 1>(a, sp);
  }
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

/* Also rung 6's row-major product for k < SMV_SPMM_COLTRANS_K. */
static smv_status run(const struct spmm_args *a) {
  struct smv_spmm_split *sp = NULL;
  if (a->m->st.row_max > SMV_SPMM_CHUNK) {
    smv_status st = smv_spmm_split_get(a, &sp);
    if (st != SMV_OK)
      return st;
    if (sp->nchunks == 0)
      sp = NULL;
  }
  const cudaError_t e = rowgather_t(a, sp);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 9 (rowgather, k = %d)",
                       a->k);
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_rowgather = {
    SMV_SPMM_ROWGATHER, 9, accepts, run, "row-major X and Y", 0};
