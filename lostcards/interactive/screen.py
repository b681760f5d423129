"""The screen a person sees on their turn, drawn from their seat's Observation alone (SPEC §3).

Nothing here reads the round itself: only what the seat may see (own hand
sorted by suit, every expedition with its score so far, the discard piles' tops
and depths, the draw pile's size, the stall count, the cards known to be held
by the other seats, what was passed to the partner), and the legal moves.
"""
from __future__ import annotations

from lostcards.reference.observation import side_of
from lostcards.rules.cards import format_card, suit_of
from lostcards.rules.scoring import expedition_score


def n_cards(n: int) -> str:
    """``1 card``, ``2 cards``."""
    return f"{n} card" if n == 1 else f"{n} cards"


def cards_text(codes, letters: str) -> str:
    return " ".join(format_card(c, letters) for c in codes) or "-"


def by_suit(codes, letters: str) -> str:
    """A hand sorted by suit, then rank, suits apart: ``2C 9C | JD 4D | 7H``."""
    groups = {}
    for c in sorted(codes):
        groups.setdefault(suit_of(c), []).append(c)
    return " | ".join(cards_text(groups[s], letters) for s in sorted(groups)) or "-"


def side_label(side: int, players: int, seat: int, names: dict) -> str:
    """Who a side is, from `seat`'s point of view."""
    if players == 1:
        return "you"
    if players == 2:
        return "you" if side == seat else f"seat {side} ({names.get(side, '?')})"
    mine = side_of(seat, 4)
    seats = (0, 2) if side == 0 else (1, 3)
    who = ", ".join("you" if s == seat else f"seat {s} {names.get(s, '?')}" for s in seats)
    return f"{'your team' if side == mine else 'their team'} ({who})"


def legal_text(obs) -> str:
    """The legal moves in card notation (the draw is asked next)."""
    letters = obs.letters
    plays = sorted({c for c, to in obs.legal_plays() if to == "expedition"})
    lines = [f"  play     {cards_text(plays, letters) if plays else '(no card fits an expedition)'}",
             f"  discard  {cards_text(sorted(set(obs.hand)), letters)}"]
    if obs.can_pass:
        lines.append("  pass     any two cards of your hand, to your partner")
    return "\n".join(lines)


def draw_text(obs, after_discard_suit) -> str:
    """Where the draw may come from after this play, in card notation."""
    letters = obs.letters
    out = []
    for src in obs.draw_sources(after_discard_suit):
        if src == "deck":
            out.append(f"draw deck ({n_cards(obs.deck_size)})")
        else:
            out.append(f"draw {letters[src]} ({format_card(obs.discards[src][-1], letters)})")
    return ", ".join(out)


def render(obs, names: dict, stall_limit: int = 0, last: list = ()) -> str:
    """The whole screen for `obs` (the person's seat); `names`: seat -> policy spec of the bots;
    `last`: lines saying what the other seats did since the person's last turn."""
    r = obs.rules
    letters = r.letters
    players = obs.players
    seat = obs.seat
    out = []
    who = "solitaire" if players == 1 else f"seat {seat}"
    if players == 4:
        who += f", team {'AB'[obs.side]} with seat {obs.partner} {names.get(obs.partner, '?')}"
    out.append(f"=== turn {obs.turn + 1} · you are {who} ===")
    if last:
        out.append("since your last turn:")
        out.extend(last)
    stall = ""
    if players > 1 and r.stall_limit:
        stall = f"   stall count: {obs.stall_count} (the round ends at {r.stall_limit * players})"
    elif players > 1:
        stall = f"   stall count: {obs.stall_count}"
    out.append(f"draw pile: {n_cards(obs.deck_size)}{stall}")
    piles = []
    for s in range(r.suits):
        pile = obs.discards[s]
        piles.append(f"{letters[s]}: {format_card(pile[-1], letters)} ({len(pile)})" if pile else f"{letters[s]}: -")
    out.append(("out of the game: " + n_cards(sum(len(p) for p in obs.discards))) if players == 1
               else "discard piles (top, depth):  " + "   ".join(piles))
    out.append("expeditions (score so far):")
    for side in range(r.sides):
        exps = obs.expeditions[side]
        parts = []
        for s in range(r.suits):
            e = exps[s]
            parts.append(f"{letters[s]}: {cards_text(e, letters)} ({expedition_score(e, r):+d})" if e
                         else f"{letters[s]}: -")
        total = sum(expedition_score(e, r) for e in exps)
        out.append(f"  {side_label(side, players, seat, names)}: {total:+d}")
        out.append("      " + "   ".join(parts))
    for s in range(players):
        if s == seat:
            continue
        held = obs.known[s]
        what = f"seat {s} {names.get(s, '?')}: {n_cards(obs.hand_sizes[s])}"
        if held:
            source = "taken off the discard piles" if s != obs.partner else "you passed it or it took"
            what += f", known to hold {cards_text(held, letters)} ({source})"
        out.append(what)
    out.append(f"your hand: {by_suit(obs.hand, letters)}")
    out.append("legal moves:")
    out.append(legal_text(obs))
    return "\n".join(out)
