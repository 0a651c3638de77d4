#!/usr/bin/env python3
"""Writes the PC-sampling fixtures of tests/pcsamp.sh in rocprofiler-sdk's results JSON
layout, as rocprof-compute reads it (keys: rocprofiler-sdk-tool[0].metadata.pid,
kernel_symbols, buffer_records.kernel_dispatch / pc_sample_stochastic / pc_sample_host_trap,
strings.pc_sample_instructions / pc_sample_comments). Made from the documented format, not
recorded. Run: python3 gen.py (rewrites the .json files here)."""
import json

P = "ROCPROFILER_PC_SAMPLING_INSTRUCTION_NOT_ISSUED_REASON_"
VCOPY = "vecCopy(double*, double*, double*, int, int)"
VADD = "vecAdd(double*, double*, int)"
INSTR = ["global_load_dwordx2 v[2:3], v[0:1], off", "s_waitcnt vmcnt(0)",
         "v_add_f64 v[2:3], v[2:3], v[4:5]", "global_store_dwordx2 v[0:1], v[2:3], off",
         "s_endpgm", "v_mul_f64 v[0:1], v[0:1], v[2:3]"]
COMMENTS = ["/app/src/vcopy.cpp:42", "/app/src/vcopy.cpp:42", "/app/src/vcopy.cpp:43",
            "/app/src/vcopy.cpp:44", "", "/app/src/vadd.cpp:30"]
# vecCopy's code starts at 0x1900 of code object 1, vecAdd's at 0x2000
OFFS = [0x1920, 0x1938, 0x1940, 0x1950, 0x1960, 0x2010]

def sample(idx, dispatch, issued=None, reason=None, host=False):
    rec = {"pc": {"code_object_id": 1, "code_object_offset": OFFS[idx]},
           "dispatch_id": dispatch, "exec_mask": 18446744073709551615}
    if not host:
        rec["wave_issued"] = issued
        rec["snapshot"] = {"stall_reason": P + reason} if reason else {}
        rec["inst_type"] = "ROCPROFILER_PC_SAMPLING_INSTRUCTION_TYPE_VMEM"
    return {"inst_index": idx, "record": rec}

def tool(pid, samples, host, dispatch=True):
    t = {"metadata": {"pid": pid},
         "strings": {"pc_sample_instructions": INSTR, "pc_sample_comments": COMMENTS},
         "kernel_symbols": [
             {"kernel_id": 7, "code_object_id": 1, "formatted_kernel_name": VCOPY,
              "demangled_kernel_name": VCOPY, "truncated_kernel_name": "vecCopy",
              "kernel_code_entry_byte_offset": 0x1900},
             {"kernel_id": 8, "code_object_id": 1, "formatted_kernel_name": VADD,
              "demangled_kernel_name": VADD, "truncated_kernel_name": "vecAdd",
              "kernel_code_entry_byte_offset": 0x2000}],
         "buffer_records": {"pc_sample_host_trap": samples if host else [],
                            "pc_sample_stochastic": [] if host else samples}}
    if dispatch:
        t["buffer_records"]["kernel_dispatch"] = [
            {"dispatch_info": {"dispatch_id": 1, "kernel_id": 7}},
            {"dispatch_info": {"dispatch_id": 2, "kernel_id": 8}}]
    return {"rocprofiler-sdk-tool": [t]}

# process 4242: stochastic; offset 0x1938 (s_waitcnt, vcopy.cpp:42) is the hot one:
# 30 stalled on WAITCNT, 5 on ALU_DEPENDENCY, 5 issued
s = []
s += [sample(1, 1, False, "WAITCNT")] * 30
s += [sample(1, 1, False, "ALU_DEPENDENCY")] * 5
s += [sample(1, 1, True)] * 5
s += [sample(0, 1, True)] * 6 + [sample(0, 1, False, "ARBITER_NOT_WIN")] * 2
s += [sample(2, 1, False, "ALU_DEPENDENCY")] * 4 + [sample(2, 1, True)] * 4
s += [sample(3, 1, True)] * 3 + [sample(3, 1, False, "WAITCNT")] * 1
s += [sample(4, 1, True)] * 1
s += [sample(5, 2, False, "WAITCNT")] * 7 + [sample(5, 2, True)] * 2
# a sample no instruction index places (rocprof-compute skips it)
s.append({"record": {"pc": {"code_object_id": 1, "code_object_offset": 0x1920},
                     "dispatch_id": 1, "wave_issued": True, "snapshot": {}}})
json.dump(tool(4242, s, False), open("4242_ps_file_results.json", "w"), indent=1)
# process 4243: the same program again, fewer samples
json.dump(tool(4243, [sample(1, 1, False, "WAITCNT")] * 3 + [sample(0, 1, True)],
               False), open("4243_ps_file_results.json", "w"), indent=1)
# rocprof-compute 3.3's single file, host trap, no dispatch records (kernels by address)
h = [sample(1, 1, host=True)] * 9 + [sample(0, 1, host=True)] * 2 + \
    [sample(5, 2, host=True)] * 4
json.dump(tool(99, h, True, dispatch=False), open("ps_file_results.json", "w"), indent=1)
