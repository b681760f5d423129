"""The `expert` policy: expected values from the cards seen.

``docs/expert.md`` lists the decision procedure in priority order, branch for
branch with this code.  In short: every suit gets a *projection*, the score
its expedition is expected to reach from the numbers already laid, the numbers
in hand that can still follow and the cards still unseen that could still come
(each weighted by the chance that it reaches this side), under the ruleset's
cost, multiplier and bonus.  A play costs what it takes off its suit's
projection (the cards it skips); a discard costs what the card adds to the
projection plus what it is worth to the opponent on top of its pile.  The
cheaper move wins.  When the plays left (deck / players, plus pile draws) are
no more than the plays worth making, an exact knapsack over the hand picks
what scores now, since cards left in hand score nothing.

Speed: the hand, the expeditions and what is unseen are 12-bit lanes, one a
suit (sums and counts by table and popcount); the per-suit tables live in
stack buffers (``scratch``), so a decision allocates nothing and touches no
reference-counted array.  Every ruleset parameter is read from the
observation; nothing assumes a preset.  The parameters are listed in
docs/expert.md.
"""
from lostcards.engine.bits import highest, kth_bit, lowest, popcount
from lostcards.engine.core import lane_sum, score_of
from lostcards.engine.intrinsics import stack_floats, stack_words
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_pass, make_play
from lostcards.engine.observation import (
    INVESTMENT_SLOTS,
    LANE,
    RULE_BONUS_CARDS,
    RULE_BONUS_POINTS,
    RULE_COST,
    RULE_EXTRA,
    RULE_HAND_SIZE,
    RULE_INVESTMENTS,
    RULE_NUMBERS,
    RULE_STALL_LIMIT,
    below,
    can_pass,
    card_of,
    count,
    deck_size,
    expedition_cards,
    hand_cards,
    hand_doubles,
    has,
    known,
    known2,
    kth_card,
    kth_of_hand,
    lane,
    legal_draws,
    pile_entry,
    pile_lane,
    pile_top,
    pile_words,
    players,
    rule,
    rule2,
    seat,
    side,
    slot_of,
    stall_count,
    suit_of,
    suits,
    top_slot,
)
from lostcards.numba_cache import jit
from lostcards.rules.cards import SLOTS

# parameter positions (declaration order of the Policy below)
(K_INVEST, K_ENDGAME, K_SAFETY, K_BONUS, K_DENY, K_PASS,
 K_RHO, K_OPEN, K_DANGER, K_DRAWBASE,
 K_OPEN_HAND, K_INVEST_HAND, K_OPEN_FROM, K_COUNT, K_SKIP_LOW, K_LAST_PLAY, K_BONUS_FROM,
 K_PASS_AT, K_TIES) = range(19)
INV_NORMAL, INV_EAGER, INV_NEVER, INV_HAND = 0, 1, 2, 3
PASS_OFF, PASS_ON, PASS_PAYS = 0, 1, 2
TIES_SUIT, TIES_RANDOM = 0, 1

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
PASS_PAYS_AT = 8.0    # pass=pays: the default of pass_at (measured: docs/expert.md, step 3)
STALL_RUN = 2         # no discard-and-pile-draw once this many x players such turns ran
LONG_ROUND = 3        # a round this many x deck size turns long draws only off the deck
NEG = -1e18
INEG = -(1 << 60)     # the endgame's integer "impossible"

NS = 6                # suits a table has room for
REP_LO = sum(1 << (SLOTS * s) for s in range(5))      # a lane times this: the lane in every suit of a set's first word

# the per-suit words (stack, int64): [field * NS + suit]
(W_TOP, W_MS, W_MC, W_MI, W_HAND, W_HAND2, W_OTOP, W_OC, W_OI, W_HS, W_HN, W_HV,
 W_U1, W_U2, W_PK1, W_PK2) = (NS * i for i in range(16))
