#!/usr/bin/env bash
# CLI tests as rows: arguments, expected exit code, a pattern the output must contain.
# Bad input must give exactly one line on stderr and exit code 2.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
. tests/data-dir.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0 skip=0

# malformed workloads built from a real one
make_bad() {
        local src=$S/vcopy/MI200
        mkdir -p "$T/empty" "$T/nopmc" "$T/trunc" "$T/badsys" "$T/unkarch" "$T/nosys"
        cp "$src/sysinfo.csv" "$T/nopmc/"
        cp "$src/sysinfo.csv" "$T/trunc/"; head -c 700 "$src/pmc_perf.csv" > "$T/trunc/pmc_perf.csv"
        mkdir -p "$T/trunc2"; cp "$src/sysinfo.csv" "$T/trunc2/"
        head -c $(( $(head -2 "$src/pmc_perf.csv" | wc -c) + 300 )) "$src/pmc_perf.csv" > "$T/trunc2/pmc_perf.csv"
        : > "$T/badsys/sysinfo.csv"; cp "$src/pmc_perf.csv" "$T/badsys/"
        cp "$src/pmc_perf.csv" "$T/unkarch/"; sed 's/gfx90a/gfx1234/' "$src/sysinfo.csv" > "$T/unkarch/sysinfo.csv"
        cp "$src/pmc_perf.csv" "$T/nosys/"
        mkdir -p "$T/extra"; cp "$src/sysinfo.csv" "$T/extra/"
        { head -1 "$src/pmc_perf.csv"; sed -n 2p "$src/pmc_perf.csv" | sed 's/$/,1,2,3/'; } > "$T/extra/pmc_perf.csv"
}

# row: expected-exit | pattern (extended regex) | args...
check() {
        local want=$1 pat=$2; shift 2
        local out err rc
        out=$("$P" "$@" 2>"$T/err"); rc=$?
        err=$(cat "$T/err")
        local ok=1
        [ "$rc" -eq "$want" ] || ok=0
        printf '%s\n%s\n' "$out" "$err" | grep -Eq -- "$pat" || ok=0
        if [ "$want" -eq 2 ] && [ "$(printf '%s' "$err" | grep -c '')" -ne 1 ]; then ok=0; fi
        if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   prism $*";
        else fail=$((fail + 1)); echo "FAIL prism $* (exit $rc, want $want /$pat/)"; echo "$out" | head -5; echo "$err" | head -3; fi
}

check 0 "usage: prism" --help
check 0 "prism [0-9]+\.[0-9]+" --version
check 2 "unknown command 'frobnicate'" frobnicate
check 0 "usage: prism analyze" analyze --help
check 2 "analyze needs a workload" analyze
check 2 "cannot open workload '/nonexistent'" analyze -p /nonexistent
check 2 "unknown option '--bogus'" analyze -p . --bogus
check 2 "unknown normalization 'per_fortnight'" analyze -p . -n per_fortnight
check 2 "unknown time unit 'h'" analyze -p . -t h
check 0 "2\.1\.0 -> VALU FLOPs" analyze --list-metrics gfx90a
check 2 "unknown architecture 'gfx1234' \(supported: .*gfx90a" analyze --list-metrics gfx1234
check 0 "ok: [0-9]+ architectures" check-data
# --compat: rocprof-compute 3.3.0's tables by default, 3.0's on request (panels/versions)
check 0 "2\.1 -> System Speed-of-Light" analyze --list-metrics gfx90a
check 0 "2\.1 -> Speed-of-Light" analyze --list-metrics gfx90a --compat 3.0
check 0 "15\.4 -> Vector L1 data-return path" analyze --list-metrics gfx942
check 0 "2\.1\.2 -> MFMA FLOPs \(F8\)" analyze --list-metrics gfx942
check 0 "2\.1\.2 -> MFMA FLOPs \(BF16\)" analyze --list-metrics gfx942 --compat 3.0
check 0 "2\.1\.7 -> MFMA FLOPs \(F6F4\)" analyze --list-metrics gfx950
check 2 "unknown architecture 'gfx950'" analyze --list-metrics gfx950 --compat 3.0
check 2 "unknown --compat version '2\.9' \(3\.0, 3\.3, 3\.10\)" analyze --list-metrics gfx90a --compat 2.9
check 2 "option '--compat' needs a value" analyze -p . --compat

