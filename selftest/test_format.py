"""The foundation on both architectures: boot, banner, KTAP, measurements,
Totals and status; bad boot arguments; the log integrity check."""
import os
import subprocess

import pytest

from conftest import LOGCHECK, run_qemu

BOARDS = ["ref405ep", "pc"]


def assert_complete_pass(run, board):
    assert run.rc == 0, f"run-qemu exit {run.rc}\n{run.stderr}\n{run.log}"
    assert "KTAP version 1" in run.log
    assert any(l.startswith("# mmubench ") and f" on {board} " in l for l in run.lines)
    assert any(l.startswith("# cpu: ") for l in run.lines)
    assert any(l.startswith("# ram: ") for l in run.lines)
    assert "# measurements begin" in run.lines and "# measurements end" in run.lines
    assert any(l.startswith("# Totals: pass:") and "fail:0" in l for l in run.lines)
    assert run.status() == "pass"
    assert "logcheck: intact" in run.stderr


@pytest.mark.parametrize("board", BOARDS)
def test_boot_probe_passes(board):
    run = run_qemu(board, "probes=boot", timeout=60)
    assert_complete_pass(run, board)
    mode = "real" if board == "ref405ep" else "flat"
    assert run.results[f"boot.{mode}"] == "ok"
    assert run.value(f"boot.{mode}.timer_advance_ticks") > 0
    assert run.value(f"boot.{mode}.heap_kib") > 0
    assert 0 < run.value(f"boot.{mode}.stack_used_bytes") < run.value(f"boot.{mode}.stack_kib") * 1024
    # The table for people has a row for this board and mode.
    assert any(l.startswith(f"{board:9} {mode:9}") for l in run.log.splitlines())


BAD_ARGS = [
    (["bogus=1"], "unknown boot argument 'bogus=1'"),
    (["reps=0"], "out of range 1..1000"),
    (["reps=lots"], "'reps=lots': not a number"),
    (["probes=nosuch"], "unknown probe 'nosuch'"),
    (["modes=nosuch"], "unknown mode 'nosuch'"),
    (["exit=later"], "'exit=later': not a valid choice"),
    (["quick=yes"], "takes no value"),
    (["probes="], "needs a comma-separated list"),
]


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("args,message", BAD_ARGS, ids=[a[0][0] for a in BAD_ARGS])
def test_bad_boot_argument_fails_clearly(board, args, message):
    run = run_qemu(board, *args, timeout=30)
    assert message in run.log, run.log
    assert run.status() == "fail"
    assert run.rc == 1, f"run-qemu exit {run.rc}: {run.stderr}"


@pytest.fixture(scope="module")
def good_log():
    run = run_qemu("ref405ep", "probes=boot", timeout=60)
    assert run.rc == 0, run.log
    return run.log.splitlines(keepends=True)


def logcheck(tmp_path, lines):
    path = tmp_path / "log"
    path.write_text("".join(lines))
    return subprocess.run([LOGCHECK, str(path)], capture_output=True, text=True, timeout=30)


def index_of(lines, prefix):
    return next(i for i, l in enumerate(lines) if l.startswith(prefix))


def test_intact_log_passes_the_check(tmp_path, good_log):
    p = logcheck(tmp_path, good_log)
    assert p.returncode == 0, p.stderr
    assert "intact" in p.stderr


@pytest.mark.parametrize("where", ["1..", "# cpu:", "# measurement boot.real.timer_read_ticks",
                                   "ok 1 ", "# Totals:"])
def test_dropped_line_is_detected(tmp_path, good_log, where):
    lines = list(good_log)
    del lines[index_of(lines, where)]
    p = logcheck(tmp_path, lines)
    assert p.returncode == 2, p.stderr
    assert "NOT INTACT" in p.stderr or "lost" in p.stderr


@pytest.mark.parametrize("where", ["# measurement boot.real.timer_read_ticks", "ok 1 ",
                                   "# ram:", "Host "])
