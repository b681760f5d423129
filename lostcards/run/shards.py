"""A batch's identity and its shards: ``BatchSpec`` (what decides the results), playing one shard.

Round i of a batch is the same round whatever the shard size, the number of
threads or workers, or the backend: a shard is rounds ``k * shard_size`` on, played
from (seed, round) alone, and comes back as Parquet bytes (``play_shard``).
"""
from __future__ import annotations

import io
import platform
import threading
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from lostcards import __version__
from lostcards.policies import resolve
from lostcards.rules.ruleset import Ruleset
from lostcards.run.runner import play
from lostcards.run.tables import ALL_TABLES, TABLES, tables, turns_table


@dataclass(frozen=True)
class BatchSpec:
    """Everything that decides a batch's results."""

    rules: Ruleset
    policies: tuple       # specs, side A then side B
    seed: int
    rounds: int
    first: int = 0
    shard_size: int = 100_000
    turns: int = 0        # rounds sampled for the `turns` table (0: no turns table)

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


def _parquet_bytes(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.to_parquet(buf, index=False, compression="snappy")
    return buf.getvalue()


def shard_tables(spec: BatchSpec, k: int, threads: int | None = None) -> dict[str, pd.DataFrame]:
    """The tables of shard k as DataFrames."""
    a, b = (resolve(p) for p in spec.policies)
    start, n = spec.shard_range(k)
    with _ENGINE_LOCK:
        batch = play(spec.rules, a, b, rounds=n, seed=spec.seed, start=start, first=spec.first,
                     threads=threads)
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
