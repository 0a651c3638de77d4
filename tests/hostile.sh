#!/usr/bin/env bash
# Hostile inputs: malformed workloads built from a shared MI200 workload, as rows:
#   expected exit | pattern (ERE) | metrics the damage cannot touch | what is broken | how
# Exit 2: exactly one line on stderr, matching the pattern (it names the file, and the line
# where one applies). Exit 0: the pattern is a warning on stderr (SAME: stderr as for the
# clean workload), and the untouched metrics (ids "2.1.0", whole tables "0.1:*", or ALL)
# equal the clean workload's in --save-dfs output. Every run has a timeout: no hangs; and a
# signal or a sanitizer report is a failure: no crashes. Policy: docs/HARDENING.md.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
. tests/data-dir.sh
SRC=$S/vcopy/MI200
TO=${HOSTILE_TIMEOUT:-60}
pass=0 fail=0 skip=0

[ -f "$SRC/pmc_perf.csv" ] || no_data hostile "shared workload at $SRC"
if ! command -v python3 >/dev/null; then
        echo "SKIP hostile: no python3"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
fi
case $P in /*) ;; *) P=$PWD/$P ;; esac
SRC=$(cd "$SRC" && pwd)
T=$(mktemp -d)
[ -n "${HOSTILE_KEEP:-}" ] || trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT

# CSV surgery that keeps quoting right: edit.py FILE OP ARGS (rows are data rows, 0-based)
cat > "$T/edit.py" <<'EOF'
import csv, os, sys
path, op = sys.argv[1], sys.argv[2]
args = [os.fsencode(a).decode('latin-1') for a in sys.argv[3:]]  # any bytes, as given
with open(path, newline='', encoding='latin-1') as f:
    rows = list(csv.reader(f))
h = rows[0]
if op == 'set':            # set ROW COLUMN VALUE
    rows[int(args[0]) + 1][h.index(args[1])] = args[2]
elif op == 'dropcol':      # dropcol COLUMN
    i = h.index(args[0])
    for r in rows: del r[i]
elif op == 'dupcol':       # dupcol COLUMN: the column again at the end, other values
    i = h.index(args[0])
    for n, r in enumerate(rows): r.append(r[i] if n == 0 else str(int(float(r[i])) * 2 + 7))
elif op == 'addfield':     # addfield ROW: one field too many
    rows[int(args[0]) + 1].append('1')
elif op == 'delfield':     # delfield ROW: one field too few
    del rows[int(args[0]) + 1][-1]
elif op == 'names':        # names TEXT: every kernel name
    for r in rows[1:]: r[h.index('Kernel_Name')] = args[0]
elif op == 'swapts':       # swapts ROW: End_Timestamp before Start_Timestamp
    r = rows[int(args[0]) + 1]
    s, e = h.index('Start_Timestamp'), h.index('End_Timestamp')
    r[s], r[e] = r[e], r[s]
elif op in ('setc', 'dupc', 'delc', 'setk'):  # rocpd rows by DISPATCH COUNTER
    d, c, n = h.index('Dispatch_ID'), h.index('Counter_Name'), h.index('Counter_Value')
    i = next(i for i, r in enumerate(rows) if i and r[d] == args[0] and r[c] == args[1])
    if op == 'setc':       # setc D C VALUE: its Counter_Value
        rows[i][n] = args[2]
    elif op == 'dupc':     # dupc D C VALUE: the row again, at the end, with VALUE
        rows.append(rows[i][:n] + [args[2]] + rows[i][n + 1:])
    elif op == 'delc':     # delc D C: no row for it
        del rows[i]
    else:                  # setk D C COLUMN VALUE: another field of its row
        rows[i][h.index(args[2])] = args[3]
elif op == 'setd':         # setd D COLUMN VALUE: that field of every row of dispatch D
    d = h.index('Dispatch_ID')
    for r in rows[1:]:
        if r[d] == args[0]: r[h.index(args[1])] = args[2]
elif op == 'addc':         # addc D C NAME VALUE: a copy of that row, as counter NAME
    d, c, n = h.index('Dispatch_ID'), h.index('Counter_Name'), h.index('Counter_Value')
    r = next(r for i, r in enumerate(rows) if i and r[d] == args[0] and r[c] == args[1])
    r = list(r); r[c] = args[2]; r[n] = args[3]; rows.append(r)
elif op == 'sparse':       # sparse N: N dispatches of one counter each, each its own counter
    d, c = h.index('Dispatch_ID'), h.index('Counter_Name')
    base = rows[1]
    rows[1:] = []
    for i in range(int(args[0])):
        r = list(base); r[d] = str(i + 1); r[c] = 'C%d_ACCUM' % i; rows.append(r)
elif op == 'shuffle':      # shuffle SEED: the data rows in another order
    import random
    body = rows[1:]; random.Random(int(args[0])).shuffle(body); rows[1:] = body
with open(path, 'w', newline='', encoding='latin-1') as f:
    csv.writer(f, lineterminator='\n').writerows(rows)
EOF
ed() { python3 "$T/edit.py" "$@"; }
junk() { python3 -c "import random,sys; random.seed($2); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range($1)))"; }

# the clean workload: the reference for every untouched number
mkdir -p "$T/clean"
cp -r "$SRC"/. "$T/clean/"
chmod -R u+w "$T/clean"
# the 3.0 recording is analyzed as rocprof-compute 3.0 does (its sysinfo has no
# num_hbm_channels, which 3.3's HBM bandwidth reads); the rocpd one below as 3.3 does
COMPAT="--compat 3.0"
if ! timeout "$TO" "$P" analyze $COMPAT -p "$T/clean" --save-dfs "$T/clean.dfs" >"$T/clean.out" 2>"$T/clean.err"; then
        echo "FAIL hostile: the clean workload does not analyze"
        echo "0 passed, 1 failed, 0 skipped"
        exit 1
fi

# the --save-dfs CSV of table id X.Y
dfs_file() { ls "$1/$2"_*.csv "$1/$2".csv 2>/dev/null | head -1; }

# untouched DIR SPEC...: each spec's numbers equal the clean workload's
untouched() {
        local d=$1 s f line; shift
        for s in "$@"; do
                case $s in
                ALL) diff -r -q "$T/clean.dfs" "$d" >/dev/null || { echo "  differs: $(diff -r -q "$T/clean.dfs" "$d" | head -3)"; return 1; } ;;
                *:\*) f=$(dfs_file "$T/clean.dfs" "${s%:*}"); [ -n "$f" ] || { echo "  no table ${s%:*}"; return 1; }
                        cmp -s "$f" "$d/$(basename "$f")" || { echo "  table ${s%:*} differs"; return 1; } ;;
                *) f=$(dfs_file "$T/clean.dfs" "${s%.*}"); [ -n "$f" ] || { echo "  no table ${s%.*}"; return 1; }
                        line=$(grep -m1 "^$s," "$f")
                        [ -n "$line" ] && grep -qxF -- "$line" "$d/$(basename "$f")" 2>/dev/null ||
                                { echo "  $s: '$line' became '$(grep -m1 "^$s," "$d/$(basename "$f")" 2>/dev/null)'"; return 1; } ;;
                esac
        done
}

# same_db DIR: DIR imported into DIR.pdb analyzes as DIR did (DIR.dfs), in memory and streamed
same_db() {
        local d=$1 m
        # shellcheck disable=SC2086
        timeout "$TO" "$P" database --import "$d" --db "$d.pdb" >/dev/null 2>"$d.imp" ||
                { echo "import: $(grep -v warning "$d.imp" | head -1)"; return 1; }
        for m in "" 0; do
                # shellcheck disable=SC2086
                PRISM_STREAM_MB=$m timeout "$TO" "$P" analyze $COMPAT -p "$d.pdb" --save-dfs "$d.db$m" >/dev/null 2>&1 ||
                        { echo "the database${m:+ streamed} does not analyze"; return 1; }
                diff -r -q "$d.dfs" "$d.db$m" >/dev/null ||
                        { echo "the database${m:+ streamed} differs: $(diff -r -q "$d.dfs" "$d.db$m" | head -2 | tr '\n' ' ')"; return 1; }
        done
}

n=0
# row WANT PATTERN UNTOUCHED WHAT SETUP: SETUP runs with $D a fresh copy of the workload
row() {
        local want=$1 pat=$2 keep=$3 what=$4 setup=$5
        n=$((n + 1))
        local D=$T/w$n ok=1 why=""
        mkdir -p "$D"; cp -r "$SRC"/. "$D/"; chmod -R u+w "$D"
        if ! (cd "$T" && eval "$setup") >"$T/setup.log" 2>&1; then
                fail=$((fail + 1)); echo "FAIL [$n] $what: setup failed: $(head -2 "$T/setup.log")"; return
        fi
        local rc
        # shellcheck disable=SC2086
        timeout "$TO" "$P" analyze $COMPAT -p "$D" --save-dfs "$D.dfs" >"$D.out" 2>"$D.err"; rc=$?
        local err; err=$(cat "$D.err")
        if [ $rc -eq 124 ]; then ok=0; why="hang (no exit in $TO s)";
        elif [ $rc -gt 2 ]; then ok=0; why="crash (exit $rc)";
        elif grep -qE "Sanitizer|runtime error:|LeakSanitizer" "$D.err"; then ok=0; why="sanitizer report";
        elif [ $rc -ne "$want" ]; then ok=0; why="exit $rc, want $want";
        elif [ "$want" -eq 2 ]; then
                [ "$(grep -c '' <"$D.err")" -eq 1 ] || { ok=0; why="stderr is not one line"; }
                grep -qE -- "$pat" "$D.err" || { ok=0; why="stderr lacks /$pat/"; }
        else
                if [ "${pat#dfs:}" != "$pat" ]; then
                        cat "$D.dfs"/*.csv | grep -qE -- "${pat#dfs:}" || { ok=0; why="no /${pat#dfs:}/ in the saved tables"; }
                elif [ "$pat" = SAME ]; then
                        [ "${err//$D/$T/clean}" = "$(cat "$T/clean.err")" ] || { ok=0; why="stderr differs from the clean run's"; }
                else
                        grep -qE -- "$pat" "$D.err" || { ok=0; why="no warning /$pat/"; }
                fi
                grep -qE "2.1 (System )?Speed-of-Light" "$D.out" || { ok=0; why="no report"; }
                # shellcheck disable=SC2086
                [ $ok -eq 0 ] || [ -z "$keep" ] || why=$(untouched "$D.dfs" $keep) || ok=0
                # one truth (issue 29): the workload imported into a database analyzes to the
                # same tables, read in memory and streamed
                [ $ok -eq 0 ] || [ -n "${HOSTILE_NO_DB:-}" ] || why=$(same_db "$D") || ok=0
        fi
        if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   [$n] $what";
        else fail=$((fail + 1)); echo "FAIL [$n] $what: $why"; sed 's/^/  | /' "$D.err" | head -4; fi
}
skiprow() { n=$((n + 1)); skip=$((skip + 1)); echo "SKIP [$n] $1: $2"; }

SOL="2.1.0 2.1.1 2.1.2 2.1.3"          # VALU/MFMA FLOPs and IOPs: SQ_INSTS_* and timestamps
W='[^ ]*/w[0-9]+'                      # the workload directory in messages

