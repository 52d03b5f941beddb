/*
 * fuzz_csr.c — libFuzzer target for the entry points that take a host CSR
 * built by the caller: smv_csr_check, smv_csr_stats, smv_csr_copy,
 * smv_mm_write_file, smv_spmv_ref / _ref_abs and the OpenMP fast path
 * smv_spmv_cpu / _f32 (built with -fopenmp, so several threads share it).
 *
 * The input bytes describe a CSR (layout below): shape, row offsets either
 * raw int32 or built from row lengths (then valid) and then overwritten at a
 * few places, column indices raw or in range, small integer values.
 * Invariants:
 *   - nothing reads or writes outside the arrays (ASan/UBSan);
 *   - smv_csr_check accepts exactly what a plain re-statement of the
 *     invariants accepts (check_ok below); the reference and the writer
 *     agree with it, stats and copy never pass a structurally bad row_ptr;
 *   - the fast path, given the same row_ptr with column indices forced into
 *     range (it trusts columns by contract), refuses exactly the matrices
 *     whose row_ptr is bad, leaves y untouched then, and otherwise gives
 *     EXACTLY the reference's y: values and x in -4..4, alpha in -3..3,
 *     beta in -2..2, so every partial sum is an integer below 2^24 (a row
 *     holds at most 65535 entries) and any order of addition gives the same
 *     bits, even in float; with 1 and 3 threads, f64 and f32;
 *   - x overlapping y is SMV_ERR_ARG.
 * Sizes stay small (rows, cols <= 4096, nnz <= 40000) so every input runs
 * in milliseconds; a long row (up to 16000 entries) still crosses the fast
 * path's 16384-item pieces.
 *
 *   make fuzz-csr FUZZ_TIME=600
 */
#include "../test_harden.h"
#include "smv.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_DIM 4096
#define MAX_NNZ 40000

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* Idle OpenMP threads sleep at once instead of spinning for 200 ms (LLVM's
 * libomp default): the team of 3 then shares one core with the fuzzer. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("KMP_BLOCKTIME", "0", 0);
  setenv("OMP_WAIT_POLICY", "passive", 0);
  return 0;
}

static void fail(const char *why) {
  fprintf(stderr, "fuzz_csr: invariant broken: %s\n", why);
  abort();
}

/* Input bytes, read front to back; zeros once they run out. */
typedef struct {
  const uint8_t *p;
  size_t n;
} bytes;

static uint32_t take(bytes *b, int k) {
  uint32_t v = 0;
  for (int i = 0; i < k; i++) {
    v = v << 8 | (b->n ? *b->p : 0);
    if (b->n)
      b->p++, b->n--;
  }
  return v;
}

/* The invariants of smv_csr_check, stated the plain way. */
static int structure_ok(const smv_csr *A) {
  if (A->rows < 0 || A->cols < 0 || A->nnz < 0 || A->row_ptr[0] != 0 ||
      A->row_ptr[A->rows] != A->nnz)
    return 0;
  for (int64_t i = 0; i < A->rows; i++)
    if (A->row_ptr[i + 1] < A->row_ptr[i])
      return 0;
  return 1;
}

static int check_ok(const smv_csr *A) {
  if (!structure_ok(A))
    return 0;
  for (int64_t i = 0; i < A->rows; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      if (A->col_idx[k] < 0 || A->col_idx[k] >= A->cols)
        return 0;
      if (A->sorted && k > A->row_ptr[i] && A->col_idx[k] <= A->col_idx[k - 1])
        return 0;
    }
  return 1;
}

