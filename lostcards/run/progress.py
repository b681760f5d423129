"""The progress line of a long batch: rounds done, rounds per second, time left."""
from __future__ import annotations

import sys
import time


class Progress:
    """A progress line on a stream: rounds done, rounds per second (this session), time left.

    On a terminal it redraws one line; elsewhere (a log) it prints a line every `every` seconds.
    """

    def __init__(self, stream=None, every: float = 10.0, width: int = 24):
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every
        self.width = width
        self.total = self.done = self.played = 0
        self.t0 = time.perf_counter()
        self.last = -1e9

    def start(self, total: int, done: int):
        self.total, self.done, self.played = total, done, 0
        self.t0 = self.last = time.perf_counter()
        if self.tty:
            self._show()
        elif done:
            self.stream.write(f"resuming: {done:,} of {total:,} rounds already done\n")
            self.stream.flush()

    def __call__(self, n: int):
        self.done += n
        self.played += n
        self._show(force=self.done >= self.total)

    def text(self) -> str:
        el = time.perf_counter() - self.t0
        rate = self.played / el if el > 0 and self.played else 0.0
        frac = self.done / self.total if self.total else 1.0
        fill = int(frac * self.width)
        bar = "#" * fill + "-" * (self.width - fill)
        left = (self.total - self.done) / rate if rate else None
        eta = _hms(left) + " left" if left is not None and self.done < self.total else (
            "done" if self.done >= self.total else "time left: measuring")
        return (f"rounds {self.done:>{len(f'{self.total:,}')},}/{self.total:,} [{bar}] {frac:4.0%}  "
                f"{rate:,.0f} rounds/s  {eta}  (elapsed {_hms(el)})")

    def _show(self, force=False):
        now = time.perf_counter()
        if self.tty:
            self.stream.write("\r" + self.text() + "\x1b[K")
            self.stream.flush()
        elif force or now - self.last >= self.every:
            self.stream.write(self.text() + "\n")
            self.stream.flush()
            self.last = now

    def close(self):
        """End the line (once, however often it is called)."""
        if self.tty and not getattr(self, "closed", False):
            self.stream.write("\n")
            self.stream.flush()
        self.closed = True


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
