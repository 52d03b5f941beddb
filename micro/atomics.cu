/*
 * atomics.cu — atomicAdd on int, float and double (seed 000).
 *
 * Question: the seed summed an array with atomicAdd in a <<<1,1024>>> grid
 * and found K20 faster than C2075 by 2.5x (int), 2.4x (float) and 24x
 * (double, through the compare-and-swap loop of the old CUDA programming
 * guide, since neither GPU had a native double atomicAdd). What do these
 * atomics cost today, what is the native double atomicAdd (sm_60+) worth
 * against the CAS loop, and how does the cost depend on contention?
 *
 * Variants:
 *   A. The seed's setup: <<<1,1024>>>, 2^16 elements, every thread adds its
 *      elements (stride 1024) into one sum: int, float, double native,
 *      double CAS loop.
 *   B. Contention sweep on a full grid (8 blocks of 256 per SM, 16 adds per
 *      thread), int / float / double: one address for everybody, one
 *      address per warp, every thread its own address (consecutive), and
 *      warp-aggregated (a shuffle reduction in the warp, then one atomicAdd
 *      per warp to the one address).
 *
 * The inputs are chosen so that every sum is exact in its type whatever the
 * order (integers; floats that are multiples of 1/16 or 1/2, doubles of
 * 1/256, with totals below the mantissa), so each result is compared with
 * the host's exactly. Command:
 *   smv micro atomics [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "Atomics (seed 000): atomicAdd on int, float and double with "
    "<<<1,1024>>>,\n"
    "native double atomics against the old compare-and-swap loop, and a\n"
    "contention sweep (one address, one per warp, all distinct, warp-\n"
    "aggregated).";

/* The CUDA C Programming Guide's atomicAdd for double before sm_60, which
 * the seed used on C2075 and K20. */
