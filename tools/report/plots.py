"""mmureport --plot DIR: per run, PNG and SVG of
  <name>-latency    lat_mem's random chase against the working set (log x),
                    a line per mode, LMbench imports beside them, the
                    cache-size guesses and TLB reaches marked;
  <name>-tlb        the tlb probe's time per load against pages (log x), a
                    line per mode, the L1 entries marked;
  <name>-bandwidth  bw_mem's figures at each size, a bar per mode;
  <name>-faults     demand's and modeswitch's costs in microseconds.
Every figure with samples has an error bar (min-max of the repetitions), y
is logarithmic where the values span 20x or more, sizes are written
B/KiB/MiB on ticks and labels alike, and an emulated run says on the plot
what its times are.

Drawn by matplotlib from the model's numbers: a log's text is only ever a
label (never mathtext, a script or a file name), and the file names come
from safe_names()."""
import math
import os
import re
import sys
import tempfile
import warnings
from collections import namedtuple

import matplotlib
import matplotlib.ticker

matplotlib.use("Agg")
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.transforms import blended_transform_factory  # noqa: E402

from .output import fail  # noqa: E402

KINDS = ("latency", "tlb", "bandwidth", "faults")
SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,40}$")
# A curve's point: <prefix>_<x>[p]_ns or _mbs, as lib/result_line.c reads it.
POINT = re.compile(r"^(?:(.*)_)?([0-9]+)(p?)_(?:ns|mbs)$")
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\ufffe\uffff]")     # and what XML may not hold

# gnuplot's line colours, so a mode keeps the colour it had in earlier reports.
PALETTE = ["#9400d3", "#009e73", "#56b4e9", "#e69f00", "#f0e442", "#0072b2", "#e51e10", "#000000"]
IMPORTS = ["#0072b2", "#e51e10", "#000000", "#777777"]     # LMbench's dashed curves
CACHE_MARK, TLB_MARK = "#0055aa", "#aa3300"
WIDTH, HEIGHT, DPI = 10.0, 6.2, 100          # 1000x620 pixels in the PNG

RC = {
    "svg.fonttype": "none",                  # text stays text (escaped by matplotlib)
    "svg.hashsalt": "mmureport",             # the same ids every time
    "text.parse_math": False,                # "$(id)" is text, not mathtext
    "text.usetex": False,
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "axes.axisbelow": True,
}

FAULTS = [("demand", "page_fault_ns", "page fault"), ("demand", "prot_fault_ns", "prot fault"),
          ("demand", "null_fault_ns", "null fault"), ("demand", "kmap_ns", "kmap"),
          ("demand", "remap_batch_ns", "batch remap"), ("modeswitch", "switch_ns", "mode switch")]
BANDWIDTH = [("rd", "mem read"), ("wr", "mem write"), ("cp_libc", "bcopy (libc)"),
             ("cp_hand", "bcopy (hand)")]

# One picture: its file name stem, run, kind and matplotlib figure.
Plot = namedtuple("Plot", "name run kind fig")


def text(s, limit=80):
    """A model string for a label: control characters visible, a lone
    surrogate (from a JSON escape) replaced, length capped.  The core's model
    does the first two already; this keeps a hand-made one from breaking
    the SVG's XML or its UTF-8."""
    s = str(s if s is not None else "").encode("utf-8", "replace").decode("utf-8")
    s = CONTROL.sub(lambda m: ("\\x%02x" if m.group() < "\u0100" else "\\u%04x") % ord(m.group()), s)
    return s if len(s) <= limit else s[:limit - 1] + "\u2026"


def size_label(b):
    """"512 B", "64 KiB", "1.5 MiB": the one unit style of ticks and labels."""
    if b >= 1 << 20 and b % 262144 == 0:
        return "%g MiB" % (b / (1 << 20))
    if b >= 1024 and b % 256 == 0:
        return "%g KiB" % (b / 1024)
    return "%g B" % b


