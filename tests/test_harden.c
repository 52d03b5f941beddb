/* test_harden.c — hostile input to the library's host entry points (issue
 * 9), meant to run under the sanitizer build (make SAN=1 CUDA=0 test):
 *   - a CSR whose interior row_ptr is not monotone is refused by every entry
 *     point that takes a host CSR, y untouched, no out-of-bounds access;
 *   - x and y overlapping is SMV_ERR_ARG on every CPU SpMV;
 *   - the fast CPU path gives identical bits for any thread count;
 *   - sizes declared by a file or a spec are checked against the memory
 *     limit (SMV_MEM_LIMIT here) before anything that large is allocated.
 * The device side of the first two is in test_cuda_harden.c. */
#include "test_harden.h"
#include "smv.h"
#include "test.h"

#include <stdint.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

static void reharden_set_threads(void) {
#ifdef _OPENMP
  omp_set_num_threads(omp_get_num_procs());
#endif
}

/* Every host entry point refuses the matrix; y keeps its contents. */
static void refuse_everywhere(smv_csr *A, const char *what) {
  const int64_t R = A->rows, C = A->cols;
  double *x = malloc((size_t)C * sizeof *x), *y = malloc((size_t)R * 8);
  float *xf = malloc((size_t)C * sizeof *xf), *yf = malloc((size_t)R * 4);
  if (!x || !y || !xf || !yf) {
    CHECK(!"out of memory");
    goto done;
  }
  for (int64_t j = 0; j < C; j++)
    x[j] = xf[j] = 1.0f;
  const int threads[] = {1, 2, 7};
  for (int t = 0; t < 3; t++) {
    harden_set_threads(threads[t]);
    for (int64_t i = 0; i < R; i++)
      y[i] = yf[i] = 42.0f;
    /* alpha = 0 reads no entry, yet the matrix is still refused. */
    for (int a = 0; a <= 1; a++) {
      CHECKF(smv_spmv_cpu(A, a, x, 0.5, y) == SMV_ERR_INVALID_MATRIX,
             "%s: smv_spmv_cpu alpha=%d, %d threads", what, a, threads[t]);
      CHECKF(smv_spmv_cpu_f32(A, (float)a, xf, 0.5f, yf) ==
                 SMV_ERR_INVALID_MATRIX,
             "%s: smv_spmv_cpu_f32 alpha=%d, %d threads", what, a, threads[t]);
    }
    int64_t moved = 0;
    for (int64_t i = 0; i < R; i++)
      moved += y[i] != 42.0 || yf[i] != 42.0f;
    CHECKF(moved == 0, "%s: %lld entries of y written on error", what,
           (long long)moved);
  }
  reharden_set_threads();
  CHECK_STATUS(smv_spmv_ref(A, 1, x, 0, y), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_ref_abs(A, x, y), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_ref_abs(A, x, NULL), SMV_ERR_INVALID_MATRIX);
  smv_error err;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row_ptr");
  smv_stats s;
  CHECK_STATUS(smv_csr_stats(A, &s), SMV_ERR_INVALID_MATRIX);
  FILE *f = tmpfile();
  CHECK(f != NULL);
  if (f) {
    CHECK_STATUS(smv_mm_write_file(f, A, &err), SMV_ERR_INVALID_MATRIX);
    fclose(f);
  }
  /* The copy duplicates the arrays without indexing through them. */
  smv_csr *B = NULL;
  CHECK_OK(smv_csr_copy(A, &B));
  if (B)
    CHECK_STATUS(smv_csr_check(B, NULL), SMV_ERR_INVALID_MATRIX);
  smv_csr_free(B);
done:
  free(x);
  free(y);
  free(xf);
  free(yf);
}

/* Issue 9, item 1: row_ptr = {0, 5, 2} overflowed the heap in the OpenMP
 * path; {0, -3, 2} returned SMV_OK with garbage. */
