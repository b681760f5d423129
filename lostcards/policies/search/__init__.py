"""The `search` policy: flat Monte Carlo over determinizations (PIMC); docs/search.md.

For each candidate move (every legal play x every legal draw source; with 4
players a few passes too) the bot deals the hidden cards at random
consistently with its observation (``lostcards.determinize``: other hands
weighted by what their owners tend to keep), applies the candidate and plays
the round to its end with a rollout policy for every seat (``expert`` through
the engine by default, or the cheap ``rollout_move`` on the module's own
simulator), scoring the final margin (own side minus the other; solitaire: own
score).  All candidates are played on the same determinizations (common
random numbers), candidates clearly behind the leader are dropped between
batches, and the leader replaces the rollout policy's own move only when its
paired advantage is clear.

Parameters: ``rollouts`` (most determinizations a candidate is played on),
``prune`` (z at which a trailing candidate is dropped; 0 = never), ``switch``
(z the leader needs over the baseline move), ``passes`` (most pass candidates,
4 players), ``rollout`` (``expert`` / ``fast``), ``infer`` (``on`` / ``off``:
weighted or uniform other hands).
"""
from __future__ import annotations

import numpy as np
from numba import carray, njit

from lostcards.policies.legacy.core import (
    DRAW_DECK,
    DRAW_NONE,
    END_NONE,
    PASS_FLAG,
    S_ENDED,
    S_LEN,
    S_PASSED,
    TO_DISCARD,
    TO_EXPEDITION,
    apply_move,
    expedition_score,
    make_pass,
    make_play,
)
from lostcards.policies.legacy.expert import EXPERT, expert_policy
from lostcards.policies.legacy.observation import (
    HMAX,
    NSUITS,
    O_CAN_PASS,
    O_EXP_COUNT,
    O_EXP_INV,
    O_EXP_SUM,
    O_EXP_TOP,
    O_HAND,
    O_HAND_LEN,
    O_PILE_LEN,
    O_RULES,
    O_SEAT,
    O_SIDE,
    OBS_LEN,
    PMAX,
)
from lostcards.policies.search.determinize import (
    NMAX,
    W_CNT,
    W_DECK_N,
    W_DECK_POS,
    W_ENDED,
    W_HAND,
    W_HLEN,
    W_LEN,
    W_PILE,
    W_PLEN,
    W_STALL,
    W_TOP,
    base_state,
    canonical_pids,
    hand_weights,
    margin,
    sample,
    sim_apply,
    to_engine,
)
from lostcards.rules.cards import MAX_CODES, SLOTS
from lostcards.rules.ruleset import P_COST, P_LEN, P_PASS_MIN, P_PASS_TWICE, P_PLAYERS, P_SUITS

_EXPERT_PARAMS = EXPERT.params      # the expert's defaults, frozen into the compiled code
ROLL_EXPERT, ROLL_FAST = 0, 1
K_ROLLOUTS, K_PRUNE, K_SWITCH, K_PASSES, K_ROLLOUT, K_INFER = range(6)   # parameter positions

# ---- the rollout heuristic ------------------------------------------------------------


@njit(cache=True, inline="always")
def _gap(slot, top):
    """Number slots skipped by laying `slot` on an expedition whose highest is `top`."""
    base = top if top >= 3 else 2
    return slot - base - 1


