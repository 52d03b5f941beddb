#!/bin/sh
# tests/cli/test_bench.sh — `smv bench` without a GPU (CI): the CPU path
# verifies and times, the banner, PASS lines, CSV and JSON well-formed,
# --from-csv round trip, plots, usage errors (exit 2) and runtime errors
# (exit 1). On a machine with a GPU the auto-backend checks still hold
# (the GPU path prints the same banner and PASS lines).
. "$(dirname "$0")/lib.sh"

D="$T_TMP"
FAST="--runs 20 --warmup 2 --max-time 0.5"

# 1. the default (auto) backend on small generated matrices
expect_rc 0 "bench auto" $SMV bench lap2d:12 rand:300:5,cols=200 \
  --precision both $FAST --graph-batch 10 --graph-replays 3 \
  --csv "$D/auto.csv" --json "$D/auto.json"
cp "$OUT" "$D/auto.out"
cp "$ERR" "$D/auto.err"
expect_out "smv bench  smv" "banner title"
expect_out "date " "banner date"
expect_out "device " "banner device"
expect_out "commit " "banner commit"
expect_out "PASS" "PASS lines"
expect_out "summary: " "summary line"
if grep -q "no CUDA device" "$D/auto.err"; then
  NOGPU=1
  # exactly one line says so
  n=$(grep -c "no CUDA device" "$D/auto.err")
  if [ "$n" -eq 1 ]; then ok; else bad "fallback said $n times, want 1"; fi
  expect_out "cpu: " "CPU device in banner"
else
  NOGPU=0
  skip "a GPU answered: CPU-fallback message not checked"
fi

# CSV: header, every line the same number of fields (quote-aware), rows
# that verified, positive medians.
csv_fields() { # prints the field count of every line
  awk '{ n = 1; q = 0
         for (i = 1; i <= length($0); i++) {
           c = substr($0, i, 1)
           if (c == "\"") q = !q
           else if (c == "," && !q) n++
         }
         print n }' "$1"
}
if [ -s "$D/auto.csv" ]; then ok; else bad "CSV not written"; fi
if head -n 1 "$D/auto.csv" | grep -q '^label,device,commit,date,backend,matrix,rows,cols,nnz,precision,alg,block,sweep,verify,'; then
  ok
else
  bad "CSV header: $(head -n 1 "$D/auto.csv" | cut -c1-120)"
fi
for col in warm_median_ms warm_p10_ms warm_p90_ms flushed_median_ms graph_median_ms warm_gbps warm_gflops warm_speedup_alg1 occupancy note; do
  if head -n 1 "$D/auto.csv" | tr ',' '\n' | grep -qx "$col"; then ok; else bad "CSV lacks column $col"; fi
done
# csv_col FILE NAME: that column of every data line (quote-aware)
csv_col() {
  awk -v name="$2" '
    function split_csv(line, out,   n, i, c, q, cur) {
      n = 0; q = 0; cur = ""
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        if (c == "," && !q) { out[++n] = cur; cur = ""; continue }
        cur = cur c
      }
      out[++n] = cur
      return n
    }
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) if (h[i] == name) col = i; next }
    { split_csv($0, f); print f[col] }' "$1"
}
nf=$(csv_fields "$D/auto.csv" | sort -u | wc -l)
if [ "$nf" -eq 1 ]; then ok; else bad "CSV lines have different field counts"; fi
rows=$(($(wc -l <"$D/auto.csv") - 1))
if [ "$NOGPU" -eq 1 ]; then
  # 2 matrices x (f64: cpu, cpu-serial; f32: cpu)
  if [ "$rows" -eq 6 ]; then ok; else bad "CPU CSV has $rows rows, want 6"; fi
else
  if [ "$rows" -ge 2 ]; then ok; else bad "GPU CSV has $rows rows"; fi
fi
# verify column (14) is PASS on every row; warm median (column 20) > 0
bad_rows=$(csv_col "$D/auto.csv" verify | grep -vcx PASS)
if [ "$bad_rows" -eq 0 ]; then ok; else bad "$bad_rows CSV rows not PASS"; fi
nonpos=$(csv_col "$D/auto.csv" warm_median_ms | awk '!($1 + 0 > 0)' | wc -l)
if [ "$nonpos" -eq 0 ]; then ok; else bad "$nonpos rows without a positive warm median"; fi

# JSON parses (python3 when there is one)
if command -v python3 >/dev/null 2>&1; then
  if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert len(r) >= 2, len(r)
assert all(x["verify"] == "PASS" for x in r)
assert all(x["warm_median_ms"] > 0 for x in r)
assert d["tool"] == "smv bench" and "device" in d and "model" in d
' "$D/auto.json"; then ok; else bad "JSON invalid or wrong"; fi
else
  skip "python3 missing: JSON not parsed"
