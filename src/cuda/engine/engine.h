/*
 * engine.h — private structures of the CUDA engine (src/cuda only; C++).
 *
 * The public API (include/smv.h, "CUDA engine") sees two opaque handles:
 *   smv_context — one device, one stream, one cuSPARSE handle, the last
 *                 error text, the block size of every rung and the cache of
 *                 texture objects rung 3 reads x through;
 *   smv_matrix  — one CSR matrix on that device (int32 row offsets, int32
 *                 column indices, double or float values), its statistics
 *                 (computed once, at upload: the "analysis" phase) and the
 *                 preprocessing the rungs need (cuSPARSE descriptors and
 *                 buffers, the adaptive rung's long-row list).
 *
 * Every rung file (spmv_N_name.cu) provides the functions declared at the
 * end of this header; dispatch.cu ties them together.
 */
#ifndef SMV_CUDA_ENGINE_H
#define SMV_CUDA_ENGINE_H

#include "internal.h"
#include "smv_lab.h"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdint.h>

/* Rung 3 keeps one texture object per distinct (x pointer, length,
 * precision) it has seen on this context. They are never evicted while the
 * context lives (a CUDA graph captured with one keeps using it), so the
 * cache is bounded: past SMV_TEX_CACHE distinct vectors rung 3 reads x
 * through the read-only path instead (rung 4's load), see spmv_3_tex.cu. */
#define SMV_TEX_CACHE 64

struct smv_tex_entry {
  const void *ptr;    /* x as the caller passed it                   */
  int64_t n;          /* elements of x (the matrix's cols)           */
  smv_precision prec; /* texel type: int2 (f64) or float (f32)       */
  cudaTextureObject_t tex;
  int64_t offset; /* elements between the bound base and ptr      */
};

/* Rungs with a kernel of ours, in ladder order (index = smv_alg). */
#define SMV_RUNGS SMV_ALG_COUNT

struct smv_context {
  int device;
  cudaStream_t own_stream; /* created here, destroyed in free          */
  cudaStream_t stream;     /* what we launch on: own or the caller's   */
  cusparseHandle_t sparse;
  char err[SMV_ERROR_TEXT];

  /* Device facts read once at creation. */
  cudaDeviceProp prop;
  int max_tex1d_linear; /* texels, cudaDevAttrMaxTexture1DLinearWidth */
  size_t tex_align;     /* bytes, cudaDevAttrTextureAlignment         */

  int block_override;              /* 0 = per-rung default            */
  int default_block[SMV_RUNGS][2]; /* [alg][prec], 0 if no kernel     */

  struct smv_tex_entry tex[SMV_TEX_CACHE];
  int ntex;

  /* smv_spmv_host_vectors' workspace (dispatch.cu): device x and y and a
   * host float stage for f32, grown on demand, freed with the context. */
  void *ws_x, *ws_y;
  size_t ws_x_bytes, ws_y_bytes;
  float *ws_stage;
  size_t ws_stage_n;
};

/* Release the workspace above (context.cu's smv_context_free). */
void smv_workspace_free(smv_context *ctx);

/* Per-matrix statistics, from the host CSR at upload (what AUTO and the
 * adaptive rung decide from). */
struct smv_matrix_stats {
  int64_t rows, cols, nnz;
  int64_t row_max;
  double row_mean;
  int64_t long_rows; /* rows longer than 4 x row_mean */
  /* Mean over entries of |j - i * cols / rows| / cols: how far from the
   * (scaled) diagonal the columns lie, 0 for a diagonal, about 1/3 for
   * uniformly random columns. Large = x is gathered from all over. */
  double col_spread;
};

/* cuSPARSE state of rungs 7 and 8 (index 0 = CSR_ALG1, 1 = CSR_ALG2):
 * one sparse-matrix descriptor and one external buffer per algorithm,
 * each prepared only when needed (AUTO's choice, SMV_MATRIX_CUSPARSE, the
 * tuner, or lazily on a first call outside a capture); the dense-vector
 * descriptors are shared (made with the first algorithm) and get the
 * caller's x and y pointers on every call (cusparseDnVecSetValues: no
 * allocation). */
