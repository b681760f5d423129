"""Self-play training of the learned blueprint: a natural evolution strategy gated against the previous generation.

The method is the evolution strategy of Salimans, Ho, Chen, Sidor and
Sutskever, "Evolution Strategies as a Scalable Alternative to Reinforcement
Learning" (2017): a Gaussian search distribution ``N(mu, sigma^2 I)`` over the
weight vector, antithetic pairs ``mu +/- sigma eps``, fitness shaped by centred
ranks, and Adam on the estimated gradient.  The fitness is self-play only: a
perturbed blueprint's mean margin on duplicate deals against the current
*champion* (the previous accepted generation) and the ``pool - 1`` champions
before it (a small league, as in fictitious self-play: against the champion
alone, two passive blueprints that never open a suit tie 0-0 and every
perturbation scores the same).  Each generation then plays the
new ``mu`` against the champion on ``gate`` duplicate deals per ruleset
(fresh deals) and accepts it as the next champion only when it is significantly
better: the mean margin's one-sided 95% lower bound (mean - 1.645 se) is above
0.  A rejected ``mu`` stays the search's centre; the champion stays the
opponent.  Generation 0 is all-zero weights: every option ties, so it plays
uniformly at random among the legal moves.

Reference opponents (``--reference``, e.g. ``expert``) are only measured, after
each generation, for the learning curve; they never enter the fitness, the
gate or any choice.  This module does not import any other policy.

Every number comes from ``seed``: the directions of generation g from
``numpy.random.default_rng([seed, g])``, the deals from the seeds
``seed * 4 + k`` (k = 0: fitness, 1: gate, 2: the reference), each generation
its own rounds, so a run is the same whatever the threads, and a stopped run
resumes (``state.json``) where it stopped.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lostcards.errors import BadArgument
from lostcards.policies.learned import FEATURES, N_WEIGHTS, load_weights, policy_of
from lostcards.rules.ruleset import parse_table_list, table_rules
from lostcards.stats import duplicate_margins

Z_GATE = 1.645          # one-sided 95%
FORMAT = "lostcards-learned/1"


@dataclass
class Settings:
    generations: int = 40
    seed: int = 0
    rulesets: tuple = ("expeditions/2",)
    pairs: int = 8           # antithetic pairs a generation
    pool: int = 4            # the champion and the champions before it, as the fitness's opponents
    deals: int = 300         # duplicate deals per candidate and ruleset
    gate: int = 4000         # duplicate deals per ruleset for the gate
    sigma: float = 0.3
    lr: float = 0.1
    reference: tuple = ()    # policies only measured (the learning curve)
    ref_deals: int = 1000
    threads: int | None = None
    init: str | None = None  # a weights file to start from (default: zeros)


def parse_rulesets(text: str) -> tuple:
    """'expeditions/2,lost-cities/2,expeditions/4' -> the same names, checked (BadArgument otherwise);
    self-play needs an opponent, so 2 or 4 players."""
    return parse_table_list(text, "--rules", players=(2, 4), error=BadArgument)


def duplicate(rules, a, b, deals: int, seed: int, start: int, threads) -> np.ndarray:
    """A's margin over B on each of `deals` duplicate deals (both seatings of rounds start..)."""
    from lostcards.run.runner import play
    g1 = play(rules, a, b, rounds=deals, seed=seed, start=start, first=-1, threads=threads)
    g2 = play(rules, b, a, rounds=deals, seed=seed, start=start, first=-1, threads=threads)
    s1, s2 = g1.scores, g2.scores
    return duplicate_margins(s1[:, 0], s1[:, 1], s2[:, 1], s2[:, 0])


def _mean_se(x: np.ndarray) -> tuple:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else 0.0


def _centred_ranks(f: np.ndarray) -> np.ndarray:
    r = np.empty(f.size)
    r[np.argsort(f, kind="stable")] = np.arange(f.size)
    return r / (f.size - 1) - 0.5 if f.size > 1 else np.zeros(1)


def _save_json(path: Path, data) -> None:
    """`path` written whole (a temporary file, fsync, rename)."""
    from lostcards.run.batchdir import write_bytes_atomic
    write_bytes_atomic((json.dumps(data, indent=1) + "\n").encode(), path)


