/*
 * spmm_6_coltrans.cu — SpMM rung 6, column-major X and Y through the
 * row-major rung: X transposed into a row-major workspace, the rung the
 * plan picks for that row-major product on it (rung 8, 10 or 4; rung 9
 * for k < SMV_SPMM_COLTRANS_K; alpha 1, beta 0, into a second row-major
 * workspace), then transposed back into Y with alpha and beta applied.
 *
 * Why: in column-major X(j, c) and X(j, c + 1) are ldx elements apart, so
 * a gather of k columns of one entry touches k sectors (32 bytes each for
 * 4 or 8 useful bytes); rungs 1 and 5 pay that for every entry. A tiled
 * transpose moves X once at full bandwidth, after which every entry's X
 * row is k contiguous elements, read as 16-byte vectors by rung 3/4's
 * kernels (and the hub rows split as in rung 4).
 *
 * Shapes and bytes: the workspaces are cols x kp and rows x kp elements
 * with kp = k rounded up to the 16-byte vector (4 floats, 2 doubles), kept
 * with the matrix and grown to the largest seen (refused while the stream
 * is captured, like rung 4's). Extra traffic over rung 4 on row-major
 * operands: X read and written once more (2 cols k), Y written and read
 * once more (2 rows k): small next to the entries' X gathers once k is
 * more than a few columns. The transposes use 32 x 33 shared-memory tiles
 * (8 rows per thread), coalesced on both sides.
 *
 * Where it loses: small k (the two transposes cost about what the
 * gathers save), and matrices whose X stays in L1 anyway.
 */
#include "spmm_ladder.h"

#define TR_TILE 32
#define TR_ROWS 8

/* out[j * kp + c] = in[c * ld + j] for j < n, c < k (column-major in ->
 * row-major out). One 32 x 32 tile per block of 32 x 8 threads. */
template <typename T>
__global__ void __launch_bounds__(TR_TILE *TR_ROWS)
    spmm_col2row(int64_t n, int k, const T *__restrict__ in, int64_t ld,
                 T *__restrict__ out, int64_t kp) {
  __shared__ T tile[TR_TILE][TR_TILE + 1];
  const int64_t j0 = (int64_t)blockIdx.x * TR_TILE;
  const int c0 = blockIdx.y * TR_TILE;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int r = ty; r < TR_TILE; r += TR_ROWS) {
    const int c = c0 + r;
    const int64_t j = j0 + tx;
    if (c < k && j < n)
      tile[r][tx] = in[(int64_t)c * ld + j]; /* coalesced along j */
  }
  __syncthreads();
  for (int r = ty; r < TR_TILE; r += TR_ROWS) {
    const int64_t j = j0 + r;
    const int c = c0 + tx;
    if (c < k && j < n)
      out[j * kp + c] = tile[tx][r]; /* coalesced along c */
  }
}

/* Y[c * ldy + i] = alpha * in[i * kp + c] + beta * Y[c * ldy + i] (beta =
 * 0: Y not read) for i < n, c < k. */
template <typename T>
__global__ void __launch_bounds__(TR_TILE *TR_ROWS)
    spmm_row2col(int64_t n, int k, const T *__restrict__ in, int64_t kp,
                 T *__restrict__ Y, int64_t ldy, T alpha, T beta) {
  __shared__ T tile[TR_TILE][TR_TILE + 1];
  const int64_t i0 = (int64_t)blockIdx.x * TR_TILE;
  const int c0 = blockIdx.y * TR_TILE;
  const int tx = threadIdx.x, ty = threadIdx.y;
  for (int r = ty; r < TR_TILE; r += TR_ROWS) {
    const int64_t i = i0 + r;
    const int c = c0 + tx;
    if (c < k && i < n)
      tile[r][tx] = in[i * kp + c]; /* coalesced along c */
  }
  __syncthreads();
  for (int r = ty; r < TR_TILE; r += TR_ROWS) {
    const int c = c0 + r;
    const int64_t i = i0 + tx;
    if (c < k && i < n) {
      T *y = Y + (int64_t)c * ldy + i; /* coalesced along i */
      const T v = alpha * tile[tx][r];
      *y = beta == T(0) ? v : v + beta * *y;
    }
  }
}

/* The same two moves for k <= TR_NARROW columns, one thread a row of the
 * row-major side: the 32 x 33 tiles above would leave 32 - k of every 32
 * threads idle and move k x 32 elements a block. Reads of the
 * column-major side coalesce along j (each c in turn); a thread's k
 * row-major elements are contiguous, so a warp's stores (or loads) cover
 * 32 x kp consecutive elements. */
#define TR_NARROW 8
#define TR_NARROW_BLOCK 256

template <typename T>
__global__ void __launch_bounds__(TR_NARROW_BLOCK)
    spmm_col2row_narrow(int64_t n, int k, const T *__restrict__ in, int64_t ld,
                        T *__restrict__ out, int64_t kp) {
  for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < n;
       j += (int64_t)gridDim.x * blockDim.x)
    for (int c = 0; c < k; c++)
      out[j * kp + c] = in[(int64_t)c * ld + j];
}

