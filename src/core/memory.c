/* memory.c — will an allocation of N bytes fit in the memory there is?
 *
 * A 78-byte Matrix Market file may declare 2147483647 rows: a valid matrix
 * whose CSR needs 8.6 GB of row offsets, and a generator spec within the
 * int32 limits may need 25 GB. Asking malloc is not enough: Linux
 * overcommits, so the allocation "succeeds" and the process is later
 * killed, or the machine swaps, with no message. So the places that
 * allocate in proportion to a declared size (smv_csr_create, the generator,
 * the Matrix Market reader) first compare the bytes with a limit:
 *   - SMV_MEM_LIMIT from the environment when set: a byte count with an
 *     optional K, M, G or T suffix (powers of 1024; "KB", "KiB" and so on
 *     mean the same), or 0 / off / none for no limit; a value that does
 *     not parse ("inf", "-1", "4GB2") refuses every checked request with a
 *     message saying so, since ignoring it would lift the limit the user
 *     asked for;
 *   - else the smallest of: MemAvailable in /proc/meminfo, the cgroup v2
 *     limit less what the cgroup already uses (/sys/fs/cgroup/memory.max,
 *     memory.current), and the process's RLIMIT_AS and RLIMIT_DATA (ulimit
 *     -v / -d); no limit when none of them is known.
 * Without SMV_MEM_LIMIT, requests under 64 MiB are not checked (reading
 * /proc for every small matrix would cost more than it saves). */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define SMALL_REQUEST (64.0 * 1024 * 1024)

/* "123", "4G", "512m", "1.5G": bytes; -1 if it does not parse; 0 for
 * "0", "off", "none" (no limit). */
static double parse_limit(const char *s) {
  if (!strcmp(s, "off") || !strcmp(s, "none") || !strcmp(s, "unlimited"))
    return 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || !(v >= 0) || v > 1e30)
    return -1;
  double unit = 1;
  switch (*end) {
  case 'k':
  case 'K':
    unit = 1024.0, end++;
    break;
  case 'm':
  case 'M':
    unit = 1024.0 * 1024, end++;
    break;
  case 'g':
  case 'G':
    unit = 1024.0 * 1024 * 1024, end++;
    break;
  case 't':
  case 'T':
    unit = 1024.0 * 1024 * 1024 * 1024, end++;
    break;
  default:
    break;
  }
  if (unit > 1 && (*end == 'i' || *end == 'I') &&
      (end[1] == 'B' || end[1] == 'b'))
    end++; /* KiB, MiB, GiB, TiB */
  if (*end == 'B' || *end == 'b')
    end++;
  return *end ? -1 : v * unit;
}

/* The first number in a file (bytes), or -1. "max" reads as -1 too. */
static double file_number(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  double v;
  int ok = fscanf(f, "%lf", &v) == 1;
  fclose(f);
  return ok && v >= 0 ? v : -1;
}

/* MemAvailable from /proc/meminfo in bytes, or -1. */
static double mem_available(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f)
    return -1;
  char line[256];
  double v = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lf kB", &v) == 1) {
      v *= 1024.0;
      break;
    }
  fclose(f);
  return v;
}

static void take_min(double *limit, const char **source, double v,
                     const char *what) {
  if (v >= 0 && (*limit < 0 || v < *limit)) {
    *limit = v;
    *source = what;
  }
}

double smv__memory_limit(const char **source) {
  const char *dummy;
  if (!source)
    source = &dummy;
  const char *env = getenv("SMV_MEM_LIMIT");
  if (env && *env) {
    double v = parse_limit(env);
    if (v >= 0) {
      *source = "SMV_MEM_LIMIT";
      return v > 0 ? v : -1;
    }
  }
  double limit = -1;
  *source = "";
  take_min(&limit, source, mem_available(), "MemAvailable");
  double cmax = file_number("/sys/fs/cgroup/memory.max");
  double cur = file_number("/sys/fs/cgroup/memory.current");
  if (cmax >= 0)
    take_min(&limit, source, cur >= 0 && cur < cmax ? cmax - cur : 0,
             "the cgroup's memory.max");
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    take_min(&limit, source, (double)rl.rlim_cur, "ulimit -v");
  if (getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    take_min(&limit, source, (double)rl.rlim_cur, "ulimit -d");
  return limit;
}

int smv__memory_fits(double bytes, char *why, size_t why_len) {
  if (why && why_len)
    why[0] = '\0';
  const char *env = getenv("SMV_MEM_LIMIT");
  if ((!env || !*env) && bytes < SMALL_REQUEST)
    return 1;
  if (env && *env && parse_limit(env) < 0) {
    if (why && why_len)
      snprintf(why, why_len,
               "cannot be checked: SMV_MEM_LIMIT='%.40s' is not a size (bytes, "
               "or with a K/M/G/T suffix, KiB/GiB accepted; 0 or off for no "
               "limit)",
               env);
    return 0;
  }
  const char *source;
  double limit = smv__memory_limit(&source);
  if (limit < 0 || bytes <= limit)
    return 1;
  if (why && why_len)
    snprintf(why, why_len,
             "needs %.3g GB of memory, more than the %.3g GB available (%s); "
             "set SMV_MEM_LIMIT (bytes, or with a K/M/G suffix; 0 for no "
             "limit) to change the limit",
             bytes / 1e9, limit / 1e9, source);
  return 0;
}

smv_status smv_memory_check(double bytes, const char *what, smv_error *err) {
  char why[256];
  if (smv__memory_fits(bytes, why, sizeof why))
    return SMV_OK;
  return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0, "%s %s",
                     what ? what : "the request", why);
}
