/*
 * common.h — what every micro experiment shares: option parsing, the device
 * banner, CUDA error checks, event timing with medians, verification
 * counters, and the fixed-width table that is also written as CSV.
 *
 * Each micro/NAME.cu is a program (it may print and exit; the library may
 * not). It includes this header once, calls micro_init() first and
 * micro_finish() last. Exit codes, which `smv micro` relies on:
 *   0  every check passed
 *   1  a check or a CUDA call failed
 *   2  usage error
 *   3  no CUDA device (no driver, no GPU, CUDA_VISIBLE_DEVICES hides it)
 *
 * Ratios: every table that puts our number beside the seed's prints
 * ratio = ours / seed, so for times < 1 means faster than the seed.
 */
#ifndef SMV_MICRO_COMMON_H
#define SMV_MICRO_COMMON_H

#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <initializer_list>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "smv_lab.h"

#define MICRO_EXIT_FAIL 1
#define MICRO_EXIT_USAGE 2
#define MICRO_EXIT_NO_DEVICE 3

/* ------------------------------------------------------------------------ */
/* Errors                                                                   */
/* ------------------------------------------------------------------------ */

static const char *g_micro_name = "micro";

/* "NAME: PREFIXmessage\n" on stderr (errors and failed checks). */
static inline void micro_vreport(const char *prefix, const char *fmt,
                                 va_list ap) {
  fprintf(stderr, "%s: %s", g_micro_name, prefix);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

static inline void micro_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  micro_vreport("", fmt, ap);
  va_end(ap);
  exit(MICRO_EXIT_FAIL);
}

static inline void micro_cuda_check(cudaError_t e, const char *what,
                                    const char *file, int line) {
  if (e != cudaSuccess)
    micro_die("%s:%d: %s: %s (%s)", file, line, what, cudaGetErrorString(e),
              cudaGetErrorName(e));
}
/* Every CUDA call goes through CK; every launch is followed by CK_LAUNCH. */
#define CK(call) micro_cuda_check((call), #call, __FILE__, __LINE__)
#define CK_LAUNCH() CK(cudaGetLastError())

static inline void *micro_malloc_host(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p)
    micro_die("out of host memory (%zu bytes)", bytes);
  return p;
}

/* ------------------------------------------------------------------------ */
/* Options and device                                                       */
/* ------------------------------------------------------------------------ */

typedef struct {
  const char *csv_dir; /* --csv DIR: also write each table as DIR/NAME_ID.csv */
  int device;          /* --device N */
  unsigned flags;      /* bit i set: extra flag i was given */
} micro_args;

typedef struct {
  cudaDeviceProp prop;
  int sm_clock_khz, mem_clock_khz, bus_bits;
  double peak_dram_gbps; /* 2 (DDR) * memory clock * bus width / 8 */
  char dir_name[128];    /* results folder: "h100-80gb-hbm3" */
  char date[32];         /* UTC, ISO 8601 */
} micro_device;

static micro_args g_micro_args;
static micro_device g_dev;
static int g_dev_open; /* micro_open_device() succeeded */
static int g_checks, g_failed;

/* Lower-case device name without "NVIDIA ", spaces to '-'. */
static inline void micro_dir_name(const char *name, char *out, size_t n) {
  if (strncmp(name, "NVIDIA ", 7) == 0)
    name += 7;
  size_t j = 0;
  for (size_t i = 0; name[i] && j + 1 < n; i++) {
    char c = name[i];
    if (c >= 'A' && c <= 'Z')
      c = (char)(c - 'A' + 'a');
    else if (c == ' ')
      c = '-';
    out[j++] = c;
  }
  out[j] = '\0';
}

/*
 * Parse the common options (--csv DIR, --device N, --help) plus the
 * experiment's own boolean flags (extra[] = {"--static", NULL}: bit i of
 * flags is set when extra[i] was given). `help` is printed by --help.
 */
