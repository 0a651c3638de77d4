#!/usr/bin/env python3
"""--compat 3.10 (panels/versions, metrics/3.10/, panels/3.10/): each change of
rocprof-compute 3.4-3.10 that prism implements, on a two-dispatch workload written here in
the 3.10 layout, with the expected values worked out by hand from the stated rule, and the
same workload under --compat 3.3 (the default) for contrast.

The workload (gfx942, max_mclk 1300, num_memory_channels 128) has two dispatches of kernel
k in two passes; pass 0 holds SQ_INSTS and SQ_BUSY_CU_CYCLES, pass 1 SQ_WAVES, SQ_CYCLES,
GRBM_COUNT, five vL1D and three L2-fabric counters (eleven rows per dispatch):
  dispatch 1: SQ_INSTS 100, SQ_BUSY_CU_CYCLES 10;  pass 0 times 1000..1100, pass 1 5000..5300
  dispatch 2: SQ_INSTS 300, SQ_BUSY_CU_CYCLES 100; pass 0 times 2000..2400, pass 1 6000..6600
  TCP_TOTAL_CACHE_ACCESSES_sum 10 and 30; TCP_TCC_READ_REQ_sum 4 and 6, TCP_TCC_WRITE_REQ_sum
  1 and 1, the atomic requests 0; TCC_EA0_RDREQ_sum 100 and 200, TCC_BUBBLE_sum 30 and 20,
  TCC_EA0_RDREQ_32B_sum 80 and 100 (64-byte reads = RDREQ - BUBBLE - 32B: -10 and 80);
  GRBM_GUI_ACTIVE 800 and 1600 (num_xcd 8: 100 and 200 per XCD)

NOISE_CLAMP on the other families (FAMILIES below): one such workload per GPU whose pass 1
holds the L2-fabric counters (TCC_EA_* on gfx90a, TCC_EA0_* on gfx908 under 3.3's names,
gfx940 and gfx950):
  dispatch 1: RDREQ 100, RDREQ_DRAM 120 (remote -20), WRREQ 50, WRREQ_DRAM 40 (remote 10),
              WRREQ_64B 60 (32-byte writes -10)
  dispatch 2: RDREQ 200, RDREQ_DRAM 150 (remote 50), WRREQ 100, WRREQ_DRAM 100 (remote 0),
              WRREQ_64B 70 (32-byte writes 30)
and the vL1D's TCP_TOTAL_CACHE_ACCESSES_sum 10 and 30, TCP_TCC_READ_REQ_sum 12 and 6, the
other L2 requests 0 (hits: -2 and 24).
"""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PRISM = os.environ.get("PRISM", os.path.join(HERE, "..", "prism"))
passed = failed = 0

HEAD = ["GPU_ID", "GUID", "Correlation_Id", "Dispatch_ID", "Grid_Size", "Workgroup_Size",
        "LDS_Per_Workgroup", "Scratch_Per_Workitem", "Arch_VGPR", "Accum_VGPR", "SGPR",
        "Kernel_Name", "Start_Timestamp", "End_Timestamp", "Kernel_ID", "Counter_Name",
        "Counter_Value"]
SYSINFO = {"workload_path": "/w", "version": "3", "gpu_model": "MI300X_A1", "gpu_arch": "gfx942",
           "gpu_series": "MI300", "cu_per_gpu": "304", "se_per_gpu": "32", "simd_per_cu": "4",
           "wave_size": "64", "max_waves_per_cu": "32", "workgroup_max_size": "1024",
           "max_sclk": "2100", "max_mclk": "1300", "cur_sclk": "2100", "cur_mclk": "1300",
           "total_l2_chan": "128", "lds_banks_per_cu": "32", "sqc_per_gpu": "160",
           "pipes_per_gpu": "4", "num_xcd": "8", "num_memory_channels": "128",
           "sa_per_se": "1", "l2_banks": "16"}


