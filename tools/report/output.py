"""Files written whole or not at all: to a temporary name in the same
directory, renamed into place once complete; "-" is standard output, and
what is not a regular file (/dev/null, a FIFO) is written as it is."""
import os
import sys
import tempfile


def fail(path, err):
    sys.stderr.write(f"mmureport: {path}: {err.strerror or err}\n")
    return -1


def write_text(path, write):
    """write(f) fills a text file (UTF-8); 0, or -1 with a message."""
    if path == "-":
        try:
            write(sys.stdout)
            sys.stdout.flush()
            return 0
        except OSError as e:
            return fail("standard output", e)
    if os.path.exists(path) and not os.path.isfile(path):
        try:                            # /dev/null, a FIFO: renaming over it would replace it
            with open(path, "w", encoding="utf-8", newline="") as f:
                write(f)
            return 0
        except OSError as e:
            return fail(path, e)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".tmp.",
                                   dir=os.path.dirname(path) or ".")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            write(f)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)      # a report to share, not mkstemp's 0600
        os.replace(tmp, path)
        return 0
    except OSError as e:
        if tmp:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return fail(path, e)
