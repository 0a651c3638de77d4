#!/bin/bash
# Issue 33's device batch (bench/cost-h200.md): one call on an NVIDIA machine (two GPUs for
# the MPI part) with ncu and Open MPI. Build here first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/kinds tests/bin/samples tests/bin/host_phase
# Usage: bench/cost-nvidia.sh OUTDIR [PARTS]   PARTS: any of "probe mpi cost noise" (default all)
#   probe  the collector alone on kinds: its own replay (memory restored, L2 flushed before
#          every pass) against CUPTI's replay and ncu --cache-control all|none, DRAM/L2 counters
#   mpi    tests/gpu/run-mpi-check.sh (np 1, 2, 4: ranks on the GPUs the binding rule names)
#   cost   wall times: plain run, prism full profile (kernel replay, caches none and all; the
#          first with an empty pass-count cache), ncu --set full; kinds, samples stream and
#          compute, host_phase; kinds also in application replay; the layout of
#          tests/gpu/ncu-repeat.sh (rep-1/MODE-SAMPLE, rep-1/ncu-SAMPLE-details.csv)
#   noise  rep-2 of kinds (prism and ncu) for tests/gpu/ncu_noise.py
# Every step's wall time is a line of OUTDIR/steps.txt; PRISM_CUPTI_TIMING=1 puts the
# collector's phases in each prism step's .err.
cd "$(dirname "$0")/.." || exit 1
R=$PWD
O=${1:?usage: cost-nvidia.sh OUTDIR [PARTS]}
PARTS=${2:-probe mpi cost noise}
mkdir -p "$O/work"
O=$(cd "$O" && pwd)
export PRISM_DATA_DIR=$R PRISM_CACHE_DIR=$O/passcache PRISM_CUPTI_TIMING=1
cd "$O/work" || exit 1
nvidia-smi -L >gpus.txt 2>&1
nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,clocks.max.sm,driver_version --format=csv >>gpus.txt 2>&1
ncu --version >>gpus.txt 2>&1
. "$R/bench/device-steps.sh"
K=("$R/tests/bin/kinds" all -l 2)
M5=gpu__time_duration.sum,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_sector_hit_rate.pct
if has probe; then
        # one hardware pass (M5) and a multi-pass set (M5 + sm__throughput: 9 passes)
        for m in "m5:$M5" "mp:$M5,sm__throughput.avg.pct_of_peak_sustained_elapsed"; do
                n=${m%%:*} ms=${m#*:}
                step "probe/own-$n" 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" \
                        PRISM_CUPTI_METRICS="$ms" PRISM_CUPTI_OUT="$O/work/probe/own-$n.csv" \
                        PRISM_CUPTI_REPLAY=kernel PRISM_CUPTI_FLUSH=1 "${K[@]}"
                step "probe/cupti-$n" 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" \
                        PRISM_CUPTI_METRICS="$ms" PRISM_CUPTI_OUT="$O/work/probe/cupti-$n.csv" \
                        PRISM_CUPTI_REPLAY=kernel PRISM_CUPTI_FLUSH=1 PRISM_CUPTI_CHECKPOINT=0 "${K[@]}"
        done
        step probe/own-m5-again 120 env CUDA_INJECTION64_PATH="$R/libprism-cupti.so" \
                PRISM_CUPTI_METRICS="$M5,sm__throughput.avg.pct_of_peak_sustained_elapsed" \
                PRISM_CUPTI_OUT="$O/work/probe/own-mp2.csv" PRISM_CUPTI_REPLAY=kernel PRISM_CUPTI_FLUSH=1 "${K[@]}"
        for c in all none; do
                step "probe/ncu-$c" 120 ncu --csv --print-units base --clock-control none \
                        --cache-control "$c" --metrics "$M5" "${K[@]}"
        done
fi
if has mpi; then
        step mpi/check 260 env SKIP_APP_REPLAY=1 TMO=90 PRISM_CUPTI_TIMING= "$R/tests/gpu/run-mpi-check.sh" "$O/work/mpi"
fi
prog() {
        case $1 in
        kinds) echo "${K[*]}" ;;
        host) echo "$R/tests/bin/host_phase -t 3" ;;
        *) echo "$R/tests/bin/samples $1" ;;
        esac
}
prism_step() { # name mode cache reps-dir sample
        local n=$1 m=$2 c=$3 d=$4 s=$5
        read -r -a p <<<"$(prog "$s")"
        step "$d/prism-$n-$s" 150 "$R/prism" profile -n "$n-$s" -p "$d/$n-$s" --backend cupti \
                --no-roof --force --replay "$m" --clock-control base --cache-control "$c" -- "${p[@]}"
}
ncu_step() { # dir sample
        local d=$1 s=$2 c=()
        read -r -a p <<<"$(prog "$s")"
        [ "$s" = stream ] || [ "$s" = compute ] && c=(-c 4)
        step "$d/ncu-$s" 150 ncu --set full --clock-control base --cache-control all \
                ${c[@]+"${c[@]}"} -f -o "$d/ncu-$s" "${p[@]}"
        [ -f "$d/ncu-$s.ncu-rep" ] &&
                ncu -i "$d/ncu-$s.ncu-rep" --csv --print-units base --page details >"$d/ncu-$s-details.csv" 2>&1
        rm -f "$d/ncu-$s.ncu-rep"
}
if has cost; then
        for s in kinds stream compute host; do
                read -r -a p <<<"$(prog "$s")"
                step "rep-1/plain0-$s" 60 "${p[@]}"
                step "rep-1/plain-$s" 60 "${p[@]}"
                # the first prism profile of the machine: an empty pass-count cache (cold)
                prism_step knone kernel none rep-1 "$s"
                [ "$s" = stream ] || [ "$s" = compute ] || prism_step knone2 kernel none rep-1 "$s"
                prism_step kernel kernel all rep-1 "$s"
                ncu_step rep-1 "$s"
        done
        prism_step application application all rep-1 kinds
fi
if has noise; then
        prism_step kernel kernel all rep-2 kinds
        ncu_step rep-2 kinds
fi
true
