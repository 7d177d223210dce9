"""BOARD=ppce500 in the state a real Freescale U-Boot (P2020RDB, MPC8548CDS,
MPC8572DS) leaves, which QEMU's own boot does not: the stand-in
selftest/shims/e500-uboot.c, booted by QEMU (-kernel), enters the image
(already in RAM through QEMU's loader device) by bootm or go.  Each item
of that state alone (its shim word), then all of them under the existing
suite's checks:

  msr      MSR[ME] and MSR[CE] cleared by bootm (arch_preboot_os)
  spin     a second core's boot page and spin table at the top of RAM,
           in the tree (cpu-release-addr, the reserve map): must survive
  tlb      U-Boot's TLB1 (IPROT, DDR rounded down, tlb15: TLB1[15] too)
           and a TLB0 entry: exit=return gives both back as found
  wdt      the core watchdog armed to reset (TCR[WRC], write-once)
  mpic     an MPIC IPI pending with CTPR 0, EE off
  nofdt, ctltree, go without fdt=: no usable tree, a clear error

MMUBENCH_E500_ELF names another image (a build of an older tree: the
tests then show what it lacks)."""
import json
import os
import re
import shutil
import socket
import subprocess
import threading
import time

import pytest

from conftest import RUN_QEMU, TOP, parse
import test_ppce500_mmu as mmu_suite

pytestmark = pytest.mark.skipif(not shutil.which("qemu-system-ppc"),
                                reason="qemu-system-ppc missing (Debian package qemu-system-ppc)")

SHIM = os.path.join(TOP, "build", "shims", "e500-uboot.elf")
ELF = os.environ.get("MMUBENCH_E500_ELF", os.path.join(TOP, "build", "ppce500", "mmubench.elf"))
GO = ("go", "0x400000", "fdt=${fdtcontroladdr}")       # the shim puts its tree's address in
BOOTM = ("bootm", "0x400000")
BOOTPG = 0x07fff000             # the last 4 KiB of 128 MiB: the boot page
SPIN1 = BOOTPG + 0x120          # cpu 1's spin table entry in it
CANARY = 0xb007ca9e


def qmp_read_after_shutdown(path, reads, deadline):
    """On QEMU's QMP socket: once the guest has shut down (-no-shutdown
    keeps QEMU), xp each (address, words) of `reads`; then quit.  The
    words read, or None where QEMU never shut down."""
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(path)
    f = s.makefile("rw")

    def command(name, **arguments):
        f.write(json.dumps({"execute": name, "arguments": arguments}) + "\n")
        f.flush()
        while True:
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                return reply.get("return")

    try:
        json.loads(f.readline())        # the greeting
        command("qmp_capabilities")
        while command("query-status")["status"] != "shutdown":
            if time.monotonic() > deadline:
                return None
            time.sleep(0.2)
        found = []
        for addr, n in reads:
            text = command("human-monitor-command", **{"command-line": f"xp /{n}wx {addr:#x}"})
            found.append([int(w, 16) for w in re.findall(r"0x[0-9a-f]+", text.split(":", 1)[1])])
        return found
    finally:
        try:
            command("quit")
        except (OSError, ValueError):
            pass
        s.close()


