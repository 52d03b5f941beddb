/*
 * test_cuda_context.c — the engine's context and matrix API: creation
 * (and its clean, fast failure without a device, which is what CI sees),
 * properties, memory helpers, block sizes, kernel introspection, argument
 * and matrix validation with their error texts.
 */
#include "test_cuda_common.h"

#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs everywhere: with a device it must succeed, without one it must
 * fail with SMV_ERR_NO_DEVICE, quickly, leaving *ctx NULL and a reason. */
static void test_create_or_no_device(void) {
  smv_context *ctx = (smv_context *)&ctx; /* garbage that must be cleared */
  double t0 = now_s();
  smv_status st = smv_context_create(0, &ctx);
  double dt = now_s() - t0;
  if (st == SMV_ERR_NO_DEVICE) {
    CHECK(ctx == NULL);
    CHECK(strlen(smv_context_error(NULL)) > 0);
    CHECKF(dt < 5.0, "failing took %.2f s", dt);
    /* Twice in a row: no state left behind. */
    CHECK_STATUS(smv_context_create(0, &ctx), SMV_ERR_NO_DEVICE);
    CHECK(ctx == NULL);
    smv_context_free(NULL); /* NULL-safe */
    smv_matrix_free(NULL);
    return;
  }
  CHECK_OK(st);
  CHECK(ctx != NULL);
  CHECK(smv_context_error(ctx)[0] == '\0'); /* no error yet */
  CHECK_STATUS(smv_context_create(0, NULL), SMV_ERR_ARG);
  smv_context *bad = NULL;
  CHECK_STATUS(smv_context_create(-1, &bad), SMV_ERR_ARG);
  CHECK(bad == NULL);
  CHECK_STATUS(smv_context_create(4096, &bad), SMV_ERR_NO_DEVICE);
  CHECK(bad == NULL);
  CHECK_STR_HAS(smv_context_error(NULL), "4096");
  smv_context_free(ctx);
}

