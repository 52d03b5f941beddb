/*
 * test_occupancy_gpu.c — on a real GPU, smv_occupancy against the CUDA
 * runtime's cudaOccupancyMaxActiveBlocksPerMultiprocessor for every kernel
 * of smv's own (every rung with smv_kernel_name(alg) != NULL), f64 and f32,
 * block sizes 32..1024 step 32, with the kernel's real registers and shared
 * memory (smv_kernel_attributes). Also: the device's row of the table
 * agrees with what the driver reports, and the engine's default block size
 * reaches the highest occupancy our model finds. SKIPs without a device.
 */
#include "smv_lab.h"
#include "test.h"
#include "test_cuda_common.h" /* the one device guard */

static smv_context *g_ctx;
static smv_device_props g_props;
static const smv_arch *g_arch;
static const char *g_skip;

static void setup(void) {
  g_ctx = tc_context();
  if (!g_ctx) {
    /* A device that answers but fails is a failure, not a skip. */
    if (tc_ctx_status == SMV_ERR_NO_DEVICE)
      g_skip = "no CUDA device";
    return;
  }
  smv_status st = smv_device_props_get(g_ctx, &g_props);
  if (st != SMV_OK) {
    fprintf(stderr, "smv_device_props_get: %s\n", smv_context_error(g_ctx));
    return;
  }
  g_arch = smv_arch_find(g_props.cc_major, g_props.cc_minor);
  printf("device: %s, CC %d.%d, %d SMs\n", g_props.name, g_props.cc_major,
         g_props.cc_minor, g_props.sm_count);
}

static int ready(void) {
  if (g_skip)
    return 0;
  CHECKF(g_ctx != NULL, "no context although a device answered");
  return g_ctx != NULL;
}

static void test_device_row_matches_driver(void) {
  if (!ready())
    SKIP(g_skip ? g_skip : "no context");
  CHECKF(g_arch != NULL, "CC %d.%d of %s is not in the table", g_props.cc_major,
         g_props.cc_minor, g_props.name);
  if (!g_arch)
    return;
  CHECK_INT(g_arch->max_warps_per_sm * 32, g_props.max_threads_per_sm);
  CHECK_INT(g_arch->regs_per_sm, g_props.regs_per_sm);
  CHECK_INT(g_arch->smem_per_sm, g_props.smem_per_sm);
  CHECK_INT(g_arch->smem_per_block_optin, g_props.smem_per_block_optin);
}

static void test_kernels_against_runtime(void) {
  if (!ready())
    SKIP(g_skip ? g_skip : "no context");
  if (!g_arch)
    SKIP("device not in the table (see test_device_row_matches_driver)");
  long compared = 0, mismatches = 0, beyond_bounds = 0;
  int kernels = 0;
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    smv_alg alg = (smv_alg)a;
    if (!smv_kernel_name(alg))
      continue;
    kernels++;
    for (int p = 0; p < 2; p++) {
      smv_precision prec = p ? SMV_F32 : SMV_F64;
      const char *pn = p ? "f32" : "f64";
      int best_w = 0;
      for (int b = 32; b <= 1024; b += 32) {
        smv_kernel_attrs ka;
        smv_status st = smv_kernel_attributes(g_ctx, alg, prec, b, &ka);
        CHECKF(st == SMV_OK, "%s %s block %d: %s", smv_kernel_name(alg), pn, b,
               smv_context_error(g_ctx));
        if (st != SMV_OK)
          continue;
        if (b > ka.max_threads_per_block) {
          beyond_bounds++;
          continue;
        }
        size_t smem = ka.static_smem_bytes + ka.dynamic_smem_bytes;
        smv_occupancy_result r;
        st = smv_occupancy(g_arch, b, ka.regs_per_thread, smem, &r);
        CHECKF(st == SMV_OK, "%s %s block %d: %d regs, %zu smem: %s",
               smv_kernel_name(alg), pn, b, ka.regs_per_thread, smem,
               smv_status_string(st));
        int rt = -1;
        smv_status st2 = smv_kernel_occupancy_cuda(g_ctx, alg, prec, b, &rt);
        CHECKF(st2 == SMV_OK, "runtime %s %s block %d: %s",
               smv_kernel_name(alg), pn, b, smv_context_error(g_ctx));
        if (st != SMV_OK || st2 != SMV_OK)
          continue;
        compared++;
        if (r.blocks_per_sm != rt) {
          mismatches++;
          fprintf(stderr,
                  "MISMATCH %s %s block %d (%d regs, %zu B static + %zu B "
                  "dynamic smem): smv %d blocks, runtime %d\n",
                  smv_kernel_name(alg), pn, b, ka.regs_per_thread,
                  ka.static_smem_bytes, ka.dynamic_smem_bytes, r.blocks_per_sm,
                  rt);
        }
        if (r.warps_per_sm > best_w)
          best_w = r.warps_per_sm;
      }
      /* The engine's default block reaches the highest occupancy. */
      int def = 0;
      smv_kernel_attrs ka;
      CHECK_OK(smv_kernel_default_block(g_ctx, alg, prec, &def));
      CHECK_OK(smv_kernel_attributes(g_ctx, alg, prec, def, &ka));
      smv_occupancy_result r;
      CHECK_OK(smv_occupancy(g_arch, def, ka.regs_per_thread,
                             ka.static_smem_bytes + ka.dynamic_smem_bytes, &r));
      CHECKF(r.warps_per_sm == best_w,
             "%s %s: default block %d gives %d warps/SM, best is %d",
             smv_kernel_name(alg), pn, def, r.warps_per_sm, best_w);
      printf("%-20s %s: %d registers, default block %d: %d blocks, %d of "
             "%d warps per SM\n",
             smv_kernel_name(alg), pn, ka.regs_per_thread, def, r.blocks_per_sm,
             r.warps_per_sm, r.max_warps_per_sm);
    }
  }
  printf("%s: %d kernels x 2 precisions, %ld configurations compared with "
         "cudaOccupancyMaxActiveBlocksPerMultiprocessor, %ld mismatches "
         "(%ld sizes beyond a kernel's launch bounds)\n",
         g_props.name, kernels, compared, mismatches, beyond_bounds);
  CHECK(kernels >= 1);
  CHECK(compared > 0);
  CHECK_INT(mismatches, 0);
}

int main(void) {
  setup();
  RUN(test_device_row_matches_driver);
  RUN(test_kernels_against_runtime);
  smv_context_free(g_ctx);
  return TEST_END();
}
