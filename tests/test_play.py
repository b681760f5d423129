"""`lostcards play` as a person uses it, in this process: the command runs with its typed lines read by a
`Typist` that looks at the screen written so far (as a person at a terminal would) and answers each prompt.

The typist reads the screen, types moves (a mistyped one, an illegal one, an undo), plays a round to its
end, and the test checks the record (it replays with `lostcards replay`) and the analysis printed.  Also:
`quit`, 4 players, solitaire, what the screen says (the card drawn, the others' moves, plurals), and the
one-line refusals of bad options.  Ctrl-C is the one test in a child process (a signal is the point).
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import subprocess
import sys
import time

import pytest
from safety_tools import cli, default_sigint, env, interrupt, lines

from lostcards.interactive.moves import InputRefused, draw_only, parse
from lostcards.rules.ruleset import rules


class Typist:
    """Answers `lostcards play`'s prompts from a script: each entry is a line, or a function of the screen
    since the last prompt (text) that returns the line; after the script, `then` (a function of the
    screen) answers, or EOF (the input closed)."""

    def __init__(self, *script, then=None):
        self.script = list(script)
        self.then = then
        self.out = io.StringIO()
        self.seen = 0
        self.prompts = []

    def __call__(self, prompt: str) -> str:
        self.out.write(prompt)
        text = self.out.getvalue()
        screen, self.seen = text[self.seen:], len(text)
        self.prompts.append(prompt.strip())
        step = self.script.pop(0) if self.script else self.then
        if step is None:
            raise EOFError
        line = step(screen) if callable(step) else step
        self.out.write(line + "\n")           # the terminal's echo
        return line


def play(monkeypatch, typist: Typist, *args, cwd) -> tuple[int, str]:
    """`lostcards play ARGS` in this process, its lines typed by `typist`: (exit status, everything shown)."""
    import lostcards.cli.play as play_cli
    from lostcards.cli.app import main_status
    monkeypatch.setattr(play_cli, "_Lines", lambda: typist)
    monkeypatch.chdir(cwd)
    with contextlib.redirect_stdout(typist.out), contextlib.redirect_stderr(typist.out):
        code = main_status(["play", *map(str, args)])
    return code, typist.out.getvalue()


def _choose(screen: str) -> str:
    """A legal move from the screen: the first card that fits an expedition, else the first discard."""
    plays = re.findall(r"^  play     (.*)$", screen, re.M)
    if plays and not plays[-1].startswith("("):
        return "play " + plays[-1].split()[0]
    return "discard " + re.findall(r"^  discard  (.*)$", screen, re.M)[-1].split()[0]


def _hand(screen: str) -> list:
    return re.findall(r"^your hand: (.*)$", screen, re.M)[-1].replace("|", " ").split()


def _moves(screen: str) -> str:
    """A whole turn: the chosen card, then the draw off the deck."""
    return _choose(screen) + " draw deck"


def test_a_round_typed_to_its_record_and_analysis(tmp_path, monkeypatch):
    rec = tmp_path / "round.json"
    first = {}

    def look(screen):
        first["screen"] = screen
        first["hand"] = _hand(screen)
        return "plya 7H"                                       # mistyped

    def not_held(screen):
        assert "is not a command" in screen
        return "play " + next(f"{r}{s}" for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10")
                              if f"{r}{s}" not in first["hand"])

    def discard(screen):
        assert "refused (NOT_HELD): " in screen
        return f"discard {first['hand'][0]}"

    def draw_back(screen):
        assert "now draw: draw deck" in screen and "type 'deck' or a pile's suit letter" in screen
        return "draw " + first["hand"][0][-1]                  # illegal: the card just discarded

    def undo(screen):
        assert re.search(r"refused \((DRAW_BACK|EMPTY_PILE)\)", screen), screen
        return "undo"

    def choose(screen):
        assert f"taken back: discard {first['hand'][0]}" in screen
        return _choose(first["screen"])

    t = Typist(look, not_held, discard, draw_back, undo, choose, "deck", then=_moves)
    code, out = play(monkeypatch, t, "--against", "random", "--seed", 5, "--out", rec, "--samples", 4,
                     "--reveal", cwd=tmp_path)
    assert code == 0, out[-2000:]
    for shown in ("draw pile: ", "discard piles (top, depth):", "expeditions (score so far):", "your hand: ",
                  "legal moves:", "stall count: 0", "since your last turn:\n  seat 1 (random): "):
        assert shown in first["screen"] + out, shown
    hand = first["hand"]
    assert hand == sorted(hand, key=lambda t: "CDHS".index(t[-1])), "the hand is sorted by suit"
    assert re.search(r"^you drew \w+ from the draw pile$", out, re.M), "the card drawn is shown"
    assert "the round: ok" in out and "ended by deck" in out
    assert "the other hands" in out and "your moves, analysed" in out
    assert re.search(r"^  1\. turn \d+: your move: (play|discard) \w+, draw \w+; better: .*; [\d.]+ points lost",
                     out, re.M), out[-1500:]
    turns = t.prompts.count("your move>") - 3
    assert turns > 10
    code, text, err = cli("replay", rec)
    assert code == 0 and "ended by deck" in text
    record = json.loads(rec.read_text())
    assert record["format"] == "lostcards-round/1" and len(record["turns"]) >= 2 * turns - 1


def test_the_draw_prompt_takes_the_source_alone(tmp_path, monkeypatch):
    """At `draw>`, `deck` and a suit letter alone are the draw (`d`: the D pile, as the prompt says)."""
    rec = tmp_path / "d.json"
    t = Typist(lambda screen: _choose(screen), "deck", lambda screen: "discard " + _hand(screen)[0], "deck",
               lambda screen: _choose(screen), "draw deck", "quit")
    code, out = play(monkeypatch, t, "--against", "random", "--seed", 5, "--out", rec, cwd=tmp_path)
    assert code == 0 and t.prompts == ["your move>", "draw>", "your move>", "draw>", "your move>", "draw>",
                                       "your move>"], (t.prompts, out)
    assert "refused" not in out and out.count("you drew ") == 3
    turns = json.loads(rec.read_text())["turns"]
    assert [tr["draw"] for tr in turns[0::2]][:3] == ["deck"] * 3
    from lostcards.interactive.moves import draw_only
    r = rules("expeditions", players=2)
    assert draw_only("d", r).draw == 1 and draw_only(" DECK ", r).draw == "deck"
    assert draw_only("discard 7H", r) is None and parse("d 7H", r).word == "discard"


def test_quit_and_four_players_with_a_partner(tmp_path, monkeypatch):
    rec = tmp_path / "four.json"
    seen = {}

    def pass_two(screen):
        seen["first"] = screen
        hand = _hand(screen)
        return f"pass {hand[0]} {hand[1]}"

    def quit_(screen):
        seen["second"] = screen
        return "quit"
    code, out = play(monkeypatch, Typist(pass_two, quit_), "--players", 4, "--against", "random",
                     "--partner", "greedy", "--seed", 2, "--out", rec, cwd=tmp_path)
    assert code == 0
    assert "team A with seat 2 greedy" in seen["first"] and "pass     any two cards" in seen["first"]
    assert "seat 2 greedy: " in seen["second"] and "known to hold" in seen["second"]   # what was passed
    assert "stopped: the round so far is saved" in out
    v = json.loads(cli("replay", "--json", rec)[1])
    assert v["ok"] and v["turns"] >= 4


def test_a_solitaire_round_to_its_end(tmp_path, monkeypatch):
    rec = tmp_path / "solo.json"
    code, out = play(monkeypatch, Typist(then=_choose), "--players", 1, "--seed", 4, "--out", rec,
                     "--no-analysis", "--reveal", cwd=tmp_path)
    assert code == 0, out[-1500:]
    assert "ended by hand-empty" in out and "the cards set aside" in out
    assert cli("replay", rec)[0] == 0


def test_the_input_closed_stops_and_keeps_the_round(tmp_path, monkeypatch):
    rec = tmp_path / "eof.json"
    code, out = play(monkeypatch, Typist(), "--against", "random", "--seed", 1, "--out", rec, cwd=tmp_path)
    assert code == 0 and "stopped: the round so far is saved" in out
    assert json.loads(rec.read_text())["turns"] == []


def test_stdin_closed_is_one_line(tmp_path):
    """`lostcards play 0<&-`: no standard input at all (Python's sys.stdin is None)."""
    p = subprocess.run([sys.executable, "-m", "lostcards", "play", "--out", str(tmp_path / "x.json")],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, cwd=tmp_path, env=env(),
                       timeout=120, preexec_fn=lambda: os.close(0))
    assert p.returncode == 1 and "standard input, which is closed" in p.stderr, p.stderr
    assert len(lines(p.stdout, p.stderr)) == 1 and not (tmp_path / "x.json").exists()


SLOW_BOT = """
import time


def slow(obs, stream):
    # a bot that thinks for a minute (plain Python: it runs on the reference engine)
    time.sleep(60)
    raise AssertionError("never reached: the test interrupts it")
"""


@pytest.mark.parametrize("bot", ["slowbot:slow", pytest.param("improve:base=search", marks=pytest.mark.slow)])
def test_ctrl_c_while_a_bot_thinks_stops_at_once_and_keeps_the_round(tmp_path, bot):
    """A bot's decision (a minute of sleep in Python; improve over search: one long numba call through the
    bridge) says it is thinking after a second, and Ctrl-C then stops the command within seconds, exit
    130, the record saved."""
    (tmp_path / "slowbot.py").write_text(SLOW_BOT)
    rec = tmp_path / "r.json"
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "play", "--first", "1", "--against", bot, "--seed", "3",
                          "--out", str(rec), "--no-analysis"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, cwd=tmp_path, env=env(), preexec_fn=default_sigint)
    text = b""
    os.set_blocking(p.stdout.fileno(), False)
    end = time.monotonic() + 600
    while b"is thinking" not in text and time.monotonic() < end and p.poll() is None:
        time.sleep(0.2)
        text += p.stdout.read() or b""
    assert b"is thinking" in text, text.decode()[-1500:]
    rc = interrupt(p, "play while the bot thought")
    text += p.stdout.read() or b""
    assert rc == 130 and b"the round so far is saved" in text and b"Traceback" not in text, text.decode()[-1500:]
    assert text.count(b"interrupted") == 1 and b"\n\nlostcards" not in text, text.decode()[-600:]   # one line
    v = json.loads(cli("replay", "--json", rec)[1])
    assert v["ok"] and v["ended_by"] == "unfinished" and v["turns"] == 0


