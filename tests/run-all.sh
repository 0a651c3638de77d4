#!/usr/bin/env bash
# Runs every test suite: cmocka unit tests, CLI tests, golden tests against the reference
# tool's output. Prints one summary line "N passed, N failed, N skipped"; exit 1 on failure.
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0
failed=()

for t in "$build"/tests/t-*; do
        [ -x "$t" ] || continue
        out=$("$t" 2>&1); rc=$?
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
        s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | awk '{s+=$1} END {print s+0}')
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
        if [ "$f" -ne 0 ]; then failed+=("$(basename "$t")"); printf '%s\n' "$out" | grep -E "FAIL|ERROR|error|Assert" | head -20; fi
        echo "unit $(basename "$t"): $p passed, $f failed, $s skipped"
done

for s in tests/includes.sh tests/cli.sh tests/golden.sh tests/findings.sh tests/golden-charts.sh tests/options.sh tests/cli-profile.sh tests/deb.sh tests/db.sh tests/tui-tmux.sh tests/samples.sh tests/hostile.sh tests/valgrind.sh; do
        if [ ! -x "$s" ]; then # a suite that lost its run bit fails, never vanishes
                echo "FAIL $s is not executable (chmod +x it)"
                fail=$((fail + 1)); failed+=("$s"); continue
        fi
        out=$("$s" 2>&1); rc=$?
        line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
        p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); p=${p:-0}
        f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); f=${f:-0}
        k=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p'); k=${k:-0}
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
        if [ "$f" -ne 0 ]; then failed+=("$s"); printf '%s\n' "$out" | grep -E "^(FAIL|not ok)" | head -30; fi
        printf '%s\n' "$out" | grep -E "^SKIP" | head -5
        echo "$(basename "$s"): $p passed, $f failed, $k skipped"
done

[ ${#failed[@]} -eq 0 ] || echo "failed suites: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
