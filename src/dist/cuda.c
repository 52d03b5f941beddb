/*
 * cuda.c — the CUDA backend of a distributed matrix: pick this rank's GPU,
 * upload both blocks, allocate the halo buffers, and resolve the exchange
 * path (NCCL, CUDA-aware MPI or host-staged MPI). Every rank takes the same
 * path: the choice is agreed with an MPI_Allreduce.
 */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif
#endif

/* 1 if the MPI library says it moves device buffers itself. */
static int mpi_cuda_aware(void) {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return 0; /* cannot tell (MPICH, or Open MPI built without CUDA) */
#endif
}

static smv_status dev_fail(smv_dist *D, smv_error *err, smv_status st, int line,
                           const char *what) {
  const char *why = smv_context_error(D->ctx);
  return dist_fail(D, err, st, __FILE__, line, "rank %d, GPU %d: %s: %s",
                   D->rank, D->device, what,
                   why && *why ? why : smv_status_string(st));
}

static smv_status pick_device(smv_dist *D, const smv_dist_options *opt,
                              smv_error *err) {
  char msg[SMV_ERROR_TEXT] = "";
  int count = 0;
  smv_status st = smv_distdev_count(&count, msg);
  if (st == SMV_OK && count == 0)
    st = SMV_ERR_NO_DEVICE;
  if (st != SMV_OK)
    return dist_fail(D, err, st, __FILE__, __LINE__,
                     "rank %d: no CUDA device for the CUDA backend (%s)",
                     D->rank, *msg ? msg : smv_status_string(st));
  if (opt->device >= 0) {
    D->device = opt->device;
    return SMV_OK;
  }
  /* Ranks on one node take the node's GPUs in turn. */
  MPI_Comm node;
  int lrank = 0;
  DIST_MPI(D, err,
           MPI_Comm_split_type(D->comm, MPI_COMM_TYPE_SHARED, D->rank,
                               MPI_INFO_NULL, &node));
  int rc = MPI_Comm_rank(node, &lrank);
  MPI_Comm_free(&node);
  if (rc != MPI_SUCCESS)
    return dist_mpi_fail(D, err, rc, "MPI_Comm_rank", __FILE__, __LINE__);
  D->device = lrank % count;
  return SMV_OK;
}

static smv_status upload(smv_dist *D, smv_error *err) {
  smv_status st = smv_context_create(D->device, &D->ctx);
  if (st != SMV_OK)
    return dev_fail(D, err, st, __LINE__, "creating the context");
  if (D->nrows > 0 &&
      (st = smv_matrix_create(D->ctx, D->loc, SMV_F64, &D->dloc)) != SMV_OK)
    return dev_fail(D, err, st, __LINE__, "uploading the local block");
  if (D->nremrows > 0 &&
      (st = smv_matrix_create(D->ctx, D->rem, SMV_F64, &D->drem)) != SMV_OK)
    return dev_fail(D, err, st, __LINE__, "uploading the remote block");
  /* +1 entry each: never a zero-byte allocation, never a NULL vector. */
  struct {
    void **p;
    size_t bytes;
  } bufs[] = {
      {(void **)&D->d_send_idx, ((size_t)D->nsend_total + 1) * sizeof(int32_t)},
      {(void **)&D->d_send, ((size_t)D->nsend_total + 1) * sizeof(double)},
      {(void **)&D->d_recv, ((size_t)D->nghost + 1) * sizeof(double)},
      {(void **)&D->d_x, ((size_t)D->ncols + 1) * sizeof(double)},
      {(void **)&D->d_y, ((size_t)D->nrows + 1) * sizeof(double)},
      {(void **)&D->d_rem_rows, ((size_t)D->nremrows + 1) * sizeof(int32_t)},
      {(void **)&D->d_rem_y, ((size_t)D->nremrows + 1) * sizeof(double)},
  };
  for (size_t k = 0; k < sizeof bufs / sizeof bufs[0]; k++)
    if ((st = smv_device_malloc(D->ctx, bufs[k].bytes, bufs[k].p)) != SMV_OK)
      return dev_fail(D, err, st, __LINE__, "allocating the halo buffers");
  if (D->nsend_total > 0 &&
      (st = smv_memcpy_h2d(D->ctx, D->d_send_idx, D->send_idx,
                           (size_t)D->nsend_total * sizeof(int32_t))) != SMV_OK)
    return dev_fail(D, err, st, __LINE__, "copying the send list");
  if (D->nremrows > 0 &&
      (st = smv_memcpy_h2d(D->ctx, D->d_rem_rows, D->rem_rows,
                           (size_t)D->nremrows * sizeof(int32_t))) != SMV_OK)
    return dev_fail(D, err, st, __LINE__, "copying the remote row list");
  return SMV_OK;
}

