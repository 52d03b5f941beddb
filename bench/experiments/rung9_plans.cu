/*
 * rung9_plans.cu — the sweep behind rung 9's one-round plan (issue 8):
 * a copy of rung 9's kernel with its plan as parameters (lanes L, unroll
 * U, block B, threshold, long-row strategy: chunks only / warp then block
 * / block up to two rounds then chunks), each variant checked against the
 * serial reference and then timed in CUDA graphs of 50 SpMVs (median of
 * 15 replays), beside the library's rungs 9, 10 and cuSPARSE ALG1 timed
 * the same way; and a rows-per-thread ILP kernel on large short-row
 * matrices (L2-warm, CUDA events, median of 30).
 *
 *   build/experiments/rung9_plans graph MATRIX...   (CSV on stdout)
 *   R9X_B=1 build/experiments/rung9_plans graph MATRIX...  (block sizes)
 *   build/experiments/rung9_plans big SPEC...
 *
 * CSV (graph): matrix, precision, what (lib9 / alg1 / lib10 / var), L, U,
 * B, threshold, warp max, block-row max, block rows, us per SpMV, worst
 * error / bound. Results and the rule drawn from them:
 * bench/results/h100-80gb-hbm3/raw/rung9-plans/ and suite.md. An
 * experiment, not the library: it exits on the first CUDA error.
 */
#include "smv.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <string>
#include <vector>

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                        \
              cudaGetErrorString(e_));                                         \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)
#define FULL 0xffffffffu

template <typename T>
__device__ __forceinline__ T comb(T a, T s, T b, const T *y) {
  return b == T(0) ? a * s : a * s + b * *y;
}

// Rounds of U loads, stride STEP (compile time or runtime).
template <typename T, int U>
__device__ __forceinline__ T sdot(unsigned k, unsigned end, unsigned step,
                                  const int *__restrict__ col,
                                  const T *__restrict__ val,
                                  const T *__restrict__ x) {
  T sum = T(0);
  for (; k < end; k += U * step) {
    int c[U];
    T v[U], xv[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      bool p = k + u * step < end;
      c[u] = p ? __ldg(&col[k + u * step]) : 0;
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      bool p = k + u * step < end;
      v[u] = p ? __ldg(&val[k + u * step]) : T(0);
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      bool p = k + u * step < end;
      xv[u] = p ? __ldg(&x[c[u]]) : T(0);
    }
#pragma unroll
    for (int u = 0; u < U; u++)
      sum += v[u] * xv[u];
  }
  return sum;
}

struct Plan {
  int L, U, B;
  unsigned thr;  // row groups keep len <= thr
  unsigned bmax; // (thr, bmax] and > wmax -> block rows
  unsigned wmax; // (thr, wmax] -> one warp chunk
  unsigned CH;   // chunk entries for multi-chunk warps
};

struct Dev {
  int nbrows = 0;
  int *brows = nullptr;
  long nchunks = 0;
  int2 *chunks = nullptr;
  void *partial = nullptr;
  unsigned *count = nullptr;
};

