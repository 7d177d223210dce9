"""mmureport --html: the page from recorded logs (selftest/data/report/) is
valid, self-contained HTML with every table, the differences beyond the
noise and the plots inline; bad input gives the page with each log's
verdict and mmureport's exit status; headless Chromium renders it to a PNG
whose pixels show the tables and the plots."""
import os
import re
import shutil
import stat
import subprocess
import tempfile
import zlib
from collections import Counter
from html.parser import HTMLParser

import pytest

from conftest import TOP
from pngread import read_png

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
DATA = os.path.join(TOP, "selftest", "data", "report")
Q405 = os.path.join(DATA, "ref405ep-quick.log")
R405 = os.path.join(DATA, "ref405ep-reps4.log")
QPC = os.path.join(DATA, "pc-quick.log")

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
REF_ATTRS = {"href", "xlink:href", "src", "srcset", "action", "formaction", "poster", "data",
             "background", "cite"}


@pytest.fixture(scope="module", autouse=True)
def built():
    subprocess.run(["make", "-s", "tools"], cwd=TOP, check=True, timeout=300)


class PageCheck(HTMLParser):
    """Balanced tags, one html/head/body/title, no script and no reference
    outside the page (only #fragments); the text, for searching."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.count, self.text = [], [], Counter(), []
        self.in_style = False

    def refs(self, tag, attrs):
        for name, value in attrs:
            value = (value or "").strip()
            if name in REF_ATTRS and not value.startswith("#"):
                self.errors.append("external reference <%s %s=%r>" % (tag, name, value))
            if name == "style" and ("url(" in value and "url(#" not in value or "@import" in value):
                self.errors.append("external reference in style=%r" % value)
        if tag in ("script", "link", "iframe", "object", "embed", "img", "base"):
            self.errors.append("<%s> on a page that must need nothing else" % tag)

    def handle_starttag(self, tag, attrs):
        # SVG has titles of its own: the page's are counted outside it.
        inside = any(t == "svg" for t, _ in self.stack)
        self.count[tag if not inside or tag == "svg" else "svg " + tag] += 1
        self.refs(tag, attrs)
        self.in_style = tag == "style"
        if tag not in VOID:
            self.stack.append((tag, self.getpos()))

    def handle_startendtag(self, tag, attrs):
        self.count[tag] += 1
        self.refs(tag, attrs)

    def handle_endtag(self, tag):
        self.in_style = False
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.errors.append("</%s> at %s closes %s" % (tag, self.getpos(),
                                                           self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()

    def handle_decl(self, decl):
        self.count["!" + decl.split()[0].lower()] += 1

    def handle_pi(self, data):
        self.errors.append("<?%s> (an SVG file's prolog pasted whole?)" % data[:20])

    def handle_data(self, data):
        if self.in_style and ("@import" in data or "url(" in data):
            self.errors.append("external reference in <style>")
        self.text.append(data)


def check_page(path):
    src = open(path, encoding="utf-8").read()
    assert src.startswith("<!DOCTYPE html>")
    c = PageCheck()
    c.feed(src)
    c.close()
    assert not c.errors, c.errors[:5]
    assert not c.stack, "unclosed: %s" % c.stack[:5]
    for tag in ("!doctype", "html", "head", "body", "title"):
        assert c.count[tag] == 1, (tag, c.count[tag])
    return c, " ".join(c.text)


def run(*args, cwd=TOP, env=None):
    return subprocess.run([REPORT, *args], capture_output=True, cwd=cwd, timeout=120, env=env)


def table_titles(out):
    """The titles of mmureport's tables: a line with a rule of its length below."""
    lines = out.splitlines()
    return [l for l, r in zip(lines, lines[1:]) if l and r == "-" * len(l) and l != "Runs"]


def page(tmp_path, *args):
    path = str(tmp_path / "index.html")
    p = run("--html", path, *args)
    return p, path


def text_tables(out):
    """{title: rows of cells} of mmureport's text tables, cut at the
    columns its dashes give (two header lines, then a row per run and mode)."""
    tables = {}
    for block in out.split("\n\n"):
        lines = block.splitlines()
        if len(lines) < 6 or not lines[2].startswith("Figures from:"):
            continue
        cols = [m.span() for m in re.finditer(r"-+", lines[5])]
        cut = [(cols[i - 1][1] if i else 0, b) for i, (a, b) in enumerate(cols)]
        tables[lines[0]] = [[l[a:b].strip() for a, b in cut] for l in lines[3:5] + lines[6:]]
    return tables


