#!/usr/bin/env bash
# Generic C holds no counter and no vendor term of any architecture: vendor and architecture
# knowledge lives in data (metrics/, panels/, rules/) and in the code of the backends. Every
# C file under src/ except src/arch (the data's reader), src/collect (the CUPTI collector)
# and the backends' own files (src/profile/backend/<vendor>/) is scanned, comments included,
# for:
#   - every counter and formula name of metrics/ (SQ_WAVES, dram__bytes_read.sum,
#     $GRBM_GUI_ACTIVE_PER_XCD, ...) and every block of their block_limits (SQ, TCC, ...);
#   - architecture names (gfx90a, sm_90, MI300X, H100, CDNA, Hopper) and vendor unit and
#     interface words (SALU, SMEM, VMEM, VALU, MFMA..., LDS, LDSBw..., vL1D, GWS,
#     wavefront, CUPTI, NVML, SASS and the instrumented metrics' name prefixes of metrics/'
#     instrumented:); the roofline's levels and ceilings are the families' `roofline:` data.
# Every hit fails ("FAIL file:line: term"). And the generic profile code (src/profile/ but
# its backend/) binds, counts and identifies GPUs only through the backend interface: no
# GPU-visibility variable (CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, ...), no driver path
# (/proc/driver/..., the KFD topology) and no AMD detection call there.
# Prints "N passed, N failed, 0 skipped".
set -u
cd "$(dirname "$0")/.."

files=$(find src -name '*.[ch]' | grep -vE '^src/(arch|collect|profile/backend)/' | sort)
pats=$(mktemp)
trap 'rm -f "$pats"' EXIT
python3 - "$pats" metrics <<'PY'
import os, re, sys
out, root = sys.argv[1], sys.argv[2]
names, blocks = set(), set()
for d, _, fs in os.walk(root):
    for f in fs:
        if not f.endswith(".yaml"):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        for line in text.splitlines():
            line = line.split("#", 1)[0]
            m = re.match(r"\s*block_limits:\s*\{(.*)\}", line)
            if m:
                blocks.update(k.split(":")[0].strip() for k in m.group(1).split(","))
            # AMD counters and names (SQ_WAVES, TCC_HIT[0]), NVIDIA metrics (dram__bytes.sum)
            for tok in re.findall(r"\$?\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b(?!\s*\()", line):
                names.add(tok.lstrip("$"))
            for tok in re.findall(r"\b[a-z0-9]+__[a-z0-9_.]*[a-z0-9_]", line):
                names.add(tok)
words = sorted(names | blocks)
if len(words) < 100:
    sys.exit("too few counter names in %s: %d" % (root, len(words)))
with open(out, "w") as o:
    for w in words:
        o.write(r"\b" + re.escape(w) + r"\b" + "\n")
    for p in [r"\bgfx[0-9][0-9a-f]*\b", r"\bsm_[0-9]+\b", r"\bMI[0-9]{3}[A-Z]?\b", r"\bG?H100\b",
              r"\bCDNA[0-9]*\b", r"\bHopper\b", r"\bSALU\b", r"\bSMEM\b",
              r"\bVMEM\b", r"\bVALU\b", r"\bMFMA", r"\bLDS(\b|[A-Z])", r"\bvL1D\b",
              r"\bGWS\b", r"\b[Ww]avefronts?\b", r"\bCUPTI\b", r"\bNVML\b",
              r"\b[Ss][Aa][Ss][Ss]\b", r"_sass_"]:
        o.write(p + "\n")
PY
[ -s "$pats" ] || { echo "FAIL: no terms read from metrics/"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }

pass=0 fail=0
for f in $files; do
        hits=$(grep -nEo -f "$pats" "$f" | head -20)
        if [ -n "$hits" ]; then
                while IFS= read -r h; do echo "FAIL $f:$h"; done <<<"$hits"
                fail=$((fail + 1))
        else
                pass=$((pass + 1))
        fi
done
# device binding and discovery: the backends' (src/profile/backend.h)
device='_VISIBLE_DEVICES|GPU_DEVICE_ORDINAL|/proc/driver|/sys/class/kfd|detect_amd'
for f in $(find src/profile -name '*.[ch]' -not -path 'src/profile/backend/*' | sort); do
        hits=$(grep -nEo "$device" "$f" | head -5)
        if [ -n "$hits" ]; then
                while IFS= read -r h; do echo "FAIL $f:$h (the backends' to know)"; done <<<"$hits"
                fail=$((fail + 1))
        else
                pass=$((pass + 1))
        fi
done
if printf 'setenv("CUDA_VISIBLE_DEVICES", idx, 1); opendir("/proc/driver/nvidia/gpus");\n' | grep -qE "$device"; then
        pass=$((pass + 1))
else
        echo "FAIL: the device scan misses a planted variable"; fail=$((fail + 1))
fi
# the scan itself finds a term where one is: each planted line alone
probe=$(mktemp)
for planted in '/* SQ_WAVES on gfx90a */' 'x = "VALU FP32";' '{"MFMAF16Flops"}' 'bw("LDSBw")' \
        '"vL1D"'; do
        printf '%s\n' "$planted" >"$probe"
        if grep -qE -f "$pats" "$probe"; then pass=$((pass + 1)); else echo "FAIL: the scan misses a planted term: $planted"; fail=$((fail + 1)); fi
done
# and not in words that only contain one, nor in the workload format's LDS_Per_Workgroup
printf 'INSERT INTO t VALUES (?); SLDS; LDS_Per_Workgroup\n' >"$probe"
if grep -qE -f "$pats" "$probe"; then echo "FAIL: the scan flags VALUES, SLDS or LDS_Per_Workgroup"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
rm -f "$probe"
echo "$pass passed, $fail failed, 0 skipped"
[ "$fail" -eq 0 ]
