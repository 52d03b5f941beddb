/*
 * smv_lab.h — the lab's public API, on top of smv.h: the occupancy
 * calculator (pure C), the engine's kernel introspection and the GPU timing
 * of SpMV. Users who only multiply need smv.h alone.
 *
 * Linking: the occupancy calculator and kernel introspection live in
 * libsmv (the engine chooses its block sizes with them); the timing
 * (smv_bench_spmv, smv_device_copy_bandwidth) lives in libsmvlab:
 *   cc app.c -lsmvlab -lsmv ...      (or: pkg-config --libs smv-lab)
 * Conventions are smv.h's.
 */
#ifndef SMV_LAB_H
#define SMV_LAB_H

#include "smv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* Occupancy calculator (pure C, no GPU)                                     */
/* ======================================================================== */

/* How a row's shared-memory capacity per SM is chosen (see smv_occupancy_ex):
 * fixed (Maxwell, Pascal), a cudaFuncSetCacheConfig split (Fermi, Kepler), or
 * a carveout rounded up to a supported size (Volta and later). */
typedef enum {
  SMV_SMEM_FIXED = 0,        /* dedicated shared memory, nothing to choose  */
  SMV_SMEM_CACHE_CONFIG = 1, /* smem_configs = {prefer L1, [equal], shared} */
  SMV_SMEM_CARVEOUT = 2      /* smem_configs = the supported carveouts      */
} smv_smem_model;

#define SMV_ARCH_MAX_SMEM_CONFIGS 12

/* One row of the architecture table: the per-SM limits that decide how
 * many blocks of a kernel are resident at once. Byte counts are bytes,
 * register counts are 32-bit registers. The struct is plain data: a caller
 * may fill one for a GPU the table lacks and pass it to smv_occupancy. */
typedef struct {
  int cc_major, cc_minor;
  const char *name;          /* "Kepler GK110/GK208", ...                  */
  int max_threads_per_block; /* 1024 (512 on CC 1.x; not in table)        */
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int regs_per_sm;             /* register file per SM                      */
  int regs_per_block;          /* most registers one block may hold         */
  int max_regs_per_thread;     /* 63 on CC 2.x and 3.0, 255 later           */
  int reg_alloc_unit;          /* registers are allocated in these units     */
  int reg_alloc_per_warp;      /* 1: the unit applies per warp; 0: per block */
  int warp_alloc_granularity;  /* warps per register partition (the SM's
                                  register file is split this many ways)    */
  int warp_alloc_compat;       /* 0, or a second granularity whose register
                                  limit must also allow a block (CC 6.0:
                                  GP10x's 4, as cuda_occupancy.h does)      */
  int smem_per_sm;             /* largest shared-memory capacity per SM     */
  int smem_per_block;          /* default max per block (48 KB)             */
  int smem_per_block_optin;    /* opt-in max (cudaFuncSetAttribute)         */
  int smem_alloc_unit;         /* bytes                                     */
  int smem_reserved_per_block; /* bytes the system takes per block (1 KB on
                                  CC >= 8.0)                                */
  smv_smem_model smem_model;
  int smem_config_count; /* entries used in smem_configs              */
  int smem_configs[SMV_ARCH_MAX_SMEM_CONFIGS]; /* capacities, ascending      */
  const char *source; /* where the numbers come from               */
} smv_arch;

/* Look up a compute capability; NULL if not in the table. */
const smv_arch *smv_arch_find(int cc_major, int cc_minor);
/* The whole table (for listing), *count rows, ascending compute
 * capability: 2.0 2.1 3.0 3.5 3.7 5.0 5.2 5.3 6.0 6.1 6.2 7.0 7.2 7.5 8.0
 * 8.6 8.7 8.9 9.0 10.0 12.0. */
const smv_arch *smv_arch_table(int *count);
/* Parse "3.5", "35", "sm_35", "sm_90a", "compute_120" into a compute
 * capability (not checked against the table). SMV_ERR_PARSE if malformed. */
