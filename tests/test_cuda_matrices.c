/*
 * test_cuda_matrices.c — every rung (and AUTO), fp64 and fp32, on every
 * Matrix Market file (.mtx, .mtx.gz) in the directory named by the
 * environment variable SMV_MATRICES (scripts/gpu/test.sh sets it to the
 * real SuiteSparse matrices carried as .shared/matrices). Without the
 * variable or the directory, or without a device, the test SKIPs: the
 * repository's tests never need files outside it.
 *
 * Two cases per matrix, rung and precision: alpha = 1, beta = 0 with y
 * poisoned by NaN (device pointers), and alpha = -0.5, beta = 2 (through
 * smv_spmv_host_vectors); fresh random x each time; bound as in
 * test_cuda_common.h.
 */
#include "test_cuda_common.h"

#include <dirent.h>

static int is_mtx(const char *name) {
  size_t n = strlen(name);
  return (n > 4 && strcmp(name + n - 4, ".mtx") == 0) ||
         (n > 7 && strcmp(name + n - 7, ".mtx.gz") == 0);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void test_matrix_dir(void) {
  const char *dir = getenv("SMV_MATRICES");
  if (!dir || !*dir)
    SKIP("SMV_MATRICES not set");
  DIR *d = opendir(dir);
  if (!d)
    SKIP("SMV_MATRICES directory not found");
  TC_NEED_DEVICE();
  smv_context *ctx = tc_context();
  char *names[512];
  int count = 0;
  struct dirent *e;
  while ((e = readdir(d)) && count < 512)
    if (is_mtx(e->d_name))
      names[count++] = strdup(e->d_name);
  closedir(d);
  qsort(names, (size_t)count, sizeof names[0], cmp_str);
  CHECKF(count > 0, "no .mtx or .mtx.gz files in %s", dir);
  int tested = 0;
  for (int f = 0; f < count; f++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    smv_csr *A = tc_read(path);
    if (!A)
      continue;
    int64_t bad_total = 0;
    for (int p = 0; p < 2; p++) {
      smv_precision prec = p ? SMV_F32 : SMV_F64;
      if (p)
        tc_round_values(A);
      smv_matrix *dA = NULL;
      smv_status st = smv_matrix_create(ctx, A, prec, &dA);
      CHECKF(st == SMV_OK, "%s: smv_matrix_create: %s", names[f],
             smv_context_error(ctx));
      if (st != SMV_OK)
        continue;
      for (int a = 0; a < SMV_ALG_COUNT; a++) {
        int64_t b1 = tc_case(ctx, dA, A, (smv_alg)a, 1.0, 0.0, 0, 1, names[f]);
        int64_t b2 = tc_case(ctx, dA, A, (smv_alg)a, -0.5, 2.0, 1, 0, names[f]);
        CHECKF(b1 == 0 && b2 == 0, "%s alg %s %s: %lld + %lld bad rows",
               names[f], smv_alg_name((smv_alg)a), p ? "f32" : "f64",
               (long long)b1, (long long)b2);
        bad_total += b1 + b2;
      }
      smv_matrix_free(dA);
    }
    fprintf(stderr, "%-28s %9lld x %-9lld nnz %9lld: %s\n", names[f],
            (long long)A->rows, (long long)A->cols, (long long)A->nnz,
            bad_total ? "FAIL" : "ok (every rung, f64 and f32)");
    tested++;
    smv_csr_free(A);
  }
  fprintf(stderr, "%d of %d matrices tested\n", tested, count);
  for (int f = 0; f < count; f++)
    free(names[f]);
}

int main(void) {
  RUN(test_matrix_dir);
  smv_context_free(tc_ctx);
  return TEST_END();
}