# ---- errors: exit 2, one line naming the file (and the line) ----
row 2 "$W/pmc_perf.csv' is empty" "" "empty pmc_perf.csv" ': > $D/pmc_perf.csv'
row 2 "$W/sysinfo.csv' is empty" "" "empty sysinfo.csv" ': > $D/sysinfo.csv'
row 2 "$W/pmc_perf.csv: no dispatches recorded" "" "pmc_perf.csv: header only" 'head -1 $SRC/pmc_perf.csv > $D/pmc_perf.csv'
row 2 "$W/sysinfo.csv: no data row" "" "sysinfo.csv: header only" 'head -1 $SRC/sysinfo.csv > $D/sysinfo.csv'
row 2 "$W/pmc_perf.csv:4: [0-9]+ fields, but the header has [0-9]+ \(truncated" "" \
        "pmc_perf.csv truncated in its last row" 'head -c -300 $SRC/pmc_perf.csv > $D/pmc_perf.csv'
row 2 "$W/pmc_perf.csv: no dispatches recorded" "" "pmc_perf.csv truncated in its header" \
        'head -c 300 $SRC/pmc_perf.csv > $D/pmc_perf.csv'
row 2 "$W/pmc_perf.csv:2: .*truncated file" "" "pmc_perf.csv truncated inside a quoted kernel name" \
        'head -c $(( $(head -1 $SRC/pmc_perf.csv | wc -c) + 12 )) $SRC/pmc_perf.csv > $D/pmc_perf.csv'
