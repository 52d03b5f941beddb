/*
 * aos.cu — array of structures against structure of arrays (seed 003).
 *
 * Question: the seed's float3 Position {x, y, z} array on GK110 read 1.51x
 * faster as SoA, 1.43x through the read-only cache, 1.40x staged through
 * shared memory, and wrote 1.88x faster as SoA or through shared memory.
 * How large are these gains today?
 *
 * Variants, each reading (or writing) every element once, grid-stride:
 *   AoS        Position data[n]           three 4-byte loads 12 bytes apart
 *   SoA        x[n], y[n], z[n]           three coalesced streams
 *   read-only  AoS through __ldg            (read only)
 *   smem       AoS staged through shared memory: the block moves its tile
 *              of 256 structures (3 KiB) as coalesced floats, each thread
 *              takes its structure from shared memory (or the reverse)
 *   float4     AoS padded to 16 bytes: one 16-byte access per element
 * Reads sum x + 2y + 3z per thread; writes store a known pattern. Both at a
 * DRAM-resident size (32M elements, 384 MB as AoS) and an L2-resident size
 * (1M elements, 12 MB). The data are small integers, so every sum is exact
 * and checked on the host exactly. Command:
 *   smv micro aos [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "AoS vs SoA (seed 003): float3 Position read and write as AoS, SoA,\n"
    "through the read-only path, staged through shared memory, and padded\n"
    "to float4; speedups beside the seed's 1.51/1.43/1.40 and 1.88/1.88.";

struct Position {
  float x, y, z;
};

#define TILE 256 /* structures per block tile = threads per block */

/* Element i's coordinates: small integers, so sums stay exact in float. */
__host__ __device__ inline float px(unsigned i) { return (float)(i & 255u); }
__host__ __device__ inline float py(unsigned i) {
  return (float)((i >> 8) & 127u);
}
__host__ __device__ inline float pz(unsigned i) {
  return (float)((i * 7u) & 63u);
}

/* ---- reads: out[t] = sum over the thread's elements of x + 2y + 3z ---- */

/* One structure per element: P = Position is the AoS case (three 4-byte
 * loads 12 bytes apart), P = float4 the padded one (one 16-byte load). */
