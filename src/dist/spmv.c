/*
 * spmv.c — the distributed product: halo exchange of x overlapped with
 * the local block, then the remote block; distributed vectors; phase
 * timing.
 */
#include "dist.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HALO_TAG 7411

/* Post receives into `recv` and sends from `send` (host or device
 * pointers, as the exchange path allows). */
static smv_status post(smv_dist *D, double *recv, const double *send) {
  int nreq = 0;
  for (int k = 0; k < D->nrecv; k++) {
    int n = D->recv_start[k + 1] - D->recv_start[k];
    DIST_MPI(D, NULL,
             MPI_Irecv(recv + D->recv_start[k], n, MPI_DOUBLE, D->recv_rank[k],
                       HALO_TAG, D->comm, &D->reqs[nreq++]));
  }
  for (int k = 0; k < D->nsend; k++) {
    int n = D->send_start[k + 1] - D->send_start[k];
    DIST_MPI(D, NULL,
             MPI_Isend(send + D->send_start[k], n, MPI_DOUBLE, D->send_rank[k],
                       HALO_TAG, D->comm, &D->reqs[nreq++]));
  }
  return SMV_OK;
}

static smv_status device_fail(smv_dist *D, smv_status st, const char *what) {
  const char *why = smv_context_error(D->ctx);
  return dist_fail(D, NULL, st, __FILE__, __LINE__, "%s: %s", what,
                   why && *why ? why : smv_status_string(st));
}

smv_status dist_halo_start(smv_dist *D, const double *x) {
  if (D->backend == SMV_DIST_CPU) {
    for (int32_t k = 0; k < D->nsend_total; k++)
      D->send_buf[k] = x[D->send_idx[k]];
    return post(D, D->recv_buf, D->send_buf);
  }
  char msg[SMV_ERROR_TEXT] = "";
  smv_status st = SMV_OK;
  if (D->nsend_total > 0)
    st = smv_distdev_pack(D->ctx, D->device, x, D->d_send_idx, D->nsend_total,
                          D->d_send, msg);
  if (st != SMV_OK)
    return dist_fail(D, NULL, st, __FILE__, __LINE__, "%s", msg);
  switch (D->exchange) {
  case SMV_DIST_EXCHANGE_NCCL:
    st = smv_nccl_start(D->nccl, D->ctx, D->nsend, D->send_rank, D->send_start,
                        D->d_send, D->nrecv, D->recv_rank, D->recv_start,
                        D->d_recv, msg);
    if (st != SMV_OK)
      return dist_fail(D, NULL, st, __FILE__, __LINE__, "%s", msg);
    return SMV_OK;
  case SMV_DIST_EXCHANGE_CUDA_AWARE:
    /* MPI reads d_send outside the stream's order: the pack must be done. */
    if (D->nsend_total > 0 && (st = smv_synchronize(D->ctx)) != SMV_OK)
      return device_fail(D, st, "waiting for the halo pack");
    return post(D, D->d_recv, D->d_send);
  default:
    if (D->nsend_total > 0 &&
        (st = smv_memcpy_d2h(D->ctx, D->send_buf, D->d_send,
                             (size_t)D->nsend_total * sizeof(double))) !=
            SMV_OK)
      return device_fail(D, st, "copying the halo to the host");
    return post(D, D->recv_buf, D->send_buf);
  }
}

smv_status dist_halo_finish(smv_dist *D) {
  smv_status st;
  if (D->exchange == SMV_DIST_EXCHANGE_NCCL) {
    char msg[SMV_ERROR_TEXT] = "";
    if ((st = smv_nccl_finish(D->nccl, D->ctx, msg)) != SMV_OK)
      return dist_fail(D, NULL, st, __FILE__, __LINE__, "%s", msg);
    return SMV_OK;
  }
  DIST_MPI(D, NULL,
           MPI_Waitall(D->nrecv + D->nsend, D->reqs, MPI_STATUSES_IGNORE));
  if (D->backend == SMV_DIST_CUDA && D->exchange == SMV_DIST_EXCHANGE_HOST &&
      D->nghost > 0 &&
      (st = smv_memcpy_h2d(D->ctx, D->d_recv, D->recv_buf,
                           (size_t)D->nghost * sizeof(double))) != SMV_OK)
    return device_fail(D, st, "copying the ghosts to the device");
  return SMV_OK;
}

