"""Issue 32's scheduler, pipes and signals (boot/sched.c) on the boards:
the ctx (lat_ctx), pipe (lat_pipe) and signal (lat_sig) probes in every
mode under -icount, their exact kernel-page TLB misses where the layout
gives them, and the bad inputs, each a clear failing result, never a hang.

Where kernel pages lie on the 405 (test_proc_ppc405.py): the image, its
stack, heap and .bss below 32 MiB, under mode pinned's two 16 MiB entries;
the processes' frame pool, and with it every pipe's page (boot/sched.c
takes them from proc_mem.c), at the top of RAM, above the pins.  A ring
round of n processes with K KiB each touches per process its text page,
its stack page (the prog, the stack), its K/4 data pages and the pipe it
reads: n * (3 + K/4) pages besides the kernel's pinned ones.  With more
than the 62 unpinned slots, round robin has replaced every one of them
by the time a process runs again, so in mode pinned each round misses
each pipe page once (the writer touches it, the reader right after it
finds it) and no kernel code (ITLB 0); with 62 or fewer nothing misses.
"""
import subprocess

import pytest

from conftest import TOP, assert_icount_runs, elf_symbols, run_qemu

PROBES = ("pipe", "ctx", "signal")
COLUMNS = ((2, 0), (2, 16), (2, 64), (8, 16), (8, 64), (16, 16), (16, 64))
ARGS = ("probes=pipe,ctx,signal", "modes=all", "reps=1")
PIN_END = 32 << 20
UNPINNED = 62           # the 405's 64 slots less pins=2


@pytest.fixture(scope="module")
def runs405():
    return [run_qemu("ref405ep", *ARGS, timeout=300) for _ in range(2)]


def kmiss(run, probe, mode, prefix):
    return (run.value(f"{probe}.{mode}.{prefix}_kernel_dtlb_misses"),
            run.value(f"{probe}.{mode}.{prefix}_kernel_itlb_misses"))


def test_405_runs_pass_alike(runs405):
    assert_icount_runs(runs405, PROBES, ("real", "normal", "pinned", "largepte"), "tlb")


def test_405_kernel_below_the_pins():
    """The premise of the pinned counts: every kernel symbol the calls
    use lies below the pins (the pipes' pages come from the top of RAM)."""
    addrs = {n: a for n, (a, _) in elf_symbols(f"{TOP}/build/ref405ep/mmubench.elf").items()}
    for sym in ("user_syscall", "schedule", "tasks", "pipes", "run", "user_regs_save",
                "ppc405_user_syscall", "__bss_end"):
        match = [a for n, a in addrs.items() if n == sym or n.startswith(sym + ".")]
        assert match and max(match) < PIN_END, sym


