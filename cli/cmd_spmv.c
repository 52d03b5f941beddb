/* cmd_spmv.c — `smv spmv MATRIX ...`: y = alpha*A*x + beta*y once, on the
 * CPU or a CUDA device, with vectors as Matrix Market array files. */
#include "cli.h"
#include "cli_dist.h" /* mpirun -np N smv spmv: cli/cmd_dist.c */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void spmv_help(FILE *f) {
  fprintf(
      f,
      "usage: smv spmv MATRIX [--x FILE] [--y FILE] [--alpha A] [--beta B]\n"
      "                [-o FILE] [--backend auto|cpu|cuda]\n"
      "                [--precision f64|f32|f64-f32v]\n"
      "                [--alg NAME] [--reuse [N]] [-v]\n"
      "\n"
      "Compute y = alpha*A*x + beta*y once and write y as a Matrix Market "
      "array\n"
      "(n x 1, values with %%.17g). MATRIX is a .mtx/.mtx.gz file or a "
      "generator\n"
      "spec (see 'smv gen --help').\n"
      "\n"
      "  --x FILE        x, a Matrix Market vector of length cols (default: "
      "all ones)\n"
      "  --y FILE        the initial y, length rows; required when beta != "
      "0\n"
      "  --alpha A       default 1\n"
      "  --beta B        default 0 (y is overwritten; NaN in it never "
      "leaks).\n"
      "                  A nonzero beta needs --y, and --y needs an explicit "
      "--beta,\n"
      "                  so neither is silently ignored.\n"
      "  -o FILE         write y there (.gz compresses); default standard "
      "output\n"
      "  --backend B     auto (default): CUDA if a device answers, else the "
      "CPU,\n"
      "                  saying so in one line on stderr; cpu; cuda (an "
      "error\n"
      "                  without a device)\n"
      "  --precision P   f64 (default) or f32 (values, x and y rounded to "
      "float,\n"
      "                  float accumulation; the result is written as "
      "double),\n"
      "                  or f64-f32v (lossy: the matrix's values rounded "
      "once to\n"
      "                  float, x, y and every sum in double; a value "
      "past the\n"
      "                  float range is an error; bound: docs/engine.md)\n"
      "  --alg NAME      ");
  char text[512];
  snprintf(text, sizeof text,
           "CUDA: a rung of the kernel ladder (%s, or its number). CPU: omp "
           "(default, OpenMP merge-path) or ref (serial reference, f64 "
           "only); naming a CPU one picks the CPU.",
           cli_alg_names());
  cli_wrap(f, 18, text);
  fprintf(f,
          "  --reuse [N]     CUDA: declare N SpMVs to come on the matrix "
          "(alone: many),\n"
          "                  so AUTO is planned by measurement among a short "
          "list\n"
          "                  (smv info --help; -v prints the plan)\n"
          "  -v, --verbose   report backend, algorithm and time on stderr\n"
          "  -h, --help      this text\n"
          "\n"
          "Exit status: 0 ok, 1 bad input (matrix, vector length, no device), "
          "2 usage.\n");
}

typedef enum { BK_AUTO, BK_CPU, BK_CUDA } backend;
typedef enum { CPU_OMP, CPU_REF, CPU_NONE } cpu_alg;

typedef struct {
  const char *matrix, *x, *y, *out, *alg_name;
  double alpha, beta;
  int beta_given, verbose;
  backend bk;
  smv_precision prec;
  smv_alg alg;           /* when the CUDA path runs */
  cpu_alg cpu;           /* when the CPU path runs */
  smv_matrix_options mo; /* --reuse: its flag and expected_calls */
} spmv_args;

/* The one MATRIX. */
static int spmv_positional(void *user, const char *arg) {
  spmv_args *o = user;
  if (o->matrix)
    return cli_usage("spmv", "more than one MATRIX ('%s' and '%s')", o->matrix,
                     arg);
  o->matrix = arg;
  return CLI_OK;
}

/* Parse and cross-check every option before any work is done, so usage
 * errors never cost a matrix load. Returns CLI_OK or CLI_USAGE. */
