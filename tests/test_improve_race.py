"""Racing the improvement step's candidates (``engine.improvement.raced``, improve's ``race``): off it
changes no move, with a bar nothing clears it changes no move either (a stage plays the same
play-outs), the incumbent is never dropped, and the elimination matches a plain Python transcription."""
import hashlib
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit
from safety_tools import cli, one_line

import lostcards
from lostcards.engine.improvement import RACE_BLOCK, SE_FLOOR, race_drop, raced
from lostcards.errors import PolicyError
from lostcards.policies import resolve
from lostcards.run.runner import play_records


def _hash(records) -> str:
    return hashlib.sha256(json.dumps(records, sort_keys=True).encode()).hexdigest()[:16]


# taken from improve before racing existed (same specs, rounds 0 and 1 of each seed)
GOLDEN = [
    ("expeditions", 2, "improve:k=12", "expert", 271, "37790e2c583a3318"),
    ("expeditions", 4, "improve:k=8", "expert", 272, "4ede9084fee3aa43"),
    ("lost-cities", 1, "improve:k=12", None, 273, "fda5660488e211d4"),
    ("expeditions", 2, "improve:k=12,seconds=3600", "greedy", 274, "b4fe2ab031efb4e8"),
]


@pytest.mark.parametrize("rules,players,spec,opp,seed,digest", GOLDEN, ids=[f"{g[0]}-{g[1]}p" for g in GOLDEN])
def test_race_off_plays_the_moves_of_before(rules, players, spec, opp, seed, digest):
    r = lostcards.rules(rules, players=players)
    assert _hash(play_records(r, spec, opp, range(2), seed)) == digest
    assert _hash(play_records(r, spec + ",race=0", opp, range(2), seed)) == digest


@pytest.mark.parametrize("rules,players,opp", [("expeditions", 2, "expert"), ("expeditions", 4, "greedy"),
                                               ("lost-cities", 1, None)])
def test_a_race_nothing_is_dropped_in_plays_every_move_of_the_unraced_step(rules, players, opp):
    """Stages of determinizations give each candidate the margins the whole play-out gives (the same
    streams on determinization i), so with a bar no challenger trails by, every move is the same."""
    r = lostcards.rules(rules, players=players)
    k = RACE_BLOCK + RACE_BLOCK // 2            # two stages, the second one short
    plain = play_records(r, f"improve:k={k}", opp, range(2), 41)
    assert play_records(r, f"improve:k={k},race=1000000", opp, range(2), 41) == plain


def test_a_tight_race_plays_legal_reproducible_rounds():
    r = lostcards.rules("expeditions", players=2)
    a = play_records(r, "improve:k=48,race=0.5", "expert", range(2), 43)
    assert a == play_records(r, "improve:k=48,race=0.5", "expert", range(2), 43)
    assert all(rec.get("error") is None for rec in a)
    r4 = lostcards.rules("expeditions", players=4)
    assert all(rec.get("error") is None for rec in play_records(r4, "improve:k=40,race=0.5", "greedy", range(1), 44))


@pytest.mark.parametrize("value,words", [("-1", "improve:race=-1 is not allowed: a number in 0..1000000"),
                                         ("abc", "improve:race=abc is not allowed"),
                                         ("nan", "improve:race=nan is not allowed")])
def test_bad_values_of_race_are_refused_in_one_line(value, words):
    with pytest.raises(PolicyError, match=words.replace(".", r"\.")) as e:
        resolve(f"improve:race={value}")
    assert "\n" not in str(e.value)
    one_line(cli("ladder", "--bots", f"improve:race={value}", "--tables", "2p", "--deals", "2"), 1, words)


def test_race_is_a_parameter_as_data():
    p = resolve("improve:race=2.5,k=16")
    assert p.spec == "improve:k=16,race=2.5"
    assert p.params[3] == 2.5 and resolve("improve").params[3] == 0.0
    assert resolve("improve:race=2.5").kernel is resolve("improve").kernel     # one kernel, no recompile a value


# ---- the elimination rule and the race, against a plain Python transcription ----------------------------

def _mean(vals, stride, k, j):
    s = 0.0
    for i in range(k):
        v = vals[j * stride + i]
        if not math.isfinite(v):
            return math.nan
        s += v
    return s / k


def naive_drop(vals, stride, k, inc, j0, j1, live, race):
    """race_drop's docstring, transcribed: the leader of best mean (inc first, ties to the first), every
    live challenger trailing it by more than race standard errors, or not finite, dropped."""
    lead, lead_mean = -1, 0.0
    for j in [inc] + [j for j in range(j0, j1) if j != inc and live[j]]:
        m = _mean(vals, stride, k, j)
        if math.isfinite(m) and (lead < 0 or m > lead_mean):
            lead, lead_mean = j, m
    for j in range(j0, j1):
        if j in (inc, lead) or not live[j]:
            continue
        x = [vals[j * stride + i] for i in range(k)]
        if lead < 0 or not all(math.isfinite(v) for v in x):
            drop = True
        else:
            d = [vals[lead * stride + i] - x[i] for i in range(k)]
            s1 = s2 = 0.0
            for e in d:
                s1 += e
                s2 += e * e
            mean = s1 / k
            var = (s2 - s1 * mean) / (k - 1)
            drop = mean > race * max(math.sqrt(max(var, 0.0) / k), SE_FLOOR / k)
        if drop:
            live[j] = 0
            for i in range(k, stride):
                vals[j * stride + i] = math.nan
    return lead


