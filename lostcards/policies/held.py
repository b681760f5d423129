"""Held bots: any numba bot held to move rules (``engine.move_rules``), by the spec key ``rules``.

``expert:rules=fund20`` is expert held to fund20; ``greedy:rules=open6+safe``
holds greedy to two rules (names joined by ``+``).  A bot that declares its
own ``rules`` parameter (``improve``: the rules filter its own candidate
moves) takes it as a parameter; any other numba bot is wrapped in ``Held``,
whose one compiled kernel asks the bot through its address (as improve does)
and makes its move a held one (``engine.move_rules.hold``).  docs/policies.md,
"Held bots", says what a held bot does when its own move breaks a rule.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from lostcards.engine.intrinsics import call_policy_at, offset, stack_words
from lostcards.engine.layout import OBS_FIELDS
from lostcards.engine.move_rules import RULES, hold, mask_of, names_of
from lostcards.errors import PolicyError
from lostcards.numba_cache import jit
from lostcards.policies.parameters import Choice, Policy, shown

KEY = "rules"
P_RULES, P_POLICY_AT, N_OWN = 0, 1, 2     # parameter positions, then the bot's own parameters


class RuleSet(Choice):
    """The ``rules`` parameter: move rule names joined by ``+`` (``none``: no rule, the default)."""

    meaning = "move rules the bot is held to: " + "; ".join(f"{r.name}: {r.meaning}" for r in RULES.values())

    def __init__(self):
        names = list(RULES)
        words = {"none": 0}
        for n in range(1, len(names) + 1):
            for combo in combinations(names, n):
                words["+".join(combo)] = mask_of(combo)
        super().__init__(words)

    @property
    def allowed(self) -> str:
        return "move rule names joined by +, from " + ", ".join(RULES) + " (or none)"

    def parse(self, where: str, text: str) -> float:
        parts = [p.strip() for p in text.split("+")]
        bad = [p for p in parts if p not in RULES and not (p == "none" and len(parts) == 1)]
        if bad or not text.strip():
            what = shown(bad[0] if bad else text)
            raise PolicyError(f"{where}={shown(text)} is not allowed: unknown move rule {what!r} "
                              f"(allowed: {', '.join(RULES)}, joined by +)")
        twice = next((p for i, p in enumerate(parts) if p in parts[:i]), None)
        if twice:
            raise PolicyError(f"{where}={shown(text)} is not allowed: the move rule {twice!r} is named twice "
                              "(give each rule once)")
        return float(mask_of(p for p in parts if p != "none"))

    def text(self, v: float) -> str:
        return "+".join(names_of(int(v))) or "none"


@jit
def held_policy(obs, params, mem):
    """A numba bot held to move rules: the bot is named by its address in `params` (module docstring)."""
    words = stack_words(OBS_FIELDS)
    for i in range(OBS_FIELDS):
        words[i] = obs[i]
    at = np.int64(params[P_POLICY_AT])
    bparams = offset(params, N_OWN)
    m = call_policy_at(at, words, bparams, mem)
    return hold(obs, words, np.int64(params[P_RULES]), m, at, bparams, mem)


@dataclass(frozen=True)
class Held(Policy):
    """A numba bot held to move rules: the rules mask, the bot's address, then the bot's own values."""

    base: Policy = None

    @property
    def params(self) -> np.ndarray:
        from lostcards.engine.intrinsics import policy_address
        at = np.array([self.values[0], policy_address(self.base.kernel)], np.float64)
        return np.concatenate([at, self.base.params])

    @property
    def spec(self) -> str:
        b = self.base.spec
        return f"{b}{',' if ':' in b else ':'}{KEY}={self.parameters[KEY].text(self.values[0])}"

    def with_params(self, text: str) -> "Held":
        rest, rules = take_rules(text)
        base = self.base.with_params(rest) if rest else self.base
        return held(base, rules) if rules else held(base, self.parameters[KEY].text(self.values[0]))


def take_rules(params: str) -> tuple:
    """'k=64,rules=fund20' -> ('k=64', 'fund20'): a spec's parameters without ``rules``, and its value
    ('' when not given; PolicyError when given twice)."""
    keep, rules = [], []
    for item in (t for t in params.split(",")) if params else ():
        k = item.split("=", 1)[0].strip()
        (rules if k == KEY else keep).append(item)
    if len(rules) > 1:
        raise PolicyError(f"{KEY} is given twice in {shown(params)!r}: give the move rules once, joined by +")
    return ",".join(keep), (rules[0].split("=", 1)[1].strip() if rules else "")


def held(base: Policy, rules: str) -> Policy:
    """`base` held to the move rules named in `rules` ('fund20+safe'): its own ``rules`` parameter if it
    declares one (improve), else a ``Held`` wrapper.  PolicyError for an unknown rule or a plain-Python bot."""
    if KEY in base.parameters and not isinstance(base, Held):
        names = list(base.parameters)
        values = list(base.values or base.params[:len(names)])
        values[names.index(KEY)] = base.parameters[KEY].parse(f"{base.name}:{KEY}", rules)
        return dataclasses.replace(base, values=tuple(float(v) for v in values))
    if base.kernel is None:
        raise PolicyError(f"{base.spec!r} is a plain-Python policy: only a numba bot can be held to move rules")
    inner = base.base if isinstance(base, Held) else base
    mask = int(RuleSet().parse(f"{inner.spec}:{KEY}", rules))
    if isinstance(base, Held):
        mask |= int(base.values[0])
    return Held(f"held({inner.spec})", held_policy, {KEY: RuleSet()}, (float(mask),), doc=inner.doc,
                compile_s=inner.compile_s + 5.0, test_rounds=inner.test_rounds, slow=inner.slow, base=inner)


__all__ = ["Held", "KEY", "RuleSet", "held", "held_policy", "take_rules"]
