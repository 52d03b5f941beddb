/*
 * mpi_dist.c — distributed SpMV against the single-process reference, run
 * by tests/cli/dist.sh under `mpirun -np 1..4`. Every rank runs every test;
 * a test fails if it failed on any rank; rank 0 prints the RESULT line.
 *
 * Bound (bench/verify.c's): |y - y_ref| <= 2 eps (len + 2) (|alpha| |A||x| +
 * |beta y0|) per row, with y_ref from smv_spmv_ref on the whole matrix.
 */
#include "smv_dist.h"
#include "test.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

static int rank_, size_;
static int use_cuda; /* SMV_DIST_TEST_CUDA=1: the CUDA backend as well */

/* Deterministic values in [-1, -1/64] u [1/64, 1]: the same on every rank. */
static double val(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  double v = 1.0 / 64 + (double)(z >> 11) * 0x1.0p-53 * (1.0 - 1.0 / 64);
  return (z & 1) ? -v : v;
}

typedef struct {
  int via_root;            /* smv_dist_create_from_root, else own rows    */
  smv_dist_partition part; /* how rows are split                          */
  smv_dist_backend backend;
  smv_dist_exchange exchange;
  int shuffle; /* own rows: reverse each row's columns (unsorted input) */
} how;

/* Create D for A (every rank holds the whole A here, so the own-rows path
 * can cut its slice; the root path reads it on rank 0 only). */
static smv_status make(const smv_csr *A, const how *h, smv_dist **D,
                       smv_error *err) {
  smv_dist_options o;
  smv_dist_options_init(&o);
  o.partition = h->part;
  o.backend = h->backend;
  o.exchange = h->exchange;
  if (h->via_root)
    return smv_dist_create_from_root(MPI_COMM_WORLD, 0, rank_ == 0 ? A : NULL,
                                     &o, D, err);
  int64_t *off = malloc(((size_t)size_ + 1) * sizeof *off);
  if (!off)
    return SMV_ERR_NOMEM;
  smv_status st =
      smv_dist_partition_rows(A->row_ptr, A->rows, size_, h->part, off);
  if (st != SMV_OK) {
    free(off);
    return st;
  }
  int64_t r0 = off[rank_], r1 = off[rank_ + 1];
  int32_t n = (int32_t)(r1 - r0);
  int32_t base = A->row_ptr[r0], nnz = A->row_ptr[r1] - base;
  int32_t *rp = malloc(((size_t)n + 1) * sizeof *rp);
  int64_t *ci = malloc(((size_t)nnz + 1) * sizeof *ci);
  double *va = malloc(((size_t)nnz + 1) * sizeof *va);
  if (!rp || !ci || !va) {
    free(off), free(rp), free(ci), free(va);
    return SMV_ERR_NOMEM;
  }
  for (int32_t i = 0; i <= n; i++)
    rp[i] = A->row_ptr[r0 + i] - base;
  for (int32_t i = 0; i < n; i++) {
    int32_t a = rp[i], b = rp[i + 1];
    for (int32_t k = a; k < b; k++) {
      int32_t src = h->shuffle ? b - 1 - (k - a) : k;
      ci[k] = A->col_idx[base + src];
      va[k] = A->values[base + src];
    }
  }
  st = smv_dist_create(MPI_COMM_WORLD, A->rows, A->cols, r0, n, rp, ci, va, &o,
                       D, err);
  free(off), free(rp), free(ci), free(va);
  return st;
}

/* y = alpha A x + beta y0 distributed, gathered on rank 0 and compared
 * with the reference and its bound; info checked against the matrix. */
