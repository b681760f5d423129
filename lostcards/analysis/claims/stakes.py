"""What one card's decision is worth: lay it or throw it, played out from the position (the analysis kernel).

"The decision that matters is the first card on an expedition, not the fifth"
is a statement about stakes: how much rides on laying a card that would open
an expedition, against laying one that would be its fifth.  For every turn of
a bot's own rounds (SPEC §5 records, replayed by the reference engine), and
for the first card in hand of each class that the seat may lay there (one that
would open an expedition of its side, one that would be the fifth card of
one), the play-out kernel (``engine.playouts.margins``, docs/analyze.md) plays
out two moves from the same determinizations of the hidden cards, by one
evaluator for every seat: lay the card, or discard it (both drawing off the
deck).  The decision's stake is the difference of the side's mean final
margins, d.  Every card the seat may lay counts, whether or not the bot laid
it, so nothing conditions on the bot's own choice.

The stake's size is |d|; the play-outs' noise adds to it, so the estimator is
the split-half product: the determinizations are split in two halves A and B,
and d_A d_B is unbiased for d^2 (the halves are independent).  ``STAKE`` rows
give, per decision, ``stake2`` (d_A d_B), ``stake`` (|d|) and ``noise`` (the
standard error of d), with the round as the cluster.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

OPEN, FIFTH = 1, 5               # the k-th card of an expedition a class of decisions would lay


def _decisions(obs) -> list:
    """[(k, card)]: the first card in hand that would be the 1st card of an expedition of the seat's side,
    and the first that would be its 5th (each at most once)."""
    from lostcards.rules.cards import SLOTS
    out = {}
    for card in obs.hand:
        if not obs.can_play(card):
            continue
        k = len(obs.expedition(card // SLOTS)) + 1
        if k in (OPEN, FIFTH) and k not in out:
            out[k] = card
    return sorted(out.items())


def stakes(rules, policy: str, rounds, seed: int, samples: int = 32, evaluator: str = "expert") -> pd.DataFrame:
    """One row per decision of `policy`'s self-play rounds `rounds` (indices): round, seat, turn, k (1: it
    would open an expedition, 5: it would be the fifth card), stake2, stake, noise."""
    from lostcards.engine.convert import from_observation
    from lostcards.engine.deal import card_set
    from lostcards.engine.intrinsics import decide_address
    from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, encode_play
    from lostcards.engine.playouts import MARGINS_SIG, margins
    from lostcards.engine.policy import decider_entry
    from lostcards.numba_cache import Entry, compile_all
    from lostcards.policies import resolve
    from lostcards.records.format import move_of_turn
    from lostcards.records.replay import check_record
    from lostcards.run.runner import play_records
    from lostcards.run.threads import call

    ev = resolve(evaluator)
    compile_all([Entry(margins, MARGINS_SIG, "the play-outs", 10.0), decider_entry(ev.kernel, ev.name)])
    decide, params = decide_address(ev.kernel), ev.params
    idx = list(rounds)
    other = None if rules.players == 1 else policy
    half = samples // 2
    rows = []
    for ri, record in zip(idx, play_records(rules, policy, other, idx, seed=seed)):
        _, _, rec = check_record(record)
        rnd = rec.deal.round()
        for t, turn in enumerate(rec.turns, start=1):
            seat = rnd.seat
            obs = rnd.observation(seat)
            todo = _decisions(obs) if obs.deck_size > 0 or rules.players == 1 else []
            if todo:
                o = from_observation(obs)
                disc = card_set(rnd.codes[p] for p in rnd.out_of_game) if rules.players == 1 else (0, 0)
                draw = DRAW_NONE if rules.players == 1 else DRAW_DECK
                for k, card in todo:
                    moves = np.asarray([encode_play(card, TO_EXPEDITION, draw), encode_play(card, TO_DISCARD, draw)],
                                       np.int64)
                    out = np.zeros((2, samples))
                    call(margins, o, moves, samples, seed, 1_000_003 * ri + 2 * t + k, disc[0], disc[1], decide,
                         params, out)
                    d = out[0] - out[1]
                    a, b = float(d[:half].mean()), float(d[half:].mean())
                    rows.append((ri, seat, t, k, a * b, abs(float(d.mean())), float(d.std(ddof=1)) / np.sqrt(samples)))
            rnd.apply(move_of_turn(turn, rules))
    return pd.DataFrame(rows, columns=["round", "seat", "turn", "k", "stake2", "stake", "noise"])
