/*
 * pack.h — the packed CSR of rung 13 (src/cuda/rungs/spmv_13_packed.cu):
 * the column indices of a CSR matrix coded per tile, 16 bits relative to
 * the tile's smallest column where the tile's columns span at most 65535,
 * else 32 bits; the row offsets coded per tile in 16 bits. Lossless and in
 * CSR's entry order, so the values (f64 or f32) are the CSR's own array,
 * untouched. Built at analysis from the host CSR, in plain C11 (no CUDA),
 * so that the CPU tests check it; the device only uploads the arrays.
 *
 * Tiles (rung 10's): the rows cut, in order, into tiles of whole rows of
 * at most `tile` entries and at most `tile` rows (where a tile ends: a
 * rule the caller gives, rung 10's for rung 13, else the greedy one), and
 * a row longer than `tile` cut into pieces of `tile` entries (the last
 * piece shorter). Tile b covers entries [tiles[b].entry,
 * tiles[b + 1].entry) and, when whole, rows [tiles[b].row,
 * tiles[b + 1].row).
 *
 * Arrays and their bytes (R rows, Z entries, N tiles):
 *   tiles  N + 1 descriptors of 16 bytes (struct smv_pack_tile: one int4
 *          load), the last {R, Z, 0, 0};
 *   roff   R uint16: for row r of a whole-row tile, the end of r relative
 *          to its tile's first entry (r's start: 0 for the tile's first
 *          row, else roff[r - 1]); 0 for a row cut into pieces (the kernel
 *          reads those rows' bounds from the CSR offsets). At most `tile`
 *          <= 32768, so 16 bits always hold it;
 *   c16    Z uint16 when some narrow tile has entries, else none: for
 *          entry k of a narrow tile, column - base (indexed by the global
 *          entry k, so entry 8q is 16-byte aligned: one uint4 load per 8
 *          entries; the slots of wide tiles' entries are 0, never read);
 *   c32    the wide tiles' columns, int32, one run per wide tile placed
 *          at a position congruent to its first entry mod 4 (so 4 q + base
 *          is 16-byte aligned for an int4 load), at most 3 slots of
 *          padding before each run: column of entry k = c32[k + base].
 *   Total: 16 (N + 1) + 2 R + 2 Z' + 4 (W + P) bytes, Z' = Z or 0, W the
 *   wide tiles' entries, P the padding (< 4 per wide tile).
 * Read per SpMV on a local-column matrix (every tile narrow): 2 bytes per
 * entry of indices and 2 per row of offsets, against CSR's 4 and 4: with
 * the values, 10 bytes per entry in f64 (CSR 12) and 6 in f32 (CSR 8),
 * plus 16 per tile (0.008 per entry at 2048 entries per tile).
 */
#ifndef SMV_PACK_H
#define SMV_PACK_H

#include "smv.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SMV_PACK_WIDE 1u  /* 32-bit indices: c32[k + base]             */
#define SMV_PACK_PIECE 2u /* a piece of row `row`, longer than a tile  */
#define SMV_PACK_TILE_MAX 32768

/* One tile: 16 bytes. base: the tile's smallest column (narrow), or the
 * shift into c32 (wide: c32[k + base], k + base >= 0, base % 4 == 0 when
 * taken mod 4 with k). */
typedef struct {
  int32_t row;    /* first row (a piece: its row)              */
  int32_t entry;  /* first entry                               */
  int32_t base;   /* narrow: base column; wide: shift into c32 */
  uint32_t flags; /* SMV_PACK_WIDE | SMV_PACK_PIECE            */
} smv_pack_tile;

typedef struct {
  int tile; /* entries per tile, at most */
  int64_t rows, cols, nnz;
  int64_t ntiles;       /* without the closing descriptor */
  int64_t nwide;        /* wide tiles */
  int64_t npieces;      /* tiles that are pieces of long rows */
  int64_t wide_entries; /* entries in wide tiles */
  smv_pack_tile *tiles; /* ntiles + 1 */
  uint16_t *roff;       /* rows */
  uint16_t *c16;        /* n16: nnz or 0 */
  int32_t *c32;         /* n32 */
  int64_t n16, n32;
} smv_packed;

/* Where the tile of whole rows starting at row `start` ends (the row after
 * its last), or `start` when that row is longer than `tile` (it is then
 * cut into pieces): tiles.h's smv_tile_end_fn. */
typedef int64_t (*smv_pack_end_fn)(const smv_csr *A, int64_t start,
                                   int64_t tile);

/* Pack A (row_ptr and col_idx read; values never) in tiles of at most
 * `tile` entries (1..SMV_PACK_TILE_MAX); end: NULL for the greedy rule
 * (rows while their entries and their count fit in `tile`). Fills *out
 * (zeroed first; nothing left allocated on error). SMV_ERR_ARG for a bad
 * tile or an `end` that breaks its contract, SMV_ERR_NOMEM,
 * SMV_ERR_OVERFLOW when c32 would pass INT32_MAX slots. */
smv_status smv_pack_build(const smv_csr *A, int tile, smv_pack_end_fn end,
                          smv_packed *out);
void smv_pack_free(smv_packed *p); /* NULL-safe; zeroes *p */
/* Bytes of the packed arrays (the formula in the header above). */
size_t smv_pack_bytes(const smv_packed *p);
/* Index bytes one SpMV reads: 2 per narrow entry, 4 per wide one, 2 per
 * row, 16 per descriptor (with the values, the minimal-bytes model). */
size_t smv_pack_read_bytes(const smv_packed *p);
/* The CSR's row offsets (rows + 1) and columns (nnz) back from the packed
 * form, for the tests. SMV_ERR_INVALID_MATRIX when the descriptors do not
 * cover the entries and rows in order. */
smv_status smv_pack_decode(const smv_packed *p, smv_offset *row_ptr,
                           smv_index *col_idx);

#ifdef __cplusplus
}
#endif

#endif
