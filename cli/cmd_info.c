/* cmd_info.c — `smv info MATRIX [--json] [--reorder rcm|degree]`: shape,
 * row-length statistics and histogram of a Matrix Market file or a
 * generated matrix; with --reorder, the bandwidth and profile before and
 * after the ordering. */
#include "bench.h" /* bench_plan_print */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void info_help(FILE *f) {
  fprintf(f, "usage: smv info MATRIX [--json] [--plan [--tune] [--reuse [N]] "
             "[--precision P]\n"
             "                                  [--k K [--layout row|col]]]\n"
             "                                  [--reorder rcm|degree]\n"
             "\n"
             "Statistics of MATRIX, a Matrix Market file (.mtx, .mtx.gz) or a "
             "generator\n"
             "spec (see 'smv gen --help'). nnz counts the stored entries after "
             "symmetric\n"
             "halves are mirrored and duplicates summed (explicit zeros "
             "kept).\n"
             "\n"
             "  --json     one JSON object: matrix, source, rows, cols, nnz, "
             "row_min,\n"
             "             row_max, row_mean, row_stddev, empty_rows, "
             "diag_entries,\n"
             "             bandwidth, field, symmetry, format, csr_bytes, "
             "histogram\n"
             "             (histogram: [{\"lo\":L,\"hi\":H,\"rows\":N}, ...], "
             "rows whose\n"
             "             length is in L..H; bins are 0, 1, 2-3, 4-7, ...)\n"
             "  --plan     also upload MATRIX to the GPU (device 0) and print "
             "its plan:\n"
             "             the rung AUTO runs and why (the statistics the "
             "heuristic\n"
             "             decided from), the analysis times (upload, "
             "statistics, plan,\n"
             "             rung set-up) against cuSPARSE's preprocess alone, "
             "device memory\n"
             "  --tune     with --plan: plan by measurement (time every "
             "candidate rung,\n"
             "             keep the fastest) and list the candidates' times\n"
             "  --reuse [N] with --plan: declare N SpMVs to come (alone: "
             "many); from\n"
             "             smv_matrix_reuse_threshold (960 by default), where "
             "rung 13\n"
             "             (packed) qualifies, AUTO is planned by measurement "
             "among it,\n"
             "             the rule's pick and cuSPARSE ALG1/ALG2; the "
             "reason says\n"
             "             \"reuse declared\" and the candidates' times are "
             "listed\n"
             "  --precision P   of the --plan upload: f64 (default), f32 or "
             "f64-f32v\n"
             "             (f32 values, f64 vectors: rungs 9 and 10 only, no "
             "cuSPARSE)\n"
             "  --k K      with --plan: the SpMM plan instead (Y = A*X, X of K "
             "columns,\n"
             "             1..1024, packed leading dimensions): the rung AUTO "
             "runs and\n"
             "             why; without a device, the rule on the host "
             "statistics;\n"
             "             --tune times the SpMM rungs on the device\n"
             "  --layout row|col  of the SpMM plan's X and Y (default: "
             "both)\n"
             "  --reorder rcm|degree  also order the rows and columns "
             "symmetrically\n"
             "             (reverse Cuthill-McKee or increasing degree, on "
             "the pattern\n"
             "             of A + A^T; square matrices) and print the "
             "bandwidth and\n"
             "             profile before and after (JSON: \"reorder\"); "
             "--plan then\n"
             "             plans the reordered matrix\n"
             "  -h, --help this text\n"
             "\n"
             "Exit status: 0 ok, 1 unreadable or invalid matrix, 2 usage "
             "error.\n");
}

/* The banner's words, in enum order. */
static const char *field_name(smv_field f) {
  static const char *const names[] = {"real", "integer", "pattern", "complex"};
  return (unsigned)f < sizeof names / sizeof *names ? names[f] : "unknown";
}

static const char *symmetry_name(smv_symmetry s) {
  static const char *const names[] = {"general", "symmetric", "skew-symmetric",
                                      "hermitian"};
  return (unsigned)s < sizeof names / sizeof *names ? names[s] : "unknown";
}

static const char *format_name(smv_format f) {
  return f == SMV_FORMAT_ARRAY ? "array" : "coordinate";
}

/* Host CSR memory: row_ptr (rows + 1) offsets, col_idx and values nnz
 * entries each (4 + 4 + 8 bytes: 12 per entry, 4 per row). */
static long long csr_bytes(const smv_stats *s) {
  return (long long)(s->nnz * 12 + (s->rows + 1) * 4);
}

/* Row lengths of histogram bin b: 0 for b = 0, [2^(b-1), 2^b - 1] after. */
static void bin_range(int b, long long *lo, long long *hi) {
  if (b == 0) {
    *lo = *hi = 0;
    return;
  }
  *lo = 1LL << (b - 1);
  *hi = (1LL << b) - 1;
}

