/*
 * pack.c — rung 13's packed CSR (format and bytes in pack.h): the encoder,
 * run once at the rung's set-up, and the decoder the tests check it with.
 */
#include "pack.h"

#include <stdlib.h>
#include <string.h>

/* The greedy rule: rows while their entries fit in `tile` and the tile
 * holds at most `tile` rows (runs of empty rows); `start` itself when its
 * row alone is longer than `tile`. */
static int64_t greedy_end(const smv_csr *A, int64_t start, int64_t tile) {
  const int64_t k0 = A->row_ptr[start];
  int64_t i = start;
  while (i < A->rows && i - start < tile &&
         (int64_t)A->row_ptr[i + 1] - k0 <= tile)
    i++;
  return i;
}

/* Cut the rows into tiles (written to t when not NULL); returns the number
 * of tiles, or -1 when `end` broke its contract (a whole-row tile of more
 * than `tile` entries or rows, past the last row, or a long row kept
 * whole). A row that fits but for which `end` returned `start` gets a
 * tile of its own. */
static int64_t cut(const smv_csr *A, int64_t tile, smv_pack_end_fn end,
                   smv_pack_tile *t) {
  int64_t n = 0, i = 0;
  while (i < A->rows) {
    const int64_t k0 = A->row_ptr[i], len = A->row_ptr[i + 1] - k0;
    if (len > tile) { /* pieces of `tile` entries */
      if (end && end(A, i, tile) != i)
        return -1;
      for (int64_t k = k0; k < k0 + len; k += tile, n++)
        if (t)
          t[n] = (smv_pack_tile){(int32_t)i, (int32_t)k, 0, SMV_PACK_PIECE};
      i++;
      continue;
    }
    int64_t next = end ? end(A, i, tile) : greedy_end(A, i, tile);
    if (next == i)
      next = i + 1;
    if (next < i || next > A->rows || next - i > tile ||
        (int64_t)A->row_ptr[next] - k0 > tile)
      return -1;
    if (t)
      t[n] = (smv_pack_tile){(int32_t)i, (int32_t)k0, 0, 0};
    n++;
    i = next;
  }
  if (t)
    t[n] = (smv_pack_tile){(int32_t)A->rows, (int32_t)A->nnz, 0, 0};
  return n;
}

void smv_pack_free(smv_packed *p) {
  if (!p)
    return;
  free(p->tiles);
  free(p->roff);
  free(p->c16);
  free(p->c32);
  memset(p, 0, sizeof *p);
}

/* calloc that never returns NULL for n = 0 (a zero-length array). */
static void *zalloc(int64_t n, size_t size) {
  return calloc(n > 0 ? (size_t)n : 1, size);
}

