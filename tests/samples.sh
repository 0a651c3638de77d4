#!/usr/bin/env bash
# The bundled samples (workloads-sample/, recorded by prism profile on real GPUs): every one
# must analyze cleanly, and the values below, which follow from what the sample kernels do
# (tests/gpu/samples.cu) or were recorded, must come out exactly (relative 1e-12). A change
# of formula that moves one of them is a decision: update the row with the reason.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

# every bundled workload analyzes, with its speed-of-light table
n=0
for f in workloads-sample/*/*/pmc_perf.csv; do
        [ -e "$f" ] || continue
        d=$(dirname "$f")
        n=$((n + 1))
        if "$P" analyze -p "$d" >"$T/out" 2>"$T/err" && grep -Eq "^2.1 (System )?Speed-of-Light" "$T/out"; then
                ok "analyze $d"
        else
                bad "analyze $d: $(head -2 "$T/err")"
        fi
done
if [ "$n" -eq 0 ]; then
        echo "SKIP samples: no workloads-sample/*/*/pmc_perf.csv"
        skip=$((skip + 1))
fi

# row: workload | analyze filter | metric id | column | expected value | why
rows() {
        cat <<'EOF'
stream/H100||7.1.0|Avg|262144|triad over 2^26 floats: grid size in blocks of 256, as ncu
stream/H100||7.1.10|Avg|67108864|triad: threads
stream/H100||7.1.2|Avg|2097152|2^26 / 32 warps
stream/H100||3.1.17|Value|262144|2^26 / 256 blocks
stream/H100||4.2.2|Avg|134217728|one FFMA (2 flop) per element
stream/H100||10.2.8|Avg|32|FFMA thread instructions per warp
stream/H100||4.2.11|Avg|805306368|L1 bytes: 12 per element
stream/H100||2.1.7|Avg|132|every SM works
stream/H100||4.2.9|Avg|794164992|DRAM bytes per dispatch (recorded with the L2 flushed: 12 per element - 1.4%, the last writes still in the L2 when the kernel ends)
stream/H100||2.1.22|Avg|1849.6258656022032|DRAM read GB/s (recorded)
compute/H100|-d 0 2|4.2.2|Avg|17722417152|fma_chains: 2 * 8 chains * 4096 iters * 270336 threads + the FADDs
compute/H100|-d 0 2|10.2.8|Avg|1048576|fma_chains: 8 * 4096 * 32 FFMA per warp
compute/H100|-d 0 2|2.1.7|Avg|132|fma_chains: every SM works
compute/H100|-d 0 2|2.1.0|Avg|55767.268056051835|fma_chains: FP32 FLOP/s (recorded; the HFMA2.MMA moves are FP16)
compute/H100|-d 1 3|4.2.4|Avg|283467841536|mma_f16: 8192 flop * 4096 iters * 8448 warps
compute/H100|-d 1 3|3.1.16|Value|8448|mma_f16: warps
compute/H100|-d 1 3|2.1.3|Avg|628237.8874785309|mma_f16: tensor FP16 FLOP/s (recorded)
kinds/H100|-d 0|7.1.0|Avg|131072|copy: 2^25 floats in blocks of 256
kinds/H100|-d 0|7.1.5|Avg|16|copy: 8 registers, CUDA allocates at least 16 (ncu says 16)
kinds/H100|-d 2|2.1.33|Avg|98.7027059567167|fma64: the FP64 pipe is the limiter (recorded; ncu 97-98)
kinds/H100|-d 2|2.1.31|Avg|32048.773543963198|fma64: FP64 FLOP/s against the FP64 peak (recorded)
kinds/H100|-d 3|6.3.1|Avg|6|smem_s1: 32 KiB + 1 KiB per block in 228 KiB
kinds/H100|-d 3|6.3.5|Avg|75|smem_s1: 6 blocks of 8 warps of 64
kinds/H100|-d 5|6.3.1|Avg|4|smem_lowocc: 48 KiB + 1 KiB per block
kinds/H100|-d 5|6.3.5|Avg|12.5|smem_lowocc: 4 blocks of 2 warps of 64
../tests/data/launch-h200|-d 0|7.1.16|Avg|32768|copy: ncu's shared memory configuration size (32 blocks of the 1 KiB the driver reserves)
../tests/data/launch-h200|-d 3|7.1.16|Avg|233472|smem_s1: ncu's 228 KiB carveout (6 blocks of 33 KiB)
../tests/data/launch-h200|-d 5|7.1.16|Avg|200704|smem_lowocc: ncu's 196 KiB carveout (4 blocks of 49 KiB)
../tests/data/launch-h200|-d 5|7.1.15|Avg|49152|smem_lowocc: 48 KiB of dynamic shared memory (recorded from the launch)
../tests/data/launch-h200|-d 5|7.1.14|Avg|0|smem_lowocc: no static shared memory
../tests/data/launch-h200|-d 0|6.3.9|Avg|8|copy: ncu's max cluster size (the portable 8)
../tests/data/launch-h200|-d 0|7.1.19|Avg|66|132 SMs, two per TPC
../tests/data/launch-h200|-d 0|7.1.18|Avg|1024|the default stack size per thread, as ncu
EOF
}

