"""The page (tools/report/page.py) shows every string of a log as text:
markup put in every string field of a model (what a hostile lab can write
into a correctly sealed log) makes no element or attribute the template
does not make, leaves the page's title alone and is shown as written, both
to html.parser and in headless Chromium's DOM.  The plots are inlined from
their SVG with only what draws: no script, no handler, no outside reference."""
import copy
import os
import subprocess
import sys
from collections import Counter
from html.parser import HTMLParser

import pytest

from conftest import TOP
from test_report_html import chromium

sys.path.insert(0, os.path.join(TOP, "tools"))
from report import page  # noqa: E402

ATTACKS = ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "<svg onload=alert(1)>",
           "<!--", "]]>",
           # These two would change the title if they ran.
           "<script>document.title='pwned'</script>", "<svg/onload=title=1337>"]
# Fields whose words the page tests by equality: left as they are in one variant.
ENUMS = {"timing", "source", "kind", "method", "emulated", "correction"}
TITLE = "mmubench report"
SECTIONS = ("integrity", "runs", "differences", "tables", "plots")
# Every element the template makes, with the attributes it gives it.
TEMPLATE = {
    "html": [{"lang": "en"}], "meta": [{"charset": "utf-8"}],
    "h2": [{"id": s} for s in SECTIONS], "a": [{"href": "#" + s} for s in SECTIONS],
    "p": [{}, {"class": "bad"}], "td": [{}, {"class": "n"}, {"class": "ok"}, {"class": "bad"}],
    "div": [{"class": c} for c in ("emul", "from", "plot")],
    **{t: [{}] for t in ("head", "title", "style", "body", "h1", "h3", "table", "tbody", "tr", "th",
                         "pre", "details", "summary", "br")}}
# What a plot may hold (lower case: html.parser's and the DOM's names alike).
SVG_TAGS = {"svg", "g", "defs", "style", "path", "use", "clippath", "rect", "circle", "ellipse",
            "line", "polyline", "polygon", "text", "tspan", "title", "desc", "lineargradient",
            "radialgradient", "stop", "pattern", "mask", "symbol", "marker"}


