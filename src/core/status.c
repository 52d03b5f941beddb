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

/* A file name as messages show it: whole up to 239 bytes, else its first
 * and last ~110 bytes around "..." (cut between UTF-8 characters), so the
 * "FILE:LINE: " prefix and the reason always fit in the message. */
static const char *short_name(const char *file, char out[240]) {
  size_t n = strlen(file);
  if (n < 240)
    return file;
  size_t head = 110, tail = n - 110;
  while (head > 0 && ((unsigned char)file[head] & 0xc0) == 0x80)
    head--; /* file[head] would start the cut-off part mid-character */
  while (tail < n && ((unsigned char)file[tail] & 0xc0) == 0x80)
    tail++;
  snprintf(out, 240, "%.*s...%s", (int)head, file, file + tail);
  return out;
}

smv_status smv_err_set(smv_error *err, smv_status st, const char *file,
                       long line, const char *fmt, ...) {
  if (!err)
    return st;
  char shortened[240];
  if (file)
    file = short_name(file, shortened);
  char reason[SMV_ERROR_TEXT];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  err->status = st;
  err->line = line;
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  /* Prefix first (file names are shortened above, so it always fits),
   * then as much of the reason as fits. */
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
