/* cmd_info.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_info(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'info' is not built yet");
  return CLI_ERR;
}
