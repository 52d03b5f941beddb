/* occupancy_print.c — `smv occupancy` results as text and JSON, the checks
 * that make a bad request a usage error, and the sweep's gnuplot files. */
#include "occupancy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- printing ------------------------------------------------------------
 */

static const char *limit_names[] = {"warps", "blocks", "registers",
                                    "shared_memory"};

void print_limits_json(FILE *f, unsigned bits) {
  int first = 1;
  fputc('[', f);
  for (int k = 0; k < 4; k++)
    if (bits & (1u << k)) {
      fprintf(f, "%s\"%s\"", first ? "" : ",", limit_names[k]);
      first = 0;
    }
  fputc(']', f);
}

/* "warps, blocks, shared memory" (40 bytes at most, NUL included); "-" if
 * no bit is set. Returns buf. */
const char *limits_text(char buf[64], unsigned bits) {
  buf[0] = '\0';
  for (int k = 0; k < 4; k++)
    if (bits & (1u << k)) {
      if (buf[0])
        strcat(buf, ", ");
      strcat(buf, k == 3 ? "shared memory" : limit_names[k]);
    }
  if (!buf[0])
    strcpy(buf, "-");
  return buf;
}

void json_count(FILE *f, const char *key, int v) {
  if (v == SMV_OCC_UNLIMITED)
    fprintf(f, "\"%s\":null", key);
  else
    fprintf(f, "\"%s\":%d", key, v);
}

void print_result_json_fields(FILE *f, const smv_occupancy_result *r) {
  fprintf(f,
          "\"blocks_per_sm\":%d,\"warps_per_sm\":%d,\"max_warps_per_sm\":%d,"
          "\"occupancy\":%.6f,\"limited_by\":",
          r->blocks_per_sm, r->warps_per_sm, r->max_warps_per_sm, r->occupancy);
  print_limits_json(f, r->limited_by);
  fputc(',', f);
  json_count(f, "blocks_by_warps", r->blocks_by_warps);
  fputc(',', f);
  json_count(f, "blocks_by_blocks", r->blocks_by_blocks);
  fputc(',', f);
  json_count(f, "blocks_by_regs", r->blocks_by_regs);
  fputc(',', f);
  json_count(f, "blocks_by_smem", r->blocks_by_smem);
  fprintf(f,
          ",\"warps_per_block\":%d,\"regs_per_warp\":%d,"
          "\"regs_per_block\":%d,\"warps_by_regs\":%d,"
          "\"smem_allocated_per_block\":%zu,\"smem_per_sm\":%d,"
          "\"smem_optin\":%s",
          r->warps_per_block, r->regs_per_warp, r->regs_per_block,
          r->warps_by_regs, r->smem_per_block, r->smem_per_sm,
          r->smem_optin ? "true" : "false");
}

void print_arch_json_fields(FILE *f, const smv_arch *a) {
  fprintf(f, "\"cc\":\"%d.%d\",\"arch\":", a->cc_major, a->cc_minor);
  bench_json_string(f, a->name);
}

const char *prec_name(smv_precision p) { return p == SMV_F64 ? "f64" : "f32"; }

/* The --kernel modes' identity: device, kernel, rung, precision. */
void print_kernel_json_fields(FILE *f, const char *device, smv_alg alg,
                              smv_precision prec) {
  fputs("\"device\":", f);
  bench_json_string(f, device);
  fprintf(f, ",\"kernel\":\"%s\",\"alg\":\"%s\",\"precision\":\"%s\"",
          smv_kernel_name(alg), smv_alg_name(alg), prec_name(prec));
}

void print_pref_json_fields(FILE *f, const smv_occupancy_options *p) {
  fprintf(f, "\"carveout\":%d,\"cache_config\":\"%s\"", p->carveout,
          cache_names[p->cache_config]);
}

void fmt_count(char *buf, size_t n, int v) {
  if (v == SMV_OCC_UNLIMITED)
    snprintf(buf, n, "unlimited");
  else
    snprintf(buf, n, "%d", v);
}

