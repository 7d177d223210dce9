"""The process probes in the sandbox (tests/trap.c, fork.c, exec.c, mmap.c
over arch/sandbox/os_proc.c): LMbench's methods under Linux (getppid,
fork+_exit+wait, fork+execve of build/sandbox/hello+wait, a file's
mmap/munmap), their figures present, the relations that hold whatever the
machine's speed (a child that writes W pages of a copy-on-write working set
takes at least W faults; every program executed ran: its exit status says
so), and bad input refused with the reason."""
import os
import re
import shutil
import struct
import subprocess

import pytest

from conftest import SANDBOX, TOP, run_sandbox

EXECS = re.compile(r"# exec\.4k: (\d+) (programs|shells running the program) executed, (\d+) "
                   r"exited with the status that says it ran")


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)


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
