"""Measure the learned bots on deals no training used: margins on duplicate deals, time a round,
and move agreement with expert (expert is only measured here; the training code never imports it).

    python -m examples.learned_measure --seed 20261203 --deals 2000 --mc-deals 1000 --out learned-measure.json

Training draws its deals from seeds ``4 x seed + k`` (k = 0, 1, 2) of its own
``--seed``; the shipped weights were trained with seed 1 (seeds 4, 5 and 6), so
any other seed here is fresh.  Everything runs on one thread (one core).
"""
from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass

import numpy as np

from lostcards.engine.intrinsics import offset, stack_u64
from lostcards.engine.moves import move_card, move_to
from lostcards.numba_cache import jit
from lostcards.policies import Policy, resolve
from lostcards.policies.expert import expert_policy
from lostcards.policies.learned.blueprint import learned_policy
from lostcards.rules.ruleset import rules as make_rules
from lostcards.run.runner import play


def duplicate(r, a, b, deals, seed):
    t = time.perf_counter()
    g1 = play(r, a, b, rounds=deals, seed=seed, first=-1, threads=1)
    g2 = play(r, b, a, rounds=deals, seed=seed, first=-1, threads=1)
    secs = time.perf_counter() - t
    x = ((g1.scores[:, 0] - g1.scores[:, 1]) + (g2.scores[:, 1] - g2.scores[:, 0])) / 2.0
    m, se = float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size))
    return {"margin": round(m, 2), "ci95": round(1.96 * se, 2), "deals": deals, "seed": seed,
            "seconds_a_round": round(secs / (2 * deals), 4)}


# ---- agreement: the learned blueprint plays; expert is asked the same question at every turn ----

@jit
def probe_policy(obs, params, mem):
    """Plays the blueprint's move; counts in params[0..2] the turns, the turns where expert's move
    is the same (card, destination and draw), and those where its card and destination are."""
    rng = stack_u64(4)
    for i in range(4):
        rng[i] = mem[i]
    n_exp = np.int64(params[3])
    m_e = expert_policy(obs, offset(params, 4), rng)
    m_l = learned_policy(obs, offset(params, 4 + n_exp), mem)
    params[0] += 1.0
    if m_e == m_l:
        params[1] += 1.0
    if move_card(m_e) == move_card(m_l) and move_to(m_e) == move_to(m_l):
        params[2] += 1.0
    return m_l


@dataclass(frozen=True)
class _Probe(Policy):
    """A Policy whose parameter array is one array, kept (its counters are read back)."""

    store: object = None

    @property
    def params(self):
        return self.store


def agreement(r, deals, seed):
    e = resolve("expert").params
    lp = resolve("blueprint").params
    store = np.concatenate([[0.0, 0.0, 0.0, e.size], e, lp])
    probe = _Probe("probe", probe_policy, store=store)
    play(r, probe, probe, rounds=deals, seed=seed, first=-1, threads=1)
    return {"turns": int(store[0]), "same_move": round(store[1] / store[0], 4),
            "same_card_and_destination": round(store[2] / store[0], 4), "deals": deals, "seed": seed}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--mc-deals", type=int, default=1000)
    ap.add_argument("--mc-other-deals", type=int, default=None,
                    help="deals of the search member under lost-cities and with 4 players (default mc-deals / 4)")
    ap.add_argument("--mc", default="learned-mc", help="the learned family's search member")
    ap.add_argument("--out", default="learned-measure.json")
    ap.add_argument("--skip", default="", help="comma-separated parts to skip: blueprint,mc,agreement")
    a = ap.parse_args(argv)
    skip = set(filter(None, a.skip.split(",")))
    res = {}

    def say(k, v):
        res[k] = v
        print(k, json.dumps(v), flush=True)
        with open(a.out, "w") as f:
            json.dump(res, f, indent=1)

    tables = {"expeditions/2": make_rules("expeditions"), "lost-cities/2": make_rules("lost-cities"),
              "expeditions/4": make_rules("expeditions", players=4)}
    if "blueprint" not in skip:
        for opp in ("expert", "greedy", "random"):
            say(f"blueprint vs {opp}, expeditions/2",
                duplicate(tables["expeditions/2"], "blueprint", opp, a.deals, a.seed))
        for t in ("lost-cities/2", "expeditions/4"):
            say(f"blueprint vs expert, {t}", duplicate(tables[t], "blueprint", "expert", a.deals, a.seed))
    if "agreement" not in skip:
        say("agreement with expert, expeditions/2", agreement(tables["expeditions/2"], min(a.deals, 1000), a.seed))
    if "mc" not in skip:
        for t in ("expeditions/2", "lost-cities/2", "expeditions/4"):
            other = a.mc_other_deals if a.mc_other_deals is not None else max(100, a.mc_deals // 4)
            n = a.mc_deals if t == "expeditions/2" else other
            say(f"{a.mc} vs expert, {t}", duplicate(tables[t], a.mc, "expert", n, a.seed))


if __name__ == "__main__":
    main()
