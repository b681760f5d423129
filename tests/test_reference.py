"""The plain-Python reference engine: scoring, the deal, legal moves, round endings, statistics."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lostcards.errors import IllegalMove
from lostcards.policies.py_random import random_policy
from lostcards.records.replay import replay_record
from lostcards.reference.moves import Pass, Play
from lostcards.reference.observation import Observation
from lostcards.reference.round import Round, deal, play_round
from lostcards.rules.cards import deck_codes, format_card, is_investment, parse_card, suit_of, value_of
from lostcards.rules.ruleset import rules
from lostcards.rules.scoring import score_expedition
from lostcards.rules.streams import Stream

EXP = rules("expeditions")
CONFIGS = [(preset, p) for preset in ("expeditions", "lost-cities") for p in (1, 2, 4)]


def codes(texts, r=EXP):
    return [parse_card(t, r) for t in texts.split()]


def solitaire_record(plays, r=None):
    """A solitaire record whose turn t plays the t-th card of ``plays`` (card text, to) in order.

    The deal holds the cards in play order, so the t-th card is always in hand at turn t.
    """
    r = r or rules("expeditions", players=1)
    cards = [c for c, _ in plays]
    h = r.hand_size
    return {"format": "lostcards-round/1", "rules": r.to_record(), "players": 1,
            "hands": [cards[:h]], "deck": cards[h:],
            "turns": [{"play": c, "to": to} for c, to in plays]}


# ---------------------------------------------------------------------------
# Scoring (the rule sheet's examples)
# ---------------------------------------------------------------------------

def test_rule_sheet_examples():
    assert score_expedition(["JH", "QH", "6H", "8H", "10H"], EXP) == 12
    assert score_expedition(["JC", "3C", "5C"], EXP) == -24
    assert score_expedition(["JD", "4D", "5D", "7D", "8D", "9D"], EXP) == 46
    assert score_expedition([], EXP) == 0
    assert score_expedition(["JS", "QS"], EXP) == -60          # only investments: -20 x 3
    assert score_expedition(codes("JH QH 6H 8H 10H"), EXP) == 12  # codes work too


def test_rule_sheet_round_worth_34():
    """The example board, played out as a solitaire record: 12 - 24 + 46 + 0 = 34."""
    board = "JH QH 6H 8H 10H JC 3C 5C JD 4D 5D 7D 8D 9D".split()
    rest = [format_card(c, "CDHS") for c in deck_codes(rules("expeditions", players=1))
            if format_card(c, "CDHS") not in board and suit_of(c) != 3][:10]
    plays = [(c, "expedition") for c in board] + [(c, "discard") for c in rest]
    verdict = replay_record(solitaire_record(plays))
    assert verdict == {"ok": True, "ended_by": "hand-empty", "scores": [34], "turns": 24}


def test_bonus_counts_investments_and_comes_after_multiplier():
    r = EXP
    assert score_expedition(["JH", "2H", "3H", "4H", "5H", "6H"], r) == (20 - 20) * 2 + 20
    assert score_expedition(["2H", "3H", "4H", "5H", "6H"], r) == 0
    lc = rules("lost-cities")
    assert score_expedition(["JY", "QY", "KY", "2Y", "3Y", "4Y", "5Y"], lc) == (14 - 20) * 4


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["expeditions", "lost-cities"]), st.integers(0, 3), st.data())
def test_score_follows_formula(preset, inv, data):
    r = rules(preset, cost=data.draw(st.integers(0, 60)), bonus_cards=data.draw(st.integers(1, 12)),
              bonus_points=data.draw(st.integers(0, 50)))
    suit = data.draw(st.integers(0, r.suits - 1))
    nums = data.draw(st.lists(st.sampled_from(r.numbers), unique=True))
    cards = [suit * 12 + i for i in range(inv)] + [suit * 12 + n + 1 for n in sorted(nums)]
    expected = 0
    if cards:
        expected = (sum(nums) - r.cost) * (inv + 1) + (r.bonus_points if len(cards) >= r.bonus_cards else 0)
    assert score_expedition(cards, r) == expected
    assert score_expedition([format_card(c, r.letters) for c in cards], r) == expected


# ---------------------------------------------------------------------------
# The deal
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("preset,players", CONFIGS)
def test_deal_uses_every_card_once(preset, players):
    """The deal's order is pinned as literal card texts in tests/test_golden.py; here: each physical
    card is dealt once, hands hold hand_size cards, solitaire sets N - N // 2 aside unseen."""
    r = rules(preset, players=players)
    hands, deck, aside = deal(r, 12345, 2)
    n = r.deck_size
    assert len(aside) == (n - n // 2 if players == 1 else 0)
    assert [len(h) for h in hands] == [r.hand_size] * players
    assert sorted(aside + deck + sum(hands, [])) == list(range(n))
    assert deal(r, 12345, 2) == (hands, deck, aside) != deal(r, 12345, 3)


def test_record_of_deal():
    r = rules("expeditions", players=4)
    res = play_round(r, 99, 1, [random_policy, random_policy], first=3)
    rec = res.record
    assert list(rec)[:7] == ["format", "rules", "players", "first", "hands", "deck", "turns"]
    assert rec["format"] == "lostcards-round/1" and rec["rules"] == "expeditions"
    assert rec["players"] == 4 and rec["first"] == 3
    dealt = Counter(parse_card(t, r) for h in rec["hands"] for t in h) + Counter(parse_card(t, r) for t in rec["deck"])
    assert dealt == Counter(deck_codes(r))
    hands, deck, _ = deal(r, 99, 1)                 # hands as dealt, deck top first
    ids = deck_codes(r)
    assert rec["hands"] == [[format_card(ids[p], r.letters) for p in h] for h in hands]
    assert rec["deck"] == [format_card(ids[p], r.letters) for p in deck]
    solo = play_round(rules("expeditions", players=1), 1, 0, [random_policy]).record
    assert len(solo["aside"]) == 24 and len(solo["hands"][0]) + len(solo["deck"]) == 24
    assert all("draw" not in t for t in solo["turns"])


# ---------------------------------------------------------------------------
# Whole rounds with the random policy
# ---------------------------------------------------------------------------

def check_conservation(rnd: Round):
    places = rnd.physical_places()      # raises if a card is in two places
    assert sorted(places) == list(range(rnd.rules.deck_size))


@pytest.mark.parametrize("preset,players", CONFIGS)
def test_cards_conserved_every_turn(preset, players):
    r = rules(preset, players=players)
    for seed in range(4):
        rnd = Round.dealt(r, seed, 0, first=seed % players)
        streams = [Stream(seed, 0, 1 + s) for s in range(players)]
        check_conservation(rnd)
        while not rnd.ended:
            before = [len(h) for h in rnd.hands]
            seat = rnd.seat
            move = random_policy(rnd.observation(), streams[seat])
            rnd.apply(move)
            check_conservation(rnd)
            after = [len(h) for h in rnd.hands]
            if isinstance(move, Pass):
                assert after[seat] == before[seat] - 2 and after[(seat + 2) % 4] == before[(seat + 2) % 4] + 2
            elif players > 1:
                assert after == before
        # the record of the same round is identical, move for move
        res = play_round(r, seed, 0, [random_policy] * r.sides, first=seed % players)
        assert res.turns == rnd.turn and res.scores == rnd.scores and res.ended_by == rnd.ended_by


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(CONFIGS), st.integers(0, 2 ** 63), st.integers(0, 1000))
def test_random_rounds_replay_and_stats(config, seed, round_index):
    preset, players = config
    r = rules(preset, players=players)
    res = play_round(r, seed, round_index, [random_policy] * r.sides, first=round_index % players)
    assert res.ended_by in ("deck", "stall", "hand-empty", "capped")
    if players == 1:
        assert res.ended_by == "hand-empty" and res.turns == r.deck_size // 2
    verdict = replay_record(res.record)
    assert verdict == {"ok": True, "ended_by": res.ended_by, "scores": res.scores, "turns": res.turns}
    check_stats(res, r)


