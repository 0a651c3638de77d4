#!/bin/bash
# Issue 33, second sitting (bench/cost-h200-2.md): one device call with ncu. Build here first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/kinds tests/bin/samples tests/bin/host_phase
# Usage: bench/rows-cost.sh OUTDIR [PARTS]   PARTS: any of "ncu passes prism" (default all)
#   ncu     ncu --set full (clock base, cache all) on kinds, samples stream and compute (-c 4),
#           REPS times (default 2): details and raw pages, for ncu_compare.py / ncu_noise.py
#   passes  the collector alone (kernel replay, PRISM_CUPTI_TIMING=2: each launch call's
#           time) with the metrics of the first K groups of the application-replay plan,
#           K in $KS: what one more hardware pass costs per kernel
#   prism   prism profile (kernel replay, clock base, cache all) of the same three programs,
#           REPS times (rep-N/prism-SAMPLE)
#   cost    wall times: plain run (twice), prism full profile with an empty pass-count cache
#           then again, ncu --set full of host_phase (kinds/stream/compute: part ncu)
#   own     the collector's own replay (PRISM_CUPTI_CHECKPOINT=1) against CUPTI's on kinds
#           with SASS and hardware metrics (PRISM_CUPTI_DEBUG=1): are SASS values 0?
#   rec     a small recording for tests/data: samples compute, panels 6 and 7
cd "$(dirname "$0")/.." || exit 1
R=$PWD
O=${1:?usage: rows-cost.sh OUTDIR [PARTS]}
PARTS=${2:-ncu passes prism cost own rec}
REPS=${REPS:-2}
KS=${KS:-0 1 2 4 8 16 30}
mkdir -p "$O/work"
O=$(cd "$O" && pwd)
export PRISM_DATA_DIR=$R PRISM_CACHE_DIR=$O/passcache
cd "$O/work" || exit 1
nvidia-smi --query-gpu=index,name,uuid,clocks.max.sm,driver_version --format=csv >gpus.txt 2>&1
ncu --version >>gpus.txt 2>&1
. "$R/bench/device-steps.sh"
prog() {
        case $1 in
        kinds) echo "$R/tests/bin/kinds all -l 2" ;;
        host) echo "$R/tests/bin/host_phase -t 3" ;;
        *) echo "$R/tests/bin/samples $1" ;;
        esac
}
if has ncu; then
        for r in $(seq "$REPS"); do
                for s in kinds stream compute; do
                        read -r -a p <<<"$(prog "$s")"
                        c=()
                        [ "$s" = kinds ] || c=(-c 4)
                        step "rep-$r/ncu-$s" 150 ncu --set full --clock-control base --cache-control all \
                                ${c[@]+"${c[@]}"} -f -o "rep-$r/ncu-$s" "${p[@]}"
                        for page in details raw; do
                                ncu -i "rep-$r/ncu-$s.ncu-rep" --csv --print-units base --page $page \
                                        >"rep-$r/ncu-$s-$page.csv" 2>&1
                        done
                        rm -f "rep-$r/ncu-$s.ncu-rep"
                done
        done
fi
if has passes; then
        "$R/prism" profile --dry-run --arch sm_90 --replay application --force -n x -p plan-wl -- /bin/true >plan.txt 2>&1
        for s in kinds compute; do
                read -r -a p <<<"$(prog "$s")"
                step "passes/plain-$s" 60 "${p[@]}"
                for k in $KS; do
                        ms=$(awk -v k="$k" '/^pass [0-9]+:/ { n = $2 + 0; if (n <= k) for (i = 3; i <= NF; i++) if (!seen[$i]++) printf "%s%s", (c++ ? "," : ""), $i }' plan.txt)
                        step "passes/$s-k$k" 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" \
                                PRISM_CUPTI_METRICS="$ms" PRISM_CUPTI_OUT="$O/work/passes/$s-k$k.csv" \
                                PRISM_CUPTI_REPLAY=kernel PRISM_CUPTI_TIMING=2 "${p[@]}"
                done
        done
fi
if has prism; then
        for r in $(seq "$REPS"); do
                for s in kinds stream compute; do
                        read -r -a p <<<"$(prog "$s")"
                        step "rep-$r/prism-$s" 150 env PRISM_CUPTI_TIMING=1 "$R/prism" profile -n "$s" \
                                -p "rep-$r/prism-$s" --backend cupti --no-roof --force --clock-control base \
                                --cache-control all -- "${p[@]}"
                done
        done
fi
if has cost; then
        for s in kinds stream compute host; do
                read -r -a p <<<"$(prog "$s")"
                step "cost/plain0-$s" 60 "${p[@]}"
                step "cost/plain-$s" 60 "${p[@]}"
                for c in cold warm; do
                        [ $c = cold ] && rm -rf "$O/passcache-cost"
                        step "cost/prism-$c-$s" 150 env PRISM_CACHE_DIR="$O/passcache-cost" PRISM_CUPTI_TIMING=1 \
                                "$R/prism" profile -n "$c-$s" -p "cost/$c-$s" --backend cupti --no-roof --force \
                                --clock-control base --cache-control none -- "${p[@]}"
                done
        done
        read -r -a p <<<"$(prog host)"
        step cost/ncu-host 150 ncu --set full --clock-control base --cache-control all -f -o cost/ncu-host "${p[@]}"
        rm -f cost/ncu-host.ncu-rep
fi
if has own; then
        read -r -a p <<<"$(prog kinds)"
        MS=gpu__time_duration.sum,smsp__inst_executed.sum,dram__bytes_read.sum,smsp__sass_inst_executed_op_global_st.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
        for m in own:1 cupti:0; do
                step "own/${m%%:*}" 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" PRISM_CUPTI_METRICS="$MS" \
                        PRISM_CUPTI_OUT="$O/work/own/${m%%:*}.csv" PRISM_CUPTI_REPLAY=kernel PRISM_CUPTI_FLUSH=1 \
                        PRISM_CUPTI_CHECKPOINT=${m#*:} PRISM_CUPTI_DEBUG=1 PRISM_CUPTI_TIMING=2 "${p[@]}"
        done
fi
if has rec; then
        step rec/compute 120 "$R/prism" profile -n launch -p rec/launch-compute --backend cupti --no-roof --force \
                -b 6 7 -- "$R/tests/bin/samples" compute
fi
cd "$O" && tar czf "${OUT_TAR:-$O/rows-cost.tgz}" --exclude='*.ncu-rep' work steps.txt 2>/dev/null; ls -la "${OUT_TAR:-$O/rows-cost.tgz}"
