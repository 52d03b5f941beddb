/*
 * spmm_10_rowstream.cu — SpMM rung 10, row-major X and Y with X rows of a
 * whole warp (f32 k = 128, 256; f64 k = 64, 128: the GNN widths): a warp
 * streams the entries of 32 consecutive rows as one sequence, its X loads
 * running ahead across row ends, instead of taking the rows one by one.
 *
 * What changed from rung 4: there (rung 3's row kernel) a warp takes one
 * row, loads its offsets, then its (col, val) pairs, then gathers, adds
 * and stores; then the next row. On a graph most rows are short (R-MAT:
 * a few entries each), so a row is three dependent trips to memory for a
 * handful of gathers: Nsight Compute found rung 4's row kernel waiting on
 * memory latency with neither the L2 nor the DRAM busy, while its chunk
 * kernel (hub rows: long streams of entries) kept the L2 busy
 * (bench/results/h200/spmm.md, rung 10). Here the warp's window of 32 rows is
 * one stream, like a chunk: lane i loads row i's offsets once (one coalesced
 * load of 33 offsets a window), the pairs come 32 at a time, the next
 * batch's while this one gathers, and U X rows are in flight at every
 * step whatever row they belong to. A row end is a warp-uniform test per
 * entry against the offset shuffled from its lane: store the sums (16
 * bytes a lane: the warp's 32 lanes hold the whole X row, so no sums
 * cross lanes), reset, go on.
 *
 * Same arithmetic as rung 4 with G = 1 (its shape at these widths): each
 * lane adds its columns' products in entry order, acc = a * x + acc, from
 * 0; rows longer than a chunk go to rung 4's chunks and fix-up, as there.
 * So the bits are rung 4's (tests/test_cuda_spmm.c compares them).
 *
 * Bytes: rung 4's (A once, X once per entry: entries x k x 4 or 8 bytes,
 * Y once, twice if beta != 0), plus 33 offsets a window instead of 2 a
 * row. Registers: U x CV vectors of X (U = 8 / CV: 32 registers of X in
 * flight for f32 k = 128), the pairs of two batches, the window's offsets.
 *
 * The plan runs it on a graph's rows (a row past a chunk, half the rows
 * short) with one or two 16-byte vectors a lane (src/spmm/spmm_plan.c);
 * its measured results are in bench/results/h200/spmm.md, "Rung 10".
 *
 * Where it loses: rows of many entries each (a stencil's 27): rung 3
 * already streams within a row, and a window is one warp's 864 entries,
 * so fewer warps share the work. Two vectors a lane (f32 k = 256: 86
 * registers) hold fewer warps an SM, so its lead over rung 4 is smaller
 * there than at one. Only full passes (k = 32 x V x CV):
 * any other k, and X rows narrower than a warp, run rung 4.
 */
#include "spmm_rowvec.cuh"

#include <stdlib.h>

/* Threads a block (at most STREAM_BLOCK): one warp, so one window. A
 * window's warp is done when its 32 rows are, windows of a graph differ
 * many times over in entries, and a block's slot frees only when its
 * slowest warp ends, so 8-window blocks left most of the SM's warp slots
 * the registers allow empty. One-warp blocks free a slot per window (an
 * sm_90 SM holds 32 blocks: the registers, not the block count, limit
 * it). SMV_SPMM_STREAM_BLOCK (32..256, a multiple of 32) overrides it for
 * experiments. */
#define STREAM_BLOCK 256
#define STREAM_BLOCK_DEFAULT 32

static int stream_block(void) {
  const char *s = getenv("SMV_SPMM_STREAM_BLOCK");
  if (s) {
    const int b = atoi(s);
    if (b >= 32 && b <= STREAM_BLOCK && b % 32 == 0)
      return b;
  }
  return STREAM_BLOCK_DEFAULT;
}

/* X rows in flight per warp: U = 8 (f32 k = 128: 8 x 16 bytes a lane,
 * 4 KB a warp), halved with two vectors a lane; SMV_SPMM_STREAM_U = 4
 * halves it again (fewer registers) for experiments. */
static int stream_u(void) {
  const char *s = getenv("SMV_SPMM_STREAM_U");
  return s && atoi(s) == 4 ? 4 : 8;
}

/* Y's row at yr = alpha * acc + beta * Y (the whole warp: lane ln holds
 * columns (cv * 32 + ln) * V ..), then acc = 0. */
template <typename T, int V, int CV>
__device__ __forceinline__ void stream_flush(T *yr, int ln, T alpha, T beta,
                                             T (&acc)[CV][V]) {
  spmm_store_full<T, V, CV>(yr, 32, ln, alpha, beta, acc);
#pragma unroll
  for (int cv = 0; cv < CV; cv++)
#pragma unroll
    for (int i = 0; i < V; i++)
      acc[cv][i] = T(0);
}

/* One warp per window of 32 rows [w0, w0 + nr). Rows longer than thr
 * (thr >= 0) are skipped: their entries are not in the stream (rung 4's
 * chunks sum them, its fix-up writes their Y rows). */
