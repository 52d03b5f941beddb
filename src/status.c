/* status.c — status names, error records, library-owned buffers. */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *smv_status_string(smv_status s) {
  switch (s) {
  case SMV_OK:
    return "SMV_OK: success";
  case SMV_ERR_ARG:
    return "SMV_ERR_ARG: invalid argument";
  case SMV_ERR_NOMEM:
    return "SMV_ERR_NOMEM: out of memory";
  case SMV_ERR_IO:
    return "SMV_ERR_IO: input/output error";
  case SMV_ERR_PARSE:
    return "SMV_ERR_PARSE: malformed input";
  case SMV_ERR_UNSUPPORTED:
    return "SMV_ERR_UNSUPPORTED: unsupported input";
  case SMV_ERR_OVERFLOW:
    return "SMV_ERR_OVERFLOW: size beyond the index types";
  case SMV_ERR_DIM:
    return "SMV_ERR_DIM: dimension mismatch";
  case SMV_ERR_NO_DEVICE:
    return "SMV_ERR_NO_DEVICE: no CUDA device available";
  case SMV_ERR_CUDA:
    return "SMV_ERR_CUDA: CUDA runtime error";
  case SMV_ERR_CUSPARSE:
    return "SMV_ERR_CUSPARSE: cuSPARSE error";
  case SMV_ERR_INVALID_MATRIX:
    return "SMV_ERR_INVALID_MATRIX: inconsistent CSR arrays";
  case SMV_ERR_NOT_FOUND:
    return "SMV_ERR_NOT_FOUND: not found";
  }
  return "SMV_ERR_?: unknown status";
}

void smv_free(void *p) { free(p); }

void smv_err_clear(smv_error *err) {
  if (!err)
    return;
  err->status = SMV_OK;
  err->line = 0;
  err->file[0] = '\0';
  err->message[0] = '\0';
}

smv_status smv_err_set(smv_error *err, smv_status st, const char *file,
                       long line, const char *fmt, ...) {
  if (!err)
    return st;
  char reason[SMV_ERROR_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  err->status = st;
  err->line = line;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  /* Prefix first, then as much of the reason as fits (long file names or
   * reasons are cut, never overflow). */
  int n = 0;
  if (file && line > 0)
    n = snprintf(err->message, sizeof err->message, "%s:%ld: ", file, line);
  else if (file)
    n = snprintf(err->message, sizeof err->message, "%s: ", file);
  if (n < 0 || (size_t)n >= sizeof err->message)
    n = 0;
  size_t room = sizeof err->message - (size_t)n;
  if (snprintf(err->message + n, room, "%s", reason) < 0)
    err->message[n] = '\0';
  return st;
}
