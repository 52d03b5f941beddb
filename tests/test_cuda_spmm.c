/*
 * test_cuda_spmm.c — the SpMM ladder on the device (issue 22): every rung
 * (1 lanes/gather, 2 spmv, 3 rowvec, 4 rowsplit, 5 colsplit, 6 coltrans,
 * 7 kslice, 8 rowpipe, 9 rowgather, 10 rowstream) and AUTO
 * against the serial reference, column by column with the bench's bound:
 *   matrices with hub rows (power law, R-MAT, one dense row, rows of
 *   exactly 256, 257, 513 and 3000 entries: the chunk edges of the split),
 *   empty rows, an empty matrix, rectangular shapes;
 *   k = 1..257, odd and not multiples of the vector width (tails);
 *   row- and column-major, leading dimensions wider than k (gaps that must
 *   survive), X and Y not 16-byte aligned (the vector loads' fallback);
 *   f64 and f32; alpha/beta incl. beta = 0 with Y poisoned by NaN and
 *   alpha = 0 (X NaN: never read).
 * Also: the split's result is the same bits on every run (deterministic),
 * X/Y overlap refused (device and host), sizes whose products overflow
 * refused (issue 25, item 11), a rung refusing a layout it lacks, and a
 * split rung captured in a CUDA graph after a first call. SKIPs without a
 * device.
 */
#include "test_spmm_common.h"

#include "test_cuda_runtime.h"

#include <stdint.h>

/* rows x cols with len[i] entries in row i: distinct increasing columns,
 * a stride through the columns with a random start; values random. */
static smv_csr *strided_matrix(int rows, int cols, const int *len) {
  int64_t nnz = 0;
  for (int i = 0; i < rows; i++)
    nnz += len[i];
  smv_csr *A = NULL;
  if (smv_csr_create(rows, cols, nnz, &A) != SMV_OK)
    return NULL;
  int64_t e = 0;
  A->row_ptr[0] = 0;
  for (int i = 0; i < rows; i++) {
    const int stride = len[i] ? cols / len[i] : 1;
    const int start = len[i] ? (int)(tc_next() % (uint64_t)stride) : 0;
    for (int j = 0; j < len[i]; j++) {
      A->col_idx[e] = start + j * stride;
      A->values[e] = tc_uniform();
      e++;
    }
    A->row_ptr[i + 1] = (smv_offset)e;
  }
  return A;
}

/* rows 0..99 of 4000 columns: row 0 empty, rows 1..4 of 256, 257, 513
 * and 3000 entries (around and far past SMV_SPMM_CHUNK), row 5 empty,
 * the rest 0..5 entries. */
static smv_csr *hub_matrix(void) {
  const int lens[6] = {0, 256, 257, 513, 3000, 0};
  int len[100];
  for (int i = 0; i < 100; i++)
    len[i] = i < 6 ? lens[i] : (int)(tc_next() % 6);
  return strided_matrix(100, 4000, len);
}

/* Rung 10's windows of 32 rows at their edges: 103 rows (three windows
 * and a partial one of 7) of 0..5 entries, except rows of 300 entries
 * (long at any chunk size) at 31 and 32 (the last of a window, the first
 * of the next), 40, 41 and 43 with 42 empty between them (a segment of
 * only an empty row), 64..95 (a window of only long rows) and 102 (the
 * last row of the partial window); rows 0 and 30 empty. */
static smv_csr *window_matrix(void) {
  int len[103];
  for (int i = 0; i < 103; i++) {
    const int lng = i == 31 || i == 32 || i == 40 || i == 41 || i == 43 ||
                    (i >= 64 && i <= 95) || i == 102;
    len[i] = lng                            ? 300
             : i == 0 || i == 30 || i == 42 ? 0
                                            : (int)(tc_next() % 6);
  }
  return strided_matrix(103, 3000, len);
}

/* 60 rows of 1000 columns whose entries all lie in columns 900..999 (0..5
 * a row, row 7 100): rung 11's first bands are empty, so beta falls to its
 * last band. */
static smv_csr *tail_matrix(void) {
  int len[60];
  for (int i = 0; i < 60; i++)
    len[i] = i == 7 ? 100 : (int)(tc_next() % 6);
  smv_csr *A = strided_matrix(60, 100, len);
  if (A) {
    A->cols = 1000;
    for (int64_t e = 0; e < A->nnz; e++)
      A->col_idx[e] += 900;
  }
  return A;
}

