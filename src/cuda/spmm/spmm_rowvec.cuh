/*
 * spmm_rowvec.cuh — the inner loop rungs 3 and 4 share (row-major X):
 * a group of W = L * G lanes of one warp sums the entries [e0, e1) of one
 * row (rung 3) or one chunk of a row (rung 4) for the columns c0 ..
 * c0 + L*V*CV - 1.
 *
 * Lanes of the group: sub = gl / L (one of G sub-groups, each taking
 * every G-th entry), ln = gl % L (its place along k). Lane ln of a
 * sub-group holds CV vectors of V columns: c = c0 + (cv * L + ln) * V, so
 * the L lanes of a sub-group read one X row as L * V contiguous elements
 * per cv (f32 V = 4, L = 8: 128 bytes, one line; L = 32: 512 bytes).
 *
 * Row caching (GE-SpMM's idea): the group loads W (col, val) pairs at
 * once, lane gl the pair at e0 + gl (coalesced: W * 8 bytes for f32), and
 * hands them to the sub-groups with shuffles, instead of each sub-group
 * reloading each pair by a broadcast load per entry. Then sub-group s
 * takes entries t * G + s of the batch, t = 0 .. L - 1.
 *
 * At the end the G partial sums of each column are added across the
 * sub-groups with xor shuffles (offsets L, 2L, .., W/2): every lane of the
 * group ends with the same total, in an order fixed by (L, G), so the
 * result does not depend on scheduling (deterministic). Entries are
 * indexed unsigned: nnz <= INT32_MAX, so e + 32 never wraps.
 */
#ifndef SMV_CUDA_SPMM_ROWVEC_CUH
#define SMV_CUDA_SPMM_ROWVEC_CUH

#include "spmm_ladder.h"

/* Steps of the full-width loop whose X loads are all issued before the
 * first of their FMAs: U x CV vectors of V elements in flight per lane
 * (f32 k = 32: 4 x 16 bytes; with the warp's 32 lanes, 2 KB per warp). */
#define SPMM_ROWVEC_U 4

/* The (col, val) pair at entry e of a row ending at e1, or (0, 0) past
 * it: column 0 is a valid X row to gather, its weight drops out. */
template <typename T>
__device__ __forceinline__ void spmm_pair(const int32_t *__restrict__ ci,
                                          const T *__restrict__ val, unsigned e,
                                          unsigned e1, int32_t &j, T &a) {
  j = 0;
  a = T(0);
  if (e < e1) {
    j = __ldg(ci + e);
    a = __ldg(val + e);
  }
}

/* The G sub-groups' partial sums of each column added with xor shuffles
 * (offsets L, 2L, .., W/2): every lane of the group ends with the same
 * total, in an order fixed by (L, G). */
template <typename T, int V, int CV>
__device__ __forceinline__ void spmm_group_sum(int L, int W, unsigned mask,
                                               T (&acc)[CV][V]) {
  for (int off = L; off < W; off *= 2)
#pragma unroll
    for (int cv = 0; cv < CV; cv++)
#pragma unroll
      for (int i = 0; i < V; i++)
        acc[cv][i] += __shfl_xor_sync(mask, acc[cv][i], off, W);
}

/* One round of SPMM_ROWVEC_U steps of a full pass, split in two so a
 * caller can issue other loads between them (rung 8): load() shuffles the
 * steps' (col, val) pairs out of the batch (jc, ac) and issues all their
 * X loads; fma() adds them to acc. Steps past the batch (src >= n) load a
 * valid X row (src wraps within the group; dead lanes hold column 0) and
 * are dropped by a select, not multiplied by 0 (0 x Inf would be NaN). */