def number(v):
    """A finite float, else None (null, a string, NaN or infinity in the model)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    v = float(v)
    return v if math.isfinite(v) else None


def spread(m):
    """(value, min, max, sampled): the figure and its repetitions' range."""
    v = number(m.get("value"))
    samples = [s for s in map(number, m.get("samples") or []) if s is not None]
    if v is None:
        return None, None, None, False
    return v, min([v] + samples), max([v] + samples), len(samples) > 1


class View:
    """A run's measurements by (probe, mode) and by name, looked up once."""

    def __init__(self, run):
        self.run = run
        self.groups, self.named = {}, {}
        for m in run.get("measurements") or []:
            if not isinstance(m, dict):
                continue
            self.groups.setdefault((m.get("probe"), m.get("mode")), []).append(m)
            if number(m.get("value")) is not None:
                self.named.setdefault((m.get("probe"), m.get("mode"), m.get("metric")), m)
        modes = run.get("modes")
        if isinstance(modes, list):
            self.modes = [str(m) for m in modes]
        else:       # older --json output gives only their count
            self.modes = list(dict.fromkeys(str(mode) for _, mode in self.groups))

    def value(self, probe, mode, metric):
        m = self.named.get((probe, mode, metric))
        return number(m["value"]) if m else None

    def spread(self, probe, mode, metric):
        m = self.named.get((probe, mode, metric))
        return spread(m) if m else (None, None, None, False)

    def curve(self, probe, mode, prefix, pages):
        """[(x, y, lo, hi)] of <prefix>_<x>[p]_ns by x, and whether any had
        samples; x > 0 only, as x is on a log axis."""
        pts, sampled = [], False
        for m in self.groups.get((probe, mode), []):
            p = POINT.match(str(m.get("metric")))
            if not p or (p.group(1) or "") != prefix or bool(p.group(3)) != pages \
                    or not m["metric"].endswith("_ns") or len(p.group(2)) > 300:
                continue
            x, (v, lo, hi, s) = float(p.group(2)), spread(m)
            if v is not None and 0 < x < math.inf:
                pts.append((x, v, lo, hi))
                sampled |= s
        return sorted(pts), sampled


def title_of(run):
    """"mmubench on board (cpu) - platform - date", short enough for a title."""
    plat = text(run.get("platform"), 200).split("(")[0].strip() or "platform unknown"
    cpu = text(run.get("cpu"), 200).split("(")[0].strip()
    lmbench = run.get("source") == "lmbench"
    return "%s%s%s - %s - %s" % ("" if lmbench else "mmubench on ", text(run.get("board"), 40),
                                 " (%s)" % text(cpu, 60) if cpu else "", text(plat, 79),
                                 text(run.get("date"), 40))


def emulated_words(run):
    """What an emulated run's times are: its "# timing:" line, else (older
    logs) its platform's words."""
    timing, plat = run.get("timing") or "", str(run.get("platform") or "")
    if timing == "real":
        return None
    if timing == "instructions" or "-icount" in plat:
        return "emulated: instruction counts, not time (QEMU -icount)"
    if timing == "host" or "emulated" in plat or "TCG" in plat:
        return "emulated: QEMU's host time, not the target's (QEMU TCG)"
    return None


def wants_log(values):
    """A log y axis where the values span 20x or more (values <= 0 ignored)."""
    pos = [v for v in values if v > 0]
    return bool(pos) and max(pos) >= 20 * min(pos)


def bars_words(sampled):
    return "; error bars: min-max of the repetitions" if sampled else ""


