/*
 * spmv_10_tiled.cu — rung 10: tile-staged CSR-stream (after Greathouse and
 * Daga's CSR-adaptive, SC'14): rows packed into tiles of a fixed number of
 * entries, the tile's products staged in shared memory, then reduced per row.
 *
 * What changed from rung 9 (L lanes per row, L a power of two):
 *   1. The work unit is a TILE of at most TILE entries (256..4096, chosen
 *      per matrix at upload), not a row: at analysis the rows are cut into
 *      tiles of whole rows (greedy, in order: a tile takes rows while their
 *      entries fit), listed as {first row, -1}. A block takes one tile.
 *      Row lengths no longer have to match a lane count: a band of 9, 17 or
 *      33 entries per row wastes no lanes, where rung 9 at L = 8, 16 or 32
 *      left most of its second round's slots idle (band:8000000:4, 9 per
 *      row, ran at 70% of the copy bandwidth, 0.64x ALG1 in f32).
 *   2. Loading: the block reads the tile's column indices and values as
 *      16-byte vectors (int4 + 2 x double2 or int4 + float4: 4 entries per
 *      load per thread), fully coalesced whatever the row boundaries, in
 *      rounds of two quads per thread (up to 8 x gathers in flight per
 *      thread); only the unaligned head and tail of a tile (< 4 entries
 *      each) are loaded one by one. Each product val * x[col] goes to
 *      shared memory at its position in the tile. More bytes in flight per
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
 *   5. Past the L2 the matrix stream is loaded with __ldcs (ld.global.cs:
 *      evict-first), so the stream, read once, does not push x out of L2.
 *      Every sector of the stream is read exactly once per SpMV here
 *      (unlike rung 9 at L = 1, where the hint cost 2x on lap3d).
 *   6. At most 32 registers (__maxnreg__): the first version let the
 *      compiler take 50 in f64, which left 36 of 64 warps per SM resident;
 *      capped, it compiles without spills and runs 64 of 64, and f64 went
 *      from 74-77% to 93-95% of the copy bandwidth on bands of 9-33 per
 *      row (band:8000000:4 442.6 -> 356.9 us; H100, 2026-11-24, commits
 *      e207e05 -> d42aa2a). f32 took 32 registers from the start.
 *   7. Past the L2 with scattered columns, the gathers of x go in entry
 *      order across the warp (tile_common.h's stage_tg: lane l gathers
 *      entries 32 j + l of the warp's 128 after the 16-byte loads), where
 *      lane l used to gather its own quad's 4 entries (lanes 4 entries
 *      apart). ncu on rmat:22:16 f32 showed what limits these matrices:
 *      the L2's tag lookups, at 81-96% of peak for rung 10 and ALG1 alike,
 *      with ALG1 issuing 10% fewer of them (118M against 132M) and
 *      running about 14% faster. In entry order, lanes that read one 128-byte
 *      line of x share one request. rmat:22:16 went from 0.855x to 0.932x
 *      ALG1 in f32, and most f64 scattered matrices from 0.92-1.00x to
 *      0.998-1.062x (the figures: tiles.cu's smv_tile_load). The shared
 *      machinery (loads, staging, pieces, the list) moved to
 *      tile_common.h and tiles.cu for rung 11 (commit 8b23aca).
 *   8. In f32 with those gathers, the kernel asks for a smaller shared
 *      memory carveout (tiled_kernel's smem_pct below): 5 blocks per SM
 *      instead of 9, and the rest of the L1 for x. rmat:22:16 f32 0.931x
 *      -> 0.999-1.002x ALG1 (2026-11-25).
 * Why it should help: no lanes wasted on any row length, 16-byte loads,
 * a fixed amount of work per block.
 * Where it loses: the staging round trip through shared memory and the
 * block barrier cost latency on tiny (launch-bound) matrices; the tile
 * list costs 8 bytes per tile (0.03% of an f64 matrix at TILE = 2048);
 * like rung 9, two SpMVs of this rung on the SAME matrix must not run
 * concurrently when it has rows longer than a tile (shared partials).
 *
 * Measured (H100, 2026-11-24, commit 507252b, L2-warm; full table in
 * bench/results/h100-80gb-hbm3/kernels-issue8.md): bands of 9-81 entries
 * per row past the L2 at 91-95% of the copy bandwidth in f64, 93-100% in
 * f32, 1.02-1.28x the faster cuSPARSE algorithm; 7 per row level with
 * rung 9 in f64, 5-9% behind in f32; 129 per row 9% behind rung 9 (f64);
 * rand:2000000:16 level with ALG1; plaw:2000000:16 3% (f64) and 4%
 * (f32) behind ALG1; every real matrix 0.2-2.5 us behind rung 9.
 * After change 7 (H100, 2026-11-25, commit 8b23aca, raw/rung11/):
 * 1.00-1.07x ALG1 with x in the L2 and even rows (denserow, lap3d
 * with perm=rand, rand; f64 and f32), 0.98-1.00x on plaw:4000000:16 and
 * 0.89-0.96x on R-MAT, where AUTO keeps ALG1.
 *
 * Attributes and default block: the rung reports its large-matrix instance
 * (TILE = 2048 in f64, 4096 in f32).
 */
