"""The teacher's round, in numba: improve(base) plays every seat and labels each decision.

It writes what a network policy learns from (``features``): the base and the
reference policy (whose move sets the candidates' reference flag) are both
given by address, so this module imports no policy.

Per decision of the seat to move (docs/learned.md, "The teacher"):

1. the base decides (its move is candidate 0; a pass, 4 players, is played
   and not labelled: the student never passes);
2. the *action* candidates: the base's move, every other play to an
   expedition and every other discard, each with the base's draw where it is
   still legal (else the deck), as ``improve`` tries them;
3. ``k`` determinizations of the hidden cards, shared by every candidate,
   each played out by the base for every seat with common random numbers
   (``improve``'s ``deal_determinizations`` and ``play_outs_on``; like improve's
   ``others``, ``depth`` and ``luck``, the other side may move by another
   policy, the own side too after a few turns, and the deck's luck may be
   taken off each return); a candidate's
   *gain* is its mean paired difference to candidate 0, with its standard
   error (at least ``SE_FLOOR / k``);
4. the move kept is improve's (the best gain if it exceeds ``z`` standard
   errors, else the base's); with probability ``explore`` it is instead
   sampled from softmax(gain / ``temp``) (exploration);
5. (2 and 4 players) the *draw* candidates after that action, the same way,
   candidate 0 being the draw it came with.

Each labelled choice is a *group*: the seat's information-set features, the
candidates' features, moves, gains and standard errors, and which was played.
Every random number comes from (seed, round): a round's labels are the same
whatever the shard or the worker.
"""
from __future__ import annotations

import math

import numpy as np

from lostcards.engine.apply import step
from lostcards.engine.core import deal, ended, load_rules, observe_as, side_score
from lostcards.engine.determinize import POOL_MAX
from lostcards.engine.improvement import SE_FLOOR
from lostcards.engine.intrinsics import alive, call_policy_at, offset, ptr, stack_floats, stack_u64, stack_words
from lostcards.engine.layout import (
    MAX_TURNS,
    MEM_WORDS,
    OBS_FIELDS,
    R_PLAYERS,
    R_SIMPLE,
    S_SEAT,
    SLOT_MEM_WORDS,
    STATE_WORDS,
)
from lostcards.engine.moves import (
    DRAW_DECK,
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
    deck_size,
    hand_cards,
    has,
    legal_draws,
    legal_plays,
    lowest_card,
    pile_top,
    players,
    suits,
    with_card,
    without,
)
from lostcards.engine.playouts import deal_determinizations, play_outs_on
from lostcards.engine.rng import below, seed_stream
from lostcards.numba_cache import jit
from lostcards.policies.improve.decision import C_MAX, K_MAX, draw_for
from lostcards.policies.network.features import (
    C_DIM,
    K_DECK,
    K_DISCARD,
    K_PILE,
    K_PLAY,
    S_DIM,
    action_is_reference,
    candidate_features,
    draw_is_reference,
    info_features,
    set_reference,
)

MAX_GROUPS = 1024            # labelled choices a round at most (rounds end long before)
G_ROUND, G_TURN, G_SEAT, G_STAGE, G_N, G_PLAYED, G_ROW, G_EXPLORED = range(8)
G_FIELDS = 8
DET_STREAM = 0x7EA          # the determinizations' stream id
EXPLORE_STREAM = 0x7EB      # the exploration draws' stream id
FEATS_WORDS = C_MAX * C_DIM
STREAM_ROUND = 4096         # play-out streams: round * STREAM_ROUND + 2 * turn + stage



@jit(inline=True)
def reference_move(words, ref_at, rparams, mem):
    """The reference policy's move for this seat, on a copy of the seat's memory (its stream is not
    advanced): the candidates' reference flag, the base then deciding on the stream as it stands
    (a network policy itself runs its reference on its own stream: ``scorer``)."""
    m2 = stack_u64(MEM_WORDS)
    for i in range(MEM_WORDS):
        m2[i] = mem[i]
    return call_policy_at(ref_at, words, rparams, m2)


@jit(inline=True)
def _gains(vals, k, n, gain, se):
    """gain[j], se[j]: mean paired difference of candidate j to candidate 0 and its standard error
    (NaN when a play-out of j or of 0 is not finite)."""
    for j in range(n):
        s1 = 0.0
        s2 = 0.0
        ok = True
        for i in range(k):
            v = vals[j * k + i]
            v0 = vals[i]
            if not (math.isfinite(v) and math.isfinite(v0)):
                ok = False
                break
            d = v - v0
            s1 += d
            s2 += d * d
        if not ok:
            gain[j] = np.nan
            se[j] = np.nan
            continue
        m = s1 / k
        var = (s2 - s1 * m) / (k - 1)
        gain[j] = m
        se[j] = max(math.sqrt(max(var, 0.0) / k), SE_FLOOR / k)


