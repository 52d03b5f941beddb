#!/bin/sh
# test_install.sh — `make install PREFIX=DIR` as a user consumes it (issue 25,
# item 17): the installed smv and programs linked through pkg-config (smv,
# smv-lab, smv-dist) and through CMake (find_package(smv) and its imported
# targets) start without LD_LIBRARY_PATH; smv.pc keeps OpenMP/zlib/CUDA in
# Libs.private; `make uninstall` removes every file. The build folder's own
# configuration (BUILD/config.stamp) is passed back to make, so nothing is
# rebuilt. Skips what needs a missing tool (pkg-config, cmake: .ci/run
# installs cmake).
. "$(dirname "$0")/lib.sh"
: "${SMV_BUILD:=build}"
STAMP="$SMV_BUILD/config.stamp"
if [ ! -f "$STAMP" ] || [ ! -x "$SMV_BUILD/smv" ]; then
  skip "no $SMV_BUILD build to install"
  finish
  exit 0
fi
cfg() { tr ' ' '\n' <"$STAMP" | sed -n "s/^$1=//p" | head -n 1; }
CUDA_CFG=$(cfg CUDA) SAN_CFG=$(cfg SAN) SM_CFG=$(cfg SM) MPI_CFG=$(cfg MPI)
P="$T_TMP/prefix"
M="make --no-print-directory BUILD=$SMV_BUILD CUDA=$CUDA_CFG SAN=$SAN_CFG SM=$SM_CFG MPI=$MPI_CFG"
run $M install PREFIX="$P"
if [ "$RC" -eq 0 ]; then ok; else
  bad "make install: exit $RC"; tail -5 "$ERR" >&2
  finish
  exit 1
fi
# Nothing was rebuilt by install (the same configuration).
if grep -qE '^(gcc|cc|nvcc|ar) ' "$OUT"; then bad "make install rebuilt something"; else ok; fi
for f in bin/smv include/smv.h include/smv_lab.h include/smv_solve.h lib/libsmv.a \
  lib/libsmvlab.a lib/libsmv.so lib/libsmv.so.0 lib/pkgconfig/smv.pc lib/pkgconfig/smv-lab.pc \
  lib/cmake/smv/smvConfig.cmake lib/cmake/smv/smvConfigVersion.cmake; do
  if [ -e "$P/$f" ]; then ok; else bad "not installed: $f"; fi
done
if [ "$MPI_CFG" = 1 ]; then
  for f in include/smv_dist.h lib/libsmv_dist.a lib/pkgconfig/smv-dist.pc; do
    if [ -e "$P/$f" ]; then ok; else bad "not installed with MPI: $f"; fi
  done
fi
# The installed smv starts with no LD_LIBRARY_PATH.
expect_rc 0 "installed smv runs" env -u LD_LIBRARY_PATH "$P/bin/smv" version
expect_out "smv " "installed smv prints its version"

# A consumer: the README's example, built as a user would (it calls libm
# itself, so it links -lm as any program using <math.h> does).
CONSUMER=examples/spmv.c
cat >"$T_TMP/lab.c" <<'EOF'
#include <smv.h>
#include <smv_lab.h>
#include <stdio.h>
int main(void) {
  double g = 0;
  smv_status st = smv_device_copy_bandwidth(NULL, 1 << 20, &g);
  printf("lab linked: %s (%s)\n", smv_kernel_name(SMV_ALG_VECTOR), smv_status_string(st));
  return 0;
}
EOF
cat >"$T_TMP/dist.c" <<'EOF'
#include <smv_dist.h>
#include <stdio.h>
int main(void) {
  smv_dist_free(NULL);
  printf("dist linked: %s\n", smv_dist_exchange_name(SMV_DIST_EXCHANGE_HOST));
  return 0;
}
EOF
# Under the sanitizers libsmv.so needs the ASan runtime first: consumers
# are linked with the same flags (a user's SAN build would be too).
SANF=
[ "$SAN_CFG" = 1 ] && SANF="-fsanitize=address,undefined"
CC=${CC:-gcc}
[ "$CC" = cc ] && CC=gcc

