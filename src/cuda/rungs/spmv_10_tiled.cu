/*
 * spmv_10_tiled.cu — rung 10, tiled: rows packed into tiles of a fixed
 * number of entries, the tile's products staged in shared memory, then
 * reduced per row (after Greathouse and Daga's CSR-adaptive, SC'14, whose
 * tile scheme they call CSR-stream). The measurements behind each change,
 * dated and with their commits: bench/results/h100-80gb-hbm3/ladder.md,
 * "Rung notes (moved from the rung files)", and kernels-issue8.md.
 *
 * What changed from rung 9 (L lanes per row, L a power of two):
 *   1. The work unit is a TILE of at most TILE entries (256..4096, chosen
 *      per matrix at set-up), not a row: the rows are cut into tiles of
 *      whole rows (greedy, in order: a tile takes rows while their entries
 *      fit), listed as {first row, -1}. A block takes one tile. Row
 *      lengths no longer have to match a lane count: a band of 9, 17 or 33
 *      entries per row wastes no lanes, where rung 9 at L = 8, 16 or 32
 *      leaves most of its second round's slots idle.
 *   2. Loading: the block reads the tile's column indices and values as
 *      16-byte vectors (int4 + 2 x double2 or int4 + float4: 4 entries per
 *      load per thread), fully coalesced whatever the row boundaries, in
 *      rounds of two quads per thread (up to 8 x gathers in flight per
 *      thread); only the unaligned head and tail of a tile (< 4 entries
 *      each) are loaded one by one. Each product val * x[col] goes to
 *      shared memory at its entry's slot (change 9). More bytes in flight per
 *      load instruction than rung 9's one value per lane, which matters
 *      most for f32 (4-byte values).
 *   3. Reduction: with R rows in the tile, P = the largest power of two <=
 *      blockDim / R threads per row (1..32) sum the row's products from
 *      shared memory (strided by P, then log2 P shuffles in the group);
 *      a tile of one row is summed by the whole block. Each row is added in
 *      a fixed order: results are bit-reproducible run to run.
 *   4. Rows longer than a tile are cut into tiles of TILE entries, listed
 *      as {row, first entry}; each block stores its tile's sum in
 *      `partials`, fences and counts itself in on the row's counter (at its
 *      first tile); the block that arrives last adds the partials in tile
 *      order and writes y (rung 9's scheme, with blocks instead of warps).
 *   5. Past the L2 the indices and values are loaded with __ldcs
 *      (ld.global.cs: evict-first), so they, read once, do not push x out
 *      of L2. Every sector of them is read exactly once per SpMV here
 *      (unlike rung 9 at L = 1, where the hint hurt).
 *   6. At most 32 registers (__maxnreg__): uncapped, the compiler took 50
 *      in f64, which left 36 of 64 warps per SM resident; capped, it
 *      compiles without spills and runs 64 of 64 (f64 from about 75% to
 *      about 94% of the copy bandwidth on bands of 9-33 per row).
 *   7. Past the L2 with scattered columns, the gathers of x go in entry
 *      order across the warp (tile_common.h's stage_tg: lane l gathers
 *      entries 32 j + l of the warp's 128 after the 16-byte loads), where
 *      lane l used to gather its own quad's 4 entries (lanes 4 entries
 *      apart). What limits these matrices is the L2's tag lookups (ncu on
 *      rmat:22:16), for this rung and cuSPARSE alike; in entry order,
 *      lanes that read one 128-byte line of x share one request. The
 *      shared machinery (loads, staging, pieces, the list) is in
 *      tile_common.h and tiles.cu, for rungs 11 and 12 too.
 *   8. In f32 with those gathers, the kernel asks for a smaller shared
 *      memory carveout (tiled_kernel's smem_pct below): fewer blocks per
 *      SM, the rest of the L1 for x.
 *   9. In f64 the quads' products are staged in swizzled slots
 *      (tile_common.h's stage_slots, through quad_slots): a warp's
 *      quad-order stores hit every bank group, where in plain order they
 *      were 8-way conflicted. Same bits. Found where f64 streamed at 70-77%
 *      of copy on the H200: its L1, not its DRAM, was the busy unit. Not in
 *      f32, where it lost (its stores were 4-way conflicted, but the
 *      swizzle's index arithmetic and the row sums' conflicted reads cost
 *      more: experiment h200f64/e12).
 *  10. On such a device, f64 past the L2 on local columns is staged in
 *      entry order with scalar loads (stage_eo, tiled_eo below) into plain
 *      slots: a warp's gather of 32 entries reads 2 lines of x there, 8 in
 *      quad order, and its stores are 32 consecutive slots. Plain slots
 *      beat change 9's there (e13: the row sums' reads, one thread a row,
 *      spread over the banks for odd row lengths). Slower in f32 and where
 *      the quads already stream near copy. Not in f64-f32v.
 * Why it should help: no lanes wasted on any row length, 16-byte loads,
 * a fixed amount of work per block.
 * Where it loses: the staging round trip through shared memory and the
 * block barrier cost latency on tiny (launch-bound) matrices (every real
 * matrix runs slower than on rung 9); power-law rows (plaw, R-MAT) stay a
 * little behind cuSPARSE ALG1; the tile list costs 8 bytes per tile
 * (0.03% of an f64 matrix at TILE = 2048), 20 with rows longer than a
 * tile; like rung 9, two SpMVs of this rung on the SAME matrix must not
 * run concurrently when it has rows longer than a tile (shared partials).
 *
 * f64-f32v: the same kernels with float values (V = float: int4 + float4
 * per quad, 32 bytes of index and value per four entries instead of 48),
 * widened to double before the product; products, sums, x and y in
 * double, so f64's tile sizes (sm holds doubles).
 *
 * Attributes and default block: the rung reports its large-matrix instance
 * (TILE = 2048 in f64 and f64-f32v, 4096 in f32).
 */
