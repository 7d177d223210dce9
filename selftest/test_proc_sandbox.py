"""The process probes in the sandbox (tests/trap.c, fork.c, exec.c, mmap.c
over arch/sandbox/os_proc.c): LMbench's methods under Linux (getppid,
fork+_exit+wait, fork+execve of build/sandbox/hello+wait, a file's
mmap/munmap), their figures present, the relations that hold whatever the
machine's speed (a child that writes W pages of a copy-on-write working set
takes at least W faults; every program executed ran: its exit status says
so), and bad input refused with the reason.  And the boards' scheduler
probes under the same names (tests/pipe.c, ctx.c, signal.c, pagefault.c
over arch/sandbox/os_ring.c, os.c): lat_pipe, lat_ctx, lat_sig catch and
prot, lat_pagefault under Linux in every mode, the ring's hops and
switches counted, and mmureport --lmbench filling LMbench's columns."""
import os
import re
import shutil
import struct
import subprocess

import pytest

from conftest import SANDBOX, TOP, run_sandbox
from test_mmureport_lmbench import num, tables

EXECS = re.compile(r"# exec\.4k: (\d+) (programs|shells running the program) executed, (\d+) "
                   r"exited with the status that says it ran")


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)
    subprocess.run(["make", "-s", "-C", TOP, "tools"], check=True, timeout=300)


@pytest.fixture(scope="module")
def quick():
    run = run_sandbox("probes=trap,fork,exec,mmap", "modes=4k", "quick", "fork_writes=8")
    assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    return run


def figure(run, name):
    assert name in run.measurements, (name, run.log[-3000:])
    return run.measurements[name]


def test_every_probe_ran(quick):
    assert [quick.results["%s.4k" % p] for p in ("trap", "fork", "exec", "mmap")] == ["ok"] * 4


def test_null_call_is_a_getppid_round_trip(quick):
    value, unit = figure(quick, "trap.4k.null_call_ns")
    assert unit == "ns" and value > 0
    # After the user working set: a figure, or a diagnostic saying why none.
    assert ("trap.4k.pressed_call_ns" in quick.measurements or
            "# trap.4k: pressed_call absent: " in quick.log), quick.log


def test_fork_child_faults_at_least_its_writes(quick):
    value, unit = figure(quick, "fork.4k.fork_us")
    assert unit == "us" and value > 0
    faults, unit = figure(quick, "fork.4k.fork_child_minflt")
    assert unit == "count" and faults >= 8, faults


def test_exec_ran_its_program_every_time(quick):
    value, unit = figure(quick, "exec.4k.exec_us")
    assert unit == "us" and value > 0
    value, unit = figure(quick, "exec.4k.sh_us")
    assert unit == "us" and value > 0
    runs = {m[2]: (int(m[1]), int(m[3])) for m in EXECS.finditer(quick.log)}
    assert sorted(runs) == ["programs", "shells running the program"], quick.log
    assert all(executed > 0 and ran == executed for executed, ran in runs.values()), runs


def test_hello_is_static_and_exits_42():
    hello = os.path.join(TOP, "build", "sandbox", "hello")
    p = subprocess.run([hello], capture_output=True, text=True, timeout=10)
    assert p.returncode == 42 and p.stdout == "Hello world\n"
    # Static: no program header asks for a dynamic loader (PT_INTERP).
    with open(hello, "rb") as f:
        elf = f.read()
    assert elf[:5] == b"\x7fELF\x02"                    # ELF64 (x86-64)
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    types = [struct.unpack_from("<I", elf, phoff + i * phentsize)[0] for i in range(phnum)]
    assert types and 3 not in types, types


def test_mmap_of_a_file_faults(quick):
    value, unit = figure(quick, "mmap.4k.mmap_us")
    assert unit == "us" and value > 0
    faults, _ = figure(quick, "mmap.4k.mmap_minflt")
    assert faults >= 1


def test_exec_without_hello_fails_with_the_reason(tmp_path):
    exe = tmp_path / "mmubench"
    shutil.copy(SANDBOX, exe)
    run = run_sandbox("probes=exec", "modes=4k", "quick", exe=str(exe))
    assert run.rc != 0 and run.results["exec.4k"] == "not ok", run.log[-2000:]
    assert "(make sandbox builds it)" in run.log


@pytest.mark.parametrize("args, message", [
    (("fork_kb=8", "fork_writes=3"), r"fork_writes=3: more than fork_kb=8 has pages \(2\)"),
])
def test_fork_writes_beyond_the_working_set_fail(args, message):
    run = run_sandbox("probes=fork", "modes=4k", "quick", *args)
    assert run.rc != 0 and run.results["fork.4k"] == "not ok"
    assert re.search(message, run.log), run.log[-2000:]


