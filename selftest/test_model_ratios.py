"""tools/model-ratios and mmureport --lmbench --model (tools/report/model.py):
the seed's ratio table in modelled time from a run's log and the plugin's
file.  Crafted plugin files and tables with figures chosen so that every
printed figure is known; malformed inputs refused with the line; one real
ref405ep run of the process probes under the plugin."""
import json
import os
import subprocess
import sys

import pytest

from conftest import TOP, RUN_QEMU

sys.path.insert(0, os.path.join(TOP, "tools"))
from report import model  # noqa: E402

RATIOS = os.path.join(TOP, "tools", "model-ratios")
REPORT = os.path.join(TOP, "build", "tools", "mmureport")
SEED = os.path.join(TOP, "selftest", "data", "lmbench", "walnut-2pintlb-largepte-nopintlb-32M.txt")
Q405 = os.path.join(TOP, "selftest", "data", "report", "ref405ep-quick.log")
HEADER = "# mmuplugin core=405gp: modelled (not measured) at 2 core cycles a PLB cycle\n"
ZERO = "loads=0 icache_misses=0 dcache_misses=0 itlb_misses=0 dtlb_misses=0"


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "tools"], cwd=TOP, check=True, timeout=300)


def entry(rid, insns, cycles, misses=(0, 0, 0, 0)):
    i, d, it, dt = misses
    return (f"region={rid} seq=0 xlate=1 insns={insns} cycles={cycles} loads=0 "
            f"icache_misses={i} dcache_misses={d} itlb_misses={it} dtlb_misses={dt}\n")


def plugin_file(tmp_path, body, name="p.txt"):
    f = tmp_path / name
    f.write_text(HEADER + body + "total region=run unmatched_markers=0 insns=1 cycles=1\n")
    return str(f)


def table(fork_normal=2.0, fork_pinned=1.0):
    """mmureport --lmbench's JSON as it has it: the seed's kernels and one run."""
    fork = "Processor, Processes: fork proc"
    mhz = "Basic system parameters: Mhz"
    seed = [{"source": "lmbench", "host": h, "os": "Linux", "lmbench": True, "modes": [],
             "cells": {fork: v}} for h, v in (("nopintlb-", 1220), ("nopintlb-", 1230),
                                              ("2pintlb-3", 1000), ("2pintlb-3", 1010))]
    ours = [{"source": "ref405ep", "host": "ref405ep", "os": m, "lmbench": False,
             "modes": ["real", "normal", "pinned"], "cells": {mhz: 1000.0, fork: v}}
            for m, v in (("normal", fork_normal), ("pinned", fork_pinned))]
    return {"mmureport_lmbench": 1, "rows": seed + ours}


def test_join_per_operation_and_ratios(tmp_path):
    """fork: normal 2.0 us = 2000 instructions an operation (1000 a
    microsecond), its region 4000 instructions and 10000 cycles: half the
    region is one fork, 5000 cycles; pinned 1000 instructions, its region
    2000 and 3000: 1500.  Misses: half the region's.  Entries before the
    first mode marker and other regions are not counted; mode markers 91
    and 92 are normal and pinned (the run's modes real, normal, pinned)."""
    body = (entry(24, 7777, 7777) + entry(91, 3, 3) + entry(24, 3000, 6000, (2, 4, 6, 8))
            + entry(24, 1000, 4000) + entry(22, 50, 50) + entry(92, 3, 3)
            + entry(24, 2000, 3000, (10, 20, 30, 40)))
    core, shown, rows = model.join(table(), plugin_file(tmp_path, body))
    assert (core, shown) == ("405gp", ["normal", "pinned"])
    fork, = [r for r in rows if r["column"] == "fork proc"]
    assert fork["modes"]["normal"] == {"insns": 2000.0, "cycles": 5000.0, "icache_misses": 1.0,
                                       "dcache_misses": 2.0, "itlb_misses": 3.0, "dtlb_misses": 4.0}
    assert fork["modes"]["pinned"]["cycles"] == 1500.0
    assert fork["modes"]["pinned"]["dtlb_misses"] == 20.0
    assert fork["insn_ratio"] == 2.0
    assert fork["model_ratio"] == pytest.approx(5000 / 1500)
    assert fork["seed_ratio"] == pytest.approx(1225 / 1005)
    null, = [r for r in rows if r["column"] == "null call"]     # no figure, no region
    assert null["modes"] == {} and null["insn_ratio"] is None and null["model_ratio"] is None
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        model.print_table(core, shown, rows, 200, out=f)
    text = out.read_text().splitlines()
    assert text[0] == "# modelled: 405GP at 200 MHz, caches and timings from the manual (no hardware)"
    assert text[2] == "column         insns normal/pinned  modelled normal/pinned  seed nopintlb/2pintlb"
    assert text[5] == "fork proc                     2.00                    3.33                   1.22"
    assert text[3] == "null call                        -                       -                      -"
    assert "fork proc      normal        2000     25.00      1.0      2.0      3.0      4.0" in text
    assert "fork proc      pinned        1000      7.50      5.0     10.0     15.0     20.0" in text


