"""Legality, apply and the end checks: every rule a turn follows (SPEC §2 and §5.1).

``check(st, move)`` names the first rule a move breaks (an ``Illegal`` code) and
changes nothing; ``apply(st, move)`` plays a legal move, runs the end checks in
the order deck, stall, hand-empty, capped, and passes the turn on, or stops
the round with the move's code.  Plays are checked and applied without a
branch on the move (a random policy makes such branches unpredictable).
"""
from __future__ import annotations

import numpy as np

from lostcards.engine.intrinsics import as_bytes, offset
from lostcards.engine.layout import (
    PILE_NO_POP,
    PILE_NO_PUSH,
    R_ALL,
    R_CARDS,
    R_PASS_MIN,
    R_PASS_TWICE,
    R_PLAYERS,
    R_SIMPLE,
    R_STALL_END,
    R_SUITS,
    R_TURN_CAP,
    S_ACC,
    S_COUNTS,
    S_DECK_POS,
    S_ENDED,
    S_ERROR,
    S_EXP,
    S_NONEMPTY,
    S_ORDER,
    S_PASSED,
    S_PILE,
    S_PILE_COPY,
    S_SEAT,
    S_SIZES,
    S_STALL,
    S_TURN,
)
from lostcards.engine.moves import (
    DRAW_DECK,
    DRAW_NONE,
    E_DECK_EMPTY,
    E_DRAW_BACK,
    E_EMPTY_PILE,
    E_EXPEDITION_REFUSES,
    E_NO_DRAW,
    E_NO_SUCH_PILE,
    E_NOT_A_MOVE,
    E_NOT_HELD,
    E_PASS_HAND_SMALL,
    E_PASS_NOT_FOUR,
    E_PASS_NOT_HELD,
    E_PASS_TWICE,
    E_ROUND_OVER,
    E_SOLITAIRE_PILE,
    TO_EXPEDITION,
    is_pass,
    malformed,
    move_card,
    move_card2,
    move_draw,
    move_to,
    plain_play,
)
from lostcards.engine.state import (
    CLOSES,
    END_CAPPED,
    END_DECK,
    END_HAND_EMPTY,
    END_ILLEGAL,
    END_NONE,
    END_STALL,
    HI_BASE,
    K_DECK,
    K_DISCARDS,
    K_PASSES,
    K_PILE,
    K_PLAYS,
    add_card,
    card_bit,
    card_word,
    deck_left,
    draw_options,
    ended,
    forget,
    hand_at,
    hand_size,
    holds,
    know,
    known_at,
    reached_at,
    remove_card,
    suit_of,
)
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

_I = np.int64

@jit(inline=True)
def end_checks(st, deck_emptied, fast, players=0):
    """Deck, stall, hand-empty, capped: in that order, after every turn (docs/engine.md).
    (R_STALL_END and R_TURN_CAP hold a huge number when there is no such limit; `players`:
    st[R_PLAYERS] when 0, else that constant.)"""
    stall = _I(st[S_STALL] >= st[R_STALL_END])
    solo = (st[R_PLAYERS] == 1) if players == 0 else (players == 1)
    empty = _I(solo) & _I((st[hand_at(0, 0, 0)] if fast else st[S_SIZES]) == 0)
    cap = _I(st[S_TURN] >= st[R_TURN_CAP])
    if (_I(deck_emptied) | stall | empty | cap) != 0:       # one branch, rarely taken
        if deck_emptied:
            st[S_ENDED] = END_DECK
        elif stall:
            st[S_ENDED] = END_STALL
        elif empty:
            st[S_ENDED] = END_HAND_EMPTY
        else:
            st[S_ENDED] = END_CAPPED


@jit(inline=True)
def _next_seat(st, players=0):
    """The next seat to move (`players`: st[R_PLAYERS] when 0, else that constant)."""
    n = st[R_PLAYERS] if players == 0 else players
    st[S_SEAT] = (st[S_SEAT] + 1) & (n - 1)     # players is 1, 2 or 4


