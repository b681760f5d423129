"""Running batches of rounds: validate inputs, call the jitted batch loop, return arrays.

``play(rules, "expert", "greedy", rounds=100_000, seed=1)`` plays rounds
0..99,999 of seed 1 and returns a ``Batch`` of numpy arrays; ``records`` plays
chosen rounds again with a turn log and returns SPEC §5 round records.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from lostcards.engine import batch as loops
from lostcards.engine import core, moves
from lostcards.engine.policy import decider, decider_entry
from lostcards.errors import BadArgument, IllegalMove, PolicyFailure
from lostcards.policies import Policy, resolve
from lostcards.rules.cards import aside_count, deck_codes, format_card
from lostcards.rules.outcome import Ending
from lostcards.rules.ruleset import Ruleset
from lostcards.rules.ruleset import rules as make_rules
from lostcards.run import threads


@dataclass
class Batch:
    """Per-round arrays of one batch (rows are rounds start .. start+n-1)."""

    rules: Ruleset
    policies: tuple
    seed: int
    start: int
    round_info: np.ndarray   # [n, 5]: first, turns, ended_by, score side A, score side B
    seats: np.ndarray        # [n, players, 5]: plays, discards, deck_draws, pile_draws, passes
    seat_suits: np.ndarray   # [n, players, suits, 4]: held_count, held_sum, reached_count, reached_sum
    side_suits: np.ndarray   # [n, sides, suits, 3]: exp_cards, exp_investments, exp_score

    @property
    def n(self) -> int:
        return self.round_info.shape[0]

    @property
    def scores(self) -> np.ndarray:
        return self.round_info[:, 3:3 + self.rules.sides]


def _rules(r) -> Ruleset:
    """A preset name or a Ruleset, checked (a Ruleset built by hand, e.g. ``Ruleset(players=3)``, too)."""
    if isinstance(r, Ruleset):
        return r.checked()
    return make_rules(r)


def _policies(rules: Ruleset, policy_a, policy_b):
    a = resolve(policy_a)
    b = resolve(policy_b if policy_b is not None else policy_a)
    return a, b


def threads_available() -> int:
    return numba.config.NUMBA_NUM_THREADS


MAX_ROUNDS = 10**11      # the same bound as a batch's (run/shards.py)
MAX_RECORDS = 10**6      # play_records: records a call (each a few kB of Python objects)
MAX_SEED = 2**63 - 1
PLAY_MEMORY = 4 * 2**30  # what one `play()` call's arrays may take


def array_bytes_per_round(r: Ruleset) -> int:
    """What `play()` allocates per round (the four int arrays of a Batch)."""
    return 40 + 20 * r.players + 8 * r.players * r.suits + 6 * r.sides * r.suits


def check_play(rules, policy_a, policy_b, rounds, seed, start, first, threads):
    """``play``'s arguments checked and converted, as the command line checks them (BadArgument, RulesError
    or PolicyError: one line naming the argument, the value and what is allowed)."""
    from lostcards.rules.ruleset import check_int
    r = _rules(rules)
    a, b = _policies(r, policy_a, policy_b)
    rounds = check_int("rounds", rounds, 0, PLAY_MEMORY // array_bytes_per_round(r),
                       f"for one call (its arrays take {array_bytes_per_round(r)} bytes a round, at most "
                       f"{PLAY_MEMORY // 2**30} GiB; simulate plays more, shard by shard)", BadArgument, text=False)
    seed = check_int("seed", seed, 0, MAX_SEED, "", BadArgument, text=False)
    start = check_int("start", start, 0, MAX_ROUNDS, "(a round index)", BadArgument, text=False)
    if start + rounds - 1 > MAX_ROUNDS:
        raise BadArgument(f"start + rounds = {start + rounds:,} is not allowed: the round indices end at "
                          f"{MAX_ROUNDS:,} (round {start + rounds - 1:,} would be past it)")
    first = check_int("first", first, -1, r.players - 1, "(a seat, or -1: round i is started by seat i mod players)",
                      BadArgument, text=False)
    if threads is not None:
        threads = check_int("threads", threads, 1, 1024, "(or None: every core)", BadArgument, text=False)
    return r, a, b, rounds, seed, start, first, threads


def play(rules, policy_a="random", policy_b=None, rounds: int = 1000, seed: int = 0,
         start: int = 0, first: int = 0, threads: int | None = None) -> Batch:
    """Play rounds start .. start+rounds-1 of `seed`; side A (seats 0 and 2) plays policy_a.

    first: the seat that starts every round, or -1 for round i started by seat i mod players.
    threads: worker threads (default: all cores); the result does not depend on it.
    """
    r, a, b, rounds, seed, start, first, threads = check_play(rules, policy_a, policy_b, rounds, seed, start,
                                                               first, threads)
    n = int(rounds)
    sides = r.sides
    out_round = np.zeros((n, 5), np.int64)
    out_seat = np.zeros((n, r.players, 5), np.int32)
    out_suit = np.zeros((n, r.players, r.suits, 4), np.int16)
    out_side = np.zeros((n, sides, r.suits, 3), np.int16)
    nt = min(threads or threads_available(), threads_available())
    if a.kernel is None or b.kernel is None:
        _play_reference(r, a, b, seed, start, first, out_round, out_seat, out_suit, out_side)
    elif n:
        # a few chunks a thread (the threads share the work evenly), never fewer rounds a chunk
        # than the batch loop keeps in flight
        chunks = max(1, min(nt * 4, -(-n // loops.K_DEFAULT)))
        _run(r, a, b, seed, start, _NO_IDS, n, first, nt, chunks, out_round, out_seat, out_suit,
             out_side, _E64, _E32, _NO_ERRORS)
    bad = np.flatnonzero(out_round[:, 2] < -1)
    if bad.size:
        row = int(bad[0])
        code = int(-out_round[row, 2] - 1)
        raise PolicyFailure(f"round {start + row} (seed {seed}): a policy made an illegal move: "
                            f"{moves.message(code)} ({a.spec} vs {b.spec}; "
                            f"{bad.size} rounds affected)")
    return Batch(r, (a, b), int(seed), int(start), out_round, out_seat, out_suit, out_side)


def check_play_records(rules, policy_a, policy_b, round_indices, seed, first):
    """``play_records``'s arguments checked, as ``check_play`` does; the round indices as an int64 array."""
    from lostcards.rules.ruleset import check_int
    r, a, b, _, seed, _, first, _ = check_play(rules, policy_a, policy_b, 0, seed, 0, first, None)
    if isinstance(round_indices, (str, bytes)) or not hasattr(round_indices, "__iter__"):
        raise BadArgument(f"round_indices must be round numbers, e.g. range(3); got {round_indices!r:.40}")
    idx = []
    for i in round_indices:                 # an endless or huge iterable stops at the bound, not in memory
        if len(idx) >= MAX_RECORDS:
            raise BadArgument(f"round_indices holds more than {MAX_RECORDS:,} rounds: at most {MAX_RECORDS:,} "
                              "records a call (simulate --records writes more, shard by shard)")
        idx.append(check_int("round index", i, 0, MAX_ROUNDS, "", BadArgument, text=False))
    idx = np.array(idx, np.int64)
    return r, a, b, idx, seed, first


