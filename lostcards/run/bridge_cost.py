"""What a move costs through the bridge (run/bridge.py), against the engine: docs/policies.md's table.

    python -m lostcards.run.bridge_cost SPEC PLAYERS ROUNDS      # e.g. expert 2 30
"""
from __future__ import annotations

from lostcards.run.bridge import Bridged, prepare


def cost(spec: str = "expert", players: int = 2, rounds: int = 40, seed: int = 0) -> dict:
    """What a move costs through the bridge: microseconds a move of `spec` (against itself) on the
    reference engine, split into the observation, its conversion, the kernel call and the rest, and
    the same policy's microseconds a move in the engine's batch loop (one thread); CPU time throughout."""
    import time

    from lostcards.engine.convert import from_observation
    from lostcards.policies import resolve
    from lostcards.reference.round import Round
    from lostcards.rules.ruleset import rules as make_rules
    from lostcards.rules.streams import Stream
    from lostcards.run import runner
    r = make_rules("expeditions", players=players)
    p = resolve(spec)
    prepare([p])
    b = Bridged(p)
    t_obs = t_conv = t_total = 0.0
    moves = 0
    clock = time.thread_time          # CPU time of this thread: a loaded machine does not inflate it
    for i in range(rounds):
        rnd = Round.dealt(r, seed, i, i % players)
        streams = [Stream(seed, i, 1 + s) for s in range(players)]
        while not rnd.ended:
            t0 = clock()
            o = rnd.observation()
            t1 = clock()
            from_observation(o)
            t2 = clock()
            m = b(o, streams[rnd.seat])
            t3 = clock()
            rnd.apply(m)
            t_obs += t1 - t0
            t_conv += t2 - t1
            t_total += t3 - t2
            moves += 1
    runner.play(r, p, p, rounds=2, seed=seed, threads=1)       # warm
    t0 = time.process_time()          # the batch loop runs on a worker thread of its own
    eng = runner.play(r, p, p, rounds=rounds, seed=seed, first=-1, threads=1)
    t_eng = time.process_time() - t0
    eng_moves = int(eng.round_info[:, 1].sum())
    us = 1e6 / max(moves, 1)
    return {"policy": p.spec, "players": players, "moves": moves,
            "observation_us": t_obs * us, "conversion_us": t_conv * us,
            "kernel_and_rest_us": (t_total - t_conv) * us, "bridge_us": t_total * us,
            "engine_us": t_eng * 1e6 / max(eng_moves, 1)}


if __name__ == "__main__":          # python -m lostcards.run.bridge_cost [SPEC [PLAYERS [ROUNDS]]]
    import sys
    args = sys.argv[1:]
    res = cost(args[0] if args else "expert", int(args[1]) if len(args) > 1 else 2,
               int(args[2]) if len(args) > 2 else 40)
    print(f"{res['policy']}, {res['players']} players, {res['moves']} moves: through the bridge "
          f"{res['bridge_us']:.0f} us a move (conversion {res['conversion_us']:.0f} us, kernel call and move "
          f"{res['kernel_and_rest_us']:.0f} us; the reference engine's observation {res['observation_us']:.0f} us "
          f"besides); in the engine {res['engine_us']:.1f} us a move")
