/* cmd_occupancy.c — `smv occupancy`: the occupancy calculator on any
 * compute capability of the table, on the current GPU (--cc native), or for
 * one of smv's own kernels with its real registers and shared memory
 * (--kernel); a block-size sweep as a table and a gnuplot PNG (the seed's
 * figure: warps per SM against block size); the architecture table. */
#include "../bench/bench.h" /* bench_json_string */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD "occupancy"

static void occ_help(FILE *f) {
  fprintf(
      f,
      "usage: smv occupancy --cc CC --threads N --regs R [--smem BYTES] "
      "[--json]\n"
      "       smv occupancy --cc CC --regs R [--smem BYTES] --sweep "
      "[--plot FILE.png]\n"
      "       smv occupancy --kernel NAME [--precision f64|f32] [--threads "
      "N | --sweep]\n"
      "       smv occupancy --list [--json]\n"
      "\n"
      "How many blocks of a kernel one SM holds at once, which limit binds "
      "(warps,\n"
      "blocks, registers, shared memory) and how many blocks each limit "
      "alone allows.\n"
      "The model is the toolkit's cuda_occupancy.h (checked against it "
      "configuration\n"
      "by configuration), extended to Fermi by the CUDA Occupancy "
      "Calculator.\n"
      "\n"
      "  --cc CC              compute capability: 3.5, 35, sm_90, 12.0, or "
      "'native'\n"
      "                       (the GPU of --device); see --list\n"
      "  --threads N          threads per block (1..1024)\n"
      "  --regs R             registers per thread (0..255; 63 on CC 2.x "
      "and 3.0)\n"
      "  --smem BYTES         shared memory per block, static + dynamic "
      "(default 0;\n"
      "                       suffix K = 1024 bytes: 48K)\n"
      "  --smem-per-thread B  plus B bytes per thread (the seed's vector "
      "kernel:\n"
      "                       --smem 128 --smem-per-thread 8 = (Db + 16) * "
      "8)\n"
      "  --carveout PCT       preferred shared memory in percent of the "
      "largest\n"
      "                       (Volta and later; also maxl1 = 0, maxshared = "
      "100,\n"
      "                       default = no preference: the largest)\n"
      "  --cache-config C     none, shared, l1 or equal "
      "(cudaFuncSetCacheConfig:\n"
      "                       Fermi, Kepler)\n"
      "  --sweep              every block size 32..1024 (step 32): table, "
      "best block,\n"
      "                       and a plot of warps per SM against block size\n"
      "  --plot FILE.png      where the sweep's plot goes (FILE.dat and "
      "FILE.gp beside\n"
      "                       it; default occupancy_ccXY_rR.png); needs "
      "gnuplot\n"
      "  --no-plot            sweep without writing plot files\n"
      "  --kernel NAME        an smv kernel (spmv_vector_shfl, "
      "vector-shfl, 5, ...):\n"
      "                       its real registers and shared memory on this "
      "GPU, our\n"
      "                       figure beside the CUDA runtime's\n"
      "  --precision P        f64 (default) or f32, with --kernel\n"
      "  --device N           CUDA device for native and --kernel (default "
      "0)\n"
      "  --list               the architecture table\n"
      "  --json               machine-readable output\n"
      "  -h, --help           this text\n"
      "\n"
      "Example (seed 000, Kepler K20, its SpMV kernel uses 27 registers):\n"
      "  smv occupancy --cc 3.5 --threads 128 --regs 27\n"
      "  smv occupancy --cc 3.5 --regs 27 --smem 128 --smem-per-thread 8 "
      "--sweep\n"
      "\n"
      "Exit status: 0 ok, 1 no device (native, --kernel) or runtime error, "
      "2 usage\n"
      "error (bad number, unknown compute capability, a limit exceeded).\n");
}

struct opts {
  const char *cc, *kernel, *plot;
  long threads, regs, smem, smem_per_thread, device;
  int have_threads, have_regs, have_smem;
  int sweep, no_plot, list, json;
  smv_occupancy_options pref;
  smv_precision prec;
};

/* ---- parsing -------------------------------------------------------------
 */

/* Bytes with an optional K/KB/KiB (1024) suffix. */
static int parse_bytes(const char *s, long *v) {
  char buf[64];
  size_t n = strlen(s);
  long mult = 1;
  if (n == 0 || n >= sizeof buf)
    return -1;
  memcpy(buf, s, n + 1);
  const char *suffixes[] = {"KiB", "KB", "K", "k"};
  for (int i = 0; i < 4; i++) {
    size_t m = strlen(suffixes[i]);
    if (n > m && strcmp(buf + n - m, suffixes[i]) == 0) {
      buf[n - m] = '\0';
      mult = 1024;
      break;
    }
  }
  long x;
  if (cli_parse_long(buf, 0, 1L << 30, &x) != 0)
    return -1;
  *v = x * mult;
  return 0;
}

static int parse_carveout(const char *s, int *c) {
  long v;
  if (strcmp(s, "default") == 0)
    *c = SMV_CARVEOUT_DEFAULT;
  else if (strcmp(s, "maxl1") == 0)
    *c = 0;
  else if (strcmp(s, "maxshared") == 0)
    *c = 100;
  else if (cli_parse_long(s, -1, 100, &v) == 0)
    *c = (int)v;
  else
    return -1;
  return 0;
}

static const char *cache_names[] = {"none", "shared", "l1", "equal"};

static int parse_cache(const char *s, smv_cache_config *c) {
  for (int i = 0; i < 4; i++)
    if (strcmp(s, cache_names[i]) == 0) {
      *c = (smv_cache_config)i;
      return 0;
    }
  return -1;
}

/* Value of option argv[*i] ("--opt=V" or "--opt V", by cli_opt_value);
 * NULL if this argument is not `name`. A missing value gives "" and sets
 * *missing, so the caller's message can quote what it got. */
