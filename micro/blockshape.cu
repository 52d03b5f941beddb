/*
 * blockshape.cu — occupancy by block shape (seed 003).
 *
 * Question: the seed's 3D finite-difference (VTI RTM) kernel could keep only
 * 42 warps per SM because of its registers and shared memory; with 32x16
 * blocks (16 warps) two blocks fit (32 warps), with 32x8 blocks (8 warps)
 * five fit (40 warps), and 32x8 ran 1.28x faster. Does the same trade hold
 * on today's GPU, and does the occupancy calculator predict the counts?
 *
 * The kernel: one time step of the pseudo-acoustic VTI wave equation, the
 * RTM kernel the seed names, 8th order in space (radius 4):
 *   p' = 2p - p_prev + v2 * ((1+2e) (p_xx + p_yy) + sqrt(1+2d) q_zz)
 *   q' = 2q - q_prev + v2 * (sqrt(1+2d) (p_xx + p_yy) + q_zz)
 * Each thread owns one (x, y) column and marches in z (the usual 2.5D
 * scheme): q lives in a 9-deep register queue along z, the p plane in a
 * shared-memory tile with a 4-point halo. Reads p, p_prev, q, q_prev, v2,
 * writes p', q' (28 bytes per point at best).
 *
 * Variants: block 32x16, 32x8 (the seed's two) and 32x4, each compiled
 * twice: "48 regs" (__maxnreg__(48): 48 registers per thread, which on
 * sm_90 limits an SM to 42 warps, exactly as the seed's kernel was
 * limited) and "free" (what the compiler takes unconstrained: 40 with nvcc
 * 13.0, 48 warps per SM for every shape). Beside each time:
 * registers and shared memory from cudaFuncGetAttributes, the blocks and
 * warps per SM from smv_occupancy (libsmv's calculator) and from
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor (checked to agree).
 *
 * The output of every variant is compared with a host reference over the
 * whole grid. Command:
 *   smv micro blockshape [--csv DIR]
 */
#include "common.h"

static const char *const k_help =
    "Occupancy by block shape (seed 003): a 3D 8th-order VTI stencil with\n"
    "32x16, 32x8 and 32x4 blocks, under a 48-register cap (42 warps/SM, as\n"
    "the seed's kernel) and without; smv_occupancy and the runtime's figure\n"
    "beside each time.";

#define R 4 /* stencil radius: 8th order */

/* 8th-order central second derivative, grid spacing 1 */
__constant__ float c_coef[R + 1];
static const float k_coef[R + 1] = {-205.0f / 72, 8.0f / 5, -1.0f / 5,
                                    8.0f / 315, -1.0f / 560};

struct grid3 {
  int nx, ny, nz;
};

struct fields {
  const float *p, *pp, *q, *qp, *v2;
  float *pn, *qn;
  float a, b; /* 1 + 2 eps, sqrt(1 + 2 delta) */
};

/* The body shared by both compilations. Block (BX, BY) = (blockDim.x,
 * blockDim.y), dynamic shared memory (BX + 2R) * (BY + 2R) floats. The
 * interior (R from every face) is written; its x and y extents must be
 * multiples of BX and BY (the host checks), so no thread idles. */
__device__ __forceinline__ void vti_step(const fields f, grid3 g) {
  extern __shared__ float tile[];
  const int bx = blockDim.x, by = blockDim.y, tw = bx + 2 * R;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x = blockIdx.x * bx + tx + R, y = blockIdx.y * by + ty + R;
  const int plane = g.nx * g.ny; /* < 2^31 points: 32-bit offsets */
  const int sx = tx + R, sy = ty + R;
  const int idx = y * g.nx + x; /* at z = 0 */

  float qz[2 * R + 1]; /* q at z-4 .. z+4 */
#pragma unroll
  for (int k = 0; k < 2 * R; k++)
    qz[k + 1] = f.q[idx + k * plane];

  for (int z = R; z < g.nz - R; z++) {
    const int c = idx + z * plane;
#pragma unroll
    for (int k = 0; k < 2 * R; k++)
      qz[k] = qz[k + 1];
    qz[2 * R] = f.q[c + R * plane];

    __syncthreads(); /* the previous plane's tile is no longer read */
    tile[sy * tw + sx] = f.p[c];
    if (tx < R) { /* left and right halos */
      tile[sy * tw + sx - R] = f.p[c - R];
      tile[sy * tw + sx + bx] = f.p[c + bx];
    }
    if (ty < R) { /* bottom and top halos */
      tile[(sy - R) * tw + sx] = f.p[c - R * g.nx];
      tile[(sy + by) * tw + sx] = f.p[c + by * g.nx];
    }
    __syncthreads();
    const float pc = tile[sy * tw + sx];
    float lap = 2.0f * c_coef[0] * pc;
    float qzz = c_coef[0] * qz[R];
#pragma unroll
    for (int r = 1; r <= R; r++) {
      lap += c_coef[r] * (tile[sy * tw + sx - r] + tile[sy * tw + sx + r] +
                          tile[(sy - r) * tw + sx] + tile[(sy + r) * tw + sx]);
      qzz += c_coef[r] * (qz[R - r] + qz[R + r]);
    }
    const float v = f.v2[c];
    f.pn[c] = 2.0f * pc - f.pp[c] + v * (f.a * lap + f.b * qzz);
    f.qn[c] = 2.0f * qz[R] - f.qp[c] + v * (f.b * lap + qzz);
  }
}