def naive_race(full, inc, j0, n, k, race):
    """The race: stages of RACE_BLOCK determinizations for the live candidates of j0..n-1, naive_drop
    after every stage but the last; (vals, live, play-outs played)."""
    vals = [-7.0] * (full.shape[0] * k)
    if inc < j0:
        for i in range(k):
            vals[inc * k + i] = full[inc, i]
    live = [0] * full.shape[0]
    for j in range(j0, n):
        live[j] = 1
    played = 0
    i0 = 0
    while i0 < k:
        i1 = min(i0 + RACE_BLOCK, k)
        for j in range(j0, n):
            if live[j]:
                for i in range(i0, i1):
                    vals[j * k + i] = full[j, i]
                played += i1 - i0
        i0 = i1
        if i0 < k:
            naive_drop(vals, k, i0, inc, j0, n, live, race)
    return np.array(vals), np.array(live), played


@njit
def _jit_drop(vals, stride, k, inc, j0, j1, live, race):
    return race_drop(vals, stride, k, inc, j0, j1, live, race)


@njit
def _toy_stage(obs, cand, j, i0, i1, ctx):
    full, vals, stride, played = ctx
    for i in range(i0, i1):
        vals[j * stride + i] = full[j, i]
    played[0] += i1 - i0


@njit
def _no_limit(ctx):
    return True


@njit
def _jit_race(full, inc, j0, n, k, race):
    vals = np.full(full.shape[0] * k, -7.0)
    if inc < j0:
        for i in range(k):
            vals[inc * k + i] = full[inc, i]
    live = np.zeros(full.shape[0], np.int64)
    kd = np.array([k], np.int64)
    played = np.zeros(1, np.int64)
    cand = np.zeros(full.shape[0], np.int64)
    done = raced(0, cand, inc, j0, n, _toy_stage, _no_limit, vals, k, kd, live, race, (full, vals, k, played))
    return vals, live, kd[0], played[0], done


@st.composite
def races(draw):
    """Candidates' margins (whole points, as play-outs give), some rows copies of another (moves that
    play out alike), some with a NaN (not legal there); the incumbent among the raced or before them."""
    n = draw(st.integers(2, 7))
    k = draw(st.integers(2, 3 * RACE_BLOCK + 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    spread = draw(st.sampled_from([0, 3, 40]))
    full = rng.integers(-spread, spread + 1, size=(n, k)).astype(np.float64)
    full += rng.integers(-6, 7, size=(n, 1))                     # some candidates clearly better
    for j in range(n):
        if rng.random() < 0.2:
            full[j] = full[rng.integers(n)]
        if rng.random() < 0.1:
            full[j, rng.integers(k)] = np.nan
    draws_step = draw(st.booleans())
    inc, j0 = (0, 1) if draws_step else (0, 0)
    race = draw(st.sampled_from([0.0, 0.5, 1.0, 2.5, 1e6]))
    return full, inc, j0, n, k, race


def _same(a, b):
    return np.array_equal(np.asarray(a, np.float64), np.asarray(b, np.float64), equal_nan=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(races())
def test_the_race_is_its_plain_python_transcription(case):
    full, inc, j0, n, k, race = case
    vals, live, kd, played, done = _jit_race(full, inc, j0, n, k, race)
    nvals, nlive, nplayed = naive_race(full, inc, j0, n, k, race)
    assert _same(vals, nvals) and live.tolist() == nlive.tolist() and played == nplayed
    assert kd == k and done == n
    # the incumbent is never dropped and keeps every margin; a survivor has all k
    assert (live[inc] == 1 or inc < j0) and _same(vals[inc * k:(inc + 1) * k], full[inc])
    for j in range(j0, n):
        if live[j]:
            assert _same(vals[j * k:(j + 1) * k], full[j])
        else:
            assert np.isnan(vals[(j + 1) * k - 1]), "a dropped candidate's last margin is not NaN"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(races(), st.integers(1, 10**6))
def test_one_elimination_is_its_plain_python_transcription(case, cut):
    full, inc, j0, n, k, race = case
    kk = 2 + cut % (k - 1)                       # after 2..k determinizations
    vals = full.reshape(-1).copy()
    live = np.ones(n, np.int64)
    live[np.random.default_rng(cut).random(n) < 0.2] = 0
    live[inc] = 1
    nvals, nlive = list(vals), live.tolist()
    lead = _jit_drop(vals, k, kk, inc, j0, n, live, race)
    assert lead == naive_drop(nvals, k, kk, inc, j0, n, nlive, race)
    assert _same(vals, nvals) and live.tolist() == nlive
    assert live[inc] == 1, "the incumbent was dropped"
    if lead >= 0:
        assert live[lead] == 1


def test_the_race_drops_a_clear_loser_and_keeps_a_losing_incumbent():
    """After the first stage a challenger 10 points behind the leader is dropped, one level with it is
    not, and neither is an incumbent 60 points behind: it gets every determinization."""
    k = 3 * RACE_BLOCK
    rng = np.random.default_rng(5)
    noise = rng.integers(-2, 3, size=k).astype(np.float64)
    full = np.stack([noise - 50, noise + 10, noise, noise + 10])
    vals, live, kd, played, done = _jit_race(full, 0, 0, 4, k, 2.5)
    assert live.tolist() == [1, 1, 0, 1]
    assert played == 3 * k + RACE_BLOCK
    assert np.isnan(vals[2 * k + RACE_BLOCK:3 * k]).all() and not np.isnan(vals[2 * k:2 * k + RACE_BLOCK]).any()
