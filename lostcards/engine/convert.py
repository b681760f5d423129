"""Converters between the engine's ``Obs`` (int64 bit fields) and the reference ``Observation``.

``to_observation(obs, rules)`` reads an ``Obs`` as the reference shows a seat
its turn; ``from_observation(observation)`` builds the ``Obs`` the engine
would hand that seat.  Both are plain Python (for tests, debugging, and
Python code that wants to look at what a numba policy sees).

One thing the bit fields do not keep: the order in which a side laid its
investments.  ``to_observation`` lists an expedition in slot order
(investments J Q K, then the numbers rising), so a round trip from an
``Observation`` keeps every field but that order; from an ``Obs`` it is exact.
"""
from __future__ import annotations

import functools

from lostcards.engine.deal import card_set, codes_of, obs_rules_words, rules_block
from lostcards.engine.layout import INFO, OBS, RULES, SIZES, TOTALS, Obs
from lostcards.errors import BadArgument
from lostcards.reference.observation import Observation, side_of
from lostcards.rules.cards import SLOTS
from lostcards.rules.ruleset import Ruleset

_MASK64 = (1 << 64) - 1


def _u(w) -> int:
    return int(w) & _MASK64


def _signed(w: int) -> int:
    w &= _MASK64
    return w - (1 << 64) if w >> 63 else w


def _counted(once: tuple, twice: tuple) -> tuple:
    """Codes ascending, a code held twice listed twice."""
    two = set(codes_of(*twice))
    out = []
    for c in codes_of(*once):
        out += [c, c] if c in two else [c]
    return tuple(out)


def _pile(lo: int, hi: int, suit: int) -> tuple:
    """A pile's cards bottom first (the words keep slot + 1 per 4 bits, the top card lowest)."""
    entries = []
    for w in (_u(lo), _u(hi)):
        for k in range(16):
            e = (w >> (4 * k)) & 15
            if e == 0:
                break
            entries.append(suit * SLOTS + e - 1)
    return tuple(reversed(entries))


def to_observation(obs, rules: Ruleset) -> Observation:
    """The reference ``Observation`` of an engine ``Obs`` (``rules``: the ruleset it was dealt under)."""
    obs = Obs(*(int(w) for w in obs))
    if (_u(obs.rules), _u(obs.rules2)) != tuple(_u(w) for w in _rules_words(rules)[1]):
        raise BadArgument(f"the observation was not made under the ruleset {rules.describe()}")
    info = INFO.unpack(_u(obs.info))
    players, seat = rules.players, info["seat"]
    sizes = SIZES.unpack(_u(obs.sizes))
    totals = TOTALS.unpack(_u(obs.totals))
    exps = []
    for sd in range(rules.sides):
        lo, hi = getattr(obs, f"exp{sd}"), getattr(obs, f"exp{sd}_hi")
        cards = codes_of(lo, hi)
        exps.append(tuple(tuple(c for c in cards if c // SLOTS == s) for s in range(rules.suits)))
    piles = tuple(_pile(getattr(obs, f"pile{s}"), getattr(obs, f"pile{s}_hi"), s) for s in range(rules.suits))
    known = [()] * players
    for k in range(1, players):
        once = (getattr(obs, f"known{k}"), getattr(obs, f"known{k}_hi"))
        twice = (getattr(obs, f"known{k}x2"), getattr(obs, f"known{k}x2_hi"))
        known[(seat + k) % players] = _counted(once, twice)
    return Observation(
        rules=rules, seat=seat, players=players,
        hand=_counted((obs.hand, obs.hand_hi), (obs.hand2, obs.hand2_hi)),
        expeditions=tuple(exps), discards=piles, deck_size=info["deck"], known=tuple(known),
        hand_sizes=tuple(sizes[f"seat{s}"] for s in range(players)),
        stall_count=info["stall"], turn=obs.turn, can_pass=bool(info["can_pass"]),
        round_index=obs.round, totals=tuple(totals[f"side{sd}"] for sd in range(rules.sides)),
    )


@functools.lru_cache(maxsize=64)
def _rules_words(rules: Ruleset) -> tuple:
    """(the deck's codes as two words, the observation's two rules words): once a ruleset."""
    rb = rules_block(rules)
    at = RULES.at("all")
    return (_u(rb[at]), _u(rb[at + 1])), tuple(obs_rules_words(rules))


def _accepted(rules: Ruleset, laid: list) -> tuple:
    """The cards a side's expeditions take now, as the engine keeps them: the deck's codes, less,
    in each suit, the highest number laid and every slot below it (investments included)."""
    lo, hi = _rules_words(rules)[0]
    for s, exp in enumerate(laid):
        numbers = [c % SLOTS for c in exp if c % SLOTS >= 3]
        if not numbers:
            continue
        closed = ((1 << (max(numbers) + 1)) - 1) << (SLOTS * s)
        if s >= 5:
            hi &= ~(closed >> 60)
        else:
            lo &= ~closed
    return _signed(lo), _signed(hi)


def from_observation(o: Observation) -> Obs:
    """The engine ``Obs`` of a reference ``Observation`` (what the engine hands that seat)."""
    r = o.rules
    players, seat = o.players, o.seat
    w = dict.fromkeys(OBS.names(), 0)
    w["rules"], w["rules2"] = _rules_words(r)[1]
    nonempty = sum(1 << s for s, pile in enumerate(o.discards) if pile)
    w["info"] = INFO.pack(seat=seat, side=side_of(seat, players), deck=o.deck_size, stall=o.stall_count,
                          can_pass=int(o.can_pass), nonempty=nonempty)
    w["turn"], w["round"] = o.turn, o.round_index
    t = tuple(o.totals) + (0, 0)
    w["totals"] = _signed(TOTALS.pack(side0=t[0], side1=t[1] if len(o.totals) > 1 else 0))
    w["sizes"] = SIZES.pack(**{f"seat{s}": n for s, n in enumerate(o.hand_sizes)})
    w["hand"], w["hand_hi"] = card_set(set(o.hand))
    w["hand2"], w["hand2_hi"] = card_set(c for c in set(o.hand) if o.hand.count(c) == 2)
    for sd in range(2):
        laid = o.expeditions[sd] if sd < len(o.expeditions) else ((),) * r.suits
        w[f"exp{sd}"], w[f"exp{sd}_hi"] = card_set(c for e in laid for c in e)
        w[f"acc{sd}"], w[f"acc{sd}_hi"] = _accepted(r, laid)
    for s, pile in enumerate(o.discards):
        top_first = list(reversed(pile))
        for part, name in ((top_first[:16], f"pile{s}"), (top_first[16:], f"pile{s}_hi")):
            w[name] = _signed(sum((c % SLOTS + 1) << (4 * k) for k, c in enumerate(part)))
    for k in range(1, players):
        held = o.known[(seat + k) % players]
        w[f"known{k}"], w[f"known{k}_hi"] = card_set(set(held))
        w[f"known{k}x2"], w[f"known{k}x2_hi"] = card_set(c for c in set(held) if held.count(c) == 2)
    return Obs(**{k: int(v) for k, v in w.items()})
