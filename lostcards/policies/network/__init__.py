"""Network policies: an action-conditioned scorer over every legal move, beside a reference policy.

Shared by ``student`` (expert iteration from expert) and ``learned`` (the same
loop started from the self-play blueprint, expert never part of it):
``features.py`` (the inputs), ``scorer.py`` (the numba kernel, given the
reference move), ``teacher.py`` (the numba teacher round that labels their
training data).  This package imports no policy: each network policy names
its reference (its parameters travel in the network's, after ``temp`` and
``margin``) and runs it itself.  Weights files: ``read_weights`` /
``write_weights``; a missing or corrupt file is an error, never a fallback.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies.network.features import C_DIM, NS, S_DIM, SUIT_DIM
from lostcards.policies.network.scorer import H1, H2, LAYOUT, N_WEIGHTS
from lostcards.policies.parameters import Float, Policy

FORMAT = "lostcards-student/1"      # the weights files' format (the same layout for every network policy)


def read_weights(path) -> tuple[np.ndarray, dict]:
    """(the N_WEIGHTS weights, the file's metadata) of a network weights file; PolicyError if it is
    missing, unreadable, of another layout or not finite."""
    path = Path(path)
    if not path.is_file():
        raise PolicyError(f"network weights {path} are missing")
    try:
        with np.load(path, allow_pickle=False) as z:
            w = np.asarray(z["weights"], np.float64)
            meta = json.loads(str(z["meta"]))
    except Exception as e:  # noqa: BLE001 - whatever a damaged file raises: one line
        raise PolicyError(f"network weights {path} cannot be read ({type(e).__name__}): "
                          "a corrupt or foreign file") from None
    if meta.get("format") != FORMAT or w.shape != (N_WEIGHTS,) or not np.all(np.isfinite(w)):
        raise PolicyError(f"network weights {path}: expected format {FORMAT} with {N_WEIGHTS} finite "
                          f"weights, got {meta.get('format')!r} with shape {w.shape}")
    return w, meta


def write_weights(path, weights, meta: dict) -> None:
    """Write a network weights file (the weights and their metadata: the command that made them)."""
    w = np.asarray(weights, np.float64)
    if w.shape != (N_WEIGHTS,):
        raise PolicyError(f"network weights: expected {N_WEIGHTS}, got shape {w.shape}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, weights=w, meta=np.array(json.dumps({"format": FORMAT, **meta})))
    tmp.replace(path)


def cached_weights(path) -> np.ndarray:
    """The weights of the file at `path`, read once per version of the file (read-only)."""
    return cached_file(path)[0]


def cached_file(path) -> tuple[np.ndarray, str]:
    """(the weights, the reference digest its metadata records, "" if none) of the file at `path`,
    read once per version of the file."""
    path = Path(path)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = -1
    return _read_cached(str(path), stamp)


@functools.lru_cache(maxsize=8)
def _read_cached(path: str, stamp: int) -> tuple[np.ndarray, str]:
    w, meta = read_weights(path)
    w.flags.writeable = False
    return w, str(meta.get("reference_digest", ""))


def reference_digest(params) -> str:
    """A short digest of a reference policy's parameter values (recorded with the weights fitted beside it)."""
    return hashlib.sha256(np.ascontiguousarray(params, np.float64).tobytes()).hexdigest()[:16]


def check_weights(weights, what: str = "network weights") -> np.ndarray:
    """`weights` as N_WEIGHTS finite floats, or PolicyError in one line."""
    w = np.asarray(weights, np.float64)
    if w.shape != (N_WEIGHTS,) or not np.all(np.isfinite(w)):
        raise PolicyError(f"{what}: expected {N_WEIGHTS} finite numbers, got shape {w.shape}")
    return w


@dataclass(frozen=True)
class NetworkPolicy(Policy):
    """A network policy: its own parameters (temp, margin), then its reference policy's values, then
    two sets of weights: the tables with other seats', then solitaire's (the same set where it has
    none of its own).  Each set is given, or read from its file (`source`, `solo_source`) when first
    played: a missing or corrupt file is a PolicyError naming it then, never a silent fallback."""

    weights: tuple = ()
    source: str = ""
    reference: object = None
    solo_weights: tuple = ()
    solo_source: str = ""

    def _weights(self, given: tuple, source: str, ref: np.ndarray) -> np.ndarray:
        if given:
            return np.asarray(given, np.float64)
        w, digest = cached_file(source)
        if digest and digest != reference_digest(ref):
            raise PolicyError(f"network weights {source} were fitted beside another {self.reference.name} "
                              f"(its parameters' digest {digest}, now {reference_digest(ref)}): fit them again "
                              "(lostcards iterate) or restore that reference")
        return w

    @property
    def params(self) -> np.ndarray:
        ref = self.reference.params
        w = self._weights(self.weights, self.source, ref)
        solo = self._weights(self.solo_weights, self.solo_source, ref) if self.solo_weights or self.solo_source else w
        return np.concatenate([super().params, ref, w, solo])

    def with_params(self, text: str) -> "NetworkPolicy":
        q = Policy.with_params(self, text)
        return dataclasses.replace(self, values=q.values)


TEMP = Float(0.0, 0.0, 100.0, "softmax temperature (0: the best move)")


def margin_parameter(shipped: float, reference: str) -> Float:
    """The ``margin`` parameter of a network policy gating on `reference`'s move."""
    return Float(shipped, 0.0, 100.0, f"points: play {reference}'s move unless another move's score beats its "
                                      "score by more than this (weights fitted to the gains, iterate --loss "
                                      "gain); 0: the best-scoring move")


__all__ = ["C_DIM", "FORMAT", "H1", "H2", "LAYOUT", "N_WEIGHTS", "NS", "NetworkPolicy", "S_DIM", "SUIT_DIM", "TEMP",
           "cached_file", "cached_weights", "check_weights", "margin_parameter", "read_weights", "reference_digest",
           "write_weights"]

# the teacher's round and the room it needs, imported when first asked for: it brings in improve
_TEACHER = ("C_MAX", "G_FIELDS", "K_MAX", "MAX_GROUPS", "teacher_round")


def __getattr__(name):
    if name in _TEACHER:
        from lostcards.policies.network import teacher
        return getattr(teacher, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
