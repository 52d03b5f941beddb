/*
 * coop_phases.h — where a persistent CG iteration's time goes, for the
 * experiment build only (make ... NVCCFLAGS+=-DSMV_COOP_PHASES; the
 * library never defines it, so every macro below is empty there).
 *
 * Thread 0 of each block reads clock64() at the phase marks of the loop
 * and adds each interval to its phase (one __shared__ accumulator per
 * block), then prints one line per block at the end of the launch:
 *
 *   PH b=<block> sm=<smid> its=<iterations> ns=<globaltimer, loop> c0..c7
 *
 * c_k = phase k's cycles summed over the launch's iterations (divide by
 * its; the ns field converts cycles to time). Phases of cg1 and the
 * resident kernel: 0 the scalar step, 1 the rows (to the block's last
 * thread: a __syncthreads closes it), 2 the block's partial, 3 the grid
 * barrier (grid.sync: the wait for the slowest block and the barrier's
 * own round trips), 4 the sum of the G partials, 5 the stop test, 6 the
 * copy in (resident: once a launch), 7 the start pass, 8 the sum's loads
 * (phase 4 is then the sum's block reduction alone), 9 the resident
 * kernel's own rows' values and halo gathers (phase 1 is then its rows'
 * products from shared memory). Only thread 0's
 * clock: phase 1 covers the block's slowest warp through the
 * __syncthreads; the barrier's phase covers the grid's slowest block.
 */
#ifndef SMV_CUDA_COOP_PHASES_H
#define SMV_CUDA_COOP_PHASES_H

#ifdef SMV_COOP_PHASES
#include <cstdio>

namespace smv_solve {
struct coop_phases {
  long long acc[10], last;
  unsigned long long t0;
};
__device__ __forceinline__ coop_phases &coop_ph() {
  __shared__ coop_phases p;
  return p;
}
__device__ __forceinline__ unsigned long long coop_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned coop_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
} // namespace smv_solve

#define SMV_PH_BEGIN()                                                         \
  do {                                                                         \
    if (threadIdx.x == 0) {                                                    \
      smv_solve::coop_phases &p_ = smv_solve::coop_ph();                       \
      for (int k_ = 0; k_ < 10; k_++)                                          \
        p_.acc[k_] = 0;                                                        \
      p_.t0 = smv_solve::coop_globaltimer();                                   \
      p_.last = clock64();                                                     \
    }                                                                          \
  } while (0)
#define SMV_PH(k)                                                              \
  do {                                                                         \
    if (threadIdx.x == 0) {                                                    \
      smv_solve::coop_phases &p_ = smv_solve::coop_ph();                       \
      const long long t_ = clock64();                                          \
      p_.acc[k] += t_ - p_.last;                                               \
      p_.last = t_;                                                            \
    }                                                                          \
  } while (0)
#define SMV_PH_SYNC(k)                                                         \
  do {                                                                         \
    __syncthreads();                                                           \
    SMV_PH(k);                                                                 \
  } while (0)
#define SMV_PH_END(its)                                                        \
  do {                                                                         \
    if (threadIdx.x == 0) {                                                    \
      smv_solve::coop_phases &p_ = smv_solve::coop_ph();                       \
      const unsigned long long ns_ = smv_solve::coop_globaltimer() - p_.t0;    \
      printf("PH b=%d sm=%u its=%d ns=%llu c=%lld %lld %lld %lld %lld %lld "   \
             "%lld %lld %lld %lld\n",                                          \
             (int)blockIdx.x, smv_solve::coop_smid(), (int)(its), ns_,         \
             p_.acc[0], p_.acc[1], p_.acc[2], p_.acc[3], p_.acc[4], p_.acc[5], \
             p_.acc[6], p_.acc[7], p_.acc[8], p_.acc[9]);                      \
    }                                                                          \
  } while (0)
#else
#define SMV_PH_BEGIN()                                                         \
  do {                                                                         \
  } while (0)
#define SMV_PH(k)                                                              \
  do {                                                                         \
  } while (0)
#define SMV_PH_SYNC(k)                                                         \
  do {                                                                         \
  } while (0)
#define SMV_PH_END(its)                                                        \
  do {                                                                         \
    (void)(its);                                                               \
  } while (0)
#endif

#endif
