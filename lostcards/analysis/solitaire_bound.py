"""Solitaire's penalised information-relaxation bound: a ceiling no non-clairvoyant player can beat.

The clairvoyant optimum (``analysis.solitaire.optima``) lets the player know the
draw pile's order, so it is loose exactly where information matters (which suits
will be rich, which cards lie aside).  Brown, Smith & Sun (2010, "Information
relaxations and duality in stochastic dynamic programs", Operations Research
58(4)) tighten it by charging the clairvoyant for using the future.  For any
value function V of what the player knows, the penalty of a turn with a draw is

    z_t = V(state after the draw) - E[V(state after the draw) | what the player knew, its play]

and the expectation is over the next card, uniform over the cards the player
has not seen (the draw pile is a uniform shuffle of those, the other half of
the deck being set aside unseen).  Under any policy that does not peek,
E[z_t | the past] = 0, so E[score] = E[score - sum z_t] <= E[max over play
sequences, knowing the order, of (score - sum z_t)].  The right-hand side,
averaged over deals, is the bound (``penalised_bounds``); with V = 0 it is the
clairvoyant optimum, with V the optimal value function it is exact.

V here is cheap and separable by suit (``suit_value``): the best each suit's
expedition can still score from the numbers above its top in hand plus
``alpha`` times the chance that each unseen such number is still to come
(draw pile size / unseen cards), with the investments held, scaled by ``beta``.
Every alpha and beta give a valid bound; they were chosen on seed 1, never on
a measured seed (docs/bots.md).

The inner maximisation is bounded from above by pricing the hand limit
(``relaxed_bound``, a Lagrangian relaxation: one small dynamic programme a suit, see
the comment above it), which keeps the bound valid and takes about 0.1 s a deal.
On small decks it is also solved exactly (``exact=True``, ``_bound``), by dynamic
programming over the turns: the state is the live cards in hand (cards that can still be
laid; dead ones are interchangeable and only fill the hand), each suit's
expedition as (investments, top number, cards, capped at the bonus), and the
turn; the score is booked as it is made (a number laid adds its value times
investments + 1, opening pays the cost, reaching the bonus count pays the
bonus).  Once the draw pile is empty the rest is closed form (every card left
can be laid in any order).
"""
from __future__ import annotations

import numpy as np
from numba import typed, types

from lostcards.analysis.solitaire_relaxation import relaxed_bound
from lostcards.analysis.solitaire_value import (
    ALPHA,
    BETA,
    EXACT_MAX,
    KEY,
    MAX_SUITS,
    STEP0,
    STEPS,
    T_SHIFT,
    closing_value,
    draw_penalty,
    lane_tables,
    lay_card,
    live_mask,
    popcount60,
    state_after,
)
from lostcards.errors import BadArgument
from lostcards.numba_cache import jit
from lostcards.rules.cards import deck_codes
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.ruleset import rules as make_rules