def sample_model():
    """A model as the core gives it (the spec's MODEL), every branch of the
    page used: intact, partial with lost lines, unusable and LMbench
    inputs; host-timed, -icount, real-time runs; two tables; a comparison
    with a difference beyond the noise, one within, counts equal and not."""
    def run(n, label, **kw):
        r = {"run": n, "label": label, "file": "good.log", "board": "pc", "arch": "i386",
             "version": "v1-2-g123", "cpu": "test cpu", "platform": "QEMU TCG (emulated)",
             "args": "3 probe(s) x 2 mode(s), reps=4", "date": "2026-12-03", "status": "pass",
             "timing": "", "source": "mmubench", "reps": 4, "lines_lost_or_garbled": 0,
             "partial": False, "break_line": None, "modes": ["flat", "pae"],
             "results": [{"name": "demand.flat", "result": "ok"}],
             "measurements": [{"probe": "demand", "mode": "flat", "metric": "page_fault_ns",
                               "value": 3437.15, "unit": "ns", "decimals": 2, "line": 23,
                               "samples": [3437.15, 3276.91]},
                              {"probe": "demand", "mode": "flat", "metric": "flushes",
                               "value": None, "unit": "count", "decimals": 0, "line": None,
                               "samples": []}]}
        r.update(kw)
        return r

    def metric(name, kind, a, b, holm=None, **kw):
        m = {"metric": name, "unit": "ns" if kind == "test" else "count", "kind": kind,
             "a_median": a, "b_median": b, "ratio": b / a, "difference": b - a, "a_min": a,
             "a_max": a, "b_min": b, "b_max": b, "n_a": 4, "n_b": 4, "u": 0, "p": 0.03,
             "p_holm": holm, "method": "exact", "emulated": None, "verdict": "verdict of " + name}
        m.update(kw)
        return m

    return {
        "mmureport": "1", "status": 2, "strict_failed": False,
        "inputs": [{"file": "good.log", "usable": True, "partial": False, "first_run": 1,
                    "runs": 2, "messages": "mmureport: good.log: intact\n"},
                   {"file": "cut.log", "usable": True, "partial": True, "first_run": 3, "runs": 1,
                    "messages": "mmureport: cut.log: line 120: ends here\n"},
                   {"file": "junk.txt", "usable": False, "partial": False, "first_run": 0,
                    "runs": 0, "messages": "mmureport: junk.txt: not a log\n"},
                   {"file": "lm.txt", "usable": True, "partial": False, "first_run": 4, "runs": 1,
                    "messages": ""}],
        "runs": [run(1, "pc-1", timing="host"),
                 run(2, "pc-2", timing="instructions", platform="QEMU TCG -icount shift=0"),
                 run(3, "ref-3", file="cut.log", board="ref405ep", timing="real", partial=True,
                     break_line=120, lines_lost_or_garbled=2, status=""),
                 run(4, "lm-4", file="lm.txt", board="linux", source="lmbench",
                     platform="Linux 6.1")],
        "tables": [{"title": "Fault latencies in microseconds", "figures_from": "QEMU TCG (emulated)",
                    "run_column": True,
                    "columns": [{"head1": "Demand", "head2": "fault", "width": 8},
                                {"head1": "Kind", "head2": "", "width": 6}],
                    "rows": [{"run": 1, "board": "pc", "mode": "flat", "cells": ["3.43", "pte"]},
                             {"run": 2, "board": "pc", "mode": "pae", "cells": ["", "huge"]}]},
                   {"title": "Clocks", "figures_from": "Linux 6.1", "run_column": False,
                    "columns": [{"head1": "Tick", "head2": "MHz", "width": 8}],
                    "rows": [{"run": 4, "board": "linux", "mode": "real", "cells": ["333.330"]}]}],
        "runs_listed": True,
        "comparisons": [{"a": "flat", "b": "pae", "alpha": 0.05, "correction": "holm", "tests": 2,
                         "a_from": ["QEMU TCG (emulated)"], "b_from": ["QEMU TCG (emulated)"],
                         "note": "Note: more repetitions",
                         "metrics": [metric("demand.page_fault_ns", "test", 100.0, 200.0, 0.01),
                                     metric("demand.kmap_ns", "test", 50.0, 51.0, 1.0),
                                     metric("demand.flushes", "count", 16, 17),
                                     metric("demand.faults", "count", 16, 16, p=None)]}]}


def inject(model, attack, enums):
    """A copy with "[N]" and the attack after every string (the enumerations
    too where enums); {N: (path, text)} of what was put where."""
    put = {}

    def walk(v, path):
        if isinstance(v, dict):
            return {k: walk(x, path + (k,)) if enums or k not in ENUMS else x for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x, path + (i,)) for i, x in enumerate(v)]
        if isinstance(v, str):
            n = len(put)
            put[n] = (path, "%s[%d]%s" % (v, n, attack))
            return put[n][1]
        return v
    return walk(copy.deepcopy(model), ()), put


def shown(path, model):
    """Is the string at path on the page, as written?"""
    if len(path) < 3:               # the model's version: not on the page
        return False
    where, i, *rest = path
    key = rest[-1]
    if where == "inputs":
        return key in ("file", "messages")
    if where == "runs":
        return len(rest) == 1 and (key in ("label", "file", "board", "cpu", "platform", "args",
                                           "date") or key == "status" and
                                   not model["runs"][i]["partial"])
    if where == "tables":
        return rest[0] in ("title", "figures_from") or rest[0] == "columns" and \
            key in ("head1", "head2") or rest[0] == "rows" and (key in ("board", "mode") or
                                                                  "cells" in rest)
    if where == "comparisons":
        return rest[0] in ("a", "b", "a_from", "b_from", "note") or \
            rest[0] == "metrics" and key in ("metric", "unit", "verdict")
    return False


class Walk(HTMLParser):
    """The elements and attributes of a page against the template's own,
    its title, the structure outside the plots, and its text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.text, self.titles = [], [], [], []
        self.shape, self.svgs = [], 0

    def handle_starttag(self, tag, attrs):
        self.check(tag, attrs)
        if tag not in ("meta", "br") and not (self.in_svg() and self.get_starttag_text().endswith("/>")):
            self.stack.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.check(tag, attrs)

    def in_svg(self):
        return any(t == "svg" for t, _ in self.stack)

    def check(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" or self.in_svg():
            if tag == "svg" and not any(t == "div" and x.get("class") == "plot" for t, x in self.stack):
                self.errors.append("<svg> outside the plots")
            self.svgs += tag == "svg"
            if tag not in SVG_TAGS:
                self.errors.append("<%s> in a plot" % tag)
            for name, v in attrs:
                if name.startswith("on") or name.endswith("href") and not (v or "").startswith("#"):
                    self.errors.append("<%s %s=%r> in a plot" % (tag, name, v))
            return
        if a not in TEMPLATE.get(tag, []):
            self.errors.append("<%s %s> the template does not make" % (tag, a))
        self.shape.append((tag, tuple(attrs)))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data):
        if self.stack and self.stack[-1][0] == "title" and not self.in_svg():
            self.titles.append(data)
        if not (self.stack and self.stack[-1][0] == "style"):
            self.text.append(data)

    def handle_comment(self, data):
        if not self.in_svg():
            self.errors.append("a comment <!--%s--> the template does not make" % data[:30])

    def handle_pi(self, data):
        self.errors.append("<?%s>" % data[:30])


def walk(src):
    w = Walk()
    w.feed(src)
    w.close()
    return w


def hostile_svg(tmp_path):
    """A plot file with what the page must never pass on (a plot is our own
    file, but what it holds is checked all the same)."""
    f = tmp_path / "hostile.svg"
    f.write_text(
        '<?xml version="1.0" encoding="utf-8" standalone="no"?>\n'
        '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n'
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        'width="200pt" height="100pt" viewBox="0 0 200 100" onload="document.title=1">\n'
        ' <metadata><x>kept out</x></metadata>\n'
        ' <defs><style type="text/css">*{stroke-linecap: butt}</style>'
        '<clipPath id="c1"><rect x="0" y="0" width="200" height="100"/></clipPath></defs>\n'
        ' <!-- a comment: &lt;script&gt; - - -->\n'
        ' <script>document.title="svg"</script>\n'
        ' <g id="figure_1" clip-path="url(#c1)"><path id="m1" d="M 0 0 L 3 3" style="fill: #1f77b4"/>'
        '<use xlink:href="#m1" x="5"/><use xlink:href="http://example.com/x.svg#m1"/>'
        '<rect width="10" height="10" style="fill: url(http://example.com/p)" onclick="x()"/>'
        '<text x="1" y="9">&lt;script&gt;alert(1)&lt;/script&gt; ]]&gt;</text></g>\n'
        ' <foreignObject width="10" height="10"><img xmlns="http://www.w3.org/1999/xhtml" '
        'src="x" onerror="alert(1)"/></foreignObject>\n'
        ' <a xlink:href="javascript:alert(1)"><rect width="5" height="5"/></a>\n'
        '</svg>\n')
    return str(f)


def matplotlib_svg(tmp_path, attack):
    """A matplotlib plot whose title and legend are the attack, its text as
    SVG text (svg.fonttype none): escaped, not pasted."""
    mpl = pytest.importorskip("matplotlib")
    mpl.use("svg")
    import matplotlib.pyplot as plt
    with mpl.rc_context({"svg.fonttype": "none"}):
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.plot([1, 2, 3], [3, 1, 2], label=attack)
        ax.set_title(attack)
        ax.legend()
        f = tmp_path / "plot.svg"
        fig.savefig(f)
        plt.close(fig)
    return str(f)


def render(tmp_path, model, attack, plots):
    path = str(tmp_path / ("page-%d.html" % len(os.listdir(tmp_path))))
    assert page.write_page(model, path, "mmureport --html x[c]" + attack, plots,
                           "why[w]" + attack, "verdict[v]" + attack) == 0
    return path


def expected_text(model, put, attack):
    return [t for path, t in put.values() if shown(path, model)] + \
        ["mmureport --html x[c]" + attack, "verdict[v]" + attack]


@pytest.mark.parametrize("enums", [False, True], ids=["enums-kept", "every-string"])
@pytest.mark.parametrize("attack", ATTACKS)
def test_markup_in_every_field_is_text(tmp_path, attack, enums):
    base = sample_model()
    clean, _ = inject(base, "", enums)
    hostile, put = inject(base, attack, enums)
    plots = [hostile_svg(tmp_path), matplotlib_svg(tmp_path, attack)]
    w0 = walk(open(render(tmp_path, clean, "", plots)).read())
    path = render(tmp_path, hostile, attack, plots)
    w = walk(open(path, encoding="utf-8").read())
    assert not w0.errors and not w.errors, (w0.errors + w.errors)[:5]
    assert w.titles == [TITLE]
    # The same elements and attributes, in the same order, as without the markup.
    assert w.shape == w0.shape
    assert w.svgs == 2
    text = "".join(w.text)
    missing = [t for t in expected_text(hostile, put, attack) if t not in text]
    assert not missing, missing[:5]
    # The parts of the plots that could run or reach out are gone; their text stays text.
    src = open(path).read()
    for gone in ("kept out", "example.com", "javascript:", "document.title=\"svg\"", "onclick"):
        assert gone not in src, gone
    assert "<script>alert(1)</script> ]]>" in text


def dom(path):
    try:
        p = chromium("--dump-dom", "file://" + path, timeout=60)
    except subprocess.TimeoutExpired:
        # An alert() the page ran holds headless Chromium until it is killed.
        pytest.fail("chromium still on the page after 60 s: a script of it opened a dialog?")
    assert p.returncode == 0 and p.stdout, p.stderr.decode(errors="replace")[-500:]
    return p.stdout.decode()


@pytest.mark.parametrize("attack", ATTACKS)
def test_chromium_dom_unchanged(tmp_path, attack):
    base = sample_model()
    clean, _ = inject(base, "", False)
    hostile, put = inject(base, attack, False)
    plots = [hostile_svg(tmp_path), matplotlib_svg(tmp_path, attack)]
    w0 = walk(dom(render(tmp_path, clean, "", plots)))
    w = walk(dom(render(tmp_path, hostile, attack, plots)))
    assert not w.errors, w.errors[:5]
    assert w.titles == [TITLE]
    assert w.shape == w0.shape and Counter(w.shape) == Counter(w0.shape)
    assert w.svgs == 2
    text = "".join(w.text)
    missing = [t for t in expected_text(hostile, put, attack) if t not in text]
    assert not missing, missing[:5]


def test_control_characters_shown(tmp_path):
    m = sample_model()
    m["runs"][0]["cpu"] = "a\x1b[31mred\x07\x00b\ud800c"
    m["inputs"][0]["messages"] = "line\r\nnext\x7f\x85"
    path = str(tmp_path / "p.html")
    assert page.write_page(m, path, "mmureport\x01", None, None, None) == 0
    src = open(path, encoding="utf-8").read()
    assert not [c for c in src if ord(c) < 0x20 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f]
    text = "".join(walk(src).text)
    for shown_as in ("a\\x1b[31mred\\x07\\x00b\ufffdc", "line\\x0d\nnext\\x7f\\x85", "mmureport\\x01"):
        assert shown_as in text, shown_as


def test_write_failure_leaves_nothing(tmp_path, capsys, monkeypatch):
    path = tmp_path / "index.html"
    path.write_text("the old page\n")
    # A full disk: the page is not replaced, no temporary file stays, the error is said.
    import report.output as output

    class Full:
        def __init__(self, f):
            self.f = f

        def __enter__(self):
            return self

        def __exit__(self, *a):
            self.f.close()

        def write(self, s):
            raise OSError(28, "No space left on device")
    real = output.os.fdopen
    monkeypatch.setattr(output.os, "fdopen", lambda *a, **k: Full(real(*a, **k)))
    assert page.write_page(sample_model(), str(path), "mmureport", None, None, None) == -1
    monkeypatch.undo()
    assert path.read_text() == "the old page\n" and os.listdir(tmp_path) == ["index.html"]
    assert capsys.readouterr().err == "mmureport: %s: No space left on device\n" % path
    # A directory that is not there.
    bad = str(tmp_path / "no-such-dir" / "index.html")
    assert page.write_page(sample_model(), bad, "mmureport", None, None, None) == -1
    assert capsys.readouterr().err == "mmureport: %s: No such file or directory\n" % bad
