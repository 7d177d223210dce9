"""The LAVA files in lab/lava/: the jobs validated by lava-dispatcher's own
validation, the QEMU job run by lava-run, the test monitors checked
against the logs just captured.  labgrid: test_labgrid.py."""
import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import LOGCHECK, TOP, parse, run_qemu

LAB = os.path.join(TOP, "lab")
LAVA_RUN = os.path.join(LAB, "lava", "lava-run-local")
PYTHON = "/usr/bin/python3"


def need(module, package):
    p = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, timeout=60)
    if p.returncode:
        pytest.skip(f"{module} missing (Debian package {package})")


def lava(tmp_path, job, device, validate, url, timeout=120):
    """lava-run (through lava-run-local) on a job whose image URL is url;
    returns its exit status and the records of its log."""
    need("lava_dispatcher", "lava-dispatcher")
    text = open(os.path.join(LAB, "lava", job)).read()
    text = text.replace("MMUBENCH_ELF", url).replace("MMUBENCH_UIMG", url)
    jobfile = tmp_path / job
    jobfile.write_text(text)
    cmd = [LAVA_RUN, "--job-id", str(os.getpid()), "--output-dir", str(tmp_path / "out"),
           "--device", os.path.join(LAB, "lava", device), str(jobfile)]
    if validate:
        cmd.insert(1, "--validate")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp_path)
    # One record a line; lava's YAML-ish "! " tags aside, JSON.
    records = [json.loads(l.replace(': ! "', ': "')) for l in p.stderr.splitlines()
               if l.startswith("{")]
    return p.returncode, records, p.stdout + p.stderr


def results(records, definition=None):
    return [r["msg"] for r in records if r["lvl"] == "results"
            and (definition is None or r["msg"]["definition"] == definition)]


@pytest.mark.parametrize("job,device,image", [
    ("qemu-pc.yaml", "qemu-pc-device.yaml", "pc/mmubench.elf"),
    ("walnut.yaml", "walnut-device.yaml", "walnut/mmubench.uimg")])
def test_lava_jobs_validate(tmp_path, job, device, image):
    """lava-dispatcher's own validation of the job against the device
    dictionary; and it does fail a broken job (a monitor without pattern)."""
    url = "file://" + os.path.join(TOP, "build", image)
    rc, records, out = lava(tmp_path, job, device, True, url)
    assert rc == 0, out
    assert {"case": "validate", "definition": "lava", "result": "pass"} in results(records), out
    broken = tmp_path / "broken"
    broken.mkdir()
    text = open(os.path.join(LAB, "lava", job)).read()
    (broken / job).write_text(re.sub(r"\n      pattern: [^\n]*", "", text, count=1))
    p = subprocess.run([LAVA_RUN, "--validate", "--job-id", "1", "--output-dir",
                        str(broken / "out"), "--device", os.path.join(LAB, "lava", device),
                        str(broken / job)], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "missing required parameter 'pattern'" in p.stderr, p.stderr


def test_lava_qemu_job_runs(tmp_path):
    """lava-run boots the pc image in QEMU; its monitors turn every KTAP
    result into a LAVA result (pass/skip) and every measurement line into a
    measurement with its unit, exactly those of the log LAVA captured."""
    url = "file://" + os.path.join(TOP, "build", "pc", "mmubench.elf")
    rc, records, out = lava(tmp_path, "qemu-pc.yaml", "qemu-pc-device.yaml", False, url)
    assert rc == 0, out
    log = "\n".join(r["msg"] for r in records if r["lvl"] == "target" and isinstance(r["msg"], str))
    p = subprocess.run([LOGCHECK], input=log + "\n", capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr + log
    run = parse(log)
    got = {r["extra"]["test_case_id"]: r for r in results(records, "mmubench")}
    want = {k: {"ok": "pass", "not ok": "fail", "skip": "skip"}[v] for k, v in run.results.items()}
    assert {k: got[k]["result"] for k in want if k in got} == want
    for name, (value, unit) in run.measurements.items():
        assert float(got[name]["measurement"]) == value and got[name]["units"] == unit, name
    assert set(got) == set(want) | set(run.measurements)
    assert [r["result"] for r in results(records, "mmubench-totals")] == ["pass"]
    assert results(records, "lava")[-1]["result"] == "pass", out


def monitor(mon, text):
    """A LAVA test monitor over a console text, as lava-dispatcher runs it
    (pexpect: after the start string, the earliest of end and pattern)."""
    pos = text.index(mon["start"]) + len(mon["start"])
    end, pat, found = re.compile(mon["end"]), re.compile(mon["pattern"]), []
    while True:
        e, m = end.search(text, pos), pat.search(text, pos)
        if e and (not m or e.start() <= m.start()):
            return found
        assert m, "monitor reached the end of the log"
        d = m.groupdict()
        d["result"] = mon["fixupdict"].get(d["result"], d["result"])
        found.append(d)
        pos = m.end()


def test_lava_walnut_monitors_match_a_ppc405_log():
    """The Walnut job's monitors (the same as the QEMU job's) against a
    ppc405 quick run captured now, with a failing and a skipped case."""
    with open(os.path.join(LAB, "lava", "walnut.yaml")) as f:
        mons = yaml.safe_load(f)["actions"][2]["test"]["monitors"]
    with open(os.path.join(LAB, "lava", "qemu-pc.yaml")) as f:
        assert yaml.safe_load(f)["actions"][2]["test"]["monitors"] == mons
    run = run_qemu("ref405ep", "quick", "probes=boot,demand,tlbwalk", "mmu_break=1", timeout=60)
    assert run.rc == 1, run.stderr      # mmu_break: the translated modes fail their self-check
    text = run.log.replace("\n", "\r\n")
    found = monitor(mons[0], text)
    res = {d["test_case_id"]: d["result"] for d in found if d["measurement"] is None}
    meas = {d["test_case_id"]: (float(d["measurement"]), d["units"]) for d in found
            if d["measurement"] is not None}
    want = {k: {"ok": "pass", "not ok": "fail", "skip": "skip"}[v] for k, v in run.results.items()}
    assert res == want and meas == run.measurements
    assert {"pass", "fail", "skip"} <= set(res.values()), res
    totals = monitor(mons[1], text)
    assert [d["result"] for d in totals] == ["fail"]
