/*
 * spmv_9_adaptive.cu — rung 9: a kernel that adapts to the matrix (past
 * the seed). The measurements behind each change, dated and with their
 * commits: bench/results/h100-80gb-hbm3/ladder.md, "Rung notes (moved from
 * the rung files)".
 *
 * What changed from rung 5 (warp per row, shuffle reduction):
 *   1. L lanes per row instead of 32, L in {1, 2, 4, 8, 16, 32} chosen
 *      once per matrix at set-up (choose_lanes below). A warp works on
 *      32 / L rows at once, so short rows no longer leave most lanes idle,
 *      and the reduction takes log2(L) shuffles within the group
 *      (__shfl_xor_sync on the group's own lane mask: groups of one warp
 *      may run different numbers of rows, so the mask names only the
 *      lanes that share the row).
 *   2. Rounds of four: each lane issues four index loads, four value loads,
 *      then four x gathers before its first multiply (slots past the row's
 *      end predicated off), so a thread keeps several gathers in flight
 *      where rungs 1-5 have one load in flight per thread.
 *   3. Rows longer than a threshold (4 L or 16 L entries: one or four
 *      rounds, see plan_threshold) are cut into chunks of SMV_CHUNK (128 =
 *      one round of a warp) and summed by whole warps, in the SAME launch:
 *      the first `chunk_blocks` blocks of the grid take the chunk list
 *      ({row, first entry, row begin, row end}: 16 bytes per chunk), the
 *      blocks after them the short rows. A row of one chunk is written by
 *      its warp directly. A row of n > 1 chunks: each warp stores its
 *      chunk's partial sum, fences, and counts itself in with atomicAdd on
 *      the row's counter; the warp that arrives n-th adds the n partials in
 *      chunk order (lane j takes j, j+32, ..., then a fixed shuffle tree),
 *      writes y = alpha*sum + beta*y and resets the counter to 0 for the
 *      next call. One launch needs no ordering between a beta pass and
 *      atomics (a second kernel costs a launch per SpMV), and the result does
 *      not depend on the order in which warps finish: rung 9 is
 *      bit-reproducible run to run.
 *   4. On matrices larger than the L2 whose rows take 8 or more lanes
 *      (the random-column kind), the column indices and values (read once
 *      per SpMV) are loaded with an L2 evict-first policy (createpolicy +
 *      ld.global.nc.L2::cache_hint), x with the default one, so they do
 *      not push x's lines out (every x miss is a random 32-byte DRAM
 *      read). L1 behaviour is unchanged (the same .nc path as __ldg). NOT
 *      on other matrices: at L = 1 a thread reads its row's entries in four
 *      back-to-back slots and neighbouring threads' rows share sectors, so
 *      each sector is asked for several times within a short window and an
 *      evict-first line, the first victim, goes back to DRAM (lap3d:160
 *      ran up to 1.9x slower with the hint).
 *   5. Small matrices: the one-round plan below (plan_one_round): one
 *      round per row, rows of 129-2048 entries by a whole block, block
 *      size 256. And a kernel for exactly one entry per row
 *      (spmv_one_per_row: 16-byte loads, four rows per thread).
 *   6. Programmatic dependent launch: launched with programmatic stream
 *      serialization, the kernel may start while the kernel before it on
 *      the CUDA stream still runs. Each thread loads its first round's row
 *      offsets, indices and values (matrix arrays: no kernel ever writes
 *      them, see kernel_common.h), then waits (griddepcontrol.wait) before
 *      its first x gather and before it touches y, the partials or the
 *      counters, so the order of the CUDA stream holds for everything the
 *      kernel before may have written. On SpMVs of at most two entries per
 *      resident thread the kernel also triggers at its start, so the next
 *      kernel (if launched the same way: the next SpMV) starts as soon as
 *      all our blocks run (plan_pdl). test_cuda_pdl runs chains whose x is
 *      the previous call's y (in a stream and in a graph); with the wait
 *      removed it fails.
 * Why it should help: lanes match the rows, more loads in flight, no warp
 * waits on one long row, one launch per SpMV.
 * Where it loses: one L for all short rows; the chunk warps' partials and
 * counters live in the rung's state (28 bytes per chunk), so two SpMVs of
 * rung 9 on the SAME matrix must not run at the same time on different
 * CUDA streams when it has rows of more than one chunk (see
 * docs/engine.md).
 * Bytes: the CSR (nnz * (V + 4) + (rows + 1) * 4, V = 8 or 4) plus x and
 * y; the state adds 16 bytes per block row and 28 per chunk. In f64-f32v
 * (V = 4 with x, y, partials and sums in f64: the kernels' value type
 * parameter) nnz * 8 + (rows + 1) * 4 + 8 (cols + rows).
 *
 * Attributes and default block: the rung reports its L = 8 instance; every
 * instance runs with the same block size (chunk and row blocks alike).
 */
#include "kernel_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SMV_CHUNK 128 /* one round of a warp: 32 lanes x 4 entries */

/* Programmatic dependent launch (change 6): OFF, ON (launched with the
 * attribute: our matrix loads overlap the end of the kernel before us) or
 * TRIGGER (also let the kernel after us launch as soon as all our blocks
 * run). */
enum adaptive_pdl { PDL_OFF = 0, PDL_ON = 1, PDL_TRIGGER = 2 };