@pytest.mark.parametrize("body, message", [
    ("garbage\n", "line 2: not a line of mmuplugin's"),
    ("region=24 insns=1 name=$(reboot)\n", "line 2: not a line of mmuplugin's"),
    ("region=24 insns=1e3\n", "line 2: a value that is not a count"),
    ("region=24 insns=-3\n", "line 2: not a line of mmuplugin's"),
    ("total region=run unmatched_markers=2 insns=1\n", "line 2: unmatched markers"),
])
def test_read_plugin_refuses_what_the_plugin_does_not_write(tmp_path, body, message):
    f = tmp_path / "bad.txt"
    f.write_text(HEADER + body)
    with pytest.raises(model.Bad) as e:
        model.read_plugin(str(f))
    assert str(e.value).startswith(repr(str(f)) + " " + message), str(e.value)


def test_read_plugin_needs_its_header_and_ascii(tmp_path):
    f = tmp_path / "x.txt"
    f.write_text(entry(24, 1, 1))
    with pytest.raises(model.Bad, match="no '# mmuplugin core=...' header"):
        model.read_plugin(str(f))
    f.write_bytes(HEADER.encode() + b"region=24 \xff\n")
    with pytest.raises(model.Bad, match="cannot read"):
        model.read_plugin(str(f))


def test_join_refuses_what_it_cannot_join(tmp_path):
    p = plugin_file(tmp_path, entry(91, 3, 3) + entry(24, 1, 1))
    t = table()
    t["rows"][-1]["os"] = "largepte"                  # no pinned
    with pytest.raises(model.Bad, match="the log has no mode pinned"):
        model.join(t, p)
    t = table()
    t["rows"][-1]["source"] = "ref405ep-2"            # two runs
    with pytest.raises(model.Bad, match="2 runs of mmubench given"):
        model.join(t, p)
    t = table()
    del t["rows"][-2]["cells"]["Basic system parameters: Mhz"]
    with pytest.raises(model.Bad, match="no Mhz figure"):
        model.join(t, p)
    with pytest.raises(model.Bad, match="marks mode index 5, the log has 3 modes"):
        model.join(table(), plugin_file(tmp_path, entry(95, 3, 3)))
    with pytest.raises(model.Bad, match="an entry of region 24 without cycles"):
        model.join(table(), plugin_file(tmp_path, entry(91, 3, 3) + "region=24 insns=5\n"))


