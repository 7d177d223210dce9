"""BOARD=ppce500 under QEMU -M ppce500 -cpu e500v2, booted directly (QEMU's
own ePAPR boot, r3 = its device tree), under -icount (time = instructions):
every probe in every mode, the e500's exact miss counts (TLB0 is 512
entries, 4-way, refilled by our handlers with a per-set round robin),
RAM from the device tree, and failures that end the run with a failing
status."""
import re
import shutil

import pytest

from conftest import run_qemu

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-ppc"),
                                reason="qemu-system-ppc missing (Debian package qemu-system-ppc)")
MODES = ("real", "normal", "pinned", "largepte")


@pytest.fixture(scope="module")
def quick_run():
    return run_qemu("ppce500", "probes=all", "modes=all", "quick", timeout=300)


def test_every_probe_passes_in_every_mode(quick_run):
    run = quick_run
    assert run.rc == 0, run.stderr + run.log
    assert run.status() == "pass"
    assert len(run.results) == run.planned(), run.results
    for name, result in run.results.items():
        assert result == "ok" or (result == "skip" and name.split(".")[1] == "real"), \
            f"{name}: {result} ({run.skips.get(name)})"
    for probe in ("trap", "fork", "exec", "mmap"):      # user mode (arch/e500/user.c)
        for mode in MODES:
            assert run.results.get(f"{probe}.{mode}") == "ok", (probe, mode, run.skips)


def test_exact_counts(quick_run):
    """256 pages fit TLB0: no miss in a warm pass in any mode; the miss path
    is the handler's instructions, counted from the code and seen by
    -icount; the tlb probe's counted step is TLB0's 512 entries where the
    walk is in 4K pages (the walk's code is under the vectors' pin, so TLB0
    holds the walked pages alone, in normal too); largepte's 16 MiB pages
    cover the 4K sweep (probe memory starts at 8 MiB, in the page at 0 that
    holds the vectors), so there no 4K level shows and none is claimed."""
    run = quick_run
    path = run.value("mmu.normal.dtlb_miss_path")
    assert path > 30
    for mode in MODES:
        assert run.value(f"tlbwalk.{mode}.dtlb_misses_per_pass") == 0
    for mode in MODES[1:]:
        assert run.value(f"mmu.{mode}.dtlb_miss_path") == path
    for mode in ("normal", "pinned"):
        assert run.value(f"tlb.{mode}.l1_entries") == 512
        assert run.value(f"tlb.{mode}.512p_misses") == 0
        assert run.value(f"tlb.{mode}.640p_misses") == 640
    assert "tlb.largepte.l1_entries" not in run.measurements
    assert "tlb.largepte: no step up to 2048 pages of 4 KiB" in run.log
    assert run.value("tlb.largepte.2048p_misses") == 0
    # 128 MiB in two 64 MiB entries, never one of 256 MiB past RAM's end.
    assert "RAM 0-0x07ffffff 1:1 in 2 entries (64 MiB at TLB1[0], 64 MiB at TLB1[2]; " \
        "rounded down)" in run.log


@pytest.mark.parametrize("pages,normal", [(576, 320), (640, 640)])
def test_set_associative_tlb0(pages, normal):
    """Past 512 pages only the sets holding 5 of them miss, all 5 of those
    each pass (round robin over 4 ways): 64 such sets at 576 pages, all
    128 at 640.  Mode pinned's 16M entries are TLB1's (TLB0 stays whole);
    largepte's 16M pages cover the walk."""
    run = run_qemu("ppce500", "probes=tlbwalk", "modes=all", "quick", f"walk_pages={pages}",
                   timeout=120)
    assert run.status() == "pass", run.log
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == normal
    assert run.value("tlbwalk.pinned.dtlb_misses_per_pass") == normal
    assert run.value("tlbwalk.largepte.dtlb_misses_per_pass") == 0
    # From the pass's time: the 400 MHz timebase ticks every 2.5 ns (one
    # -icount instruction is 1 ns), so the start and end reads may lose up
    # to 5 instructions over the pass; printed to 0.01.
    per_miss = run.value("tlbwalk.normal.instructions_per_miss")
    assert abs(per_miss - run.value("mmu.normal.dtlb_miss_path")) <= 5 / normal + 0.01, per_miss


def test_two_icount_runs_identical():
    a = run_qemu("ppce500", "probes=tlbwalk,tlb,demand", "modes=all", "quick", timeout=300)
    b = run_qemu("ppce500", "probes=tlbwalk,tlb,demand", "modes=all", "quick", timeout=300)
    assert a.status() == "pass", a.log
    # The image's output; QEMU's own stderr is in the same stream, and its
    # "icount sleep disabled and no active timers" after the last line
    # comes in some runs only.
    def image(run):
        return [l for l in run.log.splitlines() if not l.startswith("qemu-system-ppc: ")]
    assert image(a) == image(b)


def test_ram_and_clocks_from_the_device_tree():
    run = run_qemu("ppce500", "probes=boot", "modes=real", mem=256, icount=False)
    assert run.status() == "pass", run.log
    assert "ram: 256 MiB (the device tree's /memory reg)" in run.log
    assert re.search(r"cpu clock: \d+ Hz \(the device tree's /cpus clock-frequency\)", run.log)
    assert "tick clock: 400000000 Hz (the device tree's timebase-frequency" in run.log


@pytest.mark.parametrize("kind,vector", [("data", "data TLB miss (IVOR13)"),
                                         ("fetch", "instruction TLB miss (IVOR14)"),
                                         ("illegal", "program (IVOR6)"),
                                         ("align", "alignment (IVOR5)")])
def test_crash_dumps_and_fails(kind, vector):
    run = run_qemu("ppce500", f"crash={kind}", icount=False, timeout=60)
    assert run.rc == 1, run.stderr + run.log
    assert run.status() == "fail"
    assert f"exception: {vector}" in run.log, run.log
