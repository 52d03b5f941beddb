/* occupancy.h — the pieces of `smv occupancy`, internal to the CLI:
 * cmd_occupancy.c (help, options, architecture, modes), occupancy_print.c
 * (text and JSON, the request checks, the sweep's gnuplot files) and
 * occupancy_sweep.c (the block-size sweep). */
#ifndef SMV_CLI_OCCUPANCY_H
#define SMV_CLI_OCCUPANCY_H

#include "cli.h"

#include <stdio.h>

#define CMD "occupancy"

struct opts {
  const char *cc, *kernel, *plot;
  long threads, regs, smem, smem_per_thread, device;
  int have_threads, have_regs, have_smem;
  int sweep, no_plot, list, json;
  smv_occupancy_options pref;
  smv_precision prec;
};

struct sweep_row {
  int threads;
  int valid;
  smv_occupancy_result r;
  long smem;
  int runtime_blocks; /* -1: not asked (no device) */
};

/* "none", "shared", "l1", "equal": --cache-config's names. */
extern const char *cache_names[];

void occ_help(FILE *f);
int parse_bytes(const char *s, long *v);
int parse_carveout(const char *s, int *c);
int parse_cache(const char *s, smv_cache_config *c);
int occ_unknown(void *user, const char *arg);
int parse_args(int argc, char **argv, struct opts *o);
void known_ccs(char *buf, size_t n);
int open_device(const struct opts *o, smv_context **ctx, smv_device_props *p);
int arch_of_device(const smv_device_props *p, const smv_arch **arch);
int arch_of_string(const char *cc, const smv_arch **arch);
void print_limits_json(FILE *f, unsigned bits);
const char *limits_text(char buf[64], unsigned bits);
void json_count(FILE *f, const char *key, int v);
void print_result_json_fields(FILE *f, const smv_occupancy_result *r);
void print_arch_json_fields(FILE *f, const smv_arch *a);
const char *prec_name(smv_precision p);
void print_kernel_json_fields(FILE *f, const char *device, smv_alg alg,
                              smv_precision prec);
void print_pref_json_fields(FILE *f, const smv_occupancy_options *p);
void fmt_count(char *buf, size_t n, int v);
void print_result_text(const smv_arch *a, int threads, int regs, long smem,
                       const smv_occupancy_options *p,
                       const smv_occupancy_result *r);
int check_request(const smv_arch *a, long threads, long regs, long smem);
int write_plot(const char *png, const char *title, const char *subtitle,
               const smv_arch *a, const struct sweep_row *rows, int n,
               const struct sweep_row *best, int with_runtime, int *ran);
int do_list(const struct opts *o);
int do_single(const struct opts *o, const smv_arch *a, const char *device_name);
int sweep_rows(const struct opts *o, const smv_arch *a, smv_context *ctx,
               smv_alg alg, struct sweep_row *rows, int *nrows);
int do_sweep(const struct opts *o, const smv_arch *a, smv_context *ctx,
             smv_alg alg, const char *device_name);
int do_kernel_single(const struct opts *o, const smv_arch *a, smv_context *ctx,
                     smv_alg alg, const char *device_name);

#endif