def standin(*words, smp=False, icount=True, timeout=120, reads=None, tmp_path=None):
    """tools/run-qemu with the stand-in as QEMU's kernel, the image through
    QEMU's loader device, the shim's command line `words`.  With `reads`
    ([(address, words)]), QEMU stays after the guest's power-off
    (-no-shutdown) and those words of RAM are read through QMP: (run, read)."""
    cmd = [RUN_QEMU, "ppce500", "--timeout", str(timeout), "--kernel", SHIM,
           "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    if icount:
        cmd.append("--icount")
    if smp:
        cmd += ["--qemu", "-smp", "--qemu", "2"]
    sock, found, reader = None, [None], None
    if reads:
        sock = str(tmp_path / "qmp.sock")
        cmd += ["--qemu", "-no-shutdown", "--qemu", "-qmp", "--qemu", f"unix:{sock},server=on,wait=off"]
        deadline = time.monotonic() + timeout + 60      # run-qemu builds first
        reader = threading.Thread(target=lambda: found.__setitem__(
            0, qmp_read_after_shutdown(sock, reads, deadline)))
        reader.start()
    p = subprocess.run(cmd + list(words), capture_output=True, text=True, timeout=timeout + 90,
                       errors="replace")
    if reader:
        reader.join(timeout=30)
    run = parse(p.stdout)
    run.rc, run.stderr = p.returncode, p.stderr
    return (run, found[0]) if reads else run


def diag(run, pattern):
    """The image's diagnostic lines (`# ...`) that match pattern."""
    return [l for l in run.lines if l.startswith("# ") and re.search(pattern, l)]


def assert_below_boot_page(run):
    """The banner's probe memory and page-table pool end below the boot
    page (the reserve map's one region), and a diag line says it is kept
    out."""
    m = re.search(r"# probe memory: 0x[0-9a-f]+-(0x[0-9a-f]+) .*then page tables to (0x[0-9a-f]+)",
                  run.log)
    assert m, [l for l in run.lines if l.startswith("# probe memory:")] or run.log
    assert int(m.group(1), 16) <= BOOTPG and int(m.group(2), 16) <= BOOTPG, m.group(0)
    assert diag(run, r"^# reserved: 0x0?7fff000-0x0?(7ffffff|8000000)\b"), run.log


def assert_verdict_pass(run):
    assert "## Application terminated, rc = 0x0\n" in run.log, run.log
    assert "shim: verdict: PASS" in run.log, run.log


def test_the_plain_standin_runs_the_image():
    """No variant: QEMU's own state, entered by bootm and by go (the shim
    itself changes nothing the image minds: a baseline)."""
    run = standin(*BOOTM, "probes=boot", "modes=real", "exit=qemu", timeout=60)
    assert "   Booting using the fdt blob at 0x03ff" in run.log, run.log
    assert run.rc == 0 and run.status() == "pass", run.log
    run = standin(*GO, "probes=boot", "modes=all", "exit=return", timeout=60)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert_verdict_pass(run)


def test_bootm_clears_msr_me_and_the_image_sets_it():
    """U-Boot's arch_preboot_os clears MSR[ME] and MSR[CE] before bootm:
    the image turns machine checks back on at init and says so."""
    run = standin("msr", *BOOTM, "probes=boot", "modes=real", "exit=qemu", timeout=60)
    assert "shim: bootm: MSR 0x00000200 at the jump" in run.log, run.log   # DE alone
    assert run.rc == 0 and run.status() == "pass", run.log
    lines = diag(run, r"MSR\[ME\] on")
    assert lines, run.log
    m = re.search(r"\(MSR (0x[0-9a-f]{8})\)", lines[0])
    assert m and int(m.group(1), 16) & 0x1000, lines


def test_the_second_cores_boot_page_survives_bootm(tmp_path):
    """The boot page (the last 4 KiB, U-Boot's determine_mp_bootpg) is in
    the tree's reserve map and cpu 1's cpu-release-addr points into it: the
    image keeps probe memory and page tables below it, and the canary and
    spin table are intact when the run has ended (read through QMP)."""
    run, found = standin("spin", *BOOTM, "probes=boot,tlbwalk", "modes=all", "quick", "exit=qemu",
                         smp=True, reads=[(BOOTPG, 4), (SPIN1, 8)], tmp_path=tmp_path)
    assert f"shim: boot page {BOOTPG:#010x}: canary {CANARY:#010x}, cpu 1 spins at {SPIN1:#010x}" \
        in run.log, run.log
    assert run.rc == 0 and run.status() == "pass", run.log
    assert found is not None, "QEMU did not power off"
    assert found[0][0] == CANARY, f"boot page {[hex(w) for w in found[0]]}"
    # 64-bit entry address 1 (not released), r3 0, reserved, PIR 1, r6 0
    assert found[1] == [0, 1, 0, 0, 0, 1, 0, 0], [hex(w) for w in found[1]]
    assert_below_boot_page(run)
    spins = [int(m.group(1), 16) for l in diag(run, r"^# cpus: cpu@1 waits on its spin table at ")
             for m in [re.search(r"spin table at (0x[0-9a-f]+)", l)]]
    assert spins == [SPIN1], run.log


def test_the_boot_page_survives_go():
    """The same after go and exit=return: the shim's checksum of the whole
    page is unchanged."""
    run = standin("spin", *GO, "probes=boot,tlbwalk", "modes=all", "quick", "exit=return",
                  smp=True)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert_below_boot_page(run)
    assert_verdict_pass(run)


@pytest.mark.parametrize("variant", ["tlb", "tlb15"])
def test_uboots_tlb_given_back_after_go(variant):
    """U-Boot's TLB1 (flash, CCSR, DDR in 64 MiB entries, all IPROT; with
    tlb15 TLB1[15] too, the image's usual stepping stone) and its TLB0 CPLD
    entry: exit=return gives back all 16 + 512 entries as found."""
    run = standin(variant, *GO, "probes=boot,tlbwalk", "modes=all", "quick", "exit=return")
    assert "shim: TLB0 set 0 way 1: MAS1 0x80000100 MAS2 0xffa0000a" in run.log, run.log
    if variant == "tlb15":
        assert "shim: TLB1[15]: MAS1 0xc0000400 MAS2 0xffc0000a" in run.log, run.log
    assert run.rc == 0 and run.status() == "pass", run.log
    assert_verdict_pass(run)
    # The dump before the jump and the one after the return, entry by entry.
    before = [l[len("shim: "):] for l in run.log.splitlines() if re.match(r"shim: TLB[01][\[ ]", l)]
    after = [l[len("shim: after return: "):] for l in run.log.splitlines()
             if re.match(r"shim: after return: TLB[01][\[ ]", l)]
    assert before and after == before, (before, after)


def test_ram_entries_round_down():
    """A 96 MiB board: U-Boot's DDR entries are 64+16+16 MiB, and so are the
    image's own (never an entry past the end of RAM), named in its banner."""
    run = standin("ram96", "tlb", *BOOTM, "probes=boot", "modes=all", "exit=qemu", timeout=60)
    for esel, mas1, base in ((8, 0xc0000800, 0), (9, 0xc0000700, 64 << 20), (10, 0xc0000700, 80 << 20)):
        assert f"shim: TLB1[{esel}]: MAS1 {mas1:#010x} MAS2 {base | 4:#010x}" in run.log, run.log
    assert run.rc == 0 and run.status() == "pass", run.log
    assert "ram: 96 MiB (the device tree's /memory reg)" in run.log, run.log
    line = [l for l in run.lines if l.startswith("# tlb: ") and "RAM" in l]
    assert line and re.findall(r"\b(\d+) MiB\b", line[0])[:3] == ["64", "16", "16"], line or run.log


def test_the_armed_watchdog_is_serviced_and_given_back():
    """TCR[WRC] set (chip reset) with a 2^30-tick period: the image services
    the watchdog (QEMU 7.2 never fires it, so only the image can say so) and
    gives TCR back unchanged after go."""
    run = standin("wdt", *GO, "probes=boot,tlbwalk", "modes=all", "quick", "exit=return")
    assert "shim: state: MSR 0x00000000 TCR 0xa0100000" in run.log, run.log
    assert run.rc == 0 and run.status() == "pass", run.log
    assert diag(run, r"^# watchdog:"), run.log
    assert_verdict_pass(run)


@pytest.mark.parametrize("how", ["go", "bootm"])
def test_a_pending_mpic_source_with_ctpr_0(how):
    """U-Boot's interrupt_init leaves CTPR 0; an IPI is pending at CPU 0,
    masked only by MSR[EE].  The image raises CTPR to 15 while it runs (its
    own EE is then safe) and, after go, gives CTPR 0 back: the IPI is then
    delivered to the shim, once."""
    args = GO + ("exit=return",) if how == "go" else BOOTM + ("exit=qemu",)
    run = standin("mpic", *args, "probes=boot,trap", "modes=all", "quick")
    assert "MPIC CTPR 0 IPI0 IVPR 0x40050042" in run.log, run.log     # pending (bit 30)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert diag(run, r"CTPR"), run.log
    if how == "go":
        assert_verdict_pass(run)
        assert "the pending IPI delivered 1 time(s), vector 0x00000042" in run.log, run.log


def test_bootm_without_a_device_tree():
    """U-Boot's old bootm (no tree: r3 = bd_t, r6/r7 = the command line):
    a clear error through the loader's console, no run."""
    run = standin("nofdt", *BOOTM, "probes=boot", "modes=real", timeout=20)
    assert "## bootm without a device tree: r3 = bd_t at 0x03fff000" in run.log, run.log
    assert "no device tree" in run.log, run.log
    assert run.status() != "pass" and run.rc != 0, run.log


def test_bootm_of_the_control_tree_before_fixups():
    """U-Boot's own tree before bootm's fixups: /memory's reg and the
    clocks are FDT_NOPs.  A clear error, no run."""
    run = standin("ctltree", *BOOTM, "probes=boot", "modes=real", timeout=20)
    assert "gives no /memory" in run.log, run.log
    assert run.status() != "pass" and run.rc != 0, run.log


@pytest.mark.parametrize("variant,why", [("", "no device tree"), ("ctltree", "gives no /memory")])
def test_go_without_a_usable_tree_returns_a_failure(variant, why):
    """go without fdt= (or with the tree before fixups): the error, then a
    failing status back to U-Boot with its state intact."""
    words = ("go", "0x400000") if not variant else (variant,) + GO
    run = standin(*words, "probes=boot", "modes=real", "exit=return", timeout=30)
    assert why in run.log, run.log
    assert re.search(r"## Application terminated, rc = 0x[1-9A-F]", run.log), run.log
    assert "shim: verdict: PASS" in run.log, run.log


@pytest.fixture(scope="module")
def uboot_bootm_run(tmp_path_factory):
    """The whole state (msr spin tlb wdt mpic), bootm, the quick suite
    (test_ppce500_mmu's run), and the boot page read after it."""
    return standin("uboot", *BOOTM, "probes=all", "modes=all", "quick", "exit=qemu", smp=True,
                   timeout=300, reads=[(BOOTPG, 4), (SPIN1, 8)],
                   tmp_path=tmp_path_factory.mktemp("qmp"))


def test_the_suite_passes_under_uboot_bootm(uboot_bootm_run):
    run, found = uboot_bootm_run
    mmu_suite.test_every_probe_passes_in_every_mode(run)
    assert found is not None and found[0][0] == CANARY and found[1][1] == 1, found


def test_the_suite_counts_under_uboot_bootm(uboot_bootm_run):
    mmu_suite.test_exact_counts(uboot_bootm_run[0])


def test_the_suite_passes_under_uboot_go():
    """The same after go, with exit=return: U-Boot's state back as found."""
    run = standin("uboot", *GO, "probes=all", "modes=all", "quick", "exit=return", smp=True,
                  timeout=300)
    mmu_suite.test_every_probe_passes_in_every_mode(run)
    assert_verdict_pass(run)
