# minb.sh — sourced by gnn/n3.sh and n4.sh: the chunk kernel's blocks an
# SM (SMV_SPMM_CHUNK_MINB=1 and 4) with rungs 4 and 8, AUTO and ALG3 in
# the same run on R-MAT at two sizes and the power-law graph, row-major.
#   minb_sweep PREC "K..."   results appended to $OUT/$NAME.txt (OUT and
#                            NAME: the caller), printed at the end
minb_sweep() {
  local prec=$1 ks=$2 m k mb
  for m in rmat:20:16 rmat:19:16 plaw:1000000:16; do
    for k in $ks; do
      for mb in 1 4; do
        echo "# $m $prec row k=$k SMV_SPMM_CHUNK_MINB=$mb" | tee -a "$OUT/$NAME.txt"
        SMV_SPMM_CHUNK_MINB=$mb timeout 120 build/smv bench-spmm "$m" --k "$k" \
          --prec "$prec" --layout row --algs auto,rowsplit,rowpipe,cusparse-alg3 \
          --runs 50 >>"$OUT/$NAME.txt" 2>&1
        echo "exit $?" >>"$OUT/$NAME.txt"
      done
    done
  done
  grep -vE "^\s*$" "$OUT/$NAME.txt" | cut -c1-160
}
