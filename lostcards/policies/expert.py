"""The `expert` policy: expected values from the cards seen, not fixed thresholds.

The decision procedure is documented in ``docs/expert.md``, as a priority list
that follows this code branch for branch.  In short: every suit gets a
*projection*, the score its expedition is expected to reach from the numbers
already laid, the numbers in hand that can still follow, and the cards still
unseen that could still come (weighted by the chance that they reach this side
in time), under the ruleset's cost, multiplier and bonus.  A play costs what it
takes off its suit's projection (the cards it skips); a discard costs what the
card is worth to the projection plus what it is worth to the opponent.  The
cheaper move wins.  When the plays left (deck / players, plus pile draws) are
fewer than the plays worth making, an exact small knapsack over the hand picks
what scores now.

Parameters (word values; the first is the default):

- ``invest``: ``normal`` (an investment only when the numbers in hand already
  pay the cost), ``eager`` (when the projection does), ``never``.
- ``endgame``: ``on`` / ``off``: count the plays left and play what scores now.
- ``safety``: ``on`` / ``off``: weigh what a discard is worth to the opponent.
- ``bonus``: ``on`` / ``off``: count the bonus in projections and in the endgame.
- ``deny``: ``on`` / ``off``: draw a discard that the opponent could use.
- ``pass``: ``on`` / ``off``: 4 players, pass 2 cards to the partner instead of
  a costly discard.
- numeric knobs for experiments (defaults tuned on 2-player ``expeditions``):
  ``rho`` (weight of an unseen card's expected value), ``open`` (margin a
  projection needs to open a suit), ``danger`` (weight of a discard's value to
  the opponent), ``drawbase`` (what a deck draw is worth, vs a pile card).

Reads every ruleset parameter from the observation (suits, numbers via
P_NUMBERS_MASK, investments, hand size, cost, bonus, stall limit, players,
extra copies) and never assumes the presets.  Allocates one small scratch
array per call.
"""
import numpy as np
from numba import njit

from ..cards import MAX_CODES, SLOTS
from ..engine import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from ..observation import (NSUITS, O_CAN_PASS, O_DECK, O_EXP_COUNT, O_EXP_INV, O_EXP_MASK,
                           O_EXP_SUM, O_EXP_TOP, O_HAND, O_HAND_LEN, O_KNOWN, O_PILE, O_PILE_LEN,
                           O_RULES, O_SEAT, O_SIDE, O_STALL, O_TURN, PMAX)
from ..ruleset import (P_BONUS_CARDS, P_BONUS_POINTS, P_COST, P_DECK, P_EXTRA_MASK, P_HAND,
                       P_INVESTMENTS, P_NUMBERS_MASK, P_PLAYERS, P_STALL, P_SUITS)

# parameter positions (declaration order of the Policy below)
(K_INVEST, K_ENDGAME, K_SAFETY, K_BONUS, K_DENY, K_PASS, K_RHO, K_OPEN, K_DANGER, K_DRAWBASE,
 K_BIAS, K_DENYW, K_OPTION, K_SLACK, K_EXTEND, K_OPENSTEP, K_PASSMIN) = range(17)
INV_NORMAL, INV_EAGER, INV_NEVER = 0, 1, 2

# fixed weights (see docs/expert.md)
RHO_PARTNER = 0.8     # a card the partner is known to hold, vs one still unseen
OPTION = 0.1          # share of a card's value kept when its suit does not pay (yet)
UNSTARTED = 0.15      # danger weight of a card for a suit the opponent has not opened
INV_DANGER = 6.0      # danger of an investment the opponent could still lay
PLAY_BIAS = 1.0       # a play is preferred to a discard that costs at most this much more

# scratch layout (float64)
B_EW = 0                      # [code]: expected copies that still reach this side
B_PK = B_EW + MAX_CODES       # [code]: copies the partner is known to hold
B_OPEN = B_PK + MAX_CODES   # the opening margin this turn
B_LEN = B_OPEN + 1


