#!/bin/sh
# test_harden.sh — the CLI side of issue 9: resources in proportion to the
# input, files never lost on a failed write, stdout errors, names that
# reach a gnuplot script, and the messages of item 7.
. "$(dirname "$0")/lib.sh"

# ---- item 6: resources ---------------------------------------------------
# 78 bytes declaring 2147483647 rows and one entry: a valid matrix whose
# CSR needs 8.6 GB. With 1 GB allowed: a clear error at the size line,
# at once (it used to take 8.4 GB and 36 s).
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n1 1 2.5\n' \
  >"$T_TMP/huge.mtx"
SMV_MEM_LIMIT=1G expect_err 1 "huge.mtx:2: a 2147483647 x 2147483647 matrix with 0 entries needs 8.59 GB of memory" \
  "huge declared rows refused" "$SMV" info "$T_TMP/huge.mtx"
# The same limit from ulimit -v (not under AddressSanitizer, which needs
# terabytes of address space for its shadow memory).
case "$SMV_BUILD" in
*san*) skip "ulimit -v under ASan" ;;
*)
  (ulimit -v 1000000 && "$SMV" info "$T_TMP/huge.mtx") >"$OUT" 2>"$ERR"
  RC=$?
  if [ "$RC" -eq 1 ] && grep -qF "(ulimit -v)" "$ERR"; then ok; else
    bad "ulimit -v: exit $RC: $(head -c 300 "$ERR")"
  fi
  ;;
esac
# A 67-byte x declaring 2^31 - 1 values for a 9-column matrix: refused at
# its size line, nothing allocated.
printf '%%%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1\n' >"$T_TMP/bigx.mtx"
SMV_MEM_LIMIT=256M expect_err 1 "bigx.mtx:2: vector has 2147483647 entries, expected 9 (" \
  "--x length checked at its size line" "$SMV" spmv lap2d:3 --x "$T_TMP/bigx.mtx" --backend cpu
# An in-range spec larger than memory: "needs N GB" before allocating.
SMV_MEM_LIMIT=1G expect_err 1 "needs 32 GB of memory, more than the 1.07 GB available (SMV_MEM_LIMIT)" \
  "generator spec larger than memory" "$SMV" gen rand:2000000000:1 -o "$T_TMP/never.mtx"
[ -e "$T_TMP/never.mtx" ] && bad "a refused gen left a file" || ok

finish
