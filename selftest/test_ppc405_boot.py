"""PowerPC 405 foundation on QEMU's ref405ep: every crash= kind dumps and
fails, the entry conventions (QEMU -kernel + -append, U-Boot go with
exit=return, U-Boot bootm of mmubench.uimg, through a loader shim), the
405's boot arguments, the timebase figure, and the walnut image."""
import os
import re
import subprocess

import pytest

from conftest import TOP, assert_crash_failed, run_crash, run_qemu, the_exception

# The stand-ins of selftest/shims/, built by make shims (conftest's build).
SHIM = os.path.join(TOP, "build", "shims", "ppc405-loader.elf")
CLOCKS_HOST = os.path.join(TOP, "build", "shims", "ppc405-clocks-host")
ELF = os.path.join(TOP, "build", "ref405ep", "mmubench.elf")
UIMG = os.path.join(TOP, "build", "ref405ep", "mmubench.uimg")

# kind -> (vector name in the dump, vector number)
CRASHES = {
    "data": ("data TLB miss", "0x1100"),
    "fetch": ("instruction TLB miss", "0x1200"),
    "illegal": ("program", "0x0700"),
    "align": ("alignment", "0x0600"),
}


def assert_dump(run, kind):
    text = "\n".join(run.lines)
    name, vec = CRASHES[kind]
    exc = the_exception(run)
    assert f"exception: {name} (vector {vec}) at PC 0x" in exc, text
    assert re.search(r"MSR 0x[0-9a-f]{8} \(SRR1\) DEAR 0x[0-9a-f]{8} ESR 0x[0-9a-f]{8}", text)
    assert re.search(r"LR 0x[0-9a-f]{8} CTR 0x[0-9a-f]{8} CR 0x[0-9a-f]{8} XER", text)
    for r in range(0, 32, 4):
        assert re.search(rf"r{r:<2} 0x[0-9a-f]{{8}} r{r+1:<2} 0x[0-9a-f]{{8}} "
                         rf"r{r+2:<2} 0x[0-9a-f]{{8}} r{r+3:<2} 0x[0-9a-f]{{8}}", text), text
    assert re.search(r"stack trace \(r1 0x[0-9a-f]{8}\): 0x[0-9a-f]{8}", text), text
    if kind in ("data", "fetch"):
        # The faulting address: DEAR for data, SRR0 (the PC) for a fetch.
        assert "DEAR 0xdead0000" in text if kind == "data" else "at PC 0xdead0000" in exc
    if kind == "illegal":
        assert "ESR 0x08000000" in text  # ESR[PIL]
    if kind == "align":
        m = re.search(r"lwarx from the unaligned address 0x([0-9a-f]+)", text)
        assert m and f"DEAR 0x{int(m.group(1), 16):08x}" in text, text
    assert any(l.startswith("# run aborted: unexpected exception: ") for l in run.lines)
    assert_crash_failed(run, kind)


@pytest.mark.parametrize("kind", list(CRASHES))
def test_crash_dumps_and_fails(kind):
    assert_dump(run_crash("ref405ep", kind, within=20), kind)


def test_crash_divide_is_a_clear_error():
    run = run_qemu("ref405ep", "crash=divide", timeout=30)
    assert "raises no exception on integer divide by zero" in run.log
    assert run.status() == "fail" and run.rc == 1


@pytest.mark.parametrize("arg,message", [
    ("pins=9", "'pins=9': out of range 0..8"),
    ("lpsize=1k", "1K pages are not used (QEMU aborts on a 1K TLB entry)"),
    ("lpsize=3m", "'lpsize=3m': not a valid choice"),
    ("tlbrepl=lru", "'tlbrepl=lru': not a valid choice"),
    ("walk_region=middle", "'walk_region=middle': not a valid choice"),
    ("walk_pages=0", "'walk_pages=0': out of range"),
    ("mmu_break=2", "'mmu_break=2': out of range 0..1"),
])
def test_bad_405_arguments(arg, message):
    run = run_qemu("ref405ep", arg, timeout=30)
    assert message in run.log, run.log
    assert run.status() == "fail" and run.rc == 1


