"""One decision of ``improve(B)``: B's move, kept unless a candidate beats it on shared play-outs.

Per decision (docs/bots.md, "improve"):

1. B decides from the seat's own observation and memory, as it would alone
   (``prior``: another policy decides instead; its move is "B's move" below,
   and the play-outs stay B's).
2. ``k`` determinizations of the hidden cards are dealt, consistent with what
   the seat has seen (``engine.playouts.deal_determinizations``), from a stream seeded
   by the seat's own stream words (read, not advanced, so B's later draws are
   the ones it would make alone) and the turn.
3. *Plays*: B's move, then every play to an expedition and every discard, each
   with B's draw where that draw is still legal (else the deck).  Discards of
   dead cards (no expedition of either side can take them) are one candidate.
   Each is played out from every determinization by B for every seat (with
   ``others``: B for the seat's own side, the other policy for the other side),
   with the same play-out streams for every candidate (common random numbers).  The
   candidate of best mean replaces B's move only if its mean paired difference
   exceeds ``z`` standard errors.  With ``race`` > 0 the candidates are raced
   (``engine.improvement.raced``): played out 16 determinizations at a time,
   a challenger trailing the best so far by more than ``race`` standard errors
   gets no more play-outs; B's move is never dropped.
4. *Draws* (2 and 4 players): for the play kept, every other legal draw (the
   deck, each non-empty pile but the one just discarded onto; piles whose top is
   dead for both sides count once) against the draw of step 3, by the same rule.

Held to move rules (``rules``, ``engine.move_rules``): B's move is first made a
held one (``move_rules.hold``), and the plays of step 3 are only those the
rules allow; the play-outs are B's, unheld (the rules bind the decision, not
the imagined rest of the round).

The budget is ``k`` determinizations (the reproducible one); ``seconds`` > 0
also stops the candidates once that much time has passed (machine-dependent).
Every buffer lives on the stack: a decision allocates nothing.  In solitaire
the seat's own discards leave the game and the observation no longer shows
them: improve keeps them in its scratch words ``SC_DISC``, ``SC_DISC + 1`` (the
last two; a base policy must leave those alone).
"""
from __future__ import annotations

import math

import numpy as np

from lostcards.engine.apply import step
from lostcards.engine.determinize import POOL_MAX
from lostcards.engine.improvement import improvement_step, paired_z, raced
from lostcards.engine.inference import SNAP_WORDS, can_infer, deal_believing, forget_move, remember
from lostcards.engine.intrinsics import call_policy_at, now_ns, offset, stack_floats, stack_u64, stack_words
from lostcards.engine.layout import OBS_FIELDS, SEAT_MEM, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.move_rules import allowed, hold
from lostcards.engine.moves import (
    DRAW_DECK,
    DRAW_NONE,
    TO_DISCARD,
    TO_EXPEDITION,
    draw_pile,
    is_pass,
    make_play,
    move_card,
    move_draw,
    move_to,
)
from lostcards.engine.observation import (
    accepted,
    deck_size,
    has,
    legal_draws,
    lowest_card,
    pile_top,
    players,
    scratch,
    side,
    suits,
    with_card,
    without,
)
from lostcards.engine.playouts import deal_determinizations, play_outs_on
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit

# parameter positions (declaration order in __init__.py), then the prior's policy address, the
# base's decider address (``engine.intrinsics``), where the prior's values start, the others' decider
# address and where their values start, then the base policy's own values (and the prior's and the
# others', each where it is not the base)
(P_K, P_Z, P_SECONDS, P_RACE, P_INFER, P_LUCK, P_DEPTH, P_BASE, P_RULES, P_PRIOR, P_OTHERS, P_POLICY_AT,
 P_DECIDE_AT, P_PRIOR_AT, P_OTHERS_AT, P_OTHERS_PARAMS) = range(16)
N_OWN = 16
K_MAX = 512                        # determinizations a decision at most (the stack buffers' room)
C_MAX = 48                         # candidates a decision at most (plays, discards, draws)
SC_DISC = SEAT_MEM.count("scratch") - 2     # scratch words of the solitaire discards
SC_SNAP = SC_DISC - SNAP_WORDS              # scratch words of the table after its own move (infer)
DETS_WORDS = K_MAX * STATE_WORDS           # the stack buffers' sizes (constants)
VALS_WORDS = C_MAX * K_MAX
DET_STREAM = 0x1A7                 # the determinizations' stream id (the play-outs use 1 + seat)


@jit(inline=True)
def _dead(c, own, opp):
    """No expedition of either side can take card c any more."""
    return not has(own, c) and not has(opp, c)


@jit(inline=True)
def draw_for(obs, p, c, to, bdraw, n_deck):
    """B's draw if it is still legal after playing c to `to`, else the deck."""
    if p == 1:
        return DRAW_NONE
    if bdraw == DRAW_DECK or bdraw == DRAW_NONE:
        return DRAW_DECK
    s = bdraw - 1
    if (legal_draws(obs, c, to) >> s) & 1 == 0:
        return DRAW_DECK if n_deck > 0 else bdraw
    return bdraw


