#!/bin/bash
# GPU helper (opt-in; needs an NVIDIA GPU with CUPTI and ncu): record tests/bin/kinds and the
# samples with prism (every metric of metrics/hopper.yaml), and the same programs with
# `ncu --set full` (details and raw pages) for tests/gpu/ncu_compare.py. Build first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/kinds tests/bin/samples
# then: tests/gpu/ncu-compare.sh OUTDIR   (OUTDIR gets workloads/, ncu-*.csv, logs, a tar)
# CLOCK (none) is both tools' clock control; CACHE (none) is ncu's --cache-control and, when
# "all", prism's too; PRISM_FLAGS adds prism profile options (e.g. --replay application).
. "$(dirname "$0")/ncu-lib.sh" "${1:-}"
CLOCK=${CLOCK:-none}
CACHE=${CACHE:-none}
read -r -a PFLAGS <<<"${PRISM_FLAGS:-}"
[ "$CACHE" = all ] && PFLAGS+=(--cache-control all)
step query 60 ncu --query-metrics --chip gh100
for s in kinds stream compute; do
        case $s in
        kinds) prog=("$ROOT/tests/bin/kinds" all -l 2) ;;
        *) prog=("$ROOT/tests/bin/samples" "$s") ;;
        esac
        rm -rf "workloads/$s"
        step "prism-$s" 150 "$PRISM" profile -n "$s" --backend cupti --no-roof --force ${PFLAGS[@]+"${PFLAGS[@]}"} -- "${prog[@]}"
        d=$(dirname "$(ls workloads/$s/*/pmc_perf.csv 2>/dev/null | head -1)")
        [ -d "$d" ] && step "analyze-$s" 60 "$PRISM" analyze -p "$d"
done
# ncu: the full set (kinds: every kernel; samples: one launch of each kernel)
step ncu-kinds 150 ncu --set full --clock-control "$CLOCK" --cache-control "$CACHE" -f -o ncu-kinds "$ROOT/tests/bin/kinds" all -l 2
step ncu-stream 60 ncu --set full --clock-control "$CLOCK" --cache-control "$CACHE" -c 4 -f -o ncu-stream "$ROOT/tests/bin/samples" stream
step ncu-compute 90 ncu --set full --clock-control "$CLOCK" --cache-control "$CACHE" -c 4 -f -o ncu-compute "$ROOT/tests/bin/samples" compute
for s in kinds stream compute; do
        [ -f "ncu-$s.ncu-rep" ] || continue
        ncu -i "ncu-$s.ncu-rep" --csv --print-units base --page details >"ncu-$s-details.csv" 2>&1
        ncu -i "ncu-$s.ncu-rep" --csv --print-units base --page raw >"ncu-$s-raw.csv" 2>&1
done
step ncu-peaks 90 ncu --csv --print-units base --clock-control "$CLOCK" --cache-control "$CACHE" --metrics \
        breakdown:l1tex__throughput.avg.pct_of_peak_sustained_active,breakdown:lts__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum.peak_sustained,dram__bytes_write.sum.peak_sustained,dram__bytes.sum.peak_sustained,dram__bytes_read.sum.pct_of_peak_sustained_elapsed,dram__bytes_write.sum.pct_of_peak_sustained_elapsed \
        "$ROOT/tests/bin/kinds" copy
cd "$W" && tar czf prism-ncu.tgz --exclude='*.ncu-rep' work && ls -la prism-ncu.tgz