def _play_reference(r, a, b, seed, start, first, out_round, out_seat, out_suit, out_side):
    """Plain-Python policies play on the reference engine (slow: for prototyping); a numba policy
    beside one plays there through the bridge (run/bridge.py), exactly as it plays in the engine."""
    from lostcards.reference import round as reference
    pols = reference_policies(r, a, b)
    for row in range(out_round.shape[0]):
        i = start + row
        f = first if first >= 0 else i % r.players
        try:
            res = reference.play_round(r, seed, i, pols, first=f)
        except IllegalMove as e:
            raise PolicyFailure(f"round {i} (seed {seed}): {e}") from None
        st = res.stats
        out_round[row, :3] = (f, st["turns"], Ending(st["ended_by"]).code)
        out_round[row, 3:3 + r.sides] = st["scores"]
        out_seat[row] = st["seats"]
        out_suit[row] = st["seat_suits"]
        out_side[row] = st["side_suits"]


def reference_policies(r: Ruleset, a: Policy, b: Policy) -> list:
    """One reference-engine policy a side: a plain-Python policy as it is (guarded), a numba one
    bridged (compiled first, with the usual notice)."""
    from lostcards.run.bridge import prepare as prepare_bridge
    from lostcards.run.bridge import python_policy
    prepare_bridge([a, b][:r.sides], about([a, b]))
    return [python_policy(p) for p in (a, b)][:r.sides]


