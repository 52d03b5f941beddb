/* cmd_micro.c — `smv micro`: run the memory-hierarchy microbenchmarks.
 *
 * Each experiment is its own program, built by `make micro` from
 * micro/NAME.cu into BUILD/micro/NAME (installed into
 * PREFIX/libexec/smv/micro/). This command finds those programs, runs the
 * ones asked for in order, passes the common options through, and turns
 * their exit codes into one verdict. The programs' own exit codes
 * (micro/common.h): 0 verified, 1 a check failed, 2 usage, 3 no GPU. */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MICRO_EXIT_NO_DEVICE 3

/* In the order `smv micro all` runs them. Keep in step with micro/ *.cu
 * (tests/cli/test_micro.sh checks that every file is listed). */
static const struct {
  const char *name;
  const char *what;
} k_micro[] = {
    {"bank", "shared-memory bank conflicts: the seed's kernels, stride "
             "sweep, padding and swizzle (seed 001)"},
    {"restrict", "__restrict__ and ld.global.nc: PTX/SASS checked, gather "
                 "timing (seed 002)"},
    {"readonly", "read-only, constant and global memory: distinct addresses "
                 "per warp, working sets L1..DRAM (seed 003)"},
    {"aos", "AoS vs SoA float3 Position, read and write (seed 003)"},
    {"blockshape", "occupancy by block shape: 3D VTI stencil, 32x16 vs 32x8 "
                   "(seed 003)"},
    {"ilp", "ILP and bandwidth: the seed's copy kernel, 16-byte loads in "
            "flight (seed 004)"},
    {"atomics", "atomicAdd on int/float/double, CAS loop, contention sweep "
                "(seed 000)"},
    {"baseline", "ceilings: copy and read bandwidth, L2 vs DRAM, launch "
                 "latency"},
    {"gridsync", "grid barrier (cooperative groups) and the all-blocks sum "
                 "behind it: the floor of a persistent iteration"},
    {"gather", "random row gathers: the ceiling of row-major SpMM at k x "
               "value bytes a row"},
};
#define NMICRO ((int)(sizeof k_micro / sizeof k_micro[0]))

static void usage(FILE *f) {
  fprintf(f,
          "usage: smv micro [OPTIONS] NAME... | all\n"
          "       smv micro --list\n\n"
          "Runs the memory-hierarchy microbenchmarks (one program per seed\n"
          "experiment, built by 'make micro'). Each verifies its results on\n"
          "the host, prints the device, and tables of our number beside the\n"
          "seed's with the ratio ours/seed.\n\n"
          "options (passed to each benchmark):\n"
          "  --csv DIR    also write every table as DIR/NAME_TABLE.csv\n"
          "  --device N   CUDA device number (default 0)\n"
          "  --static     restrict only: the PTX/SASS check alone (no GPU)\n"
          "  --list       list the benchmarks\n\n"
          "The programs are looked up in $SMV_MICRO_DIR if set, else in\n"
          "<dir of smv>/micro/ and <dir of smv>/../libexec/smv/micro/.\n"
          "Exit status: 0 every result verified; 1 a check failed, a\n"
          "benchmark is not built, or there is no CUDA GPU; 2 usage error.\n");
}

static int find_micro(const char *name) {
  for (int i = 0; i < NMICRO; i++)
    if (strcmp(k_micro[i].name, name) == 0)
      return i;
  return -1;
}

static int is_exec(const char *dir, const char *name) {
  char p[4096];
  if (snprintf(p, sizeof p, "%s/%s", dir, name) >= (int)sizeof p)
    return 0;
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* The folder holding the programs: the first candidate that holds any of
 * them. Returns 0 and fills dir, or -1 with the candidates in `tried`.
 * Paths too long for the buffers are skipped, not cut short. */
static int micro_dir(char *dir, size_t n, char *tried, size_t tn) {
  char cand[2][4096];
  int nc = 0;
  const char *env = getenv("SMV_MICRO_DIR");
  if (env && *env) {
    if (snprintf(cand[nc], sizeof cand[nc], "%s", env) < (int)sizeof cand[nc])
      nc++;
  } else {
    char exe[4096];
    if (cli_exe_dir(exe, sizeof exe) == 0) {
      if (snprintf(cand[nc], sizeof cand[nc], "%s/micro", exe) <
          (int)sizeof cand[nc])
        nc++;
      if (snprintf(cand[nc], sizeof cand[nc], "%s/../libexec/smv/micro", exe) <
          (int)sizeof cand[nc])
        nc++;
    }
  }
  size_t len = 0;
  tried[0] = '\0';
  for (int c = 0; c < nc; c++) {
    for (int i = 0; i < NMICRO; i++)
      if (is_exec(cand[c], k_micro[i].name) &&
          snprintf(dir, n, "%s", cand[c]) < (int)n)
        return 0;
    int w = snprintf(tried + len, tn - len, "%s%s", c ? ", " : "", cand[c]);
    if (w > 0 && (size_t)w < tn - len)
      len += (size_t)w;
  }
  return -1;
}

/* Run one program; returns its exit code (128 + signal if killed, -1 if
 * it could not be started). */
static int run_one(const char *dir, const char *name, char **pass, int npass) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path) {
    cli_error("micro: path too long: %s/%s", dir, name);
    return -1;
  }
  char *argv[8];
  int a = 0;
  argv[a++] = path;
  for (int i = 0; i < npass && a < 7; i++)
    argv[a++] = pass[i];
  argv[a] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    cli_error("micro: cannot start %s: %s", path, strerror(errno));
    return -1;
  }
  if (pid == 0) {
    execv(path, argv);
    fprintf(stderr, "smv: micro: cannot run %s: %s\n", path, strerror(errno));
    _exit(127);
  }
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) {
      cli_error("micro: waiting for %s: %s", path, strerror(errno));
      return -1;
    }
  if (WIFEXITED(st))
    return WEXITSTATUS(st);
  if (WIFSIGNALED(st))
    return 128 + WTERMSIG(st);
  return -1;
}

