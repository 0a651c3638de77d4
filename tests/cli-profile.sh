#!/usr/bin/env bash
# CLI tests of `prism profile` on a fake AMD GPU: tests/fake/sysfs-* stand for the KFD
# topology, tests/fake/rocprofv3 for ROCm's profiler (on PATH), tests/fake/gpu-app for the
# application. Rows: environment, expected exit code, a pattern the output must contain,
# arguments; bad input must give exactly one line on stderr and exit code 2. Then checks on
# the workload written, and `prism analyze` on it.
set -u
cd "$(dirname "$0")/.."
P=${PRISM:-$PWD/prism}
case $P in /*) ;; *) P=$PWD/$P ;; esac
F=$PWD/tests/fake
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export PATH="$F:$PATH" PRISM_SYSFS_ROOT="$F/sysfs-mi200" PRISM_DATA_DIR="$PWD"
unset ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES FAKE_ROCPROF_DROP FAKE_ROCPROF_FAIL FAKE_ROCPROF_LOG
pass=0 fail=0 skip=0
APP=$F/gpu-app
VEC='vecCopy(double*, double*, double*, int, int) [clone .kd]'

if ! command -v python3 >/dev/null; then
        echo "SKIP cli-profile: the fake rocprofv3 needs python3"
        echo "0 passed, 0 failed, 1 skipped"
        exit 0
fi

# row: ENV ("-" for none, else "VAR=value ...") | expected exit | pattern | prism args...
check() {
        local envs=$1 want=$2 pat=$3; shift 3
        local out err rc
        local -a e=()
        [ "$envs" = - ] || read -r -a e <<<"$envs"
        out=$(env ${e[@]+"${e[@]}"} "$P" "$@" 2>"$T/err"); rc=$?
        err=$(cat "$T/err")
        printf '%s\n' "$out" >"$T/out"
        local ok=1
        [ "$rc" -eq "$want" ] || ok=0
        printf '%s\n%s\n' "$out" "$err" | grep -Eq -- "$pat" || ok=0
        if [ "$want" -eq 2 ] && [ "$(printf '%s' "$err" | grep -c '')" -ne 1 ]; then ok=0; fi
        if [ $ok -eq 1 ]; then pass=$((pass + 1)); echo "ok   prism $*";
        else fail=$((fail + 1)); echo "FAIL prism $* (exit $rc, want $want /$pat/)"; echo "$out" | tail -5; echo "$err" | head -3; fi
}

# a condition on the files: description | command...
expect() {
        local what=$1; shift
        if "$@"; then pass=$((pass + 1)); echo "ok   $what";
        else fail=$((fail + 1)); echo "FAIL $what"; fi
}

# cell ROW COLUMN FILE: a CSV cell by column name (row 1 is the first data row)
cell() {
        python3 - "$@" <<'EOF'
import csv, sys
row, col, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(path)))
print(rows[row - 1][col] if row <= len(rows) and col in rows[0] else "MISSING")
EOF
}

# the fake profiler's value of a counter for the n-th dispatch (from 0) of a kernel
fake_value() {
        python3 - "$@" <<'EOF'
import sys, zlib
counter, kernel, occ = sys.argv[1], sys.argv[2], int(sys.argv[3])
base = zlib.crc32(counter.encode()) % 997 + 3
k = zlib.crc32(kernel.encode()) % 13 + 1
print(sum(base * k * (occ + 1) + c for c in range(32)))
EOF
}

# ---- options ----
check - 0 "usage: prism profile" profile --help
check - 2 "missing -n NAME" profile -- "$APP"
check - 2 "no application to profile: give it after '--'" profile -n x
check - 2 "bad --join-type 'row'" profile -n x --join-type row -- "$APP"
check - 2 "--arch plans for a GPU that is not here" profile -n x --arch gfx90a -- "$APP"
check - 2 "bad dispatch 'x1'" profile -n x -d x1 -- "$APP"
check - 2 "bad dispatch '5:2'" profile -n x -d 5:2 -- "$APP"
check - 2 "bad --pass-timeout 'soon'" profile -n x --pass-timeout soon -- "$APP"
check - 2 "unknown option '--frob'" profile -n x --frob -- "$APP"
check - 2 "option '-k' needs a value" profile -n x -k -- "$APP"
check - 2 "bad workload name 'a/b'" profile -n a/b -- "$APP"
check - 2 "unknown backend 'foo'" profile -n x -p "$T/x" --backend foo -- "$APP"
check - 2 "--roof-only cannot go with --no-roof" profile -n x --roof-only --no-roof
# no GPU benchmark can run here: the roofline command says why, in one line
check - 2 "roofline|GPU" profile -n x -p "$T/roof" --roof-only
expect "--roof-only made the workload directory" test -d "$T/roof"

# ---- --dry-run: one line per pass, perfmon/ written, nothing run ----
for arch in gfx908 gfx90a gfx940 gfx941 gfx942; do
        check - 0 "^pass 0: " profile -n dry -p "$T/dry-$arch" --dry-run --arch "$arch"
        n=$(grep -c '^pass [0-9]*: ' "$T/out")
        files=$(ls "$T/dry-$arch/perfmon" | grep -c '\.txt$')
        expect "$arch: $n passes (at most 12), one perfmon file each" \
                test "$n" -ge 5 -a "$n" -le 12 -a "$n" -eq "$files"
        bound=$(sed -n 's/.*no plan can have fewer than \([0-9]*\):$/\1/p' "$T/out")
        expect "$arch: --dry-run prints the runs and their lower bound, and meets it" \
                grep -q "^$n application runs .*fewer than $n:$" "$T/out"
        expect "$arch: the bound's reason: SQ's counters and accumulate pairs per run" \
                grep -Eq "^  SQ +[0-9]+ counters \+ 2 x [0-9]+ accumulate = [0-9]+ slots, 8 per run" "$T/out"
        expect "$arch: nothing but perfmon/ written" test ! -e "$T/dry-$arch/pmc_perf.csv"
        echo "     $arch: $(grep -o '[0-9]* passes.*bound [0-9]*' "$T/err")"
done
expect "an accumulate pass starts with its counter and SQ_ACCUM_PREV_HIRES" \
        grep -q "^pmc: SQ_LEVEL_WAVES SQ_ACCUM_PREV_HIRES " "$T"/dry-gfx90a/perfmon/SQ_LEVEL_WAVES.txt
expect "per-channel counters expanded for 32 channels" \
        grep -q "TCC_HIT\[31\]" "$T"/dry-gfx90a/perfmon/*.txt
expect "MI300X: 128 channels" grep -q "TCC_HIT\[127\]" "$T"/dry-gfx942/perfmon/*.txt
# gfx950 (MI350; rocprof-compute 3.3's data): plans with its block limits, 8 XCDs x 16 channels,
# in as many runs as its lower bound (TCC: 60 counters at 4 per run)
check - 0 "^pass 0: " profile -n dry -p "$T/dry-gfx950" --dry-run --arch gfx950
n950=$(grep -c '^pass [0-9]*: ' "$T/out")
expect "MI350: $n950 runs, its lower bound" grep -q "^$n950 application runs .*fewer than $n950:$" "$T/out"
# options the backend cannot honour: one-line errors, dry run included
check - 2 "--replay kernel: the rocprof backend supports only application replay" \
        profile -n dry -p "$T/dry-rk" --dry-run --arch gfx90a --replay kernel
check - 2 "--cache-control all: the rocprof backend cannot flush" \
        profile -n dry -p "$T/dry-cc" --dry-run --arch gfx90a --cache-control all
# > plan.txt 2>&1: the plan's lines whole, the summary (stderr) after them on a line of its own
"$P" profile -n dry -p "$T/dry-one" --dry-run --arch gfx90a >"$T/plan.txt" 2>&1
expect "--dry-run > plan.txt 2>&1: every pass line whole, the summary last" python3 - "$T/plan.txt" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
passes = [l for l in lines if l.startswith("pass ")]
ok = bool(passes) and all(re.fullmatch(r"pass \d+: [^ ].*[^ ]", l) and " passes (" not in l
                          for l in passes)
ok = ok and re.match(r"\d+ passes \(", [l for l in lines if l][-1]) is not None
sys.exit(0 if ok else 1)
EOF
expect "MI350: 128 channels" grep -q "TCC_HIT\[127\]" "$T"/dry-gfx950/perfmon/*.txt
expect "MI350: its F6/F4 MFMA counter is planned" \
        grep -q "SQ_INSTS_VALU_MFMA_MOPS_F6F4" "$T"/dry-gfx950/perfmon/*.txt
check - 2 "unknown architecture 'gfx1234'" profile -n dry -p "$T/dry-x" --dry-run --arch gfx1234
# NVIDIA H100 (sm_90): the pass counts of the shipped metric sets are data (hopper.yaml
# pass_counts), so the plan needs neither CUPTI nor a cache: a prism with no libprism-cupti.so
# beside it, an empty cache, and at most a second (CUPTI's answers took 10 s here)
mkdir -p "$T/nolib"
cp "$P" "$T/nolib/prism"
t0=$(date +%s%N)
PRISM_CACHE_DIR=none PRISM_CUPTI_LIB= "$T/nolib/prism" profile -n dry -p "$T/dry-sm90" --dry-run \
        --arch sm_90 >"$T/out" 2>"$T/err"
rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
n90=$(grep -c '^pass [0-9]*: gpu__time_duration.sum' "$T/out")
expect "sm_90 plans without CUPTI from the recorded pass counts (rc $rc, $n90 passes, $ms ms)" \
        test "$rc" -eq 0 -a "$n90" -ge 30 -a "$ms" -le 1000
expect "sm_90: the SASS metrics keep a pass of their own" \
        grep -q '^pass [0-9]*: gpu__time_duration.sum smsp__sass_' "$T/out"
PRISM_CACHE_DIR=none PRISM_CUPTI_LIB= "$T/nolib/prism" profile -n dry -p "$T/dry-sm90b" --dry-run \
        --arch sm_90 -b 7 >"$T/out" 2>"$T/err"
expect "sm_90 -b 7 plans from the data too (rc $?)" grep -q '^pass 0: gpu__time_duration.sum' "$T/out"
# the launch attributes (hopper.yaml launch:) go to the first run only, no pass counted for them
expect "sm_90 -b 7: launch__ metrics in pass 0" \
        grep -q '^pass 0: .*launch__shared_mem_per_block_dynamic' "$T/out"
expect "sm_90 -b 7: launch__ metrics in no other pass" \
        bash -c "! grep -v '^pass 0: ' '$T/out' | grep -q 'launch__'"
# without the data the same plan needs the profiler library: one line saying so
mkdir -p "$T/data/metrics"
cp -r panels rules "$T/data/"
cp metrics/*.yaml "$T/data/metrics/"
sed -i '/^pass_counts:/,$d' "$T/data/metrics/hopper.yaml"
PRISM_DATA_DIR=$T/data PRISM_CACHE_DIR=none PRISM_CUPTI_LIB= "$T/nolib/prism" profile -n dry \
        -p "$T/dry-sm90c" --dry-run --arch sm_90 >"$T/out" 2>"$T/err"
expect "without pass_counts sm_90 needs libprism-cupti.so (rc $?, one line)" \
        grep -q "cannot find libprism-cupti.so" "$T/err"
check - 2 "workload '.*dry-gfx90a' already exists; use --force" \
        profile -n dry -p "$T/dry-gfx90a" --dry-run --arch gfx90a
check - 0 "^pass 0: " profile -n dry -p "$T/dry-gfx90a" --dry-run --arch gfx90a --force
check - 0 "^pass 0: .*SQC?_" profile -n dry -p "$T/dry-here" --dry-run
check - 0 "TCC_HIT" profile -n dry -p "$T/dry-tcc" --dry-run -b TCC
expect "-b TCC plans no instruction-cache counter" bash -c "! grep -q SQC_ICACHE_HITS '$T/out'"
check - 2 "no gfx90a metric uses a counter of block 'XYZ'" profile -n dry -p "$T/dry-xyz" --dry-run -b XYZ

# ---- a whole profile through the fake rocprofv3 ----
W=$T/vc
check FAKE_ROCPROF_LOG=$T/rocprof.log 0 "wrote .*vc: 7 dispatches, [0-9]+ passes" profile -n vc -p "$W" --no-roof -- "$APP"
expect "ROCm 6.4: the counters file in the per-counter format" grep -q "(schema legacy): .*TCC_HIT\[0\]" "$T/rocprof.log"
# gfx90a's counters rocprofv3 lacks (metrics/cdna2.yaml): aliases collected with the TCC_EA_*
# counter they name, the SQ_VMEM_* events defined for it; one value per hardware event
expect "MI200: TCC_EA0_WRREQ_sum requested as an alias of TCC_EA_WRREQ" \
        grep -q "TCC_EA0_WRREQ_sum" "$T/rocprof.log"
expect "MI200: the SQ_VMEM_* events requested (defined in -E)" \
        grep -q "SQ_VMEM_TA_CMD_FIFO_FULL" "$T/rocprof.log"
expect "MI200: an alias reads the same hardware event as the counter it names" python3 - "$W/pmc_perf.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if rows and "TCC_EA0_WRREQ_sum" in rows[0] and "TCC_EA_WRREQ[0]" in rows[0] and
         all(float(r["TCC_EA0_WRREQ_sum"]) == sum(float(r["TCC_EA_WRREQ[%d]" % i]) for i in range(32))
             for r in rows) else 1)
EOF
expect "one rocprofv3 run per pass" test "$(grep -c '^pass' "$T/rocprof.log")" -eq "$(ls "$W/perfmon" | grep -c '\.txt$')"
expect "sysinfo: rocm_version" test "$(cell 1 rocm_version "$W/sysinfo.csv")" = "6.4.1-120"
expect "sysinfo: ip_blocks from the family's data, without the roofline (--no-roof)" \
        test "$(cell 1 ip_blocks "$W/sysinfo.csv")" = "SQ|LDS|SQC|TA|TD|TCP|TCC|SPI|CPC|CPF"
head=$(head -1 "$W/pmc_perf.csv")
expect "pmc_perf.csv starts with rocprof-compute's dispatch columns" \
        test "${head%%,SQ*}" = "Dispatch_ID,Kernel_Name,GPU_ID,Grid_Size,Workgroup_Size,LDS_Per_Workgroup,Scratch_Per_Workitem,Arch_VGPR,Accum_VGPR,SGPR,wave_size"
expect "pmc_perf.csv ends with the timestamps" test "${head##*,Start_Timestamp,}" = "End_Timestamp"
expect "one row per dispatch" test "$(python3 -c "import csv,sys; print(len(list(csv.reader(open(sys.argv[1])))))" "$W/pmc_perf.csv")" -eq 8
for f in sysinfo.csv timestamps.csv pmc_dispatch_info.csv SQ_LEVEL_WAVES.csv SQ_INST_LEVEL_LDS.csv \
        SQ_IFETCH_LEVEL.csv perfmon/pmc_perf_0.txt; do
        expect "$f written" test -s "$W/$f"
done
expect "no scratch directory left" test ! -e "$W/.prism-passes"
expect "no temporary file left" bash -c "! ls -a '$W' | grep -q tmp"
expect "sysinfo: MI200, gfx90a, 104 CUs" test "$(cell 1 gpu_model "$W/sysinfo.csv") $(cell 1 gpu_arch "$W/sysinfo.csv") $(cell 1 cu_per_gpu "$W/sysinfo.csv")" = "MI200 gfx90a 104"
expect "sysinfo: workload name and command" test "$(cell 1 workload_name "$W/sysinfo.csv")|$(cell 1 command "$W/sysinfo.csv")" = "vc|$APP"
expect "kernel names kept whole (commas, quotes)" test "$(cell 2 Kernel_Name "$W/pmc_perf.csv")" = 'reduce<float, "sum">'
expect "dispatch ids from 0 in launch order" test "$(cell 7 Dispatch_ID "$W/pmc_perf.csv") $(cell 7 Grid_Size "$W/pmc_perf.csv")" = "6 2048"
# the same dispatch in every pass: values join by kernel and occurrence
for c in SQ_WAVES GRBM_GUI_ACTIVE TCC_HIT_sum TA_TA_BUSY_sum SQC_ICACHE_HITS; do
        expect "$c of the 3rd vecCopy is the fake's value" \
                test "$(cell 5 $c "$W/pmc_perf.csv")" = "$(fake_value "${c%_sum}" "$VEC" 2)"
done
expect "per-channel values sum to TCC_HIT_sum" python3 - "$W/pmc_perf.csv" <<'EOF'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
sys.exit(0 if sum(float(r["TCC_HIT[%d]" % i]) for i in range(32)) == float(r["TCC_HIT_sum"]) else 1)
EOF
# every counter of pmc_perf.csv, whichever run it came from (a normal run or the free slots of
# an accumulate run), and every accumulated value: the fake profiler's value for that dispatch
expect "every merged value is the fake's value for its dispatch" python3 - "$W" <<'EOF'
import csv, os, re, sys, zlib
w = sys.argv[1]
def value(counter, kernel, occ, channel=None):
    base = zlib.crc32(counter.encode()) % 997 + 3
    k = zlib.crc32(kernel.encode()) % 13 + 1
    if channel is None:
        return sum(base * k * (occ + 1) + c for c in range(32))
    return base * k * (occ + 1) + channel
skip = {"Dispatch_ID", "Kernel_Name", "GPU_ID", "Grid_Size", "Workgroup_Size", "LDS_Per_Workgroup",
        "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR", "wave_size", "Start_Timestamp",
        "End_Timestamp"}
# the MI200 family's aliases (metrics/cdna2.yaml `counters:`): one hardware event, two names
alias = dict(re.findall(r"^  ([A-Z0-9_]+): \{same_as: ([A-Z0-9_]+)\}$",
                        open("metrics/cdna2.yaml").read(), re.M))
if not alias:
    sys.exit("no aliases in metrics/cdna2.yaml")
def hw(c):
    return alias.get(c, c)
def check(path, accum=None):
    rows, seen, n = list(csv.DictReader(open(path))), {}, 0
    for r in rows:
        occ = seen.get(r["Kernel_Name"], 0)
        seen[r["Kernel_Name"]] = occ + 1
        for c, v in r.items():
            if c in skip:
                continue
            m = re.fullmatch(r"([A-Z0-9_]+)\[(\d+)\]", c)
            if c == "SQ_ACCUM_PREV_HIRES":
                want = 1000 * value(accum, r["Kernel_Name"], occ)
            elif m:
                want = value(hw(m.group(1)), r["Kernel_Name"], occ, int(m.group(2)))
            else:
                want = value(hw(c[:-4] if c.endswith("_sum") else c), r["Kernel_Name"], occ)
            if float(v) != want:
                sys.exit("%s: %s of row %s is %s, want %s" % (path, c, r["Dispatch_ID"], v, want))
            n += 1
    return n
n = check(os.path.join(w, "pmc_perf.csv"))
for f in os.listdir(os.path.join(w, "perfmon")):
    if not f.startswith("pmc_perf_"):
        n += check(os.path.join(w, f[:-4] + ".csv"), f[:-4])
sys.exit(0 if n > 1000 else "only %d values" % n)
EOF
expect "accumulate value in SQ_LEVEL_WAVES.csv, aligned with pmc_perf.csv" \
        test "$(cell 5 SQ_ACCUM_PREV_HIRES "$W/SQ_LEVEL_WAVES.csv") $(cell 5 Kernel_Name "$W/SQ_LEVEL_WAVES.csv")" = "$((1000 * $(fake_value SQ_LEVEL_WAVES "$VEC" 2))) $VEC"
check - 0 "Top Kernels" analyze -p "$W"
expect "analyze shows both kernels" grep -q 'reduce<float, "sum">' "$T/out"
check - 0 "Speed-of-Light" analyze -p "$W" -b 2
check - 2 "workload '.*vc' already exists; use --force to replace it" profile -n vc -p "$W" --no-roof -- "$APP"
check - 0 "wrote .*vc: 7 dispatches" profile -n vc -p "$W" --force --no-roof -- "$APP"

# ---- filters and joins ----
check - 0 "wrote .*: 3 dispatches" profile -n k -p "$T/k" --no-roof -k reduce -- "$APP"
expect "-k keeps only reduce, ids renumbered" test "$(cell 3 Kernel_Name "$T/k/pmc_perf.csv") $(cell 3 Dispatch_ID "$T/k/pmc_perf.csv")" = 'reduce<float, "sum"> 2'
check - 0 "wrote .*: 3 dispatches" profile -n d -p "$T/d" --no-roof -d 0 2:4 -- "$APP"
expect "-d 0 2:4 keeps dispatches 0, 2 and 3" test "$(cell 3 Kernel_Name "$T/d/pmc_perf.csv")" = 'reduce<float, "sum">'
check - 2 "no dispatch of the target matches the -k/-d filters" profile -n d -p "$T/none" --no-roof -k nosuchkernel -- "$APP"
check - 0 "wrote .*: 7 dispatches" profile -n g -p "$T/g" --no-roof --join-type grid -- "$APP"

# ---- failures name the pass ----
# (row environments cannot hold spaces: exported for these two)
export FAKE_ROCPROF_DROP="3:$VEC"
check - 2 "pass 3 has 3 dispatches of kernel 'vecCopy\(double\*, .*' but pass 0 has 4" \
        profile -n m -p "$T/m" --no-roof -- "$APP"
check - 2 "pass 3 has no dispatches of kernel 'vecCopy.*' with grid 2048 but pass 0 has 1 dispatch" \
        profile -n m -p "$T/m2" --no-roof --join-type grid -- "$APP"
unset FAKE_ROCPROF_DROP
check - 2 "pass 0: rocprofv3 exited with status 3: gpu-app: failing as asked" \
        profile -n f -p "$T/f" --no-roof -- "$APP" --fail 3
check FAKE_ROCPROF_FAIL=5 2 "pass 5: rocprofv3 exited with status 1: .*simulated failure in pass 5 \(log: .*pass_5/log.txt\)" \
        profile -n r -p "$T/r" --no-roof -- "$APP"
expect "a failed pass keeps its log" test -s "$T/r/.prism-passes/pass_5/log.txt"
check - 2 "workload '.*r' already exists; use --force to replace it or --resume to finish it" \
        profile -n r -p "$T/r" --no-roof -- "$APP"
check - 0 "wrote .*r: 7 dispatches" profile -n r -p "$T/r" --no-roof --resume -- "$APP"
expect "--resume reused the 5 passes that had finished" test "$(grep -c 'reused (--resume)' "$T/out")" -eq 5
check - 2 "pass 0: the target ran past --pass-timeout 1 s" \
        profile -n t -p "$T/t" --no-roof --pass-timeout 1 -- "$APP" --sleep 20
check PRISM_SYSFS_ROOT=$F/sysfs-cpuonly 2 "no GPU profiler available" profile -n c -p "$T/c" --no-roof -- "$APP"
check ROCR_VISIBLE_DEVICES=5 2 "ROCR_VISIBLE_DEVICES=5 names GPU 5, but this node has 2 GPUs" \
        profile -n c -p "$T/c" --no-roof -- "$APP"

# replay modes, progress, --ranks, --clock-control (issues 14, 21, 15)
check - 2 "^prism: --replay kernel: the rocprof backend supports only application replay$" \
        profile -n k -p "$T/k" --no-roof --replay kernel -- "$APP"
check - 2 "bad --replay 'warp' \(want kernel or application\)" profile -n k -p "$T/k" --replay warp -- "$APP"
check - 2 "bad --ranks '1-x'" profile -n k -p "$T/k" --ranks 1-x -- "$APP"
check - 2 "bad --clock-control 'turbo'" profile -n k -p "$T/k" --clock-control turbo -- "$APP"
check - 2 "bad --cache-control 'some' \(want all or none\)" profile -n k -p "$T/k" --cache-control some -- "$APP"
check - 2 "^prism: --cache-control all: the rocprof backend cannot flush the GPU caches between kernels \(use --cache-control none\)$" \
        profile -n k -p "$T/k" --no-roof --cache-control all -- "$APP"
# the plan's run count, from its dry run
NP=$("$P" profile -n dr -p "$T/dr" --no-roof --dry-run -- "$APP" 2>&1 | sed -n 's/^\([0-9]*\) application runs .*/\1/p')
expect "dry run: a plan of a few runs ($NP)" test "${NP:-0}" -ge 2
check - 0 "in $NP runs \(application replay; caches not flushed\)" profile -n q -p "$T/q" --no-roof --quiet -- "$APP"
expect "rocprof: caches not flushed, said in sysinfo (cache_control none)" test "$(cell 1 cache_control "$T/q/sysinfo.csv")" = none
expect "--quiet: no progress lines" test "$(grep -c '^pass [0-9]' "$T/out")" -eq 0
"$P" profile -n nt -p "$T/nt" --no-roof -- "$APP" >"$T/nt.out" 2>"$T/nt.err"
expect "not a terminal: plain pass lines on stdout" test "$(grep -c "^pass [0-9]* ([0-9]* of $NP)" "$T/nt.out")" -eq "$NP"
expect "not a terminal: no carriage return or escape on stderr or stdout" \
        sh -c "! grep -q \"\$(printf '[\\r\\033]')\" '$T/nt.err' '$T/nt.out'"
