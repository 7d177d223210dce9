"""The `tlb` and `bw_mem` probes.

ref405ep under -icount (time = instructions, 1 per ns at shift=0): the 405's
TLB is refilled by our own miss handler, so a TLB miss costs exactly the
handler's instructions and shows as a step in the chase's time per load.

How many pages a cyclic walk can keep resident: the handler replaces round
robin, downwards over the unpinned slots.  Filled from an empty TLB (the
probe flushes before each point), the slots hold the walk's pages in walk
order, so a walk of P pages stays resident iff P plus the pages the loop's
own code occupies fit the unpinned slots; one more and each miss evicts the
very page needed next, so every load misses (P misses a pass).  The loops
(the chase and the counted walk) touch only their own code page and the
walked pages.  That code page takes an unpinned slot unless a pinned 16 MiB
entry covers it (mode `pinned`: the image lies in the low 32 MiB).  So:
  normal: 64 slots - 0 pins - 1 code page = 63
  pinned: 64 slots - 2 pins - 0           = 62   (pins=4: 60; pins=0: 63)
The test derives the number from what the image prints (its TLB size, the
mode's pins, where the image lies) and from the per-P miss counts of the
counted walk, and asserts the curve's step at exactly that P.  The level's
interval is then exactly [P, P + 1] (every load misses from P + 1 on), and
the TLB's documented 64 entries, less the pins, lie in it: consistent, and
named by P, the exact count (tests/tlb.c judge()).
"""
import re

import pytest

from conftest import run_qemu

PIN = 16 << 20


def curve(run, mode, suffix="ns", tag=""):
    """{pages: value} of tlb.<mode>.<P>p<tag>_<suffix>."""
    pat = re.compile(rf"^tlb\.{mode}\.(\d+)p{tag}_{suffix}$")
    return {int(m.group(1)): v for name, (v, _) in run.measurements.items()
            if (m := pat.match(name))}


def image_end(run):
    m = re.search(r"^# image: 0x([0-9a-f]+)-0x([0-9a-f]+),", "\n".join(run.lines), re.M)
    assert m, run.log
    return int(m.group(2), 16)


def tlb_slots(run):
    m = re.search(r"^# tlb: (\d+) entries, software loaded", "\n".join(run.lines), re.M)
    assert m, run.log
    return int(m.group(1))


def mode_pins(run, mode):
    m = re.search(rf"^# {mode}: 1:1 map .* (\d+) pinned,", "\n".join(run.lines), re.M)
    assert m, run.log
    return int(m.group(1))


def check_step(run, mode, expect, slots=64, pins=0):
    """The counted walk misses never up to `expect` pages and on every load
    beyond; the chase's curve steps exactly there; miss_ns = the path; the
    interval is that step, consistent with the TLB's `slots` less `pins`."""
    misses, ns = curve(run, mode, "misses"), curve(run, mode)
    assert set(misses) == set(ns) and expect in misses and expect + 1 in misses, run.log
    for p, m in misses.items():
        assert m == (0 if p <= expect else p), (mode, p, m)
    base = ns[1]
    for p, t in ns.items():
        if p <= expect:
            assert t < base + 1, (mode, p, t)       # at most stray misses between runs
        else:
            assert t > base + 30, (mode, p, t)      # a 44-instruction miss on each load
    assert run.value(f"tlb.{mode}.l1_entries") == expect
    assert run.value(f"tlb.{mode}.l1_lo_entries") == expect
    assert run.value(f"tlb.{mode}.l1_hi_entries") == expect + 1
    assert slots - pins <= expect + 1 <= slots                 # hi: the slots less the pins
    assert run.value(f"tlb.{mode}.l1_verdict") == 1            # consistent
    pinned = f" ({pins} pinned)" if pins else ""
    assert (f"# tlb.{mode}: L1: {expect}-{expect + 1} entries, consistent with the CPU's "
            f"{slots}{pinned}; named by lo, exact") in "\n".join(run.lines), run.log
    assert run.value(f"tlb.{mode}.reach_bytes") == expect * 4096
    path = run.value(f"mmu.{mode}.dtlb_miss_path")
    assert path == 44       # 37 before the user/kernel split's window test and kernel count
    assert abs(run.value(f"tlb.{mode}.miss_ns") - path) <= 1, run.log
    assert run.value(f"tlb.{mode}.miss_spread") == 0      # -icount: identical runs
    assert f"tlb.{mode}.l2_entries" not in run.measurements


@pytest.fixture(scope="module")
def ref405ep():
    run = run_qemu("ref405ep", "probes=tlb,bw_mem", "modes=all", "quick", timeout=60)
    assert run.status() == "pass" and run.rc == 0, run.log
    return run


@pytest.mark.parametrize("mode", ["normal", "pinned"])
def test_tlb_finds_the_slots_the_walk_can_use(ref405ep, mode):
    run = ref405ep
    slots, pins = tlb_slots(run), mode_pins(run, mode)
    assert (slots, pins) == (64, 0 if mode == "normal" else 2)
    code_pinned = image_end(run) <= pins * PIN      # the loops' code page under a pin?
    expect = slots - pins - (0 if code_pinned else 1)
    assert expect == {"normal": 63, "pinned": 62}[mode]
    check_step(run, mode, expect, slots, pins)