static void test_props(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_device_props p;
  CHECK_OK(smv_device_props_get(ctx, &p));
  CHECK(strlen(p.name) > 0);
  CHECK(p.cc_major >= 6);
  CHECK(p.sm_count > 0);
  CHECK(p.global_mem_bytes > ((int64_t)1 << 30));
  CHECK(p.l2_bytes > 0);
  CHECK(p.max_threads_per_sm >= 1024);
  CHECK(p.regs_per_sm >= 32768);
  CHECK(p.smem_per_sm > 0);
  CHECK(p.clock_khz > 0);
  CHECK(p.mem_clock_khz > 0);
  CHECK(p.mem_bus_bits > 0);
  CHECK(p.runtime_version >= 12000);
  CHECK(p.driver_version >= p.runtime_version / 1000 * 1000 - 1000);
  fprintf(stderr, "device: %s, CC %d.%d, %d SMs, runtime %d, driver %d\n",
          p.name, p.cc_major, p.cc_minor, p.sm_count, p.runtime_version,
          p.driver_version);
  CHECK_STATUS(smv_device_props_get(ctx, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_device_props_get(NULL, &p), SMV_ERR_ARG);
}

static void test_memory_helpers(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  enum { N = 1000 };
  double h[N], back[N];
  tc_fill(h, N);
  void *d = NULL;
  CHECK_OK(smv_device_malloc(ctx, sizeof h, &d));
  CHECK(d != NULL);
  CHECK_OK(smv_memcpy_h2d(ctx, d, h, sizeof h));
  memset(back, 0, sizeof back);
  CHECK_OK(smv_memcpy_d2h(ctx, back, d, sizeof back));
  CHECK(memcmp(h, back, sizeof h) == 0);
  CHECK_OK(smv_synchronize(ctx));
  smv_device_free(ctx, d);
  smv_device_free(ctx, NULL);
  void *z = &z;
  CHECK_OK(smv_device_malloc(ctx, 0, &z));
  CHECK(z == NULL);
  CHECK_OK(smv_memcpy_h2d(ctx, NULL, NULL, 0));
  CHECK_STATUS(smv_memcpy_h2d(ctx, NULL, h, 8), SMV_ERR_ARG);
  /* An impossible allocation: a clear NOMEM with the byte count. */
  void *huge = NULL;
  CHECK_STATUS(smv_device_malloc(ctx, (size_t)1 << 60, &huge), SMV_ERR_NOMEM);
  CHECK(huge == NULL);
  CHECK_STR_HAS(smv_context_error(ctx),
                "cudaMalloc of 1152921504606846976 bytes");
  /* ... and the context still works afterwards. */
  CHECK_OK(smv_device_malloc(ctx, 64, &d));
  smv_device_free(ctx, d);
  CHECK_OK(smv_synchronize(ctx));
}

static void test_streams_and_blocks(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  void *own = smv_context_stream(ctx);
  CHECK(own != NULL);
  CHECK_OK(smv_context_set_stream(ctx, NULL));
  CHECK(smv_context_stream(ctx) == own);
  CHECK_STATUS(smv_context_set_block_size(ctx, 31), SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "block size 31");
  CHECK_STATUS(smv_context_set_block_size(ctx, 1056), SMV_ERR_ARG);
  CHECK_STATUS(smv_context_set_block_size(ctx, 100), SMV_ERR_ARG);
  CHECK_OK(smv_context_set_block_size(ctx, 64));
  CHECK_OK(smv_context_set_block_size(ctx, 0));
}

static void test_kernels(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    for (int p = 0; p < 2; p++) {
      smv_precision prec = p ? SMV_F32 : SMV_F64;
      int block = -1;
      smv_status st = smv_kernel_default_block(ctx, (smv_alg)a, prec, &block);
      if (!smv_kernel_name((smv_alg)a)) {
        CHECK_STATUS(st, SMV_ERR_NOT_FOUND);
        smv_kernel_attrs at;
        CHECK_STATUS(smv_kernel_attributes(ctx, (smv_alg)a, prec, 0, &at),
                     SMV_ERR_NOT_FOUND);
        continue;
      }
      CHECK_OK(st);
      CHECKF(block >= 32 && block <= 1024 && block % 32 == 0,
             "%s: default block %d", smv_kernel_name((smv_alg)a), block);
      smv_kernel_attrs at;
      CHECK_OK(smv_kernel_attributes(ctx, (smv_alg)a, prec, 0, &at));
      CHECK(at.regs_per_thread > 0 && at.regs_per_thread <= 255);
      CHECK(at.max_threads_per_block >= block);
      CHECK(at.binary_version > 0 && at.ptx_version > 0);
      /* No spills; rung 12 in f32 spills 4 bytes at its 40 registers (the
       * cap that fits 6 blocks of 256 per SM; measured with the spill). */
      if (a == SMV_ALG_HOT && p)
        CHECKF(at.local_bytes <= 8, "hot f32: %zu local bytes", at.local_bytes);
      else
        CHECK_INT(at.local_bytes, 0);
      smv_kernel_attrs at256;
      CHECK_OK(smv_kernel_attributes(ctx, (smv_alg)a, prec, 256, &at256));
      /* The shared-memory rungs launch with one partial per thread. */
      if (a == SMV_ALG_VECTOR || a == SMV_ALG_VECTOR_TEX ||
          a == SMV_ALG_VECTOR_LDG)
        CHECK_INT(at256.dynamic_smem_bytes, 256 * (p ? 4 : 8));
      else if (a == SMV_ALG_HOT) /* room for the largest hot set */
        CHECK_INT(at256.dynamic_smem_bytes, p ? 12 * 1024 : 8 * 1024);
      else if (a == SMV_ALG_PIPE) /* three stages of 2048-entry tiles */
        CHECKF(at256.dynamic_smem_bytes > 48 * 1024 &&
                   at256.dynamic_smem_bytes < 100 * 1024,
               "pipe %s: %zu bytes of stages", p ? "f32" : "f64",
               at256.dynamic_smem_bytes);
      else
        CHECK_INT(at256.dynamic_smem_bytes, 0);
      int n = 0;
      CHECK_OK(smv_kernel_occupancy_cuda(ctx, (smv_alg)a, prec, block, &n));
      CHECK(n >= 1);
      /* The default has the highest occupancy of all sizes. */
      for (int b = 32; b <= at.max_threads_per_block; b += 32) {
        int nb = 0;
        CHECK_OK(smv_kernel_occupancy_cuda(ctx, (smv_alg)a, prec, b, &nb));
        CHECKF(nb * b <= n * block,
               "%s %s: block %d gives %d warps, default "
               "%d gives %d",
               smv_kernel_name((smv_alg)a), p ? "f32" : "f64", b, nb * b / 32,
               block, n * block / 32);
      }
      fprintf(stderr, "%-20s %s: %d regs, default block %d, %d blocks/SM\n",
              smv_kernel_name((smv_alg)a), p ? "f32" : "f64",
              at.regs_per_thread, block, n);
    }
  }
  smv_kernel_attrs at;
  CHECK_STATUS(smv_kernel_attributes(ctx, SMV_ALG_VECTOR, SMV_F64, 2048, &at),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_kernel_attributes(ctx, SMV_ALG_VECTOR, SMV_F64, 0, NULL),
               SMV_ERR_ARG);
  int n;
  CHECK_STATUS(
      smv_kernel_occupancy_cuda(ctx, SMV_ALG_CUSPARSE_ALG1, SMV_F64, 128, &n),
      SMV_ERR_NOT_FOUND);
}

