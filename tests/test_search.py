"""The `search` bot: legal moves, faithful determinizations and simulator, strength.

The engine is the referee: the walker below deals with ``engine.deal`` and plays
every move through ``engine.apply_move`` (which rejects illegal moves), while
the bot's own simulator (``lostcards.determinize``) plays the same moves on the
true state and must agree with the engine after every turn.
"""
from collections import Counter

import numpy as np
import pytest

from lostcards.policies import resolve
from lostcards.policies.legacy import core as engine
from lostcards.policies.legacy.observation import (
    HMAX,
    NSUITS,
    O_CAN_PASS,
    O_DECK,
    O_EXP_COUNT,
    O_EXP_INV,
    O_EXP_MASK,
    O_EXP_SUM,
    O_EXP_TOP,
    O_HAND,
    O_HAND_LEN,
    O_KNOWN,
    O_PILE,
    O_PILE_LEN,
    O_RULES,
    O_STALL,
    O_TURN,
    PMAX,
)
from lostcards.policies.search import SEARCH, candidates, evaluate, rollout_move
from lostcards.policies.search.determinize import (
    NMAX,
    W_CNT,
    W_DECK,
    W_DECK_N,
    W_DECK_POS,
    W_ENDED,
    W_HAND,
    W_HLEN,
    W_INV,
    W_PILE,
    W_PLEN,
    W_STALL,
    W_SUM,
    W_TOP,
    W_TURN,
    base_state,
    canonical_pids,
    hand_weights,
    new_w,
    sample,
    side_score,
    sim_apply,
    to_engine,
)
from lostcards.rules.cards import MAX_CODES, SLOTS, deck_codes
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import P_LEN, rules
from lostcards.run.runner import play

PRESETS = ("expeditions", "lost-cities")
PLAYERS = (1, 2, 4)
# rulesets for the walker: the presets plus tweaks that reach every ending and the passes
WALK = [(p, n, {}) for p in PRESETS for n in PLAYERS] + [
    ("expeditions", 2, {"stall_limit": 1}),
    ("expeditions", 4, {"pass_min_hand": 4, "pass_twice": True, "extra_low": (2, 5, 9)}),
    ("lost-cities", 2, {"turn_cap": 40}),
    ("expeditions", 1, {"investments": 1, "suits": 3, "hand_size": 3}),
]


def _ids(c):
    return f"{c[0]}-{c[1]}p" + "".join(f"-{k}" for k in c[2])


def _truth(S, O, pid, players):
    """The engine's full state as a determinization W (every hand, the real deck)."""
    W = new_w()
    base_state(O[0], W, np.empty(NMAX, np.int32))
    for s in range(players):
        n = O[s, O_HAND_LEN]
        W[W_HLEN + s] = n
        W[W_HAND + s * HMAX:W_HAND + s * HMAX + n] = O[s, O_HAND:O_HAND + n]
    pos, end = S[engine.S_DECK_POS], S[engine.S_DECK_END]
    W[W_DECK:W_DECK + end - pos] = pid[S[engine.S_ORDER + pos:engine.S_ORDER + end]]
    W[W_DECK_N] = end - pos
    W[W_DECK_POS] = 0
    return W


def _shadow(W, obs, R):
    """Engine state built by to_engine from a (true) determinization."""
    pid2 = np.zeros(NMAX, np.int16)
    first = np.zeros(MAX_CODES, np.int32)
    canonical_pids(R, pid2, first)
    S2, O2, _ = engine.new_state()
    to_engine(W, obs, first, S2, O2)
    return S2, O2, pid2


def _hand(W, s):
    return sorted(W[W_HAND + s * HMAX:W_HAND + s * HMAX + W[W_HLEN + s]].tolist())


def _same_as_engine(W, S, O, players, suits):
    for s in range(players):
        assert _hand(W, s) == sorted(O[s, O_HAND:O_HAND + O[s, O_HAND_LEN]].tolist())
    for i in range(2 * NSUITS):
        assert W[W_TOP + i] == O[0, O_EXP_TOP + i]
        assert W[W_SUM + i] == O[0, O_EXP_SUM + i]
        assert W[W_INV + i] == O[0, O_EXP_INV + i]
        assert W[W_CNT + i] == O[0, O_EXP_COUNT + i]
    for s in range(suits):
        n = W[W_PLEN + s]
        assert n == O[0, O_PILE_LEN + s]
        assert (W[W_PILE + s * PMAX:W_PILE + s * PMAX + n] == O[0, O_PILE + s * PMAX:O_PILE + s * PMAX + n]).all()
    assert W[W_DECK_N] - W[W_DECK_POS] == O[0, O_DECK]
    assert W[W_STALL] == S[engine.S_STALL] == O[0, O_STALL]
    assert W[W_TURN] == S[engine.S_TURN] == O[0, O_TURN]
    assert W[W_ENDED] == S[engine.S_ENDED]


