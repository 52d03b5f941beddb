/* cmd_gen.c — PLACEHOLDER until its owner lands the real subcommand. */
#include "cli.h"

int cmd_gen(int argc, char **argv) {
  (void)argc, (void)argv;
  cli_error("'gen' is not built yet");
  return CLI_ERR;
}
