"""The batch loop: many rounds in flight per worker, one decider call a side per step.

Each chunk of rows (``play_chunk``, which releases the GIL, so the runner's
threads play chunks side by side) keeps ``K`` rounds in flight.  A step asks side A's decider
to play a turn in every round where a side-A seat is to move, then side B's
(the decider observes and asks its policy), then checks and applies every move
(an illegal move stops that round with its code); a finished round writes its
statistics row and the slot gets the next round.
Rounds never share anything but the rules, so every result is a function of
(seed, round index) alone, whatever ``K`` or the number of threads.

The same loop, with a turn log, plays chosen rounds again for records
(``runner.log_rounds``: ``logs`` and ``orders`` with rows).
"""
from __future__ import annotations

import numpy as np
from numba import types

from lostcards.engine.core import (
    END_ILLEGAL,
    apply,
    apply_simple2,
    deal,
    ended,
    expedition_score,
    lane_count,
    lane_investments,
    lane_of,
    lane_sum,
    load_rules,
)
from lostcards.engine.intrinsics import alive, as_bytes, load_relaxed, offset, ptr
from lostcards.engine.layout import (
    COUNTS,
    COUNTS2,
    R_BONUS_CARDS,
    R_BONUS_POINTS,
    R_CARDS,
    R_COST,
    R_NUMBERS,
    R_PLAYERS,
    R_SIMPLE,
    R_SUITS,
    S_COUNTS,
    S_DEALT,
    S_ENDED,
    S_ERROR,
    S_EXP,
    S_FIRST,
    S_ORDER,
    S_REACHED,
    S_SEAT,
    S_TURN,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.moves import E_LOG_FULL
from lostcards.engine.policy import DecideType
from lostcards.numba_cache import jit

K_DEFAULT = 16
_I = np.int64
_F_PLAYS, _F_DISCARDS, _F_DECK = COUNTS.field("plays", "discards", "deck")
_F_PILE, _F_PASSES = COUNTS2.field("pile", "passes")


@jit(inline=True)
def _f(word, f):
    return (word >> f[0]) & f[1]


@jit(inline=True)
def _results(st, row, p_round, p_seat, p_suit, p_side):
    """One finished round into the statistics arrays (runner.Batch's columns) at `row`."""
    players = st[R_PLAYERS]
    suits = st[R_SUITS]
    sides = 1 if players == 1 else 2
    err = st[S_ERROR]
    q = row * 5
    p_round[q] = st[S_FIRST]
    p_round[q + 1] = st[S_TURN]
    p_round[q + 2] = st[S_ENDED] if err == 0 else -err - 1     # runner.Batch: -code - 1
    p_round[q + 4] = 0
    for sd in range(sides):
        lo = st[S_EXP + 2 * sd]
        hi = st[S_EXP + 2 * sd + 1]
        tot = 0
        for s in range(suits):
            ln = lane_of(lo, hi, s)
            sc = expedition_score(ln, st[R_COST], st[R_BONUS_CARDS], st[R_BONUS_POINTS])
            q = ((row * sides + sd) * suits + s) * 3
            p_side[q] = lane_count(ln)
            p_side[q + 1] = lane_investments(ln)
            p_side[q + 2] = sc
            tot += sc
        p_round[row * 5 + 3 + sd] = tot
    nlo = st[R_NUMBERS]
    nhi = st[R_NUMBERS + 1]
    for seat in range(players):
        c0 = st[S_COUNTS + 2 * seat]
        c1 = st[S_COUNTS + 2 * seat + 1]
        q = (row * players + seat) * 5
        p_seat[q] = _f(c0, _F_PLAYS)
        p_seat[q + 1] = _f(c0, _F_DISCARDS)
        p_seat[q + 2] = _f(c0, _F_DECK)
        # simple rulesets do not count pile draws: with 2 players every play draws
        if st[R_SIMPLE] != 0:
            p_seat[q + 3] = (_f(c0, _F_PLAYS) - _f(c0, _F_DECK)) * (players > 1)
        else:
            p_seat[q + 3] = _f(c1, _F_PILE)
        p_seat[q + 4] = _f(c1, _F_PASSES)
        for s in range(suits):
            q = ((row * players + seat) * suits + s) * 4
            for k in range(2):              # held (dealt), then reached
                base = (S_DEALT if k == 0 else S_REACHED) + seat * 4
                a = lane_of(st[base] & nlo, st[base + 1] & nhi, s)
                n = lane_count(a)
                t = lane_sum(a)
                if st[R_SIMPLE] == 0:       # second copies (a simple ruleset has none)
                    b = lane_of(st[base + 2] & nlo, st[base + 3] & nhi, s)
                    n += lane_count(b)
                    t += lane_sum(b)
                p_suit[q + 2 * k] = n
                p_suit[q + 2 * k + 1] = t


@jit(inline=True)
def _first(first_mode, r, players):
    return first_mode if first_mode >= 0 else r % players


@jit(nogil=True)
def play_chunk(rb, seed, start, ids, row0, row1, first_mode, dec_a, params_a, dec_b, params_b, k_slots,
               out_round, out_seat, out_suit, out_side, logs, orders, pid_of, errors, stop):
    """Play rows row0..row1-1 (round start + row, or ids[row]) with k_slots rounds in flight.

    Statistics go to the out_* arrays (when they have rows), move logs and dealt
    orders to logs / orders (when they have rows; logs[row] ends with -1).  It
    returns early, leaving rows unplayed, once another thread sets ``stop[0]``
    (an interrupt).  The GIL is released: threads play chunks side by side."""
    n = row1 - row0
    if n <= 0:
        return
    k = min(k_slots, n)
    players = rb[R_PLAYERS]
    stats = out_round.shape[0] > 0
    logging = logs.shape[0] > 0
    cap = logs.shape[1]
    n_cards = rb[R_CARDS]
    states_a = np.zeros(k * STATE_WORDS, np.int64)
    mems_a = np.zeros(k * SLOT_MEM_WORDS, np.uint64)
    moves_a = np.zeros(k, np.int64)
    list_a = np.zeros(k, np.int64)
    join_a = np.zeros(k, np.int64)
    rows_a = np.zeros(k, np.int64)
    done_a = np.zeros(k, np.int64)
    states = ptr(states_a)
    mems = ptr(mems_a)
    moves = ptr(moves_a)
    slots = ptr(list_a)
    join = ptr(join_a)
    rows = ptr(rows_a)
    done = ptr(done_a)
    simple2 = rb[R_SIMPLE] != 0 and players == 2
    p_rb = ptr(rb)
    p_round = ptr(out_round)
    p_seat = ptr(out_seat)
    p_suit = ptr(out_suit)
    p_side = ptr(out_side)
    p_log = ptr(logs)
    p_order = ptr(orders)
    p_pid = ptr(pid_of)
    p_err = ptr(errors)
    p_ids = ptr(ids)
    pp_a = ptr(params_a)
    pp_b = ptr(params_b)
    p_stop = ptr(stop)
    by_id = ids.shape[0] > 0
    # Every round in the list has a seat of side `step & 1` to move (solitaire: side 0), so a
    # step is one decider call; a round dealt with the other side to move waits a step.
    # join[s]: the step at which slot s plays next (-1: no round left for it).
    nxt = row0
    live = k
    for s in range(k):
        st = offset(states, s * STATE_WORDS)
        load_rules(st, p_rb)
        r = p_ids[nxt] if by_id else start + nxt
        deal(st, offset(mems, s * SLOT_MEM_WORDS), seed, r, _first(first_mode, r, players), 0)
        rows[s] = nxt
        nxt += 1
        join[s] = st[S_SEAT] & 1 if players > 1 else 0
    step = _I(0)
    n_list = _I(0)
    rebuild = _I(0)                      # the step at which the list must be built again
    while live > 0:
        if load_relaxed(p_stop) != 0:
            break
        if step >= rebuild:
            n_list = 0
            rebuild = _I(1) << 62
            for s in range(k):
                j = join[s]
                if j >= 0:
                    if j <= step:
                        slots[n_list] = s
                        n_list += 1
                    elif j < rebuild:
                        rebuild = j
        side = step & 1 if players > 1 else 0
        if n_list > 0:
            if side == 0:
                dec_a(states, mems, slots, n_list, pp_a, moves)
            else:
                dec_b(states, mems, slots, n_list, pp_b, moves)
        if logging:
            n_done = _I(0)
            for i in range(n_list):
                s = slots[i]
                st = offset(states, s * STATE_WORDS)
                m = moves[s]
                t = st[S_TURN]
                if t >= cap:
                    st[S_ERROR] = E_LOG_FULL
                    st[S_ENDED] = END_ILLEGAL
                else:
                    p_log[rows[s] * cap + t] = m
                    apply(st, m)
                done[n_done] = s
                n_done += _I(ended(st))
        else:
            n_done = n_list
        for i in range(n_done):
            s = done[i] if logging else slots[i]
            st = offset(states, s * STATE_WORDS)
            if not logging:
                if simple2:
                    apply_simple2(st, moves[s])
                else:
                    apply(st, moves[s])
                if not ended(st):
                    continue
            rebuild = step + 1
            more = _I(nxt < row1)
            _round_over(st, s, step, nxt, more, stats, logging, cap, n_cards, rows, join, p_round, p_seat,
                        p_suit, p_side, p_log, p_order, p_pid, p_err, p_ids, by_id, start, mems, seed,
                        first_mode, players)
            nxt += more
            live -= 1 - more
        step += 1
    # numba frees an array after its last use, and the pointers above are not uses: touch the
    # buffers here so that they live to the end (a policy's own allocations would reuse them)
    alive(states_a)
    alive(mems_a)
    alive(moves_a)
    alive(list_a)
    alive(join_a)
    alive(rows_a)
    alive(done_a)


@jit
def _round_over(st, s, step, nxt, more, stats, logging, cap, n_cards, rows, join, p_round, p_seat, p_suit,
                p_side, p_log, p_order, p_pid, p_err, p_ids, by_id, start, mems, seed, first_mode, players):
    """A round over in slot s: its results (and log), then round `nxt` dealt into the slot when
    `more` (else the slot is left empty).  A function of its own, called once a round: the
    per-turn loop around it keeps fewer values alive."""
    row = rows[s]
    if stats:
        _results(st, row, p_round, p_seat, p_suit, p_side)
    if logging:
        _log_end(st, row, cap, n_cards, p_log, p_order, p_pid, p_err)
    if more == 0:
        join[s] = -1
        return
    r = p_ids[nxt] if by_id else start + nxt
    deal(st, offset(mems, s * SLOT_MEM_WORDS), seed, r, _first(first_mode, r, players), 0)
    rows[s] = nxt
    t = step + 1
    if players > 1 and (t & 1) != (st[S_SEAT] & 1):
        t += 1
    join[s] = t


@jit(inline=True)
def _log_end(st, row, cap, n_cards, p_log, p_order, p_pid, p_err):
    """A logged round's end: -1 after its last move, its dealt order (physical ids)."""
    for i in range(st[S_TURN], cap):      # an illegal move is not kept: its code is
        p_log[row * cap + i] = -1          # in `errors`
    order = as_bytes(offset(st, S_ORDER))
    for i in range(n_cards):
        p_order[row * n_cards + i] = p_pid[order[i]]
    p_err[row] = st[S_ERROR]


CHUNK_SIG = types.void(
    types.int64[::1], types.int64, types.int64, types.int64[::1], types.int64, types.int64, types.int64,
    DecideType, types.float64[::1], DecideType, types.float64[::1], types.int64,
    types.int64[:, ::1], types.int32[:, :, ::1], types.int16[:, :, :, ::1], types.int16[:, :, :, ::1],
    types.int64[:, ::1], types.int32[:, ::1], types.int16[::1], types.int64[::1], types.int64[::1])