static const char *opt_value(int argc, char **argv, int *i, const char *name,
                             int *missing) {
  const char *v = "";
  int r = cli_opt_value(argc, argv, i, name, NULL, &v);
  if (r == 0)
    return NULL;
  *missing = r < 0;
  return v;
}

static int parse_args(int argc, char **argv, struct opts *o) {
  memset(o, 0, sizeof *o);
  o->pref.carveout = SMV_CARVEOUT_DEFAULT;
  o->pref.cache_config = SMV_CACHE_PREFER_NONE;
  o->prec = SMV_F64;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int miss = 0;
    if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--sweep") == 0) {
      o->sweep = 1;
    } else if (strcmp(a, "--no-plot") == 0) {
      o->no_plot = 1;
    } else if (strcmp(a, "--list") == 0) {
      o->list = 1;
    } else if ((v = opt_value(argc, argv, &i, "--cc", &miss))) {
      if (miss)
        return cli_usage(CMD, "--cc needs a compute capability (e.g. 3.5)");
      o->cc = v;
    } else if ((v = opt_value(argc, argv, &i, "--threads", &miss))) {
      if (miss || cli_parse_long(v, 1, 1 << 20, &o->threads) != 0)
        return cli_usage(CMD, "--threads needs a positive number, got '%s'", v);
      o->have_threads = 1;
    } else if ((v = opt_value(argc, argv, &i, "--regs", &miss))) {
      if (miss || cli_parse_long(v, 0, 1 << 20, &o->regs) != 0)
        return cli_usage(CMD,
                         "--regs needs a number of registers (0..255), got "
                         "'%s'",
                         v);
      o->have_regs = 1;
    } else if ((v = opt_value(argc, argv, &i, "--smem-per-thread", &miss))) {
      if (miss || parse_bytes(v, &o->smem_per_thread) != 0)
        return cli_usage(CMD, "--smem-per-thread needs bytes, got '%s'", v);
    } else if ((v = opt_value(argc, argv, &i, "--smem", &miss))) {
      if (miss || parse_bytes(v, &o->smem) != 0)
        return cli_usage(CMD, "--smem needs bytes (e.g. 4096 or 48K), got '%s'",
                         v);
      o->have_smem = 1;
    } else if ((v = opt_value(argc, argv, &i, "--carveout", &miss))) {
      if (miss || parse_carveout(v, &o->pref.carveout) != 0)
        return cli_usage(CMD,
                         "--carveout needs 0..100, default, maxl1 or "
                         "maxshared, got '%s'",
                         v);
    } else if ((v = opt_value(argc, argv, &i, "--cache-config", &miss))) {
      if (miss || parse_cache(v, &o->pref.cache_config) != 0)
        return cli_usage(CMD,
                         "--cache-config needs none, shared, l1 or equal, "
                         "got '%s'",
                         v);
    } else if ((v = opt_value(argc, argv, &i, "--plot", &miss))) {
      if (miss || !*v)
        return cli_usage(CMD, "--plot needs a file name (e.g. occ.png)");
      if (cli_check_script_name(CMD, "--plot", v) != CLI_OK)
        return CLI_USAGE;
      o->plot = v;
    } else if ((v = opt_value(argc, argv, &i, "--kernel", &miss))) {
      if (miss || !*v)
        return cli_usage(CMD, "--kernel needs a kernel or rung name (e.g. "
                              "spmv_vector_shfl)");
      o->kernel = v;
    } else if ((v = opt_value(argc, argv, &i, "--precision", &miss))) {
      if (!miss && strcmp(v, "f64") == 0)
        o->prec = SMV_F64;
      else if (!miss && strcmp(v, "f32") == 0)
        o->prec = SMV_F32;
      else
        return cli_usage(CMD, "--precision needs f64 or f32, got '%s'", v);
    } else if ((v = opt_value(argc, argv, &i, "--device", &miss))) {
      if (miss || cli_parse_long(v, 0, 1023, &o->device) != 0)
        return cli_usage(CMD, "--device needs a device number, got '%s'", v);
    } else {
      return cli_usage(CMD, "unknown argument '%s'", a);
    }
  }
  /* Which mode, and what it needs. */
  if (o->list) {
    if (o->cc || o->kernel || o->sweep || o->have_threads || o->have_regs)
      return cli_usage(CMD, "--list takes only --json");
    return CLI_OK;
  }
  if (o->kernel) {
    if (o->cc && strcmp(o->cc, "native") != 0)
      return cli_usage(CMD, "--kernel reads this GPU's kernel: drop --cc %s",
                       o->cc);
    if (o->have_regs || o->have_smem || o->smem_per_thread)
      return cli_usage(CMD, "--kernel reads the kernel's own registers and "
                            "shared memory: drop --regs/--smem");
  } else {
    if (!o->cc)
      return cli_usage(CMD, "missing --cc (e.g. --cc 3.5, --cc native), "
                            "--kernel NAME or --list");
    if (!o->have_regs)
      return cli_usage(CMD, "missing --regs (registers per thread, from "
                            "ptxas -v or cuobjdump --dump-resource-usage)");
  }
  if (o->sweep && o->have_threads)
    return cli_usage(CMD, "--sweep tries every block size: drop --threads");
  if (!o->sweep && !o->kernel && !o->have_threads)
    return cli_usage(CMD, "missing --threads (threads per block) or --sweep");
  if (!o->sweep && (o->plot || o->no_plot))
    return cli_usage(CMD, "--plot and --no-plot go with --sweep");
  if (o->plot && o->no_plot)
    return cli_usage(CMD, "--plot and --no-plot together");
  return CLI_OK;
}

/* ---- architecture --------------------------------------------------------
 */