def test_cli_usage_and_bad_input(tmp_path):
    p = subprocess.run([RATIOS, Q405], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("usage: model-ratios")
    bad = tmp_path / "bad.txt"
    bad.write_text("region=1 cycles=12\n")
    p = subprocess.run([RATIOS, Q405, str(bad)], capture_output=True, text=True, timeout=60)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"model-ratios: {str(bad)!r}: no '# mmuplugin core=...' header: not the plugin's file\n"
    p = subprocess.run([RATIOS, "/nonexistent.log", plugin_file(tmp_path, "")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stderr.startswith("model-ratios: mmureport --lmbench: exit 2")


def test_lmbench_json_and_model(tmp_path):
    """mmureport --lmbench --json: the table's cells by section and column,
    the run's modes in order; --model: the modelled table after it, from a
    crafted plugin file for the log's real (index 0) and normal (1) modes."""
    out = tmp_path / "t.json"
    p = subprocess.run([REPORT, "--lmbench", SEED, Q405, "--json", str(out)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    t = json.loads(out.read_text())
    ours = [r for r in t["rows"] if not r["lmbench"]]
    assert [r["os"] for r in ours] == ours[0]["modes"] == ["real", "normal", "pinned", "largepte"]
    seed = [r for r in t["rows"] if r["lmbench"]]
    assert [r["host"] for r in seed] == ["2pintlb-3"] * 3 + ["largepte-"] * 3 + ["nopintlb-"] * 3
    assert seed[0]["cells"]["Processor, Processes: fork proc"] == 1713
    assert seed[0]["cells"]["*Local* Communication latencies: Pipe"] is None   # unknown: spacing lost
    assert seed[0]["cells"]["Basic system parameters: Description"] == "powerpc-linux-gnu"
    fork = {r["os"]: r["cells"]["Processor, Processes: fork proc"] for r in ours if r["os"] != "real"}
    mhz = ours[1]["cells"]["Basic system parameters: Mhz"]
    body = (entry(91, 3, 3) + entry(24, round(fork["normal"] * mhz), 4 * round(fork["normal"] * mhz))
            + entry(92, 3, 3) + entry(24, round(fork["pinned"] * mhz), 2 * round(fork["pinned"] * mhz)))
    p = subprocess.run([REPORT, "--lmbench", SEED, Q405, "--model", plugin_file(tmp_path, body)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    tail = p.stdout.split("\n\n# modelled: ")[1].splitlines()
    assert tail[0] == "405GP at 200 MHz, caches and timings from the manual (no hardware)"
    row, = [l for l in tail if l.startswith("fork proc   ")][:1]
    want = f"{fork['normal'] / fork['pinned']:.2f}", f"{2 * fork['normal'] / fork['pinned']:.2f}"
    assert row.split()[2:4] == list(want), row
    p = subprocess.run([REPORT, "--model", "x.txt", Q405], capture_output=True, text=True, timeout=60)
    assert p.returncode == 3 and "--model goes with --lmbench" in p.stderr
    p = subprocess.run([REPORT, "--lmbench", "--json", "-", "--model", "x.txt", Q405],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 3 and "--model goes with --lmbench (and a --json FILE, not -)" in p.stderr


def test_real_run_process_regions(tmp_path):
    """ref405ep under the plugin: every process probe's column a region in
    each translated mode, no marker unmatched, and the table joined."""
    log, out = tmp_path / "m.log", tmp_path / "m.txt"
    p = subprocess.run([RUN_QEMU, "ref405ep", "--icount", "--model", str(out), "--log", str(log),
                        "--timeout", "120", "quick",
                        "probes=cpu,trap,signal,fork,exec,ctx,pipe,pagefault,mmap",
                        "modes=normal,pinned"], capture_output=True, text=True, timeout=240)
    assert p.returncode == 0, p.stderr[-2000:]
    core, entries = model.read_plugin(str(out))
    sums = model.by_mode(entries, 2)
    quick = {21, 22, 23, 24, 25, 26, 27, 28, 31, 33, 37}      # ctx quick: 2p/0K, 2p/64K, 16p/64K
    assert {rid for (m, rid) in sums if rid < model.MARK_MODE} == quick
    assert all((m, rid) in sums for m in (0, 1) for rid in quick)
    assert all(e["xlate"] == 1 for e in entries if e["region"] in quick)
    p = subprocess.run([RATIOS, str(log), str(out)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    rows = {l[:15].strip(): l[15:].split() for l in p.stdout.splitlines()[3:18]}
    assert rows["fork proc"][1] != "-" and rows["Page Fault"][1] != "-"
    assert rows["8p/16K ctxsw"] == ["-", "-", "1.09"]      # not run in quick: the seed's alone