/* The rung's state on one matrix (its plan), made by setup below.
 * `lanes` threads per row, chosen from the row lengths; rows longer than
 * long_threshold are skipped by the row groups and summed, in the same
 * launch, by one warp per chunk of SMV_CHUNK entries, listed in `chunks`
 * (device, nchunks entries of {row, first entry, row begin, row end}). One
 * allocation (`alloc`, `bytes` long, the only thing freed) holds the
 * block-row list (below), then the chunks, then `partials` (nchunks
 * doubles or floats: each chunk's sum) and `counts` (nchunks unsigned: at
 * a row's first chunk, how many of its chunks are done; 0 between
 * calls): 16 bytes per block row, 28 per chunk.
 * evict_first: load values and indices L2 evict-first (matrices past the
 * L2 with lanes >= 8 only; change 4).
 * The one-round plan for small matrices (plan_one_round): rows of more
 * than one warp round and at most block_row_max entries are summed by a
 * whole block each, listed in block_rows (nblock_rows of {row, begin,
 * end, 0}); block = the launch's block size (0: the context's). Zero for
 * the default plan.
 * one_per_row: nnz == rows, every row one entry: its own kernel. */
struct adaptive_plan {
  int lanes;
  int evict_first;
  int64_t long_threshold;
  int4 *chunks;
  void *partials;
  unsigned *counts;
  int64_t nchunks;
  void *alloc;
  size_t bytes;
  int block;
  int one_per_row;
  enum adaptive_pdl pdl;
  int64_t block_row_max;
  int64_t nblock_rows;
  int4 *block_rows;
};

/* ---- loads, optionally with an L2 eviction policy --------------------------
 * createpolicy / ld.global.nc.L2::cache_hint: PTX ISA 7.4, sm_80+. The
 * loads are `asm volatile`: a plain asm counts as free of side effects, and
 * the compiler could then hoist a slot's load out of its `p ? load : 0`
 * and read past the end of the arrays. */

__device__ __forceinline__ uint64_t smv_policy_evict_first() {
  uint64_t p;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  return p;
}
/* One evict-first load per element type: PTX type suffix and register
 * constraint. */
#define SMV_LD_EVICT_FIRST(T, PTX_TYPE, REG)                                   \
  __device__ __forceinline__ T smv_ld_evict_first(const T *a, uint64_t pol) {  \
    T v;                                                                       \
    asm volatile("ld.global.nc.L2::cache_hint." PTX_TYPE " %0, [%1], %2;"      \
                 : "=" REG(v)                                                  \
                 : "l"(a), "l"(pol));                                          \
    return v;                                                                  \
  }
SMV_LD_EVICT_FIRST(int32_t, "s32", "r")
SMV_LD_EVICT_FIRST(double, "f64", "d")
SMV_LD_EVICT_FIRST(float, "f32", "f")
#undef SMV_LD_EVICT_FIRST

/* A load of the matrix's indices or values (read once per SpMV):
 * evict-first in L2 when EF, else plain __ldg. */
template <bool EF, typename V>
__device__ __forceinline__ V smv_ld_mat(const V *a, uint64_t pol) {
  if constexpr (EF)
    return smv_ld_evict_first(a, pol);
  else
    return __ldg(a);
}

/* Sum of val[k] * x[col[k]] for k = first, first + step, ... < end, in
 * rounds of four: every round issues its four column-index loads, four
 * value loads and then four x gathers before the first multiply (slots
 * past the end are predicated off), so a thread has up to four gathers in
 * flight even on rows shorter than 4 * step. `step` is a constant (L or
 * 32) wherever this is inlined, except for block rows (blockDim.x).
 * V is the stored values' type, T the sums' and x's: V = float, T =
 * double in f64-f32v (each value widened to double before its product). */
template <typename T, typename V, bool EF>
__device__ __forceinline__ T strided_dot(
    unsigned k, unsigned end, unsigned step, const int32_t *__restrict__ col,
    const V *__restrict__ val, const T *__restrict__ x, uint64_t pol) {
  T sum = T(0);
  for (; k < end; k += 4 * step) {
    const bool p1 = k + step < end, p2 = k + 2 * step < end,
               p3 = k + 3 * step < end;
    const int32_t c0 = smv_ld_mat<EF>(&col[k], pol);
    const int32_t c1 = p1 ? smv_ld_mat<EF>(&col[k + step], pol) : 0;
    const int32_t c2 = p2 ? smv_ld_mat<EF>(&col[k + 2 * step], pol) : 0;
    const int32_t c3 = p3 ? smv_ld_mat<EF>(&col[k + 3 * step], pol) : 0;
    const V v0 = smv_ld_mat<EF>(&val[k], pol);
    const V v1 = p1 ? smv_ld_mat<EF>(&val[k + step], pol) : V(0);
    const V v2 = p2 ? smv_ld_mat<EF>(&val[k + 2 * step], pol) : V(0);
    const V v3 = p3 ? smv_ld_mat<EF>(&val[k + 3 * step], pol) : V(0);
    /* x may be the output of the kernel before us (PDL, change 6): the
     * matrix loads above overlap its end, the gathers wait for it. */
    smv_pdl_wait();
    const T x0 = __ldg(&x[c0]);
    const T x1 = p1 ? __ldg(&x[c1]) : T(0);
    const T x2 = p2 ? __ldg(&x[c2]) : T(0);
    const T x3 = p3 ? __ldg(&x[c3]) : T(0);
    sum += T(v0) * x0;
    sum += T(v1) * x1;
    sum += T(v2) * x2;
    sum += T(v3) * x3;
  }
  return sum;
}

