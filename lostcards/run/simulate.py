"""`lostcards simulate`: a batch of rounds written as tidy tables, shard by shard.

The batch is cut into shards of a fixed number of rounds.  Each shard is played
(here, in local worker processes or on a Dask cluster: ``backends.py``) and
comes back as Parquet bytes; the coordinator writes each file to a temporary
name and renames it, then records the shard in ``manifest.json`` with its row
counts and SHA-256 checksums.  Rerunning the same command checks the finished
shards against those checksums, keeps the good ones and plays the rest (a
missing, partial or corrupt shard is redone), so nothing is lost or counted
twice.  Round i of a batch is the same round whatever the shard size, the
number of threads or workers, or the backend.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .policies import resolve
from .runner import play, records as make_records
from .ruleset import Ruleset
from .stats import Estimate, share_ci
from .tables import ALL_TABLES, TABLES, tables, turns_table

FORMAT = "lostcards-batch/2"


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


# ---- the batch directory --------------------------------------------------------

def _shard_path(out: Path, table: str, k: int) -> Path:
    return out / table / f"part-{k:05d}.parquet"


def _write_bytes_atomic(data: bytes, path: Path):
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


def _write_manifest(out: Path, manifest: dict):
    _write_bytes_atomic((json.dumps(manifest, indent=2) + "\n").encode(), out / "manifest.json")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


_OURS = {"manifest.json", "manifest.json.tmp", ".lock", "records.jsonl", "records.jsonl.tmp", *ALL_TABLES}


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
            raise BatchError(f"{out} already holds a different batch ({_describe_identity(theirs)}); "
                             "use another --out directory")
        _probe(out)
        return old
    if out.exists() and out.is_dir():
        foreign = sorted(p.name for p in out.iterdir()
                         if p.name not in _OURS and not p.name.endswith((".csv", ".csv.tmp")))
        if foreign:
            raise BatchError(f"{out} is not empty and holds no lostcards batch ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}); use a new or empty --out directory")
    _probe(out)
    return {"format": FORMAT, "batch": spec.identity(), "created": _now(),
            "shards_done": [], "shard_files": {}, "seconds": 0.0}


def _probe(out: Path):
    """Create `out` and check that files can be written there; BatchError in one line if not."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / f".write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise BatchError(f"cannot write to {out}: {e.strerror or e}") from None


def _describe_identity(b) -> str:
    if not isinstance(b, dict):
        return "unknown"
    rules = b.get("rules")
    rules = rules if isinstance(rules, str) else json.dumps(rules, separators=(",", ":"))
    pol = " vs ".join(b.get("policies", []))
    return (f"{rules}, {b.get('players')} players, {pol}, seed {b.get('seed')}, {b.get('rounds')} rounds, "
            f"first {b.get('first')}, shard size {b.get('shard_size')}"
            + (f", turns {b['turns']}" if b.get("turns") else ""))


class _DirLock:
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


def _sha256_file(path: Path) -> str:
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
        p = _shard_path(out, t, k)
        if not p.exists():
            return f"{t} file missing"
        rec = (info or {}).get(t)
        if rec:
            if p.stat().st_size != rec.get("bytes"):
                return f"{t} file has {p.stat().st_size} bytes, not {rec.get('bytes')}"
            if _sha256_file(p) != rec.get("sha256"):
                return f"{t} file checksum differs"
        else:                      # a batch written before checksums: check the rows at least
            try:
                rows = pq.ParquetFile(p).metadata.num_rows
            except Exception:
                return f"{t} file unreadable"
            if t in expect and rows != expect[t]:
                return f"{t} file has {rows} rows, not {expect[t]}"
    return None


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
    from .ruleset import from_record
    b = manifest["batch"]
    return BatchSpec(from_record(b["rules"], b["players"]), tuple(b["policies"]), b["seed"], b["rounds"],
                     b["first"], b["shard_size"], b.get("turns", 0))


# ---- progress ---------------------------------------------------------------------

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
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# ---- running a batch ----------------------------------------------------------------

