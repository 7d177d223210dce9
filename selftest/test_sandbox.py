"""BOARD=sandbox: the probes of tests/ as a Linux program on this machine's
CPU (arch/sandbox).  Real caches and TLBs, so times are judged here, on a
shared 2-core machine: every timed figure is the median of the run's own
repetitions, and the judged ones the median of several runs, with the
tolerance stated where it is used."""
import os
import re
import statistics
import subprocess

import pytest

from conftest import LOGCHECK, TOP, parse
from test_lat_mem import L1_CYCLES, guess, one_point_below

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")
NEED_HUGE = 254          # 2 MiB pages for probe memory (sandbox.h: 508 MiB)


@pytest.fixture(scope="module", autouse=True)
def sandbox_built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)


def run_sandbox(*args, timeout=60):
    p = subprocess.run([SANDBOX, *args], capture_output=True, text=True, timeout=timeout,
                       errors="replace")
    run = parse(p.stdout)
    run.rc, run.stderr = p.returncode, p.stderr
    return run


def meminfo(key):
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def thp_setting():
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled") as f:
            return re.search(r"\[(\w+)\]", f.read()).group(1)
    except OSError:
        return None


def getconf(name):
    p = subprocess.run(["getconf", name], capture_output=True, text=True)
    return int(p.stdout.strip() or 0)


# --- the program, its format, its modes -----------------------------------

def test_quick_run_passes_in_every_mode_the_host_offers(tmp_path):
    run = run_sandbox("probes=boot,demand,spaces,aspace", "modes=all", "quick")
    assert run.rc == 0 and run.status() == "pass", run.log
    log = tmp_path / "sandbox.log"
    log.write_text(run.log)
    assert subprocess.run([LOGCHECK, str(log)], capture_output=True).returncode == 0
    for pat in (r"# kernel: Linux \S+", r"# cpu: \w+ family \d+ model \d+",
                r"# cpu: pinned to CPU \d+ of \d+ allowed \(sched_setaffinity\)",
                r"# thp: enabled \w+", r"# platform: Linux \(sandbox\)",
                r"# tick clock: \d+ Hz \((invariant TSC|clock_gettime)"):
        assert re.search(pat, run.log), pat
    # Modes: what Linux offers runs, what it does not is a SKIP with the reason.
    assert run.results["demand.4k"] == "ok"
    if thp_setting() in ("always", "madvise"):
        assert run.results["demand.thp"] == "ok"
    else:
        assert run.results["demand.thp"] == "skip" and "THP" in run.skips["demand.thp"]
    if meminfo("HugePages_Free") >= NEED_HUGE and meminfo("Hugepagesize") == 2048:
        assert run.results["demand.hugetlb"] == "ok"
    else:
        assert run.results["demand.hugetlb"] == "skip"
        assert "huge pages" in run.skips["demand.hugetlb"], run.skips
    # The fault probe's counts are exact: each a SIGSEGV through the hook.
    assert run.value("demand.4k.page_faults_counted") == 16
    assert run.value("demand.4k.prot_faults_counted") == 16
    assert run.value("demand.4k.null_faults") == run.value("demand.4k.page_faults") - 16


def test_query_reads_pagemap_where_readable():
    run = run_sandbox("probes=spaces", "modes=4k")
    assert run.status() == "pass", run.log
    if os.geteuid() == 0:
        assert "4k: query() checks page frames in /proc/self/pagemap" in run.log
    else:
        assert "4k: query() from our record only:" in run.log


def test_self_check_catches_a_broken_mapping():
    run = run_sandbox("probes=boot", "modes=4k", "mmu_break=1")
    assert run.rc != 0 and run.status() == "fail", run.log
    assert "self-check of 4k failed" in run.log
    assert run.results["boot.4k"] == "not ok"


def test_unexpected_fault_dumps_and_fails():
    run = run_sandbox("crash=data")
    assert run.rc != 0 and run.status() == "fail", run.log
    assert "unexpected signal 11" in run.log and "rip 0x" in run.log


def test_bad_arguments_fail_clearly():
    p = subprocess.run([SANDBOX, "modes=nosuch"], capture_output=True, text=True, timeout=30)
    assert p.returncode != 0
    assert "unknown mode 'nosuch' on sandbox" in p.stdout
    assert "# mmubench status: fail" in p.stdout


def test_watchdog_stops_a_probe_and_the_run_goes_on():
    run = run_sandbox("probes=lat_mem,boot", "modes=4k", "watchdog=20", timeout=60)
    assert run.results["lat_mem.4k"] == "timeout", run.log
    assert run.results["boot.4k"] == "ok"          # the run went on after it
    assert run.status() == "fail"


# --- timing on this CPU ---------------------------------------------------

RUNS = 9            # runs of lat_mem and tlb, each with 3 repetitions
QUIET = 5           # quiet runs wanted for L2's curve (see quiet())
MAX_RUNS = 15       # more runs, up to this, while fewer are quiet


