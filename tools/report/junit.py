"""mmureport --junit FILE: the runs' KTAP results as JUnit XML, the Ant
format that GitLab, Jenkins and GitHub's test reporters read
(tools/report/junit.xsd says which part of it).

One testsuite per run (`mmubench.<label>`), one testcase per result:
classname `mmubench.<label>.<probe>`, name the mode, so a CI groups them
by board, then probe.  A SKIP is <skipped> with its reason; `not ok` and
TIMEOUT are <failure> with the result's diagnostics (the `# ` lines
before it, as KTAP places them; an abort's register dump and reason); the
result's measurements are its <properties>.  What the results cannot say
is one more testcase, `mmubench.<label>` `log`: an <error> when the run
was cut short (PARTIAL) or lost lines, a <failure> when its status is
fail with no failed result.  An input with nothing usable is an <error>
in the suite `mmureport.inputs`.  So a whole run gives exactly its KTAP
Totals, and a broken one never reads as all passed.

The tree is built with xml.etree.ElementTree, which escapes by
construction; characters XML 1.0 cannot carry even escaped (ESC, NUL)
are shown as \\xNN first (the core already shows them so: this holds
whatever the model says)."""
import re
import xml.etree.ElementTree as ET

from .data import fixed
from .output import write_text
from .page import partial_text

# What XML 1.0 allows (its Char production), and a message's length.
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
MESSAGE_MAX = 300


def visible(s):
    return NOT_XML.sub(lambda m: "\\x%02x" % ord(m.group()) if ord(m.group()) < 0x100
                       else "\\u%04x" % ord(m.group()), str(s))


def element(parent, tag, text=None, **attrs):
    e = ET.SubElement(parent, tag, {k: visible(v) for k, v in attrs.items()})
    if text:
        e.text = visible(text)
    return e


def message(s):
    s = s[2:] if s.startswith("# ") else s
    return s if len(s) <= MESSAGE_MAX else s[:MESSAGE_MAX - 3] + "..."


def figure(m):
    """A measurement as its line gave it: "15214.43 ns", a kind's word too."""
    v = "%s %s" % (fixed(m["value"], m.get("decimals", 0)), m["unit"])
    return "%s (%s)" % (v, m["word"]) if m.get("word") else v


def properties(parent, pairs):
    if pairs:
        props = element(parent, "properties")
        for name, value in pairs:
            element(props, "property", name=name, value=value)


def failure_message(res):
    """The line that says why: the probe's own reason ("# probe.mode: why"),
    an abort's, else the last diagnostic."""
    diags = res["diagnostics"]
    if res["result"] == "timeout":
        return "TIMEOUT: " + (res["reason"] or "the watchdog stopped it")
    for head in ("# %s: " % res["name"], "# run aborted: "):
        said = [d for d in diags if d.startswith(head)]
        if said:
            return message(said[-1])
    return message(diags[-1]) if diags else "not ok"


def testcase(suite, run, res, figures):
    probe, _, mode = res["name"].partition(".")
    tc = element(suite, "testcase", classname="mmubench.%s.%s" % (run["label"], probe),
                 name=mode or probe)
    properties(tc, [(m["metric"], figure(m)) for m in figures])
    diags = "\n".join(res["diagnostics"])
    where = "%s: line %s: %s %s" % (run["file"], res["line"], res["result"], res["name"])
    if res["result"] == "skip":
        element(tc, "skipped", message=res["reason"] or "skipped")
    elif res["result"] in ("not ok", "timeout"):
        element(tc, "failure", "\n".join(filter(None, (diags, where))),
                message=failure_message(res), type=res["result"])
        return "failure"
    if diags:
        element(tc, "system-out", diags)
    return "skipped" if res["result"] == "skip" else "pass"


def log_case(suite, run, messages):
    """What the results cannot say about the run; None when it is whole."""
    said, kind = [], None
    if run["partial"]:
        said.append("%s: %d of %s planned results reported" %
                    (partial_text(run), len(run["results"]), run["plan"] or "the (unread)"))
        kind = "error"
    if run["lines_lost_or_garbled"]:
        said.append("%d line(s) lost or garbled: what they held is not here" %
                    run["lines_lost_or_garbled"])
        kind = "error"
    if not said and run["status"] == "fail" and \
            not any(r["result"] in ("not ok", "timeout") for r in run["results"]):
        said.append("mmubench status: fail, with no failed result")
        kind = "failure"
    if not kind:
        return None
    tc = element(suite, "testcase", classname="mmubench." + run["label"], name="log")
    text = "\n".join(filter(None, ("\n".join(run["diagnostics"]), messages)))
    element(tc, kind, text, message=message("; ".join(said)),
            type="partial" if run["partial"] else "log")
    return kind


def run_suite(root, run, messages):
    suite = element(root, "testsuite", name="mmubench." + run["label"])
    names = {r["name"] for r in run["results"]}
    per, rest = {}, []
    for m in run["measurements"]:
        if m["value"] is None:          # a count nothing counted: not a figure
            continue
        key = "%s.%s" % (m["probe"], m["mode"])
        if key in names:
            per.setdefault(key, []).append(m)
        else:                           # run-wide figures: mmu.<mode>.*, cpuid.flat.*
            rest.append(("%s.%s" % (key, m["metric"]), figure(m)))
    head = [(k, str(run[k])) for k in ("board", "arch", "cpu", "platform", "args", "version",
                                       "file", "date", "status", "timing", "reps") if run.get(k)]
    properties(suite, head + rest)
    kinds = [testcase(suite, run, r, per.get(r["name"], [])) for r in run["results"]]
    kinds.append(log_case(suite, run, messages))
    counts(suite, kinds)
    if messages:
        element(suite, "system-out", messages)


def counts(suite, kinds):
    suite.set("tests", str(sum(k is not None for k in kinds)))
    for attr, kind in (("failures", "failure"), ("errors", "error"), ("skipped", "skipped")):
        suite.set(attr, str(kinds.count(kind)))


def tree(model):
    root = ET.Element("testsuites", name="mmureport")
    runs = model["runs"]
    for i in model["inputs"]:
        mine = runs[i["first_run"] - 1:i["first_run"] - 1 + i["runs"]] if i["runs"] else []
        for run in mine:
            if run.get("source") == "mmubench":     # an LMbench curve has no results
                run_suite(root, run, i["messages"].rstrip("\n"))
    unusable = [i for i in model["inputs"] if not i["usable"]]
    if unusable:
        suite = element(root, "testsuite", name="mmureport.inputs")
        for i in unusable:
            tc = element(suite, "testcase", classname="mmureport.inputs", name=i["file"])
            element(tc, "error", i["messages"].rstrip("\n"), type="unusable",
                    message="not a usable log: nothing from it is in the report")
        counts(suite, ["error"] * len(unusable))
    for attr in ("tests", "failures", "errors"):
        root.set(attr, str(sum(int(s.get(attr)) for s in root)))
    return root


def write_junit(model, path):
    root = tree(model)
    ET.indent(root)

    def write(f):
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        f.write(ET.tostring(root, encoding="unicode"))
        f.write("\n")
    return write_text(path, write)
