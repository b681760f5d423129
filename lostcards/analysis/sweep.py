"""`lostcards sweep`: the game metrics over a grid of rule parameters, on common seeds.

    lostcards sweep --grid hand_size=5,6,7,8 --grid bonus_cards=5,6,7,8 --rounds 20000 --out runs/sweep
    lostcards sweep --rules lost-cities --players 4 --grid stall_limit=0,4,8 --set turn_cap=2000
    lostcards sweep --set stall_limit=2 --policy greedy         # one cell: the metrics and the checks

Every cell is a ruleset (the preset, ``--set`` overrides, then the cell's grid
values) and is played on the same seed and the same round indices, so cells
with the same deck (same suits, numbers, investments, extra copies, players)
get the same shuffles: common random numbers.  Each metric is compared with a
baseline cell as a *paired* difference over the same rounds, deals or matches,
with its own 95% interval (``lostcards.metrics.paired_diff``).

Every cell is built and validated before anything is played: an impossible
value (``hand_size=0``, ``suits=9``, ``bonus_cards`` above the cards of a suit,
...) is refused with a message that names the parameter and the cell.

Checks (thresholds in ``THRESHOLDS``, overridable on the command line); a cell is flagged when:

- ``stall_or_cap``: the share of rounds ended by the stall rule or the turn cap is above 5%;
- ``first_player``: the first player's win rate (draws half) is above 55% and its
  95% interval lies above 50%;
- ``skill``: the policy's win rate against ``greedy`` (a casual player; per game,
  draws half, duplicate deals) is below 60%.  (Against ``random`` every bot wins
  about 99%, so a check against random could not fire.)

``WHY`` says in a sentence why each threshold is where it is.

Each cell's samples are written as soon as it is measured (``sweep_cells``), so
an interrupted sweep, run again with the same command, plays only the cells it
lacks.  At the end ``sweep_report.write`` writes ``metrics.csv`` (tidy: one row
per cell and metric), ``diffs.csv`` (paired differences against the baseline),
``flags.csv``, ``sweep-metrics.png`` and ``sweep-diffs.png`` (heat maps for two
grid parameters, lines with intervals for one, dots with intervals otherwise)
and ``manifest.json``.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from lostcards.analysis.metrics import CellData, diff_table, measure, same_deals
from lostcards.errors import RulesError, SweepError
from lostcards.rules.ruleset import PARAMETERS, PRESETS, Ruleset, convert, format_value, shorten, text_rules
from lostcards.rules.ruleset import rules as make_rules

THRESHOLDS = {
    "stall_or_cap": 0.05,   # flag above: share of rounds ended by the stall rule or the turn cap
    "first_player": 0.55,   # flag above (and its interval above 0.5): first player's win rate, draws half
    "skill": 0.60,          # flag below: the policy's win rate against greedy, draws half
}
CHECKS = {
    "stall_or_cap": ("ended_by_stall_or_cap", "",
                     "rounds often end by the stall rule or the turn cap: share above {t:.0%}"),
    "first_player": ("first_player_win_rate", "",
                     "the first player wins clearly more than half: win rate (draws half) above {t:.0%} "
                     "with its 95% interval above 50%"),
    "skill": ("win_rate", "greedy",
              "skill barely shows: the policy's win rate against greedy, a casual player (draws half), "
              "below {t:.0%}"),
}
# why each threshold is where it is (one sentence each; the rule-tweaks report prints them)
WHY = {
    "stall_or_cap": "one round in twenty is the most a rule meant as a safety stop should end; above that the "
                    "stall rule (or the cap) shapes the game instead of stopping rounds that stand still.",
    "first_player": "a first player who wins 55% of rounds wins a 3-round match clearly more often than the "
                    "other, and players notice an edge of 5 percentage points within a few evenings.",
    "skill": "a casual player who wins 2 rounds in 5 against the strongest bot is playing a game of luck; "
             "against random play every bot wins nearly all rounds, so random cannot show this.",
}
# what the figures show: (metric, opponent)
KEY_METRICS = [("turns_per_round", ""), ("ended_by_stall_or_cap", ""), ("first_player_win_rate", ""),
               ("score_mean", ""), ("bonus_rate", ""), ("margin", "greedy"), ("win_rate", "random"),
               ("leader_loses_match", "")]




# ---- the grid -------------------------------------------------------------------------

def _convert(name: str, text) -> object:
    try:
        return convert(name, text)
    except RulesError as e:
        raise SweepError(f"--grid {name}: {e}") from None


MAX_RANGE = 1000         # values one a..b range may expand to


def parse_grid(items) -> dict:
    """``["hand_size=5,6,7,8", "bonus_cards=5..8"]`` -> ``{"hand_size": [5, 6, 7, 8], "bonus_cards": [5, 6, 7, 8]}``.

    Values are separated by commas; an integer range ``a..b`` expands.  For a
    list parameter (``numbers``, ``extra_low``) the values are separated by ``;``
    and each is a list (``--grid "extra_low=2,3,4;2;"``).  Refuses unknown
    parameters, a parameter given twice, no values, repeated values.
    """
    grid: dict = {}
    for item in items:
        if "=" not in item:
            raise SweepError(f"--grid {item!r} must be PARAM=V1,V2,... (parameters: {', '.join(PARAMETERS)})")
        name, text = (s.strip() for s in item.split("=", 1))
        if name not in PARAMETERS:
            what = f"unknown rule parameter {shorten(name, 30)!r}" if name else "no parameter before ="
            raise SweepError(f"--grid {shorten(item, 40)!r}: {what} (known: {', '.join(PARAMETERS)})")
        if name in grid:
            raise SweepError(f"--grid {name} is given twice: put all its values in one --grid")
        kind = PARAMETERS[name].kind
        if kind == "ints":
            raw = [t.strip() for t in text.split(";")]
        else:
            raw = []
            for t in (t.strip() for t in text.split(",")):
                if kind == "int" and ".." in t:
                    lo, hi = t.split("..", 1)
                    a, b = _convert(name, lo), _convert(name, hi)
                    if b < a:
                        raise SweepError(f"--grid {name}={t}: an empty range")
                    if b - a >= MAX_RANGE:      # checked before the range is listed (memory)
                        raise SweepError(f"--grid {name}={shorten(t)}: a range of {b - a + 1:,} values; at most "
                                         f"{MAX_RANGE:,} (a cell is a batch of its own)")
                    raw += [str(v) for v in range(a, b + 1)]
                elif t:
                    raw.append(t)
                else:
                    raise SweepError(f"--grid {name}={shorten(text)} has an empty entry: values separated by commas")
        if not raw or (kind != "ints" and not any(raw)):
            raise SweepError(f"--grid {name}: no values")
        values = [_convert(name, t) for t in raw]
        if len(set(values)) != len(values):
            raise SweepError(f"--grid {name}: a value is repeated ({text})")
        grid[name] = values
    return grid


@dataclass
class Cell:
    """One ruleset of the grid: its grid values and the validated ruleset."""

    index: int
    values: dict
    rules: Ruleset
    base: Ruleset      # the ruleset before the grid values (preset and --set)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={format_value(v)}" for k, v in self.values.items()) or self.rules.describe()


def build_cells(preset: str = "expeditions", sets: dict | None = None, grid: dict | None = None,
                players: int | None = None) -> list[Cell]:
    """Every cell of the grid as a validated ruleset; refuses the first impossible one, naming the parameter."""
    if preset not in PRESETS:
        raise SweepError(f"--rules {preset!r}: unknown preset (presets: {', '.join(PRESETS)})")
    sets = dict(sets or {})
    grid = dict(grid or {})
    if players is not None:
        if "players" in grid:
            raise SweepError("--players and --grid players=... together: give the player counts in the grid")
        if "players" in sets and str(sets["players"]) != str(players):
            raise SweepError(f"--players {players} and --set players={shorten(str(sets['players']))} disagree: "
                             "give the number of players once")
        sets["players"] = players
    for k in grid:
        if k in sets:
            raise SweepError(f"{k} is both set (--set/--players) and swept (--grid): choose one")
    try:
        base = text_rules(preset, sets)
    except RulesError as e:
        raise SweepError(f"--set: {e}") from None
    names = list(grid)
    cells = []
    for i, combo in enumerate(itertools.product(*(grid[n] for n in names))):
        values = dict(zip(names, combo))
        try:
            r = make_rules(base, **values)
        except RulesError as e:
            where = ", ".join(f"{k}={format_value(v)}" for k, v in values.items())
            raise SweepError(f"grid cell {where} is refused: {e}") from None
        cells.append(Cell(i, values, r, base))
    return cells


def choose_baseline(cells: list[Cell], items=()) -> int:
    """The baseline cell: the one matching ``items`` (PARAM=VALUE), else the cell equal to the
    preset and --set values when the grid holds it, else the first cell."""
    if items:
        want = {}
        for item in items:
            if "=" not in item:
                raise SweepError(f"--baseline {item!r} must be PARAM=VALUE")
            k, v = (s.strip() for s in item.split("=", 1))
            if k not in cells[0].values:
                raise SweepError(f"--baseline {k}: not a grid parameter (grid: {', '.join(cells[0].values) or 'none'})")
            try:
                want[k] = convert(k, v)
            except RulesError as e:
                raise SweepError(f"--baseline {k}: {e}") from None
        hits = [c.index for c in cells if all(c.values[k] == v for k, v in want.items())]
        if not hits:
            raise SweepError(f"--baseline {', '.join(items)}: no cell of the grid has these values")
        return hits[0]
    base_vals = [c for c in cells if all(getattr(c.base, k) == v for k, v in c.values.items())]
    return base_vals[0].index if base_vals else 0


# ---- running ---------------------------------------------------------------------------

def _with_cell(df: pd.DataFrame, cell: Cell, names: list) -> pd.DataFrame:
    df = df.copy()
    front = {"cell": cell.index, "label": cell.label}
    for k in names:
        if k in df.columns:         # e.g. players: the tables carry it already
            continue
        front[k] = format_value(cell.values[k]) if isinstance(cell.values[k], tuple) else cell.values[k]
    for j, (k, v) in enumerate(front.items()):
        df.insert(j, k, v)
    return df


def run_sweep(cells: list[Cell], policy: str = "expert", opponents=("greedy", "random"),
              rounds: int = 20_000, seed: int = 0, skill_rounds: int | None = None, baseline: int = 0,
              thresholds: dict | None = None, threads=None, progress=None, store=None) -> dict:
    """Play every cell on the same seed; returns a dict of DataFrames: metrics, diffs, flags, cells,
    and ``data`` (the CellData of every cell, for further paired comparisons).

    With a ``sweep_cells.CellStore``, each cell is written as soon as it is measured, and a cell
    the store already holds (for the same ruleset, bots, rounds and seed) is read, not played."""
    from lostcards.analysis.sweep_cells import cell_key
    names = list(cells[0].values) if cells else []
    data: list[CellData] = []
    t_all = time.time()
    played = 0
    for c in cells:
        key = cell_key(c.rules, policy, opponents, rounds, skill_rounds, seed)
        d = store.load(c.index, key, c.rules) if store is not None else None
        kept = d is not None
        if d is None:
            d = measure(c.rules, policy, opponents, rounds, seed, skill_rounds, threads)
            played += 1
            if store is not None:
                store.save(c.index, key, d)
        data.append(d)
        if progress:
            left = (time.time() - t_all) / max(1, played) * (len(cells) - len(data)) if played else 0
            progress(f"[cell {c.index + 1}/{len(cells)}] {c.label}: "
                     + ("kept from an earlier run" if kept else f"{d.seconds:.1f} s")
                     + (f", about {left:.0f} s left" if played and len(data) < len(cells) else ""))
    met = pd.concat([_with_cell(d.table(), c, names) for c, d in zip(cells, data)], ignore_index=True)
    base = data[baseline]
    diffs = []
    for c, d in zip(cells, data):
        t = diff_table(d, base)
        t.insert(0, "same_deals", same_deals(c.rules, base.rules))
        t.insert(0, "baseline", cells[baseline].label)
        diffs.append(_with_cell(t, c, names))
    diffs = pd.concat(diffs, ignore_index=True)
    flags = flag_table(met, thresholds)
    cell_tab = pd.DataFrame([{"cell": c.index, "label": c.label, **{k: (format_value(v) if isinstance(v, tuple) else v)
                                                                   for k, v in c.values.items()},
                              "rules": c.rules.describe(), "players": c.rules.players,
                              "baseline": c.index == baseline, "seconds": round(d.seconds, 2),
                              "flags": ";".join(flags.loc[(flags["cell"] == c.index) & flags["flagged"],
                                                          "check"])}
                             for c, d in zip(cells, data)])
    return {"metrics": met, "diffs": diffs, "flags": flags, "cells": cell_tab, "data": data,
            "grid": names, "baseline": baseline, "seconds": time.time() - t_all}


def flag_table(met: pd.DataFrame, thresholds: dict | None = None) -> pd.DataFrame:
    """One row per cell and check: the measured value with its interval, the threshold, flagged or not."""
    th = {**THRESHOLDS, **(thresholds or {})}
    rows = []
    cells = met[["cell", "label"]].drop_duplicates() if "cell" in met else pd.DataFrame({"cell": [0], "label": [""]})
    for _, c in cells.iterrows():
        m = met[met["cell"] == c["cell"]] if "cell" in met else met
        for check, (metric, opp, text) in CHECKS.items():
            row = m[(m["metric"] == metric) & (m["opponent"] == opp)]
            t = th[check]
            out = {"cell": c["cell"], "label": c["label"], "check": check, "metric": metric,
                   "opponent": opp, "threshold": t, "rule": text.format(t=t)}
            if row.empty:
                rows.append({**out, "estimate": np.nan, "ci_low": np.nan, "ci_high": np.nan, "n": 0,
                             "flagged": False, "note": "not measured (solitaire, or no such opponent)"})
                continue
            r = row.iloc[0]
            est, lo = float(r["estimate"]), float(r["ci_low"])
            if check == "stall_or_cap":
                flagged = est > t
            elif check == "first_player":
                flagged = est > t and lo > 0.5
            else:
                flagged = est < t
            rows.append({**out, "estimate": est, "ci_low": lo, "ci_high": float(r["ci_high"]),
                         "n": int(r["n"]), "flagged": bool(flagged), "note": ""})
    return pd.DataFrame(rows)


