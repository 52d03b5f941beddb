/*
 * spmm.cu — smv_spmm and smv_spmm_host: argument checks (shapes, sizes
 * that overflow, X and Y overlapping), the cases no kernel needs to see
 * (k = 0, no rows, alpha = 0 or no entries: Y = beta*Y), then a rung of
 * the SpMM ladder below or cuSPARSE's (spmm_cusparse.cu); the plan
 * (smv_spmm_plan, AUTO) and the tuner (smv_spmm_tune).
 *
 * The SpMM ladder, one file per rung (src/cuda/spmm/spmm_N_name.cu),
 * numbers stable; what changed, why it should help, where it loses:
 *   1 lanes     rung 1 (alg "ours"): row-major k >= 8 a group of 8..32
 *               lanes per row, columns across lanes; else gather with
 *               register tiles of 8 columns. Loses: hubs serialise a warp;
 *               k = 1 is 6-16x slower than smv_spmv; scalar loads.
 *   2 spmv      k contiguous columns through smv_spmv (SpMV AUTO): the
 *               k = 1 case, as fast as the SpMV engine. Loses at k > 1 (A
 *               read k times).
 *   3 rowvec    row-major: 16-byte loads along k, (col, val) pairs loaded
 *               once per warp and shuffled (GE-SpMM's row caching), several
 *               rows per warp for short rows. Loses on hubs (no split).
 *   4 rowsplit  rung 3 + rows longer than SMV_SPMM_CHUNK cut into chunks
 *               for all warps, partials summed in order by a fix-up kernel
 *               (deterministic). Loses: two more launches where long rows
 *               hold few entries; a workspace of chunks x k.
 *   5 colsplit  column-major (any layout): lanes split rows, 8 columns per
 *               lane in registers, long rows in chunks as rung 4. Loses on
 *               row-major (no vector loads) and at k > 8 (A per 8 columns).
 *   6 coltrans  column-major through the row-major plan's rung (rung 9
 *               below 8 columns; 8, 10 or 4 from 8 on): X
 *               transposed into a row-major workspace (32 x 33
 *               shared-memory tiles; one thread a row up to 8 columns),
 *               the row-major rung, Y transposed back with alpha, beta.
 *               Loses where rows or columns hold few entries (the
 *               transposes move 2 (rows + cols) k elements).
 *   7 kslice    row-major: rung 4 once per slice of kw columns, kw chosen
 *               so a slice of X fits in half the L2. Lost everywhere
 *               measured (A read k / kw times): never chosen by the plan.
 *   8 rowpipe   rung 4 with its row kernel pipelined across rows: the next
 *               row's offsets and (col, val) pairs in flight while this
 *               row gathers (short rows cost one memory latency, not
 *               three). Same bits as rung 4. Wins at narrow X rows (k x
 *               sizeof(value) <= 256 bytes); loses past them (R-MAT):
 *               registers; long rows gain nothing.
 *   9 rowgather rung 5 on row-major X with each entry's X row one 16-byte
 *               vector load (k requests an entry -> ceil(k / V)) and 4+
 *               entries a lane (rung 5: 1-2). Wins at k = 2..7 on every
 *               class measured; rung 6 runs it inside below 8 columns.
 *               Loses at k = 1 to the SpMV engine.
 *  10 rowstream rung 4 with X rows of a whole warp (f32 k = 128, 256; f64
 *               k = 64, 128): a warp streams the entries of 32 rows as one
 *               sequence, X loads running ahead across row ends (rung 4
 *               waits three memory trips a row). Same bits as rung 4.
 *               Loses where rows are long and even (a stencil: a window
 *               is one warp's 864 entries) and at two vectors a lane.
 *  11 colband   A split once into bands of columns whose X rows fit a
 *               share of the L2, the row-major rung run band by band (Y
 *               read and written once a band). For spread columns with X
 *               past the L2 (gathers from DRAM). A measured loss on
 *               every graph row: a band is a pass over all rows, whose
 *               cost is per short row, not per byte. Not in the plan.
 * The plan (src/spmm/spmm_plan.c, smv_spmm_choose): k = 1 contiguous ->
 * 2; row-major k < 8 -> 9; column-major k < 8 -> 6 (rung 9 inside) with
 * rows of 8+ entries on the mean, else 5; row-major with k x
 * sizeof(value) <= 256 bytes and a full pass (a power of two) -> 8;
 * row-major graphs (long rows, half the rows short) with k = 32 or 64 x
 * a 16-byte vector (512- or 1024-byte X rows) -> 10; other row-major ->
 * 4 (3 without long rows); column-major -> 6. Rungs 7 and 11 are measured
 * losses the plan never picks (and smv_spmm_tune skips rung 11, whose
 * set-up copies A).
 */
