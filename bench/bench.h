/*
 * bench.h — the benchmark driver behind `smv bench` (compiled into the CLI).
 *
 * Pieces:
 *   record.c  one bench_record per (matrix, precision, rung, block): the
 *             field table that drives CSV, JSON and the CSV reader; the
 *             minimal-bytes model; derived rates; CPU-side timing summary;
 *   verify.c  random vectors, the reference and the error bound, the check;
 *   gpu.c     verify-then-time on the GPU (smv_bench_spmv), block sweep with
 *             the calculated occupancy;
 *   cpu.c     the same on the CPU path (smv_spmv_cpu / _f32) when there is
 *             no GPU, with wall-clock timing;
 *   report.c  banner and fixed-width tables;
 *   plot.c    gnuplot data and script, PNG when gnuplot is installed;
 *   markdown.c  Markdown tables for bench/results/;
 *   main.c    bench_main: backend choice, the loop over matrices, outputs.
 */
#ifndef SMV_BENCH_H
#define SMV_BENCH_H

#include "smv.h"

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

typedef struct {
  char **matrices; /* files or generator specs */
  int nmatrices;
  smv_alg algs[SMV_ALG_COUNT + 1]; /* rungs to run, in order */
  int nalgs;
  int block;      /* 0: each rung's default; else every rung at this size */
  int sweep;      /* --block sweep: 32..1024 step 32 for our kernels */
  int precisions; /* BENCH_F64 | BENCH_F32 */
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
  int argc;             /* the command line, for the banner */
  char **argv;
} bench_config;

/* Runs the benchmark; returns the CLI exit code (0 ok, 1 error, and 1 when
 * any rung failed verification). Prints as it goes. */
int bench_main(const bench_config *cfg);

/* ------------------------------------------------------------------------ */
/* Records                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
  /* where and what */
  char label[64];
  char device[256]; /* GPU name, or "cpu: <model>, N threads" */
  char commit[48];
  char date[32];   /* ISO 8601 UTC, of the run */
  char backend[8]; /* "cuda" or "cpu" */
  char matrix[256];
  int64_t rows, cols, nnz;
  char precision[4]; /* "f64" / "f32" */
  char alg[32];
  int block; /* threads per block launched (0: not ours / not known) */
  int sweep; /* 1: a point of the block sweep */
  /* verification */
  char verify[8];   /* "PASS", "FAIL" or "ERROR" */
  double err_ratio; /* max_i |y - ref|_i / bound_i (PASS: <= 1) */
  double alpha, beta;
  /* timing */
  double bytes; /* minimal-bytes model for one SpMV */
  smv_timing warm, flushed, graph;
  int graph_batch;
  double flush_bytes;
  double copy_gbps; /* device copy bandwidth measured in this run */
  /* derived (bench_derive, bench_speedups) */
  double warm_gbps, flushed_gbps, graph_gbps;
  double warm_pct_copy, flushed_pct_copy, graph_pct_copy;
  double warm_gflops, flushed_gflops, graph_gflops;
  double warm_speedup_alg1, flushed_speedup_alg1, graph_speedup_alg1;
  /* the kernel's resources and occupancy at `block` (ours only) */
  int regs;
  int64_t smem_bytes;    /* static + dynamic per block */
  int occ_blocks_per_sm; /* smv_occupancy: calculated */
  int occ_warps_per_sm;
  int occ_max_warps;
  double occupancy;        /* calculated, 0..1 */
  char occ_limited_by[32]; /* "warps+regs", ... */
  int cuda_blocks_per_sm;  /* cudaOccupancyMaxActiveBlocksPerMultiprocessor */
  char note[256];          /* error text or remark */
} bench_record;

typedef struct {
  bench_record *v;
  size_t n, cap;
} bench_records;

/* A record with every number unset (NaN / -1 / ""). */
void bench_record_init(bench_record *r);
/* Append a copy; returns 0 or -1 when out of memory. */
int bench_records_push(bench_records *rs, const bench_record *r);
void bench_records_free(bench_records *rs);
/* Distinct values of the string member at offset `off` (e.g.
 * offsetof(bench_record, alg)) among records with this sweep flag, matrix
 * and precision (NULL: any), in first-seen order; at most `max` into out
 * (pointers into rs). Returns the count. */
int bench_distinct(const bench_records *rs, size_t off, int sweep,
                   const char *matrix, const char *prec, const char **out,
                   int max);
/* The first record with this sweep flag, matrix, precision, alg and block
 * (block < 0: any), or NULL. */
const bench_record *bench_find(const bench_records *rs, int sweep,
                               const char *matrix, const char *prec,
                               const char *alg, int block);

/* Minimal bytes one SpMV must move: values and column indices once
 * (nnz * (V + 4)), row pointers once ((rows + 1) * 4), x once (cols * V),
 * y written once (rows * V) when beta = 0, read and written (2 * rows * V)
 * otherwise. V = 8 for f64, 4 for f32. */
double bench_min_bytes(int64_t rows, int64_t cols, int64_t nnz, int value_bytes,
                       int beta_nonzero);
/* Fill the derived rates of one record from its timings. */
void bench_derive(bench_record *r);
/* Speedups over cusparse-alg1 of the same matrix, precision and
 * sweep-ness (ALG1 must have passed); records [from, rs->n). */
void bench_speedups(bench_records *rs, size_t from);

/* Summary of n samples (ms), sorted in place; linear interpolation
 * between order statistics, as src/cuda/bench.cu does. */
void bench_summarise(double *ms, int n, smv_timing *t);

/* CSV: a header line naming every field, one line per record. Fields with
 * commas or quotes are quoted ("" inside). Unset numbers are empty. */