#include "tile_common.h"

#include <stdlib.h>
#include <string.h>

/* The tile list: see tile_common.h; each tile: tiled_tile there. V: the
 * stored values' type (float in f64-f32v: 16-byte loads of four 4-byte
 * values, each widened to double before its product, products and sums in
 * double), else T. */
template <typename T, int TILE, int LD, typename V = T>
__global__ void __maxnreg__(32)
    spmv_tiled(int64_t ntiles, const int2 *__restrict__ tiles,
               const tile_args<T, V> a) {
  __shared__ T sm[TILE + 4]; /* + 4: stage_slots */
  __shared__ T red[32];
  __shared__ unsigned last_s;
  const x_plain<T> xs = {a.x};
  for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x)
    tiled_tile<T, TILE, LD>(b, tiles, a, xs, sm, red, &last_s);
}

#define SMV_TILED_TILE_MAX 4096

static const void *kernel(smv_precision prec) {
  if (prec == SMV_F64_F32V)
    return (const void *)spmv_tiled<double, 2048, SMV_TILE_EF, float>;
  return prec == SMV_F64 ? (const void *)spmv_tiled<double, 2048, SMV_TILE_EF>
                         : (const void *)spmv_tiled<float, 4096, SMV_TILE_EF>;
}

static size_t smem(smv_precision, int) { return 0; } /* all static */

/* The kernel for a tile size and load mode (tile_run's K).
 * smem_pct (change 8 at the top): in f32 with gathers in entry order (past
 * the L2, scattered columns) a carveout of 40% of the largest shared-memory
 * configuration. On sm_90 the driver then configures 102 KB of shared
 * memory: 5 blocks of 4096 entries per SM, the rest of the 256 KB L1 for
 * x; by default it takes 168 KB (9 blocks). ncu on rmat:22:16 f32 showed
 * more L1 hits with fewer warps active, and the kernel faster. Not in f64
 * nor on local columns: there the blocks in flight matter more than the
 * L1 (both ran slower with it). */
template <typename T, int TILE, int LD, typename V = T> struct tiled_kernel {
  static constexpr auto fn = spmv_tiled<T, TILE, LD, V>;
  static constexpr int smem_pct =
      std::is_same<T, float>::value && LD == SMV_TILE_EF_TG ? 40 : 0;
};
/* f64-f32v's kernels (T = double: f64's carveout, none). */
template <typename T, int TILE, int LD>
using tiled_kernel_f32v = tiled_kernel<T, TILE, LD, float>;
template <typename T, int TILE, int LD>
using tiled_kernel_same = tiled_kernel<T, TILE, LD>;

static cudaError_t launch(const struct smv_launch *P) {
  const struct smv_tiles *tl = (const struct smv_tiles *)P->state;
  if (P->prec == SMV_F64_F32V)
    return tile_run_t<tiled_kernel_f32v, double, float>(P, tl);
  return tile_run<tiled_kernel_same>(P, tl);
}

/* ---- analysis --------------------------------------------------------------
 */

/* Entries per tile: 2048 in f64, 4096 in f32 on large matrices (16 KiB
 * of products either way: 8 resident blocks of 256 threads on an sm_90 SM
 * fit its 228 KiB of shared memory; each thread loads 8 or 16 entries per
 * tile), 4096 in f64 where tiled_top says (32 KiB of products: 6 blocks
 * of 256 threads an SM, 48 warps);
 * smaller on small matrices (smv_tile_size). */
/* Rows per tile are sized for this many threads per block (the default;
 * another block size changes only the speed). */
#define SMV_TILED_PLAN_BLOCK 256

/* The tile of whole rows starting at row `start` (whose length is <= tile):
 * rows are added while their entries fit in `tile` and the tile holds at
 * most `tile` rows (runs of empty rows). Then the reduction's balance: with
 * R rows, P = the largest power of two <= 256 / R threads sum each row, so
 * a row of len entries costs len / P steps where the loading costs tile /
 * 256 per thread; a row longer than twice that and than tile / 8 entries
 * (power-law rows among short ones: plaw:2000000:16 has rows of thousands
 * in tiles where P = 2) ends the tile before it, or, as the tile's first
 * row, gets a tile of its own (summed by the whole block). Returns the row
 * after the tile's last. The floor of tile / 8: splitting at twice the
 * load alone gave a third of plaw's rows (mostly of 33-200 entries) tiles
 * of their own and ran 2-5x slower than no split. Rung 13 packs the same
 * tiles. */