template <typename T>
__global__ void __launch_bounds__(TR_NARROW_BLOCK)
    spmm_row2col_narrow(int64_t n, int k, const T *__restrict__ in, int64_t kp,
                        T *__restrict__ Y, int64_t ldy, T alpha, T beta) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    for (int c = 0; c < k; c++) {
      T *y = Y + (int64_t)c * ldy + i;
      const T v = alpha * in[i * kp + c];
      *y = beta == T(0) ? v : v + beta * *y;
    }
}

template <typename T>
static cudaError_t transposes(const struct spmm_args *a, T *xt, T *yt,
                              int64_t kp, int stage) {
  const smv_matrix *m = a->m;
  const dim3 block(TR_TILE, TR_ROWS);
  const unsigned gy = (unsigned)((a->k + TR_TILE - 1) / TR_TILE);
  cudaStream_t s = a->ctx->stream;
  if (a->k <= TR_NARROW) {
    const int64_t n = stage == 0 ? m->st.cols : m->st.rows;
    const unsigned grid = smv_grid_for(n, TR_NARROW_BLOCK);
    if (stage == 0)
      spmm_col2row_narrow<T><<<grid, TR_NARROW_BLOCK, 0, s>>>(
          n, a->k, (const T *)a->X, a->ldx, xt, kp);
    else
      spmm_row2col_narrow<T><<<grid, TR_NARROW_BLOCK, 0, s>>>(
          n, a->k, yt, kp, (T *)a->Y, a->ldy, (T)a->alpha, (T)a->beta);
    return cudaGetLastError();
  }
  if (stage == 0) {
    const dim3 grid((unsigned)((m->st.cols + TR_TILE - 1) / TR_TILE), gy);
    spmm_col2row<T><<<grid, block, 0, s>>>(m->st.cols, a->k, (const T *)a->X,
                                           a->ldx, xt, kp);
  } else {
    const dim3 grid((unsigned)((m->st.rows + TR_TILE - 1) / TR_TILE), gy);
    spmm_row2col<T><<<grid, block, 0, s>>>(m->st.rows, a->k, yt, kp, (T *)a->Y,
                                           a->ldy, (T)a->alpha, (T)a->beta);
  }
  return cudaGetLastError();
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_COL_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  const smv_matrix *m = a->m;
  const int f32 = m->prec == SMV_F32;
  const size_t es = f32 ? 4 : 8;
  const int vw = f32 ? 4 : 2;
  /* The workspaces' row length: k rounded up to the 16-byte vector for
   * rung 4; below SMV_SPMM_COLTRANS_K (rung 9) only to an even count, so
   * f32 k = 2 keeps 8-byte rows (float2 loads) where the vector would
   * double X's footprint in the L2 its gathers hit (a power-law graph at
   * k = 2 fell below cuSPARSE with 16-byte rows). */
  const int64_t kp = a->k >= SMV_SPMM_COLTRANS_K ? (a->k + vw - 1) / vw * vw
                     : a->k == 1                 ? 1
                                                 : (a->k + 1) / 2 * 2;
  /* The row-major product on the workspaces; rung 4's state (the chunk
   * list, its partials) first: the workspace hangs off the same struct. */
  struct smv_spmm_split *sp;
  const struct spmm_args rm = {a->ctx, a->m, 1.0, 0.0,  NULL,
                               kp,     NULL, kp,  a->k, SMV_LAYOUT_ROW_MAJOR};
  smv_status st = smv_spmm_split_get(&rm, &sp);
  if (st != SMV_OK)
    return st;
  /* cols, rows <= INT32_MAX and kp <= 1028: no overflow in size_t. */
  const size_t nx = (size_t)(m->st.cols > 0 ? m->st.cols : 1) * (size_t)kp;
  const size_t ny = (size_t)m->st.rows * (size_t)kp;
  if ((st = smv_spmm_workspace(a->ctx, sp, (nx + ny) * es)) != SMV_OK)
    return st;
  /* xt is cudaMalloc-aligned; yt is nx * es bytes on (a multiple of 16 for
   * rung 4's kp, of 4 or 8 below: rung 9 reads only xt by vectors). */
  char *xt = (char *)sp->tws, *yt = xt + nx * es;
  const struct spmm_args r = {a->ctx, a->m, 1.0, 0.0,  xt,
                              kp,     yt,   kp,  a->k, SMV_LAYOUT_ROW_MAJOR};
  cudaError_t e = f32 ? transposes<float>(a, (float *)xt, NULL, kp, 0)
                      : transposes<double>(a, (double *)xt, NULL, kp, 0);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 6 (transpose of X)");
  /* Below 8 columns rung 9 (one vector load per entry's X row); from 8
   * on the rung the plan picks for the row-major product on the
   * workspaces (rung 8 for X rows up to 256 bytes, rung 10 for a graph's
   * 512-byte rows, else rung 4): the workspaces are that product. */
  const struct spmm_rung *rm_rung = a->k < SMV_SPMM_COLTRANS_K
                                        ? &smv_spmm_rung_rowgather
                                        : smv_spmm_row_rung(&r);
  if ((st = rm_rung->run(&r)) != SMV_OK)
    return st;
  e = f32 ? transposes<float>(a, NULL, (float *)yt, kp, 1)
          : transposes<double>(a, NULL, (double *)yt, kp, 1);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 6 (transpose of Y)");
  return SMV_OK;
}

const struct spmm_rung smv_spmm_rung_coltrans = {
    SMV_SPMM_COLTRANS, 6, accepts, run, "column-major X and Y", 0};