template <typename T, int L, int U>
__global__ void
kvar(int rows, const int *__restrict__ rp, const int *__restrict__ ci,
     const T *__restrict__ va, const T *__restrict__ x, T alpha, T beta,
     T *__restrict__ y, unsigned thr, unsigned CH, int nbrows,
     const int *__restrict__ brows, unsigned chunk_blocks, long nchunks,
     const int2 *__restrict__ chunks, T *partial, unsigned *count) {
  __shared__ T red[32];
  if ((int)blockIdx.x < nbrows) {
    const int row = brows[blockIdx.x];
    const unsigned b = rp[row], e = rp[row + 1];
    T s = sdot<T, U>(b + threadIdx.x, e, blockDim.x, ci, va, x);
    for (int o = 16; o > 0; o >>= 1)
      s += __shfl_xor_sync(FULL, s, o);
    if ((threadIdx.x & 31) == 0)
      red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
      const unsigned nw = blockDim.x >> 5;
      T t = threadIdx.x < nw ? red[threadIdx.x] : T(0);
      for (int o = 16; o > 0; o >>= 1)
        t += __shfl_xor_sync(FULL, t, o);
      if (threadIdx.x == 0)
        y[row] = comb(alpha, t, beta, &y[row]);
    }
    return;
  }
  const unsigned bid = blockIdx.x - nbrows;
  if (bid < chunk_blocks) {
    const unsigned lane = threadIdx.x & 31u;
    const long nwarps = ((long)chunk_blocks * blockDim.x) >> 5;
    for (long c = ((long)bid * blockDim.x + threadIdx.x) >> 5; c < nchunks;
         c += nwarps) {
      const int2 ch = chunks[c];
      const int row = ch.x;
      const unsigned first = ch.y;
      const unsigned rb = rp[row], re = rp[row + 1];
      const unsigned end = re - first < CH ? re : first + CH;
      T sum = sdot<T, U>(first + lane, end, 32, ci, va, x);
      for (int o = 16; o > 0; o >>= 1)
        sum += __shfl_xor_sync(FULL, sum, o);
      const unsigned n = (re - rb + CH - 1) / CH;
      if (n == 1) {
        if (lane == 0)
          y[row] = comb(alpha, sum, beta, &y[row]);
        continue;
      }
      const long c0 = c - (long)((first - rb) / CH);
      unsigned last = 0;
      if (lane == 0) {
        partial[c] = sum;
        __threadfence();
        last = atomicAdd(&count[c0], 1u) == n - 1;
      }
      last = __shfl_sync(FULL, last, 0);
      if (!last)
        continue;
      __threadfence();
      __syncwarp();
      T tot = T(0);
      for (unsigned i = lane; i < n; i += 32)
        tot += __ldcg(&partial[c0 + i]);
      for (int o = 16; o > 0; o >>= 1)
        tot += __shfl_xor_sync(FULL, tot, o);
      if (lane == 0) {
        y[row] = comb(alpha, tot, beta, &y[row]);
        count[c0] = 0;
      }
    }
    return;
  }
  const unsigned lane = threadIdx.x & (L - 1);
  const unsigned mask = L == 32 ? FULL
                                : ((1u << (L & 31)) - 1u)
                                      << ((threadIdx.x & 31u) & ~(L - 1u));
  const long tid = (long)(bid - chunk_blocks) * blockDim.x + threadIdx.x;
  const long ng = ((long)(gridDim.x - nbrows - chunk_blocks) * blockDim.x) / L;
  for (long row = tid / L; row < rows; row += ng) {
    const unsigned b = rp[row], e = rp[row + 1];
    if (e - b > thr)
      continue;
    T s = sdot<T, U>(b + lane, e, L, ci, va, x);
    for (int o = L / 2; o > 0; o >>= 1)
      s += __shfl_xor_sync(mask, s, o);
    if (lane == 0)
      y[row] = comb(alpha, s, beta, &y[row]);
  }
}

// Rows-per-thread ILP (L = 1): thread t takes rows t, t+T, ..., R rows;
// every row's first round of U slots is issued for all R rows before any
// multiply.
template <typename T, int R, int U>
__global__ void krows(int rows, const int *__restrict__ rp,
                      const int *__restrict__ ci, const T *__restrict__ va,
                      const T *__restrict__ x, T alpha, T beta,
                      T *__restrict__ y) {
  const long T0 = (long)gridDim.x * blockDim.x;
  for (long base = (long)blockIdx.x * blockDim.x + threadIdx.x; base < rows;
       base += T0 * R) {
    unsigned b[R], e[R];
#pragma unroll
    for (int r = 0; r < R; r++) {
      long row = base + r * T0;
      b[r] = row < rows ? __ldg(&rp[row]) : 0;
      e[r] = row < rows ? __ldg(&rp[row + 1]) : 0;
    }
    int c[R][U];
    T v[R][U], xv[R][U];
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int u = 0; u < U; u++)
        c[r][u] = b[r] + u < e[r] ? __ldg(&ci[b[r] + u]) : 0;
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int u = 0; u < U; u++)
        v[r][u] = b[r] + u < e[r] ? __ldg(&va[b[r] + u]) : T(0);
