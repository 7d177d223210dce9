"""Page Fault and Mmap Latency by LMbench 2.0's methods on the boards
(tests/pagefault.c, tests/mmap.c's lat_mmap, boot/proc.c's RAM file and
lazy file mappings): ref405ep and ppce500 under -icount in every mode,
twice, identical; pc in all five modes with global=0 and global=1; bad
input (an unmap of what was never mapped, a read outside any mapping)
fails with the kernel's error and a register dump, never a hang; and
mmureport --lmbench fills Page Fault and Mmap Latency from these logs.

The kernel-page misses one run's faults add (fault_kernel_*: a run with
the reads less one without, each from a flushed TLB, fewer than the TLB's
entries written so nothing loaded since is evicted), derived from the
layout: the fault's handling runs with the kernel's translation
(user_kernel_call) and touches the window's page table (the table pool at
the top of RAM, above the pins and in the top large page), the file's
page-cache entries and the frames' reference counts (heap, their
addresses in the probe's diagnostic), and code of its own.  pinned and
largepte: the page table's page (a 4K PTE above the 32 MiB pins; the top
16 MiB page, which nothing else of the run touches) and nothing else.
normal: that page, every 4K page of those entries and the page of the
pool's reference counts (FAULT_DATA), less the pages the run without
faults reads too (the file's record, the frames array, RUN_DATA's
variables), plus the code pages of the fault path the run without faults
does not execute; on the e500 also the pins' table, and each page's
misses where TLB0's sets evict (test_ppce500).  Traces of both runs (a
QEMU plugin, not in the tree) showed which variables each run reads.

Mmap Latency's misses (one lat_mmap, all four counters): in pinned and
largepte from an ordered model of its pages through each TLB; in normal,
where every kernel page is a 4K entry too, from the traced address stream
of two counted lat_mmaps (tools/plugin/pagetrace.c) through the same TLB.
"""
import re
import subprocess

import pytest

from conftest import TOP, assert_icount_runs, elf_symbols, run_qemu, the_exception

PAGE = 4096
PIN_END = 32 << 20
TRANSLATED = ("normal", "pinned", "largepte")
FILE = 2032 << 10          # the largest 16K multiple the mmap part below the stack holds (2044 KiB)
READS = 8                  # from FILE - 16K down 256 KiB while above 0
LAT_KB = (512, 1024, 2048, 4096, 8192)     # LMbench's sizes from 320 KiB to its summary's
LAT_TOUCHES = 52           # lat_mmap 8 MiB: 8 MiB / 10 in 16 KiB steps
ARGS = ("probes=pagefault,mmap", "modes=all")


@pytest.fixture(scope="module")
def ppc405():
    return [run_qemu("ref405ep", *ARGS, "reps=1", timeout=300) for _ in range(2)]


@pytest.fixture(scope="module")
def e500():
    return [run_qemu("ppce500", *ARGS, "quick", timeout=300) for _ in range(2)]


def faults(run, mode):
    return (run.value(f"pagefault.{mode}.fault_kernel_dtlb_misses"),
            run.value(f"pagefault.{mode}.fault_kernel_itlb_misses"))


def common(runs):
    assert_icount_runs(runs, ("pagefault",), TRANSLATED, "tlb")
    assert_icount_runs(runs, ("mmap",), ("real",) + TRANSLATED, "tlb")
    run = runs[0]
    assert run.results["pagefault.real"] == "skip"
    assert not [m for m in run.measurements if m.startswith("mmap.real.lat_mmap")]
    for mode in TRANSLATED:
        # one counted run: exactly the reads' faults, no protection fault
        assert run.value(f"pagefault.{mode}.pagefault_reads") == READS
        assert run.value(f"pagefault.{mode}.pagefault_page_faults") == READS
        assert run.value(f"pagefault.{mode}.pagefault_prot_faults") == 0
        assert run.value(f"pagefault.{mode}.pagefault_ns") > 0
        # lat_mmap: one fault per write, lazily; the sweep's sizes
        assert run.value(f"mmap.{mode}.lat_mmap_page_faults") == LAT_TOUCHES
        assert run.value(f"mmap.{mode}.lat_mmap_prot_faults") == 0
        for kb in LAT_KB:
            assert run.value(f"mmap.{mode}.lat_mmap_{kb}k_us") > 0
        # the summary's size: the 16 MiB window holds an 8 MiB mapping above the stack
        assert run.value(f"mmap.{mode}.lat_mmap_us") == run.value(f"mmap.{mode}.lat_mmap_8192k_us")
        assert f"{mode}: lat_mmap: 8192 KiB," in run.log
    for mode in ("pinned", "largepte"):
        assert faults(run, mode) == (1, 0), (mode, faults(run, mode))
    return run


