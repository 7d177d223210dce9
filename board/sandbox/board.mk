# sandbox: the probes of tests/ as a Linux program (arch/sandbox).
ARCH := sandbox