static void check(const char *name, const smv_csr *A, const how *h) {
  smv_dist *D = NULL;
  smv_error err;
  smv_status st = make(A, h, &D, &err);
  CHECKF(st == SMV_OK, "%s: create: %s", name, err.message);
  if (st != SMV_OK)
    return;
  smv_dist_info in;
  CHECK_OK(smv_dist_get_info(D, &in));
  CHECK_INT(in.global_rows, A->rows);
  CHECK_INT(in.global_cols, A->cols);
  CHECK_INT(in.global_nnz, A->nnz);
  CHECK(in.exchange != SMV_DIST_EXCHANGE_AUTO);
  /* Every entry lands in exactly one block of exactly one rank. */
  int64_t mine = in.nnz_local + in.nnz_remote, total = 0, sent = 0, got = 0;
  int64_t ms = in.send_entries, mg = in.ghosts;
  MPI_Allreduce(&mine, &total, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&ms, &sent, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&mg, &got, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  CHECK_INT(total, A->nnz);
  CHECK_INT(sent, got); /* what is sent is what is received */

  uint64_t seed = 12345;
  double *x = malloc(((size_t)A->cols + 1) * sizeof *x);
  double *y0 = malloc(((size_t)A->rows + 1) * sizeof *y0);
  double *y = malloc(((size_t)A->rows + 1) * sizeof *y);
  double *ref = malloc(((size_t)A->rows + 1) * sizeof *ref);
  double *absax = malloc(((size_t)A->rows + 1) * sizeof *absax);
  double *xl = malloc(((size_t)in.local_cols + 1) * sizeof *xl);
  double *yl = malloc(((size_t)in.local_rows + 1) * sizeof *yl);
  CHECK(x && y0 && y && ref && absax && xl && yl);
  if (!(x && y0 && y && ref && absax && xl && yl))
    goto out;
  for (int64_t j = 0; j < A->cols; j++)
    x[j] = val(&seed);
  for (int64_t i = 0; i < A->rows; i++)
    y0[i] = val(&seed);
  static const double ab[][2] = {{1.5, -0.5}, {-1.0, 0.0}, {0.0, 2.0}};
  for (int c = 0; c < 3; c++) {
    double alpha = ab[c][0], beta = ab[c][1];
    CHECK_OK(smv_dist_scatter_vector(D, 0, 0, x, xl));
    CHECK_OK(smv_dist_scatter_vector(D, 0, 1, y0, yl));
    if (beta == 0)
      for (int32_t i = 0; i < in.local_rows; i++)
        yl[i] = NAN; /* beta = 0 must overwrite, not scale */
    st = smv_dist_spmv_host(D, alpha, xl, beta, yl);
    CHECKF(st == SMV_OK, "%s: spmv: %s", name, smv_dist_error(D));
    CHECK_OK(smv_dist_gather_vector(D, 0, 1, yl, y));
    if (rank_ != 0)
      continue;
    for (int64_t i = 0; i < A->rows; i++)
      ref[i] = y0[i];
    CHECK_OK(smv_spmv_ref(A, alpha, x, beta, ref));
    CHECK_OK(smv_spmv_ref_abs(A, x, absax));
    int64_t bad = 0, first = -1;
    for (int64_t i = 0; i < A->rows; i++) {
      double len = A->row_ptr[i + 1] - A->row_ptr[i];
      double bound = 2.0 * DBL_EPSILON * (len + 2) *
                     (fabs(alpha) * absax[i] + fabs(beta * y0[i]));
      if (!(fabs(y[i] - ref[i]) <= bound) && bad++ == 0)
        first = i;
    }
    CHECKF(bad == 0,
           "%s (np %d, %s, %s, alpha %g beta %g): %lld rows off, first %lld: "
           "%.17g vs %.17g",
           name, size_, h->via_root ? "root" : "own rows",
           h->part == SMV_DIST_PART_NNZ ? "nnz" : "rows", alpha, beta,
           (long long)bad, (long long)first, first >= 0 ? y[first] : 0.0,
           first >= 0 ? ref[first] : 0.0);
  }
out:
  free(x), free(y0), free(y), free(ref), free(absax), free(xl), free(yl);
  smv_dist_free(D);
}

/* Every way of creating and splitting, on the CPU backend (and CUDA when
 * asked for). */
static void check_all(const char *name, const smv_csr *A) {
  for (int b = 0; b < 1 + use_cuda; b++)
    for (int v = 0; v < 2; v++)
      for (int p = 0; p < 2; p++) {
        how h = {v, p ? SMV_DIST_PART_ROWS : SMV_DIST_PART_NNZ,
                 b ? SMV_DIST_CUDA : SMV_DIST_CPU, SMV_DIST_EXCHANGE_AUTO,
                 !v && p};
        check(name, A, &h);
      }
}

static void on_spec(const char *spec) {
  smv_csr *A = tst_generate(spec);
  if (A)
    check_all(spec, A);
  smv_csr_free(A);
}

static void test_generated(void) {
  on_spec("lap2d:7");
  on_spec("lap3d:4");
  on_spec("rand:50:6");
  on_spec("plaw:60:5");
  on_spec("band:40:3");
}

static void test_rectangular(void) {
  on_spec("rand:40:5,cols=23");
  on_spec("rand:17:4,cols=61");
  on_spec("empty:5:7"); /* no entries at all */
}

/* More ranks than rows (np 3, 4), and one long row that leaves the nnz
 * partition's other ranks empty. */
static void test_tiny_and_empty_ranks(void) {
  on_spec("lap2d:1");
  on_spec("rand:2:2");
  on_spec("denserow:12:3"); /* several dense rows among short ones */
  smv_csr *A = NULL;
  /* Hand-made 3x3: row 0 full (7 entries... of 3), rows 1-2 empty. */
  CHECK_OK(smv_csr_create(3, 3, 3, &A));
  if (!A)
    return;
  int32_t rp[] = {0, 3, 3, 3};
  memcpy(A->row_ptr, rp, sizeof rp);
  for (int k = 0; k < 3; k++) {
    A->col_idx[k] = k;
    A->values[k] = 0.25 * (k + 1);
  }
  A->sorted = 1;
  check_all("hand 3x3 one full row", A);
  smv_csr_free(A);
}

/* No off-rank columns: nothing to exchange anywhere. */
static void test_diagonal(void) {
  smv_csr *A = tst_generate("diag:13");
  if (!A)
    return;
  check_all("diag:13", A);
  how h = {1, SMV_DIST_PART_ROWS, SMV_DIST_CPU, SMV_DIST_EXCHANGE_AUTO, 0};
  smv_dist *D = NULL;
  CHECK_OK(make(A, &h, &D, NULL));
  smv_dist_info in;
  if (D && smv_dist_get_info(D, &in) == SMV_OK) {
    CHECK_INT(in.ghosts, 0);
    CHECK_INT(in.send_entries, 0);
    CHECK_INT(in.nnz_remote, 0);
  }
  smv_dist_free(D);
  smv_csr_free(A);
}

/* Dense: every rank needs x from every other rank. */
static void test_dense_coupling(void) {
  int n = 9;
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(n, n, (int64_t)n * n, &A));
  if (!A)
    return;
  uint64_t s = 7;
  for (int i = 0; i < n; i++) {
    A->row_ptr[i + 1] = (i + 1) * n;
    for (int j = 0; j < n; j++) {
      A->col_idx[i * n + j] = j;
      A->values[i * n + j] = val(&s);
    }
  }
  A->sorted = 1;
  check_all("dense 9x9", A);
  how h = {0, SMV_DIST_PART_ROWS, SMV_DIST_CPU, SMV_DIST_EXCHANGE_AUTO, 0};
  smv_dist *D = NULL;
  CHECK_OK(make(A, &h, &D, NULL));
  smv_dist_info in;
  if (D && smv_dist_get_info(D, &in) == SMV_OK) {
    CHECK_INT(in.recv_neighbors, size_ - 1);
    CHECK_INT(in.send_neighbors, size_ - 1);
    CHECK_INT(in.ghosts, n - in.local_cols);
  }
  smv_dist_free(D);
  smv_csr_free(A);
}

