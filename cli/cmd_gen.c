/* cmd_gen.c — `smv gen SPEC -o FILE [--reorder rcm|degree]`: write a
 * generated matrix (or convert a Matrix Market file) as Matrix Market
 * coordinate real general, reordered if asked. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_help(FILE *f) {
  fprintf(f,
          "usage: smv gen SPEC -o FILE [--reorder rcm|degree]\n"
          "\n"
          "Generate the matrix SPEC and write it as Matrix Market "
          "(coordinate real\n"
          "general, values with %%.17g so they read back exactly). FILE "
          "ending in .gz\n"
          "is gzip-compressed; '-o -' writes to standard output. -o is "
          "required, so a\n"
          "large matrix never floods a terminal by accident. SPEC may also "
          "be a Matrix\n"
          "Market file, which converts it (symmetric input is written "
          "expanded).\n"
          "\n"
          "  -o, --output FILE   where to write (.mtx, .mtx.gz, or - for "
          "stdout)\n"
          "  --reorder rcm|degree  write P A P^T: rows and columns in reverse "
          "Cuthill-\n"
          "                      McKee or increasing-degree order (pattern "
          "of A + A^T;\n"
          "                      square matrices); the bandwidth and "
          "profile before\n"
          "                      and after go to standard error\n"
          "  -h, --help          this text\n"
          "\n"
          "Exit status: 0 ok, 1 bad spec or write error, 2 usage error.\n"
          "\n%s",
          smv_generate_help());
}

/* The one SPEC. */
static int gen_positional(void *user, const char *arg) {
  const char **spec = user;
  if (*spec)
    return cli_usage("gen", "more than one SPEC ('%s' and '%s')", *spec, arg);
  *spec = arg;
  return CLI_OK;
}

int cmd_gen(int argc, char **argv) {
  const char *spec = NULL, *out = NULL, *reorder_s = NULL;
  int order = CLI_ORDER_NONE;
  if (cli_wants_help(argc, argv)) {
    gen_help(stdout);
    return CLI_OK;
  }
  const cli_opt opts[] = {{.name = "--output",
                           .alias = "-o",
                           .need = "a FILE",
                           .once = 1,
                           .str = &out},
                          {.name = "--reorder",
                           .need = "rcm or degree",
                           .once = 1,
                           .str = &reorder_s},
                          {0}};
  int rc = cli_parse("gen", argc, argv, opts, gen_positional, &spec);
  if (rc != CLI_OK)
    return rc;
  if ((rc = cli_reorder_pick("gen", reorder_s, &order)) != CLI_OK)
    return rc;
  if (!spec)
    return cli_usage("gen", "missing SPEC (for example lap2d:100)");
  if (!out || !*out)
    return cli_usage("gen", "missing -o FILE (use -o - for standard output)");
  smv_csr *A = NULL;
  if (cli_load(spec, &A) != CLI_OK)
    return CLI_ERR;
  if (order != CLI_ORDER_NONE) {
    smv_csr *B = NULL;
    smv_index *perm = NULL;
    cli_reorder_report r;
    rc = cli_reorder(spec, order, A, &B, &perm, &r);
    smv_csr_free(A);
    free(perm);
    if (rc != CLI_OK)
      return rc;
    A = B;
    /* stderr: standard output may be the matrix itself (-o -). */
    cli_reorder_print(stderr, order, &r);
  }
  smv_error err;
  smv_status st;
  if (strcmp(out, "-") == 0) {
    st = smv_mm_write_file(stdout, A, &err); /* flushes, checks "stdout" */
  } else {
    st = smv_mm_write(out, A, &err);
  }
  smv_csr_free(A);
  if (st != SMV_OK)
    return cli_fail(st, &err);
  return CLI_OK;
}
