"""--help on every tool and the sandbox program: usage on stdout, exit 0,
nothing started (no build, no QEMU, no suite); make help; make run ARGS."""
import os
import shutil
import stat
import subprocess

import pytest

from conftest import TOP

SCRIPTS = ["run-qemu", "run-suite", "supervise", "bench", "sandbox-sizes", "install-deps",
           "build-newlib", "suite-progress", "model-summary", "model-ratios"]
PROGRAMS = ["console", "mmuguess", "logcheck", "pagechase", "cpuiddecode", "mmureport",
            "mmureport-core"]
# What starting something would run first: each stands in on PATH, notes its
# name and fails.  timeout starts the sandbox in run-suite, python3 the size
# judge in bench, sudo/apt-get/dpkg-query install-deps, tar build-newlib.
STARTERS = ["make", "qemu-system-ppc", "qemu-system-i386", "timeout", "python3", "sudo",
            "apt-get", "dpkg-query", "tar", "mkimage", "gcc", "cc", "clang"]


def write_exe(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


@pytest.fixture
def stub_path(tmp_path):
    """A PATH whose first folder holds the starters; returns (env, log)."""
    bindir, log = tmp_path / "bin", tmp_path / "started"
    bindir.mkdir()
    for name in STARTERS:
        write_exe(bindir / name, '#!/bin/sh\necho "%s $*" >> "%s"\nexit 1\n' % (name, log))
    env = dict(os.environ, PATH="%s:%s" % (bindir, os.environ["PATH"]))
    return env, log


def check_help(cmd, env, log):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20, env=env, cwd=TOP)
    assert p.returncode == 0, (cmd, p.returncode, p.stderr)
    assert "usage" in p.stdout.lower(), (cmd, p.stdout)
    assert not log.exists(), "%s started: %s" % (cmd, log.read_text())
    return p


@pytest.mark.parametrize("tool", SCRIPTS)
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_script_help(tool, flag, stub_path):
    check_help([os.path.join(TOP, "tools", tool), flag], *stub_path)


def test_run_qemu_help_after_board(stub_path):
    """--help among the options, after the board, too (it said 'unknown board')."""
    p = check_help([os.path.join(TOP, "tools", "run-qemu"), "ref405ep", "--help"], *stub_path)
    assert "--icount" in p.stdout


@pytest.mark.parametrize("tool", PROGRAMS)
def test_program_help(tool, stub_path):
    check_help([os.path.join(TOP, "build", "tools", tool), "--help"], *stub_path)


def test_sandbox_help(stub_path):
    """The sandbox program: its usage and keys, no run (no KTAP, no banner)."""
    p = check_help([os.path.join(TOP, "build", "sandbox", "mmubench"), "--help"], *stub_path)
    assert "KTAP" not in p.stdout and "# mmubench" not in p.stdout, p.stdout
    assert "  probes " in p.stdout and "  mem " in p.stdout and "console=" in p.stdout


def test_bad_options_still_fail(stub_path):
    """Usage errors keep a failing status and stderr."""
    env, log = stub_path
    for cmd in (["tools/run-suite", "--tcg"], ["tools/bench", "x"], ["build/tools/logcheck", "-x"],
                ["build/tools/mmureport", "--bogus"], ["tools/run-qemu"]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=20, env=env, cwd=TOP)
        assert p.returncode != 0 and "usage" in p.stderr.lower(), (cmd, p.returncode, p.stderr)
    assert not log.exists(), log.read_text()


@pytest.mark.parametrize("cmd", [["tools/build-newlib", "--bogus"],
                                 ["tools/build-newlib", "--bogus", "build/x"],
                                 ["build/tools/cpuiddecode", "--bogus"],
                                 ["lab/lava/fetch-templates", "--bogus"],
                                 ["tools/suite-progress", "--bogus"],
                                 ["tools/suite-progress", "--verbose", "--bogus", "ref405ep"]])
def test_unknown_option_named(cmd, stub_path):
    """An unknown option is named as one, with the usage, and fails (2, each
    one's usage error): not a file, an arch or a board of that name
    (suite-progress took it for a board, read stdin and exited 0)."""
    env, log = stub_path
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=20, env=env, cwd=TOP,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 2 and p.stdout == "", (cmd, p.returncode, p.stdout, p.stderr)
    assert "unknown option '--bogus'" in p.stderr and "usage: " in p.stderr, p.stderr
    assert not log.exists(), log.read_text()