def check(what, got, want):
    global passed, failed
    ok = got is not None and abs(got - want) <= 1e-9 * max(1.0, abs(want))
    if ok:
        passed += 1
        print("ok   %s: %.12g" % (what, got))
    else:
        failed += 1
        print("FAIL %s: got %r, want %.12g" % (what, got, want))


def check_text(what, got, want):
    global passed, failed
    if got == want:
        passed += 1
        print("ok   %s: %r" % (what, got))
    else:
        failed += 1
        print("FAIL %s: got %r, want %r" % (what, got, want))


FABRIC = {1: {"RDREQ": 100, "RDREQ_DRAM": 120, "WRREQ": 50, "WRREQ_DRAM": 40, "WRREQ_64B": 60},
          2: {"RDREQ": 200, "RDREQ_DRAM": 150, "WRREQ": 100, "WRREQ_DRAM": 100, "WRREQ_64B": 70}}
# GPU, sysinfo fields that differ from SYSINFO, the fabric counters' prefix
ZERO = {"TCP_TCC_WRITE_REQ_sum": 0, "TCP_TCC_ATOMIC_WITH_RET_REQ_sum": 0,
        "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum": 0}
TCP = {1: dict(ZERO, TCP_TOTAL_CACHE_ACCESSES_sum=10, TCP_TCC_READ_REQ_sum=12),
       2: dict(ZERO, TCP_TOTAL_CACHE_ACCESSES_sum=30, TCP_TCC_READ_REQ_sum=6)}
FAMILIES = [("gfx942", {}, "TCC_EA0_"),
            ("gfx90a", {"gpu_model": "MI200", "gpu_arch": "gfx90a", "gpu_series": "MI200",
                        "cu_per_gpu": "104", "se_per_gpu": "8", "num_xcd": "1",
                        "total_l2_chan": "32", "num_memory_channels": "32"}, "TCC_EA_"),
            ("gfx908", {"gpu_model": "MI100", "gpu_arch": "gfx908", "gpu_series": "MI100",
                        "cu_per_gpu": "120", "se_per_gpu": "8", "num_xcd": "1",
                        "total_l2_chan": "32", "num_memory_channels": "32"}, "TCC_EA0_"),
            ("gfx940", {"gpu_model": "MI300A_A0", "gpu_arch": "gfx940", "cu_per_gpu": "228",
                        "se_per_gpu": "24", "num_xcd": "6", "total_l2_chan": "96"}, "TCC_EA0_"),
            ("gfx950", {"gpu_model": "MI350", "gpu_arch": "gfx950", "gpu_series": "MI350",
                        "cu_per_gpu": "256", "num_xcd": "8"}, "TCC_EA0_")]


