/*
 * occupancy.c — how many blocks of a kernel an SM holds at once.
 *
 * Four limits, each giving a number of blocks; the smallest wins and every
 * limit equal to it "binds" (the seed's four limits, article 000):
 *
 *   warps      max_warps_per_sm / ceil(threads / 32)
 *   blocks     max_blocks_per_sm
 *   registers  per-warp allocation (CC >= 2.0): regs * 32 rounded up to
 *              reg_alloc_unit. The register file is split into
 *              warp_alloc_granularity partitions and a warp lives in one, so
 *              warps per SM = floor(regs_per_sm / gran / regs_per_warp) *
 *              gran, and blocks = that / warps per block. A block must also
 *              fit regs_per_block, both as allocated and with its warps
 *              rounded up to the partition count (the hardware's launch
 *              check, as cuda_occupancy.h models it). Per-block allocation
 *              (CC 1.x, for caller-built rows): ceil(warps, gran) * 32 * regs
 *              rounded up to the unit, per block.
 *   shared     (request + reserved) rounded up to smem_alloc_unit, into the
 *              shared-memory capacity chosen for the launch (see
 *              smem_capacity below).
 *
 * Worked seed numbers (tests/test_occupancy.c): CC 2.0, 21 registers: 672 ->
 * 704 registers per warp, 16384 / 704 = 23 warps per partition, 46 per SM;
 * blocks of 192 threads (6 warps): 7 blocks = 42 of 48 warps. CC 3.5, 27
 * registers: 864 -> 1024, 16384 / 1024 = 16 per partition = 64 warps: 100%
 * at 128, 256, 512, 1024 threads; 7 warps per block: 9 blocks = 63 warps.
 *
 * The model is the one of the toolkit's cuda_occupancy.h, which
 * tests/cxx_occupancy_toolkit.cpp checks configuration by configuration, with
 * its partitioned global caching off (its default, and what the runtime
 * assumes for kernels that do not ask for it) and one barrier per block
 * (never binding: the hardware has one or two per block slot).
 */
#include "internal.h"
#include "smv_lab.h"

#include <limits.h>
#include <stddef.h>

#define WARP 32

static long round_up(long x, long unit) { return (x + unit - 1) / unit * unit; }

/* A caller-built row must at least be self-consistent enough not to divide
 * by zero or overflow. */
static int arch_ok(const smv_arch *a) {
  if (a->max_threads_per_block < 1 || a->max_threads_per_block > 4096 ||
      a->max_warps_per_sm < 1 || a->max_blocks_per_sm < 1 ||
      a->regs_per_sm < 1 || a->regs_per_block < 1 ||
      a->max_regs_per_thread < 0 || a->max_regs_per_thread > 1024 ||
      a->reg_alloc_unit < 1 || a->warp_alloc_granularity < 1 ||
      a->warp_alloc_compat < 0 || a->smem_per_sm < 0 || a->smem_per_block < 0 ||
      a->smem_per_block_optin < a->smem_per_block || a->smem_alloc_unit < 1 ||
      a->smem_reserved_per_block < 0 || a->smem_config_count < 0 ||
      a->smem_config_count > SMV_ARCH_MAX_SMEM_CONFIGS)
    return 0;
  if (a->smem_model != SMV_SMEM_FIXED && a->smem_config_count < 1)
    return 0;
  return 1;
}

/* Registers: blocks per SM for a given partition count (gran). Also fills
 * the arithmetic into r when r is not NULL. */
