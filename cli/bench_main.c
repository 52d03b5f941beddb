/*
 * main.c — bench_main: choose the backend, print the banner, run every
 * matrix and precision, print tables, write CSV / JSON / plots.
 *
 * CSV and JSON are written matrix by matrix and flushed, so a run cut short
 * (a time limit on a shared GPU machine) still leaves every finished
 * matrix on disk (the JSON then lacks its closing brackets).
 */
#include "bench.h"
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static void iso_date(char *buf, size_t n) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void cpu_name(char *buf, size_t n) {
  char model[128] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      if (strncmp(line, "model name", 10) == 0) {
        char *c = strchr(line, ':');
        if (c) {
          c++;
          while (*c == ' ' || *c == '\t')
            c++;
          c[strcspn(c, "\n")] = '\0';
          snprintf(model, sizeof model, "%s", c);
        }
        break;
      }
    }
    fclose(f);
  }
  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  snprintf(buf, n, "cpu: %s, %d OpenMP threads", model, threads);
}

/* ------------------------------------------------------------------------ */
/* Outputs                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct {
  FILE *csv, *json;
  size_t json_count;
  int failed; /* a write error happened */
} outputs;

static void json_head(FILE *f, const bench_run *run) {
  const bench_config *cfg = run->cfg;
  fprintf(f, "{\n  \"tool\": \"smv bench\",\n  \"version\": ");
  bench_json_string(f, smv_version());
  fprintf(f, ",\n  \"commit\": ");
  bench_json_string(f, run->commit);
  fprintf(f, ",\n  \"date\": ");
  bench_json_string(f, run->date);
  fprintf(f, ",\n  \"command\": [");
  for (int i = 0; i < cfg->argc; i++) {
    fputs(i ? ", " : "", f);
    bench_json_string(f, cfg->argv[i]);
  }
  fprintf(f, "],\n  \"backend\": \"%s\",\n  \"device\": ",
          run->ctx ? "cuda" : "cpu");
  if (run->ctx) {
    const smv_device_props *p = &run->props;
    fprintf(f, "{\"name\": ");
    bench_json_string(f, p->name);
    fprintf(f,
            ", \"cc\": \"%d.%d\", \"sm_count\": %d, \"l2_bytes\": %d, "
            "\"global_mem_bytes\": %lld, \"clock_khz\": %d, "
            "\"mem_clock_khz\": %d, \"mem_bus_bits\": %d, "
            "\"runtime_version\": %d, \"driver_version\": %d, \"ecc\": %d}",
            p->cc_major, p->cc_minor, p->sm_count, p->l2_bytes,
            (long long)p->global_mem_bytes, p->clock_khz, p->mem_clock_khz,
            p->mem_bus_bits, p->runtime_version, p->driver_version, p->ecc);
  } else {
    bench_json_string(f, run->device);
  }
  fprintf(f, ",\n  \"copy_gbps\": ");
  if (isfinite(run->copy_gbps))
    fprintf(f, "%.6g", run->copy_gbps);
  else
    fputs("null", f);
  const smv_bench_options *o = &cfg->opt;
  fprintf(f,
          ",\n  \"options\": {\"warmup\": %d, \"runs\": %d, \"max_seconds\": "
          "%g, \"flush_l2\": %d, \"graph_batch\": %d, \"graph_replays\": %d, "
          "\"alpha\": %.17g, \"beta\": %.17g, \"seed\": %llu},\n",
          o->warmup, o->runs, o->max_seconds, o->flush_l2, o->graph_batch,
          o->graph_replays, o->alpha, o->beta, (unsigned long long)cfg->seed);
  fprintf(f, "  \"model\": ");
  bench_json_string(f, bench_model_text);
  fprintf(f, ",\n  \"results\": [");
}

static void emit(outputs *o, const bench_records *rs, size_t from) {
  for (size_t i = from; i < rs->n; i++) {
    if (o->csv)
      bench_csv_row(o->csv, &rs->v[i]);
    if (o->json) {
      fputs(o->json_count++ ? ",\n    " : "\n    ", o->json);
      bench_json_record(o->json, &rs->v[i], "    ");
    }
  }
  if (o->csv && fflush(o->csv) != 0)
    o->failed = 1;
  if (o->json && fflush(o->json) != 0)
    o->failed = 1;
}

/* Open --csv and --json (errors printed) and write the CSV header; the
 * caller writes the JSON head. -1 when one could not be opened. */
static int open_outputs(const bench_config *cfg, outputs *o) {
  memset(o, 0, sizeof *o);
  int rc = 0;
  if (cfg->csv && !(o->csv = bench_open_out(cfg->csv)))
    rc = -1;
  if (cfg->json && !(o->json = bench_open_out(cfg->json)))
    rc = -1;
  if (o->csv)
    bench_csv_header(o->csv);
  return rc;
}

/* End the JSON's results array and close both files, each checked on its
 * own; -1 when any write failed (printed). */
