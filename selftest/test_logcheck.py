"""logcheck on hostile input: whole lines of any length, a NUL anywhere
is damage, and its complaints capped with how many more there were."""
import os
import random
import subprocess

import pytest

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


# ---- logcheck and mmureport agree (issue 29) ----

def mutations(data, rnd):
    """Damage a lab or a transport does, each seeded: (name, bytes)."""
    lines = data.split(b"\n")
    i, j = rnd.randrange(len(lines)), rnd.randrange(len(lines))
    at = rnd.randrange(len(data))
    yield "intact", data
    yield "cut", data[:at]
    yield "line dropped", b"\n".join(lines[:i] + lines[i + 1:])
    yield "byte flipped", data[:at] + bytes([data[at] ^ 0x20]) + data[at + 1:]
    yield "NUL", data[:at] + b"\0" + data[at:]
    yield "stray bytes before KTAP", data.replace(b"KTAP version 1", b"\x01\xff junk KTAP version 1", 1)
    yield "line twice", b"\n".join(lines[:i] + [lines[i]] + lines[i:])
    yield "lines swapped", b"\n".join(lines[:min(i, j)] + [lines[max(i, j)]] + lines[min(i, j) + 1:max(i, j)]
                                      + [lines[min(i, j)]] + lines[max(i, j) + 1:]) if i != j else data
    yield "long line", b"\n".join(lines[:i] + [b"x" * 200000] + lines[i:])
    yield "CRLF", data.replace(b"\n", b"\r\n")
    yield "reset", b"\n".join(lines[:i] + [b"KTAP version 1"] + lines[i:])


@pytest.mark.parametrize("seed", range(6))
def test_logcheck_and_mmureport_agree(tmp_path, seed):
    """On every input: logcheck calls it intact (status 0 or 1) exactly when
    mmureport --strict reads every report in it whole (status 0)."""
    rnd = random.Random(seed)
    src = os.path.join(TOP, "selftest", "data", "report", ("pc-quick.log", "ref405ep-quick.log")[seed % 2])
    data = open(src, "rb").read()
    for name, bad in mutations(data, rnd):
        path = tmp_path / "log"
        path.write_bytes(bad)
        lc = subprocess.run([LOGCHECK, str(path)], capture_output=True, timeout=60)
        mr = subprocess.run([os.path.join(TOP, "build", "tools", "mmureport-core"), "--strict",
                             "--no-tables", str(path)], capture_output=True, timeout=60)
        assert lc.returncode != 3 and mr.returncode != 3, (name, lc.stderr, mr.stderr)
        assert (lc.returncode in (0, 1)) == (mr.returncode == 0), \
            (name, lc.returncode, mr.returncode, lc.stdout[-500:], mr.stderr[-1500:])
