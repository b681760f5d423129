"""`expert` on the old observation row (``legacy.observation``), for ``search``'s roll-outs only.

A frozen copy of the expert before its port (``lostcards/policies/expert.py``
is the bot; it makes the same decisions with ``ties=suit``).  ``search`` plays
its roll-outs on the old array engine (``legacy.core``) and asks this kernel
for every seat's move there; it goes with ``search`` when the ISMCTS bot
replaces it.  The decision procedure is docs/expert.md's.
"""
import numpy as np
from numba import njit

from lostcards.policies.legacy.core import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from lostcards.policies.legacy.observation import (
    HMAX,
    NSUITS,
    O_CAN_PASS,
    O_DECK,
    O_EXP_COUNT,
    O_EXP_INV,
    O_EXP_MASK,
    O_EXP_SUM,
    O_EXP_TOP,
    O_HAND,
    O_HAND_LEN,
    O_KNOWN,
    O_PILE,
    O_PILE_LEN,
    O_RULES,
    O_SEAT,
    O_SIDE,
    O_STALL,
    O_TURN,
    PMAX,
)
from lostcards.rules.cards import MAX_CODES, SLOTS
from lostcards.rules.ruleset import (
    P_BONUS_CARDS,
    P_BONUS_POINTS,
    P_COST,
    P_DECK,
    P_EXTRA_MASK,
    P_HAND,
    P_INVESTMENTS,
    P_NUMBERS_MASK,
    P_PLAYERS,
    P_STALL,
    P_SUITS,
)

# parameter positions (declaration order of the Policy below)
(K_INVEST, K_ENDGAME, K_SAFETY, K_BONUS, K_DENY, K_PASS,
 K_RHO, K_OPEN, K_DANGER, K_DRAWBASE,
 K_OPEN_HAND, K_INVEST_HAND, K_OPEN_FROM, K_COUNT, K_SKIP_LOW, K_LAST_PLAY, K_BONUS_FROM) = range(17)
INV_NORMAL, INV_EAGER, INV_NEVER, INV_HAND = 0, 1, 2, 3

# fixed weights (docs/expert.md)
RHO_PLAYERS = (0.0, 1.25, 1.0, 0.0, 0.75)   # rho's factor by players (1, 2, 4)
RHO_PARTNER = 0.8     # a card the partner is known to hold, against one still unseen
OPTION = 0.1          # share of its face value a card keeps in a suit not opened
UNSTARTED = 0.15      # danger of a card for a suit the opponent has not opened, per point
INV_DANGER = 6.0      # danger of an investment the opponent could still lay
BONUS_DANGER = 0.5    # share of the bonus counted when a card brings the opponent near it
PLAY_BIAS = 1.0       # a play wins against a discard that costs up to this much less
DENY_WEIGHT = 0.5     # share of a pile card's danger that drawing it saves
DENY_MIN = 8.0        # ... counted only from this danger on
PASS_MIN = 8.0        # 4 players: pass when the cheapest move costs at least this
STALL_RUN = 2         # no discard-and-pile-draw once this many x players such turns ran
LONG_ROUND = 3        # a round this many x deck size turns long draws only off the deck
NEG = -1e18

# scratch layout (float64): per code, then per suit
B_W = 0                        # [code]: expected copies still to reach this side
B_PK = B_W + MAX_CODES         # [code]: copies the partner is known to hold
B_FS = B_PK + MAX_CODES        # [suit*12 + t]: expected sum of those numbers above slot t
B_FC = B_FS + MAX_CODES        # [suit*12 + t]: expected count of them
B_LO = B_FC + MAX_CODES        # [suit]: first hand index of the suit
B_END = B_LO + NSUITS           # [suit]: one past its last hand index
B_VNOW = B_END + NSUITS         # [suit]: projection now
B_HS = B_VNOW + NSUITS         # [suit]: sum of the hand's numbers that can still follow
B_HN = B_HS + NSUITS           # [suit]: how many (copies counted once)
B_HV = B_HN + NSUITS           # [suit]: the hand's investments that can still go down
B_SS = B_HV + NSUITS           # [hand index]: sum of the suit's hand numbers above that card
B_SN = B_SS + HMAX             # [hand index]: how many
B_LEN = B_SN + HMAX


