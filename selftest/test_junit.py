"""mmureport --junit FILE (tools/report/junit.py): the KTAP results as
JUnit XML for CI systems.  On recorded logs the counts are the KTAP
Totals, a skip carries its reason and a testcase its measurements; on
logs edited and re-sealed here a failure carries its diagnostics, a run
cut short or an unusable input is an error (never all passed), and
hostile text (<, &, ]]>, ESC, a bad byte, a huge line) still gives
well-formed XML that tools/report/junit.xsd accepts (xmllint)."""
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
import zlib

import pytest

from conftest import TOP, checked_lines

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
XSD = os.path.join(TOP, "tools", "report", "junit.xsd")
DATA = os.path.join(TOP, "selftest", "data", "report")
LOGS = ["pc-quick.log", "ref405ep-quick.log", "ref405ep-reps4.log", "pc-reps4.log"]
SEALED = re.compile(r"^(.*)  @(\d+):[0-9a-f]{8}$")
KTAP_SEAL = re.compile(r"^# @\d+:[0-9a-f]{8}$")
KTAP = re.compile(r"^(1\.\.\d+|(not )?ok \d+ .*)$")
TOTALS = re.compile(r"# Totals: pass:(\d+) fail:(\d+) skip:(\d+)")


def junit(tmp_path, *logs, name="junit.xml"):
    """mmureport --junit on logs: (exit status, the parsed root, the file)."""
    out = tmp_path / name
    p = subprocess.run([REPORT, "--no-tables", "--junit", str(out), *map(str, logs)],
                       capture_output=True, timeout=120)
    assert out.exists(), p.stderr.decode()
    return p.returncode, ET.parse(out).getroot(), out


