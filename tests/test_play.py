"""`lostcards play` as a person uses it: typed at a real pseudo-terminal.

A child `python -m lostcards play` gets a pty as its terminal (its controlling terminal, so Ctrl-C
typed there interrupts it); the test reads the screen, types moves (a mistyped one, an illegal one,
an undo), plays a round to its end, and checks the record (it replays with `lostcards replay`) and
the analysis printed.  Also: Ctrl-C keeps the round so far, `quit`, 4 players, and the one-line
refusals of bad options.
"""
from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import termios
import time

import pytest
from safety_tools import cli, env, lines, sub

from lostcards.interactive.moves import InputRefused, parse
from lostcards.rules.ruleset import rules

PROMPT = re.compile(r"(your move|draw)> $")


def _terminal_child():
    """preexec_fn: a new session whose controlling terminal is the pty on stdin; Ctrl-C at its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """`python -m lostcards ARGS` on a pseudo-terminal: type lines, wait for text, read everything."""

    def __init__(self, *args, cwd):
        master, slave = pty.openpty()
        self.fd = master
        self.proc = subprocess.Popen([sys.executable, "-m", "lostcards", *map(str, args)], stdin=slave,
                                     stdout=slave, stderr=slave, cwd=cwd, env=env(), preexec_fn=_terminal_child,
                                     close_fds=True)
        os.close(slave)
        self.text = ""
        self.seen = 0            # how far expect() has consumed

    def _pump(self, timeout: float) -> bool:
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:          # the child closed the terminal
            return False
        if not data:
            return False
        self.text += data.decode("utf-8", "replace").replace("\r\n", "\n")
        return True

    def expect(self, pattern, timeout: float = 300.0) -> re.Match:
        """Wait for `pattern` (a regex) after what earlier calls consumed; consume up to its end."""
        rx = re.compile(pattern, re.M)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.seen)
            if m:
                self.seen = m.end()
                return m
            if time.monotonic() > end or (not self._pump(0.5) and self.proc.poll() is not None
                                           and not self._pump(0.1)):
                if rx.search(self.text, self.seen):
                    continue
                raise AssertionError(f"no {pattern!r} in the terminal; its last output:\n{self.text[-3000:]}")

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def ctrl_c(self) -> None:
        os.write(self.fd, b"\x03")

    def finish(self, timeout: float = 600.0) -> int:
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._pump(0.2)
        while self._pump(0.1):
            pass
        try:
            rc = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"the child did not end; its last output:\n{self.text[-3000:]}") from None
        finally:
            os.close(self.fd)
        return rc


def _screen(term: Terminal) -> tuple[str, str]:
    """Wait for the next prompt: (the text since the last one, which prompt)."""
    start = term.seen
    m = term.expect(r"(your move|draw)> ")
    return term.text[start:m.start()], m.group(1)


def _choose(screen: str) -> str:
    """A legal move from the screen: the first card that fits an expedition, else the first discard."""
    plays = re.findall(r"^  play     (.*)$", screen, re.M)
    if plays and not plays[-1].startswith("("):
        return "play " + plays[-1].split()[0]
    return "discard " + re.findall(r"^  discard  (.*)$", screen, re.M)[-1].split()[0]


def _hand(screen: str) -> list:
    return re.findall(r"^your hand: (.*)$", screen, re.M)[-1].replace("|", " ").split()


def test_a_round_typed_at_a_terminal_to_its_record_and_analysis(tmp_path):
    rec = tmp_path / "round.json"
    term = Terminal("play", "--against", "random", "--seed", 5, "--out", rec, "--samples", 4, "--reveal",
                    cwd=tmp_path)
    screen, which = _screen(term)
    assert which == "your move"
    for shown in ("draw pile: ", "discard piles (top, depth):", "expeditions (score so far):", "your hand: ",
                  "legal moves:", "stall count: 0"):
        assert shown in screen, shown
    hand = _hand(screen)
    assert hand == sorted(hand, key=lambda t: "CDHS".index(t[-1])), "the hand is sorted by suit"
    term.type("plya 7H")                                         # mistyped
    assert "is not a command" in term.expect(r"refused: .*$").group(0)
    term.expect("your move> ")
    not_held = next(f"{r}{s}" for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10")
                    if f"{r}{s}" not in hand)
    term.type(f"play {not_held}")                                # illegal: not in the hand
    assert "NOT_HELD" in term.expect(r"refused \(NOT_HELD\): .*$").group(0)
    term.expect("your move> ")
    term.type(f"discard {hand[0]}")
    term.expect(r"now draw: draw deck")
    term.expect("draw> ")
    term.type("draw " + hand[0][-1])                             # illegal: the card just discarded
    term.expect(r"refused \((DRAW_BACK|EMPTY_PILE)\)")
    term.expect("draw> ")
    term.type("undo")
    term.expect(f"taken back: discard {hand[0]}")
    term.expect("your move> ")
    term.type(_choose(screen))
    term.expect("draw> ")
    term.type("draw deck")
    turns = 1
    while True:
        start = term.seen
        m = term.expect(r"(your move> |the record: .*$)")
        if m.group(1).startswith("the record"):
            break
        screen = term.text[start:m.start()]
        term.type(_choose(screen))
        term.expect("draw> ")
        term.type("draw deck")
        turns += 1
    term.expect("the other hands")
    term.expect(r"your moves, analysed")
    rc = term.finish()
    out = term.text
    assert rc == 0, out[-2000:]
    assert "the round: ok" in out and "ended by deck" in out
    assert re.search(r"^  1\. turn \d+: you played .*; better: .*; [\d.]+ points lost", out, re.M), out[-1500:]
    assert turns > 10
    code, text, err = cli("replay", rec)
    assert code == 0 and "ended by deck" in text
    record = json.loads(rec.read_text())
    assert record["format"] == "lostcards-round/1" and len(record["turns"]) >= 2 * turns - 1


def test_ctrl_c_keeps_the_round_so_far(tmp_path):
    rec = tmp_path / "r.json"
    term = Terminal("play", "--against", "greedy", "--seed", 9, "--out", rec, "--first", 1, cwd=tmp_path)
    screen, _ = _screen(term)
    term.type(_choose(screen) + " draw deck")
    _screen(term)
    term.ctrl_c()
    rc = term.finish(60)
    assert rc == 130, term.text[-1500:]
    assert "the round so far is saved" in term.text
    code, text, _ = cli("replay", "--json", rec)
    v = json.loads(text)
    assert code == 0 and v["ok"] and v["ended_by"] == "unfinished" and v["turns"] >= 3


def test_quit_and_four_players_with_a_partner(tmp_path):
    rec = tmp_path / "four.json"
    term = Terminal("play", "--players", 4, "--against", "random", "--partner", "greedy", "--seed", 2,
                    "--out", rec, cwd=tmp_path)
    screen, _ = _screen(term)
    assert "team A with seat 2 greedy" in screen and "pass     any two cards" in screen
    hand = _hand(screen)
    term.type(f"pass {hand[0]} {hand[1]}")
    screen, _ = _screen(term)
    assert "seat 2 greedy: " in screen and "known to hold" in screen      # what was passed to the partner
    term.type("quit")
    assert term.finish(60) == 0
    assert "stopped: the round so far is saved" in term.text
    v = json.loads(cli("replay", "--json", rec)[1])
    assert v["ok"] and v["turns"] >= 4


def test_a_solitaire_round_to_its_end(tmp_path):
    rec = tmp_path / "solo.json"
    term = Terminal("play", "--players", 1, "--seed", 4, "--out", rec, "--no-analysis", "--reveal", cwd=tmp_path)
    while True:
        start = term.seen
        m = term.expect(r"(your move> |the record: .*$)")
        if m.group(1).startswith("the record"):
            break
        term.type(_choose(term.text[start:m.start()]))
    assert term.finish(60) == 0
    assert "ended by hand-empty" in term.text and "the cards set aside" in term.text
    assert cli("replay", rec)[0] == 0


@pytest.mark.parametrize("args, words", [
    (["--seat", "2"], "--seat = 2 is not allowed"),
    (["--partner", "greedy"], "--partner is for 4 players"),
    (["--players", "4", "--opponents", "random,greedy,expert"], "--opponents names 3 policies"),
    (["--against", "nosuch"], "unknown policy 'nosuch'"),
    (["--set", "hand_size=0"], "hand_size = 0 is not allowed"),
])
def test_bad_options_are_one_line(tmp_path, args, words):
    code, out, err = cli("play", *args, "--out", tmp_path / "x.json", cwd=tmp_path)
    assert code == 1 and words in err and len(lines(out, err)) == 1, (out, err)
    assert not (tmp_path / "x.json").exists()


def test_an_out_file_that_is_not_a_record_is_left_alone(tmp_path):
    f = tmp_path / "notes.json"
    f.write_text("mine")
    code, out, err = cli("play", "--out", f, cwd=tmp_path)
    assert code == 1 and "not a round record" in err and f.read_text() == "mine"


def test_typed_lines_are_read_as_spec_notation():
    r = rules("expeditions", players=2)
    c = parse("PLAY th draw s", r)
    assert (c.word, c.card, c.draw) == ("play", parse("play 10H", r).card, 3)
    assert parse("discard qs", r).word == "discard"
    for bad in ("play", "play 1H", "draw pile x", "pass 2C", "dance"):
        with pytest.raises(InputRefused):
            parse(bad, r)


def test_the_record_replays_with_the_command(tmp_path):
    """`lostcards replay` on a record `play` wrote (in a fresh process, as a person would)."""
    rec = tmp_path / "q.json"
    term = Terminal("play", "--against", "random", "--seed", 1, "--out", rec, cwd=tmp_path)
    _screen(term)
    term.type("quit")
    assert term.finish(60) == 0
    p = sub("replay", rec)
    assert p.returncode == 0 and "unfinished" in p.stdout


def test_the_documented_play_commands_start_as_written(tmp_path):
    """docs/play.md's and README's `$ lostcards play ...` lines (interactive, so test_docs_commands leaves
    them out): each starts, shows the first screen and stops at `quit`, its record saved."""
    import shlex

    from safety_tools import ROOT
    found = []
    for page in (ROOT / "README.md", ROOT / "docs" / "play.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            s = line.strip()
            if s.startswith("$ lostcards play"):
                found.append(shlex.split(s[2:])[1:])
    assert len(found) >= 3
    for k, args in enumerate(found):
        out = tmp_path / f"doc{k}.json"
        p = subprocess.run([sys.executable, "-m", "lostcards", *args, "--out", str(out)], input="quit\n",
                           capture_output=True, text=True, cwd=tmp_path, env=env(), timeout=600)
        assert p.returncode == 0, (args, p.stdout[-800:], p.stderr[-800:])
        assert "legal moves:" in p.stdout and "stopped: the round so far is saved" in p.stdout, args
        assert json.loads(out.read_text())["format"] == "lostcards-round/1"


def test_a_pass_between_the_others_shows_no_cards(tmp_path):
    from lostcards.interactive.session import Session
    from lostcards.policies import resolve
    from lostcards.reference.moves import Pass
    r = rules("expeditions", players=4)
    rnd_bot = resolve("random")
    s = Session(r, 1, 0, {1: rnd_bot, 2: rnd_bot, 3: rnd_bot}, tmp_path / "x.json", read=lambda p: "quit",
                write=lambda t: None)
    assert s._seen(1, Pass((3, 4)), r.letters) == "passed two cards to seat 3"
    assert s._seen(3, Pass((3, 4)), r.letters) == "passed two cards to seat 1"
    assert s._seen(2, Pass((3, 4)), r.letters) == "passed you 2C 3C"
    assert s.play() is False and json.loads((tmp_path / "x.json").read_text())["turns"] == []


def test_the_screen_is_drawn_from_the_seats_observation_alone():
    """The screen is a function of the Observation: two deals that differ only in what seat 0 cannot see
    (seat 1's hand and the deck's order) give it the same screen."""
    from lostcards.interactive.screen import render
    from lostcards.reference.round import Round
    r = rules("expeditions", players=2)
    a = Round.dealt(r, 3, 0)
    hidden = sorted(a.hands[1] + a.deck)
    b = Round(r, [a.hands[0], hidden[:6]], hidden[6:], 0)
    assert render(a.observation(0), {1: "expert"}) == render(b.observation(0), {1: "expert"})


def test_the_play_command_leaves_the_play_function_alone():
    import lostcards
    import lostcards.cli.play  # noqa: F401
    import lostcards.interactive.session  # noqa: F401
    assert callable(lostcards.play) and callable(lostcards.play_records)
