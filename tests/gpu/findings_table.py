#!/usr/bin/env python3
"""prism's findings next to ncu's rules, per kernel of a known-limiter program
(tests/gpu/limiters.cu, tests/gpu/variants.cu, tests/gpu/holdout.cu), as the markdown tables of
bench/findings-h100.md.

usage: findings_table.py PRISM WORKLOAD NCU_RULES_CSV NCU_LAUNCH_CSV

WORKLOAD is `prism profile` of `limiters all` (tests/data/limiters; variants: tests/data/
variants); the two CSV files are
the rule rows and the launch/occupancy rows of `ncu --set full` on the same binary
(`ncu -i REPORT --csv --page details`, cut down by run-findings-check.sh's caller:
bench/ncu-limiters-rules.csv, bench/ncu-limiters-launch.csv; bench/ncu-variants-*.csv). Dispatch N of the workload is
ncu's ID N (one launch of each kernel, in the same order)."""
import csv
import os
import shutil
import subprocess
import sys
import tempfile

# the limiter each kernel was written to have (tests/gpu/limiters.cu)
KNOWN = {
    "init_chain": "(setup: writes the chain, DRAM)",
    "strided": "uncoalesced loads (4 of 32 bytes per sector used)",
    "chase": "grid too small (132 blocks of 1 thread), memory latency",
    "mma_grid": "grid too small (132 blocks of 128 threads, 0.06 waves)",
    "diverge": "warp divergence (4 of 32 lanes)",
    "atomics": "atomics serialized on 4 addresses",
    "local_array": "local memory (dynamically indexed array)",
    "one_block": "grid too small (1 block)",
    "tail": "tail wave (1.2 waves)",
    "smem_conflict": "32-way shared-memory bank conflicts",
    "fma32": "FMA pipe (FP32)",
    "fma64": "FP64 pipe",
    "mma_full": "tensor pipe",
    "sm80_xmma_gemm": "cuBLAS SGEMM 4096^3: FMA pipe",
    # tests/gpu/variants.cu
    "init_chain2": "(setup: writes the chain, DRAM)",
    "strided2": "loads 8 bytes apart: half of each sector used",
    "gather": "loads at hashed indices (random)",
    "scatter": "each lane stores into its own 128-byte line",
    "chase_warp": "grid too small (1 block of 32 threads), memory latency",
    "diverge_int": "warp divergence (8 of 32 lanes, integer work)",
    "atomic_int": "integer atomics on 1 address",
    "cas_max": "compare-and-swap loop on 2 addresses",
    "local_dbl": "local memory (dynamically indexed double array)",
    "block1024": "grid too small (1 block of 1024 threads)",
    "tail15": "tail wave (1.5 waves)",
    "smem_8way": "8-way shared-memory bank conflicts",
    "sm90_xmma_gemm": "cuBLAS DGEMM 2048^3: FP64 tensor pipe",
    "nvjet": "cuBLAS FP16 GEMM 8192x8192x4096: tensor pipe (wgmma)",
}
# tests/gpu/holdout.cu (its cuBLAS GEMM, BF16 4096^3, is an nvjet kernel too)
HOLDOUT = {
    "init_chain3": "(setup: writes the chain, DRAM)",
    "stride8": "loads 32 bytes apart: 4 of 32 bytes per sector used",
    "stride2_dbl": "double loads 16 bytes apart: half of each sector used",
    "chase2": "grid too small (2 blocks of 64 threads), memory latency",
    "diverge2": "warp divergence (2 of 32 lanes)",
    "diverge16": "warp divergence (16 of 32 lanes)",
    "atomic64": "float atomics on 64 addresses",
    "atomic1_dbl": "double atomics on 1 address",
    "smem_atomic": "shared-memory atomics on 4 words per block",
    "local_loop": "local memory (array indexed by the loop variable)",
    "bank2way": "2-way shared-memory bank conflicts",
    "bank8_col": "8-way bank conflicts (column of a [256][8] tile)",
    "tail11": "tail wave (1.1 waves)",
    "fp64_stream": "FP64 stream: DRAM",
    "mma_bf16": "BF16 tensor loop on a full grid: tensor pipe",
    "nvjet": "cuBLAS BF16 GEMM 4096^3: tensor pipe (wgmma)",
}


