"""The web server in-process (Starlette's TestClient): bad requests refused in one line, rounds played to a
record that replays, rooms kept apart, the rule page's batch, and `lostcards serve`'s own checks."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("starlette")
from safety_tools import default_sigint  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from lostcards.records.replay import replay_record  # noqa: E402
from lostcards.web.app import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(records=tmp_path_factory.mktemp("records"))
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as c:
        yield c


def ready(c, view, limit=300.0):
    """Wait for a room's bots to be prepared (a cold compile on a first run)."""
    t = time.monotonic()
    while view["status"] == "preparing":
        assert time.monotonic() - t < limit, "the room never became ready"
        time.sleep(0.05)
        view = c.get(f"/api/rooms/{view['room']}").json()
    assert view["status"] == "ready", view.get("error")
    return view


def new_room(c, **body):
    r = c.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    return ready(c, r.json())


def move(c, v, line, status=200):
    r = c.post(f"/api/rooms/{v['room']}/move", json={"seat": v["seat"], "turn": v["turn"], "line": line})
    assert r.status_code == status, r.text
    return r.json()


def play_out(c, v):
    """Play the person's turns to the end: the first card that fits an expedition, else discard the first."""
    while not v["ended"]:
        if v["playable"]:
            v = move(c, v, f"play {v['playable'][0]}")
        else:
            v = move(c, v, f"discard {v['hand'][0]['card']}")
        if v["chosen"]:
            v = move(c, v, f"draw {v['draws'][0]['from']}")
    return v


# ---- bad requests: each one line, a 4xx, and the server goes on ------------------------------