smv_status smv_arch_parse_cc(const char *s, int *cc_major, int *cc_minor);

/* Bits of smv_occupancy_result.limited_by. */
#define SMV_LIMIT_WARPS 1u
#define SMV_LIMIT_BLOCKS 2u
#define SMV_LIMIT_REGS 4u
#define SMV_LIMIT_SMEM 8u

/* A per-limit block count for a resource the kernel does not use (0
 * registers, 0 bytes of shared memory): that limit never binds. */
#define SMV_OCC_UNLIMITED 2147483647

typedef struct {
  int blocks_per_sm; /* resident blocks per SM (0: cannot launch)      */
  int warps_per_sm;  /* blocks_per_sm * warps_per_block               */
  int max_warps_per_sm;
  double occupancy;    /* warps_per_sm / max_warps_per_sm               */
  unsigned limited_by; /* SMV_LIMIT_* bits of every limit that binds    */
  int blocks_by_warps; /* blocks each limit alone allows                */
  int blocks_by_blocks;
  int blocks_by_regs; /* SMV_OCC_UNLIMITED for 0 registers             */
  int blocks_by_smem; /* SMV_OCC_UNLIMITED when nothing is allocated   */
  /* The arithmetic behind the numbers above. */
  int warps_per_block;   /* ceil(threads / 32)                            */
  int regs_per_warp;     /* regs * 32 rounded up to the unit (per-warp)   */
  int regs_per_block;    /* registers allocated to one block              */
  int warps_by_regs;     /* warps per SM the register file holds          */
  size_t smem_per_block; /* allocated: request + reserved, rounded up     */
  int smem_per_sm;       /* the capacity per SM the model used (carveout) */
  int smem_optin;        /* 1: the request exceeds the default per-block
                            limit (needs cudaFuncAttributeMaxDynamic-
                            SharedMemorySize)                             */
} smv_occupancy_result;

/* The shared-memory preference, as CUDA offers it. cache_config is
 * cudaFuncSetCacheConfig (Fermi, Kepler; on Volta+ it maps to carveout 0,
 * 100 or 50 when carveout is default); carveout is
 * cudaFuncAttributePreferredSharedMemoryCarveout in percent of smem_per_sm
 * (Volta and later; -1 = no preference). Both are hints the driver
 * overrides when a single block would not fit. */
typedef enum {
  SMV_CACHE_PREFER_NONE = 0,
  SMV_CACHE_PREFER_SHARED = 1,
  SMV_CACHE_PREFER_L1 = 2,
  SMV_CACHE_PREFER_EQUAL = 3
} smv_cache_config;

#define SMV_CARVEOUT_DEFAULT (-1)
typedef struct {
  int carveout;                  /* SMV_CARVEOUT_DEFAULT or 0..100         */
  smv_cache_config cache_config; /* SMV_CACHE_PREFER_NONE by default       */
} smv_occupancy_options;
#define SMV_OCCUPANCY_OPTIONS_INIT                                             \
  { SMV_CARVEOUT_DEFAULT, SMV_CACHE_PREFER_NONE }

/* Resident blocks for a kernel of `threads_per_block` threads using
 * regs_per_thread registers and smem_per_block bytes of shared memory
 * (static + dynamic) on `arch`, with no shared-memory preference: the
 * largest capacity per SM, as cuda_occupancy.h and the runtime's
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor assume. Requests above the
 * default 48 KB per block assume the kernel opted in (r->smem_optin says
 * so). SMV_ERR_ARG for NULL pointers, threads outside
 * 1..max_threads_per_block, registers outside 0..max_regs_per_thread or
 * shared memory above smem_per_block_optin. A valid request whose block
 * still cannot fit (e.g. 1024 threads x 63 registers on CC 2.0 exceeds
 * regs_per_block) is SMV_OK with blocks_per_sm = 0. */
smv_status smv_occupancy(const smv_arch *arch, int threads_per_block,
                         int regs_per_thread, size_t smem_per_block,
                         smv_occupancy_result *r);