@njit(cache=True, inline="always")
def _ramp(n, bc):
    """Share of the bonus counted for an expected final count n (0 below bc-2, 1 from bc)."""
    if n >= bc:
        return 1.0
    if n <= bc - 2:
        return 0.0
    return (n - (bc - 2)) / 2.0


@njit(cache=True)
def _future(buf, s, top):
    """Expected sum and count of the unseen numbers of suit s above slot `top` that reach us."""
    fs = 0.0
    fc = 0.0
    for slot in range(max(top + 1, 3), SLOTS):
        w = buf[B_EW + s * SLOTS + slot]
        if w > 0.0:
            fs += w * (slot - 1)
            fc += w
    return fs, fc


@njit(cache=True)
def _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, add, committed):
    """Projected final score of this side's expedition of suit s.

    The expedition holds `mc` cards, numbers summing `ms`, `mi` investments and its
    highest number at slot `top`.  Hand cards of s count if they can still follow
    (hand position `skip` left out, card code `add` put in, -1 for none); unseen
    cards above `top` count at their expected value.  An unopened suit
    (`committed` False) is worth at least 0 (it can stay closed) and owes the
    opening margin.
    """
    h = obs[O_HAND_LEN]
    cost = obs[O_RULES + P_COST]
    hs = 0
    hn = 0
    hi = 0
    last = -1
    for i in range(h):
        c = obs[O_HAND + i]
        if c // SLOTS != s or i == skip:
            continue
        slot = c % SLOTS
        if slot < 3:
            if top == 0:
                hi += 1
        elif slot > top and slot != last:
            hs += slot - 1
            hn += 1
            last = slot
    if add >= 0:
        slot = add % SLOTS
        if slot < 3:
            if top == 0:
                hi += 1
        elif slot > top:
            # a copy of a number already counted adds nothing
            dup = False
            for i in range(h):
                if obs[O_HAND + i] == add and i != skip:
                    dup = True
            if not dup:
                hs += slot - 1
                hn += 1
    fs, fc = _future(buf, s, top)
    inv_mode = params[K_INVEST]
    hi_used = 0
    if hi > 0:
        if inv_mode == INV_NORMAL:
            if ms + hs - cost >= 0:
                hi_used = hi
        elif inv_mode == INV_EAGER:
            if ms + hs + fs - cost >= 0:
                hi_used = hi
    if mc + hn + hi_used == 0 and not committed:
        return 0.0
    x = ms + hs + fs
    n = mc + hn + hi_used + fc
    v = (x - cost) * (mi + hi_used + 1)
    if params[K_BONUS] != 0.0:
        v += obs[O_RULES + P_BONUS_POINTS] * _ramp(n, obs[O_RULES + P_BONUS_CARDS])
    if not committed:
        v -= buf[B_OPEN]
        if v < 0.0:
            v = 0.0
    return v


@njit(cache=True)
def _danger(obs, params, code):
    """What a card lying on top of its discard pile is worth to the opponent side."""
    if obs[O_RULES + P_PLAYERS] == 1:
        return 0.0
    op = 1 - obs[O_SIDE]
    s = code // SLOTS
    slot = code % SLOTS
    ot = obs[O_EXP_TOP + op * NSUITS + s]
    oc = obs[O_EXP_COUNT + op * NSUITS + s]
    oi = obs[O_EXP_INV + op * NSUITS + s]
    if slot < 3:
        if ot != 0:
            return 0.0
        v = INV_DANGER
    else:
        if slot <= ot:
            return 0.0
        v = float(slot - 1)
    if oc == 0:
        return UNSTARTED * v * params[K_DANGER]
    d = v * (oi + 1)
    if params[K_BONUS] != 0.0:
        bc = obs[O_RULES + P_BONUS_CARDS]
        if oc + 1 >= bc - 1:
            d += 0.5 * obs[O_RULES + P_BONUS_POINTS]
    return d * params[K_DANGER]


