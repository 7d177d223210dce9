"""i386 user/kernel split (issue 20): ring 3 through the TSS and the
int $0x80 gate, user pages U/S in every paging mode and ring 3 by segments
alone in flat; a fault in ring 3 nobody handles is a register dump and a
failing run, never a hang."""
import re
import time

from conftest import run_qemu


def test_user_fault_nobody_handles_dumps_and_fails():
    start = time.monotonic()
    run = run_qemu("pc", "crash=user", timeout=30)
    assert time.monotonic() - start < 25, "QEMU did not end well before its timeout"
    text = "\n".join(run.lines)
    exc = [l for l in run.lines if l.startswith("# exception: ")]
    assert len(exc) == 1 and "#PF page fault (vector 14)" in exc[0], text
    # the fault came from ring 3 (CS's RPL 3, the user segments) ...
    assert re.search(r"CS 0x001b EFLAGS 0x[0-9a-f]{8} error code 0x00000004 \(from ring 3\)", text), text
    assert re.search(r"DS 0x0023 ES 0x0023 SS 0x0023", text), text
    # ... at a user address, a read of a window page nothing maps
    assert re.search(r"at EIP 0xc00000[0-9a-f]{2}", exc[0]), text
    assert "page fault: CR2 0xc0002000: page not present, read, user mode" in text, text
    assert re.search(r"PDE\[768\] @0x[0-9a-f]{8} = 0x[0-9a-f]{8} \(P RW US", text), text
    assert "error: user mode ended by vector 14 at EIP 0xc00000" in text, text
    assert run.status() == "fail" and run.results.get("crash.user") == "not ok", text
    assert run.rc == 1, f"run-qemu exit {run.rc}\n{run.stderr}"
