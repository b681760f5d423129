"""How good a model of the other seat the base is, for ``improve:infer`` (docs/bots.md).

    python -m examples.inference_fidelity --rounds 100 --seed 5

Expert plays both seats of 2-player rounds.  After each of seat 1's moves, seat 0 reads the move off
the table (``engine.inference.last_move``), rebuilds the moment before it and asks expert there, with
streams of its own (``believes``): once in the true state, and on `--deals` uniform determinizations
of seat 0's observation.  It prints how often expert makes the move that was made in each case, by
the source of the draw: the true state's rate against the uniform deals' is the evidence one move
gives.
"""
from __future__ import annotations

import click
import numpy as np

import lostcards
from lostcards.engine import core
from lostcards.engine.determinize import POOL_MAX, base_from_obs, hidden_pool, needs, sample
from lostcards.engine.inference import believes, last_move, remember
from lostcards.engine.intrinsics import decide_address, offset, ptr
from lostcards.engine.layout import MEM_WORDS, SLOT_MEM_WORDS, STATE_WORDS
from lostcards.engine.moves import DRAW_DECK, move_card
from lostcards.engine.observation import deck_size, known
from lostcards.engine.rng import seed_stream
from lostcards.numba_cache import jit
from lostcards.policies import resolve
from lostcards.policies.expert import expert_policy

WORK = 6 * STATE_WORDS + 40 + POOL_MAX


@jit
def _round(rb, seed, rnd, par, mem_a, work, decide_at, deals, out):
    """One round of expert against itself; row n of `out` for seat 1's n-th move read: the true
    state's match, the matches on `deals` uniform deals, whether it drew off the deck."""
    st = ptr(work)
    base = offset(st, STATE_WORDS)
    re = offset(st, 2 * STATE_WORDS)
    d = offset(st, 3 * STATE_WORDS)
    snap = offset(st, 4 * STATE_WORDS)
    lm = offset(st, 4 * STATE_WORDS + 16)
    used = offset(st, 4 * STATE_WORDS + 24)
    one = offset(st, 4 * STATE_WORDS + 28)
    need = offset(st, 4 * STATE_WORDS + 32)
    pool = offset(st, 4 * STATE_WORDS + 40)
    mem = ptr(mem_a)
    smem = offset(mem, 4 * MEM_WORDS)
    rng = offset(mem, 4 * MEM_WORDS + SLOT_MEM_WORDS)
    params = ptr(par)
    core.load_rules(st, ptr(rb))
    core.deal(st, mem, seed, rnd, 0, 0)
    n = 0
    while not core.ended(st):
        s = core.seat_to_move(st)
        m = expert_policy(core.observe(st, s), params, offset(mem, s * MEM_WORDS))
        core.apply(st, m)
        if s == 0:
            remember(st, snap, move_card(m))
        elif not core.ended(st):
            obs = core.observe(st, 0)
            base_from_obs(base, obs, used)
            if last_move(obs, base, snap, lm):
                kn = known(obs, 1)[0]
                out[n, 0] = believes(st, re, snap, lm, kn, rng, smem, one, decide_at, params, seed, n)
                n_pool = hidden_pool(obs, (np.int64(0), np.int64(0)), used, pool)
                needs(obs, need)
                c = 0
                for _ in range(deals):
                    sample(d, base, STATE_WORDS, pool, n_pool, need, deck_size(obs), rng)
                    c += believes(d, re, snap, lm, kn, rng, smem, one, decide_at, params, seed, n)
                out[n, 1] = c
                out[n, 2] = lm[2] == DRAW_DECK
                n += 1
    return n


def fidelity(rules: str, rounds: int, seed: int, deals: int) -> dict[str, float]:
    """Match rates of expert asked before the other seat's move: true state and uniform deals."""
    rb = core.rules_block(lostcards.rules(rules, players=2))
    par = resolve("expert").params
    at = decide_address(expert_policy)
    rows = []
    for rnd in range(rounds):
        mem = np.zeros(4 * MEM_WORDS + SLOT_MEM_WORDS + 4, np.uint64)
        seed_stream(mem[4 * MEM_WORDS + SLOT_MEM_WORDS:], seed, rnd, 9)
        out = np.zeros((80, 3), np.int64)
        n = _round(rb, seed, rnd, par, mem, np.zeros(WORK, np.int64), at, deals, out)
        rows.append(out[:n])
    a = np.concatenate(rows)
    true, uni, deck = a[:, 0].astype(float), a[:, 1] / deals, a[:, 2].astype(bool)
    return {"moves": len(a), "true": true.mean(), "uniform": uni.mean(),
            "true_deck": true[deck].mean(), "uniform_deck": uni[deck].mean(),
            "true_pile": true[~deck].mean(), "uniform_pile": uni[~deck].mean(), "pile_moves": int((~deck).sum())}


@click.command()
@click.option("--rules", type=click.Choice(["expeditions", "lost-cities"]), default="expeditions")
@click.option("--rounds", type=click.IntRange(1, 100_000), default=100)
@click.option("--seed", type=click.IntRange(0), default=5)
@click.option("--deals", type=click.IntRange(1, 10_000), default=50)
def main(rules, rounds, seed, deals):
    """Print the match rates (module docstring)."""
    f = fidelity(rules, rounds, seed, deals)
    click.echo(f"{rules}, {rounds} rounds of seed {seed}: {f['moves']} moves of the other seat read")
    click.echo(f"  expert makes the move in the true state {f['true']:.1%}, on a uniform deal {f['uniform']:.1%}")
    click.echo(f"  after a deck draw {f['true_deck']:.1%} / {f['uniform_deck']:.1%}; after a pile draw "
               f"({f['pile_moves']} moves) {f['true_pile']:.1%} / {f['uniform_pile']:.1%}")


if __name__ == "__main__":
    main()
