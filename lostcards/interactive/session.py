"""A person at the table: one round on the reference engine, the person's seat typed, the others bots.

The round is dealt from (seed, round 0) as every simulator deals it, and each
bot plays from its seat's own random stream (seed, 0, 1 + seat), a numba bot
through the bridge (run/bridge.py): the bots play this deal exactly as they
would in ``lostcards simulate``.  The record (SPEC §5) is written after every
turn, so a Ctrl-C or ``quit`` keeps the round so far; at the end the person's
moves are analysed (analysis/analyze.py) and the costliest three shown.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Callable, Optional

from lostcards.interactive.moves import HELP, InputRefused, card_choice, card_refusal, draw_only, parse, refusal
from lostcards.interactive.screen import by_suit, cards_text, draw_text, render
from lostcards.reference.moves import Pass, Play
from lostcards.reference.round import Round, deal_record, turn_record
from lostcards.rules.cards import format_card, parse_card, suit_of
from lostcards.rules.streams import Stream

THINKING = 1.0      # seconds a bot decides before the screen says it is thinking


class Quit(Exception):
    """The person typed quit (or closed the input)."""


def move_words(move, letters: str) -> str:
    """A move as typed: ``play 7H, draw deck``, ``discard QS, draw S``, ``pass 2C 5D``."""
    if isinstance(move, Pass):
        return "pass " + " ".join(format_card(c, letters) for c in move.cards)
    word = "play" if move.to == "expedition" else "discard"
    text = f"{word} {format_card(move.card, letters)}"
    if move.draw is None:
        return text
    return text + ", draw " + ("deck" if move.draw == "deck" else letters[move.draw])


class Session:
    """One round: `seat` is the person's, `bots` maps every other seat to a ``Policy``."""

    def __init__(self, rules, seed: int, seat: int, bots: dict, path: Path, first: int = 0,
                 read: Callable[[str], str] = input, write: Callable[[str], None] = print):
        from lostcards.run.bridge import prepare, python_policy
        self.rules, self.seed, self.seat, self.path = rules, seed, seat, Path(path)
        self.read, self.write = read, write
        self.bots = dict(bots)
        self.names = {s: p.spec for s, p in self.bots.items()}
        prepare(list(self.bots.values()))
        self.deciders = {s: python_policy(p) for s, p in self.bots.items()}
        self.rnd = Round.dealt(rules, seed, 0, first)
        self.record = deal_record(self.rnd)
        self.streams = [Stream(seed, 0, 1 + s) for s in range(rules.players)]
        self.since: list = []          # what the others did since the person's last turn

    # -- the record ----------------------------------------------------------------------------
    def save(self) -> None:
        """The record as it stands, written whole (a temporary file renamed over the old one)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # short (the record's name may be at the system's limit), and this record's, process's and thread's own
        key = hashlib.sha256(self.path.name.encode("utf-8", "surrogateescape")).hexdigest()[:16]
        tmp = self.path.with_name(f".{key}.{os.getpid()}.{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(self.record) + "\n")
        os.replace(tmp, self.path)

    def _apply(self, move) -> None:
        self.rnd.apply(move)
        self.record["turns"].append(turn_record(move, self.rules))
        self.save()

    # -- the round -----------------------------------------------------------------------------
    def play(self) -> bool:
        """Play to the end of the round (True) or until the person quits (False); the record is
        saved after every turn, so an interrupt loses nothing."""
        self.save()
        letters = self.rules.letters
        try:
            while not self.rnd.ended:
                s = self.rnd.seat
                if s == self.seat:
                    move = self.ask()
                    before = list(self.rnd.hand(s))
                    self._apply(move)
                    self.since = []
                    drew = self._drawn(before, move)
                    if drew:
                        self.write(drew)
                else:
                    move = self.decide(s)
                    self._apply(move)
                    self.since.append(f"  seat {s} ({self.names[s]}): {self._seen(s, move, letters)}")
        except Quit:
            return False
        if self.since:                   # the others' moves after the person's last turn
            self.write("\n".join(["the last moves:", *self.since]))
        return True

    def decide(self, s: int):
        """Seat `s`'s bot's move, decided in a worker thread while this thread waits in short joins: a
        Ctrl-C is honoured at once however long the bot's kernel runs (it releases the GIL), and a
        decision longer than THINKING seconds says so on the screen."""
        obs, stream, box = self.rnd.observation(), self.streams[s], {}

        def work():
            try:
                box["move"] = self.deciders[s](obs, stream)
            except BaseException as e:     # noqa: BLE001 - handed to the waiting thread as it is
                box["error"] = e
        worker = threading.Thread(target=work, name=f"lostcards-seat-{s}", daemon=True)
        worker.start()
        worker.join(THINKING)
        if worker.is_alive():
            self.write(f"seat {s} ({self.names[s]}) is thinking ... (Ctrl-C stops; the round so far is saved)")
            while worker.is_alive():
                worker.join(0.1)
        if "error" in box:
            raise box["error"]
        return box["move"]

    def _drawn(self, before: list, move) -> str:
        """The line that tells the person what they drew (the card off the deck is news to them)."""
        if not isinstance(move, Play) or move.draw is None:
            return ""
        got = list(self.rnd.hand(self.seat))
        for c in before:
            if c in got:
                got.remove(c)
        if len(got) != 1:
            return ""
        where = "the draw pile" if move.draw == "deck" else f"the {self.rules.letters[move.draw]} discard pile"
        return f"you drew {format_card(got[0], self.rules.letters)} from {where}"

    def _seen(self, s: int, move, letters: str) -> str:
        """A bot's move as the person's seat saw it: a pass's cards only when they came to this seat."""
        if isinstance(move, Pass):
            to = (s + 2) % 4
            if to != self.seat:
                return f"passed two cards to seat {to}"
            return "passed you " + " ".join(format_card(c, letters) for c in move.cards)
        return move_words(move, letters)

    def ask(self):
        """The person's move: the screen, then lines read until one is a legal move."""
        rnd, rules = self.rnd, self.rules
        obs = rnd.observation()
        self.write(render(obs, self.names, rules.stall_limit, self.since))
        chosen: Optional[Play] = None
        while True:
            if chosen is None:
                prompt = "your move> "
            else:
                after = suit_of(chosen.card) if chosen.to == "discard" else None
                self.write(f"now draw: {draw_text(obs, after)}  (type 'deck' or a pile's suit letter; or undo)")
                prompt = "draw> "
            try:
                line = self.read(prompt)
            except EOFError:
                raise Quit() from None
            except InputRefused as e:         # a line the reader will not take whole (one too long)
                self.write(f"refused: {e.reason}")
                continue
            try:
                cmd = (draw_only(line, rules) if chosen is not None else None) or parse(line, rules)
                if cmd.word == "help":
                    self.write(HELP)
                    continue
                if cmd.word == "quit":
                    raise Quit()
                if cmd.word == "undo":
                    if chosen is None:
                        raise InputRefused("nothing to undo: no card chosen this turn")
                    self.write(f"taken back: {move_words(chosen, rules.letters)}")
                    chosen = None
                    continue
                if cmd.word == "draw":
                    if chosen is None:
                        raise InputRefused("choose a card first: 'play CARD' or 'discard CARD'")
                    move = Play(chosen.card, chosen.to, cmd.draw)
                elif cmd.word == "pass":
                    if chosen is not None:
                        raise InputRefused("a card is chosen already: draw, or undo first")
                    move = Pass(cmd.cards)
                else:
                    if chosen is not None:
                        raise InputRefused("a card is chosen already: draw, or undo first")
                    play = card_choice(cmd)
                    bad = card_refusal(rnd, play)
                    if bad is not None:
                        raise bad
                    if rnd.players == 1:
                        move = Play(play.card, play.to, None)
                    elif play.draw is None:
                        chosen = play
                        continue
                    else:
                        move = play
                bad = refusal(rnd, move)
                if bad is not None:
                    raise bad
                return move
            except InputRefused as e:
                self.write(f"refused ({e.name}): {e.reason}" if e.name else f"refused: {e.reason}")

    # -- after the round -------------------------------------------------------------------------
    def summary(self) -> str:
        from lostcards.records.replay import describe, replay_record
        verdict = replay_record(self.record)
        return describe(verdict, self.rnd, "the round")

    def reveal(self) -> str:
        """Every other seat's hand as dealt and as the round left it."""
        letters = self.rules.letters
        lines = ["the other hands (as dealt -> at the end):"]
        for s in range(self.rules.players):
            if s == self.seat:
                continue
            dealt = [parse_card(t, self.rules) for t in self.record["hands"][s]]
            lines.append(f"  seat {s} ({self.names[s]}): {by_suit(dealt, letters)} -> "
                         f"{by_suit(self.rnd.hand(s), letters)}")
        if self.rules.players == 1:
            lines = ["the cards set aside: " + cards_text(sorted(self.rnd.codes[p] for p in self.rnd.aside),
                                                            letters)]
        return "\n".join(lines)

    def analysis(self, samples: int, top: int = 3) -> str:
        """The person's costliest moves, with the better move and the points lost."""
        from lostcards.analysis.analyze import analyze_round
        res = analyze_round(self.record, seat=self.seat, samples=samples, seed=self.seed)
        worst = sorted((t for t in res.turns if t.played != t.best and t.loss > 0),
                       key=lambda t: -t.loss)[:top]
        lo, hi = res.total_interval
        lines = [f"your moves, analysed ({res.samples} deals of the hidden cards a turn, played out by "
                 f"{res.evaluator}): {res.total:.1f} expected points lost in all [{lo:.1f}, {hi:.1f}] "
                 f"over {len(res.turns)} turns"]
        if not worst:
            lines.append("  no move of yours lost points against the best one found")
        for k, t in enumerate(worst, start=1):
            lines.append(f"  {k}. turn {t.turn}: your move: {t.played}; better: {t.best}; "
                         f"{t.loss:.1f} points lost [{t.lo:.1f}, {t.hi:.1f}]")
        return "\n".join(lines)