/* The same with a shared-memory preference (opt may be NULL = defaults;
 * SMV_ERR_ARG for a carveout outside -1..100 or an unknown cache_config). */
smv_status smv_occupancy_ex(const smv_arch *arch, int threads_per_block,
                            int regs_per_thread, size_t smem_per_block,
                            const smv_occupancy_options *opt,
                            smv_occupancy_result *r);

/* Shared memory per block as a function of the block size (e.g. the seed's
 * vector kernel: (block + 16) * sizeof(double)). */
typedef size_t (*smv_smem_fn)(int threads_per_block, void *user);

/* Choose a block size by occupancy: try every multiple of 32 from 32 to
 * min(max_block, arch->max_threads_per_block) (max_block <= 0: no extra
 * cap) and return the SMALLEST block reaching the highest warps per SM,
 * with its result. Shared memory per block is smem_fn(block, user) when
 * smem_fn is not NULL, else smem_fixed. Sizes whose request is invalid
 * (shared memory above the opt-in limit) are skipped; SMV_ERR_ARG if none
 * is valid or no block can be resident at all (*best_block = 0 then). */
smv_status smv_occupancy_best_block(const smv_arch *arch, int regs_per_thread,
                                    size_t smem_fixed, smv_smem_fn smem_fn,
                                    void *user, int max_block, int *best_block,
                                    smv_occupancy_result *best);

/* ======================================================================== */
/* Random numbers                                                            */
/* ======================================================================== */

/* splitmix64 (Steele, Lea and Flood): the one random stream of smv, used by
 * the generators, the lab's random vectors and the tests. Deterministic for
 * a seed {s}, identical on every platform. smv_mix64 is its finaliser (a
 * good 64-bit hash, for deriving seeds). In libsmv. */
typedef struct {
  uint64_t s;
} smv_rng;
uint64_t smv_rng_next(smv_rng *g);
uint64_t smv_mix64(uint64_t z);

/* ======================================================================== */
/* Kernel introspection (the CUDA engine's own kernels)                      */
/* ======================================================================== */

/* A kernel's real resources (cudaFuncGetAttributes) and the runtime's own
 * occupancy figure for it. */
typedef struct {
  int regs_per_thread;
  size_t static_smem_bytes;
  size_t dynamic_smem_bytes; /* what the engine launches it with, per block
                                at the given block size (0 if none) */
  size_t local_bytes;
  int max_threads_per_block;
  int ptx_version, binary_version;
} smv_kernel_attrs;

/* Names of the engine's own kernels for `smv occupancy --kernel`. */
const char *smv_kernel_name(smv_alg alg);
/* 1 if smv_matrix_tune times rung alg (its line in src/core/rungs.def
 * says `tuned`), 0 otherwise or out of range. */
int smv_alg_tuned(smv_alg alg);
/* Line i (from 0) of AUTO's rule, as docs/engine.md shows it:
 * "1. `!f->past_l2` -> `adaptive` (rung 9): the matrix fits in the L2".
 * The lines are the ones the engine evaluates, in order (the first that
 * holds wins; src/core/auto.def). SMV_ERR_NOT_FOUND past the last line,
 * SMV_ERR_ARG if buf is NULL or too small. In libsmv, no CUDA needed. */
smv_status smv_auto_rule_line(int i, char *buf, size_t n);
smv_status smv_kernel_attributes(smv_context *ctx, smv_alg alg,
                                 smv_precision prec, int block,
                                 smv_kernel_attrs *out);
smv_status smv_kernel_occupancy_cuda(smv_context *ctx, smv_alg alg,
                                     smv_precision prec, int block,
                                     int *blocks_per_sm);
/* The block size the engine uses for a rung by default on this device. */
smv_status smv_kernel_default_block(smv_context *ctx, smv_alg alg,
                                    smv_precision prec, int *block);
/* The block size smv_spmv(ctx, alg, ..., dA, ...) launches: the context's
 * override (smv_context_set_block_size) if set, else the matrix's own plan
 * where it has one (rung 9's one-round plan: 256), else the default above.
 * SMV_ERR_NOT_FOUND for AUTO and the cuSPARSE rungs (no kernel of ours). */
