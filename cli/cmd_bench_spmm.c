/* cmd_bench_spmm.c — `smv bench-spmm`: verify, then time, smv's SpMM
 * against cuSPARSE's SpMM (CSR ALG1/ALG2/ALG3) for k right-hand sides, in
 * row- and column-major order, on the GPU.
 *
 * For each matrix, precision and k: X gets fresh random values (mixed
 * signs, never zero; the same logical X for both orders), Y is poisoned
 * with NaN, each algorithm runs once (alpha 1, beta 0) and is checked
 * against the serial reference on up to 8 columns (the first and last, and
 * those at the kernels' tile edges: 1, 7, 8, 31, 32, k/2) over every row,
 * with the bench's bound (bench/verify.c); only a verified algorithm is
 * timed (smv_bench_spmm: CUDA events, warm-up, median; L2-warm, and L2
 * flushed with --flush). Bytes (minimal model): A once (row offsets,
 * indices, values), X once (cols * k), Y once (rows * k, written).
 * "vs cuSPARSE" is the time of the fastest verified cuSPARSE algorithm for
 * the same case divided by ours (> 1: ours is faster). AUTO's row names
 * the rung it ran ("auto:rowsplit").
 *
 * --suite NAME runs a named set (bench_spmm_suite.c; "list" prints them);
 * --csv FILE writes every row as CSV; --dump DIR writes each matrix as a
 * raw CSR (DIR/NAME.csr: int64 rows, cols, nnz, then int32 row offsets,
 * int32 columns, float64 values) for the torch.sparse.mm timing script
 * (scripts/spmm_torch.py), so both time the same matrices. */
#include "bench.h"
#include "cli.h"
#include "lab.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define MAX_K 16
#define MAX_CHECK_COLS 8
/* Cases whose X or Y would hold more elements are skipped (2^29: 4 GB in
 * f64 on the device, and the host's double copies). */
#define SPMM_MAX_ELEMS ((int64_t)1 << 29)

static void usage(FILE *f) {
  fprintf(f,
          "usage: smv bench-spmm [options] MATRIX...\n"
          "       smv bench-spmm --suite NAME|list [options] [MATRIX...]\n"
          "Verify, then time Y = A*X for k dense columns: smv's SpMM vs "
          "cuSPARSE SpMM.\n"
          "  --k LIST         column counts, 1..1024 (default 1,4,16,64)\n"
          "  --prec P         f64, f32 or both (default f64)\n"
          "  --layout L       row, col or both (default both)\n"
          "  --algs LIST      of auto,ours,cusparse-alg1,cusparse-alg2,"
          "cusparse-alg3,\n"
          "                   spmv,rowvec,rowsplit,colsplit,coltrans,kslice,\n"
          "                   rowpipe,rowgather,rowstream,colband (default "
          "all)\n"
          "  --suite NAME     a named set of matrices, k, precisions, layouts "
          "and\n"
          "                   algorithms (options given override it); list: "
          "the suites\n"
          "  --matrices DIR   real matrices for the suites real and full "
          "(default\n"
          "                   $SMV_MATRICES)\n"
          "  --csv FILE       also write every row as CSV\n"
          "  --dump DIR       write each matrix as DIR/NAME.csr (raw CSR) "
          "for\n"
          "                   scripts/spmm_torch.py\n"
          "  --runs N         timed runs per mode (default 100)\n"
          "  --flush          also time with the L2 flushed before each run\n"
          "  --max-seconds S  cap per mode (default 1)\n"
          "  --device N       CUDA device (default 0)\n"
          "  --markdown FILE  also write the table as Markdown\n");
}

typedef struct {
  int ks[MAX_K], nk;
  int prec[2], nprec;
  int layout[2], nlayout;
  int algs[SMV_SPMM_ALG_COUNT], nalgs;
  int runs, flush, device;
  double max_seconds;
  const char *markdown, *csv, *dump;
} opts;

static int one_k(const char *t, int *k) {
  long v;
  if (cli_parse_long(t, 1, 1024, &v) != 0)
    return -1;
  *k = (int)v;
  return 0;
}

static int one_alg(const char *t, int *k) {
  smv_spmm_alg a;
  if (smv_spmm_alg_parse(t, &a) != SMV_OK)
    return -1;
  *k = (int)a;
  return 0;
}

