#!/usr/bin/env bash
# analyze on two threads (src/util/task.c: the panels read beside the architecture; the
# panels evaluated in two halves, src/analyze/analysis.c) prints what one thread prints:
# the text report, stderr and every --save-dfs file of each recording, with several option
# sets (the second half's tables also all rendered on its thread: PRISM_RENDER_AHEAD=1),
# compared byte for byte with PRISM_THREADS=1. Also the first workload's layout
# detected while the rules load (warning, failing), data whose formulas warn in the
# first half, in the second half, or in both (the analysis is then redone on one thread, so
# the warnings keep their one-thread order), and a panels file that fails to load while
# the architecture is read (its error, not the workload's, is reported).
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
S=${PRISM_SHARED:-../shared}
pass=0 fail=0 skip=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 2 ]; then
        echo "SKIP threads: one CPU, the two-thread path is not taken"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
fi
# same NAME ARGS...: one thread and two threads give the same stdout, stderr, exit code
# and --save-dfs files
same() {
        local name=$1; shift
        for n in 1 2; do
                mkdir -p "$T/$n"
                PRISM_THREADS=$([ $n = 1 ] && echo 1 || echo 2) "${PB:-$P}" analyze "$@" \
                        --save-dfs "$T/$n/dfs" >"$T/$n/out" 2>"$T/$n/err"
                echo $? >"$T/$n/rc"
                sed -i "s#$T/$n/#T/#g" "$T/$n/err"
        done
        if diff -r "$T/1" "$T/2" >"$T/diff"; then ok; else bad "$name: $(head -5 "$T/diff")"; fi
        rm -rf "$T/1" "$T/last" && mv "$T/2" "$T/last" # (the two-thread run's, to look into)
}
n=0
for d in "$S"/rocprof-workloads/*/*/ "$S"/rocprof-workloads-3.3/*/*/ workloads-sample/*/*/ \
        tests/data/*/*/; do
        [ -f "$d/pmc_perf.csv" ] || continue
        n=$((n + 1))
        same "$d" -p "$d"
        same "$d --compat 3.0 -n per_second" -p "$d" --compat 3.0 -n per_second
        # the second half's report tables all rendered on its thread (render_ahead_fn)
        PRISM_RENDER_AHEAD=1 same "$d, rendered ahead" -p "$d"
        PRISM_RENDER_AHEAD=1 same "$d -b 2 17 18, rendered ahead" -p "$d" -b 2 17 18
done
[ "$n" -gt 0 ] || bad "no recording found under $S"
V=$S/rocprof-workloads/vcopy/MI200
if [ -f "$V/pmc_perf.csv" ]; then
        same "-b 2 18 -k 0" -p "$V" -b 2 18 -k 0
        for o in "$S"/rocprof-workloads/vcopy/MI300*/; do
                [ -f "$o/pmc_perf.csv" ] || continue
                same "comparison with $o" -p "$V" -p "$o"
                break
        done
        # data whose formulas warn: a first-half metric (panel 2), a second-half one (18)
        for where in first second both; do
                # a copy of prism beside the edited data reads that data (data_path)
                D=$T/data-$where && mkdir -p "$D" && cp -r metrics panels rules "$D/" &&
                        cp "$P" "$D/prism"
                # two built-ins that read each other: every formula reading them warns when
                # it is evaluated ("... refer to each other in a loop")
                python3 - "$D/metrics/cdna.yaml" "$where" <<'PY'
import sys
p, where = sys.argv[1], sys.argv[2]
s = open(p).read()
s = s.replace("builtins:\n", "builtins:\n  loopA: $loopB + 1\n  loopB: $loopA + 1\n", 1)
if where in ("first", "both"):  # panel 2's L2 bandwidth
    s = s.replace("    expr: TCC_REQ_sum * 128 / (End_Timestamp - Start_Timestamp)",
                  "    expr: TCC_REQ_sum * 128 / $loopA", 1)
if where in ("second", "both"):  # panel 18's per-channel requests
    for f in ("TO_INT", "TO_INT_ALL"):  # (3.3.0's per-channel cells: TO_INT_ALL)
        s = s.replace(f"    expr: {f}(TCC_REQ[@]) / $denom", f"    expr: {f}(TCC_REQ[@]) / $loopA", 1)