if command -v pkg-config >/dev/null 2>&1; then
  export PKG_CONFIG_PATH="$P/lib/pkgconfig"
  libs=$(pkg-config --libs smv)
  case "$libs" in *-lcudart* | *-fopenmp* | *-lz*) bad "smv.pc Libs has private libraries: $libs" ;; *) ok ;; esac
  case "$(pkg-config --static --libs smv)" in *-fopenmp*-lz*) ok ;; *) bad "smv.pc Libs.private lacks -fopenmp -lz" ;; esac
  if [ "$CUDA_CFG" = 1 ]; then
    case "$(pkg-config --static --libs smv)" in *-lcudart*) ok ;; *) bad "CUDA build: Libs.private lacks -lcudart" ;; esac
  fi
  # shellcheck disable=SC2046
  run $CC -std=c11 $SANF $(pkg-config --cflags smv) "$CONSUMER" -o "$T_TMP/pc-spmv" $(pkg-config --libs smv) -lm
  if [ "$RC" -eq 0 ]; then ok; else bad "pkg-config smv: link failed"; head -5 "$ERR" >&2; fi
  expect_rc 0 "pkg-config-linked program starts without LD_LIBRARY_PATH" \
    env -u LD_LIBRARY_PATH "$T_TMP/pc-spmv" lap2d:8
  # A static link of libsmv.a with Libs.private.
  run $CC -std=c11 $SANF $(pkg-config --cflags smv) "$CONSUMER" -o "$T_TMP/pc-static" \
    $(pkg-config --static --libs smv | sed "s| -lsmv | $P/lib/libsmv.a |") -lm
  if [ "$RC" -eq 0 ]; then ok; else bad "static link with Libs.private failed"; head -5 "$ERR" >&2; fi
  expect_rc 0 "statically linked program runs" "$T_TMP/pc-static" lap2d:8
  run $CC -std=c11 $SANF $(pkg-config --cflags smv-lab) "$T_TMP/lab.c" -o "$T_TMP/pc-lab" $(pkg-config --libs smv-lab)
  if [ "$RC" -eq 0 ]; then ok; else bad "pkg-config smv-lab: link failed"; head -5 "$ERR" >&2; fi
  expect_rc 0 "smv-lab program starts" env -u LD_LIBRARY_PATH "$T_TMP/pc-lab"
  expect_out "lab linked: spmv_vector" "smv-lab program runs"
  if [ "$MPI_CFG" = 1 ]; then
    run $CC -std=c11 $SANF $(pkg-config --cflags smv-dist) "$T_TMP/dist.c" -o "$T_TMP/pc-dist" $(pkg-config --libs smv-dist)
    if [ "$RC" -eq 0 ]; then ok; else bad "pkg-config smv-dist: link failed"; head -5 "$ERR" >&2; fi
    expect_rc 0 "smv-dist program starts" env -u LD_LIBRARY_PATH "$T_TMP/pc-dist"
  fi
else
  skip "no pkg-config: consumers through pkg-config"
fi

if command -v cmake >/dev/null 2>&1; then
  mkdir -p "$T_TMP/cm"
  cp "$CONSUMER" "$T_TMP/cm/spmv.c"
  cp "$T_TMP/lab.c" "$T_TMP/dist.c" "$T_TMP/cm/"
  cat >"$T_TMP/cm/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.10)
project(smv_consumer C)
find_package(smv 0.1 REQUIRED)
add_executable(cm_spmv spmv.c)
target_link_libraries(cm_spmv PRIVATE smv::smv m)
add_executable(cm_static spmv.c)
target_link_libraries(cm_static PRIVATE smv::smv_static m)
add_executable(cm_lab lab.c)
target_link_libraries(cm_lab PRIVATE smv::lab)
if(TARGET smv::dist)
  add_executable(cm_dist dist.c)
  target_link_libraries(cm_dist PRIVATE smv::dist)
endif()
EOF
  run cmake -S "$T_TMP/cm" -B "$T_TMP/cm/build" -DCMAKE_PREFIX_PATH="$P" \
    -DCMAKE_C_COMPILER="$CC" -DCMAKE_C_FLAGS="$SANF" -DCMAKE_EXE_LINKER_FLAGS="$SANF"
  if [ "$RC" -eq 0 ]; then ok; else bad "cmake find_package(smv) failed"; tail -8 "$ERR" >&2; fi
  run cmake --build "$T_TMP/cm/build"
  if [ "$RC" -eq 0 ]; then ok; else bad "cmake build failed"; tail -8 "$OUT" >&2; fi
  expect_rc 0 "CMake smv::smv program starts without LD_LIBRARY_PATH" \
    env -u LD_LIBRARY_PATH "$T_TMP/cm/build/cm_spmv" lap2d:8
  expect_rc 0 "CMake smv::smv_static program runs" "$T_TMP/cm/build/cm_static" lap2d:8
  expect_rc 0 "CMake smv::lab program runs" env -u LD_LIBRARY_PATH "$T_TMP/cm/build/cm_lab"
  if [ "$MPI_CFG" = 1 ]; then
    if [ -x "$T_TMP/cm/build/cm_dist" ]; then ok; else bad "CMake smv::dist: no program"; fi
  fi
  # The version file: 0.1 is found, 0.2 and 1.0 are not.
  for v in 0.2 1.0; do
    sed "s/find_package(smv 0.1 REQUIRED)/find_package(smv $v REQUIRED)/" "$T_TMP/cm/CMakeLists.txt" >"$T_TMP/cm/v.txt"
    mkdir -p "$T_TMP/cmv$v"
    cp "$T_TMP/cm/v.txt" "$T_TMP/cmv$v/CMakeLists.txt"
    cp "$T_TMP/cm/"*.c "$T_TMP/cmv$v/"
    run cmake -S "$T_TMP/cmv$v" -B "$T_TMP/cmv$v/build" -DCMAKE_PREFIX_PATH="$P"
    if [ "$RC" -ne 0 ]; then ok; else bad "find_package(smv $v) accepted 0.1.0"; fi
  done
else
  skip "no cmake: the CMake package (apt-get install cmake)"
fi

# uninstall removes every file install wrote.
run $M uninstall PREFIX="$P"
left=$(find "$P" -type f -o -type l 2>/dev/null | head -5)
if [ "$RC" -eq 0 ] && [ -z "$left" ]; then ok; else bad "make uninstall (exit $RC) left: $left"; fi
finish
