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


def stdout_failed() -> bool:
    """True when standard output cannot take what was written to it (a full disk, /dev/full): what is
    still buffered fails to flush again."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        return True
    return False


def _from_echo_to_stdout(e: BaseException) -> bool:
    tb = e.__traceback__
    while tb is not None:
        f = tb.tb_frame
        if f.f_code.co_name == "echo" and "click" in f.f_code.co_filename:
            return f.f_locals.get("file") is not sys.stderr and not f.f_locals.get("err")
        tb = tb.tb_next
    return False


def os_failure(e: OSError) -> str:
    """One line for an operating-system error a command did not expect: where, and the system's reason."""
    reason = e.strerror or str(e) or type(e).__name__
    if e.filename is None and (_from_echo_to_stdout(e) or stdout_failed()):
        return f"cannot write to standard output: {reason}"
    if e.filename is None:
        return f"{reason} ({type(e).__name__})"
    name = str(e.filename)
    name = name if len(name) <= 80 else f"{name[:60]}... ({len(name):,} characters)"
    return f"cannot use {name}: {reason}"