@jit(inline=True)
def _decoded(m, fast):
    """A play's fields as the check and the apply both use them (one computation, shared):
    card (0 when out of range), its word and bit, suit, slot, discard flag, draw."""
    card = move_card(m)
    valid = _I(card < (HI_BASE if fast else 72))
    c = card & -valid
    suit = suit_of(c)
    w = 0 if fast else card_word(c)
    b = (_I(1) << c) if fast else card_bit(c)
    return valid, c, w, b, suit, c - SLOTS * suit, move_to(m), move_draw(m)


@jit(inline=True)
def _play_ok(st, seat, m, fast, players=0):
    """1 if a play is legal, computed without a branch on the move (a random policy makes
    such branches unpredictable); _play_error names the rule when it is not.  `fast`: the
    ruleset is simple (R_SIMPLE), a constant after inlining; `players` (a constant) 2: two
    players, 0: read from the state."""
    valid, c, w, b, suit, slot, disc, draw = _decoded(m, fast)
    hand = st[hand_at(seat, 0, w)]
    if not fast:
        hand |= st[hand_at(seat, 1, w)]
    # held, and taken by the expedition unless it is discarded
    placed = (hand & (st[S_ACC + 2 * (seat & 1) + w] | -disc)) & b
    return valid & _I(placed != 0) & (draw_options(st, suit, disc, players) >> draw) & 1


@jit(inline=True)
def in_deck(st, card):
    """True if `card` (any int) is a card of this ruleset's deck."""
    return 0 <= card < 72 and st[R_ALL + card_word(card)] & card_bit(card) != 0


@jit
def _play_error(st, seat, m):
    """The rule an illegal play breaks (0 if it is legal)."""
    players = st[R_PLAYERS]
    card = move_card(m)
    if not in_deck(st, card):
        return E_NOT_A_MOVE
    w = card_word(card)
    b = card_bit(card)
    if (st[hand_at(seat, 0, w)] | st[hand_at(seat, 1, w)]) & b == 0:
        return E_NOT_HELD
    to = move_to(m)
    if to == TO_EXPEDITION and st[S_ACC + 2 * (seat & 1) + w] & b == 0:
        return E_EXPEDITION_REFUSES
    draw = move_draw(m)
    if players > 1:
        if draw == DRAW_DECK:
            if deck_left(st) <= 0:
                return E_DECK_EMPTY
        elif draw == DRAW_NONE:
            return E_NO_DRAW
        else:
            ds = draw - 1
            if ds >= st[R_SUITS]:
                return E_NO_SUCH_PILE
            if to != TO_EXPEDITION and ds == suit_of(card):
                return E_DRAW_BACK
            if (st[S_NONEMPTY] >> ds) & 1 == 0:
                return E_EMPTY_PILE
    elif draw == DRAW_DECK:
        if deck_left(st) <= 0:
            return E_DECK_EMPTY
    elif draw != DRAW_NONE:
        return E_SOLITAIRE_PILE
    return 0


@jit(inline=True)
def pass_held(st, seat, m):
    """True if the seat holds the two cards of pass `m` (two copies when both are one card)."""
    c1 = move_card(m)
    c2 = move_card2(m)
    if c1 == c2:
        return holds(st, seat, c1) >= 2
    return holds(st, seat, c1) > 0 and holds(st, seat, c2) > 0


@jit(inline=True)
def _check_pass(st, seat, m):
    """SPEC §5.1's order: 4 players; two held cards (copies counted); the hand; not twice."""
    if st[R_PLAYERS] != 4:
        return E_PASS_NOT_FOUR
    if not (in_deck(st, move_card(m)) and in_deck(st, move_card2(m))):
        return E_NOT_A_MOVE
    if not pass_held(st, seat, m):
        return E_PASS_NOT_HELD
    if hand_size(st, seat) < st[R_PASS_MIN]:
        return E_PASS_HAND_SMALL
    if st[R_PASS_TWICE] == 0 and (st[S_PASSED] >> seat) & 1:
        return E_PASS_TWICE
    return 0


@jit(inline=True)
def check(st, m):
    """0 if the seat to move may make move `m` now, else its Illegal code; changes nothing."""
    if st[R_SIMPLE] != 0:
        return check_as(st, m, True)
    return check_as(st, m, False)


