/*
 * five_streams.cu — what bandwidth five sequential streams of 4-byte (or
 * 8-byte) elements reach on this GPU: the shape of an SpMV with one entry
 * per row (row offsets, column indices, values, x at the same index, y),
 * one row per thread with scalar loads, without the offsets, and four
 * rows per thread with 16-byte loads; beside a 16-byte copy. It is what
 * rung 9's one-entry-per-row kernel (issue 8) was built from: scalar
 * streams stop near 80% of the bench's copy bandwidth. n = 12M elements; CUDA
 * events, median of 30 after 3 warm-ups. Values are small dyadic
 * fractions, so every product is exact: y is poisoned (NaN) before each
 * variant and every element checked after its timed runs; a mismatch
 * prints FAIL and the exit status is 1.
 *
 *   build/experiments/five_streams
 */
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e = (x);                                                       \
    if (e != cudaSuccess) {                                                    \
      printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e));         \
      return 1;                                                                \
    }                                                                          \
  } while (0)

template <typename T>
__global__ void copy1(long n, const T *__restrict__ a, T *__restrict__ y) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    y[i] = a[i];
}
__global__ void copy4(long n4, const float4 *__restrict__ a,
                      float4 *__restrict__ y) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n4;
       i += (long)gridDim.x * blockDim.x)
    y[i] = a[i];
}
// diag SpMV shape: rp (n+1), c, v, x, y; one row per thread
template <typename T>
__global__ void diag1(long n, const int *__restrict__ rp,
                      const int *__restrict__ c, const T *__restrict__ v,
                      const T *__restrict__ x, T *__restrict__ y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int b = __ldg(&rp[i]), e = __ldg(&rp[i + 1]);
  T s = 0;
  if (b < e)
    s = __ldg(&v[b]) * __ldg(&x[__ldg(&c[b])]);
  y[i] = s;
}
// no row pointer: 4 streams (c, v, x, y)
template <typename T>
__global__ void diag_norp(long n, const int *__restrict__ c,
                          const T *__restrict__ v, const T *__restrict__ x,
                          T *__restrict__ y) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  y[i] = __ldg(&v[i]) * __ldg(&x[__ldg(&c[i])]);
}
// 4 rows per thread, 16-byte loads where aligned (here always)
__global__ void diag4f(long n, const int *__restrict__ rp,
                       const int *__restrict__ c, const float *__restrict__ v,
                       const float *__restrict__ x, float *__restrict__ y) {
  long t = blockIdx.x * (long)blockDim.x + threadIdx.x;
  long i = 4 * t;
  if (i + 4 > n)
    return;
  int4 r = __ldg((const int4 *)&rp[i]);
  int4 cc = __ldg((const int4 *)&c[r.x]);
  float4 vv = __ldg((const float4 *)&v[r.x]);
  float4 o;
  o.x = vv.x * __ldg(&x[cc.x]);
  o.y = vv.y * __ldg(&x[cc.y]);
  o.z = vv.z * __ldg(&x[cc.z]);
  o.w = vv.w * __ldg(&x[cc.w]);
  *(float4 *)&y[i] = o;
}

template <typename F> float timeit(F f) {
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < 3; i++)
    f();
  std::vector<float> t;
  for (int r = 0; r < 30; r++) {
    cudaEventRecord(a);
    f();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[15];
}

/* Poison y (NaN), time f, then check every y[i] == v[i] (* x[i] when
 * `product`); a mismatch or a CUDA error prints FAIL and sets *failed. */
template <typename T, typename F>
static float run_checked(T *y, const std::vector<T> &hv,
                         const std::vector<T> &hx, bool product, long n,
                         int *failed, F f) {
  std::vector<T> hy(n);
  cudaError_t e = cudaMemset(y, 0xff, n * sizeof(T));
  const float ms = e == cudaSuccess ? timeit(f) : 0.0f;
  if (e == cudaSuccess)
    e = cudaMemcpy(hy.data(), y, n * sizeof(T), cudaMemcpyDeviceToHost);
  long bad = 0;
  for (long i = 0; e == cudaSuccess && i < n; i++)
    bad += !(hy[i] == (product ? hv[i] * hx[i] : hv[i]));
  if (e != cudaSuccess || bad) {
    printf("FAIL: %s, %ld of %ld elements wrong\n", cudaGetErrorString(e), bad,
           n);
    *failed = 1;
  }
  return ms;
}

