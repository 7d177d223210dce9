"""mmureport's command line: today's options and exit codes, over the C
core (mmureport-core) that reads the logs and prints the tables."""
import json
import os
import subprocess
import sys
import tempfile

from . import data, model

USAGE = """\
usage: mmureport [--strict] [--no-tables] [--compare A B]... [--csv FILE] [--json FILE]
                 [--plot DIR] [--html FILE] [--junit FILE] [FILE|-]...
       mmureport --lmbench [--strict] [--compare NUM/DEN NUM/DEN]... [--json FILE]
                 [--model PLUGINFILE] [FILE|-]...
                 (LMbench 2.0 summaries and logs in the LMbench 2.0 summary's layout;
                 --model: the seed's ratios in modelled time, doc/modelled-time.md)
       mmureport --mwu X1,X2,... Y1,Y2,...   (the Mann-Whitney test alone)
A and B: a mode, a board, a run (board-N label, file, #N) or RUN:MODE
"""
NOTHING = "nothing to plot (no lat_mem, tlb, bw_mem or demand figures)"


def core_path():
    """mmureport-core beside the command as run (build/tools), else in build/tools."""
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    for d in (here, os.path.join(top, "build", "tools")):
        p = os.path.join(d, "mmureport-core")
        if os.access(p, os.X_OK):
            return p
    sys.stderr.write("mmureport: mmureport-core not built (make tools)\n")
    sys.exit(3)


def usage(status=3):
    (sys.stdout if status == 0 else sys.stderr).write(USAGE)
    return status


def parse(argv):
    """(core arguments, outputs {csv, json, plot, html, junit}, number of comparisons), or an int."""
    core, out, ncmp, i = [], {}, 0, 0
    while i < len(argv):
        a = argv[i]
        if a in ("--help", "-h"):
            return usage(0)
        if a in ("--strict", "--no-tables", "--lmbench"):
            core.append(a)
        elif a == "--compare" and i + 2 < len(argv):
            core += argv[i:i + 3]
            ncmp += 1
            i += 2
        elif a in ("--csv", "--json", "--plot", "--html", "--junit", "--model") and i + 1 < len(argv):
            out[a[2:]] = argv[i + 1]
            i += 1
        elif a == "--mwu" and i + 3 == len(argv):
            core += argv[i:]
            break
        elif not a.startswith("-") or a == "-":
            core.append(a)
        else:
            return usage()
        i += 1
    if "--lmbench" in core and (set(out) - {"json", "model"} or "--no-tables" in core):
        sys.stderr.write("mmureport: --lmbench prints its table alone (with --compare, --strict, "
                         "--json, --model)\n")
        return usage()
    if "model" in out and ("--lmbench" not in core or out.get("json") == "-"):
        sys.stderr.write("mmureport: --model goes with --lmbench (and a --json FILE, not -)\n")
        return usage()
    return core, out, ncmp


def verdict_of(model, ncmp):
    """Why the page has no tables, or what it leaves out; None when whole."""
    if not model["runs"]:
        return ("No input is a usable log: no tables, comparisons or plots (see each "
                "log's verdict).")
    if model["strict_failed"]:
        return ("--strict, and lines were lost or garbled: no tables, comparisons or plots "
                "(see each log's verdict).")
    unusable = sum(not i["usable"] for i in model["inputs"])
    partial = sum(bool(r["partial"]) for r in model["runs"])
    if not unusable and not partial:
        return None
    gone = ", a comparison naming no usable run left out" if len(model["comparisons"]) < ncmp else ""
    return (f"Not every log is whole ({unusable} not usable: nothing from it is used; {partial} "
            f"run(s) cut short: marked PARTIAL){gone}; the tables, comparisons and plots are of "
            f"the usable runs (see each log's verdict).")


def write_page(model, path, argv, verdict, whole):
    """The page, its plots drawn into a private directory beside it."""
    from . import page, plots
    svgs, why = None, None
    try:
        d = tempfile.TemporaryDirectory(prefix=".mmureport-html.", dir=os.path.dirname(path) or ".")
    except OSError as e:
        sys.stderr.write(f"mmureport: {path}: {e.strerror}\n")
        return -1
    with d as d:
        status = -2
        if whole:
            status, files = plots.write_plots(model, d, quiet=True)
            svgs = [f for f in files if f.endswith(".svg")] if status == 0 else None
            why = NOTHING if status == -2 else "the plots failed (their messages are above)"
        rc = page.write_page(model, path, " ".join(["mmureport"] + argv), svgs, why, verdict)
    return -1 if rc or status == -1 else 0


def lmbench_model(core, out):
    """--lmbench with --json (the core writes the table as JSON too) or
    --model (the modelled ratio table after the core's, from that JSON)."""
    with tempfile.TemporaryDirectory(prefix="mmureport.") as tmp:
        path = out.get("json", os.path.join(tmp, "table.json"))
        status = subprocess.call([core_path(), *core, "--model", path])
        if status or "model" not in out:
            return status
        try:
            with open(path, encoding="utf-8") as f:
                table = json.load(f)
            joined = model.join(table, out["model"])
            mhz = model.clock(joined[0])
        except (OSError, ValueError) as e:
            sys.stderr.write(f"mmureport: the table's JSON is not readable: {e}\n")
            return 3
        except model.Bad as e:
            sys.stderr.write(f"mmureport: --model: {e}\n")
            return 2
    sys.stdout.write("\n")
    model.print_table(*joined, mhz=mhz)
    return 0


def main(argv):
    parsed = parse(argv)
    if isinstance(parsed, int):
        return parsed
    core, out, ncmp = parsed
    if "--lmbench" in core and out:
        return lmbench_model(core, out)
    if "--lmbench" in core or "--mwu" in core:
        return subprocess.call([core_path(), *core])
    with tempfile.TemporaryDirectory(prefix="mmureport.") as tmp:
        path = os.path.join(tmp, "model.json")
        status = subprocess.call([core_path(), *core, "--model", path])
        if not os.path.exists(path):
            return status or 3          # a usage error: the core said why
        try:
            with open(path, encoding="utf-8") as f:
                model = json.load(f)
        except (OSError, ValueError) as e:
            sys.stderr.write(f"mmureport: mmureport-core's model is not readable: {e}\n")
            return 3
    whole = bool(model["runs"]) and not model["strict_failed"]
    failed = False
    if whole:
        if "csv" in out:
            failed |= data.write_csv(model, out["csv"]) < 0
        if "json" in out:
            failed |= data.write_json(model, out["json"]) < 0
        if "plot" in out:
            from . import plots
            try:
                os.makedirs(out["plot"], exist_ok=True)
            except OSError as e:
                sys.stderr.write(f"mmureport: {out['plot']}: {e.strerror}\n")
                return 3
            failed |= plots.write_plots(model, out["plot"])[0] == -1
    if "html" in out:
        failed |= write_page(model, out["html"], argv, verdict_of(model, ncmp), whole) < 0
    if "junit" in out:              # like the page, whatever the logs: a CI's verdict
        from . import junit
        failed |= junit.write_junit(model, out["junit"]) < 0
    return 3 if failed else status
