"""Move logs for analysis: play chosen rounds with a turn log, in parallel, and walk them.

``runner.play_records`` plays rounds one after another and returns JSON-ready
records; for measurements that need the state at every turn (who takes a
discard, what the hand held when an expedition was opened) we want the raw
move codes of thousands of rounds, fast.  ``logged_rounds`` plays them on all
cores (``runner.log_rounds``: the same ``engine.play_round`` the batch loop uses, so round i of a seed
is the same round, move for move) and returns the per-round statistics too.

``walk`` replays one logged round on the reference engine (``reference.Round``)
and extracts the per-turn facts the claims need (``RoundFacts``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from lostcards.engine import core as engine
from lostcards.engine.core import PASS_FLAG
from lostcards.errors import PolicyFailure
from lostcards.policies import resolve
from lostcards.reference.moves import Play
from lostcards.reference.round import Round
from lostcards.rules.cards import SLOTS, deck_codes
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.ruleset import rules as make_rules
from lostcards.run.runner import log_rounds, max_turns

LOG_CAP = 512          # turns kept per round in the fast pass; a longer round is played again

@dataclass
class Logged:
    """Rounds played again with their move logs (the same rounds as ``runner.play``)."""

    rules: Ruleset
    policies: tuple           # (side A, side B) specs
    seed: int
    rounds: np.ndarray        # round indices
    logs: np.ndarray          # [k, cap] move codes, -1 after the last
    orders: np.ndarray        # [k, deck] the shuffled deck, physical ids
    first: np.ndarray         # [k] the seat that started


def logged_rounds(rules, policy_a, policy_b=None, round_indices=(0,), seed: int = 0, first: int = 0,
                  parallel: bool = False, threads: int | None = None) -> Logged:
    """Play the given rounds of `seed` again, keeping every move.

    The rounds are spread over all cores (``runner.log_rounds``), or one core with
    ``parallel=False``; both give the same logs.
    """
    r = rules if isinstance(rules, Ruleset) else make_rules(rules)
    a = resolve(policy_a)
    b = resolve(policy_b if policy_b is not None else policy_a)
    idx = np.ascontiguousarray(np.asarray(list(round_indices), np.int64))
    deck = deck_codes(r)
    k = idx.shape[0]
    cap = min(LOG_CAP, max_turns(r))
    logs = np.full((k, cap), -1, np.int64)
    orders = np.zeros((k, len(deck)), np.int32)
    errors = np.zeros(k, np.int64)
    log_rounds(r, a, b, idx, seed, first, logs, orders, errors, threads=threads if parallel else 1)
    long = np.flatnonzero(errors == 8)           # the log was too short: play those again in full
    if long.size:
        full = max_turns(r)
        wide = np.full((k, full), -1, np.int64)
        wide[:, :cap] = logs
        logs = wide
        for j in long:
            err = np.zeros(1, np.int64)
            row_logs = np.full((1, full), -1, np.int64)
            row_orders = np.zeros((1, len(deck)), np.int32)
            log_rounds(r, a, b, idx[j:j + 1], seed, first, row_logs, row_orders, err, threads=1)
            logs[j], orders[j], errors[j] = row_logs[0], row_orders[0], err[0]
    bad = np.flatnonzero(errors != 0)
    if bad.size:
        j = int(bad[0])
        raise PolicyFailure(f"round {int(idx[j])} (seed {seed}): "
                            f"{engine.ERRORS.get(int(errors[j]), int(errors[j]))} ({a.spec} vs {b.spec})")
    firsts = np.full(k, first, np.int64) if first >= 0 else idx % r.players
    return Logged(r, (a.spec, b.spec), int(seed), idx, logs, orders, firsts)


# ---------------------------------------------------------------------------
# Walking a logged round on the reference engine
# ---------------------------------------------------------------------------

# fates of a card that entered a hand
LAID, DISCARDED, STRANDED = 0, 1, 2
# where a card in a hand came from
DEALT, FROM_DECK, FROM_PILE = 0, 1, 2

FACT_COLUMNS = {
    # one row per expedition opened (2 players: side = seat)
    "expeditions": ("round", "seat", "suit", "open_turn", "deck_at_open", "held_at_open",
                    "opened_with_investment", "invest_held", "investments", "cards", "numbers_sum",
                    "score"),
    # one row per card laid on an expedition
    "cards": ("round", "seat", "suit", "k", "value", "investment", "points", "turn"),
    # one row per discard
    "discards": ("round", "seat", "suit", "value", "investment", "turn", "deck", "own_dead",
                 "opp_dead", "opp_started", "opp_investments", "taken_by_opp", "taken_by_self",
                 "laid_by_opp", "opp_points"),
    # one row per card that entered a hand (dealt, or drawn)
    "entries": ("round", "seat", "suit", "value", "investment", "source", "turn", "deck", "fate"),
    # one row per seat and round
    "seats": ("round", "seat", "plays", "discards", "deck_draws", "pile_draws", "score",
              "opp_score", "stranded_points", "stranded_cards", "hand_points"),
    # one row per seat and suit (SPEC: held/reached at the deal; the side's expedition at the end)
    "seat_suits": ("round", "seat", "suit", "held_count", "held_sum", "reached_count", "reached_sum",
                   "exp_cards", "exp_investments", "exp_score", "exp_numbers_sum"),
    # one row per round
    "rounds": ("round", "first", "turns", "ended_by", "pile_draws", "score0", "score1"),
}


class _Facts:
    def __init__(self):
        self.cols = {t: {c: [] for c in cs} for t, cs in FACT_COLUMNS.items()}

    def add(self, table: str, **row):
        cols = self.cols[table]
        for c, v in row.items():
            cols[c].append(v)

    def n(self, table: str) -> int:
        return len(self.cols[table]["round"])

    def frames(self) -> dict:
        import pandas as pd
        return {t: pd.DataFrame({c: np.asarray(v) for c, v in cols.items()}) for t, cols in self.cols.items()}


def _score(total, inv, cards, rules) -> int:
    if cards == 0:
        return 0
    s = (total - rules.cost) * (inv + 1)
    if cards >= rules.bonus_cards:
        s += rules.bonus_points
    return s


def walk(logged: Logged) -> dict:
    """Replay every logged round on the reference engine and collect the per-turn facts.

    Returns a dict of DataFrames named as in ``FACT_COLUMNS`` (2 players only).
    Every move goes through ``reference.Round.apply``, so an illegal log would raise.
    """
    r = logged.rules
    if r.players != 2:
        raise ValueError("the per-turn facts are defined for 2 players")
    facts = _Facts()
    for j in range(logged.rounds.shape[0]):
        _walk_one(r, int(logged.rounds[j]), logged.orders[j], logged.logs[j], int(logged.first[j]), facts)
    return facts.frames()


def _walk_one(r: Ruleset, ri: int, order, log, first: int, F: _Facts):
    h = r.hand_size
    suits = r.suits
    order = [int(p) for p in order]
    rnd = Round(r, [order[0:h], order[h:2 * h]], order[2 * h:], first, round_index=ri)
    codes = rnd.codes
    top = [[0] * suits for _ in range(2)]       # highest number laid (face value), per side and suit
    tot = [[0] * suits for _ in range(2)]
    inv = [[0] * suits for _ in range(2)]
    cnt = [[0] * suits for _ in range(2)]
    exp_row = [[-1] * suits for _ in range(2)]  # row of the expedition in F's "expeditions"
    entry = {}                                  # pid -> row in "entries" while in a hand
    on_pile = {}                                # pid -> row in "discards" while on a pile
    taken = {}                                  # pid -> (row in "discards", taker) while the taker holds it
    laid_rows = []                              # (discard row, taker side, suit, value)
    deck0 = rnd.deck_size
    for seat in range(2):
        for pid in rnd.hands[seat]:
            c = codes[pid]
            entry[pid] = F.n("entries")
            F.add("entries", round=ri, seat=seat, suit=c // SLOTS, value=_val(c), investment=c % SLOTS < 3,
                  source=DEALT, turn=0, deck=deck0, fate=STRANDED)
    E = F.cols["entries"]["fate"]
    D = F.cols["discards"]
    t = 0
    for m in log:
        m = int(m)
        if m < 0:
            break
        if m & PASS_FLAG:
            raise ValueError("a pass in a 2-player log")
        seat = rnd.seat
        me, op = seat, 1 - seat
        card = m & 255
        to_discard = (m >> 8) & 1
        d = (m >> 9) & 7
        suit, slot = card // SLOTS, card % SLOTS
        value = slot - 1 if slot >= 3 else 0
        hand = rnd.hands[seat]
        pid = next(p for p in hand if codes[p] == card)      # the lowest physical id of that code
        deck_before = rnd.deck_size
        if to_discard:
            row = F.n("discards")
            F.add("discards", round=ri, seat=seat, suit=suit, value=value, investment=slot < 3, turn=t,
                  deck=deck_before,
                  own_dead=(top[me][suit] >= value) if slot >= 3 else top[me][suit] > 0,
                  opp_dead=(top[op][suit] >= value) if slot >= 3 else top[op][suit] > 0,
                  opp_started=cnt[op][suit] > 0, opp_investments=inv[op][suit],
                  taken_by_opp=False, taken_by_self=False, laid_by_opp=False, opp_points=0)
            on_pile[pid] = row
            E[entry.pop(pid)] = DISCARDED
            taken.pop(pid, None)
        else:
            before = _score(tot[me][suit], inv[me][suit], cnt[me][suit], r)
            if cnt[me][suit] == 0:
                held = sum(_val(codes[p]) for p in hand if codes[p] // SLOTS == suit)
                exp_row[me][suit] = F.n("expeditions")
                F.add("expeditions", round=ri, seat=seat, suit=suit, open_turn=t, deck_at_open=deck_before,
                      held_at_open=held, opened_with_investment=slot < 3, invest_held=-1, investments=0,
                      cards=0, numbers_sum=0, score=0)
            if slot < 3 and inv[me][suit] == 0:
                held = sum(_val(codes[p]) for p in hand if codes[p] // SLOTS == suit)
                F.cols["expeditions"]["invest_held"][exp_row[me][suit]] = held
            cnt[me][suit] += 1
            if slot < 3:
                inv[me][suit] += 1
            else:
                tot[me][suit] += value
                top[me][suit] = value
            after = _score(tot[me][suit], inv[me][suit], cnt[me][suit], r)
            F.add("cards", round=ri, seat=seat, suit=suit, k=cnt[me][suit], value=value, investment=slot < 3,
                  points=after - before, turn=t)
            E[entry.pop(pid)] = LAID
            got = taken.pop(pid, None)
            if got is not None and got[1] != seat_of_discard(D, got[0]):
                laid_rows.append((got[0], me, suit, value))
        new = None
        if d == 0:
            new = rnd.deck[len(rnd.deck) - rnd.deck_size]
            source = FROM_DECK
        else:
            pile = rnd.discard_piles[d - 1]
            new = pile[-1]
            source = FROM_PILE
        rnd.apply(Play(card, "discard" if to_discard else "expedition", "deck" if d == 0 else d - 1))
        if source == FROM_PILE:
            row = on_pile.pop(new)
            if D["seat"][row] == seat:
                D["taken_by_self"][row] = True
            else:
                D["taken_by_opp"][row] = True
            taken[new] = (row, seat)
        c = codes[new]
        entry[new] = F.n("entries")
        F.add("entries", round=ri, seat=seat, suit=c // SLOTS, value=_val(c), investment=c % SLOTS < 3,
              source=source, turn=t + 1, deck=rnd.deck_size, fate=STRANDED)
        t += 1
    if not rnd.ended:
        raise ValueError(f"round {ri}: the log stops before the end of the round")
    # the end: fill what is known only now
    X = F.cols["expeditions"]
    for side in range(2):
        for suit in range(suits):
            row = exp_row[side][suit]
            if row >= 0:
                X["investments"][row] = inv[side][suit]
                X["cards"][row] = cnt[side][suit]
                X["numbers_sum"][row] = tot[side][suit]
                X["score"][row] = _score(tot[side][suit], inv[side][suit], cnt[side][suit], r)
    for row, side, suit, value in laid_rows:
        D["laid_by_opp"][row] = True
        D["opp_points"][row] = value * (inv[side][suit] + 1)
    st = rnd.stats()
    scores = st["scores"]
    for seat in range(2):
        stranded = 0
        n_str = 0
        hp = 0
        for p in rnd.hands[seat]:
            c = codes[p]
            v = _val(c)
            hp += v
            s = c // SLOTS
            if v and cnt[seat][s] > 0 and v > top[seat][s]:
                stranded += v
                n_str += 1
        ss = st["seats"][seat]
        F.add("seats", round=ri, seat=seat, plays=int(ss[0]), discards=int(ss[1]), deck_draws=int(ss[2]),
              pile_draws=int(ss[3]), score=scores[seat], opp_score=scores[1 - seat],
              stranded_points=stranded, stranded_cards=n_str, hand_points=hp)
        for suit in range(suits):
            hs = st["seat_suits"][seat, suit]
            xs = st["side_suits"][seat, suit]
            F.add("seat_suits", round=ri, seat=seat, suit=suit, held_count=int(hs[0]), held_sum=int(hs[1]),
                  reached_count=int(hs[2]), reached_sum=int(hs[3]), exp_cards=int(xs[0]),
                  exp_investments=int(xs[1]), exp_score=int(xs[2]), exp_numbers_sum=tot[seat][suit])
    F.add("rounds", round=ri, first=first, turns=st["turns"], ended_by=st["ended_by"],
          pile_draws=int(st["seats"][:, 3].sum()), score0=scores[0], score1=scores[1])


def seat_of_discard(D, row) -> int:
    return D["seat"][row]


def _val(code: int) -> int:
    slot = code % SLOTS
    return slot - 1 if slot >= 3 else 0


# ---------------------------------------------------------------------------
# A bot that follows the rule sheet's investment tip to the letter
# ---------------------------------------------------------------------------

from lostcards.engine.core import TO_EXPEDITION  # noqa: E402
from lostcards.engine.observation import NSUITS, O_EXP_SUM, O_HAND, O_HAND_LEN, O_RULES, O_SIDE  # noqa: E402
from lostcards.policies import Policy  # noqa: E402
from lostcards.policies.expert import EXPERT, expert_policy  # noqa: E402
from lostcards.rules.ruleset import P_COST  # noqa: E402

# Not cached on disk (on purpose): these call `expert_policy`, and numba's cache of a caller keeps
# the callee's code from the day it was compiled, whatever later changes to expert.py.

@njit
def _unjustified_investment(obs, move):
    """The suit of an investment play whose numbers in hand (plus those laid) do not pay the cost, else -1."""
    if move & PASS_FLAG:
        return -1
    card = move & 255
    if (move >> 8) & 1 != TO_EXPEDITION or card % SLOTS >= 3:
        return -1
    s = card // SLOTS
    held = 0
    last = -1
    for i in range(obs[O_HAND_LEN]):
        c = obs[O_HAND + i]
        if c // SLOTS == s and c % SLOTS >= 3 and c != last:
            held += c % SLOTS - 1
            last = c
    if held + obs[O_EXP_SUM + obs[O_SIDE] * NSUITS + s] >= obs[O_RULES + P_COST]:
        return -1
    return s


@njit
def tip_invest_policy(obs, params, rng):
    """`expert`, except that it lays an investment only when the numbers of that suit already in its
    hand (plus those already laid) pay the cost, as the rule sheet's tip says.  When expert wants
    to lay one without them, that suit's investments are hidden from it for this turn and it picks
    its best other move (again, until the move is allowed)."""
    move = expert_policy(obs, params, rng)
    s = _unjustified_investment(obs, move)
    if s < 0:
        return move
    o2 = obs.copy()
    while s >= 0:
        k = 0
        for i in range(o2[O_HAND_LEN]):
            c = o2[O_HAND + i]
            if c // SLOTS == s and c % SLOTS < 3:
                continue
            o2[O_HAND + k] = c
            k += 1
        if k == 0:
            return move              # only those investments left: nothing else to play
        o2[O_HAND_LEN] = k
        move = expert_policy(o2, params, rng)
        s = _unjustified_investment(o2, move)
    return move


TIP_INVEST = Policy(
    "expert+tip-invest", tip_invest_policy, parameters=dict(EXPERT.parameters),
    doc="expert that lays an investment only when the numbers of its suit already in hand pay the cost")
