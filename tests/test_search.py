"""The `search` bot (information-set MCTS): legal everywhere, reproducible, honest determinizations,
a budget that holds, and stronger than `random`."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import rulesets

import lostcards
from lostcards.engine import core
from lostcards.engine.determinize import POOL_MAX, base_from_obs, hidden_pool, needs, sample
from lostcards.engine.intrinsics import offset, ptr
from lostcards.engine.layout import (
    MEM_WORDS,
    R_CANON,
    R_CARDS,
    R_SIMPLE,
    S_DECK_POS,
    S_EXP,
    S_HAND,
    S_KNOWN,
    S_ORDER,
    S_PILE,
    S_SEAT,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.moves import TO_DISCARD, move_card, move_to
from lostcards.engine.observation import deck_size, players
from lostcards.numba_cache import jit
from lostcards.policies.random import random_policy
from lostcards.policies.search import ISMCTS
from lostcards.rules.cards import SLOTS, deck_codes
from lostcards.run.runner import play, play_records

CASES = [("expeditions", 2), ("expeditions", 4), ("expeditions", 1),
         ("lost-cities", 2), ("lost-cities", 4), ("lost-cities", 1)]
QUICK = ISMCTS.with_params("iterations=40")


def _ids(c):
    return f"{c[0]}-{c[1]}p"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_legal_in_every_player_count_and_ruleset(case):
    r = lostcards.rules(case[0], players=case[1])
    info = play(r, QUICK, "random", 6, 11, first=-1).round_info
    assert (info[:, 2] >= 0).all(), "a round stopped on an illegal move"
    assert (info[:, 2] != 3).all(), "a round ran to the turn cap"


def test_self_play_never_reaches_the_turn_cap():
    r = lostcards.rules("lost-cities", players=2)
    info = play(r, QUICK, QUICK, 8, 3, first=-1).round_info
    assert (info[:, 2] >= 0).all() and (info[:, 2] != 3).all()


def test_reproducible_from_the_seed():
    r = lostcards.rules("expeditions", players=2)
    a = play_records(r, QUICK, "random", range(3), 5)
    b = play_records(r, QUICK, "random", range(3), 5)
    c = play_records(r, QUICK, "random", range(3), 6)
    assert a == b
    assert a != c


def test_budget_in_iterations_changes_the_play():
    r = lostcards.rules("expeditions", players=2)
    one = ISMCTS.with_params("iterations=1")
    a = play_records(r, one, "random", range(3), 5)
    b = play_records(r, QUICK, "random", range(3), 5)
    assert a != b


def test_seconds_budget_stops_a_decision():
    """About 24 decisions of 2 ms each; a budget that did not stop would take hours (10 million iterations a
    decision), so the round ending at all is the check (the child's timeout is a hang guard, not a speed bound)."""
    import subprocess
    import sys
    code = ("import lostcards; from lostcards.run.runner import play; "
            "r = lostcards.rules('expeditions', players=1); "
            "print(int(play(r, 'search:iterations=10000000,seconds=0.002', None, 1, 2, threads=1).round_info[0, 2]))")
    try:
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    except subprocess.TimeoutExpired:
        pytest.fail("the seconds budget did not stop search's decisions (a round of 10 million iterations a move)")
    assert res.returncode == 0, res.stderr
    assert res.stdout.split()[-1] == "2"          # hand-empty: a whole legal round


def test_beats_random_clearly():
    r = lostcards.rules("expeditions", players=2)
    p = ISMCTS.with_params("iterations=100")
    a = play(r, p, "random", 20, 9, first=-1).round_info
    b = play(r, "random", p, 20, 9, first=-1).round_info
    margin = ((a[:, 3] - a[:, 4]) + (b[:, 4] - b[:, 3])).mean() / 2
    assert margin > 40


# ---- determinizations ------------------------------------------------------------------

@jit
def _probe(rb, seed, rnd, turns, work, par, mem_a, true_out, samples_out, discarded):
    """Deal, play `turns` random turns, then write the true state and determinizations of the
    seat to move (and, in solitaire, the cards it discarded).  Every buffer comes from the
    caller, so the raw pointers never outlive their arrays."""
    st = ptr(true_out)
    mem = ptr(mem_a)
    core.load_rules(st, ptr(rb))
    core.deal(st, mem, seed, rnd, 0, 0)
    params = ptr(par)
    for _ in range(turns):
        if core.ended(st):
            break
        s = core.seat_to_move(st)
        m = random_policy(core.observe_as(st, s, False), params, offset(mem, s * MEM_WORDS))
        if move_to(m) == TO_DISCARD:
            c = move_card(m)
            discarded[c // 60] |= np.int64(1) << (c % 60)
        core.apply(st, m)
    s = core.seat_to_move(st)
    if st[R_SIMPLE] != 0:
        _samples(core.observe_as(st, s, True), work, samples_out, discarded, mem)
    else:
        _samples(core.observe_as(st, s, False), work, samples_out, discarded, mem)


@jit
def _samples(obs, work, out, discarded, rng):
    base = ptr(work)
    used = offset(base, STATE_WORDS)
    need = offset(base, STATE_WORDS + 2)
    pool = offset(base, STATE_WORDS + 6)
    st = offset(base, STATE_WORDS + 6 + POOL_MAX)
    base_from_obs(base, obs, used)
    solo = (discarded[0], discarded[1]) if players(obs) == 1 else (np.int64(0), np.int64(0))
    n_pool = hidden_pool(obs, solo, used, pool)
    needs(obs, need)
    for j in range(out.shape[0]):
        sample(st, base, STATE_WORDS, pool, n_pool, need, deck_size(obs), rng)
        for i in range(STATE_WORDS):
            out[j, i] = st[i]


WORK = 2 * STATE_WORDS + 6 + POOL_MAX


def _codes(lo, hi):
    return core.codes_of(int(lo), int(hi))


def _hand(w, seat):
    out = Counter()
    for copy in (0, 1):
        i = S_HAND + (seat * 2 + copy) * 2
        out.update(_codes(w[i], w[i + 1]))
    return out


def _deck(w):
    b = np.asarray(w[S_ORDER:S_ORDER + 16], np.int64).view(np.uint8)
    return Counter(int(x) & 127 for x in b[int(w[S_DECK_POS]):int(w[R_CARDS])])


def _table(w, suits):
    out = Counter(_codes(w[S_EXP], w[S_EXP + 1]) + _codes(w[S_EXP + 2], w[S_EXP + 3]))
    for s in range(suits):
        lo, hi = int(w[S_PILE + 2 * s]) & (2 ** 64 - 1), int(w[S_PILE + 2 * s + 1]) & (2 ** 64 - 1)
        for k in range(32):
            e = ((lo if k < 16 else hi) >> (4 * (k % 16))) & 15
            if e == 0:
                break
            out[SLOTS * s + e - 1] += 1
    return out


def _known(w, holder, view):
    i = S_KNOWN + ((holder * 2 + view) * 2) * 2
    return Counter(_codes(w[i], w[i + 1]) + _codes(w[i + 2], w[i + 3]))


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_determinizations_agree_with_the_observation(case):
    r = lostcards.rules(case[0], players=case[1])
    rb = core.rules_block(r)
    full = Counter(deck_codes(r))
    p = r.players
    for rnd in range(6):
        for turns in (0, 7, 23, 41):
            true = np.zeros(STATE_WORDS, np.int64)
            samples = np.zeros((5, STATE_WORDS), np.int64)
            disc = np.zeros(2, np.int64)
            _probe(rb, 4, rnd, turns, np.zeros(WORK, np.int64), np.zeros(1), np.zeros(SLOT_MEM_WORDS, np.uint64), true,
                   samples, disc)
            if core.ended(true):
                continue
            me = int(true[S_SEAT])
            hidden_true = _deck(true)
            for o in range(p):
                if o != me:
                    hidden_true += _hand(true, o)
            for w in samples:
                assert (w[:R_CANON] == rb[:R_CANON]).all()     # the rules block, rebuilt from the observation
                assert _hand(w, me) == _hand(true, me)
                assert _table(w, r.suits) == _table(true, r.suits)
                assert sum(_deck(w).values()) == sum(_deck(true).values())
                hidden = _deck(w)
                for o in range(p):
                    if o == me:
                        continue
                    h = _hand(w, o)
                    assert sum(h.values()) == sum(_hand(true, o).values())
                    view = 1 if p == 4 and o == me ^ 2 else 0
                    assert not (_known(true, o, view) - h), "a card known in a hand is missing"
                    hidden += h
                if p > 1:
                    # the hidden cards are exactly the ones the seat cannot see: never one it saw
                    assert hidden == hidden_true
                    assert _table(w, r.suits) + _hand(w, me) + hidden == full
                else:
                    gone = Counter(_codes(disc[0], disc[1]))
                    assert not (hidden & gone), "a discarded card dealt again"
                    assert not (hidden - (full - _table(w, r.suits) - _hand(w, me) - gone))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(r=rulesets(), rnd=st.integers(0, 1000), turns=st.integers(0, 30))
def test_the_rules_rebuilt_from_an_observation_are_the_rules_block(r, rnd, turns):
    """A determinization plays under the rules block ``rules_from_obs`` rebuilds from what the seat sees:
    every word of ``rules_block`` but the deal-only canonical deck."""
    rb = core.rules_block(r)
    true = np.zeros(STATE_WORDS, np.int64)
    samples = np.zeros((1, STATE_WORDS), np.int64)
    _probe(rb, 9, rnd, turns, np.zeros(WORK, np.int64), np.zeros(1), np.zeros(SLOT_MEM_WORDS, np.uint64), true,
           samples, np.zeros(2, np.int64))
    if not core.ended(true):
        np.testing.assert_array_equal(samples[0, :R_CANON], rb[:R_CANON])
