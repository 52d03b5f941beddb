/*
 * test_pack.c — rung 13's packed CSR on the CPU (src/pack/pack.h): for
 * every matrix of test_pack_cases.h and several tile sizes, the decoder
 * gives back the CSR exactly, every tile keeps the promises the kernel
 * relies on (sizes, 16-bit spans, 16-byte alignment of the wide runs,
 * pieces of whole tiles), and the byte counts match pack.h's formula.
 */
#include "pack.h"
#include "test_pack_cases.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The kernel's promises, tile by tile; returns the number broken. */
static int64_t check_tiles(const smv_csr *A, const smv_packed *p,
                           const char *what) {
  int64_t bad = 0, nwide = 0, npieces = 0, wide_entries = 0;
  const smv_pack_tile *t = p->tiles;
  for (int64_t b = 0; b < p->ntiles; b++) {
    const smv_pack_tile d = t[b], dn = t[b + 1];
    const int64_t k0 = d.entry, k1 = dn.entry;
    int ok = k0 <= k1 && k1 - k0 <= p->tile && d.row < A->rows;
    if (d.flags & SMV_PACK_PIECE) {
      npieces++;
      const int64_t rb = A->row_ptr[d.row], re = A->row_ptr[d.row + 1];
      /* a piece: whole tiles of its row from the row's start, the last
       * one ending the row; the row is longer than a tile */
      ok = ok && re - rb > p->tile && (k0 - rb) % p->tile == 0 &&
           k1 == (re - k0 < p->tile ? re : k0 + p->tile) &&
           (dn.row == d.row) == (k1 < re);
    } else {
      ok = ok && dn.row > d.row && dn.row - d.row <= p->tile &&
           k0 == A->row_ptr[d.row] && k1 == A->row_ptr[dn.row];
      for (int64_t r = d.row; ok && r < dn.row; r++)
        ok = p->roff[r] == A->row_ptr[r + 1] - k0;
    }
    if (d.flags & SMV_PACK_WIDE) {
      nwide++;
      wide_entries += k1 - k0;
      /* 8 o + base a multiple of 4 for every o: base itself is */
      ok = ok && d.base % 4 == 0 && k0 + d.base >= 0 && k1 + d.base <= p->n32;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (int64_t k = k0; k < k1; k++) {
        lo = A->col_idx[k] < lo ? A->col_idx[k] : lo;
        hi = A->col_idx[k] > hi ? A->col_idx[k] : hi;
      }
      ok = ok && hi - lo > 65535; /* wide only when it must be */
    } else {
      ok = ok && d.base >= 0 && (k1 == k0 || p->n16 == A->nnz);
      for (int64_t k = k0; ok && k < k1; k++)
        ok = A->col_idx[k] >= d.base && A->col_idx[k] - d.base <= 65535;
    }
    if (!ok && bad++ == 0)
      fprintf(stderr,
              "%s: tile %lld {row %d, entry %d, base %d, flags %u} -> "
              "{row %d, entry %d} breaks the format\n",
              what, (long long)b, d.row, d.entry, d.base, d.flags, dn.row,
              dn.entry);
  }
  CHECKF(t[p->ntiles].row == A->rows && t[p->ntiles].entry == A->nnz &&
             t[p->ntiles].base == 0 && t[p->ntiles].flags == 0,
         "%s: closing descriptor", what);
  CHECKF(nwide == p->nwide && npieces == p->npieces &&
             wide_entries == p->wide_entries,
         "%s: counts %lld/%lld wide, %lld/%lld pieces", what, (long long)nwide,
         (long long)p->nwide, (long long)npieces, (long long)p->npieces);
  return bad;
}

/* Greedy, but at most 3 rows a tile: an `end` of the caller's. */
static int64_t end3(const smv_csr *A, int64_t start, int64_t tile) {
  const int64_t k0 = A->row_ptr[start];
  int64_t i = start;
  while (i < A->rows && i - start < 3 && A->row_ptr[i + 1] - k0 <= tile)
    i++;
  return i;
}
/* One past the contract: a tile of whole rows one row too many. */
static int64_t end_over(const smv_csr *A, int64_t start, int64_t tile) {
  (void)tile;
  return start + 2 <= A->rows ? start + 2 : A->rows;
}

