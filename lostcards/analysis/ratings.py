"""Ratings from a round robin's results: Bradley-Terry strengths (as Elo points) with bootstrap intervals."""
from __future__ import annotations

import math

import numpy as np

WIN_LEVELS = np.array([0.0, 0.5, 1.0, 1.5, 2.0])   # a deal's win points for A (2 games)
ELO = 400.0 / math.log(10.0)      # Elo points per unit of Bradley-Terry log-strength


BT_PRIOR_GAMES = 1.0               # per pair: this many drawn games added before fitting


def bradley_terry(W: np.ndarray, prior_games: float = BT_PRIOR_GAMES) -> np.ndarray:
    """Bradley-Terry log-strengths (mean 0) from W[i, j] = games i won against j (draws half).

    Every pair that met gets `prior_games` drawn games added first, so that a
    pair won 100% still has a finite estimate.  Newton's method on the
    (strictly concave) log-likelihood.
    """
    W = np.asarray(W, dtype=np.float64).copy()
    k = W.shape[0]
    met = (W + W.T) > 0
    np.fill_diagonal(met, False)
    W = W + np.where(met, prior_games / 2.0, 0.0)
    N = W + W.T
    beta = np.zeros(k)
    for _ in range(200):
        d = beta[:, None] - beta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        grad = (W - N * p).sum(axis=1)
        w = N * p * (1 - p)
        H = np.diag(w.sum(axis=1)) - w        # minus the Hessian
        step = np.zeros(k)
        step[:-1] = np.linalg.lstsq(H[:-1, :-1], grad[:-1], rcond=None)[0]
        big = np.abs(step).max()
        if big > 5:
            step *= 5 / big
        beta += step
        if big < 1e-10:
            break
    return beta - beta.mean()


def win_matrix(k: int, counts: dict) -> np.ndarray:
    """Game wins (draws half) per ordered pair from per-pair counts of deal win points."""
    W = np.zeros((k, k))
    for (i, j), c in counts.items():
        a = float((c * WIN_LEVELS).sum())
        W[i, j] += a
        W[j, i] += 2.0 * c.sum() - a
    return W


def bt_ratings(k: int, counts: dict, reps: int, rng) -> tuple:
    """(ratings, bootstrap low, bootstrap high) on the Elo scale.

    The bootstrap resamples the deals of every pair (with replacement, the
    pair's number of deals): a deal's only input to the fit is its win points,
    so drawing the counts of each win-point level from a multinomial is exactly
    that resampling.  Percentile intervals.
    """
    est = ELO * bradley_terry(win_matrix(k, counts))
    if reps <= 0:
        return est, np.full(k, np.nan), np.full(k, np.nan)
    draws = np.empty((reps, k))
    for b in range(reps):
        boot = {}
        for key, c in counts.items():
            n = int(c.sum())
            boot[key] = rng.multinomial(n, c / n) if n else c
        draws[b] = ELO * bradley_terry(win_matrix(k, boot))
    lo, hi = np.percentile(draws, [2.5, 97.5], axis=0)
    return est, lo, hi
