#!/bin/bash
# GPU helper (opt-in; needs an NVIDIA GPU with CUPTI, and ncu): record the known-limiter
# kernels (tests/gpu/limiters.cu) with prism, and the same program with `ncu --set full`
# (its rules and estimated speedups), for the findings ground truth (bench/findings-h100.md,
# tests/data/limiters). Build first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/limiters
# then: tests/gpu/run-findings-check.sh OUTDIR [PROGRAM]
# PROGRAM: limiters (default), variants (tests/gpu/variants.cu: the same classes written
# otherwise; build tests/bin/variants) or holdout (tests/gpu/holdout.cu: held-out kernels;
# build tests/bin/holdout). OUTDIR/work gets workloads/PROGRAM/<model>/, prism's
# findings, ncu's details (text and CSV), steps.txt and a tar of it all (PROGRAM.tgz).
. "$(dirname "$0")/ncu-lib.sh" "${1:-}"
NAME=${2:-limiters}
PROG=("$ROOT/tests/bin/$NAME" all)
# without libcublas on this machine: the other kernels (limiters-nocublas)
if [ "$NAME" = limiters ] && ldd "${PROG[0]}" 2>/dev/null | grep -q 'not found'; then
        echo "no libcublas: limiters-nocublas" | tee -a steps.txt
        PROG=("$ROOT/tests/bin/limiters-nocublas" all)
fi
rm -rf workloads/$NAME
step "prism-$NAME" 150 "$PRISM" profile -n "$NAME" --backend cupti --no-roof --force -- "${PROG[@]}"
d=$(dirname "$(ls workloads/$NAME/*/pmc_perf.csv 2>/dev/null | head -1)")
if [ ! -d "$d" ]; then
        # the SASS byte counters are the newest metrics: without them, the rest
        echo "prism failed: again without the sass-bytes metrics" | tee -a steps.txt
        alt=$W/alt
        rm -rf "$alt" && mkdir -p "$alt"
        cp -r "$ROOT/metrics" "$ROOT/panels" "$ROOT/rules" "$alt/"
        [ -d "$ROOT/roofline" ] && cp -r "$ROOT/roofline" "$alt/"
        sed -i '/>>> sass-bytes/,/<<< sass-bytes/d' "$alt/metrics/hopper.yaml"
        step "prism-alt-$NAME" 150 env PRISM_DATA_DIR="$alt" "$PRISM" profile -n "$NAME" \
                --backend cupti --no-roof --force -- "${PROG[@]}"
        d=$(dirname "$(ls workloads/$NAME/*/pmc_perf.csv 2>/dev/null | head -1)")
fi
[ -d "$d" ] && step "analyze-$NAME" 60 "$PRISM" analyze -p "$d" -b 0.3 0.4 6.3 7.1
step "ncu-$NAME" 200 ncu --set full --clock-control none --cache-control none -f -o ncu-$NAME "${PROG[@]}"
if [ -f ncu-$NAME.ncu-rep ]; then
        # the rules' text and estimated speedups ("OPT ... Est. Speedup: N%")
        ncu -i ncu-$NAME.ncu-rep --page details --print-details all \
                >ncu-$NAME-details.txt 2>&1 ||
                ncu -i ncu-$NAME.ncu-rep --page details >ncu-$NAME-details.txt 2>&1
        ncu -i ncu-$NAME.ncu-rep --csv --print-units base --page details \
                >ncu-$NAME-details.csv 2>&1
        ncu -i ncu-$NAME.ncu-rep --csv --print-units base --page raw >ncu-$NAME-raw.csv 2>&1
fi
cd "$W" && tar czf "$NAME.tgz" --exclude='*.ncu-rep' work && ls -la "$NAME.tgz"
