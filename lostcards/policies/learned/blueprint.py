"""The learned blueprint: a linear score over each legal option's features, then an argmax
(or a softmax sample, ``temp`` > 0, by the Gumbel-max trick).

A turn is two choices, scored separately with their own weights:

* the **action**: each held card to its expedition (when it accepts it) and
  each held card as a discard; its score is ``w_play . f_play`` or
  ``w_disc . f_disc`` (features below);
* the **draw** (2 and 4 players), once the action is chosen: the deck scores 0,
  each non-empty discard pile (not the one just discarded onto) ``w_draw . f_draw``
  of its top card, on the table as the action leaves it.

The features read only the observation (hand, expeditions, discard piles, the
deck's size, the unseen cards).  They rest on one quantity, a suit's
*projection* for a side:
``(laid numbers + hand numbers above the top + p x unseen numbers above the top - cost)
x (investments + 1)``, ``p = deck / (2 x unseen)`` (solitaire ``deck / unseen``):
the chance an unseen card reaches the side; hand investments count while no
number is laid and the numbers laid and in hand reach the cost.  A suit not
opened is worth ``max(0, projection)``.  ``late`` = ``max(0, 1 - deck / (8 x players))``.

Weights ``W`` (``N_WEIGHTS`` numbers: play, then discard, then draw), names in
``FEATURES``.  Ties are broken at random from the seat's stream, so no suit is
favoured.  It never passes (4 players).  Every move it makes is legal.
"""

from lostcards.engine.bits import popcount
from lostcards.engine.intrinsics import stack_floats, stack_words
from lostcards.engine.moves import DRAW_DECK, DRAW_NONE, TO_DISCARD, TO_EXPEDITION, make_play
from lostcards.engine.observation import (
    INVESTMENT_SLOTS,
    NUMBER_SLOTS,
    RULE_COST,
    accepts,
    deck_size,
    expedition,
    hand_cards,
    lane,
    lane_score,
    legal_draws,
    legal_plays,
    lowest_card,
    pile_top,
    players,
    rule,
    side,
    slot_of,
    suit_of,
    suits,
    top_slot,
    unseen,
    without,
)
from lostcards.engine.rng import gumbel, takes_lead
from lostcards.engine.state import lane_sum
from lostcards.numba_cache import jit

PLAY_FEATURES = (
    "bias", "opens", "projection_gain", "score_gain", "score_gain_late", "hand_skipped", "unseen_skipped",
    "investment", "opens_late", "value", "hand_above_after", "opens_hand_count")
DISCARD_FEATURES = (
    "bias", "keep", "dead", "danger_opened", "danger_unopened", "investment", "value", "late", "suit_opened",
    "keep_late")
DRAW_FEATURES = ("bias", "gain", "dead", "deny_opened", "deny_unopened", "late", "gain_late", "deck_last")
N_PLAY, N_DISC, N_DRAW = len(PLAY_FEATURES), len(DISCARD_FEATURES), len(DRAW_FEATURES)
N_WEIGHTS = N_PLAY + N_DISC + N_DRAW
FEATURES = tuple(f"play.{f}" for f in PLAY_FEATURES) + tuple(f"discard.{f}" for f in DISCARD_FEATURES) + \
    tuple(f"draw.{f}" for f in DRAW_FEATURES)
TEMP = 0                       # params[TEMP]: the softmax temperature, then the weights


def weight_at(feature: str) -> int:
    """Where a feature's weight sits in the policy's parameters (after ``temp``), by its name."""
    return 1 + FEATURES.index(feature)


# each weight's position, by name (the kernel reads params[PLAY_OPENS], never a bare offset)
PLAY_BIAS = weight_at("play.bias")
PLAY_OPENS = weight_at("play.opens")
PLAY_PROJECTION_GAIN = weight_at("play.projection_gain")
PLAY_SCORE_GAIN = weight_at("play.score_gain")
PLAY_SCORE_GAIN_LATE = weight_at("play.score_gain_late")
PLAY_HAND_SKIPPED = weight_at("play.hand_skipped")
PLAY_UNSEEN_SKIPPED = weight_at("play.unseen_skipped")
PLAY_INVESTMENT = weight_at("play.investment")
PLAY_OPENS_LATE = weight_at("play.opens_late")
PLAY_VALUE = weight_at("play.value")
PLAY_HAND_ABOVE_AFTER = weight_at("play.hand_above_after")
PLAY_OPENS_HAND_COUNT = weight_at("play.opens_hand_count")
DISC_BIAS = weight_at("discard.bias")
DISC_KEEP = weight_at("discard.keep")
DISC_DEAD = weight_at("discard.dead")
DISC_DANGER_OPENED = weight_at("discard.danger_opened")
DISC_DANGER_UNOPENED = weight_at("discard.danger_unopened")
DISC_INVESTMENT = weight_at("discard.investment")
DISC_VALUE = weight_at("discard.value")
DISC_LATE = weight_at("discard.late")
DISC_SUIT_OPENED = weight_at("discard.suit_opened")
DISC_KEEP_LATE = weight_at("discard.keep_late")
DRAW_BIAS = weight_at("draw.bias")
DRAW_GAIN = weight_at("draw.gain")
DRAW_DEAD = weight_at("draw.dead")
DRAW_DENY_OPENED = weight_at("draw.deny_opened")
DRAW_DENY_UNOPENED = weight_at("draw.deny_unopened")
DRAW_LATE = weight_at("draw.late")
DRAW_GAIN_LATE = weight_at("draw.gain_late")
DRAW_DECK_LAST = weight_at("draw.deck_last")


