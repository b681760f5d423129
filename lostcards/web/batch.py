"""The rule page's quick batch: a changed ruleset against the unchanged one, on the same seed, cancellable.

Both rulesets are measured by ``analysis.metrics.measure`` (the sweep's and the
rule-tweak report's metrics: expert self-play, then expert against one weaker
bot on duplicate deals), in four steps so that the page sees progress and a
cancel takes effect between steps; the paired differences come from
``metrics.diff_table`` (common random numbers: the same deals for both
rulesets when their decks match).  ``lostcards sweep`` reproduces the numbers.
"""
from __future__ import annotations

import math
import secrets
import shlex
import threading
import time

from lostcards.web.checks import MAX_SEED, Refused, integer, only, strings, text

BATCH_FIELDS = ("preset", "players", "sets", "rounds", "skill_rounds", "seed", "opponent")
POLICY = "expert"
OPPONENTS = ("greedy", "random")
MAX_ROUNDS = 20_000
# the metrics the page shows, in its order (analysis.metrics.METRICS has their meaning)
SHOWN = ("turns_per_round", "score_mean", "score_sd", "first_player_win_rate", "first_player_margin",
         "margin", "win_rate", "ended_by_stall", "ended_by_stall_or_cap", "ended_by_deck", "ended_by_hand_empty",
         "bonus_rate", "negative_rounds", "expeditions_opened", "investments_laid", "discards_per_round",
         "pile_draws_per_round", "passes_per_round")


class Cancelled(Exception):
    """The page cancelled the batch."""


def _num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


class Batch:
    """One quick batch: its parameters, progress (step of steps), status, and the result when done."""

    def __init__(self, bid: str, preset: str, players: int, sets: list, base, changed, rounds: int,
                 skill_rounds: int, seed: int, opponent: str, notice):
        self.id, self.preset, self.players, self.sets = bid, preset, players, sets
        self.base, self.changed = base, changed
        self.rounds, self.skill_rounds, self.seed, self.opponent = rounds, skill_rounds, seed, opponent
        self.status = "queued"           # -> running -> done | cancelled | failed
        self.step, self.steps, self.doing = 0, 4 if skill_rounds else 2, "waiting"
        self.cancel_asked = False
        self.error = None
        self.result = None
        self.notice = notice
        self.started = time.monotonic()
        self.seconds = None

    def command(self) -> str:
        """The ``lostcards sweep`` command that measures the same two rulesets on the same seed."""
        from lostcards.rules.ruleset import format_value, parse_overrides
        over = parse_overrides(self.sets)
        grid = []
        for k, v in over.items():
            old = format_value(getattr(self.base, k))
            new = format_value(getattr(self.changed, k))
            grid.append(f"{k}={old.replace(',', ';')},{new.replace(',', ';')}" if old != new else None)
        args = ["lostcards", "sweep", "--rules", self.preset, "--players", str(self.players)]
        for g in grid:
            if g:
                args += ["--grid", g]
        base = [f"{k}={format_value(getattr(self.base, k))}" for k in over]
        args += [a for b in base for a in ("--baseline", b)]
        args += ["--policy", POLICY, "--opponents", self.opponent if self.skill_rounds else "none",
                 "--rounds", str(self.rounds)]
        if self.skill_rounds:
            args += ["--skill-rounds", str(self.skill_rounds)]
        args += ["--seed", str(self.seed), "--out", "runs/sweep-web"]
        return " ".join(shlex.quote(a) for a in args)

    def _check(self):
        if self.cancel_asked:
            raise Cancelled()

    def run(self) -> None:
        """Play the steps (on a worker thread), checking for a cancel between them."""
        from lostcards.analysis.metrics import diff_table, measure
        self.status = "running"
        try:
            self._check()
            cells = {}
            plan = [("unchanged rules: expert self-play", "base", self.base, (), self.rounds, 0),
                    ("changed rules: expert self-play", "changed", self.changed, (), self.rounds, 0)]
            if self.skill_rounds:
                plan += [(f"unchanged rules: expert against {self.opponent}", "base", self.base, (self.opponent,),
                          0, self.skill_rounds),
                         (f"changed rules: expert against {self.opponent}", "changed", self.changed,
                          (self.opponent,), 0, self.skill_rounds)]
            for what, key, rules, opps, rounds, skill in plan:
                self.doing = what
                d = measure(rules, POLICY, opps, rounds, self.seed, skill_rounds=skill, threads=1)
                self.notice = None
                if key in cells:
                    cells[key].samples.update(d.samples)
                    cells[key].seconds += d.seconds
                else:
                    cells[key] = d
                self.step += 1
                self._check()
            self.result = self._table(cells["base"], cells["changed"], diff_table)
            self.status, self.doing = "done", "done"
        except Cancelled:
            self.status, self.doing = "cancelled", "cancelled"
        except Exception as e:            # noqa: BLE001 - one line for the page, never a trace
            self.status, self.error = "failed", f"{type(e).__name__}: {e}"
        finally:
            self.notice = None
            self.seconds = round(time.monotonic() - self.started, 1)

    def _table(self, base, changed, diff_table) -> list:
        from lostcards.analysis.metrics import METRICS
        tb, tc = base.table(), changed.table()
        diff = diff_table(changed, base)
        rows = []
        for metric in SHOWN:
            for _, b in tb[tb["metric"] == metric].iterrows():
                opp = b["opponent"]
                c = tc[(tc["metric"] == metric) & (tc["opponent"] == opp)]
                d = diff[(diff["metric"] == metric) & (diff["opponent"] == opp)]
                if c.empty:
                    continue
                c = c.iloc[0]
                row = {"metric": metric, "opponent": opp, "meaning": METRICS[metric][2], "unit": b["unit"],
                       "base": [_num(b["estimate"]), _num(b["ci_low"]), _num(b["ci_high"]), int(b["n"])],
                       "changed": [_num(c["estimate"]), _num(c["ci_low"]), _num(c["ci_high"]), int(c["n"])],
                       "diff": None}
                if not d.empty:
                    e = d.iloc[0]
                    row["diff"] = [_num(e["estimate"]), _num(e["ci_low"]), _num(e["ci_high"]), int(e["n"])]
                rows.append(row)
        return rows

    def view(self) -> dict:
        return {"batch": self.id, "status": self.status, "step": self.step, "steps": self.steps,
                "doing": self.doing, "error": self.error, "notice": self.notice,
                "unchanged": self.base.describe(), "changed": self.changed.describe(),
                "players": self.players, "rounds": self.rounds, "skill_rounds": self.skill_rounds,
                "seed": self.seed, "opponent": self.opponent, "command": self.command(),
                "seconds": self.seconds, "rows": self.result}


