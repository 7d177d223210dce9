"""The reference in doc/ against the code: every probe, every mode of
every board, every boot argument and every measurement name the code has
is documented there; and the README's layout table lists exactly the
repository's top level.

The names come from the code itself: the probe table and each probe's
struct probe (tests/), the modes' tables (mmu_modes[] in arch/<arch>/), the argument
tables (struct boot_arg in boot/, arch/, tests/; Linux's keys in
boot/args_linux.c), and for measurements the recorded logs of
selftest/data/report/ (ref405ep, pc) plus a quick sandbox run on this
machine.  The sandbox's own lists (its --help, its error for an unknown
probe or mode) are checked against the source's, so the parsing here
cannot drift from what the program offers."""
import glob
import os
import re
import subprocess

import pytest

from conftest import TOP, parse

SANDBOX = os.path.join(TOP, "build", "sandbox", "mmubench")
DOC = os.path.join(TOP, "doc")
COUNTERS = ("dtlb_misses", "itlb_misses", "page_faults", "prot_faults", "tlb_writes", "flushes")


def read(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return f.read()


def doc_text(name=None):
    files = [os.path.join(DOC, name)] if name else sorted(glob.glob(os.path.join(DOC, "*.md")))
    assert files, "no doc/*.md"
    return "\n".join(open(f, encoding="utf-8").read() for f in files)


def c_sources(*dirs):
    return sorted(f for d in dirs for f in glob.glob(os.path.join(TOP, d, "**", "*.c"),
                                                     recursive=True))


# ---- the names in the code ----------------------------------------------

def probe_names():
    """Each probe of tests/probe_table.c, by its struct probe's .name."""
    table = read("tests/probe_table.c")
    symbols = re.findall(r"&probe_(\w+)", table)
    names = {}
    for path in c_sources("tests"):
        for sym, name in re.findall(r"const struct probe probe_(\w+) = \{.*?\.name = \"(\w+)\"",
                                    open(path).read(), re.S):
            names[sym] = name
    assert symbols and set(symbols) <= set(names), (symbols, names)
    return [names[s] for s in symbols]


def mode_names():
    """{arch: [mode, ...]} from each arch's mmu_modes[] table (arch/<arch>/*.c)."""
    modes = {}
    for arch_dir in sorted(glob.glob(os.path.join(TOP, "arch", "*"))):
        text = "\n".join(open(f).read() for f in sorted(glob.glob(os.path.join(arch_dir, "*.c"))))
        table = re.search(r"mmu_modes\[\] = \{(.*?)\};", text, re.S)
        if not table:
            continue            # arch/x86: shared code, no modes of its own
        structs = dict(re.findall(r"struct mmu_mode (\w+) = \{\s*\"([\w-]+)\"", text))
        members = re.findall(r"&(\w+)", table.group(1))
        assert members and set(members) <= set(structs), (arch_dir, members, structs)
        modes[os.path.basename(arch_dir)] = [structs[m] for m in members]
    assert {"ppc405", "i386", "sandbox"} <= set(modes), modes
    return modes


def boot_arg_keys():
    """Every key of every struct boot_arg table in the image's sources."""
    keys = set()
    for path in c_sources("boot", "arch", "tests"):
        text = open(path).read()
        for m in re.finditer(r"struct boot_arg(?: \w+\[\] = |\[\]\))\{", text):
            body = text[m.end():text.index("{ 0 }", m.end())]
            keys |= set(re.findall(r"\{\s*\"([\w.]+)\",", body))
    assert keys
    return keys


def linux_keys():
    body = re.search(r"linux_keys\[\] = \{(.*?)\};", read("boot/args_linux.c"), re.S)
    assert body, "boot/args_linux.c: no linux_keys[]"
    keys = re.findall(r"\"([^\"]+)\"", body.group(1))
    assert keys
    return keys


def sandbox(*args):
    p = subprocess.run([SANDBOX, *args], capture_output=True, text=True, timeout=300,
                       errors="replace")
    return p


@pytest.fixture(scope="module")
def built():
    subprocess.run(["make", "-s", "-C", TOP, "BOARD=sandbox"], check=True, timeout=600)


def listed(text):
    """The names of a usage listing: '  name   what' lines."""
    return re.findall(r"^  (\S+) ", text, re.M)


def test_the_parsed_lists_are_the_sandboxs(built):
    help_text = sandbox("--help")
    assert help_text.returncode == 0
    keys = [k for k in listed(help_text.stdout) if not k.startswith("(")]
    assert keys and set(keys) <= boot_arg_keys(), set(keys) - boot_arg_keys()
    assert "(Linux's, accepted and ignored: " + " ".join(linux_keys()) + ")" in help_text.stdout
    p = sandbox("probes=no_such_probe")
    assert p.returncode != 0 and listed(p.stderr) == probe_names()
    p = sandbox("modes=no_such_mode")
    assert p.returncode != 0 and listed(p.stderr) == mode_names()["sandbox"]


# ---- probes, modes, arguments documented --------------------------------

def test_every_probe_documented():
    probes_md = doc_text("probes.md")
    missing = [p for p in probe_names() if f"| `{p}` |" not in probes_md]
    assert not missing, f"probes not in doc/probes.md's table: {missing}"


def test_every_mode_documented():
    modes_md = doc_text("modes.md")
    missing = [f"{arch}: {m}" for arch, ms in mode_names().items() for m in ms
               if not re.search(rf"^\| {arch} \|[^|]*`{re.escape(m)}`", modes_md, re.M)]
    assert not missing, f"modes not in doc/modes.md's table: {missing}"


def test_every_boot_argument_documented():
    args_md = doc_text("boot-arguments.md")
    missing = [k for k in sorted(boot_arg_keys())
               if f"`{k}=" not in args_md and f"`{k}`" not in args_md]
    missing += [k for k in linux_keys() if f"`{k}`" not in args_md]
    assert not missing, f"boot arguments not in doc/boot-arguments.md: {missing}"


# ---- measurement names --------------------------------------------------

# Names indexed by a size or a count, by probe: the digits become the
# placeholder doc/measurements.md writes.
INDEXED = {
    "aspace": [(r"^\d+p_\d+k_", "<n>p_<k>k_")],
    "ctx": [(r"^\d+p_\d+k_", "<n>p_<k>k_")],
    "tlb": [(r"^\d+p_\d+[km]_", "<P>p_<size>_"), (r"^\d+p_", "<P>p_")],
    "lat_mem": [(r"^(stride|random|local)_\d+_ns$", r"<pattern>_<bytes>_ns")],
    "bw_mem": [(r"^(rd|wr|cp_libc|cp_hand|frd|fwr|fcp)_\d+_mbs$", r"<col>_<bytes>_mbs")],
}


def normalise(name):
    """'tlb.normal.96p_ns' -> 'tlb.<mode>.<P>p_ns'."""
    probe, _mode, metric = name.split(".", 2)
    if metric in COUNTERS:
        return f"<probe>.<mode>.{metric}"
    for pattern, placeholder in INDEXED.get(probe, []):
        new = re.sub(pattern, placeholder, metric)
        if new != metric:
            metric = new
            break
    return f"{probe}.<mode>.{metric}"


def documented(name, text):
    """The name as a whole word, or a timed headline's _cycles/_spread twin
    of a documented _ns name (doc/measurements.md's rule of threes)."""
    def has(n):
        return re.search(rf"(?<![\w.<>]){re.escape(n)}(?![\w<>])", text) is not None
    if has(name):
        return True
    twin = re.sub(r"_(cycles|spread)$", "_ns", name)
    return twin != name and has(twin)


def measured(built):
    """{name: unit} of every measurement in the recorded logs and a sandbox run."""
    logs = sorted(glob.glob(os.path.join(TOP, "selftest", "data", "report", "*.log")))
    assert logs, "no recorded logs in selftest/data/report/"
    found = {}
    for path in logs:
        found.update(parse(open(path, errors="replace").read()).measurements)
    p = sandbox("quick")
    run = parse(p.stdout)
    assert run.measurements, f"the sandbox printed no measurements:\n{p.stdout[-2000:]}"
    found.update(run.measurements)
    return {name: unit for name, (_value, unit) in found.items()}


@pytest.fixture(scope="module")
def measurements(built):
    return measured(built)


@pytest.fixture(scope="module")
def names(measurements):
    return set(measurements)


@pytest.fixture(scope="module")
def units(measurements):
    return set(measurements.values())


def test_every_measurement_name_documented(names):
    text = doc_text()
    kinds = {normalise(n) for n in names}
    missing = sorted(k for k in kinds if not documented(k, text))
    print(f"{len(names)} measurement names, {len(kinds)} after normalising")
    assert not missing, f"measurement names not in doc/: {missing}"


def test_every_unit_documented(units):
    listed_units = re.search(r"\(units: (.*?)\)", doc_text("result-format.md"), re.S)
    assert listed_units, "doc/result-format.md lists no units"
    documented_units = set(re.findall(r"`([^`]+)`", listed_units.group(1)))
    assert units and not units - documented_units, sorted(units - documented_units)


def test_normalising_keeps_names_apart():
    assert normalise("tlb.normal.96p_ns") == "tlb.<mode>.<P>p_ns"
    assert normalise("tlb.largepte.6p_16m_ns") == "tlb.<mode>.<P>p_<size>_ns"
    assert normalise("aspace.4k.16p_64k_remap_ns") == "aspace.<mode>.<n>p_<k>k_remap_ns"
    assert normalise("lat_mem.pae.random_4096_ns") == "lat_mem.<mode>.<pattern>_<bytes>_ns"
    assert normalise("bw_mem.flat.cp_libc_8388608_mbs") == "bw_mem.<mode>.<col>_<bytes>_mbs"
    assert normalise("demand.normal.page_faults") == "<probe>.<mode>.page_faults"
    assert normalise("demand.normal.page_faults_counted") == "demand.<mode>.page_faults_counted"
    text = "`tlb.<mode>.miss_ns` and `boot.<mode>.heap_kib`"
    assert documented("tlb.<mode>.miss_cycles", text)
    assert not documented("tlb.<mode>.l2_miss_ns", text)
    assert not documented("boot.<mode>.heap", text)


# ---- the README's layout table -------------------------------------------

def layout_entries():
    readme = read("README.md")
    section = re.search(r"^## Layout\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    assert section, "README.md has no '## Layout' section"
    rows = re.findall(r"^\| `([^`]+)` \|", section.group(1), re.M)
    assert rows, "README.md's layout table has no rows"
    return rows


def top_level():
    p = subprocess.run(["git", "-C", TOP, "ls-files"], capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"not a git checkout: {p.stderr.strip()}")
    names = {path.split("/")[0] for path in p.stdout.split("\n") if path}
    return {n for n in names if not n.startswith(".") and n != "README.md"}


def test_readme_layout_is_the_top_level():
    rows = layout_entries()
    assert len(rows) == len(set(rows)), f"listed twice: {rows}"
    listed_names = {r.rstrip("/") for r in rows}
    top = top_level()
    assert listed_names == top, (f"in the layout table, not in the repository: "
                                 f"{sorted(listed_names - top)}; in the repository, not in the "
                                 f"table: {sorted(top - listed_names)}")


# ---- host builds stay off boot/ ---------------------------------------------

def test_host_rules_name_no_boot_file_but_the_fuzzed_argument_parser():
    """The host tools share code with the image through lib/ alone: after the
    board build (everything past `FORCE:`), the only boot/ files a rule may
    name are the argument parser's, which the fuzz target builds for the host."""
    makefile = read("Makefile")
    host = makefile[makefile.index("\nFORCE:\n"):]
    named = set()
    for line in host.splitlines():
        if not line.lstrip().startswith("#"):
            named |= set(re.findall(r"\bboot/[\w.]+", line))
    allowed = {"boot/args.c", "boot/args_linux.c", "boot/args.o", "boot/args_linux.o"}
    assert named <= allowed, f"host rules name boot/ files: {sorted(named - allowed)}"
