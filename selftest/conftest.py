"""Shared helpers for the mmubench test suite: boot an image in QEMU through
tools/run-qemu and parse what it printed (through the result format's own
reader: `logcheck --json`, lib/linecheck.c and lib/result_parse.c)."""
import json
import os
import subprocess
import time
from dataclasses import dataclass, field

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_QEMU = os.path.join(TOP, "tools", "run-qemu")
LOGCHECK = os.path.join(TOP, "build", "tools", "logcheck")
SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


@dataclass
class Run:
    rc: int
    log: str
    stderr: str
    lines: list = field(default_factory=list)       # intact protected lines, suffix removed
    results: dict = field(default_factory=dict)     # "probe.mode" -> "ok"/"not ok"/"skip"
    skips: dict = field(default_factory=dict)       # "probe.mode" -> reason
    measurements: dict = field(default_factory=dict)  # "probe.mode.metric" -> (float, unit)
    samples: dict = field(default_factory=dict)     # ("probe.mode.metric", rep) -> float

    def value(self, name):
        assert name in self.measurements, f"no measurement {name} in:\n{self.log}"
        return self.measurements[name][0]

    def planned(self):
        """N of the plan line 1..N."""
        for line in self.lines:
            if line.startswith("1.."):
                return int(line[3:])
        return None

    def status(self):
        for line in self.lines:
            if line.startswith("# mmubench status: "):
                return line.split(": ", 1)[1]
        return None


def checked_lines(log):
    """The log's intact protected lines as logcheck --json reads them (dicts:
    text, kind, name, value, ...), and logcheck's exit status."""
    if not os.access(LOGCHECK, os.X_OK):
        raise RuntimeError(f"{LOGCHECK} is not built (make tools)")
    p = subprocess.run([LOGCHECK, "--json"], input=log.encode("utf-8", "replace"),
                       capture_output=True, timeout=60)
    return [json.loads(j) for j in p.stdout.decode().splitlines()], p.returncode


def parse(log):
    run = Run(rc=0, log=log, stderr="")
    for j in checked_lines(log)[0]:
        run.lines.append(j["text"])
        if j["kind"] == "measurement":
            run.measurements[j["name"]] = (float(j["value"]), j["unit"])
        elif j["kind"] == "sample":
            run.samples[(j["name"], j["rep"])] = float(j["value"])
        elif j["kind"] == "result":
            if j["directive"]:
                run.results[j["name"]] = j["directive"].lower()   # "skip", "timeout"
                run.skips[j["name"]] = j["reason"]
            else:
                run.results[j["name"]] = "ok" if j["ok"] else "not ok"
    return run


def elf_symbols(elf, nm="powerpc-linux-gnu-nm"):
    """name -> (address, size) of an image's symbols (nm -S; a symbol
    without a size: 4)."""
    out = subprocess.run([nm, "-S", elf], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:
            syms[f[3]] = (int(f[0], 16), int(f[1], 16))
        elif len(f) == 3:
            syms.setdefault(f[2], (int(f[0], 16), 4))
    return syms


def run_qemu(board, *args, icount=True, tcg=False, mem=None, timeout=60, extra=()):
    """Boot `board` with boot arguments `args`; returns a parsed Run.
    The test's own subprocess timeout backs up run-qemu's."""
    cmd = [RUN_QEMU, board, "--timeout", str(timeout)]
    if icount:
        cmd.append("--icount")
    if tcg:
        cmd.append("--tcg")
    if mem:
        cmd += ["--mem", str(mem)]
    cmd += list(extra)
    cmd += list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 30,
                       errors="replace")
    run = parse(p.stdout)
    run.rc, run.stderr = p.returncode, p.stderr
    return run


def run_sandbox(*args, exe=SANDBOX, timeout=120):
    """Run the sandbox program (or `exe`) with boot arguments `args`; a
    parsed Run."""
    p = subprocess.run([exe, *args], capture_output=True, text=True, timeout=timeout,
                       errors="replace")
    run = parse(p.stdout)
    run.rc = p.returncode
    return run


def run_crash(board, kind, within, timeout=30):
    """crash=`kind` on `board`, which must end within `within` seconds:
    the dump and the exit, well before run-qemu's timeout."""
    start = time.monotonic()
    run = run_qemu(board, f"crash={kind}", timeout=timeout)
    assert time.monotonic() - start < within, "QEMU did not end well before its timeout"
    return run


def the_exception(run):
    """The one "# exception: " line of a register dump."""
    exc = [l for l in run.lines if l.startswith("# exception: ")]
    assert len(exc) == 1, "\n".join(run.lines)
    return exc[0]


def assert_crash_failed(run, kind):
    """How a run ends after an exception nothing took: status fail, the
    crash's result not ok, run-qemu's exit status 1."""
    assert run.status() == "fail" and run.results.get(f"crash.{kind}") == "not ok", run.log
    assert run.rc == 1, f"run-qemu exit {run.rc}\n{run.stderr}"


def assert_icount_runs(runs, probes, modes, *uncounted):
    """Two -icount runs of `probes` in `modes` (mode real among them): each
    passed with every probe ok in every mode, every figure the same in both
    (-icount makes counts and times exact), and in mode real no measurement
    whose name holds one of `uncounted` ("tlb", "fault"): nothing counts
    them there, so none is printed (not 0)."""
    for run in runs:
        assert run.status() == "pass" and run.rc == 0, run.log
        for p in probes:
            for m in modes:
                assert run.results.get(f"{p}.{m}") == "ok", (p, m, run.log)
    assert runs[0].measurements == runs[1].measurements
    real = [n for n in runs[0].measurements for p in probes
            if n.startswith(f"{p}.real.") and any(w in n for w in uncounted)]
    assert not real, real


def kvm_reason():
    """None when KVM can run the pc VM here, else why not (run-qemu's own
    check, with the machine and -cpu it would use)."""
    p = subprocess.run([RUN_QEMU, "--kvm-check"], capture_output=True, text=True, timeout=60)
    return None if p.returncode == 0 else (p.stdout.strip() or p.stderr.strip() or "?")


@pytest.fixture(scope="session")
def kvm():
    why = kvm_reason()
    if why:
        pytest.skip(f"needs KVM: {why}")
    return True


@pytest.fixture(scope="session", autouse=True)
def built():
    """Build every image, the host tools and the tests' stand-ins once,
    before any test."""
    subprocess.run(["make", "-s", "-C", TOP, "all", "tools", "shims"], check=True, timeout=900)