@jit(inline=True)
def check_as(st, m, fast):
    """check(); `fast` must be st[R_SIMPLE] != 0 (a constant after inlining)."""
    if ended(st):
        return E_ROUND_OVER
    if malformed(m):
        return E_NOT_A_MOVE
    if is_pass(m):
        return _check_pass(st, st[S_SEAT], m)
    if _play_ok(st, st[S_SEAT], m, fast) != 0:
        return 0
    return _play_error(st, st[S_SEAT], m)


@jit(inline=True)
def _do_play(st, seat, m, fast, two=False):
    """A legal play.  Both ways of the play (expedition or discard) and of the draw (deck,
    pile or nothing) are computed and the right one kept with masks: no branch on the move.
    `fast` (a constant after inlining; R_SIMPLE): one card word, no second copies, at most 2
    players, so the second words, the copy planes and the pass bookkeeping are left out.
    `two` (a constant): 2 players, so a legal play always draws, off the deck or a pile."""
    players = 2 if two else st[R_PLAYERS]
    valid, card, w, b, suit, slot, disc, draw = _decoded(m, fast)
    copy = 0
    if not fast:
        copy = remove_card(st, seat, card)
        forget(st, seat, 0, card)
        if players == 4:
            forget(st, seat, 1, card)
    # to the expedition: lay it; a number closes its slot and all below, investments included
    me = disc - 1
    side = seat & 1
    st[S_EXP + 2 * side + w] |= b & me
    st[S_ACC + 2 * side + w] &= ~(CLOSES[card] & me)
    # a discard goes onto its pile (solitaire: out of the game); piles are stacks of slot + 1.
    # A turn that pushes or pops nothing works on a dummy pile, so there is no select
    push = disc & _I(players > 1)
    mp = -push
    ps = (suit & mp) | (PILE_NO_PUSH & ~mp)
    i = S_PILE + 2 * ps
    lo = st[i]
    st[i] = (lo << 4) | (slot + 1)
    if not fast:                        # a simple ruleset's piles never pass 12 cards
        st[i + 1] = (st[i + 1] << 4) | ((lo >> 60) & 15)
        st[S_PILE_COPY + ps] = (st[S_PILE_COPY + ps] << 1) | copy
    # the draw: off a pile, off the deck, or nothing (solitaire once the deck is gone)
    pos = st[S_DECK_POS]
    from_pile = _I((draw >= 1) & (draw <= 6))
    if two:
        from_deck = _I(draw == DRAW_DECK)
    else:
        from_deck = _I((draw == DRAW_DECK) | ((draw == DRAW_NONE) & (pos < st[R_CARDS])))
    mpl = -from_pile
    ds = ((draw - 1) & mpl) | (PILE_NO_POP & ~mpl)
    j = S_PILE + 2 * ds
    plo = st[j]
    pslot = (plo & 15) - 1
    nlo = (plo >> 4) & 0x0FFFFFFFFFFFFFFF
    pcw = _I(0)
    if not fast:
        phi = st[j + 1]
        nlo |= (phi & 15) << 60
        st[j + 1] = phi >> 4
        pcw = st[S_PILE_COPY + ds]
        st[S_PILE_COPY + ds] = pcw >> 1
    st[j] = nlo
    st[S_NONEMPTY] = (st[S_NONEMPTY] | (push << suit)) & ~(_I(nlo == 0) << ds) & 63
    e = _I(as_bytes(offset(st, S_ORDER))[pos])     # bytes past the deck are card 0
    new = ((SLOTS * ds + pslot) & mpl) | ((e & 127) & ~mpl)
    drew = from_pile | from_deck
    st[S_DECK_POS] = pos + from_deck
    if not fast:                        # a card played (counted by _remove), perhaps one drawn
        st[S_SIZES] += drew << (8 * seat)
    if fast:
        nb = (_I(1) << new) & -drew
        h = hand_at(seat, 0, 0)
        st[h] = (st[h] ^ b) | nb
        st[reached_at(seat, 0, 0)] |= nb
        # every other seat saw a card taken off a pile; one played leaves what it knew
        k = known_at(seat, 0, 0, 0)
        st[k] = (st[k] & ~b) | (nb & mpl)
        # 2 players: every play draws, so pile draws are plays - deck draws (results)
        st[S_COUNTS + 2 * seat] += K_PLAYS + (disc << K_DISCARDS) + (from_deck << K_DECK)
    else:
        new_copy = ((pcw & 1) & mpl) | ((e >> 7) & ~mpl)
        nw = card_word(new)
        nb = card_bit(new) & -drew
        st[hand_at(seat, new_copy, nw)] |= nb
        st[reached_at(seat, new_copy, nw)] |= nb
        kb = nb & mpl
        for view in range(2 if players == 4 else 1):
            i1 = known_at(seat, view, 0, nw)
            k1 = st[i1]
            st[i1 + 2] |= k1 & kb
            st[i1] = k1 | kb
        k = S_COUNTS + 2 * seat
        st[k] += K_PLAYS + (disc << K_DISCARDS) + (from_deck << K_DECK)
        st[k + 1] += from_pile * K_PILE
        st[S_PASSED] &= ~(_I(1) << seat)
    # a stall turn discards and draws off a pile; any other play resets the count
    st[S_STALL] = (st[S_STALL] + 1) * (disc & from_pile)
    st[S_TURN] += 1
    end_checks(st, (players > 1) & (from_deck == 1) & (pos + 1 == st[R_CARDS]), fast, 2 if two else 0)


