/*
 * gen.h — private to src/gen: the parsed generator spec and what the
 * generator's files share.
 *
 *   spec.c      the kinds, their grammar and help text, gen_parse_spec
 *               (shape and nnz in closed form, before anything allocates);
 *   rows.c      every kind but rmat: row lengths, prefix sum, rows filled
 *               in parallel (stencils, bands, random and power-law rows);
 *   rmat.c      Graph500's Kronecker generator;
 *   perm.c      perm=rand: B = P A Q^T;
 *   generate.c  the public entry points, the memory guard and the
 *               finishing touches every kind shares.
 */
#ifndef SMV_GEN_H
#define SMV_GEN_H

#include "internal.h"
#include "smv_lab.h" /* smv_rng, the library's one PRNG stream */

#include <stdint.h>

/* ---- the kinds --------------------------------------------------------- */

typedef enum {
  G_LAP2D,
  G_LAP3D,
  G_RAND,
  G_PLAW,
  G_BAND,
  G_DENSEROW,
  G_DIAG,
  G_EMPTY,
  G_STENCIL27,
  G_ELASTIC3D,
  G_RMAT,
  G_COUNT
} gkind;

#define OPT_COLS 1u
#define OPT_SEED 2u
#define OPT_PERM 4u /* every kind: perm=rand|none */

/* ---- PRNG: splitmix64 ---------------------------------------------------- */

/* The library's one stream (src/core/rng.c). */
typedef smv_rng rng;
static inline uint64_t mix64(uint64_t z) { return smv_mix64(z); }
static inline uint64_t rng_next(rng *r) { return smv_rng_next(r); }

/* Uniform in [0, n) for 1 <= n < 2^32 (Lemire's multiply-shift; the bias
 * is below 2^-32 per draw, irrelevant for test matrices). */
static inline int64_t rng_below(rng *r, int64_t n) {
  return (int64_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* A value in [-1.5,-0.5) U [0.5,1.5): magnitude from the top 52 bits (the
 * product is exact, so the result is bit-identical everywhere), sign from
 * the lowest. */
static inline double rng_value(rng *r) {
  uint64_t b = rng_next(r);
  double mag = 0.5 + (double)(b >> 12) * 0x1p-52;
  return (b & 1) ? -mag : mag;
}

typedef struct {
  gkind kind;
  int64_t arg[2];
  int64_t rows, cols;
  uint64_t seed;
  int64_t n;         /* grid side (lap2d, lap3d) */
  int64_t dense_row; /* denserow */
  int64_t nnz;       /* known before allocation (rmat: an upper bound) */
  int perm;          /* perm=rand: P A P^T (see permute below) */
} gspec;

/* Parse a spec into g: kind, arguments, options, shape and nnz (rmat: an
 * upper bound), or an error naming the spec and the expected form. */
smv_status gen_parse_spec(const char *spec, gspec *g, smv_error *err);
/* An error about `spec` (k = G_COUNT: no kind to cite the usage of). */
smv_status gen_spec_error(smv_error *err, smv_status st, const char *spec,
                          gkind k, const char *fmt, ...) SMV_PRINTF(5, 6);
/* Generators: every kind but rmat (rows.c), rmat (rmat.c). On success *A
 * is a finished matrix (gen_finish). */
smv_status gen_rows(const gspec *g, const char *spec, smv_csr **A,
                    smv_error *err);
smv_status gen_rmat(const gspec *g, const char *spec, smv_csr **A,
                    smv_error *err);
/* perm=rand (perm.c): the permutations a spec applies (identity without
 * perm; either pointer may be NULL), and *A replaced by P A Q^T. */
void gen_spec_perms(const gspec *g, smv_index *p, smv_index *q);
smv_status gen_permute(const gspec *g, const char *spec, smv_csr **A,
                       smv_error *err);
/* Sort n distinct keys, carrying vals (may be NULL), scratch of n each
 * (rmat.c; perm.c sorts its renamed rows with it). */
void gen_sort_keys(smv_index *keys, double *vals, int64_t n, smv_index *ktmp,
                   double *vtmp);
/* A generator out of memory for `what`: frees m, returns SMV_ERR_NOMEM. */
smv_status gen_out_of_memory(smv_csr *m, const char *spec, const char *what,
                             smv_error *err);
/* A finished generated matrix: sorted rows, real general coordinate. */
smv_status gen_finish(smv_csr *m, smv_csr **A);

#endif
