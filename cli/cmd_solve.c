/* cmd_solve.c — `smv solve MATRIX ...` (CG / BiCGStab for A x = b) and
 * `smv pagerank MATRIX ...`, on the CPU or a CUDA device (smv_solve.h). */
#include "cli.h"
#include "lab.h"
#include "smv_solve.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void solve_help(FILE *f) {
  fprintf(
      f,
      "usage: smv solve MATRIX [--b FILE] [--method cg|bicgstab]\n"
      "                 [--precond jacobi|chebyshev|none] [--tol T] [--maxit "
      "N]\n"
      "                 [--backend auto|cpu|cuda] [--precision f64|f32]\n"
      "                 [-o FILE] [--progress N] [--history FILE.csv]\n"
      "                 [--plot FILE.png] [--check-every N]\n"
      "                 [--cheb-degree N] [--persistent auto|on|off]\n"
      "                 [--reorder rcm|degree]\n"
      "\n"
      "Solve A x = b by conjugate gradients (A symmetric positive definite) "
      "or\n"
      "BiCGStab (any square A), starting from x = 0, until ||r|| / ||b|| <= "
      "tol.\n"
      "MATRIX is a .mtx/.mtx.gz file or a generator spec (lap2d:300, "
      "lap3d:50, ...).\n"
      "Prints the iterations, the recurrence's relative residual, the true "
      "one\n"
      "||b - A x|| / ||b|| recomputed in double at the end, and the time.\n"
      "\n"
      "  --b FILE          right-hand side, a Matrix Market vector (default: "
      "b = A*ones,\n"
      "                    so the exact solution is all ones and the error "
      "is printed)\n"
      "  --method M        cg (default) or bicgstab\n"
      "  --precond P       jacobi (default; needs a nonzero diagonal), "
      "chebyshev\n"
      "                    (CG: a Chebyshev polynomial in D^-1 A, SpMVs "
      "only; needs\n"
      "                    the diagonal too) or none\n"
      "  --cheb-degree N   chebyshev: the polynomial's degree, SpMVs per "
      "application,\n"
      "                    1..16 (default 2)\n"
      "  --tol T           relative residual to reach (default 1e-8)\n"
      "  --maxit N         iteration limit (default 1000)\n"
      "  --backend B       auto (default: CUDA if a device answers, else the "
      "CPU),\n"
      "                    cpu or cuda\n"
      "  --precision P     f64 (default) or f32 (vectors and values in "
      "float, dot\n"
      "                    products in double)\n"
      "  -o FILE           write x as a Matrix Market vector (.gz "
      "compresses)\n"
      "  --progress N      a progress line on stderr every N iterations\n"
      "  --history F.csv   the residual history: iteration,relres\n"
      "  --plot F.png      plot the residual history (gnuplot; without it "
      "the\n"
      "                    script and data are written beside F.png)\n"
      "  --check-every N   CUDA: iterations per graph replay between "
      "convergence\n"
      "                    checks (default 8)\n"
      "  --persistent P    CUDA, CG: auto (default: one persistent kernel "
      "runs the\n"
      "                    whole solve when the matrix fits the L2), on "
      "(whatever\n"
      "                    the size) or off (the CUDA-graph path)\n"
      "                    On CUDA the matrix is made with reuse declared "
      "(maxit\n"
      "                    SpMVs expected): where rung 13 (packed) "
      "qualifies, AUTO's\n"
      "                    rung is measured among it, the rule's pick and "
      "cuSPARSE\n"
      "                    (docs/engine.md, \"Declaring reuse\")\n"
      "  --reorder R       rcm or degree: solve P A P^T (P x) = P b, rows "
      "and columns\n"
      "                    in reverse Cuthill-McKee or increasing-degree "
      "order (on\n"
      "                    the pattern of A + A^T), for the locality of x "
      "in SpMV. A\n"
      "                    and b are permuted once, the solver's vectors "
      "stay in the\n"
      "                    new order, x is permuted back at the end: x, "
      "-o, the\n"
      "                    residuals and errors are in the input's order. "
      "Holds a\n"
      "                    second, reordered copy of A\n"
      "\n"
      "Exit status: 0 converged, 1 bad input (matrix, vector, zero diagonal "
      "with\n"
      "jacobi, no device) or another error, 2 usage, 3 not converged "
      "(iteration\n"
      "limit, breakdown, or an f32 tol below float's reach; x is still "
      "written).\n");
}

