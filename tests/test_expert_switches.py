"""expert's switches for the tips' causal tests: the defaults change nothing, each switch does its one job."""
import functools

import numpy as np
import pytest

from lostcards import rules
from lostcards.analysis.movelog import walk
from lostcards.run.runner import play, play_records

R2 = rules("expeditions")
N = 300


def _same(a, b, r=R2, n=N, other="greedy"):
    x = play(r, a, other, rounds=n, seed=4)
    y = play(r, b, other, rounds=n, seed=4)
    return all((p == q).all() for p, q in zip((x.round_info, x.seats, x.seat_suits, x.side_suits),
                                               (y.round_info, y.seats, y.seat_suits, y.side_suits)))


@pytest.mark.parametrize("players", [1, 2, 4])
def test_the_defaults_spelled_out_change_nothing(players):
    r = rules("expeditions", players=players)
    spelled = "expert:open_hand=0,invest_hand=0,open_from=0,count=on,skip_low=on,last_play=on,bonus_from=0"
    assert _same("expert", spelled, r, 200, None if players == 1 else "greedy")


def test_count_and_last_play_off_is_no_endgame_and_skip_low_acts_only_in_it():
    assert _same("expert:count=off,last_play=off", "expert:endgame=off")
    assert _same("expert:endgame=off,skip_low=off", "expert:endgame=off")
    for spec in ("expert:count=off", "expert:last_play=off", "expert:skip_low=off"):
        assert not _same("expert", spec), spec


@functools.lru_cache(maxsize=None)
def _expeditions(spec, n=200):
    return walk(play_records(R2, spec, spec, range(n), seed=2)).facts["expeditions"]


def test_open_hand_and_open_from_hold_outside_the_endgame():
    # 2 players: the endgame plan starts when the plays left (deck / 2) are at most the hand
    mid = lambda x: x[x.deck_at_open > 2 * R2.hand_size]  # noqa: E731
    x = mid(_expeditions("expert:open_hand=22"))
    assert len(x) > 50 and (x.held_at_open >= 22).all()
    assert (mid(_expeditions("expert")).held_at_open < 22).any()
    assert (_expeditions("expert:open_from=12").open_turn >= 12).all()


def test_invest_hand_and_bonus_from():
    x = _expeditions("expert:invest_hand=24")
    laid = x[(x.invest_held >= 0) & (x.deck_at_open > 2 * R2.hand_size)]
    assert len(laid) > 20 and (laid.invest_held >= 24).all()
    deep = lambda spec: (_expeditions(spec).cards >= R2.bonus_cards).mean()  # noqa: E731
    assert deep("expert:bonus_from=4") < deep("expert") - 0.02
    assert np.isfinite(deep("expert"))


def test_pass_pays_passes():
    """pass=pays is not a no-op: with 4 players it passes more than pass=on (the rounds differ)."""
    r = rules("expeditions", players=4)
    on = play(r, "expert", "expert", rounds=200, seed=3, first=-1)
    pays = play(r, "expert:pass=pays", "expert:pass=pays", rounds=200, seed=3, first=-1)
    assert (on.round_info != pays.round_info).any()
