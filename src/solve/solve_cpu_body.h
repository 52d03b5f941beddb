/*
 * solve_cpu_body.h — the CPU solvers for one precision. Included twice by
 * solve_cpu.c, with REAL = double / SFX = f64 and REAL = float / SFX = f32;
 * never compiled alone.
 *
 * Determinism: a row of an SpMV is summed in order by one thread, and
 * every dot product is a sum of per-chunk partials (SOLVE_CHUNK entries
 * each, summed in order) added in chunk order, so the bits do not depend
 * on the thread count or the schedule. Vectors are REAL; dot products and
 * norms accumulate in double.
 */
#define SFN2(a, b) a##_##b
#define SFN1(a, b) SFN2(a, b)
#define FN(name) SFN1(name, SFX)

/* Row i of y = A x, summed in order. */
static inline REAL FN(row_dot)(const smv_csr *A, const REAL *vals,
                               const REAL *x, int64_t i) {
  REAL s = 0;
  for (int64_t k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
    s += vals[k] * x[A->col_idx[k]];
  return s;
}

/* y = A x; returns dot(w, y) when w is not NULL (else 0). */
static double FN(spmv_dot)(const smv_csr *A, const REAL *vals, const REAL *x,
                           REAL *y, const REAL *w, double *part, int64_t nc) {
  const int64_t n = A->rows;
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
  for (int64_t c = 0; c < nc; c++) {
    const int64_t lo = c * SOLVE_CHUNK, hi = chunk_end(c, n);
    double s = 0.0;
    for (int64_t i = lo; i < hi; i++) {
      REAL t = FN(row_dot)(A, vals, x, i);
      y[i] = t;
      if (w)
        s += (double)w[i] * (double)t;
    }
    part[c] = s;
  }
  return w ? sum_parts(part, nc, 1, 0) : 0.0;
}

/* The fused pass of both solvers' start and of BiCGStab's t = A shat. Per
 * row: t = b - A x, or b (x NULL), or A x (b NULL); y = t; z = dinv .* t
 * (z may be y; without dinv z = t). Returns t.u, or t.t when u is NULL;
 * sets *tz = t.z. */
static double FN(spmv_fused)(const smv_csr *A, const REAL *vals, const REAL *b,
                             const REAL *x, REAL *y, REAL *z,
                             const double *dinv, const REAL *u, double *part,
                             int64_t nc, double *tz) {
  const int64_t n = A->rows;
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
  for (int64_t c = 0; c < nc; c++) {
    const int64_t lo = c * SOLVE_CHUNK, hi = chunk_end(c, n);
    double s0 = 0.0, s1 = 0.0;
    for (int64_t i = lo; i < hi; i++) {
      REAL t = !x   ? b[i]
               : !b ? FN(row_dot)(A, vals, x, i)
                    : b[i] - FN(row_dot)(A, vals, x, i);
      y[i] = t;
      REAL zt = dinv ? (REAL)(t * dinv[i]) : t;
      z[i] = zt;
      s0 += (double)t * (double)(u ? u[i] : t);
      s1 += (double)t * (double)zt;
    }
    part[2 * c] = s0;
    part[2 * c + 1] = s1;
  }
  *tz = sum_parts(part, nc, 2, 1);
  return sum_parts(part, nc, 2, 0);
}

static double FN(dot)(const REAL *u, const REAL *v, int64_t n, double *part,
                      int64_t nc) {
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
  for (int64_t c = 0; c < nc; c++) {
    double s = 0.0;
    for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, n); i++)
      s += (double)u[i] * (double)v[i];
    part[c] = s;
  }
  return sum_parts(part, nc, 1, 0);
}

/* ||v||^2: u.v with u = v (the same bits as a sum of squares). */
static double FN(norm2sq)(const REAL *v, int64_t n, double *part, int64_t nc) {
  return FN(dot)(v, v, n, part, nc);
}

/* z = p(D^-1 A) D^-1 r, the Chebyshev preconditioner (smv_cheb in
 * solve_internal.h): a first step without SpMV, then ch->degree steps of
 * one SpMV (w = A z) each; d and w are work vectors. Returns r.z. */
