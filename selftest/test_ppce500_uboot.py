"""BOARD=ppce500 booted by a real PowerPC U-Boot: Debian's qemu-ppce500
U-Boot (u-boot-qemu) on QEMU -M ppce500, its serial line on a pty that
tools/console --uboot drives.  At its prompt (its bootcmd has no distro
boot): DHCP, the board's boot script over QEMU's TFTP, which loads
mmubench.uimg and bootm's it with U-Boot's device tree; and go of the raw
binary with fdt=.  U-Boot's own lines, then mmubench's, then the status;
and the failures: no device tree for go, a truncated image."""
import json
import os
import re
import select
import shutil
import subprocess
import time
import tty

import pytest

from conftest import LOGCHECK, TOP, parse

UBOOT = "/usr/lib/u-boot/qemu-ppce500/uboot.elf"
CONSOLE = os.path.join(TOP, "build", "tools", "console")
BOOTARGS = "quick exit=qemu qemu=tcg"   # qemu=: as run-qemu tells the image (TCG: no time claims)
SCRIPT = "dhcp; tftp 0x01000000 boot.scr.uimg; source 0x01000000"
GO = "dhcp; tftp 0x00400000 mmubench.bin; go 0x00400000 {fdt}" + BOOTARGS


def need(tool, package):
    if not shutil.which(tool):
        pytest.skip(f"{tool} missing (Debian package {package})")


def make_netdir(netdir):
    need("mkimage", "u-boot-tools")
    need("qemu-system-ppc", "qemu-system-ppc")
    if not os.path.exists(UBOOT):
        pytest.skip(f"{UBOOT} missing (Debian package u-boot-qemu)")
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=ppce500", f"NETDIR={netdir}",
                    f"BOOTARGS={BOOTARGS}", "netboot"], check=True, capture_output=True, timeout=300)
    subprocess.run(["make", "-s", "-C", TOP, "tools"], check=True, capture_output=True, timeout=300)
    return netdir


@pytest.fixture(scope="module")
def netdir(tmp_path_factory):
    return make_netdir(tmp_path_factory.mktemp("tftp"))


def type_after(pty, command, timeout=15):
    """At U-Boot's prompt on the pty (ctrl-C asks for a fresh one: it may
    have come before we look; an empty line would repeat go), type command (a character at a time:
    QEMU's UART holds 16); return everything read until the prompt after
    it, within timeout."""
    fd = os.open(pty, os.O_RDWR | os.O_NOCTTY)
    out, typed, end = b"", False, time.monotonic() + timeout
    try:
        tty.setraw(fd)
        time.sleep(1)           # the image's return and U-Boot's "rc =" line
        os.write(fd, b"\x03")
        while time.monotonic() < end:
            if select.select([fd], [], [], 0.2)[0]:
                out += os.read(fd, 4096)
            if not typed and out.endswith(b"=> "):
                for ch in command.encode() + b"\r":
                    os.write(fd, bytes([ch]))
                    time.sleep(0.01)
                typed, mark = True, len(out)
            elif typed and out[mark:].count(b"=> ") >= 2:    # its echo's, then the next
                break
    finally:
        os.close(fd)
    return out.decode(errors="replace").replace("\r", "")


