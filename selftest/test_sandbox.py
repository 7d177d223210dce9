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
from sandbox_sizes import collect, getconf, judge, reference_mode, run_args
from test_lat_mem import L1_CYCLES, one_point_below

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


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
    # hugetlb needs 2 MiB pages for all probe memory: RAM less the image's 4 MiB
    need_huge = (int(re.search(r"# ram: (\d+) MiB", run.log).group(1)) - 4) // 2
    if meminfo("HugePages_Free") >= need_huge and meminfo("Hugepagesize") == 2048:
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

@pytest.fixture(scope="module")
def latency_runs():
    """lat_mem and tlb in 4k and thp, 3 repetitions each (each figure is
    already the median of 3), as many runs as sandbox_sizes.collect() says."""
    def run_once():
        run = run_sandbox(*run_args(), timeout=180)
        assert run.status() == "pass", run.log
        return run
    return collect([], run_once)


def median_of(runs, name):
    return statistics.median(r.value(name) for r in runs)


@pytest.fixture(scope="module")
def cache_guess(latency_runs):
    """The sizes as sandbox_sizes.judge() reads them (its docstring says
    why the faster half, and why quiet runs for L2).  Latencies are judged
    on the median."""
    return judge(latency_runs)


def figures(curve, want):
    """The curve's points from a quarter of `want` to twice it, for messages."""
    return " ".join(f"{s >> 10}K:{ns:.2f}" for s, ns in sorted(curve.items())
                    if want // 4 <= s <= 2 * want)


def check_size(cache_guess, latency_runs, level, conf, disturbed):
    """The guess of `level` from sandbox_sizes.judge() against getconf's
    `conf`, within one sweep point below, as the issue allows (the guess
    takes the nearer cache size to where half the loads miss, so it is the
    size or a point off).  Wrong where `disturbed(curve, want)` names why
    the curve cannot show the size: a SKIP with the figures; wrong on a
    curve that shows it: a failure."""
    want = getconf(conf)
    if not want:
        pytest.skip(f"getconf {conf} reports nothing here")
    mode, sizes, judged = cache_guess
    curve, got, out = judged[level]
    guessed = got.get(f"{level}_bytes", 0)
    if one_point_below(sizes, want) <= guessed <= want:
        return
    why = disturbed(curve, want)
    huge = re.search(r"# (thp: \d+ of \d+ MiB[^@]*?)\s*@", latency_runs[0].log)
    text = (f"{level} guess {guessed:.0f} for {want} in mode {mode}; {figures(curve, want)}"
            + (f"; {huge.group(1)}" if huge else "") + f"; {out.splitlines()[-1]}")
    if why:
        pytest.skip(f"{why}: {text}")
    pytest.fail(text)


def test_l1d_size_is_the_cpus(cache_guess, latency_runs):
    # Disturbed: the faster half of the runs already missed at the point
    # below L1 (a third again the latency at a quarter of it; a quiet run's
    # is within 10 %): most runs never saw the cache undisturbed.
    def disturbed(curve, want):
        lo, quarter = max(s for s in curve if s < want), want // 4
        if quarter in curve and curve[lo] > 1.33 * curve[quarter]:
            return "runs disturbed before L1's size (an SMT sibling or another job)"
        return None
    check_size(cache_guess, latency_runs, "l1", "LEVEL1_DCACHE_SIZE", disturbed)


def test_l2_size_is_the_cpus(cache_guess, latency_runs):
    # Where the host scatters our pages the step is smeared far below the
    # size; boot/guess.c places it where half the loads miss, which stays at
    # the size on average, but a machine busy for the whole test can still
    # move it a size off.  Disturbed: the step that smeared, 1.5 times the
    # L2-hit latency already at 3/4 of L2 (a sharp step is within 20 %).
    def disturbed(curve, want):
        quarter, three_q = want // 4, want * 3 // 4
        if quarter in curve and three_q in curve and curve[three_q] > 1.5 * curve[quarter]:
            return "L2 step smeared below its size (pages scattered by the host)"
        return None
    check_size(cache_guess, latency_runs, "l2", "LEVEL2_CACHE_SIZE", disturbed)


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
