/*
 * cmd_dist.c — `mpirun -np N smv spmv|bench ...`: the distributed path of
 * the two commands (include/smv_dist.h). Rank 0 reads or generates the
 * matrix, the library scatters it, every rank computes its rows; rank 0
 * prints. Entered through cli_dist_hook from cmd_spmv.c and cmd_bench.c.
 */
#include "cli.h"
#include "cli_dist.h"
#include "lab.h"
#include "smv_dist.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  cli_dist_cmd cmd;
  const char *matrices[64];
  int nmat;
  const char *x, *y, *out, *alg_name;
  double alpha, beta;
  int beta_given, verbose, runs, warmup, force_aware, dist_flag;
  int backend; /* -1 auto, else smv_dist_backend */
  smv_dist_partition part;
  smv_dist_exchange exch;
  int scaling; /* 0 none, 1 strong, 2 weak */
  smv_alg alg;
} dargs;

static int rank0;  /* this process is rank 0 of MPI_COMM_WORLD */
static int nranks; /* size of MPI_COMM_WORLD */

static const char help_text[] =
    "usage: mpirun -np N smv spmv MATRIX [--x F] [--y F] [--alpha A] "
    "[--beta B] [-o F]\n"
    "                [DIST OPTIONS] [-v]\n"
    "       mpirun -np N smv bench MATRIX... [--runs N] [--warmup N]\n"
    "                [--scaling strong|weak] [DIST OPTIONS]\n"
    "\n"
    "Distributed SpMV over MPI ranks (docs/dist.md). Rank 0 reads or "
    "generates\nMATRIX and scatters contiguous row blocks; each rank "
    "multiplies its local\nblock while the halo of x travels, then its "
    "remote block. spmv writes y\n(gathered on rank 0) like the "
    "single-process command; bench verifies against\nthe serial reference, "
    "then prints per-rank nnz, halo volume, exchange, compute\nand "
    "overlapped times, and with --scaling a strong or weak scaling table "
    "over\n1, 2, 4, ... ranks (weak: lap2d/lap3d grow by p^(1/2)/p^(1/3) "
    "per side, other\ngenerators' first size by p).\n"
    "\n"
    "DIST OPTIONS:\n"
    "  --backend auto|cpu|cuda   per rank (auto: CUDA when every rank has "
    "a GPU)\n"
    "  --alg NAME                CUDA kernel for both blocks (default auto)\n"
    "  --partition nnz|rows      row blocks balanced by entries (default) "
    "or rows\n"
    "  --exchange auto|host|cuda-aware|nccl   halo path (CUDA backend; "
    "default auto:\n"
    "                            NCCL when built with it and no two ranks "
    "share a GPU,\n"
    "                            else CUDA-aware MPI when MPI says so, else "
    "host-staged)\n"
    "  --force-cuda-aware        hand device buffers to MPI even when it "
    "does not say\n"
    "                            it is CUDA-aware\n"
    "  --dist                    the distributed path even with one rank\n"
    "\n"
    "Exit status: 0 ok, 1 error or failed verification, 2 usage.\n";

static int dusage(const dargs *o, const char *fmt, const char *a) {
  if (rank0) {
    char msg[256];
    snprintf(msg, sizeof msg, fmt, a);
    cli_usage(o->cmd == CLI_DIST_SPMV ? "spmv" : "bench", "%s", msg);
  }
  return CLI_USAGE;
}

/* MATRIX arguments: one for spmv, a few for bench. */
static int dist_positional(void *user, const char *a) {
  dargs *o = user;
  if (o->nmat == (int)(sizeof o->matrices / sizeof o->matrices[0]) ||
      (o->cmd == CLI_DIST_SPMV && o->nmat == 1))
    return dusage(o, "too many matrices ('%s')", a);
  o->matrices[o->nmat++] = a;
  return CLI_OK;
}

