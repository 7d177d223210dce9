"""A probe run the watchdog cuts short keeps the repetitions before it:
their samples and figures stand, the mode says how many it kept, and the
run goes on (boot/run.c).  watchdog_rep= (tests only) gives the watchdog=
budget from one repetition on, so the cut falls where the test wants it."""
import os
import subprocess

import pytest

from conftest import TOP, parse, run_qemu

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


def sandbox(*args):
    if not os.access(SANDBOX, os.X_OK):
        pytest.skip("build/sandbox/mmubench missing: make sandbox")
    p = subprocess.run([SANDBOX, "ram=256M", *args], capture_output=True, text=True, timeout=120)
    run = parse(p.stdout)
    run.rc = p.returncode
    return run


def test_a_cut_repetition_keeps_the_ones_before():
    run = sandbox("probes=cpu,trap", "modes=4k", "reps=3", "watchdog=1", "watchdog_rep=1")
    assert run.rc == 0 and run.status() == "pass", run.log
    assert run.results["cpu.4k"] == "ok" and run.results["trap.4k"] == "ok", run.log
    assert "# cpu.4k: cut short by the watchdog (budget 1 ms) in repetition 2: kept 1 of 3" in run.lines
    assert [r for (n, r) in run.samples if n == "cpu.4k.mhz"] == [1], run.samples  # rep 1 alone
    assert run.value("cpu.4k.mhz") == run.samples[("cpu.4k.mhz", 1)]
    assert run.value("trap.4k.null_call_ns") > 0


def test_a_cut_in_the_first_repetition_is_a_timeout():
    run = sandbox("probes=cpu", "modes=4k", "reps=2", "watchdog=1")
    assert run.results["cpu.4k"] == "timeout", run.log
    assert run.status() == "fail"
    assert not any("cut short" in l for l in run.lines)


def test_a_probe_with_rep_done_ends_on_its_kept_repetitions():
    """lat_mem's levels come at its last repetition: a cut one's last kept."""
    run = sandbox("probes=lat_mem", "modes=4k,thp", "reps=3", "quick", "watchdog=1", "watchdog_rep=2")
    assert run.rc == 0 and run.status() == "pass", run.log
    for mode in ("4k", "thp"):
        if run.results.get(f"lat_mem.{mode}") == "skip":
            continue
        assert f"# lat_mem.{mode}: cut short by the watchdog (budget 1 ms) in repetition 3: kept 2 of 3" \
            in run.lines, run.log
        assert sorted(r for (n, r) in run.samples if n == f"lat_mem.{mode}.l1_ns") == [1, 2]
        assert f"lat_mem.{mode}.l1_bytes" in run.measurements, run.log


def test_cut_short_under_icount():
    """The same on a board: the core's run loop, not the sandbox's."""
    run = run_qemu("ppce500", "probes=cpu,boot", "modes=normal", "reps=2", "watchdog=1",
                   "watchdog_rep=1", timeout=120)
    assert run.status() == "pass", run.log
    assert "# cpu.normal: cut short by the watchdog (budget 1 ms) in repetition 2: kept 1 of 2" \
        in run.lines, run.log
    assert run.results["boot.normal"] == "ok"
