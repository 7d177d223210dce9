"""The cpu, demand (null fault, batch remap) and aspace probes in every
mode of both boards, and the platform named in the banner and under every
table.  Under -icount one instruction is 1 ns, so the core clock is exactly
1 GHz; times are otherwise not asserted."""
import re

import pytest

from conftest import run_qemu

MODES = {"ref405ep": ["real", "normal", "pinned", "largepte"],
         "pc": ["flat", "2level", "pse", "pae", "pae2m"]}
QUICK_COLUMNS = ["2p_0k", "2p_64k", "16p_64k"]


@pytest.fixture(scope="module", params=["ref405ep", "pc"])
def quick_run(request):
    board = request.param
    run = run_qemu(board, "probes=cpu,demand,aspace", "modes=all", "quick", timeout=120)
    assert run.rc == 0 and run.status() == "pass", run.log
    return board, run


def test_core_clock_is_one_instruction_a_nanosecond_under_icount(quick_run):
    board, run = quick_run
    assert re.search(r"# core clock: 99\d{7}|# core clock: 100\d{7}", run.log), run.log
    for mode in MODES[board]:
        assert 999 < run.value(f"cpu.{mode}.mhz") < 1001
        assert run.measurements[f"cpu.{mode}.mhz"][1] == "MHz"


def test_null_faults_and_batch_remap(quick_run):
    board, run = quick_run
    for mode in MODES[board][1:]:
        nulls = run.value(f"demand.{mode}.null_faults")
        assert nulls > 0
        # Every page fault counted is one of the 16 (quick) or a null one.
        assert run.value(f"demand.{mode}.page_faults") == 16 + nulls
        assert run.value(f"demand.{mode}.remap_batch_pages") == 16
        for name in ("null_fault", "remap_batch"):
            assert run.value(f"demand.{mode}.{name}_ns") > 0
            assert f"demand.{mode}.{name}_cycles" in run.measurements
            assert run.measurements[f"demand.{mode}.{name}_spread"][1] == "percent"


def test_aspace_columns(quick_run):
    board, run = quick_run
    assert run.results[f"aspace.{MODES[board][0]}"] == "skip"
    for mode in MODES[board][1:]:
        assert run.results[f"aspace.{mode}"] == "ok"
        for col in QUICK_COLUMNS:
            assert f"aspace.{mode}.{col}_ns" in run.measurements
            # The 405's PID tags: flushing spaces measured beside them; i386
            # has one kind (CR3 loads).
            assert (f"aspace.{mode}.{col}_flush_ns" in run.measurements) == (board == "ref405ep")


def test_platform_named_in_banner_and_tables(quick_run):
    board, run = quick_run
    assert "# platform: QEMU TCG -icount shift=0 (emulated" in run.log
    tables = run.log[run.log.index("# tables begin"):run.log.index("# tables end")]
    titles = len(re.findall(r"^-{10,}\r?$", tables, re.M))
    assert titles >= 3
    assert tables.count("Figures from: QEMU TCG -icount shift=0") == titles


def test_platform_without_icount():
    run = run_qemu("ref405ep", "probes=boot", "modes=real", icount=False, timeout=60)
    assert "# platform: QEMU TCG (qemu=tcg; emulated: no caches, no cycle timing)" in run.log
    run = run_qemu("pc", "probes=boot", "modes=flat", icount=False, tcg=True, timeout=60)
    assert "# platform: QEMU TCG (emulated: no caches, no cycle timing)" in run.log


@pytest.mark.parametrize("board", ["ref405ep", "pc"])
def test_watchdog_stops_a_probe_and_the_run_goes_on(board):
    """A 2 ms budget: aspace is stopped by the timer interrupt in every
    translated mode, reported as TIMEOUT, and the next probe still runs."""
    run = run_qemu(board, "probes=aspace,boot", "modes=all", "quick", "watchdog=2", timeout=60)
    assert run.rc == 1 and run.status() == "fail", run.log
    for mode in MODES[board][1:]:
        assert run.results[f"aspace.{mode}"] == "timeout", run.log
        assert "stopped by the watchdog after its budget of 2 ms" in run.skips[f"aspace.{mode}"]
        assert re.search(rf"^not ok \d+ aspace\.{mode} # TIMEOUT ", run.log, re.M)
    for mode in MODES[board]:
        assert run.results[f"boot.{mode}"] == "ok"
    assert "# exception:" not in run.log
    assert f"# Totals: pass:{len(MODES[board])} fail:{len(MODES[board]) - 1} skip:1" in run.log
