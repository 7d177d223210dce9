"""The plots (tools/report/plots.py) from models a hostile log could give:
a label never makes a path (files stay inside the output directory, named
run<N> where the label is not plainly safe), text never runs (no shell, no
script, no mathtext), every SVG is XML, a point a log axis cannot hold is
left out, and a write that fails leaves nothing behind."""
import copy
import errno
import os
import re
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import TOP
from test_report_html import apart, ticks_apart

sys.path.insert(0, os.path.join(TOP, "tools"))
from report import plots  # noqa: E402

KINDS = ("latency", "tlb", "bandwidth", "faults")


def meas(probe, mode, metric, value, samples=(), unit="ns"):
    return {"probe": probe, "mode": mode, "metric": metric, "value": value, "unit": unit,
            "line": 1, "samples": list(samples)}


def run(n, label, modes=("flat", "pae"), **kw):
    """A run with a figure for each of the four plots, samples on some."""
    ms = []
    for k, mode in enumerate(modes):
        for size in (4096, 16384, 65536, 262144, 1 << 20):
            ns = (2.0 if size <= 16384 else 40.0) * (1 + k / 10)
            ms.append(meas("lat_mem", mode, "random_%d_ns" % size, ns, [ns * 0.9, ns, ns * 1.1]))
        ms.append(meas("lat_mem", mode, "l1_bytes", 16384, unit="bytes"))
        for pages in (8, 16, 32, 64, 128):
            ms.append(meas("tlb", mode, "%dp_ns" % pages, 1.0 if pages <= 32 else 3.0))
        ms.append(meas("tlb", mode, "l1_entries", 32, unit="count"))
        ms.append(meas("tlb", mode, "reach_bytes", 131072, unit="bytes"))
        ms.append(meas("bw_mem", mode, "rd_65536_mbs", 3000.0 + k, [2900, 3000, 3100], "MB/s"))
        ms.append(meas("demand", mode, "page_fault_ns", 1500.0, [1400, 1500, 1600]))
    r = {"run": n, "label": label, "file": "x.log", "board": "pc", "arch": "i386", "version": "v1",
         "cpu": "test cpu", "platform": "QEMU TCG (emulated)", "args": "", "date": "2026-12-03",
         "status": "pass", "timing": "", "source": "mmubench", "reps": 3,
         "lines_lost_or_garbled": 0, "partial": False, "break_line": None, "modes": list(modes),
         "results": [], "measurements": ms}
    r.update(kw)
    return r


def small(n, label, **kw):
    """A run with the latency plot alone: quick to draw."""
    r = run(n, label, modes=("flat",), **kw)
    r["measurements"] = [m for m in r["measurements"] if m["probe"] == "lat_mem"]
    return r


def model(*runs):
    return {"mmureport": "test", "status": 0, "runs": list(runs)}


def tree(top):
    """Every file below top, relative to it."""
    return sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs)


def svg_text(path):
    """The words of an SVG, parsed as XML (it must parse)."""
    return " ".join(ET.parse(path).getroot().itertext())


def test_every_plot_of_a_run(tmp_path, capsys):
    status, files = plots.write_plots(model(run(1, "pc")), str(tmp_path / "out"))
    assert status == 0
    names = sorted(os.path.basename(f) for f in files)
    assert names == sorted("pc-%s.%s" % (k, e) for k in KINDS for e in ("png", "svg"))
    assert tree(tmp_path) == ["out/" + n for n in names]       # no temporary left
    err = capsys.readouterr().err
    for k in KINDS:
        assert "mmureport: plot %s.png, .svg\n" % (tmp_path / "out" / ("pc-" + k)) in err
    for f in files:
        assert os.stat(f).st_mode & 0o044, f                   # readable by others, not 0600
    # Quiet: the same files, nothing said.
    assert plots.write_plots(model(small(1, "pc")), str(tmp_path / "q"), quiet=True)[0] == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("label", ["../../x", "a/b", "/tmp/abs", "..", ".hidden", "-rf", "a b",
                                   "x" * 60, "caf\u00e9", ""])
def test_a_label_never_makes_a_path(tmp_path, label):
    out = tmp_path / "deep" / "out"
    status, files = plots.write_plots(model(small(7, label)), str(out))
    assert status == 0
    # Named run<N>, inside the directory, nothing anywhere else.
    assert tree(tmp_path) == ["deep/out/run7-latency.png", "deep/out/run7-latency.svg"]
    assert all(os.path.dirname(os.path.realpath(f)) == os.path.realpath(out) for f in files)


def test_a_link_in_the_directory_is_not_followed(tmp_path, capsys):
    # A picture's name already a link to a file elsewhere: refused, that file kept.
    out, victim = tmp_path / "out", tmp_path / "victim"
    out.mkdir()
    victim.write_text("keep")
    (out / "pc-latency.svg").symlink_to(victim)
    assert plots.write_plots(model(small(1, "pc")), str(out)) == (-1, [])
    assert capsys.readouterr().err == "mmureport: %s: not inside the plot directory\n" % (
        out / "pc-latency.svg")
    assert victim.read_text() == "keep" and os.listdir(out) == ["pc-latency.svg"]


