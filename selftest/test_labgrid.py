"""The labgrid files in lab/labgrid/, run through labgrid's own pytest
plugin (`pytest --lg-env ENV.yaml lab/labgrid/test_mmubench.py`, as the
README says): QEMU pc + U-Boot (QEMUDriver with u-boot.rom, UBootDriver,
MmubenchStrategy typing DHCP, TFTP and source), QEMU ref405ep booting the
image itself, and the Walnut environment (its target found as `main`, its
drivers bound; run with its serial port on a pty where QEMU's U-Boot
plays the board, and its power switch replaced by QMP commands)."""
import os
import re
import subprocess

import pytest

from conftest import TOP, parse
from netboot import CI_ARGS, make_netboot

LABGRID = os.path.join(TOP, "lab", "labgrid")
TEST = os.path.join(LABGRID, "test_mmubench.py")
PYTHON = "/usr/bin/python3"


@pytest.fixture(autouse=True)
def need_labgrid():
    p = subprocess.run([PYTHON, "-c", "import labgrid"], capture_output=True, timeout=60)
    if p.returncode:
        pytest.skip("labgrid missing (Debian package python3-labgrid)")


def labgrid_pytest(env_file, tmp_path, env_vars, timeout):
    """labgrid's pytest plugin on test_mmubench.py; returns the process and
    the console log the test captured."""
    env = dict(os.environ, LG_LOG=str(tmp_path / "labgrid.log"), **env_vars)
    p = subprocess.run([PYTHON, "-m", "pytest", "-v", "-s", "-p", "no:cacheprovider",
                        "--lg-env", str(env_file), TEST],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)
    print(p.stdout)     # labgrid's own lines, for pytest -s
    log = tmp_path / "labgrid.log"
    return p, log.read_text() if log.exists() else ""


def assert_passed(p, log):
    assert p.returncode == 0 and "1 passed" in p.stdout, p.stdout + p.stderr
    run = parse(log)
    assert run.status() == "pass" and len(run.results) == run.planned() > 0, log
    return run


def test_labgrid_qemu_uboot(tmp_path):
    """QEMUDriver powers QEMU with u-boot.rom, UBootDriver stops autoboot,
    MmubenchStrategy types DHCP, the boot script's tftp and source; the
    image returns to U-Boot (exit=return) and QEMUDriver quits QEMU."""
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=return")
    p, log = labgrid_pytest(os.path.join(LABGRID, "qemu-pc.yaml"), tmp_path,
                            {"LG_TFTP_ROOT": str(netdir), "LG_RUN_TIMEOUT": "60"}, 120)
    assert_passed(p, log)
    assert "test_mmubench.py::test_mmubench PASSED" in p.stdout, p.stdout
    assert "=> setenv autoload no" in log and "=> source ${scriptaddr}" in log, log
    assert "entered by U-Boot go" in log, log


def test_labgrid_ref405ep(tmp_path):
    """ref405ep.yaml as it is: QEMU -M ref405ep boots mmubench.elf with
    -kernel (no U-Boot: the strategy powers on and reads to the status
    line), exit=halt, QEMUDriver quits QEMU."""
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=ref405ep", "all", "tools"], check=True,
                   capture_output=True, timeout=300)
    p, log = labgrid_pytest(os.path.join(LABGRID, "ref405ep.yaml"), tmp_path,
                            {"LG_RUN_TIMEOUT": "90"}, 150)
    run = assert_passed(p, log)
    assert "test_mmubench.py::test_mmubench PASSED" in p.stdout, p.stdout
    assert re.search(r"^# .*405EP", log, re.M), log
    assert "quick" in log and run.planned() == len(run.results)


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
    netdir = make_netboot(tmp_path / "tftp", f"{CI_ARGS} exit=return")
    qemu = tmp_path / "qemu-stall-once"
    qemu.write_text(STALL_ONCE)
    qemu.chmod(0o755)
    (tmp_path / "qemu-stall-once.rom").write_bytes(bytes([0xEB, 0xFE]) * 32768)  # jmp $
    conf = open(os.path.join(LABGRID, "qemu-pc.yaml")).read()
    conf = conf.replace("/usr/bin/qemu-system-i386", str(qemu))
    conf = conf.replace("login_timeout: 60", "login_timeout: 10")
    conf = conf.replace("- mmubench_strategy.py",
                        "- " + os.path.join(LABGRID, "mmubench_strategy.py"))
    assert str(qemu) in conf and "login_timeout: 10" in conf
    (tmp_path / "env.yaml").write_text(conf)
    p, log = labgrid_pytest(tmp_path / "env.yaml", tmp_path,
                            {"LG_TFTP_ROOT": str(netdir), "LG_RUN_TIMEOUT": "60"}, 150)
    assert (tmp_path / "qemu-stall-once.stalled").exists()
    assert "U-Boot gave no prompt" in p.stdout and "power-cycling once" in p.stdout, p.stdout
    assert_passed(p, log)


def test_labgrid_walnut_environment_binds():
    """No Walnut here: the environment loads, its one target is `main` (what
    labgrid's `target` fixture takes), and its drivers and the strategy bind
    to the serial port, power switch and TFTP provider."""
    code = f"""
from labgrid import Environment
env = Environment({os.path.join(LABGRID, 'walnut.yaml')!r})
t = env.get_target()
s = t.get_driver('MmubenchStrategy', activate=False)
print(list(env.config.get_targets()), type(s.power).__name__, type(s.console).__name__,
      type(s.uboot).__name__, type(s.tftp).__name__, s.boot_commands)
"""
    p = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=60, cwd=TOP)
    assert p.returncode == 0, p.stderr
    assert ("['main'] NetworkPowerDriver SerialDriver UBootDriver TFTPProviderDriver "
            "['tftpboot 0x100000 boot.scr.uimg', 'autoscr 0x100000']") in p.stdout, p.stdout