# formulas are written once: no repeat in metrics/, and a repeat fails check-data
out=$("$P" check-data 2>&1)
if printf '%s\n' "$out" | grep -q ', 0 repeated formulas$'; then
        pass=$((pass + 1)); echo "ok   check-data: no repeated formula in metrics/"
else fail=$((fail + 1)); echo "FAIL check-data: repeated formulas in metrics/"
        printf '%s\n' "$out" | grep repeats | head -5; fi
mkdir -p "$T/rep/metrics" "$T/rep/panels"; cp "$P" "$T/rep/prism"
printf 'family: base\narchs: [gfxR]\nmetrics:\n  r.a:\n    expr: SQ_A / $denom\n  r.b:\n    expr: SQ_A/$denom\n  r.c:\n    same_as: r.a\n' > "$T/rep/metrics/base.yaml"
printf 'id: 1\ntitle: T\ntables:\n  - id: "1.1"\n    title: T\n    columns:\n      - {title: Metric, show: name}\n    rows: [r.a, r.b, r.c]\n' > "$T/rep/panels/01-t.yaml"
out=$("$T/rep/prism" check-data 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q "base.yaml:7: metric 'r.b' repeats the formula of 'r.a' (write 'same_as: r.a')" &&
   printf '%s\n' "$out" | grep -q "^FAILED: .*, 1 repeated formulas"; then
        pass=$((pass + 1)); echo "ok   check-data reports a repeated formula"
else fail=$((fail + 1)); echo "FAIL check-data does not report a repeated formula"; echo "$out" | head -5; fi

[ -d "$S/vcopy/MI200" ] || no_data cli "shared workloads at $S"
if true; then
        make_bad
        W=$S/vcopy/MI200
        check 0 "2\.1 Speed-of-Light" analyze --compat 3.0 -p "$W"
        check 0 "VALU IOPs .*427\.03" analyze --compat 3.0 -p "$W" -b 2
        check 2 "-b 99: no panel, table or metric has that id" analyze --compat 3.0 -p "$W" -b 99
        check 2 "-b 2\.1\.999: no panel" analyze --compat 3.0 -p "$W" -b 2.1.999
        check 2 "filters select no dispatch" analyze --compat 3.0 -p "$W" -d 42
        check 2 "kernel index 7 is out of range" analyze --compat 3.0 -p "$W" -k 7
        check 2 "filters select no dispatch" analyze --compat 3.0 -p "$W" --gpu-id 9
        check 0 "Dispatch list" analyze --compat 3.0 -p "$W" --list-stats
        check 2 "no pmc_perf.csv or sysinfo.csv" analyze --compat 3.0 -p "$T/empty"
        check 2 "no pmc_perf.csv" analyze --compat 3.0 -p "$T/nopmc"
        check 2 "no sysinfo.csv" analyze --compat 3.0 -p "$T/nosys"
        check 2 "sysinfo.csv.*empty" analyze --compat 3.0 -p "$T/badsys"
        check 2 "unknown architecture 'gfx1234'" analyze --compat 3.0 -p "$T/unkarch"
        check 2 "pmc_perf.csv:2: .*fields, but the header has" analyze --compat 3.0 -p "$T/extra"
        check 2 "pmc_perf.csv: no dispatches recorded" analyze --compat 3.0 -p "$T/trunc"
        check 2 "pmc_perf.csv:3: [0-9]+ fields, but the header has [0-9]+ \(truncated" analyze --compat 3.0 -p "$T/trunc2"
        check 2 "cannot write" analyze --compat 3.0 -p "$W" -o /nonexistent/dir/report.txt
        # --save-dfs failures (the tables are written by two threads): a file in the way of
        # the directory; a directory in the way of a table's file: the first such table (in
        # the report's order: panel 10 before panel 18) is the one named, and every table of
        # the panels before the failing one is written
        : >"$T/dfsfile"
        "$P" analyze --compat 3.0 -p "$W" --save-dfs "$T/dfsok" >/dev/null 2>&1
        early=$(cd "$T/dfsok" && ls 10.1_*.csv) late=$(cd "$T/dfsok" && ls 18.5_*.csv)
        mkdir -p "$T/dfs2/$early" "$T/dfs2/$late" "$T/dfs1/$late"
        # dfs_fails DIR PATTERN: exit 2, the last line of stderr (after the workload's
        # warnings) matches
        dfs_fails() {
                "$P" analyze --compat 3.0 -p "$W" --save-dfs "$1" >/dev/null 2>"$T/err"; local rc=$?
                if [ $rc -eq 2 ] && tail -1 "$T/err" | grep -Eq -- "$2"; then
                        pass=$((pass + 1)); echo "ok   --save-dfs $1 fails: $2"
                else fail=$((fail + 1)); echo "FAIL --save-dfs $1 (exit $rc): $(tail -1 "$T/err")"; fi
        }
        dfs_fails "$T/dfsfile" "^prism: '$T/dfsfile' exists and is not a directory$"
        # report and message in one file: the whole report (as written alone), then the
        # message as the last line (not cut into the report at a buffer's end)
        "$P" analyze --compat 3.0 -p "$W" --save-dfs "$T/dfsfile" >"$T/both" 2>&1
        "$P" analyze --compat 3.0 -p "$W" >"$T/alone" 2>/dev/null
        if tail -1 "$T/both" | grep -q "^prism: '$T/dfsfile' exists and is not a directory$" &&
           grep -v '^prism: ' "$T/both" | cmp -s - "$T/alone"; then
                pass=$((pass + 1)); echo "ok   --save-dfs failure: the message after the whole report"
        else fail=$((fail + 1)); echo "FAIL --save-dfs failure: the message is not after the report"; fi
        dfs_fails "$T/dfs2" "^prism: cannot rename '$T/dfs2/10\.1_[^']*\.tmp\.[0-9]+' to '$T/dfs2/10\.1_[^']*': Is a directory$"
        dfs_fails "$T/dfs1" "^prism: cannot rename .* to '$T/dfs1/18\.5_[^']*': Is a directory$"
        ok=1 n=0
        for f in "$T"/dfsok/[0-9].*.csv "$T"/dfsok/1[0-7].*.csv; do
                cmp -s "$f" "$T/dfs1/${f##*/}" || ok=0
                n=$((n + 1))
        done
        if [ $ok -eq 1 ] && [ $n -gt 30 ]; then pass=$((pass + 1)); echo "ok   --save-dfs wrote the $n tables before the failing one";
        else fail=$((fail + 1)); echo "FAIL --save-dfs lost a table before the failing one ($n)"; fi
        check 0 "Change" analyze --compat 3.0 -p "$W" -p "$S/dispatch_0/MI200"
        # the same recording as rocprof-compute 3.3 shows it (its copy adds num_hbm_channels)
        S33=${PRISM_SHARED:-../shared}/rocprof-workloads-3.3
        if [ -d "$S33/vcopy/MI200" ]; then
                check 0 "2\.1 System Speed-of-Light" analyze -p "$S33/vcopy/MI200" -b 2
                check 0 "17\.1\.5 +│ HBM Bandwidth +│ 1638\.4" analyze -p "$S33/vcopy/MI200" -b 17.1
                check 0 "Instr per kernel" analyze -p "$S33/vcopy/MI200" -b 10.1
                check 0 "Instr per wave" analyze -p "$S33/vcopy/MI200" -b 10.1 --compat 3.0
                # -t: 3.3 shows time rows in its unit, but keeps other units (its "ns" bug)
                check 0 "7\.2\.0 +│ Kernel Time +│ 17\.44 .*│ us " analyze -p "$S33/vcopy/MI200" -b 7.2.0 -t us
                check 0 "10\.1\.0 +│ VALU +│ 163840\.0 .*Instr per kernel" analyze -p "$S33/vcopy/MI200" -b 10.1.0 -t us
                check 0 "15\.4 Vector L1 data-return path" analyze -p "$S33/vcopy/MI200" -b 15
                # sysinfo v3 with a clock of 0: peaks are inf, never a silent number
                check 0 "MFMA FLOPs \(F6F4\)" analyze -p "$S33/vcopy/MI350" -b 2.1
                check 2 "unknown architecture 'gfx950'" analyze --compat 3.0 -p "$S33/vcopy/MI350"
        fi
fi

# the bundled cut of a rocpd recording (tests/data/rocpd-vcopy): 3 dispatches, each lasting
# the median of its rows' End - Start (the rule of rocprof-compute 3.3, computed here apart)
F=tests/data/rocpd-vcopy
if command -v python3 >/dev/null; then
        sum=$(python3 -c 'import csv, statistics, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    d.setdefault(r["Dispatch_ID"], []).append(int(r["End_Timestamp"]) - int(r["Start_Timestamp"]))
print("%.2f" % sum(statistics.median(v) for v in d.values()))' "$F/pmc_perf.csv")
        check 0 "vecCopy.* 3\.00 │ ${sum//./\.} │" analyze -p "$F" -b 2
fi

# workload layouts (docs/FORMATS.md): an unknown or mixed layout is one line naming the file
# (built from the bundled rocpd cut and a wide workload)
if [ -d "$S/vcopy/MI200" ] && [ -f "$S/vcopy/MI300X_A1/SQ_LEVEL_WAVES.csv" ]; then
        L=$T/layouts; mkdir -p "$L/rocpd_csv" "$L/wide_rocpd" "$L/unkfmt" "$L/sysver" "$L/nokey" "$L/mixed"
        cp "$F"/*.csv "$F"/*.yaml "$L/rocpd_csv/"
        sed -i 's/^format_rocprof_output: rocpd/format_rocprof_output: csv/' "$L/rocpd_csv/profiling_config.yaml"
        cp "$F"/*.csv "$L/mixed/"; cp "$S/vcopy/MI300X_A1/SQ_LEVEL_WAVES.csv" "$L/mixed/"
        for d in wide_rocpd unkfmt sysver nokey; do cp "$S/vcopy/MI200"/*.csv "$L/$d/"; done
        echo "format_rocprof_output: rocpd" > "$L/wide_rocpd/profiling_config.yaml"
        echo "format_rocprof_output: parquet" > "$L/unkfmt/profiling_config.yaml"
        python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
rows[1][rows[0].index("version")] = "9"
csv.writer(open(sys.argv[1], "w", newline=""), lineterminator="\n").writerows(rows)' "$L/sysver/sysinfo.csv"
        sed -i '1s/Kernel_Name/Counter_Name/' "$L/nokey/pmc_perf.csv"
        check 2 "rocpd_csv/pmc_perf.csv: rocpd's long layout, but profiling_config.yaml says format_rocprof_output: csv" \
                analyze -p "$L/rocpd_csv"
        check 2 "wide_rocpd/pmc_perf.csv: the wide layout, but profiling_config.yaml says format_rocprof_output: rocpd" \
                analyze -p "$L/wide_rocpd"
        check 2 "unkfmt/profiling_config.yaml: format_rocprof_output 'parquet' is not a layout prism reads" \
                analyze -p "$L/unkfmt"
        check 2 "sysver/sysinfo.csv: layout version '9' is not one prism reads" analyze -p "$L/sysver"
        check 2 "nokey/pmc_perf.csv: a 'Counter_Name' column without 'Counter_Value'" analyze -p "$L/nokey"
        check 2 "mixed/SQ_LEVEL_WAVES.csv: an accumulate file, but pmc_perf.csv is in rocpd's long layout" \
                analyze -p "$L/mixed"
else
        skip=$((skip + 1))
fi

# the whole rocpd recording (../shared/rocprof-workloads-3.3, not bundled): 3 dispatches with
# 3.3's durations (Count, Sum, Mean and Median of its 0.1 Top Kernels)
R=${PRISM_SHARED:-../shared}/rocprof-workloads-3.3/vcopy
if [ -d "$R/MI300X_A1_rocpd" ]; then
        check 0 "vecCopy.* 3\.00 │ 22073\.00 │ +7357\.67 │ +6730\.00 │ 100\.00" analyze -p "$R/MI300X_A1_rocpd" -b 2
        check 0 "│ 2 │ +2 │ vecCopy" analyze -p "$R/MI300X_A1_rocpd" --list-stats
elif part_missing "rocprof-compute 3.3 recordings at $R"; then
        fail=$((fail + 1))
else
        skip=$((skip + 1))
fi

# the roofline's levels and ceilings are the family's data (metrics/*.yaml `roofline:`): a
# prism beside a data tree whose section is malformed or missing says so in one line, exit 2;
# --mem-level takes the workload family's level names
R=${PRISM_SHARED:-../shared}/rocprof-workloads-3.3/vcopy/MI200
if [ -d "$R" ]; then
        P0=$P
        P=$T/pb/prism
        mkdir -p "$T/pb"
        cp "$P0" "$P"
        cp -r metrics panels rules "$T/pb/"
        sed -i 's/kind: matrix, ops: roof.mfma_flops_f16/kind: tensor, ops: roof.mfma_flops_f16/' \
                "$T/pb/metrics/cdna.yaml"
        check 2 "pb/metrics/cdna\.yaml:[0-9]+:[0-9]+: roofline: a ceiling's kind is vector or matrix, not 'tensor'" \
                analyze -p "$R" -b 4
        cp metrics/cdna.yaml "$T/pb/metrics/"
        sed -i 's/^roofline:/unused_roofline:/' "$T/pb/metrics/cdna.yaml"
        check 2 "pb/metrics/cdna\.yaml: family cdna2 < cdna has no 'roofline:' section" \
                analyze -p "$R" -b 4
        check 0 "Speed-of-Light" analyze -p "$R" -b 2
        P=$P0
        check 2 "unknown memory level 'L3' \(HBM, L2, vL1D, LDS\)" analyze -p "$R" --mem-level L3
        check 0 "points: 2 L2, S LDS;" analyze -p "$R" -b 4 --mem-level lds l2
        check 2 "unknown memory level 'vL1X' \(DRAM, L2, L1, Shared\)" \
                analyze -p workloads-sample/stream/H100 --mem-level vL1X
        check 0 "points: H DRAM, 1 L1;" analyze -p workloads-sample/stream/H100 -b 4 --mem-level HBM vl1d
elif part_missing "rocprof-compute 3.3 recordings at $R"; then
        fail=$((fail + 1))
else
        skip=$((skip + 1))
fi

# prism roofline: the benchmark's roofline.csv is written when its header names the columns
# of a family's roofline (metrics/*.yaml roofline:), refused in one line when it does not
printf '#!/bin/sh\ncat "%s"\n' "$T/bench.csv" >"$T/fakebench"
chmod +x "$T/fakebench"
cp workloads-sample/stream/H100/roofline.csv "$T/bench.csv"
export PRISM_ROOFLINE_BIN=$T/fakebench
check 0 "wrote $T/rf/roofline.csv" roofline -o "$T/rf"
if cmp -s "$T/bench.csv" "$T/rf/roofline.csv"; then pass=$((pass + 1)); echo "ok   roofline.csv as printed";
else fail=$((fail + 1)); echo "FAIL roofline.csv differs from what the benchmark printed"; fi
sed -i '1s/,LDSBw,/,SharedBw,/' "$T/bench.csv"
check 2 "printed a roofline.csv header without the columns of any family's roofline" roofline -o "$T/rf2"
unset PRISM_ROOFLINE_BIN

# --save-dfs into a directory holding the same tables keeps each file (same inode); a file
# of the same size with other bytes is written anew
tcheck() { if eval "$2"; then pass=$((pass + 1)); echo "ok   $1"; else fail=$((fail + 1)); echo "FAIL $1"; fi; }
"$P" analyze -p "$S/vcopy/MI200" -b 2 --save-dfs "$T/dfs" >/dev/null 2>&1
f=$(ls "$T"/dfs/2.1_*.csv 2>/dev/null | head -1)
if [ -n "$f" ]; then
        cp "$f" "$T/dfs-orig.csv"
        ino=$(stat -c %i "$f")
        "$P" analyze -p "$S/vcopy/MI200" -b 2 --save-dfs "$T/dfs" >/dev/null 2>&1
        tcheck "--save-dfs keeps an identical file" '[ "$(stat -c %i "$f")" = "$ino" ] && cmp -s "$f" "$T/dfs-orig.csv"'
        # the same size, one digit changed
        sed -i '2s/[0-9]/X/' "$f"
        tcheck "the damaged copy has the same size" '[ "$(stat -c %s "$f")" = "$(stat -c %s "$T/dfs-orig.csv")" ] && ! cmp -s "$f" "$T/dfs-orig.csv"'
        "$P" analyze -p "$S/vcopy/MI200" -b 2 --save-dfs "$T/dfs" >/dev/null 2>&1
        tcheck "--save-dfs rewrites a file of the same size with other bytes" 'cmp -s "$f" "$T/dfs-orig.csv"'
else
        fail=$((fail + 1)); echo "FAIL --save-dfs wrote no 2.1 table"
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
