/*
 * spmm_ladder.h — what the SpMM rungs (src/cuda/spmm/spmm_N_*.cu) share
 * with the dispatcher (spmm.cu): one launch's arguments, the rung table's
 * entry, the long-row split (rung 4's, reused by rung 5) and the device
 * helpers for 16-byte loads along k.
 */
#ifndef SMV_CUDA_SPMM_LADDER_H
#define SMV_CUDA_SPMM_LADDER_H

#include "engine.h"

#include <stdint.h>

/* One SpMM product after the dispatcher's checks: alpha != 0, nnz > 0,
 * rows > 0, k > 0; X and Y device pointers of the matrix's precision. */
struct spmm_args {
  smv_context *ctx;
  smv_matrix *m;
  double alpha, beta;
  const void *X;
  int64_t ldx;
  void *Y;
  int64_t ldy;
  int k;
  smv_layout layout;
};

/* One rung of ours. accepts: 1 if the rung can run this shape (else the
 * dispatcher answers SMV_ERR_UNSUPPORTED with `needs`). run: launch it,
 * recording any error on the context. no_tune: 1 to leave it out of
 * smv_spmm_tune (a measured loss whose set-up costs more than its
 * timing tells: rung 11 copies A). */
struct spmm_rung {
  smv_spmm_alg alg;
  int number; /* the N of spmm_N_name.cu */
  int (*accepts)(const struct spmm_args *a);
  smv_status (*run)(const struct spmm_args *a);
  const char *needs;
  int no_tune;
};

extern const struct spmm_rung smv_spmm_rung_lanes;     /* spmm_1_lanes.cu    */
extern const struct spmm_rung smv_spmm_rung_spmv;      /* spmm_2_spmv.cu     */
extern const struct spmm_rung smv_spmm_rung_rowvec;    /* spmm_3_rowvec.cu   */
extern const struct spmm_rung smv_spmm_rung_rowsplit;  /* spmm_4_rowsplit.cu */
extern const struct spmm_rung smv_spmm_rung_colsplit;  /* spmm_5_colsplit.cu */
extern const struct spmm_rung smv_spmm_rung_coltrans;  /* spmm_6_coltrans.cu */
extern const struct spmm_rung smv_spmm_rung_kslice;    /* spmm_7_kslice.cu   */
extern const struct spmm_rung smv_spmm_rung_rowpipe;   /* spmm_8_rowpipe.cu  */
extern const struct spmm_rung smv_spmm_rung_rowgather; /* spmm_9_rowgather.cu */
extern const struct spmm_rung
    smv_spmm_rung_rowstream;                         /* spmm_10_rowstream.cu */
extern const struct spmm_rung smv_spmm_rung_colband; /* spmm_11_colband.cu */

#define SMV_SPMM_TUNED 8

/* The long-row split (spmm_4_rowsplit.cu): rows longer than `chunk`
 * entries cut into chunks of `chunk` entries. Device arrays, one
 * allocation at `list`:
 *   chunks   nchunks x {first entry, end entry} of each chunk;
 *   longs    nlong + 1 x {row, first chunk}, the last {rows, nchunks}.
 * ws: nchunks x k partial sums (chunk-major: chunk c's column j at
 * [c * ws_k + j]), ws_bytes long, grown to the largest k seen. */
struct smv_spmm_split {
  int listed; /* the long rows listed (smv_spmm_split_get) */
  int64_t chunk, nchunks, nlong;
  int2 *list;
  int2 *chunks, *longs;
  /* nchunks chunk ids in the order rung 4's chunk kernel takes them
   * (unless SMV_SPMM_CHUNK_ORDER=0): by each chunk's place in its row, so
   * the chunks in flight at once cover one band of columns of every long
   * row and the L2 keeps that band's X rows (device, built with the split;
   * NULL when there are no chunks). */
  int32_t *order;
  void *ws;
  size_t ws_bytes;
  /* Rung 11's bands of A (spmm_11_colband.cu): NULL until its first
   * product past one band; rebuilt when a k asks for another count. */
  struct smv_spmm_bands *bands;
  /* Rung 6's row-major copies of X and Y (spmm_6_coltrans.cu). */
  void *tws;
  size_t tws_bytes;
  /* smv_spmm_tune's answers (spmm.cu), which AUTO then runs: the last
   * SMV_SPMM_TUNED (k, layout) pairs measured, replaced in turn. */
  struct {
    int k, layout;
    smv_spmm_alg alg;
  } tuned[SMV_SPMM_TUNED];
  int ntuned;
};

/* The matrix's split, built on first use (a copy of the row offsets to
 * the host; refused while the stream is captured), with a workspace of at
 * least nchunks * k elements. *out is NULL-free on SMV_OK; nchunks may be
 * 0 (no long rows: nothing to do). */
smv_status smv_spmm_split_get(const struct spmm_args *a,
                              struct smv_spmm_split **out);
void smv_spmm_split_free(smv_matrix *m);
/* The matrix's SpMM state (this struct) without listing its long rows or
 * growing a workspace: where rungs keep per-matrix data of their own
 * (rung 11's bands, smv_spmm_tune's answers). */
smv_status smv_spmm_state_get(smv_context *ctx, smv_matrix *m,
                              struct smv_spmm_split **out);
/* SMV_OK unless ctx's stream is being captured (then SMV_ERR_ARG: `what`
 * would synchronise inside the capture). */
smv_status smv_spmm_refuse_in_capture(smv_context *ctx, const char *what);

