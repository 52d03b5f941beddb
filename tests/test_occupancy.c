/*
 * test_occupancy.c — the occupancy calculator: the seed's worked numbers
 * (article 000), every table row sane, edge cases, shared-memory
 * preferences, the block-size helper and compute-capability parsing.
 * The configuration-by-configuration check against the toolkit's
 * cuda_occupancy.h is tests/cxx_occupancy_toolkit.cpp.
 */
#include "smv_lab.h"
#include "test.h"

#include <stdint.h>

/* The seed's vector kernel launches with (Db + 16) * sizeof(double) bytes
 * of shared memory. */
static size_t seed_smem(int block, void *user) {
  (void)user;
  return (size_t)(block + 16) * sizeof(double);
}

static smv_occupancy_result occ(const smv_arch *a, int threads, int regs,
                                size_t smem) {
  smv_occupancy_result r;
  memset(&r, 0xff, sizeof r);
  smv_status st = smv_occupancy(a, threads, regs, smem, &r);
  CHECKF(st == SMV_OK, "cc %d.%d threads %d regs %d smem %zu: %s", a->cc_major,
         a->cc_minor, threads, regs, smem, smv_status_string(st));
  return r;
}

/* Best warps per SM over block sizes 32..1024 and the first block size that
 * reaches it. */
static int best_warps(const smv_arch *a, int regs, int seed_shared,
                      int *first_block) {
  int best = -1;
  for (int b = 32; b <= 1024; b += 32) {
    smv_occupancy_result r = occ(a, b, regs, seed_shared ? seed_smem(b, 0) : 0);
    if (r.warps_per_sm > best) {
      best = r.warps_per_sm;
      *first_block = b;
    }
  }
  return best;
}

/* Seed 000, CC 2.0 (Fermi C2075): 21 registers round 672 up to 704 per
 * warp, 48 warps would need 33792 > 32768 registers, so 100% needs <= 20
 * registers. The seed's best for its kernel: 42 of 48 warps (Db = 192, 7
 * blocks), the best of the block sizes it considers (6, 8, 12, 16, 24 warps:
 * those that fill 48 warps when registers do not limit). Over EVERY block
 * size the register file holds 46 warps (16384 / 704 = 23 per partition, 2
 * partitions), which 23-warp blocks (Db = 736, 2 blocks) reach: the
 * spreadsheet's formula gives the same 46; the seed did not look there. */
static void test_seed_cc20(void) {
  const smv_arch *a = smv_arch_find(2, 0);
  CHECK(a != NULL);
  if (!a)
    return;
  CHECK_INT(a->max_warps_per_sm, 48);
  CHECK_INT(a->max_blocks_per_sm, 8);
  CHECK_INT(a->smem_per_sm, 48 * 1024);
  CHECK_INT(a->regs_per_sm, 32768);
  CHECK_INT(a->reg_alloc_unit, 64);
  CHECK_INT(a->reg_alloc_per_warp, 1);

  smv_occupancy_result r = occ(a, 192, 21, seed_smem(192, 0));
  CHECK_INT(r.regs_per_warp, 704);
  CHECK_INT(r.warps_per_block, 6);
  CHECK_INT(r.blocks_per_sm, 7);
  CHECK_INT(r.warps_per_sm, 42);
  CHECK_INT(r.max_warps_per_sm, 48);
  CHECK_NEAR(r.occupancy, 42.0 / 48.0, 1e-12);
  CHECK_INT(r.limited_by, SMV_LIMIT_REGS);
  CHECK_INT(r.blocks_by_warps, 8);
  CHECK_INT(r.blocks_by_blocks, 8);
  CHECK_INT(r.blocks_by_regs, 7);
  CHECK_INT(r.warps_by_regs, 46);
  CHECK(r.blocks_by_smem > 7); /* shared memory does not limit */

  /* The seed's candidates: 42 at 6 warps is their best. */
  static const int cand[] = {6, 8, 12, 16, 24},
                   cand_warps[] = {42, 40, 36, 32, 24};
  for (int i = 0; i < 5; i++) {
    r = occ(a, cand[i] * 32, 21, seed_smem(cand[i] * 32, 0));
    CHECK_INT(r.warps_per_sm, cand_warps[i]);
  }
  /* Every block size: no 48; the most is 46 at 736 threads. */
  int first = 0;
  CHECK_INT(best_warps(a, 21, 0, &first), 46);
  CHECK_INT(first, 736);
  CHECK_INT(best_warps(a, 21, 1, &first), 46);
  CHECK_INT(first, 736);
  r = occ(a, 736, 21, seed_smem(736, 0));
  CHECK_INT(r.blocks_per_sm, 2);
  /* 100% needs <= 20 registers. */
  CHECK_INT(best_warps(a, 20, 1, &first), 48);
  CHECK_INT(first, 192);
  r = occ(a, 192, 20, seed_smem(192, 0));
  CHECK_INT(r.blocks_per_sm, 8);
  CHECK_INT(r.warps_per_sm, 48);

  /* Without register or shared-memory limits: 6, 8, 12, 16, 24 warps per
   * block give 8, 6, 4, 3, 2 blocks, all 48/48. */
  static const int warps[] = {6, 8, 12, 16, 24}, blocks[] = {8, 6, 4, 3, 2};
  for (int i = 0; i < 5; i++) {
    r = occ(a, warps[i] * 32, 0, 0);
    CHECK_INT(r.blocks_per_sm, blocks[i]);
    CHECK_INT(r.warps_per_sm, 48);
  }
}

