"""`lostcards simulate`: a batch of rounds written as tidy tables, shard by shard.

The batch is cut into shards of a fixed number of rounds.  Each shard is played
(here, in local worker processes or on a Dask cluster: ``run/backends.py``) and
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
import json
import time
from pathlib import Path

import numpy as np

from lostcards import __version__
from lostcards.errors import BatchError
from lostcards.policies import resolve
from lostcards.rules.ruleset import check_int
from lostcards.run import backends
from lostcards.run.batchdir import (
    FORMAT,
    DirLock,
    atomic_file,
    check_dir,
    check_shard,
    clear_leftovers,
    now,
    prepare_dir,
    sha256_file,
    shard_path,
    versions,
    write_bytes_atomic,
    write_manifest,
)
from lostcards.run.load import iter_shards
from lostcards.run.runner import play_records, prepare
from lostcards.run.shards import SMALL_SHARD, BatchSpec, sample_rounds

MAX_RECORDS = 10_000_000     # records.jsonl takes about 1.5 kB a round: at most about 15 GB


def check_records(records, rounds: int):
    """`records`: None, 'all' or a count 1..MAX_RECORDS (and 'all' only for batches that small)."""
    if records is None:
        return None
    if records == "all":
        if rounds > MAX_RECORDS:
            raise BatchError(f"records = all is not allowed for {rounds:,} rounds: at most {MAX_RECORDS:,} records "
                             "(about 1.5 kB each); give a number to sample them")
        return "all"
    n = check_int("records", records, 1, MAX_RECORDS, "(or 'all'; each takes about 1.5 kB)", BatchError)
    if n > rounds:
        raise BatchError(f"records = {n:,} is not allowed: at most the batch's {rounds:,} rounds (or 'all')")
    return n


def check_same_records(out: Path, manifest: dict, records, rounds: int) -> None:
    """A resumed batch keeps the records it has: asking for another number of them is refused."""
    had = manifest.get("records")
    if records is None or not isinstance(had, dict) or "rounds" not in had:
        return
    want = rounds if records == "all" else int(records)
    if had["rounds"] != want:
        raise BatchError(f"{out} already holds records.jsonl of {had['rounds']:,} rounds; --records {records} "
                         f"would replace it: ask for {had['rounds']:,} again, or use another --out directory")


def check_untouched(out: Path, manifest: dict, csv: bool, records) -> None:
    """The files beside the shards that this run would write again (records.jsonl, the CSV tables) are
    the ones the batch wrote, or absent: one changed since (its checksum differs from the manifest's)
    is refused, not silently rewritten."""
    kept = _checksums(manifest)
    names = [*(["records.jsonl"] if records is not None else []), *(kept if csv else ())]
    for name in names:
        if changed(out, name, kept.get(name)):
            raise BatchError(f"{out}/{name} is not the file this batch wrote (its checksum differs from "
                             "manifest.json's): it was changed since; move it away (the same command then writes "
                             "it again) or use another --out directory")


def _checksums(manifest: dict) -> dict:
    """{file: {"bytes", "sha256"}} of the files beside the shards, as the manifest keeps them."""
    kept = dict(manifest.get("csv_files") or {})
    if isinstance(manifest.get("records"), dict) and manifest["records"].get("sha256"):
        kept["records.jsonl"] = manifest["records"]
    return kept


def changed(out: Path, name: str, info) -> bool:
    """Whether `name` is there but differs from `info` (what the manifest says this batch wrote; none kept,
    from a batch written before checksums: never)."""
    p = Path(out) / name
    return bool(info and info.get("sha256")) and p.exists() and (p.stat().st_size != info.get("bytes")
                                                                 or sha256_file(p) != info["sha256"])


def _kept(out: Path, name: str, info) -> bool:
    """`name` is there as the batch wrote it (so it is left alone)."""
    return bool(info and info.get("sha256")) and (Path(out) / name).exists() and not changed(out, name, info)


def outputs(spec: BatchSpec, csv: bool, records) -> list:
    """The paths a simulate run writes beside its shard folders."""
    return [*(["records.jsonl"] if records is not None else []), *([f"{t}.csv" for t in spec.tables] if csv else [])]


def run(spec: BatchSpec, out, *, command: str = "", csv: bool = False,
        records: str | int | None = None, threads: int | None = None, progress=None,
        backend=None, log=None) -> dict:
    """Play the batch into `out`, keeping the finished shards that check out; returns the manifest.

    backend: a ``backends.Backend`` (default: this process, `threads` numba threads).
    progress: called with the rounds of each shard as it is written; if it has a
      ``start(total, done)`` method, that is called first with the rounds already done.
    log: called with a line of text for each finished shard found damaged (it is redone).
    """

    out = Path(out)
    a, b = (resolve(p) for p in spec.policies)         # an unknown policy fails before anything is written
    records = check_records(records, spec.rounds)
    backend = backend or backends.Local(threads)
    check_dir(out, "simulate", spec.identity())         # a path the system refuses (too long, ...), before exists()
    existed = out.exists()
    manifest = prepare_dir(out, spec, outputs(spec, csv, records))
    check_same_records(out, manifest, records, spec.rounds)
    check_untouched(out, manifest, csv, records)
    if log and spec.shard_size < SMALL_SHARD and spec.shards > 10:
        log(f"warning: --shard-size {spec.shard_size:,} is small: each of the {spec.shards:,} shards rewrites the "
            f"manifest; {SMALL_SHARD:,} or more (the default is 100,000) plays faster")
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
    with DirLock(out):
        manifest = prepare_dir(out, spec, outputs(spec, csv, records))   # again, under the lock
        check_same_records(out, manifest, records, spec.rounds)
        check_untouched(out, manifest, csv, records)
        clear_leftovers(out)
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
                info[str(k)] = {t: file_info(shard_path(out, t, k)) for t in spec.tables}
            done.add(k)
        session = {"command": command, "backend": backend.describe(), "started": now(),
                   "seconds": 0.0, "shards_played": 0}
        owned = set(manifest.get("outputs", ())) | {"manifest.json", *spec.tables, *outputs(spec, csv, records)}
        if "outputs" not in manifest:        # a batch written before outputs were recorded
            owned |= {"records.jsonl"} if manifest.get("records") else set()
            owned |= set(manifest.get("csv", []))
        manifest.update(format=FORMAT, kind="simulate", identity=spec.identity(), outputs=sorted(owned),
                        command=command, ruleset=spec.rules.describe(), policies=[a.spec, b.spec],
                        seed=spec.seed, rounds=spec.rounds, shard_size=spec.shard_size,
                        backend=session["backend"], versions=versions(), shards=spec.shards,
                        shards_done=sorted(done), complete=len(done) == spec.shards,
                        rounds_done=sum(spec.shard_range(k)[1] for k in done), updated=now())
        manifest.setdefault("sessions", []).append(session)
        base_seconds = float(manifest.get("seconds", 0.0))
        write_manifest(out, manifest)
        todo = (k for k in range(spec.shards) if k not in done)      # lazily: a batch may have many shards
        if not isinstance(backend, backends.Dask) and len(done) < spec.shards:
            prepare(a, b)                    # compile here, once, before the clock starts (workers load it)
        if progress is not None and hasattr(progress, "start"):
            progress.start(spec.rounds, manifest["rounds_done"])
        elif progress is not None and manifest["rounds_done"]:
            progress(manifest["rounds_done"])
        t0 = time.time()

        def account():
            el = round(time.time() - t0, 3)
            session["seconds"] = el
            manifest["seconds"] = round(base_seconds + el, 3)
            manifest["updated"] = now()

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
                    write_bytes_atomic(data, shard_path(out, t, k))
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
                write_manifest(out, manifest)
                if progress is not None:
                    progress(spec.shard_range(k)[1])
        except OSError as e:
            raise BatchError(f"cannot write to {out}: {e.strerror or e}; the finished shards "
                             f"({len(done)} of {spec.shards}) are kept: fix that and run the same command again"
                             ) from None
        finally:
            account()
            try:
                write_manifest(out, manifest)
            except OSError:
                pass
        try:
            if records is not None and spec.rounds:
                if not _kept(out, "records.jsonl", _checksums(manifest).get("records.jsonl")):
                    idx = np.arange(spec.rounds) if records == "all" else sample_rounds(spec.rounds, int(records))
                    n, h, size = _write_records(out / "records.jsonl", spec, a, b, idx)
                    manifest["records"] = {"file": "records.jsonl", "rounds": n, "bytes": size, "sha256": h}
            if csv:
                files = manifest.setdefault("csv_files", {})
                for t in spec.tables:
                    if not _kept(out, f"{t}.csv", files.get(f"{t}.csv")):    # the same table: left as it is
                        _write_csv(out, t, manifest)
                        p = out / f"{t}.csv"
                        files[f"{t}.csv"] = {"bytes": p.stat().st_size, "sha256": sha256_file(p)}
                manifest["csv"] = [f"{t}.csv" for t in spec.tables]
            write_manifest(out, manifest)
        except OSError as e:
            raise BatchError(f"cannot write to {out}: {e.strerror or e}; the tables are complete") from None
    return manifest


def file_info(p: Path) -> dict:
    import pyarrow.parquet as pq
    return {"rows": pq.ParquetFile(p).metadata.num_rows, "bytes": p.stat().st_size, "sha256": sha256_file(p)}


def _write_records(path: Path, spec: BatchSpec, a, b, idx, chunk: int = 5000) -> tuple:
    """records.jsonl, whole; returns (records, sha256, bytes) for the manifest."""
    n = size = 0
    h = hashlib.sha256()
    with atomic_file(path, "wb") as f:
        for lo in range(0, len(idx), chunk):
            for r in play_records(spec.rules, a, b, idx[lo:lo + chunk], seed=spec.seed, first=spec.first):
                line = (json.dumps(r, separators=(",", ":")) + "\n").encode()
                f.write(line)
                h.update(line)
                n += 1
                size += len(line)
    return n, h.hexdigest(), size


def _write_csv(out: Path, table: str, manifest: dict):
    with atomic_file(out / f"{table}.csv", newline="") as f:
        first = True
        for df in iter_shards(out, table, manifest=manifest):
            df.to_csv(f, header=first, index=False)
            first = False
