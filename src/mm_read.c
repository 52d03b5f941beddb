/* mm_read.c — Matrix Market reader (placeholder until the real one lands). */
#include "internal.h"

smv_status smv_mm_read(const char *path, const smv_read_options *opt,
                       smv_csr **A, smv_error *err) {
  (void)opt;
  if (A)
    *A = NULL;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, path, 0,
                     "Matrix Market reader not built yet");
}

smv_status smv_mm_read_file(FILE *f, const char *name,
                            const smv_read_options *opt, smv_csr **A,
                            smv_error *err) {
  (void)f, (void)opt;
  if (A)
    *A = NULL;
  return smv_err_set(err, SMV_ERR_UNSUPPORTED, name, 0,
                     "Matrix Market reader not built yet");
}
