/*
 * bench.h — the benchmark driver behind `smv bench` (part of the CLI; the
 * records, verification, timing, plots and Markdown it uses are the lab's,
 * lab/lab.h).
 *
 * Pieces:
 *   bench_gpu.c     verify-then-time on the GPU (smv_bench_spmv), block
 *                   sweep with the calculated occupancy;
 *   bench_cpu.c     the same on the CPU path (smv_spmv_cpu / _f32) when
 *                   there is no GPU, with wall-clock timing;
 *   bench_report.c  banner and fixed-width tables;
 *   bench_main.c    bench_main: backend choice, the loop over matrices,
 *                   outputs.
 */
#ifndef SMV_BENCH_H
#define SMV_BENCH_H

#include "lab.h"

#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------------------ */
/* Configuration (filled by cli/cmd_bench.c)                                 */
/* ------------------------------------------------------------------------ */

typedef enum {
  BENCH_BACKEND_AUTO = 0, /* CUDA when a device answers, else the CPU */
  BENCH_BACKEND_CUDA,
  BENCH_BACKEND_CPU
} bench_backend;

#define BENCH_F64 1
#define BENCH_F32 2
#define BENCH_F32V 4 /* SMV_F64_F32V: a device mode, never in "both" */

typedef struct {
  char **matrices; /* files or generator specs */
  int nmatrices;
  smv_alg algs[SMV_ALG_COUNT + 1]; /* rungs to run, in order */
  int nalgs;
  int block;      /* 0: each rung's default; else every rung at this size */
  int sweep;      /* --block sweep: 32..1024 step 32 for our kernels */
  int precisions; /* BENCH_F64 | BENCH_F32 | BENCH_F32V */
  smv_bench_options opt;
  bench_backend backend;
  int device;
  uint64_t seed;        /* of the random vectors */
  const char *csv;      /* may be NULL */
  const char *json;     /* may be NULL */
  const char *plot;     /* PNG path, may be NULL */
  const char *markdown; /* Markdown tables, may be NULL */
  const char *from_csv; /* re-report a saved CSV instead of running */
  const char *label;    /* free text stored with every record */
  int quiet;            /* no per-matrix tables (banner and summary only) */
  int tune;             /* --tune: AUTO planned by measurement        */
  int alg_given;        /* --alg on the command line (CPU: a note)    */
  int argc;             /* the command line, for the banner */
  char **argv;
  /* --reuse [N]: its flag and expected_calls, added to every matrix's
   * options (zero: none). */
  smv_matrix_options reuse;
} bench_config;

/* Runs the benchmark; returns the CLI exit code (0 ok, 1 error, and 1 when
 * any rung failed verification). Prints as it goes. */
int bench_main(const bench_config *cfg);

/* ------------------------------------------------------------------------ */
/* Runners                                                                   */
/* ------------------------------------------------------------------------ */

/* What every record of a run shares (filled by main.c). */
typedef struct {
  const bench_config *cfg;
  char device[256];
  char commit[48];
  char date[32];
  double copy_gbps; /* NaN on the CPU path */
  smv_context *ctx; /* NULL on the CPU path */
  smv_device_props props;
  smv_rng rng;
} bench_run;

/* Init r and fill what a result is of: label, device, commit, date and
 * backend from the run; matrix name and shape, precision, alg, alpha, beta,
 * the minimal bytes and the run's copy bandwidth. */
void bench_record_start(bench_record *r, const bench_run *run,
                        const char *matrix, const smv_csr *A,
                        smv_precision prec, const char *alg, double alpha,
                        double beta);

/* One matrix, one precision, every configured rung (or, with cfg->sweep,
 * the block sweep): records appended to rs. Returns 0, or -1 on an error
 * that stops the run (already printed); a rung that fails verification is a
 * FAIL record, not an error. bench_cpu_matrix: the same without a GPU. */
int bench_gpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs);
int bench_cpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs);
/* Fill the record's block, regs, smem and occupancy fields for one of our
 * kernels at `block` (0 = the size an SpMV with it on dA launches). */
void bench_gpu_occupancy(bench_run *run, const smv_matrix *dA, smv_alg alg,
                         smv_precision prec, int block, bench_record *r);

/* ------------------------------------------------------------------------ */
/* Reports                                                                   */
/* ------------------------------------------------------------------------ */
void bench_banner(FILE *f, const bench_run *run);
/* The ladder table of records [from, to) (one matrix). */
void bench_table(FILE *f, const bench_records *rs, size_t from, size_t to);
/* The sweep table of records [from, to) (one matrix and precision). */
void bench_sweep_table(FILE *f, const bench_records *rs, size_t from,
                       size_t to);
/* Text of the timing/bytes model, for the banner and docs. */

/* Named suites of matrices (bench_suite.c). bench_suite_dir: the directory
 * of real matrices, from --matrices (opt_dir) or SMV_MATRICES, or NULL.
 * bench_suite_expand: the suite's matrices (specs, then the directory's
 * .mtx/.mtx.gz files for "real" and "issue8"), newly allocated (free with
 * bench_suite_free); returns a CLI exit code (usage error for an unknown
 * suite). bench_suite_list: every suite with its matrices and sizes. */
const char *bench_suite_dir(const char *opt_dir);
int bench_suite_expand(const char *name, const char *dir, char ***out,
                       int *count);
void bench_suite_free(char **v, int n);
int bench_suite_list(FILE *f, const char *dir);
/* The --suite hook of cmd_bench: "list" prints the suites (returns the exit
 * code); otherwise appends the suite's matrices to *mats (realloc'ed),
 * hands the strings to *owned (bench_suite_free them after the run) and
 * returns -1 to go on, or an exit code on error. */
int bench_suite_add(const char *name, const char *opt_dir, char ***mats,
                    int *nmats, char ***owned, int *nowned);

/* Named SpMM suites (bench_spmm_suite.c) for `smv bench-spmm --suite`:
 * matrices (NULL-terminated specs), column counts, precisions, layouts,
 * algorithms (0: AUTO and cuSPARSE's; 1: every one) and whether the real
 * matrices of a directory join (0 no, 1 required, 2 when given). */
typedef struct {
  const char *name, *what;
  const char *specs[10];
  int ks[8];
  int nk;
  int f32_only, row_only, all_algs, real;
} bench_spmm_suite;
const bench_spmm_suite *bench_spmm_suite_find(const char *name);
void bench_spmm_suite_list(FILE *f);

/* The plan of a device matrix (bench_plan.c): AUTO's rung, heuristic or
 * measured, the reason, the analysis times against cuSPARSE's preprocess
 * alone, the device memory held and, if measured, each candidate's time. */
void bench_plan_print(FILE *f, const char *name, smv_precision prec,
                      const smv_matrix *dA);

#endif