def _check_sample(obs, S, O, pid, r, rng):
    """A determinization holds every card exactly once and agrees with what the seat knows."""
    players = r.players
    me = int(obs[engine.O_SEAT])
    W0 = new_w()
    pool = np.empty(NMAX, np.int32)
    npool = base_state(obs, W0, pool)
    assert npool >= 0
    W = new_w()
    wts = np.empty(4 * MAX_CODES, np.int64)
    hand_weights(obs, wts, int(rng[0] & 1))      # uniform or inferred weights, either way
    short = sample(W0, pool, npool, W, np.empty(NMAX, np.int32), rng, wts)
    assert short == 0
    full = Counter(deck_codes(r))
    table = Counter()
    for side in range(r.sides):
        for s in range(r.suits):
            mask = obs[O_EXP_MASK + side * NSUITS + s]
            table.update(s * SLOTS + k for k in range(SLOTS) if (mask >> k) & 1)
    for s in range(r.suits):
        table.update(obs[O_PILE + s * PMAX:O_PILE + s * PMAX + obs[O_PILE_LEN + s]].tolist())
    deck = W[W_DECK + W[W_DECK_POS]:W_DECK + W[W_DECK_N]].tolist()
    assert len(deck) == obs[O_DECK]
    assert _hand(W, me) == sorted(obs[O_HAND:O_HAND + obs[O_HAND_LEN]].tolist())
    hands = Counter()
    for s in range(players):
        hands.update(_hand(W, s))
        if s != me:   # known cards are where the seat knows them to be
            held = Counter(_hand(W, s))
            for c in range(MAX_CODES):
                assert held[c] >= obs[O_KNOWN + s * MAX_CODES + c]
    if players == 1:
        assert not (hands + table + Counter(deck)) - full       # a part of the deck, no card twice
        return
    assert hands + table + Counter(deck) == full                # every card exactly once
    hidden = Counter()                                          # the same hidden multiset as the truth
    for s in range(players):
        if s != me:
            hidden.update(O[s, O_HAND:O_HAND + O[s, O_HAND_LEN]].tolist())
    hidden.update(pid[S[engine.S_ORDER + S[engine.S_DECK_POS]:engine.S_ORDER + S[engine.S_DECK_END]]].tolist())
    mine = Counter()
    for s in range(players):
        if s != me:
            mine.update(_hand(W, s))
    assert mine + Counter(deck) == hidden
    if players == 2:
        assert W[W_HLEN + 1 - me] == r.hand_size
    else:
        partner = (me + 2) % 4
        assert W[W_HLEN + partner] == O[partner, O_HAND_LEN]
        assert W[W_HLEN + (me + 1) % 4] + W[W_HLEN + (me + 3) % 4] == 2 * r.hand_size


def _all_legal(P, pid, S, O, seat, r):
    """Every legal play (not passes) by brute force against the engine."""
    legal = set()
    for c in set(O[seat, O_HAND:O_HAND + O[seat, O_HAND_LEN]].tolist()):
        for to in (0, 1):
            for draw in ((engine.DRAW_NONE,) if r.players == 1 else range(r.suits + 1)):
                m = int(engine.make_play(c, to, draw))
                S2, O2 = S.copy(), O.copy()
                if engine.apply_move(P, pid, S2, O2, seat, m) == 0:
                    legal.add(m)
    return legal


