/* test_order.c — the opt-in reorderings (smv.h, "Reordering"): RCM and
 * degree orderings are bijections and do what they promise (RCM restores
 * a grid's band from a random order, a path gets bandwidth 1, components
 * stay together), edge shapes (empty rows, nnz = 0, 1x1, 0x0,
 * rectangular refused), B = P A Q^T round trips bit for bit, bad
 * permutations are refused naming the index, vectors move and come back,
 * and CG on the permuted system gives the same x and iteration count. */
#include "smv_solve.h"
#include "test.h"

/* 1 if perm (n entries) is a bijection of 0..n-1. */
static int is_perm(int64_t n, const smv_index *perm) {
  unsigned char *seen = calloc((size_t)n + 1, 1);
  int ok = seen != NULL;
  for (int64_t i = 0; ok && i < n; i++) {
    if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
      ok = 0;
    else
      seen[perm[i]] = 1;
  }
  free(seen);
  return ok;
}

static int64_t bandwidth(const smv_csr *A) {
  int64_t bw = -1;
  CHECK_OK(smv_csr_bandwidth(A, &bw, NULL, NULL));
  return bw;
}

/* B = P A P^T by perm, or NULL (failure recorded). */
static smv_csr *sym_permute(const smv_csr *A, const smv_index *perm) {
  smv_csr *B = NULL;
  smv_error err;
  smv_status st = smv_csr_permute(A, perm, perm, &B, &err);
  CHECKF(st == SMV_OK, "%s", err.message);
  return B;
}

/* 1 if A and B hold the same arrays, bit for bit. */
static int same_csr(const smv_csr *A, const smv_csr *B) {
  if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz)
    return 0;
  return memcmp(A->row_ptr, B->row_ptr, ((size_t)A->rows + 1) * 4) == 0 &&
         (A->nnz == 0 ||
          (memcmp(A->col_idx, B->col_idx, (size_t)A->nnz * 4) == 0 &&
           memcmp(A->values, B->values, (size_t)A->nnz * 8) == 0));
}

/* Scramble square A by i -> (mul i + add) mod n (mul prime to n), order
 * the result by RCM (checked to be a permutation) and return the
 * bandwidth RCM leaves; -1 on a failure (recorded). The scrambled
 * bandwidth goes to *scrambled. */
static int64_t scrambled_rcm_bandwidth(const smv_csr *A, int mul, int add,
                                       int64_t *scrambled) {
  const int64_t n = A->rows;
  smv_index *scramble = malloc(((size_t)n + 1) * sizeof *scramble);
  smv_index *perm = malloc(((size_t)n + 1) * sizeof *perm);
  int64_t bw = -1;
  for (int64_t i = 0; scramble && i < n; i++)
    scramble[i] = (smv_index)((mul * i + add) % n);
  smv_csr *S = scramble && perm ? sym_permute(A, scramble) : NULL;
  if (S) {
    *scrambled = bandwidth(S);
    CHECK_OK(smv_order_rcm(S, perm, NULL));
    CHECK(is_perm(n, perm));
    smv_csr *R = sym_permute(S, perm);
    if (R)
      bw = bandwidth(R);
    smv_csr_free(R);
  }
  smv_csr_free(S);
  free(scramble);
  free(perm);
  return bw;
}

/* lap2d:N in random order: RCM brings the bandwidth back to at most 2N
 * (the natural ordering's is N), from about N^2 scattered. */
