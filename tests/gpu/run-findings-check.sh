#!/bin/bash
# GPU helper (opt-in; needs an NVIDIA GPU with CUPTI, and ncu): record the known-limiter
# kernels (tests/gpu/limiters.cu) with prism, and the same program with `ncu --set full`
# (its rules and estimated speedups), for the findings ground truth (bench/findings-h100.md,
# tests/data/limiters). Build first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/limiters
# then: tests/gpu/run-findings-check.sh OUTDIR
# OUTDIR/work gets workloads/limiters/<model>/, prism's findings, ncu's details (text and
# CSV), steps.txt and a tar of it all (limiters.tgz).
. "$(dirname "$0")/ncu-lib.sh" "${1:-}"
PROG=("$ROOT/tests/bin/limiters" all)
# without libcublas on this machine: the other kernels (limiters-nocublas)
if ldd "${PROG[0]}" 2>/dev/null | grep -q 'not found'; then
        echo "no libcublas: limiters-nocublas" | tee -a steps.txt
        PROG=("$ROOT/tests/bin/limiters-nocublas" all)
fi
rm -rf workloads/limiters
step prism 150 "$PRISM" profile -n limiters --backend cupti --no-roof --force -- "${PROG[@]}"
d=$(dirname "$(ls workloads/limiters/*/pmc_perf.csv 2>/dev/null | head -1)")
if [ ! -d "$d" ]; then
        # the SASS byte counters are the newest metrics: without them, the rest
        echo "prism failed: again without the sass-bytes metrics" | tee -a steps.txt
        alt=$W/alt
        rm -rf "$alt" && mkdir -p "$alt"
        cp -r "$ROOT/metrics" "$ROOT/panels" "$ROOT/rules" "$alt/"
        [ -d "$ROOT/roofline" ] && cp -r "$ROOT/roofline" "$alt/"
        sed -i '/>>> sass-bytes/,/<<< sass-bytes/d' "$alt/metrics/hopper.yaml"
        step prism-alt 150 env PRISM_DATA_DIR="$alt" "$PRISM" profile -n limiters \
                --backend cupti --no-roof --force -- "${PROG[@]}"
        d=$(dirname "$(ls workloads/limiters/*/pmc_perf.csv 2>/dev/null | head -1)")
fi
[ -d "$d" ] && step analyze 60 "$PRISM" analyze -p "$d" -b 0.3 0.4 6.3 7.1
step ncu 200 ncu --set full --clock-control none --cache-control none -f -o ncu-limiters "${PROG[@]}"
if [ -f ncu-limiters.ncu-rep ]; then
        # the rules' text and estimated speedups ("OPT ... Est. Speedup: N%")
        ncu -i ncu-limiters.ncu-rep --page details --print-details all \
                >ncu-limiters-details.txt 2>&1 ||
                ncu -i ncu-limiters.ncu-rep --page details >ncu-limiters-details.txt 2>&1
        ncu -i ncu-limiters.ncu-rep --csv --print-units base --page details \
                >ncu-limiters-details.csv 2>&1
        ncu -i ncu-limiters.ncu-rep --csv --print-units base --page raw >ncu-limiters-raw.csv 2>&1
fi
cd "$W" && tar czf limiters.tgz --exclude='*.ncu-rep' work && ls -la limiters.tgz
