/*
 * fuzz_mm.c — libFuzzer target for the Matrix Market reader.
 *
 * Each input is fed three ways:
 *   1. as is, through smv_mm_read_file on an fmemopen stream (gzip input
 *      is recognised by its magic bytes, so the fuzzer reaches the zlib
 *      path as well: mm.dict holds the magic);
 *   2. gzip-compressed in memory first, through the same call: the result
 *      must be the same as 1 (same status, same line, same matrix);
 *   3. if it read as a matrix, through the vector reader.
 * Invariants checked on every outcome:
 *   - error: *A is NULL, err.status is the returned status, the message
 *     starts with the stream's name, the status is one the reader may give;
 *   - success: smv_csr_check passes, sorted is set, the banner fields are
 *     in range, and a write/read round trip gives the same matrix, bit for
 *     bit (NaN as NaN).
 * Dimensions are capped at 2^20 through the internal entry point: legal
 * but huge shapes ("2000000000 2000000000 0" needs an 8 GB row_ptr) would
 * only measure the fuzzer's memory limit.
 *
 *   make fuzz FUZZ_TIME=600
 */
#include "mm_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define FUZZ_MAX_DIM ((int64_t)1 << 20)
#define NAME "fuzz.mtx"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fail(const char *why) {
  fprintf(stderr, "fuzz_mm: invariant broken: %s\n", why);
  abort();
}

static FILE *memory_stream(const void *data, size_t size) {
  /* fmemopen refuses a zero-length buffer on some C libraries. */
  static const char empty[1] = {0};
  return size ? fmemopen((void *)data, size, "rb")
              : fmemopen((void *)empty, 0 + 1, "rb"); /* read as 1 NUL */
}

static int same_double(double a, double b) {
  if (a != a && b != b)
    return 1;
  return memcmp(&a, &b, sizeof a) == 0;
}

static void same_matrix(const smv_csr *A, const smv_csr *B, int fields) {
  if (A->rows != B->rows || A->cols != B->cols || A->nnz != B->nnz)
    fail("matrices differ in shape");
  if (memcmp(A->row_ptr, B->row_ptr, ((size_t)A->rows + 1) * 4) != 0)
    fail("row_ptr differs");
  for (int64_t k = 0; k < A->nnz; k++)
    if (A->col_idx[k] != B->col_idx[k] ||
        !same_double(A->values[k], B->values[k]))
      fail("entries differ");
  if (fields && (A->field != B->field || A->symmetry != B->symmetry ||
                 A->format != B->format))
    fail("banner fields differ");
}

static smv_status read_mem(const void *data, size_t size, smv_csr **A,
                           smv_error *err) {
  FILE *f = memory_stream(data, size);
  if (!f)
    return SMV_ERR_NOMEM;
  *A = (smv_csr *)f; /* must be replaced (NULL on error) */
  smv_status st =
      smv__mm_read_stream(f, NAME, NULL, SMV_OFFSET_MAX, FUZZ_MAX_DIM, A, err);
  fclose(f);
  if (st != SMV_OK) {
    if (*A != NULL)
      fail("a matrix came back with an error");
    if (err->status != st)
      fail("err->status differs from the returned status");
    if (strncmp(err->message, NAME ":", strlen(NAME) + 1) != 0)
      fail("message does not start with the name");
    if (st != SMV_ERR_PARSE && st != SMV_ERR_UNSUPPORTED &&
        st != SMV_ERR_OVERFLOW && st != SMV_ERR_NOMEM && st != SMV_ERR_IO)
      fail("unexpected status");
    return st;
  }
  smv_error chk;
  if (smv_csr_check(*A, &chk) != SMV_OK) {
    fprintf(stderr, "%s\n", chk.message);
    fail("smv_csr_check");
  }
  if ((*A)->sorted != 1)
    fail("sorted not set");
  if ((unsigned)(*A)->field > SMV_FIELD_PATTERN ||
      (unsigned)(*A)->symmetry > SMV_SYM_SKEW ||
      (unsigned)(*A)->format > SMV_FORMAT_ARRAY)
    fail("banner fields out of range");
  return st;
}

/* gzip the input in memory (level 1: this is about framing, not size). */
static unsigned char *gzip_mem(const uint8_t *data, size_t size, size_t *out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) !=
      Z_OK)
    return NULL;
  size_t cap = deflateBound(&zs, (uLong)size) + 32;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    deflateEnd(&zs);
    return NULL;
  }
  zs.next_in = (unsigned char *)data;
  zs.avail_in = (uInt)size;
  zs.next_out = buf;
  zs.avail_out = (uInt)cap;
  int r = deflate(&zs, Z_FINISH);
  *out = cap - zs.avail_out;
  deflateEnd(&zs);
  if (r != Z_STREAM_END) {
    free(buf);
    return NULL;
  }
  return buf;
}

static void round_trip(const smv_csr *A) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return;
  smv_error err;
  smv_status st = smv_mm_write_file(f, A, &err);
  fclose(f);
  if (st != SMV_OK)
    fail("writing a matrix that was read");
  smv_csr *B;
  st = read_mem(text, len, &B, &err);
  if (st != SMV_OK) {
    fprintf(stderr, "%s\n", err.message);
    fail("reading back what was written");
  }
  same_matrix(A, B, 0);
  smv_csr_free(B);
  free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  smv_csr *A;
  smv_error err;
  smv_status st = read_mem(data, size, &A, &err);
  if (st == SMV_OK)
    round_trip(A);

  /* The same text inside gzip must read the same (unless it was gzip
   * already, or empty: fmemopen of zero bytes reads a NUL above). */
  int was_gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  size_t zlen;
  unsigned char *z =
      (!was_gzip && size > 0) ? gzip_mem(data, size, &zlen) : NULL;
  if (z) {
    smv_csr *G;
    smv_error gerr;
    smv_status gst = read_mem(z, zlen, &G, &gerr);
    if (gst != st || (st != SMV_OK && gerr.line != err.line)) {
      fprintf(stderr, "plain: %s\ngzip:  %s\n", err.message, gerr.message);
      fail("gzip and plain disagree");
    }
    if (st == SMV_OK) {
      same_matrix(A, G, 1);
      smv_csr_free(G);
    }
    free(z);
  }

  if (st == SMV_OK) { /* small shapes only (capped above) */
    FILE *f = memory_stream(data, size);
    double *v = NULL;
    int64_t n = -1;
    smv_status vs = smv__mm_read_vector_stream(f, NAME, -1, &v, &n, &err);
    fclose(f);
    if (vs == SMV_OK) {
      if (!v || n != (A->cols == 1 ? A->rows : A->cols))
        fail("vector length");
    } else if (vs != SMV_ERR_DIM || v != NULL || n != 0) {
      fail("vector reader disagrees with the matrix reader");
    }
    smv_free(v);
    smv_csr_free(A);
  }
  return 0;
}