def weights_doc(w, command: str, generation: int, settings: Settings) -> dict:
    return {"format": FORMAT, "command": command, "generation": generation,
            "rulesets": list(settings.rulesets), "seed": settings.seed,
            "weights": {f: round(float(v), 6) for f, v in zip(FEATURES, w)}}


CURVE_HEAD = ["generation", "accepted", "champion", "margin_vs_previous", "se_vs_previous", "gate_deals"]


def outputs(generations: int) -> list:
    """Every file a run of `generations` generations writes into its folder (the claim: ``run.batchdir``)."""
    return ["state.json", "curve.csv", "curve.png", "weights.json",
            *(f"gen_{g:03d}.json" for g in range(generations + 1))]


def train(settings: Settings, out: Path, command: str = "", say=print) -> np.ndarray:
    """Run (or resume) the training into `out`; returns the final champion's weights.

    `out` is claimed first (``run.batchdir.claim``, kind ``train``): a folder holding anything but
    this run's own files is refused in one line, nothing written.  Each generation writes its
    gen_NNN.json, then state.json (which carries the learning curve's rows), then curve.csv from
    the state, each file whole (a temporary file renamed): a kill at any moment leaves a state
    that resumes to the same result, and a damaged state is refused, not guessed at."""
    from lostcards.run.batchdir import claim, manifests_in, write_manifest
    st = settings
    rulesets = [table_rules(n) for n in st.rulesets]
    init = load_weights(st.init) if st.init else None      # a bad --init file: refused before the folder
    with claim(Path(out), "train", _settings_doc(st), outputs(st.generations), command) as c:
        out = c.out
        state = read_state(out / "state.json", st) if (out / "state.json").exists() else None
        if state is not None and state["generation"] > st.generations:
            raise BadArgument(f"--generations {st.generations}: {out} holds this run trained to generation "
                              f"{state['generation']} already; give --generations {state['generation']} (to "
                              "finish its files) or more")
        if c.old is not None:      # a resumed run's claim grows to this run's generations
            write_manifest(out, {**c.old, **c.stamp(complete=False)}, "manifest.json")
        champ = _run(st, out, rulesets, init, state, command, say)
        _save_json(out / "weights.json", weights_doc(champ[0], command, champ[1], st))
        plot_curve(out / "curve.csv", out / "curve.png")
        write_manifest(out, {**manifests_in(out)["train"], **c.stamp(complete=True)}, "manifest.json")
    return champ[0]