row 2 "$W/pmc_perf.csv:3: [0-9]+ fields, but the header has [0-9]+$" "" "a row with one field too many" \
        'ed $D/pmc_perf.csv addfield 1'
row 2 "$W/pmc_perf.csv:2: [0-9]+ fields, but the header has [0-9]+ \(truncated" "" \
        "a row with one field too few" 'ed $D/pmc_perf.csv delfield 0'
row 2 "$W/sysinfo.csv:2: [0-9]+ fields, but the header has" "" "sysinfo.csv: a field too many" \
        'ed $D/sysinfo.csv addfield 0'
row 2 "$W/sysinfo.csv: no gpu_arch field" "" "sysinfo.csv without gpu_arch" 'ed $D/sysinfo.csv dropcol gpu_arch'
row 2 "$W/sysinfo.csv: no gpu_arch field" "" "sysinfo.csv: empty gpu_arch" 'ed $D/sysinfo.csv set 0 gpu_arch ""'
row 2 "$W/sysinfo.csv: unknown architecture 'gfx1234' \(supported: .*gfx90a" "" "unknown architecture" \
        'ed $D/sysinfo.csv set 0 gpu_arch gfx1234'
row 2 "$W/pmc_perf.csv(:[0-9]+)?: " "" "pmc_perf.csv is binary junk" 'junk 4096 1 > $D/pmc_perf.csv'
row 2 "$W/sysinfo.csv(:[0-9]+)?: " "" "sysinfo.csv is binary junk" 'junk 2048 2 > $D/sysinfo.csv'
row 2 "$W/pmc_perf.csv:3: NUL byte in field [0-9]+" "" "a NUL byte in a counter cell" \
        'ed $D/pmc_perf.csv set 1 SQ_WAVES 16384X && sed -i "3s/16384X/16\x00384/" $D/pmc_perf.csv'
row 2 "'$W/pmc_perf.csv' is a directory" "" "pmc_perf.csv is a directory" \
        'rm $D/pmc_perf.csv && mkdir $D/pmc_perf.csv'
