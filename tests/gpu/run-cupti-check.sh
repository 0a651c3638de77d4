#!/bin/bash
# On-device check of the NVIDIA collector (opt-in; needs an NVIDIA GPU, CUPTI, python3, and
# optionally ncu). Build first, on any machine with the CUDA toolkit:
#   make libprism-cupti.so tests/bin/vec_kernels tests/bin/t-backend-cupti
# then: tests/gpu/run-cupti-check.sh [WORKDIR]
# Prints PASS/FAIL lines (and INFO lines with measured facts); exit status 1 if any FAIL.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LIB=$ROOT/libprism-cupti.so
VK=$ROOT/tests/bin/vec_kernels
TB=$ROOT/tests/bin/t-backend-cupti
CHECK="python3 $ROOT/tests/gpu/check_cupti.py"
W=${1:-$(mktemp -d /tmp/prism-cupti.XXXXXX)}
mkdir -p "$W"
CHIP=${CHIP:-GH100}
M=dram__bytes_read.sum,dram__bytes_write.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__cycles_elapsed.avg,gpu__time_duration.sum,sm__ctas_launched.sum
fails=0
ok() { echo "PASS: $*"; }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
run_check() { $CHECK "$@" || fails=$((fails + 1)); }
inject() { # OUT METRICS [ENV=..]... -- ARGS
        local out=$1 metrics=$2
        shift 2
        local envs=()
        while [ $# -gt 0 ] && [ "$1" != "--" ]; do envs+=("$1"); shift; done
        shift
        env "${envs[@]}" CUDA_INJECTION64_PATH="$LIB" PRISM_CUPTI_METRICS="$metrics" \
                PRISM_CUPTI_OUT="$out" timeout 300 "$VK" "$@"
}

export PRISM_CUPTI_LIB=$LIB
for f in "$LIB" "$VK" "$TB"; do
        [ -x "$f" ] || [ -f "$f" ] || { echo "FAIL: missing $f (build it first)"; exit 1; }
done
echo "== device"
nvidia-smi --query-gpu=name,compute_cap,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader
echo "== backend: available, detect"
[ "$($TB available)" = 1 ] && ok "available() is 1" || bad "available() is not 1"
$TB detect >"$W/sysinfo.csv" && cat "$W/sysinfo.csv" || bad "detect failed"
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
grep -q ",sm_$cc," "$W/sysinfo.csv" && ok "gpu_arch sm_$cc" || bad "gpu_arch is not sm_$cc"

echo "== hardware passes on $CHIP (Profiler Host API)"
for set in dram__bytes_read.sum \
        "$M" \
        "$M,lts__t_sectors.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum" \
        "$M,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,smsp__warps_launched.sum"; do
        n=$(echo "$set" | tr ',' '\n' | wc -l)
        echo "INFO: $n metrics -> $($TB passes "$CHIP" "$set" 2>&1) passes"
done
out=$($TB passes "$CHIP" dram__bytes_read.sum,no__such_metric.sum 2>&1)
echo "$out" | grep -q "unknown metric 'no__such_metric.sum'" && ok "bad metric named: $out" || bad "bad metric: $out"

echo "== direct injection: counters against the kernels' known work"
inject "$W/direct.csv" "$M" PRISM_CUPTI_DEBUG=1 -- -l 5 >"$W/direct.out" 2>"$W/direct.err"
echo "rc=$?"; grep -v "debug: launch\|debug: range" "$W/direct.err" | head -20
grep -m3 "debug: launch\|debug: range" "$W/direct.err" | sed 's/^/INFO: /'
$CHECK show "$W/direct.csv" Dispatch_ID Kernel_Name Grid_Size Workgroup_Size LDS_Per_Workgroup Scratch_Per_Workitem Arch_VGPR Start_Timestamp End_Timestamp dram__bytes_read.sum dram__bytes_write.sum smsp__sass_thread_inst_executed_op_ffma_pred_on.sum sm__cycles_elapsed.avg gpu__time_duration.sum sm__ctas_launched.sum
run_check full "$W/direct.csv" "$W/direct.out"

echo "== a metric set that needs several hardware passes (kernel replay inside one run)"
BIG=$M,smsp__sass_thread_inst_executed_op_fadd_pred_on.sum,smsp__sass_thread_inst_executed_op_fmul_pred_on.sum,smsp__sass_thread_inst_executed_op_dfma_pred_on.sum,smsp__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__inst_executed_pipe_tensor.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed.sum,smsp__warps_launched.sum
echo "INFO: $(echo "$BIG" | tr ',' '\n' | wc -l) metrics, $($TB passes "$CHIP" "$BIG") passes"
inject "$W/multi.csv" "$BIG" -- -l 2 >"$W/multi.out" 2>"$W/multi.err"
echo "rc=$?"; head -5 "$W/multi.err"
$CHECK show "$W/multi.csv" Kernel_Name lts__t_sectors_srcunit_tex_op_read.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum smsp__inst_executed.sum smsp__warps_launched.sum
run_check full "$W/multi.csv" "$W/multi.out"

echo "== timestamps: whole ns on CLOCK_MONOTONIC"
run_check clock "$W/direct.csv" "$(cut -d' ' -f1 /proc/uptime)"

echo "== 4 host threads launching at once (launches stay paired with their ranges)"
inject "$W/threads.csv" "$M" PRISM_CUPTI_MAX_RANGES=32 -- -n 1048576 -l 50 -T 4 >/dev/null 2>"$W/threads.err"
echo "rc=$?"; head -3 "$W/threads.err"
run_check pairs "$W/threads.csv" 253

echo "== batches: 200 launches through a counter data image of 16 ranges"
inject "$W/batch.csv" "$M" PRISM_CUPTI_MAX_RANGES=16 PRISM_CUPTI_DEBUG=1 -- -n 1048576 -l 200 >/dev/null 2>"$W/batch.err"
echo "rc=$?"; grep -c "debug: device.*flush" "$W/batch.err" | sed 's/^/INFO: flushes: /'
grep -v "debug: launch\|debug: range\|flush" "$W/batch.err" | head
run_check batch "$W/batch.csv" 200

echo "== counters read at context teardown (cudaDeviceReset before exit)"
inject "$W/reset.csv" "$M" PRISM_CUPTI_DEBUG=1 -- -n 1048576 -l 3 -r >/dev/null 2>"$W/reset.err"
grep "destroy\|finish\|wrote\|error" "$W/reset.err" | head
run_check batch "$W/reset.csv" 3

echo "== API timestamps (cuptiGetTimestamp around the serialized launch)"
inject "$W/api.csv" "$M" PRISM_CUPTI_TIMESTAMPS=api -- -l 2 >"$W/api.out" 2>&1
run_check full "$W/api.csv" "$W/api.out"

echo "== activity records of kind KERNEL instead of CONCURRENT_KERNEL"
inject "$W/kind.csv" "$M" PRISM_CUPTI_TIMESTAMPS=kernel PRISM_CUPTI_DEBUG=1 -- -n 1048576 -l 2 >/dev/null 2>"$W/kind.err"
grep "activity\|wrote" "$W/kind.err" | head -5

echo "== launch attributes (launch__ metrics, written by the collector) with counters"
inject "$W/launch.csv" "launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic,launch__cluster_size,launch__cluster_max_potential_size,launch__stack_size,launch__no_such_thing,$M" -- -l 0 >/dev/null 2>"$W/launch.err"
grep -q "unknown launch metric 'launch__no_such_thing'" "$W/launch.err" && ok "unknown launch metric reported" || bad "unknown launch metric: $(head -2 "$W/launch.err")"
run_check launch "$W/launch.csv"

echo "== no metrics: launch records only"
inject "$W/none.csv" "" PRISM_CUPTI_DEBUG=1 -- -n 1048576 -l 3 >/dev/null 2>"$W/none.err"
grep "activity\|wrote" "$W/none.err" | head -5
[ "$(wc -l <"$W/none.csv")" = 7 ] && ok "6 rows without metrics" || bad "rows without metrics: $(wc -l <"$W/none.csv")"

echo "== backend run_pass: fork/exec, filters, errors"
mkdir -p "$W/b1" "$W/b2" "$W/b3" "$W/b4" "$W/b5" "$W/b6" "$W/b7"
$TB run "$W/b1" "$M" -o "$W/b1.csv" -- "$VK" -l 3 >/dev/null 2>"$W/b1.err" && ok "run_pass ok" || bad "run_pass: $(cat "$W/b1.err")"
[ "$(wc -l <"$W/b1.csv")" = 7 ] && ok "run_pass gave 6 rows" || bad "run_pass rows: $(wc -l <"$W/b1.csv")"
$TB run "$W/b2" "$M" -k fma_loop -k smem -o "$W/b2.csv" -- "$VK" -n 1048576 -l 3 >/dev/null 2>&1
[ "$(cut -d, -f1 "$W/b2.csv" | tr '\n' ' ')" = "Dispatch_ID 1 2 " ] && ok "kernel filter keeps dispatches 1 2" || bad "kernel filter: $(cut -c1-60 "$W/b2.csv")"
$TB run "$W/b7" "$M" -d 0 -d 4 -o "$W/b7.csv" -- "$VK" -n 1048576 -l 3 >/dev/null 2>&1
[ "$(cut -d, -f1 "$W/b7.csv" | tr '\n' ' ')" = "Dispatch_ID 0 4 " ] && ok "dispatch filter keeps 0 4" || bad "dispatch filter: $(cut -c1-60 "$W/b7.csv")"
msg=$($TB run "$W/b3" "$M" -i 2 -- "$VK" -n 1048576 -l 1 -x 3 2>&1 >/dev/null)
[ "$msg" = "error: pass 2: target exited with status 3" ] && ok "$msg" || bad "exit status: $msg"
msg=$($TB run "$W/b4" "$M" -t 1 -- sleep 20 2>&1 >/dev/null)
echo "$msg" | grep -q "timed out after 1 s" && ok "$msg" || bad "timeout: $msg"
msg=$($TB run "$W/b5" "$M" -- /nonexistent/prog 2>&1 >/dev/null)
echo "$msg" | grep -q "cannot run '/nonexistent/prog'" && ok "$msg" || bad "exec failure: $msg"
msg=$($TB run "$W/b6" dram__bytes_read.sum,no__such_metric.sum -- "$VK" -n 1048576 -l 1 2>&1 >/dev/null)
echo "$msg" | grep -q "unknown metric 'no__such_metric.sum'" && ok "$msg" || bad "bad metric in pass: $msg"

echo "== a user without profiling permission"
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
        mkdir -p "$W/nobody" && chmod 777 "$W/nobody" && chmod o+rx "$W" "$ROOT" "$ROOT/tests" "$ROOT/tests/bin"
        setpriv --reuid=65534 --regid=65534 --clear-groups env CUDA_INJECTION64_PATH="$LIB" \
                PRISM_CUPTI_METRICS="$M" PRISM_CUPTI_OUT="$W/nobody/out.csv" \
                timeout 120 "$VK" -n 1048576 -l 1 >/dev/null 2>"$W/nobody/stderr"
        echo "INFO: rc=$? stderr: $(head -3 "$W/nobody/stderr")"
        if [ -s "$W/nobody/out.csv.err" ]; then
                grep -q "INSUFFICIENT_PRIVILEGES" "$W/nobody/out.csv.err" && ok "reported: $(head -1 "$W/nobody/out.csv.err")" || bad "err file: $(cat "$W/nobody/out.csv.err")"
        else
                echo "INFO: profiling is open to non-root users here (no error); rows: $(wc -l <"$W/nobody/out.csv" 2>/dev/null)"
        fi
fi

echo "== instance counts (sum/avg) for sysinfo"
inject "$W/inst.csv" gpc__cycles_elapsed.sum,gpc__cycles_elapsed.avg,lts__cycles_elapsed.sum,lts__cycles_elapsed.avg,dram__cycles_elapsed.sum,dram__cycles_elapsed.avg,fbpa__cycles_elapsed.sum,fbpa__cycles_elapsed.avg,sm__cycles_elapsed.sum,sm__cycles_elapsed.avg -- -n 1048576 -l 0 >/dev/null 2>"$W/inst.err"
head -3 "$W/inst.err"
python3 - "$W/inst.csv" <<'EOF'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
for u in ("gpc", "lts", "dram", "fbpa", "sm"):
    s, a = r.get(u + "__cycles_elapsed.sum", ""), r.get(u + "__cycles_elapsed.avg", "")
    if s and a and float(a):
        print("INFO: %s instances = %.2f" % (u, float(s) / float(a)))
EOF

echo "== against ncu"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ]; then
        NM=dram__bytes_read.sum,dram__bytes_write.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg
        timeout 300 "$NCU" --csv --print-units base --clock-control none --cache-control none --metrics "$NM" "$VK" -l 0 >"$W/ncu.csv" 2>"$W/ncu.err"
        echo "INFO: ncu rc=$?"; tail -3 "$W/ncu.err"
        inject "$W/cmp.csv" "$NM" -- -l 0 >/dev/null 2>&1
        run_check ncu "$W/cmp.csv" "$W/ncu.csv" ${NM//,/ }
else
        echo "INFO: no ncu found"
fi

echo "== overhead: wall time of 200 small launches"
secs() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }'; }
echo "INFO: plain $(secs "$VK" -n 1048576 -l 200) s"
echo "INFO: no metrics $(secs inject "$W/t0.csv" "" -- -n 1048576 -l 200) s"
echo "INFO: dram__bytes_read.sum (1 pass) $(secs inject "$W/t1.csv" dram__bytes_read.sum -- -n 1048576 -l 200) s"
echo "INFO: dram r/w, gpu__time_duration, sm__cycles_elapsed (1 pass) $(secs inject "$W/t2.csv" dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum,sm__cycles_elapsed.avg -- -n 1048576 -l 200) s"
echo "INFO: ffma sass counter (1 pass) $(secs inject "$W/t3.csv" smsp__sass_thread_inst_executed_op_ffma_pred_on.sum -- -n 1048576 -l 200) s"
echo "INFO: the 6 checked metrics (2 passes) $(secs inject "$W/t4.csv" "$M" -- -n 1048576 -l 200) s"
[ -n "$NCU" ] && echo "INFO: ncu, 1 metric $(secs "$NCU" --metrics dram__bytes_read.sum "$VK" -n 1048576 -l 200) s"

echo "== $fails failure(s); files in $W"
[ "$fails" = 0 ]