def test_flipped_byte_is_detected(tmp_path, good_log, where):
    lines = list(good_log)
    i = index_of(lines, where)
    line = lines[i]
    # Flip one bit of a digit or letter in the middle of the visible text.
    pos = len(line) // 3
    lines[i] = line[:pos] + chr(ord(line[pos]) ^ 0x01) + line[pos + 1:]
    p = logcheck(tmp_path, lines)
    assert p.returncode == 2, p.stderr
    assert "garbled" in p.stderr or "mismatch" in p.stderr


def test_dropped_table_line_is_detected(tmp_path, good_log):
    lines = list(good_log)
    del lines[index_of(lines, "Host ")]
    p = logcheck(tmp_path, lines)
    assert p.returncode == 2
    assert "table lines lost" in p.stderr


def test_truncated_log_is_detected(tmp_path, good_log):
    lines = good_log[: index_of(good_log, "# Totals:")]
    p = logcheck(tmp_path, lines)
    assert p.returncode == 2
    assert "truncated" in p.stderr


def test_log_without_ktap_is_detected(tmp_path):
    p = logcheck(tmp_path, ["U-Boot 2023.01\n", "nothing here\n"])
    assert p.returncode == 2
    assert "no 'KTAP version 1'" in p.stderr


@pytest.mark.parametrize("board,arch,load", [("walnut", "PowerPC", "00400000"),
                                             ("ref405ep", "PowerPC", "00400000"),
                                             ("pc", "Intel x86", "00100000")])
def test_images_for_every_board(board, arch, load):
    out = os.path.join(os.path.dirname(LOGCHECK), "..", board)
    for name in ("mmubench.elf", "mmubench.bin", "mmubench.uimg"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    info = subprocess.run(["mkimage", "-l", os.path.join(out, "mmubench.uimg")],
                          capture_output=True, text=True, timeout=30).stdout
    assert f"Image Type:   {arch} Linux Kernel Image (uncompressed)" in info
    assert f"Load Address: {load}" in info and f"Entry Point:  {load}" in info
    # The uImage carries exactly the raw image U-Boot's go would run.
    size = os.path.getsize(os.path.join(out, "mmubench.bin"))
    assert f"Data Size:    {size} Bytes" in info


@pytest.mark.parametrize("board,mode", [("ref405ep", "real"), ("pc", "flat")])
def test_exit_halt_prints_the_status_then_stops(board, mode):
    """exit=halt is for real boards: the status line comes out, then the CPU
    stops for good, so QEMU keeps running until run-qemu's timeout."""
    run = run_qemu(board, "probes=boot", f"modes={mode}", "exit=halt", timeout=8)
    assert run.status() == "pass", run.log
    assert run.rc == 124, f"run-qemu exit {run.rc}: {run.stderr}"
    assert "timed out after 8 s" in run.stderr


def test_quick_makes_the_fault_probe_small():
    run = run_qemu("ref405ep", "probes=demand", "modes=normal", "quick", timeout=60)
    assert run.rc == 0, run.log
    assert run.value("demand.normal.page_faults_counted") == 16
    run = run_qemu("ref405ep", "probes=demand", "modes=normal", "quick", "fault_pages=20", timeout=60)
    assert run.value("demand.normal.page_faults_counted") == 20


def test_ref405ep_icount_runs_are_identical():
    """-icount shift=0,sleep=off: two runs of the quick suite print the same
    result and measurement lines, byte for byte (sleep=on lets virtual time
    follow the host while idle, and a timebase read then differs by a tick)."""
    runs = [run_qemu("ref405ep", "quick", timeout=90) for _ in range(2)]
    for run in runs:
        assert run.rc == 0 and run.status() == "pass", run.log
    lines = [[l for l in r.lines if not l.startswith("# mmubench ")] for r in runs]
    assert len(lines[0]) > 100
    assert lines[0] == lines[1]