/* Rows summed by a whole block (one-round plan only): block b of the
 * first `nbr_blocks` takes rows block_rows[b], [b + nbr_blocks], ... Each
 * warp strides over the row by blockDim.x and reduces with shuffles; warp
 * 0 adds the warps' sums in warp order. No atomics and no partials in
 * global memory: the same bits on every call, and a row of 129-2048
 * entries costs one or two rounds plus one barrier, where chunk warps
 * pay a fence, an atomic and a second read of the partials, on the
 * critical path of a small SpMV. The loop bound and the barriers are
 * block-uniform. */
template <typename T, typename V, bool EF>
__device__ __forceinline__ void block_rows_part(
    unsigned nbr_blocks, int64_t nbr, const int4 *__restrict__ block_rows,
    const int32_t *__restrict__ col_idx, const V *__restrict__ val,
    const T *__restrict__ x, T alpha, T beta, T *__restrict__ y, uint64_t pol) {
  __shared__ T warp_sum[32]; /* blockDim.x <= 1024: at most 32 warps */
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  for (int64_t b = blockIdx.x; b < nbr; b += nbr_blocks) {
    const int4 br = __ldg(&block_rows[b]); /* {row, begin, end, 0} */
    const int64_t row = br.x;
    const unsigned begin = (unsigned)br.y, end = (unsigned)br.z;
    T sum = strided_dot<T, V, EF>(begin + threadIdx.x, end, blockDim.x, col_idx,
                                  val, x, pol);
    for (int off = 16; off > 0; off >>= 1)
      sum += __shfl_xor_sync(SMV_FULL_MASK, sum, off);
    if (lane == 0)
      warp_sum[warp] = sum;
    __syncthreads();
    smv_pdl_wait(); /* before y (threads past the row's end skipped it) */
    if (warp == 0) {
      T total = lane < (blockDim.x >> 5) ? warp_sum[lane] : T(0);
      for (int off = 16; off > 0; off >>= 1)
        total += __shfl_xor_sync(SMV_FULL_MASK, total, off);
      if (lane == 0)
        y[row] = smv_combine(alpha, total, beta, &y[row]);
    }
    __syncthreads(); /* warp_sum is reused by the next row */
  }
}

/* The long rows: warp w of the first `chunk_blocks` blocks takes chunks
 * w, w + nwarps, ... Every branch below is warp-uniform (c, n and `last`
 * are the same on all 32 lanes), so the full-mask shuffles are safe. */
template <typename T, typename V, bool EF>
__device__ __forceinline__ void
long_rows(unsigned first_block, unsigned chunk_blocks, int64_t nchunks,
          const int4 *__restrict__ chunks, const int32_t *__restrict__ col_idx,
          const V *__restrict__ val, const T *__restrict__ x, T alpha, T beta,
          T *__restrict__ y, T *partial, unsigned *count, uint64_t pol) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t nwarps = ((int64_t)chunk_blocks * blockDim.x) >> 5;
  const int64_t tid =
      (int64_t)(blockIdx.x - first_block) * blockDim.x + threadIdx.x;
  for (int64_t c = tid >> 5; c < nchunks; c += nwarps) {
    /* {row, first entry, row's begin, row's end}: the row offsets come
     * with the chunk, one dependent load less on the critical path. */
    const int4 ch = __ldg(&chunks[c]);
    const int64_t row = ch.x;
    const unsigned first = (unsigned)ch.y;
    const unsigned row_begin = (unsigned)ch.z, row_end = (unsigned)ch.w;
    const unsigned end =
        row_end - first < SMV_CHUNK ? row_end : first + SMV_CHUNK;
    T sum = strided_dot<T, V, EF>(first + lane, end, 32, col_idx, val, x, pol);
    for (int off = 16; off > 0; off >>= 1)
      sum += __shfl_xor_sync(SMV_FULL_MASK, sum, off);
    /* Chunks of this row (its length < 2^31, so + SMV_CHUNK - 1 fits). */
    const unsigned n = (row_end - row_begin + SMV_CHUNK - 1) / SMV_CHUNK;
    smv_pdl_wait(); /* before y, the partials and the counters (PDL) */
    if (n == 1) {
      if (lane == 0)
        y[row] = smv_combine(alpha, sum, beta, &y[row]);
      continue;
    }
    /* The row's first chunk: its counter slot and its partials start. */
    const int64_t c0 = c - (int64_t)((first - row_begin) / SMV_CHUNK);
    unsigned last = 0;
    if (lane == 0) {
      partial[c] = sum;
      __threadfence(); /* partial visible before we are counted */
      last = atomicAdd(&count[c0], 1u) == n - 1;
    }
    last = __shfl_sync(SMV_FULL_MASK, last, 0);
    if (!last)
      continue;
    /* Every other chunk of the row fenced its partial before counting
     * itself in; lane 0 saw all n counts. Fence, then the warp barrier
     * orders lane 0's observation before the other lanes' reads, which go
     * to L2 (__ldcg: no stale L1 line). */
    __threadfence();
    __syncwarp();
    T total = T(0);
    for (unsigned i = lane; i < n; i += 32)
      total += __ldcg(&partial[c0 + i]);
    for (int off = 16; off > 0; off >>= 1)
      total += __shfl_xor_sync(SMV_FULL_MASK, total, off);
    if (lane == 0) {
      y[row] = smv_combine(alpha, total, beta, &y[row]);
      count[c0] = 0; /* ready for the next call (stream order) */
    }
  }
}

