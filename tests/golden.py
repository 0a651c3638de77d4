#!/usr/bin/env python3
"""Golden tests: prism analyze --save-dfs on every recorded workload in ../shared against the
reference tool's tables (../shared/reference/<case>/<arch>/dfs_full). Every cell must match:
numbers within a relative 1e-6 (empty = n/a), text equal ignoring whitespace. One test per
(case, arch); prints 'N passed, N failed, N skipped'.

Default: rocprof-compute 3.0 (reference/, rocprof-workloads/), prism run with --compat 3.0.
--ref 3.3: rocprof-compute 3.3.0 (reference-3.3/, rocprof-workloads-3.3/), prism's defaults;
Unit cells where 3.3 wrote "ns" are not compared (3.3 rewrites any unit containing "ns",
such as "Instr per kernel", into a time unit: a reference bug prism does not reproduce)."""
import csv, math, os, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("PRISM_SHARED", os.path.join(ROOT, "..", "shared"))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
REF = "3.0"


def as_number(text):
    t = (text or "").strip()
    if t.lower() in ("", "nan", "n/a", "none"):
        return math.nan
    try:
        return float(t)
    except ValueError:
        return None


def cells_equal(want, got):
    a, b = as_number(want), as_number(got)
    if a is None or b is None:
        return "".join((want or "").split()) == "".join((got or "").split())
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-12


def read_table(path):
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        rows = list(csv.reader(f))
    if not rows:
        return [], {}
    head = rows[0]
    return head, {"".join(r[0].split()): r for r in rows[1:] if r}


def compare_dir(want_dir, got_dir):
    """Returns a list of differences (strings)."""
    diffs = []
    got = {n.split("_", 1)[0].removesuffix(".csv"): n for n in os.listdir(got_dir)} if os.path.isdir(got_dir) else {}
    for name in sorted(os.listdir(want_dir)):
        tid = name.split("_", 1)[0].removesuffix(".csv")
        whead, _ = read_table(os.path.join(want_dir, name))
        if "from_csv" in whead:
            # the reference prints its own table config when roofline.csv is absent;
            # prism shows no roofline table then (and says so once)
            if tid in got:
                diffs.append(f"table {tid}: shown although the workload has no data for it")
            continue
        if tid not in got:
            diffs.append(f"table {tid}: missing")
            continue
        whead, wrows = read_table(os.path.join(want_dir, name))
        ghead, grows = read_table(os.path.join(got_dir, got[tid]))
        for col in whead[1:]:
            if col and col not in ghead:
                diffs.append(f"table {tid}: no column '{col}'")
        for key, wrow in wrows.items():
            grow = grows.get(key)
            if grow is None:
                diffs.append(f"table {tid}: no row {key}")
                continue
            for i, col in enumerate(whead[1:], 1):
                if not col or col not in ghead:
                    continue
                gv = grow[ghead.index(col)] if ghead.index(col) < len(grow) else ""
                wv = wrow[i] if i < len(wrow) else ""
                if REF == "3.3" and col == "Unit" and wv.strip() == "ns":
                    continue
                if not cells_equal(wv, gv):
                    diffs.append(f"table {tid} row {key} '{col}': want {wrow[i]!r} got {gv!r}")
    return diffs


def main():
    global REF
    args = sys.argv[1:]
    if args[:2] == ["--ref", "3.3"]:
        REF, args = "3.3", args[2:]
    sfx = "-3.3" if REF == "3.3" else ""
    compat = ["--compat", "3.0"] if REF == "3.0" else []
    ref = os.path.join(SHARED, "reference" + sfx)
    work = os.path.join(SHARED, "rocprof-workloads" + sfx)
    if not os.path.isdir(ref) or not os.path.isdir(work):
        # under tests/run-all.sh the data is always there (../shared or the bundled copy)
        if os.environ.get("PRISM_REQUIRE_DATA") == "1":
            print(f"FAIL golden: {SHARED} has no reference{sfx}/ or rocprof-workloads{sfx}/")
            print("0 passed, 1 failed, 0 skipped")
            return 1
        print(f"SKIP golden: {SHARED} has no reference{sfx}/ or rocprof-workloads{sfx}/")
        print("0 passed, 0 failed, 1 skipped")
        return 0
    only = args
    passed = failed = skipped = 0
    tmp = tempfile.mkdtemp(prefix="prism-golden-")
    cases = [c for c in sorted(os.listdir(work)) if os.path.isdir(os.path.join(work, c))]
    for case in cases:
        for arch in sorted(os.listdir(os.path.join(work, case))):
            src = os.path.join(work, case, arch)
            want = os.path.join(ref, case, arch, "dfs_full")
            if not os.path.isdir(src) or not os.path.isdir(want):
                continue
            if only and arch not in only and case not in only:
                continue
            out = os.path.join(tmp, case, arch)
            r = subprocess.run([PRISM, "analyze", "-p", src, "--save-dfs", out] + compat,
                               capture_output=True, text=True)
            diffs = [] if r.returncode == 0 else [f"exit {r.returncode}: {r.stderr.strip()}"]
            if r.returncode == 0:
                diffs = compare_dir(want, out)
            if diffs:
                failed += 1
                print(f"FAIL {case}/{arch}: {len(diffs)} differences")
                for d in diffs[:8]:
                    print(f"     {d}")
            else:
                passed += 1
                print(f"ok   {case}/{arch}")
    # cases the reference rejected (no pmc_perf.csv): prism must refuse them too
    for case in cases:
        for arch in sorted(os.listdir(os.path.join(work, case))):
            src = os.path.join(work, case, arch)
            if os.path.isdir(src) and not os.path.exists(os.path.join(src, "pmc_perf.csv")):
                r = subprocess.run([PRISM, "analyze", "-p", src] + compat, capture_output=True, text=True)
                good = r.returncode == 2 and "pmc_perf.csv" in r.stderr and r.stderr.count("\n") == 1
                passed += good
                failed += not good
                print(("ok   " if good else "FAIL ") + f"{case}/{arch} refused: {r.stderr.strip()}")
    # --list-metrics: every id and name the reference lists, in its order (prism may add
    # tables of its own, such as the roofline counts)
    lm = os.path.join(ref, "list_metrics")
    for name in sorted(os.listdir(lm)) if os.path.isdir(lm) else []:
        gfx = name.removesuffix(".txt")
        want = [l.rstrip("\n") for l in open(os.path.join(lm, name), errors="replace")
                if l.strip() and l.strip()[0].isdigit() and " -> " in l]
        r = subprocess.run([PRISM, "analyze", "--list-metrics", gfx] + compat, capture_output=True,
                           text=True)
        if r.returncode != 0 and "unknown architecture" in r.stderr:
            print(f"SKIP list-metrics {gfx}: not supported")
            skipped += 1
            continue
        got = r.stdout.splitlines()
        it = iter(got)
        missing = [w for w in want if not any(w == g for g in it)]
        good = r.returncode == 0 and not missing
        passed += good
        failed += not good
        print(("ok   " if good else "FAIL ") + f"list-metrics {gfx}" + ("" if good else f": first missing {missing[:3]}"))
    if passed + failed == 0:
        print(f"FAIL golden: no workload of {work} has reference tables")
        failed = 1
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