W_LEN = 16 * NS
# the per-suit numbers (stack, float64): expected sum / count of unseen numbers above slot t,
# suit-minor so the counting loop (vectorized over suits) stores whole vectors, not scatters
F_FS = 0                       # [t * NS + suit]
F_FC = F_FS + NS * SLOTS       # [t * NS + suit]
F_VNOW = F_FC + NS * SLOTS     # [suit]: projection now
F_LEN = F_VNOW + NS
# the endgame's tables (stack, int64)
G_W = 16                       # plays a suit can take: at most 3 investments + 12 numbers
E_G = 0                        # [suit * G_W + k]: best gain of the suit with exactly k plays
E_CI = E_G + NS * G_W          # [suit * G_W + k]: investments among them
E_T = E_CI + NS * G_W          # [suit]: plays given to the suit in the plan
E_WL = 80                      # knapsack width: plays + 1 (at most 6 x 12 + 1 matter)
E_KM = E_T + NS                # [suit]: the most plays the suit can take
E_F = E_KM + NS                # [(suit + 1) * E_WL + k]: best total with k plays
E_PK = E_F + (NS + 1) * E_WL   # [(suit + 1) * E_WL + k]: the suit's share of it
E_LEN = E_PK + (NS + 1) * E_WL
E_TS = SLOTS + 1               # [j]: the sum of a suit's j playable numbers the plan lays first


@jit(inline=True)
def _above(t):
    """The slots above slot t, as a lane."""
    return LANE & ~((2 << t) - 1)


@jit(inline=True)
def _take(c1, c2, m):
    """A multiset of lanes (c1: at least one copy, c2: two) less one copy of each slot of m."""
    return c1 & ~(m & ~c2), c2 & ~m


@jit(inline=True)
def _ramp(n, bc):
    """Share of the bonus counted for an expected final count n: 0 up to bc-2, 1 from bc."""
    return min(max((n - (bc - 2)) * 0.5, 0.0), 1.0)      # selects, not branches


@jit(inline=True)
def _projection(params, cost, bc, bp, ms, mc, mi, hs, hn, hi, fs, fc, committed, open_margin):
    """(numbers laid + in hand + expected - cost) x (investments + 1) + the bonus's expected share."""
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
        v += bp * _ramp(mc + hn + hi_used + fc, bc)
    if not committed:
        v -= open_margin
        if v < 0.0:
            v = 0.0
    return v


@jit(inline=True)
def _suit_value(params, wb, fb, cost, bc, bp, nums, s, top, ms, mc, mi, skip, add, committed, open_margin):
    """Projected final score of this side's expedition of suit s (docs/expert.md, "Projection").

    The expedition holds `mc` cards, numbers summing `ms`, `mi` investments, its
    highest number at slot `top`.  Hand cards of s count when they can still
    follow (one copy of card `skip` left out, card `add` put in; -1 for none);
    unseen numbers above `top` count at their expected value.  A suit not opened
    (`committed` False) owes `open_margin` and is worth at least 0.
    """
    hl = wb[W_HAND + s]
    if skip >= 0 and (wb[W_HAND2 + s] >> (slot_of(skip))) & 1 == 0:
        hl &= ~(1 << (slot_of(skip)))
    live = hl & nums & _above(top)
    hs = lane_sum(live)
    hn = popcount(live)
    hi = popcount(hl & INVESTMENT_SLOTS) if top == 0 else 0
    if add >= 0:
        slot = slot_of(add)
        if slot < 3:
            if top == 0:
                hi += 1
        elif slot > top and (hl >> slot) & 1 == 0:     # a second copy adds nothing
            hs += slot - 1
            hn += 1
    return _projection(params, cost, bc, bp, ms, mc, mi, hs, hn, hi, fb[F_FS + top * NS + s],
                       fb[F_FC + top * NS + s], committed, open_margin)


