#!/usr/bin/env python3
"""test_levels.py's simulated cases against an older mmuguess, by its rule.

    python3 selftest/levels_old_rule.py OLD_MMUGUESS

Not a test: run by hand to see how an older step detection fares on the
same curves.  Before the intervals (commit 4ab419e and earlier) mmuguess
printed l<i>_bytes only, right when it was the level's size or the sweep
point just below; a case fails where any level is not so named, or a level
is named that is not there.  (An exclusive L3's size is taken as it is, as
the old rule did.)  An old tree's mmuguess:
git worktree add /tmp/old 4ab419e && make -C /tmp/old tools."""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_levels as t  # noqa: E402

GRID = t.sweep(1 << 34)


def right(got, size):
    return got in (size, max(s for s in GRID if s < size))


def run(c, old, tmp):
    curve = subprocess.run(t.cachesim_args(c), capture_output=True, text=True, check=True).stdout
    path = os.path.join(tmp, c["id"] + ".txt")
    with open(path, "w") as f:
        f.write(curve)
    sizes = [lv[0] for lv in c["levels"]]
    out = subprocess.run([old, "-t", path, "-c", str(max(sizes))], capture_output=True,
                         text=True, check=True).stdout
    got = t.parse(out)
    ok = all(right(got.get(f"l{i + 1}_bytes"), s) for i, s in enumerate(sizes))
    return ok and f"l{len(sizes) + 1}_bytes" not in got


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(t.JOBS) as pool:
        oks = list(pool.map(lambda c: run(c, sys.argv[1], tmp), t.CASES))
    for policy in t.POLICIES:
        mine = [ok for c, ok in zip(t.CASES, oks) if c["policy"] == policy]
        print(f"{policy}: {mine.count(False)} of {len(mine)} cases fail "
              f"({100.0 * mine.count(False) / len(mine):.0f} %)")
    for what, sel in (("inclusive", lambda c: not c["exclusive"]), ("exclusive L3", lambda c: c["exclusive"])):
        mine = [ok for c, ok in zip(t.CASES, oks) if sel(c)]
        print(f"{what}: {mine.count(False)} of {len(mine)} fail")


if __name__ == "__main__":
    main()
