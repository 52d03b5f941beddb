/*
 * test_mm_bad.c — every malformed file of tests/data/bad must fail with ITS
 * OWN error: the status, the line and a distinctive part of the message
 * listed for it in tests/data/bad/EXPECT.tsv; the message must start with
 * the file name, and nothing may come back in *A. Each file is read twice:
 * by path (smv_mm_read) and from an open FILE* (smv_mm_read_file, where a
 * gzip file must be recognised by its magic bytes alone).
 */
#include "smv.h"
#include "test.h"
#include "test_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define DIR_BAD "tests/data/bad/"
#define MAX_CASES 256

typedef struct {
  char file[128];
  smv_status status;
  long line;
  char sub[256];
} bad_case;

static bad_case cases[MAX_CASES];
static int ncases;

static int status_from_name(const char *s, smv_status *st) {
  static const struct {
    const char *name;
    smv_status st;
  } names[] = {{"SMV_ERR_PARSE", SMV_ERR_PARSE},
               {"SMV_ERR_UNSUPPORTED", SMV_ERR_UNSUPPORTED},
               {"SMV_ERR_OVERFLOW", SMV_ERR_OVERFLOW},
               {"SMV_ERR_IO", SMV_ERR_IO},
               {"SMV_ERR_NOMEM", SMV_ERR_NOMEM}};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(s, names[i].name) == 0) {
      *st = names[i].st;
      return 0;
    }
  return -1;
}

/* One line of EXPECT.tsv: file \t status \t line \t substring. */
static void add_case(char *buf) {
  char *file = strtok(buf, "\t"), *st = strtok(NULL, "\t"),
       *line = strtok(NULL, "\t"), *sub = strtok(NULL, "");
  CHECKF(file && st && line && sub, "malformed EXPECT line for %s",
         file ? file : "?");
  if (!(file && st && line && sub) || ncases == MAX_CASES)
    return;
  bad_case *c = &cases[ncases];
  snprintf(c->file, sizeof c->file, "%s", file);
  snprintf(c->sub, sizeof c->sub, "%s", sub);
  c->line = strtol(line, NULL, 10);
  CHECKF(status_from_name(st, &c->status) == 0, "unknown status %s", st);
  ncases++;
}

static void test_expect_table(void) {
  read_table(DIR_BAD "EXPECT.tsv", add_case);
  /* The issue asks for at least 30 malformed files. */
  CHECKF(ncases >= 30, "only %d cases", ncases);
}

/* Every file in the folder has an expectation, and every expectation a
 * file: no silent orphans. */
static const char *case_file(int i) { return cases[i].file; }

static void test_every_file_listed(void) {
  check_dir_listed(DIR_BAD, "EXPECT.tsv", case_file, ncases,
                   "has no line in EXPECT.tsv");
}

/* The path of case i's file. */
static void bad_path(char *path, size_t n, int i) {
  snprintf(path, n, DIR_BAD "%.200s", cases[i].file);
}

/* The read of case c (`how`: path or FILE*) failed as EXPECT.tsv says; a
 * matrix that wrongly came back is freed. */
static void check_error(const bad_case *c, const char *how, smv_status st,
                        smv_csr *A, const smv_error *err, const char *name) {
  CHECKF(st == c->status, "%s (%s): got %s, want %s: %s", c->file, how,
         smv_status_string(st), smv_status_string(c->status), err->message);
  CHECKF(A == NULL, "%s (%s): a matrix came back with an error", c->file, how);
  CHECKF(err->status == st, "%s (%s): err->status %d != returned %d", c->file,
         how, err->status, st);
  CHECKF(err->line == c->line, "%s (%s): line %ld, want %ld: %s", c->file, how,
         err->line, c->line, err->message);
  CHECKF(strstr(err->message, c->sub) != NULL,
         "%s (%s): message \"%s\" lacks \"%s\"", c->file, how, err->message,
         c->sub);
  size_t n = strlen(name);
  CHECKF(strncmp(err->message, name, n) == 0 && err->message[n] == ':',
         "%s (%s): message \"%s\" does not start with \"%s:\"", c->file, how,
         err->message, name);
  if (c->line > 0) {
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s:%ld: ", name, c->line);
    CHECKF(strncmp(err->message, prefix, strlen(prefix)) == 0,
           "%s (%s): message \"%s\" does not start with \"%s\"", c->file, how,
           err->message, prefix);
  }
  CHECKF(strcmp(err->file, name) == 0, "%s (%s): err->file is \"%s\"", c->file,
         how, err->file);
  if (st == SMV_OK)
    smv_csr_free(A);
}

static void test_by_path(void) {
  for (int i = 0; i < ncases; i++) {
    char path[512];
    bad_path(path, sizeof path, i);
    smv_csr *A = (smv_csr *)&A; /* must be overwritten with NULL */
    smv_error err;
    smv_status st = smv_mm_read(path, NULL, &A, &err);
    check_error(&cases[i], "path", st, A, &err, path);
  }
}

static void test_by_stream(void) {
  for (int i = 0; i < ncases; i++) {
    char path[512];
    bad_path(path, sizeof path, i);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f)
      continue;
    smv_csr *A = (smv_csr *)&A;
    smv_error err;
    smv_status st = smv_mm_read_file(f, "stream.mtx", NULL, &A, &err);
    fclose(f);
    check_error(&cases[i], "FILE*", st, A, &err, "stream.mtx");
  }
}

/* A NULL smv_error is allowed: the status alone still comes back. */
static void test_null_error(void) {
  for (int i = 0; i < ncases; i++) {
    char path[512];
    bad_path(path, sizeof path, i);
    smv_csr *A = (smv_csr *)&A;
    smv_status st = smv_mm_read(path, NULL, &A, NULL);
    CHECKF(st == cases[i].status, "%s: %s", cases[i].file,
           smv_status_string(st));
    CHECK(A == NULL);
  }
}

int main(void) {
  RUN(test_expect_table);
  RUN(test_every_file_listed);
  RUN(test_by_path);
  RUN(test_by_stream);
  RUN(test_null_error);
  return TEST_END();
}
