/*
 * arch_table.c — the per-SM limits of every compute capability smv models,
 * for the occupancy calculator (src/occupancy/occupancy.c).
 *
 * Sources, cited per row by short name:
 *   [PG]   CUDA C++ Programming Guide, "Features and Technical
 *          Specifications", table "Technical Specifications per Compute
 *          Capability" (CUDA 13 edition for 7.5..12.0; the CUDA 8..11
 *          editions for 2.x..7.2), and its per-architecture sections on
 *          shared memory (carveout sizes, the 1 KB reserved per block).
 *   [OCC]  the toolkit's cuda_occupancy.h (CUDA 13.0): register allocation
 *          unit (256) and max registers per thread it enforces, sub-partitions
 *          per SM (our warp_alloc_granularity), max blocks per SM, shared
 *          memory allocation unit, the carveout steps it rounds up to, the
 *          Kepler cache-config split (16/32/48 KB of L1), and CC 6.0's check
 *          against GP10x. Rows it models (3.0 .. 12.0) must match it:
 *          tests/cxx_occupancy_toolkit.cpp compares every configuration.
 *   [XLS]  CUDA Occupancy Calculator spreadsheet, "GPU Data" sheet: register
 *          allocation unit 64 per warp and warp allocation granularity 2 on
 *          Fermi, shared memory allocation unit 128 on Fermi; Fermi is not in
 *          cuda_occupancy.h.
 *   [SEED] seeds/000 (SEEDS.md): CC 2.0 has 48 warps, 8 blocks, 48 KB,
 *          32768 registers allocated per warp in units of 64; CC 3.5 has 64
 *          warps, 16 blocks, 48 KB, 65536 registers in units of 256 per
 *          warp. tests/test_occupancy.c checks the seed's worked numbers.
 *
 * Shared memory sizes follow what cudaGetDeviceProperties reports, which is
 * what cuda_occupancy.h expects: sharedMemPerMultiprocessor is the largest
 * carveout (228 KB = 233472 on 9.0), sharedMemPerBlockOptin excludes the
 * 1 KB reserved per block (227 KB = 232448 on 9.0).
 *
 * Two facts where sources disagree, and the choice made:
 *   - CC 3.0 allows 63 registers per thread [PG, XLS]; cuda_occupancy.h
 *     accepts up to 255 for every CC 3.x. We keep 63 (ptxas never emits
 *     more for sm_30) and refuse more with SMV_ERR_ARG.
 *   - CC 7.0+ allow 255 registers per thread [PG]; cuda_occupancy.h accepts
 *     256. We keep 255.
 */
#include "smv_lab.h"

#include <stddef.h>
#include <string.h>

#define KB 1024

/* Carveout steps (bytes) per family, from [PG] and [OCC]. */
#define VOLTA_CONFIGS                                                          \
  6, { 0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 96 * KB }
#define TURING_CONFIGS                                                         \
  2, { 32 * KB, 64 * KB }
#define GA100_CONFIGS                                                          \
  8, { 0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 100 * KB, 132 * KB, 164 * KB }
#define GA10X_CONFIGS                                                          \
  6, { 0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 100 * KB }
#define HOPPER_CONFIGS                                                         \
  10, {                                                                        \
    0, 8 * KB, 16 * KB, 32 * KB, 64 * KB, 100 * KB, 132 * KB, 164 * KB,        \
        196 * KB, 228 * KB                                                     \
  }

/* Field order: cc, name, threads/block, warps/SM, blocks/SM, regs/SM,
 * regs/block, regs/thread, reg unit, per-warp, warp granularity, compat
 * granularity, smem/SM, smem/block, smem/block opt-in, smem unit, smem
 * reserved/block, smem model, configs, source. */
