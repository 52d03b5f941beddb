/*
 * test_cuda_matrix_device.c — smv_matrix_create_device (matrix_device.cu):
 * a matrix from CSR arrays already on the GPU gives the same plan and the
 * same products as smv_matrix_create from the host arrays, owns its
 * arrays (the source freed right after), converts values between
 * precisions, and refuses bad offsets, out-of-range columns and host
 * pointers with SMV_ERR_ARG and a message naming them. Without a device
 * (CI) the call fails cleanly.
 */
#include "test_cuda_common.h"

static void test_no_device_clean(void) {
  smv_matrix *dA = (smv_matrix *)&dA;
  int32_t rp[2] = {0, 0};
  smv_status st = smv_matrix_create_device(NULL, 1, 1, 0, rp, NULL, NULL,
                                           SMV_F64, SMV_F64, NULL, &dA);
  CHECK(st == SMV_ERR_ARG || st == SMV_ERR_NO_DEVICE);
  CHECK(dA == NULL);
}

/* Copies of A's arrays on the device (values as doubles or floats). */
struct dev_csr {
  void *rp, *ci, *v;
};

static void upload(smv_context *ctx, const smv_csr *A, int f32,
                   struct dev_csr *d) {
  const size_t nnz = (size_t)A->nnz;
  CHECK_OK(smv_device_malloc(ctx, ((size_t)A->rows + 1) * 4, &d->rp));
  CHECK_OK(smv_device_malloc(ctx, nnz * 4 + 4, &d->ci));
  CHECK_OK(smv_device_malloc(ctx, nnz * 8 + 8, &d->v));
  CHECK_OK(smv_memcpy_h2d(ctx, d->rp, A->row_ptr, ((size_t)A->rows + 1) * 4));
  if (nnz) {
    CHECK_OK(smv_memcpy_h2d(ctx, d->ci, A->col_idx, nnz * 4));
    if (f32) {
      float *f = (float *)malloc(nnz * 4);
      for (size_t k = 0; k < nnz; k++)
        f[k] = (float)A->values[k];
      CHECK_OK(smv_memcpy_h2d(ctx, d->v, f, nnz * 4));
      free(f);
    } else {
      CHECK_OK(smv_memcpy_h2d(ctx, d->v, A->values, nnz * 8));
    }
  }
}

static void release(smv_context *ctx, struct dev_csr *d) {
  smv_device_free(ctx, d->rp);
  smv_device_free(ctx, d->ci);
  smv_device_free(ctx, d->v);
}

static void test_matches_host(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {
      "lap2d:30",        "plaw:3000:8", "rand:500:4,cols=900", "empty:5:7",
      "denserow:2000:4", "band:3000:0", "rmat:10:8,perm=rand"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
    smv_csr *A = tst_generate(specs[s]);
    for (int prec = 0; prec < 2; prec++)
      for (int vf32 = 0; vf32 < 2; vf32++) {
        struct dev_csr d;
        upload(ctx, A, vf32, &d);
        smv_matrix *dev = NULL, *host = NULL;
        CHECK_OK(smv_matrix_create_device(
            ctx, A->rows, A->cols, A->nnz, (const int32_t *)d.rp,
            (const int32_t *)d.ci, d.v, vf32 ? SMV_F32 : SMV_F64,
            (smv_precision)prec, NULL, &dev));
        release(ctx, &d); /* the matrix owns copies */
        smv_csr *B = A;
        if (vf32) { /* the host matrix from the same rounded values */
          CHECK_OK(smv_csr_copy(A, &B));
          for (int64_t k = 0; k < B->nnz; k++)
            B->values[k] = (double)(float)B->values[k];
        }
        CHECK_OK(smv_matrix_create(ctx, B, (smv_precision)prec, &host));
        int64_t r, c, n;
        smv_matrix_dims(dev, &r, &c, &n);
        CHECK(r == A->rows && c == A->cols && n == A->nnz);
        smv_matrix_plan_info pd, ph;
        CHECK_OK(smv_matrix_plan(dev, &pd));
        CHECK_OK(smv_matrix_plan(host, &ph));
        CHECKF(pd.alg == ph.alg,
               "%s: AUTO %d from the device, %d from the host", specs[s],
               (int)pd.alg, (int)ph.alg);
        /* SpMM's plan reads the same statistics (short rows, long rows)
         * from both: at k = 128 row-major (rung 10 on the graphs with
         * hubs, rung 3 or 4 elsewhere) and column-major, with its why. */
        for (int lay = 0; lay < 2; lay++) {
          const int64_t ldx = lay ? (A->cols > 0 ? A->cols : 1) : 128;
          const int64_t ldy = lay ? (A->rows > 0 ? A->rows : 1) : 128;
          smv_spmm_choice sd, sh;
          CHECK_OK(
              smv_spmm_plan(ctx, dev, 128, (smv_layout)lay, ldx, ldy, &sd));
          CHECK_OK(
              smv_spmm_plan(ctx, host, 128, (smv_layout)lay, ldx, ldy, &sh));
          CHECKF(sd.alg == sh.alg && strcmp(sd.why, sh.why) == 0,
                 "%s: SpMM plan %s (%s) from the device, %s (%s) from the "
                 "host",
                 specs[s], smv_spmm_alg_name(sd.alg), sd.why,
                 smv_spmm_alg_name(sh.alg), sh.why);
        }
        /* Same rung, same plan: the same bits (rung 9 is deterministic). */
        double *x = (double *)malloc(((size_t)A->cols + 1) * 8);
        double *y1 = (double *)malloc(((size_t)A->rows + 1) * 8);
        double *y2 = (double *)malloc(((size_t)A->rows + 1) * 8);
        tc_fill(x, A->cols);
        CHECK_OK(
            smv_spmv_host_vectors(ctx, SMV_ALG_ADAPTIVE, 1.0, dev, x, 0.0, y1));
        CHECK_OK(smv_spmv_host_vectors(ctx, SMV_ALG_ADAPTIVE, 1.0, host, x, 0.0,
                                       y2));
        CHECKF(memcmp(y1, y2, (size_t)A->rows * 8) == 0,
               "%s prec %d: device-built and host-built products differ",
               specs[s], prec);
        CHECK_OK(
            smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1.0, dev, x, 0.0, y1));
        CHECK_OK(
            smv_spmv_host_vectors(ctx, SMV_ALG_AUTO, 1.0, host, x, 0.0, y2));
        for (int64_t i = 0; i < A->rows; i++)
          CHECK_NEAR(y1[i], y2[i], 1e-5 * (1 + fabs(y2[i])));
        free(x);
        free(y1);
        free(y2);
        smv_matrix_free(dev);
        smv_matrix_free(host);
        if (B != A)
          smv_csr_free(B);
      }
    smv_csr_free(A);
  }
}

