"""The core a one-core measurement (`make bench`, `make profile`) is pinned to, and the pinning."""
from __future__ import annotations

import os


def pinned_core() -> int:
    """Core 1 (core 0 takes the machine's interrupts), or the lowest core this process may use where
    core 1 is not one of them (a one-core machine, a container given other cores)."""
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else {0}
    return 1 if 1 in allowed else min(allowed)


def pin(cores) -> None:
    """Run this process on `cores` only (a set of core numbers), where the platform allows it."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cores)


CORE = pinned_core()
