#!/bin/bash
# Issue 33 item 1 (bench/replay-h100.md, 2026-11-29; run there with the hybrid at
# PRISM_CUPTI_CHECKPOINT=1, now 2): the collector's own replay with the
# SASS-instrumented metrics split off to CUPTI's kernel replay (the hybrid), against CUPTI's
# replay with the L2 flushed before the first pass (today's --cache-control all) and ncu's
# default --cache-control all. One device call; build here first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/kinds tests/bin/samples tests/bin/fallback
# Usage: bench/hybrid-replay.sh OUTDIR [PARTS]   PARTS: any of "alone fallback diag ncu full
# ncufull" (default all but diag); REPS: the repetitions of part full (default "1 2")
#   alone     the collector alone on kinds (hardware + SASS metrics), hybrid and CUPTI's replay
#   fallback  the collector (hybrid) on tests/bin/fallback: managed memory and cooperative
#             launches go to CUPTI's replay, said once each; the program's sums stay right
#   diag      the collector alone (hybrid, traced) with every metric of the full plan
#   ncu       ncu --cache-control all --metrics (the same hardware metrics) on kinds
#   full      prism profile --cache-control all of kinds, stream, compute, PRISM_CUPTI_CHECKPOINT
#             0 (CUPTI's replay) and 2 (hybrid), twice each, wall times; compare_replay.py
#   ncufull   ncu --set full --cache-control all on kinds; ncu_compare.py for both modes
cd "$(dirname "$0")/.." || exit 1
R=$PWD
O=${1:?usage: hybrid-replay.sh OUTDIR [PARTS]}
PARTS=${2:-alone fallback ncu full ncufull}
mkdir -p "$O"
O=$(cd "$O" && pwd)
export PRISM_DATA_DIR=$R PRISM_CACHE_DIR=$O/passcache
cd "$O" || exit 1
nvidia-smi --query-gpu=index,name,clocks.max.sm,driver_version --format=csv >gpu.txt 2>&1
ncu --version >>gpu.txt 2>&1
step() { # name timeout command...
        local n=$1 t=$2
        shift 2
        local t0 rc
        t0=$(date +%s.%N)
        timeout "$t" "$@" >"$n.out" 2>"$n.err"
        rc=$?
        echo "$n rc=$rc wall=$(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")" | tee -a steps.txt
}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
HW=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors_lookup_miss.sum
SASS=smsp__sass_inst_executed_op_global_st.sum,smsp__sass_data_bytes_mem_global_op_ld.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
KINDS=("$R/tests/bin/kinds" all -l 2)
collector() { # name PRISM_CUPTI_CHECKPOINT(0: CUPTI's replay, 2: the hybrid) command...
        local n=$1 m=$2
        shift 2
        step "$n" 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" PRISM_CUPTI_METRICS="$HW,$SASS" \
                PRISM_CUPTI_INSTRUMENTED="$SASS" PRISM_CUPTI_OUT="$O/$n.csv" PRISM_CUPTI_REPLAY=kernel \
                PRISM_CUPTI_FLUSH=1 PRISM_CUPTI_CHECKPOINT="$m" PRISM_CUPTI_TIMING=1 "$@"
}
if has alone; then
        "${KINDS[@]}" >/dev/null 2>&1 # warm-up
        collector alone-cupti 0 "${KINDS[@]}"
        collector alone-hybrid 2 "${KINDS[@]}"
        collector alone-cupti2 0 "${KINDS[@]}"
        collector alone-hybrid2 2 "${KINDS[@]}"
fi
if has fallback; then
        collector fb-cupti 0 "$R/tests/bin/fallback"
        collector fb-hybrid 2 "$R/tests/bin/fallback"
