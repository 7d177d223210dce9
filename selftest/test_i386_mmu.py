"""i386 paging modes (issue 4): every mode enters, self-checks and runs the
probes; exact fault counts; 100 switches; page-table bytes as computed from
the mapping's size; global pages, NX, ptdump, the self-check catching a
broken mapping; too little memory is a clear error.  Several checks share
one boot to keep the suite short."""
import re

import pytest

from conftest import run_qemu

PAGING = ["2level", "pse", "pae", "pae2m"]
K4, M2, M4, G1 = 4096, 2 << 20, 4 << 20, 1 << 30


def ceil(a, b):
    return -(-a // b)


def expected_pagetable_bytes(mode, end):
    """Tables for a 1:1 map of [0, end): 2level one directory plus a table
    per 4M; pse the directory, a table for the first 4M (4K pages there,
    see large_page_layout) and one for a partial last 4M; pae a 32-byte
    PDPT, a directory per GiB and a table per 2M; pae2m the PDPT, the
    directories, a table for the first 2M and one for a partial last 2M."""
    if mode == "2level":
        return K4 + ceil(end, M4) * K4
    if mode == "pse":
        return K4 + K4 + (K4 if end % M4 and end > M4 else 0)
    if mode == "pae":
        return 32 + ceil(end, G1) * K4 + ceil(end, M2) * K4
    if mode == "pae2m":
        return 32 + ceil(end, G1) * K4 + K4 + (K4 if end % M2 and end > M2 else 0)
    raise ValueError(mode)


LARGE = {"pse": M4, "pae2m": M2}


def large_page_layout(mode, end):
    """The default map of [0, end) in a large-page mode: the first large
    page's span in 4K pages (it holds the first MiB, whose fixed-range
    MTRRs make several memory types, and the image, loaded at 1 MiB), then
    large pages up to the last whole one, then 4K pages for RAM's partial
    end.  Returns (4K span end, large end)."""
    big = LARGE[mode]
    lend = end // big * big
    return big, max(lend, big)


def ptdump_lines(run, mode):
    """The decoded lines of one mode's ptdump."""
    out, on = [], False
    for line in run.lines:
        if line.startswith("# ptdump "):
            on = line.startswith(f"# ptdump {mode}:")
            continue
        if on and line.startswith("#   "):
            out.append(line)
        elif on:
            on = False
    return out


def check_modes(run, mem_desc):
    for mode in PAGING:
        end = int(run.value(f"mmu.{mode}.mapped_bytes"))
        got = run.value(f"mmu.{mode}.pagetable_bytes")
        assert got == expected_pagetable_bytes(mode, end), f"{mode} {mem_desc}: {got}"
        assert run.results[f"demand.{mode}"] == "ok", run.log
        # every page fault counted: the K of the page-fault pass and the
        # null faults (each skipped by its hook)
        assert run.value(f"demand.{mode}.page_faults") == 64 + run.value(f"demand.{mode}.null_faults")
        assert run.value(f"demand.{mode}.prot_faults") == 64
        assert run.value(f"demand.{mode}.page_faults_counted") == 64
        assert run.value(f"demand.{mode}.prot_faults_counted") == 64
        assert run.results[f"modeswitch.{mode}"] == "ok", run.log
        assert run.value(f"modeswitch.{mode}.switches") == 100
        # Each switch starts from a full flush: at least 100 counted.
        assert run.value(f"modeswitch.{mode}.flushes") >= 100
    v = {m: run.value(f"mmu.{m}.pagetable_bytes") for m in PAGING}
    assert v["pae"] > v["2level"]
    assert v["pse"] * 8 < v["2level"] and v["pae2m"] * 8 < v["pae"]  # "far less"


@pytest.fixture(scope="module")
def all_modes():
    return run_qemu("pc", "probes=boot,demand,modeswitch", "modes=all",
                    "ptdump=0x0-0x800000", timeout=120)


def test_every_mode_enters_checks_and_runs(all_modes):
    run = all_modes
    assert run.rc == 0 and run.status() == "pass", run.log
    for mode in ["flat"] + PAGING:
        assert run.results[f"boot.{mode}"] == "ok"
    assert run.results["demand.flat"] == "skip"
    check_modes(run, "256 MiB")


def test_default_map_before_any_split(all_modes):
    """The dump is taken when a mode is first left: after `boot`, which maps
    nothing, it shows the default mapping: in pse and pae2m only the first
    large page's span is a table, everything above large pages."""
    run = all_modes
    for mode in ("pse", "pae2m"):
        dump = [l for l in ptdump_lines(run, mode) if "PDE[" in l]
        assert dump and "-> table" in dump[0] and dump[0].startswith("#   0x00000000-"), dump
        assert all("(large page)" in l for l in dump[1:]), dump
    for mode in ("2level", "pae"):
        dump = ptdump_lines(run, mode)
        assert any("-> table" in l for l in dump) and any("PTE(s) ->" in l for l in dump)


def test_large_pages_split_for_4k_faults():
    """With `demand` first, the dump shows what it did: its buffer at the
    start of probe RAM (3 MiB) lies in pae2m's 2M page at 2 MiB, which its
    4K unmaps and protects split into a table; the 2M pages above stay."""
    run = run_qemu("pc", "probes=demand", "modes=pae2m", "ptdump=0x200000-0x600000",
                   timeout=60)
    assert run.rc == 0 and run.status() == "pass", run.log
    dump = [l for l in ptdump_lines(run, "pae2m") if "PDE[" in l]
    assert len(dump) == 2, dump
    assert dump[0].startswith("#   0x00200000-0x003fffff") and "-> table" in dump[0], dump
    assert "(large page)" in dump[1], dump
    ptes = [l for l in ptdump_lines(run, "pae2m") if "PTE(s)" in l]
    assert len(ptes) > 1, ptes   # split: runs of 4K entries, not one


PDE_LINE = re.compile(r"^#   (0x[0-9a-f]{8})-(0x[0-9a-f]{8}) PDE\[\d+\] = \S+: (.*)$")
PTE_LINE = re.compile(r"^#     (0x[0-9a-f]{8})-(0x[0-9a-f]{8}) +(\d+) PTE\(s\) (.*)$")


def test_first_large_page_is_4k_pages():
    """Issue 12, item 8: the fixed-range MTRRs give the first MiB several
    memory types, so a real CPU splits a large page over it into 4K TLB
    entries (SDM Vol. 3A 11.11.9).  pse and pae2m map the first large
    page's span (0..4M, 0..2M) with 4K pages, large pages above it up to
    the last whole one, 4K pages for RAM's partial end; the ptdump shows
    exactly that, and the mode's line says which ranges are large.  30 MiB:
    RAM ends inside a 4M and a 2M page, so the tail is there in both."""
    run = run_qemu("pc", "probes=boot", "modes=pse,pae2m", "ptdump=0x0-0x2000000", mem=30,
                   timeout=60)
    assert run.rc == 0 and run.status() == "pass", run.log
    image = [re.match(r"# image: (0x[0-9a-f]+)-(0x[0-9a-f]+)", l) for l in run.lines]
    image = [(int(m.group(1), 16), int(m.group(2), 16)) for m in image if m]
    assert image and image[0][0] == 1 << 20, run.log   # loaded at 1 MiB
    # Why: SeaBIOS's fixed-range MTRRs give the first MiB several types.
    mtrr = [l for l in run.lines if l.startswith("# mtrr (read only): enabled, fixed ranges on")]
    assert mtrr and len(mtrr[0].split("first MiB:")[1].split()) >= 2, run.log
    for mode in ("pse", "pae2m"):
        big = LARGE[mode]
        end = int(run.value(f"mmu.{mode}.mapped_bytes"))
        assert 16 << 20 < end < 30 << 20 and end % big, (mode, end)
        small_end, lend = large_page_layout(mode, end)
        assert image[0][0] < small_end      # the image starts in 4K pages
        assert lend == end // big * big
        # The mode's line names the ranges.
        want = (f"# {mode}: large pages 0x{small_end:08x}-0x{lend - 1:08x}; 4K pages "
                f"0x00000000-0x{small_end - 1:08x} (fixed-range MTRRs split the first MiB), "
                f"0x{lend:08x}-0x{end - 1:08x} (RAM's end)")
        assert want in run.lines, f"{want!r} not in:\n{run.log}"
        # The dump: one PDE line per large page's span over 0..32M.
        dump = ptdump_lines(run, mode)
        pdes = [(int(m.group(1), 16), m.group(3), i) for i, l in enumerate(dump)
                for m in [PDE_LINE.match(l)] if m]
        assert [a for a, _, _ in pdes] == list(range(0, 32 << 20, big)), dump
        large = [a for a, what, _ in pdes if what.endswith("(large page)")]
        assert large == list(range(small_end, lend, big)), dump
        for a, what, i in pdes:
            if a in large:
                assert " PS " in what
                continue
            if a >= end:
                assert what == "not-present", dump
                continue
            assert "-> table" in what, dump
            # Its PTEs: present from a to the end of RAM or of the span.
            ptes = []
            for l in dump[i + 1:]:
                m = PTE_LINE.match(l)
                if not m:
                    break
                ptes.append((int(m.group(1), 16), int(m.group(2), 16), m.group(4)))
            top = min(a + big, end)
            present = [p for p in ptes if p[2].startswith("->")]
            assert present and present[0][0] == a and present[-1][1] == top - 1, dump
            assert all(p[0] == q[1] + 1 for p, q in zip(present[1:], present)), dump
            assert all(p[2] == "not present" for p in ptes if p not in present), dump
        assert run.value(f"mmu.{mode}.pagetable_bytes") == expected_pagetable_bytes(mode, end)


def test_nx_under_pae(all_modes):
    run = all_modes
    text = "\n".join(run.lines)
    if "NX yes" not in text:
        pytest.skip("the CPU has no NX")
    assert re.search(r"# pae: 1:1 map .* NX on", text)
    assert re.search(r"# 2level: 1:1 map .* NX off", text)
    # RAM above the image is no-execute, the image is not.
    dump = ptdump_lines(run, "pae")
    assert any(" NX" in l for l in dump if "PTE(s)" in l), dump
    assert any(l.startswith("#     0x00000000-") and " NX" not in l for l in dump), dump


def test_global_pages_and_another_ram_size():
    run = run_qemu("pc", "probes=demand,modeswitch", "modes=2level,pse,pae,pae2m", "global=1",
                   "ptdump=0x0-0x800000", mem=100, timeout=120)
    assert run.rc == 0 and run.status() == "pass", run.log
    check_modes(run, "100 MiB")
    for mode in PAGING:
        dump = ptdump_lines(run, mode)
        # The image's area is global, probe RAM above 4M is not.
        assert any(" G" in l for l in dump), dump
        assert any(l.startswith("#   0x00400000") or l.startswith("#     0x00400000")
                   for l in dump), dump
        high = [l for l in dump if "0x00400000-" in l or "0x00600000-" in l]
        assert high and all(" G" not in l for l in high), dump
    assert "global on (0 .. image end)" in run.log


def test_self_check_catches_a_broken_mapping():
    run = run_qemu("pc", "probes=boot", "modes=all", "mmu_break=1", timeout=60)
    assert run.status() == "fail" and run.rc == 1
    assert run.results["boot.flat"] == "ok"
    m = re.search(r"mmu_break: mapping 0x([0-9a-f]{8}) to 0x([0-9a-f]{8}) on purpose", run.log)
    va, pa = int(m.group(1), 16), int(m.group(2), 16)
    assert pa == va - 4096, run.log
    for mode in PAGING:
        assert run.results[f"boot.{mode}"] == "not ok"
        assert any(l.startswith(f"# self-check of {mode} failed: probe memory at 0x{va >> 12:05x}")
                   for l in run.lines), run.log
        assert any(l.startswith(f"# self-check of {mode} failed: probe memory at ") and
                   f"query says it maps to 0x{pa >> 12:05x}" in l and
                   "the hardware goes there too" in l for l in run.lines), run.log
    # The chain shows the bad entry: virtual page -> the frame below it.
    chains = [int(m.group(1), 16) for l in run.lines
              for m in [re.match(r"#   PTE chain for (0x[0-9a-f]{8}) ", l)] if m]
    frames = [int(m.group(1), 16) for l in run.lines
              for m in [re.match(r"#     4K page: physical (0x[0-9a-f]{8})", l)] if m]
    assert len(chains) == 4 and frames == [a - 4096 for a in chains], run.log


def test_too_little_memory_is_a_clear_error():
    # The probe asks for more than RAM holds: its own error, a failing status.
    run = run_qemu("pc", "probes=demand", "modes=2level", "fault_pages=4096", mem=8, timeout=60)
    assert run.status() == "fail" and run.rc == 1, run.log
    assert "does not fit in free RAM" in run.log
    assert "# exception:" not in run.log
    # RAM too small for the page tables themselves: each mode says why.
    run = run_qemu("pc", "probes=boot", "modes=flat,pae", mem=4, timeout=60)
    assert run.status() == "fail" and run.rc == 1, run.log
    assert run.results["boot.flat"] == "ok" and run.results["boot.pae"] == "not ok"
    assert "cannot enter pae: RAM ends at" in run.log and "no room for" in run.log
    assert "# exception:" not in run.log


def test_paging_modes_under_kvm(kvm):
    run = run_qemu("pc", "probes=boot,demand,modeswitch", "modes=all", icount=False, timeout=120)
    assert run.rc == 0 and run.status() == "pass", run.log
    check_modes(run, "256 MiB, KVM")