/* A comma-separated list of 1 to max items, each read by one(): 0, or -1
 * for an empty list, too many items or a bad one. */
static int parse_list(const char *s, int *out, int *n, int max,
                      int (*one)(const char *, int *)) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", s);
  *n = 0;
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    if (*n == max || one(t, &out[*n]) != 0)
      return -1;
    ++*n;
  }
  return *n > 0 ? 0 : -1;
}

/* Device copy of a host X (cols x k, logical, column c of row j at
 * [j * k + c]) in `layout`, packed, in the precision. */
static smv_status upload_dense(smv_context *ctx, const double *h, int64_t r,
                               int k, int row, int f32, void *d) {
  const size_t n = (size_t)r * (size_t)k, es = f32 ? 4 : 8;
  if (n == 0)
    return SMV_OK;
  void *t = malloc(n * es);
  if (!t)
    return SMV_ERR_NOMEM;
  for (int64_t i = 0; i < r; i++)
    for (int c = 0; c < k; c++) {
      size_t dst = row ? (size_t)i * k + c : (size_t)c * r + i;
      double v = h[(size_t)i * k + c];
      if (f32)
        ((float *)t)[dst] = (float)v;
      else
        ((double *)t)[dst] = v;
    }
  smv_status st = smv_memcpy_h2d(ctx, d, t, n * es);
  free(t);
  return st;
}

/* Fill Y with NaN (the poison before a verified run): Y = NaN * Y by
 * the SpMM's own alpha = 0 path (NaN times anything is NaN), on the
 * device, no host copy of Y. */
static smv_status poison(smv_context *ctx, smv_matrix *dA, int64_t ldx,
                         void *dY, int64_t ldy, int k, smv_layout L) {
  smv_status st =
      smv_spmm(ctx, SMV_SPMM_AUTO, 0.0, dA, NULL, ldx, NAN, dY, ldy, k, L);
  return st == SMV_OK ? smv_synchronize(ctx) : st;
}

/* The columns checked for k columns (distinct, ascending). */
static int check_cols(int k, int *cols) {
  const int want[MAX_CHECK_COLS] = {0, 1, 7, 8, 31, 32, k / 2, k - 1};
  int n = 0;
  for (int i = 0; i < MAX_CHECK_COLS; i++) {
    int c = want[i], dup = 0;
    if (c < 0 || c >= k)
      continue;
    for (int j = 0; j < n; j++)
      dup |= cols[j] == c;
    if (!dup)
      cols[n++] = c;
  }
  return n;
}

typedef struct {
  FILE *md, *csv;
  int failures;
  const char *device, *commit, *date;
} sink;

static void row_out(sink *s, const char *matrix, const char *prec,
                    const char *lay, int k, const char *alg, const char *verify,
                    const smv_bench_result *r, double bytes, double vs,
                    int flush) {
  double w = r ? r->warm.median_ms * 1e3 : NAN;
  double fl = r && flush ? r->flushed.median_ms * 1e3 : NAN;
  double gw = w > 0 ? bytes / (w * 1e-6) / 1e9 : NAN;
  double gf = fl > 0 ? bytes / (fl * 1e-6) / 1e9 : NAN;
  printf("%-24.24s %-4s %-4s %3d %-14s %-6s %10.2f %10.2f %8.1f %8.1f %7.2f\n",
         matrix, prec, lay, k, alg, verify, w, fl, gw, gf, vs);
  if (s->md)
    fprintf(s->md,
            "| %s | %s | %s | %d | %s | %s | %.2f | %.2f | %.0f | %.0f | "
            "%.2f |\n",
            matrix, prec, lay, k, alg, verify, w, fl, gw, gf, vs);
  if (s->csv)
    /* The matrix in quotes: a spec may hold commas ("rmat:20:16,perm=rand"). */
    fprintf(s->csv,
            "\"%s\",%s,%s,\"%s\",%s,%s,%d,%s,%s,%.3f,%.3f,%.1f,%.1f,%.4f\n",
            s->device, s->commit, s->date, matrix, prec, lay, k, alg, verify, w,
            fl, gw, gf, vs);
}