@njit(cache=True)
def _exp_score(cost, bc, bp, bonus_on, total, inv, cards):
    if cards == 0:
        return 0.0
    v = float((total - cost) * (inv + 1))
    if bonus_on and cards >= bc:
        v += bp
    return v


@njit(cache=True)
def _endgame_plan(obs, params, plays):
    """The best set of at most `plays` expedition plays from the hand (exact, no future cards).

    Returns (card to play first or -1, number of plays in the unconstrained best set).
    """
    h = obs[O_HAND_LEN]
    suits = obs[O_RULES + P_SUITS]
    side = obs[O_SIDE]
    cost = obs[O_RULES + P_COST]
    bc = obs[O_RULES + P_BONUS_CARDS]
    bp = obs[O_RULES + P_BONUS_POINTS]
    bonus_on = params[K_BONUS] != 0.0
    use_inv = params[K_INVEST] != INV_NEVER
    kmax = h
    NEG = -1e18
    # g[s, k]: best gain of suit s with exactly k plays; ci[s, k]: investments among them
    g = np.full((suits, kmax + 1), NEG)
    ci = np.zeros((suits, kmax + 1), np.int64)
    for s in range(suits):
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        ms = obs[O_EXP_SUM + xi]
        mc = obs[O_EXP_COUNT + xi]
        mi = obs[O_EXP_INV + xi]
        cur = _exp_score(cost, bc, bp, bonus_on, ms, mi, mc)
        # playable hand numbers of s, highest first (hand is sorted ascending)
        hi = 0
        nums = 0
        for i in range(h):
            c = obs[O_HAND + i]
            if c // SLOTS == s and c % SLOTS < 3 and top == 0 and use_inv:
                hi += 1
        g[s, 0] = 0.0
        # walk the numbers from the highest down: top-j sums
        tsum = 0
        last = -1
        j = 0
        i = h - 1
        while True:
            # with j numbers (sum tsum), try every investment count
            for a in range(hi + 1):
                k = a + j
                if k == 0 or k > kmax:
                    continue
                val = _exp_score(cost, bc, bp, bonus_on, ms + tsum, mi + a, mc + k) - cur
                if val > g[s, k]:
                    g[s, k] = val
                    ci[s, k] = a
            # next number
            found = False
            while i >= 0:
                c = obs[O_HAND + i]
                i -= 1
                if c // SLOTS == s and c % SLOTS >= 3 and c % SLOTS > top and c % SLOTS != last:
                    last = c % SLOTS
                    tsum += last - 1
                    j += 1
                    found = True
                    break
            if not found:
                break
        nums = j
        if nums == 0 and hi == 0:
            continue
    # knapsack over suits: f[k] best total with exactly k plays; keep per-suit choice
    f = np.full((suits + 1, kmax + 1), NEG)
    pick = np.zeros((suits + 1, kmax + 1), np.int64)
    f[0, 0] = 0.0
    for s in range(suits):
        for k in range(kmax + 1):
            if f[s, k] == NEG:
                continue
            for t in range(kmax + 1 - k):
                if g[s, t] == NEG:
                    continue
                v = f[s, k] + g[s, t]
                if v > f[s + 1, k + t]:
                    f[s + 1, k + t] = v
                    pick[s + 1, k + t] = t
    # unconstrained best count (smallest count reaching the best total)
    best_all = NEG
    n_all = 0
    for k in range(kmax + 1):
        if f[suits, k] > best_all + 1e-9:
            best_all = f[suits, k]
            n_all = k
    # constrained best
    lim = plays if plays < kmax else kmax
    best = NEG
    kb = 0
    for k in range(lim + 1):
        if f[suits, k] > best + 1e-9:
            best = f[suits, k]
            kb = k
    if kb == 0 or best <= 0.0:
        return -1, n_all
    # backtrack: the suit with the largest gain goes first
    k = kb
    first = -1
    first_gain = NEG
    for s in range(suits - 1, -1, -1):
        t = pick[s + 1, k]
        if t > 0:
            gain = g[s, t]
            if gain > first_gain:
                xi = side * NSUITS + s
                top = obs[O_EXP_TOP + xi]
                card = -1
                if ci[s, t] > 0:
                    for i in range(h):
                        c = obs[O_HAND + i]
                        if c // SLOTS == s and c % SLOTS < 3:
                            card = c
                            break
                else:
                    # the lowest of the t highest playable numbers
                    last = -1
                    cnt = 0
                    for i in range(h - 1, -1, -1):
                        c = obs[O_HAND + i]
                        if c // SLOTS == s and c % SLOTS >= 3 and c % SLOTS > top and c % SLOTS != last:
                            last = c % SLOTS
                            cnt += 1
                            card = c
                            if cnt == t:
                                break
                if card >= 0:
                    first = card
                    first_gain = gain
        k -= t
    return first, n_all