/* The fast path on A (columns in range) against the reference. */
static void fast_path(const smv_csr *A, int valid, double alpha, double beta,
                      const double *x, const double *y0) {
  const size_t R = (size_t)A->rows + 1, C = (size_t)A->cols + 1;
  double *ref = malloc(R * sizeof *ref), *y = malloc(R * sizeof *y);
  float *xf = malloc(C * sizeof *xf), *yf = malloc(R * sizeof *yf);
  if (!ref || !y || !xf || !yf)
    fail("out of memory in the harness");
  for (size_t j = 0; j + 1 < C; j++)
    xf[j] = (float)x[j];
  memcpy(ref, y0, R * sizeof *ref);
  smv_status rs = smv_spmv_ref(A, alpha, x, beta, ref);
  if ((rs == SMV_OK) != valid)
    fail("smv_spmv_ref and the invariants disagree (in-range columns)");
  const int threads[2] = {1, 3};
  for (int t = 0; t < 2; t++) {
    harden_set_threads(threads[t]);
    memcpy(y, y0, R * sizeof *y);
    for (size_t i = 0; i < R; i++)
      yf[i] = (float)y0[i];
    smv_status s64 = smv_spmv_cpu(A, alpha, x, beta, y);
    smv_status s32 = smv_spmv_cpu_f32(A, (float)alpha, xf, (float)beta, yf);
    if (valid) {
      if (s64 != SMV_OK || s32 != SMV_OK)
        fail("fast path refused a valid matrix");
      for (size_t i = 0; i + 1 < R; i++) {
        if (memcmp(&y[i], &ref[i], sizeof y[i]) != 0)
          fail("smv_spmv_cpu differs from the reference (exact sums)");
        if ((double)yf[i] != ref[i])
          fail("smv_spmv_cpu_f32 differs from the reference (exact sums)");
      }
    } else {
      if (s64 != SMV_ERR_INVALID_MATRIX || s32 != SMV_ERR_INVALID_MATRIX)
        fail("fast path accepted a bad row_ptr");
      if (memcmp(y, y0, R * sizeof *y) != 0)
        fail("fast path wrote y before refusing");
      for (size_t i = 0; i < R; i++)
        if ((double)yf[i] != (double)(float)y0[i])
          fail("fast path (f32) wrote y before refusing");
    }
  }
  harden_set_threads(1);
  /* In place: refused whenever the ranges share an element (a matrix
   * whose row_ptr ends are wrong may be refused for that first). */
  if (A->rows > 0 && A->cols > 0) {
    memcpy(y, y0, R * sizeof *y);
    smv_status a = smv_spmv_cpu(A, alpha, y, beta, y);
    smv_status c = smv_spmv_ref(A, alpha, y, beta, y);
    if (valid ? (a != SMV_ERR_ARG || c != SMV_ERR_ARG)
              : (a == SMV_OK || c == SMV_OK))
      fail("x == y accepted");
    if (memcmp(y, y0, R * sizeof *y) != 0)
      fail("x == y refused, but y was written");
  }
  free(ref), free(y), free(xf), free(yf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  bytes b = {data, size};
  /* mode bits: 1 row_ptr from lengths (else raw int32), 2 nnz off by a
   * delta, 4 raw column indices (else in range), 8 sorted flag. */
  const uint32_t mode = take(&b, 1);
  const int64_t rows = take(&b, 2) % (MAX_DIM + 1);
  const int64_t cols = take(&b, 2) % (MAX_DIM + 1);
  smv_offset *rp = malloc(((size_t)rows + 1) * sizeof *rp);
  if (!rp)
    fail("out of memory in the harness");
  rp[0] = 0;
  if (mode & 1) {
    int64_t run = 0;
    for (int64_t i = 0; i < rows; i++) {
      uint32_t l = take(&b, 1);
      run += l < 240 ? l % 16 : (int64_t)(l - 239) * 1000;
      if (run > MAX_NNZ)
        run = MAX_NNZ;
      rp[i + 1] = (smv_offset)run;
    }
  } else {
    for (int64_t i = 0; i <= rows; i++)
      rp[i] = (smv_offset)take(&b, 4);
  }
  /* A few offsets overwritten: small moves or anything at all. */
  for (uint32_t m = take(&b, 1) % 4; m > 0; m--) {
    int64_t at = take(&b, 2) % (rows + 1);
    uint32_t kind = take(&b, 1);
    if (kind & 1)
      rp[at] = (smv_offset)take(&b, 4);
    else /* in int64: no signed overflow near INT32_MAX */
      rp[at] = (smv_offset)((int64_t)rp[at] + (int8_t)take(&b, 1));
  }
  int64_t nnz = rp[rows];
  if (mode & 2)
    nnz += (int8_t)take(&b, 1);
  if (nnz < 0 || nnz > MAX_NNZ)
    nnz = take(&b, 2);

  smv_csr A;
  memset(&A, 0, sizeof A);
  A.rows = (smv_index)rows;
  A.cols = (smv_index)cols;
  A.nnz = nnz;
  A.row_ptr = rp;
  A.sorted = (mode & 8) != 0;
  A.col_idx = malloc(((size_t)nnz + 1) * sizeof *A.col_idx);
  A.values = malloc(((size_t)nnz + 1) * sizeof *A.values);
  smv_index *inrange = malloc(((size_t)nnz + 1) * sizeof *inrange);
  if (!A.col_idx || !A.values || !inrange)
    fail("out of memory in the harness");
  for (int64_t k = 0; k < nnz; k++) {
    int32_t c = (mode & 4) ? (int32_t)take(&b, 4)
                           : (int32_t)(take(&b, 1) + 3 * k) %
                                 (cols > 0 ? (int32_t)cols : 1);
    A.col_idx[k] = c;
    inrange[k] = cols > 0 ? (smv_index)(((int64_t)c % cols + cols) % cols) : 0;
    A.values[k] = (double)((int)(take(&b, 1) % 9) - 4);
  }
  const double alpha = (double)((int)(take(&b, 1) % 7) - 3);
  const double beta = (double)((int)(take(&b, 1) % 5) - 2);
  double *x = malloc(((size_t)cols + 1) * sizeof *x);
  double *y0 = malloc(((size_t)rows + 1) * sizeof *y0);
  if (!x || !y0)
    fail("out of memory in the harness");
  for (int64_t j = 0; j < cols; j++)
    x[j] = (double)((int)(take(&b, 1) % 9) - 4);
  for (int64_t i = 0; i <= rows; i++)
    y0[i] = (double)((int)(i % 11) - 5);

  /* As given: the checked entry points. */
  const int ok = check_ok(&A), sok = structure_ok(&A);
  smv_error err;
  smv_status cs = smv_csr_check(&A, &err);
  if ((cs == SMV_OK) != ok)
    fail("smv_csr_check and the invariants disagree");
  if (cs != SMV_OK && (err.status != cs || err.message[0] == '\0'))
    fail("smv_csr_check: error record");
  double *ax = malloc(((size_t)rows + 1) * sizeof *ax);
  if (!ax)
    fail("out of memory in the harness");
  memcpy(ax, y0, ((size_t)rows + 1) * sizeof *ax);
  if ((smv_spmv_ref(&A, alpha, x, beta, ax) == SMV_OK) != ok ||
      (smv_spmv_ref_abs(&A, x, ax) == SMV_OK) != ok)
    fail("the reference and smv_csr_check disagree");
  smv_stats st;
  if (smv_csr_stats(&A, &st) == SMV_OK && !sok)
    fail("smv_csr_stats accepted a bad row_ptr");
  smv_csr *B = NULL;
  if (smv_csr_copy(&A, &B) == SMV_OK) {
    if ((smv_csr_check(B, NULL) == SMV_OK) != ok)
      fail("the copy checks differently");
    smv_csr_free(B);
  }
  if (nnz <= 4096) { /* the text is ~40 bytes an entry */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f) {
      smv_status ws = smv_mm_write_file(f, &A, &err);
      fclose(f);
      if ((ws == SMV_OK) != ok)
        fail("smv_mm_write_file and smv_csr_check disagree");
      free(text);
    }
  }

  /* Columns forced into range: only row_ptr (and nnz) can be wrong. */
  smv_index *raw = A.col_idx;
  A.col_idx = inrange;
  A.sorted = 0;
  if (cols > 0 || nnz == 0)
    fast_path(&A, sok, alpha, beta, x, y0);
  A.col_idx = raw;

  free(ax), free(x), free(y0), free(inrange);
  free(A.col_idx), free(A.values), free(rp);
  return 0;
}
