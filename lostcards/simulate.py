"""`lostcards simulate`: a batch of rounds written as tidy tables, shard by shard.

The batch is cut into shards of a fixed number of rounds; each shard's tables
are written to a temporary name and renamed, so an interrupted batch keeps
every finished shard and the same command resumes it.  Round i of a batch is
the same round whatever the shard size or number of threads.
"""
from __future__ import annotations

import json
import os
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .policies import resolve
from .runner import play, records as make_records
from .ruleset import Ruleset
from .stats import mean_ci, share_ci
from .tables import TABLES, tables


class BatchError(ValueError):
    """A batch that cannot run as asked (the message says why)."""


@dataclass(frozen=True)
class BatchSpec:
    """Everything that decides a batch's results."""

    rules: Ruleset
    policies: tuple       # specs, side A then side B
    seed: int
    rounds: int
    first: int = 0
    shard_size: int = 100_000

    def identity(self) -> dict:
        return {"rules": self.rules.to_record(), "players": self.rules.players,
                "policies": list(self.policies), "seed": self.seed, "rounds": self.rounds,
                "first": self.first, "shard_size": self.shard_size}

    @property
    def shards(self) -> int:
        return (self.rounds + self.shard_size - 1) // self.shard_size


def versions() -> dict:
    import numba
    import pyarrow
    import scipy
    return {"lostcards": __version__, "python": platform.python_version(), "numpy": np.__version__,
            "numba": numba.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
            "pyarrow": pyarrow.__version__}


def _shard_path(out: Path, table: str, k: int) -> Path:
    return out / table / f"part-{k:05d}.parquet"


def _write_atomic(df: pd.DataFrame, path: Path):
    tmp = path.with_name(path.name + ".tmp")
    df.to_parquet(tmp, index=False)
    os.replace(tmp, path)


def _write_manifest(out: Path, manifest: dict):
    tmp = out / "manifest.json.tmp"
    tmp.write_text(json.dumps(manifest, indent=2) + "\n")
    os.replace(tmp, out / "manifest.json")


def prepare_dir(out: Path, spec: BatchSpec) -> dict:
    """Create `out` or check that it holds this same batch; returns the manifest to extend."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise BatchError(f"cannot write to {out}: {e.strerror or e}") from None
    mpath = out / "manifest.json"
    if mpath.exists():
        try:
            old = json.loads(mpath.read_text())
        except (OSError, json.JSONDecodeError):
            raise BatchError(f"{out} holds an unreadable manifest.json; use another directory") from None
        if old.get("batch") != spec.identity():
            raise BatchError(f"{out} already holds a different batch ({old.get('batch')}); "
                             "use another --out directory")
        return old
    return {"batch": spec.identity(), "shards_done": [], "seconds": 0.0}


def run(spec: BatchSpec, out: Path, *, command: str = "", csv: bool = False,
        records: str | int | None = None, threads: int | None = None, progress=None) -> dict:
    """Play the batch into `out`, skipping shards already there; returns the manifest."""
    out = Path(out)
    manifest = prepare_dir(out, spec)
    a, b = (resolve(p) for p in spec.policies)
    for t in TABLES:
        (out / t).mkdir(exist_ok=True)
    done = set(manifest.get("shards_done", []))
    manifest.update(command=command, ruleset=spec.rules.describe(), policies=[a.spec, b.spec],
                    versions=versions(), shards=spec.shards)
    t0 = time.time()
    for k in range(spec.shards):
        start = k * spec.shard_size
        n = min(spec.shard_size, spec.rounds - start)
        if k in done and all(_shard_path(out, t, k).exists() for t in TABLES):
            if progress:
                progress(n)
            continue
        batch = play(spec.rules, a, b, rounds=n, seed=spec.seed, start=start, first=spec.first,
                     threads=threads)
        for name, df in tables(batch).items():
            _write_atomic(df, _shard_path(out, name, k))
        done.add(k)
        manifest["shards_done"] = sorted(done)
        manifest["seconds"] = round(manifest.get("seconds", 0.0) + time.time() - t0, 3)
        t0 = time.time()
        _write_manifest(out, manifest)
        if progress:
            progress(n)
    manifest["complete"] = len(done) == spec.shards
    if records is not None and spec.rounds:
        idx = (np.arange(spec.rounds) if records == "all"
               else np.unique(np.linspace(0, spec.rounds - 1, min(int(records), spec.rounds)).astype(np.int64)))
        recs = make_records(spec.rules, a, b, idx, seed=spec.seed, first=spec.first)
        tmp = out / "records.jsonl.tmp"
        with open(tmp, "w") as f:
            for r in recs:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        os.replace(tmp, out / "records.jsonl")
        manifest["records"] = {"file": "records.jsonl", "rounds": len(recs)}
    if csv:
        for name, df in load(out).items():
            df.to_csv(out / f"{name}.csv", index=False)
    _write_manifest(out, manifest)
    return manifest


def load(out, columns: dict | None = None) -> dict[str, pd.DataFrame]:
    """The tables of a batch directory (finished shards only) as DataFrames.

    columns: optional {table: [column, ...]} to read only those columns.
    """
    out = Path(out)
    if not (out / "manifest.json").exists():
        raise BatchError(f"{out} holds no lostcards batch (no manifest.json)")
    result = {}
    for t in TABLES:
        parts = sorted((out / t).glob("part-*.parquet"))
        cols = (columns or {}).get(t)
        if parts:
            result[t] = pd.concat([pd.read_parquet(p, columns=cols) for p in parts], ignore_index=True)
        else:
            result[t] = pd.DataFrame()
    return result


def summary(tabs: dict[str, pd.DataFrame], manifest: dict | None = None) -> str:
    """The one-screen summary of a batch."""
    r = tabs["rounds"]
    s = tabs["seats"]
    lines = []
    if manifest:
        lines.append(f"batch: {manifest.get('ruleset')}, {manifest['batch']['players']} players, "
                     f"{' vs '.join(manifest.get('policies', []))}, seed {manifest['batch']['seed']}")
    n = len(r)
    if n == 0:
        return "\n".join(lines + ["no rounds played yet"])
    lines.append(f"rounds: {n:,}")
    lines.append(f"turns per round: {mean_ci(r['turns'])}")
    counts = r["ended_by"].value_counts()
    ended = ", ".join(f"{k} {share_ci(v, n).estimate:.2%}" for k, v in counts.items() if v)
    lines.append(f"ended by: {ended}")
    lines.append(f"score, side A ({r['policy_a'].iloc[0]}): {mean_ci(r['score_a'])}")
    if r["score_b"].notna().all():
        lines.append(f"score, side B ({r['policy_b'].iloc[0]}): {mean_ci(r['score_b'].astype(float))}")
        margin = r["score_a"] - r["score_b"].astype(float)
        lines.append(f"margin A - B: {mean_ci(margin)}; A wins {share_ci((margin > 0).sum(), n).estimate:.1%}, "
                     f"draws {share_ci((margin == 0).sum(), n).estimate:.1%}")
    per_seat = s.groupby("seat", observed=True)[["plays", "discards", "deck_draws", "pile_draws", "passes"]].mean()
    lines.append("per seat (means):  " + "  ".join(f"{c:>10}" for c in per_seat.columns))
    for seat, row in per_seat.iterrows():
        lines.append(f"  seat {seat}:          " + "  ".join(f"{v:10.2f}" for v in row))
    if manifest and manifest.get("seconds"):
        lines.append(f"time: {manifest['seconds']:.1f} s ({n / max(manifest['seconds'], 1e-9):,.0f} rounds/s)")
    return "\n".join(lines)