static void test_rcm_lap2d_rand(void) {
  const int sides[] = {10, 30, 57};
  for (size_t s = 0; s < sizeof sides / sizeof *sides; s++) {
    const int N = sides[s];
    char spec[64];
    snprintf(spec, sizeof spec, "lap2d:%d,perm=rand", N);
    smv_csr *A = tst_generate(spec);
    if (!A)
      return;
    smv_index *perm = malloc((size_t)A->rows * sizeof *perm);
    smv_error err;
    CHECK_OK(smv_order_rcm(A, perm, &err));
    CHECK(is_perm(A->rows, perm));
    smv_csr *B = sym_permute(A, perm);
    const int64_t before = bandwidth(A), after = B ? bandwidth(B) : -1;
    CHECKF(before > 4 * N, "%s: scattered bandwidth %lld", spec,
           (long long)before);
    CHECKF(after >= N && after <= 2 * N, "%s: RCM bandwidth %lld, want %d..%d",
           spec, (long long)after, N, 2 * N);
    int64_t p0 = 0, p1 = 0;
    CHECK_OK(smv_csr_bandwidth(A, NULL, &p0, NULL));
    if (B)
      CHECK_OK(smv_csr_bandwidth(B, NULL, &p1, NULL));
    CHECKF(p1 < p0 / 4, "%s: profile %lld -> %lld", spec, (long long)p0,
           (long long)p1);
    /* Deterministic: the same permutation again. */
    smv_index *again = malloc((size_t)A->rows * sizeof *again);
    CHECK_OK(smv_order_rcm(A, again, NULL));
    CHECK(memcmp(perm, again, (size_t)A->rows * sizeof *perm) == 0);
    free(again);
    smv_csr_free(B);
    free(perm);
    smv_csr_free(A);
  }
}

/* A path 0 - 1 - ... - n-1 given in a scrambled labelling: RCM finds an end
 * (pseudo-peripheral) and numbers along the path, bandwidth 1; on the
 * natural labelling the order is exactly reversed. */
static void test_rcm_path(void) {
  const int n = 40;
  smv_csr *P = NULL;
  CHECK_OK(smv_csr_create(n, n, 3 * n - 2, &P));
  if (!P)
    return;
  int64_t k = 0;
  for (int i = 0; i < n; i++) {
    for (int j = i - 1; j <= i + 1; j++)
      if (j >= 0 && j < n) {
        P->col_idx[k] = j;
        P->values[k++] = j == i ? 2.0 : -1.0;
      }
    P->row_ptr[i + 1] = (smv_offset)k;
  }
  P->sorted = 1;
  smv_index perm[40];
  CHECK_OK(smv_order_rcm(P, perm, NULL));
  for (int i = 0; i < n; i++)
    CHECK_INT(perm[i], n - 1 - i);
  /* Scramble: i -> (7 i + 3) mod 40 (7 is prime to 40). */
  int64_t scrambled = 0;
  CHECK_INT(scrambled_rcm_bandwidth(P, 7, 3, &scrambled), 1);
  CHECK(scrambled > 5);
  smv_csr_free(P);
}

/* Two grids and isolated nodes, interleaved: every component is numbered
 * contiguously, each gets its own band back, isolated nodes included. */
static void test_rcm_disconnected(void) {
  /* Block diagonal of lap2d:6 (36 rows), 3 isolated rows (empty), lap2d:5
   * (25 rows), then scrambled. */
  smv_csr *G6 = tst_generate("lap2d:6"), *G5 = tst_generate("lap2d:5");
  if (!G6 || !G5) {
    smv_csr_free(G6), smv_csr_free(G5);
    return;
  }
  const int n = 36 + 3 + 25;
  smv_csr *D = NULL;
  CHECK_OK(smv_csr_create(n, n, G6->nnz + G5->nnz, &D));
  if (!D) {
    smv_csr_free(G6), smv_csr_free(G5);
    return;
  }
  int64_t k = 0;
  for (int i = 0; i < n; i++) {
    const smv_csr *G = i < 36 ? G6 : i >= 39 ? G5 : NULL;
    const int base = i < 36 ? 0 : 39;
    if (G)
      for (int64_t q = G->row_ptr[i - base]; q < G->row_ptr[i - base + 1];
           q++) {
        D->col_idx[k] = G->col_idx[q] + base;
        D->values[k++] = G->values[q];
      }
    D->row_ptr[i + 1] = (smv_offset)k;
  }
  D->sorted = 1;
  smv_index scramble[64], perm[64];
  for (int i = 0; i < n; i++)
    scramble[i] = (smv_index)((13 * i + 5) % n); /* 13 is prime to 64 */
  smv_csr *S = sym_permute(D, scramble);
  if (S) {
    CHECK_OK(smv_order_rcm(S, perm, NULL));
    CHECK(is_perm(n, perm));
    /* Component of each old row of D, and the new positions it got. */
    int lo[3] = {n, n, n}, hi[3] = {-1, -1, -1};
    for (int i = 0; i < n; i++) {
      const int c = i < 36 ? 0 : i >= 39 ? 1 : 2;
      const int p = perm[scramble[i]];
      lo[c] = p < lo[c] ? p : lo[c];
      hi[c] = p > hi[c] ? p : hi[c];
    }
    CHECKF(hi[0] - lo[0] == 35, "grid 6: positions %d..%d", lo[0], hi[0]);
    CHECKF(hi[1] - lo[1] == 24, "grid 5: positions %d..%d", lo[1], hi[1]);
    CHECKF(hi[2] - lo[2] == 2, "isolated: positions %d..%d", lo[2], hi[2]);
    smv_csr *R = sym_permute(S, perm);
    if (R)
      CHECKF(bandwidth(R) <= 12, "bandwidth %lld", (long long)bandwidth(R));
    smv_csr_free(R);
  }
  smv_csr_free(S);
  smv_csr_free(D);
  smv_csr_free(G6);
  smv_csr_free(G5);
}