static int regs_limit(const smv_arch *a, int gran, int warps_pb, int regs,
                      smv_occupancy_result *r) {
  long per_warp = 0, per_block, assumed, warps_sm = 0;
  int blocks;
  if (a->reg_alloc_per_warp) {
    per_warp = round_up((long)regs * WARP, a->reg_alloc_unit);
    per_block = per_warp * warps_pb;
    /* The launch check assumes every partition gets the block's warps in
     * equal numbers: warps rounded up to the partition count. */
    assumed = per_warp * round_up(warps_pb, gran);
  } else {
    per_block = round_up(round_up(warps_pb, gran) * WARP * (long)regs,
                         a->reg_alloc_unit);
    assumed = per_block;
  }
  if (assumed > a->regs_per_block) { /* assumed >= per_block */
    blocks = 0;
  } else if (per_block == 0) {
    blocks = SMV_OCC_UNLIMITED;
  } else if (a->reg_alloc_per_warp) {
    warps_sm = (long)(a->regs_per_sm / gran) / per_warp * gran;
    blocks = (int)(warps_sm / warps_pb);
  } else {
    blocks = (int)(a->regs_per_sm / per_block);
    warps_sm = (long)blocks * warps_pb;
  }
  if (r) {
    r->regs_per_warp = (int)per_warp;
    r->regs_per_block = (int)per_block;
    r->warps_by_regs = per_block == 0 ? a->max_warps_per_sm : (int)warps_sm;
  }
  return blocks;
}

/* The smallest supported capacity >= bytes; -1 if none. */
static long config_round_up(const smv_arch *a, long bytes) {
  for (int i = 0; i < a->smem_config_count; i++)
    if (a->smem_configs[i] >= bytes)
      return a->smem_configs[i];
  return -1;
}

/* The shared-memory capacity per SM for a launch allocating `alloc` bytes
 * per block.
 *   fixed (Maxwell, Pascal): smem_per_sm.
 *   cache config (Fermi, Kepler): prefer L1 -> the smallest split, equal ->
 *     the middle one (Kepler's 32 KB; Fermi has none and keeps its 48 KB
 *     default), none/shared -> the largest; a split too small for one block
 *     is overridden by the largest.
 *   carveout (Volta+): carveout% of smem_per_sm (default: 100%), rounded up
 *     to a supported size; when that cannot hold one block the driver
 *     takes the smallest size that can. */
static long smem_capacity(const smv_arch *a, const smv_occupancy_options *o,
                          long alloc) {
  long pref;
  int n = a->smem_config_count;
  switch (a->smem_model) {
  case SMV_SMEM_CACHE_CONFIG:
    if (o->cache_config == SMV_CACHE_PREFER_L1)
      pref = a->smem_configs[0];
    else if (o->cache_config == SMV_CACHE_PREFER_EQUAL && n == 3)
      pref = a->smem_configs[1];
    else
      pref = a->smem_configs[n - 1];
    return pref >= alloc ? pref : a->smem_per_sm;
  case SMV_SMEM_CARVEOUT: {
    int pct = o->carveout;
    if (pct == SMV_CARVEOUT_DEFAULT) {
      if (o->cache_config == SMV_CACHE_PREFER_L1)
        pct = 0;
      else if (o->cache_config == SMV_CACHE_PREFER_SHARED)
        pct = 100;
      else if (o->cache_config == SMV_CACHE_PREFER_EQUAL)
        pct = 50;
    }
    pref = pct == SMV_CARVEOUT_DEFAULT ? a->smem_per_sm
                                       : (long)pct * a->smem_per_sm / 100;
    pref = config_round_up(a, pref);
    if (pref >= alloc)
      return pref;
    pref = config_round_up(a, alloc);
    return pref < 0 ? a->smem_per_sm : pref;
  }
  case SMV_SMEM_FIXED:
  default:
    return a->smem_per_sm;
  }
}