/* Rung 11 (spmm_11_colband.cu): at most SMV_SPMM_BANDS_MAX bands; the
 * count for an X of cols x k (f32 or f64) on a device with l2_bytes of
 * L2; the bands' free (NULL-safe; smv_spmm_split_free calls it). */
#define SMV_SPMM_BANDS_MAX 8
struct smv_spmm_bands;
int smv_spmm_band_count(int64_t l2_bytes, int64_t cols, int k, int f32);
void smv_spmm_bands_free(struct smv_spmm_bands *b);

/* Grow sp->tws to at least `bytes` (synchronises; refused while the
 * stream is captured). */
smv_status smv_spmm_workspace(smv_context *ctx, struct smv_spmm_split *sp,
                              size_t bytes);
/* Y(row, :) = alpha * (sum of the row's chunk partials in chunk order) +
 * beta * Y(row, :) for every long row: one thread per (long row, column). */
cudaError_t smv_spmm_launch_fixup(const struct spmm_args *a,
                                  const struct smv_spmm_split *sp);

/* Rung 3's launch with a row-length cut (rung 4): rows longer than `thr`
 * entries are left to the chunks. thr < 0: none. */
smv_status smv_spmm_rowvec_run(const struct spmm_args *a, int64_t thr);
/* Rung 4's second and third launches: the long rows' chunks into the
 * workspace, then the fix-up that sums them into Y (rungs 4 and 8). */
smv_status smv_spmm_rowsplit_long(const struct spmm_args *a,
                                  struct smv_spmm_split *sp);

/* Rung 4 with its row kernel swapped (rungs 8 and 10): the long-row split
 * when a row is longer than a chunk; rows(a, thr, &e) launches the
 * swapped row kernel (rows longer than thr >= 0 left to the chunks) and
 * answers 1, or answers 0 for a shape it does not take, and rung 4's row
 * kernel runs instead; then rung 4's chunks and fix-up. `name` ("rung 8
 * (rowpipe)") names the rung in a launch error. */
typedef int (*smv_spmm_rows_fn)(const struct spmm_args *a, int64_t thr,
                                cudaError_t *e);
smv_status smv_spmm_rowsplit_with(const struct spmm_args *a,
                                  smv_spmm_rows_fn rows, const char *name);

/* The rung of ours the plan's rule picks for the row-major product a
 * (rung 6's inside, on its workspaces); rung 4 if the rule names none
 * that takes it. */
const struct spmm_rung *smv_spmm_row_rung(const struct spmm_args *a);

/* Blocks for `warps` warps of work at `block` threads, at most what the
 * device keeps resident (SM count x blocks per SM for `kernel`) times
 * `waves`: the kernels loop over their work. */
unsigned smv_spmm_grid(const smv_context *ctx, const void *kernel, int block,
                       int64_t warps, int waves);

/* ---- 16-byte loads along k ----------------------------------------------- */

/* V consecutive elements of type T as one load: float4/float2/float,
 * double2/double. */
template <typename T, int V> struct spmm_vec;
template <> struct spmm_vec<float, 4> { typedef float4 t; };
template <> struct spmm_vec<float, 2> { typedef float2 t; };
template <> struct spmm_vec<float, 1> { typedef float t; };
template <> struct spmm_vec<double, 2> { typedef double2 t; };
template <> struct spmm_vec<double, 1> { typedef double t; };

/* Vector <-> array by members (no address taken: the array stays in
 * registers). */
__device__ __forceinline__ void spmm_unpack(float4 w, float (&v)[4]) {
  v[0] = w.x, v[1] = w.y, v[2] = w.z, v[3] = w.w;
}
__device__ __forceinline__ void spmm_unpack(float2 w, float (&v)[2]) {
  v[0] = w.x, v[1] = w.y;
}
__device__ __forceinline__ void spmm_unpack(double2 w, double (&v)[2]) {
  v[0] = w.x, v[1] = w.y;
}
template <typename T>
__device__ __forceinline__ void spmm_unpack(T w, T (&v)[1]) {
  v[0] = w;
}
__device__ __forceinline__ float4 spmm_pack(const float (&v)[4]) {
  return make_float4(v[0], v[1], v[2], v[3]);
}
__device__ __forceinline__ float2 spmm_pack(const float (&v)[2]) {
  return make_float2(v[0], v[1]);
}
__device__ __forceinline__ double2 spmm_pack(const double (&v)[2]) {
  return make_double2(v[0], v[1]);
}
template <typename T> __device__ __forceinline__ T spmm_pack(const T (&v)[1]) {
  return v[0];
}

template <typename T, int V>
__device__ __forceinline__ void spmm_vload(const T *p, T (&v)[V]) {
  typedef typename spmm_vec<T, V>::t VT;
  spmm_unpack(__ldg(reinterpret_cast<const VT *>(p)), v);
}

/* Elements c .. c+V-1 of a row-major row at p (p points at element c),
 * of which only those below k exist: a vector load when all do, else one
 * load per existing element (the tail of k). Missing ones read as 0. */
template <typename T, int V>
__device__ __forceinline__ void spmm_load_row(const T *p, int c, int k,
                                              T (&v)[V]) {
  if (c + V <= k) {
    spmm_vload<T, V>(p, v);
  } else {
#pragma unroll
    for (int i = 0; i < V; i++)
      v[i] = c + i < k ? __ldg(p + i) : T(0);
  }
}

#endif