check - 0 "clocks: none \(base refused: the rocprof backend cannot lock GPU clocks\)" \
        profile -n cb -p "$T/cb" --no-roof --clock-control base -- "$APP"
expect "--clock-control base refused: said in sysinfo" grep -q "base refused" "$T/cb/sysinfo.csv"
check "OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 SLURMD_NODENAME=n7" \
        0 "not profiled \(--ranks\): running the program $NP times" \
        profile -n rk -p "$T/rk" --no-roof --ranks 0 -- "$APP"
expect "--ranks 0: rank 1 writes nothing" test ! -e "$T/rk/n7/rank1"
check "FAKE_ROCPROF_FAIL=5 OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 SLURMD_NODENAME=n7" \
        2 "^prism: rank 1, GPU 1 of 2 \(local rank 1, round-robin\): pass 5: rocprofv3 exited" \
        profile -n rf -p "$T/rf" --no-roof -- "$APP"

# ---- MI300X: the default directory, 8 XCDs of per-channel counters ----
mkdir -p "$T/cwd"
out=$(cd "$T/cwd" && PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_LOG=$T/rocprof300.log "$P" profile -n big --no-roof -- "$APP" 2>&1); rc=$?
expect "ROCm 7: the counters file of schema version 1" grep -q "(schema 1): .*TCC_HIT\[127\]" "$T/rocprof300.log"
expect "MI300X profile into workloads/big/MI300X_A1 (exit $rc)" test $rc -eq 0 -a -s "$T/cwd/workloads/big/MI300X_A1/pmc_perf.csv"
expect "MI300X: TCC_HIT[127] collected" grep -q 'TCC_HIT\[127\]' "$T/cwd/workloads/big/MI300X_A1/pmc_perf.csv"
check - 0 "Top Kernels" analyze -p "$T/cwd/workloads/big/MI300X_A1"

