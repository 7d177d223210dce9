"""The CPUID decoder (arch/x86/cpuid*.c), on the host through
build/tools/cpuiddecode: recorded registers of real CPUs
(selftest/data/cpuid/, see its README) against the figures their vendors
publish, what is unknown left out, and this machine's own CPUID against
the image's banner."""
import os
import re
import subprocess

import pytest

from conftest import TOP, parse

DECODE = os.path.join(TOP, "build", "tools", "cpuiddecode")
DATA = os.path.join(TOP, "selftest", "data", "cpuid")
SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


def decode(arg):
    p = subprocess.run([DECODE, arg], capture_output=True, text=True, timeout=30)
    m = {}
    for line in p.stdout.splitlines():
        g = re.match(r"# measurement cpuid\.dump\.(\S+) (\d+) \S+$", line)
        if g:
            m[g.group(1)] = int(g.group(2))
    return p, m


def tlb(m):
    return {k: v for k, v in m.items() if "tlb" in k}


# Each CPU: the TLB source named in the banner and every TLB figure
# (entries, exact ways) expected; anything else printed is a failure.
# The figures are the vendors' (Intel's optimization manual, AMD's
# software optimization guides) where those agree with the registers.
GOLDEN_COVE = {
    # load-only L1: 64 4K, 32 2M/4M, 8 1G (the 16-entry store TLB is not
    # a load's); STLB: 4K/2M/4M array 1024 + 4K/1G array 1024
    "dtlb_entries": 64, "dtlb_ways": 4, "dtlb_large_entries": 32, "dtlb_large_ways": 4,
    "dtlb_1g_entries": 8, "dtlb_1g_ways": 8,
    "stlb_entries": 2048, "stlb_ways": 8, "stlb_large_entries": 1024, "stlb_large_ways": 8,
    "stlb_1g_entries": 1024, "stlb_1g_ways": 8, "itlb_entries": 256}
CPUS = {
    "intel-golden-cove-i5-12400.txt": ("CPUID 0x18", GOLDEN_COVE),
    # Lion Cove: Golden Cove's but for a 4K load L1 of 128 entries, 8 ways
    "intel-lion-cove-ultra-7-265k.txt": ("CPUID 0x18", {**GOLDEN_COVE, "dtlb_entries": 128,
                                                        "dtlb_ways": 8}),
    "intel-skylake-i7-6700k.txt": ("CPUID 0x2 descriptors", {
        # 0x03, 0x63 (and its 1G array), 0xc3 (and its 1G array), 0xb5
        "dtlb_entries": 64, "dtlb_ways": 4, "dtlb_large_entries": 32, "dtlb_large_ways": 4,
        "dtlb_1g_entries": 4, "dtlb_1g_ways": 4,
        "stlb_entries": 1536, "stlb_ways": 6, "stlb_large_entries": 1536, "stlb_large_ways": 6,
        "stlb_1g_entries": 16, "stlb_1g_ways": 4, "itlb_entries": 64}),
    "intel-ivy-bridge-i7-3770k.txt": ("CPUID 0x2 descriptors", {
        # 0x5a "Data TLB0" is the only 2M/4M data TLB: the first level
        "dtlb_entries": 64, "dtlb_ways": 4, "dtlb_large_entries": 32, "dtlb_large_ways": 4,
        "stlb_entries": 512, "stlb_ways": 4, "itlb_entries": 64}),
    "amd-zen2-ryzen-7-3700x.txt": ("CPUID 0x80000005/6/19 of AMD", {
        # L2 ways are AMD's ranged codes: bounds, not printed as figures
        "dtlb_entries": 64, "dtlb_ways": 64, "dtlb_large_entries": 64, "dtlb_large_ways": 64,
        "dtlb_1g_entries": 64, "dtlb_1g_ways": 64,
        "stlb_entries": 2048, "stlb_large_entries": 2048, "itlb_entries": 64}),
    "amd-zen3-ryzen-9-5950x.txt": ("CPUID 0x80000005/6/19 of AMD", {
        "dtlb_entries": 64, "dtlb_ways": 64, "dtlb_large_entries": 64, "dtlb_large_ways": 64,
        "dtlb_1g_entries": 64, "dtlb_1g_ways": 64,
        "stlb_entries": 2048, "stlb_large_entries": 2048, "stlb_1g_entries": 64,
        "stlb_1g_ways": 64, "itlb_entries": 64}),
    "amd-zen4-ryzen-7-7700x.txt": ("CPUID 0x80000005/6/19 of AMD", {
        "dtlb_entries": 72, "dtlb_ways": 72, "dtlb_large_entries": 72, "dtlb_large_ways": 72,
        "dtlb_1g_entries": 72, "dtlb_1g_ways": 72,
        "stlb_entries": 3072, "stlb_large_entries": 3072, "stlb_1g_entries": 64,
        "stlb_1g_ways": 64, "itlb_entries": 64}),
    "amd-zen5-ryzen-9-9950x.txt": ("CPUID 0x80000005/6/19 of AMD", {
        # L1 96 as AMD says; the L2 fields read 128 where Zen 5 has 4096:
        # unknown, so absent
        "dtlb_entries": 96, "dtlb_ways": 96, "dtlb_large_entries": 96, "dtlb_large_ways": 96,
        "dtlb_1g_entries": 96, "dtlb_1g_ways": 96, "itlb_entries": 64}),
    "amd-zen4-epyc-genoa-kvm.txt": ("CPUID 0x80000005/6 of AMD", {
        "dtlb_entries": 72, "dtlb_ways": 72, "dtlb_large_entries": 72, "dtlb_large_ways": 72,
        "stlb_entries": 3072, "stlb_large_entries": 3072, "itlb_entries": 64}),
}

