/*
 * bank.cu — shared-memory bank conflicts (seed 001, 2008).
 *
 * Question: what does a bank conflict cost today, and what fixes it?
 *
 * Variants:
 *   A. The seed's two kernels at the seed's size: 16x16 threads, 256 blocks,
 *      256 floats per block through shared memory, out = 2 * in, 100 runs;
 *      linear addressing (tid = x + 16y) against transposed (tid = y + 16x).
 *      The seed saw 0.0629 ms against 0.249 ms on a G80-class GPU. We add
 *      the two mixed kernels (transposed only in shared memory, transposed
 *      only in global memory) to show which half of the seed's 4x was the
 *      bank conflict, and the same four kernels on 65536 blocks.
 *   B. Stride sweep: one block of 32 warps, each lane reads word
 *      lane*stride + 32k (k = 0..31, repeated) for stride 0..32, with 4-byte
 *      and 8-byte words. clock64() inside the kernel gives SM cycles per
 *      warp-wide access; beside it the model (the most distinct 32-bit words
 *      any one of the 32 banks must deliver) and the event time.
 *   C. The fixes for the classic conflict (a warp reading a column of a
 *      32x32 tile): naive tile[32][32], padded tile[32][33], XOR swizzle
 *      tile[r][c ^ r]; cycles per access, and the time of a full matrix
 *      transpose (8192 x 8192 floats) through each tile.
 *
 * Every kernel's output is checked on the host. Command:
 *   smv micro bank [--csv DIR]      (or build/micro/bank)
 */
#include "common.h"

static const char *const k_help =
    "Shared-memory bank conflicts (seed 001): the seed's kernels, a stride\n"
    "sweep 0..32 for 4- and 8-byte words with clock64() cycles per access,\n"
    "and padding / XOR-swizzle fixes with a full matrix transpose.";

/* ------------------------------------------------------------------------ */
/* A. The seed's kernels                                                     */
/* ------------------------------------------------------------------------ */

/* 256 floats per block (1 KiB of shared memory), blockDim 16x16. `lin` is
 * the seed's SharedTestKernel1 index, `tr` its SharedTestKernel2 index. The
 * template flags say which index each memory uses: <0,0> is the seed's
 * kernel 1, <1,1> its kernel 2. Either way thread t doubles one element and
 * out = 2 * in. */
template <int GLOBAL_TR, int SMEM_TR>
__global__ void seed_kernel(const float *in, float *out) {
  extern __shared__ float sdata[];
  const unsigned base = blockIdx.x * 256u;
  const unsigned lin = threadIdx.x + threadIdx.y * blockDim.x;
  const unsigned tr = threadIdx.y + threadIdx.x * blockDim.y;
  const unsigned g = GLOBAL_TR ? tr : lin;
  const unsigned s = SMEM_TR ? tr : lin;
  sdata[s] = in[g + base];
  __syncthreads();
  sdata[s] = 2.0f * sdata[s];
  __syncthreads();
  out[g + base] = sdata[s];
}

typedef void (*seed_fn)(const float *, float *);

struct seed_case {
  const char *name, *global, *smem;
  seed_fn fn;
  double seed_ms; /* the seed's figure, NAN where it has none */
};

