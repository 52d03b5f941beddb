/*
 * suite.c — named sets of matrices for `smv bench --suite NAME` (issue 8):
 * one command covers the space of row lengths, column patterns and sizes
 * that decides which kernel wins. Every matrix of a suite other than
 * `small` holds at least 100 MB of CSR in f64 (12 bytes per entry + 4 per
 * row), i.e. is at least twice the H100/H200's 50 MB L2, so DRAM decides;
 * tests/test_bench.c checks that through smv_generate_shape.
 *
 * Suites (a matrix may sit in several):
 *   local   row lengths 1..129 with local columns: the band sweep (2W+1 =
 *           1, 3, 5, 7, 9, 17, 33, 65, 129: powers of two plus one are
 *           where whole-warp lanes waste most), lap2d, lap3d, HPCG's
 *           27-point stencil, a 3x3-block elasticity matrix (~80 per row);
 *   random  random columns: x inside the L2 (1M columns: 8 MB of x) and
 *           beyond it (20M columns: 160 MB), power-law rows, and lap3d
 *           with its locality switched off (perm=rand);
 *   graph   Graph500 Kronecker graph at scale 22, Kronecker labels (hubs
 *           first) and randomly relabelled as Graph500 does;
 *   dense   one full row among short ones;
 *   real    the Matrix Market files of a directory (SMV_MATRICES or
 *           --matrices DIR): all are small (in the L2) in ../shared;
 *   issue8  all of the above (alias: full);
 *   small   CI-sized versions of each kind (the tests run it on the CPU).
 */
#include "bench.h"
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *suite;
  const char *spec;
  const char *what;
} suite_entry;

static const suite_entry entries[] = {
    /* local columns, row length 1..129 */
    {"local", "band:12000000:0", "1 per row (diagonal band)"},
    {"local", "band:8000000:1", "3 per row"},
    {"local", "band:5000000:2", "5 per row"},
    {"local", "band:8000000:3", "7 per row"},
    {"local", "band:8000000:4", "9 per row"},
    {"local", "band:8000000:8", "17 per row"},
    {"local", "band:4000000:16", "33 per row"},
    {"local", "band:2000000:32", "65 per row"},
    {"local", "band:1000000:64", "129 per row"},
    {"local", "lap2d:3000", "5-point Laplacian, 9M rows"},
    {"local", "lap3d:160", "7-point Laplacian, 4.1M rows"},
    {"local", "stencil27:100", "27-point stencil (HPCG), 1M rows"},
    {"local", "elastic3d:50", "3x3 blocks x 27 neighbours, ~79 per row"},
    /* random columns */
    {"random", "rand:2000000:16,cols=1000000", "16 per row, x in the L2"},
    {"random", "rand:20000000:16", "16 per row, x 160 MB: beyond the L2"},
    {"random", "rand:1000000:64", "64 per row, x in the L2"},
    {"random", "plaw:4000000:16", "power-law rows (8..~22000), mean 16"},
    {"random", "lap3d:160,perm=rand", "lap3d with locality switched off"},
    /* graphs */
    {"graph", "rmat:22:16", "Graph500 scale 22, Kronecker labels"},
    {"graph", "rmat:22:16,perm=rand", "Graph500 scale 22, relabelled"},
    /* dense row */
    {"dense", "denserow:4000000:8", "8 per row, one full row of 4M"},
    /* CI-sized */
    {"small", "band:3000:0", "1 per row"},
    {"small", "band:2000:8", "17 per row"},
    {"small", "lap2d:40", "5-point Laplacian"},
    {"small", "lap3d:10", "7-point Laplacian"},
    {"small", "stencil27:8", "27-point stencil"},
    {"small", "elastic3d:4", "3x3-block elasticity"},
    {"small", "rand:2000:8,cols=50000", "random columns"},
    {"small", "plaw:2000:8", "power-law rows"},
    {"small", "rmat:10:8,perm=rand", "Graph500 scale 10"},
    {"small", "denserow:2000:4", "one full row"},
};
#define NENTRIES (sizeof entries / sizeof entries[0])

static const struct {
  const char *name;
  const char *what;
} suites[] = {
    {"issue8", "everything below but small (alias: full)"},
    {"local", "row lengths 1..129, local columns"},
    {"random", "random columns, x in and beyond the L2, power law"},
    {"graph", "Graph500 Kronecker (R-MAT) graphs, scale 22"},
    {"dense", "a dense row among short ones"},
    {"real", "the .mtx/.mtx.gz files of SMV_MATRICES or --matrices DIR"},
    {"small", "CI-sized versions (not past the L2)"},
};
#define NSUITES (sizeof suites / sizeof suites[0])

