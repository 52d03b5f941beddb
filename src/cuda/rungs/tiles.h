/*
 * tiles.h — the tile lists of rungs 10 (tiled), 11 (merge) and, through
 * rung 10's, 12 (hot): their format and the functions that build them
 * (tiles.cu). Private to src/cuda/rungs.
 */
#ifndef SMV_CUDA_TILES_H
#define SMV_CUDA_TILES_H

#include "engine.h"

/* A tile list (rung 10's state, and rung 11's; built by smv_tiles_build):
 * the rows cut into tiles of whole rows of at most `tile` work items each
 * (entries for rung 10, rows + entries for rung 11), and rows too long for
 * one tile cut into pieces of `tile` entries. `list` (device) holds
 * ntiles + 1 entries of {first row, -1} for a tile of whole rows, {row,
 * first entry} for a piece, ending with {rows, -1}; with pieces the same
 * allocation holds `partials` (8 bytes per tile) and `counts` (4 bytes per
 * tile; 0 between calls), and always `next`: two counters for a kernel
 * that takes tiles in turn (rung 12: the next tile, the blocks done; 0
 * between calls). Only `list` is freed.
 * load: how the entries are loaded (below). */
enum smv_tile_load {
  SMV_TILE_RO = 0,   /* read-only path (__ldg): a matrix inside the L2      */
  SMV_TILE_EF = 1,   /* past the L2: indices and values (read once) with
                        ld.global.cs, evict-first, so x stays in the L2     */
  SMV_TILE_EF_TG = 2 /* the same, gathers of x in entry order across the
                        warp (tile_common.h's stage_tg): scattered columns
                        past the L2                                       */
};
struct smv_tiles {
  int tile;
  int load; /* enum smv_tile_load */
  int eo;   /* entry-order staging (tile_common.h's stage_eo): 0 quads,
               1 entry order into swizzled slots, 2 into plain slots; set
               by rung 10's setup (tiled_eo), 0 from smv_tiles_setup */
  int64_t ntiles;
  size_t bytes; /* the one allocation at list */
  int2 *list;
  void *partials;
  unsigned *counts;
  unsigned *next;
};

/* Cut A's rows into a tile list. end(A, start, tile) gives the row after
 * the last of the tile of whole rows that starts at `start`, or `start`
 * itself when that row is too long for one tile (it is then cut into
 * pieces of `tile` entries). `who` names the rung in error messages.
 * Fills out->ntiles, bytes, list, partials, counts (out->tile and load
 * are the caller's); on error nothing is left allocated. */
typedef int64_t (*smv_tile_end_fn)(const smv_csr *A, int64_t start,
                                   int64_t tile);
smv_status smv_tiles_build(smv_context *ctx, const smv_csr *A, int64_t tile,
                           smv_tile_end_fn end, const char *who,
                           struct smv_tiles *out);
/* Rung 10's rule (spmv_10_tiled.cu), which rung 13's packed tiles follow
 * too, so both cut a matrix the same way. */
int64_t smv_tiled_end(const smv_csr *A, int64_t start, int64_t tile);
/* A rung's tile list as its state: a zeroed struct smv_tiles with tile
 * and load set, built by smv_tiles_build into *state (NULL and nothing
 * allocated on error). */
smv_status smv_tiles_setup(smv_context *ctx, const smv_csr *A, int tile,
                           int load, smv_tile_end_fn end, const char *who,
                           void **state);
/* Free a tile list made by smv_tiles_setup (NULL-safe), and its bytes. */
void smv_tiles_release(void *state);
size_t smv_tiles_device_bytes(const smv_matrix *m, const void *state);
/* The tile size for a matrix: `top` for large matrices, halved (down to
 * 256) until `work` (nnz for rung 10, rows + nnz for rung 11) gives every
 * SM four tiles. */
int smv_tile_size(const smv_context *ctx, int64_t work, int top);
/* One line on a tile list, for the analysis record. */
void smv_tiles_describe(const struct smv_tiles *tl, int rung, char *buf,
                        size_t n);
/* The load mode for a matrix: evict-first past the L2, with the gathers
 * in entry order when its columns are scattered. */
int smv_tile_load(const smv_context *ctx, const smv_matrix *m);

#endif