open(p, "w").write(s)
PY
                PB=$D/prism same "warnings in the $where half" -p "$V"
                PRISM_THREADS=2 "$D/prism" analyze -p "$V" 2>"$T/err" >/dev/null
                c=$(grep -c 'loop' "$T/err")
                case $where in first) want=1 ;; second) want=32 ;; both) want=33 ;; esac
                # the edit must have taken: every broken formula warns once
                if [ "$c" -ge "$want" ]; then ok; else bad "$where: $c warnings, want >= $want"; fi
        done
        # no rules/: the findings' warning (the rules are read on the second thread) comes
        # where one thread prints it
        D=$T/data-norules && mkdir -p "$D" && cp -r metrics panels "$D/" && cp "$P" "$D/prism"
        PRISM_DATA_DIR='' PB=$D/prism same "no rules/" -p "$V"
        if PRISM_DATA_DIR='' PRISM_THREADS=2 "$D/prism" analyze -p "$V" 2>&1 >/dev/null | grep -q "cannot find prism's rules/"; then
                ok
        else
                bad "no rules/: no warning"
        fi
        # a damaged panels file: its error (read on the second thread) wins
        D=$T/data-panels && mkdir -p "$D" && cp -r metrics panels rules "$D/" && cp "$P" "$D/prism"
        printf 'id: [\n' >>"$D/panels/02-system-speed-of-light.yaml"
        for n in 1 2; do
                PRISM_THREADS=$n "$D/prism" analyze -p "$V" >/dev/null 2>"$T/perr$n"
                echo "rc $?" >>"$T/perr$n"
        done
        if cmp -s "$T/perr1" "$T/perr2" && grep -q '02-system-speed-of-light.yaml' "$T/perr2" &&
                grep -q 'rc 2' "$T/perr2"; then ok; else bad "damaged panels: $(cat "$T/perr2")"; fi
        # the first workload's layout is detected while the rules load (src/analyze/
        # session.c): a detection that warns (a clock recorded as 0), with the rules' own
        # warning (no rules/), and one that warns and then fails (profiling_config.yaml
        # names an unknown layout): each warning once, where one thread says it
        W0=$T/sclk0 && cp -r "$V" "$W0" && chmod -R u+w "$W0"
        python3 - "$W0/sysinfo.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
rows[1][rows[0].index("max_sclk")] = "0"
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)
PY
        D=$T/data-norules
        PRISM_DATA_DIR='' PB=$D/prism same "a detection that warns, no rules/" -p "$W0"
        # (and in the order of a run that reads the rules before the dispatches)
        r=$(grep -n "cannot find prism's rules/" "$T/last/err" | cut -d: -f1)
        c=$(grep -n "max_sclk is 0" "$T/last/err" | cut -d: -f1)
        [ -n "$r" ] && [ -n "$c" ] && [ "$r" -lt "$c" ] ||
                bad "detection warnings: $(head -c 600 "$T/last/err")"
        printf 'format_rocprof_output: xml\n' >"$W0/profiling_config.yaml"
        same "a detection that warns and fails" -p "$W0"
        [ "$(grep -c "max_sclk is 0" "$T/last/err")" = 1 ] && grep -q "format_rocprof_output 'xml'" \
                "$T/last/err" && [ "$(cat "$T/last/rc")" = 2 ] ||
                bad "a failing detection: $(head -c 600 "$T/last/err")"
else
        echo "SKIP threads: no $V"
        skip=$((skip + 1))
fi
# rocpd's long file read ahead on a second thread (src/store/csvpipe.c: files of 16 MiB or
# more), whole and with a bad grouping field halfway; a database's passes checked on a
# second connection beside their reading (src/store/db_read.c: 8192 rows or more), whole,
# with damaged cells, and with a damaged page (the check's error, as on one thread)
R=$S/rocprof-workloads-3.3/vcopy/MI300X_A1_rocpd
if [ -f "$R/pmc_perf.csv" ] && [ -f "$V/pmc_perf.csv" ] && command -v python3 >/dev/null; then
        mkdir -p "$T/long" "$T/longbad"
        cp "$R/sysinfo.csv" "$R/profiling_config.yaml" "$T/long/"
        cp "$R/sysinfo.csv" "$R/profiling_config.yaml" "$T/longbad/"
        # 72 dispatches (about 20 MB): the rows repeated with new ids (the second field)
        python3 -c '
