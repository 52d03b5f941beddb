/*
 * test_dir.h — a test data folder holds exactly the files a test's table
 * lists: no silent orphans. Include after test.h.
 */
#ifndef SMV_TEST_DIR_H
#define SMV_TEST_DIR_H

#include <dirent.h>
#include <string.h>

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
