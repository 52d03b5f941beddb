/* test_spmv_cpu.c — the CPU SpMV paths against a dense reference.
 *
 * Small random matrices (empty rows, rectangular both ways, unsorted rows,
 * explicit zeros, nnz = 0, 1 x 1, 0 x n, n x 0) are expanded to dense and
 * multiplied the obvious way; smv_spmv_ref, smv_spmv_cpu (at several thread
 * counts) and smv_spmv_cpu_f32 must match within a bound scaled by row
 * length and |alpha||A||x| + |beta||y0|. Larger generated matrices, where
 * the OpenMP merge path really splits rows across threads, are checked
 * against smv_spmv_ref. BLAS corner cases: beta = 0 with y poisoned by
 * NaN/Inf, alpha = 0 with x (and A) holding NaN. */
#include "smv.h"
#include "test.h"

#include <float.h>
#include <stdint.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Test-local PRNG (xorshift64*), independent of the library's. */
static uint64_t tr_state = 0x2545f4914f6cdd1dull;
static uint64_t tr_next(void) {
  tr_state ^= tr_state >> 12;
  tr_state ^= tr_state << 25;
  tr_state ^= tr_state >> 27;
  return tr_state * 0x2545f4914f6cdd1dull;
}
static double tr_unif(void) { return (double)(tr_next() >> 11) * 0x1p-53; }
static int tr_below(int n) { return (int)(tr_next() % (uint64_t)n); }

/* A random rows x cols CSR with about `density` of each row filled, some
 * rows forced empty, some explicit zeros, and (if !sorted) each row's
 * entries shuffled. Columns are distinct within a row. */