/* The seed's explanation, limit by limit, with the arithmetic. */
void print_result_text(const smv_arch *a, int threads, int regs, long smem,
                       const smv_occupancy_options *p,
                       const smv_occupancy_result *r) {
  char c[32], lim[64];
  printf("CC %d.%d %s: %d threads per block (%d warp%s), %d registers per "
         "thread, %ld bytes of shared memory per block\n\n",
         a->cc_major, a->cc_minor, a->name, threads, r->warps_per_block,
         r->warps_per_block == 1 ? "" : "s", regs, smem);
  printf("  %-14s %9s  %s\n", "limit", "blocks/SM", "why");
  fmt_count(c, sizeof c, r->blocks_by_warps);
  printf("  %-14s %9s  %d warps per SM / %d warps per block\n", "warps", c,
         a->max_warps_per_sm, r->warps_per_block);
  printf("  %-14s %9d  at most %d resident blocks per SM\n", "blocks",
         r->blocks_by_blocks, a->max_blocks_per_sm);
  fmt_count(c, sizeof c, r->blocks_by_regs);
  if (regs == 0) {
    printf("  %-14s %9s  no registers used\n", "registers", c);
  } else if (a->reg_alloc_per_warp) {
    printf("  %-14s %9s  %d x 32 = %d -> %d registers per warp (unit %d); "
           "%d / %d partitions / %d\n"
           "  %-14s %9s  = %d warps each, %d per SM, / %d warps per block\n",
           "registers", c, regs, regs * 32, r->regs_per_warp, a->reg_alloc_unit,
           a->regs_per_sm, a->warp_alloc_granularity, r->regs_per_warp, "", "",
           r->regs_per_warp
               ? a->regs_per_sm / a->warp_alloc_granularity / r->regs_per_warp
               : 0,
           r->warps_by_regs, r->warps_per_block);
    if (r->blocks_by_regs == 0)
      printf("  %-14s %9s  a block needs %d registers: over the %d a block "
             "may hold, or more warps than the register file holds\n",
             "", "", r->regs_per_block, a->regs_per_block);
  } else {
    printf("  %-14s %9s  %d registers per block (unit %d, warps rounded to "
           "%d); %d / %d\n",
           "registers", c, r->regs_per_block, a->reg_alloc_unit,
           a->warp_alloc_granularity, a->regs_per_sm, r->regs_per_block);
  }
  fmt_count(c, sizeof c, r->blocks_by_smem);
  if (r->smem_per_block == 0)
    printf("  %-14s %9s  no shared memory used\n", "shared memory", c);
  else
    printf("  %-14s %9s  %ld + %d reserved -> %zu bytes per block (unit %d); "
           "%d / %zu\n",
           "shared memory", c, smem, a->smem_reserved_per_block,
           r->smem_per_block, a->smem_alloc_unit, r->smem_per_sm,
           r->smem_per_block);
  printf("\n  shared memory per SM: %d bytes (", r->smem_per_sm);
  if (a->smem_model == SMV_SMEM_FIXED)
    printf("dedicated)\n");
  else if (p->carveout == SMV_CARVEOUT_DEFAULT &&
           p->cache_config == SMV_CACHE_PREFER_NONE)
    printf("no preference: the largest)\n");
  else
    printf("carveout %d%%, cache config %s, rounded to a supported size)\n",
           p->carveout, cache_names[p->cache_config]);
  if (r->smem_optin)
    printf("  above the default %d bytes per block: the kernel must opt in "
           "with cudaFuncSetAttribute(kernel, "
           "cudaFuncAttributeMaxDynamicSharedMemorySize, %ld)\n",
           a->smem_per_block, smem);
  printf("\n");
  if (r->blocks_per_sm == 0) {
    printf("=> cannot launch: no block of this kernel fits an SM (limited by "
           "%s)\n",
           limits_text(lim, r->limited_by));
    return;
  }
  printf("=> %d block%s x %d warp%s = %d of %d warps per SM: occupancy "
         "%.1f%% (limited by %s)\n",
         r->blocks_per_sm, r->blocks_per_sm == 1 ? "" : "s", r->warps_per_block,
         r->warps_per_block == 1 ? "" : "s", r->warps_per_sm,
         r->max_warps_per_sm, 100.0 * r->occupancy,
         limits_text(lim, r->limited_by));
}

/* ---- checks that make a bad request a usage error ------------------------
 */

int check_request(const smv_arch *a, long threads, long regs, long smem) {
  if (threads > a->max_threads_per_block)
    return cli_usage(CMD, "%ld threads per block: CC %d.%d allows at most %d",
                     threads, a->cc_major, a->cc_minor,
                     a->max_threads_per_block);
  if (regs > a->max_regs_per_thread)
    return cli_usage(CMD,
                     "%ld registers per thread: CC %d.%d allows at most %d",
                     regs, a->cc_major, a->cc_minor, a->max_regs_per_thread);
  if (smem > a->smem_per_block_optin)
    return cli_usage(CMD,
                     "%ld bytes of shared memory per block: CC %d.%d allows "
                     "at most %d (with opt-in)",
                     smem, a->cc_major, a->cc_minor, a->smem_per_block_optin);
  return CLI_OK;
}

/* ---- plot ----------------------------------------------------------------
 */

/* Is `prog` an executable in $PATH (what `command -v` answers)? */