@pytest.mark.parametrize("args, words", [
    (["--seat", "2"], "--seat = 2 is not allowed"),
    (["--partner", "greedy"], "--partner is for 4 players"),
    (["--players", "4", "--opponents", "random,greedy,expert"], "--opponents names 3 policies"),
    (["--against", "nosuch"], "unknown policy 'nosuch'"),
    (["--players", "1", "--against", "nosuch"], "unknown policy 'nosuch'"),
    (["--set", "hand_size=0"], "hand_size = 0 is not allowed"),
    (["--players", "4", "--opponents", "greedy,"], "--opponents 'greedy,' has an empty entry"),   # said --policies
    (["--players", "4", "--set", "hand_size=2"], "a pass needs a hand of 3 or more"),            # said (3..2)
    (["--set", "suits=1", "--set", "numbers=2", "--set", "investments=0", "--set", "bonus_cards=1"],
     "the deck holds 1 card: too few for 2 hands"),                                              # said 1..0
])
def test_bad_options_are_one_line(tmp_path, args, words):
    code, out, err = cli("play", *args, "--out", tmp_path / "x.json", cwd=tmp_path)
    assert code == 1 and words in err and len(lines(out, err)) == 1, (out, err)
    assert not (tmp_path / "x.json").exists()


def test_an_empty_out_is_one_line(tmp_path):
    code, out, err = cli("play", "--out", "", cwd=tmp_path)
    assert code == 1 and "--out '' is not allowed" in err and len(lines(out, err)) == 1, (out, err)
    assert list(tmp_path.iterdir()) == []


