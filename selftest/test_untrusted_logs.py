"""Logs are untrusted input (issue 29): recorded logs with hostile text in
every field, each line re-sealed with a valid sequence number and CRC-32
as a hostile lab would, through `mmureport --csv --json --plot --html`.
Nothing runs, nothing is written outside the output directory, every SVG
is XML, the page holds the text as text, and the data files keep it as
data."""
import csv
import json
import os
import re
import stat
import subprocess
import xml.etree.ElementTree as ET
import zlib
from html.parser import HTMLParser

import pytest

from conftest import TOP

REPORT = os.path.join(TOP, "build", "tools", "mmureport")
DATA = os.path.join(TOP, "selftest", "data", "report")
SEALED = re.compile(r"^(.*  @(\d+)):([0-9a-f]{8})$")
KTAP_SEAL = re.compile(r"^# @(\d+):([0-9a-f]{8})$")


def reseal(lines):
    """Each line's seal made valid again: "<text>  @N:<crc of text  @N>";
    a KTAP line's on the line after it ("# @N:crc")."""
    out = []
    for i, line in enumerate(lines):
        m, k = SEALED.match(line), KTAP_SEAL.match(line)
        if m:
            line = "%s:%08x" % (m.group(1), zlib.crc32(m.group(1).encode("utf-8", "surrogateescape")))
        elif k and out:
            text = "%s  @%s" % (out[-1], k.group(1))
            line = "# @%s:%08x" % (k.group(1), zlib.crc32(text.encode("utf-8", "surrogateescape")))
        out.append(line)
    return out


def text_of(line):
    m = SEALED.match(line)
    return (m.group(1).rsplit("  @", 1)[0], "  @" + m.group(1).rsplit("  @", 1)[1] + ":" + m.group(3)) \
        if m else (line, "")


def crafted(payload, word_payload):
    """pc-quick.log with payload in the free-text fields (cpu, platform,
    run line) and word_payload (no spaces) in the banner's version, board
    and arch, and in measurement lines' mode, probe, metric and unit (lines
    the parser leaves out, and says so).  Result and status lines keep
    their names: with others the log is not intact (logcheck's verdict),
    which test_logcheck's agreement test covers."""
    with open(os.path.join(DATA, "pc-quick.log"), encoding="utf-8", errors="surrogateescape") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        text, seal = text_of(line)
        if text.startswith("# mmubench ") and " on " in text:
            text = f"# mmubench {word_payload} on {word_payload} ({word_payload}), entered by x"
        elif text.startswith(("# cpu: ", "# platform: ", "# run: ")):
            head = text.split(": ", 1)[0]
            text = f"{head}: {payload} reps=1"
        if text.startswith(("# measurement ", "# sample ")):
            text = text.replace(".pae.", f".{word_payload}.").replace(" demand.", f" {word_payload}.")
        text = text.replace("_ns 4", f"_ns{word_payload} 4").replace(" ns", " " + word_payload, 1) \
            if text.startswith("# measurement tlb.") else text
        out.append(text + seal)
    return "\n".join(reseal(out)) + "\n"


# A backquote, $(...), gnuplot's system(), a quote to leave a string, a
# path out, markup: what each interpreter of the old C outputs would run.
PAYLOADS = [
    ("`touch CANARY`", "`touch${IFS}CANARY`"),
    ("$(touch CANARY)", "$(touch${IFS}CANARY)"),
    ("x';system(\"touch CANARY\")#", "x';system(\"touch${IFS}CANARY\")#"),
    ("\"; system(\"touch CANARY\"); \"", "\";system(\"touch${IFS}CANARY\");\""),
    ("../../escaped", "../../escaped"),
    ("/tmp/absolute", "/tmp/absolute"),
    ("<script>document.title='pwned'</script>", "<script>document.title=1</script>"),
    ("\"><img src=x onerror=alert(1)>", "\"><img/src=x/onerror=alert(1)>"),
    ("<svg onload=alert(1)>", "<svg/onload=title=1337>"),
    ("<!--", "<!--"),
    ("]]>", "]]>"),
    ("\x1b[2J\x07 bell and escape", "\x1b[31m"),
    ("Caf\u00e9 \udcff bad byte", "Caf\u00e9"),
]


