"""A batch's identity and its shards: ``BatchSpec`` (what decides the results), playing one shard.

Round i of a batch is the same round whatever the shard size, the number of
threads or workers, or the backend: a shard is rounds ``k * shard_size`` on, played
from (seed, round) alone, and comes back as Parquet bytes (``play_shard``).
"""
from __future__ import annotations

import platform
import threading
import time
from dataclasses import dataclass, field

import numpy as np

from lostcards import __version__
from lostcards.errors import BatchError
from lostcards.rules.ruleset import Ruleset, check_int

BATCH_TABLES = ("rounds", "seats", "seat_suits")   # run/tables.py's TABLES and ALL_TABLES (a test keeps them equal)
ALL_TABLES = (*BATCH_TABLES, "turns")
TABLES = BATCH_TABLES

# Bounds of a batch, and why (the messages and `simulate --help` say the same):
MAX_ROUNDS = 10**11          # 40 days of play at 30,000 rounds a second, and within MAX_SHARDS of the largest shards
MAX_SHARDS = 100_000         # the manifest lists every shard and is rewritten as each one finishes
SHARD_MEMORY = 2 * 2**30     # one shard's arrays and tables are in memory at once: at most 2 GiB
SMALL_SHARD = 10_000         # below this, rewriting the manifest per shard costs more than playing it
SLICE_SECONDS = 0.5          # a shard is played in slices of about this long, so Ctrl-C is honoured within a second


def bytes_per_round(rules: Ruleset) -> int:
    """Peak memory of a shard per round (measured: arrays, DataFrames and Parquet bytes; with a margin)."""
    return 150 + 75 * rules.players * rules.suits


def max_shard_size(rules: Ruleset) -> int:
    return SHARD_MEMORY // bytes_per_round(rules)



