"""tools/console against a pty pair (the test plays the board on the
master side), standard input, and QEMU's U-Boot on a pty (--uboot): a
complete log and the run's status, a stalled run ended at the timeout, a
reset in the middle reported, a vanished or missing device."""
import json
import os
import re
import subprocess
import time
import tty

import pytest

from conftest import run_qemu
from netboot import CI_ARGS, CONSOLE, UBOOT_ROM, make_netboot


@pytest.fixture(scope="module")
def logs():
    """Two logs captured now: a passing quick run and a crashing one."""
    good = run_qemu("ref405ep", "quick", "probes=boot", timeout=60)
    assert good.rc == 0, good.stderr
    bad = run_qemu("ref405ep", "crash=data", timeout=60)
    assert bad.rc == 1, bad.stderr
    # As a board sends them: CR LF line ends.
    return {k: r.log.replace("\n", "\r\n").encode() for k, r in (("pass", good), ("fail", bad))}


class Board:
    """The master side of a pty; console gets the slave's path."""

    def __init__(self, tmp_path, *args, timeout=20):
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self.logfile = tmp_path / "console.log"
        self.proc = subprocess.Popen([CONSOLE, "--timeout", str(timeout), "--log",
                                      str(self.logfile), *args, self.path],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     errors="replace")
        os.close(slave)
        time.sleep(0.3)     # console opens the slave and sets it raw

    def send(self, data, chunk=512):
        for i in range(0, len(data), chunk):
            os.write(self.master, data[i:i + chunk])
            time.sleep(0.002)

    def wait(self, timeout=40):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def close(self):
        if self.master is not None:
            os.close(self.master)
            self.master = None


def half(log):
    """The log cut in the middle of the measurements."""
    lines = log.splitlines(keepends=True)
    cut = next(i for i, l in enumerate(lines) if b"# measurement " in l) + 3
    return b"".join(lines[:cut])


@pytest.mark.parametrize("status,rc", [("pass", 0), ("fail", 1)])
def test_pty_complete_log_and_status(tmp_path, logs, status, rc):
    board = Board(tmp_path)
    before = b"U-Boot 2023.01\r\n=> go 0x400000\r\n"
    board.send(before + logs[status])
    code, out, err = board.wait()
    board.close()
    assert code == rc, err
    assert "console: intact:" in err and f"status {status}" in err, err
    # Everything sent up to the status line is in the log (in one piece)
    # and echoed; what came after it in the same read may be there too.
    sent = before + logs[status]
    end = sent.index(b"# mmubench status: ")
    end = sent.index(b"\n", end) + 1
    got = board.logfile.read_bytes()
    assert got.startswith(sent[:end]) and sent.startswith(got)
    assert sent[:end].decode() in out.replace("\r\n", "\n").replace("\n", "\r\n")


def test_pty_stalled_run_times_out(tmp_path, logs):
    board = Board(tmp_path, timeout=2)
    start = time.monotonic()
    board.send(half(logs["pass"]))
    code, _, err = board.wait()
    board.close()
    assert code == 124, err
    assert "timed out after 2 s: the run stalled, no status line" in err, err
    assert time.monotonic() - start < 10
    assert board.logfile.read_bytes() == half(logs["pass"])


def test_pty_reset_mid_run_reported(tmp_path, logs):
    board = Board(tmp_path)
    banner = b"\r\n\r\nU-Boot 2023.01+dfsg-2+deb12u3 (Jun 22 2026 - 08:38:07 +0000)\r\n\r\nCPU: ...\r\n"
    board.send(half(logs["pass"]) + banner)
    code, _, err = board.wait()
    board.close()
    assert code == 2, err
    assert re.search(r"the board reset in the middle of the run, after line \d+ \(sequence \d+\): "
                     r"'U-Boot 2023.01", err), err
    assert board.logfile.read_bytes().startswith(half(logs["pass"]) + b"\r\n\r\nU-Boot 2023.01")


def test_pty_device_vanishes(tmp_path, logs):
    board = Board(tmp_path)
    board.send(half(logs["pass"]))
    time.sleep(0.3)
    board.close()
    code, _, err = board.wait()
    assert code == 2, err
    assert f"console: {board.path} vanished" in err, err
    assert "truncated: no status line" in err, err
    assert board.logfile.read_bytes() == half(logs["pass"])


def test_missing_device_and_bad_options(tmp_path):
    p = subprocess.run([CONSOLE, "/dev/ttyUSB-no-such"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 3 and "/dev/ttyUSB-no-such: No such file or directory" in p.stderr
    p = subprocess.run([CONSOLE, "--baud", "12345", "-"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 3 and "not a standard rate" in p.stderr
    p = subprocess.run([CONSOLE, "/dev/null"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 3 and "/dev/null: not a terminal" in p.stderr
    p = subprocess.run([CONSOLE, "--uboot", "go 0", "-"], capture_output=True, text=True, timeout=10)
    assert p.returncode == 3 and "--uboot needs a device" in p.stderr


def test_stdin_complete_and_truncated(tmp_path, logs):
    p = subprocess.run([CONSOLE, "--quiet", "-"], input=logs["pass"], capture_output=True,
                       timeout=20)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([CONSOLE, "--quiet", "-"], input=half(logs["pass"]), capture_output=True,
                       timeout=20)
    assert p.returncode == 2, p.stderr
    assert b"standard input ended" in p.stderr and b"truncated" in p.stderr


def test_uboot_driven_over_a_pty(tmp_path):
    """--uboot stops U-Boot's autoboot and types the commands at its
    prompt: DHCP, the board's boot script over TFTP, source."""
    if not os.path.exists(UBOOT_ROM):
        pytest.skip(f"{UBOOT_ROM} missing (Debian package u-boot-qemu)")
    netdir = make_netboot(tmp_path / "tftp", "quick probes=boot modes=flat,pae2m exit=qemu")
    # Started stopped (-S): QMP's cont once console has the pty open.
    q = subprocess.Popen(["qemu-system-i386", "-bios", UBOOT_ROM, "-m", "256", "-vga", "none",
                          "-no-reboot",  # -vga none: netboot.py says why
                          "-display", "none", "-S", "-qmp", "stdio", "-monitor", "none",
                          "-chardev", "pty,id=s0", "-serial", "chardev:s0",
                          "-netdev", f"user,id=n0,tftp={netdir}", "-device", "e1000,netdev=n0",
                          "-device", "isa-debug-exit,iobase=0xf4,iosize=1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = q.stdout.readline()     # QEMU 7.2 says it on stdout
        m = re.search(r"char device redirected to (/dev/pts/\d+)", line)
        assert m, line
        c = subprocess.Popen([CONSOLE, "--quiet", "--timeout", "40", "--log",
                              str(tmp_path / "console.log"), "--uboot",
                              "setenv autoload no; dhcp; tftp ${scriptaddr} boot.scr.uimg; "
                              "source ${scriptaddr}", m.group(1)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        q.stdin.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
        q.stdin.write(json.dumps({"execute": "cont"}) + "\n")
        q.stdin.flush()
        _, err = c.communicate(timeout=60)
    finally:
        q.kill()
        q.wait()
    log = (tmp_path / "console.log").read_text(errors="replace")
    assert c.returncode == 0, err + log
    assert "=> setenv autoload no" in log and "=> source ${scriptaddr}" in log, log
    assert "entered by U-Boot go" in log
    assert "console: intact:" in err
