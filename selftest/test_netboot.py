"""Network boot with no key presses: U-Boot's distro boot (Debian's
u-boot.rom) fetching build/pc's boot script and image over QEMU's TFTP, and
PXE through QEMU's iPXE ROM (an iPXE script, and PXELINUX with mboot.c32),
each captured by tools/console and checked line by line; and what U-Boot's
boot script does with a missing, too large or truncated image."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import LOGCHECK, TOP, parse
from netboot import CI_ARGS, capture, make_netboot, pxe_qemu, uboot_qemu


@pytest.fixture(scope="module")
def netdir(tmp_path_factory):
    return make_netboot(tmp_path_factory.mktemp("tftp"), f"{CI_ARGS} exit=qemu")


def check_run(cap, entered):
    """A complete, intact and passing quick run, entered as said."""
    assert cap.rc == 0, f"console exit {cap.rc}: {cap.err}\n{cap.log}"
    assert "console: intact:" in cap.err, cap.err
    assert entered in cap.log, cap.log
    run = parse(cap.log)
    assert run.status() == "pass"
    # every probe x 3 modes, each with its result
    assert len(run.results) == run.planned() and run.planned() % 3 == 0, run.results
    assert run.results["boot.pae2m"] == "ok"
    # The log console wrote passes logcheck on its own too.
    p = subprocess.run([LOGCHECK, "/dev/stdin"], input=cap.log, capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 0, p.stderr
    assert cap.elapsed < 30, f"took {cap.elapsed:.1f} s"


def test_uboot_tftp_end_to_end(netdir, tmp_path):
    """U-Boot's DHCP and distro boot fetch boot.scr.uimg, the script loads
    mmubench.uimg, iminfo checks its CRC, go enters it; exit=qemu ends."""
    cap = capture(uboot_qemu(netdir), tmp_path / "console.log")
    assert "Filename 'boot.scr.uimg'" in cap.log and "Filename 'mmubench.uimg'" in cap.log
    assert "Verifying Checksum ... OK" in cap.log, cap.log
    check_run(cap, "entered by U-Boot go (EAX = argc, EDX = argv)")
    os.makedirs(os.path.join(TOP, "build", "logs"), exist_ok=True)
    shutil.copy(tmp_path / "console.log", os.path.join(TOP, "build", "logs", "netboot-uboot.log"))


@pytest.mark.parametrize("bootfile,loader", [("boot.ipxe", "tftp://10.0.2.2/mmubench.elf... ok"),
                                             ("pxelinux.0", "PXELINUX 6.04")])
def test_pxe(netdir, tmp_path, bootfile, loader):
    """QEMU's iPXE ROM does DHCP; the boot file is the iPXE script (kernel
    tftp://.../mmubench.elf, boot) or PXELINUX, whose mboot.c32 loads the
    multiboot image."""
    if not os.path.exists(netdir / bootfile):
        pytest.skip(f"{bootfile} missing from the TFTP root")
    cap = capture(pxe_qemu(netdir, bootfile), tmp_path / "console.log")
    # PXELINUX draws its banner through SeaBIOS's serial text console, which
    # may put a cursor move between any two letters ("PXELINU\x1b[25;07HX").
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", cap.log)
    assert loader in shown, cap.log
    check_run(cap, "entered by multiboot")


def loader_failure(cap, message):
    assert cap.rc == 3, f"console exit {cap.rc}: {cap.err}\n{cap.log}"
    assert "the loader failed before the image started" in cap.err, cap.err
    assert message in cap.err, cap.err
    assert "KTAP version 1" not in cap.log
    assert cap.elapsed < 30


def test_uboot_image_missing(tmp_path):
    netdir = make_netboot(tmp_path / "tftp", "exit=qemu")
    os.remove(netdir / "mmubench.uimg")
    cap = capture(uboot_qemu(netdir), tmp_path / "console.log")
    loader_failure(cap, "TFTP error: 'File not found'")
    assert "Filename 'mmubench.uimg'" in cap.log


def test_uboot_image_truncated(tmp_path):
    """U-Boot's iminfo checks the data CRC and the script refuses to go."""
    netdir = make_netboot(tmp_path / "tftp", "exit=qemu")
    data = (netdir / "mmubench.uimg").read_bytes()
    (netdir / "mmubench.uimg").write_bytes(data[:len(data) - 4096])
    cap = capture(uboot_qemu(netdir), tmp_path / "console.log")
    loader_failure(cap, "Bad Data CRC")


def test_uboot_image_larger_than_load_window(tmp_path):
    """The script compares the file's size with the board's load window
    (here made smaller than the image) before touching memory."""
    netdir = tmp_path / "tftp"
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=pc", f"NETDIR={netdir}", "LOAD_WINDOW=0x8000",
                    "BOOTARGS=exit=qemu", "netboot"], check=False, capture_output=True, timeout=300)
    # The build itself refuses such an image first.
    p = subprocess.run(["make", "-s", "-C", TOP, "BOARD=pc", "LOAD_WINDOW=0x8000",
                        f"BOOTSCR={tmp_path}/x.scr.uimg", "bootscr"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "more than pc's load window 0x8000" in p.stderr, p.stderr
    # A script made for a smaller window than the image on the TFTP server.
    netdir = make_netboot(tmp_path / "tftp2", "exit=qemu")
    cmd = (netdir / "boot.scr.cmd").read_text().replace("0x01f00000", "0x00008000")
    (netdir / "boot.scr.cmd").write_text(cmd)
    subprocess.run(["mkimage", "-A", "x86", "-O", "linux", "-T", "script", "-C", "none", "-d",
                    str(netdir / "boot.scr.cmd"), str(netdir / "boot.scr.uimg")],
                   check=True, capture_output=True, timeout=30)
    cap = capture(uboot_qemu(netdir), tmp_path / "console.log")
    loader_failure(cap, "more than the load window 0x00008000: not started")


@pytest.mark.parametrize("board,arch,start", [("walnut", "PowerPC", "bootm 0x01000000"),
                                              ("ref405ep", "PowerPC", "bootm 0x01000000"),
                                              ("pc", "Intel x86", "go 0x00100000 ${bootargs}")])
def test_boot_scripts_for_every_board(board, arch, start):
    """make builds build/<board>/boot.scr.uimg: a U-Boot script image with
    the board's boot arguments, no comments (U-Boot 1.x's autoscr has
    none), loading mmubench.uimg and starting it."""
    out = os.path.join(TOP, "build", board)
    info = subprocess.run(["mkimage", "-l", os.path.join(out, "boot.scr.uimg")],
                          capture_output=True, text=True, timeout=30).stdout
    assert f"Image Type:   {arch} Linux Script (uncompressed)" in info, info
    text = open(os.path.join(out, "boot.scr.cmd")).read()
    assert not re.search(r"^\s*#", text, re.M), text
    assert "setenv bootargs probes=all modes=all" in text
    assert re.search(r"^\s*(tftpboot|if tftp) 0x0[12]000000 mmubench.uimg", text, re.M), text
    assert start in text