/* V: the stored values' type (float in f64-f32v, else T). */
template <typename T, int L, bool EF, typename V = T>
__global__ void
spmv_adaptive(int64_t rows, const int32_t *__restrict__ row_ptr,
              const int32_t *__restrict__ col_idx, const V *__restrict__ val,
              const T *__restrict__ x, T alpha, T beta, T *__restrict__ y,
              unsigned long_threshold, unsigned nbr_blocks, int64_t nbr,
              const int4 *__restrict__ block_rows, unsigned chunk_blocks,
              int64_t nchunks, const int4 *__restrict__ chunks, T *partial,
              unsigned *count, unsigned trigger) {
  uint64_t pol = 0;
  if constexpr (EF)
    pol = smv_policy_evict_first();
  if (trigger) /* the next kernel may launch (change 6) */
    smv_pdl_trigger();
  /* Grid: [block rows | chunk warps | row groups]; each test below is
   * block-uniform. */
  if (blockIdx.x < nbr_blocks) {
    block_rows_part<T, V, EF>(nbr_blocks, nbr, block_rows, col_idx, val, x,
                              alpha, beta, y, pol);
    return;
  }
  if (blockIdx.x - nbr_blocks < chunk_blocks) {
    long_rows<T, V, EF>(nbr_blocks, chunk_blocks, nchunks, chunks, col_idx, val,
                        x, alpha, beta, y, partial, count, pol);
    return;
  }
  const unsigned lane = threadIdx.x & (L - 1);
  const unsigned mask = L == 32 ? SMV_FULL_MASK
                                : ((1u << (L & 31)) - 1u)
                                      << ((threadIdx.x & 31u) & ~(L - 1u));
  /* Thread numbers among the row blocks (blockDim is a multiple of 32, so
   * groups never straddle a block). */
  const unsigned skip = nbr_blocks + chunk_blocks;
  const int64_t tid = (int64_t)(blockIdx.x - skip) * blockDim.x + threadIdx.x;
  const int64_t ngroups = ((int64_t)(gridDim.x - skip) * blockDim.x) / L;
  for (int64_t row = tid / L; row < rows; row += ngroups) {
    const unsigned begin = (unsigned)__ldg(&row_ptr[row]);
    const unsigned end = (unsigned)__ldg(&row_ptr[row + 1]);
    if (end - begin > long_threshold)
      continue; /* a chunk warp writes this row */
    T sum = strided_dot<T, V, EF>(begin + lane, end, L, col_idx, val, x, pol);
    for (int off = L / 2; off > 0; off >>= 1)
      sum += __shfl_xor_sync(mask, sum, off);
    smv_pdl_wait(); /* before y (an empty row made no round) */
    if (lane == 0)
      y[row] = smv_combine(alpha, sum, beta, &y[row]);
  }
}

/* ---- exactly one entry per row ---------------------------------------------
 * nnz == rows and no row empty: row i's entry is entry i, so the row
 * offsets are never read (the byte model still counts them), and a thread
 * takes four consecutive rows with 16-byte loads of their four indices and
 * values (and a 16-byte store of y when y is 16-byte aligned). Aggregation
 * prolongators, permutations and diagonal scalings have this shape. Why:
 * with one 4-byte element per row and array, the scalar form (rung 9's row
 * groups at L = 1) issues four times the memory instructions per byte and
 * stays near 80% of the copy bandwidth, where four rows per thread with
 * 16-byte loads come near the copy itself (bench/experiments/
 * five_streams.cu; figures in ladder.md's rung notes). */
template <typename T> struct smv_vec4;
template <> struct smv_vec4<float> {
  static __device__ __forceinline__ float4 load(const float *p) {
    return __ldg(reinterpret_cast<const float4 *>(p));
  }
  static __device__ __forceinline__ float4 load_y(const float *p) {
    return *reinterpret_cast<const float4 *>(p); /* y: not read-only */
  }
  static __device__ __forceinline__ void store(float *p, float4 v) {
    *reinterpret_cast<float4 *>(p) = v;
  }
  using type = float4;
};
struct smv_double4 {
  double x, y, z, w;
};
template <> struct smv_vec4<double> {
  static __device__ __forceinline__ smv_double4 load(const double *p) {
    const double2 a = __ldg(reinterpret_cast<const double2 *>(p));
    const double2 b = __ldg(reinterpret_cast<const double2 *>(p) + 1);
    return {a.x, a.y, b.x, b.y};
  }
  static __device__ __forceinline__ smv_double4 load_y(const double *p) {
    const double2 a = reinterpret_cast<const double2 *>(p)[0];
    const double2 b = reinterpret_cast<const double2 *>(p)[1];
    return {a.x, a.y, b.x, b.y};
  }
  static __device__ __forceinline__ void store(double *p, smv_double4 v) {
    reinterpret_cast<double2 *>(p)[0] = make_double2(v.x, v.y);
    reinterpret_cast<double2 *>(p)[1] = make_double2(v.z, v.w);
  }
  using type = smv_double4;
};

/* W: the stored values' type (float in f64-f32v: a 16-byte load of four
 * values, each widened to double before its product), T the vectors'. */
