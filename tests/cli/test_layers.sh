#!/bin/sh
# test_layers.sh — the layer rule is enforced by the build (issue 20):
# each library folder is compiled with only the include paths it may use
# (mk/layers.mk), so a private header of another concern is not found;
# relative includes ("../x.h"), which would walk around that, are refused
# in src/, lab/ and cli/; lab/ and cli/ objects never see src/.
. "$(dirname "$0")/lib.sh"
CC=${CC:-gcc}
probe=$T_TMP/probe.c

# compiles FOLDER HEADER: 0 when a file compiled as FOLDER can include it.
compiles() {
  flags=$(make -s --no-print-directory layer-flags LAYER="$1") || return 2
  printf '#include "%s"\nint smv_probe(void);\nint smv_probe(void) { return 0; }\n' "$2" >"$probe"
  # shellcheck disable=SC2086
  "$CC" -std=c11 -D_POSIX_C_SOURCE=200809L $flags -fsyntax-only "$probe" 2>"$ERR"
}
allowed() { if compiles "$1" "$2"; then ok; else bad "src/$1 cannot include $2"; sed 's/^/  /' "$ERR" | head -3 >&2; fi; }
refused() { if compiles "$1" "$2"; then bad "src/$1 may include $2 (a layer crossing)"; else ok; fi; }

allowed core internal.h
allowed io mm_internal.h
allowed solve solve_internal.h
refused core mm_internal.h        # core is the leaf
refused gen mm_internal.h         # generators do not read files
refused io solve_internal.h
refused cpu dist.h
refused solve mm_internal.h
refused occupancy solve_internal.h
allowed order order_graph.h
refused order solve_internal.h    # the orderings see core only
refused solve order_graph.h

# The CUDA folders, by path alone (the headers need nvcc to compile).
has_path() { make -s --no-print-directory layer-flags LAYER="$1" | tr ' ' '\n' | grep -qx -- "-Isrc/$2"; }
if has_path cuda/rungs cuda/engine; then ok; else bad "cuda/rungs must see the engine"; fi
if has_path cuda/engine cuda/rungs; then bad "the engine sees the rungs' folder"; else ok; fi
if has_path cuda/spmm cuda/rungs; then bad "spmm sees the rungs' folder"; else ok; fi
if has_path cuda/engine solve; then bad "the engine sees the solvers"; else ok; fi

# No relative includes in the library, the lab or the CLI.
rel=$(grep -rnE '#[[:space:]]*include[[:space:]]*"\.\./' src lab cli 2>/dev/null)
if [ -z "$rel" ]; then ok; else bad "relative includes walk around the layers:"; echo "$rel" >&2; fi
# The lab and the CLI include no header of src/ by name.
priv=$(ls src/*/*.h src/cuda/*/*.h 2>/dev/null | xargs -n1 basename | sort -u)
hits=""
for h in $priv; do
  g=$(grep -rlE "#[[:space:]]*include[[:space:]]*\"([a-z/]*/)?$h\"" lab cli 2>/dev/null)
  [ -n "$g" ] && hits="$hits $h:$g"
done
if [ -z "$hits" ]; then ok; else bad "lab/ or cli/ include private headers:$hits"; fi
finish