struct smv_sparse_state {
  int ready[2];      /* algorithm i prepared (never for a matrix without
                        entries: rungs 7/8 are not called there) */
  double prep_ms[2]; /* bufferSize + cudaMalloc + preprocess, host clock */
  cusparseSpMatDescr_t mat[2];
  cusparseDnVecDescr_t vx, vy;
  void *buffer[2];
  size_t buffer_bytes[2];
};

/* A tile list (rungs 10 and 11, built by smv_tiles_build in tiles.cu):
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
  SMV_TILE_EF = 1,   /* past the L2: the stream (indices, values: read once)
                        ld.global.cs, evict-first, so x stays in the L2     */
  SMV_TILE_EF_TG = 2 /* the same, gathers of x in entry order across the
                        warp (tile_common.h's stage_tg): scattered columns
                        past the L2                                       */
};
struct smv_tiles {
  int tile;
  int load; /* enum smv_tile_load */
  int64_t ntiles;
  size_t bytes; /* the one allocation at list */
  int2 *list;
  void *partials;
  unsigned *counts;
  unsigned *next;
};

/* Rung 12's hot columns (spmv_12_hot.cu, smv_hot_setup): the k most used
 * columns (each in `threshold` or more entries), whose x every block keeps
 * in shared memory. `col` (device) is the column array with ~slot in place
 * of a hot column; `list` (same allocation, after it) the k columns by
 * slot: nnz * 4 + k * 4 bytes, only `col` is freed. k = 0: no hot columns,
 * col and list NULL. block and grid: the default launch (persistent: the
 * blocks that fit on the device; 0 without tiles), sms the device's SM
 * count for other block sizes. The rung takes its tiles from the stream
 * list's `next` counters. */
struct smv_hot {
  int k;
  double mass; /* share of the entries in the hot columns */
  int64_t threshold;
  int32_t *col, *list;
  int block, sms;
  unsigned grid;
};

/* Rung 9's programmatic dependent launch (its change 6). */
enum smv_pdl_mode { SMV_PDL_OFF = 0, SMV_PDL_ON = 1, SMV_PDL_TRIGGER = 2 };

struct smv_matrix {
  int device;
  smv_precision prec;
  struct smv_matrix_stats st;
  int32_t *row_ptr; /* rows + 1 */
  int32_t *col_idx; /* nnz      */
  void *values;     /* nnz doubles or floats */
  smv_alg auto_alg; /* what SMV_ALG_AUTO runs for this matrix */
  struct smv_sparse_state sp;

  /* The plan and the analysis record (matrix.cu, tune.cu):
   * smv_matrix_plan_info without the cuSPARSE and byte fields, which are
   * read from sp and the arrays when asked. */
  unsigned opts; /* SMV_MATRIX_* given at creation */
  smv_matrix_plan_info plan;

  /* Adaptive rung (9, spmv_9_adaptive.cu): `lanes` threads per row,
   * chosen from the row lengths at upload; rows longer than
   * long_threshold are skipped by the row groups and summed, in the same
   * launch, by one warp per chunk of SMV_CHUNK entries, listed in `chunks`
   * (device, nchunks entries of {row, first entry, row begin, row end}). One
   * allocation holds the list, then `partials` (nchunks doubles or floats: each
   * chunk's sum) and `counts` (nchunks unsigned: at a row's first chunk, how
   * many of its chunks are done; 0 between calls), after the block-row list
   * below. Only `long_alloc` is freed.
   * stream_hint: load values and indices L2 evict-first (matrices past
   * the L2 with lanes >= 8 only; see the rung's file). */
  int lanes;
  int stream_hint;
  int64_t long_threshold;
  int4 *chunks; /* {row, first entry, row begin, row end} */
  void *partials;
  unsigned *counts;
  int64_t nchunks;
  void *long_alloc;   /* the one allocation: block rows, chunks, ... */
  size_t chunk_bytes; /* its size */
  /* Rung 9's plan for small matrices (the "one-round" plan, see the
   * rung's file): rows of more than one warp round and at most
   * block_row_max entries are summed by a whole block each, listed in
   * block_rows (device, nblock_rows of {row, begin, end, 0}; in the allocation
   * at long_alloc, before the chunk list); block = the launch's block size (0:
   * the context's). Zero for the default plan. */
  int block;
  int one_per_row; /* nnz == rows, every row one entry: its own kernel */
  /* Programmatic dependent launch (rung 9's change 6): OFF, ON (launched
   * with the attribute: our matrix loads overlap the end of the kernel
   * before us) or TRIGGER (also let the kernel after us launch as soon as
   * all our blocks run). */
  enum smv_pdl_mode pdl;
  int64_t block_row_max;
  int64_t nblock_rows;
  int4 *block_rows; /* {row, begin, end, 0} */

