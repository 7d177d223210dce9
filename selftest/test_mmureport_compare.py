"""mmureport --compare and --mwu: the Mann-Whitney U test against values
from SciPy 1.10.1 and by hand, Holm's correction against its definition,
the verdicts in words (counts, emulated time), and counts nothing counts
(blank, null, not compared).  The logs are recorded (selftest/data/report/)
or built by test_mmureport's small_log."""
import json
import os
import re
import tempfile

import pytest

from test_mmureport import Q405, R405, err, parsed, report, small_log, text

# ---- statistics ----

# (x, y, U of x, two-sided p, method): exact p by hand (complete separation of
# 4 and 4: 2/C(8,4) = 2/70; of 3 and 3: 2/20) and from SciPy 1.10.1's
# scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method=...), exact
# without ties, "asymptotic" (continuity- and tie-corrected) with them.
MWU_CASES = [
    ([1, 2, 3, 4], [5, 6, 7, 8], 0.0, 2 / 70, "exact"),
    ([1.1, 2.3, 0.5], [4.0, 5.5, 3.3], 0.0, 2 / 20, "exact"),
    ([3, 1, 4, 1.5, 9, 2.6], [5, 3.5, 8, 9.7, 6.2], 5.0, 0.08225108225108226, "exact"),
    ([10, 12, 11, 13, 15, 14, 16, 9, 8, 17], [20, 19, 12.5, 22, 21, 18, 23, 11.5], 11.0,
     0.008547008547008548, "exact"),
    ([1, 2, 2, 3, 3, 3], [3, 4, 4, 5, 5, 6], 1.5, 0.008732768512539242, "normal"),
    (list(range(60)), [x + 3.5 for x in range(55)], 1595.0, 0.7602584471103586, "normal"),
]


def mwu(x, y):
    p = report("--mwu", ",".join(map(str, x)), ",".join(map(str, y)))
    assert p.returncode == 0, err(p)
    f = text(p).split()
    return dict(zip(f[0::2], f[1::2]))


@pytest.mark.parametrize("x,y,u,pv,method", MWU_CASES)
def test_mann_whitney_against_scipy(x, y, u, pv, method):
    r = mwu(x, y)
    assert float(r["U"]) == u
    assert float(r["p"]) == pytest.approx(pv, rel=1e-9)
    assert r["method"] == method


def test_mann_whitney_limits():
    r = mwu([5, 5, 5], [5, 5, 5])
    assert r["method"] == "none"                     # no variance: no test
    r = mwu([1, 2, 3], [4, 5, 6])
    assert float(r["p_min"]) == pytest.approx(0.1)  # 3 and 3 can never reach 0.05
    assert float(mwu([1, 2, 3, 4], [5, 6, 7, 8])["p_min"]) == pytest.approx(2 / 70)


def test_mann_whitney_random_against_scipy_if_present():
    """More cases against SciPy itself where python3-scipy is installed."""
    try:
        import random
        from scipy.stats import mannwhitneyu
    except ImportError:
        pytest.skip("python3-scipy not installed: the fixed cases above still ran")
    rnd = random.Random(11)
    for _ in range(30):
        x = [round(rnd.gauss(10, 2), 2) for _ in range(rnd.randint(2, 12))]
        y = [round(rnd.gauss(11, 2), 2) for _ in range(rnd.randint(2, 12))]
        ties = len(set(x + y)) < len(x + y)
        ref = mannwhitneyu(x, y, alternative="two-sided",
                           method="asymptotic" if ties else "exact")
        r = mwu(x, y)
        assert float(r["U"]) == ref.statistic
        assert float(r["p"]) == pytest.approx(ref.pvalue, rel=1e-9)


def compare_rows(out):
    """A comparison's rows by metric (the lines after its column heads)."""
    lines = out.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("metric "))
    return {l.split()[0]: l for l in lines[start + 1:] if l.strip() and not l.startswith("Note:")}


