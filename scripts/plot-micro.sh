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
set datafile separator ","
set datafile missing "-"
set key autotitle columnhead
set grid
EOF
}

plot_one() { # name csv gnuplot-body
  name=$1 csv=$2 body=$3
  if [ ! -f "$csv" ]; then
    echo "plot-micro: $csv missing, $name.png skipped" >&2
    return 0
  fi
  { common; echo "set output '$OUTDIR/$name.png'"; echo "$body"; } | gnuplot
  echo "plot-micro: $OUTDIR/$name.png"
  made=$((made + 1))
}

f=$DIR/bank_stride.csv
[ -f "$f" ] && dev=$(device "$f") || dev=
plot_one bank_stride "$f" "
set termoption noenhanced
set title 'Shared-memory bank conflicts: lane reads word lane*stride ($dev)'
set xlabel 'stride (words)'
set ylabel 'SM cycles per warp-wide access'
set xrange [-0.5:32.5]
set xtics 0,2,32
set logscale y 2
set key top left
plot '$f' using 1:3 with linespoints pt 7 lc 1 title 'measured, 4-byte words', \
     '' using 1:2 with points pt 2 ps 2 lc 1 title 'model, 4-byte (max words per bank)', \
     '' using 1:6 with linespoints pt 5 lc 2 title 'measured, 8-byte words', \
     '' using 1:5 with points pt 3 ps 2 lc 2 title 'model, 8-byte'
"

f=$DIR/readonly_distinct.csv
[ -f "$f" ] && dev=$(device "$f") || dev=
plot_one readonly_distinct "$f" "
set termoption noenhanced
set title 'Distinct addresses per warp (lines 128 B apart): constant, global, __ldg ($dev)'
set xlabel 'distinct addresses per warp'
set ylabel 'ns per warp-wide load (SM average)'
set logscale xy 2
set xrange [0.8:40]
set key top left
plot '$f' every ::0::5 using 2:4 with linespoints pt 7 lc 1 title 'constant, 32 KiB set', \
     '' every ::0::5 using 2:5 with linespoints pt 5 lc 2 title 'global, 32 KiB', \
     '' every ::0::5 using 2:6 with linespoints pt 9 lc 3 title '__ldg, 32 KiB', \
     '' every ::10::14 using 2:4 with linespoints pt 6 dt 2 lc 1 title 'constant, 2 KiB set', \
     '' every ::10::14 using 2:5 with linespoints pt 4 dt 2 lc 2 title 'global, 2 KiB', \
     '' every ::10::14 using 2:6 with linespoints pt 8 dt 2 lc 3 title '__ldg, 2 KiB'
"

f=$DIR/readonly_workingset.csv
[ -f "$f" ] && dev=$(device "$f") || dev=
plot_one readonly_workingset "$f" "
set termoption noenhanced
set title 'Read bandwidth vs working set, 16-byte loads ($dev)'
set xlabel 'working set (KiB)'
set ylabel 'GB/s'
set logscale xy
set arrow from 256,graph 0 to 256,graph 1 nohead dt 2
set label 'L1 (256 KiB)' at 256,graph 0.95 offset 0.5,0
set arrow from 51200,graph 0 to 51200,graph 1 nohead dt 2
set label 'L2 (50 MiB)' at 51200,graph 0.95 offset 0.5,0
set key bottom left
plot '$f' using 1:3 with linespoints pt 7, '' using 1:4 with linespoints pt 5, \
     '' using 1:5 with linespoints pt 9, '' using 1:6 with linespoints pt 11
"

f=$DIR/ilp_sweep.csv
s=$DIR/ilp_seed.csv
[ -f "$f" ] && dev=$(device "$f") || dev=
plot_one ilp_bandwidth "$f" "
set title \"Seed 004's copy kernel: bandwidth vs N ($dev against the seed's GT 920M)\"
set xlabel 'N (ints copied)'
set ylabel 'GB/s (2*4*N / time, each launch synchronised)'
set logscale xy
set format x '2^{%L}'
set xtics 4
set logscale x 2
set key top left
plot '$f' using 1:2 with linespoints pt 7, '' using 1:3 with linespoints pt 5, \
     '' using 1:4 with linespoints pt 9, '' using 1:5 with linespoints pt 11, \
     '' using 1:6 with linespoints pt 13, \
     '' using 1:7 with lines dt 2 lw 2 title 'cudaMemcpy D2D (this GPU)', \
     '$s' using 1:(\$2==1?\$4:1/0) with points pt 6 ps 1.5 lc rgb 'black' title 'seed, GT 920M, ILP 1', \
     14.4 with lines dt 3 lc rgb 'black' title 'GT 920M peak 14.4 GB/s'
"

f=$DIR/atomics_contention.csv
[ -f "$f" ] && dev=$(device "$f") || dev=
plot_one atomics_contention "$f" "
set termoption noenhanced
set title 'atomicAdd by contention, full grid ($dev)'
set ylabel 'billions of logical adds per second'
set logscale y
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key top left
plot for [i=2:5] '$f' using i:xtic(1)
"

echo "plot-micro: $made plots in $OUTDIR"
