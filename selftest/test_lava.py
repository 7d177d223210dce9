"""LAVA (lab/lava/, Debian's lava-dispatcher 2023.01, lava-server's own
device-type templates from its Debian package): the device dictionaries
rendered and checked with lava-common's device schema, the jobs checked by
lava-dispatcher's own validation, the U-Boot job run end to end by lava-run
against QEMU's x86 U-Boot (interrupt, TFTP, iminfo, go, monitors, results),
the multiboot job, and mmureport reading lava-run's log and output.yaml.
The monitors: one case per KTAP result, per figure (measurement and units)
and per aborted run's reason."""
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import zlib

import pytest
import yaml

from conftest import LOGCHECK, TOP, checked_lines, parse, run_qemu

LAVA = os.path.join(TOP, "lab", "lava")
LAVA_RUN = os.path.join(LAVA, "lava-run-local")
RENDER = os.path.join(LAVA, "render-device")
REPORT = os.path.join(TOP, "build", "tools", "mmureport")
UBOOT_ROM = "/usr/lib/u-boot/qemu-x86/u-boot.rom"
PYTHON = "/usr/bin/python3"
# Few probes, two kinds of table: the run after U-Boot is about 1 s of TCG.
QUICK = "quick probes=boot,demand,tlbwalk modes=flat,2level"
JOBS = ("walnut.yaml", "qemu-x86-uboot.yaml", "qemu-ppce500-uboot.yaml", "qemu-pc.yaml")
QEMU_JOBS = JOBS[1:]
# What a QEMU TCG job makes LAVA figures of: the units mmureport keeps under
# host time (no time, rate or spread); a board's job takes every unit.
COUNT_UNITS = ("count", "kind", "bytes", "KiB", "instructions")
# lava-dispatcher's serial connection reads up to the device's spawn_maxread
# characters at a time (lava-server's base.jinja2: 4092) and its pexpect
# searches only the last 4000 (ShellCommand's searchwindowsize): a read that
# brings more than 4000 less the line a monitor waits for the end of cuts
# that line's start off, and its case is lost.  2000: a line and a read fit.
SPAWN_MAXREAD = 2000
# A curve's point as the image's rl_curve_point (lib/result_line.c) tells
# it, a metric [<prefix>_]<number>[p]_ns or _mbs: no LAVA case.
CURVE_POINT = re.compile(r"[._]\d+p?_(?:ns|mbs)$")


def need(module, package):
    p = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, timeout=60)
    if p.returncode:
        pytest.skip(f"{module} missing (Debian package {package})")


