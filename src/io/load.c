/* load.c — a MATRIX argument as the CLI (and any program) takes it: an
 * existing file is Matrix Market, otherwise a generator spec, otherwise a
 * clear "no such file" error. A file always wins over a spec of the same
 * spelling, so a file literally named "diag:5" is still read. */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

smv_status smv_load(const char *matrix, const smv_read_options *opt,
                    smv_csr **A, smv_error *err) {
  smv_err_clear(err);
  if (A)
    *A = NULL;
  if (!matrix || !A)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_load: NULL matrix name or result pointer");
  if (!*matrix)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "empty matrix name (expected a file or a generator "
                       "spec such as lap2d:100)");
  struct stat sb;
  if (stat(matrix, &sb) == 0)
    return smv_mm_read(matrix, opt, A, err);
  const int e = errno;
  if (smv_is_spec(matrix))
    return smv_generate(matrix, A, err);
  /* A path that exists but cannot be examined (permissions on a parent
   * directory) is a file problem. */
  if (e != ENOENT && e != ENOTDIR)
    return smv_err_set(err, SMV_ERR_IO, matrix, 0, "%s", strerror(e));
  return smv_err_set(err, SMV_ERR_IO, matrix, 0,
                     "no such file (and not a generator spec)");
}