template <class P>
__global__ void read_struct(const P *p, unsigned n, float *out) {
  float acc = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    P q = p[i];
    acc += q.x + 2.0f * q.y + 3.0f * q.z;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void read_soa(const float *x, const float *y, const float *z,
                         unsigned n, float *out) {
  float acc = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    acc += x[i] + 2.0f * y[i] + 3.0f * z[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void read_ldg(const Position *p, unsigned n, float *out) {
  float acc = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    acc += __ldg(&p[i].x) + 2.0f * __ldg(&p[i].y) + 3.0f * __ldg(&p[i].z);
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* n must be a multiple of TILE here (checked by the caller). */
__global__ void read_smem(const Position *p, unsigned n, float *out) {
  __shared__ float s[3 * TILE];
  const float *f = (const float *)p;
  float acc = 0;
  for (unsigned base = blockIdx.x * TILE; base < n; base += gridDim.x * TILE) {
    for (unsigned k = threadIdx.x; k < 3 * TILE; k += TILE)
      s[k] = f[3 * (size_t)base + k];
    __syncthreads();
    /* stride 3 words: 3 is odd, so the 32 lanes hit 32 different banks */
    acc += s[3 * threadIdx.x] + 2.0f * s[3 * threadIdx.x + 1] +
           3.0f * s[3 * threadIdx.x + 2];
    __syncthreads();
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* ---- writes: element i gets (px(i), py(i), pz(i)) ---- */

__global__ void write_aos(Position *p, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    Position q = {px(i), py(i), pz(i)};
    p[i] = q;
  }
}

__global__ void write_soa(float *x, float *y, float *z, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x) {
    x[i] = px(i);
    y[i] = py(i);
    z[i] = pz(i);
  }
}

__global__ void write_smem(Position *p, unsigned n) {
  __shared__ float s[3 * TILE];
  float *f = (float *)p;
  for (unsigned base = blockIdx.x * TILE; base < n; base += gridDim.x * TILE) {
    unsigned i = base + threadIdx.x;
    s[3 * threadIdx.x] = px(i);
    s[3 * threadIdx.x + 1] = py(i);
    s[3 * threadIdx.x + 2] = pz(i);
    __syncthreads();
    for (unsigned k = threadIdx.x; k < 3 * TILE; k += TILE)
      f[3 * (size_t)base + k] = s[k];
    __syncthreads();
  }
}

__global__ void write_f4(float4 *p, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += gridDim.x * blockDim.x)
    p[i] = make_float4(px(i), py(i), pz(i), 0.0f);
}

/* ------------------------------------------------------------------------ */

struct bufs {
  micro_dbuf<Position> aos;
  micro_dbuf<float> x, y, z;
  micro_dbuf<float4> f4;
  micro_dbuf<float> out;
  bufs(size_t n, size_t threads)
      : aos(n), x(n), y(n), z(n), f4(n), out(threads) {}
};

static void fill_inputs(bufs &b, unsigned n) {
  std::vector<Position> a(n);
  std::vector<float> x(n), y(n), z(n);
  std::vector<float4> f(n);
  for (unsigned i = 0; i < n; i++) {
    a[i] = {px(i), py(i), pz(i)};
    x[i] = px(i);
    y[i] = py(i);
    z[i] = pz(i);
    f[i] = make_float4(px(i), py(i), pz(i), -1.0f);
  }
  b.aos.upload(a.data());
  b.x.upload(x.data());
  b.y.upload(y.data());
  b.z.upload(z.data());
  b.f4.upload(f.data());
}

/* One row of the read or write table: time, useful GB/s (12 bytes per
 * element), speedup over AoS (aos_ms), the seed's speedup, ratio. */
static void add_row(micro_table &t, const char *label, const char *name,
                    unsigned n, double ms, double aos_ms, double seed) {
  double useful = 12.0 * n / (ms * 1e-3) / 1e9;
  double sp = aos_ms / ms;
  micro_table_add(t, {label, name, micro_num(ms, 4), micro_num(useful, 0),
                      micro_num(sp, 2), micro_num(seed, 2),
                      micro_ratio(sp, seed)});
}

static void run_size(unsigned n, const char *label, micro_table &tr,
                     micro_table &tw) {
  const int block = TILE, grid = g_dev.prop.multiProcessorCount * 8;
  const unsigned nt = (unsigned)(grid * block);
  if (n % TILE)
    micro_die("n = %u is not a multiple of %d", n, TILE);
  bufs b(n, nt);
  fill_inputs(b, n);
  /* expected per-thread sums, exact (integers below 2^24) */
  std::vector<float> want(nt), back(nt);
  for (unsigned t = 0; t < nt; t++) {
    double s = 0;
    for (unsigned i = t; i < n; i += nt)
      s += px(i) + 2.0 * py(i) + 3.0 * pz(i);
    want[t] = (float)s;
  }
  /* smem staging gives thread t the elements base + t of each tile */
  std::vector<float> want_smem(nt);
  for (unsigned t = 0; t < nt; t++) {
    unsigned blk = t / TILE, th = t % TILE;
    double s = 0;
    for (unsigned base = blk * TILE; base < n; base += (unsigned)grid * TILE)
      s += px(base + th) + 2.0 * py(base + th) + 3.0 * pz(base + th);
    want_smem[t] = (float)s;
  }
  struct rcase {
    const char *name;
    double seed;
    int smem;
  } rc[] = {{"AoS", 1.0, 0},
            {"SoA", 1.51, 0},
            {"read-only", 1.43, 0},
            {"smem staged", 1.40, 1},
            {"float4 padded", NAN, 0}};
  double aos_ms = 0;
  for (int c = 0; c < 5; c++) {
    auto launch = [&] {
      switch (c) {
      case 0:
        read_struct<Position><<<grid, block>>>(b.aos.p, n, b.out.p);
        break;
      case 1:
        read_soa<<<grid, block>>>(b.x.p, b.y.p, b.z.p, n, b.out.p);
        break;
      case 2:
        read_ldg<<<grid, block>>>(b.aos.p, n, b.out.p);
        break;
      case 3:
        read_smem<<<grid, block>>>(b.aos.p, n, b.out.p);
        break;
      default:
        read_struct<float4><<<grid, block>>>(b.f4.p, n, b.out.p);
      }
    };
    double ms = micro_time_ms(launch, 3, 20);
    micro_run_checked(launch, b.out, back.data());
    const std::vector<float> &w = rc[c].smem ? want_smem : want;
    size_t bad = 0;
    for (unsigned t = 0; t < nt; t++)
      bad += back[t] != w[t];
    micro_check(bad == 0, "read %s n=%u: %zu of %u sums wrong", rc[c].name, n,
                bad, nt);
    if (c == 0)
      aos_ms = ms;
    add_row(tr, label, rc[c].name, n, ms, aos_ms, rc[c].seed);
  }
  struct wcase {
    const char *name;
    double seed;
  } wc[] = {{"AoS", 1.0},
            {"SoA", 1.88},
            {"smem staged", 1.88},
            {"float4 padded", NAN}};
  std::vector<Position> ha(n);
  std::vector<float> hx(n), hy(n), hz(n);
  std::vector<float4> hf(n);
  for (int c = 0; c < 4; c++) {
    auto launch = [&] {
      switch (c) {
      case 0:
        write_aos<<<grid, block>>>(b.aos.p, n);
        break;
      case 1:
        write_soa<<<grid, block>>>(b.x.p, b.y.p, b.z.p, n);
        break;
      case 2:
        write_smem<<<grid, block>>>(b.aos.p, n);
        break;
      default:
        write_f4<<<grid, block>>>(b.f4.p, n);
      }
    };
    double ms = micro_time_ms(launch, 3, 20);
    size_t bad = 0;
    if (c == 1) {
      b.x.poison();
      b.y.poison();
      b.z.poison();
      launch();
      CK_LAUNCH();
      b.x.download(hx.data());
      b.y.download(hy.data());
      b.z.download(hz.data());
      for (unsigned i = 0; i < n; i++)
        bad += hx[i] != px(i) || hy[i] != py(i) || hz[i] != pz(i);
    } else if (c == 3) {
      micro_run_checked(launch, b.f4, hf.data());
      for (unsigned i = 0; i < n; i++)
        bad += hf[i].x != px(i) || hf[i].y != py(i) || hf[i].z != pz(i) ||
               hf[i].w != 0.0f;
    } else {
      micro_run_checked(launch, b.aos, ha.data());
      for (unsigned i = 0; i < n; i++)
        bad += ha[i].x != px(i) || ha[i].y != py(i) || ha[i].z != pz(i);
    }
    micro_check(bad == 0, "write %s n=%u: %zu of %u elements wrong", wc[c].name,
                n, bad, n);
    if (c == 0)
      aos_ms = ms;
    add_row(tw, label, wc[c].name, n, ms, aos_ms, wc[c].seed);
  }
  /* the read inputs were overwritten by the write tests: nothing reads
   * them after this point */
}

int main(int argc, char **argv) {
  micro_init(argc, argv, "aos", "AoS vs SoA, float3 Position (seed 003)",
             k_help, NULL);
  std::vector<std::string> cols = {"size",    "layout",       "ms",   "GB/s",
                                   "speedup", "seed speedup", "ratio"};
  micro_table tr = micro_table_new(
      "read", "read float3 Position: speedup over AoS (seed: GK110)", cols);
  micro_table tw = micro_table_new(
      "write", "write float3 Position: speedup over AoS (seed: GK110)", cols);
  run_size(32u << 20, "32M (DRAM)", tr, tw);
  run_size(1u << 20, "1M (L2)", tr, tw);
  micro_table_print(tr);
  micro_table_print(tw);
  micro_note("GB/s counts the 12 useful bytes per element (the float4 layout "
             "moves 16). speedup = AoS time / this time; ratio = ours / "
             "seed.");
  return micro_finish();
}