fi

# 2. the CPU path explicitly (on any machine), beta != 0, edge matrices
expect_rc 0 "bench --backend cpu" $SMV bench --backend cpu lap3d:6 empty:5:7 \
  diag:1 denserow:200:3 --alpha -2 --beta 0.5 --precision both $FAST \
  --csv "$D/cpu.csv"
expect_out "empty:5:7" "nnz = 0 matrix reported"
expect_out "cpu-serial" "serial reference timed"
fails=$(grep -c -E '^f(64|32) .* (FAIL|ERROR) ' "$OUT")
if [ "$fails" -eq 0 ]; then ok; else bad "CPU path: $fails FAIL/ERROR lines"; fi
if grep -q ',cpu,lap3d:6,216,216,' "$D/cpu.csv"; then ok; else bad "CSV lacks the lap3d:6 row"; fi
# the bytes model with beta != 0: lap3d:6 f64: nnz*(8+4) + 217*4 + 216*8 + 2*216*8
nnz=$(csv_col "$D/cpu.csv" nnz | head -n 1)
want=$((nnz * 12 + 217 * 4 + 216 * 8 + 2 * 216 * 8))
got=$(csv_col "$D/cpu.csv" bytes | head -n 1)
if [ "$got" = "$want" ]; then ok; else bad "bytes model: $got, want $want"; fi

# 3. --from-csv: same CSV back, byte for byte; tables printed
expect_rc 0 "from-csv" $SMV bench --from-csv "$D/cpu.csv" --csv "$D/again.csv" \
  --json "$D/again.json"
expect_out "lap3d:6" "from-csv prints the tables"
if cmp -s "$D/cpu.csv" "$D/again.csv"; then ok; else bad "from-csv CSV differs"; fi

# 3b. Markdown tables
expect_rc 0 "markdown" $SMV bench --from-csv "$D/cpu.csv" --quiet --markdown "$D/t.md"
if grep -q '^| matrix | nnz | cpu | cpu-serial |' "$D/t.md" &&
  grep -q '^| lap3d:6 | ' "$D/t.md" && grep -q '^#### f32 ' "$D/t.md"; then
  ok
else
  bad "markdown tables: $(head -c 300 "$D/t.md")"
fi

# 4. plots
expect_rc 0 "plot" $SMV bench --from-csv "$D/cpu.csv" --plot "$D/ladder.png" --quiet
if command -v gnuplot >/dev/null 2>&1; then
  for p in "$D/ladder-f64.png" "$D/ladder-f32.png"; do
    if [ -s "$p" ] && [ "$(head -c 4 "$p" | tail -c 3)" = "PNG" ]; then ok; else
      bad "plot $p not a PNG"
    fi
  done
else
  expect_out "apt-get install gnuplot-nox" "plot: says how to get gnuplot"
  if [ -s "$D/ladder-f64.gp" ]; then ok; else bad "gnuplot script not written"; fi
fi
if [ -s "$D/ladder-f64.dat" ]; then ok; else bad "plot data not written"; fi

# 4b. sweep rendering from a hand-made CSV (a subset of the columns is
# enough for the reader): table, the '*' where the runtime's occupancy
# differs, the per-rung summary, the plot.
{
  echo "matrix,precision,alg,block,sweep,verify,warm_runs,warm_median_ms,occupancy,occ_blocks_per_sm,cuda_blocks_per_sm,occ_max_warps,device,date,commit,rows,cols,nnz"
  for a in scalar vector-shfl; do
    b=32
    while [ $b -le 1024 ]; do
      bps=$((2048 / b)); [ $bps -gt 32 ] && bps=32
      rt=$bps; [ $b -eq 96 ] && rt=$((bps + 1))
      occ=$(awk -v b=$b -v n=$bps 'BEGIN { print n * b / 32 / 64 }')
      ms=$(awk -v b=$b 'BEGIN { print 0.1 + (b - 512) * (b - 512) / 1e7 }')
      echo "fixture:1,f64,$a,$b,1,PASS,50,$ms,$occ,$bps,$rt,64,fixture device,2026-01-01T00:00:00Z,none,100,100,1000"
      b=$((b + 32))
    done
  done
} >"$D/sweep.csv"
expect_rc 0 "sweep from csv" $SMV bench --from-csv "$D/sweep.csv" --plot "$D/sweep.png"
expect_out "block sweep: fixture:1 f64" "sweep table title"
expect_out "  512     100.00 100%" "sweep row: time and occupancy"
if grep -E '^   96 .*%\*' "$OUT" >/dev/null; then ok; else bad "sweep: runtime mismatch not starred"; fi
expect_out "best  512 threads" "sweep: best block"
expect_rc 0 "sweep markdown" $SMV bench --from-csv "$D/sweep.csv" --quiet --markdown "$D/sweep.md"
if grep -q '^| 96 | .*%\*)' "$D/sweep.md" && grep -q '^| block | scalar | vector-shfl |' "$D/sweep.md"; then
  ok