static int parse(int argc, char **argv, dargs *o) {
  o->alpha = 1.0;
  o->runs = 50;
  o->warmup = 5;
  o->backend = -1;
  o->part = SMV_DIST_PART_NNZ;
  o->exch = SMV_DIST_EXCHANGE_AUTO;
  o->alg = SMV_ALG_AUTO;
  const char *bk = NULL, *part = NULL, *ex = NULL, *sc = NULL, *al = NULL,
             *be = NULL, *runs = NULL, *warm = NULL;
  static const struct {
    const char *name, *alias;
    int spmv_only, bench_only;
  } valued[] = {{"--x", NULL, 1, 0},        {"--y", NULL, 1, 0},
                {"--alpha", NULL, 0, 0},    {"--beta", NULL, 0, 0},
                {"--output", "-o", 1, 0},   {"--backend", NULL, 0, 0},
                {"--alg", NULL, 0, 0},      {"--partition", NULL, 0, 0},
                {"--exchange", NULL, 0, 0}, {"--scaling", NULL, 0, 1},
                {"--runs", NULL, 0, 1},     {"--warmup", NULL, 0, 1}};
  const char **slot[] = {&o->x,        &o->y, &al, &be, &o->out, &bk,
                         &o->alg_name, &part, &ex, &sc, &runs,   &warm};
  enum { NV = sizeof valued / sizeof valued[0] };
  cli_opt table[NV + 4];
  int n_opt = 0;
  for (int k = 0; k < NV; k++)
    if (!(valued[k].spmv_only && o->cmd != CLI_DIST_SPMV) &&
        !(valued[k].bench_only && o->cmd != CLI_DIST_BENCH))
      table[n_opt++] = (cli_opt){.name = valued[k].name,
                                 .alias = valued[k].alias,
                                 .need = "a value",
                                 .str = slot[k]};
  table[n_opt++] =
      (cli_opt){.name = "--verbose", .alias = "-v", .flag = &o->verbose};
  table[n_opt++] =
      (cli_opt){.name = "--force-cuda-aware", .flag = &o->force_aware};
  table[n_opt++] = (cli_opt){.name = "--dist", .flag = &o->dist_flag};
  table[n_opt] = (cli_opt){0};
  int prc = cli_parse(o->cmd == CLI_DIST_SPMV ? "spmv" : "bench", argc, argv,
                      table, dist_positional, o);
  if (prc != CLI_OK)
    return prc;
  if (o->nmat == 0)
    return dusage(o, "missing MATRIX%s", "");
  if (al && cli_parse_double(al, &o->alpha) != 0)
    return dusage(o, "--alpha: '%s' is not a number", al);
  if (be && cli_parse_double(be, &o->beta) != 0)
    return dusage(o, "--beta: '%s' is not a number", be);
  o->beta_given = be != NULL;
  if (o->cmd == CLI_DIST_SPMV && o->beta != 0 && !o->y)
    return dusage(o, "--beta %s needs --y FILE", be);
  if (o->y && !o->beta_given)
    return dusage(o, "--y is only read with an explicit --beta%s", "");
  long n;
  if (runs && (cli_parse_long(runs, 1, 1000000, &n) != 0 || !(o->runs = n)))
    return dusage(o, "--runs: want 1..1000000, got '%s'", runs);
  if (warm && cli_parse_long(warm, 0, 1000000, &n) != 0)
    return dusage(o, "--warmup: want 0..1000000, got '%s'", warm);
  if (warm)
    o->warmup = (int)n;
  /* The word options: their words in the order the errors list them. */
  static const char *const backends[] = {"auto", "cpu", "cuda", NULL};
  static const char *const parts[] = {"nnz", "rows", NULL};
  static const char *const scalings[] = {"strong", "weak", NULL};
  const char *exchanges[SMV_DIST_EXCHANGE_NCCL + 2] = {NULL};
  for (int k = 0; k <= SMV_DIST_EXCHANGE_NCCL; k++)
    exchanges[k] = smv_dist_exchange_name((smv_dist_exchange)k);
  char why[128];
  int kb = -1, kp = -1, ke = -1, ks = -1;
  if (cli_pick_word("--backend", bk, backends, &kb, why, sizeof why) != 0 ||
      cli_pick_word("--partition", part, parts, &kp, why, sizeof why) != 0 ||
      cli_pick_word("--exchange", ex, exchanges, &ke, why, sizeof why) != 0 ||
      cli_pick_word("--scaling", sc, scalings, &ks, why, sizeof why) != 0)
    return dusage(o, "%s", why);
  if (kb >= 0)
    o->backend = kb == 0 ? -1 : kb == 1 ? SMV_DIST_CPU : SMV_DIST_CUDA;
  if (kp >= 0)
    o->part = kp ? SMV_DIST_PART_ROWS : SMV_DIST_PART_NNZ;
  if (ke >= 0)
    o->exch = (smv_dist_exchange)ke;
  if (ks >= 0)
    o->scaling = ks + 1; /* 1 strong, 2 weak */
  if (o->alg_name && smv_alg_parse(o->alg_name, &o->alg) != SMV_OK)
    return dusage(o, "unknown --alg '%s' (a CUDA rung name or number)",
                  o->alg_name);
  if (o->alg_name && o->backend == SMV_DIST_CPU)
    return dusage(o, "--alg %s is a CUDA kernel; not with --backend cpu",
                  o->alg_name);
  return CLI_OK;
}