class PageTables(HTMLParser):
    """{title: rows of cells} of the page's tables, each under its <h3>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.h3, self.rows, self.cell, self.svg = {}, None, None, None, 0
        self.in_h3 = False

    def handle_starttag(self, tag, attrs):
        self.svg += tag == "svg"
        if self.svg:
            return
        if tag == "h3":
            self.h3, self.in_h3 = "", True
        elif tag == "table" and self.h3 is not None:
            self.rows = self.tables.setdefault(self.h3, [])
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag in ("td", "th") and self.rows is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        self.svg -= tag == "svg"
        self.in_h3 &= tag != "h3"
        if tag == "table":
            self.rows = self.h3 = None
        elif tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        elif self.in_h3:
            self.h3 += data


def page_tables(path):
    t = PageTables()
    t.feed(open(path, encoding="utf-8").read())
    return t.tables


# ---- the page ----

def test_page_valid_with_every_table_difference_and_plot(tmp_path):
    args = ["--compare", "normal", "largepte", R405, Q405]
    p, path = page(tmp_path, *args)
    assert p.returncode == 0, p.stderr.decode()
    c, text = check_page(path)
    # Every table mmureport prints, under its own title, with every cell
    # the terminal shows (there host and mode are cut to 9 characters).
    out = run(*args).stdout.decode()
    titles = table_titles(out)
    assert len(titles) >= 8
    texts, pages = text_tables(out), page_tables(path)
    assert sorted(texts) == sorted(titles)
    for t in titles:
        assert t in text, t
        rows = [[c[:9] if i < 2 else c for i, c in enumerate(r)] for r in pages[t]]
        assert rows == texts[t], t
    assert "largepte" in text and "PowerPC 405EP" in text
    # The same plots --plot draws, each inline.
    d = tmp_path / "plots"
    assert run("--no-tables", "--plot", str(d), R405, Q405).returncode == 0
    svgs = [n for n in os.listdir(d) if n.endswith(".svg")]
    assert svgs and c.count["svg"] == len(svgs)
    # Platform, integrity, differences (counts that differ; no test passes Holm here).
    assert "emulated: instruction counts" in text
    assert text.count("intact (every line's sequence number and CRC)") == 2
    assert "boot.dtlb_misses" in text and "counts: not equal" in text
    assert "No figure differs beyond the noise after Holm's correction." in text
    # Written whole: no temporary file or plot directory left beside it, and readable.
    assert sorted(os.listdir(tmp_path)) == ["index.html", "plots"]
    assert os.stat(path).st_mode & stat.S_IROTH


def protected(lines):
    out, seq = ["KTAP version 1"], 0
    for t in lines:
        seq += 1
        s = "%s  @%d" % (t, seq)
        out.append("%s:%08x" % (s, zlib.crc32(s.encode())))
    return out


def make_log(body, platform="Linux (sandbox)", reps=5, modes=("a", "b"), probe="demand"):
    """A log with correct sequence numbers and CRCs: banner, body, tables, status."""
    head = ["1..%d" % len(modes), "# mmubench v1 on sandbox (x86_64), entered by test",
            "# cpu: test cpu", "# platform: " + platform,
            "# run: 1 probe(s) x %d mode(s), reps=%d" % (len(modes), reps), "# measurements begin"]
    tail = ["ok %d %s.%s" % (i + 1, probe, m) for i, m in enumerate(modes)] + ["# measurements end"]
    lines = protected(head + body + tail + ["# tables begin"])
    tab, crc = ["T", "-", "row"], 0
    for t in tab:
        crc = zlib.crc32((t + "\n").encode(), crc)
    seq = len(lines) - 1
    rest = []
    for t in ["# tables end lines=%d crc=%08x" % (len(tab), crc),
              "# Totals: pass:%d fail:0 skip:0" % len(modes), "# mmubench status: pass"]:
        seq += 1
        x = "%s  @%d" % (t, seq)
        rest.append("%s:%08x" % (x, zlib.crc32(x.encode())))
    return "\n".join(lines + tab + rest) + "\n"


def measure(name, values, unit="ns"):
    """Sample lines (more than one value) and the median's measurement."""
    out = ["# sample %s %d %.2f %s" % (name, i + 1, v, unit) for i, v in enumerate(values)]
    return out + ["# measurement %s %.2f %s" % (name, sorted(values)[len(values) // 2], unit)]


def small_log():
    """reps=5, modes a and b: page faults 100-104 ns against 200-204 (a
    difference Mann-Whitney sees, p=0.008), kmap the same figures on both."""
    body = []
    for mode, base in (("a", 100), ("b", 200)):
        body += measure("demand.%s.page_fault_ns" % mode, [base + r for r in range(5)])
        body += measure("demand.%s.kmap_ns" % mode, [50 + (r * 3 + (mode == "b")) % 5 for r in range(5)])
    return make_log(body)


def test_differences_are_those_beyond_the_noise(tmp_path):
    log = tmp_path / "small.log"
    log.write_text(small_log())
    p, path = page(tmp_path, "--compare", "a", "b", str(log))
    assert p.returncode == 0, p.stderr.decode()
    c, text = check_page(path)
    src = open(path).read()
    summary = src[src.index('id="differences"'):src.index("<details>")]
    assert "demand.page_fault_ns" in summary and "B is higher than A (worse)" in summary
    assert "demand.kmap_ns" not in summary            # no difference: only in the full comparison
    assert "demand.kmap_ns" in src[src.index("<details>"):]
    assert "emulated" not in text and c.count["svg"] == 1    # the faults plot


# ---- bad input ----

def truncated(tmp_path):
    """Cut short: its run kept up to there, marked, the page whole; status 2."""
    f = tmp_path / "truncated.log"
    f.write_text(open(Q405).read()[:20000])
    return str(f), "PARTIAL: the log ends at line", 2, []


def without_tables(tmp_path):
    f = tmp_path / "notables.log"
    out, skip = [], False
    for line in open(Q405).read().splitlines():
        skip |= "# tables begin" in line
        if not skip:
            out.append(line)
        skip &= "# tables end" not in line
    f.write_text("\n".join(out) + "\n")
    return str(f), "NOT INTACT", 0, []


def without_tables_strict(tmp_path):
    return without_tables(tmp_path)[0], "NOT INTACT", 1, ["--strict"]


def not_a_log(tmp_path):
    f = tmp_path / "junk.txt"
    f.write_text("hello\n")
    return str(f), "NOT USABLE", 2, []


@pytest.mark.parametrize("make", [truncated, without_tables, without_tables_strict, not_a_log])
def test_bad_input_gives_the_page_with_its_verdict(tmp_path, make):
    log, words, status, extra = make(tmp_path)
    plain = run(*extra, log)
    assert plain.returncode == status               # as mmureport without --html
    p, path = page(tmp_path, *extra, log)
    assert p.returncode == status, p.stderr.decode()
    c, text = check_page(path)
    assert words in text and os.path.basename(log) in text
    # Its messages (what was wrong, where) are on the page as on stderr.
    first = p.stderr.decode().splitlines()[0].split(": ", 2)[-1]
    assert first in text
    if status and make is not truncated:
        assert c.count["svg"] == 0 and "Tables" not in text
    else:
        assert c.count["svg"] > 0 and "Tables" in text
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".") or ".tmp." in n]


def test_never_a_half_written_page(tmp_path):
    # A page that cannot be written: the error said, status 3, no file at all.
    bad = str(tmp_path / "no-such-dir" / "index.html")
    p = run("--html", bad, Q405)
    err = p.stderr.decode()
    assert p.returncode == 3 and "No such file or directory" in err and "Traceback" not in err, err
    assert not (tmp_path / "no-such-dir").exists()
    # Over an old page: replaced whole; nothing to plot, and the page says so.
    path = tmp_path / "index.html"
    path.write_text("the old page\n")
    log = tmp_path / "noplot.log"
    log.write_text(make_log(measure("mmu.a.pagetable_bytes", [4096], "bytes") +
                            measure("mmu.b.pagetable_bytes", [8192], "bytes"), reps=1, probe="mmu"))
    p = run("--html", str(path), str(log))
    assert p.returncode == 0, p.stderr.decode()
    c, text = check_page(str(path))
    assert c.count["svg"] == 0 and "No plots: nothing to plot" in text and "Tables" in text
    assert sorted(os.listdir(tmp_path)) == ["index.html", "noplot.log"]


# ---- the plots (tools/report/plots.py, on the core's model of recorded logs) ----

def sandbox_log():
    """4k and thp: lat_mem curves with 3 repetitions' samples a point, the
    same L1 guess and TLB reach in both modes; tlb curves, L1 entries 64."""
    body = []
    for mode, k in (("4k", 1.0), ("thp", 1.1)):
        for i, size in enumerate([4096, 8192, 16384, 32768, 65536, 131072, 1 << 20, 1 << 22]):
            ns = (1.2 if size <= 32768 else 4.0 if size <= 131072 else 60.0) * k
            body += measure("lat_mem.%s.random_%d_ns" % (mode, size), [ns, ns * 1.05, ns * 1.2])
        body += measure("lat_mem.%s.l1_bytes" % mode, [32768], "bytes")
        for pages in (16, 32, 64, 128, 256):
            body += measure("tlb.%s.%dp_ns" % (mode, pages), [1.2 if pages <= 64 else 3.0] * 3)
        body += measure("tlb.%s.l1_entries" % mode, [64], "count")
        body += measure("tlb.%s.reach_bytes" % mode, [262144], "bytes")
    return make_log(body, reps=3, modes=("4k", "thp"), probe="lat_mem")


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """{picture: (its figure, laid out; the words of its SVG, parsed as XML)}
    for three recorded logs and the sandbox log, from the core's model."""
    import json
    import sys
    import xml.etree.ElementTree as ET
    sys.path.insert(0, os.path.join(TOP, "tools"))
    from report import plots

    d = tmp_path_factory.mktemp("plots")
    (d / "sandbox.log").write_text(sandbox_log())
    p = subprocess.run([os.path.join(TOP, "build", "tools", "mmureport-core"), "--no-tables",
                        "--model", str(d / "model.json"), Q405, R405, QPC, str(d / "sandbox.log")],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    with open(d / "model.json", encoding="utf-8") as f:
        model = json.load(f)
    out = {}
    for pic in plots.figures(model):
        path = d / (pic.name + ".svg")
        with open(path, "wb") as f:
            plots.save(pic.fig, f, "svg", pic.name)
        pic.fig.canvas.draw()
        out[pic.name] = (pic.fig, "\n".join(ET.parse(path).getroot().itertext()))
    assert {"ref405ep-1-tlb", "ref405ep-2-faults", "pc-latency", "sandbox-latency"} <= set(out)
    return out


def extent(t):
    return t.get_window_extent(t.figure.canvas.get_renderer())


def apart(a, b):
    return a.x1 <= b.x0 or b.x1 <= a.x0 or a.y1 <= b.y0 or b.y1 <= a.y0


def ticks_apart(ax):
    """Each two neighbouring x tick labels apart: boxes apart where level;
    where slanted by an angle a (all alike), their lines apart, their
    anchors' distance times sin a at least a line's height."""
    import math
    r = ax.figure.canvas.get_renderer()
    ticks = [t for t in ax.get_xticklabels() if t.get_text()]
    for a, b in zip(ticks, ticks[1:]):
        angle = math.radians(a.get_rotation())
        if math.sin(angle) == 0:
            assert apart(extent(a), extent(b)), (a, b)
            continue
        xa, xb = (t.get_transform().transform(t.get_position())[0] for t in (a, b))
        _, height, _ = r.get_text_width_height_descent(a.get_text(), a.get_fontproperties(),
                                                       ismath=False)
        assert abs(xb - xa) * abs(math.sin(angle)) >= height, (a, b)


def mark_labels(fig):
    """(text, extent) of the labels of the marks (the axes' own texts)."""
    return [(t.get_text(), extent(t)) for t in fig.axes[0].texts]


def test_plot_error_bars_from_the_samples(drawn):
    # reps=4: every bar has min and max of its repetitions, some apart.
    fig, words = drawn["ref405ep-2-faults"]
    cells = []
    for c in fig.axes[0].containers:
        if not hasattr(c, "patches"):
            continue                        # its error bars' own container
        segs = c.errorbar.lines[2][0].get_segments()
        cells += [(bar.get_height(), s[0][1], s[1][1]) for bar, s in zip(c.patches, segs)]
    assert cells and all(lo <= v <= hi for v, lo, hi in cells)
    assert any(lo < hi for v, lo, hi in cells)
    assert fig.axes[0].get_ylabel().endswith("error bars: min-max of the repetitions")
    assert "error bars: min-max of the repetitions" in words
    # reps=1: none, and the label does not claim any.
    fig, words = drawn["ref405ep-1-faults"]
    containers = fig.axes[0].containers
    assert containers and all(hasattr(c, "patches") and c.errorbar is None for c in containers)
    assert "error bars" not in words
    # Curves: x, y, min, max (the samples 1.0x-1.2x the median 1.05x).
    fig, words = drawn["sandbox-latency"]
    assert "error bars: min-max" in fig.axes[0].get_ylabel()
    points = 0
    for c in fig.axes[0].containers:           # an errorbar() each: (line, caps, (bars,))
        line, _, (bars,) = c.lines
        for y, seg in zip(line.get_ydata(), bars.get_segments()):
            assert seg[0][1] < y < seg[1][1]
            points += 1
    assert points == 16
    assert "error bars" not in drawn["ref405ep-1-latency"][1]


def test_plot_log_y_where_values_span_20x(drawn):
    # ref405ep's TLB curve: 1.12 ns to 38.82 ns (35x): log.  Its latency: all 1.01: linear.
    assert drawn["ref405ep-1-tlb"][0].axes[0].get_yscale() == "log"
    assert "log scale)" in drawn["ref405ep-1-tlb"][0].axes[0].get_ylabel()
    assert drawn["ref405ep-1-latency"][0].axes[0].get_yscale() == "linear"
    # The sandbox curve, 1.2 to 72 ns: log; its TLB curve, 1.2 to 3.6 ns: linear.
    assert drawn["sandbox-latency"][0].axes[0].get_yscale() == "log"
    assert drawn["sandbox-tlb"][0].axes[0].get_yscale() == "linear"
    # Every plot's label says which.
    for name, (fig, _) in drawn.items():
        ax = fig.axes[0]
        assert (ax.get_yscale() == "log") == ("log scale" in ax.get_ylabel()), name


def test_plot_labels_never_overlap(drawn):
    # The same TLB reach in two modes: one label naming both.
    lat = [t for t, _ in mark_labels(drawn["sandbox-latency"][0])]
    assert [t for t in lat if "TLB reach" in t] == ["TLB reach 256 KiB: 4k, thp"], lat
    assert lat.count("L1 guess 32 KiB") == 1
    # ref405ep: 62 and 63 entries, marks a pixel apart: labels side by side.
    tlb = mark_labels(drawn["ref405ep-1-tlb"][0])
    assert sorted(t for t, _ in tlb) == ["L1 TLB 62 entries: pinned", "L1 TLB 63 entries: normal"]
    assert apart(tlb[0][1], tlb[1][1])
    for name, (fig, _) in drawn.items():
        ax = fig.axes[0]
        box = ax.get_window_extent()
        marks = [e for _, e in mark_labels(fig)]
        legend = [ax.get_legend().get_window_extent()] if ax.get_legend() else []
        # No two labels share a pixel, nor a label and the legend, nor two ticks.
        group = marks + legend
        for i, a in enumerate(group):
            assert all(apart(a, b) for b in group[i + 1:]), (name, a, group)
        ticks_apart(ax)
        ys = [extent(t) for t in ax.get_yticklabels() + ax.get_yticklabels(minor=True)
              if t.get_text() and t.get_visible()]
        for i, a in enumerate(ys):
            assert all(apart(a, b) for b in ys[i + 1:]), (name, a, ys)
        # Each mark's label within the plot.
        assert all(box.x0 <= e.x0 and e.x1 <= box.x1 for e in marks), name


def test_plot_one_unit_style(drawn):
    sizes = re.compile(r"^\d+(\.\d+)? (B|KiB|MiB)$")
    ax = drawn["sandbox-latency"][0].axes[0]
    tics = [t.get_text() for t in ax.get_xticklabels()]
    assert tics and all(sizes.match(t) for t in tics), tics
    for text, _ in mark_labels(drawn["sandbox-latency"][0]):
        assert re.search(r"\d (B|KiB|MiB)\b", text), text
    ax = drawn["ref405ep-2-bandwidth"][0].axes[0]
    bars = [t.get_text() for t in ax.get_xticklabels()]
    assert bars and all(re.search(r" \d+(\.\d+)? (B|KiB|MiB)$", b) for b in bars), bars
    # Bandwidth (LMbench's MB, 2^20 bytes) in the same style: MiB/s.
    assert ax.get_ylabel().startswith("bandwidth (MiB/s"), ax.get_ylabel()
    # Plain numbers everywhere: no TeX left for a reader (nor a format's %),
    # and a log axis's ticks "0.6", never "6e-01" beside "1".
    for name, (fig, words) in drawn.items():
        assert "$" not in words and "mathdefault" not in words and "%" not in words, name
        for ax in fig.axes:
            ticks = [t.get_text() for t in ax.get_yticklabels(minor=True) + ax.get_yticklabels()]
            bad = [t for t in ticks if not re.fullmatch(r"[-\u2212]?[0-9.]*", t)]
            assert not bad, (name, bad)


def test_plot_says_emulated(drawn):
    icount = "emulated: instruction counts, not time (QEMU -icount)"
    tcg = "emulated: QEMU's host time, not the target's (QEMU TCG)"
    for name, (fig, words) in drawn.items():
        said = [w for w in (icount, tcg) if w in words]
        if name.startswith("ref405ep"):
            assert said == [icount], name
        elif name.startswith("pc"):
            assert said == [tcg], name
        else:
            assert not said and "emulated" not in words, name
        # Above the title, in red.
        if said:
            sup = fig._suptitle
            assert sup.get_text() == said[0] and sup.get_color() == "#cc0000"
            assert extent(sup).y0 > extent(fig.axes[0].title).y1


# ---- rendered ----

def chromium(*args, timeout=120):
    """Headless Chromium, a profile of its own, on the arguments given (a
    page last); skipped where it is not installed."""
    exe = shutil.which("chromium")
    if not exe:
        pytest.skip("chromium missing (tools/install-deps installs it)")
    profile = tempfile.mkdtemp()
    try:
        return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                               "--no-first-run", "--disable-background-networking",
                               "--disable-component-update", "--disable-sync",
                               "--user-data-dir=" + profile, *args], capture_output=True,
                              timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(html, png, height):
    p = chromium("--screenshot=" + png, "--window-size=1280,%d" % height, "file://" + html)
    if not os.path.exists(png):
        # Chromium would not start (no display libraries, sandbox, ...): not the page's fault.
        pytest.skip("chromium wrote no screenshot (exit %d): %s" % (
            p.returncode, p.stderr.decode(errors="replace")[-300:]))


def plot_colours(path):
    """The colours the page's plots draw with (fill and stroke), but greys."""
    found = Counter()
    for m in re.finditer(r"(?:fill|stroke): ?#([0-9a-f]{6})", open(path).read()):
        rgb = tuple(int(m.group(1)[i:i + 2], 16) for i in (0, 2, 4))
        if max(rgb) - min(rgb) > 40:
            found[rgb] += 1
    return found


def near(p, colours, tol=4):
    for c in colours:
        if all(abs(a - b) <= tol for a, b in zip(p, c)):
            return c
    return None


def test_chromium_shows_tables_and_plots(tmp_path):
    p, path = page(tmp_path, "--compare", "normal", "largepte", R405, Q405)
    assert p.returncode == 0
    colours = plot_colours(path)
    assert len(colours) >= 4, colours          # a colour a mode at least
    png = str(tmp_path / "page.png")
    screenshot(path, png, 12000)
    w, h, bpp, rows = read_png(png)
    assert (w, h) == (1280, 12000)
    seen, plot, white, total = Counter(), Counter(), 0, 0
    for r in rows[::2]:
        for i in range(0, len(r), 2 * bpp):
            px = tuple(r[i:i + 3])
            total += 1
            white += px == (255, 255, 255)
            seen[px] += 1
    for px, n in seen.items():
        c = near(px, colours)
        if c is not None:
            plot[c] += n
    # Not blank: text, table rules and header cells (the page's own #bbb, #eee),
    # the emulated banner (#ffe0e0).
    assert total - white > 0.05 * total, (white, total)
    assert seen[(0xee, 0xee, 0xee)] > 2000 and seen[(0xbb, 0xbb, 0xbb)] > 1000
    assert seen[(0xff, 0xe0, 0xe0)] > 1000
    # The plots drawn: four of their colours (the modes') on the screen.
    assert len([c for c in plot if plot[c] > 100]) >= 4, plot
