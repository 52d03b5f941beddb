/* csr.c — the host CSR matrix: allocation, deep copy and the invariant check
 * every consumer (CPU SpMV, the CUDA engine, the writer) relies on.
 *
 * Memory of a rows x cols matrix with nnz entries:
 *   row_ptr (rows + 1) * 4 bytes, col_idx nnz * 4 bytes, values nnz * 8
 *   bytes; 12 bytes per entry plus 4 per row. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

double smv__csr_bytes(int64_t rows, int64_t nnz) {
  return ((double)rows + 1.0) * sizeof(smv_offset) +
         (double)nnz * (sizeof(smv_index) + sizeof(double));
}

smv_status smv_csr_create(smv_index rows, smv_index cols, int64_t nnz,
                          smv_csr **A) {
  if (!A)
    return SMV_ERR_ARG;
  *A = NULL;
  if (rows < 0 || cols < 0 || nnz < 0)
    return SMV_ERR_ARG;
  /* Dimensions are bounded by the smv_index type itself; the entry count
   * must fit the offsets. */
  if (nnz > (int64_t)SMV_OFFSET_MAX)
    return SMV_ERR_OVERFLOW;
  /* Refuse what cannot fit rather than let an overcommitted allocation be
   * killed later (callers that know the cause say "needs N GB" first). */
  if (!smv__memory_fits(smv__csr_bytes(rows, nnz), NULL, 0))
    return SMV_ERR_NOMEM;
  smv_csr *m = calloc(1, sizeof *m);
  if (!m)
    return SMV_ERR_NOMEM;
  m->rows = rows;
  m->cols = cols;
  m->nnz = nnz;
  m->field = SMV_FIELD_REAL;
  m->symmetry = SMV_SYM_GENERAL;
  m->format = SMV_FORMAT_COORDINATE;
  m->sorted = 0; /* the builder says so once it has filled the arrays */
  m->row_ptr = calloc((size_t)rows + 1, sizeof *m->row_ptr);
  if (nnz > 0) {
    m->col_idx = malloc((size_t)nnz * sizeof *m->col_idx);
    m->values = malloc((size_t)nnz * sizeof *m->values);
  }
  if (!m->row_ptr || (nnz > 0 && (!m->col_idx || !m->values))) {
    smv_csr_free(m);
    return SMV_ERR_NOMEM;
  }
  *A = m;
  return SMV_OK;
}

void smv_csr_free(smv_csr *A) {
  if (!A)
    return;
  free(A->row_ptr);
  free(A->col_idx);
  free(A->values);
  free(A);
}

smv_status smv_csr_copy(const smv_csr *A, smv_csr **B) {
  if (!B)
    return SMV_ERR_ARG;
  *B = NULL;
  if (!A || !A->row_ptr || A->nnz < 0 ||
      (A->nnz > 0 && (!A->col_idx || !A->values)))
    return SMV_ERR_ARG;
  smv_csr *m;
  smv_status st = smv_csr_create(A->rows, A->cols, A->nnz, &m);
  if (st != SMV_OK)
    return st;
  memcpy(m->row_ptr, A->row_ptr, ((size_t)A->rows + 1) * sizeof *m->row_ptr);
  if (A->nnz > 0) {
    memcpy(m->col_idx, A->col_idx, (size_t)A->nnz * sizeof *m->col_idx);
    memcpy(m->values, A->values, (size_t)A->nnz * sizeof *m->values);
  }
  m->sorted = A->sorted;
  m->field = A->field;
  m->symmetry = A->symmetry;
  m->format = A->format;
  *B = m;
  return SMV_OK;
}

