"""The e500v2 model of tools/plugin/ (doc/modelled-time.md): its L1
caches' tree PLRU and its L1 MMU on hand-computed access streams
(cachetest drives tools/plugin/cache.c), the plugin accepting
core=e500v2, and ppce500 runs with the plugin loaded, whose figures are
checked against what the model's parts imply."""
import re
import subprocess

import test_plugin
from test_plugin import PLUGINTEST, PLUGIN, SUMMARY, answers, drive, fill_cycles, parse_model

# One set of the e500's eight ways: 256 bytes of 32-byte lines, so every
# line 0x20 apart maps to set 0 and line k (address 0x20 k) is filled into
# way k while the set has invalid ways.
SET8 = "cache 256 8 32 1 1 plru\n"


def reads(*addrs):
    return "".join(f"r {a:#x}\nbits 0\n" for a in addrs)


def trees(script):
    """The tree bits B0..B6 after each access ("bits" lines)."""
    return [l.split()[2] for l in drive(script) if l.startswith("bits ")]


def test_plru_fills_invalid_ways_in_order():
    # [CRM] Table 11-8's rule as cache.c keeps it: an access to way w sets
    # the bits on its path to point away from it (B0 the root: 1 = the
    # upper four ways next; B1/B2 the halves, B3-B6 the pairs).
    assert trees(SET8 + reads(*range(0, 0x100, 0x20))) == [
        "1101000",   # way 0: B0, B1, B3 point up
        "1100000",   # way 1: B3 back to way 0's side
        "1000100",   # way 2: B1 to ways 0-1, B4 to way 3
        "1000000",   # way 3
        "0010010",   # way 4: B0 to ways 0-3, B2 up, B5 to way 5
        "0010000",   # way 5
        "0000001",   # way 6
        "0000000",   # way 7: every bit back to 0, so way 0 goes next
    ]
    # Full: the ninth line replaces way 0 (line 0), which then misses.
    got = answers(SET8 + "".join(f"r {a:#x}\n" for a in range(0, 0x120, 0x20)) + "r 0\nr 0x20\n")
    assert got == ["miss fill"] * 10 + ["hit"]


def test_plru_takes_an_invalid_way_before_the_tree():
    # After ways 0-5 the tree points at way 0 (B0 = B1 = B3 = 0), yet way 6
    # is invalid: the seventh line goes there and line 0 stays.
    script = SET8 + "".join(f"r {a:#x}\n" for a in range(0, 0xc0, 0x20)) + "bits 0\nr 0xc0\nr 0\n"
    out = drive(script)
    assert out[6] == "bits 0 0010000"
    assert [l.split(" ", 2)[2] for l in out[7:]] == ["miss fill", "hit"]
    # And after an invalidation every way is invalid and the bits are 0.
    got = answers(SET8 + "r 0\nr 0x20\ninv\nr 0x20\nr 0x40\nr 0x20\n")
    assert got == ["miss fill"] * 4 + ["hit"]
    assert trees(SET8 + "r 0\ninv\nbits 0\n") == ["0000000"]


def test_plru_victim_differs_from_lru():
    # Fill ways 0-7 (tree 0000000), touch line 0 (way 0) then line 4
    # (way 4): B0=0 (lower half), B1=1 (ways 2-3), B4=0 (way 2): the victim
    # is line 2, where true LRU would take line 1 (the oldest untouched).
    fill = "".join(f"r {a:#x}\n" for a in range(0, 0x100, 0x20))
    out = drive(SET8 + fill + "r 0\nr 0x80\nbits 0\nr 0x100\nr 0x20\nr 0x40\n")
    assert out[10] == "bits 0 0111010"
    assert [l.split(" ", 2)[2] for l in out[11:]] == ["miss fill", "hit", "miss fill"]
    lru = answers(SET8.replace("plru", "lru") + fill + "r 0\nr 0x80\nr 0x100\nr 0x40\nr 0x20\n")
    assert lru[-3:] == ["miss fill", "hit", "miss fill"]


def test_plru_cyclic_sweeps_past_eight_ways_always_miss():
    # What the real-mode stride chase past 32 KiB is, set by set: n > 8
    # lines in turn.  Unlike LRU the tree keeps a few lines at first (9 or
    # 10 lines: some hits in the second and third pass), but from the third
    # pass on it evicts the line needed soonest every time: every load
    # misses.  12 or more lines (48 KiB and up) miss from the second pass.
    for n in range(9, 17):
        got = answers(SET8 + "".join(f"r {(i % n) * 0x20:#x}\n" for i in range(n * 8)))
        assert set(got[3 * n:]) == {"miss fill"}, n
        assert n < 12 or set(got[n:]) == {"miss fill"}, n
    got = answers(SET8 + "".join(f"r {(i % 10) * 0x20:#x}\n" for i in range(20)))
    assert [i for i, a in enumerate(got) if a == "hit"] == [11, 13]
    # And 8 lines fit: after the first pass, every access hits.
    sweep = "".join(f"r {(i % 8) * 0x20:#x}\n" for i in range(8 * 6))
    assert set(answers(SET8 + sweep)[8:]) == {"hit"}


