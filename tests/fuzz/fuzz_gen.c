/*
 * fuzz_gen.c — libFuzzer target for the generator grammar: smv_generate on
 * arbitrary spec strings (the input bytes up to the first NUL, at most 255).
 *
 * Sizes: the library's own memory guard is set to a small budget
 * (SMV_MEM_LIMIT=4M: about 300000 entries), so an in-range spec that would
 * need more is refused with SMV_ERR_NOMEM ("needs N GB") before anything is
 * allocated; that refusal is part of what is fuzzed.
 * Invariants:
 *   - the status is one smv_generate documents (OK, PARSE, NOT_FOUND,
 *     OVERFLOW, NOMEM);
 *   - on error: *A is NULL, err.status is the status, the message starts
 *     with "generator spec '"; NOMEM says what it needs;
 *   - on success: smv_csr_check passes, sorted is set, smv_is_spec agrees,
 *     the CSR fits the budget, and a second call gives the same matrix, bit
 *     for bit (the generator is deterministic).
 *
 *   make fuzz-gen FUZZ_TIME=600
 */
#include "smv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUDGET "4M"
#define BUDGET_BYTES (4.0 * 1024 * 1024)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("SMV_MEM_LIMIT", BUDGET, 1);
  return 0;
}

static void fail(const char *spec, const char *why) {
  fprintf(stderr, "fuzz_gen: spec '%s': invariant broken: %s\n", spec, why);
  abort();
}

static int same(const smv_csr *A, const smv_csr *B) {
  return A->rows == B->rows && A->cols == B->cols && A->nnz == B->nnz &&
         !memcmp(A->row_ptr, B->row_ptr, ((size_t)A->rows + 1) * 4) &&
         (A->nnz == 0 || (!memcmp(A->col_idx, B->col_idx, (size_t)A->nnz * 4) &&
                          !memcmp(A->values, B->values, (size_t)A->nnz * 8)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char spec[256];
  size_t n = size < sizeof spec - 1 ? size : sizeof spec - 1;
  memcpy(spec, data, n);
  spec[n] = '\0';

  smv_csr *A = (smv_csr *)spec; /* must be replaced */
  smv_error err;
  smv_status st = smv_generate(spec, &A, &err);
  if (st != SMV_OK) {
    if (A != NULL)
      fail(spec, "a matrix came back with an error");
    if (err.status != st)
      fail(spec, "err.status differs from the returned status");
    if (st != SMV_ERR_PARSE && st != SMV_ERR_NOT_FOUND &&
        st != SMV_ERR_OVERFLOW && st != SMV_ERR_NOMEM)
      fail(spec, "unexpected status");
    if (strncmp(err.message, "generator spec '", 16) != 0)
      fail(spec, "message does not name the spec");
    if (st == SMV_ERR_NOMEM && !strstr(err.message, "needs"))
      fail(spec, "out of memory without saying what it needs");
    return 0;
  }
  smv_error chk;
  if (smv_csr_check(A, &chk) != SMV_OK) {
    fprintf(stderr, "%s\n", chk.message);
    fail(spec, "smv_csr_check");
  }
  if (A->sorted != 1)
    fail(spec, "sorted not set");
  if (!smv_is_spec(spec))
    fail(spec, "generated, but smv_is_spec says it is not a spec");
  if (((double)A->rows + 1) * 4 + (double)A->nnz * 12 > BUDGET_BYTES)
    fail(spec, "a matrix over the memory limit was built");
  smv_csr *B = NULL;
  if (smv_generate(spec, &B, &err) != SMV_OK || !same(A, B))
    fail(spec, "a second call gave another matrix");
  smv_csr_free(B);
  smv_csr_free(A);
  return 0;
}