@njit(cache=True, inline="always")
def _ramp(n, bc):
    """Share of the bonus counted for an expected final count n: 0 up to bc-2, 1 from bc."""
    if n >= bc:
        return 1.0
    if n <= bc - 2:
        return 0.0
    return (n - (bc - 2)) * 0.5


@njit(cache=True, inline="always")
def _projection(obs, params, ms, mc, mi, hs, hn, hi, fs, fc, committed, open_margin):
    """(numbers laid + in hand + expected - cost) x (investments + 1) + the bonus's expected share."""
    cost = obs[O_RULES + P_COST]
    hi_used = 0
    if hi > 0:
        mode = params[K_INVEST]
        if mode == INV_EAGER:
            if ms + hs + fs >= cost:
                hi_used = hi
        elif mode != INV_NEVER:                # normal, hand
            if ms + hs >= cost:
                hi_used = hi
    if mc + hn + hi_used == 0 and not committed:
        return 0.0
    v = (ms + hs + fs - cost) * (mi + hi_used + 1)
    if params[K_BONUS] != 0.0 and mi + hi_used >= params[K_BONUS_FROM]:
        v += obs[O_RULES + P_BONUS_POINTS] * _ramp(mc + hn + hi_used + fc, obs[O_RULES + P_BONUS_CARDS])
    if not committed:
        v -= open_margin
        if v < 0.0:
            v = 0.0
    return v


@njit(cache=True, inline="always")
def _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, add, committed, open_margin):
    """Projected final score of this side's expedition of suit s (docs/expert.md, "Projection").

    The expedition holds `mc` cards, numbers summing `ms`, `mi` investments, its
    highest number at slot `top`.  Hand cards of s count when they can still
    follow (hand index `skip` left out, card `add` put in; -1 for none); unseen
    numbers above `top` count at their expected value.  A suit not opened
    (`committed` False) owes `open_margin` and is worth at least 0.
    """
    hs = 0
    hn = 0
    hi = 0
    last = -1
    for i in range(int(buf[B_LO + s]), int(buf[B_END + s])):
        if i == skip:
            continue
        c = obs[O_HAND + i]
        slot = c % SLOTS
        if slot < 3:
            if top == 0:
                hi += 1
        elif slot > top and slot != last:      # a second copy adds nothing
            hs += slot - 1
            hn += 1
            last = slot
    if add >= 0:
        slot = add % SLOTS
        if slot < 3:
            if top == 0:
                hi += 1
        elif slot > top:
            dup = False
            for i in range(int(buf[B_LO + s]), int(buf[B_END + s])):
                if i != skip and obs[O_HAND + i] == add:
                    dup = True
            if not dup:
                hs += slot - 1
                hn += 1
    return _projection(obs, params, ms, mc, mi, hs, hn, hi, buf[B_FS + s * SLOTS + top],
                       buf[B_FC + s * SLOTS + top], committed, open_margin)


@njit(cache=True, inline="always")
def _danger(obs, params, code):
    """What a card on top of its discard pile is worth to the opponent side (docs/expert.md)."""
    if obs[O_RULES + P_PLAYERS] == 1:
        return 0.0
    op = 1 - obs[O_SIDE]
    s = code // SLOTS
    slot = code % SLOTS
    xi = op * NSUITS + s
    ot = obs[O_EXP_TOP + xi]
    oc = obs[O_EXP_COUNT + xi]
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
    d = v * (obs[O_EXP_INV + xi] + 1)
    if params[K_BONUS] != 0.0 and oc + 2 >= obs[O_RULES + P_BONUS_CARDS]:
        d += BONUS_DANGER * obs[O_RULES + P_BONUS_POINTS]
    return d * params[K_DANGER]


@njit(cache=True, inline="always")
def _exp_score(cost, bc, bp, total, inv, cards):
    """An expedition's exact score (bp = 0 leaves the bonus out)."""
    if cards == 0:
        return 0.0
    v = float((total - cost) * (inv + 1))
    if cards >= bc:
        v += bp
    return v


