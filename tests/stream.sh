#!/usr/bin/env bash
# Streaming evaluation (src/analyze/stream.c) gives the in-memory evaluation's numbers: a
# generated 10,000-dispatch workload analyzed with every panel, --save-dfs compared byte
# for byte between one chunk of every row with every value in memory (the in-memory
# evaluation) and chunks of 1,000 rows (and 777: chunks that cut numpy's pairwise blocks)
# with the values in a temporary file. Also with filters (-k, -d, --gpu-id) and a
# normalization whose formulas differ.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
S=${PRISM_SHARED:-../shared}/rocprof-workloads
BASE=$S/vcopy/MI200
pass=0 fail=0 skip=0
done_() { echo "$pass passed, $fail failed, $skip skipped"; [ "$fail" -eq 0 ]; exit; }
if [ ! -f "$BASE/pmc_perf.csv" ] || ! command -v python3 >/dev/null; then
        echo "SKIP stream: no shared workload at $BASE (or no python3)"; skip=1; done_
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
python3 bench/gen-workload.py "$BASE" 10000 "$T/w" 50
for opts in "" "-k 0 1 2" "-d 5 17 9000" "-n per_second -t us" "-b 16 18"; do
        # shellcheck disable=SC2086
        PRISM_EVAL_CHUNK=100000000 PRISM_EVAL_VALUES_MB=100000 "$P" analyze -p "$T/w" $opts \
                --save-dfs "$T/ref" >/dev/null 2>"$T/err.ref"
        for chunk in 1000 777; do
                rm -rf "$T/st"
                # shellcheck disable=SC2086
                PRISM_EVAL_CHUNK=$chunk PRISM_EVAL_VALUES_MB=0 "$P" analyze -p "$T/w" $opts \
                        --save-dfs "$T/st" >/dev/null 2>"$T/err.st"
                if [ -n "$(ls "$T/ref")" ] && diff -r "$T/ref" "$T/st" >/dev/null &&
                   cmp -s "$T/err.ref" "$T/err.st"; then
                        pass=$((pass + 1)); echo "ok   chunks of $chunk, values on disk = one chunk in memory: ${opts:-every panel}"
                else
                        fail=$((fail + 1)); echo "FAIL chunks of $chunk: ${opts:-every panel}"
                        diff -r "$T/ref" "$T/st" | head -5
                fi
        done
        rm -rf "$T/ref"
done
done_