template <typename T, int V, int CV> struct spmm_round {
  T xv[SPMM_ROWVEC_U][CV][V];
  T w[SPMM_ROWVEC_U];
  __device__ __forceinline__ void load(int32_t jc, T ac, int t, int G, int sub,
                                       int W, int L, int ln, unsigned mask,
                                       const T *__restrict__ X, int64_t ldx) {
#pragma unroll
    for (int u = 0; u < SPMM_ROWVEC_U; u++) {
      const int src = (t + u) * G + sub;
      const int32_t jj = __shfl_sync(mask, jc, src, W);
      w[u] = __shfl_sync(mask, ac, src, W);
      const T *xr = X + (int64_t)jj * ldx;
#pragma unroll
      for (int cv = 0; cv < CV; cv++)
        spmm_vload<T, V>(xr + (cv * L + ln) * V, xv[u][cv]);
    }
  }
  __device__ __forceinline__ void fma(int t, int G, int sub, int n,
                                      T (&acc)[CV][V]) const {
#pragma unroll
    for (int u = 0; u < SPMM_ROWVEC_U; u++)
#pragma unroll
      for (int cv = 0; cv < CV; cv++)
#pragma unroll
        for (int i = 0; i < V; i++) {
          const T f = w[u] * xv[u][cv][i] + acc[cv][i];
          acc[cv][i] = (t + u) * G + sub < n ? f : acc[cv][i];
        }
  }
};

/* V elements of Y at p = alpha * a + beta * p, one vector store; beta = 0
 * never reads Y. */
template <typename T, int V>
__device__ __forceinline__ void spmm_store_vec(T *p, const T (&a)[V], T alpha,
                                               T beta) {
  typedef typename spmm_vec<T, V>::t VT;
  VT *q = reinterpret_cast<VT *>(p);
  T o[V];
  if (beta == T(0)) {
#pragma unroll
    for (int i = 0; i < V; i++)
      o[i] = alpha * a[i];
  } else {
    T y[V];
    spmm_unpack(*q, y);
#pragma unroll
    for (int i = 0; i < V; i++)
      o[i] = alpha * a[i] + beta * y[i];
  }
  *q = spmm_pack(o);
}

/* A full pass's sums into Y's row yr (every lane's V columns below k), by
 * the lanes of sub-group 0, which hold them. */
template <typename T, int V, int CV>
__device__ __forceinline__ void spmm_store_full(T *yr, int L, int ln, T alpha,
                                                T beta, const T (&acc)[CV][V]) {
#pragma unroll
  for (int cv = 0; cv < CV; cv++)
    spmm_store_vec<T, V>(yr + (cv * L + ln) * V, acc[cv], alpha, beta);
}

/* The pass c0 .. c0 + L*V*CV - 1 when all of it lies below k (every GNN k
 * that is a multiple of the pass width): no tail, so the loop has no
 * branch between its loads (spmm_round). The next batch's (col, val) pairs are
 * loaded before this batch's steps, so A's stream overlaps the X gathers. */
template <typename T, int V, int CV>
__device__ __forceinline__ void
spmm_rowvec_full(unsigned e0, unsigned e1, const int32_t *__restrict__ ci,
                 const T *__restrict__ val, const T *__restrict__ X,
                 int64_t ldx, int c0, int L, int G, int gl, unsigned mask,
                 T (&acc)[CV][V]) {
  const int W = L * G, sub = gl / L, ln = gl % L;
  unsigned e = e0 + (unsigned)gl;
  int32_t j;
  T a;
  spmm_pair(ci, val, e, e1, j, a);
  for (unsigned base = e0; base < e1; base += (unsigned)W) {
    const int32_t jc = j;
    const T ac = a;
    e += (unsigned)W;
    spmm_pair(ci, val, e, e1, j, a);
    const int n = e1 - base < (unsigned)W ? (int)(e1 - base) : W;
    const int steps = (n + G - 1) / G;
    for (int t = 0; t < steps; t += SPMM_ROWVEC_U) {
      spmm_round<T, V, CV> rd;
      rd.load(jc, ac, t, G, sub, W, L, ln, mask, X + c0, ldx);
      rd.fma(t, G, sub, n, acc);
    }
  }
}

/* A pass with the tail of k in it (c + V > k for some lane): per-element
 * loads where the vector would pass k. acc is summed into, not reset. */
