#!/usr/bin/env bash
# How near the memory system `prism analyze` reads a workload: perf stat's task-clock,
# instructions and cycles for each binary given, with the bytes of CSV read per cycle (or,
# where the machine does not count cycles — a virtual machine without a PMU — per CPU
# second: task-clock). Runs take turns (A B A B ...) so that a drift of the machine's speed
# touches both; the report goes to /dev/null. Instructions where perf cannot count them:
# INSTR=1 adds valgrind's count (callgrind, every thread; slow: use a small workload).
# Usage: RUNS=5 bench/perfstat.sh WORKLOAD_DIR [PRISM ...]   (default ./prism)
set -eu
cd "$(dirname "$0")/.."
W=$1
shift
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(./prism)
RUNS=${RUNS:-5}
command -v perf >/dev/null || { echo "bench/perfstat.sh: needs perf" >&2; exit 2; }
bytes=$(cat "$W"/*.csv | wc -c)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PRISM_DATA_DIR=${PRISM_DATA_DIR:-$PWD}
echo "workload $W: $((bytes / 1000000)) MB of CSV; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$RUNS"); do
        for i in "${!bins[@]}"; do
                perf stat -x, -e task-clock,instructions,cycles -o "$tmp/s" \
                        "${bins[$i]}" analyze -p "$W" >/dev/null 2>&1 || true
                s=${EPOCHREALTIME/[.,]/}
                "${bins[$i]}" analyze -p "$W" >/dev/null 2>&1 || true
                e=${EPOCHREALTIME/[.,]/}
                awk -F, -v wall=$((e - s)) '
                        $3 == "task-clock" { tc = $1 }
                        $3 == "instructions" { ins = $1 }
                        $3 == "cycles" { cyc = $1 }
                        END { print tc, (ins ~ /^[0-9]/ ? ins : "na"), (cyc ~ /^[0-9]/ ? cyc : "na"),
                                    wall / 1000 }' "$tmp/s" >>"$tmp/r$i"
        done
done
printf '%-28s %12s %12s %14s %14s %12s %14s\n' binary "wall ms" "cpu ms" instructions cycles \
        "bytes/cycle" "MB/cpu-s"
for i in "${!bins[@]}"; do
        python3 - "${bins[$i]}" "$bytes" "$tmp/r$i" <<'PY'
import sys, statistics as st
b, nbytes, f = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [l.split() for l in open(f)]
def med(k, num=True):
    v = [float(r[k]) for r in rows if len(r) > k and r[k].replace('.', '', 1).isdigit()]
    return st.median(v) if v else None
tc, ins, cyc, wall = med(0), med(1), med(2), med(3)
bpc = "%.2f" % (nbytes / cyc) if cyc else "n/a"
print("%-28s %12.0f %12.0f %14s %14s %12s %14.0f" % (b, wall, tc, "%.0f" % ins if ins else "n/a",
      "%.0f" % cyc if cyc else "n/a", bpc, nbytes / 1e6 / (tc / 1000)))
PY
        if [ -n "${INSTR:-}" ] && command -v valgrind >/dev/null; then
                valgrind --tool=callgrind --callgrind-out-file="$tmp/cg" "${bins[$i]}" analyze \
                        -p "$W" >/dev/null 2>"$tmp/cgerr" || true
                echo "  instructions (callgrind, all threads): $(grep -o 'refs: *[0-9,]*' "$tmp/cgerr" | tr -dc 0-9)"
        fi
done
