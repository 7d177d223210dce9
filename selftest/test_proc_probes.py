"""The process probes (tests/trap.c, fork.c, exec.c, mmap.c) on pc under
-icount (ref405ep's are selftest/test_proc_ppc405.py): each result a pass,
or a SKIP with the reason processes are missing; where a probe ran, its
figures are there; a fork whose child writes W pages takes exactly W
copy-on-write faults in the translated modes; no kernel-page miss count is
printed (the hardware walks the tables: nothing counts them); two runs
count the same."""
import re

import pytest

from conftest import run_qemu

PROBES = ("trap", "fork", "exec", "mmap")
MODES = ("flat", "2level", "pse", "pae", "pae2m")
HEADLINE = {"trap": "null_call_ns", "fork": "fork_us", "exec": "exec_us", "mmap": "mmap_us"}
W = 3


@pytest.fixture(scope="module")
def pc():
    runs = [run_qemu("pc", "probes=" + ",".join(PROBES), "modes=all", "quick",
                     "fork_writes=%d" % W, timeout=300) for _ in range(2)]
    for run in runs:
        assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    return runs


def ran(run, probe, mode):
    result = run.results["%s.%s" % (probe, mode)]
    assert result in ("ok", "skip"), (probe, mode, result)
    if result == "skip":
        assert run.skips["%s.%s" % (probe, mode)], (probe, mode)
    return result == "ok"


def test_each_probe_passes_or_says_why_not(pc):
    run = pc[0]
    for probe in PROBES:
        for mode in MODES:
            if ran(run, probe, mode):
                assert run.value("%s.%s.%s" % (probe, mode, HEADLINE[probe])) > 0


def test_fork_takes_one_copy_on_write_fault_a_written_page(pc):
    run = pc[0]
    for mode in MODES[1:]:
        if ran(run, "fork", mode):
            faults = run.value("fork.%s.fork_page_faults" % mode) + run.value(
                "fork.%s.fork_prot_faults" % mode)
            assert faults == W, (mode, faults)


def test_no_kernel_page_count_where_nothing_counts_them(pc):
    assert not [n for n in pc[0].measurements if "_kernel_" in n]


def test_counts_are_the_same_in_two_runs(pc):
    a, b = ({n: v for n, v in run.measurements.items()
             if re.match(r"(trap|fork|exec|mmap)\.\w+\.\w+_(faults|misses)$", n)} for run in pc)
    assert a == b
