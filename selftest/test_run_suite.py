"""tools/run-suite's console for a person: tools/suite-progress (a line per
board x probe, the boards' last lines), tools/suite-summary (the tables
without empty rows, the differences beyond the noise), and a real small
plan on all four boards held to a line budget that grows with the plan,
not with the raw consoles."""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import TOP

PROGRESS = os.path.join(TOP, "tools", "suite-progress")
SUMMARY = os.path.join(TOP, "tools", "suite-summary")


def progress(stream, *args):
    p = subprocess.run([PROGRESS, *args], input=stream, capture_output=True, text=True, timeout=30)
    return p.returncode, p.stdout.splitlines()


def console(plan, results, status="pass", modes=None):
    """A console stream: the plan, a run line, results with raw lines between."""
    lines = [f"1..{plan}  @1:00000000"]
    if modes:
        lines.append(f"# run: {plan // modes} probe(s) x {modes} mode(s), reps=1")
    for i, r in enumerate(results, 1):
        lines += [f"# sample x.y.z 1 {i} ns", f"# measurement x.y.z {i} ns", r % i]
    return "\n".join(lines + [f"# mmubench status: {status}", "logcheck: intact: 9 protected lines"]) + "\n"


def test_a_line_per_probe_with_its_modes_verdicts():
    stream = console(6, ["ok %d boot.a", "ok %d boot.b  @7:0000abcd", "ok %d boot.c",
                         "ok %d demand.a # SKIP mode a has no translation, so no faults at all here",
                         "ok %d demand.b", "ok %d demand.c # SKIP mode a has no translation, so no "
                         "faults at all here"], modes=3)
    rc, out = progress(stream, "walnut")
    assert rc == 0, out
    assert len(out) == 3, out
    assert re.match(r"^  \[  3/6\] walnut +boot +\d+\.\d s  ok \(3 modes\)$", out[0]), out[0]
    # Skips with the same reason on one part, the reason's first words.
    assert out[1].endswith("ok b; skip a c (mode a has no translation, so ...)"), out[1]
    assert out[2].startswith("  walnut: 6 of 6 results (4 ok, 2 skip, 0 not ok), status pass, ")
    assert out[2].endswith("; log intact (9 protected lines)"), out[2]
    assert not any("# measurement" in l or "# sample" in l for l in out)


def test_not_ok_gives_its_reason_and_status_1():
    stream = console(2, ["# boot.b: rep 1: the self-check read 0x1 at 0x2000", "not ok %d boot.b"][1:])
    stream = stream.replace("not ok 1 boot.b", "ok 1 boot.a\n# boot.b: rep 1: read 0x1 at 0x2000\n"
                            "not ok 2 boot.b")
    rc, out = progress(stream.replace("1..2", "1..2"), "pc")
    assert rc == 1, out
    assert "ok a; NOT OK b (read 0x1 at 0x2000)" in out[0], out
    rc, out = progress(console(1, ["ok %d boot.a"], status="fail"), "pc")
    assert rc == 1 and "status fail" in out[-1], out


def test_no_plan_is_status_2_and_a_damaged_log_is_said():
    rc, out = progress("garbage\n", "pc")
    assert rc == 2, out
    rc, out = progress(console(1, ["ok %d boot.a"]).replace("logcheck: intact: 9 protected lines",
                                                            "logcheck: 2 lines lost"), "pc")
    assert "logcheck: 2 lines lost" in out and out[-1].endswith("log NOT intact (logcheck above)"), out


def test_tagged_boards_interleaved_stay_whole(tmp_path):
    a = console(2, ["ok %d boot.x", "ok %d boot.y"], modes=2).splitlines()
    b = console(3, ["ok %d boot.p", "ok %d boot.q", "ok %d boot.r"], modes=3).splitlines()
    mixed = []
    for i in range(max(len(a), len(b))):
        mixed += [f"ref405ep\t{a[i]}"] if i < len(a) else []
        mixed += [f"pc\t{b[i]}"] if i < len(b) else []
    mixed.insert(0, "pc\trun-qemu: pc (tcg): qemu-system-i386 -M pc")
    rc, out = progress("\n".join(mixed) + "\n", "--tagged", "--notes", str(tmp_path))
    assert rc == 0, out
    assert [l.split()[2] for l in out if l.startswith("  [")] == ["ref405ep", "pc"], out
    assert sum(l.startswith(("  ref405ep: 2 of 2", "  pc: 3 of 3")) for l in out) == 2, out
    # The runner's command line: in the notes, not on the console.
    assert not any("qemu-system" in l for l in out)
    assert "qemu-system-i386" in (tmp_path / "pc.notes").read_text()
    rc, out = progress("no tab here\n", "--tagged")
    assert rc == 2


def comparison(metrics):
    full = []
    for name, kind, a, b, holm in metrics:
        full.append({"metric": name, "unit": "count" if kind == "count" else "ns", "kind": kind,
                     "a_median": sum(a) / len(a), "b_median": sum(b) / len(b),
                     "ratio": (sum(b) / len(b)) / (sum(a) / len(a)), "a_min": min(a),
                     "a_max": max(a), "b_min": min(b), "b_max": max(b), "p_holm": holm})
    return {"comparisons": [{"a": "normal", "b": "largepte", "alpha": 0.05, "tests": 2,
                             "metrics": full}]}


