/*
 * kernel_common.h — device-side helpers shared by the rungs (C++ templates,
 * src/cuda only).
 *
 * Index arithmetic: rows may be up to 2^31-1 and a grid may hold more
 * threads than rows, so row and warp numbers are int64_t. Entry indices k
 * are `unsigned`: nnz <= INT32_MAX, so k + 32 (or k + blockDim.x) never
 * wraps, where a signed int could overflow on the last stride of a row
 * that ends near 2^31.
 */
#ifndef SMV_CUDA_KERNEL_COMMON_H
#define SMV_CUDA_KERNEL_COMMON_H

#include "engine.h"

#include <cstddef>
#include <type_traits>
#include <utility>

#define SMV_FULL_MASK 0xffffffffu

/* BLAS semantics for the final write: beta = 0 overwrites y without
 * reading it (NaN already in y never leaks). alpha * sum + beta * y is
 * spelled as one rounded product and one fused multiply-add, so that no
 * kernel's surroundings let the compiler contract it the other way round
 * (fma(beta, y, alpha * sum)): rungs that share their sums (10, 12, 13,
 * 14) then give the same bits, not bits that differ in the last place. */
__device__ __forceinline__ double smv_axpby(double a, double s, double b,
                                            double y) {
  return __fma_rn(a, s, __dmul_rn(b, y));
}
__device__ __forceinline__ float smv_axpby(float a, float s, float b, float y) {
  return __fmaf_rn(a, s, __fmul_rn(b, y));
}
template <typename T>
__device__ __forceinline__ T smv_combine(T alpha, T sum, T beta,
                                         const T *y_at) {
  return beta == T(0) ? alpha * sum : smv_axpby(alpha, sum, beta, *y_at);
}

/* Global thread number and thread count of the grid, in 64 bits. */
__device__ __forceinline__ int64_t smv_tid() {
  return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t smv_nthreads() {
  return (int64_t)gridDim.x * blockDim.x;
}

/* ---- one warp per row (rungs 2 to 6) ----------------------------------
 *
 * The skeleton the warp-per-row rungs share: warp w of the grid takes rows
 * w, w + nwarps, ... (the loop is warp-uniform: every lane of a warp has
 * the same `row`, so the whole warp reaches every __syncwarp and shuffle
 * of the finisher); its 32 lanes stride through the row's entries, lane l
 * summing entries begin + l, begin + l + 32, ... What a rung changes is
 * passed in, so each rung's kernel shows only its own loads and reduction:
 *   ptr(i)    row_ptr[i], loaded as the rung loads it (plain or __ldg);
 *   term(k)   val[k] * x[col_idx[k]] for entry k (plain, texture, __ldg);
 *   finish(row, sum, lane, begin, end)  this lane's partial sum of `row`
 *             (entries [begin, end)): reduce the warp's 32 partials and
 *             write y[row] (shared memory, shuffles or atomics).
 * All three are inlined: the code is the hand-written loop's. */
template <typename T, typename Ptr, typename Term, typename Finish>
__device__ __forceinline__ void smv_warp_per_row(int64_t rows, Ptr ptr,
                                                 Term term, Finish finish) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t nwarps = smv_nthreads() >> 5;
  for (int64_t row = smv_tid() >> 5; row < rows; row += nwarps) {
    const unsigned begin = (unsigned)ptr(row);
    const unsigned end = (unsigned)ptr(row + 1);
    T sum = T(0);
    for (unsigned k = begin + lane; k < end; k += 32)
      sum += term(k);
    finish(row, sum, lane, begin, end);
  }
}

/* Rung 2's finisher, kept by rungs 3 and 4: the 32 partials added through
 * shared memory in 5 steps (16, 8, 4, 2, 1), each followed by __syncwarp()
 * (why it is needed since Volta: spmv_2_vector.cu), then lane 0 writes
 * y[row]. Dynamic shared memory: one T per thread of the block. */
template <typename T> struct smv_reduce_smem {
  T alpha, beta;
  T *y;
  __device__ __forceinline__ void operator()(int64_t row, T sum, unsigned lane,
                                             unsigned, unsigned) const {
    extern __shared__ unsigned char smem_raw[];
    T *partial = reinterpret_cast<T *>(smem_raw);
    partial[threadIdx.x] = sum;
    __syncwarp();
    for (unsigned s = 16; s > 0; s >>= 1) {
      if (lane < s)
        partial[threadIdx.x] = sum = sum + partial[threadIdx.x + s];
      __syncwarp();
    }
    if (lane == 0)
      y[row] = smv_combine(alpha, sum, beta, &y[row]);
  }
};

/* ---- programmatic dependent launch (PDL, sm_90+) ---------------------------
 * A kernel launched with programmatic stream serialization may start while
 * the kernel before it on the stream is still running: its blocks are
 * scheduled once every block of that kernel has exited or called
 * smv_pdl_trigger. smv_pdl_wait (griddepcontrol.wait) then blocks until
 * that kernel has completed and its memory is visible. So a kernel
 * launched this way must not touch, before its wait, anything the kernel
 * before it may write; it may read what nothing on the device writes
 * (smv's matrix arrays: uploaded by copies that smv_matrix_create
 * synchronises before it returns, never written by a kernel). Both are
 * no-ops when the kernel was launched without the attribute, and compile
 * to nothing below sm_90, where the launch never asks for it
 * (smv_pdl_capable). */