def powered_off(q, timeout):
    """Whether QEMU (QMP on its stdin/stdout) is stopped by a guest's
    shutdown within timeout: query-status until it says so."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        q.stdin.write(json.dumps({"execute": "query-status"}) + "\n")
        q.stdin.flush()
        while True:             # events and earlier answers before ours
            line = q.stdout.readline()
            if not line:
                return False
            reply = json.loads(line)
            if "return" in reply and "status" in reply["return"]:
                break
        if reply["return"]["status"] == "shutdown":
            return True
        time.sleep(0.2)
    return False


def uboot_run(tmp_path, netdir, cmds, timeout=60, after=None):
    """QEMU ppce500 with U-Boot, stopped (-S) until console has the pty
    open; console types cmds; then `after` is typed (type_after) if given.
    Returns (console's status, its messages, the log, 0 if the guest
    powered QEMU off within 10 s of console's end, else None; or with
    `after`, what U-Boot answered).  -action shutdown=pause: a QEMU that
    exits hangs the pty up, and the kernel drops what the console has not
    read yet (on a busy host, the run's last lines)."""
    q = subprocess.Popen(["qemu-system-ppc", "-M", "ppce500", "-cpu", "e500v2", "-m", "128",
                          "-bios", UBOOT, "-no-reboot", "-action", "shutdown=pause",
                          "-display", "none", "-S", "-qmp", "stdio",
                          "-monitor", "none", "-chardev", "pty,id=s0", "-serial", "chardev:s0",
                          "-netdev", f"user,id=n0,tftp={netdir}", "-device", "e1000,netdev=n0"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = q.stdout.readline()      # QEMU 7.2 names the pty on stdout
        m = re.search(r"char device redirected to (/dev/pts/\d+)", line)
        assert m, line
        q.stdin.write(json.dumps({"execute": "qmp_capabilities"}) + "\n")
        q.stdin.flush()
        c = subprocess.Popen([CONSOLE, "--quiet", "--timeout", str(timeout), "--log",
                              str(tmp_path / "console.log"), "--uboot", cmds, m.group(1)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        q.stdin.write(json.dumps({"execute": "cont"}) + "\n")
        q.stdin.flush()
        _, err = c.communicate(timeout=timeout + 20)
        if after:
            qemu_rc = type_after(m.group(1), after)
        else:
            qemu_rc = 0 if powered_off(q, 10) else None
    finally:
        q.kill()
        q.wait()
    log = (tmp_path / "console.log").read_text(errors="replace").replace("\r", "")
    return c.returncode, err, log, qemu_rc


def check_pass(rc, err, log, qemu_rc, entered):
    """A complete, intact, passing quick run entered as said, after U-Boot's
    lines; exit=qemu powered QEMU off."""
    assert rc == 0, f"console exit {rc}: {err}\n{log}"
    assert "console: intact:" in err, err
    uboot = log.index("U-Boot 2023.01")
    ktap = log.index("KTAP version 1")
    status = log.index("# mmubench status: pass")
    assert uboot < log.index("DHCP client bound") < ktap < status, log
    assert f"entered by {entered}" in log, log
    assert "device tree: from " in log and "ram: 128 MiB (the device tree's /memory reg)" in log
    run = parse(log[ktap:])
    assert run.status() == "pass"
    assert len(run.results) == run.planned() and run.planned() >= 10, run.results
    assert run.results["boot.real"] == "ok" and run.results["tlbwalk.real"] == "ok"
    p = subprocess.run([LOGCHECK, "/dev/stdin"], input=log[ktap:], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stderr
    assert qemu_rc == 0, f"QEMU did not power off after exit=qemu (status {qemu_rc})"


def test_bootm_through_the_boot_script(netdir, tmp_path):
    """DHCP, the board's boot script over TFTP, which loads mmubench.uimg
    (U-Boot checks its CRC) and bootm's it with U-Boot's device tree in r3."""
    rc, err, log, qemu_rc = uboot_run(tmp_path, netdir, SCRIPT)
    assert "Filename 'boot.scr.uimg'" in log and "Filename 'mmubench.uimg'" in log, log
    assert "Image Type:   PowerPC Linux Kernel Image (uncompressed)" in log, log
    assert "Verifying Checksum ... OK" in log and "Booting using the fdt blob" in log, log
    check_pass(rc, err, log, qemu_rc, "ePAPR: r3 = device tree")
    os.makedirs(os.path.join(TOP, "build", "logs"), exist_ok=True)
    shutil.copy(tmp_path / "console.log", os.path.join(TOP, "build", "logs", "ppce500-uboot.log"))


def test_go_of_the_raw_binary(netdir, tmp_path):
    """go of mmubench.bin with fdt=${fdtcontroladdr}: argc/argv in r3/r4."""
    rc, err, log, qemu_rc = uboot_run(tmp_path, netdir, GO.format(fdt="fdt=${fdtcontroladdr} "))
    assert "## Starting application at 0x00400000" in log, log
    check_pass(rc, err, log, qemu_rc, "U-Boot go (r3 = argc, r4 = argv)")
    assert "device tree: from the boot argument fdt= (U-Boot go)" in log


def test_go_and_exit_return_back_to_uboot(netdir, tmp_path):
    """exit=return after go: U-Boot's TLB1, vectors, timer and registers
    back; go prints the status as its return code and U-Boot's prompt,
    network and timer work on (a TFTP transfer after it)."""
    cmds = GO.format(fdt="fdt=${fdtcontroladdr} ").replace("exit=qemu", "exit=return")
    rc, err, log, answer = uboot_run(tmp_path, netdir, cmds,
                                     after="echo go=$?; tftp 0x01000000 boot.scr.uimg")
    assert rc == 0, f"console exit {rc}: {err}\n{log}"
    assert "# mmubench status: pass" in log and "exit=return" in log, log
    # go's "## Application terminated, rc = 0x0" comes while no one reads
    # the pty (console has closed it, type_after not yet opened it), and a
    # pty drops what comes then; U-Boot's $? (0 only for rc 0) does not.
    assert "\ngo=0\n" in answer, answer
    assert "tftp 0x01000000 boot.scr.uimg" in answer, answer
    assert re.search(r"Bytes transferred = \d+", answer), answer


def test_go_without_a_device_tree_fails_with_the_reason(netdir, tmp_path):
    """go passes no device tree: the run says so (through the UART of
    U-Boot's own CCSR mapping, found by its scratch register) and fails;
    nothing is measured from a guess."""
    rc, err, log, _ = uboot_run(tmp_path, netdir, GO.format(fdt=""))
    assert rc == 1, f"console exit {rc}: {err}\n{log}"
    assert "# run aborted: no device tree was passed" in log, log
    assert parse(log[log.index("KTAP version 1"):]).status() == "fail"


def test_truncated_image_is_refused_by_bootm(tmp_path):
    """A uImage cut short: U-Boot's bootm finds the bad data CRC; console
    ends there with the loader's failure (exit 3)."""
    netdir = make_netdir(tmp_path / "tftp")
    data = (netdir / "mmubench.uimg").read_bytes()
    (netdir / "mmubench.uimg").write_bytes(data[:len(data) - 4096])
    rc, err, log, _ = uboot_run(tmp_path, netdir, SCRIPT, timeout=30)
    assert rc == 3, f"console exit {rc}: {err}\n{log}"
    assert "the loader failed before the image started" in err and "Bad Data CRC" in err, err
    assert "KTAP version 1" not in log


def test_boot_script(netdir):
    """build/ppce500/boot.scr.uimg: a PowerPC script image, no comments,
    loading mmubench.uimg at U-Boot's loadaddr and bootm'ing it with the
    device tree."""
    info = subprocess.run(["mkimage", "-l", str(netdir / "boot.scr.uimg")],
                          capture_output=True, text=True, timeout=30).stdout
    assert "Image Type:   PowerPC Linux Script (uncompressed)" in info, info
    text = (netdir / "boot.scr.cmd").read_text()
    assert not re.search(r"^\s*#", text, re.M), text
    assert f"setenv bootargs {BOOTARGS}" in text
    assert "tftpboot 0x02000000 mmubench.uimg" in text
    assert "bootm 0x02000000 - ${mmubench_fdt}" in text
    # The board's own .dtb where the environment names one (Freescale
    # U-Boot has no fdtcontroladdr), else the tree U-Boot runs on.
    assert "tftpboot ${fdtaddr} ${fdtfile}" in text
    assert "setenv mmubench_fdt ${fdtcontroladdr}" in text