smv_status smv_occupancy_ex(const smv_arch *a, int threads, int regs,
                            size_t smem, const smv_occupancy_options *opt,
                            smv_occupancy_result *r) {
  static const smv_occupancy_options defaults = SMV_OCCUPANCY_OPTIONS_INIT;
  if (!a || !r || !arch_ok(a))
    return SMV_ERR_ARG;
  if (!opt)
    opt = &defaults;
  if (opt->carveout < SMV_CARVEOUT_DEFAULT || opt->carveout > 100 ||
      (int)opt->cache_config < 0 || opt->cache_config > SMV_CACHE_PREFER_EQUAL)
    return SMV_ERR_ARG;
  if (threads < 1 || threads > a->max_threads_per_block || regs < 0 ||
      regs > a->max_regs_per_thread || smem > (size_t)a->smem_per_block_optin)
    return SMV_ERR_ARG;

  smv_occupancy_result o = {0};
  o.max_warps_per_sm = a->max_warps_per_sm;
  o.warps_per_block = (threads + WARP - 1) / WARP;

  o.blocks_by_warps = a->max_warps_per_sm / o.warps_per_block;
  o.blocks_by_blocks = a->max_blocks_per_sm;

  o.blocks_by_regs =
      regs_limit(a, a->warp_alloc_granularity, o.warps_per_block, regs, &o);
  /* CC 6.0: a block GP10x (4 partitions) cannot hold is refused on GP100
   * too, so code tuned for one Pascal runs on all (cuda_occupancy.h). */
  if (a->warp_alloc_compat > 0 && o.blocks_by_regs > 0 &&
      regs_limit(a, a->warp_alloc_compat, o.warps_per_block, regs, NULL) == 0)
    o.blocks_by_regs = 0;

  /* Shared memory: smem <= opt-in max was checked, so one block fits the
   * per-block limit (opt-in assumed above the 48 KB default). */
  long alloc =
      round_up((long)smem + a->smem_reserved_per_block, a->smem_alloc_unit);
  o.smem_per_block = (size_t)alloc;
  o.smem_optin = smem > (size_t)a->smem_per_block;
  long cap = smem_capacity(a, opt, alloc);
  o.smem_per_sm = (int)cap;
  o.blocks_by_smem = alloc > 0 ? (int)(cap / alloc) : SMV_OCC_UNLIMITED;

  int b = o.blocks_by_warps;
  if (o.blocks_by_blocks < b)
    b = o.blocks_by_blocks;
  if (o.blocks_by_regs < b)
    b = o.blocks_by_regs;
  if (o.blocks_by_smem < b)
    b = o.blocks_by_smem;
  o.blocks_per_sm = b;
  o.limited_by = (o.blocks_by_warps == b ? SMV_LIMIT_WARPS : 0u) |
                 (o.blocks_by_blocks == b ? SMV_LIMIT_BLOCKS : 0u) |
                 (o.blocks_by_regs == b ? SMV_LIMIT_REGS : 0u) |
                 (o.blocks_by_smem == b ? SMV_LIMIT_SMEM : 0u);
  o.warps_per_sm = b * o.warps_per_block;
  o.occupancy = (double)o.warps_per_sm / a->max_warps_per_sm;
  *r = o;
  return SMV_OK;
}

smv_status smv_occupancy(const smv_arch *arch, int threads_per_block,
                         int regs_per_thread, size_t smem_per_block,
                         smv_occupancy_result *r) {
  return smv_occupancy_ex(arch, threads_per_block, regs_per_thread,
                          smem_per_block, NULL, r);
}

smv_status smv_occupancy_best_block(const smv_arch *arch, int regs_per_thread,
                                    size_t smem_fixed, smv_smem_fn smem_fn,
                                    void *user, int max_block, int *best_block,
                                    smv_occupancy_result *best) {
  if (best_block)
    *best_block = 0;
  if (!arch || !best_block)
    return SMV_ERR_ARG;
  int cap = arch->max_threads_per_block;
  if (max_block > 0 && max_block < cap)
    cap = max_block;
  int found = 0;
  smv_occupancy_result top = {0};
  for (int b = WARP; b <= cap; b += WARP) {
    size_t smem = smem_fn ? smem_fn(b, user) : smem_fixed;
    smv_occupancy_result r;
    if (smv_occupancy(arch, b, regs_per_thread, smem, &r) != SMV_OK)
      continue;
    /* Strictly more warps: ties keep the smaller block (more blocks in
     * flight, a finer tail). */
    if (r.warps_per_sm > top.warps_per_sm) {
      top = r;
      found = b;
    }
  }
  if (!found)
    return SMV_ERR_ARG;
  *best_block = found;
  if (best)
    *best = top;
  return SMV_OK;
}