static void test_row_ptr_not_monotone_small(void) {
  const smv_offset mids[] = {5, -3, 3, INT32_MAX, INT32_MIN};
  for (int m = 0; m < 5; m++) {
    smv_csr *A = harden_two_rows(mids[m]);
    CHECK(A != NULL);
    if (!A)
      continue;
    char what[48];
    snprintf(what, sizeof what, "row_ptr {0,%d,2}", (int)mids[m]);
    refuse_everywhere(A, what);
    smv_csr_free(A);
  }
}

/* The same in a matrix big enough for the parallel path, with the bad
 * offset in the middle and near either end (every thread's share). */
static void test_row_ptr_not_monotone_large(void) {
  smv_csr *A = tst_generate("lap2d:300"); /* 90000 rows, 449400 nnz */
  if (!A)
    return;
  const int64_t at[] = {1, A->rows / 3, A->rows / 2, A->rows - 1};
  const smv_offset bad[] = {-1, (smv_offset)A->nnz + 7, 0};
  for (int i = 0; i < 4; i++)
    for (int b = 0; b < 3; b++) {
      const smv_offset keep = A->row_ptr[at[i]];
      A->row_ptr[at[i]] = bad[b] == 0 ? A->row_ptr[at[i] + 1] + 1 : bad[b];
      char what[64];
      snprintf(what, sizeof what, "lap2d:300 row_ptr[%lld] = %d",
               (long long)at[i], (int)A->row_ptr[at[i]]);
      refuse_everywhere(A, what);
      A->row_ptr[at[i]] = keep;
    }
  CHECK_OK(smv_csr_check(A, NULL));
  smv_csr_free(A);
}

/* Issue 9, item 3: y = A*y silently gave a wrong vector. Any overlap of x
 * (cols elements) and y (rows elements) is refused; adjacent is fine. */
static void test_aliasing(void) {
  smv_csr *A = tst_generate("rand:100:5");
  if (!A)
    return;
  double *buf = calloc(300, sizeof *buf);
  float *buff = calloc(300, sizeof *buff);
  if (!buf || !buff) {
    CHECK(!"out of memory");
  } else {
    for (int i = 0; i < 300; i++)
      buf[i] = buff[i] = 1.0f;
    const int shift[] = {0, 1, 50, 99, -1, -99};
    for (int s = 0; s < 6; s++) {
      double *x = buf + 100, *y = x + shift[s];
      float *xf = buff + 100, *yf = xf + shift[s];
      CHECKF(smv_spmv_cpu(A, 1, x, 0, y) == SMV_ERR_ARG, "shift %d", shift[s]);
      CHECKF(smv_spmv_cpu(A, 0, x, 2, y) == SMV_ERR_ARG, "shift %d", shift[s]);
      CHECKF(smv_spmv_cpu_f32(A, 1, xf, 0, yf) == SMV_ERR_ARG, "shift %d",
             shift[s]);
      CHECKF(smv_spmv_ref(A, 1, x, 1, y) == SMV_ERR_ARG, "shift %d", shift[s]);
      CHECKF(smv_spmv_ref_abs(A, x, y) == SMV_ERR_ARG, "shift %d", shift[s]);
    }
    /* Neighbours without a shared element are two vectors. */
    CHECK_OK(smv_spmv_cpu(A, 1, buf, 0, buf + 100));
    CHECK_OK(smv_spmv_cpu(A, 1, buf + 100, 0, buf));
    CHECK_OK(smv_spmv_cpu_f32(A, 1, buff, 0, buff + 100));
    CHECK_OK(smv_spmv_ref(A, 1, buf + 200, 0, buf + 100));
    CHECK_OK(smv_spmv_ref_abs(A, buf, buf + 100));
  }
  free(buf);
  free(buff);
  smv_csr_free(A);
}

/* A rows x cols matrix with every entry in row `big` and `k` entries in
 * each other row: one row long enough to cross many pieces. */