def test_e500_l1_caches_geometry():
    # 32 KiB, 8 ways, 32-byte lines: 128 sets, addresses 4 KiB apart share
    # a set.  A 32 KiB working set fits whole; 36 KiB (nine a set) does not.
    cfg = "cache 32768 8 32 1 1 plru\n"
    lines = "".join(f"r {a:#x}\n" for a in range(0, 32768, 32))
    assert answers(cfg + lines + lines) == ["miss fill"] * 1024 + ["hit"] * 1024
    same_set = "".join(f"r {a:#x}\n" for a in range(0, 9 * 4096, 4096))
    assert answers(cfg + same_set + "r 0\n") == ["miss fill"] * 10


def test_plru_write_back_of_the_victim():
    # A store dirties way 0; the ninth line evicts it: one write-back.
    fill = "w 0\n" + "".join(f"r {a:#x}\n" for a in range(0x20, 0x100, 0x20))
    out = drive(SET8 + fill + "r 0x100\nstats\n")
    assert out[-2].endswith("miss fill wb")
    assert out[-1] == "loads 8 stores 1 load_misses 8 store_misses 1 fills 9 writebacks 1"


# The e500's L1 MMU for one side, as the plugin sets it up ([CRM] 12.3.1):
# a 4-entry L1VSP and a 64-entry 4-way L1TLB4K (16 sets: pages 16 apart,
# 0x10000 bytes, share a set), both true LRU (1.9.1).
L1MMU = "l1mmu 4 64 4\n"


def lookups(*pairs):
    return "".join(f"m {a:#x} {s}\n" for a, s in pairs)


def mmu(script):
    """The L1 MMU lookups' answers ("hit", "miss")."""
    return [l.split()[2] for l in drive(script) if l.startswith("m ")]


def test_l1tlb4k_sets_and_lru():
    four = [(0x10000 * i, 12) for i in range(4)]
    got = mmu(L1MMU + lookups(*four, (0, 12), (0x40000, 12), (0, 12), (0x10000, 12)))
    # Four pages of one set fit; page 0 touched again, the fifth evicts the
    # least recently used (0x10000), not the first loaded (round robin's).
    assert got == ["miss"] * 4 + ["hit", "miss", "hit", "miss"]
    # 64 consecutive pages fill the 16 sets' 4 ways exactly: a second pass
    # hits throughout; an offset inside a page is the same page.
    pages = lookups(*[(0x1000 * i + 4, 12) for i in range(64)])
    assert mmu(L1MMU + pages + pages) == ["miss"] * 64 + ["hit"] * 64


def test_l1vsp_holds_four_large_pages_lru():
    big = [(i << 28, 28) for i in range(4)]
    got = mmu(L1MMU + lookups(*big, (0, 28), (4 << 28, 28), (0x0ffffffc, 28), (1 << 28, 28)))
    assert got == ["miss"] * 4 + ["hit", "miss", "hit", "miss"]
    # A 4 KiB page and a large page over the same address are different
    # entries of different arrays: neither fills the other.
    got = mmu(L1MMU + lookups((0x2000, 12), (0x2000, 28), (0x2000, 12), (0x2000, 28)))
    assert got == ["miss", "miss", "hit", "hit"]


def test_l1mmu_flush_and_counts():
    out = drive(L1MMU + lookups((0x1000, 12), (0, 28)) + "mflush\n" +
                lookups((0x1000, 12), (0, 28), (0x1000, 12)) + "mstats\n")
    assert [l.split()[2] for l in out[:-1]] == ["miss", "miss", "miss", "miss", "hit"]
    assert out[-1] == "lookups 5 misses 4"


