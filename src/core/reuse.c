/*
 * reuse.c — declaring reuse at smv_matrix_create_ex (SMV_MATRIX_REUSE,
 * smv_matrix_options.expected_calls): the threshold from which a reuse
 * plan (planned by measurement among a short list of rungs, tune.cu) pays
 * for itself, and the check of the options both matrix constructors run.
 * Host code without CUDA, so the CPU-only build answers the same and the
 * CPU tests check it.
 */
#include "internal.h"

#include <stddef.h>
#include <stdio.h>

/* The struct is read by Python through ctypes (python/smv/_lib.py,
 * MatrixOptions): flags and tune_runs are 4 bytes each, so the int64
 * lands on byte 8 with no padding and the whole is 16 bytes on every
 * ABI smv builds for. The Python test checks the same offsets. */
_Static_assert(offsetof(smv_matrix_options, tune_runs) == 4,
               "smv_matrix_options layout");
_Static_assert(offsetof(smv_matrix_options, expected_calls) == 8,
               "smv_matrix_options layout");
_Static_assert(sizeof(smv_matrix_options) == 16, "smv_matrix_options size");

/* The measurement must be repaid 20 times over: at most 5% of the calls
 * it plans go to planning (include/smv.h gives the derivation). */
#define REUSE_REPAY 20
/* Untimed runs before each candidate's timed ones (tune.cu). */
#define REUSE_WARMUP 2
/* smv_matrix_tune's default timed runs (0 = this). */
#define REUSE_DEFAULT_RUNS 10

int64_t smv_matrix_reuse_threshold(int tune_runs) {
  const int64_t runs = tune_runs > 0 ? tune_runs : REUSE_DEFAULT_RUNS;
  return (int64_t)REUSE_REPAY * SMV_REUSE_CANDIDATES_MAX *
         (REUSE_WARMUP + runs);
}

int smv_matrix_reuse_declared(const smv_matrix_options *opt) {
  if (!opt)
    return 0;
  if (opt->flags & SMV_MATRIX_REUSE)
    return 1;
  return opt->expected_calls > 0 &&
         opt->expected_calls >= smv_matrix_reuse_threshold(opt->tune_runs);
}

int smv__matrix_options_bad(const smv_matrix_options *opt, const char *who,
                            char *why, size_t n) {
  if (!opt)
    return 0;
  const unsigned known =
      SMV_MATRIX_CUSPARSE | SMV_MATRIX_TUNE | SMV_MATRIX_HOT | SMV_MATRIX_REUSE;
  if (opt->flags & ~known)
    snprintf(why, n, "%s: unknown flags 0x%x", who, opt->flags & ~known);
  else if (opt->tune_runs < 0 || opt->tune_runs > 100000)
    snprintf(why, n, "%s: tune_runs %d outside 0..100000", who, opt->tune_runs);
  else if (opt->expected_calls < 0)
    snprintf(why, n, "%s: expected_calls %lld < 0", who,
             (long long)opt->expected_calls);
  else
    return 0;
  return 1;
}

void smv__reuse_words(const smv_matrix_options *opt, char *buf, size_t n) {
  if (opt && opt->expected_calls > 0 && (opt->flags & SMV_MATRIX_REUSE))
    snprintf(buf, n, "SMV_MATRIX_REUSE, %lld expected calls",
             (long long)opt->expected_calls);
  else if (opt && opt->expected_calls > 0)
    snprintf(buf, n, "%lld expected calls >= %lld",
             (long long)opt->expected_calls,
             (long long)smv_matrix_reuse_threshold(opt->tune_runs));
  else
    snprintf(buf, n, "SMV_MATRIX_REUSE");
}
