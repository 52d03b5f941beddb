/* opts.c — the one option parser of every subcommand (cli_parse). */
#include "cli.h"

#include <string.h>

/* The entry of `opts` that argv[*i] names, with its value in *v (NULL for a
 * flag); the end entry (name NULL) if none. *missing is 1 when the value
 * is missing. */
static const cli_opt *match(const cli_opt *opts, int argc, char **argv, int *i,
                            const char **v, int *missing) {
  *missing = 0;
  const cli_opt *o = opts;
  for (; o->name; o++) {
    if (o->need && o->optional) {
      const char *a = argv[*i];
      const size_t n = strlen(o->name);
      if (strncmp(a, o->name, n) == 0 && a[n] == '=') {
        *v = a + n + 1;
        return o;
      }
      if (strcmp(a, o->name) != 0)
        continue;
      const char *next = *i + 1 < argc ? argv[*i + 1] : "";
      const int digits = next[0] && next[strspn(next, "0123456789")] == '\0';
      *v = digits ? argv[++*i] : NULL;
      return o;
    }
    if (!o->need) {
      if (strcmp(argv[*i], o->name) == 0 ||
          (o->alias && strcmp(argv[*i], o->alias) == 0)) {
        *v = NULL;
        return o;
      }
      continue;
    }
    int r = cli_opt_value(argc, argv, i, o->name, o->alias, v);
    if (r < 0)
      *missing = 1;
    if (r != 0)
      return o;
  }
  return o; /* the end entry */
}

int cli_parse(const char *cmd, int argc, char **argv, const cli_opt *opts,
              int (*positional)(void *user, const char *arg), void *user) {
  int given[128] = {0}; /* times each `once` option was seen */
  int opts_on = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!opts_on || a[0] != '-' || a[1] == '\0') {
      int rc = positional(user, a);
      if (rc != CLI_OK)
        return rc;
      continue;
    }
    if (strcmp(a, "--") == 0) {
      opts_on = 0;
      continue;
    }
    const char *v = NULL;
    int missing;
    const cli_opt *o = match(opts, argc, argv, &i, &v, &missing);
    if (!o->name) /* the end entry: its set, if any, takes unknown ones */
      return o->set ? o->set(user, a)
                    : cli_usage(cmd, "unknown option '%s'", a);
    /* The spelling given, without any "=VALUE". */
    size_t n = strcspn(a, "=");
    if (missing)
      return cli_usage(cmd, "%.*s needs %s", (int)n, a, o->need);
    size_t k = (size_t)(o - opts);
    if (o->once && k < sizeof given / sizeof given[0] && given[k]++)
      return cli_usage(cmd, "%.*s given twice", (int)n, a);
    if (o->set) {
      int rc = o->set(user, v);
      if (rc != CLI_OK)
        return rc;
    } else if (o->optional) { /* a value to str, bare to flag */
      if (v && o->str)
        *o->str = v;
      else if (!v && o->flag)
        *o->flag = 1;
    } else if (o->str) {
      *o->str = v;
    } else if (o->flag) {
      *o->flag = 1;
    }
  }
  return CLI_OK;
}

int cli_pick(const char *v, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(v, names[i]) == 0)
      return i;
  return -1;
}

int cli_pick_word(const char *opt, const char *v, const char *const *names,
                  int *k, char *why, size_t n) {
  if (!v)
    return 0;
  int i = cli_pick(v, names);
  if (i >= 0) {
    *k = i;
    return 0;
  }
  /* "OPT must be A, B or C, not 'V'" */
  size_t len = (size_t)snprintf(why, n, "%s must be", opt);
  for (int j = 0; names[j] && len < n; j++)
    len += (size_t)snprintf(why + len, n - len, "%s%s",
                            j == 0         ? " "
                            : names[j + 1] ? ", "
                                           : " or ",
                            names[j]);
  if (len < n)
    snprintf(why + len, n - len, ", not '%s'", v);
  return -1;
}