static void pagerank_help(FILE *f) {
  fprintf(
      f, "usage: smv pagerank MATRIX [--damping D] [--tol T] [--maxit N] [-o "
         "FILE]\n"
         "                    [--top K] [--backend auto|cpu|cuda] [--precision "
         "f64|f32]\n"
         "                    [--progress N] [--pattern]\n"
         "\n"
         "PageRank of the graph with a link i -> j for every stored A(i,j) != "
         "0,\n"
         "weighted by A(i,j) (pattern matrices: 1; weights must be >= 0). Rows "
         "without\n"
         "links (dangling nodes) spread their rank uniformly over all nodes; "
         "the\n"
         "teleport is uniform. Power iteration until the L1 change is <= tol.\n"
         "\n"
         "  --damping D   probability of following a link (default 0.85)\n"
         "  --tol T       L1 change to reach (default 1e-10)\n"
         "  --maxit N     iteration limit (default 1000)\n"
         "  -o FILE       write the rank vector as a Matrix Market vector\n"
         "  --top K       print the K highest-ranked nodes, 1-based (default "
         "10; 0: none)\n"
         "  --pattern     ignore the values: every stored entry is a link of "
         "weight 1\n"
         "                (for matrices with negative values)\n"
         "  --backend B, --precision P, --progress N: as for 'smv solve'\n"
         "\n"
         "Exit status: 0 converged, 1 bad input or another error, 2 usage, 3 "
         "not\n"
         "converged (iteration limit).\n");
}

typedef enum { BK_AUTO, BK_CPU, BK_CUDA } backend;

typedef struct {
  const char *cmd, *matrix, *b, *out, *history, *plot;
  smv_method method;
  backend bk;
  smv_precision prec;
  smv_solve_options o;
  long top;
  int pattern; /* pagerank: every stored entry is a link of weight 1 */
  int order;   /* --reorder: CLI_ORDER_NONE, _RCM or _DEGREE */
} solve_args;

/* Option names with a value, in the order of the slots below. */
enum {
  O_B,
  O_METHOD,
  O_PRECOND,
  O_TOL,
  O_MAXIT,
  O_BACKEND,
  O_PRECISION,
  O_OUT,
  O_PROGRESS,
  O_HISTORY,
  O_PLOT,
  O_CHECK,
  O_CHEB,
  O_PERSISTENT,
  O_REORDER,
  O_DAMPING,
  O_TOP,
  O_COUNT
};
static const struct {
  const char *name, *alias;
  int pagerank; /* 1: pagerank only, 0: solve only, 2: both */
} valued[O_COUNT] = {
    {"--b", NULL, 0},           {"--method", NULL, 0},
    {"--precond", NULL, 0},     {"--tol", NULL, 2},
    {"--maxit", NULL, 2},       {"--backend", NULL, 2},
    {"--precision", NULL, 2},   {"--output", "-o", 2},
    {"--progress", NULL, 2},    {"--history", NULL, 0},
    {"--plot", NULL, 0},        {"--check-every", NULL, 2},
    {"--cheb-degree", NULL, 0}, {"--persistent", NULL, 0},
    {"--reorder", NULL, 0},     {"--damping", NULL, 1},
    {"--top", NULL, 1},
};

/* The one MATRIX. */
static int solve_positional(void *user, const char *arg) {
  solve_args *a = user;
  if (a->matrix)
    return cli_usage(a->cmd, "more than one MATRIX ('%s' and '%s')", a->matrix,
                     arg);
  a->matrix = arg;
  return CLI_OK;
}