def _run(st: Settings, out: Path, rulesets, init, state, command: str, say) -> tuple:
    """The generations not yet done after `state` (None: a new run); returns (the champion's weights, its
    generation)."""
    refs = list(st.reference)
    if state is not None:
        mu = np.array(state["mu"])
        champ = np.array(state["champion"])
        m_adam, v_adam = np.array(state["adam_m"]), np.array(state["adam_v"])
        gen0 = state["generation"] + 1
        champ_gen = state["champion_generation"]
        league = [np.array(w) for w in state["league"]]
        curve = state["curve"]
        say(f"resuming at generation {gen0} (champion: generation {champ_gen})" if gen0 <= st.generations else
            f"all {st.generations} generations are done (champion: generation {champ_gen}); finishing the files")
    else:
        champ = init.copy() if init is not None else np.zeros(N_WEIGHTS)
        mu = champ.copy()
        m_adam, v_adam = np.zeros(N_WEIGHTS), np.zeros(N_WEIGHTS)
        gen0, champ_gen = 1, 0
        league = [champ.copy()]
        _save_json(out / "gen_000.json", weights_doc(champ, command, 0, st))
        curve = []
        if refs:
            row = _reference_row(champ, refs, rulesets, st, 0)
            curve.append(_cells([0, 1, 0, "", "", 0] + row + [0.0]))
        _write_curve(out, refs, curve)
    for g in range(gen0, st.generations + 1):
        t0 = time.perf_counter()
        rng = np.random.default_rng([st.seed, g])
        eps = rng.standard_normal((st.pairs, N_WEIGHTS))
        champ_pol = policy_of(champ)
        opponents = [policy_of(w) for w in league[-st.pool:]]
        fit = np.zeros(2 * st.pairs)
        for k in range(st.pairs):
            for j, sign in enumerate((1.0, -1.0)):
                cand = policy_of(mu + sign * st.sigma * eps[k])
                tot = 0.0
                for ri, r in enumerate(rulesets):
                    for opp in opponents:
                        x = duplicate(r, cand, opp, st.deals, st.seed * 4,
                                      (g * len(rulesets) + ri) * st.deals, st.threads)
                        tot += x.mean()
                fit[2 * k + j] = tot / (len(rulesets) * len(opponents))
        ranks = _centred_ranks(fit)
        grad = ((ranks[0::2] - ranks[1::2])[:, None] * eps).sum(0) / (2 * st.pairs * st.sigma)
        # Adam (Kingma and Ba, 2015), ascending the shaped fitness
        m_adam = 0.9 * m_adam + 0.1 * grad
        v_adam = 0.999 * v_adam + 0.001 * grad * grad
        mh = m_adam / (1 - 0.9 ** g)
        vh = v_adam / (1 - 0.999 ** g)
        mu = mu + st.lr * mh / (np.sqrt(vh) + 1e-8)
        # the gate: mu against the champion on fresh duplicate deals, every ruleset
        means, ses = [], []
        for ri, r in enumerate(rulesets):
            x = duplicate(r, policy_of(mu), champ_pol, st.gate, st.seed * 4 + 1,
                          (g * len(rulesets) + ri) * st.gate, st.threads)
            m, se = _mean_se(x)
            means.append(m)
            ses.append(se)
        gm = float(np.mean(means))
        gse = float(math.sqrt(sum(s * s for s in ses)) / len(ses))
        accepted = gm - Z_GATE * gse > 0
        prev_gen = champ_gen
        if accepted:
            champ = mu.copy()
            champ_gen = g
            league.append(champ.copy())
        _save_json(out / f"gen_{g:03d}.json", weights_doc(champ, command, champ_gen, st))
        row = _reference_row(champ, refs, rulesets, st, g) if refs else []
        secs = time.perf_counter() - t0
        curve.append(_cells([g, int(accepted), champ_gen, f"{gm:.3f}", f"{gse:.3f}",
                             st.gate * len(rulesets)] + row + [f"{secs:.1f}"]))
        ref_txt = "".join(f"; champion vs {n} {row[i]:+.1f} +/- {1.96 * row[len(refs) + i]:.1f}"
                          for i, n in enumerate(refs))
        # the state (with the curve's rows) first, then curve.csv from it: a kill between them loses nothing
        _save_json(out / "state.json", {"settings": _settings_doc(st), "generation": g, "mu": mu.tolist(),
                                        "champion": champ.tolist(), "champion_generation": champ_gen,
                                        "league": [w.tolist() for w in league[-st.pool:]],
                                        "adam_m": m_adam.tolist(), "adam_v": v_adam.tolist(), "curve": curve})
        _write_curve(out, refs, curve)
        say(f"generation {g}/{st.generations}: vs generation {prev_gen} "
            f"{gm:+.2f} +/- {1.96 * gse:.2f} ({st.gate:,} deals x {len(rulesets)}) "
            f"{'accepted' if accepted else 'rejected'}; champion = generation {champ_gen}{ref_txt}; {secs:.0f} s")
    _write_curve(out, refs, curve)
    return champ, champ_gen


def _cells(row) -> list:
    return [str(v) for v in row]


def _write_curve(out: Path, refs, curve) -> None:
    """curve.csv, whole, from the curve's rows (the state's)."""
    from lostcards.run.batchdir import write_bytes_atomic
    head = CURVE_HEAD + [f"vs_{r}" for r in refs] + [f"se_vs_{r}" for r in refs] + ["seconds"]
    write_bytes_atomic("".join(",".join(r) + "\n" for r in [head, *curve]).encode(), out / "curve.csv")


def _damaged(path: Path, why: str) -> BadArgument:
    return BadArgument(f"{path} is damaged ({why}), so this run cannot resume from it; move the folder "
                       f"{path.parent} away (or use another --out) to start again")


