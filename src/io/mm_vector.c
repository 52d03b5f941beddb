/*
 * mm_vector.c — dense vectors as Matrix Market files.
 *
 * Written as "array real general" n x 1 (one %.17g value per line). Read
 * through the matrix reader, so every form it accepts works: array n x 1,
 * array 1 x n, coordinate n x 1 or 1 x n (entries not listed are 0,
 * duplicates summed), plain or gzip. Anything with both dimensions above 1
 * is SMV_ERR_DIM. The vector is malloc'ed (at least one element, so it is
 * never NULL on success): release with smv_free.
 */
#include "mm_write.h"

#include <stdlib.h>

smv_status smv__mm_read_vector_stream(FILE *f, const char *name, int64_t want,
                                      double **v, int64_t *n, smv_error *err) {
  if (v)
    *v = NULL;
  if (n)
    *n = 0;
  if (!name)
    name = "(stream)";
  if (!v || !n)
    return smv_err_set(err, SMV_ERR_ARG, name, 0,
                       "smv_mm_read_vector: NULL result pointer");
  smv_csr *A; /* the shape (n x 1 or 1 x n) is checked at the size line */
  smv_status st = smv__mm_read_vector_csr(f, name, want, &A, err);
  if (st != SMV_OK)
    return st;
  const int64_t len = A->cols == 1 ? A->rows : A->cols;
  double *x = calloc(len > 0 ? (size_t)len : 1, sizeof *x);
  if (!x) {
    smv_csr_free(A);
    return smv_err_set(err, SMV_ERR_NOMEM, name, 0,
                       "out of memory for a vector of %lld values",
                       (long long)len);
  }
  /* Rows are sorted and duplicate-free: at most one entry per position. */
  for (int64_t r = 0; r < A->rows; r++)
    for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
      x[A->cols == 1 ? r : A->col_idx[k]] = A->values[k];
  smv_csr_free(A);
  *v = x;
  *n = len;
  smv_err_clear(err);
  return SMV_OK;
}

static smv_status read_vector_path(const char *path, int64_t want, double **v,
                                   int64_t *n, smv_error *err) {
  if (v)
    *v = NULL;
  if (n)
    *n = 0;
  if (!path)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_mm_read_vector: NULL path");
  FILE *f;
  smv_status st = smv__mm_open(path, &f, err);
  if (st != SMV_OK)
    return st;
  st = smv__mm_read_vector_stream(f, path, want, v, n, err);
  fclose(f);
  return st;
}

smv_status smv_mm_read_vector(const char *path, double **v, int64_t *n,
                              smv_error *err) {
  return read_vector_path(path, -1, v, n, err);
}

smv_status smv_mm_read_vector_n(const char *path, int64_t n, double **v,
                                smv_error *err) {
  int64_t got;
  if (n < 0) {
    if (v)
      *v = NULL;
    return smv_err_set(err, SMV_ERR_ARG, path, 0,
                       "smv_mm_read_vector_n: negative length %lld",
                       (long long)n);
  }
  return read_vector_path(path, n, v, &got, err);
}

static smv_status write_vector(FILE *f, const char *path, const double *v,
                               int64_t n, smv_error *err) {
  if (n < 0 || (n > 0 && !v))
    return smv_err_set(err, SMV_ERR_ARG, path, 0, "smv_mm_write_vector: %s",
                       n < 0 ? "negative length" : "NULL vector");
  mm_out *o;
  smv_status st = smv__mm_out_open(&o, f, path, err);
  if (st != SMV_OK)
    return st;
  char head[96];
  snprintf(head, sizeof head,
           "%%%%MatrixMarket matrix array real general\n%lld 1\n",
           (long long)n);
  smv__mm_out_text(o, head);
  for (int64_t i = 0; i < n; i++)
    smv__mm_out_value(o, v[i]);
  return smv__mm_out_close(o, f == NULL, err);
}

smv_status smv_mm_write_vector(const char *path, const double *v, int64_t n,
                               smv_error *err) {
  if (!path)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_mm_write_vector: NULL path");
  return write_vector(NULL, path, v, n, err);
}

smv_status smv_mm_write_vector_file(FILE *f, const double *v, int64_t n,
                                    smv_error *err) {
  if (!f)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_mm_write_vector_file: NULL stream");
  return write_vector(f, NULL, v, n, err);
}
