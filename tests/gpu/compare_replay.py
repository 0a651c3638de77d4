#!/usr/bin/env python3
"""Compare the raw counters of two workloads of the same program (kernel replay against
application replay, or one MPI rank against a single-rank run), dispatch by dispatch:
instruction counts must be equal, cache and DRAM traffic within 2% (by default only for
kernels that run longer than --min-us microseconds; shorter ones are reported as INFO).
Usage: compare_replay.py A/pmc_perf.csv B/pmc_perf.csv [--label L] [--min-us U]
Prints PASS/FAIL/INFO lines and a summary line; exit 1 on FAIL."""
import csv
import math
import re
import sys

EXACT = re.compile(r"(inst_executed|sass_|warps_launched|ctas_launched|thread_inst|"
                   r"ops_path_tensor)")
TRAFFIC = re.compile(r"^(dram__|lts__|l1tex__|lrc__).*(bytes|sectors|requests|wavefronts|"
                     r"hit|miss|lookup)")


def load(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def main():
    args = sys.argv[1:]
    label, min_us = "", 0.0
    if "--label" in args:
        i = args.index("--label")
        label = args[i + 1] + ": "
        del args[i:i + 2]
    if "--min-us" in args:
        i = args.index("--min-us")
        min_us = float(args[i + 1])
        del args[i:i + 2]
    a, b = load(args[0]), load(args[1])
    fails = 0
    if len(a) != len(b):
        print(f"FAIL: {label}{len(a)} dispatches against {len(b)}")
        return 1
    cols = [c for c in a[0] if "__" in c and c in b[0]]
    worst_exact, worst_traffic, n_exact, n_traffic, info = 0.0, 0.0, 0, 0, []
    for i, (ra, rb) in enumerate(zip(a, b)):
        if ra.get("Kernel_Name") != rb.get("Kernel_Name"):
            print(f"FAIL: {label}dispatch {i}: {ra.get('Kernel_Name')} against "
                  f"{rb.get('Kernel_Name')}")
            fails += 1
            continue
        dur = num(ra.get("gpu__time_duration.sum")) / 1000.0
        for c in cols:
            x, y = num(ra[c]), num(rb[c])
            if math.isnan(x) and math.isnan(y):
                continue
            if math.isnan(x) or math.isnan(y):
                print(f"FAIL: {label}dispatch {i} {c}: {ra[c]!r} against {rb[c]!r}")
                fails += 1
                continue
            rel = abs(x - y) / max(abs(x), abs(y), 1e-30)
            if EXACT.search(c) and not c.endswith((".pct", ".ratio", "per_second")) and \
                    "per_cycle" not in c and "pct_of" not in c:
                n_exact += 1
                worst_exact = max(worst_exact, rel)
                if rel > 1e-12:
                    print(f"FAIL: {label}dispatch {i} ({ra['Kernel_Name'][:40]}) {c}: "
                          f"{x:.10g} against {y:.10g}")
                    fails += 1
            elif TRAFFIC.search(c) and not c.endswith(".pct") and "per_second" not in c \
                    and "pct_of" not in c and max(abs(x), abs(y)) >= 1e5:
                if dur < min_us:
                    info.append((rel, i, c, x, y, dur))
                    continue
                n_traffic += 1
                worst_traffic = max(worst_traffic, rel)
                if rel > 0.02:
                    print(f"FAIL: {label}dispatch {i} ({ra['Kernel_Name'][:40]}, {dur:.0f} us) "
                          f"{c}: {x:.6g} against {y:.6g} ({100 * rel:.2f}%)")
                    fails += 1
    info.sort(reverse=True)
    for rel, i, c, x, y, dur in info[:5]:
        print(f"INFO: {label}short kernel (dispatch {i}, {dur:.1f} us) {c}: {x:.6g} against "
              f"{y:.6g} ({100 * rel:.2f}%)")
    print(f"{'PASS' if not fails else 'FAIL'}: {label}{len(a)} dispatches, {n_exact} "
          f"instruction values exact (worst {worst_exact:.2g}), {n_traffic} traffic values "
          f"(worst {100 * worst_traffic:.2f}%), {fails} failures")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
