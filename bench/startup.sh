#!/usr/bin/env bash
# Start-up of one recorded case, two binaries taking turns (bench/spawn-ab.c: posix_spawn,
# no shell in the timing), each round run only once both CPUs are idle (>= 90% over half a
# second in /proc/stat; up to a minute's wait, else it runs anyway and says so).
# Usage: bench/startup.sh REF_PRISM [NEW_PRISM] [WORKLOAD]   (RUNS=100 ROUNDS=3 EXTRA=...)
#   EXTRA="--save-dfs DIR" adds options to both (each binary gets DIR.a / DIR.b).
set -eu
cd "$(dirname "$0")/.."
ref=$1 new=${2:-./prism} w=${3:-../shared/rocprof-workloads/vcopy/MI200}
runs=${RUNS:-100} rounds=${ROUNDS:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -o "$tmp/spawn-ab" bench/spawn-ab.c
quiet() {
        local t0=$SECONDS a b c d e f g i1 t1 i2 t2
        while [ $((SECONDS - t0)) -lt 60 ]; do
                read -r _ a b c d e f g _ </proc/stat; t1=$((a + b + c + d + e + f + g)); i1=$d
                sleep 0.5
                read -r _ a b c d e f g _ </proc/stat; t2=$((a + b + c + d + e + f + g)); i2=$d
                [ $((100 * (i2 - i1) / (t2 - t1 + 1))) -ge 90 ] && return 0
        done
        echo "(not quiet after a minute: this round ran under load)"
}
extra_a=() extra_b=()
if [ -n "${EXTRA:-}" ]; then
        # shellcheck disable=SC2206
        e=($EXTRA)
        extra_a=("${e[@]}") extra_b=("${e[@]}")
        [ "${e[0]}" = --save-dfs ] && extra_a[1]=${e[1]}.a extra_b[1]=${e[1]}.b
fi
for r in $(seq "$rounds"); do
        quiet
        "$tmp/spawn-ab" "$runs" "$ref" analyze -p "$w" "${extra_a[@]}" -- "$new" analyze -p "$w" "${extra_b[@]}"
done
