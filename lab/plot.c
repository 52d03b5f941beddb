/*
 * plot.c — PNG plots of bench records through gnuplot.
 *
 * For every image we write NAME.dat (the numbers) and NAME.gp (a gnuplot
 * script reading NAME.dat and writing NAME.png), then run gnuplot if it is
 * installed. Without gnuplot the .dat/.gp stay, and one line says how to
 * get it; `gnuplot NAME.gp` later makes the PNG.
 *   sweep:  one image per (matrix, precision): top, warm median time
 *           against block size per rung; bottom, calculated occupancy.
 *   ladder: one image per precision: top, effective GB/s (warm) per matrix
 *           and rung; bottom, speedup over cuSPARSE ALG1 (warm, log scale).
 */
#define _DEFAULT_SOURCE
#include "lab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 64

/* One curve per rung of the sweep's data file: column `col` (2: time,
 * 3: occupancy) against the block size, distinct markers and dashes
 * (rungs often share a curve). */
static void sweep_curves(FILE *f, const char *dat, const char **algs, int nalg,
                         int col) {
  for (int k = 0; k < nalg; k++) {
    fprintf(f, "%s", k ? ", \\\n     " : "");
    lab_gnuplot_string(f, dat);
    fprintf(f,
            " index %d using 1:%d with linespoints pt %d ps 0.7 dt %d title ",
            k, col, 4 + k, 1 + k % 5);
    lab_gnuplot_string(f, algs[k]);
  }
}

static void gp_terminal(FILE *f, const char *png, int w, int h) {
  fprintf(f,
          "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
          "  set terminal pngcairo size %d,%d font ',10'\n"
          "} else {\n"
          "  set terminal png size %d,%d\n"
          "}\n",
          w, h, w, h);
  lab_gnuplot_output(f, png);
}

static int plot_sweep(const bench_records *rs, const char *matrix,
                      const char *prec, const char *png, const char *dat,
                      const char *gp) {
  const char *algs[MAXN];
  int nalg = bench_distinct(rs, offsetof(bench_record, alg), 1, matrix, prec,
                            algs, MAXN);
  FILE *f = bench_open_out(dat);
  if (!f)
    return -1;
  fprintf(f, "# smv bench block sweep: %s %s\n", matrix, prec);
  fprintf(f, "# one block per rung: block, warm median us, calculated "
             "occupancy %%, runtime occupancy %%\n");
  for (int k = 0; k < nalg; k++) {
    fprintf(f, "# %s\n", algs[k]);
    for (int b = 32; b <= 1024; b += 32) {
      const bench_record *r = bench_find(rs, 1, matrix, prec, algs[k], b);
      if (!r || strcmp(r->verify, "PASS") != 0 || r->warm.runs <= 0)
        continue;
      double rt = NAN;
      if (r->cuda_blocks_per_sm >= 0 && r->occ_max_warps > 0)
        rt = 100.0 * r->cuda_blocks_per_sm * ((b + 31) / 32) / r->occ_max_warps;
      fprintf(f, "%d %.6g ", b, r->warm.median_ms * 1e3);
      if (isfinite(r->occupancy))
        fprintf(f, "%.4g ", 100 * r->occupancy);
      else
        fprintf(f, "- ");
      if (isfinite(rt))
        fprintf(f, "%.4g\n", rt);
      else
        fprintf(f, "-\n");
    }
    fprintf(f, "\n\n");
  }
  if (bench_close_out(f, dat))
    return -1;

  const bench_record *h = bench_find(rs, 1, matrix, prec, algs[0], -1);
  if (!(f = bench_open_out(gp)))
    return -1;
  fprintf(f, "# gnuplot script written by smv bench; data in the .dat\n");
  gp_terminal(f, png, 1200, 900);
  fprintf(f, "set datafile missing '-'\nset multiplot layout 2,1 title ");
  /* Two lines joined by gnuplot's "." with a "\n" constant: the names go
   * in single quotes (a double-quoted string would run a `backquoted`
   * command in a matrix's file name). */
  char title[512], line2[512];
  snprintf(title, sizeof title, "block sweep: %s (%s), %lld x %lld, nnz %lld",
           matrix, prec, (long long)h->rows, (long long)h->cols,
           (long long)h->nnz);
  snprintf(line2, sizeof line2, "%s, %s, commit %s", h->device, h->date,
           h->commit);
  lab_gnuplot_string(f, title);
  fputs(".\"\\n\".", f);
  lab_gnuplot_string(f, line2);
  fputc('\n', f);
  fprintf(f, "set key outside right noenhanced\nset grid\n"
             "set xrange [0:1056]\n"
             "set xtics 0,64,1024\n"
             "set ylabel 'warm median time (us)'\n"
             "set xlabel ''\n");
  fprintf(f, "plot ");
  sweep_curves(f, dat, algs, nalg, 2);
  fprintf(f, "\nset ylabel 'calculated occupancy (%%)'\n"
             "set xlabel 'threads per block'\nset yrange [0:105]\nplot ");
  sweep_curves(f, dat, algs, nalg, 3);
  fprintf(f, "\nunset multiplot\n");
  return bench_close_out(f, gp);
}

