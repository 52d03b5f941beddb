/*
 * cxx_occupancy_toolkit.cpp — smv_occupancy against the toolkit's own
 * calculator, cuda_occupancy.h, configuration by configuration. No GPU: the
 * header is plain C++. Every architecture of our table that the header
 * models is described to it from OUR table (so a wrong row shows up as a
 * mismatch), and for each configuration we compare the resident blocks,
 * the limiting factors, the block count each limit alone allows and the
 * registers and shared memory allocated per block. One mismatch fails.
 *
 * Grid, per architecture:
 *   default preference: threads 32..1024 every multiple of 32 plus 19
 *   non-multiples; registers 0..255 every value; shared memory 0, 1, the
 *   allocation boundaries around smem_per_sm / n for n = 1..228 (one byte
 *   below and above each), every carveout size, the 48 KB default and the
 *   opt-in maximum;
 *   every shared-memory preference (Kepler cache configs; Volta+ carveouts
 *   -1, 0, 1, 10, 25, 33, 50, 66, 75, 90, 100 and the cache configs): the
 *   same threads and shared memory, registers in steps of 8;
 *   the block-size helper against cudaOccMaxPotentialOccupancyBlockSize.
 * Configurations our table refuses (registers above 63 on CC 3.0, where the
 * header accepts up to 255) are counted separately and not compared.
 */
#include "smv_lab.h"
#include "test.h"

#include <vector>

#if defined(__has_include)
#if __has_include(<cuda_occupancy.h>)
#include <cuda_occupancy.h>
#define HAVE_OCC 1
#endif
#endif

#ifdef HAVE_OCC

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

namespace {

long g_compared, g_mismatch, g_refused;

cudaOccDeviceProp props_of(const smv_arch *a) {
  cudaOccDeviceProp p;
  p.computeMajor = a->cc_major;
  p.computeMinor = a->cc_minor;
  p.maxThreadsPerBlock = a->max_threads_per_block;
  p.maxThreadsPerMultiprocessor = a->max_warps_per_sm * 32;
  p.regsPerBlock = a->regs_per_block;
  p.regsPerMultiprocessor = a->regs_per_sm;
  p.warpSize = 32;
  p.sharedMemPerBlock = (size_t)a->smem_per_block;
  p.sharedMemPerMultiprocessor = (size_t)a->smem_per_sm;
  p.numSms = 1; /* so minGridSize is the blocks per SM */
  p.sharedMemPerBlockOptin = (size_t)a->smem_per_block_optin;
  p.reservedSharedMemPerBlock = (size_t)a->smem_reserved_per_block;
  return p;
}

/* A kernel that opted in to the architecture's maximum dynamic shared
 * memory (what smv_occupancy assumes above 48 KB), one barrier, as
 * cudaFuncGetAttributes reports for an ordinary kernel. */
cudaOccFuncAttributes attrs_of(const smv_arch *a, int regs) {
  cudaOccFuncAttributes f;
  f.maxThreadsPerBlock = a->max_threads_per_block;
  f.numRegs = regs;
  f.sharedSizeBytes = 0;
  f.partitionedGCConfig = PARTITIONED_GC_OFF;
  f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
  f.maxDynamicSharedSizeBytes = (size_t)a->smem_per_block_optin;
  f.numBlockBarriers = 1;
  f.virtualResourceCount = 0;
  return f;
}

bool models(const smv_arch *a) {
  cudaOccDeviceProp p = props_of(a);
  cudaOccFuncAttributes f = attrs_of(a, 32);
  cudaOccDeviceState s;
  cudaOccResult r;
  return cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &s, 128, 0) ==
         CUDA_OCC_SUCCESS;
}

std::vector<int> thread_grid() {
  std::vector<int> t;
  for (int b = 32; b <= 1024; b += 32)
    t.push_back(b);
  for (int b : {1, 7, 31, 33, 63, 100, 127, 129, 200, 255, 257, 333, 500, 511,
                513, 700, 999, 1000, 1023})
    t.push_back(b);
  return t;
}

std::vector<size_t> smem_grid(const smv_arch *a) {
  std::vector<size_t> v = {0, 1};
  long res = a->smem_reserved_per_block, unit = a->smem_alloc_unit;
  auto around = [&](long alloc) {
    /* request bytes whose allocation is exactly `alloc`, and one more */
    long req = alloc - res;
    for (long d : {-1L, 0L, 1L})
      if (req + d >= 0)
        v.push_back((size_t)(req + d));
  };
  for (int n = 1; n <= 228; n++)
    around((long)a->smem_per_sm / n / unit * unit);
  for (int i = 0; i < a->smem_config_count; i++)
    around(a->smem_configs[i]);
  around(a->smem_per_block);
  v.push_back((size_t)a->smem_per_block);
  v.push_back((size_t)a->smem_per_block + 1);
  v.push_back((size_t)a->smem_per_block_optin - 1);
  v.push_back((size_t)a->smem_per_block_optin);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  v.erase(std::remove_if(
              v.begin(), v.end(),
              [&](size_t s) { return s > (size_t)a->smem_per_block_optin; }),
          v.end());
  return v;
}