/* Every rank learns whether all ranks succeeded (rc: CLI_OK or not). */
static int agree_rc(int rc, MPI_Comm comm) {
  int worst = rc;
  if (MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
    return CLI_ERR;
  return worst;
}

/* Print a library error: from rank 0, and from any rank whose reason is
 * its own (not "another rank failed"). */
static void report(int rank, smv_status st, const char *msg) {
  if (!msg || !*msg)
    msg = smv_status_string(st);
  if (rank == 0)
    cli_error("%s", msg);
  else if (!strstr(msg, "another rank failed"))
    cli_error("rank %d: %s", rank, msg);
}

/* One product across the ranks: x (and y, where scatter_y says so)
 * scattered from rank 0 into xl and yl, yl = alpha*A*xl + beta*yl, and yl
 * gathered into y on rank 0. Every rank learns whether all succeeded. */
static int dist_product(smv_dist *D, MPI_Comm comm, double alpha,
                        const double *x, double beta, double *y, int scatter_y,
                        double *xl, double *yl) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  smv_status st = smv_dist_scatter_vector(D, 0, 0, x, xl);
  if (st == SMV_OK && scatter_y)
    st = smv_dist_scatter_vector(D, 0, 1, y, yl);
  if (st == SMV_OK)
    st = smv_dist_spmv_host(D, alpha, xl, beta, yl);
  if (st == SMV_OK)
    st = smv_dist_gather_vector(D, 0, 1, yl, y);
  if (st != SMV_OK)
    report(rank, st, smv_dist_error(D));
  return agree_rc(st == SMV_OK ? CLI_OK : CLI_ERR, comm);
}

