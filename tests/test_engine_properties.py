"""Properties of both engines on rulesets hypothesis draws, every SPEC §1 parameter varied.

- cards are conserved after every turn, in both engines, and both engines agree
  (every seat's observation, every turn: ``lockstep``);
- every record the batch loop writes replays to the batch's scores, turns and
  ending, the scores follow SPEC §2's formula (computed here from the card
  texts), and the reference plays the same record;
- a record with one turn turned into a rule violation (of several kinds) is
  rejected at exactly that turn, naming that rule;
- a numba policy that breaks a rule on some turn stops its batch with a
  ``PolicyFailure`` naming the first round it happened in and the rule.
"""
import copy
from collections import Counter

import engine_adapter as ea
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lockstep import Lockstep, reference_category
from strategies import rulesets

from lostcards.engine.core import DRAW_DECK, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from lostcards.engine.observation import RULE_PASS_MIN, expedition_top, hand_card, hand_count, rule, side, suit_of
from lostcards.errors import IllegalMove, PolicyFailure
from lostcards.numba_cache import jit
from lostcards.policies import Policy
from lostcards.policies.py_random import random_policy as py_random
from lostcards.policies.random import random_policy
from lostcards.records.replay import check_record, replay_record
from lostcards.reference import round as reference
from lostcards.reference.moves import Pass, Play
from lostcards.reference.observation import side_of
from lostcards.rules.cards import SLOTS, deck_codes
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import rules
from lostcards.rules.streams import Stream
from lostcards.run.runner import play
from lostcards.run.runner import play_records as records

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def passer(obs, stream):
    """Passes whenever it may (half the time), else plays like `random`."""
    if obs.can_pass and stream.below(2):
        return Pass(tuple(obs.hand[:2]))
    return py_random(obs, stream)


def assert_conserved(ls: Lockstep) -> None:
    """No card lost or doubled: in the reference by physical card, in the engine by what the seats see."""
    r, ref = ls.rules, ls.ref
    full = deck_codes(r)
    assert sorted(ref.physical_places()) == list(range(len(full))), ls.where()
    views = [ea.observe(ls.eng, s) for s in range(r.players)]
    seen = Counter(c for v in views for c in v.hand)
    seen += Counter(c for pile in views[0].discards for c in pile)
    seen += Counter(c for side in views[0].expeditions for e in side for c in e)
    assert not seen - Counter(full), f"{ls.where()}: cards the deck has not: {seen - Counter(full)}"
    if r.players == 1:   # half the deck is set aside; each turn plays one card out of the hand
        assert len(views[0].hand) + views[0].deck_size + views[0].turn == len(full) // 2, ls.where()
    else:
        assert sum(seen.values()) + views[0].deck_size == len(full), ls.where()


@settings(max_examples=15, **SETTINGS)
@given(r=rulesets(), seed=st.integers(0, 2**40), start=st.integers(0, 10**6))
def test_cards_are_conserved_and_the_engines_agree(r, seed, start):
    for i, policy in enumerate((py_random, passer)):
        rnd = start + i
        ls = Lockstep.dealt(r, seed, rnd, rnd % r.players)
        streams = [Stream(seed, rnd, 1 + s) for s in range(r.players)]
        while not ls.ref.ended:
            assert not ls.step(policy(ls.ref.observation(), streams[ls.ref.seat]))
            assert_conserved(ls)


def formula_score(texts, r) -> int:
    """SPEC §2 from the card texts: (sum of numbers - cost) x (investments + 1), + bonus; 0 if empty."""
    if not texts:
        return 0
    ranks = [t[:-1] for t in texts]
    investments = sum(1 for k in ranks if k in ("J", "Q", "K"))
    numbers = sum(int(k) for k in ranks if k not in ("J", "Q", "K"))
    return (numbers - r.cost) * (investments + 1) + (r.bonus_points if len(texts) >= r.bonus_cards else 0)


