"""Where expert's decision spends its time: the decision timed beside copies with one part switched off.

    python -m examples.expert_parts --decisions 200000 --seed 5

Expert plays against itself (2 players unless ``--players``) and every observation it decides on is
kept, with its seat's memory; then expert's decision is timed on those same observations beside a
copy of ``lostcards/policies/expert.py`` with one part switched off (``PARTS``: the line replaced and
its replacement), the two interleaved, ``--repeats`` times each on one pinned core, CPU time, medians.
A copy's moves differ (the count of unchanged moves is printed); the observations do not, so the
difference is the part's cost (docs/engine.md, "Profiling").  Nothing here changes the bot.
"""
from __future__ import annotations

import importlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import click
import numpy as np

# name -> (what is switched off, the line of expert.py, what replaces it)
PARTS = {
    "draw": ("the draw choice (always the deck)",
             "    return make_play(card, to, _draw(obs, params, wb, fb, cost, bc, bp, nums, n_deck, card, to, extend, "
             "mem))",
             "    return make_play(card, to, DRAW_DECK)"),
    "endgame": ("the endgame plan", "    if params[K_ENDGAME] != 0.0:", "    if False:"),
    "expected": ("the table of expected numbers to come",
                 "        for t in range(SLOTS - 1, 2, -1):\n            fb[F_FS",
                 "        for t in range(SLOTS - 1, 12, -1):\n            fb[F_FS"),
    "danger": ("the danger term of a discard", "        if safety:\n            cost_c += _danger",
               "        if False:\n            cost_c += _danger"),
    "counting": ("all counting (every per-suit word zero)",
                 "    _count_cards(obs, wb, fb, params[K_RHO] * RHO_PLAYERS[p], nums, full, extra, n_deck, h)",
                 "    for i in range(W_LEN):\n        wb[i] = 0\n    for i in range(F_LEN):\n        fb[i] = 0.0"),
}


def _kernels():
    """The two kernels (compiled on first use): keep observations of expert vs expert; time a policy on them."""
    from numba import njit

    from lostcards.engine.core import apply, deal, ended, load_rules
    from lostcards.engine.intrinsics import offset, ptr
    from lostcards.engine.layout import MEM_WORDS, OBS_FIELDS, R_SIMPLE, S_SEAT, SLOT_MEM_WORDS, STATE_WORDS, Obs
    from lostcards.engine.state import observe_as
    from lostcards.policies.expert import expert_policy

    names = {"njit": njit, "np": np, "apply": apply, "deal": deal, "ended": ended, "load_rules": load_rules,
             "offset": offset, "ptr": ptr, "observe_as": observe_as, "expert_policy": expert_policy, "Obs": Obs,
             "MEM_WORDS": MEM_WORDS, "OBS_FIELDS": OBS_FIELDS, "S_SEAT": S_SEAT, "R_SIMPLE": R_SIMPLE,
             "SLOT_MEM_WORDS": SLOT_MEM_WORDS, "STATE_WORDS": STATE_WORDS}
    row = ", ".join(f"row[{i}]" for i in range(OBS_FIELDS))       # an Obs from a kept row, field by field
    exec(f'''
@njit
def keep(rb, seed, params, out, mems):
    st_a = np.zeros(STATE_WORDS, np.int64)
    mem_a = np.zeros(SLOT_MEM_WORDS, np.uint64)
    st = ptr(st_a)
    mem = ptr(mem_a)
    i = 0
    r = 0
    while i < out.shape[0]:
        load_rules(st, ptr(rb))
        deal(st, mem, seed, r, r % 2, 0)
        while not ended(st) and i < out.shape[0]:
            seat = st[S_SEAT]
            obs = observe_as(st, seat, True) if st[R_SIMPLE] != 0 else observe_as(st, seat, False)
            for f in range(OBS_FIELDS):
                out[i, f] = obs[f]
            for w in range(MEM_WORDS):
                mems[i, w] = mem[seat * MEM_WORDS + w]
            apply(st, expert_policy(obs, ptr(params), offset(mem, seat * MEM_WORDS)))
            i += 1
        r += 1
    return i


@njit
def decide_all(policy, out, mems, params, moves):
    mem_a = np.zeros(MEM_WORDS, np.uint64)
    mem = ptr(mem_a)
    for i in range(out.shape[0]):
        row = out[i]
        for w in range(MEM_WORDS):
            mem[w] = mems[i, w]
        moves[i] = policy(Obs({row}), ptr(params), mem)
''', names)
    return names["keep"], names["decide_all"], expert_policy