@jit(inline=True)
def _danger(params, wb, players, bc, bp, code):
    """What a card on top of its discard pile is worth to the opponent side (docs/expert.md)."""
    if players == 1:
        return 0.0
    s = suit_of(code)
    slot = slot_of(code)
    ot = wb[W_OTOP + s]
    oc = wb[W_OC + s]
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
    d = v * (wb[W_OI + s] + 1)
    if params[K_BONUS] != 0.0 and oc + 2 >= bc:
        d += BONUS_DANGER * bp
    return d * params[K_DANGER]


@jit
def _endgame_plan(params, wb, suits, cost, bc, bp, nums, plays, h, rng):
    """Best set of at most `plays` expedition plays from the hand alone (exact, in whole points).

    Returns (the card to play first, or -1 if no play gains; the number of plays
    in the best set when plays are not limited).
    """
    mem = stack_words(E_LEN)
    tsum = stack_words(E_TS)
    use_inv = params[K_INVEST] != INV_NEVER
    high_first = params[K_SKIP_LOW] != 0.0
    lim = plays if plays < h else h
    wl = lim + 1
    n_all = 0
    for s in range(suits):
        top = wb[W_TOP + s]
        ms = wb[W_MS + s]
        mc = wb[W_MC + s]
        mi = wb[W_MI + s]
        cur = score_of(ms, mi, mc, cost, bc, bp)
        hl = wb[W_HAND + s]
        inv = popcount(hl & INVESTMENT_SLOTS) if top == 0 and use_inv else 0
        live = hl & nums & _above(top)
        g0 = E_G + s * G_W
        mem[g0] = 0
        mem[E_CI + s * G_W] = 0
        n = popcount(live)
        km = inv + n
        mem[E_KM + s] = km
        # tsum[j]: the j highest playable numbers' sum (skip_low=off: the j lowest, as a player
        # who lays a suit in order)
        tsum[0] = 0
        rest = live
        for j in range(1, n + 1):
            slot = highest(rest) if high_first else lowest(rest)
            rest &= ~(1 << slot)
            tsum[j] = tsum[j - 1] + slot - 1
        # k plays: j numbers and a = k - j investments; of equal gains the fewest numbers (the
        # order of a scan by numbers, then investments); the best and its count stay in
        # registers, chosen by selects; with no limit on plays, suits are independent: the
        # smallest best count
        bk = 0
        bg = 0
        for k in range(1, km + 1):
            best = INEG
            ba = 0
            for a in range(min(inv, k), max(k - n, 0) - 1, -1):
                val = score_of(ms + tsum[k - a], mi + a, mc + k, cost, bc, bp) - cur
                better = val > best
                best = val if better else best
                ba = a if better else ba
            mem[g0 + k] = best
            mem[E_CI + s * G_W + k] = ba
            more = best > bg
            bg = best if more else bg
            bk = k if more else bk
        mem[E_T + s] = bk
        n_all += bk
    if n_all > lim:
        # too few plays: knapsack over suits, at most `lim` plays in all; row i is suit
        # (i + off) mod suits: a tie goes to the suits taken first, so ties=random starts the
        # rows at a random suit
        off = below(rng, suits) if params[K_TIES] == TIES_RANDOM else 0
        for k in range((suits + 1) * wl):
            mem[E_F + k] = INEG
        mem[E_F] = 0
        for i in range(suits):
            s = i + off - suits if i + off >= suits else i + off
            km = mem[E_KM + s]
            # cell c of row i + 1: the best row-i cell k plus t = c - k plays of suit s, the
            # smallest k keeping a tie; each cell in a register, stored once (no store to
            # load back in the loop)
            for c in range(wl):
                best = INEG
                bt = 0
                for k in range(c - km if c > km else 0, c + 1):
                    fk = mem[E_F + i * wl + k]
                    if fk != INEG and fk + mem[E_G + s * G_W + c - k] > best:
                        best = fk + mem[E_G + s * G_W + c - k]
                        bt = c - k
                mem[E_F + (i + 1) * wl + c] = best
                if best != INEG:
                    mem[E_PK + (i + 1) * wl + c] = bt
        best = INEG
        kb = 0
        for k in range(wl):
            if mem[E_F + suits * wl + k] > best:
                best = mem[E_F + suits * wl + k]
                kb = k
        for i in range(suits - 1, -1, -1):
            s = i + off - suits if i + off >= suits else i + off
            t = mem[E_PK + (i + 1) * wl + kb] if kb > 0 else 0
            mem[E_T + s] = t
            kb -= t
    # the suit whose share gains most goes first, with its lowest card of the plan
    first = -1
    first_gain = 0
    ties = 1
    for s in range(suits):
        t = mem[E_T + s]
        g = mem[E_G + s * G_W + t]
        if t == 0 or g < first_gain:
            continue
        # ties=suit: the lower suit keeps a tie; ties=random: each tied suit as likely
        tie = g == first_gain
        if tie and (first < 0 or params[K_TIES] == TIES_SUIT):
            continue
        hl = wb[W_HAND + s]
        live = hl & nums & _above(wb[W_TOP + s])
        card = -1
        if mem[E_CI + s * G_W + t] > 0:
            if hl & INVESTMENT_SLOTS:
                card = card_of(s, lowest(hl & INVESTMENT_SLOTS))
        elif live != 0:
            if not high_first:
                card = card_of(s, lowest(live))        # the plan lays the suit from the bottom
            else:                                       # the lowest of the t highest
                n = popcount(live)
                card = card_of(s, kth_bit(live, n - t if t <= n else 0))
        if card >= 0:
            if tie:
                ties += 1
                if below(rng, ties) != 0:
                    continue
            else:
                ties = 1
            first = card
            first_gain = g
    return first, n_all


