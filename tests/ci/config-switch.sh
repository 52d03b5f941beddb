#!/bin/sh
# tests/ci/config-switch.sh — the build follows its configuration (issue
# 20): build without MPI, then with it in the same folder and no `make
# clean`, and run the distributed tests. Before the configuration stamp
# (mk/config.mk) the second make relinked the CLI with mpicc but kept the
# objects compiled without SMV_HAVE_MPI, and the distributed options were
# "unknown". Then SM changes: the CUDA objects are rebuilt (checked by
# their times, without compiling them twice in CI: `make -n`).
# CPU-only (CUDA=0) to keep CI short; skips without mpicc.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build-cfgswitch}
J=${JOBS:-2}
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  echo "skip: no mpicc/mpirun"
  exit 0
fi
rm -rf "$B"
make -s -j"$J" CUDA=0 MPI=0 BUILD="$B" all >/dev/null
grep -q ' MPI=0 ' "$B/config.stamp" || { echo "FAIL: stamp lacks MPI=0"; exit 1; }
[ ! -e "$B/libsmv_dist.a" ] || { echo "FAIL: MPI=0 built the distributed layer"; exit 1; }
make -s -j"$J" CUDA=0 BUILD="$B" all tests >/dev/null
grep -q ' MPI=1 ' "$B/config.stamp" || { echo "FAIL: stamp lacks MPI=1"; exit 1; }
for o in cli/cmd_spmv.o cli/cmd_bench.o src/core/csr.o; do
  [ "$B/obj/$o" -nt "$B/libsmv_dist.a" ] || [ "$B/obj/$o" -nt "$B/config.stamp" ] ||
    { echo "FAIL: $o was not rebuilt after MPI changed"; exit 1; }
done
res=$(SMV="$B/smv" SMV_BUILD="$B" sh tests/cli/test_dist.sh 2>&1 | grep '^RESULT' | tail -n 1)
echo "test_dist.sh after the switch: $res"
set -- $res
[ "${3:-1}" -eq 0 ] && [ "${2:-0}" -gt 0 ] || { echo "FAIL: distributed tests after MPI=0 -> MPI=1"; exit 1; }
# An unchanged configuration rebuilds nothing; a changed SM is a changed
# configuration too (one object made for real, to keep CI short).
before=$(stat -c %.9Y "$B/obj/src/core/csr.o" 2>/dev/null || stat -c %Y "$B/obj/src/core/csr.o")
sleep 1
make -s -j"$J" CUDA=0 BUILD="$B" all >/dev/null
after=$(stat -c %.9Y "$B/obj/src/core/csr.o" 2>/dev/null || stat -c %Y "$B/obj/src/core/csr.o")
[ "$before" = "$after" ] || { echo "FAIL: an unchanged configuration rebuilds"; exit 1; }
make -s CUDA=0 BUILD="$B" SM=80 "$B/obj/src/core/csr.o" >/dev/null
grep -q ' SM=80 ' "$B/config.stamp" || { echo "FAIL: stamp lacks SM=80"; exit 1; }
[ "$B/obj/src/core/csr.o" -nt "$B/libsmv.a" ] || { echo "FAIL: SM=80 does not rebuild"; exit 1; }
rm -rf "$B"
echo "config-switch: ok"
