/*
 * gpu.c — verify, then time, every rung on the GPU; the block sweep.
 *
 * Per rung: a fresh random x (and y0 when beta != 0), the reference and
 * bound from smv_spmv_ref / smv_spmv_ref_abs, y poisoned with NaN when
 * beta = 0 (so an unwritten row fails), one smv_spmv, every element
 * checked. Only a PASS is timed (smv_bench_spmv); with beta = 0 the result
 * left in y by the last timed run is checked again, so a kernel that goes
 * wrong under repetition (a race, a stale texture) is a FAIL too.
 * f32: the reference is built from the float-rounded matrix, x, y0, alpha
 * and beta, in double, so only the kernel's own rounding is measured.
 * f64-f32v: the reference is the f64 one on the matrix as given, and the
 * bound the mode's documented one (bench_expect_compute_f32v): the
 * values' rounding is part of what is checked. Only the rungs that run
 * the mode (smv_alg_runs_precision) are timed; cuSPARSE is not prepared.
 */
#include "bench.h"
#include "cli.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  bench_run *run;
  const char *name;
  const smv_csr *A;
  smv_csr *Af; /* float-rounded copy (f32), else NULL */
  smv_precision prec;
  smv_matrix *dA;
  void *dx, *dy;
  size_t vb; /* bytes per value on the device */
  double *x, *y0, *yh;
  float *stage; /* f32 conversions, max(rows, cols) */
  double alpha, beta, eps;
  bench_expect ex;
} gpu_job;

static const smv_csr *job_ref_matrix(const gpu_job *j) {
  return j->Af ? j->Af : j->A;
}

static void job_close(gpu_job *j) {
  smv_context *ctx = j->run->ctx;
  smv_device_free(ctx, j->dx);
  smv_device_free(ctx, j->dy);
  smv_matrix_free(j->dA);
  smv_csr_free(j->Af);
  free(j->x);
  free(j->y0);
  free(j->yh);
  free(j->stage);
  bench_expect_free(&j->ex);
  memset(j, 0, sizeof *j);
}

static int job_open(gpu_job *j, bench_run *run, const char *name,
                    const smv_csr *A, smv_precision prec) {
  memset(j, 0, sizeof *j);
  j->run = run;
  j->name = name;
  j->A = A;
  j->prec = prec;
  if (cli_vectors_fit(name, A, 36, 12, "x and y") != CLI_OK)
    return -1;
  j->vb = prec == SMV_F32 ? sizeof(float) : sizeof(double); /* x, y */
  j->alpha = run->cfg->opt.alpha;
  j->beta = run->cfg->opt.beta;
  j->eps = DBL_EPSILON;
  if (prec == SMV_F32) {
    j->alpha = (float)j->alpha;
    j->beta = (float)j->beta;
    j->eps = FLT_EPSILON;
  }
  const char *what = "";
  smv_status st = SMV_OK;
  if (prec == SMV_F32 && (st = bench_csr_round_f32(A, &j->Af)) != SMV_OK) {
    what = "rounding the matrix to float";
    goto fail;
  }
  /* The bench times cuSPARSE too: both prepared at analysis (so their
   * preprocess times are in the plan record, and graph capture works). */
  smv_matrix_options mo = run->cfg->reuse; /* --reuse, else zero */
  if (prec != SMV_F64_F32V)                /* cuSPARSE does not run f64-f32v */
    mo.flags |= SMV_MATRIX_CUSPARSE;
  if (run->cfg->tune)
    mo.flags |= SMV_MATRIX_TUNE;
  /* Rung 12 is timed with its hot columns when it is in the list. */
  for (int a = 0; a < run->cfg->nalgs; a++)
    if (run->cfg->algs[a] == SMV_ALG_HOT && prec != SMV_F64_F32V)
      mo.flags |= SMV_MATRIX_HOT;
  if ((st = smv_matrix_create_ex(run->ctx, A, prec, &mo, &j->dA)) != SMV_OK) {
    what = "smv_matrix_create";
    goto fail;
  }
  size_t nx = (size_t)A->cols, ny = (size_t)A->rows;
  size_t nmax = nx > ny ? nx : ny;
  j->x = malloc((nx ? nx : 1) * sizeof(double));
  j->y0 = malloc((ny ? ny : 1) * sizeof(double));
  j->yh = malloc((ny ? ny : 1) * sizeof(double));
  j->stage = malloc((nmax ? nmax : 1) * sizeof(float));
  if (!j->x || !j->y0 || !j->yh || !j->stage) {
    st = SMV_ERR_NOMEM;
    what = "host vectors";
    goto fail;
  }
  if ((st = smv_device_malloc(run->ctx, (nx ? nx : 1) * j->vb, &j->dx)) !=
          SMV_OK ||
      (st = smv_device_malloc(run->ctx, (ny ? ny : 1) * j->vb, &j->dy)) !=
          SMV_OK) {
    what = "device vectors";
    goto fail;
  }
  return 0;
fail:
  cli_error("%s (%s): %s: %s%s%s", name, smv_precision_name(prec), what,
            smv_status_string(st), run->ctx ? ": " : "",
            run->ctx ? smv_context_error(run->ctx) : "");
  job_close(j);
  return -1;
}

