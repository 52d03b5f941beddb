/*
 * restrict.cu — __restrict__ and the read-only path (seed 002, CUDA 5).
 *
 * Question: does __restrict__ still remove the redundant store of the
 * seed's f0/f1 and turn the load into ld.global.nc (LDG.E.CONSTANT in
 * SASS), and what is it worth in time on a read-heavy kernel?
 *
 * Variants:
 *   A. Static check (no GPU needed): the seed's f0 (no __restrict__) and f1
 *      (__restrict__), plus the four timed kernels below. Their PTX and SASS
 *      are read from this very program with cuobjdump (`cuobjdump -ptx` /
 *      `-sass` on /proc/self/exe) when cuobjdump exists; otherwise the same
 *      source text (one macro is both compiled and stringified) is given to
 *      `nvcc -ptx` (and `nvcc -cubin` + nvdisasm for SASS, if present). The
 *      program counts st.global / ld.global.nc in PTX and STG /
 *      LDG...CONSTANT in SASS per kernel and asserts the seed's claim:
 *      f0 keeps 2 stores and no .nc load, f1 has 1 store and an .nc load.
 *   B. Timing: a gather y[r] = sum_k val[k] * x[col[k]] (CSR rows, one
 *      thread per row, 1M rows x 16 random columns, fp64): "plain" adds
 *      into y[r] in the loop with no __restrict__ (the compiler must store
 *      y[r] every step, since y may alias val or x), "local" sums in a
 *      register without __restrict__, "restrict" marks every pointer
 *      __restrict__, "ldg" sums in a register and reads through __ldg().
 *
 * Commands:
 *   smv micro restrict [--csv DIR]       static check, then timing
 *   smv micro restrict --static          static check only (no GPU)
 */
#include "common.h"

#include <unistd.h>

static const char *const k_help =
    "__restrict__ and the read-only path (seed 002): PTX/SASS of the seed's\n"
    "f0/f1 checked for the removed store and ld.global.nc / LDG.E.CONSTANT,\n"
    "then the timing effect on a read-heavy gather. --static: the check only.";

#define MICRO_STR(...) #__VA_ARGS__
#define MICRO_XSTR(...) MICRO_STR(__VA_ARGS__)

/* The seed's two kernels, verbatim. C++ linkage, as in the seed, so the
 * PTX names are the seed's _Z2f0PfS_ and _Z2f1PfS_. */
#define SEED002_SOURCE                                                         \
  __global__ void f0(float *a, float *b) {                                     \
    a[threadIdx.x] = 1.0f;                                                     \
    a[threadIdx.x] = b[threadIdx.x];                                           \
  }                                                                            \
  __global__ void f1(float *__restrict__ a, float *__restrict__ b) {           \
    a[threadIdx.x] = 1.0f;                                                     \
    a[threadIdx.x] = b[threadIdx.x];                                           \
  }

/* The kernel that adds into y[r] in the loop, named `name`, with `R` on
 * every pointer: gather_plain (R empty) and gather_restrict
 * (R = __restrict__) differ in nothing else. */
#define GATHER_ADD_IN_Y(name, R)                                               \
  extern "C" __global__ void name(int n, const int *R ptr, const int *R col,   \
                                  const double *R val, const double *R x,      \
                                  double *R y) {                               \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (r >= n)                                                                \
      return;                                                                  \
    y[r] = 0.0;                                                                \
    for (int k = ptr[r]; k < ptr[r + 1]; k++)                                  \
      y[r] += val[k] * x[col[k]];                                              \
  }

/* The timed gather in four forms (n rows, ptr[n+1], col/val[nnz], x, y). */
#define GATHER_SOURCE                                                          \
  GATHER_ADD_IN_Y(gather_plain, )                                              \
  extern "C" __global__ void gather_local(int n, const int *ptr,               \
                                          const int *col, const double *val,   \
                                          const double *x, double *y) {        \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (r >= n)                                                                \
      return;                                                                  \
    double s = 0.0;                                                            \
    for (int k = ptr[r]; k < ptr[r + 1]; k++)                                  \
      s += val[k] * x[col[k]];                                                 \
    y[r] = s;                                                                  \
  }                                                                            \
  GATHER_ADD_IN_Y(gather_restrict, __restrict__)                               \
  extern "C" __global__ void gather_ldg(int n, const int *ptr, const int *col, \
                                        const double *val, const double *x,    \
                                        double *y) {                           \
    int r = blockIdx.x * blockDim.x + threadIdx.x;                             \
    if (r >= n)                                                                \
      return;                                                                  \
    double s = 0.0;                                                            \
    int end = __ldg(ptr + r + 1);                                              \
    for (int k = __ldg(ptr + r); k < end; k++)                                 \
      s += __ldg(val + k) * __ldg(x + __ldg(col + k));                         \
    y[r] = s;                                                                  \
  }