@settings(max_examples=40, **SETTINGS)
@given(r=rulesets(), seed=st.integers(0, 2**40), start=st.integers(0, 10**6))
def test_every_record_replays_to_the_batch_results(r, seed, start):
    b = play(r, "random", "random", rounds=4, seed=seed, start=start, first=-1)
    recs = records(r, "random", "random", range(start, start + 4), seed=seed, first=-1)
    for i, rec in enumerate(recs):
        v, rnd, _ = check_record(rec)
        assert v["ok"], v
        assert v["turns"] == b.round_info[i, 1]
        assert v["scores"] == list(b.round_info[i, 3:3 + r.sides])
        assert v["ended_by"] == Ending.of_code(b.round_info[i, 2])
        by_hand = [sum(formula_score([rnd.text(c) for c in rnd.expedition(side, s)], r) for s in range(r.suits))
                   for side in range(r.sides)]
        assert by_hand == v["scores"]
        ref = reference.play_round(r, seed, start + i, py_random, first=(start + i) % r.players)
        assert ref.record == rec


# ---------------------------------------------------------------------------
# A record with one turn made illegal
# ---------------------------------------------------------------------------

def rule_violations(rnd) -> dict:
    """Turns that break one rule each in the position `rnd` (a reference Round): {category: turn}."""
    r, seat = rnd.rules, rnd.seat
    hand, t, letters = rnd.hand(seat), rnd.text, r.letters
    draw = {} if r.players == 1 else {"draw": "deck"}
    out = {}
    absent = [c for c in sorted(set(deck_codes(r))) if c not in hand]
    if absent:
        out["not-held"] = {"play": t(absent[0]), "to": "discard", **draw}
    side = side_of(seat, r.players)
    for c in hand:
        exp = [rnd.text(x)[:-1] for x in rnd.expedition(side, c // SLOTS)]
        high = max((int(k) for k in exp if k not in "JQK"), default=0)
        rank = t(c)[:-1]
        if (rank in ("J", "Q", "K") and high) or (rank not in ("J", "Q", "K") and int(rank) <= high):
            out["expedition"] = {"play": t(c), "to": "expedition", **draw}
            break
    c = hand[0]
    if r.players > 1:
        out["draw-back"] = {"play": t(c), "to": "discard", "draw": letters[c // SLOTS]}
        empty = [s for s in range(r.suits) if not rnd.discard_pile(s) and s != c // SLOTS]
        if empty:
            out["draw"] = {"play": t(c), "to": "discard", "draw": letters[empty[0]]}
    else:
        out["draw"] = {"play": t(c), "to": "discard", "draw": letters[0]}
    if len(hand) >= 2 and not rnd.can_pass():
        out["pass-refused"] = {"pass": [t(hand[0]), t(hand[1])]}
    if r.players == 4 and len(hand) >= 3:      # three cards are no pass (two would be one)
        out["not-a-move"] = {"pass": [t(x) for x in hand[:3]]}
        once = [x for x in hand if hand.count(x) == 1]
        if rnd.can_pass() and once:
            out["pass-not-held"] = {"pass": [t(once[0]), t(once[0])]}
    return out


@settings(max_examples=40, **SETTINGS)
@given(r=rulesets(), seed=st.integers(0, 2**40), data=st.data())
def test_an_illegal_turn_is_caught_at_that_turn_naming_the_rule(r, seed, data):
    rec = records(r, "random", "random", [0], seed=seed)[0]
    k = data.draw(st.integers(0, len(rec["turns"])))
    before = copy.deepcopy(rec)
    before["turns"] = rec["turns"][:k]
    v, rnd, _ = check_record(before)
    assert v["ok"], v
    if rnd.ended:           # k is past the last turn: any turn is one too many
        kinds = {"round-over": {"play": rec["hands"][0][0], "to": "discard", "draw": "deck"}}
    else:
        kinds = rule_violations(rnd)
    kind = data.draw(st.sampled_from(sorted(kinds)))
    bad = copy.deepcopy(rec)
    bad["turns"][k:k + 1] = [kinds[kind]]
    v = replay_record(bad)
    assert v["ok"] is False and v["turn"] == k + 1, (kind, v)
    assert reference_category(v["error"]) == kind, (kind, v)


# ---------------------------------------------------------------------------
# A numba policy that breaks a rule inside a batch
# ---------------------------------------------------------------------------

INVEST_AFTER_NUMBER, DRAW_BACK, PASS_SMALL_HAND, PASS_TWICE = range(4)


@jit
def rule_breaker(obs, params, mem):
    """Plays like `random` until turn params[1], then breaks rule params[0] as soon as it can."""
    kind = int(params[0])
    h = hand_count(obs)
    first = hand_card(obs, 0)
    if obs.turn >= params[1]:
        if kind == INVEST_AFTER_NUMBER:
            for i in range(h):
                c = hand_card(obs, i)
                if c % SLOTS < 3 and expedition_top(obs, side(obs), suit_of(c)) > 0:
                    return make_play(c, TO_EXPEDITION, DRAW_DECK)
        elif kind == DRAW_BACK:
            return make_play(first, TO_DISCARD, 1 + suit_of(first))
        elif kind == PASS_SMALL_HAND:
            if h < rule(obs, RULE_PASS_MIN):
                return make_pass(first, hand_card(obs, 1))
        elif h >= rule(obs, RULE_PASS_MIN):           # PASS_TWICE: pass whenever the hand allows it
            return make_pass(first, hand_card(obs, 1))
    return random_policy(obs, params, mem)


def rule_breaker_twin(kind, k):
    """The same policy on the reference's Observation (and the same stream)."""
    def policy(obs, stream):
        hand = obs.hand
        if obs.turn >= k:
            if kind == INVEST_AFTER_NUMBER:
                for c in hand:
                    if c % SLOTS < 3 and any(x % SLOTS >= 3 for x in obs.expedition(c // SLOTS)):
                        return Play(c, "expedition", "deck")
            elif kind == DRAW_BACK:
                return Play(hand[0], "discard", hand[0] // SLOTS)
            elif kind == PASS_SMALL_HAND:
                if len(hand) < obs.rules.pass_min_hand:
                    return Pass((hand[0], hand[1]))
            elif len(hand) >= obs.rules.pass_min_hand:
                return Pass((hand[0], hand[1]))
        return py_random(obs, stream)
    return policy


BREAKS = [  # kind, players, overrides, the category of the rule broken, the reference's words for it
    (INVEST_AFTER_NUMBER, 2, {}, "expedition", "investments go down before any number"),
    (DRAW_BACK, 2, {}, "draw-back", "cannot be drawn back"),
    (DRAW_BACK, 4, {}, "draw-back", "cannot be drawn back"),
    (PASS_SMALL_HAND, 4, {"hand_size": 5}, "pass-refused", "a pass needs a hand of at least 6"),
    (PASS_TWICE, 4, {"pass_min_hand": 3}, "pass-refused", "may not pass on two of its turns in a row"),
]


@pytest.mark.parametrize("kind,players,over,category,words", BREAKS, ids=["invest-after-number", "draw-back-2p",
                                                                    "draw-back-4p", "pass-small-hand",
                                                                    "pass-twice"])
def test_an_illegal_move_stops_the_batch_naming_round_and_rule(kind, players, over, category, words):
    r = rules("expeditions", players=players, **over)
    k, seed, n = 9, 5, 40
    policy = Policy("rule-breaker", rule_breaker, {"kind": 0.0, "turn": 0.0}).with_params(f"kind={kind},turn={k}")
    with pytest.raises(PolicyFailure) as failure:
        play(r, policy, "random", rounds=n, seed=seed, first=-1)
    message = str(failure.value)
    # the reference, with the same policy, finds the first round and turn where it breaks the rule
    twin = rule_breaker_twin(kind, k)
    for i in range(n):
        try:
            reference.play_round(r, seed, i, [twin, py_random], first=i % players)
        except IllegalMove as e:
            assert reference_category(e.reason) == category and words in e.reason, e.reason
            break
    else:
        raise AssertionError("the rule breaker never broke the rule on the reference")
    assert f"round {i} (seed {seed})" in message, message
    code = next(c for c in ea.ERROR_CODES if ea.error_text(c) in message)
    assert ea.category(code) == category, message