static smv_csr *one_huge_row(int rows, int cols, int big, int k) {
  int64_t nnz = (int64_t)(rows - 1) * k + cols;
  smv_csr *A = NULL;
  if (smv_csr_create(rows, cols, nnz, &A) != SMV_OK)
    return NULL;
  uint64_t s = 12345;
  int64_t e = 0;
  for (int i = 0; i < rows; i++) {
    int n = i == big ? cols : k;
    for (int j = 0; j < n; j++) {
      A->col_idx[e] = i == big ? j : (int)((j * (int64_t)cols) / k);
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      A->values[e] = (double)(s >> 11) * 0x1p-53 * 2.0 - 1.0;
      e++;
    }
    A->row_ptr[i + 1] = (smv_offset)e;
  }
  A->sorted = 1;
  return A;
}

/* Issue 9, item 4: the same bits for 1, 2, 3 and 7 threads (and, through
 * the piece size fixed by the matrix, for any other count), f64 and f32,
 * beta = 0 and beta != 0. */
static void test_deterministic_threads(void) {
  smv_csr *M[4] = {NULL, NULL, NULL, NULL};
  const char *name[4] = {"denserow:150000:4", "plaw:120000:8",
                         "one huge row (3 x 600000)", "band:70000:3"};
  CHECK_OK(smv_generate(name[0], &M[0], NULL));
  CHECK_OK(smv_generate(name[1], &M[1], NULL));
  M[2] = one_huge_row(3, 600000, 1, 2);
  CHECK(M[2] != NULL);
  CHECK_OK(smv_generate(name[3], &M[3], NULL));
  for (int m = 0; m < 4; m++) {
    smv_csr *A = M[m];
    if (!A)
      continue;
    const int64_t R = A->rows, C = A->cols;
    double *x = malloc((size_t)C * 8), *y0 = malloc((size_t)R * 8),
           *y1 = malloc((size_t)R * 8), *y = malloc((size_t)R * 8);
    float *xf = malloc((size_t)C * 4), *yf0 = malloc((size_t)R * 4),
          *yf1 = malloc((size_t)R * 4), *yf = malloc((size_t)R * 4);
    if (!x || !y0 || !y1 || !y || !xf || !yf0 || !yf1 || !yf) {
      CHECK(!"out of memory");
    } else {
      for (int64_t j = 0; j < C; j++)
        xf[j] = (float)(x[j] = sin((double)j * 0.7) + 1e-3 * (double)(j % 97));
      for (int64_t i = 0; i < R; i++)
        yf0[i] = (float)(y0[i] = cos((double)i));
      const double betas[] = {0.0, -0.75};
      for (int bi = 0; bi < 2; bi++) {
        const int threads[] = {1, 2, 3, 7};
        for (int t = 0; t < 4; t++) {
          harden_set_threads(threads[t]);
          memcpy(y, y0, (size_t)R * 8);
          memcpy(yf, yf0, (size_t)R * 4);
          CHECK_OK(smv_spmv_cpu(A, 1.25, x, betas[bi], y));
          CHECK_OK(smv_spmv_cpu_f32(A, 1.25f, xf, (float)betas[bi], yf));
          if (t == 0) {
            memcpy(y1, y, (size_t)R * 8);
            memcpy(yf1, yf, (size_t)R * 4);
            continue;
          }
          CHECKF(memcmp(y, y1, (size_t)R * 8) == 0,
                 "%s beta=%g f64: %d threads differ from 1", name[m], betas[bi],
                 threads[t]);
          CHECKF(memcmp(yf, yf1, (size_t)R * 4) == 0,
                 "%s beta=%g f32: %d threads differ from 1", name[m], betas[bi],
                 threads[t]);
        }
      }
      /* And the bits are right, not only repeatable. */
      double *ref = y;
      memcpy(ref, y0, (size_t)R * 8);
      CHECK_OK(smv_spmv_ref(A, 1.25, x, -0.75, ref));
      int64_t bad = 0;
      for (int64_t i = 0; i < R; i++)
        bad += !(fabs(y1[i] - ref[i]) <= 1e-12 * (1.0 + fabs(ref[i])));
      CHECKF(bad == 0, "%s: %lld rows far from the reference", name[m],
             (long long)bad);
    }
    reharden_set_threads();
    free(x);
    free(y0);
    free(y1);
    free(y);
    free(xf);
    free(yf0);
    free(yf1);
    free(yf);
    smv_csr_free(A);
  }
}