def test_walk_pages_too_large_for_its_region():
    # 20000 pages (78 MiB) exist in RAM but not at or above 64 MiB.
    run = run_qemu("ref405ep", "probes=tlbwalk", "modes=normal", "walk_pages=20000",
                   "walk_region=high", timeout=30)
    assert "walk_pages=20000 (80000 KiB) does not fit in RAM at or above 64 MiB" in run.log
    assert run.results["tlbwalk.normal"] == "not ok" and run.rc == 1
    # The default (auto) puts them at the top of probe memory instead, and says so.
    run = run_qemu("ref405ep", "probes=tlbwalk", "modes=normal", "walk_pages=20000", timeout=30)
    m = re.search(r"tlbwalk.normal: no room for 80000 KiB at or above 64 MiB: the walk lies at "
                  r"0x([0-9a-f]+)-0x([0-9a-f]+), the top of probe memory", run.log)
    assert m and int(m.group(2), 16) - int(m.group(1), 16) == 20000 * 4096, run.log
    assert run.value("tlbwalk.normal.region_start") == int(m.group(1), 16)
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == 20000
    assert run.status() == "pass" and run.rc == 0, run.log


def test_qemu_kernel_entry_banner_and_timebase():
    run = run_qemu("ref405ep", "probes=boot", "modes=real", timeout=30)
    assert run.rc == 0, run.log
    text = "\n".join(run.lines)
    assert "entered by bd_t in r3, command line in r6/r7" in text
    assert "cpu: PowerPC 405EP, PVR 0x51210950" in text
    assert "victim policy: round robin over the unpinned slots" in text
    # The timebase is measured against QEMU's instruction count.
    m = re.search(r"tick clock: (\d+) Hz \(measured: \d+ ticks over \d+ instructions", text)
    assert m, text
    assert 300_000_000 < int(m.group(1)) < 370_000_000, "expected QEMU's ~333 MHz timebase"


def test_timebase_without_icount_names_its_source():
    """No reference clock without -icount: the CPU clock from the 405EP's
    PLL registers, labelled as not verified (QEMU's bd_t says 133 MHz)."""
    run = run_qemu("ref405ep", "probes=boot", "modes=real", icount=False, timeout=30)
    assert run.rc == 0, run.log
    text = "\n".join(run.lines)
    assert re.search(r"cpu clock: 333333330 Hz \(405EP PLL: CPC0_PLLMR0/1 0x[0-9a-f]+/0x[0-9a-f]+, "
                     r"SysClk 33.333 MHz; bd_t intfreq 133333333\)", text), text
    assert "tick clock: 333333330 Hz (assumed equal to the cpu clock (405EP PLL" in text
    assert "not verified" in text


def clocks_on_host(pvr, pllmr, cr1):
    """arch/ppc405/clocks.c built for the host with a 405GP's registers."""
    return subprocess.run([CLOCKS_HOST, hex(pvr), hex(pllmr), hex(cr1)], capture_output=True,
                          text=True, check=True, timeout=10).stdout


@pytest.mark.parametrize("cr1,external", [(0x00800000, True), (0x00000000, False),
                                          (0xff7fffff, False)])
def test_405gp_clock_registers(cr1, external):
    """The 405GP's clock registers, which QEMU's 405EP stand-in never has:
    PLLMR at DCR 0xb0, CPC0_CR1 at 0xb2 (CETE 0x00800000 alone decides the
    timebase's clock), CPC0_PSR at 0xb4 (0xb1 is CPC0_CR0: never read)."""
    # FWDV field 6 (divider 2), FBDV 3, CBDV field 1 (CPU = 2 x PLB): 200 MHz.
    out = clocks_on_host(0x401100C4, 0xC6020000, cr1)
    assert "cpu 199999998 (405GP PLL: CPC0_PLLMR 0xc6020000 (CPC0_PSR 0x1234)" in out, out
    assert re.findall(r"^dcr (\S+)$", out, re.M) == ["0xb0", "0xb2", "0xb4"], out
    if external:
        assert "tb 1 (timebase: counts TmrClk, the external timer clock (405GP CPC0_CR1 " \
               "0x800000: CETE set))" in out, out
    else:
        shown = f"{cr1:#x}" if cr1 else "0"      # C's %#lx
        assert f"tb 0 (timebase: counts the CPU clock (405GP CPC0_CR1 {shown}: CETE clear))" in out