def xmllint(path):
    if not shutil.which("xmllint"):
        pytest.skip("xmllint is missing (Debian package libxml2-utils)")
    p = subprocess.run(["xmllint", "--noout", "--schema", XSD, str(path)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr


def counts(suite):
    return {k: int(suite.get(k)) for k in ("tests", "failures", "errors", "skipped")}


def cases(suite):
    return {(c.get("classname"), c.get("name")): c for c in suite.iter("testcase")}


def texts(log_bytes):
    """A log's lines as text (a bad byte kept as a surrogate, to write back)."""
    return log_bytes.decode("utf-8", "surrogateescape").splitlines()


def reseal(lines):
    """The lines with every seal made anew, numbered from 1 after "KTAP
    version 1" (so lines may be added, changed or dropped): a sealed line
    "<text>  @N:<crc>", a KTAP line's seal the line after it, table lines
    as they are (unchanged here, so their block's CRC holds)."""
    out, seq, ktap, table, ended = [], 0, False, False, False
    for line in lines:
        if not ktap or ended or KTAP_SEAL.match(line):
            ktap = ktap or line.endswith("KTAP version 1")
            if not KTAP_SEAL.match(line):
                out.append(line)
            continue
        if table and not line.startswith("# tables end"):
            out.append(line)
            continue
        m = SEALED.match(line)
        text = m.group(1) if m else line
        table = text == "# tables begin"
        ended = text.startswith("# mmubench status: ")
        seq += 1
        crc = zlib.crc32(("%s  @%d" % (text, seq)).encode("utf-8", "surrogateescape"))
        if KTAP.match(text):
            out += [text, "# @%d:%08x" % (seq, crc)]
        else:
            out.append("%s  @%d:%08x" % (text, seq, crc))
    return out


def recorded(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return texts(f.read())


def write(tmp_path, name, lines):
    path = tmp_path / name
    path.write_bytes(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
    return path


def sealed(text):
    """A line to seal (reseal gives it its number and CRC)."""
    return text + "  @0:00000000"


def failed_log(diag):
    """pc-quick.log with demand.2level failed (its reason, then diag as
    diagnostics before it) and tlb.pse stopped by the watchdog."""
    out = []
    for line in recorded("pc-quick.log"):
        text = SEALED.match(line).group(1) if SEALED.match(line) else line
        if text == "ok 12 demand.2level":
            out += [sealed("# demand.2level: the fault handler saw 15 faults, not 16"),
                    *map(sealed, diag), "not ok 12 demand.2level"]
            continue
        if text == "ok 28 tlb.pse":
            line = "not ok 28 tlb.pse # TIMEOUT stopped after 60 s (the watchdog)"
        elif text.startswith("# Totals: "):
            line = sealed("# Totals: pass:60 fail:2 skip:8")
        elif text.startswith("# mmubench status: "):
            line = sealed("# mmubench status: fail")
        out.append(line)
    return reseal(out)


def test_recorded_counts_are_the_totals(tmp_path):
    logs = [os.path.join(DATA, n) for n in LOGS]
    rc, root, out = junit(tmp_path, *logs)
    assert rc == 0
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == \
        ["mmubench.pc-1", "mmubench.ref405ep-1", "mmubench.ref405ep-2", "mmubench.pc-2"]
    for log, suite in zip(logs, suites):
        with open(log, encoding="utf-8") as f:
            p, fl, sk = map(int, TOTALS.search(f.read()).groups())
        assert counts(suite) == {"tests": p + fl + sk, "failures": fl, "errors": 0, "skipped": sk}
        assert len(suite.findall("testcase")) == p + fl + sk
    assert root.get("tests") == str(sum(int(s.get("tests")) for s in suites))
    xmllint(out)


def test_skip_reason_and_properties(tmp_path):
    log = os.path.join(DATA, "pc-quick.log")
    _rc, root, _out = junit(tmp_path, log)
    tc = cases(root.find("testsuite"))
    skip = tc[("mmubench.pc.demand", "flat")].find("skipped")
    assert skip.get("message") == "mode flat has no translation, so no faults"
    # Every measurement of a result is one of its properties, as the log
    # printed it (a kind with its word after: "0 kind (untagged)").
    lines, _ = checked_lines(open(log, encoding="utf-8").read())
    want = {}
    for j in lines:
        if j["kind"] == "measurement":
            probe, mode, metric = j["name"].split(".", 2)
            want.setdefault(("mmubench.pc." + probe, mode), {})[metric] = \
                "%s %s" % (j["value"], j["unit"])
    props = {k: {p.get("name"): p.get("value").split(" (")[0] for p in c.iter("property")}
             for k, c in tc.items()}
    assert tc[("mmubench.pc.spaces", "2level")].find(
        "properties/property[@name='switch_kind']").get("value") == "0 kind (untagged)"
    assert props[("mmubench.pc.demand", "2level")]["page_fault_ns"] == "15214.43 ns"
    for key, figures in want.items():
        if key in tc:
            assert props[key] == figures, key
    # Figures of no result (page tables, CPUID) are the suite's.
    suite_props = {p.get("name"): p.get("value")
                   for p in root.find("testsuite").find("properties")}
    assert suite_props["mmu.2level.pagetable_bytes"] == "266240 bytes"
    assert suite_props["board"] == "pc"


def test_failure_has_its_diagnostics(tmp_path):
    dump = ["# exception: DSI at 0x00101234, DEAR 0xdeadbeef", "# r0 00000000 r1 0019fff0"]
    log = write(tmp_path, "failed.log", failed_log(dump))
    assert checked_lines(log.read_text())[1] == 1      # intact, and failed
    rc, root, out = junit(tmp_path, log)
    assert rc == 0
    suite = root.find("testsuite")
    assert counts(suite) == {"tests": 70, "failures": 2, "errors": 0, "skipped": 8}
    tc = cases(suite)
    f = tc[("mmubench.pc.demand", "2level")].find("failure")
    assert f.get("message") == "demand.2level: the fault handler saw 15 faults, not 16"
    assert f.get("type") == "not ok"
    for d in dump:
        assert d in f.text
    assert "line " in f.text and "demand.2level" in f.text
    t = tc[("mmubench.pc.tlb", "pse")].find("failure")
    assert t.get("message") == "TIMEOUT: stopped after 60 s (the watchdog)"
    assert t.get("type") == "timeout"
    assert ("mmubench.pc", "log") not in tc            # whole: the results say it all
    xmllint(out)


def test_cut_short_is_an_error(tmp_path):
    """A log that ends mid-run (its last words a register dump) and one
    with nothing usable: errors, never all passed."""
    lines = recorded("pc-quick.log")
    cut = lines.index(next(l for l in lines if l.startswith("ok 40 bw_mem.pae2m")))
    lines = reseal(lines[:cut + 2] + [sealed("# exception: machine check"),
                                      sealed("# srr0 0x00104000")])
    log = write(tmp_path, "cut.log", lines)
    empty = write(tmp_path, "empty.log", [])
    rc, root, out = junit(tmp_path, log, empty)
    assert rc == 2
    suite, inputs = root.findall("testsuite")
    assert counts(suite)["tests"] == 41 and counts(suite)["errors"] == 1
    err = cases(suite)[("mmubench.pc", "log")].find("error")
    assert err.get("message").startswith("PARTIAL: the log ends at line ")
    assert "40 of 70 planned results reported" in err.get("message")
    assert "# exception: machine check" in err.text and "# srr0 0x00104000" in err.text
    assert inputs.get("name") == "mmureport.inputs" and counts(inputs)["errors"] == 1
    assert cases(inputs)[("mmureport.inputs", str(empty))].find("error") is not None
    assert int(root.get("errors")) == 2
    xmllint(out)


HOSTILE = ["<script>alert(1)</script> & &amp; ]]> <![CDATA[ x ]]>",
           "\x1b[2J\x07 escape, bell, \x7f and a bad byte \udcff here",
           "\"quotes\" and 'apostrophes' <!-- a comment -->",
           "x" * 3900]


def test_hostile_text_is_well_formed(tmp_path):
    """Hostile diagnostics and a hostile SKIP reason, re-sealed as a lab
    could; a 1 MB line unsealed (garbled: an error); a hostile file name."""
    lines = failed_log(["# " + h for h in HOSTILE])
    i = next(k for k, l in enumerate(lines) if l.startswith("ok 11 demand.flat # SKIP"))
    lines[i] = "ok 11 demand.flat # SKIP <b>&amp;]]>\x1b[0m\udcfe"
    lines = reseal(lines)
    j = next(k for k, l in enumerate(lines) if l.startswith("ok 13 demand.pse"))
    lines[j:j] = ["# " + "<&]]>\x1b" * 250000]       # sealed by nobody: garbled
    name = "a<b>&c]]>\x1bd.log"
    log = write(tmp_path, name, lines)
    rc, root, out = junit(tmp_path, log)
    assert rc == 0
    raw = out.read_bytes()
    raw.decode("utf-8")                                 # UTF-8 throughout
    assert b"\x1b" not in raw and b"<script>" not in raw and b"<b>" not in raw
    assert len(raw) < 2_000_000
    suite = root.find("testsuite")
    tc = cases(suite)
    f = tc[("mmubench.pc.demand", "2level")].find("failure").text
    assert HOSTILE[0] in f and HOSTILE[2] in f and HOSTILE[3] in f
    assert "\\x1b[2J\\x07 escape, bell, \\x7f and a bad byte \ufffd here" in f
    skip = tc[("mmubench.pc.demand", "flat")].find("skipped").get("message")
    assert skip == "<b>&amp;]]>\\x1b[0m\ufffd"
    # The unsealed line is garbled: no result has it, and the run says so.
    for c in suite.iter("testcase"):
        if c.get("name") != "log":
            assert not any("<&]]>\\x1b" in (e.text or "") for e in c.iter())
    assert counts(suite)["errors"] == 1
    assert "lost or garbled" in tc[("mmubench.pc", "log")].find("error").get("message")
    props = {p.get("name"): p.get("value") for p in suite.find("properties")}
    assert props["file"].endswith("a<b>&c]]>\\x1bd.log")
    xmllint(out)


def test_junit_without_usable_input(tmp_path):
    """Nothing usable: no tables or data files, but the JUnit file says why."""
    rc, root, out = junit(tmp_path, write(tmp_path, "chatter.log", ["U-Boot 2024.01", "=> "]))
    assert rc == 2
    assert [s.get("name") for s in root] == ["mmureport.inputs"]
    assert root.get("errors") == "1" and root.get("tests") == "1"
    xmllint(out)


def test_text_xml_cannot_carry_is_shown():
    """Whatever the model holds (the core shows control characters already),
    what XML 1.0 cannot carry even escaped is shown, not written."""
    import sys
    sys.path.insert(0, os.path.join(TOP, "tools"))
    from report import junit as j
    bad = "nul \x00 esc \x1b del \x7f lone \ud800 <&]]>"
    run = {"label": "b\x01", "file": bad, "board": bad, "source": "mmubench", "partial": False,
           "plan": 1, "status": "fail", "lines_lost_or_garbled": 0, "diagnostics": [bad],
           "measurements": [{"probe": "p", "mode": "m", "metric": bad, "value": 1,
                             "unit": "count", "decimals": 0}],
           "results": [{"name": "p.m", "result": "not ok", "line": 3, "reason": "",
                        "diagnostics": ["# " + bad]}]}
    model = {"runs": [run], "inputs": [{"file": bad, "usable": True, "first_run": 1, "runs": 1,
                                        "messages": bad}]}
    text = ET.tostring(j.tree(model), encoding="unicode")
    root = ET.fromstring(text)
    f = root.find("testsuite/testcase/failure")
    assert f.text.startswith("# nul \\x00 esc \\x1b del \x7f lone \\ud800 <&]]>")
    assert root.find("testsuite").get("name") == "mmubench.b\\x01"