#include "spmm_ladder.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The ladder's one table (index: none, looked up by alg). */
static const struct spmm_rung *const rungs[] = {
    &smv_spmm_rung_lanes,     &smv_spmm_rung_spmv,     &smv_spmm_rung_rowvec,
    &smv_spmm_rung_rowsplit,  &smv_spmm_rung_colsplit, &smv_spmm_rung_coltrans,
    &smv_spmm_rung_kslice,    &smv_spmm_rung_rowpipe,  &smv_spmm_rung_rowgather,
    &smv_spmm_rung_rowstream, &smv_spmm_rung_colband};
#define NRUNGS ((int)(sizeof rungs / sizeof rungs[0]))

static const struct spmm_rung *rung_of(smv_spmm_alg alg) {
  for (int i = 0; i < NRUNGS; i++)
    if (rungs[i]->alg == alg)
      return rungs[i];
  return NULL;
}

unsigned smv_spmm_grid(const smv_context *ctx, const void *kernel, int block,
                       int64_t warps, int waves) {
  int64_t g = (warps * 32 + block - 1) / block;
  int per_sm = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block,
                                                    0) != cudaSuccess ||
      per_sm < 1) {
    cudaGetLastError(); /* the launch will say what is wrong */
    per_sm = 1;
  }
  const int64_t cap = (int64_t)per_sm * ctx->prop.multiProcessorCount * waves;
  if (g > cap)
    g = cap;
  return (unsigned)(g > 0 ? g : 1);
}

static smv_status check(smv_context *ctx, smv_spmm_alg alg,
                        const smv_matrix *dA, double alpha, const void *X,
                        int64_t ldx, double beta, const void *Y, int64_t ldy,
                        int k, smv_layout layout, const char *fn) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL matrix", fn);
  if ((int)alg < 0 || alg >= SMV_SPMM_ALG_COUNT)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: unknown algorithm %d", fn,
                       (int)alg);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: matrix lives on device %d, context on %d", fn,
                       dA->device, ctx->device);
  if (dA->prec == SMV_F64_F32V) /* its kernels have no f32-value path */
    return smv_prec_refuse(ctx, dA->prec, fn);
  const double a = dA->prec == SMV_F32 ? (double)(float)alpha : alpha;
  char why[256];
  smv_status st =
      smv_spmm_shape_check(dA->st.rows, dA->st.cols, dA->st.nnz, a, X, ldx,
                           beta, Y, ldy, k, layout, why, sizeof why);
  if (st != SMV_OK)
    return smv_ctx_set(ctx, st, "%s: %s", fn, why);
  return SMV_OK;
}

/* Elements spanned by an n x k operand (the shape check proved it fits,
 * times 8 bytes, in int64_t). */
static int64_t extent(int64_t n, int64_t ld, int k, smv_layout layout) {
  if (n <= 0 || k <= 0)
    return 0;
  return layout == SMV_LAYOUT_ROW_MAJOR ? (n - 1) * ld + k
                                        : (int64_t)(k - 1) * ld + n;
}

/* X and Y (device) must not share a byte: the kernels read X while they
 * write Y, in no fixed order. */
static smv_status check_alias(smv_context *ctx, const smv_matrix *dA,
                              const void *X, int64_t ldx, const void *Y,
                              int64_t ldy, int k, smv_layout layout,
                              const char *fn) {
  const size_t es = dA->prec == SMV_F64 ? 8 : 4;
  const int64_t nx = extent(dA->st.cols, ldx, k, layout);
  const int64_t ny = extent(dA->st.rows, ldy, k, layout);
  if (smv_overlap(X, (size_t)nx * es, Y, (size_t)ny * es))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: X and Y overlap (in-place SpMM is not supported)",
                       fn);
  return SMV_OK;
}