/* First pair of ranks sharing a GPU (same UUID), or -1. */
static smv_status shared_gpu(smv_dist *D, int *a, int *b, smv_error *err) {
  unsigned char mine[16];
  char msg[SMV_ERROR_TEXT] = "";
  *a = *b = -1;
  smv_status st = smv_distdev_uuid(D->device, mine, msg);
  if (st != SMV_OK)
    dist_fail(D, err, st, __FILE__, __LINE__, "%s", msg);
  st = dist_agree(D, st, err);
  if (st != SMV_OK)
    return st;
  unsigned char *all = malloc((size_t)D->size * 16);
  st = all ? SMV_OK
           : dist_fail(D, err, SMV_ERR_NOMEM, __FILE__, __LINE__,
                       "out of memory for %d GPU ids", D->size);
  st = dist_agree(D, st, err);
  if (st != SMV_OK) {
    free(all);
    return st;
  }
  int rc = MPI_Allgather(mine, 16, MPI_UNSIGNED_CHAR, all, 16,
                         MPI_UNSIGNED_CHAR, D->comm);
  for (int i = 0; rc == MPI_SUCCESS && *a < 0 && i < D->size; i++)
    for (int j = i + 1; *a < 0 && j < D->size; j++)
      if (memcmp(all + 16 * i, all + 16 * j, 16) == 0) {
        *a = i;
        *b = j;
      }
  free(all);
  if (rc != MPI_SUCCESS)
    return dist_mpi_fail(D, err, rc, "MPI_Allgather", __FILE__, __LINE__);
  return SMV_OK;
}

static smv_status choose_path(smv_dist *D, const smv_dist_options *opt,
                              smv_error *err) {
  int a, b;
  smv_status st = shared_gpu(D, &a, &b, err);
  if (st != SMV_OK)
    return st;
  int aware = mpi_cuda_aware() || opt->force_cuda_aware;
  smv_dist_exchange mpi_path =
      aware ? SMV_DIST_EXCHANGE_CUDA_AWARE : SMV_DIST_EXCHANGE_HOST;
  smv_dist_exchange want = opt->exchange, path = want;
  if (want == SMV_DIST_EXCHANGE_NCCL && !smv_nccl_built())
    return dist_agree(
        D,
        dist_fail(D, err, SMV_ERR_UNSUPPORTED, __FILE__, __LINE__,
                  "exchange nccl: smv was built without NCCL (set NCCL_HOME "
                  "or install libnccl-dev and rebuild)"),
        err);
  if (want == SMV_DIST_EXCHANGE_AUTO)
    path = smv_nccl_built() && D->size > 1 && a < 0 ? SMV_DIST_EXCHANGE_NCCL
                                                    : mpi_path;
  if (want == SMV_DIST_EXCHANGE_NCCL && a >= 0 && !opt->force_nccl) {
    path = mpi_path;
    snprintf(D->note, sizeof D->note,
             "NCCL not used: ranks %d and %d share one GPU, which NCCL "
             "refuses; exchanging through %s MPI instead",
             a, b, aware ? "CUDA-aware" : "host-staged");
  } else if (want == SMV_DIST_EXCHANGE_AUTO && smv_nccl_built() && a >= 0) {
    snprintf(D->note, sizeof D->note,
             "NCCL not used: ranks %d and %d share one GPU; %s MPI instead", a,
             b, aware ? "CUDA-aware" : "host-staged");
  }
  if (want == SMV_DIST_EXCHANGE_CUDA_AWARE && !aware) {
    path = SMV_DIST_EXCHANGE_HOST;
    snprintf(D->note, sizeof D->note,
             "MPI does not report CUDA support (MPIX_Query_cuda_support); "
             "host-staged MPI instead (force_cuda_aware overrides)");
  }
  /* One path for all: the most conservative any rank chose. */
  int mine = (int)path, all = 0;
  DIST_MPI(D, err, MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, D->comm));
  D->exchange = (smv_dist_exchange)all;
  if (D->exchange != SMV_DIST_EXCHANGE_NCCL)
    return SMV_OK;

  unsigned char id[SMV_NCCL_ID_BYTES];
  char msg[SMV_ERROR_TEXT] = "";
  memset(id, 0, sizeof id);
  st = D->rank == 0 ? smv_nccl_get_id(id, msg) : SMV_OK;
  if (st != SMV_OK)
    dist_fail(D, err, st, __FILE__, __LINE__, "%s", msg);
  if ((st = dist_agree(D, st, err)) != SMV_OK)
    return st;
  DIST_MPI(D, err,
           MPI_Bcast(id, SMV_NCCL_ID_BYTES, MPI_UNSIGNED_CHAR, 0, D->comm));
  st = smv_nccl_create(D->device, D->size, D->rank, id, &D->nccl, msg);
  if (st != SMV_OK)
    dist_fail(D, err, st, __FILE__, __LINE__, "rank %d: %s", D->rank, msg);
  return dist_agree(D, st, err);
}

smv_status dist_cuda_setup(smv_dist *D, const smv_dist_options *opt,
                           smv_error *err) {
  smv_status st = pick_device(D, opt, err);
  if ((st = dist_agree(D, st, err)) != SMV_OK)
    return st;
  st = upload(D, err);
  if ((st = dist_agree(D, st, err)) != SMV_OK)
    return st;
  return choose_path(D, opt, err);
}

void dist_cuda_release(smv_dist *D) {
  smv_nccl_free(D->nccl);
  D->nccl = NULL;
  if (!D->ctx)
    return;
  smv_device_free(D->ctx, D->d_send_idx);
  smv_device_free(D->ctx, D->d_send);
  smv_device_free(D->ctx, D->d_recv);
  smv_device_free(D->ctx, D->d_x);
  smv_device_free(D->ctx, D->d_y);
  smv_device_free(D->ctx, D->d_rem_rows);
  smv_device_free(D->ctx, D->d_rem_y);
  smv_matrix_free(D->dloc);
  smv_matrix_free(D->drem);
  smv_context_free(D->ctx);
  D->ctx = NULL;
}
