/*
 * readonly.cu — read-only, constant and global memory (seed 003).
 *
 * Question: the seed (GK110) says the read-only cache serves 4 threads per
 * pass with 32-byte lines, and the constant cache is best when a warp reads
 * one address. Which access patterns and working sets favour which path on
 * today's GPU, where L1 and the texture/read-only cache are one unit?
 *
 * Variants:
 *   A. Distinct addresses per warp: every lane of a warp reads one of D
 *      addresses (D = 1, 2, 4, 8, 16, 32; lane l reads address l mod D), with
 *      the D addresses 128 bytes apart (different lines) or 4 bytes apart
 *      (one line), and "scattered" (each lane a random word); a 32 KiB
 *      working set, read through __constant__ memory, plain global loads
 *      (ld.global) and the read-only path (__ldg, ld.global.nc). Time per
 *      warp-wide load, and the slowdown against D = 1 beside the seed's
 *      GK110 model (constant cache: D passes; read-only cache: always 8).
 *   B. Working set from 16 KiB (L1) to 2 GiB (DRAM): 16-byte loads,
 *      coalesced and scattered, global against read-only path, GB/s.
 *
 * Every thread sums what it read; the sums are checked on the host (a
 * sample of threads, replaying the exact index sequence). Command:
 *   smv micro readonly [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "Read-only, constant and global memory (seed 003): 1..32 distinct\n"
    "addresses per warp and scattered reads through __constant__, ld.global\n"
    "and __ldg; then working sets from 16 KiB to 2 GiB.";

/* ------------------------------------------------------------------------ */
/* A. Distinct addresses per warp                                           */
/* ------------------------------------------------------------------------ */

#define A_WORDS 8192 /* 32 KiB: fits the 64 KiB constant bank */
#define A_ITERS 512
__constant__ unsigned c_data[A_WORDS];

enum { PATH_CONST = 0, PATH_GLOBAL, PATH_LDG };
static const char *const k_path_name[] = {"constant", "global", "__ldg"};

/* Word that `lane` of warp `w` reads at iteration `it`, in a working set
 * of mask + 1 words (a power of two). d = distinct addresses per warp,
 * spread = words between them; d = 0: scattered. The base moves by whole
 * 128-byte lines so the pattern within a warp is the same at every
 * iteration. */
__host__ __device__ inline unsigned a_index(unsigned w, unsigned it,
                                            unsigned lane, int d, int spread,
                                            unsigned mask) {
  if (d == 0)
    return micro_mix32(w * 7919u + it * 104729u + lane) & mask;
  unsigned base = (w * 7u + it * 13u) * 32u;
  return (base + (lane % (unsigned)d) * (unsigned)spread) & mask;
}

__host__ __device__ inline unsigned a_value(unsigned i) {
  return micro_mix32(i ^ 0x9e3779b9u);
}

/* The same index as a_index, with the pattern fixed at compile time and
 * the lane's offset computed once: every path runs the same index code,
 * so the paths differ only in the load instruction (with a run-time
 * pattern, nvcc split the loop for ld.global but not for __ldg, which
 * then paid a division per load and was issue-bound). */
template <int PATH, int SCATTER>
__global__ void a_kernel(const unsigned *g_data, int d, int spread,
                         unsigned mask, unsigned *out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned w = t >> 5, lane = t & 31;
  const unsigned off = SCATTER ? 0u : (lane % (unsigned)d) * (unsigned)spread;
  unsigned acc = 0;
#pragma unroll 8
  for (unsigned it = 0; it < A_ITERS; it++) {
    unsigned i = SCATTER ? micro_mix32(w * 7919u + it * 104729u + lane) & mask
                         : ((w * 7u + it * 13u) * 32u + off) & mask;
    if (PATH == PATH_CONST)
      acc += c_data[i];
    else if (PATH == PATH_GLOBAL)
      acc += g_data[i];
    else
      acc += __ldg(g_data + i);
  }
  out[t] = acc;
}

