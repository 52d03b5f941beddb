#!/bin/sh
# tests/cli/test_micro.sh — `smv micro`: --list (and that it names every
# micro/*.cu), --help, usage errors (exit 2), the "not built" and "no GPU"
# paths (exit 1 with a clear message; CI has no GPU and runs this before
# `make micro`), option pass-through and failure reporting (with stand-in
# programs), and, where the real programs are built, the no-GPU exit of a
# real one and the GPU-free PTX check of `restrict --static`.
. "$(dirname "$0")/lib.sh"

D="$T_TMP"
NAMES="bank restrict readonly aos blockshape ilp atomics baseline"

# 1. --list names every benchmark, one per line, and every micro/*.cu
expect_rc 0 "micro --list" $SMV micro --list
for n in $NAMES; do
  if grep -q "^$n " "$OUT"; then ok; else bad "--list lacks $n"; fi
done
if [ -d micro ]; then
  for f in micro/*.cu; do
    n=$(basename "$f" .cu)
    if grep -q "^$n " "$OUT"; then ok; else bad "--list lacks $f"; fi
  done
  listed=$(wc -l <"$OUT")
  files=$(ls micro/*.cu | wc -l)
  if [ "$listed" -eq "$files" ]; then ok; else
    bad "--list has $listed entries, micro/ has $files .cu files"
  fi
fi

# 2. help and usage errors
expect_rc 0 "micro --help" $SMV micro --help
expect_out "usage: smv micro" "help text"
expect_out "--csv DIR" "help names --csv"
expect_err 2 "unknown benchmark 'nosuch'" "unknown name" $SMV micro nosuch
expect_err 2 "name a benchmark" "no name" $SMV micro
expect_err 2 "unknown option '--bogus'" "unknown option" $SMV micro --bogus bank
expect_err 2 "--csv needs" "--csv without folder" $SMV micro bank --csv
expect_err 2 "--device needs" "bad device" $SMV micro --device x bank
expect_err 2 "--static applies" "--static on another" $SMV micro --static bank

# 3. not built: an empty SMV_MICRO_DIR, and a copy of smv with no micro/
mkdir -p "$D/empty" "$D/bin"
expect_err 1 "not built" "not built (env)" \
  env SMV_MICRO_DIR="$D/empty" $SMV micro bank
cp "$SMV" "$D/bin/smv"
expect_err 1 "not built" "not built (beside smv)" "$D/bin/smv" micro all

# 4. stand-in programs: exit 3 (no GPU) -> exit 1 and a clear message;
#    options passed through; a failure reported; a missing one named
mkdir -p "$D/fake"
printf '#!/bin/sh\necho "bank: no CUDA GPU available (test)" >&2\nexit 3\n' \
  >"$D/fake/bank"
printf '#!/bin/sh\necho "args: $*"\nexit 0\n' >"$D/fake/aos"
printf '#!/bin/sh\nexit 1\n' >"$D/fake/ilp"
chmod +x "$D/fake/bank" "$D/fake/aos" "$D/fake/ilp"
export SMV_MICRO_DIR="$D/fake"
expect_err 1 "no CUDA GPU available" "no GPU -> exit 1" $SMV micro bank
expect_rc 0 "pass-through" $SMV micro aos --csv "$D/csv" --device 0
expect_out "args: --csv $D/csv --device 0" "options passed"
if [ -d "$D/csv" ]; then ok; else bad "--csv folder not created"; fi
expect_err 1 "ilp failed (exit 1)" "failure reported" $SMV micro aos ilp
expect_out "2 run, 1 failed: ilp" "summary line"
expect_err 1 "'restrict' is not built" "missing one named" $SMV micro all
unset SMV_MICRO_DIR

# 5. the real programs, where built: no GPU -> exit 1; the PTX check
#    (restrict --static) needs no GPU, only nvcc or cuobjdump
MDIR=$(dirname "$SMV")/micro
if [ -x "$MDIR/bank" ]; then
  expect_err 1 "no CUDA GPU available" "real program without a GPU" \
    env CUDA_VISIBLE_DEVICES=-1 $SMV micro bank
else
  expect_err 1 "not built" "no GPU and not built: clear error" $SMV micro bank
fi
if [ -x "$MDIR/restrict" ] && { command -v nvcc >/dev/null 2>&1 ||
  [ -x /usr/local/cuda/bin/nvcc ] || command -v cuobjdump >/dev/null 2>&1; }; then
  expect_rc 0 "restrict --static" $SMV micro restrict --static
  expect_out "ld.global.nc" "PTX shown"
  expect_out "the first store vanished" "seed 002 claim holds"
else
  skip "restrict --static: programs not built or no nvcc/cuobjdump"
fi

finish
