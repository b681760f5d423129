"""Strength and cost of a bot: its margin over another on duplicate deals, and its CPU time a round.

``margin`` plays each deal twice, sides swapped (common random numbers), and
returns the mean margin a deal, its standard error, a 95% interval and n; in
solitaire, where there is no other side, A's points less B's on the same deal.
``cpu_per_round`` plays the bot against itself on one thread and divides the
process's CPU time by the rounds (the same deals every time: a seed of its own).
"""
from __future__ import annotations

import math
import time

import numpy as np


def margins(rules, a, b, deals: int, seed: int, threads=None) -> np.ndarray:
    """A's margin over B on each of `deals` duplicate deals (rounds 0.. of `seed`, both seatings);
    solitaire: A's points less B's on each deal."""
    from lostcards.run.runner import play
    if rules.players == 1:
        return solo_points(rules, a, deals, seed, threads) - solo_points(rules, b, deals, seed, threads)
    g1 = play(rules, a, b, rounds=deals, seed=seed, first=-1, threads=threads)
    g2 = play(rules, b, a, rounds=deals, seed=seed, first=-1, threads=threads)
    s1, s2 = g1.scores, g2.scores
    return ((s1[:, 0] - s1[:, 1]) + (s2[:, 1] - s2[:, 0])) / 2.0


def summary(x: np.ndarray) -> dict:
    """mean, se, the 95% interval and n of per-deal margins."""
    x = np.asarray(x, np.float64)
    m = float(x.mean()) if x.size else float("nan")
    se = float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else float("nan")
    return {"mean": m, "se": se, "lo": m - 1.96 * se, "hi": m + 1.96 * se, "n": int(x.size)}


def margin(rules, a, b, deals: int, seed: int, threads=None) -> dict:
    """``summary`` of A's margins over B (module docstring)."""
    return summary(margins(rules, a, b, deals, seed, threads))


def solo_points(rules, a, deals: int, seed: int, threads=None) -> np.ndarray:
    """Solitaire: the points of each round."""
    from lostcards.run.runner import play
    return play(rules, a, a, rounds=deals, seed=seed, threads=threads).scores[:, 0].astype(np.float64)


def cpu_per_round(rules, policy, rounds: int, seed: int) -> float:
    """CPU seconds a round of `policy` playing every seat, on one thread (compiled first)."""
    from lostcards.run.runner import play
    play(rules, policy, policy, rounds=2, seed=seed, threads=1)
    t = time.process_time()
    play(rules, policy, policy, rounds=rounds, seed=seed, start=2, threads=1)
    return (time.process_time() - t) / rounds
