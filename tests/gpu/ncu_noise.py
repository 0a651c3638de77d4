#!/usr/bin/env python3
"""Set prism's difference from ncu next to each tool's difference from itself.

usage: ncu_noise.py PRISM WORKDIR MODE SAMPLE PAIR... [--list]

WORKDIR is what tests/gpu/ncu-repeat.sh wrote (rep-1/, rep-2/, ...), MODE a prism replay
mode it recorded (kernel, application), SAMPLE kinds, stream or compute, and each PAIR
NCU_ID=DISPATCH_ID (as in ncu_compare.py). For every ncu detail row with a prism namesake
and every pair, it compares rep-1 of each tool with rep-1 of the other (the plain
comparison) and each tool's rep-1 with its rep-2 (its own noise), and sorts the values:

  agree      prism within 2 % of ncu
  noisy      not within 2 %, and ncu's own repeat or prism's differs by more than 2 %:
             the quantity is not reproducible to 2 % by either tool on this kernel
  apart      not within 2 %, though both tools repeat themselves within 2 %: a real
             disagreement (a formula, a setting or a collection difference)

--list prints every value that is not 'agree'."""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ncu_compare import PAIRS, diff_pct, num, prism_tables  # noqa: E402


def ncu_rows(path):
    out, names = {}, {}
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r.get("Metric Name"):
                out[(r["ID"], r["Section Name"], r["Metric Name"])] = r["Metric Value"]
                names[r["ID"]] = r["Kernel Name"].split("(")[0]
    return out, names


def rel(a, b, raw_b=""):
    """|percent difference| of a from b (ncu_compare.diff_pct), None when a or b is None."""
    d = None if b is None else diff_pct(a, b, raw_b)
    return None if d is None else abs(d)


def main():
    args = [a for a in sys.argv[1:] if a != "--list"]
    show = "--list" in sys.argv
    if len(args) < 5:
        sys.exit(__doc__)
    prism, work, mode, sample, pairs = args[0], args[1], args[2], args[3], args[4:]
    reps = sorted(d for d in os.listdir(work) if d.startswith("rep-"))
    if len(reps) < 2:
        sys.exit(f"{work}: needs rep-1 and rep-2")
    n1, names = ncu_rows(os.path.join(work, reps[0], f"ncu-{sample}-details.csv"))
    n2, _ = ncu_rows(os.path.join(work, reps[1], f"ncu-{sample}-details.csv"))
    count = {"agree": 0, "noisy": 0, "apart": 0, "n/a": 0}
    lines = []
    for pair in pairs:
        kid, disp = pair.split("=", 1)
        p1 = prism_tables(prism, os.path.join(work, reps[0], f"{mode}-{sample}"), disp)
        p2 = prism_tables(prism, os.path.join(work, reps[1], f"{mode}-{sample}"), disp)
        for sec, name, tid, pname, fac in PAIRS:
            raw1, raw2 = n1.get((kid, sec, name), ""), n2.get((kid, sec, name), "")
            if isinstance(fac, dict):  # ncu's word for prism's number
                a, b = fac.get(raw1), fac.get(raw2)
                raw1 = raw2 = ""
                fac = 1
            else:
                a, b = num(raw1), num(raw2)
            if a is None:
                continue
            v1, v2 = p1.get((tid, pname)), p2.get((tid, pname))
            v1 = None if v1 is None else v1 * fac
            v2 = None if v2 is None else v2 * fac
            d = rel(v1, a, raw1)
            if d is None:
                count["n/a"] += 1
                continue
            dn = rel(b, a, raw1) if b is not None else None
            dp = rel(v2, v1) if v2 is not None else None
            if d <= 2:
                kind = "agree"
            elif (dn is not None and dn > 2) or (dp is not None and dp > 2):
                kind = "noisy"
            else:
                kind = "apart"
            count[kind] += 1
            if kind != "agree":
                f = lambda x: "n/a" if x is None else f"{x:.2f}"  # noqa: E731
                lines.append(f"  {kind:5} {names.get(kid, kid):12} {name:40} prism-ncu {f(d):>8} %"
                             f"  ncu-ncu {f(dn):>8} %  prism-prism {f(dp):>8} %"
                             f"  (ncu {a:.6g}, prism {v1:.6g})")
    total = sum(count.values())
    print(f"{sample} ({mode} replay): {total} values: {count['agree']} agree within 2 %, "
          f"{count['noisy']} noisy (a tool's own repeat differs by more than 2 %), "
          f"{count['apart']} apart, {count['n/a']} n/a")
    if show:
        print("\n".join(lines))


if __name__ == "__main__":
    main()
