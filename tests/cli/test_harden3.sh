#!/bin/sh
# test_harden3.sh — the CLI side of issue 25 (reliability round 3): plot
# files (items 4-7), vectors checked before they are read or allocated
# (8, 9), and the conventions of item 16.
. "$(dirname "$0")/lib.sh"
case "$SMV" in /*) ;; *) SMV="$PWD/$SMV" ;; esac

# ---- items 4-7: --plot files -----------------------------------------------
# A stand-in gnuplot (first on PATH) that records how it was called and where
# its standard output goes, and writes a PNG signature there: the checks run
# where gnuplot is not installed too.
FAKE="$T_TMP/fakebin"
mkdir -p "$FAKE"
cat >"$FAKE/gnuplot" <<EOF
#!/bin/sh
echo "\$*" >"$T_TMP/gnuplot.args"
t=\$(readlink /proc/\$\$/fd/1 2>/dev/null); echo "\$t" >"$T_TMP/gnuplot.stdout"
printf '\211PNG\r\n\032\nfake'
EOF
chmod +x "$FAKE/gnuplot"
P="$T_TMP/plots"
mkdir -p "$P"
PLOTS="solve:lap2d:8 occupancy bench"
plot() { # plot KIND PNG: the three commands that write --plot
  case "$1" in
  solve) PATH="$FAKE:$PATH" run "$SMV" solve lap2d:8 --plot "$2" ;;
  occupancy) PATH="$FAKE:$PATH" run "$SMV" occupancy --cc 9.0 --regs 32 --sweep --plot "$2" ;;
  bench) PATH="$FAKE:$PATH" run "$SMV" bench lap2d:8 --runs 3 --warmup 1 --quiet --plot "$2" ;;
  esac
}
for k in solve occupancy bench; do
  # item 4: a FIFO, a directory, a symbolic link or a device is an error
  # (exit 1), nothing computed, nothing replaced.
  mkfifo "$P/$k-fifo.png"
  plot $k "$P/$k-fifo.png"
  if [ "$RC" -eq 1 ] && grep -qF "is a FIFO" "$ERR" && [ -p "$P/$k-fifo.png" ]; then ok; else
    bad "$k --plot FIFO: exit $RC: $(head -c 300 "$ERR")"
  fi
  mkdir "$P/$k-dir.png"
  plot $k "$P/$k-dir.png"
  if [ "$RC" -eq 1 ] && grep -qF "is a directory" "$ERR" && [ -d "$P/$k-dir.png" ]; then ok; else
    bad "$k --plot directory: exit $RC: $(head -c 300 "$ERR")"
  fi
  plot $k /dev/null
  if [ "$RC" -eq 1 ] && grep -qF "/dev/null: is a device" "$ERR" && [ -c /dev/null ]; then ok; else
    bad "$k --plot /dev/null: exit $RC: $(head -c 300 "$ERR")"
  fi
  echo keep >"$P/$k-target"
  ln -s "$P/$k-target" "$P/$k-link.png"
  plot $k "$P/$k-link.png"
  if [ "$RC" -eq 1 ] && grep -qF "is a symbolic link" "$ERR" && [ -L "$P/$k-link.png" ] &&
    [ "$(cat "$P/$k-target")" = keep ]; then ok; else
    bad "$k --plot symlink: exit $RC: $(head -c 300 "$ERR")"
  fi
  # The derived .dat/.csv and .gp are held to the same rule.
  case $k in solve) side=csv ;; *) side=dat ;; esac
  mkfifo "$P/$k-side.$side"
  plot $k "$P/$k-side.png"
  if [ "$RC" -eq 1 ] && grep -qF "$k-side.$side: is a FIFO" "$ERR"; then ok; else
    bad "$k --plot with a FIFO at the .$side: exit $RC: $(head -c 300 "$ERR")"
  fi

  # item 5: gnuplot writes to its standard output, a file smv made with
  # mkstemp beside the PNG; it is given no file name to open.
  rm -f "$T_TMP/gnuplot.args" "$T_TMP/gnuplot.stdout"
  plot $k "$P/$k.png"
  args=$(cat "$T_TMP/gnuplot.args" 2>/dev/null)
  tmp=$(cat "$T_TMP/gnuplot.stdout" 2>/dev/null)
  if [ "$RC" -eq 0 ] && [ "$(head -c 4 "$P/$k.png" | tail -c 3)" = PNG ]; then ok; else
    bad "$k --plot: exit $RC, no PNG: $(head -c 300 "$ERR")"
  fi
  case "$args" in "-e smv_stdout=1 "*) ok ;; *) bad "$k: gnuplot called with '$args'" ;; esac
  case "$tmp" in
  "$P/$k.png.tmp-"??????) if [ ! -e "$tmp" ]; then ok; else bad "$k: $tmp left behind"; fi ;;
  /proc/*) skip "no /proc: where gnuplot writes" ;;
  *) bad "$k: gnuplot's standard output was '$tmp'" ;;
  esac
  # A symbolic link planted at the old predictable name is never followed.
  echo victim >"$P/victim"
  ln -s "$P/victim" "$P/$k.png.tmp-$$"
  plot $k "$P/$k.png"
  if [ "$RC" -eq 0 ] && [ "$(cat "$P/victim")" = victim ]; then ok; else
    bad "$k: a planted symlink: exit $RC, victim '$(head -c 20 "$P/victim")'"
  fi
  rm -f "$P/$k.png.tmp-$$"
  # item 7: replacing an existing PNG keeps its mode (and its owner and
  # group, as root); another hard link keeps the old contents (documented).
  echo old >"$P/$k-keep.png"
  chmod 640 "$P/$k-keep.png"
  ln "$P/$k-keep.png" "$P/$k-keep.link"
  if [ "$(id -u)" = 0 ]; then chown 12345:54321 "$P/$k-keep.png"; fi
  plot $k "$P/$k-keep.png"
  if [ "$RC" -eq 0 ] && [ "$(stat -c %a "$P/$k-keep.png")" = 640 ] &&
    [ "$(cat "$P/$k-keep.link")" = old ]; then ok; else
    bad "$k: replaced PNG: exit $RC, mode $(stat -c %a "$P/$k-keep.png")"
  fi
  if [ "$(id -u)" = 0 ]; then
    if [ "$(stat -c %u:%g "$P/$k-keep.png")" = 12345:54321 ]; then ok; else
      bad "$k: owner not kept: $(stat -c %u:%g "$P/$k-keep.png")"
    fi
  fi
  # A new PNG gets 0666 less the umask, as any file we create.
  (umask 027 && PATH="$FAKE:$PATH" "$SMV" occupancy --cc 9.0 --regs 32 --sweep \
    --plot "$P/$k-new.png" >/dev/null 2>&1)
  if [ "$(stat -c %a "$P/$k-new.png" 2>/dev/null)" = 640 ]; then ok; else
    bad "$k: new PNG mode $(stat -c %a "$P/$k-new.png" 2>/dev/null), want 640"
  fi
done

# item 6: no fixed path buffers: a 1,500-byte --plot name is used whole
# (the .csv/.gp/.png land beside it), never truncated onto another name.
long="$P"
for i in 1 2 3 4 5 6; do long="$long/$(printf '%0240d' $i)"; done
mkdir -p "$long"
for k in solve occupancy bench; do
  plot $k "$long/$k.png"
  if [ "$RC" -eq 0 ] && [ -s "$long/$k.png" ] && [ -s "$long/$k.gp" ]; then ok; else
    bad "$k: long --plot name: exit $RC: $(head -c 300 "$ERR")"
  fi
done
# Past the system's limit it is an error naming the file, not a truncation.
toolong="$long"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do toolong="$toolong/$(printf '%0250d' $i)"; done
plot solve "$toolong/x.png"
if [ "$RC" -eq 1 ] && grep -qF "x.png: File name too long" "$ERR"; then ok; else
  bad "too long --plot name: exit $RC: $(head -c 300 "$ERR")"
fi


# ---- item 8: vector files checked at their size line ----------------------
# 56 bytes declaring 2^31 - 1 values: refused at once (it cost 8.4 GB).
printf '%%%%MatrixMarket matrix array real general\n2147483647 1\n1\n' >"$T_TMP/hugeb.mtx"
SMV_MEM_LIMIT=1G expect_err 1 "hugeb.mtx:2: vector has 2147483647 entries, expected 9 (the matrix has 9 rows)" \
  "solve --b declaring 2^31-1 values" "$SMV" solve lap2d:3 --b "$T_TMP/hugeb.mtx"
printf '%%%%MatrixMarket matrix array real general\n4 1\n1\n1\n1\n1\n' >"$T_TMP/b4.mtx"
expect_err 1 "b4.mtx:2: vector has 4 entries, expected 9" "solve --b of the wrong length" \
  "$SMV" solve lap2d:3 --b "$T_TMP/b4.mtx"

# ---- item 9: the memory guard covers the vectors; bad limits are errors ----
printf '%%%%MatrixMarket matrix coordinate real general\n1 2147483647 1\n1 1 2.5\n' >"$T_TMP/wide.mtx"
SMV_MEM_LIMIT=1G expect_err 1 "wide.mtx: x and y of a 1 x 2147483647 matrix needs 17.2 GB of memory" \
  "spmv: x of 2^31-1 columns refused" "$SMV" spmv "$T_TMP/wide.mtx"
SMV_MEM_LIMIT=1G expect_err 1 "x and y of a 1 x 2147483647 matrix needs" \
  "bench: x of 2^31-1 columns refused" "$SMV" bench "$T_TMP/wide.mtx" --runs 3 --warmup 1
printf '%%%%MatrixMarket matrix coordinate real general\n200000000 200000000 1\n1 1 2.5\n' >"$T_TMP/tall.mtx"
SMV_MEM_LIMIT=3G expect_err 1 "the solver's vectors of a 200000000 x 200000000 matrix needs" \
  "solve: x, b and workspace refused" "$SMV" solve "$T_TMP/tall.mtx"
for v in inf -1 4GB2 lots; do
  SMV_MEM_LIMIT=$v expect_err 1 "SMV_MEM_LIMIT='$v' is not a size" \
    "SMV_MEM_LIMIT=$v refused" "$SMV" info lap2d:3
done
for v in 4GiB 4G 4GB 4096MiB 0 off; do
  SMV_MEM_LIMIT=$v expect_rc 0 "SMV_MEM_LIMIT=$v accepted" "$SMV" info lap2d:3
done
SMV_MEM_LIMIT=1KiB expect_err 1 "more than the 1.02e-06 GB available" \
  "SMV_MEM_LIMIT=1KiB is 1024 bytes" "$SMV" info lap2d:30

# ---- item 16: conventions -------------------------------------------------
# Not converged has its own exit status (3); x is still written.
expect_err 3 "not converged: stopped after 2 iterations" "solve not converged: exit 3" \
  "$SMV" solve lap2d:30 --backend cpu --maxit 2 -o "$T_TMP/x.mtx"
if [ -s "$T_TMP/x.mtx" ]; then ok; else bad "x not written when not converged"; fi
expect_rc 3 "pagerank not converged: exit 3" "$SMV" pagerank rand:500:4 --pattern --backend cpu --maxit 2
expect_rc 0 "solve converged: exit 0" "$SMV" solve lap2d:10 --backend cpu
expect_err 1 "no-such.mtx" "solve, missing file: still exit 1" "$SMV" solve "$T_TMP/no-such.mtx"
# pagerank on the project's own signed matrices names --pattern.
expect_err 1 "use --pattern to take every stored entry as a link of weight 1" \
  "pagerank on rmat says --pattern" "$SMV" pagerank rmat:6:4 --backend cpu
expect_rc 0 "pagerank rmat with --pattern" "$SMV" pagerank rmat:6:4 --pattern --backend cpu
# On the CPU, bench says that --alg and --tune choose CUDA rungs.
if "$SMV" info lap2d:2 --plan >/dev/null 2>&1; then
  skip "a CUDA device: bench honours --alg"
else
  expect_err 0 "--alg and --tune choose CUDA rungs and are ignored" "bench on the CPU: --alg --tune" \
    "$SMV" bench lap2d:10 --alg vector --tune --runs 3 --warmup 1 --quiet
  expect_err 0 "--alg chooses CUDA rungs and is ignored" "bench --backend cpu --alg" \
    "$SMV" bench lap2d:10 --backend cpu --alg vector --runs 3 --warmup 1 --quiet
  run "$SMV" bench lap2d:10 --backend cpu --runs 3 --warmup 1 --quiet
  if grep -qF "ignored" "$ERR"; then bad "bench note without --alg/--tune"; else ok; fi
  # --backend cuda with no device says so before building the matrix: a
  # 25 GB generator spec would be refused by the memory guard (or take
  # minutes) if it were built first.
  for c in spmv solve bench; do
    SMV_MEM_LIMIT=1G expect_err 1 "no CUDA device" "$c --backend cuda: the device first" \
      "$SMV" $c lap3d:1000 --backend cuda
    if grep -qF "needs" "$ERR"; then bad "$c --backend cuda built the matrix first"; else ok; fi
  done
fi
# solve --b '' is a usage error (exit 2) before any loading, as spmv --x ''.
expect_err 2 "--b needs a file name" "solve --b ''" "$SMV" solve "$T_TMP/no-such.mtx" --b ''
expect_err 2 "--x" "spmv --x ''" "$SMV" spmv "$T_TMP/no-such.mtx" --x ''
# A first line with a CR: "CR line endings" only for text; binary input
# says it is binary (tests/data/bad has the library's cases).
printf '%%%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r' >"$T_TMP/mac.mtx"
expect_err 1 "the file uses CR line endings" "CR-only text file" "$SMV" info "$T_TMP/mac.mtx"
printf '\177ELF\002\001\001\000\000\rmore\n' >"$T_TMP/elf.mtx"
expect_err 1 "binary data (byte 0x7f at offset 0 of the first line), not a Matrix Market text file" \
  "binary file with a CR" "$SMV" info "$T_TMP/elf.mtx"
if grep -qF "CR line endings" "$ERR"; then bad "binary reported as CR line endings"; else ok; fi

# ---- item 14 without MPI: several processes of a launcher are refused ----
# (With MPI, tests/cli/test_dist.sh runs the real thing under mpirun.)
if [ -e "${SMV_BUILD:-build}/libsmv_dist.a" ]; then
  skip "smv built with MPI: tests/cli/test_dist.sh covers mpirun"
else
  OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 expect_err 2 "built without MPI: under mpirun with 2 processes" \
    "no-MPI build under a 2-process launcher" "$SMV" solve lap2d:3
  OMPI_COMM_WORLD_SIZE=1 OMPI_COMM_WORLD_RANK=0 expect_rc 0 "no-MPI build, one process" "$SMV" solve lap2d:3
fi

finish