static void known_ccs(char *buf, size_t n) {
  int count = 0;
  const smv_arch *t = smv_arch_table(&count);
  size_t at = 0;
  buf[0] = '\0';
  for (int i = 0; i < count && at < n; i++) {
    int w = snprintf(buf + at, n - at, "%s%d.%d", i ? " " : "", t[i].cc_major,
                     t[i].cc_minor);
    if (w < 0)
      break;
    at += (size_t)w;
  }
}

/* The device context for native and --kernel; prints the error itself. */
static int open_device(const struct opts *o, smv_context **ctx,
                       smv_device_props *p) {
  smv_status st = smv_context_create((int)o->device, ctx);
  if (st != SMV_OK) {
    cli_error("%s needs a CUDA device: %s%s%s%s",
              o->kernel ? "--kernel" : "--cc native", smv_status_string(st),
              *ctx ? " (" : "", *ctx ? smv_context_error(*ctx) : "",
              *ctx ? ")" : "");
    if (!o->kernel)
      fprintf(stderr, "smv: any architecture works without a GPU: --cc 9.0 "
                      "(smv occupancy --list)\n");
    smv_context_free(*ctx);
    *ctx = NULL;
    return CLI_ERR;
  }
  st = smv_device_props_get(*ctx, p);
  if (st != SMV_OK) {
    cli_error("reading device %ld: %s", o->device, smv_context_error(*ctx));
    smv_context_free(*ctx);
    *ctx = NULL;
    return CLI_ERR;
  }
  return CLI_OK;
}

static int arch_of_device(const smv_device_props *p, const smv_arch **arch) {
  *arch = smv_arch_find(p->cc_major, p->cc_minor);
  if (!*arch) {
    char known[256];
    known_ccs(known, sizeof known);
    cli_error("%s has compute capability %d.%d, which the table lacks "
              "(known: %s)",
              p->name, p->cc_major, p->cc_minor, known);
    return CLI_ERR;
  }
  return CLI_OK;
}

static int arch_of_string(const char *cc, const smv_arch **arch) {
  int maj, min;
  char known[256];
  known_ccs(known, sizeof known);
  if (smv_arch_parse_cc(cc, &maj, &min) != SMV_OK)
    return cli_usage(CMD,
                     "--cc '%s' is not a compute capability (e.g. 3.5, 90, "
                     "sm_80; known: %s)",
                     cc, known);
  *arch = smv_arch_find(maj, min);
  if (!*arch)
    return cli_usage(CMD, "unknown compute capability %d.%d (known: %s)", maj,
                     min, known);
  return CLI_OK;
}

/* ---- printing ------------------------------------------------------------
 */

static const char *limit_names[] = {"warps", "blocks", "registers",
                                    "shared_memory"};

static void print_limits_json(FILE *f, unsigned bits) {
  int first = 1;
  fputc('[', f);
  for (int k = 0; k < 4; k++)
    if (bits & (1u << k)) {
      fprintf(f, "%s\"%s\"", first ? "" : ",", limit_names[k]);
      first = 0;
    }
  fputc(']', f);
}

/* "warps, blocks, shared memory" (40 bytes at most, NUL included); "-" if
 * no bit is set. Returns buf. */
static const char *limits_text(char buf[64], unsigned bits) {
  buf[0] = '\0';
  for (int k = 0; k < 4; k++)
    if (bits & (1u << k)) {
      if (buf[0])
        strcat(buf, ", ");
      strcat(buf, k == 3 ? "shared memory" : limit_names[k]);
    }
  if (!buf[0])
    strcpy(buf, "-");
  return buf;
}

static void json_count(FILE *f, const char *key, int v) {
  if (v == SMV_OCC_UNLIMITED)
    fprintf(f, "\"%s\":null", key);
  else
    fprintf(f, "\"%s\":%d", key, v);
}

static void print_result_json_fields(FILE *f, const smv_occupancy_result *r) {
  fprintf(f,
          "\"blocks_per_sm\":%d,\"warps_per_sm\":%d,\"max_warps_per_sm\":%d,"
          "\"occupancy\":%.6f,\"limited_by\":",
          r->blocks_per_sm, r->warps_per_sm, r->max_warps_per_sm, r->occupancy);
  print_limits_json(f, r->limited_by);
  fputc(',', f);
  json_count(f, "blocks_by_warps", r->blocks_by_warps);
  fputc(',', f);
  json_count(f, "blocks_by_blocks", r->blocks_by_blocks);
  fputc(',', f);
  json_count(f, "blocks_by_regs", r->blocks_by_regs);
  fputc(',', f);
  json_count(f, "blocks_by_smem", r->blocks_by_smem);
  fprintf(f,
          ",\"warps_per_block\":%d,\"regs_per_warp\":%d,"
          "\"regs_per_block\":%d,\"warps_by_regs\":%d,"
          "\"smem_allocated_per_block\":%zu,\"smem_per_sm\":%d,"
          "\"smem_optin\":%s",
          r->warps_per_block, r->regs_per_warp, r->regs_per_block,
          r->warps_by_regs, r->smem_per_block, r->smem_per_sm,
          r->smem_optin ? "true" : "false");
}

static void print_arch_json_fields(FILE *f, const smv_arch *a) {
  fprintf(f, "\"cc\":\"%d.%d\",\"arch\":", a->cc_major, a->cc_minor);
  bench_json_string(f, a->name);
}

static const char *prec_name(smv_precision p) {
  return p == SMV_F64 ? "f64" : "f32";
}

/* The --kernel modes' identity: device, kernel, rung, precision. */
static void print_kernel_json_fields(FILE *f, const char *device, smv_alg alg,
                                     smv_precision prec) {
  fputs("\"device\":", f);
  bench_json_string(f, device);
  fprintf(f, ",\"kernel\":\"%s\",\"alg\":\"%s\",\"precision\":\"%s\"",
          smv_kernel_name(alg), smv_alg_name(alg), prec_name(prec));
}

