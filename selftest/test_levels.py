"""Cache levels on hierarchies no machine here has: generated cases.

Hypothesis (Debian's python3-hypothesis) draws memory hierarchies across
the range real CPUs have -- L1 24-128 KiB, L2 256 KiB-4 MiB (1.25 MiB
included), L3 none or 4 MiB to hundreds of MiB, each level at least 4x the
one below (L3 6x L2, as the smallest in use) and at least twice as slow (the facts lib/guess.c rests on) --
with sharp steps, steps smeared by random page placement (the binomial
model of lib/guess.c; also with one way of each set taken by a neighbour) or ramps up to 0.2 octaves wide centred from 0.88
to 1.03 of the size, 1-3 % noise, single points disturbed 1.3-3x, and TLB steps anywhere
in the page-spread curve.  Each is rendered on the lat_mem probe's own sweep
(512 B to 4x the largest cache, at most 256 MiB, 4 points an octave) as the
probe's two curves, and the guess is asserted on both paths:
  log    an mmubench log of two modes (TLB-local and random curves,
         `cpuid.*` sizes) read by mmuguess, which guesses as the image's
         lat_mem does (guess_local() in lib/guess.c: one reference, the
         pointwise fastest local curve; latencies off each mode's random
         curve);
  curve  the TLB-local curve alone, in LMbench's format, `mmuguess -t -c`
         (no disturbed point just below a step: see render()).
Right means: every level named, at its size or the sweep point below it
(never above), no level that is not there, memory claimed only past twice
the largest cache and then at memory's latency (or the TLB's more).  Deterministic
(derandomize): the same cases every run, so a failure is reproducible."""
import math
import os
import random
import subprocess

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="python3-hypothesis not installed "
                                 "(tools/install-deps installs it)")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from conftest import TOP  # noqa: E402

MMUGUESS = os.path.join(TOP, "build", "tools", "mmuguess")
MAX_BYTES = 256 << 20
CASES = 300                 # per path: about 2 s each


def sweep(top):
    """The probe's sizes: 512 B .. top, 2^k x 1, 1.25, 1.5, 1.75."""
    out, p = [], 512
    while p <= top:
        out += [p * q // 4 for q in range(4, 8) if p * q // 4 <= top]
        p *= 2
    return out


GRID = sweep(1 << 34)


def below(size):
    """The sweep point just below `size`."""
    return max(s for s in GRID if s < size)


def grid_between(lo, hi):
    return [s for s in GRID if lo <= s <= hi]


def binomial_tail(n, p, k):
    """P(Binomial(n, p) >= k)."""
    if n < k:
        return 0.0
    below_k = 0.0
    for i in range(k):
        below_k += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) +
                            i * math.log(p) + (n - i) * math.log1p(-p))
    return max(0.0, 1.0 - below_k)


