"""The bot ladder of docs/bots.md: every bot's margin against expert, on duplicate deals.

``lostcards ladder --deals 1000 --seed 20261203`` (cli/ladder.py) plays each
bot against expert on deals 0..n-1 of the seed, both seatings (``tournament.play_pair``:
the luck of the deal cancels in the paired margin), under 2-player ``expeditions``,
4-player ``expeditions`` and 2-player ``lost-cities``, and in solitaire compares
each bot's score with the clairvoyant optimum of the same deals
(``analysis.solitaire.optima``).  One thread; the time a round is CPU seconds per
round played (both seats' decisions).  One Markdown table row per bot and
table (expert itself only in solitaire: against itself its margin is 0 by construction).
"""
from __future__ import annotations

import sys
import time

import numpy as np

from lostcards.errors import BadArgument
from lostcards.stats import half_width

TABLES = {"2p": ("expeditions", 2), "4p": ("expeditions", 4), "lost-cities": ("lost-cities", 2),
          "solitaire": ("expeditions", 1)}
DEFAULT_SEED = 20261203          # never used to tune any bot nor by the tests
BLOCK = 100                      # deals between two progress checks (the rows do not depend on it)
EVERY = 10.0                     # seconds between two progress lines
HEAD = ("| bot | table | deals | against expert | 95% interval | unit | CPU s a round |\n"
        "|---|---|---|---|---|---|---|")


def _rules(table):
    from lostcards.rules.ruleset import rules
    preset, players = TABLES[table]
    return rules(preset, players=players)


def parse_tables(text: str) -> list:
    """'2p,solitaire' -> ['2p', 'solitaire']; an unknown, empty or repeated entry is refused in one line."""
    out = []
    for t in (p.strip() for p in text.split(",")):
        if not t:
            raise BadArgument(f"--tables {text[:40]!r} has an empty entry: give tables separated by commas, "
                              f"from {', '.join(TABLES)}")
        if t not in TABLES:
            raise BadArgument(f"--tables {t[:40]!r} is not a table: one of {', '.join(TABLES)}")
        if t in out:
            raise BadArgument(f"--tables names {t!r} twice: give each table once")
        out.append(t)
    return out


def plan(tables: list, bots: list) -> list:
    """The (table, policy) cells to play, in order: expert is left out of the 2- and 4-player tables
    (0 against itself by construction); a bot named twice (the same spec) and a plan with no cell are
    refused."""
    specs = [b.spec for b in bots]
    for s in specs:
        if specs.count(s) > 1:
            raise BadArgument(f"--bots names {s!r} twice: give each bot once")
    cells = [(t, b) for t in tables for b in bots if t == "solitaire" or b.spec != "expert"]
    if not cells:
        raise BadArgument(f"nothing to play: expert against itself is 0 by construction on {', '.join(tables)}; "
                          "add another bot to --bots, or the solitaire table to --tables")
    return cells


def _interval(value: float, d: np.ndarray, scale: float) -> tuple:
    if d.size < 2:
        raise BadArgument(f"{d.size} deal gives no interval: at least 2")
    h = scale * half_width(d.std(ddof=1), d.size)
    return value - h, value + h


def _blocks(start: int, deals: int):
    for s in range(start, start + deals, BLOCK):
        yield s, min(BLOCK, start + deals - s)


def margin_row(table: str, bot, deals: int, seed: int, start: int = 0, progress=None) -> dict:
    """The paired margin of `bot` against expert on duplicate deals start..start+deals-1 of `seed`;
    `progress(done, deals)` after each block of deals."""
    from lostcards.analysis.tournament import play_pair
    from lostcards.run.runner import play
    r = _rules(table)
    play(r, bot, "expert", rounds=1, seed=seed, start=start, threads=1)        # compile outside the clock
    cpu, parts = 0.0, []
    for s, n in _blocks(start, deals):
        c = time.process_time()
        parts.append(play_pair(r, bot, "expert", rounds=n, seed=seed, start=s, threads=1)["margin"].to_numpy(
            np.float64))
        cpu += time.process_time() - c
        if progress:
            progress(s + n - start, deals)
    m = np.concatenate(parts)
    lo, hi = _interval(m.mean(), m, 1.0)
    return {"table": table, "bot": _spec(bot), "n": m.size, "value": m.mean(), "lo": lo, "hi": hi,
            "s_round": cpu / (2 * deals)}


def solitaire_row(bot, deals: int, seed: int, best=None, progress=None) -> dict:
    """`bot`'s solitaire score as a percentage of the clairvoyant optimum (ratio of the sums)."""
    from lostcards.analysis.solitaire import optima
    from lostcards.run.runner import play
    r = _rules("solitaire")
    best = optima(r, rounds=deals, seed=seed) if best is None else best
    play(r, bot, bot, rounds=1, seed=seed, threads=1)                  # compile outside the clock
    cpu, parts = 0.0, []
    for s, n in _blocks(0, deals):
        c = time.process_time()
        parts.append(play(r, bot, bot, rounds=n, seed=seed, start=s, threads=1).round_info[:, 3].astype(np.float64))
        cpu += time.process_time() - c
        if progress:
            progress(s + n, deals)
    s = np.concatenate(parts)
    if best.sum() <= 0:
        raise BadArgument(f"the optimum of these {deals} solitaire deals sums to {best.sum()}: no percentage")
    pct = 100 * s.sum() / best.sum()
    # delta method on the ratio of means, deals paired
    lo, hi = _interval(pct, s - pct / 100 * best, 100 / best.mean())
    return {"table": "solitaire", "bot": _spec(bot), "n": deals, "value": pct, "lo": lo, "hi": hi,
            "s_round": cpu / deals, "score": s.mean(), "optimum": best.mean()}


def _spec(bot) -> str:
    return bot if isinstance(bot, str) else bot.spec


def line(row: dict) -> str:
    unit = "% of optimum" if row["table"] == "solitaire" else "points a round"
    return (f"| {row['bot']} | {row['table']} | {row['n']:,} | {row['value']:+.1f} | "
            f"[{row['lo']:+.1f}, {row['hi']:+.1f}] | {unit} | {row['s_round']:.2g} |")


def rows(cells: list, deals: int, solitaire_deals: int, seed: int, start: int = 0, say=None):
    """Each cell's row as it is played (`say(text)` gets progress lines)."""
    best = None
    for table, bot in cells:
        n = solitaire_deals if table == "solitaire" else deals

        shown = [time.monotonic()]

        def progress(done, total, table=table, bot=bot, shown=shown):
            if say and done < total and time.monotonic() - shown[0] >= EVERY:
                shown[0] = time.monotonic()
                say(f"ladder: {bot.spec} on {table}: {done:,}/{total:,} deals")
        if say:
            say(f"ladder: {bot.spec} on {table} ({n:,} deals) ...")
        if table == "solitaire":
            if best is None:
                from lostcards.analysis.solitaire import optima
                best = optima(_rules("solitaire"), rounds=solitaire_deals, seed=seed)
            yield solitaire_row(bot, solitaire_deals, seed, best, progress)
        else:
            yield margin_row(table, bot, deals, seed, start, progress)


if __name__ == "__main__":            # the old way in: say the new one (the library never runs the command line)
    import sys
    print("the ladder is a command now: lostcards ladder (the same options; lostcards ladder --help)",
          file=sys.stderr)
    sys.exit(2)
