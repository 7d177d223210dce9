"""mmureport --html: the page from recorded logs (selftest/data/report/) is
valid, self-contained HTML with every table, the differences beyond the
noise and the plots inline; bad input gives the page with each log's
verdict and mmureport's exit status; headless Chromium renders it to a PNG
whose pixels show the tables and the plots."""
import os
import re
import shlex
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


# ---- the page ----

def test_page_valid_with_every_table_difference_and_plot(tmp_path):
    args = ["--compare", "normal", "largepte", R405, Q405]
    p, path = page(tmp_path, *args)
    assert p.returncode == 0, p.stderr.decode()
    c, text = check_page(path)
    # Every table mmureport prints, under its own title, with its cells.
    out = run(*args).stdout.decode()
    titles = table_titles(out)
    assert len(titles) >= 8
    for t in titles:
        assert t in text, t
    assert "largepte" in text and "PowerPC 405EP" in text
    # The same plots --plot draws, each inline.
    d = tmp_path / "plots"
    assert run("--no-tables", "--plot", str(d), R405, Q405).returncode == 0
    svgs = [n for n in os.listdir(d) if n.endswith(".svg")]
    assert len(svgs) == 6 and c.count["svg"] == len(svgs)
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
    # A page that cannot be written: an error, no file at all.
    p = run("--html", str(tmp_path / "no-such-dir" / "index.html"), Q405)
    assert p.returncode == 3 and not (tmp_path / "no-such-dir").exists()
    # gnuplot missing: the page still comes, whole, saying why it has no plots; status 3.
    path = str(tmp_path / "index.html")
    env = dict(os.environ, PATH=str(tmp_path))
    p = run("--html", path, Q405, env=env)
    assert p.returncode == 3
    c, text = check_page(path)
    assert c.count["svg"] == 0 and "gnuplot failed" in text and "Tables" in text
    assert sorted(os.listdir(tmp_path)) == ["index.html"]


# ---- the plots (the script mmureport gives gnuplot) ----

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
def script(tmp_path_factory):
    """{picture: its part of the gnuplot script}, from a stand-in gnuplot that
    keeps the script and fails (mmureport then exits 3)."""
    d = tmp_path_factory.mktemp("gp")
    (d / "sandbox.log").write_text(sandbox_log())
    fake = d / "bin" / "gnuplot"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\ncp "$1" "%s"\nexit 1\n' % (d / "script.gp"))
    fake.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (fake.parent, os.environ["PATH"]))
    p = run("--no-tables", "--plot", str(d / "plots"), Q405, R405, QPC, str(d / "sandbox.log"),
            env=env)
    assert p.returncode == 3 and b"gnuplot failed" in p.stderr
    parts, name = {}, None
    for line in (d / "script.gp").read_text().splitlines():
        m = re.match(r"set output '.*/([^/]+)\.svg'", line)
        if m:
            name = m.group(1)
            parts[name] = []
        elif line.startswith("set output"):
            name = None
        elif name:
            parts[name].append(line)
    return {k: "\n".join(v) for k, v in parts.items()}


def data(part, block):
    rows = part.split("$%s << EOD\n" % block, 1)[1].split("\nEOD", 1)[0]
    return [shlex.split(r) for r in rows.splitlines()]


def labels(part):
    """(text, at, offset) of every label of the script part."""
    return [(m.group(1), m.group(2), m.group(3)) for m in
            re.finditer(r'set label "([^"]*)" at ([^,]+), graph [\d.]+ rotate by 90 right offset ([-\d.]+),0',
                        part)]


def test_plot_error_bars_from_the_samples(script):
    # reps=4: every bar has min and max of its repetitions, some apart.
    rows = data(script["ref405ep-2-faults"], "bars")
    cells = [r[i:i + 3] for r in rows for i in range(1, len(r), 3) if r[i] != "-"]
    assert cells and all(float(lo) <= float(v) <= float(hi) for v, lo, hi in cells)
    assert any(float(lo) < float(hi) for v, lo, hi in cells)
    assert "error bars: min-max of the repetitions" in script["ref405ep-2-faults"]
    # reps=1: none, and the label does not claim any.
    cells = [r[i:i + 3] for r in data(script["ref405ep-1-faults"], "bars") for i in range(1, len(r), 3)]
    assert all(v == lo == hi for v, lo, hi in cells if v != "-")
    assert "error bars" not in script["ref405ep-1-faults"]
    # Curves: x, y, min, max (the samples 1.0x-1.2x the median 1.05x).
    lat = script["sandbox-latency"]
    assert "yerrorlines" in lat and "error bars: min-max" in lat
    assert "error bars" not in script["ref405ep-1-latency"]
    for x, y, lo, hi in data(lat, "c0"):
        assert float(lo) < float(y) < float(hi)