row 2 "'$W/sysinfo.csv' is a directory" "" "sysinfo.csv is a directory" 'rm $D/sysinfo.csv && mkdir $D/sysinfo.csv'
row 2 "'$W/pmc_perf.csv' is not a regular file" "" "pmc_perf.csv is a named pipe (would block)" \
        'rm $D/pmc_perf.csv && mkfifo $D/pmc_perf.csv'
# special files where prism looked only for a regular one (issue 29): said, never skipped
row 0 "'$W/roofline.csv' is not a regular file; the roofline is not shown" "$SOL" \
        "roofline.csv is a named pipe (tables 4.1 and 4.3 were dropped without a word)" \
        'rm -f $D/roofline.csv && mkfifo $D/roofline.csv'
row 0 "'$W/roofline.csv' is a directory, expected a CSV file; the roofline is not shown" "$SOL" \
        "roofline.csv is a directory" 'rm -f $D/roofline.csv && mkdir $D/roofline.csv'
if [ "$(id -u)" -ne 0 ]; then
        row 2 "cannot open '$W/pmc_perf.csv': Permission denied" "" "unreadable pmc_perf.csv" \
                'chmod 000 $D/pmc_perf.csv'
else
        skiprow "unreadable pmc_perf.csv" "root reads every file"
fi
row 2 "cannot read '$W/pmc_perf.csv': Input/output error" "" "pmc_perf.csv gives a read error (even for root)" \
        'rm $D/pmc_perf.csv && ln -s /proc/self/mem $D/pmc_perf.csv'
row 2 "cannot open workload '$W': no pmc_perf.csv" "" "pmc_perf.csv is a dangling symlink" \
        'rm $D/pmc_perf.csv && ln -s nowhere.csv $D/pmc_perf.csv'
row 2 "cannot open workload '$W': no sysinfo.csv" "" "no sysinfo.csv" 'rm $D/sysinfo.csv'
row 2 "$W/pmc_perf.csv: no Kernel_Name column" "" "pmc_perf.csv without Kernel_Name" \
        'ed $D/pmc_perf.csv dropcol Kernel_Name'
row 2 "$W/sysinfo.csv:2: .*truncated file" "" "sysinfo.csv: an unterminated quote" \
        'sed -i "2s/^/\"/" $D/sysinfo.csv'
row 2 "$W/pmc_perf.csv' is empty" "" "pmc_perf.csv holds only a byte order mark" \
        'printf "\xef\xbb\xbf" > $D/pmc_perf.csv'
row 2 "$W/pmc_perf.csv' is empty" "" "pmc_perf.csv holds only blank lines" \
        'printf "\n\n\n" > $D/pmc_perf.csv'
row 2 "$W/pmc_perf.csv:3: a field longer than 4 MiB \(damaged file\?\)" "" "a 10 MB field in a counter cell" \
        'python3 -c "import sys; sys.stdout.write(\"9\" * 10000000)" > $D/big && ed $D/pmc_perf.csv set 1 SQ_WAVES BIGFIELD && python3 -c "import sys; p=sys.argv[1]; s=open(p).read(); open(p, \"w\").write(s.replace(\"BIGFIELD\", open(sys.argv[2]).read()))" $D/pmc_perf.csv $D/big'

# ---- damaged cells: exit 0, a warning naming file:line:column, the rest unchanged ----
row 0 "$W/pmc_perf.csv:3: column 'TCC_HIT\[5\]' holds 'abc', not a count; the metrics that use it are n/a" \
        "$SOL" "text in a counter cell" 'ed $D/pmc_perf.csv set 1 "TCC_HIT[5]" abc'
row 0 "$W/pmc_perf.csv:2: column 'TCC_HIT\[5\]' is empty" "$SOL" "an empty counter cell" \
        'ed $D/pmc_perf.csv set 0 "TCC_HIT[5]" ""'
row 0 "$W/pmc_perf.csv:4: column 'TCC_MISS\[0\]' holds 'nan', not a count" "$SOL" "NaN in a counter" \
        'ed $D/pmc_perf.csv set 2 "TCC_MISS[0]" nan'
row 0 "$W/pmc_perf.csv:3: column 'TCC_MISS\[0\]' holds 'inf', not a count" "$SOL" "inf in a counter" \
        'ed $D/pmc_perf.csv set 1 "TCC_MISS[0]" inf'
row 0 "$W/pmc_perf.csv:3: column 'TCC_HIT\[2\]' holds '1e400', not a count" "$SOL" \
        "a counter too large for a double (1e400)" 'ed $D/pmc_perf.csv set 1 "TCC_HIT[2]" 1e400'
row 0 "$W/pmc_perf.csv:2: column 'TCC_HIT\[2\]' holds '-5', not a count" "$SOL" "a negative counter" \
        'ed $D/pmc_perf.csv set 0 "TCC_HIT[2]" -5'
row 0 "$W/pmc_perf.csv: [0-9]+ more damaged cells \([0-9]+ in all, in [0-9]+ columns\) read as n/a" \
        "$SOL" "many damaged cells (warnings capped)" \
        'for c in 0 1 2 3 4 5 6 7; do ed $D/pmc_perf.csv set 1 "TCC_HIT[$c]" x; done'
