/* mm_vector.c — Matrix Market vectors (placeholder until the real one lands).
 */
#include "internal.h"

smv_status smv_mm_read_vector(const char *path, double **v, int64_t *n,
                              smv_error *err) {
  if (v)
    *v = NULL;
  if (n)
    *n = 0;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, path, 0,
                     "Matrix Market vector reader not built yet");
}

smv_status smv_mm_write_vector(const char *path, const double *v, int64_t n,
                               smv_error *err) {
  (void)v, (void)n;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, path, 0,
                     "Matrix Market vector writer not built yet");
}

smv_status smv_mm_write_vector_file(FILE *f, const double *v, int64_t n,
                                    smv_error *err) {
  (void)f, (void)v, (void)n;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, NULL, 0,
                     "Matrix Market vector writer not built yet");
}