static void test_bad_input(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = tst_generate("lap2d:10");
  struct dev_csr d;
  upload(ctx, A, 0, &d);
  smv_matrix *m = (smv_matrix *)&m;
  /* A column out of range (entry 7 names column cols). */
  int32_t bad = A->cols;
  CHECK_OK(smv_memcpy_h2d(ctx, (int32_t *)d.ci + 7, &bad, 4));
  CHECK_STATUS(smv_matrix_create_device(
                   ctx, A->rows, A->cols, A->nnz, (const int32_t *)d.rp,
                   (const int32_t *)d.ci, d.v, SMV_F64, SMV_F64, NULL, &m),
               SMV_ERR_ARG);
  CHECK(m == NULL);
  CHECK_STR_HAS(smv_context_error(ctx), "column index 100 of entry 7");
  CHECK_OK(smv_memcpy_h2d(ctx, (int32_t *)d.ci + 7, A->col_idx + 7, 4));
  /* Offsets going back at row 3. */
  int32_t back = A->row_ptr[3] - 1;
  CHECK_OK(smv_memcpy_h2d(ctx, (int32_t *)d.rp + 4, &back, 4));
  CHECK_STATUS(smv_matrix_create_device(
                   ctx, A->rows, A->cols, A->nnz, (const int32_t *)d.rp,
                   (const int32_t *)d.ci, d.v, SMV_F64, SMV_F64, NULL, &m),
               SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "row offsets at row 3");
  /* nnz that row_ptr[rows] does not match. */
  CHECK_OK(smv_memcpy_h2d(ctx, (int32_t *)d.rp + 4, A->row_ptr + 4, 4));
  CHECK_STATUS(smv_matrix_create_device(
                   ctx, A->rows, A->cols, A->nnz - 1, (const int32_t *)d.rp,
                   (const int32_t *)d.ci, d.v, SMV_F64, SMV_F64, NULL, &m),
               SMV_ERR_ARG);
  /* Host memory where device memory belongs. */
  CHECK_STATUS(smv_matrix_create_device(ctx, A->rows, A->cols, A->nnz,
                                        A->row_ptr, (const int32_t *)d.ci, d.v,
                                        SMV_F64, SMV_F64, NULL, &m),
               SMV_ERR_ARG);
  CHECK_STR_HAS(smv_context_error(ctx), "row_ptr");
  /* Sizes and precisions. */
  CHECK_STATUS(smv_matrix_create_device(
                   ctx, -1, A->cols, A->nnz, (const int32_t *)d.rp,
                   (const int32_t *)d.ci, d.v, SMV_F64, SMV_F64, NULL, &m),
               SMV_ERR_ARG);
  CHECK_STATUS(smv_matrix_create_device(ctx, (int64_t)1 << 31, A->cols, A->nnz,
                                        (const int32_t *)d.rp,
                                        (const int32_t *)d.ci, d.v, SMV_F64,
                                        SMV_F64, NULL, &m),
               SMV_ERR_OVERFLOW);
  CHECK_STATUS(smv_matrix_create_device(ctx, A->rows, A->cols, A->nnz,
                                        (const int32_t *)d.rp,
                                        (const int32_t *)d.ci, d.v, SMV_F64,
                                        (smv_precision)7, NULL, &m),
               SMV_ERR_ARG);
  /* Still fine afterwards. */
  CHECK_OK(smv_matrix_create_device(
      ctx, A->rows, A->cols, A->nnz, (const int32_t *)d.rp,
      (const int32_t *)d.ci, d.v, SMV_F64, SMV_F64, NULL, &m));
  smv_matrix_free(m);
  release(ctx, &d);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_no_device_clean);
  RUN(test_matches_host);
  RUN(test_bad_input);
  smv_context_free(tc_ctx);
  return TEST_END();
}