static const smv_arch arch_table[] = {
    /* Fermi: [SEED] 48 warps, 8 blocks, 48 KB, 32 K regs in units of 64
     * per warp; [XLS] warp granularity 2, smem unit 128, 63 regs/thread;
     * [PG] 48 KB shared + 16 KB L1 or 16 KB + 48 KB (cudaFuncSetCacheConfig).
     */
    {2,
     0,
     "Fermi GF100/GF110",
     1024,
     48,
     8,
     32768,
     32768,
     63,
     64,
     1,
     2,
     0,
     48 * KB,
     48 * KB,
     48 * KB,
     128,
     0,
     SMV_SMEM_CACHE_CONFIG,
     2,
     {16 * KB, 48 * KB},
     "PG 2.x column; XLS GPU Data 2.0; SEED 000"},
    {2,
     1,
     "Fermi GF10x",
     1024,
     48,
     8,
     32768,
     32768,
     63,
     64,
     1,
     2,
     0,
     48 * KB,
     48 * KB,
     48 * KB,
     128,
     0,
     SMV_SMEM_CACHE_CONFIG,
     2,
     {16 * KB, 48 * KB},
     "PG 2.x column; XLS GPU Data 2.1"},
    /* Kepler: [PG] 64 warps, 16 blocks, 64 K regs, 48 KB of 64 KB L1+smem
     * (16/32/48 KB shared); [OCC] unit 256, 4 sub-partitions, smem unit 256;
     * [PG, XLS] 63 regs/thread on 3.0. */
    {3,
     0,
     "Kepler GK10x",
     1024,
     64,
     16,
     65536,
     65536,
     63,
     256,
     1,
     4,
     0,
     48 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_CACHE_CONFIG,
     3,
     {16 * KB, 32 * KB, 48 * KB},
     "PG 3.0 column; OCC (CC 3); XLS 3.0"},
    {3,
     5,
     "Kepler GK110/GK208",
     1024,
     64,
     16,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     48 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_CACHE_CONFIG,
     3,
     {16 * KB, 32 * KB, 48 * KB},
     "PG 3.5 column; OCC (CC 3); SEED 000"},
    /* GK210 (K80): [PG] 128 K regs/SM but 64 K per block, 112 KB shared of
     * 128 KB L1+smem (80/96/112 KB shared: OCC's 16..48 KB L1 split). */
    {3,
     7,
     "Kepler GK210",
     1024,
     64,
     16,
     131072,
     65536,
     255,
     256,
     1,
     4,
     0,
     112 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_CACHE_CONFIG,
     3,
     {80 * KB, 96 * KB, 112 * KB},
     "PG 3.7 column; OCC (CC 3)"},
    /* Maxwell: [PG] 64 warps, 32 blocks, 64 K regs, dedicated shared memory
     * 64 KB (5.0, 5.3) or 96 KB (5.2), 32 K regs per block on 5.3 (Tegra). */
    {5,
     0,
     "Maxwell GM10x",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     64 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {64 * KB},
     "PG 5.0 column; OCC (CC 5); XLS 5.0"},
    {5,
     2,
     "Maxwell GM20x",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     96 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {96 * KB},
     "PG 5.2 column; OCC (CC 5); XLS 5.2"},
    {5,
     3,
     "Maxwell GM20B (Tegra X1)",
     1024,
     64,
     32,
     65536,
     32768,
     255,
     256,
     1,
     4,
     0,
     64 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {64 * KB},
     "PG 5.3 column; OCC (CC 5)"},
    /* Pascal: [PG] as Maxwell; GP100 has 2 sub-partitions [OCC] and is also
     * checked against GP10x's 4 [OCC]; 6.2 (Tegra X2) 32 K regs per block. */
    {6,
     0,
     "Pascal GP100",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     2,
     4,
     64 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {64 * KB},
     "PG 6.0 column; OCC (CC 6.0, 2 sub-partitions, GP10x check)"},
    {6,
     1,
     "Pascal GP10x",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     96 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {96 * KB},
     "PG 6.1 column; OCC (CC 6)"},
    {6,
     2,
     "Pascal GP10B (Tegra X2)",
     1024,
     64,
     32,
     65536,
     32768,
     255,
     256,
     1,
     4,
     0,
     64 * KB,
     48 * KB,
     48 * KB,
     256,
     0,
     SMV_SMEM_FIXED,
     1,
     {64 * KB},
     "PG 6.2 column; OCC (CC 6)"},
    /* Volta: [PG] 64 warps, 32 blocks, 128 KB L1+smem, carveout 0..96 KB,
     * 96 KB per block with opt-in; Xavier (7.2) the same per SM [OCC]. */
    {7,
     0,
     "Volta GV100",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     96 * KB,
     48 * KB,
     96 * KB,
     256,
     0,
     SMV_SMEM_CARVEOUT,
     VOLTA_CONFIGS,
     "PG 7.0 column and 7.x shared memory; OCC (CC 7)"},
    {7,
     2,
     "Volta GV10B (Xavier)",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     96 * KB,
     48 * KB,
     96 * KB,
     256,
     0,
     SMV_SMEM_CARVEOUT,
     VOLTA_CONFIGS,
     "PG 7.2 column; OCC (CC 7, non-Turing)"},
    /* Turing: [PG] 32 warps, 16 blocks, 96 KB L1+smem, 32 or 64 KB shared. */
    {7,
     5,
     "Turing TU10x",
     1024,
     32,
     16,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     64 * KB,
     48 * KB,
     64 * KB,
     256,
     0,
     SMV_SMEM_CARVEOUT,
     TURING_CONFIGS,
     "PG 7.5 column and 7.x shared memory; OCC (CC 7.5)"},
    /* Ampere and later: [PG] 1 KB reserved per block, smem unit 128 [OCC]. */
    {8,
     0,
     "Ampere GA100",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     164 * KB,
     48 * KB,
     163 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     GA100_CONFIGS,
     "PG 8.0 column and 8.x shared memory; OCC (CC 8.0)"},
    {8,
     6,
     "Ampere GA10x",
     1024,
     48,
     16,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     100 * KB,
     48 * KB,
     99 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     GA10X_CONFIGS,
     "PG 8.6 column and 8.x shared memory; OCC (CC 8.x)"},
    {8,
     7,
     "Ampere GA10B (Orin)",
     1024,
     48,
     16,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     164 * KB,
     48 * KB,
     163 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     GA100_CONFIGS,
     "PG 8.7 column and 8.x shared memory; OCC (CC 8.7)"},
    {8,
     9,
     "Ada AD10x",
     1024,
     48,
     24,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     100 * KB,
     48 * KB,
     99 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     GA10X_CONFIGS,
     "PG 8.9 column and 8.x shared memory; OCC (CC 8.9)"},
    {9,
     0,
     "Hopper GH100",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     228 * KB,
     48 * KB,
     227 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     HOPPER_CONFIGS,
     "PG 9.0 column and 9.0 shared memory; OCC (CC 9)"},
    {10,
     0,
     "Blackwell GB100/GB200",
     1024,
     64,
     32,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     228 * KB,
     48 * KB,
     227 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     HOPPER_CONFIGS,
     "PG 10.0 column and 10.0 shared memory; OCC (CC 10.0)"},
    /* [PG, OCC] 24 blocks per SM on 12.0 (the Blackwell tuning guide's
     * "32" is contradicted by both). */
    {12,
     0,
     "Blackwell GB20x",
     1024,
     48,
     24,
     65536,
     65536,
     255,
     256,
     1,
     4,
     0,
     100 * KB,
     48 * KB,
     99 * KB,
     128,
     1 * KB,
     SMV_SMEM_CARVEOUT,
     GA10X_CONFIGS,
     "PG 12.0 column and 12.0 shared memory; OCC (CC 12)"},
};

