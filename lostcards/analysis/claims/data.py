"""The data of a claims run: which rounds to play, played once, cached and shared between claims.

``Context`` plays, through the runner (``run.runner.play``, ``play_records``),
the rounds the experiments ask for, with fixed seeds, and keeps them for the
whole run: self-play batches (their tidy tables, ``run.tables``), SPEC §5
records walked into per-turn facts (``analysis.movelog``), duplicate deals for
paired comparisons, and search's games against expert, played once with every
move logged so that all claims read the same games.  When a stage of the run
asks for more rounds (``Context.scale``), only the new rounds are played and
appended.

A ``Subject`` is one bot in one setting, seen by a claim's measure function:
its own seats' tables and facts, per seat or per team, and its paired margins.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
import pandas as pd

from lostcards.analysis.claims.declare import LOGGED, OPPONENT, SEARCH_TABLES, STRONG, Setting
from lostcards.analysis.claims.tolerance import Feel, margins_of, win_point
from lostcards.stats import Estimate, cluster_mean, duplicate_margins, mean_ci


@dataclass(frozen=True)
class Sizes:
    """Rounds per kind of data at stage 1 (each later stage doubles the ones it needs).

    Keys of the dicts are the tables' data keys: 2p, 4p, 1p, lc.  Random play's rounds
    are long and only context, so it walks a third of the records.
    """

    rounds: dict                  # self-play rounds per bot
    records: dict                 # of those, rounds walked turn by turn (per-turn facts)
    deals: dict                   # duplicate deals per paired comparison (each dealt twice, seats swapped)
    search_deals: dict            # search against expert (2p: deals, both seatings; 1p: rounds alone)
    improve_rounds: dict = None   # improve's self-play rounds, every move logged (costly: one source)
    search: str = "search"        # the search bot's spec (its default budget)
    improve: str = "improve:k=32"  # the improve bot's spec (k=32: a quarter of its default, see docs/claims.md)
    strength_deals: dict = None   # duplicate deals of each strong bot against expert (the players section)
    strong_pairs: dict = None     # duplicate deals per paired comparison of a strong bot (held to a move rule
                                  # against itself: costly, so fewer than ``deals``)
    most: dict = None             # kind -> {data key: the most rounds (deals) it may reach over all stages}
    stakes_rounds: dict = None    # expert's rounds whose lay-or-throw decisions are played out (``stakes``)

    def cap(self, kind: str, data: str) -> int:
        """The most rounds (deals) of one kind of data the run may play in one table: the plan's budget,
        in rounds, not seconds, so the stages and sample sizes follow from the plan and the seed alone."""
        base = int(getattr(self, kind)[data])
        most = (self.most or {}).get(kind, {})
        return int(most.get(data, base * 2 ** (STAGES_CAP - 1)))


STAGES_CAP = 3            # without a declared cap, a kind of data may double twice (stage 3: x4)
STANDARD = Sizes(rounds={"2p": 60_000, "4p": 20_000, "1p": 20_000, "lc": 20_000},
                 records={"2p": 3_000, "4p": 1_000, "1p": 1_000, "lc": 1_000},
                 deals={"2p": 20_000, "4p": 8_000, "1p": 10_000, "lc": 8_000},
                 search_deals={"2p": 100, "1p": 200},
                 improve_rounds={"2p": 400, "4p": 120, "1p": 600, "lc": 150},
                 strength_deals={"2p": 1_000, "1p": 600},
                 strong_pairs={"2p": 600},
                 most={"search_deals": {"2p": 100, "1p": 200},
                       "improve_rounds": {"2p": 800, "4p": 240, "1p": 2_400, "lc": 300},
                       "strong_pairs": {"2p": 1_200}},
                 stakes_rounds={"2p": 400, "4p": 100, "1p": 400, "lc": 200})
QUICK = Sizes(rounds={"2p": 1_500, "4p": 400, "1p": 400, "lc": 400},
              records={"2p": 80, "4p": 60, "1p": 60, "lc": 60},
              deals={"2p": 400, "4p": 200, "1p": 200, "lc": 200},
              search_deals={"2p": 2, "1p": 3}, search="search:iterations=40",
              improve_rounds={"2p": 8, "4p": 4, "1p": 20, "lc": 6}, improve="improve:k=4",
              strength_deals={"2p": 8, "1p": 20}, strong_pairs={"2p": 8},
              most={"search_deals": {"2p": 2, "1p": 3}, "improve_rounds": {"2p": 16, "4p": 8, "1p": 40, "lc": 12},
                    "strong_pairs": {"2p": 16}},
              stakes_rounds={"2p": 20, "4p": 6, "1p": 20, "lc": 10})
KINDS = {"self-play": "rounds", "move-logs": "records", "duplicate": "deals", "search-games": "search_deals",
         "improve-games": "improve_rounds", "strong-duplicate": "strong_pairs", "stakes": "stakes_rounds"}
STAKE_SAMPLES = 64        # determinizations a lay-or-throw decision is played out from (``stakes``)
PROGRESS_SECONDS = 5.0    # a data set taking longer is played in chunks, each a line of progress


RANDOM_SHARE = 3


def with_switches(spec: str, switches: str) -> str:
    """'expert' + 'open_hand=15' -> 'expert:open_hand=15'; '' adds nothing."""
    if not switches:
        return spec
    return spec + ("," if ":" in spec else ":") + switches


def _concat(a, b):
    if isinstance(a, dict):
        return {k: _concat(a[k], b[k]) for k in a}
    return pd.concat([a, b], ignore_index=True)


class Context:
    """Plays and caches the rounds the experiments need; the same seed gives the same numbers."""

    def __init__(self, seed: int = 1, quick: bool = False, say: Callable = None, threads: int | None = None,
                 sizes: Sizes | None = None):
        self.seed = int(seed)
        self.quick = quick
        self.sizes = sizes or (QUICK if quick else STANDARD)
        self.say = say or (lambda *_: None)
        self.threads = threads
        self.scale = 1
        self._cache: dict = {}
        self.seconds: dict = {}           # kind of data -> playing time
        self.key_seconds: dict = {}       # data key -> playing time so far (what doubling it costs)
        self.touched: set = set()         # data keys asked for since the caller last cleared it
        self.played: dict = {}            # what was played, for the manifest and the report
        self._feel: dict = {}             # (data key, unit) -> Feel: each table's tolerances

    def may_grow(self, key: tuple, scale: int) -> bool:
        """Whether the data `key` may be played at `scale` times the first stage's size within the plan's caps
        (``Sizes.most``): a budget in rounds and deals, the same on every machine."""
        kind = KINDS[key[0]]
        data = key[-1].split("(")[0]
        have = self._cache.get(key, (0, None))[0]
        base = int(getattr(self.sizes, kind)[data])
        want = have * 2 if have else base * scale
        return want <= self.sizes.cap(kind, data)

    def spec(self, bot: str) -> str:
        if bot in ("search", OPPONENT):
            return self.sizes.search
        return self.sizes.improve if bot == "improve" else bot

    def n(self, kind: str, setting: Setting) -> int:
        return int(getattr(self.sizes, kind)[setting.spec.data]) * self.scale

    def _grown(self, key, n: int, make: Callable):
        """The cached value for rounds 0..n-1, playing only rounds it lacks (make(start, count))."""
        have, value = self._cache.get(key, (0, None))
        self.touched.add(key)
        if n > have:
            t = time.time()
            new = self._chunked(key, have, n, make)
            value = new if value is None else _concat(value, new)
            self._cache[key] = (n, value)
            dt = time.time() - t
            self.seconds[key[0]] = self.seconds.get(key[0], 0.0) + dt
            self.key_seconds[key] = self.key_seconds.get(key, 0.0) + dt
            self.played[" ".join(map(str, key))] = n
            self.say(f"  played {' '.join(map(str, key))}: rounds {have}..{n - 1} in {dt:.1f}s")
        return value if n == self._cache[key][0] else _head(value, n)

    def _chunked(self, key, have: int, n: int, make: Callable):
        """make(have, n - have), played in chunks of about ``PROGRESS_SECONDS`` once a first small chunk
        shows it is slow, with a line of progress each (round i is the same whatever the chunks)."""
        what, at, parts, t0 = " ".join(map(str, key)), have, [], time.time()
        step = max(1, (n - have) // 32)
        while at < n:
            k = min(step, n - at)
            t = time.time()
            parts.append(make(at, k))
            at += k
            per = max(time.time() - t, 1e-6) / k
            step = max(1, int(PROGRESS_SECONDS / per))
            if at < n and time.time() - t0 > PROGRESS_SECONDS:
                left = (n - at) * per
                self.say(f"  playing {what}: {at - have:,} of {n - have:,} rounds, about {left:.0f}s left")
        return _concat_all(parts)

    # -- self-play: the tidy tables -------------------------------------------------------
    def selfplay(self, spec: str, setting: Setting, n: int = 0) -> dict:
        """The tidy tables of `spec`'s self-play in `setting`: the stage's rounds (or the first `n`)."""
        from lostcards.run.runner import play
        from lostcards.run.tables import tables
        r = setting.rules()
        other = None if r.players == 1 else spec
        return self._grown(("self-play", spec, setting.data), n or self.n("rounds", setting),
                           lambda s, k: tables(play(r, spec, other, rounds=k, seed=self.seed, start=s,
                                                    threads=self.threads)))

    def feel(self, setting: Setting) -> Feel:
        """The table's tolerances (``tolerance.Feel``), from expert's self-play there at the plan's first-stage
        size: the same at every stage, so a row's tolerance never moves with the rounds played."""
        key = (setting.data, setting.spec.unit)
        if key not in self._feel:
            saved, self.touched = self.touched, set()     # not data of the row being measured
            t = self.selfplay("expert", setting, int(self.sizes.rounds[setting.spec.data]))
            self.touched = saved
            seats = t["seats"]
            if setting.spec.unit == "team":
                seats = seats.groupby(["round", "side"], observed=True)[["plays"]].sum().reset_index()
            ss = t["seat_suits"]
            ss = ss[ss.held_count > 0]
            self._feel[key] = Feel(setting.table, win_point(margins_of(t["rounds"], setting.spec.players)),
                                   cluster_mean(seats.plays.to_numpy(float), seats["round"].to_numpy()),
                                   cluster_mean(ss.held_sum.to_numpy(float), ss["round"].to_numpy()))
        return self._feel[key]

    def facts(self, spec: str, setting: Setting) -> dict:
        r = setting.rules()
        n = self.n("records", setting) // (RANDOM_SHARE if spec == "random" else 1)
        return self._grown(("move-logs", spec, setting.data), n,
                           lambda s, k: _walked(r, spec, None if r.players == 1 else spec, range(s, s + k),
                                                self.seed, 0)["facts"])

    # -- duplicate deals ----------------------------------------------------------------------
    def pair(self, a: str, b: str, setting: Setting, share: float = 1.0, strong: bool = False) -> pd.DataFrame:
        """Per deal: a's points minus b's (2 and 4 players: each deal played twice, seats swapped,
        averaged; solitaire: each plays the deal alone), on `share` of the deals' size (`strong`: a strong
        bot's comparison, on ``Sizes.strong_pairs``)."""
        r = setting.rules()
        kind, size = ("strong-duplicate", "strong_pairs") if strong else ("duplicate", "deals")
        return self._grown((kind, a, b, setting.data), max(1, int(self.n(size, setting) * share)),
                           lambda s, k: self._pair_rows(a, b, r, s, k))

    def _pair_rows(self, a: str, b: str, r, s: int, k: int) -> pd.DataFrame:
        """Deals s..s+k-1: a's points minus b's per deal (seats swapped and averaged; solitaire: alone)."""
        from lostcards.run.runner import play
        from lostcards.run.tables import rounds_table

        def score(x, y):
            t = rounds_table(play(r, x, y, rounds=k, seed=self.seed, start=s, threads=self.threads))
            return t.score_a.to_numpy(float), (t.score_b.to_numpy(float) if r.players > 1 else None)
        if r.players == 1:
            m = score(a, None)[0] - score(b, None)[0]
        else:
            a1, b1 = score(a, b)
            b2, a2 = score(b, a)
            m = duplicate_margins(a1, b1, a2, b2)
        return pd.DataFrame({"deal": np.arange(s, s + k), "margin": m})

    # -- search: its games against expert, every move logged ---------------------------------------
    def search_games(self, setting: Setting) -> dict:
        """{"tables": tidy tables, "facts": per-turn facts}, both with a `game` column: 2 players,
        game 0 has search on seat 0 and game 1 on seat 1 (the same deals); solitaire, game 0 alone."""
        r = setting.rules()
        spec = self.spec("search")

        def make(s, k):
            idx = range(s, s + k)
            seatings = ((spec, None),) if r.players == 1 else ((spec, "expert"), ("expert", spec))
            parts = []
            for game, (a, b) in enumerate(seatings):
                w = _walked(r, a, b, idx, self.seed, game)
                parts.append(w)
            return {"tables": _concat_all([p["tables"] for p in parts]),
                    "facts": _concat_all([p["facts"] for p in parts])}
        return self._grown(("search-games", spec, setting.data), self.n("search_deals", setting), make)

    def improve_games(self, setting: Setting) -> dict:
        """{"tables", "facts"} of improve's self-play rounds, every move logged (its rounds are costly, so
        one play gives both), with a `game` column (0)."""
        r = setting.rules()
        spec = self.spec("improve")
        return self._grown(("improve-games", spec, setting.data), self.n("improve_rounds", setting),
                           lambda s, k: _walked(r, spec, None if r.players == 1 else spec, range(s, s + k),
                                                self.seed, 0))

    def stakes(self, spec: str, setting: Setting) -> pd.DataFrame:
        """What each lay-or-throw decision of `spec`'s self-play rounds is worth (``claims.stakes``): one row
        per decision, with its round."""
        from lostcards.analysis.claims.stakes import stakes
        r = setting.rules()
        return self._grown(("stakes", spec, setting.data), self.n("stakes_rounds", setting),
                           lambda s, k: stakes(r, spec, range(s, s + k), self.seed, STAKE_SAMPLES))

    def strength(self, bot: str, setting: Setting) -> Estimate:
        """A strong bot's margin over expert, points a round, on duplicate deals (the players section)."""
        n = int(self.sizes.strength_deals[setting.spec.data])
        d = self._grown(("duplicate", self.spec(bot), "expert", setting.data), n,
                        lambda s, k: self._pair_rows(self.spec(bot), "expert", setting.rules(), s, k))
        e = mean_ci(d.margin.to_numpy())
        return replace(e, clusters=e.n)

    def feels(self) -> dict:
        """{table: its ``Feel``} for the tables whose tolerances the run derived (in the tables' order)."""
        from lostcards.analysis.claims.declare import TABLES
        got = {f.table: f for (data, unit), f in self._feel.items() if "(" not in data}
        return {t: got[t] for t in TABLES if t in got}

    def played_count(self, key: tuple) -> int:
        """How many rounds (deals) of the data `key` the run holds (nothing is played)."""
        return self._cache.get(key, (0, None))[0]

    def played_value(self, key: tuple):
        """The data `key` as played so far (nothing more is played)."""
        return self._cache[key][1]

    def search_played(self, setting: Setting) -> int:
        """How many deals (solitaire: rounds) search's logged games hold in this setting."""
        return self._cache.get(("search-games", self.spec("search"), setting.data), (0, None))[0]

    def subject(self, bot: str, setting: Setting) -> "Subject":
        return Subject(self, bot, setting)


