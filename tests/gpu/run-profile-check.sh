#!/bin/bash
# GPU test (opt-in; needs an NVIDIA GPU with CUPTI, python3, optionally ncu): profile the
# sample programs (tests/gpu/samples.cu) end to end with the real CLI (plan, one run per
# pass, merge, write), analyze the workloads, and check bytes moved and instructions executed
# against what the kernels must do (tests/gpu/check_profile.py). Build first, on any machine
# with the CUDA toolkit:
#   make STATIC_LIBS=1 prism && make libprism-cupti.so tests/bin/samples
# then: tests/gpu/run-profile-check.sh [WORKDIR]
# WORKDIR receives workloads/{stream,compute}/<model>/ (the recorded samples), the logs, and
# ncu-*.csv (ncu on the same programs, unless NCU=0). ROOF=1 also runs `prism roofline
# --quick` into each workload. Prints PASS/FAIL/INFO lines, then "N failures"; exit status 1
# if any FAIL.
. "$(dirname "$0")/check-lib.sh" prism-profile "${1:-}"
SAMPLES=$ROOT/tests/bin/samples

for f in "$PRISM" "$ROOT/libprism-cupti.so" "$SAMPLES"; do
        [ -e "$f" ] || { echo "FAIL: missing $f (build it first)"; echo "1 failures"; exit 1; }
done
export PRISM_DATA_DIR=$ROOT
nvidia-smi --query-gpu=name,compute_cap,clocks.max.sm,clocks.max.mem,driver_version \
        --format=csv,noheader | sed 's/^/INFO: device: /'

cd "$W" || exit 1
for s in stream compute; do
        rm -rf "workloads/$s"
        "$PRISM" profile -n "$s" --dry-run --backend cupti >"$s.plan" 2>"$s.plan.err" ||
                bad "$s: dry run: $(tail -1 "$s.plan.err")"
        t0=$(date +%s.%N)
        "$PRISM" profile -n "$s" --backend cupti --no-roof --force -- "$SAMPLES" "$s" \
                >"$s.out" 2>"$s.log"
        rc=$?
        t1=$(date +%s.%N)
        planned=$(grep -c '^pass [0-9]*:' "$s.plan")
        # the summary "wrote DIR: N dispatches, P passes (...) in R runs (MODE replay)"
        runs=$(grep -o 'in [0-9]* runs\?' "$s.out" | grep -o '[0-9]*')
        mode=$(grep -o '([a-z]* replay' "$s.out" | tr -d '(' | cut -d' ' -f1)
        wall=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }")
        echo "INFO: $s: $planned passes planned, $runs runs of the program, wall ${wall} s (rc=$rc)"
        grep -vE '^pass [0-9]+( \(|/)' "$s.log" | head -5 | sed "s/^/INFO: $s: /"
        [ "$rc" -eq 0 ] || { bad "$s: prism profile exited $rc"; continue; }
        want=$planned
        [ "$mode" = kernel ] && want=1
        # the PC-sampling run after the counter runs (issue 35; --no-pc-sampling skips it):
        # its summary line on stdout, or its failure on stderr
        want=$((want + $(grep -c '^PC sampling: ' "$s.out") + $(grep -c 'PC sampling failed' "$s.log")))
        [ "${runs:-0}" -eq "$want" ] || bad "$s: $planned passes planned, $mode replay, but ${runs:-?} runs made"
        dir=$(dirname "$(ls workloads/$s/*/pmc_perf.csv | head -1)")
        "$PRISM" analyze -p "$dir" >"$s.analyze.txt" 2>"$s.analyze.err" ||
                bad "$s: prism analyze failed: $(tail -1 "$s.analyze.err")"
        if [ "${ROOF:-0}" = 1 ]; then
                "$PRISM" roofline --quick -o "$dir" >"$s.roof.log" 2>&1 ||
                        echo "INFO: $s: no roofline ($(tail -1 "$s.roof.log"))"
        fi
        if [ "${NCU:-1}" = 1 ] && command -v ncu >/dev/null; then
                ncu --csv --print-units base --clock-control none --cache-control none \
                        --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_bytes.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__ops_path_tensor_src_fp16.sum,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed.avg.per_cycle_active,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum,lts__t_bytes.sum.peak_sustained,l1tex__t_bytes.sum.peak_sustained,dram__bytes.sum.peak_sustained,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.peak_sustained,sm__cycles_elapsed.avg.per_second,lts__cycles_elapsed.avg.per_second,dram__cycles_elapsed.avg.per_second \
                        "$SAMPLES" "$s" >"ncu-$s.csv" 2>"ncu-$s.err" ||
                        echo "INFO: $s: ncu failed: $(tail -1 "ncu-$s.err")"
        fi
done
python3 "$ROOT/tests/gpu/check_profile.py" "$W" "$PRISM"
rc=$?
echo "$((fails + rc)) shell-level failures"
[ "$fails" -eq 0 ] && [ "$rc" -eq 0 ]
