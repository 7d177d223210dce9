"""tools/suite-summary summary: per run, the operations as rows, the modes as
columns, each cell its figure and its ratio to the reference mode, in the
unit the run's timing allows (instructions under -icount, real time with
its spread and verdict, no time at all under QEMU TCG's host time).  The
verdict is the summary's own: Welch's t on the log samples, Holm over the
cells of the board's table (mmureport's comparisons in the JSON are ignored)."""
import json
import math
import os
import subprocess

import pytest

stats = pytest.importorskip("scipy.stats")

from conftest import TOP

SUMMARY = os.path.join(TOP, "tools", "suite-summary")
MMUREPORT = os.path.join(TOP, "build", "tools", "mmureport")
REPORT_DATA = os.path.join(TOP, "selftest", "data", "report")
ICOUNT = "QEMU TCG -icount shift=2 (emulated: time counts instructions; no caches, no TLB timing)"


def meas(probe, mode, metric, value, unit="count", samples=()):
    return {"probe": probe, "mode": mode, "metric": metric, "value": value, "unit": unit,
            "line": 1, "samples": list(samples)}


def run(label, modes, measurements, **kw):
    r = {"run": 1, "label": label, "file": f"logs/{label}.log", "board": label, "cpu": "a CPU",
         "platform": ICOUNT, "args": "2 probe(s) x 2 mode(s), reps=1", "reps": 1, "modes": modes,
         "results": [{"name": f"fork.{m}", "result": "ok"} for m in modes],
         "measurements": measurements}
    r.update(kw)
    return r


