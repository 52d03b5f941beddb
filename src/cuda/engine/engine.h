/*
 * engine.h — private structures of the CUDA engine (src/cuda only; C++).
 *
 * The public API (include/smv.h, "CUDA engine") sees two opaque handles:
 *   smv_context — one device, one stream, one cuSPARSE handle, the last
 *                 error text, the block size of every rung and the cache of
 *                 texture objects rung 3 reads x through;
 *   smv_matrix  — one CSR matrix on that device (int32 row offsets, int32
 *                 column indices, double or float values), its statistics
 *                 (computed once, at upload: the "analysis" phase), its
 *                 plan and one opaque slot per rung for the state that
 *                 rung keeps (cuSPARSE descriptors and buffers, rung 9's
 *                 long-row list, the tile lists), set up when needed.
 *
 * Every rung file (spmv_N_name.cu) defines one descriptor (struct
 * smv_rung below), named in the registry src/core/rungs.def; rungs.cu
 * loops over them and dispatch.cu runs them.
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
  /* The DRAM's peak bytes per SM per SM clock: 2 transfers a memory clock
   * x the bus width, over the SMs x their clock; 0 when the device does
   * not say. The more of them, the more bytes each SM must keep in flight
   * to stream at the copy bandwidth (rung 10's f64 tile size and staging
   * order read it, through smv_dram_fast; the H100's and H200's values:
   * docs/engine.md, rule 7). */
  double dram_per_sm_clk;

  int block_override; /* 0 = per-rung default            */
  int default_block[SMV_ALG_COUNT][SMV_PRECISION_COUNT]; /* [alg][prec],
                                                          0: no kernel */

  struct smv_tex_entry tex[SMV_TEX_CACHE];
  int ntex;

  /* smv_spmv_host_vectors' workspace (dispatch.cu): device x and y and a
   * host float stage for f32, grown on demand, freed with the context. */
  void *ws_x, *ws_y;
  size_t ws_x_bytes, ws_y_bytes;
  float *ws_stage;
  size_t ws_stage_n;

  /* The device solvers' workspace (src/cuda/solve/driver.cu): one device
   * buffer for a solve's work vectors, state, partials, sync word and
   * history, grown on demand (never shrunk), and one pinned host block of
   * SMV_WS_STATUS_BYTES the convergence check copies its status into,
   * allocated on the first solve. Kept from solve to solve, so that a
   * call pins no pages (cudaMallocHost) and frees nothing (cudaFree waits
   * for the whole device) unless the buffer grows; freed with the
   * context. Every solve leaves its stream idle before it returns, errors
   * included (solver::release), so the next call finds both unused. */
  void *ws_solve;
  size_t ws_solve_bytes;
  void *ws_solve_status;

  /* The resident persistent CG's last plan (src/cuda/solve/cg_coop.cu,
   * res_plan): its slices' bounds and halo map on the device (plan, own
   * allocation, cg_res_plan_len int32) and the largest slice's bytes
   * (need), for the matrix of that serial on a grid of G blocks, at that
   * element size, with or without Jacobi and under those knobs. The next
   * solve of the same matrix with the same key takes it instead of
   * planning again (two kernels, a copy back and a wait, and a
   * cudaMalloc and cudaFree of 8 bytes an entry). Freed with the context
   * or replaced by the next plan. */
  struct smv_res_plan_cache {
    uint64_t serial;
    int G, es, jac, rebalance, map_keys;
    size_t need;
    int32_t *plan;
  } res_plan;
};

/* The pinned status block's bytes: a solve_status (solver.h, 32 bytes)
 * with room to spare; driver.cu asserts that it fits. */
#define SMV_WS_STATUS_BYTES 64

/* A new matrix's serial (struct smv_matrix): 1, 2, ... across threads. */
uint64_t smv_matrix_serial_next(void);

/* Release the workspaces above (context.cu's smv_context_free). */
void smv_workspace_free(smv_context *ctx);
/* Grow the device buffer *p of *cap bytes to at least `bytes`: kept when
 * big enough, else freed and allocated anew (nothing is copied). The
 * caller makes sure no queued work still uses the old buffer. Returns the
 * cudaMalloc's error, with *p NULL and *cap 0, for the caller to word. */
cudaError_t smv_workspace_grow(void **p, size_t *cap, size_t bytes);

/* Per-matrix statistics, from the host CSR at upload (what AUTO and the
 * adaptive rung decide from). */
