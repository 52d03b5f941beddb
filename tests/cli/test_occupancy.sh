#!/bin/sh
# tests/cli/test_occupancy.sh — `smv occupancy`: the seed's numbers through
# the CLI, JSON keys and values, the human explanation, the sweep table and
# its plot files (PNG when gnuplot exists, the install hint when it does
# not), --list, usage errors (exit 2) and no device (exit 1).
. "$(dirname "$0")/lib.sh"

D="$T_TMP"
# The sweep writes plot files into the current directory: work in $D, with
# the binary's absolute path.
case "$SMV" in /*) ;; *) SMV="$(pwd)/$SMV" ;; esac
PY=0
command -v python3 >/dev/null 2>&1 && PY=1

# json_get FILE EXPR: print a Python expression over the parsed JSON `d`.
json_get() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=eval(sys.argv[2]); print(*(v if isinstance(v, tuple) else (v,)))' "$1" "$2"
}

# json_is FILE EXPR WANT WHAT SKIPPED: json_get FILE EXPR must print WANT
# (else "WHAT: got"); without python3 the check is skipped ("SKIPPED").
json_is() {
  if [ $PY -eq 1 ]; then
    v=$(json_get "$1" "$2")
    if [ "$v" = "$3" ]; then ok; else bad "$4: $v"; fi
  else
    skip "python3 missing: $5"
  fi
}

# 1. seed 000, Kepler K20: 27 registers, 128 threads -> 16 blocks, 64/64.
expect_rc 0 "cc 3.5 json" $SMV occupancy --cc 3.5 --threads 128 --regs 27 --json
cp "$OUT" "$D/k20.json"
for key in '"blocks_per_sm":16' '"warps_per_sm":64' '"max_warps_per_sm":64' \
  '"occupancy":1.000000' '"limited_by":["warps","blocks","registers"]' \
  '"blocks_by_warps":16' '"blocks_by_blocks":16' '"blocks_by_regs":16' \
  '"blocks_by_smem":null' '"regs_per_warp":1024' '"cc":"3.5"'; do
  expect_out "$key" "json has $key"
done
json_is "$D/k20.json" 'd["blocks_per_sm"], d["warps_per_sm"], d["limited_by"]' \
  "16 64 ['warps', 'blocks', 'registers']" "k20 json parsed" "JSON not parsed"

# 63 of 64 at 7, 9 and 21 warps per block.
for t in 224 288 672; do
  expect_rc 0 "cc 3.5 $t threads" $SMV occupancy --cc sm_35 --threads $t --regs 27 --json
  expect_out '"warps_per_sm":63' "63 warps at $t threads"
done

# 2. seed 000, Fermi C2075: 21 registers, 192 threads -> 7 blocks, 42/48,
# limited by registers, explained like the seed does.
expect_rc 0 "cc 2.0 text" $SMV occupancy --cc 2.0 --threads 192 --regs 21 \
  --smem 128 --smem-per-thread 8
expect_out "21 x 32 = 672 -> 704 registers per warp (unit 64)" "register arithmetic"
expect_out "=> 7 blocks x 6 warps = 42 of 48 warps per SM: occupancy 87.5% (limited by registers)" "verdict line"
expect_out "1664 + 0 reserved" "seed's shared memory (192 + 16) * 8"
expect_rc 0 "cc 2.0 20 regs" $SMV occupancy --cc 2.0 --threads 192 --regs 20 --json
expect_out '"warps_per_sm":48' "20 registers give 48 warps"

# 3. a request that cannot launch is an answer, not an error
expect_rc 0 "cannot launch" $SMV occupancy --cc 2.0 --threads 1024 --regs 63
expect_out "=> cannot launch" "cannot-launch verdict"

# carveout and opt-in on Hopper
expect_rc 0 "carveout" $SMV occupancy --cc 9.0 --threads 32 --regs 16 --carveout maxl1 --json
expect_out '"blocks_per_sm":8' "carveout 0: 8 blocks of 1 KB reserved"
expect_out '"smem_per_sm":8192' "8 KB carveout"
expect_rc 0 "opt-in" $SMV occupancy --cc 90 --threads 128 --regs 32 --smem 100K
expect_out "cudaFuncAttributeMaxDynamicSharedMemorySize" "opt-in explained"

# 4. sweep: table, best block, plot files
cd "$D" || exit 1
expect_rc 0 "sweep" $SMV occupancy --cc 3.5 --regs 27 --smem 128 --smem-per-thread 8 --sweep
expect_out "warps per SM vs block size" "sweep title"
expect_out "27 registers/thread, shared memory 128 + 8 x Db bytes per block" "sweep subtitle"
expect_out "     128      4      16       64    100.0%  warps, blocks, registers" "sweep row 128"
expect_out "     224      7       9       63     98.4%" "sweep row 224"
expect_out "best: 128 threads per block, 16 blocks, 64 of 64 warps per SM" "best block"
n=$(grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+%' "$OUT")
if [ "$n" -eq 32 ]; then ok; else bad "sweep has $n rows, want 32"; fi
if [ -s occupancy_cc35_r27.dat ] && [ -s occupancy_cc35_r27.gp ]; then ok; else
  bad "default .dat/.gp not written"; fi
if grep -q "^128 64 16 100.00" occupancy_cc35_r27.dat; then ok; else
  bad ".dat lacks the 128-thread row"; fi
if grep -q "CC 3.5" occupancy_cc35_r27.gp && grep -q "xlabel" occupancy_cc35_r27.gp &&
  grep -q "ylabel" occupancy_cc35_r27.gp; then ok; else
  bad ".gp lacks title/axes"; fi
if command -v gnuplot >/dev/null 2>&1; then
  # PNG magic: \211PNG
  if [ -s occupancy_cc35_r27.png ] &&
    [ "$(od -An -c -N4 occupancy_cc35_r27.png | tr -d ' ')" = "211PNG" ]; then ok; else
    bad "PNG not created by gnuplot"; fi
  expect_out "plot: occupancy_cc35_r27.png" "plot line"
  expect_rc 0 "sweep --plot" $SMV occupancy --cc 9.0 --regs 40 --sweep --plot "$D/h100 sweep.png"
  if [ -s "$D/h100 sweep.png" ] && [ -s "$D/h100 sweep.dat" ] && [ -s "$D/h100 sweep.gp" ]; then
    ok; else bad "--plot with a space in the name"; fi
else
  skip "gnuplot missing: PNG not checked"
  skip "gnuplot missing: plot line not checked"
  skip "gnuplot missing: --plot not checked"
fi
# without gnuplot on PATH: the files and one line saying how to get it
mkdir -p nogp
expect_rc 0 "sweep without gnuplot" env PATH=/nonexistent "$SMV" occupancy --cc 2.0 --regs 21 --sweep --plot nogp/f.png
if grep -q "apt-get install gnuplot-nox" "$ERR" && [ "$(wc -l <"$ERR")" -eq 1 ]; then ok; else
  bad "no one-line gnuplot hint"; sed 's/^/  stderr: /' "$ERR" >&2; fi
if [ -s nogp/f.dat ] && [ -s nogp/f.gp ] && [ ! -e nogp/f.png ]; then ok; else
  bad "without gnuplot: .dat/.gp expected, no .png"; fi
expect_out "best: 736 threads per block, 2 blocks, 46 of 48 warps per SM" "fermi exhaustive best"
# --no-plot writes nothing; JSON sweep
mkdir -p np && cd np || exit 1
expect_rc 0 "sweep json" $SMV occupancy --cc 8.6 --regs 64 --smem 4K --sweep --no-plot --json
if [ -z "$(ls)" ]; then ok; else bad "--no-plot wrote files: $(ls)"; fi
cd "$D" || exit 1
expect_out '"best_block":' "json best_block"
expect_out '"plot":null' "json plot null"
expect_out '"threads_per_block":1024' "json sweep reaches 1024"
cp "$OUT" sweep.json
json_is sweep.json 'len(d["sweep"]), d["cc"], all(r["warps_per_sm"] <= 48 for r in d["sweep"])' \
  "32 8.6 True" "sweep json" "sweep JSON not parsed"

# 5. --list
expect_rc 0 "list" $SMV occupancy --list
for cc in 2.0 2.1 3.0 3.5 3.7 5.0 5.2 5.3 6.0 6.1 6.2 7.0 7.2 7.5 8.0 8.6 8.7 8.9 9.0 10.0 12.0; do
  if grep -q "^$cc " "$OUT"; then ok; else bad "--list lacks $cc"; fi
done
expect_rc 0 "list json" $SMV occupancy --list --json
expect_out '"source":' "list json sources"
cp "$OUT" list.json
json_is list.json 'len(d), d[3]["cc"], d[3]["reg_alloc_unit"], d[0]["reg_alloc_unit"]' \
  "21 3.5 256 64" "list json" "list JSON not parsed"

# 6. bad arguments: exit 2 with a message
expect_err 2 "unknown compute capability 4.0" "unknown cc" $SMV occupancy --cc 4.0 --threads 128 --regs 32
expect_err 2 "is not a compute capability" "malformed cc" $SMV occupancy --cc 3.5.1 --threads 128 --regs 32
expect_err 2 "allows at most 1024" "too many threads" $SMV occupancy --cc 3.5 --threads 1025 --regs 32
expect_err 2 "allows at most 63" "63 registers on 3.0" $SMV occupancy --cc 3.0 --threads 128 --regs 64
expect_err 2 "allows at most 255" "256 registers" $SMV occupancy --cc 9.0 --threads 128 --regs 256
expect_err 2 "allows at most 232448" "too much shared memory" $SMV occupancy --cc 9.0 --threads 128 --regs 32 --smem 232449
expect_err 2 "missing --regs" "no regs" $SMV occupancy --cc 3.5 --threads 128
expect_err 2 "missing --threads" "no threads" $SMV occupancy --cc 3.5 --regs 32
expect_err 2 "missing --cc" "no cc" $SMV occupancy --threads 128 --regs 32
expect_err 2 "--threads needs" "bad threads" $SMV occupancy --cc 3.5 --threads 12x --regs 32
expect_err 2 "--threads needs" "zero threads" $SMV occupancy --cc 3.5 --threads 0 --regs 32
expect_err 2 "--regs needs" "negative regs" $SMV occupancy --cc 3.5 --threads 128 --regs -1
expect_err 2 "--smem needs" "bad smem" $SMV occupancy --cc 3.5 --threads 128 --regs 32 --smem lots
expect_err 2 "--carveout needs" "bad carveout" $SMV occupancy --cc 9.0 --threads 128 --regs 32 --carveout 101
expect_err 2 "--cache-config needs" "bad cache config" $SMV occupancy --cc 3.5 --threads 128 --regs 32 --cache-config big
expect_err 2 "drop --threads" "sweep with threads" $SMV occupancy --cc 3.5 --threads 128 --regs 32 --sweep
expect_err 2 "go with --sweep" "plot without sweep" $SMV occupancy --cc 3.5 --threads 128 --regs 32 --plot x.png
expect_err 2 "unknown argument" "unknown option" $SMV occupancy --cc 3.5 --threads 128 --regs 32 --frobnicate
expect_err 2 "unknown kernel" "unknown kernel" $SMV occupancy --kernel spmv_nope
expect_err 2 "no kernel of smv's own" "cusparse rung" $SMV occupancy --kernel cusparse-alg2
expect_err 2 "drop --regs" "kernel with regs" $SMV occupancy --kernel spmv_vector --regs 32
expect_rc 0 "help" $SMV occupancy --help
expect_out "usage: smv occupancy" "help text"

# 7. native and --kernel: a clear error without a device, a real answer
# with one.
run $SMV occupancy --cc native --threads 128 --regs 32 --json
if [ "$RC" -eq 1 ] && grep -q "needs a CUDA device" "$ERR"; then
  ok
  skip "no CUDA device: --kernel not checked"
  expect_err 1 "needs a CUDA device" "kernel without device" $SMV occupancy --kernel spmv_vector_shfl
elif [ "$RC" -eq 0 ]; then
  expect_out '"device":' "native names the device"
  expect_rc 0 "kernel" $SMV occupancy --kernel spmv_vector_shfl --json
  expect_out '"agree":true' "kernel: our figure matches the runtime's"
  expect_out '"runtime_blocks_per_sm":' "kernel: runtime figure"
  expect_rc 0 "kernel sweep" $SMV occupancy --kernel vector --precision f32 --sweep --no-plot
  expect_out "agrees at every size" "kernel sweep agrees"
else
  bad "--cc native: exit $RC"; sed 's/^/  stderr: /' "$ERR" >&2
fi

finish
