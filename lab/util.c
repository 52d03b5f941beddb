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

/* Run by lab_run_gnuplot, the script writes to its standard output (gnuplot's
 * `set output` without a name), which is a file smv created and opened; run
 * by hand (`gnuplot NAME.gp`), it writes NAME.png. */
void lab_gnuplot_output(FILE *f, const char *png) {
  fprintf(f, "if (exists('smv_stdout')) {\n  set output\n} else {\n"
             "  set output ");
  lab_gnuplot_string(f, png);
  fprintf(f, "\n}\n");
}

char *lab_plot_name(const char *png, const char *suffix, const char *ext) {
  size_t len = strlen(png);
  if (len > 4 && strcmp(png + len - 4, ".png") == 0)
    len -= 4;
  size_t ns = suffix ? strlen(suffix) : 0;
  size_t n = len + ns + strlen(ext) + 3;
  char *out = malloc(n);
  if (!out) {
    lab_error("%s: out of memory naming the plot's files", png);
    return NULL;
  }
  memcpy(out, png, len);
  size_t k = len;
  if (ns) {
    out[k++] = '-';
    for (const char *s = suffix; *s; s++) /* [A-Za-z0-9._-], '_' else */
      out[k++] = (char)((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                                (*s >= '0' && *s <= '9') || *s == '.' ||
                                *s == '-' || *s == '_'
                            ? *s
                            : '_');
  }
  snprintf(out + k, n - k, ".%s", ext);
  return out;
}

int lab_plot_target(const char *path) {
  struct stat sb;
  if (lstat(path, &sb) != 0) {
    if (errno == ENOENT)
      return 0;
    lab_error("%s: %s", path, strerror(errno));
    return -1;
  }
  if (!S_ISREG(sb.st_mode)) {
    lab_error("%s: is %s; a plot and its files are written only to regular "
              "files or new names",
              path,
              S_ISDIR(sb.st_mode)    ? "a directory"
              : S_ISLNK(sb.st_mode)  ? "a symbolic link"
              : S_ISFIFO(sb.st_mode) ? "a FIFO"
              : S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode)
                  ? "a device"
                  : "not a regular file");
    return -1;
  }
  if (access(path, W_OK) != 0) {
    lab_error("%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  return 0;
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

/* The PNG goes to a temporary file that mkstemp creates (O_EXCL, a random
 * name) beside PNG, given gnuplot as its standard output: gnuplot never opens
 * a file by a name, so nothing planted there is followed. Only a complete,
 * non-empty PNG is renamed over PNG, which must be a regular file or a new
 * name (lab_plot_target, checked again here). The temporary gets an existing
 * PNG's mode, and its owner and group where the system permits (root, or a
 * group of ours); rename replaces the name, so other hard links to the old
 * file keep the old contents. */
int lab_run_gnuplot(const char *script, const char *png) {
  if (lab_plot_target(png) != 0)
    return -2;
  struct stat sb;
  int exists = stat(png, &sb) == 0;
  size_t n = strlen(png);
  char *tmp = malloc(n + sizeof ".tmp-XXXXXX");
  if (!tmp)
    return ENOMEM;
  memcpy(tmp, png, n);
  memcpy(tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
  int fd = mkstemp(tmp);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return e;
  }
  if (exists) {
    (void)fchmod(fd, sb.st_mode & 07777);
    if (fchown(fd, sb.st_uid, sb.st_gid) != 0 &&
        fchown(fd, (uid_t)-1, sb.st_gid) != 0) {
      /* best effort: the file keeps our owner and group */
    }
  } else {
    mode_t um = umask(0); /* the CLI is single-threaded here */
    umask(um);
    (void)fchmod(fd, 0666 & ~um);
  }
  posix_spawn_file_actions_t fa;
  int rc = posix_spawn_file_actions_init(&fa);
  if (rc == 0)
    rc = posix_spawn_file_actions_adddup2(&fa, fd, 1);
  pid_t pid;
  char def[] = "smv_stdout=1";
  char *args[] = {"gnuplot", "-e", def, (char *)script, NULL};
  if (rc == 0)
    rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, args, environ);
  posix_spawn_file_actions_destroy(&fa);
  int status;
  if (rc == 0 &&
      (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
       WEXITSTATUS(status) != 0 || fstat(fd, &sb) != 0 || sb.st_size == 0))
    rc = -1;
  if (close(fd) != 0 && rc == 0)
    rc = errno;
  if (rc == 0 && rename(tmp, png) != 0)
    rc = errno;
  if (rc != 0)
    (void)unlink(tmp);
  free(tmp);
  return rc;
}
