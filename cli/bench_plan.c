/*
 * plan.c — print a matrix's plan and analysis record (smv_matrix_plan):
 * which rung AUTO runs and why, what each analysis step cost, and, when
 * the plan was measured, every candidate's time. Shared by `smv bench`
 * (before each matrix's table) and `smv info --plan`.
 */
#include "bench.h"

#include <stdio.h>

void bench_plan_print(FILE *f, const char *name, smv_precision prec,
                      const smv_matrix *dA) {
  smv_matrix_plan_info p;
  if (smv_matrix_plan(dA, &p) != SMV_OK)
    return;
  const char *pr = smv_precision_name(prec);
  fprintf(f, "plan %s (%s): AUTO runs %s, %s\n", name, pr, smv_alg_name(p.alg),
          p.measured ? "measured" : "heuristic");
  fprintf(f, "  why: %s\n", p.reason);
  fprintf(f,
          "  analysis (ms): upload %.3f, statistics %.3f, plan %.4f, rung "
          "set-up %.3f",
          p.upload_ms, p.stats_ms, p.plan_ms, p.prep_ms);
  if (p.measured)
    fprintf(f, ", tuning %.3f", p.tune_ms);
  fprintf(f, "\n  cuSPARSE alone (bufferSize + malloc + preprocess, ms): ");
  for (int i = 0; i < 2; i++) {
    if (p.cusparse_ms[i] > 0)
      fprintf(f, "%sALG%d %.3f (%zu B buffer%s)", i ? ", " : "", i + 1,
              p.cusparse_ms[i], p.cusparse_bytes[i],
              p.cusparse_bytes[i] || p.alg == (i ? SMV_ALG_CUSPARSE_ALG2
                                                 : SMV_ALG_CUSPARSE_ALG1)
                  ? ""
                  : ", released");
    else
      fprintf(f, "%sALG%d not prepared", i ? ", " : "", i + 1);
  }
  fprintf(f, "\n  device memory held: %.3f MB\n", (double)p.device_bytes / 1e6);
  if (p.ncandidates > 0) {
    fprintf(f, "  candidates (median us, L2-warm):");
    for (int c = 0; c < p.ncandidates; c++) {
      if (p.candidates[c].ms < 0)
        fprintf(f, " %s failed;", smv_alg_name(p.candidates[c].alg));
      else
        fprintf(f, " %s %.2f%s;", smv_alg_name(p.candidates[c].alg),
                p.candidates[c].ms * 1e3,
                p.candidates[c].alg == p.alg ? "*" : "");
    }
    fputc('\n', f);
  }
}
