"""logcheck on hostile input: whole lines of any length, a NUL anywhere
is damage, and its complaints capped with how many more there were."""
import os
import subprocess

from conftest import TOP

LOGCHECK = os.path.join(TOP, "build", "tools", "logcheck")
GOOD = open(os.path.join(TOP, "selftest", "data", "report", "ref405ep-quick.log"), "rb").read()


def check(data):
    p = subprocess.run([LOGCHECK], input=data, capture_output=True, timeout=60)
    return p.returncode, p.stderr.decode(errors="replace").splitlines()


def test_the_recorded_log_is_intact():
    rc, err = check(GOOD)
    assert rc == 0 and err[-1].startswith("logcheck: intact: "), err


def test_a_nul_after_a_seal_is_damage():
    lines = GOOD.split(b"\n")
    i = next(k for k, line in enumerate(lines) if line.startswith(b"ok 1 "))
    rc, err = check(b"\n".join(lines[:i] + [lines[i] + b"\0tail"] + lines[i + 1:]))
    assert rc == 2 and any("CRC mismatch" in e for e in err), err


def test_a_10_mb_line_is_one_line_named_by_its_length():
    rc, err = check(GOOD.replace(b"\nok 1 ", b"\n" + b"A" * 10_000_000 + b"\nok 1 ", 1))
    assert rc == 2, err
    assert len(err) == 2 and "(10000000 bytes)" in err[0] and len(err[0]) < 300, err


def test_complaints_are_capped_and_counted():
    rc, err = check(b"KTAP version 1\n" + b"".join(b"garbage %d\n" % k for k in range(100)))
    assert rc == 2 and len(err) <= 24, err
    assert err[-1] == "logcheck: ... and 80 more problems not listed", err
