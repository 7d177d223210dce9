"""KTAP as kernel tools read it.  The reader below follows the rules of the
kernel's tools/testing/kunit/kunit_parser.py (written anew here): after
"KTAP version 1" a result is "ok|not ok <number> [- ]<description>[ # ...]",
the description runs to the first '#', and "# SKIP <reason>" after it
marks a skip.  mmubench's names must come out of it whole and the same on
every run (no integrity field in them), and every result line must still
be checked: its seal, "# @<seq>:<crc>", is the line right after it."""
import os
import re
import subprocess

import pytest

from conftest import LOGCHECK, TOP, parse, run_qemu

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")


@pytest.fixture(scope="module", autouse=True)
def sandbox_built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)

KTAP_RESULT = re.compile(r"^\s*(ok|not ok) ([0-9]+) (?:- )?([^#]*)(?: # (.*))?$")


def ktap_results(log):
    """[(ok, number, name, skip reason or None)] of the first KTAP report."""
    results, started = [], False
    for line in log.replace("\r", "").split("\n"):
        if line.strip() == "KTAP version 1":
            if started:
                break
            started = True
            continue
        m = KTAP_RESULT.match(line) if started else None
        if not m:
            continue
        directive = m.group(4) or ""
        skip = directive[4:].lstrip(" ") if directive.startswith("SKIP") else None
        results.append((m.group(1) == "ok", int(m.group(2)), m.group(3).strip(), skip))
    return results


def sandbox_log():
    p = subprocess.run([SANDBOX, "quick", "probes=boot,demand,spaces"], capture_output=True,
                       text=True, timeout=120, errors="replace")
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def test_two_sandbox_runs_give_the_same_ktap_names():
    logs = [sandbox_log() for _ in range(2)]
    names = [[(n, name) for _, n, name, _ in ktap_results(log)] for log in logs]
    run = parse(logs[0])
    assert len(names[0]) == run.planned() > 0
    assert names[0] == names[1]
    assert [name for _, name in names[0]] == list(run.results), "KTAP and logcheck disagree"
    for _, name in names[0]:
        assert re.fullmatch(r"[a-z_0-9]+\.[a-z_0-9]+", name), name
    for log in logs:
        for _, _, name, skip in ktap_results(log):
            assert "@" not in name and "@" not in (skip or ""), (name, skip)


def test_ref405ep_skip_reason_is_whole():
    run = run_qemu("ref405ep", "quick", "probes=boot,demand", timeout=120)
    assert run.rc == 0, run.log
    results = ktap_results(run.log)
    assert [name for _, _, name, _ in results] == [
        "boot.real", "boot.normal", "boot.pinned", "boot.largepte",
        "demand.real", "demand.normal", "demand.pinned", "demand.largepte"]
    assert [n for _, n, _, _ in results] == list(range(1, 9))
    skips = {name: why for _, _, name, why in results if why is not None}
    assert skips == {"demand.real": "mode real has no translation, so no faults"}
    assert skips["demand.real"] == run.skips["demand.real"]
    # Each result line is followed at once by its seal.
    lines = run.log.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        if KTAP_RESULT.match(line) or line.startswith("1.."):
            assert re.fullmatch(r"# @\d+:[0-9a-f]{8}", lines[i + 1]), (line, lines[i + 1])


def logcheck(text):
    return subprocess.run([LOGCHECK], input=text, capture_output=True, text=True, timeout=30)


def edited(log, edit):
    lines = log.split("\n")
    i = next(i for i, l in enumerate(lines) if l.startswith("ok 2 "))
    edit(lines, i)
    return "\n".join(lines)


def test_intact_log_passes():
    log = sandbox_log()
    p = logcheck(log)
    assert p.returncode == 0, p.stderr
    assert "%d results" % parse(log).planned() in p.stderr


def test_missing_seal_after_a_result_is_damage():
    def drop(lines, i):
        del lines[i + 1]
    p = logcheck(edited(sandbox_log(), drop))
    assert p.returncode == 2, p.stderr
    assert "no integrity comment" in p.stderr and "ok 2 boot." in p.stderr


def test_garbled_seal_is_damage():
    def flip(lines, i):
        s = lines[i + 1]
        lines[i + 1] = s[:-1] + ("0" if s[-1] != "0" else "1")
    p = logcheck(edited(sandbox_log(), flip))
    assert p.returncode == 2, p.stderr
    assert "CRC mismatch" in p.stderr


def test_renamed_result_is_damage():
    def rename(lines, i):
        lines[i] = lines[i].replace("ok 2 boot.", "ok 2 boot.x")
    p = logcheck(edited(sandbox_log(), rename))
    assert p.returncode == 2, p.stderr
    assert "CRC mismatch" in p.stderr


def test_seal_before_its_line_is_damage():
    def swap(lines, i):
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
    p = logcheck(edited(sandbox_log(), swap))
    assert p.returncode == 2, p.stderr


def test_seal_text_appended_to_the_result_is_the_old_form():
    """The older logs (seal on the line) still check: recorded data stays readable."""
    def join(lines, i):
        seal = lines.pop(i + 1)
        lines[i] += "  " + seal[2:]
    log = sandbox_log()
    second = ktap_results(log)[1][2]
    old = edited(log, join)
    p = logcheck(old)
    assert p.returncode == 0, p.stderr
    assert parse(old).results == parse(log).results
    # ... and is what made the names change: kunit's rule reads the seal into it.
    assert re.fullmatch(re.escape(second) + r"  @\d+:[0-9a-f]{8}", ktap_results(old)[1][2])
