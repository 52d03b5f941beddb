#!/bin/bash
# session 18: verification of the rung-12 commit: every device test
cd "$(dirname "$0")/.."
export MAKEFLAGS="GIT_COMMIT=${C:-dev}"
make -j16 all tests >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ
t=$SECONDS; timeout 400 make test >$OUT/test.log 2>&1; echo "make test rc=$? $((SECONDS-t)) s"; grep -E "^FAIL|passed|failed" $OUT/test.log | tail -8
t=$SECONDS; timeout 150 compute-sanitizer --tool memcheck build/tests/test_cuda_hot >$OUT/memcheck.log 2>&1; echo "memcheck rc=$? $((SECONDS-t)) s"; tail -2 $OUT/memcheck.log
date -u +%FT%TZ
