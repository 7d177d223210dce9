"""Long intervals convert to time without wrapping (boot/timing.c muldiv64):
100 mode switches are timed as one interval of seconds, far past the
71 ms at which ticks x 1e11 wrapped 64 bits at 2.6 GHz.  The figure times
the count must lie within the run's own wall time and be at least a
quarter of it (the switches are most of such a run)."""
import os
import re
import subprocess
import time

import pytest

from conftest import TOP, run_qemu, parse

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


def check(run, mode, wall):
    assert run.status() == "pass", run.log
    total_s = run.value(f"modeswitch.{mode}.switches") * \
        run.value(f"modeswitch.{mode}.switch_ns") / 1e9
    assert wall / 4 <= total_s <= wall, (total_s, wall)


def test_pc_tcg_mode_switches_within_wall_time():
    run = run_qemu("pc", "probes=modeswitch", "modes=2level", icount=False, tcg=True,
                   timeout=120)
    m = re.search(r"QEMU start to exit ([0-9.]+) s", run.stderr + run.log)
    assert m, run.stderr + run.log
    check(run, "2level", float(m.group(1)))


@pytest.mark.parametrize("mode", ["4k", "thp"])
def test_sandbox_mode_switches_within_wall_time(mode):
    t0 = time.monotonic()
    p = subprocess.run([SANDBOX, "probes=modeswitch", f"modes={mode}"], capture_output=True,
                       text=True, timeout=120)
    wall = time.monotonic() - t0
    run = parse(p.stdout)
    if mode == "thp" and "skip" == run.results.get(f"modeswitch.{mode}"):
        pytest.skip(f"thp unavailable here: {run.skips.get('modeswitch.thp')}")
    check(run, mode, wall)


def test_sandbox_boot_time_within_wall_time():
    """Boot us from one clock: entry to first result within the program's life."""
    t0 = time.monotonic()
    p = subprocess.run([SANDBOX, "probes=boot", "modes=4k"], capture_output=True, text=True,
                       timeout=60)
    wall = time.monotonic() - t0
    run = parse(p.stdout)
    boot_us = run.value("boot.4k.entry_to_first_result")
    assert 0 < boot_us <= wall * 1e6, (boot_us, wall)
