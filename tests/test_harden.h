/*
 * test_harden.h — what the issue-9 tests share: the hostile CSR that the
 * host test (test_harden.c), the device test (test_cuda_harden.c) and the
 * CSR fuzz target (fuzz/fuzz_csr.c) feed to the library, and the thread
 * count setter.
 */
#ifndef SMV_TEST_HARDEN_H
#define SMV_TEST_HARDEN_H

#include "smv.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The OpenMP team size for the next parallel regions (no-op without). */
static inline void harden_set_threads(int t) {
#ifdef _OPENMP
  omp_set_num_threads(t);
#else
  (void)t;
#endif
}

/* rows = 2, cols = 2, nnz = 2 with row_ptr = {0, mid, 2}: mid = 5 made the
 * OpenMP path overflow the heap, mid = -3 gave SMV_OK and garbage. */
static inline smv_csr *harden_two_rows(smv_offset mid) {
  smv_csr *A = NULL;
  if (smv_csr_create(2, 2, 2, &A) != SMV_OK)
    return NULL;
  A->row_ptr[0] = 0;
  A->row_ptr[1] = mid;
  A->row_ptr[2] = 2;
  A->col_idx[0] = 0;
  A->col_idx[1] = 1;
  A->values[0] = 1.0;
  A->values[1] = 2.0;
  A->sorted = 1;
  return A;
}

#endif
