#!/usr/bin/env bash
# Scale of `prism analyze`: synthetic workloads of 1k, 10k and 100k dispatches made from a
# shared recording (its rows repeated, with new dispatch ids, 12 kernel names and new
# timestamps), analyzed with every panel; wall and CPU time and peak RSS (wait4) into
# bench/RESULTS-scale.md. Also: one panel only (-b 2: fewer columns loaded), the 10k
# workload with 1,000 extra counters no panel reads (memory must not grow), and the
# 1k/10k workloads imported into the SQLite store.
# Usage: bench/scale.sh [BASE_WORKLOAD_DIR]   (default ../shared/rocprof-workloads/vcopy/MI200)
#        SIZES="1000 10000" RUNS=3 KEEP=1 bench/scale.sh
set -eu
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
BASE=${1:-../shared/rocprof-workloads/vcopy/MI200}
SIZES=${SIZES:-1000 10000 100000}
RUNS=${RUNS:-3}
OUT=${OUT:-bench/RESULTS-scale.md}
if [ ! -f "$BASE/pmc_perf.csv" ]; then
        echo "bench/scale.sh: no workload at '$BASE' (the shared workloads are absent?)" >&2
        exit 2
fi
command -v python3 >/dev/null || { echo "bench/scale.sh: needs python3" >&2; exit 2; }
W=$(mktemp -d /tmp/prism-scale-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$W"' EXIT

# gen N DIR [EXTRA]: N dispatches from BASE's rows; EXTRA unused counter columns
gen() {
        python3 - "$BASE" "$1" "$2" "${3:-0}" <<'EOF'
import csv, io, os, shutil, sys
base, n, out, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
os.makedirs(out, exist_ok=True)
for f in ("sysinfo.csv", "roofline.csv"):
    if os.path.exists(os.path.join(base, f)):
        shutil.copy(os.path.join(base, f), out)
def enc(v):
    s = io.StringIO(); csv.writer(s, lineterminator="").writerow([v]); return s.getvalue()
names = [f"kernel_{k:02d}(double*, double*, double*, int, int) [clone .kd]" for k in range(12)]
tables = ["pmc_perf.csv", "timestamps.csv"] + sorted(f for f in os.listdir(base) if f.startswith("SQ") and f.endswith(".csv"))
for f in tables:
    src = os.path.join(base, f)
    if not os.path.exists(src):
        continue
    rows = list(csv.reader(open(src, newline="")))
    head, body = rows[0], rows[1:]
    vary = {c: head.index(c) for c in ("Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp") if c in head}
    add = extra if f == "pmc_perf.csv" else 0
    # each base row encoded once; per dispatch only the varying fields change
    templates = []
    for r in body:
        r = r + [""] * (len(head) - len(r))
        dur = float(r[vary["End_Timestamp"]]) - float(r[vary["Start_Timestamp"]]) if "End_Timestamp" in vary else 0
        templates.append(([enc(v) for v in r], dur))
    junk = "," + ",".join(str(j) for j in range(add)) if add else ""
    with open(os.path.join(out, f), "w", newline="") as o:
        o.write(",".join(enc(h) for h in head) + ("," + ",".join(f"UNUSED_COUNTER_{j}" for j in range(add)) if add else "") + "\n")
        t0 = 1_000_000_000_000
        for d in range(n):
            fields, dur = templates[d % len(templates)]
            fields = list(fields)
            start = t0 + d * 50_000
            if "Dispatch_ID" in vary: fields[vary["Dispatch_ID"]] = str(d)
            if "Kernel_Name" in vary: fields[vary["Kernel_Name"]] = enc(names[d % len(names)])
            if "Start_Timestamp" in vary: fields[vary["Start_Timestamp"]] = str(start)
            if "End_Timestamp" in vary: fields[vary["End_Timestamp"]] = str(int(start + dur * (1 + (d % 7) / 10)))
            o.write(",".join(fields) + junk + "\n")
EOF
}

# run ARGS...: "wall cpu rss_kb" of one run of prism: GNU time where there is one, else
# python (rusage for CPU; the peak RSS polled from /proc, as a forked python's own memory
# would count in ru_maxrss)
run() {
        if [ -z "${NO_GNU_TIME:-}" ] && [ -x /usr/bin/time ]; then
                /usr/bin/time -f "%e %U %S %M" -o "$W/time" "$P" "$@" >/dev/null 2>"$W/err" ||
                        { cat "$W/err" >&2; return 1; }
                awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$W/time"
                return
        fi
        python3 - "$P" "$@" <<'EOF'
import os, subprocess, sys, time
t = time.monotonic()
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
hwm = 0
while p.poll() is None:
    try:
        for line in open(f"/proc/{p.pid}/status"):
            if line.startswith("VmHWM:"):
                hwm = max(hwm, int(line.split()[1]))
    except OSError:
        pass
    time.sleep(0.005)
wall = time.monotonic() - t
ru = os.times()
if p.returncode != 0:
    sys.exit(1)
print(f"{wall:.2f} {ru.children_user + ru.children_system:.2f} {hwm}")
EOF
}

# measure LABEL ARGS...: best wall and CPU (user + system) time, largest RSS of RUNS runs
measure() {
        local label=$1; shift
        local best="" cpu="" rss=0 t c r
        for _ in $(seq "$RUNS"); do
                read -r t c r < <(run "$@")
                [ -n "${t:-}" ] || { echo "failed: $P $*" >&2; exit 1; }
                best=$(awk -v a="$t" -v b="$best" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
                cpu=$(awk -v a="$c" -v b="$cpu" 'BEGIN { print (b == "" || a + 0 < b + 0) ? a : b }')
                [ "$r" -gt "$rss" ] && rss=$r
        done
        printf '| %s | %s | %s | %s |\n' "$label" "$best" "$cpu" "$((rss / 1024))" | tee -a "$W/rows"
}

: >"$W/rows"
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $SIZES; do
        gen "$n" "$W/w$n"
        sz=$(du -m "$W/w$n/pmc_perf.csv" | cut -f1)
        measure "$n dispatches, every panel (pmc_perf.csv $sz MB)" analyze -p "$W/w$n"
        measure "$n dispatches, -b 2 (one panel)" analyze -p "$W/w$n" -b 2
        if [ "$n" -eq 10000 ]; then
                gen "$n" "$W/wide$n" 1000
                sz=$(du -m "$W/wide$n/pmc_perf.csv" | cut -f1)
                measure "$n dispatches + 1,000 unused counters, every panel ($sz MB)" analyze -p "$W/wide$n"
        fi
        if [ "$n" -le 10000 ]; then
                read -r t c r < <(run database --import "$W/w$n" --db "$W/w$n.db")
                [ -n "${t:-}" ] || { echo "failed: database --import" >&2; exit 1; }
                printf '| %s | %s | %s | %s |\n' \
                        "$n dispatches: database --import ($(du -m "$W/w$n.db" | cut -f1) MB)" \
                        "$t" "$c" "$((r / 1024))" | tee -a "$W/rows"
                measure "$n dispatches from the database, every panel" analyze -p "$W/w$n.db"
        fi
done

{
        echo "# prism analyze at scale"
        echo
        echo "Generated by \`bench/scale.sh\` on $(date -u +%Y-%m-%d) ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'),"
        echo "$(awk '/MemTotal/{printf "%d", $2 / 1048576}' /proc/meminfo) GiB). Workloads: \`$BASE\` repeated with new dispatch ids, 12 kernel"
        echo "names and timestamps. Times: best of $RUNS runs, wall and CPU (user + system) seconds; RSS:"
        echo "largest peak resident set (MiB). Load average at the start: $LOAD."
        echo "\`analyze\` loads only the columns the selected panels' formulas read (column projection),"
        echo "streaming the CSV; the report goes to /dev/null."
        echo
        echo "| run | wall (s) | CPU (s) | peak RSS (MiB) |"
        echo "|---|---|---|---|"
        cat "$W/rows"
        per=$(awk -F'|' '/^\| 100000 dispatches, every panel/ { printf "%.2f", $3 / 10 }' "$W/rows")
        [ -z "$per" ] || { echo; echo "Every panel at 100,000 dispatches: $per s (wall) per 10,000 dispatches."; }
} >"$OUT"
echo "wrote $OUT"