def new_figure(run, what, width=WIDTH):
    fig = Figure(figsize=(width, HEIGHT), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_title(what + "\n" + title_of(run), fontsize=11)
    words = emulated_words(run)
    if words:       # above the title, in red: the picture is read without the page around it
        fig.suptitle(words, color="#cc0000", fontsize=13)
    return fig, ax


def legend(ax, handles, labels, below):
    """Outside the axes (below them, or right): it never hides a curve or a
    mark's label.  Handles and labels given together, so that a label "_x"
    is shown, not dropped."""
    if not handles:
        return
    labels = [text(label, 48) for label in labels]
    if below:
        ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.12),
                  ncol=min(3, len(labels)), fontsize=9)
    else:
        ax.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)


class Plain(matplotlib.ticker.LogFormatter):
    """A log axis's ticks as plain numbers, "0.1" (matplotlib's own are
    mathtext, which is off here, or "1e-01")."""

    def _num_to_string(self, x, vmin, vmax):
        if x == int(x):
            return "%d" % x                         # 1000000, not 1e+06
        return ("%.12f" % x).rstrip("0")            # 0.00001, not 1e-05


def log_y(ax):
    """The minor ticks labelled too where the axis spans few decades."""
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(Plain())
    ax.yaxis.set_minor_formatter(Plain(labelOnlyBase=False, minor_thresholds=(3, 0.5)))


# ---- marks on a log x axis ----

class Marks:
    """Vertical lines at sizes or counts: one label for marks of the same
    colour at the same x, naming every mode that has it."""

    def __init__(self):
        self.marks = []

    def add(self, x, what, colour, dash, who=""):
        x = number(x)
        if x is None or x <= 0:
            return
        for m in self.marks:
            if m["x"] == x and m["colour"] == colour:
                if who and who not in m["who"]:
                    m["who"].append(who)
                return
        self.marks.append({"x": x, "what": what, "colour": colour, "dash": dash,
                           "who": [who] if who else []})

    def labels(self):
        for m in sorted(self.marks, key=lambda m: m["x"]):
            words = m["what"] + (" " + ", ".join(m["who"]) if m["who"] else "")
            yield m, text(words, 70)


def draw_marks(fig, ax, marks):
    """Lines, then labels rotated beside them.  Once the layout is done the
    labels are placed in pixels, each left of its own line, moved aside
    where they would meet: no two share a pixel however close their marks."""
    for m, _ in marks.labels():
        ax.axvline(m["x"], color=m["colour"], lw=1.3, ls=m["dash"], zorder=1)
    if not marks.marks:
        return
    fig.canvas.draw()
    fig.set_layout_engine("none")            # positions computed now stay right
    r = fig.canvas.get_renderer()
    at = blended_transform_factory(ax.transData, ax.transAxes)
    texts = [ax.text(m["x"], 0.97, words, rotation=90, ha="center", va="top", fontsize=9,
                     color=m["colour"], transform=at, clip_on=True)
             for m, words in marks.labels()]
    widths = [t.get_window_extent(r).width for t in texts]
    box = ax.get_window_extent(r)
    gap = 2.0
    want = [ax.transData.transform((t.get_position()[0], 1))[0] - w / 2 - gap
            for t, w in zip(texts, widths)]
    # Right to left: a label meeting the one after it moves left, so a
    # cluster's labels stand side by side left of its lines; then left to
    # right, off the left edge.
    pos = list(want)
    for i in reversed(range(len(pos) - 1)):
        pos[i] = min(pos[i], pos[i + 1] - (widths[i] + widths[i + 1]) / 2 - gap)
    for i in range(len(pos)):
        low = box.x0 + widths[i] / 2 + gap if not i else \
            pos[i - 1] + (widths[i - 1] + widths[i]) / 2 + gap
        pos[i] = max(pos[i], low)
    for t, x in zip(texts, pos):
        t.set_x(ax.transData.inverted().transform((x, 0))[0])


