#!/usr/bin/env bash
# Speed and memory of `prism analyze` on recorded workloads (all panels, --save-dfs too).
# Usage: bench/analyze.sh [WORKLOAD_DIR...]   (default: every shared vcopy recording)
set -eu
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
dirs=("$@")
if [ ${#dirs[@]} -eq 0 ]; then
        for d in ../shared/rocprof-workloads/vcopy/*/ workloads-sample/*/*/; do
                [ -f "$d/pmc_perf.csv" ] && dirs+=("$d")
        done
fi
runs=${RUNS:-20}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '%-55s %10s %10s %10s\n' workload "mean ms" "min ms" "max RSS KB"
for d in "${dirs[@]}"; do
        best=999999 total=0 rss=0
        for i in $(seq "$runs"); do
                s=$(date +%s%N)
                /usr/bin/time -f %M -o "$tmp/rss" "$P" analyze -p "$d" --save-dfs "$tmp/dfs" >/dev/null 2>&1
                e=$(date +%s%N)
                ms=$(( (e - s) / 1000 ))
                total=$((total + ms)); [ $ms -lt $best ] && best=$ms
                r=$(cat "$tmp/rss"); [ "$r" -gt "$rss" ] && rss=$r
        done
        printf '%-55s %10.2f %10.2f %10d\n' "$d" "$(echo "$total / $runs / 1000" | bc -l)" "$(echo "$best / 1000" | bc -l)" "$rss"
done
