/* outfile.c — output files that replace what was there only when complete.
 *
 * `smv gen A.mtx -o A.mtx` on a full disk used to destroy A.mtx: fopen(.., "w")
 * truncated it, the writes failed, the error came too late. Here a regular
 * file (or a name that does not exist yet) is written to a temporary file in
 * the same directory, "PATH.tmp-PID-N", created with O_EXCL (so nothing
 * planted at that name is followed) and the mode an existing PATH has (else
 * 0666 less the umask, as fopen), and its owner and group where permitted
 * (other hard links to PATH keep the old contents, as with any rename); the
 * caller's writes, flush and close are checked, and only then is the temporary
 * renamed over PATH (rename is atomic within a directory). On any failure
 * the temporary is removed and PATH is untouched.
 * Anything else that already exists is written in place, as before: a
 * device (/dev/stdout, /dev/null, /dev/full), a pipe, a socket, or a
 * symbolic link (renaming over the link would replace the link itself).
 * When no temporary can be made (directory not writable, name too long),
 * PATH is written in place too, so nothing that worked before stops
 * working. No fsync: the point is that a failed write is seen, not
 * durability across a power cut. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct smv_file {
  char *path; /* where the data ends up */
  char *tmp;  /* the temporary, or NULL when writing in place */
  FILE *f;    /* the public interface's stream (NULL for smv__file_*) */
};

static smv_status open_error(smv_error *err, const char *path, int e) {
  return smv_err_set(err, SMV_ERR_IO, path, 0, "cannot open for writing: %s",
                     strerror(e));
}

smv_status smv__file_begin(const char *path, smv_file **out, int *fd,
                           smv_error *err) {
  *out = NULL;
  *fd = -1;
  struct stat sb;
  int exists = lstat(path, &sb) == 0;
  if (exists && S_ISDIR(sb.st_mode))
    return open_error(err, path, EISDIR);
  smv_file *h = calloc(1, sizeof *h);
  size_t n = strlen(path);
  if (h)
    h->path = malloc(n + 1);
  if (!h || !h->path) {
    free(h);
    return smv_err_set(err, SMV_ERR_NOMEM, path, 0,
                       "out of memory opening the file");
  }
  memcpy(h->path, path, n + 1);
  if (!exists || S_ISREG(sb.st_mode)) {
    /* fopen(.., "w") would refuse a read-only file: so do we. */
    if (exists && access(path, W_OK) != 0) {
      int e = errno;
      smv__file_end(h, 0, NULL);
      return open_error(err, path, e);
    }
    static unsigned counter; /* with the pid: unique within this process */
    h->tmp = malloc(n + 48);
    for (int attempt = 0; h->tmp && attempt < 100; attempt++) {
      snprintf(h->tmp, n + 48, "%s.tmp-%ld-%u", path, (long)getpid(),
               __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED));
      *fd = open(h->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (*fd >= 0 || errno != EEXIST)
        break;
    }
    if (*fd >= 0) {
      if (exists) { /* best effort: mode, then owner and group */
        (void)fchmod(*fd, sb.st_mode & 07777);
        if (fchown(*fd, sb.st_uid, sb.st_gid) != 0 &&
            fchown(*fd, (uid_t)-1, sb.st_gid) != 0) {
          /* best effort: the file keeps our owner and group */
        }
      }
      *out = h;
      return SMV_OK;
    }
    free(h->tmp); /* no temporary here: write in place as fopen would */
    h->tmp = NULL;
  }
  *fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (*fd < 0) {
    int e = errno;
    smv__file_end(h, 0, NULL);
    return open_error(err, path, e);
  }
  *out = h;
  return SMV_OK;
}

smv_status smv__file_end(smv_file *h, int ok, smv_error *err) {
  if (!h)
    return SMV_OK;
  smv_status st = SMV_OK;
  if (h->tmp) {
    if (ok && rename(h->tmp, h->path) != 0) {
      st = smv_err_set(err, SMV_ERR_IO, h->path, 0,
                       "cannot move the finished file into place: %s",
                       strerror(errno));
      ok = 0;
    }
    if (!ok)
      (void)unlink(h->tmp);
  }
  free(h->tmp);
  free(h->path);
  free(h);
  return st;
}

smv_status smv_file_open(const char *path, smv_file **file, FILE **f,
                         smv_error *err) {
  if (file)
    *file = NULL;
  if (f)
    *f = NULL;
  if (!path || !file || !f)
    return smv_err_set(err, SMV_ERR_ARG, path, 0, "smv_file_open: NULL %s",
                       path ? "result" : "path");
  smv_file *h;
  int fd;
  smv_status st = smv__file_begin(path, &h, &fd, err);
  if (st != SMV_OK)
    return st;
  h->f = fdopen(fd, "w");
  if (!h->f) {
    int e = errno;
    close(fd);
    smv__file_end(h, 0, NULL);
    return open_error(err, path, e);
  }
  *file = h;
  *f = h->f;
  return SMV_OK;
}

smv_status smv_file_close(smv_file *file, smv_error *err) {
  if (!file)
    return SMV_OK;
  int e = 0;
  if (fflush(file->f) != 0 || ferror(file->f))
    e = errno ? errno : EIO;
  if (fclose(file->f) != 0 && !e)
    e = errno ? errno : EIO;
  if (e) {
    char path[SMV_ERROR_TEXT / 2];
    snprintf(path, sizeof path, "%s", file->path);
    smv__file_end(file, 0, NULL);
    return smv_err_set(err, SMV_ERR_IO, path, 0, "write error: %s",
                       strerror(e));
  }
  return smv__file_end(file, 1, err);
}

void smv_file_discard(smv_file *file) {
  if (!file)
    return;
  fclose(file->f);
  smv__file_end(file, 0, NULL);
}
