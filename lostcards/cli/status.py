"""The exit statuses of every command, and what an interrupt or a broken pipe does (no click here)."""
from __future__ import annotations

import os
import signal
import sys

# The exit statuses of every command (README "Exit statuses"; `lostcards --help` shows them).
EXIT_OK = 0             # done
EXIT_FAILED = 1         # refused or failed: a value the command checked, a directory, a policy that raised, a full disk
EXIT_USAGE = 2          # the command line does not parse (unknown option, missing or mistyped value); replay: malformed
EXIT_FLAGGED = 3        # sweep --fail-on-flag: a cell was flagged
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_BROKEN_PIPE = 141  # the reader of the output went away, e.g. `| head` (128 + SIGPIPE): not a verdict


def quiet_stdout():
    """After a broken pipe: point stdout at /dev/null so that Python's final flush says nothing."""
    try:
        fd = os.open(os.devnull, os.O_WRONLY)
        os.dup2(fd, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def interrupted(say: bool = True):
    """Ctrl-C was pressed: from now on it is ignored (a library that re-raises it while shutting down
    must not turn exit status 130 into death by SIGINT), and one line says so."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:                 # not the main thread
        pass
    if say:
        try:
            sys.stderr.write("lostcards: interrupted\n")
        except OSError:
            pass
