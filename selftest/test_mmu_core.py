"""The MMU core and its interface (issue 7): probes see only include/,
address spaces on both architectures (each space its own data; on the 405
PID tags switch without a flush, MMU_SPACE_FLUSH flushes), and query()
agreeing with the self-check."""
import os
import subprocess

import pytest

from conftest import TOP, run_qemu

SWITCHES = 32


def probe_check(tmp_path, source):
    f = tmp_path / "probe_x.c"
    f.write_text(source)
    return subprocess.run(["make", "-s", "-C", TOP, "BOARD=ref405ep", "probe-check",
                           f"PROBE={f}"], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("include", ['"ppc405.h"', '"../arch/ppc405/ppc405.h"',
                                     '"arch.h"', '"config.h"'])
def test_probe_with_a_private_header_fails_to_build(tmp_path, include):
    p = probe_check(tmp_path, f'#include "probe.h"\n#include {include}\nint x;\n')
    assert p.returncode != 0, p.stdout + p.stderr
    assert "a probe sees only include/" in p.stderr or "No such file" in p.stderr, p.stderr


def test_probe_with_probe_h_builds(tmp_path):
    p = probe_check(tmp_path, '#include <stdio.h>\n#include "probe.h"\n'
                              'int x(void);\nint x(void) { return (int)probe_ticks(); }\n')
    assert p.returncode == 0, p.stdout + p.stderr


def test_every_probe_includes_only_probe_h():
    for name in sorted(os.listdir(os.path.join(TOP, "tests"))):
        if name.endswith(".c"):
            with open(os.path.join(TOP, "tests", name)) as f:
                quoted = [l.split('"')[1] for l in f if l.startswith("#include \"")]
            # probe.h first, then only lib/'s headers: the step detection
            # (guess.h) and the one comparator (sort.h); the processes
            # (proc.h) and the model's region markers (mark.h, no code):
            # the Makefile's PROBE_HEADERS
            assert quoted[:1] == ["probe.h"] and \
                set(quoted[1:]) <= {"guess.h", "sort.h", "proc.h", "mark.h"}, (name, quoted)


def test_address_spaces_405():
    run = run_qemu("ref405ep", "probes=spaces", "modes=all", timeout=60)
    assert run.rc == 0 and run.status() == "pass", run.log
    assert run.results["spaces.real"] == "skip"
    for mode in ("normal", "pinned", "largepte"):
        assert run.results[f"spaces.{mode}"] == "ok"
        # PID tags: each space keeps its entries, warm switches neither
        # flush nor miss.
        assert run.value(f"spaces.{mode}.tagged_switch_flushes") == 0
        assert run.value(f"spaces.{mode}.tagged_switch_dtlb_misses") == 0
        # Without tags every switch flushes the TLB ...
        assert run.value(f"spaces.{mode}.flush_switch_flushes") == SWITCHES
        assert run.value(f"spaces.{mode}.flush_switch_dtlb_misses") >= SWITCHES
    # ... and where everything else is pinned, the window page is the only
    # miss after each flush.
    assert run.value("spaces.pinned.flush_switch_dtlb_misses") == SWITCHES
    # The tagged handler is a few instructions longer than the plain one.
    assert run.value("mmu.normal.dtlb_miss_path") == 44


def test_address_spaces_i386():
    run = run_qemu("pc", "probes=spaces", "modes=all", timeout=60)
    assert run.rc == 0 and run.status() == "pass", run.log
    for mode in ("2level", "pse", "pae", "pae2m"):
        assert run.results[f"spaces.{mode}"] == "ok"
        # No PCID: only the untagged kind, one CR3 load (flush) per switch.
        assert f"spaces.{mode}.tagged_switch_flushes" not in run.measurements
        assert run.value(f"spaces.{mode}.flush_switch_flushes") == SWITCHES


def test_query_agrees_with_every_sample_of_the_self_check():
    """Each enter checks query() against the word written through every
    sampled page (a mismatch fails the mode): 100 enters per mode pass."""
    for board, modes in (("ref405ep", "normal,largepte"), ("pc", "2level,pae2m")):
        run = run_qemu(board, "probes=modeswitch", f"modes={modes}", timeout=120)
        assert run.rc == 0 and run.status() == "pass", run.log
        assert "query says" not in run.log
