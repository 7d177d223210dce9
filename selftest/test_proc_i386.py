"""i386 user/kernel split (issue 20): ring 3 through the TSS and the
int $0x80 gate, user pages U/S in every paging mode and ring 3 by segments
alone in flat; a fault in ring 3 nobody handles is a register dump and a
failing run, never a hang."""
import re
import time

import pytest

from conftest import run_qemu

PAGING = ["2level", "pse", "pae", "pae2m"]
MODES = ["flat"] + PAGING
PROBES = ["trap", "fork", "exec", "mmap"]
COUNTED = ["page_faults", "prot_faults"]    # what i386 counts (hardware-walked TLB: no misses)


def proc_run(*args, **kw):
    return run_qemu("pc", "probes=" + ",".join(PROBES), "modes=all", *args, timeout=300, **kw)


# global=0: a space switch drops every TLB entry; global=1: kernel pages
# stay.  Each with its own fork_writes, so the copy-on-write count is seen
# to follow the writes.
SETTINGS = {"global0": ("global=0", "fork_writes=1"), "global1": ("global=1", "fork_writes=3")}


@pytest.fixture(scope="module", params=list(SETTINGS))
def proc_tcg(request):
    args = SETTINGS[request.param]
    return args, proc_run(*args)


def writes_of(args):
    return int(next(a for a in args if a.startswith("fork_writes=")).split("=")[1])


def test_processes_run_in_every_mode(proc_tcg):
    """trap, fork, exec and mmap pass in flat and every paging mode, with
    and without global kernel pages."""
    args, run = proc_tcg
    assert run.rc == 0 and run.status() == "pass", run.log
    for probe in PROBES:
        for mode in MODES:
            assert run.results[f"{probe}.{mode}"] == "ok", f"{probe}.{mode} {args}:\n{run.log}"
    for mode in MODES:
        assert run.value(f"trap.{mode}.null_call_ns") > 0
        assert run.value(f"fork.{mode}.fork_us") > 0
        assert run.value(f"exec.{mode}.exec_us") > 0
        assert run.value(f"mmap.{mode}.mmap_us") > 0
    glob = "on (0 .. image end)" if "global=1" in args else "off"
    for mode in PAGING:
        assert re.search(rf"# {mode}: 1:1 map of .*, global {re.escape(glob)}", run.log), run.log


def test_fork_copy_on_write_faults_exact(proc_tcg):
    """One fork: the child's W writes to shared pages are W protection
    faults (each a copy), no page fault; in flat (no MMU, fork copies at
    once) nothing counts faults, so none is printed."""
    args, run = proc_tcg
    w = writes_of(args)
    for mode in PAGING:
        assert run.value(f"fork.{mode}.fork_prot_faults") == w, f"{mode} {args}"
        assert run.value(f"fork.{mode}.fork_page_faults") == 0, f"{mode} {args}"
        # the null calls fault nowhere
        for c in COUNTED:
            assert run.value(f"trap.{mode}.{c}") == 0, f"{mode} {args}"
    for probe in PROBES:
        for c in COUNTED:
            assert f"{probe}.flat.{c}" not in run.measurements
    assert "fork.flat.fork_prot_faults" not in run.measurements


def test_processes_under_kvm(kvm):
    run = proc_run(icount=False)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert "(kvm)" in run.stderr
    for probe in PROBES:
        for mode in MODES:
            assert run.results[f"{probe}.{mode}"] == "ok", f"{probe}.{mode}:\n{run.log}"
    for mode in PAGING:
        assert run.value(f"fork.{mode}.fork_prot_faults") == 1


def test_user_fault_nobody_handles_dumps_and_fails():
    """crash=user: ring 3 loads from the image's first page, which is
    mapped but a kernel page (no U/S): a protection fault from user mode
    that no hook takes."""
    start = time.monotonic()
    run = run_qemu("pc", "crash=user", timeout=30)
    assert time.monotonic() - start < 25, "QEMU did not end well before its timeout"
    text = "\n".join(run.lines)
    exc = [l for l in run.lines if l.startswith("# exception: ")]
    assert len(exc) == 1 and "#PF page fault (vector 14)" in exc[0], text
    # the fault came from ring 3 (CS's RPL 3, the user segments), in the
    # user routine at the window ...
    assert re.search(r"CS 0x001b EFLAGS 0x[0-9a-f]{8} error code 0x00000005 \(from ring 3\)", text), text
    assert re.search(r"DS 0x0023 ES 0x0023 SS 0x0023", text), text
    assert re.search(r"at EIP 0xc00000[0-9a-f]{2}", exc[0]), text
    # ... on a present kernel page: supervisor-only (no US on the leaf;
    # the directory entry above has it: the leaf decides)
    assert "page fault: CR2 0x00100000: protection violation (page present), read, user mode" in text, text
    assert re.search(r"PDE\[0\] @0x[0-9a-f]{8} = 0x[0-9a-f]{8} \(P RW US", text), text
    assert re.search(r"PTE\[256\] @0x[0-9a-f]{8} = 0x00100[0-9a-f]{3} \(P RW( A)?( D)?\)", text), text
    assert "error: user mode ended by vector 14 at EIP 0xc00000" in text, text
    assert run.status() == "fail" and run.results.get("crash.user") == "not ok", text
    assert run.rc == 1, f"run-qemu exit {run.rc}\n{run.stderr}"