static double FN(cheb_apply)(const smv_csr *A, const REAL *vals, const REAL *r,
                             REAL *z, REAL *d, REAL *w, const double *dinv,
                             const smv_cheb *ch, double *part, int64_t nc) {
  const int64_t n = A->rows;
#pragma omp parallel for schedule(static) if (n >=                             \
                                              SOLVE_PAR_CHUNKS * SOLVE_CHUNK)
  for (int64_t i = 0; i < n; i++)
    z[i] = d[i] = (REAL)((double)r[i] * dinv[i] * ch->inv_theta);
  for (int j = 0; j < ch->degree; j++) {
    FN(spmv_dot)(A, vals, z, w, NULL, part, nc);
    const double c1 = ch->c1[j], c2 = ch->c2[j];
#pragma omp parallel for schedule(static) if (n >=                             \
                                              SOLVE_PAR_CHUNKS * SOLVE_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      const REAL di =
          (REAL)(c1 * (double)d[i] + c2 * dinv[i] * (double)(r[i] - w[i]));
      d[i] = di;
      z[i] += di;
    }
  }
  return FN(dot)(r, z, n, part, nc);
}

/* The start shared by CG and BiCGStab: x = 0 unless the caller's guess is
 * used; r = b - A x (or b), z = dinv .* r (z may be r), copied to zcopy
 * (CG's p, BiCGStab's rhat); *rr = r.r and *rz = r.z; returns ||b||.
 * b = 0: x = 0, converged at once, 0 returned (nothing else written). */
static double FN(begin)(const smv_csr *A, const REAL *vals, const REAL *b,
                        REAL *x, REAL *r, REAL *z, REAL *zcopy,
                        const double *dinv, double *part, int64_t nc,
                        const smv_solve_options *o, smv_solve_result *res,
                        double *rr, double *rz) {
  const int64_t n = A->rows;
  const double bb = FN(norm2sq)(b, n, part, nc);
  if (!o->use_x0 || bb == 0.0)
    for (int64_t i = 0; i < n; i++)
      x[i] = 0;
  if (bb == 0.0) {
    record(o, res, 0, 0.0);
    res->converged = 1;
    return 0.0;
  }
  *rr = FN(spmv_fused)(A, vals, b, o->use_x0 ? x : NULL, r, z, dinv, NULL, part,
                       nc, rz);
  memcpy(zcopy, z, (size_t)n * sizeof *zcopy);
  return sqrt(bb);
}

/* ---- CG ------------------------------------------------------------------
 * Preconditioned CG (Saad, Algorithm 9.1) with z = M^-1 r: dinv .* r for
 * Jacobi (fused into the update), the Chebyshev polynomial when cheb is
 * set (its own passes); without a preconditioner z aliases r. Per
 * iteration: q = A p fused with p.q; the update x += alpha p,
 * r -= alpha q (z = dinv r) fused with r.z and r.r; then p = z + beta p. */
static smv_status FN(cg_run)(const smv_csr *A, const REAL *vals, const REAL *b,
                             REAL *x, const double *dinv, const smv_cheb *cheb,
                             const smv_solve_options *o, smv_solve_result *res,
                             smv_error *err) {
  const int64_t n = A->rows, nc = nchunks(n);
  REAL *r = NULL, *z = NULL, *p = NULL, *q = NULL, *cd = NULL, *cw = NULL;
  const double *jac = cheb ? NULL : dinv; /* fused z = dinv r */
  double *part = malloc(((size_t)nc * 2 + 1) * sizeof *part);
  r = malloc(((size_t)n + 1) * sizeof *r);
  p = malloc(((size_t)n + 1) * sizeof *p);
  q = malloc(((size_t)n + 1) * sizeof *q);
  z = dinv ? malloc(((size_t)n + 1) * sizeof *z) : r;
  if (cheb) {
    cd = malloc(((size_t)n + 1) * sizeof *cd);
    cw = malloc(((size_t)n + 1) * sizeof *cw);
  }
  smv_status st = part && r && p && q && z && (!cheb || (cd && cw))
                      ? SMV_OK
                      : no_vectors("cg", 6, n, err);
  double rr = 0.0, rho = 0.0;
  const double bnorm = st == SMV_OK
                           ? FN(begin)(A, vals, b, x, r, cheb ? r : z, p, jac,
                                       part, nc, o, res, &rr, &rho)
                           : 0.0;
  if (bnorm == 0.0)
    goto out;
  if (cheb) {
    rho = FN(cheb_apply)(A, vals, r, z, cd, cw, dinv, cheb, part, nc);
    memcpy(p, z, (size_t)n * sizeof *p);
  }
  double relres = sqrt(rr) / bnorm;
  record(o, res, 0, relres);
  int k = 0;
  while (!(relres <= o->tol) && k < o->maxit) {
    /* r.z <= 0 or p.Ap <= 0: A (or M) is not positive definite. */
    if (rho <= 0.0 || !isfinite(rho) || !isfinite(relres)) {
      res->breakdown = 1;
      break;
    }
    const double pq = FN(spmv_dot)(A, vals, p, q, p, part, nc);
    if (pq <= 0.0 || !isfinite(pq)) {
      res->breakdown = 1;
      break;
    }
    const REAL alpha = (REAL)(rho / pq);
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
    for (int64_t c = 0; c < nc; c++) {
      double s0 = 0.0, s1 = 0.0;
      for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, n); i++) {
        x[i] += alpha * p[i];
        REAL ri = r[i] - alpha * q[i];
        r[i] = ri;
        REAL zi = ri;
        if (jac)
          z[i] = zi = (REAL)(ri * jac[i]);
        s0 += (double)ri * (double)zi;
        s1 += (double)ri * (double)ri;
      }
      part[2 * c] = s0;
      part[2 * c + 1] = s1;
    }
    double rz = sum_parts(part, nc, 2, 0);
    rr = sum_parts(part, nc, 2, 1);
    relres = sqrt(rr) / bnorm;
    record(o, res, ++k, relres);
    if (relres <= o->tol)
      break;
    if (cheb)
      rz = FN(cheb_apply)(A, vals, r, z, cd, cw, dinv, cheb, part, nc);
    const REAL beta = (REAL)(rz / rho);
    rho = rz;
