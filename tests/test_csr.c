/* test_csr.c — smv_csr_create/free/copy/check: sizes, overflow, deep copy,
 * and every invariant smv_csr_check enforces, with the message naming the
 * first bad row or entry. */
#include "smv.h"
#include "test.h"

#include <stdint.h>

/* 3 x 4:  [1 0 2 0; 0 0 0 0; 0 3 0 4]  (row 1 empty) */
static smv_csr *small(void) {
  const smv_offset rp[] = {0, 2, 2, 4};
  const smv_index ci[] = {0, 2, 1, 3};
  const double v[] = {1, 2, 3, 4};
  return tst_csr(3, 4, 4, rp, ci, v);
}

static void test_create(void) {
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(5, 7, 11, &A));
  CHECK(A != NULL);
  if (!A)
    return;
  CHECK_INT(A->rows, 5);
  CHECK_INT(A->cols, 7);
  CHECK_INT(A->nnz, 11);
  CHECK(A->row_ptr && A->col_idx && A->values);
  for (int i = 0; i <= 5; i++)
    CHECK_INT(A->row_ptr[i], 0); /* row_ptr comes zeroed */
  CHECK_INT(A->field, SMV_FIELD_REAL);
  CHECK_INT(A->symmetry, SMV_SYM_GENERAL);
  smv_csr_free(A);
}

static void test_create_empty_shapes(void) {
  smv_csr *A = NULL;
  CHECK_OK(smv_csr_create(0, 0, 0, &A));
  CHECK(A && A->row_ptr && A->row_ptr[0] == 0);
  CHECK_OK(smv_csr_check(A, NULL));
  smv_csr_free(A);
  CHECK_OK(smv_csr_create(4, 0, 0, &A));
  CHECK_OK(smv_csr_check(A, NULL));
  smv_csr_free(A);
  CHECK_OK(smv_csr_create(0, 9, 0, &A));
  CHECK_OK(smv_csr_check(A, NULL));
  smv_csr_free(A);
}

static void test_create_bad_args(void) {
  smv_csr *A = (smv_csr *)1;
  CHECK_STATUS(smv_csr_create(-1, 3, 0, &A), SMV_ERR_ARG);
  CHECK(A == NULL); /* cleared on failure */
  CHECK_STATUS(smv_csr_create(3, -1, 0, &A), SMV_ERR_ARG);
  CHECK_STATUS(smv_csr_create(3, 3, -5, &A), SMV_ERR_ARG);
  CHECK_STATUS(smv_csr_create(3, 3, 0, NULL), SMV_ERR_ARG);
  /* nnz beyond the int32 offsets: refused before any allocation. */
  CHECK_STATUS(smv_csr_create(3, 3, (int64_t)SMV_OFFSET_MAX + 1, &A),
               SMV_ERR_OVERFLOW);
  CHECK(A == NULL);
  CHECK_STATUS(smv_csr_create(3, 3, INT64_MAX, &A), SMV_ERR_OVERFLOW);
  smv_csr_free(NULL); /* NULL-safe */
}

static void test_copy(void) {
  smv_csr *A = small(), *B = NULL;
  CHECK(A != NULL);
  if (!A)
    return;
  A->field = SMV_FIELD_PATTERN;
  A->symmetry = SMV_SYM_SYMMETRIC;
  CHECK_OK(smv_csr_copy(A, &B));
  CHECK(B && B != A);
  if (B) {
    CHECK_INT(B->rows, 3);
    CHECK_INT(B->cols, 4);
    CHECK_INT(B->nnz, 4);
    CHECK(memcmp(A->row_ptr, B->row_ptr, 4 * sizeof(smv_offset)) == 0);
    CHECK(memcmp(A->col_idx, B->col_idx, 4 * sizeof(smv_index)) == 0);
    CHECK(memcmp(A->values, B->values, 4 * sizeof(double)) == 0);
    CHECK(B->row_ptr != A->row_ptr && B->values != A->values);
    CHECK_INT(B->sorted, 1);
    CHECK_INT(B->field, SMV_FIELD_PATTERN);
    CHECK_INT(B->symmetry, SMV_SYM_SYMMETRIC);
    /* Deep: changing the copy leaves the original alone. */
    B->values[0] = 99;
    B->col_idx[0] = 3;
    CHECK(A->values[0] == 1 && A->col_idx[0] == 0);
  }
  smv_csr_free(B);
  CHECK_STATUS(smv_csr_copy(NULL, &B), SMV_ERR_ARG);
  CHECK(B == NULL);
  CHECK_STATUS(smv_csr_copy(A, NULL), SMV_ERR_ARG);
  smv_csr_free(A);
  /* Copy of an empty matrix (NULL entry arrays). */
  smv_csr *E = NULL, *F = NULL;
  CHECK_OK(smv_csr_create(2, 2, 0, &E));
  CHECK_OK(smv_csr_copy(E, &F));
  CHECK(F && F->nnz == 0 && F->rows == 2);
  smv_csr_free(E);
  smv_csr_free(F);
}