@jit
def improve_policy(obs, params, mem):
    """improve(base) as a policy: the base is named by the addresses in `params` (module docstring)."""
    return improve_move(obs, params, mem)


@jit
def improve_move(obs, params, mem):
    """The move of improve(base) (module docstring), compiled once for every base."""
    k = min(np.int64(params[P_K]), K_MAX)
    z = params[P_Z]
    seconds = params[P_SECONDS]
    race = params[P_RACE]
    infer = params[P_INFER]
    luck = params[P_LUCK]
    depth = np.int64(params[P_DEPTH])
    bparams = offset(params, N_OWN)
    pparams = offset(params, np.int64(params[P_PRIOR_AT]))
    p = players(obs)
    sc = scratch(mem)
    seed = np.int64(mem[0] ^ (mem[1] << np.uint64(1)) ^ (mem[2] << np.uint64(2)) ^ mem[3])
    t_end = now_ns() + np.int64(seconds * 1e9) if seconds > 0 else np.int64(0)
    words = stack_words(OBS_FIELDS)
    for i in range(OBS_FIELDS):
        words[i] = obs[i]
    rules = np.int64(params[P_RULES])
    bm = call_policy_at(np.int64(params[P_POLICY_AT]), words, pparams, mem)
    if rules != 0:
        bm = hold(obs, words, rules, bm, np.int64(params[P_POLICY_AT]), pparams, mem)
    m = bm
    if k >= 2:
        m = _search(obs, bparams, bm, k, z, race, infer, luck, seconds, t_end, seed, sc,
                    np.int64(params[P_DECIDE_AT]), rules, np.int64(params[P_OTHERS_AT]),
                    offset(params, np.int64(params[P_OTHERS_PARAMS])), depth)
    if p == 1 and not is_pass(m) and move_to(m) == TO_DISCARD:
        d = with_card((np.int64(sc[SC_DISC]), np.int64(sc[SC_DISC + 1])), move_card(m))
        sc[SC_DISC] = np.uint64(d[0])
        sc[SC_DISC + 1] = np.uint64(d[1])
    return m


@jit(inline=True)
def _plays(obs, cand, inc, j0, ctx):
    """The challengers to B's move ``cand[inc]``: every play to an expedition and every discard (dead
    cards once) that the move rules ``ctx[17]`` allow, each with B's draw where that draw is still
    legal (else the deck)."""
    p, own, opp, n_deck = ctx[0], ctx[1], ctx[2], ctx[3]
    lays, throws = allowed(obs, ctx[17])
    bm = cand[inc]
    passed = is_pass(bm)
    bcard = move_card(bm)
    bto = move_to(bm) if not passed else -1
    bdraw = move_draw(bm) if not passed else DRAW_DECK
    n = j0
    rest = lays
    while (rest[0] | rest[1]) != 0 and n < C_MAX:
        c = lowest_card(rest)
        rest = without(rest, c)
        if not (bto == TO_EXPEDITION and c == bcard):
            cand[n] = make_play(c, TO_EXPEDITION, draw_for(obs, p, c, TO_EXPEDITION, bdraw, n_deck))
            n += 1
    dead_seen = bto == TO_DISCARD and _dead(bcard, own, opp)
    rest = throws
    while (rest[0] | rest[1]) != 0 and n < C_MAX:
        c = lowest_card(rest)
        rest = without(rest, c)
        if bto == TO_DISCARD and c == bcard:
            continue
        if _dead(c, own, opp):
            if dead_seen:
                continue
            dead_seen = True
        cand[n] = make_play(c, TO_DISCARD, draw_for(obs, p, c, TO_DISCARD, bdraw, n_deck))
        n += 1
    return n


@jit(inline=True)
def _draws(obs, cand, inc, j0, ctx):
    """The challengers to the kept play's draw ``cand[inc]``: the deck and every other legal pile
    (piles whose top is dead for both sides count once)."""
    own, opp, n_deck = ctx[1], ctx[2], ctx[3]
    m = cand[inc]
    card = move_card(m)
    to = move_to(m)
    d0 = move_draw(m)
    n = j0
    legal = legal_draws(obs, card, to)
    dead_seen = False
    if d0 != DRAW_DECK:
        t = pile_top(obs, d0 - 1)
        dead_seen = t >= 0 and _dead(t, own, opp)
    if d0 != DRAW_DECK and n_deck > 0 and n < C_MAX:
        cand[n] = make_play(card, to, DRAW_DECK)
        n += 1
    for s in range(suits(obs)):
        if (legal >> s) & 1 == 0 or draw_pile(s) == d0 or n >= C_MAX:
            continue
        t = pile_top(obs, s)
        if _dead(t, own, opp):
            if dead_seen:
                continue
            dead_seen = True
        cand[n] = make_play(card, to, draw_pile(s))
        n += 1
    return n


