"""The mmubench run as a labgrid test (pytest --lg-env ENV.yaml this file):
power on, stop U-Boot, load and start the image, capture the console to
the status line, check it with build/tools/logcheck and parse the KTAP
results.  LG_LOG, if set, is where the captured log is written."""
import os
import re
import subprocess

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOGCHECK = os.path.join(TOP, "build", "tools", "logcheck")


def test_mmubench(target):
    strategy = target.get_driver("MmubenchStrategy")
    log = strategy.run(timeout=int(os.environ.get("LG_RUN_TIMEOUT", "600")))
    if os.environ.get("LG_LOG"):
        with open(os.environ["LG_LOG"], "w") as f:
            f.write(log)
    p = subprocess.run([LOGCHECK], input=log, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr + log
    results = re.findall(r"^(ok|not ok) \d+ (\S+)", log, re.M)
    plan = int(re.search(r"^1\.\.(\d+)  @", log, re.M).group(1))
    assert results and len(results) == plan, log
    assert all(r[0] == "ok" for r in results), log
    strategy.transition("off")