def test_compare_verdicts():
    out = text(report("--no-tables", "--compare", "normal", "largepte", R405))
    lines = compare_rows(out)
    # Printed once per mode, not per repetition: said, not guessed.
    assert "too few repetitions" in lines["mmu.pagetable_bytes"]
    assert "the same in every repetition" in lines["boot.heap_kib"]
    one = text(report("--no-tables", "--compare", "normal", "largepte", Q405))
    for l in compare_rows(one).values():
        assert re.search(r"too few repetitions|  counts: |  not measured in [AB] ", l), l
    # Two runs of one board, mode by mode: runs as repetitions.
    two = report("--no-tables", "--compare", "ref405ep-1:normal", "ref405ep-2:normal", Q405, Q405)
    assert two.returncode == 0 and "too few repetitions" in text(two)


def test_compare_counts_as_counts():
    """Every count (unit "count") compared the same way: exact, equal or not,
    with the ratio; no test, no better or worse (dtlb_misses was "better",
    tlb_writes said nothing, though both fell from ~20 to 0)."""
    out = text(report("--no-tables", "--compare", "normal", "largepte", R405))
    rows = compare_rows(out)
    counts = {k: l for k, l in rows.items() if l.split()[1] == "count"}
    assert len(counts) > 20
    for name, l in counts.items():
        words = l.split("  ")[-1]
        assert words.strip().startswith("counts: "), l
        assert not re.search(r"better|worse|p=|noise", words), l
        assert l.split()[8:10] == ["-", "-"], l            # no p, no Holm p
    for name in ("boot.dtlb_misses", "boot.itlb_misses", "boot.tlb_writes", "bw_mem.tlb_writes"):
        assert "counts: not equal: A " in rows[name] and ", B 0 (B/A 0)" in rows[name], rows[name]
    assert "counts: equal (16 in every figure)" in rows["demand.prot_faults"]
    assert "counts: not equal: A 290, B 291 (B/A 1.003)" in rows["demand.flushes"]
    _, ms, _ = compared(open(R405).read(), "normal", "largepte")
    assert ms["boot.tlb_writes"]["kind"] == "count" and ms["boot.tlb_writes"]["p"] is None
    assert ms["boot.dtlb_misses"]["kind"] == "count" and ms["boot.dtlb_misses"]["ratio"] == 0