def test_405_ctx_pinned_misses_exactly_the_pipes(runs405):
    run = runs405[0]
    for n, k in COLUMNS:
        pages = n * (3 + k // 4)
        want = (n if pages > UNPINNED else 0, 0)
        assert kmiss(run, "ctx", "pinned", f"{n}p_{k}k_round") == want, (n, k, run.log)


def test_405_ctx_rings_that_fit_miss_nothing(runs405):
    """2p rings: at most 2 * (3 + 16) = 38 user pages a round, which the
    TLB holds with the kernel's pages where those are pinned or large: no
    miss at all in a round.  In normal the kernel's 4K pages share the 64
    slots, so at 64K whether a round misses depends on how many the calls
    touch (2 data misses a round after issue 32's file mappings moved the
    heap), which the test does not derive yet; up to 16K it all fits."""
    run = runs405[0]
    for mode in ("normal", "pinned", "largepte"):
        for k in (0, 16, 64) if mode != "normal" else (0, 16):
            assert kmiss(run, "ctx", mode, f"2p_{k}k_round") == (0, 0), (mode, k)
            assert run.value(f"ctx.{mode}.2p_{k}k_round_dtlb_misses") == 0
        assert kmiss(run, "pipe", mode, "pipe_round") == (0, 0)


def test_405_ctx_order_and_switch_cost(runs405):
    """Beyond the TLB's reach, the unpinned kernel misses most and pays
    for it; the figures grow with the ring's pages."""
    run = runs405[0]
    for n, k in ((8, 64), (16, 16), (16, 64)):
        c = f"{n}p_{k}k"
        total = {m: sum(kmiss(run, "ctx", m, c + "_round")) for m in ("normal", "pinned", "largepte")}
        assert total["normal"] > total["pinned"] and total["normal"] > total["largepte"], (c, total)
        assert run.value(f"ctx.normal.{c}_ns") > run.value(f"ctx.pinned.{c}_ns"), c
    for m in ("real", "normal", "pinned", "largepte"):
        assert 0 < run.value(f"ctx.{m}.2p_0k_ns") < run.value(f"ctx.{m}.16p_64k_ns")
        assert run.value(f"pipe.{m}.pipe_ns") > 2 * run.value(f"ctx.{m}.2p_0k_ns")


def test_405_signal_counts(runs405):
    """catch takes no fault; prot's signal is one protection fault, the
    store's, which no hook handles (no copy-on-write there)."""
    run = runs405[0]
    for mode in ("normal", "pinned", "largepte"):
        assert run.value(f"signal.{mode}.catch_op_prot_faults") == 0
        assert run.value(f"signal.{mode}.prot_op_prot_faults") == 1
        assert run.value(f"signal.{mode}.prot_op_page_faults") == 0
        assert kmiss(run, "signal", mode, "catch_op") == (0, 0)
        assert kmiss(run, "signal", mode, "prot_op") == (0, 0)
        assert run.value(f"signal.{mode}.prot_ns") > 0
    assert run.value("signal.real.catch_ns") > 0
    assert "signal.real.prot_ns" not in run.measurements


@pytest.mark.parametrize("bad,says", [
    ("eof", "pipe_bad=eof: the read of a pipe with no writer gave EOF (0)"),
    ("nohandler", "error: signal 10 to a process with no handler: the default action ends it"),
    ("sigreturn", "error: sigreturn: a bad signal frame at 0xc03fffc0"),
    ("deadlock", "error: scheduler: deadlock: 2 of 2 processes blocked in a pipe, none runnable"),
])
def test_405_bad_input_fails_clearly(bad, says):
    run = run_qemu("ref405ep", "probes=pipe,signal", "modes=normal", "reps=1", f"pipe_bad={bad}",
                   timeout=60)
    text = "\n".join(run.lines)
    assert run.results.get("pipe.normal") == "not ok", text
    assert says in text, text
    assert run.results.get("signal.normal") == "ok", text    # the kernel goes on
    if bad == "sigreturn":
        assert "user context: PC 0xc" in text and "r0  0x00000006" in text, text


def test_405_spinning_process_is_cut_by_the_watchdog():
    run = run_qemu("ref405ep", "probes=pipe,signal", "modes=normal", "reps=1", "pipe_bad=spin",
                   "watchdog=2000", timeout=60)
    text = "\n".join(run.lines)
    assert "# TIMEOUT" in text and "stopped by the watchdog" in text, text
    assert "processes: a run was cut short (watchdog)" in text, text
    assert run.results.get("signal.normal") == "ok", text


def test_e500_every_mode():
    runs = [run_qemu("ppce500", *ARGS, "quick", timeout=300) for _ in range(2)]
    assert_icount_runs(runs, PROBES, ("real", "normal", "pinned", "largepte"), "tlb")
    run = runs[0]
    for mode in ("normal", "pinned", "largepte"):
        assert kmiss(run, "ctx", mode, "2p_0k_round") == (0, 0)
        assert run.value(f"signal.{mode}.prot_op_prot_faults") == 1
    assert sum(kmiss(run, "ctx", "normal", "16p_64k_round")) > \
        sum(kmiss(run, "ctx", "pinned", "16p_64k_round"))


@pytest.mark.parametrize("glob", ["0", "1"])
def test_pc_every_mode(glob):
    run = run_qemu("pc", *ARGS, "quick", f"global={glob}", timeout=400)
    assert run.status() == "pass", run.log
    for p in PROBES:
        for m in ("flat", "2level", "pse", "pae", "pae2m"):
            assert run.results.get(f"{p}.{m}") == "ok", (p, m, run.log)
    assert "signal.flat.prot_ns" not in run.measurements


def test_pc_bad_sigreturn_dumps_ring3():
    run = run_qemu("pc", "probes=pipe,signal", "modes=2level", "reps=1", "pipe_bad=sigreturn",
                   timeout=120)
    text = "\n".join(run.lines)
    assert run.results.get("pipe.2level") == "not ok", text
    assert "error: sigreturn: a bad signal frame at 0xc03fffc0" in text, text
    assert "# exception: system call (int $0x80) (vector 128) at EIP 0xc" in text, text
    assert "(from ring 3)" in text and "EAX 0x00000006" in text, text     # the call: sigreturn
    assert run.results.get("signal.2level") == "ok", text


def lmbench_rows(run, tmp_path, title):
    """mmureport --lmbench on a run's log: {mode: the section's row's
    figures} for the ref405ep rows of the section `title` (blank cells
    leave no field)."""
    log = tmp_path / "ref405ep.log"
    log.write_text(run.log)
    out = subprocess.run([f"{TOP}/build/tools/mmureport", "--lmbench", str(log)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    section = out.stdout.split(title)[1].split("\n\n")[0]
    return {l.split()[1]: [float(f) for f in l.split()[2:]]
            for l in section.splitlines() if l.startswith("ref405ep ")}


def test_lmbench_columns_from_the_boards_probes(runs405, tmp_path):
    """--lmbench fills Context switching, the latencies' 2p/0K and Pipe,
    sig hndl and Prot Fault from ctx, pipe and signal, in LMbench's us."""
    run = runs405[0]
    us = lambda name: pytest.approx(run.value(name) / 1000, rel=0.01)  # noqa: E731
    ctx = lmbench_rows(run, tmp_path, "Context switching")
    lat = lmbench_rows(run, tmp_path, "*Local* Communication latencies")
    proc = lmbench_rows(run, tmp_path, "Processor, Processes")
    vm = lmbench_rows(run, tmp_path, "File & VM system latencies")
    for mode in ("real", "normal", "pinned", "largepte"):
        assert ctx[mode] == [us(f"ctx.{mode}.{n}p_{k}k_ns") for n, k in COLUMNS], ctx[mode]
        assert lat[mode] == [us(f"ctx.{mode}.2p_0k_ns"), us(f"pipe.{mode}.pipe_ns")], lat[mode]
        assert proc[mode] == [us(f"signal.{mode}.catch_ns")], proc[mode]
        # prot needs translation: real's cell is blank
        assert vm[mode] == ([] if mode == "real" else [us(f"signal.{mode}.prot_ns")]), vm[mode]
