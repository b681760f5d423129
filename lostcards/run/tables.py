"""Tidy pandas tables of a batch: ``rounds``, ``seats``, ``seat_suits`` and ``turns``.

One row per round, per (round, seat), per (round, seat, suit), and (for sampled
rounds only) per turn; the column names are the contract later analysis builds
on (see the README).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from lostcards.engine import moves
from lostcards.errors import PolicyFailure
from lostcards.rules.cards import INVESTMENT_RANKS, SLOTS, deck_codes, format_card
from lostcards.rules.outcome import FINISHED
from lostcards.run.runner import Batch, log_rounds, max_turns

ENDED_BY = pd.CategoricalDtype([e.value for e in FINISHED], ordered=False)


def _constant(value, n: int) -> pd.Categorical:
    """A categorical column holding one value (or all missing) on n rows, without an n-long list."""
    if value is None:
        return pd.Categorical.from_codes(np.full(n, -1, np.int8), categories=pd.Index([], dtype="float64"))
    return pd.Categorical.from_codes(np.zeros(n, np.int8), categories=pd.Index([value]))


def rounds_table(b: Batch) -> pd.DataFrame:
    r = b.rules
    n = b.n
    ri = b.round_info
    solo = r.players == 1
    df = pd.DataFrame({
        "round": np.arange(b.start, b.start + n, dtype=np.int64),
        "seed": np.full(n, b.seed, np.int64),
        "players": np.full(n, r.players, np.int8),
        "rules": _constant(r.describe(), n),
        "policy_a": _constant(b.policies[0].spec, n),
        "policy_b": _constant(None if solo else b.policies[1].spec, n),
        "first": ri[:, 0].astype(np.int8),
        "turns": ri[:, 1].astype(np.int32),
        "ended_by": pd.Categorical.from_codes(ri[:, 2].astype(np.int8), dtype=ENDED_BY),
        "score_a": ri[:, 3].astype(np.int32),
        "score_b": pd.array(ri[:, 4], dtype="Int32") if not solo else pd.array([pd.NA] * n, dtype="Int32"),
    })
    return df


def seats_table(b: Batch) -> pd.DataFrame:
    r = b.rules
    n, players = b.n, r.players
    s = b.seats.reshape(n * players, 5)
    seat = np.tile(np.arange(players, dtype=np.int8), n)
    return pd.DataFrame({
        "round": np.repeat(np.arange(b.start, b.start + n, dtype=np.int64), players),
        "seat": seat,
        "side": (seat % 2 if players > 1 else seat * 0).astype(np.int8),
        "plays": s[:, 0], "discards": s[:, 1], "deck_draws": s[:, 2],
        "pile_draws": s[:, 3], "passes": s[:, 4],
    })


def seat_suits_table(b: Batch) -> pd.DataFrame:
    r = b.rules
    n, players, suits = b.n, r.players, r.suits
    k = n * players * suits
    held = b.seat_suits.reshape(k, 4)
    seat = np.tile(np.repeat(np.arange(players, dtype=np.int8), suits), n)
    side = seat % 2 if players > 1 else seat * 0
    suit = np.tile(np.arange(suits, dtype=np.int8), n * players)
    rows = np.repeat(np.arange(n), players * suits)
    exp = b.side_suits[rows, side, suit]
    return pd.DataFrame({
        "round": b.start + rows.astype(np.int64),
        "seat": seat,
        "suit": pd.Categorical.from_codes(suit, categories=list(r.letters)),
        "held_count": held[:, 0], "held_sum": held[:, 1],
        "reached_count": held[:, 2], "reached_sum": held[:, 3],
        "exp_cards": exp[:, 0], "exp_investments": exp[:, 1], "exp_score": exp[:, 2],
    })


TABLES = {"rounds": rounds_table, "seats": seats_table, "seat_suits": seat_suits_table}
ALL_TABLES = (*TABLES, "turns")     # turns: only for sampled rounds (``simulate --turns N``)


def tables(b: Batch) -> dict[str, pd.DataFrame]:
    return {name: f(b) for name, f in TABLES.items()}


TURN_KINDS = pd.CategoricalDtype(["play", "discard", "pass"], ordered=False)
_TURN_CHUNK = 1024      # sampled rounds per engine call: bounds the move-log buffer


def turns_table(rules, policies, seed: int, round_indices, first: int = 0) -> pd.DataFrame:
    """One row per turn of the given rounds, played again with a move log.

    Columns: ``round``, ``turn`` (0-based), ``seat``, ``kind`` (play / discard /
    pass), ``card``, ``suit``, ``rank`` (the card played, or the first card
    passed), ``card2`` (the second card passed; empty otherwise), ``draw``
    (``deck`` or the suit letter of the discard pile drawn; empty for a pass and
    for a solitaire turn after the deck ran out).  The rounds are the ones the
    batch loop plays (same seed, same streams): ``turns`` per round in the
    ``rounds`` table equals the rows here.
    """
    r = rules
    a, b = policies
    idx_all = np.asarray(list(round_indices), np.int64)
    deck = deck_codes(r)
    cap = max_turns(r)
    letters = r.letters
    card_codes = sorted(set(deck))
    card_cat = pd.CategoricalDtype([format_card(c, letters) for c in card_codes])
    code_pos = np.full(SLOTS * len(letters), -1, np.int16)
    code_pos[card_codes] = np.arange(len(card_codes))
    ranks = [INVESTMENT_RANKS[i] for i in range(r.investments)] + [str(n) for n in r.numbers]
    rank_cat = pd.CategoricalDtype(ranks)
    slot_pos = np.full(SLOTS, -1, np.int16)
    for i in range(r.investments):
        slot_pos[i] = i
    for j, n in enumerate(r.numbers):
        slot_pos[n + 1] = r.investments + j
    suit_cat = pd.CategoricalDtype(list(letters))
    draw_cat = pd.CategoricalDtype(["deck", *letters])
    solo_deck = len(deck) // 2 - r.hand_size          # solitaire: turns that draw
    parts = []
    for lo in range(0, max(idx_all.shape[0], 1), _TURN_CHUNK):     # once even when empty: the columns
        idx = idx_all[lo:lo + _TURN_CHUNK]
        k = idx.shape[0]
        logs = np.full((k, cap), -1, np.int64)
        orders = np.zeros((k, len(deck)), np.int32)
        errors = np.zeros(k, np.int64)
        log_rounds(r, a, b, idx, seed, first, logs, orders, errors)
        if errors.any():
            j = int(np.flatnonzero(errors)[0])
            raise PolicyFailure(f"round {int(idx[j])} (seed {seed}): {moves.message(errors[j])}")
        rows, turn = np.nonzero(logs >= 0)
        m = logs[rows, turn]
        rnd = idx[rows]
        firsts = np.full(k, first, np.int64) if first >= 0 else idx % r.players
        seat = ((firsts[rows] + turn) % r.players).astype(np.int8)
        f = moves.fields(m)
        is_pass = f["is_pass"]
        c1 = f["card"]
        c2 = f["card2"]
        kind = np.where(is_pass, 2, np.where(f["to"] == moves.TO_DISCARD, 1, 0)).astype(np.int8)
        if r.players == 1:
            draw = np.where(turn < solo_deck, 0, -1)
        else:
            d = f["draw"]
            draw = np.where(is_pass | (d > len(letters)), -1, d)
        parts.append(pd.DataFrame({
            "round": rnd.astype(np.int64),
            "turn": turn.astype(np.int32),
            "seat": seat,
            "kind": pd.Categorical.from_codes(kind, dtype=TURN_KINDS),
            "card": pd.Categorical.from_codes(code_pos[c1], dtype=card_cat),
            "suit": pd.Categorical.from_codes((c1 // SLOTS).astype(np.int8), dtype=suit_cat),
            "rank": pd.Categorical.from_codes(slot_pos[c1 % SLOTS], dtype=rank_cat),
            "card2": pd.Categorical.from_codes(np.where(is_pass, code_pos[c2], -1), dtype=card_cat),
            "draw": pd.Categorical.from_codes(draw.astype(np.int8), dtype=draw_cat),
        }))
    return parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
