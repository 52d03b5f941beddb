/*
 * device.cu — the GPU side of the distributed layer (src/dist): device
 * count and UUID (to find ranks sharing a GPU) and the halo pack
 * out[k] = x[idx[k]], a gather of 12 bytes read + 8 written per entry.
 */
#include "../../dist/dist_device.h"

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

/* Launch on the context's device; *prev gets the caller's, to give back. */
static cudaError_t use_device(int device, int *prev) {
  cudaError_t e = cudaGetDevice(prev);
  if (e == cudaSuccess && *prev != device)
    e = cudaSetDevice(device);
  return e;
}

__global__ void halo_pack(const double *__restrict__ x,
                          const int32_t *__restrict__ idx, int32_t n,
                          double *__restrict__ out) {
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    out[k] = x[idx[k]];
}

__global__ void rows_add(const double *__restrict__ v,
                         const int32_t *__restrict__ rows, int32_t n,
                         double *__restrict__ y) {
  int32_t k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n)
    y[rows[k]] += v[k]; /* rows are distinct: no race */
}

extern "C" smv_status smv_distdev_scatter_add(smv_context *ctx, int device,
                                              const double *v,
                                              const int32_t *rows, int32_t n,
                                              double *y, char *msg) {
  if (n <= 0)
    return SMV_OK;
  int prev = -1;
  cudaError_t e = use_device(device, &prev);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "cudaSetDevice for the remote rows");
  cudaStream_t s = (cudaStream_t)smv_context_stream(ctx);
  rows_add<<<(n + 255) / 256, 256, 0, s>>>(v, rows, n, y);
  e = cudaGetLastError();
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "remote rows kernel launch");
  return SMV_OK;
}

extern "C" smv_status smv_distdev_pack(smv_context *ctx, int device,
                                       const double *x, const int32_t *idx,
                                       int32_t n, double *out, char *msg) {
  if (n <= 0)
    return SMV_OK;
  int prev = -1;
  cudaError_t e = use_device(device, &prev);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "cudaSetDevice for the halo pack");
  cudaStream_t s = (cudaStream_t)smv_context_stream(ctx);
  halo_pack<<<(n + 255) / 256, 256, 0, s>>>(x, idx, n, out);
  e = cudaGetLastError();
  if (prev >= 0 && prev != device)
    (void)cudaSetDevice(prev);
  if (e != cudaSuccess)
    return cuda_fail(msg, e, "halo pack kernel launch");
  return SMV_OK;
}