static smv_csr *random_csr(int rows, int cols, double density, int sorted) {
  int64_t cap = (int64_t)rows * cols;
  smv_csr *A = NULL;
  if (smv_csr_create(rows, cols, cap, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (int i = 0; i < rows; i++) {
    int empty = tr_below(5) == 0;
    int64_t start = k;
    for (int j = 0; j < cols && !empty; j++) {
      if (tr_unif() >= density)
        continue;
      A->col_idx[k] = j;
      A->values[k] = tr_below(10) == 0 ? 0.0 : 4.0 * tr_unif() - 2.0;
      k++;
    }
    if (!sorted)
      for (int64_t a = k - 1; a > start; a--) {
        int64_t b = start + tr_below((int)(a - start + 1));
        smv_index tc = A->col_idx[a];
        double tv = A->values[a];
        A->col_idx[a] = A->col_idx[b];
        A->values[a] = A->values[b];
        A->col_idx[b] = tc;
        A->values[b] = tv;
      }
    A->row_ptr[i + 1] = (smv_offset)k;
  }
  A->nnz = k;
  A->sorted = sorted;
  return A;
}

static void random_vec(double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    v[i] = 2.0 * tr_unif() - 1.0;
}

/* y = alpha*D*x + beta*y with D the dense expansion of A (row-major,
 * rows x cols doubles), the textbook loops. Also the bound
 * |alpha| (|A||x|)_i + |beta y_i| and the row lengths. */
static void dense_ref(const smv_csr *A, double alpha, const double *x,
                      double beta, const double *y0, double *y, double *bound,
                      int64_t *len) {
  int64_t R = A->rows, C = A->cols;
  double *D = calloc((size_t)(R * C + 1), sizeof *D);
  if (!D)
    return;
  for (int64_t i = 0; i < R; i++)
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      D[i * C + A->col_idx[k]] += A->values[k];
  for (int64_t i = 0; i < R; i++) {
    double s = 0, a = 0;
    for (int64_t j = 0; j < C; j++) {
      s += D[i * C + j] * x[j];
      a += fabs(D[i * C + j] * x[j]);
    }
    y[i] = alpha * s + (beta == 0 ? 0.0 : beta * y0[i]);
    bound[i] = fabs(alpha) * a + fabs(beta * y0[i]);
    len[i] = A->row_ptr[i + 1] - A->row_ptr[i];
  }
  free(D);
}

/* |got - want| <= c * eps * (len + 2) * bound, per entry. */
static int64_t count_bad(const double *got, const double *want,
                         const double *bound, const int64_t *len, int64_t n,
                         double eps, const char *what) {
  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++) {
    double tol = 4.0 * eps * (double)(len[i] + 2) * bound[i];
    if (!(fabs(got[i] - want[i]) <= tol)) {
      if (bad < 3)
        fprintf(stderr, "  %s: y[%lld] = %.17g, want %.17g (tol %g)\n", what,
                (long long)i, got[i], want[i], tol);
      bad++;
    }
  }
  return bad;
}

static const double cases[][2] = {{1, 0}, {2.5, 0}, {1, 1},  {-0.5, 1}, {2, -3},
                                  {0, 0}, {0, 1},   {0, -2}, {1e-3, 7}};
#define NCASES (int)(sizeof cases / sizeof cases[0])

/* Every path and (alpha, beta) case on one matrix against the dense
 * reference. */
static void check_matrix(const smv_csr *A, const char *name) {
  int64_t R = A->rows, C = A->cols;
  double *x = malloc((size_t)(C + 1) * sizeof *x);
  double *y0 = malloc((size_t)(R + 1) * sizeof *y0);
  double *want = malloc((size_t)(R + 1) * sizeof *want);
  double *bound = malloc((size_t)(R + 1) * sizeof *bound);
  double *y = malloc((size_t)(R + 1) * sizeof *y);
  int64_t *len = malloc((size_t)(R + 1) * sizeof *len);
  float *xf = malloc((size_t)(C + 1) * sizeof *xf);
  float *yf = malloc((size_t)(R + 1) * sizeof *yf);
  if (!x || !y0 || !want || !bound || !y || !len || !xf || !yf) {
    CHECK(!"out of memory");
    goto done;
  }
  random_vec(x, C);
  random_vec(y0, R);
  for (int c = 0; c < NCASES; c++) {
    double alpha = cases[c][0], beta = cases[c][1];
    char what[160];
    dense_ref(A, alpha, x, beta, y0, want, bound, len);

    memcpy(y, y0, (size_t)R * sizeof *y);
    CHECK_OK(smv_spmv_ref(A, alpha, x, beta, y));
    snprintf(what, sizeof what, "%s ref alpha=%g beta=%g", name, alpha, beta);
    CHECKF(count_bad(y, want, bound, len, R, DBL_EPSILON, what) == 0, "%s",
           what);

    const int threads[] = {1, 2, 3, 7};
    for (int t = 0; t < 4; t++) {
#ifdef _OPENMP
      omp_set_num_threads(threads[t]);
#endif
      memcpy(y, y0, (size_t)R * sizeof *y);
      CHECK_OK(smv_spmv_cpu(A, alpha, x, beta, y));
      snprintf(what, sizeof what, "%s cpu(%d threads) alpha=%g beta=%g", name,
               threads[t], alpha, beta);
      CHECKF(count_bad(y, want, bound, len, R, DBL_EPSILON, what) == 0, "%s",
             what);
    }

    /* f32: inputs rounded to float, float accumulation. The reference is
     * the double result on the float-rounded x and y0 (the matrix values'
     * rounding is inside the bound's relative error). */
    for (int64_t j = 0; j < C; j++)
      xf[j] = (float)x[j];
    for (int64_t i = 0; i < R; i++)
      yf[i] = (float)y0[i];
    CHECK_OK(smv_spmv_cpu_f32(A, (float)alpha, xf, (float)beta, yf));
    for (int64_t i = 0; i < R; i++)
      y[i] = yf[i];
    snprintf(what, sizeof what, "%s f32 alpha=%g beta=%g", name, alpha, beta);
    CHECKF(count_bad(y, want, bound, len, R, FLT_EPSILON, what) == 0, "%s",
           what);
  }
#ifdef _OPENMP
  omp_set_num_threads(omp_get_num_procs());
#endif
done:
  free(x);
  free(y0);
  free(want);
  free(bound);
  free(y);
  free(len);
  free(xf);
  free(yf);
}

static void test_random_small(void) {
  const int shapes[][2] = {{1, 1},  {1, 9},  {9, 1},   {13, 13},
                           {40, 7}, {7, 40}, {64, 64}, {100, 33}};
  for (int s = 0; s < 8; s++)
    for (int sorted = 0; sorted <= 1; sorted++) {
      const double dens[] = {0.05, 0.3, 1.0};
      for (int d = 0; d < 3; d++) {
        smv_csr *A = random_csr(shapes[s][0], shapes[s][1], dens[d], sorted);
        CHECK(A != NULL);
        if (!A)
          continue;
        CHECK_OK(smv_csr_check(A, NULL));
        char name[64];
        snprintf(name, sizeof name, "%dx%d d=%.2f sorted=%d", shapes[s][0],
                 shapes[s][1], dens[d], sorted);
        check_matrix(A, name);
        smv_csr_free(A);
      }
    }
}

static void test_degenerate_shapes(void) {
  const char *specs[] = {"empty:5:7",    "empty:0:0", "empty:0:4",
                         "empty:4:0",    "diag:1",    "band:9:2,cols=3",
                         "diag:6,cols=4"};
  for (int s = 0; s < 7; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (A)
      check_matrix(A, specs[s]);
    smv_csr_free(A);
  }
}

/* Generated matrices big enough for the parallel merge path (rows + nnz
 * well past its serial threshold), including one row holding a quarter of
 * the entries and power-law rows: the merge path splits those rows across
 * threads, and the carries must add up. Checked against smv_spmv_ref. */
static void test_parallel_vs_ref(void) {
  const char *specs[] = {"denserow:60000:3", "plaw:40000:8",
                         "rand:50000:5,cols=7000", "band:40000:3,cols=20000",
                         "lap2d:150"};
  for (int s = 0; s < 5; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    int64_t R = A->rows, C = A->cols;
    double *x = malloc((size_t)C * sizeof *x), *y0 = malloc((size_t)R * 8),
           *ref = malloc((size_t)R * 8), *y = malloc((size_t)R * 8),
           *bound = malloc((size_t)R * 8);
    int64_t *len = malloc((size_t)R * sizeof *len);
    if (!x || !y0 || !ref || !y || !bound || !len) {
      CHECK(!"out of memory");
    } else {
      random_vec(x, C);
      random_vec(y0, R);
      CHECK_OK(smv_spmv_ref_abs(A, x, bound));
      for (int64_t i = 0; i < R; i++) {
        bound[i] = 1.5 * bound[i] + 0.5 * fabs(y0[i]);
        len[i] = A->row_ptr[i + 1] - A->row_ptr[i];
      }
      memcpy(ref, y0, (size_t)R * 8);
      CHECK_OK(smv_spmv_ref(A, 1.5, x, 0.5, ref));
      const int threads[] = {1, 2, 4, 5, 16, 61};
      for (int t = 0; t < 6; t++) {
#ifdef _OPENMP
        omp_set_num_threads(threads[t]);
#endif
        memcpy(y, y0, (size_t)R * 8);
        CHECK_OK(smv_spmv_cpu(A, 1.5, x, 0.5, y));
        char what[96];
        snprintf(what, sizeof what, "%s with %d threads", specs[s], threads[t]);
        CHECKF(count_bad(y, ref, bound, len, R, DBL_EPSILON, what) == 0, "%s",
               what);
      }
#ifdef _OPENMP
      omp_set_num_threads(omp_get_num_procs());
#endif
    }
    free(x);
    free(y0);
    free(ref);
    free(y);
    free(bound);
    free(len);
    smv_csr_free(A);
  }
}

/* beta = 0 must overwrite y: NaN and Inf already there never leak. */
static void test_beta_zero_poison(void) {
  smv_csr *A = tst_generate("plaw:70000:4"); /* parallel path too */
  if (!A)
    return;
  int64_t R = A->rows;
  double *x = malloc((size_t)R * 8), *y = malloc((size_t)R * 8),
         *ref = malloc((size_t)R * 8);
  float *xf = malloc((size_t)R * 4), *yf = malloc((size_t)R * 4);
  if (x && y && ref && xf && yf) {
    random_vec(x, R);
    for (int64_t i = 0; i < R; i++)
      xf[i] = (float)x[i];
    CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, ref)); /* y content irrelevant */
    for (int path = 0; path < 3; path++) {
      for (int64_t i = 0; i < R; i++) {
        y[i] = i % 2 ? NAN : INFINITY;
        yf[i] = i % 2 ? NAN : -INFINITY;
      }
      if (path == 0)
        CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, y));
      else if (path == 1)
        CHECK_OK(smv_spmv_cpu(A, 1.0, x, 0.0, y));
      else
        CHECK_OK(smv_spmv_cpu_f32(A, 1.0f, xf, 0.0f, yf));
      int64_t nonfinite = 0;
      for (int64_t i = 0; i < R; i++)
        nonfinite += !isfinite(path == 2 ? (double)yf[i] : y[i]);
      CHECKF(nonfinite == 0, "path %d: %lld non-finite entries leaked", path,
             (long long)nonfinite);
      if (path == 1)
        for (int64_t i = 0; i < R; i++)
          CHECK(fabs(y[i] - ref[i]) <= 1e-12 * (1 + fabs(ref[i])));
    }
    /* alpha = 0, beta = 0: zeros, whatever y held. */
    for (int64_t i = 0; i < R; i++)
      y[i] = NAN;
    CHECK_OK(smv_spmv_cpu(A, 0.0, x, 0.0, y));
    int64_t nz = 0;
    for (int64_t i = 0; i < R; i++)
      nz += y[i] != 0.0;
    CHECK_INT(nz, 0);
  }
  free(x);
  free(y);
  free(ref);
  free(xf);
  free(yf);
  smv_csr_free(A);
}