smv_status smv_pack_build(const smv_csr *A, int tile, smv_pack_end_fn end,
                          smv_packed *out) {
  if (!out)
    return SMV_ERR_ARG;
  memset(out, 0, sizeof *out);
  if (!A || !A->row_ptr || (A->nnz > 0 && !A->col_idx) || tile < 1 ||
      tile > SMV_PACK_TILE_MAX)
    return SMV_ERR_ARG;
  out->tile = tile;
  out->rows = A->rows;
  out->cols = A->cols;
  out->nnz = A->nnz;
  const int64_t nt = cut(A, tile, end, NULL);
  if (nt < 0)
    return SMV_ERR_ARG;
  out->ntiles = nt;
  out->tiles = (smv_pack_tile *)malloc((size_t)(nt + 1) * sizeof *out->tiles);
  if (!out->tiles)
    return SMV_ERR_NOMEM;
  (void)cut(A, tile, end, out->tiles);

  /* Each tile's column span: narrow (base = the smallest column) when the
   * largest is within 65535 of it, else wide, with its run in c32 placed
   * at pos = k0 (mod 4) and base = pos - k0. */
  const smv_index *col = A->col_idx;
  int any_narrow = 0;
  int64_t pos = 0;
  for (int64_t b = 0; b < nt; b++) {
    smv_pack_tile *d = &out->tiles[b];
    const int64_t k0 = d->entry, k1 = out->tiles[b + 1].entry;
    smv_index lo = k1 > k0 ? col[k0] : 0, hi = lo;
    for (int64_t k = k0; k < k1; k++) {
      lo = col[k] < lo ? col[k] : lo;
      hi = col[k] > hi ? col[k] : hi;
    }
    if ((int64_t)hi - lo <= 65535) {
      d->base = lo;
      any_narrow |= k1 > k0;
      continue;
    }
    pos += ((k0 - pos) % 4 + 4) % 4; /* now pos = k0 (mod 4) */
    d->flags |= SMV_PACK_WIDE;
    d->base = (int32_t)(pos - k0); /* |pos - k0| < 2^31 checked below */
    pos += k1 - k0;
    out->nwide++;
    out->wide_entries += k1 - k0;
    if (pos > INT32_MAX) {
      smv_pack_free(out);
      return SMV_ERR_OVERFLOW;
    }
  }
  for (int64_t b = 0; b < nt; b++)
    out->npieces += (out->tiles[b].flags & SMV_PACK_PIECE) != 0;
  out->n32 = pos;
  out->n16 = any_narrow ? A->nnz : 0;
  out->roff = (uint16_t *)zalloc(A->rows, sizeof *out->roff);
  out->c16 = (uint16_t *)zalloc(out->n16, sizeof *out->c16);
  out->c32 = (int32_t *)zalloc(out->n32, sizeof *out->c32);
  if (!out->roff || !out->c16 || !out->c32) {
    smv_pack_free(out);
    return SMV_ERR_NOMEM;
  }
  for (int64_t b = 0; b < nt; b++) {
    const smv_pack_tile d = out->tiles[b];
    const int64_t k0 = d.entry, k1 = out->tiles[b + 1].entry;
    for (int64_t k = k0; k < k1; k++) {
      if (d.flags & SMV_PACK_WIDE)
        out->c32[k + d.base] = col[k];
      else
        out->c16[k] = (uint16_t)(col[k] - d.base);
    }
    if (!(d.flags & SMV_PACK_PIECE))
      for (int64_t r = d.row; r < out->tiles[b + 1].row; r++)
        out->roff[r] = (uint16_t)(A->row_ptr[r + 1] - k0); /* <= tile */
  }
  return SMV_OK;
}

size_t smv_pack_bytes(const smv_packed *p) {
  return (size_t)(p->ntiles + 1) * sizeof(smv_pack_tile) + (size_t)p->rows * 2 +
         (size_t)p->n16 * 2 + (size_t)p->n32 * 4;
}

size_t smv_pack_read_bytes(const smv_packed *p) {
  return (size_t)(p->ntiles + 1) * sizeof(smv_pack_tile) + (size_t)p->rows * 2 +
         (size_t)(p->nnz - p->wide_entries) * 2 + (size_t)p->wide_entries * 4;
}

smv_status smv_pack_decode(const smv_packed *p, smv_offset *row_ptr,
                           smv_index *col_idx) {
  const smv_pack_tile *t = p->tiles;
  const int64_t nt = p->ntiles;
  if (!t || t[0].row != 0 || t[0].entry != 0 || t[nt].row != p->rows ||
      t[nt].entry != p->nnz)
    return SMV_ERR_INVALID_MATRIX;
  row_ptr[0] = 0;
  for (int64_t b = 0; b < nt; b++) {
    const smv_pack_tile d = t[b];
    const int64_t k0 = d.entry, k1 = t[b + 1].entry;
    if (k1 < k0 || k1 - k0 > p->tile || t[b + 1].row < d.row)
      return SMV_ERR_INVALID_MATRIX;
    for (int64_t k = k0; k < k1; k++) {
      if (d.flags & SMV_PACK_WIDE) {
        if (k + d.base < 0 || k + d.base >= p->n32)
          return SMV_ERR_INVALID_MATRIX;
        col_idx[k] = p->c32[k + d.base];
      } else {
        col_idx[k] = (smv_index)(d.base + p->c16[k]);
      }
    }
    if (d.flags & SMV_PACK_PIECE) { /* the last piece sets the row's end */
      row_ptr[d.row + 1] = (smv_offset)k1;
      continue;
    }
    for (int64_t r = d.row; r < t[b + 1].row; r++)
      row_ptr[r + 1] = (smv_offset)(k0 + p->roff[r]);
  }
  return SMV_OK;
}
