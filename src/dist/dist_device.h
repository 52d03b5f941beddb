/*
 * dist_device.h — what the distributed layer asks of the GPU, as plain C
 * declarations (src/dist stays free of CUDA headers). Implemented in
 * src/cuda/dist/device.cu (and nccl.cu when smv is built with NCCL), or by
 * src/dist/nodevice.c without CUDA. Each returns SMV_OK or an error, with
 * the reason in msg (SMV_ERROR_TEXT bytes).
 */
#ifndef SMV_DIST_DEVICE_H
#define SMV_DIST_DEVICE_H

#include "smv.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices (0 without CUDA). */
smv_status smv_distdev_count(int *n, char *msg);
/* 16-byte UUID of a device, to tell ranks sharing a GPU apart. */
smv_status smv_distdev_uuid(int device, unsigned char uuid[16], char *msg);
/* out[k] = x[idx[k]] for k < n, asynchronously on the context's stream. */
smv_status smv_distdev_pack(smv_context *ctx, int device, const double *x,
                            const int32_t *idx, int32_t n, double *out,
                            char *msg);

/* y[rows[k]] += v[k] for k < n, asynchronously on the context's stream
 * (the remote block's compressed rows added into y). */
smv_status smv_distdev_scatter_add(smv_context *ctx, int device,
                                   const double *v, const int32_t *rows,
                                   int32_t n, double *y, char *msg);

/* NCCL (only when built with it: smv_nccl_built() says so). */
struct smv_nccl;
int smv_nccl_built(void);
#define SMV_NCCL_ID_BYTES 128
/* Rank 0 makes the unique id; every rank then joins with it. */
smv_status smv_nccl_get_id(unsigned char id[SMV_NCCL_ID_BYTES], char *msg);
smv_status smv_nccl_create(int device, int nranks, int rank,
                           const unsigned char id[SMV_NCCL_ID_BYTES],
                           struct smv_nccl **h, char *msg);
/* Start the halo: after the work already on the context's stream (the
 * pack), a side stream sends send_buf blocks and receives recv_buf blocks
 * in one NCCL group. */
smv_status smv_nccl_start(struct smv_nccl *h, smv_context *ctx, int nsend,
                          const int *send_rank, const int *send_start,
                          const double *send_buf, int nrecv,
                          const int *recv_rank, const int *recv_start,
                          double *recv_buf, char *msg);
/* Make the context's stream wait for the halo (no host wait). */
smv_status smv_nccl_finish(struct smv_nccl *h, smv_context *ctx, char *msg);
void smv_nccl_free(struct smv_nccl *h);

#ifdef __cplusplus
}
#endif

#endif
