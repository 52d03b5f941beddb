/*
 * spmm_3_rowvec.cu — SpMM rung 3, row-major X and Y (the GNN layout):
 * vector loads along k, (col, val) pairs loaded once per warp and
 * shuffled, several rows per warp (spmm_rowvec.cuh has the inner loop).
 *
 * What changed from rung 1 (lanes): rung 1 gives a row 8..32 lanes, one
 * column (or two) per lane, and every lane reloads each (col, val) pair
 * by a broadcast load; at k < 8 it falls back to the column-gather kernel.
 * Here a lane loads V columns at once (16 bytes: 4 floats or 2 doubles),
 * so k = 32 f32 needs only L = 8 lanes; the other 24 lanes of the warp
 * take other entries of the same row (G sub-groups) or other rows (32 /
 * (L * G) rows per warp) when rows are short. Each pair is read from
 * memory once per warp (coalesced) and passed by shuffles.
 *
 * Why it should help: fewer load instructions per byte of X (a 16-byte
 * load per lane instead of 4), all 32 lanes busy at any k (rung 1 idles
 * 24 of 32 lanes at k = 8), A's stream coalesced.
 *
 * Shapes: L = pow2 >= ceil(k / V) (<= 32), CV = 2 past 32 vectors, so a
 * pass covers up to 64 V columns (256 f32, 128 f64); wider k takes more
 * passes over the row (A re-read from L1/L2). G = pow2 <= mean row length,
 * with L * G <= 32. Bytes: A once, X once per entry (the gather: entries
 * x k x 4 or 8 bytes, from L2 where X fits), Y once (twice if beta != 0).
 *
 * Where it loses: a row much longer than the mean (a power-law hub)
 * keeps one group busy for its whole length while the rest of the device
 * idles at the end: rung 4 cuts such rows. X past the L2 with scattered
 * columns is DRAM-latency bound like any gather.
 */
#include "spmm_rowvec.cuh"

#define ROWVEC_BLOCK 256

/* One group per row: rows r with rp[r+1] - rp[r] > thr (thr >= 0) are
 * skipped (rung 4 sums them). Y = alpha * A X + beta * Y on the others;
 * beta = 0 never reads Y. */
template <typename T, int V, int CV>
__global__ void __launch_bounds__(ROWVEC_BLOCK)
    spmm_rowvec_rows(int64_t rows, const int32_t *__restrict__ rp,
                     const int32_t *__restrict__ ci, const T *__restrict__ val,
                     const T *__restrict__ X, int64_t ldx, T *__restrict__ Y,
                     int64_t ldy, int k, int L, int G, int64_t thr, T alpha,
                     T beta) {
  const int W = L * G, R = 32 / W;
  const int wl = threadIdx.x & 31, grp = wl / W, gl = wl % W;
  const int ln = gl % L, sub = gl / L;
  const unsigned mask = spmm_group_mask(W, grp);
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
  const int TW = L * V * CV;
  for (int64_t r0 = warp * R; r0 < rows; r0 += warps * R) {
    const int64_t row = r0 + grp;
    if (row >= rows)
      continue; /* the whole group: the shuffles are per group */
    const unsigned e0 = (unsigned)rp[row], e1 = (unsigned)rp[row + 1];
    if (thr >= 0 && (int64_t)(e1 - e0) > thr)
      continue;
    T *yr = Y + row * ldy;
    for (int c0 = 0; c0 < k; c0 += TW) {
      T acc[CV][V];
      spmm_rowvec_range<T, V, CV>(e0, e1, ci, val, X, ldx, k, c0, L, G, gl,
                                  mask, acc);
      if (sub != 0)
        continue;
#pragma unroll
      for (int cv = 0; cv < CV; cv++) {
        const int c = c0 + (cv * L + ln) * V;
        if (c >= k)
          continue;
        if (c + V <= k) {
          spmm_store_vec<T, V>(yr + c, acc[cv], alpha, beta);
        } else {
#pragma unroll
          for (int i = 0; i < V; i++)
            if (c + i < k)
              yr[c + i] = beta == T(0) ? alpha * acc[cv][i]
                                       : alpha * acc[cv][i] + beta * yr[c + i];
        }
      }
    }
  }
}

template <typename T, int V, int CV>
static cudaError_t rowvec_launch(const struct spmm_args *a, int L, int G,
                                 int64_t thr) {
  const smv_matrix *m = a->m;
  const int64_t rows = m->st.rows;
  const int R = 32 / (L * G);
  const int64_t warps = (rows + R - 1) / R;
  const unsigned grid = smv_grid_for(warps * 32, ROWVEC_BLOCK);
  spmm_rowvec_rows<T, V, CV><<<grid, ROWVEC_BLOCK, 0, a->ctx->stream>>>(
      rows, m->row_ptr, m->col_idx, (const T *)m->values, (const T *)a->X,
      a->ldx, (T *)a->Y, a->ldy, a->k, L, G, thr, (T)a->alpha, (T)a->beta);
  return cudaGetLastError();
}

template <typename T, int V>
static cudaError_t rowvec_cv(const struct spmm_args *a, int64_t thr) {
  int L, CV;
  smv_spmm_rowvec_shape(a->k, V, &L, &CV);
  const int G = spmm_rowvec_groups(a->m->st.row_mean, L);
  return CV == 2 ? rowvec_launch<T, V, 2>(a, L, G, thr)
                 : rowvec_launch<T, V, 1>(a, L, G, thr);
}

smv_status smv_spmm_rowvec_run(const struct spmm_args *a, int64_t thr) {
  const int v = spmm_rowvec_width(a);
  cudaError_t e;
  if (a->m->prec == SMV_F32)
    e = v == 4   ? rowvec_cv<float, 4>(a, thr)
        : v == 2 ? rowvec_cv<float, 2>(a, thr)
                 : rowvec_cv<float, 1>(a, thr);
  else
    e = v == 2 ? rowvec_cv<double, 2>(a, thr) : rowvec_cv<double, 1>(a, thr);
  if (e != cudaSuccess)
    return smv_cu_fail(a->ctx, e, "launch of SpMM rung 3 (rowvec, k = %d)",
                       a->k);
  return SMV_OK;
}

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  return smv_spmm_rowvec_run(a, -1);
}

const struct spmm_rung smv_spmm_rung_rowvec = {
    SMV_SPMM_ROWVEC, 3, accepts, run, "row-major X and Y", 0};
