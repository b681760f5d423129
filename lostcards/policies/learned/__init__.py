"""The independent line, expert never part of it: `blueprint`, `learned` and `learned-mc`.

``blueprint`` is a linear blueprint over per-option features (``blueprint.py``,
the numba kernel), its weights learned by a natural evolution strategy in
self-play (``lostcards train``; ``docs/learned.md``); the shipped weights are
``weights.json`` in this folder, with the command that made them.  Its
parameters are ``temp`` (0: the best option; above 0: a softmax sample at that
temperature) and one per weight, named as in ``blueprint.FEATURES``
(``blueprint:draw.gain=2``).

``learned`` is a network policy (``policies.network``) with the blueprint as
its reference (``net.py``), its weights from expert iteration started from the
blueprint (``lostcards iterate --line learned``): ``weights/learned.npz``, read
when first played (a missing or corrupt file is an error naming it then).
``learned-mc`` scores the blueprint's best few actions by play-outs of it.
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies import Float, Policy
from lostcards.policies.learned.blueprint import FEATURES, N_WEIGHTS, learned_policy
from lostcards.policies.learned.net import learned_net_policy
from lostcards.policies.network import TEMP, NetworkPolicy, margin_parameter
from lostcards.policies.network import check_weights as check_network_weights
from lostcards.policies.registry import BROKEN

WEIGHTS_FILE = Path(__file__).resolve().parent / "weights.json"
NET_WEIGHTS_FILE = Path(__file__).resolve().parent / "weights" / "learned.npz"
SHIPPED_MARGIN = 1.0      # the margin learned's shipped weights were gated and measured at (their file says so too)


def check_weights(weights, where: str = "weights") -> np.ndarray:
    """`weights` as N_WEIGHTS finite floats; PolicyError in one line naming what is wrong otherwise."""
    try:
        w = np.asarray(weights, np.float64)
    except (TypeError, ValueError):
        raise PolicyError(f"{where}: {N_WEIGHTS} finite numbers (one a feature), got "
                          f"{type(weights).__name__} {str(weights)[:30]!r}") from None
    if w.shape != (N_WEIGHTS,):
        got = f"{w.size} numbers" if w.ndim == 1 else f"an array of shape {w.shape}"
        raise PolicyError(f"{where}: {N_WEIGHTS} weights (one a feature of blueprint.FEATURES), got {got}")
    bad = np.flatnonzero(~np.isfinite(w))
    if bad.size:
        raise PolicyError(f"{where}: the weight of {FEATURES[bad[0]]} is {w[bad[0]]}: finite numbers only")
    return w


def load_weights(path=WEIGHTS_FILE) -> np.ndarray:
    """The weights of a weights file (``lostcards train`` writes them), as N_WEIGHTS floats; PolicyError
    in one line for a file that is not one."""
    where = f"{path}"
    try:
        data = json.loads(Path(path).read_bytes().decode("utf-8"))
    except OSError as e:
        raise PolicyError(f"cannot read the weights file {where}: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        why = f"not JSON ({e.msg}, line {e.lineno})" if isinstance(e, json.JSONDecodeError) else "not JSON text"
        raise PolicyError(f"{where} is not a weights file: {why}; lostcards train writes them "
                          "(weights.json, gen_NNN.json)") from None
    if not isinstance(data, dict) or "weights" not in data:
        raise PolicyError(f"{where} is not a weights file: no \"weights\" in it; lostcards train writes them "
                          "(weights.json, gen_NNN.json)")
    w = data["weights"]
    if isinstance(w, dict):
        missing = [f for f in FEATURES if f not in w]
        extra = [f for f in w if f not in FEATURES]
        if missing or extra:
            which = (f"lacks {', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''} ({len(missing)} of "
                     f"{N_WEIGHTS})" if missing else f"has unknown features {', '.join(map(str, extra[:3]))}")
            raise PolicyError(f"{where}: its \"weights\" {which}: one weight a feature of blueprint.FEATURES")
        w = [w[f] for f in FEATURES]
    if not isinstance(w, list) or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in w):
        raise PolicyError(f"{where}: its \"weights\" are not {N_WEIGHTS} numbers")
    return check_weights(w, where)


def policy_of(weights, name: str = "blueprint", temp: float = 0.0) -> Policy:
    """A Policy playing the blueprint with these weights (``temp``: softmax temperature, 0 = argmax);
    N_WEIGHTS finite weights and a temperature in 0..100, or PolicyError in one line."""
    w = check_weights(weights)
    params = {"temp": Float(0.0, 0.0, 100.0, "softmax temperature (0: the best option)")}
    params.update({f: Float(float(v), min(-1000.0, v), max(1000.0, v), "a feature's weight")
                   for f, v in zip(FEATURES, w)})
    return Policy(name, learned_policy, params, (temp, *map(float, w)),
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


NET_DOC = ("a small network trained by expert iteration from the self-play blueprint, expert never part of "
           "it: it scores every legal move from the seat's features and the move's (docs/learned.md)")


def net_of(blueprint: Policy, weights=None, name: str = "learned", temp: float = 0.0, margin: float = 0.0,
           source=NET_WEIGHTS_FILE) -> NetworkPolicy:
    """A Policy playing the network with `blueprint` as its reference and these weights (None: the
    file `source`, read when first played)."""
    params = {"temp": TEMP, "margin": margin_parameter(SHIPPED_MARGIN, "the blueprint")}
    values = (float(temp), float(margin))
    if weights is None:
        return NetworkPolicy(name, learned_net_policy, params, values, doc=NET_DOC, source=str(source),
                             reference=blueprint)
    w = check_network_weights(weights, "learned weights")
    return NetworkPolicy(name, learned_net_policy, params, values, doc=NET_DOC, weights=tuple(map(float, w)),
                         reference=blueprint)


def _shipped() -> tuple:
    """blueprint, learned and learned-mc with the shipped weights.  A missing or corrupt weights.json
    leaves all three out, and asking for one says why in one line (never a bot playing at random)."""
    try:
        w = load_weights()
    except PolicyError as e:
        BROKEN["blueprint"] = BROKEN["learned"] = BROKEN["learned-mc"] = str(e)
        return ()
    bp = dataclasses.replace(policy_of(w), compile_s=5.0, improvable=True)
    return (bp,
            dataclasses.replace(net_of(bp, margin=SHIPPED_MARGIN), compile_s=20.0, improvable=True, test_rounds=3_000),
            dataclasses.replace(mc_policy_of(w), compile_s=10.0, slow=True))


POLICIES = _shipped()


def learned_of(weights=None, name: str = "learned", temp: float = 0.0, margin: float = 0.0) -> NetworkPolicy:
    """learned's network with these weights (None: the shipped ones), the shipped blueprint its reference."""
    return net_of(policy_of(load_weights()), weights, name=name, temp=temp, margin=margin)
