"""mmureport --html FILE: one self-contained page (inline CSS and SVG, no
script, no external reference, so it opens offline and from an archive):
each log's verdict and the parser's messages, the runs (an emulated
platform said in a banner, a run cut short marked PARTIAL), every table,
the comparisons' differences beyond the noise (the whole comparison
folded below) and the plots.

Everything comes from the MODEL's structured fields, never from printed
text, and goes through jinja2 with autoescape: a string from a log is text
on the page, never markup.  The one piece not escaped is each plot, which
is re-serialised here from its parsed SVG, keeping only SVG elements and
attributes that draw (no script, no event handler, no outside reference).
"""
import html
import os
import re
import xml.etree.ElementTree as ET

import jinja2
from markupsafe import Markup

from .output import write_text

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")

HOST_TIME = "host time (QEMU TCG): no time figures"
ICOUNT = ("emulated: instruction counts, not time (QEMU TCG -icount): no cache or TLB timing "
          "in these figures")
TCG = "emulated (QEMU TCG): times are QEMU's host time, not the target's"

# The core already shows control characters as \xNN text; whatever is left
# (C0 but tab and newline, DEL, C1) is shown the same way, and a lone
# surrogate (which UTF-8 cannot encode) as U+FFFD.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def visible(s):
    s = _CONTROL.sub(lambda m: "\\x%02x" % ord(m.group()), s)
    return _SURROGATE.sub("\ufffd", s)


def _finalize(v):
    """Every {{ }} of the template passes here before escaping."""
    if v is None:
        return ""
    if isinstance(v, Markup):       # a plot, serialised by _svg_markup
        return v
    return visible(v) if isinstance(v, str) else v


_env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True,
                          finalize=_finalize, undefined=jinja2.StrictUndefined,
                          trim_blocks=True, lstrip_blocks=True)


# ---- what each part of the page says ----

def emulated(run):
    """What a run's times are: its "# timing:" line, else (older logs) its platform's."""
    timing, platform = run.get("timing") or "", run.get("platform") or ""
    if timing == "host":
        return HOST_TIME
    if timing == "real":
        return None
    if timing == "instructions" or "-icount" in platform:
        return ICOUNT
    if "emulated" in platform or "TCG" in platform:
        return TCG
    return None


def partial_text(run):
    """A partial run's mark, as the text tables give it; "" for a whole run."""
    if not run.get("partial"):
        return ""
    if run.get("break_reason") == "reset":
        return ("PARTIAL: a new report begins at line %s before its status line (the board "
                "reset)" % run.get("break_line"))
    return "PARTIAL: the log ends at line %s before its status line" % run.get("break_line")


def _input_row(inp, runs):
    first, n = inp.get("first_run") or 0, inp.get("runs") or 0
    mine = [r for r in runs if first and first <= r["run"] < first + n]
    lost = sum(r.get("lines_lost_or_garbled") or 0 for r in mine)
    cut = next((partial_text(r) for r in mine if r.get("partial")), "")
    if not inp.get("usable", True):
        cls, verdict = "bad", "NOT USABLE: nothing from it is in the report"
    elif cut:
        cls = "bad"
        verdict = cut + "; what it holds up to there is in the report, marked partial"
        if lost:
            verdict += "; %d line(s) lost or garbled, their values left out" % lost
    elif lost:
        cls = "bad"
        verdict = "NOT INTACT: %d line(s) lost or garbled; their values are left out" % lost
    elif any(r.get("source") == "lmbench" for r in mine):
        cls, verdict = "", "LMbench output: no sequence numbers nor CRCs to check"
    else:
        cls, verdict = "ok", "intact (every line's sequence number and CRC)"
    said = "; ".join("%s: %s" % (r.get("label", ""), "PARTIAL" if r.get("partial") else
                                 r.get("status") or "no status line") for r in mine)
    return {"file": inp.get("file", ""), "cls": cls, "verdict": verdict, "runs": said,
            "messages": inp.get("messages") or ""}


def _banners(runs):
    """One banner for each kind of emulated timing, naming its runs."""
    out = []
    for text in dict.fromkeys(emulated(r) for r in runs):
        if text:
            out.append({"labels": ", ".join(r.get("label", "") for r in runs
                                            if emulated(r) == text), "text": text})
    return out