def test_an_out_file_that_is_not_a_record_is_left_alone(tmp_path):
    f = tmp_path / "notes.json"
    f.write_text("mine")
    code, out, err = cli("play", "--out", f, cwd=tmp_path)
    assert code == 1 and "not a round record" in err and f.read_text() == "mine"


def test_an_out_that_is_no_plain_record_file_is_one_line_and_left_alone(tmp_path, monkeypatch):
    """--out /dev/zero read the device until memory ran out, a FIFO hung, and a file of several records
    (simulate's records.jsonl) was replaced by this round's."""
    rec = tmp_path / "r.json"
    assert play_quit(monkeypatch, rec, tmp_path) == 0
    several = tmp_path / "records.jsonl"
    several.write_text(rec.read_text() * 2)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "file").write_text("x")
    for out, words in [("/dev/zero", "not a plain file"), (fifo, "not a plain file"),
                       (several, "not a round record"), (tmp_path / "file" / "r.json", "is not a folder"),
                       ("/dev/null/x.json", "is not a folder"), ("-", "--out - is not allowed")]:
        code, o, err = cli("play", "--seed", 1, "--out", out, cwd=tmp_path)
        assert code == 1 and words in err and len(lines(o, err)) == 1, (out, o, err)
    assert several.read_text() == rec.read_text() * 2
    long_name = tmp_path / ("r" * 245 + ".json")               # 250 characters: the temporary name was longer
    assert play_quit(monkeypatch, long_name, tmp_path) == 0 and json.loads(long_name.read_text())["turns"] == []
    assert play_quit(monkeypatch, rec, tmp_path) == 0          # one round's record is replaced