static int close_outputs(outputs *o, const bench_config *cfg) {
  if (o->json)
    fputs("\n  ]\n}\n", o->json);
  int rc = o->failed ? -1 : 0;
  if (bench_close_out(o->csv, cfg->csv) != 0)
    rc = -1;
  if (bench_close_out(o->json, cfg->json) != 0)
    rc = -1;
  return rc;
}

/* Tables for records [from, to): the ladder of each matrix in one table,
 * the sweep per precision. */
static void print_tables(const bench_config *cfg, const bench_records *rs,
                         size_t from, size_t to) {
  if (cfg->quiet)
    return;
  size_t i = from;
  while (i < to) {
    size_t j = i + 1;
    const bench_record *a = &rs->v[i];
    while (j < to && strcmp(rs->v[j].matrix, a->matrix) == 0 &&
           rs->v[j].sweep == a->sweep &&
           (!a->sweep || strcmp(rs->v[j].precision, a->precision) == 0))
      j++;
    if (a->sweep)
      bench_sweep_table(stdout, rs, i, j);
    else
      bench_table(stdout, rs, i, j);
    i = j;
  }
  fflush(stdout);
}

static int write_markdown(const bench_config *cfg, const bench_records *rs) {
  if (!cfg->markdown)
    return 0;
  FILE *f = bench_open_out(cfg->markdown);
  if (!f)
    return -1;
  bench_markdown(f, rs);
  return bench_close_out(f, cfg->markdown);
}

