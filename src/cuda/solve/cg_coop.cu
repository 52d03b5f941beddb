/*
 * cg_coop.cu — CG as one persistent cooperative kernel: whole iterations,
 * SpMV included, in one launch, with grid-wide synchronisation
 * (cooperative groups) between the phases instead of kernel boundaries.
 *
 * Why. On a matrix that sits in the L2 an iteration's work is a few
 * microseconds; on the graph path (cg.cu) it is four kernels, each with a
 * launch and a drain, and three of them end in a reduction finished by the
 * last block. Here the grid stays resident and an iteration is two phases
 * separated by two grid barriers:
 *
 *   phase 1  p_new = z + beta p_old and q = A p_new, row by row: a group
 *            of LANES threads per row gathers z[j] and p_old[j] and forms
 *            p_new[j] itself (fma, so every thread that forms p_new[j]
 *            gets the same bits as the row's owner, which stores it);
 *            the owner writes p_new[i], q[i] and adds p_new[i] q[i] to
 *            the block's partial.                             -> barrier
 *            every block sums the G partials in the same fixed order:
 *            alpha = rho / p.q (the same bits in every block)
 *   phase 2  x += alpha p, r -= alpha q, z = dinv r; partials of r.z, r.r
 *                                                             -> barrier
 *            every block: rho, beta, the residual, the stop test
 *
 * p is double-buffered (p0, p1 by the iteration's parity) because phase 1
 * gathers p_old from every row while it writes p_new. Per iteration the
 * kernel reads the matrix once (nnz (4 + sizeof T) + 4 (n + 1) bytes) and
 * about 8 n sizeof T bytes of vectors (gathers of z and p counted once).
 *
 * Determinism: the rows, the partials and their sums follow the grid, and
 * the grid is fixed by the device's occupancy and the knobs below: the
 * same bits on every run (not the graph path's bits: its grid and its
 * SpMV differ).
 *
 * Stopping is decided on the device after every iteration, from the same
 * values in every block, so all blocks leave the loop together and the
 * iteration count is exact; the host reads the status once at the end (or
 * at each progress report: the kernel is then relaunched per chunk, state
 * in solve_state).
 *
 * Data written by other blocks inside the kernel (z, p, q, the partials)
 * is read with __ldcg (L2, never a stale L1 line); the matrix with __ldg.
 *
 * The barriers and the all-blocks sums around them are most of an
 * iteration on such a matrix, hence a second kernel, cg1 (cg_coop1.cu):
 * the Chronopoulos–Gear recurrence, one grid barrier per iteration, at
 * the price of more gathered vector loads. The sum of the G partials
 * (cg_coop.h, all_sum) has every thread of the block load its share of
 * them, the warps holding any add them by a transposed butterfly
 * (warp_scatter_sum), thread j of warp 0 adds the warps' totals of sum
 * j, and the block
 * reads the sums from shared memory: no thread loops over the partials
 * alone. By
 * default every block runs it after grid.sync (cg_coop.h, coop_sum); with
 * SMV_SOLVE_COOP_SUM=last only the last block to arrive runs it and
 * publishes the sums (grid_sum_sync, a measured loss).
 *
 * Shape, from the device and the matrix (cg_coop_plan): the block size,
 * the co-resident blocks per SM (occupancy), then the lanes per row:
 * lanes_for(the mean row length), and on short rows (SHORT_ROW) fewer
 * while the grid's threads cannot give every row its group in one pass
 * (a group that takes several rows in turn waits out their dependent
 * loads, row offsets -> column indices -> gathered vectors, once per
 * row); one or two lanes a row then sum several entries each, unrolled
 * (coop_rows::row_sum). The grid is cut to the blocks the rows need.
 *
 * Knobs (environment, read at each solve's plan), for timing shapes on
 * the device:
 *   SMV_SOLVE_COOP_VARIANT=pr|res|cg1|cg2  the kernel (default pr: the
 *                                   resident kernel, cg_res_kernel.h, each
 *                                   block's slice in shared memory, with
 *                                   the predict-and-recompute recurrence:
 *                                   s = A p computed, one grid sum of four
 *                                   values an iteration, five with Jacobi;
 *                                   where the slices do not fit, cg1).
 *                                   res: the resident kernel with cg1's
 *                                   recurrence (two sums, three with
 *                                   Jacobi: cheaper, but its recurred s
 *                                   drifts from A p on ill-conditioned
 *                                   matrices and costs iterations against
 *                                   textbook CG: bench/results/h200/
 *                                   solvers.md, tables 15 and 16);
 *                                   cg1, one barrier an iteration, the
 *                                   matrix from the L2; cg2, two barriers;
 *   SMV_SOLVE_COOP_BLOCK=256|512|1024  threads per block (default 512
 *                                   for the resident kernel, 256 for the
 *                                   others; cg_coop.h, coop_min_blocks,
 *                                   gives each its register budget);
 *   SMV_SOLVE_COOP_PER_SM=N         blocks per SM, at most what the
 *                                   device's occupancy for the kernel
 *                                   allows (the default; the resident
 *                                   kernel's: one);
 *   SMV_SOLVE_COOP_REBALANCE=1      the resident kernel's rows
 *                                   partitioned again with the halo
 *                                   weighed (cg_res_bounds; default 0:
 *                                   by the slice's bytes alone);
 *   SMV_SOLVE_COOP_SUM=last|all     the grid-wide sums (cg_coop.h,
 *                                   coop_sum): all (the default),
 *                                   grid.sync then every block sums the
 *                                   G partials; last, the last block to
 *                                   arrive sums them and broadcasts. The
 *                                   same bits either way;
 *   SMV_SOLVE_COOP_LANES=1..32      lanes per row (a power of two; else
 *                                   the plan's, above);
 *   SMV_SOLVE_COOP_COPIES=N         copies of the partials (1..32;
 *                                   default 1; cg_coop.h, coop_sum);
 *   SMV_SOLVE_COOP_GRID=G           test hook: the grid, co-resident or
 *                                   not (a refused launch);
 *   SMV_SOLVE_COOP=0                never the persistent kernel;
 *   SMV_SOLVE_COOP_BICGSTAB=0       BiCGStab on the graph path (its
 *                                   persistent kernel, bicgstab_coop.cu,
 *                                   is the default where the plan allows:
 *                                   faster to solution on every matrix of
 *                                   experiment coop/c4, solvers.md).
 * The grid never exceeds the blocks the rows need.
 */
