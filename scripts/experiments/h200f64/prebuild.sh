#!/bin/bash
# prebuild.sh — here, without a GPU: build targets of a commit (or of the
# working tree: REV "tree") with sm_90 SASS only (no PTX: about a third of
# the size) and xz each into bis/NAME-BASENAME.xz for a device call that
# carries ["bis"] (prebuilt.sh unpacks them there). A commit is built from
# `git archive` under /tmp/prebuild/NAME; the tree in build/ as it is.
#   scripts/experiments/h200f64/prebuild.sh NAME REV TARGET...
#   e.g. prebuild.sh new tree build/smv build/tests/test_cuda_spmv
#        prebuild.sh a0c1048 a0c1048 build/smv
set -u
[ $# -ge 3 ] || { sed -n 2,10p "$0"; exit 2; }
name=$1 rev=$2
shift 2
F="-O3 -std=c++17 -gencode arch=compute_90,code=sm_90 -lineinfo -Xcompiler -Wall,-Wextra,-fPIC"
dir=.
if [ "$rev" != tree ]; then
  dir=/tmp/prebuild/$name
  rm -rf "$dir" && mkdir -p "$dir"
  git archive "$rev" | tar x -C "$dir"
fi
commit=$(git rev-parse --short "${rev/tree/HEAD}")
make -C "$dir" -j"$(nproc)" SM=90 GIT_COMMIT="$commit" NVCCFLAGS="$F" "$@" ||
  exit 1
mkdir -p bis
for t in "$@"; do
  xz -T0 -6 -c "$dir/$t" >"bis/$name-$(basename "$t").xz"
done
du -sh bis
