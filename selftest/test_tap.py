"""A log to TAP consumers through `logcheck --ktap` / `--tap`
(doc/result-format.md, "A TAP consumer"): Python's tappy, Perl's
TAP::Parser and, where a Debian linux-source tarball is present, the
kernel's kunit.py count what the log's `# Totals:` line says.  Log text
never reaches a shell: the consumers get a file name as an argument."""
import glob
import os
import re
import subprocess
import sys
import tarfile

import pytest

from conftest import LOGCHECK, SANDBOX, TOP

DATA = os.path.join(TOP, "selftest", "data")
RECORDED = {
    "sandbox": os.path.join(DATA, "epyc-zen4-sandbox-lat_mem.log"),  # seals of the older form
    "ref405ep": os.path.join(DATA, "report", "ref405ep-quick.log"),
    "pc": os.path.join(DATA, "report", "pc-quick.log"),              # SeaBIOS's screen before
}
TOTALS = re.compile(r"# Totals: pass:(\d+) fail:(\d+) skip:(\d+)")
# tappy's own entry point (Debian's python3-tap has no tappy command).
TAPPY = [sys.executable, "-c", "import sys, tap.main; sys.exit(tap.main.main(sys.argv))"]
# TAP::Parser on a file named *.tap (any other name it would run as Perl).
PERL_COUNTS = r"""
use TAP::Parser;
my $p = TAP::Parser->new({ source => $ARGV[0] });
1 while $p->next;
printf "passed=%d failed=%d skipped=%d planned=%d run=%d errors=%d\n",
    scalar($p->passed), scalar($p->failed), scalar($p->skipped),
    $p->tests_planned // -1, $p->tests_run, scalar($p->parse_errors);
"""


def totals(text):
    m = TOTALS.findall(text)
    assert len(m) >= 1, "no Totals line"
    return tuple(int(x) for x in m[0])


def logcheck(option, path, out):
    with open(out, "wb") as f:
        p = subprocess.run([LOGCHECK, option, path], stdout=f, stderr=subprocess.PIPE,
                           timeout=60)
    return p.returncode, p.stderr.decode(errors="replace")


def tappy(path):
    """tappy's counts: (tests run, failures, skipped), from unittest's summary."""
    pytest.importorskip("tap", reason="tappy missing (Debian package python3-tap)")
    p = subprocess.run(TAPPY + [path], capture_output=True, text=True, timeout=60)
    ran = re.search(r"^Ran (\d+) tests?", p.stderr, re.M)
    end = re.search(r"^(OK|FAILED)(?: \((.*)\))?$", p.stderr, re.M)
    assert ran and end, p.stderr
    counts = dict(kv.split("=") for kv in (end.group(2) or "").split(", ") if kv)
    assert "errors" not in counts, p.stderr
    assert p.returncode == (0 if end.group(1) == "OK" else 1), p.stderr
    return int(ran.group(1)), int(counts.get("failures", 0)), int(counts.get("skipped", 0))


def tap_parser(path):
    assert path.endswith(".tap")
    p = subprocess.run(["perl", "-e", PERL_COUNTS, path], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    return dict((k, int(v)) for k, v in re.findall(r"(\w+)=(-?\d+)", p.stdout))


def check_consumers(log, tmp_path, expect_rc):
    """logcheck --ktap and --tap on LOG, tappy and TAP::Parser on what they
    print: their counts are the Totals line's."""
    with open(log, errors="replace") as f:
        npass, nfail, nskip = totals(f.read())
    ktap, tap = str(tmp_path / "run-ktap.tap"), str(tmp_path / "run.tap")
    assert logcheck("--ktap", log, ktap)[0] == expect_rc
    assert logcheck("--tap", log, tap)[0] == expect_rc
    text = open(ktap).read()
    assert text.startswith("KTAP version 1\n") and open(tap).read() == text.split("\n", 1)[1]
    assert text.rstrip("\n").splitlines()[-1].startswith("# mmubench status: ")
    assert not re.search(r"  @\d+:[0-9a-f]{8}$|^# @\d+:", text, re.M), "a seal left"
    ran, failures, skipped = tappy(tap)
    assert (ran, failures, skipped) == (npass + nfail + nskip, nfail, nskip)
    for path in (ktap, tap):
        c = tap_parser(path)
        assert c["errors"] == 0 and c["planned"] == c["run"] == npass + nfail + nskip, c
        assert (c["passed"] - c["skipped"], c["failed"], c["skipped"]) == (npass, nfail, nskip), c
    return npass, nfail, nskip


@pytest.mark.parametrize("board", sorted(RECORDED))
def test_recorded_logs_count_as_their_totals(board, tmp_path):
    check_consumers(RECORDED[board], tmp_path, 0)


def sandbox_run(tmp_path, *args):
    if not os.access(SANDBOX, os.X_OK):
        subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)
    log = tmp_path / "sandbox.log"
    with open(log, "wb") as f:
        p = subprocess.run([SANDBOX, *args], stdout=f, stderr=subprocess.PIPE, timeout=120)
    return str(log), p.returncode


def test_a_sandbox_run_counts_as_its_totals(tmp_path):
    """A fresh run (seals on the line after the KTAP lines), with a skip or not."""
    log, rc = sandbox_run(tmp_path, "probes=boot", "quick")
    assert rc == 0
    check_consumers(log, tmp_path, 0)