@jit
def _bound(cards, h, nsuits, full, cost, bc, bp, alpha, beta, lsum, lcnt):
    """max over play sequences knowing the order of (score - sum of penalties); (value, states)."""
    n = cards.shape[0]
    T = n - h
    hand = np.int64(0)
    for i in range(min(h, n)):
        hand |= np.int64(1) << cards[i]
    if T <= 0:
        return closing_value(hand, np.int64(0), nsuits, cost, bc, bp, lsum, lcnt), 1
    unseen = np.zeros(T, np.int64)
    seen = hand
    for t in range(T):
        unseen[t] = full & ~seen
        seen |= np.int64(1) << cards[h + t]
    index = typed.Dict.empty(KEY, types.int64)
    cap = 1024
    keys_l = np.zeros(cap, np.int64)
    keys_e = np.zeros(cap, np.int64)
    start = np.zeros(T + 1, np.int64)
    keys_l[0] = hand
    keys_e[0] = 0
    index[(hand, np.int64(0))] = 0
    size = 1
    start[1] = 1
    for t in range(T - 1):                    # the states of turns 1 .. T-1
        w = cards[h + t]
        for i in range(start[t], start[t + 1]):
            L = keys_l[i]
            e = keys_e[i] & ((np.int64(1) << T_SHIFT) - 1)
            na = 2 * popcount60(L) + (1 if h > popcount60(L) else 0)
            for a in range(na):
                L1, e1, _ = state_after(L, e, a, nsuits, cost, bc, bp)
                if (live_mask(e1, nsuits) >> w) & 1:
                    L1 |= np.int64(1) << w
                key = (L1, e1 | (np.int64(t + 1) << T_SHIFT))
                if key not in index:
                    if size == cap:
                        cap *= 2
                        nl = np.zeros(cap, np.int64)
                        ne = np.zeros(cap, np.int64)
                        nl[:size] = keys_l[:size]
                        ne[:size] = keys_e[:size]
                        keys_l = nl
                        keys_e = ne
                    keys_l[size] = L1
                    keys_e[size] = key[1]
                    index[key] = size
                    size += 1
        start[t + 2] = size
    value = np.zeros(size, np.float64)
    for t in range(T - 1, -1, -1):
        w = cards[h + t]
        for i in range(start[t], start[t + 1]):
            L = keys_l[i]
            e = keys_e[i] & ((np.int64(1) << T_SHIFT) - 1)
            na = 2 * popcount60(L) + (1 if h > popcount60(L) else 0)
            best = -1e18
            for a in range(na):
                L1, e1, r = state_after(L, e, a, nsuits, cost, bc, bp)
                z = draw_penalty(L1, e1, t, w, unseen[t], nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt)
                L2 = L1
                if (live_mask(e1, nsuits) >> w) & 1:
                    L2 |= np.int64(1) << w
                if t + 1 == T:
                    nxt = closing_value(L2, e1, nsuits, cost, bc, bp, lsum, lcnt)
                else:
                    nxt = value[index[(L2, e1 | (np.int64(t + 1) << T_SHIFT))]]
                best = max(best, r - z + nxt)
            value[i] = best
    return value[0], size


def _checked(rules) -> Ruleset:
    r = rules if isinstance(rules, Ruleset) else make_rules(rules, players=1)
    if r.players != 1:
        r = r.with_(players=1)
    if r.suits > MAX_SUITS:
        raise BadArgument(f"the penalised bound takes 1..{MAX_SUITS} suits, got suits={r.suits}")
    if r.investments > 3 or r.bonus_cards > 15:
        raise BadArgument("the penalised bound takes investments <= 3 and bonus_cards <= 15")
    return r


def _deal_array(r, hand, deck):
    cards = np.array([int(c) for c in list(hand) + list(deck)], np.int64)
    if len(set(cards.tolist())) != len(cards) or not set(cards.tolist()) <= set(deck_codes(r, 1)):
        raise BadArgument("hand and deck must be distinct cards of the ruleset's deck")
    if len(hand) != min(r.hand_size, len(cards)):
        raise BadArgument(f"a solitaire hand holds {r.hand_size} cards, got {len(hand)}")
    return cards


def _full(r) -> int:
    full = 0
    for c in deck_codes(r, 1):
        full |= 1 << c
    return full


def penalised_bound(rules, hand, deck, alpha: float = ALPHA, beta: float = BETA, exact: bool = False) -> float:
    """One deal's penalised clairvoyant value (card codes of the hand, then the draw pile top first).

    Its mean over deals is an upper bound on every policy's mean score (module docstring);
    beta = 0 gives the clairvoyant optimum (exact) or an upper bound on it (relaxed).
    exact: solve the inner maximisation exactly (small decks only, EXACT_MAX cards in play)."""
    r = _checked(rules)
    if not (np.isfinite(alpha) and np.isfinite(beta)):
        raise BadArgument(f"alpha and beta must be finite numbers, got {alpha!r}, {beta!r}")
    cards = _deal_array(r, hand, deck)
    lsum, lcnt = lane_tables()
    args = (cards, np.int64(len(hand)), np.int64(r.suits), np.int64(_full(r)), float(r.cost),
            np.int64(r.bonus_cards), float(r.bonus_points), float(alpha), float(beta), lsum, lcnt)
    if exact:
        if len(cards) > EXACT_MAX:
            raise BadArgument(f"exact=True takes at most {EXACT_MAX} cards in play, got {len(cards)}: "
                              "use the relaxed bound (exact=False)")
        return float(_bound(*args)[0])
    return float(relaxed_bound(*args, np.int64(STEPS), float(STEP0))[0])


