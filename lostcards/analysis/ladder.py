"""The bot ladder of docs/bots.md: every bot's margin against expert, on duplicate deals.

``python -m lostcards.analysis.ladder --deals 1000 --seed 20261203`` plays each
bot against expert on deals 0..n-1 of the seed, both seatings (``tournament.play_pair``:
the luck of the deal cancels in the paired margin), under 2-player ``expeditions``,
4-player ``expeditions`` and 2-player ``lost-cities``, and in solitaire compares
each bot's score with the clairvoyant optimum of the same deals
(``analysis.solitaire.optima``).  One thread; the time a round is CPU seconds per
round played (both seats' decisions).  Prints one Markdown table row per bot and
table (expert itself only in solitaire: against itself its margin is 0 by construction);
``--bots`` and ``--tables`` choose.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from lostcards.stats import half_width

TABLES = {"2p": ("expeditions", 2), "4p": ("expeditions", 4), "lost-cities": ("lost-cities", 2),
          "solitaire": ("expeditions", 1)}
DEFAULT_SEED = 20261203          # never used to tune any bot nor by the tests


def _rules(table):
    from lostcards.rules.ruleset import rules
    preset, players = TABLES[table]
    return rules(preset, players=players)


def margin_row(table: str, bot: str, deals: int, seed: int, start: int = 0) -> dict:
    """The paired margin of `bot` against expert on duplicate deals start..start+deals-1 of `seed`."""
    from lostcards.analysis.tournament import play_pair
    from lostcards.run.runner import play
    r = _rules(table)
    play(r, bot, "expert", rounds=1, seed=seed + 1, threads=1)        # compile outside the clock
    c = time.process_time()
    df = play_pair(r, bot, "expert", rounds=deals, seed=seed, start=start, threads=1)
    cpu = time.process_time() - c
    m = df["margin"].to_numpy(np.float64)
    h = half_width(m.std(ddof=1), m.size)
    return {"table": table, "bot": bot, "n": m.size, "value": m.mean(), "lo": m.mean() - h,
            "hi": m.mean() + h, "s_round": cpu / (2 * deals)}


def solitaire_row(bot: str, deals: int, seed: int, best=None) -> dict:
    """`bot`'s solitaire score as a percentage of the clairvoyant optimum (ratio of the sums)."""
    from lostcards.analysis.solitaire import optima
    from lostcards.run.runner import play
    r = _rules("solitaire")
    best = optima(r, rounds=deals, seed=seed) if best is None else best
    play(r, bot, bot, rounds=1, seed=seed + 1, threads=1)
    c = time.process_time()
    b = play(r, bot, bot, rounds=deals, seed=seed, threads=1)
    cpu = time.process_time() - c
    s = b.round_info[:, 3].astype(np.float64)
    pct = 100 * s.sum() / best.sum()
    # delta method on the ratio of means, deals paired
    d = s - pct / 100 * best
    h = 100 * half_width(d.std(ddof=1), deals) / best.mean()
    return {"table": "solitaire", "bot": bot, "n": deals, "value": pct, "lo": pct - h, "hi": pct + h,
            "s_round": cpu / deals, "score": s.mean(), "optimum": best.mean()}


def line(row: dict) -> str:
    unit = "% of optimum" if row["table"] == "solitaire" else "points a round"
    return (f"| {row['bot']} | {row['table']} | {row['n']:,} | {row['value']:+.1f} | "
            f"[{row['lo']:+.1f}, {row['hi']:+.1f}] | {unit} | {row['s_round']:.2g} |")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--solitaire-deals", type=int, default=500)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--start", type=int, default=0, help="the first deal (2 and 4 players)")
    ap.add_argument("--bots", default="improve")
    ap.add_argument("--tables", default="2p,4p,lost-cities,solitaire")
    a = ap.parse_args(argv)
    from lostcards.policies import resolve, split_policies
    bots = split_policies(a.bots)
    print("| bot | table | deals | against expert | 95% interval | unit | CPU s a round |")
    print("|---|---|---|---|---|---|---|")
    best = None
    for table in a.tables.split(","):
        for bot in bots:
            if table == "solitaire":
                if best is None:
                    from lostcards.analysis.solitaire import optima
                    best = optima(_rules("solitaire"), rounds=a.solitaire_deals, seed=a.seed)
                row = solitaire_row(bot, a.solitaire_deals, a.seed, best)
            elif resolve(bot).spec == "expert":
                continue                    # 0 against itself on duplicate deals, by construction
            else:
                row = margin_row(table, bot, a.deals, a.seed, a.start)
            print(line(row), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
