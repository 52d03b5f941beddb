/*
 * rungs.cu — the registry at work: the table of descriptors (one per line
 * of src/core/rungs.def) and what the engine does with a rung's per-matrix
 * state without knowing what it holds: set it up when the rung will run
 * or be timed (and first what it needs), release it, count its bytes,
 * describe it, and after a plan release what was set up only to plan.
 *
 * Lazy set-up: a matrix holds the state of AUTO's rung, of the rungs named
 * by smv_matrix_prepare or a creation flag, and of the rungs it has run.
 * A rung without state set up is set up on its first call outside a
 * stream capture (dispatch.cu); inside one the call is refused, since
 * set-up allocates and synchronises.
 */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const struct smv_rung *r;
} table[SMV_ALG_COUNT] = {
#define SMV_RUNG(n, alg, name, kernel, glue, tuned, what) {&glue},
#define SMV_RUNG_LIB(n, alg, name, glue, tuned, what) {&glue},
#define SMV_RUNG_AUTO(n, alg, name, what) {NULL},
#include "rungs.def"
#undef SMV_RUNG
#undef SMV_RUNG_LIB
#undef SMV_RUNG_AUTO
};

const struct smv_rung *smv_rung_of(smv_alg alg) {
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return NULL;
  return table[alg].r;
}

const struct smv_rung *smv_kernel_rung_of(smv_alg alg) {
  const struct smv_rung *r = smv_rung_of(alg);
  return r && r->kernel ? r : NULL;
}

/* Ready: set up, or nothing to set up. */
static int ready(const smv_matrix *m, const struct smv_rung *r) {
  return !r->setup || m->ready[r->alg];
}

/* bytes of device memory at d copied into a new host buffer *out (freed
 * by the caller); `what` names them in errors. */
static smv_status copy_back(smv_context *ctx, const void *d, size_t bytes,
                            const char *what, void **out) {
  *out = NULL;
  void *h = malloc(bytes ? bytes : 1);
  if (!h)
    return smv_ctx_set(ctx, SMV_ERR_NOMEM,
                       "malloc of %zu bytes (%s for a rung's set-up): out of "
                       "memory",
                       bytes, what);
  cudaError_t e =
      cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, ctx->stream);
  if (e == cudaSuccess)
    e = cudaStreamSynchronize(ctx->stream);
  if (e != cudaSuccess) {
    free(h);
    return smv_cu_fail(ctx, e, "cudaMemcpy of %zu bytes (%s)", bytes, what);
  }
  *out = h;
  return SMV_OK;
}

/* A view of the matrix for set-up when the host CSR is gone: its sizes
 * and, for a rung that reads them, the row offsets ((rows + 1) * 4 bytes)
 * and the column indices (nnz * 4 bytes: rung 13 packs them) copied back
 * from the device, freed by the caller (*rows, *cols). */
static smv_status host_view(smv_context *ctx, const smv_matrix *m,
                            const struct smv_rung *r, smv_csr *v,
                            int32_t **rows, int32_t **cols) {
  memset(v, 0, sizeof *v);
  *rows = NULL;
  *cols = NULL;
  v->rows = (smv_index)m->st.rows;
  v->cols = (smv_index)m->st.cols;
  v->nnz = m->st.nnz;
  smv_status st = SMV_OK;
  if (r->host_rows || r->host_cols)
    st = copy_back(ctx, m->row_ptr, ((size_t)m->st.rows + 1) * sizeof(int32_t),
                   "row offsets", (void **)rows);
  if (st == SMV_OK && r->host_cols && m->st.nnz > 0)
    st = copy_back(ctx, m->col_idx, (size_t)m->st.nnz * sizeof(int32_t),
                   "column indices", (void **)cols);
  v->row_ptr = *rows;
  v->col_idx = *cols;
  return st;
}

static void release_one(smv_matrix *m, smv_alg a) {
  const struct smv_rung *r = smv_rung_of(a);
  if (r && r->release)
    r->release(m->state[a]);
  m->state[a] = NULL;
  m->ready[a] = 0;
  m->kept[a] = 0;
  m->setup_ms[a] = 0;
}

smv_status smv_rung_prepare(smv_context *ctx, smv_matrix *m, smv_alg alg,
                            const smv_csr *A, int keep) {
  const struct smv_rung *r = smv_rung_of(alg);
  if (!r)
    return SMV_OK; /* AUTO: nothing of its own */
  if (!(r->precisions & (1u << m->prec))) {
    char what[64];
    snprintf(what, sizeof what, "rung %d (%s)", (int)alg, smv_alg_name(alg));
    return smv_prec_refuse(ctx, m->prec, what);
  }
  const int dep_was_ready =
      r->needs == SMV_ALG_AUTO || ready(m, smv_rung_of(r->needs));
  if (r->needs != SMV_ALG_AUTO) {
    smv_status st = smv_rung_prepare(ctx, m, r->needs, A, keep);
    if (st != SMV_OK)
      return st;
  }
  if (ready(m, r)) {
    if (keep)
      m->kept[alg] = 1;
    return SMV_OK;
  }
  smv_csr view;
  int32_t *rows = NULL, *cols = NULL;
  smv_status st = SMV_OK;
  if (!A) {
    st = host_view(ctx, m, r, &view, &rows, &cols);
    A = &view;
  }
  const double t0 = smv_now_ms();
  void *state = NULL;
  if (st == SMV_OK)
    st = r->setup(ctx, m, A, &state);
  free(rows);
  free(cols);
  if (st != SMV_OK) {
    if (r->release)
      r->release(state); /* setups leave NULL on error; NULL-safe */
    if (!dep_was_ready)  /* what was set up for this rung alone goes too */
      release_one(m, r->needs);
    return st;
  }
  m->state[alg] = state;
  m->ready[alg] = 1;
  m->kept[alg] = (unsigned char)keep;
  m->setup_ms[alg] = smv_now_ms() - t0;
  return SMV_OK;
}

