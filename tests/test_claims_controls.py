"""Every deciding row of `lostcards claims` can come out either way where it decides: each control of its
measure, run in the row's own table and judged at the report's simultaneous level, gives the verdict it
declares (and every deciding measure has a control that holds and one that does not)."""
import pytest

from lostcards.analysis.claims import FAILS, HOLDS, load_experiments
from lostcards.analysis.claims.data import STANDARD, Context, Sizes
from lostcards.analysis.claims.runner import MAX_STAGES, control_row, planned_deciding
from lostcards.analysis.claims.verdict import simultaneous_level

MODS = load_experiments()
LEVEL = simultaneous_level(len(planned_deciding(MODS)), MAX_STAGES)      # the full report's level
CONTROL = Sizes(rounds=STANDARD.rounds, records={"2p": 1_000, "4p": 500, "1p": 500, "lc": 500},
                deals=STANDARD.deals, search_deals={"2p": 2, "1p": 2}, search="search:iterations=40",
                stakes_rounds={"2p": 200, "4p": 25, "1p": 100, "lc": 50})   # the smallest stakes plan whose
                                                                              # controls still come out decided
CASES = [(cid, m.name, t, i) for cid, mod in MODS.items() for m in mod.CLAIM.measures if m.decides
         for t in m.tables for i, c in enumerate(m.controls) if c.applies(t)]
CHEAP_FIRST = ("1p", "4p-seat", "lc", "4p-team", "2p")       # the tables in order of a control's cost


def _fast_cases() -> set:
    """Per tip, one control that holds and one that does not, in its cheapest table (the rest are slow)."""
    keep = set()
    for cid in MODS:
        if cid == "expedition-cost":         # its controls play out every lay-or-throw decision: slow only
            continue
        mine = sorted((c for c in CASES if c[0] == cid), key=lambda c: CHEAP_FIRST.index(c[2]))
        for want_holds in (True, False):
            keep |= {next(c for c in mine if (MODS[cid].CLAIM.measure_named(c[1]).controls[c[3]].gives == HOLDS)
                          == want_holds)}
    return keep


FAST = _fast_cases()


@pytest.fixture(scope="module")
def ctx():
    return Context(seed=7, sizes=CONTROL)        # another seed than the report's


def test_the_level_is_the_reports():
    assert 0.9995 < LEVEL < 0.99999


@pytest.mark.parametrize("cid,name,table,i", [pytest.param(*c, id="/".join(map(str, c)),
                                                            marks=() if c in FAST else pytest.mark.slow)
                                               for c in CASES])
def test_each_control_gives_the_verdict_it_declares_where_the_row_decides(ctx, cid, name, table, i):
    mod = MODS[cid]
    m = mod.CLAIM.measure_named(name)
    c = m.controls[i]
    row = control_row(mod, m, c, ctx, table, LEVEL)
    assert row.table == (c.table or table)
    assert c.matches(row.verdict, row.way), (c.text(table), row.verdict, row.way, row.est, row.expect)


@pytest.mark.parametrize("cid", list(MODS))
def test_every_deciding_row_has_a_control_each_way_in_its_table(cid):
    for m in MODS[cid].CLAIM.measures:
        if m.decides:
            for t in m.tables:
                gives = {c.gives for c in m.controls if c.applies(t)}
                assert HOLDS in gives and gives - {HOLDS}, (m.name, t)


def test_most_controls_are_a_bot_or_ruleset_a_player_could_meet():
    """Another bot of the ladder, a documented switch of expert's, or the published rules' hand, bonus or
    suits: the share of deciding (measure, table) pairs with such a control, and it says which."""
    pairs = [(m, t) for mod in MODS.values() for m in mod.CLAIM.measures if m.decides for t in m.tables]
    met = [(m.name, t) for m, t in pairs if any(c.variant and c.applies(t) for c in m.controls)]
    assert len(met) >= 0.6 * len(pairs), sorted({(m.name, t) for m, t in pairs} - set(met))


def test_controls_name_the_table_of_their_row():
    from lostcards.analysis.claims.declare import Control
    assert Control(FAILS, overrides=(("bonus_cards", 8),)).text("4p-team").startswith("expert (4 players (per team)")


PRESCRIPTIVE = ("investment-timing", "depth-bonus", "safe-discard", "play-low-early", "endgame-count",
                "discards-feed-opponent")


@pytest.mark.parametrize("cid", PRESCRIPTIVE)
def test_a_tip_that_prescribes_play_is_decided_by_doing_it(cid):
    """Paired interventions on duplicate deals decide the prescriptive tips, not the bot's own choices; a tip
    with no intervention on its own words decides nothing and says so."""
    c = MODS[cid].CLAIM
    dec = [m for m in c.measures if m.decides]
    assert (dec and all(m.pair for m in dec)) or (not dec and c.untested), cid


def test_one_comparison_is_counted_once():
    """The same paired comparison (switches, tables) decides at most one tip (Bonferroni counts it once)."""
    seen = {}
    for cid, mod in MODS.items():
        for m in mod.CLAIM.measures:
            if m.decides and m.pair:
                for t in m.tables:
                    key = (tuple(str(p) for p in m.pair), t)
                    assert key not in seen, (cid, m.name, seen.get(key))
                    seen[key] = (cid, m.name)


def test_rows_that_condition_on_a_bots_own_choices_never_decide():
    conditioned = {"score_open_low", "score_invested_short", "score_invested_funded", "handed_per_point",
                   "laid_started_minus_unstarted", "throws_started"}
    for mod in MODS.values():
        assert not conditioned & {m.name for m in mod.CLAIM.measures if m.decides}, mod.CLAIM.id


def test_only_tables_in_a_tips_scope_decide_and_none_twice():
    for cid, mod in MODS.items():
        c = mod.CLAIM
        for m in c.measures:
            if m.decides:
                assert set(m.tables) <= set(c.scope), (cid, m.name)
                # a 4-player team's total and its seats' are one quantity: never both deciding
                assert not {"4p-seat", "4p-team"} <= set(m.tables) or m.pair, (cid, m.name)
    assert MODS["reach-22-plus-60"].CLAIM.scope == ("2p",)              # "over a two-player round"
    assert "lc" not in MODS["depth-bonus"].CLAIM.scope                  # six cards; lost-cities pays at 8
    assert "1p" not in MODS["endgame-count"].CLAIM.scope                # nothing is stranded in solitaire
    assert MODS["expert-discards"].CLAIM.deciding == ("expert",)        # "the Expert bot"


def test_a_tip_whose_words_no_row_tests_says_so():
    for cid, mod in MODS.items():
        c = mod.CLAIM
        if not any(m.decides and m.tables for m in c.measures):
            assert c.untested, cid
    dec = [m.name for m in MODS["expedition-cost"].CLAIM.measures if m.decides]
    assert dec == ["stake_first_minus_fifth"]          # the first card's stake against the fifth's; 15+ is context