@pytest.mark.parametrize("case", WALK, ids=[_ids(c) for c in WALK])
def test_simulator_candidates_and_samples_follow_the_engine(case):
    preset, players, over = case
    r = rules(preset, players=players, **over)
    P = r.params()
    pid = np.array(deck_codes(r), np.int16)
    R = None
    pick = np.random.default_rng(5)
    srng = np.zeros(4, np.uint64)
    engine_rng_seed = 11
    from lostcards.policies.legacy.rng import seed_stream
    seed_stream(srng, 77, 0, 9)
    tmp = np.empty(2 * NSUITS, np.int32)
    moves = np.empty(2048, np.int64)
    endings = Counter()
    for rnd in range(4):
        S, O, rng = engine.new_state()
        engine.deal(P, pid, engine_rng_seed, rnd, S, O, rng)
        R = O[0, O_RULES:O_RULES + P_LEN].copy()
        W = _truth(S, O, pid, players)
        _same_as_engine(W, S, O, players, r.suits)
        seat = rnd % players
        shadow = None
        while S[engine.S_ENDED] == engine.END_NONE:
            O[seat, O_CAN_PASS] = 1 if engine.can_pass(P, S, O, seat) else 0
            obs = O[seat]
            if shadow is None and S[engine.S_TURN] >= 2 * rnd:
                shadow = _shadow(W, obs, R)
            _check_sample(obs, S, O, pid, r, srng)
            n = candidates(obs, moves, 15)
            cand = [int(m) for m in moves[:n]]
            assert len(set(cand)) == n
            plays = {m for m in cand if not m & engine.PASS_FLAG}
            assert plays == _all_legal(P, pid, S, O, seat, r)
            for m in cand:
                if m & engine.PASS_FLAG:
                    assert engine.apply_move(P, pid, S.copy(), O.copy(), seat, m) == 0
            if pick.random() < 0.5:
                move = cand[pick.integers(n)]
            else:
                move = int(rollout_move(W, R, seat, tmp))
            assert engine.apply_move(P, pid, S, O, seat, move) == 0
            assert sim_apply(W, R, seat, move) == 0
            _same_as_engine(W, S, O, players, r.suits)
            if shadow is not None:   # the engine run on to_engine's state agrees with the real one
                S2, O2, pid2 = shadow
                assert engine.apply_move(P, pid2, S2, O2, seat, move) == 0
                for k in (engine.S_ENDED, engine.S_TURN, engine.S_STALL):
                    assert S2[k] == S[k]
                for s2 in range(players):
                    hand2, hand = O2[s2, O_HAND:O_HAND + O2[s2, O_HAND_LEN]], O[s2, O_HAND:O_HAND + O[s2, O_HAND_LEN]]
                    assert (hand2 == hand).all()
                    for k in (O_DECK, O_STALL, O_TURN):
                        assert O2[s2, k] == O[s2, k]
                    assert (O2[s2, O_EXP_TOP:O_PILE] == O[s2, O_EXP_TOP:O_PILE]).all()
                    for su in range(r.suits):
                        n2 = O[s2, O_PILE_LEN + su]
                        assert (O2[s2, O_PILE + su * PMAX:O_PILE + su * PMAX + n2]
                                == O[s2, O_PILE + su * PMAX:O_PILE + su * PMAX + n2]).all()
            seat = (seat + 1) % players
        endings[Ending.of_code(S[engine.S_ENDED]).value] += 1
        for side in range(r.sides):
            want = sum(int(engine.expedition_score(P, O[0, O_EXP_SUM + side * NSUITS + s],
                                                   O[0, O_EXP_INV + side * NSUITS + s],
                                                   O[0, O_EXP_COUNT + side * NSUITS + s]))
                       for s in range(r.suits))
            assert side_score(W, R, side) == want
    assert endings


def test_rollout_heuristic_is_legal_on_the_true_state():
    """Rollouts (the heuristic for every seat) run to an ending through the engine."""
    for preset in PRESETS:
        for players in PLAYERS:
            r = rules(preset, players=players)
            P = r.params()
            pid = np.array(deck_codes(r), np.int16)
            tmp = np.empty(2 * NSUITS, np.int32)
            for rnd in range(3):
                S, O, rng = engine.new_state()
                engine.deal(P, pid, 3, rnd, S, O, rng)
                R = O[0, O_RULES:O_RULES + P_LEN].copy()
                W = _truth(S, O, pid, players)
                seat = 0
                while S[engine.S_ENDED] == engine.END_NONE:
                    move = int(rollout_move(W, R, seat, tmp))
                    assert engine.apply_move(P, pid, S, O, seat, move) == 0
                    assert sim_apply(W, R, seat, move) == 0
                    seat = (seat + 1) % players
                assert W[W_ENDED] == S[engine.S_ENDED]


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("players", PLAYERS)
def test_search_never_makes_an_illegal_move(preset, players):
    r = rules(preset, players=players)
    n = 6 if preset == "lost-cities" else 12
    # play() raises PolicyFailure on any illegal move; switch=0 takes the leader, not
    # the baseline, so the moves are the search's own
    a = play(r, "search:rollouts=3,switch=0", "random", rounds=n, seed=21, first=-1)
    b = play(r, "random", "search:rollouts=3,rollout=fast,switch=0", rounds=n, seed=22, first=-1)
    c = play(r, "search:rollouts=2,prune=0,switch=0,infer=off", "expert", rounds=3, seed=23, first=-1)
    for batch in (a, b, c):
        assert (batch.round_info[:, 2] >= 0).all()


