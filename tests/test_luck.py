"""The luck of the deck draws (``engine.luck``): its sum over the deck is the sum of its cards, its mean
over deals is zero, and it tracks the margin (so taking it off lowers the variance, the reason for it)."""
import numpy as np
import pytest

import lostcards
from lostcards.engine import core
from lostcards.engine.determinize import POOL_MAX
from lostcards.engine.intrinsics import as_bytes, decide_address, offset, ptr
from lostcards.engine.layout import (
    M_RNG,
    MEM_WORDS,
    ORDER_CARD,
    R_CARDS,
    R_PLAYERS,
    S_DECK_POS,
    S_ORDER,
    S_SEAT,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.luck import card_worth, deck_cards, deck_worth, lucky_step
from lostcards.engine.moves import DRAW_DECK, TO_DISCARD, make_play
from lostcards.engine.observation import hand_cards, lowest_card, without
from lostcards.engine.playouts import NEVER, deal_determinizations, decided_at, play_outs_on, side_margin
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit
from lostcards.policies import resolve
from lostcards.policies.expert import expert_policy


@jit
def _rounds(rb, seed, n, par, decide_at, out):
    """Expert for every seat, rounds 0..n-1: out[r] = (seat 0's side margin, its summed luck, the largest
    gap between ``deck_worth`` and the sum of ``card_worth`` over the deck's cards seen before a draw)."""
    st_a = np.zeros(STATE_WORDS, np.int64)
    mem_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    one_a = np.zeros(2, np.int64)
    d_a = np.zeros(4, np.int64)
    st, mem, one, d = ptr(st_a), ptr(mem_a), ptr(one_a), ptr(d_a)
    ctx = (decide_at, mem, ptr(par), one, decide_at, ptr(par), 0, NEVER)
    for r in range(n):
        core.load_rules(st, ptr(rb))
        core.deal(st, mem, seed, r, 0, 0)
        p = st[R_PLAYERS]
        for w in range(SLOT_MEM_WORDS):
            mem[w] = np.uint64(0)
        for q in range(p):
            seed_stream(offset(mem, q * MEM_WORDS + M_RNG), seed, r, 1 + q)
        deck_cards(st, d)
        total = 0.0
        gap = 0.0
        while not core.ended(st):
            sd = st[S_SEAT] & 1
            s = 0.0
            order = as_bytes(offset(st, S_ORDER))
            for pos in range(st[S_DECK_POS], st[R_CARDS]):
                s += card_worth(st, sd, order[pos] & ORDER_CARD)
            gap = max(gap, abs(s - deck_worth(st, sd, d)))
            rc, lk = lucky_step(st, decided_at(st, ctx), 0, d)
            if rc != 0:
                gap = np.inf             # a refused move: never in expert's rounds
                break
            total += lk
        out[r, 0] = side_margin(st, 0, p)
        out[r, 1] = total
        out[r, 2] = gap


def _run(preset, players, n, seed=11):
    r = lostcards.rules(preset, players=players)
    out = np.zeros((n, 3))
    _rounds(core.rules_block(r), seed, n, resolve("expert").params, decide_address(expert_policy), out)
    return out


@pytest.mark.parametrize("preset, players", [("expeditions", 1), ("expeditions", 2), ("expeditions", 4),
                                             ("lost-cities", 4)])
def test_the_decks_worth_is_its_cards_worth(preset, players):
    out = _run(preset, players, 40)
    assert out[:, 2].max() < 1e-9


def test_the_luck_has_mean_zero_and_tracks_the_margin():
    out = _run("expeditions", 2, 4000)
    margin, luck = out[:, 0], out[:, 1]
    assert abs(luck.mean()) < 4.5 * luck.std(ddof=1) / np.sqrt(len(luck)), luck.mean()
    assert np.corrcoef(margin, luck)[0, 1] > 0.2           # a sign error would make it negative
    assert (margin - luck).var() < margin.var()


@jit
def _candidates(rb, par, decide_at, out, luck, k):
    """Seat 0's discards (each drawing off the deck) at round 0's first turn, played out by expert from
    k shared determinizations with `luck` (``playouts.play_outs_on``) into out[j * k + i]."""
    st_a = np.zeros(STATE_WORDS, np.int64)
    work = np.zeros(STATE_WORDS, np.int64)
    dets = np.zeros(k * STATE_WORDS, np.int64)
    base = np.zeros(STATE_WORDS, np.int64)
    used = np.zeros(2, np.int64)
    need = np.zeros(4, np.int64)
    pool = np.zeros(POOL_MAX, np.int64)
    rng = np.zeros(4, np.uint64)
    mem = np.zeros(SLOT_MEM_WORDS, np.uint64)
    one = np.zeros(2, np.int64)
    moves = np.zeros(8, np.int64)
    st = ptr(st_a)
    core.load_rules(st, ptr(rb))
    core.deal(st, ptr(mem), 1, 0, 0, 0)
    obs = core.observe(st, 0)
    rest = hand_cards(obs)
    n = 0
    while (rest[0] | rest[1]) != 0:
        c = lowest_card(rest)
        rest = without(rest, c)
        moves[n] = make_play(c, TO_DISCARD, DRAW_DECK)
        n += 1
    seed_stream(ptr(rng), 1, 0, 3)
    deal_determinizations(ptr(dets), k, obs, 0, 0, ptr(base), ptr(used), ptr(need), ptr(pool), ptr(rng))
    play_outs_on(obs, ptr(dets), 0, k, k, ptr(moves), n, ptr(work), ptr(mem), ptr(one), ptr(out), 1, 3, decide_at,
                 ptr(par), luck, decide_at, ptr(par), 0)
    return n


def test_every_candidate_is_played_out_with_its_luck():
    """Each candidate's return less ``luck`` times its luck, on the same determinizations: once the deck
    buffer shared a name with the determinization and wiped it after the first candidate (every later
    return came back +inf, and improve never left its base's move)."""
    rb = core.rules_block(lostcards.rules("expeditions", players=2))
    par, at = resolve("expert").params, decide_address(expert_policy)
    outs = {}
    for luck in (0.0, 0.8, 1.6):
        out = np.full(8 * 6, np.nan)
        n = _candidates(rb, par, at, out, luck, 6)
        outs[luck] = out[:n * 6]
    assert n == 6 and np.isfinite(outs[0.8]).all()
    lucks = (outs[0.0] - outs[0.8]) / 0.8                   # the same luck, twice as much taken off
    assert np.allclose(outs[0.0] - 1.6 * lucks, outs[1.6]) and np.abs(lucks).max() > 0
