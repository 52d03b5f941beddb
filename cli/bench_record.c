/*
 * bench_record.c — bench_record_start: what every record of a run shares
 * (label, device, commit, date, backend, the matrix, the byte model). A
 * leaf of the benchmark driver: the runners (bench_gpu.c, bench_cpu.c)
 * call it, and nothing here calls back into bench_main.c.
 */
#include "bench.h"

#include <stdio.h>

void bench_record_start(bench_record *r, const bench_run *run,
                        const char *matrix, const smv_csr *A,
                        smv_precision prec, const char *alg, double alpha,
                        double beta) {
  bench_record_init(r);
  snprintf(r->label, sizeof r->label, "%s",
           run->cfg->label ? run->cfg->label : "");
  snprintf(r->device, sizeof r->device, "%s", run->device);
  snprintf(r->commit, sizeof r->commit, "%s", run->commit);
  snprintf(r->date, sizeof r->date, "%s", run->date);
  snprintf(r->backend, sizeof r->backend, "%s", run->ctx ? "cuda" : "cpu");
  snprintf(r->matrix, sizeof r->matrix, "%s", matrix);
  r->rows = A->rows;
  r->cols = A->cols;
  r->nnz = A->nnz;
  snprintf(r->precision, sizeof r->precision, "%s", smv_precision_name(prec));
  snprintf(r->alg, sizeof r->alg, "%s", alg);
  r->alpha = alpha;
  r->beta = beta;
  /* f64-f32v: 4-byte values, 8-byte x and y. */
  r->bytes =
      bench_min_bytes_vx(A->rows, A->cols, A->nnz, prec == SMV_F64 ? 8 : 4,
                         prec == SMV_F32 ? 4 : 8, beta != 0);
  r->copy_gbps = run->copy_gbps; /* NaN on the CPU path */
}