def test_evaluate_keeps_the_baseline_without_evidence():
    """With switch = infinity the search plays its rollout policy's move; the
    baseline is always a candidate and every candidate is a distinct move."""
    r = rules("expeditions")
    P = r.params()
    pid = np.array(deck_codes(r), np.int16)
    S, O, rng = engine.new_state()
    from lostcards.policies.legacy.expert import EXPERT, expert_policy
    for rnd in range(3):
        engine.deal(P, pid, 8, rnd, S, O, rng)
        moves = np.empty(512, np.int64)
        means = np.empty(512)
        params = resolve("search:rollouts=16,switch=1e9").params
        nc, best, base = evaluate(O[0], params, rng[1], moves, means)
        assert best == base
        assert moves[base] == expert_policy(O[0], EXPERT.params, rng[1])
        assert len(set(moves[:nc].tolist())) == nc
        assert not np.isnan(means[base])


def test_search_is_reproducible():
    r = rules("expeditions")
    a = play(r, "search:rollouts=6", "random", rounds=4, seed=3, threads=1)
    b = play(r, "search:rollouts=6", "random", rounds=4, seed=3, threads=2)
    assert (a.round_info == b.round_info).all()


def test_parameters():
    s = resolve("search:rollouts=10,prune=0,rollout=fast,infer=off")
    assert list(s.params) == [10.0, 0.0, 1.0, 15.0, 1.0, 0.0]
    assert list(SEARCH.parameters) == ["rollouts", "prune", "switch", "passes", "rollout", "infer"]


def duplicate(r, a, b, rounds, seed, threads=None):
    """Per-deal margins of `a` over `b`: (a, b) then (b, a) on the same seed and rounds."""
    x = play(r, a, b, rounds=rounds, seed=seed, threads=threads)
    y = play(r, b, a, rounds=rounds, seed=seed, threads=threads)
    return ((x.round_info[:, 3] - x.round_info[:, 4]) + (y.round_info[:, 4] - y.round_info[:, 3])) / 2


def _interval(m):
    half = 1.96 * m.std(ddof=1) / np.sqrt(len(m))
    return m.mean() - half, m.mean() + half


def test_search_beats_random_on_duplicate_deals():
    m = duplicate(rules("expeditions"), "search:rollouts=4", "random", rounds=20, seed=101)
    lo, hi = _interval(m)
    assert lo > 0, (m.mean(), lo, hi)


def _strong_opponent():
    from lostcards.policies import names
    return "expert" if "expert" in names() else "greedy"


@pytest.mark.slow
def test_search_beats_the_expert_on_duplicate_deals():
    opp = _strong_opponent()
    m = duplicate(rules("expeditions"), "search:rollouts=128", opp, rounds=300, seed=202)
    lo, hi = _interval(m)
    assert lo > 0, (opp, m.mean(), lo, hi)


@pytest.mark.slow
@pytest.mark.parametrize("players", (1, 4))
def test_search_beats_random_other_player_counts(players):
    r = rules("expeditions", players=players)
    if players == 1:
        s = play(r, "search:rollouts=16", None, rounds=40, seed=5).round_info[:, 3]
        base = play(r, "random", None, rounds=40, seed=5).round_info[:, 3]
        m = s - base
    else:
        m = duplicate(r, "search:rollouts=16", "random", rounds=40, seed=303)
    lo, hi = _interval(m)
    assert lo > 0, (m.mean(), lo, hi)


def test_search_cache_follows_the_files_it_compiles_in():
    """search's compiled code embeds expert and the engine: its cache stamp carries their digest."""
    import hashlib

    from lostcards.policies import search
    from lostcards.policies.legacy import expert, observation
    from lostcards.policies.legacy import rng as rng_mod
    from lostcards.policies.search import determinize
    from lostcards.rules import cards, outcome, ruleset, streams
    h = hashlib.sha256()
    for m in (cards, outcome, ruleset, streams, engine, observation, rng_mod, expert, determinize):
        h.update(open(m.__file__, "rb").read())
    for f in (search.search_policy, search.evaluate_from, search.expert_rollout):
        stamp = f._cache._cache_file._source_stamp
        assert stamp[2] == h.hexdigest()