def tree(path):
    return sorted(os.path.relpath(os.path.join(d, f), path)
                  for d, _dirs, files in os.walk(path) for f in files)


class Elements(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.attrs, self.text = [], [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [a for a, _v in attrs]

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture(scope="module")
def clean_page(tmp_path_factory):
    """The page of the untouched log: the elements the template makes."""
    d = tmp_path_factory.mktemp("clean")
    p = subprocess.run([REPORT, "--html", str(d / "index.html"), os.path.join(DATA, "pc-quick.log")],
                       capture_output=True, timeout=120)
    assert p.returncode == 0, p.stderr
    e = Elements()
    e.feed((d / "index.html").read_text())
    return e


@pytest.mark.parametrize("payload,word", PAYLOADS, ids=[str(i) for i in range(len(PAYLOADS))])
def test_hostile_fields(tmp_path, payload, word, clean_page):
    work = tmp_path / "work"
    out = work / "out"
    work.mkdir()
    log = tmp_path / "hostile.log"
    log.write_bytes(crafted(payload, word).encode("utf-8", "surrogateescape"))
    check = subprocess.run([os.path.join(TOP, "build", "tools", "logcheck"), str(log)],
                           capture_output=True, text=True, timeout=60)
    assert "intact" in check.stdout + check.stderr, check.stdout + check.stderr   # sealed as a lab would
    before = tree(tmp_path)
    out.mkdir()
    p = subprocess.run([REPORT, "--csv", str(out / "runs.csv"), "--json", str(out / "report.json"),
                        "--plot", str(out / "plots"), "--html", str(out / "index.html"), str(log)],
                       capture_output=True, cwd=work, timeout=180)
    assert p.returncode in (0, 2), p.stderr.decode(errors="replace")

    # nothing ran: no canary anywhere it could land
    for d in (tmp_path, work, out, out / "plots", TOP):
        assert not os.path.exists(os.path.join(d, "CANARY")), d
    assert not os.path.exists("/tmp/absolute") and not os.path.exists("/tmp/absolute-latency.png")
    # nothing outside the output directory: the tree outside out/ is as it was
    after = [f for f in tree(tmp_path) if not f.startswith(os.path.join("work", "out") + os.sep)]
    assert after == before, (before, after)
    for f in tree(out):
        assert os.path.realpath(out / f).startswith(str(out.resolve()) + os.sep), f

    # every SVG is XML
    svgs = [f for f in tree(out) if f.endswith(".svg")]
    assert svgs, tree(out)
    for f in svgs:
        ET.parse(out / f)

    # the page: only the template's elements and attributes; the text as text
    page = (out / "index.html").read_text(encoding="utf-8")
    assert "\x1b" not in page and "\x07" not in page and "\udcff" not in page
    e = Elements()
    e.feed(page)
    assert set(e.tags) <= set(clean_page.tags) | {"svg"}, set(e.tags) - set(clean_page.tags)
    assert not [a for a in e.attrs if a.lower().startswith("on")], e.attrs
    assert "script" not in e.tags and "img" not in e.tags
    shown = "".join(e.text)
    visible = payload.replace("\x1b", "\\x1b").replace("\x07", "\\x07").replace("\udcff", "\ufffd")
    assert visible in shown, visible

    # the data files: the text as data, UTF-8, control characters visible
    rows = list(csv.DictReader(open(out / "runs.csv", encoding="utf-8", newline="")))
    assert rows and all(r["cpu"] == visible + " reps=1" for r in rows), rows[0]
    model = json.load(open(out / "report.json", encoding="utf-8"))
    assert model["runs"][0]["cpu"] == visible + " reps=1"


def test_names_outside_the_format_are_left_out_and_said(tmp_path):
    """A measurement whose name holds a character the image never writes is
    no measurement: left out, with a message naming its line."""
    log = tmp_path / "names.log"
    log.write_bytes(crafted("cpu", "<x>").encode())
    p = subprocess.run([REPORT, "--no-tables", "--json", str(tmp_path / "r.json"), str(log)],
                       capture_output=True, text=True, timeout=60)
    assert "not a measurement the format allows" in p.stderr, p.stderr
    model = json.load(open(tmp_path / "r.json"))
    assert not [m for m in model["runs"][0]["measurements"] if "<" in m["mode"] + m["metric"]]


# The front with its temporary files' data going to /dev/full: each write
# fails with ENOSPC, as on a full disk (the file itself is made, so the
# clean-up is tested too).
FULL_DISK = """
import os, sys, tempfile
sys.path.insert(0, sys.argv[1])
from report import front, output
make = tempfile.mkstemp
def full(*args, **kwargs):
    fd, name = make(*args, **kwargs)
    os.close(fd)
    return os.open("/dev/full", os.O_WRONLY), name
output.tempfile.mkstemp = full
sys.argv = [sys.argv[2]] + sys.argv[3:]
sys.exit(front.main(sys.argv[1:]))
"""


@pytest.mark.parametrize("opt", ["--csv", "--json", "--html"])
def test_a_full_disk_is_an_error_and_leaves_no_file(tmp_path, opt):
    """The write fails: status 3 with a message naming the file, and
    nothing left under its name or a temporary one."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this machine")
    target = tmp_path / "out"
    p = subprocess.run(["/usr/bin/python3", "-c", FULL_DISK, os.path.join(TOP, "tools"), REPORT,
                        "--no-tables", opt, str(target), os.path.join(DATA, "pc-quick.log")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 3 and f"mmureport: {target}: No space left on device" in p.stderr, \
        (opt, p.returncode, p.stderr)
    assert [f for f in os.listdir(tmp_path) if not f.startswith(".mmureport-html.")] == [], \
        os.listdir(tmp_path)


@pytest.mark.parametrize("cmd", [["--json"], ["--csv"], ["--html"], ["core", "--model"]])
def test_a_special_file_is_written_not_replaced(tmp_path, cmd):
    """A FIFO (as /dev/null) given as an output is written through, never
    renamed over: tools/bench's --model /dev/null once replaced /dev/null
    with a regular file, and every later reader of /dev/null got the
    model (U-Boot under QEMU typed mkimage's listing)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got_path = tmp_path.parent / (tmp_path.name + "-read")
    reader = subprocess.Popen(["cat", str(fifo)], stdout=open(got_path, "wb"))
    prog = [os.path.join(TOP, "build", "tools", "mmureport-core"), "--no-tables"] \
        if cmd[0] == "core" else [REPORT, "--no-tables"]
    p = subprocess.run(prog + [cmd[-1], str(fifo), os.path.join(DATA, "pc-quick.log")],
                       capture_output=True, text=True, timeout=120)
    reader.wait(timeout=60)
    got = got_path.read_bytes()
    assert p.returncode == 0, p.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and len(got) > 1000, (os.lstat(fifo), len(got))
    assert sorted(os.listdir(tmp_path)) == ["fifo"], os.listdir(tmp_path)


def test_the_model_keeps_newlines_and_shows_the_rest(tmp_path):
    """The Runs block and the parser's messages are lines: their newlines
    stay newlines in the JSON (suite-summary prints the block), while a
    control character inside a line is shown as \\xNN."""
    log = tmp_path / "ctl.log"
    log.write_bytes(crafted("esc \x1b here", "<x>").encode())   # left-out lines: messages
    p = subprocess.run([os.path.join(TOP, "build", "tools", "mmureport-core"), "--no-tables",
                        "--model", str(tmp_path / "m.json"), str(log),
                        os.path.join(DATA, "pc-quick.log")], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    model = json.load(open(tmp_path / "m.json", encoding="utf-8"))
    block = model["runs_block"].splitlines()
    assert block[:2] == ["Runs", "----"] and len(block) == 4, model["runs_block"]
    assert "\\x1b" in model["runs_block"] and "\x1b" not in model["runs_block"]
    assert "\n" in model["inputs"][0]["messages"].rstrip("\n")
    assert "\\x0a" not in model["inputs"][0]["messages"] + model["runs_block"]
