#!/bin/bash
# GPU check and benchmark of kernel against application replay (issue 14), on an NVIDIA
# GPU with CUPTI (and ncu for the comparison). Build first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/samples tests/bin/kinds
# then: tests/gpu/run-replay-check.sh [WORKDIR]
# For each program (samples stream, samples compute, kinds): the plain run, the collector
# injected with no metric, a full-panel profile by kernel replay and by application
# replay (wall times, runs), ncu --set full; the collector's own time breakdown of one
# application-replay pass (PRISM_CUPTI_TIMING=1); and the raw counters of both modes
# compared dispatch by dispatch (tests/gpu/compare_replay.py). Prints PASS/FAIL/INFO and
# a "TIME" line per measurement; exit 1 on FAIL.
. "$(dirname "$0")/check-lib.sh" prism-replay "${1:-}"
export PRISM_DATA_DIR=$ROOT
cd "$W" || exit 1
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader |
        sed 's/^/INFO: device: /'
progs=("samples stream" "samples compute" "kinds")
for p in "${progs[@]}"; do
        name=${p// /-}
        bin=$ROOT/tests/bin/${p%% *}
        args=${p#* }
        [ "$args" = "$p" ] && args=
        cmd=("$bin" $args)
        "${cmd[@]}" >/dev/null 2>&1 # warm up (module load, clocks)
        t=$(now); "${cmd[@]}" >"$name.plain.out" 2>&1; echo "TIME $name plain $(since "$t")"
        t=$(now); "${cmd[@]}" >/dev/null 2>&1; echo "TIME $name plain2 $(since "$t")"
        t=$(now)
        CUDA_INJECTION64_PATH=$ROOT/libprism-cupti.so PRISM_CUPTI_OUT=$W/$name.inject.csv \
                "${cmd[@]}" >/dev/null 2>&1
        echo "TIME $name inject-no-metrics $(since "$t")"
        for mode in kernel application; do
                rm -rf "$W/$name-$mode"
                t=$(now)
                PRISM_CUPTI_TIMING=1 "$PRISM" profile -p "$W/$name-$mode" --no-roof --force \
                        --replay $mode -- "${cmd[@]}" >"$name.$mode.out" 2>"$name.$mode.err"
                rc=$?
                echo "TIME $name prism-$mode $(since "$t") rc=$rc $(grep -o 'in [0-9]* runs\?' "$name.$mode.out")"
                [ $rc -eq 0 ] || bad "$name $mode: $(tail -2 "$name.$mode.err" | tr '\n' ' ')"
                grep 'timing:' "$name.$mode.err" | head -3 | sed "s/^/INFO: $name $mode: /"
                grep -v 'timing:' "$name.$mode.err" | grep -i 'warn\|replay' | head -3 |
                        sed "s/^/INFO: $name $mode: /"
        done
        if [ -f "$W/$name-kernel/pmc_perf.csv" ] && [ -f "$W/$name-application/pmc_perf.csv" ]; then
                python3 "$ROOT/tests/gpu/compare_replay.py" "$W/$name-application/pmc_perf.csv" \
                        "$W/$name-kernel/pmc_perf.csv" --label "$name kernel vs application" \
                        --min-us "${MIN_US:-0}" || fails=$((fails + 1))
                "$PRISM" analyze -p "$W/$name-kernel" >"$name.analyze.txt" 2>&1 ||
                        bad "$name: analyze of the kernel-replay workload failed"
        fi
        if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
                t=$(now)
                ncu --set full "${cmd[@]}" >"$name.ncu.txt" 2>&1
                echo "TIME $name ncu-full $(since "$t") rc=$?"
        fi
done
echo "$fails failures"
[ "$fails" -eq 0 ]