@njit(cache=True)
def rollout_move(W, R, seat, tmp):
    """A cheap deterministic heuristic move for `seat` on the full state W, looking
    only at what that seat may see (its hand and the table).  `tmp`: int32 scratch
    of at least 2 * NSUITS.  Never passes.

    Play: lay the card with the smallest gap on an opened expedition (a gap of 1
    early, any gap near the end), or open a suit whose numbers in hand plus the
    expected draws cover the cost; otherwise discard the least useful card (dead
    for us first, sparing cards the other side can lay).  Draw: the top of a pile
    that extends an opened expedition by a small gap, else the deck.
    """
    players = R[P_PLAYERS]
    suits = R[P_SUITS]
    cost = R[P_COST]
    sd = seat % 2 if players > 1 else 0
    od = 1 - sd
    hb = W_HAND + seat * HMAX
    h = W[W_HLEN + seat]
    deck_left = W[W_DECK_N] - W[W_DECK_POS]
    mine = deck_left // players + 1 if players > 1 else deck_left + h   # own plays left, about
    for s in range(suits):
        tmp[s] = 0            # numbers in hand, sum
        tmp[NSUITS + s] = 0   # investments in hand
    for i in range(h):
        c = W[hb + i]
        s = c // SLOTS
        t = c % SLOTS
        if t >= 3:
            if t > W[W_TOP + sd * NSUITS + s]:
                tmp[s] += t - 1
        else:
            tmp[NSUITS + s] += 1
    max_gap = 1 if mine > 6 else (2 if mine > 3 else 99)
    # -- choose the play
    best = -1
    best_v = -1000
    for i in range(h):
        c = W[hb + i]
        s = c // SLOTS
        t = c % SLOTS
        xi = sd * NSUITS + s
        top = W[W_TOP + xi]
        if t < 3:
            if top != 0:
                continue
            # an investment: only early, with the numbers for it in hand
            if mine < 6 or tmp[s] < cost + 4:
                continue
            v = 0
        else:
            if t <= top:
                continue
            g = _gap(t, top)
            if W[W_CNT + xi] > 0:
                if g > max_gap:
                    continue
                v = 10 - 2 * g
            else:
                # open the suit if hand numbers (from this card up) plus expected draws pay the cost
                if tmp[s] + (mine * 6) // 10 < cost or g > 2 + (mine <= 3) * 97:
                    continue
                if mine <= 3 and tmp[s] < cost:
                    continue
                v = 5 - 2 * g
        if v > best_v or (v == best_v and t < W[hb + best] % SLOTS):
            best_v = v
            best = i
    to = TO_EXPEDITION
    if best < 0:
        # -- discard the least useful card
        to = TO_DISCARD
        worst_k = 1 << 30
        for i in range(h):
            c = W[hb + i]
            s = c // SLOTS
            t = c % SLOTS
            v = t - 1 if t >= 3 else 0
            xi = sd * NSUITS + s
            top = W[W_TOP + xi]
            alive = (t < 3 and top == 0) or (t >= 3 and t > top)
            if not alive:
                k = -100
            elif W[W_CNT + xi] > 0:
                k = 60 - 4 * _gap(t, top) + v
            else:
                k = 2 * tmp[s] + v + 6 * tmp[NSUITS + s]
                if t < 3:
                    k = 2 * tmp[s] - 10
            if players > 1:
                oi = od * NSUITS + s
                otop = W[W_TOP + oi]
                if (t < 3 and otop == 0) or (t >= 3 and t > otop):
                    if W[W_CNT + oi] > 0:
                        k += 30 + 2 * v
                    else:
                        k += v // 2
            if k < worst_k:
                worst_k = k
                best = i
    code = W[hb + best]
    if players == 1:
        return make_play(code, to, DRAW_NONE)
    # -- draw
    dsuit = code // SLOTS if to == TO_DISCARD else -1
    draw = DRAW_DECK
    if W[W_STALL] < 2:
        best_g = 2
        for s in range(suits):
            n = W[W_PLEN + s]
            if n == 0 or s == dsuit:
                continue
            c = W[W_PILE + s * PMAX + n - 1]
            t = c % SLOTS
            if t < 3:
                continue
            xi = sd * NSUITS + s
            top = W[W_TOP + xi]
            cnt = W[W_CNT + xi]
            if to == TO_EXPEDITION and code // SLOTS == s:
                cnt += 1
                if code % SLOTS >= 3:
                    top = code % SLOTS
            if cnt == 0 or t <= top:
                continue
            g = _gap(t, top)
            if g < best_g:
                best_g = g
                draw = 1 + s
    return make_play(code, to, draw)


@njit(cache=True)
def rollout(W, R, seat, tmp):
    """Play W to the end of the round with `rollout_move` for every seat, starting with `seat`."""
    players = R[P_PLAYERS]
    while W[W_ENDED] == END_NONE:
        if W[W_HLEN + seat] == 0:      # cannot happen by the rules; a guard against a bad deal
            break
        sim_apply(W, R, seat, rollout_move(W, R, seat, tmp))
        seat = seat + 1 if seat + 1 < players else 0


# ---- candidates ------------------------------------------------------------------------