#include "tile_common.h"

#include <stdlib.h>
#include <string.h>

/* The tile list: see tile_common.h; each tile: tiled_tile there. */
template <typename T, int TILE, int LD>
__global__ void __maxnreg__(32)
    spmv_tiled(int64_t ntiles, const int2 *__restrict__ tiles,
                const tile_args<T> a) {
  __shared__ T sm[TILE];
  __shared__ T red[32];
  __shared__ unsigned last_s;
  const x_plain<T> xs = {a.x};
  for (int64_t b = blockIdx.x; b < ntiles; b += gridDim.x)
    tiled_tile<T, TILE, LD>(b, tiles, a, xs, sm, red, &last_s);
}

#define SMV_TILED_TILE_MAX 4096

static const void *kernel(smv_precision prec) {
  return prec == SMV_F64 ? (const void *)spmv_tiled<double, 2048, SMV_TILE_EF>
                         : (const void *)spmv_tiled<float, 4096, SMV_TILE_EF>;
}

static size_t smem(smv_precision, int) { return 0; } /* all static */

/* The kernel for a tile size and load mode (tile_run's K).
 * smem_pct (change 8 at the top): in f32 with gathers in entry order (past
 * the L2, scattered columns) a carveout of 40% of the largest shared-memory
 * configuration. On the H100 the driver then configures 102 KB of shared
 * memory: 5 blocks of 4096 entries per SM, the rest of the 256 KB L1 for
 * x; by default it takes 168 KB (9 blocks), and at 43% it took 135 KB (7
 * blocks). ncu on rmat:22:16 f32 (H100, 2026-11-25, raw/pdl/carveout/):
 * L1 hits 11.4% at 102 KB against 9.0% at 135 KB, 61% of warps active
 * against 86%, and the kernel 1.01 against 1.05 ms. Timed, same run:
 * rmat:22:16 1010.0 us against 1047.7 at 135 KB and 1081-1084 without
 * the hint in earlier runs (ALG1 1009.1: 0.999x, from 0.931x);
 * rand:2000000:16,cols=1000000 274.7 us (ALG1 275.4: 1.003x, a tie
 * before). Earlier runs at 40%: rand:1000000:64 1.000 -> 1.007x, rmat
 * perm=rand 0.958 -> 0.977x, plaw 0.975 -> 0.982x, denserow 1.069 ->
 * 1.064x. Not in f64 (rmat:22:16 0.946 -> 0.852x, lap3d:160,perm=rand
 * 1.027 -> 0.997x) nor on local columns (band:8000000:8 f32 1.111 ->
 * 1.061x): there the blocks in flight matter more than the L1. */
template <typename T, int TILE, int LD> struct tiled_kernel {
  static constexpr auto fn = spmv_tiled<T, TILE, LD>;
  static constexpr int smem_pct =
      std::is_same<T, float>::value && LD == SMV_TILE_EF_TG ? 40 : 0;
};

static cudaError_t launch(const struct smv_launch *P) {
  return tile_run<tiled_kernel>(P, (const struct smv_tiles *)P->state);
}

/* ---- analysis --------------------------------------------------------------
 */

/* Entries per tile: 2048 in f64, 4096 in f32 on large matrices (16 KiB
 * of products either way: 8 resident blocks of 256 threads on an H100 SM
 * fit its 228 KiB of shared memory; each thread loads 8 or 16 entries per
 * tile); smaller on small matrices (smv_tile_size). */
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
 * after the tile's last.
 * Measured (H100, 2026-11-24, plaw:2000000:16, L2-warm): no split 322 /
 * 315 us (f64 / f32); split at twice the load alone (commit d42aa2a: a
 * third of the rows, mostly of 33-200 entries, got tiles of their own, one
 * 256-thread block each) 1705 / 673 us; hence the floor of tile / 8. */
static int64_t tile_end(const smv_csr *A, int64_t start, int64_t tile) {
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
static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                        void **state) {
  const int tile = smv_tile_size(
      ctx, m->st.nnz, m->prec == SMV_F64 ? 2048 : SMV_TILED_TILE_MAX);
  return smv_tiles_setup(ctx, A, tile, smv_tile_load(ctx, m), tile_end,
                         "tiled", state);
}

static void describe(const smv_matrix *, const void *state, char *buf,
                     size_t n) {
  smv_tiles_describe((const struct smv_tiles *)state, 10, buf, n);
}

static constexpr struct smv_rung descriptor() {
  struct smv_rung r = smv_kernel_rung(SMV_ALG_TILED, kernel, smem, 256, launch);
  r.host_rows = 1;
  r.setup = setup;
  r.release = smv_tiles_release;
  r.device_bytes = smv_tiles_device_bytes;
  r.describe = describe;
  return r;
}
const struct smv_rung smv_rung_tiled = descriptor();