def miss_fraction(level, w):
    size, _ns, smear = level
    kind = smear[0]
    if kind == "sharp":
        return 1.0 if w > size else 0.0
    if kind == "ramp":
        _, centre, width = smear
        x = math.log2(w / (centre * size)) / width
        return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, x))))
    # placement: random 4 KiB pages over the colours; "taken": one way of
    # every set held by a neighbour's lines (a busy SMT sibling), so a page
    # misses where its colour drew ways - 1 others
    _, ways = smear
    colours = max(1, size // (4096 * ways))
    if colours == 1 or w <= 4096:
        return 1.0 if w > size else 0.0
    return binomial_tail(int(w // 4096) - 1, 1.0 / colours, ways - (kind == "taken"))


def render(levels, mem_ns, sizes, rnd, noise, spikes, tlb, clear_steps=False):
    """(local, random) latency curves in ns; `tlb`: [(reach bytes, added ns)].
    clear_steps: no disturbed point in the octave below a step
    (there one raised point moves a lone curve's step a point down; the
    image's guess takes the fastest of several curves, which it cannot)."""
    local, spread = [], []
    hit = [ns for _s, ns, _m in levels] + [mem_ns]
    for w in sizes:
        lat = hit[0]
        for i, level in enumerate(levels):
            lat += miss_fraction(level, w) * (hit[i + 1] - hit[i])
        lat *= 1.0 + rnd.gauss(0.0, noise)
        local.append(lat)
        spread.append(lat + sum(add for reach, add in tlb if w > reach))
    near = {k for size, _ns, _m in levels for k, w in enumerate(sizes)
            if size / 2 <= w <= size * 1.25} if clear_steps else set()
    hit_at = set()
    for i in spikes:                      # another job, at single points (none within
        k = i % len(sizes)                # two of another: median-of-3 keeps such a pair)
        if k not in near and not set(range(k - 2, k + 3)) & hit_at:
            local[k] *= 1.3 + (i % 17) / 10.0
            hit_at.add(k)
    return local, spread


@st.composite
def ramp(draw):
    """A step smeared over `width` octaves (logistic), its middle moved off
    the size the more it is smeared: 0.88-1.03 of it at 0.2 octaves, within
    2 % when near-sharp (a narrow step off the size would be a cache of
    another size).  That is where lib/guess.c names the size or the point
    below for every k of k x 2^n (0.79-1.05 for all k); for 2^n sizes its
    window is 0.81-1.15, which holds the crossings seen on Zen 3 (0.86 of
    a 512 KiB L2) and Zen 4 (0.83-0.88 and 1.12 of 1 MiB) guests
    (doc/probes.md: how levels are found)."""
    width = draw(st.floats(0.02, 0.2))
    u = draw(st.floats(-1.0, 1.0))
    return ("ramp", 1.0 + u * width * (0.6 if u < 0 else 0.15), width)


def smear(ways, taken=True):
    """A level's step: sharp, a ramp, random placement, or random placement
    with one way taken where there are 8 or more (crossing at 0.84 of the
    size for 8 ways, 0.92 for 16: the Zen 4 guests' 0.83-0.88; of 4 ways a
    neighbour holding one would be a quarter of the cache, not drawn; nor
    where the level is under 8x the one below, whose plateau the early
    start of that smear would leave shorter than an octave)."""
    kinds = [st.just(("sharp",)), ramp(), st.tuples(st.just("placement"), st.sampled_from(ways))]
    if taken and [w for w in ways if w >= 8]:
        kinds.append(st.tuples(st.just("taken"), st.sampled_from([w for w in ways if w >= 8])))
    return st.one_of(*kinds)


@st.composite
def hierarchies(draw):
    l1 = draw(st.sampled_from(grid_between(24 << 10, 128 << 10)))
    # L2 4x L1 or more; 8x for a 4-way 256 KiB L2 (Skylake client: 32 KiB
    # L1d), whose random-placement smear starts at a third of its size.
    l2 = draw(st.sampled_from([s for s in grid_between(max(256 << 10, 4 * l1), 4 << 20)
                               if s >= 512 << 10 or s >= 8 * l1]))
    # A last-level L2 (no L3: Core 2, Arm clusters) is 1 MiB or more, 8-way
    # or more; a 256 KiB L2 is 4-way (Skylake client), larger ones 8-16.
    # An L3 is 6x L2 or more (the least: a 2 MiB E-core L2 under 12 MiB).
    l3s = grid_between(max(4 << 20, 6 * l2), 320 << 20)
    if l2 >= 1 << 20:
        l3 = draw(st.one_of(st.none(), st.sampled_from(l3s)))
    else:
        l3 = draw(st.sampled_from(l3s))
    ns1 = draw(st.floats(0.8, 1.6))
    ns2 = ns1 * draw(st.floats(2.5, 4.0))
    levels = [(l1, ns1, ("sharp",)), (l2, ns2, draw(smear([4] if l2 < 512 << 10 else
                                                         [8, 12, 16] if l3 else [8, 16],
                                                         taken=l2 >= 8 * l1)))]
    if l3:
        ns3 = ns2 * draw(st.floats(2.2, 5.0))
        levels.append((l3, ns3, draw(smear([11, 12, 16]))))
        mem = ns3 * draw(st.floats(2.0, 8.0))
    else:
        mem = ns2 * draw(st.floats(5.0, 30.0))
    top = min(4 * (l3 or l2), MAX_BYTES)
    tlb = [(draw(st.sampled_from(grid_between(64 << 10, 1 << 20))), draw(st.floats(1.0, 4.0))),
           (draw(st.sampled_from(grid_between(2 << 20, 32 << 20))), draw(st.floats(5.0, 60.0)))]
    return dict(levels=levels, mem=mem, top=top, tlb=tlb, noise=draw(st.floats(0.01, 0.03)),
                spikes=draw(st.lists(st.integers(8, 200), max_size=2)),
                seed=draw(st.integers(0, 1 << 30)))


def expected_levels(h):
    """The levels the sweep can show: L1 and L2 always; L3 where the sweep
    reaches 3x it (its step and an octave of memory past it), None where it
    may or may not (between 1.5x and 3x)."""
    top = h["top"]
    out = [lv[0] for lv in h["levels"][:2]]
    if len(h["levels"]) == 3:
        l3 = h["levels"][2][0]
        out.append(l3 if top >= 3 * l3 else None if top >= 1.5 * l3 else "absent")
    return out


def right_size(got, size):
    return got in (size, below(size))


def check(h, got, what):
    """Assert the guesses `got` (name -> value, names without the prefix)."""
    want = expected_levels(h)
    desc = f"{what}: {h} -> {got}"
    for i, size in enumerate(want):
        name = f"l{i + 1}_bytes"
        if size == "absent":
            assert name not in got, desc
        elif size is None:
            assert name not in got or right_size(got[name], h["levels"][i][0]), desc
        else:
            assert name in got and right_size(got[name], size), desc
    assert f"l{len(want) + 1}_bytes" not in got, desc
    biggest = h["levels"][-1][0]
    if "mem_ns" in got:                   # memory's plateau, not the level's before it:
        assert h["top"] >= 2 * biggest, desc   # one point of it, 3 % noise a point
        assert got["mem_ns"] >= 0.8 * h["mem"], desc
    elif h["top"] >= 4 * biggest:
        assert False, f"memory not claimed with the sweep at 4x the largest cache: {desc}"


def parse(stdout, prefix=""):
    got = {}
    for line in stdout.splitlines():
        if line.startswith("#"):
            continue
        name, value, _unit = line.split()
        if name.startswith(prefix):
            got[name[len(prefix):]] = float(value)
    return got


def mmuguess(*args):
    p = subprocess.run([MMUGUESS, *args], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def write_log(path, h):
    sizes = sweep(h["top"])
    lines = ["# platform: Linux (sandbox) under KVM (generated)"]
    for i, (size, _ns, _m) in enumerate(h["levels"]):
        lines.append(f"# measurement cpuid.4k.l{i + 1}_bytes {size} bytes")
    for k, mode in enumerate(("4k", "thp")):
        rnd = random.Random(h["seed"] + k)
        local, spread = render(h["levels"], h["mem"], sizes, rnd, h["noise"],
                               [s + 7 * k for s in h["spikes"]], h["tlb"] if mode == "4k" else [])
        for s, a, b in zip(sizes, local, spread):
            lines.append(f"# measurement lat_mem.{mode}.local_{s}_ns {a:.2f} ns")
            lines.append(f"# measurement lat_mem.{mode}.random_{s}_ns {b:.2f} ns")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def write_curve(path, h):
    sizes = sweep(h["top"])
    local, _ = render(h["levels"], h["mem"], sizes, random.Random(h["seed"]), h["noise"],
                      h["spikes"], [], clear_steps=True)
    # LMbench's format: sizes in MB, read back in 512-byte units
    path.write_text('"stride=64\n' + "".join(f"{s / 1048576:.9f} {ns:.3f}\n"
                                             for s, ns in zip(sizes, local) if s % 512 == 0))
    return str(path)


SETTINGS = settings(max_examples=CASES, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(h=hierarchies())
def test_generated_hierarchy_log_path(tmp_path, h):
    """As the image guesses (two modes' curves, one reference)."""
    out = mmuguess(write_log(tmp_path / "run.log", h))
    for mode in ("4k", "thp"):
        check(h, parse(out, f"lat_mem.{mode}."), f"log path, mode {mode}")


@SETTINGS
@given(h=hierarchies())
def test_generated_hierarchy_curve_path(tmp_path, h):
    """One TLB-local curve in LMbench's format, the CPU's largest cache given."""
    largest = max(size for size, _ns, _m in h["levels"])
    check(h, parse(mmuguess("-t", write_curve(tmp_path / "c.txt", h), "-c", str(largest))),
          "curve path")


def test_generator_covers_the_range():
    """The strategy reaches the corners the docstring promises (so the two
    tests above do test them): 1.25 MiB L2s, no L3, L3 past the sweep,
    each kind of smear."""
    seen = set()

    @settings(max_examples=400, deadline=None, derandomize=True, database=None)
    @given(h=hierarchies())
    def draw(h):
        l2 = h["levels"][1]
        seen.add(("l2", l2[0] == 1280 << 10))
        seen.add(("smear", l2[2][0]))
        seen.add(("l3", len(h["levels"]) == 3))
        if len(h["levels"]) == 3:
            seen.add(("l3 past the sweep", h["top"] < 3 * h["levels"][2][0]))
    draw()
    for key in (("l2", True), ("l3", False), ("l3", True), ("l3 past the sweep", True),
                ("smear", "sharp"), ("smear", "ramp"), ("smear", "placement"),
                ("smear", "taken")):
        assert key in seen, key


# --- recorded curves of real machines (selftest/data/README.md) -----------

DATA = os.path.join(TOP, "selftest", "data")


@pytest.mark.parametrize("name,args,prefixes,l1,l2", [
    # Intel Xeon (Golden/Redwood Cove server core) KVM guest, getconf L1d
    # 48 KiB, L2 2 MiB; the thp mode's random curve of an older image (no
    # local curve then), its TLB steps among the caches (first level at
    # 256-384 KiB, a ramp into L2's own step).
    ("xeon-sandbox-thp-random.txt", ["-t", "-c", "503316480"], [""], 48 << 10, 2 << 20),
    # AMD EPYC Zen 4 KVM guest, CPUID L1d 32 KiB, L2 1 MiB: a whole log of
    # lat_mem in 4k and thp, 3 repetitions (the log path, as the image).
    ("epyc-zen4-sandbox-lat_mem.log", [], ["lat_mem.4k.", "lat_mem.thp."], 32 << 10, 1 << 20),
])
def test_recorded_curves_name_the_cpus_caches(name, args, prefixes, l1, l2):
    path = os.path.join(DATA, name)
    cmd = [args[0], path, *args[1:]] if args else [path]
    out = mmuguess(*cmd)
    for prefix in prefixes:
        got = parse(out, prefix)
        assert right_size(got.get("l1_bytes"), l1), out
        assert right_size(got.get("l2_bytes"), l2), out