static smv_csr *gen(const char *spec, int f32) {
  smv_csr *A = strcmp(spec, "hubs") == 0      ? hub_matrix()
               : strcmp(spec, "windows") == 0 ? window_matrix()
               : strcmp(spec, "tail") == 0    ? tail_matrix()
                                              : tst_generate(spec);
  if (A && f32)
    tc_round_values(A);
  return A;
}

static const char *const shapes[] = {"hubs",
                                     "plaw:3000:8",
                                     "rmat:10:8",
                                     "denserow:300:3,cols=2500",
                                     "empty:5:7",
                                     "lap3d:8",
                                     "rand:900:9,cols=130",
                                     "rand:60:20,cols=3000"};
#define NSHAPES (sizeof shapes / sizeof shapes[0])

static const smv_spmm_alg rung_algs[] = {
    SMV_SPMM_AUTO,      SMV_SPMM_OURS,      SMV_SPMM_SPMV,
    SMV_SPMM_ROWVEC,    SMV_SPMM_ROWSPLIT,  SMV_SPMM_COLSPLIT,
    SMV_SPMM_COLTRANS,  SMV_SPMM_KSLICE,    SMV_SPMM_ROWPIPE,
    SMV_SPMM_ROWGATHER, SMV_SPMM_ROWSTREAM, SMV_SPMM_COLBAND};
#define NALGS (sizeof rung_algs / sizeof rung_algs[0])

/* 1 if the rung lacks this shape (SMV_ERR_UNSUPPORTED expected). */
static int lacks(smv_spmm_alg alg, int row, int k, int pad) {
  switch (alg) {
  case SMV_SPMM_SPMV:
    return row ? k > 1 || pad : k > SMV_SPMM_SPMV_KMAX;
  case SMV_SPMM_ROWVEC:
  case SMV_SPMM_ROWSPLIT:
  case SMV_SPMM_KSLICE:
  case SMV_SPMM_ROWPIPE:
  case SMV_SPMM_ROWGATHER:
  case SMV_SPMM_ROWSTREAM:
  case SMV_SPMM_COLBAND:
    return !row;
  case SMV_SPMM_COLTRANS:
    return row;
  default:
    return 0;
  }
}