void bench_csv_header(FILE *f);
void bench_csv_row(FILE *f, const bench_record *r);
/* Read a CSV written by bench_csv_*: columns matched by name (unknown ones
 * ignored, missing ones unset). Returns 0, or -1 with a message in err
 * ("FILE:LINE: reason"). */
int bench_csv_read(const char *path, bench_records *rs, char *err, size_t errn);
/* One JSON object with every field (unset numbers are null). */
void bench_json_record(FILE *f, const bench_record *r, const char *indent);
/* JSON string literal of s (quotes included). */
void bench_json_string(FILE *f, const char *s);

/* ------------------------------------------------------------------------ */
/* Verification                                                              */
/* ------------------------------------------------------------------------ */

/* splitmix64 stream: deterministic for a seed, independent of the platform. */
typedef struct {
  uint64_t s;
} bench_rng;
uint64_t bench_rng_next(bench_rng *g);
/* Uniform in [-1, -1/64] U [1/64, 1]: mixed signs, never zero. */
double bench_rng_value(bench_rng *g);

/* The expected result of y = alpha*A*x + beta*y0 and its error bound
 * bound_i = c * eps * (len_i + 2) * (|alpha| (|A||x|)_i + |beta y0_i|),
 * c = BENCH_BOUND_C, eps the machine epsilon of the precision. For f32 the
 * caller passes A, x, y0, alpha and beta already rounded to float (the
 * reference is then computed exactly as the GPU sees the data). y0 may be
 * NULL when beta = 0. */
#define BENCH_BOUND_C 2.0
typedef struct {
  int64_t n;
  double *ref;
  double *bound;
} bench_expect;
smv_status bench_expect_compute(const smv_csr *A, double alpha, const double *x,
                                double beta, const double *y0, double eps,
                                bench_expect *e);
void bench_expect_free(bench_expect *e);
/* Check y against e: returns the number of rows outside the bound (NaN is
 * always outside), the worst |y - ref| / bound in *worst (Inf when a row
 * with bound 0 differs) and the first bad row in *first_bad (-1 if none). */
int64_t bench_check(const bench_expect *e, const double *y, double *worst,
                    int64_t *first_bad);
/* bench_check of y into r: verify "PASS" or "FAIL" (the note then names
 * the count and the first bad row, after the prefix `when`); err_ratio
 * keeps the worst of this and any earlier check of r. Returns 1 on PASS. */
int bench_judge(const bench_expect *e, const double *y, bench_record *r,
                const char *when);
/* A copy of A with values rounded to float (stored as double). */
smv_status bench_csr_round_f32(const smv_csr *A, smv_csr **B);

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
  bench_rng rng;
} bench_run;

/* Init r and fill what a result is of: label, device, commit, date and
 * backend from the run; matrix name and shape, precision, alg, alpha, beta,
 * the minimal bytes and the run's copy bandwidth. */
void bench_record_start(bench_record *r, const bench_run *run,
                        const char *matrix, const smv_csr *A,
                        smv_precision prec, const char *alg, double alpha,
                        double beta);

/* One matrix, one precision, every configured rung (or the sweep): records
 * appended to rs. Returns 0, or -1 on an error that stops the run (already
 * printed); a rung that fails verification is a FAIL record, not an error. */
int bench_gpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs);
int bench_gpu_sweep(bench_run *run, const char *name, const smv_csr *A,
                    smv_precision prec, bench_records *rs);
int bench_cpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs);
/* Fill the record's block, regs, smem and occupancy fields for one of our
 * kernels at `block` (0 = the engine's default). */
void bench_gpu_occupancy(bench_run *run, smv_alg alg, smv_precision prec,
                         int block, bench_record *r);

/* Named suites of matrices (suite.c). bench_suite_dir: the directory of
 * real matrices, from --matrices (opt_dir) or SMV_MATRICES, or NULL.
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

/* The plan of a device matrix (plan.c): AUTO's rung, heuristic or
 * measured, the reason, the analysis times against cuSPARSE's preprocess
 * alone, the device memory held and, if measured, each candidate's time. */
void bench_plan_print(FILE *f, const char *name, smv_precision prec,
                      const smv_matrix *dA);

/* ------------------------------------------------------------------------ */
/* Reports                                                                   */
/* ------------------------------------------------------------------------ */

/* fopen(path, "w"); on failure prints "smv: PATH: reason" and returns
 * NULL. */
FILE *bench_open_out(const char *path);
/* fclose(f) (f may be NULL); on a write error prints "smv: PATH: write
 * error" and returns -1, else 0. */
int bench_close_out(FILE *f, const char *path);

void bench_banner(FILE *f, const bench_run *run);
/* The ladder table of records [from, to) (one matrix). */
void bench_table(FILE *f, const bench_records *rs, size_t from, size_t to);
/* The sweep table of records [from, to) (one matrix and precision). */
void bench_sweep_table(FILE *f, const bench_records *rs, size_t from,
                       size_t to);
/* Text of the timing/bytes model, for the banner and docs. */
extern const char bench_model_text[];

/* PNG(s) from the records: the block sweep (time and calculated occupancy
 * against block size, one image per matrix and precision) when there are
 * sweep records, else the ladder (effective GB/s and speedup over cuSPARSE
 * ALG1 per matrix and rung, one image per precision). Writes PATH.dat and
 * PATH.gp beside each PNG and runs gnuplot when installed; otherwise says
 * how to get it. Returns 0, or -1 on a write error (printed). */
int bench_plot(const bench_records *rs, const char *png);

/* Markdown tables of every result: per precision and mode (warm, flushed,
 * graph) median us per matrix and rung with our best rung's speedup over
 * cuSPARSE ALG1, % of copy bandwidth; per sweep matrix and precision, time
 * and calculated occupancy per block size. */
void bench_markdown(FILE *f, const bench_records *rs);

#endif