/* Backend: CUDA only when every rank can open a device. */
static smv_dist_backend pick_backend(const dargs *o, MPI_Comm comm) {
  if (o->backend >= 0)
    return (smv_dist_backend)o->backend;
  smv_context *ctx = NULL;
  int have = smv_context_create(0, &ctx) == SMV_OK, all = 0;
  smv_context_free(ctx);
  if (MPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    all = 0;
  return all ? SMV_DIST_CUDA : SMV_DIST_CPU;
}

/* --backend cuda: every rank opens its device before rank 0 reads or
 * generates the matrix; a rank without one says so, and all stop. */
static int need_devices(int rank) {
  smv_context *ctx = NULL;
  smv_status st = smv_context_create(0, &ctx);
  smv_context_free(ctx);
  if (st != SMV_OK)
    cli_error("rank %d: --backend cuda: %s", rank,
              st == SMV_ERR_NO_DEVICE ? "no CUDA device"
                                      : smv_status_string(st));
  return agree_rc(st == SMV_OK ? CLI_OK : CLI_ERR, MPI_COMM_WORLD);
}

static void fill_opts(const dargs *o, smv_dist_backend bk,
                      smv_dist_options *opt) {
  smv_dist_options_init(opt);
  opt->backend = bk;
  opt->alg = o->alg;
  opt->partition = o->part;
  opt->exchange = o->exch;
  opt->force_cuda_aware = o->force_aware;
}

/* Rank 0 loads MATRIX; everyone learns whether that worked. */
static int load_root(const char *m, smv_csr **A, MPI_Comm comm, int rank) {
  int rc = CLI_OK;
  *A = NULL;
  if (rank == 0 && (rc = cli_load(m, A)) == CLI_OK)
    rc = cli_vectors_fit(m, *A, 16, 8, "x and y"); /* and rank 0's y */
  return agree_rc(rc, comm);
}

/* ---- spmv --------------------------------------------------------------- */

static int dist_spmv(const dargs *o) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = rank0 ? 0 : 1;
  MPI_Comm_rank(comm, &rank);
  smv_csr *A = NULL;
  double *x = NULL, *y = NULL, *xl = NULL, *yl = NULL;
  smv_dist *D = NULL;
  int rc = load_root(o->matrices[0], &A, comm, rank);
  if (rc != CLI_OK)
    goto done;
  if (rank == 0) {
    char what[96];
    snprintf(what, sizeof what, "the matrix has %lld columns",
             (long long)A->cols);
    if (o->x)
      rc = cli_read_vector(o->x, A->cols, what, &x);
    else if ((x = malloc(((size_t)A->cols + 1) * sizeof *x)) != NULL)
      for (int64_t j = 0; j < A->cols; j++)
        x[j] = 1.0;
    snprintf(what, sizeof what, "the matrix has %lld rows", (long long)A->rows);
    if (rc == CLI_OK && o->y)
      rc = cli_read_vector(o->y, A->rows, what, &y);
    else if (rc == CLI_OK)
      y = calloc((size_t)A->rows + 1, sizeof *y);
    if (rc == CLI_OK && (!x || !y)) {
      cli_error("out of memory for the vectors");
      rc = CLI_ERR;
    }
  }
  if ((rc = agree_rc(rc, comm)) != CLI_OK)
    goto done;
  smv_dist_options opt;
  fill_opts(o, pick_backend(o, comm), &opt);
  smv_error err;
  double t0 = MPI_Wtime();
  smv_status st = smv_dist_create_from_root(comm, 0, A, &opt, &D, &err);
  if (st != SMV_OK) {
    report(rank, st, err.message);
    rc = CLI_ERR;
    goto done;
  }
  smv_dist_info in;
  smv_dist_get_info(D, &in);
  xl = malloc(((size_t)in.local_cols + 1) * sizeof *xl);
  yl = malloc(((size_t)in.local_rows + 1) * sizeof *yl);
  rc = xl && yl ? CLI_OK : CLI_ERR;
  if (rc != CLI_OK)
    cli_error("rank %d: out of memory for the vectors", rank);
  if ((rc = agree_rc(rc, comm)) != CLI_OK)
    goto done;
  if ((rc = dist_product(D, comm, o->alpha, x, o->beta, y, 1, xl, yl)) !=
      CLI_OK)
    goto done;
  double t1 = MPI_Wtime();
  if (rank == 0) {
    if (o->verbose) {
      fprintf(stderr,
              "smv spmv: %d ranks, %s backend, %s exchange, partition %s: "
              "%lld x %lld, %lld entries, %.3f ms (including scatter, set-up "
              "and gather)\n",
              nranks, in.backend == SMV_DIST_CUDA ? "cuda" : "cpu",
              smv_dist_exchange_name(in.exchange),
              o->part == SMV_DIST_PART_NNZ ? "nnz" : "rows",
              (long long)in.global_rows, (long long)in.global_cols,
              (long long)in.global_nnz, (t1 - t0) * 1e3);
      if (*smv_dist_note(D))
        fprintf(stderr, "smv spmv: %s\n", smv_dist_note(D));
    }
    st = o->out && strcmp(o->out, "-") != 0
             ? smv_mm_write_vector(o->out, y, A->rows, &err)
             : smv_mm_write_vector_file(stdout, y, A->rows, &err);
    if (st != SMV_OK)
      rc = cli_fail(st, &err);
    else if (fflush(stdout) != 0) {
      cli_error("writing y to standard output failed");
      rc = CLI_ERR;
    }
  }
  rc = agree_rc(rc, comm);
done:
  smv_dist_free(D);
  smv_csr_free(A);
  smv_free(x);
  smv_free(y);
  free(xl);
  free(yl);
  return rc;
}

/* ---- bench -------------------------------------------------------------- */

/* A share as "42%", or "-" when there is none (NaN: nothing exchanged). */
static const char *pct(double v, char *buf, size_t n) {
  if (isnan(v))
    snprintf(buf, n, "-");
  else
    snprintf(buf, n, "%.0f%%", 100 * v);
  return buf;
}