@njit(cache=True)
def expert_policy(obs, params, rng):
    """Expected-value heuristic; see docs/expert.md for the decision list."""
    players = obs[O_RULES + P_PLAYERS]
    suits = obs[O_RULES + P_SUITS]
    nmask = obs[O_RULES + P_NUMBERS_MASK]
    emask = obs[O_RULES + P_EXTRA_MASK]
    ninv = obs[O_RULES + P_INVESTMENTS]
    seat = obs[O_SEAT]
    side = obs[O_SIDE]
    op = 1 - side
    deck = obs[O_DECK]
    h = obs[O_HAND_LEN]
    safety = params[K_SAFETY] != 0.0

    # ---- 1. card counting: expected copies of each card still to reach this side
    buf = np.zeros(B_LEN)
    partner = (seat + 2) % 4 if players == 4 else -1
    for s in range(suits):
        mm = obs[O_EXP_MASK + side * NSUITS + s]
        om = obs[O_EXP_MASK + op * NSUITS + s] if players > 1 else 0
        for slot in range(SLOTS):
            if slot < 3:
                c = 1 if slot < ninv else 0
            elif (nmask >> slot) & 1:
                c = 2 if (players == 4 and (emask >> slot) & 1) else 1
            else:
                c = 0
            c -= (mm >> slot) & 1
            c -= (om >> slot) & 1
            buf[B_EW + s * SLOTS + slot] = c
        n = obs[O_PILE_LEN + s]
        for k in range(n):
            buf[B_EW + obs[O_PILE + s * PMAX + k]] -= 1.0
    for i in range(h):
        buf[B_EW + obs[O_HAND + i]] -= 1.0
    if players > 1:
        for o in range(players):
            if o == seat:
                continue
            for code in range(suits * SLOTS):
                kn = obs[O_KNOWN + o * MAX_CODES + code]
                if kn > 0:
                    buf[B_EW + code] -= kn
                    if o == partner:
                        buf[B_PK + code] += kn
    unseen = 0.0
    for code in range(suits * SLOTS):
        if buf[B_EW + code] < 0.0:
            buf[B_EW + code] = 0.0
        unseen += buf[B_EW + code]
    share = deck if players == 1 else 0.5 * deck
    pr = share / unseen if unseen > 0.0 else 0.0
    if pr > 1.0:
        pr = 1.0
    rho = params[K_RHO]
    for code in range(suits * SLOTS):
        buf[B_EW + code] = rho * (pr * buf[B_EW + code] + RHO_PARTNER * buf[B_PK + code])

    # ---- 2. value of each suit now
    opened = 0
    for s in range(suits):
        if obs[O_EXP_COUNT + side * NSUITS + s] > 0:
            opened += 1
    buf[B_OPEN] = params[K_OPEN] + params[K_OPENSTEP] * opened
    vnow = np.zeros(NSUITS)
    for s in range(suits):
        xi = side * NSUITS + s
        mc = obs[O_EXP_COUNT + xi]
        vnow[s] = _suit_value(obs, buf, params, s, obs[O_EXP_TOP + xi], obs[O_EXP_SUM + xi], mc,
                              obs[O_EXP_INV + xi], -1, -1, mc > 0)

    # ---- 3. plays left and the endgame
    plays_left = (deck + players - 1) // players if players > 1 else h + deck
    card = -1
    to = TO_EXPEDITION
    extend = False
    endgame = False
    if params[K_ENDGAME] != 0.0 and (players == 1 and deck == 0 or players > 1 and plays_left <= h):
        first, n_all = _endgame_plan(obs, params, plays_left if players > 1 else h)
        if n_all >= plays_left - params[K_SLACK] or players == 1:
            endgame = True
            card = first
            extend = n_all > plays_left and players > 1 and params[K_EXTEND] != 0.0

    # ---- 4. normal play: the cheapest play against the cheapest discard
    best_play = -1
    play_loss = 1e18
    best_disc = -1
    disc_cost = 1e18
    inv_mode = params[K_INVEST]
    for i in range(h):
        c = obs[O_HAND + i]
        if i > 0 and obs[O_HAND + i - 1] == c:
            continue                      # a copy: same evaluation
        s = c // SLOTS
        slot = c % SLOTS
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        ms = obs[O_EXP_SUM + xi]
        mc = obs[O_EXP_COUNT + xi]
        mi = obs[O_EXP_INV + xi]
        # the play
        if not endgame:
            loss = 1e18
            if slot >= 3 and slot > top:
                after = _suit_value(obs, buf, params, s, slot, ms + slot - 1, mc + 1, mi, i, -1, True)
                if mc == 0:
                    after -= buf[B_OPEN]
                loss = vnow[s] - after
            elif slot < 3 and top == 0 and inv_mode != INV_NEVER:
                after = _suit_value(obs, buf, params, s, 0, ms, mc + 1, mi + 1, i, -1, True)
                if mc == 0:
                    after -= buf[B_OPEN]
                loss = vnow[s] - after
            if loss < play_loss:
                play_loss = loss
                best_play = c
        # the discard
        without = _suit_value(obs, buf, params, s, top, ms, mc, mi, i, -1, mc > 0)
        keep = vnow[s] - without
        if keep < 0.0:
            keep = 0.0
        if mc == 0 and ((slot >= 3 and slot > top) or (slot < 3 and top == 0)):
            keep += params[K_OPTION] * (slot - 1 if slot >= 3 else 5)
        cost = keep
        if safety:
            cost += _danger(obs, params, c)
        if cost < disc_cost:
            disc_cost = cost
            best_disc = c

    if not endgame:
        if best_play >= 0 and play_loss <= disc_cost + params[K_BIAS]:
            card = best_play
        else:
            card = best_disc
            to = TO_DISCARD
            # 4 players: pass two valuable cards instead of a costly discard
            if (players == 4 and obs[O_CAN_PASS] == 1 and params[K_PASS] != 0.0
                    and h <= obs[O_RULES + P_HAND] and disc_cost >= params[K_PASSMIN]
                    and obs[O_TURN] < 2 * obs[O_RULES + P_DECK]):
                return _pass_pair(obs, params, buf, vnow)
    elif card < 0:
        card = best_disc
        to = TO_DISCARD

    if players == 1:
        return make_play(card, to, DRAW_NONE)

    # ---- 5. the draw
    return make_play(card, to, _draw(obs, params, buf, card, to, extend))


