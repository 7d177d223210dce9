"""tools/supervise with a stand-in image (a Python script printing the
banner and heartbeats on a schedule): a run gone silent stopped within the
limit its heartbeats derive, a slow but steady run kept (its ratio
measured), Ctrl-C / SIGTERM stopping the command's whole group at once, a
killed caller, the --limit cap, exit statuses and output passed through;
then tools/run-qemu on a real board, and Ctrl-C to run-qemu itself."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest

from conftest import RUN_QEMU, TOP

SUPERVISE = os.path.join(TOP, "tools", "supervise")
STOPPED = re.compile(r"supervise: no progress for ([\d.]+) s \(limit ([\d.]+) s: "
                     r"watchdog (\d+) ms x measured ratio ([\d.]+) \+ longest interval ([\d.]+) s")

# The stand-in: argv[1] is JSON {w, beats: [[host s before it, image ms it
# adds], ...], then: s of silence after, rc, pidfile, ignore_term, child}.
FAKE = r'''
import json, os, signal, subprocess, sys, time
spec = json.loads(sys.argv[1])
if spec.get("ignore_term"):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
pids = [os.getpid()]
if spec.get("child"):       # a process of its own in the group, as the sandbox's
    pids.append(subprocess.Popen(["sleep", "600"]).pid)
if spec.get("pidfile"):
    with open(spec["pidfile"] + ".new", "w") as f:
        f.write(" ".join(map(str, pids)))
    os.rename(spec["pidfile"] + ".new", spec["pidfile"])
print("KTAP version 1")
print("# run: 1 probe(s) x 1 mode(s), reps=1, exit=qemu, watchdog %d ms  @17:0badc0de"
      % spec["w"], flush=True)
t = 0
for n, (gap, dt) in enumerate(spec["beats"]):
    time.sleep(gap)
    t += dt
    print("# elapsed: %d ms  @%d:0badc0de" % (t, 18 + n), flush=True)
print("to stderr", file=sys.stderr, flush=True)
time.sleep(spec.get("then", 0))
sys.exit(spec.get("rc", 0))
'''


@pytest.fixture
def fake(tmp_path):
    path = tmp_path / "fake.py"
    path.write_text(FAKE)
    return lambda **spec: [sys.executable, str(path), json.dumps(spec)]


def supervise(args, timeout=60, **kw):
    t0 = time.monotonic()
    p = subprocess.run([SUPERVISE, *args], capture_output=True, text=True, timeout=timeout, **kw)
    return p, time.monotonic() - t0


def gone(pid):
    """pid no longer runs (or is a zombie on its way: init reaps it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_file(path, seconds=10):
    end = time.monotonic() + seconds
    while not os.path.exists(path):
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.02)
    with open(path) as f:
        return [int(x) for x in f.read().split()]


def test_silence_stopped_within_derived_limit(fake, tmp_path):
    """Heartbeats every 0.1 s for 100 image ms each (ratio ~1), W = 200 ms,
    then silence (--slack 2): stopped after (W x ratio + longest interval) x 4 + 2 s,
    status 124; the output
    and the log are the command's, unchanged."""
    log = tmp_path / "run.log"
    cmd = fake(w=200, beats=[[0.1, 100]] * 10, then=120)
    p, took = supervise(["--slack", "2", "--log", str(log), "--", *cmd])
    assert p.returncode == 124, (p.returncode, p.stderr)
    m = STOPPED.search(p.stderr)
    assert m, p.stderr
    silent, limit, w, ratio, longest = float(m[1]), float(m[2]), int(m[3]), float(m[4]), float(m[5])
    assert w == 200 and 0.9 <= ratio <= 5, p.stderr		# 0.1 s sleeps run long when busy
    assert 0.09 <= longest <= 0.5, p.stderr
    assert limit == pytest.approx((0.2 * ratio + longest) * 4 + 2, abs=0.06), p.stderr
    assert limit <= silent <= limit + 1, p.stderr
    # Start-up, ten heartbeats, the silence, SIGTERM (the stand-in goes at once).
    assert took <= 2 + 1 * ratio + limit + 1, (took, p.stderr)
    assert p.stdout.count("# elapsed: ") == 10 and "to stderr\n" in p.stdout, p.stdout
    assert log.read_text() == p.stdout


def test_slow_steady_run_kept(fake):
    """1 s of host time per 100 image ms (ratio 10), W = 200 ms, then 8 s
    silent before it ends (--slack 2): over the (0.2 + 1) x 4 + 2 = 6.8 s
    an assumed ratio of 1 would allow, under the measured 10's 14 s.  It
    ends on its own, status 0."""
    cmd = fake(w=200, beats=[[1.0, 100]] * 5, then=8, rc=0)
    p, took = supervise(["--slack", "2", "--", *cmd])
    assert p.returncode == 0, (p.returncode, p.stderr)
    assert p.stderr == "", p.stderr
    assert took >= 13, took


@pytest.mark.parametrize("sig,status", [(signal.SIGINT, 130), (signal.SIGTERM, 143),
                                        (signal.SIGHUP, 129)])
