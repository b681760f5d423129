"""The numba batch loops: many rounds in parallel, each dealt and played from (seed, round) alone.

``run_batch`` fills per-round output arrays; ``record_rounds`` plays chosen rounds
again with a move log.  Policies are first-class functions of one type
(``POLICY_SIGNATURE``), so these loops compile once for every policy.
"""
from __future__ import annotations

import numpy as np
from numba import njit, prange, types

from lostcards.engine.core import (
    END_NONE,
    NMAX,
    S_ENDED,
    S_ORDER,
    S_REACHED,
    S_STATS,
    S_TURN,
    apply_move,
    can_pass,
    deal,
    expedition_score,
    new_state_nb,
)
from lostcards.engine.observation import NSUITS, O_CAN_PASS, O_EXP_COUNT, O_EXP_INV, O_EXP_SUM
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import P_HAND, P_PLAYERS, P_SUITS

# A policy's type: obs row, its parameters, its random stream -> move.  The
# batch loops take policies as first-class functions of this one type, so they
# compile once and load from numba's cache for every policy, built-in or not.
POLICY_SIGNATURE = types.int64(types.int32[::1], types.float64[::1], types.uint64[::1])
PolicyType = types.FunctionType(POLICY_SIGNATURE)


@njit  # not cached on its own: it is specialised on its policies; the batch loops cache it
def play_round(P, pid_code, seed, round_index, first, policy_a, pp_a, policy_b, pp_b,
               S, O, rng, log):
    """Deal and play one round; returns 0 or an error code.  `log` (int64, may be
    empty) receives each move."""
    deal(P, pid_code, seed, round_index, S, O, rng)
    players = P[P_PLAYERS]
    seat = first
    logging = log.shape[0] > 0
    while S[S_ENDED] == END_NONE:
        O[seat, O_CAN_PASS] = 1 if can_pass(P, S, O, seat) else 0
        if seat & 1:
            move = policy_b(O[seat], pp_b, rng[1 + seat])
        else:
            move = policy_a(O[seat], pp_a, rng[1 + seat])
        if logging:
            if S[S_TURN] >= log.shape[0]:
                return 8
            log[S[S_TURN]] = move
        err = apply_move(P, pid_code, S, O, seat, move)
        if err != 0:
            return err
        seat = seat + 1 if seat + 1 < players else 0
    return 0


@njit(cache=True)
def round_results(P, pid_code, S, O, row, first, err, out_round, out_seat, out_suit, out_side):
    """Write one finished round into the batch's output arrays at `row`."""
    players = P[P_PLAYERS]
    suits = P[P_SUITS]
    n_cards = pid_code.shape[0]
    out_round[row, 0] = first
    out_round[row, 1] = S[S_TURN]
    out_round[row, 2] = S[S_ENDED] if err == 0 else -err - 1
    out_round[row, 4] = 0
    for side in range(2 if players > 1 else 1):
        total = 0
        for s in range(suits):
            xi = side * NSUITS + s
            score = expedition_score(P, O[0, O_EXP_SUM + xi], O[0, O_EXP_INV + xi], O[0, O_EXP_COUNT + xi])
            out_side[row, side, s, 0] = O[0, O_EXP_COUNT + xi]
            out_side[row, side, s, 1] = O[0, O_EXP_INV + xi]
            out_side[row, side, s, 2] = score
            total += score
        out_round[row, 3 + side] = total
    h = P[P_HAND]
    off = n_cards - n_cards // 2 if players == 1 else 0
    for seat in range(players):
        for k in range(5):
            out_seat[row, seat, k] = S[S_STATS + seat * 5 + k]
        for s in range(suits):
            for k in range(4):
                out_suit[row, seat, s, k] = 0
        for k in range(h):
            code = pid_code[S[S_ORDER + off + seat * h + k]]
            if code % SLOTS >= 3:
                out_suit[row, seat, code // SLOTS, 0] += 1
                out_suit[row, seat, code // SLOTS, 1] += code % SLOTS - 1
        for p in range(n_cards):
            code = pid_code[p]
            if code % SLOTS >= 3 and S[S_REACHED + seat * NMAX + p]:
                out_suit[row, seat, code // SLOTS, 2] += 1
                out_suit[row, seat, code // SLOTS, 3] += code % SLOTS - 1


_BATCH_SIG = types.void(
    types.int64[::1], types.int16[::1], types.int64, types.int64, types.int64, types.int64,
    PolicyType, types.float64[::1], PolicyType, types.float64[::1],
    types.int64[:, ::1], types.int32[:, :, ::1], types.int16[:, :, :, ::1], types.int16[:, :, :, ::1],
    types.int64)


@njit(_BATCH_SIG, cache=True, parallel=True)
def run_batch(P, pid_code, seed, start, n, first_mode, policy_a, pp_a, policy_b, pp_b,
              out_round, out_seat, out_suit, out_side, chunks):
    """Play rounds start .. start+n-1 in `chunks` parallel pieces into the out arrays.

    first_mode >= 0: that seat starts every round; -1: round i starts with seat i mod players.
    """
    players = P[P_PLAYERS]
    per = (n + chunks - 1) // chunks
    empty = np.zeros(0, np.int64)
    for c in prange(chunks):
        S, O, rng = new_state_nb()
        for row in range(c * per, min(n, c * per + per)):
            r = start + row
            first = first_mode if first_mode >= 0 else r % players
            err = play_round(P, pid_code, seed, r, first, policy_a, pp_a, policy_b, pp_b,
                             S, O, rng, empty)
            round_results(P, pid_code, S, O, row, first, err, out_round, out_seat, out_suit, out_side)


_RECORD_SIG = types.void(
    types.int64[::1], types.int16[::1], types.int64, types.int64[::1], types.int64,
    PolicyType, types.float64[::1], PolicyType, types.float64[::1],
    types.int64[:, ::1], types.int32[:, ::1], types.int64[::1], types.int64)


@njit(_RECORD_SIG, cache=True, parallel=True)
def record_rounds(P, pid_code, seed, rounds, first_mode, policy_a, pp_a, policy_b, pp_b,
                  logs, orders, errors, chunks):
    """Play the given round indices again with a turn log, in `chunks` parallel
    pieces: moves into `logs` (-1 after the last), the shuffled deck (physical
    ids) into `orders`, error codes into `errors`."""
    players = P[P_PLAYERS]
    n_cards = pid_code.shape[0]
    n = rounds.shape[0]
    per = (n + chunks - 1) // chunks
    for c in prange(chunks):
        S, O, rng = new_state_nb()
        for k in range(c * per, min(n, c * per + per)):
            r = rounds[k]
            first = first_mode if first_mode >= 0 else r % players
            errors[k] = play_round(P, pid_code, seed, r, first, policy_a, pp_a, policy_b, pp_b,
                                   S, O, rng, logs[k])
            for i in range(n_cards):
                orders[k, i] = S[S_ORDER + i]
            t = S[S_TURN]
            if t < logs.shape[1]:
                logs[k, t:] = -1
