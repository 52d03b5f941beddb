/* util.c — error printing, strict number parsing, progress line. */
#define _DEFAULT_SOURCE
#include "cli.h"

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
  fputs("smv: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
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

double cli_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_cb(void *user, uint64_t done, uint64_t total) {
  struct progress *p = user;
  if (total < 100000000ull)
    return;
  double t = cli_now_s();
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

/* The open output files: the CLI has at most a handful at once (CSV and
 * JSON, or a plot's data and script). */
static struct {
  FILE *f;
  smv_file *file;
} g_out[16];

FILE *cli_out_open(const char *path) {
  size_t i = 0;
  while (i < sizeof g_out / sizeof g_out[0] && g_out[i].f)
    i++;
  if (i == sizeof g_out / sizeof g_out[0]) {
    cli_error("%s: too many output files open at once", path);
    return NULL;
  }
  smv_error err;
  smv_status st = smv_file_open(path, &g_out[i].file, &g_out[i].f, &err);
  if (st != SMV_OK) {
    cli_fail(st, &err);
    return NULL;
  }
  return g_out[i].f;
}

int cli_out_close(FILE *f) {
  if (!f)
    return 0;
  for (size_t i = 0; i < sizeof g_out / sizeof g_out[0]; i++)
    if (g_out[i].f == f) {
      smv_error err;
      smv_status st = smv_file_close(g_out[i].file, &err);
      g_out[i].f = NULL;
      g_out[i].file = NULL;
      return st == SMV_OK ? 0 : (cli_fail(st, &err), -1);
    }
  cli_error("internal error: closing an output file that is not open");
  return -1;
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

/* ---- gnuplot (smv occupancy --sweep, smv bench --plot) -------------------
 */

/* Single quotes, because in a gnuplot script a double-quoted string runs
 * `backquoted` shell commands and reads backslash escapes, and a single-
 * quoted one does neither: its only special characters are the quote
 * (doubled) and the end of the line. A control character (newline above
 * all, which would end the command and start another, such as
 * system("...")) is never written: '?' stands in for it. Names that must
 * stay exact (files) are refused earlier by cli_check_script_name. */
void cli_gnuplot_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\'')
      fputc('\'', f);
    fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
  }
  fputc('\'', f);
}

int cli_check_script_name(const char *cmd, const char *opt, const char *name) {
  for (const unsigned char *p = (const unsigned char *)name; *p; p++)
    if (*p < 0x20 || *p == 0x7f)
      return cli_usage(cmd,
                       "%s: the file name has a control character (byte "
                       "0x%02x at offset %ld); refused, as it would be "
                       "written into a gnuplot script",
                       opt, *p, (long)(p - (const unsigned char *)name));
  return CLI_OK;
}

/* A PATH search like the shell's, so "not installed" is known before any
 * script is run (and posix_spawnp's not-found handling needs no recent
 * glibc). */
int cli_have_gnuplot(void) {
  const char *path = getenv("PATH");
  if (!path || !*path)
    return 0;
  char buf[4096];
  while (*path) {
    const char *colon = strchr(path, ':');
    size_t n = colon ? (size_t)(colon - path) : strlen(path);
    if (n > 0 && n + sizeof "/gnuplot" < sizeof buf) {
      memcpy(buf, path, n);
      memcpy(buf + n, "/gnuplot", sizeof "/gnuplot");
      if (access(buf, X_OK) == 0)
        return 1;
    }
    path += n;
    if (*path == ':')
      path++;
  }
  return 0;
}

int cli_run_gnuplot(const char *script) {
  pid_t pid;
  char *args[] = {"gnuplot", (char *)script, NULL};
  int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
  if (rc != 0)
    return rc;
  int status;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0)
    return -1;
  return 0;
}