def test_sandbox_usage_error_on_stderr():
    """The sandbox program's bad boot argument: the error and the valid keys
    on stderr, the report (one failed result) on stdout as on a board's
    console, exit 1; a good run leaves stderr empty."""
    sandbox = os.path.join(TOP, "build", "sandbox", "mmubench")
    p = subprocess.run([sandbox, "probes=boot", "bogus=1"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1, p
    assert p.stderr.startswith("mmubench: error: unknown boot argument 'bogus=1'; valid keys:\n")
    assert "  probes " in p.stderr and "KTAP" not in p.stderr and "\n\n" not in p.stderr
    assert "unknown boot argument 'bogus=1'" in p.stdout, p.stdout
    assert "\n# mmubench status: fail  @" in p.stdout, p.stdout
    p = subprocess.run([sandbox, "ram=3M", "probes=boot"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 1 and p.stderr == ("mmubench: error: boot argument 'ram=3M': not a "
                                             "multiple of 2 MiB (thp and hugetlb map RAM in "
                                             "2 MiB pages)\n"), p.stderr
    p = subprocess.run([sandbox, "probes=boot", "modes=4k", "quick"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0 and p.stderr == "" and "KTAP version 1\n" in p.stdout, p.stderr


def test_make_help():
    p = subprocess.run(["make", "-s", "help"], capture_output=True, text=True, timeout=20, cwd=TOP)
    assert p.returncode == 0 and p.stdout.startswith("usage: make"), p.stdout
    for word in ("all", "tools", "shims", "fuzz", "run", "check", "clean", "netboot", "help",
                 "BOARD=", "ARGS=", "MODEL=1", "BOOTARGS=", "V=1"):
        assert "  " + word in p.stdout, word
    # run-suite's boards, all of them (it said "ref405ep, pc and the sandbox").
    run = next(line for line in p.stdout.splitlines() if line.startswith("  run "))
    assert all(b in run for b in ("ref405ep", "ppce500", "pc", "sandbox")), run
    with open(os.path.join(TOP, "Makefile")) as f:
        head = f.read().split("\n\n", 1)[0]
    assert "both architectures" not in head and "ppce500" in head, head


def test_make_run_passes_args():
    """make run ARGS='...' hands the words to tools/run-suite (dry run)."""
    p = subprocess.run(["make", "-n", "run", "ARGS=quick modes=normal"], capture_output=True,
                       text=True, timeout=60, cwd=TOP)
    assert p.returncode == 0, p.stderr
    assert "tools/run-suite quick modes=normal" in p.stdout.splitlines(), p.stdout
    p = subprocess.run(["make", "-n", "run", "MODEL=1", "ARGS=quick"], capture_output=True,
                       text=True, timeout=60, cwd=TOP)
    assert "tools/run-suite --model quick" in p.stdout.splitlines(), p.stdout


def test_run_suite_passes_boot_args(tmp_path):
    """tools/run-suite gives its words to run-qemu on the boards and to the
    sandbox (its own reps= added only where reps= is absent); run in a copy of the
    tree's tools/ whose runners only note their arguments."""
    tools, sandbox, host = tmp_path / "tools", tmp_path / "build/sandbox", tmp_path / "build/tools"
    for d in (tools, sandbox, host):
        d.mkdir(parents=True)
    shutil.copy(os.path.join(TOP, "tools", "run-suite"), tools)
    shutil.copy(os.path.join(TOP, "tools", "suite-progress"), tools)
    shutil.copy(os.path.join(TOP, "tools", "suite-summary"), tools)
    shutil.copy(os.path.join(TOP, "tools", "supervise"), tools)
    log = tmp_path / "calls"
    note = '#!/bin/sh\necho "%s $*" >> "%s"\n' % ("{}", log)
    # A run's console as suite-progress reads it: a plan, a result, the status.
    console = 'printf "1..1\\nok 1 boot.x\\n# mmubench status: pass\\n"\n'
    write_exe(tools / "run-qemu", note.format("run-qemu") + console)
    write_exe(sandbox / "mmubench", note.format("mmubench") + console)
    write_exe(host / "logcheck", note.format("logcheck"))
    # mmureport: its --json FILE no runs and no comparisons.
    write_exe(host / "mmureport", note.format("mmureport") + 'while [ $# -gt 1 ]; do [ "$1" = --json ] &&'
              ' echo \'{"runs": [], "tables": [], "comparisons": []}\' > "$2"; shift; done\n')
    p = subprocess.run([str(tools / "run-suite"), "quick", "probes=boot", "reps=2"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    calls = log.read_text().splitlines()
    # Not runs: the KVM check, and the sandbox asked how many huge pages
    # hugetlb needs (root).
    runs = [c for c in calls if c.startswith(("run-qemu", "mmubench")) and "--kvm-check" not in c
            and not c.endswith("probes=boot modes=hugetlb reps=1")]
    assert len(runs) == 4, calls
    for c in runs:
        assert c.endswith(" quick probes=boot reps=2"), c
    # The three QEMU boards (ref405ep, ppce500, pc), the sandbox after them.
    assert sorted(runs[:3]) == sorted(c for c in runs if c.startswith("run-qemu")), runs
    assert any(c.startswith("run-qemu ref405ep ") and "--icount" in c for c in runs[:3]), runs
    assert any(c.startswith("run-qemu ppce500 ") and "--icount" in c for c in runs[:3]), runs
    assert any(c.startswith("run-qemu pc ") for c in runs[:3]), runs
    assert runs[3].startswith("mmubench "), runs