/* One measured configuration, as rank 0 prints it. */
typedef struct {
  int ranks;
  int64_t rows, nnz;
  int64_t halo_total, halo_max; /* ghost entries received: sum, max rank */
  double nnz_imbalance;         /* max nnz per rank / mean              */
  smv_dist_timing t;
  int verified;
  double worst;
} measure;

/* Verify against the serial reference on rank 0, then time the phases.
 * Prints the per-rank table when `per_rank`. Collective over comm. */
static int bench_one(const dargs *o, const char *name, const smv_csr *A,
                     MPI_Comm comm, int per_rank, measure *m) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  memset(m, 0, sizeof *m);
  m->ranks = size;
  smv_dist_options opt;
  fill_opts(o, pick_backend(o, comm), &opt);
  smv_dist *D = NULL;
  smv_error err;
  smv_status st = smv_dist_create_from_root(comm, 0, A, &opt, &D, &err);
  if (st != SMV_OK) {
    report(rank, st, err.message);
    return CLI_ERR;
  }
  smv_dist_info in;
  smv_dist_get_info(D, &in);
  m->rows = in.global_rows;
  m->nnz = in.global_nnz;
  double *x = NULL, *yg = NULL;
  double *xl = malloc(((size_t)in.local_cols + 1) * sizeof *xl);
  double *yl = malloc(((size_t)in.local_rows + 1) * sizeof *yl);
  int rc = xl && yl ? CLI_OK : CLI_ERR;
  bench_expect e = {0, NULL, NULL};
  if (rank == 0 && rc == CLI_OK) {
    x = malloc(((size_t)A->cols + 1) * sizeof *x);
    yg = malloc(((size_t)A->rows + 1) * sizeof *yg);
    rc = x && yg ? CLI_OK : CLI_ERR;
    smv_rng g = {1};
    for (int64_t j = 0; rc == CLI_OK && j < A->cols; j++)
      x[j] = bench_rng_value(&g);
    if (rc == CLI_OK &&
        bench_expect_compute(A, 1.0, x, 0.0, NULL, DBL_EPSILON, &e) != SMV_OK)
      rc = CLI_ERR;
  }
  if (rc != CLI_OK)
    cli_error("rank %d: out of memory for the vectors", rank);
  if ((rc = agree_rc(rc, comm)) != CLI_OK)
    goto done;
  for (int32_t i = 0; i < in.local_rows; i++)
    yl[i] = NAN; /* poisoned: beta = 0 must overwrite every row */
  if ((rc = dist_product(D, comm, 1.0, x, 0.0, yg, 0, xl, yl)) != CLI_OK)
    goto done;
  if (rank == 0) {
    int64_t first = -1;
    int64_t bad = bench_check(&e, yg, &m->worst, &first);
    m->verified = bad == 0;
    if (bad) {
      cli_error("%s: %lld rows outside the error bound on %d ranks (first "
                "row %lld)",
                name, (long long)bad, size, (long long)first);
      rc = CLI_ERR;
    }
  }
  if ((rc = agree_rc(rc, comm)) != CLI_OK)
    goto done;
  st = smv_dist_time(D, xl, yl, o->warmup, o->runs, &m->t);
  if (st != SMV_OK) {
    report(rank, st, smv_dist_error(D));
    rc = CLI_ERR;
    goto done;
  }
  /* Per-rank rows for rank 0: rows, nnz local/remote, ghosts, sends,
   * neighbours, then exchange, local, remote, compute, total (ms). */
  double mine[11] = {(double)in.local_rows,
                     (double)in.nnz_local,
                     (double)in.nnz_remote,
                     (double)in.ghosts,
                     (double)in.send_entries,
                     (double)in.recv_neighbors,
                     m->t.exchange_ms,
                     m->t.local_ms,
                     m->t.remote_ms,
                     m->t.compute_ms,
                     m->t.total_ms};
  double *all = rank == 0 ? malloc((size_t)size * sizeof mine) : NULL;
  rc = rank != 0 || all ? CLI_OK : CLI_ERR;
  if ((rc = agree_rc(rc, comm)) != CLI_OK) {
    free(all);
    goto done;
  }
  if (MPI_Gather(mine, 11, MPI_DOUBLE, all, 11, MPI_DOUBLE, 0, comm) !=
      MPI_SUCCESS)
    rc = CLI_ERR;
  if (rank == 0 && rc == CLI_OK) {
    double maxnnz = 0;
    for (int r = 0; r < size; r++) {
      double *v = all + 11 * r;
      m->halo_total += (int64_t)v[3];
      if ((int64_t)v[3] > m->halo_max)
        m->halo_max = (int64_t)v[3];
      if (v[1] + v[2] > maxnnz)
        maxnnz = v[1] + v[2];
    }
    m->nnz_imbalance = m->nnz > 0 ? maxnnz * size / (double)m->nnz : 1.0;
    if (per_rank) {
      printf("\n### %s: %d ranks, %s backend, %s exchange, partition %s\n\n",
             name, size, in.backend == SMV_DIST_CUDA ? "cuda" : "cpu",
             smv_dist_exchange_name(in.exchange),
             o->part == SMV_DIST_PART_NNZ ? "nnz" : "rows");
      if (*smv_dist_note(D))
        printf("note: %s\n\n", smv_dist_note(D));
      printf("verified: %lld x %lld, %lld entries, worst error %.2f of the "
             "bound\n\n",
             (long long)m->rows, (long long)A->cols, (long long)m->nnz,
             m->worst);
      printf("| rank | rows | nnz local | nnz remote | halo in (entries) | "
             "halo in KB | halo out | neighbours | exchange ms | local ms | "
             "remote ms | compute ms | overlapped ms |\n");
      printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
             "---:|\n");
      for (int r = 0; r < size; r++) {
        double *v = all + 11 * r;
        printf("| %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %.4f "
               "| %.4f | %.4f | %.4f | %.4f |\n",
               r, v[0], v[1], v[2], v[3], v[3] * 8 / 1e3, v[4], v[5], v[6],
               v[7], v[8], v[9], v[10]);
      }
      char hid[16];
      printf("\nslowest rank per run (median of %d): exchange %.4f ms, "
             "compute %.4f ms, overlapped %.4f ms; hidden %s of the "
             "exchange; %.2f GFLOP/s; nnz imbalance %.2f\n",
             m->t.runs, m->t.max_exchange_ms, m->t.max_compute_ms,
             m->t.max_total_ms, pct(m->t.hidden, hid, sizeof hid),
             2e-6 * (double)m->nnz / m->t.max_total_ms, m->nnz_imbalance);
    }
  }
  free(all);
  rc = agree_rc(rc, comm);