def test_plugin_accepts_e500v2(tmp_path):
    out = tmp_path / "model.txt"
    p = subprocess.run([PLUGINTEST, PLUGIN, "1", "0", "ppc", "1", "core=e500v2", f"out={out}"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    header = out.read_text().splitlines()[0]
    assert header.startswith("# mmuplugin core=e500v2: modelled (not measured) at 4 core cycles a DDR clock")
    # DDR2-400 3-3-3 at 4 core cycles a clock: (tRCD + CL + 2 clocks of
    # beats) x 4 = 32; a write-back (tRCD + CL - 1 + 2) x 4 = 28.
    assert fill_cycles(header) == (32, 28)


def model_run(tmp_path, name, *boot):
    return test_plugin.model_run(tmp_path, name, *boot, board="ppce500", timeout=300)


GUEST = PLUGIN.replace("tools/mmuplugin.so", "shims/plugin-guest-e500.elf")


def test_e500_model_on_hand_known_accesses(tmp_path):
    """selftest/shims/plugin-guest-e500.S under the real plugin: the PLRU
    D-cache, the L1 MMU, an interrupt that flushes nothing, and the
    instruction timings, each region's counts and cycles known by hand:
    one cycle an instruction, a fill a cache miss, 5 an L1 MMU miss.  No
    -icount: the guest reads no clock (and QEMU 7.2 took 50 s to reset
    under -icount sleep=off)."""
    out = tmp_path / "g.txt"
    p = subprocess.run(["qemu-system-ppc", "-M", "ppce500", "-cpu", "e500v2", "-m", "128", "-display", "none",
                        "-monitor", "none", "-serial", "null", "-no-reboot", "-kernel", GUEST, "-plugin", f"{PLUGIN},core=e500v2,out={out}"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    header, entries, totals = parse_model(out.read_text())
    fill, _ = fill_cycles(header)
    r1, r2, r3, r4 = entries

    def base(r):   # one cycle each, a fill each cache miss, 5 each L1 MMU miss
        return r["insns"] + fill * (r["dcache_misses"] + r["icache_misses"]) + \
            5 * (r["itlb_misses"] + r["dtlb_misses"])
    # Region 1 (real): 12 loads, 11 misses (the tree's victims, not LRU's:
    # line 1 hits); the first data access of the run loads the D-L1VSP.
    assert (r1["region"], r1["xlate"], r1["loads"], r1["dcache_misses"]) == (1, 0, 12, 11)
    assert (r1["dtlb_misses"], r1["itlb_misses"], r1["insns"]) == (1, 0, 15)
    assert r1["cycles"] == base(r1)
    # Region 2 (translated): 8 L1TLB4K misses (4 to fill the set, 2 by LRU,
    # 1 after the PID write, ... and P1 once more), 2 ITLB misses (the
    # region's page, again after the PID write); 5 new D-cache lines.
    assert (r2["region"], r2["xlate"], r2["loads"], r2["dcache_misses"]) == (2, 1, 8, 5)
    assert (r2["dtlb_misses"], r2["itlb_misses"]) == (8, 2)
    assert r2["cycles"] == base(r2)
    # Region 3 (translated): the sc's handler is translated (its page one
    # ITLB miss) and flushes nothing: the load after it hits the L1TLB4K.
    assert (r3["region"], r3["loads"], r3["dcache_misses"], r3["dtlb_misses"], r3["itlb_misses"]) == \
        (3, 2, 1, 1, 2)
    assert r3["insns"] == 7       # lwz, sc, the handler's rfi, lwz, the end marker
    assert r3["cycles"] == base(r3)
    # Region 4 (real, the D-L1VSP refilled after region 2's PID write): the
    # divide 34 more, the multiply 3, the load-use stall 2, and 3
    # mispredictions of 5: the BTB counters start weakly not taken (bdnz
    # taken: miss; taken: hit; not taken: miss) and the forward beq taken.
    assert (r4["region"], r4["loads"], r4["dcache_misses"], r4["dtlb_misses"], r4["insns"]) == (4, 1, 1, 1, 12)
    assert r4["cycles"] == base(r4) + 34 + 3 + 2 + 3 * 5
    assert totals["run"]["unmatched_markers"] == 0


def points(log, entries):
    """Each lat_mem point of the log, in its order, with its chase entries:
    {(mode, pattern, bytes): (measured, n)}, measured the 5 timed runs
    (boot/timing.c: RUNS) of n iterations of 64 loads.  A point's entries
    are its warm-up pass (lines / 64 + 1 iterations, lines of 32 bytes:
    the e500's, lat_mem's default stride), measure()'s run(1), the
    calibration's doubling runs from n = 1 to N, then the 5: so n = 2 to
    the segment's length less 8.  A point starts at its warm-up, followed
    by two short runs (under 1024 loads: n = 1, a miss handler's loads
    too); the warm-up of a point under 1024 loads is itself short."""
    names = re.findall(r"# measurement lat_mem\.(\w+)\.(stride|random|local)_(\d+)_ns ", log)
    found = {}
    for xlate, kind in ((0, "real"), (1, "normal")):
        mine = [(p, int(b)) for m, p, b in names if m == kind]
        chase = [e for e in entries if e["region"] == 1 and e["xlate"] == xlate]
        loads = [e["loads"] for e in chase] + [1 << 62] * 2
        starts, i = [], 0
        for pattern, size in mine:
            warm = 64 * (size // 32 // 64 + 1)
            while i < len(chase) and not (loads[i + 1] < 1024 and loads[i + 2] < 1024 and
                                          (loads[i] >= warm if warm >= 1024 else loads[i] < 1024)):
                i += 1
            starts.append(i)
            i += 8
        assert starts[-1] < len(chase), kind
        for (pattern, size), a, b in zip(mine, starts, starts[1:] + [len(chase)]):
            seg = chase[a:b]
            found[(kind, pattern, size)] = (seg[-5:], 2 ** (len(seg) - 8))
    return found


# A chase load that hits, in the model: lat_mem's loop is 63 loads each
# used by the next (1 cycle + the 2-cycle load-use stall, [CRM] 4.4.4), a
# 64th whose user is past the bdnz, and the bdnz: (63 x 3 + 2) / 64.
HIT = (63 * 3 + 2) / 64


def check_lat_mem(log, text):
    """What the model implies for lat_mem's real and normal chases."""
    header, entries, totals = parse_model(text)
    fill, _ = fill_cycles(header)
    assert totals["run"]["unmatched_markers"] == 0
    pts = points(log, entries)
    for (mode, pattern, size), (runs, n) in pts.items():
        loads = sum(e["loads"] for e in runs)
        cycles = sum(e["cycles"] for e in runs) / (5 * 64 * n)   # a chase load
        misses = sum(e["dcache_misses"] for e in runs)
        where = (mode, pattern, size, cycles, misses, loads)
        if size <= 32 << 10:
            # Within the 32 KiB D-cache, after the warm-up pass, a chase
            # load misses only where an access between the runs (the
            # harness's own, outside the region) evicted its line: the
            # tree may take a live line over a stale one of an earlier
            # point, or (at 32 KiB) over nothing else.  A few a run: at
            # most one iteration's 64.  Within the 256 KiB the L1TLB4K
            # reaches, no L1 MMU miss.
            assert misses <= 5 * 64 and sum(e["dtlb_misses"] for e in runs) == 0, where
            assert HIT <= cycles < HIT + 0.1, where
        elif mode == "real" and pattern == "stride":
            # Past it, each set's lines in turn: from the third pass on the
            # tree PLRU misses every time (test_plru_cyclic_sweeps_...).
            assert misses == loads == 5 * 64 * n, where
            assert HIT + fill <= cycles < HIT + fill + 0.1, where
        elif mode == "real":
            # Random or local past 32 KiB: some share of the loads misses.
            share = misses / loads
            assert 0 < share <= 1 and HIT + share * fill - 0.05 <= cycles < HIT + share * fill + 0.1, where
    return pts


def test_e500_model_run_twice_identical(tmp_path):
    """Under -icount two ppce500 runs write the same file, byte for byte,
    every marker matched, every real-mode region untranslated."""
    log, entries, totals = test_plugin.run_twice(tmp_path, "e500v2", board="ppce500", timeout=300)
    assert totals[1]["entries"] >= 5 * len(re.findall(r"# measurement lat_mem\.real\.", log)) > 100
    # Real mode is one TLB1 page in the L1VSP: no L1 MMU miss in a region
    # (the VSP is loaded before the first; nothing in lat_mem empties it).
    assert all(e["xlate"] == 0 and e["dtlb_misses"] == 0 and e["itlb_misses"] == 0 for e in entries)


def test_e500_lat_mem_plateaus(tmp_path):
    """lat_mem's real and normal chases: what the model implies, point by
    point (check_lat_mem), and model-summary's plateaus at 800 MHz."""
    log, _, (header, entries, _) = model_run(tmp_path, "m.txt", "probes=lat_mem", "modes=real,normal", "reps=1")
    pts = check_lat_mem(log, (tmp_path / "m.txt").read_text())
    assert any(k[0] == "normal" for k in pts) and any(k[2] > 32 << 10 for k in pts)
    p = subprocess.run([SUMMARY, str(tmp_path / "m.txt")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert "core e500v2, cycles at 800 MHz" in p.stdout
    assert f"lat_mem real: D-cache hit {HIT:.2f} cycles = {HIT * 1.25:.1f} ns a load, modelled" in p.stdout
    fill, _ = fill_cycles(header)
    m = re.search(r"lat_mem real: D-cache miss ([\d.]+) cycles = ([\d.]+) ns a load, modelled", p.stdout)
    assert m and HIT + fill - 0.005 <= float(m.group(1)) < HIT + fill + 0.05, p.stdout
    assert abs(float(m.group(2)) - float(m.group(1)) * 1.25) < 0.06