template <typename T, bool VY, typename W = T>
__global__ void
spmv_one_per_row(int64_t rows, const int32_t *__restrict__ col_idx,
                 const W *__restrict__ val, const T *__restrict__ x, T alpha,
                 T beta, T *__restrict__ y) {
  using V = smv_vec4<T>;
  const int64_t quads = rows >> 2;
  for (int64_t q = smv_tid(); q < quads; q += smv_nthreads()) {
    const int64_t i = 4 * q;
    const int4 c = __ldg(reinterpret_cast<const int4 *>(col_idx) + q);
    const typename smv_vec4<W>::type v = smv_vec4<W>::load(val + i);
    typename V::type r;
    r.x = alpha * (T(v.x) * __ldg(&x[c.x]));
    r.y = alpha * (T(v.y) * __ldg(&x[c.y]));
    r.z = alpha * (T(v.z) * __ldg(&x[c.z]));
    r.w = alpha * (T(v.w) * __ldg(&x[c.w]));
    if constexpr (VY) {
      if (beta != T(0)) {
        const typename V::type o = V::load_y(y + i);
        r.x += beta * o.x, r.y += beta * o.y, r.z += beta * o.z,
            r.w += beta * o.w;
      }
      V::store(y + i, r);
    } else {
      y[i] = beta == T(0) ? r.x : r.x + beta * y[i];
      y[i + 1] = beta == T(0) ? r.y : r.y + beta * y[i + 1];
      y[i + 2] = beta == T(0) ? r.z : r.z + beta * y[i + 2];
      y[i + 3] = beta == T(0) ? r.w : r.w + beta * y[i + 3];
    }
  }
  /* The last rows % 4 rows, one per thread. */
  for (int64_t i = 4 * quads + smv_tid(); i < rows; i += smv_nthreads())
    y[i] = smv_combine(alpha, T(val[i]) * __ldg(&x[__ldg(&col_idx[i])]), beta,
                       &y[i]);
}

template <typename T, typename V>
static cudaError_t run_one_per_row(const smv_launch *P) {
  const unsigned grid = smv_grid_for((P->rows + 3) / 4, P->block);
  const bool vy = ((uintptr_t)P->y & 15u) == 0;
  auto k = vy ? spmv_one_per_row<T, true, V> : spmv_one_per_row<T, false, V>;
  return smv_launch_k(k, grid, P->block, 0, P->stream, P->rows, P->col_idx,
                      (const V *)P->values, (const T *)P->x, (T)P->alpha,
                      (T)P->beta, (T *)P->y);
}

template <typename T, typename V, int L, bool EF>
static cudaError_t run_l(const smv_launch *P) {
  const struct adaptive_plan *p = (const struct adaptive_plan *)P->state;
  /* The plan's block size unless the caller fixed one for every rung
   * (dispatch.cu's launch_block decides). */
  const int block = P->block;
  /* Block rows, then chunk blocks: they carry the longest dependency
   * chains (list, offsets, entries, x, then the reduction), so they start
   * earliest. Each part loops, so capping its blocks keeps the grid under
   * gridDim.x's 2^31 - 1. */
  const unsigned nbr_blocks =
      (unsigned)(p->nblock_rows < (1 << 20) ? p->nblock_rows : (1 << 20));
  unsigned chunk_blocks = 0;
  if (p->nchunks > 0) {
    int64_t want = (p->nchunks * 32 + block - 1) / block;
    chunk_blocks = (unsigned)(want < (1 << 24) ? want : (1 << 24));
  }
  const int64_t room = (int64_t)INT32_MAX - nbr_blocks - chunk_blocks;
  int64_t row_blocks = smv_grid_for(P->rows * L, block);
  if (row_blocks > room)
    row_blocks = room;
  const unsigned grid = nbr_blocks + chunk_blocks + (unsigned)row_blocks;
  return smv_launch_pdl(
      spmv_adaptive<T, L, EF, V>, grid, block, 0, P->stream, p->pdl != PDL_OFF,
      P->rows, P->row_ptr, P->col_idx, (const V *)P->values, (const T *)P->x,
      (T)P->alpha, (T)P->beta, (T *)P->y, (unsigned)p->long_threshold,
      nbr_blocks, p->nblock_rows, (const int4 *)p->block_rows, chunk_blocks,
      p->nchunks, (const int4 *)p->chunks, (T *)p->partials, p->counts,
      (unsigned)(p->pdl == PDL_TRIGGER));
}

/* T: the vectors' and sums' type, V the stored values' (f64: double,
 * double; f32: float, float; f64-f32v: double, float). */
template <typename T, typename V>
static cudaError_t run(const struct smv_launch *P) {
  const struct adaptive_plan *p = (const struct adaptive_plan *)P->state;
  if (p->one_per_row)
    return run_one_per_row<T, V>(P);
  const bool ef = p->evict_first; /* only ever set with lanes >= 8 */
  switch (p->lanes) {
  case 1:
    return run_l<T, V, 1, false>(P);
  case 2:
    return run_l<T, V, 2, false>(P);
  case 4:
    return run_l<T, V, 4, false>(P);
  case 8:
    return ef ? run_l<T, V, 8, true>(P) : run_l<T, V, 8, false>(P);
  case 16:
    return ef ? run_l<T, V, 16, true>(P) : run_l<T, V, 16, false>(P);
  default:
    return ef ? run_l<T, V, 32, true>(P) : run_l<T, V, 32, false>(P);
  }
}