static int plot_ladder(const bench_records *rs, const char *prec,
                       const char *png, const char *dat, const char *gp) {
  const char *mats[1024], *algs[MAXN];
  int nm = bench_distinct(rs, offsetof(bench_record, matrix), 0, NULL, prec,
                          mats, 1024);
  int na = bench_distinct(rs, offsetof(bench_record, alg), 0, NULL, prec, algs,
                          MAXN);
  FILE *f = bench_open_out(dat);
  if (!f)
    return -1;
  /* Table: matrix, then per rung warm GB/s, then per rung speedup. */
  fprintf(f, "matrix");
  for (int k = 0; k < na; k++)
    fprintf(f, " %s", algs[k]);
  for (int k = 0; k < na; k++)
    fprintf(f, " x_%s", algs[k]);
  fputc('\n', f);
  for (int m = 0; m < nm; m++) {
    const char *slash = strrchr(mats[m], '/');
    fputc('"', f);
    for (const char *s = slash ? slash + 1 : mats[m]; *s; s++)
      if (*s != '"' && *s != ' ')
        fputc(*s, f);
    fputc('"', f);
    for (int pass = 0; pass < 2; pass++)
      for (int k = 0; k < na; k++) {
        const bench_record *r = bench_find(rs, 0, mats[m], prec, algs[k], -1);
        double v = !r ? NAN : pass ? r->warm_speedup_alg1 : r->warm_gbps;
        if (isfinite(v))
          fprintf(f, " %.5g", v);
        else
          fprintf(f, " -");
      }
    fputc('\n', f);
  }
  if (bench_close_out(f, dat))
    return -1;
  const bench_record *h = NULL;
  for (size_t i = 0; i < rs->n && !h; i++)
    if (!rs->v[i].sweep && strcmp(rs->v[i].precision, prec) == 0)
      h = &rs->v[i];
  if (!(f = bench_open_out(gp)))
    return -1;
  fprintf(f, "# gnuplot script written by smv bench; data in the .dat\n");
  int w = 400 + 60 * nm;
  gp_terminal(f, png, w < 1200 ? 1200 : w > 4000 ? 4000 : w, 1000);
  char title[512];
  snprintf(title, sizeof title, "smv ladder (%s): %s, %s, commit %s", prec,
           h->device, h->date, h->commit);
  int speedups = 0;
  for (size_t i = 0; i < rs->n; i++)
    speedups += !rs->v[i].sweep && strcmp(rs->v[i].precision, prec) == 0 &&
                isfinite(rs->v[i].warm_speedup_alg1);
  fprintf(f, "set datafile missing '-'\nset multiplot layout %d,1 title ",
          speedups ? 2 : 1);
  lab_gnuplot_string(f, title);
  fprintf(f,
          "\nset style data histogram\n"
          "set style histogram clustered gap 1\n"
          "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
          "set key outside right noenhanced\nset grid ytics\n"
          "set xtics rotate by -40 noenhanced\n"
          "set yrange [0:*]\n"
          "set ylabel 'effective GB/s (warm median, minimal bytes)'\n"
          "plot for [k=2:%d] ",
          na + 1);
  lab_gnuplot_string(f, dat);
  fprintf(f, " using k:xtic(1) title columnheader(k)\n");
  if (speedups) { /* none on the CPU path or without cusparse-alg1 */
    fprintf(f,
            "set logscale y\n"
            "set ylabel 'speedup over cusparse-alg1 (warm)'\n"
            "plot for [k=%d:%d] ",
            na + 2, 2 * na + 1);
    lab_gnuplot_string(f, dat);
    fprintf(f, " using k:xtic(1) title columnheader(k)\n");
  }
  fprintf(f, "unset multiplot\n");
  return bench_close_out(f, gp);
}

