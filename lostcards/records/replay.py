"""`lostcards replay`: check round records turn by turn and give the SPEC §5 verdict.

``replay_record`` gives the JSON verdict of one record (``check_record`` also
returns the final state); the click command ``replay`` prints verdicts for
files of records (one JSON value, or JSON Lines).
Exit status: 0 every record legal, 1 some record has an illegal turn, 2 some
record (or file) is malformed or unreadable.
"""
from __future__ import annotations

from typing import Optional

from lostcards.errors import IllegalMove, MalformedRecord
from lostcards.records.format import move_of_turn, read_record, split_records
from lostcards.reference.round import Round

EXIT_OK, EXIT_ILLEGAL, EXIT_MALFORMED = 0, 1, 2


def check_record(record) -> tuple:
    """Replay one record (dict or JSON text): (verdict, Round or None, Record or None).

    The Round is the state after the last legal turn (None when malformed).
    """
    try:
        rec = read_record(record)
    except MalformedRecord as e:
        return {"ok": False, "turn": None, "error": str(e)}, None, None
    rnd = rec.deal.round()
    rules = rec.deal.rules
    for k, turn in enumerate(rec.turns, start=1):
        if rnd.ended:
            return {"ok": False, "turn": k,
                    "error": f"the round is already over (ended by {rnd.ended_by} after turn {rnd.turn})"}, rnd, rec
        try:
            rnd.apply(move_of_turn(turn, rules))
        except IllegalMove as e:
            reason = e.reason if f"seat {rnd.seat}" in e.reason else f"seat {rnd.seat}: {e.reason}"
            return {"ok": False, "turn": k, "error": reason}, rnd, rec
    verdict = {"ok": True, "ended_by": rnd.ended_by or "unfinished", "scores": rnd.scores,
               "turns": len(rec.turns)}
    return verdict, rnd, rec


def replay_record(record) -> dict:
    """The SPEC §5 verdict of one record (a dict or JSON text).

    ``{"ok": true, "ended_by", "scores", "turns"}``, ``{"ok": false, "turn": K, "error"}``
    for an illegal turn K (1-based), or ``{"ok": false, "turn": null, "error"}`` when malformed.
    """
    return check_record(record)[0]


def exit_status(verdict: dict) -> int:
    if verdict["ok"]:
        return EXIT_OK
    return EXIT_MALFORMED if verdict["turn"] is None else EXIT_ILLEGAL


def replay_text(text) -> list:
    """Verdicts for every record of a file's contents (SPEC §5.1 input rules)."""
    out = []
    for item in split_records(text):
        if isinstance(item, MalformedRecord):
            out.append({"ok": False, "turn": None, "error": str(item)})
        else:
            out.append(replay_record(item))
    return out


# ---------------------------------------------------------------------------
# Human-readable output
# ---------------------------------------------------------------------------

def _side_name(side: int, players: int) -> str:
    if players == 4:
        return "team A (seats 0, 2)" if side == 0 else "team B (seats 1, 3)"
    return "solitaire" if players == 1 else f"seat {side}"


def describe(verdict: dict, rnd: Optional[Round], label: str) -> str:
    """A verdict in words: final expeditions and scores, or the rule broken, or what is malformed."""
    if not verdict["ok"]:
        if verdict["turn"] is None:
            return f"{label}: malformed record: {verdict['error']}"
        return f"{label}: illegal turn {verdict['turn']}: {verdict['error']}"
    ended = verdict["ended_by"]
    how = "unfinished (the turns stop before the end)" if ended == "unfinished" else f"ended by {ended}"
    lines = [f"{label}: ok, {verdict['turns']} turns, {how}"]
    rules = rnd.rules
    for side in range(rnd.sides):
        exps = []
        for suit in range(rules.suits):
            cards = " ".join(rnd.text(c) for c in rnd.expedition(side, suit))
            exps.append(f"{rules.letters[suit]}: {cards or '-'}")
        lines.append(f"  {_side_name(side, rnd.players)}: {verdict['scores'][side]:+d}   " + "   ".join(exps))
    return "\n".join(lines)