def log2_ticks(ax, xs, bytes_):
    """Ticks at powers of two, at most about 12, in the one unit style; the
    range from the power of two below the least x to the one above the most."""
    a, b = math.floor(math.log2(min(xs))), math.ceil(math.log2(max(xs)))
    if a == b:
        a, b = a - 1, b + 1
    step = max(1, (b - a + 11) // 12)
    ticks = [2.0 ** e for e in range(a, b + 1, step)]
    ax.set_xscale("log", base=2)
    ax.set_xlim(2.0 ** a, 2.0 ** b)
    ax.set_xticks(ticks, [size_label(t) if bytes_ else "%g" % t for t in ticks])
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())


def curves_plot(run, what, xlabel, bytes_, ylabel, series, marks):
    """series: (title, points, sampled, colour, dashed); a log2 x axis
    widened to show every mark."""
    series = [s for s in series if s[1]]
    if not series:
        return None
    values = [v for s in series for p in s[1] for v in p[1:]]
    logy = wants_log(values)
    sampled = any(s[2] for s in series)
    fig, ax = new_figure(run, what)
    handles, labels = [], []
    for title, pts, _, colour, dashed in series:
        if logy:        # a log axis has no place for a value <= 0
            pts = [(x, y, lo if lo > 0 else y, hi) for x, y, lo, hi in pts if y > 0]
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        err = [[y - p[2] for y, p in zip(ys, pts)], [p[3] - y for y, p in zip(ys, pts)]]
        h = ax.errorbar(xs, ys, yerr=err if sampled else None, color=colour, marker="o", ms=3.5,
                        lw=1.5, ls="--" if dashed else "-", capsize=2.5, elinewidth=1, zorder=3)
        handles.append(h)
        labels.append(title)
    xs = [p[0] for s in series for p in s[1]] + [m["x"] for m in marks.marks]
    log2_ticks(ax, xs, bytes_)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("%s (ns%s)%s" % (ylabel, ", log scale" if logy else "", bars_words(sampled)))
    if logy:
        log_y(ax)
    else:
        ax.set_ylim(min([0] + values), None)
    legend(ax, handles, labels, True)
    draw_marks(fig, ax, marks)
    return fig


def latency_plot(views, v):
    lmbench = v.run.get("source") == "lmbench"
    series, marks = [], Marks()
    for k, mode in enumerate(v.modes):
        pts, sampled = v.curve("lat_mem", mode, "lmbench" if lmbench else "random", False)
        series.append((mode + ("" if lmbench else " (random chase)"), pts, sampled,
                       PALETTE[k % len(PALETTE)], False))
        # The guesses: cache sizes (any mode's, once each), TLB reaches.
        for level in (1, 2, 3):
            size = v.value("lat_mem", mode, "l%d_bytes" % level)
            if size and size > 0:
                marks.add(size, "L%d guess %s" % (level, size_label(size)), CACHE_MARK, "--")
        size = v.value("tlb", mode, "reach_bytes")
        if size and size > 0:
            marks.add(size, "TLB reach %s:" % size_label(size), TLB_MARK, ":", text(mode, 24))
    if not any(s[1] for s in series):
        return None
    # LMbench imports beside an mmubench run's curves.
    n = 0
    for other in views if not lmbench else []:
        if other.run.get("source") != "lmbench":
            continue
        base = text(os.path.basename(str(other.run.get("file") or "")), 30)
        for mode in other.modes:
            pts, sampled = other.curve("lat_mem", mode, "lmbench", False)
            if pts:
                series.append(("LMbench %s %s" % (base, mode), pts, sampled,
                               IMPORTS[n % len(IMPORTS)], True))
                n += 1
    return curves_plot(v.run, "Memory latency against working set (lat_mem, pointer chase)",
                       "working set (bytes, log scale)", True, "latency per load", series, marks)


def tlb_plot(views, v):
    series, marks = [], Marks()
    for k, mode in enumerate(v.modes):
        pts, sampled = v.curve("tlb", mode, "", True)
        series.append((mode, pts, sampled, PALETTE[k % len(PALETTE)], False))
        entries = v.value("tlb", mode, "l1_entries")
        if entries and entries > 0:
            marks.add(entries, "L1 TLB %g entries:" % entries, TLB_MARK, "--", text(mode, 24))
    return curves_plot(v.run, "TLB: time per load against pages touched (tlb, one load per 4 KiB page)",
                       "pages (4 KiB each, log scale)", False, "time per load", series, marks)


