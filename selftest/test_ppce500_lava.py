"""LAVA for ppce500 (lab/lava/qemu-ppce500-uboot.yaml, device type
qemu-ppce500-uboot from lava-server's base-uboot.jinja2): the dictionary
rendered and valid, the job validated, and lava-run driving QEMU's
ppce500 with Debian's qemu-ppce500 U-Boot end to end: autoboot stopped,
DHCP, tftpboot, bootm with U-Boot's device tree, one LAVA case per KTAP
result."""
import os

import pytest

from conftest import TOP
from test_lava import (LAVA, job_file, lava_run, need, qmp_dir, render, results,  # noqa: F401
                       run_uboot_job, templates)

UBOOT = "/usr/lib/u-boot/qemu-ppce500/uboot.elf"
QUICK = "quick probes=boot,demand,tlbwalk modes=real,normal qemu=tcg"
JOB = "qemu-ppce500-uboot.yaml"


def device(tmp_path, qmp_dir):
    return render("qemu-ppce500-uboot-01.jinja2", tmp_path / "device.yaml",
                  tftp_root=tmp_path / "tftp", qmp_socket=os.path.join(qmp_dir, "qmp"),
                  qemu_qmp=os.path.join(LAVA, "qemu-qmp"))


def uimg():
    path = os.path.join(TOP, "build", "ppce500", "mmubench.uimg")
    if not os.path.exists(path):
        pytest.skip(f"{path} not built (make BOARD=ppce500)")
    return "file://" + path


def test_device_and_job_validate(templates, tmp_path, qmp_dir):
    d = device(tmp_path, qmp_dir)
    assert d["actions"]["deploy"]["parameters"]["mkimage_arch"] == "powerpc"
    assert d["parameters"]["bootm"]["kernel"] == "0x02000000"
    assert "-M ppce500 -cpu e500v2" in d["commands"]["connect"]
    need("lava_dispatcher", "lava-dispatcher")
    rc, _, records, err = lava_run(tmp_path, job_file(tmp_path, JOB, uimg()),
                                   tmp_path / "device.yaml", validate=True)
    assert rc == 0, err
    assert {"case": "validate", "definition": "lava", "result": "pass"} in results(records), err


def test_lava_run_bootm_job(templates, tmp_path, qmp_dir):
    need("lava_dispatcher", "lava-dispatcher")
    if not os.path.exists(UBOOT):
        pytest.skip(f"{UBOOT} missing (Debian package u-boot-qemu)")
    device(tmp_path, qmp_dir)
    run_uboot_job(tmp_path, JOB, uimg(), QUICK, ["bootm 0x02000000 - ${fdtcontroladdr}"],
                  ("Hit any key to stop autoboot", "DHCP client bound to address",
                   "Verifying Checksum ... OK", "Booting using the fdt blob",
                   "entered by ePAPR: r3 = device tree"))
