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

V here is cheap and separable by suit (``_suit_value``): the best each suit's
expedition can still score from the numbers above its top in hand plus
``alpha`` times the chance that each unseen such number is still to come
(draw pile size / unseen cards), with the investments held, scaled by ``beta``.
Every alpha and beta give a valid bound; they were chosen on seed 1, never on
a measured seed (docs/bots.md).

The inner maximisation is bounded from above by pricing the hand limit
(``_relaxed``, a Lagrangian relaxation: one small dynamic programme a suit, see
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

import functools

import numpy as np
from numba import typed, types

from lostcards.errors import BadArgument
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS, deck_codes
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.ruleset import rules as make_rules

ALPHA = 0.5        # weight of an unseen number's chance to come, in V (chosen on seed 1)
BETA = 0.7         # scale of V in the penalty (chosen on seed 1)
STEPS = 1000       # subgradient steps a deal (more only lowers the bound)
STEP0 = 5.0        # the first step, in points (step k: STEP0 / sqrt(k + 1))
EXACT_MAX = 14     # cards in play the exact inner maximisation takes at most (its states explode)
INVESTMENT_LANE = 0x7          # slots 0-2 of a suit's 12
NUMBER_LANE = 0xFF8            # slots 3-11 (numbers 2..10)
E_BITS = 10                    # a suit's expedition in E: investments (2 bits), top slot (4), cards (4)
T_SHIFT = 60                   # the turn's place in a state key's second word
MAX_SUITS = 5                  # live cards are one 60-bit word
_KEY = types.UniTuple(types.int64, 2)


@functools.lru_cache(maxsize=1)
def _lane_tables():
    """Each 12-slot lane's numbers: their values' sum and their count (read-only tables)."""
    s = np.zeros(1 << SLOTS, np.float64)
    c = np.zeros(1 << SLOTS, np.float64)
    for m in range(1 << SLOTS):
        for slot in range(3, SLOTS):
            if m >> slot & 1:
                s[m] += slot - 1
                c[m] += 1
    s.flags.writeable = False
    c.flags.writeable = False
    return s, c


@jit(inline=True)
def _k(e, s):
    return (e >> (E_BITS * s)) & 3


@jit(inline=True)
def _top(e, s):
    return (e >> (E_BITS * s + 2)) & 15


@jit(inline=True)
def _cnt(e, s):
    return (e >> (E_BITS * s + 6)) & 15


@jit(inline=True)
def _live_mask(e, nsuits):
    """The cards the expeditions of E accept now (investments before any number, numbers above the top)."""
    m = np.int64(0)
    for s in range(nsuits):
        t = _top(e, s)
        lane = np.int64(0xFFF) if t == 0 else np.int64(0xFFF) & ~((np.int64(1) << (t + 1)) - 1)
        m |= lane << (SLOTS * s)
    return m


@jit(inline=True)
def _popcount(x):
    n = 0
    while x != 0:
        x &= x - 1
        n += 1
    return n


@jit(inline=True)
def _suit_value(k, top, cnt, hl, ul, q, cost, bc, bp, lsum, lcnt):
    """What one expedition can still add (points booked from now on): every live number in hand
    (lane hl) plus q times each live unseen one (lane ul), with the best number of the investments
    held while no number is laid; not opening (0) is an option while nothing is laid.  With q = 0
    it is exactly the best the hand alone can still do once the draw pile is empty."""
    sn = lsum[hl & NUMBER_LANE] + q * lsum[ul & NUMBER_LANE]
    cn = lcnt[hl & NUMBER_LANE] + q * lcnt[ul & NUMBER_LANE]
    if top > 0:
        v = sn * (k + 1)
        if cnt < bc and cnt + cn >= bc:
            v += bp
        return v
    ih = _popcount(hl & INVESTMENT_LANE)
    best = -1e18
    for kk in range(k, k + ih + 1):
        v = (sn - cost) * (kk + 1)
        if cnt < bc and cnt + (kk - k) + cn >= bc:
            v += bp
        best = max(best, v)
    if k == 0:
        best = max(best, 0.0)
    return best


@jit(inline=True)
def _value(L, e, nsuits, ulive, q, cost, bc, bp, lsum, lcnt):
    """V summed over the suits (live hand L, live unseen ulive)."""
    v = 0.0
    for s in range(nsuits):
        v += _suit_value(_k(e, s), _top(e, s), _cnt(e, s), (L >> (SLOTS * s)) & 0xFFF,
                         (ulive >> (SLOTS * s)) & 0xFFF, q, cost, bc, bp, lsum, lcnt)
    return v


@jit(inline=True)
def _lay(e, c, cost, bc, bp):
    """(E after laying card c, the points it books)."""
    s = c // SLOTS
    slot = c % SLOTS
    k = _k(e, s)
    top = _top(e, s)
    cnt = _cnt(e, s)
    r = 0.0
    if slot < 3:
        k += 1
    else:
        r = (slot - 1) * (k + 1) - (cost * (k + 1) if top == 0 else 0)
        top = slot
    if cnt < bc:
        cnt += 1
        if cnt == bc:
            r += bp
    sh = E_BITS * s
    e = (e & ~(np.int64(0x3FF) << sh)) | ((k | (top << 2) | (cnt << 6)) << sh)
    return e, r


@jit(inline=True)
def _penalty(L1, e1, t, w, unseen, nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt):
    """z_t after a play leaving (L1, e1): V with the card w drawn minus V's mean over every unseen card."""
    if beta == 0.0:
        return 0.0
    n_u = _popcount(unseen)
    q = alpha * (T - t - 1) / (n_u - 1) if n_u > 1 else 0.0
    live = unseen & _live_mask(e1, nsuits)
    total = 0.0
    real = 0.0
    for s in range(nsuits):
        ul = (live >> (SLOTS * s)) & 0xFFF
        if ul == 0:
            continue
        hl = (L1 >> (SLOTS * s)) & 0xFFF
        k = _k(e1, s)
        top = _top(e1, s)
        cnt = _cnt(e1, s)
        base = _suit_value(k, top, cnt, hl, ul, q, cost, bc, bp, lsum, lcnt)
        rest = ul
        while rest != 0:
            b = rest & -rest
            rest ^= b
            d = _suit_value(k, top, cnt, hl | b, ul & ~b, q, cost, bc, bp, lsum, lcnt) - base
            total += d
            if s == w // SLOTS and b == (np.int64(1) << (w % SLOTS)):
                real = d
    return beta * (real - total / n_u)


@jit(inline=True)
def _after(L, e, a, nsuits, cost, bc, bp):
    """Play number a of a state: a < 2 * live cards: card a // 2 of L laid (even) or discarded (odd);
    the last, a dead card discarded.  Returns (L, E, points) before the draw."""
    if a == 2 * _popcount(L):
        return L, e, 0.0
    rest = L
    for _ in range(a // 2):
        rest &= rest - 1
    b = rest & -rest
    c = 0
    while (b >> c) != 1:
        c += 1
    if a % 2 == 1:
        return L & ~b, e, 0.0
    e1, r = _lay(e, c, cost, bc, bp)
    return (L & ~b) & _live_mask(e1, nsuits), e1, r


@jit(inline=True)
def _done(L, e, nsuits, cost, bc, bp, lsum, lcnt):
    """The rest of a round once the draw pile is empty: closed form."""
    return _value(L, e, nsuits, np.int64(0), 0.0, cost, bc, bp, lsum, lcnt)


@jit
def _bound(cards, h, nsuits, full, cost, bc, bp, alpha, beta, lsum, lcnt):
    """max over play sequences knowing the order of (score - sum of penalties); (value, states)."""
    n = cards.shape[0]
    T = n - h
    hand = np.int64(0)
    for i in range(min(h, n)):
        hand |= np.int64(1) << cards[i]
    if T <= 0:
        return _done(hand, np.int64(0), nsuits, cost, bc, bp, lsum, lcnt), 1
    unseen = np.zeros(T, np.int64)
    seen = hand
    for t in range(T):
        unseen[t] = full & ~seen
        seen |= np.int64(1) << cards[h + t]
    index = typed.Dict.empty(_KEY, types.int64)
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
            na = 2 * _popcount(L) + (1 if h > _popcount(L) else 0)
            for a in range(na):
                L1, e1, _ = _after(L, e, a, nsuits, cost, bc, bp)
                if (_live_mask(e1, nsuits) >> w) & 1:
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
            na = 2 * _popcount(L) + (1 if h > _popcount(L) else 0)
            best = -1e18
            for a in range(na):
                L1, e1, r = _after(L, e, a, nsuits, cost, bc, bp)
                z = _penalty(L1, e1, t, w, unseen[t], nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt)
                L2 = L1
                if (_live_mask(e1, nsuits) >> w) & 1:
                    L2 |= np.int64(1) << w
                if t + 1 == T:
                    nxt = _done(L2, e1, nsuits, cost, bc, bp, lsum, lcnt)
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
    lsum, lcnt = _lane_tables()
    args = (cards, np.int64(len(hand)), np.int64(r.suits), np.int64(_full(r)), float(r.cost),
            np.int64(r.bonus_cards), float(r.bonus_points), float(alpha), float(beta), lsum, lcnt)
    if exact:
        if len(cards) > EXACT_MAX:
            raise BadArgument(f"exact=True takes at most {EXACT_MAX} cards in play, got {len(cards)}: "
                              "use the relaxed bound (exact=False)")
        return float(_bound(*args)[0])
    return float(_relaxed(*args, np.int64(STEPS), float(STEP0))[0])


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
    lsum, lcnt = _lane_tables()
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
            e, _ = _lay(e, c, cost, bc, bp)
            L = (L & ~b) & _live_mask(e, nsuits)
        else:
            L &= ~b
        w = cards[h + t]
        total += _penalty(L, e, t, w, full & ~seen, nsuits, T, alpha, beta, cost, bc, bp, lsum, lcnt)
        seen |= np.int64(1) << w
        if (_live_mask(e, nsuits) >> w) & 1:
            L |= np.int64(1) << w
    return total


# ---- the bound for full-size deals: the inner maximisation, relaxed by suit -------------------
#
# The exact inner maximisation above has too many states for a full deck.  Its suits interact
# only through the hand: while the draw pile lasts, exactly one card leaves the hand a turn.
# Pricing that constraint (a multiplier lam_t a turn) splits the problem into one small dynamic
# programme a suit (its own cards in hand, live and dead, its expedition, the turn):
#
#     g(lam) = sum_t lam_t + sum_suits max over the suit's plans of
#              (its points - its share of the penalties - sum_t lam_t * [it removes a card at t])
#
# and every lam gives g(lam) >= the inner maximum (Lagrangian relaxation: a plan of the real
# round is a plan of every suit with one removal a turn in all).  g is convex; a subgradient
# descent lowers it and the least value met is the deal's bound.


@jit
def _suit_graph(cards, h, s, nsuits, unseen, T, alpha, beta, cost, bc, bp, lsum, lcnt):
    """One suit's plans as a layered graph: (state turn, arcs: source, target or -1, points less
    penalty (plus the closed-form rest where the target is -1), removal)."""
    sh = SLOTS * s                          # the suit's place in a card set
    esh = E_BITS * s                        # and in an E word
    lane0 = np.int64(0)
    for i in range(min(h, cards.shape[0])):
        if cards[i] // SLOTS == s:
            lane0 |= np.int64(1) << (cards[i] % SLOTS)
    index = typed.Dict.empty(types.int64, types.int64)
    cap = 256
    st = np.zeros(cap, np.int64)            # state: live lane | dead << 12 | E (one suit) << 16
    st_t = np.zeros(cap, np.int64)
    acap = 1024
    a_src = np.zeros(acap, np.int64)
    a_dst = np.zeros(acap, np.int64)
    a_val = np.zeros(acap, np.float64)
    a_rem = np.zeros(acap, np.int64)
    st[0] = lane0
    index[lane0] = 0
    size = 1
    na = 0
    i = 0
    while i < size:
        t = st_t[i]
        x = st[i]
        lane = x & 0xFFF
        dead = (x >> 12) & 15
        e = (x >> 16) << esh                # the suit's expedition, in place in an E word
        w = cards[h + t]
        wmine = w // SLOTS == s
        n_opts = 1 + 2 * _popcount(lane) + (1 if dead > 0 else 0)
        for a in range(n_opts):
            rem = 0 if a == 0 else 1
            r = 0.0
            lane1 = lane
            dead1 = dead
            e1 = e
            if a > 0 and a <= 2 * _popcount(lane):
                rest = lane
                for _ in range((a - 1) // 2):
                    rest &= rest - 1
                b = rest & -rest
                c = 0
                while (b >> c) != 1:
                    c += 1
                lane1 = lane & ~b
                if (a - 1) % 2 == 0:        # lay it
                    e1, r = _lay(e, s * SLOTS + c, cost, bc, bp)
                    keep = (_live_mask(e1, nsuits) >> sh) & 0xFFF
                    dead1 = dead + _popcount(lane1 & ~keep)
                    lane1 &= keep
            elif a > 0:
                dead1 = dead - 1
            z = 0.0
            if beta != 0.0:
                n_u = _popcount(unseen[t])
                q = alpha * (T - t - 1) / (n_u - 1) if n_u > 1 else 0.0
                ul = ((unseen[t] & _live_mask(e1, nsuits)) >> sh) & 0xFFF
                if ul != 0:
                    k = _k(e1, s)
                    top = _top(e1, s)
                    cnt = _cnt(e1, s)
                    base = _suit_value(k, top, cnt, lane1, ul, q, cost, bc, bp, lsum, lcnt)
                    tot = 0.0
                    real = 0.0
                    rest = ul
                    while rest != 0:
                        b = rest & -rest
                        rest ^= b
                        d = _suit_value(k, top, cnt, lane1 | b, ul & ~b, q, cost, bc, bp, lsum, lcnt) - base
                        tot += d
                        if wmine and b == (np.int64(1) << (w % SLOTS)):
                            real = d
                    z = beta * (real - tot / n_u)
            if wmine:
                if ((_live_mask(e1, nsuits) >> sh) >> (w % SLOTS)) & 1:
                    lane1 |= np.int64(1) << (w % SLOTS)
                else:
                    dead1 += 1
            if na == acap:
                acap *= 2
                a_src2 = np.zeros(acap, np.int64)
                a_dst2 = np.zeros(acap, np.int64)
                a_val2 = np.zeros(acap, np.float64)
                a_rem2 = np.zeros(acap, np.int64)
                a_src2[:na] = a_src[:na]
                a_dst2[:na] = a_dst[:na]
                a_val2[:na] = a_val[:na]
                a_rem2[:na] = a_rem[:na]
                a_src = a_src2
                a_dst = a_dst2
                a_val = a_val2
                a_rem = a_rem2
            a_src[na] = i
            a_rem[na] = rem
            if t + 1 == T:
                a_dst[na] = -1
                a_val[na] = r - z + _suit_value(_k(e1, s), _top(e1, s), _cnt(e1, s), lane1, np.int64(0), 0.0,
                                                cost, bc, bp, lsum, lcnt)
            else:
                key = lane1 | (dead1 << 12) | ((e1 >> esh) << 16) | (np.int64(t + 1) << 40)
                j = index.get(key, -1)
                if j < 0:
                    if size == cap:
                        cap *= 2
                        st2 = np.zeros(cap, np.int64)
                        st_t2 = np.zeros(cap, np.int64)
                        st2[:size] = st[:size]
                        st_t2[:size] = st_t[:size]
                        st = st2
                        st_t = st_t2
                    st[size] = lane1 | (dead1 << 12) | ((e1 >> esh) << 16)
                    st_t[size] = t + 1
                    index[key] = size
                    j = size
                    size += 1
                a_dst[na] = j
                a_val[na] = r - z
            na += 1
        i += 1
    return st_t[:size].copy(), a_src[:na].copy(), a_dst[:na].copy(), a_val[:na].copy(), a_rem[:na].copy()


@jit
def _suit_best(st_t, a_src, a_dst, a_val, a_rem, lam, value, choice, removals):
    """The suit's best plan under prices lam: its value, and its removals added to `removals`.
    States are numbered in turn order and every arc goes to a later turn, so one backward sweep."""
    n = st_t.shape[0]
    for i in range(n):
        value[i] = -1e18
    for a in range(a_src.shape[0] - 1, -1, -1):
        i = a_src[a]
        v = a_val[a] - lam[st_t[i]] * a_rem[a] + (value[a_dst[a]] if a_dst[a] >= 0 else 0.0)
        if v > value[i]:
            value[i] = v
            choice[i] = a
    i = 0
    while i >= 0:
        a = choice[i]
        removals[st_t[i]] += a_rem[a]
        i = a_dst[a]
    return value[0]


@jit
def _relaxed(cards, h, nsuits, full, cost, bc, bp, alpha, beta, lsum, lcnt, steps, step0):
    """min over the subgradient iterates of g(lam) (module comment above); also g(0)."""
    n = cards.shape[0]
    T = n - h
    if T <= 0:
        hand = np.int64(0)
        for i in range(n):
            hand |= np.int64(1) << cards[i]
        v = _done(hand, np.int64(0), nsuits, cost, bc, bp, lsum, lcnt)
        return v, v
    unseen = np.zeros(T, np.int64)
    seen = np.int64(0)
    for i in range(h):
        seen |= np.int64(1) << cards[i]
    for t in range(T):
        unseen[t] = full & ~seen
        seen |= np.int64(1) << cards[h + t]
    graphs = []
    biggest = 1
    for s in range(nsuits):
        g = _suit_graph(cards, h, s, nsuits, unseen, T, alpha, beta, cost, bc, bp, lsum, lcnt)
        biggest = max(biggest, g[0].shape[0])
        graphs.append(g)
    value = np.zeros(biggest, np.float64)
    choice = np.zeros(biggest, np.int64)
    lam = np.zeros(T, np.float64)
    removals = np.zeros(T, np.int64)
    best = 1e18
    first = 0.0
    for it in range(steps + 1):
        removals[:] = 0
        g_val = lam.sum()
        for s in range(nsuits):
            st_t, a_src, a_dst, a_val, a_rem = graphs[s]
            g_val += _suit_best(st_t, a_src, a_dst, a_val, a_rem, lam, value, choice, removals)
        if it == 0:
            first = g_val
        best = min(best, g_val)
        off = 0
        for t in range(T):
            off += (1 - removals[t]) ** 2
        if off == 0:
            break                           # one removal a turn: a real plan, the bound is met
        eta = step0 / np.sqrt(it + 1.0)
        for t in range(T):
            lam[t] -= eta * (1 - removals[t])
    return best, first


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
