/* util.c — the lab's output files, error line, clock and gnuplot helpers. */
#define _DEFAULT_SOURCE
#include "lab.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

void lab_verror(const char *fmt, va_list ap) {
  fputs("smv: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void lab_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  lab_verror(fmt, ap);
  va_end(ap);
}

double lab_now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The open output files (smv_file_open: written to a temporary file in the
 * same directory and moved into place only when complete, so a failed write
 * never destroys an existing file): at most a handful at once (CSV and
 * JSON, or a plot's data and script). */
static struct {
  FILE *f;
  smv_file *file;
} g_out[16];

FILE *bench_open_out(const char *path) {
  size_t i = 0;
  while (i < sizeof g_out / sizeof g_out[0] && g_out[i].f)
    i++;
  if (i == sizeof g_out / sizeof g_out[0]) {
    lab_error("%s: too many output files open at once", path);
    return NULL;
  }
  smv_error err;
  smv_status st = smv_file_open(path, &g_out[i].file, &g_out[i].f, &err);
  if (st != SMV_OK) {
    lab_error("%s", err.message[0] ? err.message : smv_status_string(st));
    return NULL;
  }
  return g_out[i].f;
}

int bench_close_out(FILE *f, const char *path) {
  (void)path; /* smv_file_close names it */
  if (!f)
    return 0;
  for (size_t i = 0; i < sizeof g_out / sizeof g_out[0]; i++)
    if (g_out[i].f == f) {
      smv_error err;
      smv_status st = smv_file_close(g_out[i].file, &err);
      g_out[i].f = NULL;
      g_out[i].file = NULL;
      return st == SMV_OK
                 ? 0
                 : (lab_error("%s", err.message[0] ? err.message
                                                   : smv_status_string(st)),
                    -1);
    }
  lab_error("internal error: closing an output file that is not open");
  return -1;
}

/* ---- gnuplot (smv occupancy --sweep, smv bench --plot) ---------------- */

/* Single quotes, because in a gnuplot script a double-quoted string runs
 * `backquoted` shell commands and reads backslash escapes, and a single-
 * quoted one does neither: its only special characters are the quote
 * (doubled) and the end of the line. A control character (newline above
 * all, which would end the command and start another, such as
 * system("...")) is never written: '?' stands in for it. File names that
 * must stay exact are refused earlier (cli_check_script_name). */
void lab_gnuplot_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '\'')
      fputc('\'', f);
    fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
  }
  fputc('\'', f);
}

void lab_gnuplot_output(FILE *f, const char *png) {
  fprintf(f, "if (exists('smv_output')) {\n  set output smv_output\n} else {\n"
             "  set output ");
  lab_gnuplot_string(f, png);
  fprintf(f, "\n}\n");
}

/* A PATH search like the shell's, so "not installed" is known before any
 * script is run (and posix_spawnp's not-found handling needs no recent
 * glibc). */
int lab_have_gnuplot(void) {
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

int lab_run_gnuplot(const char *script, const char *png) {
  char tmp[4096], def[4200];
  int n = snprintf(tmp, sizeof tmp, "%s.tmp-%ld", png, (long)getpid());
  if (n < 0 || (size_t)n >= sizeof tmp)
    return ENAMETOOLONG;
  /* -e "smv_output='TMP'": the path as a gnuplot literal ('' for '). */
  size_t k = (size_t)snprintf(def, sizeof def, "smv_output='");
  for (const char *c = tmp; *c && k + 3 < sizeof def; c++) {
    if (*c == '\'')
      def[k++] = '\'';
    def[k++] = *c;
  }
  if (k + 2 >= sizeof def)
    return ENAMETOOLONG;
  def[k++] = '\'';
  def[k] = '\0';
  pid_t pid;
  char *args[] = {"gnuplot", "-e", def, (char *)script, NULL};
  int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
  if (rc != 0)
    return rc;
  int status;
  struct stat sb;
  if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0 || stat(tmp, &sb) != 0 || sb.st_size == 0) {
    (void)unlink(tmp);
    return -1;
  }
  if (rename(tmp, png) != 0) {
    rc = errno;
    (void)unlink(tmp);
    return rc;
  }
  return 0;
}
