/* cmd_micro.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_micro(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'micro' is not built yet");
  return CLI_ERR;
}