def run(spec: BatchSpec, out, *, command: str = "", csv: bool = False,
        records: str | int | None = None, threads: int | None = None, progress=None,
        backend=None, log=None) -> dict:
    """Play the batch into `out`, keeping the finished shards that check out; returns the manifest.

    backend: a ``backends.Backend`` (default: this process, `threads` numba threads).
    progress: called with the rounds of each shard as it is written; if it has a
      ``start(total, done)`` method, that is called first with the rounds already done.
    log: called with a line of text for each finished shard found damaged (it is redone).
    """
    from . import backends
    out = Path(out)
    a, b = (resolve(p) for p in spec.policies)         # an unknown policy fails before anything is written
    if records is not None and records != "all" and int(records) <= 0:
        raise BatchError(f"records = {records!r} is not allowed: 'all' or a positive number")
    backend = backend or backends.Local(threads)
    existed = out.exists()
    prepare_dir(out, spec)                             # refuse a wrong directory before anything else
    opened = backend.open()
    try:
        opened.__enter__()                             # connect to the cluster, say: fail before writing
    except BaseException:
        if not existed:
            _remove_if_empty(out)
        raise
    with contextlib.ExitStack() as stack:
        stack.push(opened)
        return _run(spec, out, a, b, backend, command, csv, records, progress, log)


def _remove_if_empty(out: Path):
    try:
        for p in out.iterdir():
            if p.name != ".lock":
                return
        (out / ".lock").unlink(missing_ok=True)
        out.rmdir()
    except OSError:
        pass


def _run(spec, out, a, b, backend, command, csv, records, progress, log) -> dict:
    with _DirLock(out):
        manifest = prepare_dir(out, spec)              # again, under the lock: nobody wrote meanwhile
        for t in spec.tables:
            (out / t).mkdir(exist_ok=True)
        info = manifest.setdefault("shard_files", {})
        done = set()
        for k in manifest.get("shards_done", []):
            if not (0 <= k < spec.shards):
                continue
            why = check_shard(out, spec, k, info.get(str(k)))
            if why:
                if log:
                    log(f"shard {k}: {why}; playing it again")
                info.pop(str(k), None)
                continue
            if str(k) not in info:          # a batch written before checksums: record them now
                info[str(k)] = {t: _file_info(_shard_path(out, t, k)) for t in spec.tables}
            done.add(k)
        session = {"command": command, "backend": backend.describe(), "started": _now(),
                   "seconds": 0.0, "shards_played": 0}
        manifest.update(format=FORMAT, command=command, ruleset=spec.rules.describe(), policies=[a.spec, b.spec],
                        seed=spec.seed, rounds=spec.rounds, shard_size=spec.shard_size,
                        backend=session["backend"], versions=versions(), shards=spec.shards,
                        shards_done=sorted(done), complete=len(done) == spec.shards,
                        rounds_done=sum(spec.shard_range(k)[1] for k in done), updated=_now())
        manifest.setdefault("sessions", []).append(session)
        base_seconds = float(manifest.get("seconds", 0.0))
        _write_manifest(out, manifest)
        todo = [k for k in range(spec.shards) if k not in done]
        if progress is not None and hasattr(progress, "start"):
            progress.start(spec.rounds, manifest["rounds_done"])
        elif progress is not None and manifest["rounds_done"]:
            progress(manifest["rounds_done"])
        t0 = time.time()

        def account():
            el = round(time.time() - t0, 3)
            session["seconds"] = el
            manifest["seconds"] = round(base_seconds + el, 3)
            manifest["updated"] = _now()

        try:
            for res in backend.map(spec, todo):
                k = res.k
                if res.version != __version__:
                    raise BatchError(f"shard {k} was played by lostcards {res.version} on {res.host}, this is "
                                     f"{__version__}: install the same version on every worker")
                wrong = {t: n for t, n in spec.expected_rows(k).items() if res.rows.get(t) != n}
                if wrong or set(res.files) != set(spec.tables):
                    raise BatchError(f"shard {k} came back from {res.host} with the wrong tables "
                                     f"({wrong or sorted(res.files)}); nothing of it was written")
                rec = {}
                for t in spec.tables:
                    data = res.files[t]
                    _write_bytes_atomic(data, _shard_path(out, t, k))
                    rec[t] = {"rows": res.rows[t], "bytes": len(data),
                              "sha256": hashlib.sha256(data).hexdigest()}
                rec["played"] = {"host": res.host, "seconds": round(res.seconds, 3)}
                del res
                info[str(k)] = rec
                done.add(k)
                manifest["shards_done"] = sorted(done)
                manifest["rounds_done"] += spec.shard_range(k)[1]
                manifest["complete"] = len(done) == spec.shards
                session["shards_played"] += 1
                account()
                _write_manifest(out, manifest)
                if progress is not None:
                    progress(spec.shard_range(k)[1])
        except OSError as e:
            raise BatchError(f"cannot write to {out}: {e.strerror or e}; the finished shards "
                             f"({len(done)} of {spec.shards}) are kept: fix that and run the same command again") from None
        finally:
            account()
            try:
                _write_manifest(out, manifest)
            except OSError:
                pass
        try:
            if records is not None and spec.rounds:
                idx = np.arange(spec.rounds) if records == "all" else sample_rounds(spec.rounds, int(records))
                n = _write_records(out / "records.jsonl", spec, a, b, idx)
                manifest["records"] = {"file": "records.jsonl", "rounds": n}
            if csv:
                for t in spec.tables:
                    _write_csv(out, t, manifest)
                manifest["csv"] = [f"{t}.csv" for t in spec.tables]
            _write_manifest(out, manifest)
        except OSError as e:
            raise BatchError(f"cannot write to {out}: {e.strerror or e}; the tables are complete") from None
    return manifest