/* An unsymmetric pattern: a lower bidiagonal (only A(i, i-1) stored) is a
 * path in A + A^T, so RCM gives bandwidth 1 from a scrambled labelling. */
static void test_rcm_unsymmetric(void) {
  const int n = 30;
  smv_csr *L = NULL;
  CHECK_OK(smv_csr_create(n, n, n - 1, &L));
  if (!L)
    return;
  for (int i = 0; i < n; i++) {
    if (i > 0) {
      L->col_idx[i - 1] = i - 1;
      L->values[i - 1] = 1.0 + i;
    }
    L->row_ptr[i + 1] = i;
  }
  L->sorted = 1;
  int64_t scrambled = 0; /* 11 is prime to 30 */
  CHECK_INT(scrambled_rcm_bandwidth(L, 11, 2, &scrambled), 1);
  CHECK(scrambled > 5);
  smv_csr_free(L);
}

/* Edge shapes: all-empty rows, nnz = 0, 1x1, 0x0; rectangular refused. */
static void test_order_edges(void) {
  const char *specs[] = {"empty:5:5", "diag:1", "empty:0:0", "diag:7"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    smv_index perm[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
    CHECK_OK(smv_order_rcm(A, perm, NULL));
    CHECKF(is_perm(A->rows, perm), "%s: RCM not a permutation", specs[s]);
    /* No edges: every node is its own component, numbered in order, then
     * reversed. */
    for (int64_t i = 0; i < A->rows; i++)
      CHECK_INT(perm[i], A->rows - 1 - i);
    CHECK_OK(smv_order_degree(A, perm, NULL));
    for (int64_t i = 0; i < A->rows; i++) /* all degree 0: stable */
      CHECK_INT(perm[i], i);
    int64_t bw = -1, prof = -1;
    CHECK_OK(smv_csr_bandwidth(A, &bw, &prof, NULL));
    CHECK_INT(bw, 0);
    CHECK_INT(prof, 0);
    smv_csr *B = sym_permute(A, perm);
    if (B)
      CHECK(same_csr(A, B));
    smv_csr_free(B);
    smv_csr_free(A);
  }
  /* Some empty rows among real ones: rows 1 and 3 of a 5 x 5. */
  const smv_offset ptr[] = {0, 2, 2, 4, 4, 6};
  const smv_index idx[] = {0, 4, 2, 4, 0, 2};
  const double val[] = {1, 2, 3, 4, 5, 6};
  smv_csr *E = tst_csr(5, 5, 6, ptr, idx, val);
  if (E) {
    smv_index perm[5];
    CHECK_OK(smv_order_rcm(E, perm, NULL));
    CHECK(is_perm(5, perm));
    CHECK_OK(smv_order_degree(E, perm, NULL));
    CHECK(is_perm(5, perm));
  }
  smv_csr_free(E);
  smv_csr *R = tst_generate("rand:20:3,cols=30");
  if (R) {
    smv_index perm[20];
    smv_error err;
    CHECK_STATUS(smv_order_rcm(R, perm, &err), SMV_ERR_DIM);
    CHECK_STR_HAS(err.message, "square");
    CHECK_STATUS(smv_order_degree(R, perm, &err), SMV_ERR_DIM);
  }
  smv_csr_free(R);
  smv_error err;
  CHECK_STATUS(smv_order_rcm(NULL, NULL, &err), SMV_ERR_ARG);
}

/* Degree ordering: degrees non-decreasing in the new order, ties in the
 * old order. */
static void test_order_degree(void) {
  smv_csr *A = tst_generate("plaw:500:6,perm=rand");
  if (!A)
    return;
  smv_index *perm = malloc((size_t)A->rows * sizeof *perm);
  smv_index *inv = malloc((size_t)A->rows * sizeof *inv);
  smv_csr *AT = NULL;
  CHECK_OK(smv_order_degree(A, perm, NULL));
  CHECK(is_perm(A->rows, perm));
  CHECK_OK(smv_perm_invert(A->rows, perm, inv, NULL));
  CHECK_OK(smv_csr_transpose(A, &AT));
  /* Degree of i in A + A^T without the diagonal, by brute force. */
  int64_t *deg = calloc((size_t)A->rows, sizeof *deg);
  unsigned char *m = calloc((size_t)A->rows, 1);
  for (int64_t i = 0; AT && i < A->rows; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      if (A->col_idx[k] != i && !m[A->col_idx[k]])
        m[A->col_idx[k]] = 1, deg[i]++;
    for (int64_t k = AT->row_ptr[i]; k < AT->row_ptr[i + 1]; k++)
      if (AT->col_idx[k] != i && !m[AT->col_idx[k]])
        m[AT->col_idx[k]] = 1, deg[i]++;
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
      m[A->col_idx[k]] = 0;
    for (int64_t k = AT->row_ptr[i]; k < AT->row_ptr[i + 1]; k++)
      m[AT->col_idx[k]] = 0;
  }
  int bad = 0;
  for (int64_t p = 1; p < A->rows; p++) {
    const smv_index a = inv[p - 1], b = inv[p];
    if (deg[a] > deg[b] || (deg[a] == deg[b] && a > b))
      bad++;
  }
  CHECKF(bad == 0, "%d neighbours out of order", bad);
  CHECK(deg[inv[0]] < deg[inv[A->rows - 1]]);
  free(deg);
  free(m);
  smv_csr_free(AT);
  free(perm);
  free(inv);
  smv_csr_free(A);
}

/* B = P A Q^T then back by the inverses gives A bit for bit; square and
 * rectangular, NULL (identity) permutations too; B(P i, Q j) = A(i, j)
 * checked entry by entry through B's products. */
static void test_permute_roundtrip(void) {
  const char *specs[] = {"lap3d:7", "rand:300:9,cols=170", "denserow:200:3",
                         "plaw:400:5"};
  for (size_t s = 0; s < sizeof specs / sizeof *specs; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    smv_index *rp = malloc(((size_t)A->rows + 1) * sizeof *rp);
    smv_index *cp = malloc(((size_t)A->cols + 1) * sizeof *cp);
    smv_index *ri = malloc(((size_t)A->rows + 1) * sizeof *ri);
    smv_index *ci = malloc(((size_t)A->cols + 1) * sizeof *ci);
    /* Multiplicative scrambles by a prime larger than either size. */
    for (int64_t i = 0; i < A->rows; i++)
      rp[i] = (smv_index)((i * 7919 + 11) % A->rows);
    for (int64_t j = 0; j < A->cols; j++)
      cp[j] = (smv_index)((j * 104729 + 3) % A->cols);
    if (!is_perm(A->rows, rp) || !is_perm(A->cols, cp)) {
      CHECKF(0, "%s: test scramble is not a permutation", specs[s]);
      goto next;
    }
    CHECK_OK(smv_perm_invert(A->rows, rp, ri, NULL));
    CHECK_OK(smv_perm_invert(A->cols, cp, ci, NULL));
    smv_csr *B = NULL, *C = NULL;
    smv_error err;
    CHECK_OK(smv_csr_permute(A, rp, cp, &B, &err));
    if (B) {
      CHECK(B->sorted);
      CHECK_OK(smv_csr_check(B, NULL));
      CHECK_OK(smv_csr_permute(B, ri, ci, &C, &err));
      CHECKF(C && same_csr(A, C), "%s: round trip differs", specs[s]);
      /* B (Q x) = P (A x), to rounding (the sums run in another order). */
      double *x = malloc(((size_t)A->cols + 1) * sizeof *x);
      double *qx = malloc(((size_t)A->cols + 1) * sizeof *qx);
      double *y = malloc(((size_t)A->rows + 1) * sizeof *y);
      double *py = malloc(((size_t)A->rows + 1) * sizeof *py);
      double *by = malloc(((size_t)A->rows + 1) * sizeof *by);
      for (int64_t j = 0; j < A->cols; j++)
        x[j] = 1.0 + 0.25 * (double)(j % 13);
      CHECK_OK(smv_vec_permute(A->cols, cp, x, qx, NULL));
      CHECK_OK(smv_spmv_ref(A, 1.0, x, 0.0, y));
      CHECK_OK(smv_spmv_ref(B, 1.0, qx, 0.0, by));
      CHECK_OK(smv_vec_permute(A->rows, rp, y, py, NULL));
      double worst = 0;
      for (int64_t i = 0; i < A->rows; i++)
        worst = fmax(worst, fabs(by[i] - py[i]) / (1.0 + fabs(py[i])));
      CHECKF(worst < 1e-12, "%s: B Q x vs P A x: %g", specs[s], worst);
      /* And back: unpermute(P y) = y exactly. */
      CHECK_OK(smv_vec_unpermute(A->rows, rp, py, by, NULL));
      CHECK(memcmp(by, y, (size_t)A->rows * sizeof *y) == 0);
      free(x), free(qx), free(y), free(py), free(by);
    }
    smv_csr_free(C);
    C = NULL;
    /* Identity (NULL) gives A back. */
    CHECK_OK(smv_csr_permute(A, NULL, NULL, &C, NULL));
    CHECK(C && same_csr(A, C));
    smv_csr_free(C);
    smv_csr_free(B);
  next:
    free(rp), free(cp), free(ri), free(ci);
    smv_csr_free(A);
  }
}

/* Bad permutations are refused with the array and the first bad index. */
static void test_permute_bad(void) {
  smv_csr *A = tst_generate("lap2d:3");
  if (!A)
    return;
  smv_index p[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  smv_csr *B = NULL;
  smv_error err;
  p[4] = 9;
  CHECK_STATUS(smv_csr_permute(A, p, NULL, &B, &err), SMV_ERR_ARG);
  CHECK(B == NULL);
  CHECK_STR_HAS(err.message, "row_perm[4] = 9 is outside 0..8");
  p[4] = -1;
  CHECK_STATUS(smv_csr_permute(A, NULL, p, &B, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "col_perm[4] = -1");
  p[4] = 2; /* 2 twice: index 4 repeats index 2 */
  CHECK_STATUS(smv_csr_permute(A, p, p, &B, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "row_perm[4] = 2 repeats row_perm[2]");
  CHECK(B == NULL);
  double x[9] = {0}, y[9];
  CHECK_STATUS(smv_vec_permute(9, p, x, y, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "not a permutation");
  CHECK_STATUS(smv_vec_unpermute(9, p, x, y, &err), SMV_ERR_ARG);
  p[4] = 4;
  CHECK_STATUS(smv_vec_permute(9, p, x, x, &err), SMV_ERR_ARG);
  CHECK_STR_HAS(err.message, "overlap");
  CHECK_STATUS(smv_perm_check(3, NULL, "perm", &err), SMV_ERR_ARG);
  CHECK_OK(smv_perm_check(0, NULL, "perm", &err));
  CHECK_STATUS(smv_csr_permute(A, p, p, NULL, &err), SMV_ERR_ARG);
  smv_csr_free(A);
}

/* Bandwidth and profile of a small known matrix. */
static void test_bandwidth_profile(void) {
  /* 4 x 4: row 0 {0}, row 1 {0, 3}, row 2 {}, row 3 {1, 3}. */
  const smv_offset ptr[] = {0, 1, 3, 3, 5};
  const smv_index idx[] = {0, 0, 3, 1, 3};
  const double val[] = {1, 2, 3, 4, 5};
  smv_csr *A = tst_csr(4, 4, 5, ptr, idx, val);
  if (!A)
    return;
  int64_t bw = -1, prof = -1;
  CHECK_OK(smv_csr_bandwidth(A, &bw, &prof, NULL));
  CHECK_INT(bw, 2);   /* (1, 3) and (3, 1) */
  CHECK_INT(prof, 3); /* row 1: 1 - 0, row 3: 3 - 1 */
  A->col_idx[2] = 4;  /* out of range */
  A->sorted = 0;
  smv_error err;
  CHECK_STATUS(smv_csr_bandwidth(A, &bw, &prof, &err), SMV_ERR_INVALID_MATRIX);
  smv_csr_free(A);
}

/* CG + Jacobi on lap2d:30,perm=rand: solved in RCM order (A and b
 * permuted once, x unpermuted at the end) gives the same x to the
 * solver's tolerance and about the same iteration count. */
static void test_solve_permuted(void) {
  smv_csr *A = tst_generate("lap2d:30,perm=rand");
  if (!A)
    return;
  const int64_t n = A->rows;
  smv_index *perm = malloc((size_t)n * sizeof *perm);
  double *ones = malloc((size_t)n * sizeof *ones), *b = malloc(n * 8),
         *x0 = calloc((size_t)n, 8), *pb = malloc(n * 8),
         *px = calloc((size_t)n, 8), *x1 = malloc(n * 8);
  for (int64_t i = 0; i < n; i++)
    ones[i] = 1.0;
  CHECK_OK(smv_spmv_ref(A, 1.0, ones, 0.0, b));
  smv_solve_options o;
  smv_solve_options_init(&o);
  o.precond = SMV_PRECOND_JACOBI;
  o.tol = 1e-10;
  smv_solve_result r0, r1;
  smv_error err;
  CHECK_OK(smv_cg(A, b, x0, &o, &r0, &err));
  CHECK_OK(smv_order_rcm(A, perm, &err));
  smv_csr *B = sym_permute(A, perm);
  if (B) {
    CHECK_OK(smv_vec_permute(n, perm, b, pb, &err));
    CHECK_OK(smv_cg(B, pb, px, &o, &r1, &err));
    CHECK_OK(smv_vec_unpermute(n, perm, px, x1, &err));
    CHECK(r0.converged && r1.converged);
    const int d = abs(r0.iterations - r1.iterations);
    CHECKF(d <= r0.iterations / 20 + 1, "iterations %d vs %d", r0.iterations,
           r1.iterations);
    double e = 0;
    for (int64_t i = 0; i < n; i++)
      e = fmax(e, fabs(x1[i] - x0[i]));
    CHECKF(e < 1e-7, "max |x_rcm - x| = %g", e);
  }
  smv_csr_free(B);
  free(perm), free(ones), free(b), free(x0), free(pb), free(px), free(x1);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_rcm_lap2d_rand);
  RUN(test_rcm_path);
  RUN(test_rcm_disconnected);
  RUN(test_rcm_unsymmetric);
  RUN(test_order_edges);
  RUN(test_order_degree);
  RUN(test_permute_roundtrip);
  RUN(test_permute_bad);
  RUN(test_bandwidth_profile);
  RUN(test_solve_permuted);
  return TEST_END();
}
