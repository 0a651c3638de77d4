#!/usr/bin/env bash
# PC sampling on the H100 (issue 35): tests/bin/hotspots (a strided load, a divergent branch,
# a bank conflict, -lineinfo) run plain, under the collector's PC sampling alone, and under
# `prism profile` with and without the sampling run; everything lands in $OUT (default
# /tmp/pcs-out): the timings, the collector's trace (stall reason names), the disassembly
# of the sampled cubins, the workload and panel 21. Needs prism, libprism-cupti.so and
# tests/bin/hotspots built (make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/hotspots).
set -u
cd "$(dirname "$0")/../.."
O=${OUT:-/tmp/pcs-out}
mkdir -p "$O"
P=$PWD/prism
B=$PWD/tests/bin/hotspots
L=$PWD/libprism-cupti.so
export PRISM_DATA_DIR=$PWD
t() { local f=$1; shift; local s e; s=$(date +%s.%N); "$@"; local rc=$?; e=$(date +%s.%N); awk -v s="$s" -v e="$e" -v rc="$rc" 'BEGIN { printf "%.3f rc=%s\n", e - s, rc }' >>"$O/$f"; }
{ nvidia-smi -L; command -v nvdisasm cuobjdump ncu; nvcc --version | tail -1; } >"$O/env.txt" 2>&1
for i in 1 2 3; do t time-plain.txt "$B" >/dev/null 2>&1; done
for i in 1 2 3; do
        rm -f "$O/raw.csv"*
        t time-sampled.txt env CUDA_INJECTION64_PATH="$L" PRISM_CUPTI_PCSAMPLING="$O/raw.csv" \
                PRISM_CUPTI_OUT="$O/raw-launches.csv" PRISM_CUPTI_METRICS= PRISM_CUPTI_DEBUG=1 \
                "$B" >"$O/raw-stdout.txt" 2>"$O/raw-debug.txt"
done
for c in "$O"/raw.csv.cubin.*; do
        [ -f "$c" ] || continue
        nvdisasm -c "$c" >"$c.nvdisasm.txt" 2>&1
        cuobjdump -sass "$c" >"$c.cuobjdump.txt" 2>&1
done
for i in 1 2; do
        rm -rf "$O/wl-nopcs" "$O/wl"
        t time-profile-nopcs.txt "$P" profile -n hs -p "$O/wl-nopcs" --no-roof -b 2 -q --no-pc-sampling -- "$B" >"$O/profile-nopcs.txt" 2>&1
        t time-profile-pcs.txt "$P" profile -n hs -p "$O/wl" --no-roof -b 2 -q -- "$B" >"$O/profile.txt" 2>&1
done
"$P" analyze -p "$O/wl" -b 21 >"$O/analyze21.txt" 2>&1
"$P" analyze -p "$O/wl" -b 21 0.3 --save-dfs "$O/dfs21" >/dev/null 2>"$O/analyze21.err"
"$P" analyze -p "$O/wl" >"$O/analyze-all.txt" 2>&1
# one kernel at a time, at a finer period (2^10 cycles)
for k in strided divergent bank; do
        "$P" profile -n hs -p "$O/wl-$k" --no-roof -b 2 -q --pc-sampling-interval 1024 -- "$B" "$k" >"$O/profile-$k.txt" 2>&1
        "$P" analyze -p "$O/wl-$k" -b 21.3 >"$O/analyze-$k.txt" 2>&1
done
rm -rf "$O/wl/prism.db" "$O"/wl-*/prism.db "$O"/wl*/.prism-passes
echo done