/* alpha = 0 gives beta*y without reading A or x: NaN in x (and in A's
 * values) never leaks. */
static void test_alpha_zero_nan(void) {
  smv_csr *A = tst_generate("rand:80000:3");
  if (!A)
    return;
  int64_t R = A->rows;
  A->values[0] = NAN; /* would poison row 0 if read */
  double *x = malloc((size_t)R * 8), *y = malloc((size_t)R * 8);
  float *xf = malloc((size_t)R * 4), *yf = malloc((size_t)R * 4);
  if (x && y && xf && yf) {
    for (int64_t i = 0; i < R; i++) {
      x[i] = NAN;
      xf[i] = NAN;
    }
    for (int path = 0; path < 3; path++) {
      for (int64_t i = 0; i < R; i++) {
        y[i] = (double)(i % 13) - 6.0;
        yf[i] = (float)y[i];
      }
      smv_status st = path == 0   ? smv_spmv_ref(A, 0.0, x, -2.0, y)
                      : path == 1 ? smv_spmv_cpu(A, 0.0, x, -2.0, y)
                                  : smv_spmv_cpu_f32(A, 0.0f, xf, -2.0f, yf);
      CHECK_OK(st);
      int64_t bad = 0;
      for (int64_t i = 0; i < R; i++) {
        double want = -2.0 * ((double)(i % 13) - 6.0);
        double got = path == 2 ? (double)yf[i] : y[i];
        bad += got != want;
      }
      CHECKF(bad == 0, "path %d: %lld entries differ from -2*y", path,
             (long long)bad);
    }
    /* alpha = 0, beta = 1 leaves y exactly as it was. */
    for (int64_t i = 0; i < R; i++)
      y[i] = (double)i * 0.25;
    CHECK_OK(smv_spmv_cpu(A, 0.0, x, 1.0, y));
    int64_t moved = 0;
    for (int64_t i = 0; i < R; i++)
      moved += y[i] != (double)i * 0.25;
    CHECK_INT(moved, 0);
  }
  free(x);
  free(y);
  free(xf);
  free(yf);
  smv_csr_free(A);
}

