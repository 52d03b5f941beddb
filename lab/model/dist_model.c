/*
 * dist_model.c — a model of distributed SpMV scaling (issue 11): exact
 * per-rank work and halo volumes of smv_dist's row partition for any rank
 * count (no MPI run needed), combined with a measured single-GPU SpMV time
 * and assumed link figures. Built by `make dist-model` into
 * BUILD/dist_model; used for bench/results/<device>/dist.md.
 *
 *   dist_model MATRIX T1_MS [P...]                     strong scaling
 *     MATRIX  file or generator spec (square)
 *     T1_MS   measured time of one SpMV of the whole matrix on one GPU
 *             (ms); the effective bandwidth is the byte model below / T1
 *     P...    rank counts (default 1 2 4 8 16 32 64 128 256 512)
 *   dist_model --weak T1_MS MATRIX P [MATRIX P ...]    weak scaling
 *     each MATRIX (scaled by the caller) on P ranks; T1_MS is the first
 *     one's single-GPU time; efficiency = T(first) / T(P)
 *   environment: GPUS_PER_NODE (8), NVLINK_GBS (450, per direction per
 *   GPU), IB_GBS (50, per node), LAT_NVLINK_US (10: one exchange round in
 *   a node), LAT_IB_US (5: added when a node talks to another), MSG_US (1:
 *   per neighbour), LAUNCH_US (5: one kernel launch), PART (nnz or rows).
 *
 * Byte model (DEVELOPERS.md's minimal bytes): 12 per entry (value +
 * column), 4 per row pointer, 8 per y entry written, 8 per x entry read
 * once (owned x for the local block, the ghosts for the remote one); the
 * remote block's compressed rows also read and write y (16) and a 12-byte
 * row map and partial sum.
 *
 * Per rank r: T_local = B_local/BW + launch; T_remote = B_remote/BW +
 * launch (0 without ghosts); T_exch = pack and unpack (16 bytes per ghost
 * each way)/BW + latency + neighbours * MSG_US + max(intra-node halo bytes
 * / NVLink, its node's inter-node halo bytes / IB). Overlapped: T =
 * max(T_local, T_exch) + T_remote; the model's T(P) is the slowest rank's.
 */
#include "smv_dist.h" /* smv_dist_row_owner: the owner search the library uses */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int gpn;
static double nvl, ib, lat_n, lat_i, msg, launch, bw;
static smv_dist_partition part;

static double env(const char *name, double def) {
  const char *v = getenv(name);
  return v && *v ? atof(v) : def;
}

static smv_csr *load(const char *m) {
  smv_csr *A = NULL;
  smv_error err;
  if (smv_load(m, NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "dist_model: %s\n", err.message);
    return NULL;
  }
  if (A->rows != A->cols) {
    fprintf(stderr, "dist_model: %s: square matrices only\n", m);
    smv_csr_free(A);
    return NULL;
  }
  return A;
}

typedef struct {
  int64_t nl, nr, remrows, halo, halo_off, nb;
} rank_stats;

/* One table row: A on P ranks. *Tref: the first row's time (set when 0);
 * weak: efficiency = Tref / T, else speedup = Tref / T. */
static int model_row(const smv_csr *A, int P, int weak, double *Tref) {
  int64_t n = A->rows;
  int nodes = (P + gpn - 1) / gpn;
  int *stamp = calloc((size_t)n + 1, sizeof *stamp);
  int *nstamp = calloc((size_t)P, sizeof *nstamp);
  int64_t *off = malloc(((size_t)P + 1) * sizeof *off);
  double *node_off = calloc((size_t)nodes, sizeof *node_off);
  rank_stats *rs = calloc((size_t)P, sizeof *rs);
  if (!stamp || !nstamp || !off || !node_off || !rs) {
    fprintf(stderr, "dist_model: out of memory\n");
    free(stamp), free(nstamp), free(off), free(node_off), free(rs);
    return 1;
  }
  smv_dist_partition_rows(A->row_ptr, n, P, part, off);
  for (int r = 0; r < P; r++) {
    rank_stats *s = &rs[r];
    for (int64_t i = off[r]; i < off[r + 1]; i++) {
      int any = 0;
      for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
        int64_t c = A->col_idx[k];
        if (c >= off[r] && c < off[r + 1]) {
          s->nl++;
          continue;
        }
        s->nr++;
        any = 1;
        if (stamp[c] == r + 1)
          continue;
        stamp[c] = r + 1;
        s->halo++;
        int o = smv_dist_row_owner(off, P, c);
        if (nstamp[o] != r + 1) {
          nstamp[o] = r + 1;
          s->nb++;
        }
        s->halo_off += o / gpn != r / gpn;
      }
      s->remrows += any;
    }
    node_off[r / gpn] += 8.0 * (double)s->halo_off;
  }
  int64_t mx_nnz = 0, mx_halo = 0, mx_nb = 0;
  double mx_loc = 0, mx_ex = 0, mx_rem = 0, mx_T = 0, mx_S = 0, mx_node = 0;
  for (int r = 0; r < P; r++) {
    const rank_stats *s = &rs[r];
    double rows = (double)(off[r + 1] - off[r]);
    double bl = 12.0 * (double)s->nl + 12.0 * rows + 8.0 * rows;
    double br = 12.0 * (double)s->nr + 4.0 * (double)s->remrows +
                8.0 * (double)s->halo + 28.0 * (double)s->remrows;
    double tl = bl / bw + launch, tr = s->halo ? br / bw + 2 * launch : 0;
    double te = 0;
    if (s->halo) {
      double pack = 2 * 16.0 * (double)s->halo / bw;
      double link = 8.0 * (double)(s->halo - s->halo_off) / nvl;
      double across = node_off[r / gpn] / ib;
      te = pack + lat_n + (node_off[r / gpn] > 0 ? lat_i : 0) +
           msg * (double)s->nb + (link > across ? link : across);
    }
    double T = (tl > te ? tl : te) + tr, S = tl + te + tr;
    if (s->nl + s->nr > mx_nnz)
      mx_nnz = s->nl + s->nr;
    if (s->halo > mx_halo)
      mx_halo = s->halo;
    if (s->nb > mx_nb)
      mx_nb = s->nb;
    if (T > mx_T) {
      mx_T = T;
      mx_loc = tl;
      mx_ex = te;
      mx_rem = tr;
    }
    if (S > mx_S)
      mx_S = S;
  }
  for (int k = 0; k < nodes; k++)
    if (node_off[k] > mx_node)
      mx_node = node_off[k];
  if (*Tref == 0)
    *Tref = mx_T * (weak ? 1 : P); /* the first row is the reference */
  double sp = *Tref / mx_T;
  printf("| %d | %d | %lld | %lld | %lld | %.0f | %lld | %.1f | %.1f | %.1f | "
         "%.1f | %.1f | ",
         P, nodes, (long long)n, (long long)mx_nnz, (long long)mx_halo,
         mx_node / 8, (long long)mx_nb, mx_loc * 1e6, mx_ex * 1e6, mx_rem * 1e6,
         mx_T * 1e6, mx_S * 1e6);
  if (weak)
    printf("%.0f%% |\n", 100 * sp);
  else
    printf("%.2fx (%.0f%%) |\n", sp, 100 * sp / P);
  free(stamp), free(nstamp), free(off), free(node_off), free(rs);
  return 0;
}