/* One block on this rank's backend. Local: y = alpha*L*v + beta*y.
 * Remote (beta is 1): t = alpha*R*ghosts over R's compressed rows, then
 * y[rem_rows[k]] += t[k]. */
static smv_status block(smv_dist *D, int remote, double alpha, const double *v,
                        double beta, double *y) {
  const smv_csr *B = remote ? D->rem : D->loc;
  if (B->rows == 0)
    return SMV_OK;
  smv_status st;
  if (D->backend == SMV_DIST_CPU) {
    static const double none = 0.0; /* x of a block without columns */
    st = smv_spmv_cpu(B, alpha, v ? v : &none, remote ? 0.0 : beta,
                      remote ? D->rem_y : y);
    if (st != SMV_OK)
      return dist_fail(D, NULL, st, __FILE__, __LINE__,
                       "CPU SpMV of the %s block failed",
                       remote ? "remote" : "local");
    for (int32_t k = 0; remote && k < D->nremrows; k++)
      y[D->rem_rows[k]] += D->rem_y[k];
    return SMV_OK;
  }
  st = smv_spmv(D->ctx, D->alg, alpha, remote ? D->drem : D->dloc,
                v ? (const void *)v : (const void *)D->d_x, remote ? 0.0 : beta,
                remote ? D->d_rem_y : y);
  if (st != SMV_OK)
    return device_fail(
        D, st, remote ? "SpMV of the remote block" : "SpMV of the local block");
  if (remote) {
    char msg[SMV_ERROR_TEXT] = "";
    st = smv_distdev_scatter_add(D->ctx, D->device, D->d_rem_y, D->d_rem_rows,
                                 D->nremrows, y, msg);
    if (st != SMV_OK)
      return dist_fail(D, NULL, st, __FILE__, __LINE__, "%s", msg);
  }
  return SMV_OK;
}

static const double *ghosts(const smv_dist *D) {
  return D->backend == SMV_DIST_CPU ? D->recv_buf : D->d_recv;
}

static smv_status check_vectors(smv_dist *D, const double *x, double *y) {
  if ((D->ncols > 0 && !x) || (D->nrows > 0 && !y))
    return dist_fail(D, NULL, SMV_ERR_ARG, __FILE__, __LINE__,
                     "NULL vector on rank %d (x has %d entries here, y %d)",
                     D->rank, (int)D->ncols, (int)D->nrows);
  return SMV_OK;
}

smv_status smv_dist_spmv(smv_dist *D, double alpha, const double *x,
                         double beta, double *y) {
  if (!D)
    return SMV_ERR_ARG;
  D->err[0] = '\0';
  smv_status st = check_vectors(D, x, y);
  if (st != SMV_OK)
    return st;
  /* Post the halo, run the local block while it travels, wait, then add
   * the remote block on the ghosts. */
  if ((st = dist_halo_start(D, x)) != SMV_OK)
    return st;
  st = block(D, 0, alpha, x, beta, y);
  smv_status st2 = dist_halo_finish(D); /* always complete the requests */
  if (st == SMV_OK)
    st = st2;
  if (st == SMV_OK)
    st = block(D, 1, alpha, ghosts(D), 1.0, y);
  if (st == SMV_OK && D->backend == SMV_DIST_CUDA &&
      (st = smv_synchronize(D->ctx)) != SMV_OK)
    return device_fail(D, st, "waiting for the product");
  return st;
}