def test_plot_log_y_where_values_span_20x(script):
    # ref405ep's TLB curve: 1.12 ns to 38.82 ns (35x): log.  Its latency: all 1.01: linear.
    assert "set logscale y" in script["ref405ep-1-tlb"]
    assert "log scale)" in re.search(r"set ylabel '([^']*)'", script["ref405ep-1-tlb"]).group(1)
    assert "set logscale y" not in script["ref405ep-1-latency"]
    # The sandbox curve, 1.2 to 72 ns: log; its TLB curve, 1.2 to 3.6 ns: linear.
    assert "set logscale y" in script["sandbox-latency"]
    assert "set logscale y" not in script["sandbox-tlb"]


def test_plot_labels_never_overlap(script):
    # The same TLB reach in two modes: one label naming both.
    lat = labels(script["sandbox-latency"])
    reach = [l for l in lat if "TLB reach" in l[0]]
    assert len(reach) == 1 and reach[0][0] == "TLB reach 256 KiB: 4k, thp", lat
    assert [l[0] for l in lat].count("L1 guess 32 KiB") == 1
    # ref405ep: 62 and 63 entries, marks a pixel apart: labels side by side.
    tlb = labels(script["ref405ep-1-tlb"])
    assert len(tlb) == 2 and tlb[0][1] == tlb[1][1] and tlb[0][2] != tlb[1][2], tlb
    for part in script.values():
        spots = [(at, off) for _, at, off in labels(part)]
        assert len(spots) == len(set(spots))


def test_plot_one_unit_style(script):
    sizes = re.compile(r"^\d+(\.\d+)? (B|KiB|MiB)$")
    tics = re.findall(r'"([^"]+)" [\d.e+]+', re.search(r"set xtics \((.*)\)",
                                                     script["sandbox-latency"]).group(1))
    assert tics and all(sizes.match(t) for t in tics), tics
    assert "%B" not in "".join(script.values())
    for text, _, _ in labels(script["sandbox-latency"]):
        assert re.search(r"\d (B|KiB|MiB)\b", text), text
    bars = [r[0] for r in data(script["ref405ep-2-bandwidth"], "bars")]
    assert bars and all(re.search(r" \d+(\.\d+)? (B|KiB|MiB)$", b) for b in bars), bars
    # Bandwidth (LMbench's MB, 2^20 bytes) in the same style: MiB/s.
    ylabel = re.search(r'set ylabel "([^"]*)"', script["ref405ep-2-bandwidth"]).group(1)
    assert ylabel.startswith("bandwidth (MiB/s"), ylabel


def test_plot_says_emulated(script):
    for name, part in script.items():
        said = re.findall(r'set label 100 "([^"]*)"', part)
        if name.startswith("ref405ep"):
            assert said == ["emulated: instruction counts, not time (QEMU -icount)"], name
        elif name.startswith("pc"):
            assert said == ["emulated: QEMU's host time, not the target's (QEMU TCG)"], name
        else:
            assert not said, name


# ---- rendered ----

# gnuplot's default line colours, as drawn and as bar fills (solid 0.85 on white).
PALETTE = [(0x94, 0x00, 0xd3), (0x00, 0x9e, 0x73), (0x56, 0xb4, 0xe9), (0xe6, 0x9f, 0x00)]
PLOT_COLOURS = {c: i for i, base in enumerate(PALETTE)
                for c in (base, tuple(round(0.85 * v + 0.15 * 255) for v in base))}


def near(p, colours, tol=4):
    for c, i in colours.items():
        if all(abs(a - b) <= tol for a, b in zip(p, c)):
            return i
    return None


def screenshot(html, png, height):
    chromium = shutil.which("chromium")
    if not chromium:
        pytest.skip("chromium missing (tools/install-deps installs it)")
    profile = tempfile.mkdtemp()
    try:
        p = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                            "--no-first-run", "--disable-background-networking",
                            "--disable-component-update", "--disable-sync",
                            "--user-data-dir=" + profile, "--screenshot=" + png,
                            "--window-size=1280,%d" % height, "file://" + html],
                           capture_output=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    if not os.path.exists(png):
        # Chromium would not start (no display libraries, sandbox, ...): not the page's fault.
        pytest.skip("chromium wrote no screenshot (exit %d): %s" % (
            p.returncode, p.stderr.decode(errors="replace")[-300:]))


def test_chromium_shows_tables_and_plots(tmp_path):
    p, path = page(tmp_path, "--compare", "normal", "largepte", R405, Q405)
    assert p.returncode == 0
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
        k = near(px, PLOT_COLOURS)
        if k is not None:
            plot[k] += n
    # Not blank: text, table rules and header cells (the page's own #bbb, #eee),
    # the emulated banner (#ffe0e0).
    assert total - white > 0.05 * total, (white, total)
    assert seen[(0xee, 0xee, 0xee)] > 2000 and seen[(0xbb, 0xbb, 0xbb)] > 1000
    assert seen[(0xff, 0xe0, 0xe0)] > 1000
    # The plots' own colours: every one of the four modes' drawn.
    assert all(plot[i] > 100 for i in range(4)), plot
