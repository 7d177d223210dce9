"""The mmubench run as a labgrid test (pytest --lg-env ENV.yaml this file):
power on, stop U-Boot (where the target has one), load and start the
image, capture the console to the status line, check it with
build/tools/logcheck and parse the KTAP results.  LG_LOG, if set, is where
the captured log is written; LG_RUN_TIMEOUT the seconds the run may take."""
import os
import re
import subprocess

import pytest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGCHECK = os.path.join(TOP, "build", "tools", "logcheck")


@pytest.fixture
def board(env):
    """The target `main` (what labgrid's own `target` fixture takes), or
    else the environment's only target."""
    names = list(env.config.get_targets())
    if "main" not in names and len(names) != 1:
        pytest.fail(f"{env.config_file}: no target 'main' and not one target but {names}")
    return env.get_target("main" if "main" in names else names[0])


def test_mmubench(board):
    strategy = board.get_driver("MmubenchStrategy")
    log = strategy.run(timeout=int(os.environ.get("LG_RUN_TIMEOUT", "600")))
    if os.environ.get("LG_LOG"):
        with open(os.environ["LG_LOG"], "w") as f:
            f.write(log)
    p = subprocess.run([LOGCHECK], input=log, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr + log
    # KTAP: the name is the first word after the number, with or without
    # the line's "  @seq:crc" integrity field after it.
    results = re.findall(r"^(ok|not ok) \d+ (\S+)", log, re.M)
    plan = re.search(r"^1\.\.(\d+)\b", log, re.M)
    assert plan and results and len(results) == int(plan.group(1)), log
    assert all(r[0] == "ok" for r in results), log
    strategy.transition("off")
