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
 * What does the all-blocks sum of 3 doubles per block add? This bounds
 * what a persistent iteration can reach (issue 24's goal: 7 us).
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
 *      totals in order), as the persistent CG does.
 * Time per round: (t(ROUNDS) - t(0)) / ROUNDS, t the median of cooperative
 * launches timed by CUDA events (the launch itself cancels out). The
 * partials are small integers, so every block's running total is exact
 * and is checked against the host's; the barrier check must count 0.
 *   smv micro gridsync [--csv DIR]
 */
#include "common.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

static const char *const k_help =
    "Grid barrier (cooperative groups grid.sync) and the all-blocks sum of\n"
    "3 doubles per block after it, by block size and blocks per SM: the\n"
    "per-iteration floor of a persistent kernel (smv's persistent CG).";

#define ROUNDS 2000

/* Partial j of block b in round r: a small integer (exact sums). */
__host__ __device__ inline double part_val(int r, int b, int j) {
  return (double)((r * 7 + b * 3 + j) % 16);
}

template <int SUM>
__global__ void gridsync_kernel(int rounds, volatile int *flag, double *part,
                                double *total, unsigned *bad) {
  cg::grid_group grid = cg::this_grid();
  __shared__ double warp_sum[32][3];
  const int G = (int)gridDim.x, b = (int)blockIdx.x;
  double acc[3] = {0.0, 0.0, 0.0};
  unsigned miss = 0;
  for (int r = 0; r < rounds; r++) {
    double *pr = part + (size_t)(r & 1) * 3 * G;
    if (threadIdx.x == 0)
      flag[b] = r;
    if (SUM && threadIdx.x < 3)
      pr[3 * b + threadIdx.x] = part_val(r, b, threadIdx.x);
    grid.sync();
    if (threadIdx.x == 0 && flag[(b + 1) % G] < r)
      miss++;
    if (SUM) {
      double v[3] = {0.0, 0.0, 0.0};
      for (int i = threadIdx.x; i < G; i += blockDim.x)
        for (int j = 0; j < 3; j++)
          v[j] += __ldcg(&pr[3 * i + j]);
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
        acc[j] += s;
      }
      __syncthreads(); /* warp_sum is rewritten next round */
    }
  }
  if (threadIdx.x == 0) {
    for (int j = 0; j < 3; j++)
      total[3 * b + j] = acc[j];
    if (miss)
      atomicAdd(bad, miss);
  }
}

/* Median ms of one cooperative launch of `rounds` rounds. */
template <int SUM>
static double launch_ms(int G, int block, int rounds, micro_dbuf<int> &flag,
                        micro_dbuf<double> &part, micro_dbuf<double> &total,
                        micro_dbuf<unsigned> &bad) {
  int *fp = flag.p;
  double *pp = part.p, *tp = total.p;
  unsigned *bp = bad.p;
  void *args[] = {&rounds, &fp, &pp, &tp, &bp};
  auto launch = [&] {
    CK(cudaLaunchCooperativeKernel((const void *)gridsync_kernel<SUM>, G, block,
                                   args, 0, 0));
  };
  return micro_time_ms(launch, 2, 15);
}

template <int SUM>
static void shape_row(micro_table &t, int block, int per_sm, int occ) {
  const int sms = g_dev.prop.multiProcessorCount;
  const int G = per_sm * sms;
  micro_dbuf<int> flag((size_t)G);
  micro_dbuf<double> part((size_t)6 * G), total((size_t)3 * G);
  micro_dbuf<unsigned> bad(1);
  flag.poison(0xff); /* -1: every flag below round 0 until written */
  bad.zero();
  const double t0 = launch_ms<SUM>(G, block, 0, flag, part, total, bad);
  const double t1 = launch_ms<SUM>(G, block, ROUNDS, flag, part, total, bad);
  /* The checked run: the barrier never let a block past before its
   * neighbour wrote the round, and every block's sums are exact. */
  flag.poison(0xff);
  bad.zero();
  total.poison();
  int rounds = ROUNDS;
  int *fp = flag.p;
  double *pp = part.p, *tp = total.p;
  unsigned *bp = bad.p;
  void *args[] = {&rounds, &fp, &pp, &tp, &bp};
  CK(cudaLaunchCooperativeKernel((const void *)gridsync_kernel<SUM>, G, block,
                                 args, 0, 0));
  CK(cudaDeviceSynchronize());
  unsigned nbad = 0;
  bad.download(&nbad);
  micro_check(nbad == 0,
              "block %d x %d per SM: %u rounds passed the barrier "
              "early",
              block, per_sm, nbad);
  if (SUM) {
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
    micro_check(wrong == 0, "block %d x %d per SM: %zu block sums wrong", block,
                per_sm, wrong);
  }
  const double us = (t1 - t0) * 1e3 / ROUNDS;
  micro_table_add(t, {micro_fmt("%d", block),
                      micro_fmt("%d%s", per_sm, per_sm == occ ? " (max)" : ""),
                      micro_fmt("%d", G), micro_num(t0 * 1e3, 1),
                      micro_num(us, 3)});
}

template <int SUM> static void run_variant(const char *id, const char *title) {
  micro_table t = micro_table_new(
      id, title,
      {"block", "blocks per SM", "blocks (G)", "launch us", "us per round"});
  const int blocks[] = {256, 512, 1024};
  for (int bi = 0; bi < 3; bi++) {
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, gridsync_kernel<SUM>,
                                                     blocks[bi], 0));
    const int per[] = {1, 2, 4, occ};
    for (int pi = 0; pi < 4; pi++) {
      if (per[pi] > occ || (pi == 3 && (occ == 1 || occ == 2 || occ == 4)))
        continue;
      shape_row<SUM>(t, blocks[bi], per[pi], occ);
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

static void run_sum(void) {
  run_variant<1>("sync_sum", "grid.sync() + every block sums 3 doubles of "
                             "each of the G blocks (the persistent CG's "
                             "reduction)");
  micro_note("A persistent CG iteration pays this once (single-barrier "
             "variant) or twice (two barriers), plus its SpMV and vector "
             "work.");
}

int main(int argc, char **argv) {
  return micro_main(argc, argv, "gridsync",
                    "grid barrier and all-blocks sum (persistent kernels)",
                    k_help, {run_sync, run_sum});
}
