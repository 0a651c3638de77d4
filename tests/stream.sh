#!/usr/bin/env bash
# Streaming (src/analyze/stream.c, wstream.c) gives the in-memory analysis' numbers and
# warnings: a generated 10,000-dispatch workload analyzed with every panel, --save-dfs and
# stderr compared byte for byte between the in-memory reference (every column loaded, one
# chunk of every row, every value in memory) and: the directory streamed (read once into
# a temporary file, evaluated block by block, values on disk), and the loaded columns
# evaluated in chunks of 777 rows (chunks that cut numpy's pairwise blocks). Also with
# filters (-k, -d), another normalization, two panels, and damaged cells, a dispatch that
# ends before it starts and a repeated Dispatch_ID (warnings in the same order). The same
# workload imported into a database gives the same tables streamed (its pages decoded
# directly, and through SQL: PRISM_DB_SQL) and in memory, and the same warnings both ways.
# A copy whose per-channel counters take every width of the coded kept values (1, 2, 4
# bytes, doubles, one value) gives the same tables in memory, in a file and in chunks.
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
# a damaged copy: text and a negative count, an end before the start, a repeated id
mkdir -p "$T/bad" && cp "$T/w"/*.csv "$T/bad/"
python3 - "$T/bad/pmc_perf.csv" <<'PY'
import csv, sys
p = sys.argv[1]
rows = list(csv.reader(open(p, newline="")))
h = rows[0]
rows[5001][h.index("SQ_WAVES")] = "lots"
rows[7][h.index("TCC_HIT[3]")] = "-4"
rows[9000][h.index("Dispatch_ID")] = "12"
s, e = h.index("Start_Timestamp"), h.index("End_Timestamp")
rows[4100][s], rows[4100][e] = rows[4100][e], rows[4100][s]
csv.writer(open(p, "w", newline=""), lineterminator="\n").writerows(rows)
PY
# a copy whose per-channel L2 counters take every width the kept values are coded in
# (src/store/vcode.c): below 2^8 in the first block of rows, up to 2^32 - 1 in the second,
# below 2^16 with a fraction and a -0 in the third; 2^32 and 2^40 in the last rows
mkdir -p "$T/wide" && cp "$T/w"/*.csv "$T/wide/"
python3 - "$T/wide/pmc_perf.csv" <<'PY'
import csv, re, sys
p = sys.argv[1]
rows = list(csv.reader(open(p, newline="")))
h = rows[0]
cols = [i for i, c in enumerate(h) if re.match(r"TCC_\w+\[\d+\]$", c)]
for r in range(1, len(rows)):
    for j, c in enumerate(cols):
        x = r * 7 + j * 13
        rows[r][c] = str(x % 200 if r <= 4096 else x * 2654435761 % 2**32 if r <= 8192
                         else x % 60000)
rows[8500][cols[0]] = "0.5"
rows[9500][cols[1]] = "-0"
rows[9990][cols[2]] = str(2**32)
rows[9991][cols[3]] = str(2**40)
csv.writer(open(p, "w", newline=""), lineterminator="\n").writerows(rows)
PY
run() { # run NAME WORKLOAD OPTS...: --save-dfs into $T/NAME, stderr into $T/NAME.err
        local name=$1 wl=$2; shift 2
        rm -rf "$T/$name"
        "$P" analyze -p "$wl" "$@" --save-dfs "$T/$name" >/dev/null 2>"$T/$name.err"
        sed -i "s|$wl|WL|g" "$T/$name.err"
}
for w in w bad wide; do
        "$P" database --import "$T/$w" --db "$T/$w.db" >/dev/null 2>&1 ||
                { fail=$((fail + 1)); echo "FAIL database --import $w"; }
done
for opts in "" "-k 0 1 2" "-d 5 17 9000" "-n per_second -t us" "-b 16 18" WIDE BAD; do
        wl=$T/w
        [ "$opts" = BAD ] && { wl=$T/bad; opts=""; }
        [ "$opts" = WIDE ] && { wl=$T/wide; opts=""; }
        # the database: streamed (by pages, by SQL) and in memory, tables as the directory's
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=0 run dbs "$wl.db" $opts
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=0 PRISM_DB_SQL=1 run dbsql "$wl.db" $opts
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=100000 run dbm "$wl.db" $opts
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=100000 PRISM_EVAL_CHUNK=100000000 PRISM_EVAL_VALUES_MB=100000 run ref "$wl" $opts
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=0 PRISM_EVAL_VALUES_MB=0 run streamed "$wl" $opts
        # shellcheck disable=SC2086
        PRISM_STREAM_MB=100000 PRISM_EVAL_CHUNK=777 PRISM_EVAL_VALUES_MB=0 run chunked "$wl" $opts
        for v in streamed chunked; do
                what="$v = in memory: $(basename "$wl") ${opts:-every panel}"
                if [ -n "$(ls "$T/ref")" ] && diff -r "$T/ref" "$T/$v" >/dev/null &&
                   cmp -s "$T/ref.err" "$T/$v.err"; then
                        pass=$((pass + 1)); echo "ok   $what"
                else
                        fail=$((fail + 1)); echo "FAIL $what"
                        diff -r "$T/ref" "$T/$v" | head -5; diff "$T/ref.err" "$T/$v.err" | head -5
                fi
        done
        for v in dbs dbsql dbm; do
                what="$v = in memory: $(basename "$wl").db ${opts:-every panel}"
                if diff -r "$T/ref" "$T/$v" >/dev/null && cmp -s "$T/dbm.err" "$T/$v.err"; then
                        pass=$((pass + 1)); echo "ok   $what"
                else
                        fail=$((fail + 1)); echo "FAIL $what"
                        diff -r "$T/ref" "$T/$v" | head -5; diff "$T/dbm.err" "$T/$v.err" | head -5
                fi
        done
done
grep -q "End_Timestamp is before" "$T/ref.err" && grep -q "Dispatch_ID 12 also at line" "$T/ref.err" &&
        grep -q "holds 'lots'" "$T/ref.err" && pass=$((pass + 1)) ||
        { fail=$((fail + 1)); echo "FAIL the damaged copy gives no warnings:"; cat "$T/ref.err"; }
# every hostile input of tests/hostile.sh, streamed: the same errors and warnings
if out=$(PRISM_STREAM_MB=0 tests/hostile.sh 2>&1); then
        pass=$((pass + 1)); echo "ok   hostile inputs, streamed: $(printf '%s\n' "$out" | tail -1)"
else
        fail=$((fail + 1)); echo "FAIL hostile inputs, streamed:"; printf '%s\n' "$out" | grep FAIL | head
fi
done_