#pragma unroll
    for (int r = 0; r < R; r++)
#pragma unroll
      for (int u = 0; u < U; u++)
        xv[r][u] = b[r] + u < e[r] ? __ldg(&x[c[r][u]]) : T(0);
#pragma unroll
    for (int r = 0; r < R; r++) {
      T s = T(0);
#pragma unroll
      for (int u = 0; u < U; u++)
        s += v[r][u] * xv[r][u];
      if (b[r] + U < e[r])
        s += sdot<T, 4>(b[r] + U, e[r], 1, ci, va, x);
      long row = base + r * T0;
      if (row < rows)
        y[row] = comb(alpha, s, beta, &y[row]);
    }
  }
}

// --------------------------------------------------------------------------
static std::vector<int> H_rp, H_ci;
static int ROWS, COLS;

static void build(const Plan &p, Dev &d, int elem) {
  std::vector<int> br;
  std::vector<int2> ch;
  for (int i = 0; i < ROWS; i++) {
    unsigned len = H_rp[i + 1] - H_rp[i];
    if (len <= p.thr)
      continue;
    if (len > p.wmax && len <= p.bmax)
      br.push_back(i);
    else if (len <= p.wmax)
      ch.push_back(make_int2(i, H_rp[i]));
    else
      for (int k = H_rp[i]; k < H_rp[i + 1]; k += p.CH)
        ch.push_back(make_int2(i, k));
  }
  d.nbrows = (int)br.size();
  d.nchunks = (long)ch.size();
  if (!br.empty()) {
    CK(cudaMalloc(&d.brows, br.size() * 4));
    CK(cudaMemcpy(d.brows, br.data(), br.size() * 4, cudaMemcpyHostToDevice));
  }
  if (!ch.empty()) {
    CK(cudaMalloc(&d.chunks, ch.size() * 8));
    CK(cudaMemcpy(d.chunks, ch.data(), ch.size() * 8, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&d.partial, ch.size() * elem));
    CK(cudaMalloc(&d.count, ch.size() * 4));
    CK(cudaMemset(d.count, 0, ch.size() * 4));
  }
}
static void unbuild(Dev &d) {
  cudaFree(d.brows);
  cudaFree(d.chunks);
  cudaFree(d.partial);
  cudaFree(d.count);
  d = Dev();
}

template <typename T, int L, int U>
static void launchL(const Plan &p, const Dev &d, const int *rp, const int *ci,
                    const T *va, const T *x, T *y, cudaStream_t s) {
  /* R9X_CARVEOUT=N: the kernel's preferred shared-memory carveout (% of
   * the unified L1/shared space; 0 = as much L1 as possible). */
  static bool carved = false;
  if (!carved && getenv("R9X_CARVEOUT")) {
    CK(cudaFuncSetAttribute(kvar<T, L, U>,
                            cudaFuncAttributePreferredSharedMemoryCarveout,
                            atoi(getenv("R9X_CARVEOUT"))));
    carved = true;
  }
  unsigned cb = d.nchunks ? (unsigned)((d.nchunks * 32 + p.B - 1) / p.B) : 0;
  long rb = ((long)ROWS * L + p.B - 1) / p.B;
  kvar<T, L, U><<<d.nbrows + cb + rb, p.B, 0, s>>>(
      ROWS, rp, ci, va, x, T(1), T(0), y, p.thr, p.CH, d.nbrows, d.brows, cb,
      d.nchunks, d.chunks, (T *)d.partial, d.count);
}
template <typename T, int U>
static void launchU(const Plan &p, const Dev &d, const int *rp, const int *ci,
                    const T *va, const T *x, T *y, cudaStream_t s) {
  switch (p.L) {
  case 1:
    return launchL<T, 1, U>(p, d, rp, ci, va, x, y, s);
  case 2:
    return launchL<T, 2, U>(p, d, rp, ci, va, x, y, s);
  case 4:
    return launchL<T, 4, U>(p, d, rp, ci, va, x, y, s);
  case 8:
    return launchL<T, 8, U>(p, d, rp, ci, va, x, y, s);
  case 16:
    return launchL<T, 16, U>(p, d, rp, ci, va, x, y, s);
  default:
    return launchL<T, 32, U>(p, d, rp, ci, va, x, y, s);
  }
}
template <typename T>
static void launch(const Plan &p, const Dev &d, const int *rp, const int *ci,
                   const T *va, const T *x, T *y, cudaStream_t s) {
  if (p.U == 2)
    launchU<T, 2>(p, d, rp, ci, va, x, y, s);
  else if (p.U == 4)
    launchU<T, 4>(p, d, rp, ci, va, x, y, s);
  else
    launchU<T, 8>(p, d, rp, ci, va, x, y, s);
}