@jit(inline=True)
def _above(top):
    return NUMBER_SLOTS & ~((2 << top) - 1) if top > 0 else NUMBER_SLOTS


@jit(inline=True)
def _projection(laid, hand, unseen_ln, p, cost):
    """A suit's projected score (see the module's text), as a float."""
    top = top_slot(laid)
    ab = _above(top)
    nums = lane_sum(laid) + lane_sum(hand & ab)
    inv = popcount(laid & INVESTMENT_SLOTS)
    if top == 0 and nums >= cost:
        inv += popcount(hand & INVESTMENT_SLOTS)
    return (nums + p * lane_sum(unseen_ln & ab) - cost) * (inv + 1)


@jit(inline=True)
def _worth(laid, hand, unseen_ln, p, cost):
    """A suit's projection, at least 0 while it is not opened (it can stay closed)."""
    v = _projection(laid, hand, unseen_ln, p, cost)
    return v if laid != 0 or v > 0 else 0.0


@jit(inline=True)
def _danger(obs, o, s, slot, val):
    """(what a card is worth to side o when it has opened the suit, when it has not)."""
    if (accepts(obs, o, s) >> slot) & 1 == 0:
        return 0.0, 0.0
    oex = expedition(obs, o, s)
    v = val if slot >= 3 else 3.0
    if oex != 0:
        return v * (popcount(oex & INVESTMENT_SLOTS) + 1) / 10.0, 0.0
    return 0.0, v / 10.0




MAX_OPTIONS = 64


@jit(inline=True)
def action_scores(obs, params, mem, cards, tos, scores):
    """Each legal action's score (with Gumbel noise when temp > 0) into cards / tos / scores; returns how many."""
    temp = params[TEMP]
    sd = side(obs)
    o = 1 - sd
    np_ = players(obs)
    cost = rule(obs, RULE_COST)
    once = hand_cards(obs)
    acc = legal_plays(obs)
    un, _ = unseen(obs)
    d = deck_size(obs)
    n_un = popcount(un[0]) + popcount(un[1])
    p = 0.0
    if n_un > 0:
        p = d / (n_un * (1.0 if np_ == 1 else 2.0))
        if p > 1.0:
            p = 1.0
    late = 1.0 - d / (8.0 * np_)
    if late < 0.0:
        late = 0.0
    n = 0
    rest = once
    c = lowest_card(rest)
    while c >= 0 and n < MAX_OPTIONS - 1:
        s = suit_of(c)
        slot = slot_of(c)
        bit = 1 << slot
        ex = expedition(obs, sd, s)
        hl = lane(once, s)
        ul = lane(un, s)
        h2 = hl & ~bit
        val = slot - 1.0 if slot >= 3 else 0.0
        now = _worth(ex, hl, ul, p, cost)
        # the card to its expedition
        if (lane(acc, s) >> slot) & 1:
            laid = ex | bit
            after = _projection(laid, h2, ul, p, cost)
            top = top_slot(ex)
            skip = 0
            if slot >= 3:
                skip = _above(top) & ((1 << slot) - 1)
            opens = 1.0 if ex == 0 else 0.0
            gain = (lane_score(obs, laid) - lane_score(obs, ex)) / 10.0
            sc = params[PLAY_BIAS]
            sc += params[PLAY_OPENS] * opens
            sc += params[PLAY_PROJECTION_GAIN] * (after - now) / 10.0
            sc += params[PLAY_SCORE_GAIN] * gain
            sc += params[PLAY_SCORE_GAIN_LATE] * gain * late
            sc += params[PLAY_HAND_SKIPPED] * popcount(h2 & skip) / 2.0
            sc += params[PLAY_UNSEEN_SKIPPED] * p * lane_sum(ul & skip) / 10.0
            sc += params[PLAY_INVESTMENT] * (1.0 if slot < 3 else 0.0)
            sc += params[PLAY_OPENS_LATE] * opens * late
            sc += params[PLAY_VALUE] * val / 10.0
            sc += params[PLAY_HAND_ABOVE_AFTER] * popcount(h2 & _above(slot if slot >= 3 else top)) / 4.0
            sc += params[PLAY_OPENS_HAND_COUNT] * opens * popcount(h2) / 4.0
            cards[n] = c
            tos[n] = TO_EXPEDITION
            scores[n] = sc + gumbel(mem, temp)
            n += 1
        # the card as a discard
        keep = (now - _worth(ex, h2, ul, p, cost)) / 10.0
        dead = 1.0 if (accepts(obs, sd, s) >> slot) & 1 == 0 else 0.0
        dz_o, dz_u = _danger(obs, o, s, slot, val) if np_ > 1 else (0.0, 0.0)
        sc = params[DISC_BIAS]
        sc += params[DISC_KEEP] * keep
        sc += params[DISC_DEAD] * dead
        sc += params[DISC_DANGER_OPENED] * dz_o
        sc += params[DISC_DANGER_UNOPENED] * dz_u
        sc += params[DISC_INVESTMENT] * (1.0 if slot < 3 else 0.0)
        sc += params[DISC_VALUE] * val / 10.0
        sc += params[DISC_LATE] * late
        sc += params[DISC_SUIT_OPENED] * (1.0 if ex != 0 else 0.0)
        sc += params[DISC_KEEP_LATE] * keep * late
        cards[n] = c
        tos[n] = TO_DISCARD
        scores[n] = sc + gumbel(mem, temp)
        n += 1
        rest = without(rest, c)
        c = lowest_card(rest)
    return n


