/*
 * analyse.h — the analysis step both matrix constructors share (src/cuda
 * only): smv_matrix_create_ex uploads a host CSR (matrix.cu),
 * smv_matrix_create_device copies device CSR arrays (matrix_device.cu);
 * both then fill m->st and call smv_matrix_analyse for the rungs' set-up,
 * the plan, cuSPARSE and tuning.
 */
#ifndef SMV_CUDA_ANALYSE_H
#define SMV_CUDA_ANALYSE_H

#include "engine.h"

/* m: the device arrays, prec, opts and st filled. A: rows, cols, nnz and
 * host row offsets (col_idx and values are not read and may be NULL).
 * Runs inside the caller's device guard; on failure m is released. */
smv_status smv_matrix_analyse(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                              const smv_matrix_options *opt);

#endif