static void run_seed(void) {
  const seed_case cases[] = {
      {"kernel 1 (seed)", "linear", "linear", seed_kernel<0, 0>, 0.0629},
      {"kernel 2 (seed)", "transposed", "transposed", seed_kernel<1, 1>, 0.249},
      {"smem only", "linear", "transposed", seed_kernel<0, 1>, NAN},
      {"global only", "transposed", "linear", seed_kernel<1, 0>, NAN},
  };
  const int ncase = 4;
  const int sizes[2] = {256, 65536}; /* blocks: the seed's, and 64 MiB */
  micro_table t = micro_table_new(
      "seed", "seed 001 kernels: 16x16 threads, out = 2*in through smem",
      {"kernel", "global", "smem", "blocks", "host mean ms", "event med ms",
       "GB/s", "seed ms", "ratio"});
  double ev[2][4];
  micro_rng rng = {micro_fresh_seed()};
  for (int si = 0; si < 2; si++) {
    const size_t n = (size_t)sizes[si] * 256;
    std::vector<float> h(n), back(n);
    for (size_t i = 0; i < n; i++)
      h[i] = (float)(micro_rand(&rng) % 100000) * 0.25f; /* exact * 2 */
    micro_dbuf<float> din(n), dout(n);
    din.upload(h.data());
    for (int c = 0; c < ncase; c++) {
      dim3 grid(sizes[si]), block(16, 16);
      auto launch = [&] {
        cases[c].fn<<<grid, block, 256 * sizeof(float)>>>(din.p, dout.p);
      };
      /* The seed's method: host timer around launch + synchronise, the
       * mean of 100 runs (so launch latency is inside the number). */
      launch();
      CK_LAUNCH();
      CK(cudaDeviceSynchronize());
      double host = 0;
      for (int r = 0; r < 100; r++) {
        double t0 = micro_now_ms();
        launch();
        CK(cudaDeviceSynchronize());
        host += micro_now_ms() - t0;
      }
      host /= 100;
      double med = micro_time_ms(launch, 5, 100);
      ev[si][c] = med;
      micro_run_checked(launch, dout, back.data());
      size_t bad = 0;
      for (size_t i = 0; i < n; i++)
        bad += back[i] != 2.0f * h[i];
      micro_check(bad == 0, "seed %s, %d blocks: %zu of %zu wrong",
                  cases[c].name, sizes[si], bad, n);
      double gbps = 2.0 * n * sizeof(float) / (med * 1e-3) / 1e9;
      double seed = si == 0 ? cases[c].seed_ms : NAN;
      micro_table_add(t, {cases[c].name, cases[c].global, cases[c].smem,
                          micro_fmt("%d", sizes[si]), micro_num(host, 4),
                          micro_num(med, 4), micro_num(gbps, 1),
                          micro_num(seed, 4), micro_ratio(host, seed)});
    }
  }
  micro_table_print(t);
  micro_note("ratio = our host mean / seed (the seed timed launch + sync on "
             "the host).");
  micro_note("conflict penalty kernel2/kernel1: seed %.2fx; ours %.2fx at 256 "
             "blocks, %.2fx at 65536 blocks (event medians)",
             0.249 / 0.0629, ev[0][1] / ev[0][0], ev[1][1] / ev[1][0]);
  micro_note("at 65536 blocks: shared-memory transpose alone costs %.2fx, "
             "global transpose alone %.2fx",
             ev[1][2] / ev[1][0], ev[1][3] / ev[1][0]);
  micro_note("bank model for kernel 2 on sm_90: a warp (16x2 threads) hits 4 "
             "banks, 8 words each = 8-way; on the seed's G80 a half-warp hit "
             "one of 16 banks = 16-way.");
}

/* ------------------------------------------------------------------------ */
/* B and C. Cycles per warp-wide shared-memory access                        */
/* ------------------------------------------------------------------------ */

enum { PAT_STRIDE = 0, PAT_COL_NAIVE, PAT_COL_PAD, PAT_COL_SWIZZLE };

/* Element index that `lane` reads at step k (k = 0..31). Shared by the
 * kernel and the host model, so the model describes exactly what ran.
 * PAT_STRIDE: lane*stride + 32k (adding 32 words keeps every bank).
 * Column reads of a 32-wide tile, column k, row = lane:
 *   naive [32][32]: lane*32 + k; padded [32][33]: lane*33 + k;
 *   swizzled [32][32] with column c stored at c ^ row: lane*32 + (k^lane). */
__host__ __device__ inline int pat_index(int pat, int stride, int lane, int k) {
  switch (pat) {
  case PAT_STRIDE:
    return lane * stride + 32 * k;
  case PAT_COL_NAIVE:
    return lane * 32 + k;
  case PAT_COL_PAD:
    return lane * 33 + k;
  default:
    return lane * 32 + (k ^ lane);
  }
}

#define PAT_SLOTS 2048 /* elements: enough for stride 32 (31*32 + 31*32) */
#define PAT_WARPS 32   /* one block of 1024 threads on one SM */

/* Model: the most distinct 32-bit words that any of the 32 banks must
 * deliver for the warp's access at step k = the number of shared-memory
 * wavefronts (1 is conflict-free for 4-byte words, 2 for 8-byte). */