def test_names_unique_and_safe_labels_kept(tmp_path):
    runs = [run(1, "pc"), run(2, "pc"), run(3, "run2"), run(4, "ref405ep-1"), run(5, "a/b")]
    assert plots.safe_names(runs) == ["pc", "pc-run2", "run2", "ref405ep-1", "run5"]
    # A clash left: the -run<N> added again until it is unique.
    assert plots.safe_names([run(1, "x-run2"), run(2, "x"), run(3, "x")])[2] == "x-run3"
    status, files = plots.write_plots(model(*[small(r["run"], r["label"]) for r in runs]),
                                      str(tmp_path), quiet=True)
    assert status == 0 and sorted(tree(tmp_path)) == sorted(
        "%s-latency.%s" % (n, e) for n in ("pc", "pc-run2", "run2", "ref405ep-1", "run5")
        for e in ("png", "svg"))


SHELL = ["`touch CANARY1`", "$(touch CANARY2)", "x';system(\"touch CANARY3\")#", "$(id)",
         "a\"; touch CANARY4; \"", "| touch CANARY5", "$\\frac{}$"]


def spread_over(strings, n):
    """Runs whose text fields (board, cpu, platform, date, two modes) hold
    the strings, each in one field at least."""
    runs = []
    for k in range(n):
        f = [strings[(6 * k + j) % len(strings)] for j in range(6)]
        runs.append(run(k + 1, f[0], modes=(f[4], f[5]), board=f[0], cpu=f[1], platform=f[2],
                        date=f[3], file=f[1]))
    return runs


def test_shell_text_runs_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lmb = run(3, "lmbench", modes=("`touch CANARY6`",), source="lmbench",
              file="/x/$(touch CANARY7)")
    for m in lmb["measurements"]:
        m["metric"] = m["metric"].replace("random", "lmbench")
    status, files = plots.write_plots(model(*spread_over(SHELL, 2), lmb), str(tmp_path / "out"))
    assert status == 0
    assert not [f for f in tree(tmp_path) if "CANARY" in f]
    assert not [f for d in (TOP, os.path.join(TOP, "selftest")) for f in os.listdir(d)
                if "CANARY" in f]
    # The text shown as written: a dollar is a dollar, not mathtext.
    # (A CPU's and platform's words end at a "(", where their register details begin.)
    words = svg_text(tmp_path / "out" / "run1-latency.svg")
    assert "mmubench on `touch CANARY1` ($) - x';system - $(id)" in words
    words = svg_text(tmp_path / "out" / "run2-latency.svg")
    assert "mmubench on $\\frac{}$ (`touch CANARY1`) - $ - x';system(\"touch CANARY3\")#" in words
    assert "TLB reach 128 KiB: $(id), a\"; touch CANARY4; \"" in words
    assert "LMbench $(touch CANARY7) `touch CANARY6`" in words


MARKUP = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "<svg onload=alert(1)>",
          "<!--", "]]>", "&amp; &", "a\x01b\x1b[31m", "\ufffd\ufffe", "lone \ud800 surrogate",
          "<?xml version='1.0'?>", "<![CDATA[x]]>"]


def test_every_svg_parses_and_shows_text_as_written(tmp_path):
    status, files = plots.write_plots(model(*spread_over(MARKUP, 2)), str(tmp_path))
    assert status == 0
    svgs = [f for f in files if f.endswith(".svg")]
    assert len(svgs) == 8
    for f in svgs:
        root = ET.parse(f).getroot()
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert not [e for e in root.iter() if e.tag.endswith("script")
                    or e.tag.endswith("foreignObject")]
        assert not [a for e in root.iter() for a in e.attrib if a.lower().startswith("on")]
    words = " ".join(svg_text(f) for f in svgs)
    # Every string as written (a CPU's and platform's up to a "(": their
    # register details are left out of a title).
    for s in MARKUP:
        if s not in ("lone \ud800 surrogate", "a\x01b\x1b[31m", "\ufffd\ufffe"):
            assert s.split("(")[0] in words, s
    # Control characters visible as \xNN (and U+FFFE, which XML cannot hold,
    # as \ufffe); a lone surrogate replaced.
    for s in ("a\\x01b\\x1b[31m", "\ufffd\\ufffe", "lone ? surrogate"):
        assert s in words, s


def test_a_point_no_log_axis_holds_is_left_out(tmp_path):
    r = run(1, "zero")
    r["measurements"] += [meas("lat_mem", "flat", "random_0_ns", 5.0),
                          meas("tlb", "flat", "0p_ns", 5.0),
                          meas("lat_mem", "flat", "random_%s_ns" % ("9" * 400), 5.0),
                          meas("lat_mem", "pae", "random_8192_ns", 0.0),        # log y: no place
                          meas("lat_mem", "pae", "random_32768_ns", -3.0),
                          meas("bw_mem", "flat", "wr_0_mbs", 0.0),
                          meas("lat_mem", "flat", "random_128_ns", None)]
    status, files = plots.write_plots(model(r), str(tmp_path))
    assert status == 0 and len(files) == 8
    assert sum(os.path.getsize(f) for f in files) < 2_000_000
    lat = {p.name: p for p in plots.figures(model(r))}["zero-latency"].fig
    ax = lat.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    curves = [line for line in ax.get_lines() if line.get_marker() == "o"]     # not the marks
    xs = [x for line in curves for x in line.get_xdata()]
    ys = [y for line in curves for y in line.get_ydata()]
    assert min(xs) > 0 and min(ys) > 0
    assert ax.get_xlim()[0] == 4096         # the least x kept: 0 and 128 (null) left out