/* A matrix that fits one piece gives exactly the reference's bits. */
static void test_small_matches_reference(void) {
  smv_csr *A = tst_generate("denserow:2000:5");
  if (!A)
    return;
  double x[2000], y[2000], ref[2000];
  for (int j = 0; j < 2000; j++)
    x[j] = 1.0 / (j + 3.0);
  for (int i = 0; i < 2000; i++)
    y[i] = ref[i] = (double)i / 7.0;
  CHECK_OK(smv_spmv_cpu(A, 0.3, x, 1.1, y));
  CHECK_OK(smv_spmv_ref(A, 0.3, x, 1.1, ref));
  CHECK(memcmp(y, ref, sizeof y) == 0);
  smv_csr_free(A);
}

/* ---- issue 9, item 6: resources in proportion to the input -------------
 * SMV_MEM_LIMIT stands in for a machine with 1 GB free, so nothing here
 * allocates more than a few MB. */

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static void test_memory_huge_declared_rows(void) {
  char path[] = "/tmp/smv-harden-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  if (fd < 0)
    return;
  close(fd);
  /* 78 bytes, a valid matrix: 2^31 - 1 empty rows but one. Its CSR needs
   * 8.6 GB of row offsets: refused at the size line, before any of it. */
  write_text(path, "%%MatrixMarket matrix coordinate real general\n"
                   "2147483647 2147483647 1\n1 1 2.5\n");
  setenv("SMV_MEM_LIMIT", "1G", 1);
  smv_csr *A = NULL;
  smv_error err;
  CHECK_STATUS(smv_mm_read(path, NULL, &A, &err), SMV_ERR_NOMEM);
  CHECK(A == NULL);
  CHECK_INT(err.line, 2);
  CHECK_STR_HAS(err.message, "needs 8.59 GB of memory");
  CHECK_STR_HAS(err.message, "SMV_MEM_LIMIT");
  /* The same shape with fewer rows is valid and read (80 MB of offsets). */
  write_text(path, "%%MatrixMarket matrix coordinate real general\n"
                   "20000000 2147483647 1\n20000000 2147483647 2.5\n");
  CHECK_OK(smv_mm_read(path, NULL, &A, &err));
  if (A) {
    CHECK_INT(A->rows, 20000000);
    CHECK_INT(A->nnz, 1);
    CHECK(A->row_ptr[19999999] == 0 && A->row_ptr[20000000] == 1);
    CHECK_INT(A->col_idx[0], 2147483646);
  }
  smv_csr_free(A);
  /* A vector file declaring 2^31 - 1 values for a 9-column matrix: the
   * length is compared at the size line, nothing is allocated. */
  write_text(path, "%%MatrixMarket matrix coordinate real general\n"
                   "2147483647 1 1\n1 1 1\n");
  double *v = (double *)&v;
  CHECK_STATUS(smv_mm_read_vector_n(path, 9, &v, &err), SMV_ERR_DIM);
  CHECK(v == NULL);
  CHECK_INT(err.line, 2);
  CHECK_STR_HAS(err.message, "vector has 2147483647 entries, expected 9");
  /* Without a length the vector reader still cannot build it in 1 GB. */
  int64_t n = 0;
  CHECK_STATUS(smv_mm_read_vector(path, &v, &n, &err), SMV_ERR_NOMEM);
  /* The limit reaches smv_csr_create itself. */
  CHECK_STATUS(smv_csr_create(INT32_MAX, 1, 0, &A), SMV_ERR_NOMEM);
  CHECK(A == NULL);
  /* "0" lifts the limit (the allocation is then only attempted lazily:
   * a small one here). */
  setenv("SMV_MEM_LIMIT", "0", 1);
  CHECK_OK(smv_csr_create(1000, 1000, 10, &A));
  smv_csr_free(A);
  unsetenv("SMV_MEM_LIMIT");
  remove(path);
}

