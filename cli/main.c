/* main.c — the smv command: dispatch to one subcommand. */
#include "cli.h"
#include "cli_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
  const char *name;
  int (*fn)(int, char **);
  const char *what;
} commands[] = {
    {"info", cmd_info, "statistics of a matrix (file or generator spec)"},
    {"gen", cmd_gen, "write a generated matrix to a Matrix Market file"},
    {"spmv", cmd_spmv, "compute y = alpha*A*x + beta*y (CPU or CUDA)"},
    {"bench", cmd_bench, "time the kernel ladder and cuSPARSE on the GPU"},
    {"bench-spmm", cmd_bench_spmm,
     "verify and time SpMM (k columns) vs cuSPARSE"},
    {"occupancy", cmd_occupancy,
     "occupancy calculator (any compute capability)"},
    {"micro", cmd_micro, "run the memory-hierarchy microbenchmarks"},
    {"solve", cmd_solve, "solve A x = b by CG or BiCGStab (CPU or CUDA)"},
    {"pagerank", cmd_pagerank, "PageRank of a graph (CPU or CUDA)"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void usage(FILE *f) {
  fprintf(f, "usage: smv COMMAND [ARGS...]   (smv COMMAND --help for more)\n\n"
             "commands:\n");
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].what);
  fprintf(f, "  %-10s %s\n", "version", "library version and build commit");
  fprintf(f, "\nA MATRIX is a Matrix Market file (.mtx or .mtx.gz) or a "
             "generator spec such as lap3d:64\n(see 'smv gen --help').\n");
}

static int run(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (cli_is_help(cmd) || strcmp(cmd, "help") == 0) {
    usage(stdout);
    return CLI_OK;
  }
  if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
    printf("smv %s (commit %s)\n", smv_version(), smv_git_commit());
    return CLI_OK;
  }
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(cmd, commands[i].name) == 0)
      return commands[i].fn(argc - 1, argv + 1);
  cli_error("unknown command '%s'", cmd);
  usage(stderr);
  return CLI_USAGE;
}

/* Shared cores (issue 25, item 15): OpenMP threads that spin while they
 * wait for the next parallel region take the cores from the threads doing
 * the work when another job runs too (measured in
 * bench/results/amd-epyc-2-cores/shared-cores.md). So waits are passive
 * unless the user chose a policy. libgomp reads OMP_WAIT_POLICY once, when
 * it is loaded, before main: the CLI sets it and starts itself again (one
 * exec); if that fails it runs on as it is. */
static void passive_waits(char **argv) {
  if (getenv("OMP_WAIT_POLICY") || setenv("OMP_WAIT_POLICY", "passive", 1))
    return;
  execv("/proc/self/exe", argv);
}

/* Every command's output is checked once more at exit: `smv ... > /dev/full`
 * or a closed pipe is exit 1 with a message, never a silent 0. */
int main(int argc, char **argv) {
  passive_waits(argv);
  int rc;
  if (cli_mpi_gate(argc, argv, &rc))
    return cli_finish_stdout(rc);
  return cli_finish_stdout(run(argc, argv));
}
