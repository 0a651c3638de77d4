#!/usr/bin/env python3
"""Rewrite a rocprof-compute 3.3 workload directory (wide pmc_perf.csv with SQ_*.csv
accumulate files, or rocpd's long pmc_perf.csv) into the layout rocprof-compute 3.6-3.10
writes: one results_pmc_perf_N.csv[.gz] per pass in rocpd's 17-column long layout,
kernel_symbols_pmc_perf_N.csv[.gz], perfmon/pmc_perf_N.yaml, and a sysinfo.csv with the
3.8 field names. tests/layout310.sh checks that prism reads the result into the same
tables as the original under --compat 3.3.

usage: to310.py SRC DST [--gzip]

How the data maps (so that nothing measured changes):
- wide source: each counter column of pmc_perf.csv goes to one pass (the pass perfmon/
  pmc_perf_N.txt names it in, else the first), each accumulate file SQ_X.csv to a pass of
  its own with SQ_ACCUM_PREV_HIRES written as X_ACCUM. Every pass's rows carry the dispatch's
  timestamps from pmc_perf.csv. The accumulate passes come first in file-name order, so
  that where a counter is in both (GRBM_GUI_ACTIVE, ...), pmc_perf.csv's value is the one
  a reader that keeps the last one sees.
- rocpd source: its rows as they are, one pass per run of the application (a new run starts
  where Dispatch_ID goes down), in their order.
- passes are numbered so that sorting the file names (as rocprof-compute's analyze does:
  results_pmc_perf_10 before results_pmc_perf_2) gives the order above.
"""
import csv
import gzip
import os
import re
import shutil
import sys

HEAD = ["GPU_ID", "GUID", "Correlation_Id", "Dispatch_ID", "Grid_Size", "Workgroup_Size",
        "LDS_Per_Workgroup", "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR",
        "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Kernel_ID", "Counter_Name",
        "Counter_Value"]
META = set(HEAD) | {"wave_size", "obj", "sig", "queue-id", "queue-index", "pid", "tid",
                    "DispatchNs", "CompleteNs", "Node", "Rank", "Correlation_ID",
                    "Kernel_Name_Short", "Queue_ID", "Queue_Index", "PID", "TID", "SIG", "OBJ"}


def opener(path, gz):
    if gz:
        return gzip.open(path + ".gz", "wt", compresslevel=1, newline="")
    return open(path, "w", newline="")


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.reader(f)
        head = next(r)
        return head, list(r)


def pass_names(n):
    """n pass names whose sorted order is the order of their index"""
    return sorted("pmc_perf_%d" % i for i in range(n))


def perfmon_lists(src):
    """counter -> pass index, from perfmon/pmc_perf_N.txt"""
    where = {}
    pm = os.path.join(src, "perfmon")
    if not os.path.isdir(pm):
        return where, 0
    n = 0
    for name in os.listdir(pm):
        m = re.fullmatch(r"pmc_perf_(\d+)\.txt", name)
        if not m:
            continue
        n = max(n, int(m.group(1)) + 1)
        for line in open(os.path.join(pm, name)):
            if line.startswith("pmc:"):
                for c in line[4:].split():
                    where.setdefault(c, int(m.group(1)))
    return where, n