__device__ __forceinline__ void smv_pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void smv_pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* Whether kernel `k` was compiled with its waits (PTX for sm_90 or later:
 * the waits above exist only there), so it may be launched with PDL. */
static inline bool smv_pdl_capable(const void *k) {
  cudaFuncAttributes fa;
  return cudaFuncGetAttributes(&fa, k) == cudaSuccess && fa.ptxVersion >= 90;
}

/* Launch `k` and return THIS launch's status, with programmatic stream
 * serialization when `pdl` (the kernel must then wait, see above).
 * cudaLaunchKernelEx reports the launch's own error, unlike a <<<>>>
 * launch followed by cudaGetLastError(), which would also return a stale,
 * unrelated error left by an earlier failed call (a refused cudaMalloc,
 * say) and make a good SpMV look failed. */
template <typename... Exp, typename... Act>
static inline cudaError_t
smv_launch_pdl(void (*k)(Exp...), unsigned grid, int block, size_t smem,
               cudaStream_t stream, bool pdl, Act &&...args) {
  cudaLaunchAttribute at[1];
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3((unsigned)block);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  if (pdl) {
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&cfg, k, std::forward<Act>(args)...);
}

/* smv_launch_pdl without the attribute: an ordinary launch. */
template <typename... Exp, typename... Act>
static inline cudaError_t smv_launch_k(void (*k)(Exp...), unsigned grid,
                                       int block, size_t smem,
                                       cudaStream_t stream, Act &&...args) {
  return smv_launch_pdl(k, grid, block, smem, stream, false,
                        std::forward<Act>(args)...);
}

/* ---- host glue of a rung ------------------------------------------------
 *
 * What the dispatcher needs of a rung without per-matrix state (struct
 * smv_rung, engine.h; smv_kernel_rung there makes the descriptor):
 * kernel() for attribute and occupancy queries, smem() for the dynamic
 * shared memory at a block size, launch() on a struct smv_launch. A rung
 * whose kernel K<T> takes the common arguments
 *   (rows, row_ptr, col_idx, values, x, alpha, beta, y)
 * gets all three from one line at the end of its file:
 *   const struct smv_rung smv_rung_NAME =
 *       SMV_SIMPLE_RUNG(SMV_ALG_NAME, K, LANES, SMEM, PREFERRED_BLOCK);
 * LANES threads per row (the grid covers rows * LANES threads), SMEM
 * elements of T of dynamic shared memory per thread (0 or 1), and the
 * measured tie-break block size. A rung with other arguments (3: the
 * texture; 9: its chunk list) writes launch() itself and may still use
 * smv_kernel_pick and smv_smem_per_thread. */

/* The f64 or f32 instance of a kernel, as the runtime's queries want it
 * (a rung runs only the precisions its descriptor names: f64-f32v asks
 * smv_kernel_pick3 of the rungs that run it). */
template <auto K64, auto K32>
static const void *smv_kernel_pick(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)K64 : (const void *)K32;
}
/* The same with KMX, the f64-f32v instance (double vectors and sums,
 * float values). */
template <auto K64, auto K32, auto KMX>
static const void *smv_kernel_pick3(smv_precision prec) {
  return prec == SMV_F64_F32V ? (const void *)KMX
                              : smv_kernel_pick<K64, K32>(prec);
}

/* SMEM elements of the precision's sum type per thread of the block
 * (double in f64 and f64-f32v, float in f32). */
template <int SMEM>
static size_t smv_smem_per_thread(smv_precision prec, int block) {
  return (size_t)block * SMEM * smv_prec_vector_bytes(prec);
}

/* KMX: the f64-f32v instance K<double, float>, or nullptr for a rung that
 * does not run that precision (the dispatcher refuses it first). */
template <auto K64, auto K32, int LANES, int SMEM, auto KMX = nullptr>
struct smv_simple_glue {
  template <typename T, typename V, typename K>
  static cudaError_t run(K k, const struct smv_launch *L) {
    unsigned grid = smv_grid_for(L->rows * LANES, L->block);
    return smv_launch_k(k, grid, L->block,
                        smv_smem_per_thread<SMEM>(L->prec, L->block), L->stream,
                        L->rows, L->row_ptr, L->col_idx, (const V *)L->values,
                        (const T *)L->x, (T)L->alpha, (T)L->beta, (T *)L->y);
  }
  static cudaError_t launch(const struct smv_launch *L) {
    if (L->prec == SMV_F64_F32V) {
      if constexpr (std::is_same<decltype(KMX), std::nullptr_t>::value)
        return cudaErrorInvalidValue;
      else
        return run<double, float>(KMX, L);
    }
    return L->prec == SMV_F64 ? run<double, double>(K64, L)
                              : run<float, float>(K32, L);
  }
};

#define SMV_SIMPLE_RUNG(ALG, K, LANES, SMEM, PREFERRED)                        \
  smv_kernel_rung(ALG, smv_kernel_pick<K<double>, K<float>>,                   \
                  smv_smem_per_thread<SMEM>, PREFERRED,                        \
                  smv_simple_glue<K<double>, K<float>, LANES, SMEM>::launch)

#endif