# MPI: two ranks (as Open MPI's mpirun starts them) write NAME/<node>/rank<N>/<model>/ each,
# with the raw data also in prism.db, and analyze shows them together with a rank filter
mkdir -p "$T/mpi"
for r in 0 1; do
        check "OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=$r SLURMD_NODENAME=n7" \
                0 "wrote .*rank$r" profile -n mpi -p "$T/mpi/job" --no-roof -- "$APP"
done
for r in 0 1; do
        [ -f "$T/mpi/job/n7/rank$r/MI200/pmc_perf.csv" ] && [ -f "$T/mpi/job/n7/rank$r/MI200/prism.db" ] &&
                { pass=$((pass + 1)); echo "ok   rank $r wrote its own CSV files and prism.db"; } ||
                { fail=$((fail + 1)); echo "FAIL rank $r output: $(find "$T/mpi" -maxdepth 5 | head)"; }
done
expect "rank 1's sysinfo says how its GPU was chosen" \
        grep -q "GPU 1 of 2 (local rank 1, round-robin)" "$T/mpi/job/n7/rank1/MI200/sysinfo.csv"
# each rank's GPU named by the KFD topology: the UUID ROCR_VISIBLE_DEVICES takes and the
# PCI address (the fake MI200's nodes 1 and 2: unique_id ...50e/...50f, buses 03 and 05)
expect "rank 0's sysinfo: GPU-d531f770b27dc50e at 0000:03:00.0" test \
        "$(cell 1 gpu_uuid "$T/mpi/job/n7/rank0/MI200/sysinfo.csv") $(cell 1 gpu_pci_bus "$T/mpi/job/n7/rank0/MI200/sysinfo.csv")" \
        = "GPU-d531f770b27dc50e 0000:03:00.0"