while IFS='|' read -r wl filt id col want why; do
        d=workloads-sample/$wl
        if [ ! -f "$d/pmc_perf.csv" ]; then
                echo "SKIP $wl $id: no such sample"
                skip=$((skip + 1))
                continue
        fi
        out=$T/dfs-$(echo "$wl $filt" | tr -c 'A-Za-z0-9' _)
        if [ ! -d "$out" ]; then
                # shellcheck disable=SC2086
                "$P" analyze -n per_wave -p "$d" $filt --save-dfs "$out" >/dev/null 2>"$T/err" ||
                        { bad "$wl $filt: analyze failed: $(head -1 "$T/err")"; continue; }
        fi
        got=$(python3 - "$out" "$id" "$col" <<'EOF'
import csv, glob, sys
out, mid, col = sys.argv[1:4]
for p in glob.glob(out + "/*.csv"):
    with open(p) as f:
        for r in csv.DictReader(f):
            if r.get("Metric_ID") == mid:
                print(r.get(col, ""))
                sys.exit(0)
print("missing")
EOF
)
        if python3 -c "import sys; g, w = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if abs(g - w) <= 1e-12 * max(abs(w), 1e-300) else 1)" "$got" "$want" 2>/dev/null; then
                ok "$wl $filt $id $col = $want ($why)"
        else
                bad "$wl $filt $id $col = $got, want $want ($why)"
        fi
done < <(rows)

# NVIDIA words: an NVIDIA report (text, memory chart and roofline SVG, the TUI's screen)
# holds no AMD-only term, and no row without a formula unless --all-rows asks for them
AMD_TERMS='Wavefront [A-Z]|per wave|Workgroup|LDS|VALU|SALU|MFMA|Scalar L1D|SPI|vL1D|sL1D|SGPR|VGPR|AGPR|SIMD|Active CUs|Instr Buff|GWS|ip_blocks|rocm_version'
for wl in kinds stream compute; do
        d=workloads-sample/$wl/H100
        [ -f "$d/pmc_perf.csv" ] || continue
        rm -rf "$T/svg"
        "$P" analyze -p "$d" --plot-dir "$T/svg" >"$T/nv.txt" 2>/dev/null
        if [ -s "$T/nv.txt" ] && [ -s "$T/svg/memory_chart.svg" ] && [ -s "$T/svg/roofline.svg" ] &&
                grep -q "^Memory chart" "$T/nv.txt" && grep -q "Tensor FP16" "$T/nv.txt" &&
                ! grep -qE "$AMD_TERMS" "$T/nv.txt" "$T/svg/memory_chart.svg" "$T/svg/roofline.svg"; then
                ok "$wl/H100: no AMD term in the text report and the SVG figures"
        else
                bad "$wl/H100: AMD terms: $(grep -ohE "$AMD_TERMS" "$T/nv.txt" "$T"/svg/*.svg | sort -u | tr '\n' ' ')"
        fi
        "$P" analyze -p "$d" -b 2 >"$T/nv2.txt" 2>/dev/null
        "$P" analyze -p "$d" -b 2 --all-rows >"$T/nv2all.txt" 2>/dev/null
        if ! grep -q '2\.1\.24 ' "$T/nv2.txt" && grep -q '2\.1\.24 .*L2-DRAM Read Latency' "$T/nv2all.txt" &&
                grep -q '2\.1\.28 .*Instruction Cache Hit Rate' "$T/nv2.txt"; then
                ok "$wl/H100: rows without a counterpart hidden (ids kept), --all-rows shows them"
        else
                bad "$wl/H100: hidden rows / --all-rows"
        fi
