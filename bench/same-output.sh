#!/usr/bin/env bash
# Does a changed prism print the same as a reference binary? For a speed change, the answer
# must be yes on every recording: the text report, stderr, --save-dfs files and the exit code
# of each shared and bundled workload under several option sets, and --plot-dir's SVGs.
# Usage: bench/same-output.sh REF_PRISM [NEW_PRISM]      (NEW defaults to ./prism)
# REF_ARGS, NEW_ARGS: options given to one binary only after "analyze", such as
# NEW_ARGS="--width 0" to compare a binary whose tables fit the terminal with one whose
# tables do not (REF_ARGS="--width 0" when both have the option).
# Prints one line per difference and a summary; exits 1 when anything differs.
set -u
cd "$(dirname "$0")/.."
ref=$1 new=${2:-./prism}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export PRISM_DATA_DIR=${PRISM_DATA_DIR:-$PWD} COLUMNS=120
dirs=()
for d in ../shared/rocprof-workloads*/*/*/ workloads-sample/*/*/ tests/data/*/*/; do
        [ -f "$d/pmc_perf.csv" ] || [ -f "$d/sysinfo.csv" ] && dirs+=("${d%/}")
done
sets=("" "--compat 3.0 -n per_second --decimal 4" "-b 2 16.1 -k 0" "--list-stats")
n=0 bad=0
run() { # $1 binary, $2 out dir, rest: arguments
        local b=$1 o=$2 extra
        shift 2
        extra=$([ "$b" = "$ref" ] && echo "${REF_ARGS:-}" || echo "${NEW_ARGS:-}")
        mkdir -p "$o"
        # shellcheck disable=SC2086
        "$b" analyze $extra "$@" >"$o/stdout" 2>"$o/stderr"
        echo $? >"$o/rc"
}
for d in "${dirs[@]}"; do
        for s in "${sets[@]}"; do
                # shellcheck disable=SC2086
                run "$ref" "$tmp/a" -p "$d" $s --save-dfs "$tmp/a/dfs"
                # shellcheck disable=SC2086
                run "$new" "$tmp/b" -p "$d" $s --save-dfs "$tmp/b/dfs"
                sed -i "s#$tmp/[ab]/#T/#g" "$tmp"/a/stderr "$tmp"/b/stderr
                n=$((n + 1))
                if ! diff -r -q "$tmp/a" "$tmp/b" >/dev/null; then
                        echo "DIFFERS: $d [$s]: $(diff -r -q "$tmp/a" "$tmp/b" | head -3 | tr '\n' ' ')"
                        bad=$((bad + 1))
                fi
                rm -rf "$tmp/a" "$tmp/b"
        done
done
# figures and a comparison of two recordings
m=../shared/rocprof-workloads/vcopy
if [ -d $m/MI200 ] && [ -d $m/MI300X ]; then
        run "$ref" "$tmp/a" -p $m/MI200 --plot-dir "$tmp/a/svg"
        run "$new" "$tmp/b" -p $m/MI200 --plot-dir "$tmp/b/svg"
        run "$ref" "$tmp/a/c" -p $m/MI200 -p $m/MI300X
        run "$new" "$tmp/b/c" -p $m/MI200 -p $m/MI300X
        sed -i "s#$tmp/[ab]/#T/#g" "$tmp"/a/stderr "$tmp"/b/stderr
        n=$((n + 2))
        diff -r -q "$tmp/a" "$tmp/b" >/dev/null || { echo "DIFFERS: --plot-dir / comparison"; bad=$((bad + 1)); }
fi
echo "same-output: $((n - bad)) of $n runs identical"
[ "$bad" -eq 0 ]