def bar_plot(v, what, ylabel, columns, scale):
    """columns: (probe, metric, label); a cluster per column with a figure,
    a bar per mode (a mode's colour the same in every plot)."""
    cells = {}          # (column, mode index): (value, lo, hi), scaled
    sampled = False
    for c, (probe, metric, _) in enumerate(columns):
        for k, mode in enumerate(v.modes):
            y, lo, hi, s = v.spread(probe, mode, metric)
            if y is not None:
                cells[c, k] = (y * scale, lo * scale, hi * scale)
                sampled |= s
    logy = wants_log([y for cell in cells.values() for y in cell])
    if logy:            # a log axis has no place for a value <= 0
        cells = {ck: (y, lo if lo > 0 else y, hi) for ck, (y, lo, hi) in cells.items() if y > 0}
    if not cells:
        return None
    shown = sorted({k for _, k in cells})           # a mode without a figure has no bar
    cols = sorted({c for c, _ in cells})
    # The clusters' labels slanted where their lines stay apart (the spacing
    # times sin 30 degrees at least a line's height), else upright; the
    # picture wider where even upright ones would meet.
    line = 10 * DPI / 72 * 1.3
    step = 0.7 * WIDTH * DPI / len(cols)            # about 70 % of the width is the axes'
    slant = step / 2 >= line
    fig, ax = new_figure(v.run, what, max(WIDTH, WIDTH * line / step))
    ax.set_xticks(range(len(cols)), [columns[c][2] for c in cols], rotation=-30 if slant else 90,
                  ha="left" if slant else "center", rotation_mode="anchor" if slant else "default")
    width = 0.8 / len(shown)
    handles = []
    for j, k in enumerate(shown):
        at = [(i - 0.4 + (j + 0.5) * width, cells[c, k]) for i, c in enumerate(cols)
              if (c, k) in cells]
        xs, ys = [x for x, _ in at], [cell[0] for _, cell in at]
        err = [[cell[0] - cell[1] for _, cell in at], [cell[2] - cell[0] for _, cell in at]]
        base = PALETTE[k % len(PALETTE)]
        # gnuplot's "fill solid 0.85" on white, drawn as an opaque colour.
        fill = "#" + "".join("%02x" % round(0.85 * int(base[i:i + 2], 16) + 0.15 * 255)
                             for i in (1, 3, 5))
        handles.append(ax.bar(xs, ys, width, yerr=err if sampled else None, color=fill,
                              edgecolor="black", linewidth=0.6, capsize=2.5,
                              error_kw={"elinewidth": 1}, zorder=3, log=logy))
    ax.set_xlim(-0.6, len(cols) - 0.4)
    ax.grid(False, axis="x")
    ax.set_ylabel("%s%s%s" % (ylabel, ", log scale" if logy else "", bars_words(sampled)))
    if logy:
        log_y(ax)
    else:
        top = max(hi for _, _, hi in cells.values())
        ax.set_ylim(min([0] + [lo for _, lo, _ in cells.values()]), top * 1.08 if top > 0 else None)
    legend(ax, handles, [v.modes[k] for k in shown], False)
    return fig


def bandwidth_plot(views, v):
    """bw_mem: every size measured, a cluster per operation and size."""
    sizes = set()
    for (probe, _), ms in v.groups.items():
        for m in ms if probe == "bw_mem" else []:
            p = POINT.match(str(m.get("metric")))
            if p and number(m.get("value")) is not None and len(p.group(2)) < 20:
                sizes.add(int(p.group(2)))
    columns = [("bw_mem", "%s_%d_mbs" % (op, size), "%s %s" % (name, size_label(size)))
               for op, name in BANDWIDTH for size in sorted(sizes)]
    return bar_plot(v, "Memory bandwidth at each size measured (bw_mem) - bigger is better",
                    "bandwidth (MiB/s: the tables' MB/s, LMbench's 2^20 bytes/s)", columns, 1)