template <typename T, int V, int CV>
__device__ __forceinline__ void
spmm_rowvec_tail(unsigned e0, unsigned e1, const int32_t *__restrict__ ci,
                 const T *__restrict__ val, const T *__restrict__ X,
                 int64_t ldx, int k, int c0, int L, int G, int gl,
                 unsigned mask, T (&acc)[CV][V]) {
  const int W = L * G, sub = gl / L, ln = gl % L;
  for (unsigned base = e0; base < e1; base += (unsigned)W) {
    const unsigned e = base + (unsigned)gl;
    int32_t j;
    T a;
    spmm_pair(ci, val, e, e1, j, a);
    const int n = e1 - base < (unsigned)W ? (int)(e1 - base) : W;
    /* n, so steps, is the same on every lane of the group: the shuffles
     * below run on all of them together. A counted loop (no break) lets
     * the compiler issue the unrolled steps' X loads back to back. */
    const int steps = (n + G - 1) / G;
#pragma unroll 4
    for (int t = 0; t < steps; t++) {
      const int src = t * G + sub;
      const int32_t jj = __shfl_sync(mask, j, src, W);
      const T aa = __shfl_sync(mask, a, src, W);
      if (src < n) {
        const T *xr = X + (int64_t)jj * ldx;
#pragma unroll
        for (int cv = 0; cv < CV; cv++) {
          const int c = c0 + (cv * L + ln) * V;
          if (c < k) {
            T xv[V];
            spmm_load_row<T, V>(xr + c, c, k, xv);
#pragma unroll
            for (int i = 0; i < V; i++)
              acc[cv][i] += aa * xv[i];
          }
        }
      }
    }
  }
}

template <typename T, int V, int CV>
__device__ __forceinline__ void
spmm_rowvec_range(unsigned e0, unsigned e1, const int32_t *__restrict__ ci,
                  const T *__restrict__ val, const T *__restrict__ X,
                  int64_t ldx, int k, int c0, int L, int G, int gl,
                  unsigned mask, T (&acc)[CV][V]) {
  const int W = L * G;
#pragma unroll
  for (int cv = 0; cv < CV; cv++)
#pragma unroll
    for (int i = 0; i < V; i++)
      acc[cv][i] = T(0);
  if (c0 + L * V * CV <= k) {
    spmm_rowvec_full<T, V, CV>(e0, e1, ci, val, X, ldx, c0, L, G, gl, mask,
                               acc);
  } else {
    spmm_rowvec_tail<T, V, CV>(e0, e1, ci, val, X, ldx, k, c0, L, G, gl, mask,
                               acc);
  }
  spmm_group_sum<T, V, CV>(L, W, mask, acc);
}

/* The lanes of group `grp` (W lanes) of a warp, as a shuffle mask. */
__device__ __forceinline__ unsigned spmm_group_mask(int W, int grp) {
  return W == 32 ? 0xffffffffu : ((1u << W) - 1u) << (grp * W);
}

/* Lanes along k (L) and vectors per lane (CV): smv_spmm_rowvec_shape, in
 * internal.h so the plan (spmm_plan.c) computes the same full pass.
 * Sub-groups per row (G): the largest power of two <= the mean row
 * length, within the warp (L * G <= 32). */
static inline int spmm_rowvec_groups(double row_mean, int L) {
  int g = 1;
  while (g * 2 * L <= 32 && 2.0 * g <= row_mean)
    g *= 2;
  return g;
}

/* The widest vector (elements) for these operands: 16 bytes when ldx,
 * ldy, X and Y allow it and k is that wide, else narrower. */
static inline int spmm_rowvec_width(const struct spmm_args *a) {
  const int f32 = a->m->prec == SMV_F32;
  const size_t es = f32 ? 4 : 8;
  int v = f32 ? 4 : 2;
  while (v > 1 && (v > a->k || a->ldx % v || a->ldy % v ||
                   (uintptr_t)a->X % (v * es) || (uintptr_t)a->Y % (v * es)))
    v /= 2;
  return v;
}

/* F<T, V>::run(a, thr, e) at the matrix's precision and the widest
 * vector these operands allow (rungs 8 and 10: their row kernels by
 * shape; 0 when F does not take the shape). */
template <template <typename, int> class F>
static inline int spmm_rows_by_width(const struct spmm_args *a, int64_t thr,
                                     cudaError_t *e) {
  const int v = spmm_rowvec_width(a);
  if (a->m->prec == SMV_F32)
    return v == 4   ? F<float, 4>::run(a, thr, e)
           : v == 2 ? F<float, 2>::run(a, thr, e)
                    : F<float, 1>::run(a, thr, e);
  return v == 2 ? F<double, 2>::run(a, thr, e) : F<double, 1>::run(a, thr, e);
}

#endif
