/*
 * mm_input.c — buffered plain/gzip input cut into whole lines (see
 * mm_input.h for the window's layout).
 *
 * Sizes: the window is 64 KiB + 1 spare byte at first, and SMV_MM_LINE_MAX
 * (4 MiB) + 1 for the newline + 1 spare once the input needs a second read
 * or a line outgrows it;
 * decoded input is appended 1 MiB at a time (fits in L2 next to the
 * parser's arrays); compressed input is read 256 KiB at a time. Progress
 * is reported every 4 MiB of raw (for gzip: compressed) input.
 */
#include "mm_input.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW0 ((size_t)64 << 10)
#define CHUNK ((size_t)1 << 20)
#define ZBUF ((size_t)256 << 10)
#define REPORT_STEP ((uint64_t)4 << 20)

static int fail(mm_input *in, smv_status st, const char *why) {
  in->st = st;
  snprintf(in->why, sizeof in->why, "%s", why);
  return -1;
}

static int fail_errno(mm_input *in, const char *what, int e) {
  in->st = SMV_ERR_IO;
  snprintf(in->why, sizeof in->why, "%s: %s", what,
           e ? strerror(e) : "unknown error");
  return -1;
}

static void account(mm_input *in, size_t n) {
  in->raw_done += n;
  if (in->progress && in->raw_done >= in->next_report) {
    in->progress(in->progress_user, in->raw_done, in->total);
    in->next_report = in->raw_done + REPORT_STEP;
  }
}

/* fread that tells a read error from the end of the file. Returns the
 * bytes read, or (size_t)-1 after setting the error. */
static size_t raw_read(mm_input *in, void *dst, size_t n) {
  errno = 0;
  size_t got = fread(dst, 1, n, in->f);
  if (got < n) {
    if (ferror(in->f)) {
      fail_errno(in, "read error", errno);
      return (size_t)-1;
    }
    in->raw_eof = 1;
  }
  account(in, got);
  return got;
}

