"""Native work on threads, with the calling thread free for Ctrl-C.

The engine's entry points release the GIL (``nogil``), so plain Python threads
run them side by side on every core, and the calling thread only waits, in
short sleeps, where Python delivers a Ctrl-C at once.  An interrupt sets
``stop[0]`` (the native loops look at it every step and return) and goes on as
KeyboardInterrupt within a second, even when a single long decision is still
running in a thread (the thread is a daemon and is left to finish or to end
with the process).
"""
from __future__ import annotations

import threading

import numpy as np

WAIT = 0.05          # seconds between two looks at the threads (how soon Ctrl-C is seen)
GRACE = 0.5          # seconds the threads get to return after an interrupt


def new_stop() -> np.ndarray:
    """The stop word a native loop watches (``stop[0] != 0``: return now)."""
    return np.zeros(1, np.int64)


def run_chunks(work, n_chunks: int, threads: int, stop: np.ndarray) -> None:
    """``work(i)`` for every i in range(n_chunks), on `threads` threads taking chunks in turn.

    The first exception raised by `work` is raised here once every thread has
    stopped; a KeyboardInterrupt in the calling thread sets ``stop[0]`` and is
    raised again after at most ``GRACE`` seconds.
    """
    if n_chunks <= 0:
        return
    lock = threading.Lock()
    state = {"next": 0, "error": None}

    def worker():
        while True:
            with lock:
                i = state["next"]
                if i >= n_chunks or state["error"] is not None or stop[0]:
                    return
                state["next"] = i + 1
            try:
                work(i)
            except BaseException as e:            # noqa: BLE001 - handed to the calling thread
                with lock:
                    if state["error"] is None:
                        state["error"] = e
                return

    pool = [threading.Thread(target=worker, daemon=True, name=f"lostcards-{k}")
            for k in range(max(1, min(threads, n_chunks)))]
    for t in pool:
        t.start()
    try:
        for t in pool:
            while t.is_alive():
                t.join(WAIT)
    except KeyboardInterrupt:
        stop[0] = 1
        for t in pool:
            t.join(GRACE / len(pool))
        raise
    if state["error"] is not None:
        raise state["error"]


def call(fn, *args):
    """``fn(*args)`` (a function that releases the GIL) on a thread of its own; Ctrl-C here at once."""
    out = {}

    def one(_):
        out["value"] = fn(*args)
    run_chunks(one, 1, 1, new_stop())
    return out.get("value")