unsigned bits_of(unsigned occ) {
  return ((occ & OCC_LIMIT_WARPS) ? SMV_LIMIT_WARPS : 0u) |
         ((occ & OCC_LIMIT_BLOCKS) ? SMV_LIMIT_BLOCKS : 0u) |
         ((occ & OCC_LIMIT_REGISTERS) ? SMV_LIMIT_REGS : 0u) |
         ((occ & OCC_LIMIT_SHARED_MEMORY) ? SMV_LIMIT_SMEM : 0u);
}

/* Ours refuses more registers per thread than the architecture allows:
 * such a case is counted as refused, not compared. */
bool refused(const smv_arch *a, smv_status s, int regs) {
  if (s == SMV_ERR_ARG && regs > a->max_regs_per_thread) {
    g_refused++;
    return true;
  }
  return false;
}

void compare_one(const smv_arch *a, const cudaOccDeviceState &st,
                 const smv_occupancy_options &opt, int threads, int regs,
                 size_t smem) {
  smv_occupancy_result ours;
  smv_status s = smv_occupancy_ex(a, threads, regs, smem, &opt, &ours);
  if (refused(a, s, regs))
    return;
  cudaOccDeviceProp p = props_of(a);
  cudaOccFuncAttributes f = attrs_of(a, regs);
  cudaOccResult r;
  cudaOccError e =
      cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &st, threads, smem);
  g_compared++;
  bool same = s == SMV_OK && e == CUDA_OCC_SUCCESS &&
              ours.blocks_per_sm == r.activeBlocksPerMultiprocessor &&
              ours.limited_by == bits_of(r.limitingFactors) &&
              ours.blocks_by_warps == r.blockLimitWarps &&
              ours.blocks_by_blocks == r.blockLimitBlocks &&
              ours.blocks_by_regs == r.blockLimitRegs &&
              ours.blocks_by_smem == r.blockLimitSharedMem &&
              ours.regs_per_block == r.allocatedRegistersPerBlock &&
              ours.smem_per_block == r.allocatedSharedMemPerBlock &&
              /* one barrier per block never binds */
              r.blockLimitBarriers >= r.activeBlocksPerMultiprocessor;
  if (!same) {
    if (g_mismatch < 20)
      fprintf(stderr,
              "MISMATCH cc %d.%d threads %d regs %d smem %zu carveout %d "
              "cache %d: ours status %d blocks %d limits %u (w %d b %d r %d "
              "s %d, regs/block %d smem/block %zu) | header err %d blocks %d "
              "limits %u (w %d b %d r %d s %d bar %d, regs/block %d "
              "smem/block %zu)\n",
              a->cc_major, a->cc_minor, threads, regs, smem, opt.carveout,
              (int)opt.cache_config, (int)s, ours.blocks_per_sm,
              ours.limited_by, ours.blocks_by_warps, ours.blocks_by_blocks,
              ours.blocks_by_regs, ours.blocks_by_smem, ours.regs_per_block,
              ours.smem_per_block, (int)e, r.activeBlocksPerMultiprocessor,
              bits_of(r.limitingFactors), r.blockLimitWarps, r.blockLimitBlocks,
              r.blockLimitRegs, r.blockLimitSharedMem, r.blockLimitBarriers,
              r.allocatedRegistersPerBlock, r.allocatedSharedMemPerBlock);
    g_mismatch++;
  }
}

struct Pref {
  smv_occupancy_options opt;
  cudaOccDeviceState st;
};

std::vector<Pref> prefs_of(const smv_arch *a) {
  std::vector<Pref> v;
  static const smv_cache_config caches[] = {
      SMV_CACHE_PREFER_NONE, SMV_CACHE_PREFER_SHARED, SMV_CACHE_PREFER_L1,
      SMV_CACHE_PREFER_EQUAL};
  std::vector<int> carveouts = {SMV_CARVEOUT_DEFAULT};
  if (a->smem_model == SMV_SMEM_CARVEOUT)
    carveouts = {-1, 0, 1, 10, 25, 33, 50, 66, 75, 90, 100};
  for (int c : carveouts)
    for (smv_cache_config cc : caches) {
      if (c != SMV_CARVEOUT_DEFAULT && cc != SMV_CACHE_PREFER_NONE)
        continue; /* a set carveout overrides the cache config */
      Pref p;
      p.opt.carveout = c;
      p.opt.cache_config = cc;
      p.st.carveoutConfig = c;
      p.st.cacheConfig = (cudaOccCacheConfig)cc; /* same numbering */
      v.push_back(p);
    }
  return v;
}