_E64 = np.zeros((0, 0), np.int64)
_E32 = np.zeros((0, 0), np.int32)
_NO_IDS = np.zeros(0, np.int64)
_NO_ERRORS = np.zeros(0, np.int64)


def prepare(a: Policy, b: Policy) -> float:
    """Compile (or load from the cache) what playing `a` against `b` needs: the batch loop and each
    policy's decider; one line on stderr first when something compiles.  Returns its seconds."""
    from lostcards.numba_cache import Entry, compile_all
    if a.kernel is None or b.kernel is None:     # a plain-Python policy plays on the reference engine,
        from lostcards.run.bridge import prepare as prepare_bridge
        return prepare_bridge([a, b], about([a, b]))     # a numba one beside it through the bridge
    entries = [Entry(loops.play_chunk, loops.CHUNK_SIG, "the batch loop", 15.0)]
    for p in (a, b) if a.kernel is not b.kernel else (a,):
        if p.kernel is not None:
            entries.append(decider_entry(p.kernel, p.name, p.compile_s))
    return compile_all(entries)


def about(policies) -> dict:
    """Each policy's first guess of its compile seconds (its ``compile_s``; the cache remembers what it took)."""
    return {p.name: p.compile_s for p in policies}


def _run(r, a, b, seed, start, ids, n, first, nt, chunks, out_round, out_seat, out_suit, out_side,
         logs, orders, errors):
    """The jitted batch loop (engine.batch.play_chunk) over `chunks` pieces, on `nt` threads."""
    prepare(a, b)
    rb = core.rules_block(r)
    dec_a, dec_b = decider(a.kernel), decider(b.kernel)
    pid = core.physical_ids(r)
    per = -(-n // chunks)
    stop = threads.new_stop()

    def chunk(c):
        loops.play_chunk(rb, np.int64(seed), np.int64(start), ids, np.int64(c * per), np.int64(min(n, c * per + per)),
                         np.int64(first), dec_a, a.params, dec_b, b.params, np.int64(loops.K_DEFAULT),
                         out_round, out_seat, out_suit, out_side, logs, orders, pid, errors, stop)
    threads.run_chunks(chunk, -(-n // per), nt, stop)


def log_rounds(r: Ruleset, a: Policy, b: Policy, idx, seed: int, first: int, logs, orders, errors,
               threads: int | None = None):
    """Play rounds `idx` again, on all cores: their moves into `logs` (-1 after the last), their dealt
    order (physical ids) into `orders`, an illegal move's code (engine.moves.Illegal) into `errors`."""
    idx = np.ascontiguousarray(idx, np.int64)
    k = idx.shape[0]
    if not k:
        return
    if a.kernel is None or b.kernel is None:
        _log_reference(r, a, b, idx, seed, first, logs, orders, errors)
        return
    nt = min(threads or threads_available(), threads_available())
    _run(r, a, b, seed, 0, idx, k, first, nt, max(1, min(k, nt * 4)),
         np.zeros((0, 5), np.int64), np.zeros((0, 1, 5), np.int32), np.zeros((0, 1, 1, 4), np.int16),
         np.zeros((0, 1, 1, 3), np.int16), logs, orders, errors)


def _log_reference(r: Ruleset, a: Policy, b: Policy, idx, seed: int, first: int, logs, orders, errors):
    """``log_rounds`` for rounds with a plain-Python policy: played on the reference engine."""
    from lostcards.engine.moves import E_LOG_FULL, from_reference
    from lostcards.reference import round as reference
    from lostcards.reference.observation import side_of
    from lostcards.rules.streams import Stream
    pols = reference_policies(r, a, b)
    cap = logs.shape[1]
    for j, i in enumerate(int(x) for x in idx):
        f = first if first >= 0 else i % r.players
        rnd = reference.Round.dealt(r, seed, i, f)
        hands, deck, aside = reference.deal(r, seed, i)
        orders[j] = [*aside, *(p for h in hands for p in h), *deck]
        streams = [Stream(seed, i, 1 + s) for s in range(r.players)]
        logs[j] = -1
        while not rnd.ended:
            if rnd.turn >= cap:
                errors[j] = E_LOG_FULL
                break
            move = pols[side_of(rnd.seat, r.players)](rnd.observation(), streams[rnd.seat])
            try:
                rnd.apply(move)
            except IllegalMove as e:
                raise PolicyFailure(f"round {i} (seed {seed}): the policy of seat {rnd.seat} made an illegal "
                                    f"move on turn {rnd.turn + 1}: {e.reason}") from None
            logs[j, rnd.turn - 1] = from_reference(move)


def max_turns(r: Ruleset) -> int:
    """An upper bound on a round's turns, for sizing turn logs."""
    if r.turn_cap:
        return r.turn_cap
    # each stall run is shorter than stall_limit*players turns and ends with a
    # deck draw or an expedition play (both bounded by the deck); passes at most double it
    return (2 * r.deck_size + 2) * r.stall_limit * r.players * 2


def play_records(rules, policy_a="random", policy_b=None, round_indices=(0,), seed: int = 0,
            first: int = 0) -> list[dict]:
    """SPEC §5 records of the given rounds (at most 1,000,000 a call), as the batch loop plays them."""
    r, a, b, idx, seed, first = check_play_records(rules, policy_a, policy_b, round_indices, seed, first)
    if a.kernel is None or b.kernel is None:
        return _reference_records(r, a, b, idx, seed, first)
    deck = deck_codes(r)
    k = idx.shape[0]
    cap = max_turns(r)
    logs = np.zeros((k, cap), np.int64)
    orders = np.zeros((k, len(deck)), np.int32)
    errors = np.zeros(k, np.int64)
    log_rounds(r, a, b, idx, seed, first, logs, orders, errors)
    out = []
    for j in range(k):
        if errors[j]:
            raise PolicyFailure(f"round {int(idx[j])} (seed {seed}): {moves.message(errors[j])}")
        f = first if first >= 0 else int(idx[j]) % r.players
        out.append(record_of(r, [deck[p] for p in orders[j]], logs[j], f))
    return out


def _reference_records(r: Ruleset, a: Policy, b: Policy, idx, seed: int, first: int) -> list[dict]:
    """Records of rounds with a plain-Python policy: played again on the reference engine."""
    from lostcards.reference import round as reference
    pols = reference_policies(r, a, b)
    out = []
    for i in idx:
        i = int(i)
        f = first if first >= 0 else i % r.players
        try:
            out.append(reference.play_round(r, seed, i, pols, first=f).record)
        except IllegalMove as e:
            raise PolicyFailure(f"round {i} (seed {seed}): {e}") from None
    return out


def record_of(r: Ruleset, shuffled: list[int], log, first: int) -> dict:
    """A SPEC §5 record from a shuffled deck (codes) and a move log."""
    letters = r.letters
    fmt = lambda c: format_card(int(c), letters)  # noqa: E731
    n = len(shuffled)
    off = aside_count(r.players, n)
    h = r.hand_size
    hands = [[fmt(c) for c in shuffled[off + s * h: off + (s + 1) * h]] for s in range(r.players)]
    rec = {"format": "lostcards-round/1", "rules": r.to_record(), "players": r.players,
           "first": first, "hands": hands, "deck": [fmt(c) for c in shuffled[off + r.players * h:]]}
    if r.players == 1:
        rec["aside"] = [fmt(c) for c in shuffled[:off]]
    turns = []
    for m in log:
        if m < 0:
            break
        turns.append(moves.turn_record(int(m), r))
    rec["turns"] = turns
    return rec