def short(name):
    k = name.split("(")[0].strip()
    for lib in ("sm80_xmma_gemm", "sm90_xmma_gemm", "nvjet"):
        k = lib if k.startswith(lib) else k
    return k


def num(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return float("nan")


def prism_kernel(prism, wl, d, tmp):
    out = os.path.join(tmp, f"d{d}")
    shutil.rmtree(out, ignore_errors=True)
    r = subprocess.run([prism, "analyze", "-p", wl, "-d", str(d), "-b", "0.3", "6.3", "7.1",
                        "--save-dfs", out], capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"findings_table.py: prism analyze -d {d}: {r.stderr.strip()}")
    t = {}
    for n in os.listdir(out):
        with open(os.path.join(out, n), newline="", encoding="utf-8") as f:
            t[n.split("_", 1)[0]] = list(csv.DictReader(f))
    rows = t.get("0.3", [])
    ids = {r["Metric_ID"]: r for tid in ("6.3", "7.1") for r in t.get(tid, [])}
    return rows, ids


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    prism, wl, rules_csv, launch_csv = sys.argv[1:]
    with open(rules_csv, newline="", encoding="utf-8") as f:
        rules = list(csv.DictReader(f))
    with open(launch_csv, newline="", encoding="utf-8") as f:
        launch = list(csv.DictReader(f))
    if "holdout" in os.path.basename(os.path.normpath(wl)):
        KNOWN.update(HOLDOUT)
    tmp = tempfile.mkdtemp()
    try:
        ncu_ids = sorted({int(r["ID"]) for r in rules} | {int(r["ID"]) for r in launch})
        print("| kernel | known limiter | prism: top finding (est. speedup) | prism: next | "
              "ncu: top rule, global (est. speedup) | ncu: top rule, local | "
              "waves / theor. / achieved occ. (prism; ncu) |")
        print("|---|---|---|---|---|---|---|")
        for d in ncu_ids:
            rows, ids = prism_kernel(prism, wl, d, tmp)
            name = rows[0]["Kernel_Name"] if rows else "?"
            k = short(name)
            top = rows[0] if rows else {}
            nxt = rows[1] if len(rows) > 1 else {}
            sp = num(top.get("Est. Speedup", ""))
            ptop = f"`{top.get('Finding', '-')}` {top.get('Title', '')} ({sp:.0f}%)" if top else "-"
            pnext = (f"`{nxt['Finding']}` ({num(nxt['Est. Speedup']):.0f}%)" if nxt else "-")
            mine = [r for r in rules if int(r["ID"]) == d and r["Rule Type"] == "OPT"]
            def best(kind):
                c = [r for r in mine if r["Estimated Speedup Type"] == kind]
                if not c:
                    return "-"
                r = max(c, key=lambda r: num(r["Estimated Speedup"]))
                words = r["Rule Description"].split(". ")[0][:110]
                return f"{r['Rule Name']} ({num(r['Estimated Speedup']):.0f}%): {words}"
            nl = {r["Metric Name"]: r["Metric Value"] for r in launch if int(r["ID"]) == d}
            waves = ids.get("7.1.11", {}).get("Avg", "")
            theo = ids.get("6.3.5", {}).get("Avg", "")
            ach = ids.get("6.3.6", {}).get("Avg", "")
            occ = (f"{num(waves):.2f} / {num(theo):.0f}% / {num(ach):.1f}%; "
                   f"{nl.get('Waves Per SM', '?')} / {nl.get('Theoretical Occupancy', '?')}% / "
                   f"{nl.get('Achieved Occupancy', '?')}%")
            print(f"| {k} | {KNOWN.get(k, '?')} | {ptop} | {pnext} | {best('global')} | "
                  f"{best('local')} | {occ} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
