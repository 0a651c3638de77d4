#!/usr/bin/env bash
# prism under valgrind: a full analyze of a shared MI200 workload with every
# table saved, and a few other paths (comparison, damaged input, an error exit), each with
# no memory error and no definite or indirect leak. Rows: expected exit | what | args.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
. tests/data-dir.sh
W=$S/vcopy/MI200
pass=0 fail=0 skip=0

done_() { echo "$pass passed, $fail failed, $skip skipped"; [ "$fail" -eq 0 ]; exit; }
if ! command -v valgrind >/dev/null; then
        echo "SKIP valgrind: not installed (make deps)"; skip=1; done_
fi
[ -f "$W/pmc_perf.csv" ] || no_data valgrind "shared workload at $W"
# a sanitizer build (make asan) cannot run under valgrind
if { ldd "$P" 2>/dev/null | grep -q libasan; } || { nm "$P" 2>/dev/null | grep -q __asan_init; }; then
        echo "SKIP valgrind: $P is an AddressSanitizer build"; skip=1; done_
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# a damaged copy: text in a counter cell, a sysinfo field missing (warnings, then a report)
mkdir -p "$T/bad"
cp -r "$W"/. "$T/bad/"
chmod -R u+w "$T/bad"
sed -i '3s/,16384,/,lots,/' "$T/bad/pmc_perf.csv"
sed -i '1s/,cu_per_gpu,/,cu_per_gpux,/' "$T/bad/sysinfo.csv"
mkdir -p "$T/trunc"
cp "$W/sysinfo.csv" "$T/trunc/"
head -c -300 "$W/pmc_perf.csv" > "$T/trunc/pmc_perf.csv"
# a 10 MB field: libcsv's buffer grows geometrically (a fixed step copies quadratically:
# minutes under valgrind), and the field is refused with one line
mkdir -p "$T/big"
cp "$W/sysinfo.csv" "$T/big/"
{ head -2 "$W/pmc_perf.csv"; printf '"'; head -c 10000000 /dev/zero | tr '\0' k; printf '",'
  tail -n +3 "$W/pmc_perf.csv" | head -1 | cut -d, -f2-; } > "$T/big/pmc_perf.csv"

VG=(valgrind --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --track-origins=yes -q)
n=0
row() {
        local want=$1 what=$2; shift 2
        n=$((n + 1))
        local rc
        timeout 600 "${VG[@]}" "$P" "$@" >"$T/out$n" 2>"$T/err$n"; rc=$?
        if [ $rc -eq "$want" ] && ! grep -q "^==[0-9]*==" "$T/err$n"; then
                pass=$((pass + 1)); echo "ok   [$n] $what"
        else
                fail=$((fail + 1)); echo "FAIL [$n] $what (exit $rc, want $want)"
                grep "^==[0-9]*==" "$T/err$n" | head -30
        fi
}

row 0 "full analyze of vcopy/MI200, every table saved" analyze -p "$W" --save-dfs "$T/dfs"
row 0 "two workloads compared, tables saved" analyze -p "$W" -p "$S/dispatch_0/MI200" --save-dfs "$T/dfs2"
row 0 "a damaged workload: warnings, then the report" analyze -p "$T/bad"
row 2 "a truncated workload: the error exit frees everything" analyze -p "$T/trunc"
row 0 "--list-metrics" analyze --list-metrics gfx90a
s=$(date +%s)
row 2 "a 10 MB field: a one-line error" analyze -p "$T/big"
e=$(( $(date +%s) - s ))
if [ "$e" -lt 30 ] && [ "$(grep -c '' <"$T/err$n")" -eq 1 ] && grep -q "pmc_perf.csv:3: a field longer than" "$T/err$n"; then
        pass=$((pass + 1)); echo "ok   [$n] ... in $e s (< 30 s), one line: $(cat "$T/err$n")"
else
        fail=$((fail + 1)); echo "FAIL [$n] 10 MB field: $e s, stderr: $(head -c 300 "$T/err$n")"
fi
[ -n "$(ls "$T/dfs" 2>/dev/null)" ] || { fail=$((fail + 1)); echo "FAIL --save-dfs wrote nothing"; }
done_
