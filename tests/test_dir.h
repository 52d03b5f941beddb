/*
 * test_dir.h — a test data folder's table (EXPECT.tsv: one line per file)
 * and the check that the folder holds exactly the files the table lists:
 * no silent orphans. Include after test.h.
 */
#ifndef SMV_TEST_DIR_H
#define SMV_TEST_DIR_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* Each line of the table at path, blank lines and '#' comments aside, to
 * row() with its line end cut off; a missing table fails the test. */
static void read_table(const char *path, void (*row)(char *line)) {
  FILE *f = fopen(path, "r");
  CHECKF(f != NULL, "cannot open %s (run from the repo)", path);
  if (!f)
    return;
  char buf[1024];
  while (fgets(buf, sizeof buf, f)) {
    if (buf[0] == '#' || buf[0] == '\n')
      continue;
    buf[strcspn(buf, "\r\n")] = '\0';
    row(buf);
  }
  fclose(f);
}

/* Every file in dir (dot files and `skip` aside, skip may be NULL) is one of
 * the n names name(0) .. name(n - 1), and there are n of them; `why` ends
 * the message for a file not listed. */
static void check_dir_listed(const char *dir, const char *skip,
                             const char *(*name)(int), int n, const char *why) {
  DIR *d = opendir(dir);
  CHECK(d != NULL);
  if (!d)
    return;
  int files = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' || (skip && strcmp(e->d_name, skip) == 0))
      continue;
    files++;
    int found = 0;
    for (int i = 0; i < n; i++)
      found |= strcmp(name(i), e->d_name) == 0;
    CHECKF(found, "%s %s", e->d_name, why);
  }
  closedir(d);
  CHECK_INT(files, n);
}

#endif
