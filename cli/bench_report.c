/*
 * report.c — the banner and the fixed-width tables of `smv bench`.
 */
#include "bench.h"

#include <math.h>
#include <string.h>

void bench_banner(FILE *f, const bench_run *run) {
  const bench_config *cfg = run->cfg;
  fprintf(f, "smv bench  smv %s, commit %s\n", smv_version(), run->commit);
  fprintf(f, "date       %s\n", run->date);
  fprintf(f, "command    smv");
  for (int i = 0; i < cfg->argc; i++) {
    const char *a = cfg->argv[i];
    int quote = !*a || strpbrk(a, " \t\"'$*?;&|<>()") != NULL;
    fprintf(f, quote ? " '%s'" : " %s", a);
  }
  fputc('\n', f);
  if (run->ctx) {
    const smv_device_props *p = &run->props;
    fprintf(f,
            "device     %s: cc %d.%d, %d SMs, L2 %.1f MB, SM clock %d MHz, "
            "memory %d MHz x %d bit, %.1f GiB, ECC %s\n",
            p->name, p->cc_major, p->cc_minor, p->sm_count, p->l2_bytes / 1e6,
            p->clock_khz / 1000, p->mem_clock_khz / 1000, p->mem_bus_bits,
            (double)p->global_mem_bytes / (1024.0 * 1024 * 1024),
            p->ecc ? "on" : "off");
    fprintf(f, "cuda       runtime %d.%d, driver %d.%d\n",
            p->runtime_version / 1000, (p->runtime_version % 1000) / 10,
            p->driver_version / 1000, (p->driver_version % 1000) / 10);
    if (run->copy_gbps > 0)
      fprintf(f,
              "copy       %.1f GB/s (device-to-device cudaMemcpy, bytes read "
              "+ written, median)\n",
              run->copy_gbps);
  } else {
    fprintf(f, "device     %s (CPU path: no L2 flush, no graphs)\n",
            run->device);
  }
  const smv_bench_options *o = &cfg->opt;
  fprintf(f,
          "timing     alpha %g, beta %g; warm-up %d, runs %d (capped at %g s "
          "per mode); median [p10-p90]",
          o->alpha, o->beta, o->warmup, o->runs, o->max_seconds);
  /* the sweep times the kernel alone: never graphs (gpu.c) */
  int graphs = o->graph_batch > 0 && !cfg->sweep;
  if (run->ctx)
    fprintf(f, "; flushed %s; graph %s", o->flush_l2 ? "yes" : "no",
            graphs       ? "yes"
            : cfg->sweep ? "no (sweep)"
                         : "no");
  if (run->ctx && graphs)
    fprintf(f, " (%d SpMVs per graph, %d replays)", o->graph_batch,
            o->graph_replays);
  fputc('\n', f);
  fputs(bench_model_text, f);
}

/* Microseconds in a fixed width with sensible decimals; "-" if unset. */
static void us(FILE *f, int w, const smv_timing *t, double ms) {
  if (t->runs <= 0 || !(ms >= 0)) {
    fprintf(f, " %*s", w, "-");
    return;
  }
  double u = ms * 1e3;
  fprintf(f, " %*.*f", w, u < 10 ? 2 : u < 1000 ? 1 : 0, u);
}

static void num(FILE *f, int w, int prec, double v) {
  if (isfinite(v))
    fprintf(f, " %*.*f", w, prec, v);
  else
    fprintf(f, " %*s", w, "-");
}

void bench_table(FILE *f, const bench_records *rs, size_t from, size_t to) {
  if (from >= to)
    return;
  const bench_record *h = &rs->v[from];
  fprintf(f, "\n== %s: %lld x %lld, nnz %lld (%.1f per row)%s%s ==\n",
          h->matrix, (long long)h->rows, (long long)h->cols, (long long)h->nnz,
          h->rows ? (double)h->nnz / (double)h->rows : 0.0,
          h->backend[0] == 'c' && h->backend[1] == 'p' ? ", CPU" : "",
          h->sweep ? ", block sweep" : "");
  fprintf(f, "%-4s %-14s %5s %-6s %9s %19s %9s %9s %8s %8s %6s %8s %6s\n",
          "prec", "rung", "block", "verify", "warm us", "[p10 - p90] us",
          "flush us", "graph us", "GB/s", "GB/s fl", "%copy", "GFLOP/s",
          "xALG1");
  int notes = 0;
  for (size_t i = from; i < to; i++) {
    const bench_record *r = &rs->v[i];
    if (r->sweep)
      continue;
    fprintf(f, "%-4s %-14s", r->precision, r->alg);
    if (r->block > 0)
      fprintf(f, " %5d", r->block);
    else
      fprintf(f, " %5s", "-");
    fprintf(f, " %-6s", r->verify);
    us(f, 9, &r->warm, r->warm.median_ms);
    if (r->warm.runs > 0) {
      char range[32];
      snprintf(range, sizeof range, "[%.2f - %.2f]", r->warm.p10_ms * 1e3,
               r->warm.p90_ms * 1e3);
      fprintf(f, " %19s", range);
    } else {
      fprintf(f, " %19s", "-");
    }
    us(f, 9, &r->flushed, r->flushed.median_ms);
    us(f, 9, &r->graph, r->graph.median_ms);
    num(f, 8, 1, r->warm_gbps);
    num(f, 8, 1, r->flushed_gbps);
    num(f, 6, 1, r->warm_pct_copy);
    num(f, 8, 2, r->warm_gflops);
    num(f, 6, 2, r->warm_speedup_alg1);
    fputc('\n', f);
    notes += r->note[0] != '\0';
  }
  for (size_t i = from; notes && i < to; i++) {
    const bench_record *r = &rs->v[i];
    if (r->note[0] && !r->sweep)
      fprintf(f, "  note: %s %s: %s\n", r->precision, r->alg, r->note);
  }
}

