"""`lostcards claims --quick`: the files it writes, the CSV contract, the simultaneous intervals, the texts."""
import json
import re
import time
import traceback

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from lostcards.analysis.claims import load_experiments
from lostcards.analysis.claims.report import CSV_COLUMNS
from lostcards.analysis.claims.runner import planned_deciding
from lostcards.analysis.claims.verdict import FAILING, NO_EFFECT, ROW_VERDICTS, simultaneous_level
from lostcards.cli import main

CONTRACT = ["claim", "measure", "policy", "rules", "players", "estimate", "ci_low", "ci_high", "n",
            "smallest_effect", "verdict", "decides", "fails_under"]


@pytest.fixture(scope="module")
def quick(tmp_path_factory, request):
    """One quick run for the session, however pytest-xdist spreads this module's tests over its workers:
    the first worker to take the lock (an atomic mkdir in the workers' shared temporary folder) runs it,
    the others wait for its last line."""
    worker = getattr(request.config, "workerinput", None)
    shared = tmp_path_factory.getbasetemp().parent if worker else tmp_path_factory.getbasetemp()
    out, done = shared / "claims-quick", shared / "claims-quick.done"
    try:
        (shared / "claims-quick.lock").mkdir()
    except FileExistsError:
        deadline = time.monotonic() + 900
        while not done.exists():
            assert time.monotonic() < deadline, "the other worker's quick claims run did not finish"
            time.sleep(0.2)
    else:
        res = CliRunner().invoke(main, ["claims", "--quick", "--out", str(out)])
        failed = "".join(traceback.format_exception(res.exc_info[1])) if res.exception else ""
        done.write_text(f"{res.exit_code}\n{res.output}{failed}")
    code, output = done.read_text().split("\n", 1)
    assert code == "0", output
    return out


@pytest.fixture(scope="module")
def csv(quick):
    return pd.read_csv(quick / "claims.csv", keep_default_na=False, na_values=[""])


def test_the_csv_contract(csv):
    assert list(csv.columns[:len(CONTRACT)]) == CONTRACT == list(CSV_COLUMNS)
    assert set(csv.decides) <= {"true", "false"} or set(csv.decides.astype(str).str.lower()) <= {"true", "false"}
    dec = csv[csv.decides.astype(str).str.lower() == "true"]
    ctx = csv[csv.decides.astype(str).str.lower() == "false"]
    assert len(dec) > 40 and len(ctx) > 40
    assert set(dec.verdict) <= set(ROW_VERDICTS)        # holds, does not hold, at the edge, undecided
    assert set(dec.way.fillna("")) <= {"", "harmful", "no material effect"}
    assert set(dec.cause.fillna("")) <= {"", "too few games"}
    declared = dec[dec.tolerance_basis.fillna("") == ""]          # every deciding row's tolerance is derived
    assert declared.empty, sorted(set(declared.measure))
    assert ctx.verdict.isna().all()                                 # context rows have no verdict
    assert (dec.fails_under.fillna("").str.len() > 0).all()         # every deciding row names its control
    assert ctx.fails_under.isna().all()
    assert set(csv.players) <= {1, 2, 4} and set(csv.rules) <= {"expeditions", "lost-cities"}
    for r in csv.itertuples():
        assert r.n > 0, r
        if np.isfinite(r.ci_low):
            assert r.ci_low - 1e-9 <= r.estimate <= r.ci_high + 1e-9, r
    assert dec.smallest_effect.notna().all() and (dec.smallest_effect > 0).all()


def test_deciding_intervals_are_simultaneous_over_the_report(csv, quick):
    dec = csv[csv.decides.astype(str).str.lower() == "true"]
    man = json.loads((quick / "claims.manifest.json").read_text())
    assert man["deciding_rows"] == len(dec) == len(planned_deciding(load_experiments()))
    level = simultaneous_level(len(dec), 3)
    assert dec.level.to_numpy() == pytest.approx(level)
    ok = dec[np.isfinite(dec.ci_low) & np.isfinite(dec.ci95_low)]
    assert (ok.ci_low <= ok.ci95_low + 1e-9).all() and (ok.ci_high >= ok.ci95_high - 1e-9).all()
    assert ((ok.ci_high - ok.ci_low) > (ok.ci95_high - ok.ci95_low)).mean() > 0.9
    md = (quick / "claims.md").read_text()
    assert f"{len(dec)} deciding rows" in md and "Bonferroni" in md


