"""The `improve` bot (a policy-improvement step around a base policy): legal everywhere,
reproducible, the base's own play when it never switches, the shared play-outs of analyze,
and stronger than its base."""
import numpy as np
import pytest

import lostcards
from lostcards.engine import core
from lostcards.engine.apply import step
from lostcards.engine.intrinsics import decide_address, offset, ptr
from lostcards.engine.layout import M_RNG, MEM_WORDS, S_SEAT, S_TURN, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.playouts import NEVER, decided_at
from lostcards.engine.rng import seed_stream
from lostcards.errors import PolicyError
from lostcards.numba_cache import jit
from lostcards.policies import bases, resolve
from lostcards.policies.improve import IMPROVE, improved
from lostcards.policies.improve.decision import (
    N_OWN,
    P_DEPTH,
    P_OTHERS,
    P_OTHERS_AT,
    P_OTHERS_PARAMS,
    P_PRIOR,
    P_PRIOR_AT,
    P_RULES,
)
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
    # k, z, seconds, race, infer, luck, depth, base (its place among the bases)
    assert p.params[:8].tolist() == [16.0, 1.5, 0.0, 0.0, 0.0, 0.0, 0.0, bases().index("greedy")]
    assert p.params[P_RULES] == 0.0 and p.params[P_PRIOR] == 0.0 and p.params[P_OTHERS] == 0.0   # none; the base
    assert p.params[P_PRIOR_AT] == N_OWN and p.params[P_OTHERS_PARAMS] == N_OWN    # their values: the base's
    assert p.params[N_OWN:].tolist() == resolve("greedy").params.tolist()
    assert IMPROVE.base is None and resolve("improve").params[:8].tolist() == [128.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    q = improved("expert:invest=never", k=8, infer=0.25, luck=0.5, depth=6)
    assert q.params[4] == 0.25 and q.params[5] == 0.5 and q.params[P_DEPTH] == 6.0
    assert q.name == "improve(expert:invest=never)" and q.params[N_OWN:].tolist() == resolve(
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
    assert p.prior.spec == "greedy" and p.params[P_PRIOR_AT] == N_OWN + b.size
    assert p.params[N_OWN:N_OWN + b.size].tolist() == b.tolist() and p.params[N_OWN + b.size:].tolist() == g.tolist()
    assert resolve("improve:prior=base").prior is None
    q = improved("expert", k=4, prior="greedy")
    assert q.name == "improve(expert, prior=greedy)" and q.params[P_PRIOR_AT] == N_OWN + resolve("expert").params.size
    info = play(r, "improve:k=4,prior=student", "expert", 2, 3, first=-1).round_info
    assert (info[:, 2] >= 0).all()
    assert (play_records(r, "expectimax:k=0,prior=greedy", "expert", range(2), 4)      # improve there
            == play_records(r, "greedy", "expert", range(2), 4))
    with pytest.raises(PolicyError, match="prior"):
        resolve("improve:prior=nobody")


def test_others_move_the_other_side_in_the_play_outs():
    """others=P: the other side's seats play P in the play-outs (the seat's own side the base); P the
    base itself is improve unchanged; its values follow the prior's; infer models the other seat with it."""
    r = lostcards.rules("expeditions", players=2)
    same = play_records(r, "improve:k=8", "expert", range(2), 4)
    assert play_records(r, "improve:k=8,others=expert", "expert", range(2), 4) == same
    assert play_records(r, "improve:k=8,others=base", "expert", range(2), 4) == same
    assert play_records(r, "improve:k=8,others=random", "expert", range(2), 4) != same
    p = resolve("improve:base=random,prior=greedy,others=expert")
    b, g, e = (resolve(x).params for x in ("random", "greedy", "expert"))
    assert p.others.spec == "expert" and p.params[P_OTHERS] == bases(first="expert").index("expert") + 1
    assert p.params[P_OTHERS_AT] == decide_address(resolve("expert").kernel)
    assert p.params[P_OTHERS_PARAMS] == N_OWN + b.size + g.size and p.params[N_OWN + b.size + g.size:].tolist() == \
        e.tolist()
    q = improved("student", k=4, others="expert")
    assert q.name == "improve(student, others=expert)" and q.params[P_OTHERS_PARAMS] == N_OWN + \
        resolve("student").params.size
    for case in (("expeditions", 4), ("lost-cities", 1)):
        info = play(lostcards.rules(case[0], players=case[1]), "improve:k=4,others=greedy", "expert", 2, 3,
                    first=-1).round_info
        assert (info[:, 2] >= 0).all()
    with pytest.raises(PolicyError, match="others"):
        resolve("improve:others=nobody")


def test_depth_hands_the_own_side_to_others_after_some_turns():
    """depth=d: the seat's own side moves by the base for the play-out's first d turns, by `others`
    after them; with others the base (the default) it changes nothing, and a depth past the round's
    end is no depth."""
    r = lostcards.rules("expeditions", players=2)
    same = play_records(r, "improve:k=8", "expert", range(2), 4)
    assert play_records(r, "improve:k=8,depth=2", "expert", range(2), 4) == same
    cut = play_records(r, "improve:k=8,others=greedy", "expert", range(2), 4)
    assert play_records(r, "improve:k=8,others=greedy,depth=200", "expert", range(2), 4) == cut
    short = play_records(r, "improve:k=8,others=greedy,depth=2", "expert", range(2), 4)
    assert short != cut and short != same
    for case in (("expeditions", 4), ("lost-cities", 1)):
        info = play(lostcards.rules(case[0], players=case[1]), "improve:k=4,others=greedy,depth=3", "expert", 2,
                    3, first=-1).round_info
        assert (info[:, 2] >= 0).all()
    with pytest.raises(PolicyError, match="depth"):
        resolve("improve:depth=-1")


@jit
def _split_moves(rb, seed, decide_a, par_a, decide_b, par_b, until, out, differ):
    """A round of seed `seed` played by ``playouts.decided_at`` with decider a on side 0 before turn
    `until` and b after it and on side 1; out[t] = 1 where the move is the one that decider makes
    alone from the same memory; differ[t] = 1 where a and b alone would move differently."""
    st_a = np.zeros(STATE_WORDS, np.int64)
    mem_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    keep_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    one_a = np.zeros(2, np.int64)
    st, mem, keep, one = ptr(st_a), ptr(mem_a), ptr(keep_a), ptr(one_a)
    core.load_rules(st, ptr(rb))
    core.deal(st, mem, seed, 0, 0, 0)
    for q in range(2):
        seed_stream(offset(mem, q * MEM_WORDS + M_RNG), seed, 0, 1 + q)
    split = (decide_a, mem, ptr(par_a), one, decide_b, ptr(par_b), 0, until)
    t = 0
    while not core.ended(st) and t < out.shape[0]:
        for w in range(SLOT_MEM_WORDS):
            keep[w] = mem[w]
        m = decided_at(st, split)
        for w in range(SLOT_MEM_WORDS):
            mem[w] = keep[w]
        ma = decided_at(st, (decide_a, mem, ptr(par_a), one, decide_a, ptr(par_a), 0, NEVER))
        for w in range(SLOT_MEM_WORDS):
            mem[w] = keep[w]
        mb = decided_at(st, (decide_b, mem, ptr(par_b), one, decide_b, ptr(par_b), 1, NEVER))
        alone = ma if (st[S_SEAT] & 1) == 0 and st[S_TURN] < until else mb
        out[t] = 1 if alone == m else 0
        differ[t] = 1 if ma != mb else 0
        if step(st, m) != 0:
            out[t] = -1
            break
        t += 1
    return t


@pytest.mark.parametrize("until", [NEVER, 9])
def test_decided_at_picks_the_decider_by_side_and_turn(until):
    """Side 0 moves by expert (before turn `until`), every other move by greedy: each move is the one
    its decider makes alone, and the two deciders disagree on both sides of the switch (so a decider
    picked by side alone, or by turn alone, fails)."""
    e, g = resolve("expert"), resolve("greedy")
    out, differ = np.zeros(400, np.int64), np.zeros(400, np.int64)
    n = _split_moves(core.rules_block(lostcards.rules("expeditions")), 7, decide_address(e.kernel), e.params,
                     decide_address(g.kernel), g.params, until, out, differ)
    assert n > 20 and (out[:n] == 1).all()
    side0 = np.arange(n) % 2 == 0           # seat 0 starts: side 0 moves on even turns
    early = np.arange(n) < min(until, n)
    assert differ[:n][side0 & early].any() and differ[:n][~side0].any()
    if until < n:
        assert differ[:n][side0 & ~early].any()


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
