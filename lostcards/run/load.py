"""Reading a batch directory: its manifest, its tables (all at once, lazily, or shard by shard),
content hashes that do not depend on the shards, and checking the shards against the manifest."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pandas as pd

from lostcards.errors import BadArgument, BatchError
from lostcards.rules.ruleset import shorten
from lostcards.run.batchdir import check_shard, kind_of, shard_path
from lostcards.run.shards import ALL_TABLES, TABLES, BatchSpec

_BATCH_KEYS = ("rules", "players", "policies", "seed", "rounds", "first", "shard_size")


def read_manifest(out) -> dict:
    """The manifest of a simulate batch; BatchError (one line) for anything else: none, unreadable,
    another command's output, or a manifest that lacks what a batch's has."""
    out = Path(out)
    mpath = out / "manifest.json"
    if not mpath.exists():
        raise BatchError(f"{out} holds no lostcards batch (no manifest.json)")
    try:
        m = json.loads(mpath.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise BatchError(f"{out} holds an unreadable manifest.json") from None
    if not isinstance(m, dict):
        kind = "null" if m is None else type(m).__name__
        raise BatchError(f"{out}/manifest.json is not a lostcards batch manifest (a JSON {kind})")
    kind = kind_of(m)
    if kind not in (None, "simulate"):
        raise BatchError(f"{out} holds a {kind} output, not a simulate batch (summary and load read what "
                         "`lostcards simulate` writes)")
    b = m.get("batch")
    missing = [k for k in _BATCH_KEYS if not isinstance(b, dict) or k not in b]
    if missing or not isinstance(m.get("shards_done", []), list) or not isinstance(m.get("shard_files", {}), dict):
        what = f"no {', '.join(missing)} in its batch" if missing else "a malformed shard list"
        raise BatchError(f"{out}/manifest.json is not a lostcards batch manifest ({what})")
    shards = m.get("shards_done", [])
    if not all(isinstance(k, int) and not isinstance(k, bool) and k >= 0 for k in shards) \
            or len(set(shards)) != len(shards):
        raise BatchError(f"{out}/manifest.json lists its finished shards as {_shown(shards)}: distinct shard "
                         "numbers are expected; it was edited or damaged")
    bad = next((k for k, v in m.get("shard_files", {}).items() if not isinstance(v, dict)
                or any(not isinstance(r, dict) or isinstance(r.get("rows", 0), bool)
                       or not isinstance(r.get("rows", 0), int) for r in v.values())), None)
    if bad is not None:
        raise BatchError(f"{out}/manifest.json describes shard {_shown(bad)}'s files as "
                         f"{_shown(m['shard_files'][bad])}: it was edited or damaged")
    done, total = m.get("rounds_done"), b.get("rounds")
    if "rounds_done" in m and (isinstance(done, bool) or not isinstance(done, int) or isinstance(total, bool)
                               or not isinstance(total, int) or not 0 <= done <= total):
        raise BatchError(f"{out}/manifest.json says {_shown(done)} rounds done of a batch of {_shown(total)} "
                         "rounds: it was edited or damaged")
    return m


def _shown(v) -> str:
    from lostcards.rules.ruleset import shorten
    t = f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) and abs(v).bit_length() < 96 else shorten(v, 40)
    return t if len(t) <= 40 else t[:28] + "..."


def spec_of(manifest: dict) -> BatchSpec:
    """The BatchSpec a manifest was written for."""
    from lostcards.errors import LostcardsError
    from lostcards.rules.ruleset import from_record
    b = manifest["batch"]
    try:
        return BatchSpec(from_record(b["rules"], b["players"]), tuple(b["policies"]), b["seed"], b["rounds"],
                         b["first"], b["shard_size"], b.get("turns", 0))
    except (LostcardsError, TypeError) as e:
        raise BatchError(f"the manifest's batch is not one lostcards can read: {e}") from None


def verify(out, spec: BatchSpec | None = None) -> dict:
    """Check every finished shard of a batch directory against the manifest's row counts, sizes and
    SHA-256 checksums: {shard: problem} (empty when all are good)."""
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


def _expected_rows(manifest: dict, table: str, k: int):
    rec = (manifest.get("shard_files", {}).get(str(k)) or {}).get(table)
    if isinstance(rec, dict) and "rows" in rec:
        return rec["rows"]
    if table == "turns":
        return None
    return spec_of(manifest).expected_rows(k).get(table)


def shard_files(out, table: str, manifest: dict | None = None) -> list[Path]:
    """The finished shards' files of one table, in round order, each checked to be there with the rows
    the manifest promises (BatchError naming what is missing; ``verify`` also checks the checksums)."""
    import pyarrow.parquet as pq
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if "shards_done" not in manifest:
        return sorted((out / table).glob("part-*.parquet"))
    paths, problems = [], []
    for k in sorted(manifest["shards_done"]):
        p = shard_path(out, table, k)
        if not p.exists():
            problems.append(f"{p.relative_to(out)} is missing")
            continue
        want = _expected_rows(manifest, table, k)
        try:
            rows = pq.ParquetFile(p).metadata.num_rows
        except Exception:
            problems.append(f"{p.relative_to(out)} is unreadable")
            continue
        if want is not None and rows != want:
            problems.append(f"{p.relative_to(out)} has {rows:,} rows, not {want:,}")
        paths.append(p)
    if problems:
        raise BatchError(f"{out}: {len(problems)} shard file{'s' if len(problems) > 1 else ''} the manifest lists "
                         f"{'are' if len(problems) > 1 else 'is'} not as written ({'; '.join(problems[:2])}"
                         f"{'; ...' if len(problems) > 2 else ''}); run the same simulate command to play "
                         f"{'them' if len(problems) > 1 else 'it'} again")
    return paths


def tables_of(manifest: dict) -> tuple:
    return ALL_TABLES if manifest.get("batch", {}).get("turns") else tuple(TABLES)


def iter_shards(out, table: str, columns=None, manifest: dict | None = None):
    """The finished shards of one table as DataFrames, one at a time, in round order (bounded memory).

    Every listed shard is checked before the first is read (``shard_files``)."""
    manifest = manifest or read_manifest(out)
    _check_request(manifest, [table], {table: columns} if columns is not None else None)
    parts = shard_files(out, table, manifest)
    _check_columns(table, columns, parts)
    for p in parts:
        yield pd.read_parquet(p, columns=columns)


def _check_request(manifest: dict, tables, columns) -> None:
    """BadArgument for a table the batch lacks, or columns it does not have (nothing is read)."""
    have = tables_of(manifest)
    for t in tables:
        if t not in have:
            raise BadArgument(f"table {shorten(str(t))} is not one of this batch's ({', '.join(have)})")
    if columns is None:
        return
    if not isinstance(columns, dict):
        raise BadArgument(f"columns must be {{table: [column, ...]}}, got {shorten(repr(columns))}")
    for t, cols in columns.items():
        if t not in have:
            raise BadArgument(f"columns: table {shorten(str(t))} is not one of this batch's ({', '.join(have)})")
        if cols is not None and (isinstance(cols, str) or not hasattr(cols, "__iter__")
                                 or not all(isinstance(c, str) for c in cols)):
            raise BadArgument(f"columns[{t!r}] must be a list of column names, got {shorten(repr(cols))}")


def _check_columns(table: str, cols, parts) -> None:
    """BadArgument for a column the table's files do not have (read from the first file's schema)."""
    if not cols or not parts:
        return
    import pyarrow.parquet as pq
    names = pq.read_schema(parts[0]).names
    bad = [c for c in cols if c not in names]
    if bad:
        raise BadArgument(f"{table} has no column {shorten(bad[0])} (columns: {', '.join(names)})")


def load(out, columns: dict | None = None, *, tables=None, lazy: bool | str = False) -> dict:
    """The tables of a batch directory (finished shards only).

    columns: optional {table: [column, ...]} to read only those columns.
    tables: optional list of table names (default: all the batch has).
    lazy: False: pandas DataFrames, read now.  True or "arrow": a ``pyarrow.dataset.Dataset``
      per table (nothing read yet: ``.to_table(columns=..., filter=...)``, ``.to_batches()``);
      "dask": a ``dask.dataframe`` per table.  For big batches, or use ``iter_shards``.
    """
    if not isinstance(out, (str, os.PathLike)):
        raise BatchError(f"out = {out!r:.40} is not allowed: a batch directory (a path)")
    out = Path(out)
    manifest = read_manifest(out)
    if isinstance(tables, str):
        tables = [tables]
    if tables is not None and not (hasattr(tables, "__iter__") and not isinstance(tables, (bytes, dict))):
        raise BadArgument(f"tables = {shorten(repr(tables))} is not allowed: a table name or a list of them")
    names = tuple(tables) if tables else tables_of(manifest)
    _check_request(manifest, names, columns)
    if not any(lazy is v for v in (False, True)) and lazy not in ("arrow", "dask"):     # 1 == True: refused
        raise BadArgument(f"lazy = {shorten(repr(lazy))} is not allowed: False, True / 'arrow', or 'dask'")
    result = {}
    for t in names:
        parts = shard_files(out, t, manifest)
        cols = (columns or {}).get(t)
        _check_columns(t, cols, parts)
        if lazy is True or lazy == "arrow":
            import pyarrow.dataset as ds
            result[t] = ds.dataset([str(p) for p in parts], format="parquet")
        elif lazy == "dask":
            import dask.dataframe as dd
            result[t] = dd.read_parquet([str(p) for p in parts], columns=cols) if parts else None
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