row 0 "$W/pmc_perf.csv:4: Dispatch_ID 1 also at line 3" "$SOL" "duplicate dispatch ids" \
        'ed $D/pmc_perf.csv set 2 Dispatch_ID 1'
row 0 "$W/pmc_perf.csv:3: column 'Dispatch_ID' holds 'x1', not a count" "$SOL" "a non-numeric dispatch id" \
        'ed $D/pmc_perf.csv set 1 Dispatch_ID x1'
row 0 "$W/pmc_perf.csv: column 'SQ_WAVES' appears more than once; the first is used" ALL \
        "a counter column twice, with other values" 'ed $D/pmc_perf.csv dupcol SQ_WAVES'
row 0 "$W/pmc_perf.csv:3: End_Timestamp is before Start_Timestamp" "10.1:*" \
        "a dispatch that ends before it starts" 'ed $D/pmc_perf.csv swapts 1'
row 0 "$W/SQ_LEVEL_WAVES.csv:3: column 'SQ_ACCUM_PREV_HIRES' holds 'lots', not a count" "$SOL" \
        "text in an accumulate counter" 'ed $D/SQ_LEVEL_WAVES.csv set 1 SQ_ACCUM_PREV_HIRES lots'
row 0 "$W/SQ_INST_LEVEL_LDS.csv:4: [0-9]+ fields, but the header has [0-9]+ \(truncated file\?\); metrics that need it are n/a" \
        "$SOL" "a truncated accumulate file" 'head -c -40 $SRC/SQ_INST_LEVEL_LDS.csv > $D/SQ_INST_LEVEL_LDS.csv'
row 0 "$W/SQ_IFETCH_LEVEL.csv: 0 rows but pmc_perf.csv has 3" "$SOL" "an accumulate file with no rows" \
        'head -1 $SRC/SQ_IFETCH_LEVEL.csv > $D/SQ_IFETCH_LEVEL.csv'
row 0 "'$W/SQ_LEVEL_WAVES.csv' is a directory, expected a CSV file; metrics that need it are n/a" "$SOL" \
        "an accumulate file that is a directory" 'rm $D/SQ_LEVEL_WAVES.csv && mkdir $D/SQ_LEVEL_WAVES.csv'
row 0 "$W/roofline.csv.*; the roofline is not shown" "$SOL" "roofline.csv is binary junk" \
        'junk 1000 3 > $D/roofline.csv'
row 0 "$W/roofline.csv' is empty; the roofline is not shown" "$SOL" "empty roofline.csv" ': > $D/roofline.csv'

# ---- sysinfo fields: one warning each, the metrics that do not use them unchanged ----
row 0 "$W/sysinfo.csv: no field 'cu_per_gpu'; the metrics that use it are n/a" "10.1:* 7.1:*" \
        "sysinfo.csv without cu_per_gpu" 'ed $D/sysinfo.csv dropcol cu_per_gpu'
row 0 "$W/sysinfo.csv: no fields 'cu_per_gpu', 'max_sclk'; the metrics that use them are n/a" \
        "10.1:* 7.1:*" "sysinfo.csv without two fields" \
        'ed $D/sysinfo.csv dropcol cu_per_gpu && ed $D/sysinfo.csv dropcol max_sclk'
row 0 "$W/sysinfo.csv:2: field 'max_sclk' holds 'fast', not a number; the metrics that use it are n/a" \
        "10.1:* 7.1:*" "a non-numeric sysinfo field" 'ed $D/sysinfo.csv set 0 max_sclk fast'

# ---- odd but valid files: the same numbers, no new warning ----
row 0 SAME ALL "UTF-8 byte order marks" \
        'for f in pmc_perf sysinfo SQ_LEVEL_WAVES; do printf "\xef\xbb\xbf" | cat - $SRC/$f.csv > $D/$f.csv; done'
row 0 SAME ALL "CRLF line ends in every CSV" 'for f in $D/*.csv; do sed -i "s/\$/\r/" $f; done'
row 0 SAME ALL "blank lines between rows" \
        '{ head -1 $SRC/pmc_perf.csv; echo; tail -n +2 $SRC/pmc_perf.csv; echo; echo; } > $D/pmc_perf.csv'
row 0 SAME "$SOL 10.1:*" "a 100,000-character kernel name" \
        'ed $D/pmc_perf.csv names "k$(head -c 100000 /dev/zero | tr "\0" x)"'
row 0 SAME "$SOL 10.1:*" "a kernel name that is not UTF-8" \
        'ed $D/pmc_perf.csv names "$(printf "k\377\376\303(")"'
row 0 "$W/pmc_perf.csv:5: column 'TCC_HIT\[1\]' holds 'bad'" "$SOL" \
        "a kernel name with a newline, then a damaged cell (line numbers count it)" \
        'ed $D/pmc_perf.csv set 0 Kernel_Name "$(printf "two\nlines")" && ed $D/pmc_perf.csv set 2 "TCC_HIT[1]" bad'
