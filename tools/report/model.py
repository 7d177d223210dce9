"""The modelled-time plugin's file (tools/plugin/, doc/modelled-time.md)
joined with a run's log: per LMbench column of the seed, the instruction
count's ratio of two modes beside the modelled time's, the seed's ratio of
its kernels, and each mode's modelled cache and shadow-TLB misses per
operation.  Both inputs are untrusted: the plugin's file is checked word by
word, the log is read by mmureport (its integrity checks), and nothing of
either reaches a shell."""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

FIELD = re.compile(r"^[a-z_]+=[0-9a-z]+$")
HEADER = re.compile(r"^# mmuplugin core=([0-9a-z]+): ")
MARK_MODE = 90          # include/mark.h: 90 + the mode's index begins each probe's run in it
MISSES = (("icache_misses", "I$"), ("dcache_misses", "D$"), ("itlb_misses", "ITLB"),
          ("dtlb_misses", "DTLB"))
# What the label says of each core's model (the plugin's header names it).
CORES = {"405gp": "405GP at {mhz} MHz, caches and timings from the manual (no hardware)",
         "e500v2": "e500v2 at {mhz} MHz, caches and timings from the manual, memory assumed "
                   "(no hardware)"}
# Each core's clock (doc/modelled-time.md): the Walnut's 405GP; an e500v2 assumed.
MHZ = {"405gp": 200, "e500v2": 800}

# The seed's columns (mmureport --lmbench's keys, "<section>: <column>")
# and the region (include/mark.h) that holds each one's timed runs.
COLUMNS = (
    ("null call", "Processor, Processes: null call", 21),
    ("sig hndl", "Processor, Processes: sig hndl", 22),
    ("fork proc", "Processor, Processes: fork proc", 24),
    ("exec proc", "Processor, Processes: exec proc", 25),
    ("2p/0K ctxsw", "Context switching: 2p/0K ctxsw", 31),
    ("2p/16K ctxsw", "Context switching: 2p/16K ctxsw", 32),
    ("2p/64K ctxsw", "Context switching: 2p/64K ctxsw", 33),
    ("8p/16K ctxsw", "Context switching: 8p/16K ctxsw", 34),
    ("8p/64K ctxsw", "Context switching: 8p/64K ctxsw", 35),
    ("16p/16K ctxsw", "Context switching: 16p/16K ctxsw", 36),
    ("16p/64K ctxsw", "Context switching: 16p/64K ctxsw", 37),
    ("Pipe", "*Local* Communication latencies: Pipe", 26),
    ("Mmap Latency", "File & VM system latencies: Mmap Latency", 28),
    ("Prot Fault", "File & VM system latencies: Prot Fault", 23),
    ("Page Fault", "File & VM system latencies: Page Fault", 27),
)
MHZ_KEY = "Basic system parameters: Mhz"


class Bad(Exception):
    """An input that is not what it should be: the message says which and why."""


def read_plugin(path):
    """(core, entries): the header's core and the entry lines in the file's
    order as dicts of ints; totals are checked and skipped."""
    try:
        with open(path, encoding="ascii", errors="strict") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise Bad(f"cannot read {path!r}: {e}")
    core, entries = None, []
    for n, line in enumerate(lines, 1):
        m = HEADER.match(line)
        if m and core is None:
            core = m.group(1)
            continue
        words = line.split()
        if words[:1] == ["total"] and words[1:2] and words[1].startswith("region="):
            words = words[1:]
            if words[0] == "region=run":
                words = words[1:]
        elif not words or not words[0].startswith("region="):
            raise Bad(f"{path!r} line {n}: not a line of mmuplugin's")
        if not all(FIELD.match(w) for w in words):
            raise Bad(f"{path!r} line {n}: not a line of mmuplugin's")
        d = dict(w.split("=", 1) for w in words)
        if not all(v.isdigit() for v in d.values()):
            raise Bad(f"{path!r} line {n}: a value that is not a count")
        if line.startswith("region="):
            entries.append({k: int(v) for k, v in d.items()})
        elif int(d.get("unmatched_markers", 0)):
            raise Bad(f"{path!r} line {n}: unmatched markers: its regions are not the loops'")
    if core is None:
        raise Bad(f"{path!r}: no '# mmuplugin core=...' header: not the plugin's file")
    return core, entries


def by_mode(entries, nmodes):
    """{(mode index, region): totals}: each entry is of the mode whose
    MARK_MODE region came last before it (boot/run.c marks each probe's
    run in a mode)."""
    sums, mode = {}, None
    for e in entries:
        rid = e.get("region")
        if MARK_MODE <= rid < MARK_MODE + 8:
            mode = rid - MARK_MODE
            if mode >= nmodes:
                raise Bad(f"the plugin's file marks mode index {mode}, the log has {nmodes} modes")
            continue
        if mode is None:
            continue                    # before the first probe (none marked there)
        t = sums.setdefault((mode, rid), {"insns": 0, "cycles": 0, **{k: 0 for k, _ in MISSES}})
        for k in t:
            if k not in e:
                raise Bad(f"an entry of region {rid} without {k}")
            t[k] += e[k]
    return sums