@njit(cache=True)
def _endgame_plan(obs, params, buf, plays):
    """Best set of at most `plays` expedition plays from the hand alone (exact).

    Returns (the card to play first, or -1 if no play gains; the number of plays
    in the best set when plays are not limited).
    """
    h = obs[O_HAND_LEN]
    suits = obs[O_RULES + P_SUITS]
    side = obs[O_SIDE]
    cost = obs[O_RULES + P_COST]
    bc = obs[O_RULES + P_BONUS_CARDS]
    bp = obs[O_RULES + P_BONUS_POINTS] if params[K_BONUS] != 0.0 else 0
    use_inv = params[K_INVEST] != INV_NEVER
    w = h + 1
    lim = plays if plays < h else h
    wl = lim + 1
    # G[s*w + k]: best gain of suit s with exactly k plays; CI: investments among them;
    # T[s]: plays given to suit s in the plan; F/PK: knapsack over suits when plays are short
    G = 0
    CI = suits * w
    T = 2 * suits * w
    F = T + suits
    PK = F + (suits + 1) * wl
    mem = buf[B_LEN:]
    for k in range(T):
        mem[k] = NEG
    n_all = 0
    for s in range(suits):
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        ms = obs[O_EXP_SUM + xi]
        mc = obs[O_EXP_COUNT + xi]
        mi = obs[O_EXP_INV + xi]
        cur = _exp_score(cost, bc, bp, ms, mi, mc)
        lo = int(buf[B_LO + s])
        hi_i = int(buf[B_END + s])
        inv = 0
        if top == 0 and use_inv:
            for i in range(lo, hi_i):
                if obs[O_HAND + i] % SLOTS < 3:
                    inv += 1
        g0 = G + s * w
        mem[g0] = 0.0
        mem[CI + s * w] = 0.0
        # the j highest playable numbers (sum tsum) with a = 0..inv investments
        # (skip_low=off: the j lowest, as a player who lays a suit in order)
        high_first = params[K_SKIP_LOW] != 0.0
        tsum = 0
        j = 0
        last = -1
        i = hi_i - 1 if high_first else lo
        while True:
            for a in range(inv + 1):
                k = a + j
                if k == 0:
                    continue
                val = _exp_score(cost, bc, bp, ms + tsum, mi + a, mc + k) - cur
                if val > mem[g0 + k]:
                    mem[g0 + k] = val
                    mem[CI + s * w + k] = a
            found = False
            while lo <= i < hi_i:
                slot = obs[O_HAND + i] % SLOTS
                i += -1 if high_first else 1
                if slot >= 3 and slot > top and slot != last:
                    last = slot
                    tsum += slot - 1
                    j += 1
                    found = True
                    break
            if not found:
                break
        # with no limit on plays, suits are independent: the smallest best count
        bk = 0
        for k in range(1, inv + j + 1):
            if mem[g0 + k] > mem[g0 + bk] + 1e-9:
                bk = k
        mem[T + s] = bk
        n_all += bk
    if n_all > lim:
        # too few plays: knapsack over suits, at most `lim` plays in all
        for k in range((suits + 1) * wl):
            mem[F + k] = NEG
        mem[F] = 0.0
        for s in range(suits):
            for k in range(wl):
                fk = mem[F + s * wl + k]
                if fk == NEG:
                    continue
                for t in range(wl - k):
                    gt = mem[G + s * w + t]
                    if gt == NEG:
                        continue
                    if fk + gt > mem[F + (s + 1) * wl + k + t]:
                        mem[F + (s + 1) * wl + k + t] = fk + gt
                        mem[PK + (s + 1) * wl + k + t] = t
        best = NEG
        kb = 0
        for k in range(wl):
            if mem[F + suits * wl + k] > best + 1e-9:
                best = mem[F + suits * wl + k]
                kb = k
        for s in range(suits - 1, -1, -1):
            t = int(mem[PK + (s + 1) * wl + kb]) if kb > 0 else 0
            mem[T + s] = t
            kb -= t
    # the suit whose share gains most goes first, with its lowest card of the plan
    first = -1
    first_gain = 0.0
    for s in range(suits):
        t = int(mem[T + s])
        if t == 0 or mem[G + s * w + t] <= first_gain:
            continue
        top = obs[O_EXP_TOP + side * NSUITS + s]
        lo = int(buf[B_LO + s])
        hi_i = int(buf[B_END + s])
        card = -1
        if mem[CI + s * w + t] > 0:
            for i in range(lo, hi_i):
                if obs[O_HAND + i] % SLOTS < 3:
                    card = obs[O_HAND + i]
                    break
        elif params[K_SKIP_LOW] == 0.0:
            # the lowest playable number (the plan lays the suit from the bottom)
            for i in range(lo, hi_i):
                slot = obs[O_HAND + i] % SLOTS
                if slot >= 3 and slot > top:
                    card = obs[O_HAND + i]
                    break
        else:
            # the lowest of the t highest playable numbers
            last = -1
            cnt = 0
            for i in range(hi_i - 1, lo - 1, -1):
                slot = obs[O_HAND + i] % SLOTS
                if slot >= 3 and slot > top and slot != last:
                    last = slot
                    cnt += 1
                    card = obs[O_HAND + i]
                    if cnt == t:
                        break
        if card >= 0:
            first = card
            first_gain = mem[G + s * w + t]
    return first, n_all


