#!/bin/bash
# GPU check of MPI ranks sharing one GPU (issue 21), on an NVIDIA node with Open MPI and
# the CUDA toolkit: builds tests/bin/mpi_ranks (tests/gpu/mpi_ranks.cu) if needed, then
# profiles it under mpirun -np 1, 2 and 4 (every rank on the same GPU, taking turns on the
# counters kernel by kernel), analyzes every rank, compares the ranks in panel 19, checks
# that every rank's instruction counts equal the single-rank run's (compare_replay.py), and
# that --ranks 0 on -np 4 profiles rank 0 alone while the job completes. Wall times are
# printed as TIME lines (plain mpirun and prism under mpirun). Usage:
#   [APP_ARGS="-n ELEMS"] [SKIP_APP_REPLAY=1] tests/gpu/run-mpi-check.sh [WORKDIR]
# APP_ARGS goes to every mpi_ranks run (default -n 33554432: 2 x 128 MiB per rank, beyond the
# L2, so that the DRAM counters are reproducible; with mpi_ranks' own 4M floats the arrays
# sit in the L2 and two identical single-rank runs already differ by more than 2 %,
# bench/replay-h100.md). A second single-rank profile measures that
# run-to-run floor (TIME/INFO lines "np=1 again").
. "$(dirname "$0")/check-lib.sh" prism-mpi "${1:-}"
export PRISM_DATA_DIR=$ROOT OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
APP=$ROOT/tests/bin/mpi_ranks
APP_ARGS=${APP_ARGS--n 33554432}
read -r -a ARGS <<<"$APP_ARGS"
if [ ! -x "$APP" ]; then
        (cd "$ROOT" && make tests/bin/mpi_ranks) >"$W/build.log" 2>&1 ||
                { echo "FAIL: cannot build mpi_ranks: $(tail -3 "$W/build.log" | tr '\n' ' ')"; echo "1 failures"; exit 1; }
fi
# every mpirun under a time limit: a hang is a failure, not a stuck check
MPIRUN=(timeout "${TMO:-120}" mpirun --oversubscribe --bind-to none)
cd "$W" || exit 1
for np in 1 2 4; do
        t=$(now); "${MPIRUN[@]}" -np $np "$APP" ${ARGS[@]+"${ARGS[@]}"} >"plain$np.out" 2>&1; echo "TIME mpi np=$np plain $(since "$t") rc=$?"
done
# the target as a child of each rank (what prism does), and the collector alone with the
# GPU lock, before prism itself
t=$(now); "${MPIRUN[@]}" -np 2 sh -c "\"$APP\" $APP_ARGS; true" >child2.out 2>&1
echo "TIME mpi np=2 target as a child of the rank $(since "$t") rc=$?"
t=$(now)
"${MPIRUN[@]}" -np 2 env CUDA_INJECTION64_PATH="$ROOT/libprism-cupti.so" \
        PRISM_CUPTI_METRICS=gpu__time_duration.sum,smsp__inst_executed.sum \
        PRISM_CUPTI_LOCK="$W/gpu.lock" PRISM_CUPTI_OUT="$W/direct.csv" PRISM_CUPTI_TIMING=1 \
        "$APP" ${ARGS[@]+"${ARGS[@]}"} >direct2.out 2>&1
