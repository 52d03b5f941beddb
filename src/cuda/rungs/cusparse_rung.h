/*
 * cusparse_rung.h — what rungs 7 and 8 (cuSPARSE CSR ALG1 and ALG2) share,
 * defined in spmv_7_cusparse.cu: the state of one algorithm on one matrix
 * (a matrix descriptor, two vector descriptors and the preprocessed
 * buffer), its set-up, release and bytes, and the run. Private to
 * src/cuda/rungs.
 */
#ifndef SMV_CUDA_CUSPARSE_RUNG_H
#define SMV_CUDA_CUSPARSE_RUNG_H

#include "engine.h"

/* Algorithm i (0: CSR_ALG1, 1: CSR_ALG2) on m into *state: descriptors,
 * buffer (cusparseSpMV_bufferSize bytes) and one cusparseSpMV_preprocess,
 * synchronised. *state stays NULL for a matrix without entries, and on
 * error (nothing left allocated). */
smv_status smv_cusparse_setup(smv_context *ctx, smv_matrix *m, int i,
                              void **state);
void smv_cusparse_release(void *state);
size_t smv_cusparse_device_bytes(const smv_matrix *m, const void *state);
/* y = alpha A x + beta y with the state's algorithm (no allocation). */
smv_status smv_cusparse_run(smv_context *ctx, smv_matrix *m, void *state,
                            double alpha, const void *x, double beta, void *y);

/* The descriptor of a cuSPARSE rung: no kernel of ours, its state made
 * by `setup`, run by cusparseSpMV. */
static constexpr struct smv_rung
smv_cusparse_rung(smv_alg alg,
                  smv_status (*setup)(smv_context *ctx, smv_matrix *m,
                                      const smv_csr *A, void **state)) {
  struct smv_rung r = smv_base_rung(alg);
  r.setup = setup;
  r.release = smv_cusparse_release;
  r.device_bytes = smv_cusparse_device_bytes;
  r.run = smv_cusparse_run;
  return r;
}

#endif
