/*
 * spmv_8_cusparse_alg2.cu — rung 8: cuSPARSE's generic SpMV with
 * CUSPARSE_SPMV_CSR_ALG2, documented by NVIDIA as giving the same bits run
 * to run (deterministic), where ALG1 (rung 7) does not promise it. How
 * smv uses cuSPARSE (set-up, capture, thread safety): spmv_7_cusparse.cu,
 * whose code this rung shares (cusparse_rung.h).
 * Where it loses: a little slower than ALG1 on most matrices (the bench
 * times both; bench/results/h100-80gb-hbm3/ladder.md).
 */
#include "cusparse_rung.h"

static smv_status setup(smv_context *ctx, smv_matrix *m, const smv_csr *,
                        void **state) {
  return smv_cusparse_setup(ctx, m, 1, state);
}

const struct smv_rung smv_rung_cusparse_alg2 =
    smv_cusparse_rung(SMV_ALG_CUSPARSE_ALG2, setup);
