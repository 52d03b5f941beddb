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

/* Clear *err to "no error" (if not NULL). */
void smv_err_clear(smv_error *err);

/* The cheap structural check every CPU product starts with (O(1)): A and
 * row_ptr present, sizes non-negative, col_idx and values present when
 * nnz > 0 (SMV_ERR_ARG), row_ptr[0] = 0 and row_ptr[rows] = nnz
 * (SMV_ERR_INVALID_MATRIX). Column indices are not scanned. */
smv_status smv_csr_cheap_check(const smv_csr *A);

/* SpMM argument checks shared by the CPU and device paths (spmm.c): layout,
 * k >= 0, leading dimensions for a rows x cols matrix, X and Y present
 * where they are read or written. why (may be NULL) gets the reason. */
smv_status smv_spmm_shape_check(int64_t rows, int64_t cols, int64_t nnz,
                                double alpha, const void *X, int64_t ldx,
                                double beta, const void *Y, int64_t ldy, int k,
                                smv_layout layout, char *why, size_t why_len);

#ifdef __cplusplus
}
#endif
#endif