/* Seed 000, CC 3.5 (Kepler K20): 65536 registers in units of 256 per warp;
 * <= 32 registers give 100%. The kernel's 27 registers give 64 of 64 warps
 * at Db = 128, 256, 512, 1024 and 63 of 64 at 7, 9 and 21 warps per block. */
static void test_seed_cc35(void) {
  const smv_arch *a = smv_arch_find(3, 5);
  CHECK(a != NULL);
  if (!a)
    return;
  CHECK_INT(a->max_warps_per_sm, 64);
  CHECK_INT(a->max_blocks_per_sm, 16);
  CHECK_INT(a->smem_per_sm, 48 * 1024);
  CHECK_INT(a->regs_per_sm, 65536);
  CHECK_INT(a->reg_alloc_unit, 256);

  static const int full[] = {128, 256, 512, 1024};
  static const int full_blocks[] = {16, 8, 4, 2};
  for (int i = 0; i < 4; i++) {
    smv_occupancy_result r = occ(a, full[i], 27, seed_smem(full[i], 0));
    CHECK_INT(r.regs_per_warp, 1024);
    CHECK_INT(r.blocks_per_sm, full_blocks[i]);
    CHECK_INT(r.warps_per_sm, 64);
    CHECK_NEAR(r.occupancy, 1.0, 0);
  }
  static const int w[] = {7, 9, 21}, wb[] = {9, 7, 3};
  for (int i = 0; i < 3; i++) {
    smv_occupancy_result r = occ(a, w[i] * 32, 27, seed_smem(w[i] * 32, 0));
    CHECK_INT(r.blocks_per_sm, wb[i]);
    CHECK_INT(r.warps_per_sm, 63);
    CHECK_NEAR(r.occupancy, 63.0 / 64.0, 1e-12);
  }
  /* Db = 128 is the first 100%; the best-block helper picks it. */
  int first = 0;
  CHECK_INT(best_warps(a, 27, 1, &first), 64);
  CHECK_INT(first, 128);
  int best = 0;
  smv_occupancy_result br;
  CHECK_OK(smv_occupancy_best_block(a, 27, 0, seed_smem, NULL, 0, &best, &br));
  CHECK_INT(best, 128);
  CHECK_INT(br.warps_per_sm, 64);
  /* 32 registers still 100%, 33 not (1056 -> 1280 per warp, 48 warps). */
  CHECK_INT(best_warps(a, 32, 1, &first), 64);
  CHECK_INT(best_warps(a, 33, 1, &first), 48);
  /* Without register or shared-memory limits: 4, 8, 16, 32 warps per
   * block give 16, 8, 4, 2 blocks. */
  for (int i = 0; i < 4; i++) {
    smv_occupancy_result r = occ(a, full[i], 0, 0);
    CHECK_INT(r.blocks_per_sm, full_blocks[i]);
    CHECK_INT(r.warps_per_sm, 64);
  }
}