def _copy_without(folder: Path, name: str) -> object:
    """expert.py with part `name` switched off, as a module of its own in `folder`."""
    import lostcards.policies.expert as expert
    what, old, new = PARTS[name]
    src = Path(expert.__file__).read_text()
    if src.count(old) != 1:
        raise click.ClickException(f"part {name!r} ({what}): its line is no longer in expert.py once; "
                                   "update PARTS in examples/expert_parts.py")
    (folder / f"expert_without_{name}.py").write_text(src.replace(old, new))
    return importlib.import_module(f"expert_without_{name}").expert_policy


@click.command()
@click.option("--decisions", type=click.IntRange(1000), default=200_000, show_default=True)
@click.option("--seed", type=click.IntRange(0), default=5, show_default=True)
@click.option("--players", type=click.Choice(["2", "4"]), default="2", show_default=True)
@click.option("--repeats", type=click.IntRange(1, 99), default=7, show_default=True)
@click.option("--parts", default=",".join(PARTS), show_default=True, help="comma-separated, of: " + ", ".join(PARTS))
def main(decisions, seed, players, repeats, parts):
    """Expert's decision timed beside copies with one part switched off (module docstring)."""
    from lostcards.engine.core import rules_block
    from lostcards.policies import resolve
    from lostcards.rules.ruleset import rules
    from lostcards.run.cores import CORE, pin

    names = [p.strip() for p in parts.split(",") if p.strip()]
    unknown = [p for p in names if p not in PARTS]
    if unknown:
        raise click.BadParameter(f"{unknown[0]!r}; the parts are {', '.join(PARTS)}", param_hint="--parts")
    pin({CORE})
    r = rules("expeditions", players=int(players))
    params = resolve("expert").params
    keep, decide_all, expert_policy = _kernels()
    from lostcards.engine.layout import MEM_WORDS, OBS_FIELDS
    out = np.zeros((decisions, OBS_FIELDS), np.int64)
    mems = np.zeros((decisions, MEM_WORDS), np.uint64)
    keep(rules_block(r), seed, params, out, mems)
    base = np.zeros(decisions, np.int64)
    moves = np.zeros(decisions, np.int64)
    decide_all(expert_policy, out, mems, params, base)
    click.echo(f"expert, {players} players, {decisions:,} decisions of seed {seed}, core {CORE}, CPU time, "
               f"medians of {repeats}")
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        try:
            for name in names:
                variant = _copy_without(Path(tmp), name)
                decide_all(variant, out, mems, params, moves)
                same = int((moves == base).sum())
                times = {"expert": [], name: []}
                for _ in range(repeats):
                    for label, policy in (("expert", expert_policy), (name, variant)):
                        c = time.process_time()
                        decide_all(policy, out, mems, params, moves)
                        times[label].append((time.process_time() - c) / decisions * 1e9)
                b, v = statistics.median(times["expert"]), statistics.median(times[name])
                click.echo(f"  without {PARTS[name][0]}: {v:.0f} ns a decision against {b:.0f}, "
                           f"{100 * (1 - v / b):+.1f}% saved; {same / decisions:.1%} of the moves unchanged")
        finally:
            sys.path.remove(tmp)


if __name__ == "__main__":
    if os.environ.get("NUMBA_DISABLE_JIT") == "1":
        sys.exit("examples.expert_parts times compiled code: unset NUMBA_DISABLE_JIT")
    main()
