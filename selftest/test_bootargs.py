"""Boot arguments as a U-Boot bootargs line carries them: Linux's keys
accepted and ignored with a diagnostic each, mem= honoured as Linux's (the
RAM the run may use), unknown keys of ours still refused."""
import os
import re
import subprocess

import pytest

from conftest import TOP, parse, run_qemu

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")
MiB = 1 << 20

# What LAVA's base-uboot template and saved U-Boot environments put in
# bootargs, one word of each key of boot/args_linux.c's table.
LINUX_LINE = ("console=ttyS0,115200n8 earlycon earlycon=uart8250,mmio32,0xef600300 "
              "earlyprintk root=/dev/nfs rootfstype=nfs rootwait rootdelay=2 rw ro "
              "nfsroot=10.0.0.1:/srv/nfs/walnut,tcp,hard ip=dhcp init=/sbin/init "
              "initrd=0x1000000 noinitrd loglevel=8 quiet debug panic=10 "
              "mtdparts=physmap-flash.0:512k(u-boot)ro fsck.repair=yes").split()


def lines_with(run, prefix):
    return [l for l in run.lines if l.startswith(prefix)]


def one(run, pattern):
    found = [m for m in (re.match(pattern, l) for l in run.lines) if m]
    assert len(found) == 1, f"{pattern!r}: {len(found)} lines in:\n{run.log}"
    return found[0]