static cudaError_t launch(const struct smv_launch *P) {
  switch (P->prec) {
  case SMV_F64:
    return run<double, double>(P);
  case SMV_F64_F32V:
    return run<double, float>(P);
  default:
    return run<float, float>(P);
  }
}

/* ---- analysis --------------------------------------------------------------
 */

/* Largest power of two <= v, in 1..32. */
static int pow2_floor(double v) {
  int L = 1;
  while (L < 32 && 2.0 * L <= v)
    L *= 2;
  return L;
}

/* Lanes per row.
 *
 * Rows shorter than 8 on average: one thread per row (a thread's unrolled
 * loads cover its row, neighbouring rows share cache lines; L = 2, 4 and 8
 * were slower on lap3d:160).
 *
 * Longer rows, matrix larger than the L2 (nnz * (value + index) bytes >
 * the device's L2 size: DRAM-bound): one entry per lane on the mean row,
 * L = the largest power of two <= mean. A group of L lanes then reads its
 * row's indices and values in one contiguous piece, so one warp load
 * covers whole 128-byte lines (rand:2000000:16 at L = 16: indices of two
 * rows = one line, values of two rows = two lines); at L = 8 the same load
 * touches the first halves of four rows and the next load the second
 * halves: twice the L1 -> L2 requests for the same bytes, next to the 16
 * random x sectors per row that already bound these matrices.
 *
 * Longer rows, matrix inside the L2: about two entries per lane, L = the
 * largest power of two <= mean / 2 (these small matrices are
 * latency-bound, and two entries per lane put two gathers in flight per
 * thread). The lane sweeps behind all three: ladder.md's rung notes. */
static int choose_lanes(const smv_context *ctx, const smv_matrix *m) {
  const struct smv_matrix_stats *s = &m->st;
  if (s->row_mean < 8.0)
    return 1;
  if (smv_matrix_past_l2(ctx, m))
    return pow2_floor(s->row_mean);
  return pow2_floor(s->row_mean / 2.0);
}

/* The long-row tiers, in one place: a row longer than the threshold is
 * summed by a whole block when it is longer than one warp round
 * (SMV_CHUNK) and at most bmax long (bmax = 0: never, the default plan),
 * else in chunks of SMV_CHUNK by warps. */
static bool is_block_row(int64_t len, int64_t bmax) {
  return len > SMV_CHUNK && len <= bmax;
}

/* Block rows and warp chunks of A's rows longer than thr. */
static void count_long_rows(const smv_csr *A, int64_t thr, int64_t bmax,
                            int64_t *nblock_rows, int64_t *nchunks) {
  int64_t nb = 0, n = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
    if (len <= thr)
      continue;
    if (is_block_row(len, bmax))
      nb++;
    else
      n += (len + SMV_CHUNK - 1) / SMV_CHUNK;
  }
  *nblock_rows = nb;
  *nchunks = n;
}

/* Rows longer than the threshold go to the chunk warps.
 *
 * Default 16 L (four rounds of a group): the longest row the row blocks
 * keep is the kernel's critical path, which is what small matrices with a
 * few long rows are made of (memplus, rajat01, wiki-Vote ran 2-3x faster
 * with 16 L than with 64 L).
 *
 * 4 L (one round) when the whole SpMV is tiny: if the row groups plus one
 * warp per chunk of the rows longer than 4 L fit in a quarter of the
 * device's resident threads (16 of 64 warps per SM), the GPU is mostly
 * idle and the time is the launch plus the longest dependency chain. One
 * round per row, rows past 4 L taken by whole warps (rung 5's shape: one
 * round of up to 128 entries), keeps that chain at its shortest. It loses
 * a little where the "long" rows have only 5-6 entries (two rounds at
 * L = 1 would be cheaper than a chunk warp there; not tuned). Above the
 * budget a warp per long row costs waves of warps (crack, 10240 rows of
 * 3-9), so 16 L stays. */
static int64_t plan_threshold(const smv_context *ctx,
                              const struct adaptive_plan *p, const smv_csr *A) {
  const int64_t L = p->lanes;
  const int64_t budget = (int64_t)ctx->prop.multiProcessorCount *
                         ctx->prop.maxThreadsPerMultiProcessor / 4;
  if (A->rows * L > budget) /* no pass over the rows of a large matrix */
    return 16 * L;
  int64_t nb, n;
  count_long_rows(A, 4 * L, 0, &nb, &n);
  return A->rows * L + 32 * n <= budget ? 4 * L : 16 * L;
}

/* ---- the one-round plan (small matrices) ---------------------------------
 *
 * A matrix of at most half a wave of rows (rows <= resident threads / 2)
 * inside the L2 is latency-bound: its time is the launch plus the longest
 * dependency chain, and each round of a row (offsets, then indices and
 * values, then x) is one more chain of L2 round trips. So this plan gives
 * every row ONE round:
 *   L = the smallest power of two with 4 L >= the 99th percentile of the
 *       row lengths (halved while rows * L exceeds the resident threads:
 *       one wave), threshold 4 L;
 *   rows of 4 L + 1 .. 128 entries: one warp each (a chunk, one round);
 *   rows of 129 .. 2048 entries: one block of 256 each (one or two
 *       rounds and a barrier; block_rows_part above);
 *   longer rows: chunks of 128 with the partials and counters, as before;
 *   block size 256 for the whole launch (ahead of 128 at the same plan).
 * It is used only when the warps and blocks of the long rows add at most
 * as many threads as the row groups (else with two rounds, 8 L, when L
 * was halved; else the default plan). It was chosen from a sweep of L,
 * rounds, unroll, block size and long-row strategy on the 28 real
 * matrices in CUDA graphs (ladder.md's rung notes). */
