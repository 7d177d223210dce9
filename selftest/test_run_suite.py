"""tools/run-suite's console for a person: tools/suite-progress (a line per
board x probe, the boards' last lines), tools/suite-summary (the tables
without empty rows), and a real small plan on all four boards held to a
line budget that grows with the plan, not with the raw consoles; a board
killed half way leaves the others' report; Ctrl-C stops everything."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import xml.etree.ElementTree as ET

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


def col(head1, head2, width=8):
    return {"head1": head1, "head2": head2, "width": width}


# mmureport --json's tables, as the model gives them (never printed text).
TABLES = {"runs_listed": True, "tables": [
    {"title": "Basic system parameters - clocks and timer", "figures_from": "QEMU",
     "run_column": True, "columns": [col("Tick", "MHz")],
     "rows": [{"run": 1, "board": "walnut", "mode": "real", "cells": ["333.3"]}]},
    {"title": "Fault latencies", "figures_from": "QEMU", "run_column": True,
     "columns": [col("Demand", "fault")],
     "rows": [{"run": 1, "board": "walnut", "mode": "real", "cells": [""]},
              {"run": 1, "board": "walnut", "mode": "normal", "cells": ["1.44"]},
              {"run": 2, "board": "pc", "mode": "2level", "cells": ["1.81"]}]}]}


def test_tables_without_empty_rows_and_setting(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps(TABLES))
    p = subprocess.run([SUMMARY, "tables", str(path)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    out = p.stdout.splitlines()
    assert out[0] == "(left out here: rows without a figure, and Basic system parameters, the run's setting)"
    assert "Fault latencies" in out and "walnut    normal    1       1.44" in out
    assert not any(l.startswith(("walnut    real", "Figures from", "Basic")) for l in out), out
    assert "pc        2level    2       1.81" in out
    assert "Host      Mode      Run   Demand" in out and "--------- --------- --- --------" in out


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
    board x probe, the tables once without empty rows, the summary, and a
    few more lines; never the raw stream or a line per mode."""
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
    # The summary: per board a heading of at most 8 lines, a line per
    # operation with a figure (at most one per row of suite-summary's table,
    # 30 at most), 3 of notes.
    summary_lines = len(boards) * (8 + 30 + 3)
    budget = len(boards) * len(probes) + len(boards) + table_lines + summary_lines + 6
    assert len(out) <= budget, f"{len(out)} lines > budget {budget}:\n" + p.stdout
    for title in (t.splitlines()[0] for t in tables if t.strip()):
        if not title.startswith(("Basic system parameters", "Core clock")):
            assert out.count(title) == 1, (title, p.stdout)       # the tables once
    assert out[-1].startswith(f"report: {report}/index.html "), out[-1]
    assert (report / "index.html").stat().st_size > 0
    # The CI's view: a suite per board, each as many cases as its Totals.
    suites = junit_suites(report)
    for b in boards:
        totals = re.findall(r"^# Totals: pass:(\d+) fail:(\d+) skip:(\d+)",
                            open(top / "build" / "logs" / f"{b}.log").read(), re.M)
        assert len(totals) == 1, (b, totals)
        pas, fail, skip = map(int, totals[0])
        assert suites[b] == (pas + fail + skip, fail, 0, skip), (b, suites[b], totals)
    assert set(suites) == set(boards), suites


def junit_suites(report):
    """junit.xml's suites: {board or input suite: (tests, failures, errors, skipped)}."""
    root = ET.parse(report / "junit.xml").getroot()
    return {s.get("name").removeprefix("mmubench."):
            tuple(int(s.get(k)) for k in ("tests", "failures", "errors", "skipped"))
            for s in root.iter("testsuite")}


def qemus_of(tree, board=""):
    """Pids of the QEMUs started from `tree` (their -kernel is under it),
    or of one board's."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        if cmd[0].startswith(b"qemu-system") or b"/qemu-system" in cmd[0]:
            if any(f"{tree}/build/{board}".encode() in a for a in cmd):
                pids.append(int(pid))
    return pids


def wait_for(path, text, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(path) and text in open(path, errors="replace").read():
            return True
        time.sleep(0.1)
    return False


def test_pc_killed_half_way_the_others_are_reported(tmp_path):
    """pc's QEMU killed half way: the other boards' tables, summary and
    page; pc marked partial on the page; the status non-zero, naming pc."""
    top = tree_copy(tmp_path)
    logs = top / "build" / "logs"
    p = subprocess.Popen([str(top / "tools" / "run-suite"), "quick", "probes=boot,demand,trap",
                          "reps=1"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                         env={k: v for k, v in os.environ.items() if k != "V"})
    try:
        assert wait_for(logs / "pc.log", "ok 8 ", 600), "pc never got half way"
        pids = qemus_of(top, "pc/")
        assert pids, "no pc QEMU to kill"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        out, _ = p.communicate(timeout=600)
    finally:
        p.kill()
    assert p.returncode == 1, out
    assert re.search(r"^run-suite: FAILED: pc \(status [0-9]+", out, re.M), out
    assert "ref405ep" not in out.split("FAILED:")[1] and "sandbox" not in out.split("FAILED:")[1]
    report = top / "build" / "report"
    page = (report / "index.html").read_text()
    assert "PARTIAL" in page or "partial" in page, page[:2000]
    data = json.load(open(report / "report.json"))
    runs = {r["board"]: r for r in data["runs"]}
    assert runs["pc"]["partial"] is True and not runs["ref405ep"]["partial"], runs.keys()
    tables = (report / "tables.txt").read_text()
    for board in ("ref405ep", "ppce500", "sandbox"):
        assert re.search(rf"^{board} +\S+ +\d", tables, re.M), board
    assert re.search(r"^sandbox: ", out, re.M) and re.search(r"^ppce500: ", out, re.M), out
    suites = junit_suites(report)
    assert suites["pc"][2] == 1 and suites["ref405ep"][1:3] == (0, 0), suites


def test_ctrl_c_stops_everything(tmp_path):
    """Ctrl-C (SIGINT to the terminal's process group) during the suite: no
    QEMU left, no board started after, out within 2 s."""
    top = tree_copy(tmp_path)
    logs = top / "build" / "logs"
    p = subprocess.Popen([str(top / "tools" / "run-suite"), "reps=1"], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, start_new_session=True,
                         env={k: v for k, v in os.environ.items() if k != "V"})
    try:
        assert wait_for(logs / "ref405ep.log", "ok 3 ", 300), "ref405ep never started"
        assert qemus_of(top), "no QEMU to stop"
        started = {b for b in ("ref405ep", "ppce500", "pc", "sandbox") if (logs / f"{b}.log").exists()}
        t0 = time.monotonic()
        os.killpg(p.pid, signal.SIGINT)
        out, _ = p.communicate(timeout=10)
        took = time.monotonic() - t0
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert p.returncode == 130, out
    assert took <= 2.0, f"{took:.2f} s to exit"
    time.sleep(2)
    assert not qemus_of(top), "a QEMU outlived Ctrl-C"
    after = {b for b in ("ref405ep", "ppce500", "pc", "sandbox") if (logs / f"{b}.log").exists()}
    assert after == started and "sandbox" not in after, (started, after)
