"""The process probes (tests/trap.c, fork.c, exec.c, mmap.c) on the boards
under -icount, where time counts instructions and every count is exact:
each runs in every mode of ref405ep; the kernel-page TLB misses of the
null calls after a user working set are ordered by how the mode maps the
kernel (normal > largepte >= pinned), and so is the call's time, and so
are one fork's, one exec's and one mapping's; a fork
whose child writes W pages takes exactly W copy-on-write faults in the
translated modes; two runs count the same.  On pc each result is a pass
or a SKIP with the reason processes are missing, and no kernel-page count
is printed (nothing counts them there)."""
import re

import pytest

from conftest import run_qemu

PROBES = ("trap", "fork", "exec", "mmap")
W = 3


@pytest.fixture(scope="module")
def ref405ep():
    runs = [run_qemu("ref405ep", "probes=" + ",".join(PROBES), "modes=all", "quick",
                     "fork_writes=%d" % W, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    return runs


def test_every_probe_runs_in_every_mode(ref405ep):
    run = ref405ep[0]
    for probe in PROBES:
        for mode in ("real", "normal", "pinned", "largepte"):
            assert run.results["%s.%s" % (probe, mode)] == "ok", (probe, mode, run.skips)
        assert run.value("%s.real.%s" % (probe, "null_call_ns" if probe == "trap" else
                                         probe + "_us")) > 0


def test_kernel_misses_ordered_by_how_the_kernel_is_mapped(ref405ep):
    run = ref405ep[0]

    def misses(mode):
        return sum(run.value("trap.%s.pressed_kernel_%s_misses" % (mode, k)) for k in ("dtlb", "itlb"))

    assert misses("normal") > misses("largepte") >= misses("pinned"), [
        misses(m) for m in ("normal", "largepte", "pinned")]
    # Per operation too: one fork, one fork + exec, one mapping.
    for probe in ("fork", "exec", "mmap"):
        op = [sum(run.value("%s.%s.%s_kernel_%s_misses" % (probe, mode, probe, k))
                  for k in ("dtlb", "itlb")) for mode in ("normal", "largepte", "pinned")]
        assert op[0] > op[1] >= op[2], (probe, op)
    assert (run.value("trap.normal.pressed_call_ns") > run.value("trap.largepte.pressed_call_ns")
            >= run.value("trap.pinned.pressed_call_ns"))
    # Untranslated: no TLB, so nothing is counted (absent, not 0).
    assert not [n for n in run.measurements if n.startswith("trap.real.") and "misses" in n]


def test_fork_takes_one_copy_on_write_fault_a_written_page(ref405ep):
    run = ref405ep[0]
    for mode in ("normal", "pinned", "largepte"):
        faults = run.value("fork.%s.fork_page_faults" % mode) + run.value(
            "fork.%s.fork_prot_faults" % mode)
        assert faults == W, (mode, faults)


def test_counts_are_the_same_in_two_runs(ref405ep):
    a, b = ({n: v for n, v in run.measurements.items()
             if re.match(r"(trap|fork|exec|mmap)\.\w+\.\w+(misses|faults)$", n)} for run in ref405ep)
    assert a and a == b


def test_pc_passes_or_says_why_not():
    run = run_qemu("pc", "probes=" + ",".join(PROBES), "modes=all", "quick", timeout=300)
    assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    for name, result in run.results.items():
        assert result in ("ok", "skip"), (name, result)
        if result == "skip":
            assert run.skips[name], name
    assert not [n for n in run.measurements if "_kernel_" in n]