  /* A^T as a matrix of its own (transpose.cu), NULL until the first
   * transposed product or smv_matrix_prepare_transpose; freed with A. */
  struct smv_matrix *transpose;
  /* cuSPARSE SpMM workspace (spmm_cusparse.cu): grown to the largest
   * size any shape asked for, freed with A. */
  void *spmm_buffer;
  size_t spmm_buffer_bytes;
  cusparseSpMatDescr_t spmm_mat; /* created on first use */
  int64_t spmm_key[5]; /* alg, k, layout, ldx, ldy last preprocessed */
  /* smv's SpMM long-row split (src/cuda/spmm/spmm_4_rowsplit.cu): the
   * chunk list and partial-sum workspace, built on the first split
   * product, freed by smv_spmm_release. */
  struct smv_spmm_split *spmm_split;
  /* Tile lists of rungs 10 (stream) and 11 (merge): see struct smv_tiles.
   */
  struct smv_tiles stream, merge;
  /* Rung 12's hot columns (it runs on the stream list above). */
  struct smv_hot hot;
};

/* Everything one launch needs. Sizes are 64-bit so nothing overflows in
 * grid arithmetic; the kernels index entries with 32-bit unsigned values
 * (nnz <= INT32_MAX, so k + 32 never wraps). */
struct smv_launch {
  smv_precision prec;
  int64_t rows;
  const int32_t *row_ptr, *col_idx;
  const void *values;
  const void *x;
  void *y;
  double alpha, beta;
  int block;
  cudaStream_t stream;
  struct smv_matrix *m; /* rung 9 writes its partials and counters */
  /* rung 3 only */
  cudaTextureObject_t tex;
  int64_t tex_offset;
};

/* ---- error text (context.cu) ------------------------------------------- */

/* Record "what: <CUDA error text>" on ctx and return the matching status
 * (SMV_ERR_NOMEM for allocation failures, SMV_ERR_CUDA otherwise). */
smv_status smv_cu_fail(smv_context *ctx, cudaError_t e, const char *fmt, ...)
    SMV_PRINTF(3, 4);
smv_status smv_sparse_fail(smv_context *ctx, cusparseStatus_t s,
                           const char *fmt, ...) SMV_PRINTF(3, 4);
/* Record a plain message with a given status. */
smv_status smv_ctx_set(smv_context *ctx, smv_status st, const char *fmt, ...)
    SMV_PRINTF(3, 4);

/* Make ctx->device current for the duration of a call; restores the
 * caller's device afterwards. */
struct smv_device_guard {
  int prev;
  int changed;
};
smv_status smv_device_enter(smv_context *ctx, struct smv_device_guard *g);
void smv_device_leave(struct smv_device_guard *g);
/* smv_device_enter for a set-up call that synchronises or builds, and so
 * cannot be recorded into a graph: refuses ctx's stream while it is being
 * captured, with status `code` and the message `refusal` (`who` prefixes
 * the message when the capture query itself fails). On any error the
 * guard is already left. */
smv_status smv_device_enter_uncaptured(smv_context *ctx,
                                       struct smv_device_guard *g,
                                       const char *who, smv_status code,
                                       const char *refusal);

/* Grid for `work` threads in blocks of `block`, capped at the device's
 * gridDim.x limit (the kernels loop, so any row count works). */
unsigned smv_grid_for(int64_t work, int block);