/* Re-report a saved CSV: tables, and CSV/JSON/plot if asked. */
static int from_csv(const bench_config *cfg) {
  bench_records rs = {0};
  char err[512];
  if (bench_csv_read(cfg->from_csv, &rs, err, sizeof err) != 0) {
    cli_error("%s", err);
    bench_records_free(&rs);
    return CLI_ERR;
  }
  if (rs.n)
    printf("smv bench: %zu results from %s (%s, %s, commit %s)\n", rs.n,
           cfg->from_csv, rs.v[0].device, rs.v[0].date, rs.v[0].commit);
  else
    printf("smv bench: no results in %s\n", cfg->from_csv);
  print_tables(cfg, &rs, 0, rs.n);
  int rc = CLI_OK;
  outputs out;
  if (open_outputs(cfg, &out) != 0)
    rc = CLI_ERR;
  if (out.json) {
    fprintf(out.json, "{\n  \"tool\": \"smv bench\",\n  \"source\": ");
    bench_json_string(out.json, cfg->from_csv);
    fprintf(out.json, ",\n  \"results\": [");
  }
  emit(&out, &rs, 0);
  if (close_outputs(&out, cfg) != 0)
    rc = CLI_ERR;
  if (cfg->plot && rs.n && bench_plot(&rs, cfg->plot) != 0)
    rc = CLI_ERR;
  if (write_markdown(cfg, &rs) != 0)
    rc = CLI_ERR;
  bench_records_free(&rs);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* The run                                                                   */
/* ------------------------------------------------------------------------ */

/* Largest copy we time: 1 GiB per buffer, or 1/8 of the device memory. */
static void measure_copy(bench_run *run) {
  size_t bytes = (size_t)1 << 30;
  if (run->props.global_mem_bytes > 0 &&
      (size_t)(run->props.global_mem_bytes / 8) < bytes)
    bytes = (size_t)(run->props.global_mem_bytes / 8);
  double g = NAN;
  smv_status st = smv_device_copy_bandwidth(run->ctx, bytes, &g);
  if (st != SMV_OK) {
    cli_error("measuring the device copy bandwidth (%zu MiB): %s; %%copy "
              "will be empty",
              bytes >> 20, smv_status_string(st));
    g = NAN;
  }
  run->copy_gbps = g;
}

/* On the CPU the bench times smv_spmv_cpu and its serial reference: the
 * CUDA rungs of --alg and AUTO's --tune have nothing to choose there. */
static void cpu_note(const bench_config *cfg) {
  if (cfg->alg_given || cfg->tune)
    cli_error("on the CPU the bench times 'cpu' (smv_spmv_cpu, OpenMP) and "
              "'cpu-serial'; %s%s%s choose%s CUDA rungs and %s ignored",
              cfg->alg_given ? "--alg" : "",
              cfg->alg_given && cfg->tune ? " and " : "",
              cfg->tune ? "--tune" : "", cfg->alg_given && cfg->tune ? "" : "s",
              cfg->alg_given && cfg->tune ? "are" : "is");
}

static int open_backend(const bench_config *cfg, bench_run *run) {
  run->ctx = NULL;
  if (cfg->backend == BENCH_BACKEND_CPU) {
    if (cfg->sweep) {
      cli_error("--block sweep needs the CUDA backend");
      return CLI_ERR;
    }
    cpu_note(cfg);
    return CLI_OK;
  }
  smv_context *ctx = NULL;
  smv_status st = smv_context_create(cfg->device, &ctx);
  if (st != SMV_OK) {
    const char *why = smv_status_string(st);
    if (cfg->backend == BENCH_BACKEND_CUDA || cfg->sweep) {
      cli_error("%s: no CUDA device %d (%s)",
                cfg->sweep ? "--block sweep" : "--backend cuda", cfg->device,
                why);
      return CLI_ERR;
    }
    cli_error("no CUDA device (%s); timing the CPU path (smv_spmv_cpu) "
              "instead",
              why);
    cpu_note(cfg);
    return CLI_OK;
  }
  run->ctx = ctx;
  if (cfg->block > 0 &&
      (st = smv_context_set_block_size(ctx, cfg->block)) != SMV_OK) {
    cli_error("--block %d: %s: %s", cfg->block, smv_status_string(st),
              smv_context_error(ctx));
    return CLI_ERR;
  }
  if ((st = smv_device_props_get(ctx, &run->props)) != SMV_OK) {
    cli_error("reading the device properties: %s: %s", smv_status_string(st),
              smv_context_error(ctx));
    return CLI_ERR;
  }
  snprintf(run->device, sizeof run->device, "%s", run->props.name);
  return CLI_OK;
}

int bench_main(const bench_config *cfg) {
  if (cfg->from_csv)
    return from_csv(cfg);
  bench_run run;
  memset(&run, 0, sizeof run);
  run.cfg = cfg;
  run.copy_gbps = NAN;
  run.rng.s = cfg->seed;
  iso_date(run.date, sizeof run.date);
  snprintf(run.commit, sizeof run.commit, "%s", smv_git_commit());
  int rc = open_backend(cfg, &run);
  if (rc != CLI_OK) {
    smv_context_free(run.ctx);
    return rc;
  }
  if (run.ctx)
    measure_copy(&run);
  else
    cpu_name(run.device, sizeof run.device);
  bench_banner(stdout, &run);
  fflush(stdout);

  outputs out;
  if (open_outputs(cfg, &out) != 0)
    rc = CLI_ERR;
  if (out.json)
    json_head(out.json, &run);

  bench_records rs = {0};
  int matrices_failed = 0;
  for (int m = 0; m < cfg->nmatrices && rc == CLI_OK; m++) {
    const char *name = cfg->matrices[m];
    smv_csr *A = NULL;
    if (cli_load(name, &A) != CLI_OK) {
      matrices_failed++;
      continue;
    }
    size_t from = rs.n;
    static const struct {
      int bit;
      smv_precision prec;
    } precs[] = {
        {BENCH_F64, SMV_F64}, {BENCH_F32, SMV_F32}, {BENCH_F32V, SMV_F64_F32V}};
    for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++) {
      if (!(cfg->precisions & precs[p].bit))
        continue;
      smv_precision prec = precs[p].prec;
      int r;
      if (!run.ctx && prec == SMV_F64_F32V) {
        cli_error("%s: precision f64-f32v is a device mode (no CUDA "
                  "device)",
                  name);
        matrices_failed++;
        break;
      }
      if (!run.ctx)
        r = bench_cpu_matrix(&run, name, A, prec, &rs);
      else
        r = bench_gpu_matrix(&run, name, A, prec, &rs);
      if (r != 0) {
        matrices_failed++;
        break;
      }
    }
    smv_csr_free(A);
    print_tables(cfg, &rs, from, rs.n);
    emit(&out, &rs, from);
  }
  if (close_outputs(&out, cfg) != 0)
    rc = CLI_ERR;

  size_t pass = 0, fail = 0, error = 0;
  for (size_t i = 0; i < rs.n; i++) {
    if (strcmp(rs.v[i].verify, "PASS") == 0)
      pass++;
    else if (strcmp(rs.v[i].verify, "FAIL") == 0)
      fail++;
    else
      error++;
  }
  printf("\nsummary: %zu verified and timed (PASS), %zu FAIL, %zu ERROR; "
         "%d matrix/precision run(s) stopped by errors\n",
         pass, fail, error, matrices_failed);
  if (cfg->csv && rc == CLI_OK)
    printf("csv: %s\n", cfg->csv);
  if (cfg->json && rc == CLI_OK)
    printf("json: %s\n", cfg->json);
  if (cfg->plot && rs.n && bench_plot(&rs, cfg->plot) != 0)
    rc = CLI_ERR;
  if (write_markdown(cfg, &rs) != 0)
    rc = CLI_ERR;
  if (fail || error || matrices_failed) {
    cli_error("%zu result(s) failed verification or could not run, %d "
              "matrix run(s) stopped (see the notes above)",
              fail + error, matrices_failed);
    if (rc == CLI_OK)
      rc = CLI_ERR;
  }
  bench_records_free(&rs);
  smv_context_free(run.ctx);
  return rc;
}
