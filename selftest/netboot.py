"""Shared by the network-boot and lab tests: a TFTP root made by
`make BOARD=pc netboot`, and QEMU booting from it with tools/console
capturing the serial line."""
import os
import shutil
import subprocess
import time
from dataclasses import dataclass

import pytest

from conftest import TOP

UBOOT_ROM = "/usr/lib/u-boot/qemu-x86/u-boot.rom"
CONSOLE = os.path.join(TOP, "build", "tools", "console")
# The quick suite on three kinds of table (none, 2-level, PAE): about 10 s
# of TCG after the loader.
CI_ARGS = "quick modes=flat,2level,pae2m"


def make_netboot(netdir, bootargs, pxe_bootargs=None):
    """Fill netdir with `make BOARD=pc netboot` and these boot arguments."""
    for tool, pkg in (("mkimage", "u-boot-tools"), ("qemu-system-i386", "qemu-system-x86")):
        if not shutil.which(tool):
            pytest.skip(f"{tool} missing (Debian package {pkg})")
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=pc", f"NETDIR={netdir}",
                    f"BOOTARGS={bootargs}", f"PXE_BOOTARGS={pxe_bootargs or bootargs}", "netboot"],
                   check=True, capture_output=True, timeout=300)
    return netdir


def uboot_qemu(netdir):
    if not os.path.exists(UBOOT_ROM):
        pytest.skip(f"{UBOOT_ROM} missing (Debian package u-boot-qemu)")
    # -vga none: U-Boot's console is the serial line, and its video
    # start-up ("Video: 1024x768x32") under TCG stalled 2 boots in ~6 CI runs.
    return ["qemu-system-i386", "-bios", UBOOT_ROM, "-m", "256", "-vga", "none",
            "-netdev", f"user,id=n0,tftp={netdir}", "-device", "e1000,netdev=n0"]


def pxe_qemu(netdir, bootfile):
    return ["qemu-system-i386", "-M", "pc", "-cpu", "max", "-m", "256", "-boot", "n",
            "-netdev", f"user,id=n0,tftp={netdir},bootfile={bootfile}",
            "-device", "e1000,netdev=n0"]


@dataclass
class Capture:
    rc: int          # tools/console's exit status
    err: str         # its messages
    log: str         # the log file it wrote
    elapsed: float   # QEMU start to console's end, seconds


def capture(qemu, logfile, timeout=40, console_args=()):
    """Run QEMU with its serial line on stdout, piped into `console -`;
    QEMU is killed once console has its verdict."""
    qemu = qemu + ["-no-reboot", "-nographic", "-monitor", "none", "-serial", "stdio",
                   "-device", "isa-debug-exit,iobase=0xf4,iosize=1"]
    start = time.monotonic()
    q = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        c = subprocess.run([CONSOLE, "--quiet", "--timeout", str(timeout), "--log", str(logfile),
                            *console_args, "-"],
                           stdin=q.stdout, capture_output=True, text=True, timeout=timeout + 20)
    finally:
        q.stdout.close()
        q.kill()
        q.wait()
    with open(logfile, errors="replace") as f:
        log = f.read().replace("\r", "")
    return Capture(c.returncode, c.stderr, log, time.monotonic() - start)