def play_quit(monkeypatch, out, cwd) -> int:
    return play(monkeypatch, Typist("quit"), "--against", "random", "--seed", 1, "--out", out, "--no-analysis",
                cwd=cwd)[0]


def _play_sub(out, cwd, typed: bytes, **extra_env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lostcards", "play", "--against", "random", "--seed", "1",
                           "--out", str(out), "--no-analysis"], input=typed, capture_output=True, cwd=cwd,
                          env={**env(), **extra_env}, timeout=300)


def test_a_line_too_long_is_refused_and_the_round_goes_on(tmp_path):
    """A 32 MB line took 90 s (the whole buffer searched again for every 4 KB read), and input with no
    newline grew without bound; a typed character the terminal cannot show ended the round in a
    traceback."""
    typed = b"play " + b"7" * 300_000 + b"H\nplay 7\xe9\nquit\n"       # not UTF-8: read as U+FFFD
    p = _play_sub(tmp_path / "r.json", tmp_path, typed, PYTHONIOENCODING="latin-1")
    out = p.stdout.decode("latin-1")
    assert p.returncode == 0 and "300,006 bytes is too long" in out and "stopped:" in out, (out[-800:], p.stderr)
    assert b"Traceback" not in p.stderr and "not a card: '7\\ufffd'" in out, (out[-800:], p.stderr[-800:])


def test_typed_cards_are_ascii_and_a_refusal_says_what_is_allowed():
    r = rules("expeditions", players=2)
    for bad in ("play 7\u017f", "play \uff17H"):                    # "ſ".upper() is "S"
        with pytest.raises(InputRefused):
            parse(bad, r)
    with pytest.raises(InputRefused, match="ranks are J, Q, K, 2, 3, 4, 5, 6, 7, 8, 9, 10"):
        parse("play 11C", r)
    assert parse("\ufeffdiscard 7H", r).word == "discard"            # a byte-order mark (Notepad)
    with pytest.raises(InputRefused, match="draw from 'deck' or a suit letter"):
        draw_only("Z", r)
    assert draw_only("d", r).draw == r.letters.index("D") and draw_only("q", r) is None


def test_typed_lines_are_read_as_spec_notation():
    r = rules("expeditions", players=2)
    c = parse("PLAY th draw s", r)
    assert (c.word, c.card, c.draw) == ("play", parse("play 10H", r).card, 3)
    assert parse("discard qs", r).word == "discard"
    for bad in ("play", "play 1H", "draw pile x", "pass 2C", "dance"):
        with pytest.raises(InputRefused):
            parse(bad, r)


def test_the_record_replays_with_the_command(tmp_path, monkeypatch):
    """`lostcards replay` on a record `play` wrote."""
    rec = tmp_path / "q.json"
    assert play(monkeypatch, Typist("quit"), "--against", "random", "--seed", 1, "--out", rec, cwd=tmp_path)[0] == 0
    code, text, _ = cli("replay", rec)
    assert code == 0 and "unfinished" in text


def test_the_documented_play_commands_start_as_written(tmp_path, monkeypatch):
    """docs/play.md's and README's `$ lostcards play ...` lines (interactive, so test_docs_commands leaves
    them out): each starts, shows the first screen and stops at `quit`, its record saved; each page says
    how `lostcards` gets on the PATH before its first `$ lostcards` line."""
    import shlex

    from safety_tools import ROOT
    found = []
    for page in (ROOT / "README.md", ROOT / "docs" / "play.md"):
        text = page.read_text(encoding="utf-8")
        first = text.find("$ lostcards ")
        assert ". .venv/bin/activate" in text[:first], f"{page.name} never says to activate .venv"
        for line in text.splitlines():
            s = line.strip()
            if s.startswith("$ lostcards play"):
                found.append(shlex.split(s[2:])[2:])
    assert len(found) >= 3
    for k, args in enumerate(found):
        out = tmp_path / f"doc{k}.json"
        code, text = play(monkeypatch, Typist("quit"), *args, "--out", out, cwd=tmp_path)
        assert code == 0, (args, text[-800:])
        assert "legal moves:" in text and "stopped: the round so far is saved" in text, args
        assert json.loads(out.read_text())["format"] == "lostcards-round/1"


def test_the_screen_says_one_card_not_1_cards():
    from lostcards.interactive.screen import n_cards
    assert (n_cards(1), n_cards(0), n_cards(2)) == ("1 card", "0 cards", "2 cards")


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
