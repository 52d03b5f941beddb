/*
 * gridsync.cu — the grid-wide barrier and the all-blocks sum behind it:
 * the two costs of an iteration of a persistent (cooperative) kernel.
 *
 * Question: smv's persistent CG (src/cuda/solve/cg_coop*.cu) runs whole
 * iterations in one cooperative launch; on a matrix in the L2 an
 * iteration is a few microseconds of SpMV and vector work, plus one or two
 * grid barriers, each followed by every block summing the G blocks'
 * partials (so all blocks get the same scalars, in the same order). What
 * does one cooperative-groups grid.sync() cost on this device, and how
 * does it grow with the number of blocks (block size x blocks per SM)?
 * What does the all-blocks sum of 3 doubles per block add, and what
 * does a fused reduction (the last block to arrive sums, the others wait
 * for its result) cost instead? This bounds what a persistent iteration
 * can reach (issue 24's goal: 7 us).
 *
 * Variants, for block sizes 256, 512 and 1024 and 1, 2, 4 and the most
 * co-resident blocks per SM (occupancy of the kernel):
 *   A. sync: ROUNDS rounds of { block b writes flag[b] = round; grid.sync();
 *      block b reads flag[(b + 1) % G] (from the L2) and counts a mismatch
 *      if it is not round }: the barrier's cost and its correctness.
 *   B. sync + sum: A, and before the barrier thread j < 3 of block b
 *      writes partial (b, j) of the round (double-buffered by parity);
 *      after it, every block sums the 3 x G partials in a fixed order (each
 *      thread a stride, warp xor shuffles, one __syncthreads, the warps'
 *      totals in order), as the persistent CG does with
 *      SMV_SOLVE_COOP_SUM=all: G x 3 doubles read by every block, G^2 x
 *      24 bytes of L2 reads a round.
 *   C. last: the fused reduction (src/cuda/solve/cg_coop.h,
 *      grid_sum_sync; SMV_SOLVE_COOP_SUM=last, not the default), no
 *      grid.sync: B's flag and partials, __syncthreads, thread 0 fences
 *      and adds 1 to an arrival counter; the block whose arrival is the
 *      round's last (round r's arrivals are r G .. r G + G - 1: no block
 *      arrives at r + 1 before r is published) sums the partials in B's
 *      order, stores the 3 sums (by parity), fences and releases a flag
 *      = r + 1; the others spin on it (one thread, ld.acquire), then read
 *      the 3 sums. G x 3 doubles read once a round, by one block. It is
 *      a full barrier, so A's neighbour check holds for it too.
 *   D. copies: B with the partials j-major (partial j of block b at
 *      j G + b: a warp's load is 32 consecutive doubles, 8 full sectors,
 *      where B's b-major 3 b + j spreads it over 3 times the sectors),
 *      written to `copies` copies (1 .. 32), block b summing copy
 *      b % copies: B's reads all land on the same 3 G doubles from every
 *      SM at once; copies spread the readers over more lines, for
 *      3 x copies stores a block. The persistent kernels store their
 *      partials j-major, one copy unless SMV_SOLVE_COOP_COPIES asks
 *      (cg_coop.h, block_partial / all_sum).
 *   E. cluster: a two-level barrier and sum on thread-block clusters
 *      (sm_90): each block puts its 3 partials in its shared memory,
 *      cluster.sync() (the hardware's barrier across the C blocks of a
 *      cluster), the cluster's first block sums the C blocks' partials
 *      through distributed shared memory (rank order), writes the
 *      cluster's 3 partials j-major and alone takes part in a grid-wide
 *      arrive-and-spin barrier of G / C arrivals (a counter that only
 *      grows: round r is complete at (r + 1) G / C), then cluster.sync()
 *      lets the other blocks go; every block sums the G / C clusters'
 *      partials. The grid barrier sees C times fewer participants and the
 *      sum reads C times fewer partials. Launched with cudaLaunchKernelEx,
 *      cooperative where the driver accepts it with clusters, else plainly
 *      with the grid no larger than the clusters that can be co-resident
 *      (cudaOccupancyMaxActiveClusters); the table says which. C = 2, 4, 8
 *      (the portable sizes), G the largest multiple of C at that many
 *      blocks per SM.
 * Time per round: (t(ROUNDS) - t(0)) / ROUNDS, t the median of cooperative
 * launches timed by CUDA events (the launch itself cancels out; C's
 * counter and flag are zeroed by a memset before each launch, in both
 * t(ROUNDS) and t(0)). The partials are small integers, so every block's
 * running total (B, C: the sum of all rounds' sums) is exact and is
 * checked against the host's; the barrier check must count 0.
 *   smv micro gridsync [--csv DIR]
 */
