/*
 * mm_write.h — the buffered text output shared by the matrix and vector
 * writers (mm_write.c, mm_vector.c). Not installed.
 */
#ifndef SMV_MM_WRITE_H
#define SMV_MM_WRITE_H

#include "mm_internal.h"

typedef struct mm_out mm_out;

/* Open output on f (kept open by close unless close_file) or, when f is
 * NULL, on path (gzip when it ends in .gz). Switches this thread to the
 * "C" locale until close. */
smv_status smv__mm_out_open(mm_out **o, FILE *f, const char *path,
                            smv_error *err);
/* Append text, or one value with %.17g and a newline. Errors are sticky
 * and reported by close. */
void smv__mm_out_text(mm_out *o, const char *s);
void smv__mm_out_value(mm_out *o, double v);
/* Flush, close (the file if close_file or if opened by path), free.
 * SMV_ERR_IO naming the path if any write failed. */
smv_status smv__mm_out_close(mm_out *o, int close_file, smv_error *err);

#endif