done
# --list-metrics sm_90 (no workload) uses the family's titles too
if "$P" analyze --list-metrics sm_90 >"$T/lm.txt" 2>&1 && grep -q '^7 -> Warp Launch and Warp State' "$T/lm.txt" &&
        grep -q '7.3.0 -> Warp Cycles Per Issued Instruction' "$T/lm.txt"; then
        ok "--list-metrics sm_90: NVIDIA titles and the new tables"
else
        bad "--list-metrics sm_90: $(head -3 "$T/lm.txt")"
fi
# the TUI's first screen (panel tree and the first table) of an NVIDIA workload
if command -v tmux >/dev/null 2>&1 && [ -f workloads-sample/kinds/H100/pmc_perf.csv ]; then
        sock=prism-samples-$$
        tmux -L "$sock" new-session -d -x 160 -y 50 "$P analyze -p workloads-sample/kinds/H100 --tui"
        sleep 1
        tmux -L "$sock" capture-pane -p >"$T/tui.txt" 2>/dev/null
        tmux -L "$sock" kill-server 2>/dev/null
        if grep -q "GPU Speed Of Light" "$T/tui.txt" && grep -q "Warp Launch and Warp State" "$T/tui.txt" && ! grep -qE "$AMD_TERMS" "$T/tui.txt"; then
                ok "kinds/H100: the TUI shows NVIDIA's words"
        else
                bad "kinds/H100 TUI: $(grep -oE "$AMD_TERMS|GPU Speed Of Light" "$T/tui.txt" | sort -u | tr '\n' ' ')"
        fi
else
        echo "SKIP samples TUI: no tmux"
        skip=$((skip + 1))
fi

# the plan the samples were recorded with, made again without a GPU (CUPTI's Profiler Host API
# counts passes from libprism-cupti.so beside prism): every pass starts with the per-pass
# metric, and the SASS metrics have a pass of their own
if [ -f "$(dirname "$P")/libprism-cupti.so" ] || [ -n "${PRISM_CUPTI_LIB:-}" ]; then
        if "$P" profile -n plan -p "$T/plan" --dry-run --arch sm_90 >"$T/plan.out" 2>"$T/plan.err" &&
                [ "$(grep -c '^pass ' "$T/plan.out")" -eq "$(grep -c '^pass [0-9]*: gpu__time_duration.sum' "$T/plan.out")" ] &&
                grep -q '^pass [0-9]*: gpu__time_duration.sum smsp__sass_' "$T/plan.out" &&
                ! grep '^pass ' "$T/plan.out" | grep 'smsp__sass_' | grep -q ' dram__' &&
                [ -f "$T/plan/perfmon/pmc_perf_0.txt" ]; then
                ok "profile --dry-run --arch sm_90: $(grep -c '^pass ' "$T/plan.out") passes"
        else
                bad "profile --dry-run --arch sm_90: $(tail -1 "$T/plan.err")"
        fi
else
        echo "SKIP profile --dry-run --arch sm_90: no libprism-cupti.so (needs the CUDA toolkit)"
        skip=$((skip + 1))
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