def test_failures_count_as_not_ok(tmp_path):
    """mmu_break=1: every translated mode's self-check fails: not ok lines."""
    log, rc = sandbox_run(tmp_path, "probes=boot", "quick", "mmu_break=1")
    assert rc == 1
    assert check_consumers(log, tmp_path, 1)[1] > 0


def test_garbage_before_the_header_and_a_prefix(tmp_path):
    """Loader lines that look like TAP, and a capture tool's timestamp on
    every line from the header on: --ktap prints the report as without them."""
    lines = open(RECORDED["ref405ep"]).read().splitlines(keepends=True)
    k = lines.index("KTAP version 1\n")
    stamped = ["[2026-12-01 10:%02d:%02d] " % (i // 60 % 60, i % 60) + line
               for i, line in enumerate(lines[k:])]
    garbage = ["U-Boot 2023.01\n", "1..4\n", "ok 1 loaded\n", "not ok 2 - env\n", "Bail out!\n"]
    log = tmp_path / "garbage.log"
    log.write_text("".join(garbage + lines[:k] + stamped + ["## U-Boot again\n", "1..9\n"]))
    clean, dirty = tmp_path / "clean.tap", tmp_path / "dirty.tap"
    assert logcheck("--ktap", RECORDED["ref405ep"], clean)[0] == 0
    assert logcheck("--ktap", str(log), dirty)[0] == 0
    assert dirty.read_bytes() == clean.read_bytes()
    assert check_consumers(str(log), tmp_path, 0) == totals(clean.read_text())


def test_several_reports_give_the_first(tmp_path):
    one = open(RECORDED["ref405ep"]).read()
    log = tmp_path / "twice.log"
    log.write_text(one + one.replace("ok 1 boot.", "not ok 1 boot.", 1))
    a, b = tmp_path / "a.tap", tmp_path / "b.tap"
    assert logcheck("--ktap", RECORDED["ref405ep"], a)[0] == 0
    assert logcheck("--ktap", str(log), b)[0] == 0
    assert a.read_bytes() == b.read_bytes()


def damaged(text):
    """The ref405ep log, a result changed (its seal no longer fits), a line
    lost, and cut short."""
    lines = text.splitlines(keepends=True)
    i = next(k for k, line in enumerate(lines) if line.startswith("ok 3 "))
    j = next(k for k, line in enumerate(lines) if line.startswith("# measurement "))
    yield "changed", "".join(lines[:i] + ["not " + lines[i]] + lines[i + 1:])
    yield "lost", "".join(lines[:j] + lines[j + 1:])
    yield "cut", "".join(lines[:len(lines) // 2])


@pytest.mark.parametrize("option", ["--ktap", "--tap"])
def test_a_damaged_log_fails_and_prints_nothing(option, tmp_path):
    for what, text in damaged(open(RECORDED["ref405ep"]).read()):
        log = tmp_path / f"{what}.log"
        log.write_text(text)
        rc, err = logcheck(option, str(log), tmp_path / "out.tap")
        assert rc == 2 and (tmp_path / "out.tap").read_bytes() == b"", (what, err)


def test_usage_errors():
    for args in (["--ktap", "--json"], ["--tap", "--ktap"], ["--echo", "--tap"], ["--kt"]):
        p = subprocess.run([LOGCHECK, *args, RECORDED["ref405ep"]], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 3 and "usage" in p.stderr and p.stdout == "", (args, p)


def kunit_tarball():
    found = sorted(glob.glob("/usr/src/linux-source-*.tar.*"))
    return found[-1] if found else None


@pytest.fixture(scope="module")
def kunit_py(tmp_path_factory):
    """tools/testing/kunit out of Debian's linux-source tarball, once."""
    if not kunit_tarball():
        pytest.skip("no /usr/src/linux-source-*.tar.* (Debian package linux-source): "
                    "kunit.py parse not run; it is not downloaded")
    src = tmp_path_factory.mktemp("kunit")
    with tarfile.open(kunit_tarball()) as t:
        t.extractall(src, members=[m for m in t if "/tools/testing/kunit/" in m.name
                                   and (m.isfile() or m.isdir())])
    found = glob.glob(str(src / "*" / "tools" / "testing" / "kunit" / "kunit.py"))
    assert found, "no tools/testing/kunit/kunit.py in " + kunit_tarball()
    return found[0]


@pytest.mark.parametrize("board", sorted(RECORDED))
def test_kunit_parse(board, kunit_py, tmp_path):
    """Optional: the kernel's kunit.py parse on --ktap's output."""
    with open(RECORDED[board], errors="replace") as f:
        npass, nfail, nskip = totals(f.read())
    out = str(tmp_path / "run.tap")
    assert logcheck("--ktap", RECORDED[board], out)[0] == 0
    p = subprocess.run([sys.executable, kunit_py, "parse", out], capture_output=True,
                       text=True, timeout=120, cwd=os.path.dirname(kunit_py))
    # "Testing complete. Ran 56 tests: passed: 53, skipped: 3" (colours aside)
    m = re.search(r"Ran (\d+) tests?: ([a-z: ,0-9]*)", p.stdout)
    assert m, p.stdout + p.stderr
    counts = dict((k, int(v)) for k, v in re.findall(r"(\w+): (\d+)", m.group(2)))
    assert int(m.group(1)) == npass + nfail + nskip, p.stdout
    assert (counts.get("passed", 0), counts.get("failed", 0), counts.get("skipped", 0)) == \
        (npass, nfail, nskip), p.stdout
    assert not counts.get("errors") and not counts.get("crashed"), p.stdout
