#!/usr/bin/env python3
"""Compare the collector alone in two replay modes with ncu (bench/hybrid-replay.sh, part
alone + ncu): the instruction counts (smsp__inst_executed, SASS metrics) of mode A and mode
B must be equal; every other metric of A and of B is listed against ncu's value.

usage: hybrid_compare.py A.csv B.csv NCU.csv [--md]
A, B: PRISM_CUPTI_OUT CSVs of the same program; NCU: `ncu --csv --print-units base
--metrics ...` of it (its n-th kernel is the collector's Dispatch_ID n). Prints one line per
kernel and metric (or a markdown table) and a summary; exit 1 when an instruction count
differs or a value is missing."""
import csv
import re
import sys

EXACT = re.compile(r"(inst_executed|sass_)")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def ncu_values(path):
    vals = {}
    with open(path) as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        try:
            vals[(int(r["ID"]), r["Metric Name"])] = float(r["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
    return vals


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def pct(a, b):
    if a is None or b is None:
        return "-"
    if a == b:
        return "0.0"
    if b == 0:
        return "(ncu 0)"
    return "%.1f" % (100.0 * (a - b) / max(abs(b), 1e-30))


def main():
    args = [a for a in sys.argv[1:] if a != "--md"]
    md = "--md" in sys.argv
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    a, b, n = rows(args[0]), rows(args[1]), ncu_values(args[2])
    metrics = [m for m in a[0] if "__" in m] if a else []
    bad = exact = 0
    if md:
        print("| dispatch | kernel | metric | A | B | ncu | A vs ncu % | B vs ncu % |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, (ra, rb) in enumerate(zip(a, b)):
        kern = ra["Kernel_Name"].split("(")[0]
        for m in metrics:
            va, vb, vn = num(ra.get(m)), num(rb.get(m)), n.get((i, m))
            if va is None or vb is None:
                bad += 1
                print("MISSING: dispatch %d %s %s: A %s B %s" % (i, kern, m, ra.get(m), rb.get(m)))
                continue
            if EXACT.search(m):
                exact += 1
                if va != vb:
                    bad += 1
                    print("DIFF: dispatch %d %s %s: A %.0f B %.0f" % (i, kern, m, va, vb))
                continue
            if md:
                print("| %d | %s | %s | %.6g | %.6g | %s | %s | %s |" % (
                    i, kern, m, va, vb, "-" if vn is None else "%.6g" % vn, pct(va, vn), pct(vb, vn)))
            else:
                print("%d %s %s: A %.6g B %.6g ncu %s (A %s %%, B %s %%)" % (
                    i, kern, m, va, vb, vn, pct(va, vn), pct(vb, vn)))
    print("%s: %d kernels, %d instruction values compared, %d differing or missing" % (
        "FAIL" if bad else "PASS", min(len(a), len(b)), exact, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
