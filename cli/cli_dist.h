/*
 * cli_dist.h — the CLI's hook into distributed SpMV (cli/cmd_dist.c, built
 * only when smv finds MPI). No MPI types here, so cmd_spmv.c and
 * cmd_bench.c include it with a plain compiler; without MPI the hook
 * always answers 0.
 */
#ifndef SMV_CLI_DIST_H
#define SMV_CLI_DIST_H

typedef enum { CLI_DIST_SPMV, CLI_DIST_BENCH } cli_dist_cmd;

/* When the process was started by mpirun (Open MPI, MPICH or a PMIx
 * launcher) with more than one rank, or with a distributed-only option
 * (--partition, --exchange, --scaling, --dist), run the distributed
 * version of `cmd`, store its exit code in *rc and return 1. Otherwise
 * return 0 (after MPI_Finalize if it started MPI) and the command runs as
 * a single process. */
/* Every command starts here (main.c, before dispatch). Under mpirun, with
 * MPI: MPI is started, the ranks agree on their command lines (a hash of
 * argv, compared across ranks: a rank given another command or other
 * options makes every rank stop with a usage error, not hang), and a
 * command that is not distributed is refused with more than one rank (a
 * message naming the distributed ones). Without MPI, more than one process
 * under a launcher is refused the same way. Returns 1 with *rc set when
 * this process's run ends here, 0 to go on (spmv and bench then enter
 * cli_dist_hook with MPI started). */
int cli_mpi_gate(int argc, char **argv, int *rc);

#ifdef SMV_HAVE_MPI
int cli_dist_hook(cli_dist_cmd cmd, int argc, char **argv, int *rc);
#else
/* Built without MPI: every command runs as a single process. */
static inline int cli_dist_hook(cli_dist_cmd cmd, int argc, char **argv,
                                int *rc) {
  (void)cmd, (void)argc, (void)argv, (void)rc;
  return 0;
}
#endif

#endif
