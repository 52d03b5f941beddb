#!/bin/sh
# test_spmv.sh — `smv spmv`: results on a hand-checked matrix, every
# alpha/beta rule, vector files (lengths, gzip, output), backends and
# precisions, usage errors (exit 2) and bad input (exit 1).
. "$(dirname "$0")/lib.sh"

# A = [1 0 2; 0 3 0] (2 x 3), x = (1, 2, 3): A x = (7, 6).
cat >"$T_TMP/a.mtx" <<'MTX'
%%MatrixMarket matrix coordinate real general
2 3 3
1 1 1.0
1 3 2.0
2 2 3.0
MTX
vec() { # FILE v1 v2 ...: a Matrix Market array vector
  f=$1; shift
  { echo '%%MatrixMarket matrix array real general'; echo "$# 1"; for v in "$@"; do echo "$v"; done; } >"$f"
}
vec "$T_TMP/x.mtx" 1 2 3
vec "$T_TMP/y.mtx" 10 20
vec "$T_TMP/x2.mtx" 1 2
vec "$T_TMP/y3.mtx" 1 2 3
vec "$T_TMP/ynan.mtx" nan inf
# values VALUES...: the last run's stdout body must be exactly these lines.
values() {
  want=$(printf '%s\n' "$@")
  got=$(grep -v '^%' "$OUT" | tail -n +2)
  hdr=$(grep -v '^%' "$OUT" | head -n1)
  if [ "$got" = "$want" ] && [ "$hdr" = "$# 1" ]; then ok; else
    bad "y is '$(echo $got)' (size line '$hdr'), want '$*'"; fi
}

expect_rc 0 "spmv --help" "$SMV" spmv --help
expect_out "usage: smv spmv MATRIX" "help text"
expect_out "--backend" "help mentions --backend"
expect_out "adaptive" "help lists rung 9 (adaptive)"

# Usage errors: exit 2, before any work.
expect_err 2 "missing MATRIX" "no matrix" "$SMV" spmv
expect_err 2 "needs --y FILE" "beta without y" "$SMV" spmv "$T_TMP/a.mtx" --beta 2
expect_err 2 "explicit --beta" "y without beta" "$SMV" spmv "$T_TMP/a.mtx" --y "$T_TMP/y.mtx"
expect_err 2 "--backend must be auto, cpu or cuda" "bad backend" "$SMV" spmv lap2d:3 --backend gpu
expect_err 2 "--precision must be f64, f32 or f64-f32v" "bad precision" "$SMV" spmv lap2d:3 --precision f16
expect_err 2 "unknown --alg 'fastest'" "bad alg" "$SMV" spmv lap2d:3 --alg fastest
# The rung names come from the registry: the error lists every line of
# src/core/rungs.def, in number order (the tests run from the repository root).
RUNGS=$(sed -n 's/^SMV_RUNG[A-Z_]*([0-9]*, [A-Z0-9_]*, "\([^"]*\)".*/\1/p' src/core/rungs.def | paste -sd, - | sed 's/,/, /g')
[ -n "$RUNGS" ] || bad "no rung names read from src/core/rungs.def"
expect_err 2 "(CUDA: $RUNGS;" "bad alg lists every rung of the registry" "$SMV" spmv lap2d:3 --alg fastest
expect_err 2 "--alpha: 'abc' is not a number" "bad alpha" "$SMV" spmv lap2d:3 --alpha abc
expect_err 2 "--beta: 'nan' is not a number" "nan beta" "$SMV" spmv lap2d:3 --beta nan --y "$T_TMP/y.mtx"
expect_err 2 "--x needs a value" "x without value" "$SMV" spmv lap2d:3 --x
expect_err 2 "unknown option '--z'" "unknown option" "$SMV" spmv lap2d:3 --z 1
expect_err 2 "--alpha given twice" "option twice" "$SMV" spmv lap2d:3 --alpha 1 --alpha 2
expect_err 2 "more than one MATRIX" "two matrices" "$SMV" spmv lap2d:3 lap2d:4
expect_err 2 "not with --precision f32" "ref is f64 only" "$SMV" spmv lap2d:3 --alg ref --precision f32
expect_err 2 "is a CUDA kernel" "cuda alg on cpu" "$SMV" spmv lap2d:3 --alg scalar --backend cpu
expect_err 2 "is a CPU algorithm" "cpu alg on cuda" "$SMV" spmv lap2d:3 --alg ref --backend cuda