SEED002_SOURCE
GATHER_SOURCE

/* What nvcc would compile: the text of both macros. */
static const char k_source[] =
    MICRO_XSTR(SEED002_SOURCE) "\n" MICRO_XSTR(GATHER_SOURCE) "\n";

/* ------------------------------------------------------------------------ */
/* Tools                                                                    */
/* ------------------------------------------------------------------------ */

/* Full path of a CUDA tool, or "" when it is nowhere to be found. */
static std::string find_tool(const char *name) {
  const char *dirs[] = {getenv("CUDA_HOME"), "/usr/local/cuda"};
  for (const char *d : dirs) {
    if (!d || !*d)
      continue;
    std::string p = std::string(d) + "/bin/" + name;
    if (access(p.c_str(), X_OK) == 0)
      return p;
  }
  const char *path = getenv("PATH");
  if (!path)
    return "";
  std::string ps(path);
  size_t start = 0;
  while (start <= ps.size()) {
    size_t end = ps.find(':', start);
    if (end == std::string::npos)
      end = ps.size();
    std::string p = ps.substr(start, end - start) + "/" + name;
    if (end > start && access(p.c_str(), X_OK) == 0)
      return p;
    start = end + 1;
  }
  return "";
}

/* Run a shell command, return its stdout; *rc gets its exit status. */
static std::string capture(const std::string &cmd, int *rc) {
  std::string out;
  FILE *f = popen(cmd.c_str(), "r");
  if (!f) {
    *rc = -1;
    return out;
  }
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    out.append(buf, n);
  int st = pclose(f);
  *rc = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
  return out;
}

static std::string self_exe(void) {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "";
  buf[n] = '\0';
  return buf;
}

/* The body of one kernel in PTX text: from ".entry NAME(" to the first
 * line that is a lone "}". "" when the kernel is not there. */
static std::string ptx_body(const std::string &ptx, const std::string &name) {
  size_t p = ptx.find(".entry " + name + "(");
  if (p == std::string::npos)
    return "";
  size_t e = ptx.find("\n}", p);
  return ptx.substr(p, e == std::string::npos ? std::string::npos : e - p + 2);
}

/* The body of one kernel in cuobjdump/nvdisasm SASS text: from its
 * "Function : NAME" header (cuobjdump) or ".text.NAME:" label (nvdisasm)
 * to the next function. */
static std::string sass_body(const std::string &sass, const std::string &name) {
  size_t p = sass.find("Function : " + name + "\n");
  const char *next = "Function : ";
  if (p == std::string::npos) {
    p = sass.find(".text." + name + ":");
    next = ".text.";
  }
  if (p == std::string::npos)
    return "";
  size_t e = sass.find(next, p + 12);
  return sass.substr(p, e == std::string::npos ? std::string::npos : e - p);
}

static std::vector<std::string> lines_of(const std::string &body) {
  std::vector<std::string> v;
  size_t start = 0;
  while (start < body.size()) {
    size_t e = body.find('\n', start);
    if (e == std::string::npos)
      e = body.size();
    v.push_back(body.substr(start, e - start));
    start = e + 1;
  }
  return v;
}

/* Instructions of one kernel: how many lines contain `a` (and `b`, if
 * given), and how many of those sit inside a loop, i.e. between a label
 * and a later branch back to it. Works on PTX ("$L__BB0_3:" ... "bra
 * $L__BB0_3;") and on SASS from cuobjdump ("/ *0070* /" addresses, "BRA
 * 0x70") or nvdisasm (".L_x_2:" ... "BRA `(.L_x_2)"). */
struct icount {
  int total, in_loop;
};

static long sass_addr(const std::string &line) {
  size_t p = line.find("/*");
  if (p == std::string::npos || line.find("*/", p) == std::string::npos)
    return -1;
  char *end;
  long a = strtol(line.c_str() + p + 2, &end, 16);
  return *end == '*' ? a : -1;
}