def check_stats(res, r):
    s = res.stats
    players, sides = r.players, r.sides
    assert s["first"] == res.record["first"] and s["turns"] == res.turns
    assert s["ended_by"] == res.ended_by and s["scores"] == res.scores
    seats, seat_suits, side_suits = s["seats"], s["seat_suits"], s["side_suits"]
    assert seats.dtype == np.int64 and seats.shape == (players, 5)
    assert seat_suits.dtype == np.int64 and seat_suits.shape == (players, r.suits, 4)
    assert side_suits.dtype == np.int64 and side_suits.shape == (sides, r.suits, 3)
    plays, discards, deck_draws, pile_draws, passes = seats.T
    assert (plays + passes).sum() == res.turns
    assert (discards <= plays).all()
    if players > 1:
        assert (deck_draws + pile_draws == plays).all()
    else:
        assert pile_draws.sum() == 0 and deck_draws.sum() == len(res.record["deck"])
    if players != 4:
        assert passes.sum() == 0
    # turns alternate seats from `first`
    for seat in range(players):
        own = sum(1 for t in range(res.turns) if (res.record["first"] + t) % players == seat)
        assert plays[seat] + passes[seat] == own
    # held: the dealt hand; reached >= held
    for seat, hand in enumerate(res.record["hands"]):
        for suit in range(r.suits):
            nums = [value_of(c) for c in (parse_card(t, r) for t in hand)
                    if suit_of(c) == suit and not is_investment(c)]
            assert seat_suits[seat, suit, 0] == len(nums) and seat_suits[seat, suit, 1] == sum(nums)
    assert (seat_suits[:, :, 2] >= seat_suits[:, :, 0]).all()
    assert (seat_suits[:, :, 3] >= seat_suits[:, :, 1]).all()
    assert (side_suits[:, :, 2].sum(axis=1) == np.array(res.scores)).all()
    # the expeditions: every expedition play is on the board
    assert side_suits[:, :, 0].sum() == (plays - discards).sum()


