#!/usr/bin/env bash
# The modules of src/ depend in one direction: util -> expr -> arch, util -> store ->
# analyze / profile -> render -> tui -> cmd_* (src/*.c), and a few leaf files depend on
# nothing; gen (the build-time tools) uses util and arch. The collection backends
# (src/profile/backend/<vendor>/) are a module above profile: they implement its interface
# (profile/backend.h) and use its launcher and process helpers, while the generic profile
# code reaches them only through that interface, never by including them. Every #include "..." of every
# file under src/ is resolved and checked against the table of allowed module edges below;
# an include that goes against the direction (or an unknown module, or an include that
# names no file) fails. Then the files: no unit (a .c with its .h) calls into a unit that
# calls back into it, directly or around a circle of units, in any module (a circle ties
# files that can only be understood, tested and split together: split by responsibility
# and hand a function down instead). Prints "N passed, N failed, 0 skipped".
set -u
cd "$(dirname "$0")/.."

# module: the modules its files may include (its own always may)
declare -A allowed=(
        [util]=""
        [expr]="util"
        [arch]="util expr"
        [store]="util"
        [analyze]="util expr arch store"
        [profile]="util expr arch store"
        [backend]="util expr arch store profile"
        [render]="util expr arch store analyze"
        [tui]="util expr arch store analyze render"
        [collect]=""
        [gen]="util arch"
        [cmd]="util expr arch store analyze profile render tui"
)

# leaf files: they include no prism header but their own (column names),
# and any file may include them (the CUPTI collector, a library of its own, the column names,
# the per-GPU lock and the CSV field writer)
leaves=" src/store/columns.h src/store/columns.c src/util/gpulock.h src/util/gpulock.c src/util/csvfield.h src/util/csvfield.c "

# Narrow edges, stated: the files (a folder ends in /) that alone may include a header.
# Opening a workload is store's probe then its loads (store/probe.h: store_probe, then
# workload.h's store_open_sysinfo, store_detect, store_load), used above store by
# analyze/session.c alone; the analyze command opens workloads only through the session
# (analyze/session.h) and includes no store header, not even the column names (a leaf). The
# roofline plots' shared geometry and label placement (render/roofplot_int.h) is the
# roofplot files' own.
declare -A only=(
        [src/store/probe.h]="src/store/ src/analyze/session.c"
        [src/analyze/session.h]="src/analyze/session.c src/cmd_analyze.c"
        [src/render/roofplot_int.h]="src/render/roofplot.c src/render/roofplot_text.c src/render/roofplot_svg.c"
)
no_store=" src/cmd_analyze.c "

module_of() { # src/x/... -> x; src/profile/backend/... -> backend; src/main.c, src/cmd_*.c -> cmd
        local rel=${1#src/}
        case $rel in profile/backend/*) echo backend ;; */*) echo "${rel%%/*}" ;; *) echo cmd ;; esac
}