static void test_matrix_validation(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_matrix *dA = (smv_matrix *)&dA;
  CHECK_STATUS(smv_matrix_create(ctx, NULL, SMV_F64, &dA), SMV_ERR_ARG);
  CHECK(dA == NULL);
  smv_csr *A = tst_generate("rand:50:4,cols=30");
  if (!A)
    return;
  CHECK_STATUS(smv_matrix_create(ctx, A, (smv_precision)7, &dA), SMV_ERR_ARG);
  /* A column index out of range. */
  int32_t keep = A->col_idx[17];
  A->col_idx[17] = 30;
  CHECK_STATUS(smv_matrix_create(ctx, A, SMV_F64, &dA), SMV_ERR_INVALID_MATRIX);
  CHECK(dA == NULL);
  CHECK_STR_HAS(smv_context_error(ctx), "invalid CSR matrix");
  A->col_idx[17] = keep;
  /* Row offsets going backwards. */
  smv_offset k = A->row_ptr[10];
  A->row_ptr[10] = A->row_ptr[11] + 1;
  CHECK_STATUS(smv_matrix_create(ctx, A, SMV_F32, &dA), SMV_ERR_INVALID_MATRIX);
  A->row_ptr[10] = k;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));

  /* smv_spmv argument checks. */
  void *dx = NULL, *dy = NULL;
  CHECK_OK(smv_device_malloc(ctx, 30 * sizeof(double), &dx));
  CHECK_OK(smv_device_malloc(ctx, 50 * sizeof(double), &dy));
  CHECK_STATUS(smv_spmv(NULL, SMV_ALG_AUTO, 1, dA, dx, 0, dy), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv(ctx, SMV_ALG_AUTO, 1, NULL, dx, 0, dy), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv(ctx, (smv_alg)99, 1, dA, dx, 0, dy), SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "unknown alg 99");
  CHECK_STATUS(smv_spmv(ctx, SMV_ALG_AUTO, 1, dA, NULL, 0, dy), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv(ctx, SMV_ALG_AUTO, 1, dA, dx, 0, NULL), SMV_ERR_ARG);
  /* A refused allocation just before must not make the next SpMV look
   * failed (a stale cudaGetLastError would). */
  void *huge = NULL;
  CHECK_STATUS(smv_device_malloc(ctx, (size_t)1 << 60, &huge), SMV_ERR_NOMEM);
  /* alpha = 0 never needs x. */
  CHECK_OK(smv_spmv(ctx, SMV_ALG_AUTO, 0, dA, NULL, 0, dy));
  CHECK_OK(smv_synchronize(ctx));
  double y[50];
  CHECK_OK(smv_memcpy_d2h(ctx, y, dy, sizeof y));
  int zeros = 1;
  for (int i = 0; i < 50; i++)
    zeros &= y[i] == 0.0;
  CHECK(zeros);
  CHECK_STATUS(smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1, dA, NULL, 0, y),
               SMV_ERR_ARG);
  /* The error names the function under its own name. */
  CHECK_STR_HAS(smv_context_error(ctx), "smv_spmv_host_vectors: x is NULL");
  smv_device_free(ctx, dx);
  smv_device_free(ctx, dy);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

/* Free the context first, the matrix after: the matrix must not need it. */
static void test_free_order(void) {
  TC_NEED_DEVICE();
  smv_context *c2 = NULL;
  CHECK_OK(smv_context_create(0, &c2));
  smv_csr *A = NULL;
  smv_error err;
  CHECK_OK(smv_generate("lap2d:20", &A, &err));
  smv_matrix *dA = NULL;
  if (c2 && A)
    CHECK_OK(smv_matrix_create(c2, A, SMV_F32, &dA));
  smv_context_free(c2);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_create_or_no_device);
  RUN(test_props);
  RUN(test_memory_helpers);
  RUN(test_streams_and_blocks);
  RUN(test_kernels);
  RUN(test_matrix_validation);
  RUN(test_free_order);
  smv_context_free(tc_ctx);
  return TEST_END();
}
