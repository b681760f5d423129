"""A sweep's finished cells on disk: each cell's samples are written as soon as it is measured, so a
crash loses only the cell being played, and the same command run again picks up where it stopped.

``CellStore(out)`` keeps ``out/cells/cell-NNNN.npz`` (written whole through
``run.batchdir.atomic_file``): every per-unit sample of the cell
(``metrics.Sample``) and the key of what decided it (its ruleset's parameters,
the policy, the opponents, the rounds and the seed).  A stored cell whose key
differs from the one asked for, or that cannot be read, is played again.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from lostcards.analysis.metrics import CellData, Sample
from lostcards.run.batchdir import atomic_file

FOLDER = "cells"


def cell_file(index: int) -> str:
    """The path of a cell's file, relative to the sweep's directory."""
    return f"{FOLDER}/cell-{index + 1:04d}.npz"


def cell_key(rules, policy: str, opponents, rounds: int, skill_rounds, seed: int) -> dict:
    """What decides a cell's samples."""
    return {"rules": rules.describe(), "params": [float(v) for v in rules.params()], "policy": policy,
            "opponents": list(opponents), "rounds": int(rounds),
            "skill_rounds": None if skill_rounds is None else int(skill_rounds), "seed": int(seed)}


class CellStore:
    """The finished cells of one sweep directory."""

    def __init__(self, out):
        self.out = Path(out)
        (self.out / FOLDER).mkdir(parents=True, exist_ok=True)
        for p in (self.out / FOLDER).glob("*.tmp"):        # what a killed run was writing
            p.unlink(missing_ok=True)

    def load(self, index: int, key: dict, rules) -> CellData | None:
        """The stored cell, or None when there is none, it is unreadable, or it was played for another key."""
        path = self.out / cell_file(index)
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                if meta.get("key") != key:
                    return None
                cell = CellData(rules, key["policy"], key["seed"], seconds=float(meta["seconds"]),
                                rounds=int(meta["rounds"]))
                for k, m in enumerate(meta["samples"]):
                    cell.add(Sample(m["metric"], m["kind"], z[f"s{k}_index"], z[f"s{k}_x"],
                                    z[f"s{k}_den"] if m["den"] else None, z[f"s{k}_mask"] if m["mask"] else None,
                                    m["opponent"]))
        except (OSError, ValueError, KeyError, TypeError, json.JSONDecodeError):
            return None
        return cell

    def save(self, index: int, key: dict, cell: CellData) -> str:
        """Write the cell whole (a temporary file, then renamed); returns its relative path."""
        arrays, samples = {}, []
        for k, s in enumerate(cell.samples.values()):
            samples.append({"metric": s.metric, "kind": s.kind, "opponent": s.opponent,
                            "den": s.den is not None, "mask": s.mask is not None})
            arrays[f"s{k}_index"] = s.index
            arrays[f"s{k}_x"] = s.x
            if s.den is not None:
                arrays[f"s{k}_den"] = s.den
            if s.mask is not None:
                arrays[f"s{k}_mask"] = s.mask
        meta = {"key": key, "seconds": cell.seconds, "rounds": cell.rounds, "samples": samples}
        buf = io.BytesIO()
        np.savez(buf, meta=np.array(json.dumps(meta)), **arrays)
        rel = cell_file(index)
        with atomic_file(self.out / rel, "wb") as f:
            f.write(buf.getvalue())
        return rel
