#!/usr/bin/env python3
"""rocprof-compute 3.0-3.3's TO_INT over a column, as the per-channel tables 18.x use it
(TO_INT_ALL in metrics/): pandas' astype("Int64") refuses a column holding a fraction, and
the cell is left empty, so one dispatch whose channel counter is not an integer (3.3's
profile averages counters a dispatch reports twice) empties that channel's cells for the
whole selection, where prism used to truncate each value and print numbers. Checked
against rocprof-compute 3.3.0 itself on such recordings during development (every 18.x
cell equal); here on a multi-kernel MI350 recording made from vcopy/MI350: dispatch 1 gets
another kernel name and fractional TCC_REQ[3], TCC_READ[3], TCC_WRITE[3] and
TCC_EA0_RDREQ[3]."""
import csv
import glob
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRISM = os.environ.get("PRISM", os.path.join(HERE, "..", "prism"))
SHARED = os.environ.get("PRISM_SHARED", os.path.join(HERE, "..", "..", "shared"))
FRAC = ("TCC_REQ[3]", "TCC_READ[3]", "TCC_WRITE[3]", "TCC_EA0_RDREQ[3]")
passed = failed = 0


def check(what, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok   " + what)
    else:
        failed += 1
        print("FAIL %s %s" % (what, detail))


def make(src, dst):
    shutil.copytree(src, dst)
    for f in glob.glob(os.path.join(dst, "*.csv")):
        rows = list(csv.reader(open(f, newline="")))
        if not rows or "Kernel_Name" not in rows[0] or "Dispatch_ID" not in rows[0]:
            continue
        h = rows[0]
        k, i = h.index("Kernel_Name"), h.index("Dispatch_ID")
        for r in rows[1:]:
            if r[i] != "1":
                continue
            r[k] = "other(int)"
            if os.path.basename(f) == "pmc_perf.csv":
                for c in FRAC:
                    r[h.index(c)] = str(float(r[h.index(c)]) + 0.5)
        csv.writer(open(f, "w", newline="")).writerows(rows)


def table(d, tid):
    f = glob.glob(os.path.join(d, tid + "_*"))
    return list(csv.reader(open(f[0], newline=""))) if f else None


def row(t, channel):
    for r in t[1:]:
        if r[1] in (str(channel), "%d.0" % channel):
            return dict(zip(t[0], r))
    return None


def main():
    src = os.path.join(SHARED, "rocprof-workloads-3.3", "vcopy", "MI350")
    if not os.path.isdir(src):
        check("vcopy/MI350 recording present", False, src)
        print("%d passed, %d failed, 0 skipped" % (passed, failed))
        return 1
    tmp = tempfile.mkdtemp(prefix="prism-ch33-")
    try:
        w = os.path.join(tmp, "w")
        make(src, w)
        pmc = list(csv.DictReader(open(os.path.join(w, "pmc_perf.csv"), newline="")))
        for kernel, frac in (("", True), ("other(int)", True),
                             ("vecCopy(double*, double*, double*, int, int)", False)):
            out = os.path.join(tmp, "dfs%d" % len(kernel))
            args = [PRISM, "analyze", "-p", w, "--save-dfs", out] + (["-k", kernel] if kernel else [])
            p = subprocess.run(args, capture_output=True, text=True)
            what = "-k '%s'" % kernel if kernel else "all dispatches"
            if p.returncode:
                check(what + ": analyze", False, p.stderr[-300:])
                continue
            r3, r0 = row(table(out, "18.3"), 3), row(table(out, "18.3"), 0)
            cells3 = [r3[c] for c in ("Min", "Q1", "Median", "Q3", "Max")]
            if frac:
                check(what + ": 18.3 channel 3 (a fraction among its values) is empty",
                      all(c == "" for c in cells3), cells3)
            else:
                want = [float(x["TCC_REQ[3]"]) for x in pmc if x["Kernel_Name"] == kernel]
                check(what + ": 18.3 channel 3 (integers only) has its values",
                      float(cells3[0]) == min(want) and float(cells3[-1]) == max(want),
                      (cells3, want))
            check(what + ": 18.3 channel 0 keeps its values", r0["Min"] != "", r0)
            r4 = row(table(out, "18.4"), 3)
            vals = list(r4.values())[2:]
            check(what + ": 18.4 channel 3 read/write %s, atomic a number" %
                  ("empty" if frac else "numbers"),
                  (vals[0] == "" and vals[1] == "") == frac and vals[2] != "", vals)
            r5 = row(table(out, "18.5"), 3)
            check(what + ": 18.5 channel 3 read %s" % ("empty" if frac else "a number"),
                  (list(r5.values())[2] == "") == frac, r5)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
