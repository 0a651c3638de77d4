# Sourced by the device benchmark scripts (cost-nvidia.sh, rows-cost.sh): with $O the
# output folder and $PARTS the parts asked for,
#   step NAME TIMEOUT CMD...  runs CMD with its output in NAME.out / NAME.err and appends
#                             "NAME rc=.. wall=.." to $O/steps.txt (and prints it);
#   has PART                  whether PART is among $PARTS.
step() { # name timeout command...
        local n=$1 t=$2
        shift 2
        mkdir -p "$(dirname "$n")"
        local t0
        t0=$(date +%s.%N)
        timeout "$t" "$@" >"$n.out" 2>"$n.err"
        local rc=$?
        echo "$n rc=$rc wall=$(awk "BEGIN{printf \"%.2f\", $(date +%s.%N) - $t0}")" | tee -a "$O/steps.txt"
}
has() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }
