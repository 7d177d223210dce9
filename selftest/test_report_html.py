"""mmureport --html: the page from recorded logs (selftest/data/report/) is
valid, self-contained HTML with every table, the differences beyond the
noise and the plots inline; bad input gives the page with each log's
verdict and mmureport's exit status; headless Chromium renders it to a PNG
whose pixels show the tables and the plots."""
import os
import shutil
import stat
import struct
import subprocess
import tempfile
import zlib
from collections import Counter
from html.parser import HTMLParser

import pytest

from conftest import TOP

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
DATA = os.path.join(TOP, "selftest", "data", "report")
Q405 = os.path.join(DATA, "ref405ep-quick.log")
R405 = os.path.join(DATA, "ref405ep-reps4.log")

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
    for tag in ("html", "head", "body", "title"):
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


def small_log(tables=True):
    """reps=5, modes a and b: page faults 100-104 ns against 200-204 (a
    difference Mann-Whitney sees, p=0.008), kmap the same on both sides."""
    body = ["1..2", "# mmubench v1 on sandbox (x86_64), entered by test", "# cpu: test cpu",
            "# platform: Linux (sandbox)", "# run: 1 probe(s) x 2 mode(s), reps=5",
            "# measurements begin"]
    for mode, base in (("a", 100), ("b", 200)):
        for r in range(5):
            body.append("# sample demand.%s.page_fault_ns %d %d.00 ns" % (mode, r + 1, base + r))
            body.append("# sample demand.%s.kmap_ns %d %d.00 ns" % (mode, r + 1, 50 + (r * 3 + (mode == "b")) % 5))
        body.append("# measurement demand.%s.page_fault_ns %d.00 ns" % (mode, base + 2))
        body.append("# measurement demand.%s.kmap_ns 52.00 ns" % mode)
        body.append("ok %d demand.%s" % (1 + (mode == "b"), mode))
    body.append("# measurements end")
    lines = protected(body)
    tab = ["T", "-", "row"]
    crc = 0
    for t in tab:
        crc = zlib.crc32((t + "\n").encode(), crc)
    seq, rest = len(body), []

    def prot(t):
        nonlocal seq
        seq += 1
        s = "%s  @%d" % (t, seq)
        return "%s:%08x" % (s, zlib.crc32(s.encode()))
    if tables:
        rest.append(prot("# tables begin"))
        rest += tab
        rest.append(prot("# tables end lines=%d crc=%08x" % (len(tab), crc)))
    rest.append(prot("# Totals: pass:2 fail:0 skip:0"))
    rest.append(prot("# mmubench status: pass"))
    return "\n".join(lines + rest) + "\n"


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
    f = tmp_path / "truncated.log"
    f.write_text(open(Q405).read()[:20000])
    return str(f), "NOT USABLE", 2, []


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
    if status:
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


# ---- rendered ----

def unfilter(raw, w, h, bpp):
    """PNG's row filters undone (Sub, Up, Average, Paeth); Up, the common one,
    as one big-integer addition with no carry between bytes."""
    n = w * bpp
    lo7 = int.from_bytes(b"\x7f" * n, "big")
    hi1 = int.from_bytes(b"\x80" * n, "big")
    prev, rows = bytes(n), []
    for r in range(h):
        f, line = raw[r * (n + 1)], raw[r * (n + 1) + 1:(r + 1) * (n + 1)]
        if f == 0:
            cur = line
        elif f == 2:
            a, b = int.from_bytes(line, "big"), int.from_bytes(prev, "big")
            cur = (((a & lo7) + (b & lo7)) ^ ((a ^ b) & hi1)).to_bytes(n, "big")
        else:
            out = bytearray(line)
            for i in range(n):
                left = out[i - bpp] if i >= bpp else 0
                if f == 1:
                    out[i] = (out[i] + left) & 255
                elif f == 3:
                    out[i] = (out[i] + ((left + prev[i]) >> 1)) & 255
                else:
                    up, ul = prev[i], prev[i - bpp] if i >= bpp else 0
                    p = left + up - ul
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                    out[i] = (out[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 255
            cur = bytes(out)
        rows.append(cur)
        prev = cur
    return rows


def read_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6) and not interlace, (depth, ctype, interlace)
    bpp = 3 if ctype == 2 else 4
    return w, h, bpp, unfilter(zlib.decompress(b"".join(idat)), w, h, bpp)


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