/* One (matrix, precision, k): both orders, every algorithm. */
static int bench_case(smv_context *ctx, const char *name, const smv_csr *A,
                      const smv_csr *Aref, smv_matrix *dA, int f32, int k,
                      const opts *o, smv_rng *rng, sink *s) {
  const int64_t m = A->rows, n = A->cols;
  const size_t es = f32 ? 4 : 8;
  if (n * k > SPMM_MAX_ELEMS || m * k > SPMM_MAX_ELEMS) {
    printf("%-24.24s %-4s k=%d skipped: X or Y over %lld elements\n", name,
           f32 ? "f32" : "f64", k, (long long)SPMM_MAX_ELEMS);
    return CLI_OK;
  }
  double *X = malloc(((size_t)n * k + 1) * sizeof *X);
  double *Y = malloc(((size_t)m * k + 1) * sizeof *Y);
  double *xc = malloc(((size_t)n + 1) * sizeof *xc);
  void *dX = NULL, *dY = NULL, *hy = malloc(((size_t)m * k + 1) * es);
  bench_expect e[MAX_CHECK_COLS];
  int cols[MAX_CHECK_COLS], ncols = check_cols(k, cols), nexp = 0;
  int rc = CLI_OK;
  smv_status st = SMV_OK;
  if (!X || !Y || !xc || !hy) {
    cli_error("bench-spmm: out of host memory (k = %d)", k);
    rc = CLI_ERR;
    goto out;
  }
  for (size_t i = 0; i < (size_t)n * k; i++) {
    X[i] = bench_rng_value(rng);
    if (f32)
      X[i] = (double)(float)X[i];
  }
  /* References of the checked columns (shared by both orders). */
  for (; nexp < ncols; nexp++) {
    for (int64_t j = 0; j < n; j++)
      xc[j] = X[(size_t)j * k + cols[nexp]];
    st = bench_expect_compute(Aref, 1.0, xc, 0.0, NULL,
                              f32 ? FLT_EPSILON : DBL_EPSILON, &e[nexp]);
    if (st != SMV_OK) {
      cli_error("bench-spmm: reference: %s", smv_status_string(st));
      rc = CLI_ERR;
      goto out;
    }
  }
  if ((st = smv_device_malloc(ctx, (size_t)n * k * es + es, &dX)) != SMV_OK ||
      (st = smv_device_malloc(ctx, (size_t)m * k * es + es, &dY)) != SMV_OK) {
    cli_error("bench-spmm: device memory for X and Y (k = %d): %s", k,
              smv_context_error(ctx));
    rc = CLI_ERR;
    goto out;
  }
  const double bytes = (double)(m + 1) * 4 + (double)A->nnz * (4 + es) +
                       (double)n * k * es + (double)m * k * es;
  smv_bench_options bo;
  smv_bench_options_init(&bo);
  bo.runs = o->runs;
  bo.warmup = 5;
  bo.flush_l2 = o->flush;
  bo.max_seconds = o->max_seconds;
  for (int li = 0; li < o->nlayout; li++) {
    const int row = o->layout[li] == SMV_LAYOUT_ROW_MAJOR;
    const smv_layout L = (smv_layout)o->layout[li];
    const int64_t ldx = row ? k : (n > 0 ? n : 1), ldy = row ? k : m;
    if ((st = upload_dense(ctx, X, n, k, row, f32, dX)) != SMV_OK) {
      cli_error("bench-spmm: upload of X: %s", smv_status_string(st));
      rc = CLI_ERR;
      goto out;
    }
    double best_cus = INFINITY;
    smv_bench_result res[SMV_SPMM_ALG_COUNT];
    char verdict[SMV_SPMM_ALG_COUNT][8];
    char names[SMV_SPMM_ALG_COUNT][32];
    for (int ai = 0; ai < o->nalgs; ai++) {
      const smv_spmm_alg alg = (smv_spmm_alg)o->algs[ai];
      snprintf(verdict[ai], sizeof verdict[ai], "PASS");
      snprintf(names[ai], sizeof names[ai], "%s", smv_spmm_alg_name(alg));
      smv_spmm_choice plan;
      if (alg == SMV_SPMM_AUTO &&
          smv_spmm_plan(ctx, dA, k, L, ldx, ldy, &plan) == SMV_OK)
        snprintf(names[ai], sizeof names[ai], "auto:%s",
                 smv_spmm_alg_name(plan.alg));
      memset(&res[ai], 0, sizeof res[ai]);
      if ((st = poison(ctx, dA, ldx, dY, ldy, k, L)) != SMV_OK) {
        cli_error("bench-spmm: poisoning Y: %s", smv_status_string(st));
        rc = CLI_ERR;
        goto out;
      }
      st = smv_spmm(ctx, alg, 1.0, dA, dX, ldx, 0.0, dY, ldy, k, L);
      if (st == SMV_OK)
        st = smv_synchronize(ctx);
      if (st == SMV_ERR_UNSUPPORTED) {
        snprintf(verdict[ai], sizeof verdict[ai], "n/a");
        fprintf(stderr, "  %s %s k=%d: %s\n", smv_spmm_alg_name(alg),
                row ? "row" : "col", k, smv_context_error(ctx));
        continue;
      }
      if (st == SMV_OK)
        st = smv_memcpy_d2h(ctx, hy, dY, (size_t)m * k * es);
      if (st != SMV_OK) {
        cli_error("bench-spmm: %s: %s", smv_spmm_alg_name(alg),
                  smv_context_error(ctx));
        snprintf(verdict[ai], sizeof verdict[ai], "ERROR");
        s->failures++;
        continue;
      }
      for (int c = 0; c < ncols; c++) {
        for (int64_t i = 0; i < m; i++) {
          size_t at = row ? (size_t)i * k + cols[c] : (size_t)cols[c] * m + i;
          Y[i] = f32 ? (double)((float *)hy)[at] : ((double *)hy)[at];
        }
        double worst;
        int64_t first;
        if (bench_check(&e[c], Y, &worst, &first) > 0) {
          fprintf(stderr,
                  "  %s %s k=%d column %d: row %lld got %.17g want %.17g\n",
                  smv_spmm_alg_name(alg), row ? "row" : "col", k, cols[c],
                  (long long)first, Y[first], e[c].ref[first]);
          snprintf(verdict[ai], sizeof verdict[ai], "FAIL");
        }
      }
      if (strcmp(verdict[ai], "PASS") != 0) {
        s->failures++;
        continue; /* never time a wrong result */
      }
      st = smv_bench_spmm(ctx, alg, dA, dX, ldx, dY, ldy, k, L, &bo, &res[ai]);
      if (st != SMV_OK) {
        cli_error("bench-spmm: timing %s: %s", smv_spmm_alg_name(alg),
                  res[ai].error);
        snprintf(verdict[ai], sizeof verdict[ai], "ERROR");
        s->failures++;
        continue;
      }
      const double t = res[ai].warm.median_ms;
      if (alg >= SMV_SPMM_CUSPARSE_ALG1 && alg <= SMV_SPMM_CUSPARSE_ALG3 &&
          t < best_cus)
        best_cus = t;
    }
    for (int ai = 0; ai < o->nalgs; ai++) {
      const smv_spmm_alg alg = (smv_spmm_alg)o->algs[ai];
      const int timed = strcmp(verdict[ai], "PASS") == 0;
      double vs = NAN;
      if (timed && isfinite(best_cus) && res[ai].warm.median_ms > 0)
        vs = best_cus / res[ai].warm.median_ms;
      (void)alg;
      row_out(s, name, f32 ? "f32" : "f64", row ? "row" : "col", k, names[ai],
              verdict[ai], timed ? &res[ai] : NULL, bytes, vs, o->flush);
    }
  }
out:
  for (int c = 0; c < nexp; c++)
    bench_expect_free(&e[c]);
  smv_device_free(ctx, dX);
  smv_device_free(ctx, dY);
  free(X), free(Y), free(xc), free(hy);
  return rc;
}

