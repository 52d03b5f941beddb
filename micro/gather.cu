/*
 * gather.cu — random row gathers: the ceiling of SpMM with a row-major X.
 *
 * Question: a sparse-times-dense product Y = A X with X row-major (k
 * columns of `value` bytes, so a row of X is R = k x sizeof(value) bytes)
 * reads, for every nonzero, the row of X its column index names: a random
 * gather of R bytes, with the index itself read from the CSR column array
 * (4 bytes, in order). How many gathered bytes per second can this GPU
 * deliver for rows of 8 .. 1024 bytes, when X fits in the L2 and when it
 * does not, and how far is that from the device copy bandwidth?
 *
 * Variants, for rows of R = 8, 16, 32, 64, 128, 256, 512 and 1024 bytes
 * and tables (X) of 16 MiB (inside the 50 MiB L2 of an H100/H200), 128 MiB
 * and 1 GiB (DRAM):
 *   A. Device copy bandwidth: cudaMemcpy D2D of 1 GiB, bytes read +
 *      written, as baseline measures it; the denominator of "of copy".
 *   B. Gathers: N 4-byte row indices read coalesced from their own array,
 *      each row read with 16-byte loads by R / 16 consecutive lanes (rows
 *      of 8 bytes: one 8-byte load by one lane), 4 or 8 rows in flight per
 *      lane group (their indices loaded, then their rows, then summed);
 *      rows drawn uniformly (the same fixed-seed indices for both depths),
 *      and from a power law (row u^4 of the table for u uniform in [0, 1),
 *      scattered over the table by an odd multiplier: 1% of the rows take
 *      ~32% of the gathers, as hub columns of a power-law graph do).
 *      GB/s of gathered row bytes (indices not counted), the ratio to A,
 *      and "hit": the fraction of the table the L2 could hold
 *      (l2CacheSize / table, at most 1), what a uniform gather can hope to
 *      find there.
 *   C. The kernels' shapes: registers, blocks per SM, rows and bytes the
 *      source keeps in flight per SM (Little's law's side of B).
 *
 * A real SpMM also streams the CSR values (4 or 8 bytes a nonzero) and
 * writes Y; neither is here, so this is a ceiling, not a prediction.
 *
 * Every lane sums the words it read (uint32, wrapping: exact in any
 * order) and writes one value; the host adds them up and compares with
 * the sum it computes from the same indices and the table's closed form
 * (word j of row r holds (mix32(r) & 0xffff) + j). Command:
 *   smv micro gather [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "Random row gathers (the ceiling of SpMM with a row-major X): rows of\n"
    "8..1024 bytes at random 4-byte indices from 16 MiB, 128 MiB and 1 GiB\n"
    "tables, 4 or 8 rows in flight, uniform and power-law rows: GB/s of row\n"
    "bytes against cudaMemcpy D2D, beside the fraction of the table the L2\n"
    "holds.";

#define BLOCK 256
/* A launch shorter than this is dominated by launch and ramp-up: the
 * index array is then gathered in several passes. */
#define MIN_LAUNCH_MS 0.2

/* The 16-byte load type, or 8 bytes for rows of 8 bytes. */
template <int R> struct row_vec { typedef uint4 type; };
template <> struct row_vec<8> { typedef uint2 type; };

__device__ __forceinline__ unsigned vsum(uint4 v) {
  return v.x + v.y + v.z + v.w;
}
__device__ __forceinline__ unsigned vsum(uint2 v) { return v.x + v.y; }

/* Word j of row r (W words a row): small (< 2^16 + 256), different from
 * row to row, different within a row. Its row sum has a closed form. */
__host__ __device__ inline unsigned word_value(unsigned r, unsigned j) {
  return (micro_mix32(r) & 0xffffu) + j;
}

/* The table as rows of W = 2^lw words. */
__global__ void fill_table(unsigned *d, size_t n, int lw) {
  const unsigned wmask = (1u << lw) - 1u;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    d[i] = word_value((unsigned)(i >> lw), (unsigned)i & wmask);
}

/*
 * Groups of L = R / 16 consecutive lanes (1 for R = 8 and 16; 64, two
 * warps, for R = 1024) each gather whole rows: lane `lane` of the group
 * loads vector `lane` of the row. Grid-stride over the n indices by
 * groups, U rows in flight: slot u of group g takes index i + u * gs, so
 * for each slot a warp's groups read consecutive indices (coalesced; the L
 * lanes of a group read the same one). `passes` passes over the indices;
 * each pass shifts the groups by 32 (as baseline's read4 shifts its
 * threads), so no pass repeats the one before and no compiler could fold
 * them into one.
 */
