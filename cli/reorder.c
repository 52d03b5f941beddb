/* reorder.c — `--reorder rcm|degree` of smv info, gen and solve: the word,
 * the permutation, the permuted matrix and what it did to the bandwidth
 * and profile (smv.h, "Reordering"). */
#include "cli.h"

#include <stdlib.h>

static const char *const order_names[] = {"rcm", "degree", NULL};

int cli_reorder_pick(const char *cmd, const char *v, int *order) {
  char why[128];
  *order = CLI_ORDER_NONE;
  if (cli_pick_word("--reorder", v, order_names, order, why, sizeof why) != 0)
    return cli_usage(cmd, "%s", why);
  return CLI_OK;
}

const char *cli_reorder_name(int order) {
  return order == CLI_ORDER_RCM      ? "rcm"
         : order == CLI_ORDER_DEGREE ? "degree"
                                     : "none";
}

int cli_reorder(const char *name, int order, const smv_csr *A, smv_csr **B,
                smv_index **perm, cli_reorder_report *rep) {
  *B = NULL;
  *perm = NULL;
  smv_error err;
  smv_status st =
      smv_csr_bandwidth(A, &rep->bandwidth[0], &rep->profile[0], &err);
  if (st != SMV_OK) {
    cli_error("%s: %s", name, err.message);
    return CLI_ERR;
  }
  const double t0 = lab_now_s();
  smv_index *p = malloc(((size_t)A->rows + 1) * sizeof *p);
  if (!p) {
    cli_error("%s: out of memory for a permutation of %lld rows", name,
              (long long)A->rows);
    return CLI_ERR;
  }
  st = order == CLI_ORDER_RCM ? smv_order_rcm(A, p, &err)
                              : smv_order_degree(A, p, &err);
  if (st == SMV_OK)
    st = smv_csr_permute(A, p, p, B, &err);
  if (st == SMV_OK)
    st = smv_csr_bandwidth(*B, &rep->bandwidth[1], &rep->profile[1], &err);
  rep->seconds = lab_now_s() - t0;
  if (st != SMV_OK) {
    cli_error("%s: --reorder %s: %s", name, cli_reorder_name(order),
              err.message);
    smv_csr_free(*B);
    *B = NULL;
    free(p);
    return CLI_ERR;
  }
  *perm = p;
  return CLI_OK;
}

void cli_reorder_print(FILE *f, int order, const cli_reorder_report *rep) {
  fprintf(f,
          "reorder       %s: bandwidth %lld -> %lld, profile %lld -> %lld "
          "(%.3f ms)\n",
          cli_reorder_name(order), (long long)rep->bandwidth[0],
          (long long)rep->bandwidth[1], (long long)rep->profile[0],
          (long long)rep->profile[1], rep->seconds * 1e3);
}
