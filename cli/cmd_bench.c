/* cmd_bench.c — `smv bench`: parse the command line, hand it to the
 * benchmark driver (cli/bench_main.c). */
#include "bench.h"
#include "cli.h"
#include "cli_dist.h" /* mpirun -np N smv bench: cli/cmd_dist.c */

#include <stdlib.h>
#include <string.h>

/* A printf format: the last rung and the names of the first and last. */
static const char usage_text[] =
    "usage: smv bench MATRIX... [OPTIONS]\n"
    "       smv bench --suite NAME [MATRIX...] [OPTIONS]   (--suite list: "
    "the suites)\n"
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
    "                        rungs 1..%d, %s ... %s; 'all,auto' "
    "adds auto)\n"
    "  --block B|sweep       threads per block for every rung (32..1024, a "
    "multiple of 32;\n"
    "                        default: each rung's occupancy-derived size), "
    "or 'sweep':\n"
    "                        32..1024 step 32 for each of our kernels, with "
    "the calculated\n"
    "                        occupancy beside each time\n"
    "  --precision f64|f32|both|f64-f32v   (default f64; both = f64 and "
    "f32;\n"
    "                        f64-f32v: f32 values, f64 vectors, GPU only, "
    "its rungs\n"
    "                        (2, 9, 10, auto), verified within its error "
    "bound)\n"
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
    "  --suite NAME|list     the matrices of a named suite (after any "
    "MATRIX given);\n"
    "                        'list' prints the suites with their matrices "
    "and sizes\n"
    "  --matrices DIR        real matrices for the suites 'real' and "
    "'issue8'\n"
    "                        (default: $SMV_MATRICES; without either "
    "'issue8' has none)\n"
    "  --quiet               no per-matrix tables (nor plans)\n"
    "  --tune                plan AUTO by measurement (smv_matrix_tune) "
    "instead of the\n"
    "                        heuristic; each matrix's plan is printed "
    "either way\n" CLI_REUSE_HELP "\n"
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

static int bench_positional(void *user, const char *arg) {
  bench_config *cfg = user;
  cfg->matrices[cfg->nmatrices++] = (char *)arg;
  return CLI_OK;
}

/* Every option of the table into cfg (the last of a repeated one wins),
 * checked. Returns CLI_OK or CLI_USAGE (printed). */