static void test_table_rows_sane(void) {
  static const int want[][2] = {{2, 0}, {2, 1},  {3, 0}, {3, 5}, {3, 7}, {5, 0},
                                {5, 2}, {5, 3},  {6, 0}, {6, 1}, {6, 2}, {7, 0},
                                {7, 2}, {7, 5},  {8, 0}, {8, 6}, {8, 7}, {8, 9},
                                {9, 0}, {10, 0}, {12, 0}};
  int n = 0;
  const smv_arch *t = smv_arch_table(&n);
  CHECK(t != NULL);
  CHECK_INT(n, (int)(sizeof want / sizeof want[0]));
  if (!t || n != (int)(sizeof want / sizeof want[0]))
    return;
  for (int i = 0; i < n; i++) {
    const smv_arch *a = &t[i];
    CHECK_INT(a->cc_major, want[i][0]);
    CHECK_INT(a->cc_minor, want[i][1]);
    CHECK(smv_arch_find(want[i][0], want[i][1]) == a);
    CHECK(a->name && a->name[0]);
    CHECK(a->source && a->source[0]);
    CHECK_INT(a->max_threads_per_block, 1024);
    CHECK(a->max_warps_per_sm * 32 >= a->max_threads_per_block);
    CHECK(a->max_blocks_per_sm >= 8 && a->max_blocks_per_sm <= 32);
    CHECK(a->regs_per_block <= a->regs_per_sm);
    CHECK(a->reg_alloc_per_warp == 1);
    CHECK(a->warp_alloc_granularity == 2 || a->warp_alloc_granularity == 4);
    CHECK_INT(a->regs_per_sm % (a->reg_alloc_unit * a->warp_alloc_granularity),
              0);
    CHECK(a->max_regs_per_thread == 63 || a->max_regs_per_thread == 255);
    CHECK_INT(a->max_regs_per_thread == 63,
              a->cc_major == 2 || (a->cc_major == 3 && a->cc_minor == 0));
    CHECK_INT(a->reg_alloc_unit, a->cc_major == 2 ? 64 : 256);
    CHECK_INT(a->smem_per_block, 48 * 1024);
    CHECK(a->smem_per_block <= a->smem_per_block_optin);
    CHECK(a->smem_per_block_optin + a->smem_reserved_per_block <=
          a->smem_per_sm);
    CHECK_INT(a->smem_reserved_per_block, a->cc_major >= 8 ? 1024 : 0);
    CHECK_INT(a->smem_alloc_unit,
              a->cc_major == 2 || a->cc_major >= 8 ? 128 : 256);
    CHECK_INT(a->smem_model, a->cc_major <= 3   ? SMV_SMEM_CACHE_CONFIG
                             : a->cc_major <= 6 ? SMV_SMEM_FIXED
                                                : SMV_SMEM_CARVEOUT);
    /* Supported capacities ascend and the last is the SM's largest. */
    CHECK(a->smem_config_count >= 1 &&
          a->smem_config_count <= SMV_ARCH_MAX_SMEM_CONFIGS);
    for (int k = 1; k < a->smem_config_count; k++)
      CHECK(a->smem_configs[k - 1] < a->smem_configs[k]);
    CHECK_INT(a->smem_configs[a->smem_config_count - 1], a->smem_per_sm);
    /* The smallest kernel is limited by the block slots only; the largest
     * block without registers or shared memory fits. */
    smv_occupancy_result r = occ(a, 1, 0, 0);
    CHECK_INT(r.blocks_per_sm, a->max_blocks_per_sm < a->max_warps_per_sm
                                   ? a->max_blocks_per_sm
                                   : a->max_warps_per_sm);
    r = occ(a, 1024, 0, 0);
    CHECK_INT(r.blocks_per_sm, a->max_warps_per_sm / 32);
    /* The largest request fits: one block on carveout parts (opt-in max =
     * capacity - reserved), smem_per_sm / 48 KB blocks elsewhere. */
    r = occ(a, 32, 16, (size_t)a->smem_per_block_optin);
    CHECK(r.blocks_per_sm >= 1);
    CHECK_INT(r.blocks_per_sm, a->smem_per_sm / (a->smem_per_block_optin +
                                                 a->smem_reserved_per_block));
    if (a->smem_model == SMV_SMEM_CARVEOUT)
      CHECK_INT(r.blocks_per_sm, 1);
    CHECK(r.limited_by & SMV_LIMIT_SMEM);
  }
  /* Rows the Programming Guide lists per architecture. */
  const smv_arch *h = smv_arch_find(9, 0);
  CHECK(h && h->smem_per_sm == 233472 && h->smem_per_block_optin == 232448 &&
        h->max_warps_per_sm == 64 && h->max_blocks_per_sm == 32);
  const smv_arch *k80 = smv_arch_find(3, 7);
  CHECK(k80 && k80->regs_per_sm == 131072 && k80->regs_per_block == 65536);
  CHECK(smv_arch_find(1, 3) == NULL);
  CHECK(smv_arch_find(4, 0) == NULL);
  CHECK(smv_arch_find(9, 9) == NULL);
  CHECK(smv_arch_table(NULL) == t);
}

