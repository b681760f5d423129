"""A hint at the table: the strongest bot's move from the seat's information set, and what it is worth.

The bot (``improve``, the top of docs/bots.md's ladder) chooses from the seat's
observation; then every legal move is played out on the same determinizations
of the hidden cards by ``expert`` for every seat, exactly as the move-by-move
analysis does (``analysis.analyze``: its candidates and its play-out kernel),
so the hint says how far the bot's move is ahead of the next best move, with a
95% t interval (paired on the same determinizations).

The next best move is picked on one set of determinizations and measured
against the bot's on a fresh set: the best of many noisy means is too high,
so measuring it on the data that picked it made every bot move look worse
than it is (by about 7 points a decision with 4 players at 32 samples).
"""
from __future__ import annotations

import numpy as np

HINT_BOT = "improve"
EVALUATOR = "expert"


def hint(rnd, seat: int, samples: int, seed: int) -> dict:
    """The hint for `seat` (to move in `rnd`): the bot's move and its expected margin, the best other move
    and its margin, and the paired difference `by` [lo, hi] (positive: the bot's move is ahead)."""
    from lostcards.analysis.analyze import candidates, move_text
    from lostcards.engine.convert import from_observation
    from lostcards.engine.deal import card_set
    from lostcards.engine.intrinsics import decide_address
    from lostcards.engine.moves import from_reference
    from lostcards.engine.playouts import MARGINS_SIG, margins
    from lostcards.engine.policy import decider_entry
    from lostcards.numba_cache import Entry, compile_all
    from lostcards.policies import resolve
    from lostcards.rules.streams import Stream
    from lostcards.run.bridge import prepare, python_policy
    from lostcards.run.threads import call
    from lostcards.stats import mean_ci

    rules = rnd.rules
    bot = resolve(HINT_BOT)
    prepare([bot])
    turn = rnd.turn + 1
    move = python_policy(bot)(rnd.observation(seat), Stream(seed, 1_000_000 + turn, 1 + seat))
    chosen = from_reference(move)
    ev = resolve(EVALUATOR)
    compile_all([Entry(margins, MARGINS_SIG, "the play-outs", 10.0), decider_entry(ev.kernel, ev.name)])
    moves = candidates(rnd, seat)
    if chosen not in moves:
        moves.append(chosen)
    obs = from_observation(rnd.observation(seat))
    disc = card_set(rnd.codes[p] for p in rnd.out_of_game) if rules.players == 1 else (0, 0)
    out = np.zeros((len(moves), samples))
    call(margins, obs, np.asarray(moves, np.int64), samples, seed, 2 * turn, disc[0], disc[1],
         decide_address(ev.kernel), ev.params, out)
    legal = ~np.isnan(out[:, 0])
    means = np.where(legal, out.mean(axis=1), -np.inf)
    j = moves.index(chosen)
    rest = [i for i in np.argsort(-means) if i != j and legal[i]]
    res = {"move": move_text(chosen, rules), "bot": bot.spec, "evaluator": ev.spec, "samples": samples,
           "margin": float(means[j]), "next": None, "next_margin": None, "by": 0.0, "lo": 0.0, "hi": 0.0}
    if rest:
        k = int(rest[0])
        fresh = np.zeros((2, samples))        # the two moves again, on determinizations that picked neither
        call(margins, obs, np.asarray([chosen, moves[k]], np.int64), samples, seed, 2 * turn + 1, disc[0],
             disc[1], decide_address(ev.kernel), ev.params, fresh)
        e = mean_ci(fresh[0] - fresh[1])      # paired: the same determinizations for both moves
        res.update(margin=float(fresh[0].mean()), next=move_text(moves[k], rules), next_margin=float(fresh[1].mean()),
                   by=e.estimate, lo=e.ci_low, hi=e.ci_high)
    return res
