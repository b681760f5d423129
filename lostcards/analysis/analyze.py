"""Move-by-move analysis of a round record: what each move of one seat cost it, in expected points.

For every turn of the chosen seat (docs/analyze.md has the method):

1. the reference engine replays the record to that turn and gives the seat's
   observation; every legal move there is a candidate;
2. ``samples`` determinizations of the hidden cards, consistent with that
   observation, are dealt once (``engine.determinize``); each candidate is
   applied to each of them and the round played out by one fixed policy for
   every seat (``expert`` by default: an evaluator, not the ``search`` bot); the
   seat's side margin is the value (its score in solitaire);
3. the best move is the candidate of highest mean;
4. a fresh set of ``samples`` determinizations then estimates the loss, best
   minus played, as a paired mean difference with a 95% interval.  On the
   screening set the maximum is biased upwards (``screen_loss`` keeps that
   figure); on the fresh set the estimate is unbiased for the move picked, which
   is at most the true best, so it errs low: the two bracket the true loss, and
   a negative fresh loss says the played move is as good as the pick.

The round's loss is the sum over the seat's turns (fresh sets are independent,
so the variances add).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

from lostcards.errors import BadArgument, IllegalMove, MalformedRecord, PolicyFailure
from lostcards.records.format import move_of_turn, split_records
from lostcards.records.replay import check_record
from lostcards.rules.cards import SLOTS
from lostcards.stats import Z95, half_width

MAX_SAMPLES = 20_000
CHUNK_STATES = 40_000          # play-outs in flight at once (2.5 kB each): bounds the memory
FIGURE_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


@dataclass
class TurnLoss:
    """One turn of the seat: the move played, the best move, and the points the played one lost."""

    turn: int                   # the record's turn number (1-based)
    played: str
    best: str
    loss: float                 # expected points lost (best - played, fresh determinizations)
    lo: float                   # its 95% interval
    hi: float
    margin_played: float        # expected side margin at the end of the round after the played move
    margin_best: float          # ... after the best move
    moves: int                  # legal moves compared
    rank: int                   # the played move's rank on the screening set (1 = best)
    screen_loss: float          # best - played on the screening set itself (>= 0, biased upwards)
    search: Optional[str] = None   # the search bot's own choice, when asked for
    search_loss: Optional[float] = None   # ... and its loss (best - its choice, fresh determinizations)

    @property
    def best_or_within(self) -> bool:
        """The played move is the best, or its loss is not distinguishable from 0 (interval reaches 0)."""
        return self.played == self.best or self.lo <= 0.0


@dataclass
class RoundLoss:
    """The analysis of one seat over one round."""

    seat: int
    players: int
    rules: str
    samples: int
    evaluator: str
    scores: list
    turns: list = field(default_factory=list)
    ended: bool = True          # False: the record stops before the round's end (its scores are so far)

    @property
    def total(self) -> float:
        return float(sum(t.loss for t in self.turns))

    @property
    def total_interval(self) -> tuple:
        var = sum(((t.hi - t.lo) / (2 * Z95)) ** 2 for t in self.turns)
        h = half_width(math.sqrt(var))
        return self.total - h, self.total + h

    @property
    def search_total(self) -> Optional[float]:
        losses = [t.search_loss for t in self.turns if t.search_loss is not None]
        return float(sum(losses)) if losses else None

    @property
    def screen_total(self) -> float:
        return float(sum(t.screen_loss for t in self.turns))

    def as_dict(self) -> dict:
        lo, hi = self.total_interval
        d = {k: v for k, v in asdict(self).items() if k != "turns"}
        d.update(total_loss=self.total, total_lo=lo, total_hi=hi, screen_total=self.screen_total,
                 search_total=self.search_total, turns_analysed=len(self.turns),
                 best_or_within=sum(t.best_or_within for t in self.turns))
        d["turns"] = [dict(asdict(t), best_or_within=t.best_or_within) for t in self.turns]
        return d


# ---- reading ---------------------------------------------------------------------------------

def pick_record(data, index: int = 1):
    """Record `index` (1-based) of a file's contents (one JSON record, or JSON Lines)."""
    items = split_records(data)
    if not items:
        raise MalformedRecord("no record in the input")
    if not 1 <= index <= len(items):
        raise BadArgument(f"--round {index} is not a record of the input (1..{len(items)})")
    item = items[index - 1]
    if isinstance(item, MalformedRecord):
        raise item
    return item


def move_text(m: int, rules) -> str:
    """A move as `lostcards play` takes and shows it: ``play 5H, draw deck``, ``discard 3S, draw D``,
    ``pass 5H 6H``."""
    from lostcards.engine.moves import turn_record
    t = turn_record(m, rules)
    if "pass" in t:
        return "pass " + " ".join(t["pass"])
    word = "play" if t["to"] == "expedition" else "discard"
    return f"{word} {t['play']}" + (f", draw {t['draw']}" if "draw" in t else "")


