#!/usr/bin/env python3
"""The report a person reads (issue 30): tables fit the terminal's width, --save-dfs and
--compat keep their layout. Prints 'N passed, N failed, N skipped'."""
import os, subprocess, sys, tempfile, filecmp

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
SAMPLE = os.path.join(ROOT, "workloads-sample")
SHARED = os.environ.get("PRISM_SHARED", os.path.join(ROOT, "..", "shared"))
passed = failed = 0


def run(args, env=None, **kw):
    e = dict(os.environ, PRISM_DATA_DIR=ROOT)
    e.pop("COLUMNS", None)
    e.update(env or {})
    return subprocess.run([PRISM] + args, capture_output=True, text=True, env=e, **kw)


def check(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("ok  ", name)
    else:
        failed += 1
        print("FAIL", name, detail)


def widest(text):
    return max((len(l) for l in text.split("\n")), default=0)


def width_tests():
    stream = os.path.join(SAMPLE, "stream", "H100")
    kinds = os.path.join(SAMPLE, "kinds", "H100")
    amd = os.path.join(SHARED, "rocprof-workloads-3.3", "vcopy", "MI200")
    cases = [["-p", stream], ["-p", stream, "-b", "0.3", "0.4"], ["-p", kinds],
             ["-p", kinds, "-p", os.path.join(SAMPLE, "compute", "H100")]]
    if os.path.isdir(amd):
        cases.append(["-p", amd])
    for cols in (80, 120):
        for c in cases:
            r = run(["analyze"] + c, {"COLUMNS": str(cols)})
            w = widest(r.stdout)
            check(f"COLUMNS={cols} analyze {' '.join(c[1:])}: widest line {w}",
                  r.returncode == 0 and w <= cols and w > cols // 2, r.stderr[-300:])
    # --width beats $COLUMNS; 0 is no limit (the findings rows are wider than 400 columns)
    r = run(["analyze", "-p", stream, "-b", "0.3", "--width", "70"], {"COLUMNS": "200"})
    check("--width 70 beats COLUMNS=200", r.returncode == 0 and widest(r.stdout) <= 70)
    r = run(["analyze", "-p", stream, "-b", "0.3", "--width", "0"], {"COLUMNS": "80"})
    check("--width 0: no limit", r.returncode == 0 and widest(r.stdout) > 300)
    # pipes and files without $COLUMNS: 120
    r = run(["analyze", "-p", stream])
    check("default for pipes: 120 columns", r.returncode == 0 and 100 < widest(r.stdout) <= 120)
    # --compat keeps rocprof-compute's layout: the same as --width 0
    a = run(["analyze", "-p", stream, "--compat", "3.3"], {"COLUMNS": "80"})
    b = run(["analyze", "-p", stream, "--compat", "3.3", "--width", "0"], {"COLUMNS": "80"})
    check("--compat: no width limit", a.returncode == 0 and a.stdout == b.stdout)
    # a wrapped cell loses no word: the findings' messages are all there at 80 columns
    wide = run(["analyze", "-p", stream, "-b", "0.3", "--width", "0"]).stdout
    narrow = run(["analyze", "-p", stream, "-b", "0.3", "--width", "80"]).stdout
    # (each record stacked under its column names: those repeat, "Field" and "Value" added)
    words = lambda t: set(w for w in t.replace("│", " ").split() if w.isalpha())
    check("80 columns: every word of the findings kept",
          words(wide) == words(narrow) - {"Field", "Value"} and len(words(wide)) > 30)
    # --save-dfs does not depend on the width
    with tempfile.TemporaryDirectory() as t:
        run(["analyze", "-p", kinds, "--width", "80", "--save-dfs", t + "/a"])
        run(["analyze", "-p", kinds, "--width", "0", "--save-dfs", t + "/b"])
        names = sorted(os.listdir(t + "/a"))
        same = names == sorted(os.listdir(t + "/b")) and all(
            filecmp.cmp(f"{t}/a/{n}", f"{t}/b/{n}", shallow=False) for n in names)
        check("--save-dfs the same at 80 columns and without limit", bool(names) and same)
    r = run(["analyze", "-p", stream, "--width", "wide"])
    check("--width wide: one-line error", r.returncode == 2 and r.stderr.count("\n") == 1)


width_tests()
print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