static int parse_args(int argc, char **argv, int pagerank, solve_args *a) {
  const char *cmd = pagerank ? "pagerank" : "solve";
  const char *v[O_COUNT] = {NULL};
  memset(a, 0, sizeof *a);
  a->cmd = cmd;
  smv_solve_options_init(&a->o);
  a->o.precond = pagerank ? SMV_PRECOND_NONE : SMV_PRECOND_JACOBI;
  if (pagerank)
    a->o.tol = 1e-10;
  a->method = pagerank ? SMV_METHOD_PAGERANK : SMV_METHOD_CG;
  a->top = 10;
  /* The options this command takes, from the table above. */
  cli_opt opts[O_COUNT + 2];
  int n = 0;
  for (int k = 0; k < O_COUNT; k++)
    if (valued[k].pagerank == 2 || valued[k].pagerank == pagerank)
      opts[n++] = (cli_opt){.name = valued[k].name,
                            .alias = valued[k].alias,
                            .need = "a value",
                            .once = 1,
                            .str = &v[k]};
  if (pagerank)
    opts[n++] = (cli_opt){.name = "--pattern", .flag = &a->pattern};
  opts[n] = (cli_opt){0};
  int rc = cli_parse(cmd, argc, argv, opts, solve_positional, a);
  if (rc != CLI_OK)
    return rc;
  if (!a->matrix)
    return cli_usage(cmd, "missing MATRIX (a .mtx file or a spec such as "
                          "lap2d:100)");
  long l;
  double d;
  /* The word options: their words in the order the errors list them. */
  static const char *const methods[] = {"cg", "bicgstab", NULL};
  static const char *const preconds[] = {"jacobi", "none", "chebyshev", NULL};
  static const char *const persistents[] = {"auto", "on", "off", NULL};
  static const char *const backends[] = {"auto", "cpu", "cuda", NULL};
  static const char *const precisions[] = {"f64", "f32", NULL};
  char why[128];
  int method = -1, precond = -1, bk = 0, prec = 0, pers = 0;
  if (cli_pick_word("--method", v[O_METHOD], methods, &method, why,
                    sizeof why) != 0 ||
      cli_pick_word("--precond", v[O_PRECOND], preconds, &precond, why,
                    sizeof why) != 0)
    return cli_usage(cmd, "%s", why);
  if (method >= 0)
    a->method = method ? SMV_METHOD_BICGSTAB : SMV_METHOD_CG;
  if (precond >= 0)
    a->o.precond = precond == 0   ? SMV_PRECOND_JACOBI
                   : precond == 1 ? SMV_PRECOND_NONE
                                  : SMV_PRECOND_CHEBYSHEV;
  if (cli_pick_word("--persistent", v[O_PERSISTENT], persistents, &pers, why,
                    sizeof why) != 0)
    return cli_usage(cmd, "%s", why);
  a->o.persistent = pers == 0 ? 0 : pers == 1 ? 1 : -1;
  if ((rc = cli_reorder_pick(cmd, v[O_REORDER], &a->order)) != CLI_OK)
    return rc;
  if (v[O_TOL]) {
    if (cli_parse_double(v[O_TOL], &d) != 0 || !(d >= 0) || !isfinite(d))
      return cli_usage(cmd, "--tol: '%s' is not a number >= 0", v[O_TOL]);
    a->o.tol = d;
  }
  /* The whole-number options, in the order their errors are checked. */
  const struct {
    const char *s, *name, *what;
    long lo, hi;
    int *to;
  } ints[] = {
      {v[O_MAXIT], "--maxit", "an integer in 0..1e9", 0, 1000000000L,
       &a->o.maxit},
      {v[O_PROGRESS], "--progress", "a positive integer", 1, 1000000000L,
       &a->o.progress_every},
      {v[O_CHECK], "--check-every", "an integer in 1..1e5", 1, 100000L,
       &a->o.check_every},
      {v[O_CHEB], "--cheb-degree", "an integer in 1..16", 1, 16L,
       &a->o.cheb_degree},
  };
  for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) {
    if (!ints[k].s)
      continue;
    if (cli_parse_long(ints[k].s, ints[k].lo, ints[k].hi, &l) != 0)
      return cli_usage(cmd, "%s: '%s' is not %s", ints[k].name, ints[k].s,
                       ints[k].what);
    *ints[k].to = (int)l;
  }
  if (v[O_DAMPING]) {
    if (cli_parse_double(v[O_DAMPING], &d) != 0 || !(d >= 0.0 && d < 1.0))
      return cli_usage(cmd, "--damping: '%s' is not a number in [0, 1)",
                       v[O_DAMPING]);
    a->o.damping = d;
  }
  if (v[O_TOP] && cli_parse_long(v[O_TOP], 0, 1000000000L, &a->top) != 0)
    return cli_usage(cmd, "--top: '%s' is not an integer >= 0", v[O_TOP]);
  if (cli_pick_word("--backend", v[O_BACKEND], backends, &bk, why,
                    sizeof why) != 0 ||
      cli_pick_word("--precision", v[O_PRECISION], precisions, &prec, why,
                    sizeof why) != 0)
    return cli_usage(cmd, "%s", why);
  a->bk = (backend)bk; /* the words in enum order */
  a->prec = prec ? SMV_F32 : SMV_F64;
  a->b = v[O_B];
  a->out = v[O_OUT];
  a->history = v[O_HISTORY];
  a->plot = v[O_PLOT];
  if ((a->b && !*a->b) || (a->out && !*a->out) ||
      (a->history && !*a->history) || (a->plot && !*a->plot))
    return cli_usage(cmd, "%s needs a file name (got '')",
                     a->b && !*a->b               ? "--b"
                     : a->out && !*a->out         ? "-o"
                     : a->history && !*a->history ? "--history"
                                                  : "--plot");
  int prc;
  if (a->plot &&
      (prc = cli_check_script_name(cmd, "--plot", a->plot)) != CLI_OK)
    return prc;
  return CLI_OK;
}