template <int PATH>
static void a_launch(int grid, int block, const unsigned *g, int d, int spread,
                     unsigned mask, unsigned *out) {
  if (d == 0)
    a_kernel<PATH, 1><<<grid, block>>>(g, d, spread, mask, out);
  else
    a_kernel<PATH, 0><<<grid, block>>>(g, d, spread, mask, out);
}

static void run_distinct(void) {
  const int sms = g_dev.prop.multiProcessorCount;
  const int block = 256, grid = sms * 8;
  const unsigned threads = (unsigned)(grid * block);
  std::vector<unsigned> h(A_WORDS);
  for (unsigned i = 0; i < A_WORDS; i++)
    h[i] = a_value(i);
  CK(cudaMemcpyToSymbol(c_data, h.data(), sizeof(unsigned) * A_WORDS));
  micro_dbuf<unsigned> g(A_WORDS), out(threads);
  g.upload(h.data());
  std::vector<unsigned> back(threads);

  struct pattern {
    std::string name;
    int d, spread;
    unsigned words; /* working set */
  };
  std::vector<pattern> pats;
  /* 32 KiB: more than the constant caches close to the SM hold */
  for (int d = 1; d <= 32; d *= 2)
    pats.push_back({micro_fmt("32K: %d x 128 B apart", d), d, 32, A_WORDS});
  for (int d = 2; d <= 32; d *= 4)
    pats.push_back({micro_fmt("32K: %d x 4 B apart", d), d, 1, A_WORDS});
  pats.push_back({"32K: scattered", 0, 0, A_WORDS});
  /* 2 KiB: 16 lines of 128 B, small enough for any constant cache */
  for (int d = 1; d <= 16; d *= 2)
    pats.push_back({micro_fmt("2K: %d x 128 B apart", d), d, 32, 512});
  pats.push_back({"2K: 32 x 64 B apart", 32, 16, 512});
  pats.push_back({"2K: scattered", 0, 0, 512});

  micro_table t = micro_table_new(
      "distinct",
      "distinct addresses per warp, 32 KiB and 2 KiB working sets: ns per "
      "warp-wide load (SM average) and slowdown vs 1 address",
      {"pattern", "D", "set KiB", "const ns", "global ns", "ldg ns", "const x",
       "seed const x", "ratio", "ldg x", "seed ldg x", "ratio"});
  double base[3] = {0, 0, 0};
  for (const pattern &p : pats) {
    double ns[3];
    for (int path = 0; path < 3; path++) {
      auto launch = [&] {
        const unsigned m = p.words - 1;
        if (path == PATH_CONST)
          a_launch<PATH_CONST>(grid, block, g.p, p.d, p.spread, m, out.p);
        else if (path == PATH_GLOBAL)
          a_launch<PATH_GLOBAL>(grid, block, g.p, p.d, p.spread, m, out.p);
        else
          a_launch<PATH_LDG>(grid, block, g.p, p.d, p.spread, m, out.p);
      };
      double ms = micro_time_ms(launch, 2, 10);
      /* warp-wide loads per SM, time per load */
      double loads_per_sm = (double)threads / 32 * A_ITERS / sms;
      ns[path] = ms * 1e6 / loads_per_sm;
      micro_run_checked(launch, out, back.data());
      size_t bad = 0, checked = 0;
      for (unsigned th = 0; th < threads; th += 61, checked++) {
        unsigned acc = 0;
        for (unsigned it = 0; it < A_ITERS; it++)
          acc += h[a_index(th >> 5, it, th & 31, p.d, p.spread, p.words - 1)];
        bad += back[th] != acc;
      }
      micro_check(bad == 0, "%s via %s: %zu of %zu sampled sums wrong",
                  p.name.c_str(), k_path_name[path], bad, checked);
    }
    if (p.d == 1)
      for (int k = 0; k < 3; k++)
        base[k] = ns[k];
    /* The seed's GK110 model: the constant cache serves one address per
     * pass; the read-only cache serves 4 threads per pass, so a warp always
     * takes 8 passes (the same for any D). */
    double seed_const = p.d ? (double)p.d : 32.0;
    double seed_ldg = 1.0;
    double cx = ns[PATH_CONST] / base[PATH_CONST];
    double lx = ns[PATH_LDG] / base[PATH_LDG];
    micro_table_add(t,
                    {p.name, p.d ? micro_fmt("%d", p.d) : "scattered",
                     micro_fmt("%u", p.words * 4 / 1024), micro_num(ns[0], 3),
                     micro_num(ns[1], 3), micro_num(ns[2], 3), micro_num(cx, 2),
                     micro_num(seed_const, 0), micro_ratio(cx, seed_const),
                     micro_num(lx, 2), micro_num(seed_ldg, 0),
                     micro_ratio(lx, seed_ldg)});
  }
  micro_table_print(t);
  micro_note("x = time / time with 1 address per warp on the same path. Seed "
             "model (GK110): constant cache one address per pass (x D); "
             "read-only cache 4 lanes per pass, 8 passes for any D (x 1).");
}