@pytest.fixture(scope="module")
def shim():
    """The loader stand-in (selftest/shims/ppc405-loader.c), as make shims built it."""
    return SHIM


def test_uboot_go_and_exit_return(shim):
    """go: r3 = argc, r4 = argv, argv[0] the address; exit=return brings the
    status back to the caller in r3."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "go", "0x400000", "probes=boot", "modes=normal", "exit=return",
                   extra=extra, timeout=30)
    assert "entered by U-Boot go (r3 = argc, r4 = argv; bd_t from gd in r2)" in run.log
    assert "ram: 128 MiB (bd_t memsize)" in run.log
    assert run.status() == "pass" and run.rc == 0, run.log
    assert "## Application terminated, rc = 0x00000000" in run.log
    # Without U-Boot's gd in r2 there is no bd_t: RAM from the SDRAM
    # controller's bank registers instead.
    run = run_qemu("ref405ep", "go-nogd", "0x400000", "probes=boot", "modes=real", "exit=return",
                   extra=extra, timeout=30)
    assert "entered by U-Boot go (r3 = argc, r4 = argv; no bd_t in r2 or r29)" in run.log
    assert "ram: 128 MiB (SDRAM controller bank registers)" in run.log
    assert "## Application terminated, rc = 0x00000000" in run.log
    # A failing run returns 1 to U-Boot, even from the exception path.
    run = run_qemu("ref405ep", "go", "0x400000", "crash=illegal", "exit=return",
                   extra=extra, timeout=30)
    assert "exception: program (vector 0x0700)" in run.log
    assert "## Application terminated, rc = 0x00000001" in run.log
    # exit=return without a loader to return to is refused.
    run = run_qemu("ref405ep", "exit=return", timeout=30)
    assert "no loader to return to" in run.log and run.rc == 1


# Every probe but tlb (its pinned mode has nothing outside the pins to walk
# on 32 MiB: a SKIP, test_ram32_tlb_probe).
PROBES_32M = "boot,cpu,demand,modeswitch,tlbwalk,lat_mem,bw_mem,spaces,aspace"


@pytest.fixture(scope="module")
def ram32_run(shim):
    """A 32 MiB Walnut as U-Boot 1.x tells it (bd_t memsize 32 MiB, its
    stack below 32 MiB): the default sizes of every probe, quick."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    return run_qemu("ref405ep", "ram32", "uboot1", "go", "0x400000", f"probes={PROBES_32M}",
                    "quick", "exit=return", extra=extra, timeout=120)


def test_ram32_walnut_default_run(ram32_run):
    run = ram32_run
    assert "ram: 32 MiB (bd_t memsize)" in run.log, run.log
    assert re.search(r"probe memory: 0x[0-9a-f]+-0x[0-9a-f]+ \(below the loader's stack at "
                     r"0x1bff[0-9a-f]{3} less 1 MiB", run.log), run.log
    assert run.status() == "pass" and run.rc == 0, run.log
    assert "shim: verdict: PASS" in run.log, run.log
    # tlbwalk's default: no RAM at 64 MiB, so the top of probe memory,
    # under pinned mode's two 16 MiB pins (all 32 MiB pinned: no miss).
    assert "no room for 1024 KiB at or above 64 MiB" in run.log, run.log
    start = run.value("tlbwalk.normal.region_start")
    assert 16 << 20 < start and start + (1 << 20) <= 26 << 20, start
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == 256
    assert run.value("tlbwalk.pinned.dtlb_misses_per_pass") == 0
    assert run.value("tlbwalk.largepte.dtlb_misses_per_pass") == 0


