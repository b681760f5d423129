"""Rooms: one round each, the person's seat played from the page, every other seat a bot.

A room wraps the terminal's ``interactive.Session`` (the same deal, the same
bot streams, the record written after every turn) and takes the person's
moves as the lines ``lostcards play`` reads (``play 7H``, ``draw deck``,
``undo``, ``pass 2C 5D``), fed to the terminal's own turn loop
(``Session.ask``, which parses them with ``interactive.moves`` and asks the
reference engine): the page never decides a rule.  What the page is shown is
the seat's observation (SPEC §3).  Rooms are keyed by an unguessable id and
expire when left idle.
"""
from __future__ import annotations

import secrets
import threading
import time
from pathlib import Path
from typing import Optional

from lostcards.errors import LostcardsError
from lostcards.interactive.moves import HELP, InputRefused, card_choice, parse
from lostcards.web.checks import MAX_SEED, Refused, boolean, integer, only, short, strings, text

ROOM_FIELDS = ("players", "seat", "first", "preset", "sets", "seed", "against", "partner", "opponents", "hints")
MAX_LINE = 80


def _closed(prompt: str) -> str:          # a room is never asked to read a line: moves come from requests
    raise EOFError


def _silent(text: str) -> None:
    pass


def card_view(code: int, letters: str) -> dict:
    """A card as the page draws it: its text, suit letter and index, and its rank."""
    from lostcards.rules.cards import format_card, suit_of
    t = format_card(code, letters)
    return {"card": t, "suit": letters[suit_of(code)], "s": suit_of(code), "rank": t[:-1]}


def compile_notice(bots) -> Optional[str]:
    """The page's notice when the bots must compile first (a cold cache), else None."""
    from lostcards.run.bridge import entries
    numba_bots = [p for p in bots if p.kernel is not None]
    todo = [e for e in entries(numba_bots) if not e.ready] if numba_bots else []
    if not todo:
        return None
    return (f"compiling {', '.join(dict.fromkeys(e.what for e in todo))} (once after an install or a change of "
            "lostcards; up to a minute or two, later rounds start at once) ...")


class _Wait(Exception):
    """``Session.ask`` wants another line: the turn goes on with the next request."""


class _Feed:
    """The lines ``Session.ask`` reads for one request: those typed so far this turn, then the new one;
    what it writes after reading the new one is the request's answer."""

    def __init__(self, lines: list):
        self.lines, self.k, self.said, self.prompt = lines, 0, [], None

    def read(self, prompt: str) -> str:
        if self.k == len(self.lines):
            self.prompt = prompt
            raise _Wait()
        self.k += 1
        if self.k == len(self.lines):
            self.said = []
        return self.lines[self.k - 1]

    def write(self, text: str) -> None:
        self.said.append(text)