@njit(cache=True, inline="always")
def _count_cards(obs, buf, rho):
    """Fill B_W/B_PK/B_FS/B_FC and the hand's suit ranges (docs/expert.md, "Counting")."""
    players = obs[O_RULES + P_PLAYERS]
    suits = obs[O_RULES + P_SUITS]
    nmask = obs[O_RULES + P_NUMBERS_MASK]
    emask = obs[O_RULES + P_EXTRA_MASK]
    ninv = obs[O_RULES + P_INVESTMENTS]
    seat = obs[O_SEAT]
    side = obs[O_SIDE]
    h = obs[O_HAND_LEN]
    # copies of each slot in a suit: investments, numbers, with 4 players the extra low ones
    full = ((1 << ninv) - 1) | nmask
    extra = emask & nmask if players == 4 else 0
    for s in range(suits):
        mm = obs[O_EXP_MASK + side * NSUITS + s]
        om = obs[O_EXP_MASK + (1 - side) * NSUITS + s] if players > 1 else 0
        for slot in range(SLOTS):
            buf[B_W + s * SLOTS + slot] = (((full >> slot) & 1) + ((extra >> slot) & 1)
                                           - ((mm >> slot) & 1) - ((om >> slot) & 1))
            buf[B_PK + s * SLOTS + slot] = 0.0
        for k in range(obs[O_PILE_LEN + s]):
            buf[B_W + obs[O_PILE + s * PMAX + k]] -= 1.0
        buf[B_LO + s] = 0.0
        buf[B_END + s] = 0.0
    prev = -1
    for i in range(h):
        c = obs[O_HAND + i]
        buf[B_W + c] -= 1.0
        s = c // SLOTS
        if s != prev:
            buf[B_LO + s] = i
            prev = s
        buf[B_END + s] = i + 1
    # cards not seen: the deck minus the hand, the expeditions, the piles and the known cards
    unseen = obs[O_RULES + P_DECK] - h
    played = obs[O_TURN]
    for s in range(suits):
        unseen -= obs[O_EXP_COUNT + s] + obs[O_PILE_LEN + s]
        if players > 1:
            unseen -= obs[O_EXP_COUNT + NSUITS + s]
        else:
            played -= obs[O_EXP_COUNT + s]
    if players == 1:
        # solitaire discards leave the game unseen by the observation: one a turn
        # that laid nothing (which ones is not known, so they still count per card)
        unseen -= played
    else:
        partner = (seat + 2) % 4 if players == 4 else -1
        for o in range(players):
            if o == seat:
                continue
            base = O_KNOWN + o * MAX_CODES
            for code in range(suits * SLOTS):
                kn = obs[base + code]
                if kn > 0:
                    buf[B_W + code] -= kn
                    unseen -= kn
                    if o == partner:
                        buf[B_PK + code] += kn
    deck = obs[O_DECK]
    share = deck if players == 1 else 0.5 * deck        # this side draws half the deck
    pr = share / unseen if unseen > 0 else 0.0
    if pr > 1.0:
        pr = 1.0
    for s in range(suits):
        fs = 0.0
        fc = 0.0
        for t in range(SLOTS - 1, -1, -1):
            code = s * SLOTS + t
            buf[B_FS + code] = fs
            buf[B_FC + code] = fc
            u = buf[B_W + code]
            wt = rho * (pr * (u if u > 0.0 else 0.0) + RHO_PARTNER * buf[B_PK + code])
            buf[B_W + code] = wt
            if t >= 3:
                fs += wt * (t - 1)
                fc += wt