#define ARCH_COUNT ((int)(sizeof arch_table / sizeof arch_table[0]))

const smv_arch *smv_arch_table(int *count) {
  if (count)
    *count = ARCH_COUNT;
  return arch_table;
}

const smv_arch *smv_arch_find(int cc_major, int cc_minor) {
  for (int i = 0; i < ARCH_COUNT; i++)
    if (arch_table[i].cc_major == cc_major &&
        arch_table[i].cc_minor == cc_minor)
      return &arch_table[i];
  return NULL;
}

/* Digits "d" or "dd" (major, minor) or "ddd" (two-digit major), the forms
 * nvcc's sm_XY / compute_XY use; a trailing 'a' or 'f' (arch- and
 * family-specific targets) is accepted and ignored. */
static int parse_digits(const char *s, int *maj, int *min) {
  int n = 0;
  while (s[n] >= '0' && s[n] <= '9')
    n++;
  const char *rest = s + n;
  if ((*rest == 'a' || *rest == 'f') && rest[1] == '\0')
    rest++;
  if (*rest != '\0')
    return -1;
  if (n == 1) {
    *maj = s[0] - '0';
    *min = 0;
  } else if (n == 2) {
    *maj = s[0] - '0';
    *min = s[1] - '0';
  } else if (n == 3) {
    *maj = (s[0] - '0') * 10 + (s[1] - '0');
    *min = s[2] - '0';
  } else {
    return -1;
  }
  return *maj > 0 ? 0 : -1;
}

smv_status smv_arch_parse_cc(const char *s, int *cc_major, int *cc_minor) {
  if (!s || !cc_major || !cc_minor)
    return SMV_ERR_ARG;
  int maj = 0, min = 0;
  if (strncmp(s, "sm_", 3) == 0 || strncmp(s, "compute_", 8) == 0) {
    if (parse_digits(s + (s[0] == 's' ? 3 : 8), &maj, &min) != 0)
      return SMV_ERR_PARSE;
  } else if (strchr(s, '.')) {
    /* "M.m" with one or two major digits and one minor digit. */
    const char *dot = strchr(s, '.');
    size_t nmaj = (size_t)(dot - s);
    if (nmaj < 1 || nmaj > 2 || dot[1] < '0' || dot[1] > '9' || dot[2] != '\0')
      return SMV_ERR_PARSE;
    for (size_t i = 0; i < nmaj; i++) {
      if (s[i] < '0' || s[i] > '9')
        return SMV_ERR_PARSE;
      maj = maj * 10 + (s[i] - '0');
    }
    min = dot[1] - '0';
    if (maj == 0)
      return SMV_ERR_PARSE;
  } else if (parse_digits(s, &maj, &min) != 0) {
    return SMV_ERR_PARSE;
  }
  *cc_major = maj;
  *cc_minor = min;
  return SMV_OK;
}