/* Fresh x (and y0), rounded to float for f32, and the expectation. */
static smv_status job_new_vectors(gpu_job *j) {
  const smv_csr *A = j->A;
  for (int64_t i = 0; i < A->cols; i++) {
    double v = bench_rng_value(&j->run->rng);
    j->x[i] = j->prec == SMV_F32 ? (double)(float)v : v;
  }
  for (int64_t i = 0; i < A->rows; i++) {
    double v = bench_rng_value(&j->run->rng);
    j->y0[i] = j->prec == SMV_F32 ? (double)(float)v : v;
  }
  bench_expect_free(&j->ex);
  if (j->prec == SMV_F64_F32V)
    return bench_expect_compute_f32v(j->A, j->alpha, j->x, j->beta,
                                     j->beta != 0 ? j->y0 : NULL, &j->ex);
  return bench_expect_compute(job_ref_matrix(j), j->alpha, j->x, j->beta,
                              j->beta != 0 ? j->y0 : NULL, j->eps, &j->ex);
}

static smv_status upload(gpu_job *j, void *dst, const double *src, int64_t n) {
  if (n == 0)
    return SMV_OK;
  if (j->prec != SMV_F32) /* double x and y in f64 and f64-f32v */
    return smv_memcpy_h2d(j->run->ctx, dst, src, (size_t)n * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    j->stage[i] = (float)src[i];
  return smv_memcpy_h2d(j->run->ctx, dst, j->stage, (size_t)n * sizeof(float));
}

static smv_status download_y(gpu_job *j) {
  int64_t n = j->A->rows;
  if (n == 0)
    return SMV_OK;
  if (j->prec != SMV_F32)
    return smv_memcpy_d2h(j->run->ctx, j->yh, j->dy,
                          (size_t)n * sizeof(double));
  smv_status st =
      smv_memcpy_d2h(j->run->ctx, j->stage, j->dy, (size_t)n * sizeof(float));
  for (int64_t i = 0; st == SMV_OK && i < n; i++)
    j->yh[i] = (double)j->stage[i];
  return st;
}

static void spmv_error(gpu_job *j, bench_record *r, const char *what,
                       smv_status st) {
  snprintf(r->verify, sizeof r->verify, "ERROR");
  snprintf(r->note, sizeof r->note, "%s: %s: %s", what, smv_status_string(st),
           smv_context_error(j->run->ctx));
}

/* One verified run: poison/y0 in, smv_spmv, check. 1 = PASS. */
static int verify_once(gpu_job *j, smv_alg alg, bench_record *r) {
  smv_context *ctx = j->run->ctx;
  int64_t ny = j->A->rows;
  smv_status st = upload(j, j->dx, j->x, j->A->cols);
  if (st == SMV_OK) {
    if (j->beta != 0) {
      st = upload(j, j->dy, j->y0, ny);
    } else { /* NaN everywhere: rows the kernel skips cannot pass */
      for (int64_t i = 0; i < ny; i++)
        j->yh[i] = NAN;
      st = upload(j, j->dy, j->yh, ny);
    }
  }
  if (st != SMV_OK) {
    spmv_error(j, r, "uploading x and y", st);
    return 0;
  }
  st = smv_spmv(ctx, alg, j->alpha, j->dA, j->dx, j->beta, j->dy);
  if (st == SMV_OK)
    st = smv_synchronize(ctx);
  if (st == SMV_OK)
    st = download_y(j);
  if (st != SMV_OK) {
    spmv_error(j, r, "smv_spmv", st);
    return 0;
  }
  return bench_judge(&j->ex, j->yh, r, "");
}

static const char *limits_text(unsigned bits, char *buf, size_t n) {
  static const struct {
    unsigned bit;
    const char *name;
  } names[] = {{SMV_LIMIT_WARPS, "warps"},
               {SMV_LIMIT_BLOCKS, "blocks"},
               {SMV_LIMIT_REGS, "regs"},
               {SMV_LIMIT_SMEM, "smem"}};
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (bits & names[i].bit) {
      size_t len = strlen(buf);
      snprintf(buf + len, n - len, "%s%s", len ? "+" : "", names[i].name);
    }
  return buf;
}

void bench_gpu_occupancy(bench_run *run, const smv_matrix *dA, smv_alg alg,
                         smv_precision prec, int block, bench_record *r) {
  if (!smv_kernel_name(alg))
    return;
  if (block <= 0 &&
      smv_matrix_launch_block(run->ctx, dA, alg, &block) != SMV_OK)
    return;
  r->block = block;
  smv_kernel_attrs a;
  if (smv_kernel_attributes(run->ctx, alg, prec, block, &a) != SMV_OK)
    return;
  r->regs = a.regs_per_thread;
  r->smem_bytes = (int64_t)(a.static_smem_bytes + a.dynamic_smem_bytes);
  const smv_arch *arch =
      smv_arch_find(run->props.cc_major, run->props.cc_minor);
  smv_occupancy_result o;
  if (arch && smv_occupancy(arch, block, a.regs_per_thread,
                            (size_t)r->smem_bytes, &o) == SMV_OK) {
    r->occ_blocks_per_sm = o.blocks_per_sm;
    r->occ_warps_per_sm = o.warps_per_sm;
    r->occ_max_warps = o.max_warps_per_sm;
    r->occupancy = o.occupancy;
    limits_text(o.limited_by, r->occ_limited_by, sizeof r->occ_limited_by);
  }
  int bps = 0;
  if (smv_kernel_occupancy_cuda(run->ctx, alg, prec, block, &bps) == SMV_OK)
    r->cuda_blocks_per_sm = bps;
}

/* Verify, time, re-check; fills r. opt: the timing options to use. */
static void verify_and_time(gpu_job *j, smv_alg alg,
                            const smv_bench_options *opt, bench_record *r) {
  if (!verify_once(j, alg, r))
    return; /* FAIL or ERROR: never timed */
  smv_bench_result res;
  smv_status st =
      smv_bench_spmv(j->run->ctx, alg, j->dA, j->dx, j->dy, opt, &res);
  r->warm = res.warm;
  r->flushed = res.flushed;
  r->graph = res.graph;
  r->graph_batch = res.graph.runs > 0 ? opt->graph_batch : 0;
  r->flush_bytes = res.flushed.runs > 0 ? (double)res.flush_bytes : NAN;
  if (st != SMV_OK) /* modes timed before the failure keep their numbers */
    snprintf(r->note, sizeof r->note, "timing: %.200s",
             res.error[0] ? res.error : smv_status_string(st));
  if (j->beta == 0) { /* y = alpha*A*x again after any number of runs */
    smv_status dst = smv_synchronize(j->run->ctx);
    if (dst == SMV_OK)
      dst = download_y(j);
    if (dst != SMV_OK) {
      spmv_error(j, r, "reading y after the timed runs", dst);
    } else if (!bench_judge(&j->ex, j->yh, r, "after the timed runs: ")) {
      /* wrong under repetition: the times are not a result */
      memset(&r->warm, 0, sizeof r->warm);
      memset(&r->flushed, 0, sizeof r->flushed);
      memset(&r->graph, 0, sizeof r->graph);
    }
  }
  bench_derive(r);
}

/* Fresh x (and y0) and the expectation; -1 (printed) when that fails. */
static int job_fresh(gpu_job *j) {
  smv_status st = job_new_vectors(j);
  if (st == SMV_OK)
    return 0;
  cli_error("%s: reference: %s", j->name, smv_status_string(st));
  return -1;
}

static int push_record(bench_records *rs, const bench_record *r) {
  if (bench_records_push(rs, r) == 0)
    return 0;
  cli_error("out of memory");
  return -1;
}

/* Every configured rung at the configured block size, each on fresh
 * vectors. */
static int gpu_rungs(gpu_job *j, bench_records *rs) {
  bench_run *run = j->run;
  const bench_config *cfg = run->cfg;
  size_t from = rs->n;
  int rc = 0;
  if (!cfg->quiet)
    bench_plan_print(stdout, j->name, j->prec, j->dA);
  for (int k = 0; k < cfg->nalgs && rc == 0; k++) {
    smv_alg alg = cfg->algs[k];
    if (!smv_alg_runs_precision(alg, j->prec))
      continue; /* f64-f32v: only rungs 2, 9, 10 and AUTO */
    bench_record r;
    bench_record_start(&r, run, j->name, j->A, j->prec, smv_alg_name(alg),
                       j->alpha, j->beta);
    /* Set the rung up first (its first call would), so the block its plan
     * launches with is the one reported. A failure is not lost: the timed
     * call below tries again and reports it. */
    (void)smv_matrix_prepare(run->ctx, j->dA, alg);
    bench_gpu_occupancy(run, j->dA, alg, j->prec, cfg->block, &r);
    smv_matrix_plan_info plan;
    if (alg == SMV_ALG_AUTO && smv_matrix_plan(j->dA, &plan) == SMV_OK)
      snprintf(r.note, sizeof r.note, "AUTO = %s (%s)", smv_alg_name(plan.alg),
               plan.measured ? "measured" : "heuristic");
    if (job_fresh(j) != 0) {
      rc = -1;
      break;
    }
    verify_and_time(j, alg, &cfg->opt, &r);
    rc = push_record(rs, &r);
  }
  bench_speedups(rs, from);
  return rc;
}

/* Our kernels at every block size 32..1024 (step 32). */
static int gpu_sweep(gpu_job *j, bench_records *rs) {
  bench_run *run = j->run;
  const bench_config *cfg = run->cfg;
  /* One fresh x per matrix and precision: 6 rungs x 32 sizes would
   * otherwise spend most of the sweep in the serial reference. y is still
   * poisoned before every verified run. */
  if (job_fresh(j) != 0)
    return -1;
  smv_bench_options opt = cfg->opt;
  opt.graph_batch = 0; /* the sweep is about the kernel, not the launch */
  int rc = 0;
  for (int k = 0; k < cfg->nalgs && rc == 0; k++) {
    smv_alg alg = cfg->algs[k];
    if (!smv_kernel_name(alg) || !smv_alg_runs_precision(alg, j->prec))
      continue; /* cuSPARSE and auto: no block size of ours */
    for (int b = 32; b <= 1024 && rc == 0; b += 32) {
      bench_record r;
      bench_record_start(&r, run, j->name, j->A, j->prec, smv_alg_name(alg),
                         j->alpha, j->beta);
      r.sweep = 1;
      r.block = b;
      smv_status st = smv_context_set_block_size(run->ctx, b);
      if (st != SMV_OK) {
        spmv_error(j, &r, "smv_context_set_block_size", st);
      } else {
        bench_gpu_occupancy(run, j->dA, alg, j->prec, b, &r);
        verify_and_time(j, alg, &opt, &r);
      }
      rc = push_record(rs, &r);
    }
  }
  smv_context_set_block_size(run->ctx, cfg->block);
  return rc;
}

int bench_gpu_matrix(bench_run *run, const char *name, const smv_csr *A,
                     smv_precision prec, bench_records *rs) {
  gpu_job j;
  if (job_open(&j, run, name, A, prec) != 0)
    return -1;
  int rc = run->cfg->sweep ? gpu_sweep(&j, rs) : gpu_rungs(&j, rs);
  job_close(&j);
  return rc;
}