#include "cg_coop.h"

#include <climits>
#include <cstdlib>
#include <cstring>

namespace smv_solve {
namespace {

template <typename T, int LANES, bool JAC, int BS, bool LAST>
__global__ void __launch_bounds__(BS, coop_min_blocks(BS))
    cg2_kernel(coop_args<T> a) {
  __shared__ double sh_blk[2 * 32], sh_all[2 * 32];
  coop_sum<LAST> gsum(a);
  coop_run c = coop_begin(a.st);
  if (c.done)
    return;
  const int G = (int)gridDim.x;
  double rho = a.st->rho, beta = a.st->beta;
  const T *z = JAC ? a.z : a.r;
  const coop_rows<LANES, BS> g;
  double *partA = a.part, *partB = a.part + G;
  while (c.it < a.it_end) {
    const T *po = (c.it & 1) ? a.p1 : a.p0;
    T *pn = (c.it & 1) ? a.p0 : a.p1;
    const T bt = (T)beta;
    /* phase 1: p_new, q = A p_new, p.q */
    double acc[2] = {0.0, 0.0};
    for (int64_t row = g.first; row < a.n; row += g.step) {
      const T s = g.row_sum(a, row, [&](int32_t j) {
        return madd(bt, __ldcg(&po[j]), __ldcg(&z[j]));
      });
      if (g.lane == 0) {
        const T pi = madd(bt, __ldcg(&po[row]), __ldcg(&z[row]));
        pn[row] = pi;
        a.q[row] = s;
        acc[0] += (double)pi * (double)s;
      }
    }
    double pq[1] = {acc[0]};
    gsum(pq, partA, sh_blk, sh_all);
    if (pq[0] <= 0.0 || !finite(pq[0]) || rho <= 0.0 || !finite(rho)) {
      c.breakdown = c.done = 1; /* A or M not positive definite, or p = 0 */
      break;
    }
    const double alpha = rho / pq[0];
    /* phase 2: x, r, z; r.z and r.r */
    const T al = (T)alpha;
    acc[0] = acc[1] = 0.0;
    GRID_STRIDE(i, a.n) {
      const T pi = __ldcg(&pn[i]);
      a.x[i] += al * pi;
      const T ri = a.r[i] - al * __ldcg(&a.q[i]);
      a.r[i] = ri;
      T zi = ri;
      if (JAC) {
        zi = ri * __ldg(&a.dinv[i]);
        a.z[i] = zi;
      }
      acc[0] += (double)ri * (double)zi;
      acc[1] += (double)ri * (double)ri;
    }
    double rz[2] = {acc[0], acc[1]};
    gsum(rz, partB, sh_blk, sh_all);
    beta = rz[0] / rho;
    rho = rz[0];
    if (coop_step(c, rz[1], a.hist))
      break;
  }
  coop_end(a.st, c, a.hist);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    a.st->rho = rho;
    a.st->beta = beta;
  }
}

struct cg2_k {
  template <typename T, int LANES, bool JAC, int BS, bool LAST>
  static const void *get() {
    return (const void *)cg2_kernel<T, LANES, JAC, BS, LAST>;
  }
};

/* Rows this short (mean entries) are read by fewer lanes while that
 * saves passes of the grid over the rows. A lane then reads its row's
 * stretch of indices and values alone: a warp's load touches up to 32
 * rows' stretches, at most 8 x (4 + 8) bytes each here, a few sectors
 * per row; on longer rows (FEM, 15-30 entries) the lanes_for groups read
 * each row coalesced and the passes cost less than the scattered reads
 * (experiment coop/c3, bench/results/h200/solvers.md). */
constexpr double SHORT_ROW = 8.0;

/* Rows of more entries get more lanes: LANES, a power of two in [4, 32],
 * at least half the mean row length (a lane then sums about two entries,
 * two independent loads in flight, and short rows leave few lanes idle). */
int lanes_for(double row_mean) {
  int l = 4;
  while (l < 32 && l < row_mean / 2.0)
    l *= 2;
  return l;
}

/* The resident kernel's rows read their entries and u from shared memory
 * (tens of cycles a load, not an L2 round trip), so a lane sums up to
 * RES_ROW_PER_LANE of them (unrolled: its loads in flight together)
 * before a group's shuffle steps (each about a load's latency) cost more
 * than they save, and fewer lanes a row put more rows in flight: LANES,
 * the least power of two with row_mean / LANES <= RES_ROW_PER_LANE (1 on
 * rows of up to 8 entries). Experiment coop/c15 (solvers.md): 4 lanes
 * faster than lanes_for's 16 on rows of 16-28 entries, 1 than 4 or 8 on
 * rows of 5-7. */
constexpr double RES_ROW_PER_LANE = 8.0;
int res_lanes_for(double row_mean) {
  int l = 1;
  while (l < 32 && row_mean / l > RES_ROW_PER_LANE)
    l *= 2;
  return l;
}

const void *coop_kernel(const solver &S) {
  const int l = S.coop_lanes;
  const bool f32 = S.prec == SMV_F32;
  if (S.method == SMV_METHOD_BICGSTAB)
    return bicgstab_coop_kernel_for(f32, S.jac, l, S.coop_block, S.coop_last);
  if (S.coop_variant == 1)
    return cg1_kernel_for(f32, S.jac, l, S.coop_block, S.coop_last);
  if (S.coop_variant == 4)
    return cgres_kernel_for(f32, S.jac, l, S.coop_block, S.coop_last,
                            S.coop_pr);
  return coop_pick<cg2_k>(f32, S.jac, l, S.coop_block, S.coop_last);
}

/* Work vectors (T each) and the matrix, in bytes: what must stay in the
 * L2 for the persistent kernel to beat the graph path's tuned SpMV.
 * cg2: x r p0 p1 q b (+ z dinv); cg1: x r0 r1 w0 w1 s0 s1 p b (+ dinv);
 * BiCGStab: x r rhat p0 p1 v0 v1 s t b (+ dinv). */
double footprint(const solver &S, int variant) {
  const double es = S.prec == SMV_F32 ? 4.0 : 8.0;
  const double jac = S.jac ? 1.0 : 0.0;
  const double vecs = S.method == SMV_METHOD_BICGSTAB ? 10.0 + jac
                      : variant == 1 || variant == 4  ? 9.0 + jac
                                                      : 6.0 + 2.0 * jac;
  return (double)S.dA->st.nnz * (4.0 + es) + 4.0 * (double)(S.n + 1) +
         vecs * es * (double)S.n;
}

template <typename T> coop_args<T> args_of(solver &S, int it_end) {
  coop_args<T> a;
  memset(&a, 0, sizeof a);
  a.n = S.n;
  a.rp = S.dA->row_ptr;
  a.ci = S.dA->col_idx;
  a.val = (const T *)S.dA->values;
  a.x = (T *)S.x;
  a.dinv = S.V<T>(V_DINV);
  if (S.method == SMV_METHOD_BICGSTAB) {
    /* Where the start left r, rhat, p = 0 and v = 0 (p0, v0: iteration
     * 0's old p and v); s and t are written before they are read. */
    a.r = S.V<T>(V_R);
    a.rh = S.V<T>(V_RH);
    a.p0 = S.V<T>(V_P);
    a.p1 = S.V<T>(V_P2);
    a.v0 = S.V<T>(V_Q);
    a.v1 = S.V<T>(V_Z);
    a.sv = S.V<T>(V_S);
    a.t = S.V<T>(V_T);
  } else if (S.coop_variant == 1 || S.coop_variant == 4) {
    /* r0 is where the start left r; the others are written before they
     * are read (s0 and w0 by the kernel's first pass). */
    a.r0 = S.V<T>(V_R);
    a.r1 = S.V<T>(V_Z);
    a.w0 = S.V<T>(V_Q);
    a.w1 = S.V<T>(V_P2);
    a.s0 = S.V<T>(V_S);
    a.s1 = S.V<T>(V_T);
    a.p = S.V<T>(V_P);
  } else {
    a.r = S.V<T>(V_R);
    a.z = S.jac ? S.V<T>(V_Z) : S.V<T>(V_R);
    a.p0 = S.V<T>(V_P);
    a.p1 = S.V<T>(V_P2);
    a.q = S.V<T>(V_Q);
  }
  a.st = S.st;
  a.part = S.part;
  a.copies = S.coop_copies;
  a.copy_stride = S.coop_copy_stride;
  a.sync = S.sync;
  a.hist = S.hist;
  a.it_end = it_end;
  if (S.coop_variant == 4) {
    a.bounds = S.coop_bounds;
    a.rci = S.coop_bounds + cg_res_bounds_len((int)S.coop_grid);
    a.rhcol = a.rci + S.dA->st.nnz;
  }
  return a;
}

/* An environment knob's value as a positive integer, else 0. */
int env_int(const char *name) { return smv_env_int(name, 1, INT_MAX, 0); }

/* The resident kernel's grid and slices (cg_coop_res.cu): from the
 * blocks per SM the plan chose down to one, the first whose largest slice
 * fits a block's opt-in shared memory and lets that many blocks share an
 * SM (occupancy at that dynamic size). Sets coop_grid, coop_smem and
 * coop_bounds (the context's plan, engine.h's res_plan: kept for the next
 * solve of the matrix, not freed by solver::release). False when no grid
 * fits (or n past int32's rows). forced: the
 * grid was set by SMV_SOLVE_COOP_GRID (kept as is: the test of a refused
 * launch). */
bool res_plan(solver &S, bool forced) {
  const smv_context *ctx = S.ctx;
  const int sms = ctx->prop.multiProcessorCount;
  const int es = S.prec == SMV_F32 ? 4 : 8;
  if (S.n <= 0 || S.n >= INT_MAX)
    return false;
  const void *k = coop_kernel(S);
  const size_t optin = ctx->prop.sharedMemPerBlockOptin;
  cudaFuncAttributes fa;
  if (cudaFuncGetAttributes(&fa, k) != cudaSuccess ||
      fa.sharedSizeBytes >= optin)
    return false;
  const size_t room = optin - fa.sharedSizeBytes;
  /* The attribute is the kernel's, shared by every solve in the process
   * (concurrent ones on other threads included): always the same value,
   * the most a block may ask for, so no solve can lower it under another
   * one's launch. A launch still takes only its own coop_smem. */
  if (cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           (int)room) != cudaSuccess)
    return false;
  /* The plan's knobs, read once: the cached plan's key and what
   * cg_res_bounds plans by. */
  smv_context::smv_res_plan_cache &pc = S.ctx->res_plan;
  const int jac = S.jac ? 1 : 0;
  const int rebalance = smv_env_int("SMV_SOLVE_COOP_REBALANCE", 0, 1, 0);
  const int map_keys = smv_env_int("SMV_SOLVE_COOP_MAP_KEYS", 1, 1 << 24, 0);
  int per_sm = forced ? 1 : (int)((S.coop_grid + sms - 1) / sms);
  for (; per_sm >= 1; per_sm--) {
    /* The plan's grid first (it may be cut to the rows' need), then whole
     * SMs' worth of fewer blocks. */
    const int64_t full = (int64_t)per_sm * sms;
    const int64_t G64 =
        forced || full > (int64_t)S.coop_grid ? (int64_t)S.coop_grid : full;
    if (G64 > INT_MAX / 4)
      return false;
    const int G = (int)G64;
    /* Every entry is in some slice: past G slices' worth of room none
     * can fit, nor at any smaller grid (and the map below would be
     * allocated for nothing). */
    if ((double)S.dA->st.nnz * (es + 4) > (double)room * (double)G)
      return false;
    /* The context's last plan when it is this one (engine.h, res_plan),
     * else a new one replacing it (the solve that used the old one has
     * returned, its stream idle). */
    if (!(pc.plan && pc.serial == S.dA->serial && pc.G == G && pc.es == es &&
          pc.jac == jac && pc.rebalance == rebalance &&
          pc.map_keys == map_keys)) {
      cudaFree(pc.plan);
      memset(&pc, 0, sizeof pc);
      int32_t *d = nullptr;
      const size_t len = cg_res_bounds_len(G);
      int32_t *h = (int32_t *)malloc(len * sizeof *h);
      if (!h || cudaMalloc(&d, cg_res_plan_len(G, S.dA->st.nnz) * sizeof *d) !=
                    cudaSuccess) {
        free(h);
        return false;
      }
      size_t need = 0;
      const cudaError_t e = cg_res_bounds(S, G, rebalance, map_keys, d, h);
      if (e == cudaSuccess)
        for (int b = 0; b < G; b++) {
          const size_t sz =
              cg_res_bytes(h[b + 1] - h[b], h[G + 2 + b] - h[G + 1 + b],
                           h[2 * (G + 1) + b], es, S.jac);
          need = sz > need ? sz : need;
        }
      free(h);
      if (e != cudaSuccess) {
        cudaFree(d);
        return false;
      }
      pc.serial = S.dA->serial;
      pc.G = G;
      pc.es = es;
      pc.jac = jac;
      pc.rebalance = rebalance;
      pc.map_keys = map_keys;
      pc.need = need;
      pc.plan = d;
    }
    int occ = 0;
    if (pc.need <= room &&
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k, S.coop_block,
                                                      pc.need) == cudaSuccess &&
        (forced || occ >= per_sm)) {
      S.coop_grid = (unsigned)G;
      S.coop_smem = pc.need;
      S.coop_bounds = pc.plan;
      return true;
    }
    if (forced)
      return false;
  }
  return false;
}