static int is_zero(smv_precision p, double v) {
  return p == SMV_F64 ? v == 0.0 : (float)v == 0.0f;
}

/* smv_spmm_shape_of's fields from the device matrix's statistics. */
static void shape_of(const smv_matrix *dA, int k, smv_layout layout,
                     int64_t ldx, int64_t ldy, smv_spmm_shape *s) {
  memset(s, 0, sizeof *s);
  s->rows = dA->st.rows;
  s->cols = dA->st.cols;
  s->nnz = dA->st.nnz;
  s->row_max = dA->st.row_max;
  s->row_mean = dA->st.row_mean;
  s->k = k;
  s->layout = layout;
  s->f32 = dA->prec == SMV_F32;
  s->ldx = ldx;
  s->ldy = ldy;
  s->short_rows = dA->st.short_rows;
}

const struct spmm_rung *smv_spmm_row_rung(const struct spmm_args *a) {
  smv_spmm_shape sh;
  smv_spmm_choice c;
  shape_of(a->m, a->k, SMV_LAYOUT_ROW_MAJOR, a->ldx, a->ldy, &sh);
  const struct spmm_rung *r =
      smv_spmm_choose(&sh, &c) == SMV_OK ? rung_of(c.alg) : NULL;
  return r && r->accepts(a) ? r : &smv_spmm_rung_rowsplit;
}

/* AUTO's rung: smv_spmm_tune's answer for this (k, layout) if there is one
 * and its rung takes these leading dimensions, else the rule. */
static smv_status auto_choice(const smv_matrix *dA, int k, smv_layout layout,
                              int64_t ldx, int64_t ldy, smv_spmm_choice *c) {
  smv_spmm_shape sh;
  shape_of(dA, k, layout, ldx, ldy, &sh);
  smv_status st = smv_spmm_choose(&sh, c);
  const struct smv_spmm_split *sp = dA->spmm_split;
  for (int i = 0; st == SMV_OK && sp && i < sp->ntuned; i++) {
    if (sp->tuned[i].k != k || sp->tuned[i].layout != (int)layout)
      continue;
    const struct spmm_rung *r = rung_of(sp->tuned[i].alg);
    const struct spmm_args a = {
        NULL, (smv_matrix *)dA, 1, 0, NULL, ldx, NULL, ldy, k, layout};
    if (r && r->accepts(&a) && sp->tuned[i].alg != c->alg) {
      snprintf(c->why, sizeof c->why,
               "measured by smv_spmm_tune for k = %d (the rule's choice: %s)",
               k, smv_spmm_alg_name(c->alg));
      c->alg = sp->tuned[i].alg;
    }
  }
  return st;
}

/* After the checks, on the right device. */
static smv_status spmm_device(smv_context *ctx, smv_spmm_alg alg, double alpha,
                              const smv_matrix *dA, const void *X, int64_t ldx,
                              double beta, void *Y, int64_t ldy, int k,
                              smv_layout layout) {
  const struct smv_matrix_stats *s = &dA->st;
  const int cus = alg == SMV_SPMM_CUSPARSE_ALG1 ||
                  alg == SMV_SPMM_CUSPARSE_ALG2 ||
                  alg == SMV_SPMM_CUSPARSE_ALG3;
  const struct spmm_rung *r = NULL;
  if (!cus) {
    if (alg == SMV_SPMM_AUTO) {
      smv_spmm_choice c;
      if (auto_choice(dA, k, layout, ldx, ldy, &c) != SMV_OK)
        return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmm: no plan for k = %d", k);
      alg = c.alg;
    }
    r = rung_of(alg);
    if (!r)
      return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmm: unknown algorithm %d",
                         (int)alg);
  }
  const struct spmm_args a = {
      ctx, (smv_matrix *)dA, alpha, beta, X, ldx, Y, ldy, k, layout};
  /* A rung refuses the shapes it lacks whatever the matrix holds (an
   * empty matrix too), so a caller learns it on a small case. */
  if (r && !r->accepts(&a))
    return smv_ctx_set(ctx, SMV_ERR_UNSUPPORTED,
                       "SpMM rung %d (%s) needs %s (k = %d, %s-major, ldx = "
                       "%lld, ldy = %lld)",
                       r->number, smv_spmm_alg_name(alg), r->needs, k,
                       layout == SMV_LAYOUT_ROW_MAJOR ? "row" : "column",
                       (long long)ldx, (long long)ldy);
  if (is_zero(dA->prec, alpha) || s->nnz == 0) {
    const int one = dA->prec == SMV_F64 ? beta == 1.0 : (float)beta == 1.0f;
    if (one)
      return SMV_OK;
    const cudaError_t e = smv_spmm_launch_scale(dA->prec, s->rows, k, beta, Y,
                                                ldy, layout, ctx->stream);
    if (e != cudaSuccess)
      return smv_cu_fail(ctx, e, "launch of the SpMM scale kernel");
    return SMV_OK;
  }
  if (cus)
    return smv_spmm_cusparse(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k,
                             layout);
  return r->run(&a);
}