static int parse_args(int argc, char **argv, spmv_args *o) {
  memset(o, 0, sizeof *o);
  o->alpha = 1.0;
  o->bk = BK_AUTO;
  o->prec = SMV_F64;
  o->alg = SMV_ALG_AUTO;
  o->cpu = CPU_OMP;
  const char *alpha_s = NULL, *beta_s = NULL, *bk_s = NULL, *prec_s = NULL,
             *reuse_n = NULL;
  int reuse_bare = 0;
  const cli_opt opts[] = {
      {.name = "--verbose", .alias = "-v", .flag = &o->verbose},
      {.name = "--x", .need = "a value", .once = 1, .str = &o->x},
      {.name = "--y", .need = "a value", .once = 1, .str = &o->y},
      {.name = "--alpha", .need = "a value", .once = 1, .str = &alpha_s},
      {.name = "--beta", .need = "a value", .once = 1, .str = &beta_s},
      {.name = "--output",
       .alias = "-o",
       .need = "a value",
       .once = 1,
       .str = &o->out},
      {.name = "--backend", .need = "a value", .once = 1, .str = &bk_s},
      {.name = "--precision", .need = "a value", .once = 1, .str = &prec_s},
      {.name = "--alg", .need = "a value", .once = 1, .str = &o->alg_name},
      {.name = "--reuse",
       .need = "an expected call count",
       .optional = 1,
       .str = &reuse_n,
       .flag = &reuse_bare},
      {0}};
  int rc = cli_parse("spmv", argc, argv, opts, spmv_positional, o);
  if (rc != CLI_OK)
    return rc;
  if ((rc = cli_reuse_options("spmv", reuse_bare, reuse_n, &o->mo)) != CLI_OK)
    return rc;
  if (!o->matrix)
    return cli_usage("spmv", "missing MATRIX (a .mtx file or a spec such as "
                             "lap2d:100)");
  if (alpha_s && cli_parse_double(alpha_s, &o->alpha) != 0)
    return cli_usage("spmv", "--alpha: '%s' is not a number", alpha_s);
  if (beta_s) {
    if (cli_parse_double(beta_s, &o->beta) != 0)
      return cli_usage("spmv", "--beta: '%s' is not a number", beta_s);
    o->beta_given = 1;
  }
  if (o->beta != 0.0 && !o->y)
    return cli_usage(
        "spmv", "--beta %s needs --y FILE (the initial y it scales)", beta_s);
  if (o->y && !o->beta_given)
    return cli_usage("spmv", "--y is only read with an explicit --beta "
                             "(the default beta = 0 ignores y)");
  if (o->out && !*o->out)
    return cli_usage("spmv", "-o needs a file name");
  if ((o->x && !*o->x) || (o->y && !*o->y)) /* --x= : before any loading */
    return cli_usage("spmv", "%s needs a file name",
                     o->x && !*o->x ? "--x" : "--y");
  static const char *const backends[] = {"auto", "cpu", "cuda", NULL};
  int k;
  if (bk_s) {
    static const backend bks[] = {BK_AUTO, BK_CPU, BK_CUDA};
    if ((k = cli_pick(bk_s, backends)) < 0)
      return cli_usage("spmv", "--backend must be auto, cpu or cuda, not '%s'",
                       bk_s);
    o->bk = bks[k];
  }
  if (prec_s && smv_precision_parse(prec_s, &o->prec) != SMV_OK)
    return cli_usage(
        "spmv", "--precision must be f64, f32 or f64-f32v, not '%s'", prec_s);
  if (o->alg_name) {
    cpu_alg c = strcmp(o->alg_name, "omp") == 0   ? CPU_OMP
                : strcmp(o->alg_name, "ref") == 0 ? CPU_REF
                                                  : CPU_NONE;
    if (c != CPU_NONE) {
      if (o->bk == BK_CUDA)
        return cli_usage("spmv",
                         "--alg %s is a CPU algorithm; not with --backend "
                         "cuda",
                         o->alg_name);
      o->bk = BK_CPU; /* naming a CPU algorithm picks the CPU */
      o->cpu = c;
    } else {
      if (o->bk == BK_CPU && strcmp(o->alg_name, "auto") != 0)
        return cli_usage("spmv",
                         "--alg %s is a CUDA kernel; the CPU takes omp or "
                         "ref",
                         o->alg_name);
      if (smv_alg_parse(o->alg_name, &o->alg) != SMV_OK)
        return cli_usage("spmv", "unknown --alg '%s' (CUDA: %s; CPU: omp, ref)",
                         o->alg_name, cli_alg_names());
    }
  }
  if (o->cpu == CPU_REF && o->prec == SMV_F32)
    return cli_usage("spmv", "--alg ref is the double-precision reference; "
                             "not with --precision f32");
  return CLI_OK;
}