CACHES = {      # l1d, l2, line: leaf 4 or 0x8000001D
    "intel-golden-cove-i5-12400.txt": (48 << 10, 1280 << 10, 64),
    "intel-lion-cove-ultra-7-265k.txt": (48 << 10, 3 << 20, 64),
    "intel-skylake-i7-6700k.txt": (32 << 10, 256 << 10, 64),
    "amd-zen3-ryzen-9-5950x.txt": (32 << 10, 512 << 10, 64),
    "amd-zen5-ryzen-9-9950x.txt": (48 << 10, 1 << 20, 64),
}


def test_every_recorded_cpu_listed():
    assert sorted(f for f in os.listdir(DATA) if f.endswith(".txt")) == sorted(CPUS)


@pytest.mark.parametrize("name", sorted(CPUS))
def test_recorded_cpu(name):
    src, want = CPUS[name]
    p, m = decode(os.path.join(DATA, name))
    assert p.returncode == 0, p.stderr
    assert f"# cpu TLBs ({src}): dTLB 4K {want['dtlb_entries']} " in p.stdout, p.stdout
    assert tlb(m) == want, p.stdout
    if name in CACHES:
        l1d, l2, line = CACHES[name]
        assert (m["l1d_bytes"], m["l2_bytes"], m["line_bytes"]) == (l1d, l2, line)


def test_zen5_says_why_l2_is_unknown():
    p, m = decode(os.path.join(DATA, "amd-zen5-ryzen-9-9950x.txt"))
    assert "STLB not reported" in p.stdout
    assert re.search(r"# cpu TLBs: AMD family 1Ah\+: .*L2 TLB unknown", p.stdout), p.stdout
    assert not any(k.startswith("stlb") for k in m)


def variant(tmp_path, name, edit):
    lines = open(os.path.join(DATA, name)).read().splitlines()
    path = tmp_path / name
    path.write_text("\n".join(edit(lines)) + "\n")
    return str(path)


def test_empty_leaf18_is_unknown_not_a_number(tmp_path):
    """The issue's Xeon guest: leaf 2 says "see leaf 0x18" and 0x18 is empty."""
    path = variant(tmp_path, "intel-golden-cove-i5-12400.txt",
                   lambda ls: [l for l in ls if not l.startswith("CPUID 00000018:")])
    p, m = decode(path)
    assert p.returncode == 0
    assert tlb(m) == {}, p.stdout
    assert "# cpu TLBs (not reported by CPUID): none: TLB sizes unknown" in p.stdout
    assert "CPUID 2 points to leaf 0x18, which is empty" in p.stdout
    assert m["l1d_bytes"] == 48 << 10          # the caches still come from leaf 4


def test_amd_without_tlb_leaves(tmp_path):
    path = variant(tmp_path, "amd-zen3-ryzen-9-5950x.txt",
                   lambda ls: [re.sub(r"^(CPUID 8000000[56]: ).*", r"\g<1>00000000-00000000-"
                                      r"00000000-00000000", l) for l in ls
                               if not l.startswith("CPUID 80000019:")])
    p, m = decode(path)
    assert tlb(m) == {}, p.stdout
    assert "TLB sizes unknown" in p.stdout


def test_unknown_leaf2_descriptor_counted(tmp_path):
    path = variant(tmp_path, "intel-ivy-bridge-i7-3770k.txt",
                   lambda ls: [l.replace("-00CA0000", "-00CA0049") for l in ls])
    p, m = decode(path)
    assert "1 CPUID 2 descriptor(s) not in our table" in p.stdout, p.stdout
    assert m["stlb_entries"] == 512


def test_hypervisor_signature():
    p, _ = decode(os.path.join(DATA, "amd-zen4-epyc-genoa-kvm.txt"))
    assert "# platform: KVM" in p.stdout
    p, _ = decode(os.path.join(DATA, "amd-zen3-ryzen-9-5950x.txt"))
    assert "# platform: bare hardware (CPUID: no hypervisor)" in p.stdout


def test_bad_dump_is_an_error(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("CPUID 00000000: 00000010-68747541\n")
    p = subprocess.run([DECODE, str(bad)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "not a CPUID line" in p.stderr
    p = subprocess.run([DECODE, str(tmp_path / "missing.txt")], capture_output=True, text=True,
                       timeout=30)
    assert p.returncode == 2


def getconf(name):
    p = subprocess.run(["getconf", name], capture_output=True, text=True, timeout=30)
    return int(p.stdout) if p.returncode == 0 and p.stdout.strip().isdigit() else 0


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="needs an x86-64 host")
def test_this_machine_as_the_image_says():
    """--live against glibc's reading of CPUID (getconf) and the sandbox's
    banner and measurements: one decoder."""
    p, live = decode("--live")
    assert p.returncode == 0
    for key, conf in (("l1d_bytes", "LEVEL1_DCACHE_SIZE"), ("l2_bytes", "LEVEL2_CACHE_SIZE")):
        if getconf(conf) and key in live:
            assert live[key] == getconf(conf), (key, p.stdout)
    s = subprocess.run([SANDBOX, "probes=boot", "modes=4k", "reps=1"], capture_output=True,
                       text=True, timeout=120)
    run = parse(s.stdout)
    image = {k.split(".", 2)[2]: int(v[0]) for k, v in run.measurements.items()
             if k.startswith("cpuid.4k.")}
    assert image == live, s.stdout
    banner = [l for l in run.lines if l.startswith("# cpu TLBs")]
    assert banner == [l for l in p.stdout.splitlines() if l.startswith("# cpu TLBs")]