@pytest.mark.parametrize("arg", ["fork_kb=2", "mmap_kb=4096", "trap_kb=65", "trap_pages=x"])
def test_bad_arguments_are_errors(arg):
    p = subprocess.run([SANDBOX, "probes=fork", "modes=4k", arg], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode != 0 and arg.split("=")[0] in p.stdout + p.stderr


# ---- pipe, ctx, signal, pagefault: LMbench's methods under Linux ----------

LMB_PROBES = ("pipe", "ctx", "signal", "pagefault")
QUICK_CTX = [(2, 0), (2, 64), (16, 64)]          # tests/ctx.c's quick columns
RING = re.compile(r"# (ctx|pipe)\.(\w+): (?:(\d+)p_(\d+)k|pipe): (\d+) rounds, (\d+) hops, "
                  r"(\d+) context switches, children reaped (\d+)")


@pytest.fixture(scope="module")
def lmb(tmp_path_factory):
    """Every sandbox mode; a small ram= so that hugetlb runs wherever the
    host has a few dozen huge pages."""
    run = run_sandbox("probes=" + ",".join(LMB_PROBES), "modes=all", "quick", "ram=64M")
    assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    path = tmp_path_factory.mktemp("lmb") / "sandbox.log"
    path.write_text(run.log)
    modes = [k.split(".", 1)[1] for k in run.results if k.startswith("pipe.")]
    assert modes == ["4k", "thp", "hugetlb"], run.results
    ran = [m for m in modes if run.results[f"pipe.{m}"] == "ok"]
    return run, str(path), ran


def test_lmbench_probes_run_in_every_mode_the_host_offers(lmb):
    """Each mode runs all four, or skips all four for the mode's own reason
    (the host's THP setting or its huge pages), never the probe's."""
    run, _, ran = lmb
    assert "4k" in ran
    for mode in ("4k", "thp", "hugetlb"):
        results = {run.results[f"{p}.{mode}"] for p in LMB_PROBES}
        if mode in ran:
            assert results == {"ok"}, (mode, run.results)
        else:
            assert results == {"skip"}, (mode, run.results)
            why = {run.skips[f"{p}.{mode}"] for p in LMB_PROBES}
            assert len(why) == 1 and re.search(r"THP|huge pages", why.pop()), run.skips


def test_lmbench_figures_present_and_positive(lmb):
    run, _, ran = lmb
    for mode in ran:
        for name in ("pipe.%s.pipe_ns", "signal.%s.catch_ns", "signal.%s.prot_ns",
                     "pagefault.%s.pagefault_ns"):
            value, unit = figure(run, name % mode)
            assert unit == "ns" and value > 0, name % mode
        for n, k in QUICK_CTX:
            # A figure only where the round outlasted its overhead (as lat_ctx).
            name = f"ctx.{mode}.{n}p_{k}k_ns"
            assert (name in run.measurements and run.value(name) > 0) or \
                f"ctx.{mode}: {n}p_{k}k: a round took no longer than its overhead" in run.log
        # The old homes of these figures are empty: one name each.
        assert f"demand.{mode}.lat_sig_catch_ns" not in run.measurements
        print(mode, {m: v for m, (v, _) in run.measurements.items()
                     if m.split(".")[1] == mode and m.endswith("_ns")})


def test_rings_count_every_hop_and_switch(lmb):
    """The token: each process adds one, so hops = N x rounds; the N - 1
    children reaped; pinned to one CPU, every hop is a switch of one of the
    ring's processes (at most N hops without one: the last round's)."""
    run, _, ran = lmb
    assert re.search(r"# cpu: pinned to CPU \d+", run.log)
    rings = {}
    for m in RING.finditer(run.log):
        n, k = (int(m[3]), int(m[4])) if m[1] == "ctx" else (2, 0)
        rings[(m[1], m[2], n, k)] = [int(x) for x in m.groups()[4:]]
    want = {("pipe", mode, 2, 0) for mode in ran} | \
        {("ctx", mode, n, k) for mode in ran for n, k in QUICK_CTX}
    assert set(rings) == want, run.log[-3000:]
    for (probe, mode, n, k), (rounds, hops, switches, reaped) in rings.items():
        assert rounds > 0 and hops == n * rounds, (probe, mode, n, k, rounds, hops)
        assert switches >= hops - n, (probe, mode, n, k, hops, switches)
        assert reaped == n - 1


def test_mmureport_fills_lmbench_columns_per_mode(lmb):
    """Context switching, Pipe, sig hndl, Prot Fault and Page Fault of each
    sandbox row, in us, from the new names."""
    run, path, ran = lmb
    p = subprocess.run([os.path.join(TOP, "build", "tools", "mmureport"), "--lmbench", path],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    t, m = tables(p.stdout), run.measurements

    def want(metric, width):
        return num(m[metric][0] / 1000, width) if metric in m else ""

    rows = {mode: cells for _, mode, cells in t["Processor, Processes"]}
    for mode in ran:
        assert rows[mode][7] == want(f"signal.{mode}.catch_ns", 4) != ""
    rows = {mode: cells for _, mode, cells in t["File & VM system latencies"]}
    for mode in ran:
        assert rows[mode][5:] == [want(f"signal.{mode}.prot_ns", 5),
                                  want(f"pagefault.{mode}.pagefault_ns", 5)]
        assert "" not in rows[mode][5:]
    rows = {mode: cells for _, mode, cells in t["Context switching"]}
    lat = {mode: cells for _, mode, cells in t["*Local* Communication latencies"]}
    for mode in ran:
        assert rows[mode] == [want(f"ctx.{mode}.{nk}_ns", w) for nk, w in
                              (("2p_0k", 5), ("2p_16k", 6), ("2p_64k", 6), ("8p_16k", 6),
                               ("8p_64k", 6), ("16p_16k", 7), ("16p_64k", 7))]
        assert rows[mode][0] != "" or f"ctx.{mode}: 2p_0k: a round took no longer" in run.log
        assert lat[mode][:2] == [rows[mode][0], want(f"pipe.{mode}.pipe_ns", 5)]
        assert lat[mode][1] != ""


@pytest.mark.parametrize("probe, arg", [("pipe", "pipe_bad=eof"),
                                        ("pagefault", "pagefault_bad=unmap")])
def test_bad_inputs_of_our_kernel_are_not_linuxs(probe, arg):
    """The boards' bad-input tests exercise our kernel; under Linux there is
    none of it to refuse: a SKIP that says so, not a pass."""
    run = run_sandbox(f"probes={probe}", "modes=4k", "quick", arg)
    assert run.results[f"{probe}.4k"] == "skip", run.log[-2000:]
    assert "not our kernel's" in run.skips[f"{probe}.4k"]
