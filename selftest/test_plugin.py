"""The 405GP model under QEMU (tools/plugin/, doc/modelled-time.md): its
cache and shadow-TLB model on hand-computed access streams (cachetest
drives tools/plugin/cache.c), the plugin's refusals (plugintest calls its
qemu_plugin_install() as QEMU would, with made-up versions), and real
runs of ref405ep with the plugin loaded."""
import os
import re
import statistics
import subprocess

import pytest

from conftest import TOP

TOOLS = os.path.join(TOP, "build", "tools")
CACHETEST = os.path.join(TOOLS, "cachetest")
PLUGINTEST = os.path.join(TOOLS, "plugintest")
PLUGIN = os.path.join(TOOLS, "mmuplugin.so")
SUMMARY = os.path.join(TOP, "tools", "model-summary")


def drive(script):
    """cachetest's answer lines to a script."""
    p = subprocess.run([CACHETEST], input=script, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.splitlines()


def answers(script):
    """Only the per-access answers ("hit", "miss fill wb", ...)."""
    return [l.split(" ", 2)[2] for l in drive(script) if l[:2] in ("r ", "w ", "t ")]


# 64 bytes, 2 ways, 16-byte lines: 2 sets; 0x00, 0x20, 0x40, 0x60 all map
# to set 0, 0x10 and 0x30 to set 1.
SMALL = "cache 64 2 16 1 1\n"


def test_conflict_misses_in_a_two_way_set():
    # Three lines of one set cycled: each access evicts the one needed next.
    got = answers(SMALL + "r 0\nr 0x20\nr 0x40\nr 0\nr 0x20\nr 0x40\n")
    assert got == ["miss fill"] * 6
    # Two lines fit the set's two ways; the other set is untouched.
    got = answers(SMALL + "r 0\nr 0x20\nr 0x10\nr 0\nr 0x20\nr 0x10\n")
    assert got == ["miss fill"] * 3 + ["hit"] * 3


def test_lru_order():
    # 0 touched again after 0x20: 0x20 is the LRU line and goes for 0x40.
    got = answers(SMALL + "r 0\nr 0x20\nr 0\nr 0x40\nr 0\nr 0x20\n")
    assert got == ["miss fill", "miss fill", "hit", "miss fill", "hit", "miss fill"]
    # A hit inside a line (0x4 in line 0) counts as a use of the line.
    got = answers(SMALL + "r 0\nr 0x20\nr 0x4\nr 0x40\nr 0x8\n")
    assert got == ["miss fill", "miss fill", "hit", "miss fill", "hit"]


def test_write_back_counts_dirty_evictions():
    out = drive(SMALL + "w 0\nr 0x20\nr 0x40\nr 0x60\nw 0x60\nr 0\nr 0x20\nstats\n")
    # w 0 fills and dirties line 0; 0x40 evicts it (written back); 0x60
    # evicts clean 0x20; the store hits 0x60 and dirties it; 0 evicts clean
    # 0x40; 0x20 evicts dirty 0x60 (written back).
    assert [l.split(" ", 2)[2] for l in out[:-1]] == [
        "miss fill", "miss fill", "miss fill wb", "miss fill", "hit", "miss fill", "miss fill wb"]
    assert out[-1] == "loads 5 stores 2 load_misses 5 store_misses 1 fills 6 writebacks 2"
    # Clean lines are never written back, however often they are evicted.
    out = drive(SMALL + "".join(f"r {a:#x}\n" for a in (0, 0x20, 0x40, 0x60) * 4) + "stats\n")
    assert out[-1] == "loads 16 stores 0 load_misses 16 store_misses 0 fills 16 writebacks 0"


def test_write_through_never_writes_back():
    out = drive("cache 64 2 16 0 1\nw 0\nr 0x20\nr 0x40\nstats\n")
    assert out[-1] == "loads 2 stores 1 load_misses 2 store_misses 1 fills 3 writebacks 0"


def test_store_miss_without_allocate():
    # CCR0[SWOA] = 1 on a 405: a store miss writes memory, the cache keeps
    # what it had (0 and 0x20 both still hit after stores to 0x40, 0x60).
    got = answers("cache 64 2 16 1 0\nr 0\nr 0x20\nw 0x40\nw 0x60\nr 0\nr 0x20\nw 0x40\n")
    assert got == ["miss fill", "miss fill", "miss", "miss", "hit", "hit", "miss"]
    # And with allocation (the image's setting, SWOA = 0) the same stream evicts.
    got = answers(SMALL + "r 0\nr 0x20\nw 0x40\nw 0x60\nr 0\nr 0x20\nw 0x40\n")
    assert got == ["miss fill", "miss fill", "miss fill", "miss fill", "miss fill wb",
                   "miss fill wb", "miss fill"]


def test_405gp_dcache_geometry():
    # 8 KiB, 2 ways, 32-byte lines: 128 sets, so addresses 4 KiB apart share
    # a set; three of them thrash, two fit.
    cfg = "cache 8192 2 32 1 1\n"
    assert answers(cfg + "r 0\nr 0x1000\nr 0x2000\nr 0\n") == ["miss fill"] * 4
    assert answers(cfg + "r 0\nr 0x1000\nr 0\nr 0x1000\n") == ["miss fill"] * 2 + ["hit"] * 2
    # A whole 8 KiB working set fits: its second pass hits throughout.
    lines = "".join(f"r {a:#x}\n" for a in range(0, 8192, 32))
    got = answers(cfg + lines + lines)
    assert got == ["miss fill"] * 256 + ["hit"] * 256


def test_shadow_tlb_round_robin():
    # 4 entries: a fifth page replaces the oldest loaded (1), whatever was
    # used since; round robin, not LRU.
    got = answers("tlb 4\nt 1\nt 2\nt 3\nt 4\nt 1\nt 5\nt 1\nt 2\n")
    assert got == ["miss"] * 4 + ["hit", "miss", "miss", "miss"]
    # A flush (isync, rfi, sc, interrupts) empties it.
    out = drive("tlb 8\nt 1\nt 1\ntflush\nt 1\ntstats\n")
    assert [l.split()[2] for l in out[:-1]] == ["miss", "hit", "miss"]
    assert out[-1] == "lookups 3 misses 2"


def test_cachetest_rejects_bad_input():
    for script in ("cache 100 2 16 1 1\n", "bogus\n", "r 0\n", "cache 64 2\n"):
        p = subprocess.run([CACHETEST], input=script, capture_output=True, text=True, timeout=30)
        assert p.returncode == 2 and p.stderr.startswith("cachetest: "), (script, p.stderr)


def install(cur, minimum=0, target="ppc", vcpus=1, args=("core=405gp",), tmp_path=None):
    out = ["out=" + str(tmp_path / "model.txt")] if tmp_path else []
    return subprocess.run([PLUGINTEST, PLUGIN, str(cur), str(minimum), target, str(vcpus), *args, *out],
                          capture_output=True, text=True, timeout=30)


def test_plugin_accepts_version_1(tmp_path):
    p = install(1, tmp_path=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "install: 0 (registered: tb 1, atexit 1)"
    assert (tmp_path / "model.txt").read_text().startswith("# mmuplugin core=405gp: modelled")


@pytest.mark.parametrize("cur,minimum", [(2, 0), (2, 1), (0, 0), (3, 2)])
def test_plugin_refuses_unknown_api_version(tmp_path, cur, minimum):
    p = install(cur, minimum, tmp_path=tmp_path)
    assert p.returncode == 1
    assert "registered: tb 0, atexit 0" in p.stdout
    assert (f"mmuplugin: this QEMU's plugin API is version {cur} (it supports {minimum} to {cur}); "
            "mmuplugin knows version 1 only") in p.stderr
    assert not (tmp_path / "model.txt").exists()


@pytest.mark.parametrize("args,message", [
    (("core=e500",), "mmuplugin: unknown core (models: 405gp, e500v2) 'e500'"),
    ((), "mmuplugin: no core: core=405gp or core=e500v2 is required"),
    (("core=405gp", "bogus=1"), "mmuplugin: unknown argument 'bogus=1'"),
])
def test_plugin_refuses_bad_arguments(tmp_path, args, message):
    p = install(1, args=args, tmp_path=tmp_path)
    assert p.returncode == 1 and message in p.stderr, p.stderr
    assert "registered: tb 0" in p.stdout


def test_plugin_refuses_what_it_does_not_model(tmp_path):
    p = install(1, vcpus=2, tmp_path=tmp_path)
    assert p.returncode == 1 and "one vCPU" in p.stderr
    p = install(1, target="i386", tmp_path=tmp_path)
    assert p.returncode == 1 and "target 'i386'" in p.stderr
    p = install(1, args=("core=405gp",))
    assert p.returncode == 1 and "out=FILE is required" in p.stderr


RUN_QEMU = os.path.join(TOP, "tools", "run-qemu")
GUEST = os.path.join(TOP, "build", "shims", "plugin-guest.elf")


def test_model_on_hand_known_accesses(tmp_path):
    """selftest/shims/plugin-guest.S: a store and four loads whose fate in
    the 8 KiB two-way D-cache is known by hand, then stmw/lmw, then the
    shadow TLBs, a divide, a load-use stall and a misprediction, then an
    interrupt inside a translated region.  The plugin
    sees QEMU's physical addresses and must count exactly that, and charge
    one cycle an instruction, a line fill a miss, a write-back a dirty
    eviction: nothing else happens in these regions."""
    out = tmp_path / "g.txt"
    p = subprocess.run(["qemu-system-ppc", "-M", "ref405ep", "-m", "128", "-display", "none",
                        "-monitor", "none", "-serial", "null", "-no-reboot", "-kernel", GUEST,
                        "-plugin", f"{PLUGIN},core=405gp,out={out}"],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    header, entries, totals = parse_model(out.read_text())
    fill, writeback = fill_cycles(header)
    r1, r2, r3, r4 = entries
    assert (r1["region"], r1["loads"], r1["stores"], r1["dcache_misses"], r1["dcache_writebacks"]) == \
        (1, 4, 1, 4, 1)
    assert (r1["load_bytes"], r1["store_bytes"], r1["io"], r1["unseen"]) == (16, 4, 0, 0)
    # 5 accesses and the end marker's 3 instructions (the begin's are before it).
    assert r1["insns"] == 8
    assert r1["cycles"] == r1["insns"] + fill * (r1["dcache_misses"] + r1["icache_misses"]) + writeback
    # QEMU 7.2 shows no access of stmw/lmw: counted as unseen, not modelled.
    assert (r2["region"], r2["loads"], r2["stores"], r2["unseen"]) == (2, 0, 0, 2)
    # Region 3 (marked translated): 12 DTLB misses (8 fill the round robin,
    # p8 and p0 evict, isync empties it, p2 and p0 again), 2 ITLB misses
    # (the region's first fetch, the first after isync); in the D-cache's
    # one set the nine pages' lines thrash, then p0 and p2 stay.
    assert (r3["region"], r3["xlate"], r3["dtlb_misses"], r3["itlb_misses"]) == (3, 1, 12, 2)
    assert (r3["loads"], r3["dcache_misses"], r3["dcache_writebacks"]) == (13, 11, 0)
    assert r3["insns"] == 21
    # Each instruction 1, the divide 34 more, the load-use stall 1, the
    # misprediction 2, each DTLB miss 3 and ITLB miss 4, each fill.
    assert r3["cycles"] == r3["insns"] + 34 + 1 + 2 + 3 * 12 + 4 * 2 + \
        fill * (r3["dcache_misses"] + r3["icache_misses"])
    # Region 4 (translated): an illegal instruction's interrupt.  Its
    # handler runs untranslated ([UM] 5: MSR[IR, DR] cleared), so its fetches
    # and its load touch no shadow TLB; the entry and its rfi empty them:
    # the load before it misses the DTLB, the load after it misses the DTLB
    # again and its fetch the ITLB.
    assert (r4["region"], r4["xlate"], r4["itlb_misses"], r4["dtlb_misses"]) == (4, 1, 1, 2)
    assert (r4["loads"], r4["dcache_misses"]) == (3, 2)
    assert r4["cycles"] == r4["insns"] + 3 * 2 + 4 * 1 + fill * (r4["dcache_misses"] + r4["icache_misses"])
    assert totals["run"]["unmatched_markers"] == 0


def model_run(tmp_path, name, *boot, board="ref405ep", timeout=120):
    """A deterministic run (ref405ep unless told) with the plugin loaded:
    the log and the plugin's file, parsed into (header, entries, totals)."""
    out = tmp_path / name
    p = subprocess.run([RUN_QEMU, board, "--icount", "--model", str(out), "--timeout", str(timeout), *boot],
                       capture_output=True, text=True, timeout=timeout + 60)
    assert p.returncode == 0, p.stderr[-2000:]
    text = out.read_text()
    return p.stdout, text, parse_model(text)


def parse_model(text):
    header, entries, totals = None, [], {}
    for line in text.splitlines():
        if line.startswith("# mmuplugin "):
            header = line
            continue
        words = line.split()
        kind = "total" if words[0] == "total" else "region"
        d = dict(w.split("=", 1) for w in words[1:] if "=" in w) if kind == "total" else \
            dict(w.split("=", 1) for w in words)
        d = {k: (int(v) if v.isdigit() else v) for k, v in d.items()}
        if kind == "total":
            totals[d["region"] if isinstance(d["region"], str) else int(d["region"])] = d
        else:
            entries.append(d)
    return header, entries, totals


def fill_cycles(header):
    m = re.search(r"line fill (\d+) cycles, write-back (\d+)", header)
    assert m, header
    return int(m.group(1)), int(m.group(2))


def run_twice(tmp_path, core, **board):
    """A quick real-mode lat_mem twice: the same file, byte for byte, every
    marker matched.  The log and the parsed file."""
    boot = ("quick", "probes=lat_mem", "modes=real")
    log1, text1, (header, entries, totals) = model_run(tmp_path, "a.txt", *boot, **board)
    _, text2, _ = model_run(tmp_path, "b.txt", *boot, **board)
    assert text1 == text2
    assert header.startswith(f"# mmuplugin core={core}: modelled (not measured)")
    assert totals["run"]["unmatched_markers"] == 0
    return log1, entries, totals


def test_model_run_twice_identical(tmp_path):
    """Under -icount the model's output is a function of the image: two runs
    of the same probe write the same file, byte for byte."""
    log1, entries, totals = run_twice(tmp_path, "405gp")
    # Every chase and empty-loop run is a region: as many as the log's points
    # need (at least the warm-up-free measured runs, 5 a point).
    points = len(re.findall(r"# measurement lat_mem\.real\.\w+_\d+_ns ", log1))
    assert points > 20
    assert totals[1]["entries"] >= 5 * points and totals[2]["entries"] >= 5
    assert all(e["xlate"] == 0 and e["dtlb_misses"] == 0 and e["itlb_misses"] == 0 for e in entries)


def test_model_lat_mem_plateaus(tmp_path):
    """The chase's modelled cycles a load follow from the model's parts: one
    cycle ([UM] C.2.1) and the load-use stall (C.2.4) where the load hits,
    plus one line fill where it misses; in between, the fraction that
    misses.  Per-load figures from the long runs (64 x 64 loads or more)."""
    _, _, (header, entries, _) = model_run(tmp_path, "m.txt", "quick", "probes=lat_mem", "modes=real")
    fill, _ = fill_cycles(header)
    chase = [e for e in entries if e["region"] == 1 and e["loads"] >= 64 * 64]
    hits = [e["cycles"] / e["loads"] for e in chase if e["dcache_misses"] == 0]
    misses = [e["cycles"] / e["loads"] for e in chase if e["dcache_misses"] == e["loads"]]
    assert hits and misses
    assert all(2.0 <= c < 2.1 for c in hits), sorted(hits)[-3:]
    assert all(2.0 + fill <= c < 2.1 + fill for c in misses), sorted(misses)[-3:]
    for e in chase:
        share = e["dcache_misses"] / e["loads"]
        assert 2.0 + share * fill - 0.05 <= e["cycles"] / e["loads"] < 2.1 + share * fill + 0.1, e
    # model-summary reads the same plateaus off the file, at 200 MHz.
    p = subprocess.run([SUMMARY, str(tmp_path / "m.txt")], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert "lat_mem real: D-cache hit 2.00 cycles = 10.0 ns a load, modelled" in p.stdout
    c = statistics.median(misses)
    assert f"lat_mem real: D-cache miss {c:.2f} cycles = {c * 5:.1f} ns a load, modelled" in p.stdout


def test_model_summary_rejects_what_the_plugin_does_not_write(tmp_path):
    for text in ("garbage\n", "region=1 cycles=12 name=$(reboot)\n", "region=1 cycles=-3\n",
                 "region=1 cycles=1e3\n"):
        f = tmp_path / "bad.txt"
        f.write_text(text)
        p = subprocess.run([SUMMARY, str(f)], capture_output=True, text=True, timeout=30)
        assert p.returncode == 2 and "line 1" in p.stderr, (text, p.stderr)
    p = subprocess.run([SUMMARY, "--mhz", "x", "f"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "--mhz" in p.stderr


def test_model_translated_mode_uses_shadow_tlbs(tmp_path):
    """A translating mode marks its regions so: the DTLB (8 entries of 4 KiB)
    misses on the random chase past 32 KiB and never on the 512-byte sets."""
    _, _, (header, entries, totals) = model_run(tmp_path, "n.txt", "quick", "probes=lat_mem",
                                                "modes=normal")
    chase = [e for e in entries if e["region"] == 1]
    assert chase and all(e["xlate"] == 1 for e in chase)
    assert totals[1]["dtlb_misses"] > 0
    assert min(e["dtlb_misses"] for e in chase) == 0
    big = [e for e in chase if e["loads"] >= 64 * 64 and e["dtlb_misses"] > e["loads"] // 2]
    assert big, "no chase whose loads mostly miss the DTLB"


def test_model_bw_mem_regions(tmp_path):
    """Each of bw_mem's seven loops is its own region; stores dirty lines
    that are written back (write-back D-cache), reads do not write."""
    _, _, (_, entries, totals) = model_run(tmp_path, "bw.txt", "quick", "probes=bw_mem", "modes=real")
    assert sorted(k for k in totals if k != "run" and k < 90) == list(range(11, 18))  # 90+: modes
    assert totals["run"]["unmatched_markers"] == 0
    assert totals[12]["dcache_writebacks"] > 0 and totals[12]["stores"] > 0   # wr
    assert totals[11]["stores"] == 0 and totals[11]["loads"] > 0              # rd
    # LMbench's loops access words: 4 bytes an access (the timer reads too).
    for rid, kind in ((15, "load"), (16, "store"), (17, "load")):
        t = totals[rid]
        assert t[kind + "_bytes"] == 4 * t[kind + "s"], (rid, t)
    # A beyond-cache pass of wr misses once and writes back once a line.
    wr = [e for e in entries if e["region"] == 12 and e["store_bytes"] >= 65536][-1]
    lines = wr["store_bytes"] // 32
    assert lines - 8 <= wr["dcache_misses"] <= lines + 8
    assert lines - 8 <= wr["dcache_writebacks"] <= lines + 8


def test_run_qemu_model_only_on_the_modelled_boards():
    p = subprocess.run([RUN_QEMU, "pc", "--model", "/dev/null", "quick"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 3
    assert "--model models the 405GP and the e500v2 only: ref405ep or ppce500, not pc" in p.stderr
