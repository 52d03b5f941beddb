/*
 * lab.h — the lab: what a measurement means, shared by `smv bench`,
 * `smv occupancy`, `smv info` and the tests. Built into libsmvlab.a, on top
 * of libsmv.a (the library never depends on it; the CLI does).
 *
 * Pieces:
 *   record.c    one bench_record per (matrix, precision, rung, block): the
 *               field table that drives CSV, JSON and the CSV reader; the
 *               minimal-bytes model; derived rates; the percentile summary;
 *               JSON string escaping;
 *   verify.c    the splitmix64 RNG, the reference and the error bound, the
 *               check;
 *   plot.c      gnuplot data and script, PNG when gnuplot is installed;
 *   markdown.c  Markdown tables for bench/results/;
 *   util.c      output files, gnuplot helpers, error printing, the clock;
 *   cuda/bench.cu  the GPU timing API of include/smv_lab.h (smv_bench_spmv,
 *               smv_device_copy_bandwidth); nocuda/bench.c its stub.
 * The lab may print (to stderr, "smv: ..."); it never calls exit().
 */
#ifndef SMV_LAB_H_INTERNAL
#define SMV_LAB_H_INTERNAL

#include "smv_lab.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" { /* lab/cuda/bench.cu uses the percentile summary */
#endif

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
  char precision[12]; /* smv_precision_name: "f64", "f32", "f64-f32v" */
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
/* The same for a precision whose values and vectors differ in width: V
 * bytes per value, X per element of x and y (f64-f32v: V = 4, X = 8, so
 * nnz * (4 + 4) + (rows + 1) * 4 + cols * 8 + rows * 8 or 16). */
double bench_min_bytes_vx(int64_t rows, int64_t cols, int64_t nnz,
                          int value_bytes, int vector_bytes, int beta_nonzero);
/* Fill the derived rates of one record from its timings. */
void bench_derive(bench_record *r);
/* Speedups over cusparse-alg1 of the same matrix, precision and
 * sweep-ness (ALG1 must have passed); records [from, rs->n). */
void bench_speedups(bench_records *rs, size_t from);

/* Summary of n samples (ms), sorted in place; linear interpolation
 * between order statistics (lab/cuda/bench.cu uses it too). */
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

/* Random vectors: smv_rng (splitmix64, include/smv_lab.h). */
/* Uniform in [-1, -1/64] U [1/64, 1]: mixed signs, never zero. */
double bench_rng_value(smv_rng *g);

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
/* The expectation for precision f64-f32v: the f64 reference on A itself
 * and, per row, twice smv_spmv_f32v_bound (the mode's distance to the
 * exact product plus the reference's own, which that bound also covers),
 * not the usual tolerance. */
smv_status bench_expect_compute_f32v(const smv_csr *A, double alpha,
                                     const double *x, double beta,
                                     const double *y0, bench_expect *e);
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
/* Outputs                                                                   */
/* ------------------------------------------------------------------------ */

/* "smv: <message>" on stderr (lab_verror: the va_list form). */
void lab_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void lab_verror(const char *fmt, va_list ap);
/* CLOCK_MONOTONIC in seconds, for wall-clock intervals. */
double lab_now_s(void);

/* An output file of the lab and the CLI (CSV, JSON, Markdown, plot data
 * and scripts), through smv_file_open: written to a temporary file beside
 * PATH and moved over it only when complete, so a failed write never
 * destroys an existing file (pipes and devices are written in place). On
 * failure prints "smv: PATH: reason" and returns NULL. */
FILE *bench_open_out(const char *path);
/* Checks every write, moves the file into place (f may be NULL: 0); on
 * failure prints why and returns -1, else 0. */
int bench_close_out(FILE *f, const char *path);
/* Text of the timing/bytes model, for the banner, JSON and docs. */
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

/* gnuplot, for the PNG plots of `occupancy --sweep`, `bench --plot` and
 * `solve --plot`: a single-quoted gnuplot string literal ('' escapes a
 * quote); the script's output line (lab_gnuplot_output: PNG, or standard
 * output when the variable smv_stdout is set, which lab_run_gnuplot does);
 * the name of a plot's file, PNG less ".png", "-SUFFIX" (SUFFIX's characters
 * outside [A-Za-z0-9._-] as '_'; none when SUFFIX is NULL or empty) and
 * ".EXT", allocated (free it; NULL, said, when out of memory); whether PATH
 * may be written by a plot (0: a regular file we may write, or a new name;
 * -1, said on stderr: a directory, device, FIFO, symbolic link, ...);
 * whether gnuplot is on PATH; run `gnuplot -e smv_stdout=1 SCRIPT` without a
 * shell, its standard output on a temporary file made by mkstemp beside PNG,
 * then rename that over PNG, so a failed or interrupted run never leaves a
 * partial PNG: 0 on success, a positive errno if the temporary or gnuplot
 * could not be started or the rename failed, -1 if gnuplot failed or wrote
 * nothing, -2 if PNG is not a regular file or new name (said). */
void lab_gnuplot_string(FILE *f, const char *s);
void lab_gnuplot_output(FILE *f, const char *png);
char *lab_plot_name(const char *png, const char *suffix, const char *ext);
int lab_plot_target(const char *path);
int lab_have_gnuplot(void);
int lab_run_gnuplot(const char *script, const char *png);

#ifdef __cplusplus
}
#endif
#endif
