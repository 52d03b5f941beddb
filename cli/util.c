/* util.c — error printing, strict number parsing, progress line. */
#define _DEFAULT_SOURCE
#include "cli.h"
#include "cli_dist.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lab_verror(fmt, ap);
  va_end(ap);
}

int cli_fail(smv_status st, const smv_error *err) {
  if (err && err->message[0])
    cli_error("%s", err->message);
  else
    cli_error("%s", smv_status_string(st));
  return CLI_ERR;
}

int cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "smv %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\ntry 'smv %s --help'\n", cmd);
  va_end(ap);
  return CLI_USAGE;
}

int cli_parse_double(const char *s, double *v) {
  if (!s || !*s)
    return -1;
  char *end;
  errno = 0;
  double d = strtod(s, &end);
  /* ERANGE on underflow too (1e-310 is subnormal, 1e-400 rounds to 0):
   * those are values all the same. Refused: what does not parse, NaN, and
   * infinity (1e999 overflows to it). */
  if (*end != '\0' || isnan(d) || isinf(d))
    return -1;
  *v = d;
  return 0;
}

int cli_parse_long(const char *s, long lo, long hi, long *v) {
  if (!s || !*s)
    return -1;
  char *end;
  errno = 0;
  long x = strtol(s, &end, 10);
  if (*end != '\0' || errno == ERANGE || x < lo || x > hi)
    return -1;
  *v = x;
  return 0;
}

int cli_reuse_options(const char *cmd, int reuse_flag, const char *calls,
                      smv_matrix_options *mo) {
  if (reuse_flag)
    mo->flags |= SMV_MATRIX_REUSE;
  long n = 0;
  if (calls && cli_parse_long(calls, 1, 1000000000000L, &n) != 0)
    return cli_usage(cmd,
                     "--reuse: want an expected call count 1..10^12, got "
                     "'%s'",
                     calls);
  if (calls)
    mo->expected_calls = n;
  return CLI_OK;
}

int cli_opt_value(int argc, char **argv, int *i, const char *name,
                  const char *alias, const char **v) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strcmp(a, name) == 0 || (alias && strcmp(a, alias) == 0)) {
    if (*i + 1 >= argc)
      return -1;
    *v = argv[++*i];
    return 1;
  }
  if (strncmp(a, name, n) == 0 && a[n] == '=') {
    *v = a + n + 1;
    return 1;
  }
  return 0;
}

int cli_is_help(const char *arg) {
  return arg && (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0);
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (cli_is_help(argv[i]))
      return 1;
  return 0;
}

/* Progress: at most ~4 updates a second, only for inputs over 100 MB, only
 * when stderr is a terminal; the line is cleared when the read finishes. */
struct progress {
  double last;
  int shown;
};
static struct progress g_progress;

static void progress_cb(void *user, uint64_t done, uint64_t total) {
  struct progress *p = user;
  if (total < 100000000ull)
    return;
  double t = lab_now_s();
  if (done < total && t - p->last < 0.25)
    return;
  p->last = t;
  if (done >= total) {
    if (p->shown)
      fputs("\r\033[K", stderr);
    p->shown = 0;
    return;
  }
  fprintf(stderr, "\rreading: %.0f / %.0f MB (%.0f%%)", done / 1e6, total / 1e6,
          100.0 * (double)done / (double)total);
  p->shown = 1;
}

const smv_read_options *cli_read_options(void) {
  static smv_read_options opt;
  opt.progress = isatty(STDERR_FILENO) ? progress_cb : NULL;
  opt.progress_user = &g_progress;
  return &opt;
}

int cli_load(const char *matrix, smv_csr **A) {
  smv_error err;
  smv_status st = smv_load(matrix, cli_read_options(), A, &err);
  if (g_progress.shown) {
    fputs("\r\033[K", stderr);
    g_progress.shown = 0;
  }
  if (st != SMV_OK)
    return cli_fail(st, &err);
  return CLI_OK;
}

