/* nodevice.c — the GPU side of the distributed layer when smv is built
 * without CUDA: no devices, so the CUDA backend is refused at creation. */
#include "dist_device.h"

#include <stdio.h>

smv_status smv_distdev_count(int *n, char *msg) {
  *n = 0;
  snprintf(msg, SMV_ERROR_TEXT, "smv was built without CUDA");
  return SMV_OK;
}

smv_status smv_distdev_uuid(int device, unsigned char uuid[16], char *msg) {
  (void)device, (void)uuid;
  snprintf(msg, SMV_ERROR_TEXT, "smv was built without CUDA");
  return SMV_ERR_NO_DEVICE;
}

smv_status smv_distdev_scatter_add(smv_context *ctx, int device,
                                   const double *v, const int32_t *rows,
                                   int32_t n, double *y, char *msg) {
  (void)ctx, (void)device, (void)v, (void)rows, (void)n, (void)y;
  snprintf(msg, SMV_ERROR_TEXT, "smv was built without CUDA");
  return SMV_ERR_NO_DEVICE;
}

smv_status smv_distdev_pack(smv_context *ctx, int device, const double *x,
                            const int32_t *idx, int32_t n, double *out,
                            char *msg) {
  (void)ctx, (void)device, (void)x, (void)idx, (void)n, (void)out;
  snprintf(msg, SMV_ERROR_TEXT, "smv was built without CUDA");
  return SMV_ERR_NO_DEVICE;
}