template <int R, int U>
__global__ void __launch_bounds__(BLOCK)
    gather(const void *table_, const unsigned *__restrict__ idx, size_t n,
           int passes, unsigned *__restrict__ out) {
  typedef typename row_vec<R>::type V;
  constexpr int L = R >= 16 ? R / 16 : 1; /* lanes, and vectors, a row */
  const V *__restrict__ table = (const V *)table_;
  const size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t gs = (size_t)gridDim.x * blockDim.x / L; /* groups */
  const unsigned lane = (unsigned)(t % L);
  unsigned acc = 0;
  for (int p = 0; p < passes; p++) {
    size_t i = (t / L + (size_t)p * 32) % gs;
    for (; i + (U - 1) * gs < n; i += U * gs) {
      unsigned r[U];
#pragma unroll
      for (int u = 0; u < U; u++)
        r[u] = __ldg(idx + i + u * gs);
      V v[U];
#pragma unroll
      for (int u = 0; u < U; u++)
        v[u] = __ldg(table + (size_t)r[u] * L + lane);
#pragma unroll
      for (int u = 0; u < U; u++)
        acc += vsum(v[u]);
    }
    for (; i < n; i += gs)
      acc += vsum(__ldg(table + (size_t)__ldg(idx + i) * L + lane));
  }
  out[t] = acc;
}

typedef void (*gather_fn)(const void *, const unsigned *, size_t, int,
                          unsigned *);

template <int U> static gather_fn gather_for(int R) {
  switch (R) {
  case 8:
    return gather<8, U>;
  case 16:
    return gather<16, U>;
  case 32:
    return gather<32, U>;
  case 64:
    return gather<64, U>;
  case 128:
    return gather<128, U>;
  case 256:
    return gather<256, U>;
  case 512:
    return gather<512, U>;
  case 1024:
    return gather<1024, U>;
  default:
    micro_die("no gather kernel for rows of %d bytes", R);
  }
  return NULL;
}

static int log2_exact(size_t v) {
  int l = 0;
  while (((size_t)1 << l) < v)
    l++;
  return l;
}

/* A. cudaMemcpy D2D of the whole table (1 GiB, filled with rows of 1 KiB),
 * read + written per second, as baseline counts it; the copy is checked
 * word by word against the table's closed form. */
static double copy_bandwidth(unsigned *table, size_t words) {
  const size_t bytes = words * 4;
  const int lw = log2_exact(1024 / 4);
  fill_table<<<g_dev.prop.multiProcessorCount * 8, BLOCK>>>(table, words, lw);
  CK_LAUNCH();
  micro_dbuf<unsigned> copy(words);
  auto launch = [&] {
    CK(cudaMemcpyAsync(copy.p, table, bytes, cudaMemcpyDeviceToDevice));
  };
  const double ms = micro_time_ms(launch, 3, 15);
  const double gbps = 2.0 * bytes / (ms * 1e-3) / 1e9;
  std::vector<unsigned> back(words);
  micro_run_checked(launch, copy, back.data());
  size_t bad = 0;
  for (size_t i = 0; i < words; i++)
    bad += back[i] !=
           word_value((unsigned)(i >> lw), (unsigned)i & ((1u << lw) - 1u));
  const int ok = micro_check(bad == 0,
                             "cudaMemcpy D2D of %zu MiB: %zu of "
                             "%zu words wrong",
                             bytes >> 20, bad, words);
  micro_table t =
      micro_table_new("copy", "device copy bandwidth (the denominator)",
                      {"what", "MiB", "ms", "GB/s (read + written)"});
  micro_table_add(t, {"cudaMemcpy D2D", micro_fmt("%zu", bytes >> 20),
                      micro_num(ms, 3), micro_num(ok ? gbps : NAN, 0)});
  micro_table_print(t);
  return gbps;
}

/* The kernels' shapes: registers (ptxas's choice), blocks per SM, and what
 * the source keeps in flight per SM (resident lane groups x U rows x R
 * bytes): the bytes-in-flight side of Little's law. ptxas may issue a
 * group's U loads later than the source does (it needs 4 U registers a
 * lane for 16-byte rows), so this is an upper bound. */
