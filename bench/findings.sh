#!/usr/bin/env bash
# Cost of the findings (panel 0's tables 0.3 and 0.4) in `prism analyze`: a synthetic
# workload of N dispatches (12 kernels, bench/scale.sh's generator) analyzed with every
# panel and with one panel (-b 2), each with and without --no-findings; best of RUNS wall
# seconds and peak RSS. Usage: bench/findings.sh [BASE_WORKLOAD_DIR]  (N=10000 RUNS=3)
set -eu
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
BASE=${1:-../shared/rocprof-workloads/vcopy/MI200}
N=${N:-10000}
RUNS=${RUNS:-3}
[ -f "$BASE/pmc_perf.csv" ] || { echo "bench/findings.sh: no workload at '$BASE'" >&2; exit 2; }
W=$(mktemp -d /tmp/prism-findings-XXXXXX)
trap 'rm -rf "$W"' EXIT
eval "$(sed -n '/^gen() {/,/^}/p' bench/scale.sh)"
gen "$N" "$W/wl"
best() { # ARGS...: best wall seconds and its peak RSS (MiB) over RUNS runs
        local b=999999 m=0
        for _ in $(seq "$RUNS"); do
                /usr/bin/time -f "%e %M" -o "$W/t" "$P" analyze -p "$W/wl" "$@" >/dev/null 2>&1
                read -r s k <"$W/t"
                if awk -v s="$s" -v b="$b" 'BEGIN { exit !(s < b) }'; then b=$s; m=$((k / 1024)); fi
        done
        echo "$b $m"
}
echo "| run ($N dispatches, 12 kernels) | wall (s) | peak RSS (MiB) |"
echo "|---|---|---|"
for args in "" "--no-findings" "-b 2" "-b 2 --no-findings" "-b 0.3"; do
        read -r s m <<<"$(best $args)"
        echo "| analyze ${args:-(every panel)} | $s | $m |"
done