def samples_body(platform, metrics, modes=("a", "b")):
    """A log body: per mode, each metric's samples (metric -> (unit, A's, B's))."""
    body = ["1..%d" % len(modes), "# mmubench v1 on ref405ep (ppc405), entered by test",
            "# cpu: PowerPC 405EP", "# platform: " + platform,
            "# run: 1 probe(s) x 2 mode(s), reps=10", "# measurements begin"]
    for k, mode in enumerate(modes):
        for metric, (unit, *values) in metrics.items():
            v = values[k]
            if v is None:
                continue
            for i, x in enumerate(v):
                body.append("# sample demand.%s.%s %d %s %s" % (mode, metric, i + 1, x, unit))
            body.append("# measurement demand.%s.%s %s %s" % (mode, metric, v[len(v) // 2], unit))
        body.append("ok %d demand.%s" % (k + 1, mode))
    body.append("# measurements end")
    return body


# 660 vs 669 ns, 4 and 4 repetitions: p = 2/70 = 0.029 alone; one of five tests.
HOLM = {
    "page_fault_ns": ("ns", ["%.2f" % (100 + i) for i in range(10)],
                      ["%.2f" % (200 + i) for i in range(10)]),
    "null_fault_ns": ("ns", ["659.50", "660.00", "660.25", "660.50"],
                      ["668.75", "669.00", "669.25", "669.50"]),
    "kmap_ns": ("ns", ["10.0", "12.0", "14.0", "16.0"], ["11.0", "13.0", "15.0", "17.0"]),
    "prot_fault_ns": ("ns", ["20.0", "23.0", "21.0", "22.5"], ["21.5", "20.5", "22.0", "23.5"]),
    "remap_batch_ns": ("ns", ["30.0", "31.0", "35.0", "36.0"], ["32.0", "33.0", "34.0", "37.0"]),
}
BARE = "bare hardware (no qemu= boot argument)"
ICOUNT = "QEMU TCG -icount shift=0 (emulated: time counts instructions; no caches, no TLB timing)"


def compared(log_text, a="a", b="b"):
    """A comparison of a log on stdin: its JSON, its metrics by name, its text."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "c.json")
        p = report("--no-tables", "--json", path, "--compare", a, b, "-", stdin=log_text.encode())
        assert p.returncode == 0, err(p)
        c = json.load(open(path))["comparisons"][0]
    return c, {m["metric"]: m for m in c["metrics"]}, text(p)


def test_compare_holm_correction():
    """Holm over the comparison's tests: p = 0.029 alone is no difference among
    five tests; p = 1.1e-5 (10 and 10, fully apart) stays one."""
    c, ms, out = compared(small_log(samples_body(BARE, HOLM)))
    y, x = ms["demand.null_fault_ns"], ms["demand.page_fault_ns"]
    assert y["p"] == pytest.approx(2 / 70) and y["p"] < 0.05
    assert y["verdict"].startswith("no difference beyond the run-to-run noise after Holm's"), y
    assert x["p"] == pytest.approx(2 / 184756)               # 2 / C(20, 10)
    assert x["verdict"].startswith("B is higher than A (worse), beyond the run-to-run noise"), x
    assert c["correction"] == "holm" and c["tests"] == 5
    assert "Holm's correction over the 5 tests" in out
    assert y["p_holm"] == pytest.approx(4 * 2 / 70)          # second of five: (5 - 2 + 1) p
    assert x["p_holm"] == pytest.approx(5 * 2 / 184756)
    for name in ("demand.kmap_ns", "demand.prot_fault_ns", "demand.remap_batch_ns"):
        assert ms[name]["p_holm"] >= ms[name]["p"] and "no difference" in ms[name]["verdict"]
    assert "Note: Holm's first step over 5 tests asks p < 0.01; 4 and 4 repetitions" in out


def holm(ps):
    """Holm (1979), written out: sorted ascending, the running max of (m - i) p_(i)."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, run = [0.0] * len(ps), 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = run
    return out


def test_holm_against_python(tmp_path):
    """Every Holm-adjusted p of a real comparison (12 tests) as computed here."""
    j = tmp_path / "c.json"
    p = report("--no-tables", "--json", str(j), "--compare", "normal", "largepte", R405)
    assert p.returncode == 0, err(p)
    c = json.loads(j.read_text())["comparisons"][0]
    tests = [m for m in c["metrics"] if m["p_holm"] is not None]
    assert len(tests) == c["tests"] == 12
    for m, h in zip(tests, holm([m["p"] for m in tests])):
        assert m["p_holm"] == pytest.approx(h, rel=1e-9), m["metric"]
    assert all(m["p"] is None or m["kind"] == "test" for m in c["metrics"])
    # A raw p below 0.05 (e.g. demand.page_fault_ns, 0.023) is not a difference among 12.
    pf = next(m for m in tests if m["metric"] == "demand.page_fault_ns")
    assert pf["p"] < 0.05 < pf["p_holm"] and "no difference" in pf["verdict"]


def test_compare_emulated_says_so():
    """Time measured under QEMU is not the target's time: the verdict says what
    it is and claims no better or worse, nor run-to-run noise."""
    for platform, words in ((ICOUNT, "emulated: instruction counts, not time"),
                            ("QEMU TCG (emulated: no caches, no cycle timing)",
                             "emulated: QEMU's host time, not the target's")):
        c, ms, out = compared(small_log(samples_body(platform, HOLM)))
        x = ms["demand.page_fault_ns"]
        assert x["verdict"] == "%s; B is higher than A (p=1.08e-05, Holm 5.41e-05)" % words, x
        assert x["emulated"] in ("icount", "tcg")
        for m in ms.values():
            assert m["verdict"].startswith(words), m
            assert not re.search(r"better|worse|noise", m["verdict"]), m
        assert "A from: " + platform in out
    # One side emulated, the other not: no test at all.
    log = small_log(samples_body(ICOUNT, HOLM)) + small_log(samples_body(BARE, HOLM))
    c, ms, _ = compared(log, "ref405ep-1:a", "ref405ep-2:a")
    assert c["tests"] == 0
    assert ms["demand.page_fault_ns"]["verdict"] == (
        "not comparable as time: A emulated: instruction counts, not time; B not emulated")


COUNTED_ALL = ["dtlb_misses", "itlb_misses", "page_faults", "prot_faults", "tlb_writes", "flushes"]


def absent_log(drop=None):
    """Mode a counts everything (405-like), mode b only faults and flushes
    (pc-like): b's log has no TLB-miss or TLB-write lines at all."""
    body = ["1..4", "# mmubench v1 on ref405ep (ppc405), entered by test", "# cpu: test",
            "# platform: " + BARE, "# run: 2 probe(s) x 2 mode(s), reps=1", "# measurements begin"]
    for k, (mode, names) in enumerate((("a", COUNTED_ALL), ("b", ["page_faults", "prot_faults",
                                                                  "flushes"]))):
        body.append("# measurement demand.%s.page_fault_ns 1500.25 ns" % mode)
        for n in names:
            body.append("# measurement demand.%s.%s %d count" % (mode, n, 7 + k))
        body.append("ok %d demand.%s" % (2 * k + 1, mode))
        body += ["# measurement spaces.%s.flush_switch_ns 900.50 ns" % mode,
                 "# measurement spaces.%s.flush_switch_flushes 32 count" % mode]
        if mode == "a":
            body.append("# measurement spaces.a.flush_switch_dtlb_misses 64 count")
        body.append("ok %d spaces.%s" % (2 * k + 2, mode))
    body.append("# measurements end")
    log = small_log(body, crlf=False)
    if drop:
        log = "".join(l for l in log.splitlines(True) if drop not in l)
    return log


def test_absent_counts_blank_null_not_counted(tmp_path):
    """A count the log does not have is no figure: a blank cell, null in the
    JSON and CSV, "not counted" in a comparison -- never a 0."""
    log = absent_log()
    out = text(report("-", stdin=log.encode()))
    table = out[out.index("Address-space switch (spaces"):].split("\n\n")[0].splitlines()
    heads = next(l for l in table if "misses" in l)
    row = {l.split()[1]: l for l in table if l.startswith("ref405ep ")}
    col = heads.rindex("misses")                                 # Flush misses
    assert row["a"][col - 2:col + 6].strip() == "64"
    assert row["b"][col - 2:col + 6].strip() == "", row["b"]
    assert " 0 " not in row["b"] and not row["b"].rstrip().endswith(" 0")
    d = parsed(log)
    m = {(x["probe"], x["mode"], x["metric"]): x for x in d["runs"][0]["measurements"]}
    for n in ("dtlb_misses", "itlb_misses", "tlb_writes"):
        assert m[("demand", "b", n)]["value"] is None and m[("demand", "b", n)]["unit"] == "count"
        assert m[("demand", "a", n)]["value"] == 7
    assert m[("spaces", "b", "flush_switch_dtlb_misses")]["value"] is None
    assert m[("demand", "b", "flushes")]["value"] == 8
    assert not [k for k, x in m.items() if x["value"] is None and k[1] == "a"]
    csv = tmp_path / "out.csv"
    assert report("--csv", str(csv), "-", stdin=log.encode()).returncode == 0
    rows = csv.read_text().splitlines()
    assert [r for r in rows if ",b,demand,dtlb_misses," in r][0].endswith(",b,demand,dtlb_misses,,count,,")
    assert not [r for r in rows if ",a,demand," in r and ",count,," in r]
    c, ms, cmp_out = compared(log)
    for n in ("demand.dtlb_misses", "demand.itlb_misses", "demand.tlb_writes",
              "spaces.flush_switch_dtlb_misses"):
        assert ms[n]["verdict"] == "not counted in B (absent from its log)", ms[n]
        assert ms[n]["kind"] == "absent" and ms[n]["b_median"] is None and ms[n]["n_b"] == 0
        assert ms[n]["ratio"] is None and ms[n]["difference"] is None
    assert ms["demand.flushes"]["verdict"] == "counts: not equal: A 7, B 8 (B/A 1.143)"
    assert compare_rows(cmp_out)["demand.dtlb_misses"].split()[2:4] == ["7", "-"]
    # A side that lost lines cannot tell "not counted" from "lost".
    c, ms, _ = compared(absent_log(drop="demand.b.page_faults"))
    assert ms["demand.page_faults"]["verdict"] == (
        "absent from B's log (not counted there, or its line was lost)")
