/* alg.c — names of the kernel ladder's rungs (host side, no CUDA needed so
 * the CLI can parse --alg everywhere), all from the registry
 * src/core/rungs.def. Numbers are stable: see src/cuda/engine/dispatch.cu for
 * what each rung changes. */
#include "smv_lab.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rung_info {
  smv_alg alg;
  const char *name;   /* --alg NAME                                   */
  const char *kernel; /* the CUDA kernel of ours, NULL for cuSPARSE   */
  const char *what;   /* one line: what the rung changes              */
  int tuned;          /* a candidate of smv_matrix_tune               */
};

static const struct rung_info rungs[] = {
#define SMV_RUNG(n, alg, name, kernel, glue, tuned, what)                      \
  {alg, name, kernel, what, tuned},
#define SMV_RUNG_LIB(n, alg, name, glue, tuned, what)                          \
  {alg, name, NULL, what, tuned},
#define SMV_RUNG_AUTO(n, alg, name, what) {alg, name, NULL, what, 0},
#include "rungs.def"
#undef SMV_RUNG
#undef SMV_RUNG_LIB
#undef SMV_RUNG_AUTO
};
_Static_assert(sizeof rungs / sizeof rungs[0] == SMV_ALG_COUNT,
               "src/core/rungs.def needs one line per smv_alg");

/* The registry's line for alg (lines are in number order: checked by
 * tests/test_rungs.c), NULL if out of range. */
static const struct rung_info *info(smv_alg alg) {
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return NULL;
  return &rungs[alg];
}

const char *smv_alg_name(smv_alg alg) {
  const struct rung_info *r = info(alg);
  return r ? r->name : NULL;
}

const char *smv_alg_description(smv_alg alg) {
  const struct rung_info *r = info(alg);
  return r ? r->what : NULL;
}

int smv_alg_tuned(smv_alg alg) {
  const struct rung_info *r = info(alg);
  return r ? r->tuned : 0;
}

const char *smv_kernel_name(smv_alg alg) {
  const struct rung_info *r = info(alg);
  return r ? r->kernel : NULL;
}

/* Former names, still parsed so users' scripts keep working (smv.h):
 * rung 10 was "stream" until the word was kept for CUDA streams. */
static const struct {
  const char *name;
  smv_alg alg;
} former[] = {{"stream", SMV_ALG_TILED}, {"spmv_stream", SMV_ALG_TILED}};

smv_status smv_alg_parse(const char *name, smv_alg *alg) {
  if (!name || !alg)
    return SMV_ERR_ARG;
  for (size_t i = 0; i < sizeof former / sizeof former[0]; i++)
    if (strcasecmp(name, former[i].name) == 0) {
      *alg = former[i].alg;
      return SMV_OK;
    }
  for (int i = 0; i < SMV_ALG_COUNT; i++) {
    if (strcasecmp(name, rungs[i].name) == 0 ||
        (rungs[i].kernel && strcasecmp(name, rungs[i].kernel) == 0)) {
      *alg = rungs[i].alg;
      return SMV_OK;
    }
  }
  char *end;
  long v = strtol(name, &end, 10);
  if (*name && *end == '\0' && v >= 0 && v < SMV_ALG_COUNT) {
    *alg = (smv_alg)v;
    return SMV_OK;
  }
  return SMV_ERR_NOT_FOUND;
}

/* AUTO's rule, as text (src/core/auto.def; the engine evaluates the same
 * lines in smv_auto_choose). */
static const struct {
  const char *cond;
  smv_alg alg;
  const char *why;
} auto_rule[] = {
#define SMV_AUTO_RULE(cond, alg, why) {#cond, alg, why},
#include "auto.def"
#undef SMV_AUTO_RULE
};

smv_status smv_auto_rule_line(int i, char *buf, size_t n) {
  if (!buf || n == 0)
    return SMV_ERR_ARG;
  if (i < 0 || (size_t)i >= sizeof auto_rule / sizeof auto_rule[0])
    return SMV_ERR_NOT_FOUND;
  const int w = snprintf(buf, n, "%d. `%s` -> `%s` (rung %d): %s", i + 1,
                         auto_rule[i].cond, smv_alg_name(auto_rule[i].alg),
                         (int)auto_rule[i].alg, auto_rule[i].why);
  return w >= 0 && (size_t)w < n ? SMV_OK : SMV_ERR_ARG;
}

/* Precision names: one table for smv_precision_name and _parse, so the
 * CLI prints what it parses. */
static const char *const precision_names[SMV_PRECISION_COUNT] = {"f64", "f32",
                                                                 "f64-f32v"};

const char *smv_precision_name(smv_precision prec) {
  if ((int)prec < 0 || prec >= SMV_PRECISION_COUNT)
    return NULL;
  return precision_names[prec];
}

smv_status smv_precision_parse(const char *name, smv_precision *prec) {
  if (!name || !prec)
    return SMV_ERR_ARG;
  for (int i = 0; i < SMV_PRECISION_COUNT; i++)
    if (strcasecmp(name, precision_names[i]) == 0) {
      *prec = (smv_precision)i;
      return SMV_OK;
    }
  return SMV_ERR_PARSE;
}

/* The rungs that run f64-f32v (f32 values, f64 vectors and sums): the
 * ones whose kernels take the value type as a template parameter. The
 * engine's descriptors say the same (checked by smv_blocks_init). */
static const smv_alg f32v_rungs[] = {SMV_ALG_VECTOR, SMV_ALG_ADAPTIVE,
                                     SMV_ALG_TILED};

int smv_alg_runs_precision(smv_alg alg, smv_precision prec) {
  if (!info(alg) || !smv_precision_name(prec))
    return 0;
  if (alg == SMV_ALG_AUTO || prec != SMV_F64_F32V)
    return 1;
  for (size_t i = 0; i < sizeof f32v_rungs / sizeof f32v_rungs[0]; i++)
    if (f32v_rungs[i] == alg)
      return 1;
  return 0;
}
