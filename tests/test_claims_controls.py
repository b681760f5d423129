"""Every deciding measure of `lostcards claims` can come out either way: each of its controls, run small,
gives the verdict it declares (and every deciding measure has a control that holds and one that does not)."""
import pytest

from lostcards.analysis.claims import FAILS, HOLDS, load_experiments
from lostcards.analysis.claims.data import Context, Sizes
from lostcards.analysis.claims.runner import control_row

MODS = load_experiments()
SMALL = Sizes(rounds={"2p": 3_000, "4p": 1_000, "1p": 1_000, "lc": 1_000},
              records={"2p": 400, "4p": 150, "1p": 150, "lc": 150},
              deals={"2p": 1_500, "4p": 600, "1p": 800, "lc": 600},
              search_deals={"2p": 2, "1p": 2}, search="search:iterations=40")
CASES = [(cid, m.name, i) for cid, mod in MODS.items() for m in mod.CLAIM.measures if m.decides
         for i in range(len(m.controls))]


@pytest.fixture(scope="module")
def ctx():
    return Context(seed=7, sizes=SMALL)        # another seed than the report's


@pytest.mark.parametrize("cid,name,i", CASES, ids=[f"{c}/{n}/{i}" for c, n, i in CASES])
def test_each_control_gives_the_verdict_it_declares(ctx, cid, name, i):
    mod = MODS[cid]
    m = mod.CLAIM.measure_named(name)
    c = m.controls[i]
    row = control_row(mod, m, c, ctx)
    assert row.verdict == c.gives, (c.text(), row.est, row.expect)


@pytest.mark.parametrize("cid", list(MODS))
def test_every_deciding_measure_has_a_control_each_way(cid):
    for m in MODS[cid].CLAIM.measures:
        if m.decides:
            assert {c.gives for c in m.controls} == {HOLDS, FAILS}, m.name


PRESCRIPTIVE = ("expedition-cost", "investment-timing", "depth-bonus", "safe-discard", "play-low-early",
                "endgame-count")


@pytest.mark.parametrize("cid", PRESCRIPTIVE)
def test_a_tip_that_prescribes_play_is_decided_by_doing_it(cid):
    """Paired ablations on duplicate deals decide the prescriptive tips, not the bot's own choices."""
    dec = [m for m in MODS[cid].CLAIM.measures if m.decides]
    assert any(m.pair for m in dec), cid
    conditioned = {"score_open_low", "score_invested_short", "score_invested_funded"}
    assert not conditioned & {m.name for m in dec}