smv_status smv_rung_prepare_plan(smv_context *ctx, smv_matrix *m, smv_alg alg,
                                 const smv_csr *A) {
  smv_status st = smv_rung_prepare(ctx, m, alg, A, 0);
  const struct smv_rung *r = smv_rung_of(alg);
  if (st == SMV_OK && r && r->plan_setup)
    st = r->plan_setup(ctx, m, m->state[alg]);
  return st;
}

int smv_rung_runs(smv_alg alg, smv_precision prec) {
  const struct smv_rung *r = smv_rung_of(alg);
  return r && (int)prec >= 0 && prec < SMV_PRECISION_COUNT &&
         (r->precisions & (1u << prec));
}

smv_status smv_prec_refuse(smv_context *ctx, smv_precision prec,
                           const char *what) {
  char list[160] = "";
  size_t used = 0;
  for (int a = 1; a < SMV_ALG_COUNT; a++)
    if (smv_rung_runs((smv_alg)a, prec)) {
      const int w = snprintf(list + used, sizeof list - used, "%s%d (%s)",
                             used ? ", " : "", a, smv_alg_name((smv_alg)a));
      if (w < 0 || (size_t)w >= sizeof list - used)
        break;
      used += (size_t)w;
    }
  const char *name = smv_precision_name(prec);
  return smv_ctx_set(ctx, SMV_ERR_UNSUPPORTED,
                     "%s does not run precision %s; it runs only on rungs %s "
                     "and AUTO",
                     what, name ? name : "?", list);
}

void smv_rungs_settle(smv_matrix *m) {
  /* From the top: a rung only needs rungs below it (rungs.def), so its
   * dependents are decided before it. */
  for (int a = SMV_ALG_COUNT - 1; a > 0; a--) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (!r || !r->setup || !m->ready[a])
      continue;
    int needed = m->kept[a] || m->auto_alg == (smv_alg)a;
    for (int b = a + 1; b < SMV_ALG_COUNT && !needed; b++) {
      const struct smv_rung *d = smv_rung_of((smv_alg)b);
      needed = d && d->needs == (smv_alg)a && m->ready[b];
    }
    if (!needed)
      release_one(m, (smv_alg)a);
    else if (r->plan_settle)
      r->plan_settle(m, m->state[a]);
  }
}

void smv_rungs_release(smv_matrix *m) {
  for (int a = SMV_ALG_COUNT - 1; a > 0; a--)
    if (m->ready[a] || m->state[a])
      release_one(m, (smv_alg)a);
}

size_t smv_rungs_device_bytes(const smv_matrix *m) {
  size_t b = 0;
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (r && r->device_bytes && m->ready[a])
      b += r->device_bytes(m, m->state[a]);
  }
  return b;
}

void smv_rung_describe(const smv_matrix *m, smv_alg alg, char *buf, size_t n) {
  const struct smv_rung *r = smv_rung_of(alg);
  if (n > 0)
    buf[0] = '\0';
  if (r && r->describe && ready(m, r))
    r->describe(m, m->state[alg], buf, n);
}

smv_status smv_auto_facts_of(smv_context *ctx, smv_matrix *m, const smv_csr *A,
                             struct smv_auto_facts *f) {
  const struct smv_matrix_stats *s = &m->st;
  /* x's bytes per element (8 in f64 and f64-f32v); the matrix's bytes
   * per entry are smv_matrix_past_l2's (8 + 4, or 4 + 4 for f32 values). */
  const double vbytes = (double)smv_prec_vector_bytes(m->prec);
  const double l2 = (double)ctx->prop.l2CacheSize;
  memset(f, 0, sizeof *f);
  f->past_l2 = smv_matrix_past_l2(ctx, m);
  f->scattered = smv_matrix_scattered(m);
  f->x_past_l2 = (double)s->cols * vbytes > l2;
  f->even = (double)s->row_max <= 4.0 * s->row_mean;
  f->long_rare = s->long_rows * 10000 <= s->rows;
  f->row_mean = s->row_mean;
  /* f64 sums and vectors: SMV_F64 and SMV_F64_F32V follow the f64 lines. */
  f->f64 = m->prec != SMV_F32;
  /* Rule 7's boundary: 72 on both the H100 (quad-order staging) and the
   * H200 (entry-order staging, smv_dram_fast), where the crossing lies
   * between 65 and 78-81 entries a row (docs/engine.md, rule 7). */
  f->long_f64 = 72.0;
  /* Rungs whose state the rule reads (rung 12's hot columns), only where
   * they ask: set up for planning, released by smv_rungs_settle unless
   * AUTO runs them or they were asked for. */
  for (int a = 1; a < SMV_ALG_COUNT; a++) {
    const struct smv_rung *r = smv_rung_of((smv_alg)a);
    if (!r || !r->probe || !r->facts || !smv_rung_runs((smv_alg)a, m->prec) ||
        !r->probe(ctx, m))
      continue;
    smv_status st = smv_rung_prepare_plan(ctx, m, (smv_alg)a, A);
    if (st != SMV_OK)
      return st;
    r->facts(m, m->state[a], f);
  }
  return SMV_OK;
}