/* ------------------------------------------------------------------------ */
/* B. Working set: L1 -> L2 -> DRAM                                          */
/* ------------------------------------------------------------------------ */

__host__ __device__ inline unsigned b_value(unsigned i) {
  return micro_mix32(i);
}

__global__ void b_fill(uint4 *d, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    unsigned v = b_value(i);
    d[i] = make_uint4(v, v + 1, v + 2, v + 3);
  }
}

/* Element that thread `tid` of block `blk` (of `nblk` blocks of `bdim`)
 * reads at step `it` in a set of mask + 1 elements. Coalesced: every block
 * streams through the whole set from its own starting point, so each SM
 * touches all of it (a set larger than L1 cannot stay in L1). Scattered:
 * a random element for every lane and step. */
__host__ __device__ inline unsigned b_index(int scatter, unsigned blk,
                                            unsigned tid, unsigned it,
                                            unsigned nblk, unsigned bdim,
                                            unsigned mask) {
  if (scatter)
    return micro_mix32((blk * bdim + tid) * 0x9e3779b9u + it) & mask;
  unsigned start = (unsigned)(((unsigned long long)(mask + 1ull) * blk) / nblk);
  return (start + it * bdim + tid) & mask;
}

/* b_index with the pattern fixed at compile time and the block's start
 * computed once (same reason as a_kernel). */
template <int LDG, int SCATTER>
__global__ void b_kernel(const uint4 *data, unsigned mask, unsigned iters,
                         unsigned *out) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned start =
      (unsigned)(((unsigned long long)(mask + 1ull) * blockIdx.x) / gridDim.x);
  unsigned acc = 0;
#pragma unroll 4
  for (unsigned it = 0; it < iters; it++) {
    unsigned i = SCATTER ? micro_mix32(t * 0x9e3779b9u + it) & mask
                         : (start + it * blockDim.x + threadIdx.x) & mask;
    uint4 v = LDG ? __ldg(data + i) : data[i];
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  out[t] = acc;
}

