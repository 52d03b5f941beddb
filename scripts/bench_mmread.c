/*
 * bench_mmread.c — helper of scripts/bench_mmread.sh: generate a matrix
 * into a Matrix Market file with the library's own writer, and time
 * smv_mm_read on a file (wall clock, CLOCK_MONOTONIC; the whole call:
 * parsing, CSR assembly, duplicate check).
 *
 *   bench_mmread gen SPEC FILE        write smv_generate(SPEC) to FILE
 *   bench_mmread read FILE RUNS       one line per run: seconds and nnz
 */
#include "smv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  smv_error err;
  smv_csr *A;
  if (argc == 4 && strcmp(argv[1], "gen") == 0) {
    if (smv_generate(argv[2], &A, &err) != SMV_OK ||
        smv_mm_write(argv[3], A, &err) != SMV_OK) {
      fprintf(stderr, "bench_mmread: %s\n", err.message);
      return 1;
    }
    printf("%s: %d x %d, nnz %lld\n", argv[3], A->rows, A->cols,
           (long long)A->nnz);
    smv_csr_free(A);
    return 0;
  }
  if (argc == 4 && strcmp(argv[1], "read") == 0) {
    int runs = atoi(argv[3]);
    for (int r = 0; r < runs; r++) {
      double t0 = now();
      if (smv_mm_read(argv[2], NULL, &A, &err) != SMV_OK) {
        fprintf(stderr, "bench_mmread: %s\n", err.message);
        return 1;
      }
      double t = now() - t0;
      printf("%.6f %lld\n", t, (long long)A->nnz);
      fflush(stdout);
      smv_csr_free(A);
    }
    return 0;
  }
  fprintf(stderr, "usage: bench_mmread gen SPEC FILE | read FILE RUNS\n");
  return 2;
}