template <typename F>
static double time_graph(cudaStream_t s, F f, int batch = 50, int reps = 15) {
  for (int i = 0; i < 3; i++)
    f();
  CK(cudaStreamSynchronize(s));
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < batch; i++)
    f();
  CK(cudaStreamEndCapture(s, &g));
  CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaEventRecord(a, s));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2)
      t.push_back(ms * 1000.0 / batch);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  cudaGraphExecDestroy(ge);
  cudaGraphDestroy(g);
  return t[t.size() / 2];
}
template <typename F>
static double time_warm(cudaStream_t s, F f, int reps = 30) {
  for (int i = 0; i < 3; i++)
    f();
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<double> t;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(a, s));
    f();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms * 1000.0);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return t[t.size() / 2];
}

template <typename T> struct Mat {
  int *rp, *ci;
  T *va, *x, *y;
  std::vector<double> ref, absax;
};

template <typename T> static double verify(const Mat<T> &M, cudaStream_t s) {
  CK(cudaStreamSynchronize(s));
  std::vector<T> h(ROWS);
  CK(cudaMemcpy(h.data(), M.y, ROWS * sizeof(T), cudaMemcpyDeviceToHost));
  const double eps = sizeof(T) == 8 ? 1.1e-16 : 6e-8;
  double worst = 0;
  for (int i = 0; i < ROWS; i++) {
    int len = H_rp[i + 1] - H_rp[i];
    double bound = (len + 2) * eps * M.absax[i] + 1e-300;
    double r = std::fabs((double)h[i] - M.ref[i]) / bound;
    if (!(r <= worst))
      worst = std::isnan(r) ? 1e30 : r;
  }
  return worst;
}

template <typename T> static void poison(const Mat<T> &M) {
  CK(cudaMemset(M.y, 0xff, ROWS * sizeof(T))); // NaN
}

/* Poison y, run f once and check it against the reference, then time it
 * (in graphs or L2-warm); returns the worst error / bound. */
template <typename T, typename F>
static double check_then_time(Mat<T> &M, cudaStream_t s, F f, bool graph,
                              double *t) {
  poison(M);
  f();
  CK(cudaGetLastError());
  const double err = verify(M, s);
  *t = graph ? time_graph(s, f) : time_warm(s, f);
  return err;
}

/* x (fixed xorshift stream, values in [0.5, 1.5)), the reference with the
 * precision's rounded values (serial, or the CPU path for large ones),
 * and the device copies. */
