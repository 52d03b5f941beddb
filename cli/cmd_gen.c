/* cmd_gen.c — `smv gen SPEC -o FILE`: write a generated matrix (or convert
 * a Matrix Market file) as Matrix Market coordinate real general. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static void gen_help(FILE *f) {
  fprintf(f,
          "usage: smv gen SPEC -o FILE\n"
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
          "  -h, --help          this text\n"
          "\n"
          "Exit status: 0 ok, 1 bad spec or write error, 2 usage error.\n"
          "\n%s",
          smv_generate_help());
}

int cmd_gen(int argc, char **argv) {
  const char *spec = NULL, *out = NULL, *v;
  int opts = 1, r;
  if (cli_wants_help(argc, argv)) {
    gen_help(stdout);
    return CLI_OK;
  }
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!opts || a[0] != '-' || a[1] == '\0') {
      if (spec)
        return cli_usage("gen", "more than one SPEC ('%s' and '%s')", spec, a);
      spec = a;
    } else if (strcmp(a, "--") == 0) {
      opts = 0;
    } else if ((r = cli_opt_value(argc, argv, &i, "--output", "-o", &v))) {
      if (r < 0)
        return cli_usage("gen", "%s needs a FILE", a);
      if (out)
        return cli_usage("gen", "-o given twice");
      out = v;
    } else {
      return cli_usage("gen", "unknown option '%s'", a);
    }
  }
  if (!spec)
    return cli_usage("gen", "missing SPEC (for example lap2d:100)");
  if (!out || !*out)
    return cli_usage("gen", "missing -o FILE (use -o - for standard output)");
  smv_csr *A = NULL;
  if (cli_load(spec, &A) != CLI_OK)
    return CLI_ERR;
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