#define SMV_ONE_ROUND_BLOCK 256
#define SMV_BLOCK_ROW_MAX (2 * 4 * SMV_ONE_ROUND_BLOCK)

/* Fills lanes, long_threshold, block and block_row_max and returns 1 if
 * the one-round plan applies, else 0 (plan untouched). */
static int plan_one_round(const smv_context *ctx, const smv_matrix *m,
                          struct adaptive_plan *p, const smv_csr *A) {
  const int64_t resident = (int64_t)ctx->prop.multiProcessorCount *
                           ctx->prop.maxThreadsPerMultiProcessor;
  if (A->rows == 0 || A->rows > resident / 2 || smv_matrix_past_l2(ctx, m))
    return 0;
  /* Row-length histogram up to 128 (4 x 32 lanes), longer ones together:
   * the 99th percentile. */
  int64_t hist[130] = {0};
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t len = (int64_t)A->row_ptr[i + 1] - A->row_ptr[i];
    hist[len > 128 ? 129 : len]++;
  }
  const int64_t want = (A->rows * 99 + 99) / 100; /* ceil(0.99 rows) */
  int64_t q99 = 129, seen = 0;
  for (int v = 0; v < 130; v++)
    if ((seen += hist[v]) >= want) {
      q99 = v;
      break;
    }
  int L = 1;
  while (L < 32 && 4 * L < q99)
    L *= 2;
  while (L > 1 && A->rows * L > resident)
    L /= 2;
  /* One round (threshold 4 L), else two (8 L) when L was halved above;
   * taken only if the long rows' warps and blocks add at most as many
   * threads as the row groups have (gyro_m: L = 8, 8% of the rows over
   * 32 entries, 44k extra threads against 139k: one round; bcsstk33: L =
   * 16, 54% over 64: two rounds, 3.5 against 4.2 us in a graph). */
  for (int rounds = 1; rounds <= 2; rounds++) {
    const int64_t thr = 4 * L * rounds;
    int64_t nb, n;
    count_long_rows(A, thr, SMV_BLOCK_ROW_MAX, &nb, &n);
    if (nb * SMV_ONE_ROUND_BLOCK + 32 * n <= A->rows * L) {
      p->lanes = L;
      p->long_threshold = thr;
      p->block = SMV_ONE_ROUND_BLOCK;
      p->block_row_max = SMV_BLOCK_ROW_MAX;
      return 1;
    }
  }
  return 0;
}

/* PDL (change 6 at the top): ON whenever the kernels carry their waits;
 * TRIGGER when the SpMV has at most two entries per resident thread, where
 * it is latency-bound and the next kernel's launch and matrix loads fit
 * beside it. Above that the early launch lost on the largest real
 * matrices (G2_circuit, 727k entries, ran slower than with ON). */
static enum adaptive_pdl plan_pdl(const smv_context *ctx, const smv_matrix *m) {
  if (!smv_pdl_capable((const void *)spmv_adaptive<double, 8, false>))
    return PDL_OFF;
  const int64_t resident = (int64_t)ctx->prop.multiProcessorCount *
                           ctx->prop.maxThreadsPerMultiProcessor;
  return m->st.nnz <= 2 * resident ? PDL_TRIGGER : PDL_ON;
}

/* The plan and, with rows past the threshold, their lists on the device
 * (one allocation). On error *state stays NULL and nothing is left. */