static inline micro_args micro_parse(int argc, char **argv, const char *name,
                                     const char *help,
                                     const char *const *extra) {
  g_micro_name = name;
  micro_args a;
  a.csv_dir = NULL;
  a.device = 0;
  a.flags = 0;
  for (int i = 1; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
      printf("usage: %s [--csv DIR] [--device N]", name);
      for (int k = 0; extra && extra[k]; k++)
        printf(" [%s]", extra[k]);
      printf("\n\n%s\n", help);
      exit(0);
    } else if (!strcmp(s, "--csv") && i + 1 < argc) {
      a.csv_dir = argv[++i];
    } else if (!strcmp(s, "--device") && i + 1 < argc) {
      char *end;
      errno = 0;
      long d = strtol(argv[++i], &end, 10);
      if (*end || errno || d < 0 || d > 64) {
        fprintf(stderr, "%s: bad device number '%s'\n", name, argv[i]);
        exit(MICRO_EXIT_USAGE);
      }
      a.device = (int)d;
    } else {
      int k = 0;
      for (; extra && extra[k]; k++)
        if (!strcmp(s, extra[k]))
          break;
      if (!extra || !extra[k]) {
        fprintf(stderr, "%s: unknown option '%s' (try --help)\n", name, s);
        exit(MICRO_EXIT_USAGE);
      }
      a.flags |= 1u << k;
    }
  }
  time_t t = time(NULL);
  struct tm tmv;
  gmtime_r(&t, &tmv);
  strftime(g_dev.date, sizeof g_dev.date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
  snprintf(g_dev.prop.name, sizeof g_dev.prop.name, "none (no device opened)");
  if (a.csv_dir && mkdir(a.csv_dir, 0777) != 0 && errno != EEXIST)
    micro_die("cannot create CSV folder '%s': %s", a.csv_dir, strerror(errno));
  g_micro_args = a;
  return a;
}

/* Find the device or exit 3 with a clear message; then print the banner. */
static inline void micro_open_device(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fprintf(stderr,
            "%s: no CUDA GPU available (%s); the micro benchmarks need one\n",
            g_micro_name,
            e != cudaSuccess ? cudaGetErrorString(e) : "no devices found");
    exit(MICRO_EXIT_NO_DEVICE);
  }
  if (g_micro_args.device >= n) {
    fprintf(stderr, "%s: device %d does not exist (%d found)\n", g_micro_name,
            g_micro_args.device, n);
    exit(MICRO_EXIT_USAGE);
  }
  int d = g_micro_args.device;
  CK(cudaSetDevice(d));
  CK(cudaGetDeviceProperties(&g_dev.prop, d));
  CK(cudaDeviceGetAttribute(&g_dev.sm_clock_khz, cudaDevAttrClockRate, d));
  CK(cudaDeviceGetAttribute(&g_dev.mem_clock_khz, cudaDevAttrMemoryClockRate,
                            d));
  CK(cudaDeviceGetAttribute(&g_dev.bus_bits, cudaDevAttrGlobalMemoryBusWidth,
                            d));
  g_dev_open = 1;
  g_dev.peak_dram_gbps =
      2.0 * g_dev.mem_clock_khz * 1e3 * (g_dev.bus_bits / 8.0) / 1e9;
  micro_dir_name(g_dev.prop.name, g_dev.dir_name, sizeof g_dev.dir_name);
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  const cudaDeviceProp *p = &g_dev.prop;
  printf("device  : %s (sm_%d%d, %d SMs, SM clock %d MHz, memory clock %d "
         "MHz, %d-bit bus, peak DRAM %.0f GB/s)\n",
         p->name, p->major, p->minor, p->multiProcessorCount,
         g_dev.sm_clock_khz / 1000, g_dev.mem_clock_khz / 1000, g_dev.bus_bits,
         g_dev.peak_dram_gbps);
  printf("memory  : %.1f GiB, L2 %.1f MiB, shared memory %zu KiB/SM (%zu KiB "
         "per block opt-in), %d registers/SM, ECC %s\n",
         p->totalGlobalMem / 1073741824.0, p->l2CacheSize / 1048576.0,
         p->sharedMemPerMultiprocessor / 1024, p->sharedMemPerBlockOptin / 1024,
         p->regsPerMultiprocessor, p->ECCEnabled ? "on" : "off");
  printf("software: driver %d.%d, runtime %d.%d, smv %s (commit %s)\n",
         drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10,
         smv_version(), smv_git_commit());
  printf("date    : %s   results folder: micro/results/%s/\n\n", g_dev.date,
         g_dev.dir_name);
}

