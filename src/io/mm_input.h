/*
 * mm_input.h — the reader's input: large reads from a FILE* (plain text, or
 * gzip inflated here with zlib, detected by its magic bytes 1f 8b), handed
 * to the parser as a window of whole lines.
 *
 * Window: buf[0 .. len) holds input; [pos, lim) is a run of complete lines,
 * each ending in '\n' (lim is just past the last '\n'); [lim, len) is the
 * start of a line whose end has not been read yet. At the end of the input
 * a final line without '\n' gets one appended (the buffer keeps a spare
 * byte for it), so the parser can always scan up to a '\n' without bounds
 * checks. The window starts at 64 KiB (a small file never costs more) and
 * grows to SMV_MM_LINE_MAX + 1 once the input outlasts it; reads are 1 MiB.
 *
 * Lines longer than the window: a comment ('%' after optional blanks) is
 * skipped as it streams by, whatever its length; leading blanks are
 * dropped; anything else is "line too long". Line 1 (the banner) is never
 * skipped.
 */
#ifndef SMV_MM_INPUT_H
#define SMV_MM_INPUT_H

#include "mm_internal.h"

#include <zlib.h>

typedef struct {
  FILE *f;
  const char *name; /* for messages */
  char *buf;        /* cap + 1 bytes */
  size_t cap;       /* 64 KiB .. SMV_MM_LINE_MAX + 1 (a line and its newline) */
  int reads;        /* decoded reads so far */
  size_t pos, lim, len;
  int eof;      /* the decoded input has ended (all of it is in buf) */
  int raw_eof;  /* fread said end of file */
  int skipping; /* inside a comment line longer than the window */
  /* gzip */
  int gz;
  int z_init;
  int z_member_done; /* last inflate returned Z_STREAM_END */
  int z_new_member;  /* a member after the first, no output from it yet */
  z_stream zs;
  unsigned char *zbuf; /* compressed input, ZBUF bytes (gzip only) */
  /* progress: raw (compressed) bytes read from f */
  uint64_t raw_done, total, next_report;
  smv_progress_fn progress;
  void *progress_user;
  /* error from the input layer: status and reason (no file/line) */
  smv_status st;
  char why[160];
  int why_line; /* the error is about the current line (too long); else it
                   is about the input as a whole (gzip data, read error) */
} mm_input;

/* Start reading f (whose remaining size is `total` bytes, 0 if unknown).
 * Peeks at the first bytes to detect gzip. SMV_OK or an error (in->st and
 * in->why say which). mm_input_close must be called in every case. */
smv_status smv__mm_input_open(mm_input *in, FILE *f, const char *name,
                              uint64_t total, const smv_read_options *opt);

/* Make [pos, lim) non-empty. *line is the number of lines consumed so far;
 * it is advanced for comment lines skipped outside the window. Returns 1
 * when lines are available, 0 at the end of the input, -1 on error
 * (in->st, in->why). Callers set in->pos to what they consumed first. */
int smv__mm_input_fill(mm_input *in, long *line);

/* Final progress report (done == total). */
void smv__mm_input_finish(mm_input *in);

void smv__mm_input_close(mm_input *in);

#endif