static int last_bin(const smv_stats *s) {
  int last = 0;
  for (int b = 0; b < SMV_HIST_BINS; b++)
    if (s->hist[b])
      last = b;
  return last;
}

static void print_json(const char *matrix, const char *source, const smv_csr *A,
                       const smv_stats *s, int order,
                       const cli_reorder_report *r) {
  printf("{\n  \"matrix\": ");
  bench_json_string(stdout, matrix);
  printf(",\n  \"source\": \"%s\",\n", source);
  printf("  \"rows\": %lld,\n  \"cols\": %lld,\n  \"nnz\": %lld,\n",
         (long long)s->rows, (long long)s->cols, (long long)s->nnz);
  printf("  \"row_min\": %lld,\n  \"row_max\": %lld,\n", (long long)s->row_min,
         (long long)s->row_max);
  printf("  \"row_mean\": %.17g,\n  \"row_stddev\": %.17g,\n", s->row_mean,
         s->row_stddev);
  printf("  \"empty_rows\": %lld,\n  \"diag_entries\": %lld,\n",
         (long long)s->empty_rows, (long long)s->diag_entries);
  printf("  \"bandwidth\": %lld,\n", (long long)s->bandwidth);
  printf("  \"field\": \"%s\",\n  \"symmetry\": \"%s\",\n  \"format\": "
         "\"%s\",\n",
         field_name(A->field), symmetry_name(A->symmetry),
         format_name(A->format));
  printf("  \"csr_bytes\": %lld,\n", csr_bytes(s));
  if (order != CLI_ORDER_NONE)
    printf("  \"reorder\": {\"method\": \"%s\", \"bandwidth_before\": %lld, "
           "\"bandwidth_after\": %lld, \"profile_before\": %lld, "
           "\"profile_after\": %lld, \"ms\": %.3f},\n",
           cli_reorder_name(order), (long long)r->bandwidth[0],
           (long long)r->bandwidth[1], (long long)r->profile[0],
           (long long)r->profile[1], r->seconds * 1e3);
  printf("  \"histogram\": [");
  int last = s->rows > 0 ? last_bin(s) : -1;
  for (int b = 0; b <= last; b++) {
    long long lo, hi;
    bin_range(b, &lo, &hi);
    printf("%s\n    {\"lo\": %lld, \"hi\": %lld, \"rows\": %lld}", b ? "," : "",
           lo, hi, (long long)s->hist[b]);
  }
  printf("%s]\n}\n", last >= 0 ? "\n  " : "");
}

static void print_table(const char *matrix, const char *source,
                        const smv_csr *A, const smv_stats *s) {
  printf("matrix        %s (%s)\n", matrix, source);
  printf("rows          %lld\n", (long long)s->rows);
  printf("cols          %lld\n", (long long)s->cols);
  printf("nnz           %lld\n", (long long)s->nnz);
  printf("field         %s\n", field_name(A->field));
  printf("symmetry      %s%s\n", symmetry_name(A->symmetry),
         A->symmetry == SMV_SYM_GENERAL ? "" : " (expanded to general)");
  printf("format        %s\n", format_name(A->format));
  printf("row length    min %lld, max %lld, mean %.3f, stddev %.3f\n",
         (long long)s->row_min, (long long)s->row_max, s->row_mean,
         s->row_stddev);
  printf("empty rows    %lld\n", (long long)s->empty_rows);
  printf("diagonal      %lld stored entries\n", (long long)s->diag_entries);
  printf("bandwidth     %lld (max |i - j|)\n", (long long)s->bandwidth);
  printf("CSR memory    %.3f MB (int32 offsets and columns, double values)\n",
         (double)csr_bytes(s) / 1e6);
  if (s->rows == 0)
    return;
  printf("row lengths   histogram (rows per length range)\n");
  int first = 0, last = last_bin(s);
  while (first < last && s->hist[first] == 0)
    first++;
  for (int b = first; b <= last; b++) {
    long long lo, hi;
    bin_range(b, &lo, &hi);
    char range[48];
    if (lo == hi)
      snprintf(range, sizeof range, "%lld", lo);
    else
      snprintf(range, sizeof range, "%lld-%lld", lo, hi);
    printf("  %-22s %12lld  %6.2f%%\n", range, (long long)s->hist[b],
           100.0 * (double)s->hist[b] / (double)s->rows);
  }
}

/* --plan: the matrix on device 0, its plan and analysis record. Both
 * cuSPARSE algorithms are prepared so their preprocess times show (not in
 * f64-f32v, which cuSPARSE does not run). */