@jit(inline=True)
def _count_cards(obs, wb, fb, rho, nums, full, extra, n_deck, h):
    """Fill the per-suit lanes and the expected numbers to come (docs/expert.md, "Counting")."""
    p = players(obs)
    n_suits = suits(obs)
    me = seat(obs)
    sd = side(obs)
    once = hand_cards(obs)
    twice = hand_doubles(obs)
    unseen = n_deck - h
    # copies of each slot not seen: the deck's, less hand, expeditions, known cards (piles
    # below), taken from every suit at once: a card set's words hold the suits' lanes side by
    # side and taking copies is bitwise, so one pass over the two words serves every lane
    x0w = expedition_cards(obs, sd)
    x1w = expedition_cards(obs, 1 - sd) if p > 1 else (obs.exp0 & 0, obs.exp0_hi & 0)
    u1a, u2a = _take(full * REP_LO, extra * REP_LO, once[0])
    u1b, u2b = _take(full, extra, once[1])
    u1a, u2a = _take(u1a, u2a, twice[0])
    u1b, u2b = _take(u1b, u2b, twice[1])
    u1a, u2a = _take(u1a, u2a, x0w[0])
    u1b, u2b = _take(u1b, u2b, x0w[1])
    u1a, u2a = _take(u1a, u2a, x1w[0])
    u1b, u2b = _take(u1b, u2b, x1w[1])
    mine = count(x0w)
    unseen -= mine + count(x1w)
    pka = 0
    pkb = 0
    pk2a = 0
    pk2b = 0
    for o in range(1, p):                        # the cards known in other hands
        q = (me + o) & (p - 1)           # players: 1, 2 or 4 (no division)
        k1 = known(obs, q)
        k2 = known2(obs, q)
        unseen -= count(k1) + count(k2)
        u1a, u2a = _take(u1a, u2a, k1[0])
        u1b, u2b = _take(u1b, u2b, k1[1])
        u1a, u2a = _take(u1a, u2a, k2[0])
        u1b, u2b = _take(u1b, u2b, k2[1])
        if o == 2:                       # the partner (4 players)
            pka, pkb = k1
            pk2a, pk2b = k2
    for s in range(n_suits):
        x0 = lane(x0w, s)
        x1 = lane(x1w, s)
        hl = lane(once, s)
        wb[W_HAND + s] = hl
        wb[W_HAND2 + s] = lane(twice, s)
        u1 = lane((u1a, u1b), s)
        u2 = lane((u2a, u2b), s)
        pk1 = lane((pka, pkb), s)
        pk2 = lane((pk2a, pk2b), s)
        mc0 = popcount(x0)
        lo, hi = pile_words(obs, s)
        if extra == 0:
            # no second copies: a pile holds each slot at most once, 12 entries in its first word,
            # turned into a lane without a branch (entry e is slot e - 1; 0 is no card)
            pm = pile_lane(lo)
            u1 &= ~pm
            unseen -= popcount(pm)
        else:
            for k in range(32):
                e = pile_entry(lo, hi, k)
                if e == 0:
                    break
                u1, u2 = _take(u1, u2, 1 << (e - 1))
                unseen -= 1
        wb[W_U1 + s] = u1
        wb[W_U2 + s] = u2
        wb[W_PK1 + s] = pk1
        wb[W_PK2 + s] = pk2
        wb[W_TOP + s] = top_slot(x0)
        wb[W_MS + s] = lane_sum(x0)
        wb[W_MC + s] = mc0
        wb[W_MI + s] = popcount(x0 & INVESTMENT_SLOTS)
        wb[W_OTOP + s] = top_slot(x1)
        wb[W_OC + s] = popcount(x1)
        wb[W_OI + s] = popcount(x1 & INVESTMENT_SLOTS)
    if p == 1:
        # solitaire discards leave the game unseen by the observation: one a turn
        # that laid nothing (which ones is not known, so they still count per card)
        unseen -= obs.turn - mine
    deck = deck_size(obs)
    share = deck if p == 1 else 0.5 * deck        # this side draws half the deck
    pr = share / unseen if unseen > 0 else 0.0
    if pr > 1.0:
        pr = 1.0
    for s in range(n_suits):
        u1 = wb[W_U1 + s]
        u2 = wb[W_U2 + s]
        pk1 = wb[W_PK1 + s]
        pk2 = wb[W_PK2 + s]
        fs = 0.0
        fc = 0.0
        for t in range(SLOTS - 1, 2, -1):
            fb[F_FS + t * NS + s] = fs
            fb[F_FC + t * NS + s] = fc
            u = float(((u1 >> t) & 1) + ((u2 >> t) & 1))
            pk = float(((pk1 >> t) & 1) + ((pk2 >> t) & 1))
            wt = rho * (pr * u + RHO_PARTNER * pk)
            fs += wt * (t - 1)
            fc += wt
        for t in range(3):
            fb[F_FS + t * NS + s] = fs
            fb[F_FC + t * NS + s] = fc