/* Values and column indices (nnz * (8 or 4 + 4) bytes) outgrow the
 * device's L2: the matrix streams from DRAM (matrix.cu). AUTO, rung 9's
 * plan and the tile rungs' load mode decide on it. */
int smv_matrix_past_l2(const smv_context *ctx, const smv_matrix *m);
/* Scattered columns (col_spread > 0.05): x is gathered from all over, not
 * along the diagonal. AUTO, the tile rungs' load mode and rung 12's hot
 * columns decide on it. */
int smv_matrix_scattered(const smv_matrix *m);

/* Host wall clock in milliseconds (CLOCK_MONOTONIC), for the analysis
 * record. */
double smv_now_ms(void);

/* ---- the rungs ---------------------------------------------------------- */

/* One entry per rung with a kernel of ours. `kernel` gives the function
 * for cudaFuncGetAttributes / occupancy queries; `smem` the dynamic shared
 * memory it is launched with at a given block size; `launch` runs it on
 * L (alpha != 0, nnz > 0, rows > 0 guaranteed by the dispatcher). */
struct smv_rung {
  const void *(*kernel)(smv_precision prec);
  size_t (*smem)(smv_precision prec, int block);
  cudaError_t (*launch)(const struct smv_launch *L);
  int preferred_block; /* tie-break among max-occupancy sizes, measured */
};

/* One per rung with a kernel of ours, from the registry (src/core/rungs.def);
 * each defined at the end of its src/cuda/rungs/spmv_N_*.cu. */
#define SMV_RUNG(n, alg, name, kernel, glue, what)                             \
  extern const struct smv_rung glue;
#define SMV_RUNG_LIB(n, alg, name, what)
#include "rungs.def"
#undef SMV_RUNG
#undef SMV_RUNG_LIB

/* The rung behind an alg, NULL for AUTO and the cuSPARSE rungs. */
const struct smv_rung *smv_rung_of(smv_alg alg);

/* ---- set-up (dispatch.cu) ------------------------------------------------ */

/* Fill ctx->default_block from the kernels' attributes and the occupancy
 * model (at context creation). */
smv_status smv_blocks_init(smv_context *ctx);
/* The rung AUTO runs for this matrix, from its statistics and precision
 * (at upload). */
smv_alg smv_auto_choose(const smv_context *ctx, const smv_matrix *m);

/* Adaptive rung's analysis (spmv_9_adaptive.cu), once at upload on a
 * zeroed plan: choose the lanes per row from the statistics, list and
 * upload the long rows' chunks. */
smv_status smv_adaptive_setup(smv_context *ctx, smv_matrix *m,
                              const smv_csr *A);

/* One line on rung 9's plan (lanes, threshold, long-row lists), for the
 * analysis record. */
void smv_adaptive_describe(const smv_matrix *m, char *buf, size_t n);

/* Stream rung's analysis (spmv_10_stream.cu), once at upload: choose the
 * tile size, cut the rows into tiles, upload the list. */
smv_status smv_stream_setup(smv_context *ctx, smv_matrix *m, const smv_csr *A);
/* Merge rung's analysis (spmv_11_merge.cu), the same for its tiles. */
smv_status smv_merge_setup(smv_context *ctx, smv_matrix *m, const smv_csr *A);
/* Hot rung's analysis (spmv_12_hot.cu), after the stream rung's: its
 * launch and tile counters; with hot != 0 (SMV_MATRIX_HOT) also count the
 * columns' entries on the device, choose the hot ones and write the
 * column array that names their slots (smv_hot_build; the tuner calls it
 * too). And its line for the analysis record. */
smv_status smv_hot_setup(smv_context *ctx, smv_matrix *m, int hot);
/* The hot columns alone (build: smv_hot_setup has run; release: col
 * only), and after a plan (heuristic or tuner): release them unless AUTO
 * runs rung 12 or the matrix was made with SMV_MATRIX_HOT. */
smv_status smv_hot_build(smv_context *ctx, smv_matrix *m);
void smv_hot_release(smv_matrix *m);
void smv_hot_settle(smv_matrix *m);
/* Where AUTO's heuristic considers rung 12 (f32 past the L2, scattered
 * columns, x inside the L2); it picks it when the hot columns hold
 * SMV_HOT_AUTO_MASS of the entries or more. */
