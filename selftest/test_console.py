"""tools/console against a pty pair (the test plays the board on the
master side), standard input, and QEMU's U-Boot on a pty (--uboot): a
complete log and the run's status, a stalled run ended at the timeout, a
reset in the middle reported, a vanished or missing device."""
import json
import os
import re
import select
import subprocess
import time
import tty

import pytest

from conftest import TOP, parse, run_qemu
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


@pytest.mark.parametrize("said", ["Bad Data CRC", "Bad data crc", "bad data CRC"])
def test_loader_errors_in_any_case(said):
    """U-Boot's versions spell their errors differently: each is the loader's
    failure, status 3, not a log that merely ended."""
    text = f"U-Boot 2023.01\n## Booting kernel\n   Verifying Checksum ... {said}\n".encode()
    p = subprocess.run([CONSOLE, "--quiet", "-"], input=text, capture_output=True, timeout=20)
    assert p.returncode == 3, p.stderr
    assert b"the loader failed before the image started" in p.stderr, p.stderr


def uboot_pty_qemu(netdir, bios=UBOOT_ROM, stopped=True):
    """QEMU pc with U-Boot (or bios), its serial line on a pty; started
    stopped (-S: QMP's cont once console has the pty open) or running.
    Returns the process and the pty's path."""
    if not os.path.exists(UBOOT_ROM):
        pytest.skip(f"{UBOOT_ROM} missing (Debian package u-boot-qemu)")
    q = subprocess.Popen(["qemu-system-i386", "-bios", str(bios), "-m", "256", "-vga", "none",
                          "-no-reboot",  # -vga none: netboot.py says why
                          "-display", "none", *(["-S"] if stopped else []), "-qmp", "stdio",
                          "-monitor", "none", "-chardev", "pty,id=s0", "-serial", "chardev:s0",
                          "-netdev", f"user,id=n0,tftp={netdir}", "-device", "e1000,netdev=n0",
                          "-device", "isa-debug-exit,iobase=0xf4,iosize=1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    line = q.stdout.readline()     # QEMU 7.2 says it on stdout
    m = re.search(r"char device redirected to (/dev/pts/\d+)", line)
    if not m:
        q.kill()
        q.wait()
    assert m, line
    q.stdin.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
    q.stdin.flush()
    return q, m.group(1)


def uboot_console(tmp_path, netdir, cmds, *args, bios=UBOOT_ROM, timeout=40):
    """console --uboot CMDS on QEMU's U-Boot (started once console has the
    pty open); QEMU is left running until console has its verdict, to see
    that console ends on its own.  Returns (rc, stderr, log, QEMU still
    running when console ended)."""
    q, pty = uboot_pty_qemu(netdir, bios)
    try:
        c = subprocess.Popen([CONSOLE, "--quiet", "--timeout", str(timeout), "--log",
                              str(tmp_path / "console.log"), "--uboot", cmds, *args, pty],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        q.stdin.write(json.dumps({"execute": "cont"}) + "\n")
        q.stdin.flush()
        _, err = c.communicate(timeout=timeout + 20)
        running = q.poll() is None
    finally:
        q.kill()
        q.wait()
    log = (tmp_path / "console.log").read_text(errors="replace").replace("\r", "")
    return c.returncode, err, log, running


# The obvious recipe at qemu-x86's U-Boot prompt: its scriptaddr, DHCP, the
# boot script over TFTP.
RECIPE = "dhcp; tftp ${scriptaddr} boot.scr.uimg; source ${scriptaddr}"


def test_uboot_recipe_types_autoload_no_before_dhcp(tmp_path):
    """--uboot with the obvious recipe: console types `setenv autoload no`
    before dhcp (whose autoload would TFTP bzImage and fail), then the
    commands; the image returns to U-Boot (exit=return) and console ends at
    the status line with the run's status while QEMU still runs."""
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=return")
    rc, err, log, running = uboot_console(tmp_path, netdir, RECIPE)
    assert rc == 0, err + log
    assert "=> setenv autoload no\n=> dhcp\n" in log, log
    assert "=> tftp ${scriptaddr} boot.scr.uimg\n" in log and "=> source ${scriptaddr}\n" in log
    assert "bzImage" not in log, log
    assert "entered by U-Boot go" in log and "console: intact:" in err, err
    assert parse(log).status() == "pass"
    assert running, "console waited for QEMU to end"
    # Where the commands set autoload, console adds nothing.
    (tmp_path / "again").mkdir()
    rc, err, log, _ = uboot_console(tmp_path / "again", netdir, "setenv autoload no; " + RECIPE)
    assert rc == 0, err + log
    assert log.count("setenv autoload") == 1, log


STALL_ROM = bytes([0xEB, 0xFE]) * 32768     # jmp $ everywhere: no U-Boot, no output


def test_uboot_missed_no_prompt_fails(tmp_path):
    """--uboot on a machine that never shows U-Boot (a ROM that only loops):
    no countdown or prompt within --uboot-timeout, a clear message, exit 3,
    long before --timeout."""
    (tmp_path / "stall.rom").write_bytes(STALL_ROM)
    start = time.monotonic()
    rc, err, log, _ = uboot_console(tmp_path, tmp_path, RECIPE, "--uboot-timeout", "3",
                                    bios=tmp_path / "stall.rom", timeout=30)
    assert rc == 3, err
    assert ("console: autoboot missed: no U-Boot countdown ('stop autoboot') or prompt ('=> ') "
            "within 3 s (--uboot-timeout)") in err, err
    assert time.monotonic() - start < 15


def test_uboot_attached_after_autoboot_fails(tmp_path):
    """console started after U-Boot's countdown ran out: distro boot fetches
    boot.scr.uimg and starts the image on its own; console sees the report
    begin with none of its commands typed and fails (exit 3), not 0."""
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=qemu")
    q, pty = uboot_pty_qemu(netdir, stopped=False)
    try:
        fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
        tty.setraw(fd)
        seen, deadline = b"", time.monotonic() + 60
        # Read (and type nothing) until the countdown has run out and distro
        # boot is on to DHCP.
        while b"BOOTP broadcast" not in seen and time.monotonic() < deadline:
            r, _, _ = select.select([fd], [], [], 1)
            if r:
                seen += os.read(fd, 4096)
        assert b"Hit any key to stop autoboot" in seen and b"BOOTP broadcast" in seen, seen
        c = subprocess.Popen([CONSOLE, "--quiet", "--timeout", "60", "--log",
                              str(tmp_path / "console.log"), "--uboot", RECIPE, pty],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        os.close(fd)
        _, err = c.communicate(timeout=80)
    finally:
        q.kill()
        q.wait()
    log = (tmp_path / "console.log").read_text(errors="replace")
    assert c.returncode == 3, err + log
    assert "console: autoboot missed: the report started with 0 of 4 --uboot commands typed " \
           "(no countdown or prompt seen: attached late?)" in err, err
    assert "KTAP version 1" in log


def pipeline(cmd, timeout):
    """A shell pipeline, as a user types it; its status (console's), output
    and seconds taken."""
    start = time.monotonic()
    p = subprocess.run(["sh", "-c", cmd], capture_output=True, text=True, timeout=timeout,
                       start_new_session=True)
    return p, time.monotonic() - start


def test_pipe_ends_after_exit_halt(tmp_path):
    """`qemu ... -serial stdio | console -` with exit=halt: QEMU runs on with
    the CPU stopped; console ends it at the status line and the pipeline
    ends with the run's status."""
    make = subprocess.run(["make", "-s", "-C", TOP, "BOARD=pc"], capture_output=True, timeout=300)
    assert make.returncode == 0, make.stderr
    elf = os.path.join(TOP, "build", "pc", "mmubench.elf")
    p, took = pipeline(f"timeout 60 qemu-system-i386 -M pc -cpu max -m 256 -nic none "
                       f"-nographic -no-reboot -monitor none -serial stdio -kernel {elf} "
                       f"-append 'quick probes=boot exit=halt' | {CONSOLE} --quiet -", 90)
    assert p.returncode == 0, p.stderr
    assert "console: intact:" in p.stderr and "status pass" in p.stderr, p.stderr
    assert re.search(r"console: status line read: ended pid \d+, the writer of standard input",
                     p.stderr), p.stderr
    assert took < 50, f"{took:.1f} s: the pipeline waited for timeout to end QEMU"


def test_pipe_ends_after_exit_return_to_uboot(tmp_path):
    """The same through U-Boot (distro boot, no key presses) with
    exit=return: U-Boot gets its prompt back, console still ends QEMU at the
    status line, and a failing run's status is the pipeline's."""
    if not os.path.exists(UBOOT_ROM):
        pytest.skip(f"{UBOOT_ROM} missing (Debian package u-boot-qemu)")
    netdir = make_netboot(tmp_path / "tftp", "quick probes=boot modes=flat,2level mmu_break=1 exit=return")
    p, took = pipeline(f"timeout 80 qemu-system-i386 -bios {UBOOT_ROM} -m 256 -vga none "
                       f"-netdev user,id=n0,tftp={netdir} -device e1000,netdev=n0 "
                       f"-nographic -no-reboot -monitor none -serial stdio "
                       f"| {CONSOLE} --quiet --log {tmp_path}/console.log -", 110)
    log = (tmp_path / "console.log").read_text(errors="replace")
    assert p.returncode == 1, p.stderr + log
    assert "entered by U-Boot go" in log and "status fail" in p.stderr, p.stderr
    assert "ended pid" in p.stderr and took < 70, (took, p.stderr)