static void print_pref_json_fields(FILE *f, const smv_occupancy_options *p) {
  fprintf(f, "\"carveout\":%d,\"cache_config\":\"%s\"", p->carveout,
          cache_names[p->cache_config]);
}

static void fmt_count(char *buf, size_t n, int v) {
  if (v == SMV_OCC_UNLIMITED)
    snprintf(buf, n, "unlimited");
  else
    snprintf(buf, n, "%d", v);
}

/* The seed's explanation, limit by limit, with the arithmetic. */
static void print_result_text(const smv_arch *a, int threads, int regs,
                              long smem, const smv_occupancy_options *p,
                              const smv_occupancy_result *r) {
  char c[32], lim[64];
  printf("CC %d.%d %s: %d threads per block (%d warp%s), %d registers per "
         "thread, %ld bytes of shared memory per block\n\n",
         a->cc_major, a->cc_minor, a->name, threads, r->warps_per_block,
         r->warps_per_block == 1 ? "" : "s", regs, smem);
  printf("  %-14s %9s  %s\n", "limit", "blocks/SM", "why");
  fmt_count(c, sizeof c, r->blocks_by_warps);
  printf("  %-14s %9s  %d warps per SM / %d warps per block\n", "warps", c,
         a->max_warps_per_sm, r->warps_per_block);
  printf("  %-14s %9d  at most %d resident blocks per SM\n", "blocks",
         r->blocks_by_blocks, a->max_blocks_per_sm);
  fmt_count(c, sizeof c, r->blocks_by_regs);
  if (regs == 0) {
    printf("  %-14s %9s  no registers used\n", "registers", c);
  } else if (a->reg_alloc_per_warp) {
    printf("  %-14s %9s  %d x 32 = %d -> %d registers per warp (unit %d); "
           "%d / %d partitions / %d\n"
           "  %-14s %9s  = %d warps each, %d per SM, / %d warps per block\n",
           "registers", c, regs, regs * 32, r->regs_per_warp, a->reg_alloc_unit,
           a->regs_per_sm, a->warp_alloc_granularity, r->regs_per_warp, "", "",
           r->regs_per_warp
               ? a->regs_per_sm / a->warp_alloc_granularity / r->regs_per_warp
               : 0,
           r->warps_by_regs, r->warps_per_block);
    if (r->blocks_by_regs == 0)
      printf("  %-14s %9s  a block needs %d registers: over the %d a block "
             "may hold, or more warps than the register file holds\n",
             "", "", r->regs_per_block, a->regs_per_block);
  } else {
    printf("  %-14s %9s  %d registers per block (unit %d, warps rounded to "
           "%d); %d / %d\n",
           "registers", c, r->regs_per_block, a->reg_alloc_unit,
           a->warp_alloc_granularity, a->regs_per_sm, r->regs_per_block);
  }
  fmt_count(c, sizeof c, r->blocks_by_smem);
  if (r->smem_per_block == 0)
    printf("  %-14s %9s  no shared memory used\n", "shared memory", c);
  else
    printf("  %-14s %9s  %ld + %d reserved -> %zu bytes per block (unit %d); "
           "%d / %zu\n",
           "shared memory", c, smem, a->smem_reserved_per_block,
           r->smem_per_block, a->smem_alloc_unit, r->smem_per_sm,
           r->smem_per_block);
  printf("\n  shared memory per SM: %d bytes (", r->smem_per_sm);
  if (a->smem_model == SMV_SMEM_FIXED)
    printf("dedicated)\n");
  else if (p->carveout == SMV_CARVEOUT_DEFAULT &&
           p->cache_config == SMV_CACHE_PREFER_NONE)
    printf("no preference: the largest)\n");
  else
    printf("carveout %d%%, cache config %s, rounded to a supported size)\n",
           p->carveout, cache_names[p->cache_config]);
  if (r->smem_optin)
    printf("  above the default %d bytes per block: the kernel must opt in "
           "with cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, %ld)\n",
           a->smem_per_block, smem);
  printf("\n");
  if (r->blocks_per_sm == 0) {
    printf("=> cannot launch: no block of this kernel fits an SM (limited by "
           "%s)\n",
           limits_text(lim, r->limited_by));
    return;
  }
  printf("=> %d block%s x %d warp%s = %d of %d warps per SM: occupancy "
         "%.1f%% (limited by %s)\n",
         r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s", r->warps_per_block,
         r->warps_per_block == 1 ? "" : "s", r->warps_per_sm,
         r->max_warps_per_sm, 100.0 * r->occupancy,
         limits_text(lim, r->limited_by));
}

/* ---- checks that make a bad request a usage error ------------------------
 */

static int check_request(const smv_arch *a, long threads, long regs,
                         long smem) {
  if (threads > a->max_threads_per_block)
    return cli_usage(CMD, "%ld threads per block: CC %d.%d allows at most %d",
                     threads, a->cc_major, a->cc_minor,
                     a->max_threads_per_block);
  if (regs > a->max_regs_per_thread)
    return cli_usage(CMD,
                     "%ld registers per thread: CC %d.%d allows at most %d",
                     regs, a->cc_major, a->cc_minor, a->max_regs_per_thread);
  if (smem > a->smem_per_block_optin)
    return cli_usage(CMD,
                     "%ld bytes of shared memory per block: CC %d.%d allows "
                     "at most %d (with opt-in)",
                     smem, a->cc_major, a->cc_minor, a->smem_per_block_optin);
  return CLI_OK;
}

/* ---- plot ----------------------------------------------------------------
 */

/* Is `prog` an executable in $PATH (what `command -v` answers)? */

struct sweep_row {
  int threads;
  int valid;
  smv_occupancy_result r;
  long smem;
  int runtime_blocks; /* -1: not asked (no device) */
};

