/*
 * ilp.cu — instruction-level parallelism and bandwidth (seed 004).
 *
 * Question: the seed's copy kernel (each thread copies ILP ints, blockDim
 * * ILP = 512) reached 12.9 GB/s of a GT 920M's 14.4 at N = 16M and showed
 * no effect of ILP 1..16. Where does it land today against the measured
 * device copy bandwidth, and what does it take to reach that bandwidth?
 *
 * Variants:
 *   A. The seed's kernel verbatim, N = 2^9 .. 2^28 ints, ILP = 1, 2, 4, 8,
 *      16, 100 launches each timed with events around launch and
 *      synchronisation (the seed's DEBUG build), bandwidth
 *      2 * 4 * N * 100 / total time; the seed's 22 data points beside ours.
 *   B. At N = 2^28 (1 GiB per array): the seed's kernel against 16-byte
 *      accesses (int4), int4 with 2, 4 and 8 loads in flight per thread, a
 *      grid-stride int4 loop sized to the GPU, and cudaMemcpy D2D (the
 *      device copy bandwidth, the ceiling). Beside each, the bytes in flight
 *      per SM that occupancy allows (Little's law: bandwidth = bytes in
 *      flight / latency).
 *
 * Every copy is checked element by element on the host after a poisoned
 * run. Command:
 *   smv micro ilp [--csv DIR]       (scripts/plot-micro.sh draws the curve)
 */
#include "common.h"

static const char *const k_help =
    "ILP and bandwidth (seed 004): the seed's copy kernel for N = 2^9..2^28\n"
    "and ILP 1..16 against the device copy bandwidth, then 16-byte accesses\n"
    "and loads in flight until the copy bandwidth is reached.";

/* The seed's kernel, verbatim (its early return is per thread: with N a
 * multiple of 512 every element is copied). */
__global__ void ILPKernel(const int *__restrict__ d_a, int *__restrict__ d_b,
                          const int ILP, const int N) {
  const int tid = threadIdx.x + blockIdx.x * blockDim.x * ILP;
  if (tid >= N)
    return;
  for (int j = 0; j < ILP; j++)
    d_b[tid + j * blockDim.x] = d_a[tid + j * blockDim.x];
}

/* 16-byte copy, U loads issued before the first store (U in flight). */
template <int U>
__global__ void copy_v4(const int4 *__restrict__ a, int4 *__restrict__ b,
                        size_t n4) {
  const size_t i0 = (size_t)blockIdx.x * blockDim.x * U + threadIdx.x;
  int4 r[U];
#pragma unroll
  for (int j = 0; j < U; j++) {
    size_t i = i0 + (size_t)j * blockDim.x;
    if (i < n4)
      r[j] = a[i];
  }
#pragma unroll
  for (int j = 0; j < U; j++) {
    size_t i = i0 + (size_t)j * blockDim.x;
    if (i < n4)
      b[i] = r[j];
  }
}

/* The grid-stride 16-byte copy with 4 loads in flight, grid sized to the
 * GPU, is micro_copy16_gs4<int4> (common.h: baseline's copy kernel too). */

static int verify_copy(const int *dev_b, const std::vector<int> &ha, size_t n,
                       std::vector<int> &scratch, const char *what) {
  CK(cudaMemcpy(scratch.data(), dev_b, n * sizeof(int),
                cudaMemcpyDeviceToHost));
  size_t bad = 0;
  for (size_t i = 0; i < n; i++)
    bad += scratch[i] != ha[i];
  return micro_check(bad == 0, "%s: %zu of %zu elements wrong", what, bad, n);
}

/* The seed's timing: 100 launches, each between two events with a
 * synchronisation, times added up. Returns the total in ms. */
template <class F> static double seed_total_ms(F launch, int iters) {
  micro_events ev;
  launch(); /* warm-up (the seed had none; module load stays out) */
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  double total = 0;
  for (int i = 0; i < iters; i++) {
    ev.start();
    launch();
    CK(cudaPeekAtLastError());
    CK(cudaDeviceSynchronize());
    total += ev.stop_ms();
  }
  return total;
}

