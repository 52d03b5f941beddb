/* cmd_bench.c — `smv bench`: parse the command line, hand it to the
 * benchmark driver (bench/main.c). */
#include "../bench/bench.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: smv bench MATRIX... [OPTIONS]\n"
    "       smv bench --from-csv FILE [--plot FILE.png] [--csv F] [--json F]\n"
    "\n"
    "Verify, then time, the kernel ladder and cuSPARSE on the GPU: every "
    "rung is\nchecked against the serial reference first (a FAIL is never "
    "timed), then timed\nwith CUDA events (median and p10..p90 of many runs): "
    "L2-warm, L2-flushed and\nper SpMV inside a CUDA graph. Without a GPU it "
    "verifies and times the CPU path\n(smv_spmv_cpu) instead. MATRIX is a "
    "Matrix Market file or a generator spec\n(e.g. lap3d:64).\n"
    "\n"
    "options:\n"
    "  --alg LIST|all        rungs by name or number, comma-separated "
    "(default all:\n"
    "                        rungs 1..9, scalar ... adaptive; 'all,auto' "
    "adds auto)\n"
    "  --block B|sweep       threads per block for every rung (32..1024, a "
    "multiple of 32;\n"
    "                        default: each rung's occupancy-derived size), "
    "or 'sweep':\n"
    "                        32..1024 step 32 for each of our kernels, with "
    "the calculated\n"
    "                        occupancy beside each time\n"
    "  --precision f64|f32|both   (default f64)\n"
    "  --flush-l2            also time with L2 flushed (4x L2 written) "
    "before each run\n"
    "  --graph-batch N       SpMVs captured per CUDA graph (default 100, 0 = "
    "no graph timing)\n"
    "  --graph-replays N     timed graph launches (default 20)\n"
    "  --runs N              timed runs per mode (default 200)\n"
    "  --warmup N            untimed runs first (default 10)\n"
    "  --max-time S          at most S seconds of SpMV time per mode: fewer "
    "runs for slow\n"
    "                        cases, never below 5 (default 2, 0 = no cap)\n"
    "  --alpha A, --beta B   scalars of y = alpha*A*x + beta*y (default 1 "
    "and 0)\n"
    "  --seed N              seed of the random vectors (default 1)\n"
    "  --backend auto|cuda|cpu   auto: CUDA if a device answers, else the "
    "CPU (default)\n"
    "  --device N            CUDA device (default 0)\n"
    "  --csv FILE            every number, one line per result\n"
    "  --json FILE           the same as JSON, with the device and options\n"
    "  --plot FILE.png       sweep: time and occupancy against block size; "
    "otherwise\n"
    "                        GB/s and speedup over cuSPARSE ALG1 per matrix "
    "(gnuplot)\n"
    "  --markdown FILE       Markdown tables (per precision and mode; sweep "
    "tables)\n"
    "  --label TEXT          stored with every result\n"
    "  --from-csv FILE       re-print tables (and --plot) from a saved CSV; "
    "runs nothing\n"
    "  --quiet               no per-matrix tables\n"
    "\n"
    "Exit status: 0 all verified and timed, 1 an error or a failed "
    "verification,\n2 usage error.\n";

/* LIST: names or numbers, comma-separated; "all" (alone or inside the
 * list) stands for rungs 1..SMV_ALG_COUNT-1, so "all,auto" adds the
 * engine's own choice (rung 0) as one more column. */
static int parse_algs(const char *s, bench_config *cfg) {
  cfg->nalgs = 0;
  char buf[512];
  if (strlen(s) >= sizeof buf || !*s)
    return cli_usage("bench", "--alg: empty or too long: '%s'", s);
  strcpy(buf, s);
  int had_all = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (strcmp(tok, "all") == 0) {
      if (had_all++)
        return cli_usage("bench", "--alg: 'all' given twice");
      for (int a = 1; a < SMV_ALG_COUNT; a++) {
        int seen = 0;
        for (int k = 0; k < cfg->nalgs; k++)
          seen |= cfg->algs[k] == (smv_alg)a;
        if (!seen)
          cfg->algs[cfg->nalgs++] = (smv_alg)a;
      }
      continue;
    }
    smv_alg a;
    if (smv_alg_parse(tok, &a) != SMV_OK)
      return cli_usage("bench",
                       "--alg: unknown rung '%s' (try 'all', "
                       "'vector-shfl', 'cusparse-alg1', or 0..%d)",
                       tok, SMV_ALG_COUNT - 1);
    for (int k = 0; k < cfg->nalgs; k++)
      if (cfg->algs[k] == a)
        return cli_usage("bench", "--alg: '%s' given twice", tok);
    if (cfg->nalgs >= SMV_ALG_COUNT)
      return cli_usage("bench", "--alg: too many rungs");
    cfg->algs[cfg->nalgs++] = a;
  }
  return 0;
}