smv_status smv_dist_spmv_host(smv_dist *D, double alpha, const double *x,
                              double beta, double *y) {
  if (!D)
    return SMV_ERR_ARG;
  if (D->backend == SMV_DIST_CPU)
    return smv_dist_spmv(D, alpha, x, beta, y);
  smv_status st = check_vectors(D, x, y);
  if (st != SMV_OK)
    return st;
  size_t xb = (size_t)D->ncols * sizeof(double);
  size_t yb = (size_t)D->nrows * sizeof(double);
  if (xb && (st = smv_memcpy_h2d(D->ctx, D->d_x, x, xb)) != SMV_OK)
    return device_fail(D, st, "copying x to the device");
  if (yb && beta != 0 && (st = smv_memcpy_h2d(D->ctx, D->d_y, y, yb)) != SMV_OK)
    return device_fail(D, st, "copying y to the device");
  if ((st = smv_dist_spmv(D, alpha, D->d_x, beta, D->d_y)) != SMV_OK)
    return st;
  if (yb && (st = smv_memcpy_d2h(D->ctx, y, D->d_y, yb)) != SMV_OK)
    return device_fail(D, st, "copying y to the host");
  return SMV_OK;
}

/* Counts and displacements of the row (or column) blocks, as MPI ints. */
static smv_status vector_layout(smv_dist *D, int rows, int **cnt, int **dsp) {
  const int64_t *off = rows ? D->row_off : D->col_off;
  *cnt = *dsp = NULL;
  if (off[D->size] > INT_MAX)
    return dist_fail(D, NULL, SMV_ERR_OVERFLOW, __FILE__, __LINE__,
                     "a vector of %lld entries is beyond MPI's int counts",
                     (long long)off[D->size]);
  *cnt = malloc((size_t)D->size * sizeof **cnt);
  *dsp = malloc((size_t)D->size * sizeof **dsp);
  if (!*cnt || !*dsp) {
    free(*cnt);
    free(*dsp);
    return dist_fail(D, NULL, SMV_ERR_NOMEM, __FILE__, __LINE__,
                     "out of memory for %d counts", D->size);
  }
  for (int r = 0; r < D->size; r++) {
    (*cnt)[r] = (int)(off[r + 1] - off[r]);
    (*dsp)[r] = (int)off[r];
  }
  return SMV_OK;
}

/* Scatter (root's global -> each rank's part) or gather (the reverse). */
static smv_status move_vector(smv_dist *D, int root, int rows, int gather,
                              const double *src, double *dst) {
  if (!D || root < 0 || root >= D->size)
    return SMV_ERR_ARG;
  int *cnt, *dsp;
  smv_status st = vector_layout(D, rows, &cnt, &dsp);
  if (st != SMV_OK)
    return st;
  int rc = gather ? MPI_Gatherv(src, cnt[D->rank], MPI_DOUBLE, dst, cnt, dsp,
                                MPI_DOUBLE, root, D->comm)
                  : MPI_Scatterv(src, cnt, dsp, MPI_DOUBLE, dst, cnt[D->rank],
                                 MPI_DOUBLE, root, D->comm);
  free(cnt);
  free(dsp);
  if (rc != MPI_SUCCESS)
    return dist_mpi_fail(D, NULL, rc, gather ? "MPI_Gatherv" : "MPI_Scatterv",
                         __FILE__, __LINE__);
  return SMV_OK;
}

smv_status smv_dist_scatter_vector(smv_dist *D, int root, int rows,
                                   const double *global, double *local) {
  return move_vector(D, root, rows, 0, global, local);
}

smv_status smv_dist_gather_vector(smv_dist *D, int root, int rows,
                                  const double *local, double *global) {
  return move_vector(D, root, rows, 1, local, global);
}

/* ---- phase timing ------------------------------------------------------ */

enum { PH_EXCHANGE, PH_LOCAL, PH_REMOTE, PH_COMPUTE, PH_TOTAL, PH_COUNT };