RAW = [  # (method, path, body bytes or None, headers, expected status)
    ("POST", "/api/rooms", b"{", {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b"[]", {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b'"players"', {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b'{"players": 2}', {"Content-Type": "text/plain"}, 415),
    ("POST", "/api/rooms", b'{"players": 2}', {}, 415),
    ("POST", "/api/rooms", b'{"x": "' + b"a" * 70_000 + b'"}', {"Content-Type": "application/json"}, 413),
    ("POST", "/api/rooms", b'{"players": "\xff\xfe"}', {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b'{"seed": NaN}', {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b'{"seed": 1e400}', {"Content-Type": "application/json"}, 400),
    ("POST", "/api/rooms", b"[" * 100_00 + b"]" * 100_00, {"Content-Type": "application/json"}, 400),
    ("GET", "/api/rooms/no-such-room", None, {}, 404),
    ("POST", "/api/rooms/no-such-room/move", b'{"seat": 0, "turn": 0, "line": "undo"}',
     {"Content-Type": "application/json"}, 404),
    ("GET", "/api/rooms/no-such-room/record", None, {}, 404),
    ("GET", "/api/nothing-here", None, {}, 404),
    ("GET", "/api/rooms", None, {}, 405),
    ("DELETE", "/api/menu", None, {}, 405),
    ("GET", "/api/batches/no-such-batch", None, {}, 404),
    ("POST", "/api/batches/no-such-batch/cancel", b"{}", {"Content-Type": "application/json"}, 404),
    ("GET", "/api/menu", None, {"Host": "evil.example:8000"}, 421),
    # a lone surrogate in a value the message shows: the refusal was a 500 (UTF-8 cannot hold it)
    ("POST", "/api/rooms", b'{"sets": ["hand_size=\\ud800"]}', {"Content-Type": "application/json"}, 422),
    ("POST", "/api/rooms", b'{"against": "greedy:open=\\ud800"}', {"Content-Type": "application/json"}, 422),
    ("POST", "/api/batches", b'{"sets": ["numbers=2,\\ud800"]}', {"Content-Type": "application/json"}, 422),
    # a Content-Length of thousands of digits was a 500 (Python will not read such an integer)
    ("POST", "/api/rooms", b"{}", {"Content-Type": "application/json", "Content-Length": "9" * 5000}, 413),
    ("POST", "/api/rooms", b'{"seed": ' + b"9" * 5000 + b"}", {"Content-Type": "application/json"}, 400),
]

ROOM_BODIES = [  # a new room's bad values
    ({"player": 2}, 400), ({"players": "2"}, 400), ({"players": 3}, 422), ({"players": True}, 400),
    ({"players": 2.5}, 400), ({"players": 2, "seat": 2}, 422), ({"first": -1}, 422), ({"seed": -1}, 422),
    ({"seed": 2**63}, 422), ({"seed": 10**100}, 422), ({"seed": "abc"}, 400), ({"preset": "poker"}, 422),
    ({"preset": 7}, 400), ({"sets": "hand_size=8"}, 400), ({"sets": ["hand_size=99"]}, 422),
    ({"sets": ["bogus=1"]}, 422), ({"sets": ["hand_size"]}, 422), ({"sets": ["x" * 500]}, 422),
    ({"sets": ["cost=1"] * 30}, 422), ({"against": "nosuchbot"}, 422), ({"against": 5}, 400),
    ({"against": "os:system"}, 422), ({"against": ""}, 400), ({"players": 2, "partner": "expert"}, 422),
    ({"players": 4, "opponents": ["expert"]}, 400), ({"hints": "yes"}, 400),
    ({"players": 4, "sets": ["hand_size=2"]}, 422),
]

BATCH_BODIES = [
    ({}, 422), ({"sets": []}, 422), ({"sets": ["cost=20"], "rounds": 0}, 422),
    ({"sets": ["cost=20"], "rounds": 10**9}, 422), ({"sets": ["cost=20"], "opponent": "expert"}, 422),
    ({"sets": ["players=4"], "players": 2}, 422), ({"sets": ["cost=20"], "seed": -3}, 422),
    ({"sets": ["cost=20"], "skill_rounds": "ten"}, 400), ({"sets": ["cost=20"], "speed": 3}, 400),
    ({"sets": ["cost=20"], "preset": "bridge"}, 422),
]


def one_line_error(r, status):
    assert r.status_code == status, (r.status_code, r.text[:300])
    assert 400 <= r.status_code < 500
    err = r.json()["error"]
    assert isinstance(err, str) and err and "\n" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize("method,path,body,headers,status", RAW)
def test_malformed_requests_are_refused_in_one_line(client, method, path, body, headers, status):
    r = client.request(method, path, content=body, headers=headers)
    one_line_error(r, status)
    assert client.get("/api/menu").status_code == 200          # and the server goes on


def test_refusals_never_show_python_internals_or_megabytes(client):
    err = one_line_error(client.post("/api/rooms", content=b'{"seed": ' + b"9" * 5000 + b"}",
                                     headers={"Content-Type": "application/json"}), 400)
    assert "4,300 digits" in err and "set_int_max_str_digits" not in err
    rec = {"format": "lostcards-round/1", "players": 2, "hands": [[], []], "deck": [], "turns": []}
    for rules in ({"k" * 100_000: 1}, {"preset": ["x" * 100_000]}, ["y" * 100_000], {"cost": "z" * 100_000}):
        err = one_line_error(client.post("/api/analyze", json={"record": {**rec, "rules": rules}}), 422)
        assert len(err) < 300, len(err)
    err = one_line_error(client.post("/api/analyze", json={"record": {**rec, "rules": {"cost": None}}}), 422)
    assert "null" in err and "None" not in err


def test_a_request_without_fields_says_so():
    from lostcards.web.checks import Refused, only
    with pytest.raises(Refused) as e:
        only({"x": 1}, ())
    assert "takes no fields" in e.value.message and "allowed: ;" not in e.value.message


def test_null_is_the_default_for_every_room_field(client):
    r = client.post("/api/rooms", json={"hints": None, "against": None, "sets": None, "seed": None})
    assert r.status_code == 201, r.text
    v = ready(client, r.json())
    assert v["hints"] is False and v["bots"] == {"1": "expert"}


@pytest.mark.parametrize("body,status", ROOM_BODIES)
def test_bad_room_values_are_refused_naming_the_value(client, body, status):
    err = one_line_error(client.post("/api/rooms", json=body), status)
    named = [k for k in body if k in err] or [k for k in ("rules", "players", "seat") if k in err]
    assert named, err


@pytest.mark.parametrize("body,status", BATCH_BODIES)
def test_bad_batch_values_are_refused(client, body, status):
    one_line_error(client.post("/api/batches", json=body), status)


def test_bad_moves_are_refused_with_the_engines_reason(client):
    v = new_room(client, players=2, seed=5, against="expert")
    room = v["room"]
    url = f"/api/rooms/{room}/move"
    bad = [
        ({"seat": 0, "turn": v["turn"]}, 400, "line"),
        ({"seat": 0, "turn": v["turn"], "line": 7}, 400, "line"),
        ({"seat": 0, "turn": v["turn"], "line": "play " + "7" * 90}, 422, "line"),
        ({"seat": 1, "turn": v["turn"], "line": "undo"}, 403, "seat"),
        ({"seat": 0, "turn": v["turn"] + 5, "line": "undo"}, 409, "turn"),
        ({"seat": 0, "turn": v["turn"], "line": "fly 7H"}, 422, "not a command"),
        ({"seat": 0, "turn": v["turn"], "line": "play ZZ"}, 422, "ZZ"),
        ({"seat": 0, "turn": v["turn"], "line": "draw deck"}, 422, "choose a card first"),
        ({"seat": 0, "turn": v["turn"], "line": "undo"}, 422, "nothing to undo"),
        ({"seat": 0, "turn": v["turn"], "line": "pass 2C 3C"}, 422, None),
        ({"seat": 0, "turn": v["turn"], "line": "quit"}, 422, "saved"),
        ({"seat": 0, "turn": v["turn"], "line": "play 7H", "extra": 1}, 400, "extra"),
        ({"seat": "0", "turn": v["turn"], "line": "undo"}, 400, "seat"),
    ]
    held = {c["card"] for c in v["hand"]}
    missing = next(f"{r}{s}" for s in "CDHS" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10")
                   if f"{r}{s}" not in held)
    bad.append(({"seat": 0, "turn": v["turn"], "line": f"play {missing}"}, 422, "NOT_HELD"))
    for body, status, word in bad:
        err = one_line_error(client.post(url, json=body), status)
        if word:
            assert word in err, (body, err)
    one_line_error(client.post(f"/api/rooms/{room}/hint", json={}), 403)          # hints are off here
    one_line_error(client.post(f"/api/rooms/{room}/analysis", json={}), 409)      # not over yet
    one_line_error(client.post(f"/api/rooms/{room}/analysis", json={"samples": 0}), 422)
    # the card that does not fit the expedition is refused with the engine's name, after a card was laid
    after = client.get(f"/api/rooms/{room}").json()
    assert after["turn"] == v["turn"] and after["chosen"] is None          # nothing of the above changed the room


def test_uploaded_records_are_checked(client):
    url = "/api/analyze"
    one_line_error(client.post(url, json={"record": "not json"}), 422)
    one_line_error(client.post(url, json={"record": 5}), 400)
    one_line_error(client.post(url, json={"record": {"format": "lostcards-round/1", "players": 2}}), 422)
    one_line_error(client.post(url, json={"record": {"format": "lostcards-round/1", "rules": "expeditions",
                                                     "players": 2, "hands": [["ZZ"], []], "deck": [],
                                                     "turns": []}}), 422)
    big = json.dumps({"record": "x" * (2 * 1024 * 1024 + 10)})
    one_line_error(client.post(url, content=big, headers={"Content-Type": "application/json"}), 413)
    one_line_error(client.post(url, json={"record": {}, "seat": 7}), 422)
    one_line_error(client.post(url, json={"record": {}, "samples": 10**6}), 422)


def test_serve_refuses_a_records_folder_it_cannot_use_and_a_bot_it_cannot_call(capsys, tmp_path):
    """--records /dev/null/x started a server whose every round failed; --bot os:system (a callable of
    one argument) was put in the menu."""
    from lostcards.cli.app import main_status
    for folder in ("/dev/null/x", tmp_path / "plain-file" / "x"):
        (tmp_path / "plain-file").write_text("")
        assert main_status(["serve", "--records", str(folder), "--no-browser"]) == 1
        err = capsys.readouterr().err.strip()
        assert "--records" in err and "cannot hold the records" in err and "\n" not in err
    assert main_status(["serve", "--bot", "os:system", "--records", str(tmp_path), "--no-browser"]) == 1
    err = capsys.readouterr().err.strip()
    assert "os:system" in err and "(observation, stream)" in err and "\n" not in err


def test_serve_refuses_a_remote_host_without_the_flag(capsys, tmp_path):
    from lostcards.cli.app import main_status
    from lostcards.cli.serve import loopback
    assert main_status(["serve", "--host", "0.0.0.0", "--no-browser"]) == 1
    err = capsys.readouterr().err.strip()
    assert "--allow-remote" in err and "\n" not in err
    assert main_status(["serve", "--port", "70000", "--no-browser"]) == 2
    assert main_status(["serve", "--bot", "nosuchmodule:bot", "--no-browser"]) == 1
    assert "nosuchmodule" in capsys.readouterr().err
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        assert main_status(["serve", "--port", str(taken.getsockname()[1]), "--records", str(tmp_path),
                            "--no-browser"]) == 1
    err = capsys.readouterr().err.strip()
    assert "cannot listen on 127.0.0.1" in err and "\n" not in err
    assert loopback("127.0.0.1") and loopback("127.8.0.1") and loopback("::1") and loopback("localhost")
    assert not loopback("0.0.0.0") and not loopback("192.168.1.2") and not loopback("example.org")


# ---- play -----------------------------------------------------------------------------------

def test_a_whole_round_is_saved_after_every_turn_and_replays(client):
    v = new_room(client, players=2, seed=123, against="expert")
    path = Path(v["record"])
    first = json.loads(path.read_text())
    assert first["turns"] == [] or len(first["turns"]) == v["turn"]
    v = move(client, v, f"discard {v['hand'][0]['card']}")
    assert v["chosen"] and v["draws"][0]["from"] == "deck"
    v = move(client, v, "undo")                                   # undo before the draw
    assert v["chosen"] is None and len(json.loads(path.read_text())["turns"]) == v["turn"]
    v = play_out(client, v)
    rec = json.loads(path.read_text())
    assert replay_record(rec) == {"ok": True, "ended_by": v["ended_by"], "scores": v["scores"],
                                  "turns": len(rec["turns"])}
    down = client.get(f"/api/rooms/{v['room']}/record")
    assert down.status_code == 200 and json.loads(down.text) == rec
    assert "attachment" in down.headers["content-disposition"]
    a = client.post(f"/api/rooms/{v['room']}/analysis", json={"samples": 8}).json()
    assert a["seat"] == 0 and len(a["track"]) == len(rec["turns"]) + 1 and a["track"][-1] == v["scores"]
    assert len(a["worst"]) <= 3 and all(t["lo"] <= t["loss"] <= t["hi"] for t in a["turns"])
    up = client.post("/api/analyze", json={"record": json.dumps(rec), "seat": 1, "samples": 8}).json()
    assert up["seat"] == 1 and up["scores"] == v["scores"]
    one_line_error(client.post(f"/api/rooms/{v['room']}/move", json={"seat": 0, "turn": v["turn"], "line": "undo"}),
                   409)


def test_the_bots_play_as_in_the_terminal(client, tmp_path):
    """The same seed and bots make the same record as `lostcards play` (interactive.Session) would."""
    from lostcards.interactive.session import Session
    from lostcards.policies import resolve
    from lostcards.rules.ruleset import build_rules
    v = new_room(client, players=2, seed=77, against="greedy", first=1)
    v = play_out(client, v)
    rec = json.loads(Path(v["record"]).read_text())
    mine = iter(json.dumps(t) for k, t in enumerate(rec["turns"]) if k % 2 == 1)

    def typed(prompt):
        t = json.loads(next(mine))
        return f"{'play' if t['to'] == 'expedition' else 'discard'} {t['play']} draw {t['draw']}"
    s = Session(build_rules("expeditions", (), 2), 77, 0, {1: resolve("greedy")}, tmp_path / "t.json", first=1,
                read=typed, write=lambda text: None)
    assert s.play() and s.record == rec


def test_a_cold_compile_is_announced_on_the_page(client, monkeypatch):
    from lostcards.numba_cache import Entry
    from lostcards.policies import resolve
    from lostcards.web.rooms import compile_notice
    new_room(client, players=2, seed=1, against="expert")       # compiled (or loaded) now
    assert compile_notice([resolve("expert")]) is None
    monkeypatch.setattr(Entry, "ready", property(lambda self: False))      # as on a fresh install
    assert "the expert policy" in compile_notice([resolve("expert")])
    assert compile_notice([]) is None                                   # solitaire: no bot to compile


@pytest.mark.slow          # the module's kernel compiles anew in a scratch folder: several seconds
def test_a_bot_of_your_own_from_the_serve_menu(tmp_path, monkeypatch):
    """`lostcards serve --bot module:name` puts a user module on the menu (docs/policies.md's example)."""
    from lostcards.policies import names
    code = (ROOT / "docs" / "policies.md").read_text().split("```python", 1)[1].split("```", 1)[0]
    (tmp_path / "webbot.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    app = create_app(records=tmp_path / "records", menu=[*names(), "webbot:first_card_away"])
    with TestClient(app, base_url=BASE) as c:
        v = new_room(c, players=2, seed=8, against="webbot:first_card_away", first=1)
        assert v["bots"] == {"1": "webbot:first_card_away"}
        assert v["log"][0]["text"].startswith("discard")
        one_line_error(c.post("/api/rooms", json={"against": "webbot:other_name"}), 422)


def test_a_bot_that_raises_fails_its_room_in_one_line(tmp_path, monkeypatch):
    from lostcards.policies import names
    (tmp_path / "webbroken.py").write_text("def broken(obs, stream):\n    raise ValueError('boom')\n")
    monkeypatch.chdir(tmp_path)
    app = create_app(records=tmp_path / "records", menu=[*names(), "webbroken:broken"])
    with TestClient(app, base_url=BASE, raise_server_exceptions=False) as c:
        v = c.post("/api/rooms", json={"against": "webbroken:broken", "first": 1}).json()
        while v["status"] == "preparing":
            time.sleep(0.02)
            v = c.get(f"/api/rooms/{v['room']}").json()
        assert v["status"] == "failed" and "boom" in v["error"] and "\n" not in v["error"]
        err = one_line_error(c.post(f"/api/rooms/{v['room']}/move", json={"seat": 0, "turn": 0, "line": "undo"}), 409)
        assert "boom" in err
        v = new_room(c, against="webbroken:broken", seed=2)             # the person first: the bot fails after
        err = one_line_error(c.post(f"/api/rooms/{v['room']}/move",
                                    json={"seat": 0, "turn": 0, "line": f"discard {v['hand'][0]['card']} draw deck"}),
                             409)
        assert "a bot failed" in err and "boom" in err
        assert c.get("/api/menu").status_code == 200


def test_rooms_are_kept_apart_and_expire(tmp_path):
    app = create_app(records=tmp_path, ttl=3600)
    with TestClient(app, base_url=BASE) as c:
        a = new_room(c, players=2, seed=1, against="random")
        b = new_room(c, players=2, seed=1, against="random")
        assert a["room"] != b["room"] and a["record"] != b["record"] and len(a["room"]) >= 20
        a2 = move(c, a, f"discard {a['hand'][0]['card']}")
        assert a2["chosen"] and c.get(f"/api/rooms/{b['room']}").json()["chosen"] is None
        app.state.rooms.ttl = 0                    # every room is now idle past its time
        time.sleep(0.01)
        one_line_error(c.get(f"/api/rooms/{a['room']}"), 404)


def one_turn_round(c, **body):
    """A room whose round ends after the person's first move (turn_cap=1), ended."""
    v = new_room(c, against="random", sets=["stall_limit=0", "turn_cap=1"], **body)
    v = move(c, v, f"discard {v['hand'][0]['card']} draw deck")
    assert v["ended"], v
    return v


def test_finished_rounds_make_room_for_new_ones(tmp_path):
    """Finished rounds kept their room until it idled out: 2 rounds played at most_rooms=2 locked the page out."""
    app = create_app(records=tmp_path, most_rooms=2)
    with TestClient(app, base_url=BASE) as c:
        first, second = one_turn_round(c), one_turn_round(c)
        third = new_room(c, against="random")                    # the first finished round's room closes
        one_line_error(c.get(f"/api/rooms/{first['room']}"), 404)
        assert c.get(f"/api/rooms/{second['room']}").status_code == 200
        assert Path(first["record"]).exists()                    # its record stays
        new_room(c, against="random")                            # and the second's
        one_line_error(c.get(f"/api/rooms/{second['room']}"), 404)
        err = one_line_error(c.post("/api/rooms", json={}), 429)   # two rounds under way: none to close
        assert "finish" in err
        assert c.get(f"/api/rooms/{third['room']}").status_code == 200


def test_a_room_of_the_largest_seed_is_analysed(tmp_path):
    """Rooms take seeds up to 2**63 - 1 as the command line does; the analysis refused those past 2**62."""
    app = create_app(records=tmp_path)
    with TestClient(app, base_url=BASE) as c:
        v = one_turn_round(c, seed=2**63 - 1)
        a = c.post(f"/api/rooms/{v['room']}/analysis", json={"samples": 2})
        assert a.status_code == 200, a.text
        rec = json.loads(Path(v["record"]).read_text())
        for hints in ("x", [{"turn": "1"}], [{"turn": 1, "seat": 0, "move": "x" * 50, "by": 1.0}]):
            one_line_error(c.post("/api/analyze", json={"record": {**rec, "hints": hints}}), 422)
        many = {**rec, "turns": [rec["turns"][0]] * 1_000}        # refused before a turn is replayed
        err = one_line_error(c.post("/api/analyze", json={"record": many, "samples": 512}), 413)
        assert "1,000 turns" in err and "samples" in err


def test_a_room_busy_with_its_bots_holds_up_no_other_request(tmp_path):
    """The record and analysis endpoints took a room's lock on the event loop: while the room's bots thought,
    the whole server (even the menu) waited."""
    import threading
    app = create_app(records=tmp_path)
    with TestClient(app, base_url=BASE) as c:
        v = new_room(c, against="random")
        room = app.state.rooms.get(v["room"])
        real, held, asked, answered = room.lock, threading.Event(), threading.Event(), threading.Event()

        class Watched:
            def __enter__(self):
                asked.set()
                return real.__enter__()

            def __exit__(self, *exc):
                return real.__exit__(*exc)

        def bots_thinking():
            with real:
                held.set()
                answered.wait(60)           # held until the menu has answered (a minute at most)
            held.clear()

        holder = threading.Thread(target=bots_thinking)
        holder.start()
        held.wait(60)
        room.lock = Watched()
        fetch = threading.Thread(target=lambda: c.get(f"/api/rooms/{v['room']}/record"))
        fetch.start()
        assert asked.wait(60)               # the record request waits for the room
        menu = c.get("/api/menu")
        still_held = held.is_set()
        answered.set()
        holder.join()
        fetch.join()
        room.lock = real
        assert menu.status_code == 200 and still_held, "the menu waited for another room's bots"


def test_the_static_files_carry_the_pages_headers(client):
    page = client.get("/")
    src = re.findall(r'src="(/static/[^"]+)"', page.text)[0]
    r = client.get(src)
    assert r.status_code == 200
    for k in ("X-Content-Type-Options", "Content-Security-Policy", "Referrer-Policy"):
        assert r.headers.get(k) == page.headers.get(k), k


def test_four_players_with_a_pass(client):
    v = new_room(client, players=4, seed=9, against="expert", partner="greedy")
    assert v["bots"] == {"1": "expert", "2": "greedy", "3": "expert"}
    assert v["can_pass"]
    a, b = v["hand"][0]["card"], v["hand"][1]["card"]
    v2 = move(client, v, f"pass {a} {b}")
    assert any(e["seat"] == 0 and e["text"].startswith("pass") for e in v2["log"])
    partner = next(o for o in v2["others"] if o["partner"])
    assert {a, b} <= {c["card"] for c in partner["known"]} or v2["turn"] > v["turn"] + 2
    if not v2["ended"]:
        line = f"pass {v2['hand'][0]['card']} {v2['hand'][1]['card']}"
        err = one_line_error(client.post(f"/api/rooms/{v['room']}/move",
                                         json={"seat": 0, "turn": v2["turn"], "line": line}), 422)
        assert "PASS_TWICE" in err or "PASS_HAND_SMALL" in err
    play_out(client, v2)


def test_a_hints_comparison_is_measured_on_determinizations_that_did_not_pick_it(monkeypatch):
    """The next best move was picked as the best of some 20 noisy means and measured on the same play-outs,
    so it looked better than it is: every hint's `by` leaned against the bot's move (about -7 points a
    decision with 4 players at 32 samples). Now its margin and `by` come from a second, fresh set."""
    import numpy as np

    import lostcards.run.threads as threads
    import lostcards.web.hint as hint_module
    from lostcards.engine.playouts import margins
    from lostcards.reference.round import Round
    from lostcards.rules.ruleset import rules
    runs = []
    real = threads.call

    def seen(fn, *args):                 # every call as before; the play-outs' arguments and results kept
        value = real(fn, *args)
        if fn is margins:
            _, moves, _, _, stream, *rest = args
            runs.append((stream, np.array(moves), rest[-1].copy()))
        return value
    monkeypatch.setattr(threads, "call", seen)
    monkeypatch.setattr(hint_module, "HINT_BOT", "expert")           # a quick bot: the comparison is the point
    rnd = Round.dealt(rules("expeditions"), 11, 0)
    h = hint_module.hint(rnd, 0, 8, 3)
    (pick_stream, picked_from, picked), (fresh_stream, pair, fresh) = runs
    assert pick_stream != fresh_stream and len(pair) == 2 and len(picked_from) > 2
    k = list(picked_from).index(pair[1])
    assert h["next_margin"] == pytest.approx(fresh[1].mean()) != pytest.approx(picked[k].mean())
    assert h["by"] == pytest.approx((fresh[0] - fresh[1]).mean()) and h["lo"] <= h["by"] <= h["hi"]


@pytest.mark.slow
def test_a_hint_names_the_strongest_bots_move_and_is_marked_in_the_record(client):
    v = new_room(client, players=2, seed=31, against="expert", hints=True)
    h = client.post(f"/api/rooms/{v['room']}/hint", json={"samples": 16}).json()
    assert h["bot"] == "improve" and h["lo"] <= h["by"] <= h["hi"] and h["samples"] == 16
    assert h["by"] == pytest.approx(h["margin"] - h["next_margin"]) and h["next"] != h["move"]
    rec = json.loads(Path(v["record"]).read_text())
    assert rec["hints"] == [{"turn": v["turn"] + 1, "seat": 0, "move": h["move"], "by": h["by"]}]
    move(client, v, "undo", 422)                     # nothing chosen: a hint changes nothing in the round
    one_line_error(client.post(f"/api/rooms/{v['room']}/hint", json={"samples": 10**6}), 422)
    v = play_out(client, v)
    rec = json.loads(Path(v["record"]).read_text())
    assert replay_record(rec)["ok"] and rec["hints"][0]["turn"] == 1
    a = client.post(f"/api/rooms/{v['room']}/analysis", json={"samples": 4}).json()
    assert a["hints"] == rec["hints"]


def test_solitaire_draws_by_itself(client):
    v = new_room(client, players=1, seed=3)
    assert v["bots"] == {} and v["others"] == []
    v2 = move(client, v, f"discard {v['hand'][0]['card']}")
    assert v2["turn"] == v["turn"] + 1 and v2["chosen"] is None


# ---- the rule page ------------------------------------------------------------------------------

def finished(c, b, limit=300.0):
    """A batch's view once it has stopped (done, cancelled or failed)."""
    t = time.monotonic()
    while b["status"] in ("queued", "running"):
        assert time.monotonic() - t < limit, "the batch never stopped"
        time.sleep(0.1)
        b = c.get(f"/api/batches/{b['batch']}").json()
    return b

def test_a_quick_batch_measures_both_rulesets_and_can_be_cancelled(client):
    r = client.post("/api/batches", json={"sets": ["hand_size=7"], "rounds": 30, "skill_rounds": 10, "seed": 4})
    assert r.status_code == 201, r.text
    b = r.json()
    one_line_error(client.post("/api/batches", json={"sets": ["cost=10"]}), 429)   # one batch at a time
    b = finished(client, b)
    assert b["status"] == "done", b["error"]
    assert b["step"] == b["steps"] == 4
    rows = {(x["metric"], x["opponent"]): x for x in b["rows"]}
    turns = rows[("turns_per_round", "")]
    assert turns["base"][3] == 30 and turns["base"][1] <= turns["base"][0] <= turns["base"][2]
    assert turns["diff"][1] <= turns["diff"][0] <= turns["diff"][2]
    assert ("margin", "greedy") in rows
    assert "--grid hand_size=6,7" in b["command"] and "--seed 4" in b["command"]
    # the same numbers as the library's metrics on the same seed
    from lostcards.analysis.metrics import measure
    from lostcards.rules.ruleset import build_rules
    cell = measure(build_rules("expeditions", ["hand_size=7"], 2), "expert", (), 30, 4, threads=1).table()
    assert cell.loc[cell.metric == "turns_per_round", "estimate"].item() == pytest.approx(turns["changed"][0])
    # a cancel stops a batch between its steps
    b = client.post("/api/batches", json={"sets": ["cost=10"], "rounds": 3000, "skill_rounds": 3000}).json()
    c = client.post(f"/api/batches/{b['batch']}/cancel", json={}).json()
    assert c["status"] in ("queued", "running", "cancelled")
    c = finished(client, c)
    assert c["status"] == "cancelled" and c["step"] < c["steps"]


# ---- data and pages ---------------------------------------------------------------------------

def test_the_ladder_shipped_is_docs_bots_table():
    """The page's difficulty levels are docs/bots.md's measured numbers, not typed anew."""
    from lostcards.web.app import ladder
    doc = (ROOT / "docs" / "bots.md").read_text()
    for level in ladder()["levels"]:
        row = next(line for line in doc.splitlines()
                   if line.startswith(f"| `{level['bot']}`") and (level["bot"] != "improve" or "defaults" in line))
        cells = [c.strip() for c in row.split("|")[2:6]]
        for key, cell in zip(("2p", "4p", "lost-cities", "solitaire"), cells):
            est, lo, hi, n = level[key]
            if n == 0:
                assert cell.startswith("0"), (level["bot"], key, cell)
                continue
            nums = [float(x) for x in re.findall(r"[-+]?\d+\.\d+", cell)]
            assert nums[:3] == [est, lo, hi], (level["bot"], key, cell)
            assert f"n={n:,}" in cell, (level["bot"], key, cell)


def test_the_pages_and_their_files_are_served(client):
    for path in ("/", "/review", "/rules"):
        r = client.get(path)
        assert r.status_code == 200 and "<html" in r.text
        for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', r.text):
            assert client.get(src).status_code == 200, src
        assert "http://" not in r.text and "https://" not in r.text        # nothing fetched from outside
    m = client.get("/api/menu").json()
    assert {"expert", "greedy", "random", "improve"} <= set(m["bots"])
    assert m["parameters"]["hand_size"]["values"]["lost-cities"] == "8"


def test_serve_prints_its_address_serves_and_stops_on_ctrl_c_keeping_the_record(tmp_path):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "serve", "--no-browser", "--records", str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
                         preexec_fn=default_sigint)     # Ctrl-C works in it whatever the test runner ignores
    try:
        line = p.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert m, line
        import urllib.request
        base = f"http://127.0.0.1:{m.group(1)}"

        def call(path, body=None):
            req = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                         headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(req, timeout=120) as r:
                return json.loads(r.read())
        v = call("/api/rooms", {"players": 2, "seed": 5, "against": "random"})
        t = time.monotonic()
        while v["status"] == "preparing" and time.monotonic() - t < 300:
            time.sleep(0.1)
            v = call(f"/api/rooms/{v['room']}")
        v = call(f"/api/rooms/{v['room']}/move", {"seat": 0, "turn": v["turn"],
                                                  "line": f"discard {v['hand'][0]['card']} draw deck"})
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert "Traceback" not in err, err
    rec = json.loads((tmp_path / "round-seed5.json").read_text())      # the record, as the last turn left it
    assert len(rec["turns"]) == v["turn"] >= 2 and replay_record(rec)["ok"]
    assert "stopped" in out and p.returncode == 130          # as every command's Ctrl-C


@pytest.mark.slow
def test_the_rule_pages_command_reproduces_its_numbers(client, tmp_path):
    """The `lostcards sweep` command the rule page shows gives the page's estimates and differences."""
    import shlex

    import pandas as pd
    b = client.post("/api/batches", json={"sets": ["cost=15"], "rounds": 30, "skill_rounds": 10, "seed": 6}).json()
    b = finished(client, b)
    assert b["status"] == "done", b["error"]
    args = shlex.split(b["command"])
    assert args[:2] == ["lostcards", "sweep"]
    args = [str(tmp_path / "out") if prev == "--out" else a for prev, a in zip(["", *args], args)]
    r = subprocess.run([sys.executable, "-m", "lostcards", *args[1:], "--no-progress"], capture_output=True, text=True,
                       cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    met = pd.read_csv(tmp_path / "out" / "metrics.csv", keep_default_na=False)
    diffs = pd.read_csv(tmp_path / "out" / "diffs.csv", keep_default_na=False)
    for row in b["rows"]:
        pick = lambda df, cost: df[(df.metric == row["metric"]) & (df.opponent == row["opponent"])  # noqa: E731
                                   & (df.cost == cost)].iloc[0]
        assert pick(met, 20)["estimate"] == pytest.approx(row["base"][0], nan_ok=True)
        assert pick(met, 15)["estimate"] == pytest.approx(row["changed"][0], nan_ok=True)
        if row["diff"] is not None:
            assert pick(diffs, 15)["estimate"] == pytest.approx(row["diff"][0], nan_ok=True)