def check_batch(rules: Ruleset, rounds, shard_size, turns=0) -> tuple[int, int, int]:
    """rounds, shard size and turns checked against the bounds above; BatchError names the value and why."""
    rounds = check_int("rounds", rounds, 1, MAX_ROUNDS, "per batch (40 days of play at 30,000 rounds a second)",
                       BatchError)
    most = max_shard_size(rules)
    shard_size = check_int("shard size", shard_size, 1, most,
                           f"for this ruleset: a shard takes about {bytes_per_round(rules)} bytes a round in memory, "
                           f"and one shard must fit in {SHARD_MEMORY // 2**30} GiB", BatchError)
    shards = -(-rounds // shard_size)
    if shards > MAX_SHARDS:
        raise BatchError(f"{rounds:,} rounds in shards of {shard_size:,} make {shards:,} shards; at most "
                         f"{MAX_SHARDS:,} (the manifest lists every shard and is rewritten as each finishes): "
                         f"a shard size of at least {-(-rounds // MAX_SHARDS):,}")
    turns = check_int("turns", turns, 0, 100_000, "rounds with a turns table (one row per turn)", BatchError)
    if turns > rounds:
        raise BatchError(f"turns = {turns:,} is not allowed: at most the batch's {rounds:,} rounds (rounds with "
                         "a turns table)")
    return rounds, shard_size, turns


@dataclass(frozen=True)
class BatchSpec:
    """Everything that decides a batch's results (checked against the bounds above)."""

    rules: Ruleset
    policies: tuple       # specs, side A then side B
    seed: int
    rounds: int
    first: int = 0
    shard_size: int = 100_000
    turns: int = 0        # rounds sampled for the `turns` table (0: no turns table)

    def __post_init__(self):
        rounds, shard_size, turns = check_batch(self.rules, self.rounds, self.shard_size, self.turns)
        object.__setattr__(self, "rounds", rounds)
        object.__setattr__(self, "shard_size", shard_size)
        object.__setattr__(self, "turns", turns)

    def identity(self) -> dict:
        d = {"rules": self.rules.to_record(), "players": self.rules.players,
             "policies": list(self.policies), "seed": self.seed, "rounds": self.rounds,
             "first": self.first, "shard_size": self.shard_size}
        if self.turns:
            d["turns"] = self.turns
        return d

    @property
    def shards(self) -> int:
        return (self.rounds + self.shard_size - 1) // self.shard_size

    @property
    def tables(self) -> tuple:
        return ALL_TABLES if self.turns else tuple(TABLES)

    def shard_range(self, k: int) -> tuple[int, int]:
        """(first round, number of rounds) of shard k."""
        start = k * self.shard_size
        return start, min(self.shard_size, self.rounds - start)

    def turn_rounds(self) -> np.ndarray:
        """The rounds sampled for the turns table: `turns` rounds evenly spread over the batch."""
        return sample_rounds(self.rounds, self.turns)

    def expected_rows(self, k: int) -> dict:
        """Rows each table of shard k must have (turns: not known in advance)."""
        _, n = self.shard_range(k)
        p, s = self.rules.players, self.rules.suits
        return {"rounds": n, "seats": n * p, "seat_suits": n * p * s}


def sample_rounds(rounds: int, n) -> np.ndarray:
    """`n` round indices evenly spread over 0 .. rounds-1 (all of them when n >= rounds)."""
    n = min(int(n), rounds)
    if n <= 0:
        return np.zeros(0, np.int64)
    return np.unique(np.linspace(0, rounds - 1, n).astype(np.int64))


# ---- playing one shard (runs wherever the backend puts it) ---------------------

@dataclass
class ShardResult:
    """One played shard: its tables as Parquet bytes, with row counts."""

    k: int
    files: dict            # table -> Parquet bytes
    rows: dict             # table -> rows
    seconds: float = 0.0
    host: str = field(default_factory=platform.node)
    version: str = __version__


_ENGINE_LOCK = threading.Lock()    # one shard at a time per process: numba's thread pool is shared


def _parquet_bytes(df) -> bytes:
    import io
    buf = io.BytesIO()
    df.to_parquet(buf, index=False, compression="snappy")
    return buf.getvalue()


def play_sliced(rules, a, b, n: int, seed: int, start: int, first: int, threads=None, seconds=SLICE_SECONDS):
    """``runner.play`` of rounds start .. start+n-1 in slices of about `seconds` each, joined into one Batch.

    The engine cannot be interrupted while it runs; between slices Python can, so
    Ctrl-C stops a shard within about a second.  Round i is the same round
    whatever the slices, so the result is the one of a single call.
    """
    from lostcards.run.runner import Batch, play, threads_available
    nt = threads or threads_available()
    size, done, parts = 2 * nt, 0, []
    while done < n or not parts:
        m = min(size, n - done)
        t = time.perf_counter()
        parts.append(play(rules, a, b, rounds=m, seed=seed, start=start + done, first=first, threads=threads))
        done += m
        el = time.perf_counter() - t     # next slice: about `seconds` long, at most twice this one
        size = max(nt, min(2 * size, int(size * seconds / max(el, 1e-6))))
    if len(parts) == 1:
        return parts[0]
    p = parts[0]
    return Batch(p.rules, p.policies, p.seed, p.start,
                 *(np.concatenate([getattr(q, f) for q in parts]) for f in
                   ("round_info", "seats", "seat_suits", "side_suits")))


def shard_tables(spec: BatchSpec, k: int, threads: int | None = None) -> dict:
    """The tables of shard k as DataFrames."""
    from lostcards.policies import resolve
    from lostcards.run.tables import tables, turns_table
    a, b = (resolve(p) for p in spec.policies)
    start, n = spec.shard_range(k)
    with _ENGINE_LOCK:
        batch = play_sliced(spec.rules, a, b, n, spec.seed, start, spec.first, threads)
        tabs = tables(batch)
        del batch
        if spec.turns:
            idx = spec.turn_rounds()
            idx = idx[(idx >= start) & (idx < start + n)]
            tabs["turns"] = turns_table(spec.rules, (a, b), spec.seed, idx, spec.first)
    return tabs


def play_shard(spec: BatchSpec, k: int, threads: int | None = None) -> ShardResult:
    """Play shard k of the batch and return its tables as Parquet bytes."""
    t = time.perf_counter()
    tabs = shard_tables(spec, k, threads)
    files = {name: _parquet_bytes(df) for name, df in tabs.items()}
    rows = {name: len(df) for name, df in tabs.items()}
    return ShardResult(k, files, rows, time.perf_counter() - t)
