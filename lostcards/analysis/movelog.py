"""Per-turn facts of rounds, read from their SPEC §5 records.

The tidy tables of a batch (``run.tables``) say what each seat did in a round;
some strategy tips need what the table looked like at a given turn: what the
hand held when an expedition was opened, whether a discard was dead for the
opponent when it was thrown and who took it, what became of a 2 drawn late.
``walk`` replays records (from ``runner.play_records`` in memory, or a
``records.jsonl`` read from disk) on the reference engine, turn by turn, and
collects those facts for 1, 2 and 4 players.  It reads only the records and the
reference engine's public state, so it does not depend on how the fast engine
stores its moves.

The facts (``FACT_COLUMNS``), one row per:

- ``expeditions``: expedition opened (``seat`` opened it; ``side`` owns it);
- ``cards``: card laid on an expedition (``points``: the expedition's score just
  after minus just before, bonus included, so an expedition's cards add up to its score);
- ``discards``: card discarded, with the table when it was thrown (``own_dead``:
  the discarder's side can no longer lay it; ``opp_dead``: the other side cannot)
  and what became of it (taken off the pile by the other side or by the own
  side; laid by the other side, and the points it brought there);
- ``entries``: card that entered a hand (dealt, drawn off the deck or a pile, or
  passed by the partner) and its fate in that hand (laid, discarded, passed on,
  or stranded at the end);
- ``hands``: seat, at the end: the points of numbers left in hand, and of those
  that could still have gone on one of its side's expeditions (``stranded_*``).

``walk`` also returns each round's statistics as the engine reports them
(``Round.stats``), so that rounds known only from records (a slow bot's, played
once with its moves logged) get the same tidy tables as a batch.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from lostcards.records.format import move_of_turn, read_record
from lostcards.reference.moves import Pass
from lostcards.rules.cards import is_investment, suit_of, value_of
from lostcards.rules.outcome import Ending
from lostcards.rules.scoring import expedition_score

# the fate of a card that entered a hand, and where it came from
LAID, DISCARDED, STRANDED, PASSED = 0, 1, 2, 3
DEALT, FROM_DECK, FROM_PILE, FROM_PARTNER = 0, 1, 2, 3

FACT_COLUMNS = {
    "expeditions": ("round", "seat", "side", "suit", "open_turn", "deck_at_open", "held_at_open",
                    "opened_with_investment", "invest_held", "investments", "cards", "numbers_sum", "score"),
    "cards": ("round", "seat", "side", "suit", "k", "value", "investment", "points", "turn"),
    "discards": ("round", "seat", "side", "suit", "value", "investment", "turn", "deck", "own_dead",
                 "opp_dead", "opp_started", "opp_investments", "taken_by_opp", "taken_by_own",
                 "laid_by_opp", "opp_points"),
    "entries": ("round", "seat", "side", "suit", "value", "investment", "source", "turn", "deck", "fate"),
    "hands": ("round", "seat", "side", "stranded_points", "stranded_cards", "hand_points"),
}


@dataclass
class Walked:
    """The facts of some rounds, and their per-round statistics in the batch arrays' layout."""

    facts: dict              # name -> DataFrame (FACT_COLUMNS)
    rounds: np.ndarray       # [k] round indices
    round_info: np.ndarray   # [k, 5]: first, turns, ended_by code, score side A, score side B
    seats: np.ndarray        # [k, players, 5]
    seat_suits: np.ndarray   # [k, players, suits, 4]
    side_suits: np.ndarray   # [k, sides, suits, 3]


class _Columns:
    """Column lists per fact table, turned into DataFrames at the end."""

    def __init__(self):
        self.cols = {t: {c: [] for c in cs} for t, cs in FACT_COLUMNS.items()}

    def add(self, table: str, **row) -> int:
        cols = self.cols[table]
        for c, v in row.items():
            cols[c].append(v)
        return len(cols["round"]) - 1

    def set(self, table: str, row: int, **values):
        for c, v in values.items():
            self.cols[table][c][row] = v

    def frames(self) -> dict:
        return {t: pd.DataFrame({c: np.asarray(v) for c, v in cols.items()}, columns=list(cols))
                for t, cols in self.cols.items()}


def walk(records, round_indices=None) -> Walked:
    """Replay records (dicts or JSON text, SPEC §5) and collect their per-turn facts.

    ``round_indices`` names the rounds (default 0, 1, ...).  Every turn goes through
    ``reference.Round.apply``, so an illegal record raises.
    """
    records = list(records)
    idx = np.arange(len(records)) if round_indices is None else np.asarray(list(round_indices), np.int64)
    if idx.shape[0] != len(records):
        raise ValueError(f"{len(records)} records but {idx.shape[0]} round indices")
    F = _Columns()
    stats = []
    for ri, rec in zip(idx, records):
        stats.append(_walk_one(int(ri), rec, F))
    if not stats:
        z = np.zeros((0, 0), np.int64)
        return Walked(F.frames(), idx, np.zeros((0, 5), np.int64), z, z, z)
    info = [[s["first"], s["turns"], Ending(s["ended_by"]).code, *s["scores"], *([0] * (2 - len(s["scores"])))]
            for s in stats]
    return Walked(F.frames(), idx, np.array(info, np.int64),
                  np.stack([s["seats"] for s in stats]), np.stack([s["seat_suits"] for s in stats]),
                  np.stack([s["side_suits"] for s in stats]))


def _lay_allowed(expedition, code) -> bool:
    """May `code` still go on this expedition (codes in the order laid)?"""
    nums = [value_of(c) for c in expedition if not is_investment(c)]
    if is_investment(code):
        return not nums
    return not nums or value_of(code) > max(nums)