static int bench_options(int argc, char **argv, bench_config *cfg,
                         const char **suite, const char **mdir) {
  const char *alg = NULL, *block = NULL, *prec = NULL, *gb = NULL, *gr = NULL,
             *runs = NULL, *warm = NULL, *maxt = NULL, *alpha = NULL,
             *beta = NULL, *seed = NULL, *dev = NULL, *bk = NULL,
             *reuse_n = NULL;
  int reuse_bare = 0;
  const cli_opt opts[] = {
      {.name = "--flush-l2", .flag = &cfg->opt.flush_l2},
      {.name = "--quiet", .flag = &cfg->quiet},
      {.name = "--tune", .flag = &cfg->tune},
      {.name = "--reuse",
       .need = "an expected call count",
       .optional = 1,
       .str = &reuse_n,
       .flag = &reuse_bare},
      {.name = "--suite", .need = "a name (see --suite list)", .str = suite},
      {.name = "--matrices", .need = "a directory", .str = mdir},
      {.name = "--alg", .need = "a value", .str = &alg},
      {.name = "--block", .need = "a value", .str = &block},
      {.name = "--precision", .need = "a value", .str = &prec},
      {.name = "--graph-batch", .need = "a value", .str = &gb},
      {.name = "--graph-replays", .need = "a value", .str = &gr},
      {.name = "--runs", .need = "a value", .str = &runs},
      {.name = "--warmup", .need = "a value", .str = &warm},
      {.name = "--max-time", .need = "a value", .str = &maxt},
      {.name = "--alpha", .need = "a value", .str = &alpha},
      {.name = "--beta", .need = "a value", .str = &beta},
      {.name = "--seed", .need = "a value", .str = &seed},
      {.name = "--device", .need = "a value", .str = &dev},
      {.name = "--backend", .need = "a value", .str = &bk},
      {.name = "--csv", .need = "a file name", .str = &cfg->csv},
      {.name = "--json", .need = "a file name", .str = &cfg->json},
      {.name = "--plot", .need = "a file name (FILE.png)", .str = &cfg->plot},
      {.name = "--markdown", .need = "a file name", .str = &cfg->markdown},
      {.name = "--label", .need = "a value", .str = &cfg->label},
      {.name = "--from-csv", .need = "a file name", .str = &cfg->from_csv},
      {0}};
  int rc = cli_parse("bench", argc, argv, opts, bench_positional, cfg);
  if (rc != CLI_OK)
    return rc;
  if ((rc = cli_reuse_options("bench", reuse_bare, reuse_n, &cfg->reuse)) !=
      CLI_OK)
    return rc;
  long n;
  double d;
  cfg->alg_given = alg != NULL;
  if (alg && parse_algs(alg, cfg) != 0)
    return CLI_USAGE;
  if (block) {
    cfg->sweep = strcmp(block, "sweep") == 0;
    cfg->block = 0;
    if (!cfg->sweep && strcmp(block, "default") != 0) {
      if (cli_parse_long(block, 32, 1024, &n) != 0 || n % 32)
        return cli_usage("bench",
                         "--block: want a multiple of 32 in 32..1024, "
                         "'default' or 'sweep', got '%s'",
                         block);
      cfg->block = (int)n;
    }
  }
  static const char *const precisions[] = {"f64", "f32", "both", "f64-f32v",
                                           NULL};
  static const int precs[] = {BENCH_F64, BENCH_F32, BENCH_F64 | BENCH_F32,
                              BENCH_F32V};
  int k;
  if (prec) {
    if ((k = cli_pick(prec, precisions)) < 0)
      return cli_usage("bench",
                       "--precision: want f64, f32, both or f64-f32v, got "
                       "'%s'",
                       prec);
    cfg->precisions = precs[k];
  }
  /* Whole numbers: where each goes, its range and the message. */
  const struct {
    const char *name, *v;
    long lo, hi;
    const char *want;
    int *to;
  } ints[] = {
      {"--graph-batch", gb, 0, 100000, "want 0..100000", &cfg->opt.graph_batch},
      {"--graph-replays", gr, 1, 1000000, "want 1..1000000",
       &cfg->opt.graph_replays},
      {"--runs", runs, 1, 10000000, "want 1..10000000", &cfg->opt.runs},
      {"--warmup", warm, 0, 1000000, "want 0..1000000", &cfg->opt.warmup},
      {"--seed", seed, 0, 2147483647L, "want 0..2147483647", NULL},
      {"--device", dev, 0, 1024, "want a device number", &cfg->device}};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    if (!ints[i].v)
      continue;
    if (cli_parse_long(ints[i].v, ints[i].lo, ints[i].hi, &n) != 0)
      return cli_usage("bench", "%s: %s", ints[i].name, ints[i].want);
    if (ints[i].to)
      *ints[i].to = (int)n;
    else
      cfg->seed = (uint64_t)n;
  }
  if (maxt) {
    if (cli_parse_double(maxt, &d) != 0 || d < 0 || d > 1e6)
      return cli_usage("bench", "--max-time: want seconds >= 0");
    cfg->opt.max_seconds = d;
  }
  if (alpha && cli_parse_double(alpha, &cfg->opt.alpha) != 0)
    return cli_usage("bench", "--alpha: want a number");
  if (beta && cli_parse_double(beta, &cfg->opt.beta) != 0)
    return cli_usage("bench", "--beta: want a number");
  static const char *const backends[] = {"auto", "cuda", "cpu", NULL};
  static const bench_backend bks[] = {BENCH_BACKEND_AUTO, BENCH_BACKEND_CUDA,
                                      BENCH_BACKEND_CPU};
  if (bk) {
    if ((k = cli_pick(bk, backends)) < 0)
      return cli_usage("bench", "--backend: want auto, cuda or cpu, got '%s'",
                       bk);
    cfg->backend = bks[k];
  }
  static const struct {
    const char *name, *need;
  } files[] = {{"--csv", "a file name"},
               {"--json", "a file name"},
               {"--plot", "a file name (FILE.png)"},
               {"--markdown", "a file name"},
               {"--from-csv", "a file name"},
               {"--suite", "a name (see --suite list)"},
               {"--matrices", "a directory"}};
  const char *given[] = {cfg->csv,      cfg->json, cfg->plot, cfg->markdown,
                         cfg->from_csv, *suite,    *mdir};
  for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
    if (given[f] && !*given[f])
      return cli_usage("bench", "%s needs %s", files[f].name, files[f].need);
  int prc;
  if (cfg->plot &&
      (prc = cli_check_script_name("bench", "--plot", cfg->plot)) != CLI_OK)
    return prc;
  return CLI_OK;
}

int cmd_bench(int argc, char **argv) {
  int dist_rc;
  if (cli_dist_hook(CLI_DIST_BENCH, argc, argv, &dist_rc))
    return dist_rc;
  /* Help wins wherever it stands, as in the other subcommands (it was once
   * taken as the value of a preceding --csv). */
  if (cli_wants_help(argc, argv)) {
    printf(usage_text, SMV_ALG_COUNT - 1, smv_alg_name(SMV_ALG_SCALAR),
           smv_alg_name((smv_alg)(SMV_ALG_COUNT - 1)));
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
  cfg.matrices = mats;
  const char *suite = NULL, *mdir = NULL; /* --suite, --matrices */
  char **suite_mats = NULL;
  int nsuite = 0;
  int rc = bench_options(argc, argv, &cfg, &suite, &mdir);
  if (rc == CLI_OK)
    rc = -1; /* -1: go on */
  if (rc < 0 && suite && cfg.from_csv)
    rc = cli_usage("bench", "--from-csv runs nothing: no --suite");
  if (rc < 0 && suite) {
    rc = bench_suite_add(suite, mdir, &mats, &cfg.nmatrices, &suite_mats,
                         &nsuite);
    cfg.matrices = mats;
  }
  if (rc < 0 && cfg.from_csv && cfg.nmatrices > 0)
    rc = cli_usage("bench", "--from-csv runs nothing: give no MATRIX");
  if (rc < 0 && !cfg.from_csv && cfg.nmatrices == 0)
    rc = cli_usage("bench", "no MATRIX given (a file or a spec like "
                            "lap3d:64)");
  if (rc < 0)
    rc = bench_main(&cfg);
  free(mats);
  bench_suite_free(suite_mats, nsuite);
  return rc;
}
