/*
 * markdown.c — results as Markdown tables (`--markdown FILE`), the form
 * the files in bench/results/<device>/ quote: one table per precision and
 * timing mode (rows: matrices, columns: rungs, cells: median microseconds), the
 * percent of the copy bandwidth (flushed), the speedup of our best kernel
 * (auto excluded: it may pick cuSPARSE) over cuSPARSE ALG1, and for a sweep one
 * table per matrix and precision (time and calculated occupancy per block
 * size). Device, date and commit head every table.
 */
#include "lab.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define MD_MAX 1024

static const char *base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

static void md_us(FILE *f, const smv_timing *t) {
  if (t->runs <= 0) {
    fputs(" - |", f);
    return;
  }
  double u = t->median_ms * 1e3;
  fprintf(f, " %.*f |", u < 10 ? 2 : u < 1000 ? 1 : 0, u);
}

static void md_stamp(FILE *f, const bench_record *h) {
  fprintf(f, "Device %s; %s; commit %s%s%s.\n\n", h->device, h->date, h->commit,
          h->label[0] ? "; label " : "", h->label);
}

/* mode: 0 warm, 1 flushed, 2 graph, 3 %copy (flushed, else warm) */
static void md_ladder_table(FILE *f, const bench_records *rs, const char *prec,
                            int mode) {
  const char *mats[MD_MAX], *algs[MD_MAX];
  int nm = bench_distinct(rs, offsetof(bench_record, matrix), 0, NULL, prec,
                          mats, MD_MAX);
  int na = bench_distinct(rs, offsetof(bench_record, alg), 0, NULL, prec, algs,
                          MD_MAX);
  static const char *const what[] = {
      "warm (L2-warm) median, us", "L2-flushed median, us",
      "CUDA graph, median per SpMV, us",
      "effective bandwidth, % of the device copy bandwidth (flushed)"};
  /* skip a mode nobody timed */
  int any = 0;
  for (size_t i = 0; i < rs->n && !any; i++) {
    const bench_record *r = &rs->v[i];
    if (r->sweep || strcmp(r->precision, prec) != 0)
      continue;
    any = mode == 0   ? r->warm.runs > 0
          : mode == 2 ? r->graph.runs > 0
                      : r->flushed.runs > 0;
  }
  if (!any)
    return;
  fprintf(f, "#### %s — %s\n\n", prec, what[mode]);
  const bench_record *h = bench_find(rs, 0, mats[0], prec, algs[0], -1);
  md_stamp(f, h);
  fputs("| matrix | nnz |", f);
  for (int k = 0; k < na; k++)
    fprintf(f, " %s |", algs[k]);
  if (mode < 3)
    fputs(" best ours / ALG1 |", f);
  fputs("\n|---|---:|", f);
  for (int k = 0; k < na + (mode < 3); k++)
    fputs("---:|", f);
  fputc('\n', f);
  for (int m = 0; m < nm; m++) {
    const bench_record *any_r = NULL;
    for (int k = 0; k < na && !any_r; k++)
      any_r = bench_find(rs, 0, mats[m], prec, algs[k], -1);
    fprintf(f, "| %s | %lld |", base(mats[m]),
            any_r ? (long long)any_r->nnz : -1LL);
    double best = INFINITY, alg1 = NAN;
    for (int k = 0; k < na; k++) {
      const bench_record *r = bench_find(rs, 0, mats[m], prec, algs[k], -1);
      if (!r) {
        fputs(" |", f);
        continue;
      }
      if (strcmp(r->verify, "PASS") != 0) {
        fprintf(f, " %s |", r->verify);
        continue;
      }
      const smv_timing *t = mode == 0   ? &r->warm
                            : mode == 2 ? &r->graph
                                        : &r->flushed;
      if (mode == 3) {
        double p = r->flushed.runs > 0 ? r->flushed_pct_copy : r->warm_pct_copy;
        if (isfinite(p))
          fprintf(f, " %.0f%% |", p);
        else
          fputs(" - |", f);
        continue;
      }
      md_us(f, t);
      if (t->runs <= 0)
        continue;
      /* ours = our kernels; auto may pick cuSPARSE, so it is not ours */
      if (strncmp(r->alg, "cusparse", 8) != 0 &&
          strcmp(r->alg, smv_alg_name(SMV_ALG_AUTO)) != 0 &&
          t->median_ms < best)
        best = t->median_ms;
      if (strcmp(r->alg, smv_alg_name(SMV_ALG_CUSPARSE_ALG1)) == 0)
        alg1 = t->median_ms;
    }
    if (mode < 3) {
      if (isfinite(best) && isfinite(alg1))
        fprintf(f, " %.2fx |", alg1 / best);
      else
        fputs(" - |", f);
    }
    fputc('\n', f);
  }
  fputc('\n', f);
}

static void md_sweep_table(FILE *f, const bench_records *rs, const char *prec,
                           const char *matrix) {
  const char *algs[MD_MAX];
  int na = bench_distinct(rs, offsetof(bench_record, alg), 1, matrix, prec,
                          algs, MD_MAX);
  if (na == 0)
    return;
  const bench_record *h = bench_find(rs, 1, matrix, prec, algs[0], -1);
  fprintf(f,
          "#### block sweep: %s (%s), %lld x %lld, nnz %lld — warm median us "
          "(calculated occupancy)\n\n",
          base(matrix), prec, (long long)h->rows, (long long)h->cols,
          (long long)h->nnz);
  md_stamp(f, h);
  fputs("| block |", f);
  for (int k = 0; k < na; k++)
    fprintf(f, " %s |", algs[k]);
  fputs("\n|---:|", f);
  for (int k = 0; k < na; k++)
    fputs("---:|", f);
  fputc('\n', f);
  for (int b = 32; b <= 1024; b += 32) {
    fprintf(f, "| %d |", b);
    for (int k = 0; k < na; k++) {
      const bench_record *r = bench_find(rs, 1, matrix, prec, algs[k], b);
      if (!r) {
        fputs(" |", f);
      } else if (strcmp(r->verify, "PASS") != 0 || r->warm.runs <= 0) {
        fprintf(f, " %s |", r->verify);
      } else {
        double u = r->warm.median_ms * 1e3;
        fprintf(f, " %.*f", u < 10 ? 2 : 1, u);
        if (isfinite(r->occupancy))
          fprintf(f, " (%.0f%%%s)", 100 * r->occupancy,
                  r->cuda_blocks_per_sm >= 0 &&
                          r->cuda_blocks_per_sm != r->occ_blocks_per_sm
                      ? "*"
                      : "");
        fputs(" |", f);
      }
    }
    fputc('\n', f);
  }
  fputc('\n', f);
}

void bench_markdown(FILE *f, const bench_records *rs) {
  const char *precs[8]; /* f64, f32: more only from a hand-edited CSV */
  const int maxp = (int)(sizeof precs / sizeof precs[0]);
  int np = bench_distinct(rs, offsetof(bench_record, precision), 0, NULL, NULL,
                          precs, maxp);
  for (int p = 0; p < np; p++)
    for (int mode = 0; mode < 4; mode++)
      md_ladder_table(f, rs, precs[p], mode);
  np = bench_distinct(rs, offsetof(bench_record, precision), 1, NULL, NULL,
                      precs, maxp);
  for (int p = 0; p < np; p++) {
    const char *mats[MD_MAX];
    int nm = bench_distinct(rs, offsetof(bench_record, matrix), 1, NULL,
                            precs[p], mats, MD_MAX);
    for (int m = 0; m < nm; m++)
      md_sweep_table(f, rs, precs[p], mats[m]);
  }
}