/* 48 registers per thread: 65536 / (48 * 32) = 42 warps per SM. */
__global__ void __maxnreg__(48) vti_48(const fields f, grid3 g) {
  vti_step(f, g);
}
__global__ void vti_free(const fields f, grid3 g) { vti_step(f, g); }

/* Host reference at one point (same formula, float, same order of terms
 * where it matters; compared with a relative tolerance). */
static void host_point(const std::vector<float> *h, grid3 g, float a, float b,
                       size_t c, float *pn, float *qn) {
  const std::vector<float> &p = h[0], &pp = h[1], &q = h[2], &qp = h[3],
                           &v2 = h[4];
  const size_t plane = (size_t)g.nx * g.ny;
  double lap = 2.0 * k_coef[0] * p[c], qzz = k_coef[0] * q[c];
  for (int r = 1; r <= R; r++) {
    lap += k_coef[r] * ((double)p[c - r] + p[c + r] + p[c - (size_t)r * g.nx] +
                        p[c + (size_t)r * g.nx]);
    qzz += k_coef[r] * ((double)q[c - r * plane] + q[c + r * plane]);
  }
  *pn = (float)(2.0 * p[c] - pp[c] + v2[c] * (a * lap + b * qzz));
  *qn = (float)(2.0 * q[c] - qp[c] + v2[c] * (b * lap + qzz));
}