/* f64-f32v on the CPU: the f64 product of a copy whose values are rounded
 * once to float, which is what the device mode computes (its error bound
 * holds for both). A value past the float range is refused, as
 * smv_matrix_create refuses it. */
static int run_cpu_f32v(const spmv_args *o, const smv_csr *A, const double *x,
                        double *y) {
  smv_error err;
  smv_status st = smv_csr_check_f32_range(A, &err);
  if (st != SMV_OK)
    return cli_fail(st, &err);
  smv_csr *B = NULL;
  if ((st = smv_csr_copy(A, &B)) != SMV_OK) {
    cli_error("copying the matrix for f64-f32v: %s", smv_status_string(st));
    return CLI_ERR;
  }
  for (int64_t k = 0; k < B->nnz; k++)
    B->values[k] = (double)(float)B->values[k];
  st = o->cpu == CPU_REF ? smv_spmv_ref(B, o->alpha, x, o->beta, y)
                         : smv_spmv_cpu(B, o->alpha, x, o->beta, y);
  smv_csr_free(B);
  if (st != SMV_OK) {
    if (smv_csr_check(A, &err) != SMV_OK)
      return cli_fail(err.status, &err);
    cli_error("CPU SpMV failed: %s", smv_status_string(st));
    return CLI_ERR;
  }
  return CLI_OK;
}

static int run_cpu(const spmv_args *o, const smv_csr *A, const double *x,
                   double *y) {
  smv_status st;
  if (o->prec == SMV_F64_F32V)
    return run_cpu_f32v(o, A, x, y);
  if (o->prec == SMV_F64) {
    st = o->cpu == CPU_REF ? smv_spmv_ref(A, o->alpha, x, o->beta, y)
                           : smv_spmv_cpu(A, o->alpha, x, o->beta, y);
  } else {
    /* x: cols floats, y: rows floats (4 bytes each). */
    float *xf = malloc(((size_t)A->cols + 1) * sizeof *xf);
    float *yf = malloc(((size_t)A->rows + 1) * sizeof *yf);
    if (!xf || !yf) {
      free(xf);
      free(yf);
      cli_error("out of memory for the float vectors");
      return CLI_ERR;
    }
    for (int64_t j = 0; j < A->cols; j++)
      xf[j] = (float)x[j];
    for (int64_t i = 0; i < A->rows; i++)
      yf[i] = (float)y[i];
    st = smv_spmv_cpu_f32(A, (float)o->alpha, xf, (float)o->beta, yf);
    for (int64_t i = 0; st == SMV_OK && i < A->rows; i++)
      y[i] = yf[i];
    free(xf);
    free(yf);
  }
  if (st != SMV_OK) {
    smv_error err;
    if (smv_csr_check(A, &err) != SMV_OK)
      return cli_fail(err.status, &err);
    cli_error("CPU SpMV failed: %s", smv_status_string(st));
    return CLI_ERR;
  }
  return CLI_OK;
}

static int run_cuda(const spmv_args *o, smv_context *ctx, const smv_csr *A,
                    const double *x, double *y) {
  smv_matrix *dA = NULL;
  smv_status st = smv_matrix_create_ex(ctx, A, o->prec, &o->mo, &dA);
  smv_matrix_plan_info p;
  if (st == SMV_OK && o->verbose && o->alg == SMV_ALG_AUTO &&
      smv_matrix_plan(dA, &p) == SMV_OK)
    fprintf(stderr, "smv spmv: AUTO runs %s: %s\n", smv_alg_name(p.alg),
            p.reason);
  if (st == SMV_OK)
    st = smv_spmv_host_vectors(ctx, o->alg, o->alpha, dA, x, o->beta, y);
  smv_matrix_free(dA);
  if (st != SMV_OK) {
    const char *why = smv_context_error(ctx);
    cli_error("CUDA SpMV failed: %s",
              why && *why ? why : smv_status_string(st));
    return CLI_ERR;
  }
  return CLI_OK;
}

/* The reason a context could not be created, without repeating "no CUDA
 * device" in the fallback line. */