def test_ram32_tlb_probe(shim):
    """With all 32 MiB under the two 16 MiB pins, tlb's pinned mode has no
    page outside them to walk: a SKIP that says so (the RAM's limit, not a
    failure); normal mode still finds its 63 slots."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "ram32", "go", "0x400000", "probes=tlb", "modes=normal,pinned",
                   "quick", "exit=return", extra=extra, timeout=60)
    assert run.results == {"tlb.normal": "ok", "tlb.pinned": "skip"}, run.log
    assert "the pins cover all of RAM" in run.skips["tlb.pinned"], run.log
    assert run.value("tlb.normal.l1_entries") == 63, run.log


def test_ram16_walnut_default_run(shim):
    """16 MiB, the smallest RAM the probes are sized for: every probe's
    default but tlb's and lat_mem's (tested apart below) passes."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "ram16", "uboot1", "go", "0x400000",
                   "probes=boot,cpu,demand,modeswitch,tlbwalk,bw_mem,spaces,aspace", "quick",
                   "exit=return", extra=extra, timeout=120)
    assert "ram: 16 MiB (bd_t memsize)" in run.log, run.log
    assert run.status() == "pass" and run.rc == 0, run.log
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == 256
    assert run.value("tlbwalk.normal.region_start") + (1 << 20) <= 10 << 20
    assert "shim: verdict: PASS" in run.log, run.log


