#!/bin/sh
# test_harden.sh — the CLI side of issue 9: resources in proportion to the
# input, files never lost on a failed write, stdout errors, names that
# reach a gnuplot script, and the messages of item 7.
. "$(dirname "$0")/lib.sh"
# Some checks run from inside $T_TMP: the binary by absolute path.
case "$SMV" in /*) ;; *) SMV="$PWD/$SMV" ;; esac

# ---- item 6: resources ---------------------------------------------------
# 78 bytes declaring 2147483647 rows and one entry: a valid matrix whose
# CSR needs 8.6 GB. With 1 GB allowed: a clear error at the size line,
# at once (it used to take 8.4 GB and 36 s).
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 2.5\n' \
  >"$T_TMP/huge.mtx"
SMV_MEM_LIMIT=1G expect_err 1 "huge.mtx:2: a 2147483647 x 2147483647 matrix with 0 entries needs 8.59 GB of memory" \
  "huge declared rows refused" "$SMV" info "$T_TMP/huge.mtx"
# The same limit from ulimit -v (not under AddressSanitizer, which needs
# terabytes of address space for its shadow memory).
case "$SMV_BUILD" in
*san*) skip "ulimit -v under ASan" ;;
*)
  (ulimit -v 1000000 && "$SMV" info "$T_TMP/huge.mtx") >"$OUT" 2>"$ERR"
  RC=$?
  if [ "$RC" -eq 1 ] && grep -qF "(ulimit -v)" "$ERR"; then ok; else
    bad "ulimit -v: exit $RC: $(head -c 300 "$ERR")"
  fi
  ;;
esac
# A 67-byte x declaring 2^31 - 1 values for a 9-column matrix: refused at
# its size line, nothing allocated.
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1\n' >"$T_TMP/bigx.mtx"
SMV_MEM_LIMIT=256M expect_err 1 "bigx.mtx:2: vector has 2147483647 entries, expected 9 (" \
  "--x length checked at its size line" "$SMV" spmv lap2d:3 --x "$T_TMP/bigx.mtx" --backend cpu
# An in-range spec larger than memory: "needs N GB" before allocating.
SMV_MEM_LIMIT=1G expect_err 1 "needs 32 GB of memory, more than the 1.07 GB available (SMV_MEM_LIMIT)" \
  "generator spec larger than memory" "$SMV" gen rand:2000000000:1 -o "$T_TMP/never.mtx"
[ -e "$T_TMP/never.mtx" ] && bad "a refused gen left a file" || ok

# ---- item 5: no lost output ----------------------------------------------
# A write that fails (here: ulimit -f, the file size limit, with SIGXFSZ
# ignored so write() returns EFBIG like a full disk) leaves the existing
# file as it was, and no temporary behind.
"$SMV" gen lap2d:40 -o "$T_TMP/A.mtx"
cp "$T_TMP/A.mtx" "$T_TMP/A0.mtx"
(trap '' XFSZ; ulimit -f 8; "$SMV" gen "$T_TMP/A.mtx" -o "$T_TMP/A.mtx") >"$OUT" 2>"$ERR"
RC=$?
if [ "$RC" -eq 1 ] && grep -qF "A.mtx: write error" "$ERR"; then ok; else
  bad "gen A -o A on a full disk: exit $RC: $(cat "$ERR")"; fi
cmp -s "$T_TMP/A.mtx" "$T_TMP/A0.mtx" && ok || bad "gen A -o A destroyed A on failure"
ls "$T_TMP" | grep -q 'tmp-' && bad "a temporary was left: $(ls "$T_TMP")" || ok
# spmv -o and bench --csv/--json the same way.
"$SMV" spmv lap2d:40 --backend cpu -o "$T_TMP/y.mtx"
cp "$T_TMP/y.mtx" "$T_TMP/y0.mtx"
(trap '' XFSZ; ulimit -f 2; "$SMV" spmv lap2d:60 --backend cpu -o "$T_TMP/y.mtx") >"$OUT" 2>"$ERR"
[ $? -eq 1 ] && cmp -s "$T_TMP/y.mtx" "$T_TMP/y0.mtx" && ok || bad "spmv -o lost y.mtx: $(cat "$ERR")"
printf 'old csv\n' >"$T_TMP/b.csv"
printf 'old json\n' >"$T_TMP/b.json"
(trap '' XFSZ; ulimit -f 1; "$SMV" bench lap2d:30 --runs 5 --warmup 1 --csv "$T_TMP/b.csv" \
  --json "$T_TMP/b.json") >"$OUT" 2>"$ERR"
RC=$?
[ "$RC" -eq 1 ] && [ "$(cat "$T_TMP/b.csv")" = "old csv" ] && [ "$(cat "$T_TMP/b.json")" = "old json" ] &&
  ok || bad "bench --csv/--json on a full disk: exit $RC, $(head -c 200 "$ERR")"
ls "$T_TMP" | grep -q 'tmp-' && bad "bench left a temporary: $(ls "$T_TMP")" || ok
# A successful write replaces the file, keeping its mode.
chmod 640 "$T_TMP/A.mtx"
expect_rc 0 "gen over an existing file" "$SMV" gen lap2d:3 -o "$T_TMP/A.mtx"
[ "$(stat -c %a "$T_TMP/A.mtx")" = 640 ] && ok || bad "mode not kept: $(stat -c %a "$T_TMP/A.mtx")"
grep -q '^9 9 33$' "$T_TMP/A.mtx" && ok || bad "gen did not replace A.mtx"
# Devices are written in place: /dev/null works, /dev/full is an error.
expect_rc 0 "gen -o /dev/null" "$SMV" gen lap2d:3 -o /dev/null
expect_err 1 "/dev/full: write error" "gen -o /dev/full" "$SMV" gen lap2d:3 -o /dev/full
# Every command: stdout to a full device is exit 1 with a message.
for cmd in "version" "--help" "info lap2d:5" "info --json lap2d:5" "gen lap2d:3 -o -" \
  "spmv lap2d:3 --backend cpu" "bench lap2d:10 --runs 3 --warmup 1" \
  "occupancy --cc 9.0 --threads 128 --regs 32" "occupancy --cc 9.0 --regs 32 --sweep --no-plot" \
  "micro --list" "gen --help" "bench --help"; do
  # shellcheck disable=SC2086
  "$SMV" $cmd >/dev/full 2>"$ERR"
  RC=$?
  if [ "$RC" -eq 1 ] && grep -qF "stdout: write error" "$ERR"; then ok; else
    bad "'smv $cmd > /dev/full': exit $RC: $(head -c 200 "$ERR")"
  fi
done

# ---- item 2: names that reach a gnuplot script ----------------------------
# A newline in --plot would end the script's command and start another:
# refused as a usage error before anything is written or run.
evil=$(printf 'a\nsystem("touch PWNED")')
cd "$T_TMP" || exit 1
expect_err 2 "--plot: the file name has a control character (byte 0x0a at offset 1)" \
  "occupancy --plot with a newline" "$SMV" occupancy --cc 9.0 --regs 32 --sweep --plot "$evil"
expect_err 2 "--plot: the file name has a control character" "bench --plot with a newline" \
  "$SMV" bench lap2d:10 --runs 3 --warmup 1 --plot "$evil"
[ -e PWNED ] && bad "the injected command ran" || ok
ls | grep -q '^a' && bad "files were written for a refused name: $(ls)" || ok
cd - >/dev/null || exit 1
# Quotes, spaces, backquotes and $ in a name are only characters: the plot
# lands at exactly that name and nothing runs.
odd="$T_TMP/it's a \"plot\" \`touch PWNED2\` \$(touch PWNED3).png"
if command -v gnuplot >/dev/null 2>&1; then
  expect_rc 0 "occupancy --plot with quotes and spaces" \
    "$SMV" occupancy --cc 9.0 --regs 32 --sweep --plot "$odd"
  [ -s "$odd" ] && ok || bad "no PNG at the odd name: $(ls "$T_TMP")"
  expect_rc 0 "bench --plot with quotes and spaces" \
    "$SMV" bench lap2d:10 --runs 3 --warmup 1 --plot "$odd"
  [ -s "$odd" ] && ok || bad "bench: no PNG at the odd name"
  # A matrix name with a backquoted command reaches the sweep plot's title
  # (it used to be written in double quotes, where gnuplot runs it): a
  # saved block sweep re-plotted with the matrix renamed.
  sed -n '1p; /,rand:2000000:16,/p' bench/results/h100-80gb-hbm3/raw/ladder/sweep-80fd6badd242.csv |
    sed 's/,rand:2000000:16,/,m`touch PWNED4`.mtx,/' >"$T_TMP/sweep.csv"
  (cd "$T_TMP" && "$SMV" bench --from-csv sweep.csv --plot sweep.png) >"$OUT" 2>"$ERR"
  [ $? -eq 0 ] && [ -s "$T_TMP/sweep.png" ] && ok || bad "re-plot of the sweep: $(head -c 300 "$ERR")"
  grep -qF 'm`touch PWNED4`.mtx' "$T_TMP/sweep.gp" && ok || bad "the name is not in the title"
  ls "$T_TMP" | grep -q '^PWNED' && bad "a quoted name ran a command: $(ls "$T_TMP")" || ok
else
  skip "gnuplot not installed: plots with odd names"
fi

# ---- item 7: messages -----------------------------------------------------
# A size-line number past the limit is shown as written, not saturated.
printf '%%%%MatrixMarket matrix coordinate real general\n99999999999999999999999 3 1\n1 1 1\n' \
  >"$T_TMP/over.mtx"
expect_err 1 "over.mtx:2: size line: row count 99999999999999999999999 exceeds the int32 index limit" \
  "size-line overflow as written" "$SMV" info "$T_TMP/over.mtx"
# A path of ~620 bytes keeps its FILE:LINE: prefix (shortened in the
# middle) and the whole reason.
d="$T_TMP/$(printf '%0200d' 0)/$(printf '%0200d' 1)/$(printf '%0200d' 2)"
mkdir -p "$d" && cp "$T_TMP/over.mtx" "$d/over-long-path.mtx"
run "$SMV" info "$d/over-long-path.mtx"
if [ "$RC" -eq 1 ] && grep -q '\.\.\..*over-long-path\.mtx:2: size line: row count 99999999999999999999999 exceeds the int32 index limit 2147483647$' "$ERR"; then
  ok
else bad "long path message: $(cat "$ERR")"; fi
# --x= is a usage error before the matrix is loaded (it does not exist).
expect_err 2 "--x needs a file name" "--x= empty" "$SMV" spmv "$T_TMP/no-such.mtx" --x=
expect_err 2 "--y needs a file name" "--y= empty" "$SMV" spmv "$T_TMP/no-such.mtx" --beta 1 --y=
# A subnormal alpha is a number; an overflowing one is not.
expect_rc 0 "--alpha 1e-310" "$SMV" spmv lap2d:3 --alpha 1e-310 --backend cpu
expect_out "1.9999999999999939e-310" "--alpha 1e-310 scales the result"
expect_err 2 "--alpha: '1e999' is not a number" "--alpha 1e999" "$SMV" spmv lap2d:3 --alpha 1e999
# A data line of exactly 4194304 bytes (SMV_MM_LINE_MAX) is read; one more
# byte is refused with the limit stated.
line_file() { # NAME LENGTH: "1 1 2.5" padded with blanks to LENGTH bytes
  { printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.5'
    head -c $(($2 - 7)) /dev/zero | tr '\0' ' '
    printf '\n'; } >"$T_TMP/$1"
}
line_file exact.mtx 4194304
expect_rc 0 "a line of exactly 4194304 bytes" "$SMV" info "$T_TMP/exact.mtx"
line_file over1.mtx 4194305
expect_err 1 "over1.mtx:3: line longer than 4194304 bytes" "a line of 4194305 bytes" \
  "$SMV" info "$T_TMP/over1.mtx"
# Errors writing to standard output name it.
"$SMV" spmv lap2d:3 --backend cpu >/dev/full 2>"$ERR"
grep -q 'stdout: write error' "$ERR" && ! grep -q '(stream)' "$ERR" && ok ||
  bad "stdout error message: $(cat "$ERR")"
# CR-only line endings get a hint.
printf '%%%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r' >"$T_TMP/cr.mtx"
expect_err 1 "cr.mtx:1: the file uses CR line endings (no LF after the banner): convert them to LF" \
  "CR-only hint" "$SMV" info "$T_TMP/cr.mtx"
printf '%%%%MatrixMarket matrix coordinate real general\r\n2 2 1\r\n1 1 1\r\n' >"$T_TMP/crlf.mtx"
expect_rc 0 "CRLF still reads" "$SMV" info "$T_TMP/crlf.mtx"
# info --json stays valid JSON for a name that is not UTF-8.
bad_name="$T_TMP/$(printf 'm\351\377-\303\251')"
cp "$T_TMP/crlf.mtx" "$bad_name.mtx"
run "$SMV" info --json "$bad_name.mtx"
if [ "$RC" -ne 0 ]; then
  bad "info --json on a Latin-1 name: exit $RC"
elif command -v python3 >/dev/null 2>&1; then
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding="utf-8")); assert "m\ufffd\ufffd-\u00e9" in json.dumps(d, ensure_ascii=False)' "$OUT" &&
    ok || bad "info --json is not valid JSON: $(head -c 300 "$OUT")"
elif command -v iconv >/dev/null 2>&1; then
  iconv -f UTF-8 -t UTF-8 "$OUT" >/dev/null 2>&1 && grep -qF '\ufffd' "$OUT" && ok ||
    bad "info --json is not UTF-8"
else
  skip "neither python3 nor iconv to check the JSON"
fi

finish
