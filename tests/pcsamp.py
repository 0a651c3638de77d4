#!/usr/bin/env python3
"""PC sampling through the CLI: workloads made of the rocpd vcopy recording plus the sample
files of tests/data/pcsamp (rocprof-compute 3.9+'s per-process results, 3.3's single file,
a pc_sampling_summary.csv as rocprof-compute 3.9+ exports it and prism writes it for NVIDIA,
tests/data/pcsamp/h100 recorded on the H100 when present). Checks panel 21's tables
(--save-dfs), the -k filter, the text report, one-line errors (exit 2) for bad sample
files, and that a workload without samples prints no panel 21. Prints 'N passed, N failed,
N skipped'."""
import csv, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
BASE = os.path.join(ROOT, "tests", "data", "rocpd-vcopy")
DATA = os.path.join(ROOT, "tests", "data", "pcsamp")
VCOPY = "vecCopy(double*, double*, double*, int, int)"
VADD = "vecAdd(double*, double*, int)"
res = {"pass": 0, "fail": 0, "skip": 0}


def report(ok, name, detail=""):
    res["pass" if ok else "fail"] += 1
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def workload(tmp, name, files):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for f in ("pmc_perf.csv", "sysinfo.csv"):
        shutil.copy(os.path.join(BASE, f), d)
    for dst, src in files.items():
        if src.startswith("text:"):
            with open(os.path.join(d, dst), "w") as f:
                f.write(src[5:])
        else:
            shutil.copy(os.path.join(DATA, src), os.path.join(d, dst))
    return d


def run(args):
    return subprocess.run([PRISM, "analyze"] + args, capture_output=True, text=True)


def dfs(path, tmp, extra=()):
    out = os.path.join(tmp, "dfs-" + os.path.basename(path) + str(len(extra)))
    r = run(["-p", path, "-b", "21", "--save-dfs", out] + list(extra))
    t = {}
    if r.returncode == 0:
        for n in os.listdir(out):
            with open(os.path.join(out, n), newline="", encoding="utf-8") as f:
                t[n.split("_", 1)[0]] = list(csv.DictReader(f))
    return r, t


# the stall reason CUPTI gave most of each HOT line's stalled samples on the H100
# (tests/data/pcsamp/h100: tests/gpu/run-pcsamp-check.sh, default sampling period)
H100_REASON = {"strided": "lg_throttle", "bank": "mio_throttle", "divergent": "not_selected"}
H100_KERNEL = {"strided": "strided_load", "bank": "bank_conflict",
               "divergent": "divergent_branch"}


def h100(tmp):
    """the H100 recording of tests/gpu/hotspots.cu: each kernel's hottest source line is the
    line marked HOT for it, holding most of its samples, with the stall reason recorded"""
    src = os.path.join(ROOT, "tests", "gpu", "hotspots.cu")
    hot = {}
    for n, line in enumerate(open(src), 1):
        if "// HOT " in line:
            hot[line.split("// HOT ")[1].split()[0]] = "hotspots.cu:%d" % n
    r, t = dfs(os.path.join(DATA, "h100"), tmp)
    rows = t.get("21.3", [])
    cites = {x["Kernel_Name"]: x["Message"] for x in t.get("0.3", [])
             if x.get("Finding") == "pc.hot_line"}
    report(r.returncode == 0 and len(hot) == 3 and rows, "H100 recording: panel 21 reads",
           r.stderr.strip())
    for name, where in sorted(hot.items()):
        mine = [x for x in rows if x["Kernel_Name"].startswith(H100_KERNEL[name] + "(")]
        top = mine[0] if mine else {}
        report(top.get("source_line") == ".../" + where and
               float(top.get("Pct of Kernel") or 0) > 90 and
               top.get("Top Stall Reason") == H100_REASON[name],
               f"H100 {name}: the hottest line is {where}, {H100_REASON[name]}", str(top))
        msg = [m for k, m in cites.items() if k.startswith(H100_KERNEL[name] + "(")]
        want = "of stall samples at %s, %s" % (where, H100_REASON[name].replace("_", " "))
        report(len(msg) == 1 and want in msg[0] and 90 <= int(msg[0].split("%")[0]) <= 100,
               f"H100 {name}: the findings cite it ('{want}')", str(msg))


