"""The `student` policy: a small network distilled from the policy-improvement step (expert iteration).

``net.py`` is the numba kernel (an action-conditioned scorer over every legal
move), ``features.py`` its inputs; ``lostcards.training`` writes the teacher's
data, fits the weights and runs the loop (``lostcards iterate``;
docs/learned.md).  The shipped weights are ``weights/student.npz`` in this
folder, read by name (``load_weights("student")``), with the command that
made them.  A missing or corrupt weights file is an error, never a fallback.
"""
from __future__ import annotations

import dataclasses
import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies import Float, Policy
from lostcards.policies.expert import EXPERT
from lostcards.policies.student.features import C_DIM, NS, S_DIM, SUIT_DIM
from lostcards.policies.student.net import H1, H2, LAYOUT, N_WEIGHTS, student_policy

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
FORMAT = "lostcards-student/1"


def weights_path(name: str) -> Path:
    """Where the shipped weights called `name` live."""
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or name.startswith("."):
        raise PolicyError(f"student weights name {name!r} is not allowed: letters, digits, '-', '_', '.'")
    return WEIGHTS_DIR / f"{name}.npz"


def read_weights(path) -> tuple[np.ndarray, dict]:
    """(the N_WEIGHTS weights, the file's metadata) of a student weights file; PolicyError if it is
    missing, unreadable, of another layout or not finite."""
    path = Path(path)
    if not path.is_file():
        raise PolicyError(f"student weights {path} are missing")
    try:
        with np.load(path, allow_pickle=False) as z:
            w = np.asarray(z["weights"], np.float64)
            meta = json.loads(str(z["meta"]))
    except Exception as e:  # noqa: BLE001 - whatever a damaged file raises: one line
        raise PolicyError(f"student weights {path} cannot be read ({type(e).__name__}): "
                          "a corrupt or foreign file") from None
    if meta.get("format") != FORMAT or w.shape != (N_WEIGHTS,) or not np.all(np.isfinite(w)):
        raise PolicyError(f"student weights {path}: expected format {FORMAT} with {N_WEIGHTS} finite "
                          f"weights, got {meta.get('format')!r} with shape {w.shape}")
    return w, meta


def write_weights(path, weights, meta: dict) -> None:
    """Write a student weights file (the weights and their metadata: the command that made them)."""
    w = np.asarray(weights, np.float64)
    if w.shape != (N_WEIGHTS,):
        raise PolicyError(f"student weights: expected {N_WEIGHTS}, got shape {w.shape}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, weights=w, meta=np.array(json.dumps({"format": FORMAT, **meta})))
    tmp.replace(path)


def load_weights(name: str = "student") -> np.ndarray:
    """The shipped weights called `name` (``weights/NAME.npz``), read once per version of the file."""
    path = weights_path(name)
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = -1
    return _read_cached(str(path), stamp)


@functools.lru_cache(maxsize=8)
def _read_cached(path: str, stamp: int) -> np.ndarray:
    w = read_weights(path)[0]
    w.flags.writeable = False
    return w


@dataclass(frozen=True)
class Student(Policy):
    """A student: its own parameters (temp, margin), then expert's values (the expert flag), then the weights
    (given, or the shipped weights called `source`, read when first played: a missing or corrupt
    file is a PolicyError naming it then, never a silent fallback)."""

    weights: tuple = ()
    source: str = ""

    @property
    def params(self) -> np.ndarray:
        w = np.asarray(self.weights, np.float64) if self.weights else load_weights(self.source)
        return np.concatenate([super().params, EXPERT.params, w])

    def with_params(self, text: str) -> "Student":
        q = Policy.with_params(self, text)
        return dataclasses.replace(self, values=q.values)


TEMP = Float(0.0, 0.0, 100.0, "softmax temperature (0: the best move)")
SHIPPED_MARGIN = 1.0      # the margin the shipped weights were gated and measured at (their file says so too)
MARGIN = Float(SHIPPED_MARGIN, 0.0, 100.0, "points: play expert's move unless another move's score beats its "
                                           "score by more than this (weights fitted to the gains, iterate --loss "
                                           "gain); 0: the best-scoring move")
DOC = ("a small network distilled from the policy-improvement step (expert iteration): it scores "
       "every legal move from the seat's features and the move's (docs/learned.md)")


def student_of(weights=None, name: str = "student", temp: float = 0.0, source: str = "student",
               margin: float = 0.0) -> Student:
    """A Policy playing the student network with these weights (None: the shipped ones called `source`)."""
    params = {"temp": TEMP, "margin": MARGIN}
    values = (float(temp), float(margin))
    if weights is None:
        return Student(name, student_policy, params, values, doc=DOC, source=source)
    w = np.asarray(weights, np.float64)
    if w.shape != (N_WEIGHTS,) or not np.all(np.isfinite(w)):
        raise PolicyError(f"student weights: expected {N_WEIGHTS} finite numbers, got shape {w.shape}")
    return Student(name, student_policy, params, values, doc=DOC, weights=tuple(map(float, w)))


STUDENT = dataclasses.replace(student_of(margin=SHIPPED_MARGIN), compile_s=20.0, improvable=True, test_rounds=3_000)
POLICIES = (STUDENT,)

__all__ = ["C_DIM", "FORMAT", "H1", "H2", "LAYOUT", "N_WEIGHTS", "NS", "POLICIES", "S_DIM", "SHIPPED_MARGIN", "STUDENT",
           "SUIT_DIM",
           "Student", "load_weights", "read_weights",
           "student_of", "weights_path", "write_weights"]

# the teacher's round (``teacher.py``: improve labelling the student's data) and the room it needs,
# imported when first asked for: it brings in improve, whose bases list every bot, this one included
_TEACHER = ("C_MAX", "G_FIELDS", "K_MAX", "MAX_GROUPS", "teacher_round")


def __getattr__(name):
    if name in _TEACHER:
        from lostcards.policies.student import teacher
        return getattr(teacher, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
