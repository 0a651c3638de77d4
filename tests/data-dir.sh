# Sourced by the suites that read recorded workloads. S: the workload directories
# ($PRISM_SHARED/rocprof-workloads; tests/run-all.sh sets PRISM_SHARED to ../shared where it
# exists, else to the bundled copy tests/data/shared). no_data SUITE WHAT: the suite's data is
# missing: under run-all.sh (PRISM_REQUIRE_DATA=1), where the data is always there, that is a
# failure, never a silent skip; run alone without it, a skip.
S=${PRISM_SHARED:-../shared}/rocprof-workloads
no_data() {
        if [ "${PRISM_REQUIRE_DATA:-0}" = 1 ]; then
                echo "FAIL $1: no $2 (PRISM_SHARED=${PRISM_SHARED:-unset})"
                echo "0 passed, 1 failed, 0 skipped"
                exit 1
        fi
        echo "SKIP $1: no $2"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
}

# part_missing WHAT: a part of a suite needs data the bundled copy lacks (the rocprof-compute
# 3.3 recordings, ...). With ../shared under run-all.sh it must be there: prints FAIL and
# returns 0; else prints SKIP and returns 1. Use: if part_missing X; then fail+1; else skip+1.
part_missing() {
        if [ "${PRISM_REQUIRE_DATA:-0}" = 1 ] && [ -z "${PRISM_SHARED_BUNDLED:-}" ]; then
                echo "FAIL no $1 (PRISM_SHARED=${PRISM_SHARED:-unset})"
                return 0
        fi
        echo "SKIP no $1 (not in the bundled data)"
        return 1
}