#pragma omp parallel for schedule(static) if (n >=                             \
                                              SOLVE_PAR_CHUNKS * SOLVE_CHUNK)
    for (int64_t i = 0; i < n; i++)
      p[i] = z[i] + beta * p[i];
  }
  res->converged = relres <= o->tol && !res->breakdown;
out:
  free(part);
  free(r);
  free(p);
  free(q);
  if (dinv)
    free(z);
  free(cd);
  free(cw);
  return st;
}

/* ---- BiCGStab --------------------------------------------------------------
 * Right-preconditioned BiCGStab (van der Vorst 1992; Saad Algorithm 7.7
 * with M^-1 = dinv) — the same steps and fusions as the CUDA version:
 *   p = r + beta (p - omega v), phat = M^-1 p
 *   v = A phat, with rhat.v            -> alpha = rho / rhat.v
 *   s = r - alpha v, shat = M^-1 s, with s.s
 *   if ||s||/||b|| <= tol: omega = 0 (the half step converged)
 *   else t = A shat, with t.s and t.t  -> omega = t.s / t.t
 *   x += alpha phat + omega shat, r = s - omega t, with r.r and rhat.r */
static smv_status FN(bicgstab_run)(const smv_csr *A, const REAL *vals,
                                   const REAL *b, REAL *x, const double *dinv,
                                   const smv_solve_options *o,
                                   smv_solve_result *res, smv_error *err) {
  const int64_t n = A->rows, nc = nchunks(n);
  const size_t vb = ((size_t)n + 1) * sizeof(REAL);
  double *part = malloc(((size_t)nc * 2 + 1) * sizeof *part);
  REAL *r = malloc(vb), *rh = malloc(vb), *p = malloc(vb), *v = malloc(vb);
  REAL *s = malloc(vb), *t = malloc(vb);
  REAL *ph = dinv ? malloc(vb) : p, *sh = dinv ? malloc(vb) : s;
  smv_status st = part && r && rh && p && v && s && t && ph && sh
                      ? SMV_OK
                      : no_vectors("bicgstab", 8, n, err);
  double rr = 0.0, unused;
  const double bnorm = st == SMV_OK ? FN(begin)(A, vals, b, x, r, r, rh, NULL,
                                                part, nc, o, res, &rr, &unused)
                                    : 0.0;
  if (bnorm == 0.0)
    goto out;
  for (int64_t i = 0; i < n; i++)
    p[i] = v[i] = 0;
  double rho = 1.0, alpha = 1.0, omega = 1.0, rho_new = rr;
  double relres = sqrt(rr) / bnorm;
  record(o, res, 0, relres);
  int k = 0;
  while (!(relres <= o->tol) && k < o->maxit) {
    if (rho_new == 0.0 || !isfinite(rho_new) || omega == 0.0 ||
        !isfinite(relres)) {
      res->breakdown = 1;
      break;
    }
    const REAL beta = (REAL)((rho_new / rho) * (alpha / omega));
    const REAL om = (REAL)omega;
#pragma omp parallel for schedule(static) if (n >=                             \
                                              SOLVE_PAR_CHUNKS * SOLVE_CHUNK)
    for (int64_t i = 0; i < n; i++) {
      REAL pi = r[i] + beta * (p[i] - om * v[i]);
      p[i] = pi;
      if (dinv)
        ph[i] = (REAL)(pi * dinv[i]);
    }
    rho = rho_new;
    const double rv = FN(spmv_dot)(A, vals, ph, v, rh, part, nc);
    if (rv == 0.0 || !isfinite(rv)) {
      res->breakdown = 1;
      break;
    }
    alpha = rho / rv;
    const REAL al = (REAL)alpha;
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
    for (int64_t c = 0; c < nc; c++) {
      double s0 = 0.0;
      for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, n); i++) {
        REAL si = r[i] - al * v[i];
        s[i] = si;
        if (dinv)
          sh[i] = (REAL)(si * dinv[i]);
        s0 += (double)si * (double)si;
      }
      part[c] = s0;
    }
    const double ss = sum_parts(part, nc, 1, 0);
    if (sqrt(ss) / bnorm <= o->tol) {
      omega = 0.0; /* converged at the half step: x += alpha phat */
    } else {
      double tt; /* t = A shat; ts = t.s, tt = t.t */
      const double ts =
          FN(spmv_fused)(A, vals, NULL, sh, t, t, NULL, s, part, nc, &tt);
      omega = tt != 0.0 ? ts / tt : 0.0;
    }
    const REAL w = (REAL)omega;
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
    for (int64_t c = 0; c < nc; c++) {
      double s0 = 0.0, s1 = 0.0;
      for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, n); i++) {
        REAL ri = w != 0 ? s[i] - w * t[i] : s[i];
        x[i] += al * ph[i] + (w != 0 ? w * sh[i] : 0);
        r[i] = ri;
        s0 += (double)ri * (double)ri;
        s1 += (double)rh[i] * (double)ri;
      }
      part[2 * c] = s0;
      part[2 * c + 1] = s1;
    }
    rr = sum_parts(part, nc, 2, 0);
    rho_new = sum_parts(part, nc, 2, 1);
    relres = sqrt(rr) / bnorm;
    record(o, res, ++k, relres);
  }
  res->converged = relres <= o->tol && !res->breakdown;