static void pack_one(const smv_csr *A, int tile, smv_pack_end_fn end,
                     const char *label) {
  char what[200];
  snprintf(what, sizeof what, "%s, tile %d%s", label, tile,
           end ? ", 3 rows a tile" : "");
  smv_packed p;
  smv_status st = smv_pack_build(A, tile, end, &p);
  CHECKF(st == SMV_OK, "%s: %s", what, smv_status_string(st));
  if (st != SMV_OK)
    return;
  CHECK_INT(check_tiles(A, &p, what), 0);
  /* The bytes: pack.h's formula, and c32 only its runs plus < 4 slots of
   * padding each. */
  const size_t want = (size_t)(p.ntiles + 1) * 16 + (size_t)A->rows * 2 +
                      (size_t)p.n16 * 2 + (size_t)p.n32 * 4;
  CHECK(smv_pack_bytes(&p) == want);
  CHECK(p.n16 == 0 || p.n16 == A->nnz);
  CHECKF(p.n32 >= p.wide_entries && p.n32 < p.wide_entries + 4 * p.nwide + 1,
         "%s: %lld c32 slots for %lld wide entries in %lld tiles", what,
         (long long)p.n32, (long long)p.wide_entries, (long long)p.nwide);
  CHECK(smv_pack_read_bytes(&p) ==
        (size_t)(p.ntiles + 1) * 16 + (size_t)A->rows * 2 +
            (size_t)(A->nnz - p.wide_entries) * 2 + (size_t)p.wide_entries * 4);
  /* Round trip. */
  smv_offset *rp =
      (smv_offset *)malloc(((size_t)A->rows + 1) * sizeof(smv_offset));
  smv_index *ci = (smv_index *)malloc(((size_t)A->nnz + 1) * sizeof(smv_index));
  CHECK(rp && ci);
  if (rp && ci) {
    memset(rp, 0xff, ((size_t)A->rows + 1) * sizeof(smv_offset));
    CHECK_OK(smv_pack_decode(&p, rp, ci));
    CHECKF(memcmp(rp, A->row_ptr, ((size_t)A->rows + 1) * sizeof *rp) == 0,
           "%s: row offsets differ", what);
    CHECKF(A->nnz == 0 ||
               memcmp(ci, A->col_idx, (size_t)A->nnz * sizeof *ci) == 0,
           "%s: columns differ", what);
  }
  free(rp), free(ci);
  smv_pack_free(&p);
  CHECK(p.tiles == NULL && p.ntiles == 0);
}

static void test_round_trip(void) {
  static const int tiles[] = {1, 8, 64, 256, 2048, 4096};
  for (int c = 0; c < TPC_NCASES; c++) {
    const char *label = "";
    smv_csr *A = tpc_case(c, &label);
    if (!A)
      continue;
    for (int t = 0; t < (int)(sizeof tiles / sizeof tiles[0]); t++)
      pack_one(A, tiles[t], NULL, label);
    pack_one(A, 256, end3, label);
    smv_csr_free(A);
  }
}