/* FILE.png -> FILE.dat and FILE.gp (other names: NAME.dat, NAME.gp). */
static int plot_names(const char *png, char *dat, char *gp, size_t n) {
  size_t len = strlen(png);
  size_t base = len;
  if (len > 4 && strcmp(png + len - 4, ".png") == 0)
    base = len - 4;
  if (base + 5 > n)
    return -1;
  snprintf(dat, n, "%.*s.dat", (int)base, png);
  snprintf(gp, n, "%.*s.gp", (int)base, png);
  return 0;
}

static int write_plot(const char *png, const char *title, const char *subtitle,
                      const smv_arch *a, const struct sweep_row *rows, int n,
                      const struct sweep_row *best, int with_runtime,
                      int *ran) {
  char dat[4096], gp[4096];
  *ran = 0;
  if (plot_names(png, dat, gp, sizeof dat) != 0) {
    cli_error("plot file name too long: %s", png);
    return CLI_ERR;
  }
  FILE *f = cli_out_open(dat);
  if (!f)
    return CLI_ERR;
  fprintf(f,
          "# %s\n# %s\n# threads_per_block warps_per_sm blocks_per_sm "
          "occupancy_percent%s\n",
          title, subtitle, with_runtime ? " runtime_warps_per_sm" : "");
  for (int i = 0; i < n; i++) {
    if (!rows[i].valid)
      continue;
    fprintf(f, "%d %d %d %.2f", rows[i].threads, rows[i].r.warps_per_sm,
            rows[i].r.blocks_per_sm, 100.0 * rows[i].r.occupancy);
    if (with_runtime)
      fprintf(f, " %d", rows[i].runtime_blocks * rows[i].r.warps_per_block);
    fputc('\n', f);
  }
  if (cli_out_close(f) != 0)
    return CLI_ERR;
  f = cli_out_open(gp);
  if (!f)
    return CLI_ERR;
  fprintf(f, "# gnuplot script written by smv occupancy --sweep; run: "
             "gnuplot ");
  fprintf(f, "%s\n", gp);
  fprintf(f, "set terminal pngcairo size 960,560 enhanced font 'Sans,11'\n");
  fprintf(f, "set output ");
  cli_gnuplot_string(f, png);
  fprintf(f, "\nset title ");
  cli_gnuplot_string(f, title);
  fprintf(f, ".\"\\n\".");
  cli_gnuplot_string(f, subtitle);
  fprintf(f,
          " noenhanced\n"
          "set xlabel 'threads per block (Db)'\n"
          "set ylabel 'resident warps per SM'\n"
          "set xrange [0:1056]\nset xtics 0,128,1024\nset mxtics 4\n"
          "set yrange [0:%d]\nset ytics 0,8,%d\n"
          "set grid xtics ytics\nset key bottom right\n",
          a->max_warps_per_sm + 8, a->max_warps_per_sm + 8);
  fprintf(f, "set arrow from 0,%d to 1056,%d nohead dt 2 lc rgb '#808080'\n",
          a->max_warps_per_sm, a->max_warps_per_sm);
  fprintf(f,
          "set label 'max %d warps/SM' at 40,%d font ',9' tc rgb "
          "'#606060'\n",
          a->max_warps_per_sm, a->max_warps_per_sm + 3);
  fprintf(f, "plot ");
  cli_gnuplot_string(f, dat);
  fprintf(f, " using 1:2 with linespoints pt 7 ps 0.8 lc rgb '#1f5fbf' "
             "title 'warps per SM (smv model)'");
  if (with_runtime) {
    fprintf(f, ", ");
    cli_gnuplot_string(f, dat);
    fprintf(f, " using 1:5 with points pt 6 ps 1.6 lc rgb '#2a9d2a' "
               "title 'CUDA runtime'");
  }
  fprintf(f, ", ");
  cli_gnuplot_string(f, dat);
  fprintf(f,
          " using ($1 == %d ? $1 : 1/0):2 with points pt 7 ps 2 lc rgb "
          "'#c00000' title 'best: Db = %d, %d warps (%.0f%%), the smallest "
          "block at the highest occupancy'\n",
          best->threads, best->threads, best->r.warps_per_sm,
          100.0 * best->r.occupancy);
  if (cli_out_close(f) != 0)
    return CLI_ERR;
  if (!cli_have_gnuplot()) {
    fprintf(stderr,
            "smv: gnuplot not found: wrote %s and %s; to draw %s install "
            "gnuplot (apt-get install gnuplot-nox) and run 'gnuplot %s'\n",
            dat, gp, png, gp);
    return CLI_OK;
  }
  int rc = cli_run_gnuplot(gp);
  if (rc > 0) {
    cli_error("running gnuplot: %s", strerror(rc));
    return CLI_ERR;
  }
  if (rc < 0) {
    cli_error("gnuplot %s failed (its message is above)", gp);
    return CLI_ERR;
  }
  struct stat sb;
  if (stat(png, &sb) != 0 || sb.st_size == 0) {
    cli_error("gnuplot ran but %s is missing or empty", png);
    return CLI_ERR;
  }
  *ran = 1;
  return CLI_OK;
}

/* ---- modes ---------------------------------------------------------------
 */