@njit(cache=True)
def _pass_pair(obs, params, buf, vnow):
    """The two cards whose discard would cost most (the partner keeps them for the side)."""
    h = obs[O_HAND_LEN]
    side = obs[O_SIDE]
    b1 = -1
    v1 = -1e18
    b2 = -1
    v2 = -1e18
    for i in range(h):
        c = obs[O_HAND + i]
        s = c // SLOTS
        xi = side * NSUITS + s
        mc = obs[O_EXP_COUNT + xi]
        without = _suit_value(obs, buf, params, s, obs[O_EXP_TOP + xi], obs[O_EXP_SUM + xi], mc,
                              obs[O_EXP_INV + xi], i, -1, mc > 0)
        v = vnow[s] - without + _danger(obs, params, c)
        if v > v1:
            b2, v2 = b1, v1
            b1, v1 = i, v
        elif v > v2:
            b2, v2 = i, v
    return make_pass(obs[O_HAND + b1], obs[O_HAND + b2])


@njit(cache=True)
def _draw(obs, params, buf, card, to, extend):
    """Deck, or the discard pile whose top is worth more than a deck card to this side."""
    suits = obs[O_RULES + P_SUITS]
    players = obs[O_RULES + P_PLAYERS]
    side = obs[O_SIDE]
    played = card // SLOTS
    # anti-stall: after a run of discard-and-pile-draw turns, or a very long round, take the deck
    if to == TO_DISCARD and obs[O_STALL] >= 2 * players:
        return DRAW_DECK
    if obs[O_TURN] >= 3 * obs[O_RULES + P_DECK]:
        return DRAW_DECK
    stall_limit = obs[O_RULES + P_STALL]
    if to == TO_DISCARD and stall_limit > 0 and obs[O_STALL] + 1 >= stall_limit * players:
        return DRAW_DECK
    # denial pays only when the card can be held to the end of the round
    deck = obs[O_DECK]
    late = (deck + players - 1) // players <= obs[O_RULES + P_HAND]
    best = DRAW_DECK
    best_v = params[K_DRAWBASE]
    if extend:
        best_v = -1e18
    for s in range(suits):
        n = obs[O_PILE_LEN + s]
        if n == 0 or (to == TO_DISCARD and s == played):
            continue
        c = obs[O_PILE + s * PMAX + n - 1]
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        ms = obs[O_EXP_SUM + xi]
        mc = obs[O_EXP_COUNT + xi]
        mi = obs[O_EXP_INV + xi]
        skip = -1
        if to == TO_EXPEDITION and s == played:
            # the expedition after this turn's play
            for i in range(obs[O_HAND_LEN]):
                if obs[O_HAND + i] == card:
                    skip = i
                    break
            mc += 1
            if card % SLOTS >= 3:
                top = card % SLOTS
                ms += card % SLOTS - 1
            else:
                mi += 1
        elif s == played:
            for i in range(obs[O_HAND_LEN]):
                if obs[O_HAND + i] == card:
                    skip = i
                    break
        v0 = _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, -1, mc > 0)
        v1 = _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, c, mc > 0)
        v = v1 - v0
        if params[K_DENY] != 0.0 and late:
            v += params[K_DENYW] * _danger(obs, params, c)
        if v > best_v:
            best_v = v
            best = 1 + s
    return best


from . import Policy, register  # noqa: E402

EXPERT = register(Policy(
    "expert", expert_policy,
    parameters={
        "invest": {"normal": INV_NORMAL, "eager": INV_EAGER, "never": INV_NEVER},
        "endgame": {"on": 1, "off": 0},
        "safety": {"on": 1, "off": 0},
        "bonus": {"on": 1, "off": 0},
        "deny": {"on": 1, "off": 0},
        "pass": {"on": 1, "off": 0},
        "rho": 0.6,
        "open": 5.0,
        "danger": 1.0,
        "drawbase": 3.0,
        "bias": 1.0,
        "denyw": 0.5,
        "option": 0.1,
        "slack": 0.0,
        "extend": 1.0,
        "openstep": 0.0,
        "passmin": 4.0,
    },
    doc="expected-value heuristic: suit projections from the cards seen, safe discards, "
        "denial draws, an endgame that counts the plays left"))
