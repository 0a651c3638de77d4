#!/bin/bash
# The L2 state a profiled kernel starts from, measured (bench/nvidia-metrics.md, "Where the
# kernel-replay difference comes from"): the triad (tests/bin/samples stream) and the copy
# (tests/bin/kinds copy -l 3) under the collector alone (no prism profile):
#   plain    no counters (activity timestamps)
#   m1, m5   one pass of 1 or 5 metrics, no flush
#   m5flush  one pass, the L2 flushed first (PRISM_CUPTI_FLUSH, prism's --cache-control all)
#   m5kr     CUPTI kernel replay over several passes, flushed before the first only
# and ncu with --cache-control none and all, twice each, every tool at the GPU's own clocks.
# Needs an NVIDIA GPU, ncu and `make STATIC_LIBS=1 libprism-cupti.so tests/bin/kinds
# tests/bin/samples`. Usage: bench/cupti-flush-probe.sh OUTDIR   (one CSV per setup)
cd "$(dirname "$0")/.." || exit 1
R=$PWD
O=${1:?usage: cupti-flush-probe.sh OUTDIR}
mkdir -p "$O"
run_p() { # name metrics flush replay program...
        local n=$1 m=$2 f=$3 r=$4
        shift 4
        env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" PRISM_CUPTI_METRICS="$m" \
                PRISM_CUPTI_OUT="$O/$n.csv" PRISM_CUPTI_FLUSH="$f" ${r:+PRISM_CUPTI_REPLAY=$r} \
                "$@" >/dev/null 2>"$O/$n.err"
}
M1=gpu__time_duration.sum
M5=gpu__time_duration.sum,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,gpc__cycles_elapsed.avg.per_second
for it in 1 2; do
        for p in "stream:tests/bin/samples stream" "copy:tests/bin/kinds copy -l 3"; do
                n=${p%%:*}
                read -r -a a <<<"${p#*:}"
                run_p "$n-plain-$it" none 0 "" "${a[@]}"
                run_p "$n-m1-$it" "$M1" 0 "" "${a[@]}"
                run_p "$n-m5-$it" "$M5" 0 "" "${a[@]}"
                run_p "$n-m5flush-$it" "$M5" 1 "" "${a[@]}"
                run_p "$n-m5kr-$it" "$M5,sm__throughput.avg.pct_of_peak_sustained_elapsed" 1 kernel "${a[@]}"
                for c in none all; do
                        ncu --csv --print-units base --clock-control none --cache-control "$c" \
                                --metrics "$M5" "${a[@]}" >"$O/$n-ncu-$c-$it.csv" 2>/dev/null
                done
        done
done