/* DIR/NAME.csr: int64 rows, cols, nnz; int32 row offsets (rows + 1),
 * int32 columns (nnz), float64 values (nnz); native byte order. NAME's
 * '/' and ':' stay as they are except '/', which becomes '_'. 0, or -1
 * with a message. */
static int dump_csr(const char *dir, const char *name, const smv_csr *A) {
  char fn[4096];
  int n = snprintf(fn, sizeof fn, "%s/%s.csr", dir, name);
  if (n < 0 || (size_t)n >= sizeof fn) {
    cli_error("bench-spmm: --dump: name too long");
    return -1;
  }
  for (char *c = fn + strlen(dir) + 1; *c; c++)
    if (*c == '/')
      *c = '_';
  FILE *f = bench_open_out(fn);
  if (!f)
    return -1;
  const int64_t hdr[3] = {A->rows, A->cols, A->nnz};
  const size_t nr = (size_t)A->rows + 1, nz = (size_t)A->nnz;
  int ok = fwrite(hdr, sizeof hdr, 1, f) == 1 &&
           fwrite(A->row_ptr, sizeof *A->row_ptr, nr, f) == nr &&
           (nz == 0 || (fwrite(A->col_idx, sizeof *A->col_idx, nz, f) == nz &&
                        fwrite(A->values, sizeof *A->values, nz, f) == nz));
  if (bench_close_out(f, fn) != 0 || !ok) {
    cli_error("bench-spmm: --dump: cannot write %s", fn);
    return -1;
  }
  return 0;
}

