"""What the OS costs, by LMbench's methods, and what a switch was
(include/probe.h struct probe_os; arch/sandbox/os.c, os_ring.c): the
sandbox's ctx ring is real processes passing a token through pipes, its
children reaped on every path (the ring's counts in every mode:
test_proc_sandbox.py); pagefault's lat_pagefault and signal's lat_sig
figures are there under the boards' names; aspace's switch in the sandbox
is the window's remap, and the aspace tables say what a switch was from the
TLB description, in the image's tables, mmureport's and JSON."""
import json
import os
import re
import subprocess

import pytest

from conftest import TOP, run_qemu, run_sandbox

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
QUICK = [(2, 0), (2, 64), (16, 64)]


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)
    subprocess.run(["make", "-s", "-C", TOP, "tools"], check=True, timeout=300)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    run = run_sandbox("probes=demand,aspace,ctx,signal,pagefault", "modes=4k", "quick")
    assert run.rc == 0 and run.status() == "pass", run.log
    path = tmp_path_factory.mktemp("os") / "sandbox.log"
    path.write_text(run.log)
    return run, str(path)


def table(log, title):
    """The rows of the table whose title starts with `title`: {mode: line}, header."""
    text = log[log.index(title):].split("\n\n")[0].splitlines()
    return {l[10:19].strip(): l for l in text[6:]}, "\n".join(text[3:5])


def test_remap_named_apart_from_the_process_switch(quick):
    """aspace's switch in the sandbox is the window's remap (emulated); the
    OS's process switch by lat_ctx's method is ctx's, under the boards'
    names, and nowhere else."""
    run, _ = quick
    assert run.value("aspace.4k.switch_kind") == 2          # emulated (tests/aspace.c)
    for n, k in QUICK:
        assert run.value(f"aspace.4k.{n}p_{k}k_remap_ns") > 0
        assert f"aspace.4k.{n}p_{k}k_ns" not in run.measurements
        # A figure only where the round outlasted its overhead (as lat_ctx).
        name = f"ctx.4k.{n}p_{k}k_ns"
        assert name in run.measurements or \
            f"ctx.4k: {n}p_{k}k: a round took no longer than its overhead" in run.log
    rows, head = table(run.log, "Address-space switch in nanoseconds (aspace")
    assert rows["4k"].split()[2] == "emulated", rows
    assert "tagged" not in head
    rows, _ = table(run.log, "Address-space switch in nanoseconds, emulated by remapping")
    assert rows["4k"].split()[2] != ""
    rows, head = table(run.log, "Context switching in microseconds - lat_ctx's ring (ctx")
    assert head.split()[2:5] == ["2p/0K", "2p/16K", "2p/64K"], head
    assert len(rows["4k"].split()) >= 3


def test_watchdog_leaves_no_child(quick):
    """A budget that ends ctx inside its ring: the children are killed and
    reaped at the end of the run (arch_watchdog_disarm), and said so.  The
    budgets differ as the machine's speed does: one of them must land in a
    ring (the rings are most of ctx's time)."""
    seen = []
    for ms in (2, 3, 5, 8, 13):
        run = run_sandbox("probes=ctx,boot", "modes=4k", "quick", f"watchdog={ms}", timeout=60)
        assert run.results["ctx.4k"] == "timeout", run.log
        # the run goes on after it (boot's own result may be a timeout too:
        # a 2 ms budget on a busy host)
        assert run.results.get("boot.4k") in ("ok", "timeout"), run.log
        m = re.search(r"# os: a ring of (\d+) processes outlived its probe's run: (\d+) children "
                      r"killed and reaped", run.log)
        if m:
            seen.append((int(m[1]), int(m[2])))
    assert seen, "no budget ended inside a ring"
    assert all(reaped in (0, n - 1) for n, reaped in seen), seen


def test_os_fault_figures_under_the_boards_names(quick):
    run, _ = quick
    for name in ("pagefault.4k.pagefault", "signal.4k.catch", "signal.4k.prot"):
        assert run.value(f"{name}_ns") > 0
    for name in ("lat_pagefault", "lat_sig_catch", "lat_sig_prot"):    # older logs' names
        assert f"demand.4k.{name}_ns" not in run.measurements
    # Our fault includes a whole signal delivery and an mmap; lat_pagefault is
    # one file page with fault-around (several pages per fault), so ours is
    # the dearer on any x86 Linux.
    assert run.value("demand.4k.page_fault_ns") > run.value("pagefault.4k.pagefault_ns")
    rows, head = table(run.log, "Fault and mapping latencies")
    assert "Demand" in head and "Protect" in head and "Page" not in head
    assert "OS fault and signal latencies" not in run.log
    rows, head = table(run.log, "Faults, signals and pipes in microseconds")
    assert head.split() == ["Host", "Mode", "Page", "Prot", "Sig", "Pipe", "Fault", "Fault",
                            "hndl", "lat"]
    assert len(rows["4k"].split()) == 5         # no pipe in this run


def test_mmureport_agrees_and_json_names_the_kind(quick, tmp_path):
    run, path = quick
    p = subprocess.run([REPORT, "--json", str(tmp_path / "r.json"), path], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    own = run.log[run.log.index("# tables begin"):run.log.index("# tables end")]
    own = "\n".join(l for l in own.splitlines()[1:]) + "\n"
    assert p.stdout == own
    j = json.loads((tmp_path / "r.json").read_text())
    kind = [m for m in j["runs"][0]["measurements"] if m["metric"] == "switch_kind"]
    assert kind and kind[0]["word"] == "emulated" and kind[0]["value"] == 2


def test_pc_says_untagged():
    """pc: a CR3 load flushes the TLB's non-global entries; the table and the
    kind say so, taken from the TLB description, not the board's name."""
    run = run_qemu("pc", "probes=aspace", "modes=2level", "quick", timeout=120)
    assert run.status() == "pass", run.log
    assert run.value("aspace.2level.switch_kind") == 0
    rows, head = table(run.log, "Address-space switch in nanoseconds (aspace")
    assert rows["2level"].split()[2] == "untagged"
    assert "tagged" not in head
    assert "aspace.2level.2p_0k_remap_ns" not in run.measurements
    assert "OS fault and signal latencies" not in run.log
