/*
 * mm_write.c — Matrix Market writer: coordinate real general for matrices,
 * array real general n x 1 for vectors; values with %.17g, which
 * round-trips every double exactly through the reader. A path ending in
 * .gz is written gzip-compressed (zlib's default level).
 *
 * Output is formatted into a 1 MiB buffer (indices by hand, values by
 * snprintf in the "C" locale so the decimal point is always '.') and
 * handed to fwrite or gzwrite a buffer at a time. Every write, the final
 * flush and the close are checked: a full disk is SMV_ERR_IO naming the
 * path. A path is written through outfile.c: a regular file is replaced
 * only once complete (a failed write leaves the old one as it was); a
 * device or a pipe is written in place.
 */
#include "mm_write.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define OUT_BUF ((size_t)1 << 20)
#define OUT_SLACK 128 /* room for one formatted entry (~60 bytes) */

struct mm_out {
  FILE *f;
  gzFile gz;
  smv_file *file; /* the output file when opened by path (outfile.c) */
  const char *name;
  char *buf;
  size_t len;
  int failed;
  int err_no;
  locale_t cloc, old;
};

static int ends_with_gz(const char *path) {
  size_t n = strlen(path);
  return n >= 3 && path[n - 3] == '.' &&
         tolower((unsigned char)path[n - 2]) == 'g' &&
         tolower((unsigned char)path[n - 1]) == 'z';
}

static void out_flush(mm_out *o) {
  if (o->failed || o->len == 0) {
    o->len = 0;
    return;
  }
  errno = 0;
  if (o->gz) {
    if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) {
      int zerr;
      gzerror(o->gz, &zerr);
      o->failed = 1;
      o->err_no = zerr == Z_ERRNO ? errno : 0;
    }
  } else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
    o->failed = 1;
    o->err_no = errno;
  }
  o->len = 0;
}

/* Room for one more entry. */
static char *out_room(mm_out *o) {
  if (o->len + OUT_SLACK > OUT_BUF)
    out_flush(o);
  return o->buf + o->len;
}

static char *put_u64(char *p, uint64_t x) {
  char tmp[24];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + x % 10);
    x /= 10;
  } while (x);
  while (n)
    *p++ = tmp[--n];
  return p;
}

static char *put_double(char *p, double v) {
  int n = snprintf(p, 32, "%.17g", v);
  return p + (n > 0 && n < 32 ? n : 0);
}

smv_status smv__mm_out_open(mm_out **po, FILE *f, const char *path,
                            smv_error *err) {
  *po = NULL;
  mm_out *o = calloc(1, sizeof *o);
  char *buf = malloc(OUT_BUF);
  if (!o || !buf) {
    free(o);
    free(buf);
    return smv_err_set(err, SMV_ERR_NOMEM, path, 0,
                       "out of memory for the output buffer");
  }
  o->buf = buf;
  /* A stream has no name of its own: standard output is the usual one. */
  o->name = path             ? path
            : fileno(f) == 1 ? "stdout"
            : fileno(f) == 2 ? "stderr"
                             : "(stream)";
  if (f) {
    o->f = f;
  } else {
    int fd;
    smv_status st = smv__file_begin(path, &o->file, &fd, err);
    if (st != SMV_OK) {
      free(buf);
      free(o);
      return st;
    }
    errno = 0;
    if (ends_with_gz(path)) {
      if ((o->gz = gzdopen(fd, "wb")))
        gzbuffer(o->gz, 256u << 10);
    } else {
      o->f = fdopen(fd, "wb");
    }
    if (!o->gz && !o->f) {
      int e = errno;
      close(fd);
      smv__file_end(o->file, 0, NULL);
      free(buf);
      free(o);
      return smv_err_set(err, SMV_ERR_IO, path, 0,
                         "cannot open for writing: %s",
                         e ? strerror(e) : "out of memory");
    }
  }
  o->cloc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (o->cloc)
    o->old = uselocale(o->cloc);
  *po = o;
  return SMV_OK;
}

smv_status smv__mm_out_close(mm_out *o, int close_file, smv_error *err) {
  out_flush(o);
  if (!o->failed && o->f && fflush(o->f) != 0) {
    o->failed = 1;
    o->err_no = errno;
  }
  if (o->gz) {
    errno = 0;
    int r = gzclose(o->gz);
    if (r != Z_OK && !o->failed) {
      o->failed = 1;
      o->err_no = r == Z_ERRNO ? errno : 0;
    }
  } else if (close_file && o->f) {
    if (fclose(o->f) != 0 && !o->failed) {
      o->failed = 1;
      o->err_no = errno;
    }
  }
  if (o->cloc) {
    uselocale(o->old);
    freelocale(o->cloc);
  }
  smv_status st = SMV_OK;
  if (o->failed)
    st = smv_err_set(err, SMV_ERR_IO, o->name, 0, "write error: %s",
                     o->err_no ? strerror(o->err_no) : "gzip write failed");
  else
    smv_err_clear(err);
  /* Only a complete file replaces what was at the path. */
  if (o->file && smv__file_end(o->file, !o->failed, err) != SMV_OK)
    st = SMV_ERR_IO;
  free(o->buf);
  free(o);
  return st;
}

void smv__mm_out_text(mm_out *o, const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    char *p = out_room(o);
    size_t room = OUT_BUF - o->len;
    size_t k = n < room ? n : room;
    memcpy(p, s, k);
    o->len += k;
    s += k;
    n -= k;
  }
}

void smv__mm_out_value(mm_out *o, double v) {
  char *p = out_room(o);
  p = put_double(p, v);
  *p++ = '\n';
  o->len = (size_t)(p - o->buf);
}

static void out_entry(mm_out *o, uint64_t i, uint64_t j, double v) {
  char *p = out_room(o);
  p = put_u64(p, i);
  *p++ = ' ';
  p = put_u64(p, j);
  *p++ = ' ';
  p = put_double(p, v);
  *p++ = '\n';
  o->len = (size_t)(p - o->buf);
}

static smv_status write_matrix(FILE *f, const char *path, const smv_csr *A,
                               smv_error *err) {
  smv_status st = smv_csr_check(A, err);
  if (st != SMV_OK)
    return st;
  mm_out *o;
  st = smv__mm_out_open(&o, f, path, err);
  if (st != SMV_OK)
    return st;
  char head[128];
  snprintf(head, sizeof head,
           "%%%%MatrixMarket matrix coordinate real general\n%lld %lld "
           "%lld\n",
           (long long)A->rows, (long long)A->cols, (long long)A->nnz);
  smv__mm_out_text(o, head);
  for (int64_t r = 0; r < A->rows && !o->failed; r++)
    for (int64_t k = A->row_ptr[r]; k < A->row_ptr[r + 1]; k++)
      out_entry(o, (uint64_t)r + 1, (uint64_t)A->col_idx[k] + 1, A->values[k]);
  return smv__mm_out_close(o, f == NULL, err);
}

smv_status smv_mm_write(const char *path, const smv_csr *A, smv_error *err) {
  if (!path)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0, "smv_mm_write: NULL path");
  return write_matrix(NULL, path, A, err);
}

smv_status smv_mm_write_file(FILE *f, const smv_csr *A, smv_error *err) {
  if (!f)
    return smv_err_set(err, SMV_ERR_ARG, NULL, 0,
                       "smv_mm_write_file: NULL stream");
  return write_matrix(f, NULL, A, err);
}
