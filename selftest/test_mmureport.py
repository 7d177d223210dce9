"""mmureport (build/tools/mmureport): the parser and the integrity check on
logs, the layout against golden files from this project's own QEMU runs
(selftest/data/report/, recorded with tools/run-qemu ... quick), errors,
plots, and the fuzz targets (libFuzzer, ASan, UBSan) for 60 s each.  The
statistics, comparisons and counts: test_mmureport_compare.py."""
import csv
import json
import os
import re
import shutil
import subprocess
import zlib

import pytest

from conftest import TOP

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
DATA = os.path.join(TOP, "selftest", "data", "report")
Q405 = os.path.join(DATA, "ref405ep-quick.log")
QPC = os.path.join(DATA, "pc-quick.log")
R405 = os.path.join(DATA, "ref405ep-reps4.log")
RPC = os.path.join(DATA, "pc-reps4.log")
LMBENCH = os.path.join(TOP, "selftest", "data", "epyc-lat_mem_rd-t-128-64.txt")


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "tools"], cwd=TOP, check=True, timeout=300)


def report(*args, stdin=None, cwd=TOP):
    return subprocess.run([REPORT, *args], input=stdin, capture_output=True, cwd=cwd,
                          timeout=120)


def text(p):
    return p.stdout.decode()


def err(p):
    return p.stderr.decode()


def own_tables(log):
    """The tables block the image printed itself."""
    lines, inside = [], False
    for raw in open(log, encoding="utf-8", errors="replace").read().splitlines():
        line = raw.rstrip("\r")
        if line.startswith("# tables begin"):
            inside = True
        elif line.startswith("# tables end"):
            inside = False
        elif inside:
            lines.append(line)
    return "\n".join(lines) + "\n"


# ---- layout ----

@pytest.mark.parametrize("log", [Q405, QPC, os.path.join(DATA, "sandbox-old-names.log")])
def test_single_run_tables_are_the_images_own(log):
    """One run: mmureport's tables are byte for byte the ones the image printed
    (same sections, columns, rows per mode, cell formatting); an older log's
    too (the sandbox's lat_sig, lat_pagefault in demand, its ring in aspace)."""
    p = report(log)
    assert p.returncode == 0, err(p)
    assert text(p) == own_tables(log)


@pytest.mark.parametrize("args,golden", [
    (["ref405ep-quick.log"], "ref405ep-quick.txt"),
    (["pc-quick.log"], "pc-quick.txt"),
    (["ref405ep-quick.log", "pc-quick.log", "ref405ep-quick.log"], "three-runs.txt"),
    (["--no-tables", "--compare", "normal", "largepte", "ref405ep-reps4.log"],
     "ref405ep-reps4-compare.txt"),
    (["--no-tables", "--compare", "2level", "pae", "pc-reps4.log"], "pc-reps4-compare.txt"),
    (["../epyc-lat_mem_rd-t-128-64.txt"], "lmbench.txt"),
])
def test_golden(args, golden):
    p = report(*args, cwd=DATA)
    assert p.returncode == 0, err(p)
    assert text(p) == open(os.path.join(DATA, golden)).read()


def test_several_runs_on_consecutive_rows():
    out = text(report(Q405, QPC, Q405))
    rows = [l.split()[:3] for l in out.splitlines() if l.startswith(("ref405ep ", "pc "))]
    # In the first table: per mode, run 1 then run 3 of the same configuration.
    first = rows[:13]
    assert first[:8] == [["ref405ep", m, r] for m in ("real", "normal", "pinned", "largepte")
                         for r in ("1", "3")]
    assert [r[1] for r in first[8:13]] == ["flat", "2level", "pse", "pae", "pae2m"]


# ---- parser: input kinds ----