smv_status smv_csr_check(const smv_csr *A, smv_error *err) {
  smv_err_clear(err);
  if (!A)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "CSR matrix is NULL");
  const smv_status bad = SMV_ERR_INVALID_MATRIX;
  if (A->rows < 0 || A->cols < 0)
    return smv_err_set(err, bad, NULL, 0, "CSR: negative dimensions %d x %d",
                       (int)A->rows, (int)A->cols);
  if (A->nnz < 0)
    return smv_err_set(err, bad, NULL, 0, "CSR: negative nnz %lld",
                       (long long)A->nnz);
  if (A->nnz > (int64_t)SMV_OFFSET_MAX)
    return smv_err_set(err, SMV_ERR_OVERFLOW, NULL, 0,
                       "CSR: nnz %lld exceeds the %d-bit offset limit %lld",
                       (long long)A->nnz, SMV_OFFSET_BITS,
                       (long long)SMV_OFFSET_MAX);
  if (!A->row_ptr)
    return smv_err_set(err, bad, NULL, 0, "CSR: row_ptr is NULL");
  if (A->nnz > 0 && !A->col_idx)
    return smv_err_set(err, bad, NULL, 0, "CSR: col_idx is NULL with nnz %lld",
                       (long long)A->nnz);
  if (A->nnz > 0 && !A->values)
    return smv_err_set(err, bad, NULL, 0, "CSR: values is NULL with nnz %lld",
                       (long long)A->nnz);
  if (A->row_ptr[0] != 0)
    return smv_err_set(err, bad, NULL, 0, "CSR: row_ptr[0] is %lld, not 0",
                       (long long)A->row_ptr[0]);
  /* Offsets first (all of them), so the entry loop below never indexes
   * outside col_idx. */
  for (int64_t i = 0; i < A->rows; i++) {
    if (A->row_ptr[i + 1] < A->row_ptr[i])
      return smv_err_set(err, bad, NULL, 0,
                         "CSR: row %lld: row_ptr decreases (%lld then %lld)",
                         (long long)i, (long long)A->row_ptr[i],
                         (long long)A->row_ptr[i + 1]);
    if ((int64_t)A->row_ptr[i + 1] > A->nnz)
      return smv_err_set(err, bad, NULL, 0,
                         "CSR: row %lld: row_ptr[%lld] = %lld exceeds nnz %lld",
                         (long long)i, (long long)(i + 1),
                         (long long)A->row_ptr[i + 1], (long long)A->nnz);
  }
  if ((int64_t)A->row_ptr[A->rows] != A->nnz)
    return smv_err_set(err, bad, NULL, 0,
                       "CSR: row_ptr[rows] = %lld but nnz = %lld",
                       (long long)A->row_ptr[A->rows], (long long)A->nnz);
  for (int64_t i = 0; i < A->rows; i++) {
    for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
      smv_index c = A->col_idx[k];
      if (c < 0 || c >= A->cols)
        return smv_err_set(
            err, bad, NULL, 0,
            "CSR: row %lld, entry %lld: column index %d out of range "
            "(cols = %d; zero-based)",
            (long long)i, (long long)k, (int)c, (int)A->cols);
      if (A->sorted && k > A->row_ptr[i] && c <= A->col_idx[k - 1])
        return smv_err_set(
            err, bad, NULL, 0,
            "CSR: row %lld, entry %lld: column %d after column %d (columns "
            "must be strictly increasing when sorted is set)",
            (long long)i, (long long)k, (int)c, (int)A->col_idx[k - 1]);
    }
  }
  return SMV_OK;
}

smv_status smv_csr_cheap_check(const smv_csr *A) {
  if (!A || !A->row_ptr || A->rows < 0 || A->cols < 0 || A->nnz < 0 ||
      (A->nnz > 0 && (!A->col_idx || !A->values)))
    return SMV_ERR_ARG;
  if (A->row_ptr[0] != 0 || (int64_t)A->row_ptr[A->rows] != A->nnz)
    return SMV_ERR_INVALID_MATRIX;
  return SMV_OK;
}

smv_status smv_csr_offsets_check(const smv_csr *A) {
  smv_status st = smv_csr_cheap_check(A);
  if (st != SMV_OK)
    return st;
  for (int64_t i = 0; i < A->rows; i++)
    if (A->row_ptr[i + 1] < A->row_ptr[i])
      return SMV_ERR_INVALID_MATRIX;
  return SMV_OK;
}