#include "common.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

static const char *const k_help =
    "Grid barrier (cooperative groups grid.sync) and the all-blocks sum of\n"
    "3 doubles per block after it, and the fused reduction (last block\n"
    "sums, flag broadcast) in its place, by block size and blocks per SM:\n"
    "the per-iteration floor of a persistent kernel (smv's persistent CG).";

#define ROUNDS 2000

/* Partial j of block b in round r: a small integer (exact sums). */
__host__ __device__ inline double part_val(int r, int b, int j) {
  return (double)((r * 7 + b * 3 + j) % 16);
}

/* The sum of the G blocks' 3 partials in pr, in every thread (fixed
 * order: each thread a stride, warp xor shuffles, the warps' totals in
 * warp order). Ends with a __syncthreads: warp_sum is free again. */
__device__ void sum_partials(const double *pr, int G, double (&out)[3],
                             double (*warp_sum)[3], bool jmajor = false) {
  double v[3] = {0.0, 0.0, 0.0};
  for (int i = threadIdx.x; i < G; i += blockDim.x)
    for (int j = 0; j < 3; j++)
      v[j] += __ldcg(&pr[jmajor ? j * G + i : 3 * i + j]);
  for (int off = 16; off > 0; off >>= 1)
    for (int j = 0; j < 3; j++)
      v[j] += __shfl_xor_sync(0xffffffffu, v[j], off);
  const int w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  if ((threadIdx.x & 31) == 0)
    for (int j = 0; j < 3; j++)
      warp_sum[w][j] = v[j];
  __syncthreads();
  for (int j = 0; j < 3; j++) {
    double s = 0.0;
    for (int q = 0; q < nw; q++)
      s += warp_sum[q][j];
    out[j] = s;
  }
  __syncthreads(); /* warp_sum is rewritten next round */
}

/* The fused reduction (C): sy[0] the arrival counter, sy[1] the flag
 * (rounds published), then the sums by parity (2 x 3 doubles); sy[0] and
 * sy[1] zero at launch. Returns round r's sums in every thread. */
__device__ void last_block_sum(int r, const double *pr, int G,
                               unsigned long long *sy, double (&out)[3],
                               double (*warp_sum)[3]) {
  __shared__ int last;
  double *res = (double *)(sy + 2) + (r & 1) * 3;
  __syncthreads(); /* the block's writes of the round before the fence */
  if (threadIdx.x == 0) {
    __threadfence();
    const unsigned long long t = atomicAdd(&sy[0], 1ull);
    last = t == (unsigned long long)r * (unsigned)G + (unsigned)(G - 1);
    if (last)
      __threadfence();
  }
  __syncthreads();
  if (last) {
    sum_partials(pr, G, out, warp_sum);
    if (threadIdx.x == 0) {
      for (int j = 0; j < 3; j++)
        res[j] = out[j];
      __threadfence();
      asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(&sy[1]),
                   "l"((unsigned long long)r + 1ull)
                   : "memory");
    }
    return;
  }
  if (threadIdx.x == 0) {
    unsigned long long f;
    do {
      asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
                   : "=l"(f)
                   : "l"(&sy[1])
                   : "memory");
    } while (f <= (unsigned long long)r);
    __threadfence();
  }
  __syncthreads();
  for (int j = 0; j < 3; j++)
    out[j] = __ldcg(&res[j]);
}

/* Thread 0: the block's running sums and its barrier misses. */
__device__ void report_block(double *total, unsigned *bad,
                             const double (&acc)[3], unsigned miss) {
  if (threadIdx.x != 0)
    return;
  for (int j = 0; j < 3; j++)
    total[3 * blockIdx.x + j] = acc[j];
  if (miss)
    atomicAdd(bad, miss);
}