/* Own rows with duplicates (summed) and an x layout of the caller's. */
static void test_duplicates_and_custom_x(void) {
  /* Each rank owns 2 rows of a (2P) x (3P) matrix; row i holds column
   * (i*5) mod cols twice and column cols-1 once. */
  int64_t rows = 2 * (int64_t)size_, cols = 3 * (int64_t)size_;
  int32_t rp[3] = {0, 3, 6};
  int64_t ci[6];
  double va[6];
  for (int r = 0; r < 2; r++) {
    int64_t i = 2 * (int64_t)rank_ + r;
    ci[3 * r] = ci[3 * r + 1] = (i * 5) % cols;
    ci[3 * r + 2] = cols - 1;
    va[3 * r] = 1.0;
    va[3 * r + 1] = 2.0;
    va[3 * r + 2] = -1.0;
  }
  smv_dist_options o;
  smv_dist_options_init(&o);
  o.local_cols = rank_ == 0 ? cols : 0; /* rank 0 owns all of x */
  smv_dist *D = NULL;
  smv_error err;
  smv_status st = smv_dist_create(MPI_COMM_WORLD, rows, cols, 2 * rank_, 2, rp,
                                  ci, va, &o, &D, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  if (st != SMV_OK)
    return;
  smv_dist_info in;
  CHECK_OK(smv_dist_get_info(D, &in));
  CHECK_INT(in.local_cols, rank_ == 0 ? cols : 0);
  double *x = malloc((size_t)cols * sizeof *x);
  double y[2] = {NAN, NAN};
  CHECK(x != NULL);
  if (x) {
    for (int64_t j = 0; j < cols; j++)
      x[j] = (double)(j + 1);
    CHECK_OK(smv_dist_spmv(D, 1.0, rank_ == 0 ? x : NULL, 0.0, y));
    for (int r = 0; r < 2; r++) {
      int64_t i = 2 * (int64_t)rank_ + r;
      double want = 3.0 * (double)((i * 5) % cols + 1) - (double)cols;
      CHECK_NEAR(y[r], want, 0.0);
    }
  }
  free(x);
  smv_dist_free(D);
}

/* Errors: agreed on by every rank, never a hang. */
static void test_errors(void) {
  int32_t rp[2] = {0, 1};
  int64_t ci[1] = {0};
  double va[1] = {1.0};
  smv_dist *D = NULL;
  smv_error err;
  /* Row blocks that do not tile: every rank claims row 0. */
  smv_status st = smv_dist_create(MPI_COMM_WORLD, size_, size_, 0, 1, rp, ci,
                                  va, NULL, &D, &err);
  CHECK_STATUS(st, size_ == 1 ? SMV_OK : SMV_ERR_DIM);
  CHECK(size_ == 1 ? D != NULL : D == NULL);
  if (size_ > 1)
    CHECK_STR_HAS(err.message, "expected");
  smv_dist_free(D);
  D = NULL;
  /* A column out of range on the last rank only: all ranks fail. */
  ci[0] = rank_ == size_ - 1 ? (int64_t)size_ + 5 : rank_;
  st = smv_dist_create(MPI_COMM_WORLD, size_, size_, rank_, 1, rp, ci, va, NULL,
                       &D, &err);
  CHECK(st != SMV_OK);
  CHECK(D == NULL);
  if (rank_ == size_ - 1)
    CHECK_STR_HAS(err.message, "out of range");
  /* NCCL on the CPU backend is a usage error. */
  smv_dist_options o;
  smv_dist_options_init(&o);
  o.exchange = SMV_DIST_EXCHANGE_NCCL;
  ci[0] = rank_;
  st = smv_dist_create(MPI_COMM_WORLD, size_, size_, rank_, 1, rp, ci, va, &o,
                       &D, &err);
  CHECK_STATUS(st, SMV_ERR_ARG);
  /* The root path with a NULL matrix on the root. */
  st = smv_dist_create_from_root(MPI_COMM_WORLD, 0, NULL, NULL, &D, &err);
  CHECK_STATUS(st, SMV_ERR_ARG);
  CHECK(D == NULL);
  st = smv_dist_create_from_root(MPI_COMM_WORLD, size_, NULL, NULL, &D, &err);
  CHECK_STATUS(st, SMV_ERR_ARG);
  /* Partition arguments. */
  int64_t off[3];
  int32_t p3[4] = {0, 5, 5, 6};
  CHECK_OK(smv_dist_partition_rows(p3, 3, 2, SMV_DIST_PART_NNZ, off));
  CHECK_INT(off[0], 0);
  CHECK_INT(off[1], 1); /* row 0 alone holds 5 of 6 entries */
  CHECK_INT(off[2], 3);
  CHECK_STATUS(smv_dist_partition_rows(p3, 3, 0, SMV_DIST_PART_NNZ, off),
               SMV_ERR_ARG);
  smv_dist_free(NULL);
}

/* CUDA backend exchange paths (device runs): host-staged, CUDA-aware
 * (forced: Open MPI with the CUDA extension moves device buffers), NCCL
 * (falls back with a note when ranks share a GPU). */
static void test_cuda_paths(void) {
  if (!use_cuda)
    SKIP("SMV_DIST_TEST_CUDA not set (device runs set it)");
  smv_csr *A = tst_generate("lap3d:12");
  if (!A)
    return;
  for (int e = 1; e <= 3; e++) {
    how h = {1, SMV_DIST_PART_NNZ, SMV_DIST_CUDA, (smv_dist_exchange)e, 0};
    check(smv_dist_exchange_name((smv_dist_exchange)e), A, &h);
  }
  smv_dist_options o;
  smv_dist_options_init(&o);
  o.backend = SMV_DIST_CUDA;
  o.exchange = SMV_DIST_EXCHANGE_NCCL;
  smv_dist *D = NULL;
  smv_error err;
  smv_status st = smv_dist_create_from_root(
      MPI_COMM_WORLD, 0, rank_ == 0 ? A : NULL, &o, &D, &err);
  CHECKF(st == SMV_OK || st == SMV_ERR_UNSUPPORTED, "%s", err.message);
  if (D) {
    smv_dist_info in;
    smv_dist_get_info(D, &in);
    if (rank_ == 0)
      printf("np %d: NCCL asked, %s used; note: '%s'\n", size_,
             smv_dist_exchange_name(in.exchange), smv_dist_note(D));
    if (size_ > 1 && in.exchange != SMV_DIST_EXCHANGE_NCCL)
      CHECK_STR_HAS(smv_dist_note(D), "share one GPU");
  }
  smv_dist_free(D);
  D = NULL;
  /* Forced onto a shared GPU, NCCL itself must refuse (an error, on every
   * rank, not a hang). */
  if (size_ > 1 && st == SMV_OK) {
    o.force_nccl = 1;
    st = smv_dist_create_from_root(MPI_COMM_WORLD, 0, rank_ == 0 ? A : NULL, &o,
                                   &D, &err);
    if (rank_ == 0)
      printf("np %d: NCCL forced on a shared GPU: %s (%s)\n", size_,
             smv_status_string(st), st == SMV_OK ? "" : err.message);
    CHECK(st != SMV_OK || D != NULL);
    smv_dist_free(D);
  }
  smv_csr_free(A);
}

/* test.h's runner, with the verdict agreed over the ranks. */
static void mrun(const char *name, void (*fn)(void)) {
  tst_cur = name;
  tst_cur_failed = tst_cur_skipped = 0;
  fn();
  int f = tst_cur_failed, s = tst_cur_skipped, F = 0, S = 0;
  MPI_Allreduce(&f, &F, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&s, &S, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (F) {
    tst_fail++;
    if (rank_ == 0)
      fprintf(stderr, "FAIL %s (np %d)\n", name, size_);
  } else if (S) {
    tst_skip++;
  } else {
    tst_pass++;
  }
}
#define MRUN(fn) mrun(#fn, fn)

int main(int argc, char **argv) {
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) {
    printf("RESULT 0 1 0\n");
    return 1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  const char *c = getenv("SMV_DIST_TEST_CUDA");
  use_cuda = c && strcmp(c, "1") == 0;
  (void)tst_run; /* test.h's single-process runner; mrun replaces it */
  MRUN(test_generated);
  MRUN(test_rectangular);
  MRUN(test_tiny_and_empty_ranks);
  MRUN(test_diagonal);
  MRUN(test_dense_coupling);
  MRUN(test_duplicates_and_custom_x);
  MRUN(test_errors);
  MRUN(test_cuda_paths);
  int rc = tst_fail ? 1 : 0;
  if (rank_ == 0)
    rc = tst_end();
  MPI_Finalize();
  return rc;
}