@jit(inline=True)
def best_draw(obs, params, mem, card, to):
    """The draw after playing `card` to `to` (2 and 4 players): the deck scores 0, each legal pile its features."""
    temp = params[TEMP]
    sd = side(obs)
    o = 1 - sd
    np_ = players(obs)
    cost = rule(obs, RULE_COST)
    once = hand_cards(obs)
    un, _ = unseen(obs)
    d = deck_size(obs)
    n_un = popcount(un[0]) + popcount(un[1])
    p = 0.0
    if n_un > 0:
        p = min(1.0, d / (n_un * 2.0))
    late = max(0.0, 1.0 - d / (8.0 * np_))
    cs = suit_of(card)
    hand_after = without(once, card)
    draw = DRAW_DECK
    best = 0.0 + gumbel(mem, temp) if d > 0 else -1e300
    ties = 1
    legal = legal_draws(obs, card, to)
    for s in range(suits(obs)):
        t = pile_top(obs, s)
        if (legal >> s) & 1 == 0:
            continue
        slot = slot_of(t)
        ex = expedition(obs, sd, s)
        if to == TO_EXPEDITION and s == cs:
            ex = ex | (1 << slot_of(card))
        hl = lane(hand_after, s)
        ul = lane(un, s)
        val = slot - 1.0 if slot >= 3 else 0.0
        now = _worth(ex, hl, ul, p, cost)
        gain = (_worth(ex, hl | (1 << slot), ul, p, cost) - now) / 10.0
        top = top_slot(ex)
        if slot < 3:
            dead = 1.0 if top > 0 else 0.0
        else:
            dead = 1.0 if slot <= top else 0.0
        dz_o, dz_u = _danger(obs, o, s, slot, val)
        sc = params[DRAW_BIAS]
        sc += params[DRAW_GAIN] * gain
        sc += params[DRAW_DEAD] * dead
        sc += params[DRAW_DENY_OPENED] * dz_o
        sc += params[DRAW_DENY_UNOPENED] * dz_u
        sc += params[DRAW_LATE] * late
        sc += params[DRAW_GAIN_LATE] * gain * late
        sc += params[DRAW_DECK_LAST] * (1.0 if d <= np_ else 0.0)
        sc += gumbel(mem, temp)
        take, ties = takes_lead(sc, best, ties, mem)
        if take:
            best = sc
            draw = 1 + s
    return draw


@jit(inline=True)
def blueprint_move(obs, params, mem, cards, tos, scores):
    """The blueprint's move: the best action (ties at random), then its best draw."""
    n = action_scores(obs, params, mem, cards, tos, scores)
    best = -1e300
    ties = 1
    k = 0
    for i in range(n):
        take, ties = takes_lead(scores[i], best, ties, mem)
        if take:
            best = scores[i]
            k = i
    card = cards[k]
    to = tos[k]
    if players(obs) == 1:
        return make_play(card, to, DRAW_NONE)
    return make_play(card, to, best_draw(obs, params, mem, card, to))


@jit
def learned_policy(obs, params, mem):
    """A linear score per legal option over its features; the best action, then the best draw."""
    cards = stack_words(MAX_OPTIONS)
    tos = stack_words(MAX_OPTIONS)
    scores = stack_floats(MAX_OPTIONS)
    return blueprint_move(obs, params, mem, cards, tos, scores)
