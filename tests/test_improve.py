"""The `improve` bot (a policy-improvement step around a base policy): legal everywhere,
reproducible, the base's own play when it never switches, the shared play-outs of analyze,
and stronger than its base."""
import pytest

import lostcards
from lostcards.errors import PolicyError
from lostcards.policies import bases, resolve
from lostcards.policies.improve import IMPROVE, improved
from lostcards.run.runner import play, play_records

CASES = [("expeditions", 2), ("expeditions", 4), ("expeditions", 1),
         ("lost-cities", 2), ("lost-cities", 4), ("lost-cities", 1)]
QUICK = "improve:k=4"


def _ids(c):
    return f"{c[0]}-{c[1]}p"


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_legal_in_every_player_count_and_ruleset(case):
    r = lostcards.rules(case[0], players=case[1])
    info = play(r, QUICK, "random", 3, 11, first=-1).round_info
    assert (info[:, 2] >= 0).all(), "a round stopped on an illegal move"
    assert (info[:, 2] != 3).all(), "a round ran to the turn cap"


def test_legal_around_other_bases():
    r = lostcards.rules("expeditions", players=2)
    for spec in ("improve:base=greedy,k=4", "improve:base=random,k=4", "improve:base=blueprint,k=4",
                 "improve:base=learned,k=4"):
        info = play(r, spec, "expert", 2, 3, first=-1).round_info
        assert (info[:, 2] >= 0).all(), spec


def test_reproducible_from_the_seed():
    r = lostcards.rules("expeditions", players=2)
    a = play_records(r, QUICK, "expert", range(2), 5)
    b = play_records(r, QUICK, "expert", range(2), 5)
    c = play_records(r, QUICK, "expert", range(2), 6)
    assert a == b
    assert a != c


@pytest.mark.parametrize("case", [("expeditions", 2), ("expeditions", 4), ("lost-cities", 1)],
                         ids=_ids)
@pytest.mark.parametrize("base", ["expert", "random"])
def test_keeps_the_bases_move_when_z_is_huge(case, base):
    r = lostcards.rules(case[0], players=case[1])
    a = play_records(r, f"improve:base={base},k=4,z=1000000", "expert", range(2), 8)
    b = play_records(r, base, "expert", range(2), 8)
    assert a == b


def test_k_below_two_is_the_base():
    r = lostcards.rules("expeditions", players=2)
    assert play_records(r, "improve:k=0", "greedy", range(2), 4) == play_records(r, "expert", "greedy", range(2), 4)


def test_spec_parameters_and_any_base():
    p = resolve("improve:base=greedy,k=16,z=1.5")
    assert p.spec == "improve:k=16,z=1.5,base=greedy"
    assert p.base.spec == "greedy"
    # k, z, seconds, race, infer, luck, base (its place among the bases)
    assert p.params[:7].tolist() == [16.0, 1.5, 0.0, 0.0, 0.0, 0.0, bases().index("greedy")]
    assert p.params[7] == 0.0 and p.params[8] == 0.0       # rules: none; prior: the base
    assert p.params[11] == 12.0                           # the prior's values: the base's
    assert p.params[12:].tolist() == resolve("greedy").params.tolist()
    assert IMPROVE.base is None and resolve("improve").params[:7].tolist() == [128.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    q = improved("expert:invest=never", k=8, infer=0.25, luck=0.5)
    assert q.params[4] == 0.25 and q.params[5] == 0.5
    assert q.name == "improve(expert:invest=never)" and q.params[12:].tolist() == resolve(
        "expert:invest=never").params.tolist()
    with pytest.raises(PolicyError, match="k=600 is not allowed"):
        resolve("improve:k=600")


def test_a_prior_is_the_incumbent_and_the_base_plays_out():
    """prior=P: P's move is the one kept unless a challenger beats it (k < 2 or z huge: P's rounds,
    exactly); its values follow the base's; the play-outs stay the base's."""
    r = lostcards.rules("expeditions", players=2)
    for spec in ("improve:k=0,prior=greedy", "improve:k=4,z=1000000,prior=greedy"):
        assert play_records(r, spec, "expert", range(2), 4) == play_records(r, "greedy", "expert", range(2), 4)
    p = resolve("improve:prior=greedy,base=random")
    g, b = resolve("greedy").params, resolve("random").params
    assert p.prior.spec == "greedy" and p.params[11] == 12 + b.size
    assert p.params[12:12 + b.size].tolist() == b.tolist() and p.params[12 + b.size:].tolist() == g.tolist()
    assert resolve("improve:prior=base").prior is None
    q = improved("expert", k=4, prior="greedy")
    assert q.name == "improve(expert, prior=greedy)" and q.params[11] == 12 + resolve("expert").params.size
    info = play(r, "improve:k=4,prior=student", "expert", 2, 3, first=-1).round_info
    assert (info[:, 2] >= 0).all()
    assert (play_records(r, "expectimax:k=0,prior=greedy", "expert", range(2), 4)      # improve there
            == play_records(r, "greedy", "expert", range(2), 4))
    with pytest.raises(PolicyError, match="prior"):
        resolve("improve:prior=nobody")


def test_seconds_budget_is_a_cap():
    """A budget of 1 ms a decision still plays a whole legal round, and it changes no move when it is
    never reached (k=4 is done long before an hour)."""
    r = lostcards.rules("expeditions", players=2)
    info = play(r, "improve:k=256,seconds=0.001", "expert", 1, 2, threads=1).round_info
    assert info[0, 2] >= 0
    loose = play(r, "improve:k=4,seconds=3600", "expert", 3, 2, threads=1).round_info
    assert (loose == play(r, "improve:k=4", "expert", 3, 2, threads=1).round_info).all()


def test_analyze_and_improve_share_the_play_outs():
    import inspect

    from lostcards.analysis import analyze
    from lostcards.engine import playouts
    from lostcards.policies.improve import decision
    from lostcards.policies.learned import rollout
    from lostcards.policies.search import playout
    assert decision.play_outs_on is playouts.play_outs_on
    assert "play_outs_on(" in inspect.getsource(playouts.play_outs.py_func)
    assert "play_outs(" in inspect.getsource(playouts.margins.py_func)
    assert "from lostcards.engine.playouts import MARGINS_SIG, margins" in inspect.getsource(analyze.analyze_round)
    assert playout.play_to_end is rollout.play_to_end is playouts.play_to_end


@pytest.mark.slow
def test_beats_expert_on_duplicate_deals():
    from lostcards.analysis.tournament import play_pair
    df = play_pair(lostcards.rules("expeditions", players=2), "improve", "expert", rounds=60, seed=4242)
    assert df["margin"].mean() > 0, df["margin"].describe()
