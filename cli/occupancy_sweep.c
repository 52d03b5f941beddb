/* occupancy_sweep.c — `smv occupancy --sweep`: every block size, as a
 * table, as JSON and as a plot. */
#include "occupancy.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rows of the sweep; for --kernel, the registers and shared memory come
 * from the kernel at each block size and the runtime's figure is asked. */
int sweep_rows(const struct opts *o, const smv_arch *a, smv_context *ctx,
               smv_alg alg, struct sweep_row *rows, int *nrows) {
  int n = 0;
  for (int b = 32; b <= a->max_threads_per_block; b += 32) {
    struct sweep_row *w = &rows[n++];
    memset(w, 0, sizeof *w);
    w->threads = b;
    w->runtime_blocks = -1;
    int regs = (int)o->regs;
    long smem = o->smem + o->smem_per_thread * b;
    if (ctx) {
      smv_kernel_attrs ka;
      smv_status st = smv_kernel_attributes(ctx, alg, o->prec, b, &ka);
      if (st != SMV_OK) {
        cli_error("smv_kernel_attributes(%s, block %d): %s",
                  smv_kernel_name(alg), b, smv_context_error(ctx));
        return CLI_ERR;
      }
      if (b > ka.max_threads_per_block)
        continue; /* beyond the kernel's launch bounds */
      regs = ka.regs_per_thread;
      smem = (long)(ka.static_smem_bytes + ka.dynamic_smem_bytes);
      int rb = 0;
      st = smv_kernel_occupancy_cuda(ctx, alg, o->prec, b, &rb);
      if (st != SMV_OK) {
        cli_error("smv_kernel_occupancy_cuda(%s, block %d): %s",
                  smv_kernel_name(alg), b, smv_context_error(ctx));
        return CLI_ERR;
      }
      w->runtime_blocks = rb;
    }
    w->smem = smem;
    if (smem > a->smem_per_block_optin)
      continue; /* this size cannot launch: left out of the sweep */
    if (smv_occupancy_ex(a, b, regs, (size_t)smem, &o->pref, &w->r) == SMV_OK)
      w->valid = 1;
  }
  *nrows = n;
  return CLI_OK;
}

