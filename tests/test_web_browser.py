"""The pages in a real headless Chromium (Debian's package, driven by Playwright): rounds played by clicking,
an illegal move refused, undo, a pass, the review, the rule page's batch, a bad request.

`lostcards serve --no-browser` runs as a subprocess, as a person would start it.  The browser must be
/usr/bin/chromium (`apt-get install chromium`; .ci/run installs it): without it these tests skip, except
under CI=true, where they fail.  LOSTCARDS_SCREENSHOTS=docs writes docs/web-*.png (docs/web.md's pictures).
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
SHOTS = os.environ.get("LOSTCARDS_SCREENSHOTS")


def _why_not() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} is absent (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is absent (make install brings it)"
    return None


WHY = _why_not()
if WHY and os.environ.get("CI") == "true":
    pytest.fail(f"the browser tests cannot run under CI: {WHY}", pytrace=False)
pytestmark = [pytest.mark.skipif(WHY is not None, reason=WHY or ""), pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    records = tmp_path_factory.mktemp("records")
    p = subprocess.Popen([sys.executable, "-m", "lostcards", "serve", "--no-browser", "--records", str(records)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = p.stdout.readline()
    m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
    if not m:
        p.kill()
        pytest.fail(f"lostcards serve printed no address: {line!r} {p.stderr.read()[:500]!r}")
    yield m.group(1), records
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        raise


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, errors


def shot(page, name):
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / f"web-{name}.png"), full_page=True)


def deal(page, url, players="2", against="expert", seed="", sets="", hints=False):
    page.goto(url + "/")
    page.select_option("#players", players)
    page.select_option("#against", against)
    page.fill("#seed", seed)
    page.fill("#sets", sets)
    if hints:
        page.check("#hints")
    page.click("#deal")


def wait_turn(page):
    """Until it is the person's turn (the hand's cards are clickable and no move is in flight) or the end."""
    page.wait_for_function("() => !document.getElementById('end').classList.contains('hidden') || "
                           "(document.getElementById('status').textContent.includes('your move'))", timeout=300_000)
    return page.is_visible("#end")


def one_turn(page, players=2):
    """Click one whole turn: the first card that fits an expedition (else the first card), then the first draw."""
    fits = page.locator("#hand button.card.fits")
    card = fits.first if fits.count() else page.locator("#hand button.card").first
    turn = page.text_content("#status")
    card.click()
    page.click("#to-exp" if fits.count() else "#to-discard")
    if players > 1:
        page.locator("#draws button.draw").first.click()
    page.wait_for_function(f"() => document.getElementById('status').textContent !== {json.dumps(turn)}")


def test_a_whole_round_against_expert_by_clicking_to_its_record_and_analysis(server, page):
    url, records = server
    deal(page, url, seed="4242", hints=True)
    refused = undone = keyed = hinted = False
    turns = 0
    while not wait_turn(page):
        if turns == 2 and not hinted:                # a hint, marked in the record
            page.click("#hint")
            page.wait_for_function("() => document.getElementById('hint-out').textContent.startsWith('hint (')",
                                   timeout=300_000)
            assert "Marked in the record" in page.text_content("#hint-out")
            hinted = True
        if turns == 1 and not keyed:                 # keyboard play: a card focused, x discards, k draws
            page.locator("#hand button.card").first.focus()
            turn = page.text_content("#status")
            page.keyboard.press("x")
            page.wait_for_selector("#draws button.draw")
            page.keyboard.press("k")
            page.wait_for_function(f"() => document.getElementById('status').textContent !== {json.dumps(turn)}")
            keyed = True
            turns += 1
            continue
        if not undone:                               # undo before the draw
            page.locator("#hand button.card").first.click()
            page.click("#to-discard")
            page.wait_for_selector("#draws button.draw")
            page.click("#undo")
            page.wait_for_selector("#draws button.draw", state="detached")
            assert page.locator("#hand .card.chosen").count() == 0
            undone = True
        misfit = page.locator("#hand button.card:not(.fits)")
        if not refused and misfit.count() and page.locator("#hand button.card.fits").count() < \
                page.locator("#hand button.card").count():
            misfit.first.click()                     # a card that does not fit its expedition, played there
            page.click("#to-exp")
            page.wait_for_function("() => document.getElementById('msg').textContent.includes('refused')")
            assert "EXPEDITION_REFUSES" in page.text_content("#msg")
            assert page.locator("#msg.error").count() == 1
            refused = True
            misfit.first.click()                     # put it down again
        if turns == 8:
            shot(page, "play")
        one_turn(page)
        turns += 1
    assert refused and undone and keyed and hinted
    assert "ended by" in page.text_content("#summary")
    href = page.get_attribute("#download", "href")
    rec = page.request.get(url + href)
    assert rec.ok and json.loads(rec.text())["hints"][0]["seat"] == 0
    path = records / "downloaded.json"
    path.write_text(rec.text())
    r = subprocess.run([sys.executable, "-m", "lostcards", "replay", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    saved = json.loads(Path(page.text_content("#recpath").split("saved as ")[1].split(" (")[0]).read_text())
    assert saved == json.loads(rec.text())
    page.click("#review")
    page.wait_for_function("() => document.getElementById('headline').textContent.includes('expected points lost')",
                           timeout=300_000)
    assert 1 <= page.locator("#worst li").count() <= 3 or "No move lost" in page.text_content("#worst")
    assert page.locator("#chart polyline").count() == 2
    assert page.locator("#turns tbody tr").count() >= 10
    assert "Hints used: turn" in page.text_content("#method")
    shot(page, "review")
    page.goto(url + "/review")                       # the same record, uploaded
    page.set_input_files("#file", str(path))
    page.select_option("#seat", "1")
    page.fill("#samples", "8")
    page.click("#go")
    page.wait_for_function("() => document.getElementById('headline').textContent.startsWith('seat 1:')",
                           timeout=300_000)


def test_four_players_with_a_pass_by_clicking(server, page):
    url, _ = server
    deal(page, url, players="4", seed="99")
    assert not wait_turn(page)
    page.click("#pass-mode")
    cards = page.locator("#hand button.card")
    cards.nth(0).click()
    cards.nth(1).click()
    turn = page.text_content("#status")
    page.click("#pass-go")
    page.wait_for_function(f"() => document.getElementById('status').textContent !== {json.dumps(turn)}")
    assert re.search(r"seat 0 \(you\): pass \S+ \S+", page.text_content("#log"))
    while not wait_turn(page):
        one_turn(page, 4)
    assert "team" in page.text_content("#summary") or "ended by" in page.text_content("#summary")


def test_the_rule_page_runs_a_batch_with_a_changed_parameter(server, page):
    url, _ = server
    page.goto(url + "/rules")
    page.fill("input[data-param=hand_size]", "7")
    page.fill("#rounds", "30")
    page.fill("#skill", "10")
    page.click("#run")
    page.wait_for_selector("#result:not(.hidden)", timeout=300_000)
    assert "--grid hand_size=6,7" in page.text_content("#command")
    assert page.locator("#metrics tbody tr").count() >= 10
    assert "turns_per_round" in page.text_content("#metrics")
    assert page.locator("#plot circle").count() >= 5
    shot(page, "rules")
    page.fill("#rounds", "20000")                    # a long one, cancelled
    page.fill("#skill", "20000")
    page.click("#run")
    page.click("#cancel")
    page.wait_for_function("() => document.getElementById('msg').textContent === 'cancelled'", timeout=300_000)


def test_bad_requests_from_the_page_get_one_clear_line(server, page):
    url, _ = server
    page.goto(url + "/")
    status = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'Content-Type': 'application/json'},
                                  body: '{'}).then(r => r.json().then(j => [r.status, j.error]))""")
    assert status[0] == 400 and status[1].startswith("malformed JSON")
    deal(page, url, sets="hand_size=99")
    page.wait_for_function("() => document.getElementById('setup-msg').textContent.includes('hand_size')")
    assert page.locator("#setup-msg.error").count() == 1
    deal(page, url, seed="abc")
    assert "seed abc is not allowed" in page.text_content("#setup-msg")
    page.goto(url + "/?room=not-a-room")
    page.wait_for_function("() => document.getElementById('setup-msg').textContent.includes('no room')")
