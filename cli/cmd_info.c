/* cmd_info.c — `smv info MATRIX [--json]`: shape, row-length statistics
 * and histogram of a Matrix Market file or a generated matrix. */
#include "../bench/bench.h" /* bench_json_string */
#include "cli.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void info_help(FILE *f) {
  fprintf(f, "usage: smv info MATRIX [--json]\n"
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
             "  -h, --help this text\n"
             "\n"
             "Exit status: 0 ok, 1 unreadable or invalid matrix, 2 usage "
             "error.\n");
}

static const char *field_name(smv_field f) {
  switch (f) {
  case SMV_FIELD_REAL:
    return "real";
  case SMV_FIELD_INTEGER:
    return "integer";
  case SMV_FIELD_PATTERN:
    return "pattern";
  case SMV_FIELD_COMPLEX:
    return "complex";
  }
  return "unknown";
}

static const char *symmetry_name(smv_symmetry s) {
  switch (s) {
  case SMV_SYM_GENERAL:
    return "general";
  case SMV_SYM_SYMMETRIC:
    return "symmetric";
  case SMV_SYM_SKEW:
    return "skew-symmetric";
  case SMV_SYM_HERMITIAN:
    return "hermitian";
  }
  return "unknown";
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
                       const smv_stats *s) {
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

int cmd_info(int argc, char **argv) {
  const char *matrix = NULL;
  int json = 0, opts = 1;
  if (cli_wants_help(argc, argv)) {
    info_help(stdout);
    return CLI_OK;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!opts || a[0] != '-' || a[1] == '\0') {
      if (matrix)
        return cli_usage("info", "more than one MATRIX ('%s' and '%s')", matrix,
                         a);
      matrix = a;
    } else if (strcmp(a, "--") == 0) {
      opts = 0;
    } else if (strcmp(a, "--json") == 0) {
      json = 1;
    } else {
      return cli_usage("info", "unknown option '%s'", a);
    }
  }
  if (!matrix)
    return cli_usage("info", "missing MATRIX (a .mtx file or a spec such as "
                             "lap2d:100)");
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
  if (json)
    print_json(matrix, source, A, &s);
  else
    print_table(matrix, source, A, &s);
  smv_csr_free(A);
  return CLI_OK; /* stdout is checked at exit (cli_finish_stdout) */
}