def write(d, sysinfo=None, mem=None):
    info = dict(SYSINFO, **(sysinfo or {}))
    with open(os.path.join(d, "sysinfo.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(info.keys())
        w.writerow(info.values())
    os.makedirs(os.path.join(d, "perfmon"))
    mem = mem or {1: {"TCP_TOTAL_CACHE_ACCESSES_sum": 10, "TCP_TCC_READ_REQ_sum": 4,
               "TCP_TCC_WRITE_REQ_sum": 1, "TCP_TCC_ATOMIC_WITH_RET_REQ_sum": 0,
               "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum": 0, "TCC_EA0_RDREQ_sum": 100,
               "TCC_BUBBLE_sum": 30, "TCC_EA0_RDREQ_32B_sum": 80},
           2: {"TCP_TOTAL_CACHE_ACCESSES_sum": 30, "TCP_TCC_READ_REQ_sum": 6,
               "TCP_TCC_WRITE_REQ_sum": 1, "TCP_TCC_ATOMIC_WITH_RET_REQ_sum": 0,
               "TCP_TCC_ATOMIC_WITHOUT_RET_REQ_sum": 0, "TCC_EA0_RDREQ_sum": 200,
               "TCC_BUBBLE_sum": 20, "TCC_EA0_RDREQ_32B_sum": 100}}
    grbm = {1: 800, 2: 1600}
    disp = {1: (100, 10, (1000, 1100), (5000, 5300)), 2: (300, 100, (2000, 2400), (6000, 6600))}
    for p in (0, 1):
        with open(os.path.join(d, "results_pmc_perf_%d.csv" % p), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(HEAD)
            for i, (insts, busy, t0, t1) in disp.items():
                s, e = t0 if p == 0 else t1
                base = [4, "g", i, i, 1024, 256, 0, 0, 8, 0, 16, "k", s, e, 0]
                if p == 0:
                    w.writerow(base + ["SQ_INSTS", insts])
                    w.writerow(base + ["SQ_BUSY_CU_CYCLES", busy])
                else:
                    for c in ("SQ_WAVES", "SQ_CYCLES", "GRBM_COUNT"):
                        w.writerow(base + [c, 64])
                    w.writerow(base + ["GRBM_GUI_ACTIVE", grbm[i]])
                    for c, v in mem[i].items():
                        w.writerow(base + [c, v])
        open(os.path.join(d, "perfmon", "pmc_perf_%d.yaml" % p), "w").write("jobs: []\n")


def table(dfs, prefix):
    for name in os.listdir(dfs):
        if name.startswith(prefix + "_") or name == prefix + ".csv":
            with open(os.path.join(dfs, name), newline="") as f:
                return list(csv.reader(f))
    return None


def cell(rows, metric_name, col):
    if not rows:
        return None
    head = rows[0]
    for r in rows[1:]:
        if metric_name in r:
            v = r[head.index(col)] if col in head else None
            try:
                return float(v)
            except (TypeError, ValueError):
                return None
    return None


STDERR = {}


def analyze(d, compat, out, key=None):
    p = subprocess.run([PRISM, "analyze", "-p", d, "--compat", compat, "--save-dfs", out],
                       capture_output=True, text=True)
    STDERR[key or compat] = p.stderr
    if p.returncode:
        print("FAIL analyze --compat %s: %s" % (compat, p.stderr.strip()[-300:]))
        return False
    return True


def families(tmp):
    """NOISE_CLAMP where the newest configs apply it, family by family (FABRIC's values)."""
    global failed
    for gpu, info, pre in FAMILIES:
        d = os.path.join(tmp, gpu)
        os.makedirs(d)
        write(d, info, {i: dict({pre + k + "_sum": v for k, v in c.items()}, **TCP[i])
                        for i, c in FABRIC.items()})
        new, old = os.path.join(tmp, gpu + "-new"), os.path.join(tmp, gpu + "-old")
        if not analyze(d, "3.10", new, gpu) or not analyze(d, "3.3", old, gpu + "-3.3"):
            failed += 1
            continue
        f10, f33 = table(new, "17.6"), table(old, "17.6")
        # 17.6's 32-byte writes (WRREQ - WRREQ_64B: -10 and 30), clamped on every family
        check("%s 3.10 Write and Atomic (32B) = (NOISE_CLAMP(-10) + 30) / 2" % gpu,
              cell(f10, "Write and Atomic (32B)", "Avg"), (0 + 30) / 2)
        check("%s 3.3 Write and Atomic (32B) = (-10 + 30) / 2" % gpu,
              cell(f33, "Write and Atomic (32B)", "Avg"), (-10 + 30) / 2)
        check_text("%s 3.10 warns (the 32-byte writes' -10 is 20%% of WRREQ's 50)" % gpu,
                   "counter variance corrected" in STDERR[gpu] and
                   "at most 20.0% of its reference" in STDERR[gpu], True)
        check_text("%s 3.3 does not warn" % gpu, "counter variance" in STDERR[gpu + "-3.3"],
                   False)
        if gpu != "gfx950":  # gfx950's 17.6 shows bandwidths instead of the remote requests
            check("%s 3.10 Remote Read = (NOISE_CLAMP(-20) + 50) / 2" % gpu,
                  cell(f10, "Remote Read", "Avg"), (0 + 50) / 2)
            check("%s 3.10 Remote Write and Atomic = (10 + 0) / 2" % gpu,
                  cell(f10, "Remote Write and Atomic", "Avg"), (10 + 0) / 2)
        # 17.2's remote read traffic: clamped from gfx940 on (its ratio of sums in 3.10), a
        # plain difference on gfx908 and gfx90a
        t10 = cell(table(new, "17.2"), "Remote Read Traffic", "Avg")
        if gpu in ("gfx940", "gfx942", "gfx950"):
            check("%s 3.10 Remote Read Traffic = 100 * (0 + 50) / (100 + 200)" % gpu, t10,
                  100 * 50 / 300)
            check("%s 3.10 Remote Write and Atomic Traffic = 100 * (10 + 0) / (50 + 100)" % gpu,
                  cell(table(new, "17.2"), "Remote Write and Atomic Traffic", "Avg"),
                  100 * 10 / 150)
        else:
            check("%s 3.10 Remote Read Traffic = 100 * (-20 + 50) / (100 + 200), unclamped" % gpu,
                  t10, 100 * 30 / 300)
        # 16.3's Cache Hit Rate: clamped on gfx942 only (100 * (0 + 24) / 40); elsewhere
        # 100 - 100 * (12 + 6) / (10 + 30); 3.3 the mean of 100 - 100 * 12 / 10 and 100 - 20
        h10 = cell(table(new, "16.3"), "Cache Hit Rate", "Avg")
        if gpu == "gfx942":
            check("gfx942 3.10 16.3 Cache Hit Rate = 100 * (NOISE_CLAMP(-2) + 24) / 40", h10,
                  100 * 24 / 40)
        else:
            check("%s 3.10 16.3 Cache Hit Rate = 100 - 100 * 18 / 40, unclamped" % gpu, h10,
                  100 - 100 * 18 / 40)
        check("%s 3.3 16.3 Cache Hit Rate = (-20 + 80) / 2" % gpu,
              cell(table(old, "16.3"), "Cache Hit Rate", "Avg"), (-20 + 80) / 2)
        check("%s 3.10 2.1 vL1D Cache Hit Rate = 100 - 100 * 18 / 40, unclamped" % gpu,
              cell(table(new, "2.1"), "vL1D Cache Hit Rate", "Avg"), 100 - 100 * 18 / 40)


def main():
    global failed
    tmp = tempfile.mkdtemp(prefix="prism-c310-")
    try:
        d = os.path.join(tmp, "w")
        os.makedirs(d)
        write(d)
        new, old = os.path.join(tmp, "new"), os.path.join(tmp, "old")
        if not analyze(d, "3.10", new) or not analyze(d, "3.3", old):
            failed += 1
        else:
            s10, s33 = table(new, "2.1"), table(old, "2.1")
            # 3.7: a ratio's mean is SUM(A) / SUM(B): IPC = (100 + 300) / (10 + 100)
            check("3.10 IPC mean = SUM(SQ_INSTS) / SUM(SQ_BUSY_CU_CYCLES)",
                  cell(s10, "IPC", "Avg"), 400 / 110)
            check("3.3 IPC mean = AVG(SQ_INSTS / SQ_BUSY_CU_CYCLES)",
                  cell(s33, "IPC", "Avg"), (100 / 10 + 300 / 100) / 2)
            # 3.8: `Percent of Peak`, 100 * the mean / the peak (5 instructions per cycle)
            check_text("3.10 column title", s10[0][-1] if s10 else None, "Percent of Peak")
            check_text("3.3 column title", s33[0][-1] if s33 else None, "Pct of Peak")
            check("3.10 IPC Percent of Peak = 100 * (400 / 110) / 5",
                  cell(s10, "IPC", "Percent of Peak"), 100 * (400 / 110) / 5)
            # 3.10: no Active CUs row in 2.1
            check_text("3.10 2.1 has no Active CUs", any("Active CUs" in r for r in s10), False)
            check_text("3.3 2.1 has Active CUs", any("Active CUs" in r for r in s33), True)
            # 3.4: CU Utilization, 2.1's last row (3.10 keeps it):
            # 100 * SUM(SQ_BUSY_CU_CYCLES) / SUM(GRBM_GUI_ACTIVE / num_xcd * cu_per_gpu)
            cu = 100 * (10 + 100) / ((800 / 8 + 1600 / 8) * 304)
            check("3.10 CU Utilization = 100 * 110 / (300 * 304)", cell(s10, "CU Utilization", "Avg"),
                  cu)
            check("3.10 CU Utilization Percent of Peak (peak 100)",
                  cell(s10, "CU Utilization", "Percent of Peak"), cu)
            check_text("3.10 CU Utilization is 2.1's last row", s10[-1][1] if s10 else None,
                       "CU Utilization")
            check_text("3.3 has no CU Utilization", any("CU Utilization" in r for r in s33), False)
            # 3.8: hbmBandwidth = max_mclk / 1000 * 32 * num_memory_channels
            check("3.10 HBM Bandwidth from num_memory_channels",
                  cell(table(new, "17.1"), "HBM Bandwidth", "Avg"), 1300 / 1000 * 32 * 128)
            check("3.3 HBM Bandwidth (num_hbm_channels, the field's 3.3 name)",
                  cell(table(old, "17.1"), "HBM Bandwidth", "Avg"), 1300 / 1000 * 32 * 128)
            # 3.10: dispatches from 1; 3.3 from 0
            d10, d33 = table(new, "0.2"), table(old, "0.2")
            i10 = [r[d10[0].index("Dispatch_ID")] for r in d10[1:]]
            i33 = [r[d33[0].index("Dispatch_ID")] for r in d33[1:]]
            check_text("3.10 Dispatch_IDs", i10, ["1", "2"])
            check_text("3.3 Dispatch_IDs", i33, ["0", "1"])
            # 3.7: the roofline's vL1D and L2 bytes count 128-byte lines on gfx942 (64 before)
            r10, r33 = table(new, "4.2"), table(old, "4.2")
            check("3.10 vL1D Bytes mean = 128 * (10 + 30) / 2", cell(r10, "vL1D Bytes", "Avg"),
                  128 * 40 / 2)
            check("3.3 vL1D Bytes mean = 64 * (10 + 30) / 2", cell(r33, "vL1D Bytes", "Avg"),
                  64 * 40 / 2)
            check("3.10 L2 Bytes mean = 128 * ((4 + 1) + (6 + 1)) / 2",
                  cell(r10, "L2 Bytes", "Avg"), 128 * 12 / 2)
            check("3.3 L2 Bytes mean = 64 * ((4 + 1) + (6 + 1)) / 2",
                  cell(r33, "L2 Bytes", "Avg"), 64 * 12 / 2)
            # 3.5: NOISE_CLAMP: 17.6's 64-byte reads, -10 clamped to 0 (10% of RDREQ's 100)
            f10, f33 = table(new, "17.6"), table(old, "17.6")
            check("3.10 Read (64B) mean = (NOISE_CLAMP(-10) + 80) / 2",
                  cell(f10, "Read (64B)", "Avg"), (0 + 80) / 2)
            check("3.3 Read (64B) mean = (-10 + 80) / 2", cell(f33, "Read (64B)", "Avg"),
                  (-10 + 80) / 2)
            check_text("3.10 warns of the correction (10.0% of its reference)",
                       "counter variance corrected" in STDERR["3.10"] and
                       "at most 10.0% of its reference" in STDERR["3.10"], True)
            check_text("3.3 does not", "counter variance" in STDERR["3.3"], False)
            # timestamps, as the sum of the kernel's durations in 0.1 (ns): 3.10 the first
            # pass's (100 + 400); 3.3 the median of each dispatch's thirteen rows (two of
            # pass 0, eleven of pass 1: 300 and 600)
            t10, t33 = table(new, "0.1"), table(old, "0.1")
            check("3.10 kernel time = first pass's durations 100 + 400",
                  cell(t10, "k", [c for c in t10[0] if c.startswith("Sum")][0]), 500)
            check("3.3 kernel time = medians of the rows' durations 300 + 600",
                  cell(t33, "k", [c for c in t33[0] if c.startswith("Sum")][0]), 900)
        families(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
