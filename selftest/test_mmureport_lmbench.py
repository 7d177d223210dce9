"""mmureport --lmbench: LMbench 2.0 summaries read as rows (the seed's
whitespace-collapsed mail text and a fixed-width summary written by hand
from getsummary's layout, selftest/data/lmbench/), cells that cannot be
placed left unknown and named, truncated and foreign summaries refused with
the line, and the seed's rows beside a ref405ep log's and the sandbox's in
one LMbench 2.0 layout, with --compare's ratios."""
import os
import re
import subprocess
import zlib

import pytest

from conftest import TOP

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")
DATA = os.path.join(TOP, "selftest", "data", "lmbench")
SEED = os.path.join(DATA, "walnut-2pintlb-largepte-nopintlb-32M.txt")
FIXED = os.path.join(DATA, "fixed-width-by-hand.txt")
Q405 = os.path.join(TOP, "selftest", "data", "report", "ref405ep-quick.log")
OLD_SANDBOX = os.path.join(TOP, "selftest", "data", "report", "sandbox-old-names.log")
HOSTS = ["2pintlb-3"] * 3 + ["largepte-"] * 3 + ["nopintlb-"] * 3


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "tools"], cwd=TOP, check=True, timeout=300)


def report(*args):
    p = subprocess.run([REPORT, "--lmbench", *args], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def tables(out):
    """{title up to ' - ' or ' in ': [(host, os, [cells])]} from the printed
    layout, each cell cut at its column of the rule line."""
    result = {}
    for block in out.split("\n\n"):
        lines = block.splitlines()
        rules = [i for i, l in enumerate(lines) if re.fullmatch(r"-+( -+){2,}", l)]
        if not lines or not rules:
            continue
        title = re.split(r" in | - ", lines[0])[0]
        spans = [m.span() for m in re.finditer(r"-+", lines[rules[0]])][2:]
        rows = []
        for l in lines[rules[0] + 1:]:
            cells = [l[a:b].strip() for a, b in spans]
            if title == "Memory latencies":
                cells[-1] = l[spans[-1][0]:].strip()
            rows.append((l[:9].strip(), l[10:23].strip(), cells))
        result[title] = rows
    return result


def num(v, width):
    """LMbench getsummary's way to print a figure in `width` characters."""
    if v >= 1e7:
        return ("%.1f" % (v / 1e6))[:width - 1] + "M"
    if v >= 1e4:
        return ("%.1f" % (v / 1e3))[:width - 1] + "K"
    if v >= 10:
        return ("%.1f" % v)[:width]
    return ("%.*f" % (width - 2, v))[:width]


def measurements(log):
    return {m[1]: float(m[2]) for m in
            re.finditer(r"^# measurement (\S+) (\S+) ", open(log).read(), re.M)}


def sandbox_report(tmp_path, probes):
    """The sandbox's quick run of `probes`, its log in tmp_path, and what
    mmureport --lmbench prints of it: (log path, output)."""
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)
    p = subprocess.run([SANDBOX, f"probes={probes}", "modes=4k", "quick"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout[-3000:]
    log = tmp_path / "sandbox.log"
    log.write_text(p.stdout)
    rc, out, err = report(str(log))
    assert rc == 0, err
    return log, out


def lines_of(path, title):
    """Line numbers (1-based) of a section's rows in a summary file."""
    text = open(path).read().splitlines()
    start = next(i for i, l in enumerate(text) if " ".join(l.split()) == title)
    rule = next(i for i in range(start + 1, len(text)) if re.fullmatch(r"-+( -+){2,} *", text[i]))
    return [rule + 2 + k for k in range(9)]


# ---- the seed ----

def test_seed_rows_read_back():
    rc, out, err = report(SEED)
    assert rc == 0, err
    t = tables(out)
    assert list(t) == ["Basic system parameters", "Processor, Processes", "Context switching",
                       "*Local* Communication latencies", "File & VM system latencies",
                       "*Local* Communication bandwidths", "Memory latencies"]
    for rows in t.values():
        assert [r[0] for r in rows] == HOSTS and {r[1] for r in rows} == {"Linux 2.4.19-"}
    proc = t["Processor, Processes"]
    assert proc[0][2] == ["199", "1.40", "2.48", "15.7", "23.7", "138.2", "5.54", "19.9", "1713",
                          "8063", "30.K"]
    assert proc[8][2][8:] == ["2094", "9120", "34.K"]
    assert t["Context switching"][4][2][2] == "251.7"
    assert t["File & VM system latencies"][6][2][4:] == ["515.0", "2.341", "24.0"]
    assert t["*Local* Communication bandwidths"][2][2][7:] == ["115.", "139.2"]
    assert t["Memory latencies"][0][2] == ["199", "15.0", "134.0", "147.7", "No L2 cache?"]
    assert t["Basic system parameters"][3][2] == ["powerpc-linux-gnu", "199"]


def test_seed_ambiguous_section_is_unknown_and_named():
    """The *Local* latencies rows have 5 figures for 8 columns and no
    spacing: every cell of them is '?', each line named, nothing placed."""
    rc, out, err = report(SEED)
    assert rc == 0
    for host, os_, cells in tables(out)["*Local* Communication latencies"]:
        assert cells == ["?"] * 8
    for no in lines_of(SEED, "*Local* Communication latencies in microseconds - smaller is better"):
        assert re.search(r"line %d: 5 figures for the 8 columns of '\*Local\* Communication "
                         r"latencies' and the text's spacing is lost: .* 8 cell\(s\) left unknown"
                         % no, err), err
    assert "?: the summary has a figure here" in out and "72 cell(s)" in out


# ---- a fixed-width summary ----

def test_fixed_width_blanks_by_position():
    rc, out, err = report(FIXED)
    assert rc == 0, err
    t = tables(out)
    assert [r[:2] for r in t["Processor, Processes"]] == [
        ("hostone", "Linux 2.4.19-"), ("hosttwo", "Linux 2.4.19-"), ("longhostn", "SunOS 5.8")]
    assert t["*Local* Communication latencies"][0][2] == [
        "3.060", "33.7", "55.5", "", "", "251.4", "", "917."]
    assert t["*Local* Communication latencies"][2][2] == ["5.100"] + [""] * 7
    assert t["Processor, Processes"][0][2][5] == "" and t["Processor, Processes"][0][2][6] == "5.54"
    assert t["Processor, Processes"][2][2][7:] == ["4.10", "", "2100", "12.K"]
    assert t["Context switching"][2][2] == ["5.100", "12.5"] + [""] * 5
    fv = t["File & VM system latencies"]
    assert fv[1][2][4:] == ["515.0", "", "24.0"]
    # "7.00000" ends between Prot Fault and Page Fault: both unknown, never guessed
    assert fv[2][2] == ["51.6", "48.6", "153.6", "87.4", "20.2K", "?", "?"]
    no = open(FIXED).read().splitlines().index(next(l for l in open(FIXED).read().splitlines()
                                                     if l.endswith("7.00000"))) + 1
    assert re.search(r"line %d: 6 figures for the 7 columns of 'File & VM system latencies' and "
                     r"a figure ends in no column: .* 2 cell\(s\) left unknown" % no, err), err
    assert t["*Local* Communication bandwidths"][1][2][2] == ""
    assert t["Memory latencies"][1][2] == ["199", "-", "-", "-", "Bad mhz?"]
    assert t["Memory latencies"][2][2] == ["400", "2.500", "", "180.5", ""]


def test_collapsed_fixed_width_never_shifts_a_figure(tmp_path):
    """The same summary with its spacing collapsed, as a mail archive gives
    it: full rows read the same, rows with blanks become unknown."""
    p = tmp_path / "collapsed.txt"
    p.write_text("\n".join(" ".join(l.split()) for l in open(FIXED).read().splitlines()) + "\n")
    rc, out, err = report(str(p))
    assert rc == 0, err
    full, collapsed = tables(report(FIXED)[1]), tables(out)
    for title in full:
        for (h, o, a), (h2, o2, b) in zip(full[title], collapsed[title]):
            assert (h, o) == (h2, o2)
            figures = [c for c in a if c]
            if title == "Memory latencies" or title == "Basic system parameters" or "?" in a:
                continue
            assert b == a if len(figures) == len(a) else b == ["?"] * len(a), (title, a, b)


# ---- bad input ----

SEED_LINES = open(SEED).read().splitlines(keepends=True)


def damaged(tmp_path, lines):
    p = tmp_path / "bad.txt"
    p.write_text("".join(lines))
    return str(p)


def line_of(text):
    return next(i for i, l in enumerate(SEED_LINES) if l.startswith(text)) + 1


@pytest.mark.parametrize("how, message", [
    ("cut", r"line 40: the summary ends in 'Context switching': truncated"),
    ("no newline", r"line %d: the text ends inside this row" % len(SEED_LINES)),
    ("version 3", r"line 1: an LMbench summary of another version"),
    ("a word", r"line %d: not a figure where LMbench prints figures: 'abc'"
     % line_of("2pintlb-3 Linux 2.4.19- 199 1.40")),
    ("a row lost", r"line %d: a new section begins: rows missing in 'Context switching'"
     % (line_of("*Local* Communication latencies") - 1)),
    ("rows swapped", r"line %d: '.*' where 'Processor, Processes' prints row 4 of 9 \(host "
     r"'largepte- Linux 2.4.19-'\): a row lost, or foreign text"
     % (line_of("Processor, Processes") + 8)),
    ("foreign text", r"line %d: other text where LMbench 2.0 prints the section 'File & VM system "
     r"latencies'" % line_of("File & VM system latencies")),
])
def test_truncated_or_foreign_summary_fails_with_the_line(tmp_path, how, message):
    lines = list(SEED_LINES)
    ctx = line_of("Context switching")
    if how == "cut":
        lines = lines[:40]
    elif how == "no newline":
        lines[-1] = lines[-1].rstrip("\n")
    elif how == "version 3":
        lines[0] = lines[0].replace("2 . 0", "3 . 0")
    elif how == "a word":
        i = line_of("2pintlb-3 Linux 2.4.19- 199 1.40") - 1
        lines[i] = lines[i].replace(" 1713 ", " abc ")
    elif how == "a row lost":
        del lines[ctx + 12]             # its last row
    elif how == "rows swapped":
        i = line_of("Processor, Processes") + 8
        lines[i - 1], lines[i + 2] = lines[i + 2], lines[i - 1]
    elif how == "foreign text":
        i = line_of("File & VM system latencies") - 1
        lines[i:i] = ["some words a mailer added\n"]
    rc, out, err = report(damaged(tmp_path, lines))
    assert rc == 2 and out == "", err
    assert re.search(message, err), err


# ---- beside mmubench ----

def test_seed_beside_ref405ep():
    rc, out, err = report(SEED, Q405)
    assert rc == 0, err
    t, m = tables(out), measurements(Q405)
    for title, rows in t.items():
        ours = [r for r in rows if r[0] == "ref405ep"]
        assert [r[:2] for r in rows[:9]] == [(h, "Linux 2.4.19-") for h in HOSTS]
        assert [r[1] for r in ours] == ["real", "normal", "pinned", "largepte"], title
    for host, mode, cells in t["*Local* Communication bandwidths"][9:]:
        # memcpy is bcopy; this log's cp_hand, rd, wr (8-word ascending
        # loops, recorded before fcp, frd, fwr) are not LMbench's: blank
        assert "bw_mem.%s.wr_mbs" % mode in m and "bw_mem.%s.fwr_mbs" % mode not in m
        assert cells == ["", "", "", "", "", num(m["bw_mem.%s.cp_libc_mbs" % mode], 6),
                         "", "", ""], cells
    for host, mode, cells in t["Processor, Processes"][9:]:
        # null call, fork proc and exec proc by the board's processes; the
        # rest (I/O, files, sockets, signals, sh) it does not have
        assert cells[0] == "%.0f" % m["cpu.%s.mhz" % mode], cells
        assert cells[1] and cells[8] and cells[9], cells
        assert cells[2:8] == [""] * 6 and cells[10] == "", cells
    # a board's demand faults, aspace and remap are not LMbench's: blank
    for title in ("Context switching", "*Local* Communication latencies",
                  "File & VM system latencies"):
        assert all(c == "" for r in t[title][9:] for c in r[2]), title
    assert all(c == "" for r in t["Memory latencies"][9:] for c in r[2][1:])
    notes = out[out.index("\nRows:"):].replace("\n  ", " ")
    assert "are not Mmap Latency" in notes and "is not ctxsw" in notes and "not Page Fault" in notes


def ratios(out):
    rows = {}
    for l in out[out.index("\nRatios"):].splitlines()[3:]:
        name, a, b = l[33:49].strip(), l[50:66].strip(), l[67:83].strip()
        rows[(l[:32].strip(), name)] = (a, b)
    return rows


def test_compare_ratios_of_each_side():
    rc, out, err = report(SEED, Q405, "--compare", "normal/pinned", "nopintlb/2pintlb")
    assert rc == 0, err
    r, m = ratios(out), measurements(Q405)
    assert r[("Processor, Processes", "fork proc")] == (
        "%.3f" % (m["fork.normal.fork_us"] / m["fork.pinned.fork_us"]), "%.3f" % (2075 / 1706))
    assert r[("File & VM system latencies", "Page Fault")] == ("", "%.3f" % (24 / 20))
    assert r[("File & VM system latencies", "Mmap Latency")] == ("", "%.3f" % (519 / 412))
    assert r[("Context switching", "2p/64K ctxsw")] == ("", "%.3f" % (277.1 / 252.8))
    assert r[("*Local* Communication bandwidths", "Bcopy (libc)")] == (
        "%.3f" % (m["bw_mem.normal.cp_libc_mbs"] / m["bw_mem.pinned.cp_libc_mbs"]),
        "%.3f" % (86.6 / 87.2))
    # the log's cp_hand is not fcp: the seed's ratio alone
    assert r[("*Local* Communication bandwidths", "Bcopy (hand)")] == ("", "%.3f" % (83.7 / 83.8))
    assert ("*Local* Communication latencies", "Pipe") not in r    # unknown cells: no ratio


def test_compare_selectors_that_select_nothing_or_both_sides():
    rc, out, err = report(SEED, Q405, "--compare", "largepte/normal", "nopintlb/2pintlb")
    assert rc == 3 and out == "" and "'largepte' selects both LMbench and mmubench rows" in err
    rc, out, err = report(SEED, Q405, "--compare", "ref405ep:largepte/normal",
                          "lmbench:largepte/2pintlb")
    assert rc == 0, err
    rc, out, err = report(SEED, Q405, "--compare", "nosuch/normal", "nopintlb/2pintlb")
    assert rc == 3 and "'nosuch' selects no row" in err
    rc, out, err = report(SEED, "--compare", "normal", "x/y")
    assert rc == 3 and "'normal' is not NUM/DEN" in err


def test_old_sandbox_log_keeps_filling_its_columns():
    """A sandbox log from before the ctx, pipe, signal and pagefault probes
    ran under Linux (selftest/data/report/sandbox-old-names.log): its
    lat_sig catch/prot, lat_pagefault (demand) and the lat_ctx ring
    (aspace's process switch, switch_kind 3) still fill sig hndl, Prot
    Fault, Page Fault and ctxsw, in us; a figure it did not give stays
    blank.  The new names: test_proc_sandbox.py."""
    log = OLD_SANDBOX
    rc, out, err = report(log)
    assert rc == 0, err
    t, m = tables(out), measurements(log)
    assert m["aspace.4k.switch_kind"] == 3

    def want(metric, width):
        return num(m[metric] / 1000, width) if metric in m else ""

    (host, mode, proc), = t["Processor, Processes"]
    assert (host, mode) == ("sandbox", "4k")
    assert proc[7] == want("demand.4k.lat_sig_catch_ns", 4)
    assert proc[1:7] + proc[8:] == [""] * 9
    (_, _, fv), = t["File & VM system latencies"]
    assert fv == [""] * 5 + [want("demand.4k.lat_sig_prot_ns", 5),
                             want("demand.4k.lat_pagefault_ns", 5)]
    (_, _, ctx), = t["Context switching"]
    assert ctx == [want("aspace.4k.%s_ns" % k, w) for k, w in
                   (("2p_0k", 5), ("2p_16k", 6), ("2p_64k", 6), ("8p_16k", 6), ("8p_64k", 6),
                    ("16p_16k", 7), ("16p_64k", 7))]
    assert t["*Local* Communication latencies"][0][2][0] == ctx[0]
    assert proc[7] and fv[5] and fv[6] and ctx[0] and ctx[2] and ctx[6], out


def test_lmbench_options():
    assert "--lmbench" in subprocess.run([REPORT, "--help"], capture_output=True,
                                         text=True).stdout
    rc, out, err = report("--csv", "x.csv", SEED)
    assert rc == 3 and "--lmbench prints its table alone" in err


def test_wrapped_rule_and_two_summaries_in_one_text(tmp_path):
    """A column rule a mailer wrapped is joined (its tail has no positions,
    so a row with blanks is unknown there); a second summary in the same
    text gives rows of its own."""
    lines = open(FIXED).read().splitlines()
    rule = "--------- ------------- ---- ---- ---- ---- ---- ----- ---- ---- ---- ---- ----"
    i = lines.index(rule)
    lines[i:i + 1] = [rule[:-15], rule[-14:]]     # the last three groups wrapped
    p = tmp_path / "wrapped.txt"
    p.write_text("\n".join(lines) + "\n\nand again:\n" + open(SEED).read())
    rc, out, err = report(str(p))
    assert rc == 0, err
    proc = tables(out)["Processor, Processes"]
    assert [r[0] for r in proc] == ["hostone", "hosttwo", "longhostn"] + HOSTS
    assert proc[1][2] == ["199", "1.46", "2.85", "17.7", "26.2", "156.8", "6.03", "19.4", "2060",
                          "9060", "34.K"]
    assert proc[0][2] == ["?"] * 11 and proc[3][2][8] == "1713"
    assert re.search(r"line %d: 10 figures for the 11 columns of 'Processor, Processes'" % (i + 3),
                     err), err


def test_lost_lines_noted_and_strict(tmp_path):
    """A garbled line of a log: named, its figure left out of the row
    (blank, not a stale number); --strict: exit 1 and no table."""
    text = open(Q405).read()
    good = re.search(r"^# measurement bw_mem\.normal\.cp_libc_mbs (\S+) .*$", text, re.M)
    bad = good[0].replace(good[1], good[1].replace("1", "7", 1))
    log = tmp_path / "garbled.log"
    log.write_text(text.replace(good[0], bad))
    rc, out, err = report(SEED, str(log))
    assert rc == 0 and "CRC mismatch" in err and "line(s) lost or garbled" in err, err
    normal = [r for r in tables(out)["*Local* Communication bandwidths"] if r[1] == "normal"]
    pinned = [r for r in tables(out)["*Local* Communication bandwidths"] if r[1] == "pinned"]
    assert normal[0][2][5] == "" and pinned[0][2][5] != ""
    rc, out, err = report("--strict", SEED, str(log))
    assert rc == 1 and out == ""


def test_the_table_reads_back_as_it_was(tmp_path):
    """--lmbench's own output is an LMbench 2.0 summary in the fixed-width
    layout: read again, every row and cell (the unknown '?' too) is the same."""
    rc, out, err = report(SEED, Q405)
    assert rc == 0, err
    p = tmp_path / "table.txt"
    p.write_text(out)
    rc, again, err = report(str(p))
    assert rc == 0, err
    assert tables(again) == tables(out)
    assert again[:again.index("\nRows:")] == out[:out.index("\nRows:")]


# ---- the process probes: null call, fork proc, exec proc (not Mmap Latency) ----

def sealed_log(body):
    """A log as the image seals it (doc/result-format.md): every line's
    sequence number and CRC, KTAP result lines sealed on the next line."""
    out, seq = ["KTAP version 1"], 0
    for t in body + ["# tables begin"]:
        seq += 1
        s = "%s  @%d" % (t, seq)
        crc = "%08x" % zlib.crc32(s.encode())
        out += [t, "# @%d:%s" % (seq, crc)] if re.match(r"(ok |1\.\.)", t) else [s + ":" + crc]
    tab, crc = ["T", "-", "row"], 0
    for t in tab:
        crc = zlib.crc32((t + "\n").encode(), crc)
    out += tab
    npass = sum(1 for t in body if t.startswith("ok "))
    for t in ("# tables end lines=%d crc=%08x" % (len(tab), crc),
              "# Totals: pass:%d fail:0 skip:0" % npass, "# mmubench status: pass"):
        seq += 1
        s = "%s  @%d" % (t, seq)
        out.append("%s:%08x" % (s, zlib.crc32(s.encode())))
    return "\n".join(out) + "\n"


# Figures a ref405ep run could give (synthetic: no recorded log has them yet).
PROC_FIGURES = {"normal": (1.7, 2100.5, 9150.25, 530.75), "pinned": (1.36, 1700.0, 8000.0, 410.5)}


def proc_log(tmp_path):
    body = ["1..8", "# mmubench v1 on ref405ep (ppc405), entered by test",
            "# cpu: PowerPC 405EP", "# platform: QEMU TCG -icount shift=0",
            "# run: 4 probe(s) x 2 mode(s), reps=1, quick", "# measurements begin"]
    n = 0
    for probe, metric, unit, k in (("trap", "null_call_ns", "ns", 0), ("fork", "fork_us", "us", 1),
                                   ("exec", "exec_us", "us", 2), ("mmap", "mmap_us", "us", 3)):
        for mode, v in PROC_FIGURES.items():
            value = v[k] * 1000 if unit == "ns" else v[k]
            n += 1
            body += ["# measurement %s.%s.%s %.2f %s" % (probe, mode, metric, value, unit),
                     "ok %d %s.%s" % (n, probe, mode)]
    body.append("# measurements end")
    path = tmp_path / "ref405ep-proc.log"
    path.write_text(sealed_log(body))
    return str(path)


def test_process_figures_fill_null_call_fork_exec_mmap(tmp_path):
    log = proc_log(tmp_path)
    rc, out, err = report(SEED, log)
    assert rc == 0, err
    t = tables(out)
    ours = {r[1]: r[2] for r in t["Processor, Processes"] if r[0] == "ref405ep"}
    fv = {r[1]: r[2] for r in t["File & VM system latencies"] if r[0] == "ref405ep"}
    assert sorted(ours) == ["normal", "pinned"]
    for mode, (null, fork, exec_, mmap) in PROC_FIGURES.items():
        assert ours[mode] == ["", num(null, 4), "", "", "", "", "", "", num(fork, 4),
                              num(exec_, 4), ""], (mode, ours[mode])
        # mmap writes every page, lat_mmap a byte per 16 KiB of the first tenth
        assert fv[mode] == [""] * 7, (mode, fv[mode])
    notes = out[out.index("\nRows:"):].replace("\n  ", " ")
    assert "null call (trap:" in notes and "a board's sh proc: no shell" in notes
    # --compare: normal/pinned beside nopintlb/2pintlb, column by column
    rc, out, err = report(SEED, log, "--compare", "normal/pinned", "nopintlb/2pintlb")
    assert rc == 0, err
    r = ratios(out)
    assert r[("Processor, Processes", "null call")] == ("%.3f" % (1.7 / 1.36), "%.3f" % (1.46 / 1.41))
    assert r[("Processor, Processes", "fork proc")] == ("%.3f" % (2100.5 / 1700), "%.3f" % (2075 / 1706))
    assert r[("Processor, Processes", "exec proc")] == ("%.3f" % (9150.25 / 8000),
                                                        "%.3f" % (9109 / 8070))
    assert r[("File & VM system latencies", "Mmap Latency")] == ("", "%.3f" % (519 / 412))


def test_sandbox_process_figures_by_lmbench_methods(tmp_path):
    """getppid, fork+_exit+wait, fork+execve+wait (of hello, and of sh -c
    hello) fill null call, fork proc, exec proc and sh proc, in us; the
    file's mmap (every page written) is not Mmap Latency."""
    log, out = sandbox_report(tmp_path, "trap,fork,exec,mmap")
    t, m = tables(out), measurements(str(log))
    (_, _, proc), = t["Processor, Processes"]
    assert proc == ["", num(m["trap.4k.null_call_ns"] / 1000, 4)] + [""] * 6 + [
        num(m["fork.4k.fork_us"], 4), num(m["exec.4k.exec_us"], 4), num(m["exec.4k.sh_us"], 4)]
    (_, _, fv), = t["File & VM system latencies"]
    assert fv == [""] * 7 and m["mmap.4k.mmap_us"] > 0


# ---- the seed's comparison with the kernel-page misses (make seed-compare) ----

PPCE500 = os.path.join(TOP, "selftest", "data", "report", "ppce500-run.log")
# Which counts go with which column: the table in report_lmbench2_cmp.c.
KMISSES = {("Processor, Processes", "null call"): ("trap", "null_kernel"),
           ("Processor, Processes", "fork proc"): ("fork", "fork_kernel"),
           ("Processor, Processes", "exec proc"): ("exec", "exec_kernel")}


def raw_measurements(log):
    """{name: the figure's text as the log prints it}."""
    return {m[1]: m[2] for m in
            re.finditer(r"^# measurement (\S+) (\S+) ", open(log).read(), re.M)}


def compare_blocks(out):
    """{(NUM/DEN, NUM/DEN): {(section, column): (ratio a, ratio b, misses text)}}
    from --compare's tables, cut at the columns its head line gives."""
    blocks = {}
    for block in out.split("\nRatios, column by column")[1:]:
        lines = block.splitlines()
        a, b = re.search(r": (\S+) \(\d+ / \d+ rows\) beside (\S+) \(", lines[0]).groups()
        wa, wb = max(16, len(a)), max(16, len(b))
        assert lines[1][50:50 + wa].strip() == a and lines[1][51 + wa:51 + wa + wb].strip() == b
        rows = {}
        for l in lines[2:]:
            if not l.startswith(" ") and len(l) > 50 and l[32] == " ":
                rows[(l[:32].strip(), l[33:49].strip())] = (
                    l[50:50 + wa].strip(), l[51 + wa:51 + wa + wb].strip(),
                    l[51 + wa + wb:].strip())
        blocks[(a, b)] = (lines[1][51 + wa + wb:].strip(), rows)
    return blocks


def test_seed_compare_prints_each_boards_kernel_misses():
    """make seed-compare on recorded ref405ep and ppce500 logs: per board
    normal/pinned beside nopintlb/2pintlb and largepte/pinned beside
    largepte/2pintlb, each ratio the logs' figures, and beside null call,
    fork proc and exec proc both modes' kernel-page D/I misses exactly as
    the logs print them."""
    p = subprocess.run(["make", "-s", "--no-print-directory", "seed-compare",
                        "SEED_LOGS=%s %s" % (Q405, PPCE500)], cwd=TOP, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    blocks = compare_blocks(p.stdout)
    seen = 0
    for board, log in (("ref405ep", Q405), ("ppce500", PPCE500)):
        m, raw = measurements(log), raw_measurements(log)
        for num, den, lmb in (("normal", "pinned", "nopintlb/2pintlb"),
                              ("largepte", "pinned", "lmbench:largepte/2pintlb")):
            a = "%s:%s/%s:%s" % (board, num, board, den)
            head, rows = blocks[(a, lmb)]
            assert head == "kernel D/I misses %s:%s vs %s:%s" % (board, num, board, den)
            assert rows[("Processor, Processes", "fork proc")][0] == "%.3f" % (
                m["fork.%s.fork_us" % num] / m["fork.%s.fork_us" % den])
            for col, (probe, prefix) in KMISSES.items():
                want = "%s/%s vs %s/%s" % tuple(
                    raw["%s.%s.%s_%s_misses" % (probe, mode, prefix, kind)]
                    for mode in (num, den) for kind in ("dtlb", "itlb"))
                assert rows[col][2] == want, (board, num, col, rows[col])
                seen += 1
            # columns without a kernel-miss count: the ratio alone
            assert rows[("*Local* Communication bandwidths", "Mem read")][2] == ""
    assert seen == 12
    # the recorded figures themselves, so that a misread log cannot pass
    assert compare_blocks(p.stdout)[("ref405ep:normal/ref405ep:pinned", "nopintlb/2pintlb")][1][
        ("Processor, Processes", "exec proc")][2] == "17/11 vs 0/0"
    assert compare_blocks(p.stdout)[("ppce500:normal/ppce500:pinned", "nopintlb/2pintlb")][1][
        ("Processor, Processes", "fork proc")][2] == "0/1 vs 0/0"
    assert "fork proc: fork.<mode>.fork_kernel_dtlb_misses, fork_kernel_itlb_misses: one fork" \
        in p.stdout


def kernel_log(tmp_path, name, fork_dtlb, with_itlb=True):
    """A sealed ref405ep log with fork_us and fork's kernel-page counts."""
    body = ["1..2", "# mmubench v1 on ref405ep (ppc405), entered by test",
            "# platform: QEMU TCG -icount shift=0", "# measurements begin"]
    for n, (mode, us, d) in enumerate((("normal", 2100.5, fork_dtlb), ("pinned", 1700.0, 0)), 1):
        body.append("# measurement fork.%s.fork_us %.2f us" % (mode, us))
        body.append("# measurement fork.%s.fork_kernel_dtlb_misses %d count" % (mode, d))
        if with_itlb:
            body.append("# measurement fork.%s.fork_kernel_itlb_misses 0 count" % mode)
        body.append("ok %d fork.%s" % (n, mode))
    body.append("# measurements end")
    path = tmp_path / name
    path.write_text(sealed_log(body))
    return str(path)


def test_compare_kernel_misses_of_several_rows_and_missing_ones(tmp_path):
    """Rows of a set that differ give the range lo..hi; a count one row of
    the set lacks is '-'; two mmubench ratios give two misses columns; a
    board that counts none (proc_log's) prints no misses column."""
    one, two = kernel_log(tmp_path, "a.log", 1), kernel_log(tmp_path, "b.log", 3)
    rc, out, err = report(SEED, one, two, "--compare", "normal/pinned", "nopintlb/2pintlb")
    assert rc == 0, err
    (head, rows), = compare_blocks(out).values()
    assert head == "kernel D/I misses normal vs pinned"
    assert rows[("Processor, Processes", "fork proc")] == ("%.3f" % (2100.5 / 1700), "%.3f" % (
        2075 / 1706), "1..3/0 vs 0/0")
    lacking = kernel_log(tmp_path, "c.log", 2, with_itlb=False)
    rc, out, err = report(SEED, one, lacking, "--compare", "normal/pinned",
                          "ref405ep-2:normal/ref405ep-2:pinned")
    assert rc == 0, err
    (head, rows), = compare_blocks(out).values()
    assert re.split(r"  +", rows[("Processor, Processes", "fork proc")][2]) == [
        "1..2/- vs 0/-", "2/- vs 0/-"]
    assert re.split(r"  +", head) == ["kernel D/I misses normal vs pinned",
                                      "kernel D/I misses ref405ep-2:normal vs ref405ep-2:pinned"]
    rc, out, err = report(SEED, proc_log(tmp_path), "--compare", "normal/pinned", "nopintlb/2pintlb")
    assert rc == 0, err
    assert "kernel D/I misses" not in out
    (head, rows), = compare_blocks(out).values()
    assert head == "" and rows[("Processor, Processes", "fork proc")][2] == ""


def test_sandbox_bandwidths_are_lmbench_loops(tmp_path):
    """Bcopy (libc), Bcopy (hand), Mem read and Mem write are memcpy and
    LMbench 2.0's fcp, frd, fwr loops (fwr_mbs, not the ascending wr_mbs),
    beyond the caches, in MB/s; both write figures are printed, not
    judged against each other."""
    # not quick: quick's 8 MiB may not go beyond the caches (no headline)
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=300)
    p = subprocess.run([SANDBOX, "probes=bw_mem", "modes=4k"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout[-3000:]
    log = tmp_path / "sandbox.log"
    log.write_text(p.stdout)
    rc, out, err = report(str(log))
    assert rc == 0, err
    t, m = tables(out), measurements(str(log))
    (_, _, bw), = t["*Local* Communication bandwidths"]
    assert bw == [""] * 5 + [num(m["bw_mem.4k.%s_mbs" % k], w) for k, w in
                             (("cp_libc", 6), ("fcp", 6), ("frd", 4), ("fwr", 5))]
    print("sandbox beyond the caches: fwr %.0f MB/s (LMbench's descending blocks), "
          "wr %.0f MB/s (ascending)" % (m["bw_mem.4k.fwr_mbs"], m["bw_mem.4k.wr_mbs"]))
