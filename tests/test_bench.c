/*
 * test_bench.c — the benchmark driver's pieces that decide what a result
 * means: timing summaries, the minimal-bytes model, derived rates and
 * speedups, the CSV/JSON writers and the CSV reader, the verification
 * bound and check (the lab, libsmvlab.a). No GPU needed.
 */
#include "lab.h"

#include "test.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_summarise(void) {
  double ms[11];
  for (int i = 0; i < 11; i++) /* 11, 10, ..., 1: sorting is part of it */
    ms[i] = 11.0 - i;
  smv_timing t;
  bench_summarise(ms, 11, &t);
  CHECK_INT(t.runs, 11);
  CHECK_NEAR(t.min_ms, 1, 0);
  CHECK_NEAR(t.max_ms, 11, 0);
  CHECK_NEAR(t.median_ms, 6, 1e-12);
  CHECK_NEAR(t.p10_ms, 2, 1e-12);
  CHECK_NEAR(t.p90_ms, 10, 1e-12);
  /* even count: the median interpolates */
  double two[4] = {4, 1, 3, 2};
  bench_summarise(two, 4, &t);
  CHECK_NEAR(t.median_ms, 2.5, 1e-12);
  CHECK_NEAR(t.p10_ms, 1.3, 1e-12);
  CHECK_NEAR(t.p90_ms, 3.7, 1e-12);
  double one[1] = {7};
  bench_summarise(one, 1, &t);
  CHECK(t.runs == 1 && t.median_ms == 7 && t.p10_ms == 7 && t.p90_ms == 7);
  bench_summarise(one, 0, &t);
  CHECK_INT(t.runs, 0);
}

static void test_bytes_model(void) {
  /* 1000 x 800, 5000 nnz, f64, beta = 0:
   * 5000*12 + 1001*4 + 800*8 + 1000*8 = 60000 + 4004 + 6400 + 8000 */
  CHECK_NEAR(bench_min_bytes(1000, 800, 5000, 8, 0), 78404, 0);
  /* beta != 0 reads y as well: + 1000*8 */
  CHECK_NEAR(bench_min_bytes(1000, 800, 5000, 8, 1), 86404, 0);
  /* f32: 5000*8 + 1001*4 + 800*4 + 1000*4 */
  CHECK_NEAR(bench_min_bytes(1000, 800, 5000, 4, 0), 51204, 0);
  CHECK_NEAR(bench_min_bytes(0, 0, 0, 8, 0), 4, 0); /* row_ptr[0] */
}

static bench_record make(const char *matrix, const char *prec, const char *alg,
                         double warm_ms) {
  bench_record r;
  bench_record_init(&r);
  snprintf(r.matrix, sizeof r.matrix, "%s", matrix);
  snprintf(r.precision, sizeof r.precision, "%s", prec);
  snprintf(r.alg, sizeof r.alg, "%s", alg);
  snprintf(r.verify, sizeof r.verify, "PASS");
  r.warm.runs = 10;
  r.warm.median_ms = warm_ms;
  r.nnz = 1000000;
  r.bytes = 2e9;
  r.copy_gbps = 4000;
  return r;
}

static void test_derive_and_speedups(void) {
  bench_record r = make("m", "f64", "vector", 1.0);
  bench_derive(&r);
  CHECK_NEAR(r.warm_gbps, 2000, 1e-9);   /* 2e9 B / 1 ms */
  CHECK_NEAR(r.warm_pct_copy, 50, 1e-9); /* of 4000 GB/s */
  CHECK_NEAR(r.warm_gflops, 2.0, 1e-12); /* 2 * 1e6 / 1 ms */
  CHECK(isnan(r.flushed_gbps));          /* mode not timed */
  CHECK(isnan(r.graph_gflops));

  bench_records rs = {0};
  bench_record a = make("m", "f64", "vector", 2.0);
  bench_record b = make("m", "f64", "cusparse-alg1", 1.0);
  bench_record c = make("m", "f32", "vector", 0.25); /* other precision */
  bench_record d = make("m", "f64", "scalar", 4.0);
  snprintf(d.verify, sizeof d.verify, "FAIL");
  CHECK(bench_records_push(&rs, &a) == 0);
  CHECK(bench_records_push(&rs, &b) == 0);
  CHECK(bench_records_push(&rs, &c) == 0);
  CHECK(bench_records_push(&rs, &d) == 0);
  bench_speedups(&rs, 0);
  CHECK_NEAR(rs.v[0].warm_speedup_alg1, 0.5, 1e-12);
  CHECK_NEAR(rs.v[1].warm_speedup_alg1, 1.0, 1e-12);
  CHECK(isnan(rs.v[2].warm_speedup_alg1)); /* no f32 ALG1 */
  CHECK(isnan(rs.v[3].warm_speedup_alg1)); /* a FAIL gets no speedup */
  CHECK(isnan(rs.v[0].graph_speedup_alg1));
  bench_records_free(&rs);
}