def _run_row(r):
    cut = partial_text(r)
    return {"cells": [r.get(k, "") for k in ("label", "file", "board", "cpu", "platform", "args")] +
            [str(r.get("reps", "")), r.get("date", "")],
            "status": cut or r.get("status", ""), "cut": bool(cut)}


def _num(v, decimals=None):
    """A figure from the model: its printed decimals where the model gives them."""
    if v is None:
        return "-"
    if decimals is not None:
        return "%.*f" % (decimals, v)
    return "%d" % v if float(v).is_integer() and abs(v) < 1e15 else "%.10g" % v


def _metric(m, alpha):
    d = m.get("decimals")
    holm = m.get("p_holm")
    if "differs" in m:              # the core's own word, where the model gives it
        differs = bool(m["differs"])
    elif m.get("kind") == "test":
        differs = holm is not None and holm < alpha
    else:
        # Counts: equal when both sides have the same figures (the core's
        # "counts: equal"); min, max and median stand for them here.
        differs = m.get("kind") == "count" and any(
            m.get("a_" + k) != m.get("b_" + k) for k in ("min", "max", "median"))
    both = m.get("n_a") and m.get("n_b")
    return {"metric": m.get("metric", ""), "unit": m.get("unit", ""),
            "a": _num(m.get("a_median"), d) if m.get("n_a") else "-",
            "b": _num(m.get("b_median"), d) if m.get("n_b") else "-",
            "ratio": "%.4g" % m["ratio"] if m.get("ratio") is not None else "-",
            "diff": _num(m.get("difference"), d) if both else "-",
            "n_a": m.get("n_a", ""), "n_b": m.get("n_b", ""),
            # p only for the tests in Holm's family (as the text comparison gives it).
            "p": "%.3g" % m["p"] if holm is not None and m.get("p") is not None else "-",
            "holm": "%.3g" % holm if holm is not None else "-",
            "verdict": m.get("verdict", ""), "kind": m.get("kind"), "differs": differs}


def _comparison(c):
    alpha = c.get("alpha", 0.05)
    tests = c.get("tests") or 0
    corr = ("Holm's correction over the %d test%s below" % (tests, "" if tests == 1 else "s")
            if tests else "no test below, nothing to correct")
    metrics = [_metric(m, alpha) for m in c.get("metrics", [])]
    sides = []
    for s in ("a", "b"):            # each side's platforms, where the model gives them
        v = c.get(s + "_from")
        if v is not None:
            sides.append("%s from: %s" % (s.upper(), "; ".join(v) if isinstance(v, list) else v))
    return {"heading": "Comparison: A = %s, B = %s (Mann-Whitney U over the repetitions, "
                       "two-sided, alpha %.2f, %s; counts compared exactly)"
                       % (c.get("a", ""), c.get("b", ""), alpha, corr),
            "sides": sides, "note": c.get("note") or "",
            "beyond": [m for m in metrics if m["kind"] != "count" and m["differs"]],
            "counts": [m for m in metrics if m["kind"] == "count" and m["differs"]],
            "metrics": metrics}


# The comparisons' tables: (heading, key of _metric's row, a figure?).
ALL_COLUMNS = [("metric", "metric", 0), ("unit", "unit", 0), ("A median", "a", 1),
               ("B median", "b", 1), ("B/A", "ratio", 1), ("B-A", "diff", 1), ("nA", "n_a", 1),
               ("nB", "n_b", 1), ("p", "p", 1), ("Holm p", "holm", 1), ("verdict", "verdict", 0)]


def _columns(*keys):
    return [{"head": h, "key": k, "n": n} for h, k, n in ALL_COLUMNS if not keys or k in keys]


# ---- the plots ----

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
XML_NS = "http://www.w3.org/XML/1998/namespace"
# What a matplotlib figure draws with; anything else (script, foreignObject,
# a, metadata, ...) is left out with what it holds.
SVG_TAGS = {"svg", "g", "defs", "style", "path", "use", "clipPath", "rect", "circle", "ellipse",
            "line", "polyline", "polygon", "text", "tspan", "title", "desc", "linearGradient",
            "radialGradient", "stop", "pattern", "mask", "symbol", "marker"}
_URL = re.compile(r"url\(\s*(['\"]?)#([^)'\"]*)\1\s*\)")


