"""LAVA for ppce500 (lab/lava/qemu-ppce500-uboot.yaml, device type
qemu-ppce500-uboot from lava-server's base-uboot.jinja2): the dictionary
rendered and valid, the job validated, and lava-run driving QEMU's
ppce500 with Debian's qemu-ppce500 U-Boot end to end, by doc/ppce500.md's
recipe: autoboot stopped, DHCP, tftpboot, bootm with U-Boot's device tree,
one LAVA case per KTAP result and per figure; and an aborted run (a bad
boot argument), a failing case with its reason."""
import os

import pytest
import yaml

from conftest import TOP
from test_lava import (COUNT_UNITS, LAVA, SPAWN_MAXREAD, check_uboot_job,  # noqa: F401
                       doc_recipe, job_file, lava_run, need, qmp_dir, render, results,
                       run_recipe, run_uboot_job, templates)

UBOOT = "/usr/lib/u-boot/qemu-ppce500/uboot.elf"
QUICK = "quick probes=boot,demand,tlbwalk modes=real,normal qemu=tcg"
JOB = "qemu-ppce500-uboot.yaml"
BOOT = ["bootm 0x02000000 - ${fdtcontroladdr}"]
SEEN = ("Hit any key to stop autoboot", "DHCP client bound to address",
        "Verifying Checksum ... OK", "Booting using the fdt blob")


def device(tmp_path, qmp_dir):
    return render("qemu-ppce500-uboot-01.jinja2", tmp_path / "device.yaml",
                  tftp_root=tmp_path / "tftp", qmp_socket=os.path.join(qmp_dir, "qmp"),
                  qemu_qmp=os.path.join(LAVA, "qemu-qmp"))


def uimg():
    path = os.path.join(TOP, "build", "ppce500", "mmubench.uimg")
    if not os.path.exists(path):
        pytest.skip(f"{path} not built (make BOARD=ppce500)")
    return "file://" + path


def need_uboot():
    need("lava_dispatcher", "lava-dispatcher")
    if not os.path.exists(UBOOT):
        pytest.skip(f"{UBOOT} missing (Debian package u-boot-qemu)")


def test_device_and_job_validate(templates, tmp_path, qmp_dir):
    d = device(tmp_path, qmp_dir)
    assert d["actions"]["deploy"]["parameters"]["mkimage_arch"] == "powerpc"
    assert d["parameters"]["bootm"]["kernel"] == "0x02000000"
    assert "-M ppce500 -cpu e500v2" in d["commands"]["connect"]
    assert d["constants"]["spawn_maxread"] == str(SPAWN_MAXREAD)
    need("lava_dispatcher", "lava-dispatcher")
    rc, _, records, err = lava_run(tmp_path, job_file(tmp_path, JOB, uimg()),
                                   tmp_path / "device.yaml", validate=True)
    assert rc == 0, err
    assert {"case": "validate", "definition": "lava", "result": "pass"} in results(records), err
    # The job's timeout holds its actions' (lava-run warns otherwise).
    assert "exceeds Job timeout" not in err, err


def test_lava_run_bootm_job_by_the_docs_recipe(templates, qmp_dir):
    """doc/ppce500.md's recipe as written, but for its two settings: W (a
    short temporary directory) and the boot arguments (a few probes); make
    under the build's lock.  The job passes, the figures are in LAVA's
    results (measurement and units), mmureport reads lava-run's log, and
    the last command prints the results."""
    need_uboot()
    uimg()
    out, lines, records, err = run_recipe(
        doc_recipe("ppce500.md", "## QEMU and Debian's U-Boot under LAVA"), qmp_dir,
        QUICK + " exit=halt")
    log = check_uboot_job(records, QUICK, BOOT, SEEN + ("entered by ePAPR: r3 = device tree",))
    figs = {c["extra"]["test_case_id"]: c for c in results(records, "mmubench") if c["units"]}
    miss = figs["tlbwalk.normal.dtlb_misses_per_pass"]
    assert miss == {"definition": "mmubench", "case": "tlbwalk_normal_dtlb_misses_per_pass",
                    "level": miss["level"], "result": "pass", "measurement": "0",
                    "units": "count",
                    "extra": {"test_case_id": "tlbwalk.normal.dtlb_misses_per_pass"}}, miss
    # TCG: no host time, rate or spread as a LAVA figure.
    assert "boot.real.tick_mhz" not in figs and {c["units"] for c in figs.values()} <= set(COUNT_UNITS)
    # mmureport on lava-run's log: the tables (counts; no time: TCG).
    assert "Software-loaded TLB (tlbwalk) - exact counts" in out, out
    # The recipe's last command: the results, the job's last.
    assert out.rstrip().endswith("{'case': 'job', 'definition': 'lava', 'result': 'pass'}"), out
    assert "'test_case_id': 'tlbwalk.normal.dtlb_misses_per_pass'" in out, out
    assert "# measurement tlbwalk.normal.dtlb_misses_per_pass 0 count" in log


def test_lava_run_aborted_job(templates, tmp_path, qmp_dir):
    """A bad boot argument (reps=0): the image aborts before any
    measurement.  The job still ends cleanly; in suite mmubench a failing
    case named by the reason ("# run aborted: bad boot arguments") and the
    failing run.none; the Totals fail; the argument's own error is in the
    log, before KTAP."""
    need_uboot()
    device(tmp_path, qmp_dir)
    log, lines, _ = run_uboot_job(tmp_path, JOB, uimg(), "reps=0 qemu=tcg", BOOT, SEEN,
                                  status="fail")
    assert "mmubench: error: boot argument 'reps=0': out of range" in log, log
    records = yaml.safe_load("\n".join("- " + l for l in lines))
    cases = [{k: c[k] for k in ("case", "result", "measurement", "units", "extra")}
             for c in results(records, "mmubench")]
    assert cases == [
        {"case": "run_aborted_bad_boot_arguments", "result": "fail", "measurement": None,
         "units": "", "extra": {"test_case_id": "run aborted: bad boot arguments"}},
        {"case": "run_none", "result": "fail", "measurement": None, "units": "",
         "extra": {"test_case_id": "run.none"}}], cases