def test_reached_counts_each_physical_card_once():
    """4 players: a card passed back and forth, or discarded and drawn back later, is reached once."""
    r = rules("expeditions", players=4)
    res = play_round(r, 5, 0, [random_policy, random_policy])
    rnd = res.state
    for seat in range(4):
        reached = rnd._reached[seat]
        nums = [p for p in reached if not is_investment(rnd.codes[p])]
        assert res.stats["seat_suits"][seat, :, 2].sum() == len(nums)
        assert res.stats["seat_suits"][seat, :, 3].sum() == sum(value_of(rnd.codes[p]) for p in nums)


def test_random_policy_stream_use():
    """docs/engine.md: 2 numbers a play (option, source), 3 a pass, 1 a solitaire turn."""

    class Counting(Stream):
        __slots__ = ("calls",)

        def __init__(self, *a):
            super().__init__(*a)
            self.calls = 0

        def below(self, n):
            self.calls += 1
            return super().below(n)

    for players in (1, 2, 4):
        r = rules("expeditions", players=players)
        rnd = Round.dealt(r, 3, 0)
        streams = [Counting(3, 0, 1 + s) for s in range(players)]
        expected = [0] * players
        while not rnd.ended:
            seat = rnd.seat
            move = random_policy(rnd.observation(), streams[seat])
            expected[seat] += 3 if isinstance(move, Pass) else (1 if players == 1 else 2)
            rnd.apply(move)
        assert [s.calls for s in streams] == expected