size_t seed_smem(int block, void *user) {
  (void)user;
  return (size_t)(block + 16) * sizeof(double); /* seed 000's vector kernel */
}

/* Our smallest best block must reach the occupancy (threads per SM) of the
 * header's suggestion. */
void compare_best(const smv_arch *a, int regs, size_t fixed, bool seed) {
  int best = 0;
  smv_occupancy_result r;
  smv_status s = smv_occupancy_best_block(
      a, regs, fixed, seed ? seed_smem : nullptr, nullptr, 0, &best, &r);
  if (refused(a, s, regs))
    return;
  cudaOccDeviceProp p = props_of(a);
  cudaOccFuncAttributes f = attrs_of(a, regs);
  cudaOccDeviceState st;
  int min_grid = 0, block = 0;
  cudaOccError e;
  if (seed)
    e = cudaOccMaxPotentialOccupancyBlockSizeVariableSMem(
        &min_grid, &block, &p, &f, &st,
        [](int b) { return seed_smem(b, nullptr); });
  else
    e = cudaOccMaxPotentialOccupancyBlockSize(&min_grid, &block, &p, &f, &st,
                                              fixed);
  g_compared++;
  long theirs = (long)block * min_grid;
  long mine = s == SMV_OK ? (long)r.warps_per_sm * 32 : 0;
  bool same = e == CUDA_OCC_SUCCESS && mine == theirs &&
              (s == SMV_OK) == (block > 0) && best <= (block ? block : 0);
  if (!same) {
    if (g_mismatch < 20)
      fprintf(stderr,
              "MISMATCH best block cc %d.%d regs %d smem %s: ours %d "
              "(%ld threads/SM, status %d) | header %d x %d blocks (err %d)\n",
              a->cc_major, a->cc_minor, regs,
              seed ? "(b+16)*8" : std::to_string(fixed).c_str(), best, mine,
              (int)s, block, min_grid, (int)e);
    g_mismatch++;
  }
}

} // namespace

static void test_against_cuda_occupancy_h(void) {
  int n = 0;
  const smv_arch *table = smv_arch_table(&n);
  std::vector<int> threads = thread_grid();
  int modeled = 0;
  for (int i = 0; i < n; i++) {
    const smv_arch *a = &table[i];
    if (!models(a)) {
      printf("cc %d.%d (%s): not modeled by cuda_occupancy.h, checked against "
             "the seed and the spreadsheet in test_occupancy\n",
             a->cc_major, a->cc_minor, a->name);
      continue;
    }
    modeled++;
    long before = g_compared, refused_before = g_refused;
    std::vector<size_t> smem = smem_grid(a);
    std::vector<Pref> prefs = prefs_of(a);
    const Pref &def = prefs[0];
    for (int t : threads)
      for (int r = 0; r <= 255; r++)
        for (size_t s : smem)
          compare_one(a, def.st, def.opt, t, r, s);
    for (size_t k = 1; k < prefs.size(); k++)
      for (int t : threads)
        for (int r = 0; r <= 255; r += 8)
          for (size_t s : smem)
            compare_one(a, prefs[k].st, prefs[k].opt, t, r, s);
    for (int r = 0; r <= 255; r++) {
      compare_best(a, r, 0, false);
      compare_best(a, r, 4096, false);
      compare_best(a, r, 0, true);
    }
    printf("cc %d.%d (%s): %ld configurations compared (%zu shared-memory "
           "sizes, %zu preferences), %ld refused by our table\n",
           a->cc_major, a->cc_minor, a->name, g_compared - before, smem.size(),
           prefs.size(), g_refused - refused_before);
  }
  printf("cuda_occupancy.h (CUDA_OCC %d.%d): %d architectures, %ld "
         "configurations compared, %ld mismatches, %ld refused (outside the "
         "Programming Guide's limits)\n",
         __CUDA_OCC_MAJOR__, __CUDA_OCC_MINOR__, modeled, g_compared,
         g_mismatch, g_refused);
  CHECK(modeled >= 19); /* 3.0 .. 12.0: every row but Fermi */
  CHECK(g_compared > 1000000);
  CHECK_INT(g_mismatch, 0);
}

#else

static void test_against_cuda_occupancy_h(void) {
  SKIP("cuda_occupancy.h not found (no CUDA toolkit in CUDA_HOME/include)");
}

#endif

int main(void) {
  RUN(test_against_cuda_occupancy_h);
  return TEST_END();
}