static int do_list(const struct opts *o) {
  int n = 0;
  const smv_arch *t = smv_arch_table(&n);
  if (o->json) {
    printf("[");
    for (int i = 0; i < n; i++) {
      const smv_arch *a = &t[i];
      printf("%s\n {", i ? "," : "");
      print_arch_json_fields(stdout, a);
      printf(",\"max_threads_per_block\":%d,\"max_warps_per_sm\":%d,"
             "\"max_blocks_per_sm\":%d,\"regs_per_sm\":%d,"
             "\"regs_per_block\":%d,\"max_regs_per_thread\":%d,"
             "\"reg_alloc_unit\":%d,\"reg_alloc\":\"%s\","
             "\"warp_alloc_granularity\":%d,\"smem_per_sm\":%d,"
             "\"smem_per_block\":%d,\"smem_per_block_optin\":%d,"
             "\"smem_alloc_unit\":%d,\"smem_reserved_per_block\":%d,"
             "\"smem_configs\":[",
             a->max_threads_per_block, a->max_warps_per_sm,
             a->max_blocks_per_sm, a->regs_per_sm, a->regs_per_block,
             a->max_regs_per_thread, a->reg_alloc_unit,
             a->reg_alloc_per_warp ? "warp" : "block",
             a->warp_alloc_granularity, a->smem_per_sm, a->smem_per_block,
             a->smem_per_block_optin, a->smem_alloc_unit,
             a->smem_reserved_per_block);
      for (int k = 0; k < a->smem_config_count; k++)
        printf("%s%d", k ? "," : "", a->smem_configs[k]);
      printf("],\"source\":");
      bench_json_string(stdout, a->source);
      printf("}");
    }
    printf("\n]\n");
    return CLI_OK;
  }
  printf("%-5s %-26s %5s %6s %7s %7s %4s %8s %4s %7s %6s %6s %5s %4s\n", "CC",
         "architecture", "warps", "blocks", "regs/SM", "regs/bl", "reg",
         "reg unit", "gran", "smem/SM", "smem/b", "opt-in", "unit", "rsv");
  for (int i = 0; i < n; i++) {
    const smv_arch *a = &t[i];
    char cc[8], unit[16];
    snprintf(cc, sizeof cc, "%d.%d", a->cc_major, a->cc_minor);
    snprintf(unit, sizeof unit, "%d/%s", a->reg_alloc_unit,
             a->reg_alloc_per_warp ? "warp" : "blk");
    printf("%-5s %-26s %5d %6d %7d %7d %4d %8s %4d %6dK %5dK %5dK %5d %4d\n",
           cc, a->name, a->max_warps_per_sm, a->max_blocks_per_sm,
           a->regs_per_sm, a->regs_per_block, a->max_regs_per_thread, unit,
           a->warp_alloc_granularity, a->smem_per_sm / 1024,
           a->smem_per_block / 1024, a->smem_per_block_optin / 1024,
           a->smem_alloc_unit, a->smem_reserved_per_block);
  }
  printf("\nwarps, blocks: resident per SM; reg: max registers per thread; "
         "gran: warp allocation\ngranularity (register partitions); smem/b: "
         "default max per block; rsv: bytes\nreserved per block. Sources per "
         "row: smv occupancy --list --json, src/arch_table.c.\n");
  return CLI_OK;
}

static int do_single(const struct opts *o, const smv_arch *a,
                     const char *device_name) {
  long smem = o->smem + o->smem_per_thread * o->threads;
  int rc = check_request(a, o->threads, o->regs, smem);
  if (rc != CLI_OK)
    return rc;
  smv_occupancy_result r;
  smv_status st = smv_occupancy_ex(a, (int)o->threads, (int)o->regs,
                                   (size_t)smem, &o->pref, &r);
  if (st != SMV_OK)
    return cli_usage(CMD, "invalid request: %s", smv_status_string(st));
  if (o->json) {
    printf("{");
    print_arch_json_fields(stdout, a);
    if (device_name) {
      printf(",\"device\":");
      bench_json_string(stdout, device_name);
    }
    printf(",\"threads_per_block\":%ld,\"regs_per_thread\":%ld,"
           "\"smem_per_block\":%ld,",
           o->threads, o->regs, smem);
    print_pref_json_fields(stdout, &o->pref);
    printf(",");
    print_result_json_fields(stdout, &r);
    printf("}\n");
    return CLI_OK;
  }
  if (device_name)
    printf("device: %s\n", device_name);
  print_result_text(a, (int)o->threads, (int)o->regs, smem, &o->pref, &r);
  return CLI_OK;
}

/* Rows of the sweep; for --kernel, the registers and shared memory come
 * from the kernel at each block size and the runtime's figure is asked. */
static int sweep_rows(const struct opts *o, const smv_arch *a, smv_context *ctx,
                      smv_alg alg, struct sweep_row *rows, int *nrows) {
  int n = 0;
  for (int b = 32; b <= a->max_threads_per_block; b += 32) {
    struct sweep_row *w = &rows[n++];
    memset(w, 0, sizeof *w);
    w->threads = b;
    w->runtime_blocks = -1;
    int regs = (int)o->regs;
    long smem = o->smem + o->smem_per_thread * b;
    if (ctx) {
      smv_kernel_attrs ka;
      smv_status st = smv_kernel_attributes(ctx, alg, o->prec, b, &ka);
      if (st != SMV_OK) {
        cli_error("smv_kernel_attributes(%s, block %d): %s",
                  smv_kernel_name(alg), b, smv_context_error(ctx));
        return CLI_ERR;
      }
      if (b > ka.max_threads_per_block)
        continue; /* beyond the kernel's launch bounds */
      regs = ka.regs_per_thread;
      smem = (long)(ka.static_smem_bytes + ka.dynamic_smem_bytes);
      int rb = 0;
      st = smv_kernel_occupancy_cuda(ctx, alg, o->prec, b, &rb);
      if (st != SMV_OK) {
        cli_error("smv_kernel_occupancy_cuda(%s, block %d): %s",
                  smv_kernel_name(alg), b, smv_context_error(ctx));
        return CLI_ERR;
      }
      w->runtime_blocks = rb;
    }
    w->smem = smem;
    if (smem > a->smem_per_block_optin)
      continue; /* this size cannot launch: left out of the sweep */
    if (smv_occupancy_ex(a, b, regs, (size_t)smem, &o->pref, &w->r) == SMV_OK)
      w->valid = 1;
  }
  *nrows = n;
  return CLI_OK;
}