static void on_progress(void *user, int it, double relres) {
  const char *cmd = user;
  fprintf(stderr, "smv %s: iteration %d, %s %.3e\n", cmd, it,
          strcmp(cmd, "pagerank") == 0 ? "change" : "relative residual",
          relres);
}

/* PageRank's link weights must be >= 0: a signed matrix (the rmat, rand
 * and plaw generators make signed values) is refused with the way out. */
static int check_weights(const char *name, const smv_csr *A) {
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (!(A->values[k] >= 0) || !isfinite(A->values[k])) {
        cli_error("%s: entry (%lld, %lld) = %g: PageRank's link weights must "
                  "be finite and >= 0; use --pattern to take every stored "
                  "entry as a link of weight 1",
                  name, (long long)i + 1, (long long)A->col_idx[k] + 1,
                  A->values[k]);
        return CLI_ERR;
      }
  return CLI_OK;
}

/* A context when the backend asks for one; *ctx stays NULL for the CPU. */
static int open_backend(const solve_args *a, smv_context **ctx) {
  *ctx = NULL;
  if (a->bk == BK_CPU)
    return CLI_OK;
  smv_status st = smv_context_create(0, ctx);
  if (st == SMV_OK)
    return CLI_OK;
  *ctx = NULL;
  const char *why = smv_context_error(NULL);
  if (a->bk == BK_CUDA) {
    cli_error("--backend cuda: no CUDA device (%s)",
              why && *why ? why : smv_status_string(st));
    return CLI_ERR;
  }
  cli_error("%s; using the CPU", why && *why ? why : smv_status_string(st));
  return CLI_OK;
}