def test_signal_stops_the_group(fake, tmp_path, sig, status):
    """Ctrl-C (SIGINT to supervise's process group, not the command's),
    SIGTERM, SIGHUP: the command (which ignores SIGTERM) and its child gone,
    supervise out within 2 s with 128 + the signal."""
    pidfile = str(tmp_path / "pids")
    cmd = fake(w=60000, beats=[[0.1, 100]] * 3, then=600, pidfile=pidfile,
               ignore_term=True, child=True)
    proc = subprocess.Popen([SUPERVISE, "--", *cmd], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    pids = wait_file(pidfile)
    assert proc.stdout.readline().startswith(b"KTAP")
    assert all(os.getpgid(pid) != proc.pid for pid in pids)	# a group of its own
    t0 = time.monotonic()
    os.killpg(proc.pid, sig)
    proc.wait(timeout=10)
    took = time.monotonic() - t0
    assert proc.returncode == status, (proc.returncode, proc.stderr.read())
    assert took < 2, took
    time.sleep(0.2)		# the orphaned zombies reaped by init
    assert all(gone(pid) for pid in pids), [open(f"/proc/{p}/cmdline").read() for p in pids
                                             if not gone(p)]


def test_killed_caller_stops_the_command(fake, tmp_path):
    """The caller killed (SIGKILL, nothing it can trap): supervise takes it
    as SIGTERM and the command goes."""
    pidfile = str(tmp_path / "pids")
    cmd = fake(w=60000, beats=[], then=600, pidfile=pidfile)
    caller = subprocess.Popen(["bash", "-c", '"$@" & wait', "caller", SUPERVISE,
                               "--", *cmd], stdout=subprocess.DEVNULL, start_new_session=True)
    pids = wait_file(pidfile)
    caller.kill()
    caller.wait()
    end = time.monotonic() + 3
    while not all(gone(pid) for pid in pids) and time.monotonic() < end:
        time.sleep(0.05)
    assert all(gone(pid) for pid in pids)


def test_limit_caps_the_run(fake):
    """--limit: the whole run capped however steady its heartbeats."""
    cmd = fake(w=200, beats=[[0.1, 100]] * 600)
    p, took = supervise(["--limit", "1.5", "--", *cmd])
    assert p.returncode == 124, (p.returncode, p.stderr)
    assert "supervise: timed out after 1.5 s (--limit): stopped" in p.stderr, p.stderr
    assert 1.5 <= took < 3, took


def test_exit_status_passed_through(fake):
    for rc in (0, 1, 3):
        p, _ = supervise(["--", *fake(w=200, beats=[[0, 1]], rc=rc)])
        assert p.returncode == rc, (rc, p.returncode, p.stderr)
        assert p.stderr == ""
    p, _ = supervise(["--", "sh", "-c", "kill -USR1 $$"])
    assert p.returncode == 128 + signal.SIGUSR1
    p, _ = supervise(["--", "/nonexistent/qemu"])
    assert p.returncode == 127 and "/nonexistent/qemu" in p.stderr
    p, _ = supervise(["--limit", "soon", "--", "true"])
    assert p.returncode == 125 and "usage" in p.stderr


def qemu_board(board):
    exe = "qemu-system-ppc"
    if not shutil.which(exe):
        pytest.skip(f"{exe} is not installed")
    if board == "ref405ep":
        machines = subprocess.run([exe, "-M", "help"], capture_output=True, text=True).stdout
        if not re.search(r"^ref405ep ", machines, re.M):
            pytest.skip("this QEMU has no ref405ep machine")


def test_run_qemu_passes(tmp_path):
    """A real board through run-qemu (supervise under it): a quick run
    passes, its log the console's, heartbeats (where the image has them)
    in it."""
    qemu_board("ppce500")
    log = tmp_path / "ppce500.log"
    p = subprocess.run([RUN_QEMU, "ppce500", "--icount", "--timeout", "120", "--log", str(log),
                        "probes=cpu", "modes=normal", "reps=1", "quick"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert "# mmubench status: pass" in p.stdout
    text = log.read_text(errors="replace")
    assert "# mmubench status: pass" in text
    if "# elapsed: " in text:		# the image's heartbeats
        assert re.search(r"^# run: .*watchdog \d+ ms", text, re.M), text[:2000]
    assert "supervise:" not in p.stderr, p.stderr


def processes(marker):
    """The command lines holding marker (QEMU, supervise, run-qemu)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode(errors="replace")
            if marker in cmdline and not gone(pid):
                found.append(cmdline)
        except OSError:		# gone meanwhile
            pass
    return found


def test_run_qemu_ctrl_c(tmp_path):
    """Ctrl-C to run-qemu's process group mid-run: out within 2 s with 130,
    no QEMU (marked with a unique -name) or supervise left."""
    qemu_board("ref405ep")
    marker = f"supervise-test-{uuid.uuid4()}"
    log = tmp_path / "ref405ep.log"
    proc = subprocess.Popen([RUN_QEMU, "ref405ep", "--icount", "--timeout", "300", "--log",
                             str(log), "--qemu", "-name", "--qemu", marker, "reps=1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    end = time.monotonic() + 600		# the build first, under the shared lock
    while not (log.exists() and "# run:" in log.read_text(errors="replace")):
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < end, "no banner"
        time.sleep(0.1)
    assert any("qemu-system-ppc" in c for c in processes(marker)), "no QEMU by its -name"
    t0 = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    proc.wait(timeout=30)
    took = time.monotonic() - t0
    assert proc.returncode == 130, (proc.returncode, proc.stderr.read())
    assert took < 2, took
    assert processes(marker) == []