static void test_rungs(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  /* 128 last: the short run (every third) keeps 130, and 128 rotates to
   * alpha 1 for rung 10 (index 10), whose full pass it is. */
  const int ks[] = {1, 2, 3, 4, 5, 8, 9, 31, 33, 64, 65, 127, 130, 257, 128};
  /* SMV_TEST_SHORT (the compute-sanitizer run): every third k, which still
   * has 1, the tails and both CV tiles. */
  const int short_run = getenv("SMV_TEST_SHORT") != NULL;
  const int nk = (int)(sizeof ks / sizeof ks[0]);
  const double ab[][2] = {{1, 0}, {-0.5, 2}, {0, 1.5}, {2, -1}};
  int ran = 0, refused = 0;
  /* Rung 7 on these small matrices would take one slice: slices of 8
   * columns exercise its passes (k = 9, 33, 130: a short last slice). */
  setenv("SMV_SPMM_KSLICE_W", "8", 1);
  for (int f32 = 0; f32 < 2; f32++)
    for (size_t s = 0; s < NSHAPES; s++) {
      smv_csr *A = gen(shapes[s], f32);
      smv_matrix *dA = NULL;
      if (A)
        CHECK_OK(smv_matrix_create(ctx, A, f32 ? SMV_F32 : SMV_F64, &dA));
      for (size_t a = 0; dA && a < NALGS; a++)
        for (int lay = 0; lay < 2; lay++)
          for (int ki = 0; ki < nk; ki += short_run ? 3 : 1) {
            /* Rotate the other dimensions through the k list: every
             * (alg, matrix, layout) sees each alpha/beta pair, padded and
             * unpadded leading dimensions, aligned and shifted pointers,
             * device and host entry points. */
            const int c = (ki + (int)a) % 4, pad = (ki + lay) % 3;
            const int host = ki % 5 == 4, shift = !host && ki % 3 == 1;
            int uns = 0;
            CHECK_INT(spmm_case_at(ctx, dA, A, rung_algs[a], ks[ki],
                                   (smv_layout)lay, pad, ab[c][0], ab[c][1],
                                   host, shift, &uns),
                      0);
            ran += !uns, refused += uns;
            /* A rung refuses exactly the shapes it lacks. */
            /* smv_spmm_host packs the operands (ld = k or the rows):
             * the rung sees no padding then. */
            CHECK_INT(uns,
                      lacks(rung_algs[a], lay == 0, ks[ki], host ? 0 : pad));
          }
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
  fprintf(stderr,
          "SpMM rungs: %d cases checked, %d refused (a layout the rung "
          "lacks)\n",
          ran, refused);
  CHECK(ran > (short_run ? 300 : 1000));
}

/* The split rungs add partials in a fixed order: the same bits twice. */
static void test_deterministic(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = gen("rmat:12:16", 1);
  smv_matrix *dA = NULL;
  if (A)
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F32, &dA));
  if (!dA) {
    smv_csr_free(A);
    return;
  }
  const int k = 40;
  const int64_t m = A->rows, n = A->cols;
  double *X = malloc(n * k * sizeof *X);
  float *y1 = malloc(m * k * sizeof *y1), *y2 = malloc(m * k * sizeof *y2);
  void *dX = NULL, *dY = NULL;
  tc_fill(X, n * k);
  CHECK_OK(smv_device_malloc(ctx, n * k * 4, &dX));
  CHECK_OK(smv_device_malloc(ctx, m * k * 4, &dY));
  CHECK_OK(tc_upload(ctx, 1, X, n * k, dX));
  const smv_spmm_alg algs[] = {SMV_SPMM_ROWSPLIT, SMV_SPMM_COLSPLIT,
                               SMV_SPMM_COLTRANS};
  for (int a = 0; a < 3; a++)
    for (int lay = 0; lay < 2; lay++) {
      if (lacks(algs[a], lay == 0, k, 0))
        continue;
      const int64_t ld = lay ? m : k, ldx = lay ? n : k;
      CHECK_OK(smv_spmm(ctx, algs[a], 1.0, dA, dX, ldx, 0.0, dY, ld, k,
                        (smv_layout)lay));
      CHECK_OK(smv_memcpy_d2h(ctx, y1, dY, m * k * 4));
      CHECK_OK(smv_spmm(ctx, algs[a], 1.0, dA, dX, ldx, 0.0, dY, ld, k,
                        (smv_layout)lay));
      CHECK_OK(smv_memcpy_d2h(ctx, y2, dY, m * k * 4));
      CHECKF(memcmp(y1, y2, m * k * 4) == 0, "%s %s differs between runs",
             smv_spmm_alg_name(algs[a]), lay ? "col" : "row");
    }
  smv_device_free(ctx, dX), smv_device_free(ctx, dY);
  free(X), free(y1), free(y2);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

/* specs's matrix generated (rounded to f32 values for f32) and on the
 * device: 1, or 0 with nothing left allocated. */
static int open_matrix(smv_context *ctx, const char *spec, int f32, smv_csr **A,
                       smv_matrix **dA) {
  *A = gen(spec, f32);
  *dA = NULL;
  if (*A)
    CHECK_OK(smv_matrix_create(ctx, *A, f32 ? SMV_F32 : SMV_F64, dA));
  if (!*dA) {
    smv_csr_free(*A);
    *A = NULL;
    return 0;
  }
  return 1;
}

/* Two rungs on the same row-major product, Y = 1.5 A X - 0.5 Y0 (X n x k at
 * ldx, starting `off` elements into its buffer; Y m x k packed), the
 * results compared byte for byte: 1 when they are the same bits. env1, if
 * not NULL, is an environment variable set to 0 for a1's run only. */