static smv_status plan_lists(smv_context *ctx, const smv_csr *A,
                             struct adaptive_plan *p) {
  /* Rows past the threshold: a block each when the plan has block rows
   * and the row is longer than one warp round (128) and at most
   * block_row_max long, else chunks of SMV_CHUNK for warps. */
  const int64_t thr = p->long_threshold, bmax = p->block_row_max;
  int64_t nb, n;
  count_long_rows(A, thr, bmax, &nb, &n);
  /* One allocation: nb block rows {row, begin, end, 0} (16 bytes each),
   * n chunks {row, first entry, row begin, row end} (16 bytes each: the
   * kernel reads no row offsets for them), n partial sums (8 bytes each,
   * doubles or floats), n counters (4 bytes each; only the slot of a
   * row's first chunk is used). Counters start at 0 and every call leaves
   * them at 0. */
  const size_t rows_bytes = (size_t)nb * sizeof(int4);
  const size_t list_bytes = (size_t)n * sizeof(int4);
  const size_t host_bytes = rows_bytes + list_bytes;
  const size_t bytes = host_bytes + (size_t)n * (sizeof(double) + 4);
  char *h = (char *)calloc(1, host_bytes);
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %zu bytes (long-row lists): out of memory",
                       host_bytes);
  int4 *hb = (int4 *)h;
  int4 *hc = (int4 *)(h + rows_bytes);
  int64_t b = 0, c = 0;
  for (int64_t i = 0; i < A->rows; i++) {
    const int64_t beg = A->row_ptr[i], end = A->row_ptr[i + 1];
    if (end - beg <= thr)
      continue;
    if (is_block_row(end - beg, bmax))
      hb[b++] = make_int4((int)i, (int)beg, (int)end, 0);
    else
      for (int64_t k = beg; k < end; k += SMV_CHUNK)
        hc[c++] = make_int4((int)i, (int)k, (int)beg, (int)end);
  }
  smv_status st = SMV_OK;
  void *d = NULL;
  cudaError_t err = cudaMalloc(&d, bytes);
  if (err != cudaSuccess) {
    st = smv_cu_fail(ctx, err,
                     "cudaMalloc of %zu bytes (long-row lists, partials and "
                     "counters)",
                     bytes);
  } else {
    p->alloc = d; /* freed by release */
    p->bytes = bytes;
    p->block_rows = (int4 *)d;
    p->chunks = (int4 *)((char *)d + rows_bytes);
    p->partials = (char *)d + host_bytes;
    p->counts = (unsigned *)((char *)d + host_bytes + (size_t)n * 8);
    /* Each step names itself if it fails. */
    const char *what = "cudaMemcpy of the long-row lists";
    err =
        cudaMemcpyAsync(d, h, host_bytes, cudaMemcpyHostToDevice, ctx->stream);
    if (err == cudaSuccess && n > 0) {
      what = "cudaMemset of the long-row counters";
      err = cudaMemsetAsync(p->counts, 0, (size_t)n * 4, ctx->stream);
    }
    if (err == cudaSuccess) {
      what = "cudaStreamSynchronize after the long-row set-up";
      err = cudaStreamSynchronize(ctx->stream);
    }
    if (err != cudaSuccess) {
      st = smv_cu_fail(ctx, err, "%s (%zu bytes)", what, bytes);
    } else {
      p->nchunks = n;
      p->nblock_rows = nb;
    }
  }
  free(h);
  return st;
}

static void release(void *state) {
  struct adaptive_plan *p = (struct adaptive_plan *)state;
  if (!p)
    return;
  cudaFree(p->alloc); /* cudaFree(NULL) does nothing */
  free(p);
}

/* The rung's analysis: choose the lanes per row from the statistics, list
 * and upload the long rows' chunks. */
static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  *state = NULL;
  struct adaptive_plan *p =
      (struct adaptive_plan *)calloc(1, sizeof(struct adaptive_plan));
  if (!p)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "rung 9 plan: out of host memory");
  /* Exactly one entry in every row (nnz == rows and none longer than 1,
   * so none empty): the kernel above, nothing to set up. */
  p->one_per_row = m->st.nnz == m->st.rows && m->st.row_max == 1;
  p->pdl = PDL_OFF;
  if (!p->one_per_row) {
    if (!plan_one_round(ctx, m, p, A)) {
      p->lanes = choose_lanes(ctx, m);
      p->long_threshold = plan_threshold(ctx, p, A);
    }
    p->pdl = plan_pdl(ctx, m);
    /* Evict-first loads (change 4 at the top): past the L2, L >= 8. */
    p->evict_first = smv_matrix_past_l2(ctx, m) && p->lanes >= 8;
    if (m->st.row_max > p->long_threshold) {
      const smv_status st = plan_lists(ctx, A, p);
      if (st != SMV_OK) {
        release(p);
        return st;
      }
    }
  }
  *state = p;
  return SMV_OK;
}

static size_t device_bytes(const smv_matrix *, const void *state) {
  const struct adaptive_plan *p = (const struct adaptive_plan *)state;
  return p ? p->bytes : 0;
}

static int plan_block(const void *state) {
  return ((const struct adaptive_plan *)state)->block;
}

/* One line on the plan (lanes, threshold, long-row lists), for the
 * analysis record. */
static void describe(const smv_matrix *, const void *state, char *buf,
                     size_t n) {
  const struct adaptive_plan *p = (const struct adaptive_plan *)state;
  if (p->one_per_row) {
    snprintf(buf, n, "rung 9 plan: one entry per row, four rows per thread");
    return;
  }
  char block[24] = "the context's";
  if (p->block)
    snprintf(block, sizeof block, "%d", p->block);
  static const char *const pdl[] = {
      "", ", PDL (overlaps the kernel before)",
      ", PDL (overlaps the kernels before and after)"};
  snprintf(buf, n,
           "rung 9 plan: %s, %d lanes per row, rows over %lld entries to "
           "%lld warp chunks and %lld block rows, block %s%s",
           p->block_row_max ? "one-round" : "default", p->lanes,
           (long long)p->long_threshold, (long long)p->nchunks,
           (long long)p->nblock_rows, block, pdl[p->pdl]);
}

/* Attributes and default block: the L = 8 instance. */
static constexpr struct smv_rung descriptor() {
  struct smv_rung r =
      smv_kernel_rung(SMV_ALG_ADAPTIVE,
                      smv_kernel_pick3<spmv_adaptive<double, 8, false>,
                                       spmv_adaptive<float, 8, false>,
                                       spmv_adaptive<double, 8, false, float>>,
                      smv_smem_per_thread<0>, 128, launch);
  r.precisions |= SMV_PREC_F32V; /* f64-f32v: V = float above */
  r.host_rows = 1;
  r.setup = setup;
  r.release = release;
  r.device_bytes = device_bytes;
  r.describe = describe;
  r.block = plan_block;
  return r;
}
const struct smv_rung smv_rung_adaptive = descriptor();