static icount count_insn(const std::string &body, const char *a,
                         const char *b) {
  std::vector<std::string> ls = lines_of(body);
  std::vector<int> in_loop(ls.size(), 0);
  for (size_t i = 0; i < ls.size(); i++) {
    const std::string &l = ls[i];
    size_t p = l.find("bra");
    if (p == std::string::npos)
      p = l.find("BRA");
    if (p == std::string::npos)
      continue;
    std::string target = l.substr(p + 3);
    size_t t0 = target.find_first_not_of(" \t.uni`(");
    if (t0 == std::string::npos)
      continue;
    target = target.substr(t0);
    size_t t1 = target.find_first_of(" ;)\t");
    if (t1 != std::string::npos)
      target = target.substr(0, t1);
    long from = -1;
    if (target.compare(0, 2, "0x") == 0) { /* cuobjdump: an address */
      long addr = strtol(target.c_str(), NULL, 16);
      for (size_t j = 0; j < i; j++)
        if (sass_addr(ls[j]) == addr) {
          from = (long)j;
          break;
        }
    } else { /* a label line "NAME:" */
      for (size_t j = 0; j < i; j++)
        if (ls[j].find(target + ":") != std::string::npos) {
          from = (long)j;
          break;
        }
    }
    for (long j = from; j >= 0 && j <= (long)i; j++)
      in_loop[(size_t)j] = 1;
  }
  icount c = {0, 0};
  for (size_t i = 0; i < ls.size(); i++)
    if (ls[i].find(a) != std::string::npos &&
        (!b || ls[i].find(b) != std::string::npos)) {
      c.total++;
      c.in_loop += in_loop[i];
    }
  return c;
}

/* Only the instruction lines of a SASS body (the seed-style listing). */
static void print_sass(const std::string &body) {
  for (const std::string &line : lines_of(body)) {
    size_t semi = line.find(';');
    size_t code = line.find("*/");
    if (semi != std::string::npos && code != std::string::npos &&
        line.find("NOP") == std::string::npos) {
      size_t b = line.find_first_not_of(" \t", code + 2);
      printf("      %s\n", line.substr(b, semi - b + 1).c_str());
    }
  }
}

static void print_ptx(const std::string &body) {
  for (const std::string &line : lines_of(body))
    if (line.find_first_not_of(" \t") != std::string::npos &&
        line.find(".loc") == std::string::npos &&
        line.find("//") == std::string::npos)
      printf("      %s\n", line.c_str());
}

/* ------------------------------------------------------------------------ */
/* A. Static check                                                          */
/* ------------------------------------------------------------------------ */

struct kexpect {
  const char *name;  /* symbol */
  const char *label; /* what the table shows */
  int stores;        /* expected st.global / STG count, -1 = any */
  int loop_stores;   /* 1: some store must sit in the loop, 0: none may */
  int nc;            /* 1: must have .nc loads, 0: must have none */
  const char *seed;  /* what the seed's listing showed */
};

/* Check one kernel's counts (PTX or SASS); returns ok. */
static int expect(const kexpect &k, const char *where, icount st, icount nc) {
  int ok = 1;
  if (k.stores >= 0)
    ok &= micro_check(st.total == k.stores, "%s: %d stores in %s, want %d",
                      k.name, st.total, where, k.stores);
  ok &= micro_check(k.loop_stores ? st.in_loop > 0 : st.in_loop == 0,
                    "%s: %d stores inside the loop in %s, want %s", k.name,
                    st.in_loop, where, k.loop_stores ? "some" : "none");
  ok &= micro_check(k.nc ? nc.total > 0 : nc.total == 0,
                    "%s: %d read-only (.nc/.CONSTANT) loads in %s, want %s",
                    k.name, nc.total, where, k.nc ? "some" : "none");
  return ok;
}

