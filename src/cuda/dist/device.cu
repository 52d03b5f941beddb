/*
 * device.cu — the GPU side of the distributed layer (src/dist): device
 * count and UUID (to find ranks sharing a GPU) and the halo pack
 * out[k] = x[idx[k]], a gather of 12 bytes read + 8 written per entry.
 */
#include "dist_device.h"

#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static smv_status cuda_fail(char *msg, cudaError_t e, const char *what) {
  snprintf(msg, SMV_ERROR_TEXT, "%s: %s (%s)", what, cudaGetErrorString(e),
           cudaGetErrorName(e));
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver
             ? SMV_ERR_NO_DEVICE
             : SMV_ERR_CUDA;
}

extern "C" smv_status smv_distdev_count(int *n, char *msg) {
  *n = 0;
  cudaError_t e = cudaGetDeviceCount(n);
  if (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver) {
    *n = 0;
    snprintf(msg, SMV_ERROR_TEXT, "%s", cudaGetErrorString(e));
    cudaGetLastError(); /* not sticky: clear it */
    return SMV_OK;
  }
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "cudaGetDeviceCount");
  return SMV_OK;
}

extern "C" smv_status smv_distdev_uuid(int device, unsigned char uuid[16],
                                       char *msg) {
  cudaDeviceProp p;
  cudaError_t e = cudaGetDeviceProperties(&p, device);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "cudaGetDeviceProperties");
  memcpy(uuid, p.uuid.bytes, 16);
  return SMV_OK;
}

/* The two index moves of a product: the halo pack b[k] = a[idx[k]]
 * (12 bytes read + 8 written per entry) and the remote rows' add
 * b[idx[k]] += a[k] (indices distinct: no race). */
__global__ void index_move(const double *__restrict__ a,
                           const int32_t *__restrict__ idx, int32_t n,
                           double *__restrict__ b, int add) {
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n)
    return;
  if (add)
    b[idx[k]] += a[k];
  else
    b[k] = a[idx[k]];
}

/* Launch on the context's stream and device, then give the caller's
 * device back. */
static smv_status index_launch(smv_context *ctx, int device, const double *a,
                               const int32_t *idx, int32_t n, double *b,
                               int add, char *msg) {
  if (n <= 0)
    return SMV_OK;
  const char *what = add ? "remote rows add" : "halo pack";
  int prev = -1;
  cudaError_t e = cudaGetDevice(&prev);
  if (e == cudaSuccess && prev != device)
    e = cudaSetDevice(device);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, what);
  cudaStream_t s = (cudaStream_t)smv_context_stream(ctx);
  index_move<<<(n + 255) / 256, 256, 0, s>>>(a, idx, n, b, add);
  e = cudaGetLastError();
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, what);
  return SMV_OK;
}

extern "C" smv_status smv_distdev_scatter_add(smv_context *ctx, int device,
                                              const double *v,
                                              const int32_t *rows, int32_t n,
                                              double *y, char *msg) {
  return index_launch(ctx, device, v, rows, n, y, 1, msg);
}

extern "C" smv_status smv_distdev_pack(smv_context *ctx, int device,
                                       const double *x, const int32_t *idx,
                                       int32_t n, double *out, char *msg) {
  return index_launch(ctx, device, x, idx, n, out, 0, msg);
}