def _file_info(p: Path) -> dict:
    import pyarrow.parquet as pq
    return {"rows": pq.ParquetFile(p).metadata.num_rows, "bytes": p.stat().st_size, "sha256": _sha256_file(p)}


def _write_records(path: Path, spec: BatchSpec, a, b, idx, chunk: int = 5000) -> int:
    tmp = path.with_name(path.name + ".tmp")
    n = 0
    with open(tmp, "w") as f:
        for lo in range(0, len(idx), chunk):
            for r in make_records(spec.rules, a, b, idx[lo:lo + chunk], seed=spec.seed, first=spec.first):
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
                n += 1
    os.replace(tmp, path)
    return n


def _write_csv(out: Path, table: str, manifest: dict):
    tmp = out / f"{table}.csv.tmp"
    with open(tmp, "w", newline="") as f:
        first = True
        for df in iter_shards(out, table, manifest=manifest):
            df.to_csv(f, header=first, index=False)
            first = False
    os.replace(tmp, out / f"{table}.csv")


# ---- reading a batch --------------------------------------------------------------------

def shard_files(out, table: str, manifest: dict | None = None) -> list[Path]:
    """The finished shards' files of one table, in round order."""
    out = Path(out)
    manifest = manifest or read_manifest(out)
    if "shards_done" in manifest:
        return [_shard_path(out, table, k) for k in sorted(manifest["shards_done"])
                if _shard_path(out, table, k).exists()]
    return sorted((out / table).glob("part-*.parquet"))


def _tables_of(manifest: dict) -> tuple:
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
    names = tuple(tables) if tables else _tables_of(manifest)
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
            raise ValueError(f"lazy = {lazy!r}: False, True / 'arrow', or 'dask'")
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
    for t in _tables_of(manifest):
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


# ---- the summary -------------------------------------------------------------------------

_SEAT_STATS = ["plays", "discards", "deck_draws", "pile_draws", "passes"]


class _Moments:
    """Exact count, sum and sum of squares of integers, fed chunk by chunk."""

    def __init__(self):
        self.n = self.s = self.ss = 0

    def add(self, x):
        x = np.asarray(x, dtype=np.int64)
        self.n += int(x.size)
        self.s += int(x.sum())
        self.ss += int((x * x).sum())

    def estimate(self, level: float = 0.95) -> Estimate:
        from scipy import stats as st
        n = self.n
        if n == 0:
            return Estimate(float("nan"), float("nan"), float("nan"), 0)
        m = self.s / n
        if n < 2:
            return Estimate(m, float("nan"), float("nan"), n)
        var = (self.ss - self.s * self.s / n) / (n - 1)
        se = float(np.sqrt(max(var, 0.0))) / np.sqrt(n)
        q = st.t.ppf(0.5 + level / 2, n - 1)
        return Estimate(m, m - q * se, m + q * se, n)