class Room:
    """One round at the table: the person's `seat`, the bots' specs by seat, the record's `path`."""

    def __init__(self, rid: str, rules, seed: int, seat: int, bots: dict, path: Path, first: int,
                 hints: bool, notice: Optional[str]):
        self.id, self.rules, self.seed, self.seat, self.first = rid, rules, seed, seat, first
        self.bots, self.path, self.hints_on = bots, Path(path), hints
        self.specs = {s: p.spec for s, p in bots.items()}
        self.lock = threading.RLock()
        self.status = "preparing"            # -> ready, or failed (error says why)
        self.notice = notice                 # the compile notice while the bots compile
        self.error: Optional[str] = None
        self.session = None
        self.chosen = None                   # the card chosen this turn, its draw still to come
        self.typed: list = []                # the lines typed this turn so far (ask reads them again)
        self.log: list = []                  # what every seat did, as the person's seat saw it
        self.touched = time.monotonic()

    # -- setting up ---------------------------------------------------------------------------
    def prepare(self) -> None:
        """Compile or load the bots, deal, save the record, and let the bots before the person move
        (run on a worker thread: a cold compile takes a while)."""
        from lostcards.interactive.session import Session
        from lostcards.policies import failure
        try:
            with self.lock:
                self.session = Session(self.rules, self.seed, self.seat, self.bots, self.path, self.first,
                                       read=_closed, write=_silent)
                self.session.save()
                self._bots_move()
                self.status = "ready"
        except LostcardsError as e:
            self.status, self.error = "failed", str(e)
        except Exception as e:            # noqa: BLE001 - a user module's bot that raised: one line, not a trace
            self.status, self.error = "failed", failure(e)
        finally:
            self.notice = None

    def _bots_move(self) -> None:
        """The bots play until it is the person's turn or the round is over."""
        s = self.session
        letters = self.rules.letters
        while not s.rnd.ended and s.rnd.seat != self.seat:
            seat = s.rnd.seat
            move = s.deciders[seat](s.rnd.observation(), s.streams[seat])
            turn = s.rnd.turn + 1
            s._apply(move)
            self.log.append({"turn": turn, "seat": seat, "who": self.specs[seat],
                             "text": s._seen(seat, move, letters)})

    # -- the person's moves ---------------------------------------------------------------------
    def ready(self) -> None:
        """Refuse (409) while the room is being prepared, or when it could not start."""
        if self.status == "preparing":
            raise Refused(409, "the room is still being prepared (the bots compile on a first run): wait")
        if self.status == "failed":
            raise Refused(409, f"this room could not start: {self.error}")

    def move(self, body: dict) -> dict:
        """Carry out one typed line (`line`) for `seat` at `turn`; refusals name the engine's reason.

        The line goes to the terminal's own ``Session.ask``, fed the lines typed so far this turn and
        then this one: the move it returns is played, a refusal it writes is the answer (422), and
        when it asks for another line (the draw, after a card) the turn waits for the next request."""
        from lostcards.interactive.session import Quit, move_words
        only(body, ("seat", "turn", "line"))
        seat = integer(body, "seat", 0, 3)
        turn = integer(body, "turn", 0, 10**6)
        line = text(body, "line", MAX_LINE)
        with self.lock:
            self.ready()
            self.touched = time.monotonic()
            s, rules = self.session, self.rules
            rnd = s.rnd
            if seat != self.seat:
                raise Refused(403, f"seat = {seat} is not yours: this room's person plays seat {self.seat}")
            if rnd.ended:
                raise Refused(409, f"the round is over (ended by {rnd.ended_by}): start a new one")
            if turn != rnd.turn:
                raise Refused(409, f"turn = {turn} is not the turn to play: the round is at turn {rnd.turn} "
                                   "(another tab moved? reload the page)")
            typed = [*self.typed, line]
            feed = _Feed(typed)
            s.read, s.write = feed.read, feed.write
            try:
                move = s.ask()
            except _Wait:
                refused = [t for t in feed.said if t.startswith("refused")]
                if refused:
                    raise Refused(422, refused[0]) from None
                if HELP in feed.said:
                    return {"help": HELP, **self.view()}
                self.chosen = self._chosen(typed) if feed.prompt == "draw> " else None
                self.typed = typed if self.chosen is not None else []
                return {"said": " ".join(t for t in feed.said if not t.startswith("now draw")) or
                        f"now draw: {move_words(self.chosen, rules.letters)}, draw ...", **self.view()}
            except Quit:
                raise Refused(422, "refused: the record is saved after every turn: close the tab, or start a new "
                                   "round") from None
            finally:
                s.read, s.write = _closed, _silent
            k = rnd.turn + 1
            s._apply(move)
            self.chosen, self.typed = None, []
            self.log.append({"turn": k, "seat": self.seat, "who": "you", "text": move_words(move, rules.letters)})
            try:
                self._bots_move()
            except Exception as e:       # noqa: BLE001 - a user module's bot that raised: one line, not a trace
                from lostcards.policies import failure
                self.status = "failed"
                self.error = f"a bot failed: {e if isinstance(e, LostcardsError) else failure(e)}"
                raise Refused(409, self.error) from None
            return {"said": f"you: {move_words(move, rules.letters)}", **self.view()}

    def _chosen(self, typed: list):
        """The card chosen this turn (ask waits for its draw): the last `play`/`discard` line typed."""
        for line in reversed(typed):
            try:
                cmd = parse(line, self.rules)
            except InputRefused:
                continue
            if cmd.word in ("play", "discard"):
                return card_choice(cmd)
        return None

    # -- hints ----------------------------------------------------------------------------------
    def hint(self, samples: int) -> dict:
        """The strongest bot's move here and how it compares, marked in the record (``hints``)."""
        from lostcards.web.hint import hint
        with self.lock:
            self.ready()
            if not self.hints_on:
                raise Refused(403, "hints are off in this room: start a round with hints on to use them")
            rnd = self.session.rnd
            if rnd.ended or rnd.seat != self.seat:
                raise Refused(409, "a hint is for your turn, and the round is over or not at your turn")
            if self.chosen is not None:
                raise Refused(409, "a card is chosen already: undo it first, then ask for a hint")
            h = hint(rnd, self.seat, samples, self.seed)
            rec = self.session.record
            rec.setdefault("hints", []).append({"turn": rnd.turn + 1, "seat": self.seat, "move": h["move"],
                                                "by": h["by"]})
            self.session.save()
            self.touched = time.monotonic()
            return h

    # -- what the page shows --------------------------------------------------------------------
    def view(self, brief: bool = False) -> dict:
        """The person's seat's view (SPEC §3: its observation only), and the round's state; `brief`: only
        the room's settings and status (read without the lock while the room is being prepared)."""
        from lostcards.interactive.screen import side_label
        from lostcards.rules.cards import suit_of
        from lostcards.rules.scoring import expedition_score
        out = {"room": self.id, "status": self.status, "notice": self.notice, "error": self.error,
               "seat": self.seat, "players": self.rules.players, "rules": self.rules.describe(),
               "seed": self.seed, "bots": {str(k): v for k, v in self.specs.items()}, "hints": self.hints_on,
               "record": str(self.path)}
        if brief or (self.status != "ready" and self.session is None):
            return out
        s, r = self.session, self.rules
        rnd = s.rnd
        letters = r.letters
        obs = rnd.observation(self.seat)
        cv = lambda c: card_view(c, letters)  # noqa: E731
        hand = sorted(obs.hand)
        playable = sorted({rnd.text(c) for c, to in obs.legal_plays() if to == "expedition"}) \
            if rnd.seat == self.seat else []
        names = dict(self.specs)
        sides = []
        for side in range(r.sides):
            exps = obs.expeditions[side]
            sides.append({"label": side_label(side, r.players, self.seat, names),
                          "mine": side == obs.side,
                          "score": sum(expedition_score(e, r) for e in exps),
                          "suits": [{"suit": letters[k], "cards": [cv(c) for c in e],
                                     "score": expedition_score(e, r) if e else 0} for k, e in enumerate(exps)]})
        others = [{"seat": k, "who": names.get(k, "?"), "cards": obs.hand_sizes[k],
                   "partner": k == obs.partner, "known": [cv(c) for c in obs.known[k]]}
                  for k in range(r.players) if k != self.seat]
        draws = []
        if self.chosen is not None:
            after = suit_of(self.chosen.card) if self.chosen.to == "discard" else None
            for src in obs.draw_sources(after):
                draws.append({"from": "deck", "label": f"deck ({obs.deck_size})"} if src == "deck" else
                             {"from": letters[src], "label": f"{letters[src]}: {rnd.text(obs.discards[src][-1])}"})
        out.update({
            "turn": rnd.turn, "to_move": rnd.seat, "your_turn": rnd.seat == self.seat and not rnd.ended,
            "ended": rnd.ended, "ended_by": rnd.ended_by, "letters": letters,
            "hand": [cv(c) for c in hand], "playable": playable,
            "chosen": None if self.chosen is None else {"card": rnd.text(self.chosen.card), "to": self.chosen.to},
            "draws": draws, "can_pass": bool(obs.can_pass) and rnd.seat == self.seat,
            "sides": sides, "others": others,
            "piles": [{"suit": letters[k], "cards": [cv(c) for c in p]} for k, p in enumerate(obs.discards)],
            "deck": obs.deck_size, "stall_count": obs.stall_count,
            "stall_end": r.stall_limit * r.players if r.players > 1 and r.stall_limit else None,
            "log": self.log[-40:], "hints_used": len(s.record.get("hints", [])),
        })
        if rnd.ended:
            out["scores"] = rnd.scores
            out["summary"] = s.summary()
            out["reveal"] = s.reveal()
        return out