static const char *no_device_reason(smv_status st) {
  const char *why = smv_context_error(NULL);
  if (!why || !*why)
    return smv_status_string(st);
  static const char prefix[] = "no CUDA device: ";
  if (strncmp(why, prefix, sizeof prefix - 1) == 0)
    why += sizeof prefix - 1;
  return why;
}

int cmd_spmv(int argc, char **argv) {
  int dist_rc;
  if (cli_dist_hook(CLI_DIST_SPMV, argc, argv, &dist_rc))
    return dist_rc;
  if (cli_wants_help(argc, argv)) {
    spmv_help(stdout);
    return CLI_OK;
  }
  spmv_args o;
  int rc = parse_args(argc, argv, &o);
  if (rc != CLI_OK)
    return rc;

  smv_csr *A = NULL;
  double *x = NULL, *y = NULL;
  smv_context *ctx = NULL;
  /* The device first: --backend cuda without one says so before a large
   * matrix is read or generated. */
  int use_cuda = 0;
  if (o.bk != BK_CPU) {
    smv_status st = smv_context_create(0, &ctx);
    if (st == SMV_OK) {
      use_cuda = 1;
    } else if (o.bk == BK_CUDA) {
      cli_error("--backend cuda: no CUDA device (%s)", no_device_reason(st));
      rc = CLI_ERR;
      goto done;
    } else {
      cli_error("no CUDA device (%s); using the CPU", no_device_reason(st));
    }
  }
  rc = cli_load(o.matrix, &A);
  if (rc != CLI_OK)
    goto done;
  /* x and y (f64, and their f32 copies), checked like the CSR: a 3-line
   * file may declare 2^31 - 1 columns. */
  rc = o.prec == SMV_F32 ? cli_vectors_fit(o.matrix, A, 12, 12, "x and y")
                         : cli_vectors_fit(o.matrix, A, 8, 8, "x and y");
  if (rc != CLI_OK)
    goto done;
  char what[96];
  snprintf(what, sizeof what, "the matrix has %lld columns",
           (long long)A->cols);
  if (o.x) {
    rc = cli_read_vector(o.x, A->cols, what, &x);
    if (rc != CLI_OK)
      goto done;
  } else {
    x = malloc(((size_t)A->cols + 1) * sizeof *x);
    if (!x) {
      cli_error("out of memory for x (%lld doubles)", (long long)A->cols);
      rc = CLI_ERR;
      goto done;
    }
    for (int64_t j = 0; j < A->cols; j++)
      x[j] = 1.0;
  }
  if (o.y) {
    snprintf(what, sizeof what, "the matrix has %lld rows", (long long)A->rows);
    rc = cli_read_vector(o.y, A->rows, what, &y);
    if (rc != CLI_OK)
      goto done;
  } else {
    y = calloc((size_t)A->rows + 1, sizeof *y);
    if (!y) {
      cli_error("out of memory for y (%lld doubles)", (long long)A->rows);
      rc = CLI_ERR;
      goto done;
    }
  }

  double t0 = lab_now_s();
  rc = use_cuda ? run_cuda(&o, ctx, A, x, y) : run_cpu(&o, A, x, y);
  double t1 = lab_now_s();
  if (rc != CLI_OK)
    goto done;
  if (o.verbose) {
    const char *alg = use_cuda           ? smv_alg_name(o.alg)
                      : o.cpu == CPU_REF ? "ref"
                                         : "omp";
    fprintf(stderr,
            "smv spmv: %s, alg %s, %s: %lld x %lld, %lld entries, %.3f ms "
            "(including %s)\n",
            use_cuda ? "cuda" : "cpu", alg, smv_precision_name(o.prec),
            (long long)A->rows, (long long)A->cols, (long long)A->nnz,
            (t1 - t0) * 1e3,
            use_cuda ? "upload, analysis and copies" : "argument checks");
  }

  smv_error err;
  smv_status st;
  if (o.out && strcmp(o.out, "-") != 0) {
    st = smv_mm_write_vector(o.out, y, A->rows, &err);
  } else {
    st = smv_mm_write_vector_file(stdout, y, A->rows, &err); /* "stdout" */
  }
  if (st != SMV_OK)
    rc = cli_fail(st, &err);

done:
  smv_context_free(ctx);
  smv_csr_free(A);
  smv_free(x);
  smv_free(y);
  return rc;
}
