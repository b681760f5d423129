"""The batch directory: where shard files go, the one atomic manifest writer, the output-directory guard.

Every command that writes a directory (simulate, tournament, sweep, train, claims,
rule tweaks) claims it first (``claim`` / ``check_dir``): a directory holding another
command's output, a different run of the same command, or files the run would
overwrite that no run of it wrote, is refused in one line before anything is
played.  Manifests are written with ``write_manifest`` (a temporary file, fsync,
rename); results go in through ``Claim.staging`` or ``atomic_file``, so a full
disk or Ctrl-C leaves no temporary file and no half-written result.
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import shutil
import sys
from contextlib import contextmanager
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from lostcards import __version__
from lostcards.errors import BatchError, shown_path
from lostcards.run.shards import BATCH_TABLES, BatchSpec

FORMAT = "lostcards-batch/2"


def versions() -> dict:
    """The versions of the packages that decide the results (read from their metadata: nothing imported)."""
    v = {"lostcards": __version__, "python": platform.python_version()}
    for dist in ("numpy", "numba", "pandas", "scipy", "pyarrow", "dask", "distributed"):
        if dist in ("dask", "distributed") and dist not in sys.modules:
            continue
        try:
            v[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            v[dist] = "?"
    return v


def shard_path(out: Path, table: str, k: int) -> Path:
    return out / table / f"part-{k:05d}.parquet"


def write_bytes_atomic(data: bytes, path: Path):
    with atomic_file(path, "wb") as f:
        f.write(data)


def write_manifest(out: Path, manifest: dict, name: str = "manifest.json"):
    """Write `out/name` atomically (a temporary file, fsync, rename): a reader sees the old or the new one.

    Every command's manifest goes through here (simulate, tournament, sweep, claims, rule tweaks).
    """
    write_bytes_atomic((json.dumps(manifest, indent=2, default=str) + "\n").encode(), Path(out) / name)


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ---- the output-directory guard: every command that writes a directory claims it first ----------

# the manifest each command kind writes; claims and rule tweaks share the report directory
MANIFESTS = {"simulate": "manifest.json", "tournament": "manifest.json", "sweep": "manifest.json",
             "train": "manifest.json", "claims": "claims.manifest.json", "rule-tweaks": "rule-tweaks.json"}
SHARE = {"claims": {"rule-tweaks"}, "rule-tweaks": {"claims"}}


def _read_json(path: Path):
    try:
        value = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise BatchError(f"{path.parent} holds an unreadable {path.name}; use another --out directory") from None
    if not isinstance(value, dict):
        raise BatchError(f"{path.parent} holds a {path.name} that is not a lostcards manifest "
                         f"(a JSON {'null' if value is None else type(value).__name__}); use another --out directory")
    return value


def kind_of(manifest: dict) -> str | None:
    """The command that wrote a manifest.json (a batch written before kinds were recorded: simulate)."""
    kind = manifest.get("kind")
    if kind is None and "batch" in manifest:
        return "simulate"
    return kind if isinstance(kind, str) and kind in MANIFESTS else None


def manifests_in(out: Path) -> dict:
    """{kind: manifest} of every lostcards output in `out`; BatchError for a manifest no command wrote."""
    found = {}
    path = out / "manifest.json"
    if path.is_file():
        m = _read_json(path)
        kind = kind_of(m)
        if kind is None:
            raise BatchError(f"{out} holds a manifest.json that no lostcards command wrote (no batch, no kind); "
                             "use another --out directory")
        found[kind] = m
    for kind in ("claims", "rule-tweaks"):
        path = out / MANIFESTS[kind]
        if path.is_file():
            found[kind] = _read_json(path)
    return found


def identity_of(kind: str, m: dict):
    """What decides a run's results, from its manifest (older manifests: from the fields they have)."""
    if "identity" in m:
        return m["identity"]
    if kind == "simulate":
        return m.get("batch")
    if kind == "claims":
        return {"claims": m.get("claims"), "quick": m.get("quick"), "seed": m.get("seed")}
    if kind == "rule-tweaks":
        cfg = m.get("config") or {}
        return {k: cfg.get(k) for k in ("seed", "rounds", "players", "depth_deals", "budgets")}
    return {"command": m.get("command")}