@jit
def expert_policy(obs, params, mem):
    """Expected-value heuristic; docs/expert.md lists its decisions in priority order."""
    p = players(obs)
    n_suits = suits(obs)
    deck = deck_size(obs)
    cost = rule(obs, RULE_COST)
    bc = rule(obs, RULE_BONUS_CARDS)
    bp = rule(obs, RULE_BONUS_POINTS)
    nums = rule2(obs, RULE_NUMBERS)
    extra = rule2(obs, RULE_EXTRA) & nums if p == 4 else 0
    full = ((1 << rule(obs, RULE_INVESTMENTS)) - 1) | nums
    n_deck = n_suits * (popcount(full) + popcount(extra))
    once = hand_cards(obs)
    twice = hand_doubles(obs)
    n_once = count(once)
    h = n_once + count(twice)
    wb = stack_words(W_LEN)
    fb = stack_floats(F_LEN)

    # 1. counting
    _count_cards(obs, wb, fb, params[K_RHO] * RHO_PLAYERS[p], nums, full, extra, n_deck, h)
    open_margin = params[K_OPEN]
    for s in range(n_suits):
        top = wb[W_TOP + s]
        mc = wb[W_MC + s]
        hl = wb[W_HAND + s]
        # the hand's numbers of s that can still follow (each value once), its investments
        live = hl & nums & _above(top)
        hs = lane_sum(live)
        hn = popcount(live)
        hi = popcount(hl & INVESTMENT_SLOTS) if top == 0 else 0
        wb[W_HS + s] = hs
        wb[W_HN + s] = hn
        wb[W_HV + s] = hi
        fb[F_VNOW + s] = _projection(params, cost, bc, bp, wb[W_MS + s], mc, wb[W_MI + s], hs, hn, hi,
                                     fb[F_FS + top * NS + s], fb[F_FC + top * NS + s], mc > 0,
                                     open_margin)

    # 2. endgame: the plays left are no more than the plays worth making
    card = -1
    to = TO_EXPEDITION
    extend = False
    endgame = False
    if params[K_ENDGAME] != 0.0:
        # count=off: the endgame waits for the last play; last_play=off: the last play is
        # decided like any other (step 2)
        if p == 1:
            last = h == 1
            if deck == 0 and ((not last and params[K_COUNT] != 0.0) or (last and params[K_LAST_PLAY] != 0.0)):
                endgame = True
                card, n_all = _endgame_plan(params, wb, n_suits, cost, bc,
                                            bp if params[K_BONUS] != 0.0 else 0, nums, h, h, mem)
        else:
            plays_left = (deck + p - 1) >> (p >> 1)       # / p, rounded up (p: 1, 2 or 4)
            last = plays_left == 1
            if plays_left <= h and ((not last and params[K_COUNT] != 0.0)
                                    or (last and params[K_LAST_PLAY] != 0.0)):
                first, n_all = _endgame_plan(params, wb, n_suits, cost, bc,
                                             bp if params[K_BONUS] != 0.0 else 0, nums, plays_left, h, mem)
                slack = 1 if p == 2 else 0
                if n_all >= plays_left - slack:
                    endgame = True
                    card = first
                    extend = p == 2 and n_all > plays_left

    # 3. the cheapest play and the cheapest discard
    best_play = -1
    play_loss = 1e18
    best_disc = -1
    disc_cost = 1e18
    safety = params[K_SAFETY] != 0.0
    mode = params[K_INVEST]
    blind = params[K_TIES] == TIES_RANDOM
    play_ties = 0
    disc_ties = 0
    for i in range(n_once):
        c = kth_card(once, i)
        s = suit_of(c)
        slot = slot_of(c)
        top = wb[W_TOP + s]
        ms = wb[W_MS + s]
        mc = wb[W_MC + s]
        mi = wb[W_MI + s]
        live = (slot >= 3 and slot > top) or (slot < 3 and top == 0)
        cost_c = 0.0
        if live:
            hs = wb[W_HS + s]
            hn = wb[W_HN + s]
            hi = wb[W_HV + s]
            fs = fb[F_FS + top * NS + s]
            fc = fb[F_FC + top * NS + s]
            vnow = fb[F_VNOW + s]
            dup = has(twice, c)
            # investments: weighed like any play, except under `never` and, under `hand`,
            # while the numbers in hand (and laid) do not cover the cost
            if slot < 3:
                allowed = (mode != INV_NEVER and (mode != INV_HAND or ms + hs >= cost)
                           and ms + hs >= params[K_INVEST_HAND])
            else:
                allowed = True
            if mc == 0 and (hs < params[K_OPEN_HAND] or obs.turn < params[K_OPEN_FROM]):
                allowed = False           # switches: open only on enough in hand / from a turn on
            if not endgame and allowed:
                if slot >= 3:
                    above = wb[W_HAND + s] & nums & _above(slot)
                    after = _projection(params, cost, bc, bp, ms + slot - 1, mc + 1, mi, lane_sum(above),
                                        popcount(above), 0, fb[F_FS + slot * NS + s],
                                        fb[F_FC + slot * NS + s], True, 0.0)
                else:
                    after = _projection(params, cost, bc, bp, ms, mc + 1, mi + 1, hs, hn, hi - 1, fs, fc,
                                        True, 0.0)
                if mc == 0:
                    after -= open_margin
                loss = vnow - after
                if loss < play_loss:
                    play_loss = loss
                    best_play = c
                    play_ties = 1
                elif blind and loss == play_loss:      # each tied card as likely (reservoir)
                    play_ties += 1
                    if below(mem, play_ties) == 0:
                        best_play = c
            # what the hand loses without this card (a copy of it stays: nothing)
            if slot < 3:
                without = _projection(params, cost, bc, bp, ms, mc, mi, hs, hn, hi - 1, fs, fc, mc > 0,
                                      open_margin)
            elif dup:
                without = vnow
            else:
                without = _projection(params, cost, bc, bp, ms, mc, mi, hs - (slot - 1), hn - 1, hi, fs, fc,
                                      mc > 0, open_margin)
            keep = vnow - without
            if keep > 0.0:
                cost_c = keep
            if mc == 0:
                cost_c += OPTION * (slot - 1 if slot >= 3 else 5)
        if safety:
            cost_c += _danger(params, wb, p, bc, bp, c)
        if cost_c < disc_cost:
            disc_cost = cost_c
            best_disc = c
            disc_ties = 1
        elif blind and cost_c == disc_cost:
            disc_ties += 1
            if below(mem, disc_ties) == 0:
                best_disc = c

    if not endgame:
        if best_play >= 0 and play_loss <= disc_cost + PLAY_BIAS:
            card = best_play
        else:
            card = best_disc
            to = TO_DISCARD
            # 4. four players: pass instead of a costly discard
            if params[K_PASS] == PASS_ON and disc_cost >= PASS_MIN and _may_pass(obs, p, h, n_deck):
                return _pass_pair(obs, params, wb, fb, cost, bc, bp, nums, h)
        # pass=pays: pass when the move chosen (play or discard) costs the side at least pass_at
        if (params[K_PASS] == PASS_PAYS and (play_loss if to == TO_EXPEDITION else disc_cost) >= params[K_PASS_AT]
                and _may_pass(obs, p, h, n_deck)):
            return _pass_pair(obs, params, wb, fb, cost, bc, bp, nums, h)
    elif card < 0:
        card = best_disc
        to = TO_DISCARD

    if p == 1:
        return make_play(card, to, DRAW_NONE)
    # 5. the draw
    return make_play(card, to, _draw(obs, params, wb, fb, cost, bc, bp, nums, n_deck, card, to, extend, mem))