static int same_bits_env(smv_context *ctx, smv_matrix *dA, int f32, int64_t m,
                         int64_t n, int k, int64_t ldx, int off,
                         smv_spmm_alg a0, smv_spmm_alg a1, const char *env1) {
  const size_t es = f32 ? 4 : 8;
  const int64_t nx = n * ldx + off;
  double *X = malloc(nx * sizeof *X), *Y0 = malloc(m * k * sizeof *Y0);
  char *y[2] = {malloc(m * k * es), malloc(m * k * es)};
  void *dX = NULL, *dY = NULL;
  int same = 0;
  CHECK(X && Y0 && y[0] && y[1]);
  if (X && Y0 && y[0] && y[1]) {
    tc_fill(X, nx);
    tc_fill(Y0, m * k);
    CHECK_OK(smv_device_malloc(ctx, nx * es, &dX));
    CHECK_OK(smv_device_malloc(ctx, m * k * es, &dY));
    CHECK_OK(tc_upload(ctx, f32, X, nx, dX));
    const void *x = (const char *)dX + off * es;
    const smv_spmm_alg algs[] = {a0, a1};
    for (int a = 0; a < 2; a++) {
      if (env1 && a == 1)
        setenv(env1, "0", 1);
      CHECK_OK(tc_upload(ctx, f32, Y0, m * k, dY));
      CHECK_OK(smv_spmm(ctx, algs[a], 1.5, dA, x, ldx, -0.5, dY, k, k,
                        SMV_LAYOUT_ROW_MAJOR));
      CHECK_OK(smv_memcpy_d2h(ctx, y[a], dY, m * k * es));
      if (env1 && a == 1)
        unsetenv(env1);
    }
    same = memcmp(y[0], y[1], m * k * es) == 0;
  }
  smv_device_free(ctx, dX), smv_device_free(ctx, dY);
  free(X), free(Y0), free(y[0]), free(y[1]);
  return same;
}

static int same_bits(smv_context *ctx, smv_matrix *dA, int f32, int64_t m,
                     int64_t n, int k, int64_t ldx, int off, smv_spmm_alg a0,
                     smv_spmm_alg a1) {
  return same_bits_env(ctx, dA, f32, m, n, k, ldx, off, a0, a1, NULL);
}

/* Rung 4's chunks taken by their place in their rows (the default) or in
 * row order (SMV_SPMM_CHUNK_ORDER=0) write the same partials to the same
 * slots: the same bits either way, through rungs 4 and 10. */
