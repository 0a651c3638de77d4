#!/usr/bin/env python3
"""Compare prism's NVIDIA rows with ncu's details page, kernel by kernel.

usage: ncu_compare.py PRISM NCU_DETAILS.csv WORKLOAD_DIR DISPATCH_ID... [--md]

The n-th kernel of the ncu CSV (its ID column) is compared with the n-th dispatch id given;
NCU_ID=DISPATCH_ID pairs them explicitly (7=7 8=8: only the second launch of each kind).
prism's values come from `prism analyze -d ID --save-dfs` of the recorded workload. Prints
one line per ncu row with a prism namesake (PAIRS below): ncu value, prism value, the
difference in percent, and a summary; --md prints a markdown table instead."""
import csv
import os
import subprocess
import sys
import tempfile

# ncu prints these launch attributes as words, prism as the CUDA enum's number
CACHE_CONFIG = {"CachePreferNone": 0, "CachePreferShared": 1, "CachePreferL1": 2,
                "CachePreferEqual": 3}
CLUSTER_POLICY = {"PolicyDefault": 0, "PolicySpread": 1, "PolicyLoadBalancing": 2}

# ncu row (section, name) -> (prism table id, prism row name, factor: prism * factor = ncu;
# a dict: ncu's word -> prism's number)
PAIRS = [
    ("GPU Speed Of Light Throughput", "DRAM Frequency", "7.2", "DRAM Frequency", 1e9),
    ("GPU Speed Of Light Throughput", "SM Frequency", "7.2", "SM Frequency", 1e9),
    ("GPU Speed Of Light Throughput", "Elapsed Cycles", "7.2", "Elapsed Cycles", 1),
    ("GPU Speed Of Light Throughput", "Memory Throughput", "2.1", "Memory Throughput", 1),
    ("GPU Speed Of Light Throughput", "DRAM Throughput", "2.1", "DRAM Throughput", 1),
    ("GPU Speed Of Light Throughput", "Duration", "7.2", "Kernel Time", 1),
    ("GPU Speed Of Light Throughput", "L1/TEX Cache Throughput", "2.1", "L1/TEX Cache Throughput", 1),
    ("GPU Speed Of Light Throughput", "L2 Cache Throughput", "2.1", "L2 Cache Throughput", 1),
    ("GPU Speed Of Light Throughput", "SM Active Cycles", "7.2", "SM Active Cycles", 1),
    ("GPU Speed Of Light Throughput", "Compute (SM) Throughput", "2.1", "Compute (SM) Throughput", 1),
    ("Compute Workload Analysis", "Executed Ipc Active", "2.1", "IPC (per SM)", 1),
    ("Compute Workload Analysis", "Executed Ipc Elapsed", "11.2", "Executed Ipc Elapsed", 1),
    ("Compute Workload Analysis", "Issue Slots Busy", "11.2", "Issue Slots Busy", 1),
    ("Compute Workload Analysis", "Issued Ipc Active", "11.2", "IPC (Issued)", 1),
    ("Compute Workload Analysis", "SM Busy", "6.1", "SM Busy", 1),
    ("Memory Workload Analysis", "Memory Throughput", "2.1", "DRAM BW", 1e9),
    ("Memory Workload Analysis", "Mem Busy", "2.1", "Mem Busy", 1),
    ("Memory Workload Analysis", "Max Bandwidth", "2.1", "Max Bandwidth", 1),
    ("Memory Workload Analysis", "L1/TEX Hit Rate", "2.1", "L1 Hit Rate", 1),
    ("Memory Workload Analysis", "L2 Hit Rate", "2.1", "L2 Hit Rate", 1),
    ("Memory Workload Analysis", "Mem Pipes Busy", "2.1", "Mem Pipes Busy", 1),
    ("Scheduler Statistics", "One or More Eligible", "7.4", "One or More Eligible", 1),
    ("Scheduler Statistics", "Issued Warp Per Scheduler", "7.4", "Issued Warp Per Scheduler", 1),
    ("Scheduler Statistics", "No Eligible", "7.4", "No Eligible", 1),
    ("Scheduler Statistics", "Active Warps Per Scheduler", "7.4", "Active Warps Per Scheduler", 1),
    ("Scheduler Statistics", "Eligible Warps Per Scheduler", "7.4", "Eligible Warps Per Scheduler", 1),
    ("Warp State Statistics", "Warp Cycles Per Issued Instruction", "7.3", "Warp Cycles Per Issued Instruction", 1),
    ("Warp State Statistics", "Warp Cycles Per Executed Instruction", "7.3", "Warp Cycles Per Executed Instruction", 1),
    ("Warp State Statistics", "Avg. Active Threads Per Warp", "7.3", "Avg. Active Threads Per Warp", 1),
    ("Warp State Statistics", "Avg. Not Predicated Off Threads Per Warp", "7.3", "Avg. Not Predicated Off Threads Per Warp", 1),
    ("Instruction Statistics", "Avg. Executed Instructions Per Scheduler", "11.2", "Avg. Executed Instructions Per Scheduler", 1),
    ("Instruction Statistics", "Executed Instructions", "11.2", "Executed Instructions", 1),
    ("Instruction Statistics", "Avg. Issued Instructions Per Scheduler", "11.2", "Avg. Issued Instructions Per Scheduler", 1),
    ("Instruction Statistics", "Issued Instructions", "11.2", "Issued Instructions", 1),
    ("Launch Statistics", "Block Size", "7.1", "Block Size", 1),
    ("Launch Statistics", "Grid Size", "7.1", "Grid Size", 1),
    ("Launch Statistics", "Registers Per Thread", "7.1", "Registers", 1),
    ("Launch Statistics", "Driver Shared Memory Per Block", "7.1", "Driver Shared Memory Per Block", 1),
    ("Launch Statistics", "# SMs", "7.1", "# SMs", 1),
    ("Launch Statistics", "Threads", "7.1", "Threads", 1),
    ("Launch Statistics", "Waves Per SM", "7.1", "Waves Per SM", 1),
    ("Occupancy", "Block Limit SM", "6.3", "Block Limit SM", 1),
    ("Occupancy", "Block Limit Registers", "6.3", "Block Limit Registers", 1),
    ("Occupancy", "Block Limit Shared Mem", "6.3", "Block Limit Shared Mem", 1),
    ("Occupancy", "Block Limit Warps", "6.3", "Block Limit Warps", 1),
    ("Occupancy", "Theoretical Active Warps per SM", "6.3", "Theoretical Active Warps per SM", 1),
    ("Occupancy", "Theoretical Occupancy", "6.3", "Theoretical Occupancy", 1),
    ("Occupancy", "Achieved Occupancy", "6.3", "Achieved Occupancy", 1),
    ("Occupancy", "Achieved Active Warps Per SM", "6.3", "Achieved Active Warps Per SM", 1),
    ("GPU and Memory Workload Distribution", "Average DRAM Active Cycles", "7.5", "Average DRAM Active Cycles", 1),
    ("GPU and Memory Workload Distribution", "Total DRAM Elapsed Cycles", "7.5", "Total DRAM Elapsed Cycles", 1),
    ("GPU and Memory Workload Distribution", "Average L1 Active Cycles", "7.5", "Average L1 Active Cycles", 1),
    ("GPU and Memory Workload Distribution", "Total L1 Elapsed Cycles", "7.5", "Total L1 Elapsed Cycles", 1),
    ("GPU and Memory Workload Distribution", "Average L2 Active Cycles", "7.5", "Average L2 Active Cycles", 1),
    ("GPU and Memory Workload Distribution", "Total L2 Elapsed Cycles", "7.5", "Total L2 Elapsed Cycles", 1),
    ("GPU and Memory Workload Distribution", "Average SM Active Cycles", "7.5", "Average SM Active Cycles", 1),
    ("GPU and Memory Workload Distribution", "Total SM Elapsed Cycles", "7.5", "Total SM Elapsed Cycles", 1),
    ("GPU and Memory Workload Distribution", "Average SMSP Active Cycles", "7.5", "Average SMSP Active Cycles", 1),
    ("GPU and Memory Workload Distribution", "Total SMSP Elapsed Cycles", "7.5", "Total SMSP Elapsed Cycles", 1),
    ("Source Counters", "Branch Instructions Ratio", "10.5", "Branch Instructions Ratio", 1),
    ("Source Counters", "Branch Instructions", "10.5", "Branch Instructions", 1),
    ("Source Counters", "Branch Efficiency", "10.5", "Branch Efficiency", 1),
    ("Source Counters", "Avg. Divergent Branches", "10.5", "Avg. Divergent Branches", 1),
    # launch attributes the collector writes (launch__ metrics)
    ("Launch Statistics", "Static Shared Memory Per Block", "7.1", "Static Shared Memory Per Block", 1),
    ("Launch Statistics", "Dynamic Shared Memory Per Block", "7.1", "Dynamic Shared Memory Per Block", 1),
    ("Launch Statistics", "Shared Memory Configuration Size", "7.1", "Shared Memory Configuration Size", 1),
    ("Launch Statistics", "Function Cache Configuration", "7.1", "Function Cache Configuration", CACHE_CONFIG),
    ("Launch Statistics", "Stack Size", "7.1", "Stack Size", 1),
    ("Launch Statistics", "# TPCs", "7.1", "# TPCs", 1),
    ("Launch Statistics", "Cluster Size", "7.1", "Cluster Size", 1),
    ("Launch Statistics", "Cluster Scheduling Policy", "7.1", "Cluster Scheduling Policy", CLUSTER_POLICY),
    ("Memory Workload Analysis", "L2 Persisting Size", "7.1", "L2 Persisting Size", 1),
    ("Memory Workload Analysis", "L2 Compression Input Sectors", "17.3", "L2 Compression Input Sectors", 1),
    ("Memory Workload Analysis", "L2 Compression Success Rate", "17.3", "L2 Compression Success Rate", 1),
    ("Memory Workload Analysis", "L2 Compression Ratio", "17.3", "L2 Compression Ratio", 1),
    ("Occupancy", "Max Active Clusters", "6.3", "Max Active Clusters", 1),
    ("Occupancy", "Max Cluster Size", "6.3", "Max Cluster Size", 1),
    ("Occupancy", "Overall GPU Occupancy", "6.3", "Overall GPU Occupancy", 1),
    ("Occupancy", "Cluster Occupancy", "6.3", "Cluster Occupancy", 1),
]


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def diff_pct(v, ref, raw=""):
    """Signed percent difference of v from ref. raw is ref as ncu printed it: a difference
    within half of its last printed digit counts as none. None when v is None."""
    if v is None:
        return None
    if raw:
        dec = len(raw.split(".")[1]) if "." in raw else 0
        if abs(v - ref) <= 0.5 * 10 ** -dec * 1.0001:
            return 0.0
    elif v == ref:
        return 0.0
    if ref == 0:
        return float("inf")
    return 100 * (v - ref) / abs(ref)


