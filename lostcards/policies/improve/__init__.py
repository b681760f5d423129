"""`improve`: a policy-improvement step around any numba policy (the *base*, or blueprint).

``improve:base=expert,k=128,z=2`` plays expert's move unless another move,
played out by expert for every seat from the same ``k`` determinizations of the
hidden cards, beats it by ``z`` standard errors of the paired difference;
``race=2.5`` drops a candidate once it trails the best by 2.5 standard errors
(``engine.improvement.raced``);
``prior=student`` keeps the student's move (not the base's) unless a challenger
beats it, the play-outs still the base's;
``others=expert`` plays the other side's seats by expert in the play-outs (the
seat's own side still by the base): the model of the opponents; ``depth=6``
lets the base move the seat's own side for the play-out's first 6 turns
only, `others` after them (the base where it counts, a cheap policy for the rest);
``rules=fund20`` holds its own candidate moves to move rules (``policies.held``)
(``decision``: the procedure, improve's configuration of ``engine.improvement``'s step;
``engine.playouts``: the play-outs, shared with
search, learned-mc and ``lostcards analyze``; docs/bots.md the guide and the measured ladder).

One compiled kernel serves every base: the base is reached through the
addresses of a small C-callable wrapper of its policy and of its decider
(``engine.intrinsics``), which ``params`` appends to the parameter values, followed by the
base's own parameters.  ``improved(policy)`` wraps any numba ``Policy`` (a
user's own, with its parameter values); the registered ``improve`` takes
``base`` by name among the built-in numba policies.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from lostcards.errors import PolicyError
from lostcards.policies import Choice, Float, Int, Policy, bases, resolve
from lostcards.policies.held import RuleSet
from lostcards.policies.improve.decision import improve_policy


@dataclass(frozen=True)
class Improved(Policy):
    """improve(base): its own parameter values, the base's addresses, then the base's values."""

    base: Policy = None
    prior: Policy = None          # the policy whose move is the incumbent (None: the base's)
    others: Policy = None         # the policy of the other side's seats in the play-outs (None: the base)

    @property
    def params(self) -> np.ndarray:
        from lostcards.engine.intrinsics import decide_address, policy_address
        b = self.base if self.base is not None else resolve("expert")
        from lostcards.policies.improve.decision import N_OWN
        own = super().params
        p = self.prior if self.prior is not None else b
        o = self.others if self.others is not None else b
        # the values after improve's own: the base's, then the prior's and the others' where they are not the
        # base (each policy's values computed once: a network's are its weights); N_OWN: the base's
        values = [b.params]
        prior_at = others_at = N_OWN
        if self.prior is not None:
            prior_at = N_OWN + values[0].size
            values.append(self.prior.params)
        if self.others is not None:
            others_at = N_OWN + sum(v.size for v in values)
            values.append(self.others.params)
        at = np.array([policy_address(p.kernel), decide_address(b.kernel), prior_at, decide_address(o.kernel),
                       others_at], np.float64)
        return np.concatenate([own, at, *values])

    def with_params(self, text: str) -> "Improved":
        q = Policy.with_params(self, text)
        chosen = {"base": self.base, "prior": self.prior, "others": self.others}
        for name in chosen:
            if name not in self.parameters or (name == "base" and len(self.parameters["base"]) == 1):
                continue
            want = self.parameters[name].text(q.values[list(self.parameters).index(name)])
            chosen[name] = None if name != "base" and want == "base" else resolve(want)
        return dataclasses.replace(self, values=q.values, **chosen)


# improve's own parameters, then its base (the bots that can be one, listed only now: a bot
# that builds on improve, such as expectimax, may import Improved and OWN while this module is
# still listing the bots)
OWN = {
    "k": Int(128, 0, 512, "determinizations a decision, shared by every candidate (the reproducible "
                         "budget; below 2: the base's own move)"),
    "z": Float(2.0, 0, 1e6, "standard errors of the paired difference by which a candidate must beat "
                            "the base's move"),
    "seconds": Float(0.0, 0, 3600, "wall-clock limit a decision (0: none); machine-dependent"),
    "race": Float(0.0, 0, 1e6, "race the candidates: after each 16 determinizations, drop a challenger that "
                               "trails the best so far by more than this many standard errors (0: off)"),
    "infer": Float(0.0, 0, 1, "2 players: deal the hidden cards believing the other seat's last move "
                              "(a deal where the base would not have made it is kept with this "
                              "probability; 0: off, every deal uniform)"),
    "luck": Float(0.0, 0, 4, "take this many times the luck of its deck draws off each play-out's return "
                             "(a control variate with mean zero, engine.luck; 0: off)"),
    "depth": Int(0, 0, 200, "turns of each play-out in which the seat's own side moves by the base; after "
                            "them it too moves by `others` (0: the base throughout)"),
}
def prior_choice() -> Choice:
    """``prior`` (the policy whose move is the incumbent) or ``others`` (the policy of the other side's
    seats in the play-outs): the base itself, or another bot that can be a base."""
    return Choice({"base": 0, **{b: i + 1 for i, b in enumerate(bases(first="expert"))}})


BASES = bases(first="expert")
PARAMETERS = {**OWN, "base": Choice({b: i for i, b in enumerate(BASES)}), "rules": RuleSet(),
              "prior": prior_choice(), "others": prior_choice()}


def improved(base, k: int = 128, z: float = 2.0, seconds: float = 0.0, rules: int = 0,
             race: float = 0.0, infer: float = 0.0, prior=None, luck: float = 0.0, others=None,
             depth: int = 0) -> Improved:
    """improve(base) for any numba Policy (or spec), with its parameter values (`rules`: a move rules
    mask, ``engine.move_rules``; `prior`: the incumbent's policy, None for the base; `others`: the
    other side's policy in the play-outs, None for the base), as a Policy."""
    b = resolve(base)
    pr = resolve(prior) if prior is not None else None
    ot = resolve(others) if others is not None else None
    for x in (b, pr, ot):
        if x is not None and x.kernel is None:
            raise PolicyError(f"improve needs numba policies; {x.spec!r} has none")
    params = dict(PARAMETERS, base=Choice({b.spec: 0}))      # the base is fixed: one choice
    params.pop("prior")
    params.pop("others")
    name = ", ".join([b.spec] + [f"{w}={x.spec}" for w, x in (("prior", pr), ("others", ot)) if x is not None])
    return Improved(f"improve({name})", improve_policy,
                    {**params, "prior": Choice({"base": 0} if pr is None else {pr.spec: 0}),
                     "others": Choice({"base": 0} if ot is None else {ot.spec: 0})},
                    (float(k), float(z), float(seconds), float(race), float(infer), float(luck), float(depth),
                     0.0, float(rules), 0.0, 0.0), doc=IMPROVE.doc, base=b, prior=pr, others=ot)


IMPROVE = Improved(
    "improve", improve_policy, PARAMETERS,
    doc="a policy-improvement step around a base policy: its move unless another beats it on "
        "k shared determinizations played out by the base (by z standard errors)",
    compile_s=20.0, slow=True)
POLICIES = (IMPROVE,)

__all__ = ["BASES", "IMPROVE", "OWN", "Improved", "PARAMETERS", "improved", "prior_choice"]