/* Distinct values in first-seen order, filtered, never more than max (the
 * Markdown writer's precision list holds 8; a hand-edited CSV can have
 * more). */
static void test_distinct_and_find(void) {
  bench_records rs = {0};
  const char *precs[] = {"f64", "f32", "a", "b", "c", "d", "e", "f", "g", "h"};
  for (int i = 0; i < 10; i++) {
    bench_record r = make("m", precs[i], i % 2 ? "scalar" : "vector", 1.0);
    CHECK(bench_records_push(&rs, &r) == 0);
  }
  bench_record s = make("m", "f64", "vector", 2.0);
  s.sweep = 1;
  s.block = 64;
  CHECK(bench_records_push(&rs, &s) == 0);
  const char *out[4] = {NULL, NULL, NULL, NULL};
  CHECK_INT(bench_distinct(&rs, offsetof(bench_record, precision), 0, NULL,
                           NULL, out, 3),
            3);
  CHECK(strcmp(out[0], "f64") == 0 && strcmp(out[2], "a") == 0);
  CHECK(out[3] == NULL); /* max respected */
  CHECK_INT(
      bench_distinct(&rs, offsetof(bench_record, alg), 0, NULL, NULL, out, 4),
      2);
  CHECK_INT(
      bench_distinct(&rs, offsetof(bench_record, alg), 0, NULL, "f32", out, 4),
      1);
  CHECK(strcmp(out[0], "scalar") == 0);
  CHECK_INT(bench_distinct(&rs, offsetof(bench_record, precision), 1, "m", NULL,
                           out, 4),
            1);
  const bench_record *r = bench_find(&rs, 1, "m", "f64", "vector", -1);
  CHECK(r == &rs.v[10]);
  CHECK(bench_find(&rs, 1, "m", "f64", "vector", 32) == NULL);
  CHECK(bench_find(&rs, 0, "m", "f64", "vector", -1) == &rs.v[0]);
  CHECK(bench_find(&rs, 0, "other", "f64", "vector", -1) == NULL);
  bench_records_free(&rs);
}

static void test_csv_round_trip(void) {
  bench_records rs = {0};
  bench_record a = make("rand:1000:8,seed=3", "f64", "vector-shfl", 0.125);
  snprintf(a.device, sizeof a.device, "GPU \"quoted\", with comma");
  snprintf(a.note, sizeof a.note, "line one\nline two");
  a.block = 256;
  a.err_ratio = INFINITY;
  a.rows = 3000000000LL; /* needs 64 bits */
  a.occupancy = 0.75;
  snprintf(a.occ_limited_by, sizeof a.occ_limited_by, "warps+regs");
  bench_derive(&a);
  bench_record b = make("x.mtx", "f32", "scalar", 3.5);
  CHECK(bench_records_push(&rs, &a) == 0);
  CHECK(bench_records_push(&rs, &b) == 0);

  char path[] = "/tmp/smv_test_bench_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  FILE *f = fdopen(fd, "w");
  bench_csv_header(f);
  for (size_t i = 0; i < rs.n; i++)
    bench_csv_row(f, &rs.v[i]);
  fclose(f);

  bench_records back = {0};
  char err[256] = "";
  CHECK(bench_csv_read(path, &back, err, sizeof err) == 0);
  CHECK_INT(back.n, 2);
  if (back.n == 2) {
    const bench_record *x = &back.v[0];
    CHECK(strcmp(x->device, "GPU \"quoted\", with comma") == 0);
    CHECK(strcmp(x->matrix, "rand:1000:8,seed=3") == 0);
    CHECK(strcmp(x->note, "line one line two") == 0); /* newline flattened */
    CHECK_INT(x->block, 256);
    CHECK_INT(x->rows, 3000000000LL);
    CHECK(isinf(x->err_ratio));
    CHECK_NEAR(x->warm.median_ms, 0.125, 0);
    CHECK_NEAR(x->warm_gbps, a.warm_gbps, 1e-6 * a.warm_gbps);
    CHECK(isnan(x->flushed.median_ms)); /* unset stays unset */
    CHECK_INT(x->flushed.runs, 0);
    CHECK(strcmp(x->occ_limited_by, "warps+regs") == 0);
    CHECK(strcmp(back.v[1].precision, "f32") == 0);
  }
  bench_records_free(&back);

  /* broken files: each error names the file and line */
  const char *bad[] = {
      "label,device\n\"open quote,x\n", /* unterminated quote */
      "label,rows\nx,12abc\n",          /* bad number */
      "label,block\nx,4294967297\n",    /* int column out of range */
      "label,rows\nx,1,2\n",            /* too many fields */
      "hello,world\n1,2\n",             /* not ours */
      "",                               /* empty */
  };
  const char *want[] = {"unterminated",         "column 'rows'",
                        "column 'block'",       "3 fields",
                        "not an smv bench CSV", "empty file"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    f = fopen(path, "w");
    fputs(bad[k], f);
    fclose(f);
    bench_records r2 = {0};
    CHECK(bench_csv_read(path, &r2, err, sizeof err) == -1);
    CHECK_STR_HAS(err, want[k]);
    CHECK_STR_HAS(err, path);
    bench_records_free(&r2);
  }
  remove(path);
  CHECK(bench_csv_read("/nonexistent/x.csv", &back, err, sizeof err) == -1);
  CHECK_STR_HAS(err, "/nonexistent/x.csv");
  bench_records_free(&rs);
}