static void test_invalid_arguments(void) {
  const smv_arch *a = smv_arch_find(3, 5), *f = smv_arch_find(3, 0),
                 *h = smv_arch_find(9, 0);
  smv_occupancy_result r;
  CHECK_STATUS(smv_occupancy(NULL, 128, 32, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, 128, 32, 0, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, 0, 32, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, -32, 32, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, 1025, 32, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, 128, -1, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(a, 128, 256, 0, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(f, 128, 64, 0, &r), SMV_ERR_ARG); /* 63 max */
  CHECK_OK(smv_occupancy(f, 128, 63, 0, &r));
  CHECK_STATUS(smv_occupancy(a, 128, 32, 48 * 1024 + 1, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(h, 128, 32, 232449, &r), SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy(h, 128, 32, SIZE_MAX, &r), SMV_ERR_ARG);
  /* Above 48 KB needs the opt-in, which the result reports. */
  CHECK_OK(smv_occupancy(h, 128, 32, 48 * 1024, &r));
  CHECK_INT(r.smem_optin, 0);
  CHECK_OK(smv_occupancy(h, 128, 32, 48 * 1024 + 1, &r));
  CHECK_INT(r.smem_optin, 1);
  smv_occupancy_options o = SMV_OCCUPANCY_OPTIONS_INIT;
  o.carveout = 101;
  CHECK_STATUS(smv_occupancy_ex(h, 128, 32, 0, &o, &r), SMV_ERR_ARG);
  o.carveout = -2;
  CHECK_STATUS(smv_occupancy_ex(h, 128, 32, 0, &o, &r), SMV_ERR_ARG);
  o.carveout = SMV_CARVEOUT_DEFAULT;
  o.cache_config = (smv_cache_config)4;
  CHECK_STATUS(smv_occupancy_ex(h, 128, 32, 0, &o, &r), SMV_ERR_ARG);
  /* A broken caller-built row is refused, not divided by. */
  smv_arch bad = *a;
  bad.reg_alloc_unit = 0;
  CHECK_STATUS(smv_occupancy(&bad, 128, 32, 0, &r), SMV_ERR_ARG);
  bad = *a;
  bad.max_warps_per_sm = 0;
  CHECK_STATUS(smv_occupancy(&bad, 128, 32, 0, &r), SMV_ERR_ARG);
}

/* Valid arguments whose block still cannot be resident: 0 blocks, SMV_OK,
 * and the limit that makes it so. */
static void test_block_that_cannot_fit(void) {
  /* CC 2.0: 1024 threads x 63 registers = 32 warps x 2048 = 65536 >
   * 32768 registers per block. */
  smv_occupancy_result r = occ(smv_arch_find(2, 0), 1024, 63, 0);
  CHECK_INT(r.blocks_per_sm, 0);
  CHECK_INT(r.warps_per_sm, 0);
  CHECK_INT(r.blocks_by_regs, 0);
  CHECK_INT(r.limited_by, SMV_LIMIT_REGS);
  CHECK_NEAR(r.occupancy, 0.0, 0);
  /* CC 9.0: 255 registers = 8192 per warp; 9 warps need 73728 > 65536. */
  r = occ(smv_arch_find(9, 0), 288, 255, 0);
  CHECK_INT(r.blocks_per_sm, 0);
  r = occ(smv_arch_find(9, 0), 256, 255, 0);
  CHECK_INT(r.blocks_per_sm, 1);
  /* CC 6.0 refuses what GP10x (4 partitions) cannot hold: 185 registers =
   * 6144 per warp, 9 warps fit GP100's 2 partitions (5 each) but not
   * GP10x's 4 (2 each). */
  r = occ(smv_arch_find(6, 0), 288, 185, 0);
  CHECK_INT(r.blocks_per_sm, 0);
  r = occ(smv_arch_find(6, 0), 256, 185, 0);
  CHECK_INT(r.blocks_per_sm, 1);
}

static void test_unlimited_resources(void) {
  smv_occupancy_result r = occ(smv_arch_find(3, 5), 256, 0, 0);
  CHECK_INT(r.blocks_by_regs, SMV_OCC_UNLIMITED);
  CHECK_INT(r.blocks_by_smem, SMV_OCC_UNLIMITED);
  CHECK_INT(r.blocks_per_sm, 8);
  CHECK_INT(r.limited_by, SMV_LIMIT_WARPS);
  /* Hopper reserves 1 KB per block: shared memory always counts. */
  r = occ(smv_arch_find(9, 0), 32, 0, 0);
  CHECK_INT(r.smem_per_block, 1024);
  CHECK_INT(r.blocks_by_smem, 228);
  CHECK_INT(r.blocks_per_sm, 32);
  CHECK_INT(r.limited_by, SMV_LIMIT_BLOCKS);
}

/* Hopper numbers by hand: 128 threads, 64 registers, 40000 bytes. */
static void test_hopper_by_hand(void) {
  smv_occupancy_result r = occ(smv_arch_find(9, 0), 128, 64, 40000);
  /* warps: 64 / 4 = 16 blocks; registers: 2048 per warp, 16384 / 2048 = 8
   * warps per partition = 32 warps = 8 blocks; shared: 40000 + 1024 ->
   * 41088 (unit 128), 233472 / 41088 = 5 blocks. */
  CHECK_INT(r.blocks_by_warps, 16);
  CHECK_INT(r.blocks_by_blocks, 32);
  CHECK_INT(r.regs_per_warp, 2048);
  CHECK_INT(r.regs_per_block, 8192);
  CHECK_INT(r.warps_by_regs, 32);
  CHECK_INT(r.blocks_by_regs, 8);
  CHECK_INT(r.smem_per_block, 41088);
  CHECK_INT(r.smem_per_sm, 233472);
  CHECK_INT(r.blocks_by_smem, 5);
  CHECK_INT(r.blocks_per_sm, 5);
  CHECK_INT(r.warps_per_sm, 20);
  CHECK_INT(r.limited_by, SMV_LIMIT_SMEM);
  CHECK_NEAR(r.occupancy, 20.0 / 64.0, 1e-12);
}

static void test_shared_memory_preferences(void) {
  const smv_arch *h = smv_arch_find(9, 0), *k = smv_arch_find(3, 5);
  smv_occupancy_options o = SMV_OCCUPANCY_OPTIONS_INIT;
  smv_occupancy_result r;
  /* Carveout 0 (max L1): the 1 KB reserved per block needs a capacity, the
   * smallest that holds a block is 8 KB: 8 blocks. */
  o.carveout = 0;
  CHECK_OK(smv_occupancy_ex(h, 32, 16, 0, &o, &r));
  CHECK_INT(r.smem_per_sm, 8 * 1024);
  CHECK_INT(r.blocks_by_smem, 8);
  CHECK_INT(r.blocks_per_sm, 8);
  /* 50% of 228 KB = 114 KB rounds up to 132 KB. */
  o.carveout = 50;
  CHECK_OK(smv_occupancy_ex(h, 32, 16, 0, &o, &r));
  CHECK_INT(r.smem_per_sm, 132 * 1024);
  CHECK_INT(r.blocks_by_smem, 132);
  /* A carveout too small for one block is raised to the next size. */
  o.carveout = 10; /* 22.8 KB -> 32 KB */
  CHECK_OK(smv_occupancy_ex(h, 32, 16, 40000, &o, &r));
  CHECK_INT(r.smem_per_sm, 64 * 1024);
  CHECK_INT(r.blocks_by_smem, 1);
  /* The cache config maps to a carveout on Hopper. */
  o.carveout = SMV_CARVEOUT_DEFAULT;
  o.cache_config = SMV_CACHE_PREFER_L1;
  CHECK_OK(smv_occupancy_ex(h, 32, 16, 0, &o, &r));
  CHECK_INT(r.smem_per_sm, 8 * 1024);
  /* Kepler: prefer L1 leaves 16 KB of shared memory, equal 32 KB. */
  CHECK_OK(smv_occupancy_ex(k, 128, 16, 8192, &o, &r));
  CHECK_INT(r.smem_per_sm, 16 * 1024);
  CHECK_INT(r.blocks_by_smem, 2);
  o.cache_config = SMV_CACHE_PREFER_EQUAL;
  CHECK_OK(smv_occupancy_ex(k, 128, 16, 8192, &o, &r));
  CHECK_INT(r.smem_per_sm, 32 * 1024);
  CHECK_INT(r.blocks_by_smem, 4);
  /* A split too small for one block is overridden by the largest. */
  o.cache_config = SMV_CACHE_PREFER_L1;
  CHECK_OK(smv_occupancy_ex(k, 128, 16, 20000, &o, &r));
  CHECK_INT(r.smem_per_sm, 48 * 1024);
  CHECK_INT(r.blocks_by_smem, 2);
  /* Maxwell ignores the preference (dedicated shared memory). */
  CHECK_OK(smv_occupancy_ex(smv_arch_find(5, 2), 128, 16, 8192, &o, &r));
  CHECK_INT(r.smem_per_sm, 96 * 1024);
  /* NULL options are the defaults. */
  smv_occupancy_result d;
  CHECK_OK(smv_occupancy_ex(h, 256, 40, 5000, NULL, &r));
  CHECK_OK(smv_occupancy(h, 256, 40, 5000, &d));
  CHECK(memcmp(&r, &d, sizeof r) == 0);
}

/* A CC 1.3 row built by the caller: registers allocated per block, 512
 * per unit, warps rounded to 2 (CUDA Occupancy Calculator, GPU Data 1.3). */
static void test_per_block_allocation(void) {
  smv_arch a;
  memset(&a, 0, sizeof a);
  a.cc_major = 1;
  a.cc_minor = 3;
  a.name = "Tesla GT200";
  a.max_threads_per_block = 512;
  a.max_warps_per_sm = 32;
  a.max_blocks_per_sm = 8;
  a.regs_per_sm = a.regs_per_block = 16384;
  a.max_regs_per_thread = 124;
  a.reg_alloc_unit = 512;
  a.reg_alloc_per_warp = 0;
  a.warp_alloc_granularity = 2;
  a.smem_per_sm = a.smem_per_block = a.smem_per_block_optin = 16384;
  a.smem_alloc_unit = 512;
  a.smem_model = SMV_SMEM_FIXED;
  a.smem_config_count = 1;
  a.smem_configs[0] = 16384;
  a.source = "test";
  /* 256 threads x 16 regs = 4096 per block: 4 blocks, 32 warps. */
  smv_occupancy_result r = occ(&a, 256, 16, 0);
  CHECK_INT(r.regs_per_block, 4096);
  CHECK_INT(r.blocks_by_regs, 4);
  CHECK_INT(r.warps_per_sm, 32);
  /* 17 regs: 4352 -> 4608 per block: 3 blocks, 75%. */
  r = occ(&a, 256, 17, 0);
  CHECK_INT(r.regs_per_block, 4608);
  CHECK_INT(r.blocks_per_sm, 3);
  CHECK_NEAR(r.occupancy, 0.75, 1e-12);
  /* 96 threads = 3 warps, rounded to 4 for registers: 2048 per block, 8
   * blocks (also the block limit), 24 warps. */
  r = occ(&a, 96, 16, 0);
  CHECK_INT(r.regs_per_block, 2048);
  CHECK_INT(r.blocks_by_regs, 8);
  CHECK_INT(r.blocks_per_sm, 8);
  CHECK_INT(r.warps_per_sm, 24);
  /* 600 bytes of shared memory -> 1024: 16 blocks by shared memory. */
  r = occ(&a, 64, 10, 600);
  CHECK_INT(r.smem_per_block, 1024);
  CHECK_INT(r.blocks_by_smem, 16);
  CHECK_STATUS(smv_occupancy(&a, 513, 16, 0, &r), SMV_ERR_ARG);
}

static void test_best_block(void) {
  const smv_arch *fermi = smv_arch_find(2, 0), *k = smv_arch_find(3, 5),
                 *h = smv_arch_find(9, 0);
  int b = -1;
  smv_occupancy_result r;
  CHECK_OK(smv_occupancy_best_block(fermi, 21, 0, NULL, NULL, 0, &b, &r));
  CHECK_INT(b, 736);
  CHECK_INT(r.warps_per_sm, 46);
  CHECK_INT(r.blocks_per_sm, 2);
  /* Capped at the seed's 6 warps: 192 threads, 7 blocks, 42 warps. */
  CHECK_OK(smv_occupancy_best_block(fermi, 21, 0, NULL, NULL, 192, &b, &r));
  CHECK_INT(b, 192);
  CHECK_INT(r.warps_per_sm, 42);
  CHECK_INT(r.blocks_per_sm, 7);
  /* Hopper, 32 registers: 2 warps x 32 blocks = 64 warps already. */
  CHECK_OK(smv_occupancy_best_block(h, 32, 0, NULL, NULL, 0, &b, &r));
  CHECK_INT(b, 64);
  CHECK_INT(r.warps_per_sm, 64);
  /* A cap: at most 96 threads on Kepler: 3 warps x 16 blocks = 48. */
  CHECK_OK(smv_occupancy_best_block(k, 27, 0, NULL, NULL, 96, &b, &r));
  CHECK_INT(b, 96);
  CHECK_INT(r.warps_per_sm, 48);
  /* Shared memory per block as a function of the block size. */
  CHECK_OK(smv_occupancy_best_block(k, 27, 0, seed_smem, NULL, 0, &b, &r));
  CHECK_INT(b, 128);
  /* Fixed shared memory that only one block holds: 1024 threads win. */
  CHECK_OK(smv_occupancy_best_block(k, 16, 40000, NULL, NULL, 0, &b, &r));
  CHECK_INT(b, 1024);
  CHECK_INT(r.blocks_per_sm, 1);
  /* Nothing valid. */
  CHECK_STATUS(smv_occupancy_best_block(k, 300, 0, NULL, NULL, 0, &b, &r),
               SMV_ERR_ARG);
  CHECK_INT(b, 0);
  CHECK_STATUS(smv_occupancy_best_block(NULL, 32, 0, NULL, NULL, 0, &b, &r),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_occupancy_best_block(k, 32, 0, NULL, NULL, 0, NULL, &r),
               SMV_ERR_ARG);
  /* best may be NULL. */
  CHECK_OK(smv_occupancy_best_block(k, 27, 0, NULL, NULL, 0, &b, NULL));
  CHECK_INT(b, 128);
}

static void test_parse_cc(void) {
  static const struct {
    const char *s;
    int maj, min;
  } ok[] = {{"3.5", 3, 5},      {"35", 3, 5},    {"sm_35", 3, 5},
            {"sm_90a", 9, 0},   {"9.0", 9, 0},   {"9", 9, 0},
            {"12.0", 12, 0},    {"120", 12, 0},  {"compute_120", 12, 0},
            {"sm_100f", 10, 0}, {"10.0", 10, 0}, {"2.1", 2, 1}};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int maj = -1, min = -1;
    CHECK_OK(smv_arch_parse_cc(ok[i].s, &maj, &min));
    CHECKF(maj == ok[i].maj && min == ok[i].min, "%s -> %d.%d", ok[i].s, maj,
           min);
  }
  static const char *bad[] = {"",     "x",    "3.",  ".5",     "3.55",
                              "sm_",  "1234", "0.0", "3.5.1",  "sm_35b",
                              "-3.5", "3,5",  "0",   "native", "100.0"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int maj, min;
    CHECKF(smv_arch_parse_cc(bad[i], &maj, &min) == SMV_ERR_PARSE,
           "\"%s\" accepted", bad[i]);
  }
  int maj, min;
  CHECK_STATUS(smv_arch_parse_cc(NULL, &maj, &min), SMV_ERR_ARG);
}

int main(void) {
  RUN(test_seed_cc20);
  RUN(test_seed_cc35);
  RUN(test_table_rows_sane);
  RUN(test_invalid_arguments);
  RUN(test_block_that_cannot_fit);
  RUN(test_unlimited_resources);
  RUN(test_hopper_by_hand);
  RUN(test_shared_memory_preferences);
  RUN(test_per_block_allocation);
  RUN(test_best_block);
  RUN(test_parse_cc);
  return TEST_END();
}