out:
  free(part);
  free(r), free(rh), free(p), free(v), free(s), free(t);
  if (dinv)
    free(ph), free(sh);
  return st;
}

/* ---- PageRank --------------------------------------------------------------
 * r' = d PT r + (d * dangling mass / n + (1 - d) v), in place, with the L1
 * change; then the new dangling mass. */
static smv_status FN(pagerank_run)(const smv_csr *PT, const REAL *vals,
                                   const double *v, const int32_t *dl,
                                   int64_t nd, REAL *r,
                                   const smv_solve_options *o,
                                   smv_solve_result *res, smv_error *err) {
  const int64_t n = PT->rows, nc = nchunks(n), ncd = nchunks(nd);
  const double d = o->damping;
  REAL *y = malloc(((size_t)n + 1) * sizeof *y);
  double *part = malloc(((size_t)(nc > ncd ? nc : ncd) + 1) * sizeof *part);
  if (!y || !part) {
    free(y);
    free(part);
    return smv_err_set(err, SMV_ERR_NOMEM, NULL, 0,
                       "pagerank: out of memory (%lld entries)", (long long)n);
  }
  for (int64_t i = 0; i < n; i++)
    r[i] = (REAL)v[i];
  record(o, res, 0, 1.0); /* the change from 0 to the start vector */
  double delta = 1.0;
  int k = 0;
  while (!(delta <= o->tol) && k < o->maxit) {
#pragma omp parallel for schedule(dynamic, 1) if (ncd >= SOLVE_PAR_CHUNKS)
    for (int64_t c = 0; c < ncd; c++) {
      double s = 0.0;
      for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, nd); i++)
        s += (double)r[dl[i]];
      part[c] = s;
    }
    const double dang = sum_parts(part, ncd, 1, 0);
    FN(spmv_dot)(PT, vals, r, y, NULL, part, nc);
    const double shift = d * dang / (double)n;
#pragma omp parallel for schedule(dynamic, 1) if (nc >= SOLVE_PAR_CHUNKS)
    for (int64_t c = 0; c < nc; c++) {
      double s = 0.0;
      for (int64_t i = c * SOLVE_CHUNK; i < chunk_end(c, n); i++) {
        REAL ri = (REAL)(d * (double)y[i] + shift + (1.0 - d) * v[i]);
        s += fabs((double)ri - (double)r[i]);
        r[i] = ri;
      }
      part[c] = s;
    }
    delta = sum_parts(part, nc, 1, 0);
    record(o, res, ++k, delta);
  }
  res->converged = delta <= o->tol;
  free(y);
  free(part);
  return SMV_OK;
}

#undef FN
#undef SFN1
#undef SFN2