def small_log(body, prefix="", crlf=True, tables=("T", "-", "row")):
    """A log with correct suffixes: body lines protected, then tables, Totals, status."""
    out, seq = [prefix + "KTAP version 1"], 0

    def prot(t):
        """The line sealed as the image seals it (KTAP lines: on the next line)."""
        nonlocal seq
        seq += 1
        s = "%s  @%d" % (t, seq)
        crc = "%08x" % zlib.crc32(s.encode())
        if re.match(r"(ok |not ok |1\.\.)", t):
            return [prefix + t, prefix + "# @%d:%s" % (seq, crc)]
        return [prefix + s + ":" + crc]
    for t in body:
        out.extend(prot(t))
    out.extend(prot("# tables begin"))
    crc = 0
    for t in tables:
        out.append(prefix + t)
        crc = zlib.crc32((t + "\n").encode(), crc)
    out.extend(prot("# tables end lines=%d crc=%08x" % (len(tables), crc)))
    npass = sum(1 for t in body if t.startswith("ok ") and "# SKIP" not in t)
    nskip = sum(1 for t in body if "# SKIP" in t)
    out.extend(prot("# Totals: pass:%d fail:0 skip:%d" % (npass, nskip)))
    out.extend(prot("# mmubench status: pass"))
    return ("\r\n" if crlf else "\n").join(out) + "\n"


BODY = ["1..2", "# mmubench v1 on ref405ep (ppc405), entered by test", "# cpu: PowerPC 405EP",
        "# platform: QEMU TCG", "# run: 1 probe(s) x 2 mode(s), reps=3, quick",
        "# measurements begin",
        "# sample demand.normal.page_fault_ns 1 1500.25 ns",
        "# sample demand.normal.page_fault_ns 2 1400.50 ns",
        "# sample demand.normal.page_fault_ns 3 1600.75 ns",
        "# measurement demand.normal.page_fault_ns 1500.25 ns",
        "# measurement bw_mem.normal.rd_mbs 100.50 MB/s",
        "ok 1 demand.normal",
        "# measurement demand.largepte.page_fault_ns 1100.00 ns",
        "ok 2 demand.largepte # SKIP because",
        "# measurements end"]


def parsed(log_text, *extra):
    p = report("--json", "-", "--no-tables", *extra, "-", stdin=log_text.encode())
    assert p.returncode == 0, err(p)
    return json.loads(text(p))


def test_parser_values_samples_and_names():
    d = parsed(small_log(BODY))
    run = d["runs"][0]
    assert run["board"] == "ref405ep" and run["arch"] == "ppc405" and run["version"] == "v1"
    assert run["cpu"] == "PowerPC 405EP" and run["platform"] == "QEMU TCG"
    assert run["reps"] == 3 and run["status"] == "pass" and run["modes"] == ["normal", "largepte"]
    assert run["lines_lost_or_garbled"] == 0
    m = {(x["probe"], x["mode"], x["metric"]): x for x in run["measurements"]}
    pf = m[("demand", "normal", "page_fault_ns")]
    assert pf["value"] == 1500.25 and pf["unit"] == "ns" and pf["samples"] == [1500.25, 1400.5, 1600.75]
    assert pf["line"] == 12          # its line in the input (KTAP 1, the plan 2, its seal 3)
    assert m[("bw_mem", "normal", "rd_mbs")]["unit"] == "MB/s"
    assert m[("demand", "largepte", "page_fault_ns")]["samples"] == []
    assert [r["result"] for r in run["results"]] == ["ok", "skip"]


