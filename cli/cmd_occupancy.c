/* cmd_occupancy.c — `smv occupancy`: the occupancy calculator on any
 * compute capability of the table, on the current GPU (--cc native), or for
 * one of smv's own kernels with its real registers and shared memory
 * (--kernel); a block-size sweep as a table and a gnuplot PNG (the seed's
 * figure: warps per SM against block size); the architecture table. */
#include "occupancy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void occ_help(FILE *f) {
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

/* ---- parsing -------------------------------------------------------------
 */

/* Bytes with an optional K/KB/KiB (1024) suffix. */
int parse_bytes(const char *s, long *v) {
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

int parse_carveout(const char *s, int *c) {
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

const char *cache_names[] = {"none", "shared", "l1", "equal"};

int parse_cache(const char *s, smv_cache_config *c) {
  for (int i = 0; i < 4; i++)
    if (strcmp(s, cache_names[i]) == 0) {
      *c = (smv_cache_config)i;
      return 0;
    }
  return -1;
}

int occ_unknown(void *user, const char *arg) {
  (void)user;
  return cli_usage(CMD, "unknown argument '%s'", arg);
}

/* The option table into o (the last of a repeated option wins), each value
 * checked; then the modes' rules. */
int parse_args(int argc, char **argv, struct opts *o) {
  memset(o, 0, sizeof *o);
  o->pref.carveout = SMV_CARVEOUT_DEFAULT;
  o->pref.cache_config = SMV_CACHE_PREFER_NONE;
  o->prec = SMV_F64;
  const char *threads = NULL, *regs = NULL, *spt = NULL, *smem = NULL,
             *carve = NULL, *cache = NULL, *prec = NULL, *device = NULL;
  const cli_opt opts[] = {
      {.name = "--json", .flag = &o->json},
      {.name = "--sweep", .flag = &o->sweep},
      {.name = "--no-plot", .flag = &o->no_plot},
      {.name = "--list", .flag = &o->list},
      {.name = "--cc",
       .need = "a compute capability (e.g. 3.5)",
       .str = &o->cc},
      {.name = "--threads", .need = "a positive number", .str = &threads},
      {.name = "--regs",
       .need = "a number of registers (0..255)",
       .str = &regs},
      {.name = "--smem-per-thread", .need = "bytes", .str = &spt},
      {.name = "--smem", .need = "bytes (e.g. 4096 or 48K)", .str = &smem},
      {.name = "--carveout",
       .need = "0..100, default, maxl1 or maxshared",
       .str = &carve},
      {.name = "--cache-config",
       .need = "none, shared, l1 or equal",
       .str = &cache},
      {.name = "--plot", .need = "a file name (e.g. occ.png)", .str = &o->plot},
      {.name = "--kernel",
       .need = "a kernel or rung name (e.g. spmv_vector_shfl)",
       .str = &o->kernel},
      {.name = "--precision", .need = "f64 or f32", .str = &prec},
      {.name = "--device", .need = "a device number", .str = &device},
      {.set = occ_unknown}};
  int rc = cli_parse(CMD, argc, argv, opts, occ_unknown, o);
  if (rc != CLI_OK)
    return rc;
  if (threads) {
    if (cli_parse_long(threads, 1, 1 << 20, &o->threads) != 0)
      return cli_usage(CMD, "--threads needs a positive number, got '%s'",
                       threads);
    o->have_threads = 1;
  }
  if (regs) {
    if (cli_parse_long(regs, 0, 1 << 20, &o->regs) != 0)
      return cli_usage(CMD,
                       "--regs needs a number of registers (0..255), got "
                       "'%s'",
                       regs);
    o->have_regs = 1;
  }
  if (spt && parse_bytes(spt, &o->smem_per_thread) != 0)
    return cli_usage(CMD, "--smem-per-thread needs bytes, got '%s'", spt);
  if (smem) {
    if (parse_bytes(smem, &o->smem) != 0)
      return cli_usage(CMD, "--smem needs bytes (e.g. 4096 or 48K), got '%s'",
                       smem);
    o->have_smem = 1;
  }
  if (carve && parse_carveout(carve, &o->pref.carveout) != 0)
    return cli_usage(CMD,
                     "--carveout needs 0..100, default, maxl1 or "
                     "maxshared, got '%s'",
                     carve);
  if (cache && parse_cache(cache, &o->pref.cache_config) != 0)
    return cli_usage(CMD,
                     "--cache-config needs none, shared, l1 or equal, "
                     "got '%s'",
                     cache);
  if (o->plot && !*o->plot)
    return cli_usage(CMD, "--plot needs a file name (e.g. occ.png)");
  int prc;
  if (o->plot &&
      (prc = cli_check_script_name(CMD, "--plot", o->plot)) != CLI_OK)
    return prc;
  if (o->kernel && !*o->kernel)
    return cli_usage(CMD, "--kernel needs a kernel or rung name (e.g. "
                          "spmv_vector_shfl)");
  static const char *const precisions[] = {"f64", "f32",
                                           NULL}; /* smv_precision */
  if (prec) {
    int k = cli_pick(prec, precisions);
    if (k < 0)
      return cli_usage(CMD, "--precision needs f64 or f32, got '%s'", prec);
    o->prec = (smv_precision)k;
  }
  if (device && cli_parse_long(device, 0, 1023, &o->device) != 0)
    return cli_usage(CMD, "--device needs a device number, got '%s'", device);
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

void known_ccs(char *buf, size_t n) {
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
int open_device(const struct opts *o, smv_context **ctx, smv_device_props *p) {
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

int arch_of_device(const smv_device_props *p, const smv_arch **arch) {
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

int arch_of_string(const char *cc, const smv_arch **arch) {
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

/* ---- modes ---------------------------------------------------------------
 */

int do_list(const struct opts *o) {
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
         "row: smv occupancy --list --json, src/occupancy/arch_table.c.\n");
  return CLI_OK;
}

int do_single(const struct opts *o, const smv_arch *a,
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

int do_kernel_single(const struct opts *o, const smv_arch *a, smv_context *ctx,
                     smv_alg alg, const char *device_name) {
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
