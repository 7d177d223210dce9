"""BOARD=sandbox: the probes of tests/ as a Linux program on this machine's
CPU (arch/sandbox).  Real caches and TLBs, so times are judged here, on a
shared 2-core machine: every timed figure is the median of the run's own
repetitions, and the judged ones the median of several runs, with the
tolerance stated where it is used."""
import importlib.machinery
import importlib.util
import os
import re
import statistics
import subprocess

import pytest

from conftest import LOGCHECK, TOP, parse
from test_lat_mem import L1_CYCLES

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


def tool_module(name):
    """A Python script of tools/ (no .py suffix) as a module."""
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(TOP, "tools", name))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# The sizes as tools/bench judges them, too.
sandbox_sizes = tool_module("sandbox-sizes")
MODES, RUNS, getconf, run_args = (sandbox_sizes.MODES, sandbox_sizes.RUNS, sandbox_sizes.getconf,
                                  sandbox_sizes.run_args)


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


def test_ram_without_a_value_fails_clearly():
    """ram alone (no =SIZE) is a bad argument, not a crash (make fuzz found it)."""
    p = subprocess.run([SANDBOX, "ram"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 1, p.stdout
    assert "boot argument 'ram': not a size" in p.stdout, p.stdout
    assert "unexpected signal" not in p.stdout and "# mmubench status: fail" in p.stdout


def test_watchdog_stops_a_probe_and_the_run_goes_on():
    run = run_sandbox("probes=lat_mem,boot", "modes=4k", "watchdog=20", timeout=60)
    assert run.results["lat_mem.4k"] == "timeout", run.log
    assert run.results["boot.4k"] == "ok"          # the run went on after it
    assert run.status() == "fail"


# --- timing on this CPU ---------------------------------------------------

@pytest.fixture(scope="module")
def latency_runs():
    """lat_mem and tlb in 4k and thp, 3 repetitions each (each figure is
    already the median of 3), RUNS runs (tools/sandbox-sizes)."""
    runs = []
    for _ in range(RUNS):
        run = run_sandbox(*run_args(), timeout=300)
        assert run.status() == "pass", failures(run)
        runs.append(run)
    return runs


def failures(run):
    """The lines that say what failed (a whole log drowns them)."""
    lines = run.log.splitlines()
    keep = [lines[i] for i in range(len(lines)) if lines[i].startswith("not ok") or
            (i + 1 < len(lines) and lines[i + 1].startswith("not ok"))]
    return "\n".join(keep) or run.log


def median_of(runs, name):
    return statistics.median(r.value(name) for r in runs)


def figures(run, mode, want):
    """The local curve's points from a quarter of `want` to twice it, for messages."""
    pts = sorted((int(k.split("_")[-2]), v) for k, (v, _u) in run.measurements.items()
                 if k.startswith(f"lat_mem.{mode}.local_"))
    return " ".join(f"{s >> 10}K:{ns:.2f}" for s, ns in pts if want // 4 <= s <= 2 * want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("level,conf", sandbox_sizes.LEVELS)
def test_cache_level_holds_the_cpus_size(latency_runs, level, conf, mode):
    """Each mode: the level's step holds getconf's size (at least 15/16 of
    the last point on the plateau, at most the first past the rise:
    lib/guess.c step 3, true whatever the replacement policy), the verdict
    against CPUID is "consistent" and the size named is getconf's -- in
    the run where the core was least shared.  A guest's core has an SMT
    sibling the host may give another tenant: what that tenant's lines
    take from a private level, ours lose, so a run's rise can come early
    (seen on a Zen 5 guest, its L2 1 MiB: 512-896K in one run of five,
    the others holding 1 MiB), never late.  So no run's plateau may
    outlast the size, and the run whose rise comes last must hold it.  No
    exactness the curve cannot give is asserted, and nothing skips."""
    want = getconf(conf)
    if not want:
        pytest.skip(f"getconf {conf} reports nothing here")
    runs = [judged[mode][level] for judged in sandbox_sizes.judge([r.measurements for r in latency_runs])]
    text = "; ".join(f"run {i + 1}: {level} {sandbox_sizes.describe(lv, want)}: "
                     f"{figures(latency_runs[i], mode, want)}" for i, lv in enumerate(runs))
    assert all(lv is not None and lv[1] * 15 / 16 <= want for lv in runs), text
    least_shared = max(runs, key=lambda lv: lv[2])
    assert sandbox_sizes.contains(least_shared, want), text
    assert least_shared[3] == "consistent" and least_shared[0] == want, text


def test_memory_is_past_the_caches_or_absent(latency_runs):
    """Main memory, where claimed, at least 3x L2's latency (levels are 2x
    apart and memory lies past L3); the diagnostic says why where not."""
    for run in latency_runs:
        for mode in MODES:
            mem = run.measurements.get(f"lat_mem.{mode}.mem_ns")
            if mem:
                assert mem[0] >= 3 * run.value(f"lat_mem.{mode}.l2_ns"), run.log
            else:
                assert re.search(rf"# lat_mem\.{mode}: .*memory not", run.log), run.log


def test_no_tlb_level_is_the_l1ds_line_count(latency_runs):
    """A chase of one line a page overflows the L1d at (L1d / line) pages;
    the tlb probe subtracts the packed chase, so no level sits there: no
    level's interval lies within 10 % of that count."""
    l1, line = getconf("LEVEL1_DCACHE_SIZE"), getconf("LEVEL1_DCACHE_LINESIZE") or 64
    if not l1:
        pytest.skip("getconf reports no L1d")
    lines = l1 // line
    for run in latency_runs:
        for mode in MODES:
            for k in (1, 2, 3):
                lo = run.measurements.get(f"tlb.{mode}.l{k}_lo_entries", (0,))[0]
                hi = run.measurements.get(f"tlb.{mode}.l{k}_hi_entries", (0,))[0]
                assert not (lines * 0.9 <= lo and hi <= lines * 1.1), (mode, k, lo, hi, lines)


def test_l1_latency_is_the_documented_one(latency_runs):
    # Within half a cycle of the documented load-to-use latency (the issue's
    # figure); cycles from the core clock each run measures itself.
    m = re.search(r"# cpu: (\w+) family (\d+) model (\d+)", latency_runs[0].log)
    vendor, family, model = m.group(1), int(m.group(2)), int(m.group(3))
    want = L1_CYCLES.get((vendor, family, model), L1_CYCLES.get((vendor, family)))
    if want is None:
        pytest.skip(f"{vendor} family {family} model {model}: no documented L1 latency here")
    got = median_of(latency_runs, "lat_mem.4k.l1_cycles")
    assert abs(got - want) <= 0.5, (got, want)


# The tlb probe's levels and what CPUID says of them (cpuid.4k.*): the 4K
# sweep's L1 and L2, and in modes with large pages the large-page stride's
# L1 (its L2 lies beyond the sandbox's RAM).
TLB_LEVELS = (("", 1, "dtlb_entries"), ("", 2, "stlb_entries"), ("lp_", 1, "dtlb_large_entries"))


@pytest.mark.parametrize("mode", MODES)
def test_tlb_levels_are_consistent_with_cpuid(latency_runs, mode):
    """The TLB's L1 and L2 are consistent with CPUID: each run's verdict is
    the median of its repetitions', each from that sweep's interval
    (tests/tlb.c RISE_PART: lo x 7/8 <= entries <= hi, what a cyclic chase
    shows whatever the replacement policy).  Judged over the runs as the
    sizes are: the median verdict (a run without the level counts as
    differing), and the documented count inside the median interval and
    named.  No assertion where CPUID says nothing: the probe gives no
    verdict then, and names the level by its lower end."""
    cpuid = latency_runs[0].measurements
    for pre, k, field in TLB_LEVELS:
        name = f"tlb.{mode}.{pre}l{k}"
        want = cpuid.get(f"cpuid.4k.{field}", (0,))[0]
        runs = [r.measurements for r in latency_runs]
        if pre and f"tlb.{mode}.1p_2m_ns" not in runs[0]:
            continue                    # no large-page sweep in this mode
        if not want:
            assert not any(f"{name}_verdict" in m for m in runs), name
            continue
        found = [m for m in runs if f"{name}_lo_entries" in m]
        seen = [(m[f"{name}_lo_entries"][0], m[f"{name}_hi_entries"][0],
                 m[f"{name}_verdict"][0]) if f"{name}_lo_entries" in m else None for m in runs]
        text = f"{name}: CPUID {want:.0f}; per run (lo, hi, verdict): {seen}"
        assert statistics.median(v[2] if v else 2 for v in seen) == 1, text
        lo = statistics.median(v[0] for v in seen if v)
        hi = statistics.median(v[1] for v in seen if v)
        assert lo - lo / 8 <= want <= hi, text
        assert statistics.median(m[f"{name}_entries"][0] for m in found) == want, text
