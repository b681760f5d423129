"""The batch loop: every round a function of (seed, round index) alone, whatever the rounds in flight.

Finding: the loop took raw pointers to its buffers and numba freed the buffers after that last
use; a policy that allocates (expert, through the old observation row) got the freed memory and
wrote over the rounds in flight: wrong moves with two or more rounds in flight, then a segfault.
"""
import numpy as np
import pytest

from lostcards.rules.ruleset import rules
from lostcards.run.runner import play


@pytest.mark.parametrize("players", [1, 2])
def test_rounds_in_a_batch_play_as_they_play_alone(players):
    r = rules("expeditions", players=players)
    together = play(r, "expert", "expert", rounds=6, seed=3, threads=1)
    alone = [play(r, "expert", "expert", rounds=1, seed=3, start=i, threads=1) for i in range(6)]
    assert (together.round_info == np.concatenate([a.round_info for a in alone])).all()
    assert (together.seats == np.concatenate([a.seats for a in alone])).all()