@njit(cache=True)
def candidates(obs, moves, max_passes):
    """Fill `moves` with the distinct legal moves worth searching; returns their number.

    Every legal play (each distinct card to its expedition if allowed, and to its
    discard pile) with every legal draw source (the deck, then each non-empty pile
    but the one just discarded onto; solitaire: no draw), then with 4 players up to
    `max_passes` passes of two cards when a pass is legal.
    """
    players = obs[O_RULES + P_PLAYERS]
    suits = obs[O_RULES + P_SUITS]
    side = obs[O_SIDE]
    h = obs[O_HAND_LEN]
    n = 0
    for to in range(2):
        for i in range(h):
            c = obs[O_HAND + i]
            if i > 0 and obs[O_HAND + i - 1] == c:
                continue                       # a copy: the same move
            s = c // SLOTS
            t = c % SLOTS
            if to == TO_EXPEDITION:
                top = obs[O_EXP_TOP + side * NSUITS + s]
                if (t < 3 and top != 0) or (t >= 3 and t <= top):
                    continue
            if players == 1:
                moves[n] = make_play(c, to, DRAW_NONE)
                n += 1
                continue
            moves[n] = make_play(c, to, DRAW_DECK)
            n += 1
            for ds in range(suits):
                if obs[O_PILE_LEN + ds] > 0 and not (to == TO_DISCARD and ds == s):
                    moves[n] = make_play(c, to, 1 + ds)
                    n += 1
    if players == 4 and obs[O_CAN_PASS] and max_passes > 0:
        # distinct codes in hand (sorted), then pairs among at most 6 of them: the
        # highest and the lowest codes when there are more
        codes = np.empty(h, np.int64)
        m = 0
        for i in range(h):
            c = obs[O_HAND + i]
            if m == 0 or codes[m - 1] != c:
                codes[m] = c
                m += 1
        pick = np.empty(6, np.int64)
        k = 0
        if m <= 6:
            for i in range(m):
                pick[k] = codes[i]
                k += 1
        else:
            for i in range(3):
                pick[k] = codes[i]
                pick[k + 1] = codes[m - 1 - i]
                k += 2
        passes = 0
        for i in range(k):
            for j in range(i + 1, k):
                if passes < max_passes:
                    moves[n] = make_pass(pick[i], pick[j])
                    n += 1
                    passes += 1
        # a pair of copies of one code (4 players: the extra low numbers)
        for i in range(h - 1):
            if obs[O_HAND + i] == obs[O_HAND + i + 1] and passes < max_passes:
                moves[n] = make_pass(obs[O_HAND + i], obs[O_HAND + i])
                n += 1
                passes += 1
    return n


# ---- rollouts through the engine, with the expert for every seat -----------------------


@njit(cache=True)
def expert_rollout(P, pid_code, S, O, seat, rng):
    """Play the engine state (S, O) to the end with `expert` for every seat.
    Returns False if a move was refused (the state then stands as it is)."""
    players = P[P_PLAYERS]
    while S[S_ENDED] == END_NONE:
        can = (players == 4 and O[seat, O_HAND_LEN] >= P[P_PASS_MIN]
               and (P[P_PASS_TWICE] != 0 or S[S_PASSED + seat] == 0))
        O[seat, O_CAN_PASS] = 1 if can else 0
        move = expert_policy(O[seat], _EXPERT_PARAMS, rng)
        if apply_move(P, pid_code, S, O, seat, move) != 0:
            return False
        seat = seat + 1 if seat + 1 < players else 0
    return True


@njit(cache=True)
def engine_margin(P, O, side):
    """Own side's score minus the other side's from the table of O (solitaire: own score)."""
    players = P[P_PLAYERS]
    total = 0
    for sd in range(2 if players > 1 else 1):
        sc = 0
        for s in range(P[P_SUITS]):
            xi = sd * NSUITS + s
            sc += expedition_score(P, O[0, O_EXP_SUM + xi], O[0, O_EXP_INV + xi], O[0, O_EXP_COUNT + xi])
        total += sc if sd == side or players == 1 else -sc
    return total


# ---- the search -------------------------------------------------------------------------

@njit(cache=True)
def search_policy(obs, params, rng):
    """Flat Monte Carlo over determinizations; see `evaluate`."""
    h = obs[O_HAND_LEN]
    moves = np.empty(2 * h * (obs[O_RULES + P_SUITS] + 1) + max(int(params[K_PASSES]), 0) + h + 2,
                     np.int64)
    means = np.empty(moves.shape[0], np.float64)
    nc, best, base = evaluate(obs, params, rng, moves, means)
    return moves[best]


@njit(cache=True)
def _paired(vals, a, b, n):
    """Mean and standard error of vals[a, :n] - vals[b, :n] (common determinizations)."""
    s = 0.0
    s2 = 0.0
    for d in range(n):
        x = vals[a, d] - vals[b, d]
        s += x
        s2 += x * x
    m = s / n
    var = (s2 / n - m * m) * n / (n - 1) if n > 1 else 0.0
    return m, np.sqrt(max(var, 0.0) / n)