static int in_suite(const char *suite, const suite_entry *e) {
  return strcmp(suite, "issue8") == 0 ? strcmp(e->suite, "small") != 0
                                      : strcmp(suite, e->suite) == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_suffix(const char *s, const char *suf) {
  size_t n = strlen(s), k = strlen(suf);
  return n > k && strcmp(s + n - k, suf) == 0;
}

/* Append a copy of s to the list; -1 when out of memory. */
static int push(char ***v, int *n, int *cap, const char *s) {
  if (*n == *cap) {
    int c = *cap ? 2 * *cap : 32;
    char **w = realloc(*v, (size_t)c * sizeof *w);
    if (!w)
      return -1;
    *v = w;
    *cap = c;
  }
  size_t len = strlen(s) + 1;
  char *copy = malloc(len);
  if (!copy)
    return -1;
  memcpy(copy, s, len);
  (*v)[(*n)++] = copy;
  return 0;
}

/* The Matrix Market files of dir, sorted by name; -1 with a message. */
static int real_files(const char *dir, char ***v, int *n, int *cap) {
  DIR *d = opendir(dir);
  if (!d) {
    cli_error("%s: cannot open the matrix directory", dir);
    return -1;
  }
  const int first = *n;
  struct dirent *e;
  int rc = 0;
  size_t dl = strlen(dir);
  while (rc == 0 && (e = readdir(d)) != NULL) {
    if (!has_suffix(e->d_name, ".mtx") && !has_suffix(e->d_name, ".mtx.gz"))
      continue;
    char path[4096];
    if (dl + strlen(e->d_name) + 2 > sizeof path)
      continue;
    snprintf(path, sizeof path, "%s%s%s", dir,
             dl && dir[dl - 1] == '/' ? "" : "/", e->d_name);
    rc = push(v, n, cap, path);
  }
  closedir(d);
  if (rc != 0) {
    cli_error("out of memory");
    return -1;
  }
  if (*n == first) {
    cli_error("%s: no .mtx or .mtx.gz files", dir);
    return -1;
  }
  qsort(*v + first, (size_t)(*n - first), sizeof **v, cmp_str);
  return 0;
}

static int known_suite(const char *name) {
  for (size_t s = 0; s < NSUITES; s++)
    if (strcmp(name, suites[s].name) == 0)
      return 1;
  return 0;
}

const char *bench_suite_dir(const char *opt_dir) {
  if (opt_dir && *opt_dir)
    return opt_dir;
  const char *env = getenv("SMV_MATRICES");
  return env && *env ? env : NULL;
}

int bench_suite_expand(const char *name, const char *dir, char ***out,
                       int *count) {
  *out = NULL;
  *count = 0;
  if (strcmp(name, "full") == 0)
    name = "issue8";
  if (!known_suite(name))
    return cli_usage("bench", "--suite: unknown suite '%s' (see --suite list)",
                     name);
  char **v = NULL;
  int n = 0, cap = 0;
  for (size_t i = 0; i < NENTRIES; i++)
    if (in_suite(name, &entries[i]) && push(&v, &n, &cap, entries[i].spec)) {
      bench_suite_free(v, n);
      cli_error("out of memory");
      return CLI_ERR;
    }
  const int wants_real = strcmp(name, "real") == 0;
  if ((wants_real || strcmp(name, "issue8") == 0) && dir &&
      real_files(dir, &v, &n, &cap) != 0) {
    bench_suite_free(v, n);
    return CLI_ERR;
  }
  if (wants_real && !dir) {
    bench_suite_free(v, n);
    return cli_usage("bench", "--suite real needs a directory: "
                              "--matrices DIR or SMV_MATRICES");
  }
  *out = v;
  *count = n;
  return CLI_OK;
}

void bench_suite_free(char **v, int n) {
  for (int i = 0; v && i < n; i++)
    free(v[i]);
  free(v);
}

int bench_suite_list(FILE *f, const char *dir) {
  fprintf(f, "Suites for 'smv bench --suite NAME' (sizes: f64 CSR, 12 bytes "
             "per entry + 4 per row):\n");
  for (size_t s = 0; s < NSUITES; s++) {
    fprintf(f, "\n%s: %s\n", suites[s].name, suites[s].what);
    if (strcmp(suites[s].name, "issue8") == 0)
      continue; /* the others, listed below */
    if (strcmp(suites[s].name, "real") == 0) {
      if (!dir) {
        fprintf(f, "  (no directory: set SMV_MATRICES or give --matrices "
                   "DIR)\n");
        continue;
      }
      char **v = NULL;
      int n = 0, cap = 0;
      if (real_files(dir, &v, &n, &cap) != 0) {
        bench_suite_free(v, n);
        return CLI_ERR;
      }
      for (int i = 0; i < n; i++)
        fprintf(f, "  %s\n", v[i]);
      bench_suite_free(v, n);
      continue;
    }
    for (size_t i = 0; i < NENTRIES; i++) {
      if (strcmp(entries[i].suite, suites[s].name) != 0)
        continue;
      int64_t rows = 0, nnz = 0;
      int exact = 1;
      smv_error err;
      if (smv_generate_shape(entries[i].spec, &rows, NULL, &nnz, &exact,
                             &err) != SMV_OK) {
        cli_error("suite table: %s", err.message);
        return CLI_ERR;
      }
      fprintf(f, "  %-30s %11lld rows %s%11lld nnz %9.1f MB  %s\n",
              entries[i].spec, (long long)rows, exact ? " " : "<",
              (long long)nnz,
              ((double)nnz * 12.0 + (double)(rows + 1) * 4.0) / 1e6,
              entries[i].what);
    }
  }
  return CLI_OK;
}

int bench_suite_add(const char *name, const char *opt_dir, char ***mats,
                    int *nmats, char ***owned, int *nowned) {
  const char *dir = bench_suite_dir(opt_dir);
  if (strcmp(name, "list") == 0)
    return bench_suite_list(stdout, dir);
  char **v;
  int n;
  int rc = bench_suite_expand(name, dir, &v, &n);
  if (rc != CLI_OK)
    return rc;
  char **m = realloc(*mats, (size_t)(*nmats + n + 1) * sizeof *m);
  if (!m) {
    bench_suite_free(v, n);
    cli_error("out of memory");
    return CLI_ERR;
  }
  for (int i = 0; i < n; i++)
    m[*nmats + i] = v[i];
  *mats = m;
  *nmats += n;
  *owned = v;
  *nowned = n;
  return -1;
}