@pytest.mark.parametrize("kind", ["lf", "crlf", "prefix", "stray", "lava"])
def test_parser_input_kinds(kind):
    """QEMU output (LF), console captures (CRLF), a timestamp prefix on every
    line, stray bytes before KTAP, LAVA's output.yaml: all read alike."""
    if kind == "lf":
        log = small_log(BODY, crlf=False)
    elif kind == "crlf":
        log = small_log(BODY)
    elif kind == "prefix":
        lines = small_log(BODY, crlf=False).splitlines()
        log = "\n".join("2026-11-30T11:%02d:%02d.%06d target: %s" % (i // 60, i % 60, i * 7, l)
                        for i, l in enumerate(lines)) + "\n"
    elif kind == "stray":
        log = "U-Boot 2023.01\r\n\x00\xff\x1b[0m" + small_log(BODY)
    else:
        recs = ['- {"dt": "2026-11-30T11:00:00", "lvl": "info", "msg": "boot"}']
        for i, l in enumerate(small_log(BODY, crlf=False).splitlines()):
            recs.append('- {"dt": "2026-11-30T11:00:%02d", "lvl": "target", "msg": %s}'
                        % (i % 60, json.dumps(l)))
            if i == 5:
                recs.append('- {"dt": "x", "lvl": "results", "msg": {"case": "a", "result": "pass"}}')
        log = "\n".join(recs) + "\n"
    d = parsed(log)
    run = d["runs"][0]
    assert run["lines_lost_or_garbled"] == 0
    vals = {(x["mode"], x["metric"]): x["value"] for x in run["measurements"]}
    assert vals == {("normal", "page_fault_ns"): 1500.25, ("normal", "rd_mbs"): 100.5,
                    ("largepte", "page_fault_ns"): 1100.0}


def test_parser_several_runs_in_one_file_and_stdin():
    log = small_log(BODY) + "U-Boot again\n" + small_log(BODY)
    d = parsed(log)
    assert [r["run"] for r in d["runs"]] == [1, 2]
    assert [r["label"] for r in d["runs"]] == ["ref405ep-1", "ref405ep-2"]


def test_lmbench_import_is_a_curve_of_its_own():
    """lat_mem_rd output: its points as a curve, its guesses from lib/guess.c
    exactly as mmuguess prints them."""
    d = parsed(open(LMBENCH).read())
    run = d["runs"][0]
    assert run["source"] == "lmbench" and run["modes"] == ["lmb-s64"]
    m = {x["metric"]: x["value"] for x in run["measurements"]}
    assert sum(1 for k in m if k.startswith("lmbench_")) > 50
    guess = subprocess.run([os.path.join(TOP, "build", "tools", "mmuguess"), "-t", LMBENCH],
                           capture_output=True, text=True, check=True).stdout
    for line in guess.splitlines():
        if not line.startswith("#"):
            name, value, _ = line.split()
            assert m[name] == float(value), name


# ---- integrity ----

def damaged(tmp_path, how):
    lines = open(Q405, "rb").read().split(b"\n")
    i = next(k for k, l in enumerate(lines) if b"# measurement demand.pinned.page_fault_ns" in l)
    seq = int(re.search(rb"@(\d+):", lines[i]).group(1))
    value = lines[i].split()[3].decode()
    if how == "drop":
        del lines[i]
    else:
        l = bytearray(lines[i])
        k = l.index(value.encode()) + 1            # a digit of the value
        l[k] = ord("7") if l[k] != ord("7") else ord("3")
        lines[i] = bytes(l)
    path = tmp_path / (how + ".log")
    path.write_bytes(b"\n".join(lines))
    return str(path), i + 1, seq, value


@pytest.mark.parametrize("how", ["drop", "flip"])
def test_damage_named_and_never_used(tmp_path, how):
    path, lineno, seq, value = damaged(tmp_path, how)
    p = report("--csv", str(tmp_path / "out.csv"), "--json", str(tmp_path / "out.json"), path)
    assert p.returncode == 0, err(p)
    e = err(p)
    if how == "drop":
        # Named at the next line, with the missing sequence number.
        assert "line %d: sequence number %d missing" % (lineno, seq) in e, e
    else:
        assert "line %d: CRC mismatch (garbled line)" % lineno in e, e
    assert "NOT INTACT" in e
    out = text(p)
    assert "1 line(s) lost or garbled" in out
    # The fault table: pinned's Page Fault cell empty, normal's there.
    table = out[out.index("Fault and mapping latencies"):].split("\n\n")[0].splitlines()
    row = {l[10:19].strip(): l for l in table if l.startswith("ref405ep ")}
    assert row["pinned"][19:28].strip() == "", row["pinned"]
    assert row["normal"][19:28].strip() != ""
    assert row["pinned"][28:37].strip() != ""          # the rest of the row is kept
    csv = (tmp_path / "out.csv").read_text()
    assert "demand.pinned" not in csv and ",pinned,demand,page_fault_ns," not in csv
    assert ",normal,demand,page_fault_ns," in csv
    j = json.loads((tmp_path / "out.json").read_text())
    names = {(m["mode"], m["metric"]) for m in j["runs"][0]["measurements"] if m["probe"] == "demand"}
    assert ("pinned", "page_fault_ns") not in names and ("normal", "page_fault_ns") in names
    assert j["runs"][0]["lines_lost_or_garbled"] >= 1
    # --strict: a failure, and no file written.
    out_json = tmp_path / "strict.json"
    p = report("--strict", "--json", str(out_json), path)
    assert p.returncode == 1 and "--strict: no report written" in err(p)
    assert not out_json.exists() and not list(tmp_path.glob("strict.json*"))


# ---- errors ----

def test_errors_clear_message_nonzero_no_file(tmp_path):
    """No usable run at all: status 2, no output file (a truncated log is
    not this: its run is kept, below)."""
    good = open(Q405, "rb").read()
    cases = {
        "notalog": (b"hello\nworld\n", "not an mmubench log"),
        "random": (bytes(range(256)) * 8, "not an mmubench log"),
        "empty": (b"", "empty: not a log"),
        "version": (good.replace(b"KTAP version 1", b"KTAP version 2"), "unknown format version"),
        # A later report of an unknown version: nothing of the file is used.
        "version2": (good + good.replace(b"KTAP version 1", b"KTAP version 2"),
                     "unknown format version"),
    }
    out = tmp_path / "out.json"
    out.write_text("previous")
    for name, (data, words) in cases.items():
        f = tmp_path / (name + ".log")
        f.write_bytes(data)
        p = report("--json", str(out), "--csv", str(tmp_path / "new.csv"), str(f))
        assert p.returncode == 2, (name, err(p))
        assert words in err(p), (name, err(p))
        assert out.read_text() == "previous", name          # left alone
        assert not (tmp_path / "new.csv").exists(), name
    assert sorted(x.name for x in tmp_path.iterdir() if ".tmp" in x.name) == []
    p = report("--compare", "nosuchmode", "normal", Q405)
    assert p.returncode == 3 and "'nosuchmode' names no mode" in err(p)
    p = report("--bogus")
    assert p.returncode == 3 and "usage" in err(p)


# ---- a broken log never hides the others ----

def test_truncated_log_kept_partial_beside_an_intact_one(tmp_path):
    """An intact log and a truncated one: status 2, yet every output is
    written from both, the truncated run marked PARTIAL wherever runs are
    listed (Runs block, JSON, CSV, the page)."""
    cut = tmp_path / "cut.log"
    whole = open(QPC, "rb").read()
    cut.write_bytes(whole[:len(whole) // 2])
    nlines = cut.read_bytes().count(b"\n") + 1          # the last one cut off mid-line
    out = {k: tmp_path / ("out." + k) for k in ("json", "csv", "html")}
    p = report("--json", str(out["json"]), "--csv", str(out["csv"]), "--html", str(out["html"]),
               Q405, str(cut))
    assert p.returncode == 2, err(p)
    mark = "PARTIAL: the log ends at line %d before its status line" % nlines
    assert "cut.log: line %d: the log ends before the status line" % nlines in err(p)
    o = text(p)
    runs = o[o.index("Runs\n"):].split("\n\n")[0].splitlines()
    assert len(runs) == 4 and "PARTIAL" not in runs[2] and runs[3].endswith(mark), runs
    assert "lost or garbled" not in o                    # the cut line is the break, not a loss
    # Rows of both runs in the tables (pc's from before the break).
    table = o[o.index("Fault and mapping latencies"):].split("\n\n")[0].splitlines()
    assert any(l.startswith("ref405ep ") for l in table) and any(l.startswith("pc ") for l in table)
    j = json.loads(out["json"].read_text())
    assert [(r["board"], r["partial"], r["break_line"]) for r in j["runs"]] == [
        ("ref405ep", False, None), ("pc", True, nlines)]
    assert j["runs"][1]["measurements"]
    rows = list(csv.DictReader(open(out["csv"])))
    assert {(r["run"], r["partial"]) for r in rows} == {("1", "0"), ("2", "1")}
    page = out["html"].read_text()
    assert page.count(mark) >= 2 and "Not every log is whole" in page   # verdict and its run
    assert '<td class="bad">' + mark + "</td>" in page and "<svg" in page


def test_reset_keeps_both_reports(tmp_path):
    """The board reset before the status line: the cut report is a partial
    run, the new one read as usual."""
    good = open(Q405).read()
    f = tmp_path / "reset.log"
    f.write_text(good[:len(good) // 2] + "\n" + good)
    at = good[:len(good) // 2].count("\n") + 3          # good's KTAP is its line 2
    p = report("--json", "-", "--no-tables", str(f))
    assert p.returncode == 2, err(p)
    assert "line %d: a new report begins before the status line" % at in err(p)
    runs = json.loads(text(p))["runs"]
    assert [(r["partial"], r["break_line"], r["status"]) for r in runs] == [
        (True, at, ""), (False, None, "pass")]
    assert runs[0]["lines_lost_or_garbled"] == 0


def test_unusable_log_beside_an_intact_one(tmp_path):
    """An intact log and a file that is not a log: status 2, stderr names
    the file, the intact log's tables are written (as the image printed
    them: one run), and a comparison naming the bad file is left out alone."""
    junk = tmp_path / "junk.txt"
    junk.write_text("hello\nworld\n")
    js = tmp_path / "out.json"
    p = report(Q405, str(junk))
    assert p.returncode == 2, err(p)
    assert "junk.txt: not an mmubench log" in err(p) and "1 input(s) not usable" in err(p)
    assert text(p) == own_tables(Q405)
    p = report("--no-tables", "--json", str(js), "--compare", "junk.txt", "normal",
               "--compare", "normal", "pinned", Q405, str(junk))
    assert p.returncode == 2, err(p)
    assert "'junk.txt' names no usable run (not usable: %s)" % junk in err(p)
    assert text(p).count("Comparison: ") == 1 and "A = normal, B = pinned" in text(p)
    j = json.loads(js.read_text())
    assert len(j["runs"]) == 1 and [(c["a"], c["b"]) for c in j["comparisons"]] == [("normal", "pinned")]
    # Without an unusable input, a side that names nothing is still a usage error.
    assert report("--compare", "junk.txt", "normal", Q405).returncode == 3


# ---- timing ----

def timed_log(kind):
    body = BODY[:4] + ["# timing: %s (how the image times)" % kind] + BODY[4:12] + [
        "# measurement demand.normal.page_fault_spread 3.50 percent",
        "# measurement demand.normal.dtlb_misses 5 count",
        "# measurement demand.normal.table_bytes 4096 bytes"] + BODY[12:]
    return small_log(body)


def test_host_time_gives_no_time_figures():
    """# timing: host (QEMU TCG without -icount): no time, rate or spread
    anywhere; counts and bytes kept; the Runs block and JSON say so."""
    d = parsed(timed_log("host"))
    run = d["runs"][0]
    assert run["timing"] == "host"
    assert {m["metric"]: m["unit"] for m in run["measurements"] if m["value"] is not None} == {
        "dtlb_misses": "count", "table_bytes": "bytes"}
    p = report("-", stdin=timed_log("host").encode())
    assert p.returncode == 0, err(p)
    o = text(p)
    assert "host time (QEMU TCG): no time figures" in o.split("\n\n")[0]
    assert "1500.25" not in o and "100.50" not in o
    # Instructions or real time: every figure kept.
    for kind in ("instructions", "real"):
        run = parsed(timed_log(kind))["runs"][0]
        got = [m for m in run["measurements"] if m["value"] is not None]
        assert run["timing"] == kind and len(got) == 6, kind


# ---- plots ----

def test_plots(tmp_path):
    if not shutil.which("gnuplot"):
        pytest.skip("gnuplot missing (tools/install-deps installs gnuplot-nox)")
    d = tmp_path / "plots"
    p = report("--no-tables", "--plot", str(d), Q405, QPC, LMBENCH)
    assert p.returncode == 0, err(p)
    names = sorted(x.name for x in d.iterdir())
    for board in ("ref405ep", "pc"):
        for kind in ("latency", "tlb", "bandwidth", "faults"):
            for ext in ("png", "svg"):
                assert "%s-%s.%s" % (board, kind, ext) in names
    assert "lmbench-latency.png" in names
    assert not [n for n in names if n.startswith(".")]        # no temporary left
    for n in names:
        if n.endswith(".png"):
            assert (d / n).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = (d / "ref405ep-latency.svg").read_text()
    for words in ("mmubench on ref405ep", "PowerPC 405EP", "QEMU TCG -icount", "working set (bytes",
                  "latency per load (ns", "LMbench"):
        assert words in svg, words
    assert re.search(r"\d{4}-\d\d-\d\d", svg)
    assert "time (microseconds" in (d / "pc-faults.svg").read_text()
    assert "MB/s" in (d / "pc-bandwidth.svg").read_text()
    assert "pages (4 KiB each" in (d / "pc-tlb.svg").read_text()


# ---- fuzzing ----

def test_fuzz_targets_60s_each(tmp_path):
    """Both libFuzzer targets (ASan, UBSan) run 60 s each, side by side,
    without a finding."""
    if not shutil.which("clang"):
        pytest.skip("clang missing (tools/install-deps installs clang, libclang-rt-14-dev)")
    subprocess.run(["make", "-s", "fuzz"], cwd=TOP, check=True, timeout=600)
    seeds = os.path.join(TOP, "selftest", "data", "fuzz")
    procs = []
    for target, extra in (("fuzz_report", ["-max_len=8192"]), ("fuzz_args", ["-max_len=512"])):
        corpus = tmp_path / target
        corpus.mkdir()
        cmd = [os.path.join(TOP, "build", "fuzz", target), "-max_total_time=60", "-timeout=10",
               "-rss_limit_mb=1024", "-artifact_prefix=%s/" % tmp_path, *extra, str(corpus),
               os.path.join(seeds, "report" if target == "fuzz_report" else "args")]
        procs.append((target, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                               stderr=subprocess.STDOUT, cwd=tmp_path)))
    for target, proc in procs:
        out, _ = proc.communicate(timeout=200)
        out = out.decode(errors="replace")
        assert proc.returncode == 0, "%s found something:\n%s" % (target, out[-3000:])
        m = re.search(r"Done (\d+) runs in (\d+) second", out)
        assert m and int(m.group(2)) >= 60 and int(m.group(1)) > 1000, out[-2000:]
    assert not list(tmp_path.glob("crash-*")) and not list(tmp_path.glob("leak-*"))


def test_parser_keeps_every_measurement_of_a_large_log(tmp_path):
    """20k and 80k measurements (the parser's index by name, issue 29): the
    model holds each exactly once, in the log's order, with its samples, and
    no line lost.  tools/bench --parse times the same up to 1M."""
    core = os.path.join(TOP, "build", "tools", "mmureport-core")
    for n in (20000, 80000):
        body = ["1..4", "# mmubench v1 on pc (i386), entered by test",
                "# run: 2 probe(s) x 2 mode(s), reps=3, quick", "# measurements begin"]
        names = []
        for probe, pattern, unit in (("lat_mem", "random_%d_ns", "ns"),
                                     ("bw_mem", "rd_%d_mbs", "MB/s")):
            for mode in ("2level", "pae"):
                for i in range(n // 4):
                    name = "%s.%s.%s" % (probe, mode, pattern % (512 * (i + 1)))
                    names.append(name)
                    if i % 10 == 0:
                        body += ["# sample %s %d %d.25 %s" % (name, s, i, unit) for s in (1, 2, 3)]
                    body.append("# measurement %s %d.25 %s" % (name, i, unit))
                body.append("ok %d %s.%s" % (len(names) * 4 // n, probe, mode))
        body.append("# measurements end")
        log, model = tmp_path / ("%d.log" % n), tmp_path / ("%d.json" % n)
        log.write_text(small_log(body, crlf=False))
        p = subprocess.run([core, "--no-tables", "--model", str(model), str(log)],
                           capture_output=True, timeout=120)
        assert p.returncode == 0, err(p)
        run = json.loads(model.read_text())["runs"][0]
        assert run["lines_lost_or_garbled"] == 0 and run["status"] == "pass"
        ms = run["measurements"]
        assert len(ms) == n
        assert ["%s.%s.%s" % (m["probe"], m["mode"], m["metric"]) for m in ms] == names
        assert sum(len(m["samples"]) == 3 for m in ms) == n // 10
        assert sum(bool(m["samples"]) for m in ms) == n // 10