static void run_working_set(void) {
  const int sms = g_dev.prop.multiProcessorCount;
  const int block = 512, grid = sms * 4; /* 2048 threads per SM */
  const unsigned nt = (unsigned)(grid * block);
  const size_t max_bytes = (size_t)2 << 30;
  const size_t free_needed = max_bytes + ((size_t)256 << 20);
  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  size_t top = max_bytes;
  while (top > ((size_t)64 << 20) && top + ((size_t)256 << 20) > free_b)
    top /= 2;
  if (top < max_bytes)
    micro_note("only %zu MiB free of %zu needed: working sets stop at %zu MiB",
               free_b >> 20, free_needed >> 20, top >> 20);
  micro_dbuf<uint4> data(top / 16);
  micro_dbuf<unsigned> out(nt);
  b_fill<<<sms * 8, 256>>>(data.p, (unsigned)(top / 16));
  CK_LAUNCH();
  /* no shared memory: ask for all of it as L1 (a hint) */
  CK(cudaFuncSetAttribute(b_kernel<0, 0>,
                          cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(b_kernel<1, 0>,
                          cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(b_kernel<0, 1>,
                          cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(b_kernel<1, 1>,
                          cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  std::vector<unsigned> back(nt);
  micro_table t = micro_table_new(
      "workingset", "working set from L1 to DRAM: GB/s of 16-byte loads",
      {"working set KiB", "level", "global coalesced", "ldg coalesced",
       "global scattered", "ldg scattered"});
  const size_t l2 = (size_t)g_dev.prop.l2CacheSize;
  for (size_t ws = 16 << 10; ws <= top; ws *= 2) {
    const unsigned n = (unsigned)(ws / 16), mask = n - 1;
    /* at least 1 GiB read per launch, and the whole set at least once */
    size_t total = std::max(ws, (size_t)1 << 30);
    unsigned iters = (unsigned)((total / 16 + nt - 1) / nt);
    /* L1 holds up to 256 KiB per SM with no shared memory in use; the L2
     * is two halves, and lines may live in both */
    const char *level = ws <= ((size_t)128 << 10)   ? "L1"
                        : ws <= ((size_t)256 << 10) ? "L1/L2"
                        : ws <= l2 / 2              ? "L2"
                        : ws <= 2 * l2              ? "L2/DRAM"
                                                    : "DRAM";
    std::vector<std::string> row = {micro_fmt("%zu", ws >> 10), level};
    for (int scatter = 0; scatter < 2; scatter++)
      for (int ldg = 0; ldg < 2; ldg++) {
        auto launch = [&] {
          if (ldg && scatter)
            b_kernel<1, 1><<<grid, block>>>(data.p, mask, iters, out.p);
          else if (ldg)
            b_kernel<1, 0><<<grid, block>>>(data.p, mask, iters, out.p);
          else if (scatter)
            b_kernel<0, 1><<<grid, block>>>(data.p, mask, iters, out.p);
          else
            b_kernel<0, 0><<<grid, block>>>(data.p, mask, iters, out.p);
        };
        double ms = micro_time_ms(launch, 2, 7);
        double gbps = (double)nt * iters * 16 / (ms * 1e-3) / 1e9;
        micro_run_checked(launch, out, back.data());
        size_t bad = 0, checked = 0;
        for (unsigned th = 0; th < nt; th += 1009, checked++) {
          unsigned acc = 0;
          for (unsigned it = 0; it < iters; it++) {
            unsigned v = b_value(b_index(scatter, th / block, th % block, it,
                                         (unsigned)grid, block, mask));
            acc += v ^ (v + 1) ^ (v + 2) ^ (v + 3);
          }
          bad += back[th] != acc;
        }
        micro_check(bad == 0, "working set %zu KiB %s %s: %zu of %zu wrong",
                    ws >> 10, ldg ? "ldg" : "global",
                    scatter ? "scattered" : "coalesced", bad, checked);
        row.push_back(micro_num(gbps, 0));
      }
    /* columns: global coalesced, ldg coalesced, global scattered, ldg
     * scattered (the loop above runs ldg fastest) */
    micro_table_add(t, row);
  }
  micro_table_print(t);
  micro_note("%u threads (%u per SM), each reading 16 B per step; at least "
             "1 GiB read per launch; coalesced: each block streams through "
             "the whole set. Scattered: every lane a random 16 B (half of "
             "each 32 B sector is wasted). L2 = %.0f MiB.",
             nt, nt / sms, l2 / 1048576.0);
}

int main(int argc, char **argv) {
  return micro_main(argc, argv, "readonly",
                    "read-only, constant and global memory (seed 003)", k_help,
                    {run_distinct, run_working_set});
}