@njit(cache=True)
def _play_out(mode, obs, Wd, R, P, pid_code, first_pid, S, O, me, nxt, side, move, rng, tmp, W):
    """The margin of `move` on the determinization Wd, played out by the rollout policy."""
    if mode == ROLL_EXPERT:
        to_engine(Wd, obs, first_pid, S, O)
        if apply_move(P, pid_code, S, O, me, move) != 0:
            return -1e9                      # cannot happen: candidates are legal
        expert_rollout(P, pid_code, S, O, nxt, rng)
        return engine_margin(P, O, side)
    W[:] = Wd
    if sim_apply(W, R, me, move) != 0:
        return -1e9
    rollout(W, R, nxt, tmp)
    return margin(W, R, side)


@njit(cache=True)
def evaluate(obs, params, rng, moves, means):
    """The search: fills `moves` with the candidates and `means` with their mean
    margins over the determinizations each was played on (NaN: never played);
    returns (candidates, chosen, baseline).

    Every candidate is played on the same determinizations (common random
    numbers).  The race starts with each play drawing off the deck (passes too)
    and the baseline, the rollout policy's own move; after the first batch of
    determinizations the plays still in the race bring in their pile-draw
    variants (played on the determinizations so far).  After each batch, a
    candidate whose paired difference with the leader is below -`prune`
    standard errors is dropped.  At the end the leader is chosen only if it
    beats the baseline by more than `switch` standard errors of the paired
    difference; otherwise the baseline."""
    W0 = np.empty(W_LEN, np.int32)
    pool = np.empty(NMAX, np.int32)
    npool = base_state(obs, W0, pool)
    if npool < 0:
        npool = 0
    wts = np.empty(4 * MAX_CODES, np.int64)
    hand_weights(obs, wts, int(params[K_INFER]))
    return evaluate_from(obs, params, rng, moves, means, W0, pool, npool, wts)


@njit(cache=True)
def evaluate_from(obs, params, rng, moves, means, W0, pool, npool, wts):
    """`evaluate` with the determinizations dealt from (W0, pool, wts) (determinize.sample)."""
    budget = max(2, int(params[K_ROLLOUTS]))
    z = params[K_PRUNE]
    zs = params[K_SWITCH]
    max_passes = int(params[K_PASSES])
    mode = int(params[K_ROLLOUT])
    R = obs[O_RULES:O_RULES + P_LEN]
    players = R[P_PLAYERS]
    nc = candidates(obs, moves, max_passes)
    me = obs[O_SEAT]
    side = obs[O_SIDE]
    nxt = me + 1 if me + 1 < players else 0
    W = np.empty(W_LEN, np.int32)
    scratch = np.empty(NMAX, np.int32)
    tmp = np.empty(2 * NSUITS, np.int32)
    # the baseline: the rollout policy's move in this position (added if not a candidate)
    if mode == ROLL_EXPERT:
        bm = expert_policy(obs, _EXPERT_PARAMS, rng)
    else:
        bm = rollout_move(W0, R, me, tmp)
    base = -1
    for ci in range(nc):
        if moves[ci] == bm:
            base = ci
    if base < 0:
        moves[nc] = bm
        base = nc
        nc += 1
    if nc == 1:
        means[0] = np.nan
        return nc, 0, 0
    # parent[ci]: for a pile-draw variant, the same play drawing off the deck
    parent = np.full(nc, -1, np.int64)
    last = -1
    for ci in range(nc):
        m = moves[ci]
        if m & PASS_FLAG:
            continue
        draw = (m >> 9) & 7
        if draw == DRAW_DECK:
            last = ci
        elif draw != DRAW_NONE and last >= 0 and (moves[last] & 511) == (m & 511):
            parent[ci] = last
    # engine state for expert rollouts
    P = np.empty(P_LEN, np.int64)
    for k in range(P_LEN):
        P[k] = R[k]
    pid_code = np.zeros(NMAX, np.int16)
    first_pid = np.zeros(MAX_CODES, np.int32)
    canonical_pids(R, pid_code, first_pid)
    S = np.empty(S_LEN, np.int32)
    O = np.empty((4, OBS_LEN), np.int32)

    Wds = np.empty((budget, W_LEN), np.int32)     # the determinizations, kept for late entrants
    vals = np.zeros((nc, budget), np.float64)
    count = np.zeros(nc, np.int64)
    alive = np.ones(nc, np.bool_)                 # not dropped
    racing = np.zeros(nc, np.bool_)               # in the race now
    for ci in range(nc):
        racing[ci] = parent[ci] < 0 or ci == base
    first_batch = 8 if budget >= 16 else 2
    done = 0
    lead = base
    while done < budget:
        stop = min(budget, done + (first_batch if done == 0 else 8))
        for d in range(done, stop):
            sample(W0, pool, npool, Wds[d], scratch, rng, wts)
            for ci in range(nc):
                if racing[ci] and alive[ci]:
                    vals[ci, d] = _play_out(mode, obs, Wds[d], R, P, pid_code, first_pid, S, O,
                                            me, nxt, side, moves[ci], rng, tmp, W)
                    count[ci] = d + 1
        if done == 0:
            # the plays still in the race bring in their pile-draw variants
            for ci in range(nc):
                if not racing[ci] and alive[parent[ci]]:
                    racing[ci] = True
                    for d in range(stop):
                        vals[ci, d] = _play_out(mode, obs, Wds[d], R, P, pid_code, first_pid, S, O,
                                                me, nxt, side, moves[ci], rng, tmp, W)
                    count[ci] = stop
        done = stop
        lead = -1
        best_mean = -1e300
        n_alive = 0
        for ci in range(nc):
            if racing[ci] and alive[ci]:
                n_alive += 1
                t = 0.0
                for d in range(done):
                    t += vals[ci, d]
                if t > best_mean:
                    best_mean = t
                    lead = ci
        if z > 0 and done < budget:
            for ci in range(nc):
                if racing[ci] and alive[ci] and ci != lead:
                    m, se = _paired(vals, ci, lead, done)
                    if m + z * se < 0.0:
                        alive[ci] = False
                        n_alive -= 1
        if n_alive <= 1:
            break
    for ci in range(nc):
        if count[ci] > 0:
            t = 0.0
            for d in range(count[ci]):
                t += vals[ci, d]
            means[ci] = t / count[ci]
        else:
            means[ci] = np.nan
    best = lead
    if lead != base:
        # on the determinizations both were played on (all of the leader's, or
        # those before the baseline was dropped)
        m, se = _paired(vals, lead, base, min(count[base], count[lead]))
        if m <= zs * se:
            best = base
    return nc, best, base