static void static_check(void) {
  const kexpect ks[] = {
      {"_Z2f0PfS_", "f0 (seed)", 2, 0, 0, "2 st, no .nc"},
      {"_Z2f1PfS_", "f1 (seed, __restrict__)", 1, 0, 1, "1 st, ld.global.nc"},
      {"gather_plain", "gather plain", -1, 1, 0, "-"},
      {"gather_local", "gather local sum", -1, 0, 0, "-"},
      {"gather_restrict", "gather __restrict__", -1, 0, 1, "-"},
      {"gather_ldg", "gather __ldg", -1, 0, 1, "-"},
  };
  std::string cuobjdump = find_tool("cuobjdump");
  std::string nvcc = find_tool("nvcc");
  std::string nvdisasm = find_tool("nvdisasm");
  std::string ptx, sass, ptx_from, sass_from;
  int rc = 0;
  std::string exe = self_exe();
  if (!cuobjdump.empty() && !exe.empty()) {
    ptx = capture("'" + cuobjdump + "' -ptx '" + exe + "' 2>&1", &rc);
    if (rc == 0 && ptx.find(".entry") != std::string::npos)
      ptx_from = "cuobjdump -ptx of this program";
    else
      ptx.clear();
    sass = capture("'" + cuobjdump + "' -sass '" + exe + "' 2>&1", &rc);
    if (rc == 0 && sass.find("Function : ") != std::string::npos)
      sass_from = "cuobjdump -sass of this program";
    else
      sass.clear();
  }
  if ((ptx.empty() || sass.empty()) && !nvcc.empty()) {
    char dir[] = "/tmp/smv-restrict-XXXXXX";
    if (!mkdtemp(dir))
      micro_die("mkdtemp: %s", strerror(errno));
    std::string d(dir), src = d + "/k.cu";
    /* every way out removes the folder, a failure too */
    auto fail = [&](const std::string &why) {
      capture("rm -rf '" + d + "'", &rc);
      micro_die("%s", why.c_str());
    };
    FILE *f = fopen(src.c_str(), "w");
    if (!f || fputs(k_source, f) < 0 || fclose(f) != 0)
      fail("cannot write " + src);
    if (ptx.empty()) {
      std::string out = capture("'" + nvcc + "' -arch=sm_90 -O3 -ptx '" + src +
                                    "' -o '" + d + "/k.ptx' 2>&1",
                                &rc);
      if (rc != 0)
        fail("nvcc -ptx failed:\n" + out);
      ptx = capture("cat '" + d + "/k.ptx'", &rc);
      ptx_from = "nvcc -arch=sm_90 -O3 -ptx of the same source text";
    }
    if (sass.empty() && (!cuobjdump.empty() || !nvdisasm.empty())) {
      std::string out = capture("'" + nvcc + "' -arch=sm_90 -O3 -cubin '" +
                                    src + "' -o '" + d + "/k.cubin' 2>&1",
                                &rc);
      if (rc != 0)
        fail("nvcc -cubin failed:\n" + out);
      std::string dis = !cuobjdump.empty() ? "'" + cuobjdump + "' -sass '"
                                           : "'" + nvdisasm + "' '";
      sass = capture(dis + d + "/k.cubin' 2>&1", &rc);
      if (rc != 0)
        sass.clear();
      else
        sass_from = "nvcc -cubin of the same source text, disassembled";
    }
    capture("rm -rf '" + d + "'", &rc);
  }
  printf("\n-- static check: the seed's f0/f1 and the timed kernels\n");
  if (ptx.empty()) {
    micro_check(0, "no PTX to check: neither cuobjdump nor nvcc was found "
                   "(set CUDA_HOME or PATH)");
    return;
  }
  printf("   PTX from : %s\n", ptx_from.c_str());
  printf("   SASS from: %s\n",
         sass.empty() ? "none (no cuobjdump or nvdisasm here): SASS not "
                        "checked"
                      : sass_from.c_str());
  for (int i = 0; i < 2; i++) {
    std::string body = ptx_body(ptx, ks[i].name);
    printf("\n   PTX of %s:\n", ks[i].label);
    print_ptx(body);
    if (!sass.empty()) {
      printf("   SASS of %s:\n", ks[i].label);
      print_sass(sass_body(sass, ks[i].name));
    }
  }
  micro_table t = micro_table_new(
      "static", "seed 002: stores (in loops) and read-only loads per kernel",
      {"kernel", "PTX st.global", "PTX ld.global.nc", "SASS STG",
       "SASS LDG.CONSTANT", "seed (sm_35 PTX)", "check"});
  for (const kexpect &k : ks) {
    std::string pb = ptx_body(ptx, k.name);
    icount pst = count_insn(pb, "st.global", NULL);
    icount pnc = count_insn(pb, "ld.global.nc", NULL);
    int ok = micro_check(!pb.empty(), "%s not found in the PTX", k.name);
    if (ok)
      ok &= expect(k, "PTX", pst, pnc);
    std::string sst = "-", snc = "-";
    if (!sass.empty()) {
      std::string sb = sass_body(sass, k.name);
      icount ssto = count_insn(sb, "STG", NULL);
      icount sncc = count_insn(sb, "LDG", ".CONSTANT");
      sst = micro_fmt("%d (%d)", ssto.total, ssto.in_loop);
      snc = micro_fmt("%d", sncc.total);
      if (ok)
        ok &= micro_check(!sb.empty(), "%s not found in the SASS", k.name);
      if (ok)
        ok &= expect(k, "SASS", ssto, sncc);
    }
    micro_table_add(t, {k.label, micro_fmt("%d (%d)", pst.total, pst.in_loop),
                        micro_fmt("%d", pnc.total), sst, snc, k.seed,
                        ok ? "ok" : "FAILED"});
  }
  micro_table_print(t);
  std::string f1 = ptx_body(ptx, "_Z2f1PfS_");
  micro_note("stores: total (inside a loop). f1: the first store %s and the "
             "load of b %s ld.global.nc, as the seed saw with CUDA 5 on "
             "sm_35.",
             count_insn(f1, "st.global", NULL).total == 1 ? "vanished"
                                                          : "REMAINS",
             count_insn(f1, "ld.global.nc", NULL).total ? "is" : "is NOT");
}