/* Run the solver on the chosen backend with double vectors in and out. */
static int run_solver(const solve_args *a, smv_context *ctx, const smv_csr *A,
                      const double *b, double *x, const smv_solve_options *o,
                      smv_solve_result *res) {
  const int64_t n = A->rows;
  smv_error err;
  memset(&err, 0, sizeof err);
  smv_status st;
  if (ctx && a->method == SMV_METHOD_PAGERANK) {
    st = smv_pagerank_cuda(ctx, A, a->prec, x, o, res);
  } else if (ctx) {
    /* A solver multiplies by A up to maxit times (BiCGStab twice an
     * iteration): reuse declared, so where a compressed rung qualifies
     * AUTO's rung is planned by measurement among the reuse plan's short
     * list (include/smv.h). */
    smv_matrix_options mo = {.flags = SMV_MATRIX_REUSE,
                             .expected_calls =
                                 (int64_t)o->maxit *
                                 (a->method == SMV_METHOD_BICGSTAB ? 2 : 1)};
    smv_matrix *dA = NULL;
    st = smv_matrix_create_ex(ctx, A, a->prec, &mo, &dA);
    if (st == SMV_OK)
      st = smv_solve_cuda_host(ctx, dA, a->method, b, x, o, res);
    smv_matrix_free(dA);
  } else if (a->prec == SMV_F64) {
    st = a->method == SMV_METHOD_CG ? smv_cg(A, b, x, o, res, &err)
         : a->method == SMV_METHOD_BICGSTAB
             ? smv_bicgstab(A, b, x, o, res, &err)
             : smv_pagerank(A, x, o, res, &err);
  } else {
    float *bf = malloc(((size_t)n + 1) * sizeof *bf);
    float *xf = malloc(((size_t)n + 1) * sizeof *xf);
    if (!bf || !xf) {
      free(bf), free(xf);
      cli_error("out of memory for the float vectors (%lld)", (long long)n);
      return CLI_ERR;
    }
    for (int64_t i = 0; b && i < n; i++)
      bf[i] = (float)b[i];
    st = a->method == SMV_METHOD_CG ? smv_cg_f32(A, bf, xf, o, res, &err)
         : a->method == SMV_METHOD_BICGSTAB
             ? smv_bicgstab_f32(A, bf, xf, o, res, &err)
             : smv_pagerank_f32(A, xf, o, res, &err);
    for (int64_t i = 0; st == SMV_OK && i < n; i++)
      x[i] = xf[i];
    free(bf), free(xf);
  }
  if (st == SMV_OK)
    return CLI_OK;
  if (ctx) {
    const char *why = smv_context_error(ctx);
    cli_error("%s", why && *why ? why : smv_status_string(st));
    return CLI_ERR;
  }
  return cli_fail(st, &err);
}

static int write_history(const char *path, const double *h, int count,
                         const char *what) {
  FILE *f = bench_open_out(path);
  if (!f)
    return CLI_ERR;
  fprintf(f, "iteration,%s\n", what);
  for (int k = 0; k < count; k++)
    fprintf(f, "%d,%.17g\n", k, h[k]);
  if (bench_close_out(f, path) != 0)
    return CLI_ERR;
  return CLI_OK;
}

/* The residual history through gnuplot (log scale): F.csv, F.gp, F.png. */
static int plot_files(const char *png, const double *h, int count,
                      const char *title, const char *dat, const char *gp) {
  if (lab_plot_target(png) != 0 || lab_plot_target(dat) != 0 ||
      lab_plot_target(gp) != 0)
    return CLI_ERR;
  if (write_history(dat, h, count, "relres") != CLI_OK)
    return CLI_ERR;
  FILE *f = bench_open_out(gp);
  if (!f)
    return CLI_ERR;
  fprintf(f, "# gnuplot script written by smv solve; data in the .csv\n"
             "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
             "  set terminal pngcairo size 900,540 font ',10'\n"
             "} else {\n"
             "  set terminal png size 900,540\n"
             "}\n");
  lab_gnuplot_output(f, png);
  fprintf(f, "set datafile separator ','\nset key off\nset logscale y\n"
             "set format y '10^{%%L}'\nset grid\n"
             "set xlabel 'iteration'\nset ylabel '||r|| / ||b||'\n"
             "set title ");
  lab_gnuplot_string(f, title);
  fprintf(f, " noenhanced\nplot ");
  lab_gnuplot_string(f, dat);
  fprintf(f, " every ::1 using 1:2 with lines lw 2\n");
  if (bench_close_out(f, gp) != 0)
    return CLI_ERR;
  if (!lab_have_gnuplot()) {
    fprintf(stderr,
            "smv: gnuplot not found: wrote %s and %s; install gnuplot "
            "(apt-get install gnuplot-nox) and run 'gnuplot %s'\n",
            dat, gp, gp);
    return CLI_OK;
  }
  int rc = lab_run_gnuplot(gp, png);
  if (rc == -2)
    return CLI_ERR;
  if (rc > 0) {
    cli_error("%s: running gnuplot: %s", png, strerror(rc));
    return CLI_ERR;
  }
  if (rc < 0) {
    cli_error("gnuplot %s failed (its message is above)", gp);
    return CLI_ERR;
  }
  printf("plot: %s\n", png);
  return CLI_OK;
}