def candidates(rnd, seat: int) -> list:
    """Every legal move of `seat` (to move) as engine codes; passes are all pairs (the kernel drops
    the ones the rules refuse)."""
    from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, encode_pass, encode_play
    obs = rnd.observation(seat)
    out = []
    for card, to in dict.fromkeys(obs.legal_plays()):
        t = TO_DISCARD if to == "discard" else TO_EXPEDITION
        if rnd.players == 1:
            out.append(encode_play(card, t, DRAW_NONE))
            continue
        for src in obs.draw_sources(card // SLOTS if to == "discard" else None):
            out.append(encode_play(card, t, DRAW_DECK if src == "deck" else 1 + src))
    if obs.can_pass:
        hand = sorted(obs.hand)
        codes = sorted(set(hand))
        out += [encode_pass(a, b) for i, a in enumerate(codes) for b in codes[i + 1:]]
        out += [encode_pass(c, c) for c in codes if hand.count(c) > 1]
    return list(dict.fromkeys(out))


# ---- the analysis ----------------------------------------------------------------------------

def _paired(rows: np.ndarray) -> tuple:
    """(mean, half-width of the 95% interval) of rows[0] - rows[1]."""
    d = rows[0] - rows[1]
    n = d.shape[0]
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    return float(d.mean()), half_width(sd, n) if n > 1 else 0.0


def analyze_round(record, seat: int = 0, samples: int = 64, seed: int = 0, evaluator: str = "expert",
                  search: Optional[str] = None) -> RoundLoss:
    """The loss of every move of `seat` in `record` (a dict or JSON text); ``search``: a policy spec
    whose own choice is shown too (e.g. ``"search:iterations=2000"``), or None."""
    from lostcards.engine.convert import from_observation
    from lostcards.engine.deal import card_set
    from lostcards.engine.intrinsics import decide_address
    from lostcards.engine.moves import from_reference
    from lostcards.engine.playouts import MARGINS_SIG, margins
    from lostcards.engine.policy import decider_entry
    from lostcards.numba_cache import Entry, compile_all
    from lostcards.policies import resolve
    from lostcards.rules.ruleset import check_int
    from lostcards.run.threads import call

    samples = check_int("samples", samples, 2, MAX_SAMPLES, "determinizations a turn", BadArgument)
    seed = check_int("seed", seed, 0, 2**62, "", BadArgument)
    verdict, _, rec = check_record(record)
    if not verdict["ok"]:
        if verdict["turn"] is None:
            raise MalformedRecord(f"not a round record: {verdict['error']}")
        raise IllegalMove(f"the record is illegal at turn {verdict['turn']}: {verdict['error']}")
    rules = rec.deal.rules
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < rules.players:
        raise BadArgument(f"seat {seat!r} is not a seat of this {rules.players}-player record "
                          f"(0..{rules.players - 1})")
    ev = resolve(evaluator)
    if ev.kernel is None:
        raise BadArgument(f"evaluator {evaluator!r} has no numba version (play-outs run in the engine)")
    compile_all([Entry(margins, MARGINS_SIG, "the play-outs", 10.0), decider_entry(ev.kernel, ev.name)])
    decide, params = decide_address(ev.kernel), ev.params
    chooser = _searcher(search) if search else None
    rnd = rec.deal.round()
    out = RoundLoss(seat=int(seat), players=rules.players, rules=rules.describe(), samples=samples,
                    evaluator=ev.spec, scores=list(verdict["scores"]),
                    ended=verdict.get("ended_by") != "unfinished")
    for k, turn in enumerate(rec.turns, start=1):
        move = move_of_turn(turn, rules)
        if rnd.seat == seat:
            played = from_reference(move)
            moves = candidates(rnd, seat)
            if played not in moves:
                moves.append(played)
            obs = from_observation(rnd.observation(seat))
            disc = card_set(rnd.codes[p] for p in rnd.out_of_game) if rules.players == 1 else (0, 0)
            m = np.asarray(moves, np.int64)
            screen = np.zeros((m.shape[0], samples))
            step = max(1, CHUNK_STATES // samples)
            for a in range(0, m.shape[0], step):      # the same determinizations in every chunk
                part = np.zeros((min(step, m.shape[0] - a), samples))
                call(margins, obs, m[a:a + step], samples, seed, 2 * k, disc[0], disc[1], decide, params, part)
                screen[a:a + part.shape[0]] = part
            if np.isinf(screen).any():
                raise PolicyFailure(f"evaluator {ev.spec!r} made an illegal move in a play-out after turn {k}: "
                                    "--evaluator needs a policy that keeps the rules")
            legal = ~np.isnan(screen[:, 0])
            means = np.where(legal, screen.mean(axis=1), -np.inf)
            b = int(np.argmax(means))
            j = moves.index(played)
            rank = 1 + int((means > means[j]).sum())
            pick = chooser(obs, seed, k) if chooser else None
            fresh = np.zeros((2 + (pick is not None), samples))
            call(margins, obs, np.asarray([moves[b], played] + ([pick] if pick is not None else []), np.int64),
                 samples, seed, 2 * k + 1, disc[0], disc[1], decide, params, fresh)
            loss, h = (0.0, 0.0) if moves[b] == played else _paired(fresh[:2])
            if pick is not None and np.isnan(fresh[2, 0]):
                raise PolicyFailure(f"--search {search!r} chose an illegal move at turn {k}: it needs a policy "
                                    "that keeps the rules")
            out.turns.append(TurnLoss(
                turn=k, played=move_text(played, rules), best=move_text(moves[b], rules), loss=loss,
                lo=loss - h, hi=loss + h, margin_played=float(fresh[1].mean()),
                margin_best=float(fresh[0].mean()), moves=int(legal.sum()), rank=rank,
                screen_loss=float(means[b] - means[j]),
                search=move_text(pick, rules) if pick is not None else None,
                search_loss=(0.0 if pick == moves[b] else _paired(fresh[::2])[0]) if pick is not None else None))
        rnd.apply(move)
    return out


def _searcher(spec: str):
    """A function (obs, seed, turn) -> the move the policy `spec` chooses (its stream from seed, turn)."""
    from lostcards.engine.intrinsics import policy_address
    from lostcards.engine.playouts import CHOOSE_SIG, choose
    from lostcards.numba_cache import Entry, compile_all
    from lostcards.policies import resolve
    from lostcards.run.threads import call
    pol = resolve(spec)
    if pol.kernel is None:
        raise BadArgument(f"policy {spec!r} has no numba version")
    compile_all([Entry(choose, CHOOSE_SIG, "the search's chooser", 10.0)])
    at = policy_address(pol.kernel)
    return lambda obs, seed, turn: int(call(choose, at, obs, pol.params, seed, turn))


# ---- output ----------------------------------------------------------------------------------

def table(res: RoundLoss) -> str:
    """The analysis as a readable table, one line a turn, and the round's sum."""
    head = (f"seat {res.seat} of a {res.players}-player round ({res.rules}); "
            f"{'final scores' if res.ended else 'scores so far (the record stops before the end)'} "
            f"{', '.join(f'{s:+d}' for s in res.scores)}\n"
            f"expected points lost a move, {res.samples} determinizations a turn, played out by "
            f"{res.evaluator} for every seat (95% intervals)\n")
    cols = ["turn", "played", "best", "loss", "95% interval", "E margin", "moves"]
    extra = any(t.search for t in res.turns)
    if extra:
        cols.append("search (its loss)")
    rows = []
    for t in res.turns:
        mark = "" if t.best_or_within else " *"
        r = [str(t.turn), t.played, "=" if t.best == t.played else t.best, f"{t.loss:.1f}{mark}",
             f"[{t.lo:.1f}, {t.hi:.1f}]", f"{t.margin_played:+.1f}", str(t.moves)]
        if extra:
            r.append(f"{t.search} ({t.search_loss:.1f})" if t.search else "")
        rows.append(r)
    w = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    line = lambda r: "  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip()  # noqa: E731
    lo, hi = res.total_interval
    n_ok = sum(t.best_or_within for t in res.turns)
    foot = (f"total: {res.total:.1f} points lost [{lo:.1f}, {hi:.1f}] over {len(res.turns)} turns; "
            f"{n_ok} best or within the interval (* : a loss distinguishable from 0); on the screening "
            f"determinizations {res.screen_total:.1f} (biased upwards)"
            + (f"; the search policy's choices: {res.search_total:.1f}" if res.search_total is not None else ""))
    return head + "\n".join([line(cols), *map(line, rows), foot])


def figure(res: RoundLoss, path, **savefig) -> None:
    """The expected margin turn by turn, after the played and after the best move (PNG, PDF, ...;
    `savefig`: matplotlib's savefig options, e.g. the file's metadata)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    x = [t.turn for t in res.turns]
    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(x, [t.margin_best for t in res.turns], "o-", label="after the best move", color="tab:green")
    ax.errorbar(x, [t.margin_played for t in res.turns], fmt="s-", label="after the move played",
                color="tab:red", yerr=[[t.loss - t.lo for t in res.turns], [t.hi - t.loss for t in res.turns]],
                capsize=2)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel("turn of the round")
    ax.set_ylabel("expected side margin at the end (points)")
    ax.set_title(f"seat {res.seat}: {res.total:.1f} expected points lost ({res.evaluator} play-outs)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, **savefig)
    plt.close(fig)


__all__ = ["RoundLoss", "TurnLoss", "analyze_round", "candidates", "figure", "move_text",
           "pick_record", "table"]
