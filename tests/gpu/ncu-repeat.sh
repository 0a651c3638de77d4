#!/bin/bash
# GPU helper (opt-in; needs an NVIDIA GPU with CUPTI and ncu): the noise floor of the
# prism-against-ncu comparison. Records tests/bin/kinds and the samples REPS times with each
# tool at the same settings, so that tests/gpu/ncu_noise.py can set prism's difference from
# ncu next to ncu's difference from itself and prism's from itself. Build first:
#   make STATIC_LIBS=1 prism libprism-cupti.so tests/bin/kinds tests/bin/samples
# then: tests/gpu/ncu-repeat.sh OUTDIR   (OUTDIR/work gets rep-N/MODE-SAMPLE/ and rep-N/ncu-SAMPLE-details.csv)
# CLOCK (base) is both tools' clock control, CACHE (all) both tools' cache control;
# MODES lists prism's replay modes to record (default "kernel application"); SKIP_NCU=1 records
# prism only (to set a changed prism against an earlier run's ncu data).
. "$(dirname "$0")/ncu-lib.sh" "${1:-}"
CLOCK=${CLOCK:-base}
CACHE=${CACHE:-all}
REPS=${REPS:-2}
read -r -a MODES <<<"${MODES:-kernel application}"
prog() { # the program of sample $1
        case $1 in
        kinds) echo "$ROOT/tests/bin/kinds all -l 2" ;;
        *) echo "$ROOT/tests/bin/samples $1" ;;
        esac
}
for r in $(seq "$REPS"); do
        mkdir -p "rep-$r"
        for s in kinds stream compute; do
                read -r -a p <<<"$(prog "$s")"
                for m in "${MODES[@]}"; do
                        step "rep-$r/prism-$m-$s" 200 "$PRISM" profile -n "$m-$s" -p "rep-$r/$m-$s" \
                                --backend cupti --no-roof --force --replay "$m" --clock-control "$CLOCK" \
                                --cache-control "$CACHE" -- "${p[@]}"
                done
                [ "${SKIP_NCU:-0}" = 1 ] && continue
                c=()
                [ "$s" = kinds ] || c=(-c 4)
                step "rep-$r/ncu-$s" 200 ncu --set full --clock-control "$CLOCK" --cache-control "$CACHE" \
                        ${c[@]+"${c[@]}"} -f -o "rep-$r/ncu-$s" "${p[@]}"
                [ -f "rep-$r/ncu-$s.ncu-rep" ] &&
                        ncu -i "rep-$r/ncu-$s.ncu-rep" --csv --print-units base --page details \
                                >"rep-$r/ncu-$s-details.csv" 2>&1
        done
done
cd "$W" && tar czf prism-ncu-repeat.tgz --exclude='*.ncu-rep' work && ls -la prism-ncu-repeat.tgz