# y = A x on the CPU, every CPU algorithm and precision (all exact here).
for alg in omp ref; do
  expect_rc 0 "A x ($alg)" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --backend cpu --alg $alg
  values 7 6
done
expect_rc 0 "A x f32" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --backend cpu --precision f32
values 7 6
# f64-f32v on the CPU: the values rounded once to float, the product in
# double: 0.1 times 1 gives float(0.1) exactly, not 0.1.
printf '%%%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 0.1\n' >"$T_TMP/tenth.mtx"
expect_rc 0 "f64-f32v rounds the values" "$SMV" spmv "$T_TMP/tenth.mtx" --backend cpu --precision f64-f32v
expect_out "0.10000000149011612" "f64-f32v value is float(0.1)"
expect_rc 0 "f64 keeps the values" "$SMV" spmv "$T_TMP/tenth.mtx" --backend cpu --precision f64
expect_out "0.10000000000000001" "f64 value is 0.1"
printf '%%%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 1e39\n' >"$T_TMP/big.mtx"
expect_err 1 "row 1, column 1: value 9.9999999999999994e+38 is beyond the f32 range" \
  "f64-f32v refuses a value past FLT_MAX" "$SMV" spmv "$T_TMP/big.mtx" --backend cpu --precision f64-f32v
expect_rc 0 "f64-f32v ref" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --backend cpu --alg ref --precision f64-f32v
values 7 6
# alpha and beta: 2*(7,6) - (10,20) = (4, -8); --opt=value form too.
expect_rc 0 "alpha beta" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --y "$T_TMP/y.mtx" \
  --alpha 2 --beta=-1 --backend cpu
values 4 -8
expect_rc 0 "alpha beta f32" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --y "$T_TMP/y.mtx" \
  --alpha 2 --beta -1 --backend cpu --precision f32
values 4 -8
# Default x = ones: row sums (3, 3).
expect_rc 0 "x defaults to ones" "$SMV" spmv "$T_TMP/a.mtx" --backend cpu
values 3 3
# alpha = 0: beta*y, x never read.
expect_rc 0 "alpha 0" "$SMV" spmv "$T_TMP/a.mtx" --alpha 0 --beta 0.5 --y "$T_TMP/y.mtx" --backend cpu
values 5 10
# beta = 0 with a NaN/Inf y: overwritten, nothing leaks.
expect_rc 0 "beta 0 ignores NaN y" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --beta 0 \
  --y "$T_TMP/ynan.mtx" --backend cpu
values 7 6
# lap2d:3 times ones: row sums 4 - neighbours = corners 2, edges 1, centre 0.
expect_rc 0 "lap2d:3 row sums" "$SMV" spmv lap2d:3 --backend cpu
values 2 1 2 1 0 1 2 1 2

# Wrong lengths: the file, its length and the expected one.
expect_err 1 "x2.mtx:2: vector has 2 entries, expected 3 (the matrix has 3 columns)" \
  "short x" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x2.mtx" --backend cpu
expect_err 1 "y3.mtx:2: vector has 3 entries, expected 2 (the matrix has 2 rows)" \
  "long y" "$SMV" spmv "$T_TMP/a.mtx" --y "$T_TMP/y3.mtx" --beta 1 --backend cpu
expect_err 1 "missing-x.mtx" "missing x file" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/missing-x.mtx" --backend cpu
expect_err 1 "no such file (and not a generator spec)" "missing matrix" "$SMV" spmv none.mtx
expect_err 1 "missing argument K" "bad spec" "$SMV" spmv rand:4

