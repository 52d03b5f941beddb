/* util.c — the lab's output files, error line, clock and gnuplot helpers. */
#define _DEFAULT_SOURCE
#include "lab.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

FILE *bench_open_out(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f)
    lab_error("%s: %s", path, strerror(errno));
  return f;
}

int bench_close_out(FILE *f, const char *path) {
  if (!f)
    return 0;
  int bad = ferror(f);
  if (fclose(f) != 0 || bad) {
    lab_error("%s: write error", path);
    return -1;
  }
  return 0;
}

/* ---- gnuplot (smv occupancy --sweep, smv bench --plot) ---------------- */

void lab_gnuplot_string(FILE *f, const char *s) {
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'')
      fputc('\'', f);
    fputc(*s, f);
  }
  fputc('\'', f);
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

int lab_run_gnuplot(const char *script) {
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