def test_random_policy_options_in_documented_order():
    """Option k of the stream picks the k-th option: expedition plays in hand order, discards, pass."""
    r = rules("expeditions", players=4)
    rnd = Round.dealt(r, 11, 0)
    obs = rnd.observation()
    opts = obs.legal_plays()
    n_exp = sum(1 for c in obs.hand if obs.can_play(c))
    assert [to for _, to in opts] == ["expedition"] * n_exp + ["discard"] * len(obs.hand)
    assert [c for c, _ in opts[n_exp:]] == list(obs.hand)
    assert obs.can_pass

    class Fixed:
        def __init__(self, values):
            self.values = list(values)

        def below(self, n):
            v = self.values.pop(0)
            assert v < n
            return v

    total = len(opts) + 1
    move = random_policy(obs, Fixed([total - 1, 4, 4]))       # the pass; j >= i -> j + 1
    assert move == Pass((obs.hand[4], obs.hand[5]))
    move = random_policy(obs, Fixed([n_exp, 0]))               # first discard, then the deck
    assert move == Play(obs.hand[0], "discard", "deck")


def test_play_round_policies_per_side():
    r = rules("expeditions", players=4)
    seen = []

    def team_a(obs, stream):
        seen.append(("A", obs.seat))
        return random_policy(obs, stream)

    def team_b(obs, stream):
        seen.append(("B", obs.seat))
        return random_policy(obs, stream)

    play_round(r, 1, 0, [team_a, team_b])
    assert {s for t, s in seen if t == "A"} == {0, 2} and {s for t, s in seen if t == "B"} == {1, 3}
    with pytest.raises(ValueError):
        play_round(r, 1, 0, [team_a])

    def cheat(obs, stream):
        return Play(99, "discard", "deck")

    with pytest.raises(IllegalMove, match="illegal move on turn 1"):
        play_round(r, 1, 0, [cheat, cheat])


def test_same_seed_same_round():
    r = rules("lost-cities", players=2)
    a = play_round(r, 42, 7, [random_policy] * 2, first=1)
    b = play_round(r, 42, 7, [random_policy] * 2, first=1)
    assert a.record == b.record and a.scores == b.scores
    for k in ("seats", "seat_suits", "side_suits"):
        assert (a.stats[k] == b.stats[k]).all()
    c = play_round(r, 42, 8, [random_policy] * 2, first=1)
    assert c.record["deck"] != a.record["deck"]


# ---------------------------------------------------------------------------
# Legal and illegal moves on a constructed round
# ---------------------------------------------------------------------------

def two_player(hand0, hand1, r=EXP, first=0):
    """A 2-player round with the given hands; the deck is the rest of the cards in canonical order."""
    h0, h1 = codes(hand0, r), codes(hand1, r)
    rest = Counter(deck_codes(r)) - Counter(h0) - Counter(h1)
    deck = sorted(rest.elements())
    return Round.from_codes(r, [h0, h1], deck, first)