static smv_status phase(smv_dist *D, int ph, const double *x, double *y) {
  smv_status st = SMV_OK;
  switch (ph) {
  case PH_EXCHANGE:
    st = dist_halo_start(D, x);
    if (st == SMV_OK)
      st = dist_halo_finish(D);
    break;
  case PH_LOCAL:
    st = block(D, 0, 1.0, x, 0.0, y);
    break;
  case PH_REMOTE:
    st = block(D, 1, 1.0, ghosts(D), 1.0, y);
    break;
  case PH_COMPUTE:
    st = block(D, 0, 1.0, x, 0.0, y);
    if (st == SMV_OK)
      st = block(D, 1, 1.0, ghosts(D), 1.0, y);
    break;
  default:
    return smv_dist_spmv(D, 1.0, x, 0.0, y);
  }
  if (st == SMV_OK && D->backend == SMV_DIST_CUDA &&
      (st = smv_synchronize(D->ctx)) != SMV_OK)
    return device_fail(D, st, "waiting for a timed phase");
  return st;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

smv_status smv_dist_time(smv_dist *D, const double *x, double *y, int warmup,
                         int runs, smv_dist_timing *t) {
  if (!D || !t || runs < 1 || warmup < 0)
    return SMV_ERR_ARG;
  memset(t, 0, sizeof *t);
  smv_status st = check_vectors(D, x, y);
  double *own = malloc((size_t)runs * sizeof *own);
  double *mx = malloc((size_t)runs * sizeof *mx);
  if (st == SMV_OK && (!own || !mx))
    st = dist_fail(D, NULL, SMV_ERR_NOMEM, __FILE__, __LINE__,
                   "out of memory for %d timings", runs);
  if (st == SMV_OK && D->backend == SMV_DIST_CUDA) {
    size_t xb = (size_t)D->ncols * sizeof(double);
    if (xb && (st = smv_memcpy_h2d(D->ctx, D->d_x, x, xb)) != SMV_OK)
      device_fail(D, st, "copying x to the device");
    x = D->d_x;
    y = D->d_y;
  }
  st = dist_agree(D, st, NULL);
  double res[PH_COUNT][2];
  for (int ph = 0; st == SMV_OK && ph < PH_COUNT; ph++) {
    for (int w = 0; st == SMV_OK && w < warmup; w++)
      st = phase(D, ph, x, y);
    for (int r = 0; st == SMV_OK && r < runs; r++) {
      int rc = MPI_Barrier(D->comm);
      double t0 = MPI_Wtime();
      if (rc == MPI_SUCCESS)
        st = phase(D, ph, x, y);
      own[r] = (MPI_Wtime() - t0) * 1e3;
      if (rc == MPI_SUCCESS)
        rc = MPI_Allreduce(&own[r], &mx[r], 1, MPI_DOUBLE, MPI_MAX, D->comm);
      if (rc != MPI_SUCCESS)
        st = dist_mpi_fail(D, NULL, rc, "MPI_Allreduce", __FILE__, __LINE__);
    }
    st = dist_agree(D, st, NULL);
    if (st == SMV_OK) {
      res[ph][0] = median(own, runs);
      res[ph][1] = median(mx, runs);
    }
  }
  free(own);
  free(mx);
  if (st != SMV_OK)
    return st;
  t->exchange_ms = res[PH_EXCHANGE][0];
  t->local_ms = res[PH_LOCAL][0];
  t->remote_ms = res[PH_REMOTE][0];
  t->compute_ms = res[PH_COMPUTE][0];
  t->total_ms = res[PH_TOTAL][0];
  t->max_exchange_ms = res[PH_EXCHANGE][1];
  t->max_compute_ms = res[PH_COMPUTE][1];
  t->max_total_ms = res[PH_TOTAL][1];
  /* Nothing to exchange anywhere (one rank, a block-diagonal matrix):
   * nothing to hide either. */
  int mine = D->nghost > 0 || D->nsend_total > 0, any = 0;
  if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, D->comm) != MPI_SUCCESS)
    any = 1;
  double h = 0;
  if (!any)
    h = NAN;
  else if (t->max_exchange_ms > 0)
    h = (t->max_compute_ms + t->max_exchange_ms - t->max_total_ms) /
        t->max_exchange_ms;
  t->hidden = isnan(h) ? h : h < 0 ? 0 : h > 1 ? 1 : h;
  t->runs = runs;
  return SMV_OK;
}