expect "rank 1's sysinfo: GPU-d531f770b27dc50f at 0000:05:00.0" test \
        "$(cell 1 gpu_uuid "$T/mpi/job/n7/rank1/MI200/sysinfo.csv") $(cell 1 gpu_pci_bus "$T/mpi/job/n7/rank1/MI200/sysinfo.csv")" \
        = "GPU-d531f770b27dc50f 0000:05:00.0"
check - 0 "19\\.1" analyze -p "$T/mpi/job" -b 19
"$P" analyze -p "$T/mpi/job" -b 19.1 --save-dfs "$T/dfs19" >/dev/null 2>&1
expect "19.1 names each rank's GPU and PCI address" \
        grep -q '^1,1,n7,.*,GPU-d531f770b27dc50f,0000:05:00.0$' "$T/dfs19/19.1_Kernel_Time_per_Rank.csv"
expect "19.1: rank 0 on the other GPU" \
        grep -q '^0,0,n7,.*,GPU-d531f770b27dc50e,0000:03:00.0$' "$T/dfs19/19.1_Kernel_Time_per_Rank.csv"
check - 0 "2\\.1\\.1 " analyze -p "$T/mpi/job" --rank 1 -b 2.1.1
check - 0 "Speed-of-Light" analyze -p "$T/mpi/job/n7/rank1/MI200/prism.db" -b 2.1