/* Inflate into dst, up to n bytes. Returns bytes produced or (size_t)-1. */
static size_t gz_read(mm_input *in, char *dst, size_t n) {
  z_stream *zs = &in->zs;
  zs->next_out = (unsigned char *)dst;
  zs->avail_out = (uInt)n;
  while (zs->avail_out > 0) {
    if (zs->avail_in == 0 && !in->raw_eof) {
      size_t got = raw_read(in, in->zbuf, ZBUF);
      if (got == (size_t)-1)
        return (size_t)-1;
      zs->next_in = in->zbuf;
      zs->avail_in = (uInt)got;
      continue;
    }
    if (in->z_member_done) {
      if (zs->avail_in == 0) { /* raw_eof here: a clean end */
        in->eof = 1;
        break;
      }
      /* More bytes after a complete member: gzip allows concatenated
       * members (cat a.gz b.gz); anything else is refused below. */
      if (inflateReset(zs) != Z_OK) {
        fail(in, SMV_ERR_PARSE, "corrupt gzip data (cannot restart)");
        return (size_t)-1;
      }
      in->z_member_done = 0;
      in->z_new_member = 1;
    }
    if (zs->avail_in == 0) { /* raw_eof, member unfinished */
      fail(in, SMV_ERR_PARSE,
           "truncated gzip data (the compressed stream ends early)");
      return (size_t)-1;
    }
    uInt before = zs->avail_out;
    int r = inflate(zs, Z_NO_FLUSH);
    if (zs->avail_out != before)
      in->z_new_member = 0;
    switch (r) {
    case Z_STREAM_END:
      in->z_member_done = 1;
      break;
    case Z_OK:
    case Z_BUF_ERROR: /* needs more input: read above, or truncated */
      break;
    case Z_MEM_ERROR:
      fail(in, SMV_ERR_NOMEM, "out of memory in zlib");
      return (size_t)-1;
    default: { /* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
      char why[128];
      if (in->z_new_member)
        snprintf(why, sizeof why,
                 "unexpected data after the end of the gzip stream");
      else
        snprintf(why, sizeof why, "corrupt gzip data (%s)",
                 zs->msg ? zs->msg : "zlib error");
      fail(in, SMV_ERR_PARSE, why);
      return (size_t)-1;
    }
    }
  }
  return n - zs->avail_out;
}

static size_t decoded_read(mm_input *in, char *dst, size_t n) {
  if (in->gz)
    return gz_read(in, dst, n);
  size_t got = raw_read(in, dst, n);
  if (got != (size_t)-1 && in->raw_eof)
    in->eof = 1;
  return got;
}

static const char *last_newline(const char *p, size_t n) {
  while (n > 0)
    if (p[--n] == '\n')
      return p + n;
  return NULL;
}

smv_status smv__mm_input_open(mm_input *in, FILE *f, const char *name,
                              uint64_t total, const smv_read_options *opt) {
  memset(in, 0, sizeof *in);
  in->f = f;
  in->name = name;
  in->total = total;
  in->next_report = REPORT_STEP;
  if (opt) {
    in->progress = opt->progress;
    in->progress_user = opt->progress_user;
  }
  in->cap = WINDOW0;
  in->buf = malloc(in->cap + 1);
  if (!in->buf) {
    fail(in, SMV_ERR_NOMEM, "out of memory for the input buffer");
    return in->st;
  }
  /* The first bytes decide: gzip magic 1f 8b, else plain text. */
  size_t got = raw_read(in, in->buf, in->cap);
  if (got == (size_t)-1)
    return in->st;
  in->reads = 1;
  if (got >= 2 && (unsigned char)in->buf[0] == 0x1f &&
      (unsigned char)in->buf[1] == 0x8b) {
    in->gz = 1;
    in->reads = 0;
    in->zbuf = malloc(ZBUF);
    if (!in->zbuf) {
      fail(in, SMV_ERR_NOMEM, "out of memory for the gzip buffer");
      return in->st;
    }
    if (inflateInit2(&in->zs, 16 + MAX_WBITS) != Z_OK) {
      fail(in, SMV_ERR_NOMEM, "cannot initialise zlib");
      return in->st;
    }
    in->z_init = 1;
    memcpy(in->zbuf, in->buf, got);
    in->zs.next_in = in->zbuf;
    in->zs.avail_in = (uInt)got;
  } else {
    in->len = got;
    in->eof = in->raw_eof;
    const char *nl = last_newline(in->buf, got);
    in->lim = nl ? (size_t)(nl - in->buf) + 1 : 0;
  }
  return SMV_OK;
}

/* The full window holds one unfinished line. */
static int long_line(mm_input *in, long line) {
  char msg[160];
  if (line == 0) {
    const char *bin = mm_binary_byte(in->buf, in->len);
    if (bin)
      snprintf(msg, sizeof msg,
               "binary data (byte 0x%02x at offset %zu), not a Matrix Market "
               "text file",
               (unsigned char)*bin, (size_t)(bin - in->buf));
    else
      snprintf(msg, sizeof msg, "line 1 is longer than %zu bytes%s",
               (size_t)SMV_MM_LINE_MAX,
               memchr(in->buf, '\r', in->len)
                   ? " (the file uses CR line endings? convert them to LF)"
                   : "");
    in->why_line = 1;
    return fail(in, SMV_ERR_PARSE, msg);
  }
  size_t k = 0;
  while (k < in->len && MM_IS_BLANK(in->buf[k]))
    k++;
  if (k == in->len) { /* only blanks so far: they mean nothing */
    in->len = 0;
    return 0;
  }
  if (in->buf[k] == '%') { /* a comment: drop it as it streams by */
    in->skipping = 1;
    in->len = 0;
    return 0;
  }
  if (k > 0) {
    memmove(in->buf, in->buf + k, in->len - k);
    in->len -= k;
    return 0;
  }
  snprintf(msg, sizeof msg, "line longer than %zu bytes",
           (size_t)SMV_MM_LINE_MAX);
  in->why_line = 1;
  return fail(in, SMV_ERR_PARSE, msg);
}

int smv__mm_input_fill(mm_input *in, long *line) {
  if (in->pos < in->lim)
    return 1;
  for (;;) {
    /* Keep the unfinished line [lim, len), move it to the front. */
    if (in->lim > 0) {
      memmove(in->buf, in->buf + in->lim, in->len - in->lim);
      in->len -= in->lim;
    }
    in->pos = in->lim = 0;
    if (in->eof) {
      if (in->skipping) { /* a long comment ends the file: count it */
        in->skipping = 0;
        in->len = 0;
        ++*line;
      }
      if (in->len == 0)
        return 0;
      in->buf[in->len++] = '\n'; /* the spare byte */
      in->lim = in->len;
      return 1;
    }
    /* Past the first read, or a line longer than the window: the full
     * window, a line of SMV_MM_LINE_MAX bytes plus its newline (so the
     * limit the messages state is the real one). */
    if (in->cap < SMV_MM_LINE_MAX + 1 &&
        (in->reads > 0 || in->len == in->cap)) {
      char *b = realloc(in->buf, SMV_MM_LINE_MAX + 2);
      if (!b)
        return fail(in, SMV_ERR_NOMEM, "out of memory for the input buffer");
      in->buf = b;
      in->cap = SMV_MM_LINE_MAX + 1;
    }
    if (in->len == in->cap) {
      if (long_line(in, *line) < 0)
        return -1;
      continue;
    }
    size_t want = in->cap - in->len;
    if (want > CHUNK)
      want = CHUNK;
    char *dst = in->buf + in->len;
    size_t got = decoded_read(in, dst, want);
    if (got == (size_t)-1)
      return -1;
    in->reads++;
    if (in->skipping) {
      const char *nl = memchr(dst, '\n', got);
      if (!nl)
        continue; /* still inside the comment: len stays as it was */
      in->skipping = 0;
      ++*line;
      size_t rest = got - (size_t)(nl + 1 - dst);
      memmove(dst, nl + 1, rest);
      got = rest;
    }
    in->len += got;
    const char *nl = last_newline(dst, got);
    if (nl) {
      in->lim = (size_t)(nl - in->buf) + 1;
      return 1;
    }
  }
}

void smv__mm_input_finish(mm_input *in) {
  if (in->progress)
    in->progress(in->progress_user, in->raw_done, in->raw_done);
}

void smv__mm_input_close(mm_input *in) {
  if (in->z_init)
    inflateEnd(&in->zs);
  free(in->buf);
  free(in->zbuf);
  in->buf = NULL;
  in->zbuf = NULL;
  in->z_init = 0;
}