smv_status smv_matrix_launch_block(smv_context *ctx, const smv_matrix *dA,
                                   smv_alg alg, int *block);
/* ======================================================================== */
/* Measurement                                                               */
/* ======================================================================== */

/* How smv_bench_spmv times. Start from SMV_BENCH_OPTIONS_INIT (or pass
 * NULL for the defaults) and change what you need. Timed SpMVs compute
 * y = alpha*A*x + beta*y on the vectors given. */
typedef struct {
  int warmup;        /* untimed runs first (default 10)            */
  int runs;          /* timed runs (default 200)                   */
  int flush_l2;      /* also time with L2 flushed before each run */
  int graph_batch;   /* SpMVs captured per graph (0 = skip graph)  */
  int graph_replays; /* timed launches of that graph (default 20)  */
  /* Cap per timing mode, in seconds of SpMV time: when runs (or replays
   * times graph_batch) SpMVs would take longer, fewer are timed, never
   * fewer than 5 (3 replays). 0 = no cap (default). */
  double max_seconds;
  double alpha, beta; /* scalars of the timed SpMVs (default 1 and 0) */
} smv_bench_options;

/* Defaults: warmup 10, runs 200, flush_l2 0, graph_batch 0,
 * graph_replays 20, max_seconds 0, alpha 1, beta 0. */
#define SMV_BENCH_OPTIONS_INIT                                                 \
  { 10, 200, 0, 0, 20, 0.0, 1.0, 0.0 }
/* The same as a function (kept for existing callers). */
static inline void smv_bench_options_init(smv_bench_options *o) {
  static const smv_bench_options defaults = SMV_BENCH_OPTIONS_INIT;
  if (o)
    *o = defaults;
}

/* Summary of the per-run times of one mode, in milliseconds. Percentiles
 * interpolate linearly between order statistics. */
typedef struct {
  double median_ms, min_ms, max_ms, p10_ms, p90_ms;
  int runs;
} smv_timing;

typedef struct {
  smv_timing warm;    /* L2-warm, one launch per timed event pair  */
  smv_timing flushed; /* L2 flushed before each run (runs 0 if off) */
  smv_timing graph;   /* per SpMV, from graph replays (runs 0 if off) */
  size_t flush_bytes; /* buffer written between flushed runs (0 if off) */
  char error[256];    /* why it failed ("" on success); modes timed
                         before the failure keep their numbers */
} smv_bench_result;

/* Time smv_spmv on the given device vectors with CUDA events, on the
 * context's stream. Runs are queued behind a short kernel that holds the
 * stream until every run of a batch is enqueued, so each event pair times
 * the GPU's work, not the host's launch rate (the graph mode shows what
 * the launch rate costs). L2 flushing writes a buffer of 4x the L2 size
 * between runs, outside the timed region. opt may be NULL (defaults).
 * Leaves y holding the last run's result. */
smv_status smv_bench_spmv(smv_context *ctx, smv_alg alg, smv_matrix *dA,
                          const void *x, void *y, const smv_bench_options *opt,
                          smv_bench_result *r);
/* The same timing for smv_spmm (Y = alpha*A*X + beta*Y with opt's alpha and
 * beta; k columns in `layout`, device pointers). Leaves Y holding the last
 * run's result. */
smv_status smv_bench_spmm(smv_context *ctx, smv_spmm_alg alg, smv_matrix *dA,
                          const void *X, int64_t ldx, void *Y, int64_t ldy,
                          int k, smv_layout layout,
                          const smv_bench_options *opt, smv_bench_result *r);
/* Device-to-device copy bandwidth (bytes read + written per second) of a
 * cudaMemcpy of `bytes`, median of several runs, in GB/s (1e9). */
smv_status smv_device_copy_bandwidth(smv_context *ctx, size_t bytes,
                                     double *gbps);

#ifdef __cplusplus
}
#endif
#endif /* SMV_LAB_H */
