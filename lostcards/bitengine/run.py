"""Python entry points of the bit engine: play a batch into arrays, log rounds for records.

``play_arrays`` fills the same four arrays as ``runner.Batch`` (round_info,
seats, seat_suits, side_suits); ``log_rounds`` plays chosen rounds again with a
turn log and the dealt order (physical ids); ``records`` turns those into
SPEC §5 round records.
"""
from __future__ import annotations

import numba
import numpy as np

from ..rules.cards import deck_codes, format_card
from . import batch, core, moves
from .policy import decider

_E64 = np.zeros((0, 0), np.int64)
_E32 = np.zeros((0, 0), np.int32)
_NO_IDS = np.zeros(0, np.int64)


def _params(p):
    return np.ascontiguousarray(p if p is not None and len(p) else np.zeros(1), np.float64)


def _threads(threads):
    avail = numba.config.NUMBA_NUM_THREADS
    return max(1, min(threads or avail, avail))


def play_arrays(r, kernel_a, params_a, kernel_b, params_b, rounds, seed, start=0, first=0,
                threads=None, k_slots=batch.K_DEFAULT):
    """Rounds start .. start+rounds-1 of `seed`, side A (seats 0, 2) playing kernel_a.
    Returns (round_info, seats, seat_suits, side_suits) as runner.Batch keeps them."""
    n = int(rounds)
    out_round = np.zeros((n, 5), np.int64)
    out_seat = np.zeros((n, r.players, 5), np.int32)
    out_suit = np.zeros((n, r.players, r.suits, 4), np.int16)
    out_side = np.zeros((n, r.sides, r.suits, 3), np.int16)
    if n == 0:
        return out_round, out_seat, out_suit, out_side
    nt = _threads(threads)
    chunks = max(1, min(nt * 4, -(-n // max(1, k_slots))))
    _run(r, kernel_a, params_a, kernel_b, params_b, seed, start, _NO_IDS, n, first, nt, k_slots,
         chunks, out_round, out_seat, out_suit, out_side, _E64, _E32, np.zeros(0, np.int64))
    return out_round, out_seat, out_suit, out_side


def log_rounds(r, kernel_a, params_a, kernel_b, params_b, idx, seed, first, logs, orders, errors,
               threads=None, k_slots=batch.K_DEFAULT):
    """Play rounds `idx` again: moves into logs (-1 after the last), dealt orders (physical ids)
    into orders, Illegal codes into errors."""
    idx = np.ascontiguousarray(idx, np.int64)
    n = idx.shape[0]
    if n == 0:
        return
    nt = _threads(threads)
    chunks = max(1, min(nt * 4, n))
    _run(r, kernel_a, params_a, kernel_b, params_b, seed, 0, idx, n, first, nt, k_slots, chunks,
         np.zeros((0, 5), np.int64), np.zeros((0, 1, 5), np.int32), np.zeros((0, 1, 1, 4), np.int16),
         np.zeros((0, 1, 1, 3), np.int16), logs, orders, errors)


def _run(r, kernel_a, params_a, kernel_b, params_b, seed, start, ids, n, first, nt, k_slots, chunks,
         out_round, out_seat, out_suit, out_side, logs, orders, errors):
    prev = numba.get_num_threads()
    numba.set_num_threads(nt)
    try:
        batch.run_batch(core.rules_block(r), np.int64(seed), np.int64(start), ids, np.int64(n),
                        np.int64(first), decider(kernel_a), _params(params_a), decider(kernel_b),
                        _params(params_b), np.int64(k_slots), np.int64(chunks), out_round, out_seat,
                        out_suit, out_side, logs, orders, core.physical_ids(r), errors)
    finally:
        numba.set_num_threads(prev)


def max_turns(r) -> int:
    """An upper bound on a round's turns, for sizing turn logs."""
    if r.turn_cap:
        return r.turn_cap
    # each stall run is shorter than stall_limit*players turns and ends with a deck draw
    # or an expedition play (both bounded by the deck); passes at most double it
    return (2 * r.deck_size + 2) * r.stall_limit * r.players * 2


def record_of(r, shuffled, log, first: int) -> dict:
    """A SPEC §5 record from a shuffled deck (codes) and a move log (-1 ends it)."""
    letters = r.letters
    n = len(shuffled)
    off = n - n // 2 if r.players == 1 else 0
    h = r.hand_size

    def fmt(c):
        return format_card(int(c), letters)
    rec = {"format": "lostcards-round/1", "rules": r.to_record(), "players": r.players,
           "first": first, "hands": [[fmt(c) for c in shuffled[off + s * h: off + (s + 1) * h]]
                                     for s in range(r.players)],
           "deck": [fmt(c) for c in shuffled[off + r.players * h:]]}
    if r.players == 1:
        rec["aside"] = [fmt(c) for c in shuffled[:off]]
    turns = []
    for m in log:
        if m < 0:
            break
        turns.append(moves.turn_record(int(m), r))
    rec["turns"] = turns
    return rec


def records(r, kernel_a, params_a, kernel_b, params_b, round_indices, seed, first=0):
    """SPEC §5 records of the given rounds as the batch loop plays them; raises ValueError
    naming the round and the rule for an illegal move."""
    idx = np.asarray(list(round_indices), np.int64)
    deck = deck_codes(r)
    k = idx.shape[0]
    cap = max_turns(r)
    logs = np.zeros((k, cap), np.int64)
    orders = np.zeros((k, len(deck)), np.int32)
    errors = np.zeros(k, np.int64)
    log_rounds(r, kernel_a, params_a, kernel_b, params_b, idx, seed, first, logs, orders, errors)
    out = []
    for j in range(k):
        if errors[j]:
            raise ValueError(f"round {int(idx[j])} (seed {seed}): {moves.message(errors[j])}")
        f = first if first >= 0 else int(idx[j]) % r.players
        out.append(record_of(r, [deck[p] for p in orders[j]], logs[j], f))
    return out