def test_ram16_lat_mem_probe(shim):
    """16 MiB pages on a 16 MiB board: no whole large page is free for the
    sweep, so it lies in smaller ones and says so."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "ram16", "go", "0x400000", "probes=lat_mem",
                   "modes=pinned,largepte", "quick", "exit=return", extra=extra, timeout=60)
    assert run.results == {"lat_mem.pinned": "ok", "lat_mem.largepte": "ok"}, run.log
    assert "its buffer is not in the mode's largest pages" in run.log, run.log


def test_uboot_bootm_of_the_uimage(shim):
    """bootm of build/ref405ep/mmubench.uimg: magic and both CRCs checked,
    data copied to its load address, r3 = bd_t, r6/r7 = bootargs."""
    extra = ["--kernel", shim, "--qemu", "-device",
             "--qemu", f"loader,file={UIMG},addr=0x2000000,force-raw=on"]
    run = run_qemu("ref405ep", "bootm", "0x2000000", "probes=boot", "modes=real,pinned",
                   extra=extra, timeout=30)
    assert "## Booting kernel from Legacy Image at 0x2000000 ... load 0x00400000" in run.log
    assert "entered by bd_t in r3, command line in r6/r7" in run.log
    assert "ram: 128 MiB (bd_t memsize)" in run.log
    assert run.results == {"boot.real": "ok", "boot.pinned": "ok"}, run.log
    assert run.status() == "pass" and run.rc == 0


VARIANTS = {
    # shim words -> (where the image finds gd, the loader's ICCR as that U-Boot sets it)
    "uboot1": ("gd in r29, U-Boot 1.x", "0x80000001"),
    "uboot1 mhz": ("gd in r29, U-Boot 1.x", "0x80000001"),
    "uboot2017": ("gd in r2", "0xc0000001"),
    "uboot2017 mhz junktlb": ("gd in r2", "0xc0000001"),
    "uboot1 junktlb": ("gd in r29, U-Boot 1.x", "0x80000001"),
}
UIMG_HIGH = "0x7d00000"     # in the shim's "U-Boot" area above its stack: probes leave it alone


def assert_real_board_banner(run, variant, via_go):
    gd, iccr = VARIANTS[variant]
    log = run.log
    if via_go:
        assert f"entered by U-Boot go (r3 = argc, r4 = argv; bd_t from {gd})" in log, log
    else:
        assert "entered by bd_t in r3, command line in r6/r7" in log, log
    # go's gd->bd is always in Hz; bootm's bd_t in MHz with clocks_in_mhz.
    intfreq = ("133, in MHz (clocks_in_mhz): 133000000 Hz" if "mhz" in variant and not via_go
               else "133333333")
    assert re.search(r"cpu clock: 333333330 Hz \(405EP PLL: CPC0_PLLMR0/1 0x[0-9a-f]+/0x[0-9a-f]+, "
                     rf"SysClk 33.333 MHz; bd_t intfreq {re.escape(intfreq)}\)", log), log
    # Caches as Linux's 40x MMU_init_hw sets them, read back; the loader's kept.
    assert ("caches: DCCR 0x80000000 ICCR 0x80000000 DCWR 0 SGR 0x7fffffff (read back), "
            "D-cache 16 KiB (405EP), flushed on exit=return (the loader's were DCCR 0x00000000 "
            f"ICCR {iccr} DCWR 0 SGR 0x00000000)") in log, log
    # go enters with EE on and the PIT interrupt enabled; bootm with EE off.
    msr = "0x00008000" if via_go else "0x00000000"
    assert (f"interrupts: MSR[EE,CE,DE] off at entry (the loader's MSR {msr}), TCR 0x00000000 "
            "(the loader's 0x04400000: PIT/FIT/watchdog interrupts off until exit=return)") in log
    # U-Boot's 1 ms tick measured (QEMU's ns rounding: a tick either way) and stopped.
    m = re.search(r"pit: the loader's tick, (\d+) ticks a period \(measured\), stopped while "
                  r"we run, kept for exit=return", log)
    assert m and abs(int(m.group(1)) - 333333) <= 1, log
    assert "all written invalid with TID 0 at start-up" in log
    # The shim's stack is at 0x07c00000 less its frames: probes stop 1 MiB below, on a MiB.
    assert re.search(r"probe memory: 0x[0-9a-f]+-0x[0-9a-f]+ \(below the loader's stack at "
                     r"0x7bff[0-9a-f]{3} less 1 MiB: its relocated copy lies above\), "
                     r"then page tables to 0x7a00000", log), log
    assert "exception:" not in log and "unexpected exception" not in log, log
    assert run.status() == "pass", log


AFTER_RETURN = "shim: after return: r1 r2 r13-r31 MSR EVPR TCR DCCR ICCR DCWR SGR UIC0_ER vectors: ok;"


def assert_tick_back(log):
    """U-Boot's tick arrives again after the return, at its old period."""
    m = re.search(r"at return, 0x([0-9a-f]{8}) more since, period 0x([0-9a-f]{8})", log)
    assert m and int(m.group(1), 16) == 3, log
    assert abs(int(m.group(2), 16) - 333333) < 333, log


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_firmware_variants_go_return_and_bootm(shim, variant):
    """Each firmware variant: go with a live 1 ms PIT interrupt and EE on,
    exit=return back into the shim, which checks its registers, vectors,
    timer, cache and UIC registers and that ticks still arrive at their
    period; then, in a second QEMU run (a used copy cannot start twice),
    bootm of the uImage under the same firmware."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}",
             "--qemu", "-device", "--qemu", f"loader,file={UIMG},addr={UIMG_HIGH},force-raw=on"]
    run = run_qemu("ref405ep", *variant.split(), "go", "0x400000", "probes=boot",
                   "modes=normal,pinned", "exit=return", "tlbdump=1", timeout=60, extra=extra)
    log = run.log
    assert "shim: PIT interrupt live, MSR[EE] on: 0x00000002 ticks in the first wait" in log, log
    if "junktlb" in variant:
        assert "shim: TLB filled with junk (TIDs, valid bits), PID 0x5a" in log
    assert_real_board_banner(run, variant, via_go=True)
    # Our start-up wrote every entry invalid with TID 0: the dump on leaving
    # normal shows no junk TID (the miss handlers write with PID 0).
    tids = re.findall(r"  tlb\[[ \d]+\] EPN 0x[0-9a-f]{8} \S+ +[V-] TID (\d+)", log)
    assert len(tids) == 128 and set(tids) == {"0"}, log
    assert run.results == {"boot.normal": "ok", "boot.pinned": "ok"}, log
    assert "## Application terminated, rc = 0x00000000" in log
    assert AFTER_RETURN + " PIT ticks: 0x00000002 at go, " in log, log
    assert_tick_back(log)
    assert "shim: verdict: PASS" in log and "FAIL" not in log, log
    # The second command: bootm of the uImage the first run left alone.
    run2 = run_qemu("ref405ep", *variant.split(), "bootm", UIMG_HIGH, "probes=boot",
                    "modes=real", timeout=60, extra=extra)
    assert f"## Booting kernel from Legacy Image at {UIMG_HIGH} ... load 0x00400000" in run2.log
    if "uboot1" in variant:     # 1.x bootm: both below 8 MiB, in what becomes probe memory
        assert "shim: bd_t at 0x007ff000, bootargs at 0x007ff100" in run2.log, run2.log
    assert_real_board_banner(run2, variant, via_go=False)
    assert run2.results == {"boot.real": "ok"} and run2.rc == 0, run2.log


@pytest.mark.parametrize("how", ["go", "bootm"])
def test_live_uic_source_is_masked(shim, how):
    """A UIC source U-Boot left enabled (UIC0 input 11, as its EMAC driver
    leaves it) pending at entry, U-Boot's PIT live: the probes run with EE
    on and never see it (UIC0_ER cleared while we run); after go's return
    the shim gets UIC0_ER back and the interrupt delivered once.  Without
    the masking the run fails at 0x500 (shown once by hand)."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}",
             "--qemu", "-device", "--qemu", f"loader,file={UIMG},addr={UIMG_HIGH},force-raw=on"]
    cmd = ["go", "0x400000"] if how == "go" else ["bootm", UIMG_HIGH]
    run = run_qemu("ref405ep", "uboot1", "uicirq", *cmd, "probes=boot,tlbwalk",
                   "modes=normal,pinned", "quick", "exit=return" if how == "go" else "exit=qemu",
                   timeout=60, extra=extra)
    log = run.log
    assert ("shim: UIC0 source 11 (MAL RX end of buffer) enabled and pending: UIC0_ER 0x00100000 "
            "SR 0x00100000") in log, log
    assert ("uic: UIC0_ER 0x00000000 while we run, UIC0_MSR 0x00000000 (the loader's ER "
            "0x00100000, SR 0x00100000: enables kept for exit=return)") in log, log
    assert "TCR 0x00000000 (the loader's 0x04400000" in log, log
    assert "exception:" not in log, log
    assert run.status() == "pass" and run.rc == 0, log
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == 256
    if how == "go":
        assert AFTER_RETURN + " UIC source delivered after return: 0x00000001; PIT ticks" in log, log
        assert_tick_back(log)
        assert "shim: verdict: PASS" in log, log