static int print_plan(const char *matrix, const smv_csr *A, smv_precision prec,
                      int tune, const smv_matrix_options *reuse) {
  smv_context *ctx = NULL;
  smv_status st = smv_context_create(0, &ctx);
  if (st != SMV_OK) {
    cli_error("--plan needs a CUDA device: %s: %s", smv_status_string(st),
              smv_context_error(ctx));
    smv_context_free(ctx);
    return CLI_ERR;
  }
  smv_device_props props;
  if (smv_device_props_get(ctx, &props) == SMV_OK)
    printf("device        %s\n", props.name);
  smv_matrix_options o = *reuse; /* --reuse, else zero */
  if (prec != SMV_F64_F32V)
    o.flags |= SMV_MATRIX_CUSPARSE;
  if (tune)
    o.flags |= SMV_MATRIX_TUNE;
  smv_matrix *dA = NULL;
  st = smv_matrix_create_ex(ctx, A, prec, &o, &dA);
  if (st != SMV_OK) {
    cli_error("%s: analysis on the GPU failed: %s: %s", matrix,
              smv_status_string(st), smv_context_error(ctx));
    smv_context_free(ctx);
    return CLI_ERR;
  }
  bench_plan_print(stdout, matrix, prec, dA);
  smv_matrix_free(dA);
  smv_context_free(ctx);
  return CLI_OK;
}

/* --plan --k K: SpMM's plan for each layout asked, on device 0 (its
 * statistics, --tune by measurement), or from the host statistics with
 * the same rule (smv_spmm_choose) when there is no device. */
static int print_spmm_plan(const char *matrix, const smv_csr *A,
                           const smv_stats *s, smv_precision prec, int k,
                           int layout, int tune) {
  smv_context *ctx = NULL;
  smv_matrix *dA = NULL;
  smv_status st = smv_context_create(0, &ctx);
  if (st == SMV_ERR_NO_DEVICE && !tune) {
    printf("spmm plan     no CUDA device: the rule on the host statistics\n");
    smv_context_free(ctx);
    ctx = NULL;
  } else if (st != SMV_OK) {
    cli_error("--plan --k needs a CUDA device%s: %s: %s",
              tune ? " with --tune" : "", smv_status_string(st),
              smv_context_error(ctx));
    smv_context_free(ctx);
    return CLI_ERR;
  } else {
    smv_device_props props;
    if (smv_device_props_get(ctx, &props) == SMV_OK)
      printf("device        %s\n", props.name);
    st = smv_matrix_create(ctx, A, prec, &dA);
    if (st != SMV_OK) {
      cli_error("%s: upload failed: %s: %s", matrix, smv_status_string(st),
                smv_context_error(ctx));
      smv_context_free(ctx);
      return CLI_ERR;
    }
  }
  int rc = CLI_OK;
  for (int l = 0; l < 2 && rc == CLI_OK; l++) {
    if (layout >= 0 && l != layout)
      continue;
    const smv_layout lay = l == 0 ? SMV_LAYOUT_ROW_MAJOR : SMV_LAYOUT_COL_MAJOR;
    const int64_t ldx = l == 0 ? k : (A->cols > 0 ? A->cols : 1);
    const int64_t ldy = l == 0 ? k : (A->rows > 0 ? A->rows : 1);
    smv_spmm_choice c;
    if (tune)
      st = smv_spmm_tune(ctx, dA, k, lay, 20, &c);
    else if (dA)
      st = smv_spmm_plan(ctx, dA, k, lay, ldx, ldy, &c);
    else {
      smv_spmm_shape sh;
      smv_spmm_shape_of(s, k, lay, prec == SMV_F32, ldx, ldy, &sh);
      st = smv_spmm_choose(&sh, &c);
    }
    if (st != SMV_OK) {
      cli_error("%s: SpMM plan failed: %s: %s", matrix, smv_status_string(st),
                ctx ? smv_context_error(ctx) : "");
      rc = CLI_ERR;
      break;
    }
    printf("spmm %s-major k=%d %s: %s\n", l == 0 ? "row" : "col", k,
           smv_precision_name(prec), smv_spmm_alg_name(c.alg));
    printf("  why         %s\n", c.why);
  }
  smv_matrix_free(dA);
  smv_context_free(ctx);
  return rc;
}

/* The one MATRIX. */
static int info_positional(void *user, const char *arg) {
  const char **matrix = user;
  if (*matrix)
    return cli_usage("info", "more than one MATRIX ('%s' and '%s')", *matrix,
                     arg);
  *matrix = arg;
  return CLI_OK;
}

