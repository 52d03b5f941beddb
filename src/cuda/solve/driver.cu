/*
 * driver.cu — the device solvers' driver: argument checks, one buffer for
 * the work vectors, the state and the partials (the context's solver
 * workspace, engine.h: grown on demand, kept until smv_context_free), the
 * pre-pass, and the loop.
 *
 * Two ways to run the iterations:
 *   - CG on a matrix that fits the L2 (or persistent = 1), where the
 *     device can launch cooperatively: the persistent kernel (cg_coop.cu;
 *     BiCGStab too, bicgstab_coop.cu, unless SMV_SOLVE_COOP_BICGSTAB=0),
 *     one launch for the whole solve (one per progress report), stopping
 *     decided on the device after every iteration;
 *   - otherwise (BiCGStab, PageRank, larger matrices, persistent = -1, a
 *     device without cooperative launch, or a cooperative launch refused
 *     at run time, e.g. under MPS): the graph path. check_every
 *     iterations, smv_spmv included, are captured once into a CUDA graph
 *     (stream capture of exactly the launches the loop makes) and
 *     replayed; after each replay one 32-byte device-to-host copy says
 *     whether to stop. Once the last block of a reduction has set `done`,
 *     every later kernel returns at once, so iterations past convergence
 *     inside a replay change nothing (their SpMVs still run: at most
 *     check_every - 1 wasted SpMVs at the end). use_graph = 0 launches the
 *     same kernels directly (the same bits).
 */