template <typename T>
static void setup(Mat<T> &M, const smv_csr *A, bool serial_ref) {
  size_t nnz = A->nnz;
  std::vector<T> hv(nnz), hx(COLS);
  for (size_t k = 0; k < nnz; k++)
    hv[k] = (T)A->values[k];
  uint64_t st = 88172645463325252ull;
  std::vector<double> xd(COLS);
  for (int j = 0; j < COLS; j++) {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    hx[j] = (T)(0.5 + (double)(st >> 11) * 0x1p-53);
    xd[j] = (double)hx[j];
  }
  // the reference uses the rounded values too
  smv_csr *Ar = nullptr;
  smv_csr_copy(A, &Ar);
  for (size_t k = 0; k < nnz; k++)
    Ar->values[k] = (double)hv[k];
  M.ref.assign(ROWS, 0);
  M.absax.assign(ROWS, 0);
  if (serial_ref)
    smv_spmv_ref(Ar, 1.0, xd.data(), 0.0, M.ref.data());
  else
    smv_spmv_cpu(Ar, 1.0, xd.data(), 0.0, M.ref.data());
  smv_spmv_ref_abs(Ar, xd.data(), M.absax.data());
  smv_csr_free(Ar);
  CK(cudaMalloc(&M.rp, (ROWS + 1) * 4));
  CK(cudaMalloc(&M.ci, nnz * 4 + 4));
  CK(cudaMalloc(&M.va, nnz * sizeof(T) + 8));
  CK(cudaMalloc(&M.x, COLS * sizeof(T)));
  CK(cudaMalloc(&M.y, ROWS * sizeof(T)));
  CK(cudaMemcpy(M.rp, A->row_ptr, (ROWS + 1) * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(M.ci, A->col_idx, nnz * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(M.va, hv.data(), nnz * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(M.x, hx.data(), COLS * sizeof(T), cudaMemcpyHostToDevice));
}

/* The library's rungs 9 and 10 and cuSPARSE ALG1, verified, then timed
 * in graphs (graph) or L2-warm (else, with GB/s). */
template <typename T>
static void lib_rungs(Mat<T> &M, const smv_csr *A, smv_context *ctx,
                      const char *name, const char *prec, bool graph,
                      double bytes) {
  cudaStream_t s = (cudaStream_t)smv_context_stream(ctx);
  smv_matrix *dA;
  if (smv_matrix_create(ctx, A, sizeof(T) == 8 ? SMV_F64 : SMV_F32, &dA)) {
    fprintf(stderr, "create: %s\n", smv_context_error(ctx));
    exit(1);
  }
  const smv_alg algs[3] = {SMV_ALG_ADAPTIVE, SMV_ALG_CUSPARSE_ALG1,
                           SMV_ALG_TILED};
  const char *an[3] = {"lib9", "alg1", "lib10"};
  for (int a = 0; a < 3; a++) {
    auto f = [&] { smv_spmv(ctx, algs[a], 1.0, dA, M.x, 0.0, M.y); };
    f(); // prepares a cuSPARSE rung outside the capture
    double t;
    const double err = check_then_time(M, s, f, graph, &t);
    if (graph)
      printf("%s,%s,%s,0,0,0,0,0,0,0,%.3f,%.2f\n", name, prec, an[a], t, err);
    else
      printf("%s,%s,%s,0,0,0,%.2f,%.1f,%.2f\n", name, prec, an[a], t,
             bytes / t / 1e3, err);
  }
  smv_matrix_free(dA);
}

template <typename T> static void release(Mat<T> &M) {
  cudaFree(M.rp);
  cudaFree(M.ci);
  cudaFree(M.va);
  cudaFree(M.x);
  cudaFree(M.y);
}

/* One plan variant: lists built and uploaded, checked, timed in graphs,
 * checked again after the graph runs (the counters must be back at 0),
 * one CSV line. */
template <typename T>
static void time_variant(Mat<T> &M, const Plan &p, const char *name,
                         const char *prec, cudaStream_t s) {
  Dev d;
  build(p, d, sizeof(T));
  auto f = [&] { launch<T>(p, d, M.rp, M.ci, M.va, M.x, M.y, s); };
  double tg;
  double err = check_then_time(M, s, f, true, &tg);
  poison(M);
  f();
  err = std::max(err, verify(M, s));
  printf("%s,%s,var,%d,%d,%d,%u,%u,%u,%d,%.3f,%.2f\n", name, prec, p.L, p.U,
         p.B, p.thr, p.wmax, p.bmax, d.nbrows, tg, err);
  unbuild(d);
}

/* strategy 0: every long row in chunks; 1: rows up to one warp round to
 * a warp, longer ones to a block; 2: a block up to two block rounds,
 * longer ones in chunks. With R9X_B set: the one-round plan's shape
 * (strategy 2, block rows up to 2048) at block sizes 128-1024. */
template <typename T>
static void sweep_graph(Mat<T> &M, const char *name, const char *prec,
                        cudaStream_t s) {
  const bool blocks = getenv("R9X_B") != nullptr;
  const int Ls[6] = {1, 2, 4, 8, 16, 32};
  for (int U : {4, 8})
    for (int L : Ls)
      for (int rounds : {1, 2, 4})
        for (int strat = 0; strat < 3; strat++)
          for (int B : {128, 256, 512, 1024}) {
            if (blocks ? U != 4 || rounds == 4 || strat != 2
                       : B > 256 || (strat == 0 && B == 256))
              continue;
            if ((long)ROWS * L > (blocks ? 2L : 8L) * 270336)
              continue;
            Plan p;
            p.L = L;
            p.U = U;
            p.B = B;
            p.thr = rounds * U * L;
            p.CH = 32 * U;
            p.wmax = strat == 0 ? 0 : 32 * U;
            p.bmax = strat == 0   ? 0
                     : strat == 1 ? 1u << 30
                     : blocks     ? 2048
                                  : 2 * U * B;
            if (p.wmax < p.thr)
              p.wmax = p.thr;
            time_variant(M, p, name, prec, s);
          }
}

template <typename T>
static void sweep_big(Mat<T> &M, const char *name, const char *prec,
                      cudaStream_t s, double bytes) {
  auto go = [&](const char *nm, int R, int U, int B, auto kern) {
    long threads = (ROWS + R - 1) / R;
    unsigned grid = (unsigned)((threads + B - 1) / B);
    auto f = [&] {
      kern<<<grid, B, 0, s>>>(ROWS, M.rp, M.ci, M.va, M.x, T(1), T(0), M.y);
    };
    double tw;
    const double err = check_then_time(M, s, f, false, &tw);
    printf("%s,%s,%s,%d,%d,%d,%.2f,%.1f,%.2f\n", name, prec, nm, R, U, B, tw,
           bytes / tw / 1e3, err);
  };
  for (int B : {128, 256, 512}) {
    go("rows", 1, 2, B, krows<T, 1, 2>);
    go("rows", 1, 4, B, krows<T, 1, 4>);
    go("rows", 2, 2, B, krows<T, 2, 2>);
    go("rows", 2, 4, B, krows<T, 2, 4>);
    go("rows", 4, 1, B, krows<T, 4, 1>);
    go("rows", 4, 2, B, krows<T, 4, 2>);
    go("rows", 4, 4, B, krows<T, 4, 4>);
    go("rows", 8, 1, B, krows<T, 8, 1>);
    go("rows", 8, 2, B, krows<T, 8, 2>);
  }
}

/* Set-up, the library's rungs, then the sweep: graphs on small matrices,
 * L2-warm with GB/s on big ones. */
template <typename T>
static void run(const char *name, const smv_csr *A, smv_context *ctx,
                const char *prec, bool big) {
  Mat<T> M;
  setup(M, A, !big);
  cudaStream_t s = (cudaStream_t)smv_context_stream(ctx);
  const double bytes = (double)A->nnz * (4 + sizeof(T)) + (ROWS + 1) * 4.0 +
                       (double)COLS * sizeof(T) + (double)ROWS * sizeof(T);
  lib_rungs(M, A, ctx, name, prec, !big, bytes);
  if (big)
    sweep_big(M, name, prec, s, bytes);
  else
    sweep_graph(M, name, prec, s);
  fflush(stdout);
  release(M);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  smv_context *ctx;
  if (smv_context_create(0, &ctx))
    return 1;
  bool big = !strcmp(argv[1], "big");
  for (int i = 2; i < argc; i++) {
    smv_csr *A;
    smv_error err;
    if (smv_load(argv[i], NULL, &A, &err)) {
      fprintf(stderr, "load %s failed\n", argv[i]);
      return 1;
    }
    ROWS = A->rows;
    COLS = A->cols;
    H_rp.assign(A->row_ptr, A->row_ptr + ROWS + 1);
    std::string nm = argv[i];
    size_t sl = nm.rfind('/');
    if (sl != std::string::npos)
      nm = nm.substr(sl + 1);
    run<double>(nm.c_str(), A, ctx, "f64", big);
    run<float>(nm.c_str(), A, ctx, "f32", big);
    smv_csr_free(A);
  }
  smv_context_free(ctx);
  return 0;
}