class _Plot:
    """One SVG file as markup for the page, its ids prefixed so that the
    page's plots, side by side in one document, never share one."""

    def __init__(self, k):
        self.prefix, self.out = "plot%d-" % k, []

    def ref(self, m):
        return "url(#%s%s)" % (self.prefix, m.group(2))

    def value(self, name, v):
        """The attribute's value as written, or None to leave it out."""
        if name in ("href", "xlink:href"):
            return "#" + self.prefix + v[1:] if v.startswith("#") else None
        if name == "id":
            return self.prefix + v
        v = _URL.sub(self.ref, v)
        return None if "url(" in v.replace("url(#", "") else v

    def element(self, e):
        ns, _, tag = e.tag[1:].partition("}") if e.tag.startswith("{") else ("", "", e.tag)
        if ns != SVG_NS or tag not in SVG_TAGS:
            return
        text = e.text or ""
        if tag == "style" and ("@import" in text or "url(" in text.replace("url(#", "")):
            return
        attrs = []
        if tag == "svg" and not self.out:
            attrs = [("xmlns", SVG_NS), ("xmlns:xlink", XLINK_NS)]
        for name, v in e.attrib.items():
            if name.startswith("{"):
                ans, _, local = name[1:].partition("}")
                name = {XLINK_NS: "xlink:", XML_NS: "xml:"}.get(ans, "?") + local
            if name.startswith("?") or name.lower().startswith("on") or ":" in name and \
                    name not in ("xlink:href", "xml:space"):
                continue
            v = self.value(name, v)
            if v is not None:
                attrs.append((name, v))
        start = "<" + tag + "".join(' %s="%s"' % (n, html.escape(v)) for n, v in attrs)
        if not text and not len(e):
            self.out.append(start + "/>")      # self-closing: valid for SVG inside HTML
            return
        self.out.append(start + ">" + html.escape(text, quote=False))
        for child in e:
            self.element(child)
            self.out.append(html.escape(child.tail or "", quote=False))
        self.out.append("</%s>" % tag)


def _svg_markup(path, k):
    """(markup, None) for the page, or (None, why it cannot be shown)."""
    try:
        root = ET.parse(path).getroot()     # our own file (plots.py); comments dropped
    except OSError as e:
        return None, e.strerror or str(e)
    except ET.ParseError as e:
        return None, "not valid SVG (%s)" % e
    p = _Plot(k)
    p.element(root)
    if not p.out:
        return None, "not an SVG picture"
    return Markup(visible("".join(p.out))), None


# ---- the page ----

def render(model, command, plots=None, why_no_plots=None, verdict=None):
    runs = model.get("runs", [])
    whole = bool(runs) and not model.get("strict_failed")
    if verdict is None and not whole:   # the tables' absence is always said
        verdict = ("No input is a usable log: no tables, comparisons or plots (see each log's "
                   "verdict)." if not runs else "--strict, and lines were lost or garbled: no "
                   "tables, comparisons or plots (see each log's verdict).")
    shown, unshown = [], []
    for k, path in enumerate(plots or []):
        svg, why = _svg_markup(path, k)
        if svg is not None:
            shown.append(svg)
        else:
            unshown.append({"name": os.path.basename(path), "why": why})
    comparisons = [_comparison(c) for c in model.get("comparisons", [])] if whole else []
    return _env.get_template("page.html.j2").render(
        command=command, verdict=verdict, whole=whole,
        inputs=[_input_row(i, runs) for i in model.get("inputs", [])],
        runs=[_run_row(r) for r in runs], banners=_banners(runs),
        comparisons=comparisons, all_columns=_columns(),
        beyond_columns=_columns("metric", "unit", "a", "b", "ratio", "holm", "verdict"),
        count_columns=_columns("metric", "unit", "a", "b", "ratio", "verdict"), tables=model.get("tables", []) if whole else [],
        plots=shown, unshown=unshown,
        why_no_plots=why_no_plots or "nothing to plot")


def write_page(model, path, command, plots=None, why_no_plots=None, verdict=None):
    """The page at path, written whole or not at all; 0, or -1 with a
    message ("mmureport: PATH: why") on stderr."""
    text = render(model, command, plots, why_no_plots, verdict)
    return write_text(path, lambda f: f.write(text))