int cmd_info(int argc, char **argv) {
  const char *matrix = NULL;
  int json = 0, plan = 0, tune = 0, reuse_bare = 0;
  const char *reuse_n = NULL;
  smv_matrix_options reuse = {.flags = 0, .tune_runs = 0, .expected_calls = 0};
  const char *precision = NULL, *kstr = NULL, *layout_s = NULL,
             *reorder_s = NULL;
  int order = CLI_ORDER_NONE;
  smv_precision prec = SMV_F64;
  long k = 0;
  int layout = -1;
  if (cli_wants_help(argc, argv)) {
    info_help(stdout);
    return CLI_OK;
  }
  const cli_opt opts[] = {
      {.name = "--json", .flag = &json},
      {.name = "--plan", .flag = &plan},
      {.name = "--tune", .flag = &tune},
      {.name = "--reuse",
       .need = "an expected call count",
       .optional = 1,
       .str = &reuse_n,
       .flag = &reuse_bare},
      {.name = "--precision", .need = "a value", .str = &precision},
      {.name = "--k", .need = "a column count", .str = &kstr},
      {.name = "--layout", .need = "row or col", .str = &layout_s},
      {.name = "--reorder",
       .need = "rcm or degree",
       .once = 1,
       .str = &reorder_s},
      {0}};
  int rc = cli_parse("info", argc, argv, opts, info_positional, &matrix);
  if (rc != CLI_OK)
    return rc;
  if ((rc = cli_reorder_pick("info", reorder_s, &order)) != CLI_OK)
    return rc;
  if (precision && smv_precision_parse(precision, &prec) != SMV_OK)
    return cli_usage("info", "--precision: want f64, f32 or f64-f32v, got '%s'",
                     precision);
  if (!matrix)
    return cli_usage("info", "missing MATRIX (a .mtx file or a spec such as "
                             "lap2d:100)");
  if (kstr && cli_parse_long(kstr, 1, 1024, &k) != 0)
    return cli_usage("info", "--k: want a column count 1..1024, got '%s'",
                     kstr);
  static const char *const layouts[] = {"row", "col", NULL};
  if (layout_s && (layout = cli_pick(layout_s, layouts)) < 0)
    return cli_usage("info", "--layout: want row or col, got '%s'", layout_s);
  if ((kstr || layout_s) && !plan)
    return cli_usage("info", "--k and --layout go with --plan");
  if (layout_s && !kstr)
    return cli_usage("info", "--layout goes with --k");
  if (kstr && prec == SMV_F64_F32V)
    return cli_usage("info", "--k: SpMM does not run precision f64-f32v");
  if (tune && !plan)
    return cli_usage("info", "--tune goes with --plan");
  if ((reuse_bare || reuse_n) && (!plan || kstr))
    return cli_usage("info", "--reuse goes with --plan (the SpMV plan, not "
                             "--k)");
  if ((rc = cli_reuse_options("info", reuse_bare, reuse_n, &reuse)) != CLI_OK)
    return rc;
  if (json && plan)
    return cli_usage("info", "--plan prints text; not with --json");
  struct stat sb;
  const char *source = stat(matrix, &sb) == 0 ? "file" : "generator";
  smv_csr *A = NULL;
  if (cli_load(matrix, &A) != CLI_OK)
    return CLI_ERR;
  smv_stats s;
  smv_status st = smv_csr_stats(A, &s);
  if (st != SMV_OK) {
    smv_csr_free(A);
    cli_error("%s: statistics failed: %s", matrix, smv_status_string(st));
    return CLI_ERR;
  }
  cli_reorder_report r = {{0, 0}, {0, 0}, 0.0};
  if (order != CLI_ORDER_NONE) {
    smv_csr *B = NULL;
    smv_index *perm = NULL;
    if (cli_reorder(matrix, order, A, &B, &perm, &r) != CLI_OK) {
      smv_csr_free(A);
      return CLI_ERR;
    }
    free(perm);
    /* The table describes the matrix as given; --plan the reordered one. */
    if (json)
      print_json(matrix, source, A, &s, order, &r);
    else
      print_table(matrix, source, A, &s);
    smv_csr_free(A);
    A = B;
  } else if (json)
    print_json(matrix, source, A, &s, order, &r);
  else
    print_table(matrix, source, A, &s);
  if (order != CLI_ORDER_NONE && !json)
    cli_reorder_print(stdout, order, &r);
  if (plan && kstr)
    rc = print_spmm_plan(matrix, A, &s, prec, (int)k, layout, tune);
  else
    rc = plan ? print_plan(matrix, A, prec, tune, &reuse) : CLI_OK;
  smv_csr_free(A);
  if (rc != CLI_OK)
    return rc;
  return CLI_OK; /* stdout is checked at exit (cli_finish_stdout) */
}