from lostcards.policies import Choice, Float, Int, Policy, Switch, register  # noqa: E402
from lostcards.policies.legacy import fill_row  # noqa: E402

_N_PARAMS = 6


@njit(cache=True)
def search_on_engine(obs, params, mem):
    """search on the engine's observation, through the old observation row (policies/legacy:
    search is not ported to the new engine core yet)."""
    row = np.zeros(OBS_LEN, np.int32)
    fill_row(obs, row)
    return search_policy(row, carray(params, (_N_PARAMS,)), carray(mem, (4,)))


SEARCH = register(Policy(
    "search", search_on_engine,
    parameters={"rollouts": Int(128, 1, 100_000, "most determinizations a candidate is played on"),
                "prune": Float(2.0, 0, 10, "standard errors below the leader that drop a candidate (0: never)"),
                "switch": Float(1.0, 0, 1e9, "standard errors a leader must beat the baseline move by (1e9: never)"),
                "passes": Int(15, 0, 500, "most pass candidates (4 players)"),
                "rollout": Choice({"expert": ROLL_EXPERT, "fast": ROLL_FAST}), "infer": Switch("on")},
    doc="flat Monte Carlo over determinizations of the hidden cards with expert rollouts; "
        "keeps expert's move unless another is clearly better (docs/search.md)"))


@njit(cache=True)
def rollout_policy(obs, params, rng):
    """The rollout heuristic alone, as a policy (for measuring it; never passes)."""
    W = np.empty(W_LEN, np.int32)
    pool = np.empty(NMAX, np.int32)
    tmp = np.empty(2 * NSUITS, np.int32)
    base_state(obs, W, pool)
    return rollout_move(W, obs[O_RULES:O_RULES + P_LEN], obs[O_SEAT], tmp)


@njit(cache=True)
def rollout_on_engine(obs, params, mem):
    """rollout_policy on the engine's observation (through the old row, as search_on_engine)."""
    row = np.zeros(OBS_LEN, np.int32)
    fill_row(obs, row)
    return rollout_policy(row, carray(params, (1,)), carray(mem, (4,)))


# not registered: `lostcards.policies.search:ROLLOUT` names it
ROLLOUT = Policy("search-rollout", rollout_on_engine, doc="the search bot's rollout heuristic alone")


def _bind_own_cache():
    # the rollouts run the expert and the engine compiled into this module's
    # functions: recompile them when those files change (numba_cache.bind_cache)
    from lostcards.numba_cache import bind_cache, module_files
    from lostcards.policies.legacy import core, expert, observation, rng
    from lostcards.policies.search import determinize
    from lostcards.rules import cards, outcome, ruleset, streams
    bind_cache(globals(), module_files(cards, outcome, ruleset, streams, core, observation, rng, expert,
                                       determinize))


_bind_own_cache()
