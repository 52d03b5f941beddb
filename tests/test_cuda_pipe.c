/*
 * test_cuda_pipe.c — rung 14 (pipe) on the device, f64 and f32, at 2, 3
 * and 4 stages and with the L2 prefetch hint, on the corner cases rung
 * 13's format is checked on (test_pack_cases.h: runs of empty rows, rows
 * longer than a tile, 10 x 300000, 100000 x 3, nnz = 0, 1 x 1, generated
 * matrices: they hit the ends of the copies too) and past the L2:
 *   - against the serial reference (test_cuda_common.h's bound) for the
 *     alpha/beta cases, y poisoned with NaN where beta = 0 and x NaN where
 *     alpha = 0, through device pointers (x and y 3 elements into their
 *     buffers) and smv_spmv_host_vectors;
 *   - bit for bit against rung 10 at blocks of 64, 256 and 1024: the same
 *     tiles (SMV_TILE_TOP=2048 makes both rungs' largest tile 2048), the
 *     same products and order of the sums;
 *   - its device bytes, and that the tuner does not time it (a loss).
 * The knobs (SMV_PIPE_STAGES, SMV_PIPE_L2PF) are read at set-up, so each
 * setting is set before the matrices are made. SKIPs without a device.
 */
#include "test_cuda_common.h"
#include "test_pack_cases.h"

/* Both checks on one matrix (tc_both_precisions' fn). */
static void check_pipe(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                       int ncases, const char *label) {
  tc_ab_run(ctx, dA, A, SMV_ALG_PIPE, ncases, label);
  tc_same_bits(dA, A, SMV_ALG_TILED, SMV_ALG_PIPE, label);
}

/* Every corner case at `stages` stages (and prefetch hint pf). */
static void cases_at(const char *stages, const char *pf, int ncases) {
  setenv("SMV_PIPE_STAGES", stages, 1);
  setenv("SMV_PIPE_L2PF", pf, 1);
  for (int c = 0; c < TPC_NCASES; c++) {
    const char *label = "";
    smv_csr *A = tpc_case(c, &label);
    if (!A)
      continue;
    char what[160];
    snprintf(what, sizeof what, "%s (%s stages, prefetch %s)", label, stages,
             pf);
    tc_both_precisions(A, what, ncases, check_pipe);
    smv_csr_free(A);
  }
  unsetenv("SMV_PIPE_STAGES");
  unsetenv("SMV_PIPE_L2PF");
}

static void test_cases(void) {
  TC_NEED_DEVICE();
  cases_at("3", "0", TC_NAB);
  cases_at("2", "0", 2);
  cases_at("4", "256", 2);
}

/* Past the L2 (evict-first copies, tiles of 2048): local columns, a row of
 * 300000 entries among short ones (pieces), scattered columns, and a band
 * whose rows (65 entries) make few rows per tile. */
static void test_past_l2(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"band:1500000:4", "denserow:1500000:8,cols=300000",
                         "rand:1000000:16,cols=2000000", "band:600000:32"};
  tc_specs_both(specs, 4, 2, check_pipe);
}

/* Device bytes: its own tile list and 8 bytes a tile of ranges, far less
 * than the matrix; not a tuner candidate (a measured loss): the tuner
 * does not time it, and AUTO's result still matches the reference after
 * tuning. */
static void test_bytes_and_tuner(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap3d:40");
  if (!A)
    return;
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  if (dA) {
    const size_t before = smv_matrix_device_bytes(dA);
    CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_PIPE));
    const size_t held = smv_matrix_device_bytes(dA) - before;
    CHECKF(held > 0 && held < (size_t)A->nnz / 8,
           "rung 14 holds %zu bytes for %lld entries", held, (long long)A->nnz);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_PIPE, 1.0, 0.0, 0, 3, "lap3d:40"), 0);
    CHECK(!smv_alg_tuned(SMV_ALG_PIPE));
    CHECK_INT(tc_tune_timed(ctx, dA, SMV_ALG_PIPE), 0);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 0, 0, "lap3d:40"), 0);
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

int main(void) {
  /* Rung 10's largest tile is 4096 in f32 (and in f64 on rows of 32 or
   * more staged as quads on some devices); rung 14's 2048: the same cut
   * for the bits. */
  setenv("SMV_TILE_TOP", "2048", 1);
  RUN(test_cases);
  RUN(test_past_l2);
  RUN(test_bytes_and_tuner);
  return TEST_END();
}