echo "TIME mpi np=2 collector with the lock, no prism $(since "$t") rc=$?"
grep timing direct2.out | head -2 | sed 's/^/INFO: direct: /'
for np in 1 2 4; do
        rm -rf "workloads/mpi$np"
        t=$(now)
        "${MPIRUN[@]}" -np $np "$PRISM" profile -n "mpi$np" --no-roof -- "$APP" ${ARGS[@]+"${ARGS[@]}"} >"prof$np.out" 2>"prof$np.err"
        rc=$?
        echo "TIME mpi np=$np prism $(since "$t") rc=$rc"
        [ $rc -eq 0 ] || bad "np=$np: mpirun prism profile exited $rc: $(grep -v '^$' "prof$np.err" | tail -3 | tr '\n' ' ')"
        grep -E '^(rank|wrote)' "prof$np.out" | head -8 | sed "s/^/INFO: np=$np: /"
        dirs=$(ls -d workloads/mpi$np/*/rank*/*/ 2>/dev/null; [ $np -eq 1 ] && ls -d workloads/mpi1/*/ 2>/dev/null)
        n=$(for d in $dirs; do [ -f "$d/pmc_perf.csv" ] && echo "$d"; done | wc -l)
        [ "$n" -eq $np ] || bad "np=$np: $n rank workloads written, want $np"
        for d in $dirs; do
                [ -f "$d/pmc_perf.csv" ] || continue
                grep -o 'gpu_choice[^\n]*' "$d/sysinfo.csv" >/dev/null 2>&1
                "$PRISM" analyze -p "$d" >"$d/analyze.txt" 2>&1 || bad "np=$np: analyze $d failed"
                if [ $np -gt 1 ]; then
                        python3 "$ROOT/tests/gpu/compare_replay.py" "$(ls -d workloads/mpi1/*/ | head -1)/pmc_perf.csv" \
                                "$d/pmc_perf.csv" --label "np=$np $(basename "$(dirname "$d")")" --min-us 100 ||
                                fails=$((fails + 1))
                fi
        done
        if [ $np -gt 1 ]; then
                "$PRISM" analyze -p "workloads/mpi$np" -b 19 >"panel19-$np.txt" 2>&1 ||
                        bad "np=$np: analyze -b 19 failed: $(tail -1 "panel19-$np.txt")"
                grep -q "19.1 Kernel Time per Rank" "panel19-$np.txt" || bad "np=$np: no panel 19.1"
                grep -cE "^│ [0-9]+ │ +[0-9]+ │" "panel19-$np.txt" | sed "s/^/INFO: np=$np: panel 19 rows: /"
                # each rank on the GPU the binding rule names (local rank modulo the GPUs, no
                # CUDA_VISIBLE_DEVICES set): its sysinfo's UUID and PCI address are that GPU's
                ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
                for d in workloads/mpi$np/*/rank*/*/; do
                        r=$(basename "$(dirname "$d")"); r=${r#rank}
                        want=$(nvidia-smi --query-gpu=uuid,pci.bus_id --format=csv,noheader \
                                -i $((r % ngpu)) 2>/dev/null | tr 'A-F' 'a-f')
                        got=$(python3 -c 'import csv,sys; r=next(csv.DictReader(open(sys.argv[1]))); print(r.get("gpu_uuid",""), r.get("gpu_pci_bus",""))' "$d/sysinfo.csv")
                        echo "INFO: np=$np rank $r: $got (nvidia-smi GPU $((r % ngpu)): $want)"
                        wu=${want%%,*} wb=${want##*, }
                        [ "${got%% *}" = "$(echo "$wu" | tr 'A-F' 'a-f')" ] && [ "${got##* }" = "${wb: -12}" ] ||
                                bad "np=$np rank $r: sysinfo names '$got', the rule GPU $((r % ngpu)) is '$want'"
                        grep -q "${got%% *}" "panel19-$np.txt" || bad "np=$np: 19.1 lacks rank $r's GPU"
                done
        fi
done
# the run-to-run floor: a second single-rank profile against the first
rm -rf workloads/again1
t=$(now)
"${MPIRUN[@]}" -np 1 "$PRISM" profile -n again1 --no-roof -- "$APP" ${ARGS[@]+"${ARGS[@]}"} >again1.out 2>&1
echo "TIME mpi np=1 again $(since "$t") rc=$?"
python3 "$ROOT/tests/gpu/compare_replay.py" "$(ls -d workloads/mpi1/*/ | head -1)/pmc_perf.csv" \
        "$(ls -d workloads/again1/*/ | head -1)/pmc_perf.csv" --label "np=1 again" --min-us 100 |
        sed 's/^FAIL: /INFO: run-to-run: /'
rm -rf workloads/only0
t=$(now)
"${MPIRUN[@]}" -np 4 "$PRISM" profile -n only0 --ranks 0 --no-roof -- "$APP" ${ARGS[@]+"${ARGS[@]}"} >only0.out 2>only0.err
rc=$?
echo "TIME mpi np=4 --ranks 0 $(since "$t") rc=$rc"
[ $rc -eq 0 ] || bad "--ranks 0: exit $rc: $(tail -2 only0.err | tr '\n' ' ')"
n=$(ls workloads/only0/*/rank*/*/pmc_perf.csv 2>/dev/null | wc -l)
[ "$n" -eq 1 ] && ls workloads/only0/*/rank0/*/pmc_perf.csv >/dev/null 2>&1 ||
        bad "--ranks 0: $n workloads, want rank0's alone"
# application replay under MPI (the same per-kernel turns, one run per pass)
[ "${SKIP_APP_REPLAY:-0}" = 1 ] && { echo "$fails failures"; [ "$fails" -eq 0 ]; exit; }
rm -rf workloads/app2
t=$(now)
"${MPIRUN[@]}" -np 2 "$PRISM" profile -n app2 --replay application -b 2 --no-roof -- "$APP" ${ARGS[@]+"${ARGS[@]}"} >app2.out 2>app2.err
rc=$?
echo "TIME mpi np=2 application replay -b 2 $(since "$t") rc=$rc"
[ $rc -eq 0 ] || bad "np=2 application replay: exit $rc: $(tail -2 app2.err | tr '\n' ' ')"
echo "$fails failures"
[ "$fails" -eq 0 ]