extern "C" smv_status smv_spmm(smv_context *ctx, smv_spmm_alg alg, double alpha,
                               smv_matrix *dA, const void *X, int64_t ldx,
                               double beta, void *Y, int64_t ldy, int k,
                               smv_layout layout) {
  smv_status st =
      check(ctx, alg, dA, alpha, X, ldx, beta, Y, ldy, k, layout, "smv_spmm");
  if (st == SMV_OK)
    st = check_alias(ctx, dA, X, ldx, Y, ldy, k, layout, "smv_spmm");
  if (st != SMV_OK)
    return st;
  if (k == 0 || dA->st.rows == 0)
    return SMV_OK; /* Y has no entries */
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  st = spmm_device(ctx, alg, alpha, dA, X, ldx, beta, Y, ldy, k, layout);
  smv_device_leave(&g);
  return st;
}

/* Host <-> packed device copy of an r x k operand with leading dimension
 * ld (host, doubles) into the device layout with ld = k (row-major) or r
 * (column-major), converting to float when f32. `stage` holds r * k
 * elements of the device type. */
static void pack(const double *h, int64_t r, int k, int64_t ld,
                 smv_layout layout, int f32, void *stage) {
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  for (int64_t i = 0; i < r; i++)
    for (int c = 0; c < k; c++) {
      const double v = h[row ? i * ld + c : c * ld + i];
      const int64_t d = row ? i * k + c : (int64_t)c * r + i;
      if (f32)
        ((float *)stage)[d] = (float)v;
      else
        ((double *)stage)[d] = v;
    }
}
static void unpack(const void *stage, int64_t r, int k, int64_t ld,
                   smv_layout layout, int f32, double *h) {
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  for (int64_t i = 0; i < r; i++)
    for (int c = 0; c < k; c++) {
      const int64_t d = row ? i * k + c : (int64_t)c * r + i;
      h[row ? i * ld + c : c * ld + i] =
          f32 ? (double)((const float *)stage)[d] : ((const double *)stage)[d];
    }
}