@njit(cache=True)
def expert_policy(obs, params, rng):
    """Expected-value heuristic; docs/expert.md lists its decisions in priority order."""
    players = obs[O_RULES + P_PLAYERS]
    suits = obs[O_RULES + P_SUITS]
    side = obs[O_SIDE]
    deck = obs[O_DECK]
    h = obs[O_HAND_LEN]

    # 1. counting
    # one allocation: the scratch layout, then room for the endgame's tables
    buf = np.empty(B_LEN + (4 * suits + 3) * (h + 1) + suits)
    _count_cards(obs, buf, params[K_RHO] * RHO_PLAYERS[players])
    open_margin = params[K_OPEN]
    for s in range(suits):
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        mc = obs[O_EXP_COUNT + xi]
        # the hand's cards of s that can still follow, and above each card the sum of the rest
        hs = 0
        hn = 0
        hi = 0
        last = -1
        for i in range(int(buf[B_END + s]) - 1, int(buf[B_LO + s]) - 1, -1):
            slot = obs[O_HAND + i] % SLOTS
            if slot == last:
                buf[B_SS + i] = buf[B_SS + i + 1]
                buf[B_SN + i] = buf[B_SN + i + 1]
                continue
            if slot >= 3:
                if slot > top:
                    buf[B_SS + i] = hs
                    buf[B_SN + i] = hn
                    hs += slot - 1
                    hn += 1
                last = slot
            elif top == 0:
                hi += 1
        buf[B_HS + s] = hs
        buf[B_HN + s] = hn
        buf[B_HV + s] = hi
        buf[B_VNOW + s] = _projection(obs, params, obs[O_EXP_SUM + xi], mc, obs[O_EXP_INV + xi],
                                      hs, hn, hi, buf[B_FS + s * SLOTS + top],
                                      buf[B_FC + s * SLOTS + top], mc > 0, open_margin)

    # 2. endgame: the plays left are no more than the plays worth making
    card = -1
    to = TO_EXPEDITION
    extend = False
    endgame = False
    if params[K_ENDGAME] != 0.0:
        # count=off: the endgame waits for the last play; last_play=off: the last play is
        # decided like any other (step 2)
        if players == 1:
            last = h == 1
            if deck == 0 and ((not last and params[K_COUNT] != 0.0) or (last and params[K_LAST_PLAY] != 0.0)):
                endgame = True
                card, n_all = _endgame_plan(obs, params, buf, h)
        else:
            plays_left = (deck + players - 1) // players
            last = plays_left == 1
            if plays_left <= h and ((not last and params[K_COUNT] != 0.0)
                                    or (last and params[K_LAST_PLAY] != 0.0)):
                first, n_all = _endgame_plan(obs, params, buf, plays_left)
                slack = 1 if players == 2 else 0
                if n_all >= plays_left - slack:
                    endgame = True
                    card = first
                    extend = players == 2 and n_all > plays_left

    # 3. the cheapest play and the cheapest discard
    best_play = -1
    play_loss = 1e18
    best_disc = -1
    disc_cost = 1e18
    safety = params[K_SAFETY] != 0.0
    cost_rule = obs[O_RULES + P_COST]
    for i in range(h):
        c = obs[O_HAND + i]
        if i > 0 and obs[O_HAND + i - 1] == c:
            continue                      # a copy: the same evaluation
        s = c // SLOTS
        slot = c % SLOTS
        xi = side * NSUITS + s
        top = obs[O_EXP_TOP + xi]
        ms = obs[O_EXP_SUM + xi]
        mc = obs[O_EXP_COUNT + xi]
        mi = obs[O_EXP_INV + xi]
        live = (slot >= 3 and slot > top) or (slot < 3 and top == 0)
        cost = 0.0
        if live:
            hs = buf[B_HS + s]
            hn = buf[B_HN + s]
            hi = buf[B_HV + s]
            fs = buf[B_FS + s * SLOTS + top]
            fc = buf[B_FC + s * SLOTS + top]
            dup = i + 1 < h and obs[O_HAND + i + 1] == c
            # investments: weighed like any play, except under `never` and, under `hand`,
            # while the numbers in hand (and laid) do not cover the cost
            if slot < 3:
                mode = params[K_INVEST]
                allowed = (mode != INV_NEVER and (mode != INV_HAND or ms + hs >= cost_rule)
                           and ms + hs >= params[K_INVEST_HAND])
            else:
                allowed = True
            if mc == 0 and (hs < params[K_OPEN_HAND] or obs[O_TURN] < params[K_OPEN_FROM]):
                allowed = False           # switches: open only on enough in hand / from a turn on
            if not endgame and allowed:
                if slot >= 3:
                    after = _projection(obs, params, ms + slot - 1, mc + 1, mi, buf[B_SS + i],
                                        buf[B_SN + i], 0, buf[B_FS + s * SLOTS + slot],
                                        buf[B_FC + s * SLOTS + slot], True, 0.0)
                else:
                    after = _projection(obs, params, ms, mc + 1, mi + 1, hs, hn, hi - 1, fs, fc,
                                        True, 0.0)
                if mc == 0:
                    after -= open_margin
                loss = buf[B_VNOW + s] - after
                if loss < play_loss:
                    play_loss = loss
                    best_play = c
            # what the hand loses without this card (a copy of it stays: nothing)
            if slot < 3:
                without = _projection(obs, params, ms, mc, mi, hs, hn, hi - 1, fs, fc, mc > 0,
                                      open_margin)
            elif dup:
                without = buf[B_VNOW + s]
            else:
                without = _projection(obs, params, ms, mc, mi, hs - (slot - 1), hn - 1, hi, fs, fc,
                                      mc > 0, open_margin)
            keep = buf[B_VNOW + s] - without
            if keep > 0.0:
                cost = keep
            if mc == 0:
                cost += OPTION * (slot - 1 if slot >= 3 else 5)
        if safety:
            cost += _danger(obs, params, c)
        if cost < disc_cost:
            disc_cost = cost
            best_disc = c

    if not endgame:
        if best_play >= 0 and play_loss <= disc_cost + PLAY_BIAS:
            card = best_play
        else:
            card = best_disc
            to = TO_DISCARD
            # 4. four players: pass instead of a costly discard
            if (players == 4 and obs[O_CAN_PASS] == 1 and params[K_PASS] != 0.0
                    and h <= obs[O_RULES + P_HAND] and disc_cost >= PASS_MIN
                    and obs[O_TURN] < 2 * obs[O_RULES + P_DECK]):
                return _pass_pair(obs, params, buf)
    elif card < 0:
        card = best_disc
        to = TO_DISCARD

    if players == 1:
        return make_play(card, to, DRAW_NONE)
    # 5. the draw
    return make_play(card, to, _draw(obs, params, buf, card, to, extend))


