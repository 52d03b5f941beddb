/* cmd_occupancy.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_occupancy(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'occupancy' is not built yet");
  return CLI_ERR;
}