extern "C" smv_status smv_spmm_host(smv_context *ctx, smv_spmm_alg alg,
                                    double alpha, smv_matrix *dA,
                                    const double *X, int64_t ldx, double beta,
                                    double *Y, int64_t ldy, int k,
                                    smv_layout layout) {
  smv_status st = check(ctx, alg, dA, alpha, X, ldx, beta, Y, ldy, k, layout,
                        "smv_spmm_host");
  if (st != SMV_OK)
    return st;
  /* Host arrays of doubles, whatever the matrix precision. */
  if (smv_overlap(X, (size_t)extent(dA->st.cols, ldx, k, layout) * 8, Y,
                  (size_t)extent(dA->st.rows, ldy, k, layout) * 8))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmm_host: X and Y overlap (in-place SpMM is not "
                       "supported)");
  const int64_t rows = dA->st.rows, cols = dA->st.cols;
  if (k == 0 || rows == 0)
    return SMV_OK;
  const int f32 = dA->prec == SMV_F32;
  const size_t es = f32 ? sizeof(float) : sizeof(double);
  const int need_x = dA->st.nnz > 0 && cols > 0 && !is_zero(dA->prec, alpha);
  const int need_y = !is_zero(dA->prec, beta);
  const size_t nx = (size_t)cols * (size_t)k, ny = (size_t)rows * (size_t)k;
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  /* Packed device operands. */
  const int64_t dldx = row ? k : (cols > 0 ? cols : 1);
  const int64_t dldy = row ? k : rows;
  struct smv_device_guard g;
  if ((st = smv_device_enter(ctx, &g)) != SMV_OK)
    return st;
  void *dx = NULL, *dy = NULL, *stage = NULL;
  cudaError_t e;
  stage = malloc((nx > ny ? nx : ny) * es + 1);
  if (!stage) {
    st = smv_ctx_set(ctx, SMV_ERR_NOMEM,
                     "smv_spmm_host: malloc of %zu bytes (staging)",
                     (nx > ny ? nx : ny) * es);
    goto out;
  }
  if (need_x && (e = cudaMalloc(&dx, nx * es)) != cudaSuccess) {
    dx = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (X)", nx * es);
    goto out;
  }
  if ((e = cudaMalloc(&dy, ny * es)) != cudaSuccess) {
    dy = NULL;
    st = smv_cu_fail(ctx, e, "cudaMalloc of %zu bytes (Y)", ny * es);
    goto out;
  }
  if (need_x) {
    pack(X, cols, k, ldx, layout, f32, stage);
    e = cudaMemcpyAsync(dx, stage, nx * es, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e == cudaSuccess) /* the stage is reused for Y */
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of X (%zu bytes)", nx * es);
      goto out;
    }
  }
  if (need_y) { /* beta = 0: Y is write-only, never copied in */
    pack(Y, rows, k, ldy, layout, f32, stage);
    e = cudaMemcpyAsync(dy, stage, ny * es, cudaMemcpyHostToDevice,
                        ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "cudaMemcpy of Y (%zu bytes)", ny * es);
      goto out;
    }
  }
  st = spmm_device(ctx, alg, alpha, dA, dx, dldx, beta, dy, dldy, k, layout);
  if (st != SMV_OK)
    goto out;
  e = cudaMemcpyAsync(stage, dy, ny * es, cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "SpMM or copy of Y back (%zu bytes)", ny * es);
    goto out;
  }
  unpack(stage, rows, k, ldy, layout, f32, Y);
out:
  if (st != SMV_OK)
    (void)cudaStreamSynchronize(ctx->stream);
  if (dx)
    cudaFree(dx);
  if (dy)
    cudaFree(dy);
  free(stage);
  smv_device_leave(&g);
  return st;
}

/* ---- the plan and the tuner ---------------------------------------------- */

extern "C" smv_status smv_spmm_plan(smv_context *ctx, const smv_matrix *dA,
                                    int k, smv_layout layout, int64_t ldx,
                                    int64_t ldy, smv_spmm_choice *c) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA || !c)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "smv_spmm_plan: NULL argument");
  if (dA->prec == SMV_F64_F32V)
    return smv_prec_refuse(ctx, dA->prec, "smv_spmm_plan");
  if (auto_choice(dA, k, layout, ldx, ldy, c) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmm_plan: k = %d or layout %d out of range", k,
                       (int)layout);
  return SMV_OK;
}

/* X(i) = a value in [-1, 1), never 0, from a hash of i: the tuner's input
 * without a host copy. */
template <typename T> __global__ void spmm_fill(int64_t n, T *X) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    const double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    X[i] = (T)(u < 0.5 ? u - 0.75 : u - 0.25);
  }
}

/* Entries where |y - ref| > tol * (|ref| + 1e-30 + scale): counted. */
template <typename T>
__global__ void spmm_mismatch(int64_t n, const T *y, const T *ref, double tol,
                              unsigned *bad) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    const double a = (double)y[i], b = (double)ref[i];
    if (!(fabs(a - b) <= tol * (fabs(b) + 1.0)))
      atomicAdd(bad, 1u);
  }
}

