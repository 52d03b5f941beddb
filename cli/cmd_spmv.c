/* cmd_spmv.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_spmv(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'spmv' is not built yet");
  return CLI_ERR;
}
