/*
 * baseline.cu — the ceilings the SpMV tables quote.
 *
 * Question: how fast can this GPU move bytes (copy, read from L2, read from
 * DRAM) and how long does it take to launch nothing? SpMV on the small
 * SuiteSparse matrices is launch-bound and L2-resident; on large generated
 * matrices it is DRAM-bound; these numbers say where each ceiling is.
 *
 * Variants:
 *   A. Copy bandwidth, bytes read + written per second: cudaMemcpy D2D and a
 *      copy kernel (16-byte accesses, 4 in flight per thread, grid-stride),
 *      at 16 MiB (L2-resident), 256 MiB and 1 GiB.
 *   B. Read bandwidth: a sum of 16-byte loads over 8, 16 and 24 MiB (warm in
 *      L2), 16 MiB with the L2 flushed before each run, and 1 GiB (DRAM).
 *   C. Launch latency: an empty kernel launched and waited for (host clock),
 *      back-to-back launches (events, per launch), a one-kernel CUDA graph
 *      launched and waited for, and a 100-kernel graph (per kernel). The
 *      graph kernels each add 1 to a counter, which is checked.
 *   D. Summary: the ceilings in one table, with the seed's GT 920M copy
 *      figures (seed 004) beside ours.
 *
 * Command:
 *   smv micro baseline [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "Baselines: device copy bandwidth (cudaMemcpy D2D and a kernel), L2- and\n"
    "DRAM-resident read bandwidth, launch latency of an empty kernel and of a\n"
    "CUDA graph: the ceilings the SpMV tables quote.";

__global__ void fill(uint4 *d, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned v = micro_mix32((unsigned)i);
    d[i] = make_uint4(v, v ^ 1u, v ^ 2u, v ^ 3u);
  }
}

/* The copy kernel is micro_copy16_gs4 (common.h, shared with ilp): 16-byte
 * copy, grid-stride, 4 loads in flight per thread. */

/* Sum (xor of the four words, added up) of 16-byte loads, grid-stride, 4 in
 * flight; `reps` passes over the same n elements (so an L2-resident set is
 * read long enough to see the L2, not the launch); one result per thread. */
__global__ void read4(const uint4 *__restrict__ a, size_t n, int reps,
                      unsigned *__restrict__ out) {
  const size_t s = (size_t)gridDim.x * blockDim.x;
  const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (int r = 0; r < reps; r++) {
    /* each pass shifts the threads by a warp, so no pass repeats the one
     * before (and no compiler could fold the passes into one) */
    size_t i = (t + (size_t)r * 32) % s;
    for (; i + 3 * s < n; i += 4 * s) {
      uint4 r0 = a[i], r1 = a[i + s], r2 = a[i + 2 * s], r3 = a[i + 3 * s];
      acc += (r0.x ^ r0.y ^ r0.z ^ r0.w) + (r1.x ^ r1.y ^ r1.z ^ r1.w) +
             (r2.x ^ r2.y ^ r2.z ^ r2.w) + (r3.x ^ r3.y ^ r3.z ^ r3.w);
    }
    for (; i < n; i += s)
      acc += a[i].x ^ a[i].y ^ a[i].z ^ a[i].w;
  }
  out[t] = acc;
}

__global__ void empty_kernel(void) {}

__global__ void tick(unsigned long long *counter) {
  if (threadIdx.x == 0)
    atomicAdd(counter, 1ull);
}

/* The value read4 should find for thread t (host replay of the index
 * sequence; element i holds micro_mix32(i) ^ {0,1,2,3}). */
static unsigned want_sum(size_t t, size_t s, size_t n) {
  unsigned acc = 0;
  for (size_t i = t; i < n; i += s) {
    unsigned v = micro_mix32((unsigned)i);
    acc += v ^ (v ^ 1u) ^ (v ^ 2u) ^ (v ^ 3u);
  }
  return acc;
}

struct ceilings {
  double copy_memcpy, copy_kernel, read_l2, read_dram, launch_us, launch_b2b_us,
      graph_us, graph_node_us;
};

