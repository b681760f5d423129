"""The `student` policy: a small network distilled from the policy-improvement step (expert iteration).

The network is ``policies.network`` (an action-conditioned scorer over every
legal move, its features, its teacher), with expert as its reference
(``net.py``); ``lostcards.training`` writes the teacher's data, fits the
weights and runs the loop (``lostcards iterate``; docs/learned.md).  The
shipped weights are ``weights/student.npz`` in this folder, read by name
(``load_weights("student")``), with the command that made them, and for
solitaire ``weights/student-solitaire.npz`` (fitted to solitaire's labels: the
tables with other seats teach nothing about playing alone).  A missing or
corrupt weights file is an error, never a fallback.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies.expert import EXPERT
from lostcards.policies.network import (
    C_DIM,
    FORMAT,
    H1,
    H2,
    LAYOUT,
    N_WEIGHTS,
    NS,
    S_DIM,
    SUIT_DIM,
    TEMP,
    NetworkPolicy,
    cached_weights,
    check_weights,
    margin_parameter,
    read_weights,
    write_weights,
)
from lostcards.policies.student.net import student_policy

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"


def weights_path(name: str) -> Path:
    """Where the shipped weights called `name` live."""
    if not name or not all(ch.isalnum() or ch in "-_." for ch in name) or name.startswith("."):
        raise PolicyError(f"student weights name {name!r} is not allowed: letters, digits, '-', '_', '.'")
    return WEIGHTS_DIR / f"{name}.npz"


def load_weights(name: str = "student") -> np.ndarray:
    """The shipped weights called `name` (``weights/NAME.npz``), read once per version of the file."""
    return cached_weights(weights_path(name))


Student = NetworkPolicy                 # a student is a network policy with expert as its reference
SHIPPED_MARGIN = 1.0      # the margin the shipped weights were gated and measured at (their file says so too)
MARGIN = margin_parameter(SHIPPED_MARGIN, "expert")
DOC = ("a small network distilled from the policy-improvement step (expert iteration): it scores "
       "every legal move from the seat's features and the move's (docs/learned.md)")


def student_of(weights=None, name: str = "student", temp: float = 0.0, source: str = "student",
               margin: float = 0.0, solo_source: str = "") -> NetworkPolicy:
    """A Policy playing the student network with these weights (None: the shipped ones called `source`)
    at every table but solitaire, where it plays those called `solo_source` where one is named."""
    params = {"temp": TEMP, "margin": MARGIN}
    values = (float(temp), float(margin))
    solo = str(weights_path(solo_source)) if solo_source else ""
    if weights is None:
        return NetworkPolicy(name, student_policy, params, values, doc=DOC, source=str(weights_path(source)),
                             reference=EXPERT, solo_source=solo)
    w = check_weights(weights, "student weights")
    return NetworkPolicy(name, student_policy, params, values, doc=DOC, weights=tuple(map(float, w)),
                         reference=EXPERT, solo_source=solo)


STUDENT = dataclasses.replace(student_of(margin=SHIPPED_MARGIN, solo_source="student-solitaire"), compile_s=20.0,
                              improvable=True, test_rounds=3_000)
POLICIES = (STUDENT,)

__all__ = ["C_DIM", "FORMAT", "H1", "H2", "LAYOUT", "N_WEIGHTS", "NS", "POLICIES", "S_DIM", "SHIPPED_MARGIN", "STUDENT",
           "SUIT_DIM", "Student", "load_weights", "read_weights", "student_of", "weights_path", "write_weights"]