def test_verdicts_follow_from_the_interval_and_the_region(csv):
    from lostcards.analysis.claims.verdict import AT_EDGE, FAILS, UNDECIDED, effect_verdict, row_verdict
    dec = csv[csv.decides.astype(str).str.lower() == "true"]
    for r in dec.itertuples():
        v = row_verdict(r.ci_low, r.ci_high, r.region_low, r.region_high)
        way = effect_verdict(r.ci_low, r.ci_high, r.equivalence_margin, "") if np.isfinite(r.equivalence_margin) else ""
        v = FAILS if way and v != "holds" else v
        assert r.plain_verdict == v, r
        assert (r.way if isinstance(r.way, str) else "") == way, r
        marks = [x for x in (r.region_low, r.region_high) if np.isfinite(x)]
        near = min(0.0 if r.ci_low <= x <= r.ci_high else min(abs(x - r.ci_low), abs(x - r.ci_high))
                   for x in marks)
        if v != UNDECIDED and near < r.ci_high - r.ci_low:     # within its own width of an edge
            v = AT_EDGE
        assert r.verdict == v, r
        if way:
            assert v in (FAILS, AT_EDGE), r
        if r.cause == "too few games":                         # a strong bot at its plan's most games
            assert v == UNDECIDED and r.policy.startswith("improve"), r
    assert dec.equivalence_margin.notna().sum() > 10 and dec.equivalence_margin.isna().sum() > 3


def test_every_claim_every_table_a_figure_a_section_and_a_tip(quick, csv):
    mods = load_experiments()
    from lostcards.analysis.claims.loader import experiments_dir
    assert len(mods) == len([p for p in experiments_dir().glob("*.py") if not p.name.startswith("_")]) > 0
    md = (quick / "claims.md").read_text()
    tips = (quick / "tips.md").read_text()
    for cid, mod in mods.items():
        assert (csv.claim == cid).any(), cid
        assert set(csv[csv.claim == cid].table) == set(mod.CLAIM.tables()), cid
        for ext in ("png", "svg"):
            f = quick / "figures" / f"{cid}.{ext}"
            assert f.exists() and f.stat().st_size > 5000, f
        assert f"figures/{cid}.png" in md and f'id="{cid}"' in md
        assert f"claims.md#{cid}" in tips, cid
    # every table of the brief is measured somewhere: 2 players, 4 per seat and per team, solitaire, lost-cities
    assert set(csv.table) == {"2p", "4p-seat", "4p-team", "1p", "lc"}
    assert set(csv[csv.decides.astype(str).str.lower() == "true"].table) == {"2p", "4p-seat", "4p-team", "1p", "lc"}


def test_the_header_shows_the_command_as_run_and_the_bots_that_decide(quick):
    md = (quick / "claims.md").read_text()
    assert "context only: it is weaker than `expert`" in md      # search decides nothing
    assert re.search(r"`improve:k=\d+`.*against `expert` on duplicate deals it gains [-+]?\d", md)
    assert "improve" in md.split("The bots that decide, per table")[1].split("\n")[0]
    assert f"`lostcards claims --quick --out {quick}`" in md
    assert "claims claims" not in md


def _numbers(text: str) -> list:
    """Numbers a reader sees in prose (not in markdown links, code or tables)."""
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return [m.group(0) for m in re.finditer(r"(?<![\w.])[-+]?\d+(?:,\d{3})*(?:\.\d+)?%?", text)]


def _csv_numbers(csv) -> set:
    vals = set()
    for col in csv.columns:
        for v in csv[col].dropna():
            if isinstance(v, (int, float, np.integer, np.floating)):
                if np.isfinite(v):
                    vals.add(float(v))
            else:
                vals.update(float(t.replace(",", "")) for t in re.findall(r"\d+(?:\.\d+)?", str(v)))
    return vals


def _in_csv(token: str, vals: set) -> bool:
    pct = token.endswith("%")
    t = token.rstrip("%").lstrip("+").replace(",", "")
    x = abs(float(t))
    d = len(t.split(".")[1]) if "." in t else 0
    for v in vals:
        w = abs(100 * v if pct else v)
        if round(w, d) == round(x, d) or abs(w - x) <= 0.5 * 10 ** -d + 1e-9:
            return True
    return False


def test_every_number_of_tips_md_is_in_claims_csv(quick, csv):
    vals = _csv_numbers(csv)
    tips = (quick / "tips.md").read_text().split("\n", 3)[-1]       # the tips, not the heading lines
    missing = [t for t in _numbers(tips) if not _in_csv(t, vals)]
    assert not missing, missing


def test_every_number_of_the_readings_is_in_claims_csv(quick, csv):
    vals = _csv_numbers(csv)
    md = (quick / "claims.md").read_text()
    readings = " ".join(re.findall(r"\*\*Reading\.\*\* (.*)", md))
    assert readings
    missing = [t for t in _numbers(readings) if not _in_csv(t, vals)]
    assert not missing, missing


def test_no_text_speaks_of_who_made_or_tuned_the_bots(quick):
    for name in ("claims.md", "tips.md"):
        text = (quick / name).read_text().lower()
        for word in ("tuned", "by others", "author", "helper", "session", "trial before"):
            assert word not in text, (name, word)


