/* cmd_bench.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_bench(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'bench' is not built yet");
  return CLI_ERR;
}
