/*
 * spmm_8_rowpipe.cu — SpMM rung 8, row-major: rung 4 with its row kernel
 * software-pipelined across rows, so a warp's next row's offsets and
 * (col, val) pairs are in flight while this row's X rows are gathered.
 *
 * What changed from rung 4: there a group of lanes takes its rows one at
 * a time, and each row is three dependent trips to memory: the offsets
 * rp[row], rp[row + 1]; then the row's (col, val) pairs at those offsets;
 * then the X rows at those columns. On graphs with short rows (power-law
 * rows of 9-15 entries, k = 32: one batch and one round of gathers per
 * row) the gathers of a row are a single round, so the warp waits about
 * three memory latencies per row, whatever the occupancy. Here, while row
 * i's gathers are in flight, the group has already issued the offsets of
 * row i + 2 and, as soon as row i's gathers are issued, the pairs of row
 * i + 1 (whose offsets arrived during row i - 1): in steady state a row
 * costs about one latency.
 *
 * Same arithmetic as rung 3/4, in the same order (batches of W pairs,
 * steps of G sub-groups, U steps' loads before their FMAs, the sub-group
 * sums by xor shuffles): the same bits as rung 4. Only full passes are
 * pipelined (k = L x V x CV, every GNN k that is a power of two from the
 * 16-byte vector up: f32 4..256, f64 2..128); any other k runs rung 4.
 * Rows longer than a chunk go to rung 4's chunks and fix-up, as there.
 *
 * Bytes: rung 4's (A once, X gathered once per entry, Y once); the
 * pipeline adds two offsets and one batch of pairs per group in registers
 * (a few more registers than rung 4's loop).
 *
 * Where it wins (measured on an H200 against rung 4, every row verified;
 * bench/results/h200/spmm.md, "Rung 8"): narrow X rows. At k = 8 it beat
 * rung 4 on every matrix and precision (power-law, R-MAT, 27-point
 * stencil), and up to 256 bytes along k (f32 k <= 64, f64 k <= 32) on
 * the power-law graphs and the stencil: there a row's gathers are one
 * round of a few loads, so the three dependent trips per row it overlaps
 * are most of a row's time. The plan (src/spmm/spmm_plan.c) picks it for
 * row-major full passes up to SMV_SPMM_ROWPIPE_BYTES = 256.
 *
 * Where it loses: wide X rows. Past 256 bytes (f32 k = 128, f64 k >= 64)
 * it lost to rung 4 on R-MAT, there below cuSPARSE, and gained a few
 * percent at best elsewhere: each row's gathers are already many loads
 * in flight per lane, and the extra registers cost occupancy (3 blocks
 * an SM for doubles). On R-MAT it also trailed rung 4 at 256 bytes
 * (still ahead of cuSPARSE). Rows of many batches gain little (their
 * batches are already prefetched within the row by rung 3's loop). At
 * k = 4 rung 5 (registers, no vectors along k) beat it on most rows.
 */
#include "spmm_rowvec.cuh"

#define PIPE_BLOCK 256
/* Blocks per SM asked of the compiler: 4 (64 registers, 32 warps an SM,
 * rung 4's occupancy) for f32 with one vector per lane, which then does
 * not spill; 3 (85 registers) for doubles and two vectors per lane, which
 * spilled at 64. Uncapped, the compiler took 74-100. */
#define PIPE_MIN_BLOCKS(T, CV) (sizeof(T) == 4 && (CV) == 1 ? 4 : 3)

/* One row's full pass: the row's first batch (jc, ac) was loaded by the
 * caller; the next row's first batch is loaded into (jn, an) right after
 * this row's first gathers are issued (from offsets f0, f1 already in
 * registers; f0 = f1 = 0 when there is none). */
template <typename T, int V, int CV>
__device__ __forceinline__ void
pipe_row(unsigned e0, unsigned e1, int32_t jc, T ac, unsigned f0, unsigned f1,
         const int32_t *__restrict__ ci, const T *__restrict__ val,
         const T *__restrict__ X, int64_t ldx, int L, int G, int gl,
         unsigned mask, T (&acc)[CV][V], int32_t &jn, T &an) {
  const int W = L * G, sub = gl / L, ln = gl % L;
  bool issued = false;
  for (unsigned base = e0; base < e1; base += (unsigned)W) {
    /* The row's next batch, if it has one (rung 3's within-row prefetch). */
    const unsigned en = base + (unsigned)W + (unsigned)gl;
    int32_t jb;
    T ab;
    spmm_pair(ci, val, en, e1, jb, ab);
    const int n = e1 - base < (unsigned)W ? (int)(e1 - base) : W;
    const int steps = (n + G - 1) / G;
    for (int t = 0; t < steps; t += SPMM_ROWVEC_U) {
      spmm_round<T, V, CV> rd;
      rd.load(jc, ac, t, G, sub, W, L, ln, mask, X, ldx);
      if (!issued) {
        issued = true;
        spmm_pair(ci, val, f0 + (unsigned)gl, f1, jn, an);
      }
      rd.fma(t, G, sub, n, acc);
    }
    jc = jb;
    ac = ab;
  }
  if (!issued) /* an empty row */
    spmm_pair(ci, val, f0 + (unsigned)gl, f1, jn, an);
}