else
  bad "sweep markdown table"
fi
if command -v gnuplot >/dev/null 2>&1; then
  if [ -s "$D/sweep.png" ]; then ok; else bad "sweep PNG not written"; fi
else
  if [ -s "$D/sweep.gp" ]; then ok; else bad "sweep gnuplot script not written"; fi
fi

# 5. usage errors: exit 2
expect_rc 2 "no matrix" $SMV bench
expect_err 2 "unknown rung" "bad --alg" $SMV bench lap2d:4 --alg nosuch
expect_err 2 "multiple of 32" "block 33" $SMV bench lap2d:4 --block 33
expect_err 2 "multiple of 32" "block 2048" $SMV bench lap2d:4 --block 2048
expect_err 2 "--precision" "bad precision" $SMV bench lap2d:4 --precision f16
# f64-f32v is a device mode: the CPU path says so (exit 1).
expect_err 1 "precision f64-f32v is a device mode" "f64-f32v on the CPU" \
  $SMV bench lap2d:4 --precision f64-f32v --backend cpu --runs 3 --quiet
expect_err 2 "--runs" "runs 0" $SMV bench lap2d:4 --runs 0
expect_err 2 "--max-time" "negative max-time" $SMV bench lap2d:4 --max-time -1
expect_err 2 "unknown option" "unknown option" $SMV bench lap2d:4 --frobnicate
expect_err 2 "--csv needs" "csv without a name" $SMV bench lap2d:4 --csv
expect_err 2 "give no MATRIX" "from-csv with a matrix" $SMV bench lap2d:4 --from-csv "$D/cpu.csv"
expect_err 2 "given twice" "same rung twice" $SMV bench lap2d:4 --alg scalar,1
expect_err 2 "'all' given twice" "all twice" $SMV bench lap2d:4 --alg all,all
expect_rc 0 "all,auto accepted" $SMV bench lap2d:4 --alg all,auto --backend cpu --runs 3 --quiet
expect_rc 0 "help" $SMV bench --help
expect_out "--block B|sweep" "help names --block sweep"

# 6. runtime errors: exit 1 with the reason
expect_err 1 "nosuch.mtx" "missing matrix file" $SMV bench "$D/nosuch.mtx" --backend cpu
expect_err 1 "nosuch.csv" "missing CSV" $SMV bench --from-csv "$D/nosuch.csv"
printf 'hello,world\n1,2\n' >"$D/notours.csv"
expect_err 1 "not an smv bench CSV" "foreign CSV" $SMV bench --from-csv "$D/notours.csv"
head -n 1 "$D/cpu.csv" >"$D/short.csv"
echo "x,y" >>"$D/short.csv"
expect_err 1 "fields, the header has" "ragged CSV" $SMV bench --from-csv "$D/short.csv"
expect_err 1 "" "unwritable CSV" $SMV bench lap2d:4 --backend cpu --csv /nonexistent/dir/b.csv
if [ "$NOGPU" -eq 1 ]; then
  expect_err 1 "no CUDA device" "--backend cuda without a GPU" $SMV bench lap2d:4 --backend cuda
  expect_err 1 "--block sweep" "sweep without a GPU" $SMV bench lap2d:4 --block sweep
else
  skip "a GPU answered: no-device errors not checked"
  skip "a GPU answered: no-device errors not checked"
fi
expect_err 1 "--block sweep needs the CUDA backend" "sweep on the CPU backend" \
  $SMV bench lap2d:4 --backend cpu --block sweep

# Help wins wherever it stands: never taken as the value of --csv (which
# once wrote a CSV file named --help).
smv_abs=$(cd "$(dirname "$SMV")" && pwd)/$(basename "$SMV")
(cd "$D" && "$smv_abs" bench lap2d:4 --csv --help >out.txt 2>&1)
if [ $? -eq 0 ] && grep -q '^usage: smv bench' "$D/out.txt" && [ ! -e "$D/--help" ]; then
  ok
else
  bad "bench --csv --help: want usage, exit 0, no file named --help"
fi

# --reuse [N] parses (a bare one before a matrix leaves the matrix alone).
expect_rc 0 "bench --reuse" $SMV bench --reuse lap2d:20 --backend cpu --runs 2 --quiet
expect_rc 0 "bench --reuse N" $SMV bench lap2d:20 --reuse 5000 --backend cpu --runs 2 --quiet
expect_err 2 "want an expected call count" "bench --reuse=x" $SMV bench lap2d:20 --reuse=x
run $SMV bench --help
expect_out "--reuse [N]" "bench --help lists --reuse"

finish
