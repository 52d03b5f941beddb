/*
 * test_rungs.c — the registry of the kernel ladder (src/core/rungs.def) is the
 * one source of names, numbers and descriptions: every rung round-trips
 * through smv_alg_name / smv_alg_parse (so the registry's lines are in
 * number order), and the ladder tables of README.md and docs/engine.md
 * carry exactly the registry's rows (number, name, kernel, and in the
 * README the description word for word), and the AUTO rule written in
 * docs/engine.md (the block between "<!-- auto-rule -->" and
 * "<!-- /auto-rule -->") is the rule the engine evaluates
 * (src/core/auto.def, through smv_auto_rule_line), line by line. Run from
 * the repository root.
 */
#include "smv_lab.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
    }
  }
  fclose(f);
  if (buf)
    buf[n] = '\0';
  return buf;
}

static void test_round_trip(void) {
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    const char *name = smv_alg_name((smv_alg)a);
    CHECKF(name && *name, "rung %d has no name", a);
    CHECKF(smv_alg_description((smv_alg)a) != NULL, "rung %d: no text", a);
    smv_alg back;
    CHECKF(name && smv_alg_parse(name, &back) == SMV_OK && back == (smv_alg)a,
           "rung %d: '%s' parses to another rung (registry out of order?)", a,
           name ? name : "");
    const char *k = smv_kernel_name((smv_alg)a);
    if (k)
      CHECKF(smv_alg_parse(k, &back) == SMV_OK && back == (smv_alg)a,
             "rung %d: kernel '%s' parses to another rung", a, k);
  }
  CHECK(smv_alg_name(SMV_ALG_COUNT) == NULL);
  CHECK(smv_alg_description(SMV_ALG_COUNT) == NULL);
  /* Rung 10's former names still parse (users' scripts), to rung 10. */
  smv_alg back = SMV_ALG_AUTO;
  CHECK(smv_alg_parse("stream", &back) == SMV_OK && back == SMV_ALG_TILED);
  back = SMV_ALG_AUTO;
  CHECK(smv_alg_parse("spmv_stream", &back) == SMV_OK && back == SMV_ALG_TILED);
  CHECK(strcmp(smv_alg_name(SMV_ALG_TILED), "tiled") == 0);
}

/* A document of the repository (the tests run from its root), or NULL
 * with the failure recorded. */
static char *read_doc(const char *path) {
  char *doc = slurp(path);
  CHECKF(doc != NULL, "cannot read %s (run from the repository root)", path);
  return doc;
}

/* The ladder table of doc has no row past the last rung; frees doc. */
static void no_row_past_last(char *doc, const char *path) {
  char row[64];
  snprintf(row, sizeof row, "\n| %d | `", SMV_ALG_COUNT);
  CHECKF(strstr(doc, row) == NULL, "%s has a row for rung %d", path,
         SMV_ALG_COUNT);
  free(doc);
}

/* README.md: "| N | `name` | what |" for every rung, none past the last. */
static void test_readme(void) {
  char *doc = read_doc("README.md");
  if (!doc)
    return;
  char row[512];
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    snprintf(row, sizeof row, "\n| %d | `%s` | %s |\n", a,
             smv_alg_name((smv_alg)a), smv_alg_description((smv_alg)a));
    CHECKF(strstr(doc, row) != NULL, "README.md lacks the row%s", row);
  }
  no_row_past_last(doc, "README.md");
}

/* docs/engine.md: "| N | `name` | `kernel` |" (cuSPARSE or "—" for the
 * rungs without a kernel of ours). */
static void test_engine_doc(void) {
  char *doc = read_doc("docs/engine.md");
  if (!doc)
    return;
  char row[512];
  for (int a = 0; a < SMV_ALG_COUNT; a++) {
    const char *k = smv_kernel_name((smv_alg)a);
    char kern[128];
    if (k)
      snprintf(kern, sizeof kern, "`%s`", k);
    else
      snprintf(kern, sizeof kern, "%s", a == SMV_ALG_AUTO ? "—" : "cuSPARSE");
    snprintf(row, sizeof row, "\n| %d | `%s` | %s |", a,
             smv_alg_name((smv_alg)a), kern);
    CHECKF(strstr(doc, row) != NULL, "docs/engine.md lacks the row%s |", row);
  }
  no_row_past_last(doc, "docs/engine.md");
}

/* docs/engine.md's AUTO rule: the lines between the markers are exactly
 * smv_auto_rule_line(0), (1), ... in order, nothing else but blank
 * lines. */
static void test_auto_rule_doc(void) {
  char *doc = read_doc("docs/engine.md");
  if (!doc)
    return;
  const char *open = "<!-- auto-rule -->\n", *close = "<!-- /auto-rule -->";
  char *b = strstr(doc, open);
  char *e = b ? strstr(b, close) : NULL;
  CHECKF(b && e, "docs/engine.md lacks the block %s ... %s",
         "<!-- auto-rule -->", close);
  if (!b || !e) {
    free(doc);
    return;
  }
  *e = '\0';
  char *line = b + strlen(open);
  int i = 0;
  char want[512];
  while (*line) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if (*line) {
      const smv_status st = smv_auto_rule_line(i, want, sizeof want);
      CHECKF(st == SMV_OK,
             "docs/engine.md's AUTO rule has a line %d too many: %s", i + 1,
             line);
      if (st == SMV_OK)
        CHECKF(strcmp(line, want) == 0,
               "docs/engine.md's AUTO rule, line %d:\n  doc:  %s\n  code: %s",
               i + 1, line, want);
      i++;
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  CHECKF(smv_auto_rule_line(i, want, sizeof want) == SMV_ERR_NOT_FOUND,
         "docs/engine.md's AUTO rule lacks line %d: %s", i + 1, want);
  CHECK(i > 0);
  free(doc);
}

/* docs/engine.md names the tuner's candidates: "the candidates are rungs
 * 1, 5, ... and 12", exactly the registry's `tuned` rungs (the text is
 * compared with its line breaks and indents read as single spaces). */
static void test_tuned_doc(void) {
  char *doc = read_doc("docs/engine.md");
  if (!doc)
    return;
  char *w = doc;
  for (const char *r = doc; *r; r++) { /* collapse whitespace runs */
    const int sp = *r == ' ' || *r == '\n' || *r == '\t';
    if (!sp || w == doc || w[-1] != ' ')
      *w++ = sp ? ' ' : *r;
  }
  *w = '\0';
  int tuned[SMV_ALG_COUNT], n = 0;
  for (int a = 0; a < SMV_ALG_COUNT; a++)
    if (smv_alg_tuned((smv_alg)a))
      tuned[n++] = a;
  CHECK(n >= 2 && !smv_alg_tuned(SMV_ALG_AUTO) &&
        smv_alg_tuned(SMV_ALG_CUSPARSE_ALG1));
  char want[256] = "the candidates are rungs";
  for (int i = 0; i < n; i++) {
    const size_t len = strlen(want);
    snprintf(want + len, sizeof want - len, "%s %d",
             i == 0       ? ""
             : i == n - 1 ? " and"
                          : ",",
             tuned[i]);
  }
  CHECKF(strstr(doc, want) != NULL, "docs/engine.md lacks \"%s\"", want);
  free(doc);
}

int main(void) {
  RUN(test_round_trip);
  RUN(test_readme);
  RUN(test_engine_doc);
  RUN(test_auto_rule_doc);
  RUN(test_tuned_doc);
  return TEST_END();
}
