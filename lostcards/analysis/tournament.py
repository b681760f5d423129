"""`lostcards tournament`: a round robin among policies on duplicate deals.

Every pair of policies (A, B) plays rounds 0..n-1 of one seed twice: once with
A on side A (seats 0 and 2) and once with the sides swapped.  Round i of a seed
is the same deal whoever sits where (``docs/engine.md``), so the luck of the
deal cancels in the paired margin of a deal::

    margin = (A's score - B's score in game 1 + A's score - B's score in game 2) / 2

Each pair is played in blocks of deals with a prespecified sequential rule
(``docs/tournament.md``): stop once the 95% interval of the mean margin is
narrower than ``target`` points either side, or once |mean| / se exceeds a
Bonferroni-corrected boundary over the maximum number of looks, or at
``rounds`` deals.  Ratings are Bradley-Terry strengths fitted on the pairwise
game wins (draws count half), on the Elo scale, with bootstrap intervals that
resample deals.  Solitaire has no opponents: policies are ranked by their mean
points per round (all on the same deals).

``run_tournament(rules, ["random", "greedy", "expert:invest=never"], rounds=20_000, seed=1)``
returns a dict of DataFrames: ``pairs``, ``ratings``, ``policies``, ``looks``, ``deals``.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd
from scipy import stats as _st

from lostcards.analysis.ratings import WIN_LEVELS, bt_ratings, win_matrix
from lostcards.errors import TournamentError
from lostcards.rules.outcome import Ending
from lostcards.stats import duplicate_margins, half_width

ALPHA = 0.05                       # two-sided error of the sequential "excludes 0" stop
CAPPED = Ending.CAPPED.code       # a round stopped at the turn cap




# ---- inputs -----------------------------------------------------------------------

def _ruleset(rules):
    from lostcards.rules.ruleset import Ruleset
    from lostcards.rules.ruleset import rules as make_rules
    return rules if isinstance(rules, Ruleset) else make_rules(str(rules))


def resolve_policies(policies) -> list:
    """Policy objects for a list of specs (or Policy objects); refuses < 2 and duplicates."""
    from lostcards.policies import resolve, split_policies
    if isinstance(policies, str):
        policies = split_policies(policies)
    resolved = [resolve(p) for p in policies]
    if len(resolved) < 2:
        raise TournamentError(f"a tournament needs at least 2 policies, got {len(resolved)}"
                              + (f" ({resolved[0].spec})" if resolved else ""))
    seen = set()
    for p in resolved:
        if p.spec in seen:
            raise TournamentError(f"policy {p.spec!r} is listed twice")
        seen.add(p.spec)
    return resolved


def max_looks(rounds: int, block: int) -> int:
    return max(1, -(-int(rounds) // int(block)))


def boundary_z(rounds: int, block: int, alpha: float = ALPHA) -> float:
    """The |mean|/se boundary of the sequential rule: Bonferroni over the maximum number of looks.

    Spending alpha/K at each of at most K looks keeps the chance of ever stopping
    with a wrong sign (or on a true margin of 0) at most alpha, whatever the
    correlation between looks.  Conservative (Pocock's exact boundary is lower).
    """
    return float(_st.norm.ppf(1 - alpha / (2 * max_looks(rounds, block))))


# ---- playing ----------------------------------------------------------------------

def _side_seats(players: int, side: int) -> list[int]:
    if players == 1:
        return [0]
    return [s for s in range(players) if s % 2 == side]


STAT_KEYS = ("rounds", "points", "points_sq", "opp_points", "plays", "discards", "deck_draws",
             "pile_draws", "passes", "started", "bonus", "investments", "wins", "draws", "games",
             "capped")


def _new_stats() -> dict:
    return {k: 0.0 for k in STAT_KEYS}


def _add_stats(acc: dict, batch, side: int):
    """Add the play statistics of `side` of a batch to `acc` (per side: a team in 4 players)."""
    r = batch.rules
    seats = _side_seats(r.players, side)
    sc = batch.round_info[:, 3 + side].astype(np.float64)
    acc["rounds"] += sc.size
    acc["points"] += sc.sum()
    acc["points_sq"] += (sc * sc).sum()
    st = batch.seats[:, seats, :].astype(np.int64)
    acc["plays"] += st[:, :, 0].sum()
    acc["discards"] += st[:, :, 1].sum()
    acc["deck_draws"] += st[:, :, 2].sum()
    acc["pile_draws"] += st[:, :, 3].sum()
    acc["passes"] += st[:, :, 4].sum()
    ex = batch.side_suits[:, side, :, :].astype(np.int64)
    started = ex[:, :, 0] > 0
    acc["started"] += started.sum()
    acc["bonus"] += (started & (ex[:, :, 0] >= r.bonus_cards)).sum()
    acc["investments"] += ex[:, :, 1].sum()
    acc["capped"] += (batch.round_info[:, 2] == CAPPED).sum()
    if r.players > 1:
        opp = batch.round_info[:, 3 + (1 - side)].astype(np.float64)
        acc["opp_points"] += opp.sum()
        acc["wins"] += (sc > opp).sum()
        acc["draws"] += (sc == opp).sum()
        acc["games"] += sc.size


def play_pair(rules, policy_a, policy_b, rounds: int, seed: int = 0, start: int = 0,
              first: int = 0, threads: int | None = None, stats: dict | None = None) -> pd.DataFrame:
    """Rounds start..start+rounds-1 of `seed` played twice, A then B on side A; one row per deal.

    Columns: deal, a1, b1 (A's and B's scores in game 1, A on side A), a2, b2
    (game 2, B on side A), margin ((a1 - b1 + a2 - b2) / 2), win_points (A's
    game wins in the two games, draws half: 0 .. 2), capped (how many of the two
    games hit the turn cap, SPEC §2).  `stats`, if given, maps
    each policy spec to an accumulator that gets its play statistics.
    """
    from lostcards.run.runner import play
    r = _ruleset(rules)
    if r.players == 1:
        raise TournamentError("solitaire has no opponents: use run_tournament, which ranks by points")
    if stats is not None:
        from lostcards.policies import resolve
        if not isinstance(stats, dict):
            raise TournamentError(f"stats = {repr(stats)[:40]} is not allowed: a dict of policy spec -> "
                                  "accumulator (or None)")
        specs = [resolve(p).spec for p in (policy_a, policy_b)]
        missing = [s for s in specs if s not in stats]
        if missing:
            raise TournamentError(f"stats has no accumulator for {missing[0]!r} (its keys are the policies' specs: "
                                  f"{', '.join(map(repr, specs))})")
    g1 = play(r, policy_a, policy_b, rounds=rounds, seed=seed, start=start, first=first, threads=threads)
    g2 = play(r, policy_b, policy_a, rounds=rounds, seed=seed, start=start, first=first, threads=threads)
    a1, b1 = g1.round_info[:, 3], g1.round_info[:, 4]
    b2, a2 = g2.round_info[:, 3], g2.round_info[:, 4]
    if stats is not None:
        sa, sb = g1.policies[0].spec, g1.policies[1].spec
        _add_stats(stats[sa], g1, 0)
        _add_stats(stats[sb], g1, 1)
        _add_stats(stats[sb], g2, 0)
        _add_stats(stats[sa], g2, 1)
    wp = (np.sign(a1 - b1) + 1) / 2 + (np.sign(a2 - b2) + 1) / 2
    capped = (g1.round_info[:, 2] == CAPPED).astype(np.int8) + (g2.round_info[:, 2] == CAPPED)
    return pd.DataFrame({"deal": np.arange(start, start + rounds, dtype=np.int64),
                         "a1": a1, "b1": b1, "a2": a2, "b2": b2,
                         "margin": duplicate_margins(a1, b1, a2, b2), "win_points": wp,
                         "capped": capped.astype(np.int8)})


def _look(x: np.ndarray, target: float, z_seq: float, rounds: int, sequential: bool) -> tuple:
    """(mean, se, half-width of the 95% t interval, decision) after a look at margins x."""
    n = x.size
    m = float(x.mean())
    se = float(x.std(ddof=1) / math.sqrt(n)) if n > 1 else float("inf")
    half = half_width(se, 1, n - 1) if n > 1 else float("inf")
    if sequential and half < target:
        return m, se, half, "precision"
    if sequential and (abs(m) > z_seq * se):
        return m, se, half, "significant"
    if n >= rounds:
        return m, se, half, "max-rounds"
    return m, se, half, ""


# ---- ratings -------------------------------------------------------------------







# ---- the tournament -------------------------------------------------------------

def _policy_table(specs: list, stats: dict, r) -> pd.DataFrame:
    rows = []
    for spec in specs:
        s = stats[spec]
        n = s["rounds"]
        mean = s["points"] / n if n else float("nan")
        var = (s["points_sq"] - n * mean * mean) / (n - 1) if n > 1 else float("nan")
        half = half_width(math.sqrt(max(var, 0.0) / n), 1, n - 1) if n > 1 else float("nan")
        row = {"policy": spec, "rounds": int(n), "points_per_round": mean,
               "points_ci_low": mean - half, "points_ci_high": mean + half}
        if r.players > 1:
            row["opp_points_per_round"] = s["opp_points"] / n if n else float("nan")
            row["win_rate"] = s["wins"] / s["games"] if s["games"] else float("nan")
            row["draw_rate"] = s["draws"] / s["games"] if s["games"] else float("nan")
        row.update({
            "plays_per_round": s["plays"] / n if n else float("nan"),
            "discards_per_round": s["discards"] / n if n else float("nan"),
            "discard_share": s["discards"] / s["plays"] if s["plays"] else float("nan"),
            "expeditions_per_round": s["started"] / n if n else float("nan"),
            "bonus_rate": s["bonus"] / s["started"] if s["started"] else float("nan"),
            "investments_per_round": s["investments"] / n if n else float("nan"),
        })
        if r.players > 1:
            row["pile_draws_per_round"] = s["pile_draws"] / n if n else float("nan")
        if r.players == 4:
            row["passes_per_round"] = s["passes"] / n if n else float("nan")
        row["capped"] = int(s["capped"])
        rows.append(row)
    return pd.DataFrame(rows)


def run_tournament(rules, policies, rounds: int = 20_000, seed: int = 0, *, block: int = 2_000,
                   target: float = 0.5, sequential: bool = True, first: int = 0,
                   bootstrap: int = 1_000, threads: int | None = None, progress=None,
                   keep_deals: bool = True) -> dict:
    """A round robin on duplicate deals; returns a dict of DataFrames.

    rules: a Ruleset or a preset name (1, 2 or 4 players).  policies: specs
    ("expert:invest=never") or Policy objects, at least 2, all different.
    rounds: the most deals per pair (each deal is played twice, sides swapped).
    block: deals between looks.  target: stop a pair once the 95% interval's
    half-width is below this many points.  sequential=False plays every pair to
    `rounds`.  first: the seat that starts every round (-1: round i by seat i mod
    players).  bootstrap: resamples for the rating intervals (0: none).
    progress: called with one line of text per block.

    Tables:
      pairs     one row per pair: deals, mean margin A - B per round with its 95%
                interval (t, paired over deals) and the sequential-safe interval
                (rci_*), win/draw rates per game, points, looks, why it stopped.
                Solitaire: paired differences of points on their common deals.
      ratings   rank, policy, rating and bootstrap 95% interval, method.
      policies  per policy, from every round it played: points, discards,
                expeditions started, bonus rate, investments, ... (per side).
      looks     every look of the sequential rule.
      deals     per pair and deal: the four scores, margin, win points.
    """
    r = _ruleset(rules)
    pols = resolve_policies(policies)
    specs = [p.spec for p in pols]
    rounds, block = int(rounds), int(block)
    if rounds < 1:
        raise TournamentError(f"rounds must be at least 1, got {rounds}")
    if block < 1:
        raise TournamentError(f"block must be at least 1, got {block}")
    if not target >= 0:
        raise TournamentError(f"target must be >= 0 points, got {target}")
    if bootstrap < 0:
        raise TournamentError(f"bootstrap must be >= 0, got {bootstrap}")
    if not (first == -1 or 0 <= first < r.players):
        raise TournamentError(f"first = {first} is not allowed: a seat 0..{r.players - 1}, or -1")
    say = progress or (lambda line: None)
    z_seq = boundary_z(rounds, block)
    stats = {s: _new_stats() for s in specs}
    k = len(pols)
    if r.players == 1:
        return _solitaire(r, pols, specs, rounds, seed, block, target, sequential, first,
                          threads, say, stats, keep_deals)
    pairs, looks, deals, counts = [], [], [], {}
    npairs = k * (k - 1) // 2
    done = 0
    for i in range(k):
        for j in range(i + 1, k):
            done += 1
            a, b = pols[i], pols[j]
            t0 = time.time()
            parts, played, look = [], 0, 0
            while True:
                n = min(block, rounds - played)
                parts.append(play_pair(r, a, b, n, seed=seed, start=played, first=first,
                                       threads=threads, stats=stats))
                played += n
                look += 1
                x = np.concatenate([p["margin"].to_numpy() for p in parts])
                m, se, half, why = _look(x, target, z_seq, rounds, sequential)
                looks.append({"policy_a": a.spec, "policy_b": b.spec, "look": look, "deals": played,
                              "margin": m, "se": se, "half_width": half,
                              "z": m / se if se > 0 else (0.0 if m == 0 else math.copysign(math.inf, m)),
                              "decision": why or "continue"})
                say(f"[pair {done}/{npairs}] {a.spec} vs {b.spec}: {played:,} deals, margin "
                    f"{m:+.2f} ± {half:.2f} -> {why or 'continue'}")
                if why:
                    break
            d = pd.concat(parts, ignore_index=True)
            c = np.array([(d["win_points"] == v).sum() for v in WIN_LEVELS], dtype=np.int64)
            counts[(i, j)] = c
            g = 2.0 * len(d)
            wins = float(((d["a1"] > d["b1"]).sum() + (d["a2"] > d["b2"]).sum()))
            draws = float(((d["a1"] == d["b1"]).sum() + (d["a2"] == d["b2"]).sum()))
            pairs.append({"policy_a": a.spec, "policy_b": b.spec, "deals": len(d), "games": int(g),
                          "margin": m, "ci_low": m - half, "ci_high": m + half,
                          "rci_low": m - z_seq * se, "rci_high": m + z_seq * se,
                          "sd": float(d["margin"].std(ddof=1)) if len(d) > 1 else float("nan"),
                          "a_win_rate": wins / g, "draw_rate": draws / g, "b_win_rate": 1 - (wins + draws) / g,
                          "a_points": float((d["a1"].sum() + d["a2"].sum()) / g),
                          "b_points": float((d["b1"].sum() + d["b2"].sum()) / g),
                          "capped": int(d["capped"].sum()),
                          "looks": look, "stopped": why, "seconds": round(time.time() - t0, 3)})
            if keep_deals:
                d.insert(0, "policy_b", b.spec)
                d.insert(0, "policy_a", a.spec)
                deals.append(d)
    rng = np.random.default_rng([int(seed), 0xB007])
    est, lo, hi = bt_ratings(k, counts, int(bootstrap), rng)
    W = win_matrix(k, counts)
    games = W.sum(axis=1) + W.sum(axis=0)
    ratings = pd.DataFrame({"policy": specs, "rating": est, "ci_low": lo, "ci_high": hi,
                            "score": W.sum(axis=1) / games, "games": games.astype(np.int64),
                            "method": "Bradley-Terry on game wins (draws half), Elo scale, mean 0; "
                                      f"bootstrap {bootstrap} resamples of deals, percentile 95%"})
    ratings = _ranked(ratings)
    return {"pairs": pd.DataFrame(pairs), "ratings": ratings,
            "policies": _policy_table(specs, stats, r), "looks": pd.DataFrame(looks),
            "deals": pd.concat(deals, ignore_index=True) if deals else pd.DataFrame()}


def _ranked(ratings: pd.DataFrame) -> pd.DataFrame:
    ratings = ratings.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    ratings.insert(0, "rank", np.arange(1, len(ratings) + 1))
    return ratings


def _solitaire(r, pols, specs, rounds, seed, block, target, sequential, first, threads, say,
               stats, keep_deals) -> dict:
    """Solitaire: each policy plays rounds 0..n-1 alone; ranked by mean points per round."""
    from lostcards.run.runner import play
    scores, looks = {}, []
    for idx, p in enumerate(pols):
        parts, played, look = [], 0, 0
        while True:
            n = min(block, rounds - played)
            g = play(r, p, p, rounds=n, seed=seed, start=played, first=first, threads=threads)
            _add_stats(stats[p.spec], g, 0)
            stats[p.spec]["capped"] += int((g.round_info[:, 2] == CAPPED).sum())
            parts.append(g.round_info[:, 3].astype(np.float64))
            played += n
            look += 1
            x = np.concatenate(parts)
            # only the precision stop applies: there is no opponent to be significant against
            m, se, half, why = _look(x, target, math.inf, rounds, sequential)
            looks.append({"policy": p.spec, "look": look, "deals": played, "points": m, "se": se,
                          "half_width": half, "decision": why or "continue"})
            say(f"[policy {idx + 1}/{len(pols)}] {p.spec}: {played:,} rounds, points "
                f"{m:.2f} ± {half:.2f} -> {why or 'continue'}")
            if why:
                break
        scores[p.spec] = x
    pairs, deals = [], []
    for i in range(len(pols)):
        for j in range(i + 1, len(pols)):
            a, b = specs[i], specs[j]
            n = min(scores[a].size, scores[b].size)
            xa, xb = scores[a][:n], scores[b][:n]
            diff = xa - xb
            m = float(diff.mean())
            se = float(diff.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
            half = half_width(se, 1, n - 1) if n > 1 else float("nan")
            pairs.append({"policy_a": a, "policy_b": b, "deals": n, "games": n, "margin": m,
                          "ci_low": m - half, "ci_high": m + half,
                          "sd": float(diff.std(ddof=1)) if n > 1 else float("nan"),
                          "a_win_rate": float((diff > 0).mean()), "draw_rate": float((diff == 0).mean()),
                          "b_win_rate": float((diff < 0).mean()),
                          "a_points": float(xa.mean()), "b_points": float(xb.mean()),
                          "looks": None, "stopped": "common deals"})
            if keep_deals:
                deals.append(pd.DataFrame({"policy_a": a, "policy_b": b, "deal": np.arange(n),
                                           "a1": xa, "b1": xb, "margin": diff}))
    pt = _policy_table(specs, stats, r)
    ratings = pd.DataFrame({"policy": specs, "rating": pt["points_per_round"].to_numpy(),
                            "ci_low": pt["points_ci_low"].to_numpy(), "ci_high": pt["points_ci_high"].to_numpy(),
                            "rounds": pt["rounds"].to_numpy(),
                            "method": "solitaire: mean points per round, 95% t interval"})
    return {"pairs": pd.DataFrame(pairs), "ratings": _ranked(ratings), "policies": pt,
            "looks": pd.DataFrame(looks),
            "deals": pd.concat(deals, ignore_index=True) if deals else pd.DataFrame()}


# ---- output ----------------------------------------------------------------------







