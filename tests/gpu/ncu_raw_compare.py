#!/usr/bin/env python3
"""Compare every counter prism collected with the ncu raw-page column of the same name.

usage: ncu_raw_compare.py PMC_PERF.csv NCU_RAW.csv [MIN]

Rows pair up in order (the n-th dispatch with the n-th ncu kernel). A value counts as equal
within 2 % (or when both are below MIN, default 0.5, where a relative difference says
nothing). Prints the counters off by more, then a summary line."""
import csv
import sys


def num(s):
    try:
        return float(s.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    small = float(sys.argv[3]) if len(sys.argv) > 3 else 0.5
    prism = list(csv.DictReader(open(sys.argv[1], newline="")))
    rows = list(csv.reader(open(sys.argv[2], newline="")))
    hdr, data = rows[0], rows[2:]
    col = {h: i for i, h in enumerate(hdr)}
    names = [c for c in prism[0] if c in col and c != "gpu__time_duration.sum"]
    n = ok = 0
    off = {}
    for p, d in zip(prism, data):
        for c in names:
            a, b = num(p[c]), num(d[col[c]])
            if a is None or b is None:
                continue
            n += 1
            if (abs(a) < small and abs(b) < small) or abs(a - b) <= 0.02 * max(abs(a), abs(b)):
                ok += 1
            else:
                off.setdefault(c, []).append((p["Kernel_Name"].split("(")[0], a, b))
    for c, v in sorted(off.items()):
        print(f"{c}: " + "; ".join(f"{k} prism {a:.4g} ncu {b:.4g}" for k, a, b in v))
    print(f"{len(names)} counters in both; {ok} of {n} values within 2 %")


if __name__ == "__main__":
    main()