@jit(inline=True)
def _may_pass(obs, p, h, n_deck):
    """4 players, a pass is legal, the hand is no larger than dealt (the partner does not pass
    straight back) and the round is younger than 2 x deck size turns (passes cannot loop).

    pass=pays: a pass draws nothing, so the deck, and the side's share of it, is the same a turn
    later; the two cards stay with the side.  What it gives up is this turn's play; ``pass_at``
    is that tempo's price."""
    return p == 4 and can_pass(obs) and h <= rule(obs, RULE_HAND_SIZE) and obs.turn < 2 * n_deck


@jit(inline=True)
def _pass_pair(obs, params, wb, fb, cost, bc, bp, nums, h):
    """The two cards whose discard would cost most: the partner keeps them for the side."""
    once = hand_cards(obs)
    twice = hand_doubles(obs)
    p = players(obs)
    b1 = -1
    v1 = NEG
    b2 = -1
    v2 = NEG
    for i in range(h):
        c = kth_of_hand(once, twice, i)
        s = suit_of(c)
        mc = wb[W_MC + s]
        v = fb[F_VNOW + s] - _suit_value(params, wb, fb, cost, bc, bp, nums, s, wb[W_TOP + s], wb[W_MS + s],
                                         mc, wb[W_MI + s], c, -1, mc > 0, params[K_OPEN])
        v += _danger(params, wb, p, bc, bp, c)
        if v > v1:
            b2, v2 = b1, v1
            b1, v1 = c, v
        elif v > v2:
            b2, v2 = c, v
    return make_pass(b1, b2)