def main():
    tmp = tempfile.mkdtemp(prefix="prism-pcs-")
    try:
        w39 = workload(tmp, "w39", {"4242_ps_file_results.json": "4242_ps_file_results.json",
                                    "4243_ps_file_results.json": "4243_ps_file_results.json"})
        r, t = dfs(w39, tmp)
        rows = t.get("21.1", [])
        report(r.returncode == 0 and len(rows) == 8, "3.9 per-process files: 8 rows in 21.1",
               r.stderr.strip() or f"{len(rows)} rows")
        hot = [x for x in rows if x.get("pid") == "4242" and x.get("offset") == "0x1938"]
        report(len(hot) == 1 and hot[0]["count"] == "40" and hot[0]["count_issued"] == "5"
               and hot[0]["count_stalled"] == "35"
               and hot[0]["stall_reason"] == "WAITCNT: 30, ALU_DEPENDENCY: 5"
               and hot[0]["source_line"] == ".../vcopy.cpp:42"
               and hot[0]["Kernel_Name"] == VCOPY, "21.1 counts, reasons and source of 0x1938",
               str(hot))
        report(any(x["Kernel_Name"] == VADD and x["offset"] == "0x2010" for x in rows),
               "a sample is the kernel its dispatch ran")
        h3 = t.get("21.3", [])
        report(bool(h3) and h3[0]["source_line"] == ".../vcopy.cpp:42" and h3[0]["count"] == "52"
               and abs(float(h3[0]["Pct of Kernel"]) - 100 * 52 / 65) < 1e-9
               and h3[0]["Top Stall Reason"] == "WAITCNT",
               "21.3: the hottest line, its share and top stall reason", str(h3[:1]))
        h2 = t.get("21.2", [])
        report(bool(h2) and h2[0]["offset"] == "0x1938" and h2[0]["count"] == "43",
               "21.2: the hottest instruction, both processes", str(h2[:1]))
        r, t = dfs(w39, tmp, ["-k", "0"])
        report(r.returncode == 0 and t.get("21.1") and
               all(x["Kernel_Name"] == VCOPY for x in t["21.1"] + t["21.2"] + t["21.3"]),
               "-k keeps the kernel's samples only", r.stderr.strip())
        r, t = dfs(w39, tmp, ["--pc-sampling-sorting-type", "count"])
        counts = [float(x["count"]) for x in t.get("21.1", [])]
        report(r.returncode == 0 and len(counts) == 8 and counts == sorted(counts, reverse=True)
               and counts[0] == 40, "--pc-sampling-sorting-type count: 21.1 by samples", str(counts))
        r = run(["-p", w39, "-b", "21", "--pc-sampling-sorting-type", "size"])
        report(r.returncode == 2 and "offset or count" in r.stderr, "a bad sorting type: exit 2")
        r = run(["-p", w39, "-b", "21"])
        report(r.returncode == 0 and "21.1 PC Sampling" in r.stdout and
               "21.3 Hot Source Lines" in r.stdout, "the text report shows panel 21")

        w33 = workload(tmp, "w33", {"ps_file_results.json": "ps_file_results.json"})
        r, t = dfs(w33, tmp)
        rows = t.get("21.1", [])
        report(r.returncode == 0 and len(rows) == 3 and "count_issued" not in rows[0]
               and "pid" not in rows[0], "3.3 host trap: no issue columns, no pid column",
               r.stderr.strip() or str(rows[:1]))
        report(any(x["Kernel_Name"] == VADD and x["count"] == "4" for x in rows),
               "3.3: a sample is the kernel at its address")

        summary = ("workload_id,pid,code_object_id,kernel_uuid,kernel_name,offset,instruction,"
                   "instruction_type,source,count,issue_count,stall_count,"
                   "wave_occupancy_percent,active_thread_percent,stall_reason\n"
                   f'1,77,2,1,"{VCOPY}",6456,s_waitcnt vmcnt(0),SALU,/app/vcopy.cpp:42,12,2,10,'
                   '50,100,"{""WAITCNT"":9,""ALU_DEPENDENCY"":1}"\n'
                   f'1,77,2,1,"{VCOPY}",6432,"global_load_dwordx2 v[2:3], v[0:1], off",VMEM,'
                   '/app/vcopy.cpp:41,3,3,0,50,100,\n')
        ws = workload(tmp, "ws", {"pc_sampling_summary.csv": "text:" + summary})
        r, t = dfs(ws, tmp)
        rows = t.get("21.1", [])
        report(r.returncode == 0 and [x["offset"] for x in rows] == ["0x1920", "0x1938"]
               and rows[1]["stall_reason"] == "WAITCNT: 9, ALU_DEPENDENCY: 1",
               "pc_sampling_summary.csv (rocprof-compute's export)", r.stderr.strip() or str(rows))

        bad = {
            "truncated JSON": {"9_ps_file_results.json": "text:" + open(
                os.path.join(DATA, "4243_ps_file_results.json")).read()[:500]},
            "offset not a number": {"ps_file_results.json": "text:" +
                '{"pc_sample_stochastic": [{"inst_index": 0, "record": {"pc": '
                '{"code_object_id": 1, "code_object_offset": "x"}}}]}'},
            "not a PC-sampling file": {"ps_file_results.json": "text:{}"},
            "summary count": {"pc_sampling_summary.csv":
                              "text:kernel_name,offset,count\nk,16,-1\n"},
        }
        for name, files in bad.items():
            w = workload(tmp, "bad-" + name.replace(" ", "-"), files)
            r = run(["-p", w])
            errs = [l for l in r.stderr.splitlines() if "warning" not in l]
            fname = list(files)[0]
            report(r.returncode == 2 and len(errs) == 1 and fname in errs[0],
                   f"bad sample file ({name}): one line, exit 2", f"rc {r.returncode}: {errs}")

        plain = workload(tmp, "plain", {})
        r = run(["-p", plain])
        report(r.returncode == 0 and "21. PC Sampling" not in r.stdout and
               "pc.hot_line" not in r.stdout, "no samples: no panel 21, no hot-line finding",
               r.stderr.strip())
        r = run(["-p", w39, "-b", "0.3"])
        report(r.returncode == 0 and "89% of stall samples at vcopy.cpp:42, waitcnt" in r.stdout,
               "AMD: the findings cite vecCopy's hottest line (40 of its 45 stalls)", r.stdout[-300:])

        h100(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{res['pass']} passed, {res['fail']} failed, {res['skip']} skipped")
    return 1 if res["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