/* One image: its .dat, .gp and .png named after PNG and SUFFIX (allocated,
 * no length limit), each a regular file or a new name. */
static int plot_image(const bench_records *rs, const char *png,
                      const char *suffix, int have_sweep, const char *matrix,
                      const char *prec, int gnuplot, char **first_gp) {
  char *img = lab_plot_name(png, suffix, "png");
  char *dat = img ? lab_plot_name(png, suffix, "dat") : NULL;
  char *gp = dat ? lab_plot_name(png, suffix, "gp") : NULL;
  int rc = gp ? 0 : -1;
  if (rc == 0 && (lab_plot_target(img) != 0 || lab_plot_target(dat) != 0 ||
                  lab_plot_target(gp) != 0))
    rc = -1;
  if (rc == 0)
    rc = have_sweep ? plot_sweep(rs, matrix, prec, img, dat, gp)
                    : plot_ladder(rs, prec, img, dat, gp);
  if (rc == 0 && gnuplot) {
    int g = lab_run_gnuplot(gp, img);
    if (g > 0)
      lab_error("%s: running gnuplot: %s", img, strerror(g));
    else if (g == -1)
      lab_error("gnuplot failed on %s", gp);
    rc = g ? -1 : 0;
  }
  if (rc == 0 && gnuplot)
    printf("plot: %s\n", img);
  if (rc == 0 && !*first_gp) {
    *first_gp = gp;
    gp = NULL;
  }
  free(img);
  free(dat);
  free(gp);
  return rc;
}

int bench_plot(const bench_records *rs, const char *png) {
  int have_sweep = 0;
  for (size_t i = 0; i < rs->n; i++)
    have_sweep |= rs->v[i].sweep;
  const char *precs[4];
  int np = bench_distinct(rs, offsetof(bench_record, precision), have_sweep,
                          NULL, NULL, precs, 4);
  int made = 0, rc = 0, gnuplot = lab_have_gnuplot();
  char *first_gp = NULL;
  if (np == 0) {
    lab_error("--plot: no results to plot");
    return -1;
  }
  /* One image per (matrix, precision) for a sweep, per precision for the
   * ladder (mats[0] = NULL: every matrix in one image). */
  const char *mats[1024] = {NULL};
  int nm = have_sweep ? bench_distinct(rs, offsetof(bench_record, matrix), 1,
                                       NULL, NULL, mats, 1024)
                      : 1;
  for (int m = 0; m < nm && rc == 0; m++)
    for (int p = 0; p < np && rc == 0; p++) {
      const char *any[1];
      if (have_sweep && bench_distinct(rs, offsetof(bench_record, alg), 1,
                                       mats[m], precs[p], any, 1) == 0)
        continue;
      char *suffix = NULL; /* none when there is a single image */
      if (nm > 1 || np > 1) {
        const char *slash = mats[m] ? strrchr(mats[m], '/') : NULL;
        const char *base = mats[m] ? (slash ? slash + 1 : mats[m]) : NULL;
        size_t n = (base ? strlen(base) + 1 : 0) + strlen(precs[p]) + 1;
        if (!(suffix = malloc(n))) {
          lab_error("out of memory naming plots");
          rc = -1;
          break;
        }
        if (base)
          snprintf(suffix, n, "%s-%s", base, precs[p]);
        else
          snprintf(suffix, n, "%s", precs[p]);
      }
      rc = plot_image(rs, png, suffix, have_sweep, mats[m], precs[p], gnuplot,
                      &first_gp);
      free(suffix);
      made += rc == 0;
    }
  if (rc == 0 && !gnuplot && made)
    printf("plot: gnuplot not found: wrote %d gnuplot script(s) (e.g. %s); "
           "install it (apt-get install gnuplot-nox) and run gnuplot on "
           "them\n",
           made, first_gp);
  free(first_gp);
  return rc;
}
