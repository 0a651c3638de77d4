#!/usr/bin/env bash
# Drives the real `prism analyze --tui` in tmux (send-keys, capture-pane): open a shared
# workload, select a kernel and a dispatch, open the L2 panel, search a metric, switch the
# normalization, open the help, resize from 100x30 to 80x24, quit; then Ctrl-C, a
# comparison of two runs, and the error without a terminal. Asserts what is on screen at
# each step (numbers against the text report) and that the terminal is restored.
# Prints "N passed, N failed, N skipped"; skips with a message without tmux or ../shared.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-./prism}
case $P in /*) ;; *) P=$PWD/$P ;; esac
. tests/data-dir.sh
W=$S/vcopy/MI200
W2=$S/dispatch_0/MI200
pass=0 fail=0 skip=0
SOCK=prism-tui-$$
T=$(mktemp -d)

finish() {
        tmux -L "$SOCK" kill-server 2>/dev/null
        rm -rf "$T"
        echo "$pass passed, $fail failed, $skip skipped"
        [ "$fail" -eq 0 ]
        exit
}

if ! command -v tmux >/dev/null 2>&1; then
        echo "SKIP tui-tmux: tmux is not installed"
        skip=1
        finish
fi
[ -f "$W/pmc_perf.csv" ] || no_data tui-tmux "$W (the shared workloads)"
trap 'tmux -L "$SOCK" kill-server 2>/dev/null; rm -rf "$T"' EXIT

tm() { tmux -L "$SOCK" "$@"; }
cap() { tm capture-pane -t t -p; }
keys() { tm send-keys -t t "$@"; sleep 0.15; }
flag() { tm display -p -t t "#{$1}"; }

ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() {
        fail=$((fail + 1))
        echo "FAIL $1"
        # the screen of the first few failures only
        [ "$fail" -le 3 ] && cap | sed 's/^/     | /'
}

# wait up to 5 s for the screen to match an extended regex
wait_for() {
        for _ in $(seq 50); do
                cap | grep -Eq -- "$1" && return 0
                sleep 0.1
        done
        return 1
}
check() { if wait_for "$2"; then ok "$1"; else bad "$1 (/$2/ not on screen)"; fi; }
check_not() {
        sleep 0.3
        if cap | grep -Eq -- "$2"; then bad "$1 (/$2/ still on screen)"; else ok "$1"; fi
}
check_eq() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1 (got '$2', want '$3')"; fi; }
check_le() { if [ "$2" -ge "$3" ] && [ "$2" -le "$4" ]; then ok "$1"; else bad "$1 (got $2, want $3..$4)"; fi; }

# the value column of a metric row in the text report: "│ 17.1.2 │ Hit Rate │ 35.09 │"
text_value() {
        "$P" analyze -p "$W" "$@" 2>/dev/null | awk -F'│' -v id="$ID" \
                '{ k = $2; gsub(/ /, "", k); if (k == id) { v = $4; gsub(/ /, "", v); print v; exit } }'
}
re() { printf '%s' "$1" | sed 's/[][\.*^$()+?{}|/]/\\&/g'; }

# after the TUI: the shell prompt back, the normal screen, a visible cursor, a sane tty
check_restored() {
        check "$1: exit status $2" "^EXIT=$2\$"
        check "$1: shell prompt back" '^PRISM-PROMPT\$ ?$'
        check_eq "$1: alternate screen left" "$(flag alternate_on)" 0
        check_eq "$1: cursor visible" "$(flag cursor_flag)" 1
        check_eq "$1: keypad mode off" "$(flag keypad_cursor_flag)" 0
        check_not "$1: no TUI left on screen" "q:quit|Keys of prism"
        check_not "$1: no sanitizer report" "ERROR: [A-Za-z]+Sanitizer|runtime error:"
        keys "clear; stty -a | tr ' ;' '\\n\\n' | grep -xE -- '-?(icanon|echo)' | tr '\\n' ' '; echo STTY" Enter
        check "$1: tty back in icanon echo mode" "^icanon echo STTY"
        keys "clear" Enter
}

# start the TUI; give up the whole run when it does not come up (keys would go to the shell)
start() {
        keys "clear; $P analyze --compat 3.0 $* --tui; echo EXIT=\$?" Enter
        if ! wait_for "^ prism analyze │"; then
                bad "the TUI did not start: prism analyze $* --tui"
                finish
        fi
}

tm -f /dev/null new-session -d -s t -x 100 -y 30 -c "$PWD" \
        "PS1='PRISM-PROMPT\$ ' LANG=C.UTF-8 LC_ALL=C.UTF-8 bash --norc --noprofile"
wait_for 'PRISM-PROMPT' || { bad "tmux shell did not start"; finish; }

# ---- open a workload ----
start -p "$W"
check "open: title bar" "prism analyze │ vcopy/MI200 \(gfx90a\)"
check "open: filter bar" "Kernel: all \(1\) │ Dispatch: all │ Norm: per_wave │ 3/3 dispatches"
check "open: panel tree" "^▾ 0 Top Stats"
check "open: tree lists the L2 panel" "^▸ 17 L2 Cache"
check "open: top kernels shown" "0\.1 Top Kernels"
check "open: status line" "q:quit \?:help /:search"
check_eq "open: alternate screen" "$(flag alternate_on)" 1

# ---- select a kernel, then a dispatch ----
keys k
check "kernel list: all kernels entry" "\[x\] all kernels"
check "kernel list: the kernel and its dispatches" \
        "\[ \]  0  vecCopy\(double\*, double\*, double\*, int, int\) \[clone \.kd\]  \(3 dispatches\)"
keys Down Enter
check "kernel selected: filter bar" "Kernel: vecCopy\(double\*, double\*, [^│]*│ Dispatch: all"
check_not "kernel selected: list closed" "\[x\] all kernels"
keys d
check "dispatch list" "\[ \]      1  vecCopy"
keys Down Down Enter
check "dispatch 1 selected" "Dispatch: 1 │ Norm: per_wave │ 1/3 dispatches"

# ---- open the L2 panel: the same number as the text report with -d 1 ----
keys g 1 7 Enter
check "L2 panel: tree" "^▾ 17 L2 Cache"
check "L2 panel: tables" "17\.1 Speed-of-Light"
ID=17.1.2
v=$(text_value -d 1 -b 17.1)
check "L2 panel: hit rate as in the text report ($v)" "17\.1\.2 +│ Hit Rate +│ $(re "$v") "
keys Right
check "L2 panel: table 17.1 selected" "^  17\.1 Speed-of-Light"
check "L2 panel: sticky header" "Metric_ID │ Metric"

# ---- search a metric ----
keys / R e a d Space L a t e n c y
check "search: prompt" "^/Read Latency"
keys Enter
check "search: matches reported" "match(es)? for 'Read Latency'"
check "search: first match shown" "2\.1\.24 +│ L2-Fabric Read Latency"
if tm capture-pane -t t -p -e | grep 'L2-Fabric Read Latency' | grep -q '43m'; then
        ok "search: found row highlighted"
else
        bad "search: found row highlighted (no yellow background on its line)"
fi
keys ']' ']'
check "search: third match" "match 3/"
check "search: L2 row shown" "17\.2\.9 +│ Read Latency"
check "search: table 17.2 selected" "^  17\.2 L2 - Fabric Tra"
# the highlighted metric's description on the status line; Esc drops the highlight and the
# key hints come back
check "status line: what the highlighted metric measures" "17\.2\.9: Average cycles an L2 read over the fabric"
keys Escape
check "status line: hints again after Esc" "q:quit \?:help /:search"

# ---- normalization ----
keys n
check "norm: per_cycle" "Norm: per_cycle"
keys N
check "norm: back to per_wave" "Norm: per_wave"

# ---- help ----
keys '?'
check "help: title" "Keys of prism analyze --tui"
check "help: lists Ctrl-L" "Ctrl-L +redraw the screen"
check "help: color legend" "Pct of Peak: green below 50"
keys Escape
check_not "help: closed" "Keys of prism"

# ---- resize ----
tm resize-window -t t -x 80 -y 24
check "resize 80x24: status line" "q:quit \?:help"
check "resize 80x24: tree" "^▸ 17 L2 Cache|^▾ 17 L2 Cache"
check "resize 80x24: title bar" "prism analyze │ vcopy/MI200"
sleep 0.3
check_eq "resize 80x24: 24 lines" "$(cap | wc -l)" 24
check_le "resize 80x24: at most 80 columns" "$(cap | LC_ALL=C.UTF-8 wc -L)" 70 80
cap > "$T/screen-80x24.txt"
[ -n "${TUI_SCREEN:-}" ] && cp "$T/screen-80x24.txt" "$TUI_SCREEN"
tm resize-window -t t -x 120 -y 32
check "resize 120x32: wider tree" "^  17\.2 L2 - Fabric Transact"
check_le "resize 120x32: wider lines" "$(cap | LC_ALL=C.UTF-8 wc -L)" 101 120
tm resize-window -t t -x 100 -y 30

# ---- quit ----
keys q
check_restored "quit with q" 0

# ---- Ctrl-C ----
start -p "$W"
check "Ctrl-C: started" "prism analyze │ vcopy/MI200"
keys C-c
check_restored "quit with Ctrl-C" 130

# ---- comparison: the text view's columns, colored ----
start -p "$W" -p "$W2"
check "compare: title" "vcopy/MI200 \(gfx90a\) vs dispatch_0/MI200 \(gfx90a\)"
keys g 2 . 1 Enter Tab Right
check "compare: new and change columns" "Avg +│ Avg \(new\) +│ Change"
v=$("$P" analyze -p "$W" -p "$W2" -b 2.1 2>/dev/null | awk -F'│' \
        '{ k = $2; gsub(/ /, "", k); if (k == "2.1.1") { v = $6; sub(/^ +/, "", v); sub(/ +$/, "", v); print v; exit } }')
check "compare: change as in the text report ($v)" "$(re "$v")"
if tm capture-pane -t t -p -e | grep '%)' | grep -Eq '3[12]m'; then
        ok "compare: changes colored better/worse"
else
        bad "compare: changes colored better/worse (no green or red on a change)"
fi
keys q
check_restored "compare: quit" 0

# ---- PC samples: the source view ('s', and Enter on a hot-line finding) ----
# the H100 recording names the file where it was built; the view finds it by name in the
# directory the TUI runs in
PCS=$PWD/tests/data/pcsamp/h100
keys "cd tests/gpu" Enter
start -p "$PCS"
keys s
check "source view: the hottest kernel's file" "Source: bank_conflict\(float\*, int\) .*hotspots\.cu"
check "source view: its hottest line, full bar, top stall reason" "^ +58 #{20} +99\.0% mio_throttle"
keys Escape
"$P" analyze --compat 3.0 -p "$PCS" -b 0.3 --save-dfs "$T/pcs-dfs" >/dev/null 2>&1
n=$(python3 -c "import csv,sys,glob; r=list(csv.DictReader(open(glob.glob(sys.argv[1]+'/0.3_*')[0]))); print([i for i,x in enumerate(r) if x['Finding']=='pc.hot_line' and x['Kernel_Name'].startswith('strided_load')][0])" "$T/pcs-dfs" 2>/dev/null)
keys f
for _ in $(seq "${n:-0}"); do keys Down; done
keys Enter
check "findings: Enter on pc.hot_line opens that kernel's source" "Source: strided_load"
check "findings: at its hot line" "^ +28 #{20} +98\.1% lg_throttle .*acc \+= a\["
keys Escape q
check_restored "source view: quit" 0
keys "cd - >/dev/null" Enter

# ---- no terminal: an error, nothing drawn ----
out=$("$P" analyze -p "$W" --tui </dev/null 2>&1 >/dev/null); rc=$?
if [ "$rc" -eq 2 ] && printf '%s' "$out" | grep -q -- "--tui needs a terminal"; then
        ok "no terminal: exit 2 with a message"
else
        bad "no terminal: exit $rc, '$out'"
fi

finish