# -o: plain and gzip files, same content as stdout.
expect_rc 0 "-o file" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --backend cpu -o "$T_TMP/out.mtx"
[ ! -s "$OUT" ] && ok || bad "-o still wrote to stdout"
cp "$T_TMP/out.mtx" "$OUT"
values 7 6
expect_rc 0 "-o .gz" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/x.mtx" --backend cpu -o "$T_TMP/out.mtx.gz"
magic=$(od -An -tx1 -N2 "$T_TMP/out.mtx.gz" | tr -d ' \n')
[ "$magic" = "1f8b" ] && ok || bad "-o .gz not gzip: $magic"
# A gzip vector as x reads like the plain one: a 3-vector written both ways.
"$SMV" spmv diag:3 --backend cpu -o "$T_TMP/v3.mtx.gz"
"$SMV" spmv diag:3 --backend cpu -o "$T_TMP/v3.mtx"
expect_rc 0 "gz x input" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/v3.mtx.gz" --backend cpu
cp "$OUT" "$T_TMP/from-gz.mtx"
expect_rc 0 "plain x input" "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/v3.mtx" --backend cpu
cmp -s "$OUT" "$T_TMP/from-gz.mtx" && ok || bad "gz and plain x give different y"
expect_err 1 "out.mtx.gz:2: vector has 2 entries, expected 3" "gz vector length checked" \
  "$SMV" spmv "$T_TMP/a.mtx" --x "$T_TMP/out.mtx.gz" --backend cpu
expect_err 1 "/nonexistent-dir/y.mtx" "unwritable -o" "$SMV" spmv lap2d:3 --backend cpu -o /nonexistent-dir/y.mtx

# Degenerate shapes: all-empty rows give zeros; no rows gives an empty y.
expect_rc 0 "empty rows" "$SMV" spmv empty:3:2 --backend cpu
values 0 0 0
expect_rc 0 "0 x 0" "$SMV" spmv empty:0:0 --backend cpu
values

# Backends. auto: CUDA when a device answers, otherwise exactly one line
# on stderr and the CPU result.
"$SMV" spmv "rand:500:7" --backend cpu -o "$T_TMP/cpu.mtx"
expect_rc 0 "auto backend" "$SMV" spmv "rand:500:7" -o "$T_TMP/auto.mtx"
nl=$(wc -l <"$ERR")
if [ "$nl" -eq 0 ]; then ok # a CUDA device ran it
elif [ "$nl" -eq 1 ] && grep -q '^smv: no CUDA device (.*); using the CPU$' "$ERR"; then ok
else bad "auto fallback stderr: $(cat "$ERR")"; fi
if [ "$nl" -eq 1 ]; then
  cmp -s "$T_TMP/cpu.mtx" "$T_TMP/auto.mtx" && ok || bad "auto (CPU) differs from --backend cpu"
fi
run "$SMV" spmv "rand:500:7" --backend cuda -o "$T_TMP/cuda.mtx"
if [ "$RC" -eq 1 ] && grep -q "no CUDA device" "$ERR"; then ok # no device: an error
elif [ "$RC" -eq 0 ]; then ok
else bad "--backend cuda: exit $RC: $(cat "$ERR")"; fi
# A CPU algorithm name picks the CPU without the fallback line.
expect_rc 0 "--alg omp picks the CPU" "$SMV" spmv lap2d:3 --alg omp
[ ! -s "$ERR" ] && ok || bad "--alg omp printed: $(cat "$ERR")"
# -v reports what ran.
expect_rc 0 "-v" "$SMV" spmv lap2d:3 --backend cpu -v
grep -q "smv spmv: cpu, alg omp, f64: 9 x 9, 33 entries" "$ERR" && ok || bad "-v line: $(cat "$ERR")"

# --reuse [N]: a bare --reuse leaves the matrix that follows alone, a
# number is taken as N; on the CPU it changes nothing.
expect_rc 0 "--reuse bare" "$SMV" spmv --reuse lap2d:3 --backend cpu
expect_out "9 1" "--reuse bare: y written"
expect_rc 0 "--reuse N" "$SMV" spmv --reuse 2000 lap2d:3 --backend cpu
expect_rc 0 "--reuse=N" "$SMV" spmv lap2d:3 --reuse=2000 --backend cpu
expect_err 2 "want an expected call count" "--reuse -1" "$SMV" spmv lap2d:3 --reuse=-1
run "$SMV" spmv --help
expect_out "--reuse [N]" "spmv --help lists --reuse"

finish