int do_sweep(const struct opts *o, const smv_arch *a, smv_context *ctx,
             smv_alg alg, const char *device_name) {
  if (!ctx) {
    /* Sizes whose shared memory grows past the limit show as "cannot
     * launch"; the fixed part alone must fit. */
    int rc = check_request(a, 1, o->regs, o->smem);
    if (rc != CLI_OK)
      return rc;
  }
  struct sweep_row rows[1024 / 32];
  int n = 0;
  if (sweep_rows(o, a, ctx, alg, rows, &n) != CLI_OK)
    return CLI_ERR;
  /* The smallest block at the highest warps per SM (ties keep the first). */
  const struct sweep_row *best = NULL;
  int disagree = 0;
  for (int i = 0; i < n; i++) {
    if (!rows[i].valid)
      continue;
    if (!best || rows[i].r.warps_per_sm > best->r.warps_per_sm)
      best = &rows[i];
    if (rows[i].runtime_blocks >= 0 &&
        rows[i].runtime_blocks != rows[i].r.blocks_per_sm)
      disagree++;
  }
  if (!best) {
    cli_error("no block size from 32 to %d can hold this request "
              "(shared memory above %d bytes per block)",
              a->max_threads_per_block, a->smem_per_block_optin);
    return CLI_USAGE;
  }
  /* Title and default plot name. */
  char title[512], subtitle[512], defname[256];
  if (ctx) {
    snprintf(title, sizeof title, "%s (%s) on %s: warps per SM vs block size",
             smv_kernel_name(alg), prec_name(o->prec), device_name);
    snprintf(subtitle, sizeof subtitle,
             "CC %d.%d (%s), the kernel's own registers and shared memory "
             "at each block size",
             a->cc_major, a->cc_minor, a->name);
    snprintf(defname, sizeof defname, "occupancy_%s_%s.png",
             smv_kernel_name(alg), prec_name(o->prec));
  } else {
    char smem_desc[96];
    if (o->smem_per_thread)
      snprintf(smem_desc, sizeof smem_desc, "%ld + %ld x Db bytes", o->smem,
               o->smem_per_thread);
    else
      snprintf(smem_desc, sizeof smem_desc, "%ld bytes", o->smem);
    snprintf(title, sizeof title, "CC %d.%d (%s): warps per SM vs block size",
             a->cc_major, a->cc_minor, a->name);
    snprintf(subtitle, sizeof subtitle,
             "%ld registers/thread, shared memory %s per block", o->regs,
             smem_desc);
    snprintf(defname, sizeof defname, "occupancy_cc%d%d_r%ld.png", a->cc_major,
             a->cc_minor, o->regs);
  }
  const char *png = o->no_plot ? NULL : (o->plot ? o->plot : defname);
  int ran = 0;
  if (png) {
    int rc =
        write_plot(png, title, subtitle, a, rows, n, best, ctx != NULL, &ran);
    if (rc != CLI_OK)
      return rc;
  }
  if (o->json) {
    printf("{");
    print_arch_json_fields(stdout, a);
    if (ctx) {
      printf(",");
      print_kernel_json_fields(stdout, device_name, alg, o->prec);
    } else {
      printf(",\"regs_per_thread\":%ld,\"smem_per_block\":%ld,"
             "\"smem_per_thread\":%ld",
             o->regs, o->smem, o->smem_per_thread);
    }
    printf(",");
    print_pref_json_fields(stdout, &o->pref);
    printf(",\"best_block\":%d,\"best_warps_per_sm\":%d,\"plot\":",
           best->threads, best->r.warps_per_sm);
    if (png && ran)
      bench_json_string(stdout, png);
    else
      printf("null");
    printf(",\"sweep\":[");
    int first = 1;
    for (int i = 0; i < n; i++) {
      if (!rows[i].valid)
        continue;
      printf("%s\n {\"threads_per_block\":%d,\"smem_per_block\":%ld,",
             first ? "" : ",", rows[i].threads, rows[i].smem);
      first = 0;
      print_result_json_fields(stdout, &rows[i].r);
      if (rows[i].runtime_blocks >= 0)
        printf(",\"runtime_blocks_per_sm\":%d", rows[i].runtime_blocks);
      printf("}");
    }
    printf("\n]}\n");
    return disagree ? CLI_ERR : CLI_OK; /* as the table and --kernel do */
  }
  printf("%s\n%s\n\n", title, subtitle);
  if (ctx)
    printf("%8s %6s %7s %8s %9s  %-28s%s\n", "threads", "warps", "blocks",
           "warps/SM", "occupancy", "limited by", "runtime blocks");
  else
    printf("%8s %6s %7s %8s %9s  %s\n", "threads", "warps", "blocks",
           "warps/SM", "occupancy", "limited by");
  for (int i = 0; i < n; i++) {
    const struct sweep_row *w = &rows[i];
    if (!w->valid) {
      printf("%8d %6s %7s %8s %9s  %s\n", w->threads, "-", "-", "-", "-",
             "cannot launch (shared memory or launch bounds)");
      continue;
    }
    char lim[64];
    limits_text(lim, w->r.limited_by);
    printf("%8d %6d %7d %8d %8.1f%%  ", w->threads, w->r.warps_per_block,
           w->r.blocks_per_sm, w->r.warps_per_sm, 100.0 * w->r.occupancy);
    if (w->runtime_blocks >= 0)
      printf("%-28s%d%s", lim, w->runtime_blocks,
             w->runtime_blocks == w->r.blocks_per_sm ? "" : "  (differs)");
    else if (w == best)
      printf("%-28s", lim);
    else
      printf("%s", lim);
    printf("%s\n", w != best                ? ""
                   : w->runtime_blocks >= 0 ? "  <- best"
                                            : "<- best");
  }
  printf("\nbest: %d threads per block, %d blocks, %d of %d warps per SM "
         "(%.1f%%): the smallest block at the highest occupancy\n",
         best->threads, best->r.blocks_per_sm, best->r.warps_per_sm,
         a->max_warps_per_sm, 100.0 * best->r.occupancy);
  if (ctx)
    printf("CUDA runtime (cudaOccupancyMaxActiveBlocksPerMultiprocessor): "
           "%s\n",
           disagree ? "DIFFERS at some sizes (marked)"
                    : "agrees at every size");
  if (png && ran)
    printf("plot: %s\n", png);
  return disagree ? CLI_ERR : CLI_OK;
}
