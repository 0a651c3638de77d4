#!/usr/bin/env python3
"""rocprof-compute 3.6-3.10's per-pass layout (docs/FORMATS.md): every 3.3 recording in
$PRISM_SHARED/rocprof-workloads-3.3 (wide and rocpd) rewritten by tests/to310.py into the
3.10 layout, plain and gzip, must analyze to the same tables as the original under
--compat 3.3 (every --save-dfs table, cell by cell, and the text report); then the layout's
bad inputs, each a one-line error naming the file (exit 2) or its documented warning.

Two differences are the layout's own and are allowed: GPU_ID is the rank of the GPU among
the recording's (rocpd's rule: 0, 1, ...), where a wide recording keeps the id; and the
system table 1.1 of the converted recording has the fields 3.8 added to sysinfo.csv
(sa_per_se, l2_banks)."""
import csv
import glob
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRISM = os.environ.get("PRISM", os.path.join(HERE, "..", "prism"))
SHARED = os.environ.get("PRISM_SHARED", os.path.join(HERE, "..", "..", "shared"))
NEW_FIELDS = {"sa_per_se", "l2_banks"}
passed = failed = 0


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def bad(msg):
    global failed
    failed += 1
    print("FAIL " + msg)


def run(args):
    p = subprocess.run([PRISM] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def rank_gpu(rows, col):
    ids = sorted({float(r[col]) for r in rows[1:] if r[col] != ""})
    for r in rows[1:]:
        if r[col] != "":
            r[col] = str(ids.index(float(r[col])))


def read(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def same_tables(a, b):
    """the first difference between the --save-dfs directories a and b, or None"""
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        return "tables %s vs %s" % (set(fa) ^ set(fb), "")
    for name in fa:
        ra, rb = read(os.path.join(a, name)), read(os.path.join(b, name))
        if name.startswith("1.1"):
            rb = [r for r in rb if not (r and r[0] in NEW_FIELDS)]
        if ra and "GPU_ID" in ra[0]:
            rank_gpu(ra, ra[0].index("GPU_ID"))
            rank_gpu(rb, rb[0].index("GPU_ID"))
        if ra != rb:
            for i, (x, y) in enumerate(zip(ra, rb)):
                if x != y:
                    return "%s row %d: %s vs %s" % (name, i, x[:6], y[:6])
            return "%s: %d rows vs %d" % (name, len(ra), len(rb))
    return None


def equivalence(tmp):
    srcs = sorted(os.path.dirname(p) for p in
                  glob.glob(os.path.join(SHARED, "rocprof-workloads-3.3", "*", "*", "pmc_perf.csv")))
    if not srcs:
        bad("no 3.3 recordings under %s" % SHARED)
        return
    for src in srcs:
        case = os.path.relpath(src, os.path.join(SHARED, "rocprof-workloads-3.3"))
        orig = os.path.join(tmp, "orig")
        shutil.rmtree(orig, ignore_errors=True)
        rc0, out0, err0 = run(["analyze", "-p", src, "--compat", "3.3", "--save-dfs", orig])
        if rc0:
            bad("%s: the original does not analyze: %s" % (case, err0.strip()[-200:]))
            continue
        for gz in (False, True):
            conv = os.path.join(tmp, "conv")
            dfs = os.path.join(tmp, "dfs")
            shutil.rmtree(conv, ignore_errors=True)
            shutil.rmtree(dfs, ignore_errors=True)
            subprocess.run([sys.executable, os.path.join(HERE, "to310.py"), src, conv] +
                           (["--gzip"] if gz else []), check=True)
            what = "%s (3.10 layout%s)" % (case, ", gzip" if gz else "")
            n = len(glob.glob(os.path.join(conv, "results_*.csv" + (".gz" if gz else ""))))
            if n < 2:
                bad("%s: the converter wrote %d pass files" % (what, n))
                continue
            rc, out, err = run(["analyze", "-p", conv, "--compat", "3.3", "--save-dfs", dfs])
            if rc:
                bad("%s: exit %d: %s" % (what, rc, err.strip()[-300:]))
                continue
            diff = same_tables(orig, dfs)
            if diff:
                bad("%s: %s" % (what, diff))
            else:
                ok("%s: %d passes, the same %d tables" % (what, n, len(os.listdir(dfs))))


def expect_error(what, d, needle, tmp):
    rc, out, err = run(["analyze", "-p", d, "--compat", "3.3"])
    lines = [l for l in err.splitlines() if l.strip()]
    if rc == 2 and len(lines) == 1 and needle in lines[0]:
        ok("%s: %s" % (what, lines[0]))
    else:
        bad("%s: exit %d, stderr %r" % (what, rc, err[-400:]))


def expect_warning(what, d, needle):
    rc, out, err = run(["analyze", "-p", d, "--compat", "3.3"])
    if rc == 0 and needle in err:
        ok("%s: warns (%s)" % (what, needle))
    else:
        bad("%s: exit %d, stderr %r" % (what, rc, err[-400:]))


def rewrite(path, fn):
    """rewrite the CSV at path (plain or .gz) through fn(rows) -> rows"""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    rows = fn(rows)
    with op(path, "wt", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def bad_inputs(tmp):
    src = os.path.join(SHARED, "rocprof-workloads-3.3", "vcopy", "MI200")
    base = os.path.join(tmp, "base")
    subprocess.run([sys.executable, os.path.join(HERE, "to310.py"), src, base, "--gzip"],
                   check=True)
    rc, out_base, _ = run(["analyze", "-p", base, "--compat", "3.3"])

    def case(name):
        d = os.path.join(tmp, name)
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(base, d)
        return d

    f3 = "results_pmc_perf_3.csv.gz"
    d = case("damaged")
    with open(os.path.join(d, f3), "r+b") as f:  # deflate data overwritten mid-stream
        f.seek(200)
        f.write(b"\xff" * 64)
    expect_error("damaged gzip", d, f3, tmp)

    d = case("truncated-gz")
    p = os.path.join(d, f3)
    data = open(p, "rb").read()
    open(p, "wb").write(data[: len(data) // 2])
    expect_error("truncated gzip pass file", d, f3, tmp)

    d = case("truncated-csv")  # a plain pass file cut in the middle of a row
    p = os.path.join(d, f3)
    text = gzip.open(p, "rt").read()
    os.remove(p)
    open(p[:-3], "w").write(text[: len(text) // 2 + 7].rstrip("\n"))
    expect_error("truncated plain pass file", d, "results_pmc_perf_3.csv", tmp)

    d = case("plain-and-gz")
    open(os.path.join(d, "results_pmc_perf_3.csv"), "w").write(gzip.open(os.path.join(d, f3), "rt").read())
    expect_error("one pass plain and gzip", d, "results_pmc_perf_3.csv", tmp)

    d = case("not-listed")
    os.remove(os.path.join(d, "perfmon", "pmc_perf_3.yaml"))
    expect_error("pass file missing from perfmon/", d, f3, tmp)

    d = case("both-names")
    rewrite(os.path.join(d, "sysinfo.csv"),
            lambda rows: [rows[0] + ["num_hbm_channels"], rows[1] + ["32"]])
    expect_error("sysinfo with both old and new names", d, "sysinfo.csv", tmp)

    d = case("not-long")
    rewrite(os.path.join(d, f3), lambda rows: [r[:-2] for r in rows])
    expect_error("pass file without Counter_Name/Counter_Value", d, f3, tmp)

    d = case("extra-dispatch")  # a pass with a dispatch the others lack
    def extra(rows):
        r = list(rows[1])
        r[3] = "99"
        return rows + [r]
    rewrite(os.path.join(d, f3), extra)
    expect_warning("a pass with a dispatch the others lack", d, "missing (dispatch ")

    d = case("duplicate")  # a counter row given twice with another value
    def dup(rows):
        r = list(rows[1])
        r[-1] = str(float(r[-1]) + 12345)
        return rows + [r]
    rewrite(os.path.join(d, f3), dup)
    expect_warning("a counter given twice with other values", d, "with another value")

    d = case("lost-pass")  # perfmon lists a pass whose results are gone: its counters n/a
    os.remove(os.path.join(d, f3))
    expect_warning("a listed pass without results", d, "pmc_perf_3.yaml: a pass with no")

    symbols(tmp, case)

    d = case("no-layout")  # results files in no layout prism knows
    for p in glob.glob(os.path.join(d, "results_*")):
        os.remove(p)
    open(os.path.join(d, "results_pmc_perf_0.csv"), "w").write("a,b\n1,2\n")
    expect_error("a results file in no known layout", d, "results_pmc_perf_0.csv", tmp)


def symbols(tmp, case):
    """kernel_symbols_pmc_perf_N.csv[.gz]: read (gzip and plain), -k takes a kernel's short
    name; a damaged, truncated, column-less or inconsistent one is an error naming it"""
    k0 = "kernel_symbols_pmc_perf_0.csv.gz"
    short = lambda name: (lambda rows: [rows[0]] + [[r[0], name] for r in rows[1:]])

    d = case("sym-alias")  # every pass names the kernel copy_alias: -k copy_alias selects it
    for p in glob.glob(os.path.join(d, "kernel_symbols_*")):
        rewrite(p, short("copy_alias"))
    p = os.path.join(d, "kernel_symbols_pmc_perf_1.csv.gz")  # one pass plain: read too
    open(p[:-3], "w").write(gzip.open(p, "rt").read())
    os.remove(p)
    rc, out, err = run(["analyze", "-p", d, "--compat", "3.3", "-k", "copy_alias", "-b", "0", "2"])
    rc0, out0, _ = run(["analyze", "-p", d, "--compat", "3.3", "-k", "0", "-b", "0", "2"])
    if rc == 0 and rc0 == 0 and out == out0 and "the short name of 1 kernel" in err:
        ok("-k copy_alias (a short name, no part of the full name) selects that kernel")
    else:
        bad("-k by short name: exit %d/%d, same output %s, stderr %r" % (rc, rc0, out == out0,
                                                                       err[-300:]))
    tree = os.path.join(tmp, "sym-tree")  # a rank tree of two such ranks: the same
    shutil.rmtree(tree, ignore_errors=True)
    for r in (0, 1):
        shutil.copytree(d, os.path.join(tree, "node0", "rank%d" % r))
    rc, out, err = run(["analyze", "-p", tree, "--compat", "3.3", "-k", "copy_alias", "-b", "0"])
    if rc == 0 and "the short name of 1 kernel" in err:
        ok("-k copy_alias in a two-rank tree of such workloads")
    else:
        bad("-k by short name in a rank tree: exit %d, stderr %r" % (rc, err[-300:]))
    rc, out, err = run(["analyze", "-p", os.path.join(tmp, "base"), "--compat", "3.3", "-k",
                        "copy_alias", "-b", "0"])
    if rc == 2 and "copy_alias" in err:
        ok("-k copy_alias without those symbols matches nothing (the names come from the files)")
    else:
        bad("-k copy_alias on the unchanged recording: exit %d, stderr %r" % (rc, err[-300:]))

    d = case("sym-damaged")
    p = os.path.join(d, k0)
    data = bytearray(open(p, "rb").read())
    data[12:40] = b"\xff" * 28  # the deflate data overwritten
    open(p, "wb").write(bytes(data))
    expect_error("damaged gzip kernel symbols", d, k0, tmp)

    d = case("sym-truncated-gz")
    p = os.path.join(d, k0)
    data = open(p, "rb").read()
    open(p, "wb").write(data[: len(data) - 9])
    expect_error("truncated gzip kernel symbols", d, k0, tmp)

    d = case("sym-truncated-csv")  # plain, cut inside its last row
    p = os.path.join(d, k0)
    text = gzip.open(p, "rt").read()
    os.remove(p)
    open(p[:-3], "w").write(text.rstrip("\n")[:-3])
    expect_error("truncated plain kernel symbols", d, k0[:-3], tmp)

    d = case("sym-no-column")
    rewrite(os.path.join(d, k0), lambda rows: [r[:1] for r in rows])
    expect_error("kernel symbols without Kernel_Short_Name", d, k0, tmp)

    d = case("sym-inconsistent")  # pass 0 says another short name than the other passes
    rewrite(os.path.join(d, k0), short("other_name"))
    expect_error("one kernel, two short names", d, "kernel_symbols_pmc_perf_1.csv.gz", tmp)

    d = case("sym-empty")  # a failed extract leaves an empty file: skipped, with a warning
    open(os.path.join(d, k0), "wb").close()
    expect_warning("an empty kernel symbols file", d, k0 + ": empty")


def main():
    if not os.path.isdir(os.path.join(SHARED, "rocprof-workloads-3.3")):
        if os.environ.get("PRISM_REQUIRE_DATA"):
            bad("no %s/rocprof-workloads-3.3" % SHARED)
        else:
            print("SKIP no 3.3 recordings")
        print("%d passed, %d failed, 0 skipped" % (passed, failed))
        return 1 if failed else 0
    tmp = tempfile.mkdtemp(prefix="prism-l310-")
    try:
        equivalence(tmp)
        bad_inputs(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