pass=0 fail=0
check() { # file included-name
        local f=$1 inc=$2 dir target m t
        dir=$(dirname "$f")
        if [ -f "$dir/$inc" ]; then target=$(realpath -m --relative-to=. "$dir/$inc")
        elif [ -f "src/$inc" ]; then target=$(realpath -m --relative-to=. "src/$inc")
        else echo "FAIL $f: #include \"$inc\" names no file"; fail=$((fail + 1)); return; fi
        case $target in src/*) ;; *) echo "FAIL $f: #include \"$inc\" leaves src/"; fail=$((fail + 1)); return ;; esac
        if [[ "$leaves" == *" $f "* ]] && [ "${target%.h}" != "${f%.[ch]}" ]; then
                echo "FAIL $f: a leaf file includes $target"; fail=$((fail + 1)); return
        fi
        if [ -n "${only[$target]+x}" ]; then
                local ok=0 w
                for w in ${only[$target]}; do
                        case $w in */) [[ $f == "$w"* ]] && ok=1 ;; *) [ "$f" = "$w" ] && ok=1 ;; esac
                done
                if [ $ok -eq 0 ]; then
                        echo "FAIL $f: includes $target, which only ${only[$target]} may"; fail=$((fail + 1)); return
                fi
        fi
        if [[ "$no_store" == *" $f "* ]] && [[ $target == src/store/* ]]; then
                echo "FAIL $f: includes $target: it opens workloads through analyze/session.h"; fail=$((fail + 1)); return
        fi
        m=$(module_of "$f"); t=$(module_of "$target")
        if [ -z "${allowed[$m]+x}" ]; then
                echo "FAIL $f: module '$m' is not in the table of tests/includes.sh"; fail=$((fail + 1)); return
        fi
        # a leaf header may be included from anywhere
        if [ "$m" = "$t" ] || [[ " ${allowed[$m]} " == *" $t "* ]] || [[ "$leaves" == *" $target "* ]]; then
                pass=$((pass + 1))
        else
                echo "FAIL $f: includes $target: $m may not depend on $t (allowed: ${allowed[$m]:-nothing})"
                fail=$((fail + 1))
        fi
}

# the table itself: no module may reach itself through the allowed edges
for m in "${!allowed[@]}"; do
        seen=" " todo="${allowed[$m]}"
        while [ -n "${todo// }" ]; do
                set -- $todo; n=$1; shift; todo="$*"
                [[ "$seen" == *" $n "* ]] && continue
                seen+="$n "; todo+=" ${allowed[$n]:-}"
        done
        if [[ "$seen" == *" $m "* ]]; then echo "FAIL table: $m depends on itself"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
done

while IFS= read -r f; do
        while IFS= read -r inc; do
                check "$f" "$inc"
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done < <(find src -name '*.[ch]' | sort)

# circles of units: unit A uses unit B when A.c names a function or a variable that B.c
# defines (outside comments and strings; a name passed as a pointer counts, a call through
# one does not). Each circle is listed with the names that tie it.
circles=$(python3 - <<'PY'
import os, re, sys
files = sorted(os.path.join(d, f) for d, _, fs in os.walk("src") for f in fs if f.endswith(".c"))
def strip(t):
    t = re.sub(r"/\*.*?\*/", " ", t, flags=re.S)
    t = re.sub(r"//[^\n]*", " ", t)
    t = re.sub(r'"(\\.|[^"\\\n])*"', '""', t)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", t)
keywords = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case"}
owner, uses = {}, {}
head = r"^(?!static\b|typedef\b|extern\b|#)"
for f in files:
    t = strip(open(f, errors="replace").read())
    fn = re.findall(head + r"[A-Za-z_][^;{}()=]*?\b([A-Za-z_]\w*)\s*\([^;{}]*?\)\s*\{", t, re.M | re.S)
    var = re.findall(head + r"(?:const\s+)?(?:struct\s+\w+|\w+)[\s*]+(?:const\s+)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*[=;]", t, re.M)
    for n in set(fn) | set(var):
        if n not in keywords:
            owner.setdefault(n, f)
    uses[f] = set(re.findall(r"[A-Za-z_]\w*", t))
edges = {f: {} for f in files}
for f in files:
    for n in uses[f]:
        o = owner.get(n)
        if o and o != f:
            edges[f].setdefault(o, []).append(n)
index, low, stack, on, out = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index); stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        out.append(sorted(comp))
sys.setrecursionlimit(10000)
for f in files:
    if f not in index:
        visit(f)
for comp in out:
    if len(comp) == 1:
        print("ok", comp[0])
        continue
    ties = "; ".join("%s -> %s (%s)" % (a, b, ", ".join(sorted(edges[a][b])[:4]))
                     for a in comp for b in comp if b in edges[a])
    print("FAIL a circle of %d units: %s" % (len(comp), ties))
PY
)
while IFS= read -r line; do
        case $line in
        ok\ *) pass=$((pass + 1)) ;;
        *) echo "$line"; fail=$((fail + 1)) ;;
        esac
done <<<"$circles"

echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