static void test_json(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  bench_json_string(f, "a\"b\\c\nd\te\x01");
  fclose(f);
  CHECK(strcmp(buf, "\"a\\\"b\\\\c\\nd\\te\\u0001\"") == 0);
  free(buf);

  bench_record r = make("m", "f64", "vector", 1.0);
  f = open_memstream(&buf, &len);
  bench_json_record(f, &r, "");
  fclose(f);
  CHECK_STR_HAS(buf, "\"warm_median_ms\": 1");
  CHECK_STR_HAS(buf, "\"flushed_median_ms\": null"); /* NaN is null */
  CHECK_STR_HAS(buf, "\"alg\": \"vector\"");
  CHECK(buf[0] == '{' && buf[len - 1] == '}');
  free(buf);
}

/* A 4x5 matrix (the seed's worked example) plus an empty row. */
static smv_csr *seed_matrix(void) {
  static const smv_offset ptr[] = {0, 2, 4, 7, 9, 9};
  static const smv_index idx[] = {0, 1, 1, 2, 0, 3, 4, 2, 4};
  static const double val[] = {1, 4, 2, 3, 5, 7, 8, 9, 6};
  return tst_csr(5, 5, 9, ptr, idx, val);
}

static void test_expect_and_check(void) {
  smv_csr *A = seed_matrix();
  CHECK(A != NULL);
  if (!A)
    return;
  double x[5] = {1, -2, 0.5, 3, -1}, y0[5] = {1, 2, 3, 4, 5};
  bench_expect e;
  CHECK_OK(bench_expect_compute(A, 2.0, x, -1.0, y0, DBL_EPSILON, &e));
  /* row 0: 2*(1*1 + 4*-2) - 1 = -15; row 4 (empty): -5 */
  CHECK_NEAR(e.ref[0], -15, 0);
  CHECK_NEAR(e.ref[4], -5, 0);
  /* bound row 0: 2 eps (2+2) (2*(1+8) + 1) */
  CHECK_NEAR(e.bound[0], 2 * DBL_EPSILON * 4 * 19, 1e-30);
  double y[5];
  memcpy(y, e.ref, sizeof y);
  double worst;
  int64_t first;
  CHECK_INT(bench_check(&e, y, &worst, &first), 0);
  CHECK_INT(first, -1);
  CHECK(worst == 0);
  y[2] += 0.5 * e.bound[2]; /* inside the bound */
  CHECK_INT(bench_check(&e, y, &worst, &first), 0);
  CHECK_NEAR(worst, 0.5, 0.1); /* y + bound/2 rounds to a few ulps */
  y[3] += 3 * e.bound[3];      /* outside */
  CHECK_INT(bench_check(&e, y, &worst, &first), 1);
  CHECK_INT(first, 3);
  CHECK(worst > 2.9);
  y[1] = NAN; /* a poisoned row never passes */
  CHECK_INT(bench_check(&e, y, &worst, &first), 2);
  CHECK_INT(first, 1);
  CHECK(isinf(worst));
  bench_expect_free(&e);

  /* beta = 0: bound of the empty row is 0, so y must be exactly 0 */
  CHECK_OK(bench_expect_compute(A, 1.0, x, 0.0, NULL, DBL_EPSILON, &e));
  CHECK(e.bound[4] == 0 && e.ref[4] == 0);
  memcpy(y, e.ref, sizeof y);
  CHECK_INT(bench_check(&e, y, &worst, &first), 0);
  y[4] = 1e-300;
  CHECK_INT(bench_check(&e, y, &worst, &first), 1);
  CHECK(isinf(worst));
  bench_expect_free(&e);
  CHECK_STATUS(bench_expect_compute(A, 1.0, x, 2.0, NULL, DBL_EPSILON, &e),
               SMV_ERR_ARG); /* beta != 0 needs y0 */
  smv_csr_free(A);
}