@njit(cache=True)
def _pass_pair(obs, params, buf):
    """The two cards whose discard would cost most: the partner keeps them for the side."""
    h = obs[O_HAND_LEN]
    side = obs[O_SIDE]
    b1 = -1
    v1 = NEG
    b2 = -1
    v2 = NEG
    for i in range(h):
        c = obs[O_HAND + i]
        s = c // SLOTS
        xi = side * NSUITS + s
        mc = obs[O_EXP_COUNT + xi]
        v = buf[B_VNOW + s] - _suit_value(obs, buf, params, s, obs[O_EXP_TOP + xi], obs[O_EXP_SUM + xi],
                                          mc, obs[O_EXP_INV + xi], i, -1, mc > 0, params[K_OPEN])
        v += _danger(obs, params, c)
        if v > v1:
            b2, v2 = b1, v1
            b1, v1 = i, v
        elif v > v2:
            b2, v2 = i, v
    return make_pass(obs[O_HAND + b1], obs[O_HAND + b2])


@njit(cache=True)
def _draw(obs, params, buf, card, to, extend):
    """The deck, or the discard pile whose top adds most to this side (docs/expert.md, "Draw")."""
    suits = obs[O_RULES + P_SUITS]
    players = obs[O_RULES + P_PLAYERS]
    side = obs[O_SIDE]
    stall = obs[O_STALL]
    played = card // SLOTS
    # never stall: after a run of discard-and-pile-draw turns, in a very long round,
    # or when this turn would end the round by the stall limit, take the deck
    if to == TO_DISCARD and stall >= STALL_RUN * players:
        return DRAW_DECK
    if obs[O_TURN] >= LONG_ROUND * obs[O_RULES + P_DECK]:
        return DRAW_DECK
    limit = obs[O_RULES + P_STALL]
    if to == TO_DISCARD and limit > 0 and stall + 1 >= limit * players:
        return DRAW_DECK
    deck = obs[O_DECK]
    late = (deck + players - 1) // players <= obs[O_RULES + P_HAND]
    deny = params[K_DENY] != 0.0 and late
    open_margin = params[K_OPEN]
    best = DRAW_DECK
    best_v = NEG if extend else params[K_DRAWBASE]
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
        if s == played:
            for i in range(int(buf[B_LO + s]), int(buf[B_END + s])):
                if obs[O_HAND + i] == card:
                    skip = i
                    break
            if to == TO_EXPEDITION:            # the expedition after this turn's play
                mc += 1
                if card % SLOTS >= 3:
                    top = card % SLOTS
                    ms += card % SLOTS - 1
                else:
                    mi += 1
        cs = c % SLOTS
        v = 0.0
        if (cs >= 3 and cs > top) or (cs < 3 and top == 0):     # else it adds nothing here
            v = _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, c, mc > 0, open_margin)
            if s == played:
                v -= _suit_value(obs, buf, params, s, top, ms, mc, mi, skip, -1, mc > 0, open_margin)
            else:
                v -= buf[B_VNOW + s]
        if deny:
            d = _danger(obs, params, c)
            if d >= DENY_MIN:
                v += DENY_WEIGHT * d
        if v > best_v:
            best_v = v
            best = 1 + s
    return best