row 0 SAME "$SOL" "an empty kernel name" 'ed $D/pmc_perf.csv set 1 Kernel_Name ""'
row 0 SAME "$SOL 10.1:*" "a huge but finite counter (1e300)" 'ed $D/pmc_perf.csv set 1 "TCC_HIT[3]" 1e300'
row 0 "dfs:^2\.1\.1,VALU IOPs,[0-9.]+e\+29[0-9]," "2.1.0 2.1.2 2.1.3" \
        "a huge counter the shown metric uses (1e300): computed, not overflowed" \
        'ed $D/pmc_perf.csv set 1 SQ_INSTS_VALU_INT32 1e300'

# ---- rocpd's long layout (docs/FORMATS.md): the bundled cut of the 3.3 recording of vcopy ----
WIDE_SQ=$(cd "$S/vcopy/MI300X_A1" 2>/dev/null && pwd)/SQ_LEVEL_WAVES.csv
if [ -f tests/data/rocpd-vcopy/pmc_perf.csv ] && [ -f "$WIDE_SQ" ]; then
        SRC=$PWD/tests/data/rocpd-vcopy; COMPAT=
        rm -rf "$T/clean" "$T/clean.dfs"; mkdir -p "$T/clean"
        cp -r "$SRC"/. "$T/clean/"; chmod -R u+w "$T/clean"
        if timeout "$TO" "$P" analyze -p "$T/clean" --save-dfs "$T/clean.dfs" >"$T/clean.out" 2>"$T/clean.err"; then
                RW="[^ ]*/w[0-9]+/pmc_perf.csv"
                row 2 "$RW: a 'Counter_Name' column without 'Counter_Value': neither the wide layout" "" \
                        "rocpd: no Counter_Value column" 'ed $D/pmc_perf.csv dropcol Counter_Value'
                row 2 "$RW: no Dispatch_ID column \(rocpd's layout needs" "" "rocpd: no Dispatch_ID column" \
                        'ed $D/pmc_perf.csv dropcol Dispatch_ID'
                row 2 "$RW:[0-9]+: Dispatch_ID holds 'x1', not an integer \(rocpd's rows are grouped" "" \
                        "rocpd: a non-numeric Dispatch_ID" 'ed $D/pmc_perf.csv setk 2 SQ_WAVES Dispatch_ID x1'
                row 2 "$RW:[0-9]+: Kernel_Name is empty" "" "rocpd: an empty kernel name" \
                        'ed $D/pmc_perf.csv setk 2 SQ_WAVES Kernel_Name ""'
                row 2 "$RW: rocpd's long layout, but profiling_config.yaml says format_rocprof_output: csv" "" \
                        "rocpd: profiling_config.yaml says csv" \
                        'sed -i "s/^format_rocprof_output: rocpd/format_rocprof_output: csv/" $D/profiling_config.yaml'
                row 2 "$W/SQ_LEVEL_WAVES.csv: an accumulate file, but pmc_perf.csv is in rocpd's long layout, which has none \(a mixed" "" \
                        "rocpd: a wide accumulate file beside it" "cp $WIDE_SQ \$D/"
                row 0 "$RW:[0-9]+: counter 'SQ_WAVES' holds 'abc', not a count; the metrics that use it are n/a" \
                        "$SOL" "rocpd: a non-numeric Counter_Value" 'ed $D/pmc_perf.csv setc 2 SQ_WAVES abc'
                row 0 "$RW:[0-9]+: counter 'SQ_WAVES' is empty; the metrics that use it are n/a" "$SOL" \
                        "rocpd: an empty Counter_Value" 'ed $D/pmc_perf.csv setc 3 SQ_WAVES ""'
                row 0 "$RW:[0-9]+: counter 'TCP_TOTAL_CACHE_ACCESSES_sum' of dispatch 2 also at line [0-9]+, with another value; the last is used" \
                        "10.1:*" "rocpd: a counter row twice, with another value" \
                        'ed $D/pmc_perf.csv dupc 2 TCP_TOTAL_CACHE_ACCESSES_sum 7'
                row 0 SAME "10.1:*" "rocpd: a counter row twice, with the same value" \
                        'ed $D/pmc_perf.csv dupc 2 TCP_TOTAL_CACHE_ACCESSES_sum 524288.0'
                row 0 "$RW: 1 counter value is missing \(dispatch 2 has no row for 'TCP_TOTAL_CACHE_ACCESSES_sum'\)" \
                        "10.1:*" "rocpd: a dispatch without one counter's row" \
                        'ed $D/pmc_perf.csv delc 2 TCP_TOTAL_CACHE_ACCESSES_sum'
                row 0 "$RW:[0-9]+: End_Timestamp is before Start_Timestamp; that row's duration is left out" \
                        "10.1:*" "rocpd: a row that ends before it starts" 'ed $D/pmc_perf.csv swapts 5'
                row 0 SAME ALL "rocpd: the rows in another order" 'ed $D/pmc_perf.csv shuffle 7'
                # hostile input, second round (issue 29)
                row 2 "cannot open '$W/profiling_config.yaml': not a regular file" "" \
                        "rocpd: profiling_config.yaml is a named pipe (would block)" \
                        'rm $D/profiling_config.yaml && mkfifo $D/profiling_config.yaml'
                row 2 "$W/profiling_config.yaml: nested deeper than 32 levels" "" \
                        "rocpd: profiling_config.yaml nested 50,000 deep before its key (libyaml: quadratic, 33 s a 100 KB)" \
                        'python3 -c "print(\"x: \" + \"[\" * 50000 + \"]\" * 50000)" > $D/n.yaml && cat $D/profiling_config.yaml >> $D/n.yaml && mv $D/n.yaml $D/profiling_config.yaml'
                row 2 "$W/profiling_config.yaml: nested deeper than 32 levels" "" \
                        "rocpd: profiling_config.yaml nested 200 deep as blocks" \
                        'python3 -c "print(\"\".join(\" \" * i + \"k%d:\\n\" % i for i in range(200)) + \" \" * 200 + \"v\")" >> $D/profiling_config.yaml'
                row 0 SAME ALL "rocpd: Dispatch_IDs past 2^53 that a double cannot tell apart stay apart" \
                        'ed $D/pmc_perf.csv setd 1 Dispatch_ID 9007199254740992 && ed $D/pmc_perf.csv setd 2 Dispatch_ID 9007199254740993 && ed $D/pmc_perf.csv setd 3 Dispatch_ID 9007199254740995'
                row 0 "$RW:[0-9]+: Start_Timestamp holds '-9000000000000000000', not a timestamp; that row's duration is left out" \
                        "10.1:*" "rocpd: timestamps of -9e18 and 9e18 (End - Start past 2^63)" \
                        'ed $D/pmc_perf.csv setk 2 SQ_WAVES Start_Timestamp -9000000000000000000 && ed $D/pmc_perf.csv setk 2 SQ_WAVES End_Timestamp 9000000000000000000'
                row 0 "$RW: a counter is named 'Grid_Size', like a dispatch column; its values are left out" \
                        ALL "rocpd: a counter named like a dispatch column (Grid_Size)" \
                        'ed $D/pmc_perf.csv addc 2 SQ_WAVES Grid_Size 7 && ed $D/pmc_perf.csv addc 2 SQ_WAVES Workgroup_Size 3'
                row 2 "$RW: 50000 dispatches times 50000 counters from 50000 rows: a table of mostly empty cells" "" \
                        "rocpd: 50,000 dispatches of one counter each, each its own (was quadratic: 40 GB)" \
                        'ed $D/pmc_perf.csv sparse 50000'
        else
                fail=$((fail + 1)); echo "FAIL hostile: the clean rocpd workload does not analyze"
        fi