@jit(inline=True)
def _do_pass(st, seat, m):
    partner = seat ^ 2
    for card in (move_card(m), move_card2(m)):
        copy = remove_card(st, seat, card)
        forget(st, seat, 0, card)
        forget(st, seat, 1, card)
        add_card(st, partner, card, copy)
        know(st, partner, 1, card)     # the passer knows its partner holds it
    st[S_PASSED] |= _I(1) << seat
    st[S_COUNTS + 2 * seat + 1] += K_PASSES
    st[S_TURN] += 1
    end_checks(st, False, False)


@jit(inline=True)
def apply(st, m):
    """Play move `m` for the seat to move: 0 and the turn is done (the round may end), or an
    Illegal code and nothing changed but the error word (the round stops there)."""
    if st[R_SIMPLE] != 0:
        return apply_as(st, m, True)
    return apply_as(st, m, False)


@jit(inline=True)
def apply_as(st, m, fast):
    """apply(); `fast` must be st[R_SIMPLE] != 0 (a constant after inlining)."""
    seat = st[S_SEAT]
    if fast:
        # a simple ruleset has no passes: a legal move is a play with no other bit set, and
        # one test (one branch, always taken) lets it through; anything else is named below
        if plain_play(m) & (st[S_ENDED] == END_NONE) & (_play_ok(st, seat, m, True) != 0):
            _do_play(st, seat, m, True)
            if st[S_ENDED] == END_NONE:
                _next_seat(st)
            return 0
        return _refuse(st, m)
    err = check_as(st, m, False)
    if err != 0:
        return _refuse(st, m)
    if is_pass(m):
        _do_pass(st, seat, m)
    else:
        _do_play(st, seat, m, False)
    if st[S_ENDED] == END_NONE:
        _next_seat(st)
    return 0


@jit(inline=True)
def apply_simple2(st, m):
    """apply() for a simple ruleset with 2 players (the caller knows it): the rules' tests
    on the player count are constants, the rest is apply_as(st, m, True)."""
    seat = st[S_SEAT]
    if plain_play(m) & (st[S_ENDED] == END_NONE) & (_play_ok(st, seat, m, True, 2) != 0):
        _do_play(st, seat, m, True, True)
        if st[S_ENDED] == END_NONE:
            _next_seat(st, 2)
        return 0
    return _refuse(st, m)


@jit
def step(st, m):
    """``apply``, as one function that its callers share instead of inlining (a bot's play-outs,
    the analysis): one copy of the rules core in their code."""
    return apply(st, m)


@jit
def _refuse(st, m):
    """An illegal move: the round stops with its code (nothing else changes); returns it.
    (The general check has the last word: a move the fast test refused that it allows is
    played the general way.)"""
    err = check_as(st, m, False)
    if err == 0:
        if is_pass(m):
            _do_pass(st, st[S_SEAT], m)
        else:
            _do_play(st, st[S_SEAT], m, False)
        if st[S_ENDED] == END_NONE:
            _next_seat(st)
        return 0
    if not ended(st):
        st[S_ERROR] = err
        st[S_ENDED] = END_ILLEGAL
    return err