def prism_tables(prism, wl, disp):
    d = tempfile.mkdtemp(prefix="ncu-compare.")
    subprocess.run([prism, "analyze", "-p", wl, "-d", str(disp), "--save-dfs", d],
                   check=True, stdout=subprocess.DEVNULL)
    out = {}
    for f in os.listdir(d):
        tid = f.split("_")[0].removesuffix(".csv")
        with open(os.path.join(d, f), newline="") as fh:
            for r in csv.DictReader(fh):
                name = r.get("Metric")
                val = r.get("Avg", r.get("Value"))
                if name is not None and val not in (None, ""):
                    out[(tid, name)] = float(val)
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--md"]
    md = "--md" in sys.argv
    if len(args) < 4:
        sys.exit(__doc__)
    prism, details, wl, disps = args[0], args[1], args[2], args[3:]
    ncu = {}
    kname = {}
    with open(details, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["Metric Name"]:
                ncu[(r["ID"], r["Section Name"], r["Metric Name"])] = r["Metric Value"]
                kname[r["ID"]] = r["Kernel Name"].split("(")[0]
    ids = sorted(kname, key=int)
    rows_total = len({(s, n) for (_, s, n) in ncu})
    worst = []
    if md:
        print("| kernel | ncu section | ncu row | ncu | prism (table: row) | diff % |")
        print("| --- | --- | --- | --- | --- | --- |")
    if all("=" in d for d in disps):
        pairs = [tuple(d.split("=", 1)) for d in disps]
    else:
        pairs = list(zip(ids, disps))
    for kid, disp in pairs:
        pt = prism_tables(prism, wl, disp)
        for sec, name, tid, pname, fac in PAIRS:
            raw = ncu.get((kid, sec, name), "")
            pv = pt.get((tid, pname))
            if isinstance(fac, dict):
                nv = fac.get(raw)
                raw, fac = "", 1
            else:
                nv = num(raw)
            if nv is None:
                continue
            pvs = "n/a" if pv is None else pv * fac
            diff = diff_pct(None if pv is None else pv * fac, nv, raw)
            worst.append((abs(diff) if diff is not None else float("inf"), kname[kid], name))
            ds = "n/a" if diff is None else f"{diff:+.2f}"
            if md:
                print(f"| {kname[kid]} | {sec} | {name} | {nv:.6g} | {pvs if isinstance(pvs, str) else f'{pvs:.6g}'} ({tid}: {pname}) | {ds} |")
            else:
                print(f"{kname[kid]:12} {name:42} ncu {nv:14.6g} prism {pvs if isinstance(pvs, str) else f'{pvs:14.6g}'} {ds}")
    n_ok = sum(1 for w in worst if w[0] <= 2)
    print(f"\n{len(PAIRS)} of {rows_total} ncu detail rows have a prism namesake; "
          f"{n_ok} of {len(worst)} kernel x row values within 2 %")
    for w in sorted(worst, reverse=True):
        if w[0] > 2:
            print(f"  off: {w[1]} {w[2]}: {w[0]:.2f} %")


if __name__ == "__main__":
    main()
