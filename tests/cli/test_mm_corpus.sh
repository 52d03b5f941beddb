#!/bin/sh
# test_mm_corpus.sh — every malformed file of tests/data/bad, through the
# command a user runs (`smv info FILE`): a clean exit 1 (no crash, no hang),
# one error on stderr that starts with "smv: FILE" and names the problem
# (the message substring and line of tests/data/bad/EXPECT.tsv), nothing on
# stdout. The library-level checks of the same table are in test_mm_bad.c.
. tests/cli/lib.sh
D=tests/data/bad
n=0
tab=$(printf '\t')
while IFS="$tab" read -r file status line msg; do
  case "$file" in '#'* | '') continue ;; esac
  n=$((n + 1))
  path="$D/$file"
  # Bounded: a hang is a failure, not a stuck CI.
  if command -v timeout >/dev/null 2>&1; then
    run timeout 20 "$SMV" info "$path"
  else
    run "$SMV" info "$path"
  fi
  where="smv: $path"
  [ "$line" -gt 0 ] 2>/dev/null && where="smv: $path:$line:"
  if [ "$RC" -eq 1 ] && head -n 1 "$ERR" | grep -qF -- "$where" &&
    grep -qF -- "$msg" "$ERR" && [ ! -s "$OUT" ]; then
    ok
  else
    bad "$file ($status): exit $RC, want 1 with '$where ... $msg'"
    sed 's/^/  stderr: /' "$ERR" | head -3 >&2
  fi
done <"$D/EXPECT.tsv"
# The table must cover every file in the corpus (and at least 30).
files=$(ls "$D" | grep -v -e '^EXPECT.tsv$' -e '^README' -e '\.md$' | wc -l)
if [ "$n" -ge 30 ] && [ "$n" -eq "$files" ]; then ok; else
  bad "EXPECT.tsv lists $n files, the corpus holds $files"
fi
finish
