/* nonccl.c — the NCCL exchange when smv is built without NCCL: never
 * chosen by AUTO, and refused when asked for by name. */
#include "dist_device.h"

#include <stdio.h>

#define NO_NCCL "smv was built without NCCL"

int smv_nccl_built(void) { return 0; }

smv_status smv_nccl_get_id(unsigned char id[SMV_NCCL_ID_BYTES], char *msg) {
  (void)id;
  snprintf(msg, SMV_ERROR_TEXT, NO_NCCL);
  return SMV_ERR_UNSUPPORTED;
}

smv_status smv_nccl_create(int device, int nranks, int rank,
                           const unsigned char id[SMV_NCCL_ID_BYTES],
                           struct smv_nccl **h, char *msg) {
  (void)device, (void)nranks, (void)rank, (void)id;
  *h = NULL;
  snprintf(msg, SMV_ERROR_TEXT, NO_NCCL);
  return SMV_ERR_UNSUPPORTED;
}

smv_status smv_nccl_start(struct smv_nccl *h, smv_context *ctx, int nsend,
                          const int *send_rank, const int *send_start,
                          const double *send_buf, int nrecv,
                          const int *recv_rank, const int *recv_start,
                          double *recv_buf, char *msg) {
  (void)h, (void)ctx, (void)nsend, (void)send_rank, (void)send_start;
  (void)send_buf, (void)nrecv, (void)recv_rank, (void)recv_start;
  (void)recv_buf;
  snprintf(msg, SMV_ERROR_TEXT, NO_NCCL);
  return SMV_ERR_UNSUPPORTED;
}

smv_status smv_nccl_finish(struct smv_nccl *h, smv_context *ctx, char *msg) {
  (void)h, (void)ctx;
  snprintf(msg, SMV_ERROR_TEXT, NO_NCCL);
  return SMV_ERR_UNSUPPORTED;
}

void smv_nccl_free(struct smv_nccl *h) { (void)h; }