def read_state(path: Path, st: Settings) -> dict:
    """A run's state.json, checked field by field against what ``train`` writes; BadArgument in one line
    for anything else (not JSON, a field missing or of the wrong kind, a number not finite, a run of
    other settings)."""
    try:
        state = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise BadArgument(f"cannot read {path}: {e.strerror or e}") from None
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _damaged(path, "not JSON text") from None
    if not isinstance(state, dict):
        raise _damaged(path, f"a JSON {'null' if state is None else type(state).__name__}, not an object")
    missing = [k for k in STATE_KEYS if k not in state]
    if missing:
        raise _damaged(path, f"no {', '.join(missing[:3])}{', ...' if len(missing) > 3 else ''}")
    if state["settings"] != _settings_doc(st):
        raise BadArgument(f"{path.parent} holds a run with other settings (state.json); use another --out")
    g, cg = state["generation"], state["champion_generation"]
    if not (_is_int(g) and 0 <= g <= 100_000):
        raise _damaged(path, f"generation {str(g)[:20]}: a whole number 0..100,000")
    if not (_is_int(cg) and 0 <= cg <= g):
        raise _damaged(path, f"champion_generation {str(cg)[:20]}: a whole number 0..{g}")
    for k in ("mu", "champion", "adam_m", "adam_v"):
        _vector(path, k, state[k])
    if min(state["adam_v"]) < 0:
        raise _damaged(path, "adam_v has a negative number")
    lg = state["league"]
    if not (isinstance(lg, list) and 1 <= len(lg) <= st.pool):
        raise _damaged(path, f"league: 1 to {st.pool} weight vectors")
    for i, w in enumerate(lg):
        _vector(path, f"league[{i}]", w)
    width = len(CURVE_HEAD) + 2 * len(st.reference) + 1
    cv = state["curve"]
    rows = g + (1 if st.reference else 0)
    if not (isinstance(cv, list) and len(cv) == rows
            and all(isinstance(r, list) and len(r) == width and all(isinstance(x, str) and "," not in x
                                                                    and "\n" not in x for x in r) for r in cv)):
        raise _damaged(path, f"curve: {rows} rows of {width} texts, one a generation")
    return state


STATE_KEYS = ("settings", "generation", "mu", "champion", "champion_generation", "league", "adam_m", "adam_v",
              "curve")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _vector(path: Path, key: str, v) -> None:
    if not (isinstance(v, list) and len(v) == N_WEIGHTS
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v)):
        raise _damaged(path, f"{key}: {N_WEIGHTS} finite numbers")


def _settings_doc(st: Settings) -> dict:
    d = dict(st.__dict__)
    d.pop("generations")
    d.pop("threads")
    d["rulesets"] = list(st.rulesets)
    d["reference"] = list(st.reference)
    return d


def _reference_row(champ, refs, rulesets, st, g) -> list:
    """The champion's margin over each reference policy, on the first ruleset (measured only)."""
    ms, ses = [], []
    for ref in refs:
        x = duplicate(rulesets[0], policy_of(champ), ref, st.ref_deals, st.seed * 4 + 2, g * st.ref_deals,
                      st.threads)
        m, se = _mean_se(x)
        ms.append(round(m, 3))
        ses.append(round(se, 3))
    return ms + ses


def plot_curve(csv: Path, png: Path) -> None:
    """The learning curve: each generation's gate margin against the previous champion and,
    for reference, the champion's margin against each reference policy."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    df = pd.read_csv(csv)
    refs = [c for c in df.columns if c.startswith("vs_")]
    fig, axes = plt.subplots(2 if refs else 1, 1, figsize=(7, 6.5 if refs else 3.8), sharex=True, squeeze=False)
    ax = axes[0, 0]
    d = df[df.generation > 0]
    ax.errorbar(d.generation, d.margin_vs_previous, yerr=1.96 * d.se_vs_previous, fmt="o", ms=3,
                label="new weights vs the previous generation (the gate, 95%)")
    acc = d[d.accepted == 1]
    ax.plot(acc.generation, acc.margin_vs_previous, "o", mfc="none", ms=7, color="C2", label="accepted")
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_yscale("symlog", linthresh=1.0)
    ax.set_ylabel("margin, points a round")
    ax.legend(fontsize=8)
    ax.set_title("learned blueprint: self-play learning curve")
    for c in refs:
        bx = axes[1, 0]
        bx.errorbar(df.generation, df[c], yerr=1.96 * df["se_" + c], fmt="-o", ms=2, lw=1,
                    label=f"champion vs {c[3:]} (measured only, 95%)")
        bx.axhline(0, color="grey", lw=0.5)
        bx.set_ylim(max(-60, float(df[c].min()) - 5), max(5, float(df[c].max()) + 5))
        bx.set_ylabel("margin, points a round")
        bx.legend(fontsize=8)
    axes[-1, 0].set_xlabel("generation")
    fig.tight_layout()
    fig.savefig(png, dpi=120)
    plt.close(fig)