static int do_sweep(const struct opts *o, const smv_arch *a, smv_context *ctx,
                    smv_alg alg, const char *device_name) {
  if (!ctx) {
    /* Sizes whose shared memory grows past the limit show as "cannot
     * launch"; the fixed part alone must fit. */
    int rc = check_request(a, 1, o->regs, o->smem);
    if (rc != CLI_OK)
      return rc;
  }
  struct sweep_row rows[1024 / 32];
  int n = 0;
  if (sweep_rows(o, a, ctx, alg, rows, &n) != CLI_OK)
    return CLI_ERR;
  /* The smallest block at the highest warps per SM (ties keep the first). */
  const struct sweep_row *best = NULL;
  int disagree = 0;
  for (int i = 0; i < n; i++) {
    if (!rows[i].valid)
      continue;
    if (!best || rows[i].r.warps_per_sm > best->r.warps_per_sm)
      best = &rows[i];
    if (rows[i].runtime_blocks >= 0 &&
        rows[i].runtime_blocks != rows[i].r.blocks_per_sm)
      disagree++;
  }
  if (!best) {
    cli_error("no block size from 32 to %d can hold this request "
              "(shared memory above %d bytes per block)",
              a->max_threads_per_block, a->smem_per_block_optin);
    return CLI_USAGE;
  }
  /* Title and default plot name. */
  char title[512], subtitle[512], defname[256];
  if (ctx) {
    snprintf(title, sizeof title, "%s (%s) on %s: warps per SM vs block size",
             smv_kernel_name(alg), prec_name(o->prec), device_name);
    snprintf(subtitle, sizeof subtitle,
             "CC %d.%d (%s), the kernel's own registers and shared memory "
             "at each block size",
             a->cc_major, a->cc_minor, a->name);
    snprintf(defname, sizeof defname, "occupancy_%s_%s.png",
             smv_kernel_name(alg), prec_name(o->prec));
  } else {
    char smem_desc[96];
    if (o->smem_per_thread)
      snprintf(smem_desc, sizeof smem_desc, "%ld + %ld x Db bytes", o->smem,
               o->smem_per_thread);
    else
      snprintf(smem_desc, sizeof smem_desc, "%ld bytes", o->smem);
    snprintf(title, sizeof title, "CC %d.%d (%s): warps per SM vs block size",
             a->cc_major, a->cc_minor, a->name);
    snprintf(subtitle, sizeof subtitle,
             "%ld registers/thread, shared memory %s per block", o->regs,
             smem_desc);
    snprintf(defname, sizeof defname, "occupancy_cc%d%d_r%ld.png", a->cc_major,
             a->cc_minor, o->regs);
  }
  const char *png = o->no_plot ? NULL : (o->plot ? o->plot : defname);
  int ran = 0;
  if (png) {
    int rc =
        write_plot(png, title, subtitle, a, rows, n, best, ctx != NULL, &ran);
    if (rc != CLI_OK)
      return rc;
  }
  if (o->json) {
    printf("{");
    print_arch_json_fields(stdout, a);
    if (ctx) {
      printf(",");
      print_kernel_json_fields(stdout, device_name, alg, o->prec);
    } else {
      printf(",\"regs_per_thread\":%ld,\"smem_per_block\":%ld,"
             "\"smem_per_thread\":%ld",
             o->regs, o->smem, o->smem_per_thread);
    }
    printf(",");
    print_pref_json_fields(stdout, &o->pref);
    printf(",\"best_block\":%d,\"best_warps_per_sm\":%d,\"plot\":",
           best->threads, best->r.warps_per_sm);
    if (png && ran)
      bench_json_string(stdout, png);
    else
      printf("null");
    printf(",\"sweep\":[");
    int first = 1;
    for (int i = 0; i < n; i++) {
      if (!rows[i].valid)
        continue;
      printf("%s\n {\"threads_per_block\":%d,\"smem_per_block\":%ld,",
             first ? "" : ",", rows[i].threads, rows[i].smem);
      first = 0;
      print_result_json_fields(stdout, &rows[i].r);
      if (rows[i].runtime_blocks >= 0)
        printf(",\"runtime_blocks_per_sm\":%d", rows[i].runtime_blocks);
      printf("}");
    }
    printf("\n]}\n");
    return disagree ? CLI_ERR : CLI_OK; /* as the table and --kernel do */
  }
  printf("%s\n%s\n\n", title, subtitle);
  if (ctx)
    printf("%8s %6s %7s %8s %9s  %-28s%s\n", "threads", "warps", "blocks",
           "warps/SM", "occupancy", "limited by", "runtime blocks");
  else
    printf("%8s %6s %7s %8s %9s  %s\n", "threads", "warps", "blocks",
           "warps/SM", "occupancy", "limited by");
  for (int i = 0; i < n; i++) {
    const struct sweep_row *w = &rows[i];
    if (!w->valid) {
      printf("%8d %6s %7s %8s %9s  %s\n", w->threads, "-", "-", "-", "-",
             "cannot launch (shared memory or launch bounds)");
      continue;
    }
    char lim[64];
    limits_text(lim, w->r.limited_by);
    printf("%8d %6d %7d %8d %8.1f%%  ", w->threads, w->r.warps_per_block,
           w->r.blocks_per_sm, w->r.warps_per_sm, 100.0 * w->r.occupancy);
    if (w->runtime_blocks >= 0)
      printf("%-28s%d%s", lim, w->runtime_blocks,
             w->runtime_blocks == w->r.blocks_per_sm ? "" : "  (differs)");
    else if (w == best)
      printf("%-28s", lim);
    else
      printf("%s", lim);
    printf("%s\n", w != best                ? ""
                   : w->runtime_blocks >= 0 ? "  <- best"
                                            : "<- best");
  }
  printf("\nbest: %d threads per block, %d blocks, %d of %d warps per SM "
         "(%.1f%%): the smallest block at the highest occupancy\n",
         best->threads, best->r.blocks_per_sm, best->r.warps_per_sm,
         a->max_warps_per_sm, 100.0 * best->r.occupancy);
  if (ctx)
    printf("CUDA runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor): "
           "%s\n",
           disagree ? "DIFFERS at some sizes (marked)"
                    : "agrees at every size");
  if (png && ran)
    printf("plot: %s\n", png);
  return disagree ? CLI_ERR : CLI_OK;
}