static void test_chunk_order_bits(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"rmat:12:16", "hubs", "windows"};
  const int ks[] = {32, 128};
  const smv_spmm_alg algs[] = {SMV_SPMM_ROWSPLIT, SMV_SPMM_ROWSTREAM};
  for (int f32 = 0; f32 < 2; f32++)
    for (int s = 0; s < 3; s++) {
      smv_csr *A;
      smv_matrix *dA;
      if (!open_matrix(ctx, specs[s], f32, &A, &dA))
        continue;
      for (int ki = 0; ki < 2; ki++)
        for (int a = 0; a < 2; a++)
          CHECKF(same_bits_env(ctx, dA, f32, A->rows, A->cols, ks[ki], ks[ki],
                               0, algs[a], algs[a], "SMV_SPMM_CHUNK_ORDER"),
                 "%s %s k=%d %s: chunk order changed the bits", specs[s],
                 f32 ? "f32" : "f64", ks[ki], smv_spmm_alg_name(algs[a]));
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

/* Rung 11 with its band count forced (SMV_SPMM_BANDS: the test matrices'
 * X fits the L2, which alone would give one band) against the CPU
 * reference: 2, 3 and 8 bands over hub rows, R-MAT, empty bands (a matrix
 * whose columns all fall in its last band), rectangular shapes, k tails,
 * alpha and beta (beta once, in the first band with entries), ldy > k; one
 * band runs the plan's rung on A itself (the same bits as AUTO). Then a
 * second band count on the same matrix (the bands rebuilt). */
static void test_colband(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {
      "rmat:12:16",           "hubs", "windows", "denserow:300:3,cols=2500",
      "rand:60:20,cols=3000", "tail"};
  const int ks[] = {1, 5, 32, 33, 128};
  const char *bands[] = {"2", "3", "8"};
  for (int f32 = 0; f32 < 2; f32++)
    for (int s = 0; s < 6; s++) {
      smv_csr *A;
      smv_matrix *dA;
      if (!open_matrix(ctx, specs[s], f32, &A, &dA))
        continue;
      for (int b = 0; b < 3; b++) {
        setenv("SMV_SPMM_BANDS", bands[b], 1);
        for (int ki = 0; ki < 5; ki++) {
          int uns = 0;
          const double al = ki % 2 ? -0.5 : 1.0, be = ki % 2 ? 2.0 : 0.0;
          CHECKF(spmm_case_at(ctx, dA, A, SMV_SPMM_COLBAND, ks[ki],
                              SMV_LAYOUT_ROW_MAJOR, ki == 3 ? 3 : 0, al, be, 0,
                              0, &uns) == 0,
                 "%s %s bands=%s k=%d: colband against the reference", specs[s],
                 f32 ? "f32" : "f64", bands[b], ks[ki]);
          CHECK(!uns);
        }
        unsetenv("SMV_SPMM_BANDS");
      }
      setenv("SMV_SPMM_BANDS", "1", 1);
      CHECKF(same_bits(ctx, dA, f32, A->rows, A->cols, 32, 32, 0, SMV_SPMM_AUTO,
                       SMV_SPMM_COLBAND),
             "%s %s: one band differs from AUTO", specs[s],
             f32 ? "f32" : "f64");
      unsetenv("SMV_SPMM_BANDS");
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

/* Rung 8 pipelines rung 4's row kernel and keeps its arithmetic: the same
 * bits as rung 4 on full passes (hub rows split, short rows, empty rows),
 * in both precisions, with beta != 0 too. */
static void test_rowpipe_bits(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"rmat:12:16", "plaw:3000:8", "hubs"};
  const int ks[] = {4, 8, 32, 64, 128, 256};
  for (int f32 = 0; f32 < 2; f32++)
    for (int s = 0; s < 3; s++) {
      smv_csr *A;
      smv_matrix *dA;
      if (!open_matrix(ctx, specs[s], f32, &A, &dA))
        continue;
      for (int ki = 0; ki < 6; ki++)
        CHECKF(same_bits(ctx, dA, f32, A->rows, A->cols, ks[ki], ks[ki], 0,
                         SMV_SPMM_ROWSPLIT, SMV_SPMM_ROWPIPE),
               "%s %s k=%d: rowpipe differs from rowsplit", specs[s],
               f32 ? "f32" : "f64", ks[ki]);
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

/* Rung 10 streams rung 4's rows with rung 4's arithmetic at G = 1: the
 * same bits as rung 4 on X rows of a whole warp (f32 k = 128, 256; f64
 * k = 64, 128; with X one element off 16 bytes also f32 k = 32, 64 and
 * f64 k = 32 at one element a lane), with hub rows in the chunks between
 * streamed rows, long rows at a window's edges and filling one, empty
 * rows, beta != 0 and ldx wider than k; where it falls back to rung 4
 * (f32 k = 32 aligned), trivially the same. Then rung 10 against the CPU
 * reference directly at its full passes, alpha and beta both nonzero. */
static void test_rowstream_bits(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"rmat:12:16",
                         "plaw:3000:8",
                         "hubs",
                         "windows",
                         "denserow:300:3,cols=2500",
                         "lap3d:10"};
  const int ks[] = {32, 64, 128, 256};
  for (int f32 = 0; f32 < 2; f32++)
    for (int s = 0; s < 6; s++) {
      smv_csr *A;
      smv_matrix *dA;
      if (!open_matrix(ctx, specs[s], f32, &A, &dA))
        continue;
      for (int ki = 0; ki < 4; ki++)
        for (int var = 0; var < 3; var++) {
          /* var 1: ldx = k + 4 (still 16-byte rows); var 2: X one
           * element past a 16-byte boundary (one element a lane). */
          const int k = ks[ki];
          const int64_t ldx = var == 1 ? k + 4 : k;
          CHECKF(same_bits(ctx, dA, f32, A->rows, A->cols, k, ldx, var == 2,
                           SMV_SPMM_ROWSPLIT, SMV_SPMM_ROWSTREAM),
                 "%s %s k=%d variant %d: rowstream differs from rowsplit",
                 specs[s], f32 ? "f32" : "f64", k, var);
        }
      /* Against the reference: device pointers, padded ld (still 16-byte
       * rows), alpha -0.5 and beta 2. */
      for (int ki = 1; ki < 4; ki++) {
        int uns = 0;
        CHECK_INT(spmm_case_at(ctx, dA, A, SMV_SPMM_ROWSTREAM, ks[ki],
                               SMV_LAYOUT_ROW_MAJOR, 4, -0.5, 2.0, 0, 0, &uns),
                  0);
        CHECK(!uns);
      }
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

/* Rung 9 is rung 5 with vector loads of each entry's X row: at rung 5's
 * lanes a row (SMV_SPMM_GATHER_LANES; rung 9's own rule gives fewer) the
 * same order of additions, so the same bits as rung 5 on row-major
 * operands (hub rows split, short and empty rows, k below, at and past the
 * vector width and the tile of 8), with beta != 0, X aligned and not, ldx
 * wider than k. */
static void test_rowgather_bits(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  const char *specs[] = {"rmat:12:16", "plaw:3000:8", "hubs", "lap3d:10"};
  const int ks[] = {1, 2, 3, 4, 5, 7, 8, 11};
  for (int f32 = 0; f32 < 2; f32++)
    for (int s = 0; s < 4; s++) {
      smv_csr *A;
      smv_matrix *dA;
      if (!open_matrix(ctx, specs[s], f32, &A, &dA))
        continue;
      int G = 1; /* rung 5's lanes a row (spmm_5_colsplit.cu) */
      while (G < 32 && 2.0 * G <= (double)A->nnz / (double)A->rows)
        G *= 2;
      char g[16];
      snprintf(g, sizeof g, "%d", G);
      setenv("SMV_SPMM_GATHER_LANES", g, 1);
      for (int ki = 0; ki < 8; ki++)
        for (int var = 0; var < 3; var++) {
          /* var 1: X one element past a 16-byte boundary (scalar loads);
           * var 2: ldx = k rounded up to 4 (vectors with a partial one at
           * the row's end, k = 3, 5, 7, 11). */
          const int k = ks[ki];
          const int64_t ldx = var == 2 ? (k + 3) / 4 * 4 : k;
          CHECKF(same_bits(ctx, dA, f32, A->rows, A->cols, k, ldx, var == 1,
                           SMV_SPMM_COLSPLIT, SMV_SPMM_ROWGATHER),
                 "%s %s k=%d variant %d: rowgather differs from colsplit",
                 specs[s], f32 ? "f32" : "f64", k, var);
        }
      unsetenv("SMV_SPMM_GATHER_LANES");
      smv_matrix_free(dA);
      smv_csr_free(A);
    }
}

/* Overlapping X and Y, and sizes whose products overflow: refused before
 * anything runs. */
static void test_refused(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = gen("rand:30:4,cols=30", 0);
  smv_matrix *dA = NULL;
  CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  if (!dA) {
    smv_csr_free(A);
    return;
  }
  void *d = NULL;
  CHECK_OK(smv_device_malloc(ctx, 30 * 8 * 8, &d));
  for (size_t a = 0; d && a < NALGS; a++) {
    /* Y = X, and Y starting inside X. */
    CHECK_STATUS(smv_spmm(ctx, rung_algs[a], 1, dA, d, 4, 0, d, 4, 4,
                          SMV_LAYOUT_ROW_MAJOR),
                 SMV_ERR_ARG);
    CHECK_STR_HAS(smv_context_error(ctx), "overlap");
    CHECK_STATUS(smv_spmm(ctx, rung_algs[a], 1, dA, d, 30, 0,
                          (char *)d + 29 * 8, 30, 2, SMV_LAYOUT_COL_MAJOR),
                 SMV_ERR_ARG);
    /* (rows - 1) * ldy + k past 2^63 / 8: SMV_ERR_DIM, no wrap. */
    CHECK_STATUS(smv_spmm(ctx, rung_algs[a], 1, dA, d, 4, 0,
                          (char *)d + 4 * 30 * 8, INT64_MAX / 16, 4,
                          SMV_LAYOUT_ROW_MAJOR),
                 SMV_ERR_DIM);
    CHECK_STATUS(smv_spmm(ctx, rung_algs[a], 1, dA, d, INT64_MAX / 2, 0,
                          (char *)d + 4 * 30 * 8, 30, 2, SMV_LAYOUT_COL_MAJOR),
                 SMV_ERR_DIM);
  }
  /* Host arrays overlapping. */
  double H[200];
  tc_fill(H, 200);
  CHECK_STATUS(smv_spmm_host(ctx, SMV_SPMM_AUTO, 1, dA, H, 4, 0, H + 8, 4, 4,
                             SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  /* Rungs 3/4 lack column-major, 6 row-major; rung 2 row-major k > 1. */
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_COLTRANS, 1, dA, d, 2, 0,
                        (char *)d + 4 * 30 * 8, 2, 2, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_UNSUPPORTED);
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_ROWVEC, 1, dA, d, 30, 0,
                        (char *)d + 4 * 30 * 8, 30, 2, SMV_LAYOUT_COL_MAJOR),
               SMV_ERR_UNSUPPORTED);
  CHECK_STR_HAS(smv_context_error(ctx), "row-major");
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_SPMV, 1, dA, d, 2, 0,
                        (char *)d + 4 * 30 * 8, 2, 2, SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_UNSUPPORTED);
  smv_device_free(ctx, d);
  smv_matrix_free(dA);
  smv_csr_free(A);
}

#ifdef TC_HAVE_RUNTIME
/* A split rung inside a graph capture: refused before its first call (it
 * lists the chunks and allocates), captured and replayed after it. */
static void test_graph_split(void) {
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  smv_csr *A = gen("hubs", 0);
  smv_matrix *dA = NULL;
  cudaStream_t s = NULL;
  void *dX = NULL, *dY = NULL;
  const int k = 16;
  if (A)
    CHECK_OK(smv_matrix_create(ctx, A, SMV_F64, &dA));
  CUDA_OK(cudaStreamCreate(&s));
  if (!dA || !s)
    goto out;
  const int64_t m = A->rows, n = A->cols;
  double *X = malloc(n * k * sizeof *X), *Y0 = malloc(m * k * sizeof *X);
  double *Y = malloc(m * k * sizeof *X);
  tc_fill(X, n * k), tc_fill_nan(Y0, m * k);
  CHECK_OK(smv_context_set_stream(ctx, (void *)s));
  CHECK_OK(smv_device_malloc(ctx, n * k * 8, &dX));
  CHECK_OK(smv_device_malloc(ctx, m * k * 8, &dY));
  CHECK_OK(tc_upload(ctx, 0, X, n * k, dX));
  cudaGraph_t g = NULL;
  cudaGraphExec_t ge = NULL;
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CHECK_STATUS(smv_spmm(ctx, SMV_SPMM_ROWSPLIT, 1.0, dA, dX, k, 0.0, dY, k, k,
                        SMV_LAYOUT_ROW_MAJOR),
               SMV_ERR_ARG);
  CUDA_OK(cudaStreamEndCapture(s, &g));
  CHECK_STR_HAS(smv_context_error(ctx), "before capturing");
  if (g)
    cudaGraphDestroy(g), g = NULL;
  CHECK_OK(smv_spmm(ctx, SMV_SPMM_ROWSPLIT, 1.0, dA, dX, k, 0.0, dY, k, k,
                    SMV_LAYOUT_ROW_MAJOR));
  CHECK_OK(smv_synchronize(ctx));
  CHECK_OK(tc_upload(ctx, 0, Y0, m * k, dY));
  CUDA_OK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK_OK(smv_spmm(ctx, SMV_SPMM_ROWSPLIT, 1.0, dA, dX, k, 0.0, dY, k, k,
                    SMV_LAYOUT_ROW_MAJOR));
  CUDA_OK(cudaStreamEndCapture(s, &g));
  if (g)
    CUDA_OK(cudaGraphInstantiate(&ge, g, 0));
  for (int rep = 0; ge && rep < 2; rep++) {
    CUDA_OK(cudaGraphLaunch(ge, s));
    CUDA_OK(cudaStreamSynchronize(s));
    tc_fill_nan(Y, m * k);
    CHECK_OK(tc_download(ctx, 0, dY, m * k, Y));
    CHECK_INT(check_spmm(A, 0, 1.0, X, k, 0.0, Y0, Y, k, k,
                         SMV_LAYOUT_ROW_MAJOR, "graph rowsplit"),
              0);
  }
  if (ge)
    cudaGraphExecDestroy(ge);
  if (g)
    cudaGraphDestroy(g);
  CHECK_OK(smv_context_set_stream(ctx, NULL));
  free(X), free(Y0), free(Y);
out:
  smv_device_free(ctx, dX), smv_device_free(ctx, dY);
  if (s)
    cudaStreamDestroy(s);
  smv_matrix_free(dA);
  smv_csr_free(A);
}
#else
static void test_graph_split(void) {
  SKIP("built without the CUDA runtime header");
}
#endif

int main(void) {
  RUN(test_rungs);
  RUN(test_deterministic);
  RUN(test_rowpipe_bits);
  RUN(test_rowgather_bits);
  RUN(test_rowstream_bits);
  RUN(test_colband);
  RUN(test_chunk_order_bits);
  RUN(test_refused);
  RUN(test_graph_split);
  smv_context_free(tc_ctx);
  return TEST_END();
}
