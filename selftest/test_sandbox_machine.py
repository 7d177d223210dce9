"""The sandbox's figures of the machine itself: its RAM sized from
/proc/meminfo (or ram=), the boot time from one clock, the core clock
(the cpu probe) with a spread that is what it says."""
import os
import re
import subprocess
import time

import pytest

from conftest import TOP, parse

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")
LAYOUT_MIB = 2812       # sandbox.h: RAM from 0x10000000 to below 0xBFC00000
MIN_MIB = 64


@pytest.fixture(scope="module", autouse=True)
def sandbox_built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)


def sandbox(*args, timeout=60):
    start = time.monotonic()
    p = subprocess.run([SANDBOX, *args], capture_output=True, text=True, timeout=timeout,
                       errors="replace")
    run = parse(p.stdout)
    run.rc, run.stderr, run.wall = p.returncode, p.stderr, time.monotonic() - start
    run.stdout = p.stdout
    return run


def mem_available_mib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return None


def ram_mib(run):
    m = re.search(r"# ram: (\d+) MiB \((.*)\)", run.log)
    assert m, run.log
    return int(m.group(1)), m.group(2)


# --- RAM ---------------------------------------------------------------------

def quarter(avail_mib):
    return min(avail_mib // 4 // 2 * 2, LAYOUT_MIB)


def test_ram_is_a_quarter_of_mem_available_at_most_the_layout():
    before = mem_available_mib()
    if before is None:
        pytest.skip("no MemAvailable in /proc/meminfo")
    run = sandbox("probes=boot", "modes=4k")
    after = mem_available_mib()
    assert run.rc == 0, run.log
    mib, source = ram_mib(run)
    lo, hi = sorted((quarter(before), quarter(after)))
    assert lo - 2 <= mib <= hi + 2 and mib % 2 == 0, (mib, before, after)
    assert "a quarter of MemAvailable" in source
    assert ("at most what the sandbox's layout holds" in source) == (mib == LAYOUT_MIB)
    # The largest RAM still leaves the self-check its alias page below 0xC0000000.
    if min(before, after) > LAYOUT_MIB:
        run = sandbox("probes=boot", "modes=4k", f"ram={LAYOUT_MIB}M")
        assert run.rc == 0 and "no room for the alias check" not in run.log, run.log


def test_ram_argument_sets_it():
    if (mem_available_mib() or 0) < 1024:
        pytest.skip("less than 1 GiB available")
    run = sandbox("probes=boot", "modes=4k", "ram=512M")
    assert run.rc == 0, run.log
    assert ram_mib(run)[0] == 512 and "sized by ram=512M" in ram_mib(run)[1]
    run = sandbox("probes=boot", "modes=4k", "ram=0x30000000")
    assert ram_mib(run)[0] == 768


@pytest.mark.parametrize("value, why", [
    ("3G", "more than the 2812 MiB the sandbox's layout holds"),
    ("32M", "below the sandbox's minimum of 64 MiB"),
    ("1000001", "not a multiple of 2 MiB"),
    ("abc", "not a size"),
    ("", "not a size"),
])
def test_bad_ram_argument_fails_clearly(value, why):
    run = sandbox("probes=boot", f"ram={value}")
    assert run.rc != 0
    assert f"mmubench: error: boot argument 'ram={value}': {why}" in run.stdout, run.stdout
    assert "# mmubench status: fail" in run.stdout


def test_ram_beyond_mem_available_fails_clearly():
    avail = mem_available_mib()
    if avail is None or avail + 64 > LAYOUT_MIB:
        pytest.skip(f"MemAvailable ({avail} MiB) is above what the layout holds: that bound "
                    "comes first")
    value = f"{(avail + 64) // 2 * 2}M"
    run = sandbox("probes=boot", f"ram={value}")
    assert run.rc != 0 and "more than MemAvailable" in run.stdout, run.stdout


def test_the_mode_maps_all_of_it():
    if (mem_available_mib() or 0) < 1300:
        pytest.skip("needs 1300 MiB available")
    run = sandbox("probes=boot", "modes=4k,thp", "ram=1300M")
    assert run.rc == 0 and ram_mib(run)[0] == 1300, run.log
    assert f"1:1 map of 0x10000000-{0x10000000 + (1300 << 20) - 1:#x}" in run.log, run.log


# --- boot time ---------------------------------------------------------------

def test_boot_time_is_within_the_programs_wall_time():
    """entry_to_first_result: main()'s start to the first result, in one
    clock; the program's whole life (as this test sees it) bounds it."""
    for args in (("probes=boot",), ("probes=cpu,boot", "reps=3")):
        run = sandbox(*args, "modes=4k")
        assert run.rc == 0, run.log
        boot_us = run.value("boot.4k.entry_to_first_result")
        assert 0 < boot_us <= run.wall * 1e6, (boot_us, run.wall)


# --- the cpu probe -----------------------------------------------------------

def cpu_runs(n=3):
    runs = []
    for _ in range(n):
        run = sandbox("probes=cpu", "modes=4k", "reps=1")
        assert run.rc == 0, run.log
        runs.append(run)
    return runs


def test_cpu_spread_is_what_it_says():
    """The spread is (highest - lowest) / MHz of the printed per-k MHz."""
    for run in cpu_runs():
        m = re.search(r"# cpu\.4k: 21 trials x \d+ iterations; MHz of the k-th fastest, "
                      r"k = 1\.\.11:((?: \d+){11})$", "\n".join(run.lines), re.M)
        assert m, run.log
        per_k = [int(x) for x in m.group(1).split()]
        mhz = run.value("cpu.4k.mhz")
        assert per_k[0] == int(mhz)         # k = 1: both loops' minimum, the figure
        spread = (max(per_k) - min(per_k)) / mhz * 100
        assert abs(run.value("cpu.4k.mhz_spread") - spread) <= 0.011, (per_k, mhz)


def cpuinfo_mhz():
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^cpu MHz\s*:\s*([\d.]+)", f.read(), re.M)
        return float(m.group(1)) if m else None
    except OSError:
        return None


def test_cpu_mhz_within_reason_of_what_the_kernel_says():
    """A core runs between a third and three times its nominal clock on any
    x86 we know (laptop turbo reaches ~2.7x base; deep power saving or a
    guest's reported clock can be far below): a loop counted wrong by a
    factor of 4, or a tick rate taken for the core's, falls outside."""
    nominal = cpuinfo_mhz()
    run = cpu_runs(1)[0]
    tick = re.search(r"# tick clock: (\d+) Hz \(invariant TSC", run.log)
    if tick:
        nominal = int(tick.group(1)) / 1e6
    if not nominal:
        pytest.skip("neither /proc/cpuinfo nor an invariant TSC gives a nominal clock")
    assert nominal / 3 <= run.value("cpu.4k.mhz") <= nominal * 3, (nominal, run.log)