def file_layout(run, mode):
    """The probe's diagnostic: the file's frames, its page cache, its
    reference counts (boot/proc.c proc_file_create)."""
    text = "\n".join(run.lines)
    starts = [m.start() for m in re.finditer(rf"^ok \d+ pagefault\.{mode}\b", text, re.M)]
    m = list(re.finditer(r"processes: a (\d+)-page file: frames 0x([0-9a-f]+), page cache "
                         r"0x([0-9a-f]+), their reference counts 0x([0-9a-f]+)",
                         text[:starts[0]]))[-1]
    return int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16), int(m.group(4), 16)


def run_layout(run):
    """The pages of the process's window table and frames array and the
    file's record (the probe's diagnostics), which the run without faults
    reads too but for the table."""
    text = "\n".join(run.lines)
    m = re.search(r"^# pagefault\.normal: the process's window table 0x([0-9a-f]+), frames array "
                  r"0x([0-9a-f]+)", text, re.M)
    record = re.search(r"processes: a \d+-page file: .*, its record 0x([0-9a-f]+)", text).group(1)
    return int(m.group(1), 16) // PAGE, int(m.group(2), 16) // PAGE, int(record, 16) // PAGE


def entry_pages(cache, refs):
    """The 4K pages of the page-cache entries and reference counts the
    reads' faults touch."""
    ks = [(FILE - (16 << 10) - j * (256 << 10)) // PAGE for j in range(READS)]
    return {(cache + 4 * k) // PAGE for k in ks} | {(refs + k) // PAGE for k in ks}


def code_pages(syms, names):
    out = set()
    for n in names:
        a, size = syms[n]
        out |= set(range(a // PAGE, (a + size - 1) // PAGE + 1))
    return out


# What the fault's handling executes translated, and what a run without
# faults executes translated (boot/proc.c, boot/mmu.c, arch/powerpc/pagetable.c,
# each arch's user.c and mmu.c).
FAULT_CODE = ("user_kernel_call", "file_fault", "map_of", "mmu_map", "owner_ok", "ppc_pt_map",
              "change", "ppc_pte_slot", "pt_may_change", "proc_frame_ref")
RUN_CODE = ("proc_mmap_file", "map_new", "map_of", "proc_run", "user_enter", "mmu_space_switch",
            "proc_munmap", "page_drop")
# Kernel variables the faults read (proc_frame_ref: the pool's reference
# counts) and those the run without faults reads too (as a trace of it
# shows: the process, the mode's ops, the current space, the scheduler's
# run, the MMU state block).
FAULT_DATA = ("pool_base", "pool_ref")
RUN_DATA = ("procs[0]", "ops", "mmu_current_space", "running", "run", "mmu_count")
PROC_SLOTS = 20             # boot/proc_sched.h: procs[] of boot/proc.c


def data_pages(syms, names):
    """The pages of kernel variables; procs[0]: the run's process only (the
    first free slot: every probe's processes are gone before the next)."""
    out = set()
    for n in names:
        a, size = syms[n.split("[")[0]]
        if n.endswith("[0]"):
            size //= PROC_SLOTS
        out |= set(range(a // PAGE, (a + size - 1) // PAGE + 1))
    return out


def test_ppc405(ppc405):
    run = common(ppc405)
    n, frames, cache, refs = file_layout(run, "normal")
    assert n * PAGE == FILE and frames >= PIN_END and cache < PIN_END and refs < PIN_END
    syms = elf_symbols(f"{TOP}/build/ref405ep/mmubench.elf")
    code = code_pages(syms, FAULT_CODE + ("ppc405_tlb_invalidate",)) - code_pages(
        syms, RUN_CODE + ("space_switch",))
    table, frames_array, record = run_layout(run)
    data = ({table} | entry_pages(cache, refs) | data_pages(syms, FAULT_DATA)) - (
        {record, frames_array} | data_pages(syms, RUN_DATA + ("ppc405_ops", "ppc405_pgd")))
    assert faults(run, "normal") == (len(data), len(code)), (data, code, run.log)
    assert run.value("pagefault.normal.pagefault_ns") > run.value("pagefault.pinned.pagefault_ns")


def lat_mmap_iteration(img, pool, touches=LAT_TOUCHES):
    """One lat_mmap and the empty run after it (tests/mmap.c lat_counts),
    as the 405's TLB sees it in pinned (img None: the image, heap and stack
    pinned) and largepte (img: the image's 16 MiB page).  Entries: the
    user text page Ut and stack page Us (the job lies at its top), the
    written window pages W_k, and `pool`: the page (pinned: 4K; largepte:
    its 16 MiB page) of the mapping's page table, off the top of RAM, which
    each fault's mapping and each page's unmap write.  The kernel fetches
    first in each of its stretches (img's misses are instruction misses),
    and again after each of its own loads.  ("win", on) brackets the
    counted lat_mmap; a write's first miss faults and loads nothing."""
    def k(*xs):
        return [x for x in xs if x[1] is not None]
    s = [("win", True)] + k(("I", img), ("D", img), ("D", "Us"), ("I", img))
    s += [("I", "Ut"), ("D", "Us")]
    for w in range(touches):
        s += [("fault", ("W", w))] + k(("I", img), ("D", img), ("D", pool), ("I", img), ("D", img))
        s += [("I", "Ut"), ("D", ("W", w))]
    s += [("D", "Us")] + k(("I", img), ("D", img), ("D", "Us"), ("I", img), ("I", img), ("D", img))
    for w in range(touches):
        s += k(("D", pool), ("I", img), ("D", img)) + [("drop", ("W", w))]
    s += [("win", False)] + k(("I", img), ("D", img), ("D", "Us"), ("I", img))
    s += [("I", "Ut"), ("D", "Us"), ("D", "Us")] + k(("I", img), ("D", img), ("D", "Us"), ("I", img))
    return s


def replay(seq, slots, start, step, kernel, warm=32, counted=64):
    """lat_counts' loop through `slots` entries replaced in turn (the
    victim moving by `step`: the 405's counts down, each e500 set's up); a
    hit changes nothing; tlbwe on munmap empties a slot and the victim
    moves on.  The sums over the counted lat_mmaps: {D, I, kD, kI}."""
    tlb, victim, n = [None] * slots, start, dict.fromkeys(("D", "I", "kD", "kI"), 0)
    for it in range(warm + counted):
        on = False
        for op, e in seq:
            if op == "win":
                on = e and it >= warm
            elif op == "drop":
                tlb = [None if x == e else x for x in tlb]
            elif op == "fault":
                n["D"] += on and e not in tlb
            elif e not in tlb:
                tlb[victim], victim = e, (victim + step) % slots
                if on:
                    n[op] += 1
                    n["k" + op] += e in kernel
    return n


def mean(sums, counted=64):
    """(kernel D, kernel I, all D, all I) a lat_mmap: the mean, to the nearest."""
    return tuple((sums[c] + counted // 2) // counted for c in ("kD", "kI", "D", "I"))


def round_robin_lat_mmap(seq, slots, kernel):
    """The 405's round robin over lat_counts' loop, for every start of the
    victim: a set of means."""
    return {mean(replay(seq, slots, start, -1, kernel)) for start in range(slots)}


def test_ppc405_lat_mmap_from_the_model(ppc405):
    """Mmap Latency's misses on the 405 in pinned and largepte, all of them
    (kernel and user), from the model above.  Premises asserted: the user
    routine is one page; the page-table pool lies above the pins (the
    pagefault probe's window table, from the same pool); the image, heap
    and stack lie below them, in the first 16 MiB.  normal's 4K kernel
    pages: test_ppc405_lat_mmap_normal_from_the_traced_stream."""
    run = ppc405[0]
    syms = elf_symbols(f"{TOP}/build/ref405ep/mmubench.elf")
    assert syms["user_code_end"][0] - syms["user_code"][0] <= PAGE
    text = "\n".join(run.lines)
    table = int(re.search(r"^# pagefault\.normal: the process's window table 0x([0-9a-f]+)",
                          text, re.M).group(1), 16)
    heap = re.search(r"^# image: .*heap 0x[0-9a-f]+-0x([0-9a-f]+), stack 0x[0-9a-f]+-0x([0-9a-f]+)",
                     text, re.M)
    assert table >= PIN_END and max(int(g, 16) for g in heap.groups()) <= 16 << 20, text
    for mode, seq, slots, kernel in (
            ("pinned", lat_mmap_iteration(None, "T"), 62, {"T"}),
            ("largepte", lat_mmap_iteration("IMG", "POOL"), 64, {"IMG", "POOL"})):
        model = round_robin_lat_mmap(seq, slots, kernel)
        assert len(model) == 1, (mode, model)
        got = tuple(run.value(f"mmap.{mode}.lat_mmap_{c}") for c in
                    ("kernel_dtlb_misses", "kernel_itlb_misses", "dtlb_misses", "itlb_misses"))
        assert got == model.pop(), (mode, got)


# ---- the 405 in mode normal: its TLB over the traced address stream ----
#
# In normal every kernel page is a 4K entry beside the user's, and
# lat_mmap's kernel path (the map, 52 faults, the 2048-page unmap) touches
# too many of them, interleaved too finely, to list by hand as the rings'
# model does.  So the address stream of two counted lat_mmaps is traced
# (tools/plugin/pagetrace.c) and replayed through the same round robin.
# The plugin sees addresses, not MSR: translation is inferred from the
# image's code, each premise asserted -- off from an exception's entry
# (EVPR) to the rfi that leaves it, except after the miss handlers' own
# rfi (back to the translated access) and inside POWERPC_WITH_KMSR
# (user_kernel_call, ppc405_user_syscall: the first mtmsr on, the second
# off); ppc405_tlb_invalidate turns it off and back on; every other mtmsr
# or rfi the stretch executes is an error.  The counts are windowed as the
# probe reads them: each counter from its load in `a = mmu_count` to its
# load in `b = mmu_count` (tests/mmap.c lat_counts, mmap_run).

COUNTERS = {0: "I", 4: "D", 24: "kI", 28: "kD"}     # struct mmu_counters offsets


def symbol_extents(elf):
    """name -> (start, end), a symbol without a size up to the next one."""
    out = subprocess.run(["powerpc-linux-gnu-nm", "-n", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    rows = [line.split() for line in out.splitlines()]
    rows = [r for r in rows if len(r) in (3, 4)]
    ext = {}
    for i, r in enumerate(rows):
        a = int(r[0], 16)
        end = a + int(r[1], 16) if len(r) == 4 else (int(rows[i + 1][0], 16) if i + 1 < len(rows) else a + 4)
        ext.setdefault(r[-1], (a, end))
    return ext


def msr_changes(elf, start=None, end=None, op="mtmsr|rfi"):
    """The addresses of the mtmsr and rfi instructions in [start, end)
    (the whole image without a range)."""
    span = [f"--start-address={start}", f"--stop-address={end}"] if start is not None else []
    out = subprocess.run(["powerpc-linux-gnu-objdump", "-d", *span, elf], capture_output=True,
                         text=True, check=True).stdout
    return [int(line.split(":")[0], 16) for line in out.splitlines()
            if re.search(rf"\t({op})\b", line)]


def translation_switches(elf, ext):
    """(on, off, back, kept): the mtmsr that turn translation on and off,
    the rfi that return to translated code, and the rfi that keep the MSR."""
    on, off = set(), set()
    for fn in ("user_kernel_call", "ppc405_user_syscall", "ppc405_tlb_invalidate"):
        m = msr_changes(elf, *ext[fn], "mtmsr")
        assert len(m) == 2, (fn, m)
        first, second = (on, off) if fn != "ppc405_tlb_invalidate" else (off, on)
        first.add(m[0]), second.add(m[1])
    back = {x for fn in ("ppc405_user_enter", "ppc405_user_return", "exc_common")
            for x in msr_changes(elf, *ext[fn], "rfi")}
    kept = set(msr_changes(elf, *ext["ppc405_pid_restore"], "rfi"))
    assert back and kept, (back, kept)
    return on, off, back, kept


def replayable(path, ext, insn, data_translated):
    """A trace (tools/plugin/pagetrace.c) as [(kind, page)]: kind I or D
    for an access through the TLB, "fault" (a DTLB miss with no PTE),
    "inval" (the TLB invalidation entered), ("cnt", counter) (mmap_run
    loading an mmu_count counter); consecutive accesses to one page as
    one.  insn(pc): what an executed instruction adds (its fetch, events);
    data_translated(): whether a data access now goes through the TLB."""
    run0, run1 = ext["mmap_run"]
    count = ext["mmu_count"][0]
    out = []

    def add(x):
        if not (out and x[0] in "ID" and out[-1][0] in "ID" and out[-1][1] == x[1]):
            out.append(x)
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "I":
                for pc in range(int(w[1], 16), int(w[2], 16) + 4, 4):
                    for x in insn(pc):
                        add(x)
                continue
            va, pc = int(w[1], 16), int(w[2], 16)
            if w[0] == "R" and run0 <= pc < run1 and va - count in COUNTERS:
                out.append(("cnt", COUNTERS[va - count]))
            if data_translated():
                add(("D", va >> 12))
    return out


def traced_stream(path, elf):
    """The 405's trace: translation off from an exception's entry (EVPR)
    to the rfi that leaves it, except after the miss handlers' own rfi
    (back to the translated access) and inside POWERPC_WITH_KMSR."""
    ext = symbol_extents(elf)
    on, off, back, kept = translation_switches(elf, ext)
    others = set(msr_changes(elf)) - on - off - back - kept
    evpr, evpr_end = ext["__evpr_area"]
    exc, inval = ext["exc_common"][0], ext["ppc405_tlb_invalidate"][0]
    st = {"xl": True, "inev": False, "last_ev": 0}

    def insn(pc):
        adds, ev = [], evpr <= pc < evpr_end
        if ev != st["inev"]:
            st["xl"] = not ev and pc != exc         # a miss handler's rfi: back where it missed
            if pc == exc and 0x1100 <= st["last_ev"] - evpr < 0x1200:
                adds.append(("fault", None))
        st["inev"], st["last_ev"] = ev, pc if ev else st["last_ev"]
        assert pc not in others, f"an MSR change the model does not know at {pc:#x}"
        if pc == inval:
            adds.append(("inval", None))
        if st["xl"]:
            adds.append(("I", pc >> 12))
        st["xl"] = True if pc in on or pc in back else False if pc in off else st["xl"]
        return adds
    return replayable(path, ext, insn, lambda: st["xl"])


def traced_stream_e500(path, elf):
    """The e500's trace.  Book-E translates always (doc/ppce500.md,
    arch/e500/vectors.S): a fetch uses TLB0 unless it lies in .vectors,
    whose one TLB1 pin is the only kernel page pinned in normal; a data
    access uses TLB0 unless MSR[DS] is set, as the miss handlers and the
    common path set it (an mtmsr after an ori: on; after anything else:
    off) and any rfi clears it.  C's mtmsr keep DS 0 (premise: none that
    follows an ori runs in the stretch)."""
    ext = symbol_extents(elf)
    pin0, pin1 = ext["__image_start"][0], ext["__vectors_pin_end"][0]
    out = subprocess.run(["powerpc-linux-gnu-objdump", "-d", elf], capture_output=True, text=True,
                         check=True).stdout
    ds_on, ds_off, rfi, prev = set(), set(), set(), ""
    for line in out.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\s+(?:[0-9a-f]{2} ){4}\s*(\S+)", line)
        if not m:
            continue
        pc, op = int(m.group(1), 16), m.group(2)
        if op == "mtmsr":
            (ds_on if prev == "ori" else ds_off).add(pc)
        rfi |= {pc} if op == "rfi" else set()
        prev = op
    ds_off -= {pc for pc in ds_off if not pin0 <= pc < pin1}     # C's mtmsr: DS stays 0
    unknown = {pc for pc in ds_on if not pin0 <= pc < pin1}      # mode changes (write_pins)
    fault, inval = ext["dfault"][0], ext["e500_tlb_invalidate"][0]
    st = {"ds": False}

    def insn(pc):
        adds = [("fault", None)] if pc == fault else [("inval", None)] if pc == inval else []
        if not pin0 <= pc < pin1:
            adds.append(("I", pc >> 12))
        assert pc not in unknown, f"an MSR change the model does not know at {pc:#x}"
        st["ds"] = True if pc in ds_on else False if pc in ds_off or pc in rfi else st["ds"]
        return adds
    return replayable(path, ext, insn, lambda: not st["ds"])


def user_page(page):
    return WINDOW <= page < WINDOW + (16 << 20) // PAGE


def with_drops(seq):
    """The unmap's invalidations as drops of the pages the faults mapped,
    in order (proc_munmap walks the window upwards): the k-th fault's page
    is the first window page the retried write touches after it; the
    faults' own invalidations (the first after each: their page has no
    entry yet) change nothing."""
    faults = [i for i, x in enumerate(seq) if x[0] == "fault"]
    mapped = [next(x[1] for x in seq[i:] if x[0] == "D" and user_page(x[1])) for i in faults]
    invals = [i for i, x in enumerate(seq) if x[0] == "inval"]
    own = {next(j for j in invals if j > i) for i in faults}      # each fault's mapping's
    unmaps = [i for i in invals if i > faults[-1] and i not in own]
    assert len(unmaps) == len(mapped) == LAT_TOUCHES, (len(unmaps), len(mapped))
    drops = dict(zip(unmaps, mapped))
    return [("drop", drops[i]) if i in drops else x for i, x in enumerate(seq) if x[0] != "inval" or i in drops]


def counter_replay(seq, start, sets=1, ways=64, step=-1, warm=32, counted=64):
    """lat_counts' loop, `seq` its period, through a TLB of `sets` sets
    (a page's: its number modulo sets) of `ways` entries, each set's victim
    moving by `step` from `start` (the 405: one set of 64, counting down;
    the e500's TLB0: 128 sets of 4, each counting up).  Each counter's sum
    over the counted periods between its two loads: {set: (kernel D,
    kernel I, D, I)}, the set of a fault's page unknown (None)."""
    tlb = [[None] * ways for _ in range(sets)]
    victim, n = [start] * sets, {}
    for it in range(warm + counted):
        on = set()
        for op, e in seq:
            if op == "cnt":
                on ^= {e}
                continue
            if op == "fault":
                if it >= warm and "D" in on:
                    n.setdefault(None, dict.fromkeys(COUNTERS.values(), 0))["D"] += 1
                continue
            ways_of = tlb[e % sets]
            if op == "drop":
                ways_of[:] = [None if x == e else x for x in ways_of]
            elif e not in ways_of:
                v = victim[e % sets]
                ways_of[v], victim[e % sets] = e, (v + step) % ways
                if it >= warm:
                    c = n.setdefault(e % sets, dict.fromkeys(COUNTERS.values(), 0))
                    c[op] += op in on
                    c["k" + op] += not user_page(e) and "k" + op in on
    return {k: tuple(c[f] for f in ("kD", "kI", "D", "I")) for k, c in n.items()}


def means(sums, counted=64):
    """The sums of every set, as the probe's means to the nearest."""
    return tuple((sum(v[i] for v in sums.values()) + counted // 2) // counted for i in range(4))


def trace_lat_mmap(board, tmp_path):
    """A normal-mode lat_mmap run with two counted lat_mmaps traced: the
    run, the image and the trace's file.  Armed at lat_mmap's
    probe_sample_us("lat_mmap"), after mmap's own and the sweep's; then
    lat_once's 32 warm runs skipped."""
    elf = f"{TOP}/build/{board}/mmubench.elf"
    syms = elf_symbols(elf)
    trace = tmp_path / "trace"
    plugin = (f"{TOP}/build/tools/pagetrace.so,arm={syms['probe_sample_us'][0]:x},"
              f"armn={2 + len(LAT_KB)},on={syms['lat_once'][0]:x},skip=32,span=2,out={trace}")
    run = run_qemu(board, "probes=mmap", "modes=normal", "reps=1", timeout=300,
                   extra=("--qemu", "-plugin", "--qemu", plugin))
    assert run.status() == "pass", run.log
    return run, elf, trace


def lat_mmap_period(seq):
    """One period of lat_counts' loop in the stream: from one `a =
    mmu_count` to the next (the trace: b, a, b, a of four counters each)."""
    loads = [i for i, x in enumerate(seq) if x[0] == "cnt"]
    assert len(loads) == 16, loads
    return with_drops(seq[loads[4]:loads[12]])


def lat_mmap_counts(run):
    return tuple(run.value(f"mmap.normal.lat_mmap_{c}") for c in
                 ("kernel_dtlb_misses", "kernel_itlb_misses", "dtlb_misses", "itlb_misses"))


def test_ppc405_lat_mmap_normal_from_the_traced_stream(tmp_path):
    """Mmap Latency's misses on the 405 in mode normal, all four counters:
    the traced period through the round robin, the same for every start
    of the victim tried, equal to the probe's own counts."""
    run, elf, trace = trace_lat_mmap("ref405ep", tmp_path)
    period = lat_mmap_period(traced_stream(trace, elf))
    model = {means(counter_replay(period, start)) for start in range(0, 64, 8)}
    assert model == {lat_mmap_counts(run)}, (model, lat_mmap_counts(run))


def test_ppce500_lat_mmap_normal_from_the_traced_stream(tmp_path):
    """The same on the e500 in mode normal: the traced period through
    TLB0's 128 sets of 4, each set's own round robin; each set's misses
    the same from every start of its victim (so any mix of starts gives
    the same), their sum equal to the probe's counts."""
    run, elf, trace = trace_lat_mmap("ppce500", tmp_path)
    period = lat_mmap_period(traced_stream_e500(trace, elf))
    per_start = [counter_replay(period, start, E500_SETS, E500_WAYS, 1) for start in range(E500_WAYS)]
    assert all(p == per_start[0] for p in per_start), per_start
    assert means(per_start[0]) == lat_mmap_counts(run), (means(per_start[0]), lat_mmap_counts(run))


def per_set_lat_mmap(seq, set_of, ways=4):
    """The e500's TLB0 over the same loop: each set its own round robin
    (the victim counting up), set_of(entry) its set or None where TLB1
    maps it; sets are independent, each run from each victim start.  The
    means of the sums for the lowest and the highest starts."""
    sets = {}
    for op, e in seq:
        if op != "win" and set_of(e) is not None:
            sets.setdefault(set_of(e), []).append((op, e))
    lo, hi = dict.fromkeys(("D", "I", "kD", "kI"), 0), dict.fromkeys(("D", "I", "kD", "kI"), 0)
    for acc in sets.values():
        mine = [x for x in seq if x[0] == "win" or x in acc]
        got = [replay(mine, ways, start, 1, {"T"}) for start in range(ways)]
        for c in lo:
            lo[c] += min(g[c] for g in got)
            hi[c] += max(g[c] for g in got)
    return {mean(lo), mean(hi)}


def test_ppce500_lat_mmap_from_the_model(e500):
    """The e500's Mmap Latency misses in pinned and largepte, from the loop
    above through TLB0's sets: the user text (window page 0), stack (1023)
    and written pages (1024 + 4k) in their sets; the mapping's page table
    (its diagnostic) in TLB0 in pinned (the pool lies above the pins), in
    the pool's TLB1 page in largepte; everything else of the kernel under
    TLB1's pins or large pages.  Asserted exactly, kernel and all misses."""
    run = e500[0]
    text = "\n".join(run.lines)
    for mode in ("pinned", "largepte"):
        m = re.search(rf"^# mmap\.{mode}: lat_mmap: the process's window table 1 at 0x([0-9a-f]+)",
                      text, re.M)
        table = int(m.group(1), 16)
        assert table >= PIN_END, text

        def set_of(e, mode=mode, table=table):
            if e == "T":            # the table: TLB0 in pinned, the pool's TLB1 page in largepte
                return table // PAGE % E500_SETS if mode == "pinned" else None
            w = 1024 + 4 * e[1] if isinstance(e, tuple) else {"Ut": 0, "Us": 1023}[e]
            return (WINDOW + w) % E500_SETS
        model = per_set_lat_mmap(lat_mmap_iteration(None, "T"), set_of)
        assert len(model) == 1, (mode, model)
        got = tuple(run.value(f"mmap.{mode}.lat_mmap_{c}") for c in
                    ("kernel_dtlb_misses", "kernel_itlb_misses", "dtlb_misses", "itlb_misses"))
        assert got == model.pop(), (mode, got)


# The e500's fault path in C (exceptions.c, mmu.c, boot/mmu.c, boot/proc.c),
# and what its run without faults executes besides RUN_CODE: the window
# switch, the timer read (probe_ticks), the exit's system call.
E500_FAULT_CODE = FAULT_CODE + ("e500_mmu_fault", "mmu_call_fault_hook", "proc_fault",
                                "e500_pin_covering")
E500_RUN_CODE = RUN_CODE + ("space_switch", "probe_ticks", "arch_ticks", "e500_exception",
                            "e500_user_syscall", "user_syscall", "e500_user_enter",
                            "e500_user_return")
# Kernel data only the faults' mapping and the unmap of what they mapped
# read: the pins' table (pt_may_change asks whether a pin covers the page).
E500_FAULT_DATA = ("pins", "npins")
E500_RUN_DATA = RUN_DATA + ("e500_ops", "e500_pgd", "e500_user_kmsr")
# Image variables a counted run never reads: set when a mode is entered, a
# space made or the board started (arch/e500/mmu.c, mpic.c, fdt.c).
E500_UNTOUCHED = {"measurements", "source.0", "e500_loader_tlb", "e500_empty_table",
                  "active_lp", "default_tables", "e500_fdt", "loader_ctpr", "masked", "mode_pins",
                  "tagged_spaces", "text", "why.0"}
E500_SETS, E500_WAYS, WINDOW = 128, 4, 0xC0000000 // PAGE


def e500_set_misses(page, reads, unmapped):
    """A fault-only kernel page in a set the reads' window pages fill: its
    misses in the run with faults, by the handlers' per-set round robin
    (a hit changes nothing; tlbivax empties a way, the victim moves on),
    for each start of the set's victim, from a flushed TLB0.  Each read's
    fault touches it, then the retry loads the read's window page; the
    unmap then goes over the mapped pages in ascending order, touching it
    where `unmapped` and dropping each page's entry."""
    s = page % E500_SETS
    seq = []
    for w in reads:
        seq.append(("touch", page))
        if (WINDOW + w) % E500_SETS == s:
            seq.append(("touch", ("U", w)))
    for w in sorted(reads):
        if unmapped:
            seq.append(("touch", page))
        if (WINDOW + w) % E500_SETS == s:
            seq.append(("drop", ("U", w)))
    out = set()
    for start in range(E500_WAYS):
        ways, victim, n = [None] * E500_WAYS, start, 0
        for op, e in seq:
            if op == "drop":
                ways = [None if x == e else x for x in ways]
            elif e not in ways:
                ways[victim], victim = e, (victim + 1) % E500_WAYS
                n += e == page
        out.add(n)
    return out


def test_ppce500(e500):
    """normal: from a flushed TLB0 each run misses once on each kernel page
    it touches, where no set holds more than its 4 ways of the run's pages
    (then nothing loaded is evicted, whatever the per-set victim counters
    say).  The faults' run adds: the window's page table (C writes the PTE
    through it), the pages of the touched page-cache entries and
    reference counts and the pins' table, less what the run without reads
    touches too (the file's record, which mmap reads, and the frames
    array, which munmap reads); and the fault path's code pages the run
    without reads does not execute.  The reads' 8 window pages lie in 2
    sets, 4 each: a fault-only page in those sets is evicted by them and
    missed again, as e500_set_misses counts.  Premise, asserted: no other
    kernel page of the run lies in those sets -- the image's pages there
    hold only the counted pages' variables and ones a counted run never
    reads (E500_UNTOUCHED), the stack's lie 32 KiB or more below its top,
    none of which a run touches; the heap's there lie beyond what the
    probes allocate (its first pages)."""
    run = common(e500)
    n, frames, cache, refs = file_layout(run, "normal")
    assert n * PAGE == FILE and frames >= PIN_END and cache < PIN_END and refs < PIN_END
    text = "\n".join(run.lines)
    table, frames_array, record = run_layout(run)
    syms = elf_symbols(f"{TOP}/build/ppce500/mmubench.elf")
    pins = data_pages(syms, E500_FAULT_DATA)
    data = ({table} | entry_pages(cache, refs) | pins | data_pages(syms, FAULT_DATA)) - (
        {record, frames_array} | data_pages(syms, E500_RUN_DATA))
    code = code_pages(syms, E500_FAULT_CODE) - code_pages(syms, E500_RUN_CODE)
    # the reads' window pages (mmap's part starts at window page 512)
    reads = [512 + (FILE - (16 << 10) - j * (256 << 10)) // PAGE for j in range(READS)]
    full = {(WINDOW + w) % E500_SETS for w in reads}
    assert all(sum((WINDOW + w) % E500_SETS == s for w in reads) <= E500_WAYS for s in full)
    shared = {q for q in data | code if q % E500_SETS in full}
    assert shared <= pins, (shared, pins)        # only the pins' table: simulated
    extra = 0
    for q in shared:
        got = e500_set_misses(q, reads, unmapped=True)
        assert len(got) == 1, (q, got)
        extra += got.pop() - 1
    # what else of the kernel lies in those sets: nothing a run touches
    m = re.search(r"^# image: 0x([0-9a-f]+)-.*heap 0x[0-9a-f]+-0x([0-9a-f]+), stack "
                  r"0x([0-9a-f]+)-0x([0-9a-f]+)", text, re.M)
    start, stack_lo, stack_hi = (int(m.group(g), 16) // PAGE for g in (1, 3, 4))
    there = [q for q in range(start + 1, stack_hi) if q % E500_SETS in full]
    deep = [q for q in there if stack_lo <= q]
    assert all(stack_hi - q >= 8 for q in deep), deep          # 32 KiB below the top
    names = {nm for nm, (a, size) in syms.items() for q in there if q not in deep
             and a < (q + 1) * PAGE and a + size > q * PAGE}
    assert names <= E500_UNTOUCHED | set(E500_FAULT_DATA), names - E500_UNTOUCHED
    assert faults(run, "normal") == (len(data) + extra, len(code)), (data, extra, code, run.log)


@pytest.mark.parametrize("glob", ["global=0", "global=1"])
def test_pc(glob):
    run = run_qemu("pc", *ARGS, "quick", glob, timeout=300)
    assert run.rc == 0 and run.status() == "pass", run.log[-3000:]
    assert run.results["pagefault.flat"] == "skip"
    assert run.results["mmap.flat"] == "ok"
    for mode in ("2level", "pse", "pae", "pae2m"):
        assert run.results[f"pagefault.{mode}"] == "ok", run.log
        assert run.value(f"pagefault.{mode}.pagefault_page_faults") == READS
        assert run.value(f"pagefault.{mode}.pagefault_prot_faults") == 0
        assert run.value(f"pagefault.{mode}.pagefault_ns") > 0
        assert run.value(f"mmap.{mode}.lat_mmap_page_faults") == LAT_TOUCHES
        assert run.value(f"mmap.{mode}.lat_mmap_us") > 0
    assert not [m for m in run.measurements if "_kernel_" in m]


def test_unmap_of_what_was_never_mapped_fails():
    run = run_qemu("ref405ep", "probes=pagefault", "modes=normal", "reps=1",
                   "pagefault_bad=unmap", timeout=60)
    text = "\n".join(run.lines)
    assert re.search(r"error: munmap 0xc0201000\+0x1000: not a mapping mmap gave", text), text
    assert run.results["pagefault.normal"] == "not ok" and run.status() == "fail", text


@pytest.mark.parametrize("board", ["ref405ep", "pc"])
def test_fault_outside_any_mapping_fails_with_a_dump(board):
    mode = "normal" if board == "ref405ep" else "2level"
    run = run_qemu(board, "probes=pagefault", f"modes={mode}", "reps=1", "pagefault_bad=outside",
                   timeout=60)
    text = "\n".join(run.lines)
    # the read at the mapping's end: a page fault on no mapping (no SIGSEGV
    # handler takes it), the register dump where user mode faulted, the
    # kernel's error naming the fault
    assert re.search(r"error: a process's user mode ended by a fault nobody handled: a page "
                     r"fault on a read or fetch at 0xc03fc000 outside its mappings' rights", text), \
        text
    assert the_exception(run), text
    assert "user mode ended by" in text, text
    assert run.results[f"pagefault.{mode}"] == "not ok" and run.status() == "fail", text


def test_mmureport_fills_page_fault_and_mmap_latency(ppc405, e500, tmp_path):
    logs = []
    for name, run in (("ref405ep", ppc405[0]), ("ppce500", e500[0])):
        p = tmp_path / f"{name}.log"
        p.write_text(run.log)
        logs.append(str(p))
    out = subprocess.run([f"{TOP}/build/tools/mmureport", "--lmbench", *logs],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    section = out.stdout.split("File & VM system latencies")[1].split("\n\n")[0]
    rows = [l for l in section.splitlines() if re.match(r"(ref405ep|ppce500)\s", l)]
    assert len(rows) == 8, section      # 4 modes each; real's cells blank
    for run, board in ((ppc405[0], "ref405ep"), (e500[0], "ppce500")):
        for mode in TRANSLATED:
            row = next(l for l in rows if l.split()[:2] == [board, mode])
            fields = row.split()
            pf = run.value(f"pagefault.{mode}.pagefault_ns") / 1000
            mm = run.value(f"mmap.{mode}.lat_mmap_us")
            assert float(fields[-1]) == pytest.approx(pf, rel=0.05), row
            assert float(fields[-2 if len(fields) > 4 else -1]) > 0, row
            assert f"{mm:.0f}" in fields or f"{mm:.1f}" in fields, (row, mm)