class Rooms:
    """Every open room, by id; idle rooms expire after `ttl` seconds; at most `most` at once."""

    def __init__(self, records: Path, menu: list, ttl: float = 4 * 3600, most: int = 64):
        self.records, self.menu, self.ttl, self.most = Path(records), list(menu), ttl, most
        self.rooms: dict = {}
        self.lock = threading.Lock()
        self.count = 0

    def get(self, rid: str) -> Room:
        self.sweep()
        room = self.rooms.get(rid) if isinstance(rid, str) else None
        if room is None:
            raise Refused(404, f"no room {short(rid, 30)}: it expired (idle over {self.ttl / 3600:g} h), was closed "
                               "to make room for a new round once its own had ended, "
                               "or the server was restarted; start a new round")
        return room

    def sweep(self) -> None:
        with self.lock:
            self.sweep_locked()

    def spec(self, value, what: str):
        """A bot spec from the menu (a registered bot, or a module given to ``lostcards serve --bot``)."""
        from lostcards.errors import PolicyError
        from lostcards.policies import resolve
        if not isinstance(value, str) or not value.strip() or len(value) > 200:
            raise Refused(400, f"{what} = {short(value)} is not allowed: a bot's name, e.g. expert or "
                               "improve:k=64")
        name = value.strip().split(":")[0]
        if not any(value.strip() == m or name == m.split(":")[0] for m in self.menu):
            raise Refused(422, f"{what} = {short(value)} is not on the menu: {', '.join(self.menu)} "
                               "(a module of your own: lostcards serve --bot module:name)")
        try:
            return resolve(value.strip())
        except PolicyError as e:
            raise Refused(422, f"{what}: {e}") from None

    def create(self, body: dict) -> Room:
        """A new room from the page's choices, every value checked as ``lostcards play`` checks it."""
        from lostcards.errors import RulesError
        from lostcards.rules.ruleset import PRESETS, build_rules
        only(body, ROOM_FIELDS)
        players = integer(body, "players", 1, 4, default=2)
        if players not in (1, 2, 4):
            raise Refused(422, f"players = {players} is not allowed: 1, 2 or 4")
        preset = text(body, "preset", 40, default="expeditions", choices=list(PRESETS))
        sets = strings(body, "sets")
        try:
            rules = build_rules(preset, sets, players)
        except RulesError as e:
            raise Refused(422, f"rules: {e}") from None
        seat = integer(body, "seat", 0, players - 1, default=0)
        first = integer(body, "first", 0, players - 1, default=0)
        seed = integer(body, "seed", 0, MAX_SEED, default=-1)
        if seed == -1:
            seed = secrets.randbelow(10**6)
        hints = boolean(body, "hints", False)
        against = "expert" if body.get("against") is None else body["against"]
        others = [s for s in range(players) if s != seat]
        mate = (seat + 2) % 4 if players == 4 else None
        specs = {s: self.spec(against, "against") for s in others}
        if body.get("partner") is not None:
            if mate is None:
                raise Refused(422, f"partner is for 4 players; this round has {players}")
            specs[mate] = self.spec(body["partner"], "partner")
        if body.get("opponents") is not None:
            opp = body["opponents"]
            opp_seats = [s for s in others if s != mate]
            if not isinstance(opp, list) or len(opp) != len(opp_seats):
                raise Refused(400, f"opponents = {short(opp)} is not allowed: a list of {len(opp_seats)} bot(s), "
                                   f"one for each of seats {', '.join(map(str, opp_seats))}")
            for s, v in zip(opp_seats, opp):
                specs[s] = self.spec(v, f"opponents (seat {s})")
        notice = compile_notice(list(specs.values()))
        with self.lock:
            self.sweep_locked()
            if len(self.rooms) >= self.most:
                self._close_a_finished_room()
            if len(self.rooms) >= self.most:
                raise Refused(429, f"{self.most} rounds are under way, the most at once: finish or leave one "
                                   f"(a finished round makes room for a new one; idle rooms close after "
                                   f"{self.ttl / 3600:g} h)")
            rid = secrets.token_urlsafe(18)
            self.count += 1
            path = self._free(f"round-seed{seed}")
            room = Room(rid, rules, seed, seat, specs, path, first, hints, notice)
            self.rooms[rid] = room
        return room

    def sweep_locked(self) -> None:
        """Close the rooms idle over `ttl` (their records stay on disk)."""
        now = time.monotonic()
        for rid in [k for k, r in self.rooms.items() if now - r.touched > self.ttl and r.status != "preparing"]:
            del self.rooms[rid]

    def _close_a_finished_room(self) -> None:
        """Close the room whose round ended (or failed) longest ago; its record stays on disk."""
        done = [(r.touched, k) for k, r in self.rooms.items()
                if r.status == "failed" or (r.status == "ready" and r.session is not None and r.session.rnd.ended)]
        if done:
            del self.rooms[min(done)[1]]

    def _free(self, stem: str) -> Path:
        """A record file name not taken yet, in the records folder."""
        self.records.mkdir(parents=True, exist_ok=True)
        k = 1
        while True:
            p = self.records / (f"{stem}.json" if k == 1 else f"{stem}-{k}.json")
            if not p.exists() and not any(r.path == p for r in self.rooms.values()):
                return p
            k += 1

    def save_all(self) -> None:
        """Write every room's record once more (at shutdown; each is written after every turn anyway)."""
        for room in list(self.rooms.values()):
            if room.session is not None:
                with room.lock:
                    room.session.save()