int main(int argc, char **argv) {
  int weak = argc > 1 && strcmp(argv[1], "--weak") == 0;
  if (argc < 3 || (weak && (argc < 5 || (argc - 3) % 2))) {
    fprintf(stderr, "usage: dist_model MATRIX T1_MS [P...]\n"
                    "       dist_model --weak T1_MS MATRIX P [MATRIX P ...]\n");
    return 2;
  }
  double t1 = atof(argv[2]) * 1e-3;
  gpn = (int)env("GPUS_PER_NODE", 8);
  nvl = env("NVLINK_GBS", 450) * 1e9;
  ib = env("IB_GBS", 50) * 1e9;
  lat_n = env("LAT_NVLINK_US", 10) * 1e-6;
  lat_i = env("LAT_IB_US", 5) * 1e-6;
  msg = env("MSG_US", 1) * 1e-6;
  launch = env("LAUNCH_US", 5) * 1e-6;
  const char *pv = getenv("PART");
  part = pv && strcmp(pv, "rows") == 0 ? SMV_DIST_PART_ROWS : SMV_DIST_PART_NNZ;
  const char *first = weak ? argv[3] : argv[1];
  smv_csr *A = load(first);
  if (!A || t1 <= 0) {
    smv_csr_free(A);
    return 1;
  }
  bw = (12.0 * (double)A->nnz + 20.0 * (double)A->rows) / t1;
  printf("model (%s) from %s: %lld rows, %lld entries; T1 %.4f ms -> "
         "effective %.0f GB/s; %d GPUs/node, NVLink %.0f GB/s, IB %.0f "
         "GB/s/node, latency %.0f us (+%.0f across nodes) + %.1f us per "
         "neighbour, launch %.0f us, partition %s\n\n",
         weak ? "weak" : "strong", first, (long long)A->rows, (long long)A->nnz,
         t1 * 1e3, bw / 1e9, gpn, nvl / 1e9, ib / 1e9, lat_n * 1e6, lat_i * 1e6,
         msg * 1e6, launch * 1e6, part == SMV_DIST_PART_NNZ ? "nnz" : "rows");
  printf("| GPUs | nodes | rows | max nnz/rank | max halo in/rank | max "
         "off-node halo/node | max neighbours | T_local us | T_exch us | "
         "T_remote us | T overlapped us | T serial us | %s |\n",
         weak ? "weak efficiency" : "speedup (efficiency)");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
         "\n");
  double Tref = 0;
  int rc = 0;
  if (!weak) {
    int def[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
    int np = argc > 3 ? argc - 3 : (int)(sizeof def / sizeof def[0]);
    for (int q = 0; rc == 0 && q < np; q++) {
      int P = argc > 3 ? atoi(argv[3 + q]) : def[q];
      if (P >= 1)
        rc = model_row(A, P, 0, &Tref);
    }
  } else {
    for (int q = 3; rc == 0 && q + 1 < argc; q += 2) {
      smv_csr *B = q == 3 ? A : load(argv[q]);
      int P = atoi(argv[q + 1]);
      rc = !B || P < 1 ? 1 : model_row(B, P, 1, &Tref);
      if (B != A)
        smv_csr_free(B);
      fflush(stdout);
    }
  }
  smv_csr_free(A);
  return rc;
}