int cmd_bench(int argc, char **argv) {
  /* Help wins wherever it stands, as in the other subcommands (it was once
   * taken as the value of a preceding --csv). */
  if (cli_wants_help(argc, argv)) {
    fputs(usage_text, stdout);
    return CLI_OK;
  }
  bench_config cfg;
  memset(&cfg, 0, sizeof cfg);
  smv_bench_options_init(&cfg.opt);
  cfg.opt.graph_batch = 100;
  cfg.opt.max_seconds = 2.0;
  cfg.precisions = BENCH_F64;
  cfg.seed = 1;
  cfg.argc = argc;
  cfg.argv = argv;
  parse_algs("all", &cfg);
  char **mats = calloc((size_t)argc, sizeof *mats);
  if (!mats) {
    cli_error("out of memory");
    return CLI_ERR;
  }
  int rc = -1;
  for (int i = 1; i < argc && rc < 0; i++) {
    const char *a = argv[i], *v = NULL; /* NULL: the value is missing */
    long n;
    double d;
    if (strcmp(a, "--flush-l2") == 0) {
      cfg.opt.flush_l2 = 1;
    } else if (strcmp(a, "--quiet") == 0) {
      cfg.quiet = 1;
    } else if (cli_opt_value(argc, argv, &i, "--alg", NULL, &v)) {
      if (!v || parse_algs(v, &cfg) != 0)
        rc = v ? CLI_USAGE : cli_usage("bench", "--alg needs a value");
    } else if (cli_opt_value(argc, argv, &i, "--block", NULL, &v)) {
      if (v && strcmp(v, "sweep") == 0) {
        cfg.sweep = 1;
        cfg.block = 0;
      } else if (v && strcmp(v, "default") == 0) {
        cfg.sweep = 0;
        cfg.block = 0;
      } else if (!v || cli_parse_long(v, 32, 1024, &n) != 0 || n % 32) {
        rc = cli_usage("bench",
                       "--block: want a multiple of 32 in 32..1024, "
                       "'default' or 'sweep', got '%s'",
                       v ? v : "");
      } else {
        cfg.sweep = 0;
        cfg.block = (int)n;
      }
    } else if (cli_opt_value(argc, argv, &i, "--precision", NULL, &v)) {
      if (v && strcmp(v, "f64") == 0)
        cfg.precisions = BENCH_F64;
      else if (v && strcmp(v, "f32") == 0)
        cfg.precisions = BENCH_F32;
      else if (v && strcmp(v, "both") == 0)
        cfg.precisions = BENCH_F64 | BENCH_F32;
      else
        rc = cli_usage("bench", "--precision: want f64, f32 or both, got '%s'",
                       v ? v : "");
    } else if (cli_opt_value(argc, argv, &i, "--graph-batch", NULL, &v)) {
      if (!v || cli_parse_long(v, 0, 100000, &n) != 0)
        rc = cli_usage("bench", "--graph-batch: want 0..100000");
      else
        cfg.opt.graph_batch = (int)n;
    } else if (cli_opt_value(argc, argv, &i, "--graph-replays", NULL, &v)) {
      if (!v || cli_parse_long(v, 1, 1000000, &n) != 0)
        rc = cli_usage("bench", "--graph-replays: want 1..1000000");
      else
        cfg.opt.graph_replays = (int)n;
    } else if (cli_opt_value(argc, argv, &i, "--runs", NULL, &v)) {
      if (!v || cli_parse_long(v, 1, 10000000, &n) != 0)
        rc = cli_usage("bench", "--runs: want 1..10000000");
      else
        cfg.opt.runs = (int)n;
    } else if (cli_opt_value(argc, argv, &i, "--warmup", NULL, &v)) {
      if (!v || cli_parse_long(v, 0, 1000000, &n) != 0)
        rc = cli_usage("bench", "--warmup: want 0..1000000");
      else
        cfg.opt.warmup = (int)n;
    } else if (cli_opt_value(argc, argv, &i, "--max-time", NULL, &v)) {
      if (!v || cli_parse_double(v, &d) != 0 || d < 0 || d > 1e6)
        rc = cli_usage("bench", "--max-time: want seconds >= 0");
      else
        cfg.opt.max_seconds = d;
    } else if (cli_opt_value(argc, argv, &i, "--alpha", NULL, &v)) {
      if (!v || cli_parse_double(v, &d) != 0)
        rc = cli_usage("bench", "--alpha: want a number");
      else
        cfg.opt.alpha = d;
    } else if (cli_opt_value(argc, argv, &i, "--beta", NULL, &v)) {
      if (!v || cli_parse_double(v, &d) != 0)
        rc = cli_usage("bench", "--beta: want a number");
      else
        cfg.opt.beta = d;
    } else if (cli_opt_value(argc, argv, &i, "--seed", NULL, &v)) {
      if (!v || cli_parse_long(v, 0, 2147483647L, &n) != 0)
        rc = cli_usage("bench", "--seed: want 0..2147483647");
      else
        cfg.seed = (uint64_t)n;
    } else if (cli_opt_value(argc, argv, &i, "--device", NULL, &v)) {
      if (!v || cli_parse_long(v, 0, 1024, &n) != 0)
        rc = cli_usage("bench", "--device: want a device number");
      else
        cfg.device = (int)n;
    } else if (cli_opt_value(argc, argv, &i, "--backend", NULL, &v)) {
      if (v && strcmp(v, "auto") == 0)
        cfg.backend = BENCH_BACKEND_AUTO;
      else if (v && strcmp(v, "cuda") == 0)
        cfg.backend = BENCH_BACKEND_CUDA;
      else if (v && strcmp(v, "cpu") == 0)
        cfg.backend = BENCH_BACKEND_CPU;
      else
        rc = cli_usage("bench", "--backend: want auto, cuda or cpu, got '%s'",
                       v ? v : "");
    } else if (cli_opt_value(argc, argv, &i, "--csv", NULL, &v)) {
      if (!v || !*v)
        rc = cli_usage("bench", "--csv needs a file name");
      cfg.csv = v;
    } else if (cli_opt_value(argc, argv, &i, "--json", NULL, &v)) {
      if (!v || !*v)
        rc = cli_usage("bench", "--json needs a file name");
      cfg.json = v;
    } else if (cli_opt_value(argc, argv, &i, "--plot", NULL, &v)) {
      if (!v || !*v)
        rc = cli_usage("bench", "--plot needs a file name (FILE.png)");
      else if (cli_check_script_name("bench", "--plot", v) != CLI_OK)
        rc = CLI_USAGE;
      cfg.plot = v;
    } else if (cli_opt_value(argc, argv, &i, "--markdown", NULL, &v)) {
      if (!v || !*v)
        rc = cli_usage("bench", "--markdown needs a file name");
      cfg.markdown = v;
    } else if (cli_opt_value(argc, argv, &i, "--label", NULL, &v)) {
      if (!v)
        rc = cli_usage("bench", "--label needs a value");
      cfg.label = v;
    } else if (cli_opt_value(argc, argv, &i, "--from-csv", NULL, &v)) {
      if (!v || !*v)
        rc = cli_usage("bench", "--from-csv needs a file name");
      cfg.from_csv = v;
    } else if (a[0] == '-' && a[1] != '\0') {
      rc = cli_usage("bench", "unknown option '%s'", a);
    } else {
      mats[cfg.nmatrices++] = argv[i];
    }
  }
  if (rc < 0 && cfg.from_csv && cfg.nmatrices > 0)
    rc = cli_usage("bench", "--from-csv runs nothing: give no MATRIX");
  if (rc < 0 && !cfg.from_csv && cfg.nmatrices == 0)
    rc = cli_usage("bench", "no MATRIX given (a file or a spec like "
                            "lap3d:64)");
  if (rc < 0) {
    cfg.matrices = mats;
    rc = bench_main(&cfg);
  }
  free(mats);
  return rc;
}