static int plot_history(const char *png, const double *h, int count,
                        const char *title) {
  char *dat = lab_plot_name(png, NULL, "csv");
  char *gp = dat ? lab_plot_name(png, NULL, "gp") : NULL;
  int rc = gp ? plot_files(png, h, count, title, dat, gp) : CLI_ERR;
  free(dat);
  free(gp);
  return rc;
}

static int write_vector(const char *path, const double *x, int64_t n) {
  smv_error err;
  smv_status st = smv_mm_write_vector(path, x, n, &err);
  return st == SMV_OK ? CLI_OK : cli_fail(st, &err);
}

/* Indices of the k largest entries of r (ties: the smaller index first). */
static void print_top(const double *r, int64_t n, long k) {
  if (k > n)
    k = (long)n;
  int64_t *idx = malloc(((size_t)k + 1) * sizeof *idx);
  if (!idx)
    return;
  long have = 0;
  for (int64_t i = 0; i < n; i++) {
    if (have == k && !(r[i] > r[idx[k - 1]]))
      continue;
    long p = have < k ? have++ : k - 1;
    while (p > 0 && r[i] > r[idx[p - 1]]) {
      idx[p] = idx[p - 1];
      p--;
    }
    idx[p] = i;
  }
  if (have > 0)
    printf("top %ld:\n", have);
  for (long j = 0; j < have; j++)
    printf("  %4ld  node %lld  %.10g\n", j + 1, (long long)idx[j] + 1,
           r[idx[j]]);
  free(idx);
}