# ---- PC sampling (panel 21): a run of its own through rocprofv3's PC-sampling options ----
PS=$T/pcs
check "PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_LOG=$T/pcs.log" 0 \
        "PC sampling: 4 sampled instructions" profile -n pcs -p "$PS" --no-roof -b 21 2 -- "$APP"
expect "-b 21: one PC-sampling run, rocprof-compute's defaults (stochastic, cycles, 1048576)" \
        test "$(grep -c '^pc sampling: stochastic cycles 1048576$' "$T/pcs.log")" -eq 1
expect "the per-process results file lands in the workload" \
        bash -c "ls '$PS' | grep -Eq '^[0-9]+_ps_file_results\.json$'"
expect "panel 21 reads it: vecCopy's 4 dispatches x 8 stalled samples at entry + 0x10" python3 - "$P" "$PS" "$T/pcs-dfs" <<'EOF'
import csv, glob, subprocess, sys
p, w, out = sys.argv[1:4]
subprocess.run([p, "analyze", "-p", w, "-b", "21.1", "--save-dfs", out], capture_output=True)
f = glob.glob(out + "/21.1_*.csv")
rows = list(csv.DictReader(open(f[0]))) if f else []
vc = [r for r in rows if r["Kernel_Name"].startswith("vecCopy") and r["offset"] == "0x2010"]
sys.exit(0 if len(rows) == 4 and vc and vc[0]["count_stalled"] == "32" and
         vc[0]["stall_reason"] == "WAITCNT: 32" else 1)
