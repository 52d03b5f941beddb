/*
 * test_cuda_packed.c — rung 13 (packed) on the device, f64 and f32, on the
 * corner cases of its format (test_pack_cases.h: every tile wide, narrow
 * and wide tiles mixed, spans of exactly 65535 and 65536, runs of empty
 * rows, rows longer than a tile, 10 x 300000, 100000 x 3, local columns
 * past 65536, nnz = 0, 1 x 1, generated matrices) and past the L2:
 *   - against the serial reference (test_cuda_common.h's bound) for five
 *     alpha/beta cases, y poisoned with NaN where beta = 0 and x NaN where
 *     alpha = 0, through device pointers (x and y 3 elements into their
 *     buffers) and smv_spmv_host_vectors;
 *   - bit for bit against rung 10 at the same block size (the same tiles,
 *     products and order of the sums), at blocks of 64, 256 and 1024;
 *   - its device bytes (less than CSR's index bytes on local columns) and
 *     that the tuner times it (a tuned rung since it was verified here).
 * SKIPs without a device. Its set-up is lazy here (the host CSR is not
 * passed), so the columns are copied back from the device and packed.
 */
#include "test_cuda_common.h"
#include "test_pack_cases.h"

/* Both checks on one matrix (tc_both_precisions' fn). */
static void check_packed(smv_context *ctx, smv_matrix *dA, const smv_csr *A,
                         int ncases, const char *label) {
  tc_ab_run(ctx, dA, A, SMV_ALG_PACKED, ncases, label);
  tc_same_bits(dA, A, SMV_ALG_TILED, SMV_ALG_PACKED, label);
}

static void test_cases(void) {
  TC_NEED_DEVICE();
  for (int c = 0; c < TPC_NCASES; c++) {
    const char *label = "";
    smv_csr *A = tpc_case(c, &label);
    if (!A)
      continue;
    tc_both_precisions(A, label, TC_NAB, check_packed);
    smv_csr_free(A);
  }
}

/* Past the L2 (the evict-first loads, tiles of 2048 / 4096 entries):
 * local columns far past 65536 (every tile narrow), a row of 300000
 * entries among them (pieces), and scattered columns (every tile wide). */
static void test_past_l2(void) {
  TC_NEED_DEVICE();
  const char *specs[] = {"band:1500000:4", "denserow:1500000:8,cols=300000",
                         "rand:1000000:16,cols=2000000"};
  tc_specs_both(specs, 3, 2, check_packed);
}

/* Device bytes: on local columns rung 13 holds 2 bytes per entry and per
 * row (+ 16 per tile, 16-byte aligned sections): less than CSR's int32
 * columns and offsets; released with the matrix; not yet a tuner
 * candidate. */
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
    CHECK_OK(smv_matrix_prepare(ctx, dA, SMV_ALG_PACKED));
    const size_t held = smv_matrix_device_bytes(dA) - before;
    const size_t lo = (size_t)A->nnz * 2 + (size_t)A->rows * 2;
    const size_t csr_idx = (size_t)A->nnz * 4 + (size_t)A->rows * 4;
    /* tiles of 512 entries here: 16 bytes per tile is nnz / 32 */
    CHECKF(held >= lo && held < lo + (size_t)A->nnz / 8 && held < csr_idx,
           "rung 13 holds %zu bytes (2 per entry and row: %zu)", held, lo);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_PACKED, 1.0, 0.0, 0, 3, "lap3d:40"),
              0);
    /* A tuner candidate since it was verified here (the tuner does not
     * check results): timed once; prepared above, so kept whatever wins,
     * and AUTO's result still matches the reference. AUTO's rule alone
     * never picks it (test_cuda_reuse.c). */
    CHECK(smv_alg_tuned(SMV_ALG_PACKED));
    CHECK_INT(tc_tune_timed(ctx, dA, SMV_ALG_PACKED), 1);
    CHECK(smv_matrix_device_bytes(dA) >= before + held);
    CHECK_INT(tc_case(ctx, dA, A, SMV_ALG_AUTO, 1.0, 0.0, 0, 0, "lap3d:40"), 0);
    smv_matrix_free(dA);
  }
  smv_csr_free(A);
}

int main(void) {
  RUN(test_cases);
  RUN(test_bytes_and_tuner);
  RUN(test_past_l2);
  return TEST_END();
}