/* The seed's published numbers (GT 920M, GB/s): N, ILP, bandwidth. */
static const struct {
  int n, ilp;
  double gbps;
} k_seed[] = {{512, 1, 0.092},     {1024, 1, 0.15},     {2048, 1, 0.37},
              {2048, 2, 0.36},     {2048, 4, 0.35},     {2048, 8, 0.26},
              {2048, 16, 0.31},    {4096, 1, 0.53},     {4096, 2, 0.61},
              {4096, 4, 0.74},     {4096, 8, 0.74},     {4096, 16, 0.56},
              {8192, 1, 1.4},      {8192, 2, 1.1},      {8192, 4, 1.5},
              {8192, 8, 1.4},      {8192, 16, 1.3},     {16777216, 1, 12.9},
              {16777216, 2, 12.8}, {16777216, 4, 12.8}, {16777216, 8, 12.7},
              {16777216, 16, 12.6}};

static double device_copy_gbps(int *a, int *b, size_t n) {
  auto launch = [&] {
    CK(cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice));
  };
  double ms = micro_time_ms(launch, 2, 10);
  return 2.0 * n * sizeof(int) / (ms * 1e-3) / 1e9;
}

int main(int argc, char **argv) {
  micro_init(argc, argv, "ilp", "ILP and bandwidth (seed 004)", k_help, NULL);
  const int log_max = 28, iters = 100;
  const size_t nmax = (size_t)1 << log_max;
  std::vector<int> ha(nmax), scratch(nmax);
  micro_rng rng = {micro_fresh_seed()};
  for (size_t i = 0; i < nmax; i++)
    ha[i] = (int)(micro_rand(&rng) & 0x3fffffff); /* never the poison -1 */
  micro_dbuf<int> da(nmax), db(nmax);
  da.upload(ha.data());
  const double copy_bw = device_copy_gbps(da.p, db.p, nmax);

  /* A. the seed's sweep */
  const int ilps[5] = {1, 2, 4, 8, 16};
  micro_table sweep = micro_table_new(
      "sweep", "seed kernel: GB/s (2*4*N*100 / time, each launch synchronised)",
      {"N", "ILP1", "ILP2", "ILP4", "ILP8", "ILP16", "copy GB/s"});
  double got[log_max + 1][5];
  for (int lg = 9; lg <= log_max; lg++) {
    const int n = 1 << lg;
    std::vector<std::string> row = {micro_fmt("%d", n)};
    for (int k = 0; k < 5; k++) {
      const int ilp = ilps[k], bs = 512 / ilp;
      const int grid = (n / ilp + bs - 1) / bs;
      auto launch = [&] { ILPKernel<<<grid, bs>>>(da.p, db.p, ilp, n); };
      double total = seed_total_ms(launch, iters);
      got[lg][k] = 2.0 * 4.0 * n * iters / (1e6 * total);
      db.poison();
      launch();
      CK_LAUNCH();
      verify_copy(db.p, ha, (size_t)n, scratch,
                  micro_fmt("seed kernel N=%d ILP=%d", n, ilp).c_str());
      row.push_back(micro_num(got[lg][k], 3));
    }
    row.push_back(micro_num(copy_bw, 0));
    micro_table_add(sweep, row);
  }
  micro_table_print(sweep);

  micro_table seed =
      micro_table_new("seed", "the seed's data points (GT 920M) beside ours",
                      {"N", "ILP", "ours GB/s", "seed GB/s", "ratio",
                       "ours/copy", "seed/peak"});
  for (auto &s : k_seed) {
    int lg = 0;
    while ((1 << lg) < s.n)
      lg++;
    int k = 0;
    while (ilps[k] != s.ilp)
      k++;
    micro_table_add(seed, {micro_fmt("%d", s.n), micro_fmt("%d", s.ilp),
                           micro_num(got[lg][k], 3), micro_num(s.gbps, 3),
                           micro_ratio(got[lg][k], s.gbps),
                           micro_num(got[lg][k] / copy_bw, 3),
                           micro_num(s.gbps / 14.4, 3)});
  }
  micro_table_print(seed);
  micro_note("copy = cudaMemcpy D2D of 1 GiB on this device: %.0f GB/s "
             "(read + write). Seed peak: GT 920M datasheet 14.4 GB/s.",
             copy_bw);

  /* B. what reaches the copy bandwidth at N = 2^28 */
  const size_t n = nmax, n4 = n / 4;
  const int sms = g_dev.prop.multiProcessorCount;
  micro_table fix = micro_table_new(
      "fix", "N = 2^28 ints (1 GiB per array): reaching the copy bandwidth",
      {"kernel", "bytes/thread in flight", "KiB in flight/SM", "ms", "GB/s",
       "of copy"});
  struct fcase {
    const char *name;
    int kind, u, block;
  } fc[] = {{"seed ILP=1 (int)", 0, 1, 512},
            {"seed ILP=16 (int)", 0, 16, 32},
            {"int4, 1 per thread", 1, 1, 256},
            {"int4, 2 in flight", 1, 2, 256},
            {"int4, 4 in flight", 1, 4, 256},
            {"int4, 8 in flight", 1, 8, 256},
            {"int4 grid-stride, 4 in flight", 2, 4, 512},
            {"cudaMemcpy D2D", 3, 0, 0}};
  for (auto &c : fc) {
    int grid = 0, per_sm = 0;
    const void *fn = NULL;
    int bytes = 0;
    switch (c.kind) {
    case 0:
      grid = (int)((n / c.u + c.block - 1) / c.block);
      fn = (const void *)ILPKernel;
      /* run-time trip count: nvcc unrolls it by 4 with each load next to
       * its store, so how many loads fly at once is up to ptxas: "-" */
      bytes = 0;
      break;
    case 1:
      grid = (int)((n4 + (size_t)c.block * c.u - 1) / ((size_t)c.block * c.u));
      fn = c.u == 1   ? (const void *)copy_v4<1>
           : c.u == 2 ? (const void *)copy_v4<2>
           : c.u == 4 ? (const void *)copy_v4<4>
                      : (const void *)copy_v4<8>;
      bytes = 16 * c.u;
      break;
    case 2:
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &per_sm, micro_copy16_gs4<int4>, c.block, 0));
      grid = per_sm * sms;
      fn = (const void *)micro_copy16_gs4<int4>;
      bytes = 64;
      break;
    default:
      break;
    }
    if (fn && c.kind != 2)
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, c.block,
                                                       0));
    auto launch = [&] {
      switch (c.kind) {
      case 0:
        ILPKernel<<<grid, c.block>>>(da.p, db.p, c.u, (int)n);
        break;
      case 1:
        if (c.u == 1)
          copy_v4<1><<<grid, c.block>>>((const int4 *)da.p, (int4 *)db.p, n4);
        else if (c.u == 2)
          copy_v4<2><<<grid, c.block>>>((const int4 *)da.p, (int4 *)db.p, n4);
        else if (c.u == 4)
          copy_v4<4><<<grid, c.block>>>((const int4 *)da.p, (int4 *)db.p, n4);
        else
          copy_v4<8><<<grid, c.block>>>((const int4 *)da.p, (int4 *)db.p, n4);
        break;
      case 2:
        micro_copy16_gs4<int4>
            <<<grid, c.block>>>((const int4 *)da.p, (int4 *)db.p, n4);
        break;
      default:
        CK(cudaMemcpyAsync(db.p, da.p, n * sizeof(int),
                           cudaMemcpyDeviceToDevice));
      }
    };
    double ms = micro_time_ms(launch, 2, 10);
    double gbps = 2.0 * n * sizeof(int) / (ms * 1e-3) / 1e9;
    db.poison();
    launch();
    CK_LAUNCH();
    verify_copy(db.p, ha, n, scratch, c.name);
    std::string inflight =
        bytes ? micro_num((double)per_sm * c.block * bytes / 1024.0, 0) : "-";
    micro_table_add(fix, {c.name, bytes ? micro_fmt("%d", bytes) : "-",
                          inflight, micro_num(ms, 3), micro_num(gbps, 0),
                          micro_num(gbps / copy_bw, 2)});
  }
  micro_table_print(fix);
  micro_note("KiB in flight/SM = resident threads x bytes each thread has "
             "loaded before its first store. Little's law: ~%.0f GB/s of "
             "reads x 600-800 ns (unloaded DRAM latency; it grows under "
             "load) = %.0f-%.0f KiB in flight per SM at the least.",
             copy_bw / 2, copy_bw / 2 * 600e-9 * 1e9 / sms / 1024,
             copy_bw / 2 * 800e-9 * 1e9 / sms / 1024);
  return micro_finish();
}
