/*
 * spmm_5_colsplit.cu — SpMM rung 5, made for column-major X and Y (any
 * layout works: the kernels take element strides): rung 1's gather kernel
 * (spmm_gather.cuh, shared) with rung 4's long-row split.
 *
 * Column-major X puts X(j, c) and X(j, c + 1) ldx elements apart, so
 * nothing along k can be vectorised; what can be shared is A. G lanes
 * (a power of two <= the mean row length, 1..32) split a row's entries as
 * an SpMV vector kernel does; each lane keeps C = 8 columns in registers
 * (C = 1, 2, 4 for smaller k) and per entry loads (col, val) once and
 * gathers X(j, c0 .. c0 + C - 1); a warp-shuffle reduction (fixed order)
 * adds the G partials. Neighbouring lanes hold neighbouring rows (G small)
 * or entries (G large), so for local columns the gathers of one column
 * fall in few lines.
 *
 * What changed from rung 1's gather: rows longer than SMV_SPMM_CHUNK are
 * left to chunks, one warp per chunk of SMV_SPMM_CHUNK entries (32 lanes
 * over the entries, the same C-column tiles), partials summed in order by
 * rung 4's fix-up kernel: a hub no longer serialises one warp.
 *
 * Bytes: A once per tile of C columns (k > 8: A re-read per tile, from
 * L1/L2 when the row was just read), X once per entry and column, Y once.
 *
 * Where it loses: row-major operands (no vector loads: rung 4 is the one
 * there); k > 8 re-reads each row per tile of 8 columns; X past the L2
 * with scattered columns costs one 32-byte sector per 4- or 8-byte value.
 */
#include "spmm_gather.cuh"

/* One warp per chunk, lanes over its entries; partials (unscaled) to
 * ws[chunk * k + c]. */
template <typename T, int C>
__global__ void __launch_bounds__(SPMM_GATHER_BLOCK)
    spmm_colsplit_chunks(int64_t nchunks, const int2 *__restrict__ chunks,
                         const int32_t *__restrict__ ci,
                         const T *__restrict__ val, const T *__restrict__ X,
                         int64_t xr, int64_t xc, T *__restrict__ ws, int k) {
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int lane = threadIdx.x & 31;
  for (int64_t ch = warp; ch < nchunks; ch += warps) {
    const int2 cc = chunks[ch];
    for (int c0 = 0; c0 < k; c0 += C) {
      T acc[C];
      const int w = k - c0 < C ? k - c0 : C;
      spmm_gather_tile<T, C>((unsigned)cc.x + (unsigned)lane, (unsigned)cc.y,
                             32u, ci, val, X + (int64_t)c0 * xc, xr, xc, w,
                             acc);
      spmm_gather_reduce<T, C>(acc, 32);
      /* Every lane holds the totals: lane t writes column c0 + t. */
#pragma unroll
      for (int t = 0; t < C; t++)
        if (lane == t && t < w)
          ws[ch * k + c0 + t] = acc[t];
    }
  }
}

template <typename T, int C>
static cudaError_t colsplit_launch(const struct spmm_args *a,
                                   const struct smv_spmm_split *sp, int G) {
  const smv_matrix *m = a->m;
  const int row = a->layout == SMV_LAYOUT_ROW_MAJOR;
  const int64_t xr = row ? a->ldx : 1, xc = row ? 1 : a->ldx;
  const int64_t yr = row ? a->ldy : 1, yc = row ? 1 : a->ldy;
  const int64_t rows = m->st.rows;
  cudaStream_t s = a->ctx->stream;
  const int64_t threads = (rows * G + 31) / 32 * 32;
  unsigned grid = smv_grid_for(threads, SPMM_GATHER_BLOCK);
  spmm_gather<T, C><<<grid, SPMM_GATHER_BLOCK, 0, s>>>(
      rows, m->row_ptr, m->col_idx, (const T *)m->values, (const T *)a->X, xr,
      xc, (T *)a->Y, yr, yc, a->k, G, sp ? sp->chunk : -1, (T)a->alpha,
      (T)a->beta);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess || !sp)
    return e;
  grid = smv_grid_for(sp->nchunks * 32, SPMM_GATHER_BLOCK);
  spmm_colsplit_chunks<T, C><<<grid, SPMM_GATHER_BLOCK, 0, s>>>(
      sp->nchunks, sp->chunks, m->col_idx, (const T *)m->values,
      (const T *)a->X, xr, xc, (T *)sp->ws, a->k);
  if ((e = cudaGetLastError()) != cudaSuccess)
    return e;
  return smv_spmm_launch_fixup(a, sp);
}

template <typename T>
static cudaError_t colsplit_t(const struct spmm_args *a,
                              const struct smv_spmm_split *sp) {
  int G = 1;
  while (G < 32 && 2.0 * G <= a->m->st.row_mean)
    G *= 2;
  const int k = a->k;
  if (k >= 8)
    return colsplit_launch<T, 8>(a, sp, G);
  if (k > 2)
    return colsplit_launch<T, 4>(a, sp, G);
  if (k == 2)
    return colsplit_launch<T, 2>(a, sp, G);
  return colsplit_launch<T, 1>(a, sp, G);
}

static int accepts(const struct spmm_args *a) {
  (void)a;
  return 1;
}

static smv_status run(const struct spmm_args *a) {
  struct smv_spmm_split *sp = NULL;
  if (a->m->st.row_max > SMV_SPMM_CHUNK) {
    smv_status st = smv_spmm_split_get(a, &sp);
    if (st != SMV_OK)
      return st;
    if (sp->nchunks == 0)
      sp = NULL;
  }
  cudaError_t e = a->m->prec == SMV_F64 ? colsplit_t<double>(a, sp)
                                        : colsplit_t<float>(a, sp);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 5 (colsplit, k = %d)",
                       a->k);
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_colsplit = {
    SMV_SPMM_COLSPLIT, 5, accepts, run, "any layout", 0};