/* What each corner case must come out as. */
static void test_shapes(void) {
  for (int c = 0; c < TPC_NCASES; c++) {
    const char *label = "";
    smv_csr *A = tpc_case(c, &label);
    if (!A)
      continue;
    smv_packed p;
    CHECK_OK(smv_pack_build(A, 256, NULL, &p));
    if (strcmp(label, "all wide (columns 0 and 199999)") == 0 ||
        strncmp(label, "rand:2000:16,cols", 17) == 0) {
      CHECK_INT(p.nwide, p.ntiles);
      CHECK_INT(p.n16, 0); /* no narrow entries: no c16 */
    } else if (strcmp(label, "narrow and wide tiles") == 0) {
      CHECK(p.nwide > 0 && p.nwide < p.ntiles);
    } else if (strcmp(label, "spans 65535 and 65536") == 0) {
      /* one group of 256 rows a tile; every other group wide */
      CHECK_INT(p.ntiles, 32);
      CHECK_INT(p.nwide, 16);
      for (int64_t b = 0; b < p.ntiles; b++)
        CHECK_INT((p.tiles[b].flags & SMV_PACK_WIDE) != 0, (int)(b % 2));
    } else if (strcmp(label, "rows longer than a tile") == 0) {
      /* 9000 -> 36 pieces (narrow), 2001 -> 8, wide but the last (209
       * entries spanning 62400 columns) */
      CHECK_INT(p.npieces, 36 + 8);
      CHECK_INT(p.nwide, 7);
    } else if (A->nnz == 0) {
      CHECK_INT(p.nwide, 0);
      CHECK_INT(p.n16, 0);
      CHECK_INT(p.n32, 0);
    } else if (A->cols > 1) {
      /* the others are local: every tile narrow, 2 bytes an entry */
      CHECKF(p.nwide == 0, "%s: %lld wide tiles", label, (long long)p.nwide);
    }
    smv_pack_free(&p);
    smv_csr_free(A);
  }
}

/* Local columns at 2048 entries a tile: pack.h's 10 (f64) and 6 (f32)
 * bytes an entry with the values, up to the row ends and descriptors. */
static void test_bytes_per_entry(void) {
  const char *specs[] = {"lap3d:40", "stencil27:20", "band:20000:16",
                         "elastic3d:8"};
  for (int s = 0; s < 4; s++) {
    smv_csr *A = tst_generate(specs[s]);
    if (!A)
      continue;
    smv_packed p;
    CHECK_OK(smv_pack_build(A, 2048, NULL, &p));
    const double z = (double)A->nnz;
    const double idx = (double)smv_pack_read_bytes(&p) / z;
    const double csr = 4.0 + 4.0 * (double)(A->rows + 1) / z;
    const double want =
        2.0 + 2.0 * (double)A->rows / z + 16.0 * (double)(p.ntiles + 1) / z;
    CHECK_INT(p.nwide, 0);
    CHECKF(fabs(idx - want) < 1e-12, "%s: %.4f index bytes an entry, want %.4f",
           specs[s], idx, want);
    /* f64: 8 + idx against 8 + csr; f32: 4 + idx against 4 + csr */
    CHECKF(8.0 + idx <= 10.0 + 2.0 * (double)A->rows / z + 0.01 &&
               8.0 + idx < 8.0 + csr - 1.9,
           "%s: %.3f bytes an entry in f64, CSR %.3f", specs[s], 8.0 + idx,
           8.0 + csr);
    printf("  %s: packed %.3f / %.3f bytes an entry (f64 / f32), CSR %.3f / "
           "%.3f\n",
           specs[s], 8.0 + idx, 4.0 + idx, 8.0 + csr, 4.0 + csr);
    smv_pack_free(&p);
    smv_csr_free(A);
  }
}

static void test_bad_arguments(void) {
  smv_csr *A = tst_generate("band:100:3");
  if (!A)
    return;
  smv_packed p;
  CHECK_STATUS(smv_pack_build(A, 0, NULL, &p), SMV_ERR_ARG);
  CHECK_STATUS(smv_pack_build(A, SMV_PACK_TILE_MAX + 1, NULL, &p), SMV_ERR_ARG);
  CHECK_STATUS(smv_pack_build(NULL, 8, NULL, &p), SMV_ERR_ARG);
  CHECK_STATUS(smv_pack_build(A, 8, NULL, NULL), SMV_ERR_ARG);
  /* rows of 7: two rows (14 entries) pass a tile of 8 */
  CHECK_STATUS(smv_pack_build(A, 8, end_over, &p), SMV_ERR_ARG);
  CHECK(p.tiles == NULL && p.roff == NULL && p.c16 == NULL && p.c32 == NULL);
  CHECK_OK(smv_pack_build(A, 16, end_over, &p)); /* 14 <= 16: fine */
  smv_pack_free(&p);
  smv_pack_free(NULL);
  smv_csr_free(A);
}

int main(void) {
  RUN(test_round_trip);
  RUN(test_shapes);
  RUN(test_bytes_per_entry);
  RUN(test_bad_arguments);
  return TEST_END();
}