/* The verdict both runners record: PASS, or FAIL with the first bad row
 * in the note; err_ratio keeps the worst of the checks of one record. */
static void test_judge(void) {
  smv_csr *A = seed_matrix();
  CHECK(A != NULL);
  if (!A)
    return;
  double x[5] = {1, -2, 0.5, 3, -1}, y[5];
  bench_expect e;
  CHECK_OK(bench_expect_compute(A, 1.0, x, 0.0, NULL, DBL_EPSILON, &e));
  bench_record r;
  bench_record_init(&r);
  memcpy(y, e.ref, sizeof y);
  y[1] += 0.5 * e.bound[1];
  CHECK_INT(bench_judge(&e, y, &r, ""), 1);
  CHECK(strcmp(r.verify, "PASS") == 0 && r.note[0] == '\0');
  double first_ratio = r.err_ratio;
  CHECK(first_ratio > 0.1 && first_ratio < 1);
  memcpy(y, e.ref, sizeof y);
  CHECK_INT(bench_judge(&e, y, &r, "again: "), 1);
  CHECK(r.err_ratio == first_ratio); /* the worse check is kept */
  y[3] += 4 * e.bound[3];
  CHECK_INT(bench_judge(&e, y, &r, "after the timed runs: "), 0);
  CHECK(strcmp(r.verify, "FAIL") == 0);
  CHECK(r.err_ratio > 3.9);
  CHECK_STR_HAS(r.note, "after the timed runs: 1 of 5 rows outside the bound; "
                        "row 3: y = ");
  bench_expect_free(&e);
  smv_csr_free(A);
}

/* The f32 bound accepts the CPU's float SpMV and the f64 bound rejects it:
 * the bound is tight enough to tell the precisions apart. */
static void test_bound_tells_precisions_apart(void) {
  smv_csr *A = NULL, *Af = NULL;
  CHECK_OK(smv_generate("rand:2000:40", &A, NULL));
  if (!A)
    return;
  CHECK_OK(bench_csr_round_f32(A, &Af));
  smv_rng g = {42};
  int64_t n = A->cols;
  double *xd = malloc((size_t)n * sizeof *xd);
  float *xf = malloc((size_t)n * sizeof *xf), *yf = malloc(2000 * sizeof *yf);
  double *y = malloc(2000 * sizeof *y);
  for (int64_t i = 0; i < n; i++) {
    xf[i] = (float)bench_rng_value(&g);
    xd[i] = xf[i];
  }
  CHECK_OK(smv_spmv_cpu_f32(A, 1.0f, xf, 0.0f, yf));
  for (int i = 0; i < 2000; i++)
    y[i] = yf[i];
  bench_expect e32, e64;
  CHECK_OK(bench_expect_compute(Af, 1.0, xd, 0.0, NULL, FLT_EPSILON, &e32));
  CHECK_OK(bench_expect_compute(Af, 1.0, xd, 0.0, NULL, DBL_EPSILON, &e64));
  double worst;
  int64_t first;
  CHECK_INT(bench_check(&e32, y, &worst, &first), 0);
  CHECK(worst <= 1);
  CHECK(bench_check(&e64, y, &worst, &first) > 0);
  bench_expect_free(&e32);
  bench_expect_free(&e64);
  free(xd);
  free(xf);
  free(yf);
  free(y);
  smv_csr_free(A);
  smv_csr_free(Af);
}

static void test_rng(void) {
  smv_rng a = {7}, b = {7}, c = {8};
  int neg = 0, same = 1, differ = 0;
  for (int i = 0; i < 10000; i++) {
    double u = bench_rng_value(&a), v = bench_rng_value(&b);
    double w = bench_rng_value(&c);
    same &= u == v;
    differ |= u != w;
    neg += u < 0;
    CHECK(fabs(u) >= 1.0 / 64 && fabs(u) <= 1.0);
  }
  CHECK(same);
  CHECK(differ);
  CHECK(neg > 4500 && neg < 5500);
}

int main(void) {
  RUN(test_summarise);
  RUN(test_bytes_model);
  RUN(test_derive_and_speedups);
  RUN(test_distinct_and_find);
  RUN(test_csv_round_trip);
  RUN(test_json);
  RUN(test_expect_and_check);
  RUN(test_judge);
  RUN(test_bound_tells_precisions_apart);
  RUN(test_rng);
  return TEST_END();
}