def owned_files(kind: str, m: dict) -> set:
    """The paths (relative, POSIX) a run's manifest says it wrote."""
    if "outputs" in m:
        return set(m["outputs"])
    own = {MANIFESTS[kind]}
    if kind == "simulate":
        b = m.get("batch") or {}
        own |= {*BATCH_TABLES, *(("turns",) if b.get("turns") else ()), *m.get("csv", [])}
        own |= {"records.jsonl"} if m.get("records") else set()
    elif kind in ("tournament", "sweep"):
        own |= set(m.get("files", []))
    elif kind == "claims":
        own |= {"claims.csv", "claims.md", *(f"figures/{c}.{x}" for c in m.get("claims", []) for x in ("png", "svg"))}
    elif kind == "rule-tweaks":
        own |= {"rule-tweaks.csv", "rule-tweaks.md", *(f"figures/{f}" for f in m.get("figures", []))}
    return own


def _short(v, width: int = 40) -> str:
    t = v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), default=str)
    return t if len(t) <= width else t[:width - 3] + "..."


def differences(old, new) -> str:
    """'seed 3 there, 4 here; rounds ...': the fields in which two identities differ."""
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return f"{_short(old)} there, {_short(new)} here"
    keys = [k for k in (*new, *(k for k in old if k not in new)) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {_short(old.get(k))} there, {_short(new.get(k))} here" for k in keys)


def _claims_conflict(old: dict, new: dict) -> str | None:
    """A claims run may replace another unless it would lose something: a full report, a claim, the seed."""
    if old.get("quick") is False and new.get("quick"):
        return "holds a full claims report; a quick run would replace it"
    had, has = old.get("claims"), new.get("claims")
    if has != "all" and (had == "all" or not set(had or ()) <= set(has or ())):
        held = "every claim" if had == "all" else f"{len(had or ())} claims"
        return (f"holds a {'quick' if old.get('quick') else 'full'} claims report of {held}; a partial run "
                f"({_short(', '.join(has or ()))}) would replace it")
    if old.get("seed") != new.get("seed"):
        return f"holds a claims report of seed {_short(old.get('seed'))}, not {_short(new.get('seed'))}"
    return None


def _conflict(kind: str, old, new) -> str | None:
    if kind == "claims":
        return _claims_conflict(old or {}, new)
    if old == new:
        return None
    what = "a different batch" if kind == "simulate" else f"a different {kind} run"
    return f"already holds {what} ({differences(old, new)})"


def _describe(kind: str, m: dict) -> str:
    if kind == "simulate":
        return f"a simulate batch ({describe_identity(m.get('batch'))})"
    return f"a {kind} output ({_short(m.get('command') or 'lostcards ' + kind, 60)})"


def _present(out: Path, rel: str) -> bool:
    return (out / rel).exists()


def check_dir(out: Path, kind: str, identity, outputs=()) -> tuple:
    """Check, writing nothing, that `out` may take this run: (its earlier manifest or None, the paths it owns).

    Refused in one line (BatchError): a file; another command's output; a different
    run of the same command; files this run would overwrite that no run of it wrote;
    a non-empty directory holding no lostcards output.
    """
    out = Path(out)
    try:
        out.stat()
    except FileNotFoundError:
        return None, set()
    except OSError as e:              # a name too long, a folder that cannot be entered, ...
        raise BatchError(f"cannot write to {shown_path(out)}: {e.strerror or e}") from None
    if not out.is_dir():
        raise BatchError(f"{out} is a file, not a directory; use another --out directory")
    found = manifests_in(out)
    for k, m in found.items():
        if k != kind and k not in SHARE.get(kind, ()):
            raise BatchError(f"{out} holds {_describe(k, m)}; {kind} would overwrite it: use another --out directory")
    old = found.get(kind)
    owned = owned_files(kind, old) if old is not None else set()
    if old is not None and old.get("complete") is False and "outputs" in old and not any(
            _present(out, p) for p in old["outputs"] if p != MANIFESTS[kind]):
        old, owned = None, {MANIFESTS[kind]}     # an unfinished run that wrote nothing but its claim: nothing to lose
    if old is not None:
        why = _conflict(kind, identity_of(kind, old), identity)
        if why:
            raise BatchError(f"{out} {why}; use another --out directory")
    elif not found:
        foreign = sorted(p.name for p in out.iterdir()
                         if not p.name.startswith(".") and not p.name.endswith(".tmp") and p.name != MANIFESTS[kind])
        if foreign:
            raise BatchError(f"{out} is not empty and holds no lostcards output ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}); use a new or empty --out directory")
    foreign = sorted(p for p in outputs if p not in owned and _present(out, p))
    if foreign:
        raise BatchError(f"{out} holds {', '.join(foreign[:3])}{', ...' if len(foreign) > 3 else ''}, which no "
                         f"lostcards {kind} run wrote and this one would overwrite; move it or use another --out")
    return old, owned


class Claim:
    """A directory claimed by one run: its kind, identity and the paths it owns; results go in through `staging`."""

    def __init__(self, out: Path, kind: str, identity, old: dict | None, owned: set, outputs):
        self.out, self.kind, self.identity, self.old = out, kind, identity, old
        self.owned = owned | set(outputs)

    def stamp(self, files=(), complete: bool = True) -> dict:
        """The fields every manifest of this run carries: kind, identity, outputs, complete."""
        return {"kind": self.kind, "identity": self.identity, "outputs": sorted(self.owned | set(files)),
                "complete": complete}

    @contextmanager
    def staging(self):
        """A scratch folder inside `out` for the run's files; on success each is renamed into place
        (the manifest last), on any failure (a full disk, Ctrl-C) the folder goes and `out` is as it was."""
        tmp = self.out / f".staging-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            tmp.mkdir()
            yield tmp
            self._commit(tmp)
        except OSError as e:
            raise BatchError(f"cannot write to {self.out}: {e.strerror or e}; nothing of this run was written "
                             f"(what {self.out} held is as it was)") from None
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _commit(self, tmp: Path):
        files = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
        foreign = [f for f in files if f not in self.owned and _present(self.out, f)]
        if foreign:
            raise BatchError(f"{self.out} holds {', '.join(foreign[:3])}, which this {self.kind} run would "
                             "overwrite and did not claim; nothing was written")
        name = MANIFESTS[self.kind]
        if name in files:
            m = _read_json(tmp / name)
            write_manifest(tmp, {**m, **self.stamp(files)}, name)
        for f in [f for f in files if f != name] + ([name] if name in files else []):
            (self.out / f).parent.mkdir(parents=True, exist_ok=True)
            os.replace(tmp / f, self.out / f)


@contextmanager
def claim(out, kind: str, identity, outputs=(), command: str = ""):
    """Claim `out` for one run of `kind` (see ``check_dir``), holding its lock until the run ends.

    A new directory gets a manifest naming the kind and identity before anything is
    played (``complete: false``), so no other command, or other run, writes into it meanwhile.
    """
    out = Path(out)
    check_dir(out, kind, identity, outputs)           # refuse before creating anything
    probe(out)
    with DirLock(out):
        old, owned = check_dir(out, kind, identity, outputs)
        clear_leftovers(out)
        c = Claim(out, kind, identity, old, owned, outputs)
        if old is None:
            write_manifest(out, {"command": command, "created": now(), **c.stamp(complete=False)}, MANIFESTS[kind])
            c.owned.add(MANIFESTS[kind])
        yield c


def clear_leftovers(out: Path) -> None:
    """Remove what a killed run of lostcards left in `out` (scratch folders, temporary files).

    Called only under the directory's lock: whoever made them is gone."""
    for p in [*out.glob(".staging-*"), *out.glob("*.tmp"), *out.glob("*/part-*.parquet.tmp")]:
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)


@contextmanager
def atomic_file(path: Path, mode: str = "w", **kw):
    """Open `path`'s temporary twin for writing; renamed over `path` when the block ends,
    removed on any failure (a full disk, Ctrl-C), so `path` is whole or as it was."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, mode, **kw) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise


def prepare_dir(out: Path, spec: BatchSpec, outputs=()) -> dict:
    """Check that `out` may take this batch (``check_dir``); returns the manifest to extend (created: nothing yet)."""
    old, _ = check_dir(out, "simulate", spec.identity(), (*spec.tables, *outputs))
    probe(out)
    if old is not None:
        return old
    return {"format": FORMAT, "kind": "simulate", "batch": spec.identity(), "created": now(),
            "shards_done": [], "shard_files": {}, "seconds": 0.0}


def probe(out: Path):
    """Create `out` and check that files can be written there; BatchError in one line if not."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        test = out / f".write-test-{os.getpid()}"
        with open(test, "w") as f:
            f.write("lostcards checks that this directory takes files")
        test.unlink()
    except OSError as e:
        raise BatchError(f"cannot write to {shown_path(out)}: {e.strerror or e}") from None


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