int cli_read_vector(const char *path, int64_t want, const char *what,
                    double **v) {
  smv_error err;
  smv_status st = smv_mm_read_vector_n(path, want, v, &err);
  if (st == SMV_ERR_DIM) {
    cli_error("%s (%s)", err.message, what);
    return CLI_ERR;
  }
  return st == SMV_OK ? CLI_OK : cli_fail(st, &err);
}

int cli_vectors_fit(const char *name, const smv_csr *A, double per_row,
                    double per_col, const char *which) {
  char what[600];
  snprintf(what, sizeof what, "%.400s: %s of a %lld x %lld matrix", name, which,
           (long long)A->rows, (long long)A->cols);
  smv_error err;
  smv_status st = smv_memory_check(
      per_row * (double)A->rows + per_col * (double)A->cols, what, &err);
  return st == SMV_OK ? CLI_OK : cli_fail(st, &err);
}

int cli_finish_stdout(int rc) {
  errno = 0;
  int bad = fflush(stdout) != 0 || ferror(stdout);
  int e = errno;
  if (fclose(stdout) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  if (!bad || rc != 0) /* a failed command has said why already */
    return rc;
  if (e)
    cli_error("stdout: write error: %s", strerror(e));
  else
    cli_error("stdout: write error (output lost)");
  return CLI_ERR;
}

int cli_exe_dir(char *buf, size_t n) {
  ssize_t len = readlink("/proc/self/exe", buf, n - 1);
  if (len <= 0)
    return -1;
  buf[len] = '\0';
  char *slash = strrchr(buf, '/');
  if (!slash)
    return -1;
  *slash = '\0';
  return 0;
}

int cli_check_script_name(const char *cmd, const char *opt, const char *name) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p < 0x20 || *p == 0x7f)
      return cli_usage(cmd,
                       "%s: the file name has a control character (byte "
                       "0x%02x at offset %ld); refused, as it would be "
                       "written into a gnuplot script",
                       opt, *p, (long)(p - (const unsigned char *)name));
  return lab_plot_target(name) == 0 ? CLI_OK : CLI_ERR;
}

const char *cli_alg_names(void) {
  static char buf[1024];
  if (!buf[0]) {
    size_t len = 0;
    for (int a = 0; a < SMV_ALG_COUNT; a++) {
      int n = snprintf(buf + len, sizeof buf - len, "%s%s", a ? ", " : "",
                       smv_alg_name((smv_alg)a));
      if (n < 0 || (size_t)n >= sizeof buf - len)
        break;
      len += (size_t)n;
    }
  }
  return buf;
}

void cli_wrap(FILE *f, int indent, const char *text) {
  int col = indent;
  const char *s = text;
  while (*s) {
    size_t w = strcspn(s, " ");
    if (col > indent && col + 1 + (int)w > 76) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    } else if (col > indent) {
      fputc(' ', f);
      col++;
    }
    fwrite(s, 1, w, f);
    col += (int)w;
    s += w;
    while (*s == ' ')
      s++;
  }
  fputc('\n', f);
}

#ifndef SMV_HAVE_MPI
/* Built without MPI: started by a launcher with more than one process, each
 * would run alone (and print) as if it were the only one. */
int cli_mpi_gate(int argc, char **argv, int *rc) {
  (void)argc, (void)argv;
  static const char *sizes[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                "MPI_LOCALNRANKS"};
  static const char *ranks[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
                                "PMIX_RANK"};
  long size = 0, rank = 0;
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && !size; k++)
    if (getenv(sizes[k]))
      size = strtol(getenv(sizes[k]), NULL, 10);
  for (size_t k = 0; k < sizeof ranks / sizeof ranks[0]; k++)
    if (getenv(ranks[k])) {
      rank = strtol(getenv(ranks[k]), NULL, 10);
      break;
    }
  if (size <= 1)
    return 0;
  if (rank == 0)
    cli_error("this smv was built without MPI: under mpirun with %ld "
              "processes each would run alone. Build with MPI (make MPI=1, "
              "mpicc on PATH) for 'mpirun -np N smv spmv|bench', or run one "
              "process",
              size);
  *rc = CLI_USAGE;
  return 1;
}
#endif