static int cmp_float(const void *a, const void *b) {
  const float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Median of `runs` timed calls (after one warm-up), in µs; < 0 on error. */
static smv_status time_alg(smv_context *ctx, smv_spmm_alg alg, smv_matrix *dA,
                           const void *X, int64_t ldx, void *Y, int64_t ldy,
                           int k, smv_layout layout, int runs, float *ts,
                           double *us) {
  cudaEvent_t e0 = NULL, e1 = NULL;
  smv_status st = smv_spmm(ctx, alg, 1.0, dA, X, ldx, 0.0, Y, ldy, k, layout);
  if (st != SMV_OK)
    return st;
  cudaError_t e = cudaEventCreate(&e0);
  if (e == cudaSuccess)
    e = cudaEventCreate(&e1);
  for (int r = 0; e == cudaSuccess && st == SMV_OK && r < runs; r++) {
    e = cudaEventRecord(e0, ctx->stream);
    if (e != cudaSuccess)
      break;
    st = smv_spmm(ctx, alg, 1.0, dA, X, ldx, 0.0, Y, ldy, k, layout);
    if (st == SMV_OK && (e = cudaEventRecord(e1, ctx->stream)) == cudaSuccess &&
        (e = cudaEventSynchronize(e1)) == cudaSuccess)
      e = cudaEventElapsedTime(&ts[r], e0, e1);
  }
  if (e0)
    cudaEventDestroy(e0);
  if (e1)
    cudaEventDestroy(e1);
  if (st != SMV_OK)
    return st;
  if (e != cudaSuccess)
    return smv_cu_fail(ctx, e, "smv_spmm_tune: timing");
  qsort(ts, (size_t)runs, sizeof *ts, cmp_float);
  *us = 1000.0 * ts[runs / 2];
  return SMV_OK;
}

extern "C" smv_status smv_spmm_tune(smv_context *ctx, smv_matrix *dA, int k,
                                    smv_layout layout, int runs,
                                    smv_spmm_choice *c) {
  if (!ctx)
    return SMV_ERR_ARG;
  if (!dA || !c || runs < 1 || runs > 100000)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmm_tune: NULL argument or runs = %d out of "
                       "1..100000",
                       runs);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmm_tune: matrix lives on device %d, context on "
                       "%d",
                       dA->device, ctx->device);
  if (dA->prec == SMV_F64_F32V)
    return smv_prec_refuse(ctx, dA->prec, "smv_spmm_tune");
  const int row = layout == SMV_LAYOUT_ROW_MAJOR;
  const int64_t rows = dA->st.rows, cols = dA->st.cols;
  const int64_t ldx = row ? k : (cols > 0 ? cols : 1);
  const int64_t ldy = row ? k : (rows > 0 ? rows : 1);
  smv_spmm_shape sh; /* the rule's choice, not an earlier tuning's */
  shape_of(dA, k, layout, ldx, ldy, &sh);
  if (smv_spmm_choose(&sh, c) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "smv_spmm_tune: k = %d or layout %d out of range", k,
                       (int)layout);
  smv_status st = SMV_OK;
  if (rows == 0 || dA->st.nnz == 0)
    return st; /* nothing to measure: the heuristic's plan stands */
  struct smv_device_guard g;
  st = smv_device_enter_uncaptured(ctx, &g, "smv_spmm_tune", SMV_ERR_ARG,
                                   "smv_spmm_tune synchronises: not while "
                                   "the stream is captured");
  if (st != SMV_OK)
    return st;
  const size_t es = dA->prec == SMV_F64 ? 8 : 4;
  const size_t nx = (size_t)(cols > 0 ? cols : 1) * (size_t)k;
  const size_t ny = (size_t)rows * (size_t)k;
  void *dx = NULL, *dy = NULL, *dref = NULL;
  unsigned *bad = NULL;
  float *ts = (float *)malloc((size_t)runs * sizeof *ts);
  const smv_spmm_alg first = c->alg;
  smv_spmm_alg best = first;
  double best_us = 0;
  char times[192] = "";
  size_t tl = 0;
  cudaError_t e = ts ? cudaSuccess : cudaErrorMemoryAllocation;
  if (e == cudaSuccess)
    e = cudaMalloc(&dx, nx * es);
  if (e == cudaSuccess)
    e = cudaMalloc(&dy, ny * es);
  if (e == cudaSuccess)
    e = cudaMalloc(&dref, ny * es);
  if (e == cudaSuccess)
    e = cudaMalloc((void **)&bad, sizeof *bad);
  if (e != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "smv_spmm_tune: buffers of %zu + 2 x %zu bytes",
                     nx * es, ny * es);
    goto out;
  }
  if (es == 8)
    spmm_fill<double><<<smv_grid_for((int64_t)nx, 256), 256, 0, ctx->stream>>>(
        (int64_t)nx, (double *)dx);
  else
    spmm_fill<float><<<smv_grid_for((int64_t)nx, 256), 256, 0, ctx->stream>>>(
        (int64_t)nx, (float *)dx);
  if ((e = cudaGetLastError()) != cudaSuccess) {
    st = smv_cu_fail(ctx, e, "smv_spmm_tune: fill of X");
    goto out;
  }
  /* The heuristic's choice first: the reference for the others. */
  if ((st = time_alg(ctx, first, dA, dx, ldx, dref, ldy, k, layout, runs, ts,
                     &best_us)) != SMV_OK)
    goto out;
  tl += (size_t)snprintf(times + tl, sizeof times - tl, "%s %.1f",
                         smv_spmm_alg_name(first), best_us);
  for (int i = 0; i < NRUNGS; i++) {
    const smv_spmm_alg alg = rungs[i]->alg;
    const struct spmm_args a = {ctx, dA, 1.0, 0.0, dx, ldx, dy, ldy, k, layout};
    if (alg == first || rungs[i]->no_tune || !rungs[i]->accepts(&a))
      continue;
    double us;
    if ((st = time_alg(ctx, alg, dA, dx, ldx, dy, ldy, k, layout, runs, ts,
                       &us)) != SMV_OK)
      goto out;
    unsigned nbad = 0;
    e = cudaMemsetAsync(bad, 0, sizeof *bad, ctx->stream);
    if (e == cudaSuccess) {
      /* A sanity check against a wrong rung, not a verification (the
       * tests and the bench verify): rungs sum in different orders, and
       * a hub row of 10^4 f32 products differs by ~1e-4 relative. */
      const double tol = es == 8 ? 1e-9 : 1e-3;
      if (es == 8)
        spmm_mismatch<double>
            <<<smv_grid_for((int64_t)ny, 256), 256, 0, ctx->stream>>>(
                (int64_t)ny, (const double *)dy, (const double *)dref, tol,
                bad);
      else
        spmm_mismatch<float>
            <<<smv_grid_for((int64_t)ny, 256), 256, 0, ctx->stream>>>(
                (int64_t)ny, (const float *)dy, (const float *)dref, tol, bad);
      e = cudaGetLastError();
    }
    if (e == cudaSuccess)
      e = cudaMemcpyAsync(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost,
                          ctx->stream);
    if (e == cudaSuccess)
      e = cudaStreamSynchronize(ctx->stream);
    if (e != cudaSuccess) {
      st = smv_cu_fail(ctx, e, "smv_spmm_tune: comparison");
      goto out;
    }
    if (tl < sizeof times)
      tl += (size_t)snprintf(times + tl, sizeof times - tl, ", %s %.1f%s",
                             smv_spmm_alg_name(alg), us,
                             nbad ? " (disagrees: skipped)" : "");
    if (!nbad && us < best_us) {
      best_us = us;
      best = alg;
    }
  }
  c->alg = best;
  snprintf(c->why, sizeof c->why, "measured (median µs of %d): %s", runs,
           times);
  /* Remember it for AUTO, in the matrix's SpMM state (made now if no
   * rung above made it). */
  {
    struct smv_spmm_split *sp;
    if ((st = smv_spmm_state_get(ctx, dA, &sp)) != SMV_OK)
      goto out;
    int slot = -1;
    for (int i = 0; i < sp->ntuned; i++)
      if (sp->tuned[i].k == k && sp->tuned[i].layout == (int)layout)
        slot = i;
    if (slot < 0 && sp->ntuned < SMV_SPMM_TUNED)
      slot = sp->ntuned++;
    if (slot < 0) { /* full: drop the oldest */
      memmove(&sp->tuned[0], &sp->tuned[1],
              (SMV_SPMM_TUNED - 1) * sizeof sp->tuned[0]);
      slot = SMV_SPMM_TUNED - 1;
    }
    sp->tuned[slot].k = k;
    sp->tuned[slot].layout = (int)layout;
    sp->tuned[slot].alg = best;
  }
out:
  free(ts);
  cudaFree(dx);
  cudaFree(dy);
  cudaFree(dref);
  cudaFree(bad);
  smv_device_leave(&g);
  return st;
}
