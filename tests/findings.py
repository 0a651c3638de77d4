#!/usr/bin/env python3
"""Golden findings tests: prism analyze --save-dfs on every recorded AMD workload in
../shared/rocprof-workloads (each case profiles the vcopy program) and on the bundled H100
samples. Checks: every vcopy case is reported memory-bound with its level and evidence; no
finding cites a metric that is n/a in the same run; the samples' kernels get the limiter they
were written to have; --no-findings and -b 0.3 select the tables. Prints 'N passed, N failed,
N skipped'."""
import csv, math, os, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("PRISM_SHARED", os.path.join(ROOT, "..", "shared"))
PRISM = os.environ.get("PRISM", os.path.join(ROOT, "prism"))
res = {"pass": 0, "fail": 0, "skip": 0}


def report(ok, name, detail=""):
    res["pass" if ok else "fail"] += 1
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f": {detail}"))


def run(args):
    return subprocess.run([PRISM, "analyze"] + args, capture_output=True, text=True)


def tables(out):
    """table id -> list of row dicts"""
    t = {}
    for n in os.listdir(out):
        with open(os.path.join(out, n), newline="", encoding="utf-8") as f:
            t[n.split("_", 1)[0].removesuffix(".csv")] = list(csv.DictReader(f))
    return t


def metric_value(t, mid):
    """the Avg (or first numeric) value of metric id '2.1.22' in the saved tables"""
    tid = mid.rsplit(".", 1)[0]
    for row in t.get(tid, []):
        if row.get("Metric_ID") == mid:
            for col in ["Avg", "Value", "Mean"] + list(row):
                if col in row and col not in ("Metric_ID", "Metric", "Unit"):
                    try:
                        return float(row[col])
                    except (TypeError, ValueError):
                        continue
            return math.nan
    return None


def analyze(path, tmp, extra=()):
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    r = run(["-p", path, "--save-dfs", out] + list(extra))
    if r.returncode:
        return None, r.stderr.strip()
    return tables(out), ""


def check_evidence(name, t):
    """every evidence id of every finding has a number in this run's tables"""
    bad = []
    for row in t.get("0.3", []):
        for mid in row["Evidence"].split():
            v = metric_value(t, mid)
            if v is None or not math.isfinite(v):
                bad.append(f"{row['Finding']} cites {mid} = {v}")
    report(not bad, f"{name}: no finding from n/a data", "; ".join(bad))


def short_kernel(name):
    k = name.split("(")[0]
    for lib in ("sm80_xmma_gemm", "sm90_xmma_gemm", "nvjet"):
        k = lib if k.startswith(lib) else k
    return k


def known_limiters(tmp, rec, want, after, nk=14):
    """the H100 known-limiter kernels recorded into tests/data/REC (tests/gpu/REC.cu;
    bench/findings-h100.md puts ncu's rules beside them): the top finding names the limiter
    each kernel was written to have, with an estimated speedup; a grid-starved kernel is
    never blamed on a theoretical limiter; a symptom never comes before the cause that
    explains it"""
    t, err = analyze(os.path.join(ROOT, "tests", "data", rec), tmp, ["-k"] + [str(i) for i in range(nk)])
    byk = {}
    for row in (t or {}).get("0.3", []):
        byk.setdefault(short_kernel(row["Kernel_Name"]), []).append(row)
    report(t is not None and set(want) <= set(byk), f"{rec}: every known-limiter kernel has findings",
           f"{err} {sorted(byk)}")
    if t:
        check_evidence(rec, t)
    for k, rule in want.items():
        rows = byk.get(k, [])
        top = rows[0] if rows else {}
        sp = float(top.get("Est. Speedup") or "nan")
        report(top.get("Finding") == rule and 0 <= sp <= 100,
               f"{rec} {k}: top finding {rule} with an estimated speedup", f"got {top}")
        if rule == "launch.grid_too_small":
            bad = [r["Finding"] for r in rows if r["Finding"].startswith("occupancy.")]
            report(not bad, f"{rec} {k}: grid-starved, no theoretical limiter blamed", f"{bad}")
    for k, (cause, symptom) in after.items():
        ids = [r["Finding"] for r in byk.get(k, [])]
        report(cause in ids and symptom in ids and ids.index(cause) < ids.index(symptom),
               f"{rec} {k}: {cause} before {symptom}", f"{ids}")