/* Columns within this distance of the scaled diagonal i * cols / rows are
 * "near": a tile of R rows whose entries are all near spans at most 2 x
 * 30000 columns plus (R - 1) x cols / rows, inside a 16-bit offset's 65535
 * (rung 13's narrow tiles) for square-ish matrices. Only a filter for
 * rung 13's reuse candidacy: a tile holding a far entry keeps 32-bit
 * columns, and the reuse plan measures rung 13 before keeping it. */
#define SMV_NEAR_COLS 30000.0

struct smv_matrix_stats {
  int64_t rows, cols, nnz;
  int64_t row_max;
  double row_mean;
  int64_t long_rows;  /* rows longer than 4 x row_mean */
  int64_t short_rows; /* rows of fewer than SMV_SPMM_SHORT_ROW entries */
  /* Mean over entries of |j - i * cols / rows| / cols: how far from the
   * (scaled) diagonal the columns lie, 0 for a diagonal, about 1/3 for
   * uniformly random columns. Large = x is gathered from all over. */
  double col_spread;
  /* Entries whose column lies more than SMV_NEAR_COLS from the (scaled)
   * diagonal: a tile of rung 13 holding one of them spans more than a
   * 16-bit offset reaches (its reuse_ok). */
  int64_t far_entries;
};

struct smv_matrix {
  int device;
  /* Unique in the process, never reused (smv_matrix_serial_next): what a
   * context's caches of per-matrix plans are keyed by (a freed matrix's
   * address may come back for another). The structure (row_ptr, col_idx)
   * never changes after creation. */
  uint64_t serial;
  smv_precision prec;
  struct smv_matrix_stats st;
  int32_t *row_ptr;      /* rows + 1 */
  int32_t *col_idx;      /* nnz      */
  void *values;          /* nnz doubles or floats */
  smv_alg auto_alg;      /* what SMV_ALG_AUTO runs for this matrix */
  smv_alg heuristic_alg; /* what AUTO's rule chose at analysis */

  /* The plan and the analysis record (matrix.cu, tune.cu):
   * smv_matrix_plan_info without the cuSPARSE and byte fields, which are
   * read from the rungs' state when asked. */
  unsigned opts; /* SMV_MATRIX_* given at creation */
  smv_matrix_plan_info plan;

  /* Each rung's per-matrix state, owned by the rung (its descriptor's
   * setup makes it, release frees it; rungs.cu calls them): NULL until
   * set up, and for a rung that keeps nothing. ready: set up (a rung
   * without a setup is always ready). kept: asked for (smv_matrix_prepare,
   * a first call, a creation flag, AUTO's rung), so it survives the
   * release of what was set up only to plan (smv_rungs_settle).
   * setup_ms: host time of the last set-up, synchronised. */
  void *state[SMV_ALG_COUNT];
  unsigned char ready[SMV_ALG_COUNT];
  unsigned char kept[SMV_ALG_COUNT];
  double setup_ms[SMV_ALG_COUNT];

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
  struct smv_matrix *m; /* the matrix (a rung reads what it needs from) */
  void *state;          /* the rung's own per-matrix state (may be NULL) */
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

/* ---- a device matrix back on the host (transpose.cu) ------------------ */

/* m's arrays back to the host as a double-valued CSR *out (f32 values
 * widen exactly, so a matrix made from it in f32 has m's floats; columns
 * in m's order, sorted = 0): (rows + 1) x 4 + nnz x (4 + es) bytes read,
 * the stream synchronised. `who` prefixes the error. Used by A^T's build
 * and SpMM rung 11's bands. */
smv_status smv_matrix_download(smv_context *ctx, const smv_matrix *m,
                               const char *who, smv_csr **out);

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

/* An experiment knob: environment variable `name` as an integer in
 * [lo, hi] (its leading digits, as strtol reads them), else dflt (unset,
 * empty or out of range). */
int smv_env_int(const char *name, int lo, int hi, int dflt);
/* A device whose DRAM delivers more than 16 bytes per SM per SM-clock
 * (the H200 class; the H100 delivers about 13): the one threshold rung
 * 10's f64 tile size and staging order decide by. */
static inline int smv_dram_fast(const smv_context *ctx) {
  return ctx->dram_per_sm_clk > 16.0;
}

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

/* AUTO's rule reads these facts of a matrix (src/core/auto.def). */
#include "auto.h"

/* A rung's descriptor: everything the engine knows of it. Each rung file
 * src/cuda/rungs/spmv_N_name.cu defines one, named in the registry
 * (src/core/rungs.def); the engine loops over them (rungs.cu) and never
 * reads a rung's state itself. Hooks a rung does not need are NULL.
 *
 * Per-matrix state: setup makes it (from the matrix and, for a rung with
 * host_rows, the host row offsets A->row_ptr, with host_cols also the
 * column indices A->col_idx; otherwise A->col_idx may be NULL, and
 * A->values always may) into *state, release frees it (NULL-safe), device_bytes
 * counts what it holds on the device. It is set up only when the rung
 * will run or is timed: AUTO's rung at analysis, a rung named by
 * smv_matrix_prepare, a creation flag, the tuner, or the first call
 * outside a stream capture. `needs` names a rung whose state this one
 * reads (m->state[needs]: rung 12 runs on rung 10's tile list): set up
 * before it, released after it.
 * Planning: a rung whose state AUTO's rule reads says where (probe) and
 * fills its facts (facts); plan_setup builds what only planning (AUTO's
 * probe, the tuner) makes, and plan_settle drops it again when the plan
 * did not choose the rung.
 * Running: kernel / smem / preferred_block for the attribute and
 * occupancy queries and the default block size (a rung with a kernel of
 * ours); block: the block size its plan wants (0: the context's);
 * launch runs a kernel of ours on L (alpha != 0, nnz > 0, rows > 0
 * guaranteed by the dispatcher), run a library's SpMV (the cuSPARSE
 * rungs) and sets the context's error itself. */
struct smv_rung {
  smv_alg alg;         /* its number (checked against the registry) */
  unsigned precisions; /* bit p set: runs smv_precision p */
  smv_alg needs;       /* SMV_ALG_AUTO: nothing */
  int host_rows;       /* setup reads A->row_ptr */
  int host_cols;       /* setup reads A->row_ptr and A->col_idx */

