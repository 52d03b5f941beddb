/*
 * test_pack_cases.h — the matrices rung 13's packed CSR is checked on, on
 * the CPU (test_pack.c: encoder and decoder) and on the device
 * (test_cuda_packed.c: the kernel): each made to hit one corner of the
 * format (src/pack/pack.h).
 */
#ifndef SMV_TEST_PACK_CASES_H
#define SMV_TEST_PACK_CASES_H

#include "smv.h"
#include "test.h"

#include <stdlib.h>

/* A rows x cols matrix whose row i holds len(i) columns col(i, j), j =
 * 0..len(i)-1 (sorted by the caller's choice of col), values 1 + j % 7. */
typedef int (*tpc_len_fn)(int64_t i);
typedef int64_t (*tpc_col_fn)(int64_t i, int j);
static inline smv_csr *tpc_build(int64_t rows, int64_t cols, tpc_len_fn len,
                                 tpc_col_fn col) {
  int64_t nnz = 0;
  for (int64_t i = 0; i < rows; i++)
    nnz += len(i);
  smv_csr *A = NULL;
  if (smv_csr_create((smv_index)rows, (smv_index)cols, nnz, &A) != SMV_OK)
    return NULL;
  int64_t k = 0;
  for (int64_t i = 0; i < rows; i++) {
    for (int j = 0; j < len(i); j++, k++) {
      A->col_idx[k] = (smv_index)col(i, j);
      A->values[k] = 1.0 + j % 7;
    }
    A->row_ptr[i + 1] = (smv_offset)k;
  }
  A->sorted = 1;
  return A;
}

/* Two entries per row, at column 0 and the last: every tile spans all
 * 200000 columns (wide). */
static int tpc_len2(int64_t i) { return (void)i, 2; }
static int64_t tpc_ends(int64_t i, int j) { return (void)i, j ? 199999 : 0; }
/* Rows 0..2999 local (9 around 20 i: base columns far past 65535), rows
 * 3000..3999 spanning 0..199999: narrow and wide tiles in one matrix. */
static int tpc_len_mix(int64_t i) { return i < 3000 ? 9 : 3; }
static int64_t tpc_mix(int64_t i, int j) {
  return i < 3000 ? 20 * i + j : (int64_t)j * 99999 + (i & 1);
}
/* Spans of exactly 65535 (narrow) and 65536 (wide): rows of one column
 * each in groups of 256 (a tile of 256 entries holds one group), the
 * group's last row at column 65535 or, every other group, 65536. */
static int tpc_len1(int64_t i) { return (void)i, 1; }
static int64_t tpc_edge(int64_t i, int j) {
  (void)j;
  const int64_t r = i % 256;
  return r == 255 ? ((i / 256) % 2 ? 65536 : 65535) : r;
}
/* Empty rows but every 997th (runs of empty rows fill whole tiles). */
static int tpc_len_sparse(int64_t i) { return i % 997 == 5 ? 4 : 0; }
static int64_t tpc_sparse(int64_t i, int j) { return i + j; }
/* Two rows longer than a tile of 256 among rows of 3: row 100 local (9000
 * consecutive columns: narrow pieces), row 200 of 2001 entries 300
 * columns apart (every piece of 256 spans 76500 columns: wide); neither
 * length a multiple of a tile. */
static int tpc_len_long(int64_t i) {
  return i == 100 ? 9000 : i == 200 ? 2001 : 3;
}
static int64_t tpc_long(int64_t i, int j) {
  return i == 100 ? 5000 + j : i == 200 ? (int64_t)j * 300 + 7 : 3 * i + j;
}
/* 10 rows x 300000 columns, 4000 local entries a row (a tile or more
 * each at small tiles). */
static int tpc_len_wide_rows(int64_t i) { return (void)i, 4000; }
static int64_t tpc_wide_rows(int64_t i, int j) { return 29000 * i + 7 * j; }
/* 100000 rows x 3 columns, 0-3 entries a row. */
static int tpc_len_tall(int64_t i) { return (int)(i % 4); }
static int64_t tpc_tall(int64_t i, int j) { return (void)i, j; }
/* Local columns past 65536: 20000 rows, 9 entries from 30 i. */
static int tpc_len9(int64_t i) { return (void)i, 9; }
static int64_t tpc_far(int64_t i, int j) { return 30 * i + j; }

/* The hand-made cases: label, shape and pattern. */
static const struct {
  const char *label;
  int64_t rows, cols;
  tpc_len_fn len;
  tpc_col_fn col;
} tpc_made[] = {
    {"all wide (columns 0 and 199999)", 5000, 200000, tpc_len2, tpc_ends},
    {"narrow and wide tiles", 4000, 200000, tpc_len_mix, tpc_mix},
    {"spans 65535 and 65536", 8192, 65537, tpc_len1, tpc_edge},
    {"runs of empty rows", 30000, 30010, tpc_len_sparse, tpc_sparse},
    {"rows longer than a tile", 1000, 700000, tpc_len_long, tpc_long},
    {"10 x 300000", 10, 300000, tpc_len_wide_rows, tpc_wide_rows},
    {"100000 x 3", 100000, 3, tpc_len_tall, tpc_tall},
    {"local columns past 65536", 20000, 600000, tpc_len9, tpc_far}};
/* And the generated ones. */
static const char *const tpc_specs[] = {"lap3d:20",
                                        "band:3000:8",
                                        "stencil27:12",
                                        "rand:3000:16",
                                        "rand:2000:16,cols=300000",
                                        "diag:1",
                                        "empty:5:7",
                                        "band:4000:40,cols=90000"};
#define TPC_NGEN ((int)(sizeof tpc_specs / sizeof tpc_specs[0]))
#define TPC_NCASES (TPC_NGEN + (int)(sizeof tpc_made / sizeof tpc_made[0]))

/* Case c (0..TPC_NCASES-1): its matrix (NULL with the failure recorded)
 * and label. */
static inline smv_csr *tpc_case(int c, const char **label) {
  if (c < TPC_NGEN) {
    *label = tpc_specs[c];
    return tst_generate(tpc_specs[c]);
  }
  const int h = c - TPC_NGEN;
  *label = tpc_made[h].label;
  smv_csr *A = tpc_build(tpc_made[h].rows, tpc_made[h].cols, tpc_made[h].len,
                         tpc_made[h].col);
  CHECKF(A != NULL, "%s: not made", *label);
  return A;
}

#endif
