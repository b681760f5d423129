"""The stall rule: how often it ends a round, and whether the rounds it ended were still moving."""
from __future__ import annotations

import numpy as np
import pandas as pd

from lostcards.analysis.metrics import policy_spec, self_play
from lostcards.rules.outcome import Ending
from lostcards.stats import share_ci

STALL_COLUMNS = ["rules", "players", "policy", "seed", "rounds", "stall_ended", "share", "share_ci_low",
                 "share_ci_high", "checked", "window", "prefix_same", "still_moving", "moving_share",
                 "moving_ci_low", "moving_ci_high", "cf_capped", "cf_extra_turns", "cf_score_change",
                 "deck_left", "streak_distinct_cards"]


def stall_check(rules, policy: str = "expert", rounds: int = 20_000, seed: int = 0, max_records: int = 1000,
                threads=None) -> tuple[dict, pd.DataFrame]:
    """How often the stall rule ends a self-play round, and whether those rounds were still moving.

    A stall-ended round is *still moving* when the same deal, played by the same
    bots with the same random streams but without the stall rule (stall_limit 0,
    turn cap 2,000), makes progress (an expedition play or a draw off the deck)
    within the next stall_limit x players turns after the turn at which the rule
    ended it: the rule then cut a round that was about to move on, rather than
    one circling through the discard piles.  The counterfactual is only
    meaningful where it repeats the stalled round's turns up to that point
    (``prefix_same``; a bot that looks at the stall count may deviate).

    Also, from the move logs of the stalled rounds: cards left in the deck when
    the round ended, and distinct cards discarded in the final streak.
    Returns (summary dict, one row per checked stall-ended round).
    """
    from lostcards.records.replay import replay_record
    from lostcards.rules.ruleset import Ruleset
    from lostcards.rules.ruleset import rules as make_rules
    from lostcards.run.runner import play_records
    r = rules if isinstance(rules, Ruleset) else make_rules(rules)
    pol = policy_spec(policy)
    idx, ri, _, _, _ = self_play(r, pol, rounds, seed, threads)
    stalled = ri[:, 2] == Ending("stall").code
    k = int(stalled.sum())
    sh = share_ci(k, idx.size)
    window = r.stall_limit * r.players
    out = {"rules": r.describe(), "players": r.players, "policy": pol, "seed": seed, "rounds": int(idx.size),
           "stall_ended": k, "share": sh.estimate, "share_ci_low": sh.ci_low, "share_ci_high": sh.ci_high,
           "checked": 0, "window": window}
    rows = []
    if k and r.stall_limit:
        pick = np.flatnonzero(stalled)[:max_records]
        cf = r.with_(stall_limit=0, turn_cap=max(r.turn_cap, 2000))
        for f in np.unique(ri[pick, 0]):
            sel = pick[ri[pick, 0] == f]
            got = play_records(r, pol, pol, idx[sel], seed, first=int(f))
            alt = play_records(cf, pol, pol, idx[sel], seed, first=int(f))
            for i, a, b in zip(idx[sel], got, alt):
                t = a["turns"]
                n = len(t)
                same = b["turns"][:n] == t
                after = b["turns"][n:n + window]
                moving = any(x.get("to") == "expedition" or x.get("draw") == "deck" for x in after)
                va, vb = replay_record(a), replay_record(b)
                deck_draws = sum(1 for x in t if x.get("draw") == "deck")
                streak = [x["play"] for x in t[n - window:] if "play" in x]
                rows.append({"round": int(i), "first": int(f), "turns": n, "prefix_same": bool(same),
                             "still_moving": bool(moving and same), "cf_ended_by": vb.get("ended_by"),
                             "cf_turns": vb.get("turns"), "score_change":
                                 float(np.abs(np.subtract(vb["scores"], va["scores"])).sum())
                                 if va.get("ok") and vb.get("ok") else np.nan,
                             "deck_left": len(a["deck"]) - deck_draws,
                             "streak_distinct_cards": len(set(streak))})
        df = pd.DataFrame(rows)
        same = df["prefix_same"]
        mv = share_ci(int(df["still_moving"].sum()), int(same.sum()))
        out.update({"checked": len(df), "prefix_same": int(same.sum()), "still_moving": int(df["still_moving"].sum()),
                    "moving_share": mv.estimate, "moving_ci_low": mv.ci_low, "moving_ci_high": mv.ci_high,
                    "cf_capped": int((df.loc[same, "cf_ended_by"] == Ending.CAPPED).sum()),
                    "cf_extra_turns": float((df.loc[same, "cf_turns"] - df.loc[same, "turns"]).mean()),
                    "cf_score_change": float(df.loc[same, "score_change"].mean()),
                    "deck_left": float(df["deck_left"].mean()),
                    "streak_distinct_cards": float(df["streak_distinct_cards"].mean())})
    return out, pd.DataFrame(rows)