def check_mem_limit(run, limit, extra_mapped=0):
    """Everything sized by RAM below `limit`: the banner, the page tables,
    the probes' highest address, and every mode's own mapping figure."""
    assert one(run, r"# ram: (\d+) MiB \(mem=").group(1) == str(limit // MiB)
    m = one(run, r"# mem=\S+: RAM below (0x[0-9a-f]+) only: probe memory (0x[0-9a-f]+)-"
                 r"(0x[0-9a-f]+)")
    assert int(m.group(1), 16) <= limit and int(m.group(3), 16) <= limit
    high = one(run, r"# mem=\S+: the highest address a probe was given (0x[0-9a-f]+)")
    assert int(high.group(1), 16) < limit
    mapped = {k: v for k, (v, _) in run.measurements.items() if k.endswith(".mapped_bytes")}
    assert mapped, run.log
    for name, v in mapped.items():        # the MMU's own figure, not ours
        assert v <= limit + extra_mapped, f"{name} = {v:.0f}, more than mem= allows"


def test_ref405ep_bootargs_line_with_mem_32m():
    """The issue's line: console= ignored (said so), mem=32M: the quick
    suite passes with every mode mapping, and every probe using, RAM below
    32 MiB; the 405's own banner line agrees."""
    run = run_qemu("ref405ep", "quick", "console=ttyS0,115200n8", "mem=32M", timeout=120)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert "# ignored boot argument 'console=ttyS0,115200n8': Linux's, not mmubench's" in run.lines
    assert not [r for r, v in run.results.items() if v not in ("ok", "skip")], run.log
    check_mem_limit(run, 32 * MiB, extra_mapped=4096)      # + the UART's page
    pt = one(run, r"# probe memory: 0x[0-9a-f]+-(0x[0-9a-f]+) .*then page tables to (0x[0-9a-f]+)")
    assert int(pt.group(2), 16) == 32 * MiB
    # tlbwalk walks at the top of probe memory (walk_region=auto); where a
    # probe could not work within 32 MiB it says why.
    assert run.results["tlbwalk.normal"] == "ok", run.log
    assert "no room for 1024 KiB at or above 64 MiB" in run.log, run.log
    assert run.value("tlbwalk.normal.region_start") + MiB <= 32 * MiB
    assert "pins cover all of RAM" in run.skips["tlb.pinned"]


def test_ref405ep_without_mem_maps_all_ram():
    """The control: without mem= the same figures show the board's 128 MiB,
    so the checks above can fail."""
    run = run_qemu("ref405ep", "quick", "probes=boot", "modes=normal")
    assert run.rc == 0, run.log
    assert one(run, r"# ram: (\d+) MiB").group(1) == "128"
    assert run.value("mmu.normal.mapped_bytes") > 32 * MiB
    assert not lines_with(run, "# mem=")


def test_pc_mem_32m():
    """The same line on pc (KVM where it works, TCG otherwise)."""
    run = run_qemu("pc", "quick", "console=ttyS0,115200n8", "mem=32M", icount=False, timeout=180)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert "# ignored boot argument 'console=ttyS0,115200n8': Linux's, not mmubench's" in run.lines
    check_mem_limit(run, 32 * MiB)


def test_every_linux_key_ignored_with_a_diagnostic():
    run = run_qemu("ref405ep", "probes=boot", "modes=normal", *LINUX_LINE)
    assert run.rc == 0 and run.status() == "pass", run.log
    said = [l for l in run.lines if l.startswith("# ignored boot argument ")]
    assert said == ["# ignored boot argument '%s': Linux's, not mmubench's" % w for w in LINUX_LINE]


def test_unknown_keys_still_refused():
    """bogus=1 fails as before, beside Linux's words; so does a Linux key in
    a form Linux does not take (rw=1, a bare console)."""
    for word in ("bogus=1", "rw=1", "console", "quiet=1"):
        run = run_qemu("ref405ep", "console=ttyS0,115200n8", "mem=32M", word)
        assert run.rc == 1 and run.status() == "fail", run.log
        assert f"mmubench: error: unknown boot argument '{word}'; valid keys:" in run.log
        assert "(Linux's, accepted and ignored: console= " in run.log


def test_mem_errors():
    """A size the board does not have, one the image cannot live in, and
    malformed sizes: each its own message and a failing status."""
    cases = {
        "mem=1G": "more than the 128 MiB of RAM the board reports (bd_t memsize)",
        "mem=129M": "more than the 128 MiB of RAM the board reports",
        "mem=1M": "too small: the image's area ends at",
        "mem=32X": "needs a size",
        "mem": "needs a size",
        "mem=0": "no RAM at all",
        "mem=100000": "not a whole number of 4 KiB pages",
        "mem=-32M": "needs a size",
    }
    for word, why in cases.items():
        run = run_qemu("ref405ep", "probes=boot", word)
        assert run.rc == 1 and run.status() == "fail", (word, run.log)
        assert f"mmubench: error: boot argument '{word}': {why}" in run.log, (word, run.log)
    run = run_qemu("pc", "probes=boot", "mem=1G", icount=False, mem=256)
    assert run.rc == 1 and "more than the" in run.log and "multiboot memory map" in run.log, run.log


def test_mem_applies_before_other_arguments():
    """mem= comes first wherever it stands: walk_pages is bounded by the RAM
    mem= leaves (32 MiB = 8192 pages), and the last mem= wins."""
    run = run_qemu("ref405ep", "probes=boot", "walk_pages=9000", "mem=32M")
    assert run.rc == 1 and "'walk_pages=9000': out of range 1..8192" in run.log, run.log
    run = run_qemu("ref405ep", "probes=boot", "modes=normal", "mem=32M", "mem=48M")
    assert run.rc == 0 and one(run, r"# ram: (\d+) MiB").group(1) == "48", run.log


def sandbox(*args):
    p = subprocess.run([SANDBOX, *args], capture_output=True, text=True, timeout=120)
    run = parse(p.stdout)
    run.rc = p.returncode
    return run


def test_sandbox_mem_within_ram():
    """On the sandbox mem= is the first SIZE of its RAM (ram= sizes it):
    probe memory ends at RAM's base (0x10000000) + SIZE; more than ram= is
    an error."""
    run = sandbox("ram=64M", "mem=32M", "console=ttyS0,115200n8", "probes=boot,demand",
                  "modes=4k", "quick")
    assert run.rc == 0 and run.status() == "pass", run.log
    m = one(run, r"# mem=32M: RAM below (0x[0-9a-f]+) only: probe memory 0x[0-9a-f]+-(0x[0-9a-f]+)")
    assert int(m.group(1), 16) == 0x10000000 + 32 * MiB >= int(m.group(2), 16)
    high = one(run, r"# mem=32M: the highest address a probe was given (0x[0-9a-f]+)")
    assert int(high.group(1), 16) < 0x10000000 + 32 * MiB
    run = sandbox("ram=64M", "mem=66M", "probes=boot")
    assert run.rc == 1 and "'mem=66M': more than the 64 MiB of RAM the board reports" in run.log


@pytest.mark.parametrize("word,why", [
    # 2^54 + 1 KiB: shifted first, it wrapped to 1024 and passed
    ("fault_pages=18014398509481985k", "out of range 1..4096"),
    ("fault_pages=4194305m", "out of range 1..4096"),
    ("fault_pages=99999999999999999999", "out of range 1..4096"),
    ("fault_pages=k", "not a number"),
    ("fault_pages=5k", "out of range 1..4096"),
])
def test_a_number_out_of_range_before_its_suffix(word, why):
    """arg_uint checks the range before it multiplies by k or m, so no
    value wraps into range (boot/args.c)."""
    run = sandbox("probes=boot", word)
    assert run.rc == 1 and f"mmubench: error: boot argument '{word}': {why}" in run.log, run.log


def test_a_suffix_multiplies_within_range():
    run = sandbox("probes=demand", "modes=4k", "fault_pages=4k")
    assert run.rc == 0 and "error" not in run.log, run.log