@jit(inline=True)
def _played_out(obs, cand, inc, j0, n, ctx):
    """Candidates j0..n-1 each played out by B from the k shared determinizations (their margins
    into ``vals``); the first candidate always, the others while the time limit allows.  With
    ``race`` > 0 they are raced instead (``engine.improvement.raced``)."""
    dets, k, st, mem, one, vals, seed, stream, decide_at, bparams, seconds, t_end = ctx[4:16]
    race, kd, live, luck = ctx[18], ctx[19], ctx[20], ctx[21]
    if race > 0:
        return raced(obs, cand, inc, j0, n, _stage, _in_time, vals, k, kd, live, race, ctx)
    done = j0
    for j in range(j0, n):
        if j > 0 and seconds > 0 and now_ns() >= t_end:
            break
        play_outs_on(obs, dets, 0, k, k, offset(cand, j), 1, st, mem, one, offset(vals, j * k),
                     seed, stream, decide_at, bparams, luck, ctx[22], ctx[23], ctx[24])
        done += 1
    return done


@jit(inline=True)
def _stage(obs, cand, j, i0, i1, ctx):
    """A stage of a race: candidate j played out by B on determinizations i0..i1-1."""
    dets, k, st, mem, one, vals, seed, stream, decide_at, bparams = ctx[4:14]
    play_outs_on(obs, dets, i0, i1, k, offset(cand, j), 1, st, mem, one, offset(vals, j * k),
                 seed, stream, decide_at, bparams, ctx[21], ctx[22], ctx[23], ctx[24])


@jit(inline=True)
def _in_time(ctx):
    """Whether the time limit (if any) allows another stage of a race."""
    seconds, t_end = ctx[14], ctx[15]
    return seconds <= 0 or now_ns() < t_end


@jit(inline=True)
def _z_rule(inc, j0, n, ctx):
    """improve's rule: ``paired_z`` with z standard errors on the determinizations every candidate
    got (k, unless a race was stopped by the time limit)."""
    return paired_z(ctx[9], ctx[5], ctx[19][0], inc, j0, n, ctx[16])


@jit(inline=True)
def _search(obs, bparams, bm, k, z, race, infer, luck, seconds, t_end, seed, sc, decide_at, rules, other_at,
            oparams, depth):
    p = players(obs)
    sd = side(obs)
    own = accepted(obs, sd)
    opp = accepted(obs, sd ^ 1) if p > 1 else (np.int64(0), np.int64(0))
    n_deck = deck_size(obs)
    disc0 = np.int64(sc[SC_DISC]) if p == 1 else np.int64(0)
    disc1 = np.int64(sc[SC_DISC + 1]) if p == 1 else np.int64(0)
    # ---- buffers (stack)
    dets = stack_words(DETS_WORDS)
    st = stack_words(STATE_WORDS)
    mem = stack_u64(SLOT_MEM_WORDS)
    one = stack_words(2)
    vals = stack_floats(VALS_WORDS)
    cand = stack_words(C_MAX)
    base = stack_words(STATE_WORDS)
    used = stack_words(2)
    need = stack_words(4)
    pool = stack_words(POOL_MAX)
    rng = stack_u64(4)
    kd = stack_words(1)
    live = stack_words(C_MAX)
    lm = stack_words(4)
    kd[0] = k                      # the determinizations every candidate gets (a race's time limit may cut it)
    seed_stream(rng, seed, obs.turn, DET_STREAM)
    believing = infer > 0 and can_infer(obs)
    if believing:
        deal_believing(dets, k, obs, base, used, need, pool, rng, offset(sc, SC_SNAP), infer, st, mem, one,
                       lm, other_at, oparams, seed)
    else:
        deal_determinizations(dets, k, obs, disc0, disc1, base, used, need, pool, rng)
    ctx = (p, own, opp, n_deck, dets, k, st, mem, one, vals, seed, obs.turn, decide_at, bparams,
           seconds, t_end, z, rules, race, kd, live, luck, other_at, oparams, depth)
    # ---- the plays: B's move first, played out with the others
    cand[0] = bm
    inc, n = improvement_step(obs, cand, 0, 1, 0, _plays, _played_out, _z_rule, ctx)
    m = bm
    if math.isfinite(vals[inc * k]):
        m = cand[inc]
        if p > 1 and not is_pass(m):
            # ---- the draws of the play kept
            j, _ = improvement_step(obs, cand, inc, n, n, _draws, _played_out, _z_rule, ctx)
            m = cand[j]
    if believing:                   # the table after this move, for the next decision's inference
        for w in range(STATE_WORDS):
            st[w] = dets[w]
        snap = offset(sc, SC_SNAP)
        if step(st, m) == 0:
            remember(st, snap, move_card(m))
        else:
            forget_move(snap)
    return m
