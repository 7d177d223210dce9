"""The labgrid files in lab/labgrid/, run through labgrid's own pytest
plugin (`pytest --lg-env ENV.yaml lab/labgrid/test_mmubench.py`, as the
README says): QEMU pc + U-Boot (QEMUDriver with u-boot.rom, UBootDriver,
MmubenchStrategy typing DHCP, TFTP and source), QEMU ref405ep booting the
image itself or through the stand-in loader's bootm (selftest/shims), and
the Walnut environment (its target found as `main`, its
drivers bound; run with its serial port on a pty where QEMU's U-Boot
plays the board, and its power switch replaced by QMP commands)."""
import os
import re
import subprocess

import pytest

from conftest import TOP, parse
from netboot import CI_ARGS, make_netboot
from test_ppc405_boot import shim  # noqa: F401 (the stand-in loader, built once a module)

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


def test_labgrid_ref405ep_through_the_stand_in_loader(tmp_path, shim):
    """ref405ep.yaml with the repository's stand-in loader as QEMU's kernel
    playing a Walnut's U-Boot 1.x: bootm of mmubench.uimg (magic and CRCs
    checked, copied to its load address, bd_t in r3, bootargs in r6/r7)."""
    yaml = pytest.importorskip("yaml")
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=ref405ep", "all", "tools"], check=True,
                   capture_output=True, timeout=300)
    with open(os.path.join(LABGRID, "ref405ep.yaml")) as f:
        conf = yaml.safe_load(f)
    qemu = conf["targets"]["main"]["drivers"]["QEMUDriver"]
    assert qemu["boot_args"] == "quick exit=halt qemu=tcg"
    conf["images"]["loader"] = shim
    qemu["kernel"] = "loader"
    uimg = os.path.join(TOP, "build", "ref405ep", "mmubench.uimg")
    qemu["extra_args"] += f" -device loader,file={uimg},addr=0x2000000,force-raw=on"
    qemu["boot_args"] = "uboot1 bootm 0x2000000 quick probes=boot,tlbwalk exit=halt qemu=tcg"
    conf["imports"] = [os.path.join(LABGRID, "mmubench_strategy.py")]
    (tmp_path / "env.yaml").write_text(yaml.safe_dump(conf, sort_keys=False))
    p, log = labgrid_pytest(tmp_path / "env.yaml", tmp_path, {"LG_RUN_TIMEOUT": "90"}, 150)
    assert_passed(p, log)
    assert "## Booting kernel from Legacy Image at 0x2000000" in log, log
    assert "entered by bd_t in r3, command line in r6/r7" in log, log


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


QMP = """import json, socket, sys
# ExternalPowerDriver's power switch: QMP commands to the QEMU at argv[1].
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rw")
f.readline()                                   # the greeting
for cmd in ["qmp_capabilities"] + sys.argv[2:]:
    f.write(json.dumps({"execute": cmd}) + "\\n")
    f.flush()
    while True:                                # events (STOP, RESET) come between
        r = json.loads(f.readline())
        if "return" in r or "error" in r:
            break
    if "error" in r:
        sys.exit(f"{cmd}: {r['error']['desc']}")
"""


def test_labgrid_walnut_environment_runs_on_a_pty(tmp_path):
    """walnut.yaml through the plugin with the bench around it played here:
    its RawSerialPort on the pty of a QEMU pc with U-Boot (stopped, -S),
    its power switch an ExternalPowerDriver sending QMP stop+system_reset
    (off) and cont (on), its TFTPProvider's root the directory QEMU serves
    (files staged there by the strategy, from elsewhere).  The commands are
    the Walnut's (README: ipaddr and serverip set once; tftpboot, then the
    script) with today's U-Boot's source for 1.x's autoscr, and
    ${scriptaddr} for 0x100000, where the pc image itself goes."""
    yaml = pytest.importorskip("yaml")
    build = make_netboot(tmp_path / "build", f"{CI_ARGS} exit=return")
    root = tmp_path / "tftproot"
    root.mkdir()
    sock = tmp_path / "qmp.sock"
    (tmp_path / "qmp.py").write_text(QMP)
    q = subprocess.Popen(["qemu-system-i386", "-bios", "/usr/lib/u-boot/qemu-x86/u-boot.rom",
                          "-m", "256", "-vga", "none", "-display", "none", "-S",
                          "-qmp", f"unix:{sock},server=on,wait=off", "-monitor", "none",
                          "-chardev", "pty,id=s0", "-serial", "chardev:s0",
                          "-netdev", f"user,id=n0,tftp={root}", "-device", "e1000,netdev=n0"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        line = q.stdout.readline()
        m = re.search(r"char device redirected to (/dev/pts/\d+)", line)
        assert m, line
        with open(os.path.join(LABGRID, "walnut.yaml")) as f:
            conf = yaml.safe_load(f)
        main = conf["targets"]["main"]
        main["resources"]["RawSerialPort"]["port"] = m.group(1)
        del main["resources"]["NetworkPowerPort"]
        main["resources"]["TFTPProvider"]["internal"] = f"{root}/"
        # In place of the switch's driver: labgrid binds in the file's order.
        qmp = f"{PYTHON} {tmp_path}/qmp.py {sock}"
        power = {"cmd_on": f"{qmp} cont", "cmd_off": f"{qmp} stop system_reset", "delay": 1.0}
        main["drivers"] = drivers = {
            ("ExternalPowerDriver" if k == "NetworkPowerDriver" else k):
            (power if k == "NetworkPowerDriver" else v) for k, v in main["drivers"].items()}
        strategy = drivers["MmubenchStrategy"]
        assert [os.path.basename(f) for f in strategy["files"]] == \
            ["mmubench.uimg", "boot.scr.uimg"]
        strategy["files"] = [str(build / os.path.basename(f)) for f in strategy["files"]]
        assert strategy["boot_commands"] == ["tftpboot 0x100000 boot.scr.uimg", "autoscr 0x100000"]
        strategy["boot_commands"] = ["setenv ipaddr 10.0.2.15", "setenv serverip 10.0.2.2",
                                     "tftpboot ${scriptaddr} boot.scr.uimg",
                                     "source ${scriptaddr}"]
        conf["imports"] = [os.path.join(LABGRID, "mmubench_strategy.py")]
        (tmp_path / "walnut-here.yaml").write_text(yaml.safe_dump(conf, sort_keys=False))
        p, log = labgrid_pytest(tmp_path / "walnut-here.yaml", tmp_path,
                                {"LG_RUN_TIMEOUT": "60"}, 150)
    finally:
        q.kill()
        q.wait()
    assert_passed(p, log)
    assert sorted(os.listdir(root)) == ["boot.scr.uimg", "mmubench.uimg"]
    assert "=> tftpboot ${scriptaddr} boot.scr.uimg" in log and "Filename 'mmubench.uimg'" in log
    assert "entered by U-Boot go" in log, log
