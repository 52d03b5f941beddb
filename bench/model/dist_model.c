/*
 * dist_model.c — a model of distributed SpMV scaling (issue 11): exact
 * per-rank work and halo volumes of smv_dist's row partition for any rank
 * count (no MPI run needed), combined with a measured single-GPU SpMV
 * bandwidth and assumed link figures. Built by `make dist-model` into
 * BUILD/dist_model; used for bench/results/<device>/dist.md.
 *
 *   dist_model MATRIX T1_MS [P...]
 *     MATRIX  file or generator spec (square)
 *     T1_MS   measured time of one SpMV of the whole matrix on one GPU
 *             (ms); the effective bandwidth is the byte model below / T1
 *     P...    rank counts (default 1 2 4 8 16 32 64 128 256 512)
 *   environment: GPUS_PER_NODE (8), NVLINK_GBS (450, per direction per
 *   GPU), IB_GBS (50, per node), LAT_NVLINK_US (10: one NCCL/MPI exchange
 *   round inside a node), LAT_IB_US (5: one round across nodes), LAUNCH_US
 *   (5: one kernel launch), PART (nnz or rows).
 *
 * Byte model per block (DEVELOPERS.md's minimal bytes): 12 per entry
 * (value + column), 4 per row pointer, 8 per y entry (read and written
 * counts once: beta = 0 for the local block, +8 for the remote block's
 * read of y), 8 per x entry it reads (owned x for the local block, the
 * ghosts for the remote one).
 *
 * Per rank r: T_local = B_local/BW + launch, T_remote = B_remote/BW +
 * launch (0 without ghosts), T_exch = pack/unpack bytes/BW + latency +
 * max(intra-node bytes / NVLink, the node's inter-node bytes / IB).
 * Overlapped: T = max(T_local, T_exch) + T_remote; the model's T(P) is the
 * slowest rank's.
 */