else
        skiprow "rocpd's long layout" "no tests/data/rocpd-vcopy or $WIDE_SQ"
fi

# ---- database --import of odd perfmon/ files (issue 29) ----
# imp WANT PATTERN WHAT SETUP: `prism database --import` of a fresh copy of the MI200 one
imp() {
        local want=$1 pat=$2 what=$3 setup=$4 rc
        n=$((n + 1))
        local D=$T/i$n
        mkdir -p "$D"; cp -r "$S/vcopy/MI200"/. "$D/"; chmod -R u+w "$D"
        (cd "$T" && eval "$setup") >"$T/setup.log" 2>&1 || { fail=$((fail + 1)); echo "FAIL [$n] $what: setup failed"; return; }
        timeout "$TO" "$P" database --import "$D" --db "$D.db" >"$D.out" 2>"$D.err"; rc=$?
        if [ $rc -eq "$want" ] && grep -qE -- "$pat" "$D.err" && ! grep -qE "Sanitizer|runtime error:" "$D.err"; then
                pass=$((pass + 1)); echo "ok   [$n] $what"
        else
                fail=$((fail + 1)); echo "FAIL [$n] $what: exit $rc, want $want and /$pat/"; sed 's/^/  | /' "$D.err" | head -4
        fi
}
if [ -d "$S/vcopy/MI200/perfmon" ]; then
        imp 0 "cannot open '[^ ]*/perfmon/x.txt': not a regular file \(a FIFO, a device or a socket\); the plan is incomplete" \
                "import: a named pipe in perfmon/ (blocked forever)" 'mkfifo $D/perfmon/x.txt'
        imp 0 "[^ ]*/perfmon/big.txt: larger than a pass plan holds \(at most 1048576 bytes, lines of 65536\); the plan is incomplete" \
                "import: a 50 MB perfmon line (was 44 s and a 651 MB database)" \
                'python3 -c "print(\"pmc: \" + \" \".join(\"SQ_W%d\" % i for i in range(5000000)))" > $D/perfmon/big.txt'
        imp 0 "[^ ]*/perfmon/long.txt: a line longer than a pass plan holds" \
                "import: a 100 KB perfmon line" \
                'python3 -c "print(\"pmc: \" + \"x\" * 100000)" > $D/perfmon/long.txt'
        mkfifo "$T/fifo.db"
        timeout "$TO" "$P" database --import "$S/vcopy/MI200" --db "$T/fifo.db" --force >/dev/null 2>"$T/fifo.err"; rc=$?
        n=$((n + 1))
        if [ $rc -eq 2 ] && [ -p "$T/fifo.db" ] && grep -q "'$T/fifo.db' exists and is not a regular file" "$T/fifo.err"; then
                pass=$((pass + 1)); echo "ok   [$n] import --db onto a named pipe: refused, the pipe left (was replaced)"
        else
                fail=$((fail + 1)); echo "FAIL [$n] import --db onto a named pipe: exit $rc"; head -2 "$T/fifo.err"
        fi
        timeout "$TO" "$P" analyze -p "$T/fifo.db" >/dev/null 2>"$T/fifo.err"; rc=$?
        n=$((n + 1))
        if [ $rc -eq 2 ] && grep -q "cannot open workload '$T/fifo.db': not a regular file" "$T/fifo.err"; then
                pass=$((pass + 1)); echo "ok   [$n] analyze -p a named pipe called .db: not a regular file (was 'no such file')"
        else
                fail=$((fail + 1)); echo "FAIL [$n] analyze -p a named pipe called .db: exit $rc"; head -2 "$T/fifo.err"
        fi