done:
  bench_expect_free(&e);
  smv_dist_free(D);
  free(x);
  free(yg);
  free(xl);
  free(yl);
  return rc;
}

/* The spec of a weak-scaling step: the problem per rank stays the same.
 * lap2d:N grows by sqrt(p) per side, lap3d:N by cbrt(p), any other
 * generator's first size by p. Returns 0, or -1 if `spec` is no spec. */
static int weak_spec(const char *spec, int p, char *out, size_t n) {
  const char *colon = strchr(spec, ':');
  if (!colon || !smv_is_spec(spec))
    return -1;
  char *end;
  long v = strtol(colon + 1, &end, 10);
  if (end == colon + 1 || v <= 0)
    return -1;
  double f = (double)p;
  if (strncmp(spec, "lap2d:", 6) == 0)
    f = sqrt(f);
  else if (strncmp(spec, "lap3d:", 6) == 0 ||
           strncmp(spec, "stencil27:", 10) == 0)
    f = cbrt(f);
  long w = (long)llround((double)v * f);
  snprintf(out, n, "%.*s%ld%s", (int)(colon + 1 - spec), spec, w, end);
  return 0;
}

static void scaling_header(int weak) {
  printf("\n| ranks | rows | nnz | halo entries (all) | halo max/rank | nnz "
         "imbalance | exchange ms | compute ms | overlapped ms | hidden | "
         "GFLOP/s | %s |\n",
         weak ? "weak efficiency" : "speedup (efficiency)");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static void scaling_row(const measure *m, const measure *m1, int weak) {
  char hid[16];
  double gf = 2e-6 * (double)m->nnz / m->t.max_total_ms;
  printf("| %d | %lld | %lld | %lld | %lld | %.2f | %.4f | %.4f | %.4f | "
         "%s | %.2f | ",
         m->ranks, (long long)m->rows, (long long)m->nnz,
         (long long)m->halo_total, (long long)m->halo_max, m->nnz_imbalance,
         m->t.max_exchange_ms, m->t.max_compute_ms, m->t.max_total_ms,
         pct(m->t.hidden, hid, sizeof hid), gf);
  if (weak)
    printf("%.2f |\n", m1->t.max_total_ms / m->t.max_total_ms);
  else {
    double s = m1->t.max_total_ms / m->t.max_total_ms;
    printf("%.2fx (%.0f%%) |\n", s, 100 * s / m->ranks);
  }
}

static int dist_bench(const dargs *o) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int rc = CLI_OK;
  if (rank == 0)
    printf("# smv distributed bench: %d ranks, smv %s (commit %s)\n", nranks,
           smv_version(), smv_git_commit());
  for (int k = 0; rc == CLI_OK && k < o->nmat; k++) {
    const char *name = o->matrices[k];
    if (!o->scaling) {
      smv_csr *A = NULL;
      measure m;
      rc = load_root(name, &A, MPI_COMM_WORLD, rank);
      if (rc == CLI_OK)
        rc = bench_one(o, name, A, MPI_COMM_WORLD, 1, &m);
      smv_csr_free(A);
      continue;
    }
    int weak = o->scaling == 2;
    if (weak && rank == 0 && !smv_is_spec(name)) {
      cli_error("--scaling weak needs a generator spec, not '%s'", name);
      rc = CLI_ERR;
    }
    if ((rc = agree_rc(rc, MPI_COMM_WORLD)) != CLI_OK)
      break;
    if (rank == 0)
      printf("\n## %s scaling: %s\n", weak ? "weak" : "strong", name);
    measure m1;
    memset(&m1, 0, sizeof m1);
    smv_csr *A = NULL;
    if (!weak)
      rc = load_root(name, &A, MPI_COMM_WORLD, rank);
    int header = 0;
    /* 1, 2, 4, ... and the full count. */
    for (int p = 1; rc == CLI_OK && p <= nranks;
         p = p * 2 > nranks && p < nranks ? nranks : p * 2) {
      MPI_Comm sub;
      if (MPI_Comm_split(MPI_COMM_WORLD, rank < p ? 0 : MPI_UNDEFINED, rank,
                         &sub) != MPI_SUCCESS) {
        rc = CLI_ERR;
        break;
      }
      measure m;
      int sub_rc = CLI_OK;
      if (rank < p) {
        smv_csr *B = A;
        char spec[512];
        if (weak) {
          B = NULL;
          if (weak_spec(name, p, spec, sizeof spec) != 0) {
            if (rank == 0)
              cli_error("--scaling weak: cannot scale '%s'", name);
            sub_rc = CLI_ERR;
          } else
            sub_rc = load_root(spec, &B, sub, rank);
        }
        if (sub_rc == CLI_OK)
          sub_rc = bench_one(o, weak ? spec : name, B, sub, o->verbose, &m);
        if (weak)
          smv_csr_free(B);
        MPI_Comm_free(&sub);
        if (rank == 0 && sub_rc == CLI_OK) {
          if (p == 1)
            m1 = m;
          if (!header++)
            scaling_header(weak);
          scaling_row(&m, &m1, weak);
          fflush(stdout);
        }
      }
      rc = agree_rc(sub_rc, MPI_COMM_WORLD);
      if (p == nranks)
        break;
    }
    smv_csr_free(A);
  }
  if (rank == 0)
    fflush(stdout);
  return rc;
}