EOF
check "PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_LOG=$T/pcs2.log" 0 "wrote" \
        profile -n pcs -p "$T/pcs2" --no-roof -b 21 2 --pc-sampling-method host_trap \
        --pc-sampling-interval 100 -- "$APP"
expect "host_trap: unit time, the interval in microseconds as given" \
        grep -q '^pc sampling: host_trap time 100$' "$T/pcs2.log"
check "PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_LOG=$T/pcs3.log" 0 "wrote" \
        profile -n pcs -p "$T/pcs3" --no-roof -b 2 -- "$APP"
expect "AMD without -b 21: no PC-sampling run" bash -c "! grep -q '^pc sampling' '$T/pcs3.log'"
check "PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_LOG=$T/pcs4.log" 0 "wrote" \
        profile -n pcs -p "$T/pcs4" --no-roof -b 21 2 --no-pc-sampling -- "$APP"
expect "--no-pc-sampling: no PC-sampling run" bash -c "! grep -q '^pc sampling' '$T/pcs4.log'"
check "PRISM_SYSFS_ROOT=$F/sysfs-mi300x FAKE_ROCPROF_NO_PCS=1" 0 \
        "warning: no PC sampling: this rocprofv3 has no --pc-sampling-method" \
        profile -n pcs -p "$T/pcs5" --no-roof -b 21 2 -- "$APP"
expect "a rocprofv3 without PC sampling: the counters, no sample file" \
        bash -c "test -f '$T/pcs5/pmc_perf.csv' && ! ls '$T/pcs5' | grep -q ps_file"
check - 2 "bad --pc-sampling-method 'random'" profile -n x --pc-sampling-method random -- "$APP"
check - 2 "bad --pc-sampling-interval '1000' \(cycles: a power of 2" \
        profile -n x --pc-sampling-interval 1000 -- "$APP"

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