int64_t smv_tiled_end(const smv_csr *A, int64_t start, int64_t tile) {
  const int64_t k0 = A->row_ptr[start];
  int64_t i = start;
  while (i < A->rows && i - start < tile &&
         (int64_t)A->row_ptr[i + 1] - k0 <= tile)
    i++;
  const int64_t R = i - start;
  if (R < 2)
    return i;
  int64_t P = 1;
  while (P < 32 && 2 * P * R <= SMV_TILED_PLAN_BLOCK)
    P *= 2;
  int64_t lim = 2 * P * tile / SMV_TILED_PLAN_BLOCK;
  if (lim < tile / 8)
    lim = tile / 8;
  for (int64_t j = start; j < i; j++)
    if ((int64_t)A->row_ptr[j + 1] - A->row_ptr[j] > lim)
      return j == start ? start + 1 : j;
  return i;
}

/* The rung's state: its tile list (tiles.h), which rung 12 runs on too. */

/* Entry-order staging (tile_common.h's stage_eo) instead of the quads: in
 * f64 past the L2 on local columns, on a device whose DRAM delivers more
 * than 16 bytes per SM-clock (the H200). There the L1's wavefronts bound
 * the quads (Nsight Compute, bench/results/h200/suite.md), and a quad-order
 * gather reads 8 lines of x where an entry-order one reads 2. Not in f32
 * nor f64-f32v (8 bytes an entry: the quads' bytes in flight matter more
 * there), nor on scattered columns (stage_tg), nor inside the L2. */
static int tiled_eo(const smv_context *ctx, const smv_matrix *m, int load) {
  /* SMV_TILE_EO=0|1|2 for experiments (h200f64/e13): quads, entry order
   * into swizzled slots (a loss against 2 on every matrix timed), entry
   * order into plain slots, the default where `on`. The kernels compile
   * entry order only for evict-first loads of 8-byte products, so f32 is
   * never set; the knob can force it in f64-f32v. Pieces of rows longer
   * than a tile stage entry order into swizzled slots in modes 1 and 2. */
  if (load != SMV_TILE_EF || m->prec == SMV_F32)
    return 0;
  const int on = m->prec == SMV_F64 && smv_dram_fast(ctx);
  return smv_env_int("SMV_TILE_EO", 0, 2, on ? 2 : 0);
}

/* The largest tile: 4096 entries in f32; in f64 2048 (8 entries per
 * thread at 256 threads), or 4096 (16 per thread) for quads (eo 0) on
 * local columns in rows of 32 entries or more on a device whose DRAM
 * delivers more than 16 bytes per SM-clock (smv_dram_fast: the H200),
 * where the longer load phase per barrier kept more bytes in flight for
 * the quads (rows of 33-49 faster, 17-26 slower; on the H100 the 2048 tile
 * already streams near the copy bandwidth). Entry-order staging (eo, f64
 * past the L2 there) keeps 2048: with it 4096 lost on every row length
 * timed, 17-27 entries (1.10-1.27x slower) and 33-95 (1.06-1.21x), and 1024
 * lost too (1.12-1.21x on 17-33; experiment h200f64/e17). Rung 12 runs
 * on these tiles with quads (2048 where rung 10 stages in entry order; not
 * timed in f64, which AUTO never runs on rung 12). Not on scattered
 * columns: there the gathers of x, not the stream, set the pace, and 4096-entry
 * tiles (6 blocks an SM instead of 8) made rung 10 lose clearly to cuSPARSE
 * ALG1 on rows of 33-81 (suite.md, experiment h200f64/e4), where rule 4 of AUTO
 * runs it. */
static int tiled_top(const smv_context *ctx, const smv_matrix *m, int eo) {
  /* f64-f32v stages double products like f64 (8 bytes a slot of sm): f64's
   * tile sizes keep its 16 or 32 KiB per block. */
  if (m->prec == SMV_F32)
    return SMV_TILED_TILE_MAX;
  return !eo && m->st.row_mean >= 32.0 && smv_dram_fast(ctx) &&
                 !smv_matrix_scattered(m)
             ? 4096
             : 2048;
}

static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  const int load = smv_tile_load(ctx, m);
  const int eo = tiled_eo(ctx, m, load);
  const int tile = smv_tile_size(ctx, m->st.nnz, tiled_top(ctx, m, eo));
  const smv_status st =
      smv_tiles_setup(ctx, A, tile, load, smv_tiled_end, "tiled", state);
  if (st == SMV_OK)
    ((struct smv_tiles *)*state)->eo = eo;
  return st;
}

static constexpr struct smv_rung descriptor() {
  struct smv_rung r =
      smv_tile_rung<SMV_ALG_TILED>(kernel, smem, 256, launch, setup);
  r.precisions |= SMV_PREC_F32V; /* f64-f32v: V = float above */
  return r;
}
const struct smv_rung smv_rung_tiled = descriptor();