int main() {
  const long n = 12000000;
  cudaDeviceProp p;
  cudaGetDeviceProperties(&p, 0);
  printf("device %s\n", p.name);
  int *rp, *c;
  float *vf, *xf, *yf;
  double *vd, *xd, *yd;
  CK(cudaMalloc(&rp, (n + 1) * 4));
  CK(cudaMalloc(&c, n * 4));
  CK(cudaMalloc(&vf, n * 4));
  CK(cudaMalloc(&xf, n * 4));
  CK(cudaMalloc(&yf, n * 4));
  CK(cudaMalloc(&vd, n * 8));
  CK(cudaMalloc(&xd, n * 8));
  CK(cudaMalloc(&yd, n * 8));
  std::vector<int> h(n + 1);
  for (long i = 0; i <= n; i++)
    h[i] = (int)i;
  CK(cudaMemcpy(rp, h.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(c, h.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<float> hvf(n), hxf(n);
  std::vector<double> hvd(n), hxd(n);
  for (long i = 0; i < n; i++) {
    hvd[i] = hvf[i] = 1.0f + 0.25f * (float)(i % 7);
    hxd[i] = hxf[i] = 0.5f + 0.125f * (float)(i % 5);
  }
  CK(cudaMemcpy(vf, hvf.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(xf, hxf.data(), n * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(vd, hvd.data(), n * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(xd, hxd.data(), n * 8, cudaMemcpyHostToDevice));
  int failed = 0;
  int B = 256;
  unsigned g = (unsigned)((n + B - 1) / B);
  float t;
  t = run_checked(yd, hvd, hxd, false, n, &failed, [&] {
    copy4<<<132 * 16, 256>>>(n * 2 / 4, (const float4 *)vd, (float4 *)yd);
  });
  double copybw = 2.0 * n * 8 / t / 1e6;
  printf("copy float4 (2 x 96 MB): %.1f us %.0f GB/s\n", t * 1e3, copybw);
  t = run_checked(yf, hvf, hxf, false, n, &failed,
                  [&] { copy1<float><<<g, B>>>(n, vf, yf); });
  printf("copy f32 scalar: %.1f us %.0f GB/s\n", t * 1e3,
         2.0 * n * 4 / t / 1e6);
  t = run_checked(yd, hvd, hxd, false, n, &failed,
                  [&] { copy1<double><<<g, B>>>(n, vd, yd); });
  printf("copy f64 scalar: %.1f us %.0f GB/s\n", t * 1e3,
         2.0 * n * 8 / t / 1e6);
  for (int BB : {128, 256, 512}) {
    unsigned gg = (unsigned)((n + BB - 1) / BB);
    t = run_checked(yf, hvf, hxf, true, n, &failed,
                    [&] { diag1<float><<<gg, BB>>>(n, rp, c, vf, xf, yf); });
    printf("diag f32 5 streams B=%d: %.1f us %.0f GB/s %.1f%% of copy\n", BB,
           t * 1e3, 20.0 * n / t / 1e6, 100 * 20.0 * n / t / 1e6 / copybw);
    t = run_checked(yd, hvd, hxd, true, n, &failed,
                    [&] { diag1<double><<<gg, BB>>>(n, rp, c, vd, xd, yd); });
    printf("diag f64 5 streams B=%d: %.1f us %.0f GB/s %.1f%% of copy\n", BB,
           t * 1e3, 32.0 * n / t / 1e6, 100 * 32.0 * n / t / 1e6 / copybw);
    t = run_checked(yf, hvf, hxf, true, n, &failed,
                    [&] { diag_norp<float><<<gg, BB>>>(n, c, vf, xf, yf); });
    printf(
        "diag f32 4 streams (no rp) B=%d: %.1f us %.0f GB/s %.1f%% of copy\n",
        BB, t * 1e3, 16.0 * n / t / 1e6, 100 * 16.0 * n / t / 1e6 / copybw);
    unsigned g4 = (unsigned)((n / 4 + BB - 1) / BB);
    t = run_checked(yf, hvf, hxf, true, n, &failed,
                    [&] { diag4f<<<g4, BB>>>(n, rp, c, vf, xf, yf); });
    printf(
        "diag f32 5 streams x4 vector B=%d: %.1f us %.0f GB/s %.1f%% of copy\n",
        BB, t * 1e3, 20.0 * n / t / 1e6, 100 * 20.0 * n / t / 1e6 / copybw);
  }
  CK(cudaGetLastError());
  printf("%s\n", failed ? "FAIL" : "all results verified");
  return failed;
}
