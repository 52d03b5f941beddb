/*
 * bench_spmm_suite.c — named sets of SpMM cases for `smv bench-spmm
 * --suite NAME` (issue 22): the SpMV suite's classes (local columns,
 * random columns, power-law rows, R-MAT graphs, real matrices) crossed
 * with the column counts, layouts and precisions that decide which SpMM
 * kernel wins.
 *
 * Operands grow as k x rows: the bench skips a case whose X or Y would
 * exceed SPMM_MAX_ELEMS elements (it says so), so a suite may list
 * rmat:22:16 with k = 256 and run what fits.
 */
#include "bench.h"
#include "cli.h"

#include <string.h>

static const bench_spmm_suite suites[] = {
    {"quick",
     "R-MAT, power law and a stencil at k 1/4/32/128, both layouts, f32+f64, "
     "AUTO vs cuSPARSE (a few minutes)",
     {"rmat:20:16", "plaw:1000000:16", "stencil27:80", NULL},
     {1, 4, 32, 128},
     4,
     0,
     0,
     0,
     0},
    {"gnn",
     "the GNN layout: R-MAT and power-law graphs, f32 row-major, k 32..128, "
     "every algorithm",
     {"rmat:20:16", "rmat:21:16", "plaw:2000000:16", "rmat:20:16,perm=rand",
      NULL},
     {32, 64, 128},
     3,
     1,
     1,
     1,
     0},
    {"local",
     "local columns past the L2: 27-point stencil, 7-point Laplacian, band",
     {"stencil27:80", "lap3d:100", "band:2000000:8", NULL},
     {1, 4, 16, 64, 128, 256},
     6,
     0,
     0,
     1,
     0},
    {"random",
     "random columns and power-law rows",
     {"rand:2000000:16", "plaw:2000000:16", NULL},
     {1, 4, 16, 64, 128, 256},
     6,
     0,
     0,
     1,
     0},
    {"graph",
     "Graph500 Kronecker (R-MAT) graphs, scale 20-22",
     {"rmat:20:16", "rmat:21:16", "rmat:22:16", NULL},
     {1, 4, 16, 64, 128, 256},
     6,
     0,
     0,
     1,
     0},
    {"real",
     "the .mtx/.mtx.gz files of SMV_MATRICES or --matrices DIR",
     {NULL},
     {1, 4, 16, 64, 128, 256},
     6,
     0,
     0,
     1,
     1},
    {"full",
     "local + random + graph (+ real with a directory), every k, every "
     "algorithm",
     {"stencil27:80", "lap3d:100", "band:2000000:8", "rand:2000000:16",
      "plaw:2000000:16", "rmat:20:16", "rmat:21:16", "rmat:22:16", NULL},
     {1, 4, 16, 64, 128, 256},
     6,
     0,
     0,
     1,
     2},
    {"small",
     "CI-sized: one of each class, k 1/3/8/33",
     {"rmat:10:8", "plaw:2000:8", "lap2d:40", "stencil27:8", NULL},
     {1, 3, 8, 33},
     4,
     0,
     0,
     1,
     0},
};
#define NSUITES (sizeof suites / sizeof suites[0])

const bench_spmm_suite *bench_spmm_suite_find(const char *name) {
  for (size_t i = 0; i < NSUITES; i++)
    if (strcmp(name, suites[i].name) == 0)
      return &suites[i];
  return NULL;
}

void bench_spmm_suite_list(FILE *f) {
  for (size_t i = 0; i < NSUITES; i++) {
    const bench_spmm_suite *s = &suites[i];
    fprintf(f, "%-7s %s\n        k =", s->name, s->what);
    for (int k = 0; k < s->nk; k++)
      fprintf(f, "%s%d", k ? "," : " ", s->ks[k]);
    fprintf(f, "; %s; %s; algorithms: %s\n", s->f32_only ? "f32" : "f32+f64",
            s->row_only ? "row-major" : "both layouts",
            s->all_algs ? "all" : "auto + cuSPARSE");
    for (int m = 0; s->specs[m]; m++)
      fprintf(f, "        %s\n", s->specs[m]);
    if (s->real)
      fprintf(f, "        + the matrix directory%s\n",
              s->real == 2 ? " (when one is given)" : "");
  }
}