/* ------------------------------------------------------------------------ */
/* B. Timing on a read-heavy gather                                          */
/* ------------------------------------------------------------------------ */

typedef void (*gather_fn)(int, const int *, const int *, const double *,
                          const double *, double *);

static void timing(void) {
  const int n = 1 << 20, per_row = 16;
  const size_t nnz = (size_t)n * per_row;
  micro_rng rng = {micro_fresh_seed()};
  std::vector<int> ptr(n + 1), col(nnz);
  std::vector<double> val(nnz), x(n), ref(n), back(n);
  for (int r = 0; r <= n; r++)
    ptr[r] = r * per_row;
  for (size_t k = 0; k < nnz; k++) {
    col[k] = (int)(micro_rand(&rng) % (uint64_t)n);
    val[k] = micro_rand01(&rng) - 0.5;
  }
  for (int i = 0; i < n; i++)
    x[i] = micro_rand01(&rng) + 0.5;
  std::vector<double> absref(n);
  for (int r = 0; r < n; r++) {
    double s = 0, a = 0;
    for (int k = ptr[r]; k < ptr[r + 1]; k++) {
      s += val[k] * x[col[k]];
      a += fabs(val[k] * x[col[k]]);
    }
    ref[r] = s;
    absref[r] = a;
  }
  micro_dbuf<int> dptr(n + 1), dcol(nnz);
  micro_dbuf<double> dval(nnz), dx(n), dy(n);
  dptr.upload(ptr.data());
  dcol.upload(col.data());
  dval.upload(val.data());
  dx.upload(x.data());
  struct {
    const char *name;
    gather_fn fn;
  } cases[] = {{"plain (y[r] += in loop)", gather_plain},
               {"local sum", gather_local},
               {"__restrict__ (y[r] += in loop)", gather_restrict},
               {"__ldg + local sum", gather_ldg}};
  micro_table t = micro_table_new(
      "gather", "read-heavy gather y[r] = sum val[k]*x[col[k]], fp64",
      {"kernel", "ms", "GB/s", "speedup vs plain", "seed"});
  /* Bytes: val + col once, x once per nonzero (8 B, gathered), ptr, y. */
  const double bytes = nnz * (8.0 + 4.0 + 8.0) + (n + 1) * 4.0 + n * 8.0;
  double plain_ms = NAN;
  for (auto &c : cases) {
    const int block = 256, grid = (n + block - 1) / block;
    auto launch = [&] {
      c.fn<<<grid, block>>>(n, dptr.p, dcol.p, dval.p, dx.p, dy.p);
    };
    double ms = micro_time_ms(launch, 3, 30);
    micro_run_checked(launch, dy, back.data());
    size_t bad = 0;
    for (int r = 0; r < n; r++)
      bad += !(fabs(back[r] - ref[r]) <= 1e-13 * absref[r] + 1e-300);
    micro_check(bad == 0, "gather %s: %zu of %d rows wrong", c.name, bad, n);
    if (c.fn == gather_plain)
      plain_ms = ms;
    micro_table_add(t, {c.name, micro_num(ms, 4),
                        micro_num(bytes / (ms * 1e-3) / 1e9, 0),
                        micro_num(plain_ms / ms, 2), "-"});
  }
  micro_table_print(t);
  micro_note("%d rows x %d random columns; GB/s counts val, col, x per "
             "nonzero, ptr and y once. The seed had no K20 to time on.",
             n, per_row);
}

int main(int argc, char **argv) {
  static const char *const extra[] = {"--static", NULL};
  micro_args a = micro_parse(argc, argv, "restrict", k_help, extra);
  printf("== smv micro restrict — __restrict__ and the read-only path (seed "
         "002)\n");
  if (a.flags & 1u) {
    static_check();
    return micro_finish();
  }
  micro_open_device();
  static_check();
  timing();
  return micro_finish();
}
