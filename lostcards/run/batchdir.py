"""The batch directory: where shard files go, the one atomic manifest writer, the write probe and the lock.

Every command that writes a directory (simulate, tournament, sweep, claims, rule
tweaks) writes its manifest with ``write_manifest`` (a temporary file, fsync,
rename) and checks the directory with ``probe`` first.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from lostcards import __version__
from lostcards.errors import BatchError
from lostcards.run.shards import BatchSpec
from lostcards.run.tables import ALL_TABLES

FORMAT = "lostcards-batch/2"


def versions() -> dict:
    import numba
    import pyarrow
    import scipy
    v = {"lostcards": __version__, "python": platform.python_version(), "numpy": np.__version__,
         "numba": numba.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
         "pyarrow": pyarrow.__version__}
    for mod in ("dask", "distributed"):
        m = sys.modules.get(mod)
        if m is not None:
            v[mod] = getattr(m, "__version__", "?")
    return v


def shard_path(out: Path, table: str, k: int) -> Path:
    return out / table / f"part-{k:05d}.parquet"


def write_bytes_atomic(data: bytes, path: Path):
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def write_manifest(out: Path, manifest: dict, name: str = "manifest.json"):
    """Write `out/name` atomically (a temporary file, fsync, rename): a reader sees the old or the new one.

    Every command's manifest goes through here (simulate, tournament, sweep, claims, rule tweaks).
    """
    write_bytes_atomic((json.dumps(manifest, indent=2, default=str) + "\n").encode(), Path(out) / name)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


BATCH_FILES = {"manifest.json", "manifest.json.tmp", ".lock", "records.jsonl", "records.jsonl.tmp", *ALL_TABLES}


def prepare_dir(out: Path, spec: BatchSpec) -> dict:
    """Create `out` or check that it holds this same batch; returns the manifest to extend.

    Refuses (BatchError, nothing written) a directory holding another batch, an
    unreadable manifest, or files that are not a batch's.
    """
    mpath = out / "manifest.json"
    if mpath.exists():
        try:
            old = json.loads(mpath.read_text())
        except (OSError, json.JSONDecodeError, UnicodeDecodeError):
            raise BatchError(f"{out} holds an unreadable manifest.json; use another --out directory") from None
        if not isinstance(old, dict) or old.get("batch") != spec.identity():
            theirs = old.get("batch") if isinstance(old, dict) else None
            raise BatchError(f"{out} already holds a different batch ({describe_identity(theirs)}); "
                             "use another --out directory")
        probe(out)
        return old
    if out.exists() and out.is_dir():
        foreign = sorted(p.name for p in out.iterdir()
                         if p.name not in BATCH_FILES and not p.name.endswith((".csv", ".csv.tmp")))
        if foreign:
            raise BatchError(f"{out} is not empty and holds no lostcards batch ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}); use a new or empty --out directory")
    probe(out)
    return {"format": FORMAT, "batch": spec.identity(), "created": now(),
            "shards_done": [], "shard_files": {}, "seconds": 0.0}


def probe(out: Path):
    """Create `out` and check that files can be written there; BatchError in one line if not."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise BatchError(f"cannot write to {out}: {e.strerror or e}") from None


def describe_identity(b) -> str:
    if not isinstance(b, dict):
        return "unknown"
    rules = b.get("rules")
    rules = rules if isinstance(rules, str) else json.dumps(rules, separators=(",", ":"))
    pol = " vs ".join(b.get("policies", []))
    return (f"{rules}, {b.get('players')} players, {pol}, seed {b.get('seed')}, {b.get('rounds')} rounds, "
            f"first {b.get('first')}, shard size {b.get('shard_size')}"
            + (f", turns {b['turns']}" if b.get("turns") else ""))


class DirLock:
    """An exclusive lock on the batch directory, so two commands never write one batch at once."""

    def __init__(self, out: Path):
        self.path = out / ".lock"
        self.f = None

    def __enter__(self):
        try:
            import fcntl
        except ImportError:        # pragma: no cover - not POSIX: no lock
            return self
        self.f = open(self.path, "a+")
        try:
            fcntl.flock(self.f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.f.seek(0)
            who = self.f.read().strip()
            self.f.close()
            self.f = None
            raise BatchError(f"{self.path.parent} is being written by another lostcards command"
                             f"{f' (pid {who})' if who else ''}; wait for it or use another --out") from None
        self.f.seek(0)
        self.f.truncate()
        self.f.write(str(os.getpid()))
        self.f.flush()
        return self

    def __exit__(self, *exc):
        if self.f is not None:
            self.f.close()
            self.f = None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_shard(out: Path, spec: BatchSpec, k: int, info: dict | None) -> str | None:
    """None if shard k's files are whole and match the manifest; else what is wrong."""
    import pyarrow.parquet as pq
    expect = spec.expected_rows(k)
    for t in spec.tables:
        p = shard_path(out, t, k)
        if not p.exists():
            return f"{t} file missing"
        rec = (info or {}).get(t)
        if rec:
            if p.stat().st_size != rec.get("bytes"):
                return f"{t} file has {p.stat().st_size} bytes, not {rec.get('bytes')}"
            if sha256_file(p) != rec.get("sha256"):
                return f"{t} file checksum differs"
        else:                      # a batch written before checksums: check the rows at least
            try:
                rows = pq.ParquetFile(p).metadata.num_rows
            except Exception:
                return f"{t} file unreadable"
            if t in expect and rows != expect[t]:
                return f"{t} file has {rows} rows, not {expect[t]}"
    return None