__device__ double atomicAdd_cas(double *address, double val) {
  unsigned long long *a = (unsigned long long *)address;
  unsigned long long old = *a, assumed;
  do {
    assumed = old;
    old = atomicCAS(a, assumed,
                    __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}

/* ------------------------------------------------------------------------ */
/* A. The seed's <<<1,1024>>> sum                                            */
/* ------------------------------------------------------------------------ */

template <typename T, int CAS>
__global__ void sum_1x1024(const T *a, int n, T *sum) {
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (CAS)
      atomicAdd_cas((double *)sum, (double)a[i]);
    else
      atomicAdd(sum, a[i]);
  }
}

template <typename T, int CAS>
static void seed_case(micro_table &t, const char *name, double (*gen)(uint64_t),
                      double *ns_out) {
  const int n = 1 << 16;
  micro_rng rng = {micro_fresh_seed()};
  std::vector<T> h(n);
  double want = 0; /* exact: see gen() */
  for (int i = 0; i < n; i++) {
    h[i] = (T)gen(micro_rand(&rng));
    want += (double)h[i];
  }
  micro_dbuf<T> a(n), sum(1);
  a.upload(h.data());
  /* timed runs keep adding into the sum; the checked run starts at 0 */
  auto launch = [&] { sum_1x1024<T, CAS><<<1, 1024>>>(a.p, n, sum.p); };
  sum.zero();
  double ms = micro_time_ms(launch, 1, CAS ? 3 : 10);
  T got;
  micro_run_checked(launch, sum, &got, 0);
  micro_check((double)got == want, "<<<1,1024>>> %s: sum %.17g, want %.17g",
              name, (double)got, want);
  *ns_out = ms * 1e6 / n;
  micro_table_add(t,
                  {name, micro_fmt("%d", n), micro_num(ms, 3),
                   micro_num(*ns_out, 2), micro_num(n / (ms * 1e-3) / 1e9, 3)});
}

/* values whose every partial sum is exact (see the header) */
static double gen_int(uint64_t r) { return (double)(r % 100); }
static double gen_f16(uint64_t r) { return (double)(r % 16) / 16.0; }
static double gen_d256(uint64_t r) { return (double)(r % 256) / 256.0; }

static void run_seed(void) {
  micro_table t = micro_table_new(
      "seed", "seed 000 setup: atomicAdd sum of 2^16 elements, <<<1,1024>>>",
      {"type", "elements", "ms", "ns per add", "Gadds/s"});
  double ns[4];
  seed_case<int, 0>(t, "int", gen_int, &ns[0]);
  seed_case<float, 0>(t, "float", gen_f16, &ns[1]);
  seed_case<double, 0>(t, "double (native)", gen_d256, &ns[2]);
  seed_case<double, 1>(t, "double (CAS loop)", gen_d256, &ns[3]);
  micro_table_print(t);
  micro_table r = micro_table_new(
      "seed_ratios", "ratios (the seed's are K20 over C2075, CAS loop on both)",
      {"comparison", "ours", "seed", "ratio"});
  micro_table_add(r, {"CAS-loop double / native double",
                      micro_num(ns[3] / ns[2], 2), "-", "-"});
  micro_table_add(
      r, {"native double / int", micro_num(ns[2] / ns[0], 2), "-", "-"});
  micro_table_add(r, {"float / int", micro_num(ns[1] / ns[0], 2), "-", "-"});
  micro_table_add(r, {"K20 over C2075, int", "-", "2.5", "-"});
  micro_table_add(r, {"K20 over C2075, float", "-", "2.4", "-"});
  micro_table_add(r, {"K20 over C2075, double (CAS)", "-", "24", "-"});
  micro_table_print(r);
  micro_note("The seed published only generation-to-generation speedups, "
             "not times: no figure of ours is the same measurement.");
}

/* ------------------------------------------------------------------------ */
/* B. Contention sweep                                                      */
/* ------------------------------------------------------------------------ */

#define PER_THREAD 16
enum { MODE_ONE = 0, MODE_WARP, MODE_DISTINCT, MODE_AGGREGATED };
static const char *const k_mode[] = {"one address", "one per warp",
                                     "all distinct", "warp-aggregated"};

/* value thread t adds at step k: exact sums for every type (see header) */
template <typename T> __host__ __device__ inline T val(unsigned t, int k) {
  unsigned h = (t * 2654435761u) ^ (unsigned)(k * 40503);
  h ^= h >> 13;
  if (sizeof(T) == 4 && (T)0.5 != (T)0) /* float: 0, 0.5 or 1 */
    return (T)((h % 3) * 0.5);
  if (sizeof(T) == 8) /* double: multiples of 1/256 */
    return (T)((double)(h % 256) / 256.0);
  return (T)(h % 8); /* int */
}

template <typename T> __global__ void contention(int mode, T *sums) {
  const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned lane = threadIdx.x & 31, warp = t >> 5;
  T *dst = mode == MODE_ONE || mode == MODE_AGGREGATED ? sums
           : mode == MODE_WARP                         ? sums + warp
                                                       : sums + t;
  for (int k = 0; k < PER_THREAD; k++) {
    T v = val<T>(t, k);
    if (mode == MODE_AGGREGATED) {
      for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
      if (lane == 0)
        atomicAdd(dst, v);
    } else {
      atomicAdd(dst, v);
    }
  }
}

template <typename T>
static void sweep_type(micro_table &t, const char *tname) {
  const int block = 256, grid = g_dev.prop.multiProcessorCount * 8;
  const unsigned nt = (unsigned)(grid * block);
  micro_dbuf<T> sums(nt);
  std::vector<T> back(nt);
  const double adds = (double)nt * PER_THREAD;
  std::vector<std::string> row = {tname};
  for (int mode = 0; mode < 4; mode++) {
    const size_t slots = mode == MODE_WARP       ? nt / 32
                         : mode == MODE_DISTINCT ? nt
                                                 : 1;
    /* timed runs keep adding; the checked run starts from zeros */
    auto launch = [&] { contention<T><<<grid, block>>>(mode, sums.p); };
    sums.zero();
    double ms = micro_time_ms(launch, 2, 10);
    micro_run_checked(launch, sums, back.data(), 0);
    size_t bad = 0;
    std::vector<double> want(slots, 0.0);
    for (unsigned th = 0; th < nt; th++)
      for (int k = 0; k < PER_THREAD; k++)
        want[mode == MODE_WARP       ? th / 32
             : mode == MODE_DISTINCT ? th
                                     : 0] += (double)val<T>(th, k);
    for (size_t s = 0; s < slots; s++)
      bad += (double)back[s] != want[s];
    micro_check(bad == 0, "%s %s: %zu of %zu sums wrong", tname, k_mode[mode],
                bad, slots);
    row.push_back(micro_num(adds / (ms * 1e-3) / 1e9, 2));
  }
  micro_table_add(t, row);
}

static void run_sweep(void) {
  micro_table t = micro_table_new(
      "contention",
      "contention sweep: billions of logical adds per second (full grid)",
      {"type", k_mode[0], k_mode[1], k_mode[2], k_mode[3]});
  sweep_type<int>(t, "int");
  sweep_type<float>(t, "float");
  sweep_type<double>(t, "double");
  micro_table_print(t);
  micro_note("%d threads x %d adds; warp-aggregated counts the 32 adds a "
             "warp folds into one atomic. atomicAdd with an unused result "
             "compiles to RED (no return trip).",
             g_dev.prop.multiProcessorCount * 8 * 256, PER_THREAD);
}

int main(int argc, char **argv) {
  return micro_main(argc, argv, "atomics",
                    "atomicAdd on int, float, double (seed 000)", k_help,
                    {run_seed, run_sweep});
}
