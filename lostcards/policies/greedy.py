"""The `greedy` policy: a casual player's simple heuristic (no card counting).

Each turn, in this order:

1. **Extend.** If a card in hand fits an expedition the side has already
   started (a number above its highest number, or an investment while it holds
   no number yet), play the one that skips the fewest numbers (an investment
   skips none).
2. **Open.** Otherwise, if the numbers of one suit in hand add up to at least
   ``open`` x the cost (parameter ``open``, default 1.0: they would already pay
   for the expedition on their own), open the suit with the largest such sum:
   with an investment card first when that sum reaches the cost + 10 (and
   ``invest=yes``), else with its lowest number.
3. **Discard** the least useful card: first a card the side can no longer use
   (a number at or below its expedition's highest, an investment once it holds
   a number), then the lowest card of a suit not started (investments count as
   10), and only then the lowest card of a started suit.
4. **Draw** the top of a discard pile only when it is a number that is
   immediately playable on an expedition the side has started (not the pile
   just discarded onto); the one that skips the fewest numbers. Otherwise the
   deck. Solitaire draws nothing by choice (draw = 7).

Ties (equal gaps, sums or uses) are broken by ``ties``: ``random`` (default), each
tied card, suit or pile as likely, from the seat's stream, so no suit is
favoured; ``suit``, the lowest card code or suit (the order before the
suit-blind default).

It never passes (4 players).  Every move it makes is legal.
"""
from lostcards.engine.bits import highest
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.observation import (
    INVESTMENT_SLOTS,
    NUMBER_SLOTS,
    RULE_COST,
    expedition,
    hand_cards,
    hand_doubles,
    lane,
    legal_draws,
    lowest_card,
    pile_top,
    players,
    rule,
    side,
    slot_of,
    suit_of,
    suits,
    top_slot,
    without,
)
from lostcards.engine.rng import below
from lostcards.numba_cache import jit


@jit(inline=True)
def _tied(rnd, mem, ties):
    """One more option tied with the best (``ties`` of them now): whether it takes the lead
    (ties=random: each of the tied as likely; ties=suit: never, the first stays)."""
    return rnd and below(mem, ties) == 0


@jit
def greedy_policy(obs, params, mem):
    """Extend a started expedition, else open a suit that pays, else discard the least useful card."""
    open_share = params[0]
    invest = params[1] == 0.0
    rnd = params[2] == 0.0
    ties = 1
    sd = side(obs)
    n_suits = suits(obs)
    cost = rule(obs, RULE_COST)
    once = hand_cards(obs)
    twice = hand_doubles(obs)

    # 1. extend a started expedition: the fitting card that skips the fewest numbers
    card = -1
    best_gap = 1 << 20
    rest = once
    c = lowest_card(rest)
    while c >= 0:
        s = suit_of(c)
        slot = slot_of(c)
        ex = expedition(obs, sd, s)
        if ex != 0:
            top = top_slot(ex)
            if slot < 3:
                gap = 0 if top == 0 else -1
            elif slot > top:
                gap = slot - (top if top > 0 else 2) - 1
            else:
                gap = -1
            if gap >= 0 and gap < best_gap:
                best_gap = gap
                card = c
                ties = 1
            elif gap >= 0 and gap == best_gap:
                ties += 1
                if _tied(rnd, mem, ties):
                    card = c
        rest = without(rest, c)
        c = lowest_card(rest)
    to = TO_EXPEDITION

    # 2. open the suit whose numbers in hand pay for it (copies counted)
    if card < 0:
        best_sum = -1
        best_s = -1
        for s in range(n_suits):
            if expedition(obs, sd, s) != 0:
                continue
            tot = 0
            nums = 0
            for src in (once, twice):
                ln = lane(src, s) & NUMBER_SLOTS
                while ln:
                    sl = highest(ln)
                    tot += sl - 1
                    nums += 1
                    ln &= ~(1 << sl)
            if nums > 0 and tot >= open_share * cost:
                if tot > best_sum:
                    best_sum = tot
                    best_s = s
                    ties = 1
                elif tot == best_sum:
                    ties += 1
                    if _tied(rnd, mem, ties):
                        best_s = s
        if best_s >= 0:
            ln = lane(once, best_s)
            inv = best_s * 12 + highest(ln & -ln) if ln & INVESTMENT_SLOTS else -1     # the lowest investment
            nl = ln & NUMBER_SLOTS
            low_num = best_s * 12 + highest(nl & -nl)                     # the lowest number
            if invest and inv >= 0 and best_sum >= cost + 10:
                card = inv
            else:
                card = low_num

    # 3. discard the least useful card
    if card < 0:
        to = TO_DISCARD
        worst = 1 << 20
        rest = once
        c = lowest_card(rest)
        while c >= 0:
            s = suit_of(c)
            slot = slot_of(c)
            ex = expedition(obs, sd, s)
            top = top_slot(ex)
            value = slot - 1 if slot >= 3 else 10
            if (slot < 3 and top != 0) or (slot >= 3 and slot <= top):
                use = 0                        # dead for this side
            elif ex == 0:
                use = 1 + value                # a suit not started
            else:
                use = 100 + value              # a started suit
            if use < worst:
                worst = use
                card = c
                ties = 1
            elif use == worst:
                ties += 1
                if _tied(rnd, mem, ties):
                    card = c
            rest = without(rest, c)
            c = lowest_card(rest)

    if players(obs) == 1:
        return make_play(card, to, DRAW_NONE)

    # 4. draw off a pile only what is immediately playable on a started expedition
    played_suit = suit_of(card)
    draw = DRAW_DECK
    best_gap = 1 << 20
    legal = legal_draws(obs, card, to)
    for s in range(n_suits):
        t = pile_top(obs, s)
        ex = expedition(obs, sd, s)
        if (legal >> s) & 1 == 0 or ex == 0:
            continue
        slot = slot_of(t)
        top = top_slot(ex)
        if to == TO_EXPEDITION and s == played_suit and slot_of(card) >= 3:
            top = slot_of(card)                # the card just played is now the highest
        if slot >= 3 and slot > top:
            gap = slot - (top if top > 0 else 2) - 1
            if gap < best_gap:
                best_gap = gap
                draw = 1 + s
                ties = 1
            elif gap == best_gap:
                ties += 1
                if _tied(rnd, mem, ties):
                    draw = 1 + s
    return make_play(card, to, draw)


from lostcards.policies.parameters import Choice, Float, Policy  # noqa: E402

GREEDY = Policy(
    "greedy", greedy_policy,
    parameters={"open": Float(1.0, 0, 10, "the share of the cost a suit's numbers in hand must reach to open it"),
                "invest": Choice({"yes": 0, "no": 1}),
                "ties": Choice({"random": 0, "suit": 1})},
    doc="casual heuristic: extend started expeditions, open a suit whose numbers in hand pay "
        "its cost, else discard the least useful card; draws a pile only to extend",
    compile_s=5.0, improvable=True)
POLICIES = (GREEDY,)