def _head(value, n: int):
    if isinstance(value, dict):
        return {k: _head(v, n) for k, v in value.items()}
    key = "deal" if "deal" in value else "round"
    return value[value[key] < n]


def _concat_all(parts: list) -> dict:
    out = parts[0]
    for p in parts[1:]:
        out = _concat(out, p)
    return out


def _walked(r, a: str, b, idx, seed: int, game: int) -> dict:
    """Play rounds with their records, walk them: per-turn facts and the tidy tables."""
    from lostcards.analysis.movelog import walk
    from lostcards.policies import resolve
    from lostcards.run.runner import Batch, play_records
    from lostcards.run.tables import tables
    idx = list(idx)
    w = walk(play_records(r, a, b, idx, seed=seed), idx)
    facts = {k: v.assign(game=game) for k, v in w.facts.items()}
    pols = (resolve(a), resolve(b if b is not None else a))
    batch = Batch(r, pols, seed, idx[0] if idx else 0, w.round_info, w.seats, w.seat_suits, w.side_suits)
    return {"facts": facts, "tables": {k: v.assign(game=game) for k, v in tables(batch).items()}}


class Subject:
    """One bot in one setting, as a claim's measure function sees it.

    Its tables and facts hold its own seats only (search: the seats it played in its
    games against expert; ``OPPONENT``: expert's seats in those games), each row with
    a ``cluster`` (the round: both games of a deal share its cards).
    """

    def __init__(self, ctx: Context, bot: str, setting: Setting):
        self.ctx, self.bot, self.setting = ctx, bot, setting
        self.rules = setting.rules()
        self.players = self.rules.players
        self.unit = setting.spec.unit
        self.spec = ctx.spec(bot) if bot in ("search", OPPONENT, *STRONG) else bot
        self._memo: dict = {}

    @property
    def logged(self) -> bool:
        """Whether its data are search's logged games (else self-play batches)."""
        return self.bot in LOGGED

    def available(self) -> str:
        """Why this subject cannot be measured here ('' if it can)."""
        if self.bot in ("search", OPPONENT) and self.setting.table not in SEARCH_TABLES:
            return "search is too slow for this table within the report's budget"
        if self.bot == OPPONENT and self.players == 1:
            return "solitaire has no opponent"
        return ""

    def _own(self, df: pd.DataFrame) -> pd.DataFrame:
        if self.bot not in ("search", OPPONENT) or self.players == 1:
            out = df
        else:
            mine = (df.game == 0) == (df.seat % 2 == 0)     # search: seat 0 in game 0, seat 1 in game 1
            out = df[mine if self.bot == "search" else ~mine]
        out = out.assign(cluster=out["round"].to_numpy())
        if "side" not in out:
            out = out.assign(side=out.seat.to_numpy() % 2 if self.players > 1 else 0)
        return out

    def _source(self, kind: str) -> dict:
        """The subject's data of one kind ("tables" or "facts"), every seat."""
        if self.bot == "improve":
            return self.ctx.improve_games(self.setting)[kind]
        if self.logged:
            return self.ctx.search_games(self.setting)[kind]
        if kind == "tables":
            return self.ctx.selfplay(self.spec, self.setting)
        return self.ctx.facts(self.spec, self.setting)

    def table(self, name: str) -> pd.DataFrame:
        """A tidy table (``rounds``, ``seats``, ``seat_suits``) of the subject's own seats."""
        return self._mine("tables", name)

    def facts(self, name: str) -> pd.DataFrame:
        """Per-turn facts (``movelog.FACT_COLUMNS``) of the subject's own seats."""
        return self._mine("facts", name)

    def _mine(self, kind: str, name: str) -> pd.DataFrame:
        if (kind, name) not in self._memo:
            t = self._source(kind)[name]
            self._memo[kind, name] = self._own(t) if "seat" in t else t.assign(cluster=t["round"].to_numpy())
        return self._memo[kind, name]

    def whole(self, name: str) -> pd.DataFrame:
        """A tidy table with every seat of the subject's rounds (its opponents' too)."""
        t = self._source("tables")[name]
        return t.assign(cluster=t["round"].to_numpy())

    def units(self, df: pd.DataFrame, cols) -> pd.DataFrame:
        """Per seat (the rows as they are) or, for a team table, summed over the two partners."""
        cols = list(cols)
        if self.unit != "team":
            return df[cols + ["cluster"]]
        keys = ["round", "side"] + (["game"] if "game" in df else [])
        g = df.groupby(keys, observed=True)[cols].sum().reset_index()
        return g.assign(cluster=g["round"].to_numpy())[cols + ["cluster"]]

    def margin(self, prescribed: str, other: str, share: float = 1.0) -> Estimate:
        """Mean margin per deal of this bot with `prescribed` switches over it with `other` switches."""
        a, b = with_switches(self.spec, prescribed), with_switches(self.spec, other)
        d = self.ctx.pair(a, b, self.setting, share, strong=self.bot in STRONG)
        e = mean_ci(d.margin.to_numpy())
        return replace(e, clusters=e.n)
