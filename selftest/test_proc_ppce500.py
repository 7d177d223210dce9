"""The e500's user/kernel split (arch/e500/user.c, user_mode.S) on ppce500
under -icount: the trap, fork, exec and mmap probes in every mode,
copy-on-write faults, the kernel-page miss counts, and a user-mode fault
nobody handles.

Where kernel pages lie (arch/e500/mmu.c, doc/ppce500.md): Book-E takes
interrupts translated, so every translated mode pins the image's first 4
KiB (the vectors, the miss handlers, the common path's entry and exit;
their data through address space 1).  In normal nothing else of the
kernel is pinned: its text, data, stack and the trap's kernel working set
are TLB0 pages, refilled as user pages are.  Mode pinned's two 16 MiB
entries hold the image (at 4 MiB) whole, largepte's large page holding the
vectors holds it too (written at entry and kept), so in those modes a
kernel page of the image never misses; what lies above the pins (the page
tables, the frame pool at the top of RAM) is TLB0's in pinned and large
pages' in largepte.  The trap's pressed calls touch as many user pages as
TLB0 has entries (its default where our handler fills the TLB: 512, less
what the process's window holds besides), so that in normal user and
kernel pages compete.  Mode real is the boot translation: its RAM entry
carries the user bits too (unprotected, as the 405 with translation off)
and nothing counts misses.
"""
import re
import shutil

import pytest

from conftest import assert_crash_failed, assert_icount_runs, run_qemu, the_exception

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-ppc"),
                                reason="qemu-system-ppc missing (Debian package qemu-system-ppc)")
MODES = ("real", "normal", "pinned", "largepte")
TRANSLATED = ("normal", "pinned", "largepte")
PROBES = ("trap", "fork", "exec", "mmap")
PIN = 16 << 20          # arch/e500/mmu.c: mode pinned's entries (pins=2 by default)
ARGS = ("probes=trap,fork,exec,mmap", "modes=all", "quick")


@pytest.fixture(scope="module")
def runs():
    return [run_qemu("ppce500", *ARGS, timeout=300) for _ in range(2)]


def test_runs_pass_alike_and_real_mode_counts_no_misses(runs):
    """Mode real is the boot translation: nothing counts misses or faults."""
    assert_icount_runs(runs, PROBES, MODES, "tlb", "fault")


def test_kernel_page_misses_by_mode(runs):
    """normal > largepte and pinned, with the figures the layout implies:
    in pinned and largepte every page the null call touches lies in the
    image, inside a TLB1 entry that stays (the banner's image, stack and
    heap below pinned's 2 x 16 MiB and inside largepte's 16 MiB page at 0),
    so no pressed call misses a kernel page there; in normal the 510 user
    pages before each call refill every TLB0 set (4 ways, 128 sets) and the
    call's kernel pages miss again, so some do (how many depends on each
    set's round robin).  Without the user pages (null) the call's few pages
    stay in TLB0: none misses in any mode.  fork, exec and mmap: no mode
    misses more kernel pages than normal, and pinned and largepte miss
    fewer in all."""
    run = runs[0]
    text = "\n".join(run.lines)
    m = re.search(r"^# image: 0x([0-9a-f]+)-0x([0-9a-f]+), heap 0x([0-9a-f]+)-0x([0-9a-f]+), "
                  r"stack 0x([0-9a-f]+)-0x([0-9a-f]+)", text, re.M)
    assert m, text
    assert all(int(x, 16) < PIN for x in m.groups()), m.group(0)
    assert "pressed: 510 user pages touched before each call" in text, text
    kernel = lambda probe, mode, name, x: run.value(f"{probe}.{mode}.{name}_kernel_{x}_misses")
    for mode in TRANSLATED:
        for x in ("dtlb", "itlb"):
            assert kernel("trap", mode, "null", x) == 0, (mode, x)
    for mode in ("pinned", "largepte"):
        for x in ("dtlb", "itlb"):
            assert kernel("trap", mode, "pressed", x) == 0, (mode, x)
    assert kernel("trap", "normal", "pressed", "dtlb") > 0
    assert kernel("trap", "normal", "pressed", "itlb") > 0
    assert run.value("trap.normal.pressed_call_ns") > run.value("trap.pinned.pressed_call_ns")
    for mode in ("pinned", "largepte"):
        total = {m: sum(kernel(p, m, p, x) for p in ("fork", "exec", "mmap")
                        for x in ("dtlb", "itlb")) for m in ("normal", mode)}
        assert total[mode] < total["normal"], total
        for probe in ("fork", "exec", "mmap"):
            for x in ("dtlb", "itlb"):
                assert kernel(probe, mode, probe, x) <= kernel(probe, "normal", probe, x)
    for mode in TRANSLATED:
        assert run.value(f"fork.{mode}.fork_dtlb_misses") > 0
        assert run.value(f"exec.{mode}.exec_dtlb_misses") > 0


@pytest.mark.parametrize("writes", [1, 3])
def test_copy_on_write_faults_follow_the_writes(writes):
    """The child's writes to its copy-on-write pages: each a store to a
    read-only user page (UR without UW), one data storage interrupt, one
    protection fault; no page fault (every page is mapped)."""
    run = run_qemu("ppce500", "probes=fork", "modes=all", "quick", f"fork_writes={writes}",
                   timeout=120)
    assert run.status() == "pass", run.log
    for mode in TRANSLATED:
        assert run.value(f"fork.{mode}.fork_prot_faults") == writes, mode
        assert run.value(f"fork.{mode}.fork_page_faults") == 0, mode


def test_exec_and_mmap_map_eagerly(runs):
    run = runs[0]
    for mode in TRANSLATED:
        for probe in ("exec", "mmap"):
            assert run.value(f"{probe}.{mode}.{probe}_prot_faults") == 0
            assert run.value(f"{probe}.{mode}.{probe}_page_faults") == 0


def test_user_fault_nobody_handles_dumps_and_fails():
    """crash=user: problem state loads from the image's first page, under
    the vectors' supervisor-only pin: a data storage interrupt no hook
    takes, the register dump, a failing run."""
    run = run_qemu("ppce500", "crash=user", timeout=30)
    text = "\n".join(run.lines)
    assert "data storage (IVOR2) at PC 0xc00000" in the_exception(run), text
    # from problem state (MSR[PR] 0x4000, AS 0), at the image's first page
    assert re.search(r"MSR 0x0000[4-7][0-9a-f][0-9a-f]0 DEAR 0x00400000 ", text), text
    assert "user mode ended by an unexpected data storage at 0xc00000" in text, text
    assert_crash_failed(run, "user")