def _walk_one(ri: int, rec, F: _Columns) -> dict:
    R = read_record(rec)
    r = R.deal.rules
    rnd = R.deal.round()
    players, suits = r.players, r.suits
    side_of = (lambda seat: seat % 2) if players > 1 else (lambda seat: 0)
    held = {}               # seat -> {code: [entry rows]} for the cards now in that hand
    exp_row = {}            # (side, suit) -> row in "expeditions"
    piles = [[] for _ in range(suits)]     # discard rows, bottom first, beside the real piles
    holding = {}            # (seat, code) -> [discard rows] taken off a pile and still held
    laid_rows = []          # (discard row, side, suit, value): discards the other side laid

    def enter(seat, code, source, turn, deck):
        row = F.add("entries", round=ri, seat=seat, side=side_of(seat), suit=suit_of(code), value=value_of(code),
                    investment=is_investment(code), source=source, turn=turn, deck=deck, fate=STRANDED)
        held.setdefault(seat, {}).setdefault(code, []).append(row)

    def leave(seat, code, fate):
        F.set("entries", held[seat][code].pop(0), fate=fate)

    for seat in range(players):
        for code in rnd.hand(seat):
            enter(seat, code, DEALT, 0, rnd.deck_size)
    for t, turn in enumerate(R.turns):
        move = move_of_turn(turn, r)
        seat = rnd.seat
        side = side_of(seat)
        if isinstance(move, Pass):
            partner = (seat + 2) % 4
            for code in move.cards:
                leave(seat, code, PASSED)
                enter(partner, code, FROM_PARTNER, t + 1, rnd.deck_size)
                for row in holding.pop((seat, code), []):
                    holding.setdefault((partner, code), []).append(row)
            rnd.apply(move)
            continue
        code, s = move.card, suit_of(move.card)
        hand = rnd.hand(seat)
        deck_before = rnd.deck_size
        taken = holding.get((seat, code))
        taken_row = taken.pop(0) if taken else None
        if move.to == "discard":
            opp = 1 - side
            row = F.add("discards", round=ri, seat=seat, side=side, suit=s, value=value_of(code),
                        investment=is_investment(code), turn=t, deck=deck_before,
                        own_dead=not _lay_allowed(rnd.expedition(side, s), code),
                        opp_dead=players > 1 and not _lay_allowed(rnd.expedition(opp, s), code),
                        opp_started=players > 1 and len(rnd.expedition(opp, s)) > 0,
                        opp_investments=sum(map(is_investment, rnd.expedition(opp, s))) if players > 1 else 0,
                        taken_by_opp=False, taken_by_own=False, laid_by_opp=False, opp_points=0)
            if players > 1:
                piles[s].append(row)
            leave(seat, code, DISCARDED)
        else:
            exp = rnd.expedition(side, s)
            before = expedition_score(exp, r)
            numbers_in_hand = sum(value_of(c) for c in hand if suit_of(c) == s and not is_investment(c))
            if not exp:
                exp_row[side, s] = F.add(
                    "expeditions", round=ri, seat=seat, side=side, suit=s, open_turn=t, deck_at_open=deck_before,
                    held_at_open=numbers_in_hand, opened_with_investment=is_investment(code), invest_held=-1,
                    investments=0, cards=0, numbers_sum=0, score=0)
            if is_investment(code) and not any(map(is_investment, exp)):
                F.set("expeditions", exp_row[side, s], invest_held=numbers_in_hand)
            after = expedition_score((*exp, code), r)
            F.add("cards", round=ri, seat=seat, side=side, suit=s, k=len(exp) + 1, value=value_of(code),
                  investment=is_investment(code), points=after - before, turn=t)
            leave(seat, code, LAID)
            if taken_row is not None and F.cols["discards"]["side"][taken_row] != side:
                laid_rows.append((taken_row, side, s, value_of(code)))
        # the draw: the deck's top, a discard pile's top, or nothing (solitaire, deck out)
        new, source = None, None
        if move.draw == "deck" or (move.draw is None and rnd.deck_size > 0):
            new, source = rnd.deck_cards()[0], FROM_DECK
        elif move.draw is not None:
            new, source = rnd.discard_pile(move.draw)[-1], FROM_PILE
        rnd.apply(move)
        if source == FROM_PILE:
            drow = piles[move.draw].pop()
            who = "taken_by_own" if F.cols["discards"]["side"][drow] == side else "taken_by_opp"
            F.set("discards", drow, **{who: True})
            holding.setdefault((seat, new), []).append(drow)
        if new is not None:
            enter(seat, new, source, t + 1, rnd.deck_size)
    if not rnd.ended:
        raise ValueError(f"round {ri}: the record stops before the end of the round")
    # what is known only at the end
    for (side, s), row in exp_row.items():
        e = rnd.expedition(side, s)
        F.set("expeditions", row, investments=sum(map(is_investment, e)), cards=len(e),
              numbers_sum=sum(map(value_of, e)), score=expedition_score(e, r))
    for row, side, s, value in laid_rows:
        F.set("discards", row, laid_by_opp=True,
              opp_points=value * (sum(map(is_investment, rnd.expedition(side, s))) + 1))
    for seat in range(players):
        side = side_of(seat)
        hand = rnd.hand(seat)
        live = [c for c in hand if not is_investment(c) and rnd.expedition(side, suit_of(c))
                and _lay_allowed(rnd.expedition(side, suit_of(c)), c)]
        F.add("hands", round=ri, seat=seat, side=side, stranded_points=sum(map(value_of, live)),
              stranded_cards=len(live), hand_points=sum(map(value_of, hand)))
    return rnd.stats()
