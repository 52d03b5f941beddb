/*
 * internal.h — helpers shared by the library's own sources (host C and
 * src/cuda). Not installed.
 */
#ifndef SMV_INTERNAL_H
#define SMV_INTERNAL_H

#include "smv.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SMV_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SMV_PRINTF(a, b)
#endif

/* Fill *err (if not NULL) and return st. The message becomes
 * "file:line: reason", "file: reason" or "reason" depending on which of
 * file (may be NULL) and line (0 = none) are given. */
smv_status smv_err_set(smv_error *err, smv_status st, const char *file,
                       long line, const char *fmt, ...) SMV_PRINTF(5, 6);

/* Bytes of one stored matrix value: 8 in SMV_F64, 4 in SMV_F32 and
 * SMV_F64_F32V (values rounded to float). */
static inline size_t smv_prec_value_bytes(smv_precision p) {
  return p == SMV_F64 ? 8 : 4;
}
/* Bytes of one element of x and y (and of every sum): 4 in SMV_F32, 8 in
 * SMV_F64 and SMV_F64_F32V. */
static inline size_t smv_prec_vector_bytes(smv_precision p) {
  return p == SMV_F32 ? 4 : 8;
}

/* 1 if the byte ranges [a, a+na) and [b, b+nb) share a byte (an empty
 * range or a NULL pointer shares none). Compared as integers: the pointers
 * may belong to different objects. Used to refuse y overlapping x. */
static inline int smv_overlap(const void *a, size_t na, const void *b,
                              size_t nb) {
  const uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  return a && b && na > 0 && nb > 0 && a0 < b0 + nb && b0 < a0 + na;
}

/* Memory guard (memory.c): 1 if `bytes` fit the limit (SMV_MEM_LIMIT, else
 * what the system has available: MemAvailable, cgroup, ulimit), else 0 with
 * "needs N GB of memory, more than the M GB available (...)" in why. */
int smv__memory_fits(double bytes, char *why, size_t why_len);
/* Bytes of a CSR with rows rows and nnz entries (smv_csr_create). */
double smv__csr_bytes(int64_t rows, int64_t nnz);
/* The limit in bytes (-1: none) and where it comes from. */
double smv__memory_limit(const char **source);

/* Output files (outfile.c; the public smv_file_* wrap these): begin opens
 * a temporary beside a regular or new `path` (else path itself) and gives
 * its descriptor; end, once the caller has closed it, renames the temporary
 * over path when ok, removes it otherwise, and frees the handle. */
smv_status smv__file_begin(const char *path, smv_file **out, int *fd,
                           smv_error *err);
smv_status smv__file_end(smv_file *h, int ok, smv_error *err);

/* Options of smv_matrix_create_ex / _device (reuse.c): 1 with the
 * reason in why ("WHO: unknown flags 0x10", tune_runs or expected_calls
 * out of range), 0 when they are valid (NULL is). */
int smv__matrix_options_bad(const smv_matrix_options *opt, const char *who,
                            char *why, size_t n);
/* How reuse was declared, for the plan's reason: "SMV_MATRIX_REUSE",
 * "5000 expected calls >= 960" or both. */
void smv__reuse_words(const smv_matrix_options *opt, char *buf, size_t n);

/* Clear *err to "no error" (if not NULL). */
void smv_err_clear(smv_error *err);

/* The cheap structural check every CPU product starts with (O(1)): A and
 * row_ptr present, sizes non-negative, col_idx and values present when
 * nnz > 0 (SMV_ERR_ARG), row_ptr[0] = 0 and row_ptr[rows] = nnz
 * (SMV_ERR_INVALID_MATRIX). Column indices are not scanned. */
smv_status smv_csr_cheap_check(const smv_csr *A);
/* The cheap check plus row_ptr non-decreasing (O(rows)): with it every
 * offset lies in [0, nnz], so no loop over a row leaves the arrays (issue
 * 9: rows=2, row_ptr={0,5,2} read past col_idx). For the CPU paths that
 * trust column indices but must not trust offsets. */
smv_status smv_csr_offsets_check(const smv_csr *A);

/* SpMM argument checks shared by the CPU and device paths (spmm.c): layout,
 * k >= 0, leading dimensions for a rows x cols matrix, X and Y present
 * where they are read or written. why (may be NULL) gets the reason. */
smv_status smv_spmm_shape_check(int64_t rows, int64_t cols, int64_t nnz,
                                double alpha, const void *X, int64_t ldx,
                                double beta, const void *Y, int64_t ldy, int k,
                                smv_layout layout, char *why, size_t why_len);

/* Rungs 3, 4 and 8's split of k columns (row-major X) in vectors of V
 * elements: L lanes along k = the power of two >= ceil(k / V), at most 32;
 * CV = 2 vectors per lane when one does not cover k (then a pass covers
 * 64 * V columns). Here, not in src/cuda, so the plan (spmm_plan.c) asks
 * the same question the kernels do. */
static inline void smv_spmm_rowvec_shape(int k, int V, int *L, int *CV) {
  const int nv = (k + V - 1) / V;
  int l = 1;
  while (l < nv && l < 32)
    l *= 2;
  *L = l;
  *CV = nv > 32 ? 2 : 1;
}

/* 1 if k columns at vector width V are one full pass (k = L x V x CV: no
 * tail), the only k rung 8 pipelines; any other k it runs as rung 4. */
static inline int smv_spmm_full_pass(int k, int V) {
  int L, CV;
  smv_spmm_rowvec_shape(k, V, &L, &CV);
  return k == L * V * CV;
}

#ifdef __cplusplus
}
#endif
#endif