#include "smv.h"
#include "smv_dist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double env(const char *name, double def) {
  const char *v = getenv(name);
  return v && *v ? atof(v) : def;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: dist_model MATRIX T1_MS [P...]\n");
    return 2;
  }
  smv_csr *A = NULL;
  smv_error err;
  if (smv_load(argv[1], NULL, &A, &err) != SMV_OK) {
    fprintf(stderr, "dist_model: %s\n", err.message);
    return 1;
  }
  if (A->rows != A->cols) {
    fprintf(stderr, "dist_model: square matrices only\n");
    smv_csr_free(A);
    return 1;
  }
  double t1 = atof(argv[2]) * 1e-3;
  int gpn = (int)env("GPUS_PER_NODE", 8);
  double nvl = env("NVLINK_GBS", 450) * 1e9, ib = env("IB_GBS", 50) * 1e9;
  double lat_n = env("LAT_NVLINK_US", 10) * 1e-6;
  double lat_i = env("LAT_IB_US", 5) * 1e-6;
  double launch = env("LAUNCH_US", 5) * 1e-6;
  const char *pv = getenv("PART");
  smv_dist_partition part =
      pv && strcmp(pv, "rows") == 0 ? SMV_DIST_PART_ROWS : SMV_DIST_PART_NNZ;
  int def[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
  int np = argc > 3 ? argc - 3 : (int)(sizeof def / sizeof def[0]);
  int64_t n = A->rows;
  double b1 = 12.0 * (double)A->nnz + 12.0 * (double)n + 8.0 * (double)n;
  double bw = b1 / t1;
  printf("model: %s, %lld rows, %lld entries; T1 %.4f ms -> effective %.0f "
         "GB/s; %d GPUs/node, NVLink %.0f GB/s, IB %.0f GB/s/node, latency "
         "%.0f/%.0f us, launch %.0f us, partition %s\n\n",
         argv[1], (long long)n, (long long)A->nnz, t1 * 1e3, bw / 1e9, gpn,
         nvl / 1e9, ib / 1e9, lat_n * 1e6, lat_i * 1e6, launch * 1e6,
         part == SMV_DIST_PART_NNZ ? "nnz" : "rows");
  printf("| GPUs | nodes | max nnz/rank | max halo in/rank (entries) | max "
         "off-node halo/node (entries) | max neighbours | T_local us | "
         "T_exch us | T_remote us | T overlapped us | T serial us | speedup "
         "| efficiency |\n");
  printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
         "\n");
  int *stamp = calloc((size_t)n + 1, sizeof *stamp);
  double T1model = 0;
  for (int q = 0; q < np; q++) {
    int P = argc > 3 ? atoi(argv[3 + q]) : def[q];
    if (P < 1)
      continue;
    int64_t *off = malloc(((size_t)P + 1) * sizeof *off);
    int *nstamp = calloc((size_t)P, sizeof *nstamp);
    int nodes = (P + gpn - 1) / gpn;
    double *node_off = calloc((size_t)nodes, sizeof *node_off);
    if (!stamp || !off || !nstamp || !node_off) {
      fprintf(stderr, "dist_model: out of memory\n");
      return 1;
    }
    smv_dist_partition_rows(A->row_ptr, n, P, part, off);
    for (int64_t i = 0; i <= n; i++)
      stamp[i] = 0;
    int64_t mx_nnz = 0, mx_halo = 0, mx_nb = 0;
    double mx_loc = 0, mx_ex = 0, mx_rem = 0, mx_T = 0, mx_S = 0;
    double *ex_intra = calloc((size_t)P, sizeof *ex_intra);
    int64_t *halo = calloc((size_t)P, sizeof *halo);
    int64_t *nbs = calloc((size_t)P, sizeof *nbs);
    int64_t *nl = calloc((size_t)P, sizeof *nl), *nr = calloc((size_t)P, 8);
    for (int r = 0; r < P; r++) {
      int64_t o0 = off[r], o1 = off[r + 1], h = 0, hoff = 0, nb = 0;
      int owner = r;
      for (int64_t k = A->row_ptr[o0]; k < A->row_ptr[o1]; k++) {
        int64_t c = A->col_idx[k];
        if (c >= o0 && c < o1) {
          nl[r]++;
          continue;
        }
        nr[r]++;
        if (stamp[c] == r + 1)
          continue;
        stamp[c] = r + 1;
        h++;
        /* owner of column c: binary search of off */
        int lo = 0, hi = P - 1;
        while (lo < hi) {
          int mid = lo + (hi - lo + 1) / 2;
          if (off[mid] <= c)
            lo = mid;
          else
            hi = mid - 1;
        }
        owner = lo;
        if (nstamp[owner] != r + 1) {
          nstamp[owner] = r + 1;
          nb++;
        }
        if (owner / gpn != r / gpn)
          hoff++;
      }
      halo[r] = h;
      nbs[r] = nb;
      ex_intra[r] = 8.0 * (double)(h - hoff);
      node_off[r / gpn] += 8.0 * (double)hoff;
    }
    for (int r = 0; r < P; r++) {
      int64_t rows = off[r + 1] - off[r];
      double bl = 12.0 * (double)nl[r] + 12.0 * (double)rows + 8.0 * rows;
      double br = halo[r] ? 12.0 * (double)nr[r] + 20.0 * (double)rows +
                                8.0 * (double)halo[r]
                          : 0;
      double tl = bl / bw + launch, tr = halo[r] ? br / bw + launch : 0;
      double te = 0;
      if (halo[r]) {
        double pack = 2 * 16.0 * (double)halo[r] / bw; /* gather + scatter */
        double link = ex_intra[r] / nvl;
        double nodes_t = node_off[r / gpn] / ib;
        int cross = node_off[r / gpn] > 0;
        te = pack + lat_n + (cross ? lat_i : 0) +
             (link > nodes_t ? link : nodes_t);
      }
      double T = (tl > te ? tl : te) + tr, S = tl + te + tr;
      if (nl[r] + nr[r] > mx_nnz)
        mx_nnz = nl[r] + nr[r];
      if (halo[r] > mx_halo)
        mx_halo = halo[r];
      if (nbs[r] > mx_nb)
        mx_nb = nbs[r];
      if (T > mx_T) {
        mx_T = T;
        mx_loc = tl;
        mx_ex = te;
        mx_rem = tr;
      }
      if (S > mx_S)
        mx_S = S;
    }
    double mx_node = 0;
    for (int k = 0; k < nodes; k++)
      if (node_off[k] > mx_node)
        mx_node = node_off[k];
    if (P == 1 || T1model == 0)
      T1model = mx_T * P; /* first row is the reference */
    double sp = T1model / mx_T;
    printf("| %d | %d | %lld | %lld | %.0f | %lld | %.1f | %.1f | %.1f | "
           "%.1f | %.1f | %.2fx | %.0f%% |\n",
           P, nodes, (long long)mx_nnz, (long long)mx_halo, mx_node / 8,
           (long long)mx_nb, mx_loc * 1e6, mx_ex * 1e6, mx_rem * 1e6,
           mx_T * 1e6, mx_S * 1e6, sp, 100 * sp / P);
    free(off);
    free(nstamp);
    free(node_off);
    free(ex_intra);
    free(halo);
    free(nbs);
    free(nl);
    free(nr);
  }
  free(stamp);
  smv_csr_free(A);
  return 0;
}