@pytest.fixture(scope="module")
def latency_runs():
    """RUNS runs of lat_mem and tlb in 4k and thp, 3 repetitions each (each
    figure is already the median of 3), up to 8 times L2 (4 MiB at least):
    past L2 far enough for the next level's plateau (an octave at least);
    then more, up to MAX_RUNS, until QUIET of them are quiet."""
    top = max(4 << 20, 8 * getconf("LEVEL2_CACHE_SIZE"))
    runs = []
    while len(runs) < RUNS or (len(runs) < MAX_RUNS and sum(map(quiet, runs)) < QUIET):
        run = run_sandbox("probes=cpu,lat_mem,tlb", "modes=4k,thp", "reps=3",
                          f"maxsize={top}", timeout=180)
        assert run.status() == "pass", run.log
        runs.append(run)
    return runs


def quiet(run):
    """No sign of another job on this core during the run: its reference
    curve flat (within 10 %) from a quarter of its own L1 guess to 7/8 of
    it.  Lines lost there are someone else's doing (an SMT sibling on the
    host, a VM exit), and such a run's L2 points rise too: over 44 runs
    recorded on 2026-11-30 the correlation of the two was 0.67."""
    mode = reference_mode(run)
    l1 = int(run.measurements.get(f"lat_mem.{mode}.l1_bytes", (0,))[0])
    points = {s: run.value(f"lat_mem.{mode}.random_{s}_ns") for s in sweep_sizes(run, mode)
              if l1 // 4 <= s <= l1 * 7 // 8}
    return bool(l1) and l1 // 4 in points and \
        max(points.values()) <= 1.10 * points[l1 // 4]


def reference_mode(run):
    """The mode whose curve the guesses came from (the probe's diagnostic)."""
    m = re.findall(r"# lat_mem\.\w+: \d+ cache levels? from mode (\w+)'s curve", run.log)
    assert m, run.log
    return m[-1]


def median_of(runs, name):
    return statistics.median(r.value(name) for r in runs)


def sweep_sizes(run, mode):
    return sorted(int(k.split("_")[-2]) for k in run.measurements
                  if k.startswith(f"lat_mem.{mode}.random_"))


def faster_half_mean(values):
    fast = sorted(values)[:(len(values) + 1) // 2]
    return sum(fast) / len(fast)


@pytest.fixture(scope="module")
def cache_guess(latency_runs, tmp_path_factory):
    """The reference mode's random curve, each point the mean of its faster
    half over the runs (for L2 over the quiet runs, where 3 or more are),
    through the image's own step detection (boot/guess.c, as
    build/tools/mmuguess), with that mode's TLB reach.

    Two things move a point from run to run here.  Other work only adds
    time (a job on this core's SMT sibling, a VM exit, evicting our lines):
    one-sided, so disturbed runs are left out (quiet()) and the slower half
    dropped.  Where the host placed the run's pages decides how many L2
    sets overflow (boot/guess.c step 3; some runs even get contiguous
    memory and a sharp step): two-sided, so the faster half is averaged,
    not its fastest taken, which would pick the luckiest placement and
    carry the step past the size.  Over draws from 44 runs recorded on
    2026-11-30: of 200 draws of 9 runs, the median named L2 384 KiB for
    512 KiB in a third, the fastest run 768 KiB in one in nine, the faster
    half 512 KiB in 197; of 300 draws as this fixture does them (quiet runs
    first), 512 KiB in all 300.  On the machine that ran CI that day, the
    median of five runs put L1 at 24 KiB, and two clean-clone runs of the
    faster half of all nine put L2 at 384 KiB.  Latencies are judged on
    the median."""
    run = latency_runs[0]
    mode = reference_mode(run)
    sizes = sweep_sizes(run, mode)
    large = run.results.get(f"lat_mem.{mode}") == "ok" and mode != "4k"
    entries = run.measurements.get("cpuid.4k.dtlb_large_entries" if large else
                                   "cpuid.4k.dtlb_entries", (0,))[0]
    reach = int((2 << 20 if large else 4096) * max(entries, 1))
    # L1 from every run; L2 from the quiet ones where there are 3 or more.
    quiet_runs = [r for r in latency_runs if quiet(r)]
    judged = {}
    for level, runs in (("l1", latency_runs),
                        ("l2", quiet_runs if len(quiet_runs) >= 3 else latency_runs)):
        curve = [(s, faster_half_mean([r.value(f"lat_mem.{mode}.random_{s}_ns") for r in runs]))
                 for s in sizes if s % 512 == 0]  # mmuguess reads sizes in 512-byte units
        path = tmp_path_factory.mktemp("curve") / "random.txt"
        with open(path, "w") as f:      # LMbench lat_mem_rd -t's format: MB, ns
            f.write('"stride=64\n' + "".join(f"{s / 1048576:.9f} {ns:.3f}\n" for s, ns in curve))
        p, got = guess("-t", str(path), "-r", str(reach))
        assert p.returncode == 0, p.stdout + p.stderr
        note = f"{len(runs)} of {len(latency_runs)} runs ({len(quiet_runs)} quiet)"
        judged[level] = (dict(curve), got, p.stdout + note)
    return mode, sizes, judged


def figures(curve, want):
    """The curve's points from a quarter of `want` to twice it, for messages."""
    return " ".join(f"{s >> 10}K:{ns:.2f}" for s, ns in sorted(curve.items())
                    if want // 4 <= s <= 2 * want)


def test_l1d_size_is_the_cpus(cache_guess):
    # Tolerance: one sweep point below the size CPUID reports, as the
    # issue allows (the guess takes the nearer cache size to where half the
    # loads miss, so it is the size or a point off).
    want = getconf("LEVEL1_DCACHE_SIZE")
    if not want:
        pytest.skip("getconf LEVEL1_DCACHE_SIZE reports nothing here")
    mode, sizes, judged = cache_guess
    curve, got, out = judged["l1"]
    lo = one_point_below(sizes, want)
    if lo <= got.get("l1_bytes", 0) <= want:
        return
    # Wrong, and the faster half of the runs already missed at 7/8 of L1
    # (a third again the latency at a quarter of it; a quiet run's is
    # within 10 %): most runs never saw the cache undisturbed.  Say so with
    # the figures; wrong on a clean curve fails.
    if lo in curve and want // 4 in curve and curve[lo] > 1.33 * curve[want // 4]:
        pytest.skip(f"runs disturbed before L1's size in mode {mode} (an SMT sibling "
                    f"or another job evicting lines): {figures(curve, want)}")
    assert lo <= got.get("l1_bytes", 0) <= want, (mode, figures(curve, want), out)


def test_l2_size_is_the_cpus(cache_guess, latency_runs):
    want = getconf("LEVEL2_CACHE_SIZE")
    if not want:
        pytest.skip("getconf LEVEL2_CACHE_SIZE reports nothing here")
    mode, sizes, judged = cache_guess
    curve, got, out = judged["l2"]
    # Tolerance as L1's.  Where the host scatters our pages the step is
    # smeared far below the size; boot/guess.c places it where half the
    # loads miss, which stays at the size on average, but a machine busy
    # for the whole test can still move it a size off.  So a wrong guess with the step that
    # smeared (1.5 times the L2-hit latency already at 3/4 of L2; a sharp
    # step is within 20 % there) SKIPs with the figures; a wrong guess on a
    # sharp step fails.
    lo = one_point_below(sizes, want)
    if lo <= got.get("l2_bytes", 0) <= want:
        return
    quarter, three_q = want // 4, want * 3 // 4
    if quarter in curve and three_q in curve and curve[three_q] > 1.5 * curve[quarter]:
        huge = re.search(r"# (thp: \d+ of \d+ MiB[^@]*?)\s*@", latency_runs[0].log)
        pytest.skip(f"L2 step smeared below its size in mode {mode} (pages scattered by the "
                    f"host): guess {got.get('l2_bytes', 0):.0f} for {want}; {figures(curve, want)}"
                    + (f"; {huge.group(1)}" if huge else "") + f"; {out.splitlines()[-1]}")
    assert lo <= got.get("l2_bytes", 0) <= want, (mode, figures(curve, want), out)


def test_l1_latency_is_the_documented_one(latency_runs):
    # Within half a cycle of the documented load-to-use latency (the issue's
    # figure); cycles from the core clock each run measures itself.
    m = re.search(r"# cpu: (\w+) family (\d+) model (\d+)", latency_runs[0].log)
    vendor, family, model = m.group(1), int(m.group(2)), int(m.group(3))
    want = L1_CYCLES.get((vendor, family, model), L1_CYCLES.get((vendor, family)))
    if want is None:
        pytest.skip(f"{vendor} family {family} model {model}: no documented L1 latency here")
    mode = reference_mode(latency_runs[0])
    got = median_of(latency_runs, f"lat_mem.{mode}.l1_cycles")
    assert abs(got - want) <= 0.5, (got, want)


def test_tlb_in_4k_finds_the_first_level_dtlb(latency_runs):
    # The step is bisected to the exact P, but it is no cliff here: on our
    # Zen 3 guests the time per load rises from about 2/3 of the entries on
    # (median curve: 1.36 ns at 40 pages, 2.07 at 48, 2.29 at 56, 3.49 at
    # 64; a pseudo-LRU victim choice in a random cycle near capacity would
    # do that), and another job on this CPU evicts entries between our
    # time slices, which only brings the step earlier.  So the median of
    # the runs lies between 5/8 of CPUID's entries and 9/8 of them (no
    # assertion where CPUID says nothing; tools/bench prints the published
    # figure beside it).  The L2 TLB (2048 here) or no step fails.
    want = latency_runs[0].measurements.get("cpuid.4k.dtlb_entries", (0,))[0]
    got = median_of(latency_runs, "tlb.4k.l1_entries")
    if not want:
        pytest.skip(f"CPUID describes no L1 dTLB here; the probe found {got:.0f} entries")
    assert want * 5 / 8 <= got <= want * 9 / 8, (got, want)
