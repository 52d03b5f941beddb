/* alg.c — names of the kernel ladder's rungs (host side, no CUDA needed so
 * the CLI can parse --alg everywhere). Numbers are stable: see
 * src/cuda/dispatch.cu for what each rung changes. */
#include "smv.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const alg_names[SMV_ALG_COUNT] = {
    "auto",          "scalar",      "vector",        "vector-tex",
    "vector-ldg",    "vector-shfl", "vector-atomic", "cusparse-alg1",
    "cusparse-alg2", "adaptive",    "stream"};

/* The CUDA kernel behind each rung (cuSPARSE rungs have none of ours). */
static const char *const kernel_names[SMV_ALG_COUNT] = {NULL,
                                                        "spmv_scalar",
                                                        "spmv_vector",
                                                        "spmv_vector_tex",
                                                        "spmv_vector_ldg",
                                                        "spmv_vector_shfl",
                                                        "spmv_vector_atomic",
                                                        NULL,
                                                        NULL,
                                                        "spmv_adaptive",
                                                        "spmv_stream"};

const char *smv_alg_name(smv_alg alg) {
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return NULL;
  return alg_names[alg];
}

const char *smv_kernel_name(smv_alg alg) {
  if ((int)alg < 0 || alg >= SMV_ALG_COUNT)
    return NULL;
  return kernel_names[alg];
}

smv_status smv_alg_parse(const char *name, smv_alg *alg) {
  if (!name || !alg)
    return SMV_ERR_ARG;
  for (int i = 0; i < SMV_ALG_COUNT; i++) {
    if (strcasecmp(name, alg_names[i]) == 0 ||
        (kernel_names[i] && strcasecmp(name, kernel_names[i]) == 0)) {
      *alg = (smv_alg)i;
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