template <typename T, int V, int CV, int U>
__global__ void __launch_bounds__(STREAM_BLOCK)
    spmm_rowstream_rows(int64_t rows, const int32_t *__restrict__ rp,
                        const int32_t *__restrict__ ci,
                        const T *__restrict__ val, const T *__restrict__ X,
                        int64_t ldx, T *__restrict__ Y, int64_t ldy,
                        int64_t thr, T alpha, T beta) {
  const int ln = threadIdx.x & 31;
  const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const int64_t w0 = warp * 32;
  if (w0 >= rows)
    return; /* the whole warp */
  const int nr = rows - w0 < 32 ? (int)(rows - w0) : 32;
  /* Lane i: row w0 + i's entries [lo, hi); lanes past the window hold
   * the window's end (empty). */
  const int li = ln < nr ? ln : nr;
  const unsigned hi = (unsigned)rp[w0 + li + (ln < nr ? 1 : 0)];
  const unsigned lo = ln < nr ? (unsigned)rp[w0 + ln] : hi;
  const unsigned longs =
      __ballot_sync(0xffffffffu, thr >= 0 && (int64_t)(hi - lo) > thr);
  T acc[CV][V];
#pragma unroll
  for (int cv = 0; cv < CV; cv++)
#pragma unroll
    for (int i = 0; i < V; i++)
      acc[cv][i] = T(0);
  int r = 0;
  while (r < nr) {
    /* A segment: rows r .. s - 1, none long, their entries contiguous. */
    const unsigned after = r < 31 ? longs & ~((2u << r) - 1u) : 0u;
    const unsigned here = longs & (1u << r);
    if (here) { /* row r is long: the chunks have it */
      r++;
      continue;
    }
    const int s = after ? __ffs(after) - 1 : nr;
    const unsigned e0 = __shfl_sync(0xffffffffu, lo, r);
    const unsigned e1 = __shfl_sync(0xffffffffu, hi, s - 1);
    int cur = r;
    unsigned bnd = __shfl_sync(0xffffffffu, hi, cur);
    int32_t j;
    T a;
    spmm_pair(ci, val, e0 + (unsigned)ln, e1, j, a);
    for (unsigned base = e0; base < e1; base += 32u) {
      const int32_t jc = j;
      const T ac = a;
      spmm_pair(ci, val, base + 32u + (unsigned)ln, e1, j, a); /* next */
      const int n = e1 - base < 32u ? (int)(e1 - base) : 32;
      for (int t = 0; t < n; t += U) {
        T xv[U][CV][V];
        T w[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
          /* Steps past n read the lane's (0, 0) pair or a wrapped one: a
           * valid X row whose product is dropped below. */
          const int32_t jj = __shfl_sync(0xffffffffu, jc, (t + u) & 31);
          w[u] = __shfl_sync(0xffffffffu, ac, (t + u) & 31);
          const T *xr = X + (int64_t)jj * ldx;
#pragma unroll
          for (int cv = 0; cv < CV; cv++)
            spmm_vload<T, V>(xr + (cv * 32 + ln) * V, xv[u][cv]);
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
          if (t + u < n) { /* no break: the loop stays unrolled */
            const unsigned e = base + (unsigned)(t + u);
            while (e >= bnd) { /* row cur ended (warp-uniform) */
              stream_flush<T, V, CV>(Y + (w0 + cur) * ldy, ln, alpha, beta,
                                     acc);
              cur++;
              bnd = __shfl_sync(0xffffffffu, hi, cur);
            }
#pragma unroll
            for (int cv = 0; cv < CV; cv++)
#pragma unroll
              for (int i = 0; i < V; i++)
                acc[cv][i] = w[u] * xv[u][cv][i] + acc[cv][i];
          }
        }
      }
    }
    /* The segment's last row with entries, and empty rows after it. */
    for (; cur < s; cur++)
      stream_flush<T, V, CV>(Y + (w0 + cur) * ldy, ln, alpha, beta, acc);
    r = s;
  }
}

template <typename T, int V, int CV, int U>
static cudaError_t stream_launch(const struct spmm_args *a, int64_t thr) {
  const smv_matrix *m = a->m;
  const int64_t rows = m->st.rows;
  const int64_t warps = (rows + 31) / 32;
  const int block = stream_block();
  const unsigned grid = smv_grid_for(warps * 32, block);
  spmm_rowstream_rows<T, V, CV, U><<<grid, block, 0, a->ctx->stream>>>(
      rows, m->row_ptr, m->col_idx, (const T *)m->values, (const T *)a->X,
      a->ldx, (T *)a->Y, a->ldy, thr, (T)a->alpha, (T)a->beta);
  return cudaGetLastError();
}

/* run: 1 and the kernel launched when k at vector width V is one full
 * pass of a whole warp (L = 32, k = 32 x V x CV); 0 when not (rung 4
 * runs). */
namespace { /* internal linkage: one name per rung file */
template <typename T, int V> struct stream_rows {
  static int run(const struct spmm_args *a, int64_t thr, cudaError_t *e) {
    int L, CV;
    smv_spmm_rowvec_shape(a->k, V, &L, &CV);
    if (L != 32 || a->k != L * V * CV)
      return 0;
    const int u = stream_u();
    if (CV == 2)
      *e = u == 4 ? stream_launch<T, V, 2, 2>(a, thr)
                  : stream_launch<T, V, 2, 4>(a, thr);
    else
      *e = u == 4 ? stream_launch<T, V, 1, 4>(a, thr)
                  : stream_launch<T, V, 1, 8>(a, thr);
    return 1;
  }
};
} // namespace

static int accepts(const struct spmm_args *a) {
  return a->layout == SMV_LAYOUT_ROW_MAJOR;
}

static smv_status run(const struct spmm_args *a) {
  return smv_spmm_rowsplit_with(a, spmm_rows_by_width<stream_rows>,
                                "rung 10 (rowstream)");
}

const struct spmm_rung smv_spmm_rung_rowstream = {
    SMV_SPMM_ROWSTREAM, 10, accepts, run, "row-major X and Y", 0};
