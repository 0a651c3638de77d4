#!/usr/bin/env bash
# Runs every test suite: cmocka unit tests, CLI tests, golden tests against the reference
# tool's output. Prints one summary line "N passed, N failed, N skipped"; exit 1 on failure.
set -u
build=${1:-build}
cd "$(dirname "$0")/.."
pass=0 fail=0 skip=0
failed=()

# The recorded workloads and reference tables: ../shared where it exists (CI), else the
# bundled copy tests/data/shared, so that a fresh clone runs the same suites. Either way the
# data is there, so a suite that would skip for lack of it fails (PRISM_REQUIRE_DATA).
if [ -z "${PRISM_SHARED:-}" ]; then
        if [ -d ../shared/rocprof-workloads ] && [ -d ../shared/reference ]; then
                PRISM_SHARED=$(cd ../shared && pwd)
        else
                PRISM_SHARED=$PWD/tests/data/shared
        fi
fi
case $PRISM_SHARED in "$PWD"/tests/data/shared) export PRISM_SHARED_BUNDLED=1 ;; esac
export PRISM_SHARED PRISM_REQUIRE_DATA=1
echo "data: $PRISM_SHARED"

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

# suite NAME COMMAND... SCRIPT: run a suite script, add up its "N passed, N failed, N skipped"
suite() {
        local name=$1; shift
        if [ ! -x "${*: -1}" ]; then # a suite that lost its run bit fails, never vanishes
                echo "FAIL ${*: -1} is not executable (chmod +x it)"
                fail=$((fail + 1)); failed+=("$name"); return
        fi
        out=$("$@" 2>&1); rc=$?
        line=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1)
        p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p'); p=${p:-0}
        f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p'); f=${f:-0}
        k=$(echo "$line" | sed -n 's/.* \([0-9]*\) skipped.*/\1/p'); k=${k:-0}
        if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
        pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
        if [ "$f" -ne 0 ]; then failed+=("$name"); printf '%s\n' "$out" | grep -E "^(FAIL|not ok)" | head -30; fi
        printf '%s\n' "$out" | grep -E "^SKIP" | head -5
        echo "$name: $p passed, $f failed, $k skipped"
}

for s in tests/includes.sh tests/link.sh tests/vendor-terms.sh tests/cli.sh tests/golden.sh tests/golden33.sh tests/findings.sh tests/pcsamp.sh tests/golden-charts.sh tests/options.sh tests/report.sh tests/plots.sh tests/docs.sh tests/cli-profile.sh tests/deb.sh tests/db.sh tests/stream.sh tests/threads.sh tests/tui-tmux.sh tests/samples.sh tests/hostile.sh tests/layout310.py tests/compat310.py tests/channels33.py tests/valgrind.sh; do
        suite "$(basename "$s")" "$s"
done
# the bundled copy is what a fresh clone tests: where ../shared was used, check it too
if [ -z "${PRISM_SHARED_BUNDLED:-}" ]; then
        suite "golden.sh (bundled data)" env PRISM_SHARED="$PWD/tests/data/shared" tests/golden.sh
        suite "golden33.sh (bundled data)" env PRISM_SHARED="$PWD/tests/data/shared" tests/golden33.sh
        suite "findings.sh (bundled data)" env PRISM_SHARED="$PWD/tests/data/shared" tests/findings.sh
fi

[ ${#failed[@]} -eq 0 ] || echo "failed suites: ${failed[*]}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
