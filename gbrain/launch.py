"""The ``gbrain`` console script's first step (and ``python -m gbrain``'s): load the command line
(:mod:`gbrain.entry`) and run it. A Ctrl-C while those modules load (the first ~0.1–0.3 s of every
process, more on a busy machine) is an interruption like one later: ``interrupted`` on stderr and
exit 130, not a traceback from inside the standard library's imports and death by the signal
(exit -2). Imports nothing but :mod:`sys` itself, so the window before it is Python's own start."""
from __future__ import annotations

import sys


def main() -> None:
    """Run the command line of ``sys.argv`` (:func:`gbrain.entry.main`); exits 130 with one line on
    stderr if Ctrl-C lands while its modules load."""
    try:
        from .entry import main as run
    except KeyboardInterrupt:
        try:
            sys.stderr.write("interrupted\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
        sys.exit(130)
    run()