def wide_passes(src):
    """[(counters, rows)]: per pass, the long rows (lists in HEAD's order)"""
    head, rows = read_csv(os.path.join(src, "pmc_perf.csv"))
    col = {h: i for i, h in enumerate(head)}
    where, npm = perfmon_lists(src)
    kid = {}

    def meta(row, c):
        if c == "Kernel_ID":
            return str(kid.setdefault(row[col["Kernel_Name"]], len(kid)))
        if c == "GUID":
            return "00000000-0000-0000-0000-%012d" % int(float(row[col["Dispatch_ID"]]))
        if c == "Correlation_Id":
            return row[col["Dispatch_ID"]]
        return row[col[c]] if c in col else ""

    def long_rows(head_, rows_, cols, rename):
        colx = {h: i for i, h in enumerate(head_)}
        out = []
        for r in rows_:
            base = [meta_row(r, colx, c) for c in HEAD[:-2]]
            for c in cols:
                v = r[colx[c]]
                if v == "":
                    continue  # an empty cell: no row (the reader's n/a)
                out.append(base + [rename.get(c, c), v])
        return out

    # the timestamps and launch fields of each dispatch, by Dispatch_ID, from pmc_perf.csv
    by_id = {r[col["Dispatch_ID"]]: r for r in rows}

    def meta_row(r, colx, c):
        # accumulate files carry the dispatch's own fields; times come from pmc_perf.csv
        d = r[colx["Dispatch_ID"]]
        base = by_id.get(d)
        if base is not None and c in ("Start_Timestamp", "End_Timestamp", "Kernel_ID", "GUID",
                                      "Correlation_Id"):
            return meta(base, c)
        if c in colx:
            return r[colx[c]]
        if base is not None:
            return meta(base, c)
        return ""

    counters = [h for h in head if h not in META]
    groups = {}
    for c in counters:
        b = re.sub(r"\[\d+\]$", "", c)
        p = where.get(c, where.get(b, where.get(b.replace("_sum", ""), 0)))
        groups.setdefault(p, []).append(c)
    passes = []
    # the accumulate files first
    for name in sorted(os.listdir(src)):
        if not name.startswith("SQ") or not name.endswith(".csv"):
            continue
        x = name[:-4]
        h2, r2 = read_csv(os.path.join(src, name))
        if "Dispatch_ID" not in h2:
            continue
        cs = [h for h in h2 if h not in META]
        ren = {"SQ_ACCUM_PREV_HIRES": x + "_ACCUM"}
        passes.append(([ren.get(c, c) for c in cs], long_rows(h2, r2, cs, ren)))
    for p in sorted(groups):
        passes.append((groups[p], long_rows(head, rows, groups[p], {})))
    return passes


def rocpd_passes(src):
    head, rows = read_csv(os.path.join(src, "pmc_perf.csv"))
    col = {h: i for i, h in enumerate(head)}
    passes, cur, last = [], [], None
    for r in rows:
        d = float(r[col["Dispatch_ID"]])
        if last is not None and d < last:
            passes.append(cur)
            cur = []
        last = d
        cur.append(r)
    if cur:
        passes.append(cur)
    out = []
    for k, pr in enumerate(passes):
        lr, cs = [], []
        for r in pr:
            row = []
            for c in HEAD:
                if c == "GUID":
                    row.append("00000000-0000-0000-0000-%012d" % int(float(r[col["Dispatch_ID"]])))
                elif c == "Correlation_Id":
                    row.append(r[col["Dispatch_ID"]])
                else:
                    row.append(r[col[c]] if c in col else "")
            lr.append(row)
            if r[col["Counter_Name"]] not in cs:
                cs.append(r[col["Counter_Name"]])
        out.append((cs, lr))
    return out


def sysinfo(src, dst):
    head, rows = read_csv(os.path.join(src, "sysinfo.csv"))
    ren = {"workload_name": "workload_path", "num_hbm_channels": "num_memory_channels"}
    head = [ren.get(h, h) for h in head]
    for extra in ("sa_per_se", "l2_banks"):
        if extra not in head:
            head.append(extra)
            for r in rows:
                r.append("")
    with open(os.path.join(dst, "sysinfo.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(head)
        w.writerows(rows)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    gz = "--gzip" in sys.argv
    if len(args) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    src, dst = args
    os.makedirs(os.path.join(dst, "perfmon"), exist_ok=True)
    head, _ = read_csv(os.path.join(src, "pmc_perf.csv"))
    passes = rocpd_passes(src) if "Counter_Name" in head else wide_passes(src)
    names = pass_names(len(passes))
    kcol = HEAD.index("Kernel_Name")
    for name, (cs, rows) in zip(names, passes):
        with opener(os.path.join(dst, "results_%s.csv" % name), gz) as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEAD)
            w.writerows(rows)
        kernels = sorted({r[kcol] for r in rows})
        with opener(os.path.join(dst, "kernel_symbols_%s.csv" % name), gz) as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["Kernel_Name", "Kernel_Short_Name"])
            for k in kernels:
                w.writerow([k, k.split("(")[0]])
        with open(os.path.join(dst, "perfmon", name + ".yaml"), "w") as f:
            f.write("jobs:\n  - pmc: [%s]\n" % ", ".join(cs))
    sysinfo(src, dst)
    for extra in ("roofline.csv",):
        if os.path.exists(os.path.join(src, extra)):
            shutil.copy(os.path.join(src, extra), os.path.join(dst, extra))
    cfg = os.path.join(src, "profiling_config.yaml")
    if os.path.exists(cfg):
        with open(cfg) as f, open(os.path.join(dst, "profiling_config.yaml"), "w") as g:
            for line in f:
                if not line.startswith("format_rocprof_output:"):
                    g.write(line)


if __name__ == "__main__":
    main()