/* The usual start: parse, print the title, open the device. */
static inline micro_args micro_init(int argc, char **argv, const char *name,
                                    const char *title, const char *help,
                                    const char *const *extra) {
  micro_args a = micro_parse(argc, argv, name, help, extra);
  printf("== smv micro %s — %s\n", name, title);
  micro_open_device();
  return a;
}

/* ------------------------------------------------------------------------ */
/* Verification                                                             */
/* ------------------------------------------------------------------------ */

/* Record one check; print the reason when it fails. Returns ok. */
static inline int micro_check(int ok, const char *fmt, ...) {
  g_checks++;
  if (!ok) {
    g_failed++;
    va_list ap;
    va_start(ap, fmt);
    micro_vreport("CHECK FAILED: ", fmt, ap);
    va_end(ap);
  }
  return ok;
}

/* Last call of main: the verdict line and the exit code. */
static inline int micro_finish(void) {
  if (g_dev_open)
    CK(cudaDeviceSynchronize());
  printf("\n%s: %d checks, %d failed: %s\n", g_micro_name, g_checks, g_failed,
         g_failed ? "FAILED" : "all results verified");
  return g_failed ? MICRO_EXIT_FAIL : 0;
}

/* The main of an experiment made of parts that run in order: micro_init,
 * each part, micro_finish's verdict and exit code. */
static inline int micro_main(int argc, char **argv, const char *name,
                             const char *title, const char *help,
                             std::initializer_list<void (*)(void)> parts) {
  micro_init(argc, argv, name, title, help, NULL);
  for (auto part : parts)
    part();
  return micro_finish();
}

/* ------------------------------------------------------------------------ */
/* Random numbers (splitmix64: fast, deterministic, good enough to fill)    */
/* ------------------------------------------------------------------------ */

typedef struct {
  uint64_t s;
} micro_rng;

static inline uint64_t micro_rand(micro_rng *r) {
  uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
/* Uniform in [0, 1). */
static inline double micro_rand01(micro_rng *r) {
  return (double)(micro_rand(r) >> 11) * (1.0 / 9007199254740992.0);
}
/* A seed that differs from run to run (fresh inputs each run). No program
 * prints it or takes one, so a failing run's inputs cannot be replayed. */
static inline uint64_t micro_fresh_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000007ull + (uint64_t)ts.tv_nsec;
}
/* A 32-bit integer mix (lowbias32), host and device: data values and
 * scattered indices that a kernel computes and the host replays exactly. */
