#!/usr/bin/env bash
# The SQLite store and multi-rank trees on every shared workload:
#  - each workload directory imported with `prism database --import` analyzes to exactly the
#    same tables (--save-dfs, byte for byte) and report as the directory itself, read in
#    memory and streamed (PRISM_STREAM_MB=0);
#  - a directory the reference rejects is refused by --import with the same one-line error;
#  - a multi-rank tree built from copies of shared workloads shows every rank (panel 19),
#    `--rank N` gives that rank's own numbers, and the tree of imported databases (attached
#    together) gives the same tables as the tree of directories.
# Prints "N passed, N failed, N skipped"; exit 1 on failure.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
P=$(cd "$(dirname "$P")" && pwd)/$(basename "$P")
. tests/data-dir.sh
pass=0 fail=0 skip=0

ok() { pass=$((pass + 1)); echo "ok   $*"; }
bad() { fail=$((fail + 1)); echo "FAIL $*"; }

[ -d "$S/vcopy/MI200" ] || no_data db "shared workloads at $S"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ---- every shared case: directory vs imported database ----
for d in "$S"/*/*/; do
        d=${d%/}
        case=$(basename "$(dirname "$d")")/$(basename "$d")
        id=${case//\//_}
        if [ ! -f "$d/pmc_perf.csv" ]; then
                # the reference rejects it; analyze and --import must refuse it alike
                e1=$("$P" analyze -p "$d" 2>&1 >/dev/null); r1=$?
                e2=$("$P" database --import "$d" --db "$T/$id.db" 2>&1 >/dev/null); r2=$?
                if [ $r1 -eq 2 ] && [ $r2 -eq 2 ] && [ "$e1" = "$e2" ] && [ ! -e "$T/$id.db" ] &&
                   [ "$(printf '%s\n' "$e2" | wc -l)" -eq 1 ]; then
                        ok "$case refused: $e2"
                else
                        bad "$case: analyze said '$e1' ($r1), --import said '$e2' ($r2)"
                fi
                continue
        fi
        if ! out=$("$P" database --import "$d" --db "$T/$id.db" 2>&1); then
                bad "$case: import failed: $out"
                continue
        fi
        "$P" analyze -p "$d" --save-dfs "$T/$id.dir" >"$T/$id.dir.txt" 2>/dev/null; r1=$?
        "$P" analyze -p "$T/$id.db" --save-dfs "$T/$id.dbd" >"$T/$id.db.txt" 2>/dev/null; r2=$?
        # streamed as a large database is (its pass tables' pages decoded directly)
        PRISM_STREAM_MB=0 "$P" analyze -p "$T/$id.db" --save-dfs "$T/$id.dbs" >/dev/null 2>&1; r3=$?
        if [ $r1 -ne 0 ] || [ $r2 -ne 0 ] || [ $r3 -ne 0 ]; then
                bad "$case: analyze exit $r1 (directory) / $r2 (database) / $r3 (streamed)"
        elif ! diff -r "$T/$id.dir" "$T/$id.dbd" >"$T/$id.diff" ||
             ! diff -r "$T/$id.dir" "$T/$id.dbs" >>"$T/$id.diff"; then
                bad "$case: tables differ: $(head -3 "$T/$id.diff" | tr '\n' ' ')"
        elif ! cmp -s <(sed "s|$d|WORKLOAD|g" "$T/$id.dir.txt") \
                      <(sed "s|$T/$id.db|WORKLOAD|g" "$T/$id.db.txt"); then
                bad "$case: reports differ (beyond the workload's path)"
        else
                ok "$case: database = directory ($(ls "$T/$id.dir" | wc -l) tables)"
        fi
done

# options go through the same selection on both stores
d=$S/vcopy/MI200
for opts in "-b 2 16.1" "-k 0" "-d 1" "-n per_second -t us" "--gpu-id 2" "--list-stats"; do
        # shellcheck disable=SC2086
        a=$("$P" analyze -p "$d" $opts 2>/dev/null); b=$("$P" analyze -p "$T/vcopy_MI200.db" $opts 2>/dev/null)
        if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "vcopy/MI200 $opts: database = directory"
        else bad "vcopy/MI200 $opts: outputs differ"; fi
done

# the database is queryable by people: wide views, kernels, plan
if command -v sqlite3 >/dev/null; then
        n=$(sqlite3 "$T/vcopy_MI200.db" "SELECT count(*) FROM pmc_perf; SELECT count(*) FROM kernel_stats; SELECT count(DISTINCT file) > 20 FROM plan; SELECT count(*) FROM SQ_LEVEL_WAVES" | tr '\n' ' ')
        if [ "$n" = "3 1 1 3 " ]; then ok "tables: pmc_perf, SQ_LEVEL_WAVES, kernel_stats, plan"
        else bad "tables: got '$n'"; fi
        v=$(sqlite3 "$T/vcopy_MI200.db" 'SELECT "SQ_WAVES" FROM pmc_perf WHERE dispatch = 1')
        w=$(awk -F, 'NR==1{for(i=1;i<=NF;i++) if($i=="SQ_WAVES") c=i} NR==3{print $c}' <(sed 's/"[^"]*"/K/g' "$d/pmc_perf.csv"))
        if [ -n "$v" ] && [ "$v" = "$w" ]; then ok "pass table value SQ_WAVES = $v"
        else bad "pass table value: '$v' vs csv '$w'"; fi
        # a database of schema version 1 (a row per cell): one line naming the version
        cp "$T/vcopy_MI200.db" "$T/v1.db"
        sqlite3 "$T/v1.db" "UPDATE meta SET value = '1' WHERE key = 'schema_version'"
        for mb in 32 0; do # in memory, and streamed as a large one is
                e=$(PRISM_STREAM_MB=$mb "$P" analyze -p "$T/v1.db" 2>&1); r=$?
                if [ $r -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ] &&
                   printf '%s' "$e" | grep -q "schema version 1, this prism reads version 2 (import"; then
                        ok "old schema (PRISM_STREAM_MB=$mb): $e"
                else bad "old schema (PRISM_STREAM_MB=$mb): $e ($r)"; fi
        done
else
        skip=$((skip + 1)); echo "SKIP views: no sqlite3 command"
fi

# no replacing without --force; --db for a missing directory
if ! "$P" database --import "$d" --db "$T/vcopy_MI200.db" >/dev/null 2>&1 &&
   "$P" database --import "$d" --db "$T/vcopy_MI200.db" --force >/dev/null 2>&1; then
        ok "existing database: refused, replaced with --force"
else
        bad "existing database handling"
fi
e=$("$P" database --import "$T/nope" 2>&1); r=$?
if [ $r -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]; then ok "missing directory: $e"
else bad "missing directory: $e ($r)"; fi
e=$("$P" analyze -p "$T/nope.db" 2>&1); r=$?
if [ $r -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]; then ok "missing database: $e"
else bad "missing database: $e ($r)"; fi

# ---- multi-rank trees ----
R=$T/run
mk() { mkdir -p "$R/$1"; cp -r "$S/$2/MI200" "$R/$1/"; chmod -R u+w "$R/$1"; }
mk nodeA/rank0 vcopy
mk nodeA/rank1 dispatch_0
mk nodeB/rank2 no_roof
mk nodeB/rank3 join_type_kernel
if out=$("$P" analyze -p "$R" 2>/dev/null) && printf '%s\n' "$out" | grep -q "^19. Ranks" &&
   printf '%s\n' "$out" | grep -q "19.3 Speed-of-Light Spread across Ranks"; then
        ok "tree: panel 19 shows the ranks"
else
        bad "tree: no panel 19"
fi
"$P" analyze -p "$R" --save-dfs "$T/tree.dfs" >/dev/null 2>&1
rows=$(($(wc -l <"$T/tree.dfs/19.1_Kernel_Time_per_Rank.csv") - 1))
if [ "$rows" -eq 4 ]; then ok "tree: 4 ranks in 19.1"; else bad "tree: $rows ranks in 19.1"; fi
if "$P" analyze -p "$S/vcopy/MI200" 2>/dev/null | grep -q "^19. Ranks"; then bad "one rank shows panel 19"
else ok "one workload: no panel 19"; fi
# --rank N: that rank's own numbers (metric tables; the built-in tables number rows globally)
for n in 0 1 2 3; do
        rd=$(ls -d "$R"/*/rank$n/MI200)
        "$P" analyze -p "$R" --rank $n --save-dfs "$T/r$n.tree" >/dev/null 2>&1
        "$P" analyze -p "$rd" --save-dfs "$T/r$n.one" >/dev/null 2>&1
        difs=0
        for f in "$T/r$n.one"/*.csv; do
                b=$(basename "$f")
                case $b in 0.*|1.*|4.*) continue ;; esac
                cmp -s "$f" "$T/r$n.tree/$b" || { difs=$((difs + 1)); echo "     differs: $b"; }
        done
        if [ $difs -eq 0 ] && [ ! -e "$T/r$n.tree/19.1_Kernel_Time_per_Rank.csv" ]; then
                ok "tree --rank $n = rank $n alone"
        else
                bad "tree --rank $n: $difs tables differ"
        fi
done
e=$("$P" analyze -p "$S/vcopy/MI200" --rank 1 2>&1); r=$?
if [ $r -eq 2 ] && printf '%s' "$e" | grep -q "not a multi-rank workload"; then ok "--rank on one workload: $e"
else bad "--rank on one workload: $e ($r)"; fi
# the same tree as databases only: attached together, the same tables
if "$P" database --import "$R" >/dev/null 2>&1; then
        D=$T/dbrun
        for rd in "$R"/*/rank*; do
                mkdir -p "$D/${rd#"$R"/}"
                cp "$rd"/MI200/prism.db "$D/${rd#"$R"/}/"
        done
        "$P" analyze -p "$D" --save-dfs "$T/tree.db.dfs" >/dev/null 2>&1
        if diff -r "$T/tree.dfs" "$T/tree.db.dfs" >/dev/null; then ok "tree of databases = tree of directories"
        else bad "tree of databases differs"; fi
else
        bad "tree import failed"
fi
# more ranks than SQLite attaches at once (10): read in batches
B=$T/big
for n in $(seq 0 11); do
        mkdir -p "$B/n$((n % 3))/rank$n"
        cp "$T/vcopy_MI200.db" "$B/n$((n % 3))/rank$n/prism.db"
done
if out=$("$P" analyze -p "$B" -b 19.1 --save-dfs "$T/big.dfs" 2>&1) &&
   [ "$(($(wc -l <"$T/big.dfs/19.1_Kernel_Time_per_Rank.csv") - 1))" -eq 12 ]; then
        ok "12 database ranks (batches of attached databases)"
else
        bad "12 database ranks: $(printf '%s\n' "$out" | tail -3)"
fi
# the same rank on two nodes is refused
mkdir -p "$B/n9/rank3" && cp "$T/vcopy_MI200.db" "$B/n9/rank3/prism.db"
e=$("$P" analyze -p "$B" 2>&1); r=$?
if [ $r -eq 2 ] && printf '%s' "$e" | grep -q "rank 3 was recorded on two nodes"; then ok "duplicate rank refused"
else bad "duplicate rank: $e ($r)"; fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