  const void *(*kernel)(smv_precision prec);
  size_t (*smem)(smv_precision prec, int block);
  int preferred_block; /* tie-break among max-occupancy sizes, measured */

  smv_status (*setup)(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                      void **state);
  void (*release)(void *state);
  size_t (*device_bytes)(const smv_matrix *m, const void *state);
  void (*describe)(const smv_matrix *m, const void *state, char *buf, size_t n);
  int (*block)(const void *state);

  int (*probe)(const smv_context *ctx, const smv_matrix *m);
  void (*facts)(const smv_matrix *m, const void *state,
                struct smv_auto_facts *f);
  smv_status (*plan_setup)(smv_context *ctx, smv_matrix *m, void *state);
  void (*plan_settle)(smv_matrix *m, void *state);
  /* Compressed storage: a rung whose set-up re-encodes the matrix (rung
   * 13 packs the column indices) costs far more than an SpMV, so AUTO's
   * rule never runs it; the reuse plan (SMV_MATRIX_REUSE, tune.cu) times
   * it where this says the matrix qualifies, from the statistics alone
   * (nothing set up). NULL: not a compressed rung. */
  int (*reuse)(const smv_context *ctx, const smv_matrix *m);

  cudaError_t (*launch)(const struct smv_launch *L);
  smv_status (*run)(smv_context *ctx, smv_matrix *m, void *state, double alpha,
                    const void *x, double beta, void *y);
};
#define SMV_PREC_BOTH (1u << SMV_F64 | 1u << SMV_F32)
/* SMV_F64_F32V (f32 values, f64 vectors and sums): only the rungs that set
 * this bit run it (2, 9, 10); every other refuses it. */
#define SMV_PREC_F32V (1u << SMV_F64_F32V)

/* A descriptor with its number, both precisions and nothing else; a
 * rung's file sets its hooks on the result (in a constexpr function: the
 * descriptor stays a constant). */
static constexpr struct smv_rung smv_base_rung(smv_alg alg) {
  struct smv_rung r = {};
  r.alg = alg;
  r.precisions = SMV_PREC_BOTH;
  r.needs = SMV_ALG_AUTO;
  return r;
}

/* The descriptor of a rung of ours without per-matrix state; a rung with
 * state sets its other hooks on the result. */
static constexpr struct smv_rung
smv_kernel_rung(smv_alg alg, const void *(*kernel)(smv_precision prec),
                size_t (*smem)(smv_precision prec, int block), int preferred,
                cudaError_t (*launch)(const struct smv_launch *L)) {
  struct smv_rung r = smv_base_rung(alg);
  r.kernel = kernel;
  r.smem = smem;
  r.preferred_block = preferred;
  r.launch = launch;
  return r;
}

/* One per rung, from the registry; each defined at the end of its
 * src/cuda/rungs/spmv_N_*.cu. */
#define SMV_RUNG(n, alg, name, kernel, glue, tuned, what)                      \
  extern const struct smv_rung glue;
#define SMV_RUNG_LIB(n, alg, name, glue, tuned, what)                          \
  extern const struct smv_rung glue;
#define SMV_RUNG_AUTO(n, alg, name, what)
#include "rungs.def"
#undef SMV_RUNG
#undef SMV_RUNG_LIB
#undef SMV_RUNG_AUTO

/* ---- the registry at work (rungs.cu) --------------------------------------
 */

/* The rung behind an alg, NULL for AUTO. */
const struct smv_rung *smv_rung_of(smv_alg alg);
/* The rung behind an alg if it has a kernel of ours, else NULL. */
const struct smv_rung *smv_kernel_rung_of(smv_alg alg);

/* Set up rung alg on m (and first the rung it needs) unless it is ready;
 * A: the host CSR at analysis, NULL later (then the row offsets are
 * copied back from the device for a rung that reads them). keep: mark it
 * (and what it needs) asked for. Allocates and synchronises: the caller
 * has checked that ctx's stream is not being captured. On error nothing
 * new is left set up. */
smv_status smv_rung_prepare(smv_context *ctx, smv_matrix *m, smv_alg alg,
                            const smv_csr *A, int keep);
/* smv_rung_prepare for planning (AUTO's probe, the tuner): not marked
 * kept, plus the rung's plan_setup. */
smv_status smv_rung_prepare_plan(smv_context *ctx, smv_matrix *m, smv_alg alg,
                                 const smv_csr *A);
/* Plan by measurement among the rungs whose bit is set in `among` (bit a:
 * rung a; tune.cu). smv_matrix_tune runs it over the registry's tuned
 * rungs; the analysis (matrix.cu) over those or over the reuse plan's
 * short list (smv_reuse_candidates). A: the host CSR at analysis (a
 * rung's set-up reads its row offsets, and its column indices where
 * A->col_idx is there), NULL after. at_analysis: the rungs set up so far
 * only for AUTO's rule are not kept unless they win (a later
 * smv_matrix_tune keeps everything the matrix held). reuse: NULL, or the
 * words saying how reuse was declared, for the reason. */
smv_status smv_matrix_measure(smv_context *ctx, smv_matrix *m, int runs,
                              const smv_csr *A, unsigned among, int at_analysis,
                              const char *reuse);
/* The registry's tuned rungs that run m's precision, as a mask. */
unsigned smv_tuned_candidates(const smv_matrix *m);
/* The reuse plan's short list, as a mask: the heuristic's rung, every
 * compressed rung whose `reuse` accepts m, and cuSPARSE ALG1 and ALG2
 * where the registry has them tuned. */
unsigned smv_reuse_candidates(const smv_context *ctx, const smv_matrix *m);
/* Whether a mask holds a compressed rung (one with a `reuse` test). */
int smv_reuse_compressed(unsigned among);

/* After a plan (heuristic or tuner): release every rung set up only to
 * plan, unless AUTO runs it or a kept rung needs it; plan_settle the
 * others. */
void smv_rungs_settle(smv_matrix *m);
/* Release every rung's state (matrix.cu's free). */
void smv_rungs_release(smv_matrix *m);
/* Device bytes of every rung's state. */
size_t smv_rungs_device_bytes(const smv_matrix *m);
/* Whether rung alg (not AUTO) runs matrices of precision prec. */
int smv_rung_runs(smv_alg alg, smv_precision prec);
/* SMV_ERR_UNSUPPORTED on ctx: "WHAT: precision P runs only on rungs ...
 * (and AUTO)", naming the rungs that run it, from their descriptors. */
smv_status smv_prec_refuse(smv_context *ctx, smv_precision prec,
                           const char *what);
/* Rung alg's plan line for the analysis record ("" if it has none or is
 * not set up). */
void smv_rung_describe(const smv_matrix *m, smv_alg alg, char *buf, size_t n);
/* The facts AUTO's rule reads (src/core/auto.def): statistics, the L2,
 * and the facts of every rung whose probe asks (set up for planning
 * here, which is why ctx and A are needed). */
smv_status smv_auto_facts_of(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                             struct smv_auto_facts *f);

/* ---- set-up (dispatch.cu) ------------------------------------------------ */

/* Fill ctx->default_block from the kernels' attributes and the occupancy
 * model (at context creation). */
smv_status smv_blocks_init(smv_context *ctx);
/* The rung AUTO runs for these facts: the first line of AUTO's rule
 * (src/core/auto.def) that holds. */
smv_alg smv_auto_choose(const struct smv_auto_facts *f);

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

#endif