def _compiled(opponent: str) -> bool:
    """Whether the batch loop and the bots are compiled already (in this process or the disk cache)."""
    from lostcards.engine import batch as loops
    from lostcards.engine.policy import decider_entry
    from lostcards.numba_cache import Entry
    from lostcards.policies import resolve
    entries = [Entry(loops.play_chunk, loops.CHUNK_SIG, "the batch loop", 15.0)]
    entries += [decider_entry(resolve(p).kernel, p) for p in (POLICY, opponent)]
    return all(e.ready for e in entries)


class Batches:
    """The batches of this server; one runs at a time (a second is refused until it ends or is cancelled)."""

    def __init__(self, keep: int = 20):
        self.batches: dict = {}
        self.lock = threading.Lock()
        self.keep = keep

    def get(self, bid) -> Batch:
        b = self.batches.get(bid) if isinstance(bid, str) else None
        if b is None:
            raise Refused(404, "no such batch: it finished long ago, or the server was restarted")
        return b

    def create(self, body: dict) -> Batch:
        """A new batch from the rule page's choices, checked as ``lostcards sweep`` checks them."""
        from lostcards.errors import RulesError
        from lostcards.rules.ruleset import PRESETS, build_rules
        only(body, BATCH_FIELDS)
        preset = text(body, "preset", 40, default="expeditions", choices=list(PRESETS))
        players = integer(body, "players", 1, 4, default=2)
        if players not in (1, 2, 4):
            raise Refused(422, f"players = {players} is not allowed: 1, 2 or 4")
        sets = strings(body, "sets")
        if not sets:
            raise Refused(422, "sets is empty: change at least one rule parameter (e.g. hand_size=7)")
        rounds = integer(body, "rounds", 3, MAX_ROUNDS, default=600)
        skill = integer(body, "skill_rounds", 0, MAX_ROUNDS, default=200)
        seed = integer(body, "seed", 0, MAX_SEED, default=0)
        opponent = text(body, "opponent", 20, default="greedy", choices=list(OPPONENTS))
        try:
            base = build_rules(preset, (), players)
            changed = build_rules(preset, sets, players)
        except RulesError as e:
            raise Refused(422, f"rules: {e}") from None
        if changed == base:
            raise Refused(422, f"sets {', '.join(sets)} leaves the {preset} rules as they are: change a value")
        notice = None if _compiled(opponent) else (
            "compiling the engine's batch loop and bots (once after an install or a change of lostcards; "
            "a minute or more; later batches start at once) ...")
        with self.lock:
            if any(b.status in ("queued", "running") for b in self.batches.values()):
                raise Refused(429, "a batch is running already: wait for it, or cancel it first")
            for k in list(self.batches)[:-self.keep]:
                del self.batches[k]
            b = Batch(secrets.token_urlsafe(12), preset, players, sets, base, changed, rounds, skill, seed,
                      opponent, notice)
            self.batches[b.id] = b
        return b
