"""The `lostcards` command line (click only): the entry point, its exit statuses and Ctrl-C.

The group and its commands live in ``lostcards.cli.app`` and the command
modules; nothing in the library imports this package.  ``run`` lets Python's
Ctrl-C handler raise KeyboardInterrupt before anything heavy is imported, so an
interrupt at any moment, imports included, is one line and exit status 130.
"""
from __future__ import annotations

import os
import signal
import sys

from lostcards.cli.status import EXIT_BROKEN_PIPE, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, interrupted, quiet_stdout


def _on_ctrl_c(signum, frame):
    """Ctrl-C raises KeyboardInterrupt, as Python's own handler does; but inside a callback from
    numba's compiler (llvmlite, through ctypes) an exception would be swallowed, so the signal
    is sent again a moment later, once out of it."""
    if frame is not None and "llvmlite" in frame.f_code.co_filename:
        import threading
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)).start()
        return
    raise KeyboardInterrupt


def _flush() -> None:
    """Flush stdout and stderr, whatever state they are in (closed, full, gone)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


def _last_moment(code: int) -> int:
    """The command is over: a Ctrl-C from here on no longer raises (an exception while Python shuts
    down kills it by the signal, with no line); one that came before the streams are flushed still
    ends with the "interrupted" line and 130, the work itself being complete."""
    late = []
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        try:
            signal.signal(signal.SIGINT, lambda signum, frame: late.append(signum))
        except ValueError:             # not the main thread (run() called from a thread)
            return code
    _flush()
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:
        pass
    if late and code != EXIT_INTERRUPTED:
        interrupted()
        return EXIT_INTERRUPTED
    return code


def run():
    """The console entry point: the exit statuses above, one line for any refusal, no traceback."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _on_ctrl_c)
    try:
        from lostcards.cli.app import main_status
        code = main_status()
    except KeyboardInterrupt:
        interrupted()
        code = EXIT_INTERRUPTED
    except BrokenPipeError:
        quiet_stdout()
        code = EXIT_BROKEN_PIPE
    except SystemExit as e:            # a command's own sys.exit(status)
        code = e.code if isinstance(e.code, int) else (EXIT_OK if e.code is None else EXIT_FAILED)
    code = _last_moment(code)
    if code == EXIT_INTERRUPTED:
        # Python kills itself with SIGINT at exit when an interrupt once went unhandled inside a C
        # extension's own Python call (during an import, say), whatever came after: exit here instead
        interrupted(say=False)
        _flush()
        os._exit(code)
    sys.exit(code)


def __getattr__(name):
    # `from lostcards.cli import main` (the click group), loaded on first use
    if name == "main":
        from lostcards.cli.app import main
        return main
    raise AttributeError(f"module 'lostcards.cli' has no attribute {name!r}")


if __name__ == "__main__":
    run()