@jit(inline=True)
def _draw(obs, params, wb, fb, cost, bc, bp, nums, n_deck, card, to, extend, rng):
    """The deck, or the discard pile whose top adds most to this side (docs/expert.md, "Draw")."""
    n_suits = suits(obs)
    p = players(obs)
    stall = stall_count(obs)
    played = suit_of(card)
    # never stall: after a run of discard-and-pile-draw turns, in a very long round,
    # or when this turn would end the round by the stall limit, take the deck
    if to == TO_DISCARD and stall >= STALL_RUN * p:
        return DRAW_DECK
    if obs.turn >= LONG_ROUND * n_deck:
        return DRAW_DECK
    limit = rule2(obs, RULE_STALL_LIMIT)
    if to == TO_DISCARD and limit > 0 and stall + 1 >= limit * p:
        return DRAW_DECK
    deck = deck_size(obs)
    late = (deck + p - 1) >> (p >> 1) <= rule(obs, RULE_HAND_SIZE)     # / p rounded up (p: 1, 2, 4)
    deny = params[K_DENY] != 0.0 and late
    open_margin = params[K_OPEN]
    best = DRAW_DECK
    best_v = NEG if extend else params[K_DRAWBASE]
    ties = 1
    legal = legal_draws(obs, card, to)
    for s in range(n_suits):
        c = pile_top(obs, s)
        if (legal >> s) & 1 == 0:
            continue
        top = wb[W_TOP + s]
        ms = wb[W_MS + s]
        mc = wb[W_MC + s]
        mi = wb[W_MI + s]
        skip = -1
        if s == played:
            skip = card
            if to == TO_EXPEDITION:            # the expedition after this turn's play
                mc += 1
                if slot_of(card) >= 3:
                    top = slot_of(card)
                    ms += slot_of(card) - 1
                else:
                    mi += 1
        cs = slot_of(c)
        v = 0.0
        if (cs >= 3 and cs > top) or (cs < 3 and top == 0):     # else it adds nothing here
            v = _suit_value(params, wb, fb, cost, bc, bp, nums, s, top, ms, mc, mi, skip, c, mc > 0,
                            open_margin)
            if s == played:
                v -= _suit_value(params, wb, fb, cost, bc, bp, nums, s, top, ms, mc, mi, skip, -1, mc > 0,
                                 open_margin)
            else:
                v -= fb[F_VNOW + s]
        if deny:
            d = _danger(params, wb, p, bc, bp, c)
            if d >= DENY_MIN:
                v += DENY_WEIGHT * d
        if v > best_v:
            best_v = v
            best = 1 + s
            ties = 1
        elif v == best_v and best != DRAW_DECK and params[K_TIES] == TIES_RANDOM:
            ties += 1                                   # piles tied: each as likely (the deck wins its ties)
            if below(rng, ties) == 0:
                best = 1 + s
    return best


from lostcards.policies.parameters import Choice, Float, Int, Policy, Switch  # noqa: E402

PARAMETERS = {
    "invest": Choice({"normal": INV_NORMAL, "eager": INV_EAGER, "never": INV_NEVER, "hand": INV_HAND}),
    "endgame": Switch("on"),
    "safety": Switch("on"),
    "bonus": Switch("on"),
    "deny": Switch("on"),
    "pass": Choice({"on": PASS_ON, "off": PASS_OFF, "pays": PASS_PAYS}),
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
    "pass_at": Float(PASS_PAYS_AT, -100, 1000, "pass=pays: what the best move must cost before a pass"),
    "ties": Choice({"random": TIES_RANDOM, "suit": TIES_SUIT}),
}
EXPERT = Policy(
    "expert", expert_policy, parameters=PARAMETERS,
    doc="expected-value heuristic: suit projections from the cards seen, safe discards, "
        "denial draws, an endgame that counts the plays left",
    compile_s=15.0, improvable=True)
POLICIES = (EXPERT,)