/* Benchmarks named on the command line ("all" for every one). */
struct micro_sel {
  int sel[64], nsel;
};

static int micro_positional(void *user, const char *s) {
  struct micro_sel *m = user;
  if (strcmp(s, "all") == 0) {
    for (int k = 0; k < NMICRO && m->nsel < 64; k++)
      m->sel[m->nsel++] = k;
    return CLI_OK;
  }
  int k = find_micro(s);
  if (k < 0)
    return cli_usage("micro",
                     "unknown benchmark '%s' (smv micro --list names "
                     "them)",
                     s);
  if (m->nsel < 64)
    m->sel[m->nsel++] = k;
  return CLI_OK;
}

int cmd_micro(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  struct micro_sel m = {{0}, 0};
  int *sel = m.sel, want_static = 0, list = 0;
  const char *csv = NULL, *device = NULL;
  const cli_opt opts[] = {
      {.name = "--list", .flag = &list},
      {.name = "--csv", .need = "a folder", .str = &csv},
      {.name = "--device", .need = "a number 0..64", .str = &device},
      {.name = "--static", .flag = &want_static},
      {0}};
  int usage_rc = cli_parse("micro", argc, argv, opts, micro_positional, &m);
  if (usage_rc != CLI_OK)
    return usage_rc;
  if (list) {
    for (int k = 0; k < NMICRO; k++)
      printf("%-11s %s\n", k_micro[k].name, k_micro[k].what);
    return CLI_OK;
  }
  long d;
  if (csv && !*csv)
    return cli_usage("micro", "--csv needs a folder");
  if (device && cli_parse_long(device, 0, 64, &d) != 0)
    return cli_usage("micro", "--device needs a number 0..64");
  int nsel = m.nsel;
  if (nsel == 0)
    return cli_usage("micro", "name a benchmark or 'all'");
  static char opt_csv[] = "--csv", opt_device[] = "--device",
              opt_static[] = "--static";
  char *pass[5]; /* csv and device point into argv, which is writable */
  int npass = 0;
  if (csv) {
    pass[npass++] = opt_csv;
    pass[npass++] = (char *)csv;
  }
  if (device) {
    pass[npass++] = opt_device;
    pass[npass++] = (char *)device;
  }
  if (want_static) {
    for (int i = 0; i < nsel; i++)
      if (strcmp(k_micro[sel[i]].name, "restrict") != 0)
        return cli_usage("micro", "--static applies to 'restrict' only");
    pass[npass++] = opt_static;
  }

  char dir[4096], tried[8192];
  if (micro_dir(dir, sizeof dir, tried, sizeof tried) != 0) {
    cli_error("micro: the benchmarks are not built (looked in %s); build "
              "them with 'make micro'",
              tried[0] ? tried : "no folder: cannot find the smv program");
    return CLI_ERR;
  }
  for (int i = 0; i < nsel; i++)
    if (!is_exec(dir, k_micro[sel[i]].name)) {
      cli_error("micro: '%s' is not built (no %s/%s); build it with 'make "
                "micro'",
                k_micro[sel[i]].name, dir, k_micro[sel[i]].name);
      return CLI_ERR;
    }

  /* the programs create the folder too; doing it here fails early */
  if (csv && mkdir(csv, 0777) != 0 && errno != EEXIST) {
    cli_error("micro: cannot create '%s': %s", csv, strerror(errno));
    return CLI_ERR;
  }

  int failed = 0;
  char failed_names[512] = "";
  for (int i = 0; i < nsel; i++) {
    const char *name = k_micro[sel[i]].name;
    if (nsel > 1)
      printf("%s==== smv micro %s (%d of %d)\n", i ? "\n" : "", name, i + 1,
             nsel);
    int rc = run_one(dir, name, pass, npass);
    if (rc == MICRO_EXIT_NO_DEVICE) {
      cli_error("micro: no CUDA GPU available: '%s' needs one", name);
      return CLI_ERR;
    }
    if (rc != 0) {
      failed++;
      size_t len = strlen(failed_names);
      snprintf(failed_names + len, sizeof failed_names - len, " %s", name);
      cli_error("micro: %s failed (exit %d)", name, rc);
    }
  }
  if (nsel > 1)
    printf("\nsmv micro: %d run, %d failed%s%s\n", nsel, failed,
           failed ? ":" : "", failed_names);
  return failed ? CLI_ERR : CLI_OK;
}