def test_expedition_rules():
    rnd = two_player("JH 5H 5C 3H QH 9S", "2C 3C 4C 6C 7C 8C")
    H, C = 2, 0
    rnd.apply(Play(parse_card("5H", EXP), "expedition", "deck"))
    rnd.apply(Play(parse_card("2C", EXP), "discard", "deck"))
    with pytest.raises(IllegalMove, match="investment"):
        rnd.check(Play(parse_card("JH", EXP), "expedition", "deck"))
    with pytest.raises(IllegalMove, match="higher"):
        rnd.check(Play(parse_card("3H", EXP), "expedition", "deck"))
    with pytest.raises(IllegalMove, match="not in seat 0's hand"):
        rnd.check(Play(parse_card("8C", EXP), "expedition", "deck"))
    with pytest.raises(IllegalMove, match="cannot be drawn back"):
        rnd.check(Play(parse_card("5C", EXP), "discard", C))
    with pytest.raises(IllegalMove, match="empty"):
        rnd.check(Play(parse_card("5C", EXP), "discard", H))
    with pytest.raises(IllegalMove, match="must draw"):
        rnd.check(Play(parse_card("5C", EXP), "discard", None))
    with pytest.raises(IllegalMove, match="expedition"):
        rnd.check(Play(parse_card("5C", EXP), "Expedition", "deck"))
    with pytest.raises(IllegalMove, match="pass"):
        rnd.check(Pass((parse_card("5C", EXP), parse_card("9S", EXP))))
    # an expedition play may draw its own suit's pile; the opponent's expedition is separate
    rnd.apply(Play(parse_card("5C", EXP), "expedition", C))
    assert rnd.hand(0).count(parse_card("2C", EXP)) == 1
    assert rnd.expedition(0, C) == (parse_card("5C", EXP),) and rnd.expedition(1, C) == ()
    rnd.apply(Play(parse_card("3C", EXP), "expedition", "deck"))   # seat 1's own C expedition
    assert rnd.expedition(1, C) == (parse_card("3C", EXP),)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_an_expedition_takes_a_card_exactly_when_it_gives_no_reason_not_to(data):
    """``expedition_takes`` (the answer alone, for the legal-move lists) and ``expedition_refusal`` (the
    reason, for a refused move) agree on every card and expedition, and with the rule sheet's words: an
    investment only before any number, a number only above every number laid."""
    from lostcards.rules.scoring import expedition_refusal, expedition_takes
    suit = [c for c in deck_codes(EXP) if suit_of(c) == 2]
    laid = sorted(data.draw(st.lists(st.sampled_from(suit), max_size=6, unique=True)),
                  key=lambda c: (not is_investment(c), value_of(c)))
    numbers = [value_of(c) for c in laid if not is_investment(c)]
    for card in suit:
        why = expedition_refusal(laid, card, EXP.letters)
        assert expedition_takes(laid, card) == (why is None), (laid, card)
        rule = not numbers if is_investment(card) else all(value_of(card) > v for v in numbers)
        assert expedition_takes(laid, card) == rule, (laid, card)
        assert why is None or format_card(card, EXP.letters) in why


def test_known_cards():
    r = rules("expeditions", players=4)
    hands = ["2C 3C 4C 5C 6C 7C", "2D 3D 4D 5D 6D 7D", "2H 3H 4H 5H 6H 7H", "2S 3S 4S 5S 6S 7S"]
    hs = [codes(h, r) for h in hands]
    rest = Counter(deck_codes(r)) - sum((Counter(h) for h in hs), Counter())
    rnd = Round.from_codes(r, hs, sorted(rest.elements()))
    c = lambda t: parse_card(t, r)  # noqa: E731
    rnd.apply(Play(c("7C"), "discard", "deck"))          # seat 0
    rnd.apply(Play(c("7D"), "discard", 0))               # seat 1 takes 7C off the C pile
    for seat in (0, 2, 3):
        assert rnd.observation(seat).known[1] == (c("7C"),)
    assert rnd.observation(1).known == ((), (), (), ())
    rnd.apply(Pass((c("2H"), c("3H"))))                  # seat 2 passes to seat 0
    assert rnd.observation(2).known[0] == (c("2H"), c("3H"))
    assert rnd.observation(1).known[0] == () and rnd.observation(3).known[0] == ()
    rnd.apply(Pass((c("2S"), c("3S"))))                  # seat 3 passes to seat 1
    assert rnd.observation(3).known[1] == (c("7C"), c("2S"), c("3S"))
    assert rnd.observation(0).known[1] == (c("7C"),)     # the others never see a pass
    rnd.apply(Play(c("2H"), "expedition", "deck"))       # seat 0 plays a card it was passed
    assert rnd.observation(2).known[0] == (c("3H"),)
    rnd.apply(Pass((c("7C"), c("2S"))))                  # seat 1 passes 7C on to seat 3
    assert rnd.observation(0).known[1] == () and rnd.observation(2).known[1] == ()
    assert rnd.observation(3).known[1] == (c("3S"),)
    assert rnd.observation(1).known[3] == (c("7C"), c("2S"))
    assert rnd.observation(0).known[3] == ()
    obs = rnd.observation(2)
    assert isinstance(obs, Observation) and not hasattr(obs, "deck")
    assert obs.hand_sizes == tuple(len(h) for h in rnd.hands)