__host__ __device__ inline unsigned micro_mix32(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/* ------------------------------------------------------------------------ */
/* The reference copy kernel                                                */
/* ------------------------------------------------------------------------ */

/* 16-byte copy (V = uint4 or int4), grid-stride, 4 loads in flight per
 * thread before the first store: baseline's copy kernel (the device copy
 * bandwidth the SpMV tables quote) and ilp's grid-stride variant. */
template <class V>
__global__ void micro_copy16_gs4(const V *__restrict__ a, V *__restrict__ b,
                                 size_t n) {
  const size_t s = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  for (; i + 3 * s < n; i += 4 * s) {
    V r0 = a[i], r1 = a[i + s], r2 = a[i + 2 * s], r3 = a[i + 3 * s];
    b[i] = r0;
    b[i + s] = r1;
    b[i + 2 * s] = r2;
    b[i + 3 * s] = r3;
  }
  for (; i < n; i += s)
    b[i] = a[i];
}

/* ------------------------------------------------------------------------ */
/* Timing                                                                   */
/* ------------------------------------------------------------------------ */

static inline double micro_median(std::vector<double> v) {
  if (v.empty())
    return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static inline double micro_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* A pair of CUDA events: start() records the first on stream `st` (the
 * default stream unless given), stop_ms() records the second, waits for it
 * and returns the milliseconds between them. */
struct micro_events {
  cudaEvent_t a, b;
  micro_events() {
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
  }
  ~micro_events() {
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
  }
  micro_events(const micro_events &) = delete;
  micro_events &operator=(const micro_events &) = delete;
  void start(cudaStream_t st = 0) { CK(cudaEventRecord(a, st)); }
  float stop_ms(cudaStream_t st = 0) {
    CK(cudaEventRecord(b, st));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    return ms;
  }
};

/*
 * Median over `runs` of the time of one call of launch() (CUDA events
 * around each call, on the default stream), after `warmup` untimed calls;
 * before() runs ahead of each timed call, outside the timed interval (an
 * L2 flush, say). launch() must only enqueue work; CK_LAUNCH is checked
 * after each call.
 */
template <class F, class B>
static double micro_time_ms_after(F launch, B before, int warmup, int runs) {
  micro_events ev;
  for (int i = 0; i < warmup; i++) {
    launch();
    CK_LAUNCH();
  }
  std::vector<double> t;
  t.reserve((size_t)runs);
  for (int i = 0; i < runs; i++) {
    before();
    ev.start();
    launch();
    CK_LAUNCH();
    t.push_back(ev.stop_ms());
  }
  return micro_median(t);
}
template <class F> static double micro_time_ms(F launch, int warmup, int runs) {
  return micro_time_ms_after(
      launch, [] {}, warmup, runs);
}

/* Mean time per call of `reps` back-to-back calls between one event pair
 * (launch overhead overlaps; what a stream of launches costs). */
template <class F> static double micro_time_batch_ms(F launch, int reps) {
  micro_events ev;
  launch();
  CK_LAUNCH();
  ev.start();
  for (int i = 0; i < reps; i++)
    launch();
  CK_LAUNCH();
  return ev.stop_ms() / reps;
}

/* Evict the L2 by writing a buffer twice its size (for DRAM-resident
 * numbers). The buffer is kept for the life of the program. */
static inline void micro_flush_l2(void) {
  static void *buf = NULL;
  static size_t bytes = 0;
  if (!buf) {
    bytes = 2 * (size_t)g_dev.prop.l2CacheSize;
    CK(cudaMalloc(&buf, bytes));
  }
  CK(cudaMemsetAsync(buf, 0x5a, bytes));
}

/* ------------------------------------------------------------------------ */
/* Tables: fixed width on stdout, CSV under --csv DIR                        */
/* ------------------------------------------------------------------------ */

/* printf into a std::string (table cells). */
static inline std::string micro_fmt(const char *fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return std::string(buf);
}
/* A number with `prec` decimals, or "-" when it is not a number (no seed
 * figure, say). */
static inline std::string micro_num(double v, int prec) {
  if (!std::isfinite(v))
    return "-";
  return micro_fmt("%.*f", prec, v);
}
/* ours / seed, or "-" without a seed figure. */
static inline std::string micro_ratio(double ours, double seed) {
  if (!std::isfinite(ours) || !std::isfinite(seed) || seed == 0)
    return "-";
  return micro_fmt("%.3g", ours / seed);
}

struct micro_table {
  std::string id, title;
  std::vector<std::string> cols;
  std::vector<std::vector<std::string>> rows;
};

static inline micro_table micro_table_new(const char *id, const char *title,
                                          std::vector<std::string> cols) {
  micro_table t;
  t.id = id;
  t.title = title;
  t.cols = cols;
  return t;
}

static inline void micro_table_add(micro_table &t,
                                   std::vector<std::string> row) {
  if (row.size() != t.cols.size())
    micro_die("table %s: row has %zu cells, want %zu", t.id.c_str(), row.size(),
              t.cols.size());
  t.rows.push_back(row);
}

/* CSV cell: quoted when it holds a comma or a quote. */
static inline void micro_csv_cell(FILE *f, const std::string &s) {
  if (s.find_first_of(",\"") == std::string::npos) {
    fputs(s.c_str(), f);
    return;
  }
  fputc('"', f);
  for (char c : s) {
    if (c == '"')
      fputc('"', f);
    fputc(c, f);
  }
  fputc('"', f);
}

/* One CSV line: the cells, comma separated. */
static inline void micro_csv_row(FILE *f, const std::vector<std::string> &r) {
  for (size_t c = 0; c < r.size(); c++) {
    if (c)
      fputc(',', f);
    micro_csv_cell(f, r[c]);
  }
  fputc('\n', f);
}

/* One table line on stdout: cell c in width w[c], the first left aligned. */
static inline void micro_print_row(const std::vector<size_t> &w,
                                   const std::vector<std::string> &r) {
  for (size_t c = 0; c < w.size(); c++)
    printf(c ? "  %*s" : "%-*s", (int)w[c], r[c].c_str());
  printf("\n");
}

/* Print the table (columns as wide as their widest cell, first column left
 * aligned, the others right aligned) and write the CSV, whose '#' lines
 * carry the device, date and commit (gnuplot skips them). */
static inline void micro_table_print(const micro_table &t) {
  size_t nc = t.cols.size();
  std::vector<size_t> w(nc);
  for (size_t c = 0; c < nc; c++) {
    w[c] = t.cols[c].size();
    for (auto &r : t.rows)
      w[c] = std::max(w[c], r[c].size());
  }
  printf("\n-- %s [%s]\n", t.title.c_str(), t.id.c_str());
  micro_print_row(w, t.cols);
  size_t total = 0;
  for (size_t c = 0; c < nc; c++)
    total += w[c] + (c ? 2 : 0);
  printf("%s\n", std::string(total, '-').c_str());
  for (auto &r : t.rows)
    micro_print_row(w, r);
  fflush(stdout);
  if (!g_micro_args.csv_dir)
    return;
  std::string path = std::string(g_micro_args.csv_dir) + "/" + g_micro_name +
                     "_" + t.id + ".csv";
  FILE *f = fopen(path.c_str(), "w");
  if (!f)
    micro_die("cannot write %s: %s", path.c_str(), strerror(errno));
  fprintf(f, "# smv micro %s: %s\n# device: %s (%d SMs, SM clock %d MHz)\n",
          g_micro_name, t.title.c_str(), g_dev.prop.name,
          g_dev.prop.multiProcessorCount, g_dev.sm_clock_khz / 1000);
  fprintf(f, "# date: %s, smv commit %s\n", g_dev.date, smv_git_commit());
  micro_csv_row(f, t.cols);
  for (auto &r : t.rows)
    micro_csv_row(f, r);
  if (fclose(f) != 0)
    micro_die("cannot write %s: %s", path.c_str(), strerror(errno));
}

/* A note under a table: printed, not part of the CSV. */
static inline void micro_note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("   ", stdout);
  vprintf(fmt, ap);
  fputc('\n', stdout);
  va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Device buffers that free themselves                                      */
/* ------------------------------------------------------------------------ */

template <class T> struct micro_dbuf {
  T *p = nullptr;
  size_t n = 0;
  explicit micro_dbuf(size_t count) : n(count) {
    CK(cudaMalloc((void **)&p, (count ? count : 1) * sizeof(T)));
  }
  ~micro_dbuf() { cudaFree(p); }
  micro_dbuf(const micro_dbuf &) = delete;
  micro_dbuf &operator=(const micro_dbuf &) = delete;
  size_t bytes() const { return n * sizeof(T); }
  void upload(const T *h) {
    CK(cudaMemcpy(p, h, bytes(), cudaMemcpyHostToDevice));
  }
  void download(T *h) const {
    CK(cudaMemcpy(h, p, bytes(), cudaMemcpyDeviceToHost));
  }
  /* Fill every byte with `byte` (poison before a run). */
  void poison(int byte = 0xff) { CK(cudaMemset(p, byte, bytes())); }
  /* Zero an accumulator before the run whose result is checked. */
  void zero() { CK(cudaMemset(p, 0, bytes())); }
};

/*
 * The run whose result is checked: fill `out` with `byte` (0xff poisons;
 * 0 zeroes an accumulator), call launch() once more, untimed, and copy
 * `out` back into `back` (out.n elements).
 */
template <class T, class F>
static void micro_run_checked(F launch, micro_dbuf<T> &out, T *back,
                              int byte = 0xff) {
  out.poison(byte);
  launch();
  CK_LAUNCH();
  out.download(back);
}

#endif