static void test_ref_abs(void) {
  /* [1 -2; 0 3] x = (-1, 2): |A||x| = (1*1 + 2*2, 3*2) = (5, 6). */
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(2, 2, 3, &A));
  if (!A)
    return;
  const smv_offset rp[] = {0, 2, 3};
  const smv_index ci[] = {0, 1, 1};
  const double v[] = {1, -2, 3};
  memcpy(A->row_ptr, rp, sizeof rp);
  memcpy(A->col_idx, ci, sizeof ci);
  memcpy(A->values, v, sizeof v);
  A->sorted = 1;
  const double x[] = {-1, 2};
  double ax[2] = {NAN, NAN}, y[2];
  CHECK_OK(smv_spmv_ref_abs(A, x, ax));
  CHECK(ax[0] == 5.0 && ax[1] == 6.0);
  CHECK_OK(smv_spmv_ref_abs(A, x, NULL)); /* allowed: validation only */
  CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, y));
  CHECK(y[0] == -5.0 && y[1] == 6.0);
  CHECK_STATUS(smv_spmv_ref_abs(A, NULL, ax), SMV_ERR_ARG);
  smv_csr_free(A);
}

static void test_bad_args(void) {
  smv_csr *A = tst_generate("rand:10:3");
  if (!A)
    return;
  double x[10] = {0}, y[10] = {0};
  float xf[10] = {0}, yf[10] = {0};
  CHECK_STATUS(smv_spmv_ref(NULL, 1, x, 0, y), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_ref(A, 1, NULL, 0, y), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_ref(A, 1, x, 0, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu(NULL, 1, x, 0, y), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu(A, 1, NULL, 0, y), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu(A, 1, x, 0, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu(A, 0, NULL, 1, y), SMV_ERR_ARG); /* still */
  CHECK_STATUS(smv_spmv_cpu_f32(NULL, 1, xf, 0, yf), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu_f32(A, 1, NULL, 0, yf), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_cpu_f32(A, 1, xf, 0, NULL), SMV_ERR_ARG);
  CHECK_STATUS(smv_spmv_ref_abs(NULL, x, y), SMV_ERR_ARG);
  /* NULL vectors are fine where their length is zero. */
  smv_csr *E = tst_generate("empty:0:0");
  CHECK_OK(smv_spmv_ref(E, 1, NULL, 0, NULL));
  CHECK_OK(smv_spmv_cpu(E, 1, NULL, 0, NULL));
  CHECK_OK(smv_spmv_cpu_f32(E, 1, NULL, 0, NULL));
  smv_csr_free(E);
  /* Inconsistent matrices: the cheap check (row_ptr[rows] != nnz) on every
   * path, the full check (a column out of range) in the reference. */
  A->row_ptr[10] = 29;
  CHECK_STATUS(smv_spmv_cpu(A, 1, x, 0, y), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_cpu_f32(A, 1, xf, 0, yf), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_ref(A, 1, x, 0, y), SMV_ERR_INVALID_MATRIX);
  A->row_ptr[10] = 30;
  A->col_idx[5] = 10;
  CHECK_STATUS(smv_spmv_ref(A, 1, x, 0, y), SMV_ERR_INVALID_MATRIX);
  CHECK_STATUS(smv_spmv_ref_abs(A, x, y), SMV_ERR_INVALID_MATRIX);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_random_small);
  RUN(test_degenerate_shapes);
  RUN(test_parallel_vs_ref);
  RUN(test_beta_zero_poison);
  RUN(test_alpha_zero_nan);
  RUN(test_ref_abs);
  RUN(test_bad_args);
  return TEST_END();
}