def test_observation_is_immutable():
    obs = Round.dealt(EXP, 1, 0).observation()
    with pytest.raises(Exception):
        obs.hand = ()
    assert isinstance(obs.hand, tuple) and isinstance(obs.discards, tuple)
    assert obs.draw_sources() == ["deck"]


def test_stall_ends_round():
    r = rules("expeditions", stall_limit=2)
    rnd = Round.dealt(r, 3, 0)
    rnd.apply(Play(rnd.hand(0)[0], "discard", "deck"))          # a pile to draw from; count 0
    count = 0
    while not rnd.ended:
        move = stall_move(rnd)
        rnd.apply(move)
        count += 1
        assert rnd.stall_count == count
    assert rnd.ended_by == "stall" and count == 4 and rnd.turn == 5


def stall_move(rnd):
    """Any discard that can then draw off another pile."""
    for c in rnd.hand(rnd.seat):
        for s, pile in enumerate(rnd.discard_piles):
            if pile and s != suit_of(c):
                return Play(c, "discard", s)
    raise AssertionError("no stall move here")


def test_stall_count_reset_and_passes():
    r = rules("expeditions", players=4, stall_limit=1)
    rnd = Round.dealt(r, 8, 0)
    rnd.apply(Play(rnd.hand(0)[0], "discard", "deck"))
    rnd.apply(stall_move(rnd))
    assert rnd.stall_count == 1
    rnd.apply(Pass(rnd.hand(2)[:2]))                           # a pass leaves it alone
    assert rnd.stall_count == 1 and not rnd.ended
    rnd.apply(Play(rnd.hand(3)[0], "discard", "deck"))        # a discard drawing the deck resets it
    assert rnd.stall_count == 0
    for _ in range(4):
        rnd.apply(stall_move(rnd))
    assert rnd.ended_by == "stall" and rnd.turn == 8


def test_deck_end_and_turn_cap():
    r = rules("expeditions")
    rnd = Round.dealt(r, 4, 0)
    while not rnd.ended:
        rnd.apply(Play(rnd.hand(rnd.seat)[0], "discard", "deck"))
    assert rnd.ended_by == "deck" and rnd.turn == 36 and rnd.deck_size == 0
    with pytest.raises(IllegalMove, match="already over"):
        rnd.apply(Play(rnd.hand(rnd.seat)[0], "discard", "deck"))
    capped = Round.dealt(rules("expeditions", turn_cap=7), 4, 0)
    for _ in range(7):
        capped.apply(Play(capped.hand(capped.seat)[0], "discard", "deck"))
    assert capped.ended_by == "capped"
    # the deck wins over the cap when both come on the same turn
    both = Round.dealt(rules("expeditions", turn_cap=36), 4, 0)
    while not both.ended:
        both.apply(Play(both.hand(both.seat)[0], "discard", "deck"))
    assert both.ended_by == "deck"


def test_solitaire_round():
    r = rules("expeditions", players=1)
    rnd = Round.dealt(r, 2, 0)
    while rnd.deck_size:
        c = rnd.hand(0)[0]
        with pytest.raises(IllegalMove, match="solitaire"):
            rnd.check(Play(c, "discard", 1))
        rnd.apply(Play(c, "discard", None if rnd.turn % 2 else "deck"))
        assert rnd.discard_piles == [[] for _ in range(4)] and len(rnd.hand(0)) == 6
    assert not rnd.ended
    assert len(rnd.out_of_game) == 18
    with pytest.raises(IllegalMove, match="deck is empty"):
        rnd.check(Play(rnd.hand(0)[0], "discard", "deck"))
    for k in range(6):
        rnd.apply(Play(rnd.hand(0)[0], "discard", None))
        assert len(rnd.hand(0)) == 5 - k
    assert rnd.ended_by == "hand-empty" and rnd.scores == [0] and rnd.turn == 24
    check_conservation(rnd)


