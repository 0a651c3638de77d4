# Sourced by the GPU check scripts (run-mpi-check.sh, run-replay-check.sh,
# run-profile-check.sh): `. check-lib.sh NAME [WORKDIR]` sets ROOT (the checkout), PRISM
# (default ROOT/prism), W (WORKDIR, default a fresh /tmp/NAME.XXXXXX, as an absolute path)
# and fails=0, and defines bad (a FAIL line, counted), now and since (wall seconds).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PRISM=${PRISM:-$ROOT/prism}
W=${2:-$(mktemp -d "/tmp/$1.XXXXXX")}
mkdir -p "$W"
W=$(cd "$W" && pwd)
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }
now() { date +%s.%N; }
since() { awk "BEGIN { printf \"%.2f\", $(now) - $1 }"; }