/* ---- the hook --------------------------------------------------------- */

static int under_mpirun(void) {
  static const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                               "PMI_RANK", "MPI_LOCALNRANKS"};
  for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++)
    if (getenv(vars[k]))
      return 1;
  return 0;
}

static int wants_dist(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--dist") == 0 || strncmp(a, "--partition", 11) == 0 ||
        strncmp(a, "--exchange", 10) == 0 || strncmp(a, "--scaling", 9) == 0 ||
        strcmp(a, "--force-cuda-aware") == 0)
      return 1;
  }
  return 0;
}

static int start_mpi(int argc, char **argv) {
  int started = 0, provided;
  MPI_Initialized(&started);
  if (!started && MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED,
                                  &provided) != MPI_SUCCESS) {
    cli_error("MPI_Init failed");
    return CLI_ERR;
  }
  return CLI_OK;
}

/* The exit status of a refusal that rank 0 words: rank 0 the usage error,
 * the others 0. mpirun aborts the job when the first rank exits non-zero,
 * so a silent rank that exited with the error first could kill rank 0
 * before its message left (seen under load: no message at all); mpirun
 * still exits with rank 0's status. */
static int refusal_rc(int rank) { return rank == 0 ? CLI_USAGE : CLI_OK; }

/* FNV-1a over every argument and its terminating NUL. */
static uint64_t argv_hash(int argc, char **argv) {
  uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < argc; i++) {
    const unsigned char *p = (const unsigned char *)argv[i];
    do
      h = (h ^ *p) * 1099511628211ull;
    while (*p++);
  }
  return h;
}

