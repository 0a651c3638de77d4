# Sourced by the scripts that set prism next to ncu (ncu-compare.sh, ncu-repeat.sh):
# `. ncu-lib.sh OUTDIR` sets ROOT (the checkout), PRISM (ROOT/prism) and W (OUTDIR, absolute),
# exports PRISM_DATA_DIR, enters W/work, writes device.txt (the GPU and ncu's version) and
# defines step NAME TIMEOUT COMMAND...: run it with NAME.out/.err, one line in steps.txt.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PRISM=$ROOT/prism
W=${1:?usage: $(basename "$0") OUTDIR}
mkdir -p "$W/work"
W=$(cd "$W" && pwd)
export PRISM_DATA_DIR=$ROOT
cd "$W/work" || exit 1
nvidia-smi --query-gpu=name,compute_cap,clocks.max.sm,clocks.max.mem,driver_version \
        --format=csv,noheader >device.txt 2>&1
ncu --version >>device.txt 2>&1
step() { # name timeout command...
        local n=$1 t=$2
        shift 2
        local t0
        t0=$(date +%s.%N)
        timeout "$t" "$@" >"$n.out" 2>"$n.err"
        local rc=$?
        echo "$n rc=$rc wall=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")" | tee -a steps.txt
}
