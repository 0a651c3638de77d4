#!/usr/bin/env bash
# CLI tests as rows: arguments, expected exit code, a pattern the output must contain.
# Bad input must give exactly one line on stderr and exit code 2.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
S=${PRISM_SHARED:-../shared}/rocprof-workloads
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
check 2 "unknown --compat version '2\.9' \(3\.0, 3\.3\)" analyze --list-metrics gfx90a --compat 2.9
check 2 "option '--compat' needs a value" analyze -p . --compat

if [ -d "$S/vcopy/MI200" ]; then
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
else
        echo "SKIP cli: no shared workloads at $S"
        skip=$((skip + 1))
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
