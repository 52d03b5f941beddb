/* timing.h — the wall clock and the median's sort, shared by the solver
 * benchmark programs (cg_cusparse.c, solve_smv.c). */
#ifndef SMV_SOLVERS_TIMING_H
#define SMV_SOLVERS_TIMING_H

#include <time.h>

static inline double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
/* qsort comparator for doubles, ascending. */
static inline int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#endif