int main(int argc, char **argv) {
  micro_init(argc, argv, "blockshape", "occupancy by block shape (seed 003)",
             k_help, NULL);
  CK(cudaMemcpyToSymbol(c_coef, k_coef, sizeof k_coef));
  /* 1032 x 1032 x 64 = 68M points, 273 MB per field; the 1024 x 1024
   * interior makes 2048 blocks of 32x16 (several waves on any GPU, so the
   * tail of the last wave stays small) */
  const grid3 g = {1032, 1032, 64};
  const size_t npts = (size_t)g.nx * g.ny * g.nz;
  const float a = 1.0f + 2.0f * 0.20f, b = sqrtf(1.0f + 2.0f * 0.10f);
  micro_rng rng = {micro_fresh_seed()};
  std::vector<float> h[5];
  for (int k = 0; k < 5; k++) {
    h[k].resize(npts);
    for (size_t i = 0; i < npts; i++)
      h[k][i] = k == 4 ? (float)(0.05 + 0.05 * micro_rand01(&rng))
                       : (float)(micro_rand01(&rng) - 0.5);
  }
  micro_dbuf<float> d0(npts), d1(npts), d2(npts), d3(npts), d4(npts), dpn(npts),
      dqn(npts);
  d0.upload(h[0].data());
  d1.upload(h[1].data());
  d2.upload(h[2].data());
  d3.upload(h[3].data());
  d4.upload(h[4].data());
  fields f = {d0.p, d1.p, d2.p, d3.p, d4.p, dpn.p, dqn.p, a, b};

  /* reference for every interior point */
  std::vector<float> rp(npts, 0.0f), rq(npts, 0.0f);
  const size_t plane = (size_t)g.nx * g.ny;
  for (int z = R; z < g.nz - R; z++)
    for (int y = R; y < g.ny - R; y++)
      for (int x = R; x < g.nx - R; x++) {
        size_t c = (size_t)z * plane + (size_t)y * g.nx + x;
        host_point(h, g, a, b, c, &rp[c], &rq[c]);
      }

  const smv_arch *arch = smv_arch_find(g_dev.prop.major, g_dev.prop.minor);
  if (!arch)
    micro_die("sm_%d%d is not in libsmv's architecture table", g_dev.prop.major,
              g_dev.prop.minor);
  micro_table t = micro_table_new(
      "shapes", "3D VTI stencil (8th order, 1032x1032x64): time by block shape",
      {"regs", "block", "regs/thr", "smem B", "blocks/SM smv", "blocks/SM cuda",
       "warps/SM", "occupancy", "waves", "ms", "GB/s", "vs 32x16"});
  struct kcase {
    const char *name;
    void (*fn)(const fields, grid3);
  } ks[] = {{"48 regs", vti_48}, {"free", vti_free}};
  const int shapes[3][2] = {{32, 16}, {32, 8}, {32, 4}};
  std::vector<float> bp(npts), bq(npts);
  double t16[2] = {0, 0}, t8[2] = {0, 0};
  for (int kc = 0; kc < 2; kc++) {
    cudaFuncAttributes at;
    CK(cudaFuncGetAttributes(&at, ks[kc].fn));
    for (int s = 0; s < 3; s++) {
      const int bx = shapes[s][0], by = shapes[s][1], threads = bx * by;
      const size_t dyn = sizeof(float) * (bx + 2 * R) * (by + 2 * R);
      smv_occupancy_result occ;
      smv_status st = smv_occupancy(arch, threads, at.numRegs,
                                    at.sharedSizeBytes + dyn, &occ);
      if (st != SMV_OK)
        micro_die("smv_occupancy: %s", smv_status_string(st));
      int cuda_blocks = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&cuda_blocks, ks[kc].fn,
                                                       threads, dyn));
      micro_check(cuda_blocks == occ.blocks_per_sm,
                  "%s %dx%d: smv_occupancy says %d blocks/SM, the runtime %d",
                  ks[kc].name, bx, by, occ.blocks_per_sm, cuda_blocks);
      if ((g.nx - 2 * R) % bx || (g.ny - 2 * R) % by)
        micro_die("interior %dx%d is not a multiple of the block %dx%d",
                  g.nx - 2 * R, g.ny - 2 * R, bx, by);
      dim3 block(bx, by), grid((g.nx - 2 * R) / bx, (g.ny - 2 * R) / by);
      auto launch = [&] { ks[kc].fn<<<grid, block, dyn>>>(f, g); };
      double ms = micro_time_ms(launch, 2, 10);
      dpn.poison();
      dqn.poison();
      launch();
      CK_LAUNCH();
      dpn.download(bp.data());
      dqn.download(bq.data());
      size_t bad = 0;
      double worst = 0;
      for (int z = R; z < g.nz - R; z++)
        for (int y = R; y < g.ny - R; y++)
          for (int x = R; x < g.nx - R; x++) {
            size_t c = (size_t)z * plane + (size_t)y * g.nx + x;
            double e1 = fabs((double)bp[c] - rp[c]),
                   e2 = fabs((double)bq[c] - rq[c]);
            double e = std::max(e1, e2);
            worst = std::max(worst, e);
            bad += !(e <= 1e-4); /* values O(1); float rounding ~1e-6 */
          }
      micro_check(bad == 0, "%s %dx%d: %zu points wrong (worst error %g)",
                  ks[kc].name, bx, by, bad, worst);
      if (s == 0)
        t16[kc] = ms;
      if (s == 1)
        t8[kc] = ms;
      const double interior =
          (double)(g.nx - 2 * R) * (g.ny - 2 * R) * (g.nz - 2 * R);
      micro_table_add(
          t,
          {ks[kc].name, micro_fmt("%dx%d", bx, by), micro_fmt("%d", at.numRegs),
           micro_fmt("%zu", at.sharedSizeBytes + dyn),
           micro_fmt("%d", occ.blocks_per_sm), micro_fmt("%d", cuda_blocks),
           micro_fmt("%d", occ.warps_per_sm),
           micro_num(occ.occupancy * 100, 0) + "%",
           micro_num(
               (double)grid.x * grid.y /
                   ((double)occ.blocks_per_sm * g_dev.prop.multiProcessorCount),
               2),
           micro_num(ms, 3), micro_num(28.0 * interior / (ms * 1e-3) / 1e9, 0),
           micro_num(t16[kc] / ms, 2)});
    }
  }
  micro_table_print(t);
  micro_table s = micro_table_new(
      "seed", "32x8 against 32x16: speedup (seed: 1.28x, 40 vs 32 warps/SM)",
      {"registers", "ours", "seed", "ratio"});
  micro_table_add(s, {"48 regs (seed-like)", micro_num(t16[0] / t8[0], 2),
                      "1.28", micro_ratio(t16[0] / t8[0], 1.28)});
  micro_table_add(s, {"free", micro_num(t16[1] / t8[1], 2), "-", "-"});
  micro_table_print(s);
  micro_note("GB/s counts 28 B per interior point (5 reads, 2 writes); "
             "blocks/SM from smv_occupancy and from the runtime (checked "
             "equal).");
  return micro_finish();
}
