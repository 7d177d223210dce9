"""The lab files in lab/: labgrid (the QEMU pc + U-Boot environment through
labgrid's pytest plugin and lab/labgrid/mmubench_strategy.py; the Walnut
environment loaded and bound) and LAVA (the jobs validated by
lava-dispatcher's own validation, the QEMU job run by lava-run, the test
monitors checked against the logs just captured)."""
import json
import os
import re
import subprocess

import pytest
import yaml

from conftest import LOGCHECK, TOP, parse, run_qemu
from netboot import CI_ARGS, make_netboot

LAB = os.path.join(TOP, "lab")
LAVA_RUN = os.path.join(LAB, "lava", "lava-run-local")
PYTHON = "/usr/bin/python3"


def need(module, package):
    p = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, timeout=60)
    if p.returncode:
        pytest.skip(f"{module} missing (Debian package {package})")


def test_labgrid_qemu_uboot(tmp_path):
    """labgrid's pytest plugin: QEMUDriver powers QEMU with u-boot.rom,
    UBootDriver stops autoboot, MmubenchStrategy types DHCP, the boot
    script's tftp and source; the image returns to U-Boot (exit=return)."""
    need("labgrid", "python3-labgrid")
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=return")
    env = dict(os.environ, LG_TFTP_ROOT=str(netdir), LG_LOG=str(tmp_path / "labgrid.log"),
               LG_RUN_TIMEOUT="60")
    p = subprocess.run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        "--lg-env", os.path.join(LAB, "labgrid", "qemu-pc.yaml"),
                        os.path.join(LAB, "labgrid", "test_mmubench.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout + p.stderr
    log = (tmp_path / "labgrid.log").read_text()
    assert "=> source ${scriptaddr}" in log and "entered by U-Boot go" in log, log
    run = parse(log)
    assert run.status() == "pass" and len(run.results) == run.planned() > 0, log



STALL_ONCE = """#!/bin/sh
# The first start boots a ROM that only loops (jmp $ at the reset vector), as
# u-boot.rom once stalled without a prompt; later starts are QEMU as asked.
if [ -e "$0.stalled" ]; then exec /usr/bin/qemu-system-i386 "$@"; fi
touch "$0.stalled"
n=$#; i=0; prev=
while [ $i -lt $n ]; do
    a=$1; shift
    if [ "$prev" = -bios ]; then set -- "$@" "$0.rom"; else set -- "$@" "$a"; fi
    prev=$a; i=$((i + 1))
done
exec /usr/bin/qemu-system-i386 "$@"
"""


def test_labgrid_power_cycles_once_where_uboot_gives_no_prompt(tmp_path):
    """MmubenchStrategy: where U-Boot gives no prompt, one power cycle, said
    on the console, and the run goes on (a second failure is the test's)."""
    need("labgrid", "python3-labgrid")
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=return")
    qemu = tmp_path / "qemu-stall-once"
    qemu.write_text(STALL_ONCE)
    qemu.chmod(0o755)
    (tmp_path / "qemu-stall-once.rom").write_bytes(bytes([0xEB, 0xFE]) * 32768)  # jmp $
    conf = open(os.path.join(LAB, "labgrid", "qemu-pc.yaml")).read()
    conf = conf.replace("/usr/bin/qemu-system-i386", str(qemu))
    conf = conf.replace("login_timeout: 60", "login_timeout: 10")
    conf = conf.replace("- mmubench_strategy.py",
                        "- " + os.path.join(LAB, "labgrid", "mmubench_strategy.py"))
    assert str(qemu) in conf and "login_timeout: 10" in conf
    (tmp_path / "env.yaml").write_text(conf)
    env = dict(os.environ, LG_TFTP_ROOT=str(netdir), LG_LOG=str(tmp_path / "labgrid.log"),
               LG_RUN_TIMEOUT="60")
    p = subprocess.run([PYTHON, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
                        "--lg-env", str(tmp_path / "env.yaml"),
                        os.path.join(LAB, "labgrid", "test_mmubench.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=150)
    assert (tmp_path / "qemu-stall-once.stalled").exists()
    assert "U-Boot gave no prompt" in p.stdout and "power-cycling once" in p.stdout, p.stdout
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout + p.stderr
    assert parse((tmp_path / "labgrid.log").read_text()).status() == "pass"

def test_labgrid_walnut_environment_binds():
    """No Walnut here: the environment loads, its drivers and the strategy
    bind to the serial port, power switch and TFTP provider."""
    need("labgrid", "python3-labgrid")
    code = f"""
from labgrid import Environment
env = Environment({os.path.join(LAB, 'labgrid', 'walnut.yaml')!r})
t = env.get_target('walnut')
s = t.get_driver('MmubenchStrategy', activate=False)
print(type(s.power).__name__, type(s.console).__name__, type(s.uboot).__name__,
      type(s.tftp).__name__, s.boot_commands)
"""
    p = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60, cwd=TOP)
    assert p.returncode == 0, p.stderr
    assert ("NetworkPowerDriver SerialDriver UBootDriver TFTPProviderDriver "
            "['tftpboot 0x100000 boot.scr.uimg', 'autoscr 0x100000']") in p.stdout, p.stdout


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