def faults_plot(views, v):
    return bar_plot(v, "Fault and mapping costs (demand, modeswitch) - smaller is better",
                    "time (microseconds)", FAULTS, 0.001)


DRAW = {"latency": latency_plot, "tlb": tlb_plot, "bandwidth": bandwidth_plot,
        "faults": faults_plot}


def safe_names(runs):
    """A file name stem per run: its label where that is plainly safe, else
    run<N>; unique (-run<N> added on a clash)."""
    names, used = [], set()
    for i, run in enumerate(runs):
        n = run.get("run") if isinstance(run.get("run"), int) else i + 1
        label = run.get("label")
        name = label if isinstance(label, str) and SAFE.match(label) else "run%d" % n
        while name in used:
            name += "-run%d" % n
        used.add(name)
        names.append(name)
    return names


def figures(model):
    """Every picture the model gives, as Plot(name, run, kind, fig); made
    within the plots' settings (they matter when texts are created)."""
    out = []
    runs = [r for r in model.get("runs", []) if isinstance(r, dict)]
    with matplotlib.rc_context(RC), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)    # a glyph the font lacks: a box, no noise
        views = [View(run) for run in runs]
        for name, v in zip(safe_names(runs), views):
            for kind in KINDS:
                fig = DRAW[kind](views, v)
                if fig is not None:
                    out.append(Plot("%s-%s" % (name, kind), v.run, kind, fig))
    return out


def save(fig, f, fmt, salt):
    with matplotlib.rc_context(dict(RC, **{"svg.hashsalt": salt})), warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if fmt == "svg":
            fig.savefig(f, format="svg", metadata={"Date": None})
        else:
            fig.savefig(f, format="png", dpi=DPI)


def write_plots(model, outdir, quiet=False):
    """Draw every run's plots into outdir (created if missing), each file
    written whole under a temporary name, then renamed into place.  Returns
    (status, files): 0 and the paths written; -1 on a write error (said on
    stderr; no temporary file left, nothing renamed after it); -2 when
    there was nothing to plot."""
    try:
        os.makedirs(outdir, exist_ok=True)
        base = os.path.realpath(outdir)
    except OSError as e:
        return fail(outdir, e), []
    plots = figures(model)
    if not plots:
        if not quiet:
            sys.stderr.write("mmureport: --plot: nothing to plot "
                             "(no lat_mem, tlb, bw_mem or demand figures)\n")
        return -2, []
    mask = os.umask(0)
    os.umask(mask)
    done, files = [], []            # (temporary, final) pairs written so far
    path = outdir
    try:
        for p in plots:
            for ext in ("png", "svg"):
                path = os.path.join(base, "%s.%s" % (p.name, ext))
                if os.path.dirname(os.path.realpath(path)) != base:     # a symbolic link
                    raise OSError(0, "not inside the plot directory", path)
                fd, tmp = tempfile.mkstemp(prefix=".mmureport-", suffix="." + ext, dir=base)
                done.append((tmp, path))
                with os.fdopen(fd, "wb") as f:
                    os.fchmod(f.fileno(), 0o666 & ~mask)   # pictures to share, not 0600
                    save(p.fig, f, ext, "mmureport " + p.name)
        for tmp, path in done:
            os.replace(tmp, path)
            files.append(path)
        path = None
    except OSError as e:
        for tmp, _ in done:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return fail(path or e.filename, e), files
    if not quiet:
        for p in plots:
            sys.stderr.write("mmureport: plot %s.png, .svg\n" % os.path.join(outdir, p.name))
    return 0, files