static int cmd_solve_common(int argc, char **argv, int pagerank) {
  if (cli_wants_help(argc, argv)) {
    if (pagerank)
      pagerank_help(stdout);
    else
      solve_help(stdout);
    return CLI_OK;
  }
  solve_args a;
  int rc = parse_args(argc, argv, pagerank, &a);
  if (rc != CLI_OK)
    return rc;
  smv_csr *A = NULL, *PA = NULL; /* PA: P A P^T with --reorder */
  smv_index *perm = NULL;
  double *b = NULL, *x = NULL, *hist = NULL, *pb = NULL, *px = NULL;
  smv_context *ctx = NULL;
  const double t_start = lab_now_s();
  /* The device first: --backend cuda without one says so before a large
   * matrix is read or generated. */
  if ((rc = open_backend(&a, &ctx)) != CLI_OK)
    goto done;
  if ((rc = cli_load(a.matrix, &A)) != CLI_OK)
    goto done;
  if (A->rows != A->cols) {
    cli_error("%s: the matrix is %lld x %lld; %s needs a square one", a.matrix,
              (long long)A->rows, (long long)A->cols, a.cmd);
    rc = CLI_ERR;
    goto done;
  }
  const int64_t n = A->rows;
  if (a.pattern)
    for (int64_t k = 0; k < A->nnz; k++)
      A->values[k] = 1.0;
  else if (pagerank && (rc = check_weights(a.matrix, A)) != CLI_OK)
    goto done;
  /* x, b and the solver's workspace (BiCGStab: 8 vectors; f32 copies;
   * --reorder: P b and P x), checked like the CSR before any of them is
   * allocated (the reordered copy of A is checked when it is made). */
  if ((rc = cli_vectors_fit(a.matrix, A,
                            (a.order != CLI_ORDER_NONE ? 14 : 12) * 8, 0,
                            "the solver's vectors")) != CLI_OK)
    goto done;
  x = calloc((size_t)n + 1, sizeof *x);
  if (!x) {
    cli_error("out of memory for x (%lld doubles)", (long long)n);
    rc = CLI_ERR;
    goto done;
  }
  if (!pagerank && a.b) {
    char what[96];
    snprintf(what, sizeof what, "the matrix has %lld rows", (long long)n);
    if ((rc = cli_read_vector(a.b, n, what, &b)) != CLI_OK)
      goto done;
  } else if (!pagerank) {
    double *ones = malloc(((size_t)n + 1) * sizeof *ones);
    b = malloc(((size_t)n + 1) * sizeof *b);
    if (!ones || !b) {
      free(ones);
      cli_error("out of memory for b (%lld doubles)", (long long)n);
      rc = CLI_ERR;
      goto done;
    }
    for (int64_t i = 0; i < n; i++)
      ones[i] = 1.0;
    smv_status st = smv_spmv_cpu(A, 1.0, ones, 0.0, b);
    free(ones);
    if (st != SMV_OK) {
      rc = cli_fail(st, NULL);
      goto done;
    }
  }
  if (a.history || a.plot) {
    a.o.history_len = a.o.maxit + 1;
    hist = malloc((size_t)a.o.history_len * sizeof *hist);
    if (!hist) {
      cli_error("out of memory for the history (%d)", a.o.history_len);
      rc = CLI_ERR;
      goto done;
    }
    a.o.history = hist;
  }
  if (a.o.progress_every > 0) {
    a.o.progress = on_progress;
    a.o.progress_user = (void *)a.cmd;
  }
  /* --reorder: A and b permuted once, the solve in the new order, x back
   * to the input's order; everything after works on A, b and x as given. */
  cli_reorder_report reo;
  if (a.order != CLI_ORDER_NONE) {
    if ((rc = cli_reorder(a.matrix, a.order, A, &PA, &perm, &reo)) != CLI_OK)
      goto done;
    pb = malloc(((size_t)n + 1) * sizeof *pb);
    px = calloc((size_t)n + 1, sizeof *px);
    if (!pb || !px) {
      cli_error("out of memory for the permuted vectors (%lld)", (long long)n);
      rc = CLI_ERR;
      goto done;
    }
    smv_error perr;
    smv_status pst = smv_vec_permute(n, perm, b, pb, &perr);
    if (pst != SMV_OK) {
      rc = cli_fail(pst, &perr);
      goto done;
    }
  }
  smv_solve_result res;
  rc = run_solver(&a, ctx, PA ? PA : A, PA ? pb : b, PA ? px : x, &a.o, &res);
  if (rc == CLI_OK && PA) {
    smv_error perr;
    smv_status pst = smv_vec_unpermute(n, perm, px, x, &perr);
    if (pst != SMV_OK)
      rc = cli_fail(pst, &perr);
  }
  const double t1 = lab_now_s();
  if (rc != CLI_OK)
    goto done;

  static const char *const mname[] = {"cg", "bicgstab", "pagerank"};
  printf("%s: %s%s, %s, %s: %lld x %lld, %lld entries\n", a.matrix,
         mname[a.method],
         pagerank                               ? ""
         : a.o.precond == SMV_PRECOND_JACOBI    ? " + jacobi"
         : a.o.precond == SMV_PRECOND_CHEBYSHEV ? " + chebyshev"
                                                : "",
         ctx ? "cuda" : "cpu", a.prec == SMV_F64 ? "f64" : "f32", (long long)n,
         (long long)n, (long long)A->nnz);
  if (PA) {
    cli_reorder_print(stdout, a.order, &reo);
    printf("               (solved in that order; x, -o and the residuals "
           "below in the input's)\n");
  }
  printf("iterations: %d (%s)\n", res.iterations,
         res.converged ? "converged"
         : res.precision_limited
             ? "not converged: the recurrence met tol, the true residual "
               "did not"
         : res.breakdown
             ? (a.method == SMV_METHOD_CG
                    ? "breakdown: a zero or negative denominator, A is not "
                      "positive definite"
                    : "breakdown: a zero denominator")
             : "iteration limit reached");
  if (pagerank) {
    printf("change (L1): %.3e (tol %.3g)\n", res.relres, a.o.tol);
  } else {
    double *ax = malloc(((size_t)n + 1) * sizeof *ax);
    if (ax && smv_spmv_cpu(A, 1.0, x, 0.0, ax) == SMV_OK) {
      double rr = 0.0, bb = 0.0, e = 0.0;
      for (int64_t i = 0; i < n; i++) {
        rr += (b[i] - ax[i]) * (b[i] - ax[i]);
        bb += b[i] * b[i];
        e = fmax(e, fabs(x[i] - 1.0));
      }
      printf("relative residual: %.3e (recurrence; tol %.3g)\n", res.relres,
             a.o.tol);
      printf("true residual: %.3e (||b - A x|| / ||b||, recomputed)\n",
             bb > 0 ? sqrt(rr) / sqrt(bb) : sqrt(rr));
      if (!a.b)
        printf("max error: %.3e (b = A*ones: |x - 1|)\n", e);
    }
    free(ax);
  }
  printf("time: %.3f ms solve (%.3f us per iteration), %.3f ms in all%s\n",
         res.seconds * 1e3,
         res.iterations ? res.seconds * 1e6 / res.iterations : 0.0,
         (t1 - t_start) * 1e3,
         ctx ? (res.persistent == SMV_PERSISTENT_CG_RESIDENT ||
                        res.persistent == SMV_PERSISTENT_CG_PR
                    ? "; persistent kernel, matrix in shared memory"
                : res.persistent ? "; persistent kernel"
                : res.graph_used ? "; CUDA graph"
                                 : "")
             : "");
  if (pagerank && a.top > 0)
    print_top(x, n, a.top);
  if (a.out && (rc = write_vector(a.out, x, n)) != CLI_OK)
    goto done;
  if (a.history &&
      (rc = write_history(a.history, hist, res.history_count,
                          pagerank ? "change" : "relres")) != CLI_OK)
    goto done;
  if (a.plot) {
    char title[600];
    snprintf(title, sizeof title, "%s: %s, %d iterations", a.matrix,
             mname[a.method], res.iterations);
    if ((rc = plot_history(a.plot, hist, res.history_count, title)) != CLI_OK)
      goto done;
  }
  fflush(stdout);
  if (res.precision_limited) {
    cli_error("not converged: tol %.3g is below what %s reaches here (the "
              "recurrence met it after %d iterations, the true residual, "
              "printed above, did not); use --precision f64 or a larger "
              "--tol",
              a.o.tol, a.prec == SMV_F32 ? "f32" : "this precision",
              res.iterations);
    rc = CLI_NOT_CONVERGED; /* an answer short of tol, as documented */
  } else if (!res.converged) {
    cli_error("not converged: %s after %d iterations (%.3e > tol %.3g)",
              res.breakdown ? "breakdown" : "stopped", res.iterations,
              res.relres, a.o.tol);
    rc = CLI_NOT_CONVERGED;
  }
done:
  smv_context_free(ctx);
  smv_csr_free(A);
  smv_csr_free(PA);
  free(perm);
  free(pb);
  free(px);
  free(b);
  free(x);
  free(hist);
  return rc;
}

int cmd_solve(int argc, char **argv) { return cmd_solve_common(argc, argv, 0); }
int cmd_pagerank(int argc, char **argv) {
  return cmd_solve_common(argc, argv, 1);
}