/* The MATRIX arguments (at most 64). */
typedef struct {
  const char *v[64];
  int n;
} spmm_mats;
static int spmm_positional(void *user, const char *arg) {
  spmm_mats *m = user;
  if (m->n == 64)
    return cli_usage("bench-spmm", "at most 64 matrices");
  m->v[m->n++] = arg;
  return CLI_OK;
}

int cmd_bench_spmm(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return CLI_OK;
  }
  opts o;
  memset(&o, 0, sizeof o);
  o.ks[0] = 1, o.ks[1] = 4, o.ks[2] = 16, o.ks[3] = 64, o.nk = 4;
  o.prec[0] = SMV_F64, o.nprec = 1;
  o.layout[0] = SMV_LAYOUT_ROW_MAJOR, o.layout[1] = SMV_LAYOUT_COL_MAJOR;
  o.nlayout = 2;
  for (int a = SMV_SPMM_AUTO; a < SMV_SPMM_ALG_COUNT; a++)
    o.algs[o.nalgs++] = a;
  o.runs = 100;
  o.max_seconds = 1.0;
  spmm_mats mm = {{NULL}, 0};
  const char *vk = NULL, *vprec = NULL, *vlay = NULL, *valgs = NULL,
             *vruns = NULL, *vmax = NULL, *vdev = NULL, *vsuite = NULL,
             *vdir = NULL;
  const cli_opt table[] = {
      {.name = "--k", .need = "a list like 1,4,16,64", .str = &vk},
      {.name = "--prec", .need = "a value", .str = &vprec},
      {.name = "--layout", .need = "a value", .str = &vlay},
      {.name = "--algs", .need = "a list", .str = &valgs},
      {.name = "--runs", .need = "a value", .str = &vruns},
      {.name = "--max-seconds", .need = "a value", .str = &vmax},
      {.name = "--device", .need = "a value", .str = &vdev},
      {.name = "--markdown", .need = "a file", .str = &o.markdown},
      {.name = "--flush", .flag = &o.flush},
      {.name = "--suite", .need = "a suite name (or list)", .str = &vsuite},
      {.name = "--matrices", .need = "a directory", .str = &vdir},
      {.name = "--csv", .need = "a file", .str = &o.csv},
      {.name = "--dump", .need = "a directory", .str = &o.dump},
      {0}};
  int prc = cli_parse("bench-spmm", argc, argv, table, spmm_positional, &mm);
  if (prc != CLI_OK)
    return prc;
  /* A suite: its matrices first, then those given; its k, precisions,
   * layouts and algorithms unless the options name them. */
  const char *mats[128];
  int nm = 0;
  char **real = NULL;
  int nreal = 0;
  if (vsuite) {
    if (strcmp(vsuite, "list") == 0) {
      bench_spmm_suite_list(stdout);
      return CLI_OK;
    }
    const bench_spmm_suite *su = bench_spmm_suite_find(vsuite);
    if (!su)
      return cli_usage("bench-spmm",
                       "--suite: unknown suite '%s' (see --suite list)",
                       vsuite);
    for (int i = 0; su->specs[i]; i++)
      mats[nm++] = su->specs[i];
    const char *dir = bench_suite_dir(vdir);
    if (su->real == 1 && !dir)
      return cli_usage("bench-spmm",
                       "--suite %s needs a directory: "
                       "--matrices DIR or SMV_MATRICES",
                       su->name);
    if (su->real && dir) {
      int rc = bench_suite_expand("real", dir, &real, &nreal);
      if (rc != CLI_OK)
        return rc;
      for (int i = 0; i < nreal && nm < 64; i++)
        mats[nm++] = real[i];
    }
    memcpy(o.ks, su->ks, sizeof su->ks);
    o.nk = su->nk;
    o.prec[0] = SMV_F32, o.prec[1] = SMV_F64, o.nprec = su->f32_only ? 1 : 2;
    o.nlayout = su->row_only ? 1 : 2;
    if (!su->all_algs) {
      o.nalgs = 0;
      o.algs[o.nalgs++] = SMV_SPMM_AUTO;
      for (int a = SMV_SPMM_CUSPARSE_ALG1; a <= SMV_SPMM_CUSPARSE_ALG3; a++)
        o.algs[o.nalgs++] = a;
    }
    o.runs = 30;
    o.max_seconds = 0.25;
  }
  for (int i = 0; i < mm.n; i++)
    mats[nm++] = mm.v[i];
  long lv;
  static const char *const precs[] = {"f64", "f32", "both", NULL};
  static const char *const lays[] = {"row", "col", "both", NULL};
  int pick;
  if (vk && parse_list(vk, o.ks, &o.nk, MAX_K, one_k) != 0)
    return cli_usage("bench-spmm", "--k wants a list like 1,4,16,64 "
                                   "(each 1..1024, at most 16)");
  if (vprec) {
    if ((pick = cli_pick(vprec, precs)) < 0)
      return cli_usage("bench-spmm", "--prec: f64, f32 or both, not '%s'",
                       vprec);
    o.prec[0] = pick == 1 ? SMV_F32 : SMV_F64, o.prec[1] = SMV_F32;
    o.nprec = pick == 2 ? 2 : 1;
  }
  if (vlay) {
    if ((pick = cli_pick(vlay, lays)) < 0)
      return cli_usage("bench-spmm", "--layout: row, col or both, not '%s'",
                       vlay);
    if (pick < 2)
      o.layout[0] = pick == 0 ? SMV_LAYOUT_ROW_MAJOR : SMV_LAYOUT_COL_MAJOR,
      o.nlayout = 1;
  }
  if (valgs &&
      parse_list(valgs, o.algs, &o.nalgs, SMV_SPMM_ALG_COUNT, one_alg) != 0)
    return cli_usage(
        "bench-spmm",
        "--algs: a list of auto, ours, cusparse-alg1, "
        "cusparse-alg2, cusparse-alg3, spmv, rowvec, rowsplit, "
        "colsplit, coltrans, kslice, rowpipe, rowgather, rowstream, "
        "colband");
  if (vruns) {
    if (cli_parse_long(vruns, 1, 100000, &lv) != 0)
      return cli_usage("bench-spmm", "--runs wants 1..100000");
    o.runs = (int)lv;
  }
  if (vmax &&
      (cli_parse_double(vmax, &o.max_seconds) != 0 || !(o.max_seconds >= 0)))
    return cli_usage("bench-spmm", "--max-seconds wants a number >= 0");
  if (vdev) {
    if (cli_parse_long(vdev, 0, 1024, &lv) != 0)
      return cli_usage("bench-spmm", "--device wants 0..1024");
    o.device = (int)lv;
  }
  if (nm == 0)
    return cli_usage("bench-spmm", "no MATRIX given");
  if (o.dump && mkdir(o.dump, 0777) != 0 && errno != EEXIST) {
    cli_error("bench-spmm: --dump %s: %s", o.dump, strerror(errno));
    bench_suite_free(real, nreal);
    return CLI_ERR;
  }

  smv_context *ctx = NULL;
  smv_status st = smv_context_create(o.device, &ctx);
  if (st != SMV_OK) {
    cli_error("bench-spmm needs a GPU: %s: %s", smv_status_string(st),
              smv_context_error(NULL));
    bench_suite_free(real, nreal);
    return CLI_ERR;
  }
  smv_device_props p;
  double copy = NAN;
  if (smv_device_props_get(ctx, &p) != SMV_OK)
    snprintf(p.name, sizeof p.name, "unknown device");
  (void)smv_device_copy_bandwidth(ctx, (size_t)256 << 20, &copy);
  char date[32];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%dT%H:%MZ", gmtime(&now));
  sink s = {NULL, NULL, 0, p.name, smv_git_commit(), date};
  if ((o.markdown && !(s.md = bench_open_out(o.markdown))) ||
      (o.csv && !(s.csv = bench_open_out(o.csv)))) {
    if (s.md)
      bench_close_out(s.md, o.markdown);
    smv_context_free(ctx);
    bench_suite_free(real, nreal);
    return CLI_ERR;
  }
  if (s.csv)
    fprintf(s.csv, "device,commit,date,matrix,prec,order,k,alg,verify,"
                   "warm_us,flush_us,gbps_warm,gbps_flushed,vs\n");
  printf("device: %s, device copy %.0f GB/s; smv %s (commit %s); %s\n", p.name,
         copy, smv_version(), smv_git_commit(), date);
  printf("times in us (median), GB/s by the minimal-bytes model (A, X, Y "
         "once); vs = fastest cuSPARSE / this\n");
  printf("%-24s %-4s %-4s %3s %-14s %-6s %10s %10s %8s %8s %7s\n", "matrix",
         "prec", "ord", "k", "alg", "verify", "warm_us",
         o.flush ? "flush_us" : "-", "GB/s", o.flush ? "GB/s_fl" : "-", "vs");
  if (s.md)
    fprintf(s.md,
            "Device: %s (device copy %.0f GB/s); smv %s, commit %s; %s.\n\n"
            "| matrix | prec | order | k | alg | verify | warm us | flushed "
            "us | GB/s warm | GB/s flushed | vs fastest cuSPARSE |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|\n",
            p.name, copy, smv_version(), smv_git_commit(), date);
  smv_rng rng = {0x5eedULL};
  int rc = CLI_OK;
  for (int mi = 0; mi < nm && rc == CLI_OK; mi++) {
    smv_csr *A = NULL;
    if (cli_load(mats[mi], &A) != CLI_OK) {
      rc = CLI_ERR;
      break;
    }
    const char *base = strrchr(mats[mi], '/');
    base = base ? base + 1 : mats[mi];
    if (o.dump && dump_csr(o.dump, base, A) != 0) {
      smv_csr_free(A);
      rc = CLI_ERR;
      break;
    }
    for (int pi = 0; pi < o.nprec && rc == CLI_OK; pi++) {
      const int f32 = o.prec[pi] == SMV_F32;
      smv_csr *Aref = NULL;
      smv_matrix *dA = NULL;
      if (f32 && (st = bench_csr_round_f32(A, &Aref)) != SMV_OK) {
        cli_error("bench-spmm: %s", smv_status_string(st));
        rc = CLI_ERR;
        break;
      }
      st = smv_matrix_create(ctx, A, (smv_precision)o.prec[pi], &dA);
      if (st != SMV_OK) {
        cli_error("bench-spmm: %s: %s", mats[mi], smv_context_error(ctx));
        rc = CLI_ERR;
      }
      for (int ki = 0; ki < o.nk && rc == CLI_OK; ki++) {
        rc = bench_case(ctx, base, A, f32 ? Aref : A, dA, f32, o.ks[ki], &o,
                        &rng, &s);
        fflush(stdout);
        if (s.md)
          fflush(s.md);
      }
      smv_matrix_free(dA);
      smv_csr_free(Aref);
    }
    smv_csr_free(A);
  }
  if (s.md && bench_close_out(s.md, o.markdown) != 0 && rc == CLI_OK)
    rc = CLI_ERR;
  if (s.csv && bench_close_out(s.csv, o.csv) != 0 && rc == CLI_OK)
    rc = CLI_ERR;
  bench_suite_free(real, nreal);
  smv_context_free(ctx);
  if (rc == CLI_OK && s.failures > 0) {
    cli_error("bench-spmm: %d case(s) failed verification or timing",
              s.failures);
    rc = CLI_ERR;
  }
  return rc;
}