@jit(inline=True)
def _choose(gain, se, n, z, explore, temp, erng):
    """(the candidate played, explored?): improve's verdict, or with probability `explore` a
    sample from softmax(gain / temp)."""
    best = 0
    for j in range(1, n):
        if math.isfinite(gain[j]) and gain[j] > gain[best] and gain[j] > z * se[j]:
            best = j
    u = (below(erng, 1 << 30) + 0.5) / 1073741824.0
    if u >= explore:
        return best, False
    top = 0.0
    for j in range(n):
        if math.isfinite(gain[j]) and gain[j] > top:
            top = gain[j]
    tot = 0.0
    for j in range(n):
        if math.isfinite(gain[j]):
            tot += math.exp((gain[j] - top) / temp)
    x = (below(erng, 1 << 30) + 0.5) / 1073741824.0 * tot
    for j in range(n):
        if math.isfinite(gain[j]):
            x -= math.exp((gain[j] - top) / temp)
            if x <= 0.0:
                return j, j != best
    return best, False


@jit(inline=True)
def _label(g, n_rows, meta, rows_c, rows_gain, rows_se, rows_move, cand, feats, gain, se, n, played, explored,
           r, turn, seat, stage):
    """Write one group's rows (the candidates with finite gains); returns the rows written."""
    row0 = n_rows
    pl = -1
    for j in range(n):
        if not math.isfinite(gain[j]):
            continue
        if j == played:
            pl = n_rows - row0
        for i in range(C_DIM):
            rows_c[n_rows * C_DIM + i] = feats[j * C_DIM + i]
        rows_gain[n_rows] = gain[j]
        rows_se[n_rows] = se[j]
        rows_move[n_rows] = cand[j]
        n_rows += 1
    m = offset(meta, g * G_FIELDS)
    m[G_ROUND] = r
    m[G_TURN] = turn
    m[G_SEAT] = seat
    m[G_STAGE] = stage
    m[G_N] = n_rows - row0
    m[G_PLAYED] = pl
    m[G_ROW] = row0
    m[G_EXPLORED] = 1 if explored else 0
    return n_rows


@jit(inline=True)
def _margin(st):
    if st[R_PLAYERS] == 1:
        return np.float64(side_score(st, 0))
    return np.float64(side_score(st, 0) - side_score(st, 1))