/* SUM: 0 A (grid.sync), 1 B (+ every block sums), 2 C (fused), 3 D (B
 * with the partials written to `reps` copies, block b reading copy
 * b % reps: copy c of parity p at part + (2 c + p) 3 G). */
template <int SUM>
__global__ void gridsync_kernel(int rounds, volatile int *flag, double *part,
                                double *total, unsigned *bad,
                                unsigned long long *sy, int reps) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double warp_sum[32][3];
  const int G = (int)gridDim.x, b = (int)blockIdx.x;
  double acc[3] = {0.0, 0.0, 0.0};
  unsigned miss = 0;
  for (int r = 0; r < rounds; r++) {
    double *pr = part + (size_t)(r & 1) * 3 * G;
    if (threadIdx.x == 0)
      flag[b] = r;
    if ((SUM == 1 || SUM == 2) && threadIdx.x < 3)
      pr[3 * b + threadIdx.x] = part_val(r, b, threadIdx.x);
    if (SUM == 3 && (int)threadIdx.x < 3 * reps) {
      const int c = (int)threadIdx.x / 3, j = (int)threadIdx.x % 3;
      pr[(size_t)c * 6 * G + j * G + b] = part_val(r, b, j);
    }
    double v[3] = {0.0, 0.0, 0.0};
    if (SUM == 2)
      last_block_sum(r, pr, G, sy, v, warp_sum);
    else
      grid.sync();
    if (threadIdx.x == 0 && flag[(b + 1) % G] < r)
      miss++;
    if (SUM == 1)
      sum_partials(pr, G, v, warp_sum);
    if (SUM == 3)
      sum_partials(pr + (size_t)(b % reps) * 6 * G, G, v, warp_sum, true);
    if (SUM)
      for (int j = 0; j < 3; j++)
        acc[j] += v[j];
  }
  report_block(total, bad, acc, miss);
}

/* Median ms of one cooperative launch of `rounds` rounds. */
template <int SUM>
static double launch_ms(int G, int block, int rounds, micro_dbuf<int> &flag,
                        micro_dbuf<double> &part, micro_dbuf<double> &total,
                        micro_dbuf<unsigned> &bad,
                        micro_dbuf<unsigned long long> &sync, int reps) {
  int *fp = flag.p;
  double *pp = part.p, *tp = total.p;
  unsigned *bp = bad.p;
  unsigned long long *sp = sync.p;
  void *args[] = {&rounds, &fp, &pp, &tp, &bp, &sp, &reps};
  auto launch = [&] {
    if (SUM == 2) /* C's rounds count from 0 each launch */
      CK(cudaMemsetAsync(sp, 0, 2 * sizeof *sp, 0));
    CK(cudaLaunchCooperativeKernel((const void *)gridsync_kernel<SUM>, G, block,
                                   args, 0, 0));
  };
  return micro_time_ms(launch, 2, 15);
}

/* After a checked run of ROUNDS rounds at G blocks: no block passed the
 * barrier before its neighbour wrote the round, and (sums) every block's
 * running totals are exact. `what` names the shape in a failure. */
static void check_rounds(micro_dbuf<unsigned> &bad, micro_dbuf<double> &total,
                         int G, bool sums, const char *what) {
  unsigned nbad = 0;
  bad.download(&nbad);
  micro_check(nbad == 0, "%s: %u rounds passed the barrier early", what, nbad);
  if (!sums)
    return;
  std::vector<double> got((size_t)3 * G);
  total.download(got.data());
  double want[3] = {0, 0, 0};
  for (int r = 0; r < ROUNDS; r++)
    for (int b = 0; b < G; b++)
      for (int j = 0; j < 3; j++)
        want[j] += part_val(r, b, j);
  size_t wrong = 0;
  for (int b = 0; b < G; b++)
    for (int j = 0; j < 3; j++)
      wrong += got[(size_t)3 * b + j] != want[j];
  micro_check(wrong == 0, "%s: %zu block sums wrong", what, wrong);
}