static void kernel_table(const int *row_bytes, int nr) {
  micro_table t = micro_table_new(
      "kernels", "gather kernels: shape and rows in flight per SM",
      {"row B", "U", "lanes/row", "registers", "blocks/SM", "rows in flight/SM",
       "KiB in flight/SM"});
  for (int k = 0; k < nr; k++)
    for (int U = 4; U <= 8; U += 4) {
      const int R = row_bytes[k], L = R >= 16 ? R / 16 : 1;
      gather_fn fn = U == 4 ? gather_for<4>(R) : gather_for<8>(R);
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, (const void *)fn));
      int per_sm = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, BLOCK, 0));
      const long rows = (long)per_sm * BLOCK / L * U;
      micro_table_add(t, {micro_fmt("%d", R), micro_fmt("%d", U),
                          micro_fmt("%d", L), micro_fmt("%d", fa.numRegs),
                          micro_fmt("%d", per_sm), micro_fmt("%ld", rows),
                          micro_num(rows * (double)R / 1024.0, 0)});
    }
  micro_table_print(t);
}

/* One gather variant: its kernel, its grid (as many blocks as fit at
 * once), and how it is named. */
struct variant {
  const char *name;
  int powerlaw, U;
  gather_fn fn;
  int grid;
};

int main(int argc, char **argv) {
  micro_init(argc, argv, "gather",
             "random row gathers: the ceiling of row-major SpMM", k_help, NULL);
  const int sms = g_dev.prop.multiProcessorCount;
  const size_t l2 = (size_t)g_dev.prop.l2CacheSize;
  const size_t table_max = (size_t)1 << 30;
  const size_t table_sizes[3] = {(size_t)16 << 20, (size_t)128 << 20,
                                 table_max};
  const int row_bytes[8] = {8, 16, 32, 64, 128, 256, 512, 1024};
  /* rows gathered per pass: 2 GiB of rows (32 x the table for the 16 MiB
   * one: 512 MiB), so at 8-byte rows 2^28 indices (1 GiB) */
  const size_t gather_max = (size_t)2 << 30;
  const size_t n_max = gather_max / 8;

  micro_dbuf<unsigned> table(table_max / 4);
  const double copy_gbps = copy_bandwidth(table.p, table.n);
  kernel_table(row_bytes, 8);

  /* The index source: one fixed-seed stream of 32-bit draws, so every run
   * and every device gathers the same rows; each (table, row size) maps
   * the first N draws to its rows. */
  std::vector<unsigned> raw(n_max), hidx(n_max);
  micro_rng rng = {0x6761746865720001ull};
  for (size_t i = 0; i < n_max; i++)
    raw[i] = (unsigned)(micro_rand(&rng) >> 32);
  /* the uniform and the power-law indices, both on the device at once so
   * that every variant of a row runs with the same passes */
  micro_dbuf<unsigned> uidx(n_max), pidx(n_max);
  unsigned *dev_idx[2] = {uidx.p, pidx.p};

  variant vars[3] = {{"uniform x4", 0, 4, NULL, 0},
                     {"uniform x8", 0, 8, NULL, 0},
                     {"power-law x8", 1, 8, NULL, 0}};
  /* out holds one value per resident thread: at most the SMs' thread
   * slots */
  micro_dbuf<unsigned> out((size_t)sms *
                           g_dev.prop.maxThreadsPerMultiProcessor);
  std::vector<unsigned> back(out.n);

  micro_table t = micro_table_new(
      "gather",
      "random row gathers: GB/s of gathered row bytes (indices not counted)",
      {"table MiB", "row B", "k fp32", "k fp64", "rows/pass", "passes",
       "uniform x4", "uniform x8", "uniform/copy", "power-law x8", "power/copy",
       "hit"});
  for (size_t tb : table_sizes) {
    for (int R : row_bytes) {
      const size_t rows = tb / (size_t)R;
      const int lrows = log2_exact(rows), lw = log2_exact((size_t)R / 4);
      const unsigned W = (unsigned)R / 4;
      const size_t n = std::min(gather_max, 32 * tb) / (size_t)R;
      fill_table<<<sms * 8, BLOCK>>>(table.p, tb / 4, lw);
      CK_LAUNCH();
      /* the indices and, over them, the sum every variant must return
       * (row r sums to W (mix32(r) & 0xffff) + W (W - 1) / 2) */
      unsigned want[2];
      for (int dist = 0; dist < 2; dist++) {
        unsigned sum_g = 0;
        for (size_t i = 0; i < n; i++) {
          unsigned r;
          if (!dist) {
            r = raw[i] >> (32 - lrows);
          } else {
            double u = ((double)raw[i] + 0.5) * (1.0 / 4294967296.0);
            unsigned h = (unsigned)(u * u * u * u * (double)rows);
            r = (h * 0x9e3779b1u) & (unsigned)(rows - 1);
          }
          hidx[i] = r;
          sum_g += micro_mix32(r) & 0xffffu;
        }
        want[dist] = W * sum_g + (unsigned)n * (W * (W - 1) / 2);
        CK(cudaMemcpy(dev_idx[dist], hidx.data(), n * sizeof(unsigned),
                      cudaMemcpyHostToDevice));
      }
      for (variant &v : vars) {
        v.fn = v.U == 4 ? gather_for<4>(R) : gather_for<8>(R);
        int per_sm = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.fn, BLOCK,
                                                         0));
        v.grid = per_sm * sms;
      }
      /* the passes, the same for the row's three variants: enough that
       * the quickest one's launch (a warm-up, then one pass timed) lasts
       * MIN_LAUNCH_MS */
      int passes = 1;
      for (variant &v : vars) {
        auto one_pass = [&] {
          v.fn<<<v.grid, BLOCK>>>(table.p, dev_idx[v.powerlaw], n, 1, out.p);
        };
        const double one = std::max(micro_time_ms(one_pass, 1, 1), 1e-3);
        if (one < MIN_LAUNCH_MS)
          passes = std::max(passes, (int)std::ceil(1.1 * MIN_LAUNCH_MS / one));
      }
      double gbps[3];
      for (int k = 0; k < 3; k++) {
        variant &v = vars[k];
        auto launch = [&] {
          v.fn<<<v.grid, BLOCK>>>(table.p, dev_idx[v.powerlaw], n, passes,
                                  out.p);
        };
        const double ms = micro_time_ms(launch, 1, 11);
        gbps[k] = (double)n * R * passes / (ms * 1e-3) / 1e9;
        micro_run_checked(launch, out, back.data());
        const size_t nt = (size_t)v.grid * BLOCK;
        unsigned got = 0;
        for (size_t th = 0; th < nt; th++)
          got += back[th];
        const unsigned expect = want[v.powerlaw] * (unsigned)passes;
        if (!micro_check(got == expect,
                         "%s, table %zu MiB, rows of %d B, %d passes: "
                         "checksum %08x, want %08x",
                         v.name, tb >> 20, R, passes, got, expect))
          gbps[k] = NAN;
      }
      const double best = std::max(gbps[0], gbps[1]);
      const double hit = std::min(1.0, (double)l2 / (double)tb);
      micro_table_add(t,
                      {micro_fmt("%zu", tb >> 20), micro_fmt("%d", R),
                       micro_fmt("%d", R / 4), micro_fmt("%d", R / 8),
                       micro_fmt("%zu", n), micro_fmt("%d", passes),
                       micro_num(gbps[0], 0), micro_num(gbps[1], 0),
                       micro_num(best / copy_gbps, 2), micro_num(gbps[2], 0),
                       micro_num(gbps[2] / copy_gbps, 2), micro_num(hit, 3)});
    }
  }
  micro_table_print(t);
  micro_note("xU: U rows in flight per lane group; R / 16 lanes a row (1 "
             "lane, 8-byte loads, for R = 8); %d threads a block, as many "
             "blocks as fit on the %d SMs; 4-byte indices read coalesced "
             "(4 B of index per row gathered, not counted).",
             BLOCK, sms);
  micro_note("rows/pass: 2 GiB of rows (512 MiB for the 16 MiB table); "
             "passes over them until a launch takes >= %.1f ms; median of "
             "11 launches after a warm-up.",
             MIN_LAUNCH_MS);
  micro_note("/copy: GB/s / cudaMemcpy D2D of 1 GiB (%.0f GB/s, read + "
             "written), uniform from the better depth. hit = L2 (%.0f MiB) / "
             "table, at most 1. power-law: row u^4 of the table, scattered; "
             "1%% of the rows take ~32%% of the gathers.",
             copy_gbps, l2 / 1048576.0);
  micro_note("A 32 B sector is the least the L2 and DRAM move: rows of 8 "
             "and 16 B use 1/4 and 1/2 of what they fetch.");
  return micro_finish();
}
