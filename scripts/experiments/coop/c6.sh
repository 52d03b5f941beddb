#!/bin/bash
# c6.sh — issue 24: the resident persistent CG after c5 (two rows a
# thread's pass, both sums before either row's stores; half the SM's
# blocks by default) against cg1 (the default) at its shapes (blocks per
# SM, block size, lanes), beside the fair anchor (graph-captured cuSPARSE + cuBLAS CG,
# build/cg_graph) in the same run, on the real SPD matrices under 1M
# entries and the generated meshes. f64, no preconditioner; solve_smv and
# cg_graph verify their answers (check=). The device tests first.
#   OUT=dir scripts/experiments/coop/c6.sh
set -u
. "$(dirname "$0")/sweep.sh"
coop_setup c6
timeout 300 build/tests/test_cuda_solve_coop >"$OUT/test_cuda_solve_coop.log" 2>&1
echo "test_cuda_solve_coop: exit $?: $(grep '^RESULT' "$OUT/test_cuda_solve_coop.log")"
grep -E "CHECK failed|FAIL" "$OUT/test_cuda_solve_coop.log" | head -12
for m in lap2d:300 lap3d:50 $S/wathen100.mtx.gz $S/gyro_m.mtx.gz \
  $S/G2_circuit.mtx.gz $S/Trefethen_20000.mtx.gz \
  $S/s3rmt3m3.mtx.gz $S/cvxbqp1.mtx.gz; do
  coop_sweep "$m" "" "VARIANT=res" "VARIANT=res PER_SM=1" "VARIANT=res PER_SM=4" \
    "VARIANT=res BLOCK=1024" "VARIANT=res LANES=1" "VARIANT=res LANES=2" \
    "VARIANT=res LANES=4" "VARIANT=res LANES=8"
done
cut -c1-250 "$R"