def test_differences_only_beyond_the_noise(tmp_path):
    path = tmp_path / "walnut.json"
    path.write_text(json.dumps(comparison([
        ("tlb.dtlb_misses", "count", [100, 101], [3, 3], None),      # ranges apart
        ("demand.dtlb_misses", "count", [10, 14], [12, 15], None),   # overlap: noise
        ("demand.flushes", "count", [7, 7], [7, 7], None),           # equal
        ("lat_mem.load_ns", "test", [5, 6], [9, 9], 0.01),           # Holm under alpha
        ("bw_mem.rd_ns", "test", [5, 6], [6, 7], 0.2)])))            # not
    p = subprocess.run([SUMMARY, "differences", f"{path}:{tmp_path}/all.txt"], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0].startswith("walnut: normal -> largepte: 2 of 5 figures differ"), out
    assert out[1] == "  tlb:        dtlb_misses 100.5 -> 3 (0.02985)", out
    assert out[2] == "  lat_mem:    load_ns 5.5 -> 9 ns (1.636)", out
    assert out[3].endswith(f"{tmp_path}/all.txt") and len(out) == 4, out
    p = subprocess.run([SUMMARY, "differences", str(tmp_path / "none.json")], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2 and "none.json" in p.stderr


TABLES = """Runs
----
  1  walnut  a.log: PowerPC 405GP (QEMU, reps=2)
  2  pc      b.log: i386 (QEMU, reps=2)

Basic system parameters - clocks and timer
------------------------------------------
Figures from: QEMU
Host      Mode      Run     Tick
                             MHz
--------- --------- --- --------
walnut    real      1      333.3

Fault latencies
---------------
Figures from: QEMU
Host      Mode      Run   Demand
                           fault
--------- --------- --- --------
walnut    real      1           
walnut    normal    1       1.44
pc        2level    2       1.81

"""


def test_tables_without_empty_rows_and_setting():
    p = subprocess.run([SUMMARY, "tables"], input=TABLES, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "(left out here: rows without a figure, and Basic system parameters, the run's setting)"
    assert "Fault latencies" in out and "walnut    normal    1       1.44" in out
    assert not any(l.startswith(("walnut    real", "Figures from", "Basic")) for l in out), out
    assert "pc        2level    2       1.81" in out


def tree_copy(tmp_path):
    """The tree linked (run-qemu makes its image there: already made), tools/
    copied: run-suite writes its logs and report under tmp_path/build, not
    the tree's."""
    for d in ("ref405ep", "ppce500", "pc", "sandbox", "tools"):
        if not os.path.exists(os.path.join(TOP, "build", d)):
            pytest.skip(f"build/{d} missing: make all sandbox tools first")
    for name in os.listdir(TOP):
        if name not in ("build", "tools", ".git"):
            os.symlink(os.path.join(TOP, name), tmp_path / name)
    shutil.copytree(os.path.join(TOP, "tools"), tmp_path / "tools")
    (tmp_path / "build").mkdir()
    for name in os.listdir(os.path.join(TOP, "build")):
        if name not in ("logs", "report"):
            os.symlink(os.path.join(TOP, "build", name), tmp_path / "build" / name)
    return tmp_path


def test_console_within_its_line_budget(tmp_path):
    """A real small plan on all four boards: the console has a line per
    board x probe, the tables once without empty rows, the differences, and
    a few more lines; never the raw stream or a line per mode."""
    top = tree_copy(tmp_path)
    probes = ["boot", "demand"]
    p = subprocess.run([str(top / "tools" / "run-suite"), "quick", "probes=" + ",".join(probes),
                        "reps=2"], capture_output=True, text=True, timeout=900,
                       env={k: v for k, v in os.environ.items() if k != "V"})
    out = p.stdout.splitlines()
    assert p.returncode == 0, p.stdout + p.stderr
    boards = ["ref405ep", "ppce500", "pc", "sandbox"]
    for b in boards:
        for probe in probes:
            assert sum(re.match(rf"^  \[ *\d+/\d+\] {b} +{probe} ", l) is not None for l in out) == 1, out
        assert sum(l.startswith(f"  {b}: ") for l in out) == 1, out
    assert not any(re.match(r"^(not )?ok \d|^# (sample|measurement) ", l) for l in out), out
    # The budget, from what the run made: the tables' rows with a figure
    # (tables.txt has every row), the probes with a difference.
    report = top / "build" / "report"
    tables = open(report / "tables.txt").read().split("\n\n")
    table_lines = 0
    for t in tables:
        rows = t.splitlines()
        if not rows or rows[0].startswith(("Basic system parameters", "Core clock")):
            continue
        dashes = [i for i, r in enumerate(rows) if r.startswith("---------")]
        if not dashes:                              # the Runs block
            table_lines += len(rows) + 1
            continue
        prefix = 3 if " Run " in rows[dashes[0] - 2] else 2
        table_lines += 6 + sum(len(r.split()) > prefix for r in rows[dashes[0] + 1:])
    diff_lines = 0
    for b in ("ref405ep", "ppce500", "pc"):
        c = json.load(open(report / f"{b}.json"))["comparisons"][0]
        diff_lines += 3 + 2 * len({m["metric"].split(".")[0] for m in c["metrics"]})
    budget = len(boards) * len(probes) + len(boards) + table_lines + diff_lines + 6
    assert len(out) <= budget, f"{len(out)} lines > budget {budget}:\n" + p.stdout
    for title in (t.splitlines()[0] for t in tables if t.strip()):
        if not title.startswith(("Basic system parameters", "Core clock")):
            assert out.count(title) == 1, (title, p.stdout)       # the tables once
    assert out[-1].startswith(f"report: {report}/index.html "), out[-1]
    assert (report / "index.html").stat().st_size > 0
