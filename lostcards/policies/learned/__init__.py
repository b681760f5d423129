"""The `learned` policy: a linear blueprint over per-option features, its weights learned by self-play.

``blueprint.py`` is the numba kernel (the features, a score per legal option,
the best one); ``train.py`` learns its weights by a natural evolution strategy
against the previous generation (``lostcards train``; ``docs/learned.md``).
The shipped weights are ``weights.json`` in this folder, with the command that
made them.  Its parameters are ``temp`` (0: the best option; above 0: a
softmax sample at that temperature) and one per weight, named as in
``blueprint.FEATURES`` (``learned:draw.gain=2``).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies import Float, Policy, register
from lostcards.policies.learned.blueprint import FEATURES, N_WEIGHTS, learned_policy

WEIGHTS_FILE = Path(__file__).resolve().parent / "weights.json"


def load_weights(path=WEIGHTS_FILE) -> np.ndarray:
    """The weights of a weights file (``lostcards train`` writes them), as N_WEIGHTS floats in
    ``FEATURES`` order: read by name from its "weights" object (or, from an older file, a list in
    that order).  A missing, unreadable or incomplete file raises PolicyError naming what is wrong."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as e:
        raise PolicyError(f"weights file {path}: cannot be read ({e.strerror or e})") from None
    except ValueError as e:
        raise PolicyError(f"weights file {path}: not JSON ({e})") from None
    w = data.get("weights") if isinstance(data, dict) else None
    if isinstance(w, dict):
        missing = [f for f in FEATURES if f not in w]
        unknown = sorted(set(w) - set(FEATURES))
        if missing or unknown:
            raise PolicyError(f"weights file {path}: "
                              + "; ".join(([f"no weight for {', '.join(missing)}"] if missing else [])
                                          + ([f"unknown weights {', '.join(unknown)}"] if unknown else [])))
        w = [w[f] for f in FEATURES]
    if not isinstance(w, list):
        raise PolicyError(f"weights file {path}: expected a \"weights\" object of the {N_WEIGHTS} features "
                          f"({FEATURES[0]}, ...)")
    try:
        w = np.asarray(w, np.float64)
    except (TypeError, ValueError):
        raise PolicyError(f"weights file {path}: the weights must be numbers") from None
    if w.shape != (N_WEIGHTS,) or not np.all(np.isfinite(w)):
        raise PolicyError(f"weights file {path}: expected {N_WEIGHTS} finite weights, got shape {w.shape}")
    return w


def policy_of(weights, name: str = "learned", temp: float = 0.0) -> Policy:
    """A Policy playing the blueprint with these weights (``temp``: softmax temperature, 0 = argmax)."""
    w = np.asarray(weights, np.float64)
    params = {"temp": Float(0.0, 0.0, 100.0, "softmax temperature (0: the best option)")}
    params.update({f: Float(float(v), min(-1000.0, v), max(1000.0, v), "a feature's weight")
                   for f, v in zip(FEATURES, w)})
    return Policy(name, learned_policy, params, (float(temp), *map(float, w)),
                  doc="a linear blueprint over per-option features, its weights learned by self-play "
                      "(docs/learned.md)")


def mc_policy_of(weights, samples: int = 800, candidates: int = 3, margin: float = 1.0,
                 name: str = "learned-mc") -> Policy:
    """``learned-mc`` with these blueprint weights: the blueprint's best `candidates` actions, each
    scored by `samples` determinized play-outs of the blueprint (rollout.py)."""
    from lostcards.policies import Int
    from lostcards.policies.learned.rollout import learned_mc_policy
    bp = policy_of(weights)
    params = {"samples": Int(samples, 0, 100_000, "determinized play-outs per candidate (0: the bare blueprint)"),
              "candidates": Int(candidates, 1, 16, "the blueprint's best actions tried"),
              "margin": Float(margin, 0, 1000, "points a deal another candidate must gain over the "
                                               "blueprint's first choice")}
    params.update(bp.parameters)
    return Policy(name, learned_mc_policy, params, (float(samples), float(candidates), float(margin), *bp.values),
                  doc="the learned blueprint's best few actions, each scored by Monte Carlo play-outs of "
                      "the blueprint on determinized deals (docs/learned.md)")


SHIPPED = load_weights()           # a missing or corrupt weights.json is an error, never a random player
LEARNED = register(policy_of(SHIPPED))
LEARNED_MC = register(mc_policy_of(SHIPPED))