#include "solver.h"

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace smv_solve {
namespace {

/* The work vectors a method uses (bit k = vector k): CG r, p, q (+ z and
 * the inverse diagonal with Jacobi, + the second p of the persistent
 * kernel, + z, s and t for the single-barrier one's second r and its s,
 * + Chebyshev's d and w); BiCGStab r, p, v (in Q), rhat, s, t (+ phat,
 * shat, the inverse diagonal; + the persistent kernel's second p and v in
 * P2 and Z); PageRank y (in Q). The others stay NULL: no kernel of that
 * method reads them. */
unsigned vectors_used(smv_method m, bool jac, bool cheb, bool coop,
                      int variant) {
  const unsigned J = jac ? 1u << V_DINV : 0u;
  const bool one = coop && (variant == 1 || variant == 4);
  if (m == SMV_METHOD_CG)
    return 1u << V_R | 1u << V_P | 1u << V_Q |
           (jac || cheb ? 1u << V_Z | 1u << V_DINV : 0u) |
           (cheb ? 1u << V_CD | 1u << V_CW : 0u) | (coop ? 1u << V_P2 : 0u) |
           (one ? 1u << V_Z | 1u << V_S | 1u << V_T : 0u);
  if (m == SMV_METHOD_BICGSTAB)
    return 1u << V_R | 1u << V_P | 1u << V_Q | 1u << V_RH | 1u << V_S |
           1u << V_T | (jac ? 1u << V_PH | 1u << V_SH : 0u) | J |
           (coop ? 1u << V_P2 | 1u << V_Z : 0u);
  return 1u << V_Q;
}

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A cooperative launch that the device refused as such (not a fault of
 * the kernel): the graph path can run instead. */
bool coop_refused(cudaError_t e) {
  return e == cudaErrorCooperativeLaunchTooLarge ||
         e == cudaErrorNotSupported || e == cudaErrorNotPermitted ||
         e == cudaErrorLaunchOutOfResources ||
         e == cudaErrorInvalidConfiguration || e == cudaErrorInvalidValue;
}

} // namespace

template <typename T> smv_status solver::iterate() {
  if (method == SMV_METHOD_CG)
    return cg_iterate<T>(*this);
  if (method == SMV_METHOD_BICGSTAB)
    return bicgstab_iterate<T>(*this);
  return pagerank_iterate<T>(*this);
}

smv_status solver::run(smv_solve_result *res) {
  cudaError_t e;
  smv_status s;
  const bool f32 = prec == SMV_F32;
  const int chunk = o.check_every;
  int next_progress = o.progress_every;
  const bool reports = o.progress && o.progress_every > 0;
  /* The iteration is captured in a graph: a rung asked for by name (AUTO's
   * own choice is set up at analysis) must be set up now, outside the
   * capture, where it may allocate. */
  const smv_alg rung = o.alg == SMV_ALG_AUTO ? dA->auto_alg : o.alg;
  if ((s = smv_rung_prepare(ctx, dA, rung, NULL, 1)) != SMV_OK)
    return s;
  if ((s = f32 ? start<float>() : start<double>()) != SMV_OK)
    return s;
  bool first = true;
  for (;;) {
    if ((e = cudaMemcpyAsync(h_status, st, sizeof *h_status,
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
      return fail(e, "convergence check (copy back)");
    res->checks++;
    const solve_status h = *h_status;
    if (reports && h.iter >= next_progress && h.iter > 0) {
      o.progress(o.progress_user, h.iter, h.relres);
      while (next_progress <= h.iter)
        next_progress += o.progress_every;
    }
    if (h.done)
      break;
    if (coop) {
      const int it_end =
          reports && next_progress < o.maxit ? next_progress : o.maxit;
      e = cg_coop_launch(*this, it_end);
      if (e != cudaSuccess && first && coop_refused(e)) {
        cudaGetLastError(); /* not sticky: clear it and take the graph path */
        coop = false;
        res->persistent = 0;
        continue;
      }
      if (e != cudaSuccess)
        return fail(e, method == SMV_METHOD_CG
                           ? "cudaLaunchCooperativeKernel (persistent CG)"
                           : "cudaLaunchCooperativeKernel (persistent "
                             "BiCGStab)");
      /* smv_persistent_kernel's values (the pr recurrence its own) */
      res->persistent = coop_pr ? SMV_PERSISTENT_CG_PR : coop_variant;
      first = false;
      continue;
    }
    first = false;
    if (o.use_graph && !exec) {
      if ((e = cudaStreamBeginCapture(
               stream, cudaStreamCaptureModeThreadLocal)) != cudaSuccess)
        return fail(e, "cudaStreamBeginCapture");
      s = SMV_OK;
      for (int k = 0; k < chunk && s == SMV_OK; k++)
        s = f32 ? iterate<float>() : iterate<double>();
      e = cudaStreamEndCapture(stream, &graph); /* always leave capture */
      if (s != SMV_OK)
        return s;
      if (e != cudaSuccess)
        return fail(e, "graph capture of the solver iteration");
      if ((e = cudaGraphInstantiate(&exec, graph, 0)) != cudaSuccess) {
        exec = nullptr;
        return fail(e, "cudaGraphInstantiate");
      }
      res->graph_used = 1;
    }
    if (o.use_graph) {
      if ((e = cudaGraphLaunch(exec, stream)) != cudaSuccess)
        return fail(e, "cudaGraphLaunch");
    } else {
      for (int k = 0; k < chunk; k++)
        if ((s = f32 ? iterate<float>() : iterate<double>()) != SMV_OK)
          return s;
    }
  }
  const solve_status h = *h_status;
  if (h.zero_rhs && o.use_x0 &&
      (e = cudaMemsetAsync(x, 0, (size_t)n * (f32 ? 4 : 8), stream)) !=
          cudaSuccess)
    return fail(e, "cudaMemsetAsync (b = 0, so x = 0)");
  res->iterations = h.iter;
  res->relres = h.relres;
  res->converged = h.converged;
  res->breakdown = h.breakdown;
  int nh = h.iter + 1 < o.history_len ? h.iter + 1 : o.history_len;
  if (nh > 0) {
    if ((e = cudaMemcpyAsync(o.history, hist, (size_t)nh * sizeof(double),
                             cudaMemcpyDeviceToHost, stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess)
      return fail(e, "copy of the residual history");
    res->history_count = nh;
  }
  return f32 ? finish<float>(res) : finish<double>(res);
}

void solver::release(bool failed) {
  /* buf and h_status are the context's (solve_device): the next call on
   * the context takes them again, maybe on another stream
   * (smv_context_set_stream), so nothing of this solve may still be
   * queued then. A solve that ends well has waited for its last kernel
   * that touches them (the status copy, the history copy, the f32 true
   * residual; what may follow, the x unscaling or the x = 0 of b = 0,
   * touches x alone). A failed one may return right after a launch or
   * an asynchronous copy: wait here. The failure is already on the
   * context; a sync error that is not sticky is cleared so that it is
   * not reported by the next call's launch check. */
  if (failed && buf && cudaStreamSynchronize(stream) != cudaSuccess)
    cudaGetLastError();
  if (exec)
    cudaGraphExecDestroy(exec);
  if (graph)
    cudaGraphDestroy(graph);
  exec = nullptr;
  graph = nullptr;
  buf = nullptr;
  coop_bounds = nullptr;
  h_status = nullptr;
}

smv_status solve_device(smv_context *ctx, smv_matrix *dA, smv_method method,
                        const void *b, void *x, const void *v,
                        const int32_t *dl, int64_t nd,
                        const smv_solve_options *opt, smv_solve_result *res) {
  smv_solve_result local;
  memset(&local, 0, sizeof local);
  if (res)
    memset(res, 0, sizeof *res);
  if (!ctx)
    return SMV_ERR_ARG;
  const char *who = method == SMV_METHOD_CG         ? "smv_cg_cuda"
                    : method == SMV_METHOD_BICGSTAB ? "smv_bicgstab_cuda"
                                                    : "smv_pagerank_cuda";
  solver S;
  memset(&S, 0, sizeof S);
  char why[160];
  if (smv_solve_opts_check(opt, &S.o, why, sizeof why) != SMV_OK)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: %s", who, why);
  if (!dA)
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL matrix", who);
  if (dA->device != ctx->device)
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: matrix lives on device %d, context on %d", who,
                       dA->device, ctx->device);
  /* The solvers' kernels (the persistent ones too) read f64 or f32
   * values; f64-f32v runs smv_spmv only. */
  if (dA->prec == SMV_F64_F32V)
    return smv_prec_refuse(ctx, dA->prec, who);
  if (dA->st.rows != dA->st.cols)
    return smv_ctx_set(ctx, SMV_ERR_DIM,
                       "%s: the matrix is %lld x %lld; a solver needs a "
                       "square one",
                       who, (long long)dA->st.rows, (long long)dA->st.cols);
  const int64_t n = dA->st.rows;
  const size_t es = dA->prec == SMV_F32 ? sizeof(float) : sizeof(double);
  if (n > 0 && (!x || (method != SMV_METHOD_PAGERANK && !b)))
    return smv_ctx_set(ctx, SMV_ERR_ARG, "%s: NULL vector", who);
  /* SpMV refuses aliasing; so does a solver: x is written from the start
   * while b is still read (issue 25 item 10). */
  if (n > 0 && method != SMV_METHOD_PAGERANK &&
      smv_solve_overlap(b, x, (size_t)n * es))
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: b and x overlap (x must be a separate vector)",
                       who);
  if (n == 0) {
    local.converged = 1;
    if (S.o.history_len > 0) {
      S.o.history[0] = 0.0;
      local.history_count = 1;
    }
    if (res)
      *res = local;
    return SMV_OK;
  }
  struct smv_device_guard g;
  smv_status s = smv_device_enter(ctx, &g);
  if (s != SMV_OK)
    return s;
  S.ctx = ctx;
  S.dA = dA;
  S.stream = ctx->stream;
  S.method = method;
  S.prec = dA->prec;
  S.jac = method != SMV_METHOD_PAGERANK && S.o.precond == SMV_PRECOND_JACOBI;
  S.chebyshev = method == SMV_METHOD_CG && S.o.precond == SMV_PRECOND_CHEBYSHEV;
  if (method == SMV_METHOD_BICGSTAB && S.o.precond == SMV_PRECOND_CHEBYSHEV) {
    smv_device_leave(&g);
    return smv_ctx_set(ctx, SMV_ERR_ARG,
                       "%s: Chebyshev preconditioning is for CG (its "
                       "polynomial needs A's eigenvalues real and positive)",
                       who);
  }
  S.n = n;
  S.b = b;
  S.x = x;
  S.v = v;
  S.dl = dl;
  S.nd = nd;
  S.bscale = 1.0;
  {
    /* A few blocks per SM: enough to stream the vectors, few partials. */
    unsigned cap = 4u * (unsigned)ctx->prop.multiProcessorCount;
    unsigned gg = smv_grid_for(n, RB);
    S.grid = gg < cap ? gg : cap;
  }
  {
    const char *no;
    S.coop = (method == SMV_METHOD_CG || method == SMV_METHOD_BICGSTAB) &&
             cg_coop_plan(S, &no);
    cudaGetLastError(); /* the plan's queries leave nothing behind */
  }
  /* PDL where the kernels carry their waits (kernel_common.h). */
  S.pdl = smv_pdl_capable((const void *)alpha_kernel<double, true>);
  const size_t vbytes = ((size_t)n * es + 255) / 256 * 256;
  const int hist_n =
      S.o.history_len < S.o.maxit + 1 ? S.o.history_len : S.o.maxit + 1;
  const size_t state_bytes = 256;
  /* Partials: 3 per block of the larger grid (6 for the single-barrier
   * persistent CG: two sets, by parity; 10 for its pr recurrence: two
   * sets of 5; 6 for the persistent BiCGStab: one set per phase), then 2
   * doubles of output (the f32 true residual) and the pre-pass's 16 bytes
   * fit inside. */
  const size_t pgrid = S.coop && S.coop_grid > S.grid ? S.coop_grid : S.grid;
  const size_t per_block = S.coop && S.coop_pr             ? 10 /* 5, pr */
                           : S.coop && S.coop_variant != 2 ? 6
                                                           : 3;
  /* The persistent kernels write their partials to S.coop_copies copies of
   * that layout (cg_coop.h, coop_sum), copy c at c x stride doubles. */
  const size_t copies = S.coop && S.coop_copies > 1 ? S.coop_copies : 1;
  S.coop_copy_stride = (int64_t)(pgrid * per_block);
  const size_t part_bytes =
      (((size_t)pgrid * per_block * copies + 4) * sizeof(double) + 255) / 256 *
      256;
  const unsigned used =
      vectors_used(method, S.jac, S.chebyshev, S.coop, S.coop_variant);
  int nvec = 0;
  for (int k = 0; k < V_COUNT; k++)
    nvec += (used >> k) & 1u;
  /* The persistent kernels' fused reduction: counter, flag, results
   * (solver.h, coop_sync), zeroed before each of their launches. */
  const size_t sync_bytes = S.coop ? 256 : 0;
  static_assert(sizeof(coop_sync) <= 256, "coop_sync fits its slot");
  const size_t total = (size_t)nvec * vbytes + state_bytes + part_bytes +
                       sync_bytes + (size_t)hist_n * sizeof(double);
  static_assert(sizeof(solve_status) <= SMV_WS_STATUS_BYTES,
                "the status fits the context's pinned block");
  cudaError_t e;
  solve_state h0;
  double t0 = 0.0;
  /* The context's workspace (engine.h): the previous call on the context
   * left its stream idle (release), so the buffer is free to take or to
   * replace. Nothing in it is assumed zero, as from cudaMalloc: the state
   * is uploaded below, the start writes every vector an iteration reads
   * before it reads it (p = 0 and v = 0 for BiCGStab), the reductions
   * write their partials before summing them, the sync word is zeroed
   * before each persistent launch (cg_coop_launch) and the history is
   * written up to the count copied back. */
  if ((e = smv_workspace_grow(&ctx->ws_solve, &ctx->ws_solve_bytes, total)) !=
      cudaSuccess) {
    s = smv_cu_fail(ctx, e, "%s: cudaMalloc of %zu bytes (%d vectors of %lld)",
                    who, total, nvec, (long long)n);
    goto out;
  }
  S.buf = ctx->ws_solve;
  if (!ctx->ws_solve_status &&
      (e = cudaMallocHost(&ctx->ws_solve_status, SMV_WS_STATUS_BYTES)) !=
          cudaSuccess) {
    ctx->ws_solve_status = nullptr;
    s = smv_cu_fail(ctx, e, "%s: cudaMallocHost of %d bytes (the status word)",
                    who, SMV_WS_STATUS_BYTES);
    goto out;
  }
  S.h_status = (solve_status *)ctx->ws_solve_status;
  {
    char *next = (char *)S.buf;
    for (int k = 0; k < V_COUNT; k++)
      if ((used >> k) & 1u) {
        S.vec[k] = next;
        next += vbytes;
      }
    S.st = (solve_state *)next;
  }
  S.part = (double *)((char *)S.st + state_bytes);
  S.sync = S.coop ? (coop_sync *)((char *)S.part + part_bytes) : nullptr;
  S.hist = hist_n > 0 ? (double *)((char *)S.part + part_bytes + sync_bytes)
                      : nullptr;
  if (method != SMV_METHOD_PAGERANK &&
      (s = S.prec == SMV_F32 ? S.prepass<float>() : S.prepass<double>()) !=
          SMV_OK)
    goto out;
  memset(&h0, 0, sizeof h0);
  h0.tol = S.o.tol;
  h0.damping = S.o.damping;
  h0.inv_n = 1.0 / (double)n;
  h0.maxit = S.o.maxit;
  h0.hist_len = hist_n;
  if ((e = cudaMemcpyAsync(S.st, &h0, sizeof h0, cudaMemcpyHostToDevice,
                           S.stream)) != cudaSuccess) {
    s = smv_cu_fail(ctx, e, "%s: upload of the solver state", who);
    goto out;
  }
  if (S.jac && (s = S.prec == SMV_F32 ? S.setup_jacobi<float>()
                                      : S.setup_jacobi<double>()) != SMV_OK)
    goto out;
  if (S.chebyshev && (s = S.prec == SMV_F32 ? cheb_setup<float>(S)
                                            : cheb_setup<double>(S)) != SMV_OK)
    goto out;
  t0 = now_s();
  s = S.run(&local);
  local.seconds = now_s() - t0;
out:
  S.release(s != SMV_OK);
  smv_device_leave(&g);
  if (s == SMV_OK && res)
    *res = local;
  return s;
}

} // namespace smv_solve

using namespace smv_solve;

extern "C" smv_status smv_cg_cuda(smv_context *ctx, smv_matrix *dA,
                                  const void *b, void *x,
                                  const smv_solve_options *opt,
                                  smv_solve_result *res) {
  return solve_device(ctx, dA, SMV_METHOD_CG, b, x, nullptr, nullptr, 0, opt,
                      res);
}

extern "C" smv_status smv_bicgstab_cuda(smv_context *ctx, smv_matrix *dA,
                                        const void *b, void *x,
                                        const smv_solve_options *opt,
                                        smv_solve_result *res) {
  return solve_device(ctx, dA, SMV_METHOD_BICGSTAB, b, x, nullptr, nullptr, 0,
                      opt, res);
}