def test_one_claim_by_id_and_unknown_ids(tmp_path):
    res = CliRunner().invoke(main, ["claims", "plays-per-round", "--quick", "--stages", "1", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert set(pd.read_csv(tmp_path / "claims.csv").claim) == {"plays-per-round"}
    bad = CliRunner().invoke(main, ["claims", "no-such-tip", "--quick", "--out", str(tmp_path)])
    assert bad.exit_code != 0 and "unknown claim" in bad.output



def _tip_lines(quick) -> dict:
    lines = {}
    for line in (quick / "tips.md").read_text().splitlines():
        m = re.search(r"claims\.md#([\w-]+)", line)
        if m:
            lines[m.group(1)] = line
    return lines


def test_every_sign_verdict_and_table_tips_md_states_is_its_rows(quick, csv):
    """Each sign ('loses 13'), verdict ('does not pay') and table ('for a four-player team') a sentence of
    tips.md states is checked against the row of claims.csv it was written from, and its words are in the line."""
    checks = json.loads((quick / "claims.manifest.json").read_text())["tip_checks"]
    lines = _tip_lines(quick)
    assert len(checks) > 30
    for c in checks:
        rows = csv[(csv.claim == c["claim"]) & (csv.measure == c["measure"]) & (csv.table == c["table"])
                   & (csv.policy == c["policy"])]
        assert len(rows) == 1, c
        r = rows.iloc[0]
        says = c["says"]
        if says in ("+", "-", "sign:+", "sign:-"):
            assert (r.estimate >= 0) == says.endswith("+"), (c, r.estimate)
        elif says.startswith("verdict:"):
            assert r.verdict == says.split(":", 1)[1], (c, r.verdict)
        elif says.startswith("way:"):             # which way a comparison fails: harmful, no material effect
            assert r.way == says.split(":", 1)[1], (c, r.way)
        elif says.startswith("cause:"):
            assert r.cause == says.split(":", 1)[1], (c, r.cause)
        elif says.startswith("lean:"):            # at the edge: the words of the way it leans
            assert r.verdict == "at the edge" and r.plain_verdict == says.split(":", 1)[1], (c, r.verdict)
        elif says.startswith("table:"):
            assert r.table == says.split(":", 1)[1]
        if c["words"]:
            assert c["words"] in lines[c["claim"]], c


def test_tips_md_says_does_not_pay_or_no_difference_only_where_its_rows_do(quick):
    checks = json.loads((quick / "claims.manifest.json").read_text())["tip_checks"]
    for cid, line in _tip_lines(quick).items():
        said = {c["says"] for c in checks if c["claim"] == cid}
        lean = "(at the edge)" in line          # the words of the way an at-the-edge row leans, so marked
        said |= {"verdict:" + c["says"][5:] for c in checks
                 if lean and c["claim"] == cid and c["says"].startswith("lean:")}
        if "does not pay" in line or "does not hold here" in line:
            assert said & {f"verdict:{v}" for v in FAILING} | {"sign:-"}, (cid, line)
        if "no material difference" in line:
            assert f"way:{NO_EFFECT}" in said, (cid, line)
        if "harmful" in line or "costs points" in line:
            assert "way:harmful" in said, (cid, line)


def _tip_parts(line: str) -> list:
    """The sentences (``tips(result)`` items) of one tips.md line, each followed there by its link."""
    body = re.sub(r"^- \*\*[^*]+\*\*\s*", "", line)
    return [p.strip() for p in re.split(r"\s*\[→\]\(claims\.md#[\w-]+\)\s*", body) if p.strip()]


def test_each_tip_states_the_corrected_tip_first_and_every_sentence_names_its_row(quick, csv):
    """Every sentence of tips.md holds words written from a row of its tip (a number, or prose a verdict
    chose), so fixed prose cannot stand alone; and the first sentence of a tip with deciding rows is the
    corrected tip: prose chosen by a deciding row's verdict."""
    checks = json.loads((quick / "claims.manifest.json").read_text())["tip_checks"]
    dec = csv[csv.decides.astype(str).str.lower() == "true"]
    for cid, line in _tip_lines(quick).items():
        mine = [c for c in checks if c["claim"] == cid and c["words"]]
        for part in _tip_parts(line):
            assert any(c["words"] in part for c in mine), (cid, part)
        if (dec.claim == cid).any():
            first = _tip_parts(line)[0]
            chosen = [c for c in mine if c["says"].startswith("verdict:")
                      and ((dec.claim == cid) & (dec.measure == c["measure"]) & (dec.policy == c["policy"])
                           & (dec.table == c["table"])).any()]
            assert any(c["words"] in first for c in chosen), (cid, first)


def test_tips_md_drops_the_sentences_no_row_supports(quick):
    tips = (quick / "tips.md").read_text()
    for gone in ("plus one for every card either player takes off a discard pile", "never in one you cannot fund",
                 "Skipping the low cards does not pay", "Most hands hold more than you can use"):
        assert gone not in tips, gone