def summary(tmp_path, runs, comparisons=()):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({"mmureport": 1, "runs": runs, "comparisons": list(comparisons)}))
    p = subprocess.run([SUMMARY, "summary", str(path)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    assert all(len(line) <= 150 for line in p.stdout.splitlines()), p.stdout
    return p.stdout


def row(out, label):
    """The words of the table row that starts with label."""
    lines = [line.split() for line in out.splitlines() if line.startswith("  " + label + "  ")]
    assert len(lines) == 1, (label, out)
    return lines[0]


def test_instructions(tmp_path):
    """-icount shift=2: a ns is a quarter instruction; the modes in their order, real left out."""
    ms = [meas("fork", "real", "fork_us", 90.0, "us"),
          meas("fork", "normal", "fork_us", 100.0, "us"), meas("fork", "pinned", "fork_us", 109.0, "us"),
          meas("trap", "normal", "null_call_ns", 400.0, "ns"),
          meas("trap", "normal", "pressed_kernel_dtlb_misses", 10),
          meas("trap", "normal", "pressed_kernel_itlb_misses", 5),
          meas("trap", "pinned", "pressed_kernel_dtlb_misses", 3),
          meas("trap", "pinned", "pressed_kernel_itlb_misses", 0)]
    out = summary(tmp_path, [run("ref405ep", ["real", "pinned", "normal"], ms)])
    assert "instructions (emulated, -icount shift=2: 1 instruction = 4 ns; exact, one repetition)" \
        in out
    assert "exact (the TLB-miss" in out
    header = row(out, "operation")
    assert header[2:] == ["normal", "pinned"], out         # real: no translation, no column
    assert row(out, "fork") == ["fork", "fork.fork_us", "25", "k", "instr", "27.25", "k", "instr",
                                "x1.09"]
    assert row(out, "null call")[3:] == ["100", "instr", "-"]   # pinned: none
    assert row(out, "kernel TLB misses, 64 calls")[-3:] == ["15", "3", "x0.20"]
    assert "memory latency" not in out and "ns" not in row(out, "fork")   # no figure: no row
    assert "xR: the figure over normal's" in out


def test_real_spread_and_verdict(tmp_path):
    """Real time: the spread over the repetitions, the verdict against the reference (the
    summary's own test: the report's comparison, saying the opposite, is ignored); a
    one-repetition run gives the probe's own spread and no verdict."""
    ms = [meas("fork", "4k", "fork_us", 100.0, "us", [90, 100, 110, 100, 95]),
          meas("fork", "thp", "fork_us", 150.0, "us", [150, 147, 153, 150, 151]),
          meas("trap", "4k", "null_call_ns", 200.0, "ns", [200, 200, 201, 199, 200]),
          meas("trap", "thp", "null_call_ns", 210.0, "ns", [190, 230, 210, 200, 220]),
          meas("fork", "4k", "fork_child_minflt", 16, "count", [16] * 5),
          meas("fork", "thp", "fork_child_minflt", 16, "count", [16] * 5)]
    sandbox = run("sandbox", ["4k", "thp", "hugetlb"], ms, platform="Linux (sandbox) under KVM",
                  reps=5, args="2 probe(s) x 3 mode(s), reps=5")
    sandbox["results"] = [{"name": f"fork.{m}", "result": "skip" if m == "hugetlb" else "ok"}
                          for m in sandbox["modes"]]
    one = run("pc", ["flat", "2level", "pae"],
              [meas("fork", "2level", "fork_us", 2000.0, "us"), meas("fork", "pae", "fork_us", 2200.0, "us"),
               meas("fork", "2level", "fork_spread", 3.0, "percent"),
               meas("fork", "pae", "fork_spread", 12.5, "percent")], platform="KVM", run=2)
    metric = {"kind": "test", "unit": "us", "n_a": 5, "n_b": 5}
    cmp = {"a": "sandbox:4k", "b": "sandbox:thp", "alpha": 0.05, "tests": 2, "metrics": [
        dict(metric, metric="fork.fork_us", p_holm=0.6),
        dict(metric, metric="trap.null_call_ns", p_holm=0.01)]}
    out, pc = summary(tmp_path, [sandbox, one], [cmp]).split("\npc: ")
    assert "times: real, the median of 5 repetitions; +-N%: (max - min) / median" in out
    assert "verdict: Welch's t on log times over repetitions, Holm over the 2 cells of this " \
        "table, alpha 0.05" in " ".join(out.split())
    assert row(out, "fork")[2:] == ["100", "us", "+-20%", "150", "us", "+-4.0%", "x1.50", "differs", "-"]
    assert row(out, "null call")[3:] == ["200", "ns", "+-1.0%", "210", "ns", "+-19%", "x1.05",
                                         "same", "within", "noise", "-"]
    assert row(out, "fork: child's minor faults")[-3:] == ["16", "x1.00", "-"]
    assert 'skipped by every probe ("-"): hugetlb' in out
    assert row(pc, "fork")[2:] == ["2", "ms", "~3.0%", "2.2", "ms", "~12%", "x1.10"]
    assert "no verdict: fewer than 3 repetitions' samples on a side of every cell against " \
        "2level" in pc and "Welch" not in pc


def test_real_many_modes_fit(tmp_path):
    """Five modes with verdicts: the source column goes, then the verdicts shorten."""
    modes = ["flat", "2level", "pae", "pse", "pae2m", "pse36"]
    ms = [meas("fork", m, "fork_us", 100.0 + i, "us", [100, 101, 102, 103]) for i, m in enumerate(modes)]
    out = summary(tmp_path, [run("pc", modes, ms, platform="KVM", reps=4)])
    assert row(out, "operation")[1:] == ["2level", "pae", "pse", "pae2m", "pse36"]
    assert row(out, "fork")[-2:] == ["x1.04", "same"] and "same: same within noise" in out


def sandbox(ms, reps=5, modes=("4k", "thp")):
    return run("sandbox", list(modes), ms, platform="Linux (sandbox) under KVM", reps=reps,
               args=f"probes x {len(modes)} mode(s), reps={reps}", timing="real")


def test_verdict_differs_and_same(tmp_path):
    """320 +-10 us against 435 +-10 us, 5 repetitions a side: differs (Mann-Whitney's
    smallest p, 2/252, could not survive mmureport's Holm over ~140 tests); overlapping
    samples: same within noise.  Holm over the 2 cells tested; the report's comparison,
    saying the opposite, is ignored."""
    ms = [meas("fork", "4k", "fork_us", 320.0, "us", [310, 315, 320, 325, 330]),
          meas("fork", "thp", "fork_us", 435.0, "us", [425, 430, 435, 440, 445]),
          meas("mmap", "4k", "mmap_us", 50.0, "us", [45, 48, 50, 52, 55]),
          meas("mmap", "thp", "mmap_us", 51.0, "us", [46, 49, 51, 53, 56])]
    cmp = {"a": "sandbox:4k", "b": "sandbox:thp", "alpha": 0.05, "tests": 140, "metrics": [
        {"metric": "fork.fork_us", "kind": "test", "unit": "us", "p_holm": 1.0},
        {"metric": "mmap.mmap_us", "kind": "test", "unit": "us", "p_holm": 0.001}]}
    out = summary(tmp_path, [sandbox(ms)], [cmp])
    assert row(out, "fork")[-2:] == ["x1.36", "differs"]
    assert row(out, "mmap")[-4:] == ["x1.02", "same", "within", "noise"]
    flat = " ".join(out.split())
    assert "verdict: Welch's t on log times over repetitions, Holm over the 2 cells of this " \
        "table, alpha 0.05" in flat
    assert "verdict against 4k: differs (Holm-adjusted p under 0.05; xR gives the direction)" in flat
    assert "none:" not in flat                    # every cell with a time was tested
    assert "Mann-Whitney" not in out


def test_verdict_needs_three_samples_a_side(tmp_path):
    """Fewer than 3 samples on either side: no word in the cell, said in the legend; the
    cells tested are the others only (Holm over 1); a sample <= 0: untested too."""
    ms = [meas("fork", "4k", "fork_us", 320.0, "us", [310, 315, 320, 325, 330]),
          meas("fork", "thp", "fork_us", 435.0, "us", [430, 440]),
          meas("fork", "hugetlb", "fork_us", 436.0, "us", [425, 430, 435, 440, 445]),
          meas("mmap", "4k", "mmap_us", 50.0, "us", [50, 60]),
          meas("mmap", "thp", "mmap_us", 150.0, "us", [140, 150, 160]),
          meas("trap", "4k", "null_call_ns", 200.0, "ns", [190, 200, 210]),
          meas("trap", "thp", "null_call_ns", 400.0, "ns", [0, 400, 410])]
    out = summary(tmp_path, [sandbox(ms, modes=("4k", "thp", "hugetlb"))])
    assert row(out, "fork")[-6:] == ["x1.36", "436", "us", "+-4.6%", "x1.36", "differs"]  # thp: 2
    assert row(out, "mmap")[-3:] == ["+-13%", "x3.00", "-"]                       # 4k: 2 samples
    assert row(out, "null call")[-2:] == ["x2.00", "-"]                           # a sample of 0
    flat = " ".join(out.split())
    assert "Holm over the 1 cell of this table" in flat
    assert "none: fewer than 3 repetitions' samples or a sample at or below 0 on a side" in flat
    few = summary(tmp_path, [sandbox([meas("fork", m, "fork_us", v, "us", [v, v + 1])
                                      for m, v in (("4k", 100), ("thp", 300))], reps=2)])
    assert row(few, "fork")[-1] == "x3.00" and "Welch" not in few
    assert "no verdict: fewer than 3 repetitions' samples on a side of every cell against 4k" \
        in " ".join(few.split())


ROWS_TIMED = [("trap", "null_call_ns", "ns"), ("trap", "pressed_call_ns", "ns"),
              ("fork", "fork_us", "us"), ("exec", "exec_us", "us"), ("mmap", "mmap_us", "us"),
              ("aspace", "2p_0k_ns", "ns"), ("aspace", "2p_16k_ns", "ns"),
              ("demand", "page_fault_ns", "ns"), ("demand", "prot_fault_ns", "ns"),
              ("lat_mem", "mem_ns", "ns"), ("tlb", "miss_ns", "ns")]


def test_verdict_holm_over_the_table(tmp_path):
    """Borderline cells (each p about 0.02 alone): alone, one differs; 22 of them (11 rows
    x 2 modes), Holm's correction keeps them from all differing (here none does)."""
    ref, other = [100, 104, 96, 102, 98], [106, 110, 102, 108, 104]
    p = stats.ttest_ind([math.log(x) for x in ref], [math.log(x) for x in other],
                        equal_var=False).pvalue
    assert 0.01 < p < 0.05 and p * 22 > 0.05
    one = summary(tmp_path, [sandbox([meas("fork", "4k", "fork_us", 100.0, "us", ref),
                                      meas("fork", "thp", "fork_us", 106.0, "us", other)])])
    assert row(one, "fork")[-1] == "differs" and "Holm over the 1 cell of" in one
    ms = [meas(probe, mode, metric, 100.0, unit, samples)
          for probe, metric, unit in ROWS_TIMED
          for mode, samples in (("4k", ref), ("thp", other), ("hugetlb", other))]
    out = summary(tmp_path, [sandbox(ms, modes=("4k", "thp", "hugetlb"))])
    assert "Holm over the 22 cells of this table" in " ".join(out.split())
    table = [line for line in out.splitlines() if line.startswith("  ") and " x1." in line]
    assert len(table) == 11
    assert not any("differs" in line for line in table)
    assert sum(line.count("same") for line in table) == 22


def test_host_counts_only(tmp_path):
    """QEMU TCG without -icount (or the timing field saying so): counts, never a time."""
    ms = [meas("fork", "2level", "fork_us", 140.0, "us"), meas("fork", "pae", "fork_us", 150.0, "us"),
          meas("fork", "2level", "fork_page_faults", 4), meas("fork", "pae", "fork_page_faults", 5),
          meas("fork", "2level", "fork_prot_faults", 1), meas("fork", "pae", "fork_prot_faults", 1)]
    inferred = run("pc", ["flat", "2level", "pae"], ms,
                   platform="QEMU TCG (emulated: no caches, no cycle timing)")
    said = run("pc2", ["flat", "2level", "pae"], ms, platform="KVM", timing="host")
    out = summary(tmp_path, [inferred, said])
    assert out.count("times are host time under QEMU TCG: no figure") == 2
    assert " us" not in out and "fork.fork_us" not in out
    assert out.count("fork.fork_{page+prot}_faults") == 2
    assert row(out.split("\npc2")[0], "fork: faults")[-3:] == ["5", "6", "x1.20"]


def test_partial(tmp_path):
    ms = [meas("fork", "normal", "fork_us", 100.0, "us")]
    out = summary(tmp_path, [run("ppce500", ["real", "normal"], ms, partial=True, timing="instructions")])
    assert out.splitlines()[0].endswith("(partial: the log was cut short)")
    assert row(out, "fork")[2:] == ["25", "k", "instr"]


@pytest.mark.parametrize("text", ["{not json", '{"comparisons": []}', '{"runs": [{"label": "x"}]}'])
def test_bad_json(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text)
    p = subprocess.run([SUMMARY, "summary", str(path)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.startswith(f"suite-summary: {path}: "), p.stderr


def test_missing_file(tmp_path):
    p = subprocess.run([SUMMARY, "summary", str(tmp_path / "none.json")], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 2 and "No such file" in p.stderr


def test_help_names_summary_and_rows():
    p = subprocess.run([SUMMARY, "--help"], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0 and "suite-summary summary JSON" in p.stdout
    assert "fork.fork_kernel_{dtlb+itlb}_misses" in p.stdout


@pytest.mark.skipif(not os.access(MMUREPORT, os.X_OK), reason="build/tools/mmureport is not built")
def test_real_logs(tmp_path):
    """mmureport's own JSON of the kept logs: the 405 in instructions, the pc (TCG) counts only."""
    path = tmp_path / "r.json"
    logs = [os.path.join(REPORT_DATA, f) for f in ("ref405ep-quick.log", "pc-quick.log")]
    p = subprocess.run([MMUREPORT, "--no-tables", "--json", str(path)] + logs, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    p = subprocess.run([SUMMARY, "summary", str(path)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert all(len(line) <= 150 for line in out.splitlines()), out
    ppc, pc = out.split("\npc")
    assert ppc.startswith("ref405ep") and "-icount shift=0: 1 instruction = 1 ns" in ppc
    assert row(ppc, "operation")[2:] == ["normal", "pinned", "largepte"]
    assert "k instr" in " ".join(row(ppc, "fork")) and "kernel TLB misses, mmap" in ppc
    assert "times are host time under QEMU TCG: no figure" in pc and " instr" not in pc