def test_only_points_no_axis_holds_nothing_to_plot(tmp_path, capsys):
    r = run(1, "zero", modes=("flat",))
    r["measurements"] = [meas("lat_mem", "flat", "random_0_ns", 5.0), meas("tlb", "flat", "0p_ns", 5)]
    assert plots.write_plots(model(r), str(tmp_path / "out")) == (-2, [])
    assert "nothing to plot" in capsys.readouterr().err
    assert tree(tmp_path) == []
    assert plots.write_plots(model(), str(tmp_path / "q"), quiet=True) == (-2, [])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("sizes", [2, 6, 40])
def test_crowded_labels_never_meet(sizes):
    # Ten modes, each its own TLB reach a few percent from the next, and the
    # same cache guesses: every label apart from the others, inside the plot.
    modes = ["mode%d" % k for k in range(10)]
    r = run(1, "pc", modes=modes)
    r["measurements"] = [m for m in r["measurements"]
                         if m["metric"] != "reach_bytes" and m["probe"] != "bw_mem"]
    for k, mode in enumerate(modes):
        r["measurements"] += [meas("tlb", mode, "reach_bytes", 131072 + 4096 * k, unit="bytes"),
                              meas("lat_mem", mode, "l2_bytes", 262144, unit="bytes")]
        # bw_mem at many sizes: clusters slanted, upright, or a wider picture.
        r["measurements"] += [meas("bw_mem", mode, "%s_%d_mbs" % (op, 4096 << i), 100.0 + i)
                              for op in ("rd", "wr", "cp_libc", "cp_hand") for i in range(sizes)
                              if k < 3]
    figs = {p.kind: p.fig for p in plots.figures(model(r))}
    lat = figs["latency"]
    lat.canvas.draw()
    ax = lat.axes[0]
    box, renderer = ax.get_window_extent(), lat.canvas.get_renderer()
    labels = [t.get_window_extent(renderer) for t in ax.texts]
    assert len(labels) == 12        # ten reaches, L1 (16 KiB) and L2 (256 KiB) guesses
    for i, a in enumerate(labels):
        assert box.x0 <= a.x0 and a.x1 <= box.x1
        assert all(apart(a, b) for b in labels[i + 1:])
    bw = figs["bandwidth"]
    bw.canvas.draw()
    assert len(bw.axes[0].get_xticklabels()) == 4 * sizes
    ticks_apart(bw.axes[0])


def test_modes_as_a_count(tmp_path):
    # Older --json output: "modes" a count; the names come from the measurements.
    r = run(1, "pc")
    r["modes"] = 2
    figs = {p.name: p.fig for p in plots.figures(model(r))}
    assert len(figs) == 4
    legend = [t.get_text() for t in figs["pc-tlb"].axes[0].get_legend().get_texts()]
    assert legend == ["flat", "pae"]


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch, capsys):
    # Disk full on the fifth file: a message naming it, no file of this call left.
    real, calls = plots.save, []

    def save(fig, f, fmt, salt):
        calls.append(fmt)
        if len(calls) == 5:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fig, f, fmt, salt)

    monkeypatch.setattr(plots, "save", save)
    status, files = plots.write_plots(model(run(1, "pc")), str(tmp_path))
    assert (status, files, tree(tmp_path)) == (-1, [], [])
    assert capsys.readouterr().err == "mmureport: %s: No space left on device\n" % (
        tmp_path / "pc-bandwidth.png")
    # An output directory that cannot be made: said, -1.
    (tmp_path / "file").write_text("x")
    assert plots.write_plots(model(run(1, "pc")), str(tmp_path / "file" / "out"))[0] == -1
    assert capsys.readouterr().err.startswith("mmureport: %s: " % (tmp_path / "file" / "out"))


def test_same_model_same_bytes(tmp_path):
    m = model(run(1, "pc"))
    a, b = tmp_path / "a", tmp_path / "b"
    assert plots.write_plots(copy.deepcopy(m), str(a), quiet=True)[0] == 0
    assert plots.write_plots(m, str(b), quiet=True)[0] == 0
    for n in os.listdir(a):
        assert (a / n).read_bytes() == (b / n).read_bytes(), n
    # The ids a picture refers to (clip paths, markers): none shared by two
    # pictures, so a page can inline them side by side.
    seen = []
    for n in sorted(os.listdir(a)):
        if n.endswith(".svg"):
            src = (a / n).read_text()
            seen += set(re.findall(r'(?:href="#|url\(#)([^")]+)', src))
    assert seen and len(seen) == len(set(seen))