#define SMV_HOT_AUTO_MASS 0.10
int smv_hot_auto_candidate(const smv_context *ctx, const smv_matrix *m);
void smv_hot_describe(const smv_matrix *m, char *buf, size_t n);

/* Cut A's rows into a tile list (tiles.cu). end(A, start, tile) gives the
 * row after the last of the tile of whole rows that starts at `start`, or
 * `start` itself when that row is too long for one tile (it is then cut
 * into pieces of `tile` entries). `who` names the rung in error messages.
 * Fills out->ntiles, bytes, list, partials, counts (out->tile and load
 * are the caller's); on error nothing is left allocated. */
typedef int64_t (*smv_tile_end_fn)(const smv_csr *A, int64_t start,
                                   int64_t tile);
smv_status smv_tiles_build(smv_context *ctx, const smv_csr *A, int64_t tile,
                           smv_tile_end_fn end, const char *who,
                           struct smv_tiles *out);
/* The tile size for a matrix (tiles.cu): `top` for large matrices, halved
 * (down to 256) until `work` (nnz for rung 10, rows + nnz for rung 11)
 * gives every SM four tiles. */
int smv_tile_size(const smv_context *ctx, int64_t work, int top);
/* One line on a tile list (tiles.cu), for the analysis record. */
void smv_tiles_describe(const struct smv_tiles *tl, int rung, char *buf,
                        size_t n);
/* The load mode for a matrix (tiles.cu): evict-first past the L2, with
 * the gathers in entry order when its columns are scattered. */
int smv_tile_load(const smv_context *ctx, const smv_matrix *m);

/* y = beta*y (beta = 0 writes zeros, never reads y): scale.cu. */
cudaError_t smv_launch_scale(smv_precision prec, int64_t n, double beta,
                             void *y, cudaStream_t stream);

/* Rung 3's texture object for x (texture cache in the context). On
 * success *tex is 0 when x cannot be bound (past maxTexture1DLinear or a
 * full cache): the caller then reads x through the read-only path. */
smv_status smv_tex_lookup(smv_context *ctx, smv_precision prec, const void *x,
                          int64_t n, cudaTextureObject_t *tex, int64_t *offset);
void smv_tex_cache_clear(smv_context *ctx);

/* cuSPARSE SpMM (spmm_cusparse.cu): run one of SMV_SPMM_CUSPARSE_ALG*,
 * and release the matrix's workspace. */
smv_status smv_spmm_cusparse(smv_context *ctx, smv_spmm_alg alg, double alpha,
                             const smv_matrix *m, const void *X, int64_t ldx,
                             double beta, void *Y, int64_t ldy, int k,
                             smv_layout layout);
void smv_spmm_release(smv_matrix *m);
/* smv's SpMM kernels (spmm_ours.cu), alpha != 0, nnz > 0, rows > 0, k > 0. */
cudaError_t smv_spmm_launch_ours(const smv_matrix *m, double alpha,
                                 const void *X, int64_t ldx, double beta,
                                 void *Y, int64_t ldy, int k, smv_layout layout,
                                 cudaStream_t stream);
/* Y = beta*Y over rows x k (beta = 0 writes zeros, never reads Y). */
cudaError_t smv_spmm_launch_scale(smv_precision prec, int64_t rows, int k,
                                  double beta, void *Y, int64_t ldy,
                                  smv_layout layout, cudaStream_t stream);

/* cuSPARSE rungs (spmv_7_cusparse.cu). prepare: make algorithm `alg`'s
 * descriptor and buffer and run its preprocess (a no-op when ready or the
 * matrix has no entries); release_alg drops one algorithm's state,
 * release all of it. */
smv_status smv_sparse_prepare(smv_context *ctx, smv_matrix *m, smv_alg alg);
void smv_sparse_release_alg(smv_matrix *m, smv_alg alg);
void smv_sparse_release(smv_matrix *m);
smv_status smv_sparse_run(smv_context *ctx, smv_alg alg, smv_matrix *m,
                          double alpha, const void *x, double beta, void *y);

#endif