/* Pearson correlation of (occupancy, time) over a rung's passing points. */
static double correlation(const double *a, const double *b, int n) {
  if (n < 3)
    return NAN;
  double ma = 0, mb = 0;
  for (int i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= n;
  mb /= n;
  double sab = 0, saa = 0, sbb = 0;
  for (int i = 0; i < n; i++) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0 || sbb <= 0)
    return NAN;
  return sab / sqrt(saa * sbb);
}

#define SWEEP_MAX_ALGS 16

void bench_sweep_table(FILE *f, const bench_records *rs, size_t from,
                       size_t to) {
  if (from >= to)
    return;
  const char *algs[SWEEP_MAX_ALGS];
  int nalg = 0;
  for (size_t i = from; i < to; i++) {
    int seen = 0;
    for (int k = 0; k < nalg; k++)
      seen |= strcmp(algs[k], rs->v[i].alg) == 0;
    if (!seen && nalg < SWEEP_MAX_ALGS)
      algs[nalg++] = rs->v[i].alg;
  }
  const bench_record *h = &rs->v[from];
  fprintf(f,
          "\n== block sweep: %s %s: warm median us / calculated occupancy "
          "(* = the runtime's figure differs) ==\n",
          h->matrix, h->precision);
  fprintf(f, "%5s", "block");
  for (int k = 0; k < nalg; k++)
    fprintf(f, " %16s", algs[k]);
  fputc('\n', f);
  for (int b = 32; b <= 1024; b += 32) {
    fprintf(f, "%5d", b);
    for (int k = 0; k < nalg; k++) {
      const bench_record *r = NULL;
      for (size_t i = from; i < to && !r; i++)
        if (rs->v[i].block == b && strcmp(rs->v[i].alg, algs[k]) == 0)
          r = &rs->v[i];
      char cell[40];
      if (!r) {
        snprintf(cell, sizeof cell, "-");
      } else if (strcmp(r->verify, "PASS") != 0) {
        snprintf(cell, sizeof cell, "%s", r->verify);
      } else {
        char occ[16] = "?";
        if (isfinite(r->occupancy))
          snprintf(occ, sizeof occ, "%3.0f%%%s", 100 * r->occupancy,
                   r->cuda_blocks_per_sm >= 0 &&
                           r->cuda_blocks_per_sm != r->occ_blocks_per_sm
                       ? "*"
                       : " ");
        snprintf(cell, sizeof cell, "%9.2f %s", r->warm.median_ms * 1e3, occ);
      }
      fprintf(f, " %16s", cell);
    }
    fputc('\n', f);
  }
  /* Per rung: best block, the spread, and how time tracks occupancy. */
  for (int k = 0; k < nalg; k++) {
    double occ[64], t[64], best = INFINITY, worst = 0;
    int n = 0, best_b = 0;
    for (size_t i = from; i < to; i++) {
      const bench_record *r = &rs->v[i];
      if (strcmp(r->alg, algs[k]) != 0 || strcmp(r->verify, "PASS") != 0 ||
          r->warm.runs <= 0)
        continue;
      if (r->warm.median_ms < best) {
        best = r->warm.median_ms;
        best_b = r->block;
      }
      if (r->warm.median_ms > worst)
        worst = r->warm.median_ms;
      if (isfinite(r->occupancy) && n < 64) {
        occ[n] = r->occupancy;
        t[n] = r->warm.median_ms;
        n++;
      }
    }
    if (best_b == 0)
      continue;
    double c = correlation(occ, t, n);
    fprintf(f,
            "  %-14s best %4d threads %9.2f us; slowest %.2fx the best; "
            "corr(occupancy, time) ",
            algs[k], best_b, best * 1e3, worst / best);
    if (isfinite(c))
      fprintf(f, "%+.2f\n", c);
    else
      fprintf(f, "n/a (occupancy constant)\n");
  }
}
