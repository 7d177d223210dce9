"""The e500's user/kernel split (arch/e500/user.c, user_mode.S) on ppce500
under -icount: the trap, fork, exec and mmap probes in every mode,
copy-on-write faults, the kernel-page miss counts, and a user-mode fault
nobody handles.

Where kernel pages lie (arch/e500/mmu.c, doc/ppce500.md): Book-E takes
interrupts translated, so in every translated mode TLB1 pins the image's
4 MiB (text, data, .bss, the stack and the heap, where the trap probe's
kernel working set is) and everything above probe memory (the page tables
and the processes' frame pool) in 1 MiB entries; mode pinned adds its 16
MiB entries, largepte its large pages for probe memory.  No kernel page the
four operations touch is ever a TLB0 page, so the handlers (which count a
miss outside the user window as a kernel page's) count none: 0 in every
mode, derived below from the image's layout, not fitted.  Mode real is the
boot translation: its RAM entry carries the user bits too (unprotected, as
the 405 with translation off) and nothing counts misses.
"""
import re
import shutil

import pytest

from conftest import run_qemu

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-ppc"),
                                reason="qemu-system-ppc missing (Debian package qemu-system-ppc)")
MODES = ("real", "normal", "pinned", "largepte")
TRANSLATED = ("normal", "pinned", "largepte")
PROBES = ("trap", "fork", "exec", "mmap")
IMAGE_PIN = 4 << 20     # arch/e500/mmu.c: the image's TLB1 pin
ARGS = ("probes=trap,fork,exec,mmap", "modes=all", "quick")


@pytest.fixture(scope="module")
def runs():
    return [run_qemu("ppce500", *ARGS, timeout=300) for _ in range(2)]


def test_every_probe_passes_in_every_mode(runs):
    for run in runs:
        assert run.status() == "pass" and run.rc == 0, run.log
        for p in PROBES:
            for m in MODES:
                assert run.results.get(f"{p}.{m}") == "ok", (p, m, run.log)


def test_two_icount_runs_identical(runs):
    a, b = runs
    assert a.measurements == b.measurements


def test_real_mode_has_no_tlb_counts(runs):
    """The boot translation: nothing counts misses, so none is printed."""
    run = runs[0]
    for p in PROBES:
        assert not [n for n in run.measurements if n.startswith(f"{p}.real.") and "tlb" in n]
        assert not [n for n in run.measurements if n.startswith(f"{p}.real.") and "fault" in n]


def test_kernel_pages_never_miss(runs):
    """The kernel's whole working set lies under the image's pin (the
    banner's image, stack and heap inside its 4 MiB) or above probe memory
    (pinned too): 0 kernel-page misses per operation in every translated
    mode, while the user window's pages do miss (the counters count)."""
    run = runs[0]
    text = "\n".join(run.lines)
    m = re.search(r"^# image: 0x([0-9a-f]+)-0x([0-9a-f]+), heap 0x([0-9a-f]+)-0x([0-9a-f]+), "
                  r"stack 0x([0-9a-f]+)-0x([0-9a-f]+)", text, re.M)
    assert m, text
    pin = int(m.group(1), 16) & ~(IMAGE_PIN - 1)
    assert all(pin <= int(x, 16) <= pin + IMAGE_PIN for x in m.groups()), m.group(0)
    for mode in TRANSLATED:
        for name in ("null", "pressed"):
            for x in ("dtlb", "itlb"):
                assert run.value(f"trap.{mode}.{name}_kernel_{x}_misses") == 0, (mode, name)
        for probe in ("fork", "exec", "mmap"):
            for x in ("dtlb", "itlb"):
                assert run.value(f"{probe}.{mode}.{probe}_kernel_{x}_misses") == 0, (probe, mode)
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
    the image's supervisor-only pin: a data storage interrupt no hook
    takes, the register dump, a failing run."""
    run = run_qemu("ppce500", "crash=user", timeout=30)
    text = "\n".join(run.lines)
    exc = [l for l in run.lines if l.startswith("# exception: ")]
    assert len(exc) == 1 and "data storage (IVOR2) at PC 0xc00000" in exc[0], text
    # from problem state (MSR[PR] 0x4000, AS 0), at the image's first page
    assert re.search(r"MSR 0x0000[4-7][0-9a-f][0-9a-f]0 DEAR 0x00400000 ", text), text
    assert "user mode ended by an unexpected data storage at 0xc00000" in text, text
    assert run.status() == "fail" and run.results.get("crash.user") == "not ok", text
    assert run.rc == 1, f"run-qemu exit {run.rc}\n{run.stderr}"
