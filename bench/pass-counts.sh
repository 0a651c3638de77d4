#!/bin/bash
# Record the pass counts of the metric sets the NVIDIA planner asks about (hopper.yaml's
# pass_counts): plan all panels and each panel alone with an empty cache, CUPTI's Profiler
# Host API answering (libprism-cupti.so beside prism; no GPU needed), and print the
# pass_counts section. Usage: bench/pass-counts.sh [ARCH] > section.yaml   (default sm_90)
# Put it in place of the family file's pass_counts: (from its comment to the end).
cd "$(dirname "$0")/.." || exit 1
A=${1:-sm_90}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/data
mkdir -p "$D/metrics"
cp -r panels rules "$D/"
cp metrics/*.yaml "$D/metrics/"
for f in "$D"/metrics/*.yaml; do sed -i '/^pass_counts:/,$d' "$f"; done
# a prism of its own: one beside metrics/ would read those (with their counts)
mkdir -p "$T/bin"
cp prism libprism-cupti.so "$T/bin/"
for b in all 0 1 2 3 4 5 6 7 10 11 12 13 14 15 16 17 18 19; do
        sel=()
        [ "$b" = all ] || sel=(-b "$b")
        PRISM_DATA_DIR=$D PRISM_CACHE_DIR=$T/cache PRISM_PASS_COUNTS_RECORD=$T/rec.txt \
                "$T/bin/prism" profile -n pc -p "$T/w" --force --dry-run --arch "$A" "${sel[@]}" \
                >/dev/null 2>&1 || { echo "planning $A -b $b failed" >&2; exit 1; }
done
python3 - "$T/rec.txt" <<'PY'
import collections, sys
by = collections.defaultdict(set)
seen = {}
for line in open(sys.argv[1]):
    k, v = line.split(':')
    k, v = k.strip(), int(v)
    if seen.setdefault(k, v) != v:
        sys.exit(f"key {k}: {seen[k]} and {v} passes")
    by[v].add(k)
print('pass_counts:')
for c in sorted(by):
    ks = sorted(by[c])
    print(f'  {c}: >-')
    for i in range(0, len(ks), 5):
        print('    ' + ' '.join(ks[i:i + 5]))
PY