def penalised_bounds(rules="expeditions", rounds: int = 100, seed: int = 0, start: int = 0,
                     alpha: float = ALPHA, beta: float = BETA) -> np.ndarray:
    """The penalised clairvoyant value of solitaire deals start .. start+rounds-1 of `seed` (the
    engine's deals, as ``optima``); their mean bounds every policy's mean score from above."""
    from lostcards.reference.round import Round
    r = _checked(rules)
    if int(rounds) < 0 or int(start) < 0:
        raise BadArgument(f"rounds and start must be >= 0, got {rounds}, {start}")
    out = np.zeros(int(rounds), np.float64)
    for i in range(int(rounds)):
        rnd = Round.dealt(r, seed, start + i)
        hand = [rnd.codes[p] for p in rnd._dealt[0]]
        deck = [rnd.codes[p] for p in rnd.deck]
        out[i] = penalised_bound(r, hand, deck, alpha, beta)
    return out


def penalty_along(rules, hand, deck, plays, alpha: float = ALPHA, beta: float = BETA) -> float:
    """The sum of the penalties z_t along one played round (plays: (card, laid?) a turn, in order):
    its mean is 0 under any policy that does not peek at the draw pile."""
    r = _checked(rules)
    lsum, lcnt = lane_tables()
    full = _full(r)
    cards = _deal_array(r, hand, deck)
    if len(plays) < len(deck):
        raise BadArgument(f"{len(plays)} plays for a draw pile of {len(deck)}: the round is not played out")
    return float(_penalty_along(cards, np.int64(len(hand)),
                                np.array([c for c, _ in plays], np.int64),
                                np.array([1 if lay else 0 for _, lay in plays], np.int64),
                                np.int64(r.suits), np.int64(full), float(r.cost), np.int64(r.bonus_cards),
                                float(r.bonus_points), float(alpha), float(beta), lsum, lcnt))


@jit
def _penalty_along(cards, h, played, laid, nsuits, full, cost, bc, bp, alpha, beta, lsum, lcnt):
    n = cards.shape[0]
    T = n - h
    seen = np.int64(0)
    for i in range(h):
        seen |= np.int64(1) << cards[i]
    L = seen
    e = np.int64(0)
    total = 0.0
    for t in range(T):
        c = played[t]
        b = np.int64(1) << c
        if laid[t]:
            e, _ = lay_card(e, c, cost, bc, bp)
            L = (L & ~b) & live_mask(e, nsuits)
        else:
            L &= ~b
        w = cards[h + t]
        total += draw_penalty(L, e, t, w, full & ~seen, nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt)
        seen |= np.int64(1) << w
        if (live_mask(e, nsuits) >> w) & 1:
            L |= np.int64(1) << w
    return total


def shares(bots, deals: int = 500, seed: int = 20261205, rules="expeditions") -> list[dict]:
    """Each bot's solitaire score as a percentage of the clairvoyant optimum and of the penalised
    bound, on the same deals 0..deals-1 of `seed` (ratios of the sums, 95% intervals by the delta
    method, deals paired, as docs/bots.md's ladder), with CPU seconds a round on one thread."""
    import time

    from lostcards.analysis.solitaire import optima
    from lostcards.run.runner import play
    from lostcards.stats import half_width
    r = _checked(rules)
    if int(deals) < 2:
        raise BadArgument(f"{deals} deals give no interval: at least 2")
    best = {"optimum": optima(r, rounds=deals, seed=seed).astype(np.float64),
            "bound": penalised_bounds(r, rounds=deals, seed=seed)}
    out = []
    for bot in bots:
        play(r, bot, rounds=1, seed=seed, threads=1)                 # compile outside the clock
        c = time.process_time()
        s = play(r, bot, rounds=deals, seed=seed, threads=1).scores[:, 0].astype(np.float64)
        row = {"bot": bot, "n": int(deals), "seed": seed, "score": s.mean(),
               "s_round": (time.process_time() - c) / deals}
        for name, b in best.items():
            pct = 100 * s.sum() / b.sum()
            h = 100 / b.mean() * half_width((s - pct / 100 * b).std(ddof=1), s.size)
            row[name] = (pct, pct - h, pct + h)
            row[name + "_mean"] = b.mean()
        out.append(row)
    return out