def lmbench_table(files):
    """mmureport --lmbench's table of `files` (summaries and logs) as JSON."""
    tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "mmureport")
    with tempfile.TemporaryDirectory(prefix="model-ratios.") as d:
        out = os.path.join(d, "table.json")
        p = subprocess.run([tool, "--lmbench", *files, "--json", out], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0 or not os.path.exists(out):
            raise Bad(f"mmureport --lmbench: exit {p.returncode}: {p.stderr.strip()}")
        with open(out, encoding="utf-8") as f:
            return json.load(f)


def median_cells(rows, key):
    v = [r["cells"][key] for r in rows if isinstance(r["cells"].get(key), (int, float))]
    return statistics.median(v) if v else None


def ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def join(table, plugin, num="normal", den="pinned", extra=("largepte",)):
    """The rows of the table from mmureport --lmbench's JSON (the seed's
    rows and one run's) and the plugin's file: per column a dict of the
    ratios and, per mode, the modelled figures.  Raises Bad."""
    core, entries = read_plugin(plugin)
    lmb = [r for r in table["rows"] if r["lmbench"]]
    runs = {r["source"] for r in table["rows"] if not r["lmbench"]}
    if len(runs) != 1:
        raise Bad(f"{len(runs)} runs of mmubench given; the run the plugin's file is of, alone")
    ours = {r["os"]: r for r in table["rows"] if not r["lmbench"]}
    modes = next(iter(ours.values()))["modes"]
    for m in (num, den):
        if m not in ours:
            raise Bad(f"the log has no mode {m} (its modes: {', '.join(modes)})")
    shown = [m for m in (num, den, *extra) if m in ours]
    mhz_run = ours[num]["cells"].get(MHZ_KEY)
    if not isinstance(mhz_run, (int, float)) or mhz_run <= 0:
        raise Bad("the log has no Mhz figure (probe cpu): the instructions a microsecond are unknown")
    sums = by_mode(entries, len(modes))
    rows = []
    for name, key, rid in COLUMNS:
        row = {"column": name, "region": rid, "modes": {}}
        for m in shown:
            us = ours[m]["cells"].get(key)
            t = sums.get((modes.index(m), rid))
            if not isinstance(us, (int, float)) or not t or not t["insns"]:
                continue
            insns = us * mhz_run             # the log's instructions an operation (-icount)
            per = insns / t["insns"]         # the share of the region's totals an operation
            row["modes"][m] = {"insns": insns, "cycles": t["cycles"] * per,
                               **{k: t[k] * per for k, _ in MISSES}}
        a, b = row["modes"].get(num), row["modes"].get(den)
        row["insn_ratio"] = ratio(a and a["insns"], b and b["insns"])
        row["model_ratio"] = ratio(a and a["cycles"], b and b["cycles"])
        row["seed_ratio"] = ratio(median_cells([r for r in lmb if r["host"].startswith("nopintlb")], key),
                                  median_cells([r for r in lmb if r["host"].startswith("2pintlb")], key))
        rows.append(row)
    return core, shown, rows


def fmt(v, width):
    """A ratio in `width` characters, "-" where there is none."""
    return f"{'-':>{width}}" if v is None else f"{v:>{width}.2f}"


def clock(core, mhz=None):
    """The MHz to turn a core's cycles into time: mhz if given, else the
    core's (MHZ); an unknown core's is refused, never assumed."""
    if mhz or core in MHZ:
        return mhz or MHZ[core]
    raise Bad(f"no clock known for core {core!r}: give --mhz")


def label(core, mhz):
    what = CORES.get(core, "core " + core + " at {mhz} MHz (no hardware)")
    return "modelled: " + what.format(mhz=mhz)


def print_table(core, shown, rows, mhz, num="normal", den="pinned", out=sys.stdout):
    """The ratio table, then each mode's modelled time and misses an operation."""
    w = max(len(r["column"]) for r in rows)
    out.write(f"# {label(core, mhz)}\n# instruction counts: QEMU -icount (measured); "
              f"seed: the Walnut's LMbench 2.0 summary (measured)\n")
    heads = (f"insns {num}/{den}", f"modelled {num}/{den}", "seed nopintlb/2pintlb")
    out.write(f"{'column':<{w}}" + "".join(f"  {h}" for h in heads) + "\n")
    for r in rows:
        cells = (r["insn_ratio"], r["model_ratio"], r["seed_ratio"])
        out.write(f"{r['column']:<{w}}" + "".join(f"  {fmt(v, len(h))}" for v, h in zip(cells, heads))
                  + "\n")
    out.write(f"\n# per operation, modelled ({mhz} MHz): time, and the region's misses "
              f"over the operations it covers\n")
    out.write(f"{'column':<{w}}  {'mode':<8}  {'insns':>8}  {'us':>8}"
              + "".join(f"  {h:>7}" for _, h in MISSES) + "\n")
    for r in rows:
        for m in shown:
            f = r["modes"].get(m)
            if f:
                out.write(f"{r['column']:<{w}}  {m:<8}  {f['insns']:>8.0f}  {f['cycles'] / mhz:>8.2f}"
                          + "".join(f"  {f[k]:>7.1f}" for k, _ in MISSES) + "\n")
