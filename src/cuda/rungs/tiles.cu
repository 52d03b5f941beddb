/*
 * tiles.cu — the tile lists of rungs 10 (tiled) and 11 (merge), built when
 * the rung is set up: the rows cut into tiles of whole rows (each rung's
 * own rule decides where a tile ends) and rows too long for a tile cut
 * into pieces of `tile` entries. Format in tiles.h (struct smv_tiles).
 */
#include "tiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Small matrices: the largest tile that still gives every SM four tiles
 * (a matrix of 100k entries on 132 SMs: 256-entry tiles, one entry per
 * thread), since there the time is the longest chain of dependent loads,
 * not bandwidth. */
int smv_tile_size(const smv_context *ctx, int64_t work, int top) {
  const int64_t want = (int64_t)ctx->prop.multiProcessorCount * 4;
  /* SMV_TILE_TOP=N (a power of two, 256..4096), for experiments on a new
   * device: the largest tile instead of the rung's own (read at set-up). */
  const int t = smv_env_int("SMV_TILE_TOP", 256, 4096, 0);
  if (t && (t & (t - 1)) == 0)
    top = t;
  int tile = top;
  while (tile > 256 && work / tile < want)
    tile /= 2;
  return tile;
}

/* Entry-order gathers (SMV_TILE_EF_TG) only for scattered columns
 * (col_spread > 0.05) past the L2, where they cut the L2 requests of
 * rung 10's gathers (up to 1.06x faster, ladder.md's rung notes). Local
 * columns keep the quad-order gathers: there entry order was a little
 * slower. */
int smv_tile_load(const smv_context *ctx, const smv_matrix *m) {
  if (!smv_matrix_past_l2(ctx, m))
    return SMV_TILE_RO;
  return smv_matrix_scattered(m) ? SMV_TILE_EF_TG : SMV_TILE_EF;
}

/* One line on a tile list for the analysis record ("rung 10 plan: ..."). */
void smv_tiles_describe(const struct smv_tiles *tl, int rung, char *buf,
                        size_t n) {
  static const char *load[] = {"read-only path", "evict-first",
                               "evict-first, gathers in entry order"};
  const int l = tl->load >= 0 && tl->load <= 2 ? tl->load : 0;
  snprintf(buf, n, "rung %d plan: %lld tiles of %d %s, %s%s", rung,
           (long long)tl->ntiles, tl->tile,
           rung == 10 ? "entries" : "rows + entries", load[l],
           tl->eo ? ", staged in entry order" : "");
}

/* Write the list (n entries counted by the first pass) into h, or only
 * count when h is NULL; returns the number of entries (without the final
 * {rows, -1}) and sets *pieces when any row was cut. */
static int64_t walk(const smv_csr *A, int64_t tile, smv_tile_end_fn end,
                    int2 *h, int *pieces) {
  int64_t n = 0, i = 0;
  while (i < A->rows) {
    const int64_t next = end(A, i, tile);
    if (next > i) { /* a tile of whole rows [i, next) */
      if (h)
        h[n] = make_int2((int)i, -1);
      n++;
      i = next;
      continue;
    }
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k += tile) {
      if (h)
        h[n] = make_int2((int)i, (int)k);
      n++;
      *pieces = 1;
    }
    i++;
  }
  if (h)
    h[n] = make_int2((int)A->rows, -1);
  return n;
}

smv_status smv_tiles_build(smv_context *ctx, const smv_csr *A, int64_t tile,
                           smv_tile_end_fn end, const char *who,
                           struct smv_tiles *out) {
  out->ntiles = 0;
  out->bytes = 0;
  out->list = NULL;
  out->partials = NULL;
  out->counts = NULL;
  out->next = NULL;
  if (A->rows == 0 || A->nnz == 0)
    return SMV_OK; /* the dispatcher never launches a kernel then */
  int pieces = 0;
  const int64_t nt = walk(A, tile, end, NULL, &pieces);
  const size_t list = (size_t)(nt + 1) * sizeof(int2);
  int2 *h = (int2 *)malloc(list);
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %zu bytes (%s tiles): out of memory", list,
                       who);
  (void)walk(A, tile, end, h, &pieces);
  /* One allocation: the list, then, only with pieces, nt partials (8
   * bytes) and nt counters (4 bytes), indexed by tile (only a long row's
   * first piece's counter is used), then the two counters of a persistent
   * kernel (rung 12: the next tile, the blocks done). */
  const size_t bytes = list + (pieces ? (size_t)nt * 12 : 0) + 8;
  void *d = NULL;
  cudaError_t e = cudaMalloc(&d, bytes);
  if (e != cudaSuccess) {
    free(h);
    return smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (%s tiles)", bytes,
                       who);
  }
  const char *what = "cudaMemcpy of the tile list";
  e = cudaMemcpyAsync(d, h, list, cudaMemcpyHostToDevice, ctx->stream);
  unsigned *counts =
      pieces ? (unsigned *)((char *)d + list + (size_t)nt * 8) : NULL;
  unsigned *next = (unsigned *)((char *)d + bytes - 8);
  if (e == cudaSuccess) { /* every counter starts at 0 */
    what = "cudaMemset of the tile counters";
    char *from = counts ? (char *)counts : (char *)next;
    e = cudaMemsetAsync(from, 0, (size_t)((char *)d + bytes - from),
                        ctx->stream);
  }
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize after the tile set-up";
    e = cudaStreamSynchronize(ctx->stream);
  }
  free(h);
  if (e != cudaSuccess) {
    cudaFree(d);
    return smv_cu_fail(ctx, e, "%s (%s, %zu bytes)", what, who, bytes);
  }
  out->list = (int2 *)d;
  out->partials = pieces ? (char *)d + list : NULL;
  out->counts = counts;
  out->next = next;
  out->ntiles = nt;
  out->bytes = bytes;
  return SMV_OK;
}

smv_status smv_tiles_setup(smv_context *ctx, const smv_csr *A, int tile,
                           int load, smv_tile_end_fn end, const char *who,
                           void **state) {
  *state = NULL;
  struct smv_tiles *tl = (struct smv_tiles *)calloc(1, sizeof *tl);
  if (!tl)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM, "%s tiles: out of host memory", who);
  tl->tile = tile;
  tl->load = load;
  const smv_status st = smv_tiles_build(ctx, A, tile, end, who, tl);
  if (st != SMV_OK) {
    free(tl);
    return st;
  }
  *state = tl;
  return SMV_OK;
}

void smv_tiles_release(void *state) {
  struct smv_tiles *tl = (struct smv_tiles *)state;
  if (!tl)
    return;
  cudaFree(tl->list); /* cudaFree(NULL) does nothing */
  free(tl);
}

size_t smv_tiles_device_bytes(const smv_matrix *, const void *state) {
  const struct smv_tiles *tl = (const struct smv_tiles *)state;
  return tl ? tl->bytes : 0;
}
