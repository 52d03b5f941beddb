/*
 * nccl.cu — the NCCL halo exchange (built only when the Makefile finds
 * nccl.h and libnccl): one group of ncclSend/ncclRecv on a side stream
 * that waits for the pack on the context's stream, and an event the
 * context's stream waits on before the remote block. No host wait, so the
 * local block on the context's stream overlaps the transfers.
 */
#include "dist_device.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nccl.h>

static_assert(sizeof(ncclUniqueId) == SMV_NCCL_ID_BYTES,
              "NCCL's unique id size changed");

struct smv_nccl {
  int device;
  ncclComm_t comm;
  cudaStream_t side;
  cudaEvent_t packed, done;
};

static smv_status cuda_fail(char *msg, cudaError_t e, const char *what) {
  snprintf(msg, SMV_ERROR_TEXT, "%s: %s", what, cudaGetErrorString(e));
  return SMV_ERR_CUDA;
}

static smv_status nccl_fail(char *msg, ncclResult_t r, ncclComm_t comm,
                            const char *what) {
  const char *last = comm ? ncclGetLastError(comm) : ncclGetLastError(NULL);
  snprintf(msg, SMV_ERROR_TEXT, "%s: %s%s%s", what, ncclGetErrorString(r),
           last && *last ? ": " : "", last ? last : "");
  return r == ncclInvalidUsage || r == ncclInvalidArgument ? SMV_ERR_ARG
                                                           : SMV_ERR_IO;
}

extern "C" int smv_nccl_built(void) { return 1; }

extern "C" smv_status smv_nccl_get_id(unsigned char id[SMV_NCCL_ID_BYTES],
                                      char *msg) {
  ncclUniqueId u;
  ncclResult_t r = ncclGetUniqueId(&u);
  if (r != ncclSuccess)
    return nccl_fail(msg, r, NULL, "ncclGetUniqueId");
  memcpy(id, &u, sizeof u);
  return SMV_OK;
}

extern "C" void smv_nccl_free(struct smv_nccl *h) {
  if (!h)
    return;
  if (h->comm)
    ncclCommDestroy(h->comm);
  if (h->packed)
    cudaEventDestroy(h->packed);
  if (h->done)
    cudaEventDestroy(h->done);
  if (h->side)
    cudaStreamDestroy(h->side);
  free(h);
}

/* NCCL and the side stream work on the rank's device: make it current for
 * the call and give the caller's back afterwards. */
struct device_guard {
  int prev;
  cudaError_t e;
  explicit device_guard(int dev) : prev(-1), e(cudaGetDevice(&prev)) {
    if (e == cudaSuccess && prev != dev)
      e = cudaSetDevice(dev);
  }
  ~device_guard() {
    if (prev >= 0)
      (void)cudaSetDevice(prev);
  }
};

extern "C" smv_status smv_nccl_create(int device, int nranks, int rank,
                                      const unsigned char id[SMV_NCCL_ID_BYTES],
                                      struct smv_nccl **out, char *msg) {
  *out = NULL;
  device_guard g(device);
  if (g.e != cudaSuccess)
    return cuda_fail(msg, g.e, "cudaSetDevice for NCCL");
  struct smv_nccl *h = (struct smv_nccl *)calloc(1, sizeof *h);
  if (!h) {
    snprintf(msg, SMV_ERROR_TEXT, "out of memory for the NCCL state");
    return SMV_ERR_NOMEM;
  }
  h->device = device;
  cudaError_t e = cudaStreamCreateWithFlags(&h->side, cudaStreamNonBlocking);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&h->packed, cudaEventDisableTiming);
  if (e == cudaSuccess)
    e = cudaEventCreateWithFlags(&h->done, cudaEventDisableTiming);
  if (e != cudaSuccess) {
    smv_nccl_free(h);
    return cuda_fail(msg, e, "creating the NCCL stream and events");
  }
  ncclUniqueId u;
  memcpy(&u, id, sizeof u);
  ncclResult_t r = ncclCommInitRank(&h->comm, nranks, u, rank);
  if (r != ncclSuccess) {
    h->comm = NULL;
    smv_nccl_free(h);
    return nccl_fail(msg, r, NULL, "ncclCommInitRank");
  }
  *out = h;
  return SMV_OK;
}

extern "C" smv_status
smv_nccl_start(struct smv_nccl *h, smv_context *ctx, int nsend,
               const int *send_rank, const int *send_start,
               const double *send_buf, int nrecv, const int *recv_rank,
               const int *recv_start, double *recv_buf, char *msg) {
  device_guard g(h->device);
  if (g.e != cudaSuccess)
    return cuda_fail(msg, g.e, "cudaSetDevice for NCCL");
  cudaStream_t main = (cudaStream_t)smv_context_stream(ctx);
  cudaError_t e = cudaEventRecord(h->packed, main);
  if (e == cudaSuccess)
    e = cudaStreamWaitEvent(h->side, h->packed, 0);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "ordering the NCCL stream after the pack");
  ncclResult_t r = ncclGroupStart();
  for (int k = 0; r == ncclSuccess && k < nrecv; k++)
    r = ncclRecv(recv_buf + recv_start[k],
                 (size_t)(recv_start[k + 1] - recv_start[k]), ncclDouble,
                 recv_rank[k], h->comm, h->side);
  for (int k = 0; r == ncclSuccess && k < nsend; k++)
    r = ncclSend(send_buf + send_start[k],
                 (size_t)(send_start[k + 1] - send_start[k]), ncclDouble,
                 send_rank[k], h->comm, h->side);
  ncclResult_t r2 = ncclGroupEnd(); /* always close the group */
  if (r == ncclSuccess)
    r = r2;
  if (r != ncclSuccess)
    return nccl_fail(msg, r, h->comm, "ncclSend/ncclRecv group");
  if ((e = cudaEventRecord(h->done, h->side)) != cudaSuccess)
    return cuda_fail(msg, e, "recording the end of the NCCL exchange");
  return SMV_OK;
}

extern "C" smv_status smv_nccl_finish(struct smv_nccl *h, smv_context *ctx,
                                      char *msg) {
  cudaStream_t main = (cudaStream_t)smv_context_stream(ctx);
  cudaError_t e = cudaStreamWaitEvent(main, h->done, 0);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "waiting for the NCCL exchange");
  return SMV_OK;
}
