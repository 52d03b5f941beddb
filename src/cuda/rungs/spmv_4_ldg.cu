/*
 * spmv_4_ldg.cu — rung 4: rung 2 with the read-only data path (the seed's
 * third rung, sm_35's `const __restrict__` + ld.global.nc).
 *
 * What changed: every array the kernel only reads is `const T
 * *__restrict__`, and x is loaded with __ldg(), so the loads compile to
 * LDG.E.CONSTANT (ld.global.nc: non-coherent, read-only cache) without a
 * texture object, and the compiler may keep them in flight across the
 * loop since no store can alias them. Should help the scattered x gather
 * like the texture path did, without its setup (no object, any length of
 * x). On sm_90 L1, texture and read-only caches are one store, so the gain
 * over rung 2 comes mostly from the freedom `__restrict__` gives the
 * scheduler, not from a separate cache. The reduction is still rung 2's
 * shared-memory tree (with __syncwarp, see spmv_2_vector.cu).
 *
 * This kernel is also rung 3's fallback when x cannot be bound to a
 * texture (see spmv_3_tex.cu).
 *
 * Block size: 32 registers and block * sizeof(T) bytes of shared memory: 64,
 * 128, 256, 512 and 1024 threads all reach 64 of 64 warps per SM on sm_90. Tie
 * settled by a block sweep on lap3d:160 f64, one warp per row (ladder.md's
 * rung notes): 128 threads fastest, each doubling slower; 64
 * threads also reach full occupancy but were 50% slower (2M blocks of two
 * warps: block launch rate, not occupancy, limits). On the small cage10
 * every size from 128 up is within 5%. So 128.
 */
#include "kernel_common.h"

template <typename T>
__global__ void
spmv_vector_ldg(int64_t rows, const int32_t *__restrict__ row_ptr,
                const int32_t *__restrict__ col_idx, const T *__restrict__ val,
                const T *__restrict__ x, T alpha, T beta, T *__restrict__ y) {
  /* Rung 2 with every load through __ldg; same reduction. */
  smv_warp_per_row<T>(
      rows, [=](int64_t i) { return __ldg(&row_ptr[i]); },
      [=](unsigned k) {
        return __ldg(&val[k]) * __ldg(&x[__ldg(&col_idx[k])]);
      },
      smv_reduce_smem<T>{alpha, beta, y});
}

const struct smv_rung smv_rung_vector_ldg =
    SMV_SIMPLE_RUNG(SMV_ALG_VECTOR_LDG, spmv_vector_ldg, 32, 1, 128);