template <int SUM>
static void shape_row(micro_table &t, int block, int per_sm, int occ,
                      int reps) {
  const int sms = g_dev.prop.multiProcessorCount;
  const int G = per_sm * sms;
  micro_dbuf<int> flag((size_t)G);
  micro_dbuf<double> part((size_t)6 * G * reps), total((size_t)3 * G);
  micro_dbuf<unsigned> bad(1);
  /* C: counter, flag, 2 x 3 sums (as doubles' bits) */
  micro_dbuf<unsigned long long> sync(8);
  flag.poison(0xff); /* -1: every flag below round 0 until written */
  bad.zero();
  const double t0 =
      launch_ms<SUM>(G, block, 0, flag, part, total, bad, sync, reps);
  const double t1 =
      launch_ms<SUM>(G, block, ROUNDS, flag, part, total, bad, sync, reps);
  /* The checked run: the barrier never let a block past before its
   * neighbour wrote the round, and every block's sums are exact. */
  flag.poison(0xff);
  bad.zero();
  total.poison();
  sync.poison(); /* the sums' slots: NaN until published */
  CK(cudaMemset(sync.p, 0, 2 * sizeof *sync.p));
  int rounds = ROUNDS;
  int *fp = flag.p;
  double *pp = part.p, *tp = total.p;
  unsigned *bp = bad.p;
  unsigned long long *sp = sync.p;
  void *args[] = {&rounds, &fp, &pp, &tp, &bp, &sp, &reps};
  CK(cudaLaunchCooperativeKernel((const void *)gridsync_kernel<SUM>, G, block,
                                 args, 0, 0));
  CK(cudaDeviceSynchronize());
  check_rounds(bad, total, G, SUM != 0,
               micro_fmt("block %d x %d per SM", block, per_sm).c_str());
  const double us = (t1 - t0) * 1e3 / ROUNDS;
  std::vector<std::string> row = {
      micro_fmt("%d", block),
      micro_fmt("%d%s", per_sm, per_sm == occ ? " (max)" : ""),
      micro_fmt("%d", G)};
  if (SUM == 3)
    row.push_back(micro_fmt("%d", reps));
  row.push_back(micro_num(t0 * 1e3, 1));
  row.push_back(micro_num(us, 3));
  micro_table_add(t, row);
}

template <int SUM> static void run_variant(const char *id, const char *title) {
  std::vector<std::string> cols = {"block", "blocks per SM", "blocks (G)"};
  if (SUM == 3)
    cols.push_back("copies");
  cols.push_back("launch us");
  cols.push_back("us per round");
  micro_table t = micro_table_new(id, title, cols);
  const int blocks[] = {256, 512, 1024};
  for (int bi = 0; bi < 3; bi++) {
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gridsync_kernel<SUM>,
                                                     blocks[bi], 0));
    const int per[] = {1, 2, 4, occ};
    for (int pi = 0; pi < 4; pi++) {
      if (per[pi] > occ || (pi == 3 && (occ == 1 || occ == 2 || occ == 4)))
        continue;
      if (SUM != 3) {
        shape_row<SUM>(t, blocks[bi], per[pi], occ, 1);
        continue;
      }
      /* copies: 1, 2, 4, ... up to one per 8 blocks (at most 32) */
      const int G = per[pi] * g_dev.prop.multiProcessorCount;
      for (int reps = 1; reps <= 32 && reps * 8 <= G; reps *= 2)
        shape_row<SUM>(t, blocks[bi], per[pi], occ, reps);
    }
  }
  micro_table_print(t);
}

static void run_sync(void) {
  run_variant<0>("sync", "grid.sync() alone: microseconds per barrier");
  micro_note("%d rounds per launch; us per round = (t(%d rounds) - t(0)) / "
             "%d, medians of 15 cooperative launches.",
             ROUNDS, ROUNDS, ROUNDS);
}

static void run_last(void) {
  run_variant<2>("sync_last",
                 "arrive + last block sums the G partials + flag broadcast: "
                 "the fused reduction (no grid.sync)");
  micro_note("SMV_SOLVE_COOP_SUM=last in the persistent kernels (not "
             "their default): the 3 x G partials read once a round, by one "
             "block, against every block in sync_sum; the last block's sum "
             "and the flag's round trip sit on the critical path.");
}

static void run_sum(void) {
  run_variant<1>("sync_sum", "grid.sync() + every block sums 3 doubles of "
                             "each of the G blocks (the persistent CG's "
                             "reduction)");
  micro_note("A persistent CG iteration pays this once (single-barrier "
             "variant) or twice (two barriers), plus its SpMV and vector "
             "work.");
}