@jit
def teacher_round(rb, seed, r, first, k, z, explore, temp, pol_at, dec_at, bparams, ref_at, rparams,
                  luck, oth_at, oparams, depth, dets_a, vals_a, meta_a, s_a, c_a, gain_a, se_a, move_a, margin_a):
    """Play round r of `seed` with improve(base) at every seat, labelling each choice (module
    docstring); `ref_at`, `rparams`: the reference policy (``policy_address``) and its parameters;
    `luck`, `oth_at`, `oparams`, `depth`: the play-outs' control variate, the other side's decider and
    its parameters, and the turns the own side plays the base (``playouts.play_outs_on``; 0.0, the
    base's decider and parameters, 0: the base for every seat throughout).
    Returns (groups, rows, error): error is 0, or the engine's Illegal code of a move the teacher
    made (a bug).  margin_a[0]: side 0's margin (solitaire: its score) at the end."""
    k = min(k, K_MAX)
    st_a = np.zeros(STATE_WORDS, np.int64)
    mem_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    st = ptr(st_a)
    mems = ptr(mem_a)
    load_rules(st, ptr(rb))
    deal(st, mems, seed, r, first, 0)
    dets = ptr(dets_a)
    vals = ptr(vals_a)
    meta = ptr(meta_a)
    rows_s = ptr(s_a)
    rows_c = ptr(c_a)
    rows_gain = ptr(gain_a)
    rows_se = ptr(se_a)
    rows_move = ptr(move_a)
    bp = ptr(bparams)
    rp = ptr(rparams)
    op = ptr(oparams)
    words = stack_words(OBS_FIELDS)
    cand = stack_words(C_MAX)
    feats = stack_floats(FEATS_WORDS)
    gain = stack_floats(C_MAX)
    se = stack_floats(C_MAX)
    s = stack_floats(S_DIM)
    pst = stack_words(STATE_WORDS)              # the play-outs' room: a state, a slot memory, 2 words
    pmem = stack_u64(SLOT_MEM_WORDS)
    one = stack_words(2)
    base = stack_words(STATE_WORDS)
    used = stack_words(2)
    need = stack_words(4)
    pool = stack_words(POOL_MAX)
    rng = stack_u64(4)
    erng = stack_u64(4)
    seed_stream(erng, seed, r, EXPLORE_STREAM)
    g = 0
    n_rows = 0
    disc = (np.int64(0), np.int64(0))
    err = 0
    for _ in range(MAX_TURNS):
        if ended(st):
            break
        seat = st[S_SEAT]
        if st[R_SIMPLE] != 0:
            obs = observe_as(st, seat, True)
        else:
            obs = observe_as(st, seat, False)
        p = players(obs)
        mem = offset(mems, seat * MEM_WORDS)
        for i in range(OBS_FIELDS):
            words[i] = obs[i]
        rm = reference_move(words, ref_at, rp, mem)   # before the base: the stream as the network sees it
        bm = call_policy_at(pol_at, words, bp, mem)
        if is_pass(bm) or g + 2 > MAX_GROUPS:
            err = step(st, bm)
            if err != 0:
                break
            continue
        un = info_features(obs, s)
        # ---- the action candidates: the base's move first
        n_deck = deck_size(obs)
        bcard = move_card(bm)
        bto = move_to(bm)
        bdraw = move_draw(bm)
        n = 0
        rest = hand_cards(obs)
        acc = legal_plays(obs)
        cand[0] = bm
        n = 1
        while (rest[0] | rest[1]) != 0 and n < C_MAX - 1:
            x = lowest_card(rest)
            rest = without(rest, x)
            if not (x == bcard and bto == TO_EXPEDITION) and has(acc, x):
                cand[n] = make_play(x, TO_EXPEDITION, draw_for(obs, p, x, TO_EXPEDITION, bdraw, n_deck))
                n += 1
            if not (x == bcard and bto == TO_DISCARD):
                cand[n] = make_play(x, TO_DISCARD, draw_for(obs, p, x, TO_DISCARD, bdraw, n_deck))
                n += 1
        for j in range(n):
            x = move_card(cand[j])
            t = move_to(cand[j])
            f = offset(feats, j * C_DIM)
            candidate_features(obs, K_PLAY if t == TO_EXPEDITION else K_DISCARD, x, s, un, f)
            set_reference(f, action_is_reference(rm, x, t))
        stream = r * STREAM_ROUND + 2 * obs.turn
        seed_stream(rng, seed, r * STREAM_ROUND + obs.turn, DET_STREAM)
        deal_determinizations(dets, k, obs, disc[0], disc[1], base, used, need, pool, rng)
        play_outs_on(obs, dets, 0, k, k, cand, n, pst, pmem, one, vals, seed, stream, dec_at, bp, luck, oth_at,
                     op, depth)
        _gains(vals, k, n, gain, se)
        m = bm
        if math.isfinite(gain[0]):
            j, explored = _choose(gain, se, n, z, explore, temp, erng)
            m = cand[j]
            for i in range(S_DIM):
                rows_s[g * S_DIM + i] = s[i]
            n_rows = _label(g, n_rows, meta, rows_c, rows_gain, rows_se, rows_move, cand, feats, gain, se, n,
                            j, explored, r, obs.turn, seat, 0)
            g += 1
        card = move_card(m)
        to = move_to(m)
        if p > 1:
            # ---- the draw candidates after the action kept
            d0 = move_draw(m)
            legal = legal_draws(obs, card, to)
            n = 1
            cand[0] = m
            if d0 != DRAW_DECK and n_deck > 0:
                cand[n] = make_play(card, to, DRAW_DECK)
                n += 1
            for q in range(suits(obs)):
                if (legal >> q) & 1 == 0 or draw_pile(q) == d0:
                    continue
                cand[n] = make_play(card, to, draw_pile(q))
                n += 1
            if n > 1:
                for j in range(n):
                    d = move_draw(cand[j])
                    f = offset(feats, j * C_DIM)
                    if d == DRAW_DECK:
                        candidate_features(obs, K_DECK, -1, s, un, f)
                    else:
                        candidate_features(obs, K_PILE, pile_top(obs, d - 1), s, un, f)
                    set_reference(f, draw_is_reference(rm, card, to, d))
                play_outs_on(obs, dets, 0, k, k, cand, n, pst, pmem, one, vals, seed, stream + 1, dec_at, bp,
                             luck, oth_at, op, depth)
                _gains(vals, k, n, gain, se)
                if math.isfinite(gain[0]):
                    j, explored = _choose(gain, se, n, z, explore, temp, erng)
                    m = cand[j]
                    for i in range(S_DIM):
                        rows_s[g * S_DIM + i] = s[i]
                    n_rows = _label(g, n_rows, meta, rows_c, rows_gain, rows_se, rows_move, cand, feats, gain,
                                    se, n, j, explored, r, obs.turn, seat, 1)
                    g += 1
        elif to == TO_DISCARD:
            disc = with_card(disc, card)
        err = step(st, m)
        if err != 0:
            break
    margin_a[0] = _margin(st)
    alive(st_a)
    alive(mem_a)
    return g, n_rows, err
