/*
 * cpu.c — the benchmark's CPU path (no GPU, or --backend cpu): the same
 * verification as on the GPU, then wall-clock timing (CLOCK_MONOTONIC)
 * of smv_spmv_cpu (OpenMP, f64), smv_spmv_cpu_f32 (f32) and, for
 * reference, the serial oracle smv_spmv_ref (f64). No L2 flush and no
 * graphs here: those modes are GPU-only and stay empty in the output.
 */
#include "bench.h"
#include "cli.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { CPU_OMP = 0, CPU_SERIAL = 1 } cpu_kind;

typedef struct {
  const smv_csr *A;
  smv_precision prec;
  cpu_kind kind;
  double alpha, beta;
  double *x, *y;  /* f64 */
  float *xf, *yf; /* f32 */
} cpu_job;

static smv_status cpu_run(cpu_job *j) {
  if (j->prec == SMV_F32)
    return smv_spmv_cpu_f32(j->A, (float)j->alpha, j->xf, (float)j->beta,
                            j->yf);
  if (j->kind == CPU_SERIAL)
    return smv_spmv_ref(j->A, j->alpha, j->x, j->beta, j->y);
  return smv_spmv_cpu(j->A, j->alpha, j->x, j->beta, j->y);
}

/* Warm-up, an estimation run for max_seconds, then `runs` timed runs. */
static smv_status cpu_time(cpu_job *j, const smv_bench_options *o,
                           smv_timing *t) {
  memset(t, 0, sizeof *t);
  smv_status st = SMV_OK;
  for (int i = 0; i < o->warmup && st == SMV_OK; i++)
    st = cpu_run(j);
  double t0 = lab_now_s();
  if (st == SMV_OK)
    st = cpu_run(j);
  double est_s = lab_now_s() - t0;
  if (st != SMV_OK)
    return st;
  int n = o->runs;
  if (o->max_seconds > 0 && est_s > 0 && n > 5 &&
      (double)n * est_s > o->max_seconds) {
    n = (int)(o->max_seconds / est_s);
    if (n < 5)
      n = 5;
  }
  double *ms = malloc((size_t)n * sizeof *ms);
  if (!ms)
    return SMV_ERR_NOMEM;
  for (int i = 0; i < n && st == SMV_OK; i++) {
    double a = lab_now_s();
    st = cpu_run(j);
    ms[i] = (lab_now_s() - a) * 1e3;
  }
  if (st == SMV_OK)
    bench_summarise(ms, n, t);
  free(ms);
  return st;
}

/* y as double in out (f64: the job already writes there). */
static void result_as_double(const cpu_job *j, double *out) {
  if (j->prec != SMV_F32)
    return;
  for (int64_t i = 0; i < j->A->rows; i++)
    out[i] = (double)j->yf[i];
}

int bench_cpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs) {
  const smv_bench_options *o = &run->cfg->opt;
  size_t nx = (size_t)(A->cols ? A->cols : 1),
         ny = (size_t)(A->rows ? A->rows : 1);
  double alpha = o->alpha, beta = o->beta, eps = DBL_EPSILON;
  if (prec == SMV_F32) {
    alpha = (float)alpha;
    beta = (float)beta;
    eps = FLT_EPSILON;
  }
  cpu_job j = {A, prec, CPU_OMP, alpha, beta, NULL, NULL, NULL, NULL};
  if (cli_vectors_fit(name, A, 28, 12, "x and y") != CLI_OK)
    return -1;
  double *xd = malloc(nx * sizeof *xd), *y0 = malloc(ny * sizeof *y0),
         *yd = malloc(ny * sizeof *yd);
  smv_csr *Af = NULL;
  bench_expect ex = {0, NULL, NULL};
  int rc = 0;
  j.x = xd;
  j.y = yd;
  if (prec == SMV_F32) {
    j.xf = malloc(nx * sizeof *j.xf);
    j.yf = malloc(ny * sizeof *j.yf);
  }
  if (!xd || !y0 || !yd || (prec == SMV_F32 && (!j.xf || !j.yf)) ||
      (prec == SMV_F32 && bench_csr_round_f32(A, &Af) != SMV_OK)) {
    cli_error("%s: out of memory for the CPU benchmark", name);
    rc = -1;
  }
  /* The serial oracle timed against itself would prove nothing about
   * correctness, but its time is the baseline the OpenMP path must beat. */
  const struct {
    cpu_kind kind;
    const char *alg;
  } kinds[] = {{CPU_OMP, "cpu"}, {CPU_SERIAL, "cpu-serial"}};
  int nkinds = prec == SMV_F32 ? 1 : 2;
  for (int k = 0; k < nkinds && rc == 0; k++) {
    bench_record r;
    bench_record_start(&r, run, name, A, prec, kinds[k].alg, alpha, beta);
    j.kind = kinds[k].kind;
    for (int64_t i = 0; i < A->cols; i++) {
      double v = bench_rng_value(&run->rng);
      xd[i] = prec == SMV_F32 ? (double)(float)v : v;
      if (j.xf)
        j.xf[i] = (float)v;
    }
    for (int64_t i = 0; i < A->rows; i++) {
      double v = bench_rng_value(&run->rng);
      y0[i] = prec == SMV_F32 ? (double)(float)v : v;
    }
    bench_expect_free(&ex);
    smv_status st = bench_expect_compute(Af ? Af : A, alpha, xd, beta,
                                         beta != 0 ? y0 : NULL, eps, &ex);
    if (st != SMV_OK) {
      cli_error("%s: reference: %s", name, smv_status_string(st));
      rc = -1;
      break;
    }
    for (int64_t i = 0; i < A->rows; i++) { /* poison, or y0 */
      double v = beta != 0 ? y0[i] : NAN;
      if (j.yf)
        j.yf[i] = (float)v;
      else
        yd[i] = v;
    }
    st = cpu_run(&j);
    if (st != SMV_OK) {
      snprintf(r.verify, sizeof r.verify, "ERROR");
      snprintf(r.note, sizeof r.note, "%s", smv_status_string(st));
    } else {
      result_as_double(&j, yd);
      bench_judge(&ex, yd, &r, "");
    }
    if (strcmp(r.verify, "PASS") == 0) {
      st = cpu_time(&j, o, &r.warm);
      if (st != SMV_OK)
        snprintf(r.note, sizeof r.note, "timing: %s", smv_status_string(st));
      if (st == SMV_OK && beta == 0) {
        result_as_double(&j, yd);
        bench_judge(&ex, yd, &r, "after the timed runs: ");
        if (strcmp(r.verify, "PASS") != 0)
          memset(&r.warm, 0, sizeof r.warm);
      }
    }
    bench_derive(&r);
    if (bench_records_push(rs, &r) != 0) {
      cli_error("out of memory");
      rc = -1;
    }
  }
  bench_expect_free(&ex);
  smv_csr_free(Af);
  free(xd);
  free(y0);
  free(yd);
  free(j.xf);
  free(j.yf);
  return rc;
}