/* In-range generator specs larger than memory: a clear "needs N GB" error
 * from the spec, before any allocation (they were killed by the OOM killer
 * with no message). */
static void test_memory_generator(void) {
  setenv("SMV_MEM_LIMIT", "512M", 1);
  const char *big[] = {"rand:2000000000:1", "empty:2000000000:5", "lap3d:600",
                       "denserow:100:5,cols=2000000000"};
  for (int i = 0; i < 4; i++) {
    smv_csr *A = NULL;
    smv_error err;
    CHECKF(smv_generate(big[i], &A, &err) == SMV_ERR_NOMEM, "%s", big[i]);
    CHECK(A == NULL);
    CHECK_STR_HAS(err.message, "needs");
    CHECK_STR_HAS(err.message, "GB of memory, more than the 0.537 GB");
  }
  smv_csr *A = NULL;
  CHECK_OK(smv_generate("lap2d:100", &A, NULL)); /* small ones still work */
  smv_csr_free(A);
  /* A limit that does not parse is an error that says so (issue 25, item
   * 9: it used to be ignored, lifting the limit the user asked for). */
  const char *bad[] = {"lots", "inf", "-1", "4GB2", "1e40"};
  for (int i = 0; i < 5; i++) {
    smv_error err;
    setenv("SMV_MEM_LIMIT", bad[i], 1);
    A = NULL;
    CHECKF(smv_generate("lap2d:100", &A, &err) == SMV_ERR_NOMEM, "%s", bad[i]);
    CHECK(A == NULL);
    CHECK_STR_HAS(err.message, "is not a size");
  }
  /* The documented suffixes: K/M/G/T, with B or iB. */
  const char *good[] = {"4G", "4GB", "4GiB", "4096MiB", "4194304k", "off", "0"};
  for (int i = 0; i < 7; i++) {
    setenv("SMV_MEM_LIMIT", good[i], 1);
    CHECKF(smv_generate("lap2d:100", &A, NULL) == SMV_OK, "%s", good[i]);
    smv_csr_free(A);
    A = NULL;
  }
  unsetenv("SMV_MEM_LIMIT");
}

/* smv_memory_check: the guard for a caller's own arrays (the CLI's x, y,
 * b and workspace). */
static void test_memory_check(void) {
  smv_error err;
  setenv("SMV_MEM_LIMIT", "1GiB", 1);
  CHECK_OK(smv_memory_check(1e6, "x", &err));
  CHECK(smv_memory_check(17.2e9, "x of 2^31 - 1 columns", &err) ==
        SMV_ERR_NOMEM);
  CHECK_STR_HAS(err.message, "x of 2^31 - 1 columns needs 17.2 GB of memory, "
                             "more than the 1.07 GB available (SMV_MEM_LIMIT)");
  setenv("SMV_MEM_LIMIT", "inf", 1);
  CHECK(smv_memory_check(8, "y", &err) == SMV_ERR_NOMEM);
  CHECK_STR_HAS(err.message, "SMV_MEM_LIMIT='inf' is not a size");
  unsetenv("SMV_MEM_LIMIT");
  CHECK_OK(smv_memory_check(1024, NULL, NULL));
}

int main(void) {
  RUN(test_row_ptr_not_monotone_small);
  RUN(test_row_ptr_not_monotone_large);
  RUN(test_aliasing);
  RUN(test_deterministic_threads);
  RUN(test_small_matches_reference);
  RUN(test_memory_huge_declared_rows);
  RUN(test_memory_generator);
  RUN(test_memory_check);
  return TEST_END();
}