def main():
    tmp = tempfile.mkdtemp()
    try:
        wl = os.path.join(SHARED, "rocprof-workloads")
        cases = []
        if os.path.isdir(wl):
            for case in sorted(os.listdir(wl)):
                for arch in sorted(os.listdir(os.path.join(wl, case))) if os.path.isdir(os.path.join(wl, case)) else []:
                    d = os.path.join(wl, case, arch)
                    if os.path.isfile(os.path.join(d, "pmc_perf.csv")):
                        cases.append((case, arch, d))
        else:
            print(f"SKIP {wl} absent")
            res["skip"] += 1
        for case, arch, d in cases:
            name = f"{case}/{arch}"
            # recorded by rocprof-compute 3.0 (no num_hbm_channels): analyzed as 3.0 did
            t, err = analyze(d, tmp, ["--compat", "3.0"])
            if t is None:
                report(False, name, err)
                continue
            rows = t.get("0.3", [])
            check_evidence(name, t)
            top = rows[0] if rows else {}
            memory = top.get("Finding", "").startswith("mem.") and "Memory-bound" in top.get("Title", "")
            level = any(l in top.get("Title", "") + top.get("Message", "") for l in ("HBM", "L2", "L1", "LDS"))
            if case == "vcopy":
                report(memory and level and top.get("Evidence"), f"{name}: memory-bound with level and evidence",
                       f"top finding {top}")
            else:
                # other cases profile the same program with fewer counters: memory-bound, or
                # no finding at all when the data cannot support one
                none = top.get("Finding") == "-" and "could not be evaluated" in top.get("Message", "")
                report((memory and level) or none, f"{name}: memory-bound or no finding", f"top {top}")
            roof = t.get("0.4", [])
            report(len(roof) == 1 and (roof[0]["Bound By"].startswith("HBM") or roof[0]["Bound By"].startswith("n/a")),
                   f"{name}: roofline classification HBM or n/a", f"{roof}")

        # every vcopy recording (rocprof-compute 3.0 and 3.3, every GPU) in the default (3.3)
        # mode: a memory verdict, whatever peak or counter the recording lacks
        for root in ("rocprof-workloads", "rocprof-workloads-3.3"):
            vc = os.path.join(SHARED, root, "vcopy")
            for arch in sorted(os.listdir(vc)) if os.path.isdir(vc) else []:
                d = os.path.join(vc, arch)
                if not os.path.isfile(os.path.join(d, "pmc_perf.csv")):
                    continue
                name = f"{root}/vcopy/{arch} (3.3 mode)"
                t, err = analyze(d, tmp)
                if t is None:
                    report(False, name, err)
                    continue
                top = (t.get("0.3") or [{}])[0]
                report(top.get("Finding", "").startswith("mem.") and "Memory-bound" in top.get("Title", "")
                       and any(l in top.get("Title", "") for l in ("HBM", "L2", "L1", "LDS"))
                       and float(top.get("Est. Speedup") or "nan") >= 0,
                       f"{name}: memory verdict with its level and an estimated speedup", f"top {top}")
                check_evidence(name, t)

        # the bundled H100 samples: one clear limiter per kernel
        want = {"triad": "mem.hbm_bandwidth", "fma_chains": "pipe.valu", "mma_f16": "pipe.matrix"}
        for s in ("stream", "compute"):
            d = os.path.join(ROOT, "workloads-sample", s, "H100")
            t, err = analyze(d, tmp)
            if t is None:
                report(False, f"sample {s}", err)
                continue
            check_evidence(f"sample {s}", t)
            seen = set()
            for row in t.get("0.3", []):
                k = row["Kernel_Name"].split("(")[0]
                if k in seen:
                    continue
                seen.add(k)
                report(want.get(k) == row["Finding"], f"sample {s}: top finding of {k} is {want.get(k)}",
                       f"got {row['Finding']}: {row['Message']}")
        # the H100 kinds workload (tests/gpu/kinds.cu): one clear limiter per kernel; dispatch d
        # and d + 7 are the same launch
        kinds = os.path.join(ROOT, "workloads-sample", "kinds", "H100")
        want = [("copy", "mem.hbm_bandwidth", "DRAM"), ("fma32", "pipe.valu", "FMA pipe"),
                ("fma64", "pipe.fp64", "FP64 pipe"), ("smem stride 1", "mem.lds_bandwidth", "shared memory"),
                ("smem stride 32", "lds.bank_conflicts", "bank conflicts"),
                ("smem low occupancy", "occupancy.lds", "shared memory"),
                ("mma small grid", "launch.grid_too_small", "less than one wave")]
        if os.path.isfile(os.path.join(kinds, "pmc_perf.csv")):
            for d, (what, rule, words) in enumerate(want):
                t, err = analyze(kinds, tmp, ["-d", str(d), str(d + 7)])
                rows = (t or {}).get("0.3", [])
                top = rows[0] if rows else {}
                report(top.get("Finding") == rule and words in top.get("Title", ""),
                       f"kinds {what}: top finding {rule} ({words})", f"{err} got {top}")
                if t:
                    check_evidence(f"kinds {what}", t)
        else:
            print(f"SKIP {kinds} absent")
            res["skip"] += 1
        # the H100 known-limiter kernels (tests/gpu/limiters.cu, recorded into
        # tests/data/limiters; bench/findings-h100.md puts ncu's rules beside them): the top
        # finding names the limiter each kernel was written to have, with an estimated
        # speedup; a grid-starved kernel is never blamed on a theoretical limiter; a symptom
        # never comes before the cause that explains it
        want = {"strided": "access.uncoalesced", "chase": "launch.grid_too_small",
                "mma_grid": "launch.grid_too_small", "diverge": "divergence",
                "atomics": "atomics.contention", "local_array": "spills",
                "one_block": "launch.grid_too_small", "tail": "launch.tail_wave",
                "smem_conflict": "lds.bank_conflicts", "fma32": "pipe.valu", "fma64": "pipe.fp64",
                "mma_full": "pipe.matrix", "sm80_xmma_gemm": "pipe.valu"}
        after = {"diverge": ("divergence", "pipe.valu"), "atomics": ("atomics.contention", "latency.bound"),
                 "strided": ("access.uncoalesced", "mem.hbm_bandwidth"), "tail": ("launch.tail_wave", "pipe.valu"),
                 "local_array": ("spills", "mem.hbm_bandwidth"), "fma64": ("pipe.fp64", "fp64.question")}
        known_limiters(tmp, "limiters", want, after)
        # the same classes written otherwise after the rules were (tests/gpu/variants.cu):
        # other strides, scatter and gather, one warp, integer divergence, int and CAS
        # atomics, a double local array, 1.5 waves, 8-way conflicts, cuBLAS DGEMM (FP64
        # tensor) and an FP16 GEMM (wgmma, nvjet)
        want = {"strided2": "access.uncoalesced", "gather": "access.uncoalesced",
                "scatter": "access.uncoalesced", "chase_warp": "launch.grid_too_small",
                "diverge_int": "divergence", "atomic_int": "atomics.contention",
                "cas_max": "atomics.contention", "local_dbl": "spills",
                "block1024": "launch.grid_too_small", "tail15": "launch.tail_wave",
                "smem_8way": "lds.bank_conflicts", "sm90_xmma_gemm": "pipe.matrix", "nvjet": "pipe.matrix"}
        after = {"scatter": ("access.uncoalesced", "mem.hbm_bandwidth"),
                 "tail15": ("launch.tail_wave", "pipe.valu"), "cas_max": ("atomics.contention", "occupancy.low")}
        known_limiters(tmp, "variants", want, after)
        # held-out kernels (tests/gpu/holdout.cu, recorded on an H200 into tests/data/holdout):
        # the expected limiters were written into the source before prism's output was seen;
        # other degrees of each class (stride 8 and 2, 2 and 16 of 32 lanes, atomics on 64
        # and 1 addresses and in shared memory, 2-way and 8-way conflicts, 1.1 waves, an FP64
        # stream, a BF16 tensor loop, a cuBLAS BF16 GEMM)
        want = {"stride8": "access.uncoalesced", "stride2_dbl": "access.uncoalesced",
                "chase2": "launch.grid_too_small", "diverge2": "divergence",
                "diverge16": "divergence", "atomic64": "atomics.contention",
                "atomic1_dbl": "atomics.contention", "smem_atomic": "atomics.contention",
                "local_loop": "spills", "bank2way": "lds.bank_conflicts",
                "bank8_col": "lds.bank_conflicts", "tail11": "launch.tail_wave",
                "fp64_stream": "mem.hbm_bandwidth", "mma_bf16": "pipe.matrix", "nvjet": "pipe.matrix"}
        after = {"diverge16": ("divergence", "pipe.valu"), "atomic64": ("atomics.contention", "latency.bound"),
                 "tail11": ("launch.tail_wave", "pipe.valu"), "local_loop": ("spills", "mem.hbm_bandwidth")}
        known_limiters(tmp, "holdout", want, after, 16)
        # shared-memory atomics on one word are atomics contention, not bank conflicts
        t, _ = analyze(os.path.join(ROOT, "tests", "data", "holdout"), tmp, ["-k", "12"])
        ids = [r["Finding"] for r in (t or {}).get("0.3", []) if short_kernel(r["Kernel_Name"]) == "smem_atomic"]
        report(ids and "lds.bank_conflicts" not in ids, "holdout smem_atomic: no bank conflicts blamed", f"{ids}")

        # AMD's theoretical occupancy on the vcopy recordings (4096 workgroups of 256
        # work-items, few registers, no LDS: the wave slots bind), worked out by hand:
        # workgroups per CU = SIMDs x wave slots per SIMD / 4 waves per workgroup, waves =
        # 4096 / (CUs x that); MI100 (gfx908, 10 slots) 120 CUs, MI200 104, MI300A 228,
        # MI300X 304, MI350 128 (8 slots)
        hand = {"MI100": (10, 4096 / 1200), "MI200": (8, 4096 / 832), "MI300A_A1": (8, 4096 / 1824),
                "MI300X_A1": (8, 4096 / 2432), "MI350": (8, 4.0)}
        for gpu, (bpc, waves) in hand.items():
            # no_roof and vcopy are the same launch (vcopy's bundled copy has no no_roof)
            d = os.path.join(SHARED, "rocprof-workloads-3.3", "no_roof", gpu)
            if not os.path.isdir(d):
                d = os.path.join(SHARED, "rocprof-workloads-3.3", "vcopy", gpu)
            if not os.path.isdir(d):
                print(f"SKIP {d} absent")
                res["skip"] += 1
                continue
            r = subprocess.run([PRISM, "analyze", "-p", d, "-b", "0.3"], capture_output=True, text=True,
                               env=dict(os.environ, PRISM_FINDINGS_DEBUG="1"))
            got = {}
            for line in r.stderr.splitlines():
                parts = line.split()
                if len(parts) == 5 and parts[:2] == ["findings:", "value"] and parts[3] == "=":
                    got[parts[2]] = float(parts[4])
            ok = (abs(got.get("blocks_per_cu", -1) - bpc) < 1e-9 and abs(got.get("waves", -1) - waves) < 1e-4
                  and abs(got.get("occ_theory", -1) - 100) < 1e-9)
            report(ok, f"no_roof/{gpu}: {bpc} workgroups per CU, {waves:.4f} waves, theoretical occupancy 100%",
                   f"{ {k: got.get(k) for k in ('blocks_per_cu', 'waves', 'occ_theory')} }")

        # comparison: the union of both runs' findings with their status
        a, b = (os.path.join(wl, c, "MI200") for c in ("vcopy", "kernel_names"))
        if os.path.isdir(a) and os.path.isdir(b):
            for first, second, status in ((a, b, "disappeared"), (b, a, "appeared")):
                out = os.path.join(tmp, "cmp")
                shutil.rmtree(out, ignore_errors=True)
                r = run(["-p", first, "-p", second, "-b", "0.3", "--compat", "3.0", "--save-dfs", out])
                rows = tables(out).get("0.3", []) if r.returncode == 0 else []
                st = {row["Finding"]: row for row in rows}
                hbm, lat = st.get("mem.hbm_bandwidth", {}), st.get("mem.latency_hbm", {})
                report(hbm.get("Status") == "unchanged" and hbm.get("Est. Speedup (new)") and
                       lat.get("Status") == status and (lat.get("Est. Speedup") == "") == (status == "appeared"),
                       f"compare: the latency finding {status}, the bandwidth one stays",
                       f"{r.stderr[-200:]} {[(k, v.get('Status')) for k, v in st.items()]}")
        # table selection
        d = os.path.join(ROOT, "workloads-sample", "stream", "H100")
        t, _ = analyze(d, tmp, ["--no-findings"])
        report(t is not None and "0.3" not in t and "0.4" not in t and "0.1" in t and "2.1" in t,
               "--no-findings leaves out 0.3 and 0.4 only", sorted(t or {}))
        t, _ = analyze(d, tmp, ["-b", "0.3"])
        report(t is not None and sorted(t) == ["0.3"], "-b 0.3 shows the findings table only", sorted(t or {}))
        r = run(["-p", d, "-b", "0.9"])
        report(r.returncode == 2 and "0.9" in r.stderr, "-b 0.9 (no such table) is an error", r.stderr)
        r = run(["-p", d, "--list-metrics"])
        report(r.returncode == 0 and "0.3" in r.stdout and "Findings" in r.stdout,
               "--list-metrics lists the findings table", r.stdout[:300])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{res['pass']} passed, {res['fail']} failed, {res['skip']} skipped")
    return 1 if res["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