static int pat_model(int pat, int stride, int word_bytes, int k) {
  std::vector<long> words;
  for (int lane = 0; lane < 32; lane++) {
    long w0 = (long)pat_index(pat, stride, lane, k) * (word_bytes / 4);
    for (int j = 0; j < word_bytes / 4; j++)
      words.push_back(w0 + j);
  }
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  int per_bank[32] = {0};
  int worst = 0;
  for (long w : words)
    worst = std::max(worst, ++per_bank[w % 32]);
  return worst;
}

/* Each warp reads its pattern `outer` x 32 times through a volatile
 * pointer (every load is issued; none can be hoisted or merged) and sums
 * what it read; the sum is checked on the host. clock64() before and after
 * the loop, per warp. */
template <typename T>
__global__ void pat_kernel(int pat, int stride, int outer, T *__restrict__ sums,
                           long long *__restrict__ clk) {
  __shared__ T s[PAT_SLOTS];
  for (int i = threadIdx.x; i < PAT_SLOTS; i += blockDim.x)
    s[i] = (T)(3u * (unsigned)i + 1u);
  __syncthreads();
  const volatile T *vs = s;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int idx[32];
#pragma unroll
  for (int k = 0; k < 32; k++)
    idx[k] = pat_index(pat, stride, lane, k);
  T acc = 0;
  long long t0 = clock64();
  for (int o = 0; o < outer; o++) {
#pragma unroll
    for (int k = 0; k < 32; k++)
      acc += vs[idx[k]];
  }
  long long t1 = clock64();
  sums[threadIdx.x] = acc;
  if (lane == 0) {
    clk[2 * warp] = t0;
    clk[2 * warp + 1] = t1;
  }
}

struct pat_result {
  double cycles; /* SM cycles per warp-wide access */
  double ms;     /* event time of the launch */
  double ns;     /* ns per warp-wide access on the one SM */
};

template <typename T> static pat_result run_pat(int pat, int stride) {
  const int outer = 64, threads = PAT_WARPS * 32;
  micro_dbuf<T> sums(threads);
  micro_dbuf<long long> clk(2 * PAT_WARPS);
  auto launch = [&] {
    pat_kernel<T><<<1, threads>>>(pat, stride, outer, sums.p, clk.p);
  };
  pat_result r;
  r.ms = micro_time_ms(launch, 1, 5);
  std::vector<double> cyc;
  std::vector<T> h(threads);
  std::vector<long long> c(2 * PAT_WARPS);
  for (int rep = 0; rep < 3; rep++) {
    micro_run_checked(launch, sums, h.data());
    clk.download(c.data());
    long long lo = c[0], hi = c[1];
    for (int w = 0; w < PAT_WARPS; w++) {
      lo = std::min(lo, c[2 * w]);
      hi = std::max(hi, c[2 * w + 1]);
    }
    cyc.push_back((double)(hi - lo) / ((double)PAT_WARPS * outer * 32));
  }
  size_t bad = 0;
  for (int t = 0; t < threads; t++) {
    T want = 0;
    for (int k = 0; k < 32; k++)
      want += (T)(3u * (unsigned)pat_index(pat, stride, t & 31, k) + 1u);
    want = (T)(want * (T)outer);
    bad += h[t] != want;
  }
  micro_check(bad == 0, "pattern %d stride %d (%zu-byte): %zu wrong sums", pat,
              stride, sizeof(T), bad);
  r.cycles = micro_median(cyc);
  r.ns = r.ms * 1e6 / ((double)PAT_WARPS * outer * 32);
  return r;
}

static void run_sweep(void) {
  micro_table t = micro_table_new(
      "stride", "stride sweep: lane reads word lane*stride (+32k), 32 warps",
      {"stride", "model 4B", "cycles 4B", "ns 4B", "model 8B", "cycles 8B",
       "ns 8B"});
  for (int s = 0; s <= 32; s++) {
    pat_result a = run_pat<unsigned>(PAT_STRIDE, s);
    pat_result b = run_pat<unsigned long long>(PAT_STRIDE, s);
    micro_table_add(t, {micro_fmt("%d", s),
                        micro_fmt("%d", pat_model(PAT_STRIDE, s, 4, 0)),
                        micro_num(a.cycles, 2), micro_num(a.ns, 3),
                        micro_fmt("%d", pat_model(PAT_STRIDE, s, 8, 0)),
                        micro_num(b.cycles, 2), micro_num(b.ns, 3)});
  }
  micro_table_print(t);
  micro_note("model = wavefronts: the most distinct 32-bit words one bank "
             "serves; cycles = clock64() per warp-wide access (SM total / "
             "accesses); stride 0 is a broadcast.");
}

