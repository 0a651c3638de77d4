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


def rows_of(text, title):
    """the body rows of table `title` in a --width 0 report: lists of cell texts"""
    out, on = [], False
    for line in text.split("\n"):
        if line.startswith(title):
            on = True
        elif on and line.startswith("│"):
            out.append([c.strip() for c in line.strip("│").split("│")])
        elif on and not line.strip():
            if out:
                break
    return out


def compare_tests():
    kinds = os.path.join(SAMPLE, "kinds", "H100")
    compute = os.path.join(SAMPLE, "compute", "H100")
    r = run(["analyze", "-p", kinds, "-p", compute, "-b", "0.1", "0.2", "--width", "0"])
    top = rows_of(r.stdout, "0.1 Top Kernels")
    head, body = top[0], top[1:]
    st = head.index("Status")
    names = lambda k: {x[1] for x in body if x[st] == k}
    base = set(run(["analyze", "-p", kinds, "--list-stats", "--width", "0"]).stdout.split("\n"))
    check("compare: the kernels of two different H100 workloads are removed/added, none paired",
          r.returncode == 0 and names("removed") and names("added") and not names("")
          and not names("removed") & names("added") and "smem_loop(float*, int, int)" in names("removed")
          and any(n.startswith("mma_f16") for n in names("added")), r.stderr[-300:])
    # a kernel in one run only: its other run's cells are empty, never a change
    ch = [i for i, h in enumerate(head) if h == "Change"]
    check("compare: no change computed for a kernel in one run only",
          all(x[i] == "" for x in body for i in ch))
    disp = rows_of(r.stdout, "0.2 Dispatch List")
    dh = disp[0]
    check("compare: dispatch ids are not compared as numbers",
          "Dispatch_ID (new)" in dh and not any("Dispatch_ID" in h and "Change" in h for h in dh)
          and dh.count("Change") == 0)
    # the same kernels in both runs, at other ranks: each paired with itself (the copy
    # without smem_loop, the first kernel of kinds, ranks fma32 first)
    with tempfile.TemporaryDirectory() as t:
        import shutil
        cut = os.path.join(t, "cut")
        shutil.copytree(kinds, cut)
        for f in ("pmc_perf.csv", "pmc_dispatch_info.csv", "timestamps.csv"):
            p = os.path.join(cut, f)
            lines = open(p).read().split("\n")
            open(p, "w").write("\n".join(l for l in lines if "smem_loop" not in l))
        r = run(["analyze", "-p", kinds, "-p", cut, "-b", "0.1", "0.2", "--width", "0"])
        top = rows_of(r.stdout, "0.1 Top Kernels")
        h = top[0]
        st = h.index("Status") if "Status" in h else 0
        fma = [x for x in top[1:] if x[1].startswith("fma32")]
        check("compare: a kernel in both runs is paired with itself at another rank",
              r.returncode == 0 and st and len(fma) == 1 and fma[0][st] == ""
              and fma[0][2] == fma[0][3] and fma[0][4].startswith("0.0 ")
              and [x[st] for x in top[1:] if x[1].startswith("smem_loop")] == ["removed"],
              r.stderr[-300:] + str(top[:3]))
        d = rows_of(r.stdout, "0.2 Dispatch List")
        dh = d[0]
        pairs = [(x[1], x[2]) for x in d[1:] if x[3].startswith("fma32")]
        check("compare: dispatches paired by kernel and occurrence",
              len(pairs) == 2 and all(a and b for a, b in pairs), str(pairs))
    # a change from zero is "new", not a percentage
    r = run(["analyze", "-p", kinds, "-d", "0", "-p", kinds, "-b", "2", "--width", "0"])
    check("compare: a change from zero reads 'new'",
          "(new)" in r.stdout and "%)" in r.stdout and "+31411894" not in r.stdout
          and not any("e+" in l and "%" in l for l in r.stdout.split("\n")))
    # the CSV files say the same: the Status column, "new" in the relative change
    with tempfile.TemporaryDirectory() as t:
        run(["analyze", "-p", kinds, "-p", compute, "--save-dfs", t])
        import csv
        f = [n for n in os.listdir(t) if n.startswith("0.1_")][0]
        rows = list(csv.DictReader(open(os.path.join(t, f))))
        check("compare CSV: added and removed kernels",
              {x["Status"] for x in rows} == {"added", "removed"}
              and any(x["Kernel_Name"].startswith("smem_loop") and x["Status"] == "removed" for x in rows))