fi
if has diag; then
        # the collector alone with every metric of the full plan, traced (where a crash is)
        "$R/prism" profile --dry-run --arch sm_90 --replay application --force -n x -p plan-app -- /bin/true \
                >plan-app.txt 2>&1
        ALL=$(awk '/^pass [0-9]+:/ { for (i = 3; i <= NF; i++) if (!seen[$i]++) printf "%s%s", (c++ ? "," : ""), $i }' plan-app.txt)
        INST=$(echo "$ALL" | tr , '\n' | grep -E '^(smsp|sm)__sass_' | paste -sd, -)
        step diag-hybrid 90 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" PRISM_CUPTI_METRICS="$ALL" \
                PRISM_CUPTI_INSTRUMENTED="$INST" PRISM_CUPTI_OUT="$O/diag-hybrid.csv" PRISM_CUPTI_REPLAY=kernel \
                PRISM_CUPTI_FLUSH=1 PRISM_CUPTI_CHECKPOINT=2 PRISM_CUPTI_TIMING=1 PRISM_CUPTI_DEBUG=1 "${KINDS[@]}"
        tail -c 3000 diag-hybrid.err >diag-hybrid.tail
        grep -v '^prism-cupti: \(launch\|range\)' diag-hybrid.err | head -40 >diag-hybrid.head
        rm -f diag-hybrid.err
fi
if has ncu; then
        step ncu-kinds 200 ncu --csv --print-units base --clock-control none --cache-control all \
                --metrics "$HW,$SASS" "${KINDS[@]}"
fi
if has full; then
        step plan 120 "$R/prism" profile --dry-run --arch sm_90 --force -n x -p plan-wl -- /bin/true
        for rep in ${REPS:-1 2}; do
                for s in kinds stream compute; do
                        case $s in kinds) p=("${KINDS[@]}") ;; *) p=("$R/tests/bin/samples" "$s") ;; esac
                        for m in 0 2; do
                                # a hybrid run that crashed (application replay instead): no more
                                [ "$m" = 2 ] && grep -qs 'kernel replay failed' full-*-m2-*.err && continue
                                step "full-$s-m$m-r$rep" 90 env PRISM_CUPTI_CHECKPOINT=$m PRISM_CUPTI_TIMING=1 \
                                        "$R/prism" profile -n "$s" -p "$O/wl-$s-m$m-r$rep" --no-roof --force \
                                        --cache-control all -- "${p[@]}"
                        done
                done
        done
        for s in kinds stream compute; do
                python3 "$R/tests/gpu/compare_replay.py" "$O/wl-$s-m0-r1/pmc_perf.csv" \
                        "$O/wl-$s-m2-r1/pmc_perf.csv" --label "$s cupti vs hybrid" >"cmp-$s.txt" 2>&1
                python3 "$R/tests/gpu/compare_replay.py" "$O/wl-$s-m0-r1/pmc_perf.csv" \
                        "$O/wl-$s-m0-r2/pmc_perf.csv" --label "$s cupti vs cupti" >"cmp-$s-floor.txt" 2>&1
                tail -n 1 "cmp-$s.txt" "cmp-$s-floor.txt" >>steps.txt
        done
fi
if has ncufull; then
        step ncufull-kinds 200 ncu --set full --clock-control none --cache-control all -f -o ncufull-kinds "${KINDS[@]}"
        ncu -i ncufull-kinds.ncu-rep --csv --print-units base --page details >ncufull-kinds-details.csv 2>&1
        rm -f ncufull-kinds.ncu-rep
        for m in 0 2; do
                python3 "$R/tests/gpu/ncu_compare.py" "$R/prism" ncufull-kinds-details.csv "$O/wl-kinds-m$m-r1" \
                        $(seq 0 13) >"ncucmp-kinds-m$m.txt" 2>&1
                tail -n 2 "ncucmp-kinds-m$m.txt" >>steps.txt
        done
fi
tar czf "${OUT_TAR:-$O/hybrid.tgz}" --exclude='wl-*/.prism-passes' --exclude='*.db' --exclude=passcache \
        -C "$O" . 2>/dev/null
ls -la "${OUT_TAR:-$O/hybrid.tgz}"