static void run_copy(ceilings &c, uint4 *a, uint4 *b, size_t nmax) {
  const int sms = g_dev.prop.multiProcessorCount;
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, micro_copy16_gs4<uint4>, 512, 0));
  const int grid = per_sm * sms;
  micro_table t = micro_table_new(
      "copy", "device copy bandwidth: GB/s (bytes read + written)",
      {"size MiB", "cudaMemcpy D2D", "copy kernel", "kernel/memcpy"});
  std::vector<uint4> ha(nmax), hb(nmax);
  CK(cudaMemcpy(ha.data(), a, nmax * 16, cudaMemcpyDeviceToHost));
  const size_t sizes[3] = {(size_t)16 << 20, (size_t)256 << 20,
                           (size_t)1 << 30};
  for (size_t bytes : sizes) {
    const size_t n = bytes / 16;
    double gb[2];
    for (int k = 0; k < 2; k++) {
      auto launch = [&] {
        if (k == 0)
          CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
        else
          micro_copy16_gs4<uint4><<<grid, 512>>>(a, b, n);
      };
      double ms = micro_time_ms(launch, 3, 15);
      gb[k] = 2.0 * bytes / (ms * 1e-3) / 1e9;
      CK(cudaMemset(b, 0xff, bytes));
      launch();
      CK_LAUNCH();
      CK(cudaMemcpy(hb.data(), b, bytes, cudaMemcpyDeviceToHost));
      micro_check(memcmp(ha.data(), hb.data(), bytes) == 0,
                  "%s of %zu MiB: copy differs", k ? "copy kernel" : "memcpy",
                  bytes >> 20);
    }
    if (bytes == ((size_t)1 << 30)) {
      c.copy_memcpy = gb[0];
      c.copy_kernel = gb[1];
    }
    micro_table_add(t, {micro_fmt("%zu", bytes >> 20), micro_num(gb[0], 0),
                        micro_num(gb[1], 0), micro_num(gb[1] / gb[0], 3)});
  }
  micro_table_print(t);
  micro_note("copy kernel: %d blocks of 512 (%d per SM), 16-byte accesses, 4 "
             "in flight per thread. 16 MiB: both arrays fit in the %.0f MiB "
             "L2.",
             grid, per_sm, g_dev.prop.l2CacheSize / 1048576.0);
}

static void run_read(ceilings &c, uint4 *a) {
  const int sms = g_dev.prop.multiProcessorCount;
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read4, 512, 0));
  const int grid = per_sm * sms;
  const size_t nt = (size_t)grid * 512;
  micro_dbuf<unsigned> out(nt);
  std::vector<unsigned> back(nt);
  micro_table t = micro_table_new(
      "read", "read bandwidth: L2-resident against DRAM-resident",
      {"working set", "L2 state", "passes", "ms", "GB/s", "of copy bw"});
  struct rcase {
    size_t bytes;
    int flush, reps;
    const char *label;
  } rc[] = {
      {(size_t)8 << 20, 0, 32, "warm"},    {(size_t)16 << 20, 0, 16, "warm"},
      {(size_t)24 << 20, 0, 12, "warm"},   {(size_t)16 << 20, 0, 1, "warm"},
      {(size_t)16 << 20, 1, 1, "flushed"}, {(size_t)1 << 30, 0, 1, "(DRAM)"}};
  for (auto &r : rc) {
    const size_t n = r.bytes / 16;
    auto launch = [&] { read4<<<grid, 512>>>(a, n, r.reps, out.p); };
    double ms;
    if (!r.flush) {
      ms = micro_time_ms(launch, 3, 20);
    } else {
      /* the flush is outside the timed interval */
      ms = micro_time_ms_after(
          launch, [] { micro_flush_l2(); }, 0, 20);
    }
    double gbps = (double)r.bytes * r.reps / (ms * 1e-3) / 1e9;
    micro_run_checked(launch, out, back.data());
    size_t bad = 0;
    for (size_t th = 0; th < nt; th++) {
      unsigned w = 0;
      for (int p = 0; p < r.reps; p++)
        w += want_sum((th + (size_t)p * 32) % nt, nt, n);
      bad += back[th] != w;
    }
    micro_check(bad == 0, "read %zu MiB x %d: %zu of %zu sums wrong",
                r.bytes >> 20, r.reps, bad, nt);
    if (r.bytes == ((size_t)16 << 20) && !r.flush && r.reps > 1)
      c.read_l2 = gbps;
    if (r.bytes == ((size_t)1 << 30))
      c.read_dram = gbps;
    micro_table_add(t,
                    {micro_fmt("%zu MiB", r.bytes >> 20), r.label,
                     micro_fmt("%d", r.reps), micro_num(ms, 4),
                     micro_num(gbps, 0), micro_num(gbps / c.copy_memcpy, 2)});
  }
  micro_table_print(t);
  micro_note("flushed: %.0f MiB written before each run (outside the timed "
             "interval), so the 16 MiB come from DRAM. One pass over 16 MiB "
             "takes ~10 us, mostly launch and ramp-up; several passes show "
             "the L2 itself.",
             2.0 * g_dev.prop.l2CacheSize / 1048576.0);
}

