/* mm_write.c — Matrix Market writer (placeholder until the real one lands). */
#include "internal.h"

smv_status smv_mm_write(const char *path, const smv_csr *A, smv_error *err) {
  (void)A;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, path, 0,
                     "Matrix Market writer not built yet");
}

smv_status smv_mm_write_file(FILE *f, const smv_csr *A, smv_error *err) {
  (void)f, (void)A;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, NULL, 0,
                     "Matrix Market writer not built yet");
}