from lostcards.policies import Choice, Float, Int, Policy, Switch  # noqa: E402

PARAMETERS = {
        "invest": Choice({"normal": INV_NORMAL, "eager": INV_EAGER, "never": INV_NEVER, "hand": INV_HAND}),
        "endgame": Switch("on"),
        "safety": Switch("on"),
        "bonus": Switch("on"),
        "deny": Switch("on"),
        "pass": Switch("on"),
        "rho": Float(0.8, 0, 5, "weight of an unseen card's expected value"),
        "open": Float(5.0, -100, 100, "points a projection must clear to open a suit"),
        "danger": Float(1.0, 0, 10, "weight of the danger term"),
        "drawbase": Float(3.0, -100, 100, "points a deck draw is worth, against a pile card"),
        "open_hand": Float(0.0, 0, 200, "points of a suit's numbers in hand needed to open it"),
        "invest_hand": Float(0.0, 0, 200, "points of a suit's numbers in hand and laid needed to invest"),
        "open_from": Int(0, 0, 100_000, "the turn of the round before which no expedition is opened"),
        "count": Switch("on"),
        "skip_low": Switch("on"),
        "last_play": Switch("on"),
        "bonus_from": Int(0, 0, 4, "investments a projection needs before the bonus counts (4: never)"),
}
# not registered: ``search``'s roll-outs call expert_policy with these defaults
EXPERT = Policy("expert-legacy", expert_policy, parameters=PARAMETERS,
                doc="today's expert on the old observation row, for search's roll-outs")