@pytest.fixture(scope="module")
def templates():
    """lava-server's base templates (lab/lava/fetch-templates: from the
    lava-server .deb, fetched once and kept under build/lava)."""
    need("lava_common", "lava-common")
    need("jinja2", "python3-jinja2")
    p = subprocess.run([os.path.join(LAVA, "fetch-templates")], capture_output=True,
                       text=True, timeout=300)
    if p.returncode and "apt-get download" in p.stderr:
        pytest.skip(f"lava-server's templates not here and not fetched: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr
    return os.path.join(TOP, "build", "lava", "device-types")


def render(device, out, **variables):
    p = subprocess.run([PYTHON, RENDER, "-o", str(out), os.path.join(LAVA, "devices", device)]
                       + [f"{k}={v}" for k, v in variables.items()],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "valid (lava_common.schemas.device)" in p.stderr
    with open(out) as f:
        return yaml.safe_load(f)


@pytest.fixture
def qmp_dir():
    """A short directory for QEMU's QMP socket (a unix socket's path has at
    most 107 bytes; pytest's tmp_path can be longer)."""
    d = tempfile.mkdtemp(prefix="qmp")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def qemu_device(tmp_path, qmp_dir):
    return render("qemu-x86-uboot-01.jinja2", tmp_path / "device.yaml",
                  tftp_root=tmp_path / "tftp", qmp_socket=os.path.join(qmp_dir, "qmp"),
                  qemu_qmp=os.path.join(LAVA, "qemu-qmp"))


def test_device_dictionaries_pass_lava_commons_schema(templates, tmp_path, qmp_dir):
    """Rendered from lava-server's base-uboot.jinja2 / qemu.jinja2, valid by
    lava_common.schemas.device; the U-Boot constants as the boards need."""
    walnut = render("walnut-01.jinja2", tmp_path / "walnut.yaml")
    qemu = qemu_device(tmp_path, qmp_dir)
    pc = render("qemu-pc-01.jinja2", tmp_path / "pc.yaml")
    assert walnut["actions"]["deploy"]["parameters"]["mkimage_arch"] == "powerpc"
    assert qemu["actions"]["deploy"]["parameters"]["mkimage_arch"] == "x86"
    assert walnut["commands"]["connect"].endswith("/dev/ttyUSB0 115200")
    # The templates default it (no device dictionary need know it).
    for d in (walnut, qemu, pc):
        assert d["constants"]["spawn_maxread"] == str(SPAWN_MAXREAD)
    assert walnut["parameters"]["bootm"]["kernel"] == "0x01000000"
    assert qemu["parameters"]["bootm"]["kernel"] == "0x02000000"
    for d in (walnut, qemu):
        ub = d["constants"]["u-boot"]
        assert ub["final-message"] == "KTAP version 1" and ub["interrupt-newline"] is False
        assert "Bad Data CRC" in ub["error-messages"]
        assert d["actions"]["boot"]["methods"]["u-boot"]["parameters"]["bootloader_prompt"] == "=>"
    # base-uboot.jinja2's own commands carry the console argument at 115200.
    ramdisk = walnut["actions"]["boot"]["methods"]["u-boot"]["ramdisk"]["commands"]
    assert any("console=ttyS0,115200n8" in c for c in ramdisk), ramdisk
    assert "isa-debug-exit" in " ".join(pc["actions"]["boot"]["methods"]["qemu"]["parameters"]["extra"])
    # The schema does refuse a dictionary without its parameters (as the
    # hand-written qemu-pc-device.yaml was).
    code = ("import sys, yaml; from lava_common.schemas import device\n"
            "d = yaml.safe_load(open(sys.argv[1])); del d['parameters']; device.validate(d)")
    p = subprocess.run([PYTHON, "-c", code, str(tmp_path / "walnut.yaml")],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode != 0 and "required key not provided @ data['parameters']" in p.stderr


def job_file(tmp_path, job, url, bootargs=QUICK):
    text = open(os.path.join(LAVA, job)).read()
    text = text.replace("MMUBENCH_ELF", url).replace("MMUBENCH_UIMG", url)
    text = text.replace("setenv bootargs BOOTARGS", f"setenv bootargs {bootargs}")
    path = tmp_path / job
    path.write_text(text)
    return path


def lava_run(tmp_path, job, device, validate=False, timeout=120, tftp=True):
    """lava-run (through lava-run-local); returns its exit status, the lines
    of its log (standard error) and the records read by a YAML parser."""
    cmd = [LAVA_RUN] + (["--tftp-root", str(tmp_path / "tftp")] if tftp else []) + [
        "--job-id", "1", "--output-dir", str(tmp_path / "out"), "--device", str(device),
        "--dispatcher", os.path.join(LAVA, "dispatcher-qemu.yaml"), str(job)]
    if validate:
        cmd.insert(1 + 2 * tftp, "--validate")
    # A session of its own: on a timeout the QEMU that lava-run started goes too.
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         cwd=tmp_path, start_new_session=True)
    try:
        _, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        pytest.fail(f"lava-run still running after {timeout} s:\n{err[-3000:]}")
    lines = [l for l in err.splitlines() if l.startswith("{")]
    records = yaml.safe_load("\n".join("- " + l for l in lines)) or []
    return p.returncode, lines, records, err


def doc_recipe(doc, intro):
    """The indented command block after `intro` in doc/<doc>, as a shell
    reads it."""
    with open(os.path.join(TOP, "doc", doc)) as f:
        text = f.read()
    at = text.find(intro)
    assert at >= 0, f"doc/{doc} has no {intro!r}"
    block = re.search(r"\n\n((?:    [^\n]*\n)+)", text[at:])
    return "".join(l[4:] + "\n" for l in block.group(1).splitlines())


def run_recipe(script, w, bootargs, timeout=300):
    """A doc's recipe as written but for its two settings, W (w, a short
    directory) and BOOTARGS; make under the build's lock.  Returns the
    script's output and lava-run's log: (out, its record lines, records,
    the whole log)."""
    settings = {"W=$(mktemp -d)": f"W={shlex.quote(w)}",
                "BOOTARGS=": f"BOOTARGS={shlex.quote(bootargs)}"}
    lines = script.splitlines()
    for doc, test in settings.items():
        hits = [i for i, l in enumerate(lines) if l.startswith(doc)]
        assert len(hits) == 1, (doc, script)
        lines[hits[0]] = test
    script = re.sub(r"^make ", "flock build/.make-lock make -s ", "\n".join(lines) + "\n",
                    flags=re.M)
    # Debian's python3 (yaml) first, as lava-run's own #! has it.
    env = dict(os.environ, PATH="/usr/bin:/bin:" + os.environ.get("PATH", ""))
    p = subprocess.Popen(["bash", "-e", "-c", script], cwd=TOP, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        pytest.fail(f"the recipe still running after {timeout} s:\n{out[-3000:]}\n{err[-3000:]}")
    assert p.returncode == 0, out[-3000:] + err[-3000:]
    with open(os.path.join(w, "lava-run.log")) as f:
        log = f.read()
    lines = [l for l in log.splitlines() if l.startswith("{")]
    return out, lines, yaml.safe_load("\n".join("- " + l for l in lines)) or [], log


def results(records, definition=None):
    return [r["msg"] for r in records if r["lvl"] == "results"
            and (definition is None or r["msg"]["definition"] == definition)]


@pytest.mark.parametrize("job,device,image", [
    ("walnut.yaml", "walnut-01.jinja2", "walnut/mmubench.uimg"),
    ("qemu-x86-uboot.yaml", "qemu-x86-uboot-01.jinja2", "pc/mmubench.uimg"),
    ("qemu-pc.yaml", "qemu-pc-01.jinja2", "pc/mmubench.elf")])
def test_lava_jobs_validate(templates, tmp_path, qmp_dir, job, device, image):
    """lava-dispatcher's own validation of each job against its rendered
    device; and it does fail a broken job (a monitor without pattern)."""
    need("lava_dispatcher", "lava-dispatcher")
    dev = tmp_path / "device.yaml"
    if device.startswith("qemu-x86"):
        qemu_device(tmp_path, qmp_dir)
    else:
        render(device, dev)
    url = "file://" + os.path.join(TOP, "build", image)
    rc, _, records, err = lava_run(tmp_path, job_file(tmp_path, job, url), dev, validate=True)
    assert rc == 0, err
    assert {"case": "validate", "definition": "lava", "result": "pass"} in results(records), err
    # The job's timeout holds its actions' (lava-run warns otherwise).
    assert "exceeds Job timeout" not in err, err
    broken = tmp_path / "broken.yaml"
    broken.write_text(re.sub(r"\n      pattern: [^\n]*", "", (tmp_path / job).read_text(), count=1))
    rc, _, _, err = lava_run(tmp_path, broken, dev, validate=True)
    assert rc != 0 and "missing required parameter 'pattern'" in err, err


def lava_console(records):
    """The console lines of the target records, as a YAML parser reads them;
    lava-dispatcher's ShellLogger wrote each " as \\"."""
    return "\n".join(r["msg"].replace('\\"', '"') for r in records
                     if r["lvl"] == "target" and isinstance(r["msg"], str)) + "\n"


def report(path):
    p = subprocess.run([REPORT, str(path)], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def figures(log, tcg=False):
    """{name: (value, unit)} of the log's measurements, but a curve's points;
    with tcg, only those a QEMU job's monitor takes (COUNT_UNITS)."""
    return {j["name"]: (float(j["value"]), j["unit"]) for j in checked_lines(log)[0]
            if j["kind"] == "measurement" and not CURVE_POINT.search(j["name"])
            and (not tcg or j["unit"] in COUNT_UNITS)}


def check_cases(records, log, status="pass"):
    """In suite mmubench one LAVA case per KTAP result, named as mmubench
    printed it, with its result; one per aborted run's reason, failing; one
    per figure, passing, with its value and unit as LAVA's measurement and
    units.  The Totals case passes if `status` is pass, the job passes."""
    run = parse(log)
    assert run.status() == status, log
    cases = results(records, "mmubench")
    # LAVA's monitor makes the case name of the name (lowercased,
    # re.sub(r"\W+", "_"), not configurable in lava-dispatcher 2023.01); the
    # name as printed is the case's extra.test_case_id.  lava-server keeps a
    # case's extra in a file named by suite, case and level: one case a name.
    names = [c["case"] for c in cases]
    assert names == [re.sub(r"\W+", "_", c["extra"]["test_case_id"].lower()) for c in cases]
    assert len(set(names)) == len(names), names
    figs = [c for c in cases if c["units"]]
    assert {c["extra"]["test_case_id"]: (float(c["measurement"]), c["units"]) for c in figs} \
        == figures(log, tcg=True) and len(figs) == len(figures(log, tcg=True))
    assert figs or status != "pass"
    assert {c["result"] for c in figs} <= {"pass"}
    # The others have no figure: measurement None, units "" (as lava-server
    # stores a case without units).
    ktap = [c for c in cases if not c["units"]]
    assert all(c["measurement"] is None and c["units"] == "" for c in ktap), ktap
    got = {c["extra"]["test_case_id"]: c["result"] for c in ktap}
    want = {k: {"ok": "pass", "not ok": "fail", "skip": "skip", "timeout": "fail"}[v]
            for k, v in run.results.items()}
    want.update({l[2:]: "fail" for l in run.lines if l.startswith("# run aborted: ")})
    assert got == want and len(ktap) == len(want)
    assert len(run.results) == run.planned() > 0
    totals = "pass" if status == "pass" else "fail"
    assert [c["result"] for c in results(records, "mmubench-totals")] == [totals]
    assert results(records, "lava")[-1] == {"case": "job", "definition": "lava", "result": "pass"}
    return run


def run_uboot_job(tmp_path, job, url, bootargs, boot, seen, status="pass"):
    """lava-run on a U-Boot job (its device.yaml in tmp_path) with
    `bootargs` and exit=halt, checked by check_uboot_job.  Returns the
    console, the log's record lines and lava-run's log."""
    job = job_file(tmp_path, job, url, bootargs + " exit=halt")
    rc, lines, records, err = lava_run(tmp_path, job, tmp_path / "device.yaml", timeout=150)
    assert rc == 0, err
    return check_uboot_job(records, bootargs, boot, seen, status), lines, err


def check_uboot_job(records, bootargs, boot, seen, status="pass"):
    """A U-Boot job's records: `bootargs` and exit=halt typed, autoboot
    stopped, DHCP, tftpboot and then the commands `boot`; the strings
    `seen` on the console; the KTAP intact, its status `status`, and the
    cases of check_cases.  Returns the console."""
    log = lava_console(records)
    typed = [r["msg"].strip() for r in records if r["lvl"] == "input"]
    assert typed[:4] == ["setenv autoload no", "dhcp", "setenv serverip 10.0.2.2",
                         f"setenv bootargs {bootargs} exit=halt"], typed
    assert re.fullmatch(r"tftpboot 0x02000000 \S+/kernel/mmubench\.uimg", typed[4]), typed
    assert typed[5:] == boot, typed
    for s in seen:
        assert s in log, s
    p = subprocess.run([LOGCHECK], input=log[log.index("KTAP version 1"):],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == (0 if status == "pass" else 1), p.stderr
    check_cases(records, log, status)
    return log


def test_lava_run_uboot_job_against_qemu_x86_uboot(templates, tmp_path, qmp_dir):
    """The U-Boot job end to end: lava-run powers QEMU on (QMP), stops
    U-Boot's autoboot, types dhcp, tftpboot, iminfo, go; the monitors make
    one case per KTAP result; mmureport reads lava-run's log and output.yaml
    and prints the tables it prints from the console log."""
    need("lava_dispatcher", "lava-dispatcher")
    if not os.path.exists(UBOOT_ROM):
        pytest.skip(f"{UBOOT_ROM} missing (Debian package u-boot-qemu)")
    # doc/lab.md's recipe as written (its W and boot arguments ours).
    out, lines, records, err = run_recipe(
        doc_recipe("lab.md", "The U-Boot job against QEMU's x86 U-Boot"), qmp_dir,
        QUICK + " exit=halt", timeout=200)
    log = check_uboot_job(
        records, QUICK,
        ["iminfo 0x02000000", "cp.b 0x02000040 0x00100000 ${filesize}", "go 0x00100000 ${bootargs}"],
        ("Hit any key to stop autoboot", "DHCP client bound to address", "Verifying Checksum ... OK",
         "## Starting application at 0x00100000", "entered by U-Boot go"))
    assert "exceeds Job timeout" not in err, err
    # The recipe's last command, mmureport on lava-run's log: the tables.
    assert "Page tables of the default mapping" in out, out

    # mmureport: lava-run's log as written, output.yaml as lava-server keeps
    # it ("- " before each record), and the console lines on their own.
    (tmp_path / "lava-run.log").write_text(err)
    (tmp_path / "output.yaml").write_text("".join("- " + l + "\n" for l in lines))
    (tmp_path / "console.log").write_text(log)
    console = report(tmp_path / "console.log")
    # QEMU TCG: host time, so no time table; the page tables' bytes stand.
    assert console[0] == 0 and "Page tables of the default mapping" in console[1], console
    assert "host time (QEMU TCG): no time figures" in console[1], console
    for name in ("lava-run.log", "output.yaml"):
        rc, out, msg = report(tmp_path / name)
        # The same but the input's name (the Runs block lists a host-time run).
        assert (rc, out.replace(name, "console.log")) == console[:2], msg
        assert f"{name}: intact: " in msg and "status pass" in msg, msg


def test_lava_run_multiboot_job(templates, tmp_path):
    """The pc image under QEMU's multiboot loader (boot: qemu) with the
    same monitors: one case per KTAP result and per figure."""
    need("lava_dispatcher", "lava-dispatcher")
    dev = tmp_path / "device.yaml"
    render("qemu-pc-01.jinja2", dev)
    url = "file://" + os.path.join(TOP, "build", "pc", "mmubench.elf")
    job = job_file(tmp_path, "qemu-pc.yaml", url)
    rc, _, records, err = lava_run(tmp_path, job, dev, tftp=False)
    assert rc == 0, err
    check_cases(records, lava_console(records))


def test_mmureport_reads_what_lava_logs(tmp_path):
    """lava-common's record forms: `! "…"` tags, ShellLogger's \\" for a
    quote, YAML escapes; a record cut short is a loss, said, not a crash."""
    run = run_qemu("ref405ep", "quick", "probes=boot", "modes=normal")
    assert run.rc == 0, run.stderr
    lines = run.log.replace("\r", "").splitlines()
    lines = lines[next(i for i, l in enumerate(lines) if l.startswith("KTAP")):]
    # A protected line with quotes and a backslash (its CRC recomputed).
    k = next(i for i, l in enumerate(lines) if l.startswith("# platform: "))
    text = lines[k][:lines[k].rindex(":")].replace("# platform: ", '# platform: "q" \\ ')
    lines[k] = "%s:%08x" % (text, zlib.crc32(text.encode()))

    def dq(s):       # lava-common's dump: ShellLogger's \", then YAML's escapes
        s = s.replace('"', '\\"').replace("\\", "\\\\").replace('"', '\\"')
        return '"' + "".join(c if 32 <= ord(c) < 127 else "\\x%02x" % ord(c) for c in s) + '"'
    recs = ['{"dt": "2026-12-01T00:00:00", "lvl": "info", "msg": "start"}']
    for i, l in enumerate(lines):
        tag = "! " if re.fullmatch(r"[0-9.]+", l) else ""
        recs.append('{"dt": "2026-12-01T00:00:%02d", "lvl": "target", "msg": %s%s}'
                    % (i % 60, tag, dq(l)))
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    (tmp_path / "lava.log").write_text("\n".join(recs) + "\n")
    want = report(tmp_path / "console.log")
    assert want[0] == 0, want
    assert report(tmp_path / "lava.log")[:2] == want[:2]
    assert 'Figures from: "q" \\ ' in want[1]       # the quoted line, read intact
    cut = list(recs)
    k = next(i for i, r in enumerate(cut) if "ok 1 boot.normal" in r)
    cut[k] = cut[k][:len(cut[k]) // 2]
    (tmp_path / "cut.log").write_text("\n".join(cut) + "\n")
    rc, out, msg = report(tmp_path / "cut.log")
    assert f"line {k + 1}: a LAVA record cut short or malformed" in msg, msg
    assert "NOT INTACT: lines were lost or garbled" in msg, msg
    (tmp_path / "none.log").write_text(recs[0] + "\n")
    rc, out, msg = report(tmp_path / "none.log")
    assert rc != 0 and "a LAVA log without one target (console) line" in msg, msg


def monitor(mon, text):
    """A LAVA test monitor over a console text, as lava-dispatcher runs it
    (pexpect, its patterns compiled with re.DOTALL: after the start, the
    earliest of end and pattern; all named groups, None where unmatched)."""
    pos = re.compile(mon["start"], re.S).search(text).end()
    end, pat, found = re.compile(mon["end"], re.S), re.compile(mon["pattern"], re.S), []
    while True:
        e, m = end.search(text, pos), pat.search(text, pos)
        if e and (not m or e.start() <= m.start()):
            return found
        assert m, "monitor reached the end of the log"
        d = m.groupdict()
        d["result"] = mon["fixupdict"].get(d["result"], d["result"])
        found.append(d)
        pos = m.end()


def own_line_integrity(text):
    """A result line's "  @seq:crc" moved to a comment line of its own
    (the form of issue 17's result lines: "ok 2 x" then "# @161:d354b57b")."""
    return re.sub(r"^((?:not )?ok \d+ [^\r\n]*?)  (@\d+:[0-9a-f]{8})\r\n", r"\1\r\n# \2\r\n",
                  text, flags=re.M)


def job_monitors(kind="board"):
    """The jobs' monitors: the board's (walnut.yaml), or the QEMU jobs',
    the same in all three, which differ from the board's in the figures'
    units alone."""
    mons = []
    for job in JOBS:
        with open(os.path.join(LAVA, job)) as f:
            mons.append(yaml.safe_load(f)["actions"][2]["test"]["monitors"])
    assert all(m == mons[1] for m in mons[1:])
    units = r"(?P<units>(?(m)\S+|))"
    assert mons[0][0]["pattern"].count(units) == 1
    assert mons[1][0]["pattern"] == mons[0][0]["pattern"].replace(
        units, r"(?P<units>(?(m)(?:" + "|".join(COUNT_UNITS) + r")(?= )|))")
    assert mons[1][1:] == mons[0][1:] and {**mons[1][0], "pattern": ""} == \
        {**mons[0][0], "pattern": ""}
    return mons[0] if kind == "board" else mons[1]


def monitor_cases(text, kind="board"):
    """The mmubench monitor's cases over a console text: {test_case_id:
    result} of those without a figure, {test_case_id: (value, units)} of the
    others (all passing), and the Totals monitor's results."""
    mons = job_monitors(kind)
    found = monitor(mons[0], text)
    figs = {d["test_case_id"]: (float(d["measurement"]), d["units"]) for d in found if d["units"]}
    assert {d["result"] for d in found if d["units"]} <= {"pass"}
    assert all(d["measurement"] is None for d in found if not d["units"])
    ktap = {d["test_case_id"]: d["result"] for d in found if not d["units"]}
    return ktap, figs, [d["result"] for d in monitor(mons[1], text)]


@pytest.mark.parametrize("form", ["suffix", "own-line"])
def test_monitors_match_a_ppc405_log(form):
    """The jobs' monitors over a ppc405 quick run captured now, with a
    failing and a skipped case; result lines with the integrity field at
    their end or on the comment line after them; every figure but a
    curve's points with its value and unit, not the seal."""
    run = run_qemu("ref405ep", "quick", "probes=boot,demand,tlbwalk", "mmu_break=1", timeout=60)
    assert run.rc == 1, run.stderr      # mmu_break: the translated modes fail their self-check
    text = run.log.replace("\n", "\r\n")
    if form == "own-line":
        text = own_line_integrity(text)
        assert "\r\n# @" in text
    ktap, figs, totals = monitor_cases(text)
    want = {k: {"ok": "pass", "not ok": "fail", "skip": "skip"}[v] for k, v in run.results.items()}
    assert ktap == want and len(ktap) == run.planned()
    assert {"pass", "fail", "skip"} <= set(ktap.values()), ktap
    assert figs == figures(run.log) and figs, figs
    assert figs["boot.real.heap_kib"] == (1024.0, "KiB"), figs
    assert totals == ["fail"]
    # A QEMU job's: the same cases, but no time among the figures.
    q_ktap, q_figs, q_totals = monitor_cases(text, "qemu")
    assert (q_ktap, q_totals) == (ktap, totals)
    assert q_figs == figures(run.log, tcg=True) and q_figs, q_figs
    assert "boot.real.heap_kib" in q_figs and "boot.real.tick_mhz" not in q_figs, q_figs


@pytest.mark.parametrize("args,reason,result", [
    (("reps=0",), "bad boot arguments", "run.none"),
    (("crash=data",), "unexpected exception: ", "crash.data")])
def test_monitors_make_a_failing_case_of_an_aborted_run(args, reason, result):
    """An aborted run (a bad boot argument: before any measurement; an
    exception) is a failing case named by its "# run aborted:" reason, its
    failing result, and a failing Totals."""
    run = run_qemu("ref405ep", *args, timeout=30)
    assert run.rc == 1 and run.status() == "fail", run.log
    ktap, figs, totals = monitor_cases(run.log.replace("\n", "\r\n"))
    aborted = [k for k in ktap if k.startswith("run aborted: ")]
    assert len(aborted) == 1 and aborted[0].startswith("run aborted: " + reason), ktap
    assert f"# {aborted[0]}" in run.lines
    assert ktap[aborted[0]] == "fail" and ktap[result] == "fail", ktap
    assert figs == figures(run.log) and totals == ["fail"]


def pexpect_cases(text, maxread):
    """The monitors' test_case_ids over a console text as lava-dispatcher's
    pexpect finds them: reads of `maxread` characters, searched in the last
    4000 (ShellCommand's searchwindowsize), the earliest of end and pattern
    after the start.  A start never found: the cases before it."""
    pexpect = pytest.importorskip("pexpect")
    from pexpect.spawnbase import SpawnBase

    class Reads(SpawnBase):
        def __init__(self):
            super().__init__(timeout=1, maxread=maxread, searchwindowsize=4000,
                             encoding="utf-8")
            self.reads = [text[i:i + maxread] for i in range(0, len(text), maxread)]

        def read_nonblocking(self, size=1, timeout=None):
            if not self.reads:
                raise pexpect.EOF("the end of the console")
            return self.reads.pop(0)

    spawn, found = Reads(), []
    for mon in job_monitors():
        try:
            spawn.expect(mon["start"])
        except pexpect.EOF:
            return found
        while spawn.expect([pexpect.EOF, pexpect.TIMEOUT, mon["end"], mon["pattern"]]) == 3:
            found.append(spawn.match.group("test_case_id"))
    return found


def test_monitors_keep_every_case_through_lava_dispatchers_reads():
    """A whole run read at once, as when lava-dispatcher is behind the
    board: with SPAWN_MAXREAD every case (results, figures, Totals); with
    lava-server's default 4092 some are lost."""
    run = run_qemu("ref405ep", "quick", "probes=boot,demand,tlbwalk", timeout=60)
    assert run.rc == 0, run.stderr
    text = run.log.replace("\n", "\r\n")
    want = [d["test_case_id"] for mon in job_monitors() for d in monitor(mon, text)]
    assert len(want) == len(run.results) + len(figures(run.log)) + 1
    assert pexpect_cases(text, SPAWN_MAXREAD) == want
    assert len(pexpect_cases(text, 4092)) < len(want)


@pytest.mark.parametrize("script", ["fetch-templates", "render-device", "qemu-qmp",
                                    "lava-run-local"])
def test_lab_lava_scripts_help(script, tmp_path):
    """--help: usage on standard output, exit 0, nothing started or written."""
    p = subprocess.run([os.path.join(LAVA, script), "--help"], capture_output=True,
                       text=True, timeout=60, cwd=tmp_path)
    assert p.returncode == 0 and script in p.stdout, p.stdout + p.stderr
    assert p.stderr == "" and list(tmp_path.iterdir()) == []
