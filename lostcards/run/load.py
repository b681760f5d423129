"""Reading a batch directory: its manifest, its tables (all at once, lazily, or shard by shard),
content hashes that do not depend on the shards, and checking the shards against the manifest."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd

from lostcards.errors import BadArgument, BatchError
from lostcards.run.batchdir import check_shard, shard_path
from lostcards.run.shards import BatchSpec
from lostcards.run.tables import ALL_TABLES, TABLES


def read_manifest(out) -> dict:
    out = Path(out)
    mpath = out / "manifest.json"
    if not mpath.exists():
        raise BatchError(f"{out} holds no lostcards batch (no manifest.json)")
    try:
        return json.loads(mpath.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        raise BatchError(f"{out} holds an unreadable manifest.json") from None


def spec_of(manifest: dict) -> BatchSpec:
    """The BatchSpec a manifest was written for."""
    from lostcards.rules.ruleset import from_record
    b = manifest["batch"]
    return BatchSpec(from_record(b["rules"], b["players"]), tuple(b["policies"]), b["seed"], b["rounds"],
                     b["first"], b["shard_size"], b.get("turns", 0))


def verify(out, spec: BatchSpec | None = None) -> dict:
    """Check every finished shard of a batch directory: {shard: problem} (empty when all are good)."""
    out = Path(out)
    manifest = read_manifest(out)
    spec = spec or spec_of(manifest)
    info = manifest.get("shard_files", {})
    bad = {}
    for k in manifest.get("shards_done", []):
        why = check_shard(out, spec, k, info.get(str(k)))
        if why:
            bad[k] = why
    return bad


def shard_files(out, table: str, manifest: dict | None = None) -> list[Path]:
    """The finished shards' files of one table, in round order."""
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if "shards_done" in manifest:
        return [shard_path(out, table, k) for k in sorted(manifest["shards_done"])
                if shard_path(out, table, k).exists()]
    return sorted((out / table).glob("part-*.parquet"))


def tables_of(manifest: dict) -> tuple:
    return ALL_TABLES if manifest.get("batch", {}).get("turns") else tuple(TABLES)


def iter_shards(out, table: str, columns=None, manifest: dict | None = None):
    """The finished shards of one table as DataFrames, one at a time, in round order (bounded memory)."""
    for p in shard_files(out, table, manifest):
        yield pd.read_parquet(p, columns=columns)


def load(out, columns: dict | None = None, *, tables=None, lazy: bool | str = False) -> dict:
    """The tables of a batch directory (finished shards only).

    columns: optional {table: [column, ...]} to read only those columns.
    tables: optional list of table names (default: all the batch has).
    lazy: False: pandas DataFrames, read now.  True or "arrow": a ``pyarrow.dataset.Dataset``
      per table (nothing read yet: ``.to_table(columns=..., filter=...)``, ``.to_batches()``);
      "dask": a ``dask.dataframe`` per table.  For big batches, or use ``iter_shards``.
    """
    out = Path(out)
    manifest = read_manifest(out)
    names = tuple(tables) if tables else tables_of(manifest)
    result = {}
    for t in names:
        parts = shard_files(out, t, manifest)
        cols = (columns or {}).get(t)
        if lazy is True or lazy == "arrow":
            import pyarrow.dataset as ds
            result[t] = ds.dataset([str(p) for p in parts], format="parquet")
        elif lazy == "dask":
            import dask.dataframe as dd
            result[t] = dd.read_parquet([str(p) for p in parts], columns=cols) if parts else None
        elif lazy:
            raise BadArgument(f"lazy = {lazy!r}: False, True / 'arrow', or 'dask'")
        elif parts:
            result[t] = pd.concat([pd.read_parquet(p, columns=cols) for p in parts], ignore_index=True)
        else:
            result[t] = pd.DataFrame()
    return result


def table_hashes(out) -> dict[str, str]:
    """A SHA-256 per table of its content, row by row in round order: the same whatever the
    shard size, backend or Parquet writer, and read shard by shard (bounded memory)."""
    out = Path(out)
    manifest = read_manifest(out)
    result = {}
    for t in tables_of(manifest):
        cols: dict[str, tuple] = {}
        rows = 0
        for df in iter_shards(out, t, manifest=manifest):
            rows += len(df)
            for c in df.columns:
                if c not in cols:
                    cols[c] = (str(df[c].dtype), hashlib.sha256())
                cols[c][1].update(pd.util.hash_pandas_object(df[c], index=False).to_numpy().tobytes())
        h = hashlib.sha256(f"{t}:{rows}".encode())
        for c, (dtype, hc) in cols.items():
            h.update(f"|{c}:{dtype}:".encode() + hc.digest())
        result[t] = h.hexdigest()
    return result


def table_hash(out) -> str:
    """One SHA-256 of all the tables' content (see ``table_hashes``)."""
    h = hashlib.sha256()
    for t, d in table_hashes(out).items():
        h.update(f"{t}={d};".encode())
    return h.hexdigest()
