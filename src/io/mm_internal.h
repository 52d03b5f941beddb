/*
 * mm_internal.h — pieces shared by the Matrix Market sources (mm_*.c), the
 * tests and the fuzz target. Not installed, not part of the API.
 *
 *   mm_number.c  hand-written decimal scanner (exact: equals strtod)
 *   mm_input.c   buffered plain/gzip input cut into whole lines
 *   mm_read.c    banner, size line, entries, CSR assembly
 *   mm_vector.c  dense vectors
 *   mm_write.c   writer (coordinate real general, %.17g)
 */
#ifndef SMV_MM_INTERNAL_H
#define SMV_MM_INTERNAL_H

#include "internal.h"

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- characters ---------------------------------------------------------- */

/* The one definition of a digit and of a blank for the input layer and the
 * parsers (the input layer drops leading blanks of over-long lines, the
 * parsers skip them between tokens: both must agree). Blanks: space, tab,
 * CR (so CRLF files read as LF), VT, FF. */
#define MM_IS_DIGIT(c) ((unsigned)((c) - '0') < 10u)
#define MM_IS_BLANK(c)                                                         \
  ((c) == ' ' || (c) == '\t' || (c) == '\r' || (c) == '\v' || (c) == '\f')

/* The first byte of [p, p + n) that no text file has (NUL, or a control
 * character other than a blank or LF), or NULL: how a binary file is told
 * from text with odd line endings, so that each gets its own message. */
static inline const char *mm_binary_byte(const char *p, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)p[k];
    if ((c < 0x20 && c != '\n' && !MM_IS_BLANK(c)) || c == 0x7f)
      return p + k;
  }
  return NULL;
}

/* ---- numbers (mm_number.c) ---------------------------------------------- */

/* Outcome of scanning one number. */
typedef enum {
  MM_NUM_OK = 0,
  MM_NUM_SYNTAX,   /* not a number of the accepted grammar */
  MM_NUM_OVERFLOW, /* finite decimal beyond the range of double */
  MM_NUM_SLOW      /* (internal) needs the strtod fallback */
} mm_num_status;

/* Scan a real number at p. Grammar (the whole token, sign optional):
 *   [+-] ( D+ [. D*] | . D+ ) [ (e|E) [+-] D+ ]   decimal
 *   [+-] ( inf | infinity | nan )                  case-insensitive,
 *                                                   only if allow_special
 * The scan stops at the first character that cannot continue the token;
 * the caller checks that it is a delimiter. The value is the correctly
 * rounded double (exactly what strtod returns in the C locale); underflow
 * gives zero or a subnormal, overflow is MM_NUM_OVERFLOW. *end is set to
 * the first character after the token (on MM_NUM_SYNTAX: where it broke).
 * Needs a byte that ends the token (a blank, '\n' or NUL) somewhere after
 * it: callers scan inside NUL- or newline-terminated text. */
mm_num_status smv__mm_scan_real(const char *p, int allow_special, double *v,
                                const char **end);

/* Same for the integer field: [+-] D+, value rounded to double like
 * strtod would. */
mm_num_status smv__mm_scan_integer_value(const char *p, double *v,
                                         const char **end);

/* Number of strtod fallbacks taken by this thread (for tests that make
 * sure the fast paths are the ones exercised). */
uint64_t smv__mm_slow_count(void);

/* ---- reader entry points used by the tests and the fuzz target ---------- */

/* smv_mm_read_file with explicit caps on stored entries (after symmetric
 * expansion; SMV_OFFSET_MAX in the API) and on each dimension
 * (SMV_INDEX_MAX), both refused with SMV_ERR_OVERFLOW: lets the tests
 * reach the overflow paths with small files, and the fuzzer keep legal
 * but huge shapes (a 2e9-row empty matrix needs an 8 GB row_ptr) out of
 * its memory limit. */
smv_status smv__mm_read_stream(FILE *f, const char *name,
                               const smv_read_options *opt, int64_t max_entries,
                               int64_t max_dim, smv_csr **A, smv_error *err);

/* fopen(path, "rb") for the readers by path, refusing a directory (fopen
 * opens one on Linux; only the first read would fail). SMV_ERR_IO naming
 * the path, *f NULL, on failure. */
smv_status smv__mm_open(const char *path, FILE **f, smv_error *err);

/* The matrix reader for a vector file: SMV_ERR_DIM at the size line if the
 * shape is not n x 1 or 1 x n, or (want >= 0) if n != want, before any
 * allocation. */
smv_status smv__mm_read_vector_csr(FILE *f, const char *name, int64_t want,
                                   smv_csr **A, smv_error *err);

/* The vector reader on an open stream (want: the length needed, -1 any). */
smv_status smv__mm_read_vector_stream(FILE *f, const char *name, int64_t want,
                                      double **v, int64_t *n, smv_error *err);

/* The longest line that is not a comment, leading blanks aside, in bytes
 * before its newline (data lines are a few dozen bytes). */
#define SMV_MM_LINE_MAX ((size_t)4 << 20)

#ifdef __cplusplus
}
#endif
#endif