static void run_copies(void) {
  run_variant<3>("sync_sum_copies",
                 "grid.sync() + every block sums the G partials, j-major, "
                 "from one of `copies` copies (block b reads copy b % "
                 "copies)");
  micro_note("j-major: a warp loads 32 consecutive doubles of one sum "
             "(sync_sum's block-major layout: every third). Each block "
             "writes its 3 partials to every copy (3 x copies stores, in "
             "parallel threads); the reads of one round spread over copies "
             "x more L2 lines, so fewer SMs ask for each line.");
}

/* E: the two-level barrier and sum (see the header). sy[0]: the arrival
 * counter (only grows: zeroed before each launch), cpart: the clusters'
 * 3 partials j-major by parity (2 x 3 x NC). */
__global__ void cluster_kernel(int rounds, volatile int *flag, double *cpart,
                               double *total, unsigned *bad,
                               unsigned long long *sy) {
  cg::cluster_group cl = cg::this_cluster();
  __shared__ double mine[3];
  __shared__ double warp_sum[32][3];
  const int G = (int)gridDim.x, b = (int)blockIdx.x;
  const int C = (int)cl.num_blocks(), NC = G / C;
  const int cid = b / C;
  const bool leader = cl.block_rank() == 0;
  double acc[3] = {0.0, 0.0, 0.0};
  unsigned miss = 0;
  for (int r = 0; r < rounds; r++) {
    double *pr = cpart + (size_t)(r & 1) * 3 * NC;
    if (threadIdx.x == 0)
      flag[b] = r;
    if (threadIdx.x < 3)
      mine[threadIdx.x] = part_val(r, b, threadIdx.x);
    cl.sync(); /* every block's partials and flag written */
    if (leader) {
      if (threadIdx.x < 3) {
        double s = 0.0;
        for (int q = 0; q < C; q++)
          s += cl.map_shared_rank(mine, q)[threadIdx.x];
        pr[threadIdx.x * NC + cid] = s;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(&sy[0], 1ull);
        const unsigned long long want =
            (unsigned long long)(r + 1) * (unsigned long long)NC;
        unsigned long long got;
        do {
          asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
                       : "=l"(got)
                       : "l"(&sy[0])
                       : "memory");
        } while (got < want);
        __threadfence();
      }
    }
    /* The leader has seen every cluster arrive; its blocks go on. (Also
     * keeps `mine` from being rewritten before the leader has read it.) */
    cl.sync();
    if (threadIdx.x == 0 && flag[(b + 1) % G] < r)
      miss++;
    double v[3];
    sum_partials(pr, NC, v, warp_sum, true);
    for (int j = 0; j < 3; j++)
      acc[j] += v[j];
  }
  report_block(total, bad, acc, miss);
}

/* E's launch configuration: G blocks of `block` threads in clusters of C,
 * cooperative when coop (at must hold 2 attributes). */
static cudaLaunchConfig_t cluster_cfg(int G, int block, int C, int coop,
                                      cudaLaunchAttribute (&at)[2]) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3((unsigned)G);
  cfg.blockDim = dim3((unsigned)block);
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim.x = (unsigned)C;
  at[0].val.clusterDim.y = 1;
  at[0].val.clusterDim.z = 1;
  at[1].id = cudaLaunchAttributeCooperative;
  at[1].val.cooperative = 1;
  cfg.attrs = at;
  cfg.numAttrs = coop ? 2 : 1;
  return cfg;
}

/* Launch E: cooperative where the driver takes it (*coop = 1), else plain
 * (*coop = 0). */
static cudaError_t cluster_launch(int G, int block, int C, int rounds, int *fp,
                                  double *pp, double *tp, unsigned *bp,
                                  unsigned long long *sp, int *coop) {
  cudaLaunchAttribute at[2];
  const cudaLaunchConfig_t cfg = cluster_cfg(G, block, C, *coop, at);
  return cudaLaunchKernelEx(&cfg, cluster_kernel, rounds, (volatile int *)fp,
                            pp, tp, bp, sp);
}

