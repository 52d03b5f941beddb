#!/bin/sh
# scripts/plot-micro.sh — draw the micro benchmarks' curves from their CSV
# files with gnuplot (installed on the development machine, not on the GPU
# machine: the GPU run writes CSV, the plots are made here).
#
#   scripts/plot-micro.sh DIR [OUTDIR]
#
# DIR holds the CSVs of `smv micro all --csv DIR` (NAME_TABLE.csv); the
# PNGs go to OUTDIR (default DIR):
#   bank_stride.png          cycles per shared-memory access vs stride
#   readonly_distinct.png    ns per warp-wide load vs distinct addresses
#   readonly_workingset.png  read bandwidth vs working set, L1 to DRAM
#   ilp_bandwidth.png        the seed's copy kernel: GB/s vs N per ILP
#   atomics_contention.png   atomicAdd throughput by contention and type
# A plot whose CSV is missing is skipped with a note; exit 1 if gnuplot is
# missing or fails.
set -eu
DIR=${1:?usage: scripts/plot-micro.sh DIR [OUTDIR]}
OUTDIR=${2:-$DIR}
command -v gnuplot >/dev/null 2>&1 || {
  echo "plot-micro: gnuplot not found" >&2
  exit 1
}
mkdir -p "$OUTDIR"
made=0

# device line from a CSV's "# device:" comment, for the titles
device() { sed -n 's/^# device: \([^(]*\) (.*/\1/p' "$1" | head -n 1; }

common() {
  cat <<EOF
set terminal pngcairo size 900,560 font ",10"
set termoption noenhanced
set datafile separator ","
set datafile missing "-"
set key autotitle columnhead
set grid
EOF
}

# plot_one NAME CSV TITLE XLABEL YLABEL: $OUTDIR/NAME.png from $DIR/CSV, by
# the common settings, the title (its %s: the CSV's device) and labels,
# then the gnuplot commands on stdin, which see the strings f (the CSV's
# path) and dir ($DIR). A missing CSV: a note, no plot.
plot_one() {
  name=$1 csv=$DIR/$2
  if [ ! -f "$csv" ]; then
    echo "plot-micro: $csv missing, $name.png skipped" >&2
    return 0
  fi
  title="${3%%%s*}$(device "$csv")${3#*%s}"
  {
    common
    echo "set output '$OUTDIR/$name.png'"
    echo "f = '$csv'"
    echo "dir = '$DIR'"
    echo "set title \"$title\""
    echo "set xlabel '$4'"
    echo "set ylabel '$5'"
    cat
  } | gnuplot
  echo "plot-micro: $OUTDIR/$name.png"
  made=$((made + 1))
}

plot_one bank_stride bank_stride.csv \
  'Shared-memory bank conflicts: lane reads word lane*stride (%s)' \
  'stride (words)' 'SM cycles per warp-wide access' <<'EOF'
set xrange [-0.5:32.5]
set xtics 0,2,32
set logscale y 2
set key top left
plot f using 1:3 with linespoints pt 7 lc 1 title 'measured, 4-byte words', \
     '' using 1:2 with points pt 2 ps 2 lc 1 title 'model, 4-byte (max words per bank)', \
     '' using 1:6 with linespoints pt 5 lc 2 title 'measured, 8-byte words', \
     '' using 1:5 with points pt 3 ps 2 lc 2 title 'model, 8-byte'
EOF

plot_one readonly_distinct readonly_distinct.csv \
  'Distinct addresses per warp (lines 128 B apart): constant, global, __ldg (%s)' \
  'distinct addresses per warp' 'ns per warp-wide load (SM average)' <<'EOF'
set logscale xy 2
set xrange [0.8:40]
set key top left
plot f every ::0::5 using 2:4 with linespoints pt 7 lc 1 title 'constant, 32 KiB set', \
     '' every ::0::5 using 2:5 with linespoints pt 5 lc 2 title 'global, 32 KiB', \
     '' every ::0::5 using 2:6 with linespoints pt 9 lc 3 title '__ldg, 32 KiB', \
     '' every ::10::14 using 2:4 with linespoints pt 6 dt 2 lc 1 title 'constant, 2 KiB set', \
     '' every ::10::14 using 2:5 with linespoints pt 4 dt 2 lc 2 title 'global, 2 KiB', \
     '' every ::10::14 using 2:6 with linespoints pt 8 dt 2 lc 3 title '__ldg, 2 KiB'
EOF

plot_one readonly_workingset readonly_workingset.csv \
  'Read bandwidth vs working set, 16-byte loads (%s)' \
  'working set (KiB)' 'GB/s' <<'EOF'
set logscale xy
set arrow from 256,graph 0 to 256,graph 1 nohead dt 2
set label 'L1 (256 KiB)' at 256,graph 0.95 offset 0.5,0
set arrow from 51200,graph 0 to 51200,graph 1 nohead dt 2
set label 'L2 (50 MiB)' at 51200,graph 0.95 offset 0.5,0
set key bottom left
plot f using 1:3 with linespoints pt 7, '' using 1:4 with linespoints pt 5, \
     '' using 1:5 with linespoints pt 9, '' using 1:6 with linespoints pt 11
EOF

# Enhanced text here, for the 2^N tics.
plot_one ilp_bandwidth ilp_sweep.csv \
  "Seed 004's copy kernel: bandwidth vs N (%s against the seed's GT 920M)" \
  'N (ints copied)' 'GB/s (2*4*N / time, each launch synchronised)' <<'EOF'
set termoption enhanced
set logscale xy
set format x '2^{%L}'
set xtics 4
set logscale x 2
set key top left
plot f using 1:2 with linespoints pt 7, '' using 1:3 with linespoints pt 5, \
     '' using 1:4 with linespoints pt 9, '' using 1:5 with linespoints pt 11, \
     '' using 1:6 with linespoints pt 13, \
     '' using 1:7 with lines dt 2 lw 2 title 'cudaMemcpy D2D (this GPU)', \
     dir.'/ilp_seed.csv' using 1:($2==1?$4:1/0) with points pt 6 ps 1.5 lc rgb 'black' title 'seed, GT 920M, ILP 1', \
     14.4 with lines dt 3 lc rgb 'black' title 'GT 920M peak 14.4 GB/s'
EOF

plot_one atomics_contention atomics_contention.csv \
  'atomicAdd by contention, full grid (%s)' \
  '' 'billions of logical adds per second' <<'EOF'
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
plot for [i=2:5] f using i:xtic(1)
EOF

echo "plot-micro: $made plots in $OUTDIR"
