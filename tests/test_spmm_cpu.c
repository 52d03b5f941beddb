/*
 * test_spmm_cpu.c — SpMM on the host (issues 22 and 25): the size checks
 * of smv_spmm_cpu / smv_spmm_ref (every product of a leading dimension and
 * a row or column count that overflows int64_t, or whose extent in bytes
 * does, is SMV_ERR_DIM before anything is read: issue 25 item 11, which a
 * SAN build turned from "signed integer overflow" into a failure here),
 * X/Y overlap still refused next to the edge, the SpMM plan's rule
 * (smv_spmm_choose) class by class, and the algorithm names.
 */
#include "test_spmm_common.h"

#include <stdint.h>

static smv_csr *small(void) {
  static const smv_offset ptr[] = {0, 2, 2, 3};
  static const smv_index idx[] = {0, 2, 1};
  static const double val[] = {1.5, -2, 3};
  return tst_csr(3, 3, 3, ptr, idx, val);
}

static void test_overflow(void) {
  smv_csr *A = small();
  double X[64], Y[64];
  tc_fill(X, 64), tc_fill(Y, 64);
  /* Each past INT64_MAX / 8 elements once multiplied by k - 1 = 1 or
   * rows - 1 = 2. */
  const int64_t huge[] = {INT64_MAX, INT64_MAX / 2, INT64_MAX / 4,
                          INT64_MAX / 8 + 1, (int64_t)1 << 62};
  for (size_t h = 0; A && h < sizeof huge / sizeof huge[0]; h++)
    for (int ref = 0; ref < 2; ref++) {
      smv_status (*f)(const smv_csr *, double, const double *, int64_t, double,
                      double *, int64_t, int, smv_layout) =
          ref ? smv_spmm_ref : smv_spmm_cpu;
      /* (rows - 1) * ldy + k, row-major; (k - 1) * ldx + cols, col-major. */
      CHECK_STATUS(f(A, 1, X, 2, 0, Y, huge[h], 2, SMV_LAYOUT_ROW_MAJOR),
                   SMV_ERR_DIM);
      CHECK_STATUS(f(A, 0, NULL, 2, 0, Y, huge[h], 2, SMV_LAYOUT_ROW_MAJOR),
                   SMV_ERR_DIM);
      CHECK_STATUS(f(A, 1, X, huge[h], 0, Y, 2, 2, SMV_LAYOUT_ROW_MAJOR),
                   SMV_ERR_DIM);
      CHECK_STATUS(f(A, 1, X, huge[h], 0, Y, 3, 2, SMV_LAYOUT_COL_MAJOR),
                   SMV_ERR_DIM);
      CHECK_STATUS(f(A, 1, X, 3, 0, Y, huge[h], 2, SMV_LAYOUT_COL_MAJOR),
                   SMV_ERR_DIM);
      /* Within the limit but spanning more than the arrays: the declared
       * X covers Y, refused as an overlap, never a wrap. */
      CHECK_STATUS(
          f(A, 1, X, INT64_MAX / 16, 0, X + 40, 3, 2, SMV_LAYOUT_COL_MAJOR),
          SMV_ERR_ARG);
      /* k = INT32_MAX row-major: (rows - 1) * ldx + k with ldx >= k. */
      CHECK_STATUS(f(A, 1, X, (int64_t)1 << 61, 0, Y, INT32_MAX, INT32_MAX,
                     SMV_LAYOUT_ROW_MAJOR),
                   SMV_ERR_DIM);
    }
  /* The limit itself: an extent of INT64_MAX / 8 elements is fine as far as
   * the size check goes (the overlap check then sees distinct arrays and
   * the product runs on the few elements it touches: k = 1, col-major,
   * ldx huge but only column 0 read). */
  CHECK_OK(smv_spmm_cpu(A, 1, X, INT64_MAX / 8 - 3, 0, Y, 3, 1,
                        SMV_LAYOUT_COL_MAJOR));
  /* Overlap right at the edge: Y one element past X's last is fine, on it
   * refused. X: 3 x 2 row-major ldx 2 spans 6 elements. */
  double B[20];
  tc_fill(B, 20);
  CHECK_OK(smv_spmm_cpu(A, 1, B, 2, 0, B + 6, 2, 2, SMV_LAYOUT_ROW_MAJOR));
  CHECK_STATUS(smv_spmm_cpu(A, 1, B, 2, 0, B + 5, 2, 2, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  smv_csr_free(A);
}

/* 100000 rows; of them short (under SMV_SPMM_SHORT_ROW entries) three in
 * five when the mean is at most 16 (a graph's rows), none above (a
 * stencil's). */
static smv_spmm_shape shape(int64_t row_max, double mean, int k, int row,
                            int f32, int64_t ldx, int64_t ldy) {
  smv_spmm_shape s = {100000,
                      100000,
                      (int64_t)(mean * 100000),
                      row_max,
                      mean,
                      k,
                      row ? SMV_LAYOUT_ROW_MAJOR : SMV_LAYOUT_COL_MAJOR,
                      f32,
                      ldx,
                      ldy,
                      mean <= 16 ? 60000 : 0};
  return s;
}

static void test_rule(void) {
  smv_spmm_choice c;
  smv_spmm_shape s;
  /* k = 1 with a contiguous column: the SpMV engine. */
  s = shape(20000, 16, 1, 0, 1, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_SPMV);
  CHECK_STR_HAS(c.why, "SpMV");
  s = shape(20000, 16, 1, 1, 0, 1, 1);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_SPMV);
  /* k = 1 row-major with a stride: not a vector; row-major k < 8: rung 9
   * (registers, a vector load an entry). */
  s = shape(20000, 16, 1, 1, 0, 2, 1);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWGATHER);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  s = shape(27, 27, 4, 1, 1, 4, 4);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWGATHER);
  CHECK_STR_HAS(c.why, "row-major k = 4");
  CHECK_INT(c.vec, 4); /* f32 k = 4, ldx 4: float4 */
  s = shape(27, 27, 3, 1, 0, 3, 3);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.vec, 1); /* f64 k = 3, ldx 3: rows not 16-byte aligned */
  s = shape(27, 27, 3, 1, 0, 4, 3);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.vec, 2);
  for (int k = 2; k < SMV_SPMM_COLTRANS_K; k++) {
    s = shape(7, 3, k, 1, 0, k, k); /* short rows too: no transposes */
    CHECK_OK(smv_spmm_choose(&s, &c));
    CHECK_INT(c.alg, SMV_SPMM_ROWGATHER);
  }
  /* Row-major, X rows of at most SMV_SPMM_ROWPIPE_BYTES and a full pass:
   * rung 8, with or without long rows. f32 k = 32 (128 bytes), f64 k = 16
   * (128) and both at the threshold (f32 k = 64, f64 k = 32: 256). */
  s = shape(27, 27, 32, 1, 1, 32, 32);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.vec, 4);
  CHECK_INT(c.chunk, 0);
  CHECK_STR_HAS(c.why, "128 bytes along k");
  CHECK_STR_HAS(c.why, "pipelined");
  CHECK_STR_HAS(c.why, "no split");
  s = shape(27, 27, 32, 1, 0, 32, 32);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.vec, 2);
  CHECK_STR_HAS(c.why, "256 bytes along k");
  s = shape(SMV_SPMM_CHUNK + 1, 16, 16, 1, 0, 16, 16);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  CHECK_INT(c.vec, 2);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 64, 1, 1, 64, 64);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  s = shape(27, 27, SMV_SPMM_COLTRANS_K, 1, 0, 8, 8);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  /* Narrower loads (ld not a multiple of 16 bytes) keep a power of two a
   * full pass: still rung 8. */
  s = shape(27, 27, 64, 1, 1, 66, 66);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.vec, 2);
  s = shape(27, 27, 8, 1, 1, 8, 10);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWPIPE);
  CHECK_INT(c.vec, 2);
  /* Just past the threshold (f32 k = 128, f64 k = 64: 512 bytes): rung 4
   * with long rows, rung 3 without, 16-byte loads. */
  s = shape(27, 27, 128, 1, 1, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  CHECK_INT(c.vec, 4);
  CHECK_INT(c.chunk, 0);
  CHECK_STR_HAS(c.why, "no split");
  CHECK_STR_HAS(c.why, "past rung 8");
  s = shape(27, 27, 64, 1, 0, 64, 64);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  CHECK_INT(c.vec, 2);
  /* The same widths with rows past a chunk (a graph): rung 10 at 16-byte
   * vectors (k = 32 or 64 x the vector: one or two a lane across the
   * warp); rung 4 when the vector is narrower or k wider. */
  s = shape(SMV_SPMM_CHUNK + 1, 16, 64, 1, 0, 64, 64);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  CHECK_INT(c.vec, 2);
  CHECK_STR_HAS(c.why, "512-byte X rows");
  CHECK_STR_HAS(c.why, "streams 32 rows");
  s = shape(SMV_SPMM_CHUNK + 1, 16, 128, 1, 1, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  CHECK_INT(c.vec, 4);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 128, 1, 1, 130, 130);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  CHECK_INT(c.vec, 2);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 256, 1, 1, 256, 256);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  CHECK_STR_HAS(c.why, "1024-byte X rows");
  s = shape(SMV_SPMM_CHUNK + 1, 16, 128, 1, 0, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 512, 1, 1, 512, 512);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 256, 1, 1, 258, 258); /* 8-byte loads */
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  /* Half the rows short: rung 10; fewer (a stencil with one dense row:
   * a long row, no short ones): rung 4. */
  s = shape(SMV_SPMM_CHUNK + 1, 27, 128, 1, 1, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  s.short_rows = 49999;
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  s.short_rows = 50000;
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  CHECK_STR_HAS(c.why, "50% under 16 entries and hubs");
  s = shape(SMV_SPMM_CHUNK + 1, 16, 256, 1, 0, 256, 256); /* 2048 bytes */
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  /* Not a full pass (rung 8 would run rung 4 inside): rung 3/4, even
   * under the threshold. */
  s = shape(27, 27, 24, 1, 1, 24, 24);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  CHECK_INT(c.vec, 4);
  CHECK_STR_HAS(c.why, "not a full pass");
  s = shape(SMV_SPMM_CHUNK + 1, 16, 40, 1, 1, 40, 40);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  s = shape(27, 27, 12, 1, 0, 12, 12);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  /* k and leading dimensions that do not allow 16 bytes. */
  s = shape(27, 27, 9, 1, 1, 9, 9);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  CHECK_INT(c.vec, 1);
  s = shape(27, 27, 10, 1, 1, 10, 10);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.vec, 2);
  /* Hubs past the threshold: chunks of SMV_SPMM_CHUNK (rung 10 at f32
   * k = 128, one vector a lane; rung 4 at k = 96, not a full pass); a
   * longest row of exactly a chunk: rung 3. */
  s = shape(SMV_SPMM_CHUNK + 1, 16, 128, 1, 1, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSTREAM);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  s = shape(SMV_SPMM_CHUNK + 1, 16, 96, 1, 1, 96, 96);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWSPLIT);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  s = shape(SMV_SPMM_CHUNK, 16, 128, 1, 1, 128, 128);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_ROWVEC);
  /* Every power of two from 8 up to the threshold lands on rung 8, in
   * both precisions; the next two (512- and 1024-byte X rows) on rung 10,
   * wider on rung 4. */
  for (int f32 = 0; f32 < 2; f32++)
    for (int k = SMV_SPMM_COLTRANS_K; k <= 256; k *= 2) {
      s = shape(SMV_SPMM_CHUNK + 1, 16, k, 1, f32, k, k);
      CHECK_OK(smv_spmm_choose(&s, &c));
      const int bytes = k * (f32 ? 4 : 8);
      const smv_spmm_alg want =
          bytes <= SMV_SPMM_ROWPIPE_BYTES ? SMV_SPMM_ROWPIPE
          : bytes == 512 || bytes == 1024 ? SMV_SPMM_ROWSTREAM
                                          : SMV_SPMM_ROWSPLIT;
      CHECKF(c.alg == want, "f32=%d k=%d: %s", f32, k,
             smv_spmm_alg_name(c.alg));
    }
  /* Column-major: rung 6 (transposes) from SMV_SPMM_COLTRANS_K columns,
   * rung 5 below, with or without chunks. */
  s = shape(50000, 16, 16, 0, 1, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  CHECK_INT(c.vec, 4);
  CHECK_STR_HAS(c.why, "rowpipe on it"); /* the row-major rule inside */
  s = shape(50000, 16, 32, 0, 1, 100000, 100000); /* rung 8's k: still 6 */
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  s = shape(50000, 16, 128, 0, 1, 100000, 100000); /* a graph, 512 bytes */
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  CHECK_STR_HAS(c.why, "rowstream on it");
  s = shape(27, 27, 128, 0, 1, 100000, 100000); /* no long rows: rung 3 */
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_STR_HAS(c.why, "rowvec on it");
  s = shape(50000, 16, 16, 0, 0, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  s = shape(50000, 16, SMV_SPMM_COLTRANS_K, 0, 0, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  CHECK_INT(c.vec, 2);
  /* Below SMV_SPMM_COLTRANS_K columns: rung 6 (rung 9 inside) on rows of
   * SMV_SPMM_NARROW_MEAN entries or more, rung 5 on shorter ones. */
  s = shape(50000, 16, SMV_SPMM_COLTRANS_K - 1, 0, 1, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  CHECK_INT(c.chunk, SMV_SPMM_CHUNK);
  CHECK_STR_HAS(c.why, "rung 9");
  s = shape(50, SMV_SPMM_NARROW_MEAN, 2, 0, 0, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  s = shape(50, SMV_SPMM_NARROW_MEAN - 0.5, 2, 0, 0, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLSPLIT);
  /* Wide: 16 entries a row but 1.6 a column, so the transpose of X (cols
   * x k) costs more than the gathers it saves: rung 5. */
  s = shape(50, 16, 4, 0, 0, 1000000, 100000);
  s.cols = 10 * s.rows;
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLSPLIT);
  s.cols = s.rows;
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLTRANS);
  CHECK_INT(c.vec, 2); /* f64, k = 4: double2 on the workspace */
  s = shape(7, 7, 4, 0, 0, 100000, 100000);
  CHECK_OK(smv_spmm_choose(&s, &c));
  CHECK_INT(c.alg, SMV_SPMM_COLSPLIT);
  CHECK_INT(c.chunk, 0);
  /* Bad arguments. */
  s = shape(7, 7, 0, 0, 0, 1, 1);
  CHECK_STATUS(smv_spmm_choose(&s, &c), SMV_ERR_ARG);
  s = shape(7, 7, 4, 0, 0, 1, 1);
  s.layout = (smv_layout)7;
  CHECK_STATUS(smv_spmm_choose(&s, &c), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_choose(NULL, &c), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmm_choose(&s, NULL), SMV_ERR_ARG);
}

static void test_names(void) {
  for (int a = 0; a < SMV_SPMM_ALG_COUNT; a++) {
    const char *n = smv_spmm_alg_name((smv_spmm_alg)a);
    smv_spmm_alg b;
    CHECK(n != NULL);
    if (!n)
      continue;
    CHECK_OK(smv_spmm_alg_parse(n, &b));
    CHECK_INT(b, a);
  }
  CHECK(smv_spmm_alg_name(SMV_SPMM_ALG_COUNT) == NULL);
  CHECK(strcmp(smv_spmm_alg_name(SMV_SPMM_ROWSPLIT), "rowsplit") == 0);
  smv_spmm_alg b;
  CHECK_STATUS(smv_spmm_alg_parse("rowsplitx", &b), SMV_ERR_NOT_FOUND);
}

/* Without a device the device entry points answer as smv_spmm does. */
static void test_no_device_plan(void) {
  smv_context *ctx = tc_context();
  if (ctx)
    SKIP("a device is present: test_cuda_spmm_plan covers it");
  smv_spmm_choice c;
  CHECK(smv_spmm_plan(NULL, NULL, 4, SMV_LAYOUT_ROW_MAJOR, 4, 4, &c) != SMV_OK);
  CHECK(smv_spmm_tune(NULL, NULL, 4, SMV_LAYOUT_ROW_MAJOR, 5, &c) != SMV_OK);
}

int main(void) {
  RUN(test_overflow);
  RUN(test_rule);
  RUN(test_names);
  RUN(test_no_device_plan);
  smv_context_free(tc_ctx);
  return TEST_END();
}
