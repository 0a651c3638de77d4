#!/usr/bin/env bash
# Speed and memory of `prism analyze` on recorded workloads (all panels, --save-dfs too):
# wall time per run (median, mean, min of RUNS runs, in ms) and the largest peak RSS.
# A run's time is read from bash's $EPOCHREALTIME around it (no `date` process: two forks
# of `date` added about a millisecond to every run); it includes starting prism.
# Usage: bench/analyze.sh [WORKLOAD_DIR...]   (default: every shared vcopy recording)
#        RUNS=20 PRISM=./prism bench/analyze.sh ../shared/rocprof-workloads/vcopy/MI200
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
printf '%-55s %10s %10s %10s %10s\n' workload "median ms" "mean ms" "min ms" "max RSS KB"
for d in "${dirs[@]}"; do
        : >"$tmp/times"
        rss=0
        for _ in $(seq "$runs"); do
                s=${EPOCHREALTIME/[.,]/}
                "$P" analyze -p "$d" --save-dfs "$tmp/dfs" >/dev/null 2>&1
                e=${EPOCHREALTIME/[.,]/}
                echo $((e - s)) >>"$tmp/times"
        done
        # the peak RSS from one more run under GNU time (kept out of the timed runs)
        if [ -x /usr/bin/time ]; then
                /usr/bin/time -f %M -o "$tmp/rss" "$P" analyze -p "$d" --save-dfs "$tmp/dfs" >/dev/null 2>&1
                rss=$(cat "$tmp/rss")
        fi
        sort -n "$tmp/times" | awk -v d="$d" -v rss="$rss" '
                { t[NR] = $1; s += $1 }
                END { m = NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
                      printf "%-55s %10.2f %10.2f %10.2f %10d\n", d, m / 1000, s / NR / 1000, t[1] / 1000, rss }'
done