def test_tlb_largepte_and_real_claim_nothing(ref405ep):
    run = ref405ep
    text = "\n".join(run.lines)
    # 16 MiB pages: the 4K sweep (1 MiB) never misses, and RAM holds too few
    # 16 MiB pages to fill 64 entries.
    assert set(curve(run, "largepte", "misses").values()) == {0}
    lp = curve(run, "largepte", tag="_16m")
    assert sorted(lp) == [1, 2, 3, 4, 6], lp       # 6 whole 16 MiB pages: 16..112 MiB
    assert "tlb.largepte: no step up to 256 pages of 4 KiB" in text
    assert ("tlb.largepte: no step up to 6 pages of 16384 KiB: RAM too small to reach "
            "the step") in text
    assert "tlb.real: no TLB level claimed: translation is off" in text
    for mode in ("real", "largepte"):
        for m in ("l1_entries", "l1_lo_entries", "l1_verdict", "l2_entries", "reach_bytes",
                  "miss_ns", "lp_l1_entries"):
            assert f"tlb.{mode}.{m}" not in run.measurements
    assert len(curve(run, "real")) > 10            # the baseline curve is there


@pytest.mark.parametrize("pins,expect", [(0, 63), (4, 60)])
def test_tlb_pins_and_large_page_stride(pins, expect):
    # pins=0: nothing covers the code page, as in normal; pins=4: the walk
    # (at or above 64 MiB) loses four slots.  lpsize=64k: 64 KiB pages as
    # stride fit RAM, and the step is the same 63 slots (code page unpinned).
    run = run_qemu("ref405ep", "probes=tlb", "modes=pinned,largepte", "quick", f"pins={pins}",
                   "lpsize=64k", timeout=60)
    assert run.status() == "pass" and run.rc == 0, run.log
    slots = tlb_slots(run)
    code_pinned = image_end(run) <= pins * PIN
    assert slots - pins - (0 if code_pinned else 1) == expect
    check_step(run, "pinned", expect, slots, pins)
    assert run.value("tlb.largepte.lp_l1_entries") == 63
    # The 64 KiB stride: the same exact step; nothing documents the 405's
    # entries per page size to the probe (probe_tlb_entries: 4 KiB only), so
    # no verdict, and the level named by its lower end.
    assert (run.value("tlb.largepte.lp_l1_lo_entries"),
            run.value("tlb.largepte.lp_l1_hi_entries")) == (63, 64)
    assert "tlb.largepte.lp_l1_verdict" not in run.measurements
    assert ("# tlb.largepte: L1 of 64k: 63-64 entries: no count from the CPU; named 63"
            in "\n".join(run.lines)), run.log
    assert abs(run.value("tlb.largepte.lp_miss_ns") - 44) <= 1
    assert run.value("tlb.largepte.lp_reach_bytes") == 63 * (64 << 10)


def test_bw_mem_ref405ep(ref405ep):
    run = ref405ep
    for mode in ("real", "normal", "pinned", "largepte"):
        assert run.results[f"bw_mem.{mode}"] == "ok"
        for col in ("rd", "wr", "cp_libc", "cp_hand", "frd", "fwr", "fcp"):
            # 405EP: 16 KiB D-cache; half of it, and twice it with quick.
            assert run.value(f"bw_mem.{mode}.{col}_8192_mbs") > 0
            assert run.value(f"bw_mem.{mode}.{col}_32768_mbs") > 0
            assert run.value(f"bw_mem.{mode}.{col}_mbs") == \
                run.value(f"bw_mem.{mode}.{col}_32768_mbs")
            assert run.measurements[f"bw_mem.{mode}.{col}_mbs"][1] == "MB/s"
            assert f"bw_mem.{mode}.{col}_mbs_spread" in run.measurements
    text = "\n".join(run.log.splitlines())
    assert "*Local* Communication bandwidths in MB/s" in text
    assert re.search(r"^ref405ep\s+normal\s+63\s+258048\s+44\.\d\d", text, re.M), text
    assert re.search(r"^ref405ep\s+pinned\s+62\s+253952\s+44\.\d\d", text, re.M), text


@pytest.mark.parametrize("icount", [False, True], ids=["tcg", "tcg-icount"])
def test_pc_tcg_runs_everywhere_and_claims_no_level(icount):
    run = run_qemu("pc", "probes=tlb,bw_mem", "modes=all", "quick", icount=icount, tcg=True,
                   timeout=90)
    assert run.status() == "pass" and run.rc == 0, run.log
    modes = ("flat", "2level", "pse", "pae", "pae2m")
    text = "\n".join(run.lines)
    for mode in modes:
        assert run.results[f"tlb.{mode}"] == "ok" and run.results[f"bw_mem.{mode}"] == "ok"
        assert len(curve(run, mode)) >= 20          # 1 .. 4096 pages
        assert re.search(rf"^# tlb\.{mode}: no TLB level claimed: ", text, re.M), text
        assert run.value(f"bw_mem.{mode}.rd_8388608_mbs") > 0
    claims = [n for n in run.measurements if n.startswith("tlb.") and
              re.search(r"\.(lp_)?(l\d_(lo_|hi_)?entries|l\d_verdict|reach_bytes|"
                        r"(l\d_)?miss_(ns|cycles|spread))$", n)]
    assert claims == [], claims
    assert "translation is off" in text
    assert ("-icount emulates no TLB timing" if icount else "QEMU's own software TLB") in text
    # Large pages as stride in pse (4 MiB) and pae2m (2 MiB).
    assert curve(run, "pse", tag="_4m") and curve(run, "pae2m", tag="_2m")