def filter_tests():
    kinds = os.path.join(SAMPLE, "kinds", "H100")
    r = run(["analyze", "-p", kinds, "-b", "0"])
    heads = [l for l in r.stdout.split("\n") if l[:1].isdigit() and ". " in l[:4]]
    check("-b 0: panel 0 alone", r.returncode == 0 and heads == ["0. Top Stats"], r.stderr)
    r = run(["analyze", "-p", kinds, "-k", "fma", "-b", "0.1", "--width", "0"])
    top = rows_of(r.stdout, "0.1 Top Kernels")
    marked = sorted(x[1] for x in top[1:] if x[-1] == "*")
    check("-k by substring: both fma kernels, said on stderr",
          r.returncode == 0 and marked == ["fma32(float*, int)", "fma64(double*, int)"]
          and "fma32(float*, int)" in r.stderr and r.stderr.count("\n") == 1, r.stderr)
    r = run(["analyze", "-p", kinds, "-k", "^fma(32|99)", "-b", "0.1", "--width", "0"])
    top = rows_of(r.stdout, "0.1 Top Kernels")
    check("-k by regular expression",
          r.returncode == 0 and [x[1] for x in top[1:] if x[-1] == "*"] == ["fma32(float*, int)"])
    r = run(["analyze", "-p", kinds, "-k", "smem_loop(float*, int, int)", "-b", "0.1"])
    check("-k by whole name: no note", r.returncode == 0 and r.stderr == "", r.stderr)
    r = run(["analyze", "-p", kinds, "-k", "nosuchkernel"])
    check("-k matching nothing: one line listing the kernels, the path once",
          r.returncode == 2 and r.stderr.count("\n") == 1 and "smem_loop" in r.stderr
          and r.stderr.count(kinds) == 1, r.stderr)
    r = run(["analyze", "-p", kinds, "-d", "999"])
    check("no dispatch selected: the path once", r.returncode == 2 and r.stderr.count(kinds) == 1,
          r.stderr)
    # every id --list-metrics offers on the H100 is one -b takes (no AMD-only rows)
    lm = run(["analyze", "-p", kinds, "--list-metrics"]).stdout
    ids = [l.strip().split(" -> ")[0] for l in lm.split("\n")
           if l.startswith("\t\t") and " -> " in l and l.strip()[:1].isdigit()]
    r = run(["analyze", "-p", kinds, "-b"] + ids + ["-o", os.devnull])
    check(f"H100 --list-metrics: all {len(ids)} metric ids accepted by -b",
          len(ids) > 100 and r.returncode == 0, r.stderr[-300:])
    full = run(["analyze", "-p", kinds, "--list-metrics", "--all-rows"]).stdout
    check("--list-metrics --all-rows: also the hidden rows", full.count("\n") > lm.count("\n"))
    # -t converts the H100's kernel time as the AMD one
    ns = run(["analyze", "-p", kinds, "-b", "7.2.0", "--width", "0"]).stdout
    us = run(["analyze", "-p", kinds, "-b", "7.2.0", "-t", "us", "--width", "0"]).stdout
    a = [x for x in rows_of(ns, "7.2 ") if x[0] == "7.2.0"]
    b = [x for x in rows_of(us, "7.2 ") if x[0] == "7.2.0"]
    check("-t us: H100 kernel time in us",
          a and b and a[0][-1] == "ns" and b[0][-1] == "us"
          and abs(float(a[0][2]) / 1000 - float(b[0][2])) < 0.01, str(a) + str(b))


def desc_tests():
    w33 = os.path.join(SHARED, "rocprof-workloads-3.3", "vcopy")
    w30 = os.path.join(SHARED, "rocprof-workloads", "vcopy")
    runs = [([os.path.join(SAMPLE, "stream", "H100")], "H100")]
    for a in sorted(os.listdir(w33)) if os.path.isdir(w33) else []:
        runs.append(([os.path.join(w33, a)], a + " (3.3)"))
    for a in sorted(os.listdir(w30)) if os.path.isdir(w30) else []:
        runs.append(([os.path.join(w30, a), "--compat", "3.0"], a + " (3.0)"))
    check("descriptions: workloads of several families", len(runs) >= 5)
    for args, name in runs:
        r = run(["analyze", "-p"] + args + ["-b", "2", "--include-cols", "Description",
                                            "--width", "0"])
        rows, n = [], 0
        for t in ("2.1 ",):
            rows = rows_of(r.stdout, t)
        head, body = rows[0] if rows else [], rows[1:]
        empty = [x[0] for x in body if x[-1] == ""]
        check(f"--include-cols Description: every row of panel 2 on {name} ({len(body)} rows)",
              r.returncode == 0 and head and head[-1] == "Description" and len(body) > 10
              and not empty, r.stderr[-200:] + str(empty[:5]))
    # --list-metrics: every metric id line followed by its description
    for arch, compat in (("sm_90", []), ("gfx90a", []), ("gfx942", []), ("gfx950", []),
                         ("gfx908", ["--compat", "3.0"]), ("gfx90a", ["--compat", "3.0"])):
        lines = run(["analyze", "--list-metrics", arch] + compat).stdout.split("\n")
        ids = [i for i, l in enumerate(lines) if l.startswith("\t\t") and " -> " in l
               and l.strip()[:1].isdigit()]
        bad = [lines[i] for i in ids if i + 1 >= len(lines) or not lines[i + 1].startswith("\t\t\t")
               or len(lines[i + 1].strip()) < 10]
        check(f"--list-metrics {arch} {' '.join(compat)}: {len(ids)} ids, each described",
              len(ids) > 100 and not bad, str(bad[:3]))
    # the CSV files gain the column only when asked
    with tempfile.TemporaryDirectory() as t:
        stream = os.path.join(SAMPLE, "stream", "H100")
        run(["analyze", "-p", stream, "-b", "2", "--save-dfs", t + "/a"])
        run(["analyze", "-p", stream, "-b", "2", "--include-cols", "Description", "--save-dfs", t + "/b"])
        f = [n for n in os.listdir(t + "/a") if n.startswith("2.1_")][0]
        a, b = open(f"{t}/a/{f}").readline(), open(f"{t}/b/{f}").readline()
        check("--save-dfs: Description only with --include-cols",
              "Description" not in a and b.rstrip().endswith("Description"))
    r = run(["analyze", "-p", os.path.join(SAMPLE, "stream", "H100"), "--include-cols", "Nope"])
    check("--include-cols Nope: one-line error", r.returncode == 2 and r.stderr.count("\n") == 1)


width_tests()
compare_tests()
filter_tests()
desc_tests()
print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
