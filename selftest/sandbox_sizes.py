"""The sandbox's L1d and L2 sizes as selftest/test_sandbox.py and tools/bench
judge them: RUNS runs of lat_mem (with cpu and tlb) in the 4k and thp
modes, 3 repetitions each.  The image guesses each repetition once, from
the pointwise fastest TLB-local curve of both modes (tests/lat_mem.c), and
reports the median of the 3; the judged size of a level in a mode is the
median of that over the runs (a run that named no such level counts as 0,
so a level most runs miss is judged missing).  Medians, because a
disturbed run moves a point either way here (another job slows it; where
the host placed our pages decides how many sets overflow) and the median
holds as long as most runs are not.

Usage (tools/bench): sandbox_sizes.py LOG... -- judges the logs."""
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conftest import parse          # noqa: E402

RUNS = 5
MODES = ("4k", "thp")


def getconf(name):
    p = subprocess.run(["getconf", name], capture_output=True, text=True)
    return int(p.stdout.strip() or 0)


def run_args():
    """Up to 8 times L2 (4 MiB at least): past L2 far enough for the next
    level's plateau (an octave at least)."""
    top = max(4 << 20, 8 * getconf("LEVEL2_CACHE_SIZE"))
    return ["probes=cpu,lat_mem,tlb", "modes=" + ",".join(MODES), "reps=3", f"maxsize={top}"]


def local_curve(runs):
    """The pointwise fastest TLB-local point over every run and mode: size -> ns."""
    curve = {}
    for run in runs:
        for name, (value, unit) in run.measurements.items():
            m = re.fullmatch(r"lat_mem\.\w+\.local_(\d+)_ns", name)
            if m and unit == "ns" and value > 0:
                s = int(m.group(1))
                curve[s] = min(curve.get(s, value), value)
    return curve


def judge(runs):
    """{mode: {"l1": bytes, "l2": bytes}} (0: not named), and the curve."""
    got = {}
    for mode in MODES:
        got[mode] = {}
        for level in ("l1", "l2"):
            values = [r.measurements.get(f"lat_mem.{mode}.{level}_bytes", (0,))[0] for r in runs]
            got[mode][level] = statistics.median(values)
    return got, local_curve(runs)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: sandbox_sizes.py LOG...  (sandbox logs of probes=lat_mem, modes 4k,thp)")
        sys.exit(0 if argv else 2)
    runs = [parse(open(p, errors="replace").read()) for p in argv]
    got, curve = judge(runs)
    if not curve:
        sys.exit("sandbox_sizes: no TLB-local lat_mem curve in these logs (not passing runs "
                 "of probes=lat_mem on the sandbox?)")
    print("; ".join(f"{m}: l1 {got[m]['l1']:.0f} l2 {got[m]['l2']:.0f}" for m in MODES)
          + f" (medians of {len(runs)} runs)")


if __name__ == "__main__":
    main(sys.argv[1:])