int cli_mpi_gate(int argc, char **argv, int *rc) {
  if (!under_mpirun())
    return 0;
  if ((*rc = start_mpi(argc, argv)) != CLI_OK)
    return 1;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* The same command line everywhere, or every rank stops: a rank that
   * parsed other options (or --help, or another command) would leave while
   * the others wait in a collective. */
  uint64_t h = argv_hash(argc, argv), lo = h, hi = h;
  if (MPI_Allreduce(&h, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD) !=
          MPI_SUCCESS ||
      MPI_Allreduce(&h, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD) !=
          MPI_SUCCESS) {
    cli_error("rank %d: MPI_Allreduce failed", rank);
    *rc = CLI_ERR;
    MPI_Finalize();
    return 1;
  }
  if (lo != hi) {
    if (rank == 0)
      cli_error("the %d ranks were not given the same command line; every "
                "rank of 'mpirun smv' must run the same command with the "
                "same options",
                size);
    *rc = refusal_rc(rank);
    MPI_Finalize();
    return 1;
  }
  const char *cmd = argc > 1 ? argv[1] : "";
  if (strcmp(cmd, "spmv") == 0 || strcmp(cmd, "bench") == 0)
    return 0; /* cli_dist_hook goes on, MPI started */
  MPI_Finalize();
  if (size == 1)
    return 0;
  /* Help and the version: rank 0 answers, the others say nothing. */
  if (argc < 2 || cli_is_help(cmd) || strcmp(cmd, "help") == 0 ||
      strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0 ||
      cli_wants_help(argc - 1, argv + 1)) {
    *rc = CLI_OK;
    return rank != 0;
  }
  if (rank == 0)
    cli_error("'smv %s' is not distributed: under mpirun with %d ranks each "
              "would run it alone. The distributed commands are 'mpirun -np "
              "N smv spmv' and 'mpirun -np N smv bench' (docs/dist.md); run "
              "'smv %s' as one process",
              cmd, size, cmd);
  *rc = refusal_rc(rank);
  return 1;
}

int cli_dist_hook(cli_dist_cmd cmd, int argc, char **argv, int *rc) {
  int dist_opt = wants_dist(argc, argv);
  if (!under_mpirun() && !dist_opt)
    return 0; /* a plain run: MPI is not started at all */
  if ((*rc = start_mpi(argc, argv)) != CLI_OK)
    return 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  rank0 = rank == 0;
  if (nranks == 1 && !dist_opt) {
    MPI_Finalize();
    return 0;
  }
  dargs o;
  memset(&o, 0, sizeof o);
  o.cmd = cmd;
  if (cli_wants_help(argc, argv)) {
    if (rank0)
      fputs(help_text, stdout);
    *rc = CLI_OK;
  } else {
    *rc = parse(argc, argv, &o);
    if (*rc == CLI_OK && o.backend == SMV_DIST_CUDA)
      *rc = need_devices(rank);
    if (*rc == CLI_OK)
      *rc = cmd == CLI_DIST_SPMV ? dist_spmv(&o) : dist_bench(&o);
  }
  MPI_Finalize();
  return 1;
}