@pytest.mark.parametrize("variant", ["uboot1", "uboot2017 junktlb"])
def test_return_then_second_command(shim, variant):
    """After exit=return the shim takes its second command (after ';'):
    it still works, after its verdict."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = subprocess.run([os.path.join(TOP, "tools", "run-qemu"), "ref405ep", "--icount",
                          "--timeout", "60", *extra, *variant.split(), "go", "0x400000",
                          "probes=boot", "modes=normal", "exit=return", ";", "echo", "still", "here"],
                         capture_output=True, text=True, timeout=90)
    log = run.stdout
    assert "shim: verdict: PASS" in log, log
    assert "shim: echo still here icount=0" in log, log
    assert log.index("shim: verdict: PASS") < log.index("shim: echo still here")


def test_qemu_kernel_takes_only_elf():
    """A fact the README relies on: QEMU 7.2's ref405ep -kernel loads ELF
    only, so the uImage is tested through the shim above."""
    p = subprocess.run(["qemu-system-ppc", "-M", "ref405ep", "-m", "128", "-display", "none",
                        "-monitor", "none", "-serial", "null", "-no-reboot", "-kernel", UIMG],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode != 0 and "not ELF" in p.stderr


def test_walnut_builds_and_has_no_qemu():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=walnut"], check=True, timeout=300)
    for f in ("mmubench.elf", "mmubench.bin", "mmubench.uimg"):
        assert os.path.getsize(os.path.join(TOP, "build", "walnut", f)) > 0
    p = subprocess.run([os.path.join(TOP, "tools", "run-qemu"), "walnut"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 3
    assert "walnut is real hardware, QEMU has no Walnut" in p.stderr


WALNUT_ELF = os.path.join(TOP, "build", "walnut", "mmubench.elf")


def test_walnut_image_under_the_stand_in(shim):
    """The walnut image itself, booted by the U-Boot 1.x stand-in with a
    live UIC source and PIT: its board code (RAM from the SDRAM controller,
    U-Boot's baud rate kept, no QEMU exit) runs and returns to the loader.
    The stand-in's CPU is QEMU's 405EP: the 405GP's own paths (CPC0_PLLMR
    decoding, CPC0_CR1[CETE] and CPC0_PSR, the 8 KiB D-cache) do not run."""
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=walnut"], check=True, timeout=300)
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={WALNUT_ELF}"]
    run = run_qemu("ref405ep", "uboot1", "uicirq", "go", "0x400000", "probes=boot,tlbwalk",
                   "modes=normal,pinned", "quick", "exit=return", timeout=60, extra=extra)
    log = run.log
    assert re.search(r"# mmubench \S+ on walnut \(ppc405\), entered by U-Boot go .*gd in r29", log), log
    assert "ram: 128 MiB (SDRAM controller bank registers)" in log, log
    assert "uic: UIC0_ER 0x00000000 while we run" in log, log
    assert run.results == {"boot.normal": "ok", "boot.pinned": "ok", "tlbwalk.normal": "ok",
                           "tlbwalk.pinned": "ok"}, log
    assert run.value("tlbwalk.normal.dtlb_misses_per_pass") == 256
    assert "## Application terminated, rc = 0x00000000" in log, log
    assert AFTER_RETURN + " UIC source delivered after return: 0x00000001" in log, log
    assert_tick_back(log)
    assert "shim: verdict: PASS" in log, log


def test_watchdog_and_the_loaders_pit(shim):
    """After U-Boot's go its PIT auto-reloads (1 ms): that tick is measured
    and stopped, the watchdog's one-shot PIT stops a probe past a 2 ms
    budget, and U-Boot's tick runs again after exit=return at its period."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "uboot1", "go", "0x400000", "probes=aspace,boot", "modes=normal",
                   "quick", "watchdog=2", "exit=return", timeout=60, extra=extra)
    assert run.results == {"aspace.normal": "timeout", "boot.normal": "ok"}, run.log
    assert "## Application terminated, rc = 0x00000001" in run.log, run.log
    assert_tick_back(run.log)
    # Every register given back (the vectors: the test below).
    assert "shim: after return: vector checksum" in run.log or AFTER_RETURN in run.log, run.log
    for reg in ("MSR", "EVPR", "TCR", "DCCR", "ICCR", "UIC0_ER"):
        assert f"shim: after return: {reg} is" not in run.log, run.log


@pytest.mark.parametrize("ms", [1, 2, 3, 4])
def test_watchdog_stop_in_aspace_keeps_the_loaders_vectors(shim, ms):
    """The watchdog never stops a probe inside the MMU core's space
    bookkeeping.  It once did (seen under -icount with aspace stopped at
    2 ms, the timer interrupt landing in mmu_table_alloc under space_init):
    the space kept its id with no window table, mmu_leave's clean-up freed
    table 0, and the pool's free-list link overwrote the loader's vector
    word at physical 0.  Which budget lands there depends on the image's
    code layout, so several budgets are stopped here; each must still be a
    TIMEOUT with every vector given back."""
    extra = ["--kernel", shim, "--qemu", "-device", "--qemu", f"loader,file={ELF}"]
    run = run_qemu("ref405ep", "uboot1", "go", "0x400000", "probes=aspace,boot", "modes=normal",
                   "quick", f"watchdog={ms}", "exit=return", timeout=60, extra=extra)
    assert run.results == {"aspace.normal": "timeout", "boot.normal": "ok"}, run.log
    assert AFTER_RETURN in run.log, run.log