static void test_check_valid(void) {
  smv_csr *A = small();
  smv_error err;
  CHECK_OK(smv_csr_check(A, &err));
  CHECK_INT(err.status, SMV_OK);
  CHECK(err.message[0] == '\0');
  /* Unsorted rows are valid when sorted is 0. */
  A->col_idx[0] = 2;
  A->col_idx[1] = 0;
  A->sorted = 0;
  CHECK_OK(smv_csr_check(A, &err));
  smv_csr_free(A);
  CHECK_STATUS(smv_csr_check(NULL, &err), SMV_ERR_ARG);
}

/* Each broken invariant gives SMV_ERR_INVALID_MATRIX (or OVERFLOW) and a
 * message naming where. */
static void test_check_violations(void) {
  smv_error err;
  smv_csr *A = small();
  if (!A)
    return;

  A->col_idx[3] = 4; /* == cols */
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_INT(err.status, SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row 2, entry 3");
  CHECK_STR_HAS(err.message, "column index 4 out of range");
  A->col_idx[3] = -1;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "column index -1");
  A->col_idx[3] = 3;

  A->col_idx[1] = 0; /* duplicate column in sorted row 0 */
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row 0, entry 1");
  CHECK_STR_HAS(err.message, "strictly increasing");
  A->sorted = 0; /* the same duplicate is fine unsorted */
  CHECK_OK(smv_csr_check(A, &err));
  A->sorted = 1;
  A->col_idx[1] = 2;

  A->row_ptr[0] = 1;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row_ptr[0]");
  A->row_ptr[0] = 0;

  A->row_ptr[2] = 1; /* 2, 1, 4: decreases at row 1 */
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row 1: row_ptr decreases");
  A->row_ptr[2] = 2;

  A->row_ptr[3] = 3; /* last offset != nnz */
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row_ptr[rows] = 3 but nnz = 4");
  A->row_ptr[3] = 4;

  A->row_ptr[1] = 7; /* beyond nnz before the end */
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "exceeds nnz");
  A->row_ptr[1] = 2;
  CHECK_OK(smv_csr_check(A, &err));

  double *v = A->values;
  A->values = NULL;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "values is NULL");
  A->values = v;
  smv_index *c = A->col_idx;
  A->col_idx = NULL;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "col_idx is NULL");
  A->col_idx = c;
  smv_offset *rp = A->row_ptr;
  A->row_ptr = NULL;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "row_ptr is NULL");
  A->row_ptr = rp;

  A->rows = -2;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_INVALID_MATRIX);
  CHECK_STR_HAS(err.message, "negative dimensions");
  A->rows = 3;
  A->nnz = (int64_t)SMV_OFFSET_MAX + 10;
  CHECK_STATUS(smv_csr_check(A, &err), SMV_ERR_OVERFLOW);
  CHECK_STR_HAS(err.message, "offset limit");
  A->nnz = 4;
  CHECK_OK(smv_csr_check(A, NULL)); /* err may be NULL */
  A->col_idx[0] = 9;
  CHECK_STATUS(smv_csr_check(A, NULL), SMV_ERR_INVALID_MATRIX);
  A->col_idx[0] = 0;
  smv_csr_free(A);
}

int main(void) {
  RUN(test_create);
  RUN(test_create_empty_shapes);
  RUN(test_create_bad_args);
  RUN(test_copy);
  RUN(test_check_valid);
  RUN(test_check_violations);
  return TEST_END();
}