/* The variant: SMV_SOLVE_COOP_VARIANT=cg1 or cg2 (anything else: the
 * default, the resident kernel where its slices fit, else cg1; res picks
 * cg1's recurrence in the resident kernel, pr or nothing the predict-and-
 * recompute one); as != 0 plans that
 * variant whatever the knob says (cg1 after res did not fit). The block
 * size: SMV_SOLVE_COOP_BLOCK=256, 512 or 1024 (else 512 for res, 256 for
 * the others). Blocks per SM: SMV_SOLVE_COOP_PER_SM=N, at most what the
 * device's occupancy allows for the kernel (the default for cg1 and cg2;
 * res: one). The sums: SMV_SOLVE_COOP_SUM=last (anything
 * else: the default, all; `last` lost at every shape micro/gridsync
 * measured: docs/solvers.md). */
bool plan_as(solver &S, const char **why, int as) {
  const smv_context *ctx = S.ctx;
  const int want = S.o.persistent;
  *why = nullptr;
  if (S.method == SMV_METHOD_BICGSTAB) {
    const char *bi = getenv("SMV_SOLVE_COOP_BICGSTAB");
    if (bi && strcmp(bi, "0") == 0) {
      *why = "SMV_SOLVE_COOP_BICGSTAB=0";
      return false;
    }
  }
  if (want < 0) {
    *why = "persistent = -1";
    return false;
  }
  const char *env = getenv("SMV_SOLVE_COOP");
  if (env && env[0] == '0' && env[1] == '\0') {
    *why = "SMV_SOLVE_COOP=0";
    return false;
  }
  if (S.chebyshev) {
    *why = "Chebyshev preconditioning runs on the graph path";
    return false;
  }
  if (S.o.alg != SMV_ALG_AUTO) {
    *why = "an SpMV rung was asked for by name";
    return false;
  }
  int coop = 0;
  if (cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch,
                             ctx->device) != cudaSuccess ||
      !coop) {
    cudaGetLastError();
    *why = "the device has no cooperative launch";
    return false;
  }
  const char *var = getenv("SMV_SOLVE_COOP_VARIANT");
  /* BiCGStab has one kernel; its variant (3) names it to the driver. */
  const int variant = S.method == SMV_METHOD_BICGSTAB  ? 3
                      : as != 0                        ? as
                      : var && strcmp(var, "cg2") == 0 ? 2
                      : var && strcmp(var, "cg1") == 0 ? 1
                                                       : 4;
  /* The resident kernel runs the predict-and-recompute recurrence unless
   * SMV_SOLVE_COOP_VARIANT=res asks for cg1's (where no slice fits, cg1
   * with cg1's recurrence either way). */
  S.coop_pr = variant == 4 && !(var && strcmp(var, "res") == 0);
  const int bs = env_int("SMV_SOLVE_COOP_BLOCK");
  const char *sum = getenv("SMV_SOLVE_COOP_SUM");
  S.coop_variant = variant;
  S.coop_last = sum && strcmp(sum, "last") == 0;
  /* The resident kernel's default block: 512 threads, one block an SM
   * (below): the grid sum's cost grows with the grid (coop/c11: several
   * times cheaper at one block an SM than at two; solvers.md), and 512
   * threads keep the SM's warps on the rows. The others: 256. */
  S.coop_block = bs == 256 || bs == 512 || bs == 1024 ? bs
                 : variant == 4                       ? 512
                                                      : 256;
  if (want == 0 && footprint(S, variant) > (double)ctx->prop.l2CacheSize) {
    *why = "the matrix and vectors outgrow the L2";
    return false;
  }
  S.coop_lanes = variant == 4 ? res_lanes_for(S.dA->st.row_mean)
                              : lanes_for(S.dA->st.row_mean);
  int occ = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &occ, coop_kernel(S), S.coop_block, 0) != cudaSuccess ||
      occ < 1) {
    cudaGetLastError();
    *why = "no block of the persistent kernel fits on an SM";
    return false;
  }
  const int ask = env_int("SMV_SOLVE_COOP_PER_SM");
  /* The resident kernel's default: one block an SM, G = the device's SM
   * count (the fewest partials for the grid sum, the largest slices: most
   * of each row's neighbours in the slice; coop/c11). */
  const int dflt = S.coop_variant == 4 ? 1 : occ;
  /* An ask past the occupancy gets the occupancy (not the default: the
   * resident kernel's default is one block an SM, not all of them). */
  const int per_sm = ask > 0 ? (ask < occ ? ask : occ) : dflt;
  int64_t g = (int64_t)per_sm * ctx->prop.multiProcessorCount;
  /* Lanes: on rows of at most SHORT_ROW entries (lanes_for's least,
   * four; res_lanes_for's rows that short have one already), fewer while
   * the grid cannot give every row a group at once. */
  const int64_t threads = g * S.coop_block;
  if (S.dA->st.row_mean <= SHORT_ROW)
    while (S.coop_lanes > 1 && S.n * S.coop_lanes > threads)
      S.coop_lanes /= 2;
  const int lanes_ask = env_int("SMV_SOLVE_COOP_LANES");
  if (lanes_ask > 0 && lanes_ask <= 32 && (lanes_ask & (lanes_ask - 1)) == 0)
    S.coop_lanes = lanes_ask;
  /* The kernel for these lanes: its occupancy must still allow per_sm
   * (the unrolled one- and two-lane rows use the same register budget,
   * __launch_bounds__, but check). */
  int occ2 = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &occ2, coop_kernel(S), S.coop_block, 0) != cudaSuccess ||
      occ2 < 1) {
    cudaGetLastError();
    *why = "no block of the persistent kernel fits on an SM";
    return false;
  }
  if (occ2 < per_sm)
    g = (int64_t)occ2 * ctx->prop.multiProcessorCount;
  /* No more blocks than rows need (but the grid stays co-resident). */
  const int64_t need = (S.n * S.coop_lanes + S.coop_block - 1) / S.coop_block;
  if (need < g)
    g = need > 0 ? need : 1;
  /* Test hook: a grid larger than co-residency allows makes the launch
   * fail (cudaErrorCooperativeLaunchTooLarge), which the driver must
   * survive by falling back to the graph path (tests/test_cuda_solve.c). */
  const int force = env_int("SMV_SOLVE_COOP_GRID");
  if (force > 0)
    g = force;
  S.coop_grid = (unsigned)g;
  /* One copy of the partials unless asked (cg_coop.h, coop_sum: with
   * the partials j-major, more copies measured no faster). */
  const int copies_ask = env_int("SMV_SOLVE_COOP_COPIES");
  S.coop_copies = copies_ask > 0 && copies_ask <= 32 ? copies_ask : 1;
  if (S.coop_variant == 4 && !res_plan(S, force > 0)) {
    /* No slice fits: cg1 reads the L2 instead, planned as cg1 (its own
     * block size, occupancy, all of it, and its lanes for that grid: the
     * shape above was the resident kernel's, one block an SM). */
    cudaGetLastError();
    return plan_as(S, why, 1);
  }
  return true;
}
} // namespace