static int plot_files(const char *png, const char *title, const char *subtitle,
                      const smv_arch *a, const struct sweep_row *rows, int n,
                      const struct sweep_row *best, int with_runtime, int *ran,
                      const char *dat, const char *gp) {
  if (lab_plot_target(png) != 0 || lab_plot_target(dat) != 0 ||
      lab_plot_target(gp) != 0)
    return CLI_ERR;
  FILE *f = bench_open_out(dat);
  if (!f)
    return CLI_ERR;
  fprintf(f,
          "# %s\n# %s\n# threads_per_block warps_per_sm blocks_per_sm "
          "occupancy_percent%s\n",
          title, subtitle, with_runtime ? " runtime_warps_per_sm" : "");
  for (int i = 0; i < n; i++) {
    if (!rows[i].valid)
      continue;
    fprintf(f, "%d %d %d %.2f", rows[i].threads, rows[i].r.warps_per_sm,
            rows[i].r.blocks_per_sm, 100.0 * rows[i].r.occupancy);
    if (with_runtime)
      fprintf(f, " %d", rows[i].runtime_blocks * rows[i].r.warps_per_block);
    fputc('\n', f);
  }
  if (bench_close_out(f, dat) != 0)
    return CLI_ERR;
  f = bench_open_out(gp);
  if (!f)
    return CLI_ERR;
  fprintf(f, "# gnuplot script written by smv occupancy --sweep; run: "
             "gnuplot ");
  fprintf(f, "%s\n", gp);
  fprintf(f, "set terminal pngcairo size 960,560 enhanced font 'Sans,11'\n");
  lab_gnuplot_output(f, png);
  fprintf(f, "set title ");
  lab_gnuplot_string(f, title);
  fprintf(f, ".\"\\n\".");
  lab_gnuplot_string(f, subtitle);
  fprintf(f,
          " noenhanced\n"
          "set xlabel 'threads per block (Db)'\n"
          "set ylabel 'resident warps per SM'\n"
          "set xrange [0:1056]\nset xtics 0,128,1024\nset mxtics 4\n"
          "set yrange [0:%d]\nset ytics 0,8,%d\n"
          "set grid xtics ytics\nset key bottom right\n",
          a->max_warps_per_sm + 8, a->max_warps_per_sm + 8);
  fprintf(f, "set arrow from 0,%d to 1056,%d nohead dt 2 lc rgb '#808080'\n",
          a->max_warps_per_sm, a->max_warps_per_sm);
  fprintf(f,
          "set label 'max %d warps/SM' at 40,%d font ',9' tc rgb "
          "'#606060'\n",
          a->max_warps_per_sm, a->max_warps_per_sm + 3);
  fprintf(f, "plot ");
  lab_gnuplot_string(f, dat);
  fprintf(f, " using 1:2 with linespoints pt 7 ps 0.8 lc rgb '#1f5fbf' "
             "title 'warps per SM (smv model)'");
  if (with_runtime) {
    fprintf(f, ", ");
    lab_gnuplot_string(f, dat);
    fprintf(f, " using 1:5 with points pt 6 ps 1.6 lc rgb '#2a9d2a' "
               "title 'CUDA runtime'");
  }
  fprintf(f, ", ");
  lab_gnuplot_string(f, dat);
  fprintf(f,
          " using ($1 == %d ? $1 : 1/0):2 with points pt 7 ps 2 lc rgb "
          "'#c00000' title 'best: Db = %d, %d warps (%.0f%%), the smallest "
          "block at the highest occupancy'\n",
          best->threads, best->threads, best->r.warps_per_sm,
          100.0 * best->r.occupancy);
  if (bench_close_out(f, gp) != 0)
    return CLI_ERR;
  if (!lab_have_gnuplot()) {
    fprintf(stderr,
            "smv: gnuplot not found: wrote %s and %s; to draw %s install "
            "gnuplot (apt-get install gnuplot-nox) and run 'gnuplot %s'\n",
            dat, gp, png, gp);
    return CLI_OK;
  }
  int rc = lab_run_gnuplot(gp, png);
  if (rc == -2)
    return CLI_ERR;
  if (rc > 0) {
    cli_error("%s: running gnuplot: %s", png, strerror(rc));
    return CLI_ERR;
  }
  if (rc < 0) {
    cli_error("gnuplot %s failed (its message is above)", gp);
    return CLI_ERR;
  }
  struct stat sb;
  if (stat(png, &sb) != 0 || sb.st_size == 0) {
    cli_error("gnuplot ran but %s is missing or empty", png);
    return CLI_ERR;
  }
  *ran = 1;
  return CLI_OK;
}

/* FILE.png -> FILE.dat and FILE.gp (other names: NAME.dat, NAME.gp). */
int write_plot(const char *png, const char *title, const char *subtitle,
               const smv_arch *a, const struct sweep_row *rows, int n,
               const struct sweep_row *best, int with_runtime, int *ran) {
  *ran = 0;
  char *dat = lab_plot_name(png, NULL, "dat");
  char *gp = dat ? lab_plot_name(png, NULL, "gp") : NULL;
  int rc = gp ? plot_files(png, title, subtitle, a, rows, n, best, with_runtime,
                           ran, dat, gp)
              : CLI_ERR;
  free(dat);
  free(gp);
  return rc;
}