static int do_kernel_single(const struct opts *o, const smv_arch *a,
                            smv_context *ctx, smv_alg alg,
                            const char *device_name) {
  int block = (int)o->threads;
  smv_status st;
  if (!o->have_threads &&
      (st = smv_kernel_default_block(ctx, alg, o->prec, &block)) != SMV_OK) {
    cli_error("default block of %s: %s", smv_kernel_name(alg),
              smv_context_error(ctx));
    return CLI_ERR;
  }
  if (block > a->max_threads_per_block)
    return check_request(a, block, 0, 0);
  smv_kernel_attrs ka;
  if ((st = smv_kernel_attributes(ctx, alg, o->prec, block, &ka)) != SMV_OK) {
    cli_error("smv_kernel_attributes(%s): %s", smv_kernel_name(alg),
              smv_context_error(ctx));
    return CLI_ERR;
  }
  if (block > ka.max_threads_per_block)
    return cli_usage(CMD, "%s launches at most %d threads per block",
                     smv_kernel_name(alg), ka.max_threads_per_block);
  long smem = (long)(ka.static_smem_bytes + ka.dynamic_smem_bytes);
  smv_occupancy_result r;
  if ((st = smv_occupancy_ex(a, block, ka.regs_per_thread, (size_t)smem,
                             &o->pref, &r)) != SMV_OK) {
    cli_error("occupancy of %s: %s", smv_kernel_name(alg),
              smv_status_string(st));
    return CLI_ERR;
  }
  int rt = 0;
  if ((st = smv_kernel_occupancy_cuda(ctx, alg, o->prec, block, &rt)) !=
      SMV_OK) {
    cli_error("runtime occupancy of %s: %s", smv_kernel_name(alg),
              smv_context_error(ctx));
    return CLI_ERR;
  }
  if (o->json) {
    printf("{");
    print_arch_json_fields(stdout, a);
    printf(",");
    print_kernel_json_fields(stdout, device_name, alg, o->prec);
    printf(",\"threads_per_block\":%d,\"default_block\":%s,"
           "\"regs_per_thread\":%d,\"static_smem_bytes\":%zu,"
           "\"dynamic_smem_bytes\":%zu,\"local_bytes\":%zu,"
           "\"smem_per_block\":%ld,",
           block, o->have_threads ? "false" : "true", ka.regs_per_thread,
           ka.static_smem_bytes, ka.dynamic_smem_bytes, ka.local_bytes, smem);
    print_pref_json_fields(stdout, &o->pref);
    printf(",");
    print_result_json_fields(stdout, &r);
    printf(",\"runtime_blocks_per_sm\":%d,\"agree\":%s}\n", rt,
           rt == r.blocks_per_sm ? "true" : "false");
    return rt == r.blocks_per_sm ? CLI_OK : CLI_ERR;
  }
  printf("kernel %s (%s, rung %s) on %s: %d registers per thread, %zu bytes "
         "static + %zu dynamic shared memory, %zu bytes local memory%s\n\n",
         smv_kernel_name(alg), prec_name(o->prec), smv_alg_name(alg),
         device_name, ka.regs_per_thread, ka.static_smem_bytes,
         ka.dynamic_smem_bytes, ka.local_bytes,
         o->have_threads ? "" : " (block size: the engine's default)");
  print_result_text(a, block, ka.regs_per_thread, smem, &o->pref, &r);
  printf("   CUDA runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor): %d "
         "blocks per SM: %s\n",
         rt, rt == r.blocks_per_sm ? "agrees" : "DIFFERS");
  return rt == r.blocks_per_sm ? CLI_OK : CLI_ERR;
}

int cmd_occupancy(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    occ_help(stdout);
    return CLI_OK;
  }
  struct opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc != CLI_OK)
    return rc;
  if (o.list)
    return do_list(&o);

  smv_alg alg = SMV_ALG_AUTO;
  if (o.kernel) {
    if (smv_alg_parse(o.kernel, &alg) != SMV_OK)
      return cli_usage(CMD,
                       "unknown kernel '%s' (e.g. spmv_vector_shfl, "
                       "vector-shfl or its rung number 5)",
                       o.kernel);
    if (!smv_kernel_name(alg))
      return cli_usage(CMD,
                       "rung '%s' has no kernel of smv's own (auto picks a "
                       "rung, cusparse-* run cuSPARSE's)",
                       smv_alg_name(alg));
  }

  const smv_arch *arch = NULL;
  smv_context *ctx = NULL;
  smv_device_props props;
  memset(&props, 0, sizeof props);
  if (o.kernel || strcmp(o.cc, "native") == 0) {
    if (open_device(&o, &ctx, &props) != CLI_OK)
      return CLI_ERR;
    if (arch_of_device(&props, &arch) != CLI_OK) {
      smv_context_free(ctx);
      return CLI_ERR;
    }
  } else if ((rc = arch_of_string(o.cc, &arch)) != CLI_OK) {
    return rc;
  }

  if (o.kernel)
    rc = o.sweep ? do_sweep(&o, arch, ctx, alg, props.name)
                 : do_kernel_single(&o, arch, ctx, alg, props.name);
  else if (o.sweep)
    rc = do_sweep(&o, arch, NULL, alg, NULL);
  else
    rc = do_single(&o, arch, ctx ? props.name : NULL);
  smv_context_free(ctx);
  return rc;
}