static void run_launch(ceilings &c) {
  micro_dbuf<unsigned long long> counter(1);
  counter.zero();
  unsigned long long expected = 0;
  empty_kernel<<<1, 32>>>();
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  std::vector<double> v;
  for (int i = 0; i < 2000; i++) {
    double t0 = micro_now_ms();
    empty_kernel<<<1, 32>>>();
    CK(cudaStreamSynchronize(0));
    v.push_back((micro_now_ms() - t0) * 1e3);
  }
  CK_LAUNCH();
  c.launch_us = micro_median(v);
  c.launch_b2b_us =
      micro_time_batch_ms([] { empty_kernel<<<1, 32>>>(); }, 10000) * 1e3;

  /* graphs, captured from a non-default stream */
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaGraph_t g1, g100;
  cudaGraphExec_t x1, x100;
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  tick<<<1, 32, 0, st>>>(counter.p);
  CK(cudaStreamEndCapture(st, &g1));
  CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
  for (int i = 0; i < 100; i++)
    tick<<<1, 32, 0, st>>>(counter.p);
  CK(cudaStreamEndCapture(st, &g100));
  CK_LAUNCH();
  CK(cudaGraphInstantiate(&x1, g1, 0));
  CK(cudaGraphInstantiate(&x100, g100, 0));
  CK(cudaGraphLaunch(x1, st));
  CK(cudaGraphLaunch(x100, st));
  CK(cudaStreamSynchronize(st));
  expected += 101;
  v.clear();
  for (int i = 0; i < 1000; i++) {
    double t0 = micro_now_ms();
    CK(cudaGraphLaunch(x1, st));
    CK(cudaStreamSynchronize(st));
    v.push_back((micro_now_ms() - t0) * 1e3);
  }
  expected += 1000;
  c.graph_us = micro_median(v);
  micro_events ev;
  v.clear();
  for (int i = 0; i < 50; i++) {
    ev.start(st);
    CK(cudaGraphLaunch(x100, st));
    v.push_back(ev.stop_ms(st) * 1e3 / 100);
  }
  expected += 50 * 100;
  c.graph_node_us = micro_median(v);
  unsigned long long got = 0;
  counter.download(&got);
  micro_check(got == expected, "graph kernels ran %llu times, want %llu", got,
              expected);
  CK(cudaGraphExecDestroy(x1));
  CK(cudaGraphExecDestroy(x100));
  CK(cudaGraphDestroy(g1));
  CK(cudaGraphDestroy(g100));
  CK(cudaStreamDestroy(st));
  micro_table t = micro_table_new(
      "launch", "launch latency (median, microseconds)", {"what", "us", "how"});
  micro_table_add(t, {"empty kernel, launch + sync", micro_num(c.launch_us, 2),
                      "host clock, 2000 runs"});
  micro_table_add(t,
                  {"empty kernel, back-to-back", micro_num(c.launch_b2b_us, 2),
                   "events around 10000 launches"});
  micro_table_add(t, {"graph of 1 kernel, launch + sync",
                      micro_num(c.graph_us, 2), "host clock, 1000 runs"});
  micro_table_add(t, {"graph of 100 kernels, per kernel",
                      micro_num(c.graph_node_us, 2), "events, 50 runs"});
  micro_table_print(t);
}

int main(int argc, char **argv) {
  micro_init(argc, argv, "baseline",
             "ceilings: copy and read bandwidth, launch latency", k_help, NULL);
  const size_t nmax = ((size_t)1 << 30) / 16;
  micro_dbuf<uint4> a(nmax), b(nmax);
  fill<<<g_dev.prop.multiProcessorCount * 8, 256>>>(a.p, nmax);
  CK_LAUNCH();
  CK(cudaDeviceSynchronize());
  ceilings c;
  memset(&c, 0, sizeof c);
  run_copy(c, a.p, b.p, nmax);
  run_read(c, a.p);
  run_launch(c);

  micro_table s =
      micro_table_new("ceilings", "the ceilings the SpMV tables quote",
                      {"ceiling", "ours", "seed (GT 920M)", "ratio"});
  const double peak = g_dev.peak_dram_gbps;
  micro_table_add(s, {"DRAM peak from clocks, GB/s", micro_num(peak, 0), "14.4",
                      micro_ratio(peak, 14.4)});
  micro_table_add(s, {"device copy (cudaMemcpy D2D 1 GiB), GB/s",
                      micro_num(c.copy_memcpy, 0), "12.9",
                      micro_ratio(c.copy_memcpy, 12.9)});
  micro_table_add(s, {"copy / peak", micro_num(c.copy_memcpy / peak, 3),
                      micro_num(12.9 / 14.4, 3),
                      micro_ratio(c.copy_memcpy / peak, 12.9 / 14.4)});
  micro_table_add(
      s, {"copy kernel 1 GiB, GB/s", micro_num(c.copy_kernel, 0), "-", "-"});
  micro_table_add(
      s, {"read, 16 MiB warm in L2, GB/s", micro_num(c.read_l2, 0), "-", "-"});
  micro_table_add(
      s, {"read, 1 GiB from DRAM, GB/s", micro_num(c.read_dram, 0), "-", "-"});
  micro_table_add(s,
                  {"launch + sync, us", micro_num(c.launch_us, 2), "-", "-"});
  micro_table_add(
      s, {"graph kernel node, us", micro_num(c.graph_node_us, 2), "-", "-"});
  micro_table_print(s);
  micro_note("seed 004 copied with its ILP kernel (12.9 GB/s at N = 16M on a "
             "GT 920M of 14.4 GB/s peak); ours is cudaMemcpy D2D.");
  return micro_finish();
}