bool cg_coop_plan(solver &S, const char **why) { return plan_as(S, why, 0); }

cudaError_t cg_coop_launch(solver &S, int it_end) {
  const void *k = coop_kernel(S);
  const dim3 grid(S.coop_grid), block((unsigned)S.coop_block);
  /* Each launch's rounds of the fused sum count from 0 (cg_coop.h,
   * grid_sum_sync): the counter and the flag start at 0, after the
   * previous launch on this stream has finished with them. A solve paused
   * at it_end and launched again (progress reports) thus needs no round
   * carried over; the iteration's state is in solve_state. */
  if (S.coop_last) {
    const cudaError_t e =
        cudaMemsetAsync(S.sync, 0, 2 * sizeof(unsigned long long), S.stream);
    if (e != cudaSuccess)
      return e;
  }
  /* The resident kernel's slice: its limit was set by res_plan (the same
   * for every solve, so no solve's setting races another's launch). */
  const size_t smem = S.coop_variant == 4 ? S.coop_smem : 0;
  if (S.prec == SMV_F32) {
    coop_args<float> a = args_of<float>(S, it_end);
    void *p[] = {&a};
    return cudaLaunchCooperativeKernel(k, grid, block, p, smem, S.stream);
  }
  coop_args<double> a = args_of<double>(S, it_end);
  void *p[] = {&a};
  return cudaLaunchCooperativeKernel(k, grid, block, p, smem, S.stream);
}

} // namespace smv_solve
