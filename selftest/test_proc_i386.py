"""i386 user/kernel split (issue 20): ring 3 through the TSS and the
int $0x80 gate, user pages U/S in every paging mode and ring 3 by segments
alone in flat; a fault in ring 3 nobody handles is a register dump and a
failing run, never a hang."""
import re
import time

from conftest import run_qemu


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
