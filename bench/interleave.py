#!/usr/bin/env python3
"""Wall and CPU time of several prism binaries on one command, runs interleaved (one run of
each binary in turn, N rounds), so that a busy machine slows them alike. Prints per binary
the median, quartiles and minimum of the wall time and of the CPU time (user + system of
the child, both threads).

  bench/interleave.py [-n N] BIN... -- ARGS...
  e.g. bench/interleave.py -n 80 /tmp/prism-ref ./prism -- analyze -p D --save-dfs {out}

"{out}" in ARGS becomes a directory of each binary's own (kept between its runs, so that
--save-dfs finds its files already there, as bench/analyze.sh does). stdout and stderr go to
/dev/null; a run that exits with an error stops the measurement.
"""
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    args = sys.argv[1:]
    n = 40
    if len(args) >= 2 and args[0] == "-n":
        n = int(args[1])
        args = args[2:]
    if "--" not in args or args.index("--") == 0:
        sys.exit(__doc__)
    cut = args.index("--")
    bins, cmd = args[:cut], args[cut + 1:]
    tmp = tempfile.mkdtemp(prefix="prism-interleave-")
    try:
        measure(n, bins, cmd, tmp)
    finally:
        subprocess.run(["rm", "-rf", tmp])


def measure(n, bins, cmd, tmp):
    wall = {b: [] for b in bins}
    cpu = {b: [] for b in bins}
    for _ in range(n):
        for i, b in enumerate(bins):
            argv = [b] + [a.replace("{out}", os.path.join(tmp, str(i))) for a in cmd]
            r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            rc = subprocess.run(argv, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode
            t1 = time.perf_counter()
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            if rc:
                sys.exit("bench/interleave.py: %s exited with %d" % (" ".join(argv), rc))
            wall[b].append((t1 - t0) * 1e3)
            cpu[b].append((r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime) * 1e3)
    print("load average: %.2f %.2f %.2f" % os.getloadavg())
    for b in bins:
        w, c = sorted(wall[b]), sorted(cpu[b])
        print("%-28s wall median %6.2f (p25 %6.2f, p75 %6.2f, min %6.2f) ms | "
              "cpu median %6.2f (min %6.2f) ms | %d runs" %
              (b, statistics.median(w), w[len(w) // 4], w[3 * len(w) // 4], w[0],
               statistics.median(c), c[0], n))


if __name__ == "__main__":
    main()