static void cluster_row(micro_table &t, int block, int per_sm, int C) {
  const int sms = g_dev.prop.multiProcessorCount;
  int G = per_sm * sms / C * C;
  /* Co-residency: no more clusters than can be resident at once. */
  int maxc = 0;
  if (G >= C) {
    cudaLaunchAttribute qa[2];
    const cudaLaunchConfig_t q = cluster_cfg(G, block, C, 0, qa);
    CK(cudaOccupancyMaxActiveClusters(&maxc, cluster_kernel, &q));
  }
  if (maxc < 1) { /* say so: a missing row reads as never tried */
    micro_table_add(t, {micro_fmt("%d", block), micro_fmt("%d", per_sm),
                        micro_fmt("%d", C), "0", "no cluster fits", "-", "-"});
    return;
  }
  /* Fewer clusters than asked can be co-resident: run those, and say so
   * in the row (the same G may then appear under two labels). */
  const bool cut = G / C > maxc;
  if (cut)
    G = maxc * C;
  const int NC = G / C;
  micro_dbuf<int> flag((size_t)G);
  micro_dbuf<double> cpart((size_t)6 * NC), total((size_t)3 * G);
  micro_dbuf<unsigned> bad(1);
  micro_dbuf<unsigned long long> sync(1);
  int *fp = flag.p;
  double *pp = cpart.p, *tp = total.p;
  unsigned *bp = bad.p;
  unsigned long long *sp = sync.p;
  /* Cooperative with clusters if the driver takes it; else plain. */
  int coop = 1;
  CK(cudaMemset(sp, 0, sizeof *sp));
  if (cluster_launch(G, block, C, 0, fp, pp, tp, bp, sp, &coop) !=
      cudaSuccess) {
    cudaGetLastError();
    coop = 0;
    CK(cluster_launch(G, block, C, 0, fp, pp, tp, bp, sp, &coop));
  }
  CK(cudaDeviceSynchronize());
  auto timed = [&](int rounds) {
    auto launch = [&] {
      CK(cudaMemsetAsync(sp, 0, sizeof *sp, 0));
      CK(cluster_launch(G, block, C, rounds, fp, pp, tp, bp, sp, &coop));
    };
    return micro_time_ms(launch, 2, 15);
  };
  flag.poison(0xff);
  bad.zero();
  const double t0 = timed(0), t1 = timed(ROUNDS);
  /* The checked run. */
  flag.poison(0xff);
  bad.zero();
  total.poison();
  CK(cudaMemset(sp, 0, sizeof *sp));
  CK(cluster_launch(G, block, C, ROUNDS, fp, pp, tp, bp, sp, &coop));
  CK(cudaDeviceSynchronize());
  check_rounds(
      bad, total, G, true,
      micro_fmt("cluster %d, block %d x %d per SM", C, block, per_sm).c_str());
  micro_table_add(t, {micro_fmt("%d", block),
                      micro_fmt("%d%s", per_sm, cut ? " (cut)" : ""),
                      micro_fmt("%d", C), micro_fmt("%d", G),
                      coop ? "cooperative" : "plain", micro_num(t0 * 1e3, 1),
                      micro_num((t1 - t0) * 1e3 / ROUNDS, 3)});
}

static void run_cluster(void) {
  micro_table t = micro_table_new(
      "sync_cluster",
      "two-level barrier and sum on clusters: cluster.sync, the cluster's "
      "first block sums its blocks' partials (distributed shared memory) and "
      "alone joins the grid barrier, every block sums the clusters' partials",
      {"block", "blocks per SM", "cluster", "blocks (G)", "launch", "launch us",
       "us per round"});
  const int blocks[] = {256, 512, 1024};
  const int per[] = {1, 2, 4};
  const int sizes[] = {2, 4, 8};
  for (int bi = 0; bi < 3; bi++)
    for (int pi = 0; pi < 3; pi++) {
      if (blocks[bi] * per[pi] > 2048)
        continue;
      for (int ci = 0; ci < 3; ci++)
        cluster_row(t, blocks[bi], per[pi], sizes[ci]);
    }
  micro_table_print(t);
  micro_note("Compare with sync_sum_copies at 1 copy (the persistent CG's "
             "default sums): the same rounds, every block in the grid "
             "barrier and every block reading all G partials.");
}

int main(int argc, char **argv) {
  return micro_main(argc, argv, "gridsync",
                    "grid barrier and all-blocks sum (persistent kernels)",
                    k_help,
                    {run_sync, run_sum, run_last, run_copies, run_cluster});
}
