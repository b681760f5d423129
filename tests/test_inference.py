"""Policy-based inference (engine.inference): the other seat's last move is read off the table
exactly, the state before it is rebuilt as the other seat saw it, and improve:infer plays."""
import numpy as np
import pytest

import lostcards
from lostcards.engine import core
from lostcards.engine.bits import popcount
from lostcards.engine.determinize import POOL_MAX, base_from_obs
from lostcards.engine.inference import believes, last_move, remember
from lostcards.engine.intrinsics import decide_address, offset, ptr
from lostcards.engine.layout import MEM_WORDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.moves import DRAW_DECK, move_card, move_draw, move_to
from lostcards.engine.observation import known
from lostcards.numba_cache import jit
from lostcards.policies import resolve
from lostcards.policies.expert import expert_policy
from lostcards.run.runner import play


@jit
def _probe(rb, seed, rnd, par, mem_a, work, decide_at, out):
    """Expert plays both seats of a round.  Before each of seat 1's moves the true state is kept;
    after it, seat 0 reads the move (``last_move``) and rebuilds the state before it
    (``believes``, on the true state as its determinization).  Row t of `out`: the move, whether it
    was read, the move read (card, to, draw, pile card), whether seat 1's observation before its
    move and the rebuilt one agree (deck draws: every word but the hand), and whether the two
    hands differ by at most the card drawn.  Returns the rows written."""
    st = ptr(work)
    pre = offset(st, STATE_WORDS)
    base = offset(st, 2 * STATE_WORDS)
    re = offset(st, 3 * STATE_WORDS)
    snap = offset(st, 4 * STATE_WORDS)
    lm = offset(st, 4 * STATE_WORDS + 16)
    used = offset(st, 4 * STATE_WORDS + 24)
    one = offset(st, 4 * STATE_WORDS + 32)
    mem = ptr(mem_a)
    smem = offset(mem, 4 * MEM_WORDS)
    rng = offset(mem, 4 * MEM_WORDS + SLOT_MEM_WORDS)
    params = ptr(par)
    core.load_rules(st, ptr(rb))
    core.deal(st, mem, seed, rnd, 0, 0)
    n = 0
    while not core.ended(st):
        s = core.seat_to_move(st)
        if s == 1:
            for w in range(STATE_WORDS):
                pre[w] = st[w]
        m = expert_policy(core.observe(st, s), params, offset(mem, s * MEM_WORDS))
        core.apply(st, m)
        if s == 0:
            remember(st, snap, move_card(m))
        elif not core.ended(st):
            obs = core.observe(st, 0)
            base_from_obs(base, obs, used)
            ok = last_move(obs, base, snap, lm)
            out[n, 0] = m
            out[n, 1] = ok
            for i in range(4):
                out[n, 2 + i] = lm[i]
            if ok:
                kn = known(obs, 1)[0]
                believes(st, re, snap, lm, kn, rng, smem, one, decide_at, params, seed, n)
                a = core.observe(pre, 1)
                b = core.observe(re, 1)
                same = True
                for i in range(len(a)):
                    if i != 7 and a[i] != b[i]:     # 7: the hand
                        same = False
                out[n, 6] = same
                diff = a[7] ^ b[7]
                out[n, 7] = diff == 0 or (move_draw(m) == DRAW_DECK and popcount(diff) == 2)
                out[n, 8] = a[7] == b[7]
            n += 1
    return n


@pytest.mark.parametrize("rules", ["expeditions", "lost-cities"])
def test_the_other_seats_move_is_read_and_the_state_before_it_rebuilt(rules):
    from lostcards.engine.rng import seed_stream
    rb = core.rules_block(lostcards.rules(rules, players=2))
    par = resolve("expert").params
    at = decide_address(expert_policy)
    deck_draws = piles = 0
    for rnd in range(12):
        mem = np.zeros(4 * MEM_WORDS + SLOT_MEM_WORDS + 4, np.uint64)
        seed_stream(mem[4 * MEM_WORDS + SLOT_MEM_WORDS:], 5, rnd, 9)
        work = np.zeros(4 * STATE_WORDS + 40 + POOL_MAX, np.int64)
        out = np.zeros((80, 9), np.int64)
        n = _probe(rb, 5, rnd, par, mem, work, at, out)
        assert n > 10
        for row in out[:n]:
            m = int(row[0])
            assert row[1] == 1, f"round {rnd}: seat 1's move {m} was not read"
            assert (row[2], row[3], row[4]) == (move_card(m), move_to(m), move_draw(m))
            assert row[6] == 1, f"round {rnd}: the rebuilt table is not the one seat 1 saw"
            assert row[7] == 1, f"round {rnd}: the rebuilt hand differs by more than the card drawn"
            if move_draw(m) == DRAW_DECK:       # it guesses which unknown card came off the deck
                deck_draws += 1
            else:                               # a pile draw is rebuilt exactly
                piles += 1
                assert row[8] == 1, f"round {rnd}: a pile draw's hand was not rebuilt exactly"
    assert deck_draws > 0 and piles > 0


@pytest.mark.parametrize("rules", ["expeditions", "lost-cities"])
def test_improve_believing_plays_legal_rounds_of_its_own(rules):
    r = lostcards.rules(rules, players=2)
    a = play(r, "improve:k=8,infer=0.2", "expert", 4, 3, first=-1).round_info
    b = play(r, "improve:k=8", "expert", 4, 3, first=-1).round_info
    assert (a[:, 2] >= 0).all(), "a round stopped on an illegal move"
    assert (a != b).any(), "believing changed no round"


@pytest.mark.parametrize("players", [1, 4])
def test_improve_deals_uniformly_where_it_cannot_believe(players):
    r = lostcards.rules("expeditions", players=players)
    a = play(r, "improve:k=4,infer=0.5", "expert" if players > 1 else None, 2, 3).round_info
    b = play(r, "improve:k=4", "expert" if players > 1 else None, 2, 3).round_info
    assert (a == b).all()