/* ------------------------------------------------------------------------ */
/* C. Fixes: column access of a 32x32 tile, and a full transpose             */
/* ------------------------------------------------------------------------ */

#define TILE 32
#define TROWS 8 /* block 32x8: each thread moves 4 elements */

/* out[c][r] = in[r][c] for an n x n matrix (n a multiple of 32). The tile is
 * read by columns; PAT selects naive, padded or swizzled storage. */
template <int PAT>
__global__ void transpose_kernel(const float *__restrict__ in,
                                 float *__restrict__ out, int n) {
  __shared__ float tile[TILE][TILE + (PAT == PAT_COL_PAD ? 1 : 0)];
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  const int x = threadIdx.x;
  for (int j = threadIdx.y; j < TILE; j += TROWS) {
    int col = PAT == PAT_COL_SWIZZLE ? (x ^ j) : x;
    tile[j][col] = in[(size_t)(by + j) * n + bx + x];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += TROWS) {
    /* out row (bx + j), column (by + x) = in[by + x][bx + j] = tile[x][j] */
    int col = PAT == PAT_COL_SWIZZLE ? (j ^ x) : j;
    out[(size_t)(bx + j) * n + by + x] = tile[x][col];
  }
}

static void run_fixes(void) {
  micro_table t = micro_table_new(
      "fixes", "column read of a 32x32 tile: naive, padded, XOR swizzle",
      {"tile", "model 4B", "cycles 4B", "model 8B", "cycles 8B", "transpose ms",
       "GB/s"});
  const int n = 8192;
  const size_t nn = (size_t)n * n;
  std::vector<float> h(nn), back(nn);
  micro_rng rng = {micro_fresh_seed()};
  for (size_t i = 0; i < nn; i++)
    h[i] = (float)(micro_rand(&rng) & 0xffffff);
  micro_dbuf<float> din(nn), dout(nn);
  din.upload(h.data());
  struct {
    const char *name;
    int pat;
    void (*fn)(const float *, float *, int);
  } cases[] = {
      {"naive [32][32]", PAT_COL_NAIVE, transpose_kernel<PAT_COL_NAIVE>},
      {"padded [32][33]", PAT_COL_PAD, transpose_kernel<PAT_COL_PAD>},
      {"swizzled c^r", PAT_COL_SWIZZLE, transpose_kernel<PAT_COL_SWIZZLE>}};
  for (auto &c : cases) {
    pat_result a = run_pat<unsigned>(c.pat, 0);
    pat_result b = run_pat<unsigned long long>(c.pat, 0);
    dim3 grid(n / TILE, n / TILE), block(TILE, TROWS);
    auto launch = [&] { c.fn<<<grid, block>>>(din.p, dout.p, n); };
    double ms = micro_time_ms(launch, 3, 20);
    micro_run_checked(launch, dout, back.data());
    size_t bad = 0;
    for (size_t r = 0; r < (size_t)n; r++)
      for (size_t col = 0; col < (size_t)n; col++)
        bad += back[col * n + r] != h[r * n + col];
    micro_check(bad == 0, "transpose %s: %zu wrong", c.name, bad);
    micro_table_add(t, {c.name, micro_fmt("%d", pat_model(c.pat, 0, 4, 0)),
                        micro_num(a.cycles, 2),
                        micro_fmt("%d", pat_model(c.pat, 0, 8, 0)),
                        micro_num(b.cycles, 2), micro_num(ms, 4),
                        micro_num(2.0 * nn * 4 / (ms * 1e-3) / 1e9, 0)});
  }
  micro_table_print(t);
  micro_note("transpose: %d x %d floats, 32x8 threads per 32x32 tile; GB/s "
             "counts one read and one write of the matrix.",
             n, n);
}

int main(int argc, char **argv) {
  return micro_main(argc, argv, "bank",
                    "shared-memory bank conflicts (seed 001)", k_help,
                    {run_seed, run_sweep, run_fixes});
}
