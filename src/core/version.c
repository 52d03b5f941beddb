/* version.c — the library version and the commit it was built from
 * (SMV_GIT_COMMIT is passed by the Makefile on every build). */
#include "smv.h"

#ifndef SMV_GIT_COMMIT
#define SMV_GIT_COMMIT "unknown"
#endif

const char *smv_version(void) { return SMV_VERSION_STRING; }
const char *smv_git_commit(void) { return SMV_GIT_COMMIT; }
