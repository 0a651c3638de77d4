#!/usr/bin/env python3
"""Generate a synthetic workload for bench/scale.sh: BASE's recorded rows repeated N times
with new dispatch ids, KERNELS kernel names and timestamps (the column set of BASE, so the
same panels apply). Usage: gen-workload.py BASE N OUT [KERNELS] [EXTRA_UNUSED_COLUMNS]"""
import csv, io, os, shutil, sys

base, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
nkern = int(sys.argv[4]) if len(sys.argv) > 4 else 50
extra = int(sys.argv[5]) if len(sys.argv) > 5 else 0
os.makedirs(out, exist_ok=True)
for f in ("sysinfo.csv", "roofline.csv"):
    if os.path.exists(os.path.join(base, f)):
        shutil.copy(os.path.join(base, f), out)


def enc(v):
    s = io.StringIO()
    csv.writer(s, lineterminator="").writerow([v])
    return s.getvalue()


names = [enc(f"kernel_{k:02d}(double*, double*, double*, int, int) [clone .kd]") for k in range(nkern)]
tables = ["pmc_perf.csv", "timestamps.csv"] + sorted(
    f for f in os.listdir(base) if f.startswith("SQ") and f.endswith(".csv"))
for f in tables:
    src = os.path.join(base, f)
    if not os.path.exists(src):
        continue
    rows = list(csv.reader(open(src, newline="")))
    head, body = rows[0], rows[1:]
    vary = {c: head.index(c) for c in ("Dispatch_ID", "Kernel_Name", "Start_Timestamp", "End_Timestamp") if c in head}
    add = extra if f == "pmc_perf.csv" else 0
    # each base row encoded once, split around the varying fields
    templates = []
    for r in body:
        r = r + [""] * (len(head) - len(r))
        dur = float(r[vary["End_Timestamp"]]) - float(r[vary["Start_Timestamp"]]) if "End_Timestamp" in vary else 0
        templates.append(([enc(v) for v in r], dur))
    junk = "," + ",".join(str(j) for j in range(add)) if add else ""
    with open(os.path.join(out, f), "w", newline="", buffering=1 << 20) as o:
        o.write(",".join(enc(h) for h in head)
                + ("," + ",".join(f"UNUSED_COUNTER_{j}" for j in range(add)) if add else "") + "\n")
        t0 = 1_000_000_000_000
        for d in range(n):
            fields, dur = templates[d % len(templates)]
            fields = list(fields)
            start = t0 + d * 50_000
            if "Dispatch_ID" in vary:
                fields[vary["Dispatch_ID"]] = str(d)
            if "Kernel_Name" in vary:
                fields[vary["Kernel_Name"]] = names[d % nkern]
            if "Start_Timestamp" in vary:
                fields[vary["Start_Timestamp"]] = str(start)
            if "End_Timestamp" in vary:
                fields[vary["End_Timestamp"]] = str(int(start + dur * (1 + (d % 7) / 10)))
            o.write(",".join(fields) + junk + "\n")