def test_four_player_pass_rules():
    r = rules("expeditions", players=4)                     # pass_twice off, pass_min_hand 6
    rnd = Round.dealt(r, 21, 0)
    h = rnd.hand(0)
    with pytest.raises(IllegalMove, match="exactly 2"):
        rnd.check(Pass((h[0],)))
    with pytest.raises(IllegalMove, match="exactly 2"):
        rnd.check(Pass(tuple(h[:3])))
    not_held = next(c for c in deck_codes(r) if c not in h)
    with pytest.raises(IllegalMove, match="not in seat 0's hand"):
        rnd.check(Pass((h[0], not_held)))
    single = next(c for c in h if h.count(c) == 1)
    with pytest.raises(IllegalMove, match="only one"):
        rnd.check(Pass((single, single)))
    rnd.apply(Pass((h[0], h[1])))
    assert len(rnd.hand(0)) == 4 and len(rnd.hand(2)) == 8
    for _ in range(3):
        rnd.apply(Play(rnd.hand(rnd.seat)[0], "discard", "deck"))
    # seat 0 again: the hand is too small (checked before "twice in a row")
    with pytest.raises(IllegalMove, match="at least 6"):
        rnd.check(Pass(rnd.hand(0)[:2]))
    twice = Round.dealt(rules("expeditions", players=4, pass_min_hand=3), 21, 0)
    twice.apply(Pass(twice.hand(0)[:2]))
    for _ in range(3):
        twice.apply(Play(twice.hand(twice.seat)[0], "discard", "deck"))
    with pytest.raises(IllegalMove, match="two of its turns in a row"):
        twice.check(Pass(twice.hand(0)[:2]))
    twice.apply(Play(twice.hand(0)[0], "discard", "deck"))
    for _ in range(3):
        twice.apply(Play(twice.hand(twice.seat)[0], "discard", "deck"))
    twice.check(Pass(twice.hand(0)[:2]))                    # a play in between: fine again
    allowed = Round.dealt(rules("expeditions", players=4, pass_min_hand=3, pass_twice=True), 21, 0)
    allowed.apply(Pass(allowed.hand(0)[:2]))
    for _ in range(3):
        allowed.apply(Play(allowed.hand(allowed.seat)[0], "discard", "deck"))
    allowed.apply(Pass(allowed.hand(0)[:2]))
    assert len(allowed.hand(0)) == 2 and len(allowed.hand(2)) == 10


def test_pass_of_two_copies_removes_lowest_ids():
    r = rules("expeditions", players=4)
    hs = [codes("2C 2C 3C 3C 4C 4C", r), codes("2D 2D 3D 3D 4D 4D", r),
          codes("2H 2H 3H 3H 4H 4H", r), codes("2S 2S 3S 3S 4S 4S", r)]
    rest = Counter(deck_codes(r)) - sum((Counter(h) for h in hs), Counter())
    rnd = Round.from_codes(r, hs, sorted(rest.elements()))
    c = lambda t: parse_card(t, r)  # noqa: E731
    before = list(rnd.hands[0])
    rnd.apply(Pass((c("2C"), c("2C"))))                      # seat 0 -> seat 2
    assert rnd.hands[0] == before[2:] and rnd.hand(2).count(c("2C")) == 2
    rnd.apply(Play(c("3D"), "expedition", "deck"))           # seat 1
    rnd.apply(Play(c("2C"), "expedition", "deck"))           # seat 2, team A's C expedition
    rnd.apply(Play(c("3S"), "discard", "deck"))              # seat 3
    rnd.apply(Play(c("3C"), "expedition", "deck"))           # seat 0: 3 follows 2
    for _ in range(3):
        rnd.apply(Play(rnd.hand(rnd.seat)[-1], "discard", "deck"))
    assert rnd.hand(0).count(c("3C")) == 1
    with pytest.raises(IllegalMove, match="higher"):          # the second 3C cannot follow the first
        rnd.check(Play(c("3C"), "expedition", "deck"))