else
        skiprow "database --import of odd perfmon files" "no $S/vcopy/MI200/perfmon"
fi

# ---- output (issue 29): a name's control characters shown escaped, a failed write exit 2 ----
# chk WHAT COND...: one result
chk() { local what=$1; shift; n=$((n + 1)); if "$@"; then pass=$((pass + 1)); echo "ok   [$n] $what"; else fail=$((fail + 1)); echo "FAIL [$n] $what"; fi; }
# raw FILE: it holds a C0 control (but tab and newline), DEL, a C1 control or its UTF-8 form
no() { ! "$@"; }
raw() { python3 -c 'import re,sys; d=open(sys.argv[1],"rb").read(); sys.exit(0 if re.search(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", d) else 1)' "$1"; }
M=$S/vcopy/MI200
if [ -f "$M/roofline.csv" ]; then
        D=$T/ctl; mkdir -p "$D"; cp -r "$M"/. "$D/"; chmod -R u+w "$D"
        ed "$D/pmc_perf.csv" names "evil$(printf '\033')[2J$(printf '\033')]0;pwned$(printf '\007')x$(printf '\302\233')31m$(printf '\001')"
        timeout "$TO" "$P" analyze -p "$D" --plot-dir "$D.svg" >"$D.out" 2>"$D.err"; rc=$?
        chk "a kernel name with ESC, OSC, BEL, a C1 CSI and SOH: exit 0" [ $rc -eq 0 ]
        chk "  the text report holds no control character" no raw "$D.out"
        chk "  the text report shows them escaped" grep -qF 'evil\x1b[2J\x1b]0;pwned\x07' "$D.out"
        # each table's box lines (from one top border to its bottom one) are all as wide
        # as the top border: an escaped name is measured as printed
        chk "  every table row holding the escaped name is as wide as its table" python3 -c '
import sys
w = None; bad = 0
for ln in open(sys.argv[1], encoding="utf-8"):
    ln = ln.rstrip("\n")
    if ln.startswith("\u2552"): w = len(ln)
    elif w is not None and ln[:1] in ("\u2502", "\u251c", "\u255e", "\u2558"):
        bad += len(ln) != w
        if ln.startswith("\u2558"): w = None
sys.exit(1 if bad else 0)' "$D.out"
        chk "  the roofline SVG holds none" no raw "$D.svg/roofline.svg"
        chk "  the roofline SVG shows them escaped" grep -qF 'evil\x1b[2J\x1b]0;pwned\x07' "$D.svg/roofline.svg"
        chk "  stderr holds none" no raw "$D.err"
fi
full() { # full WHAT PATTERN CMD...: stdout to /dev/full: exit 2, one error line matching PATTERN
        local what=$1 pat=$2 rc; shift 2
        timeout "$TO" "$@" >/dev/full 2>"$T/full.err"; rc=$?
        chk "$what: exit 2 and one error" sh -c "[ $rc -eq 2 ] && [ \$(grep -vc '^prism: warning: ' <'$T/full.err') -eq 1 ] && grep -qE -- \"$pat\" '$T/full.err'"
}
if [ -w /dev/full ]; then
        full "analyze > /dev/full (was exit 0, the report lost)" "cannot write (the report )?to standard output: No space left on device" \
                "$P" analyze -p "$M"
        full "analyze -o /dev/full" "cannot write '/dev/full': No space left on device" "$P" analyze -p "$M" -o /dev/full
        full "analyze --list-stats > /dev/full" "cannot write .*standard output" "$P" analyze -p "$M" --list-stats
        full "database --import > /dev/full" "cannot write to standard output" "$P" database --import "$M" --db "$T/full.db"
else
        skiprow "writes to /dev/full" "no /dev/full"
fi

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