/* Groups of W = L * G lanes, R = 32 / W rows per warp, rows strided by
 * the grid's groups; rows longer than thr (>= 0) are left to the chunks. */
template <typename T, int V, int CV>
__global__ void __launch_bounds__(PIPE_BLOCK, PIPE_MIN_BLOCKS(T, CV))
    spmm_rowpipe_rows(int64_t rows, const int32_t *__restrict__ rp,
                      const int32_t *__restrict__ ci, const T *__restrict__ val,
                      const T *__restrict__ X, int64_t ldx, T *__restrict__ Y,
                      int64_t ldy, int L, int G, int64_t thr, T alpha, T beta) {
  const int W = L * G, R = 32 / W;
  const int wl = threadIdx.x & 31, grp = wl / W, gl = wl % W;
  const int ln = gl % L, sub = gl / L;
  const unsigned mask = spmm_group_mask(W, grp);
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int64_t stride = warps * R;
  int64_t row = warp * R + grp;
  if (row >= rows)
    return; /* the whole group: its shuffles are its own */
  unsigned e0 = (unsigned)rp[row], e1 = (unsigned)rp[row + 1];
  int64_t row1 = row + stride;
  unsigned f0 = 0, f1 = 0;
  if (row1 < rows) {
    f0 = (unsigned)rp[row1];
    f1 = (unsigned)rp[row1 + 1];
  }
  int32_t j;
  T a;
  spmm_pair(ci, val, e0 + (unsigned)gl, e1, j, a);
  for (;;) {
    const int64_t row2 = row1 + stride;
    unsigned g0 = 0, g1 = 0;
    if (row2 < rows) { /* two rows ahead: in flight during this row */
      g0 = (unsigned)rp[row2];
      g1 = (unsigned)rp[row2 + 1];
    }
    const bool skip = thr >= 0 && (int64_t)(e1 - e0) > thr;
    T acc[CV][V];
#pragma unroll
    for (int cv = 0; cv < CV; cv++)
#pragma unroll
      for (int i = 0; i < V; i++)
        acc[cv][i] = T(0);
    int32_t jn = 0;
    T an = T(0);
    if (!skip) {
      pipe_row<T, V, CV>(e0, e1, j, a, f0, f1, ci, val, X, ldx, L, G, gl, mask,
                         acc, jn, an);
      spmm_group_sum<T, V, CV>(L, W, mask, acc);
      if (sub == 0)
        spmm_store_full<T, V, CV>(Y + row * ldy, L, ln, alpha, beta, acc);
    } else {
      spmm_pair(ci, val, f0 + (unsigned)gl, f1, jn, an); /* chunks sum it */
    }
    if (row1 >= rows)
      break;
    row = row1, row1 = row2;
    e0 = f0, e1 = f1, f0 = g0, f1 = g1;
    j = jn, a = an;
  }
}

template <typename T, int V, int CV>
static cudaError_t pipe_launch(const struct spmm_args *a, int L, int G,
                               int64_t thr) {
  const smv_matrix *m = a->m;
  const int64_t rows = m->st.rows;
  const int R = 32 / (L * G);
  const int64_t warps = (rows + R - 1) / R;
  /* The pipeline pays off when a group has several rows: at most the
   * blocks the device keeps resident (times 1 wave), so every group
   * strides over rows instead of each taking one. */
  const unsigned grid = smv_spmm_grid(
      a->ctx, (const void *)spmm_rowpipe_rows<T, V, CV>, PIPE_BLOCK, warps, 1);
  spmm_rowpipe_rows<T, V, CV><<<grid, PIPE_BLOCK, 0, a->ctx->stream>>>(
      rows, m->row_ptr, m->col_idx, (const T *)m->values, (const T *)a->X,
      a->ldx, (T *)a->Y, a->ldy, L, G, thr, (T)a->alpha, (T)a->beta);
  return cudaGetLastError();
}

/* run: 1 and the kernel launched when k is one full pass at vector width
 * V; 0 when it is not (the caller runs rung 4). */
namespace { /* spmv_14_pipe.cu has a pipe_rows too */
template <typename T, int V> struct pipe_rows {
  static int run(const struct spmm_args *a, int64_t thr, cudaError_t *e) {
    int L, CV;
    smv_spmm_rowvec_shape(a->k, V, &L, &CV);
    if (a->k != L * V * CV) /* smv_spmm_full_pass: the plan asks the same */
      return 0;
    const int G = spmm_rowvec_groups(a->m->st.row_mean, L);
    *e = CV == 2 ? pipe_launch<T, V, 2>(a, L, G, thr)
                 : pipe_launch<T, V, 1>(a, L, G, thr);
    return 1;
  }
};
} // namespace

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  return smv_spmm_rowsplit_with(a, spmm_rows_by_width<pipe_rows>,
                                "rung 8 (rowpipe)");
}

const struct spmm_rung smv_spmm_rung_rowpipe = {
    SMV_SPMM_ROWPIPE, 8, accepts, run, "row-major X and Y", 0};