import sys
lines = open(sys.argv[1], newline="").read().split("\n")
head, body = lines[0], [l for l in lines[1:] if l]
out = [head]
for k in range(24):
    for l in body:
        f = l.split(",", 2)
        out.append(f"{f[0]},{int(f[1]) + 10 * k},{f[2]}")
open(sys.argv[2], "w", newline="").write("\n".join(out) + "\n")
f = out[len(out) // 2].split(",", 2)
out[len(out) // 2] = f"{f[0]},x{f[1]},{f[2]}"
open(sys.argv[3], "w", newline="").write("\n".join(out) + "\n")
' "$R/pmc_perf.csv" "$T/long/pmc_perf.csv" "$T/longbad/pmc_perf.csv"
        same "rocpd read ahead" -p "$T/long"
        same "rocpd read ahead, a bad Dispatch_ID halfway" -p "$T/longbad"
        python3 bench/gen-workload.py "$V" 9000 "$T/w9k" 50 >/dev/null &&
                "$P" database --import "$T/w9k" --db "$T/w9k.db" >/dev/null 2>&1 ||
                bad "a 9000-dispatch database could not be made"
        same "a database's passes checked beside their reading" -p "$T/w9k.db"
        sed -i '50s/,[0-9.]*,/,abc,/; 4000s/,[0-9.]*,/,-1,/' "$T/w9k/pmc_perf.csv"
        "$P" database --import "$T/w9k" --db "$T/w9kc.db" >/dev/null 2>&1
        same "the same with damaged cells" -p "$T/w9kc.db"
        # the directory streamed, its accumulate tables read beside pmc_perf.csv
        # (store/workload.c): their warnings after pmc_perf.csv's, file by file, as one
        # thread gives them: a damaged cell, rows missing, a file that does not load, a
        # repeated Dispatch_ID
        sed -i '77s/,[0-9.]*,/,zz,/' "$T/w9k/SQ_LEVEL_WAVES.csv"
        sed -i '5000,$d' "$T/w9k/SQ_IFETCH_LEVEL.csv"
        sed -i '300s/$/,1/' "$T/w9k/SQ_INST_LEVEL_LDS.csv"
        sed -i '600s/^[0-9]*,/12,/' "$T/w9k/SQ_INST_LEVEL_SMEM.csv"
        PRISM_STREAM_MB=0 same "a streamed directory, its side files beside pmc_perf.csv" \
                -p "$T/w9k"
        grep -q "SQ_LEVEL_WAVES.csv:77" "$T/last/err" && grep -q "SQ_IFETCH_LEVEL.csv: 4998 rows" \
                "$T/last/err" && grep -q "SQ_INST_LEVEL_LDS.csv:300" "$T/last/err" &&
                grep -q "SQ_INST_LEVEL_SMEM.csv:600: Dispatch_ID 12 also at line 14" "$T/last/err" ||
                bad "the side files' warnings are missing: $(head -c 600 "$T/last/err")"
        # a pmc_perf.csv that fails: its error alone, nothing of the side files
        sed -i '3s/^/"/' "$T/w9k/pmc_perf.csv"
        PRISM_STREAM_MB=0 same "a streamed pmc_perf.csv that fails, side files damaged" \
                -p "$T/w9k"
        grep -q "pmc_perf.csv:3" "$T/last/err" && ! grep -q "SQ_" "$T/last/err" ||
                bad "a failing pmc_perf.csv: $(head -c 600 "$T/last/err")"
        # bytes in the middle of the file overwritten: quick_check's error, on both
        sz=$(stat -c %s "$T/w9k.db")
        printf 'damaged page%.0s' $(seq 600) | dd of="$T/w9k.db" bs=1 seek=$((sz / 2)) \
                conv=notrunc status=none
        same "a damaged database page" -p "$T/w9k.db"
        rm -rf "$T/long" "$T/longbad" "$T/w9k" "$T/w9k.db" "$T/w9kc.db"
else
        echo "SKIP threads: no $R or $V (rocpd and database reading)"
        skip=$((skip + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