class _Summary:
    def __init__(self):
        self.n = 0
        self.turns, self.a, self.b, self.margin = _Moments(), _Moments(), _Moments(), _Moments()
        self.two_sided = True
        self.ended: dict = {}
        self.wins = self.draws = 0
        self.pol = None
        self.seat_sum = None
        self.seat_n = None

    def add_rounds(self, r: pd.DataFrame):
        if not len(r):
            return
        self.n += len(r)
        if self.pol is None:
            self.pol = (str(r["policy_a"].iloc[0]), str(r["policy_b"].iloc[0]))
        self.turns.add(r["turns"])
        self.a.add(r["score_a"])
        for k, v in r["ended_by"].value_counts(sort=False).items():
            self.ended[k] = self.ended.get(k, 0) + int(v)
        sb = r["score_b"]
        if self.two_sided and sb.notna().all():
            sb = sb.to_numpy(dtype=np.int64)
            m = r["score_a"].to_numpy(np.int64) - sb
            self.b.add(sb)
            self.margin.add(m)
            self.wins += int((m > 0).sum())
            self.draws += int((m == 0).sum())
        else:
            self.two_sided = False

    def add_seats(self, s: pd.DataFrame):
        if not len(s):
            return
        g = s.groupby("seat", observed=True)[_SEAT_STATS]
        sums, counts = g.sum(), g.size()
        self.seat_sum = sums if self.seat_sum is None else self.seat_sum.add(sums, fill_value=0)
        self.seat_n = counts if self.seat_n is None else self.seat_n.add(counts, fill_value=0)

    def text(self, manifest: dict | None) -> str:
        lines = []
        if manifest:
            b = manifest.get("batch", {})
            lines.append(f"batch: {manifest.get('ruleset')}, {b.get('players')} players, "
                         f"{' vs '.join(manifest.get('policies', []))}, seed {b.get('seed')}")
            if "shards" in manifest and not manifest.get("complete", len(manifest.get("shards_done", []))
                                                      == manifest["shards"]):
                lines.append(f"partial: {len(manifest.get('shards_done', []))} of {manifest['shards']} shards "
                             f"({self.n:,} of {b.get('rounds', 0):,} rounds); run the same command to finish")
        n = self.n
        if n == 0:
            return "\n".join(lines + ["no rounds played yet"])
        lines.append(f"rounds: {n:,}")
        lines.append(f"turns per round: {self.turns.estimate()}")
        ended = ", ".join(f"{k} {share_ci(v, n).estimate:.2%}"
                          for k, v in sorted(self.ended.items(), key=lambda kv: -kv[1]) if v)
        lines.append(f"ended by: {ended}")
        lines.append(f"score, side A ({self.pol[0]}): {self.a.estimate()}")
        if self.two_sided:
            lines.append(f"score, side B ({self.pol[1]}): {self.b.estimate()}")
            lines.append(f"margin A - B: {self.margin.estimate()}; A wins {share_ci(self.wins, n).estimate:.1%}, "
                         f"draws {share_ci(self.draws, n).estimate:.1%}")
        if self.seat_sum is not None:
            per_seat = self.seat_sum.div(self.seat_n, axis=0)
            lines.append("per seat (means):  " + "  ".join(f"{c:>10}" for c in per_seat.columns))
            for seat, row in per_seat.iterrows():
                lines.append(f"  seat {seat}:          " + "  ".join(f"{v:10.2f}" for v in row))
        if manifest and manifest.get("seconds"):
            lines.append(f"time: {manifest['seconds']:.1f} s ({n / max(manifest['seconds'], 1e-9):,.0f} rounds/s)")
        return "\n".join(lines)


_ROUND_COLS = ["policy_a", "policy_b", "turns", "ended_by", "score_a", "score_b"]


def summary(tabs: dict[str, pd.DataFrame], manifest: dict | None = None) -> str:
    """The one-screen summary of a batch's tables (DataFrames, as ``load`` returns)."""
    acc = _Summary()
    acc.add_rounds(tabs["rounds"])
    acc.add_seats(tabs["seats"])
    return acc.text(manifest)


def summarize(out) -> str:
    """The one-screen summary of a finished or partial batch directory, read shard by shard."""
    out = Path(out)
    manifest = read_manifest(out)
    acc = _Summary()
    for df in iter_shards(out, "rounds", _ROUND_COLS, manifest):
        acc.add_rounds(df)
    for df in iter_shards(out, "seats", ["seat", *_SEAT_STATS], manifest):
        acc.add_seats(df)
    return acc.text(manifest)
