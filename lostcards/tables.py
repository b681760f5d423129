"""Tidy pandas tables of a batch: ``rounds``, ``seats`` and ``seat_suits``.

One row per round, per (round, seat), per (round, seat, suit); the column names
are the contract later analysis builds on (see the README).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .engine import ENDED
from .runner import Batch

ENDED_BY = pd.CategoricalDtype(list(ENDED), ordered=False)


def rounds_table(b: Batch) -> pd.DataFrame:
    r = b.rules
    n = b.n
    ri = b.round_info
    solo = r.players == 1
    df = pd.DataFrame({
        "round": np.arange(b.start, b.start + n, dtype=np.int64),
        "seed": np.full(n, b.seed, np.int64),
        "players": np.full(n, r.players, np.int8),
        "rules": pd.Categorical([r.describe()] * n),
        "policy_a": pd.Categorical([b.policies[0].spec] * n),
        "policy_b": pd.Categorical([None if solo else b.policies[1].spec] * n),
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


def tables(b: Batch) -> dict[str, pd.DataFrame]:
    return {name: f(b) for name, f in TABLES.items()}
